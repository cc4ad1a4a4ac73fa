"""Checker for Theorem W (two hidden layers on partial regions) and Lemma H4-count.

Imports only the standard library, python-flint, :mod:`reluid.model`, :mod:`reluid.certificates.schema`,
:mod:`reluid.checker.registry`, :mod:`reluid.checker.two_layers` (its H4 cover search, for the
small-n1 fallback) and :mod:`reluid.errors`.  Nothing is shared with the producer
(:mod:`reluid.analysis.deep.pinning`); every loop that grows with the input is charged.

``deep-two-layer-pinning``
    evidence ``{"frame", "minor", "regions", "order", "h4"}`` for θ = (A, a; W, w; V, c) ∈ Ω(n0, n1,
    n2, n3), n0 >= 2 (docs/certificates.md).  The checker

    * recomputes H0 (A_j ≠ 0, the rows (A_j, a_j) pairwise non-proportional, V_{:,k} ≠ 0) and H0′
      (the rows (W_k, w_k) pairwise non-proportional, W_k ≠ 0);
    * ``frame = "u"``: verifies that the listed n1 columns of A form a nonsingular minor (its
      determinant, of A's rows scaled to integers, is nonzero modulo a prime), so x ↦ u is onto
      R^{n1}; then every region is an orthant, and the visible sets and wall points are decided by
      the checker's own rule (a zero of Σ c_i v_i + w with v_i > 0 exists iff the nonzero c_i have
      both signs or one has the sign opposite to w);
      ``frame = "x"``: every region carries an interior point, and every k with ∇g^s_k ≠ 0 a
      witness of visibility or a Motzkin vector (y >= 0, z) proving {s_i u_i > 0, g^s_k = 0} empty;
      points are verified in exact integer arithmetic: (A, a) and g^s scaled to integer rows (positive
      factors), each point as (Lp, L), all points of a region or of a wall in one python-flint product;
    * recomputes K_s and goodness (the Z(g^s_k), k ∈ K_s, pairwise distinct) of every listed region;
    * for each entry k_m of the order: the seed is good with k_m visible; each edge (s → s^(j)) leaves
      a region already reached, ends in a listed region and is valid for k_m with P = {k_1..k_{m−1}}:
      (e2) rank_∇[u_j; g^s_k] = 2 and a point of {u_j = 0 = g^s_k} on the wall, (e3) the g^s_{k2},
      k2 ∈ (K_s ∪ K_t) ∖ {k}, neither in span(u_j) nor in span(u_j, g^s_k) (modulo u_j), (e4) the
      count; then Lemma W.3 (a) (rank n1 of the difference system — modulo p on two fixed integer
      combinations of each region's rows, exactly when that is short of n1 — or in the u frame: every label
      flipped) or (b) (x frame: every F ⊆ [n1], n1 <= MAX_B_WIDTH, reduced to the kernel of (a);
      u frame: the closed form "every label not flipped has s0_i = + and W_ki ≠ 0");
      the order is a permutation of [n2];
    * H4: the listed bend triples (B1)–(B4), distinct flats per H_j by the normal form of g^s_k
      modulo u_j, and then ``"count"`` (Lemma H4-count: sorted, b_(m) > m for every m) or
      ``"exhaustive"`` (the §8 cover search over every set I, n1 <= MAX_EXHAUSTIVE).
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

from reluid.certificates.schema import CertificateError, ClaimKind, q, qs
from reluid.checker import two_layers as _tl
from flint import fmpz_mat, nmod_mat

from reluid.checker.linalg import rref
from reluid.checker.registry import Context, charge, fail, verifies
from reluid.verdicts import CoverMethod, Frame, PinningCase

__all__ = ["verify_pinning", "MAX_B_WIDTH", "MAX_EXHAUSTIVE", "PRIME"]

ZERO = Fraction(0)
MAX_B_WIDTH = 12
MAX_EXHAUSTIVE = 10
PRIME = (1 << 61) - 1


def _nf(v):
    """v up to a nonzero factor, hashable; None for v = 0."""
    lead = next((x for x in v if x != 0), None)
    if lead is None:
        return None
    if all(type(x) is int for x in v):
        g = math.gcd(*v)
        g = g if lead > 0 else -g
        return tuple(x // g for x in v)
    return tuple(Fraction(x) / lead for x in v)


def _det_mod(M, p) -> int:
    n = len(M)
    M = [[x % p for x in r] for r in M]
    det = 1
    for c in range(n):
        r = next((i for i in range(c, n) if M[i][c]), None)
        if r is None:
            return 0
        if r != c:
            M[c], M[r] = M[r], M[c]
            det = -det
        det = det * M[c][c] % p
        inv = pow(M[c][c], p - 2, p)
        for i in range(c + 1, n):
            if M[i][c]:
                f = M[i][c] * inv % p
                M[i] = [(x - f * y) % p for x, y in zip(M[i], M[c])]
    return det % p


class _Theta:
    def __init__(self, ctx, net, frame, minor):
        L1, L2, L3 = net.layers
        self.n0, self.n1, self.n2, self.n3 = net.architecture
        self.A, self.a, self.W, self.w, self.V = L1.weight, L1.bias, L2.weight, L2.bias, L3.weight
        self.frame = frame
        n0, n1 = self.n0, self.n1
        if frame == Frame.U:
            self.d = n1
            self.u = [tuple(1 if t == j else 0 for t in range(n1)) + (0,) for j in range(n1)]
            charge(ctx, n1 * (n1 + 1) * 2, "integer layer-2 rows")
            self.rows = []
            for row, b in zip(self.W, self.w):
                m = math.lcm(*(x.denominator for x in row), b.denominator)
                self.rows.append(tuple(int(x * m) for x in row) + (int(b * m),))
        else:
            self.d = n0
            self.u = [tuple(L1.weight[j]) + (L1.bias[j],) for j in range(n1)]
            self.piv = [next((t for t in range(n0) if L1.weight[j][t] != 0), 0) for j in range(n1)]
            self.rows = [tuple(r) + (b,) for r, b in zip(self.W, self.w)]
            # exact integer forms: U_i = m_i u_i (m_i > 0), and g^s_k · M = Σ_{i∈P(s)} (W_ki M / m_i) U_i + w_k M
            charge(ctx, n1 * (n0 + 1) + self.n2 * (n1 + 1), "integer forms of u and of the layer-2 rows")
            m = [math.lcm(*(Fraction(x).denominator for x in u)) for u in self.u]
            self.U = [[int(x * mi) for x in u] for u, mi in zip(self.u, m)]
            self.Um = fmpz_mat(self.U)
            self.M = math.lcm(*m) * math.lcm(*(x.denominator for r in self.rows for x in r))
            self.WM = [[int(self.W[k][i] * self.M / m[i]) for i in range(n1)] for k in range(self.n2)]
            self.wM = [int(x * self.M) for x in self.w]
            self.words = 1 + max(abs(x).bit_length() for r in self.U + self.WM for x in r) // 64
        self._g, self._gi, self._red = {}, {}, {}

    def gi(self, ctx, s):
        """x frame: the rows g^s_k · M as integers (one flint product)."""
        if s not in self._gi:
            # Python loops over the n2 × n1 mask and the n2 × (n0 + 1) result; the product in flint, by words
            charge(ctx, self.n2 * (self.n1 + self.n0 + 1) + self.n2 * self.n1 * (self.n0 + 1) * self.words // 64,
                   "the layer-2 pieces of a region")
            D = fmpz_mat([[self.WM[k][i] if s[i] > 0 else 0 for i in range(self.n1)] for k in range(self.n2)])
            G = D * self.Um
            self._gi[s] = [[int(G[k, c]) for c in range(self.n0)] + [int(G[k, self.n0]) + self.wM[k]]
                           for k in range(self.n2)]
        return self._gi[s]

    def g(self, ctx, s):
        if s not in self._g:
            if self.frame == Frame.U:
                charge(ctx, self.n2 * (self.n1 + 1), "the layer-2 pieces of a region")
                self._g[s] = [tuple(r[i] if s[i] > 0 else 0 for i in range(self.n1)) + (r[-1],) for r in self.rows]
            else:
                self._g[s] = [tuple(Fraction(x, self.M) for x in r) for r in self.gi(ctx, s)]
        return self._g[s]

    def red(self, ctx, s, j):
        """(∇ ≠ 0, normal form) of every g^s_k modulo u_j; the same for s and s^(j).

        x frame: the integer row U_j[p]·g − g[p]·U_j (p a pivot of U_j), a nonzero multiple of g mod u_j."""
        key = (s[:j] + (1,) + s[j + 1:], j)
        if key not in self._red:
            g = self.g(ctx, s) if self.frame == Frame.U else self.gi(ctx, s)
            charge(ctx, self.n2 * (self.d + 1) * 2, "the pieces modulo u_j on a wall")
            out = []
            for gk in g:
                if self.frame == Frame.U:
                    v = gk[:j] + (0,) + gk[j + 1:]
                else:
                    uj, p = self.U[j], self.piv[j]
                    v = tuple(uj[p] * x - gk[p] * y for x, y in zip(gk, uj))
                out.append((any(v[:-1]), _nf(v)))
            self._red[key] = out
        return self._red[key]

    def points(self, ctx, s, items, skip=None):
        """x frame, in one flint product per call: for each (k or None, point) whether the point lies in
        R_s (on H_skip, strictly inside the other s_i u_i > 0 when skip is given) and, for k, on Z(g^s_k)."""
        if not items:
            return []
        cols = [_homogeneous(p) for _, p in items]
        words = 1 + max(abs(x).bit_length() for c in cols for x in c) // 64 + self.words
        ks = sorted({k for k, _ in items if k is not None})
        # Python loops over the coordinates and the signs; the two products in flint, by words
        charge(ctx, len(items) * (2 * self.n0 + self.n1 + 4) + len(items) * (self.n1 + len(ks)) * (self.n0 + 1)
               * words // 64, "exact evaluation of points")
        X = fmpz_mat([list(r) for r in zip(*cols)])
        S = self.Um * X
        Gk = fmpz_mat([self.gi(ctx, s)[k] for k in ks]) * X if ks else None
        row = {k: r for r, k in enumerate(ks)}
        out = []
        for c, (k, _) in enumerate(items):
            ok = all(s[i] * S[i, c] > 0 for i in range(self.n1) if i != skip)
            if skip is not None:
                ok = ok and S[skip, c] == 0
            if k is not None:
                ok = ok and Gk[row[k], c] == 0
            out.append(ok)
        return out


def _homogeneous(p):
    """(L p, L) with L the lcm of the denominators: an integer vector with the same ratios."""
    L = math.lcm(*(v.denominator for v in p))
    return [v.numerator * (L // v.denominator) for v in p] + [L]


def _orthant_zero(coeffs, w) -> bool:
    pos = any(c > 0 for c in coeffs)
    neg = any(c < 0 for c in coeffs)
    return (pos and neg) or (pos and w < 0) or (neg and w > 0)


def _h0(ctx, T):
    charge(ctx, (T.n1 + T.n2) * (max(T.n0, T.n1) + 2) + T.n2 * T.n3, "H0 and H0′")
    if T.frame == Frame.X:
        seen = {}
        for j in range(T.n1):
            if not any(T.A[j]):
                fail(ctx, f"H0 fails: A_{j + 1} = 0")
            key = _nf(T.u[j])
            if key in seen:
                fail(ctx, f"H0 fails: (A_{seen[key] + 1}, a_{seen[key] + 1}) and (A_{j + 1}, a_{j + 1}) are proportional")
            seen[key] = j
    for k in range(T.n2):
        if not any(T.V[o][k] for o in range(T.n3)):
            fail(ctx, f"H0 fails: V_(:,{k + 1}) = 0")
    seen = {}
    for k in range(T.n2):
        if not any(T.W[k]):
            fail(ctx, f"H0′ fails: W_{k + 1} = 0")
        key = _nf(T.rows[k])
        if key in seen:
            fail(ctx, f"H0′ fails: (W_{seen[key] + 1}, w_{seen[key] + 1}) and (W_{k + 1}, w_{k + 1}) are proportional")
        seen[key] = k


def _minor(ctx, T, raw):
    if not isinstance(raw, (list, tuple)) or len(raw) != T.n1 or not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c < T.n0 for c in raw) or len(set(raw)) != T.n1:
        fail(ctx, f"the u frame needs 'minor': {T.n1} distinct column indices of A in [0, {T.n0})")
    charge(ctx, T.n1 ** 3 + T.n1 * T.n1, "the determinant of the n1 × n1 minor of A (mod p)")
    M = []
    for j in range(T.n1):
        row = [T.A[j][c] for c in raw]
        m = math.lcm(*(x.denominator for x in row))
        M.append([int(x * m) for x in row])
    if _det_mod(M, PRIME) == 0:
        fail(ctx, "the listed columns of A do not give a nonsingular minor (mod p): rank A = n1 is not shown")


def _read_signs(ctx, raw, n1, what):
    return _tl._signs(ctx, raw, n1, what)


def _regions(ctx, T, raw):
    """{signs: (K, good)} for the listed regions, K recomputed exactly."""
    regs = _tl._list(ctx, raw, "regions")
    out, order = {}, []
    for r, R in enumerate(regs):
        where = f"region {r + 1}"
        keys = ("signs",) if T.frame == Frame.U else ("signs", "point", "visible", "invisible")
        _tl._fields(ctx, R, keys, where)
        s = _read_signs(ctx, R["signs"], T.n1, where)
        if s in out:
            fail(ctx, f"{where}: the region {R['signs']} is listed twice")
        g = T.g(ctx, s) if T.frame == Frame.U else None
        K = set()
        if T.frame == Frame.U:
            charge(ctx, T.n2 * (T.n1 + 1), "the visible set of a region")
            for k, gk in enumerate(g):
                if _orthant_zero(gk[:-1], gk[-1]):
                    K.add(k)
        else:
            items = [(None, _tl._point(ctx, R["point"], T.n0, where))]
            vis = _pairs(ctx, R["visible"], T.n2, f"{where} visible")
            inv = _pairs(ctx, R["invisible"], T.n2, f"{where} invisible")
            charge(ctx, T.n2 * (T.n0 + 2), "reading the visibility evidence of a region")
            both = sorted(set(vis) & set(inv))
            if both:
                fail(ctx, f"{where}: g_{both[0] + 1} is listed both as visible and as invisible")
            gi = T.gi(ctx, s)
            for k in range(T.n2):
                if not any(gi[k][:-1]):
                    if k in vis:
                        fail(ctx, f"{where}: g_{k + 1} is constant on the region, not visible")
                    continue
                if k in vis:
                    items.append((k, _tl._point(ctx, vis[k], T.n0, f"{where} visible {k + 1}")))
                    K.add(k)
                elif k in inv:
                    _motzkin(ctx, T, s, T.g(ctx, s)[k], inv[k], f"{where} invisible {k + 1}")
                else:
                    fail(ctx, f"{where}: neither a zero nor a Motzkin vector for g_{k + 1}: K_s is not decided")
            ok = T.points(ctx, s, items)
            if not ok[0]:
                fail(ctx, f"{where}: the point is not in R_{R['signs']}")
            for (k, _), good in zip(items[1:], ok[1:]):
                if not good:
                    fail(ctx, f"{where}: the witness of g_{k + 1} is not a zero in R_{R['signs']}")
        charge(ctx, len(K) * (T.d + 2), "the goodness of a region")
        norms = [_nf(g[k] if T.frame == Frame.U else T.gi(ctx, s)[k]) for k in K]
        out[s] = (K, len(set(norms)) == len(norms))
        order.append(s)
    return out, order


def _pairs(ctx, raw, bound, what) -> dict:
    out = {}
    for e in _tl._list(ctx, raw, what):
        if not isinstance(e, (list, tuple)) or len(e) != 2:
            fail(ctx, f"{what}: entries are [neuron, data]")
        k = _tl._index(ctx, e[0], bound, f"{what} neuron")
        if k in out:
            fail(ctx, f"{what}: neuron {k + 1} twice")
        out[k] = e[1]
    return out


def _motzkin(ctx, T, s, gk, raw, what):
    """{x : s_i u_i(x) > 0 ∀i, g(x) = 0} is empty: y >= 0, z with Σ y_i s_i u_i + z g a constant <= 0 (< 0 if y = 0)."""
    if not hasattr(raw, "keys") or set(raw.keys()) != {"y", "z"}:
        fail(ctx, f"{what}: a Motzkin vector is {{'y': [...], 'z': q}}")
    try:
        y, z = qs(raw["y"]), q(raw["z"])
    except CertificateError as e:
        fail(ctx, f"{what}: {e}")
    if len(y) != T.n1 or any(v < 0 for v in y):
        fail(ctx, f"{what}: y needs {T.n1} nonnegative entries")
    comb = [z * x for x in gk]
    for i in range(T.n1):
        if y[i]:
            comb = [c + y[i] * s[i] * x for c, x in zip(comb, T.u[i])]
    if any(comb[:-1]) or comb[-1] > 0 or (comb[-1] == 0 and not any(y)):
        fail(ctx, f"{what}: not a Motzkin certificate of emptiness")


def _wall_point(ctx, T, s, j, k, raw, what, pending) -> bool:
    """u frame: the orthant rule decides (``raw`` is None: the evidence carries no point).  x frame: the point
    is read now and verified with the others of its wall in :func:`_check_walls` (``pending``), in exact
    integer products."""
    if T.frame == Frame.U:
        gk = T.g(ctx, s)[k]
        return _orthant_zero([gk[i] for i in range(T.n1) if i != j], gk[-1])
    pending.setdefault((s, j), []).append((k, _tl._point(ctx, raw, T.n0, what), what))
    return True


def _check_walls(ctx, T, pending, message):
    """Every pending point p of (s, j, k): u_j(p) = 0, g^s_k(p) = 0 and s_i u_i(p) > 0 for i ≠ j."""
    for (s, j), items in pending.items():
        ok = T.points(ctx, s, [(k, p) for k, p, _ in items], skip=j)
        for (k, _, what), good in zip(items, ok):
            if not good:
                fail(ctx, message(what, j, k))


def _flip(s, j):
    return s[:j] + (-s[j],) + s[j + 1:]


def _order(ctx, T, raw, regions, listed):
    entries = _tl._list(ctx, raw, "order")
    if len(entries) != T.n2:
        fail(ctx, f"the order lists {len(entries)} neurons, not n2 = {T.n2}")
    P = set()
    pending = {}
    for m, e in enumerate(entries):
        where = f"order entry {m + 1}"
        _tl._fields(ctx, e, ("neuron", "seed", "edges", "method"), where)
        k = _tl._index(ctx, e["neuron"], T.n2, f"{where} neuron")
        if k in P:
            fail(ctx, f"{where}: neuron {k + 1} is pinned twice")
        s0 = listed[_tl._index(ctx, e["seed"], len(listed), f"{where} seed")]
        K0, good0 = regions[s0]
        if not good0 or k not in K0:
            fail(ctx, f"{where}: the seed must be a good region with g_{k + 1} visible (W.1(a))")
        reached = {s0}
        edges = _tl._list(ctx, e["edges"], f"{where} edges")
        charge(ctx, len(edges) * (T.n2 + T.d + 2) * 2, "the validity of the edges (e2)–(e4)")
        for i, ed in enumerate(edges):
            w = f"{where} edge {i + 1}"
            if not isinstance(ed, (list, tuple)) or len(ed) != (2 if T.frame == Frame.U else 3):
                fail(ctx, f"{w}: an edge is [region, j]" + ("" if T.frame == Frame.U else " plus a wall point"))
            s = listed[_tl._index(ctx, ed[0], len(listed), f"{w} region")]
            j = _tl._index(ctx, ed[1], T.n1, f"{w} label")
            t = _flip(s, j)
            if s not in reached:
                fail(ctx, f"{w}: its source region is not reached from the seed by the edges before it")
            if t not in regions:
                fail(ctx, f"{w}: the region s^({j + 1}) is not listed")
            (Ks, gs), (Kt, gt) = regions[s], regions[t]
            if not (gs and gt and k in Ks and k in Kt):
                fail(ctx, f"{w}: both ends must be good regions with g_{k + 1} visible")
            red = T.red(ctx, s, j)
            if not red[k][0]:
                fail(ctx, f"{w}: rank_∇[u_{j + 1}; g_{k + 1}] < 2 (e2)")
            # u frame: k ∈ K_t is already the orthant rule on the wall (g^t_k is g^s_k without u_j)
            if T.frame == Frame.X:
                _wall_point(ctx, T, s, j, k, ed[2], w, pending)
            for k2 in (Ks | Kt) - {k}:
                if red[k2][1] is None or red[k2][1] == red[k][1]:
                    fail(ctx, f"{w}: rank[u_{j + 1}; g_{k + 1}; g_{k2 + 1}] < 3 on one side (e3)")
            if not (len(Kt) + len(P - Kt) >= T.n2 - 1 or len(Ks) + len(P - Ks) >= T.n2):
                fail(ctx, f"{w}: the count (e4) fails")
            reached.add(t)
        method = e["method"]
        if method == PinningCase.A:
            if not _w3a(ctx, T, s0, reached):
                fail(ctx, f"{where}: the difference system of W.3(a) has a nonzero solution")
        elif method == PinningCase.B:
            if not _w3b(ctx, T, k, s0, reached):
                fail(ctx, f"{where}: W.3(b) fails for some F ⊆ [n1]")
        else:
            fail(ctx, f"{where}: method must be 'a' or 'b', got {method!r}")
        P.add(k)
    _check_walls(ctx, T, pending, lambda w, j, k: f"{w}: no point of {{u_{j + 1} = 0 = g_{k + 1}}} on the wall (e2)")
    return P


def _covered(T, s0, C):
    return {i for s in C for i in range(T.n1) if s[i] != s0[i]}


def _w3a(ctx, T, s0, C) -> bool:
    if T.frame == Frame.U:
        charge(ctx, len(C) * T.n1, "W.3(a)")
        return len(_covered(T, s0, C)) == T.n1
    # Column i scaled by m_i > 0 (U_i = m_i u_i) keeps the rank.  Two fixed integer combinations of the
    # d + 1 rows of each region lie in the row space, and rank mod p <= rank over Q for integer rows, so
    # rank n1 of these 2|𝒞| rows mod p proves rank n1; otherwise the full system is ranked exactly.
    charge(ctx, T.n1 * (T.d + 1) * 2 + len(C) * T.n1 * 2 + 2 * len(C) * T.n1 * T.n1 // 64, "W.3(a) modulo p")
    v = [[sum(pow(3 + e, t, PRIME) * U[t] for t in range(T.d + 1)) % PRIME for U in T.U] for e in range(2)]
    rows = []
    for s in C:
        c = [int(s0[i] > 0) - int(s[i] > 0) for i in range(T.n1)]
        if any(c):
            rows += [[c[i] * ve[i] for i in range(T.n1)] for ve in v]
    if rows and nmod_mat(rows, PRIME).rank() == T.n1:
        return True
    charge(ctx, len(C) * (T.d + 1) * T.n1 * (T.n1 + 1), "W.3(a) exactly")
    rows = []
    for s in C:
        c = [int(s0[i] > 0) - int(s[i] > 0) for i in range(T.n1)]
        rows += [[c[i] * T.U[i][t] for i in range(T.n1)] for t in range(T.d + 1)]
    return _tl._rank(rows) == T.n1


def _kernel(rows, n):
    """A basis of {x : rows · x = 0} over Q (from checker/linalg.py's rref)."""
    R, piv = rref([list(r) for r in rows if any(r)], n)
    basis = []
    for f in (c for c in range(n) if c not in piv):
        v = [ZERO] * n
        v[f] = Fraction(1)
        for i, pc in enumerate(piv):
            v[pc] = -R[i][f]
        basis.append(v)
    return basis


def _w3b(ctx, T, k, s0, C) -> bool:
    covered = _covered(T, s0, C)
    if T.frame == Frame.U:
        charge(ctx, T.n1, "W.3(b) (closed form)")
        return all(i in covered or (s0[i] > 0 and T.W[k][i] != 0) for i in range(T.n1))
    n1, d = T.n1, T.d
    if n1 > MAX_B_WIDTH:
        fail(ctx, f"W.3(b) in the x frame enumerates the sets F; n1 = {n1} exceeds {MAX_B_WIDTH}")
    charge(ctx, (1 << n1) * d * (n1 + 2) ** 2 + len(C) * (d + 1) * n1 * n1, "W.3(b) over every F ⊆ [n1]")
    rows = []
    for s in C:
        c = [int(s0[i] > 0) - int(s[i] > 0) for i in range(n1)]
        rows += [[c[i] * T.u[i][t] for i in range(n1)] for t in range(d + 1)]
    N = _kernel(rows, n1)
    r = len(N)
    for mask in range(1 << n1):
        F = [i for i in range(n1) if mask >> i & 1]
        coef = [int(s0[i] > 0) - int(i in F) for i in range(n1)]
        M = [[sum((N[qq][i] * coef[i] * T.A[i][l] for i in range(n1)), ZERO) for qq in range(r)]
             + [sum((T.W[k][i] * T.A[i][l] for i in F), ZERO)] for l in range(d)]
        # consistent with a nonzero solution t?  rank of the coefficients vs the augmented matrix
        rc = _tl._rank([row[:r] for row in M]) if r else 0
        ra = _tl._rank(M)
        if ra > rc:
            continue                        # inconsistent
        if rc < r:
            return False                    # a line of solutions
        if r and any(row[r] for row in M):
            return False                    # the unique solution t ≠ 0
    return True


def _h4(ctx, T, raw):
    trees = hasattr(raw, "keys") and "cover" in raw.keys()
    _tl._fields(ctx, raw, ("method", "flats") + (("cover",) if trees else ()), "h4")
    flats = _tl._list(ctx, raw["flats"], "h4 flats")
    charge(ctx, len(flats) * (T.n1 + T.n2 + 4), "the bend triples (B1)–(B4)")
    keys = {j: set() for j in range(T.n1)}
    echelon = []
    pending = {}
    for i, f in enumerate(flats):
        where = f"flat {i + 1}"
        _tl._fields(ctx, f, ("signs", "neuron", "unit") + (() if T.frame == Frame.U else ("point",)), where)
        s = _read_signs(ctx, f["signs"], T.n1, where)
        j = _tl._index(ctx, f["neuron"], T.n1, f"{where} neuron")
        k = _tl._index(ctx, f["unit"], T.n2, f"{where} unit")
        if s[j] < 0:
            fail(ctx, f"{where}: the sign of neuron {j + 1} must be '+'")
        if T.W[k][j] == 0:
            fail(ctx, f"{where}: W_({k + 1},{j + 1}) = 0 (B1)")
        red = T.red(ctx, s, j)
        if not red[k][0]:
            fail(ctx, f"{where}: rank_∇[u_{j + 1}; g_{k + 1}] < 2 (B2)")
        if any(k2 != k and red[k2][1] is not None and red[k2][1] == red[k][1] for k2 in range(T.n2)):
            fail(ctx, f"{where}: some g_k′ lies in span(u_{j + 1}, g_{k + 1}) but not in span(u_{j + 1}) (B3)")
        if not _wall_point(ctx, T, s, j, k, None if T.frame == Frame.U else f["point"], where, pending):
            fail(ctx, f"{where}: no point of the flat on the wall (B4)")
        if red[k][1] not in keys[j]:
            keys[j].add(red[k][1])
            echelon.append((j, s, k))
    _check_walls(ctx, T, pending, lambda w, j, k: f"{w}: no point of the flat on the wall (B4)")
    counts = [len(keys[j]) for j in range(T.n1)]
    method = raw["method"]
    if method == CoverMethod.COUNT:
        if not all(b > m for m, b in enumerate(sorted(counts), start=1)):
            fail(ctx, f"H4 by Lemma H4-count needs, sorted, b_(m) > m for every m; the distinct bend flats per H_j "
                      f"are {counts}")
        if trees:
            fail(ctx, "h4 cover trees go with the method 'exhaustive'")
        return counts, method
    if method != CoverMethod.EXHAUSTIVE:
        fail(ctx, f"h4 method must be 'count' or 'exhaustive', got {method!r}")
    if T.n1 > MAX_EXHAUSTIVE:
        fail(ctx, f"the exhaustive H4 search visits 2^n1 sets I; n1 = {T.n1} exceeds {MAX_EXHAUSTIVE}")
    fl = [(j, _tl._echelon([[Fraction(x) for x in T.u[j]], [Fraction(x) for x in T.g(ctx, s)[k]]]))
          for j, s, k in echelon]
    shim = SimpleNamespace(n0=T.d, n1=T.n1, u=[tuple(Fraction(x) for x in u) for u in T.u])
    if trees and raw["cover"] is None:
        fail(ctx, "cover must be a list")
    _tl._h4(ctx, shim, fl, raw["cover"] if trees else None)
    return counts, method + (" (cover trees)" if trees else "")


@verifies(ClaimKind.DEEP_TWO_LAYER_PINNING)
def verify_pinning(evidence, ctx: Context) -> str:
    """H0, H0′, H4 and a pinning certificate of Theorem W hold for the network under check."""
    net = ctx.network
    if len(net.hidden_widths) != 2:
        fail(ctx, f"Theorem W is about two hidden layers; the architecture is {net.architecture}")
    if net.input_dim < 2:
        fail(ctx, "Theorem W needs input dimension n0 >= 2")
    _tl._fields(ctx, evidence, ("frame", "minor", "regions", "order", "h4"), "pinning evidence")
    frame = evidence["frame"]
    if frame not in (Frame.X, Frame.U):
        fail(ctx, f"frame must be 'x' or 'u', got {frame!r}")
    T = _Theta(ctx, net, frame, evidence["minor"])
    if frame == Frame.U:
        _minor(ctx, T, evidence["minor"])
    elif evidence["minor"] is not None:
        fail(ctx, "the x frame has no minor")
    _h0(ctx, T)
    regions, listed = _regions(ctx, T, evidence["regions"])
    counts, method = _h4(ctx, T, evidence["h4"])
    P = _order(ctx, T, evidence["order"], regions, listed)
    assert P == set(range(T.n2))
    return (f"H0, H0′ recomputed; {frame} frame" + (" (rank A = n1 by a nonsingular minor mod p)" if frame == Frame.U else "")
            + f"; {len(listed)} regions with exact visible sets; all {T.n2} layer-2 neurons pinned along valid edges "
            f"(Lemmas W.1–W.3); distinct bend flats per H_j {counts}, H4 by {method}: the hypotheses of Theorem W hold")
