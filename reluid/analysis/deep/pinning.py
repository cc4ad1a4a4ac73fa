"""Two hidden layers on partial regions: Theorem W and Lemma H4-count.

Theorem W (docs/mathematics.md §10, Theorem 10.11; the H4 count is Lemma 10.12)
keeps H0 and H4 of docs/mathematics.md §8, adds H0′ (the rows (W_k, w_k) pairwise
non-proportional, W_k ≠ 0) and replaces H1–H3 by a *pinning certificate*: an order k_1, …, k_{n2}
of the layer-2 neurons, for each k_m a good seed region with k_m visible and directed edges
s → s^(j), each valid for k_m with P = {k_1, …, k_{m−1}} ((e2)–(e4)), reaching a set 𝒞 of regions
on which Lemma W.3 (a) or (b) holds.

Frames
    Everything is a statement about affine functionals of x and strict systems in them.  When
    rank A = n1 (so n1 <= n0) the map x ↦ u = Ax + a is onto R^{n1}, every sign pattern is a
    region, and every such statement about functions of u can be decided in u-coordinates
    (``frame = "u"``: u_j = e_j, regions are orthants, ranks are preserved because
    (c, c0) ↦ (cA, c·a + c0) is injective).  Otherwise the coordinates are x (``frame = "x"``):
    on the regions of §8's sign tree (small n1) strict systems are solved by Fourier–Motzkin
    (:mod:`reluid.analysis.deep.strict`); without them (n1 > 14), or when they give no certificate,
    regions along lines, zeros, wall points and Motzkin vectors come from the LP-guided exact search
    of :mod:`reluid.analysis.deep.xsearch` (:class:`_LineSearch`).
Visibility (exact both ways)
    K_s = {k : ∇g^s_k ≠ 0 and Z(g^s_k) meets R_s}: a rational witness or a Motzkin vector in the x
    frame; in the u frame the rule :func:`orthant_zero` (a zero of Σ c_i u_i + w on an orthant
    exists iff the coefficients on the free coordinates are of both signs, or some has the sign
    opposite to w).
H4
    Lemma H4-count: a hyperplane P ≠ H_j meets H_j in at most one (n0−2)-flat, so it contains at
    most one bend flat lying on H_j.  If b_j distinct bend flats are certified on H_j and, sorted,
    b_(m) > m for every m = 1..n1, then every nonempty I holds a j with b_j > |I| and no |I|
    non-H hyperplanes cover the flats on ∪_{j∈I} H_j.  The exhaustive cover search of §8 is the
    fallback for small n1.

Nothing here is a float; the regions of the u frame at size are chosen, not enumerated.
"""

from __future__ import annotations

import math
import random
from collections import Counter
import time
from dataclasses import dataclass
from fractions import Fraction

from reluid.analysis.deep.strict import StrictBudget, nullspace, rank, rref, solve_strict
from reluid.model.network import Network
from reluid.verdicts import CoverMethod, PinningCase, Reason, ReasonCode, WFailure
from reluid.verdicts import Frame as FrameKind

__all__ = ["PinningResult", "analyse_pinning", "orthant_zero", "u_frame_b", "count_condition", "choose_frame", "MAX_B_WIDTH",
           "REFERENCE"]

ZERO = Fraction(0)
ONE = Fraction(1)
REFERENCE = ("Theorem W and Lemma H4-count (docs/mathematics.md §10, Theorem 10.11 and Lemma 10.12), "
             "with H0 and H4 of docs/mathematics.md §8")
#: W.3(b) enumerates the sets F ⊆ [n1] only up to this width.
MAX_B_WIDTH = 12
#: The exhaustive H4 cover search is used only up to this width.
MAX_EXHAUSTIVE = 10
#: u frame: all 2^n1 orthants up to this width, a chosen family beyond.
MAX_ALL_ORTHANTS = 10
_PRIME = (1 << 61) - 1


class _Budget(Exception):
    """The analysis stopped at its budget; ``reason`` says which."""

    def __init__(self, reason: Reason):
        super().__init__(reason)
        self.reason = reason


def count_condition(counts) -> bool:
    """Lemma H4-count: for every nonempty I ⊆ [n1] some j ∈ I has b_j > |I|  ⟺  sorted, b_(m) > m for all m.

    >>> count_condition([2, 3, 4]), count_condition([3, 3, 3]), count_condition([4, 4, 4]), count_condition([2, 2, 5])
    (True, False, True, False)
    """
    return all(b > m for m, b in enumerate(sorted(counts), start=1))


def orthant_zero(coeffs, w) -> bool:
    """Is Σ c_i v_i + w = 0 for some v_i > 0 (i over the free coordinates), with some c_i ≠ 0?

    The coordinates with negative sign carry coefficient 0 on a region of layer 1 (σ kills
    them), so only positive coordinates are free here.  True iff the nonzero c_i have both
    signs, or one has the sign opposite to w.  (Witness: all v_i = 1 but one block scaled;
    otherwise z = ∓1 with y_i = ±c_i is a Motzkin vector.)

    >>> orthant_zero([1, 2], 1), orthant_zero([1, -2], 0), orthant_zero([1, 2], -1), orthant_zero([0], -1)
    (False, True, True, False)
    """
    pos = any(c > 0 for c in coeffs)
    neg = any(c < 0 for c in coeffs)
    return (pos and neg) or (pos and w < 0) or (neg and w > 0)


def u_frame_b(Wk, s0, covered) -> bool:
    """Lemma W.3(b) for every F at once, when the gradients of the u_i are independent (the u frame).

    With d = x − W_k, the F-system reads d ∈ D (the kernel of (a)) and, coordinate by coordinate
    in u, d_i[s0_i = +] − [i ∈ F](W_ki + d_i) = 0; D = {d : d_i = 0 for every i covered by a
    region of 𝒞 that differs from s0 at i}.  A coordinate i not covered is free, and some F is
    consistent with a nonzero d unless s0_i = + and W_ki ≠ 0 (then i ∉ F forces d_i = 0 and i ∈ F
    is inconsistent).  Covered coordinates are consistent with i ∉ F.  So (b) holds iff every
    uncovered i has s0_i = + and W_ki ≠ 0.

    >>> u_frame_b([1, 2, 3], (1, 1, 1), {0}), u_frame_b([1, 0, 3], (1, 1, 1), {0}), u_frame_b([1, 2, 3], (1, -1, 1), {0})
    (True, False, False)
    """
    return all(i in covered or (s0[i] > 0 and Wk[i] != 0) for i in range(len(s0)))


def _norm(v):
    """v up to a nonzero factor (None for v = 0): integers by their gcd and the sign of the lead, else / lead."""
    lead = next((x for x in v if x != 0), None)
    if lead is None:
        return None
    if all(type(x) is int for x in v):
        g = math.gcd(*v)
        g = g if lead > 0 else -g
        return tuple(x // g for x in v)
    return tuple(x / lead for x in v)


def _integer_rows(W, w):
    """Each row (W_k, w_k) times the positive lcm of its denominators: integer rows with the same zero sets,
    signs and proportionalities (every statement of Theorem W about layer 2 is invariant under it)."""
    out = []
    for row, b in zip(W, w):
        m = math.lcm(*(x.denominator for x in row), b.denominator)
        out.append(tuple(int(x * m) for x in row) + (int(b * m),))
    return out


@dataclass(frozen=True, slots=True)
class Frame:
    kind: str                              # "x" or "u"
    dim: int
    minor: tuple[int, ...] | None = None   # u frame: columns of A with a nonsingular n1 × n1 minor


def choose_frame(net: Network) -> Frame:
    """The u frame when rank A = n1 (certified by a nonsingular n1 × n1 column minor), else the x frame."""
    A = net.layers[0].weight
    n1, n0 = len(A), len(A[0])
    if n1 <= n0:
        cols = _independent_columns(A)
        if cols is not None:
            return Frame(FrameKind.U, n1, cols)
    return Frame(FrameKind.X, n0)


#: The prime of :func:`_independent_columns`' first try (2^61 - 1).
_FRAME_PRIME = (1 << 61) - 1


def _independent_columns(A):
    """n1 columns of A forming a nonsingular minor (the pivot columns of rref A, or of rref A mod p), or None.

    Each row is scaled to integers (a nonzero scaling of a row keeps every minor's (non)singularity) and
    reduced modulo the prime 2^61 - 1 first: n1 pivot columns modulo p are a minor whose determinant is
    nonzero modulo p, hence nonzero.  Only when the rank modulo p is short of n1 is A reduced exactly
    (over Q an exact rref of a 128 × 784 float32 matrix takes tens of seconds; modulo p, milliseconds).
    """
    n1, n0 = len(A), len(A[0])
    try:
        import flint
    except ImportError:  # pragma: no cover - flint is a dependency
        R, piv = rref([list(r) for r in A])
        return tuple(piv) if len(piv) == n1 else None
    p = _FRAME_PRIME
    rows = []
    for r in A:
        den = math.lcm(*(x.denominator for x in r))
        rows.append([int(x * den) % p for x in r])
    Rp, rp = flint.nmod_mat(rows, p).rref()
    if rp == n1:
        return _pivots(Rp, n1)
    M = flint.fmpq_mat(n1, n0, [flint.fmpq(x.numerator, x.denominator) for r in A for x in r])
    R, r = M.rref()
    return _pivots(R, n1) if r == n1 else None


def _pivots(R, n1: int) -> tuple[int, ...]:
    """The pivot columns of the first n1 rows of a reduced row echelon form."""
    piv, c = [], 0
    for i in range(n1):          # rref: the pivots increase, and row i is zero before its pivot
        while R[i, c] == 0:
            c += 1
        piv.append(c)
    return tuple(piv)


@dataclass(frozen=True, slots=True)
class PinningResult:
    """What :func:`analyse_pinning` established (frozen; 0-based indices)."""

    holds: bool
    failed: WFailure | None
    detail: Reason | str                   # why it fails (a Reason), or what holds (a summary)
    frame: Frame | None = None
    regions: tuple = ()                    # (signs, point or None, visible {k: point|None}, invisible {k: farkas|None})
    order: tuple = ()                      # (neuron, seed index, ((region index, j, wall point), ...), method)
    unpinned: tuple[int, ...] = ()
    flats: tuple = ()                      # (signs, j, k, point or None)
    flat_counts: tuple[int, ...] = ()
    h4_method: str | None = None
    h4_trees: tuple | None = None          # the exhaustive method's cover trees (h4_trees.py), for the certificate
    systems: int = 0
    seconds: float = 0.0


class _Region:
    __slots__ = ("signs", "point", "g", "K", "vis", "inv", "good")


class _W:
    def __init__(self, net: Network, frame: Frame, deadline, max_rows):
        self.net = net
        self.n0, self.n1, self.n2, self.n3 = net.architecture
        L1, L2, L3 = net.layers
        self.A, self.a, self.W, self.w, self.V = L1.weight, L1.bias, L2.weight, L2.bias, L3.weight
        self.frame = frame
        d = self.d = frame.dim
        if frame.kind == FrameKind.U:
            self.u = [tuple(ONE if t == j else ZERO for t in range(d)) + (ZERO,) for j in range(self.n1)]
            self.piv = list(range(self.n1))
        else:
            self.u = [tuple(self.A[j]) + (self.a[j],) for j in range(self.n1)]
            self.piv = [next((t for t in range(d) if self.A[j][t] != 0), 0) for j in range(self.n1)]
        self.deadline, self.max_rows = deadline, max_rows
        self.max_systems = None
        self.Wint = _integer_rows(self.W, self.w) if frame.kind == FrameKind.U else None
        self.systems = 0
        self.regions: dict[tuple, _Region] = {}
        self._walls: dict = {}
        self._wallpt: dict = {}
        self.xs = None                     # the LP-guided search of the x frame (xsearch.XSearch), when used
        self._g: dict = {}
        self._w3a: dict = {}
        self._w3a_v = None

    def tick(self):
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Budget(Reason(ReasonCode.W_STRICT_BUDGET, {"systems": self.systems, "limit": None}))

    def strict(self, B, b, C, c):
        self.systems += 1
        if self.max_systems is not None and self.systems > self.max_systems:
            raise _Budget(Reason(ReasonCode.W_STRICT_BUDGET, {"systems": self.systems, "limit": self.max_systems}))
        self.tick()
        try:
            return solve_strict(B, b, C, c, n=self.d, max_rows=self.max_rows)
        except StrictBudget as e:
            raise _Budget(Reason(ReasonCode.FM_ROW_BUDGET, e.params)) from None

    def g(self, s):
        if self.xs is not None:
            if s not in self._g:
                self._g[s] = self.xs.pieces(s)
            return self._g[s]
        d = self.d
        out = []
        for k in range(self.n2):
            if self.frame.kind == FrameKind.U:
                r = self.Wint[k]
                v = [r[i] if s[i] > 0 else 0 for i in range(self.n1)] + [r[-1]]
            else:
                v = [ZERO] * (d + 1)
                for i in range(self.n1):
                    if s[i] > 0 and self.W[k][i]:
                        v = [x + self.W[k][i] * y for x, y in zip(v, self.u[i])]
                v[-1] += self.w[k]
            out.append(tuple(v))
        return out

    def rows(self, s, skip=None):
        B = [[s[i] * x for x in self.u[i][:-1]] for i in range(self.n1) if i != skip]
        b = [s[i] * self.u[i][-1] for i in range(self.n1) if i != skip]
        return B, b

    # ---- regions and visibility -------------------------------------------------
    def region(self, s, point=None) -> _Region:
        if s in self.regions:
            return self.regions[s]
        self.tick()
        R = _Region()
        R.signs, R.point, R.g = s, point, self.g(s)
        R.K, R.vis, R.inv = set(), {}, {}
        if self.xs is not None:
            hints = {}
            for j in range(self.n1):        # zeros pushed into R_s from the wall points already found
                key = (s[:j] + (1,) + s[j + 1:], j)
                if key + (0,) in self._wallpt:
                    got = {k: self._wallpt[key + (k,)] for k in range(self.n2) if k not in hints}
                    hints.update(self.xs.push(s, j, got))
            R.vis, R.inv = self.xs.visibility(s, hints)
            R.K = set(R.vis)
        for k in ([] if self.xs is not None else range(self.n2)):
            gk = R.g[k]
            if not any(gk[:-1]):
                R.inv[k] = None                    # constant on R_s: recomputed by the checker
                continue
            if self.frame.kind == FrameKind.U:
                if orthant_zero(gk[:-1], gk[-1]):
                    R.K.add(k)
                    R.vis[k] = None
                else:
                    R.inv[k] = None
                continue
            B, b = self.rows(s)
            kind, res = self.strict(B, b, [list(gk[:-1])], [gk[-1]])
            if kind == "point":
                R.K.add(k)
                R.vis[k] = tuple(res)
            else:
                y, z = res
                R.inv[k] = (tuple(y), tuple(z))
        norms = [_norm(self._gint(s)[k] if self.xs is not None else R.g[k]) for k in R.K]
        R.good = len(set(norms)) == len(norms)
        self.regions[s] = R
        return R

    # ---- walls ------------------------------------------------------------------
    def wall(self, s, j):
        """Reduced normal forms of g^s_k modulo u_j (the same for s and s^(j)), for every k."""
        key = (s[:j] + (1,) + s[j + 1:], j)
        if key not in self._walls:
            g = self.regions[s].g if s in self.regions else self.g(s)
            uj, p = self.u[j], self.piv[j]
            if self.xs is not None:     # the same normal forms from integer rows: U_j[p]·g − g[p]·U_j
                g, uj = self._gint(s), self.xs.U[j]
                if uj[p] < 0:
                    uj = [-x for x in uj]
            red = []
            for k in range(self.n2):
                if self.frame.kind == FrameKind.U:
                    v = g[k][:j] + (0,) + g[k][j + 1:]
                elif self.xs is not None:
                    v = tuple(uj[p] * x - g[k][p] * y for x, y in zip(g[k], uj))
                else:
                    f = g[k][p] / uj[p]
                    v = tuple(x - f * y for x, y in zip(g[k], uj))
                red.append((any(v[:-1]), _norm(v)))
            self._walls[key] = red
        return self._walls[key]

    def _gint(self, s):
        key = ("int", s)
        if key not in self._g:
            self._g[key] = self.xs.pieces_int(s)
        return self._g[key]

    def wall_point(self, s, j, k):
        """A point of S = {u_j = 0 = g^s_k} on the wall of (s, j) (B4, e2), or None (u frame: True)."""
        key = (s[:j] + (1,) + s[j + 1:], j, k)
        if key not in self._wallpt and self.xs is not None:
            self.tick()
            red = self.wall(s, j)
            ks = [k2 for k2 in range(self.n2) if red[k2][0]]
            got = self.xs.zeros(key[0], ks, skip=j)
            for k2 in range(self.n2):
                self._wallpt[key[:2] + (k2,)] = got.get(k2)
        if key not in self._wallpt:
            red = self.wall(s, j)[k]
            if not red[0]:
                self._wallpt[key] = None
            elif self.frame.kind == FrameKind.U:
                g = self.regions[s].g[k] if s in self.regions else self.g(s)[k]
                coeffs = [g[i] for i in range(self.n1) if i != j]
                self._wallpt[key] = True if orthant_zero(coeffs, g[-1]) else None
            else:
                g = self.regions[s].g[k] if s in self.regions else self.g(s)[k]
                B, b = self.rows(s, skip=j)
                kind, res = self.strict(B, b, [list(self.u[j][:-1]), list(g[:-1])], [self.u[j][-1], g[-1]])
                self._wallpt[key] = tuple(res) if kind == "point" else None
        return self._wallpt[key]

    def valid(self, s, t, j, k, P) -> bool:
        Rs, Rt = self.regions[s], self.regions[t]
        if not (Rs.good and Rt.good and k in Rs.K and k in Rt.K):
            return False
        red = self.wall(s, j)
        if not red[k][0]:
            return False                                           # (e2) rank_∇
        for k2 in (Rs.K | Rt.K) - {k}:                              # (e3), modulo u_j
            if red[k2][1] is None or red[k2][1] == red[k][1]:
                return False
        n2 = self.n2
        if not (len(Rt.K) + len(P - Rt.K) >= n2 - 1 or len(Rs.K) + len(P - Rs.K) >= n2):
            return False                                           # (e4)
        return self.wall_point(s, j, k) is not None                # (e2) S meets the wall

    # ---- W.3 ----------------------------------------------------------------------
    def w3a_rows(self, s0, s):
        """The rows of Σ_i d_i([s0_i=+] − [s_i=+]) u_i = 0 for one region s (columns i)."""
        c = [int(s0[i] > 0) - int(s[i] > 0) for i in range(self.n1)]
        return [[c[i] * self.u[i][t] for i in range(self.n1)] for t in range(self.d + 1)], c

    def w3a(self, s0, C) -> bool:
        """Lemma W.3(a): the difference system has rank n1 — modulo a prime first (rank mod p ≤ rank over Q,
        on the rows scaled to integers column by column), exactly when that is inconclusive."""
        key = (s0, len(C))
        if key not in self._w3a:
            import flint

            n1, d = self.n1, self.d
            if self._w3a_v is None:     # u_i times a positive integer, then two fixed combinations mod p
                U = _integer_rows([r[:-1] for r in self.u], [r[-1] for r in self.u])
                self._w3a_v = [[sum(pow(3 + e, t, _PRIME) * Ui[t] for t in range(d + 1)) % _PRIME for Ui in U]
                               for e in range(2)]
            rows = []
            for s in C:     # rows in the row space of the system: rank n1 mod p proves rank n1 over Q
                c = [int(s0[i] > 0) - int(s[i] > 0) for i in range(n1)]
                if any(c):
                    rows += [[c[i] * v[i] for i in range(n1)] for v in self._w3a_v]
            self.tick()
            ok = bool(rows) and flint.nmod_mat(rows, _PRIME).rank() == n1
            if not ok and n1 <= MAX_B_WIDTH:
                full = []
                for s in C:
                    c = [int(s0[i] > 0) - int(s[i] > 0) for i in range(n1)]
                    full += [[c[i] * self.u[i][t] for i in range(n1)] for t in range(d + 1)]
                ok = bool(full) and rank(full) == n1
            self._w3a[key] = ok
        return self._w3a[key]

    def w3b(self, k, s0, C) -> bool:
        """Lemma W.3(b) for every F ⊆ [n1] (n1 <= MAX_B_WIDTH): reduced to d = N t, d in the kernel of (a)."""
        n1, d = self.n1, self.d
        M = []
        for s in C:
            M += self.w3a_rows(s0, s)[0]
        N = nullspace([r for r in M if any(r)], n1) if any(any(r) for r in M) else \
            [[ONE if i == r else ZERO for i in range(n1)] for r in range(n1)]
        r = len(N)
        A = [u[:-1] for u in self.u]
        for mask in range(1 << n1):
            self.tick()
            F = [i for i in range(n1) if mask >> i & 1]
            # Σ_i (N t)_i ([s0_i=+] − [i∈F]) A_i = Σ_F W_ki A_i  (n0 equations in t)
            coef = [(int(s0[i] > 0) - int(i in F)) for i in range(n1)]
            rows = [[sum((N[q][i] * coef[i] * A[i][l] for i in range(n1)), ZERO) for q in range(r)]
                    + [sum((self.W[k][i] * A[i][l] for i in F), ZERO)] for l in range(d)]
            R, piv = rref(rows) if rows else ([], [])
            if r in piv:
                continue                                           # inconsistent
            if len(piv) < r:
                return False                                       # a line of solutions
            sol = [ZERO] * r
            for row, pc in zip(R, piv):
                sol[pc] = row[r]
            if any(sol):
                return False                                       # a unique solution other than (W_k, w^F_k)
        return True

    def pin(self, k, P, seeds_max=24, prefer=()):
        """Find a seed and valid edges for k; return (seed, edges, method) or None."""
        goods = [s for s in prefer if s in self.regions] + list(self.regions)
        goods = [s for s in dict.fromkeys(goods) if self.regions[s].good and k in self.regions[s].K]
        for s0 in goods[:seeds_max]:
            reached, edges, queue = [s0], [], [s0]
            seen = {s0}
            covered = set()

            def a_holds():      # every label flipped is necessary (a zero column otherwise); x frame: the rank
                if len(covered) < self.n1:
                    return False
                return self.frame.kind == FrameKind.U or self.w3a(s0, reached)

            def b_holds():      # the u frame's closed form of W.3(b) (see :func:`u_frame_b`)
                return self.frame.kind == FrameKind.U and u_frame_b(self.W[k], s0, covered)

            def add(s):
                covered.update(i for i in range(self.n1) if s[i] != s0[i])

            while queue and not (a_holds() or b_holds()):
                s = queue.pop(0)
                for j in range(self.n1):
                    t = s[:j] + (-s[j],) + s[j + 1:]
                    if t in seen or (t not in self.regions and self.frame.kind == FrameKind.X):
                        continue                           # x frame: only regions with witnesses
                    if t not in self.regions:
                        self.region(t)                     # u frame: every pattern is a region (Lemma 10.18)
                    self.tick()
                    if self.valid(s, t, j, k, P):
                        seen.add(t)
                        reached.append(t)
                        edges.append((s, j))
                        queue.append(t)
                        add(t)
                        if a_holds() or b_holds():
                            break
            if a_holds():
                return s0, tuple(edges), PinningCase.A
            if b_holds():
                return s0, tuple(edges), PinningCase.B
            if self.frame.kind == FrameKind.X and self.n1 <= MAX_B_WIDTH and self.w3b(k, s0, reached):
                return s0, tuple(edges), PinningCase.B
        return None

    # ---- H0, H0′ --------------------------------------------------------------------
    def h0(self):
        """The failures of H0 as items of ReasonCode.W_DEGENERATE_ROWS (1-based)."""
        bad = []
        if self.frame.kind == FrameKind.X:
            bad += [("zero-row", "A", "a", j + 1, None) for j in range(self.n1) if not any(self.A[j])]
            norms = {}
            for j in range(self.n1):
                nv = _norm(self.u[j])
                if nv is not None and nv in norms:
                    bad.append(("proportional", "A", "a", norms[nv] + 1, j + 1))
                norms.setdefault(nv, j)
        bad += [("zero-column", "V", "c", k + 1, None) for k in range(self.n2)
                if not any(self.V[o][k] for o in range(self.n3))]
        return bad

    def h0p(self):
        """The failures of H0′ as items of ReasonCode.W_DEGENERATE_ROWS (1-based)."""
        bad = [("zero-row", "W", "w", k + 1, None) for k in range(self.n2) if not any(self.W[k])]
        norms = {}
        for k in range(self.n2):
            nv = _norm(tuple(self.W[k]) + (self.w[k],))
            if nv in norms:
                bad.append(("proportional", "W", "w", norms[nv] + 1, k + 1))
            norms.setdefault(nv, k)
        return bad

    # ---- H4 -----------------------------------------------------------------------------
    def flats(self, need, walls=None, per=None):
        """Distinct bend flats per H_j: {j: {key: (s, k, point)}}, from the walls (s, j), s_j = +, given or
        (default) those between known regions (u frame: every known orthant with s_j = +)."""
        per = {j: {} for j in range(self.n1)} if per is None else per
        if walls is None:
            walls = [(s, j) for s in list(self.regions) for j in range(self.n1)
                     if s[j] > 0 and (self.frame.kind == FrameKind.U or s[:j] + (-1,) + s[j + 1:] in self.regions)]
        for s, j in walls:
            if len(per[j]) >= need:
                continue
            self.tick()
            red = self.wall(s, j)
            count = Counter(r[1] for r in red if r[1] is not None)
            for k in range(self.n2):
                if len(per[j]) >= need:
                    break
                if self.W[k][j] == 0 or not red[k][0] or red[k][1] in per[j]:
                    continue                                           # B1, B2, distinct
                if count[red[k][1]] > 1:
                    continue                                           # B3
                p = self.wall_point(s, j, k)
                if p is not None:                                      # B4
                    per[j][red[k][1]] = (s, k, None if p is True else p)
        return per


class _LineSearch:
    """Regions of the x frame along lines through one point (docs/mathematics.md §10.6; xsearch.py).

    A line x0 + τd crosses every H_j once: its n1 + 1 regions form a chain in which consecutive
    regions differ in one label, every label is flipped once (W.3(a) needs every label flipped), and
    every crossing is a wall.  Lines pass through a common point, so their chains meet in its region
    (a *hub*, a preferred seed); a region whose visible set is not decided exactly is left out.
    Further lines add walls, hence bend flats, where the count condition of Lemma 10.12 needs them,
    and alternative paths where an edge is not valid for some neuron; when neurons are left that the
    hub does not see, the next lines pass through the known region that sees most of them.
    """

    MAX_LINES = 24

    def __init__(self, an: _W):
        self.an, self.xs = an, an.xs
        self.x0 = self.xs.rng.standard_normal(an.n0)
        self.hubs: list = []
        self.lines = 0
        self.walls: list = []           # (s with s_j = +, j) along the lines with regions
        self.spare: list = []           # walls of chains whose regions were not examined

    def _chain(self):
        return self.xs.line(self.x0, self.xs.rng.standard_normal(self.an.n0))

    @staticmethod
    def _walls(chain):
        out = []
        for (s, _), (t, _) in zip(chain, chain[1:]):
            j = next(i for i in range(len(s)) if s[i] != t[i])
            out.append(((s if s[j] > 0 else t), j))
        return out

    def add_line(self, left=()) -> bool:
        """Examine the regions of one more line through the hub (False when the line budget is spent);
        ``left``: the neurons not yet pinned, which the hub should see."""
        from reluid.analysis.deep.xsearch import Undecided

        if self.lines >= self.MAX_LINES:
            return False
        self.lines += 1
        left = set(left)
        if self.hubs and not left <= self.an.regions[self.hubs[-1]].K:
            best = max(self.an.regions.values(), key=lambda R: (len(left & R.K), R.good))
            if len(left & best.K) > len(left & self.an.regions[self.hubs[-1]].K):
                self.x0 = self.xs.np.array([float(v) for v in best.point])
                self.hubs.append(best.signs)
        chain = self._chain()
        for s, j in self._walls(chain):         # walls first: their points give most zeros of the regions
            self.an.wall_point(s, j, 0)
        for s, p in chain:
            if s in self.an.regions:
                continue
            try:
                self.an.region(s, p)
            except Undecided:
                continue
        if not self.hubs:
            sx = self.xs.signs_at([self.xs.project(self.x0, [], 30)])[0]
            self.hubs.append(sx if sx in self.an.regions else chain[len(chain) // 2][0])
        self.walls += self._walls(chain)
        return True

    def flats(self):
        """Bend flats on the walls of the lines; more walls (from chains of further lines, without their
        regions) on the H_j where Lemma 10.12's count condition needs them; then only as many as it needs."""
        an, n1 = self.an, self.an.n1
        per = an.flats(n1 + 1, self.walls)
        for _ in range(2 * self.MAX_LINES):
            counts = [len(per[j]) for j in range(n1)]
            if count_condition(counts):
                break
            ranked = sorted(range(n1), key=lambda j: counts[j])
            short = {j for m, j in enumerate(ranked, start=1) if counts[j] <= m}
            if not self.spare:
                self.spare = self._walls(self._chain())
            walls = [w for w in self.spare if w[1] in short]
            self.spare = [w for w in self.spare if w[1] not in short]
            per = an.flats(n1 + 1, walls, per)
        counts = [len(per[j]) for j in range(n1)]
        if count_condition(counts):     # keep m + 1 flats on the H_j in sorted position m: still b_(m) > m
            for m, j in enumerate(sorted(range(n1), key=lambda j: counts[j]), start=1):
                per[j] = dict(list(per[j].items())[:m + 1])
        return per


def _all_signs(n):
    for mask in range(1 << n):
        yield tuple(1 if mask >> i & 1 else -1 for i in range(n))


def _chosen_orthants(n1, seed, chains):
    """A family of orthants for the u frame at size: chains s0 → s0^(0) → s0^(0,1) → … (n1 + 1 each)."""
    rng = random.Random(seed)
    out = []
    for _ in range(chains):
        s = [rng.choice((1, -1)) for _ in range(n1)]
        out.append(tuple(s))
        for j in rng.sample(range(n1), n1):
            s[j] = -s[j]
            out.append(tuple(s))
    return out


def analyse_pinning(net: Network, *, regions=None, timeout: float | None = 60.0, max_rows: int = 4000,
                    seed: int = 0, chains: int = 2, max_systems: int | None = None) -> PinningResult:
    """Decide H0, H0′, H4 and search for a pinning certificate of Theorem W, exactly.

    Parameters
    ----------
    net : Network
        Two hidden layers, n0 >= 2.
    regions : sequence of (signs, point), optional
        Nonempty layer-1 regions with exact interior points (the x frame needs them; the §8
        sign tree supplies them for small n1).  The u frame chooses its own orthants.
    timeout : float, optional
    max_rows, max_systems : int
        The strict-system budget of the x frame (rows of one Fourier–Motzkin step, systems solved).
    seed, chains : int
        The u frame at size (n1 > 10) uses ``chains`` random chains of orthants.
    """
    t0 = time.monotonic()
    n0, n1, n2, n3 = net.architecture
    frame = choose_frame(net)
    an = _W(net, frame, None if timeout is None else t0 + timeout, max_rows)
    an.max_systems = max_systems

    def done(holds, failed, detail, **kw):
        return PinningResult(holds, failed, detail, frame, systems=an.systems, seconds=time.monotonic() - t0, **kw)

    bad = an.h0()
    if bad:
        return done(False, WFailure.H0, Reason(ReasonCode.W_DEGENERATE_ROWS, {"items": bad[:3]}))
    bad = an.h0p()
    if bad:
        return done(False, WFailure.H0_PRIME, Reason(ReasonCode.W_DEGENERATE_ROWS, {"items": bad[:3]}))
    search = None
    try:
        if frame.kind == FrameKind.U:
            for s in (_all_signs(n1) if n1 <= MAX_ALL_ORTHANTS else _chosen_orthants(n1, seed, chains)):
                an.region(s)
        elif regions is None:
            from reluid.analysis.deep import xsearch

            if not xsearch.available():
                return done(False, WFailure.REGIONS, Reason(ReasonCode.W_NEEDS_REGIONS, {"n1": n1}))
            an.xs = xsearch.XSearch(net, seed)
            search = _LineSearch(an)
            search.add_line()
        else:
            for s, p in regions:
                an.region(tuple(s), tuple(p))
        # H4
        if search is None:
            per = an.flats(n1 + 1)
        else:
            per = search.flats()
        counts = tuple(len(per[j]) for j in range(n1))
        method, trees = None, None
        if count_condition(counts):
            method = CoverMethod.COUNT
        elif n1 <= MAX_EXHAUSTIVE:
            holds, trees = _exhaustive_h4(an, per)
            if holds:
                method = CoverMethod.EXHAUSTIVE
        flats = tuple((v[0], j, v[1], v[2]) for j in range(n1) for v in per[j].values())
        if method is None:
            return done(False, WFailure.H4, Reason(ReasonCode.W_COVER, {"counts": counts,
                                                                        "exhaustive": n1 <= MAX_EXHAUSTIVE}),
                        flats=flats, flat_counts=counts)
        # pinning
        P: list[int] = []
        order = []
        left = set(range(n2))
        while left:
            progress = False
            for k in sorted(left):
                got = an.pin(k, set(P), prefer=() if search is None else search.hubs[::-1])
                if got is not None:
                    order.append((k,) + got)
                    P.append(k)
                    left.discard(k)
                    progress = True
            if not progress:
                if search is None or not search.add_line(left):
                    break
    except _Budget as e:
        return done(False, WFailure.BUDGET, e.reason)
    if left:
        return done(False, WFailure.PINNING, Reason(ReasonCode.W_UNPINNED, {"pinned": len(P), "n2": n2}),
                    unpinned=tuple(sorted(left)),
                    flats=flats, flat_counts=counts, h4_method=method, h4_trees=trees)
    # the regions the certificate uses
    used = []
    index = {}

    def ix(s):
        if s not in index:
            index[s] = len(used)
            used.append(s)
        return index[s]

    out_order = []
    for k, s0, edges, m in order:
        i0 = ix(s0)
        es = []
        for s, j in edges:
            p = an.wall_point(s, j, k)
            es.append((ix(s), j, None if p is True else p))
            ix(s[:j] + (-s[j],) + s[j + 1:])
        out_order.append((k, i0, tuple(es), m))
    regs = []
    for s in used:
        R = an.regions[s]
        regs.append((s, R.point, dict(R.vis), dict(R.inv)))
    return done(True, None, f"{n2} layer-2 neurons pinned on {len(used)} regions ({frame.kind} frame); bend flats "
                f"per H_j {list(counts)} (H4 by {method})", regions=tuple(regs), order=tuple(out_order),
                flats=flats, flat_counts=counts, h4_method=method, h4_trees=trees)


def _exhaustive_h4(an: _W, per) -> tuple[bool, tuple | None]:
    """Lemma 8.6(e)'s cover search (small n1) on the flats found, in the frame's coordinates; and, when no cover
    exists, the cover trees of the certificate (None past their node limit)."""
    from reluid.analysis.deep import two_layers as tl

    flats = []
    for j in range(an.n1):
        for key, (s, k, p) in per[j].items():
            g = an.regions[s].g[k] if s in an.regions else an.g(s)[k]
            rows = rref([list(an.u[j]), list(g)])[0]
            flats.append(tl.BendFlat(s, j, k, p if p is not None else (), tuple(tuple(r) for r in rows)))
    shim = tl._Analysis.__new__(tl._Analysis)
    shim.n0, shim.n1, shim.deadline, shim.u, shim.h4_trees = an.d, an.n1, an.deadline, an.u, None
    try:
        h, _, _ = shim.h4(tuple(flats))
    except tl._Budget:
        return False, None
    return bool(h.holds), shim.h4_trees if h.holds else None
