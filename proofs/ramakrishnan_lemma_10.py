"""Ramakrishnan 2026, Lemma 10: a neuron with zero output weight has a free row."""

from __future__ import annotations

from ._framework import RAMAKRISHNAN, SEED_R, Checks, Statement
from ._lemmas import shallow_transform


def check(max_n, timeout):
    c = Checks(timeout)
    n_top = max_n or 5
    for m in (1, 2):
        for n in range(1, n_top + 1):
            c.z3_unsat_all(f"z3, m = {m}, n = {n}, every position i: v_i = 0 ∧ ρ(θ)(x) ≠ ρ(θ_(w,μ))(x)",
                           (shallow_transform("dead-output", m, n, i=i, timeout=c.budget()) for i in range(n)))
        c.z3_sat(f"z3, m = {m}, n = 2, hypothesis v_1 = 0 dropped (vacuity check: replacing the row "
                 "then changes the function)", shallow_transform("dead-output", m, 2, hypothesis=False,
                                                                 timeout=c.budget()))
    return c.outcome(f"Proved for m ∈ {{1, 2}}, n ≤ {n_top} and every position i (z3 unsat with all "
                     "parameters, the new row (w, μ) and the input x unknown).")


STATEMENT = Statement(
    name="ramakrishnan_lemma_10",
    title="Lemma 10 (dead output weight)",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §4, Lemma 10",
    statement="If v_i = 0 then ρ(v, A, b, C) = ρ(v, A_w, b_μ, C) for all w ∈ Rᵐ and μ ∈ R, where A_w, b_μ "
              "replace the row (a_i, b_i) by (w, μ).",
    method="z3 with ReLU as If(z > 0, z, 0): unknowns θ, w, μ and x; hypothesis v_i = 0; goal "
           "ρ(θ)(x) ≠ ρ(θ′)(x) (unsat expected). A vacuity check drops the hypothesis (sat expected).",
    sizes="m ∈ {1, 2}, 1 ≤ n ≤ 5 (n ≤ N with --max-n N), every i.",
    expected="holds",
    check=check,
    order=(4, 10),
)
