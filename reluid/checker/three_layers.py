"""Checker for three hidden layers: Corollary 12.15's hypotheses and Theorem 12.37's clash points.

Imports only the standard library, :mod:`reluid.model`, :mod:`reluid.certificates.schema`,
:mod:`reluid.checker.registry`, :mod:`reluid.checker.readers` and :mod:`reluid.checker.linalg`.  Nothing is shared with the producer (:mod:`reluid.analysis.deep.three_layers`):
every piece, rank, sign and count below is recomputed from the network, and the certificate gives only
points, directions and the choices a search made (which cells, which edges, which order).  Every loop
whose length the evidence or the network controls is charged first.

Notation of docs/mathematics.md §12.1: θ = (W^1, b^1; W^2, b^2; W^3, b^3; V, c) ∈ Ω(n0, n1, n2, n3, n4),
u = W^1 x + b^1, z^{2,s} = W^2 D_s u + b^2 on R_s, z^{3,γ} = W^3 D_r z^{2,s} + b^3 on the cell
C_γ = {s_m u_m > 0, r_i z^{2,s}_i > 0}, γ = (s, r).  An affine function is a row (gradient..., constant).

``deep-three-layer-hypotheses``
    evidence ``{"regions", "edges", "cells", "order", "pinning"}``: the hypotheses of Corollary 12.15
    (H0₁ and T0 recomputed; Theorem 12.14's full regions and rigid layer-1 edges; a wall for every
    layer-2 neuron, implied by one full region; the depth-3 pinning certificate of Definition 12.10 in
    the witness-only form of §12.3 with (a3) of Lemma 12.9).  The checker

    * verifies every level-2 bend triple (B1)–(B4) of Definition 12.13 with its point, keeps each flat
      once (reduced row echelon form of [z^{2,s}_i; z^{3,γ}_k]) and decides fullness of R_s by Lemma
      10.12(c): the distinct flats b_i on the Z(z^{2,s}_i), sorted, have b_(m) >= m + 1 for every m;
    * verifies every edge (s, s^(j)) as rigid (both ends full, rank[u_j; z^{2,s}_i; z^{2,s}_i′] = 3), the
      edges as one connected graph and their labels as all of [n1];
    * verifies every cell's interior point and its zeros (k ∈ K̂_γ: a point of C_γ with z^{3,γ}_k = 0 and
      ∇z^{3,γ}_k ≠ 0), and the goodness of every cell it uses against every non-constant piece;
    * for each unit of the order (a permutation of [n3]): the seed is good with the unit in K̂; each edge
      leaves a cell already reached and is valid (Definition 10.3 with the §12.3 substitutions: (e2)
      with its wall point, (e3t) or (e4s) with (e3s) against every non-constant piece not exempt by a
      rank test, (e4) counted with K̂); then the two rank tests (a3)(i), (a3)(ii) on the cells reached.
``deep-three-layer-clash``
    evidence ``{"points": [{"point", "flats": [{"signs", "cell", "layer", "index", "unit",
    "direction"}]}]}``, n2 < n0: every flat is an edge bend triple of Definition 12.23(a), (B1)–(B3)
    recomputed, and the point lies in the closure of its active part, shown by the germ x + t·d, t → 0+
    (below); the normals of a point's flats have rank > n2, so it is a clash point (Definition 12.34).
    The checker then computes X_i°, c_i and m_i itself and decides (CP-L) of Theorem 12.37.

The germ rule.  For an edge γ → γ′ with separating function ℓ0, unit k, point x and direction d ≠ 0:
ℓ0(x) = 0 = z^{3,γ}_k(x) and ∇ℓ0·d = 0 = ∇z^{3,γ}_k·d (the germ stays on the flat S); every other defining
function φ of γ has φ(x) > 0, or φ(x) = 0 and ∇φ·d > 0; every piece z^{3,γ}_k′ of rank 3 in (B3) has
z^{3,γ}_k′(x) ≠ 0 or ∇z^{3,γ}_k′·d ≠ 0.  Then for all small t > 0, x + t·d is a wall point of the edge on S
where no rank-3 piece vanishes, i.e. a point of A(S) = S°, so x ∈ cl A(S); for rational t it is also the
rational point (B4) asks for.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from reluid.certificates.schema import ClaimKind
from reluid.checker import readers as rd
from reluid.checker.linalg import rank, rref
from reluid.checker.registry import Context, fail, verifies
from reluid.checker.registry import charge as charge_steps
from reluid.model.network import Network

__all__ = ["verify_three_layer_hypotheses", "verify_three_layer_clash"]

ZERO = Fraction(0)
#: Steps charged per exact rational operation: a Fraction multiply-add costs about 4 µs of Python, and the work
#: limit's step about 1 µs (reluid/checker/registry.py), so every count below is of such operations, times this.
STEPS_PER_OP = 4


def _charge(ctx: Context, ops: int, what: str) -> None:
    charge_steps(ctx, STEPS_PER_OP * ops, what)


# ---- θ's pieces, recomputed ------------------------------------------------------

def _ev(row, x) -> Fraction:
    return sum((g * t for g, t in zip(row, x)), row[-1])


def _dot(row, d) -> Fraction:
    return sum((g * t for g, t in zip(row, d)), ZERO)


def _scaled(c, row):
    return tuple(c * v for v in row)


class _Theta:
    """The affine data of θ ∈ Ω(n0, n1, n2, n3, n4): u_m, and z^{2,s}, z^{3,γ} per pattern (charged, cached)."""

    def __init__(self, ctx: Context):
        net: Network = ctx.network
        if len(net.hidden_widths) != 3:
            fail(ctx, f"docs/mathematics.md §12 is about three hidden layers; the architecture is {net.architecture}")
        self.ctx = ctx
        self.n0, self.n1, self.n2, self.n3, _ = net.architecture
        if self.n0 < 2:
            fail(ctx, "docs/mathematics.md §12.5 needs input dimension n0 >= 2")
        L1, L2, L3, L4 = net.layers
        self.u = [tuple(L1.weight[m]) + (L1.bias[m],) for m in range(self.n1)]
        self.W2, self.b2, self.W3, self.b3, self.V = L2.weight, L2.bias, L3.weight, L3.bias, L4.weight
        self.W1 = L1.weight
        self._z2, self._z3, self._defining = {}, {}, {}

    def z2(self, s):
        if s not in self._z2:
            _charge(self.ctx, self.n2 * self.n1 * (self.n0 + 1), "the layer-2 pieces of a region")
            rows = []
            for i in range(self.n2):
                v = [ZERO] * self.n0 + [self.b2[i]]
                for m in range(self.n1):
                    if s[m] > 0 and self.W2[i][m]:
                        v = [a + self.W2[i][m] * b for a, b in zip(v, self.u[m])]
                rows.append(tuple(v))
            self._z2[s] = rows
        return self._z2[s]

    def z3(self, s, r):
        if (s, r) not in self._z3:
            _charge(self.ctx, self.n3 * self.n2 * (self.n0 + 1), "the layer-3 pieces of a cell")
            z2 = self.z2(s)
            rows = []
            for k in range(self.n3):
                v = [ZERO] * self.n0 + [self.b3[k]]
                for i in range(self.n2):
                    if r[i] > 0 and self.W3[k][i]:
                        v = [a + self.W3[k][i] * b for a, b in zip(v, z2[i])]
                rows.append(tuple(v))
            self._z3[(s, r)] = rows
        return self._z3[(s, r)]

    def defining(self, s, r):
        """The defining functions of C_(s, r), tagged (layer, index): s_m u_m and r_i z^{2,s}_i, all > 0 on it.

        Each call is charged for one evaluation of all of them at a point (what every caller does)."""
        _charge(self.ctx, (self.n1 + self.n2) * (self.n0 + 1), "the defining functions of a cell at a point")
        if (s, r) not in self._defining:
            z2 = self.z2(s)
            self._defining[(s, r)] = ([((1, m), _scaled(s[m], self.u[m])) for m in range(self.n1)] +
                                      [((2, i), _scaled(r[i], z2[i])) for i in range(self.n2)])
        return self._defining[(s, r)]

    def rank(self, rows) -> int:
        rows = [list(r) for r in rows]
        if rows:
            _charge(self.ctx, len(rows) * len(rows[0]) * min(len(rows), len(rows[0])), "an exact rank")
        return rank(rows)

    def grad_rank(self, rows) -> int:
        return self.rank([r[:-1] for r in rows])

    def flat_key(self, rows) -> tuple:
        """The affine subspace {rows = 0} (rows independent), as its reduced row echelon form."""
        _charge(self.ctx, len(rows) ** 2 * (self.n0 + 1), "a reduced row echelon form")
        R, _ = rref([list(r) for r in rows], self.n0 + 1)
        return tuple(tuple(v) for v in R)

    def separating(self, s, r, layer, index):
        """ℓ0 and the other end of the edge of (s, r) that flips sign ``index`` of layer ``layer``."""
        if layer == 1:
            return self.u[index], (s[:index] + (-s[index],) + s[index + 1:], r)
        return self.z2(s)[index], (s, r[:index] + (-r[index],) + r[index + 1:])


def _nonconstant(row) -> bool:
    return any(row[:-1])


def _h0_t0(ctx, T: _Theta) -> None:
    """H0₁ (the H_j are n1 distinct hyperplanes) and T0 (V_{:,k} ≠ 0), recomputed (§12.1)."""
    for m in range(T.n1):
        if not _nonconstant(T.u[m]):
            fail(ctx, f"H0₁ fails: W^1_{m + 1} = 0")
    _charge(ctx, T.n1 * T.n1 * (T.n0 + 1), "H0₁")
    for a, b in itertools.combinations(range(T.n1), 2):
        if T.rank([T.u[a], T.u[b]]) < 2:
            fail(ctx, f"H0₁ fails: the rows (W^1_{a + 1}, b^1_{a + 1}) and (W^1_{b + 1}, b^1_{b + 1}) are proportional")
    for k in range(T.n3):
        if not any(row[k] for row in T.V):
            fail(ctx, f"T0 fails: V_(:,{k + 1}) = 0")


# ---- reading ---------------------------------------------------------------------

def _signs(ctx, raw, n, what) -> tuple[int, ...]:
    if not isinstance(raw, str) or len(raw) != n or set(raw) - {"+", "-"}:
        fail(ctx, f"{what}: signs must be a string of {n} characters '+' or '-', got {rd.show(raw)}")
    return tuple(1 if ch == "+" else -1 for ch in raw)


def _word(s) -> str:
    return "".join("+" if v > 0 else "-" for v in s)


def _point(ctx, T: _Theta, raw, what):
    return rd.points(ctx, [raw], what, T.n0)[0]


def _items(ctx, raw, what) -> tuple:
    items = rd.sequence(ctx, raw, what)
    _charge(ctx, len(items), what)
    return items


# ---- claim 1: Corollary 12.15 ----------------------------------------------------

def _level_2_flats(ctx, T: _Theta, s, raw, where) -> list[int]:
    """(B1)–(B4) of every level-2 bend triple of R_s; the number of distinct flats on each Z(z^{2,s}_i)."""
    z2 = T.z2(s)
    flats = [set() for _ in range(T.n2)]
    for f_no, fl in enumerate(_items(ctx, raw, f"{where}: flats")):
        w = f"{where}, flat {f_no}"
        rd.fields(ctx, fl, w, ("cell", "neuron", "unit", "point"))
        r = _signs(ctx, fl["cell"], T.n2, w)
        i = rd.integer(ctx, fl["neuron"], f"{w}: neuron", 0, T.n2)
        k = rd.integer(ctx, fl["unit"], f"{w}: unit", 0, T.n3)
        p = _point(ctx, T, fl["point"], f"{w}: point")
        if r[i] < 0:
            fail(ctx, f"{w}: a level-2 bend triple needs r_{i + 1} = + (Definition 12.13)")
        z3 = T.z3(s, r)
        if not T.W3[k][i]:
            fail(ctx, f"{w}: (B1) fails, W^3_({k + 1},{i + 1}) = 0")
        if T.grad_rank([z2[i], z3[k]]) != 2:
            fail(ctx, f"{w}: (B2) fails, the gradients of z^2_{i + 1} and z^3_{k + 1} are dependent")
        _charge(ctx, T.n3, "(B3)")
        for k2 in range(T.n3):
            if k2 != k and T.rank([z2[i], z3[k2]]) > 1 and T.rank([z2[i], z3[k], z3[k2]]) != 3:
                fail(ctx, f"{w}: (B3) fails at unit {k2 + 1}")
        if _ev(z2[i], p) != 0 or _ev(z3[k], p) != 0:
            fail(ctx, f"{w}: (B4) fails, the point is not on the flat z^2_{i + 1} = 0 = z^3_{k + 1}")
        if not _wall_point(T, s, r, (2, i), p):
            fail(ctx, f"{w}: (B4) fails, the point is not a wall point of the layer-2 edge of neuron {i + 1}")
        flats[i].add(T.flat_key([z2[i], z3[k]]))
    return [len(f) for f in flats]


def _wall_point(T: _Theta, s, r, tag, p) -> bool:
    """p is a wall point of the edge of C_(s, r) across the defining function ``tag``: the others > 0 at p."""
    return all(_ev(row, p) > 0 for t, row in T.defining(s, r) if t != tag)


def _regions(ctx, T: _Theta, raw) -> set:
    full = set()
    for no, reg in enumerate(_items(ctx, raw, "regions")):
        where = f"region {no}"
        rd.fields(ctx, reg, where, ("signs", "flats"))
        s = _signs(ctx, reg["signs"], T.n1, where)
        if s in full:
            fail(ctx, f"{where}: the region {_word(s)} is listed twice")
        b = sorted(_level_2_flats(ctx, T, s, reg["flats"], where))
        for m, bm in enumerate(b, start=1):
            if bm < m + 1:
                fail(ctx, f"{where}: R_{_word(s)} is not shown full: the distinct level-2 flats per neuron, sorted, "
                          f"are {b}, and Lemma 10.12(c) needs b_({m}) >= {m + 1}")
        full.add(s)
    if not full:
        fail(ctx, "Theorem 12.14 needs full regions, and none is listed")
    return full


def _rigid_edges(ctx, T: _Theta, raw, full) -> None:
    parent = {s: s for s in full}

    def root(s):
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    labels, ends = set(), set()
    for no, e in enumerate(_items(ctx, raw, "edges")):
        where = f"edge {no}"
        rd.fields(ctx, e, where, ("signs", "label"))
        s = _signs(ctx, e["signs"], T.n1, where)
        j = rd.integer(ctx, e["label"], f"{where}: label", 0, T.n1)
        t = s[:j] + (-s[j],) + s[j + 1:]
        if s[j] < 0:
            fail(ctx, f"{where}: a rigid edge (s, s^(j), j) is listed from the end with s_j = +")
        if s not in full or t not in full:
            fail(ctx, f"{where}: an end of the edge ({_word(s)}, {_word(t)}) is not a listed full region")
        z2 = T.z2(s)
        _charge(ctx, T.n2 * T.n2, "rigidity")
        for a, b in itertools.combinations(range(T.n2), 2):
            if T.rank([T.u[j], z2[a], z2[b]]) != 3:
                fail(ctx, f"{where}: not rigid, rank[u_{j + 1}; z^2_{a + 1}; z^2_{b + 1}] < 3 on R_{_word(s)}")
        labels.add(j)
        ends.update((s, t))
        parent[root(s)] = root(t)
    missing = sorted(set(range(T.n1)) - labels)
    if missing:
        fail(ctx, f"Theorem 12.14 needs every label among the rigid edges; label {missing[0] + 1} is missing")
    if len({root(s) for s in ends}) != 1:
        fail(ctx, "Theorem 12.14 needs the rigid edges to form one connected graph")


class _Cell:
    __slots__ = ("s", "r", "zeros", "good")

    def __init__(self, s, r, zeros):
        self.s, self.r, self.zeros, self.good = s, r, zeros, None


def _cells(ctx, T: _Theta, raw) -> list[_Cell]:
    cells, seen = [], set()
    for no, c in enumerate(_items(ctx, raw, "cells")):
        where = f"cell {no}"
        rd.fields(ctx, c, where, ("signs", "cell", "point", "zeros"))
        s, r = _signs(ctx, c["signs"], T.n1, where), _signs(ctx, c["cell"], T.n2, where)
        if (s, r) in seen:
            fail(ctx, f"{where}: the cell ({_word(s)}, {_word(r)}) is listed twice")
        seen.add((s, r))
        if not _wall_point(T, s, r, None, _point(ctx, T, c["point"], f"{where}: point")):
            fail(ctx, f"{where}: the point is not inside C_({_word(s)}, {_word(r)})")
        z3, zeros = T.z3(s, r), set()
        for z_no, z in enumerate(_items(ctx, c["zeros"], f"{where}: zeros")):
            w = f"{where}, zero {z_no}"
            rd.fields(ctx, z, w, ("unit", "point"))
            k = rd.integer(ctx, z["unit"], f"{w}: unit", 0, T.n3)
            q = _point(ctx, T, z["point"], f"{w}: point")
            if not _nonconstant(z3[k]) or _ev(z3[k], q) != 0 or not _wall_point(T, s, r, None, q):
                fail(ctx, f"{w}: not a point of C_({_word(s)}, {_word(r)}) on the zero set of a non-constant "
                          f"z^3_{k + 1}")
            zeros.add(k)
        cells.append(_Cell(s, r, frozenset(zeros)))
    return cells


def _good(ctx, T: _Theta, cell: _Cell, where) -> None:
    """Goodness in the witness-only form: each witnessed piece independent of every other non-constant piece."""
    if cell.good is None:
        z3 = T.z3(cell.s, cell.r)
        _charge(ctx, len(cell.zeros) * T.n3, "goodness")
        cell.good = all(T.rank([z3[k], z3[k2]]) == 2 for k in cell.zeros for k2 in range(T.n3)
                        if k2 != k and _nonconstant(z3[k2]))
    if not cell.good:
        fail(ctx, f"{where}: the cell ({_word(cell.s)}, {_word(cell.r)}) is not good (a witnessed piece is "
                  "proportional to another non-constant piece)")


def _exempt(T: _Theta, cell: _Cell, l0, z) -> bool:
    """The zero set of the non-constant piece z misses C_cell by a rank test: z ∥ ℓ0, some u_m or some
    non-constant z^{2,s}_l of the cell's own s (§12.3, the witness-only form)."""
    refs = [l0] + list(T.u) + [v for v in T.z2(cell.s) if _nonconstant(v)]
    return any(T.rank([ref, z]) == 1 for ref in refs)


def _separated(ctx, T: _Theta, cell: _Cell, l0, k) -> bool:
    """(e3) on ``cell``: rank[ℓ0; z_k; z_k2] = 3 for every other non-constant piece z_k2 not exempt."""
    z3 = T.z3(cell.s, cell.r)
    _charge(ctx, T.n3 * (T.n1 + T.n2 + 2), "(e3)")
    return all(T.rank([l0, z3[k], z3[k2]]) == 3 for k2 in range(T.n3)
               if k2 != k and _nonconstant(z3[k2]) and not _exempt(T, cell, l0, z3[k2]))


def _valid_edge(ctx, T: _Theta, a: _Cell, b: _Cell, k, P, p, where) -> None:
    """Definition 10.3 with the §12.3 substitutions, for the edge a → b, unit k and pinned set P."""
    ds = [m for m in range(T.n1) if a.s[m] != b.s[m]]
    dr = [i for i in range(T.n2) if a.r[i] != b.r[i]]
    if len(ds) + len(dr) != 1:
        fail(ctx, f"{where}: the cells ({_word(a.s)}, {_word(a.r)}) and ({_word(b.s)}, {_word(b.r)}) differ in "
                  f"{len(ds) + len(dr)} signs, an edge flips exactly one")
    layer, index = (1, ds[0]) if ds else (2, dr[0])
    l0, _ = T.separating(a.s, a.r, layer, index)
    for cell in (a, b):
        _good(ctx, T, cell, where)
        if k not in cell.zeros:
            fail(ctx, f"{where}: unit {k + 1} has no witnessed zero on ({_word(cell.s)}, {_word(cell.r)})")
    za = T.z3(a.s, a.r)[k]
    if T.grad_rank([l0, za]) != 2:
        fail(ctx, f"{where}: (e2) fails, the gradients of ℓ0 and z^3_{k + 1} are dependent")
    if _ev(l0, p) != 0 or _ev(za, p) != 0 or not _wall_point(T, a.s, a.r, (layer, index), p):
        fail(ctx, f"{where}: (e2) fails, the point is not a wall point of the edge with ℓ0 = 0 = z^3_{k + 1}")
    if not _separated(ctx, T, b, l0, k):
        fail(ctx, f"{where}: (e3t) fails on the head")
    if len(b.zeros | P) >= T.n3 - 1:
        return
    if len(a.zeros | P) < T.n3:
        fail(ctx, f"{where}: (e4) fails, |K̂ ∪ P| is {len(b.zeros | P)} on the head and {len(a.zeros | P)} on the "
                  f"tail (n3 = {T.n3})")
    if not _separated(ctx, T, a, l0, k):
        fail(ctx, f"{where}: (e3s) fails on the tail")


def _a3(ctx, T: _Theta, reached: list[_Cell], where) -> None:
    """(a3) of Lemma 12.9: (i) the differences of same-s cells determine W^3_{k,:}; (ii) the patterns s determine m."""
    by_s: dict = {}
    for c in reached:
        by_s.setdefault(c.s, []).append(c)
    cols = [[] for _ in range(T.n2)]
    _charge(ctx, len(reached) * T.n2 * (T.n0 + 1), "(a3)(i)")
    for s, group in by_s.items():
        z2, ref = T.z2(s), group[0]
        for c in group[1:]:
            for i in range(T.n2):
                e = (ref.r[i] > 0) - (c.r[i] > 0)
                cols[i].extend(e * v for v in z2[i])
    if not cols[0] or T.rank(cols) != T.n2:
        fail(ctx, f"{where}: (a3)(i) fails: the same-pattern differences of the cells reached have rank < n2")
    cols = [[v if s[j] > 0 else ZERO for s in by_s for v in T.W1[j]] for j in range(T.n1)]
    _charge(ctx, len(by_s) * T.n1 * T.n0, "(a3)(ii)")
    if T.rank(cols) != T.n1:
        fail(ctx, f"{where}: (a3)(ii) fails: the layer-1 patterns of the cells reached do not determine a flip of "
                  "layer 1")


def _pinning(ctx, T: _Theta, cells: list[_Cell], raw_order, raw) -> None:
    order = rd.indices(ctx, raw_order, T.n3, "order", length=T.n3)
    entries = rd.sequence(ctx, raw, "pinning", T.n3)
    for m, (k, entry) in enumerate(zip(order, entries)):
        where = f"pinning {m}"
        rd.fields(ctx, entry, where, ("unit", "seed", "edges"))
        if rd.integer(ctx, entry["unit"], f"{where}: unit") != k:
            fail(ctx, f"{where}: the unit is not entry {m} of the order")
        P = frozenset(order[:m])
        seed = cells[rd.integer(ctx, entry["seed"], f"{where}: seed", 0, len(cells))]
        _good(ctx, T, seed, f"{where}, seed")
        if k not in seed.zeros:
            fail(ctx, f"{where}: unit {k + 1} has no witnessed zero on its seed")
        reached = {id(seed): seed}
        for e_no, e in enumerate(_items(ctx, entry["edges"], f"{where}: edges")):
            w = f"{where}, edge {e_no}"
            rd.fields(ctx, e, w, ("from", "to", "point"))
            a = cells[rd.integer(ctx, e["from"], f"{w}: from", 0, len(cells))]
            b = cells[rd.integer(ctx, e["to"], f"{w}: to", 0, len(cells))]
            if id(a) not in reached:
                fail(ctx, f"{w}: the edge leaves a cell not reached yet")
            _valid_edge(ctx, T, a, b, k, P, _point(ctx, T, e["point"], f"{w}: point"), w)
            reached[id(b)] = b
        _a3(ctx, T, list(reached.values()), where)


@verifies(ClaimKind.DEEP_THREE_LAYER_HYPOTHESES)
def verify_three_layer_hypotheses(evidence, ctx: Context) -> str:
    """Corollary 12.15's hypotheses: θ' layer-1 matched implies θ' ∈ ⊔ G·θ^{F1,F2,F3}."""
    T = _Theta(ctx)
    rd.fields(ctx, evidence, "three-layer evidence", ("regions", "edges", "cells", "order", "pinning"))
    _h0_t0(ctx, T)
    full = _regions(ctx, T, evidence["regions"])
    _rigid_edges(ctx, T, evidence["edges"], full)
    cells = _cells(ctx, T, evidence["cells"])
    _pinning(ctx, T, cells, evidence["order"], evidence["pinning"])
    return (f"H0₁, T0; {len(full)} full layer-1 regions (Lemma 10.12(c) on their level-2 flats) and rigid layer-1 "
            f"edges, connected, every label (Theorem 12.14); walls (every layer-2 neuron has a flat); a depth-3 "
            f"pinning certificate over {len(cells)} cells (Definition 12.10, witness-only form, (a3))")


# ---- claim 2: Theorem 12.37 --------------------------------------------------------

def _edge_flat(ctx, T: _Theta, fl, x, where):
    """An edge bend triple of Definition 12.23(a) with x in the closure of its active part; its two normals."""
    rd.fields(ctx, fl, where, ("signs", "cell", "layer", "index", "unit", "direction"))
    s, r = _signs(ctx, fl["signs"], T.n1, where), _signs(ctx, fl["cell"], T.n2, where)
    layer = rd.integer(ctx, fl["layer"], f"{where}: layer", 1, 3)
    index = rd.integer(ctx, fl["index"], f"{where}: index", 0, T.n1 if layer == 1 else T.n2)
    k = rd.integer(ctx, fl["unit"], f"{where}: unit", 0, T.n3)
    d = _point(ctx, T, fl["direction"], f"{where}: direction")
    l0, (s2, r2) = T.separating(s, r, layer, index)
    z3, z3b = T.z3(s, r), T.z3(s2, r2)
    if z3[k] == z3b[k]:
        fail(ctx, f"{where}: (B1) fails, z^3_{k + 1} does not bend across the edge (c_k = 0)")
    if T.grad_rank([l0, z3[k]]) != 2:
        fail(ctx, f"{where}: (B2) fails, the gradients of ℓ0 and z^3_{k + 1} are dependent")
    _charge(ctx, T.n3, "(B3)")
    rank3 = []
    for k2 in range(T.n3):
        if k2 == k or T.rank([l0, z3[k2]]) <= 1:
            continue
        if T.rank([l0, z3[k], z3[k2]]) != 3:
            fail(ctx, f"{where}: (B3) fails at unit {k2 + 1}")
        rank3.append(z3[k2])
    if not any(d):
        fail(ctx, f"{where}: the direction is 0")
    if _ev(l0, x) != 0 or _ev(z3[k], x) != 0 or _dot(l0, d) != 0 or _dot(z3[k], d) != 0:
        fail(ctx, f"{where}: the germ x + t·d does not lie on the flat ℓ0 = 0 = z^3_{k + 1}")
    for tag, phi in T.defining(s, r):
        v = _ev(phi, x)
        if tag != (layer, index) and not (v > 0 or (v == 0 and _dot(phi, d) > 0)):
            fail(ctx, f"{where}: the germ leaves the wall (defining function {tag[1] + 1} of layer {tag[0]})")
    for z in rank3:
        if _ev(z, x) == 0 and _dot(z, d) == 0:
            fail(ctx, f"{where}: the germ stays on the zero set of a piece of rank 3 in (B3)")
    return [l0[:-1], z3[k][:-1]]


def _max_on_flat(ctx, T: _Theta, pts) -> int:
    """c_i: the largest number of the points (all on H_i) on one (n0−2)-flat."""
    n0 = T.n0
    if len(pts) <= n0 - 1:
        return len(pts)
    base = pts[0]
    if T.rank([[a - b for a, b in zip(p, base)] for p in pts[1:]]) <= n0 - 2:
        return len(pts)            # the points span at most an (n0−2)-flat
    best = 1
    _charge(ctx, math.comb(len(pts), n0 - 1) * len(pts) * (n0 - 1) ** 2 * n0, "the largest number of points on a flat")
    for sub in itertools.combinations(pts, n0 - 1):
        vs = [[a - b for a, b in zip(p, sub[0])] for p in sub[1:]]
        if rank(vs) != n0 - 2:
            continue
        best = max(best, sum(rank(vs + [[a - b for a, b in zip(p, sub[0])]]) == n0 - 2 for p in pts))
    return best


@verifies(ClaimKind.DEEP_THREE_LAYER_CLASH)
def verify_three_layer_clash(evidence, ctx: Context) -> str:
    """Theorem 12.37 by (CP-L): every real θ′ with f_θ′ = f_θ is layer-1 matched."""
    T = _Theta(ctx)
    if T.n2 >= T.n0:
        fail(ctx, f"clash points need n2 < n0 (docs/mathematics.md §12.10); here n2 = {T.n2}, n0 = {T.n0}")
    rd.fields(ctx, evidence, "clash evidence", ("points",))
    _h0_t0(ctx, T)
    X = []
    for no, item in enumerate(_items(ctx, evidence["points"], "points")):
        where = f"point {no}"
        rd.fields(ctx, item, where, ("point", "flats"))
        x = _point(ctx, T, item["point"], f"{where}: point")
        normals = []
        for f_no, fl in enumerate(_items(ctx, item["flats"], f"{where}: flats")):
            normals += _edge_flat(ctx, T, fl, x, f"{where}, flat {f_no}")
        if not normals or T.rank(normals) <= T.n2:
            fail(ctx, f"{where}: not a clash point, the normals of its flats span at most n2 = {T.n2} dimensions")
        X.append(x)
    if len(set(X)) != len(X):
        fail(ctx, "a clash point is listed twice")
    _charge(ctx, len(X) * T.n1 * (T.n0 + 2), "the clash points on each H_i")
    on = [[] for _ in range(T.n1)]            # X_i°: the points on H_i and on no other H_j
    for x in X:
        zero = [j for j in range(T.n1) if _ev(T.u[j], x) == 0]
        if len(zero) == 1:
            on[zero[0]].append(x)
    m = [0 if not pts else -(-len(pts) // _max_on_flat(ctx, T, pts)) - 1 for pts in on]
    ms = sorted(m)
    for k, mk in enumerate(ms, start=1):
        if mk < k:
            fail(ctx, f"(CP-L) fails: m_(i) sorted is {ms}, and m_({k}) < {k}")
    return (f"H0₁, T0; {len(X)} clash points of edge bend flats (Definition 12.34); (CP-L) holds with m_i = {m} "
            "(Theorem 12.37): every competitor is layer-1 matched")
