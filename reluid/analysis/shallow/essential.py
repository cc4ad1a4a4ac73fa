"""The essential stratum: an exact decision with certificates (docs/mathematics.md §4, Theorem 4).

θ ∈ Ω(m, n, k) is on the *essential stratum* when every m_i ≠ 0 and a_i ≠ 0, every
kink class holds one neuron or an opposite pair (a_j, b_j) = −λ(a_i, b_i), λ > 0,
every kink K_r ≠ 0, there is at least one pair, and the directions a_r of the p
pair classes are linearly independent.  ρ(θ) = Σ_r K_r σ(r·(x,1)) + Lx + c̄ over
s canonical rows r (numbered in sorted order), and n = s + p.

Theorem 4 of docs/mathematics.md: θ has a hidden symmetry iff some *case* (P, q) —
0 ≤ q ≤ ⌊p/2⌋, P ⊆ [s] with |P| = p − 2q — has an orientation e ∈ {0,1}^J,
J = [s] ∖ P, with

    rank X(e) ≤ q,   X(e) = X₀ + Σ_{r∈J} e_r C_r,   X₀ = L Z_Pᵀ,  C_r = K_r (Z_P a_r)ᵀ,

where the rows of Z_P span {z : a_r·z = 0, r ∈ P}; in the *own* case (P_θ, 0) θ's
own orientation e_θ is excluded.  :func:`decide_essential` goes through every case.
A solution is turned into θ′ (the rank formula's projection, a rank factorisation of
the residual into new cancelling pairs, dead neurons to fill up) and re-verified with
:func:`~.function.equivalent`; otherwise every case gets a certificate, verified
exactly here and again by :mod:`reluid.checker.patterns`:

``own-only``  the own case of a θ without single neurons (the only e is e_θ);
``flip``      the own case: a §3 ``no-flip-set`` evidence for the virtual network θ̄_P
              (θ's single neurons in index order, outputs m_i, rows Z_P a_i);
``box``       q = 0: y with ⟨y, X₀⟩ + Σ_r max(0, ⟨y, C_r⟩) < 0 (no e ∈ [0,1]^J works);
``lattice``   q = 0: a §3 ``rank``/``lattice`` evidence for θ̃, the ±1 embedding of
              X(e) = 0 (a solution would be a kernel vector of squared length n(θ̃));
``modp-enum`` q = 0: a prime; the 0/1 points of X(e) ≡ 0 (mod p) are enumerated;
``proj-enum`` columns F killing Z_P a_r for r ∈ T ⊆ J: rank X(e)F > q for every e
              on J ∖ T (T = ∅, F = I is plain enumeration).

Floats (numpy) only search: the Frank–Wolfe iteration behind ``box`` and the mod-p
filters of the enumerations; every certificate and witness is checked exactly.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np
from flint import fmpq, fmpq_mat, fmpz_mat, nmod_mat

from reluid.analysis.progress import report as _report
from reluid.analysis.shallow.flipsets._problem import Clock, SearchTimeout
from reluid.analysis.shallow.function import canonical_row, equivalent, function_data
from reluid.errors import InvalidArgument
from reluid.model.jsondata import freeze, thaw
from reluid.model.modp import pivot_columns
from reluid.model.network import Network, Shallow
from reluid.verdicts import FlipSetMethod, Outcome, PatternMethod, Reason, ReasonCode

__all__ = ["EssentialResult", "decide_essential", "classes_text", "essential_reason", "CASE_LIMIT", "ENUM_LIMIT",
           "METHODS", "hyperplane_text"]

CASE_LIMIT = 10_000
"""Most cases (P, q) decided; beyond, the answer is unknown (the checker has the same limit)."""

ENUM_LIMIT = 22
"""Largest enumeration exponent the checker accepts (2^22 orientations)."""

METHODS = tuple(PatternMethod)

PRIME = 2_147_483_647          # 2^31 − 1: products of two residues fit in int64
_CHUNK = 1 << 15
_ZERO, _ONE = Fraction(0), Fraction(1)


@dataclass(frozen=True, slots=True)
class EssentialResult:
    """The answer of :func:`decide_essential`.

    Attributes
    ----------
    outcome : Outcome
        FOUND: ``witness`` is θ′ with ρ(θ′) = ρ(θ), θ′ ∉ H_n·θ (re-verified exactly);
        NONE: ``evidence`` certifies that no realisation pattern other than θ's own exists;
        UNKNOWN: ``reason`` (a case beyond the enumeration limit, too many cases, timeout), a
        :class:`~reluid.verdicts.Reason` (:mod:`reluid.report.reasons` words it).
    witness : Shallow or None
    evidence : mapping
        JSON-shaped (ints and "p/q" strings), read-only: ``{"p", "s", "cases": [...]}``
        with one entry per case (docs/certificates.md, ``no-other-pattern``).
    reason : Reason or None
    description : str or None
        For FOUND: the pattern of θ′ in one sentence.
    details : mapping
        For FOUND: ``case`` (P, q), ``extra_pairs``, ``dead``.
    cases : int
        Number of cases (P, q) of Theorem 4 (all of them for NONE).
    seconds : float
    """

    outcome: Outcome
    witness: Shallow | None = None
    evidence: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    reason: Reason | None = None
    description: str | None = None
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    cases: int = 0
    seconds: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "outcome", Outcome(self.outcome))
        object.__setattr__(self, "evidence", freeze(self.evidence))
        object.__setattr__(self, "details", freeze(self.details))

    @property
    def methods(self) -> dict[str, int]:
        """How many cases each certificate method decided (NONE only)."""
        out: dict[str, int] = {}
        for ent in self.evidence.get("cases", ()):
            out[ent["method"]] = out.get(ent["method"], 0) + 1
        return out


# ---------------------------------------------------------------------------
# the data of θ
# ---------------------------------------------------------------------------

@dataclass
class _Data:
    theta: Shallow
    m: int
    k: int
    n: int
    rows: list          # canonical integer rows (a_r, b_r), sorted
    K: list             # K_r ∈ Q^k, nonzero
    L: list             # k × m
    cbar: tuple
    own: list           # '+', '-' or 'P' per class
    singles: dict       # class -> neuron index
    P_theta: tuple
    e_theta: tuple      # 1 for a single on its negative side

    @property
    def s(self) -> int:
        return len(self.rows)

    @property
    def p(self) -> int:
        return len(self.P_theta)

    def a(self, r) -> tuple:
        return self.rows[r][:self.m]


def essential_reason(theta: Shallow) -> str | None:
    """Why θ is not on the essential stratum, or None when it is."""
    try:
        _data(theta)
    except InvalidArgument as e:
        return str(e)
    return None


def _data(theta: Shallow) -> _Data:
    n, m, k = theta.n, theta.m, theta.k
    classes: dict = {}
    for i in range(n):
        if not any(theta.out(i)):
            raise InvalidArgument(f"not on the essential stratum: neuron {i + 1} has m_i = 0")
        cr = canonical_row(theta.A[i], theta.b[i])
        if cr is None:
            raise InvalidArgument(f"not on the essential stratum: neuron {i + 1} has a_i = 0")
        classes.setdefault(cr[0], []).append((i, cr[1]))
    fd = function_data(theta)
    rows = sorted(classes)
    own, singles = [], {}
    for idx, r in enumerate(rows):
        mem = classes[r]
        if len(mem) == 1:
            own.append("+" if mem[0][1] > 0 else "-")
            singles[idx] = mem[0][0]
        elif len(mem) == 2 and (mem[0][1] > 0) != (mem[1][1] > 0):
            own.append("P")
        else:
            raise InvalidArgument(f"not on the essential stratum: hyperplane {r} carries {len(mem)} neurons "
                                  "that are not one opposite pair")
        if r not in fd.kinks:
            raise InvalidArgument(f"not on the essential stratum: the kinks on hyperplane {r} cancel")
    P_theta = tuple(r for r in range(len(rows)) if own[r] == "P")
    if not P_theta:
        raise InvalidArgument("not on the essential stratum: no opposite pair (generic stratum)")
    if _qmat([list(rows[r][:m]) for r in P_theta]).rank() < len(P_theta):
        raise InvalidArgument("not on the essential stratum: the pair directions are linearly dependent")
    return _Data(theta, m, k, n, rows, [tuple(fd.kinks[r]) for r in rows], [list(x) for x in fd.linear],
                 tuple(fd.constant), own, singles, P_theta, tuple(1 if o == "-" else 0 for o in own))


def _all_cases(E: _Data):
    for q in range(E.p // 2 + 1):
        for P in itertools.combinations(range(E.s), E.p - 2 * q):
            yield P, q


def _case_count(E: _Data) -> int:
    return sum(math.comb(E.s, E.p - 2 * q) for q in range(E.p // 2 + 1))


# ---------------------------------------------------------------------------
# one case (P, q)
# ---------------------------------------------------------------------------

def _fr(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _qmat(rows) -> fmpq_mat:
    """An exact flint matrix from rows of ints or Fractions."""
    return fmpq_mat([[fmpq(x.numerator, x.denominator) if isinstance(x, Fraction) else x for x in row]
                     for row in rows])


def _primitive(v) -> tuple[int, ...]:
    den = math.lcm(*[x.denominator for x in v])
    w = [int(x * den) for x in v]
    g = math.gcd(*w)
    return tuple(x // g for x in w)


def annihilator(rows, m: int) -> list[tuple[int, ...]]:
    """Z_P: for each free column f of rref(rows), the primitive integer vector z with z_f > 0,
    zero on the other free columns, and rows·z = 0 (docs/certificates.md, ``no-other-pattern``)."""
    if not rows:
        return [tuple(int(i == j) for i in range(m)) for j in range(m)]
    R, rank = _qmat(rows).rref()
    piv = pivot_columns(R, rank)
    pset = set(piv)
    out = []
    for f in range(m):
        if f in pset:
            continue
        v = [_ZERO] * m
        v[f] = _ONE
        for t, pc in enumerate(piv):
            v[pc] = -_fr(R[t, f])
        out.append(_primitive(v))
    return out


@dataclass
class _Case:
    P: tuple
    q: int
    J: tuple
    Z: list             # m' integer rows
    abar: dict          # r ∈ J -> Z a_r (ints)
    X0: list            # k × m' rationals
    own: bool

    @property
    def mp(self) -> int:
        return len(self.Z)

    def key(self):
        return (self.q, self.P)


def _make_case(E: _Data, P, q) -> _Case:
    P = tuple(P)
    J = tuple(r for r in range(E.s) if r not in P)
    Z = annihilator([E.a(r) for r in P], E.m)
    mp = len(Z)
    abar, X0 = {}, [[] for _ in range(E.k)]
    if mp:
        Zm = fmpz_mat([list(z) for z in Z])
        if J:
            AJ = Zm * fmpz_mat([[E.a(r)[l] for r in J] for l in range(E.m)])
            for t, r in enumerate(J):
                abar[r] = tuple(int(AJ[i, t]) for i in range(mp))
        X = _qmat(E.L) * fmpq_mat(Zm.transpose())
        X0 = [[_fr(X[j, l]) for l in range(mp)] for j in range(E.k)]
    else:
        abar = {r: () for r in J}
    return _Case(P, q, J, Z, abar, X0, q == 0 and P == E.P_theta)


def _rank(X) -> int:
    if not X or not X[0]:
        return 0
    return _qmat(X).rank()


# ---------------------------------------------------------------------------
# certificates and searches per case
# ---------------------------------------------------------------------------

def _vec(E: _Data, case: _Case):
    """vec X₀ and vec C_r (row-major, entry j·m' + l) over J′ = {r ∈ J : Z a_r ≠ 0}."""
    x0 = [x for row in case.X0 for x in row]
    Jp = [r for r in case.J if any(case.abar[r])]
    cols = {r: [Kj * y for Kj in E.K[r] for y in case.abar[r]] for r in Jp}
    return x0, Jp, cols


def box_value(E: _Data, case: _Case, y) -> Fraction:
    """⟨y, X₀⟩ + Σ_{r∈J} max(0, ⟨y, C_r⟩), exactly (y row-major k·m′)."""
    x0, Jp, cols = _vec(E, case)
    val = sum((a * b for a, b in zip(y, x0)), _ZERO)
    for r in Jp:
        val += max(_ZERO, sum((a * b for a, b in zip(y, cols[r])), _ZERO))
    return val


def _rationalise(E, case, yf) -> list[Fraction] | None:
    top = float(np.max(np.abs(yf))) if len(yf) else 0.0
    if not top > 0:
        return None
    yf = yf / top
    for lim in (1, 2, 4, 12, 60, 720, 10**4, 10**6, 10**9):
        y = [Fraction(float(v)).limit_denominator(lim) for v in yf]
        if box_value(E, case, y) < 0:
            return y
    return None


def _box(E: _Data, case: _Case, clock: Clock) -> list[Fraction] | None:
    """A Farkas vector for the box relaxation of X(e) = 0, e ∈ [0,1]^J (q = 0), or None.

    Exactly when X₀ ∉ span{C_r}; otherwise Frank–Wolfe (floats) for the point of the
    zonotope {Σ e_r C_r : e ∈ [0,1]^J} nearest to −X₀, whose residual separates."""
    x0, Jp, cols = _vec(E, case)
    d = len(x0)
    if d == 0 or not any(x0) and not Jp:
        return None
    # exact: y ⊥ every C_r with ⟨y, X₀⟩ ≠ 0
    if not Jp:
        return [-x for x in x0]
    if _qmat([cols[r] for r in Jp] + [x0]).rank() > _qmat([cols[r] for r in Jp]).rank():
        den = math.lcm(*[x.denominator for r in Jp for x in cols[r]])
        N, nullity = fmpz_mat([[int(cols[r][i] * den) for i in range(d)] for r in Jp]).nullspace()
        for t in range(nullity):
            y = [Fraction(int(N[i, t])) for i in range(d)]
            v = sum((a * b for a, b in zip(y, x0)), _ZERO)
            if v:
                y = [-a for a in y] if v > 0 else y
                assert box_value(E, case, y) < 0
                return y
        raise AssertionError("internal error: X₀ outside span C_r but no separating y")
    # floats: Frank–Wolfe with exact line search on ½‖Σ e_r c_r + x₀‖² over the box
    scale = max(abs(float(x)) for x in x0 + [c for r in Jp for c in cols[r]]) or 1.0
    C = np.array([[float(c) / scale for c in cols[r]] for r in Jp]).T      # d × |J′|
    t0 = np.array([float(x) / scale for x in x0])
    e = np.full(len(Jp), 0.5)
    for it in range(3000):
        g = C @ e + t0                              # gradient in z-space, z = C e
        gc = C.T @ g
        if it % 25 == 0:
            clock.check(PatternMethod.BOX, Reason(ReasonCode.AT_FRANK_WOLFE))
            y = -g
            val = float(y @ t0 + np.maximum(0.0, C.T @ y).sum())
            if val < -1e-12 * max(1.0, float(np.abs(y).sum())):
                ex = _rationalise(E, case, y)
                if ex is not None:
                    return ex
        s = (gc < 0).astype(float)
        dvec = s - e
        gap = -float(gc @ dvec)
        if gap <= 1e-14:
            break
        Cd = C @ dvec
        den = float(Cd @ Cd)
        if den <= 0:
            break
        gamma = min(1.0, max(0.0, -float(g @ Cd) / den))
        e = e + gamma * dvec
    y = -(C @ e + t0)
    return _rationalise(E, case, y) if float(y @ t0 + np.maximum(0.0, C.T @ y).sum()) < 0 else None


def _system(E: _Data, case: _Case):
    """The integer form U e = t of X(e) = 0 over J′ (rows j·m′ + l, columns J′ in order):
    D·vec C_r and −D·vec X₀ with D the lcm of the denominators of X₀ and of K_r, r ∈ J′."""
    x0, Jp, cols = _vec(E, case)
    den = math.lcm(1, *[x.denominator for x in x0], *[x.denominator for r in Jp for x in E.K[r]])
    U = [[int(cols[r][i] * den) for r in Jp] for i in range(len(x0))]
    t = [int(-x * den) for x in x0]
    return Jp, U, t


def lattice_network(E: _Data, case: _Case) -> Shallow:
    """θ̃ ∈ Ω(k·m′, |J′| + 1, 1): outputs 1, zero biases, row t the column t of [U | −t′]
    with t′ = 2t − U𝟙; a solution e gives the kernel vector (2e − 𝟙, 1)."""
    Jp, U, t = _system(E, case)
    tp = [2 * ti - sum(row) for ti, row in zip(t, U)]
    cols = [tuple(Fraction(U[i][c]) for i in range(len(t))) for c in range(len(Jp))]
    cols.append(tuple(Fraction(-x) for x in tp))
    n = len(cols)
    return Shallow(((_ONE,) * n,), tuple(cols), (_ZERO,) * n, (_ZERO,), len(t))


def _lattice(E: _Data, case: _Case, clock: Clock):
    from reluid.analysis.shallow.flipsets import find_flip_set

    net = lattice_network(E, case)
    for method in (FlipSetMethod.LATTICE, FlipSetMethod.RANK):
        rem = clock.remaining()
        if rem is not None and rem <= 0:
            raise SearchTimeout(PatternMethod.LATTICE, Reason(ReasonCode.NO_TIME_LEFT))
        res = find_flip_set(net, method=method, timeout=rem)
        if res.outcome is Outcome.NONE and res.evidence.get("method") == method:
            return thaw(res.evidence)
    return None


def _free_columns(R, rank, ncols):
    piv = pivot_columns(R, rank)
    return piv, [c for c in range(ncols) if c not in set(piv)]


def _modp(E: _Data, case: _Case, limit: int, clock: Clock, p: int = PRIME):
    """('none', p) when no e ∈ {0,1}^{J′} has U e = t (the 0/1 points mod p checked exactly),
    ('found', e) for a solution, ('limit', d) when the kernel mod p has dimension d > limit."""
    Jp, U, t = _system(E, case)
    nJ = len(Jp)
    R, rank = nmod_mat([[x % p for x in row] + [y % p] for row, y in zip(U, t)], p).rref()
    piv, free = _free_columns(R, rank, nJ + 1)
    if nJ in piv:                                 # 0 = 1 mod p: no solution at all
        return Outcome.NONE, p
    free = [c for c in free if c < nJ]
    if len(free) > limit:
        return "limit", len(free)
    coef = np.array([[int(R[i, c]) for c in free] for i in range(rank)], dtype=np.int64).reshape(rank, len(free))
    rhs = np.array([int(R[i, nJ]) for i in range(rank)], dtype=np.int64)
    shifts = np.arange(len(free), dtype=np.int64)
    total = 1 << len(free)
    for start in range(0, total, _CHUNK):
        X = (np.arange(start, min(total, start + _CHUNK), dtype=np.int64)[:, None] >> shifts) & 1
        V = (rhs[None, :] - X @ coef.T) % p if rank else np.zeros((len(X), 0), dtype=np.int64)
        ok = np.all(V <= 1, axis=1)
        for x, v in zip(X[ok], V[ok]):
            e = [0] * nJ
            for c, b in zip(free, x.tolist()):
                e[c] = b
            for c, b in zip(piv, v.tolist()):
                e[c] = b
            if all(sum(Ui[c] * e[c] for c in range(nJ)) == ti for Ui, ti in zip(U, t)):
                sol = {r: 0 for r in case.J}
                sol.update(zip(Jp, e))
                return Outcome.FOUND, sol
        clock.check(PatternMethod.MODP_ENUM, lambda: Reason(ReasonCode.AT_MODP_POINTS, {"free": len(free), "p": p}))
    return Outcome.NONE, p


def _proj_plan(E: _Data, case: _Case):
    """(T, F): classes T ⊆ J whose Z a_r the columns F (a basis of their annihilator in Q^{m′})
    kill, keeping at least q + 1 columns; zero Z a_r first, then singles, then pairs."""
    T, vecs = [], []
    for r in sorted(case.J, key=lambda r: (1 if any(case.abar[r]) else 0, 1 if E.own[r] == "P" else 0, r)):
        if not any(case.abar[r]):
            T.append(r)
            continue
        cand = vecs + [list(case.abar[r])]
        rc = _qmat(cand).rank()
        if case.mp - rc >= case.q + 1:
            T.append(r)
            vecs = cand
    if vecs:
        F = [list(z) for z in annihilator(vecs, case.mp)]
    else:
        F = [[int(i == j) for i in range(case.mp)] for j in range(case.mp)]
    return sorted(T), F


def _mod_det_batch(Ms: np.ndarray, p: int) -> np.ndarray:
    """Determinants mod p of a batch of square int64 matrices with entries in [0, p), p < 2^31."""
    A = Ms.copy()
    B, s, _ = A.shape
    det = np.ones(B, dtype=np.int64)
    alive = np.ones(B, dtype=bool)
    idx = np.arange(B)
    for c in range(s):
        nz = A[:, c:, c] != 0
        has = nz.any(axis=1)
        alive &= has
        pr = c + np.argmax(nz, axis=1)
        swap = has & (pr != c)
        if swap.any():
            rows_c = A[idx[swap], c].copy()
            A[idx[swap], c] = A[idx[swap], pr[swap]]
            A[idx[swap], pr[swap]] = rows_c
            det[swap] = (p - det[swap]) % p
        piv = np.where(has, A[:, c, c], 1)
        det = det * piv % p
        inv = np.ones(B, dtype=np.int64)
        base, ex = piv % p, p - 2
        while ex:                              # Fermat inverse, vectorised square-and-multiply
            if ex & 1:
                inv = inv * base % p
            base = base * base % p
            ex >>= 1
        for r in range(c + 1, s):
            f = A[:, r, c] * inv % p
            A[:, r, c:] = (A[:, r, c:] - f[:, None] * A[:, c, c:] % p) % p
    return np.where(alive, det, 0)


def _rank_enum(E: _Data, case: _Case, T, F, clock: Clock, p: int = PRIME):
    """Every e on J ∖ T (zero on T): rank X(e)F ≤ q?  Returns the first such e or None.

    Filter: rank ≤ q forces det(R X(e)F S) = 0 for fixed R ((q+1) × k), S (d × (q+1));
    those determinants are computed mod p for a batch of orientations, and every e that
    passes the filter is checked exactly."""
    q, k = case.q, E.k
    rest = [r for r in case.J if r not in set(T)]
    Fm = _qmat(F).transpose()          # m′ × d
    d = len(F)

    def times_F(X):
        if not X or not d:
            return [[_ZERO] * d for _ in range(k)]
        Y = _qmat(X) * Fm
        return [[_fr(Y[j, l]) for l in range(d)] for j in range(k)]

    XF0 = times_F(case.X0)
    CF = {r: times_F([[Kj * y for y in case.abar[r]] for Kj in E.K[r]]) for r in rest}
    den = math.lcm(1, *[x.denominator for row in XF0 for x in row],
                   *[x.denominator for r in rest for row in CF[r] for x in row])
    rng = np.random.default_rng(12345)
    Rm = rng.integers(1, p, size=(q + 1, k), dtype=np.int64)
    Sm = rng.integers(1, p, size=(d, q + 1), dtype=np.int64)

    def sketch(X):
        Xi = np.array([[int(x * den) % p for x in row] for row in X], dtype=object)
        return np.array((Rm.astype(object) @ Xi @ Sm.astype(object)) % p, dtype=np.int64)

    M0 = sketch(XF0).reshape(-1)
    N = np.array([sketch(CF[r]).reshape(-1) for r in rest], dtype=np.int64).reshape(len(rest), (q + 1) ** 2)
    shifts = np.arange(len(rest), dtype=np.int64)
    total = 1 << len(rest)
    for start in range(0, total, _CHUNK):
        X = (np.arange(start, min(total, start + _CHUNK), dtype=np.int64)[:, None] >> shifts) & 1
        Ms = ((M0[None, :] + X @ N) % p).reshape(len(X), q + 1, q + 1)
        for x in X[_mod_det_batch(Ms, p) == 0]:
            e = {r: 0 for r in case.J}
            e.update(zip(rest, x.tolist()))
            XF = [row[:] for row in XF0]
            for r in rest:
                if e[r]:
                    XF = [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(XF, CF[r])]
            if _rank(XF) <= q:
                return e
        clock.check(PatternMethod.PROJ_ENUM, lambda: Reason(ReasonCode.AT_ORIENTATIONS, {"free": len(rest)}))
    return None


def _virtual_network(E: _Data, case: _Case) -> Shallow:
    """θ̄_P: θ's single neurons in index order, outputs m_i, rows Z_P a_i, zero biases."""
    t = E.theta
    idx = sorted(E.singles.values())
    Zq = [[Fraction(x) for x in z] for z in case.Z]
    A = tuple(tuple(sum((z * x for z, x in zip(zr, t.A[i])), _ZERO) for zr in Zq) for i in idx)
    M = tuple(tuple(t.M[j][i] for i in idx) for j in range(E.k))
    return Shallow(M, A, (_ZERO,) * len(idx), (_ZERO,) * E.k, case.mp)


def _own(E: _Data, case: _Case, clock: Clock):
    """The own case: ('cert', entry), ('found', e) or ('unknown', reason)."""
    from reluid.analysis.shallow.flipsets import find_flip_set

    if not case.J:
        return "cert", {"method": PatternMethod.OWN_ONLY}
    idx = sorted(E.singles.values())
    cls = {E.singles[r]: r for r in case.J}
    if case.mp == 0:                               # S_P = Q^m: any single flip is absorbed
        return Outcome.FOUND, {r: 1 - E.e_theta[r] if E.singles[r] == idx[0] else E.e_theta[r] for r in case.J}
    rem = clock.remaining()
    if rem is not None and rem <= 0:
        raise SearchTimeout(PatternMethod.FLIP, Reason(ReasonCode.NO_TIME_LEFT))
    res = find_flip_set(_virtual_network(E, case), timeout=rem)
    if res.outcome is Outcome.FOUND:
        flipped = {cls[idx[i]] for i in res.flip_set}
        return Outcome.FOUND, {r: 1 - E.e_theta[r] if r in flipped else E.e_theta[r] for r in case.J}
    if res.outcome is Outcome.NONE and res.evidence.get("method") != FlipSetMethod.Z3:
        return "cert", {"method": PatternMethod.FLIP, "evidence": thaw(res.evidence)}
    return Outcome.UNKNOWN, Reason(ReasonCode.PATTERN_OWN_CASE, {"singles": len(idx),
                                                                 "search": res.reason or res.method})


def _decide_case(E: _Data, case: _Case, limit: int, clock: Clock):
    """('cert', entry), (Outcome.FOUND, e) or (Outcome.UNKNOWN, reason) for one case."""
    if case.own:
        return _own(E, case, clock)
    if min(E.k, case.mp) <= case.q:                # every k × m′ matrix has rank ≤ q
        return Outcome.FOUND, {r: 0 for r in case.J}
    if case.q == 0:
        y = _box(E, case, clock)
        if y is not None:
            return "cert", {"method": PatternMethod.BOX, "y": y}
        ev = _lattice(E, case, clock)
        if ev is not None:
            return "cert", {"method": PatternMethod.LATTICE, "evidence": ev}
        st, val = _modp(E, case, limit, clock)
        if st == Outcome.NONE:
            return "cert", {"method": PatternMethod.MODP_ENUM, "prime": val}
        if st == Outcome.FOUND:
            return Outcome.FOUND, val
    T, F = _proj_plan(E, case)
    rest = len(case.J) - len(T)
    if T and rest <= limit:
        if _rank_enum(E, case, T, F, clock) is None:
            return "cert", {"method": PatternMethod.PROJ_ENUM, "T": T, "F": F}
    if len(case.J) > limit:
        return Outcome.UNKNOWN, Reason(ReasonCode.PATTERN_ENUMERATION_LIMIT, {
            "P": sorted(case.P), "q": case.q, "orientations": len(case.J), "limit": limit})
    ident = [[int(i == j) for i in range(case.mp)] for j in range(case.mp)]
    e = _rank_enum(E, case, [], ident, clock)
    if e is None:
        return "cert", {"method": PatternMethod.PROJ_ENUM, "T": [], "F": ident}
    return Outcome.FOUND, e


def _check_entry(E: _Data, case: _Case, ent: dict) -> None:
    """Re-check the cheap conditions of an entry exactly (the enumerations are exhaustive)."""
    meth = ent["method"]
    assert meth in METHODS
    if meth == PatternMethod.OWN_ONLY:
        assert case.own and not case.J
    elif meth == PatternMethod.FLIP:
        assert case.own and ent["evidence"]["method"] in set(FlipSetMethod) - {FlipSetMethod.Z3}
    else:
        assert not case.own and min(E.k, case.mp) > case.q
        if meth == PatternMethod.BOX:
            assert case.q == 0 and len(ent["y"]) == E.k * case.mp and box_value(E, case, ent["y"]) < 0
        elif meth in (PatternMethod.LATTICE, PatternMethod.MODP_ENUM):
            assert case.q == 0
        elif meth == PatternMethod.PROJ_ENUM:
            assert len(ent["F"]) > case.q and len(case.J) - len(ent["T"]) <= ENUM_LIMIT
            for r in ent["T"]:
                assert all(sum(a * b for a, b in zip(case.abar[r], col)) == 0 for col in ent["F"])


# ---------------------------------------------------------------------------
# the witness
# ---------------------------------------------------------------------------

def hyperplane_text(r) -> str:
    """'x1 − 2x2 + 3 = 0' for the canonical row r = (a, b)."""
    m = len(r) - 1
    terms = []
    for l, a in enumerate(r[:m]):
        if a:
            name = "x" if m == 1 else f"x{l + 1}"
            coef = "" if abs(a) == 1 else str(abs(a))
            terms.append(("− " if a < 0 else "+ ") + coef + name)
    if r[m]:
        terms.append(("− " if r[m] < 0 else "+ ") + str(abs(r[m])))
    text = " ".join(terms)
    return (text[2:] if text.startswith("+ ") else "−" + text[2:]) + " = 0"


def _witness(E: _Data, P, q, e: Mapping):
    """θ′ from a solution e of case (P, q): docs/mathematics.md §4, Theorem 4 (proof) and Lemma 2."""
    m, k, n = E.m, E.k, E.n
    P = tuple(P)
    D = [row[:] for row in E.L]
    for r in range(E.s):
        if r not in P and e[r]:
            for j in range(k):
                D[j] = [x + E.K[r][j] * y for x, y in zip(D[j], E.a(r))]
    # u_r from the orthogonal projection of the rows of D onto S_P (Lemma 3), over a basis of S_P
    basis = []
    for r in P:
        if _qmat([E.a(b) for b in basis + [r]]).rank() == len(basis) + 1:
            basis.append(r)
    u = {r: [_ZERO] * k for r in P}
    if basis:
        B = _qmat([E.a(r) for r in basis])
        coef = (B * B.transpose()).solve(B * _qmat(D).transpose())     # |basis| × k
        for t, r in enumerate(basis):
            u[r] = [-_fr(coef[t, j]) for j in range(k)]
    G = [row[:] for row in D]
    for r in P:
        for j in range(k):
            G[j] = [x + u[r][j] * y for x, y in zip(G[j], E.a(r))]
    tau = {}
    for r in range(E.s):
        if r in P:
            tau[r] = "+" if not any(u[r]) else "-" if tuple(u[r]) == tuple(E.K[r]) else "P"
        else:
            tau[r] = "-" if e[r] else "+"
    Rg, rank = _qmat(G).rref()
    assert rank <= q, "internal error: the residual has rank above q"
    piv, _ = _free_columns(Rg, rank, m)
    H = [tuple(_fr(Rg[t, l]) for l in range(m)) for t in range(rank)]
    W = [tuple(G[j][c] for j in range(k)) for c in piv]
    neurons, c = [], list(E.cbar)
    for r in range(E.s):
        row, K = tuple(Fraction(x) for x in E.rows[r]), E.K[r]
        neg = tuple(-x for x in row)
        if tau[r] == "+":
            neurons.append((row, K))
        elif tau[r] == "-":
            neurons.append((neg, K))
            c = [cj + Kj * row[m] for cj, Kj in zip(c, K)]
        else:
            neurons.append((row, tuple(x - y for x, y in zip(K, u[r]))))
            neurons.append((neg, tuple(u[r])))
            c = [cj + uj * row[m] for cj, uj in zip(c, u[r])]
    taken = {tuple(r) for r in E.rows}
    for h, g in zip(H, W):
        beta = _ONE
        while canonical_row(h, beta)[0] in taken:
            beta += 1
        taken.add(canonical_row(h, beta)[0])
        neurons.append((h + (beta,), g))
        neurons.append((tuple(-x for x in h) + (-beta,), tuple(-x for x in g)))
        c = [cj - gj * beta for cj, gj in zip(c, g)]     # g σ(z) − g σ(−z) = g z
    dead = n - len(neurons)
    assert dead >= 0, "internal error: the pattern needs more than n neurons"
    neurons += [((_ONE,) + (_ZERO,) * m, (_ZERO,) * k)] * dead
    M = tuple(tuple(o[j] for _, o in neurons) for j in range(k))
    wit = Shallow(M, tuple(rw[:m] for rw, _ in neurons), tuple(rw[m] for rw, _ in neurons), tuple(c), m)
    word = {"+": "one neuron, positive side", "-": "one neuron, negative side", "P": "an opposite pair"}
    parts = [f"{hyperplane_text(E.rows[r])}: {word[tau[r]]}" for r in range(E.s)]
    if H:
        parts.append(f"{len(H)} new cancelling pair{'s' if len(H) > 1 else ''} realising a rank-{len(H)} "
                     "linear map")
    if dead:
        parts.append(f"{dead} dead neuron{'s' if dead > 1 else ''}")
    details = {"case": {"P": list(P), "q": q}, "extra_pairs": len(H), "dead": dead}
    return wit, "; ".join(parts), details


# ---------------------------------------------------------------------------
# the decision
# ---------------------------------------------------------------------------

def classes_text(P) -> str:
    """A set of classes for people: numbered from 1, as in docs/mathematics.md §4 (the evidence counts from 0)."""
    return "{" + ", ".join(str(r + 1) for r in sorted(P)) + "}" if P else "∅"


def decide_essential(theta: Shallow | Network, *, timeout: float | None = None,
                     enum_limit: int = ENUM_LIMIT) -> EssentialResult:
    """Decide whether θ on the essential stratum has a hidden symmetry (docs/mathematics.md §4, Theorem 4).

    Parameters
    ----------
    theta : Shallow or Network
        On the essential stratum (else :class:`~reluid.errors.InvalidArgument`).
    timeout : float or None, keyword-only
        Seconds; on expiry the answer is UNKNOWN with the cases left.
    enum_limit : int, keyword-only
        Largest enumeration exponent (at most :data:`ENUM_LIMIT`, the checker's limit).

    Returns
    -------
    EssentialResult

    Examples
    --------
    >>> decide_essential(Shallow.make([1, 2], [[1], [-1]], [0, 0], [0])).outcome.value   # σ(x) + 2σ(−x)
    'none'
    >>> r = decide_essential(Shallow.make([1, 2, 3], [[1], [-1], [1]], [0, 0, 1], [0]))
    >>> r.outcome.value, r.description
    ('found', 'x = 0: an opposite pair; x + 1 = 0: one neuron, negative side')
    """
    t0 = time.perf_counter()
    if isinstance(theta, Network):
        theta = theta.shallow()
    if isinstance(enum_limit, bool) or not isinstance(enum_limit, int) or not 0 <= enum_limit <= ENUM_LIMIT:
        raise InvalidArgument(f"enum_limit must be an integer in [0, {ENUM_LIMIT}], got {enum_limit!r}")
    E = _data(theta)
    total = _case_count(E)

    def result(outcome, **kw):
        return EssentialResult(outcome, cases=total, seconds=time.perf_counter() - t0, **kw)

    if total > CASE_LIMIT:
        return result(Outcome.UNKNOWN, reason=Reason(ReasonCode.PATTERN_CASE_LIMIT, {
            "cases": total, "limit": CASE_LIMIT, "classes": E.s, "pairs": E.p}))
    clock = Clock(timeout)
    cases = list(_all_cases(E))
    # trivially hidden first (k ≤ ⌊p/2⌋: P of size p mod 2, q = ⌊p/2⌋), then the own case, then the rest
    order = sorted(cases, key=lambda pq: (not (pq[1] >= E.k and len(pq[0]) <= 1), pq != (E.P_theta, 0),
                                          pq[1], pq[0]))
    entries = {}
    for done, (P, q) in enumerate(order):
        case = None
        _report("realisation patterns", done / len(order))
        try:
            clock.check("cases", "")
            case = _make_case(E, P, q)
            st, val = _decide_case(E, case, enum_limit, clock)
        except SearchTimeout:
            return result(Outcome.UNKNOWN, reason=Reason(ReasonCode.PATTERN_TIMEOUT, {
                "seconds": time.perf_counter() - t0, "P": sorted(P) if case is not None else None, "q": q,
                "left": total - done, "cases": total}))
        if st == Outcome.UNKNOWN:
            return result(Outcome.UNKNOWN, reason=val)
        if st == Outcome.FOUND:
            wit, text, details = _witness(E, P, q, val)
            eq = equivalent(theta, wit)
            if not eq.equal or eq.same_orbit:
                raise AssertionError(f"internal error: the witness from case P = {classes_text(P)}, q = {q} "
                                     "failed exact re-verification")
            return result(Outcome.FOUND, witness=wit, description=text, details=details)
        ent = {"P": list(P), "q": q, **val}
        _check_entry(E, case, ent)
        entries[(q, P)] = ent
    evidence = {"p": E.p, "s": E.s, "cases": [entries[key] for key in sorted(entries)]}
    return result(Outcome.NONE, evidence=evidence)
