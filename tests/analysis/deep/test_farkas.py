"""Farkas-tree premises (docs/mathematics.md §6.1): the prover, its exact fallbacks, agreement with z3."""

from __future__ import annotations

import json
import random
import sys
from fractions import Fraction as F
from types import MappingProxyType

import numpy as np
import pytest

import reluid.analysis.deep.farkas as farkas
from reluid.analysis.deep.farkas import FORMAT, Condition, PremiseProof, lp_engines, prove_no_input
from reluid.checker.farkas import verify_no_input
from reluid.errors import InvalidArgument
from reluid.model import Network
from reluid.model.jsondata import thaw
from reluid.smt.deep import Condition as Z3Condition
from reluid.smt.deep import find_input
from reluid.report.reasons import sentence
from reluid.verdicts import Outcome, ReasonCode
from tests.strategies import random_conditions, random_deep

N = Network.from_lists

# ---- planted premises (each derived by hand) ------------------------------------------------

#: layer-1 neuron 0 is the constant -1: dead
DEAD_L1 = N([([[0, 0], [1, 1], [1, -1]], [-1, 0, 1]), ([[1, 2, -1], [1, -1, 1]], [0, -1]), ([[1, -1]], [0])])
#: layer-2 neuron 0 has the row (-1, -2 | 0) <= 0 on the positive orthant: dead
DEAD_ORTHANT = N([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
#: layer-2 neuron 0 is -σ(x) + σ(x - 1) - 1 <= -1: dead with a mixed-sign row
DEAD_MIXED = N([([[1], [1], [-1]], [0, -1, 0]), ([[-1, 1, 0], [1, -2, 1]], [-1, 0]), ([[1, 1]], [0])])
#: layer-2 neuron 0 is σ(x) - σ(x - 1) >= 0: always active with a mixed-sign row
ALWAYS = N([([[1], [1], [-1]], [0, -1, 0]), ([[1, -1, 0], [1, 1, 1]], [0, -1]), ([[2, 1]], [0])])
#: layer-2 neuron 0 is σ(-x) - σ(x): > 0 only where layer-1 neuron 0 (= x) is < 0: never co-active
COACTIVE = N([([[1], [-1], [2]], [0, 0, -1]), ([[-1, 1, 0], [1, 1, 1]], [0, -1]), ([[1, 2]], [1])])
#: z^2_0 = σ(x) + σ(x - 1) - σ(-x) > 0 forces x > 0, i.e. z^1_0 >= 0: a collapsed kink (mechanism (iii))
KINK = N([([[1], [1], [-1]], [0, -1, 0]), ([[1, 1, -1], [1, -1, 1]], [0, 0]), ([[1, 1]], [0])])
#: the same one layer deeper: layer 1 is the identity pair (σ(x), σ(-x)), layers 2-3 are KINK's on x = h1 - h2
KINK3 = N([([[1], [-1]], [0, 0]), ([[1, -1], [1, -1], [-1, 1]], [0, -1, 0]), ([[1, 1, -1], [1, -1, 1]], [0, 0]),
           ([[1, 1]], [0])])

PLANTED = [
    ("dead-layer-1", DEAD_L1, [(1, 0, ">0")]),
    ("dead-orthant", DEAD_ORTHANT, [(2, 0, ">0")]),
    ("dead-mixed", DEAD_MIXED, [(2, 0, ">0")]),
    ("always-active", ALWAYS, [(2, 0, "<0")]),
    ("never-coactive", COACTIVE, [(1, 0, ">0"), (2, 0, ">0")]),
    ("collapsed-kink", KINK, [(1, 0, "<0"), (2, 0, ">0")]),
    ("collapsed-kink-deeper", KINK3, [(2, 0, "<0"), (3, 0, ">0")]),
]


def z3_says(net, conds):
    return find_input(net, [Z3Condition(l, i, s) for l, i, s in conds]).outcome


def holds_at(net, conds, x):
    pre = net.preactivations(x)
    return all(Condition(l, i, s).holds(pre[l - 1][i]) for l, i, s in conds)


@pytest.mark.parametrize("lp", ["auto", "scipy", "exact"])
@pytest.mark.parametrize("name,net,conds", PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_premises_are_proved_and_checked(name, net, conds, lp):
    if lp != "exact" and lp not in ("auto",) + lp_engines():
        pytest.skip(f"{lp} not installed")
    r = prove_no_input(net, [Condition(*c) for c in conds], lp=lp)
    assert r.outcome is Outcome.NONE, r.reason
    assert r.point is None and r.reason is None
    assert isinstance(r.evidence, MappingProxyType)
    assert r.evidence["format"] == FORMAT and r.evidence["scope_layers"] == max(c[0] for c in conds) - 1
    assert verify_no_input(net, conds, r.evidence) == r.leaves
    assert z3_says(net, conds) is Outcome.NONE
    assert r.leaves <= 4 and r.nodes == 2 * r.leaves - 1


def test_dead_layer_one_is_one_leaf_with_mu_one():
    r = prove_no_input(DEAD_L1, [Condition(1, 0, ">0")])
    assert thaw(r.evidence) == {"format": FORMAT, "scope_layers": 0,
                                "tree": {"leaf": {"closed": [], "strict": [[0, 1]]}}}


def test_dead_on_the_orthant_is_one_root_leaf():
    # rows at the root: h_0 >= 0, h_0 - x_0 >= 0, h_1 >= 0, h_1 - x_1 >= 0; strict -h_0 - 2 h_1 > 0
    r = prove_no_input(DEAD_ORTHANT, [Condition(2, 0, ">0")])
    assert thaw(r.evidence)["tree"] == {"leaf": {"closed": [[0, 1], [2, 2]], "strict": [[0, 1]]}}


def test_found_points_are_exact_and_simple():
    for net, conds in [(DEAD_MIXED, [(2, 1, ">0")]), (COACTIVE, [(1, 0, ">0"), (2, 1, ">0")]),
                       (KINK, [(1, 0, ">0"), (2, 0, ">0")]), (ALWAYS, [(2, 0, ">0"), (1, 2, "<=0")])]:
        r = prove_no_input(net, conds)
        assert r.outcome is Outcome.FOUND and r.evidence is None
        assert all(isinstance(t, F) for t in r.point)
        assert holds_at(net, conds, r.point)


def test_evidence_survives_json():
    r = prove_no_input(COACTIVE, [(1, 0, ">0"), (2, 0, ">0")])
    back = json.loads(json.dumps(thaw(r.evidence)))
    assert verify_no_input(COACTIVE, [(1, 0, ">0"), (2, 0, ">0")], back) == r.leaves


def test_conditions_accept_triples_and_are_tuples_for_the_checker():
    c = Condition(2, 1, "<=0")
    assert tuple(c) == (2, 1, "<=0")
    r = prove_no_input(ALWAYS, [(2, 0, "<0")])
    assert r.conditions == (Condition(2, 0, "<0"),)


@pytest.mark.parametrize("bad", [[], [(0, 0, ">0")], [(3, 0, ">0")], [(1, 5, ">0")], [(1, 0, "=0")],
                                 [(1, 0)], [(True, 0, ">0")]])
def test_bad_conditions_are_rejected(bad):
    with pytest.raises(InvalidArgument):
        prove_no_input(DEAD_MIXED, bad)


def test_bad_options_are_rejected():
    with pytest.raises(InvalidArgument):
        prove_no_input(DEAD_MIXED, [(2, 0, ">0")], max_nodes=0)
    with pytest.raises(InvalidArgument):
        prove_no_input(DEAD_MIXED, [(2, 0, ">0")], lp="cplex")


# ---- budgets: unknown, never a guess ---------------------------------------------------------

def test_node_budget_gives_unknown_with_open_nodes():
    r = prove_no_input(DEAD_MIXED, [(2, 0, ">0")], max_nodes=1)
    assert r.outcome is Outcome.UNKNOWN and r.evidence is None and r.point is None
    assert r.reason.code is ReasonCode.FARKAS_NODE_BUDGET and dict(r.reason.params) == {"max_nodes": 1, "open": 2}
    assert sentence(r.reason) == "node budget of 1 exhausted with 2 open node(s) left"
    assert r.nodes == 1


def test_timeout_gives_unknown():
    r = prove_no_input(DEAD_MIXED, [(2, 0, ">0")], timeout=0.0)
    assert r.outcome is Outcome.UNKNOWN and r.reason.code is ReasonCode.FARKAS_TIMEOUT
    assert sentence(r.reason) == f"timeout after 0 s with {r.reason.params['open']} open node(s) left"


# ---- the float LP only guides ------------------------------------------------------------------

class _LyingEngine:
    """A float LP that always claims the node is feasible at v = 0 (so every leaf needs the exact LP)."""

    name = "liar"

    def solve(self, C, S):
        return farkas._LP("optimal", 1.0, np.zeros(C.shape[1] - 1 if len(C) else S.shape[1] - 1),
                          np.zeros(len(C)), np.zeros(len(S)))


class _PessimistEngine:
    """A float LP that always claims infeasibility with every dual 1 (the supports are wrong)."""

    name = "pessimist"

    def solve(self, C, S):
        return farkas._LP("optimal", -1.0, np.zeros(C.shape[1] - 1 if len(C) else S.shape[1] - 1),
                          np.ones(len(C)), np.ones(len(S)))


@pytest.mark.parametrize("engine", [_LyingEngine, _PessimistEngine])
def test_wrong_float_lps_never_change_the_answer(monkeypatch, engine):
    monkeypatch.setattr(farkas, "_engine", lambda name: engine())
    rng = random.Random(7)
    for t in range(40):
        arch = (rng.randint(1, 2), rng.randint(2, 3), rng.randint(2, 3), 1)
        net = random_deep(rng, arch)
        conds = random_conditions(rng, net)
        r = prove_no_input(net, conds)
        assert r.outcome is z3_says(net, conds), (t, conds, r.reason)
        if r.outcome is Outcome.NONE:
            assert verify_no_input(net, conds, r.evidence) == r.leaves
        else:
            assert holds_at(net, conds, r.point)


def test_nothing_requires_highspy_or_scipy(monkeypatch):
    monkeypatch.setitem(sys.modules, "highspy", None)
    monkeypatch.setitem(sys.modules, "scipy.optimize", None)
    assert lp_engines() == ("exact",)
    r = prove_no_input(COACTIVE, [(1, 0, ">0"), (2, 0, ">0")])
    assert r.lp == "exact" and r.outcome is Outcome.NONE
    assert verify_no_input(COACTIVE, [(1, 0, ">0"), (2, 0, ">0")], r.evidence) == r.leaves
    with pytest.raises(InvalidArgument):
        prove_no_input(COACTIVE, [(2, 0, ">0")], lp="highspy")


def test_the_support_solve_falls_back_to_the_exact_lp(monkeypatch):
    monkeypatch.setattr(farkas._Problem, "from_support", lambda self, closed, strict, lp: None)
    for name, net, conds in PLANTED:
        r = prove_no_input(net, conds)
        assert r.outcome is Outcome.NONE, name
        assert verify_no_input(net, conds, r.evidence) == r.leaves


def test_exact_simplex_on_a_textbook_lp():
    # min -z0 - z1 s.t. z0 + z2 = 1, z1 + z3 = 2 (z >= 0): optimum -3 at z = (1, 2, 0, 0)
    q = farkas.flint.fmpq
    A = [[q(1), q(0), q(1), q(0)], [q(0), q(1), q(0), q(1)]]
    status, z, basis, kept = farkas._simplex(A, [q(1), q(2)], [q(-1), q(-1), q(0), q(0)], {0: 2, 1: 3}, None)
    assert status == "optimal" and z == [1, 2, 0, 0]
    status, ray = farkas._simplex([[q(1), q(-1)]], [q(0)], [q(0), q(-1)], {}, None)
    assert status == "unbounded" and ray[1] == 1 and ray[0] >= 0


# ---- agreement with z3 ---------------------------------------------------------------------------

def _random_cases(count, seed=0):
    for t in range(count):
        rng = random.Random(f"farkas-{seed}-{t}")
        arch = (2, 3, 3, 3, 1) if t % 3 == 2 else (rng.randint(1, 3), rng.randint(2, 4), rng.randint(2, 4), 1)
        net = random_deep(rng, arch, dyadic=t % 2 == 1)
        yield t, net, random_conditions(rng, net)


def test_agrees_with_z3_on_300_random_deep_networks():
    tally = {Outcome.FOUND: 0, Outcome.NONE: 0}
    for t, net, conds in _random_cases(300):
        r = prove_no_input(net, conds, timeout=60)
        z = z3_says(net, conds)
        assert r.outcome is z, (t, net.architecture, conds, r.reason)
        tally[r.outcome] += 1
        if r.outcome is Outcome.NONE:
            assert verify_no_input(net, conds, r.evidence) == r.leaves
        else:
            assert holds_at(net, conds, r.point)
    assert tally[Outcome.FOUND] >= 100 and tally[Outcome.NONE] >= 60, tally


@pytest.mark.parametrize("lp", ["scipy", "exact"])
def test_fallback_engines_agree_with_z3(lp):
    if lp not in lp_engines():
        pytest.skip(f"{lp} not installed")
    for t, net, conds in _random_cases(60, seed=1):
        r = prove_no_input(net, conds, lp=lp)
        assert r.outcome is z3_says(net, conds), (t, conds, r.reason)
        if r.outcome is Outcome.NONE:
            assert verify_no_input(net, conds, r.evidence) == r.leaves


def test_glr_style_networks_with_binary_float_weights():
    from reluid.analysis.deep.survey import random_network
    net = random_network((5, 5, 5, 5, 1), np.random.default_rng([0, 5]), bias_variance=0.5)
    seen = set()
    for conds in ([(3, 4, ">0"), (3, 2, "<0"), (3, 3, ">0")], [(3, 0, ">0")], [(2, 1, ">0"), (3, 1, ">0")],
                  [(2, 0, "<0"), (3, 2, ">0"), (2, 0, ">0")]):
        r = prove_no_input(net, conds)
        assert r.outcome is z3_says(net, conds)
        seen.add(r.outcome)
        if r.outcome is Outcome.NONE:
            assert verify_no_input(net, conds, r.evidence) == r.leaves
        else:
            assert holds_at(net, conds, r.point)
    assert seen == {Outcome.FOUND, Outcome.NONE}


def test_result_type():
    r = prove_no_input(KINK, [(1, 0, "<0"), (2, 0, ">0")])
    assert isinstance(r, PremiseProof) and r.seconds >= 0 and r.lp in lp_engines()
    with pytest.raises(AttributeError):
        r.outcome = Outcome.FOUND


def test_every_premise_the_detection_leaves_to_z3_gets_a_checkable_certificate():
    """detect_mechanisms(prover="always"): every premise it proves carries a tree the checker accepts."""
    from reluid.analysis.deep.mechanisms import ALWAYS_ACTIVE, DEAD, NEVER_COACTIVE, detect_mechanisms
    premise = {DEAD: lambda m: [(m.layer, m.neurons[0], ">0")],
               ALWAYS_ACTIVE: lambda m: [(m.layer, m.neurons[0], "<0")],
               NEVER_COACTIVE: lambda m: [(m.layer - 1, m.neurons[0], ">0"), (m.layer, m.neurons[1], ">0")]}
    proved = 0
    for net in (DEAD_MIXED, ALWAYS, COACTIVE, KINK3):
        rep = detect_mechanisms(net, prover="always", timeout=30)
        for m in rep.mechanisms:
            if m.method == "farkas":
                conds = premise[m.kind](m)
                assert verify_no_input(net, conds, m.evidence) >= 1
                proved += 1
        for l, i, j, k in rep.activity.coactive:   # and every refutation is confirmed
            assert prove_no_input(net, [(l - 1, i, ">0"), (l, j, ">0")]).outcome is Outcome.FOUND
    assert proved >= 3
