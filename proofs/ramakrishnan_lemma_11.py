"""Ramakrishnan 2026, Lemma 11: merging positively proportional neurons (1); absorbing constant neurons (2)."""

from __future__ import annotations

from reluid.verdicts import Outcome

from fractions import Fraction

from ._framework import RAMAKRISHNAN, SEED_R, Checks, Statement, fmt, fmt_point, fmt_theta, fmt_vec, shallow
from reluid.analysis.shallow.function import equivalent
from ._lemmas import shallow_transform


def _as_extracted_counterexample(res, m):
    """Rebuild θ and θ′ of the 'as extracted' reading from a z3 model and re-check exactly."""
    mod = res.model
    n = sum(1 for key in mod if key.startswith("v"))
    v = [mod[f"v{i + 1}"] for i in range(n)]
    a = [mod[f"a{i + 1}"] if m == 1 else [mod[f"a{i + 1}_{l + 1}"] for l in range(m)] for i in range(n)]
    b = [mod[f"b{i + 1}"] for i in range(n)]
    lam = mod["lambda"]
    theta = shallow(v, a, b, mod["C"])
    v2 = list(v)
    v2[0], v2[1] = v[0] + lam * v[1], Fraction(0)
    theta2 = shallow(v2, a, b, mod["C"])
    eq = equivalent(theta, theta2)
    x = eq.input
    text = (f"θ = ({fmt_theta(theta)}) has λ(a_2, b_2) = (a_1, b_1) with λ = {fmt(lam)}; the extracted formula "
            f"gives v′ = {fmt_vec(v2)}, and at x = {fmt_point(x)} "
            f"ρ(θ) = {fmt(eq.outputs[0][0])} but ρ(θ′) = {fmt(eq.outputs[1][0])}" if not eq.equal else "")
    return (not eq.equal), text


def check(max_n, timeout):
    c = Checks(timeout)
    n_top = max(2, max_n or 4)
    for m in (1, 2):
        for n in range(2, n_top + 1):
            pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
            c.z3_unsat_all(f"z3 (1), m = {m}, n = {n}, all {len(pairs)} ordered pairs (i, j)",
                           (shallow_transform("merge", m, n, i=i, j=j, timeout=c.budget()) for i, j in pairs))
        for n in range(1, n_top + 1):
            c.z3_unsat_all(f"z3 (2), m = {m}, n = {n}, every position i",
                           (shallow_transform("constant-neuron", m, n, i=i, timeout=c.budget()) for i in range(n)))
        c.z3_sat(f"z3 (1), m = {m}, n = 2, proportionality dropped (vacuity check)",
                 shallow_transform("merge", m, 2, hypothesis=False, timeout=c.budget()))
        c.z3_sat(f"z3 (2), m = {m}, n = 2, a_1 = 0 dropped (vacuity check)",
                 shallow_transform("constant-neuron", m, 2, hypothesis=False, timeout=c.budget()))
    # the seed text's orientation of (1)
    res = shallow_transform("merge-as-extracted", 1, 2, nondegenerate=True, timeout=c.budget())
    if res.outcome is Outcome.FOUND:
        ok, text = _as_extracted_counterexample(res, 1)
        if ok:
            c.trust.add("exact")
            c.line("z3, the extracted reading of (1) (λ(a_j, b_j) = (a_i, b_i), v′_i = v_i + λv_j), m = 1, n = 2: "
                   "sat, re-checked exactly with reluid.analysis.shallow.function.equivalent")
            c.finding("Lemma 11(1) as it reads in the seed text — λ(a_j, b_j) = (a_i, b_i) ⇒ v′_i = v_i + λ v_j, "
                      "v′_j = 0 — is false unless λ = 1: then (a_i, b_i) = λ(a_j, b_j) and the merged weight on "
                      "neuron i must be v_i + v_j/λ. The intended statement (checked above) has the hypothesis "
                      f"λ(a_i, b_i) = (a_j, b_j). Exact counterexample to the extracted reading: {text}.")
    else:
        c.line(f"z3, the extracted reading of (1): {res.answer}")
    return c.outcome(f"(1) and (2) proved for m ∈ {{1, 2}} and n ≤ {n_top}, every position (z3 unsat with all "
                     "parameters and the input unknown).")


STATEMENT = Statement(
    name="ramakrishnan_lemma_11",
    title="Lemma 11 (1) and (2) (merging and absorbing)",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §4, Lemma 11",
    statement="(1) If λ(a_i, b_i) = (a_j, b_j) for some λ > 0 and i ≠ j, then ρ(v, A, b, C) = ρ(v′, A, b, C) with "
              "v′_i = v_i + λ v_j, v′_j = 0 and v′_l = v_l otherwise (v_i σ(z) + v_j σ(λz) = (v_i + λv_j) σ(z)). "
              "(2) If a_i = 0 then ρ(v, A, b, C) = ρ(v†, A, b, C + v_i σ(b_i)) with v†_i = 0 and v†_l = v_l "
              "otherwise.",
    method="z3 with ReLU as If: unknowns θ, λ and x; hypotheses as stated; goal ρ(θ)(x) ≠ ρ(θ′)(x) (unsat "
           "expected), for every ordered pair (i, j) resp. position i. Vacuity checks drop the hypothesis "
           "(sat expected). The orientation of (1) as it reads in the seed text is also searched; its "
           "counterexample is re-checked with reluid's exact equivalence.",
    sizes="m ∈ {1, 2}, n ≤ 4 (n ≤ N with --max-n N).",
    expected="holds",
    check=check,
    order=(4, 11),
)
