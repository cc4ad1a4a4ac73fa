"""Flip sets: producer, certificates and the independent checker (docs/mathematics.md §2-3)."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction

import numpy as np
import pytest

import reluid.checker.flipsets as checker_flipsets
from reluid.analysis.shallow.flipsets import (
    ENUMERATE_MAX_FREE, LATTICE_MAX_N, METHODS, MITM_MAX_N, FlipSetResult, all_flip_sets, count_flip_sets,
    find_flip_set, flip_matrix, is_flip_set,
)
from reluid.certificates.build import flip_claim
from reluid.certificates.schema import Claim
from reluid.verdicts import Outcome
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed, InvalidArgument, NotShallow
from reluid.model.network import Network, Shallow
from reluid.smt.flipsets import solve_flip_set
from reluid.smt.solver import SolverConfig
from reluid.report.reasons import sentence


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def brute_force(theta: Shallow) -> set[frozenset]:
    """Every nonempty flip set, by trying all 2ⁿ − 1 subsets with Fractions."""
    n = theta.n
    u = [[theta.M[j][i] * theta.A[i][l] for j in range(theta.k) for l in range(theta.m)] for i in range(n)]
    out = set()
    for mask in range(1, 1 << n):
        F = [i for i in range(n) if mask >> i & 1]
        if all(sum(u[i][t] for i in F) == 0 for t in range(theta.k * theta.m)):
            out.add(frozenset(F))
    return out


def verify(theta, claim_or_result):
    claim = flip_claim(claim_or_result) if isinstance(claim_or_result, FlipSetResult) else claim_or_result
    return VERIFIERS[claim.kind](claim.evidence, Context(theta.to_network(), claim.id))


def verify_evidence(theta, kind, evidence):
    return VERIFIERS[kind](json.loads(json.dumps(evidence)), Context(theta.to_network(), "tampered"))


def rejects(theta, kind, evidence):
    with pytest.raises(CheckFailed):
        verify_evidence(theta, kind, evidence)


def thawed(result):
    return json.loads(json.dumps(flip_claim(result).to_dict()))["evidence"]


def random_theta(rng: random.Random, m, n, k, lo=-4, hi=4, plant=False):
    """Small-integer θ, optionally with a planted flip set; biases are distinct so rows are independent."""
    nz = [x for x in range(lo, hi + 1) if x]
    M = [[rng.choice(nz) for _ in range(n)] for _ in range(k)]
    A = [[rng.randint(lo, hi) for _ in range(m)] for _ in range(n)]
    for row in A:
        if not any(row):
            row[0] = 1
    if plant and n >= 2:
        F = rng.sample(range(n), rng.randint(2, n))
        if k == 1:   # a_last = −Σ v_i a_i / v_last
            last = F[-1]
            A[last] = [-Fraction(sum(M[0][i] * A[i][l] for i in F[:-1]), M[0][last]) for l in range(m)]
        else:        # equal output columns, input rows summing to zero
            w = [M[j][F[0]] for j in range(k)]
            for i in F:
                for j in range(k):
                    M[j][i] = w[j]
            A[F[-1]] = [-sum(A[i][l] for i in F[:-1]) for l in range(m)]
    return Shallow.make(M, A, list(range(n)), [0] * k)


def float_theta(m, n, k, seed):
    """He-initialised float32 weights, read exactly."""
    rng = np.random.default_rng(seed)
    A = (rng.standard_normal((n, m)) * np.sqrt(2 / m)).astype(np.float32)
    M = (rng.standard_normal((k, n)) * np.sqrt(2 / n)).astype(np.float32)
    return Shallow.make(M.tolist(), A.tolist(), [0] * n, [0] * k, allow_float=True)


def theta_with_duplicates(base: Shallow, pairs):
    """Make columns i and j of U opposite (u_j = −u_i) for each (i, j)."""
    M = [list(r) for r in base.M]
    A = [list(r) for r in base.A]
    for i, j in pairs:
        for t in range(base.k):
            M[t][j] = M[t][i]
        A[j] = [-x for x in A[i]]
    return Shallow.make(M, A, list(base.b), list(base.c))


# ---------------------------------------------------------------------------
# the exact predicate and the flip matrix
# ---------------------------------------------------------------------------

def test_theorem5_literal_counterexample_is_a_flip_set():
    theta = Shallow.make([2, -1], [[1], [2]], [0, 1], [0])
    assert is_flip_set(theta, {0, 1}) and not is_flip_set(theta, {0}) and not is_flip_set(theta, set())
    res = find_flip_set(theta)
    assert res.outcome == "found" and res.flip_set == {0, 1}
    assert "Σ" in verify(theta, res)


def test_sigma_x_plus_sigma_x_plus_one_has_no_flip_set():
    theta = Shallow.make([1, 1], [[1], [1]], [0, 1], [0])
    res = find_flip_set(theta)
    assert res.outcome == "none" and res.evidence["method"] != "z3"
    verify(theta, res)
    assert count_flip_sets(theta) == 1


def test_flip_matrix_layout_and_scale():
    theta = Shallow.make([[1, 2], [3, 4]], [["1/2", 1], [1, "1/3"]], [0, 0], [0, 0])
    U = flip_matrix(theta)
    assert U.shape == (4, 2) and U.rows == (0, 1, 2, 3)
    for t, r in enumerate(U.rows):
        j, l = divmod(r, theta.m)
        for i in range(theta.n):
            assert Fraction(U.entries[t][i], U.scale) == theta.M[j][i] * theta.A[i][l]
    assert flip_matrix(theta, rows=[3]).entries == (U.entries[3],)
    with pytest.raises(InvalidArgument):
        flip_matrix(theta, rows=[4])


def test_input_validation():
    theta = Shallow.make([1, 1], [[1], [2]], [0, 1], [0])
    with pytest.raises(InvalidArgument):
        is_flip_set(theta, {2})
    with pytest.raises(InvalidArgument):
        is_flip_set(theta, {True})
    with pytest.raises(InvalidArgument):
        find_flip_set(theta, method="simplex")
    with pytest.raises(InvalidArgument):
        find_flip_set(theta, timeout=0)
    with pytest.raises(InvalidArgument):
        count_flip_sets(theta, limit=-1)
    with pytest.raises(InvalidArgument):
        find_flip_set([[1]])
    deep = Network.from_lists([([[1]], [0]), ([[1]], [0]), ([[1]], [0])])
    with pytest.raises(NotShallow):
        find_flip_set(deep)
    assert find_flip_set(theta.to_network()).outcome == "none"


# ---------------------------------------------------------------------------
# agreement with brute force, every certificate checked
# ---------------------------------------------------------------------------

CASES = [(m, n, k, plant) for m in (1, 2, 3) for k in (1, 2) for n in (1, 2, 4, 6, 9) for plant in (False, True)]


@pytest.mark.parametrize("seed", range(4))
def test_auto_agrees_with_brute_force(seed):
    rng = random.Random(seed)
    for m, n, k, plant in CASES:
        theta = random_theta(rng, m, n, k, plant=plant)
        expected = brute_force(theta)
        res = find_flip_set(theta, seed=seed)
        assert res.outcome == ("found" if expected else "none"), (theta, res)
        if res.outcome == "found":
            assert res.flip_set in expected
        verify(theta, res)
        assert count_flip_sets(theta) == len(expected) + 1
        assert set(all_flip_sets(theta)) == expected


@pytest.mark.parametrize("method", ["rank", "lattice", "enumerate", "mitm"])
def test_each_method_is_sound_and_checked(method):
    rng = random.Random(METHODS.index(method))
    decided = 0
    for _ in range(60):
        m, k, n = rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 10)
        theta = random_theta(rng, m, n, k, plant=rng.random() < 0.3)
        expected = brute_force(theta)
        res = find_flip_set(theta, method=method)
        if res.outcome == "found":
            assert res.flip_set in expected
        elif res.outcome == "none":
            assert not expected
            assert res.evidence["method"] in ((method, "lattice-enum", "lattice-cvp") if method == "lattice"
                                              else (method,))
            verify(theta, res)
        else:
            assert res.reason
        decided += res.outcome != "unknown"
        for name, seconds, outcome in res.stats:
            assert isinstance(name, str) and seconds >= 0 and isinstance(outcome, str)
    assert decided >= (5 if method == "rank" else 20)


def test_multi_output_flip_sets_are_joint():
    # output 1 alone: u = (1, 1, −2) has the flip set {0, 1, 2}; output 2 alone: (1, −1, 3) has {0, 1}.
    theta = Shallow.make([[1, 1, -2], [1, -1, 3]], [[1], [1], [1]], [0, 1, 2], [0, 0])
    for j in range(2):
        alone = Shallow.make([theta.M[j]], theta.A, theta.b, [0])
        assert brute_force(alone)
    res = find_flip_set(theta)
    assert res.outcome == "none"
    verify(theta, res)
    for method in ("enumerate", "mitm"):
        assert find_flip_set(theta, method=method).outcome == "none"
    assert find_flip_set(theta, method="z3").outcome == "unknown"     # z3's unsat is no certificate
    assert count_flip_sets(theta) == 1


def test_count_includes_empty_set_and_limit():
    theta = Shallow.make([1, -1, 1, -1, 2, -2], [[1], [1], [2], [2], [3], [3]], list(range(6)), [0])
    sets = all_flip_sets(theta)
    assert set(sets) == brute_force(theta) and len(sets) == 7
    assert count_flip_sets(theta) == 8
    assert count_flip_sets(theta, limit=3) is None
    assert count_flip_sets(theta, limit=7) == 8


def test_zero_width():
    theta = Shallow(M=((),), A=(), b=(), c=(Fraction(0),), m=1)
    res = find_flip_set(theta)
    assert res.outcome == "none"
    assert res.evidence["rows"] == ()
    verify(theta, res)
    assert count_flip_sets(theta) == 1


# ---------------------------------------------------------------------------
# float32 weights: the fast certificates
# ---------------------------------------------------------------------------

def test_rank_certificate_float32_wide_output():
    theta = float_theta(m=20, n=64, k=5, seed=1)     # km = 100 ≥ n
    res = find_flip_set(theta, method="rank")
    assert (res.outcome, res.method) == ("none", "rank")
    assert len(res.evidence["rows"]) == 64
    verify(theta, res)
    auto = find_flip_set(theta)                      # rank U = n implies separable: separation comes first
    assert (auto.outcome, auto.method, auto.evidence["method"]) == ("none", "separation", "separation")
    verify(theta, auto)


def test_lattice_certificate_float32():
    theta = float_theta(m=10, n=60, k=1, seed=2)
    res = find_flip_set(theta)
    assert (res.outcome, res.method) == ("none", "lattice")
    ev = res.evidence
    assert len(ev["basis"]) == 50 and len(ev["inverse"]) == 60 and len(ev["rank_rows"]) == 10
    assert "{0,±1}" in verify(theta, res)


def test_enumerate_certificate_small_kernel_large_n():
    theta = float_theta(m=8, n=40, k=6, seed=3)     # km = 48 ≥ 40
    # make the columns dependent without a flip set: u_39 = 2 u_0 + 3 u_1 (not 0/1)
    M = [list(r) for r in theta.M]
    A = [list(r) for r in theta.A]
    for j in range(theta.k):
        M[j][39] = M[j][0]
        M[j][38] = M[j][1]
    A[39] = [2 * x for x in A[0]]
    A[38] = [3 * x for x in A[1]]
    theta = Shallow.make(M, A, list(theta.b), list(theta.c))
    res = find_flip_set(theta, method="enumerate")
    assert res.outcome == "none"
    verify(theta, res)
    auto = find_flip_set(theta)
    assert auto.outcome == "none" and auto.method in ("separation", "lattice", "enumerate")
    verify(theta, auto)


def test_planted_flip_set_in_float_network_is_found():
    base = float_theta(m=4, n=30, k=3, seed=4)
    M = [list(r) for r in base.M]
    A = [list(r) for r in base.A]
    for j in range(3):      # F = {3, 7, 11}: equal outputs, a_11 = −a_3 − a_7
        M[j][7] = M[j][11] = M[j][3]
    A[11] = [-(x + y) for x, y in zip(A[3], A[7])]
    theta = Shallow.make(M, A, list(base.b), list(base.c))
    res = find_flip_set(theta)
    assert res.outcome == "found" and is_flip_set(theta, res.flip_set)
    verify(theta, res)
    assert brute_force_small_support(theta, 3) <= set(all_flip_sets(theta))


def brute_force_small_support(theta, s):
    return {frozenset(F) for F in itertools.combinations(range(theta.n), s) if is_flip_set(theta, F)}


def test_mitm_certificate_float32():
    theta = float_theta(m=2, n=34, k=1, seed=5)
    res = find_flip_set(theta, method="mitm")
    assert res.outcome == "none" and res.evidence == {"method": "mitm", "n": 34}
    verify(theta, res)


def test_zero_subset_sum_mitm_finds_and_certifies():
    rng = random.Random(7)
    v = [rng.randint(1, 10**13) * rng.choice([1, -1]) for _ in range(30)]
    theta = Shallow.make(v, [[1]] * 30, list(range(30)), [0])
    res = find_flip_set(theta)
    assert res.outcome == "none", res
    verify(theta, res)
    v[-1] = -(v[0] + v[5] + v[17])               # plant F = {0, 5, 17, 29}
    theta = Shallow.make(v, [[1]] * 30, list(range(30)), [0])
    res = find_flip_set(theta)
    assert res.outcome == "found" and is_flip_set(theta, res.flip_set)


# ---------------------------------------------------------------------------
# z3
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["pb", "int", "real"])
def test_z3_agrees_with_brute_force(encoding):
    rng = random.Random(11)
    for _ in range(25):
        m, k, n = rng.randint(1, 2), rng.randint(1, 2), rng.randint(1, 8)
        theta = random_theta(rng, m, n, k, plant=rng.random() < 0.4)
        expected = brute_force(theta)
        res = find_flip_set(theta, method="z3", encoding=encoding)
        # z3 only searches: a flip set it finds is a witness, its unsat is no certificate
        assert res.outcome == ("found" if expected else "unknown")
        if res.outcome == "found":
            assert res.flip_set in expected
        else:
            assert "unsat" in sentence(res.reason) and res.solver["name"] == "z3" and flip_claim(res) is None


def test_z3_query_directly_and_relaxation():
    assert solve_flip_set([[1, 2, -3]], 3).flip_set == frozenset({0, 1, 2})
    assert solve_flip_set([[Fraction(1, 3), Fraction(-1, 3)]], 2, encoding="real").flip_set == frozenset({0, 1})
    # an unsat with fewer rows is still a proof for all rows; a sat may be spurious
    assert solve_flip_set([[1, 1], [1, -1]], 2).outcome is Outcome.NONE
    assert solve_flip_set([], 2).outcome is Outcome.FOUND
    with pytest.raises(InvalidArgument):
        solve_flip_set([[1, 2]], 3)
    with pytest.raises(InvalidArgument):
        solve_flip_set([[1]], 1, encoding="bdd")
    out = solve_flip_set([[1, 2, 4]], 3, config=SolverConfig(seed=3, timeout_ms=5000))
    assert out.outcome is Outcome.NONE and out.solver["seed"] == 3


def test_z3_evidence_is_accepted_only_where_the_checker_re_decides_it():
    big = float_theta(m=1, n=50, k=1, seed=1)
    claim = Claim(id="z", kind="no-flip-set", statement="s", reference="r",
                  evidence={"method": "z3", "encoding": "pb", "rows": [0]})
    with pytest.raises(CheckFailed, match="not a proof"):
        verify(big, claim)                                   # a solver's unsat is never taken on trust
    small = Shallow.make([1, 1], [[1], [1]], [0, 1], [0])  # σ(x) + σ(x+1): no flip set
    assert "re-decided by the checker" in verify(small, claim)
    planted = Shallow.make([2, -1], [[1], [2]], [0, 1], [0])  # {1, 2} is a flip set
    with pytest.raises(CheckFailed, match="is a flip set"):
        verify(planted, claim)


# ---------------------------------------------------------------------------
# timeouts and unknowns
# ---------------------------------------------------------------------------

def test_timeout_is_unknown_never_none():
    theta = float_theta(m=2, n=90, k=1, seed=8)     # not separable, GS bound fails, enumeration too long, n > 44
    res = find_flip_set(theta, timeout=0.5)
    assert res.outcome == "unknown" and res.flip_set is None
    assert "timeout" in sentence(res.reason) or "unknown" in sentence(res.reason)
    assert flip_claim(res) is None
    assert count_flip_sets(theta, timeout=0.5) is None


def test_forced_method_that_does_not_apply_is_unknown():
    theta = float_theta(m=2, n=50, k=1, seed=9)
    for method in ("separation", "rank", "enumerate", "mitm"):
        res = find_flip_set(theta, method=method)
        assert res.outcome == "unknown" and res.reason
    wide = float_theta(m=1, n=LATTICE_MAX_N + 1, k=1, seed=9)
    res = find_flip_set(wide, method="lattice")
    assert res.outcome == "unknown" and f"> {LATTICE_MAX_N}" in sentence(res.reason)


def test_progress_bar_runs():
    theta = float_theta(m=1, n=30, k=1, seed=10)
    assert find_flip_set(theta, method="mitm", progress=True).outcome == "none"


# ---------------------------------------------------------------------------
# tampered certificates are rejected
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rank_case():
    theta = float_theta(m=6, n=12, k=3, seed=12)
    res = find_flip_set(theta, method="rank")
    assert res.method == "rank"
    return theta, thawed(res)


def test_rank_tampering(rank_case):
    theta, ev = rank_case
    verify_evidence(theta, "no-flip-set", ev)
    p = ev["p"]
    for bad_p in (p - 1, p + 1, 3 * p, 1, 0, "x", True, 2**64 + 13):
        rejects(theta, "no-flip-set", {**ev, "p": bad_p})
    rejects(theta, "no-flip-set", {**ev, "rows": ev["rows"][:-1]})
    rejects(theta, "no-flip-set", {**ev, "rows": ev["rows"][:-1] + ev["rows"][:1]})
    rejects(theta, "no-flip-set", {**ev, "rows": ev["rows"][:-1] + [18]})
    rejects(theta, "no-flip-set", {**ev, "rows": ev["rows"][:-1] + [-1]})
    rejects(theta, "no-flip-set", {**ev, "extra": 1})
    rejects(theta, "no-flip-set", {k: v for k, v in ev.items() if k != "rows"})
    rejects(theta, "no-flip-set", {**ev, "method": "magic"})
    rejects(theta, "no-flip-set", {**ev, "rows": [str(r) + "/2" for r in ev["rows"]]})


def test_rank_claim_for_dependent_columns_rejected():
    # km = 4 ≥ n = 3, but u_2 = 2 u_0 + 3 u_1: every 3 × 3 minor vanishes
    theta = Shallow.make([[1, 1, 1], [2, 2, 2]], [[1, 0], [0, 1], [2, 3]], [0, 1, 2], [0, 0])
    for rows in itertools.combinations(range(4), 3):
        rejects(theta, "no-flip-set", {"method": "rank", "p": 2147483647, "rows": list(rows)})


def test_prime_dividing_a_denominator_rejected():
    theta = Shallow.make([1, 2], [["1/3", 1], [1, "1/5"]], [0, 1], [0])
    verify_evidence(theta, "no-flip-set", {"method": "rank", "p": 11, "rows": [0, 1]})
    rejects(theta, "no-flip-set", {"method": "rank", "p": 3, "rows": [0, 1]})
    rejects(theta, "no-flip-set", {"method": "rank", "p": 5, "rows": [0, 1]})


@pytest.fixture(scope="module")
def lattice_case():
    theta = float_theta(m=3, n=14, k=1, seed=13)
    res = find_flip_set(theta, method="lattice")
    assert res.outcome == "none"
    return theta, thawed(res)


def test_lattice_tampering(lattice_case):
    theta, ev = lattice_case
    verify_evidence(theta, "no-flip-set", ev)
    B, C = ev["basis"], ev["inverse"]

    def bump(mat, i, j, d=1):
        out = [list(r) for r in mat]
        out[i][j] += d
        return out

    rejects(theta, "no-flip-set", {**ev, "basis": bump(B, 0, 0)})
    rejects(theta, "no-flip-set", {**ev, "basis": bump(B, 3, 5, -1)})
    rejects(theta, "no-flip-set", {**ev, "inverse": bump(C, 2, 1)})
    doubled = [[2 * x for x in B[0]]] + B[1:]                       # not saturated
    rejects(theta, "no-flip-set", {**ev, "basis": doubled})
    rejects(theta, "no-flip-set", {**ev, "basis": B[1:], "inverse": [r[1:] for r in C]})   # too small
    rejects(theta, "no-flip-set", {**ev, "rank_rows": ev["rank_rows"][:-1]})
    rejects(theta, "no-flip-set", {**ev, "rank_cols": ev["rank_cols"][:-1] + ev["rank_cols"][:1]})
    rejects(theta, "no-flip-set", {**ev, "p": ev["p"] + 2})
    rejects(theta, "no-flip-set", {**ev, "basis": B + [B[0]], "inverse": [r + [0] for r in C]})
    # the rank claim must match the number of basis vectors
    rejects(theta, "no-flip-set", {**ev, "rank_rows": ev["rank_rows"] + [0]})


def test_lattice_bound_not_met_rejected():
    theta = Shallow.make([1, 1], [[1], [1]], [0, 1], [0])       # L = Z·(1, −1), ‖b‖² = 2 = n
    ev = {"method": "lattice", "p": 2147483647, "basis": [[1, -1]], "inverse": [[1], [0]],
          "rank_rows": [0], "rank_cols": [0]}
    with pytest.raises(CheckFailed, match="Gram"):
        verify_evidence(theta, "no-flip-set", ev)


def test_lattice_claim_for_network_with_flip_set_rejected():
    theta = Shallow.make([1, -1, 5], [[1], [1], [1]], [0, 1, 2], [0])
    # L is spanned by (1, 1, 0) and (5, 0, 1)... no basis can beat the bound: (1, 1, 0) has length² 2 ≤ 3
    ev = {"method": "lattice", "p": 2147483647, "basis": [[1, 1, 0], [-5, 0, 1]],
          "inverse": [[1, 0], [0, 0], [5, 1]], "rank_rows": [0], "rank_cols": [0]}
    rejects(theta, "no-flip-set", ev)


def test_enumerate_and_mitm_tampering():
    theta = Shallow.make([1, -1, 5, 7], [[1], [1], [1], [2]], [0, 1, 2, 3], [0])   # {0, 1} is a flip set
    rejects(theta, "no-flip-set", {"method": "enumerate", "p": 2147483647, "rows": [0]})
    rejects(theta, "no-flip-set", {"method": "enumerate", "p": 2147483647, "rows": []})
    rejects(theta, "no-flip-set", {"method": "mitm", "n": 4})
    rejects(theta, "no-flip-set", {"method": "z3", "encoding": "pb", "rows": [0]})
    clean = Shallow.make([1, 2, 5, 7], [[1], [1], [1], [2]], [0, 1, 2, 3], [0])
    verify_evidence(clean, "no-flip-set", {"method": "enumerate", "p": 2147483647, "rows": [0]})
    verify_evidence(clean, "no-flip-set", {"method": "mitm", "n": 4})
    rejects(clean, "no-flip-set", {"method": "mitm", "n": 5})
    rejects(clean, "no-flip-set", {"method": "enumerate", "p": 2147483649, "rows": [0]})   # 3 · 715827883
    rejects(clean, "no-flip-set", {"method": "enumerate", "p": 2147483647, "rows": [0, 0]})
    rejects(clean, "no-flip-set", {"method": "enumerate", "p": 2147483647, "rows": [1]})
    big = float_theta(m=1, n=MITM_MAX_N + 1, k=1, seed=0)
    rejects(big, "no-flip-set", {"method": "mitm", "n": MITM_MAX_N + 1})
    rejects(big, "no-flip-set", {"method": "enumerate", "p": 2147483647, "rows": [0]})   # kernel too large


def test_flip_set_witness_tampering():
    theta = Shallow.make([2, -1, 3], [[1], [2], [1]], [0, 1, 2], [0])
    verify_evidence(theta, "flip-set", {"flip_set": [0, 1]})
    for bad in ([0], [1, 2], [0, 1, 1], [], [0, 3], [-1, 0], ["0", 1.0]):
        with pytest.raises((CheckFailed, TypeError)):
            verify_evidence(theta, "flip-set", {"flip_set": bad})
    rejects(theta, "flip-set", {"flip_set": [0, 1], "note": "x"})
    deep = Network.from_lists([([[1]], [0]), ([[1]], [0]), ([[1]], [0])])
    with pytest.raises(CheckFailed):
        VERIFIERS["flip-set"]({"flip_set": [0]}, Context(deep, "x"))


def test_every_emitted_certificate_survives_json(rank_case, lattice_case):
    for theta, ev in (rank_case, lattice_case):
        claim = Claim(id="c", kind="no-flip-set", statement="s", reference="r", evidence=ev)
        again = json.loads(json.dumps(claim.to_dict()))
        verify_evidence(theta, again["kind"], again["evidence"])


# ---------------------------------------------------------------------------
# the checker stays independent
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# larger instances
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_rank_784_512_10():
    theta = float_theta(m=784, n=512, k=10, seed=0)
    res = find_flip_set(theta, method="rank")
    assert (res.outcome, res.method) == ("none", "rank")
    verify(theta, res)
    auto = find_flip_set(theta)
    assert (auto.outcome, auto.method) == ("none", "separation")
    verify(theta, auto)


@pytest.mark.slow
def test_lattice_m10_n100():
    theta = float_theta(m=10, n=100, k=1, seed=0)
    res = find_flip_set(theta)
    assert (res.outcome, res.method) == ("none", "lattice")
    verify(theta, res)


@pytest.mark.slow
def test_mitm_n44():
    theta = float_theta(m=2, n=MITM_MAX_N, k=1, seed=0)
    res = find_flip_set(theta, method="mitm")
    assert (res.outcome, res.method) == ("none", "mitm")
    verify(theta, res)
    auto = find_flip_set(theta)                       # the lattice enumeration decides it far sooner
    assert (auto.outcome, auto.evidence["method"]) in (("none", "lattice-enum"), ("none", "lattice-cvp"))
    verify(theta, auto)


def test_limits_are_consistent_with_the_checker():
    assert ENUMERATE_MAX_FREE <= checker_flipsets.ENUMERATE_LIMIT
    assert MITM_MAX_N <= checker_flipsets.MITM_LIMIT
    assert LATTICE_MAX_N >= 100
