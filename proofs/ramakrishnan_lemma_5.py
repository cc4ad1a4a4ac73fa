"""Ramakrishnan 2026, Lemma 5: the scaling stabilizer is (R_{>0})^µ, µ = number of zero neurons."""

from __future__ import annotations

import random
from fractions import Fraction

from ._framework import RAMAKRISHNAN, SEED_R, Checks, Statement, fmt_theta, random_shallow
from reluid.analysis.shallow.stabilizer import stabilizer
from reluid.model.symmetry import GroupElement
from ._lemmas import fixed_by_scaling


def check(max_n, timeout):
    c = Checks(timeout)
    n_top = max_n or 5
    for m in (1, 2):
        for n in range(1, n_top + 1):
            c.z3_unsat(f"z3, m = {m}, n = {n}: diag(λ)·θ = θ, λ > 0 ⇒ λ_i = 1 for every neuron with "
                       "(v_i, a_i, b_i) ≠ 0", fixed_by_scaling(n, m, timeout=c.budget()))
    rng = random.Random(5)
    agree = 0
    for trial in range(300):
        theta = random_shallow(rng, rng.randint(1, 2), rng.randint(1, max(5, n_top)), rng.randint(1, 2), plant=0.6)
        zeros = tuple(i for i in range(theta.n) if not any(theta.out(i)) and not any(theta.row(i)))
        st = stabilizer(theta)
        # an element of D_n^+ that scales exactly the zero neurons fixes θ; scaling any other neuron does not
        scale = tuple(Fraction(7, 3) if i in zeros else Fraction(1) for i in range(theta.n))
        fixes_zero = GroupElement(tuple(range(theta.n)), scale).act(theta) == theta
        moves_other = all(
            GroupElement(tuple(range(theta.n)),
                         tuple(Fraction(7, 3) if j == i else Fraction(1) for j in range(theta.n))).act(theta) != theta
            for i in range(theta.n) if i not in zeros)
        ok = st.zero_neurons == zeros and fixes_zero and moves_other
        if not ok:
            c.exact("zero neurons", False, f"θ = {fmt_theta(theta)}: brute force zeros {zeros}, "
                                           f"reluid {st.zero_neurons}")
            break
        agree += 1
    else:
        c.exact(f"exact, {agree} seeded random θ (n ≤ {max(5, n_top)}, m, k ≤ 2): scaling the zero neurons "
                "fixes θ, scaling any other single neuron by 7/3 does not, and reluid's stabilizer reports "
                "the same zero neurons", True)
    return c.outcome(
        f"For m ∈ {{1, 2}} and n ≤ {n_top}, z3 shows that a positive diagonal fixing θ is the identity on every "
        "nonzero neuron; a zero neuron (0, 0, 0) is fixed by every λ > 0 since (0/λ, λ·0, λ·0) = 0. "
        "Hence Stab_{D_n^+}(θ) = (R_{>0})^µ with "
        "µ = #{i : (v_i, a_i, b_i) = 0} ≤ n.")


STATEMENT = Statement(
    name="ramakrishnan_lemma_5",
    title="Lemma 5 (scaling stabilizer)",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §3, Lemma 5",
    statement="For every θ ∈ Ω(m, n, 1), Stab_{D_n^+}(θ) ≅ (R_{>0})^µ with µ ≤ n: diag(λ_1, …, λ_n) fixes θ "
              "iff λ_i = 1 for every neuron with (v_i, a_i, b_i) ≠ 0 (λ acts by (v_i/λ_i, λ_i a_i, λ_i b_i)); "
              "µ is the number of zero neurons.",
    method="z3: unknowns θ and λ ∈ (R_{>0})^n; hypothesis diag(λ)·θ = θ; goal: some λ_i ≠ 1 on a nonzero "
           "neuron (unsat expected). Exact comparison with reluid's stabilizer "
           "on seeded random parameters with planted zero neurons.",
    sizes="z3: m ∈ {1, 2}, 1 ≤ n ≤ 5 (n ≤ N with --max-n N); exact: 300 random θ with n ≤ max(5, N).",
    expected="holds",
    check=check,
    order=(3, 5),
)
