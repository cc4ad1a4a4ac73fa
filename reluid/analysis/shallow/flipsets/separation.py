"""The separation certificate (docs/mathematics.md §3).

If an integer k × m matrix Y has s_i = m_iᵀ Y a_i > 0 for every neuron i, no
nonempty F has Σ_{i∈F} m_i a_iᵀ = 0: pairing that sum with Y gives
Σ_{i∈F} s_i > 0.  With y = vec(Y) this is yᵀu_i > 0 for every column u_i of U.
By Gordan's alternative such a y exists iff no nonzero x ≥ 0 has U x = 0, and
by Wendel's theorem random symmetric columns are separable with probability
P(Bin(n − 1, ½) ≤ km − 1): almost surely up to n ≈ 2km, where the rank
certificate stops at n = km.  Certificate: ``{"method": "separation", "y"}``
(k lists of m integers); the checker recomputes the n numbers s_i exactly.

Search (floats only propose; the integer Y is verified exactly before it is
returned):

* L-BFGS on Σ_i softplus(−ĝ_i/τ), ĝ_i = m̂_iᵀ Y â_i with unit rows â_i and unit
  columns m̂_i (numpy, float32 products), stopping at the first iterate that
  separates;
* when highspy is installed (``pip install reluid[lp]``) and the instance is
  small enough, the max-margin LP ``max t : ŷᵀû_i ≥ t, −1 ≤ y ≤ 1`` as a
  fallback; an optimum t ≈ 0 says the columns are not separable;
* Y is rounded to the fewest bits that still separate.

Split (``separation-split``): when y separates all but a few columns, write
s_i on one common scale, N = {s < 0}, Z = {s = 0}, τ = Σ_N |s|,
C = {0 < s ≤ τ}.  Every flip set lies in N ∪ Z ∪ C (docs/mathematics.md §3), so
a certificate for the subnetwork on a set R ⊇ N ∪ Z ∪ C finishes the proof:
``{"method": "separation-split", "y", "rest": R, "sub": evidence for θ_R}``.

References
----------
P. Gordan, "Ueber die Auflösung linearer Gleichungen mit reellen Coefficienten",
Math. Ann. 6 (1873) 23–28.  J. G. Wendel, "A problem in geometric probability",
Math. Scand. 11 (1962) 109–111.
"""

from __future__ import annotations

import math
import operator
from collections import deque

import numpy as np
from flint import fmpz_mat

from reluid.analysis.shallow.flipsets._problem import Clock, MethodResult, Problem, found, gave_up, none
from reluid.model import dyadic
from reluid.verdicts import FlipSetMethod, Outcome, Reason, ReasonCode

__all__ = ["separation", "separate", "exact_scores", "common_scores", "split_set", "LP_MAX_ENTRIES",
           "SPLIT_MAX_REST", "have_lp"]

LP_MAX_ENTRIES = 300_000
"""Largest n·(km + 1) for which the HiGHS max-margin LP is tried after L-BFGS fails."""

SPLIT_MAX_REST = 40
"""Largest rest set R of a ``separation-split`` certificate the producer looks for."""

MAX_EVALS = 400
BITS = (6, 8, 10, 12, 16, 20, 24, 32)


def have_lp() -> bool:
    """Whether the optional LP solver (highspy) is importable."""
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


# ---------------------------------------------------------------------------
# exact scores
# ---------------------------------------------------------------------------

def _dyadic_scores(prob: Problem, Y) -> list[int]:
    """C_iᵀ Y N_i for a θ held as integers times powers of two (:meth:`Problem.dyadic`), exactly.

    a_i = 2^{s_i} N_i (the a-part of row i of [A | b]) and m_i = 2^{t} C_i
    with t the least row exponent of [M | c], so the score is a positive
    multiple of m_iᵀ Y a_i.  Y N_i for all i is one exact integer product on
    float64 BLAS (:func:`reluid.model.dyadic.int_matmul`).
    """
    t = prob.theta
    N = dyadic.as_array(t.hidden)[:, :prob.m]
    big = any(abs(int(v)) >> 62 for row in Y for v in row)
    Yt = np.array(Y, dtype=object if big else np.int64).reshape(prob.k, prob.m).T
    Z = dyadic.int_matmul(N, Yt).tolist()
    return [sum(map(operator.mul, z, c)) for z, c in zip(Z, prob.dyadic_columns())]


def exact_scores(prob: Problem, Y) -> list[int]:
    """s_i · da_i · dm_i = (dm_i m_i)ᵀ Y (da_i a_i) for every i, exactly (a positive multiple of m_iᵀ Y a_i)."""
    if prob.dyadic:
        return _dyadic_scores(prob, Y)
    Ar, Mr, _, _ = prob.row_integers()
    n, m, k = prob.n, prob.m, prob.k
    Yt = fmpz_mat(m, k, [int(Y[j][l]) for l in range(m) for j in range(k)])
    Z = (fmpz_mat(n, m, [x for row in Ar for x in row]) * Yt).entries()
    return [sum(int(Z[i * k + j]) * Mr[i][j] for j in range(k) if Mr[i][j]) for i in range(n)]


def common_scores(prob: Problem, scores: list[int]) -> list[int]:
    """The scores of :func:`exact_scores` on one common scale: D · m_iᵀ Y a_i (D = DM·DA of :meth:`Problem.integers`).

    For a θ held as integers times powers of two, D is 2^{-t - min s_i} instead (see :func:`_dyadic_scores`).
    """
    if prob.dyadic:
        shifts = prob.theta.hidden.shifts
        low = min(shifts, default=0)
        return [v << (s - low) for v, s in zip(scores, shifts)]
    _, _, da, dm = prob.row_integers()
    DA, DM = math.lcm(*da) if da else 1, math.lcm(*dm) if dm else 1
    return [s * (DA // a) * (DM // b) for s, a, b in zip(scores, da, dm)]


def split_set(s: list[int]) -> set[int]:
    """N ∪ Z ∪ C for common-scale scores s: every flip set lies in this set (docs/mathematics.md §3)."""
    tau = -sum(v for v in s if v < 0)
    return {i for i, v in enumerate(s) if v <= tau}


# ---------------------------------------------------------------------------
# the float search
# ---------------------------------------------------------------------------

def _unit_factors(prob: Problem):
    A, M = prob.floats()
    na = np.linalg.norm(A, axis=1)
    nm = np.linalg.norm(M, axis=0)
    if not (na.all() and nm.all()) or not (np.isfinite(na).all() and np.isfinite(nm).all()):
        return None
    return A / na[:, None], (M / nm[None, :]).T.copy()          # n × m and n × k


def _lbfgs(Ah: np.ndarray, Mh: np.ndarray, clock: Clock, seed: int, max_evals: int = MAX_EVALS):
    """(Y that separates in floats or None, the last iterate): L-BFGS on Σ softplus(−ĝ_i/τ).

    A plain two-loop L-BFGS with Armijo backtracking: the loss is smooth and
    convex, so the curvature pairs it keeps satisfy sᵀy ≥ 0 (pairs with
    sᵀy ≈ 0 are skipped).  Every evaluated point is tested; the first one
    with min ĝ > 0 is returned.
    """
    n, m = Ah.shape
    k = Mh.shape[1]
    tau = 1.0 / math.sqrt(k * m)
    A32, M32 = Ah.astype(np.float32), Mh.astype(np.float32)
    state = {"evals": 0, "hit": None}

    def fg(x):
        state["evals"] += 1
        Y = x.reshape(k, m).astype(np.float32)
        g = np.einsum("ij,ij->i", A32 @ Y.T, M32).astype(np.float64)
        if g.min() > 0:
            state["hit"] = x.copy()
        z = -g / tau
        loss = float(np.logaddexp(0.0, z).sum())
        w = (0.5 * (1.0 + np.tanh(0.5 * z)) / tau).astype(np.float32)   # σ(z)/τ, without overflow
        grad = -((M32 * w[:, None]).T @ A32).astype(np.float64).ravel()
        return loss, grad

    rng = np.random.default_rng(seed)
    x = rng.standard_normal(k * m) * 1e-3
    f, g = fg(x)
    pairs: deque = deque(maxlen=20)
    stall = 0
    while state["hit"] is None and state["evals"] < max_evals:
        clock.check(FlipSetMethod.SEPARATION, lambda: Reason(ReasonCode.AT_LBFGS, {"evaluations": state["evals"]}))
        q = g.copy()
        alphas = []
        for s, y, rho in reversed(pairs):
            a = rho * (s @ q)
            alphas.append(a)
            q -= a * y
        if pairs:
            s, y, _ = pairs[-1]
            q *= (s @ y) / (y @ y)
        else:
            q /= max(np.linalg.norm(q), 1e-300)
        for (s, y, rho), a in zip(pairs, reversed(alphas)):
            q += s * (a - rho * (y @ q))
        d = -q
        slope = g @ d
        if not slope < 0:            # not a descent direction: restart from the gradient
            pairs.clear()
            d = -g / max(np.linalg.norm(g), 1e-300)
            slope = g @ d
            if not slope < 0:
                break
        t = 1.0
        for _ in range(30):
            f2, g2 = fg(x + t * d)
            if state["hit"] is not None or f2 <= f + 1e-4 * t * slope:
                break
            t *= 0.5
        else:
            break
        if state["hit"] is not None:
            break
        s, y = t * d, g2 - g
        sy = s @ y
        if sy > 1e-12 * np.linalg.norm(s) * np.linalg.norm(y):
            pairs.append((s, y, 1.0 / sy))
        stall = stall + 1 if f - f2 <= 1e-9 * abs(f) else 0
        x, f, g = x + s, f2, g2
        if stall >= 5:
            break
    last = (state["hit"] if state["hit"] is not None else x).reshape(k, m)
    return (None if state["hit"] is None else last), last


def _lp(Ah: np.ndarray, Mh: np.ndarray, clock: Clock):
    """(Y, t): the max-margin LP max t s.t. ŷᵀû_i ≥ t (û_i = vec(m̂_i â_iᵀ)), −1 ≤ y ≤ 1 (HiGHS)."""
    import highspy

    n, m = Ah.shape
    k = Mh.shape[1]
    d = k * m
    U = (Mh[:, :, None] * Ah[:, None, :]).reshape(n, d)        # row i = vec(m̂_i â_iᵀ), index j*m + l
    core = getattr(highspy, "_core", None)
    # the core class does not print HiGHS's banner on construction (highspy.Highs writes it to fd 1)
    h = core._Highs() if core is not None and hasattr(core, "_Highs") else highspy.Highs()
    h.setOptionValue("output_flag", False)
    rem = clock.remaining()
    if rem is not None:
        h.setOptionValue("time_limit", max(0.1, float(rem)))
    lp = highspy.HighsLp()
    lp.num_col_ = d + 1
    lp.num_row_ = n
    lp.col_cost_ = np.r_[np.zeros(d), -1.0]
    lp.col_lower_ = np.r_[-np.ones(d), -1e30]
    lp.col_upper_ = np.r_[np.ones(d), 1e30]
    lp.row_lower_ = np.zeros(n)
    lp.row_upper_ = np.full(n, 1e30)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.arange(0, n * (d + 1) + 1, d + 1, dtype=np.int32)
    lp.a_matrix_.index_ = np.tile(np.arange(d + 1, dtype=np.int32), n)
    lp.a_matrix_.value_ = np.hstack([U, -np.ones((n, 1))]).ravel()
    h.passModel(lp)
    h.run()
    if h.modelStatusToString(h.getModelStatus()) != "Optimal":
        return None, None
    x = np.array(h.getSolution().col_value)
    return x[:d].reshape(k, m), float(x[d])


def _round(Y: np.ndarray, Ah: np.ndarray, Mh: np.ndarray, bits=BITS):
    """Integer Y' = round(Y · (2^b − 1)/max|Y|) for each b in turn while it separates in float64."""
    top = np.abs(Y).max()
    if not top > 0:
        return
    for b in bits:
        Yi = np.rint(Y / top * (2**b - 1))
        g = np.einsum("ij,ij->i", Ah @ Yi.T, Mh)
        if g.min() > 1e-9 * np.abs(g).max():
            yield [[int(v) for v in row] for row in Yi]


def separate(prob: Problem, clock: Clock, seed: int = 0):
    """(Y, why, last): an integer Y with every m_iᵀ Y a_i > 0 (verified exactly) or None and why not;
    ``last`` is the search's last iterate (floats), which the split starts from."""
    unit = _unit_factors(prob)
    if unit is None:
        return None, Reason(ReasonCode.SEPARATION_ZERO_COLUMN), None
    Ah, Mh = unit
    hit, last = _lbfgs(Ah, Mh, clock, seed)
    lp_tried = False
    if hit is None and prob.n * (prob.km + 1) <= LP_MAX_ENTRIES and have_lp():
        lp_tried = True
        Ylp, t = _lp(Ah, Mh, clock)
        if Ylp is not None and t > 1e-9:
            hit = Ylp
        elif Ylp is not None:
            return None, Reason(ReasonCode.SEPARATION_IMPOSSIBLE, {"optimum": t}), last
    if hit is None:
        return None, Reason(ReasonCode.SEPARATION_NOT_FOUND, {"lp": lp_tried}), last
    for Yi in _round(hit, Ah, Mh):
        clock.check(FlipSetMethod.SEPARATION, Reason(ReasonCode.AT_EXACT_CHECK))
        if min(exact_scores(prob, Yi)) > 0:
            return Yi, None, last
    return None, Reason(ReasonCode.SEPARATION_ROUNDING), last


def separation(prob: Problem, clock: Clock, seed: int = 0, split=None) -> MethodResult:
    """The ``separation`` certificate, or (with ``split``) a ``separation-split`` one; see the module docstring.

    ``split(rest)`` is called with a candidate rest set R (sorted indices) and
    returns a MethodResult for the subnetwork θ_R (NONE with evidence, FOUND
    with a flip set of θ_R in θ_R's numbering, or UNKNOWN).
    """
    Y, why, last = separate(prob, clock, seed)
    if Y is not None:
        return none({"method": FlipSetMethod.SEPARATION, "y": Y})
    if split is None or last is None or not np.isfinite(last).all() or not np.abs(last).max() > 0:
        return gave_up(why)
    top = np.abs(last).max()
    Yi = [[int(v) for v in row] for row in np.rint(last / top * (2**24 - 1))]
    rest = sorted(split_set(common_scores(prob, exact_scores(prob, Yi))))
    if not rest or len(rest) > min(SPLIT_MAX_REST, prob.n // 2):
        return gave_up(Reason(ReasonCode.SEPARATION_SPLIT_TOO_LARGE, {"why": why, "rest": len(rest), "n": prob.n})
                       if rest else why)
    sub = split(rest)
    if sub.outcome is Outcome.FOUND:
        return found(rest[i] for i in sub.flip_set)
    if sub.outcome is not Outcome.NONE:
        return gave_up(Reason(ReasonCode.SEPARATION_SPLIT_UNKNOWN, {"why": why, "rest": len(rest), "sub": sub.reason}))
    return none({"method": FlipSetMethod.SEPARATION_SPLIT, "y": Yi, "rest": rest, "sub": sub.evidence})
