"""Ramakrishnan 2026, Corollary 9: a nontrivial stabilizer of (A, b) rules out a fibre ≅ H_n."""

from __future__ import annotations

from reluid.verdicts import Outcome

import random
from fractions import Fraction

from ._framework import (RAMAKRISHNAN, SEED_R, Checks, Statement, fmt, fmt_point, fmt_theta, fmt_vec,
                               random_shallow, shallow)
from reluid.analysis.shallow.decide import decide
from reluid.analysis.shallow.function import equivalent
from reluid.analysis.shallow.stabilizer import stabilizer
from reluid.model.network import Shallow
from reluid.report.reasons import text
from ._lemmas import shallow_transform


def _stab_ab_nontrivial(theta) -> bool:
    """Lemma 8: Stab_{H_n}(A, b) ≠ 1 iff some row (a_i, b_i) is 0 or two rows are positively proportional."""
    rows = [theta.row(i) for i in range(theta.n)]
    if any(not any(r) for r in rows):
        return True
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            lam = next((y / x for x, y in zip(rows[i], rows[j]) if x), None)
            if lam is not None and lam > 0 and all(lam * x == y for x, y in zip(rows[i], rows[j])):
                return True
    return False


def _plant(rng, theta) -> Shallow:
    """Force Stab(A, b) ≠ 1: copy a row positively scaled, or zero a row."""
    A, b = [list(r) for r in theta.A], list(theta.b)
    i, j = rng.sample(range(theta.n), 2)
    if rng.random() < 0.3:
        A[i], b[i] = [Fraction(0)] * theta.m, Fraction(0)
    else:
        lam = rng.choice((Fraction(1), Fraction(2), Fraction(1, 3)))
        A[i], b[i] = [lam * x for x in A[j]], lam * b[j]
    return Shallow.make([list(r) for r in theta.M], A, b, list(theta.c), m=theta.m)


def _printed_counterexample(res):
    mod = res.model
    v = [mod["v1"], mod["v2"]]
    a = [mod["a1"], mod["a2"]]
    b = [mod["b1"], mod["b2"]]
    lam = mod["lambda"]
    theta = shallow(v, a, b, mod["C"])
    prime = shallow([Fraction(0), v[1] + lam * v[0]], a, b, mod["C"])
    eq = equivalent(theta, prime)
    if eq.equal:
        return None
    return (f"θ = ({fmt_theta(theta)}) has λ(a_1, b_1) = (a_2, b_2) with λ = {fmt(lam)}; the printed M′ = "
            f"{fmt_vec(prime.M[0])} gives ρ(θ′)({fmt_point(eq.input)}) = {fmt(eq.outputs[1][0])} ≠ "
            f"ρ(θ)({fmt_point(eq.input)}) = {fmt(eq.outputs[0][0])}")


def check(max_n, timeout):
    c = Checks(timeout)
    n_top = max(2, max_n or 4)
    # the explicit parameters of the proof
    for m in (1, 2):
        for n in range(2, n_top + 1):
            c.z3_unsat_all(f"z3, m = {m}, n = {n}, second case, corrected M′ (v′_i = 0, v′_j = v_j + v_i/λ), "
                           "every ordered pair",
                           (shallow_transform("corollary-9-corrected", m, n, i=i, j=j, timeout=c.budget())
                            for i in range(n) for j in range(n) if i != j))
            c.z3_unsat_all(f"z3, m = {m}, n = {n}, first case, (a_i, b_i) = 0: v′_i = 0 (Lemma 11(2)'s "
                           "θ′, here C′ = C + v_i σ(0) = C), every position",
                           (shallow_transform("constant-neuron", m, n, i=i, timeout=c.budget()) for i in range(n)))
    res = shallow_transform("corollary-9-as-printed", 1, 2, nondegenerate=True, timeout=c.budget())
    if res.outcome is Outcome.FOUND and (text := _printed_counterexample(res)):
        c.trust.add("exact")
        c.line("z3, second case with M′ as printed (v′_j = v_j + λ v_i), m = 1, n = 2: sat, re-checked exactly")
        c.finding("In the proof of Corollary 9 (second case) the printed M′ has v′_j = v_j + λ v_i; with "
                  "λ(a_i, b_i) = (a_j, b_j) the correct weight is v_j + v_i/λ (v_i σ(z) = (v_i/λ) σ(λz)). The "
                  f"corollary itself is unaffected. Exact counterexample to the printed formula: {text}.")
    else:
        c.line(f"z3, second case with M′ as printed: {res.answer}")
    # differential: the corollary itself on random parameters with Stab(A, b) ≠ 1
    rng = random.Random(9)
    done, via_stab, via_fibre = 0, 0, 0
    for trial in range(300):
        if c.expired():
            c.out_of_time("the random comparison")
            break
        theta = random_shallow(rng, rng.randint(1, 2), rng.randint(2, max(4, n_top)), rng.randint(1, 2), plant=0.3)
        if not _stab_ab_nontrivial(theta):
            theta = _plant(rng, theta)
        assert _stab_ab_nontrivial(theta)
        d = decide(theta, timeout=min(10.0, c.budget()))
        st = stabilizer(theta)
        hidden = d.verdict.value == "hidden-symmetry"
        if d.verdict.value == "unknown":
            c.unknown.append(f"decide() returned unknown on θ = {fmt_theta(theta)} ({text(d.reasons)})")
            break
        if not (hidden or not st.is_trivial):
            c.exact("H_n does not act simply transitively on the fibre", False,
                    f"θ = {fmt_theta(theta)}: Stab(A, b) ≠ 1, yet decide() finds no hidden symmetry and "
                    "Stab_{H_n}(θ) = 1")
            break
        done += 1
        via_stab += not st.is_trivial
        via_fibre += hidden
    else:
        c.exact(f"differential, {done} seeded random θ with Stab_{{H_n}}(A, b) ≠ 1 (n ≤ {max(4, n_top)}, "
                f"m, k ≤ 2): every one has a hidden symmetry with an exactly verified witness θ′ "
                f"({via_fibre}) or a nontrivial Stab_{{H_n}}(θ) ({via_stab})", True, kind="differential")
    return c.outcome(
        f"The two parameters the proof constructs are in the fibre (z3, m ≤ 2, n ≤ {n_top}, corrected formula), "
        "and on random parameters with Stab(A, b) ≠ 1 reluid's complete decision always finds a hidden "
        "symmetry or a nontrivial stabilizer, so H_n never acts simply transitively on the fibre.")


STATEMENT = Statement(
    name="ramakrishnan_corollary_9",
    title="Corollary 9 (Stab(A, b) ≠ 1 ⇒ fibre ≄ H_n)",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §3, Lemma 8 and Corollary 9",
    statement="If Stab_{H_n}(A, b) ≠ 1 (by Lemma 8: some row (a_i, b_i) = 0, or λ(a_i, b_i) = (a_j, b_j) for some "
              "λ > 0, i ≠ j), then ρ⁻¹(θ) ≄ H_n: H_n does not act simply transitively on the fibre of θ (the "
              "fibre is more than one orbit, or θ has a nontrivial stabilizer).",
    method="z3 for the explicit θ′ of the proof (unknown parameters and input; goal ρ(θ)(x) ≠ ρ(θ′)(x)), with "
           "the printed and the corrected weight in the second case. Differential: on seeded random parameters "
           "with a planted zero row or positively proportional rows, reluid's complete decision "
           "(decide(), every witness re-verified exactly) or its stabilizer must show that the action is not "
           "simply transitive.",
    sizes="z3: m ∈ {1, 2}, n ≤ 4 (n ≤ N with --max-n N); 300 random θ with n ≤ max(4, N), m, k ≤ 2.",
    expected="holds",
    check=check,
    order=(3, 9),
)
