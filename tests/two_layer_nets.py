"""Two-hidden-layer networks shared by the tests of docs/mathematics.md §8 (analysis, planted cases, forgeries)."""

from __future__ import annotations

from fractions import Fraction as F

from reluid.model.network import Network


def net(A, a, W, w, V, c) -> Network:
    """The network x ↦ V σ(W σ(A x + a) + w) + c."""
    return Network.from_lists([(A, a), (W, w), (V, c)])


def glr(arch, rng) -> Network:
    """GLR-style (docs/mathematics.md §8.8): small rational layer 1, W in [1/4, 3], w in [-10, -3]."""
    n0, n1, n2, n3 = arch
    r = lambda lo, hi: F(rng.randint(4 * lo, 4 * hi), 4)
    return net([[r(-2, 2) for _ in range(n0)] for _ in range(n1)], [r(-1, 1) for _ in range(n1)],
               [[F(rng.randint(1, 12), 4) for _ in range(n1)] for _ in range(n2)],
               [-F(rng.randint(12, 40), 4) for _ in range(n2)],
               [[r(-2, 2) or F(1) for _ in range(n2)] for _ in range(n3)], [r(-1, 1) for _ in range(n3)])


#: H0–H4 hold and neither layer has a flip set: no hidden symmetries (Corollary 8.3)
CERTIFIED = net([[1, 0], [0, 1]], [0, 0], [[1, 2], [2, 1], [1, 1]], [-1, -3, -5], [[1, 1, 1]], [0])
#: Grigsby, Lindsey, Rolnick 2023, Lemma D.15: a layer-2 flip set
D15 = net([[1, 0], [0, 1]], [0, 0], [[2, 1], [1, 2], [-3, -3]], [-6, -8, 13], [[1, 1, 1]], [0])
