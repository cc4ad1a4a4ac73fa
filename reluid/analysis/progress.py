"""Showing which phase of a long computation is running.

:func:`phases` is a context manager yielding ``phase(name)``; with
``enabled=True``, rich installed and stderr a terminal it shows a transient
status line naming the current phase, otherwise it does nothing.  It never
affects a result.
"""

from __future__ import annotations

import contextlib
import sys

__all__ = ["phases"]


@contextlib.contextmanager
def phases(enabled: bool):
    status = None
    if enabled and sys.stderr.isatty():
        try:
            from rich.console import Console
        except ImportError:  # rich is optional
            Console = None
        if Console is not None:
            status = Console(stderr=True).status("")
            status.start()

    def phase(name: str) -> None:
        if status is not None:
            status.update(f"reluid: {name} …")

    try:
        yield phase
    finally:
        if status is not None:
            status.stop()
