"""Shared working state of the flip-set methods: the problem, primes, clock, progress, method results.

Nothing here decides anything: :class:`Problem` holds θ's integer factors
and residues modulo a prime, :class:`Clock` and :class:`Progress` bound and
show long work, and every method returns a :class:`MethodResult` whose
``outcome`` is FOUND (a flip set, checked exactly), NONE (evidence that there
is none) or UNKNOWN (the method gave up, with the reason).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpz

from reluid.errors import InvalidArgument
from reluid.model import dyadic
from reluid.model.network import Network, Shallow
from reluid.model.rational import FAST_FRACTIONS, gc_paused
from reluid.verdicts import Outcome, Reason

__all__ = ["Problem", "Clock", "Progress", "MethodResult", "SearchTimeout", "BadPrime", "found", "none",
           "gave_up", "check_theta", "check_timeout", "check_limit", "check_subset", "PRIME", "HASH_PRIME",
           "CHUNK", "ENUMERATE_MAX_FREE", "MITM_MAX_N", "LATTICE_MAX_N", "LATTICE_ENUM_MAX_NODES"]

ENUMERATE_MAX_FREE = 20
"""Largest kernel dimension r for which ``enumerate`` certificates are made (2^r candidates)."""

MITM_MAX_N = 44
"""Largest width n for which ``mitm`` certificates are made (2 × 2^{n/2} subset sums)."""

LATTICE_MAX_N = 300
"""Largest width n for which the lattice (LLL) method is attempted."""

LATTICE_ENUM_MAX_NODES = 10_000_000
"""Most enumeration nodes a ``lattice-enum`` certificate may need (the checker allows up to 2^25)."""

PRIME = 2**31 - 1          # products of two residues fit in int64
SMALL_PRIME = 2**20 - 3    # the largest prime below 2^20: the rank minor's det by exact float64 BLAS
HASH_PRIME = 2**61 - 1     # sums of two residues fit in int64
CHUNK = 1 << 16


class SearchTimeout(Exception):
    """The time ran out in ``method``; ``detail`` (a :class:`Reason`, or words) says where."""

    def __init__(self, method: str, detail):
        self.method, self.detail = method, detail
        super().__init__(f"{method}: {detail}")


class BadPrime(Exception):
    pass


@dataclass(frozen=True, slots=True)
class MethodResult:
    """What one method concluded: FOUND (``flip_set``), NONE (``evidence``) or UNKNOWN (``reason``, a Reason)."""

    outcome: Outcome
    evidence: dict | None = None
    flip_set: frozenset | None = None
    reason: Reason | str | None = None
    solver: dict | None = None


def found(F) -> MethodResult:
    F = frozenset(int(i) for i in F)
    return MethodResult(Outcome.FOUND, {"flip_set": sorted(F)}, F)


def none(evidence: dict, **kw) -> MethodResult:
    return MethodResult(Outcome.NONE, evidence, **kw)


def gave_up(reason: Reason | str, **kw) -> MethodResult:
    return MethodResult(Outcome.UNKNOWN, reason=reason, **kw)


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------

def check_theta(theta) -> Shallow:
    if isinstance(theta, Network):
        return theta.shallow()
    if not isinstance(theta, Shallow):
        raise InvalidArgument(f"expected a Shallow θ or a Network, got {type(theta).__name__}")
    return theta


def check_timeout(timeout):
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise InvalidArgument(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    return float(timeout)


def check_limit(limit):
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidArgument(f"limit must be a non-negative integer or None, got {limit!r}")
    return limit


def check_subset(theta: Shallow, F) -> frozenset:
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

class Problem:
    """Mutable working state for one θ: integer factors, residues, chosen prime."""

    def __init__(self, theta: Shallow, seed: int = 0):
        self.theta = theta
        self.n, self.k, self.m = theta.n, theta.k, theta.m
        self.km = self.k * self.m
        self.rng = np.random.default_rng(seed)
        self._ints = None
        self._rowints = None
        self._floats = None
        self._res: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._p = None
        self._small_p = None
        self._columns = None
        #: θ holds its layers as integers times a power of two per row (read from binary floats)
        self.dyadic = theta.hidden is not None and theta.output is not None

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

    def integer_bounds(self) -> tuple[int, int]:
        """(max |DM·M|, max |DA·A|): the largest entries of :meth:`integers`, without the Fractions for a dyadic θ."""
        if self.dyadic and self._ints is None:
            return (dyadic.common_scale_max(self.theta.output, self.n),
                    dyadic.common_scale_max(self.theta.hidden, self.m))
        Mi, Ai, _ = self.integers()
        return (max((abs(x) for row in Mi for x in row), default=0), max((abs(x) for row in Ai for x in row), default=0))

    def row_integers(self):
        """(Ar, Mr, da, dm): a_i and m_i each scaled to integers by its own positive factor.

        ``Ar[i] = da[i]·a_i`` and ``Mr[i] = dm[i]·m_i`` (n lists of m, resp. k,
        integers), da[i] and dm[i] the lcm of the denominators of the row a_i,
        resp. the column m_i.  Positive scalings of single columns keep every
        sign of yᵀu_i (separation) but not the 0/1 relations; multiply by
        (DA/da[i])·(DM/dm[i]) to reach the common scale of :meth:`integers`.
        """
        if self._rowints is None:
            with gc_paused():
                Ar, da = integer_rows(self.theta.A)
                Mr, dm = integer_rows(list(zip(*self.theta.M)) if self.k else [()] * self.n)
            self._rowints = (Ar, Mr, da, dm)
        return self._rowints

    def floats(self):
        """(A, M) as float64 arrays (n × m and k × n), each row of A and column of M scaled by a power of two.

        For searching only (separation): the scalings are positive, so signs
        of yᵀu_i are those of θ; entries that float64 cannot hold are rounded.
        """
        if self._floats is None and self.dyadic:
            self._floats = (dyadic_floats(self.theta.hidden, self.m), dyadic_floats(self.theta.output, self.n, True))
        if self._floats is None:
            A = float_rows(self.theta.A, self.m)
            M = float_rows(list(zip(*self.theta.M)) if self.k else [()] * self.n, self.k).T.copy()
            self._floats = (A, M)
        return self._floats

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

    def dyadic_columns(self) -> list[list[int]]:
        """C_i with m_i = 2^t C_i, t the least row exponent of [M | c] (k integers per neuron; :attr:`dyadic` θ)."""
        if self._columns is None:
            form = self.theta.output
            low = min(form.shifts, default=0)
            C = dyadic.as_array(form)[:, :self.n].astype(object)
            up = np.array([s - low for s in form.shifts], dtype=object).reshape(-1, 1)
            self._columns = (C << up).T.tolist()
        return self._columns

    def is_flip(self, F) -> bool:
        if self.dyadic and F:                # Σ_{i∈F} 2^{s_i} C_i ⊗ N_i = 0, on the integers of the form
            C, form = self.dyadic_columns(), self.theta.hidden
            N = dyadic.as_array(form)
            low = min(form.shifts[i] for i in F)
            total = [0] * self.km
            for i in F:
                a = N[i, :self.m].tolist()
                for j, c in enumerate(C[i]):
                    if c:
                        c <<= form.shifts[i] - low
                        base = j * self.m
                        for l, x in enumerate(a):
                            total[base + l] += c * x
            return not any(total)
        return bool(F) and not any(self.column_sum(F))

    # residues mod p
    def residues(self, p: int):
        if p not in self._res and self.dyadic:     # p is odd: no denominator 2^e is a multiple of it
            self._res[p] = (dyadic.residues(self.theta.output, p, self.n), dyadic.residues(self.theta.hidden, p, self.m))
        if p not in self._res:
            self._res[p] = (_residue_array(self.theta.M, self.n, p), _residue_array(self.theta.A, self.m, p))
        return self._res[p]

    def prime(self) -> int:
        if self._p is None:
            for p in _primes_from(PRIME):
                try:
                    self.residues(p)
                except BadPrime:
                    continue
                self._p = p
                break
        return self._p

    def small_prime(self) -> int:
        """The largest prime below 2^20 that divides no denominator (the rank certificate's modulus)."""
        if self._small_p is None:
            for p in _primes_from(SMALL_PRIME):
                try:
                    self.residues(p)
                except BadPrime:
                    continue
                self._small_p = p
                break
        return self._small_p

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


def dyadic_floats(form, width: int, columns: bool = False) -> np.ndarray:
    """The first ``width`` columns of ``form`` in float64, each row (``columns``: each column) scaled by a power of two.

    The scale brings the largest entry of each row (column) near 1; as in
    :func:`float_rows`, only the signs and directions matter to the search
    (entries far below the largest of their column may round to 0).
    """
    N = dyadic.as_array(form)[:, :width]
    if N.dtype == object:                   # Python integers: their top 60 bits times a power of two
        bits = np.array([max((abs(v).bit_length() for v in row), default=0) for row in N.tolist()], dtype=np.int64)
        drop = np.maximum(bits - 60, 0)
        F = np.array([[float(v >> r) if v >= 0 else -float(-v >> r) for v in row]
                      for row, r in zip(N.tolist(), drop.tolist())], dtype=np.float64).reshape(N.shape)
    else:
        drop, F = np.zeros(N.shape[0], dtype=np.int64), N.astype(np.float64)
    top = np.frexp(np.abs(F).max(axis=1, initial=0.0))[1]           # row i of F is below 2^top_i
    if not columns:
        return np.ldexp(F, -top[:, None])
    E = np.asarray(form.shifts, dtype=np.int64) + drop + top         # row j of the values is below 2^E_j
    with np.errstate(under="ignore"):
        G = np.ldexp(F, (E - top - E.max(initial=0))[:, None])
    return np.ldexp(G, -np.frexp(np.abs(G).max(axis=0, initial=0.0))[1][None, :])


def integer_rows(rows) -> tuple[list[list[int]], list[int]]:
    """Each row of Fractions times the lcm of its denominators: (integer rows, the lcms)."""
    out, lcms = [], []
    lcm = math.lcm
    for row in rows:
        if FAST_FRACTIONS:
            dens = {x._denominator for x in row}
            d = lcm(*dens)
            if len(dens) == 1:
                out.append([x._numerator for x in row])
            else:
                q = {e: d // e for e in dens}
                out.append([x._numerator * q[x._denominator] for x in row])
        else:  # pragma: no cover - depends on the Python implementation
            dens = {x.denominator for x in row}
            d = lcm(*dens)
            q = {e: d // e for e in dens}
            out.append([x.numerator * q[x.denominator] for x in row])
        lcms.append(d)
    return out, lcms


def float_rows(rows, width: int) -> np.ndarray:
    """float64 rows, each scaled by a power of two when its entries would overflow or vanish."""
    out = np.zeros((len(rows), width), dtype=np.float64)
    for i, row in enumerate(rows):
        try:
            vals = [x._numerator / x._denominator for x in row] if FAST_FRACTIONS else list(map(float, row))
        except OverflowError:
            vals = None
        if vals is not None and (not vals or max(map(abs, vals)) > 1e-280 or not any(row)):
            out[i] = vals
            continue
        e = max(x.numerator.bit_length() - x.denominator.bit_length() for x in row if x)
        out[i] = [float(x * Fraction(2) ** -e) for x in row]
    return out


def _residue_array(matrix, ncols: int, p: int) -> np.ndarray:
    with gc_paused():
        if FAST_FRACTIONS:
            dens = {x._denominator for row in matrix for x in row}
        else:  # pragma: no cover - depends on the Python implementation
            dens = {x.denominator for row in matrix for x in row}
        if any(d % p == 0 for d in dens):
            raise BadPrime(p)
        inv = {d: pow(d, -1, p) for d in dens}
        if FAST_FRACTIONS:
            flat = [x._numerator * inv[x._denominator] % p for row in matrix for x in row]
        else:  # pragma: no cover
            flat = [x.numerator * inv[x.denominator] % p for row in matrix for x in row]
        return np.array(flat, dtype=np.int64).reshape(len(matrix), ncols)


# ---------------------------------------------------------------------------
# progress and time
# ---------------------------------------------------------------------------

class Clock:
    def __init__(self, timeout):
        self.start = time.perf_counter()
        self.deadline = None if timeout is None else self.start + timeout

    def remaining(self):
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def check(self, method: str, detail):
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise SearchTimeout(method, detail() if callable(detail) else detail)


class Progress:
    """Reports each long step to the progress tracker (:mod:`reluid.analysis.progress`).

    ``enabled`` opens a bar of its own when no tracker is active (a direct
    call of ``find_flip_set(progress=True)``); under a tracker the steps join
    its one bar.
    """

    def __init__(self, enabled: bool):
        from reluid.analysis import progress as _progress

        self._report = _progress.report
        self._own = _progress.progress_bar(True) if enabled and _progress.current() is None else None
        if self._own is not None:
            self._own.__enter__()

    def task(self, description: str, total: int):
        self._report(description, 0.0)
        return [description, max(int(total), 1), 0]

    def advance(self, task, amount: int):
        if task is not None:
            task[2] += amount
            self._report(task[0], task[2] / task[1])

    def close(self):
        if self._own is not None:
            self._own.__exit__(None, None, None)
            self._own = None
