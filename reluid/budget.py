"""One time budget shared by every phase of a command.

A :class:`Budget` is created once (``reluid certify --timeout S`` makes one of
S seconds) and handed to each phase in turn: mechanism detection, witness
construction, functional dimension, certificate building.  Each phase asks
how much is left, gives up cleanly when nothing is, and says what it did and
what it left undone; running out is never a verdict (the verdict is then
``unknown``).  Times are ``time.monotonic()`` seconds.

>>> b = Budget(None)
>>> b.left() == float("inf") and not b.expired()
True
>>> Budget(10.0).share(0.5) <= 5.0
True
>>> Budget(10.0).share_of("mechanism detection") <= 10.0 * SHARES["mechanism detection"]
True

Each phase's guaranteed share is named in :data:`SHARES`, a fraction of what is
left when the phase starts, so that the cheap, informative phases run first and
are never starved by an expensive one (docs/certificates.md, Time budget).
"""

from __future__ import annotations

import math
import time

__all__ = ["Budget", "SHARES"]

#: The share of what is left that each phase may use, in the order the phases run
#: (reluid.analysis.deep.decide; reluid.api.certify for the reduced network).
SHARES = {
    # deep networks: mechanisms and activity witnesses first: their exact phases may run until this share ...
    "mechanism detection": 0.6,
    # ... of which the Farkas-tree prover's premise questions take at most this share ...
    "premise prover": 0.3,
    # ... then the two-hidden-layer certificate of docs/mathematics.md §8 ...
    "two hidden layers": 0.6,
    # ... then the functional dimension, leaving a quarter for the certificate and its check
    "functional dimension": 0.75,
    # a hidden-symmetry verdict: the exact reduction's prover, then the reduced network's own certificate
    "reduction": 0.25,
    "reduced network": 0.5,
}


class Budget:
    """``seconds`` from now (``None``: unbounded); :meth:`left`, :meth:`expired`, :meth:`fits`, :meth:`share`."""

    __slots__ = ("seconds", "start", "deadline", "log")

    def __init__(self, seconds: float | None, *, start: float | None = None):
        if seconds is not None and not seconds > 0:
            raise ValueError(f"a time budget must be positive, got {seconds!r}")
        self.seconds = None if seconds is None or math.isinf(seconds) else float(seconds)
        self.start = time.monotonic() if start is None else start
        self.deadline = math.inf if self.seconds is None else self.start + self.seconds
        #: (phase, seconds spent) in order, for reports.
        self.log: list[tuple[str, float]] = []

    def left(self) -> float:
        """Seconds left (``inf`` when unbounded; never negative)."""
        return max(0.0, self.deadline - time.monotonic())

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def fits(self, estimate: float) -> bool:
        """Whether work estimated at ``estimate`` seconds fits in what is left."""
        return estimate <= self.left()

    def share(self, fraction: float) -> float:
        """``fraction`` of what is left, in seconds (a phase's own limit)."""
        return self.left() * fraction

    def share_of(self, phase: str) -> float:
        """The named share :data:`SHARES` ``[phase]`` of what is left, in seconds (``inf`` when unbounded)."""
        return self.share(SHARES[phase])

    def deadline_of(self, phase: str) -> float | None:
        """``time.monotonic()`` by which ``phase`` stops, from its named share (None when unbounded)."""
        return None if self.seconds is None else time.monotonic() + self.share_of(phase)

    def describe(self) -> str:
        if self.seconds is None:
            return "no time budget"
        return f"time budget {self.seconds:g} s ({self.elapsed():.1f} s used)"
