"""The reduction checker (reluid/checker/reduction.py) rule by rule, on networks small enough to reduce by hand.

Each rule (constant, zero-outgoing, merge, dead by inspection) applied to a planted neuron gives the
network written out here; each false premise is rejected with its own message; each malformed
document with its own reading error; and the work limit is the steps times the parameters.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction as F

import pytest

from reluid.checker import reduction as R
from reluid.errors import CertificateError
from reluid.model.network import Network


def nets(*layers):
    return Network.from_lists(list(layers))


#: x ↦ (1, 3, 5) σ((x, 2x, 0·x + 4)) + 1: neuron 2 is a multiple of neuron 1, neuron 3 is the constant σ(4)
THETA = nets(([[1], [2], [0]], [0, 0, 4]), ([[1, 3, 5]], [1]))


def doc(original, reduced, *steps):
    return {"format": R.FORMAT, "original": {"sha256": original.sha256()}, "reduced": {"sha256": reduced.sha256()},
            "steps": [dict(s, step=n) for n, s in enumerate(steps, 1)]}


def step(rule, neuron, result, layer=1, **kw):
    return dict(rule=rule, layer=layer, neuron=neuron, result=result.sha256(), **kw)


def reason(d, original, reduced):
    res = R.check_reduction(d, original, reduced)
    assert not res.valid and res.exit_code == 1
    return res.reason


def test_constant_then_merge_by_hand():
    no_const = nets(([[1], [2]], [0, 0]), ([[1, 3]], [21]))          # 1 + 5 σ(4) = 21
    merged = nets(([[1]], [0]), ([[7]], [21]))                        # 1 + 3 · 2 = 7
    d = doc(THETA, merged, step("constant", 2, no_const, value=4), step("merge", 1, merged, into=0, factor=2))
    res = R.check_reduction(d, THETA, merged)
    assert res.valid and res.steps == 2 and res.exit_code == 0
    assert res.reason == ("the hashes name the two networks and 2 step(s), each re-verified by its rule, turn the "
                          "original into the reduced network exactly: the same function")
    assert R._step(THETA, d["steps"][0], 1) == no_const
    assert R._step(no_const, d["steps"][1], 2) == merged


def test_constant_rule():
    no_const = nets(([[1], [2]], [0, 0]), ([[1, 3]], [21]))
    assert reason(doc(THETA, no_const, step("constant", 2, no_const, value=5)), THETA, no_const) == (
        "step 1 (constant, hidden layer 1, neuron 3): the stated value is not σ(b^1_3) = 4")
    assert reason(doc(THETA, no_const, step("constant", 0, no_const, value=0)), THETA, no_const) == (
        "step 1 (constant, hidden layer 1, neuron 1): the incoming row W^1[1, :] is not zero")
    # a negative bias: σ(b) = 0 and the output bias is kept
    neg = nets(([[1], [0]], [0, -3]), ([[1, 5]], [1]))
    kept = nets(([[1]], [0]), ([[1]], [1]))
    assert R.check_reduction(doc(neg, kept, step("constant", 1, kept, value=0)), neg, kept).valid
    assert reason(doc(neg, kept, step("constant", 1, kept, value=-3)), neg, kept) == (
        "step 1 (constant, hidden layer 1, neuron 2): the stated value is not σ(b^1_2) = 0")


def test_zero_outgoing_rule():
    z = nets(([[1], [2]], [0, 1]), ([[1, 0]], [0]))
    out = nets(([[1]], [0]), ([[1]], [0]))
    assert R.check_reduction(doc(z, out, step("zero-outgoing", 1, out)), z, out).valid
    assert reason(doc(z, out, step("zero-outgoing", 0, out)), z, out) == (
        "step 1 (zero-outgoing, hidden layer 1, neuron 1): the outgoing weights W^2[:, 1] are not zero")
    two_out = nets(([[1], [2]], [0, 1]), ([[1, 0], [0, 2]], [0, 0]))   # a second output row uses neuron 2
    out2 = nets(([[1]], [0]), ([[1], [0]], [0, 0]))
    assert reason(doc(two_out, out2, step("zero-outgoing", 1, out2)), two_out, out2) == (
        "step 1 (zero-outgoing, hidden layer 1, neuron 2): the outgoing weights W^2[:, 2] are not zero")


def test_merge_rule():
    merged = nets(([[1], [0]], [0, 4]), ([[7, 5]], [1]))
    base = doc(THETA, merged, step("merge", 1, merged, into=0, factor=2))
    assert R.check_reduction(base, THETA, merged).valid
    bad = copy.deepcopy(base)
    bad["steps"][0]["factor"] = "1/2"
    assert reason(bad, THETA, merged) == "step 1 (merge, hidden layer 1, neuron 2): the stated factor is not λ = 2"
    for into in (1, 3):
        bad["steps"][0].update(into=into, factor=2)
        assert reason(bad, THETA, merged) == ("step 1 (merge, hidden layer 1, neuron 2): 'into' must be another "
                                              "neuron of hidden layer 1")
    bad["steps"][0].update(into=2)
    assert reason(bad, THETA, merged) == ("step 1 (merge, hidden layer 1, neuron 2): its incoming row and bias are "
                                          "not a positive multiple of neuron 3's")
    # a negative multiple, and a multiple in the weights but not the bias, are no merge
    flip = nets(([[1], [-2]], [0, 0]), ([[1, 3]], [0]))
    one = nets(([[1]], [0]), ([[-5]], [0]))
    assert reason(doc(flip, one, step("merge", 1, one, into=0, factor=-2)), flip, one).endswith(
        "not a positive multiple of neuron 1's")
    off = nets(([[1], [2]], [1, 3]), ([[1, 3]], [0]))
    assert reason(doc(off, one, step("merge", 1, one, into=0, factor=2)), off, one).endswith(
        "not a positive multiple of neuron 1's")
    # into a neuron whose weight is 0 but bias is not: λ from the first nonzero entry, the bias
    b = nets(([[0], [0], [1]], [2, 6, 0]), ([[1, 1, 1]], [0]))
    bm = nets(([[0], [1]], [2, 0]), ([[4, 1]], [0]))
    assert R.check_reduction(doc(b, bm, step("merge", 1, bm, into=0, factor=3)), b, bm).valid
    zero = nets(([[0], [1]], [0, 0]), ([[1, 1]], [0]))
    zm = nets(([[1]], [0]), ([[1]], [0]))
    assert reason(doc(zero, zm, step("merge", 1, zm, into=0, factor=1)), zero, zm).endswith(
        "not a positive multiple of neuron 1's")


def test_dead_by_inspection():
    deep = nets(([[1], [1]], [0, 0]), ([[-1, -2], [1, 1]], [0, 0]), ([[1, 1]], [0]))
    live = nets(([[1], [1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0]))
    orth = {"method": "orthant"}
    assert R.check_reduction(doc(deep, live, step("dead", 0, live, layer=2, premise=orth)), deep, live).valid
    assert reason(doc(deep, live, step("dead", 1, live, layer=2, premise=orth)), deep, live) == (
        "step 1 (dead, hidden layer 2, neuron 2): not dead by inspection (that needs hidden layer >= 2 and an "
        "incoming row and bias <= 0 entrywise)")
    first = nets(([[-1], [1]], [-1, 0]), ([[1, 1]], [0]))
    rest = nets(([[1]], [0]), ([[1]], [0]))
    assert reason(doc(first, rest, step("dead", 0, rest, premise=orth)), first, rest) == (
        "step 1 (dead, hidden layer 1, neuron 1): not dead by inspection (that needs hidden layer >= 2 and an "
        "incoming row and bias <= 0 entrywise)")
    pos_bias = nets(([[1], [1]], [0, 0]), ([[-1, -2], [1, 1]], [1, 0]), ([[1, 1]], [0]))
    assert "not dead by inspection" in reason(doc(pos_bias, live, step("dead", 0, live, layer=2, premise=orth)),
                                              pos_bias, live)
    zero_row = nets(([[1], [1]], [0, 0]), ([[0, 0], [1, 1]], [0, 0]), ([[1, 1]], [0]))
    assert R.check_reduction(doc(zero_row, live, step("dead", 0, live, layer=2, premise=orth)), zero_row, live).valid
    assert reason(doc(deep, live, step("dead", 0, live, layer=2, premise={"method": "lp"})), deep, live) == (
        "step 1 (dead, hidden layer 2, neuron 1): the premise gives neither a Farkas tree nor the inspection "
        "'orthant'")


def test_steps_out_of_the_network():
    one = nets(([[1]], [0]), ([[7]], [0]))
    assert reason(doc(THETA, one, step("zero-outgoing", 0, one, layer=2)), THETA, one) == (
        "step 1 (zero-outgoing, hidden layer 2, neuron 1): the network has 1 hidden layer(s)")
    assert reason(doc(THETA, one, step("zero-outgoing", 3, one)), THETA, one) == (
        "step 1 (zero-outgoing, hidden layer 1, neuron 4): hidden layer 1 has 3 neuron(s)")


def test_the_walk():
    merged = nets(([[1], [0]], [0, 4]), ([[7, 5]], [1]))
    d = doc(THETA, merged, step("merge", 1, merged, into=0, factor=2))
    wrong = copy.deepcopy(d)
    wrong["original"]["sha256"] = merged.sha256()
    assert reason(wrong, THETA, merged) == "the original network's SHA-256 does not match the document"
    wrong = copy.deepcopy(d)
    wrong["reduced"]["sha256"] = THETA.sha256()
    assert reason(wrong, THETA, merged) == "the reduced network's SHA-256 does not match the document"
    wrong = copy.deepcopy(d)
    wrong["steps"][0]["result"] = THETA.sha256()
    assert reason(wrong, THETA, merged) == ("step 1: the network the checker built has another SHA-256 than the "
                                            "step's result")
    assert reason(doc(THETA, merged), THETA, merged) == "the steps do not end at the reduced network"
    other_out = nets(([[1]], [0]), ([[1], [1]], [0, 0]))
    assert reason(doc(THETA, other_out), THETA, other_out) == (
        "architectures (1, 3, 1) and (1, 1, 2) do not have the same inputs, outputs and number of layers")
    other_in = nets(([[1, 1]], [0]), ([[1]], [0]))
    assert "do not have the same" in reason(doc(THETA, other_in), THETA, other_in)
    deeper = nets(([[1]], [0]), ([[1]], [0]), ([[1]], [0]))
    assert "do not have the same" in reason(doc(THETA, deeper), THETA, deeper)


def test_the_work_limit():
    merged = nets(([[1], [0]], [0, 4]), ([[7, 5]], [1]))
    d = doc(THETA, merged, step("merge", 1, merged, into=0, factor=2))
    cost = THETA.n_params + 1                            # one step: the original's parameters, plus one
    assert R.check_reduction(d, THETA, merged, work_limit=cost).valid
    res = R.check_reduction(d, THETA, merged, work_limit=cost - 1)
    assert not res.valid and res.reason == (f"rebuilding 1 networks takes {cost:,} steps, past the work limit "
                                            f"({cost - 1:,})")


def _shape(d, message):
    with pytest.raises(CertificateError) as e:
        R._check_shape(d)
    assert e.value.message == message


def test_the_shape_of_a_document():
    merged = nets(([[1], [0]], [0, 4]), ([[7, 5]], [1]))
    good = doc(THETA, merged, step("merge", 1, merged, into=0, factor=2))
    _shape([], "a reduction document is a JSON object")
    _shape(dict(good, format="x"), "format must be 'reluid.reduction/1', got 'x'")
    _shape(dict(good, original="a"), "'original' must be an object with a 'sha256' string")
    _shape(dict(good, reduced={"sha256": 1}), "'reduced' must be an object with a 'sha256' string")
    _shape(dict(good, steps={}), "'steps' must be a list")
    s = good["steps"][0]
    _shape(dict(good, steps=[dict(s, step=2)]), 'steps[0] must be an object with "step": 1')
    _shape(dict(good, steps=[s, dict(s, step=3)]), 'steps[1] must be an object with "step": 2')
    _shape(dict(good, steps=["x"]), 'steps[0] must be an object with "step": 1')
    _shape(dict(good, steps=[dict(s, rule="split")]),
           "step 1: unknown rule 'split' (one of constant, zero-outgoing, merge, dead)")
    _shape(dict(good, steps=[dict(s, layer=0)]), "step 1: 'layer' counts hidden layers from 1")
    _shape(dict(good, steps=[dict(s, layer=-1)]), "step 1: 'layer' must be a non-negative integer, got -1")
    _shape(dict(good, steps=[dict(s, layer=True)]), "step 1: 'layer' must be a non-negative integer, got True")
    _shape(dict(good, steps=[dict(s, neuron="1")]), "step 1: 'neuron' must be a non-negative integer, got '1'")
    _shape(dict(good, steps=[dict(s, result=1)]), "step 1: 'result' must be a SHA-256 string")
    _shape(dict(good, steps=[dict(s, into=None)]), "step 1: 'into' must be a non-negative integer, got None")
    _shape(dict(good, steps=[dict(s, factor=2.0)]), "step 1: 'factor' must be an integer or a 'p/q' string, got 2.0")
    _shape(dict(good, steps=[dict(s, factor="4/2")]), "step 1: 'factor': not in lowest terms: '4/2'")
    c = step("constant", 2, merged)
    _shape(dict(good, steps=[dict(c, step=1)]), "step 1: 'value' must be an integer or a 'p/q' string, got None")
    dead = step("dead", 0, merged)
    _shape(dict(good, steps=[dict(dead, step=1)]), "step 1: a dead neuron needs a 'premise' object")
    _shape(dict(good, steps=[dict(dead, step=1, premise=[])]), "step 1: a dead neuron needs a 'premise' object")
    assert R._check_shape(good) is good
    assert R._check_shape(dict(good, steps=[])) is not None
    assert R._rational({"v": "-3/4"}, "v", "w") == F(-3, 4) and R._rational({"v": 5}, "v", "w") == 5


def test_reading_a_document(tmp_path):
    merged = nets(([[1], [0]], [0, 4]), ([[7, 5]], [1]))
    path = tmp_path / "r.json"
    d = doc(THETA, merged, step("merge", 1, merged, into=0, factor=2))
    path.write_text(json.dumps(d))
    assert R.read_reduction(path) == d
    with pytest.raises(CertificateError) as e:
        R.read_reduction(tmp_path / "missing.json")
    assert e.value.message.startswith("cannot read: ")
    path.write_text(json.dumps(dict(d, format="y")))
    with pytest.raises(CertificateError) as e:
        R.read_reduction(path)
    assert e.value.message == "format must be 'reluid.reduction/1', got 'y'" and str(path) in str(e.value)
    assert R.parse_reduction(json.dumps(d)) == d and R.parse_reduction(json.dumps(d).encode()) == d


def test_more_rules_by_hand():
    # σ of a bias in (0, 1) is the bias itself
    half = nets(([[1], [0]], [0, F(1, 2)]), ([[1, 4]], [0]))
    kept = nets(([[1]], [0]), ([[1]], [2]))
    assert R.check_reduction(doc(half, kept, step("constant", 1, kept, value="1/2")), half, kept).valid
    # a neuron equal to another (λ = 1) merges; a zero neuron (λ = 0) is no merge
    dup = nets(([[1], [1]], [2, 2]), ([[1, 3]], [0]))
    one = nets(([[1]], [2]), ([[4]], [0]))
    assert R.check_reduction(doc(dup, one, step("merge", 1, one, into=0, factor=1)), dup, one).valid
    zero = nets(([[1], [0]], [2, 0]), ([[1, 3]], [0]))
    assert reason(doc(zero, one, step("merge", 1, one, into=0, factor=0)), zero, one) == (
        "step 1 (merge, hidden layer 1, neuron 2): its incoming row and bias are not a positive multiple of "
        "neuron 1's")
    # the second hidden layer's width, not the first's
    deep = nets(([[1], [2], [3]], [0, 0, 0]), ([[1, 1, 1], [2, 2, 2]], [0, 0]), ([[1, 1]], [0]))
    merged = nets(([[1], [2], [3]], [0, 0, 0]), ([[1, 1, 1]], [0]), ([[3]], [0]))
    assert reason(doc(deep, merged, step("zero-outgoing", 2, merged, layer=2)), deep, merged) == (
        "step 1 (zero-outgoing, hidden layer 2, neuron 3): hidden layer 2 has 2 neuron(s)")
    assert reason(doc(deep, merged, step("merge", 1, merged, layer=2, into=2, factor=2)), deep, merged) == (
        "step 1 (merge, hidden layer 2, neuron 2): 'into' must be another neuron of hidden layer 2")
    assert R.check_reduction(doc(deep, merged, step("merge", 1, merged, layer=2, into=0, factor=2)), deep,
                             merged).valid


def test_a_farkas_tree_that_proves_nothing():
    first = nets(([[-1], [1]], [-1, 0]), ([[1, 1]], [0]))
    rest = nets(([[1]], [0]), ([[1]], [0]))
    got = reason(doc(first, rest, step("dead", 0, rest, premise={"tree": {"format": "x"}})), first, rest)
    assert got.startswith("step 1 (dead, hidden layer 1, neuron 1): the Farkas tree does not prove that no input "
                          "has z^1_1 > 0 (") and got.endswith(")")


def test_documents_as_text_and_the_answer():
    merged = nets(([[1], [0]], [0, 4]), ([[7, 5]], [1]))
    d = doc(THETA, merged, step("merge", 1, merged, into=0, factor=2))
    assert R.check_reduction(json.dumps(d), THETA, merged).valid
    assert R.check_reduction(dict(d, steps=[]), THETA, merged).valid is False
    with pytest.raises(CertificateError) as e:
        R.parse_reduction('{"format": 1.5}')
    assert "a reduction document" in e.value.message


def test_reading_a_document_is_bounded(tmp_path, monkeypatch):
    merged = nets(([[1], [0]], [0, 4]), ([[7, 5]], [1]))
    text = json.dumps(doc(THETA, merged, step("merge", 1, merged, into=0, factor=2)))
    path = tmp_path / "r.json"
    path.write_text(text)
    monkeypatch.setattr(R, "MAX_BYTES", len(text))
    assert R.read_reduction(path)["format"] == R.FORMAT                     # at the bound: read
    monkeypatch.setattr(R, "MAX_BYTES", len(text) - 1)
    with pytest.raises(CertificateError) as e:
        R.read_reduction(path)
    assert (e.value.message, e.value.path) == ("reduction document too large", str(path))
    with pytest.raises(CertificateError) as e:
        R.read_reduction(tmp_path / "none.json")
    assert e.value.path == str(tmp_path / "none.json") and e.value.message == "cannot read: No such file or directory"
