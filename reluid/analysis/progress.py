"""Showing which phase of a long computation is running.

:func:`phases` is a context manager yielding ``phase(name, detail=None)``;
with ``enabled=True``, rich installed and stderr a terminal it shows a
transient status line naming the current phase (and, when given, what it is
doing: ``functional dimension: rank 2912/3754, 7 activation regions``),
with the seconds spent so far and the time budget left; otherwise it does
nothing.  ``phase.detail(text)`` updates the detail of the current phase
(a callback for long phases).  It never affects a result.
"""

from __future__ import annotations

import contextlib
import sys
import time

__all__ = ["phases"]


class _Phase:
    def __init__(self, status, budget):
        self.status, self.budget = status, budget
        self.name = ""
        self.t0 = time.monotonic()

    def _show(self, detail: str | None) -> None:
        if self.status is None:
            return
        text = f"reluid: {self.name}" + (f": {detail}" if detail else "") + " …"
        spent = time.monotonic() - self.t0
        tail = f"  [{spent:.0f} s"
        if self.budget is not None and self.budget.seconds is not None:
            tail += f", {self.budget.left():.0f} s of the time budget left"
        self.status.update(text + tail + "]")

    def __call__(self, name: str, detail: str | None = None) -> None:
        self.name = name
        self._show(detail)

    def detail(self, text: str) -> None:
        self._show(text)


@contextlib.contextmanager
def phases(enabled: bool, budget=None):
    status = None
    if enabled and sys.stderr.isatty():
        try:
            from rich.console import Console
        except ImportError:  # rich is optional
            Console = None
        if Console is not None:
            status = Console(stderr=True).status("")
            status.start()
    phase = _Phase(status, budget)
    try:
        yield phase
    finally:
        if status is not None:
            status.stop()
