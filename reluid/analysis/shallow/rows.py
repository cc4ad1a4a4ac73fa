"""The shallow algorithms' first passes over θ, vectorised on the integer form of binary floats.

A θ read from float arrays holds [A | b] and [M | c] as integers with one
power of two per row (:class:`~reluid.model.network.ScaledRows`).  The
degenerate strata (docs/mathematics.md §2, §4) are read off those integers
directly: m_i = 0 and a_i = 0 are zero columns and rows, and the canonical row
of (a_i, b_i) is its integer row divided by its gcd, with the sign that makes
the a-part start positive.  Each function returns None when θ has no such form
(or it is held as Python integers), and the caller uses the Fractions.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from reluid.model.network import Shallow

__all__ = ["first_dead_output", "first_constant_neuron", "shared_lines"]


def _hidden(theta: Shallow):
    form = theta.hidden
    return None if form is None or form.array is None else form.array


def first_dead_output(theta: Shallow) -> int | None:
    """The first i with m_i = 0, -1 when there is none, None without an int64 form."""
    form = theta.output
    if form is None or form.array is None:
        return None
    dead = np.flatnonzero(~form.array[:, :theta.n].any(axis=0))
    return int(dead[0]) if dead.size else -1


def first_constant_neuron(theta: Shallow) -> int | None:
    """The first i with a_i = 0, -1 when there is none, None without an int64 form."""
    N = _hidden(theta)
    if N is None:
        return None
    const = np.flatnonzero(~N[:, :theta.m].any(axis=1))
    return int(const[0]) if const.size else -1


def shared_lines(theta: Shallow) -> dict | None:
    """Canonical row r -> [(i, λ_i)] with (a_i, b_i) = λ_i r, for the r of two or more neurons (a_i ≠ 0), or None.

    ``r`` is the primitive integer row whose a-part starts positive
    (:func:`reluid.analysis.shallow.function.canonical_row`).  Rows are first
    grouped by a hash (a fixed random combination, wrapping in int64); only
    rows whose hash recurs are compared exactly, as integer tuples.
    """
    N = _hidden(theta)
    if N is None:
        return None
    m = theta.m
    live = N[:, :m].any(axis=1)
    lead = N[np.arange(N.shape[0]), np.argmax(N[:, :m] != 0, axis=1)] if m else np.zeros(N.shape[0], np.int64)
    g = np.gcd.reduce(N, axis=1) * np.where(lead < 0, -1, 1)
    g[g == 0] = 1
    unit = np.abs(g) == 1
    R = N * g[:, None] if unit.all() else np.where(unit[:, None], N * g[:, None], N // g[:, None])
    weights = np.random.default_rng(0).integers(1, 1 << 62, size=R.shape[1]) | 1
    with np.errstate(over="ignore"):
        h = (R * weights).sum(axis=1)
    h[~live] = 0
    _, inverse, counts = np.unique(h, return_inverse=True, return_counts=True)
    candidates = np.flatnonzero((counts[inverse.reshape(-1)] > 1) & live)
    classes: dict = {}
    two = Fraction(2)
    for i in candidates.tolist():
        classes.setdefault(tuple(R[i].tolist()), []).append((i, int(g[i]) * two ** theta.hidden.shifts[i]))
    return {r: members for r, members in classes.items() if len(members) > 1}
