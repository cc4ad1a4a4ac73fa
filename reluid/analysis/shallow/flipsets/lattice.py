"""The lattice certificates (docs/mathematics.md §3).

Clear denominators so U is an integer matrix and let L = ker U ∩ Zⁿ.  A flip
set is a 0/1 vector of L.  Two certificates rest on a basis of L (LLL by
python-flint ``fmpz_mat.lll`` of the kernel embedding, then BKZ-20 by fpylll
when it is installed, ``pip install reluid[lattice]``):

``lattice``
    min ‖b*_i‖² > n (Gram–Schmidt): λ₁(L) ≥ min_i ‖b*_i‖, so no nonzero
    vector of L has squared length ≤ n, in particular no flip set.
``lattice-enum``
    every 0/1 vector x has ‖x − ½·1‖² = n/4, so with t the orthogonal
    projection of ½·1 onto V = span L every 0/1 vector of L lies in the ball
    ‖x − t‖² ≤ R² = n/4 − dist²(½·1, V).  The lattice points of that ball are
    enumerated (Schnorr–Euchner) with integer lower bounds from the exact
    Gram–Schmidt data, so no point is ever pruned; none of them is a flip set.
    The checker re-runs the enumeration within the recorded node budget.
``lattice-cvp``
    the same ball after BKZ with block sizes up to 32, enumerated by fplll's
    compiled enumeration (in double precision) over a squared radius
    (1 + 2^-10)·R² + 2^-10, far above the proved safe bound of §3 that the
    checker recomputes exactly; every point met is tested exactly.  Used
    whenever fpylll is installed.

Certificates: ``{"method": "lattice", "p", "basis", "inverse", "rank_rows",
"rank_cols"}``, the same with ``"method": "lattice-enum"`` and ``"nodes"``,
and with ``"method": "lattice-cvp"``, ``"radius"`` (an exact dyadic),
``"points"`` (the coefficient vectors met) and ``"nodes"``.

References
----------
H. Cohen, "A course in computational algebraic number theory", 1993:
Algorithm 2.7.2 (integral kernel by LLL), Section 2.6.1 (Gram–Schmidt bound).
C. P. Schnorr, M. Euchner, "Lattice basis reduction: improved practical
algorithms and solving subset sum problems", Math. Programming 66 (1994):
BKZ, the zigzag enumeration and the ½-shift for 0/1 vectors.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import fmpz_mat

from reluid.analysis.shallow.flipsets._problem import (LATTICE_ENUM_MAX_NODES, LATTICE_MAX_N, Clock, MethodResult,
                                                      Problem, found, gave_up, none)
from reluid.analysis.shallow.flipsets.rank import Profile
from reluid.verdicts import FlipSetMethod, Reason, ReasonCode

__all__ = ["lattice", "bkz", "enumeration_setup", "enumerate_ball", "have_fpylll", "BKZ_BLOCK", "CVP_BLOCKS"]

BKZ_BLOCK = 20
"""Block size of the BKZ reduction applied after LLL when fpylll is installed."""

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
        clock.check(FlipSetMethod.LATTICE, Reason(ReasonCode.AT_LLL, {"dimension": n}))
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


def have_fpylll() -> bool:
    """Whether the optional BKZ implementation (fpylll) is importable."""
    try:
        import fpylll  # noqa: F401
    except ImportError:
        return False
    return True


def bkz(B: list[list[int]], C: list[list[int]], blocks=(BKZ_BLOCK,), tours: int = 8):
    """(B', C'): fpylll BKZ of the basis B (rows) with each block size in turn, and the inverse C' with B' C' = I.

    fpylll reduces with floating-point Gram–Schmidt data but changes the
    integer basis only by unimodular row operations, so B' spans the same
    lattice; that is checked here (W = B' C is an integer matrix with integral
    inverse, and C' = C W⁻¹) and again by the checker (B' C' = I).
    """
    from fpylll import BKZ, LLL, IntegerMatrix

    Mz = IntegerMatrix.from_matrix(B)
    try:
        LLL.reduction(Mz)
        for block in blocks:
            BKZ.reduction(Mz, BKZ.Param(block_size=min(block, len(B)), max_loops=tours,
                                        flags=BKZ.AUTO_ABORT | BKZ.MAX_LOOPS))
    except RuntimeError as e:      # fplll aborts, e.g. "infinite loop in babai" on entries past its precision
        raise ArithmeticError(f"fplll stopped: {e}") from None
    B2 = [[int(Mz[i, c]) for c in range(Mz.ncols)] for i in range(Mz.nrows)]
    W = fmpz_mat(B2) * fmpz_mat(C)
    Wi = W.inv()
    r = len(B)
    if any(Wi[i, j].q != 1 for i in range(r) for j in range(r)):
        raise ArithmeticError("BKZ changed the lattice")
    C2 = fmpz_mat(C) * fmpz_mat([[int(Wi[i, j].p) for j in range(r)] for i in range(r)])
    return B2, [[int(C2[i, j]) for j in range(r)] for i in range(C2.nrows())]


# ---------------------------------------------------------------------------
# the exact enumeration
# ---------------------------------------------------------------------------

SCALE_BITS = 48


LATTICE_ENUM_MAX_LEAVES = 1 << 16
"""Most lattice points in the ball a ``lattice-enum`` certificate may have (the checker's limit too)."""


class NodeLimit(Exception):
    """The enumeration needs more nodes (or meets more lattice points) than allowed."""


def _bareiss(G: list[list[int]], last_may_vanish: bool = False):
    """(d, lam): d[0] = 1, d[t+1] the leading (t+1)-minor of G; lam[i][j] = d[j]·⟨b_i, b*_j⟩ (i > j).

    Fraction-free elimination: μ_ij = lam[i][j] / d[j+1] and ‖b*_j‖² = d[j+1] / d[j].
    With ``last_may_vanish`` the last pivot may be 0 (the appended vector lies in the span).
    """
    r = len(G)
    a = [row[:] for row in G]
    d, prev = [1], 1
    for t in range(r):
        piv = a[t][t]
        if piv <= 0:
            if last_may_vanish and t == r - 1 and piv == 0:
                d.append(0)
                break
            raise ArithmeticError("Gram matrix is not positive definite")
        d.append(piv)
        at = a[t]
        for i in range(t + 1, r):
            ai = a[i]
            ait = ai[t]
            for j in range(t + 1, r):
                ai[j] = (piv * ai[j] - ait * at[j]) // prev
        prev = piv
    return d, [[a[i][j] for j in range(i)] for i in range(r)]


def enumeration_setup(B: list[list[int]]):
    """Integer data of the ball ‖x − t‖² ≤ R² around t = proj_V(½·1), scaled by S = 2^48 (floors).

    Returns (q, mu, tau, rhs): q_j = ⌊‖b*_j‖² S⌋, mu[i][j] = ⌊μ_ij S⌋,
    tau_j = ⌊τ_j S⌋ with τ_j the Gram–Schmidt coordinate of t, and
    rhs = ⌊R² S³⌋, R² = (n − dist²(1, V))/4.
    """
    r, n = len(B), len(B[0])
    S = 1 << SCALE_BITS
    Bz = fmpz_mat(B)
    G = Bz * Bz.transpose()
    w = [sum(b) for b in B]                                   # ⟨b_i, 1⟩
    Ga = [[int(G[i, j]) for j in range(r)] + [w[i]] for i in range(r)] + [w + [n]]
    d, lam = _bareiss(Ga, last_may_vanish=True)               # the last row is the vector 1
    q = [(d[j + 1] * S) // d[j] for j in range(r)]
    mu = [[(lam[i][j] * S) // d[j + 1] for j in range(i)] for i in range(r)]
    tau = [(lam[r][j] * S) // (2 * d[j + 1]) for j in range(r)]
    rhs = ((n * d[r] - d[r + 1]) * S**3) // (4 * d[r])
    return q, mu, tau, rhs


def enumerate_ball(B: list[list[int]], on_leaf, node_limit: int, clock: Clock) -> int:
    """Visit every c ∈ Z^r with ‖cB − t‖² ≤ R² (see :func:`enumeration_setup`); returns the node count.

    A node is a value c_j accepted at level j with c_{j+1}, …, c_{r−1} fixed.
    Its bound is Σ_{i≥j} q_i · max(0, |c_i S − C_i| − E_i)², where
    C_i = tau_i − Σ_{t>i} mu[t][i] c_t is the fixed-point centre and
    E_i = 1 + Σ_{t>i} |c_t| bounds its error (every floor is off by less than
    1).  Each term is at most S³ times the true term (c_i − centre_i)² ‖b*_i‖²,
    so a node is pruned (bound > rhs) only when no point of the ball lies
    below it; on each side of the centre the bound grows with the distance, so
    each side stops at its first failure.  ``on_leaf(c)`` gets every full c
    that passes.
    """
    q, mu, tau, rhs = enumeration_setup(B)
    r = len(B)
    S = 1 << SCALE_BITS
    half = S // 2
    c = [0] * r
    rho = [0] * (r + 1)
    E = [1] * (r + 1)
    absum = [0] * (r + 1)
    centre = [0] * r
    up = [0] * r
    down = [0] * r
    phase = [0] * r
    nodes = 0

    def start(j):
        s = tau[j]
        for i in range(j + 1, r):
            if c[i]:
                s -= mu[i][j] * c[i]
        centre[j] = s
        E[j] = 1 + absum[j + 1]
        c0 = (s + half) // S
        up[j], down[j], phase[j] = c0, c0 - 1, 0

    def bound(j, v):
        e = abs(v * S - centre[j]) - E[j]
        return rho[j + 1] + (q[j] * e * e if e > 0 else 0)

    j = r - 1
    start(j)
    while True:
        v = b = None
        if phase[j] == 0:
            b = bound(j, up[j])
            if b <= rhs:
                v = up[j]
                up[j] += 1
            else:
                phase[j] = 1
        if v is None and phase[j] == 1:
            b = bound(j, down[j])
            if b <= rhs:
                v = down[j]
                down[j] -= 1
            else:
                phase[j] = 2
        if v is None:
            j += 1
            if j == r:
                return nodes
            continue
        nodes += 1
        if nodes > node_limit:
            raise NodeLimit(node_limit)
        if not nodes & 0x3FFF:
            clock.check(FlipSetMethod.LATTICE_ENUM, lambda: Reason(ReasonCode.AT_ENUM_NODES, {"nodes": nodes,
                                                                                             "dimension": r}))
        c[j] = v
        rho[j] = b
        absum[j] = absum[j + 1] + abs(v)
        if j == 0:
            on_leaf(c)
            continue
        j -= 1
        start(j)


def _enumerate_certificate(prob: Problem, prof: Profile, B, C, clock: Clock, node_limit: int) -> MethodResult:
    n = prob.n
    hits = []

    leaves = [0]

    def leaf(cvec):
        leaves[0] += 1
        if leaves[0] > LATTICE_ENUM_MAX_LEAVES:
            raise NodeLimit(node_limit)
        x = [0] * n
        for ci, b in zip(cvec, B):
            if ci:
                for t, bt in enumerate(b):
                    if bt:
                        x[t] += ci * bt
        if any(x) and (all(v in (0, 1) for v in x) or all(v in (0, -1) for v in x)):
            hits.append(frozenset(i for i, v in enumerate(x) if v))

    try:
        nodes = enumerate_ball(B, leaf, node_limit, clock)
    except NodeLimit:
        return gave_up(Reason(ReasonCode.LATTICE_ENUM_LIMIT, {"nodes": node_limit, "points": LATTICE_ENUM_MAX_LEAVES,
                                                               "dimension": len(B)}))
    for F in hits:
        if prob.is_flip(F):
            return found(F)
    if hits:
        raise ArithmeticError("an enumerated 0/1 kernel vector is not a flip set")
    return none({"method": FlipSetMethod.LATTICE_ENUM, "p": prof.p, "basis": B, "inverse": C,
                 "rank_rows": list(prof.rows), "rank_cols": list(prof.pivots), "nodes": nodes})


CVP_BLOCKS = (24, 28, 32)
"""The BKZ block sizes applied, in turn, before the compiled enumeration (after BKZ-20)."""
CVP_MAX_NODES = (1 << 31) - 1
"""Most nodes of a ``lattice-cvp`` certificate (fpylll counts them in 32 bits; the checker's limit too)."""
CVP_MAX_POINTS = 1 << 12
"""Most lattice points in the ball a ``lattice-cvp`` certificate may have (the checker's limit too)."""
CVP_NODE_SECONDS = 1e-7
"""A generous time per node of fplll's enumeration, to decide whether it fits the clock (never a verdict)."""
CVP_ESTIMATE_SLACK = 32
"""The enumeration tree measured up to 20 times its Gaussian-heuristic estimate (m = 10, n = 160: 1.5·10⁷
nodes against 1.1·10⁶); the clock and node guards allow for 32."""
CVP_MARGIN = 2.0 ** -10
"""Margin of the enumeration radius over R² (relative and absolute): about 140 times the proved rounding
bound of §3 that the checker recomputes (7·10⁻⁶ R² at m = 10, n = 160: fplll's double Gram–Schmidt data
are off by up to 10⁻⁷), and it enlarges the tree by under 10 %."""


def _estimated_nodes(r_hat: list[float], R2: float) -> float:
    """The Gaussian-heuristic size of the enumeration tree: Σ_k V_k(R) / Π_{i ≥ r−k} ‖b*_i‖ (a float estimate)."""
    r, total, logdet = len(r_hat), 0.0, 0.0
    for k in range(1, r + 1):
        logdet += 0.5 * math.log(r_hat[r - k])
        total += math.exp(0.5 * k * math.log(math.pi * R2) - math.lgamma(k / 2 + 1) - logdet)
    return total


def _cvp_certificate(prob: Problem, prof: Profile, B, C, clock: Clock) -> MethodResult:
    """The ``lattice-cvp`` certificate: the ½-shifted ball enumerated by fplll over a safe radius (§3)."""
    from fpylll import GSO, Enumeration, EnumerationError, IntegerMatrix
    from fpylll.fplll.enumeration import EvaluatorStrategy

    n, r = prob.n, len(B)
    clock.check(FlipSetMethod.LATTICE_CVP, Reason(ReasonCode.AT_BKZ, {"block": CVP_BLOCKS[-1], "dimension": r}))
    B, C = bkz(B, C, CVP_BLOCKS, tours=4)
    Bz = fmpz_mat(B)
    G = Bz * Bz.transpose()
    w = [sum(b) for b in B]
    Ga = [[int(G[i, j]) for j in range(r)] + [w[i]] for i in range(r)] + [w + [n]]
    d, lam = _bareiss(Ga, last_may_vanish=True)
    R2 = Fraction(n * d[r] - d[r + 1], 4 * d[r])
    tau = [float(Fraction(lam[r][t], 2 * d[t + 1])) for t in range(r)]
    if tau[-1] == round(tau[-1]):
        return gave_up(Reason(ReasonCode.LATTICE_CVP_INTEGER_CENTRE))
    radius = float(R2 * (1 + Fraction(CVP_MARGIN)) + Fraction(CVP_MARGIN))
    M = GSO.Mat(IntegerMatrix.from_matrix(B), float_type="double")
    M.update_gso()
    estimate = CVP_ESTIMATE_SLACK * _estimated_nodes([M.get_r(j, j) for j in range(r)], radius)
    if estimate > CVP_MAX_NODES:
        return gave_up(Reason(ReasonCode.LATTICE_CVP_NODES, {"estimate": estimate, "block": CVP_BLOCKS[-1],
                                                              "dimension": r, "limit": CVP_MAX_NODES}))
    left = clock.remaining()
    if left is not None and estimate * CVP_NODE_SECONDS > left:
        return gave_up(Reason(ReasonCode.LATTICE_CVP_TIME, {"estimate": estimate, "block": CVP_BLOCKS[-1],
                                                             "dimension": r, "seconds": estimate * CVP_NODE_SECONDS,
                                                             "left": left}))
    E = Enumeration(M, nr_solutions=CVP_MAX_POINTS + 1, strategy=EvaluatorStrategy.BEST_N_SOLUTIONS)
    try:
        sols = E.enumerate(0, r, radius, 0, target=tau)
    except EnumerationError:
        sols = []
    except RuntimeError as e:      # fplll aborts: no certificate from it
        raise ArithmeticError(f"fplll stopped: {e}") from None
    nodes = E.get_nodes()
    if len(sols) > CVP_MAX_POINTS or not 0 <= nodes <= CVP_MAX_NODES:
        return gave_up(Reason(ReasonCode.LATTICE_CVP_POINTS, {"points": CVP_MAX_POINTS, "nodes": CVP_MAX_NODES,
                                                               "dimension": r}))
    points = sorted({tuple(int(v) for v in coords) for _, coords in sols})
    for cvec in points:
        x = [sum(ci * b[t] for ci, b in zip(cvec, B) if ci) for t in range(n)]
        if any(x) and all(v in (0, 1) for v in x):
            F = frozenset(i for i, v in enumerate(x) if v)
            if prob.is_flip(F):
                return found(F)
            raise ArithmeticError("an enumerated 0/1 kernel vector is not a flip set")
    return none({"method": FlipSetMethod.LATTICE_CVP, "p": prof.p, "basis": B, "inverse": C,
                 "rank_rows": list(prof.rows), "rank_cols": list(prof.pivots), "radius": str(Fraction(radius)),
                 "points": [list(c) for c in points], "nodes": nodes})


def lattice(prob: Problem, prof: Profile, clock: Clock, node_limit: int = LATTICE_ENUM_MAX_NODES,
            reduce: bool | None = None, compiled: bool | None = None) -> MethodResult:
    """The ``lattice`` certificate, else (``node_limit`` > 0) the ``lattice-cvp`` or ``lattice-enum`` one.

    ``reduce``: BKZ after LLL (default: when fpylll is installed).  ``compiled``:
    enumerate with fplll (``lattice-cvp``, after stronger BKZ) rather than in
    Python (``lattice-enum``); default: when fpylll is installed and ``reduce``
    is not False.
    """
    n = prob.n
    r = n - len(prof.rows)
    if n > LATTICE_MAX_N:
        return gave_up(Reason(ReasonCode.LLL_NOT_ATTEMPTED, {"n": n, "limit": LATTICE_MAX_N}))
    if r == 0:
        return gave_up(Reason(ReasonCode.LATTICE_FULL_RANK))
    hopeless = _lattice_hopeless(prob.int_rows(prof.rows), n, r)
    if hopeless and node_limit <= 0:
        return gave_up(Reason(ReasonCode.LATTICE_HOPELESS, {"dimension": r, "n": n}))
    B, T = _kernel_lattice(prob, prof, clock)
    if not _kernel_ok(prob, B):
        return gave_up(Reason(ReasonCode.LATTICE_KERNEL_TOO_LARGE))
    for b in B:
        if all(x in (0, 1) for x in b) or all(x in (0, -1) for x in b):
            F = frozenset(i for i, x in enumerate(b) if x)
            if prob.is_flip(F):
                return found(F)
    C = _integral_inverse_columns(T, r)
    if (have_fpylll() if reduce is None else reduce) and r > 2:
        clock.check(FlipSetMethod.LATTICE, Reason(ReasonCode.AT_BKZ, {"block": BKZ_BLOCK, "dimension": r}))
        try:
            B, C = bkz(B, C)
        except ArithmeticError:    # BKZ only shortens the LLL basis, which every certificate below can use
            pass
    if not hopeless:
        Bf = np.array(B, dtype=np.float64)
        approx = np.abs(np.diag(np.linalg.qr(Bf.T, mode="r"))) ** 2
        if approx.min() >= 0.9 * n:
            G = fmpz_mat(B) * fmpz_mat(B).transpose()
            d = _leading_minors([[int(G[i, j]) for j in range(r)] for i in range(r)])
            prev = 1
            for di in d:
                if di <= n * prev:
                    break
                prev = di
            else:
                return none({"method": FlipSetMethod.LATTICE, "p": prof.p, "basis": B, "inverse": C,
                             "rank_rows": list(prof.rows), "rank_cols": list(prof.pivots)})
    if node_limit <= 0:
        return gave_up(Reason(ReasonCode.LATTICE_GRAM_SCHMIDT, {"n": n}))
    if (have_fpylll() and reduce is not False) if compiled is None else compiled:
        return _cvp_certificate(prob, prof, B, C, clock)
    clock.check(FlipSetMethod.LATTICE_ENUM, Reason(ReasonCode.AT_DIMENSION, {"dimension": r}))
    return _enumerate_certificate(prob, prof, B, C, clock, node_limit)
