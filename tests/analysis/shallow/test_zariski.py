"""Tests for the Zariski conditions of Lemma 23 / Proposition 24 / Theorem 5."""

from __future__ import annotations

import itertools
import math
import random
import time
from fractions import Fraction

import pytest
import sympy

from reluid.analysis.shallow.zariski import (
    FAMILIES,
    Condition,
    ConditionSet,
    Vanishing,
    conditions,
    evaluate,
    iter_signs,
    parameter_symbols,
    substitution,
)
from reluid.report.conditions import generate_conditions as render
from reluid.verdicts import Outcome
from reluid.errors import InvalidArgument, NotShallow
from reluid.model.network import Network, Shallow

# ---------------------------------------------------------------------------
# named examples
# ---------------------------------------------------------------------------

# σ(x) + σ(x + 1): no hidden symmetry, but β = (1, −1) cancels (docs/mathematics.md §2).
RELU_PLUS_SHIFT = Shallow.make([1, 1], [[1], [1]], [0, 1], [0])
# Definition 9 read literally holds, the v-weighted V4 fails at β = (1, 1).
LITERAL_DEF9 = Shallow.make([2, -1], [[1], [2]], [0, 1], [0])
GENERIC = Shallow.make([1, 2, 5], [[1, 0], [0, 1], [1, 2]], [0, 1, -1], [0])
ZERO_A_ROW = Shallow.make([1, 1], [[1, 1], [0, 0]], [0, 1], [0])
PROPORTIONAL = Shallow.make([1, 1, 3], [[1, 2], [2, 4], [0, 1]], [1, 2, 5], [0])


def random_theta(rng: random.Random, m: int, n: int, k: int, lo: int = -2, hi: int = 2) -> Shallow:
    return Shallow.make([[rng.randint(lo, hi) for _ in range(n)] for _ in range(k)],
                        [[rng.randint(lo, hi) for _ in range(m)] for _ in range(n)],
                        [rng.randint(lo, hi) for _ in range(n)],
                        [rng.randint(lo, hi) for _ in range(k)])


SHAPES = [(1, 1, 1), (1, 2, 1), (2, 3, 1), (1, 3, 2), (2, 2, 3), (3, 4, 1), (2, 4, 2)]


# ---------------------------------------------------------------------------
# the condition set
# ---------------------------------------------------------------------------

def test_counts_m1_n2_k1():
    cs = conditions(1, 2, 1)
    assert [cs.count(f) for f in FAMILIES] == [2, 1, 2, 4]
    assert cs.count() == 9


@pytest.mark.parametrize("m,n,k", SHAPES + [(2, 0, 1)])
@pytest.mark.parametrize("literal", [False, True])
def test_counts_match_the_generated_conditions(m, n, k, literal):
    cs = conditions(m, n, k, literal_definition_9=literal)
    v4 = (3 ** n - 1) // 2 * (1 if literal else k)
    assert [cs.count(f) for f in FAMILIES] == [n * k, math.comb(n, 2), n, v4]
    for fam in FAMILIES:
        conds = list(cs.iter_conditions(fam))
        assert len(conds) == cs.count(fam)
        assert len({(c.index, c.output) for c in conds}) == len(conds)
        assert all(c.meaning == "nonzero-any" and c.family == fam for c in conds)
        assert all(c.reference.startswith("Ramakrishnan 2026, ") for c in conds)


def test_polynomials_are_the_papers():
    cs = conditions(2, 2)
    (v1, v2), = parameter_symbols(2, 2)[0]
    a = sympy.symbols("a_1_1 a_1_2 a_2_1 a_2_2")
    b1, b2 = sympy.symbols("b_1 b_2")
    assert [c.polynomials for c in cs.iter_conditions("V1")] == [(v1,), (v2,)]
    (pair,) = cs.iter_conditions("V2")
    assert pair.index == (0, 1)
    assert pair.polynomials == (a[0] * a[3] - a[1] * a[2], a[0] * b2 - a[2] * b1, a[1] * b2 - a[3] * b1)
    assert next(cs.iter_conditions("V3")).polynomials == (a[0], a[1])
    by_beta = {c.index: c for c in cs.iter_conditions("V4")}
    assert set(by_beta) == {(1, 0), (0, 1), (1, 1), (1, -1)}
    assert by_beta[(1, -1)].polynomials == (v1 * a[0] - v2 * a[2], v1 * a[1] - v2 * a[3])
    assert "Proposition 24" in by_beta[(1, 1)].reference

    literal = conditions(2, 2, literal_definition_9=True)
    lit = {c.index: c for c in literal.iter_conditions("V4")}
    assert lit[(1, -1)].polynomials == (a[0] - a[2], a[1] - a[3])
    assert "Definition 9" in lit[(1, -1)].reference


def test_multi_output_symbols_follow_proposition_20():
    cs = conditions(1, 2, 2)
    M = sympy.symbols("M_1_1 M_1_2 M_2_1 M_2_2")
    v1 = list(cs.iter_conditions("V1"))
    assert [(c.output, c.polynomials) for c in v1] == [(0, (M[0],)), (0, (M[1],)), (1, (M[2],)), (1, (M[3],))]
    assert all("Proposition 20" in c.reference for c in v1)
    v4 = [c for c in cs.iter_conditions("V4") if c.index == (1, 1)]
    a1, a2 = sympy.symbols("a_1_1 a_2_1")
    assert [(c.output, c.polynomials) for c in v4] == [(0, (M[0] * a1 + M[1] * a2,)), (1, (M[2] * a1 + M[3] * a2,))]
    # V2 and V3 involve only (A, b): listed once, not per output
    assert all(c.output is None for f in ("V2", "V3") for c in cs.iter_conditions(f))


def test_condition_set_is_frozen_and_holds_tuples():
    cs = conditions(2, 3, 2)
    assert isinstance(cs.families, tuple)
    with pytest.raises(AttributeError):
        cs.n = 4
    c = next(cs.iter_conditions("V2"))
    assert isinstance(c, Condition) and isinstance(c.polynomials, tuple)
    assert not hasattr(cs, "__dict__")


def test_iter_signs_is_every_beta_up_to_sign():
    for n in range(0, 7):
        betas = list(iter_signs(n))
        assert len(betas) == (3 ** n - 1) // 2
        assert len(set(betas)) == len(betas)
        assert all(next(x for x in b if x) == 1 for b in betas)
        everything = {b for b in itertools.product((-1, 0, 1), repeat=n) if any(b)}
        assert set(betas) | {tuple(-x for x in b) for b in betas} == everything


def test_v4_count_for_large_n_is_combinatorial_and_fast():
    start = time.perf_counter()
    cs = conditions(3, 40)
    assert cs.count("V4") == (3 ** 40 - 1) // 2
    assert conditions(3, 40, 5).count("V4") == 5 * ((3 ** 40 - 1) // 2)
    first = list(cs.iter_conditions("V4", limit=3))
    assert [c.index[:3] for c in first] == [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize("bad", [dict(m=0, n=2), dict(m=1, n=-1), dict(m=1, n=2, k=0), dict(m=1.0, n=2),
                                 dict(m=True, n=2)])
def test_conditions_rejects_bad_dimensions(bad):
    with pytest.raises(InvalidArgument):
        conditions(**bad)


# ---------------------------------------------------------------------------
# exact evaluation agrees with the sympy polynomials
# ---------------------------------------------------------------------------

def _sympy_values(cond: Condition, sub: dict) -> tuple:
    return tuple(sympy.Rational(p.xreplace(sub)) for p in cond.polynomials)


def _q(x: Fraction):
    return sympy.Rational(x.numerator, x.denominator)


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("literal", [False, True])
def test_sympy_polynomials_agree_with_exact_evaluation(m, n, k, literal):
    rng = random.Random(1000 * m + 100 * n + 10 * k + literal)
    cs = conditions(m, n, k, literal_definition_9=literal)
    for _ in range(6):
        theta = random_theta(rng, m, n, k, -1, 1)   # small entries: many vanishings
        sub = substitution(theta)
        ev = evaluate(theta, literal_definition_9=literal, sample=10 ** 6, max_violations=10 ** 6)
        for fam in FAMILIES:
            conds = {(c.index, c.output): c for c in cs.iter_conditions(fam)}
            vanishing = set()
            for key, c in conds.items():
                exact = cs.values_at(c, theta)
                assert all(isinstance(x, Fraction) for x in exact)
                assert _sympy_values(c, sub) == tuple(_q(x) for x in exact)
                if not any(exact):
                    vanishing.add(key)
            res = ev.family(fam)
            assert {(v.index, v.output) for v in res.violations} == vanishing
            assert res.violation_count == len(vanishing)
            assert res.outcome is (Outcome.FOUND if vanishing else Outcome.NONE)
            assert res.checked == res.total == cs.count(fam)
            assert len(res.witnesses_sample) == len(conds) - len(vanishing)
            for w in res.witnesses_sample:
                c = conds[(w.index, w.output)]
                assert w.value != 0
                assert sympy.Rational(c.polynomials[w.position].xreplace(sub)) == _q(w.value)
                assert sympy.sympify(w.where).xreplace(sub) == _q(w.value)
        assert (ev.outcome is Outcome.NONE) is all(ev.family(f).outcome is Outcome.NONE for f in FAMILIES)


def test_rational_entries_evaluate_exactly():
    theta = Shallow.make(["1/3", "-2/7"], [["3/5"], ["-7/10"]], ["1/2", "1/9"], [0])
    cs = conditions(1, 2)
    sub = substitution(theta)
    for fam in FAMILIES:
        for c in cs.iter_conditions(fam):
            assert _sympy_values(c, sub) == tuple(_q(x) for x in cs.values_at(c, theta))
    ev = evaluate(theta)
    # v_1 a_1 = 1/5 = v_2 a_2: β = (1, −1) cancels exactly
    assert ev.family("V4").violations == (Vanishing("V4", (1, -1)),)


def test_meet_in_the_middle_matches_brute_force():
    rng = random.Random(7)
    for _ in range(40):
        m, n, k = rng.randint(1, 2), rng.randint(1, 7), rng.randint(1, 2)
        theta = random_theta(rng, m, n, k, -2, 2)
        res = evaluate(theta, max_violations=10 ** 6).family("V4")
        brute = set()
        for j in range(k):
            w = [[theta.M[j][i] * x for x in theta.A[i]] for i in range(n)]
            for beta in iter_signs(n):
                if not any(sum(b * w[i][l] for i, b in enumerate(beta)) for l in range(m)):
                    brute.add((beta, j if k > 1 else None))
        assert {(v.index, v.output) for v in res.violations} == brute
        assert res.violation_count == len(brute)


def test_violation_sample_is_capped_but_counted_exactly():
    n = 10
    theta = Shallow.make([1] * n, [[1]] * n, list(range(n)), [0])
    res = evaluate(theta, max_violations=5).family("V4")
    # β vanishes iff it has as many +1 as −1: Σ_s C(n, 2s) C(2s, s), halved, minus β = 0
    expected = (sum(math.comb(n, 2 * s) * math.comb(2 * s, s) for s in range(n // 2 + 1)) - 1) // 2
    assert res.violation_count == expected
    assert len(res.violations) == 5
    assert res.outcome is Outcome.FOUND


# ---------------------------------------------------------------------------
# the named examples
# ---------------------------------------------------------------------------

def test_relu_plus_shift_violates_v4_at_one_minus_one():
    ev = evaluate(RELU_PLUS_SHIFT)
    assert ev.outcome is Outcome.FOUND
    for fam in ("V1", "V2", "V3"):
        assert ev.family(fam).outcome is Outcome.NONE
    v4 = ev.family("V4")
    assert v4.violations == (Vanishing("V4", (1, -1)),)
    assert v4.violation_count == 1 and v4.checked == v4.total == 4


def test_literal_definition_9_holds_but_weighted_v4_fails():
    literal = evaluate(LITERAL_DEF9, literal_definition_9=True)
    assert literal.outcome is Outcome.NONE
    assert literal.family("V4").violations == ()
    assert "Definition 9" in literal.family("V4").reference

    weighted = evaluate(LITERAL_DEF9)
    assert weighted.outcome is Outcome.FOUND
    assert weighted.family("V4").violations == (Vanishing("V4", (1, 1)),)   # 2·1 + (−1)·2 = 0
    assert all(weighted.family(f).outcome is Outcome.NONE for f in ("V1", "V2", "V3"))


def test_generic_theta_satisfies_every_condition():
    ev = evaluate(GENERIC)
    assert ev.outcome is Outcome.NONE
    for res in ev.families:
        assert res.outcome is Outcome.NONE and res.violations == () and res.checked == res.total
    assert ev.family("V4").total == 13
    assert (ev.m, ev.n, ev.k) == (2, 3, 1)


def test_zero_row_violates_v3():
    ev = evaluate(ZERO_A_ROW)
    assert ev.family("V3").violations == (Vanishing("V3", (1,)),)
    assert ev.family("V3").outcome is Outcome.FOUND
    assert ev.family("V1").outcome is Outcome.NONE
    assert ev.outcome is Outcome.FOUND


def test_proportional_rows_violate_v2():
    ev = evaluate(PROPORTIONAL)
    v2 = ev.family("V2")
    assert v2.violations == (Vanishing("V2", (0, 1)),)
    assert v2.outcome is Outcome.FOUND and v2.violation_count == 1
    assert {w.index for w in v2.witnesses_sample} == {(0, 2), (1, 2)}
    assert ev.family("V3").outcome is Outcome.NONE


def test_zero_row_with_bias_is_dependent_only_if_the_whole_row_vanishes():
    theta = Shallow.make([1, 1, 1], [[0], [0], [1]], [0, 3, 1], [0])
    v2 = evaluate(theta).family("V2")
    # row 0 is (0, 0): dependent with every row; rows 1 and 2 are independent
    assert [v.index for v in v2.violations] == [(0, 1), (0, 2)]


def test_multi_output_checks_each_projection():
    # output 1 is σ(x) + σ(x+1) (β = (1, −1) cancels), output 2 is generic
    theta = Shallow.make([[1, 1], [1, 2]], [[1], [1]], [0, 1], [0, 0])
    ev = evaluate(theta)
    assert ev.family("V4").violations == (Vanishing("V4", (1, -1), 0),)
    assert ev.family("V4").total == 8
    assert ev.family("V1").outcome is Outcome.NONE
    assert ev.outcome is Outcome.FOUND
    # a zero output weight in the second projection only
    theta = Shallow.make([[1, 2], [3, 0]], [[1], [5]], [0, 1], [0, 0])
    assert evaluate(theta).family("V1").violations == (Vanishing("V1", (1,), 1),)


# ---------------------------------------------------------------------------
# large n: V4 is not enumerated without a limit
# ---------------------------------------------------------------------------

def test_large_n_v4_not_enumerated_without_limit():
    n = 40
    theta = Shallow.make(list(range(1, n + 1)), [[i + 1, 2 ** i] for i in range(n)], [i * i for i in range(n)], [0])
    start = time.perf_counter()
    ev = evaluate(theta)
    v4 = ev.family("V4")
    assert v4.outcome is Outcome.UNKNOWN and v4.checked == 0 and v4.total == (3 ** n - 1) // 2
    assert "not enumerated" in v4.note
    assert ev.outcome is Outcome.UNKNOWN
    assert all(ev.family(f).outcome is Outcome.NONE for f in ("V1", "V2", "V3"))

    limited = evaluate(theta, limit=500).family("V4")
    assert limited.checked == 500 and limited.outcome is Outcome.UNKNOWN and limited.violations == ()
    assert time.perf_counter() - start < 5.0


def test_limit_finds_an_early_violation_for_large_n():
    n = 20
    A = [[i + 1] for i in range(n)]
    A[5] = [1]   # neurons 0 and 5 have v_i a_i = 1: β = e_0 − e_5 cancels
    theta = Shallow.make([1] * n, A, list(range(n)), [0])
    v4 = evaluate(theta, limit=1000).family("V4")
    assert v4.outcome is Outcome.FOUND
    beta = tuple(1 if i == 0 else -1 if i == 5 else 0 for i in range(n))
    assert Vanishing("V4", beta) in v4.violations


# ---------------------------------------------------------------------------
# input handling and rendering
# ---------------------------------------------------------------------------

def test_evaluate_accepts_a_shallow_network_and_rejects_deep_ones():
    assert evaluate(GENERIC.to_network()) == evaluate(GENERIC)
    deep = Network.from_lists([([[1]], [0]), ([[1]], [0]), ([[1]], [0])])
    with pytest.raises(NotShallow):
        evaluate(deep)
    with pytest.raises(InvalidArgument):
        evaluate("not a network")
    with pytest.raises(InvalidArgument):
        evaluate(GENERIC, limit=-1)
    with pytest.raises(InvalidArgument):
        conditions(1, 2).values_at(next(conditions(1, 2).iter_conditions("V1")), GENERIC)
    with pytest.raises(InvalidArgument):
        conditions(1, 2).count("V5")


def test_render_text():
    text = render(conditions(1, 2), limit=2)
    assert "Ω(m=1, n=2, k=1)" in text
    assert "V4: Σ_i β(i) v_i a_i ≠ 0" in text and "-- 4 conditions" in text
    assert "a_1_1*b_2 - a_2_1*b_1 ≠ 0" in text
    assert "... 2 more" in text
    assert "Lemma 23" in text and "Proposition 24" in text
    full = render(conditions(1, 2))
    assert "a_1_1*v_1 - a_2_1*v_2 ≠ 0" in full and "more" not in full


def test_render_latex_and_large_n():
    tex = render(conditions(2, 3, 2), fmt="latex", limit=1)
    assert tex.count(r"\begin{itemize}") == tex.count(r"\end{itemize}") == 4
    assert r"M_{1,1} \neq 0 \quad (\pi_{1})" in tex
    assert r"\left(a_{1,1}, a_{1,2}\right) \neq 0" in tex
    assert tex.count("$") % 2 == 0
    start = time.perf_counter()
    big = render(conditions(1, 40), limit=3)
    assert f"{(3 ** 40 - 1) // 2} conditions" in big
    assert time.perf_counter() - start < 2.0
    with pytest.raises(InvalidArgument):
        render(conditions(1, 2), fmt="html")
    literal = render(conditions(1, 2, literal_definition_9=True))
    assert "Definition 9" in literal and "a_1_1 - a_2_1 ≠ 0" in literal


def test_render_accepts_only_a_condition_set():
    with pytest.raises(InvalidArgument):
        render(evaluate(GENERIC))
    assert isinstance(conditions(1, 1), ConditionSet)
