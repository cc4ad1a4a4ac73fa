"""Trained two-hidden-layer models (committed fixtures made by real torch and scikit-learn) get a checked verdict.

Before Theorem W (docs/mathematics.md §10) every one of them was ``unknown`` ("n1 = 32 > 14").
"""

from __future__ import annotations

import json

import reluid
from reluid.certificates.schema import ClaimKind, from_json, to_json
from reluid.checker.check import check_certificate
from reluid.verdicts import Verdict
from tests.paths import ROOT

TRAINED = ROOT / "tests" / "fixtures" / "trained"


def test_a_torch_digits_mlp_is_certified_by_theorem_w_and_checked():
    net = reluid.load(TRAINED / "torch_digits_64_32_32_10.onnx")
    cert = reluid.certify(net, timeout=120)
    assert cert.verdict is Verdict.NO_HIDDEN, cert.reason
    pin = [c for c in cert.claims if c.kind is ClaimKind.DEEP_TWO_LAYER_PINNING]
    assert len(pin) == 1
    report = check_certificate(cert)
    assert report.valid and report.verdict is Verdict.NO_HIDDEN
    assert report.status(pin[0].id) == "verified"
    # the checker's verdict rests on the pinning claim: without it there is no theorem
    d = json.loads(to_json(cert))
    d["claims"] = [c for c in d["claims"] if c["kind"] != "deep-two-layer-pinning"]
    forged = from_json(json.dumps(d))
    assert not check_certificate(forged).valid
