"""Checker for H4's cover trees: "no |I| hyperplanes other than the H_i cover the bend flats U_I".

docs/mathematics.md §8.3 (Lemma 8.13) proves the rule; docs/certificates.md describes the
evidence (the ``cover`` field of ``deep-two-layer-hypotheses``).  The certificate gives, for
every nonempty I ⊆ [n1] that Lemma 10.12's count does not settle (every j ∈ I has at most |I|
flats), a branch-and-bound tree; the *family* of a node (U, r) is {b ∩ U : b a block} ∪ the
singletons of U, the blocks being the checker's own (the flats on one hyperplane through two
flats, no H_i, recomputed by :mod:`reluid.checker.two_layers`: never read from the certificate,
where a plane left out could hide a cover).  A node claims that no r sets of its family cover U:

* a leaf ``{"y": Y}`` closes it by a fractional packing: y ≥ 0 on the flats of U with
  Σ_{t∈b∩U} y_t ≤ 1 for every block b and y_t ≤ 1 (the singletons), and Σ y > r (a cover by r
  sets would give Σ y ≤ r); Y is one number (the same y on every flat of U) or a list of pairs
  ``[t, y_t]`` (flats t, 0-based in the checker's list of distinct flats; the others get 0).
  With r = 0 and U ≠ ∅ every leaf closes (no set covers anything);
* a branch ``{"split": t, "children": [...]}`` names a flat x ∈ U (0-based) and has one child per member of
  the family that contains x and has two elements or more, in the order of their sorted flat
  lists, or, when there is none, one child for {x}; the child for S is the node (U − S, r − 1).
  Any cover contains a set with x, and it can be replaced by such a member (or is {x} itself).

A node with U = ∅ is a cover found along the tree: H4 fails.  Every node and every leaf's sums
are charged to the work limit, a leaf's sums by the size of its numbers too (a packing of
4 000-digit rationals costs more than one of small ones).  Imports only
:mod:`reluid.certificates.schema` (numbers), :mod:`reluid.checker.registry`,
:mod:`reluid.checker.readers` (numbers in messages) and :mod:`reluid.checker.search` (the wording
of a set I).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from itertools import combinations

from reluid.certificates.schema import CertificateError, q
from reluid.checker.readers import show
from reluid.checker.registry import Context, charge, fail
from reluid.checker.search import I_text

__all__ = ["open_sets", "verify_cover_trees"]


def _flat_list(U) -> str:
    return "[" + ", ".join(str(t + 1) for t in sorted(U)) + "]"


def open_sets(ctx: Context, n1: int, flats) -> list[tuple[int, ...]]:
    """The nonempty I ⊆ [n1] in which every j has at most |I| of the ``flats`` (pairs (j, key)), in the order
    of size, then lexicographic: the sets that Lemma 10.12(b)'s count leaves to a tree."""
    counts = [sum(1 for j, _ in flats if j == i) for i in range(n1)]
    charge(ctx, 2 ** n1 * (n1 + 1), "the sets I of H4")
    return [I for r in range(1, n1 + 1) for I in combinations(range(n1), r) if max(counts[j] for j in I) <= r]


def verify_cover_trees(ctx: Context, n1: int, flats, blocks, raw) -> tuple[int, int]:
    """Check the trees ``raw`` for every set I of :func:`open_sets`; returns (trees, nodes)."""
    if not isinstance(raw, (list, tuple)):
        fail(ctx, "cover must be a list")
    need = open_sets(ctx, n1, flats)
    nodes = 0
    for i, I in enumerate(need):
        if i >= len(raw):
            fail(ctx, f"no cover tree for I = {I_text(I)} (the count leaves {len(need)} sets I, {len(raw)} trees)")
        entry = raw[i]
        if not isinstance(entry, Mapping) or set(entry) != {"I", "tree"}:
            fail(ctx, f"cover tree {i + 1} must have exactly the fields ['I', 'tree']")
        named = entry["I"]
        if not isinstance(named, (list, tuple)) or [type(j) for j in named] != [int] * len(named) or \
                list(named) != list(I):
            fail(ctx, f"cover tree {i + 1} is for I = {named!r}; the next set I the count leaves open is "
                      f"{list(I)} (0-based)")
        U = frozenset(t for t, (j, _) in enumerate(flats) if j in I)
        nodes += _node(ctx, entry["tree"], U, len(I), blocks, (I, ""))
    if len(raw) > len(need):
        fail(ctx, f"{len(raw)} cover trees, but the count leaves only {len(need)} sets I")
    return len(need), nodes


def _where(at) -> str:
    I, path = at
    return f"the cover tree for I = {I_text(I)}, " + (f"node {path}" if path else "at its root")


def _node(ctx: Context, node, U, r, blocks, at) -> int:
    """Verify the node (U, r) of a tree and its subtree; returns the number of its nodes."""
    if not U:
        I = at[0]
        fail(ctx, f"H4 fails: for I = {I_text(I)} the bend flats on those H_j are covered by {len(I) - r} "
                  "hyperplane(s) other than the H_i (along the cover tree)")
    charge(ctx, len(blocks) * (len(U) + 1) + 1, "the H4 cover trees")
    where = _where(at)
    if isinstance(node, Mapping) and set(node) == {"y"}:
        _leaf(ctx, node["y"], U, r, blocks, where)
        return 1
    if not isinstance(node, Mapping) or set(node) != {"split", "children"}:
        fail(ctx, f"{where} must have exactly the fields ['y'] (a leaf) or ['children', 'split'] (a branch)")
    x, kids = node["split"], node["children"]
    if not isinstance(x, int) or isinstance(x, bool) or x not in U:
        fail(ctx, f"{where}: split = {x!r} (0-based) is not one of the uncovered flats {_flat_list(U)} (1-based)")
    if r == 0:
        fail(ctx, f"{where}: a branch with budget r = 0 (no set is left to cover flat {x + 1}; the node is a leaf)")
    family = sorted({b & U for b in blocks if x in b and len(b & U) >= 2}, key=sorted) or [frozenset([x])]
    if not isinstance(kids, (list, tuple)) or len(kids) != len(family):
        n = len(kids) if isinstance(kids, (list, tuple)) else "no list of"
        fail(ctx, f"{where}: {n} children, but flat {x + 1} lies in {len(family)} set(s) of the family "
                  f"({', '.join(_flat_list(S) for S in family)}): one child each")
    return 1 + sum(_node(ctx, kid, U - S, r - 1, blocks, (at[0], f"{at[1]}.{c + 1}".lstrip(".")))
                   for c, (kid, S) in enumerate(zip(kids, family)))


def _packing(ctx: Context, raw, U, where) -> dict[int, Fraction]:
    """The packing y of a leaf: one number for every flat of U, or pairs [t, y_t]; each 0 <= y_t <= 1."""
    try:
        if not isinstance(raw, (list, tuple)):
            y = dict.fromkeys(U, q(raw))
        else:
            y = {}
            for pair in raw:
                if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                    fail(ctx, f"{where}: a packing entry must be a pair [flat, y], got {pair!r}")
                t = pair[0]
                if not isinstance(t, int) or isinstance(t, bool) or t not in U or t in y:
                    fail(ctx, f"{where}: the packing names {t!r}, not an uncovered flat (0-based) or named twice")
                y[t] = q(pair[1])
    except CertificateError as e:
        fail(ctx, f"{where}: {e}")
    for t, v in sorted(y.items()):
        if not 0 <= v <= 1:
            fail(ctx, f"{where}: the packing puts y = {show(v)} on flat {t + 1}, outside [0, 1] (its singleton)")
    return y


def _words(v: Fraction) -> int:
    """The size of ``v`` in 64-bit words beyond the first (0 for the small numbers of an honest packing)."""
    return (v.numerator.bit_length() + v.denominator.bit_length()) // 64


def _sum_cost(y: Mapping[int, Fraction], parts) -> int:
    """Steps for the leaf's sums over the ``parts`` b ∩ y and over y: a sum of k numbers of W words in all is
    charged k·W² / 512 beyond the per-term count (schoolbook products of the growing denominators; measured
    ≥ 2.7·10⁶ steps per CPU second on 1 000- to 50 000-digit packings)."""
    w = {t: _words(v) for t, v in y.items()}
    if not any(w.values()):
        return 0
    sums = [(len(p), sum(w[t] for t in p)) for p in parts]
    return (sum(k * W * W for k, W in sums) + len(y) * sum(w.values()) ** 2) // 512


def _leaf(ctx: Context, raw, U, r, blocks, where) -> None:
    y = _packing(ctx, raw, U, where)
    charge(ctx, len(blocks) * (len(y) + 1), "the H4 cover trees' packings")
    if r == 0:
        return                              # U ≠ ∅ and no set is left
    if not any(y.values()):
        fail(ctx, f"{where}: a leaf with budget r = {r} > 0 needs a packing bound (y ≥ 0 on the uncovered flats, "
                  "at most 1 on every hyperplane's flats, Σ y > r)")
    parts = [b & y.keys() for b in blocks]
    charge(ctx, _sum_cost(y, parts), "the H4 cover trees' packings (long numbers)")
    for part in parts:
        s = sum((y[t] for t in part), Fraction(0))
        if s > 1:
            fail(ctx, f"{where}: the packing puts {show(s)} > 1 on the flats {_flat_list(part)} of one hyperplane")
    total = sum(y.values(), Fraction(0))
    if total <= r:
        fail(ctx, f"{where}: the packing's total Σ y = {show(total)} is not above the budget r = {r}")
