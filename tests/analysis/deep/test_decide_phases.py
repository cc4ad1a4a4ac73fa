"""decide_deep: phase order, named budget shares, names of witnesses (simplest mechanism), size limits."""

import random
from fractions import Fraction as F

import pytest

import reluid.budget

from reluid.analysis.deep import decide as decide_mod
from reluid.analysis.deep.decide import SIMPLICITY, decide_deep, preference
from reluid.analysis.deep.mechanisms import LAYER_FLIP, ZERO_OUTGOING, Mechanism
from reluid.budget import SHARES, Budget
from reluid.certificates.build import certificate_from_deep_decision
from reluid.checker.check import check_certificate
from reluid.model.network import Network
from reluid.report.reasons import text
from reluid.verdicts import Reason, ReasonCode, Verdict


def _random(arch, seed):
    rng = random.Random(seed)
    return [([[F(rng.randint(-16, 16), 8) for _ in range(a)] for _ in range(b)],
             [F(rng.randint(-8, 8), 8) for _ in range(b)]) for a, b in zip(arch, arch[1:])]


def _pruned(arch, layer, neuron, seed=3):
    """A random network with the outgoing weights of ``neuron`` (0-based) of hidden ``layer`` zeroed."""
    layers = _random(arch, seed)
    for row in layers[layer][0]:
        row[neuron] = F(0)
    return Network.from_lists(layers)


@pytest.mark.parametrize("layer", [1, 2])
def test_zeroed_outgoing_weights_are_named_as_such(layer):
    # the case: neuron 6 of a pruned layer was reported as the layer flip F = {6}
    net = _pruned((3, 8, 8, 2), layer, 5)
    d = decide_deep(net, timeout=60)
    assert d.verdict is Verdict.HIDDEN
    assert d.mechanism is not None and (d.mechanism.kind, d.mechanism.layer, d.mechanism.neurons) == \
        (ZERO_OUTGOING, layer, (5,))
    assert d.theorem is None                     # the simple mechanism named it before the two-layer theorem
    report = check_certificate(certificate_from_deep_decision(d))
    assert report.valid and "outgoing weights are 0" in report.rule


def test_preference_puts_zero_outgoing_before_the_singleton_flip():
    flip, zero = Mechanism(LAYER_FLIP, 1, (5,), "identity"), Mechanism(ZERO_OUTGOING, 1, (5,), "identity")
    assert sorted([flip, zero], key=preference)[0] is zero
    assert SIMPLICITY[0] == ZERO_OUTGOING


def test_mechanisms_run_first_and_phases_are_timed():
    net = Network.from_lists(_random((2, 3, 3, 1), 5))
    d = decide_deep(net, timeout=60)
    names = [name for name, _ in d.phase_seconds]
    assert names[0] == "mechanism detection"
    if "two hidden layers" in names:
        assert names.index("two hidden layers") == 1


def test_named_shares():
    b = Budget(100.0)
    assert {"mechanism detection", "premise prover", "two hidden layers", "theorem 8.2", "theorem w first try",
            "functional dimension", "reduction", "reduced network"} <= set(SHARES)
    for name in SHARES:
        assert 0 < SHARES[name] < 1
        assert b.share_of(name) <= 100.0 * SHARES[name] + 1e-9
    assert Budget(None).share_of("mechanism detection") == float("inf") and Budget(None).deadline_of("reduction") is None


def test_a_size_limit_is_not_reported_as_a_budget(monkeypatch):
    monkeypatch.setattr(reluid.budget, "_cap", 1e-9)       # the memory cap (reluid certify --memory-gb)
    net = Network.from_lists(_random((1, 3, 3, 1), 8))          # n0 = 1: no two-layer theorem, no mechanism
    d = decide_deep(net, timeout=60, prover="never")
    assert d.verdict is Verdict.UNKNOWN
    said = text(d.reasons)
    assert d.reasons[-1].code is ReasonCode.SIZE_LIMIT and d.reasons[-1].params["limits"][0]["code"] == "fundim-memory"
    assert "Size limit: functional dimension not attempted" in said and "GB of memory" in said
    assert ReasonCode.TIME_BUDGET not in [r.code for r in d.reasons] and "Time budget" not in said
    assert d.size_note and d.budget_note is None
    cert = certificate_from_deep_decision(d)
    note = cert.producer["size_limit"]
    assert Reason(note["code"], note["params"]) == d.size_note and "time_budget" not in cert.producer


def test_the_witness_construction_stops_when_its_time_runs_out(monkeypatch):
    """θ′ is built, separated from θ's orbit and compared with θ at exact inputs, each step asking the budget
    (a 784-128-128-10 network with one duplicated neuron spent 30 s here whatever --timeout); stopped, it says
    so instead of answering, and an orbit search that cannot decide makes that θ′ prove nothing."""
    from fractions import Fraction

    from reluid.analysis.deep.mechanisms import detect_mechanisms
    from reluid.errors import OrbitSearchExhausted
    from reluid.io import load
    from tests.paths import EXAMPLES

    net = load(EXAMPLES / "deep_layer_flip.json")
    m = detect_mechanisms(net, prover="never").mechanisms[0]
    inputs = decide_mod.agreement_inputs(net.input_dim, 0, 4)
    theta2, delta = decide_mod._witness_for(net, m, inputs)
    assert delta == Fraction(1) and theta2 != net and all(net(x) == theta2(x) for x in inputs)
    with pytest.raises(decide_mod._Stopped):
        decide_mod._witness_for(net, m, inputs, lambda: True)
    calls = iter([False, True])                       # time runs out inside the orbit search

    def exhausted(a, b, *, expired):
        raise OrbitSearchExhausted(0)

    monkeypatch.setattr(decide_mod, "same_orbit", exhausted)
    with pytest.raises(decide_mod._Stopped):
        decide_mod._witness_for(net, m, inputs, lambda: next(calls, True))
    assert decide_mod._witness_for(net, m, inputs, lambda: False) is None         # undecided for every δ: no witness
