"""Ramakrishnan 2026, Lemma 17: (θ1 ⊖ θ2)_r = 0 iff θ1,r = θ2,r."""

from __future__ import annotations

import random

from ._framework import (RAMAKRISHNAN, SEED_R, Checks, Statement, flip, fmt_theta, perturb, random_shallow,
                               sim_move, with_flip_set)
from reluid.analysis.shallow.minimal import ominus, zero_factor_reduction


def pairs(rng, count, n_top):
    """Seeded pairs (θ1, θ2, kind): ∼-equivalent, perturbed, flipped (same function, other class), random."""
    out = []
    while len(out) < count:
        m = rng.randint(1, 2)
        n = rng.randint(1, n_top)
        kind = rng.choice(("equivalent", "equivalent", "perturbed", "flipped", "random"))
        if kind == "flipped":
            got = with_flip_set(rng, m, max(2, n))
            if got is None:
                continue
            t1, F = got
            t2 = flip(t1, F)
        else:
            t1 = random_shallow(rng, m, n, 1, plant=0.4)
            t2 = random_shallow(rng, m, rng.randint(1, n_top), 1, plant=0.4) if kind == "random" else t1
        for _ in range(rng.randint(0, 3)):
            t2 = sim_move(rng, t2)
        if kind == "perturbed":
            t2 = perturb(rng, t2)
        out.append((t1, t2, kind))
    return out


def check(max_n, timeout):
    c = Checks(timeout)
    n_top = max(4, max_n or 4)
    rng = random.Random(17)
    counts = {True: 0, False: 0}
    for t1, t2, kind in pairs(rng, 1000, n_top):
        if c.expired():
            c.out_of_time("the random comparison")
            break
        red = zero_factor_reduction(ominus(t1, t2))
        lhs = red.n == 0 and red.c == (0,)
        rhs = zero_factor_reduction(t1) == zero_factor_reduction(t2)
        if lhs != rhs:
            c.exact("(θ1 ⊖ θ2)_r = 0 ⇔ θ1,r = θ2,r", False,
                    f"θ1 = ({fmt_theta(t1)}), θ2 = ({fmt_theta(t2)}): (θ1 ⊖ θ2)_r = 0 is {lhs}, θ1,r = θ2,r is {rhs}")
            break
        counts[lhs] += 1
    else:
        c.exact(f"differential, {sum(counts.values())} seeded random pairs in Ω(m, n_i, 1), m ≤ 2, n_i ≤ "
                f"{n_top + 3} ({counts[True]} with θ1,r = θ2,r, built by random moves of ∼ and H_n; "
                f"{counts[False]} without, including flipped pairs that compute the same function): both "
                "sides computed with reluid's exact minimal form agree", True, kind="differential")
    return c.outcome("The equivalence holds on every pair tried, in both directions, with the 0-factor "
                     "reduction computed exactly.")


STATEMENT = Statement(
    name="ramakrishnan_lemma_17",
    title="Lemma 17 (⊖ and 0-factor reduction)",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §4, Definition-Lemma 5, Definition 7, Lemma 17, Corollary 18",
    statement="For θ_i ∈ Ω(m, n_i, 1), with θ1 ⊖ θ2 = ((v_1; −v_2), (A_1; A_2), (b_1; b_2), C_1 − C_2) and θ_r the "
              "0-factor reduction (the minimal form with its zero neurons removed, including the constant): "
              "(θ1 ⊖ θ2)_r = (0, 0, 0, 0) iff θ1,r = θ2,r.",
    method="Differential: seeded random pairs — one side obtained from the other by random moves of the "
           "equivalence ∼ of Definition 3 (splitting a neuron into positively proportional ones, adding dead or "
           "constant neurons) and of H_n, some perturbed afterwards, some related by a flip (same function, "
           "different class), some independent — and both sides of the equivalence evaluated with reluid's "
           "exact minimal form and ⊖.",
    sizes="1000 random pairs, m ≤ 2, widths up to 4 + 3 moves (4 is raised to N with --max-n N).",
    expected="holds",
    check=check,
    order=(4, 17),
)
