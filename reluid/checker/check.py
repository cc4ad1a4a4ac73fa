"""``reluid check``: re-verify a certificate without z3 or the search code.

The checker re-derives the problem from the network (given separately or
embedded), confirms the hash and architecture, re-verifies every claim with
its registered verifier, checks that the claims present actually support the
verdict, and re-verifies the witness network of a hidden symmetry exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from reluid.certificates.schema import Certificate, ClaimKind, network_from_dict, thaw
from reluid.checker import deep as _deep  # noqa: F401  (registers verifiers)
from reluid.checker import flipsets as _flipsets  # noqa: F401
from reluid.checker import patterns as _patterns  # noqa: F401
from reluid.checker import shallow as _shallow
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed, ReluidError
from reluid.model.network import Network
from reluid.verdicts import Trust, Verdict

__all__ = ["ClaimCheck", "CheckReport", "check_certificate", "SHALLOW_SUPPORT"]

# sets of verdict-claim kinds that together establish "no hidden symmetries" for a shallow network
SHALLOW_SUPPORT = (
    frozenset({ClaimKind.EMPTY}),
    frozenset({ClaimKind.GENERIC_STRATUM, ClaimKind.NO_FLIP_SET}),
    frozenset({ClaimKind.ESSENTIAL_STRATUM, ClaimKind.NO_OTHER_PATTERN}),
)


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    id: str
    kind: str
    status: str          # "verified" | "rests-on-solver" | "information" | "failed"
    message: str


@dataclass(frozen=True, slots=True)
class CheckReport:
    valid: bool
    verdict: Verdict
    claims: tuple[ClaimCheck, ...]
    reason: str = ""
    rests_on_solver: bool = False

    @property
    def exit_code(self) -> int:
        return 0 if self.valid else 1


DEEP_PREMISES = frozenset({ClaimKind.DEEP_DEAD_NEURON, ClaimKind.DEEP_ALWAYS_ACTIVE, ClaimKind.DEEP_NEVER_COACTIVE,
                           ClaimKind.DEEP_LAYER_FLIP, ClaimKind.DEEP_ZERO_OUTGOING, ClaimKind.DEEP_PROPORTIONAL})


def _deep_hidden_support(cert: Certificate, verified_kinds) -> str:
    """Why a deep hidden-symmetry verdict is not supported ('' when it is)."""
    if ClaimKind.DEEP_WITNESS not in verified_kinds or not DEEP_PREMISES & verified_kinds:
        return "deep hidden-symmetry verdict without a verified mechanism premise and witness claim"
    for c in cert.claims:
        if c.kind == ClaimKind.DEEP_WITNESS and c.role == "verdict":
            try:
                claimed = network_from_dict(thaw(c.evidence.get("network")), "deep-witness network")
            except ReluidError as e:
                return str(e)
            if claimed != cert.witness.network:
                return "the witness network differs from the one the deep-witness claim verified"
    return ""


def _reject(cert, checks, reason) -> CheckReport:
    return CheckReport(False, cert.verdict, tuple(checks), reason)


def check_certificate(cert: Certificate, network: Network | None = None) -> CheckReport:
    """Re-verify ``cert`` against ``network`` (or the embedded copy)."""
    checks: list[ClaimCheck] = []
    net = network if network is not None else cert.network
    if net is None:
        return _reject(cert, checks, "no network: pass --network or embed it in the certificate")
    if net.sha256() != cert.network_sha256:
        return _reject(cert, checks, "the network's SHA-256 does not match the certificate")
    if tuple(net.architecture) != tuple(cert.architecture):
        return _reject(cert, checks, f"architecture {net.architecture} does not match {cert.architecture}")
    if network is not None and cert.network is not None and cert.network != network:
        return _reject(cert, checks, "the embedded network differs from the one given")
    ids = [c.id for c in cert.claims]
    if len(set(ids)) != len(ids):
        return _reject(cert, checks, "duplicate claim ids")
    solver_used = False
    verified_kinds = set()
    for claim in cert.claims:
        verifier = VERIFIERS.get(claim.kind)
        if verifier is None:
            if claim.role == "verdict":
                checks.append(ClaimCheck(claim.id, claim.kind, "failed", "no verifier for this claim kind"))
                return _reject(cert, checks, f"claim {claim.id}: unknown kind {claim.kind!r}")
            checks.append(ClaimCheck(claim.id, claim.kind, "information", "not re-verified (unknown kind)"))
            continue
        try:
            msg = verifier(claim.evidence, Context(net, claim.id, claim.trust is Trust.SOLVER))
        except CheckFailed as e:
            checks.append(ClaimCheck(claim.id, claim.kind, "failed", e.reason))
            return _reject(cert, checks, f"claim {claim.id} ({claim.kind}) failed: {e.reason}")
        except (ReluidError, KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, AttributeError) as e:
            checks.append(ClaimCheck(claim.id, claim.kind, "failed", f"malformed evidence ({type(e).__name__}: {e})"))
            return _reject(cert, checks, f"claim {claim.id} ({claim.kind}) has malformed evidence")
        if claim.trust is Trust.SOLVER:
            solver_used = solver_used or claim.role == "verdict"
            s = claim.solver or {}
            msg = f"{msg}; rests on {s.get('name', 'solver')} {s.get('version', '')} (seed {s.get('seed')})"
            status = "rests-on-solver"
        else:
            status = "verified" if claim.role == "verdict" else "information"
        checks.append(ClaimCheck(claim.id, claim.kind, status, msg))
        if claim.role == "verdict":
            verified_kinds.add(claim.kind)
    verdict = cert.verdict
    if verdict is Verdict.HIDDEN:
        if cert.witness is None:
            return _reject(cert, checks, "hidden-symmetry verdict without a witness")
        if net.is_shallow:
            if ClaimKind.WITNESS not in verified_kinds:
                return _reject(cert, checks, "hidden-symmetry verdict without a witness claim")
            try:
                msg = _shallow.verify_shallow_witness(net.shallow(), cert.witness.network.shallow())
            except (ValueError, ReluidError) as e:
                checks.append(ClaimCheck("witness", "witness", "failed", str(e)))
                return _reject(cert, checks, f"witness rejected: {e}")
            checks.append(ClaimCheck("witness-network", "witness", "verified", msg))
        else:
            reason = _deep_hidden_support(cert, verified_kinds)
            if reason:
                return _reject(cert, checks, reason)
    elif verdict is Verdict.NO_HIDDEN:
        if not net.is_shallow:
            return _reject(cert, checks, "reluid never certifies the absence of hidden symmetries of a deep network")
        if not any(req <= verified_kinds for req in SHALLOW_SUPPORT):
            return _reject(cert, checks, "the claims present do not establish the verdict "
                                         f"(verified kinds: {sorted(verified_kinds)})")
    return CheckReport(True, verdict, tuple(checks), cert.reason or "", solver_used)
