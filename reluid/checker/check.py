"""``reluid check``: a proof checker for certificates (no z3, no search code).

The checker decides; the certificate only supplies evidence.  For the claimed
verdict it recomputes from the network everything that is cheap (the
architecture, the shallow stratum, which neurons a deep witness changes),
applies its **own derivation rule**, and takes from the certificate only the
evidence that rule needs (bases, minors, multipliers, witness points, θ′).
Claim kinds, statements, roles, method fields and any other labels are never
believed: a kind only tells the checker where to look, and the evidence found
there is verified by the checker's own code.

The rules (docs/certificates.md):

shallow, ``no-hidden-symmetries``
    the checker classifies θ itself.  Empty: nothing to prove.  Generic
    stratum: some piece of evidence must certify that θ has no flip set
    (docs/mathematics.md §2–§3).  Essential stratum (opposite pairs): some
    piece of evidence must certify that no realisation pattern other than
    θ's own exists (docs/mathematics.md §4).  Any other stratum always has a
    hidden symmetry: rejected.
shallow, ``hidden-symmetry``
    the witness θ′ has the same function data as θ and another orbit form.
deep, ``hidden-symmetry``
    θ′ must be exactly the construction of a mechanism applied to θ, and the
    mechanism's premise must be proved **for the neurons θ′ changes**
    (exact identities are recomputed; "no input with …" premises need a
    Farkas-tree certificate that the checker verifies); θ′ lies outside the
    orbit of θ.  Agreement at listed inputs is a sanity check only.
deep, ``no-hidden-symmetries``
    two hidden layers and input dimension >= 2: a verified certificate of the hypotheses
    H0–H4 of docs/mathematics.md §8 (or of Theorem W) and verified certificates that neither hidden
    layer has a flip set (𝔉1 = 𝔉2 = {∅}); then Theorem 8.2 and Corollary 8.3 give fibre = orbit.
    Three hidden layers with n2 < n0 (and n0 >= 2): verified certificates of Corollary 12.15's hypotheses
    and of Theorem 12.37's clash points, and that no hidden layer has a flip set (𝔉1 = 𝔉2 = 𝔉3 = {∅}); then
    Theorem 12.37 gives fibre = orbit.  Rejected for every other deep network (no theorem covers it).
``unknown``
    nothing to derive.

Every claim of a kind the checker knows is first re-verified as the statement
it makes, at every size, and a false one rejects the certificate; a claim of an
unknown kind is reported as not re-verified and nothing is taken from it.  The
rule then rests only on claims the checker has just verified, matched to what
the rule needs by the checker's own reading of their evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from reluid.certificates.schema import Certificate, ClaimKind
from reluid.checker import deep as _deep
from reluid.checker import flipsets as _flipsets  # noqa: F401  (registers its verifiers)
from reluid.checker import fundim as _fundim  # noqa: F401
from reluid.checker import patterns as _patterns  # noqa: F401
from reluid.checker import reduction as _reduction  # noqa: F401  (registers its verifier)
from reluid.checker import shallow as _shallow
from reluid.checker import two_layers as _two_layers  # noqa: F401  (registers its verifiers)
from reluid.checker import pinning as _pinning  # noqa: F401  (registers its verifier)
from reluid.checker import three_layers as _three_layers  # noqa: F401  (registers its verifiers)
from reluid.checker.registry import VERIFIERS, WORK_LIMIT, Budget, Context, WorkLimit
from reluid.checker.search import SEARCHED
from reluid.errors import CheckFailed, ReluidError
from reluid.model.network import Network
from reluid.verdicts import ClaimStatus, ExitCode, Stratum, Verdict

__all__ = ["ClaimCheck", "CheckReport", "check_certificate", "VERIFIED", "INFORMATION", "NOT_REVERIFIED",
           "FAILED"]

#: The checker's statuses for a claim, by the names this module has always exported (:class:`ClaimStatus`).
VERIFIED, INFORMATION, NOT_REVERIFIED, FAILED = (ClaimStatus.VERIFIED, ClaimStatus.INFORMATION,
                                                 ClaimStatus.NOT_REVERIFIED, ClaimStatus.FAILED)

@dataclass(frozen=True, slots=True)
class ClaimCheck:
    id: str
    kind: str
    status: ClaimStatus
    message: str
    #: not re-verified because its verification needed more than the work limit left (a larger limit may verify it)
    over_limit: bool = False


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What the checker concluded: the verdict holds (``valid``) by ``rule``, or why not (``reason``)."""

    valid: bool
    verdict: Verdict
    rule: str
    claims: tuple[ClaimCheck, ...]
    reason: str = ""

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.answer(self.valid)

    def status(self, claim_id: str) -> ClaimStatus | None:
        return next((c.status for c in self.claims if c.id == claim_id), None)


class _Rejected(Exception):
    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


def _verify(claim, net: Network, verifier=None, budget: Budget | None = None) -> str:
    """Run a verifier on a claim's evidence; it raises CheckFailed with a one-line reason on any defect.

    Verifiers read every field through :mod:`reluid.checker.readers`, so a malformed certificate is a
    failed claim; any other exception is a bug of the checker and propagates.
    """
    verifier = verifier or VERIFIERS[str(claim.kind)]
    return verifier(claim.evidence, Context(net, claim.id, budget or Budget()))


def _searched(message: str, searches) -> str:
    """A claim's message, marked when its verification rests on an exhaustive search of the checker."""
    return message + (f" [{SEARCHED}: {'; '.join(dict.fromkeys(searches))}]" if searches else "")


class _Ledger:
    """The checker's status of every claim: each one verified as the statement it makes, then used by the rule."""

    def __init__(self, cert: Certificate, budget: Budget):
        self.cert = cert
        self.budget = budget
        self.done: dict[str, ClaimCheck] = {}

    def mark(self, claim, status: ClaimStatus, message: str, over_limit: bool = False) -> None:
        self.done[claim.id] = ClaimCheck(claim.id, str(claim.kind), status, message, over_limit)

    def verified(self, *kinds):
        """The verified claims of the given kinds, in certificate order."""
        return [c for c in self.cert.claims if c.kind in kinds and self.done[c.id].status is ClaimStatus.INFORMATION]

    def use(self, claim) -> None:
        """The rule rests on ``claim``: shown as verified evidence rather than a side fact."""
        self.done[claim.id] = ClaimCheck(claim.id, str(claim.kind), ClaimStatus.VERIFIED, self.done[claim.id].message)

    def report(self, valid: bool, rule: str, reason: str = "") -> CheckReport:
        ordered = tuple(self.done[c.id] for c in self.cert.claims if c.id in self.done)
        return CheckReport(valid, self.cert.verdict, rule, ordered, reason)


# ---------------------------------------------------------------------------
# the derivation rules
# ---------------------------------------------------------------------------

def _needs(ledger: _Ledger, kinds, what: str):
    found = ledger.verified(*kinds)
    if not found:
        raise _Rejected(f"the rule needs a {what}, and the certificate gives none that verifies")
    ledger.use(found[0])
    return found[0]


def _affine_rule(cert: Certificate, net: Network, ledger: _Ledger) -> str:
    if cert.verdict is Verdict.HIDDEN:
        raise _Rejected("a network with no hidden layer has no hidden symmetry: x ↦ Wx + b determines W and b")
    if cert.verdict is Verdict.NO_HIDDEN:
        return "no hidden layer: the affine map x ↦ Wx + b determines W (its linear part) and b (its value at 0)"
    return "no verdict is claimed (unknown): nothing to derive"


def _shallow_rule(cert: Certificate, net: Network, ledger: _Ledger) -> str:
    theta = net.shallow()
    if cert.verdict is Verdict.NO_HIDDEN:
        try:
            st = _shallow.classify(theta, Context(net, "stratum", ledger.budget))
        except WorkLimit as e:
            raise _Rejected(f"the stratum of θ is not recomputed: {e.reason}") from None
        if st.name == Stratum.EMPTY:
            return "n = 0: the fibre of a constant network is a single point"
        if st.name == Stratum.GENERIC:
            _needs(ledger, {ClaimKind.NO_FLIP_SET}, "certificate that θ has no flip set")
            return ("generic stratum (recomputed) and no flip set (verified): the fibre is the orbit "
                    "(docs/mathematics.md §2)")
        if st.name == Stratum.OPPOSITE_PAIRS:
            _needs(ledger, {ClaimKind.NO_OTHER_PATTERN}, "certificate that no other realisation pattern exists")
            return ("essential stratum (recomputed) and no realisation pattern other than θ's own (verified): "
                    "the fibre is the orbit (docs/mathematics.md §4)")
        raise _Rejected(f"θ lies in the {st.name} stratum ({st.where}), where a hidden symmetry always exists: "
                        f"{_shallow.ALWAYS_HIDDEN[st.name]}")
    if cert.verdict is Verdict.HIDDEN:
        if cert.witness is None:
            raise _Rejected("a hidden-symmetry verdict needs a witness network")
        try:
            msg = _shallow.verify_shallow_witness(theta, cert.witness.network.shallow())
        except (ValueError, ReluidError) as e:
            raise _Rejected(f"witness rejected: {e}") from None
        for claim in ledger.verified(ClaimKind.WITNESS):
            ledger.use(claim)
        return f"explicit witness: {msg} (docs/mathematics.md §1)"
    return "no verdict is claimed (unknown): nothing to derive"


def _no_flip_sets(ledger: _Ledger, layers) -> None:
    """The rule uses, for each hidden layer l, a verified certificate that 𝔉_l = {∅}."""
    for layer in layers:
        found = [c for c in ledger.verified(ClaimKind.DEEP_LAYER_NO_FLIP_SET) if c.evidence.get("layer") == layer]
        if not found:
            raise _Rejected(f"the rule needs a certificate that hidden layer {layer} has no flip set "
                            f"(𝔉{layer} = {{∅}}), and the certificate gives none that verifies")
        ledger.use(found[0])


def _three_layer_rule(net: Network, ledger: _Ledger) -> str:
    """docs/mathematics.md §12: Corollary 12.15's hypotheses, (CP) of Theorem 12.37 and 𝔉1 = 𝔉2 = 𝔉3 = {∅}."""
    _needs(ledger, {ClaimKind.DEEP_THREE_LAYER_HYPOTHESES}, "certificate of the hypotheses of Corollary 12.15")
    _needs(ledger, {ClaimKind.DEEP_THREE_LAYER_CLASH}, "certificate of (CP) of Theorem 12.37 (clash points)")
    _no_flip_sets(ledger, (1, 2, 3))
    return ("three hidden layers: (CP) of Theorem 12.37 by clash points (verified), so every competitor is layer-1 "
            "matched; the hypotheses of Corollary 12.15 (verified); and 𝔉1 = 𝔉2 = 𝔉3 = {∅} (verified); so by "
            "docs/mathematics.md Theorem 12.37 the fibre of θ is its orbit under permutations and positive scalings")


def _two_layer_rule(net: Network, ledger: _Ledger) -> str:
    """docs/mathematics.md §8, Theorem 8.2 and Corollary 8.3: H0–H4 and 𝔉1 = 𝔉2 = {∅} give fibre = orbit."""
    if len(net.hidden_widths) != 2 or net.input_dim < 2:
        raise _Rejected(f"no theorem lets the checker derive the absence of hidden symmetries for the deep "
                        f"architecture {net.architecture} (docs/mathematics.md §8 covers two hidden "
                        "layers with input dimension >= 2, §12 three with n2 < n0)")
    if ledger.verified(ClaimKind.DEEP_TWO_LAYER_PINNING):          # Theorem W
        _needs(ledger, {ClaimKind.DEEP_TWO_LAYER_PINNING}, "certificate of the hypotheses of Theorem W")
        theorem = "Theorem W (H0, H0′, H4 and a pinning certificate, verified)"
    else:
        _needs(ledger, {ClaimKind.DEEP_TWO_LAYER_HYPOTHESES}, "certificate of the hypotheses H0–H4 of "
               "docs/mathematics.md §8")
        theorem = ("H0–H4 (verified: full regions, a connected set of rigid edges carrying every label, bend flats "
                   "with no cover by |I| other hyperplanes for any I)")
    _no_flip_sets(ledger, (1, 2))
    return (f"two hidden layers, n0 >= 2: {theorem} and 𝔉1 = 𝔉2 = {{∅}} (verified), so by docs/mathematics.md "
            "(Theorem 8.2 and Corollary 8.3, or Theorem W) the fibre of θ is its orbit under permutations and "
            "positive scalings")


def _deep_rule(cert: Certificate, net: Network, ledger: _Ledger) -> str:
    if cert.verdict is Verdict.NO_HIDDEN:
        three = len(net.hidden_widths) == 3 and 2 <= net.input_dim and net.hidden_widths[1] < net.input_dim
        return (_three_layer_rule if three else _two_layer_rule)(net, ledger)
    if cert.verdict is Verdict.UNKNOWN:
        return "no verdict is claimed (unknown): nothing to derive"
    if cert.witness is None:
        raise _Rejected("a hidden-symmetry verdict needs a witness network")
    start = len(ledger.budget.searches)
    try:
        mech = _deep.construction(net, cert.witness.network, cert.witness.mechanism, ledger.budget)
    except WorkLimit as e:
        raise _Rejected(f"the witness is not re-verified: {e.reason}") from None
    except CheckFailed as e:
        raise _Rejected(f"witness rejected: {e.reason}") from None
    if mech.premise is not None:
        proofs = [c for c in ledger.verified(*_deep.PREMISE_KINDS) if _deep.premise_of(c) == mech.premise]
        if not proofs:
            raise _Rejected(f"the witness {mech.what}, which keeps the function only if {mech.premise_text}; "
                            "the certificate gives no verified proof of that")
        ledger.use(proofs[0])
    else:   # the construction recomputed its identity itself; a claim stating it is shown as used
        for c in ledger.verified(*_deep.IDENTITY_KINDS):
            if _deep.premise_of(c) == mech.key:
                ledger.use(c)
    for claim in cert.claims:
        if claim.kind == ClaimKind.DEEP_WITNESS and ledger.done[claim.id].status is ClaimStatus.INFORMATION:
            ledger.use(claim)
    return _searched(f"explicit witness: θ′ {mech.what}" + (f", and {mech.premise_text} (verified)" if mech.premise
                                                             else "") + "; θ′ lies outside the orbit of θ",
                     ledger.budget.searches[start:])


def _witness_verifier(cert: Certificate):
    """The shallow ``witness`` claim speaks of the certificate's witness network: θ′ is in the fibre, not the orbit."""

    def verify(evidence, ctx: Context) -> str:
        if cert.witness is None:
            raise CheckFailed(ctx.claim_id, "the claim speaks of a witness θ′, and the certificate has none")
        try:
            return _shallow.verify_shallow_witness(ctx.theta, cert.witness.network.shallow())
        except (ValueError, ReluidError) as e:
            raise CheckFailed(ctx.claim_id, str(e)) from None

    return verify


# ---------------------------------------------------------------------------
# the entry point
# ---------------------------------------------------------------------------

def check_certificate(cert: Certificate, network: Network | None = None, *,
                      work_limit: int = WORK_LIMIT) -> CheckReport:
    """Re-verify ``cert`` against ``network`` (or the embedded copy) with the checker's own rules.

    ``work_limit`` bounds the work all claims together may ask for (steps of the
    checker's longest loops); a claim past it is reported as not re-verified and
    nothing is taken from it.
    """
    budget = Budget(work_limit)
    ledger = _Ledger(cert, budget)
    net = network if network is not None else cert.network
    if net is None:
        return ledger.report(False, "", "no network: pass --network or embed it in the certificate")
    if net.sha256() != cert.network_sha256:
        return ledger.report(False, "", "the network's SHA-256 does not match the certificate")
    if tuple(net.architecture) != tuple(cert.architecture):
        return ledger.report(False, "", f"architecture {net.architecture} does not match {cert.architecture}")
    if network is not None and cert.network is not None and cert.network != network:
        return ledger.report(False, "", "the embedded network differs from the one given")
    ids = [c.id for c in cert.claims]
    if len(set(ids)) != len(ids):
        return ledger.report(False, "", "duplicate claim ids")
    for claim in cert.claims:          # every claim is verified as the statement it makes
        verifier = VERIFIERS.get(str(claim.kind))
        if claim.kind == ClaimKind.WITNESS:
            verifier = _witness_verifier(cert)
        if verifier is None:
            ledger.mark(claim, ClaimStatus.NOT_REVERIFIED,
                        "a claim of a kind the checker does not know: nothing is taken from it")
            continue
        start = len(budget.searches)
        try:
            ledger.mark(claim, ClaimStatus.INFORMATION,
                        _searched(_verify(claim, net, verifier, budget), budget.searches[start:]))
        except WorkLimit as e:
            ledger.mark(claim, ClaimStatus.NOT_REVERIFIED, f"{e.reason}: nothing is taken from it", over_limit=True)
        except CheckFailed as e:
            ledger.mark(claim, ClaimStatus.FAILED, e.reason)
            return ledger.report(False, "", f"claim {claim.id} ({claim.kind}) is false: {e.reason}")
    try:
        rule = (_affine_rule if net.depth == 1 else _shallow_rule if net.is_shallow else _deep_rule)(cert, net, ledger)
    except _Rejected as r:
        return ledger.report(False, "", r.reason)
    return ledger.report(True, rule)
