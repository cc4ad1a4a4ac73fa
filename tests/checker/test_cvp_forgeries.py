"""Forged ``lattice-cvp`` certificates (docs/mathematics.md §3): a false "no flip set" claim must be rejected.

PLANTED has the flip set {1, 2} (neurons 1 and 2 share a_i = (1, 2) with output weights 3 and −3), so its
flip vector x = e_1 + e_2 lies on the sphere ‖x − t‖² = R² of the ½-shifted ball: every certificate claiming
no flip set for it is false, and each forgery below (a radius, a basis of the same lattice, a sublattice, a
lying inverse, lying points or nodes, doubles out of range) must be refused.  CLEAN moves one output weight
(−3 to −4) and has no flip set: its honest certificate is accepted, and a lie about its node count is not.
The certificates are built from the producer's kernel lattice; only the checker's answer is tested.
"""

from __future__ import annotations

import itertools
import json
import math
import platform
import random
from fractions import Fraction

import pytest

pytest.importorskip("fpylll")

import reluid.checker.compiled_search as compiled  # noqa: E402
from reluid.analysis.shallow.flipsets._problem import Clock, Problem  # noqa: E402
from reluid.analysis.shallow.flipsets.lattice import (_cvp_certificate, _integral_inverse_columns,  # noqa: E402
                                                      _kernel_lattice)
from reluid.analysis.shallow.flipsets.rank import profile  # noqa: E402
from reluid.checker.flipsets import _gram_schmidt  # noqa: E402
from reluid.checker.registry import VERIFIERS, Context, WorkLimit  # noqa: E402
from reluid.errors import CheckFailed  # noqa: E402
from reluid.model.network import Shallow  # noqa: E402

_A = [[1, 2], [1, 2], [2, -1], [1, 1], [3, 1], [-1, 4], [2, 3], [5, 1]]
PLANTED = Shallow.make([3, -3, 2, 5, -7, 4, 1, -2], _A, list(range(8)), [0])
CLEAN = Shallow.make([3, -4, 2, 5, -7, 4, 1, -2], _A, list(range(8)), [0])
FLIP = (1, 1, 0, 0, 0, 0, 0, 0)

#: a basis of PLANTED's kernel lattice found by a hill climb over row operations b_i += k·b_j that maximised how
#: far fplll's double partial distance of the flip point goes into the proved margin: (D̂ − R²)/(ρ − R²) ≈ 0.55
CLIMBED = [[-2, 4, -3, 6, 0, 0, 0, 0], [-1, 0, -1, 2, 1, 0, -1, -2], [1, -1, 1, -2, 0, 0, 0, 0],
           [-184113, 340394, -299393, 558451, -36910, -32626, 78847, 108447],
           [-19583, 18711, -20912, 41903, 3757, 67, -3840, -7586], [-702, 803, -801, 1605, 104, 2, -107, -210]]


def _has_flip_set(theta) -> bool:
    return any(all(sum(theta.M[j][i] * theta.A[i][l] for i in F) == 0 for j in range(theta.k) for l in range(theta.m))
               for size in range(1, theta.n + 1) for F in itertools.combinations(range(theta.n), size))


def _kernel(theta):
    prob = Problem(theta)
    clock = Clock(None)
    prof = profile(prob, clock)
    B, T = _kernel_lattice(prob, prof, clock)
    return prob, prof, [list(b) for b in B], [list(c) for c in _integral_inverse_columns(T, len(B))]


@pytest.fixture(scope="module")
def planted():
    assert _has_flip_set(PLANTED) and not _has_flip_set(CLEAN)
    _, prof, B, C = _kernel(PLANTED)
    return prof, B, C


def check(theta, ev):
    return VERIFIERS["no-flip-set"](json.loads(json.dumps(ev)), Context(theta.to_network(), "c"))


def rejects(theta, ev, match):
    with pytest.raises(CheckFailed, match=match):
        check(theta, ev)


def evidence(prof, B, C, radius, points=(), nodes=10**6):
    return {"method": "lattice-cvp", "p": prof.p, "basis": B, "inverse": C, "rank_rows": list(prof.rows),
            "rank_cols": list(prof.pivots), "radius": str(radius), "points": [list(c) for c in points],
            "nodes": nodes}


def coefficients(x, C):
    """c with cB = x (B C = I)."""
    return [sum(v * row[j] for v, row in zip(x, C)) for j in range(len(C[0]))]


def mixed(B, C, K, i, j):
    """b_i += K·b_j, and the inverse's column j −= K·column i: the same lattice, B C = I kept."""
    B = [list(b) for b in B]
    C = [list(c) for c in C]
    B[i] = [x + K * y for x, y in zip(B[i], B[j])]
    for row in C:
        row[j] -= K * row[i]
    return B, C


def double_data(B, n):
    """(ρ, R², τ̂): the proved safe bound, the exact squared radius and the centre fplll is given."""
    d, a = _gram_schmidt(B, n)
    r = len(B)
    _, (r_hat, mu_hat) = compiled._gso(B)
    tau_hat = [float(Fraction(a[r][t], 2 * d[t + 1])) for t in range(r)]
    return (compiled.safe_radius(B, d, a, n, r_hat, mu_hat, tau_hat), Fraction(n * d[r] - d[r + 1], 4 * d[r]),
            tau_hat)


def least_double_at_least(x: Fraction) -> Fraction:
    f = float(x)
    return Fraction(f if Fraction(f) >= x else math.nextafter(f, math.inf))


def model_distance(B, n, c) -> float:
    """fplll's double partial distance D̂_0 of the leaf c, as §3 models it: centre τ̂_j − Σ_{i>j} c_i μ̂_ij summed
    from the top, α̂ = c_j − ĉ_j, D̂_j = D̂_{j+1} + α̂²·r̂_j, one rounding per operation (unnormalised)."""
    _, (r_hat, mu_hat) = compiled._gso(B)
    tau_hat = double_data(B, n)[2]
    D = 0.0
    for j in range(len(B) - 1, -1, -1):
        centre = tau_hat[j]
        for i in range(len(B) - 1, j, -1):
            centre = centre - float(c[i]) * mu_hat[i][j]
        alpha = float(c[j]) - centre
        D = D + (alpha * alpha) * r_hat[j]
    return D


def met(B, radius, n, seconds=10):
    """The coefficient vectors fplll's enumeration (run as the checker runs it) meets; None if it ran past
    ``seconds`` of CPU time."""
    out = compiled._enumerate_apart(B, float(radius), double_data(B, n)[2], seconds)
    return None if out is None else {tuple(int(v) for v in c) for c in out[1]}


# ---- baseline ---------------------------------------------------------------------

def test_the_honest_certificate_of_a_network_without_flip_set_is_accepted():
    prob, prof, B, C = _kernel(CLEAN)
    res = _cvp_certificate(prob, prof, B, C, Clock(None))
    ev = json.loads(json.dumps(dict(res.evidence)))
    assert res.outcome.value == "none" and ev["method"] == "lattice-cvp"
    assert "none a flip set" in check(CLEAN, ev)
    rejects(CLEAN, {**ev, "nodes": ev["nodes"] - 1}, "more than the certificate")     # the node count lies
    rejects(PLANTED, ev, "kernel")                                                     # moved to PLANTED


# ---- the radius ----------------------------------------------------------------------

def test_the_least_safe_radius_still_meets_the_flip_point(planted):
    """ρ̂ = the least double ≥ ρ: the checker's own enumeration meets x, whatever the certificate lists."""
    prof, B, C = planted
    rho, R2, _ = double_data(B, PLANTED.n)
    radius = least_double_at_least(rho)
    points = met(B, radius, PLANTED.n)
    assert tuple(coefficients(FLIP, C)) in points and R2 < rho <= radius
    rejects(PLANTED, evidence(prof, B, C, radius, points - {tuple(coefficients(FLIP, C))}), "does not list")
    rejects(PLANTED, evidence(prof, B, C, radius, points), "is a flip set")
    rejects(PLANTED, evidence(prof, B, C, radius, points | {(5,) * len(B)}), "does not meet")


def test_a_radius_below_the_proved_bound_is_refused(planted):
    prof, B, C = planted
    rho, R2, _ = double_data(B, PLANTED.n)
    below = Fraction(math.nextafter(float(least_double_at_least(rho)), 0))
    for radius in (below, least_double_at_least(R2), Fraction(1), Fraction(1, 1 << 40)):
        rejects(PLANTED, evidence(prof, B, C, radius), "safe radius")
    rejects(PLANTED, evidence(prof, B, C, 0), "spread")                 # 0 takes fplll's radius below the normal range
    rejects(PLANTED, evidence(prof, B, C, "-0"), "radius")
    rejects(PLANTED, evidence(prof, B, C, "1/3"), "double")
    rejects(PLANTED, evidence(prof, B, C, 2**1000 + 2**948), "nonnegative double")
    rejects(PLANTED, evidence(prof, B, C, "-1"), "nonnegative double")


def test_a_huge_radius_is_never_an_acceptance(planted):
    """A ball with more than 4096 points is refused; one that needs more nodes than recorded is stopped."""
    prof, B, C = planted
    rejects(PLANTED, evidence(prof, B, C, 100, nodes=10**7), "more than 4096")
    with pytest.raises((CheckFailed, WorkLimit)):
        check(PLANTED, evidence(prof, B, C, 2**40, nodes=1000))


# ---- fplll's arithmetic against the model of §3 ----------------------------------------

@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="bit-exact only without fused multiply-adds")
def test_fplll_computes_the_partial_distances_of_the_model_bit_for_bit(planted):
    """The flip point is met at the radius D̂_0 the §3 model gives it and missed at the next double below, on
    bases of the same lattice from mild to skewed: fplll does what the safe-radius lemma assumes (on x86-64, where
    no fused multiply-add is used; the lemma itself allows them)."""
    prof, B, C = planted
    rng = random.Random(2)
    compared = 0
    for trial in range(10):
        B2, C2 = B, C
        for _ in range(rng.randint(1, 6)):
            B2, C2 = mixed(B2, C2, rng.choice([-1, 1]) * rng.randint(1, 1 << rng.randint(1, 20)),
                           *rng.sample(range(len(B)), 2))
        _, (r_hat, _) = compiled._gso(B2)
        c = tuple(coefficients(FLIP, C2))
        D = model_distance(B2, PLANTED.n, c)
        if not (min(r_hat) > 0 and math.isfinite(D) and D < 16):
            continue
        at, below = met(B2, D, PLANTED.n, 1), met(B2, math.nextafter(D, 0), PLANTED.n, 1)
        if at is None or below is None:                  # a skewed basis whose tree is too large to walk here
            continue
        assert c in at and c not in below
        compared += 1
    assert compared >= 8


def test_the_hill_climbed_basis_stays_inside_the_margin(planted):
    """The basis whose flip point uses the most of the proved margin found (about 55%) is still refused, and its
    modelled D̂ lies strictly between R² and ρ."""
    prof, B, C = planted
    C2 = _inverse(CLIMBED, B, C)
    rho, R2, _ = double_data(CLIMBED, PLANTED.n)
    D = Fraction(model_distance(CLIMBED, PLANTED.n, coefficients(FLIP, C2)))
    assert R2 < D < rho and (D - R2) / (rho - R2) > Fraction(1, 2)
    radius = least_double_at_least(rho)
    rejects(PLANTED, evidence(prof, CLIMBED, C2, radius, [[0] * len(B)]), "does not list")


def _inverse(B2, B, C):
    """C2 with B2 C2 = I for another basis B2 = T B of the lattice of B (B C = I): C2 = C T⁻¹, T = B2 C."""
    from flint import fmpz_mat

    T = fmpz_mat(B2) * fmpz_mat(C)
    assert (T * fmpz_mat(B)).tolist() == B2 and abs(T.det()) == 1
    Ti = T.inv()
    C2 = fmpz_mat(C) * fmpz_mat([[int(Ti[i, j].p) for j in range(Ti.ncols())] for i in range(Ti.nrows())])
    return [[int(v) for v in row] for row in C2.tolist()]


def test_ill_conditioned_bases_of_the_same_lattice_are_refused(planted):
    """Random row operations with multipliers up to 2^40 keep the lattice and B C = I: whichever guard refuses the
    basis (r̂ ≤ 0, a coefficient bound past 2^52, the node count), none is accepted at its least safe radius."""
    prof, B, C = planted
    rng = random.Random(2)
    enumerated = 0
    for trial in range(16):
        B2, C2 = B, C
        for _ in range(rng.randint(1, 8)):
            B2, C2 = mixed(B2, C2, rng.choice([-1, 1]) * rng.randint(1, 1 << rng.randint(1, 40)),
                           *rng.sample(range(len(B)), 2))
        try:
            rho = double_data(B2, PLANTED.n)[0]
        except (ArithmeticError, ValueError):                # not finite, or a coefficient bound past 2^52
            rho = Fraction(1)
        radius = least_double_at_least(rho) if rho <= 2**1000 else Fraction(1)
        with pytest.raises((CheckFailed, WorkLimit)) as e:
            check(PLANTED, evidence(prof, B2, C2, radius, [[0] * len(B)], nodes=10**5))
        enumerated += "does not list" in str(e.value)
    assert enumerated >= 4


def test_doubles_out_of_range_are_refused_in_one_line(planted):
    """b_0 += 2^K·b_1: with K = 600 fplll's Gram–Schmidt data is infinite; with K = 1100 a centre coordinate is
    past the range of doubles too (it raised OverflowError in the checker before it was refused)."""
    prof, B, C = planted
    for K, match in ((600, "Gram–Schmidt data of the basis is not finite"), (1100, "centre are not finite")):
        B2, C2 = mixed(B, C, 2**K, 0, 1)
        for radius in (2, 2**1000):
            rejects(PLANTED, evidence(prof, B2, C2, radius), match)


def test_an_integral_top_centre_coordinate_is_refused(planted):
    """A basis of the same lattice whose last coefficient of t is an integer (b_j −= v_j·b_last)."""
    prof, B, C = planted
    from flint import fmpz_mat

    r = len(B)
    Bz = fmpz_mat(B)
    ct = (Bz * Bz.transpose()).inv() * fmpz_mat([[sum(b)] for b in B])
    c = [Fraction(int(ct[j, 0].p), 2 * int(ct[j, 0].q)) for j in range(r)]
    D = math.lcm(*(x.denominator for x in c))
    Dc = [int(x * D) for x in c]
    j = next(j for j in range(r - 1) if math.gcd(Dc[j], D) == 1)
    v = (-Dc[r - 1] * pow(Dc[j], -1, D)) % D                      # c_{r−1} + v·c_j is an integer
    B2, C2 = mixed(B, C, -v, j, r - 1)
    assert double_data(B2, PLANTED.n)[2][r - 1].is_integer()
    rejects(PLANTED, evidence(prof, B2, C2, 4), "integer in double precision")


# ---- the lattice -----------------------------------------------------------------------

def test_a_sublattice_that_misses_the_flip_point_is_refused(planted):
    """x = b_0 here; 2·b_0 spans a sublattice without x, and no integral inverse exists: each lie is caught."""
    prof, B, C = planted
    assert tuple(B[0]) == FLIP
    B2 = [[2 * v for v in B[0]]] + B[1:]
    halved = [[row[0] // 2] + row[1:] for row in C]
    for C2 in (C, halved):
        rejects(PLANTED, evidence(prof, B2, C2, 4, [[0] * len(B)]), "saturated")
    # without b_0 the rank claim needs an (n − r + 1)-minor of U, which has only k·m = 2 rows
    dropped = evidence(prof, B[1:], [row[1:] for row in C], 4)
    rejects(PLANTED, dropped, "rank_rows has 2 entries, expected 3")
    rejects(PLANTED, {**dropped, "rank_rows": [0, 1, 1], "rank_cols": list(prof.pivots) + [1]}, "rank_rows")


def test_bases_with_dependent_zero_or_foreign_vectors_are_refused(planted):
    prof, B, C = planted
    rejects(PLANTED, evidence(prof, [B[0], B[0]] + B[2:], C, 4), "saturated")
    rejects(PLANTED, evidence(prof, [[0] * 8] + B[1:], C, 4), "saturated")
    foreign = [list(b) for b in B]
    foreign[2][5] += 1
    rejects(PLANTED, evidence(prof, foreign, C, 4), "kernel")
    rejects(PLANTED, evidence(prof, B + [B[0]], [row + [0] for row in C], 4), "rank_rows|rank_cols|length")


def test_a_forgery_inside_a_separation_split_is_refused(planted):
    """y = 0 scores every neuron 0 ≤ τ = 0, so the rest is all of them and the forged sub-certificate decides."""
    prof, B, C = planted
    rho = double_data(B, PLANTED.n)[0]
    sub = evidence(prof, B, C, least_double_at_least(rho), [[0] * len(B)])
    ev = {"method": "separation-split", "y": [[0, 0]], "rest": list(range(8)), "sub": sub}
    rejects(PLANTED, ev, "does not list")


# ---- planted flip sets of every shape, at the least safe radius ---------------------------

def _planted_networks(seed, count):
    """(θ, F): random small networks with a planted flip set F, of every shape the ball must hold: a dead
    neuron (F = {i}, m_i = 0), a constant one (a_i = 0), all neurons (x = 1, so 1 ∈ ker U and R² = n/4), and a
    random subset (its last row of A chosen so that Σ_F m_i a_i = 0)."""
    rng = random.Random(seed)
    for t in range(count):
        n, m = rng.randint(6, 12), rng.randint(1, 2)
        v = [rng.choice([-3, -2, -1, 1, 2, 3]) for _ in range(n)]
        A = [[rng.randint(-4, 4) or 1 for _ in range(m)] for _ in range(n)]
        shape = t % 4
        F = {0: [rng.randrange(n)], 1: [rng.randrange(n)], 2: list(range(n))}.get(shape) or rng.sample(range(n), 3)
        if shape == 0:
            v[F[0]] = 0
        elif shape == 1:
            A[F[0]] = [0] * m
        else:
            A[F[-1]] = [-Fraction(sum(v[i] * A[i][l] for i in F[:-1]), v[F[-1]]) for l in range(m)]
        yield Shallow.make(v, A, list(range(n)), [0]), F


def test_planted_flip_sets_are_met_at_the_least_safe_radius():
    """Whatever the shape of the planted flip set, fplll's enumeration at the least double ≥ ρ meets a flip set,
    so the certificate listing every other point it meets is refused."""
    tried = 0
    for theta, F in _planted_networks(5, 24):
        assert _has_flip_set(theta)
        try:
            _, prof, B, C = _kernel(theta)
        except ArithmeticError:
            continue
        B, C = _non_integral_top(theta, B, C)
        if B is None:
            continue
        radius = least_double_at_least(double_data(B, theta.n)[0])
        points = met(B, radius, theta.n)
        flips = {c for c in points if compiled_support(c, B)}
        assert flips, (theta, F)
        rejects(theta, evidence(prof, B, C, radius, points - flips), "does not list")
        tried += 1
    assert tried >= 22


def _non_integral_top(theta, B, C):
    """The basis rotated (and its inverse's columns with it) until the top centre coordinate is not an integer
    (the checker refuses an integral one); (None, None) if no rotation will do."""
    for s in range(len(B)):
        B2, C2 = B[s:] + B[:s], [row[s:] + row[:s] for row in C]
        if not double_data(B2, theta.n)[2][-1].is_integer():
            return B2, C2
    return None, None


def compiled_support(c, B):
    """Whether cB is ±(a nonzero 0/1 vector)."""
    x = [sum(ci * b[t] for ci, b in zip(c, B)) for t in range(len(B[0]))]
    return any(x) and (set(x) <= {0, 1} or set(x) <= {0, -1})


def test_a_one_dimensional_kernel_is_enumerated_on_both_sides():
    """n = 2, one shared a_i with opposite weights: L = Z·(1, 1), t = ½·(1, 1), and the ball {0, 1} (or {0, −1}
    for the basis −(1, 1)) holds the flip point whichever sign the basis takes."""
    theta = Shallow.make([2, -2], [[1, 3], [1, 3]], [0, 1], [0])
    _, prof, B, C = _kernel(theta)
    for sign in (1, -1):
        B2, C2 = [[sign * v for v in B[0]]], [[sign * row[0]] for row in C]
        radius = least_double_at_least(double_data(B2, 2)[0])
        assert met(B2, radius, 2) == {(0,), (sign * B[0][0],)}
        rejects(theta, evidence(prof, B2, C2, radius, [[0]]), "does not list")
        rejects(theta, evidence(prof, B2, C2, radius, [[0], [sign * B[0][0]]]), "is a flip set")


def test_the_fplll_requirements_are_enforced(planted, monkeypatch):
    """An fplll older than 5.4.2 (its CVP walked a level one way only), a dimension fplll does not enumerate, and
    a missing fpylll each fail the claim before anything is enumerated."""
    from fpylll import config

    prof, B, C = planted
    radius = least_double_at_least(double_data(B, PLANTED.n)[0])
    ev = evidence(prof, B, C, radius, [[0] * len(B)])
    with monkeypatch.context() as mp:
        mp.setattr(compiled, "_fplll_version", lambda: (5, 4, 1))
        rejects(PLANTED, ev, "needs fplll >= 5.4.2")
    with monkeypatch.context() as mp:
        mp.setattr(config, "max_enum_dim", len(B))
        rejects(PLANTED, ev, f"fewer than {len(B)} dimensions")
    with monkeypatch.context() as mp:
        mp.setattr(compiled, "have_fplll", lambda: False)
        rejects(PLANTED, ev, "pip install")
