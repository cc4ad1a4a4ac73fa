"""The x frame of Theorem W at size: regions, visibility and wall points by float LP, verified exactly.

docs/mathematics.md §10.6 asks the producer for exact evidence only: an interior point of every
listed region R_s, for every k a zero z_{s,k} of g^s_k in R_s or a Motzkin vector (Lemma 8.1(b)) of
{s_i u_i > 0 ∀i, g^s_k = 0}, and for edges and bend triples a point of {u_j = 0 = g^s_k} on the wall
𝒲(s, j).  Floats only *search* for them here:

Regions along lines
    A line x0 + τd (d generic) crosses every H_j once, at distinct τ_j; the open intervals between
    consecutive crossings lie in n1 + 1 regions, consecutive ones differing in one label.  Such a
    chain flips every label once, which is what W.3(a) needs (Lemma 10.10(a): the differences of
    consecutive constraints are d_j u_j = 0), and every crossing is a wall.  Region points are the
    interval midpoints rounded to dyadic rationals and re-checked exactly.
Zeros on a cell
    For a cell {s_i u_i > 0 (i ≠ skip), u_skip = 0} a float LP (HiGHS) first measures the largest
    margin t*, then, on the cell shrunk by t*/2, maximises random combinations of the g^s_k (and,
    for each k still missing, ±g^s_k); two cloud points with opposite signs of g^s_k give a zero on
    their segment (the cell is convex), which is rounded to a dyadic point and projected exactly onto
    the equalities along the coordinates with the largest coefficients.  Every point is verified in
    exact integer arithmetic (homogeneous integer vectors, python-flint products).
Invisibility
    When g^s_k keeps one sign σ on the cloud and the LP min σ g^s_k over the closed region is ≥ 0,
    the dual's support gives the Motzkin vector: y_S solves Σ_{i∈S} y_i s_i A_i = σ∇g^s_k exactly,
    y ≥ 0 and Σ y_i s_i a_i − σ g^s_k(0) ≤ 0 are checked exactly (z = −σ).  Where this fails and the
    system is small, Fourier–Motzkin (:func:`reluid.analysis.deep.strict.solve_strict`) decides.

Nothing a float says is kept without the exact check; a k neither proved visible nor invisible
raises :class:`Undecided` (the region is then not used).  highspy is optional (the extra ``lp``):
:func:`available` says whether this search can run.
"""

from __future__ import annotations

import math
from fractions import Fraction

from reluid.analysis.deep.strict import StrictBudget, check_farkas, solve_strict

__all__ = ["available", "Undecided", "XSearch", "integer_rows"]

#: Fourier–Motzkin is the fallback only for systems with at most this many rows
FM_MAX_ROWS = 40


def available() -> bool:
    """Whether the LP-guided search can run (numpy, scipy and highspy importable)."""
    try:
        import highspy  # noqa: F401
        import numpy  # noqa: F401
        import scipy.sparse  # noqa: F401
    except ImportError:
        return False
    return True


class Undecided(Exception):
    """The visibility of some k on a region was neither proved nor disproved."""


def integer_rows(rows):
    """Each rational row times the positive lcm of its denominators (same signs and zero sets)."""
    out = []
    for r in rows:
        m = math.lcm(*(Fraction(x).denominator for x in r))
        out.append([int(Fraction(x) * m) for x in r])
    return out


class _Point(tuple):
    """A rational point (a tuple of Fractions) that also carries an integer vector (Lp, L), L > 0."""


def _point(coords, hom):
    p = _Point(coords)
    if hom[-1] < 0:
        hom = [-x for x in hom]
    p.hom = hom
    return p


class XSearch:
    """Float-guided exact search on the layer-1 regions of θ (x frame)."""

    def __init__(self, net, seed: int = 0):
        import numpy as np

        self.np = np
        L1, L2, _ = net.layers
        self.n0, self.n1, self.n2, _ = net.architecture
        self.A, self.a, self.W, self.w = L1.weight, L1.bias, L2.weight, L2.bias
        self.U = integer_rows([list(r) + [b] for r, b in zip(self.A, self.a)])      # (A_i, a_i) scaled, exact
        self.Af = np.array([[float(x) for x in r] for r in self.A])
        self.af = np.array([float(x) for x in self.a])
        self.Wf = np.array([[float(x) for x in r] for r in self.W])
        self.wf = np.array([float(x) for x in self.w])
        self.rng = np.random.default_rng(seed)
        self.lps = 0
        self._pieces: dict = {}
        self.inner: dict = {}               # (signs, skip) -> a float point of the cell (line crossings)
        self._flint()

    def _flint(self):
        import flint

        self.flint = flint
        self.Um = flint.fmpz_mat(self.U)
        # W (rational) as one integer matrix over a common denominator, for the pieces g^s
        den = math.lcm(*(x.denominator for r in self.W for x in r), *(x.denominator for x in self.w))
        # u_i = U_i / m_i: g^s_k = Σ_{i∈P(s)} (W_ki / m_i) U_i + w_k; one denominator M for W_ki / m_i
        m = [math.lcm(*(Fraction(x).denominator for x in list(r) + [b])) for r, b in zip(self.A, self.a)]
        self.M = math.lcm(*m) * den
        self.WM = [[int(self.W[k][i] * self.M / m[i]) for i in range(self.n1)] for k in range(self.n2)]
        self.wM = [int(self.w[k] * self.M) for k in range(self.n2)]

    # ---- exact pieces ------------------------------------------------------------
    def pieces_int(self, s):
        """g^s_k · M as integer rows (gradient..., constant), M > 0 common to all k and s (cached)."""
        if s not in self._pieces:
            D = [[x if s[i] > 0 else 0 for i, x in enumerate(r)] for r in self.WM]
            G = (self.flint.fmpz_mat(D) * self.Um).tolist()
            out = []
            for k, r in enumerate(G):
                row = [int(x) for x in r]
                row[-1] += self.wM[k]
                out.append(row)
            if len(self._pieces) > 4096:
                self._pieces.clear()
            self._pieces[s] = out
        return self._pieces[s]

    def pieces(self, s):
        """g^s_k as rational rows, exactly."""
        M = self.M
        return [tuple(Fraction(x, M) for x in r) for r in self.pieces_int(s)]

    # ---- exact checks ---------------------------------------------------------------
    @staticmethod
    def homogeneous(x):
        if isinstance(x, _Point):
            return x.hom
        L = math.lcm(*(v.denominator for v in x))
        return [v.numerator * (L // v.denominator) for v in x] + [L]

    def signs_at(self, points):
        """The exact sign vectors of u at the given rational points (one flint product)."""
        if not points:
            return []
        X = self.flint.fmpz_mat([list(c) for c in zip(*[self.homogeneous(p) for p in points])])
        P = [[(x > 0) - (x < 0) for x in r] for r in (self.Um * X).tolist()]
        return [tuple(c) for c in zip(*P)]

    def strictly_in(self, s, points, skip=None):
        return [all(sv[i] == s[i] for i in range(self.n1) if i != skip) and (skip is None or sv[skip] == 0)
                for sv in self.signs_at(points)]

    # ---- floats ------------------------------------------------------------------------
    def _pieces_f(self, s):
        D = self.Wf * (self.np.array(s) > 0)
        return D @ self.Af, D @ self.af + self.wf

    def _cell(self, s, skip, box, extra=None, margin_only=False):
        """A HiGHS model of the cell shrunk by half its largest margin, or None if it looks empty.

        ``extra``: one more float equality (gradient, constant); ``margin_only``: return the point of
        largest margin (capped at 1) and the margin instead of a model."""
        import highspy
        import scipy.sparse as sp

        np = self.np
        n0 = self.n0
        keep = [i for i in range(self.n1) if i != skip]
        sv = np.array(s, dtype=float)
        B = sv[keep, None] * self.Af[keep]
        b = sv[keep] * self.af[keep]
        inf = highspy.kHighsInf

        def model(with_t, margin):
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            h.setOptionValue("presolve", "off")
            lp = highspy.HighsLp()
            nc = n0 + (1 if with_t else 0)
            rows = [np.hstack([B, -np.ones((len(keep), 1))]) if with_t else B]
            lo, hi = [margin - b], [np.full(len(keep), inf)]
            eqs = ([] if skip is None else [(self.Af[skip], self.af[skip])]) + ([] if extra is None else [extra])
            for e, e0 in eqs:
                e = np.asarray(e)[None]
                rows.append(np.hstack([e, np.zeros((1, 1))]) if with_t else e)
                lo.append([-e0])
                hi.append([-e0])
            Mx = sp.csc_matrix(np.vstack(rows))
            lp.num_col_, lp.num_row_ = nc, Mx.shape[0]
            lp.col_cost_ = np.r_[np.zeros(n0), -1.0] if with_t else np.zeros(n0)
            lp.col_lower_ = np.r_[np.full(n0, -box), [-inf]] if with_t else np.full(n0, -box)
            lp.col_upper_ = np.r_[np.full(n0, box), [1.0]] if with_t else np.full(n0, box)
            lp.row_lower_, lp.row_upper_ = np.concatenate(lo), np.concatenate(hi)
            lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
            lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = Mx.indptr, Mx.indices, Mx.data
            h.passModel(lp)
            return h

        start = self.inner.get((tuple(s), skip)) if extra is None and not margin_only else None
        if start is not None:               # a known float point of the cell (a crossing of a line): its margin
            t = float(np.min(np.abs(B @ start + b))) if len(keep) else 1.0
            if t > 1e-9:
                return model(False, min(t, 1.0) / 2), min(t, 1.0) / 2
        h = model(True, 0.0)
        h.run()
        self.lps += 1
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        t = h.getSolution().col_value[-1]
        if t <= 1e-9:
            return None
        if margin_only:
            return np.array(h.getSolution().col_value[:-1]), t
        h = model(False, t / 2)
        return h, t / 2

    def _solve(self, h, c):
        import highspy

        h.changeColsCost(self.n0, self.np.arange(self.n0, dtype=self.np.int32), self.np.asarray(c, dtype=float))
        h.run()
        self.lps += 1
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        return self.np.array(h.getSolution().col_value)

    def float_zeros(self, s, ks, skip=None, rounds=2):
        """{k: float point of the shrunk cell with g^s_k = 0}, for the k ∈ ks found, and the cloud values."""
        np = self.np
        G, g0 = self._pieces_f(s)
        box = 100.0
        got = self._cell(s, skip, box)
        if got is None:
            return {}, None
        h, margin = got
        cloud = []
        for _ in range(rounds):
            c = self.rng.standard_normal(self.n2) @ G
            for sg in (1.0, -1.0):
                x = self._solve(h, sg * c)
                if x is not None:
                    cloud.append(x)
        ks = list(ks)
        out = {}

        def harvest(P):
            V = P @ G[ks].T + g0[ks]
            for col, k in enumerate(ks):
                if k in out:
                    continue
                hi, lo = int(np.argmax(V[:, col])), int(np.argmin(V[:, col]))
                if V[hi, col] > 1e-9 and V[lo, col] < -1e-9:
                    lam = V[hi, col] / (V[hi, col] - V[lo, col])
                    out[k] = P[hi] + lam * (P[lo] - P[hi])

        if cloud:
            harvest(np.array(cloud))
        tried = set()
        for k in ks:
            if k in out or not cloud or k in tried:
                continue
            tried.add(k)
            vals = np.array(cloud) @ G[k] + g0[k]
            sg = 1.0 if vals.max() > 0 else -1.0                  # look for the other sign
            x = self._solve(h, sg * G[k])
            if x is not None:
                cloud.append(x)
                harvest(np.array(cloud))
        return out, margin

    # ---- exact projection --------------------------------------------------------------
    def _grid(self, margin):
        amax = float(self.np.abs(self.Af).max()) or 1.0
        return max(6, math.ceil(math.log2(8 * self.n0 * amax / max(margin, 1e-12))))

    def project(self, x, eqs, e):
        """The dyadic rounding of x (grid 2^-e) moved exactly onto the affine equalities ``eqs`` (one or two
        integer rows (gradient..., constant)) along the coordinates with the largest coefficients."""
        P = [round(v * (1 << e)) for v in x]
        D = 1 << e
        if not eqs:
            return _point([Fraction(v, D) for v in P], P + [D])
        n0 = self.n0
        if len(eqs) == 1:
            r = eqs[0]
            c = max(range(n0), key=lambda t: abs(r[t]))
            if r[c] == 0:
                return None
            val = sum(r[t] * P[t] for t in range(n0)) + r[-1] * D          # = r(x) · D
            out = [Fraction(v, D) for v in P]
            out[c] = Fraction(P[c] * r[c] - val, D * r[c])
            hom = [v * r[c] for v in P] + [D * r[c]]
            hom[c] = P[c] * r[c] - val
            return _point(out, hom)
        r0, r1 = eqs
        cand = sorted(range(n0), key=lambda t: -abs(r0[t]))[:4] + sorted(range(n0), key=lambda t: -abs(r1[t]))[:4]
        best = None
        for c1 in cand:
            for c2 in cand:
                if c1 < c2:
                    det = r0[c1] * r1[c2] - r0[c2] * r1[c1]
                    if det and (best is None or abs(det) > best[0]):
                        best = (abs(det), c1, c2, det)
        if best is None:
            return None
        _, c1, c2, det = best
        # r_q(x) = 0 with x_t = P_t / D for t ∉ {c1, c2}: r_q[c1] y1 + r_q[c2] y2 = -(Σ_t r_q[t] P_t + r_q[-1] D) / D
        b0 = -(sum(r0[t] * P[t] for t in range(n0) if t not in (c1, c2)) + r0[-1] * D)
        b1 = -(sum(r1[t] * P[t] for t in range(n0) if t not in (c1, c2)) + r1[-1] * D)
        out = [Fraction(v, D) for v in P]
        out[c1] = Fraction(b0 * r1[c2] - b1 * r0[c2], D * det)
        out[c2] = Fraction(r0[c1] * b1 - r1[c1] * b0, D * det)
        hom = [v * det for v in P] + [D * det]
        hom[c1], hom[c2] = b0 * r1[c2] - b1 * r0[c2], r0[c1] * b1 - r1[c1] * b0
        return _point(out, hom)

    # ---- regions and walls --------------------------------------------------------------
    def line(self, x0, d):
        """The regions met by x0 + τd, in order: [(signs, exact point), ...], consecutive ones one flip apart."""
        np = self.np
        x0, d = np.asarray(x0, float), np.asarray(d, float)
        tau = -(self.Af @ x0 + self.af) / (self.Af @ d)
        ts = np.sort(tau)
        gap = max(1.0, float(np.max(np.diff(ts))) if len(ts) > 1 else 1.0)
        mids = np.concatenate([[ts[0] - gap], (ts[:-1] + ts[1:]) / 2, [ts[-1] + gap]])
        pts, floats = [], []
        for m, t in enumerate(mids):
            x = x0 + t * d
            sv = np.sign(self.Af @ x + self.af)
            margin = float(np.min(np.abs(self.Af @ x + self.af)))
            floats.append((x, margin))
        order = np.argsort(tau)
        for q, j in enumerate(order):       # the crossing of H_j lies on the wall between regions q and q + 1
            x = x0 + ts[q] * d
            s = tuple(int(v) for v in np.sign(self.Af @ x + self.af))
            self.inner[(s[:j] + (1,) + s[j + 1:], int(j))] = x
        out = []
        for x, margin in floats:
            e = self._grid(margin)
            for _ in range(4):
                p = self.project(x, [], e)
                sv = self.signs_at([p])[0]
                if 0 not in sv:
                    out.append((sv, p))
                    break
                e += 8
        return out

    def zeros(self, s, ks, skip=None):
        """{k: exact point} with g^s_k = 0 in the cell (the wall of (s, skip) when skip is given), verified."""
        G = self.pieces_int(s)
        fz, margin = self.float_zeros(s, ks, skip)
        if margin is None:
            return {}
        e = self._grid(margin)
        cand = {}
        for k, x in fz.items():
            p = self.project(x, [G[k]] if skip is None else [self.U[skip], G[k]], e)
            if p is not None:
                cand[k] = p
        Gf, g0f = self._pieces_f(s)
        for k in ks:             # the zero set may meet only the margin of the cell: the LP of the zero itself
            if k in cand or not Gf[k].any():
                continue
            got = self._cell(s, skip, 100.0, extra=(Gf[k], g0f[k]), margin_only=True)
            if got is not None:
                p = self.project(got[0], [G[k]] if skip is None else [self.U[skip], G[k]], self._grid(got[1]))
                if p is not None:
                    cand[k] = p
        ks_ = list(cand)
        pts = [cand[k] for k in ks_]
        ok = self.strictly_in(s, pts, skip)
        vals = self.values(G, ks_, pts)
        return {k: cand[k] for k, good, v in zip(ks_, ok, vals) if good and v == 0}

    def values(self, G, ks, points):
        """g^s_k(p) · (a positive factor) for the pairs (k, p), exactly."""
        out = []
        for k, p in zip(ks, points):
            h = self.homogeneous(p)
            out.append(sum(a * b for a, b in zip(G[k], h)))
        return out

    def motzkin(self, s, gk):
        """A Motzkin vector (y, (z,)) for {s_i u_i > 0, gk = 0} from the dual of min σ gk, verified; or None."""
        import highspy
        import scipy.sparse as sp

        np = self.np
        n0, n1 = self.n0, self.n1
        gf = np.array([float(x) for x in gk])
        sv = np.array(s, dtype=float)
        B = sv[:, None] * self.Af
        for sigma in (1, -1):
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            lp = highspy.HighsLp()
            Mx = sp.csc_matrix(B)
            inf = highspy.kHighsInf
            lp.num_col_, lp.num_row_ = n0, n1
            lp.col_cost_ = sigma * gf[:-1]
            lp.col_lower_, lp.col_upper_ = np.full(n0, -inf), np.full(n0, inf)
            lp.row_lower_, lp.row_upper_ = -sv * self.af, np.full(n1, inf)
            lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
            lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = Mx.indptr, Mx.indices, Mx.data
            h.passModel(lp)
            h.run()
            self.lps += 1
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                continue
            y = np.array(h.getSolution().row_dual)
            supp = [i for i in range(n1) if y[i] > 1e-9 * max(1.0, float(np.abs(y).max()))]
            got = self._exact_dual(s, gk, sigma, supp)
            if got is not None:
                return got
        return None

    def _exact_dual(self, s, gk, sigma, supp):
        flint = self.flint
        n0, n1 = self.n0, self.n1
        if not supp or len(supp) > n0:
            return None
        cols = [[Fraction(s[i]) * self.A[i][t] for i in supp] for t in range(n0)]
        rhs = [sigma * Fraction(gk[t]) for t in range(n0)]
        Mq = flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in row]
                             + [flint.fmpq(r.numerator, r.denominator)] for row, r in zip(cols, rhs)])
        R, rk = Mq.rref()
        m = len(supp)
        piv = []
        c = 0
        for i in range(rk):
            while c <= m and R[i, c] == 0:
                c += 1
            piv.append(c)
        if m in piv or rk < m:
            return None                                           # inconsistent, or not unique
        y = [Fraction(0)] * n1
        for i, pc in enumerate(piv):
            v = R[i, m]
            y[supp[pc]] = Fraction(int(v.p), int(v.q))
        z = Fraction(-sigma)
        Bx = [[s[i] * x for x in self.A[i]] for i in range(n1)]
        bx = [s[i] * self.a[i] for i in range(n1)]
        if check_farkas(Bx, bx, [list(gk[:-1])], [gk[-1]], y, [z], n0):
            return tuple(y), (z,)
        return None

    def push(self, s, j, walls):
        """Zeros of g^s_k in R_s from points p of {u_j = 0 = g^s_k} on the wall of (s, j) (``walls``: {k: p}).

        p + εv with v = ∂_{c2}g e_{c1} − ∂_{c1}g e_{c2} (so g(p + εv) = 0) and the sign of ε making s_j u_j > 0,
        for the pair (c1, c2) with the largest minor of [A_j; ∇g]; ε = 2^-m until the exact check passes.
        Only the two coordinates c1, c2 change."""
        G = self.pieces_int(s)
        ks = [k for k, p in walls.items() if p is not None]
        out = {}
        for m in (4, 12, 24):
            cand = {}
            for k in ks:
                if k in out:
                    continue
                g, A = G[k], self.U[j]
                c = sorted(range(self.n0), key=lambda t: -abs(float(g[t])))[:3] + \
                    sorted(range(self.n0), key=lambda t: -abs(float(A[t])))[:3]
                best = max(((abs(A[c1] * g[c2] - A[c2] * g[c1]), c1, c2) for c1 in c for c2 in c if c1 < c2),
                           default=(0, 0, 0))
                _, c1, c2 = best
                minor = A[c1] * g[c2] - A[c2] * g[c1]                  # = A_j · v (times m_j > 0)
                if minor == 0:
                    continue
                eps = Fraction(s[j] * (1 if minor > 0 else -1), (1 << m) * max(abs(g[c1]), abs(g[c2])))
                p = list(walls[k])
                p[c1] += eps * g[c2]
                p[c2] -= eps * g[c1]
                cand[k] = tuple(p)
            if not cand:
                break
            kk = list(cand)
            pts = [cand[k] for k in kk]
            for k, good, v in zip(kk, self.strictly_in(s, pts), self.values(G, kk, pts)):
                if good and v == 0:
                    out[k] = cand[k]
            if len(out) == len(ks):
                break
        return out

    def visibility(self, s, hints=None):
        """(visible {k: zero}, invisible {k: Motzkin vector or None for a constant piece}) for every k, exactly.

        ``hints``: zeros already verified in R_s (from :meth:`push`); the cloud is searched for the others."""
        Gi = self.pieces_int(s)
        nonconst = [k for k in range(self.n2) if any(Gi[k][:-1])]
        hints = dict(hints or {})
        rest = [k for k in nonconst if k not in hints]
        vis = {**hints, **(self.zeros(s, rest) if rest else {})}
        inv = {k: None for k in range(self.n2) if k not in nonconst}
        G = self.pieces(s) if len(vis) < len(nonconst) else None
        for k in nonconst:
            if k in vis:
                continue
            mz = self.motzkin(s, G[k])
            if mz is None and self.n1 + 1 <= FM_MAX_ROWS:
                B = [[s[i] * x for x in self.A[i]] for i in range(self.n1)]
                b = [s[i] * self.a[i] for i in range(self.n1)]
                try:
                    kind, res = solve_strict(B, b, [list(G[k][:-1])], [G[k][-1]], n=self.n0)
                except StrictBudget:
                    kind = None
                if kind == "point":
                    vis[k] = tuple(res)
                    continue
                if kind is not None:                 # solve_strict's other answer: a Farkas certificate
                    mz = (tuple(res[0]), tuple(res[1]))
            if mz is None:
                raise Undecided(f"g_{k + 1} on the region {''.join('+' if v > 0 else '-' for v in s)}")
            inv[k] = mz
        return vis, inv
