"""The checker's derivation rules (reluid/checker/check.py): what a verdict needs, and what each rejection says.

Certificates come from the producer and are then changed one piece at a time:
a claim dropped, duplicated, relabelled or made false, the verdict changed, the
witness replaced, the network swapped.  Every report is compared in full: the
validity, the rule or the reason (exact texts), and the status of every claim.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from reluid.api import certify
from reluid.certificates.schema import Certificate, Claim, ClaimKind, Witness
from reluid.checker import check as ck
from reluid.checker.check import INFORMATION, NOT_REVERIFIED, VERIFIED, FAILED, check_certificate
from reluid.checker.registry import VERIFIERS, Budget, Context
from reluid.errors import CheckFailed, InvalidArgument
from reluid.model.network import Network, Shallow
from reluid.verdicts import Verdict
from tests.analysis.deep.test_mechanisms import ALWAYS_SOLVER, COACTIVE, DEAD_SOLVER, FLIP, GENERIC, PROPORTIONAL_PAIR

S = Shallow.make
N = Network.from_lists

GENERIC_THETA = S([1, 2], [[1], [3]], [0, 1], [0])            # no flip set
FLIP_THETA = S([2, -1], [[1], [2]], [0, 3], [0])              # {1, 2} is a flip set
PAIR_THETA = S([1, 2, 5], [[-2], [1], [1]], [2, -1, 0], [0])  # one opposite pair and a single neuron
RIGID = S([1, 2], [[1], [-1]], [0, 0], [0])                   # examples/networks/rigid_pair.json
AFFINE = N([([[1, 2]], [3])])

NO_FLIP_RULE = ("generic stratum (recomputed) and no flip set (verified): the fibre is the orbit "
                "(docs/mathematics.md §2)")
PATTERN_RULE = ("essential stratum (recomputed) and no realisation pattern other than θ's own (verified): the fibre "
                "is the orbit (docs/mathematics.md §4)")
WITNESS_RULE = ("explicit witness: θ′ has the same kinks, linear part and constant as θ (so the same function) and a "
                "different orbit form (docs/mathematics.md §1)")
UNKNOWN_RULE = "no verdict is claimed (unknown): nothing to derive"

_CERTS: dict = {}


def cert_of(net) -> Certificate:
    key = id(net)
    if key not in _CERTS:
        _CERTS[key] = certify(net, timeout=30)
    return _CERTS[key]


def statuses(report):
    return {c.id: c.status for c in report.claims}


def with_claims(cert, claims, **changes):
    return dataclasses.replace(cert, claims=tuple(claims), **changes)


def claim(cert, cid):
    return next(c for c in cert.claims if c.id == cid)


def renamed(c, new_id=None, kind=None, evidence=None):
    return Claim(new_id or c.id, kind or c.kind, c.statement, c.reference,
                 c.evidence if evidence is None else evidence, c.role)


def witness_of(theta) -> Witness:
    return Witness("manual", theta.to_network() if isinstance(theta, Shallow) else theta)


def unknown(cert):
    claims = [c for c in cert.claims if c.kind != ClaimKind.WITNESS]      # it speaks of the witness dropped
    return dataclasses.replace(cert, verdict=Verdict.UNKNOWN, reasons=(), reason="time budget", witness=None, claims=tuple(claims))


def force(cert, **fields):
    """Set fields the constructor would refuse (a checker must not rely on the constructor's checks)."""
    cert = dataclasses.replace(cert)
    for k, v in fields.items():
        object.__setattr__(cert, k, v)
    return cert


# ---- the report ------------------------------------------------------------------------------------

def test_report_fields_and_status_lookup():
    r = check_certificate(cert_of(GENERIC_THETA))
    assert r.valid and r.exit_code == 0 and r.verdict is Verdict.NO_HIDDEN and r.reason == ""
    assert r.rule == NO_FLIP_RULE
    assert statuses(r) == {"generic": INFORMATION, "no-flip-set": VERIFIED, "paper-condition": INFORMATION,
                           "fundim": INFORMATION, "local-identifiability": INFORMATION}
    assert r.status("no-flip-set") == VERIFIED and r.status("nothing") is None
    # the shallow certificate also carries the functional dimension (U = D − N = 7 − 2 for (1, 2, 1)) and local
    # identifiability: information, re-verified, and a false one rejects the certificate
    cert = cert_of(GENERIC_THETA)
    fd = claim(cert, "fundim")
    assert fd.evidence["rank"] == fd.evidence["upper_bound"] == 5 and fd.evidence["n_params"] == 7
    for cid in ("fundim", "local-identifiability"):
        got = next(c for c in r.claims if c.id == cid)
        assert got.message == VERIFIERS[claim(cert, cid).kind](claim(cert, cid).evidence,
                                                               Context(GENERIC_THETA.to_network(), "x"))
    assert next(c for c in r.claims if c.id == "fundim").message.endswith("dim_fun = U = 5 (certified)")
    forged = with_claims(cert, [renamed(c, evidence=dict(c.evidence, rank=6)) if c.id == "fundim" else c
                                for c in cert.claims])
    bad = check_certificate(forged)
    assert not bad.valid and bad.status("fundim") == FAILED
    assert bad.reason == "claim fundim (functional-dimension) is false: claimed rank 6 exceeds the upper bound 5"
    forged = with_claims(cert, [renamed(c, evidence=dict(c.evidence, rank=4)) if c.id == "local-identifiability"
                                else c for c in cert.claims])
    bad = check_certificate(forged)
    assert not bad.valid and bad.status("local-identifiability") == FAILED
    assert bad.reason == ("claim local-identifiability (local-identifiability) is false: Theorem A1 needs rank "
                          "D - N = 5; the evidence claims 4")
    assert [c.id for c in r.claims] == [c.id for c in cert_of(GENERIC_THETA).claims]
    assert all(c.kind == str(claim(cert_of(GENERIC_THETA), c.id).kind) for c in r.claims)
    used = next(c for c in r.claims if c.id == "no-flip-set")
    assert used.message == VERIFIERS[ClaimKind.NO_FLIP_SET](claim(cert_of(GENERIC_THETA), "no-flip-set").evidence,
                                                            Context(GENERIC_THETA.to_network(), "x"))
    bad = check_certificate(with_claims(cert_of(GENERIC_THETA), []))
    assert not bad.valid and bad.exit_code == 1 and bad.rule == "" and bad.verdict is Verdict.NO_HIDDEN


def test_rejected_carries_its_reason():
    e = ck._Rejected("why")
    assert e.reason == "why" and str(e) == "why"


# ---- shallow: no hidden symmetries ------------------------------------------------------------------

def test_generic_needs_a_verified_no_flip_set_claim():
    cert = cert_of(GENERIC_THETA)
    nfs = claim(cert, "no-flip-set")
    r = check_certificate(with_claims(cert, [claim(cert, "generic")]))
    assert r.valid is False and r.rule == "" and r.reason == ("the rule needs a certificate that θ has no flip set, and the certificate "
                                        "gives none that verifies")
    assert statuses(r) == {"generic": INFORMATION}
    # the rule uses the first verified one; a second stays a side fact
    r = check_certificate(with_claims(cert, [renamed(nfs, "a"), renamed(nfs, "b"), claim(cert, "generic")]))
    assert r.valid and statuses(r) == {"a": VERIFIED, "b": INFORMATION, "generic": INFORMATION}
    # the same evidence under a kind the checker does not know is not re-verified, and not used
    r = check_certificate(with_claims(cert, [renamed(nfs, kind="no-flip-set-v9")]))
    assert not r.valid and statuses(r) == {"no-flip-set": NOT_REVERIFIED}
    assert r.claims[0].message == "a claim of a kind the checker does not know: nothing is taken from it"
    assert r.claims[0].kind == "no-flip-set-v9"
    # a no-other-pattern claim does not stand in for it
    pat = claim(cert_of(RIGID), "patterns")
    r = check_certificate(with_claims(cert, [pat]))
    assert not r.valid and "no-other-pattern" in r.reason


def test_essential_needs_a_verified_no_other_pattern_claim():
    cert = cert_of(RIGID)
    r = check_certificate(cert)
    assert r.valid and r.rule == PATTERN_RULE and r.status("patterns") == VERIFIED
    r = check_certificate(with_claims(cert, [c for c in cert.claims if c.kind != ClaimKind.NO_OTHER_PATTERN]))
    assert not r.valid and r.reason == ("the rule needs a certificate that no other realisation pattern exists, and "
                                        "the certificate gives none that verifies")
    nfs = claim(cert_of(GENERIC_THETA), "no-flip-set")
    r = check_certificate(with_claims(cert, [nfs]))
    assert not r.valid and r.reason.startswith("claim no-flip-set (no-flip-set) is false")


def test_empty_and_degenerate_strata():
    r = check_certificate(cert_of(S([], [], [], [3], m=2)))
    assert r.valid and r.rule == "n = 0: the fibre of a constant network is a single point"
    for theta, reason in [
        (S([0, 1], [[1], [2]], [0, 1], [0]), "θ lies in the dead-output stratum (neuron 1), where a hidden symmetry "
                                             "always exists: a neuron with m_i = 0 has a free row (Ramakrishnan "
                                             "2026, Lemma 10)"),
        (S([1, 1], [[1], [0]], [0, 1], [0]), "θ lies in the constant-neuron stratum (neuron 2), where a hidden "
                                             "symmetry always exists: a neuron with a_i = 0 is a constant absorbed "
                                             "by c (Ramakrishnan 2026, Lemma 11(2))"),
        (S([1, 1], [[1], [2]], [1, 2], [0]), "θ lies in the proportional stratum (neurons 1 and 2), where a hidden "
                                             "symmetry always exists: positively proportional rows merge "
                                             "(Ramakrishnan 2026, Lemma 11(1))"),
    ]:
        forged = with_claims(cert_of(GENERIC_THETA), [], verdict=Verdict.NO_HIDDEN)
        forged = dataclasses.replace(forged, network_sha256=theta.to_network().sha256(),
                                     architecture=theta.to_network().architecture, network=theta.to_network())
        r = check_certificate(forged)
        assert not r.valid and r.reason == reason


def test_the_stratum_is_recomputed_not_read():
    # a generic network certified with the claims of an essential one (and vice versa)
    gen, ess = cert_of(GENERIC_THETA), cert_of(RIGID)
    r = check_certificate(dataclasses.replace(ess, claims=gen.claims))
    assert not r.valid
    r = check_certificate(dataclasses.replace(gen, claims=(claim(gen, "no-flip-set"),)))
    assert r.valid and r.rule == NO_FLIP_RULE            # the generic-stratum claim itself is not needed


# ---- shallow: hidden symmetry --------------------------------------------------------------------

def test_shallow_witness_rule():
    cert = cert_of(FLIP_THETA)
    r = check_certificate(cert)
    assert r.valid and r.rule == WITNESS_RULE and r.status("witness") == VERIFIED
    assert r.status("flip-set") == INFORMATION
    # the rule checks the witness itself: no witness claim needed
    r = check_certificate(with_claims(cert, []))
    assert r.valid and r.rule == WITNESS_RULE and r.claims == ()
    w = claim(cert, "witness")
    r = check_certificate(with_claims(cert, [renamed(w, "w1"), renamed(w, "w2")]))
    assert statuses(r) == {"w1": VERIFIED, "w2": VERIFIED}


@pytest.mark.parametrize("witness,reason", [
    (S([2, -1], [[-1], [-2]], [0, -3], [-2]), "witness rejected: witness computes a different function"),
    (S([-1, 1], [[2], [2]], [3, 0], [0]), "witness rejected: witness lies in the H_n-orbit of the network (not a "
                                          "hidden symmetry)"),
    (S([2, -1, 0], [[1], [2], [1]], [0, 3, 0], [0]), "witness rejected: witness is in Ω(1, 3, 1), not Ω(1, 2, 1)"),
    (N([([[1]], [0]), ([[1]], [0]), ([[1]], [0])]), "witness rejected: "),
])
def test_a_bad_shallow_witness_is_rejected(witness, reason):
    cert = cert_of(FLIP_THETA)
    r = check_certificate(with_claims(cert, [], witness=witness_of(witness)))
    assert not r.valid and r.reason.startswith(reason)
    if not reason.endswith(": "):
        assert r.reason == reason
    # ... and a witness claim about it is false
    r = check_certificate(dataclasses.replace(cert, witness=witness_of(witness)))
    assert not r.valid and r.reason.startswith("claim witness (witness) is false: " + reason[len("witness rejected: "):])
    assert r.status("witness") == FAILED and r.status("fibre") is None     # checking stops at the false claim


def test_a_missing_witness_is_rejected_even_past_the_constructor():
    cert = cert_of(FLIP_THETA)
    r = check_certificate(force(with_claims(cert, []), witness=None))
    assert not r.valid and r.reason == "a hidden-symmetry verdict needs a witness network"
    r = check_certificate(force(cert, witness=None))
    assert not r.valid and r.reason == ("claim witness (witness) is false: the claim speaks of a witness θ′, and the "
                                        "certificate has none")
    deep = cert_of(DEAD_SOLVER)
    r = check_certificate(force(with_claims(deep, []), witness=None))
    assert not r.valid and r.reason == "a hidden-symmetry verdict needs a witness network"


def test_unknown_verdicts_derive_nothing():
    for net in (GENERIC_THETA, FLIP_THETA, DEAD_SOLVER, GENERIC):
        r = check_certificate(unknown(cert_of(net)))
        assert r.valid and r.rule == UNKNOWN_RULE and r.verdict is Verdict.UNKNOWN
        assert set(statuses(r).values()) <= {INFORMATION}
    r = check_certificate(unknown(cert_of(AFFINE)))
    assert r.valid and r.rule == UNKNOWN_RULE


# ---- no hidden layer -------------------------------------------------------------------------------

def test_affine_networks():
    cert = cert_of(AFFINE)
    r = check_certificate(cert)
    assert r.valid and r.rule == ("no hidden layer: the affine map x ↦ Wx + b determines W (its linear part) and b (its "
                                  "value at 0)")
    r = check_certificate(with_claims(cert, []))
    assert r.valid                                      # nothing to prove
    forged = dataclasses.replace(cert, verdict=Verdict.HIDDEN, witness=witness_of(N([([[2, 1]], [3])])))
    r = check_certificate(forged)
    assert not r.valid and r.reason == ("a network with no hidden layer has no hidden symmetry: x ↦ Wx + b determines "
                                        "W and b")


# ---- deep ------------------------------------------------------------------------------------------

def test_deep_witness_with_a_premise():
    cert = cert_of(DEAD_SOLVER)
    r = check_certificate(cert)
    assert r.valid and r.rule == ("explicit witness: θ′ changes only the outgoing weights of neuron 1 in hidden layer "
                                  "2, and that neuron is dead (no input has z^2_1 > 0) (verified); θ′ lies outside the "
                                  "orbit of θ")
    assert statuses(r) == {"premise": VERIFIED, "witness": VERIFIED, "activity": INFORMATION,
                           "no-layer-flip": INFORMATION, "fundim": INFORMATION}
    r = check_certificate(with_claims(cert, [c for c in cert.claims if c.id != "premise"]))
    assert not r.valid and r.reason == ("the witness changes only the outgoing weights of neuron 1 in hidden layer 2, "
                                        "which keeps the function only if that neuron is dead (no input has z^2_1 > "
                                        "0); the certificate gives no verified proof of that")
    # a second proof of the same premise stays a side fact; the deep-witness claim is shown as used
    p = claim(cert, "premise")
    r = check_certificate(with_claims(cert, [renamed(p, "p1"), renamed(p, "p2")]))
    assert r.valid and statuses(r) == {"p1": VERIFIED, "p2": INFORMATION}
    # the deep-witness claim is not needed, but a false one rejects the certificate
    r = check_certificate(with_claims(cert, [p]))
    assert r.valid and statuses(r) == {"premise": VERIFIED}


TWO_DEAD = N([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [-1, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [0])])


def test_deep_premise_must_be_about_the_changed_neurons():
    cert = cert_of(ALWAYS_SOLVER)
    assert check_certificate(cert).valid
    p = claim(cert, "premise")
    # the always-active proof relabelled as a dead-neuron premise is false, hence rejected
    r = check_certificate(with_claims(cert, [renamed(p, kind=ClaimKind.DEEP_DEAD_NEURON)]))
    assert not r.valid and r.reason.startswith("claim premise (deep-dead-neuron) is false")
    # layer-2 neurons 1 and 2 are both dead (by inspection); θ′ changes the outgoing weight of neuron 1
    L = TWO_DEAD.layers
    theta2 = N([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [-1, -1], [1, 1]], [0, 0, -1]), ([[5, 1, 1]], [0])])
    base = dataclasses.replace(cert_of(TWO_DEAD), verdict=Verdict.HIDDEN, reason=None,
                               witness=Witness("dead-neuron", theta2))
    about = [Claim(f"dead{i}", ClaimKind.DEEP_DEAD_NEURON, "", "", {"layer": 2, "neuron": i}) for i in (0, 1)]
    r = check_certificate(with_claims(base, about))
    assert r.valid and statuses(r) == {"dead0": VERIFIED, "dead1": INFORMATION}
    assert r.rule.endswith("that neuron is dead (no input has z^2_1 > 0) (verified); θ′ lies outside the orbit of θ")
    r = check_certificate(with_claims(base, about[1:]))
    assert not r.valid and r.reason.endswith("the certificate gives no verified proof of that")
    assert statuses(r) == {"dead1": INFORMATION}
    assert len(L) == 3


def test_deep_never_coactive_and_identity_mechanisms():
    r = check_certificate(cert_of(COACTIVE))
    assert r.valid and "never co-active" in r.rule and r.status("premise") == VERIFIED
    cert = cert_of(FLIP)
    r = check_certificate(cert)
    assert r.valid and r.rule == ("explicit witness: θ′ flips F = {1, 2} in hidden layer 1, and Σ_(i∈F) W^(l+1)[:, i] "
                                  "W^l[i, :] = 0 (recomputed); θ′ lies outside the orbit of θ")
    assert r.status("premise") == VERIFIED
    # without the identity claim the construction still recomputes it
    r = check_certificate(with_claims(cert, [c for c in cert.claims if c.id != "premise"]))
    assert r.valid and r.status("witness") == VERIFIED
    # an identity claim about another set is verified but not used
    p = claim(cert, "premise")
    other = renamed(p, evidence={"layer": 1, "neurons": [1, 0]})
    r = check_certificate(with_claims(cert, [other]))
    assert r.valid and r.status("premise") == VERIFIED       # same set, listed in another order
    prop = cert_of(PROPORTIONAL_PAIR)
    r = check_certificate(prop)
    assert r.valid and r.status("premise") == VERIFIED and "positively proportional" in r.rule
    pp = claim(prop, "premise")
    r = check_certificate(with_claims(prop, [renamed(pp, evidence={"layer": 2, "neurons": [1, 0]})]))
    assert r.valid and r.status("premise") == INFORMATION    # (j, i): not the pair the witness moves


def test_deep_verdicts_that_no_rule_derives():
    cert = cert_of(DEAD_SOLVER)
    r = check_certificate(dataclasses.replace(cert, verdict=Verdict.NO_HIDDEN, witness=None))
    assert DEAD_SOLVER.architecture == (1, 3, 2, 1)          # two hidden layers, but input dimension 1
    assert not r.valid and r.reason == ("no theorem lets the checker derive the absence of hidden symmetries for the "
                                        "deep architecture (1, 3, 2, 1) (docs/mathematics.md §8 covers two hidden "
                                        "layers with input dimension >= 2, §12 three with n2 < n0)")
    three = N([([[1, 2], [2, -1]], [0, 1]), ([[1, 1], [1, -1]], [0, 0]), ([[2, 1], [-1, 1]], [1, 0]), ([[1, 1]], [0])])
    r = check_certificate(dataclasses.replace(cert_of(three), verdict=Verdict.NO_HIDDEN, witness=None, reason=None))
    assert not r.valid and r.reason == ("no theorem lets the checker derive the absence of hidden symmetries for the "
                                        "deep architecture (2, 2, 2, 2, 1) (docs/mathematics.md §8 covers two hidden "
                                        "layers with input dimension >= 2, §12 three with n2 < n0)")
    w = dataclasses.replace(cert.witness, mechanism="teleport")
    r = check_certificate(with_claims(cert, [], witness=w))
    assert not r.valid and r.reason == "witness rejected: unknown mechanism 'teleport'"
    r = check_certificate(with_claims(cert, [], witness=dataclasses.replace(cert.witness, network=DEAD_SOLVER)))
    assert not r.valid and r.reason == "witness rejected: the witness network equals θ"


# ---- the front matter ------------------------------------------------------------------------------

def refused(report, reason):
    """Rejected before any claim is looked at."""
    assert report.valid is False and report.rule == "" and report.reason == reason and report.claims == ()
    assert report.exit_code == 1


def test_the_network_must_be_the_certified_one():
    cert = cert_of(GENERIC_THETA)
    net = GENERIC_THETA.to_network()
    refused(check_certificate(dataclasses.replace(cert, network=None)),
            "no network: pass --network or embed it in the certificate")
    assert check_certificate(dataclasses.replace(cert, network=None), net).valid
    other = S([1, 2], [[1], [5]], [0, 1], [0]).to_network()
    refused(check_certificate(cert, other), "the network's SHA-256 does not match the certificate")
    refused(check_certificate(dataclasses.replace(cert, network=other)),
            "the network's SHA-256 does not match the certificate")
    refused(check_certificate(dataclasses.replace(cert, architecture=(1, 3, 1))),
            "architecture (1, 2, 1) does not match (1, 3, 1)")
    refused(check_certificate(dataclasses.replace(cert, network=other), net),
            "the embedded network differs from the one given")
    g = claim(cert, "generic")
    refused(check_certificate(with_claims(cert, [g, renamed(g, "generic")])), "duplicate claim ids")
    assert check_certificate(cert, net).valid


def test_claims_are_verified_in_order_and_a_false_one_stops_the_check():
    cert = cert_of(GENERIC_THETA)
    g, nfs, pc = (claim(cert, i) for i in ("generic", "no-flip-set", "paper-condition"))
    refused(check_certificate(with_claims(cert, [g, renamed(nfs, "x"), renamed(g, "x")])), "duplicate claim ids")
    false = renamed(nfs, "bad", kind=ClaimKind.FLIP_SET, evidence={"flip_set": [0]})
    r = check_certificate(with_claims(cert, [g, false, pc]))
    assert r.valid is False and r.rule == "" and r.reason == "claim bad (flip-set) is false: Σ_(i∈F) m_i a_iᵀ ≠ 0 for F = {1}"
    assert statuses(r) == {"generic": INFORMATION, "bad": FAILED}
    assert r.claims[1].message == "Σ_(i∈F) m_i a_iᵀ ≠ 0 for F = {1}"
    # an unknown kind does not stop the check
    r = check_certificate(with_claims(cert, [renamed(g, "?", kind="from-the-future"), nfs]))
    assert r.valid and statuses(r) == {"?": NOT_REVERIFIED, "no-flip-set": VERIFIED}


def test_an_exception_of_a_verifier_is_a_bug_of_the_checker_not_a_verdict():
    """Verifiers read every field through reluid.checker.readers: a defect of the evidence is a CheckFailed.
    Any other exception is an internal error of the kernel and is not turned into a rejection."""
    net = GENERIC_THETA.to_network()
    c = Claim("c9", ClaimKind.FLIP_SET, "", "", {"flip_set": [0]})
    for exc in (KeyError("k"), TypeError("t"), ValueError("v"), IndexError("i"), ZeroDivisionError("z"),
                AttributeError("a"), InvalidArgument("r"), RecursionError("deep"), RuntimeError("r")):
        def boom(ev, ctx, exc=exc):
            raise exc

        with pytest.raises(type(exc)):
            ck._verify(c, net, boom)

    def failing(ev, ctx):
        raise CheckFailed(ctx.claim_id, "plain")

    with pytest.raises(CheckFailed, match="^c9: plain$"):
        ck._verify(c, net, failing)
    # without a verifier, the registry's
    with pytest.raises(CheckFailed, match=r"≠ 0 for F = \{1\}"):
        ck._verify(c, net)
    seen = []
    assert ck._verify(c, net, lambda ev, ctx: seen.append((dict(ev), ctx)) or "ok") == "ok"
    assert list(seen[0][0]["flip_set"]) == [0] and seen[0][1].claim_id == "c9" and seen[0][1].network == net


def test_a_verifier_that_breaks_is_an_internal_error(monkeypatch):
    def broken(ev, ctx):
        raise KeyError("p")

    monkeypatch.setitem(VERIFIERS, str(ClaimKind.NO_FLIP_SET), broken)
    with pytest.raises(KeyError):
        check_certificate(cert_of(GENERIC_THETA))


def test_ledger():
    cert = with_claims(cert_of(GENERIC_THETA), [])
    g = Claim("g", ClaimKind.GENERIC_STRATUM, "", "")
    n1 = Claim("n1", ClaimKind.NO_FLIP_SET, "", "")
    n2 = Claim("n2", ClaimKind.NO_FLIP_SET, "", "")
    cert = with_claims(cert, [g, n1, n2])
    led = ck._Ledger(cert, Budget())
    assert led.cert is cert and led.done == {}
    led.mark(n2, INFORMATION, "two")
    led.mark(g, INFORMATION, "g")
    led.mark(n1, FAILED, "one")
    assert led.verified(ClaimKind.NO_FLIP_SET) == [n2]
    assert led.verified(ClaimKind.NO_FLIP_SET, ClaimKind.GENERIC_STRATUM) == [g, n2]
    led.use(n2)
    assert led.done["n2"] == ck.ClaimCheck("n2", "no-flip-set", VERIFIED, "two")
    rep = led.report(True, "rule", "")
    assert [c.id for c in rep.claims] == ["g", "n1", "n2"] and rep.rule == "rule" and rep.valid
    assert ck._needs(led, {ClaimKind.GENERIC_STRATUM}, "x") is g and led.done["g"].status == VERIFIED
    with pytest.raises(ck._Rejected, match="^the rule needs a thing, and the certificate gives none that verifies$"):
        ck._needs(led, {ClaimKind.NO_OTHER_PATTERN}, "thing")


def test_claim_statements_and_roles_are_never_believed():
    cert = cert_of(GENERIC_THETA)
    nfs = claim(cert, "no-flip-set")
    lie = Claim("lie", ClaimKind.NO_FLIP_SET, "θ has no flip set, trust me", "none", MappingProxyType({}),
                role="information")
    r = check_certificate(with_claims(cert, [lie]))
    assert not r.valid and r.status("lie") == FAILED
    r = check_certificate(with_claims(cert, [Claim(nfs.id, nfs.kind, "", "", nfs.evidence, role="information")]))
    assert r.valid and r.status("no-flip-set") == VERIFIED


def test_the_witness_claim_verifier_names_its_claim():
    cert = cert_of(FLIP_THETA)
    ctx = Context(FLIP_THETA.to_network(), "w7")
    assert ck._witness_verifier(cert)({}, ctx) == ("θ′ has the same kinks, linear part and constant as θ (so the same "
                                                   "function) and a different orbit form")
    with pytest.raises(CheckFailed) as e:
        ck._witness_verifier(force(cert, witness=None))({}, ctx)
    assert (e.value.claim, e.value.reason) == ("w7", "the claim speaks of a witness θ′, and the certificate has none")
    with pytest.raises(CheckFailed) as e:
        ck._witness_verifier(dataclasses.replace(cert, witness=witness_of(FLIP_THETA)))({}, ctx)
    assert (e.value.claim, e.value.reason) == ("w7", "witness lies in the H_n-orbit of the network (not a hidden "
                                                     "symmetry)")
