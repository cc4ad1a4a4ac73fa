"""Certificates that once crashed the checker or made it run for minutes.

Each is built here from scratch.  A malformed one must be invalid input (exit
4, one line); a well-formed one must be answered within the work limit,
verified or "not re-verified", with every loop it asks for charged first.
"""

from __future__ import annotations

import copy
import json
import time
from fractions import Fraction

import pytest

from reluid.certificates.schema import Certificate, Claim, ClaimKind, Witness, from_json, to_json
from reluid.checker.check import INFORMATION, NOT_REVERIFIED, VERIFIED, check_certificate
from reluid.model.network import Network
from reluid.verdicts import Verdict

from tests.checker.test_fuzz import assert_answered, check_text
from tests.paths import REPORTS

DEEP = REPORTS / "examples" / "certificates" / "deep_dead_neuron_json.cert.json"
BIG = "1" * 4000 + "/" + "3" * 3999 + "7"


def _doc():
    return json.loads(DEEP.read_text(encoding="utf-8"))


# ---- malformed: exit 4, one line --------------------------------------------------------

@pytest.mark.parametrize("inputs", ["x", True, None, [2]])
def test_an_embedded_layer_without_rows_needs_integer_inputs(inputs, tmp_path):
    doc = _doc()
    doc["network"]["embedded"]["layers"] = [{"weight": [], "bias": [], "inputs": inputs},
                                            {"weight": [[]], "bias": [1]}]
    rc, out, err = check_text(json.dumps(doc), tmp_path)
    assert rc == 4 and "a layer with no rows needs 'inputs', an integer" in err
    assert_answered(rc, out, err, "inputs")


@pytest.mark.parametrize("field, value", [("name", True), ("description", 7), ("name", ["a"])])
def test_an_embedded_network_names_itself_with_text(field, value, tmp_path):
    doc = _doc()
    doc["network"]["embedded"][field] = value          # `true` used to hash as the text "True"
    rc, out, err = check_text(json.dumps(doc), tmp_path)
    assert rc == 4 and f"field {field!r} must be a string" in err


@pytest.mark.parametrize("depth", [401, 500, 700, 980])
def test_evidence_nested_deeper_than_the_bound_is_invalid_input(depth, tmp_path):
    doc = _doc()
    doc["claims"][0]["evidence"]["deep"] = "HOLE"
    text = json.dumps(doc).replace('"HOLE"', "[" * depth + "0" + "]" * depth)
    rc, out, err = check_text(text, tmp_path)
    assert rc == 4 and "JSON nested" in err and len(err.strip().splitlines()) == 1


def test_nesting_up_to_the_bound_is_read_and_checked(tmp_path):
    doc = _doc()
    x: object = 0
    for _ in range(380):
        x = {"k": x}
    doc["claims"][2]["evidence"]["deep"] = x           # an unknown field of an information claim
    rc, out, err = check_text(json.dumps(doc), tmp_path)
    assert_answered(rc, out, err, "380 levels")
    assert rc == 0 and "activity" in out


# ---- huge numbers: a verdict or a one-line rejection ----------------------------------------

def test_a_witness_with_4000_digit_rationals_is_answered(tmp_path):
    """θ′ flips hidden layer 2 and moves b^3 by a constant whose numerator and denominator have ~8000 digits:
    the witness's message once passed CPython's int-to-str limit (exit 3, "internal error")."""
    b2, b3 = Fraction(int("1" * 3999), int("3" * 3999) + 4), Fraction(int("7" * 3999), int("9" * 3998) + 2)
    b3_new = Fraction(int("5" * 3999), int("6" * 3999) + 1)
    theta = Network.from_lists([([[1]], [0]), ([[1]], [b2]), ([[1]], [b3])])
    theta2 = Network.from_lists([([[1]], [0]), ([[-1]], [-b2]), ([[1]], [b3_new])])
    cert = Certificate(Verdict.HIDDEN, theta.sha256(), theta.architecture, (), network=theta,
                       witness=Witness("affine-layer-flip", theta2))
    rc, out, err = check_text(to_json(cert), tmp_path)
    assert_answered(rc, out, err, "4000 digits")
    assert rc == 1 and "digits)" in out and "gives no verified proof" in out


def test_farkas_multipliers_with_4000_digit_denominators_are_answered(tmp_path):
    doc = _doc()
    leaf = doc["claims"][0]["evidence"]["tree"]["tree"]["pos"]["leaf"]
    leaf["closed"] = [[1, "1/" + "7" * 3999 + "1"]]
    leaf["strict"] = [[0, "1/" + "3" * 3999 + "1"]]
    rc, out, err = check_text(json.dumps(doc), tmp_path)
    assert_answered(rc, out, err, "multipliers")
    assert rc == 1 and "digits)" in out


# ---- once slow: every loop charged -------------------------------------------------------

def _dead_neuron_certificate(n0: int, claims: int) -> Certificate:
    """(n0, 1, 1, 1): the layer-2 neuron is -h - 1 < 0 (dead); ``claims`` one-leaf Farkas trees say so."""
    row = [1] + [0] * (n0 - 1)
    theta = Network.from_lists([([row], [0]), ([[-1]], [-1]), ([[1]], [0])])
    theta2 = Network.from_lists([([row], [0]), ([[-1]], [-1]), ([[2]], [0])])
    tree = {"format": "reluid.farkas-tree/1", "scope_layers": 1,
            "tree": {"leaf": {"closed": [[0, 1]], "strict": [[0, 1]]}}}
    premises = tuple(Claim(f"dead{k}", ClaimKind.DEEP_DEAD_NEURON, "", "", {"layer": 2, "neuron": 0, "tree": tree})
                     for k in range(claims))
    return Certificate(Verdict.HIDDEN, theta.sha256(), theta.architecture, premises, network=theta,
                       witness=Witness("dead-neuron", theta2))


def test_a_7000_input_network_with_fifteen_one_leaf_trees_is_cheap():
    """Once 111 s of CPU and 802 MB: every leaf multiplied an n0 × n0 identity into the layer-1 rows."""
    cert = from_json(to_json(_dead_neuron_certificate(7000, 15)))
    assert len(to_json(cert).encode()) < 100_000
    t0 = time.process_time()
    r = check_certificate(cert)
    spent = time.process_time() - t0
    assert r.valid and r.status("dead0") == VERIFIED and r.status("dead14") == INFORMATION
    assert spent < 10, spent                 # generous: about 0.3 s on a quiet machine


def test_the_leaves_of_a_farkas_tree_are_charged():
    cert = _dead_neuron_certificate(7000, 15)
    per_leaf = 7001 * (1 + 2 * 1 + 1)        # (nv + 1) × (layer-1 rows + 2S + conditions), S = 1
    r = check_certificate(cert, work_limit=15 * per_leaf)
    assert not r.valid and r.status("dead14") == NOT_REVERIFIED
    assert "Farkas-tree" in r.claims[-1].message and "work limit" in r.claims[-1].message


def _tied_certificate(width2: int) -> Certificate:
    """Six tied layer-1 neurons over 6·width2 layer-2 weights; θ′ changes the row of a silent layer-2 neuron."""
    W2 = [[(3 * i + 5 * j) % 7 - 3 for j in range(6)] for i in range(width2)]
    theta = Network.from_lists([([[1]] * 6, [0] * 6), (W2, [1] * width2), ([[0] + [1] * (width2 - 1)], [0])])
    W2b = copy.deepcopy(W2)
    W2b[0][0] += 5
    theta2 = Network.from_lists([([[1]] * 6, [0] * 6), (W2b, [1] * width2), ([[0] + [1] * (width2 - 1)], [0])])
    return Certificate(Verdict.HIDDEN, theta.sha256(), theta.architecture, (), network=theta,
                       witness=Witness("zero-outgoing", theta2))


def test_six_tied_neurons_over_9000_weights_need_no_search():
    """Once 77 s: the orbit normal form tried all 720 orders of the tied neurons, twice.  The orbit
    invariant tells θ′ apart without a search; the search is charged when it is needed."""
    cert = from_json(to_json(_tied_certificate(1500), indent=None))
    assert len(to_json(cert, indent=None).encode()) < 100_000
    t0 = time.process_time()
    r = check_certificate(cert)
    spent = time.process_time() - t0
    assert r.valid and "searched by the checker" not in r.rule
    assert spent < 10, spent
