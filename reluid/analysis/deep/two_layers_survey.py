"""How often Theorem 8.2 (docs/mathematics.md §8) applies: a seeded survey of two-hidden-layer networks.

Two distributions of exact rational networks (every draw is an exact rational, so every verdict
is exact):

``glr``
    GLR-style, as in docs/mathematics.md §8.8 and the prototype: A ∈ [−2, 2]^{n1×n0} and
    a ∈ [−1, 1]^{n1} in steps of 1/4; W ∈ [1/4, 3] and w ∈ [−10, −3] in steps of 1/4 (positive
    weights, very negative biases: every layer-2 hyperplane crosses the positive orthant of the
    layer-1 outputs); V ∈ [−2, 2] ∖ {0} in steps of 1/4 (0 replaced by 1), c ∈ [−1, 1].
``iid``
    every weight and bias i.i.d. N(0, 1) rounded to a multiple of 1/16.

Each record: the verdict of :func:`~reluid.analysis.deep.two_layers.analyse_two_layers`, the
theorem that gave it (Theorem 8.2, or Theorem W when 8.2 does not apply), the first hypothesis of
8.2 that fails and what failed in Theorem W, and the exact functional dimension from the cells
(:func:`~reluid.analysis.deep.cells.exact_functional_dimension`, docs/mathematics.md §9).
"""

from __future__ import annotations

import random
import time
from fractions import Fraction

from reluid.analysis.deep.cells import exact_functional_dimension
from reluid.analysis.deep.two_layers import analyse_two_layers
from reluid.model.network import Network

__all__ = ["KINDS", "draw", "record", "survey"]

KINDS = ("glr", "iid")


def draw(arch, kind: str, rng: random.Random) -> Network:
    """One network of the distribution ``kind`` (see the module docstring)."""
    n0, n1, n2, n3 = arch
    if kind == "glr":
        r = lambda lo, hi: Fraction(rng.randint(4 * lo, 4 * hi), 4)
        A = [[r(-2, 2) for _ in range(n0)] for _ in range(n1)]
        a = [r(-1, 1) for _ in range(n1)]
        W = [[Fraction(rng.randint(1, 12), 4) for _ in range(n1)] for _ in range(n2)]
        w = [-Fraction(rng.randint(12, 40), 4) for _ in range(n2)]
        V = [[r(-2, 2) or Fraction(1) for _ in range(n2)] for _ in range(n3)]
        c = [r(-1, 1) for _ in range(n3)]
    elif kind == "iid":
        g = lambda: Fraction(round(rng.gauss(0.0, 1.0) * 16), 16)
        A = [[g() for _ in range(n0)] for _ in range(n1)]
        a = [g() for _ in range(n1)]
        W = [[g() for _ in range(n1)] for _ in range(n2)]
        w = [g() for _ in range(n2)]
        V = [[g() for _ in range(n2)] for _ in range(n3)]
        c = [g() for _ in range(n3)]
    else:
        raise ValueError(f"unknown distribution {kind!r}")
    return Network.from_lists([(A, a), (W, w), (V, c)])


def record(net: Network, *, timeout: float = 60.0) -> dict:
    """The survey's facts about one network (JSON-ready)."""
    t0 = time.perf_counter()
    r = analyse_two_layers(net, timeout=timeout)
    t1 = time.perf_counter()
    fd = exact_functional_dimension(net, timeout=timeout)
    pin = r.pinning
    return {"verdict": r.verdict.value, "first_failure": r.first_failure(), "applies": r.applies,
            "theorem": "8.2" if r.applies_82 else "W" if r.applies_w else None,
            "w_failure": None if pin is None or pin.holds else pin.failed,
            "flips": None if r.witness_flips is None else [sorted(F) for F in r.witness_flips],
            "dim_fun": fd.rank, "U": fd.upper_bound, "dim_fun_exact": fd.exact, "cells": fd.cells,
            "seconds_theorem": round(t1 - t0, 3), "seconds_fundim": round(time.perf_counter() - t1, 3)}


def survey(arch, kind: str, count: int, seed: int = 0, *, timeout: float = 60.0):
    """``count`` networks of ``kind`` for ``arch`` (deterministic in ``seed``): (network, record) pairs."""
    rng = random.Random(f"reluid-two-layers-{kind}-{tuple(arch)}-{seed}")
    out = []
    for _ in range(count):
        net = draw(arch, kind, rng)
        out.append((net, record(net, timeout=timeout)))
    return out
