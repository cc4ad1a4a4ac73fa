"""Three hidden layers: the certificate of docs/mathematics.md §12.11 (Theorem 12.37 by clash points).

For θ ∈ Ω(n0, n1, n2, n3, n4) with n2 < n0, :func:`analyse_three_layers` looks for

* the clash points of Definition 12.34 among the edge bend flats of Definition 12.23(a), with the
  germ of Lemma 12.41 for each flat through each point, and decides (CP-L) of Theorem 12.37 on them;
* the hypotheses of Corollary 12.15: full layer-1 regions (level-2 bend triples, Lemma 10.12(c)), rigid
  layer-1 edges that are connected and carry every label, and a depth-3 pinning certificate
  (Definition 12.10, witness-only form of §12.3, (a3) of Lemma 12.9);
* certificates that no hidden layer has a flip set (𝔉_1 = 𝔉_2 = 𝔉_3 = {∅}, §3 on the shallow views).

When all three are found the verdict is ``no-hidden-symmetries`` (Fib(θ) = G·θ); otherwise ``unknown``
with the step that failed as a :class:`~reluid.verdicts.Reason`.  It never gives ``hidden-symmetry``:
a flip set found is left to mechanism detection, which builds and checks its witness.  Everything is
exact (Fractions); the evidence written is what :mod:`reluid.checker.three_layers` re-verifies with
its own code.  The clash points are enumerated on lines, so n0 = 3 only.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from math import ceil
from typing import Sequence

from reluid.analysis.deep.regions import activation_regions, evaluate_row
from reluid.analysis.deep.strict import StrictBudget, rank, rref, solve_strict
from reluid.model.network import Network
from reluid.verdicts import D3Step, Outcome, Reason, ReasonCode, Verdict

__all__ = ["ThreeLayerResult", "analyse_three_layers", "hypotheses_evidence", "clash_evidence"]

ZERO = Fraction(0)
Row = tuple  # of Fractions, length n0 + 1


class _OutOfTime(Exception):
    """The caller's deadline (a ``time.monotonic()`` value) has passed."""


class _Clock:
    def __init__(self, deadline: float | None):
        self.deadline = deadline

    def check(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _OutOfTime

    def left(self) -> float | None:
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _OutOfTime
        return left


# ---------------------------------------------------------------------------
# small exact helpers
# ---------------------------------------------------------------------------

def _sig(signs: Sequence[int]) -> str:
    """(1, -1, 1) -> '+-+'."""
    return "".join("+" if v > 0 else "-" for v in signs)


def _qs(xs) -> list[str]:
    return [str(Fraction(v)) for v in xs]


def _grad(row: Row) -> tuple:
    return row[:-1]


def _nonconst(row: Row) -> bool:
    return any(row[:-1])


def _scale(c, row: Row) -> Row:
    return tuple(c * v for v in row)


def _dot(a, b) -> Fraction:
    return sum((x * y for x, y in zip(a, b) if x and y), ZERO)


def _rank_grad(*rows: Row) -> int:
    return rank([list(_grad(r)) for r in rows])


def _rank_aff(*rows: Row) -> int:
    return rank([list(r) for r in rows])


def _proportional(a: Row, b: Row) -> bool:
    """a and b are nonzero multiples of each other as affine rows."""
    return any(a) and any(b) and _rank_aff(a, b) == 1


def _flat_key(rows: Sequence[Row]) -> tuple:
    """A flat {rows = 0} keyed by the reduced row echelon form of its rows."""
    return tuple(tuple(r) for r in rref([list(r) for r in rows])[0])


def _strict_point(pos: Sequence[Row], eq: Sequence[Row], n: int):
    """A rational x with every pos row > 0 and every eq row = 0, or None (infeasible or over budget)."""
    try:
        kind, res = solve_strict([list(r[:-1]) for r in pos], [r[-1] for r in pos],
                                 [list(r[:-1]) for r in eq], [r[-1] for r in eq], n=n)
    except StrictBudget:
        return None
    return res if kind == "point" else None


# ---------------------------------------------------------------------------
# the network and its pieces
# ---------------------------------------------------------------------------

class _Theta:
    """θ's parameters as Fractions and its affine pieces u, z2^s, z3^γ (cached rows)."""

    def __init__(self, net: Network):
        L1, L2, L3, L4 = net.layers
        self.n0 = net.input_dim
        self.W1 = [list(r) for r in L1.weight]
        self.b1 = list(L1.bias)
        self.W2 = [list(r) for r in L2.weight]
        self.b2 = list(L2.bias)
        self.W3 = [list(r) for r in L3.weight]
        self.b3 = list(L3.bias)
        self.V = [list(r) for r in L4.weight]
        self.n1, self.n2, self.n3 = len(self.W1), len(self.W2), len(self.W3)
        self.u = [tuple(self.W1[j]) + (self.b1[j],) for j in range(self.n1)]
        self._z2: dict = {}
        self._z3: dict = {}

    def z2(self, s) -> list[Row]:
        """z2^s_i, i ∈ [n2]."""
        if s not in self._z2:
            out = []
            for i in range(self.n2):
                acc = [ZERO] * self.n0 + [self.b2[i]]
                for j in range(self.n1):
                    w = self.W2[i][j]
                    if s[j] > 0 and w:
                        for q in range(self.n0 + 1):
                            acc[q] += w * self.u[j][q]
                out.append(tuple(acc))
            self._z2[s] = out
        return self._z2[s]

    def z3(self, s, r) -> list[Row]:
        """z3^γ_k, k ∈ [n3], γ = (s, r)."""
        key = (s, r)
        if key not in self._z3:
            z2 = self.z2(s)
            out = []
            for k in range(self.n3):
                acc = [ZERO] * self.n0 + [self.b3[k]]
                for i in range(self.n2):
                    w = self.W3[k][i]
                    if r[i] > 0 and w:
                        for q in range(self.n0 + 1):
                            acc[q] += w * z2[i][q]
                out.append(tuple(acc))
            self._z3[key] = out
        return self._z3[key]

    def cell_rows(self, s, r) -> list[Row]:
        """The defining rows of C_γ: s_m u_m and r_i z2^s_i (all > 0 on the cell)."""
        z2 = self.z2(s)
        return [_scale(s[m], self.u[m]) for m in range(self.n1)] + [_scale(r[i], z2[i]) for i in range(self.n2)]

    def wall_rows(self, s, r, layer: int, idx: int) -> list[Row]:
        """Every defining row of γ = (s, r) except the separating one of the edge (layer, idx)."""
        z2 = self.z2(s)
        return ([_scale(s[m], self.u[m]) for m in range(self.n1) if not (layer == 1 and m == idx)]
                + [_scale(r[i], z2[i]) for i in range(self.n2) if not (layer == 2 and i == idx)])

    def ell0(self, s, layer: int, idx: int) -> Row:
        """The separating function of the edge: u_j (layer 1) or z2^s_i (layer 2)."""
        return self.u[idx] if layer == 1 else self.z2(s)[idx]

    def edge_coef(self, r, layer: int, idx: int, k: int) -> Fraction:
        """c_k of Definition 12.23(a) for an edge leaving the '+' side: W3[k][i], or (W3 D_r W2)[k][j]."""
        if layer == 2:
            return self.W3[k][idx]
        return sum((self.W3[k][i] * self.W2[i][idx] for i in range(self.n2) if r[i] > 0), ZERO)

    def flip(self, s, r, layer: int, idx: int):
        """The other end of the edge (layer, idx) at (s, r)."""
        if layer == 1:
            return tuple(-v if m == idx else v for m, v in enumerate(s)), r
        return s, tuple(-v if i == idx else v for i, v in enumerate(r))


def _theta(net: Network) -> _Theta | None:
    """θ as a three-hidden-layer network satisfying H0₁ and T0 (§12.1), or None."""
    if len(net.layers) != 4:
        return None
    th = _Theta(net)
    # H0₁: nonzero layer-1 weight rows, pairwise non-proportional rows (W1_j, b1_j)
    if not all(any(r[:-1]) for r in th.u):
        return None
    if any(_rank_aff(th.u[a], th.u[b]) < 2 for a in range(th.n1) for b in range(a + 1, th.n1)):
        return None
    # T0: V[:, k] ≠ 0 for every k
    if not all(any(th.V[o][k] for o in range(len(th.V))) for k in range(th.n3)):
        return None
    return th


def _two_layer_cells(net: Network, th: _Theta, clock: _Clock) -> dict:
    """Every nonempty two-layer cell (s, r) -> a rational interior point (activation_regions, upto=2).

    A region with a layer-1 or layer-2 pre-activation identically zero on it is no cell (a cell needs
    strict signs) and is skipped."""
    regs = activation_regions(net, upto=2, timeout=clock.left())
    if not regs.complete:
        raise _OutOfTime
    out = {}
    for reg in regs.regions:
        s, r = reg.pattern[0][0], reg.pattern[0][1]
        if 0 in s or 0 in r:
            continue
        out[(tuple(s), tuple(r))] = tuple(reg.point)
    for (s, r), p in out.items():    # re-check every interior point exactly
        assert all(evaluate_row(row, p) > 0 for row in th.cell_rows(s, r))
    return out


# ---------------------------------------------------------------------------
# Claim 1, part 1: full regions (Definition 12.13) and rigid edges (Theorem 12.14)
# ---------------------------------------------------------------------------

def _level2_flats(th: _Theta, s, cells: dict, clock: _Clock) -> list[tuple]:
    """The level-2 bend triples (γ, i, k) with layer-1 pattern s: (r, i, k, point, flat key).

    (B1) W3[k][i] ≠ 0; (B2) rank_∇[z2^s_i; z3^γ_k] = 2; (B3) every other piece is a multiple of z2^s_i
    or independent of both; (B4) a rational wall point of γ → (s, r^(i)) on the flat.  A wall point
    makes C_γ nonempty, so only the enumerated cells are tried."""
    z2 = th.z2(s)
    out = []
    for (s2, r) in cells:
        if s2 != s:
            continue
        z3 = th.z3(s, r)
        for i in range(th.n2):
            if r[i] < 0:
                continue
            zi = z2[i]
            for k in range(th.n3):
                clock.check()
                if th.W3[k][i] == 0 or _rank_grad(zi, z3[k]) != 2:
                    continue
                if not all(_rank_aff(zi, z3[k2]) <= 1 or _rank_aff(zi, z3[k], z3[k2]) == 3
                           for k2 in range(th.n3) if k2 != k):
                    continue
                p = _strict_point(th.wall_rows(s, r, 2, i), [zi, z3[k]], th.n0)
                if p is not None:
                    out.append((r, i, k, tuple(p), _flat_key([zi, z3[k]])))
    return out


def _full_region(th: _Theta, s, cells: dict, clock: _Clock):
    """The flats proving R_s full by Lemma 10.12(c), one per distinct flat, or None.

    b_i = the number of distinct flats on Z(z2^s_i); fullness by the count needs, sorted ascending,
    b_(m) ≥ m + 1 for m = 1..n2."""
    flats = _level2_flats(th, s, cells, clock)
    chosen, seen = [], set()
    for r, i, k, p, key in flats:
        if (i, key) not in seen:
            seen.add((i, key))
            chosen.append((r, i, k, p))
    b = sorted(sum(1 for i2, _ in seen if i2 == i) for i in range(th.n2))
    if all(b[m - 1] >= m + 1 for m in range(1, th.n2 + 1)):
        return chosen
    return None


def _rigid_edges(th: _Theta, full: dict) -> list[tuple]:
    """Rigid layer-1 edges (s, j): s_j = +, R_s and R_{s^(j)} full, rank[u_j; z2^s_i; z2^s_i'] = 3 ∀ i ≠ i'."""
    out = []
    for s in full:
        z2 = th.z2(s)
        for j in range(th.n1):
            if s[j] < 0:
                continue
            t = tuple(-v if m == j else v for m, v in enumerate(s))
            if t not in full:
                continue
            if all(_rank_aff(th.u[j], z2[a], z2[b]) == 3 for a in range(th.n2) for b in range(a + 1, th.n2)):
                out.append((s, j))
    return out


def _connected_all_labels(th: _Theta, edges: list[tuple]) -> list[tuple] | None:
    """A connected component of the rigid-edge graph in which every label j occurs (its edges), or None."""
    adj: dict = {}
    for s, j in edges:
        t = tuple(-v if m == j else v for m, v in enumerate(s))
        adj.setdefault(s, []).append(t)
        adj.setdefault(t, []).append(s)
    seen: set = set()
    for start in adj:
        if start in seen:
            continue
        comp, queue = {start}, deque([start])
        while queue:
            v = queue.popleft()
            for w in adj[v]:
                if w not in comp:
                    comp.add(w)
                    queue.append(w)
        seen |= comp
        mine = [(s, j) for s, j in edges if s in comp]
        if {j for _, j in mine} == set(range(th.n1)):
            return mine
    return None


# ---------------------------------------------------------------------------
# Claim 1, part 2: cells, goodness and the pinning certificate (§12.3, Definition 12.10)
# ---------------------------------------------------------------------------

class _Cell:
    """A nonempty two-layer cell with its pieces and its witnessed set K̂ (largest one keeping it good)."""

    __slots__ = ("s", "r", "point", "z3", "zeros", "khat")

    def __init__(self, th: _Theta, s, r, point, clock: _Clock):
        self.s, self.r, self.point = s, r, point
        self.z3 = th.z3(s, r)
        rows = th.cell_rows(s, r)
        nonconst = [k for k in range(th.n3) if _nonconst(self.z3[k])]
        self.zeros = {}
        for k in nonconst:
            clock.check()
            # goodness of the witness-only form: z3_k independent of every other non-constant piece
            if any(_rank_aff(self.z3[k], self.z3[k2]) != 2 for k2 in nonconst if k2 != k):
                continue
            q = _strict_point(rows, [self.z3[k]], th.n0)
            if q is not None:
                self.zeros[k] = tuple(q)
        self.khat = frozenset(self.zeros)


def _exempt(th: _Theta, row: Row, l0: Row, s) -> bool:
    """(e3t)/(e3s) need no test against a piece proportional to ℓ0, to a u_m or to a z2^s_l."""
    return (_proportional(row, l0) or any(_proportional(row, um) for um in th.u)
            or any(_proportional(row, zl) for zl in th.z2(s)))


def _e3(th: _Theta, cell: _Cell, l0: Row, k: int) -> bool:
    """rank[ℓ0; z3_k; z3_k2] = 3 on the cell for every non-constant, non-exempt k2 ≠ k."""
    z3 = cell.z3
    return all(_rank_aff(l0, z3[k], z3[k2]) == 3 for k2 in range(th.n3)
               if k2 != k and _nonconst(z3[k2]) and not _exempt(th, z3[k2], l0, cell.s))


class _Pinning:
    """Search for the depth-3 pinning certificate on the enumerated cells."""

    def __init__(self, th: _Theta, cells: list[_Cell], clock: _Clock):
        self.th, self.cells, self.clock = th, cells, clock
        self.index = {(c.s, c.r): n for n, c in enumerate(cells)}
        self.nbrs = [self._neighbours(c) for c in cells]
        self._base: dict = {}
        self._e2: dict = {}

    def _neighbours(self, c: _Cell) -> list[tuple]:
        """(index of the other cell, layer, sign index) for every enumerated adjacent cell."""
        out = []
        for layer, width in ((1, self.th.n1), (2, self.th.n2)):
            for idx in range(width):
                other = self.index.get(self.th.flip(c.s, c.r, layer, idx))
                if other is not None:
                    out.append((other, layer, idx))
        return out

    def _edge_point(self, a: int, b: int, layer: int, idx: int, k: int):
        """(e2) for a → b: rank_∇[ℓ0; z3^a_k] = 2 and a rational wall point of a → b on {ℓ0 = 0 = z3^a_k}.

        Symmetric in a, b (the pieces agree on Z(ℓ0), and so do the other defining rows)."""
        key = (min(a, b), max(a, b), k)
        if key not in self._e2:
            ca = self.cells[a]
            l0 = self.th.ell0(ca.s, layer, idx)
            p = None
            if _rank_grad(l0, ca.z3[k]) == 2:
                p = _strict_point(self.th.wall_rows(ca.s, ca.r, layer, idx), [l0, ca.z3[k]], self.th.n0)
            self._e2[key] = None if p is None else tuple(p)
        return self._e2[key]

    def _base_valid(self, a: int, b: int, layer: int, idx: int, k: int):
        """The P-independent part of validity: (p, e3t holds, e3s holds), or None."""
        key = (a, b, k)
        if key not in self._base:
            ca, cb = self.cells[a], self.cells[b]
            res = None
            if k in ca.khat and k in cb.khat:
                p = self._edge_point(a, b, layer, idx, k)
                if p is not None:
                    l0 = self.th.ell0(ca.s, layer, idx)
                    res = (p, _e3(self.th, cb, l0, k), _e3(self.th, ca, l0, k))
            self._base[key] = res
        return self._base[key]

    def valid(self, a: int, b: int, layer: int, idx: int, k: int, P: frozenset):
        """The edge point if a → b is valid for k with P (Definition 10.3 with the §12.3 substitutions)."""
        base = self._base_valid(a, b, layer, idx, k)
        if base is None:
            return None
        p, e3t, e3s = base
        if not e3t:
            return None
        n3 = self.th.n3
        if len(self.cells[b].khat | P) >= n3 - 1:
            return p
        if len(self.cells[a].khat | P) >= n3 and e3s:
            return p
        return None

    # ---- (a3) of Lemma 12.9 -------------------------------------------------
    def a3(self, members: Sequence[int]) -> bool:
        """(a3)(i) and (a3)(ii) on the cells ``members``."""
        th = self.th
        by_s: dict = {}
        for n in members:
            by_s.setdefault(self.cells[n].s, []).append(self.cells[n].r)
        cols = [[] for _ in range(th.n2)]
        for s, rs in by_s.items():
            z2 = th.z2(s)
            ref = rs[0]
            for r in rs[1:]:
                for i in range(th.n2):
                    e = (ref[i] > 0) - (r[i] > 0)
                    cols[i].extend(e * v for v in z2[i])
        if th.n2 and (not cols[0] or rank(cols) != th.n2):
            return False
        cols1 = [[v if s[j] > 0 else ZERO for s in by_s for v in th.W1[j]] for j in range(th.n1)]
        return rank(cols1) == th.n1

    # ---- one unit -------------------------------------------------------------
    def pin(self, k: int, P: frozenset):
        """(seed, [(from, to, point)]) pinning k with P, or None.

        For each good seed with k ∈ K̂, the cells reachable by valid edges (breadth first); (a3) only
        gets easier with more cells, so the whole reachable set is tested, then leaves not needed
        for (a3) are pruned from the tree."""
        for seed, c in enumerate(self.cells):
            if k not in c.khat:
                continue
            self.clock.check()
            parent = {seed: None}
            order = [seed]
            queue = deque([seed])
            while queue:
                a = queue.popleft()
                for b, layer, idx in self.nbrs[a]:
                    if b in parent:
                        continue
                    p = self.valid(a, b, layer, idx, k, P)
                    if p is not None:
                        parent[b] = (a, p)
                        order.append(b)
                        queue.append(b)
            if not self.a3(order):
                continue
            kept = set(order)
            for n in reversed(order[1:]):
                if any(parent[m] is not None and parent[m][0] == n for m in kept):
                    continue            # not a leaf of the kept tree
                if self.a3([m for m in order if m in kept and m != n]):
                    kept.discard(n)
            edges = [(parent[n][0], n, parent[n][1]) for n in order[1:] if n in kept]
            return seed, edges
        return None

    def certificate(self):
        """(order, [(unit, seed, edges)]) or None.

        Validity is monotone in P, so a greedy order (any pinnable unit next) is complete: if some
        order works, every unit pinnable with P stays pinnable with a larger P."""
        order, entries = [], []
        remaining = list(range(self.th.n3))
        while remaining:
            P = frozenset(order)
            for k in remaining:
                res = self.pin(k, P)
                if res is not None:
                    order.append(k)
                    entries.append((k,) + res)
                    remaining.remove(k)
                    break
            else:
                return None
        return order, entries


def _pinning_evidence(th: _Theta, cells: dict, clock: _Clock) -> dict | None:
    """{"cells", "order", "pinning"} of the contract (only the cells used are listed), or None."""
    objs = [_Cell(th, s, r, p, clock) for (s, r), p in sorted(cells.items(), reverse=True)]
    cert = _Pinning(th, objs, clock).certificate()
    if cert is None:
        return None
    order, entries = cert
    listed: dict = {}                       # internal cell index -> index in "cells"

    def ref(n: int) -> int:
        if n not in listed:
            listed[n] = len(listed)
        return listed[n]

    pinning = []
    for k, seed, chain in entries:
        pinning.append({"unit": k, "seed": ref(seed),
                        "edges": [{"from": ref(a), "to": ref(b), "point": _qs(p)} for a, b, p in chain]})
    cells_out = []
    for n, _ in sorted(listed.items(), key=lambda t: t[1]):
        c = objs[n]
        p = _strict_point(th.cell_rows(c.s, c.r), [], th.n0) or c.point     # a simpler interior point
        cells_out.append({"signs": _sig(c.s), "cell": _sig(c.r), "point": _qs(p),
                          "zeros": [{"unit": k, "point": _qs(q)} for k, q in sorted(c.zeros.items())]})
    return {"cells": cells_out, "order": list(order), "pinning": pinning}


def hypotheses_evidence(net: Network, deadline: float | None = None, *,
                        cells: dict | None = None) -> tuple[dict | None, D3Step | None]:
    """Evidence of claim ``"deep-three-layer-hypotheses"`` (Corollary 12.15), or None.

    Parameters
    ----------
    net : Network
        Three hidden layers (four layer maps).
    deadline : float, optional
        A ``time.monotonic()`` value; None is returned once it has passed.
    cells : dict, optional
        The nonempty two-layer cells with interior points, when the caller has them (as
        :func:`analyse_three_layers` does, for both searches); else they are enumerated here.

    Returns
    -------
    (dict, None) or (None, D3Step)
        ``{"regions", "edges", "cells", "order", "pinning"}`` (docs/certificates.md), or the step that
        failed (or was running when the deadline passed): H0₁/T0, no full region, no connected rigid
        edges carrying every label, or no pinning certificate on the two-layer cells.
    """
    clock = _Clock(deadline)
    step = D3Step.H0_T0
    try:
        th = _theta(net)
        if th is None:
            return None, step
        step = D3Step.FULL_REGIONS
        cells = _two_layer_cells(net, th, clock) if cells is None else cells
        full = {}
        for s in sorted({s for s, _ in cells}, reverse=True):
            flats = _full_region(th, s, cells, clock)
            if flats is not None:
                full[s] = flats
        if not full:
            return None, step
        step = D3Step.RIGID_EDGES
        edges = _connected_all_labels(th, _rigid_edges(th, full))
        if edges is None:
            return None, step
        used = {s for s, _ in edges} | {tuple(-v if m == j else v for m, v in enumerate(s)) for s, j in edges}
        step = D3Step.PINNING
        pin = _pinning_evidence(th, cells, clock)
        if pin is None:
            return None, step
    except _OutOfTime:
        return None, step
    regions = [{"signs": _sig(s), "flats": [{"cell": _sig(r), "neuron": i, "unit": k, "point": _qs(p)}
                                            for r, i, k, p in full[s]]}
               for s in sorted(used, reverse=True)]
    return {"regions": regions, "edges": [{"signs": _sig(s), "label": j} for s, j in edges], **pin}, None


# ---------------------------------------------------------------------------
# Claim 2: clash points of the edge bend flats (Definition 12.23(a), §12.10), n0 = 3
# ---------------------------------------------------------------------------

def _cross(a, b) -> tuple:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _primitive(v) -> tuple:
    """A positive multiple of the rational vector v with coprime integer entries."""
    from math import gcd, lcm
    den = lcm(*(Fraction(x).denominator for x in v))
    ints = [int(Fraction(x) * den) for x in v]
    g = 0
    for x in ints:
        g = gcd(g, x)
    return tuple(Fraction(x // g) for x in ints) if g else tuple(Fraction(x) for x in ints)


def _line_point(a: Row, b: Row):
    """A rational point of {a = 0 = b} (gradients independent)."""
    R, piv = rref([list(a[:3]) + [-a[3]], list(b[:3]) + [-b[3]]])
    x = [ZERO] * 3
    for row, pc in zip(R, piv):
        x[pc] = row[3]
    return tuple(x)


class _EdgeFlat:
    """An edge bend triple (γ → γ′, k) with (B1)–(B3), its line x0 + τ·dir and the open τ-interval of
    its wall points; the active part is that interval less finitely many points (zeros of the rank-3
    pieces), so its closure is the closed interval."""

    __slots__ = ("s", "r", "layer", "idx", "k", "l0", "zk", "walls", "r3", "x0", "dir", "lo", "hi")

    def ends(self, tau: Fraction) -> bool:
        return (self.lo is None or self.lo <= tau) and (self.hi is None or tau <= self.hi)

    def tau(self, x) -> Fraction:
        q = next(m for m in range(3) if self.dir[m] != 0)
        return (x[q] - self.x0[q]) / self.dir[q]

    def germ(self, tau: Fraction) -> tuple:
        """The germ direction at x0 + τ·dir: into the interval (+dir unless τ is its upper end)."""
        return tuple(-v for v in self.dir) if (self.hi is not None and tau == self.hi) else self.dir


def _interval(walls: Sequence[Row], x0, d):
    """{τ : φ(x0 + τ d) > 0 for every φ} as (lo, hi) (None = unbounded), or None if empty."""
    lo = hi = None
    for w in walls:
        a, b = _dot(w[:3], d), evaluate_row(w, x0)
        if a == 0:
            if b <= 0:
                return None
        elif a > 0:
            t = -b / a
            lo = t if lo is None or t > lo else lo
        else:
            t = -b / a
            hi = t if hi is None or t < hi else hi
    if lo is not None and hi is not None and lo >= hi:
        return None
    return lo, hi


def _edge_flats(th: _Theta, cells: dict, clock: _Clock) -> list[_EdgeFlat]:
    """Every edge bend triple with a nonempty active part, on layer-2 edges leaving r_i = + and layer-1
    edges leaving s_j = + of the enumerated cells (the other direction gives the same flat and active
    part, Definition 12.23(a), and a wall point makes both cells nonempty)."""
    out = []
    for (s, r) in cells:
        z3 = th.z3(s, r)
        edges = [(2, i) for i in range(th.n2) if r[i] > 0] + [(1, j) for j in range(th.n1) if s[j] > 0]
        for layer, idx in edges:
            l0 = th.ell0(s, layer, idx)
            if not _nonconst(l0):
                continue
            walls = th.wall_rows(s, r, layer, idx)
            for k in range(th.n3):
                clock.check()
                if th.edge_coef(r, layer, idx, k) == 0 or _rank_grad(l0, z3[k]) != 2:
                    continue
                r3, ok = [], True
                for k2 in range(th.n3):
                    if k2 == k or _rank_aff(l0, z3[k2]) <= 1:
                        continue
                    if _rank_aff(l0, z3[k], z3[k2]) != 3:
                        ok = False
                        break
                    r3.append(z3[k2])
                if not ok:
                    continue
                f = _EdgeFlat()
                f.s, f.r, f.layer, f.idx, f.k, f.l0, f.zk, f.walls, f.r3 = s, r, layer, idx, k, l0, z3[k], walls, r3
                f.x0 = _line_point(l0, z3[k])
                f.dir = _primitive(_cross(l0[:3], z3[k][:3]))
                iv = _interval(walls, f.x0, f.dir)
                if iv is None:
                    continue
                f.lo, f.hi = iv
                out.append(f)
    return out


def _meet(A: _EdgeFlat, B: _EdgeFlat):
    """The point where the non-parallel lines of A and B meet, or None (parallel or skew)."""
    if not any(_cross(A.dir, B.dir)):
        return None
    tau = None
    for e in (B.l0, B.zk):                         # e(x0A + τ dirA) = 0
        a, b = _dot(e[:3], A.dir), evaluate_row(e, A.x0)
        if a == 0:
            if b != 0:
                return None
            continue
        t = -b / a
        if tau is None:
            tau = t
        elif t != tau:
            return None
    if tau is None:                                # cannot happen for non-parallel lines
        return None
    return tuple(A.x0[m] + tau * A.dir[m] for m in range(3))


def _germ_ok(f: _EdgeFlat, x, d) -> bool:
    """The checker's test that x lies in the closure of A(S) via the germ x + t·d, t → 0+."""
    if evaluate_row(f.l0, x) != 0 or evaluate_row(f.zk, x) != 0 or not any(d):
        return False
    if _dot(f.l0[:3], d) != 0 or _dot(f.zk[:3], d) != 0:
        return False
    for w in f.walls:
        v = evaluate_row(w, x)
        if v < 0 or (v == 0 and _dot(w[:3], d) <= 0):
            return False
    return all(evaluate_row(p, x) != 0 or _dot(p[:3], d) != 0 for p in f.r3)


def _max_collinear(points) -> int:
    pts = list(points)
    if len(pts) <= 2:
        return len(pts)
    best = 2
    for a, p in enumerate(pts):
        cnt: dict = {}
        for q in pts[a + 1:]:
            d = [q[m] - p[m] for m in range(3)]
            lead = next(v for v in d if v != 0)
            key = tuple(v / lead for v in d)
            cnt[key] = cnt.get(key, 0) + 1
        if cnt:
            best = max(best, 1 + max(cnt.values()))
    return best


def _cp_l(th: _Theta, X) -> tuple[bool, list]:
    """(CP-L) of Theorem 12.37 on the points X: (holds, [(|X_i°|, c_i, m_i)])."""
    stats = []
    for i in range(th.n1):
        Xi = [x for x in X if evaluate_row(th.u[i], x) == 0
              and all(evaluate_row(th.u[m], x) != 0 for m in range(th.n1) if m != i)]
        c = _max_collinear(Xi)
        stats.append((len(Xi), c, ceil(len(Xi) / c) - 1 if c else 0))
    ms = sorted(m for _, _, m in stats)
    return all(ms[k - 1] >= k for k in range(1, th.n1 + 1)), stats


def _clash_points(th: _Theta, cells: dict, clock: _Clock) -> list[tuple]:
    """[(x, [(flat, germ direction)])]: every clash point of the edge flats, with every flat whose
    closed active interval holds it (n0 = 3, n2 < 3)."""
    flats = _edge_flats(th, cells, clock)
    lines: dict = {}
    for n, f in enumerate(flats):
        lines.setdefault(_flat_key([f.l0, f.zk]), []).append(n)
    reps = [members for _, members in sorted(lines.items())]
    found: dict = {}                            # point -> the lines through it that hold it
    for a in range(len(reps)):
        A = flats[reps[a][0]]
        for b in range(a + 1, len(reps)):
            clock.check()
            x = _meet(A, flats[reps[b][0]])
            if x is None:
                continue
            if any(flats[n].ends(flats[n].tau(x)) for n in reps[a]) and \
                    any(flats[n].ends(flats[n].tau(x)) for n in reps[b]):
                found.setdefault(x, set()).update((a, b))
    if th.n2 == 1:              # one flat has gradient rank 2 > n2: the ends of its interval clash too
        for a, members in enumerate(reps):
            for n in members:
                f = flats[n]
                for t in (f.lo, f.hi):
                    if t is not None:
                        found.setdefault(tuple(f.x0[m] + t * f.dir[m] for m in range(3)), set()).add(a)
    points = []
    for x in sorted(found):
        through = [a for a in range(len(reps)) if evaluate_row(flats[reps[a][0]].l0, x) == 0
                   and evaluate_row(flats[reps[a][0]].zk, x) == 0]
        entry = []
        for a in through:
            for n in reps[a]:
                f = flats[n]
                tau = f.tau(x)
                if f.ends(tau):
                    d = f.germ(tau)
                    assert _germ_ok(f, x, d)
                    entry.append((f, d))
        assert rank([list(g[:3]) for f, _ in entry for g in (f.l0, f.zk)]) > th.n2
        points.append((x, entry))
    return points


def clash_evidence(net: Network, deadline: float | None = None, *,
                   cells: dict | None = None) -> tuple[dict | None, tuple[int, list[int]]]:
    """Evidence of claim ``"deep-three-layer-clash"`` (Theorem 12.37 through (CP-L)), or None.

    For n0 = 3 and n2 < 3 only.  The flats are the edge bend flats of Definition 12.23(a) (layer-1 and
    layer-2 edges); each clash point is listed with every flat whose closed active interval holds
    it, each with a germ direction into that interval.  For n2 = 2 the clash points are the meeting
    points of two non-parallel flats; for n2 = 1 a single flat already has gradient rank 2 > n2, and
    the finite ends of the active intervals are added as well.  Returns (evidence or None, (number of
    clash points, m_i of (CP-L))); None when θ is not of that shape, fails H0₁ or T0, (CP-L) fails on
    the points found, or the deadline (a ``time.monotonic()`` value) passes.
    """
    clock = _Clock(deadline)
    try:
        th = _theta(net) if net.input_dim == 3 else None
        if th is None or th.n2 >= 3:
            return None, (0, [])
        points = _clash_points(th, _two_layer_cells(net, th, clock) if cells is None else cells, clock)
        holds, stats = _cp_l(th, [x for x, _ in points])
        m = (len(points), [mi for _, _, mi in stats])
        if not holds:
            return None, m
    except _OutOfTime:
        return None, (0, [])
    return {"points": [{"point": _qs(x),
                        "flats": [{"signs": _sig(f.s), "cell": _sig(f.r), "layer": f.layer, "index": f.idx,
                                   "unit": f.k, "direction": _qs(d)} for f, d in entry]}
                       for x, entry in points]}, m


# ---------------------------------------------------------------------------
# the analysis
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ThreeLayerResult:
    """What the §12.11 analysis found (frozen).

    Attributes
    ----------
    architecture : tuple of int
    verdict : Verdict
        ``NO_HIDDEN`` when every part below was found, else ``UNKNOWN``.
    reason : Reason or None
        Why the verdict is unknown (the step that failed), as data.
    clash : dict or None
        The ``deep-three-layer-clash`` evidence.
    cp_l : tuple of int
        The numbers m_i of (CP-L) on the clash points found.
    hypotheses : dict or None
        The ``deep-three-layer-hypotheses`` evidence.
    layer_flips : tuple of FlipSetResult
        The flip-set answers for hidden layers 1, 2, 3 (those reached).
    seconds : float
    """

    architecture: tuple[int, ...]
    verdict: Verdict
    reason: Reason | None = None
    clash: dict | None = None
    cp_l: tuple[int, ...] = ()
    hypotheses: dict | None = None
    layer_flips: tuple = ()
    seconds: float = 0.0

    #: a §12.11 verdict never has a witness (hidden symmetries are left to the mechanisms)
    witness = None


def _views(net: Network):
    return [Network((a, b)).shallow() for a, b in zip(net.layers, net.layers[1:])]


def analyse_three_layers(net: Network, *, timeout: float | None = 60.0) -> ThreeLayerResult:
    """Decide the certificate of docs/mathematics.md §12.11 for a network with three hidden layers, exactly.

    ``timeout`` bounds the whole analysis (None: unbounded); when it runs out the verdict is
    ``unknown`` with :attr:`~reluid.verdicts.ReasonCode.D3_TIMEOUT` and the step it was in.

    >>> from reluid.model.network import Network
    >>> net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 1], [1, -1]], [0, 1]),
    ...                           ([[1, 2]], [0]), ([[1]], [0])])
    >>> r = analyse_three_layers(net)
    >>> r.verdict.value, r.reason.code.value
    ('unknown', 'd3-wide')
    """
    from reluid.analysis.shallow.flipsets import find_flip_set

    start = time.monotonic()
    end = None if timeout is None else start + timeout
    arch = tuple(net.architecture)
    n0, n1, n2 = arch[:3]

    def result(verdict, reason=None, **kw):
        return ThreeLayerResult(arch, verdict, reason, seconds=time.monotonic() - start, **kw)

    def late():
        return end is not None and time.monotonic() > end

    if n2 >= n0:
        return result(Verdict.UNKNOWN, Reason(ReasonCode.D3_WIDE, {"n0": n0, "n2": n2}))
    if n0 != 3:
        return result(Verdict.UNKNOWN, Reason(ReasonCode.D3_CLASH_INPUT, {"n0": n0}))
    th = _theta(net) if len(net.layers) == 4 else None
    if th is None:
        return result(Verdict.UNKNOWN, Reason(ReasonCode.D3_HYPOTHESIS, {"step": D3Step.H0_T0}))
    try:        # the two-layer cells, shared by both searches
        cells = _two_layer_cells(net, th, _Clock(end))
    except _OutOfTime:
        return result(Verdict.UNKNOWN, Reason(ReasonCode.D3_TIMEOUT, {"step": D3Step.CLASH_POINTS}))
    clash, m = clash_evidence(net, deadline=end, cells=cells)
    if clash is None:
        if late():
            return result(Verdict.UNKNOWN, Reason(ReasonCode.D3_TIMEOUT, {"step": D3Step.CLASH_POINTS}))
        return result(Verdict.UNKNOWN, Reason(ReasonCode.D3_NO_CP, {"points": m[0], "m": list(m[1])}))
    flips = []
    for theta in _views(net):
        left = None if end is None else max(0.5, end - time.monotonic())
        flips.append(find_flip_set(theta, timeout=left))
    if any(r.outcome is not Outcome.NONE for r in flips):
        layers = [[layer, r.outcome is Outcome.FOUND] for layer, r in enumerate(flips, start=1)
                  if r.outcome is not Outcome.NONE]
        return result(Verdict.UNKNOWN, Reason(ReasonCode.D3_FLIPS, {"layers": layers}), clash=clash, cp_l=tuple(m[1]),
                      layer_flips=tuple(flips))
    hyp, step = hypotheses_evidence(net, deadline=end, cells=cells)
    if hyp is None:
        code = ReasonCode.D3_TIMEOUT if late() else ReasonCode.D3_HYPOTHESIS
        return result(Verdict.UNKNOWN, Reason(code, {"step": step}), clash=clash, cp_l=tuple(m[1]),
                      layer_flips=tuple(flips))
    return result(Verdict.NO_HIDDEN, clash=clash, cp_l=tuple(m[1]), hypotheses=hyp, layer_flips=tuple(flips))
