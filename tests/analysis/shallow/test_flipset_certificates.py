"""The separation, separation-split and lattice-enum certificates and their forgeries (docs/mathematics.md §3).

lattice-cvp (fplll's enumeration) has its own tests: test_flipset_cvp.py.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from fractions import Fraction

import numpy as np
import pytest

import reluid.checker.flipsets as checker_flipsets
from reluid.analysis.shallow.flipsets import LATTICE_MAX_N, find_flip_set, is_flip_set
from reluid.analysis.shallow.flipsets._problem import LATTICE_ENUM_MAX_NODES, Clock, Problem
from reluid.analysis.shallow.flipsets.lattice import _integral_inverse_columns, _kernel_lattice, have_fpylll
from reluid.analysis.shallow.flipsets.rank import profile
from reluid.certificates.build import flip_claim
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed
from reluid.model.network import Shallow
from reluid.report.reasons import sentence


def float_theta(m, n, k, seed):
    rng = np.random.default_rng(seed)
    A = (rng.standard_normal((n, m)) * np.sqrt(2 / m)).astype(np.float32)
    M = (rng.standard_normal((k, n)) * np.sqrt(2 / n)).astype(np.float32)
    return Shallow.make(M.tolist(), A.tolist(), list(range(n)), [0] * k, allow_float=True)


def check(theta, evidence, kind="no-flip-set"):
    return VERIFIERS[kind](json.loads(json.dumps(evidence)), Context(theta.to_network(), "c"))


def rejects(theta, evidence, match=None):
    with pytest.raises(CheckFailed, match=match):
        check(theta, evidence)


def thawed(res):
    return json.loads(json.dumps(flip_claim(res).to_dict()))["evidence"]


def scores(theta, Y):
    """m_iᵀ Y a_i with Fractions (the oracle, independent of both producer and checker)."""
    return [sum(theta.M[j][i] * sum(Y[j][l] * theta.A[i][l] for l in range(theta.m)) for j in range(theta.k))
            for i in range(theta.n)]


def with_pairs(theta, pairs, factor=-2):
    """u_j = factor · u_i for each (i, j): m_j = m_i, a_j = factor · a_i (b_j keeps the rows independent)."""
    M = [list(r) for r in theta.M]
    A = [list(r) for r in theta.A]
    for i, j in pairs:
        for t in range(theta.k):
            M[t][j] = M[t][i]
        A[j] = [factor * x for x in A[i]]
    return Shallow(tuple(map(tuple, M)), tuple(map(tuple, A)), theta.b, theta.c, theta.m)


# ---------------------------------------------------------------------------
# separation
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def separable():
    theta = float_theta(m=8, n=48, k=4, seed=21)          # n/km = 1.5: separable (Wendel: 0.998)
    res = find_flip_set(theta)
    assert (res.outcome, res.method, res.evidence["method"]) == ("none", "separation", "separation")
    return theta, thawed(res)


def test_separation_certificate(separable):
    theta, ev = separable
    assert set(ev) == {"method", "y"} and len(ev["y"]) == theta.k and all(len(r) == theta.m for r in ev["y"])
    assert all(s > 0 for s in scores(theta, ev["y"]))
    assert "separation" in check(theta, ev)
    assert find_flip_set(theta, method="separation").evidence["method"] == "separation"


def test_separation_forgeries(separable):
    theta, ev = separable
    Y = ev["y"]
    rejects(theta, {**ev, "y": [[-v for v in row] for row in Y]}, "does not separate")      # every sign flipped
    rejects(theta, {**ev, "y": [[0] * theta.m for _ in Y]}, "does not separate")
    # one sign flipped: accepted exactly when the exact scores stay positive
    for j, l in itertools.product(range(theta.k), range(theta.m)):
        Z = [list(r) for r in Y]
        Z[j][l] = -Z[j][l]
        if all(s > 0 for s in scores(theta, Z)):
            check(theta, {**ev, "y": Z})
        else:
            rejects(theta, {**ev, "y": Z}, "does not separate")
    # y of another network of the same shape
    other = float_theta(m=8, n=48, k=4, seed=22)
    Yo = thawed(find_flip_set(other))["y"]
    assert not all(s > 0 for s in scores(theta, Yo))
    rejects(theta, {**ev, "y": Yo}, "does not separate")
    # malformed
    rejects(theta, {**ev, "y": Y[:-1]})
    rejects(theta, {**ev, "y": [r[:-1] for r in Y]})
    rejects(theta, {**ev, "y": [[str(v) + "/2" if v % 2 else v for v in r] for r in Y]})
    rejects(theta, {**ev, "y": [[2**64] + r[1:] for r in Y]}, "2\\^64")
    rejects(theta, {**ev, "y": "[[1]]"})
    rejects(theta, {**ev, "y": [1] * theta.k})
    rejects(theta, {**ev, "y": [[1.5] * theta.m] * theta.k})
    rejects(theta, {**ev, "extra": 0})
    rejects(theta, {"method": "separation"})


def test_separation_cannot_certify_a_planted_flip_set():
    base = float_theta(m=8, n=40, k=4, seed=23)
    M = [list(r) for r in base.M]
    A = [list(r) for r in base.A]
    for j in range(4):                                   # F = {2, 5, 9}: equal outputs, a_9 = −a_2 − a_5
        M[j][5] = M[j][9] = M[j][2]
    A[9] = [-(x + y) for x, y in zip(A[2], A[5])]
    theta = Shallow.make(M, A, list(base.b), list(base.c))
    assert is_flip_set(theta, {2, 5, 9})
    res = find_flip_set(theta)
    assert res.outcome == "found" and is_flip_set(theta, res.flip_set)
    Y = thawed(find_flip_set(base))["y"]                  # the clean network's separator
    rejects(theta, {"method": "separation", "y": Y}, "does not separate")
    sep = find_flip_set(theta, method="separation")    # no separator; the split may meet the flip set
    assert sep.outcome != "none" and (sep.outcome == "unknown" or is_flip_set(theta, sep.flip_set))


def test_separation_subsumes_rank():
    theta = float_theta(m=6, n=18, k=3, seed=24)         # km = n: rank certifies, so does separation
    assert find_flip_set(theta, method="rank").outcome == "none"
    res = find_flip_set(theta, method="separation")
    assert res.outcome == "none"
    check(theta, thawed(res))


def test_zero_column_is_not_separable():
    theta = Shallow.make([[1, 0, 2]], [[1], [1], [3]], [0, 1, 2], [0])   # m_2 = 0
    res = find_flip_set(theta, method="separation")
    assert res.outcome == "unknown" and "zero column" in sentence(res.reason)
    assert res.reason.params["methods"] == (("separation", {"code": "separation-zero-column", "params": {}}),)


# ---------------------------------------------------------------------------
# separation-split
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def split_case():
    theta = with_pairs(float_theta(m=8, n=40, k=4, seed=25), [(3, 7), (11, 30)])   # u_7 = −2 u_3: not separable
    res = find_flip_set(theta)
    assert (res.outcome, res.method, res.evidence["method"]) == ("none", "separation", "separation-split")
    return theta, thawed(res)


def test_split_certificate(split_case):
    theta, ev = split_case
    assert {3, 11} & set(ev["rest"]) and len(ev["rest"]) <= 20
    assert ev["sub"]["method"] in ("rank", "lattice", "lattice-enum", "enumerate", "mitm")
    assert "separation-split" in check(theta, ev)
    assert find_flip_set(theta, method="separation").evidence["method"] == "separation-split"


def test_split_forgeries(split_case):
    theta, ev = split_case
    s = scores(theta, ev["y"])
    tau = -sum(v for v in s if v < 0)
    needed = [i for i, v in enumerate(s) if v <= tau]
    for i in needed:                                      # drop a neuron the lemma needs
        rest = [r for r in ev["rest"] if r != i]
        rejects(theta, {**ev, "rest": rest}, "not in the rest set")
    rejects(theta, {**ev, "rest": ev["rest"] + ev["rest"][:1]}, "repeated")
    rejects(theta, {**ev, "rest": ev["rest"] + [theta.n]}, "out of range")
    rejects(theta, {**ev, "sub": {**ev, "method": "separation-split"}}, "rest set needs")     # no nesting
    rejects(theta, {**ev, "sub": {"method": "z3", "encoding": "pb", "rows": [0]}}, "rest set needs")
    rejects(theta, {**ev, "sub": {"method": "mitm", "n": len(ev["rest"]) + 1}})
    rejects(theta, {**ev, "sub": {"method": "rank", "p": 2147483647, "rows": [0]}})
    rejects(theta, {**ev, "sub": [1, 2]}, "rest set needs")
    rejects(theta, {**ev, "y": [[-v for v in r] for r in ev["y"]]})
    other = with_pairs(float_theta(m=8, n=40, k=4, seed=26), [(3, 7), (11, 30)])
    rejects(other, ev)


def test_split_sub_certificate_sees_a_flip_set_inside_the_rest():
    # u_7 = −u_3 inside an otherwise separable network: {3, 7} is a flip set, the rest set holds it
    theta = with_pairs(float_theta(m=8, n=40, k=4, seed=27), [(3, 7)], factor=-1)
    res = find_flip_set(theta)
    assert res.outcome == "found" and res.flip_set == {3, 7}
    sep = find_flip_set(with_pairs(float_theta(m=8, n=40, k=4, seed=27), [(3, 7)]), method="separation")
    ev = thawed(sep)
    assert ev["method"] == "separation-split"
    rest = sorted(set(ev["rest"]) | {3, 7})
    sub = {"method": "mitm", "n": len(rest)}
    rejects(theta, {**ev, "rest": rest, "sub": sub}, "is a flip set")


# ---------------------------------------------------------------------------
# lattice-enum
# ---------------------------------------------------------------------------

def python_enum(theta, reduce=None):
    """The lattice method with the Python enumeration (``lattice-enum``), even when fplll is installed."""
    from reluid.analysis.shallow.flipsets.lattice import lattice

    prob = Problem(theta)
    clock = Clock(None)
    return lattice(prob, profile(prob, clock), clock, reduce=reduce, compiled=False)


@pytest.fixture(scope="module")
def enum_case():
    theta = float_theta(m=2, n=50, k=1, seed=0)          # GS bound impossible (det^(1/r) < √n), n > 44
    res = python_enum(theta)
    assert (res.outcome.value, res.evidence["method"]) == ("none", "lattice-enum")
    auto = find_flip_set(theta)
    assert (auto.outcome, auto.method) == ("none", "lattice")
    assert auto.evidence["method"] == ("lattice-cvp" if have_fpylll() else "lattice-enum")
    return theta, json.loads(json.dumps(res.evidence))


def test_lattice_enum_certificate(enum_case):
    theta, ev = enum_case
    assert len(ev["basis"]) == 48 and 0 < ev["nodes"] <= LATTICE_ENUM_MAX_NODES
    assert "visited %d nodes" % ev["nodes"] in check(theta, ev)


def test_lattice_enum_forgeries(enum_case):
    theta, ev = enum_case
    B, C = ev["basis"], ev["inverse"]
    rejects(theta, {**ev, "nodes": ev["nodes"] - 1}, "node")                                # budget exceeded
    for bad in (-1, checker_flipsets.LATTICE_ENUM_NODE_LIMIT + 1, "x", "1/2", True):
        rejects(theta, {**ev, "nodes": bad})
    rejects(theta, {**ev, "basis": B[:-1], "inverse": [r[:-1] for r in C]})                # truncated basis
    rejects(theta, {**ev, "basis": B[:-1]})
    rejects(theta, {**ev, "basis": [r[:-1] for r in B]})
    bumped = [list(r) for r in B]
    bumped[3][7] += 1
    rejects(theta, {**ev, "basis": bumped}, "kernel")
    doubled = [[2 * x for x in B[0]]] + B[1:]
    rejects(theta, {**ev, "basis": doubled})
    swapped = B[1:] + B[:1]                                  # another basis order: still a proof, inverse must follow
    rejects(theta, {**ev, "basis": swapped})
    check(theta, {**ev, "basis": swapped, "inverse": [r[1:] + r[:1] for r in C],
                  "nodes": checker_flipsets.LATTICE_ENUM_NODE_LIMIT})
    rejects(theta, {**ev, "rank_rows": [1]})
    rejects(theta, {**ev, "p": ev["p"] + 2})
    other = float_theta(m=2, n=50, k=1, seed=1)
    rejects(other, ev)
    rejects(theta, {k: v for k, v in ev.items() if k != "nodes"})


def _forged_enum(theta):
    """lattice-enum evidence for θ built from the producer's kernel basis, whatever θ's flip sets."""
    prob = Problem(theta)
    clock = Clock(None)
    prof = profile(prob, clock)
    r = theta.n - len(prof.rows)
    B, T = _kernel_lattice(prob, prof, clock)
    return {"method": "lattice-enum", "p": prof.p, "basis": B, "inverse": _integral_inverse_columns(T, r),
            "rank_rows": list(prof.rows), "rank_cols": list(prof.pivots),
            "nodes": checker_flipsets.LATTICE_ENUM_NODE_LIMIT}


def test_lattice_enum_checker_finds_planted_flip_sets():
    rng = random.Random(5)
    for trial in range(30):
        n, m = rng.randint(4, 11), rng.randint(1, 2)
        v = [rng.choice([-3, -2, -1, 1, 2, 3]) for _ in range(n)]
        A = [[rng.randint(-4, 4) or 1 for _ in range(m)] for _ in range(n)]
        F = rng.sample(range(n), rng.randint(2, n))
        last = F[-1]
        A[last] = [-Fraction(sum(v[i] * A[i][l] for i in F[:-1]), v[last]) for l in range(m)]
        theta = Shallow.make(v, A, list(range(n)), [0])
        assert is_flip_set(theta, F)
        if n - m <= 0 or any(not any(a) for a in theta.A):
            continue
        rejects(theta, _forged_enum(theta), "is a flip set")


def test_lattice_enum_agrees_with_brute_force():
    rng = random.Random(6)
    accepted = 0
    for trial in range(40):
        n = rng.randint(3, 10)
        theta = Shallow.make([rng.choice([-7, -5, -3, 2, 4, 9, 11]) for _ in range(n)],
                             [[rng.choice([1, 2, 3, -1, -2])] for _ in range(n)], list(range(n)), [0])
        has = any(is_flip_set(theta, F) for s in range(1, n + 1) for F in itertools.combinations(range(n), s))
        ev = _forged_enum(theta)
        if has:
            rejects(theta, ev, "is a flip set")
        else:
            check(theta, ev)
            accepted += 1
    assert accepted >= 5


def test_all_ones_in_the_kernel():
    theta = Shallow.make([1, 1, 1, 1], [[1], [2], [-1], [-2]], [0, 1, 2, 3], [0])   # Σ u_i = 0: [n] is a flip set
    assert is_flip_set(theta, range(4))
    rejects(theta, _forged_enum(theta), "is a flip set")
    assert find_flip_set(theta).outcome == "found"


def test_lattice_enum_without_bkz_is_still_complete(enum_case):
    theta, ev = enum_case
    res = python_enum(theta, reduce=False)
    assert res.outcome.value == "none" and res.evidence["method"] == "lattice-enum"
    check(theta, res.evidence)
    if have_fpylll():
        assert res.evidence["nodes"] >= ev["nodes"]        # BKZ only shrinks the tree here


def test_limits():
    assert LATTICE_ENUM_MAX_NODES <= checker_flipsets.LATTICE_ENUM_NODE_LIMIT
    assert LATTICE_MAX_N >= 140


# ---------------------------------------------------------------------------
# the targets (docs/mathematics.md §3; benchmarks/bench_flipsets.py measures them against the baselines)
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("m,n", [(10, 140), (2, 50), (2, 60)])
def test_lattice_enum_targets(m, n):
    theta = float_theta(m=m, n=n, k=1, seed=0)
    res = find_flip_set(theta)
    assert res.outcome == "none" and res.evidence["method"] == ("lattice-cvp" if have_fpylll() else "lattice-enum")
    check(theta, thawed(res))


@pytest.mark.slow
def test_separation_64_1024_10():
    theta = float_theta(m=64, n=1024, k=10, seed=0)
    res = find_flip_set(theta)
    assert res.outcome == "none" and res.evidence["method"] == "separation"
    check(theta, thawed(res))


# ---------------------------------------------------------------------------
# the rank path: det mod p < 2^20 by float64 BLAS (producer), packed minors (checker)
# ---------------------------------------------------------------------------

def test_blas_det_agrees_with_flint():
    from flint import nmod_mat

    from reluid.analysis.shallow.flipsets._blasdet import _mulmod, det_mod_p

    p = 1048573
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 15, 16, 17, 33, 100, 129):
        X = rng.integers(-2**40, 2**40, size=(n, n))
        assert det_mod_p(X, p) == int(nmod_mat((X % p).tolist(), p).det())
        if n > 2:
            X[1] = 3 * X[0] - X[2]
            assert det_mod_p(X, p) == 0
    big = np.array([[2**100 + i * j + (i == j) for j in range(6)] for i in range(6)], dtype=object)
    assert det_mod_p(big, p) == int(nmod_mat([[int(x) % p for x in r] for r in big], p).det())
    X, Y = rng.integers(0, p, size=(3, 20000)), rng.integers(0, p, size=(20000, 2))      # chunked inner dimension
    ref = (X.astype(object) @ Y.astype(object)) % p
    assert (_mulmod(X.astype(float), Y.astype(float), p).astype(np.int64) == ref.astype(np.int64)).all()
    with pytest.raises(ValueError):
        det_mod_p(X[:, :3], 2**31 - 1)


def test_checker_minor_is_the_exact_minor_mod_p():
    import flint

    from reluid.checker.registry import Context

    rng = random.Random(3)
    for m, k, n in ((5, 3, 12), (7, 2, 14)):
        theta = float_theta(m, n, k, seed=n)
        ctx = Context(theta.to_network(), "c")
        for p in (1048573, 2147483647, 101):
            for _ in range(3):
                rows = sorted(rng.sample(range(k * m), n))
                U = [[theta.M[r // m][i] * theta.A[i][r % m] for i in range(n)] for r in rows]
                exact = flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in row] for row in U]).det()
                num, den = int(exact.p), int(exact.q)
                if den % p:
                    assert int(checker_flipsets._minor_det(ctx, theta, rows, p)) == num * pow(den, -1, p) % p


def test_rank_certificate_uses_contiguous_rows_and_a_small_prime():
    from reluid.analysis.shallow.flipsets.rank import contiguous_rows

    theta = float_theta(m=20, n=64, k=5, seed=1)
    res = find_flip_set(theta, method="rank")
    assert res.evidence["p"] < 2**20 and list(res.evidence["rows"]) == contiguous_rows(5, 20, 64)
    check(theta, thawed(res))
    # a zero input coordinate kills contiguous minors: random rows are tried, or the rank profile decides
    A = [list(r) for r in theta.A]
    for row in A:
        row[0] = 0
    holed = Shallow.make([list(r) for r in theta.M], A, list(theta.b), list(theta.c))
    res = find_flip_set(holed, method="rank")
    assert res.outcome == "none"
    check(holed, thawed(res))


@pytest.mark.slow
def test_rank_blas_path_2048():
    theta = float_theta(m=784, n=2048, k=10, seed=0)
    res = find_flip_set(theta, method="rank")
    assert res.outcome == "none" and res.evidence["p"] < 2**20
    check(theta, thawed(res))


def test_lattice_enum_leaf_limit_matches_the_checker():
    from reluid.analysis.shallow.flipsets.lattice import LATTICE_ENUM_MAX_LEAVES

    assert LATTICE_ENUM_MAX_LEAVES <= checker_flipsets.LATTICE_ENUM_LEAF_LIMIT


# ---------------------------------------------------------------------------
# malformed evidence: every defect is a CheckFailed, never another exception
# ---------------------------------------------------------------------------

JUNK = (None, -1, 0, 2**70, "x", "1/2", "2/4", 1.5, True, [], {}, [[]], [0], {"method": "rank"})


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for key, v in obj.items():
            yield from _paths(v, prefix + (key,))
    elif isinstance(obj, list) and obj:
        for i in {0, len(obj) - 1}:
            yield from _paths(obj[i], prefix + (i,))


def _replace(obj, path, value):
    if not path:
        return value
    out = copy.deepcopy(obj)
    cur = out
    for key in path[:-1]:
        cur = cur[key]
    cur[path[-1]] = value
    return out


def test_malformed_evidence_is_always_a_check_failure(separable, split_case, enum_case):
    rng = random.Random(8)
    for theta, ev in (separable, split_case, enum_case):
        paths = [p for p in _paths(ev) if p]
        for _ in range(150):
            path = rng.choice(paths)
            bad = _replace(ev, path, rng.choice(JUNK))
            try:
                check(theta, bad)
            except CheckFailed:
                pass
        for path in paths:                       # drop a list entry anywhere
            parent = path[:-1]
            target = ev
            for key in parent:
                target = target[key]
            if isinstance(target, list) and target:
                shorter = _replace(ev, parent, target[:-1]) if parent else target[:-1]
                try:
                    check(theta, shorter)
                except CheckFailed:
                    pass
