"""fplll's enumeration for lattice-cvp (reluid/checker/compiled_search.py) on small bases with known balls.

Each rejection of :func:`ball_points` by its exact message (so that a forged input is shown to be refused
by the check meant for it), the exact work it charges and what it records as searched, the dyadic
roundings of the safe-radius lemma on known values, the lemma's bound against the formula of
docs/mathematics.md §3 written out in exact rationals, and the child process: the CPU limit it sets,
what it sends back, and a child that dies leaving the claim not re-verified.  The enumeration runs in a
forked child, so its functions are also called here in this process.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import resource
import sys
from fractions import Fraction

import pytest

pytest.importorskip("fpylll")

import reluid.checker.compiled_search as cs  # noqa: E402
from reluid.checker.flipsets import _gram_schmidt  # noqa: E402
from reluid.checker.registry import Budget, Context, WorkLimit  # noqa: E402
from reluid.errors import CheckFailed  # noqa: E402
from reluid.model.network import Shallow  # noqa: E402

NET = Shallow.make([1, 1], [[1], [2]], [0, 0], [0]).to_network()
#: a basis of a rank-2 lattice in Z^4; its ball around t = proj(½·1) has R² = 87/130 and holds 0 only
B = [[1, 2, 0, -1], [0, 1, 3, 1]]
N = 4
U = Fraction(1, 1 << 96)


def ctx(limit=None, claim="c"):
    return Context(NET, claim, Budget() if limit is None else Budget(limit=limit))


def data(basis, n=N):
    """(d, a, r̂, μ̂, τ̂): the exact Gram–Schmidt data of the ball and the doubles fplll enumerates with."""
    d, a = _gram_schmidt(basis, n)
    r = len(basis)
    _, (r_hat, mu_hat) = cs._gso(basis)
    return d, a, r_hat, mu_hat, [float(Fraction(a[r][t], 2 * d[t + 1])) for t in range(r)]


def refused(basis, radius, nodes, message, n=N):
    d, a, *_ = data(basis, n)
    with pytest.raises(CheckFailed) as e:
        cs.ball_points(ctx(), basis, d, a, n, Fraction(radius), nodes)
    assert (e.value.claim, e.value.reason) == ("c", message)


def brute_force(basis, n, radius):
    """The coefficient vectors c (|c_j| ≤ 6) with ‖cB − t‖² ≤ radius, t = proj(½·1), exactly."""
    d, a = _gram_schmidt(basis, n)
    r = len(basis)
    tau = [Fraction(a[r][t], 2 * d[t + 1]) for t in range(r)]
    mu = [[Fraction(a[i][t], d[t + 1]) for t in range(i)] for i in range(r)]
    rex = [Fraction(d[t + 1], d[t]) for t in range(r)]
    out = set()
    for c in itertools.product(range(-6, 7), repeat=r):
        dist = sum(rex[t] * (c[t] + sum(c[i] * mu[i][t] for i in range(t + 1, r)) - tau[t]) ** 2 for t in range(r))
        if dist <= radius:
            out.add(c)
    return out


# ---- the dyadic roundings ------------------------------------------------------------

def test_upward_and_square_root_roundings_on_known_values():
    assert cs._up(Fraction(1, 3)) == Fraction(-(-(1 << 96) // 3), 1 << 96) > Fraction(1, 3)
    assert cs._up(Fraction(-1, 3)) == Fraction(-((1 << 96) // 3), 1 << 96) > Fraction(-1, 3)
    assert cs._up(Fraction(5, 1 << 96)) == Fraction(5, 1 << 96)          # a multiple of 2^-96 stays
    assert cs._up(Fraction(7, 2)) == Fraction(7, 2)
    assert cs._sqrt_up(Fraction(4)) == 2 + U                             # isqrt exact, one ulp above
    assert cs._sqrt_down(Fraction(4)) == 2
    assert cs._sqrt_down(Fraction(9, 4)) == Fraction(3, 2)
    for x in (Fraction(2), Fraction(1, 3), Fraction(10**30 + 7, 3), Fraction(1, 10**20)):
        lo, hi = cs._sqrt_down(x), cs._sqrt_up(x)
        assert lo * lo <= x < hi * hi and hi - lo <= 2 * U and (lo + U) ** 2 > x
    assert cs._sqrt_up(Fraction(1, 3)) == Fraction(math.isqrt(-(-(1 << 192) // 3)) + 1, 1 << 96)
    assert cs._sqrt_down(Fraction(1, 3)) == Fraction(math.isqrt((1 << 192) // 3), 1 << 96)


# ---- the safe radius -------------------------------------------------------------------

def rho_by_formula(basis, n, d, a, r_hat, mu_hat, tau_hat):
    """ρ of the lemma of docs/mathematics.md §3 in exact rationals, without the upward dyadic roundings."""
    r = len(basis)
    R2 = Fraction(n * d[r] - d[r + 1], 4 * d[r])
    rex = [Fraction(d[t + 1], d[t]) for t in range(r)]
    tau = [Fraction(a[r][t], 2 * d[t + 1]) for t in range(r)]
    G = [[sum(x * y for x, y in zip(b, c)) for c in basis] for b in basis]
    Gi = _inverse(G)
    ct = [sum(Gi[j][i] * sum(basis[i]) for i in range(r)) / 2 for j in range(r)]      # t = Σ ct_j b_j
    X = [abs(ct[j]) + math.sqrt(R2) * math.sqrt(Gi[j][j]) for j in range(r)]        # floats: compared loosely
    X = [Fraction(x) for x in X]
    u = Fraction(1, 1 << 53)
    tiny = Fraction(1, 1 << 1074)
    gamma = (r + 1) * u / (1 - (r + 1) * u)
    eps, lin, quad = Fraction(0), Fraction(0), Fraction(0)
    for j in range(r):
        size = abs(Fraction(tau_hat[j])) + sum(X[i] * abs(Fraction(mu_hat[i][j])) for i in range(j + 1, r))
        err = abs(Fraction(tau_hat[j]) - tau[j]) + sum(X[i] * abs(Fraction(mu_hat[i][j]) - Fraction(a[i][j], d[j + 1]))
                                                        for i in range(j + 1, r))
        e = gamma * size + err + (r + 1) * tiny
        rh = Fraction(r_hat[j])
        eps = max(eps, rh / rex[j] - 1)
        lin += e * rh / Fraction(math.sqrt(rex[j]))
        quad += e * e * rh
    floor = (8 * r + 8) * tiny * Fraction(2) ** math.frexp(max(r_hat))[1]
    inflate = 1 / (1 - (4 * r + 4) * u)
    return inflate * ((1 + eps) * R2 + 2 * Fraction(math.sqrt(R2)) * lin + quad + floor), R2


def _inverse(G):
    r = len(G)
    M = [[Fraction(x) for x in row] + [Fraction(int(i == j)) for j in range(r)] for i, row in enumerate(G)]
    for t in range(r):
        p = next(i for i in range(t, r) if M[i][t])
        M[t], M[p] = M[p], M[t]
        M[t] = [x / M[t][t] for x in M[t]]
        for i in range(r):
            if i != t and M[i][t]:
                M[i] = [x - M[i][t] * y for x, y in zip(M[i], M[t])]
    return [row[r:] for row in M]


@pytest.mark.parametrize("shift", [0, 1, -1])
def test_the_safe_radius_is_the_lemma_bound(shift):
    """ρ agrees with the lemma's formula to a relative 2^-40 (the roundings are upward and tiny), with fplll's
    doubles and with doubles moved off the exact values (the error terms then dominate)."""
    basis = [[1, 2, 0, -1, 1], [0, 1, 3, 1, -2], [2, 0, 1, 1, 1]]
    n = 5
    d, a, r_hat, mu_hat, tau_hat = data(basis, n)
    r_hat = [x * (1 + shift * 2.0 ** -20 * (j + 1)) for j, x in enumerate(r_hat)]
    mu_hat = [[x + shift * 2.0 ** -30 * (i + j + 1) for j, x in enumerate(row)] for i, row in enumerate(mu_hat)]
    tau_hat = [x - shift * 2.0 ** -25 * (j + 1) for j, x in enumerate(tau_hat)]
    rho = cs.safe_radius(basis, d, a, n, r_hat, mu_hat, tau_hat)
    want, R2 = rho_by_formula(basis, n, d, a, r_hat, mu_hat, tau_hat)
    assert R2 < rho and abs(rho - want) <= want * Fraction(1, 1 << 40)
    if shift:
        assert rho - R2 > R2 * Fraction(1, 1 << 24)          # the moved doubles are charged, not ignored


def test_the_safe_radius_of_exact_doubles_is_rounding_sized():
    d, a, r_hat, mu_hat, tau_hat = data(B)
    rho = cs.safe_radius(B, d, a, N, r_hat, mu_hat, tau_hat)
    R2 = Fraction(87, 130)
    assert R2 < rho < R2 * (1 + Fraction(1, 1 << 40))
    want, _ = rho_by_formula(B, N, d, a, r_hat, mu_hat, tau_hat)
    assert abs(rho - want) <= R2 * Fraction(1, 1 << 80)


def test_a_coefficient_bound_of_two_to_the_52_is_refused(monkeypatch):
    basis = [B[0], [x + (1 << 60) * y for x, y in zip(B[1], B[0])]]
    with pytest.raises(ArithmeticError) as e:
        d, a, r_hat, mu_hat, tau_hat = data(basis)
        cs.safe_radius(basis, d, a, N, r_hat, mu_hat, tau_hat)
    assert str(e.value) == ("a coefficient of the ball may reach 5.3487566154596794e+17 >= 2^52, past what fplll's double "
                            "coefficients step through exactly")

    def bound(*args):
        raise ArithmeticError("a coefficient of the ball may reach 2^60")

    monkeypatch.setattr(cs, "safe_radius", bound)
    refused(B, 10, 100, "a coefficient of the ball may reach 2^60 (docs/mathematics.md §3)")


# ---- fplll present, recent, large enough ---------------------------------------------

def test_fplll_is_found_and_its_version_read():
    from fpylll import config

    assert cs.have_fplll()
    assert cs._fplll_version() == tuple(int(v) for v in config.version.split(".")[:3]) >= cs.FPLLL_MIN_VERSION


def test_without_fpylll(monkeypatch):
    monkeypatch.setitem(sys.modules, "fpylll", None)            # import fpylll raises ImportError
    assert cs.have_fplll() is False
    with pytest.raises(CheckFailed) as e:
        cs._require_fplll(ctx(), 2)
    assert e.value.reason == "a lattice-cvp certificate is checked by fplll's enumeration: pip install reluid[lattice]"


def test_an_old_fplll_is_refused(monkeypatch):
    monkeypatch.setattr(cs, "_fplll_version", lambda: (5, 4, 1))
    with pytest.raises(CheckFailed) as e:
        cs._require_fplll(ctx(), 2)
    assert e.value.reason == ("a lattice-cvp certificate needs fplll >= 5.4.2 (its CVP enumeration must walk every "
                              "level both ways), not 5.4.1")
    monkeypatch.setattr(cs, "_fplll_version", lambda: (5, 4, 2))
    cs._require_fplll(ctx(), 2)


def test_the_dimension_limit_of_fplll():
    from fpylll import config

    top = config.max_enum_dim
    cs._require_fplll(ctx(), top - 1)
    with pytest.raises(CheckFailed) as e:
        cs._require_fplll(ctx(), top)
    assert e.value.reason == f"fplll enumerates fewer than {top} dimensions, not {top}"


# ---- ball_points: the answer, the work, the searches ----------------------------------

def test_the_points_of_the_ball_and_the_work_charged():
    d, a, *_ = data(B)
    c = ctx()
    got = cs.ball_points(c, B, d, a, N, Fraction(10), 100)
    assert set(got) == brute_force(B, N, 10) and len(got) == 4
    assert brute_force(B, N, 10) == {(-1, 0), (0, 0), (0, 1), (1, 0)}
    assert c.budget.used == 2 * 2 * 8 + 100 // 16 + 1
    assert c.budget.searches == ["the lattice points of a ball, by fplll's enumeration (100 nodes)"]
    for radius in (Fraction(30), Fraction(100)):
        got = cs.ball_points(ctx(), B, d, a, N, radius, 1000)
        assert set(got) == brute_force(B, N, radius) and len(got) == len(set(got))
        assert all(type(v) is int for p in got for v in p)


def test_each_charge_is_taken_before_its_work():
    d, a, *_ = data(B)
    exact = 32 + 10**6 // 16 + 1
    assert cs.ball_points(ctx(exact), B, d, a, N, Fraction(10), 10**6)
    with pytest.raises(WorkLimit) as e:
        cs.ball_points(ctx(exact - 1), B, d, a, N, Fraction(10), 10**6)
    assert e.value.reason.startswith("fplll's enumeration of 1,000,000 nodes (searched by the checker) takes 62,501 "
                                     "steps, past the checker's work limit (62,532 steps per certificate, 32 used")
    with pytest.raises(WorkLimit) as e:
        cs.ball_points(ctx(31), B, d, a, N, Fraction(10), 10**6)
    assert e.value.reason.startswith("the safe radius of the compiled enumeration takes 32 steps")


def test_the_recorded_node_count_bounds_the_enumeration():
    d, a, *_ = data(B)
    assert cs.ball_points(ctx(), B, d, a, N, Fraction(10), 5) == cs.ball_points(ctx(), B, d, a, N, Fraction(10), 50)
    refused(B, 10, 4, "the enumeration needs 5 nodes, more than the certificate's 4")
    assert cs.ball_points(ctx(), B, d, a, N, Fraction(1), 1) == [(0, 0)]
    refused(B, 1, 0, "the enumeration needs 1 nodes, more than the certificate's 0")
    for nodes in (-1, cs.COMPILED_NODE_LIMIT + 1):
        refused(B, 1, nodes, f"nodes = {nodes} is outside [0, {cs.COMPILED_NODE_LIMIT}]")


def test_the_radius_must_be_a_double_in_range():
    for radius in (-1, Fraction(-1, 1 << 60), 2 ** 1000 + 2 ** 948):
        refused(B, radius, 100, "the radius must be a nonnegative double")
    refused(B, Fraction(1, 3), 100, "the radius must be a double (the enumeration runs with it exactly)")
    d, a, r_hat, mu_hat, tau_hat = data(B)
    rho = cs.safe_radius(B, d, a, N, r_hat, mu_hat, tau_hat)
    refused(B, Fraction(87 / 130), 100, f"the radius {87 / 130!r} is below the proved safe radius "
            f"{float(rho)!r} (docs/mathematics.md §3): the enumeration could miss a point "
            "of the ball")
    refused(B, 0, 100, SPREAD)                                   # radius 0: an unbounded spread
    refused(B, Fraction(1, 2), 100, "the radius 0.5 is below the proved safe radius 0.669230769230771 "
            "(docs/mathematics.md §3): the enumeration could miss a point of the ball")
    with pytest.raises(CheckFailed, match="more nodes than|needs .* nodes"):   # 2^1000 itself is in range
        d, a, *_ = data(B)
        cs.ball_points(ctx(), B, d, a, N, Fraction(2 ** 1000), 100)


def test_gram_schmidt_data_that_fplll_cannot_use_are_refused():
    refused([[10 ** 200, 0], [0, 1]], 10, 100, "fplll's Gram–Schmidt data of the basis is not finite in double precision", 2)
    ill = [B[0], [x + (2 ** 28 + 1) * y for x, y in zip(B[1], B[0])]]       # the same lattice; r̂_1 = -64.0
    assert cs._gso(ill)[1][0] == [6.0, -64.0]
    refused(ill, 10, 100, "fplll's Gram–Schmidt norms of the basis are not all positive in double precision (an "
            "ill-conditioned basis: the safe-radius lemma needs every r̂_j > 0)")


SPREAD = ("the Gram–Schmidt norms and the radius spread over more than 2^962: fplll's normalisation would take them "
          "below the normal range of doubles, where the safe-radius lemma does not hold")


def test_the_spread_of_norms_and_radius_is_bounded():
    top = cs._gso(B)[1][0][1]                                        # max r̂ = 65/6 in double
    assert top == max(cs._gso(B)[1][0])
    refused(B, Fraction(top) / 2 ** 962 / 2, 100, SPREAD)
    below = "is below the proved safe radius"
    for radius in (Fraction(top) / 2 ** 962, Fraction(top) / 2 ** 961):          # at the bound: not refused by it
        d, a, *_ = data(B)
        with pytest.raises(CheckFailed, match=below):
            cs.ball_points(ctx(), B, d, a, N, radius, 100)
    refused([[1, 0], [0, 2 ** 490]], 10, 100, SPREAD, 2)                   # r̂ = 1 and 2^980
    d, a, *_ = data([[1, 0], [0, 2 ** 480]], 2)                            # r̂ = 1 and 2^960: within the bound
    with pytest.raises(CheckFailed, match=below):
        cs.ball_points(ctx(), [[1, 0], [0, 2 ** 480]], d, a, 2, Fraction(2), 100)


def test_an_integral_last_centre_coordinate_is_refused():
    basis = [[1, 1, 0, 0], [1, -1, 0, 0]]                            # τ̂ = (1/2, 0)
    assert data(basis)[4] == [0.5, 0.0]
    refused(basis, 10, 100, "the last Gram–Schmidt coordinate of the centre is an integer in double precision "
            "(reorder the basis)")
    swapped = basis[::-1]                                            # τ̂ = (0, 1/2): only the last one counts
    assert data(swapped)[4] == [0.0, 0.5]
    d, a, *_ = data(swapped)
    assert set(cs.ball_points(ctx(), swapped, d, a, N, Fraction(2), 100)) == brute_force(swapped, N, 2)


# ---- the child process and what it sends back -------------------------------------------

def test_a_child_that_does_not_finish_leaves_the_claim_not_re_verified(monkeypatch):
    calls = []

    def stopped(*args):
        calls.append(args)

    monkeypatch.setattr(cs, "_enumerate_apart", stopped)
    d, a, _, _, tau_hat = data(B)
    for nodes, seconds in ((0, 1), (100, 2), (5 * 10 ** 6, 2), (5 * 10 ** 6 + 1, 3)):
        with pytest.raises(WorkLimit) as e:
            cs.ball_points(Context(NET, "", Budget()), B, d, a, N, Fraction(10), nodes)
        assert (e.value.claim, e.value.reason) == (
            "claim", f"fplll's enumeration ran past the {seconds} CPU second(s) that the certificate's {nodes:,} "
                     "nodes allow: not re-verified (the ball may need more nodes than it records)")
        assert calls[-1] == (B, 10.0, tau_hat, seconds) and type(calls[-1][1]) is float


def test_what_the_child_sends_back_is_checked(monkeypatch):
    d, a, r_hat, mu_hat, tau_hat = data(B)
    honest = cs._enumerate(B, 10.0, tau_hat)
    other = "fplll's Gram–Schmidt data differ between two runs on the same basis"
    for answer, message in (
            (((r_hat, [[], [0.25]]), honest[1], honest[2]), other),
            (((r_hat[::-1], mu_hat), honest[1], honest[2]), other),
            ((honest[0], honest[1], -1), "the enumeration needs -1 nodes, more than the certificate's 100"),
            ((honest[0], honest[1], 101), "the enumeration needs 101 nodes, more than the certificate's 100"),
            ((honest[0], [(0.0, 0.0), (1.0, 0.0), (0.0, 0.5)], 1), "fplll returned a non-integral coefficient vector"),
            ((honest[0], [(0.5, 0.0)], 1), "fplll returned a non-integral coefficient vector")):
        monkeypatch.setattr(cs, "_enumerate_apart", lambda *args, answer=answer: answer)
        with pytest.raises(CheckFailed) as e:
            cs.ball_points(ctx(), B, d, a, N, Fraction(10), 100)
        assert e.value.reason == message
    monkeypatch.setattr(cs, "_enumerate_apart", lambda *args: (honest[0], [(2.0, -1.0), (0.0, 0.0)], 100))
    assert cs.ball_points(ctx(), B, d, a, N, Fraction(10), 100) == [(2, -1), (0, 0)]


def test_the_point_limit(monkeypatch):
    d, a, *_ = data(B)
    monkeypatch.setattr(cs, "COMPILED_POINT_LIMIT", 4)                      # the ball of radius 10 holds 4 points
    assert len(cs.ball_points(ctx(), B, d, a, N, Fraction(10), 100)) == 4
    monkeypatch.setattr(cs, "COMPILED_POINT_LIMIT", 3)
    with pytest.raises(CheckFailed) as e:
        cs.ball_points(ctx(), B, d, a, N, Fraction(10), 100)
    assert e.value.reason == "the ball holds more than 3 lattice points"
    assert len(cs._enumerate(B, 100.0, data(B)[4])[1]) == 4                 # fplll is asked for limit + 1 only


def test_the_enumeration_in_this_process():
    d, a, r_hat, mu_hat, tau_hat = data(B)
    gso, sols, nodes = cs._enumerate(B, 10.0, tau_hat)
    assert gso == (r_hat, mu_hat) == ([6.0, 65 / 6], [[], [1 / 6]])
    assert {tuple(int(v) for v in s) for s in sols} == brute_force(B, N, 10) and len(sols) == 4
    assert nodes == 5
    assert cs._enumerate(B, 0.1, tau_hat) == ((r_hat, mu_hat), [], 0)        # an empty ball: no solution, no error
    assert len(cs._enumerate(B, 100.0, tau_hat)[1]) == len(brute_force(B, N, 100)) == 39


def test_the_child_limits_its_cpu_time_and_sends_the_enumeration(monkeypatch):
    limits = []
    monkeypatch.setattr(resource, "setrlimit", lambda *args: limits.append(args))
    receive, send = multiprocessing.Pipe(duplex=False)
    tau_hat = data(B)[4]
    cs._child(send, B, 10.0, tau_hat, 7)
    assert limits == [(resource.RLIMIT_CPU, (7, 8))]
    assert receive.recv() == cs._enumerate(B, 10.0, tau_hat)
    assert send.closed
    receive.close()


def test_the_enumeration_apart_returns_the_childs_answer():
    tau_hat = data(B)[4]
    assert cs._enumerate_apart(B, 10.0, tau_hat, 5) == cs._enumerate(B, 10.0, tau_hat)


def _dies(conn, *args):
    conn.close()
    raise SystemExit(0)


def test_a_child_that_dies_before_it_sends_is_none(monkeypatch):
    monkeypatch.setattr(cs, "_child", _dies)
    assert cs._enumerate_apart(B, 10.0, data(B)[4], 5) is None
