"""Helpers shared by the subcommands."""

from __future__ import annotations

from reluid.errors import InvalidArgument

__all__ = ["load_network", "positive_float", "write_text"]


def load_network(path):
    from reluid.io import load

    return load(path)


def positive_float(text: str) -> float:
    """argparse type for --timeout: a positive number of seconds."""
    try:
        v = float(text)  # a time budget, not a parameter: float is fine here
    except ValueError:
        raise InvalidArgument(f"not a number: {text!r}") from None
    if not v > 0:
        raise InvalidArgument(f"must be positive: {text!r}")
    return v


def write_text(path, text: str) -> None:
    import os
    d = os.path.dirname(os.fspath(path))
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
