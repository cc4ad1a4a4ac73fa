"""Flip sets of a shallow ReLU network, and certificates that there are none.

For θ = (M, A, b, c) ∈ Ω(m, n, k) a *flip set* is a nonempty F ⊆ [n] with

    Σ_{i∈F} m_i a_iᵀ = 0        (a k × m matrix; docs/mathematics.md §2).

Flipping the rows (a_i, b_i), i ∈ F, and moving Σ_{i∈F} m_i b_i into c keeps
the function, so on the generic stratum θ has hidden symmetries iff it has a
flip set.  Write u_i = vec(m_i a_iᵀ) ∈ Q^{km} (entry ``j*m + l`` is
``M[j][i] * A[i][l]``) and U for the km × n matrix with columns u_i: F is a
flip set iff its indicator vector x ∈ {0,1}ⁿ∖0 satisfies U x = 0.  Columns of
U must not be rescaled one by one (that changes the 0/1 question); rows may.

Deciding whether a flip set exists is NP-complete (zero subset sum), so
:func:`find_flip_set` tries certificates that are cheap when the answer is
easy, in this order (docs/mathematics.md §3):

``rank``
    u_1, …, u_n independent: a prime p and n rows of U with an n × n minor
    that is nonzero mod p.
``lattice``
    an LLL-reduced basis B of L = ker U ∩ Zⁿ with min ‖b*_i‖² > n; then L has
    no nonzero vector of squared length ≤ n, so no x ∈ {0, ±1}ⁿ∖0 with U x = 0
    (this is also Proposition 24's condition for the joint matrix).
``enumerate``
    a prime p and rows S of U whose kernel mod p has small dimension r: every
    flip set x satisfies U_S x ≡ 0 (mod p), so it is determined by its r free
    coordinates, and 2^r candidates are checked.  With S empty this is plain
    exhaustive search over 2ⁿ subsets.
``mitm``
    meet in the middle over 2^{n/2} subset sums of a hash of the columns.
``z3``
    a pseudo-Boolean query; an ``unsat`` rests on the solver.

Every certificate is re-verified by :mod:`reluid.checker.flipsets`, which
shares no code with this module.

References
----------
P. Ramakrishnan, "A complete symmetry classification of shallow ReLU
networks", 2026: Proposition 24, Theorem 5.
H. Cohen, "A course in computational algebraic number theory", 1993:
Algorithm 2.7.2 (integral kernel by LLL), Section 2.6.1 (Gram–Schmidt bound).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Iterable, Mapping

import numpy as np
from flint import fmpz, fmpz_mat, nmod_mat

from reluid.certificates.schema import Claim, Trust, freeze
from reluid.errors import InvalidArgument
from reluid.model.network import Network, Shallow

__all__ = [
    "METHODS",
    "ENUMERATE_MAX_FREE",
    "MITM_MAX_N",
    "LATTICE_MAX_N",
    "FlipMatrix",
    "FlipSetResult",
    "flip_matrix",
    "is_flip_set",
    "find_flip_set",
    "all_flip_sets",
    "count_flip_sets",
]

METHODS = ("auto", "rank", "lattice", "enumerate", "mitm", "z3")
"""The values of ``method=`` accepted by :func:`find_flip_set`."""

ENUMERATE_MAX_FREE = 20
"""Largest kernel dimension r for which ``enumerate`` certificates are made (2^r candidates)."""

MITM_MAX_N = 44
"""Largest width n for which ``mitm`` certificates are made (2 × 2^{n/2} subset sums)."""

LATTICE_MAX_N = 300
"""Largest width n for which the lattice (LLL) method is attempted."""

REFERENCE = "Ramakrishnan 2026, Proposition 24 and Theorem 5; docs/mathematics.md §2-3 (flip sets)"

_PRIME = 2**31 - 1          # products of two residues fit in int64
_HASH_PRIME = 2**61 - 1     # sums of two residues fit in int64
_CHUNK = 1 << 16


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FlipMatrix:
    """Some rows of the flip matrix, scaled to integers.

    ``entries[t][i] == scale * M[j][i] * A[i][l]`` where ``rows[t] == j*m + l``;
    ``scale`` is one common denominator for the whole matrix, so integer
    relations between columns are exactly those of U.

    Attributes
    ----------
    entries : tuple of tuple of int
    rows : tuple of int
        Row indices into the km rows of U.
    scale : int
        The common denominator D (D·U is integral).
    shape : (int, int)
        (km, n), the shape of the full U.
    """

    entries: tuple[tuple[int, ...], ...]
    rows: tuple[int, ...]
    scale: int
    shape: tuple[int, int]


@dataclass(frozen=True, slots=True)
class FlipSetResult:
    """The answer of :func:`find_flip_set`.

    Attributes
    ----------
    status : {"none", "found", "unknown"}
        ``"none"``: θ has no flip set (certified by ``evidence``);
        ``"found"``: ``flip_set`` is one (checked exactly);
        ``"unknown"``: no method decided; ``reason`` says why.
    flip_set : frozenset of int or None
        0-based neuron indices.
    evidence : mapping
        JSON-shaped, read-only (ints and tuples): the certificate, to be put in
        a ``Claim(kind="no-flip-set")`` or ``Claim(kind="flip-set")``
        (:meth:`claim`).  Empty when unknown.
    method : str
        The method that decided (``"screen"`` for the quick witness search),
        or ``"none"``.
    trust : {"checked", "solver"}
        ``"solver"`` only for a z3 ``unsat``.
    solver : mapping or None
        :meth:`SolverConfig.describe` when z3 was involved in the verdict.
    reason : str or None
    stats : tuple of (method, seconds, outcome)
        Every method tried, in order.
    """

    status: str
    flip_set: frozenset | None = None
    evidence: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    method: str = "none"
    trust: str = "checked"
    solver: Mapping[str, Any] | None = None
    reason: str | None = None
    stats: tuple[tuple[str, float, str], ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "evidence", freeze(self.evidence))
        if self.solver is not None:
            object.__setattr__(self, "solver", freeze(self.solver))

    def claim(self, id: str = "flip-sets") -> Claim | None:
        """The certificate claim for this result (None when unknown).

        Examples
        --------
        >>> theta = Shallow.make([1, -1], [[1], [1]], [0, 1], [0])
        >>> find_flip_set(theta).claim().kind
        'flip-set'
        """
        if self.status == "none":
            return Claim(id=id, kind="no-flip-set",
                         statement="θ has no flip set: no nonempty F ⊆ [n] with Σ_{i∈F} m_i a_iᵀ = 0",
                         reference=REFERENCE, evidence=self.evidence, trust=Trust(self.trust),
                         solver=self.solver)
        if self.status == "found":
            return Claim(id=id, kind="flip-set",
                         statement="F is a flip set: Σ_{i∈F} m_i a_iᵀ = 0, so flipping F keeps the function",
                         reference=REFERENCE, evidence=self.evidence)
        return None


class _Timeout(Exception):
    def __init__(self, method: str, detail: str):
        self.method, self.detail = method, detail
        super().__init__(f"{method}: {detail}")


class _BadPrime(Exception):
    pass


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------

def _check_theta(theta) -> Shallow:
    if isinstance(theta, Network):
        return theta.shallow()
    if not isinstance(theta, Shallow):
        raise InvalidArgument(f"expected a Shallow θ or a Network, got {type(theta).__name__}")
    return theta


def _check_timeout(timeout):
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise InvalidArgument(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    return float(timeout)


def _check_limit(limit):
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidArgument(f"limit must be a non-negative integer or None, got {limit!r}")
    return limit


def _check_subset(theta: Shallow, F) -> frozenset:
    try:
        items = list(F)
    except TypeError:
        raise InvalidArgument(f"a flip set is an iterable of neuron indices, got {F!r}") from None
    for i in items:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= int(i) < theta.n:
            raise InvalidArgument(f"neuron index {i!r} out of range for n = {theta.n}")
    return frozenset(int(i) for i in items)


# ---------------------------------------------------------------------------
# primes
# ---------------------------------------------------------------------------

def _is_prime(p: int) -> bool:
    """Primality of the modulus (flint's test; the checker re-tests with its own Miller–Rabin)."""
    return p >= 2 and bool(fmpz(p).is_prime())


def _primes_from(p: int):
    while p > 2:
        if _is_prime(p):
            yield p
        p -= 1


# ---------------------------------------------------------------------------
# the flip matrix
# ---------------------------------------------------------------------------

class _Problem:
    """Mutable working state for one θ: integer factors, residues, chosen prime."""

    def __init__(self, theta: Shallow, seed: int = 0):
        self.theta = theta
        self.n, self.k, self.m = theta.n, theta.k, theta.m
        self.km = self.k * self.m
        self.rng = np.random.default_rng(seed)
        self._ints = None
        self._res: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._p = None

    # exact integers: D·U = (DM·M) ⊙ (DA·A)
    def integers(self):
        if self._ints is None:
            t = self.theta
            dm = math.lcm(*{x.denominator for row in t.M for x in row}) if self.n and self.k else 1
            da = math.lcm(*{x.denominator for row in t.A for x in row}) if self.n and self.m else 1
            Mi = [[x.numerator * (dm // x.denominator) for x in row] for row in t.M]
            Ai = [[x.numerator * (da // x.denominator) for x in row] for row in t.A]
            self._ints = (Mi, Ai, dm * da)
        return self._ints

    def int_rows(self, rows) -> list[list[int]]:
        Mi, Ai, _ = self.integers()
        m = self.m
        return [[Mi[r // m][i] * Ai[i][r % m] for i in range(self.n)] for r in rows]

    def column_sum(self, F) -> list[int]:
        """D · Σ_{i∈F} u_i, exactly (km integers)."""
        Mi, Ai, _ = self.integers()
        out = [0] * self.km
        for i in F:
            a = Ai[i]
            for j in range(self.k):
                mji = Mi[j][i]
                if mji:
                    base = j * self.m
                    for l in range(self.m):
                        out[base + l] += mji * a[l]
        return out

    def is_flip(self, F) -> bool:
        return bool(F) and not any(self.column_sum(F))

    # residues mod p
    def residues(self, p: int):
        if p not in self._res:
            self._res[p] = (_residue_array(self.theta.M, self.n, p), _residue_array(self.theta.A, self.m, p))
        return self._res[p]

    def prime(self) -> int:
        if self._p is None:
            for p in _primes_from(_PRIME):
                try:
                    self.residues(p)
                except _BadPrime:
                    continue
                self._p = p
                break
        return self._p

    def mod_rows(self, rows, p: int) -> np.ndarray:
        Mp, Ap = self.residues(p)
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == 0:
            return np.zeros((0, self.n), dtype=np.int64)
        return (Mp[rows // self.m, :] * Ap[:, rows % self.m].T) % p

    def balanced_rows(self, count: int) -> list[int]:
        """``count`` distinct rows spread evenly over the k outputs (count ≤ km)."""
        k, m = self.k, self.m
        out = []
        for j in range(k):
            c = count // k + (1 if j < count % k else 0)
            out.extend(j * m + int(l) for l in self.rng.choice(m, size=c, replace=False))
        return sorted(out)


def _residue_array(matrix, ncols: int, p: int) -> np.ndarray:
    dens = {x.denominator for row in matrix for x in row}
    if any(d % p == 0 for d in dens):
        raise _BadPrime(p)
    inv = {d: pow(d, -1, p) for d in dens}
    flat = [x.numerator * inv[x.denominator] % p for row in matrix for x in row]
    return np.array(flat, dtype=np.int64).reshape(len(matrix), ncols)


def flip_matrix(theta, rows: Iterable[int] | None = None) -> FlipMatrix:
    """The flip matrix D·U (or some of its rows) as integers.

    Column i of U is u_i = vec(m_i a_iᵀ) ∈ Q^{km}; row ``j*m + l`` (output j,
    input coordinate l) holds ``M[j][i] * A[i][l]``.  F is a flip set iff the
    columns in F sum to zero (docs/mathematics.md §2).  When km ≫ n ask for a few rows
    only: forming all km·n entries costs time and memory.

    Parameters
    ----------
    theta : Shallow or Network
    rows : iterable of int, optional
        Row indices in ``range(k*m)``; all rows by default.

    Returns
    -------
    FlipMatrix

    Examples
    --------
    >>> theta = Shallow.make([[1, 2], [3, 4]], [["1/2"], [1]], [0, 0], [0, 0])
    >>> U = flip_matrix(theta)
    >>> U.entries, U.scale
    (((1, 4), (3, 8)), 2)
    """
    theta = _check_theta(theta)
    km = theta.k * theta.m
    rows = tuple(range(km)) if rows is None else tuple(rows)
    for r in rows:
        if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 0 <= int(r) < km:
            raise InvalidArgument(f"row index {r!r} out of range for k·m = {km}")
    prob = _Problem(theta)
    rows = tuple(int(r) for r in rows)
    return FlipMatrix(tuple(tuple(r) for r in prob.int_rows(rows)), rows, prob.integers()[2], (km, theta.n))


def is_flip_set(theta, F) -> bool:
    """Whether F is a flip set: nonempty and Σ_{i∈F} m_i a_iᵀ = 0, exactly.

    Parameters
    ----------
    theta : Shallow or Network
    F : iterable of int
        0-based neuron indices.

    Returns
    -------
    bool
        ``False`` for the empty set (a flip set is nonempty by definition).

    Raises
    ------
    InvalidArgument
        An index is out of range or not an integer.

    Examples
    --------
    >>> theta = Shallow.make([2, -1], [[1], [2]], [0, 1], [0])   # docs/mathematics.md §2
    >>> is_flip_set(theta, {0, 1}), is_flip_set(theta, {0})
    (True, False)
    """
    theta = _check_theta(theta)
    F = _check_subset(theta, F)
    if not F:
        return False
    for j in range(theta.k):
        Mj = theta.M[j]
        for l in range(theta.m):
            if sum((Mj[i] * theta.A[i][l] for i in F), Fraction(0)) != 0:
                return False
    return True


# ---------------------------------------------------------------------------
# progress and time
# ---------------------------------------------------------------------------

class _Clock:
    def __init__(self, timeout):
        self.start = time.perf_counter()
        self.deadline = None if timeout is None else self.start + timeout

    def remaining(self):
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def check(self, method: str, detail):
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Timeout(method, detail() if callable(detail) else detail)


class _Progress:
    """A rich progress bar when asked for and available, else nothing."""

    def __init__(self, enabled: bool):
        self._bar = None
        if enabled:
            try:
                from rich.progress import Progress
            except ImportError:  # rich is optional
                return
            self._bar = Progress(transient=True)
            self._bar.start()

    def task(self, description: str, total: int):
        return None if self._bar is None else self._bar.add_task(description, total=total)

    def advance(self, task, amount: int):
        if self._bar is not None and task is not None:
            self._bar.advance(task, amount)

    def close(self):
        if self._bar is not None:
            self._bar.stop()


# ---------------------------------------------------------------------------
# method outcomes
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Outcome:
    status: str                  # "none" | "found" | "fail"
    evidence: dict | None = None
    flip_set: frozenset | None = None
    reason: str | None = None
    trust: str = "checked"
    solver: dict | None = None


def _found(F) -> _Outcome:
    F = frozenset(int(i) for i in F)
    return _Outcome("found", {"flip_set": sorted(F)}, F)


# ---- quick witnesses ------------------------------------------------------

def _screen(prob: _Problem, clock: _Clock) -> _Outcome:
    """Zero columns and pairs u_i = −u_j, found by a hash mod p and checked exactly."""
    p = prob.prime()
    Mp, Ap = prob.residues(p)
    n, m = prob.n, prob.m
    # h_i = Σ_j M_ji Σ_l w_jl A_il (mod p), with w < 2^20 so that 2048-term int64 sums cannot overflow
    w = prob.rng.integers(1, 1 << 20, size=(prob.k, m), dtype=np.int64)
    h = np.zeros(n, dtype=np.int64)
    for j in range(prob.k):
        acc = np.zeros(n, dtype=np.int64)
        for s in range(0, m, 2048):
            acc = (acc + Ap[:, s:s + 2048] @ w[j, s:s + 2048]) % p
        h = (h + Mp[j] * acc) % p
    seen: dict[int, list[int]] = {}
    for i, hi in enumerate(h.tolist()):
        if hi == 0 and prob.is_flip({i}):
            return _found({i})
        for j in seen.get((-hi) % p, ()):
            if prob.is_flip({i, j}):
                return _found({i, j})
        seen.setdefault(hi, []).append(i)
    return _Outcome("fail", reason="no zero column and no opposite pair")


# ---- rank -----------------------------------------------------------------

def _det_nonzero(U: np.ndarray, p: int) -> bool:
    return int(nmod_mat(U.tolist(), p).det()) != 0 if U.shape[0] else True


def _rank_random(prob: _Problem, clock: _Clock, tries: int = 1) -> _Outcome:
    n, p = prob.n, prob.prime()
    if prob.km < n:
        return _Outcome("fail", reason=f"k·m = {prob.km} < n = {n}: the columns of U are dependent")
    for _ in range(tries):
        rows = prob.balanced_rows(n)
        if _det_nonzero(prob.mod_rows(rows, p), p):
            return _Outcome("none", {"method": "rank", "p": p, "rows": rows})
        clock.check("rank", f"n = {n}")
    return _Outcome("fail", reason=f"a random n × n minor of U vanishes mod {p}")


@dataclass(frozen=True, slots=True)
class _Profile:
    """Independent rows S of (a sample of) U mod p and the reduced kernel of U_S."""

    p: int
    rows: tuple[int, ...]          # S, independent mod p
    pivots: tuple[int, ...]        # pivot columns of rref(U_S)
    free: tuple[int, ...]          # the other columns
    coeff: np.ndarray | None       # x_pivots ≡ coeff @ x_free (mod p), |S| × |free|; None if too many free


def _staircase(R, rank: int) -> list[int]:
    piv, c = [], 0
    for i in range(rank):
        while int(R[i, c]) == 0:
            c += 1
        piv.append(c)
        c += 1
    return piv


def _profile(prob: _Problem, clock: _Clock, max_free: int = ENUMERATE_MAX_FREE + 2) -> _Profile:
    n, km, p = prob.n, prob.km, prob.prime()
    if km * n <= 4_000_000 or km <= n + 64:
        cand = list(range(km))
    else:
        cand = prob.balanced_rows(n + 64)
    Uc = prob.mod_rows(cand, p)
    R, rank = nmod_mat(Uc.tolist(), p).rref() if len(cand) else (None, 0)
    clock.check("rank profile", f"n = {n}")
    if rank == len(cand):
        rows = cand
    else:  # the pivot columns of rref(U_candᵀ) are independent rows of U_cand
        Rt, _ = nmod_mat(Uc.T.tolist(), p).rref()
        rows = [cand[c] for c in _staircase(Rt, rank)]
    pivots = _staircase(R, rank) if rank else []
    pset = set(pivots)
    free = [c for c in range(n) if c not in pset]
    coeff = None
    if len(free) <= max_free:
        coeff = np.zeros((rank, len(free)), dtype=np.int64)
        for t in range(rank):
            coeff[t] = [(-int(R[t, c])) % p for c in free]
    return _Profile(p, tuple(sorted(rows)), tuple(pivots), tuple(free), coeff)


# ---- enumeration over the kernel mod p ---------------------------------------

def _kernel_candidates(prof: _Profile, clock: _Clock, progress: _Progress, method: str):
    """Yield every x ∈ {0,1}ⁿ∖0 with U_S x ≡ 0 (mod p) — a superset of the flip sets — as index sets."""
    r, p = len(prof.free), prof.p
    free = np.asarray(prof.free, dtype=np.int64)
    piv = np.asarray(prof.pivots, dtype=np.int64)
    shifts = np.arange(r, dtype=np.int64)
    total = 1 << r
    task = progress.task(f"{method}: 2^{r} kernel points", total)
    for start in range(1, total, _CHUNK):
        stop = min(total, start + _CHUNK)
        X = (np.arange(start, stop, dtype=np.int64)[:, None] >> shifts) & 1
        for t in range(len(piv)):
            v = (X @ prof.coeff[t]) % p
            X = X[v <= 1]
            if not len(X):
                break
        for x in X:
            vals = (prof.coeff @ x) % p if len(piv) else np.zeros(0, dtype=np.int64)
            if np.all(vals <= 1):
                yield frozenset(free[x == 1].tolist()) | frozenset(piv[vals == 1].tolist())
        progress.advance(task, stop - start)
        clock.check(method, lambda: f"kernel dimension {r}, {total - stop} of 2^{r} candidates left")


def _enumerate(prob: _Problem, prof: _Profile, clock: _Clock, progress: _Progress) -> _Outcome:
    r = len(prof.free)
    if r > ENUMERATE_MAX_FREE or prof.coeff is None:
        return _Outcome("fail", reason=f"kernel of U mod {prof.p} has dimension {r} > {ENUMERATE_MAX_FREE}")
    for F in _kernel_candidates(prof, clock, progress, "enumerate"):
        if prob.is_flip(F):
            return _found(F)
    return _Outcome("none", {"method": "enumerate", "p": prof.p, "rows": list(prof.rows)})


# ---- lattice --------------------------------------------------------------------

def _leading_minors(G: list[list[int]]) -> list[int]:
    """d_1, …, d_r: leading principal minors of a positive definite integer matrix (Bareiss)."""
    a = [row[:] for row in G]
    r = len(a)
    out, prev = [], 1
    for t in range(r):
        piv = a[t][t]
        if piv <= 0:
            raise ArithmeticError("Gram matrix is not positive definite")
        out.append(piv)
        for i in range(t + 1, r):
            ai, at = a[i], a[t]
            ait = ai[t]
            for j in range(t + 1, r):
                ai[j] = (piv * ai[j] - ait * at[j]) // prev
        prev = piv
    return out


def _kernel_lattice(prob: _Problem, prof: _Profile, clock: _Clock):
    """(B, T) with B an LLL-reduced basis of ker U_S ∩ Zⁿ (rows) and T the unimodular transform."""
    n, S = prob.n, prof.rows
    r = n - len(S)
    rowsZ = prob.int_rows(S)
    rowsZ = [[x // g for x in row] if (g := math.gcd(*row)) > 1 else row for row in rowsZ]
    bits = max((abs(x).bit_length() for row in rowsZ for x in row), default=1)
    for extra in (n // 2 + 16, n + 64, 2 * n + 128):
        N = 1 << extra
        E = fmpz_mat([[1 if c == i else 0 for c in range(n)] + [N * row[i] for row in rowsZ] for i in range(n)])
        clock.check("lattice", f"LLL in dimension {n}")
        Red, T = E.lll(transform=True)
        zero = [all(Red[i, n + t] == 0 for t in range(len(rowsZ))) for i in range(n)]
        if sum(zero) == r and all(zero[:r]):
            return [[int(T[i, c]) for c in range(n)] for i in range(r)], T
    raise ArithmeticError(f"LLL did not separate the kernel (entries of {bits} bits)")


def _lattice_hopeless(rows: list[list[int]], n: int, r: int) -> bool:
    """Whether min ‖b*_i‖² > n is impossible for every basis of L = ker U ∩ Zⁿ.

    min ‖b*_i‖ ≤ (Π ‖b*_i‖)^{1/r} = det(L)^{1/r} and det(L) ≤ √det(U_S U_Sᵀ).
    Floating point only decides whether to *try* LLL (with a 10 % margin),
    never a verdict.
    """
    logdet = 0.0
    X = []
    for row in rows:
        norm = math.sqrt(sum(float(x) * float(x) for x in row)) or 1.0
        logdet += math.log(norm)
        X.append([float(x) / norm for x in row])
    if X:
        sign, ld = np.linalg.slogdet(np.array(X) @ np.array(X).T)
        if sign <= 0:
            return False
        logdet += ld / 2
    return logdet / r < math.log(0.9 * math.sqrt(n))


def _integral_inverse_columns(T, r: int) -> list[list[int]]:
    """The first r columns of T⁻¹ for a unimodular integer T, as n lists of r ints."""
    Tinv = T.inv()
    out = []
    for i in range(T.nrows()):
        row = []
        for t in range(r):
            x = Tinv[i, t]
            if x.q != 1:
                raise ArithmeticError("the LLL transform is not unimodular")
            row.append(int(x.p))
        out.append(row)
    return out


def _kernel_ok(prob: _Problem, B: list[list[int]]) -> bool:
    """U·Bᵀ = 0 on all k·m rows, via Aᵀ diag(M_j) Bᵀ = 0 for each output j."""
    if not B:
        return True
    Mi, Ai, _ = prob.integers()
    At = fmpz_mat([[Ai[i][l] for i in range(prob.n)] for l in range(prob.m)])
    for j in range(prob.k):
        Y = fmpz_mat([[Mi[j][i] * b[i] for b in B] for i in range(prob.n)])
        if not (At * Y).is_zero():
            return False
    return True


def _lattice(prob: _Problem, prof: _Profile, clock: _Clock) -> _Outcome:
    n = prob.n
    r = n - len(prof.rows)
    if n > LATTICE_MAX_N:
        return _Outcome("fail", reason=f"n = {n} > {LATTICE_MAX_N}: LLL not attempted")
    if r == 0:
        return _Outcome("fail", reason="U has full column rank (the rank method applies)")
    if _lattice_hopeless(prob.int_rows(prof.rows), n, r):
        return _Outcome("fail", reason=f"det(ker U ∩ Z^n)^(1/{r}) < √n = {math.sqrt(n):.3g}: "
                                       "no basis can meet the Gram–Schmidt bound")
    B, T = _kernel_lattice(prob, prof, clock)
    if not _kernel_ok(prob, B):
        return _Outcome("fail", reason="the kernel of the sampled rows is larger than ker U")
    for b in B:
        if all(x in (0, 1) for x in b) or all(x in (0, -1) for x in b):
            F = frozenset(i for i, x in enumerate(b) if x)
            if prob.is_flip(F):
                return _found(F)
    Bf = np.array(B, dtype=np.float64)
    approx = np.abs(np.diag(np.linalg.qr(Bf.T, mode="r"))) ** 2
    if approx.min() < 0.9 * n:
        return _Outcome("fail", reason=f"Gram–Schmidt bound fails: min ‖b*_i‖² ≈ {approx.min():.3g} ≤ n = {n}")
    G = fmpz_mat(B) * fmpz_mat(B).transpose()
    d = _leading_minors([[int(G[i, j]) for j in range(r)] for i in range(r)])
    prev = 1
    for di in d:
        if di <= n * prev:
            return _Outcome("fail", reason=f"Gram–Schmidt bound fails: min ‖b*_i‖² ≤ n = {n}")
        prev = di
    C = _integral_inverse_columns(T, r)
    return _Outcome("none", {"method": "lattice", "p": prof.p, "basis": B, "inverse": C,
                             "rank_rows": list(prof.rows), "rank_cols": list(prof.pivots)})


# ---- meet in the middle -----------------------------------------------------------

def _mitm_hits(prob: _Problem, clock: _Clock, progress: _Progress):
    """Yield every nonempty F whose hashed column sum vanishes mod 2^61 − 1 (a superset of the flip sets)."""
    n, P = prob.n, _HASH_PRIME
    Mi, Ai, _ = prob.integers()
    w = [[int(x) for x in prob.rng.integers(1, 1 << 60, size=prob.m)] for _ in range(prob.k)]
    keys = []
    for i in range(n):
        keys.append(sum(Mi[j][i] * sum(wl * a for wl, a in zip(w[j], Ai[i])) for j in range(prob.k)) % P)
    h = n // 2

    def sums(ks):
        a = np.zeros(1, dtype=np.int64)
        for key in ks:
            a = np.concatenate([a, (a + key) % P])
        return a

    left, right = sums(keys[:h]), sums(keys[h:])
    clock.check("mitm", f"n = {n}, subset sums built")
    order = np.argsort(left)
    ls = left[order]
    target = (P - right) % P
    rorder = np.argsort(target)
    ts = target[rorder]
    lo = np.searchsorted(ls, ts, "left")    # sorted queries: a cache-friendly merge
    hi = np.searchsorted(ls, ts, "right")
    task = progress.task(f"mitm: 2^{n - h} right sums", len(right))
    for q in np.nonzero(hi > lo)[0].tolist():
        rmask = int(rorder[q])
        for pos in range(lo[q], hi[q]):
            lmask = int(order[pos])
            if lmask == 0 and rmask == 0:
                continue
            yield frozenset(i for i in range(h) if lmask >> i & 1) | frozenset(
                h + i for i in range(n - h) if rmask >> i & 1)
        clock.check("mitm", lambda: f"n = {n}, matching")
    progress.advance(task, len(right))


def _mitm(prob: _Problem, clock: _Clock, progress: _Progress) -> _Outcome:
    n = prob.n
    if n > MITM_MAX_N:
        return _Outcome("fail", reason=f"n = {n} > {MITM_MAX_N}: meet in the middle not attempted")
    for F in _mitm_hits(prob, clock, progress):
        if prob.is_flip(F):
            return _found(F)
    return _Outcome("none", {"method": "mitm", "n": n})


# ---- z3 ---------------------------------------------------------------------------

def _z3(prob: _Problem, prof: _Profile | None, clock: _Clock, seed: int, encoding: str) -> _Outcome:
    from reluid.smt.flipsets import solve_flip_set
    from reluid.smt.solver import SolverConfig

    rows = list(prof.rows) if prof is not None else list(range(prob.km))
    for _ in range(prob.km + 1):
        rem = clock.remaining()
        if rem is not None and rem <= 0.05:
            raise _Timeout("z3", f"n = {prob.n}, no time left for the solver")
        config = SolverConfig(seed=seed, timeout_ms=60_000 if rem is None else max(1, int(rem * 1000)))
        ans = solve_flip_set(prob.int_rows(rows), prob.n, config=config, encoding=encoding)
        if ans.status == "unsat":
            return _Outcome("none", {"method": "z3", "encoding": ans.encoding, "rows": sorted(rows)},
                            trust="solver", solver=ans.solver)
        if ans.status == "unknown":
            return _Outcome("fail", reason=f"z3 returned unknown ({ans.reason}) for n = {prob.n}", solver=ans.solver)
        if prob.is_flip(ans.flip_set):
            return _found(ans.flip_set)
        # the candidate solves the encoded rows only: add a violated row and ask again
        s = prob.column_sum(ans.flip_set)
        extra = next((t for t, v in enumerate(s) if v and t not in rows), None)
        if extra is None:
            return _Outcome("fail", reason="z3 returned a candidate that violates an encoded row")
        rows.append(extra)
    return _Outcome("fail", reason="z3 kept returning spurious candidates")


# ---------------------------------------------------------------------------
# the public entry points
# ---------------------------------------------------------------------------

def find_flip_set(theta, *, timeout: float | None = None, method: str = "auto", progress: bool = False,
                  seed: int = 0, encoding: str = "pb") -> FlipSetResult:
    """Decide whether θ has a flip set, with a certificate either way.

    A flip set is a nonempty F ⊆ [n] with Σ_{i∈F} m_i a_iᵀ = 0 (docs/mathematics.md
    §2).  On the generic stratum (m_i ≠ 0, a_i ≠ 0, rows (a_i, b_i) pairwise
    independent) θ has no hidden symmetries iff it has no flip set.

    Parameters
    ----------
    theta : Shallow or Network
    timeout : float, optional, keyword-only
        Seconds.  On expiry the answer is ``"unknown"`` naming the method that
        gave up and the size left; a single flint call (a determinant, an LLL
        reduction) is not interrupted.
    method : {"auto", "rank", "lattice", "enumerate", "mitm", "z3"}, keyword-only
        ``"auto"`` looks for small witnesses, then tries rank, lattice,
        enumerate, mitm and finally z3 (docs/mathematics.md §3).  A named method runs
        alone (after the rank profile it needs).
    progress : bool, keyword-only
        Show a rich progress bar for long steps (when rich is installed).
    seed : int, keyword-only
        Seeds the row sampling and hashes (which never affect correctness)
        and z3.
    encoding : {"pb", "int", "real"}, keyword-only
        The z3 encoding (:mod:`reluid.smt.flipsets`).

    Returns
    -------
    FlipSetResult
        ``status`` is ``"none"`` (certified by ``evidence``), ``"found"``
        (``flip_set`` is checked exactly) or ``"unknown"`` (``reason``).
        A timeout or a solver ``unknown`` never becomes ``"none"``.

    Raises
    ------
    InvalidArgument
        Unknown method, bad timeout, or θ of the wrong type.
    NotShallow
        A Network with more than one hidden layer.

    Notes
    -----
    Certificates (``evidence``), each re-verified by
    :mod:`reluid.checker.flipsets`; row ``j*m + l`` of U is output j, input
    coordinate l:

    * ``{"method": "rank", "p", "rows"}``: n distinct rows whose n × n minor
      is nonzero mod the prime p.
    * ``{"method": "lattice", "p", "basis", "inverse", "rank_rows",
      "rank_cols"}``: B (r × n, ``basis``) with U Bᵀ = 0; C (n × r,
      ``inverse``, a list of n rows) with B C = I_r, so the row lattice of B
      is saturated; the minor of U on ``rank_rows`` × ``rank_cols``
      (n − r each) is nonzero mod p, so rank U = n − r and B is a basis of
      ker U ∩ Zⁿ; and min ‖b*_i‖² > n (Gram–Schmidt), so ker U has no nonzero
      vector of squared length ≤ n, in particular no 0/1 (nor 0/±1) vector.
    * ``{"method": "enumerate", "p", "rows"}``: the kernel of the listed rows
      of U mod p has dimension r ≤ 22; the checker enumerates its 2^r
      candidate 0/1 points and checks that none is a flip set.
    * ``{"method": "mitm", "n"}``: n ≤ 44; the checker re-runs its own meet
      in the middle.
    * ``{"method": "z3", "encoding", "rows"}``: trust ``"solver"``.
    * found: ``{"flip_set": [indices]}``.

    The lattice bound is Ramakrishnan's Proposition 24 condition for the
    joint matrix (no β ∈ {0, ±1}ⁿ∖0 with Σ β(i) m_i a_iᵀ = 0), strictly
    stronger than "no flip set".

    References
    ----------
    Ramakrishnan 2026, Proposition 24 and Theorem 5.

    Examples
    --------
    >>> theta = Shallow.make([1, 1], [[1], [1]], [0, 1], [0])   # σ(x) + σ(x + 1)
    >>> r = find_flip_set(theta)
    >>> r.status, r.method
    ('none', 'enumerate')
    >>> theta = Shallow.make([2, -1], [[1], [2]], [0, 1], [0])
    >>> sorted(find_flip_set(theta).flip_set)
    [0, 1]
    """
    theta = _check_theta(theta)
    timeout = _check_timeout(timeout)
    if method not in METHODS:
        raise InvalidArgument(f"unknown flip-set method {method!r}; expected one of {METHODS}")
    if encoding not in ("pb", "int", "real"):
        raise InvalidArgument(f"unknown z3 encoding {encoding!r}")
    clock = _Clock(timeout)
    bar = _Progress(progress)
    try:
        return _search(_Problem(theta, seed), method, clock, bar, seed, encoding)
    finally:
        bar.close()


def _search(prob: _Problem, method: str, clock: _Clock, bar: _Progress, seed: int, encoding: str) -> FlipSetResult:
    n = prob.n
    stats: list[tuple[str, float, str]] = []
    reasons: list[str] = []
    solver_info = None

    def run(name, fn):
        t0 = time.perf_counter()
        try:
            out = fn()
        except _Timeout:
            stats.append((name, time.perf_counter() - t0, "timeout"))
            raise
        except ArithmeticError as e:  # LLL failed to separate, etc.: the method gives up
            out = _Outcome("fail", reason=str(e))
        stats.append((name, time.perf_counter() - t0, out.status))
        if out.status == "fail" and out.reason:
            reasons.append(f"{name}: {out.reason}")
        return out

    def finish(name, out):
        return FlipSetResult(out.status, out.flip_set, out.evidence or {}, name, out.trust, out.solver,
                             None, tuple(stats))

    try:
        if n == 0:
            return FlipSetResult("none", None, {"method": "rank", "p": prob.prime(), "rows": []}, "rank",
                                 stats=(("rank", 0.0, "none"),))
        if method == "auto":
            out = run("screen", lambda: _screen(prob, clock))
            if out.status == "found":
                return finish("screen", out)
        if method in ("auto", "rank") and prob.km >= n:
            out = run("rank", lambda: _rank_random(prob, clock))
            if out.status != "fail":
                return finish("rank", out)
        prof = None
        if method in ("auto", "rank", "lattice", "enumerate") or (method == "z3" and prob.km > 2 * n):
            t0 = time.perf_counter()
            prof = _profile(prob, clock)
            r = n - len(prof.rows)
            stats.append(("rank profile", time.perf_counter() - t0, f"kernel dimension {r} mod {prof.p}"))
            if r == 0 and method in ("auto", "rank"):
                return finish("rank", _Outcome("none", {"method": "rank", "p": prof.p, "rows": list(prof.rows)}))
            if method == "rank":
                reasons.append(f"rank: U has rank {n - r} < n = {n} mod {prof.p}")
        if method in ("auto", "lattice") and n <= LATTICE_MAX_N:
            out = run("lattice", lambda: _lattice(prob, prof, clock))
            if out.status != "fail":
                return finish("lattice", out)
        elif method == "lattice":
            reasons.append(f"lattice: n = {n} > {LATTICE_MAX_N}")
        if method in ("auto", "enumerate"):
            out = run("enumerate", lambda: _enumerate(prob, prof, clock, bar))
            if out.status != "fail":
                return finish("enumerate", out)
        if method in ("auto", "mitm"):
            out = run("mitm", lambda: _mitm(prob, clock, bar))
            if out.status != "fail":
                return finish("mitm", out)
        if method in ("auto", "z3"):
            out = run("z3", lambda: _z3(prob, prof, clock, seed, encoding))
            solver_info = out.solver
            if out.status != "fail":
                return finish("z3", out)
    except _Timeout as t:
        return FlipSetResult("unknown", method="none", solver=solver_info,
                             reason=f"timeout in {t.method} ({t.detail})", stats=tuple(stats))
    return FlipSetResult("unknown", method="none", solver=solver_info,
                         reason="; ".join(reasons) or "no method applies", stats=tuple(stats))


def all_flip_sets(theta, *, limit: int | None = None, timeout: float | None = None) -> tuple[frozenset, ...] | None:
    """Every nonempty flip set of θ, or None when that is not feasible.

    Parameters
    ----------
    theta : Shallow or Network
    limit : int, optional, keyword-only
        Give up (return None) once more than ``limit`` flip sets were found.
    timeout : float, optional, keyword-only
        Seconds; None on expiry.

    Returns
    -------
    tuple of frozenset or None
        Sorted by size, then lexicographically.  Feasible when the kernel of U
        mod p has dimension ≤ 22 (enumeration), when n ≤ 44 (meet in the
        middle), or when the lattice bound shows there are none.

    Examples
    --------
    >>> theta = Shallow.make([1, -1, 1, -1], [[1], [1], [2], [2]], [0, 1, 2, 3], [0])
    >>> [sorted(F) for F in all_flip_sets(theta)]
    [[0, 1], [2, 3], [0, 1, 2, 3]]
    """
    theta = _check_theta(theta)
    limit = _check_limit(limit)
    clock = _Clock(_check_timeout(timeout))
    prob = _Problem(theta)
    found: list[frozenset] = []

    def add(F):
        if prob.is_flip(F):
            found.append(F)
            if limit is not None and len(found) > limit:
                raise _Timeout("limit", "")

    try:
        if prob.n == 0:
            return ()
        prof = _profile(prob, clock)
        if prof.coeff is not None:
            for F in _kernel_candidates(prof, clock, _Progress(False), "count"):
                add(F)
        elif prob.n <= MITM_MAX_N:
            for F in _mitm_hits(prob, clock, _Progress(False)):
                add(F)
        elif prob.n <= LATTICE_MAX_N and _lattice(prob, prof, clock).status == "none":
            pass
        else:
            return None
    except (_Timeout, ArithmeticError):
        return None
    return tuple(sorted(set(found), key=lambda F: (len(F), sorted(F))))


def count_flip_sets(theta, *, limit: int | None = None, timeout: float | None = None) -> int | None:
    """The number of flip sets of θ counting ∅, or None when not feasible.

    On the generic stratum this is the number of H_n-orbits in the fibre of θ
    (docs/mathematics.md §2: the fibre is the disjoint union of the orbits of θ_F).

    Parameters
    ----------
    theta : Shallow or Network
    limit : int, optional, keyword-only
        Give up (None) when there are more than ``limit`` nonempty flip sets.
    timeout : float, optional, keyword-only

    Examples
    --------
    >>> theta = Shallow.make([1, -1, 1, -1], [[1], [1], [2], [2]], [0, 1, 2, 3], [0])
    >>> count_flip_sets(theta)
    4
    """
    sets = all_flip_sets(theta, limit=limit, timeout=timeout)
    return None if sets is None else len(sets) + 1
