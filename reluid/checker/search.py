"""The checker's bounded exhaustive searches: where the only evidence is that nothing was found.

Everywhere else the kernel checks a hint the certificate carries (a basis, a
minor, multipliers, a witness).  The questions below have, in the current
certificate format, no such hint, so the checker decides them by a search of
its own, bounded by the certificate's work limit (each search charges its
length before it runs, :func:`reluid.checker.registry.charge`), and records
the search (:func:`searched`) so that ``reluid check`` says, claim by claim, that
it searched:

* the orbit normal form of a deep network with tied neurons (every order of
  the tied neurons is tried: the least form is the normal form);
* H4 of two hidden layers (docs/mathematics.md §8.3) when a ``deep-two-layer-hypotheses``
  certificate carries no cover trees (older certificates): for every set I that Lemma
  10.12's count leaves open, a search for a cover of its bend flats (:func:`h4_covers`);
  a certificate with trees is checked by :mod:`reluid.checker.cover_trees` instead;
* the flip-set searches ``enumerate``, ``mitm`` and ``lattice-enum`` and the
  pattern searches ``modp-enum`` and ``proj-enum``: their loops live with their
  verifiers (:mod:`reluid.checker.flipsets`, :mod:`reluid.checker.patterns`)
  and charge and record the same way;
* ``lattice-cvp``: fplll's compiled enumeration of a ball over a radius proved
  safe against its rounding, in :mod:`reluid.checker.compiled_search`.
"""

from __future__ import annotations

import math
from itertools import combinations, permutations, product

from reluid.checker.registry import Context, charge, fail
from reluid.model.network import Network

__all__ = ["SEARCHED", "searched", "orbit_form", "orbit_invariant", "outside_orbit", "cover", "h4_covers",
           "COVER_LIMIT", "I_text"]

#: Nodes of all H4 cover searches of one claim together.
COVER_LIMIT = 2_000_000

#: How ``reluid check`` marks a claim whose verification searched.
SEARCHED = "searched by the checker"


def searched(ctx: Context, what: str) -> None:
    """Record that the verification of ``ctx``'s claim rests on a search of the checker over ``what``."""
    ctx.budget.searches.append(what)


def _key(layers) -> tuple:
    return tuple((tuple(map(tuple, W)), tuple(b)) for W, b in layers)


def _normalised_groups(W, b):
    """Rows (W[j], b[j]) scaled to L1 norm 1 and sorted, grouped into runs of equal rows; None on a zero row."""
    scaled = []
    for j in range(len(b)):
        norm = sum(abs(x) for x in W[j]) + abs(b[j])
        if norm == 0:
            return None
        scaled.append(([x / norm for x in W[j]], b[j] / norm, norm, j))
    scaled.sort(key=lambda t: (t[0], t[1]))
    groups: list[list] = []
    for t in scaled:
        if groups and groups[-1][0][0] == t[0] and groups[-1][0][1] == t[1]:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


def orbit_form(net: Network, ctx: Context | None = None):
    """Orbit normal form: each hidden row (W^l[j, :], b^l_j) scaled to L1 norm 1, rows sorted.

    Ties between equal rows are broken by trying every order and keeping the
    least result; every order costs the size of the layers after it, charged
    to ``ctx``'s work budget before it is tried.  Returns ``None`` when some
    hidden neuron has a zero incoming row (the form is then undefined).
    """
    ctx = ctx or Context(net, "orbit form")
    layers0 = [([list(r) for r in L.weight], list(L.bias)) for L in net.layers]
    nh = len(layers0) - 1
    tail = [sum(len(W) * (len(W[0]) + 1) if W else len(b) for W, b in layers0[l:]) for l in range(nh + 1)]
    best = [None]

    def rec(layers, l):
        if l == nh:
            k = _key(layers)
            if best[0] is None or k < best[0]:
                best[0] = k
            return True
        W, b = layers[l]
        Wn, bn = layers[l + 1]
        charge(ctx, tail[l], "the orbit normal form")
        groups = _normalised_groups(W, b)
        if groups is None:
            return False
        orders = math.prod(math.factorial(len(g)) for g in groups)
        if orders > 1:
            what = f"{orders:,} orders of tied neurons in hidden layer {l + 1}"
            charge(ctx, orders * tail[l + 1], f"the orbit normal form: {what} ({SEARCHED})")
            searched(ctx, what)
        for choice in product(*[permutations(g) for g in groups]):
            order = [t for g in choice for t in g]
            new_layers = list(layers)
            new_layers[l] = ([t[0] for t in order], [t[1] for t in order])
            new_layers[l + 1] = ([[row[t[3]] * t[2] for t in order] for row in Wn], list(bn))
            if not rec(new_layers, l + 1):
                return False
        return True

    return best[0] if rec(layers0, 0) else None


def orbit_invariant(net: Network) -> tuple | None:
    """A key that every network of the orbit of ``net`` shares, computed without a search (None on a zero row).

    Layer by layer, each hidden neuron's row (with the previous layer's scales folded in, as in
    :func:`orbit_form`) is scaled to L1 norm 1 and keyed by the multiset of (class of the input
    neuron, weight) plus its bias; a neuron's class is the rank of its key among the layer's keys.  A permutation of a layer permutes
    these keys and a positive scaling leaves them unchanged, so two networks whose invariants
    differ lie in different orbits.
    """
    classes: list = list(range(net.input_dim))
    norms = [1] * net.input_dim
    keys = []
    for depth, L in enumerate(net.layers):
        last = depth == len(net.layers) - 1
        layer_keys, new_norms = [], []
        for row, b in zip(L.weight, L.bias):
            w = [x * n for x, n in zip(row, norms)]
            norm = 1 if last else sum(abs(x) for x in w) + abs(b)
            if norm == 0:
                return None
            layer_keys.append((tuple(sorted((cl, x / norm) for cl, x in zip(classes, w))), b / norm))
            new_norms.append(norm)
        keys.append(tuple(layer_keys) if last else tuple(sorted(layer_keys)))
        ids = {k: n for n, k in enumerate(sorted(set(layer_keys)))}     # classes by rank: orbit-invariant
        classes, norms = [ids[k] for k in layer_keys], new_norms
    return tuple(keys)


def _zero_row_counts(net: Network) -> tuple[int, ...]:
    return tuple(sum(1 for w, b in zip(L.weight, L.bias) if not any(w) and b == 0) for L in net.layers[:-1])


def outside_orbit(a: Network, b: Network, ctx: Context | None = None) -> bool | None:
    """``True`` if ``b`` is provably outside the orbit of ``a``, ``False`` if inside, ``None`` if undecided."""
    if a.architecture != b.architecture:
        return True
    if _zero_row_counts(a) != _zero_row_counts(b):
        return True  # a zero incoming row stays zero under permutation and positive scaling
    charge(ctx or Context(a, "orbit"), 4 * (a.n_params + b.n_params), "the orbit invariants")
    ia, ib = orbit_invariant(a), orbit_invariant(b)
    if ia is not None and ib is not None and ia != ib:
        return True  # the invariants of one orbit agree (no search needed)
    fa = orbit_form(a, ctx)
    fb = orbit_form(b, ctx) if fa is not None else None
    if fa is None or fb is None:
        return None
    return fa != fb


# ---- H4: the cover search (certificates without cover trees) --------------------------------

def I_text(I) -> str:
    """A set I of layer-1 neurons (0-based) as the messages write it: {1, 3}."""
    return "{" + ", ".join(str(j + 1) for j in I) + "}"


def cover(U, blocks, budget, nodes) -> list | None:
    """At most ``budget`` sets among ``blocks`` (each of at least two elements) and singletons covering U, or
    None; ``"limit"`` once ``nodes[0]`` nodes are spent (docs/mathematics.md §8.3, Lemma 8.6(e))."""
    if not U:
        return []
    if budget == 0:
        return None
    nodes[0] -= 1
    if nodes[0] < 0:
        return "limit"
    x = min(U)
    for b in [b for b in blocks if x in b] + [frozenset([x])]:
        rest = cover(U - b, [c - b for c in blocks if len(c - b) >= 2], budget - 1, nodes)
        if rest == "limit":
            return rest
        if rest is not None:
            return [b] + rest
    return None


def h4_covers(ctx: Context, n1: int, flats, blocks) -> None:
    """H4 by search: for every nonempty I ⊆ [n1], no cover of the flats on the H_j, j ∈ I (``flats``: pairs
    (j, key)), by |I| sets among ``blocks`` (the flats on one hyperplane through two flats, no H_i) and
    singletons.  Every node is charged; a cover, or more than :data:`COVER_LIMIT` nodes, fails the claim."""
    searched(ctx, f"covers of the bend flats of the {2 ** n1 - 1} sets I by |I| hyperplanes (H4)")
    F = len(flats)
    nodes = [COVER_LIMIT]
    for r in range(1, n1 + 1):
        for I in combinations(range(n1), r):
            U = frozenset(t for t, (j, _) in enumerate(flats) if j in I)
            charge(ctx, len(blocks) + F, "the H4 cover search")
            per_node = len(blocks) + 1
            cap = min(nodes[0], (ctx.budget.limit - ctx.budget.used) // per_node)   # the work budget bounds it too
            local = [cap]
            found = cover(U, [b & U for b in blocks if len(b & U) >= 2], r, local)
            spent = cap - max(local[0], 0)
            nodes[0] -= spent
            if found == "limit" and nodes[0] > 0:          # the work budget ran out, not COVER_LIMIT
                charge(ctx, (spent + 1) * per_node, "the H4 cover search")
            charge(ctx, spent * per_node, "the H4 cover search")
            if found == "limit":
                fail(ctx, f"the H4 cover search exceeds the checker's limit of {COVER_LIMIT} nodes")
            if found is not None:
                fail(ctx, f"H4 fails: for I = {I_text(I)} the {len(U)} bend flats on those H_j are covered by "
                          f"{len(found)} hyperplane(s) other than the H_i")
