"""Progress of long computations: one bar across every phase.

The analyses say where they are with :func:`report` (a phase name and, when
they know it, the fraction of that phase done); nothing else is needed, and
without an active :class:`Tracker` a report costs one context-variable look-up.
Whoever runs the work (``reluid.api``, the command line through it) opens a
:class:`Tracker` and divides the bar into **stages** of named **steps**::

    with progress_bar(True) as bar:                     # a rich bar on a terminal, else silent
        with bar.stage("audit", ["a.json", "b.json"]):
            bar.step("a.json")
            ...                                         # analyses call report("flip-set search", 0.4)

A stage takes the range of the step it is opened in (the whole bar at the top)
and splits it equally among its steps.  A report whose phase names a step of
the innermost stage moves there; any other phase is shown as the detail of the
current step, its fraction placing the bar inside that step.  The position
never moves back.  Progress never affects a result.

:func:`phases` is the older interface: ``phase(name, detail=None)`` for each
phase of a computation and ``phase.detail(text)`` for what a long phase is
doing (``functional dimension: rank 2912/3754, 7 activation regions``), with
the time budget left when one is given; its phases are reports like any other.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from dataclasses import dataclass, field
from typing import Callable, Sequence

__all__ = ["report", "current", "Tracker", "progress_bar", "phases"]

_CURRENT: contextvars.ContextVar = contextvars.ContextVar("reluid_progress", default=None)


def report(phase: str, fraction: float | None = None) -> None:
    """Tell the active tracker (if any) that ``phase`` is running, ``fraction`` of it done."""
    t = _CURRENT.get()
    if t is not None:
        t.report(phase, fraction)


def current() -> "Tracker | None":
    """The innermost active tracker, or None."""
    return _CURRENT.get()


@dataclass
class _Stage:
    label: str
    steps: list[str]
    lo: float
    hi: float
    index: int = -1            # -1: before its first step
    fraction: float = 0.0      # of the current step
    detail: str = ""

    def width(self) -> float:
        return (self.hi - self.lo) / max(1, len(self.steps))

    def step_range(self) -> tuple[float, float]:
        i = max(self.index, 0)
        w = self.width()
        return self.lo + i * w, self.lo + (i + 1) * w

    def name(self) -> str:
        return self.steps[self.index] if 0 <= self.index < len(self.steps) else ""


@dataclass
class Tracker:
    """Where a computation is: nested stages of steps, a description and a position in [0, 1].

    ``sink(description, position)`` is called on every change (a bar, a log,
    a test's list); ``close()`` (or leaving the ``with`` block) finishes it.
    """

    sink: Callable[[str, float], None] | None = None
    on_close: Callable[[], None] | None = None
    position: float = 0.0
    description: str = ""
    _stages: list[_Stage] = field(default_factory=list)
    _token: object = None

    # ---- installation ----------------------------------------------------
    def __enter__(self) -> "Tracker":
        self._token = _CURRENT.set(self)
        return self

    def __exit__(self, *exc) -> None:
        if self._token is not None:
            _CURRENT.reset(self._token)
            self._token = None
        self.close()

    def close(self) -> None:
        if self.on_close is not None:
            done, self.on_close = self.on_close, None
            done()

    # ---- structure -------------------------------------------------------
    @contextlib.contextmanager
    def stage(self, label: str, steps: Sequence[str] | int):
        """Split the current step's range among ``steps`` (names, or a count)."""
        names = [str(s) for s in steps] if not isinstance(steps, int) else [f"{i + 1}/{steps}" for i in
                                                                              range(steps)]
        lo, hi = self._stages[-1].step_range() if self._stages else (0.0, 1.0)
        st = _Stage(label, names, lo, hi)
        self._stages.append(st)
        try:
            yield self
        finally:
            self._stages.remove(st)
            self._move(hi)

    def step(self, name: str | None = None, *, index: int | None = None) -> None:
        """Start step ``name`` (or number ``index``, from 0, or the next one) of the innermost stage."""
        if not self._stages:
            return
        st = self._stages[-1]
        start = max(st.index, 0)
        if index is not None:
            st.index = max(st.index, min(int(index), len(st.steps) - 1))
        elif name is not None and start + 1 < len(st.steps) and st.steps[start + 1] == name:
            st.index = start + 1
        elif name is not None and name in st.steps[start:]:
            st.index = st.steps.index(name, start)
        else:
            st.index = min(st.index + 1, len(st.steps) - 1)
        st.fraction, st.detail = 0.0, ""
        self._update()

    def report(self, phase: str, fraction: float | None = None) -> None:
        """A phase is running (``fraction`` of it done, when known)."""
        if not self._stages:
            self.description = phase
            if fraction is not None:
                self._move(_clamp(fraction))
            self._emit()
            return
        st = self._stages[-1]
        if phase in st.steps[max(st.index, 0):] and phase != st.name():
            self.step(phase)
        elif phase != st.name():
            st.detail = phase
        if fraction is not None:
            st.fraction = _clamp(fraction)
        self._update()

    # ---- display ---------------------------------------------------------
    def _update(self) -> None:
        st = self._stages[-1]
        lo, hi = st.step_range()
        self._move(lo + st.fraction * (hi - lo))

    def _move(self, pos: float) -> None:
        self.position = max(self.position, min(1.0, pos))
        parts = []
        for s in self._stages:
            if s.label:
                parts.append(s.label)
            if s.name():
                parts.append(s.name())
        if self._stages and self._stages[-1].detail:
            parts.append(self._stages[-1].detail)
        if parts:
            self.description = " › ".join(parts)
        self._emit()

    def _emit(self) -> None:
        if self.sink is not None:
            self.sink(self.description, self.position)


def _clamp(x) -> float:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if not x > 0 else 1.0 if x > 1 else x


def _rich_sink(stream, force: bool):
    """A rich bar on ``stream`` (one line, transient), or None when rich is missing."""
    try:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
    except ImportError:  # rich is optional
        return None
    console = Console(file=stream, force_terminal=True if force else None)
    bar = Progress(TextColumn("[bold]reluid[/bold]"), BarColumn(bar_width=24), TaskProgressColumn(),
                   TimeElapsedColumn(), TextColumn("{task.description}", markup=False), console=console,
                   transient=True)
    task = bar.add_task("", total=1000)
    bar.start()

    def sink(description: str, position: float) -> None:
        bar.update(task, completed=int(round(position * 1000)),
                   description=_fit(description, max(20, console.width - 44)))   # on the bar's line

    return sink, bar.stop


def _fit(description: str, room: int) -> str:
    """The description in ``room`` characters: the first step and the last ones, "…" between, then cut."""
    head, *rest = description.split(" › ")
    shown = [head, *rest]
    while len(" › ".join(shown)) > room and len(rest) > 1:
        rest = rest[1:]
        shown = [head, "…", *rest]
    text = " › ".join(shown)
    if len(text) > room and rest:            # shorten the first step, keep the last one whole
        tail = " › ".join(shown[1:])
        keep = room - len(tail) - 4
        text = (head[:keep] + "… › " + tail) if keep >= 8 else text
    return text if len(text) <= room else text[:room - 1] + "…"


def progress_bar(enabled: bool, *, stream=None, force: bool = False) -> Tracker:
    """A tracker shown as one rich bar on stderr when ``enabled`` and stderr is a terminal, else silent.

    ``stream`` replaces stderr, ``force`` shows the bar even when it is not a
    terminal (for tests).  Use it as a context manager: it becomes the tracker
    the analyses report to, and the bar disappears when it closes.
    """
    if enabled:
        out = stream if stream is not None else sys.stderr
        if force or (hasattr(out, "isatty") and out.isatty()):
            got = _rich_sink(out, force)
            if got is not None:
                sink, stop = got
                return Tracker(sink=sink, on_close=stop)
            _say_no_rich(out)
    return Tracker()


_NO_RICH_SAID = False
#: Said once per process when a bar was asked for and rich is missing.
NO_RICH = "reluid: progress needs the optional package rich (pip install rich); no progress is shown"


def _say_no_rich(out) -> None:
    global _NO_RICH_SAID
    if not _NO_RICH_SAID:
        _NO_RICH_SAID = True
        try:
            print(NO_RICH, file=out)
        except (OSError, ValueError):  # pragma: no cover - a closed stream
            pass


class _Phase:
    """The ``phase`` of :func:`phases`: ``phase(name, detail=None)`` and ``phase.detail(text)``."""

    def __init__(self, budget):
        self.budget = budget
        self.name = ""

    def _extra(self, detail: str | None) -> str:
        parts = [detail] if detail else []
        if self.budget is not None and self.budget.seconds is not None:
            parts.append(f"{self.budget.left():.0f} s of the time budget left")
        return ", ".join(parts)

    def __call__(self, name: str, detail: str | None = None) -> None:
        self.name = name
        report(name)
        extra = self._extra(detail)
        if extra:
            report(f"{name}: {extra}")

    def detail(self, text: str) -> None:
        report(f"{self.name}: {self._extra(text)}" if self.name else self._extra(text))


@contextlib.contextmanager
def phases(enabled: bool, budget=None):
    """``phase(name)`` reports each phase; with ``enabled`` and no tracker active, a bar of its own shows them."""
    own = progress_bar(True) if enabled and current() is None else None
    if own is not None:
        own.__enter__()
    phase = _Phase(budget)
    try:
        yield phase
    finally:
        if own is not None:
            own.__exit__(None, None, None)
