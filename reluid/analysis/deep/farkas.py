"""Exact, independently checkable answers to "is there an x in R^{n0} with these sign conditions?".

The premises of the deep mechanisms (a neuron dead or always active beyond
layer 1, a never co-active pair, a collapsed kink) are statements "no input x
makes these hidden pre-activations have these signs".  :func:`prove_no_input`
decides such a question by depth-first branch and bound over the signs of the
neurons of the layers below the conditions (the *scope*) and, when there is no
such x, returns a **Farkas tree**: every leaf is a partial sign assignment with
Motzkin multipliers proving its linear relaxation infeasible.  The leaves
cover R^{n0}, so the tree proves the premise; :func:`reluid.checker.farkas.verify_no_input`
re-verifies it from the network alone (docs/mathematics.md §6.1,
docs/certificates.md).

How a node is decided
    A float LP (HiGHS through ``highspy``, else ``scipy.optimize.linprog``)
    maximises ε subject to the closed rows >= 0, the strict rows >= ε and
    ε <= 1.  If the optimum is <= a tolerance (or the closed rows alone are
    infeasible) the support of its dual is solved exactly (python-flint) for
    Motzkin multipliers, which are verified exactly with the checker's rule;
    failing that, the node's LP is solved exactly (a small rational simplex on
    the dual LP).  No leaf is emitted with multipliers that were not verified
    exactly.  Otherwise the LP point is rounded to nearby dyadic rationals and
    the conditions are tested exactly with :meth:`Network.preactivations`
    (FOUND); else the node is split on the undecided scope neuron whose ReLU
    relaxation is most violated at the LP point.  Without highspy and scipy
    every node is solved by the exact simplex (slowly).

Only neurons with a path of nonzero weights to a condition (the *cone*) are
ever split: the rows of the others can always be met by h_k = σ(z_k(x)).  A
node whose cone is fully decided is feasible iff its LP optimum is > 0, and
then an exact point of it meets the conditions.

>>> from reluid.model.network import Network
>>> net = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [-1]), ([[1]], [0])])
>>> prove_no_input(net, [Condition(1, 0, ">0"), Condition(1, 1, ">0")]).outcome.value   # x > 0 and -x > 0
'none'
>>> r = prove_no_input(net, [Condition(2, 0, ">0")])          # |x| - 1 > 0 somewhere
>>> r.outcome.value, net.preactivations(r.point)[1][0] > 0
('found', True)
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Mapping, Sequence

import flint
import numpy as np

from reluid.errors import InvalidArgument
from reluid.model.network import Network
from reluid.verdicts import Outcome, Reason, ReasonCode

__all__ = ["FORMAT", "SIGNS", "Condition", "PremiseProof", "prove_no_input", "lp_engines"]

FORMAT = "reluid.farkas-tree/1"
SIGNS = (">0", "<0", ">=0", "<=0")

_TOL = 1e-7           # LP optimum at or below this (rows normalised to max-norm 1): try to certify
_DUAL_TOL = 1e-9      # relative threshold for the support of a float dual
_BITS = (0, 3, 8, 16, 26, 40, 52)


@dataclass(frozen=True, slots=True)
class Condition:
    """``z^layer_neuron(x) sign 0``: hidden layer ``layer`` (1-based), ``neuron`` (0-based).

    Iterating gives the plain triple ``(layer, neuron, sign)`` the checker takes.
    """

    layer: int
    neuron: int
    sign: str

    def __post_init__(self):
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (self.layer, self.neuron)):
            raise InvalidArgument(f"layer and neuron must be integers, got {self.layer!r}, {self.neuron!r}")
        if self.sign not in SIGNS:
            raise InvalidArgument(f"unknown sign {self.sign!r}; expected one of {SIGNS}")

    def __iter__(self):
        return iter((self.layer, self.neuron, self.sign))

    def holds(self, value: Fraction) -> bool:
        """Decide the condition exactly for a pre-activation value."""
        return {">0": value > 0, "<0": value < 0, ">=0": value >= 0, "<=0": value <= 0}[self.sign]

    def describe(self) -> str:
        return f"z^{self.layer}_{self.neuron}(x) {self.sign[:-1]} 0"


@dataclass(frozen=True, slots=True)
class PremiseProof:
    """The answer of :func:`prove_no_input`.

    Attributes
    ----------
    outcome : Outcome
        FOUND (``point``), NONE (``evidence``) or UNKNOWN (``reason``).
    conditions : tuple of Condition
    point : tuple of Fraction or None
        An exact x at which every condition holds (re-checked with
        :meth:`Network.preactivations`).
    evidence : mapping or None
        The ``reluid.farkas-tree/1`` certificate (read-only JSON data).
    reason : Reason or None
        Why the answer is unknown (node budget or timeout, with the open nodes left), as data
        (:mod:`reluid.report.reasons` words it).
    nodes : int
        Nodes visited (one LP each).
    leaves : int
        Leaves of the certificate (NONE).
    seconds : float
    lp : str
        The LP engine used: ``"highspy"``, ``"scipy"`` or ``"exact"``.
    """

    outcome: Outcome
    conditions: tuple[Condition, ...]
    point: tuple[Fraction, ...] | None = None
    evidence: Mapping | None = None
    reason: Reason | None = None
    nodes: int = 0
    leaves: int = 0
    seconds: float = 0.0
    lp: str = ""


class _Timeout(Exception):
    pass


class _Internal(Exception):
    pass


# ===========================================================================
# LP engines (floats: they only search; every result is re-verified exactly)
# ===========================================================================

@dataclass
class _LP:
    status: str                 # "optimal" | "farkas" (closed rows infeasible) | "error"
    eps: float = 0.0
    v: np.ndarray | None = None
    dual_closed: np.ndarray | None = None
    dual_strict: np.ndarray | None = None


def _normalise(M: np.ndarray) -> np.ndarray:
    if not len(M):
        return M
    s = np.abs(M).max(axis=1)
    s[s == 0] = 1.0
    return M / s[:, None]


class _HighsEngine:
    name = "highspy"
    _silenced = False

    def __init__(self):
        import highspy
        self.hs = highspy
        if not _HighsEngine._silenced:     # HiGHS prints a banner on its first construction
            _HighsEngine._silenced = True
            try:
                sys.stdout.flush()
                saved = os.dup(1)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                try:
                    self.h = highspy.Highs()
                finally:
                    os.dup2(saved, 1)
                    os.close(saved)
                    os.close(devnull)
            except OSError:
                self.h = highspy.Highs()
        else:
            self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)

    def _run(self, M, lower, cost, col_lower, col_upper):
        hs = self.hs
        m, n = M.shape
        lp = hs.HighsLp()
        lp.num_col_, lp.num_row_ = n, m
        lp.col_cost_ = cost
        lp.col_lower_, lp.col_upper_ = col_lower, col_upper
        lp.row_lower_ = lower
        lp.row_upper_ = np.full(m, hs.kHighsInf)
        r, c = np.nonzero(M)
        lp.a_matrix_.format_ = hs.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.searchsorted(r, np.arange(m + 1)).astype(np.int32)
        lp.a_matrix_.index_ = c.astype(np.int32)
        lp.a_matrix_.value_ = M[r, c]
        self.h.clearModel()
        self.h.passModel(lp)
        self.h.run()
        st = self.h.getModelStatus()
        sol = self.h.getSolution()
        return st, np.array(sol.col_value), np.array(sol.row_dual)

    def solve(self, C: np.ndarray, S: np.ndarray) -> _LP:
        hs = self.hs
        inf = hs.kHighsInf
        nv = C.shape[1] - 1 if len(C) else S.shape[1] - 1
        C, S = _normalise(C), _normalise(S)
        mc, ms = len(C), len(S)
        M = np.zeros((mc + ms, nv + 1))
        M[:mc, :nv] = C[:, :nv]
        M[mc:, :nv] = S[:, :nv]
        M[mc:, nv] = -1.0
        lower = -np.concatenate([C[:, nv], S[:, nv]])
        cost = np.zeros(nv + 1)
        cost[nv] = -1.0
        cl = np.full(nv + 1, -inf)
        cu = np.full(nv + 1, inf)
        cu[nv] = 1.0
        st, x, dual = self._run(M, lower, cost, cl, cu)
        if st == hs.HighsModelStatus.kOptimal:
            return _LP("optimal", float(x[nv]), x[:nv], np.abs(dual[:mc]), np.abs(dual[mc:]))
        if st not in (hs.HighsModelStatus.kInfeasible, hs.HighsModelStatus.kUnboundedOrInfeasible):
            return _LP("error")
        # phase B: min t subject to closed rows + t >= 0, t >= 0 (its dual is a Farkas certificate)
        M = np.zeros((mc, nv + 1))
        M[:, :nv] = C[:, :nv]
        M[:, nv] = 1.0
        cost = np.zeros(nv + 1)
        cost[nv] = 1.0
        cl = np.full(nv + 1, -inf)
        cl[nv] = 0.0
        cu = np.full(nv + 1, inf)
        st, x, dual = self._run(M, -C[:, nv], cost, cl, cu)
        if st != hs.HighsModelStatus.kOptimal:
            return _LP("error")
        return _LP("farkas", -float(x[nv]), None, np.abs(dual), np.zeros(ms))


class _ScipyEngine:
    name = "scipy"

    def __init__(self):
        from scipy.optimize import linprog
        self.linprog = linprog

    def solve(self, C: np.ndarray, S: np.ndarray) -> _LP:
        nv = C.shape[1] - 1 if len(C) else S.shape[1] - 1
        C, S = _normalise(C), _normalise(S)
        mc, ms = len(C), len(S)
        A = np.zeros((mc + ms, nv + 1))
        A[:mc, :nv] = -C[:, :nv]
        A[mc:, :nv] = -S[:, :nv]
        A[mc:, nv] = 1.0
        b = np.concatenate([C[:, nv], S[:, nv]])
        c = np.zeros(nv + 1)
        c[nv] = -1.0
        bounds = [(None, None)] * nv + [(None, 1.0)]
        res = self.linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
        if res.status == 0:
            d = np.abs(res.ineqlin.marginals)
            return _LP("optimal", float(res.x[nv]), res.x[:nv], d[:mc], d[mc:])
        if res.status != 2:
            return _LP("error")
        A = np.zeros((mc, nv + 1))
        A[:, :nv] = -C[:, :nv]
        A[:, nv] = -1.0
        c = np.zeros(nv + 1)
        c[nv] = 1.0
        res = self.linprog(c, A_ub=A, b_ub=C[:, nv], bounds=[(None, None)] * nv + [(0, None)], method="highs")
        if res.status != 0:
            return _LP("error")
        return _LP("farkas", -float(res.x[nv]), None, np.abs(res.ineqlin.marginals), np.zeros(ms))


def lp_engines() -> tuple[str, ...]:
    """The float LP engines importable here (``"exact"`` is always available)."""
    out = []
    for name, mod in (("highspy", "highspy"), ("scipy", "scipy.optimize")):
        try:
            __import__(mod)
            out.append(name)
        except ImportError:
            pass
    return tuple(out) + ("exact",)


def _engine(name: str):
    if name not in ("auto", "highspy", "scipy", "exact"):
        raise InvalidArgument(f"lp must be 'auto', 'highspy', 'scipy' or 'exact', got {name!r}")
    if name == "exact":
        return None
    for cand, cls in (("highspy", _HighsEngine), ("scipy", _ScipyEngine)):
        if name in ("auto", cand):
            try:
                return cls()
            except ImportError:
                if name == cand:
                    raise InvalidArgument(f"the LP engine {cand!r} is not installed") from None
    return None


# ===========================================================================
# Exact linear programming (python-flint rationals)
# ===========================================================================

def _simplex(A, b, c, basic: dict, deadline):
    """min c·z subject to A z = b, z >= 0 (b >= 0; rows without a basic column must have b = 0).

    ``basic`` maps rows to columns that are unit columns of A there.  Returns
    ``("optimal", z, basis, kept_rows)`` or ``("unbounded", ray)`` (a ray r >= 0
    with A r = 0 and c·r < 0).  Dantzig's rule, Bland's after a run of degenerate pivots.
    """
    m, n = len(A), len(c)
    T = [list(A[i]) + [b[i]] for i in range(m)]
    basis = [basic.get(i) for i in range(m)]

    def pivot(i, j):
        piv = T[i][j]
        Ti = [v / piv for v in T[i]] if piv != 1 else T[i]
        T[i] = Ti
        for k in range(len(T)):
            if k != i:
                f = T[k][j]
                if f != 0:
                    T[k] = [a - f * t if t != 0 else a for a, t in zip(T[k], Ti)]
        basis[i] = j

    for i in range(m):         # rows with b = 0: Gaussian elimination keeps feasibility
        if basis[i] is None:
            j = next((j for j in range(n) if T[i][j] != 0), None)
            if j is not None:
                pivot(i, j)
    kept = [i for i in range(m) if basis[i] is not None]
    T = [T[i] for i in kept]
    basis = [basis[i] for i in kept]
    m = len(T)
    d = list(c) + [0]
    for i in range(m):
        cb = c[basis[i]]
        if cb != 0:
            d = [x - cb * t for x, t in zip(d, T[i])]
    streak = 0
    while True:
        if deadline is not None and time.monotonic() > deadline:
            raise _Timeout()
        if streak > 20:
            j = next((j for j in range(n) if d[j] < 0), None)
        else:
            j = min(range(n), key=lambda j: d[j])
            if d[j] >= 0:
                j = None
        if j is None:
            z = [flint.fmpq(0)] * n
            for i in range(m):
                z[basis[i]] = T[i][-1]
            return "optimal", z, basis, kept
        best = None
        for i in range(m):
            if T[i][j] > 0:
                r = T[i][-1] / T[i][j]
                if best is None or r < best[0] or (r == best[0] and basis[i] < basis[best[1]]):
                    best = (r, i)
        if best is None:
            ray = [flint.fmpq(0)] * n
            ray[j] = flint.fmpq(1)
            for i in range(m):
                ray[basis[i]] = -T[i][j]
            return "unbounded", ray
        streak = streak + 1 if best[0] == 0 else 0
        pivot(best[1], j)
        f = d[j]
        d = [x - f * t for x, t in zip(d, T[best[1]])]


def _fq(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


# ===========================================================================
# The problem: scope, rows, cone
# ===========================================================================

class _Problem:
    def __init__(self, net: Network, conditions: tuple[Condition, ...]):
        self.net = net
        self.conditions = conditions
        hidden = net.hidden_widths
        self.L = L = max(c.layer for c in conditions)
        self.n0 = n0 = net.input_dim
        self.widths = {l: hidden[l - 1] for l in range(1, L + 1)}
        self.offset = {}
        S = 0
        for l in range(1, L):
            self.offset[l] = S
            S += hidden[l - 1]
        self.S = S
        self.nv = n0 + S
        self.scope = [(l, i) for l in range(1, L) for i in range(hidden[l - 1])]
        self.index = {li: k for k, li in enumerate(self.scope)}
        self.Wf, self.bf, self.Wi, self.bi, self.D = {}, {}, {}, {}, {}
        for l in range(1, L + 1):
            lay = net.layers[l - 1]
            self.Wf[l] = np.array([[float(w) for w in r] for r in lay.weight]).reshape(lay.n_out, lay.n_in)
            self.bf[l] = np.array([float(b) for b in lay.bias])
            D = 1
            for r in lay.weight:
                for w in r:
                    D = math.lcm(D, w.denominator)
            for x in lay.bias:
                D = math.lcm(D, x.denominator)
            self.D[l] = D
            self.Wi[l] = flint.fmpz_mat([[w.numerator * (D // w.denominator) for w in r] for r in lay.weight])
            self.bi[l] = [x.numerator * (D // x.denominator) for x in lay.bias]
        self.closed_conds = [(c.layer, c.neuron, 1 if c.sign == ">=0" else -1)
                             for c in conditions if c.sign in (">=0", "<=0")]
        self.strict_conds = [(c.layer, c.neuron, 1 if c.sign == ">0" else -1)
                             for c in conditions if c.sign in (">0", "<0")]
        # the cone: scope neurons with a path of nonzero weights to a condition neuron
        rel = {c.neuron for c in conditions if c.layer == L}
        cone = set()
        for l in range(L - 1, 0, -1):
            W = net.layers[l].weight
            here = {i for i in range(hidden[l - 1]) if any(W[j][i] != 0 for j in rel)}
            here |= {c.neuron for c in conditions if c.layer == l}
            cone |= {self.index[(l, i)] for i in here}
            rel = here
        self.cone = sorted(cone)
        # scope neurons with a strict condition: split them first (one branch closes at once)
        self.first_splits = []
        for c in conditions:
            if c.layer < L and c.sign in (">0", "<0"):
                k = self.index[(c.layer, c.neuron)]
                if k not in [t for t, _ in self.first_splits]:
                    self.first_splits.append((k, -1 if c.sign == ">0" else 1))

    # ---- rows ----------------------------------------------------------------
    def float_rows(self, sigma):
        n0, nv = self.n0, self.nv
        P = np.zeros((n0, nv + 1))
        P[np.arange(n0), np.arange(n0)] = 1.0
        Z = {}
        closed = []
        for l in range(1, self.L):
            Zl = self.Wf[l] @ P
            Zl[:, nv] += self.bf[l]
            Z[l] = Zl
            newP = np.zeros_like(Zl)
            base = self.offset[l]
            for i in range(Zl.shape[0]):
                k = base + i
                s = sigma[k]
                if s > 0:
                    closed.append(Zl[i])
                    newP[i] = Zl[i]
                elif s < 0:
                    closed.append(-Zl[i])
                else:
                    e = np.zeros(nv + 1)
                    e[n0 + k] = 1.0
                    closed.append(e)
                    closed.append(e - Zl[i])
                    newP[i] = e
            P = newP
        ZL = self.Wf[self.L] @ P
        ZL[:, nv] += self.bf[self.L]
        Z[self.L] = ZL
        closed.extend(s * Z[l][i] for l, i, s in self.closed_conds)
        strict = [s * Z[l][i] for l, i, s in self.strict_conds]
        C = np.array(closed).reshape(len(closed), nv + 1)
        S = np.array(strict).reshape(len(strict), nv + 1)
        return C, S, Z

    def exact_rows(self, sigma):
        """Closed and strict rows as (integer vector over (x, h, 1), positive denominator)."""
        n0, nv = self.n0, self.nv
        P = flint.fmpz_mat([[int(r == c) for c in range(nv + 1)] for r in range(n0)])
        E = 1
        Z, den = {}, {}
        closed = []
        for l in range(1, self.L + 1):
            Zm = self.Wi[l] * P
            rows = [[int(v) for v in r] for r in Zm.tolist()]
            for i, r in enumerate(rows):
                r[nv] += self.bi[l][i] * E
            E *= self.D[l]
            Z[l], den[l] = rows, E
            if l == self.L:
                break
            base = self.offset[l]
            newP = []
            for i, r in enumerate(rows):
                k = base + i
                s = sigma[k]
                if s > 0:
                    closed.append((r, E))
                    newP.append(r)
                elif s < 0:
                    closed.append(([-t for t in r], E))
                    newP.append([0] * (nv + 1))
                else:
                    e = [0] * (nv + 1)
                    e[n0 + k] = 1
                    closed.append((e, 1))
                    g = [-t for t in r]
                    g[n0 + k] += E
                    closed.append((g, E))
                    e = [0] * (nv + 1)
                    e[n0 + k] = E
                    newP.append(e)
            P = flint.fmpz_mat(newP)
        for l, i, s in self.closed_conds:
            closed.append(([s * t for t in Z[l][i]], den[l]))
        strict = [([s * t for t in Z[l][i]], den[l]) for l, i, s in self.strict_conds]
        return closed, strict

    # ---- exact certificates -------------------------------------------------------
    def certifies(self, closed, strict, ys: dict, mus: dict) -> bool:
        """The checker's rule, exactly: Σ y a + Σ μ a = 0, Σ y β + Σ μ β <= 0, (< 0 or μ != 0)."""
        if any(v <= 0 for v in ys.values()) or any(v <= 0 for v in mus.values()):
            return False
        terms = [(closed[i], y) for i, y in ys.items()] + [(strict[i], m) for i, m in mus.items()]
        G = 1
        for (_, E), m in terms:
            G = math.lcm(G, m.denominator * E)
        acc = [0] * (self.nv + 1)
        for (vec, E), m in terms:
            f = (G // (m.denominator * E)) * m.numerator
            for c, t in enumerate(vec):
                if t:
                    acc[c] += f * t
        return not any(acc[:-1]) and acc[-1] <= 0 and (acc[-1] < 0 or bool(mus))

    def from_support(self, closed, strict, lp: _LP):
        """Exact multipliers on the support of a float dual (None when that does not certify)."""
        dc, ds = lp.dual_closed, lp.dual_strict
        top = max(float(dc.max()) if len(dc) else 0.0, float(ds.max()) if len(ds) else 0.0)
        if top <= 0:
            return None
        sc = [int(i) for i in np.flatnonzero(dc > _DUAL_TOL * top)]
        ss = [] if lp.status == "farkas" else [int(i) for i in np.flatnonzero(ds > _DUAL_TOL * top)]
        if lp.status != "farkas" and not ss:
            return None
        items = [(closed[i], False, i) for i in sc] + [(strict[i], True, i) for i in ss]
        nv = self.nv
        used = sorted({c for (N, _), _, _ in items for c in range(nv) if N[c]})
        k = len(items)
        M = [[N[c] for (N, _), _, _ in items] + [0] for c in used]
        if ss:
            M.append([E if st else 0 for (_, E), st, _ in items] + [1])
        else:
            M.append([N[nv] for (N, _), _, _ in items] + [-1])
        R, rank = flint.fmpq_mat(M).rref()
        piv = []
        for r in range(rank):
            c = next(c for c in range(k + 1) if R[r, c] != 0)
            piv.append((r, c))
        if any(c == k for _, c in piv):
            return None                      # inconsistent
        if len(piv) < k:                     # not a vertex: solve the LP on the support exactly
            return self.exact_lp(closed, strict, only=(sc, ss))
        ys, mus = {}, {}
        for r, c in piv:
            w = _fq(R[r, k])
            (_, E), st, idx = items[c]
            val = w * E
            if val < 0:
                return self.exact_lp(closed, strict, only=(sc, ss))
            if val > 0:
                (mus if st else ys)[idx] = val
        return (ys, mus) if self.certifies(closed, strict, ys, mus) else None

    def exact_lp(self, closed, strict, only=None, deadline=None):
        """Solve the node's LP exactly (through its dual).

        min Σ w_j β_j N + t subject to Σ w_j N_j = 0 (v-part), Σ_strict w_s E_s + t = 1, w, t >= 0,
        with the multiplier of row j equal to w_j E_j.  Returns ``(ys, mus)`` (verified multipliers),
        ``("point", v)`` (exact v with closed rows >= 0 and strict rows > 0), or None when
        restricted to ``only`` (a support) it does not certify.
        """
        nv = self.nv
        if only is None:
            items = [(r, False, i) for i, r in enumerate(closed)] + [(r, True, i) for i, r in enumerate(strict)]
        else:
            items = [(closed[i], False, i) for i in only[0]] + [(strict[i], True, i) for i in only[1]]
        used = sorted({c for (N, _), _, _ in items for c in range(nv) if N[c]})
        n = len(items) + 1
        A = [[flint.fmpq(N[c]) for (N, _), _, _ in items] + [flint.fmpq(0)] for c in used]
        A.append([flint.fmpq(E if st else 0) for (_, E), st, _ in items] + [flint.fmpq(1)])
        b = [flint.fmpq(0)] * len(used) + [flint.fmpq(1)]
        cost = [flint.fmpq(N[nv]) for (N, _), _, _ in items] + [flint.fmpq(1)]
        out = _simplex(A, b, cost, {len(used): n - 1}, deadline)
        ys, mus = {}, {}
        if out[0] == "unbounded":
            ray = out[1]
            for j, ((_, E), st, idx) in enumerate(items):
                if ray[j] != 0:
                    (mus if st else ys)[idx] = _fq(ray[j]) * E
        else:
            _, z, basis, kept = out
            value = sum((cost[j] * z[j] for j in range(n)), flint.fmpq(0))
            if value <= 0:
                for j, ((_, E), st, idx) in enumerate(items):
                    if z[j] != 0:
                        (mus if st else ys)[idx] = _fq(z[j]) * E
            else:
                if only is not None:
                    return None
                m = len(kept)
                B = flint.fmpq_mat([[A[kept[r]][basis[s]] for r in range(m)] for s in range(m)])   # B^T
                pi = B.solve(flint.fmpq_mat([[cost[basis[s]]] for s in range(m)]))
                v = [Fraction(0)] * nv
                for r in range(m):
                    row = kept[r]
                    if row < len(used):
                        v[used[row]] = -_fq(pi[r, 0])
                if not self.satisfies(closed, strict, v):
                    raise _Internal("the exact LP's primal point does not satisfy its rows")
                return ("point", v)
        if not self.certifies(closed, strict, ys, mus):
            if only is not None:
                return None
            raise _Internal("the exact LP's multipliers do not certify")
        return ys, mus

    def satisfies(self, closed, strict, v) -> bool:
        D = math.lcm(*[x.denominator for x in v]) if v else 1
        vi = [x.numerator * (D // x.denominator) for x in v] + [D]

        def val(N):
            return sum(a * b for a, b in zip(N, vi) if a)
        return all(val(N) >= 0 for N, _ in closed) and all(val(N) > 0 for N, _ in strict)

    # ---- points ---------------------------------------------------------------------
    def holds(self, x) -> bool:
        """Do all conditions hold at x exactly?  (A float pre-filter first.)"""
        xf = np.array([float(t) for t in x])
        h = xf
        zs = []
        for l in range(1, self.L + 1):
            z = self.Wf[l] @ h + self.bf[l]
            zs.append(z)
            h = np.maximum(z, 0.0)
        for c in self.conditions:
            val = zs[c.layer - 1][c.neuron]
            slack = 1e-7 * (1.0 + abs(val))
            if (c.sign in (">0", ">=0") and val < -slack) or (c.sign in ("<0", "<=0") and val > slack):
                return False
        pre = self.net.preactivations(x)
        return all(c.holds(pre[c.layer - 1][c.neuron]) for c in self.conditions)


def _dyadics(v: np.ndarray, n0: int):
    seen = set()
    for bits in _BITS:
        s = 1 << bits
        x = tuple(Fraction(int(round(float(t) * s)), s) for t in v[:n0])
        if x not in seen:
            seen.add(x)
            yield x
    x = tuple(Fraction(float(t)) for t in v[:n0])
    if x not in seen:
        yield x


def _primitive(ys: dict, mus: dict):
    vals = list(ys.values()) + list(mus.values())
    D = math.lcm(*[v.denominator for v in vals])
    ints = [v.numerator * (D // v.denominator) for v in vals]
    g = math.gcd(*ints)
    sc = {i: (v.numerator * (D // v.denominator)) // g for i, v in ys.items()}
    ss = {i: (v.numerator * (D // v.denominator)) // g for i, v in mus.items()}
    return sc, ss


# ===========================================================================
# Branch and bound
# ===========================================================================

def _check_conditions(net: Network, conditions) -> tuple[Condition, ...]:
    if not isinstance(net, Network):
        raise InvalidArgument(f"expected a Network, got {type(net).__name__}")
    hidden = net.hidden_widths
    if not hidden:
        raise InvalidArgument(f"the network has no hidden layer (architecture {net.architecture})")
    out = []
    for c in conditions:
        if not isinstance(c, Condition):
            try:
                c = Condition(*c)
            except TypeError:
                raise InvalidArgument(f"not a condition: {c!r}") from None
        if not 1 <= c.layer <= len(hidden):
            raise InvalidArgument(f"{c}: the network has hidden layers 1..{len(hidden)}")
        if not 0 <= c.neuron < hidden[c.layer - 1]:
            raise InvalidArgument(f"{c}: hidden layer {c.layer} has {hidden[c.layer - 1]} neurons")
        out.append(c)
    if not out:
        raise InvalidArgument("prove_no_input needs at least one condition")
    return tuple(out)


def _freeze_tree(nodes) -> Mapping:
    """Read-only JSON data, built bottom-up (no recursion, whatever the depth)."""
    built = [None] * len(nodes)
    for idx in range(len(nodes) - 1, -1, -1):
        nd = nodes[idx]
        if nd[0] == "leaf":
            _, ys, mus = nd
            leaf = MappingProxyType({"closed": tuple((i, ys[i]) for i in sorted(ys)),
                                     "strict": tuple((i, mus[i]) for i in sorted(mus))})
            built[idx] = MappingProxyType({"leaf": leaf})
        else:
            _, (l, i), pos, neg = nd
            built[idx] = MappingProxyType({"split": (l, i), "pos": built[pos], "neg": built[neg]})
    return built[0]


def prove_no_input(net: Network, conditions: Sequence[Condition], *, max_nodes: int = 20000,
                   timeout: float | None = None, lp: str = "auto") -> PremiseProof:
    """Decide whether some x in R^{n0} meets every condition, with an exact answer either way.

    Parameters
    ----------
    net : Network
        Any network with at least one hidden layer.
    conditions : sequence of Condition (or (layer, neuron, sign) triples)
        Sign conditions on hidden pre-activations, conjoined.
    max_nodes : int, keyword-only
        Nodes (LPs) to visit before giving up with UNKNOWN.
    timeout : float or None, keyword-only
        Seconds before giving up with UNKNOWN.
    lp : {"auto", "highspy", "scipy", "exact"}, keyword-only
        The LP engine that guides the search ("auto": highspy, else scipy,
        else the exact simplex).  The answer never depends on it.

    Returns
    -------
    PremiseProof
        FOUND with an exact point (re-checked), NONE with a Farkas-tree
        certificate (every leaf verified exactly; docs/certificates.md), or
        UNKNOWN with the reason and the number of open nodes.
    """
    start = time.monotonic()
    conds = _check_conditions(net, conditions)
    if not isinstance(max_nodes, int) or max_nodes < 1:
        raise InvalidArgument(f"max_nodes must be a positive integer, got {max_nodes!r}")
    engine = _engine(lp)
    name = engine.name if engine is not None else "exact"
    deadline = None if timeout is None else start + timeout
    P = _Problem(net, conds)

    def answer(outcome, **kw):
        return PremiseProof(outcome, conds, nodes=visited, seconds=time.monotonic() - start, lp=name, **kw)

    nodes: list = []            # ("leaf", ys, mus) | ("split", (l, i), pos_index, neg_index)
    stack = [(np.zeros(P.S, dtype=np.int8), None, None)]   # (sigma, parent index, "pos"/"neg")
    visited = leaves = 0
    while stack:
        if visited >= max_nodes:
            return answer(Outcome.UNKNOWN, reason=Reason(ReasonCode.FARKAS_NODE_BUDGET,
                                                         {"max_nodes": max_nodes, "open": len(stack)}))
        if deadline is not None and time.monotonic() > deadline:
            return answer(Outcome.UNKNOWN, reason=Reason(ReasonCode.FARKAS_TIMEOUT,
                                                         {"seconds": timeout, "open": len(stack)}))
        sigma, parent, side = stack.pop()
        visited += 1
        try:
            kind, data = _evaluate(P, engine, sigma, deadline)
        except _Timeout:
            return answer(Outcome.UNKNOWN, reason=Reason(ReasonCode.FARKAS_TIMEOUT,
                                                         {"seconds": timeout, "open": len(stack) + 1}))
        except _Internal as e:
            return answer(Outcome.UNKNOWN, reason=Reason(ReasonCode.FARKAS_INTERNAL, {"error": str(e)}))
        if kind == Outcome.FOUND:
            return answer(Outcome.FOUND, point=data)
        idx = len(nodes)
        if parent is not None:
            p = nodes[parent]
            nodes[parent] = (p[0], p[1], idx, p[3]) if side == "pos" else (p[0], p[1], p[2], idx)
        if kind == "leaf":
            ys, mus = _primitive(*data)
            nodes.append(("leaf", ys, mus))
            leaves += 1
            continue
        k, first = data
        nodes.append(("split", P.scope[k], None, None))
        pos, neg = sigma.copy(), sigma.copy()
        pos[k], neg[k] = 1, -1
        order = [(pos, "pos"), (neg, "neg")] if first > 0 else [(neg, "neg"), (pos, "pos")]
        for s, sd in reversed(order):
            stack.append((s, idx, sd))
    evidence = MappingProxyType({"format": FORMAT, "scope_layers": P.L - 1, "tree": _freeze_tree(nodes)})
    return answer(Outcome.NONE, evidence=evidence, leaves=leaves)


def _evaluate(P: _Problem, engine, sigma, deadline):
    """("leaf", (ys, mus)) | ("found", x) | ("split", (scope index, preferred sign))."""
    C, S, Zf = P.float_rows(sigma)
    v_float = v_exact = None
    exact = None
    if engine is not None:
        res = engine.solve(C, S)
        if res.status == "farkas" or (res.status == "optimal" and res.eps <= _TOL):
            exact = P.exact_rows(sigma)
            cert = P.from_support(*exact, res)
            if cert is not None:
                return "leaf", cert
        elif res.status == "optimal":
            v_float = res.v
    if v_float is None:
        exact = exact or P.exact_rows(sigma)
        out = P.exact_lp(*exact, deadline=deadline)
        if out[0] != "point":
            return "leaf", out
        v_exact = out[1]
        x = tuple(v_exact[:P.n0])
        if P.holds(x):
            return Outcome.FOUND, x
        v_float = np.array([float(t) for t in v_exact])
    else:
        for x in _dyadics(v_float, P.n0):
            if P.holds(x):
                return Outcome.FOUND, x
    undecided = [k for k in P.cone if sigma[k] == 0]
    if not undecided:
        if v_exact is not None:
            raise _Internal("an exact feasible point of a fully decided node misses the conditions")
        exact = exact or P.exact_rows(sigma)
        out = P.exact_lp(*exact, deadline=deadline)
        if out[0] != "point":
            return "leaf", out
        x = tuple(out[1][:P.n0])
        if not P.holds(x):
            raise _Internal("an exact feasible point of a fully decided node misses the conditions")
        return Outcome.FOUND, x
    for k, first in P.first_splits:
        if sigma[k] == 0:
            return "split", (k, first)
    vv = np.append(v_float, 1.0)
    best, best_k, best_z = -1.0, undecided[0], 0.0
    for k in undecided:
        l, i = P.scope[k]
        z = float(Zf[l][i] @ vv)
        viol = float(vv[P.n0 + k]) - max(0.0, z)
        if viol > best:
            best, best_k, best_z = viol, k, z
    if best <= 1e-9:
        l, i = P.scope[best_k]
        best_z = float(Zf[l][i] @ vv)
    return "split", (best_k, 1 if best_z >= 0 else -1)
