"""Deep networks: mechanisms, witnesses, orbits, certificates and their checker (Grigsby-Lindsey-Rolnick 2023, §5)."""

from __future__ import annotations

import random
import subprocess
import sys
from fractions import Fraction as F

import pytest

import reluid.checker.deep as checker_deep
from reluid.analysis.deep import canonical_form, decide_deep, detect_mechanisms, is_canonical, same_orbit
from reluid.certificates.build import certificate_from_deep_decision
from reluid.analysis.deep.mechanisms import (ALWAYS_ACTIVE, DEAD, LAYER_FLIP, NEVER_COACTIVE, Mechanism,
                                             layer_flip_sets)
from reluid.certificates.schema import Verdict, from_json, to_json
from reluid.checker.check import check_certificate
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed, InvalidArgument
from reluid.model import Network
from reluid.model.symmetry import GroupElement, act_layers
from reluid.smt.deep import Condition, find_input
from reluid.smt.solver import SolverConfig
from reluid.report.reasons import note, text
from reluid.verdicts import Outcome, Reason, ReasonCode


def certify_deep(net, **options):
    return certificate_from_deep_decision(decide_deep(net, **options))

N = Network.from_lists

# ---- planted networks (the premise of each was derived by hand) --------------------------

#: layer-1 neuron 0 is the constant -1 (affine: dead by inspection)
DEAD_L1 = N([([[0, 0], [1, 1], [1, -1]], [-1, 0, 1]), ([[1, 2, -1], [1, -1, 1]], [0, -1]), ([[1, -1]], [0])])
#: layer-2 neuron 0 has a non-positive row: dead on the positive orthant (mechanism (i), Figure 2)
DEAD_ORTHANT = N([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
#: layer-2 neuron 0 is -σ(x) + σ(x - 1) - 1 <= -1: dead, but its row has mixed signs, so no inspection
#: proves it: the premise needs a Farkas-tree certificate
DEAD_SOLVER = N([([[1], [1], [-1]], [0, -1, 0]), ([[-1, 1, 0], [1, -2, 1]], [-1, 0]), ([[1, 1]], [0])])
#: layer-2 neuron 0 is σ(x) - σ(x - 1) >= 0: always active, mixed signs (a Farkas tree)
ALWAYS_SOLVER = N([([[1], [1], [-1]], [0, -1, 0]), ([[1, -1, 0], [1, 1, 1]], [0, -1]), ([[2, 1]], [0])])
#: layer-2 neuron 0 is σ(-x) - σ(x): positive only where layer-1 neuron 0 = σ(x) is zero (mechanism (ii))
COACTIVE = N([([[1], [-1], [2]], [0, 0, -1]), ([[-1, 1, 0], [1, 1, 1]], [0, -1]), ([[1, 2]], [1])])
#: layer-1 rows (1, 2 | 1) and (-1, -2 | 0) with equal outgoing columns: F = {0, 1} is a layer flip set
FLIP = N([([[1, 2], [-1, -2], [2, -1]], [1, 0, 1]), ([[1, 1, 3], [2, 2, -1]], [0, 1]), ([[1, -1]], [0])])
#: nothing planted
GENERIC = N([([[1, 2], [-1, 1], [2, -1]], [1, 0, -1]), ([[1, -1, 2], [2, 1, -1], [-1, 1, 1]], [0, 1, -1]),
             ([[1, -2, 1]], [1])])

PLANTED = [
    ("dead_l1", DEAD_L1, DEAD, 1, (0,), "affine"),
    ("dead_orthant", DEAD_ORTHANT, DEAD, 2, (0,), "orthant"),
    ("dead_solver", DEAD_SOLVER, DEAD, 2, (0,), "farkas"),
    ("always_solver", ALWAYS_SOLVER, ALWAYS_ACTIVE, 2, (0,), "farkas"),
    ("never_coactive", COACTIVE, NEVER_COACTIVE, 2, (0, 0), "farkas"),
    ("layer_flip", FLIP, LAYER_FLIP, 1, (0, 1), "identity"),
]


def random_inputs(n0, count=300, seed=0):
    rng = random.Random(seed)
    return [tuple(F(rng.randint(-4000, 4000), rng.choice([1, 7, 64, 1000])) for _ in range(n0)) for _ in range(count)]


def verify(cert, net=None):
    net = net or cert.network
    return {c.id: VERIFIERS[c.kind](c.evidence, Context(net, c.id)) for c in cert.claims}


# ---- mechanisms ----------------------------------------------------------------------------

@pytest.mark.parametrize("name,net,kind,layer,neurons,method", PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_mechanism_found_with_valid_witness(name, net, kind, layer, neurons, method):
    rep = detect_mechanisms(net, prover="always", timeout=30)
    found = [m for m in rep.mechanisms if (m.kind, m.layer, m.neurons) == (kind, layer, neurons)]
    assert found, rep.mechanisms
    m = found[0]
    assert m.method == method
    assert (m.evidence is not None) == (method == "farkas")
    theta2 = m.witness(net)
    assert theta2 != net
    assert all(net(x) == theta2(x) for x in random_inputs(net.input_dim))   # same function
    assert same_orbit(net, theta2) is None                               # outside the orbit
    assert checker_deep.outside_orbit(net, theta2) is True                  # the checker agrees


@pytest.mark.parametrize("name,net,kind,layer,neurons,method", PLANTED, ids=[p[0] for p in PLANTED])
def test_certificate_round_trip_and_checker(name, net, kind, layer, neurons, method):
    cert = certify_deep(net, timeout=30, fundim_points=400)
    assert cert.verdict is Verdict.HIDDEN
    assert cert.witness is not None
    back = from_json(to_json(cert))
    assert back == cert
    summaries = verify(back)
    assert "witness" in summaries and "premise" in summaries
    prem = next(c for c in back.claims if c.id == "premise")
    if method == "farkas":   # nothing is provable by inspection there: a Farkas tree, re-verified
        assert "tree" in prem.evidence and "Farkas-tree certificate" in summaries["premise"]
    elif method in ("affine", "orthant"):
        assert "(recomputed)" in summaries["premise"]
    report = check_certificate(back)
    assert report.valid and report.status("premise") == "verified" and "explicit witness" in report.rule


def test_layer_flip_sets_exact():
    sets, status = layer_flip_sets(FLIP, 1)
    assert status.code is ReasonCode.LAYER_FLIP_EXHAUSTED and sets == [(0, 1)]
    assert layer_flip_sets(GENERIC, 1) == ([], Reason(ReasonCode.LAYER_FLIP_FULL_RANK))


def test_the_subset_walk_stops_when_late():
    """The walk over the kernel support's subsets (up to 2^16, each hit checked exactly) asks ``late()`` every
    1024 subsets: with 16 zero vectors every subset is a hit, and ``reluid certify --timeout 2`` of such a
    network ran 27 s before the walk had a deadline. Stopped, it keeps the sets it checked and says so."""
    from reluid.analysis.deep.mechanisms import zero_subsets

    vecs = [(F(0), F(0))] * 16
    calls = []
    sets, status = zero_subsets(vecs, late=lambda: calls.append(1) or len(calls) >= 2)
    assert status == Reason(ReasonCode.LAYER_FLIP_TIMEOUT, {"tried": 2047, "subsets": 65535}) and len(calls) == 2
    assert sets == [(i,) for i in range(11)]        # the minimal sets among the first 2047 subsets: singletons
    full, done = zero_subsets(vecs)
    assert done.code is ReasonCode.LAYER_FLIP_EXHAUSTED and full == [(i,) for i in range(16)]


def test_generic_network_is_unknown_never_no_hidden():
    cert = certify_deep(GENERIC, timeout=30, fundim_points=400)
    assert cert.verdict is Verdict.UNKNOWN
    assert "Functional dimension" in text(cert.reasons) and "dim_fun" in text(cert.reasons)
    assert cert.witness is None
    kinds = {c.kind for c in cert.claims}
    assert {"deep-activity-witnesses", "deep-no-layer-flip", "functional-dimension"} <= kinds
    verify(from_json(to_json(cert)))


def test_shallow_is_not_our_job():
    with pytest.raises(InvalidArgument):
        certify_deep(N([([[1], [-1]], [0, 0]), ([[1, 1]], [0])]))
    with pytest.raises(InvalidArgument):
        detect_mechanisms(N([([[1], [-1]], [0, 0]), ([[1, 1]], [0])]))


def test_prover_out_of_budget_never_becomes_a_verdict():
    rep = detect_mechanisms(DEAD_SOLVER, prover="always", timeout=30, max_nodes=1)
    assert not any(m.method == "farkas" for m in rep.mechanisms)
    assert any("budget" in note(why) for _, why in rep.undecided)
    assert not rep.out_of_time          # a node budget is not the time budget


def test_prover_time_budget_exhausted_is_recorded():
    rep = detect_mechanisms(DEAD_SOLVER, prover="always", timeout=1e-9)
    assert rep.prover_queries == 0
    assert [why.code for _, why in rep.undecided] == [ReasonCode.OUT_OF_TIME] * len(rep.undecided)
    # the questions the time ran out on are data, not words to search for
    assert rep.out_of_time and all(q in [u for u, _ in rep.undecided] for q in rep.out_of_time)
    assert all(str(q.code).startswith(("question-", "unexamined-")) for q in rep.out_of_time)
    cert = certify_deep(DEAD_SOLVER, timeout=1e-9, fundim_points=200)
    assert cert.verdict is Verdict.UNKNOWN and check_certificate(cert).valid


def test_z3_and_the_prover_agree_on_the_planted_premises():
    """z3 stays a cross-check: every premise the prover proves, z3 finds no input for either."""
    for name, net, kind, layer, neurons, method in PLANTED:
        if method != "farkas":
            continue
        conds = ([Condition(layer - 1, neurons[0], ">0"), Condition(layer, neurons[1], ">0")]
                 if kind == NEVER_COACTIVE else [Condition(layer, neurons[0], ">0" if kind == DEAD else "<0")])
        assert find_input(net, conds, SolverConfig(timeout_ms=20_000)).outcome is Outcome.NONE, name


def test_find_input_sat_is_exactly_rechecked():
    res = find_input(COACTIVE, [Condition(1, 1, ">0"), Condition(2, 0, ">0")], SolverConfig(seed=3, timeout_ms=5000))
    assert res.outcome is Outcome.FOUND
    pre = COACTIVE.preactivations(res.point)
    assert pre[0][1] > 0 and pre[1][0] > 0
    assert find_input(COACTIVE, [Condition(1, 0, ">0"), Condition(2, 0, ">0")]).outcome is Outcome.NONE
    with pytest.raises(InvalidArgument):
        find_input(COACTIVE, [Condition(3, 0, ">0")])
    with pytest.raises(InvalidArgument):
        Condition(1, 0, ">1")


# ---- orbits --------------------------------------------------------------------------------

def _random_net(rng, arch):
    return N([([[rng.randint(-3, 3) for _ in range(a)] for _ in range(b)], [rng.randint(-3, 3) for _ in range(b)])
              for a, b in zip(arch, arch[1:])])


def _random_g(rng, n):
    p = list(range(n))
    rng.shuffle(p)
    return GroupElement(tuple(p), tuple(F(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(n)))


def test_orbit_canonical_form_and_membership():
    rng = random.Random(11)
    for _ in range(60):
        arch = (rng.randint(1, 3),) + tuple(rng.randint(1, 4) for _ in range(rng.randint(2, 3))) + (rng.randint(1, 2),)
        net = _random_net(rng, arch)
        gs = tuple(_random_g(rng, n) for n in net.hidden_widths)
        other = act_layers(gs, net)
        found = same_orbit(net, other)
        assert found is not None and act_layers(found, net) == other
        try:
            canon, hs = canonical_form(net)
        except InvalidArgument:  # a zero incoming row: the normal form is undefined
            assert any(not any(w) and not b for L in net.layers[:-1] for w, b in zip(L.weight, L.bias))
            continue
        assert act_layers(hs, net) == canon
        assert is_canonical(canon)
        assert canonical_form(other)[0] == canon
        assert checker_deep.orbit_form(net) == checker_deep.orbit_form(other)


def test_orbit_distinguishes_sign_changes_and_zero_rows():
    net = N([([[0, 0], [1, 1]], [0, 1]), ([[1, 2], [3, -1]], [0, 0]), ([[1, 1]], [0])])
    g = (GroupElement((1, 0), (F(2), F(5))), GroupElement((0, 1), (F(1), F(3))))
    assert same_orbit(net, act_layers(g, net)) is not None     # the zero row is handled by same_orbit
    flipped = N([([[0, 0], [1, 1]], [0, 1]), ([[-1, 2], [3, -1]], [0, 0]), ([[1, 1]], [0])])
    assert same_orbit(net, flipped) is None
    with pytest.raises(InvalidArgument):
        canonical_form(net)
    assert checker_deep.outside_orbit(net, flipped) is None   # the checker refuses to guess


# ---- the checker rejects tampering ----------------------------------------------------------

def _claim(cert, cid):
    return next(c for c in cert.claims if c.id == cid)


def _tampered(evidence, **changes):
    d = {k: v for k, v in evidence.items()}
    d.update(changes)
    return d


@pytest.mark.parametrize("net", [DEAD_L1, DEAD_ORTHANT, FLIP], ids=["dead_l1", "dead_orthant", "flip"])
def test_checker_rejects_tampered_witness(net):
    cert = certify_deep(net, timeout=10, fundim=False)
    w = _claim(cert, "witness")
    ctx = Context(net, "witness")
    netd = cert.witness.network.to_dict()
    # change an unrelated parameter of θ′
    netd["layers"][-1]["bias"][0] = netd["layers"][-1]["bias"][0] + 1 if isinstance(netd["layers"][-1]["bias"][0], int) \
        else "7/3"
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-witness"](_tampered(w.evidence, network=netd), ctx)
    # θ′ = θ itself
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-witness"](_tampered(w.evidence, network=net.to_dict()), ctx)
    # the layer and neurons the claim names are not believed: the checker reads them off θ′
    told = VERIFIERS["deep-witness"](_tampered(w.evidence, layer=9, neurons=[7]), ctx)
    assert "hidden layer 9" not in told and told == VERIFIERS["deep-witness"](w.evidence, ctx)
    # another mechanism's construction named for the same θ′
    other = "layer-flip" if w.evidence["mechanism"] != "layer-flip" else "dead-neuron"
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-witness"](_tampered(w.evidence, mechanism=other), ctx)
    # a float in the inputs
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-witness"](_tampered(w.evidence, inputs=[[0.5] * net.input_dim]), ctx)


def test_checker_rejects_false_premises():
    ctx = Context(GENERIC, "p")
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-dead-neuron"]({"layer": 1, "neuron": 0, "method": "affine"}, ctx)
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-dead-neuron"]({"layer": 2, "neuron": 0, "method": "orthant"}, ctx)
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-always-active"]({"layer": 2, "neuron": 1, "method": "orthant"}, ctx)
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-layer-flip"]({"layer": 1, "neurons": [0, 1], "method": "identity"}, ctx)
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-never-coactive"]({"layer": 1, "upstream": 0, "downstream": 0, "method": "solver"}, ctx)
    with pytest.raises(CheckFailed):   # a pair that is co-active somewhere has no proof by inspection
        VERIFIERS["deep-never-coactive"]({"layer": 2, "upstream": 0, "downstream": 0}, ctx)
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-no-layer-flip"]({"layers": [1], "prime": 15}, ctx)
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-no-layer-flip"]({"layers": [1], "prime": 2147483647}, Context(FLIP, "p"))
    with pytest.raises(CheckFailed):
        VERIFIERS["deep-activity-witnesses"]({"points": [[0, 0]], "active": [[1, 1, 0]], "inactive": [],
                                              "coactive": []}, ctx)
    assert "(recomputed)" in VERIFIERS["deep-layer-flip"]({"layer": 1, "neurons": [0, 1]}, Context(FLIP, "p"))


def test_checker_imports_only_the_trusted_core():
    code = "import sys, reluid.checker.deep; print('\\n'.join(sorted(sys.modules)))"
    mods = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    bad = [m for m in mods if m.split(".")[0] in ("z3", "sympy", "networkx", "numpy")
           or m.startswith(("reluid.analysis", "reluid.smt", "reluid.io"))]
    assert not bad


def test_mechanism_validation():
    with pytest.raises(InvalidArgument):
        Mechanism("teleport", 1, (0,), "affine")
    with pytest.raises(InvalidArgument):
        Mechanism(DEAD, 1, (0,), "guess")
    with pytest.raises(InvalidArgument):
        Mechanism(ALWAYS_ACTIVE, 2, (0,), "orthant").witness(DEAD_ORTHANT, F(-1))


def test_checker_binds_the_premise_to_the_neuron_the_witness_changes():
    """A true premise about one neuron next to a witness that changes another one is rejected."""
    import json

    # layer-2 neuron 0 is dead (a non-positive row); neuron 1 is live.  The forged witness changes
    # the outgoing weight of neuron 1 (which changes the function) and cites the premise about neuron 0.
    net = DEAD_ORTHANT
    cert = certify_deep(net, timeout=10, fundim=False)
    assert check_certificate(cert).valid
    d = json.loads(to_json(cert))
    w = json.loads(json.dumps(d["witness"]["network"]))
    w["layers"][2]["weight"] = [[1, 7]]                # outgoing weights: neuron 0 unchanged, neuron 1 changed
    d["witness"]["network"] = w
    for c in d["claims"]:
        if c["kind"] == "deep-witness":
            c["evidence"]["network"] = w
            c["evidence"]["neurons"] = [0]            # the claim still names the dead neuron
    report = check_certificate(from_json(json.dumps(d)))
    assert not report.valid
    d = json.loads(to_json(cert))
    d["witness"]["network"] = d["network"]["embedded"]
    assert not check_certificate(from_json(json.dumps(d))).valid


def test_a_premise_moved_to_another_neuron_is_false_and_rejected():
    import json

    cert = certify_deep(DEAD_SOLVER, timeout=30, fundim_points=200)
    assert check_certificate(cert).valid
    d = json.loads(to_json(cert))
    for c in d["claims"]:
        if c["id"] == "premise":
            c["evidence"]["neuron"] = 1
    report = check_certificate(from_json(json.dumps(d)))
    assert not report.valid and "premise" in report.reason


ZERO_OUT = N([([[1, 2], [-1, 1], [2, -1]], [1, 0, -1]), ([[1, 0, 2], [2, 0, -1]], [0, 1]), ([[1, -1]], [0])])
PROPORTIONAL_PAIR = N([([[1, 2], [-1, 1], [2, -1]], [1, 0, -1]), ([[1, -1, 2], [2, -2, 4]], [0, 0]), ([[1, 3]], [0])])


@pytest.mark.parametrize("net, kind, layer, neurons", [
    (ZERO_OUT, "zero-outgoing", 1, (1,)),            # W^2[:, 1] = 0: the incoming row of neuron 1 is free
    (PROPORTIONAL_PAIR, "proportional-neurons", 2, (0, 1)),   # row 1 = 2 · row 0 in hidden layer 2
])
def test_exact_structure_mechanisms(net, kind, layer, neurons):
    """Lemma 10 and Lemma 11(1) inside one hidden layer give checkable hidden symmetries."""
    from reluid.checker.check import check_certificate

    report = detect_mechanisms(net, prover="never")
    found = [m for m in report.mechanisms if m.kind == kind]
    assert found and (found[0].layer, found[0].neurons) == (layer, neurons)
    cert = certify_deep(net, timeout=30, fundim_points=400)
    assert cert.verdict is Verdict.HIDDEN
    assert check_certificate(from_json(to_json(cert))).valid
    theta2 = found[0].witness(net)
    rng = random.Random(0)
    for _ in range(30):
        x = [F(rng.randint(-40, 40), rng.randint(1, 9)) for _ in range(net.input_dim)]
        assert net(x) == theta2(x)


@pytest.mark.parametrize("seed", range(40))
def test_every_emitted_deep_certificate_passes_the_checker(seed):
    """Random deep networks (three hidden layers included): whatever the verdict, the checker accepts it.

    (A witness moving a bias into a middle hidden layer once failed here: its compensation sits in the
    next hidden layer's bias, which the checker must not mistake for a second shifted neuron.)
    """
    rng = random.Random(seed)
    arch = rng.choice([(2, 3, 3, 1), (2, 4, 4, 1), (3, 4, 4, 2), (2, 3, 3, 3, 1)])
    glr = seed % 2 == 1
    net = N([([[rng.randint(0, 4) if glr else rng.randint(-3, 3) for _ in range(a)] for _ in range(b)],
              [rng.randint(-6, 0) if glr else rng.randint(-3, 3) for _ in range(b)]) for a, b in zip(arch, arch[1:])])
    cert = certify_deep(net, timeout=30, fundim_points=200)
    report = check_certificate(from_json(to_json(cert)))
    assert report.valid, report.reason
    if cert.verdict is Verdict.HIDDEN:
        for x in random_inputs(net.input_dim, count=50, seed=seed):
            assert net(x) == cert.witness.network(x)
        assert same_orbit(net, cert.witness.network) is None


def test_a_zero_outgoing_witness_beside_a_zero_row_changes_the_zero_row_count():
    """The checker's orbit normal form is undefined on zero incoming rows, so when θ has one (neuron 2 of layer 2
    here) a θ′ that negates the free neuron's row could not be told from θ's orbit: the certificate failed its
    own check and certify gave no verdict. The free row is set to zero instead: a zero row more is an orbit
    invariant, and the witness is verified."""
    from reluid.analysis.deep.mechanisms import ZERO_OUTGOING, detect_mechanisms

    net = Network.from_lists([([[1], [1]], [0, 1]), ([[1, 0], [0, 0]], [0, 0]), ([[1, 1]], [0])])
    m = next(m for m in detect_mechanisms(net, prover="never").mechanisms if m.kind == ZERO_OUTGOING)
    theta2 = m.witness(net)
    assert theta2.layers[0].weight[1] == (F(0),) and theta2.layers[0].bias[1] == 0
    cert = certify_deep(net, timeout=30)
    assert cert.verdict is Verdict.HIDDEN
    report = check_certificate(cert)
    assert report.valid and report.verdict is Verdict.HIDDEN
