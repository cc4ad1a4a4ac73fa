"""H4's cover trees, the producer's side (reluid/analysis/deep/h4_trees.py, docs/mathematics.md Lemma 8.13).

On random set systems the trees exist exactly when the checker's search finds no cover, and the checker's
tree verifier accepts every tree the producer writes (with and without the LP); on a network whose H4 the
count does not settle, the certificate carries the trees and ``reluid check`` verifies them without a search.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from reluid import api
from reluid.analysis.deep.h4_trees import cover_trees, open_sets
from reluid.analysis.deep.two_layers import analyse_two_layers
from reluid.certificates.build import cover_tree
from reluid.certificates.schema import from_json, to_json
from reluid.checker import search as S
from reluid.checker.cover_trees import verify_cover_trees
from reluid.checker.registry import Context
from reluid.errors import CheckFailed
from reluid.verdicts import Verdict
from tests.two_layer_nets import CERTIFIED, glr


def _system(rng, n1):
    neurons = [j for j in range(n1) for _ in range(rng.randint(1, n1 + 1))]
    F = len(neurons)
    blocks = set()
    for _ in range(rng.randint(0, 3 * F) if n1 >= 2 else 0):
        b = frozenset(rng.sample(range(F), rng.randint(2, min(F, n1))))
        if len({neurons[t] for t in b}) == len(b):        # at most one flat per H_j (Lemma 8.6(c))
            blocks.add(b)
    return neurons, sorted(blocks, key=sorted)


def _searched_cover(neurons, blocks, n1):
    for I in open_sets(neurons, n1):
        U = frozenset(t for t, j in enumerate(neurons) if j in I)
        if S.cover(U, [b & U for b in blocks if len(b & U) >= 2], len(I), [10 ** 6]) is not None:
            return I
    return None


@pytest.mark.parametrize("lp", [False, True])
def test_trees_exist_exactly_when_no_cover_and_the_checker_accepts_them(lp):
    rng = random.Random(7)
    seen = {"trees": 0, "covers": 0, "branches": 0}
    for _ in range(150):
        n1 = rng.randint(1, 4)
        neurons, blocks = _system(rng, n1)
        trees = cover_trees(neurons, blocks, n1, lp=lp)
        cover = _searched_cover(neurons, blocks, n1)
        assert (trees is None) == (cover is not None)
        flats = [(j, None) for j in neurons]
        if trees is None:
            seen["covers"] += 1
            continue
        seen["trees"] += 1
        raw = json.loads(json.dumps([{"I": list(I), "tree": cover_tree(t)} for I, t in trees]))
        seen["branches"] += json.dumps(raw).count('"split"')
        n, _ = verify_cover_trees(Context(CERTIFIED, "h"), n1, flats, blocks, raw)
        assert n == len(open_sets(neurons, n1))
    assert seen["trees"] > 30 and seen["covers"] > 30 and (lp or seen["branches"] > 5), seen


def test_a_network_whose_h4_needs_the_trees():
    """Ω(2,3,3,1), GLR seed 24: three bend flats on each H_j, so the count fails (b_(3) = 3), the set I = {1,
    2, 3} is left open, and its tree is one leaf: the uniform packing y = 1/2 (9 flats, no hyperplane through
    three of them: 9/2 > 3)."""
    net = glr((2, 3, 3, 1), random.Random(24))
    r = analyse_two_layers(net, theorem_w=False)
    assert r.verdict is Verdict.NO_HIDDEN and r.applies_82
    assert [sum(1 for f in r.flats if f.neuron == j) for j in range(3)] == [3, 3, 3]
    assert r.h4_trees == (((0, 1, 2), ("y", Fraction(1, 2))),)
    cert = api.certify(net, timeout=60)
    d = json.loads(to_json(cert))
    (claim,) = [c for c in d["claims"] if c["kind"] == "deep-two-layer-hypotheses"]
    assert claim["evidence"]["cover"] == [{"I": [0, 1, 2], "tree": {"y": "1/2"}}]
    report = api.check(from_json(json.dumps(d)), net)
    assert report.valid and "1 cover tree(s) (1 node(s))" in report.claims[0].message
    assert S.SEARCHED not in report.claims[0].message
    del claim["evidence"]["cover"]                          # an older certificate: the checker searches
    report = api.check(from_json(json.dumps(d)), net)
    assert report.valid and "the checker searched" in report.claims[0].message
    assert report.claims[0].message.endswith(f"[{S.SEARCHED}: covers of the bend flats of the 7 sets I by |I| "
                                             "hyperplanes (H4)]")


def test_trees_are_none_when_a_cover_exists_and_the_limit_is_kept():
    from reluid.analysis.deep.h4_trees import Limit

    neurons = [0, 0, 1, 1]
    assert cover_trees(neurons, [frozenset({0, 2}), frozenset({1, 3})], 2) is None
    assert cover_trees(neurons, [frozenset({0, 2})], 2, lp=False) == (((0, 1), ("split", 0, (("y", 1),))),)
    with pytest.raises(Limit):
        cover_trees([0, 0, 1, 1, 2, 2], [frozenset({2, 4}), frozenset({3, 4}), frozenset({0, 2})], 3, max_nodes=3,
                    lp=False)


def test_theorem_w_s_exhaustive_h4_carries_trees_too():
    """Ω(2,3,3,1) (the 11th i.i.d. draw of its seed): Theorem W in the x frame, bend flats per H_j (2, 3, 3), the
    count fails, and the exhaustive method's one open set I = {1, 2, 3} gets its tree."""
    from reluid.analysis.deep.pinning import analyse_pinning
    from reluid.analysis.deep.two_layers_survey import draw
    from reluid.certificates.build import pinning_evidence
    from reluid.checker.pinning import verify_pinning

    rng = random.Random("pin-(2, 3, 3, 1)")
    nets = [draw((2, 3, 3, 1), "iid", rng) for _ in range(11)]
    pin = analyse_pinning(nets[10], timeout=30)
    assert pin.holds and pin.h4_method == "exhaustive" and pin.flat_counts == (2, 3, 3)
    ev = json.loads(json.dumps(pinning_evidence(pin), default=str))
    assert ev["h4"]["cover"] == [{"I": [0, 1, 2], "tree": {"y": "1/2"}}]
    c = Context(nets[10], "p")
    assert verify_pinning(ev, c).endswith("H4 by exhaustive (cover trees): the hypotheses of Theorem W hold")
    assert c.budget.searches == []
    del ev["h4"]["cover"]
    c = Context(nets[10], "p")
    assert verify_pinning(ev, c).endswith("H4 by exhaustive: the hypotheses of Theorem W hold")
    assert c.budget.searches == ["covers of the bend flats of the 7 sets I by |I| hyperplanes (H4)"]
    ev["h4"].update(method="count", cover=[])
    with pytest.raises(CheckFailed) as e:
        verify_pinning(ev, Context(nets[10], "p"))
    assert e.value.reason == ("H4 by Lemma H4-count needs, sorted, b_(m) > m for every m; the distinct bend flats "
                              "per H_j are [2, 3, 3]")
    ev["h4"].update(method="exhaustive", cover=[{"I": [0, 1, 2], "tree": {"y": "1/3"}}])
    with pytest.raises(CheckFailed) as e:
        verify_pinning(ev, Context(nets[10], "p"))
    assert e.value.reason == ("the cover tree for I = {1, 2, 3}, at its root: the packing's total Σ y = 8/3 is not "
                              "above the budget r = 3")
