"""Cover trees for H4 (docs/mathematics.md §8.3, Lemma 8.13): the certificate the checker verifies instead of
re-running the cover search (:mod:`reluid.checker.cover_trees` is the verifier).

For every nonempty I ⊆ [n1] that Lemma 10.12(b)'s count leaves open (every j ∈ I has at most |I| flats), a
branch-and-bound tree proves that no |I| blocks and singletons cover U_I.  A node (U, r) is closed by a
fractional packing y (y ≥ 0, at most 1 on every block and every flat, Σ y > r), tried in this order:

* r = 0 (nothing left to cover with: the empty packing);
* the uniform y = 1/m, m the largest block within U (or 1): it closes when |U| > r·m;
* y = 1 on the flats of U on one H_j, when there are more than r (a block holds at most one of them);
* a linear program max Σ y (scipy, optional), rounded to rationals, scaled into the constraints and
  re-verified exactly;

and otherwise branches on the flat x of U with the fewest family members through it (one child per
distinct b ∩ U ∋ x with at least two flats, sorted; {x} when there is none).  Nodes are tuples:
``("y", q)`` (uniform), ``("y", ((t, y_t), ...))``, ``("split", t, (child, ...))``; t indexes the flats.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

__all__ = ["open_sets", "cover_trees", "Limit"]

ONE = Fraction(1)


class Limit(Exception):
    """The trees would pass the node limit."""


def open_sets(neurons, n1: int) -> list[tuple[int, ...]]:
    """The nonempty I ⊆ [n1] not settled by the count (every j ∈ I has at most |I| flats), by size then
    lexicographic: the order of the certificate (``neurons[t]`` is the H_j of flat t)."""
    counts = [sum(1 for j in neurons if j == i) for i in range(n1)]
    return [I for r in range(1, n1 + 1) for I in combinations(range(n1), r) if max(counts[j] for j in I) <= r]


def cover_trees(neurons, blocks, n1: int, max_nodes: int = 200_000, tick=None, lp: bool = True):
    """One tree per open set I, as ``(I, tree)`` pairs; None if some U_I has a cover (H4 fails).  ``blocks``
    must be the checker's: the flats on each hyperplane through two flats that is no H_i.  Raises
    :class:`Limit` past ``max_nodes`` nodes; ``tick`` is called per node (a deadline may raise there)."""
    budget = [max_nodes]
    out = []
    for I in open_sets(neurons, n1):
        U = frozenset(t for t, j in enumerate(neurons) if j in I)
        tree = _node(U, len(I), blocks, neurons, budget, tick, lp)
        if tree is None:
            return None
        out.append((I, tree))
    return tuple(out)


def _family(x, U, blocks) -> list[frozenset]:
    return sorted({b & U for b in blocks if x in b and len(b & U) >= 2}, key=sorted) or [frozenset([x])]


def _node(U, r, blocks, neurons, budget, tick, lp):
    if not U:
        return None                                   # a cover
    budget[0] -= 1
    if budget[0] < 0:
        raise Limit("the H4 cover trees pass their node limit")
    if tick is not None:
        tick()
    leaf = _bound(U, r, [b & U for b in blocks if len(b & U) >= 2], neurons, lp)
    if leaf is not None:
        return leaf
    x = min(sorted(U), key=lambda t: len(_family(t, U, blocks)))
    kids = []
    for S in _family(x, U, blocks):
        kid = _node(U - S, r - 1, blocks, neurons, budget, tick, lp)
        if kid is None:
            return None
        kids.append(kid)
    return ("split", x, tuple(kids))


def _bound(U, r, within, neurons, lp):
    """A packing leaf closing (U, r), or None (``within``: the blocks restricted to U, two flats or more)."""
    if r == 0:
        return ("y", ())
    m = max((len(b) for b in within), default=1)
    if len(U) > r * m:
        return ("y", Fraction(1, m))
    for j in sorted({neurons[t] for t in U}):
        on = sorted(t for t in U if neurons[t] == j)
        if len(on) > r and _valid(dict.fromkeys(on, ONE), within, r):
            return ("y", tuple((t, ONE) for t in on))
    return _lp_bound(U, r, within) if lp else None


def _valid(y, within, r) -> bool:
    return all(sum(y.get(t, 0) for t in b) <= 1 for b in within) and sum(y.values()) > r


def _lp_bound(U, r, within):
    """max Σ y subject to the block rows, 0 ≤ y ≤ 1, by scipy's HiGHS in floats; rounded, scaled, re-verified."""
    try:
        from scipy.optimize import linprog
    except ImportError:
        return None
    els = sorted(U)
    if not within:
        return None
    pos = {t: i for i, t in enumerate(els)}
    A = [[0.0] * len(els) for _ in within]
    for row, b in zip(A, within):
        for t in b:
            row[pos[t]] = 1.0
    res = linprog([-1.0] * len(els), A_ub=A, b_ub=[1.0] * len(within), bounds=[(0, 1)] * len(els),
                  method="highs")
    if res.status != 0 or -res.fun <= r + 1e-9:
        return None
    y = {t: min(ONE, max(Fraction(0), Fraction(float(v)).limit_denominator(1000))) for t, v in zip(els, res.x)}
    worst = max([sum(y[t] for t in b) for b in within] + [ONE])
    y = {t: v / worst for t, v in y.items() if v}
    return ("y", tuple(sorted(y.items()))) if _valid(y, within, r) else None
