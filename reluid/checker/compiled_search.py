"""The checker's one compiled bounded search: fplll's enumeration of a ball, over a proved safe radius.

A ``lattice-cvp`` certificate (docs/mathematics.md §3) rests on the lattice
points of the ball ‖x − t‖² ≤ R² around t = proj_V(½·1): the checker finds
them itself with fplll's Schnorr–Euchner CVP enumeration (fpylll, the optional
``reluid[lattice]`` extra), which runs in IEEE double precision.  Its answer
counts only because the squared radius it is given, ρ̂, is at least the bound
ρ of the safe-radius lemma of §3, computed here in exact rationals from the
exact Gram–Schmidt data and from the very doubles fplll enumerates with (read
back from fpylll's ``MatGSO``): every point of the exact ball is then among
the points returned, and each returned point is tested exactly by the caller.

The enumeration cannot be interrupted from Python, so its work is charged
before it runs, from the certificate's recorded node count, and it runs in a
child process whose CPU time is limited to what that count allows
(:data:`NODES_PER_CPU_SECOND`, with a margin): a certificate that records fewer
nodes than its ball needs cannot make the check run longer than its charge
says.  A run stopped there leaves the claim not re-verified (the work limit);
one that ends is compared with the recorded count (a certificate whose ball
needs more nodes than it records is rejected).  This module imports the
standard library, flint, the registry and, lazily, fpylll: nothing of the
producer.
"""

from __future__ import annotations

import math
import multiprocessing
from fractions import Fraction

from flint import fmpz_mat

from reluid.checker.registry import Context, WorkLimit, charge, fail
from reluid.checker.search import SEARCHED, searched

__all__ = ["FPLLL_MIN_VERSION", "COMPILED_NODE_LIMIT", "COMPILED_POINT_LIMIT", "NODES_PER_STEP", "NODES_PER_CPU_SECOND", "have_fplll",
           "safe_radius", "ball_points"]

COMPILED_NODE_LIMIT = (1 << 31) - 1
"""Most nodes a ``lattice-cvp`` certificate may record (fpylll reports the count as a 32-bit integer)."""
COMPILED_POINT_LIMIT = 1 << 12
"""Most lattice points of the ball the checker accepts (each is tested exactly, O(n·r))."""
NODES_PER_STEP = 16
"""Enumeration nodes per step of the work limit (fplll visits 10⁷–10⁸ nodes a second, 16 within a Python step)."""
NODES_PER_CPU_SECOND = 5 * 10**6
"""The slowest rate the enumeration is allowed: a run of N recorded nodes gets 1 + N / this CPU seconds (fplll
measured 2.7·10⁷ nodes per CPU second on this project's CI machine, so the margin is about five)."""

_U = Fraction(1, 1 << 53)          # the unit roundoff of IEEE double, round to nearest
_TINY = Fraction(1, 1 << 1074)     # the least subnormal double: a rounding below 2^-1022 errs by at most half of it
#: fplll divides every r̂_j and ρ̂ by 2^(the exponent of the largest r̂) before it enumerates; the lemma's relative
#: rounding needs the results normal, so the spread max r̂ / min(r̂_j, ρ̂) is bounded well inside 2^1022.
MAX_SPREAD_EXPONENT = 1022 - 60
#: fplll keeps each coefficient c_j of a node in a double and steps it by ±1: past 2^53 odd values are skipped, so
#: every point of the ball must have |c_j| ≤ X_j below this bound.
COEFFICIENT_BOUND = 1 << 52
_K = 96                            # upward dyadic roundings keep 96 bits after the point


FPLLL_MIN_VERSION = (5, 4, 2)
"""The first fplll whose CVP enumeration zigzags on every level (before it, a level whose partial distance above
is 0.0, the top level included, was walked one way only, as for SVP's sign symmetry, and half the ball was missed)."""


def have_fplll() -> bool:
    """Whether fpylll (fplll's enumeration) is importable."""
    try:
        import fpylll  # noqa: F401
    except ImportError:
        return False
    return True


def _fplll_version() -> tuple[int, ...]:
    from fpylll import config

    return (config.major_version, config.minor_version, config.micro_version)


def _up(x: Fraction) -> Fraction:
    """The least multiple of 2^-96 that is ≥ x."""
    return Fraction(-((-x.numerator << _K) // x.denominator), 1 << _K)


def _sqrt_up(x: Fraction) -> Fraction:
    """A dyadic upper bound of √x (x ≥ 0)."""
    s = math.isqrt(-((-x.numerator << (2 * _K)) // x.denominator))
    return Fraction(s + 1, 1 << _K)


def _sqrt_down(x: Fraction) -> Fraction:
    """A dyadic lower bound of √x (x ≥ 0)."""
    return Fraction(math.isqrt((x.numerator << (2 * _K)) // x.denominator), 1 << _K)


def safe_radius(B, d, a, n: int, r_hat, mu_hat, tau_hat) -> Fraction:
    """The bound ρ of the safe-radius lemma (docs/mathematics.md §3), exactly.

    ``d``, ``a``: the fraction-free elimination of the Gram matrix of
    (b_1, …, b_r, 1) (d[t] the leading t-minor, a[i][t] = d_t⟨b_i, b*_t⟩), so
    r_t = d[t+1]/d[t], μ_it = a[i][t]/d[t+1], τ_t = a[r][t]/(2 d[t+1]) and
    R² = (n − d[r+1]/d[r])/4.  ``r_hat[j]``, ``mu_hat[i][j]`` (i > j) and
    ``tau_hat[j]`` are the doubles the enumeration uses.  Every node of the
    exact ball then has a floating-point partial distance ≤ ρ.
    """
    r = len(B)
    R2 = Fraction(n * d[r] - d[r + 1], 4 * d[r])
    R = _sqrt_up(R2)
    rex = [Fraction(d[t + 1], d[t]) for t in range(r)]
    tau = [Fraction(a[r][t], 2 * d[t + 1]) for t in range(r)]
    Bz = fmpz_mat(B)
    G = Bz * Bz.transpose()
    Gi = G.inv()                                   # (G⁻¹)_jj = ‖d_j‖², d_j the dual basis
    w = fmpz_mat([[sum(b)] for b in B])
    ct = Gi * w                                    # 2·(coefficients of t): t = proj(½·1) = Σ (ct_j/2) b_j
    X = []
    for j in range(r):
        gjj, cj = Gi[j, j], ct[j, 0]
        X.append(_up(abs(Fraction(int(cj.p), 2 * int(cj.q))) + R * _sqrt_up(Fraction(int(gjj.p), int(gjj.q)))))
    if max(X, default=0) >= COEFFICIENT_BOUND:
        raise ArithmeticError(f"a coefficient of the ball may reach {_approx(max(X))} >= 2^52, past what fplll's "
                              "double coefficients step through exactly")
    gamma = (r + 1) * _U / (1 - (r + 1) * _U)
    eps = Fraction(0)
    lin = quad = Fraction(0)
    for j in range(r):
        th = Fraction(tau_hat[j])
        err = abs(th - tau[j])
        size = abs(th)
        for i in range(j + 1, r):
            m_hat = Fraction(mu_hat[i][j])
            size += X[i] * abs(m_hat)
            err += X[i] * _up(abs(m_hat - Fraction(a[i][j], d[j + 1])))
        e = _up(gamma * _up(size) + err + (r + 1) * _TINY)      # _TINY: a product that underflowed
        rh = Fraction(r_hat[j])
        if rh > rex[j]:
            eps = max(eps, _up(rh / rex[j] - 1))
        lin += _up(e * rh / _sqrt_down(rex[j]))
        quad += _up(e * e * rh)
    inflate = 1 / (1 - (4 * r + 4) * _U)
    top = math.frexp(max(r_hat))[1]                  # r̂_j < 2^top: fplll divides r̂ and ρ̂ by about 2^top
    floor = (8 * r + 8) * _TINY * Fraction(2) ** top   # every rounding that fell below the normal range
    return _up(inflate * ((1 + eps) * R2 + 2 * R * lin + quad + floor))


def _require_fplll(ctx: Context, r: int) -> None:
    """Fails the claim unless an fplll that enumerates CVP on every level both ways, in dimension r, is there."""
    if not have_fplll():
        fail(ctx, "a lattice-cvp certificate is checked by fplll's enumeration: pip install reluid[lattice]")
    if _fplll_version() < FPLLL_MIN_VERSION:
        fail(ctx, f"a lattice-cvp certificate needs fplll >= {'.'.join(map(str, FPLLL_MIN_VERSION))} (its CVP "
                  f"enumeration must walk every level both ways), not {'.'.join(map(str, _fplll_version()))}")
    from fpylll import config

    if r >= config.max_enum_dim:
        fail(ctx, f"fplll enumerates fewer than {config.max_enum_dim} dimensions, not {r}")


def ball_points(ctx: Context, B, d, a, n: int, radius: Fraction, nodes: int) -> list[tuple[int, ...]]:
    """The coefficient vectors c of every lattice point cB with ‖cB − t‖² ≤ R², by fplll's enumeration.

    ``radius`` is the squared radius ρ̂ the enumeration is run with (a
    double, checked ≥ :func:`safe_radius`); ``nodes`` the node count the
    certificate records, charged before the run and compared after it.  The
    caller tests every returned point exactly (some may lie outside the exact
    ball).  Fails the claim when fpylll is missing, ρ̂ is too small, the top
    target coordinate is an integer (fplll's sign-symmetry rule would then
    apply below it), or the enumeration needs more nodes or meets more points
    than allowed.
    """
    r = len(B)
    _require_fplll(ctx, r)
    if not 0 <= nodes <= COMPILED_NODE_LIMIT:
        fail(ctx, f"nodes = {nodes} is outside [0, {COMPILED_NODE_LIMIT}]")
    if not 0 <= radius <= 2 ** 1000:
        fail(ctx, "the radius must be a nonnegative double")
    if float(radius) != radius:
        fail(ctx, "the radius must be a double (the enumeration runs with it exactly)")
    charge(ctx, r * r * 8, "the safe radius of the compiled enumeration")
    r_hat, mu_hat, tau_hat = _double_data(ctx, B, d, a, radius)
    try:
        rho = safe_radius(B, d, a, n, r_hat, mu_hat, tau_hat)
    except ArithmeticError as e:
        fail(ctx, f"{e} (docs/mathematics.md §3)")
    if radius < rho:
        fail(ctx, f"the radius {float(radius)!r} is below the proved safe radius {_approx(rho)} "
                  "(docs/mathematics.md §3): the enumeration could miss a point of the ball")
    charge(ctx, nodes // NODES_PER_STEP + 1, f"fplll's enumeration of {nodes:,} nodes ({SEARCHED})")
    searched(ctx, f"the lattice points of a ball, by fplll's enumeration ({nodes:,} nodes)")
    seconds = 1 + -(-nodes // NODES_PER_CPU_SECOND)
    child = _enumerate_apart(B, float(radius), tau_hat, seconds)
    if child is None:
        raise WorkLimit(ctx.claim_id or "claim",
                        f"fplll's enumeration ran past the {seconds} CPU second(s) that the certificate's "
                        f"{nodes:,} nodes allow: not re-verified (the ball may need more nodes than it records)")
    if child[0] != (r_hat, mu_hat):
        fail(ctx, "fplll's Gram–Schmidt data differ between two runs on the same basis")
    sols, used = child[1], child[2]
    if not 0 <= used <= nodes:
        fail(ctx, f"the enumeration needs {used:,} nodes, more than the certificate's {nodes:,}")
    if len(sols) > COMPILED_POINT_LIMIT:
        fail(ctx, f"the ball holds more than {COMPILED_POINT_LIMIT} lattice points")
    out = []
    for coords in sols:
        if not all(float(v).is_integer() for v in coords):
            fail(ctx, "fplll returned a non-integral coefficient vector")
        out.append(tuple(int(v) for v in coords))
    return out


def _double_data(ctx: Context, B, d, a, radius: Fraction):
    """(r̂, μ̂, τ̂): the doubles fplll enumerates with, refused where the safe-radius lemma does not cover them.

    The centre's Gram–Schmidt coordinates τ_t are converted only below
    2^1000 (a skewed basis of the same lattice can make one astronomically
    large, past what a double holds, while fplll's own data is merely not
    finite).
    """
    r = len(B)
    _, (r_hat, mu_hat) = _gso(B)
    tau = [Fraction(a[r][t], 2 * d[t + 1]) for t in range(r)]
    if any(abs(v) > 2 ** 1000 for v in tau):
        fail(ctx, "the Gram–Schmidt coordinates of the centre are not finite in double precision")
    tau_hat = [float(v) for v in tau]
    if not all(math.isfinite(x) for x in r_hat + [m for row in mu_hat for m in row]):
        fail(ctx, "fplll's Gram–Schmidt data of the basis is not finite in double precision")
    if not all(x > 0 for x in r_hat):
        fail(ctx, "fplll's Gram–Schmidt norms of the basis are not all positive in double precision (an "
                  "ill-conditioned basis: the safe-radius lemma needs every r̂_j > 0)")
    if max(r_hat) > min(min(r_hat), float(radius)) * 2.0 ** MAX_SPREAD_EXPONENT:
        fail(ctx, f"the Gram–Schmidt norms and the radius spread over more than 2^{MAX_SPREAD_EXPONENT}: fplll's "
                  "normalisation would take them below the normal range of doubles, where the safe-radius lemma "
                  "does not hold")
    if tau_hat[r - 1] == round(tau_hat[r - 1]):
        fail(ctx, "the last Gram–Schmidt coordinate of the centre is an integer in double precision "
                  "(reorder the basis)")
    return r_hat, mu_hat, tau_hat


def _approx(x: Fraction) -> str:
    """x for a message: a double's repr, or its power of two past the range of doubles."""
    if abs(x) < 2 ** 1000:
        return repr(float(x))
    return f"about 2^{abs(x.numerator).bit_length() - x.denominator.bit_length()}"


def _gso(B):
    """(M, (r̂, μ̂)): fplll's Gram–Schmidt object of the basis B in double precision, and its data."""
    from fpylll import GSO, IntegerMatrix

    r = len(B)
    M = GSO.Mat(IntegerMatrix.from_matrix(B), float_type="double")
    M.update_gso()
    return M, ([M.get_r(j, j) for j in range(r)], [[M.get_mu(i, j) for j in range(i)] for i in range(r)])


def _enumerate(B, radius: float, tau_hat):
    """((r̂, μ̂), solutions, nodes) of fplll's enumeration of the ball of squared radius ``radius`` around τ̂."""
    from fpylll import Enumeration, EnumerationError
    from fpylll.fplll.enumeration import EvaluatorStrategy

    r = len(B)
    M, gso = _gso(B)
    E = Enumeration(M, nr_solutions=COMPILED_POINT_LIMIT + 1, strategy=EvaluatorStrategy.BEST_N_SOLUTIONS)
    try:
        sols = E.enumerate(0, r, radius, 0, target=tau_hat)
    except EnumerationError:           # fplll: "no solution found"
        sols = []
    # fplll's total sums the per-level 64-bit counts into an int (it wraps past 2^31, and is small again past
    # 2^32); the per-level counts, added here modulo 2^64, are exact
    return gso, [tuple(coords) for _, coords in sols], sum(E.get_nodes(level=j) for j in range(r)) % 2 ** 64


def _child(conn, B, radius, tau_hat, seconds) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))   # the kernel stops the child past it
    conn.send(_enumerate(B, radius, tau_hat))
    conn.close()


def _enumerate_apart(B, radius: float, tau_hat, seconds: int):
    """:func:`_enumerate` in a child process limited to ``seconds`` of CPU time; None if it did not finish."""
    methods = multiprocessing.get_all_start_methods()
    mp = multiprocessing.get_context("fork" if "fork" in methods else methods[0])
    receive, send = mp.Pipe(duplex=False)
    proc = mp.Process(target=_child, args=(send, B, radius, tau_hat, seconds), daemon=True)
    proc.start()
    send.close()
    try:
        # CPU time bounds the child; the wall clock only guards against a machine too loaded to give it that time
        if not receive.poll(60 + 20 * seconds):
            return None
        return receive.recv()
    except EOFError:                   # the child was stopped (its CPU limit) before it sent anything
        return None
    finally:
        receive.close()
        if proc.is_alive():
            proc.kill()
        proc.join()
