"""``reluid certify`` on a network with redundancy: the verdict stays hidden-symmetry, and the property
"the reduced network has no hidden symmetries" is added, reported under its own name and re-verified."""

import copy
import json

import pytest

import reluid
from reluid.certificates.schema import Certificate, Claim, ClaimKind, from_json, to_json
from reluid.report import generate_report
from tests.paths import EXAMPLES


@pytest.fixture(scope="module")
def planted():
    net = reluid.load(EXAMPLES / "planted_redundancy.json")
    return net, reluid.certify(net, timeout=60)


def _claim(cert):
    return next(c for c in cert.claims if c.kind == ClaimKind.REDUCED_NO_HIDDEN)


def test_verdict_kept_and_property_added(planted):
    net, cert = planted
    assert cert.verdict is reluid.Verdict.HIDDEN and cert.witness is not None
    c = _claim(cert)
    assert c.role == "information" and "(2, 2, 3, 1)" in c.statement
    report = reluid.check(cert)
    assert report.valid and report.verdict is reluid.Verdict.HIDDEN
    assert report.status(c.id) == "information verified"
    text = generate_report(cert, "text", net, "planted", report)
    assert "Reduced network has no hidden symmetries: yes (information verified)" in text
    assert "Verdict: HIDDEN-SYMMETRY" in text


def test_no_property_when_the_reduced_network_is_not_certified():
    cert = reluid.certify(reluid.load(EXAMPLES / "deep_dead_neuron.json"), timeout=30)   # n0 = 1: §8 does not apply
    assert cert.verdict is reluid.Verdict.HIDDEN
    assert not any(c.kind == ClaimKind.REDUCED_NO_HIDDEN for c in cert.claims)


def _forged(cert, edit):
    d = json.loads(to_json(cert))
    c = next(c for c in d["claims"] if c["kind"] == "reduced-no-hidden-symmetries")
    edit(c["evidence"])
    return from_json(json.dumps(d))


def _set_step_neuron(ev):
    ev["reduction"]["steps"][1]["neuron"] = 0                # not the zero-outgoing neuron


def _set_verdict(ev):
    ev["certificate"]["verdict"] = "no-hidden-symmetries"
    ev["certificate"]["claims"] = []                         # a bare claim of no hidden symmetries


def _other_network(ev):
    ev["network"]["layers"][2]["bias"] = [1]


def _drop_theorem(ev):
    ev["certificate"]["claims"] = [c for c in ev["certificate"]["claims"] if c["kind"] != "deep-two-layer-hypotheses"]


@pytest.mark.parametrize("edit", [_set_step_neuron, _set_verdict, _other_network, _drop_theorem])
def test_forged_property_rejected(planted, edit):
    _, cert = planted
    report = reluid.check(_forged(cert, edit))
    assert not report.valid and "reduced-no-hidden-symmetries" in report.reason


def test_a_work_limit_leaves_the_property_not_reverified(planted):
    net, cert = planted
    report = reluid.check(cert, work_limit=4000)    # enough for the verdict (every step charged), not for the property
    c = _claim(cert)
    assert report.status(c.id) == "not re-verified"
    assert report.valid and report.verdict is reluid.Verdict.HIDDEN    # the verdict does not rest on it
