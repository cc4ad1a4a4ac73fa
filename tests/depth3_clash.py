"""Exact clash points of a three-hidden-layer network on R³ (docs/mathematics.md §12.10).

For θ ∈ Ω(3, n1, n2, n3, n4), every bend flat of Definition 12.23 (a) (edge bend triples on layer-2 and
layer-1 edges) and (b) (level-1 triples with an active witness) is a line of R³.  For each, the closure
of its active part A(S) on the line x0 + τd is computed as a finite union of closed τ-intervals (the
conditions defining A(S) are signs of finitely many functions that are affine on the pieces between
breakpoints, so A(S) is a finite union of open intervals less finitely many points, and its closure is
the union of the closed intervals).  A *clash point* (Definition 12.34) is a point lying in the
closures of the active parts of two flats whose normal spaces span R³, i.e. two lines meeting in one
point.  Everything is exact (Fractions); nothing here is used by reluid.
"""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product
from math import ceil

from reluid.analysis.deep.strict import nullspace, rank

ONE, ZERO = F(1), F(0)


def _ev(row, x):
    return row[0] * x[0] + row[1] * x[1] + row[2] * x[2] + row[3]


def _comb(coefs, rows, const=ZERO):
    out = [ZERO, ZERO, ZERO, F(const)]
    for a, r in zip(coefs, rows):
        if a:
            for q in range(4):
                out[q] += a * r[q]
    return out


class Net3:
    """θ = (W1, b1; W2, b2; W3, b3; V, c) with input dimension 3, exact."""

    def __init__(self, W1, b1, W2, b2, W3, b3, V, c):
        cv = lambda M: [[F(v) for v in r] for r in M]
        self.W1, self.W2, self.W3, self.V = cv(W1), cv(W2), cv(W3), cv(V)
        self.b1, self.b2, self.b3, self.c = ([F(v) for v in b] for b in (b1, b2, b3, c))
        self.n1, self.n2, self.n3 = len(self.W1), len(self.W2), len(self.W3)
        assert all(len(r) == 3 for r in self.W1)
        self.u = [self.W1[j] + [self.b1[j]] for j in range(self.n1)]

    def z2(self, s, i):
        return _comb([self.W2[i][j] * (s[j] > 0) for j in range(self.n1)], self.u, self.b2[i])

    def z3(self, s, r, k):
        rows = [self.z2(s, i) for i in range(self.n2)]
        return _comb([self.W3[k][i] * (r[i] > 0) for i in range(self.n2)], rows, self.b3[k])

    def pre(self, x):
        u = [_ev(r, x) for r in self.u]
        su = [max(v, ZERO) for v in u]
        z2 = [sum(w * a for w, a in zip(self.W2[i], su)) + self.b2[i] for i in range(self.n2)]
        s2 = [max(v, ZERO) for v in z2]
        z3 = [sum(w * a for w, a in zip(self.W3[k], s2)) + self.b3[k] for k in range(self.n3)]
        return u, z2, z3


def _line(E1, E2):
    """{E1 = 0 = E2} as (x0, d), gradients independent."""
    N = nullspace([list(E1), list(E2)], 4)
    v = next(w for w in N if w[3] != 0)
    x0 = [a / v[3] for a in v[:3]]
    g1, g2 = E1[:3], E2[:3]
    d = [g1[1] * g2[2] - g1[2] * g2[1], g1[2] * g2[0] - g1[0] * g2[2], g1[0] * g2[1] - g1[1] * g2[0]]
    return x0, d


def _grad_rank(*rows):
    return rank([list(r[:3]) for r in rows])


def _b3_ok(l0, zk, others):
    """(B3): every other piece is a multiple of l0 (rank ≤ 1) or independent of span(l0, zk) (rank 3);
    returns (ok, the rank-3 pieces)."""
    r3 = []
    for o in others:
        if rank([l0, o]) <= 1:
            continue
        if rank([l0, zk, o]) != 3:
            return False, []
        r3.append(o)
    return True, r3


class Flat:
    """A bend flat: its two rows, the line, and the closure of its active part as closed τ-intervals."""

    def __init__(self, kind, rows, x0, d, closed, on):
        self.kind, self.rows, self.x0, self.d, self.closed, self.on = kind, rows, x0, d, closed, on

    def contains_closure(self, x):
        # τ with x = x0 + τ d (x on the line is assumed)
        q = next(m for m in range(3) if self.d[m] != 0)
        t = (x[q] - self.x0[q]) / self.d[q]
        return any((lo is None or lo <= t) and (hi is None or t <= hi) for lo, hi in self.closed)


def _pieces(x0, d, funcs):
    """The open τ-intervals cut out on the line by the zeros of the affine functions ``funcs``, with a
    sample point of each (breakpoints sorted)."""
    cuts = set()
    for f in funcs:
        a = f[0] * d[0] + f[1] * d[1] + f[2] * d[2]
        if a != 0:
            cuts.add(-_ev(f, x0) / a)
    cuts = sorted(cuts)
    ends = [None] + cuts + [None]
    out = []
    for lo, hi in zip(ends, ends[1:]):
        if lo is None and hi is None:
            t = ZERO
        elif lo is None:
            t = hi - 1
        elif hi is None:
            t = lo + 1
        else:
            t = (lo + hi) / 2
        out.append((lo, hi, [x0[m] + t * d[m] for m in range(3)]))
    return out


def _merge(ivs):
    """Union of closed intervals given as consecutive open pieces (lo, hi)."""
    out = []
    for lo, hi in ivs:
        if out and out[-1][1] is not None and out[-1][1] == lo:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def edge_flats(net: Net3):
    """Definition 12.23(a) on layer-2 edges (γ = (s, r), r_i = +, to r^{(i)}) and layer-1 edges
    (γ = (s, r), s_j = +, to s^{(j)}).  Returns a list of Flat."""
    out = []
    n1, n2, n3 = net.n1, net.n2, net.n3
    for s in product((1, -1), repeat=n1):
        z2 = [net.z2(s, i) for i in range(n2)]
        for r in product((1, -1), repeat=n2):
            z3 = [net.z3(s, r, k) for k in range(n3)]
            edges = [("L2", i, z2[i], [net.W3[k][i] for k in range(n3)]) for i in range(n2) if r[i] > 0]
            edges += [("L1", j, net.u[j], [sum(net.W3[k][i] * (r[i] > 0) * net.W2[i][j] for i in range(n2))
                                           for k in range(n3)]) for j in range(n1) if s[j] > 0]
            for kind, idx, l0, ck in edges:
                if _grad_rank(l0) == 0:
                    continue
                # strict rows of the wall (every defining inequality of γ except l0's)
                wall = [[s[m] * v for v in net.u[m]] for m in range(n1) if not (kind == "L1" and m == idx)]
                wall += [[r[i] * v for v in z2[i]] for i in range(n2) if not (kind == "L2" and i == idx)]
                for k in range(n3):
                    if ck[k] == 0 or _grad_rank(l0, z3[k]) != 2:
                        continue
                    ok, r3 = _b3_ok(l0, z3[k], [z3[q] for q in range(n3) if q != k])
                    if not ok:
                        continue
                    x0, d = _line(l0, z3[k])
                    good = []
                    for lo, hi, p in _pieces(x0, d, wall + r3):
                        if all(_ev(w, p) > 0 for w in wall):
                            good.append((lo, hi))
                    if good:
                        on = idx if kind == "L1" else None
                        out.append(Flat(kind, [l0, z3[k]], x0, d, _merge(good), on))
    return out


def level1_flats(net: Net3):
    """Definition 12.23(b): level-1 triples (s, j, i) with an active witness; the active part is
    computed piece by piece on the line (signs of u_m, m ≠ j, of the rank-3 z^{2,s}, then of z^3)."""
    out = []
    n1, n2, n3 = net.n1, net.n2, net.n3
    for s in product((1, -1), repeat=n1):
        z2 = [net.z2(s, i) for i in range(n2)]
        for j, i in product(range(n1), range(n2)):
            uj = net.u[j]
            if s[j] < 0 or net.W2[i][j] == 0 or _grad_rank(uj, z2[i]) != 2:
                continue
            ok, r3 = _b3_ok(uj, z2[i], [z2[q] for q in range(n2) if q != i])
            if not ok:
                continue
            x0, d = _line(uj, z2[i])
            # breakpoints: zeros of u_m (m ≠ j), of the rank-3 z^{2,s}, and of z^3_k under every
            # layer-2 pattern (a superset of the zeros of the actual z^3 on each piece)
            funcs = [net.u[m] for m in range(n1) if m != j] + r3
            funcs += [net.z3(s, rr, k) for rr in product((1, -1), repeat=n2) for k in range(n3)]
            good = []
            for lo, hi, p in _pieces(x0, d, funcs):
                u, zz, z3v = net.pre(p)
                if not all(s[m] * u[m] > 0 for m in range(n1) if m != j):
                    continue
                assert u[j] == 0 and zz[i] == 0
                if any(_ev(o, p) == 0 for o in r3) or any(v == 0 for v in z3v):
                    continue
                rho = [v > 0 for v in z3v]
                vt = [sum(net.V[o][k] * rho[k] * net.W3[k][i] for k in range(n3)) for o in range(len(net.V))]
                if any(v != 0 for v in vt):
                    good.append((lo, hi))
            if good:
                out.append(Flat("lvl1", [uj, z2[i]], x0, d, _merge(good), j))
    return out


def dedupe(flats):
    """Flats with the same line are merged (the union of their active parts); a line is keyed by the
    reduced row echelon form of its two rows."""
    from reluid.analysis.deep.strict import rref
    by = {}
    for f in flats:
        key = tuple(map(tuple, rref(f.rows)[0]))
        if key in by:
            g = by[key]
            g.closed = g.closed + f.closed
            g.kind = g.kind if g.kind == f.kind else g.kind + "+" + f.kind
            g.on = g.on if g.on is not None else f.on
        else:
            by[key] = Flat(f.kind, f.rows, f.x0, f.d, list(f.closed), f.on)
    return list(by.values())


def clash_points(flats):
    """Points in the closures of the active parts of two flats whose lines meet in exactly one point
    (normal spaces spanning R³), as a dict point -> list of index pairs."""
    out = {}
    for a in range(len(flats)):
        for b in range(a + 1, len(flats)):
            A, B = flats[a], flats[b]
            M = [list(r) for r in A.rows + B.rows]
            if _grad_rank(*M) != 3 or rank(M) != 3:
                continue          # parallel, skew or coincident lines
            N = nullspace(M, 4)
            v = N[0]
            x = tuple(c / v[3] for c in v[:3])
            if A.contains_closure(x) and B.contains_closure(x):
                out.setdefault(x, []).append((a, b))
    return out


def _canon_dir(v):
    lead = next(c for c in v if c != 0)
    return tuple(c / lead for c in v)


def max_collinear(points):
    """The largest number of the given points on one line (1 for a single point, 0 for none)."""
    pts = list(points)
    if len(pts) <= 2:
        return len(pts)
    best = 1
    for a, p in enumerate(pts):
        cnt = {}
        for q in pts[a + 1:]:
            key = _canon_dir([q[m] - p[m] for m in range(3)])
            cnt[key] = cnt.get(key, 0) + 1
        if cnt:
            best = max(best, 1 + max(cnt.values()))
    return best


def on_H(net: Net3, x):
    return [j for j in range(net.n1) if _ev(net.u[j], x) == 0]


def cp_l(net: Net3, X):
    """The per-line test (CP-L) of Theorem 12.37: for each i, X_i° (points of X on H_i and on no other
    H_m), c_i (most of them on one line), m_i = ⌈|X_i°|/c_i⌉ − 1; holds iff sorted m_(k) ≥ k for all k."""
    stats = []
    for i in range(net.n1):
        Xi = [x for x in X if on_H(net, x) == [i]]
        c = max_collinear(Xi)
        m = ceil(len(Xi) / c) - 1 if c else 0
        stats.append((len(Xi), c, m))
    ms = sorted(m for _, _, m in stats)
    return all(ms[k] >= k + 1 for k in range(net.n1)), stats



def _plane_through(p, q, r):
    """The plane through three points as a canonical row (∇, const), or None if they are collinear."""
    a = [q[m] - p[m] for m in range(3)]
    b = [r[m] - p[m] for m in range(3)]
    n = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    if not any(n):
        return None
    row = n + [-(n[0] * p[0] + n[1] * p[1] + n[2] * p[2])]
    lead = next(v for v in row if v != 0)
    return tuple(v / lead for v in row)


def cover_by_planes(points, k, excluded=()):
    """Exact: can the points of R³ be covered by k planes, none of them in ``excluded`` (canonical rows)?
    A member P through a point p covers X ∩ aff(X ∩ P): a plane spanned by points of X (not excluded),
    or the points of X on a line or a single point (every line lies in a non-excluded plane).  So the
    branch on the first uncovered point runs over the maximal such blocks containing it."""
    pts = sorted(set(points))
    N = len(pts)
    if N == 0:
        return True
    if k == 0:
        return False
    excluded = set(excluded)
    planes = {}
    for a in range(N):
        for b in range(a + 1, N):
            for c in range(b + 1, N):
                P = _plane_through(pts[a], pts[b], pts[c])
                if P is not None and P not in excluded and P not in planes:
                    planes[P] = sum(1 << t for t in range(N) if _ev(P, pts[t]) == 0)
    pblocks = set(planes.values())
    lines = set()
    for a in range(N):
        for b in range(a + 1, N):
            d = _canon_dir([pts[b][m] - pts[a][m] for m in range(3)])
            mask = (1 << a) | (1 << b) | sum(
                1 << t for t in range(N) if t not in (a, b)
                and _canon_dir([pts[t][m] - pts[a][m] for m in range(3)]) == d)
            if not any(mask & B == mask for B in pblocks):
                lines.add(mask)
    blocks = list(pblocks) + list(lines)
    memo = {}

    def rec(rem, k):
        if rem == 0:
            return True
        if k == 0:
            return False
        key = (rem, k)
        if key in memo:
            return memo[key]
        p = (rem & -rem)
        cand = [B for B in blocks if B & p]
        if not cand:
            cand = [p]
        # maximal restricted to rem
        res = any(rec(rem & ~B, k - 1) for B in {B & rem for B in cand})
        memo[key] = res
        return res

    return rec((1 << N) - 1, k)


def cp_star(net: Net3, X):
    """(CP) of Theorem 12.37: for every nonempty I ⊆ [n1], the clash points on no H_m with m ∉ I
    are not covered by |I| planes other than the H_i, i ∈ I.  Returns (holds, the first I that fails)."""
    Hs = []
    for r in net.u:
        lead = next(v for v in r if v != 0)
        Hs.append(tuple(v / lead for v in r))
    once = [[x for x in X if on_H(net, x) == [i]] for i in range(net.n1)]
    counts = [(len(Xi), max_collinear(Xi)) for Xi in once]
    for size in range(1, net.n1 + 1):
        for I in (I for I in product(range(2), repeat=net.n1) if sum(I) == size):
            # quick exclusion (the proof of (CP-L)): some i ∈ I has |X_i°| > |I| c_i
            if any(I[i] and counts[i][0] > size * counts[i][1] for i in range(net.n1)):
                continue
            keep = [x for x in X if all(I[m] or _ev(net.u[m], x) != 0 for m in range(net.n1))]
            if cover_by_planes(keep, size, [Hs[i] for i in range(net.n1) if I[i]]):
                return False, [i for i in range(net.n1) if I[i]]
    return True, None
