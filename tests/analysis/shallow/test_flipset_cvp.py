"""The lattice-cvp certificate: fplll's enumeration over a proved safe radius (docs/mathematics.md §3)."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("fpylll")

import reluid.checker.compiled_search as compiled  # noqa: E402
import reluid.checker.flipsets as checker_flipsets  # noqa: E402
from reluid.analysis.shallow.flipsets import find_flip_set, is_flip_set  # noqa: E402
from reluid.analysis.shallow.flipsets._problem import Clock, Problem  # noqa: E402
from reluid.analysis.shallow.flipsets.lattice import (_cvp_certificate, _integral_inverse_columns,  # noqa: E402
                                                      _kernel_lattice, enumerate_ball)
from reluid.analysis.shallow.flipsets.rank import profile  # noqa: E402
from reluid.checker.registry import VERIFIERS, Context  # noqa: E402
from reluid.errors import CheckFailed  # noqa: E402
from reluid.model.network import Shallow  # noqa: E402


def float_theta(m, n, k, seed):
    rng = np.random.default_rng(seed)
    A = (rng.standard_normal((n, m)) * np.sqrt(2 / m)).astype(np.float32)
    M = (rng.standard_normal((k, n)) * np.sqrt(2 / n)).astype(np.float32)
    return Shallow.make(M.tolist(), A.tolist(), list(range(n)), [0] * k, allow_float=True)


def check(theta, evidence):
    return VERIFIERS["no-flip-set"](json.loads(json.dumps(evidence)), Context(theta.to_network(), "c"))


def rejects(theta, evidence, match=None):
    with pytest.raises(CheckFailed, match=match):
        check(theta, evidence)


def kernel(theta):
    """(prob, prof, B, C): the producer's LLL basis of ker U ∩ Zⁿ and its inverse, whatever θ's flip sets."""
    prob = Problem(theta)
    clock = Clock(None)
    prof = profile(prob, clock)
    B, T = _kernel_lattice(prob, prof, clock)
    return prob, prof, B, _integral_inverse_columns(T, len(B))


def cvp_evidence(theta):
    """The producer's lattice-cvp outcome on θ's kernel lattice (FOUND or NONE, never the checker's opinion)."""
    prob, prof, B, C = kernel(theta)
    return _cvp_certificate(prob, prof, B, C, Clock(None))


@pytest.fixture(scope="module")
def cvp_case():
    theta = float_theta(m=2, n=50, k=1, seed=0)         # GS bound impossible (det^(1/r) < √n), n > 44
    res = find_flip_set(theta)
    assert (res.outcome, res.method, res.evidence["method"]) == ("none", "lattice", "lattice-cvp")
    return theta, json.loads(json.dumps(dict(res.evidence)))


def test_certificate_is_checked(cvp_case):
    theta, ev = cvp_case
    assert len(ev["basis"]) == 48 and 0 < ev["nodes"] <= compiled.COMPILED_NODE_LIMIT
    assert [0] * 48 in ev["points"]                   # 0 ∈ L is a 0/1 vector: on the sphere, always met
    assert "lattice-cvp" in check(theta, ev)


def test_radius_is_safe_and_tight(cvp_case):
    """R² ≤ ρ (the proved bound) ≤ the producer's radius, and ρ exceeds R² by a rounding-sized amount only."""
    theta, ev = cvp_case
    B, n = ev["basis"], theta.n
    d, a = checker_flipsets._gram_schmidt(B, n)
    r = len(B)
    from fpylll import GSO, IntegerMatrix
    M = GSO.Mat(IntegerMatrix.from_matrix(B), float_type="double")
    M.update_gso()
    rho = compiled.safe_radius(B, d, a, n, [M.get_r(j, j) for j in range(r)],
                               [[M.get_mu(i, j) for j in range(i)] for i in range(r)],
                               [float(Fraction(a[r][t], 2 * d[t + 1])) for t in range(r)])
    R2 = Fraction(n * d[r] - d[r + 1], 4 * d[r])
    assert R2 < rho <= Fraction(ev["radius"]) and rho - R2 < R2 / 1000


def test_forgeries(cvp_case):
    theta, ev = cvp_case
    B = ev["basis"]
    d, _ = checker_flipsets._gram_schmidt(B, theta.n)
    r = len(B)
    R2 = Fraction(theta.n * d[r] - d[r + 1], 4 * d[r])                            # the exact R²
    below = Fraction(float(R2 * (1 - Fraction(1, 10**12))))                       # a double just below R²
    rejects(theta, {**ev, "radius": str(below)}, "safe radius")
    rejects(theta, {**ev, "radius": "1"}, "safe radius")                         # a radius shrunk
    rejects(theta, {**ev, "radius": "1/3"}, "double")                            # not what fplll would run with
    rejects(theta, {**ev, "points": []}, "does not list")                        # a candidate dropped
    rejects(theta, {**ev, "points": ev["points"] + [[1] + [0] * 47]}, "does not meet")
    rejects(theta, {**ev, "points": ev["points"] * 2}, "twice")
    rejects(theta, {**ev, "nodes": ev["nodes"] - 1}, "nodes")                    # budget exceeded
    for bad in (-1, compiled.COMPILED_NODE_LIMIT + 1, "x", True):
        rejects(theta, {**ev, "nodes": bad})
    bumped = [list(r) for r in ev["basis"]]
    bumped[3][7] += 1
    rejects(theta, {**ev, "basis": bumped}, "kernel")
    rejects(theta, {k: v for k, v in ev.items() if k != "radius"})
    rejects(float_theta(m=2, n=50, k=1, seed=1), ev)


def test_work_limit_charged(cvp_case):
    """A recorded node count past the work limit is refused before fplll runs."""
    from reluid.checker.registry import WorkLimit

    theta, ev = cvp_case
    with pytest.raises(WorkLimit, match="fplll's enumeration"):
        check(theta, {**ev, "nodes": compiled.COMPILED_NODE_LIMIT})


def test_enumeration_is_stopped_at_the_cpu_time_its_recorded_nodes_allow():
    """A ball far larger than its recorded node count cannot make the check run on: the child is stopped."""
    rng = random.Random(1)
    r = 90
    B = [[1000 * (i == j) + rng.randint(-30, 30) for j in range(r)] for i in range(r)]
    assert compiled._enumerate_apart(B, 3.0e9, [0.5 + 0.01 * i for i in range(r)], 1) is None
    small = compiled._enumerate_apart(B[:4], 4.0e6, [0.5] * 4, 1)        # a small ball ends and is returned
    assert small is not None and small[2] > 0 and small[0] == compiled._gso(B[:4])[1]


def test_a_stopped_enumeration_leaves_the_claim_not_re_verified(cvp_case, monkeypatch):
    """When the child does not finish, the claim is over the work limit (not re-verified), never accepted."""
    from reluid.checker.registry import WorkLimit

    theta, ev = cvp_case
    monkeypatch.setattr(compiled, "_enumerate_apart", lambda *args: None)
    with pytest.raises(WorkLimit, match="CPU second"):
        check(theta, ev)


def planted_flip_sets(seed, count=40):
    """``count`` small networks (θ, F) with a planted flip set F: the last row of A in F makes Σ_F v_i A_i = 0."""
    rng = random.Random(seed)
    for _ in range(count):
        n, m = rng.randint(5, 12), rng.randint(1, 2)
        v = [rng.choice([-3, -2, -1, 1, 2, 3]) for _ in range(n)]
        A = [[rng.randint(-4, 4) or 1 for _ in range(m)] for _ in range(n)]
        F = rng.sample(range(n), rng.randint(2, n))
        A[F[-1]] = [-Fraction(sum(v[i] * A[i][l] for i in F[:-1]), v[F[-1]]) for l in range(m)]
        theta = Shallow.make(v, A, list(range(n)), [0])
        yield theta, F


def test_an_ill_conditioned_basis_of_the_same_lattice_is_refused():
    """b_1 += (2^27 + 1)·b_0 keeps the lattice but makes fplll's double r̂_1 negative, and with it the bound ρ:
    the checker must refuse the basis, not accept radius 0 on a network with a planted flip set."""
    theta, F = next((t, F) for t, F in planted_flip_sets(7) if all(map(any, t.A)) and len(kernel(t)[2]) >= 2)
    assert is_flip_set(theta, F)
    prob, prof, B, C = kernel(theta)
    K = 2 ** 27 + 1
    B2 = [list(b) for b in B]
    B2[1] = [x + K * y for x, y in zip(B[1], B[0])]
    C2 = [list(c) for c in C]
    for row in C2:
        row[0] -= K * row[1]
    assert compiled._gso(B2)[1][0][1] < 0                      # the cancellation the forgery relies on
    for radius in ("0", "1/1024"):
        forged = {"method": "lattice-cvp", "p": prof.p, "basis": B2, "inverse": C2, "rank_rows": list(prof.rows),
                  "rank_cols": list(prof.pivots), "radius": radius, "points": [], "nodes": 0}
        rejects(theta, forged, "not all positive")
    rejects(theta, {**forged, "radius": "-100"}, "nonnegative")
    rejects(theta, {**forged, "radius": "1" + "0" * 400}, "nonnegative")   # no OverflowError on a huge radius


def test_planted_flip_sets_are_met():
    """A planted flip set: the producer finds it, and evidence claiming none is rejected by the checker."""
    tried = 0
    for theta, F in planted_flip_sets(7):
        n = theta.n
        assert is_flip_set(theta, F)
        if any(not any(a) for a in theta.A):
            continue
        prob, prof, B, C = kernel(theta)
        if len(B) < 2:
            continue
        res = _cvp_certificate(prob, prof, B, C, Clock(None))
        if res.outcome.value == "unknown":          # the top centre coordinate was an integer: a rare refusal
            continue
        tried += 1
        assert res.outcome.value == "found" and is_flip_set(theta, res.flip_set)
        d, _ = checker_flipsets._gram_schmidt(B, n)
        R2 = Fraction(n * d[len(B)] - d[len(B) + 1], 4 * d[len(B)])
        radius = Fraction(float(R2 * (1 + Fraction(1, 1024)) + Fraction(1, 1024)))
        forged = {"method": "lattice-cvp", "p": prof.p, "basis": B, "inverse": C, "rank_rows": list(prof.rows),
                  "rank_cols": list(prof.pivots), "radius": str(radius), "points": [],
                  "nodes": 10**6}
        rejects(theta, forged, "does not list")
        with pytest.raises(CheckFailed, match="is a flip set|does not list"):
            check(theta, {**forged, "points": [[0] * len(B)]})
    assert tried >= 15


def test_agrees_with_the_exact_enumeration():
    """Every point of the exact ball (‖2x − 1‖² ≤ n, x ∈ L) that the exact Python enumeration meets is met by fplll."""
    rng = random.Random(8)
    compared = 0
    for trial in range(30):
        n = rng.randint(6, 14)
        theta = Shallow.make([rng.choice([-7, -5, -3, 2, 4, 9, 11]) for _ in range(n)],
                             [[rng.choice([1, 2, 3, -1, -2])] for _ in range(n)], list(range(n)), [0])
        prob, prof, B, C = kernel(theta)
        r = len(B)
        if r < 2:
            continue
        exact = set()

        def leaf(c):
            x = [sum(ci * b[t] for ci, b in zip(c, B)) for t in range(n)]
            if sum((2 * v - 1) ** 2 for v in x) <= n:
                exact.add(tuple(c))

        enumerate_ball(B, leaf, 10**7, Clock(None))
        d, a = checker_flipsets._gram_schmidt(B, n)
        ctx = Context(theta.to_network(), "c")
        if float(Fraction(a[r][r - 1], 2 * d[r])).is_integer():
            continue
        R2 = Fraction(n * d[r] - d[r + 1], 4 * d[r])
        radius = Fraction(float(R2 * (1 + Fraction(1, 1024)) + Fraction(1, 1024)))
        met = set(compiled.ball_points(ctx, B, d, a, n, radius, 10**6))
        assert exact <= met
        compared += 1
    assert compared >= 15


def test_top_level_is_enumerated_on_both_sides():
    """fplll's CVP enumeration steps both ways at the top level (where the partial distance above is 0)."""
    from fpylll import GSO, Enumeration, IntegerMatrix
    from fpylll.fplll.enumeration import EvaluatorStrategy

    M = GSO.Mat(IntegerMatrix.from_matrix([[1, 0], [0, 1]]), float_type="double")
    M.update_gso()
    E = Enumeration(M, nr_solutions=100, strategy=EvaluatorStrategy.BEST_N_SOLUTIONS)
    got = {tuple(int(v) for v in c) for _, c in E.enumerate(0, 2, 2.25, 0, target=[0.3, 0.3])}
    want = {(x, y) for x, y in itertools.product(range(-2, 3), repeat=2) if (x - 0.3) ** 2 + (y - 0.3) ** 2 <= 2.25}
    assert got == want and (0, -1) in got and (-1, 0) in got


@pytest.mark.slow
@pytest.mark.parametrize("m,n", [(10, 160), (2, 70)])
def test_hard_regimes(m, n):
    theta = float_theta(m=m, n=n, k=1, seed=0)
    res = find_flip_set(theta)
    assert (res.outcome, res.evidence["method"]) == ("none", "lattice-cvp")
    check(theta, json.loads(json.dumps(dict(res.evidence))))


def test_a_basis_that_fplll_would_normalise_into_subnormals_is_refused():
    """A valid basis of L_s ⊕ Z·h with ‖h‖² near 2^1024 (tests/fixtures/cvp_subnormal_forgery.json): fplll divides
    every r̂_j and ρ̂ by 2^1024 before enumerating, the small ones become subnormal doubles, their roundings are
    absolute, and the planted flip point on the sphere was pruned: radius, points and nodes as fplll left them
    were accepted for a network with the flip set {1, 2}.  The checker refuses the spread."""
    from pathlib import Path

    from reluid.api import parse_network

    data = json.loads((Path(__file__).parents[2] / "fixtures" / "cvp_subnormal_forgery.json").read_text())
    net = parse_network(json.dumps(data["network"]))
    assert is_flip_set(net.shallow(), data["flip_set"])
    with pytest.raises(CheckFailed, match="spread"):
        VERIFIERS["no-flip-set"](data["evidence"], Context(net, "c"))


def test_coefficients_past_two_to_the_52_are_refused(cvp_case):
    """fplll steps a node's coefficients as doubles: past 2^53 it skips odd values, so a basis (of the same
    lattice) under which a point of the ball may have a coefficient of 2^52 or more is refused."""
    theta, ev = cvp_case
    B = [list(b) for b in ev["basis"]]
    K = 2 ** 60
    B[1] = [x + K * y for x, y in zip(B[1], B[0])]
    d, a = checker_flipsets._gram_schmidt(B, theta.n)
    _, (r_hat, mu_hat) = compiled._gso(B)
    tau_hat = [float(Fraction(a[len(B)][t], 2 * d[t + 1])) for t in range(len(B))]
    with pytest.raises(ArithmeticError, match="2\\^52"):
        compiled.safe_radius(B, d, a, theta.n, r_hat, mu_hat, tau_hat)


def test_an_fplll_abort_leaves_the_lll_basis():
    """A float32 subnormal weight (2^-128) gives the kernel lattice entries past fplll's double precision: its BKZ
    aborts ("infinite loop in babai", a RuntimeError from fpylll), which crashed reluid certify with an internal
    error. BKZ only shortens the LLL basis, so the lattice certificate is made on that basis and verified."""
    from reluid import api
    from reluid.model.network import Network
    from reluid.verdicts import Verdict

    f32 = lambda rows: [[Fraction(float(np.float32(x))) for x in row] for row in rows]  # noqa: E731  (exact)
    W1 = f32([[2.0**-128, 0.8216181397438049], [0.3304370641708374, -1.3031572103500366],
              [0.9053558707237244, 0.4463745653629303], [-0.5369532108306885, 0.581118106842041],
              [0.3645724058151245, 0.2941325008869171], [0.028422242030501366, 0.5467129945755005]])
    b1 = f32([[0.003972210921347141, -0.02924567461013794, -0.07819084823131561, -0.02571922354400158,
               0.0008142180740833282, -0.027560289949178696]])[0]
    W2 = f32([[-1.355581283569336, -0.9445066452026367, -0.08738604933023453, -0.2110951989889145,
               0.10682149976491928, 0.10866096615791321]])
    net = Network.from_lists([(W1, b1), (W2, f32([[-0.037760499864816666]])[0])])
    assert W1[0][0] == Fraction(1, 2**128)
    cert = api.certify(net, timeout=60)
    assert cert.verdict is Verdict.NO_HIDDEN
    claim = next(c for c in cert.claims if c.kind == "no-flip-set")
    assert claim.evidence["method"] == "lattice"
    report = api.check(cert, net)
    assert report.valid and report.verdict is Verdict.NO_HIDDEN
