"""The rank certificate and the rank profile (docs/mathematics.md §3).

If the columns u_i = vec(m_i a_iᵀ) of U are linearly independent there is no
flip set.  Certificate: a prime p and n rows of U whose n × n minor is
nonzero mod p (rank mod p ≤ rank over Q).  :func:`screen` first looks for
the smallest witnesses (a zero column, two opposite columns).  The *rank
profile* (independent rows of U mod p and the reduced kernel of those rows)
is shared with the lattice and enumeration methods.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from flint import nmod_mat

from reluid.analysis.shallow.flipsets._blasdet import MAX_PRIME, det_mod_p
from reluid.analysis.shallow.flipsets._problem import (ENUMERATE_MAX_FREE, Clock, MethodResult, Problem,
                                                          SearchTimeout, found, gave_up, none)
from reluid.budget import memory_left_gb
from reluid.model.modp import pivot_columns
from reluid.verdicts import FlipSearchStep, FlipSetMethod, Reason, ReasonCode

__all__ = ["screen", "rank_random", "contiguous_rows", "Profile", "profile", "BLAS_DET_MIN_N"]

def screen(prob: Problem, clock: Clock) -> MethodResult:
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
            return found({i})
        for j in seen.get((-hi) % p, ()):
            if prob.is_flip({i, j}):
                return found({i, j})
        seen.setdefault(hi, []).append(i)
    return gave_up(Reason(ReasonCode.SCREEN_NOTHING))


def _det_nonzero(U: np.ndarray, p: int) -> bool:
    return int(nmod_mat(U.tolist(), p).det()) != 0 if U.shape[0] else True


BLAS_DET_MIN_N = 2048
"""From this n on the rank minor's determinant mod p < 2^20 is taken by float64 BLAS (exact, :mod:`._blasdet`)."""


def contiguous_rows(k: int, m: int, n: int) -> list[int]:
    """n rows j·m + l, l < c_j, with c_j = ⌈n/k⌉ or ⌊n/k⌋: contiguous ranges per output (n ≤ k·m).

    For generic weights any choice of at most m rows per output gives a
    nonsingular minor; contiguous ranges let the checker build the minor with
    one big-integer product per neuron and output.
    """
    out = []
    for j in range(k):
        c = n // k + (1 if j < n % k else 0)
        out.extend(j * m + l for l in range(min(c, m)))
    return out


def _minor_det_nonzero(prob: Problem, rows: list[int], p: int) -> bool:
    if not rows:
        return True
    if len(rows) >= BLAS_DET_MIN_N and p < MAX_PRIME:
        Mp, Ap = prob.residues(p)
        r = np.asarray(rows, dtype=np.int64)
        X = Mp[r // prob.m, :].astype(np.float64) * Ap[:, r % prob.m].T.astype(np.float64)   # < 2^40: exact
        return det_mod_p(X, p) != 0
    return _det_nonzero(prob.mod_rows(rows, p), p)


def rank_random(prob: Problem, clock: Clock, tries: int = 1) -> MethodResult:
    """n rows of U with a nonzero n × n minor mod a prime p < 2^20: contiguous ranges first, then random ones."""
    n, p = prob.n, prob.small_prime()
    if prob.km < n:
        return gave_up(Reason(ReasonCode.RANK_DEPENDENT, {"km": prob.km, "n": n}))
    if len(contiguous_rows(prob.k, prob.m, n)) == n:
        rows = contiguous_rows(prob.k, prob.m, n)
        if _minor_det_nonzero(prob, rows, p):
            return none({"method": FlipSetMethod.RANK, "p": p, "rows": rows})
        clock.check(FlipSetMethod.RANK, Reason(ReasonCode.AT_SIZE, {"n": n}))
    for _ in range(tries):
        rows = prob.balanced_rows(n)
        if _minor_det_nonzero(prob, rows, p):
            return none({"method": FlipSetMethod.RANK, "p": p, "rows": rows})
        clock.check(FlipSetMethod.RANK, Reason(ReasonCode.AT_SIZE, {"n": n}))
    return gave_up(Reason(ReasonCode.RANK_MINORS_VANISH, {"p": p}))


@dataclass(frozen=True, slots=True)
class Profile:
    """Independent rows S of (a sample of) U mod p and the reduced kernel of U_S."""

    p: int
    rows: tuple[int, ...]          # S, independent mod p
    pivots: tuple[int, ...]        # pivot columns of rref(U_S)
    free: tuple[int, ...]          # the other columns
    coeff: np.ndarray | None       # x_pivots ≡ coeff @ x_free (mod p), |S| × |free|; None if too many free


#: Cost model of :func:`profile` (the project's 2-core machine): flint's rref per m · n · rank, building an
#: ``nmod_mat`` from Python ints per entry; memory per entry (numpy int64, the transient Python list, flint).
_C_RREF = 1.7e-10
_C_FLINT_IN = 1.4e-7
_B_ENTRY = 8 + 40 + 8


def profile_cost(prob: Problem) -> tuple[float, float]:
    """(seconds, GB) :func:`profile` is estimated to need (its candidate rows × n, rank at most min of the two)."""
    n, km = prob.n, prob.km
    rows = km if (km * n <= 4_000_000 or km <= n + 64) else n + 64
    entries = rows * n
    return _C_FLINT_IN * entries + _C_RREF * entries * min(rows, n), entries * _B_ENTRY / 1e9


def profile(prob: Problem, clock: Clock, max_free: int = ENUMERATE_MAX_FREE + 2) -> Profile:
    n, km, p = prob.n, prob.km, prob.prime()
    seconds, gb = profile_cost(prob)
    rem = clock.remaining()
    if gb > memory_left_gb():
        raise SearchTimeout(FlipSearchStep.RANK_PROFILE, Reason(ReasonCode.RANK_PROFILE_MEMORY, {
            "n": n, "gb_needed": gb, "gb_left": memory_left_gb()}))
    if rem is not None and seconds > rem:
        raise SearchTimeout(FlipSearchStep.RANK_PROFILE, Reason(ReasonCode.RANK_PROFILE_TIME, {
            "n": n, "seconds_needed": seconds, "seconds_left": rem}))
    if km * n <= 4_000_000 or km <= n + 64:
        cand = list(range(km))
    else:
        cand = prob.balanced_rows(n + 64)
    Uc = prob.mod_rows(cand, p)
    R, rank = nmod_mat(Uc.tolist(), p).rref() if len(cand) else (None, 0)
    clock.check(FlipSearchStep.RANK_PROFILE, Reason(ReasonCode.AT_SIZE, {"n": n}))
    if rank == len(cand):
        rows = cand
    else:  # the pivot columns of rref(U_candᵀ) are independent rows of U_cand
        Rt, _ = nmod_mat(Uc.T.tolist(), p).rref()
        rows = [cand[c] for c in pivot_columns(Rt, rank)]
    pivots = pivot_columns(R, rank) if rank else []
    pset = set(pivots)
    free = [c for c in range(n) if c not in pset]
    coeff = None
    if len(free) <= max_free:
        coeff = np.zeros((rank, len(free)), dtype=np.int64)
        for t in range(rank):
            coeff[t] = [(-int(R[t, c])) % p for c in free]
    return Profile(p, tuple(sorted(rows)), tuple(pivots), tuple(free), coeff)
