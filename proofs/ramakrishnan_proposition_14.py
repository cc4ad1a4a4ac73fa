"""Ramakrishnan 2026, Proposition 14: which minimal parameters compute affine functions."""

from __future__ import annotations

import random
from fractions import Fraction

import sympy

from ._framework import RAMAKRISHNAN, SEED_R, Checks, Statement, fmt_theta
from reluid.analysis.shallow.function import function_data
from reluid.analysis.shallow.minimal import zero_factor_reduction
from reluid.model.network import Shallow
from ._lemmas import affine_not_paired


def _branchwise_identity() -> bool:
    """σ(z) − σ(−z) = z, with σ = Max(0, ·), on each branch z > 0, z < 0, z = 0 (sympy)."""
    z = sympy.Symbol("z", real=True)
    expr = sympy.Max(0, z) - sympy.Max(0, -z) - z
    zp = sympy.Symbol("zp", positive=True)
    zn = sympy.Symbol("zn", negative=True)
    branches = [expr.subs(z, zp), expr.subs(z, zn), expr.subs(z, 0)]
    pw = sympy.Piecewise((z, z > 0), (0, True)) - sympy.Piecewise((-z, -z > 0), (0, True)) - z
    pw_branches = [pw.subs(z, zp), pw.subs(z, zn), pw.subs(z, 0)]
    return all(sympy.simplify(e) == 0 for e in branches + pw_branches)


def _paired(theta: Shallow) -> bool:
    """Rows split into pairs (r, −r) carrying weights (+1, −1)."""
    rows = {theta.row(i): theta.M[0][i] for i in range(theta.n)}
    for r, w in rows.items():
        neg = tuple(-x for x in r)
        if rows.get(neg) != -w or w not in (1, -1):
            return False
    return True


def _random_minimal(rng, m, n):
    """A minimal parameter without 0-factors, with planted opposite pairs (σ(z) − σ(−z) = z)."""
    rows, v = [], []
    while len(rows) < n:
        a = [Fraction(rng.randint(-3, 3)) for _ in range(m)]
        if not any(a):
            continue
        r = tuple(a) + (Fraction(rng.randint(-3, 3)),)
        s = Fraction(rng.choice((1, -1)))
        if len(rows) + 2 <= n and rng.random() < 0.6:
            rows += [r, tuple(-x for x in r)]
            v += [s, -s if rng.random() < 0.85 else s]
        else:
            rows.append(r)
            v.append(s)
    theta = Shallow.make(v, [r[:m] for r in rows], [r[m] for r in rows], [Fraction(rng.randint(-2, 2))])
    return zero_factor_reduction(theta)


def check(max_n, timeout):
    c = Checks(timeout)
    n_top = max_n or 6
    for m in (1, 2, 3):
        for n in range(1, n_top + 1):
            c.z3_unsat(f"z3, m = {m}, n = {n}: minimal, no 0-factors, ρ(θ) affine, rows not paired",
                       affine_not_paired(m, n, timeout=c.budget()))
        c.z3_sat(f"z3, m = {m}, n = 2: the same without 'not paired' (the affine case occurs)",
                 affine_not_paired(m, 2, paired_goal=False, timeout=c.budget()))
    c.exact("sympy: σ(z) − σ(−z) = z on the branches z > 0, z < 0, z = 0 (Max and Piecewise forms), hence "
            "Σ_{i ≤ l} (σ(a_i·x + b_i) − σ(−a_i·x − b_i)) + C = Σ_i (a_i·x + b_i) + C", _branchwise_identity())
    rng = random.Random(14)
    done, affine = 0, 0
    for trial in range(300):
        if c.expired():
            c.out_of_time("the random comparison")
            break
        m = rng.randint(1, 2)
        theta = _random_minimal(rng, m, rng.randint(1, max(6, n_top)))
        if theta.n == 0:
            continue
        fd = function_data(theta)
        is_affine = not fd.kinks
        if is_affine != _paired(theta):
            c.exact("kinks vanish ⇔ paired", False, f"θ = {fmt_theta(theta)}")
            break
        if is_affine:
            # the affine map is Σ (a_i·x + b_i) + C over the +1 rows
            plus = [i for i in range(theta.n) if theta.M[0][i] == 1]
            L = tuple(sum((theta.A[i][l] for i in plus), Fraction(0)) for l in range(m))
            D = sum((theta.b[i] for i in plus), Fraction(0)) + theta.c[0]
            pts = [tuple(Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(m)) for _ in range(4)]
            if any(theta(x)[0] != sum((l * xi for l, xi in zip(L, x)), D) for x in pts):
                c.exact("the affine map is Σ (a_i·x + b_i) + C", False, f"θ = {fmt_theta(theta)}")
                break
            affine += 1
        done += 1
    else:
        c.exact(f"differential, {done} seeded random minimal θ without 0-factors (n ≤ {max(6, n_top)}, "
                f"m ≤ 2; {affine} affine): reluid's exact function data has no kinks iff the rows are paired, "
                "and the paired ones equal Σ (a_i·x + b_i) + C at random rational points", True,
                kind="differential")
    return c.outcome(
        f"'Only if': no minimal parameter without 0-factors with m ≤ 3 and n ≤ {n_top} computes an affine map "
        "unless its rows pair up as (a_i, b_i), −(a_i, b_i) with weights +1, −1 (z3 unsat). 'If': the "
        "branchwise identity σ(z) − σ(−z) = z (sympy).")


STATEMENT = Statement(
    name="ramakrishnan_proposition_14",
    title="Proposition 14 (affine realisations)",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §4, Definition 6, Lemma 13, Proposition 14",
    statement="Let θ = (v, A, b, C) be minimal with no 0-factors (v_i = ±1, a_i ≠ 0, rows pairwise linearly "
              "semi-independent) and A ≠ 0. Then v^T σ(Ax + b) + C = Tx + D is affine iff, up to order, "
              "v = e_1 + … + e_l − e_{l+1} − … − e_{2l} and (a_{l+i}, b_{l+i}) = −(a_i, b_i); then "
              "ρ(θ)(x) = Σ_{i ≤ l} (a_i·x + b_i) + C.",
    method="z3 for 'only if': each neuron is rescaled by H_n so that the first nonzero entry of a_i is ±1 (the "
           "minimal form's v_i = ±1 become arbitrary v_i ≠ 0; function, hypotheses and pairing are unchanged), "
           "which makes the encoding linear. 'ρ(θ) affine' is encoded exactly by the vanishing of the gradient "
           "jump Σ_{j: H_j = H_i} v_j |λ_ij| across every hyperplane H_i (the non-differentiability argument of "
           "the proof); goal: the neurons do not split into pairs (a_j, b_j) = −(a_i, b_i), v_j = −v_i (unsat "
           "expected); a sanity query without the goal must be sat. sympy for 'if': σ(z) − σ(−z) = z "
           "branch by branch. Differential: random minimal parameters with planted opposite pairs, against "
           "reluid's exact function data and exact evaluation.",
    sizes="z3: m ∈ {1, 2, 3}, 1 ≤ n ≤ 6 (n ≤ N with --max-n N); 300 random minimal θ with n ≤ max(6, N), "
          "m ≤ 2.",
    expected="holds",
    check=check,
    order=(4, 14),
)
