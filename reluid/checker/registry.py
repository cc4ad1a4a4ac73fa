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

from dataclasses import dataclass, field
from typing import Callable

from reluid.errors import CheckFailed, ReluidError
from reluid.model.network import Network, Shallow

__all__ = ["Context", "Budget", "WorkLimit", "WORK_LIMIT", "STEPS_PER_BYTE", "work_limit_for", "verifies", "VERIFIERS",
           "fail", "charge"]

VERIFIERS: dict[str, Callable] = {}


#: The checker's default work limit over one certificate, in steps of its longest loops
#: (one enumerated point, one meet-in-the-middle sum, one sketched determinant, about a
#: microsecond of Python each at most): about ten seconds of work.  A claim whose
#: re-verification would pass it is not re-verified.
WORK_LIMIT = 2**24
#: Beyond that, the steps one byte of input (certificate and network files) may ask for: a certificate
#: that lists what its proof uses is checked in time linear in its length, and no longer.  Theorem W
#: certificates need 1.7 steps per byte at 64-128-128-10 (x frame: 51 MB of points) and about 12 at
#: 784-128-128-10 (u frame: 7.5 MB, mostly the embedded network, each sign pattern recomputed from it).
STEPS_PER_BYTE = 16


def work_limit_for(nbytes: int) -> int:
    """The default work limit for ``nbytes`` of input: 2^24 steps, or 16 steps per byte when that is more.

    >>> work_limit_for(100_000) == WORK_LIMIT, work_limit_for(50_000_000)
    (True, 800000000)
    """
    return max(WORK_LIMIT, STEPS_PER_BYTE * nbytes)


class WorkLimit(CheckFailed):
    """A claim whose re-verification would pass the certificate's work limit: nothing is taken from it."""


@dataclass(slots=True)
class Budget:
    """The work one certificate may ask of the checker, shared by all its claims.

    Every loop whose length the evidence or the network controls charges its
    length here before it starts, so a small certificate cannot make the
    checker run for hours: the claim is reported as not re-verified instead.
    """

    limit: int = WORK_LIMIT
    used: int = 0
    #: what the checker searched exhaustively, in order (:func:`reluid.checker.search.searched`)
    searches: list[str] = field(default_factory=list)
    #: results of this certificate's check that two of its claims share (functional dimension and local
    #: identifiability rest on one rank), keyed by the evidence they were computed from
    shared: dict = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Context:
    """What a verifier may look at: the network under check (and its shallow view), and the work budget."""

    network: Network
    claim_id: str = ""
    budget: Budget = field(default_factory=Budget)

    @property
    def theta(self) -> Shallow:
        """The shallow view of the network; the claim fails when the network has not one hidden layer."""
        try:
            return self.network.shallow()
        except ReluidError as e:
            raise CheckFailed(self.claim_id or "claim", f"a claim about networks with one hidden layer ({e})") \
                from None


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


def charge(ctx: Context, steps: int, what: str) -> None:
    """Take ``steps`` from the certificate's work budget before a loop of that length, or raise WorkLimit."""
    b = ctx.budget
    if b.used + steps > b.limit:
        raise WorkLimit(ctx.claim_id or "claim",
                        f"{what} takes {steps:,} steps, past the checker's work limit ({b.limit:,} steps per "
                        f"certificate, {b.used:,} used; reluid check --work-limit raises it)")
    b.used += steps
