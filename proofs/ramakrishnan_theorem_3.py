"""Ramakrishnan 2026, Theorem 3: the fibres of ρ, as a criterion, against reluid's equivalence decision."""

from __future__ import annotations

import random
from fractions import Fraction

from ._framework import RAMAKRISHNAN, SEED_R, Checks, Statement, fmt_theta
from .ramakrishnan_lemma_17 import pairs
from reluid.analysis.shallow.function import equivalent
from reluid.analysis.shallow.minimal import ominus, zero_factor_reduction


def theorem_3_criterion(t1, t2) -> tuple[bool, str]:
    """θ1 ≡ θ2 as Theorem 3 states it, computed from (θ1 ⊖ θ2)_r only.

    Either (θ1 ⊖ θ2)_r = (0, 0, 0, 0) (θ1 ∼ θ2, Corollary 18), or (θ1 ⊖ θ2)_r has the form
    ((1, …, 1, −1, …, −1), (a_1; …; a_l; −a_1; …; −a_l), (b; −b), C) with Σ a_i = 0 and Σ b_i + C = 0.
    """
    r = zero_factor_reduction(ominus(t1, t2))
    if r.n == 0:
        return r.c == (0,), "∼"
    plus = [i for i in range(r.n) if r.M[0][i] == 1]
    minus = [i for i in range(r.n) if r.M[0][i] == -1]
    if len(plus) != len(minus) or len(plus) + len(minus) != r.n:
        return False, "not paired"
    rows_minus = sorted(r.row(i) for i in minus)
    if sorted(tuple(-x for x in r.row(i)) for i in plus) != rows_minus:
        return False, "not paired"
    sa = [sum((r.A[i][l] for i in plus), Fraction(0)) for l in range(r.m)]
    sb = sum((r.b[i] for i in plus), Fraction(0)) + r.c[0]
    return (not any(sa)) and sb == 0, "paired"


def check(max_n, timeout):
    c = Checks(timeout)
    n_top = max(4, max_n or 4)
    rng = random.Random(3)
    tally = {"∼": 0, "paired": 0, "different": 0}
    pts_rng = random.Random(33)
    for t1, t2, kind in pairs(rng, 1000, n_top):
        if c.expired():
            c.out_of_time("the random comparison")
            break
        crit, how = theorem_3_criterion(t1, t2)
        eq = equivalent(t1, t2)
        if crit != eq.equal:
            c.exact("Theorem 3's criterion agrees with the exact equivalence decision", False,
                    f"θ1 = ({fmt_theta(t1)}), θ2 = ({fmt_theta(t2)}): criterion {crit} ({how}), "
                    f"reluid.equivalent {eq.equal}")
            break
        if crit:
            # independent sanity check by exact evaluation
            xs = [tuple(Fraction(pts_rng.randint(-12, 12), pts_rng.randint(1, 5)) for _ in range(t1.m))
                  for _ in range(6)]
            if any(t1(x) != t2(x) for x in xs):
                c.exact("equal by the criterion ⇒ equal values", False,
                        f"θ1 = ({fmt_theta(t1)}), θ2 = ({fmt_theta(t2)})")
                break
        tally[how if crit else "different"] += 1
    else:
        c.exact(f"differential, {sum(tally.values())} seeded random pairs (m ≤ 2, widths ≤ {n_top + 3}): Theorem 3's "
                "criterion, computed from (θ1 ⊖ θ2)_r alone, agrees with reluid.analysis.shallow.function."
                f"equivalent (exact function data) on every pair — {tally['∼']} equal through ∼, "
                f"{tally['paired']} equal through the paired form (flips, σ(z) − σ(−z) = z), "
                f"{tally['different']} different (each with an exact distinguishing input); the equal pairs "
                "also agree at 6 random rational inputs each", True, kind="differential")
    return c.outcome("Theorem 3's description of the fibres agrees with the exact equivalence decision on every "
                     "pair tried, including pairs equal only through the identity σ(z) − σ(−z) = z.")


STATEMENT = Statement(
    name="ramakrishnan_theorem_3",
    title="Theorem 3 (the fibres of ρ for k = 1)",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §4, Theorem 3 (with Corollary 18)",
    statement="im ρ(m,n,1) = H_n\\Ω(m,n,1)/≡, where θ1 ≡ θ2 iff θ1 ∼ θ2 or (θ1 ⊖ θ2)_r = "
              "((1, …, 1, −1, …, −1), (a_1; …; a_l; −a_1; …; −a_l), (b_1; …; b_l; −b_1; …; −b_l), C) with "
              "Σ a_i = 0 and Σ b_i + C = 0. That is: ρ(θ1) = ρ(θ2) iff this criterion holds.",
    method="Differential: the criterion is implemented literally from (θ1 ⊖ θ2)_r and compared with reluid's "
           "exact equivalence decision (function data: kinks, linear part, constant; docs/mathematics.md §1) on seeded "
           "random pairs built to be ∼-equivalent, equal through a flip set, perturbed, or independent. Pairs "
           "the criterion declares equal are also evaluated exactly at random rational inputs; unequal pairs "
           "come with an exact distinguishing input. The two widths may differ; the criterion applies verbatim.",
    sizes="1000 random pairs, m ≤ 2, widths up to 4 + 3 moves (4 is raised to N with --max-n N).",
    expected="holds",
    check=check,
    order=(4, 18),
)
