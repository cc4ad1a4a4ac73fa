"""The two-hidden-layer rule of the checker (reluid/checker/check.py ``_two_layer_rule``; docs/mathematics.md §8,
Theorem 8.2, Corollary 8.3 and Theorem W), read by its exact words on the committed certificate of
examples/networks/two_layers_certified.json (reports/examples/certificates/): the rule line it prints, and the
rejection when a claim the rule needs is missing.  The Theorem W form is pinned in test_pinning_forgeries.py."""

from __future__ import annotations

import json

from reluid.certificates.schema import from_json
from reluid.checker.check import check_certificate
from tests.paths import ROOT

CERT = ROOT / "reports" / "examples" / "certificates" / "two_layers_certified_json.cert.json"
RULE = ("two hidden layers, n0 >= 2: H0–H4 (verified: full regions, a connected set of rigid edges carrying every "
        "label, bend flats with no cover by |I| other hyperplanes for any I) and 𝔉1 = 𝔉2 = {∅} (verified), so by "
        "docs/mathematics.md (Theorem 8.2 and Corollary 8.3, or Theorem W) the fibre of θ is its orbit under "
        "permutations and positive scalings")


def checked(drop=lambda claim: False):
    d = json.loads(CERT.read_text(encoding="utf-8"))
    d["claims"] = [c for c in d["claims"] if not drop(c)]
    return check_certificate(from_json(json.dumps(d)))


def test_the_rule_line():
    rep = checked()
    assert rep.valid and rep.rule == RULE


def test_without_the_hypotheses():
    rep = checked(lambda c: c["kind"] == "deep-two-layer-hypotheses")
    assert not rep.valid and rep.reason == ("the rule needs a certificate of the hypotheses H0–H4 of "
                                            "docs/mathematics.md §8, and the certificate gives none that verifies")


def test_without_a_layer_without_flip_sets():
    for layer in (1, 2):
        rep = checked(lambda c: c["kind"] == "deep-layer-no-flip-set" and c["evidence"].get("layer") == layer)
        assert not rep.valid and rep.reason == (f"the rule needs a certificate that hidden layer {layer} has no flip "
                                                f"set (𝔉{layer} = {{∅}}), and the certificate gives none that verifies")
