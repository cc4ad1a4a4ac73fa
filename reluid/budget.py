"""One time budget shared by every phase of a command.

A :class:`Budget` is created once (``reluid certify --timeout S`` makes one of
S seconds) and handed to each phase in turn: mechanism detection, witness
construction, functional dimension, certificate building.  Each phase asks
how much is left, gives up cleanly when nothing is, and says what it did and
what it left undone; running out is never a verdict (the verdict is then
``unknown``).  Times are ``time.monotonic()`` seconds.

Memory is capped too, once per process: :func:`memory_cap_gb` is the cap in
GB (``reluid certify --memory-gb G``, else the environment variable
``RELUID_MEMORY_GB``, else half of the machine's physical memory).  Every
phase whose working set grows with the input estimates it *before* allocating
and declines (an ``unknown`` with its reason) when the estimate exceeds
:func:`memory_left_gb`; :func:`enforce_memory_cap` also sets the data-segment
limit (``resource.RLIMIT_DATA``) a little above the cap, as a backstop for an
estimate that is too low (the allocation then fails with ``MemoryError``
instead of exhausting the machine).

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
import os
import time

__all__ = ["Budget", "SHARES", "MIN_SECONDS", "SLACK_SECONDS", "load_slowdown", "memory_cap_gb", "memory_left_gb", "set_memory_cap", "enforce_memory_cap", "machine_memory_gb",
           "resident_gb", "DEFAULT_MEMORY_FRACTION"]

#: The share of what is left that each phase may use, in the order the phases run
#: (reluid.analysis.deep.decide; reluid.api.certify for the reduced network).
SHARES = {
    # deep networks: mechanisms and activity witnesses first: their exact phases may run until this share ...
    "mechanism detection": 0.6,
    # ... of which the Farkas-tree prover's premise questions take at most this share ...
    "premise prover": 0.3,
    # ... then the two-hidden-layer certificate of docs/mathematics.md §8 and §10 (the verdict rests on it; the
    # functional dimension after it is information only) ...
    "two hidden layers": 0.8,
    # ... or, at three hidden layers, the certificate of docs/mathematics.md §12.11 (clash points, Corollary 12.15)
    "three hidden layers": 0.8,
    # ... within which Theorem 8.2's enumeration takes at most this share, leaving the rest to Theorem W ...
    "theorem 8.2": 0.5,
    # ... and of what Theorem W has, its first try (the sign tree's regions) this share when the LP-guided
    # search of the x frame may follow (reluid.analysis.deep.two_layers) ...
    "theorem w first try": 0.5,
    # ... then the functional dimension, leaving a quarter for the certificate and its check
    "functional dimension": 0.75,
    # a hidden-symmetry verdict: the exact reduction's prover, then the reduced network's own certificate
    "reduction": 0.25,
    "reduced network": 0.5,
}

#: Less time left than this (seconds) is none at all: a phase, query or solver call does not start.
MIN_SECONDS = 0.05

#: What a command may run past its budget (seconds, on top of 10 % of the budget): the interpreter's
#: start and imports before the budget exists, writing the certificate and the report after it, and one
#: exact step that cannot be interrupted (a flint elimination, started only when its cost model says it
#: ends before the deadline).  ``reluid certify --timeout S`` ends within about 1.1 S + SLACK_SECONDS of
#: wall time (docs/certificates.md, Time budget).
SLACK_SECONDS = 5.0


def load_slowdown() -> float:
    """Wall seconds one CPU second is expected to take now: the 1-minute load average per core, at least 1.

    The cost models count CPU seconds and deadlines are wall time; on a loaded machine one is stretched into
    the other before a process has run long enough to measure it itself.
    """
    try:
        load = os.getloadavg()[0]
        cores = os.cpu_count() or 1
    except (OSError, AttributeError):  # pragma: no cover - not POSIX
        return 1.0
    return max(1.0, load / cores)


#: The default cap is this fraction of the machine's physical memory.
DEFAULT_MEMORY_FRACTION = 0.5
_cap: float | None = None


def machine_memory_gb() -> float:
    """Physical memory of the machine in GB (``inf`` where the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return math.inf


def memory_cap_gb() -> float:
    """The memory cap of this process in GB: :func:`set_memory_cap`, else ``RELUID_MEMORY_GB``, else half the RAM."""
    if _cap is not None:
        return _cap
    env = os.environ.get("RELUID_MEMORY_GB")
    if env:
        try:
            v = float(env)
        except ValueError:
            v = 0.0
        if v > 0 and not math.isinf(v):
            return v
    return DEFAULT_MEMORY_FRACTION * machine_memory_gb()


def set_memory_cap(gb: float | None) -> None:
    """Set (``None``: reset to the default) the cap every phase's estimates are compared with."""
    global _cap
    if gb is not None and not (gb > 0 and not math.isinf(gb)):
        raise ValueError(f"a memory cap must be a positive number of GB, got {gb!r}")
    _cap = None if gb is None else float(gb)


def resident_gb() -> float:
    """Resident memory of this process now, in GB (0 where the platform does not say)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e9
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return 0.0


def memory_left_gb() -> float:
    """The cap less what this process already holds: what a phase may still allocate."""
    return max(0.0, memory_cap_gb() - resident_gb())


def enforce_memory_cap(gb: float | None = None, *, margin_gb: float = 0.5) -> bool:
    """Set the cap and limit the data segment to cap + margin (a backstop; returns whether the limit was set).

    Only the command-line front end calls this (a library caller keeps its own process limits).
    """
    if gb is not None:
        set_memory_cap(gb)
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return False
    limit = int((memory_cap_gb() + margin_gb) * 1e9)
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ValueError, OSError):  # pragma: no cover - refused by the platform
        return False
    return True


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
