"""Planted shallow cases across every family, each decided, certified, checked and compared with the truth.

Families (docs/mathematics.md §2, §4): generic (no planting), planted flip
sets, dead outputs, constant neurons, positively proportional rows, opposite
pairs with cancelling kinks, opposite pairs with nonzero kinks (independent and
dependent directions), and multi-output networks with a flip set for each
output but none jointly.  The truth is known by construction, or by brute
force over every subset where n is small, or (essential stratum) by z3's
realisation-pattern search, which shares no code with the exact decision.

The default run takes a fixed sample; ``--runslow`` takes all 10 000 cases.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction as F

import pytest

from reluid.analysis.shallow.function import canonical_row, equivalent
from reluid.api import certify
from reluid.checker.check import check_certificate
from reluid.model.network import Shallow
from reluid.verdicts import Verdict

CASES = 10_000
SAMPLE = 400
STATS: Counter = Counter()


def _q(rng, lo=-4, hi=4, nonzero=False):
    while True:
        x = F(rng.randint(lo, hi), rng.choice((1, 1, 1, 2, 3)))
        if x or not nonzero:
            return x


def _rows(rng, n, m, *, distinct=True):
    while True:
        A = [[_q(rng) for _ in range(m)] for _ in range(n)]
        b = [_q(rng) for _ in range(n)]
        if any(not any(a) for a in A):
            continue
        keys = {canonical_row(a, bi)[0] for a, bi in zip(A, b)}
        if not distinct or len(keys) == n:
            return A, b


def _brute_flip_set(t: Shallow) -> bool:
    return any(all(sum(t.M[j][i] * t.A[i][l] for i in S) == 0 for j in range(t.k) for l in range(t.m))
               for r in range(1, t.n + 1) for S in itertools.combinations(range(t.n), r))


def generic(rng):
    m, k, n = rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 7)
    A, b = _rows(rng, n, m)
    M = [[_q(rng, nonzero=True) for _ in range(n)] for _ in range(k)]
    t = Shallow.make(M, A, b, [_q(rng) for _ in range(k)], m=m)
    return t, _brute_flip_set(t)


def planted_flip_set(rng):
    """k = 1: choose m_i for i ∈ F so that Σ_F m_i a_i = 0 (possible when |F| > m and the a_i are generic)."""
    m = rng.randint(1, 2)
    n = rng.randint(m + 1, 7)
    while True:
        A, b = _rows(rng, n, m)
        size = rng.randint(m + 1, n)
        S = rng.sample(range(n), size)
        # solve Σ_{i∈S} v_i a_i = 0 with v_i ≠ 0: fix v for all but m of them, solve for the last m exactly
        free, last = S[:-m], S[-m:]
        v = {i: _q(rng, nonzero=True) for i in free}
        rhs = [-sum(v[i] * A[i][l] for i in free) for l in range(m)]
        B = [[A[i][l] for i in last] for l in range(m)]
        sol = _solve(B, rhs)
        if sol is None or any(x == 0 for x in sol):
            continue
        v.update(zip(last, sol))
        M = [[v.get(i, _q(rng, nonzero=True)) for i in range(n)]]
        t = Shallow.make(M, A, b, [_q(rng)], m=m)
        return t, True


def _solve(B, rhs):
    m = len(rhs)
    aug = [list(B[r]) + [rhs[r]] for r in range(m)]
    for c in range(m):
        p = next((r for r in range(c, m) if aug[r][c]), None)
        if p is None:
            return None
        aug[c], aug[p] = aug[p], aug[c]
        for r in range(m):
            if r != c and aug[r][c]:
                f = aug[r][c] / aug[c][c]
                aug[r] = [x - f * y for x, y in zip(aug[r], aug[c])]
    return [aug[r][m] / aug[r][r] for r in range(m)]


def _degenerate(rng, kind):
    m, k = rng.randint(1, 2), rng.randint(1, 2)
    n = rng.randint(2, 5)
    A, b = _rows(rng, n, m)
    M = [[_q(rng, nonzero=True) for _ in range(n)] for _ in range(k)]
    i, j = rng.sample(range(n), 2)
    if kind == "dead":
        for r in M:
            r[i] = F(0)
    elif kind == "constant":
        A[i] = [F(0)] * m
    elif kind == "proportional":
        lam = F(rng.randint(1, 4), rng.randint(1, 3))
        A[j], b[j] = [lam * x for x in A[i]], lam * b[i]
    elif kind == "cancelling":
        lam = F(rng.randint(1, 4), rng.randint(1, 3))
        A[j], b[j] = [-lam * x for x in A[i]], -lam * b[i]
        for r in M:                      # |λ_i| m_i + |λ_j| m_j = 0 on the pair's canonical row
            r[j] = -r[i] / lam
    return Shallow.make(M, A, b, [_q(rng) for _ in range(k)], m=m), True


def opposite_pairs(rng):
    """Opposite pairs with nonzero kinks; the truth from z3's pattern search (an independent implementation)."""
    from reluid.analysis.shallow.decide import _classes, _kernel_vector
    from reluid.analysis.shallow.function import function_data
    from reluid.smt.patterns import PAIR, SINGLE_NEG, SINGLE_POS, PatternProblem, search_other_pattern
    from reluid.smt.solver import SolverConfig
    from reluid.verdicts import Outcome

    while True:
        m, k = rng.randint(1, 3), rng.randint(1, 2)
        singles, pairs = rng.randint(0, 3), rng.randint(1, min(2, m))
        A, b = _rows(rng, singles + pairs, m)
        M = [[_q(rng, nonzero=True) for _ in range(singles + 2 * pairs)] for _ in range(k)]
        rowsA, rowsb = list(A), list(b)
        for p in range(pairs):
            src = singles + p
            lam = F(rng.randint(1, 3), rng.randint(1, 2))
            rowsA.append([-lam * x for x in A[src]])
            rowsb.append(-lam * b[src])
        t = Shallow.make(M, rowsA, rowsb, [_q(rng) for _ in range(k)], m=m)
        classes = _classes(t)
        pairs_ = {r: ms for r, ms in classes.items() if len(ms) == 2}
        if any(not any(sum(abs(l) * t.M[j][i] for i, l in ms) for j in range(k)) for ms in pairs_.values()):
            continue                                     # a cancelling pair: another family
        dirs = [tuple(F(x) for x in r[:m]) for r in sorted(pairs_)]
        if _kernel_vector(dirs) is not None:
            return t, True                               # dependent directions: hidden (docs/mathematics.md §4)
        fd = function_data(t)
        keys = tuple(sorted(fd.kinks))
        own = tuple(PAIR if len(classes[r]) == 2 else (SINGLE_POS if classes[r][0][1] > 0 else SINGLE_NEG)
                    for r in keys)
        problem = PatternProblem(m, k, t.n, tuple(tuple(F(x) for x in r) for r in keys),
                                 tuple(fd.kinks[r] for r in keys), fd.linear, own)
        outcome, _, _ = search_other_pattern(problem, SolverConfig(timeout_ms=20_000))
        if outcome is Outcome.UNKNOWN:
            continue
        return t, outcome is Outcome.FOUND


def per_output_not_joint(rng):
    """k = 2, m = 1: output 1 has a flip set, output 2 another one; jointly none (checked by brute force)."""
    while True:
        n = rng.randint(3, 6)
        A, b = _rows(rng, n, 1)
        M = [[_q(rng, nonzero=True) for _ in range(n)] for _ in range(2)]
        for out, size in ((0, 2), (1, 3)):
            S = rng.sample(range(n), size)
            tot = sum(M[out][i] * A[i][0] for i in S[:-1])
            if tot == 0:
                break
            M[out][S[-1]] = -tot / A[S[-1]][0]
        else:
            t = Shallow.make(M, A, b, [F(0), F(0)], m=1)
            alone = [Shallow.make([t.M[j]], t.A, t.b, [0], m=1) for j in range(2)]
            if all(_brute_flip_set(a) for a in alone):
                return t, _brute_flip_set(t)


FAMILIES = {
    "generic": generic,
    "planted-flip-set": planted_flip_set,
    "dead": lambda rng: _degenerate(rng, "dead"),
    "constant": lambda rng: _degenerate(rng, "constant"),
    "proportional": lambda rng: _degenerate(rng, "proportional"),
    "cancelling-pair": lambda rng: _degenerate(rng, "cancelling"),
    "opposite-pairs": opposite_pairs,
    "per-output-not-joint": per_output_not_joint,
}
NAMES = sorted(FAMILIES)


def case(index: int):
    rng = random.Random(f"planted-{index}")
    family = NAMES[index % len(NAMES)]
    theta, hidden = FAMILIES[family](rng)
    return family, theta, hidden


def _run(index: int) -> None:
    family, theta, hidden = case(index)
    cert = certify(theta, timeout=30)
    report = check_certificate(cert)
    assert report.valid, (family, index, report.reason)
    assert cert.verdict is not Verdict.UNKNOWN, (family, index, cert.reasons)
    assert (cert.verdict is Verdict.HIDDEN) == hidden, (family, index, theta)
    if hidden:
        eq = equivalent(theta, cert.witness.network.shallow())
        assert eq.equal and not eq.same_orbit
    STATS[(family, cert.verdict.value)] += 1


@pytest.mark.parametrize("index", range(0, CASES, CASES // SAMPLE))
def test_planted_case(index):
    _run(index)


@pytest.mark.slow
def test_all_planted_cases():
    for index in range(CASES):
        _run(index)
    print("\nplanted suite:", dict(sorted(STATS.items())))
    assert sum(STATS.values()) >= CASES
