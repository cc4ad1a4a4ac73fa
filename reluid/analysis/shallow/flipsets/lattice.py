"""The lattice certificate (docs/mathematics.md §3).

Clear denominators so U is an integer matrix and let L = ker U ∩ Zⁿ.  A flip
set is a nonzero vector of L with ‖x‖² ≤ n; for any basis b_1 … b_r of L,
λ₁(L) ≥ min_i ‖b*_i‖ (Gram–Schmidt), so min ‖b*_i‖² > n certifies that there
is none.  LLL (python-flint ``fmpz_mat.lll``) on the kernel lattice finds such
bases easily for float weights.  Certificate: ``{"method": "lattice", "p",
"basis", "inverse", "rank_rows", "rank_cols"}``.

References
----------
H. Cohen, "A course in computational algebraic number theory", 1993:
Algorithm 2.7.2 (integral kernel by LLL), Section 2.6.1 (Gram–Schmidt bound).
"""

from __future__ import annotations

import math

import numpy as np
from flint import fmpz_mat

from reluid.analysis.shallow.flipsets._problem import (LATTICE_MAX_N, Clock, MethodResult, Problem, found,
                                                      gave_up, none)
from reluid.analysis.shallow.flipsets.rank import Profile

__all__ = ["lattice"]

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


def _kernel_lattice(prob: Problem, prof: Profile, clock: Clock):
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


def _kernel_ok(prob: Problem, B: list[list[int]]) -> bool:
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


def lattice(prob: Problem, prof: Profile, clock: Clock) -> MethodResult:
    n = prob.n
    r = n - len(prof.rows)
    if n > LATTICE_MAX_N:
        return gave_up(f"n = {n} > {LATTICE_MAX_N}: LLL not attempted")
    if r == 0:
        return gave_up("U has full column rank (the rank method applies)")
    if _lattice_hopeless(prob.int_rows(prof.rows), n, r):
        return gave_up(f"det(ker U ∩ Z^n)^(1/{r}) < √n = {math.sqrt(n):.3g}: "
                                       "no basis can meet the Gram–Schmidt bound")
    B, T = _kernel_lattice(prob, prof, clock)
    if not _kernel_ok(prob, B):
        return gave_up("the kernel of the sampled rows is larger than ker U")
    for b in B:
        if all(x in (0, 1) for x in b) or all(x in (0, -1) for x in b):
            F = frozenset(i for i, x in enumerate(b) if x)
            if prob.is_flip(F):
                return found(F)
    Bf = np.array(B, dtype=np.float64)
    approx = np.abs(np.diag(np.linalg.qr(Bf.T, mode="r"))) ** 2
    if approx.min() < 0.9 * n:
        return gave_up(f"Gram–Schmidt bound fails: min ‖b*_i‖² ≈ {approx.min():.3g} ≤ n = {n}")
    G = fmpz_mat(B) * fmpz_mat(B).transpose()
    d = _leading_minors([[int(G[i, j]) for j in range(r)] for i in range(r)])
    prev = 1
    for di in d:
        if di <= n * prev:
            return gave_up(f"Gram–Schmidt bound fails: min ‖b*_i‖² ≤ n = {n}")
        prev = di
    C = _integral_inverse_columns(T, r)
    return none({"method": "lattice", "p": prof.p, "basis": B, "inverse": C,
                             "rank_rows": list(prof.rows), "rank_cols": list(prof.pivots)})
