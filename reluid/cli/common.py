"""Helpers shared by the subcommands."""

from __future__ import annotations

__all__ = ["load_network", "positive_float", "positive_int", "write_text"]


def load_network(path):
    from reluid.api import load

    return load(path)


def positive_float(text: str) -> float:
    """argparse type for --timeout: a positive number of seconds (a budget, not a parameter)."""
    import argparse
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return v


def positive_int(text: str) -> int:
    """argparse type for counts: a positive integer."""
    import argparse
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return v


def write_text(path, text: str) -> None:
    import os
    d = os.path.dirname(os.fspath(path))
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
