"""Ramakrishnan 2026, Proposition 24: its hypotheses leave no hidden symmetry."""

from __future__ import annotations

from reluid.verdicts import Outcome

import random

from ._framework import RAMAKRISHNAN, SEED_R, Checks, Statement, fmt_theta, random_shallow
from reluid.analysis.shallow.decide import decide
from reluid.analysis.shallow.zariski import evaluate
from reluid.report.reasons import text
from ._lemmas import hidden_symmetry_1d


def check(max_n, timeout):
    c = Checks(timeout)
    n_top = max_n or 5
    for n in range(1, n_top + 1):
        c.z3_unsat(f"z3, m = 1, n = {n}: Proposition 24's hypotheses ∧ ∃ θ′ ∉ H_n·θ with ρ(θ′) = ρ(θ)",
                   hidden_symmetry_1d(n, condition="prop24", timeout=c.budget()))
    rng = random.Random(24)
    done, tried = 0, 0
    n_diff = max(4, n_top)
    while done < 200 and tried < 3000:
        if c.expired():
            c.out_of_time("the random comparison")
            break
        tried += 1
        m = rng.choice((1, 2, 2, 3))
        theta = random_shallow(rng, m, rng.randint(1, n_diff), 1, plant=0.15, zero_ok=False)
        if evaluate(theta).outcome is not Outcome.NONE:
            continue
        d = decide(theta, timeout=min(10.0, c.budget()))
        if d.verdict.value == "unknown":
            c.unknown.append(f"decide() returned unknown on θ = {fmt_theta(theta)} ({text(d.reasons)})")
            break
        if d.verdict.value != "no-hidden-symmetries":
            c.exact("θ in Proposition 24's set has no hidden symmetry", False,
                    f"θ = ({fmt_theta(theta)}) satisfies Proposition 24's hypotheses but decide() gives a witness "
                    f"θ′ = ({fmt_theta(d.witness)}), verified exactly")
            break
        done += 1
    else:
        pass
    if done == 200:
        c.exact(f"differential, 200 seeded random θ ∈ Ω(m, n, 1) with m ≤ 3, n ≤ {n_diff} satisfying the "
                "hypotheses (checked exactly with reluid.analysis.shallow.zariski.evaluate): reluid's complete "
                "decision returns no-hidden-symmetries on every one", True, kind="differential")
    elif not c.failures and not c.unknown:
        c.unknown.append(f"only {done} random instances in the set were found")
    c.remark("Proposition 24 (with Lemma 23) is the content of Theorem 5: U = U∼ ∩ U4 consists of parameters "
             "whose fibre is a single H_n-orbit. For m = 1 the bounded search covers every parameter of the size; "
             "for m ≥ 2 the evidence is the differential comparison.")
    return c.outcome(
        f"For m = 1 and n ≤ {n_top} no parameter satisfying the hypotheses has a hidden symmetry (z3 unsat over "
        "all θ and θ′); for m ≤ 3, n ≤ 4 reluid's exact decision agrees on random parameters satisfying them.")


STATEMENT = Statement(
    name="ramakrishnan_proposition_24",
    title="Proposition 24 (a sufficient condition for no hidden symmetries)",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §5, Lemma 23, Proposition 24, Theorem 5",
    statement="Let θ = (v, A, b, C) ∈ Ω(m, n, 1) with v_i ≠ 0, (a_1, b_1), …, (a_n, b_n) pairwise linearly "
              "independent, and Σ_i β(i) v_i a_i ≠ 0 for every β : {1, …, n} → {0, ±1}, β ≠ 0. Then the only "
              "parameters realising v^T σ(Ax + b) + C are (v h⁻¹, hA, hb, C), h ∈ H_n: θ has no hidden symmetries.",
    method="z3 for m = 1: unknowns θ (scaled by H_n so that a_i = ±1, which preserves the hypotheses; a_i ≠ 0 "
           "follows from β = e_i) and θ′ "
           "(a′_j ∈ {−1, 0, 1}); 'ρ(θ′) = ρ(θ) for a suitable C′' is encoded exactly by the description of "
           "piecewise-linear functions of one variable (equal slope at −∞ and equal slope jumps v|a| at every "
           "breakpoint −b/a); 'θ′ ∉ H_n·θ' is the negation of a neuron-by-neuron match over all permutations; "
           "neurons of θ and of θ′ are sorted by breakpoint (symmetry breaking, without loss of generality); unsat "
           "expected. Differential for m ≤ 3: random parameters satisfying the hypotheses (checked "
           "exactly) must get no-hidden-symmetries from reluid's complete decision.",
    sizes="z3: m = 1, 1 ≤ n ≤ 5 (n ≤ N with --max-n N; n = 6 takes about a quarter of a minute, larger n "
          "may exceed the time limit); differential: 200 random θ with m ≤ 3, n ≤ max(4, N).",
    expected="holds",
    check=check,
    order=(5, 24),
)
