"""Every planted deep mechanism: found, its witness built, certified, checked, compared with θ exactly."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction as F

import pytest

from reluid.analysis.deep import decide_deep, detect_mechanisms, same_orbit
from reluid.analysis.deep.decide import DeepDecision
from reluid.certificates.build import certificate_from_deep_decision
from reluid.certificates.schema import from_json, to_json
from reluid.checker.check import check_certificate
from reluid.verdicts import Verdict
from tests.checker.forgery import same_function_by_z3
from tests.deep_catalogue import DEEP_CATALOGUE, deep_by_name

PLANTED = [e for e in DEEP_CATALOGUE if e.mechanism]


def _points(n0, count=300, seed=0):
    rng = random.Random(seed)
    return [tuple(F(rng.randint(-4000, 4000), rng.choice([1, 7, 64, 1000])) for _ in range(n0)) for _ in range(count)]


@pytest.mark.parametrize("ex", PLANTED, ids=lambda e: e.name)
def test_planted_mechanism_is_found_and_its_witness_keeps_the_function(ex):
    rep = detect_mechanisms(ex.network, prover="always", timeout=60)
    found = [m for m in rep.mechanisms if (m.kind, m.layer, m.neurons) == (ex.mechanism, ex.layer, ex.neurons)]
    assert found, (ex.name, rep.mechanisms)
    m = found[0]
    assert m.method == ex.method
    theta2 = m.witness(ex.network)
    assert all(ex.network(x) == theta2(x) for x in _points(ex.network.input_dim))
    assert same_function_by_z3(ex.network, theta2)
    assert same_orbit(ex.network, theta2) is None


def _certificate_for(ex):
    """The certificate whose witness is the planted mechanism's (not only the producer's preferred one)."""
    net = ex.network
    rep = detect_mechanisms(net, prover="always", timeout=60)
    m = next(m for m in rep.mechanisms if (m.kind, m.layer, m.neurons) == (ex.mechanism, ex.layer, ex.neurons))
    d = decide_deep(net, timeout=60, fundim=False)
    d = DeepDecision(Verdict.HIDDEN, net, rep, mechanism=m, witness=m.witness(net), delta=F(1), inputs=d.inputs)
    return certificate_from_deep_decision(d)


@pytest.mark.parametrize("ex", PLANTED, ids=lambda e: e.name)
def test_planted_mechanism_certificate_is_accepted_by_its_own_rule(ex):
    cert = _certificate_for(ex)
    report = check_certificate(from_json(to_json(cert)))
    assert report.valid, report.reason
    assert report.status("premise") == "verified" and "explicit witness" in report.rule


@pytest.mark.parametrize("ex", PLANTED, ids=lambda e: e.name)
def test_the_producer_certifies_every_planted_network(ex):
    cert = certificate_from_deep_decision(decide_deep(ex.network, timeout=60, fundim=False))
    assert cert.verdict is Verdict.HIDDEN and check_certificate(cert).valid


def test_generic_is_unknown():
    cert = certificate_from_deep_decision(decide_deep(deep_by_name("generic").network, timeout=60, fundim_points=400))
    assert cert.verdict is Verdict.UNKNOWN and check_certificate(cert).valid


def _forge(cert, edit):
    d = json.loads(to_json(cert))
    prem = next(c for c in d["claims"] if c["id"] == "premise")
    edit(prem["evidence"], d)
    return from_json(json.dumps(d))


def test_collapsed_kink_forgeries_are_rejected():
    cert = _certificate_for(deep_by_name("collapsed_kink"))
    assert check_certificate(cert).valid
    forgeries = {
        "a successor dropped": lambda ev, d: ev["successors"].pop(),
        "trees swapped between successors": lambda ev, d: ev["successors"].reverse() or
        [s.update(neuron=i) for i, s in zip(sorted(t["neuron"] for t in ev["successors"]), ev["successors"])],
        "the identity tree replaced by the plain one": lambda ev, d: ev["successors"][0].update(
            identity_tree=copy.deepcopy(ev["successors"][0]["tree"])),
        "another neuron": lambda ev, d: ev.update(neuron=ev["neuron"] + 1),
    }
    for what, edit in forgeries.items():
        assert not check_certificate(_forge(cert, edit)).valid, what


def test_affine_flip_forgeries_are_rejected():
    cert = _certificate_for(deep_by_name("affine_hull"))
    assert check_certificate(cert).valid
    forgeries = {
        "another constant": lambda ev, d: ev.update(constant=["17/2"]),
        "the two trees swapped": lambda ev, d: ev["trees"][0].reverse(),
        "a smaller flip set": lambda ev, d: ev.update(neurons=ev["neurons"][:1]),
    }
    for what, edit in forgeries.items():
        assert not check_certificate(_forge(cert, edit)).valid, what
    d = json.loads(to_json(cert))                          # the witness shifted by another constant
    b = d["witness"]["network"]["layers"][-1]["bias"]
    b[0] = f"{F(b[0]) + 1}" if "/" in str(b[0]) else int(F(b[0]) + 1)
    for c in d["claims"]:
        if c["kind"] == "deep-witness":
            c["evidence"]["network"] = d["witness"]["network"]
    assert not check_certificate(from_json(json.dumps(d))).valid


def test_a_violated_collapsed_kink_is_not_claimed():
    """Control (docs/mathematics.md §6.2): with successor 2's bias raised to +1 the kink is no longer collapsed."""
    from reluid.model.network import Network

    bad = Network.from_lists([([[1, 0], [-1, -1], [0, 1]], [0, 0, -1]),
                              ([[1, -1, 0], [2, 0, -1], [0, 1, 1]], [-1, 1, -1]), ([[1, 2, -1]], [0])])
    rep = detect_mechanisms(bad, prover="always", timeout=60)
    assert not any(m.kind == "collapsed-kink" and m.neurons == (0,) and m.layer == 1 for m in rep.mechanisms)
