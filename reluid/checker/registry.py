"""Registry of evidence verifiers, keyed by claim kind.

Each checker module registers the kinds it can re-verify with
:func:`verifies`.  A verifier has the signature ``verify(evidence, ctx)``
where ``evidence`` is the claim's read-only evidence mapping and ``ctx`` a
:class:`Context`; it returns a short human-readable summary of what it
checked, and raises :class:`reluid.errors.CheckFailed` on any inconsistency.
Verifiers re-derive what they need from the network itself and never trust a
value in the certificate that they can recompute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from reluid.errors import CheckFailed
from reluid.model.network import Network, Shallow

__all__ = ["Context", "verifies", "VERIFIERS", "fail"]

VERIFIERS: dict[str, Callable] = {}


@dataclass(frozen=True, slots=True)
class Context:
    """What a verifier may look at: the network under check (and its shallow view)."""

    network: Network
    claim_id: str = ""

    @property
    def theta(self) -> Shallow:
        return self.network.shallow()


def verifies(kind: str):
    """Register ``fn`` as the verifier of claims of ``kind``."""

    def deco(fn):
        if str(kind) in VERIFIERS:
            raise RuntimeError(f"two verifiers for claim kind {kind!r}")
        VERIFIERS[str(kind)] = fn
        return fn

    return deco


def fail(ctx: Context, reason: str):
    raise CheckFailed(ctx.claim_id or "claim", reason)
