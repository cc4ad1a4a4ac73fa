"""Ramakrishnan 2026, Definition 9 read literally inside Theorem 5: z3 finds a hidden symmetry."""

from __future__ import annotations

from reluid.verdicts import Outcome

from fractions import Fraction

from ._framework import RAMAKRISHNAN, SEED_R, Checks, Statement, fmt, fmt_theta, fmt_vec, shallow
from reluid.analysis.shallow.decide import decide
from reluid.analysis.shallow.function import equivalent
from reluid.analysis.shallow.zariski import evaluate
from reluid.model.network import Shallow
from ._lemmas import hidden_symmetry_1d


def _from_model(mod, n):
    theta = shallow([mod[f"v{i + 1}"] for i in range(n)], [mod[f"a{i + 1}"] for i in range(n)],
                    [mod[f"b{i + 1}"] for i in range(n)], 0)
    prime = shallow([mod[f"v{i + 1}'"] for i in range(n)], [mod[f"a{i + 1}'"] for i in range(n)],
                    [mod[f"b{i + 1}'"] for i in range(n)], 0)
    # the search fixes C′ only through ρ(θ′) − ρ(θ) being constant: choose it exactly
    shift = theta((Fraction(0),))[0] - prime((Fraction(0),))[0]
    prime = Shallow(prime.M, prime.A, prime.b, (shift,), prime.m)
    return theta, prime


def check(max_n, timeout):
    c = Checks(timeout)
    n = 2
    res = hidden_symmetry_1d(n, condition="literal-def9", normalise=False, timeout=c.budget())
    c.z3_sat("z3, m = 1, n = 2: V1–V3 ∧ Σ β(i) a_i ≠ 0 for all β ≠ 0 (Definition 9 literally) ∧ ∃ θ′ ∉ H_2·θ "
             "with ρ(θ′) = ρ(θ)", res)
    if res.outcome is not Outcome.FOUND:
        return c.unknown_outcome("No candidate was found.", f"z3 answered {res.answer}")
    theta, prime = _from_model(res.model, n)
    lit = evaluate(theta, literal_definition_9=True)
    weighted = evaluate(theta)
    eq = equivalent(theta, prime)
    d = decide(theta, timeout=c.budget())
    c.exact("θ satisfies V1, V2, V3 and the literal U4 (reluid.analysis.shallow.zariski.evaluate with "
            "literal_definition_9=True)", lit.outcome is Outcome.NONE)
    c.exact("ρ(θ′) = ρ(θ) and θ′ ∉ H_2·θ (reluid.analysis.shallow.function.equivalent: same exact function data, "
            "canonical orbit forms differ)", eq.equal and not eq.same_orbit)
    c.exact("reluid's complete decision: hidden-symmetry, with its own exactly verified witness",
            d.verdict.value == "hidden-symmetry")
    v4 = weighted.family("V4")
    c.exact("θ violates Proposition 24's (weighted) condition", v4.outcome is Outcome.FOUND)
    if not (lit.outcome is Outcome.NONE and eq.equal and not eq.same_orbit and d.verdict.value == "hidden-symmetry"):
        return c.unknown_outcome("The candidate did not survive the exact re-check.", "re-check failed")
    v, a = theta.M[0], [r[0] for r in theta.A]
    beta = v4.violations[0].index
    text = (f"θ = ({fmt_theta(theta)}) satisfies Definition 9 read literally: v_i ≠ 0, the rows are independent, "
            f"a_1 + a_2 = {fmt(a[0] + a[1])} ≠ 0 and a_1 − a_2 = {fmt(a[0] - a[1])} ≠ 0 (and a_1, a_2 ≠ 0). Yet "
            f"θ′ = ({fmt_theta(prime)}) realises the same function and is not in H_2·θ. The reason: "
            f"Σ β(i) v_i a_i = 0 for β = {fmt_vec(beta)} (v_1 a_1 = {fmt(v[0] * a[0])}, v_2 a_2 = {fmt(v[1] * a[1])}), "
            f"so flipping the neurons with β ≠ 0 only adds a constant (σ(z) − σ(−z) = z). reluid's decision "
            f"finds the flip set {list(i + 1 for i in d.details.get('flip_set', ()))} independently.")
    c.finding("Definition 9 as printed defines V^a(β) = V(Σ β(i) a_i), without the weights v_i, so U4 in the "
              "proof of Theorem 5 does not match Proposition 24's hypothesis Σ β(i) v_i a_i ≠ 0; read literally, "
              "Theorem 5 is false (counterexample under 'Definition 9 read literally'). With v_i restored, "
              "U4 is Proposition 24's set and Theorem 5 follows.")
    return c.counterexample(
        "z3 found a parameter in the set U of Theorem 5 with V^a(β) read literally (no v_i) that has a hidden "
        "symmetry; reluid re-checked it exactly.", text, True, [("theta", theta), ("theta_prime", prime)])


STATEMENT = Statement(
    name="ramakrishnan_definition_9_literal",
    title="Definition 9 read literally (V^a(β) = V(Σ β(i) a_i)) inside Theorem 5",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §5, Definition 9 and proof of Theorem 5",
    statement="Read literally, Theorem 5's set U = U4 ∩ U∼ with U4 = (∪_β V^a(β))^c and V^a(β) = V(Σ_i β(i) a_i) "
              "consists of parameters without hidden symmetries: every θ ∈ Ω(m, n, 1) with v_i ≠ 0, a_i ≠ 0, "
              "pairwise independent rows and Σ_i β(i) a_i ≠ 0 for all β ∈ {0, ±1}ⁿ ∖ 0 has fibre H_n·θ.",
    method="z3 search in Ω(1, 2, 1) with the same exact encoding of 'θ′ realises ρ(θ) and θ′ ∉ H_n·θ' as for "
           "Proposition 24, but with the literal condition (which is not H_n-invariant, so a_i stay free reals). "
           "The model (θ, θ′) is re-checked with reluid: the literal conditions (zariski.evaluate), exact "
           "equivalence and orbit test, and the complete decision.",
    sizes="m = 1, n = 2.",
    expected="counterexample",
    check=check,
    order=(5, 25),
)
