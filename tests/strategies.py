"""Seeded generators shared by property tests (style practice 13)."""

from __future__ import annotations

import random
from fractions import Fraction

from reluid.model.network import Shallow
from reluid.model.symmetry import GroupElement


def small_int(rng, lo=-5, hi=5, nonzero=False):
    while True:
        x = rng.randint(lo, hi)
        if x or not nonzero:
            return Fraction(x)


def random_shallow(rng: random.Random, m: int, n: int, k: int = 1, lo=-5, hi=5, nonzero=True) -> Shallow:
    """Small-integer θ; with nonzero=True every m_i and a_i is nonzero."""
    while True:
        A = [[small_int(rng, lo, hi) for _ in range(m)] for _ in range(n)]
        if nonzero and any(not any(r) for r in A):
            continue
        b = [small_int(rng, lo, hi) for _ in range(n)]
        M = [[small_int(rng, lo, hi, nonzero) for _ in range(n)] for _ in range(k)]
        c = [small_int(rng, lo, hi) for _ in range(k)]
        return Shallow.make(M, A, b, c, m=m)


def random_generic(rng, m, n, k=1, lo=-5, hi=5) -> Shallow:
    """θ on the generic stratum: m_i ≠ 0, a_i ≠ 0, rows pairwise independent."""
    from reluid.analysis.shallow.function import canonical_row
    while True:
        t = random_shallow(rng, m, n, k, lo, hi)
        rows = {canonical_row(t.A[i], t.b[i])[0] for i in range(n)}
        if len(rows) == n and all(any(t.out(i)) for i in range(n)):
            return t


def random_group_element(rng, n: int) -> GroupElement:
    perm = list(range(n))
    rng.shuffle(perm)
    return GroupElement(tuple(perm), tuple(Fraction(rng.randint(1, 9), rng.randint(1, 9)) for _ in range(n)))


def random_input(rng, m: int):
    return tuple(Fraction(rng.randint(-30, 30), rng.randint(1, 8)) for _ in range(m))


def random_deep(rng: random.Random, architecture, dyadic: bool = False):
    """A deep network with small integer weights in [-2, 2] or dyadic ones in [-2, 2] (multiples of 1/4)."""
    from reluid.model.network import Network
    layers = []
    for a, b in zip(architecture, architecture[1:]):
        draw = (lambda: Fraction(rng.randint(-8, 8), 4)) if dyadic else (lambda: Fraction(rng.randint(-2, 2)))
        layers.append(([[draw() for _ in range(a)] for _ in range(b)], [draw() for _ in range(b)]))
    return Network.from_lists(layers)


def random_conditions(rng: random.Random, net, signs=(">0", "<0", ">=0", "<=0")):
    """One to three sign conditions (layer, neuron, sign), biased towards the deeper layers."""
    hidden = net.hidden_widths
    out = []
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        layer = rng.randint(1, len(hidden))
        if rng.random() < 0.5:
            layer = len(hidden) if rng.random() < 0.5 else max(2, layer)
        layer = min(layer, len(hidden))
        out.append((layer, rng.randrange(hidden[layer - 1]), rng.choice(signs)))
    return out
