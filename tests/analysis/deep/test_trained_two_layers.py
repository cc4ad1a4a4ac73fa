"""Trained two-hidden-layer models (committed fixtures made by real torch and scikit-learn) get a checked verdict.

Before Theorem W (docs/mathematics.md §10) every one of them was ``unknown`` ("n1 = 32 > 14").
"""

from __future__ import annotations

import json

import reluid
from reluid.certificates.schema import ClaimKind, from_json, to_json
from reluid.checker.check import check_certificate
from reluid.report.certificate import generate_text
from reluid.verdicts import Verdict
from tests.paths import ROOT

TRAINED = ROOT / "tests" / "fixtures" / "trained"


def test_a_torch_digits_mlp_is_certified_by_theorem_w_and_checked():
    net = reluid.load(TRAINED / "torch_digits_64_32_32_10.onnx")
    cert = reluid.certify(net, timeout=120)
    assert cert.verdict is Verdict.NO_HIDDEN, cert.reasons
    pin = [c for c in cert.claims if c.kind is ClaimKind.DEEP_TWO_LAYER_PINNING]
    assert len(pin) == 1
    report = check_certificate(cert)
    assert report.valid and report.verdict is Verdict.NO_HIDDEN
    assert report.status(pin[0].id) == "verified"
    # the sampled Jacobian rank is below U here; the report does not call that evidence against the verdict
    text = " ".join(generate_text(cert, check=report).split())
    line = text[text.index("Locally identifiable:"):text.index("Conclusion")]
    assert "proved independently of this rank" in line and "evidence of hidden" not in line
    # the checker's verdict rests on the pinning claim: without it there is no theorem
    d = json.loads(to_json(cert))
    d["claims"] = [c for c in d["claims"] if c["kind"] != "deep-two-layer-pinning"]
    forged = from_json(json.dumps(d))
    assert not check_certificate(forged).valid


def test_a_torch_breast_cancer_mlp_is_certified_once_its_walk_may_leave_the_chosen_orthants():
    """30-16-16-1: with only the chosen chains of orthants, layer-2 neuron 15 found no valid walk (15 of 16
    pinned); in the u frame every sign pattern is a region (Lemma 10.18), so the walk makes the neighbours it
    needs, and the checker verifies them from their signs alone."""
    net = reluid.load(TRAINED / "torch_breast_cancer_30_16_16_1.onnx")
    cert = reluid.certify(net, timeout=120)
    assert cert.verdict is Verdict.NO_HIDDEN, cert.reasons
    report = check_certificate(from_json(to_json(cert)))
    assert report.valid and report.verdict is Verdict.NO_HIDDEN
    pin = next(c for c in cert.claims if c.kind is ClaimKind.DEEP_TWO_LAYER_PINNING)
    assert report.status(pin.id) == "verified"
