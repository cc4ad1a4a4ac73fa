"""Ramakrishnan 2026, Proposition 2 / Corollary 7 with the pair condition exactly as printed."""

from __future__ import annotations

from reluid.verdicts import Outcome

from ._framework import RAMAKRISHNAN, SEED_R, Checks, Statement, fmt, fmt_theta, shallow
from reluid.analysis.shallow.stabilizer import stabilizer
from reluid.model.symmetry import GroupElement
from ._lemmas import printed_stabilizer_condition


def _theta(model):
    return shallow([model["v1"], model["v2"]], [model["a1"], model["a2"]], [model["b1"], model["b2"]])


def _swappable_brute(theta):
    """Exact: is there μ > 0 with diag(μ, 1/μ)(1 2)·θ = θ?  μ is forced by any nonzero coordinate."""
    r1, r2 = theta.row(0), theta.row(1)
    cand = [y / x for x, y in zip(r1, r2) if x]
    if not cand:
        o1, o2 = theta.out(0), theta.out(1)
        cand = [x / y for x, y in zip(o1, o2) if y]
    for mu in cand:
        if mu > 0 and GroupElement((1, 0), (mu, 1 / mu)).act(theta) == theta:
            return True
    return False


def _printed(theta):
    """Exact: is there λ > 0 with λ(v_1, a_1, b_1) = (v_2, a_2, b_2)?"""
    n1 = theta.out(0) + theta.row(0)
    n2 = theta.out(1) + theta.row(1)
    lam = next((y / x for x, y in zip(n1, n2) if x), None)
    return lam is not None and lam > 0 and all(lam * x == y for x, y in zip(n1, n2))


def check(max_n, timeout):
    c = Checks(timeout)
    r1 = printed_stabilizer_condition("printed-not-swap", timeout=c.budget())
    r2 = printed_stabilizer_condition("swap-not-printed", timeout=c.budget())
    c.z3_sat("z3, Ω(1, 2, 1): printed condition for {1, 2} holds but no element of H_2 swaps 1 and 2", r1)
    c.z3_sat("z3, Ω(1, 2, 1): some element of H_2 swaps 1 and 2 but the printed condition fails", r2)
    if not (r1.outcome is Outcome.FOUND and r2.outcome is Outcome.FOUND):
        return c.unknown_outcome("The search did not return both examples.", "z3 gave no model")
    t1, t2 = _theta(r1.model), _theta(r2.model)
    ok1 = _printed(t1) and not _swappable_brute(t1) and stabilizer(t1).finite_order == 1
    ok2 = (not _printed(t2)) and _swappable_brute(t2) and stabilizer(t2).finite_order == 2
    c.exact("exact re-check of the first model (printed condition true, brute force over H_2 and reluid's "
            "stabilizer: trivial)", ok1)
    c.exact("exact re-check of the second model (printed condition false, brute force over H_2 and reluid's "
            "stabilizer: S_2)", ok2)
    if not (ok1 and ok2):
        return c.outcome("re-check failed")
    c.finding("Proposition 2 and Corollary 7 print the pair condition as λ(v_i, a_i, b_i) = (v_j, a_j, b_j) "
              "(and the proof of Proposition 6 derives v_{p(i)} = λ_{p(i)} v_i); the action "
              "h·θ = (M h⁻¹, hA, hb, c) divides the output weight, so the correct condition is "
              "(a_j, b_j) = λ(a_i, b_i), v_j = v_i/λ. The two agree only for λ = 1. "
              "docs/mathematics.md §5 states the corrected condition, which reluid's stabilizer uses.")
    lam1 = r1.model["lambda"]
    text = (f"θ = ({fmt_theta(t1)}) satisfies the printed condition with λ = {fmt(lam1)}, yet Stab_{{H_2}}(θ) = 1: "
            f"the only scaling that maps row 1 to row 2 is λ = {fmt(lam1)}, which sends v_1 to "
            f"v_1/λ = {fmt(t1.M[0][0] / lam1)} ≠ v_2 = {fmt(t1.M[0][1])}. Conversely "
            f"θ = ({fmt_theta(t2)}) has Stab_{{H_2}}(θ) ≅ S_2 (μ = {fmt(r2.model['mu'])} swaps the neurons) but "
            "no λ > 0 gives λ(v_1, a_1, b_1) = (v_2, a_2, b_2). Both re-checked by brute force over H_2 and "
            "with reluid.analysis.shallow.stabilizer.")
    return c.counterexample(
        "As printed, the bijection between S and the pairs {i, j} with λ(v_i, a_i, b_i) = (v_j, a_j, b_j) fails "
        "in both directions already in Ω(1, 2, 1); with the condition corrected (Theorem 2 above) the "
        "statement holds.", text, True, [("printed_but_not_swappable", t1), ("swappable_but_not_printed", t2)])


STATEMENT = Statement(
    name="ramakrishnan_corollary_7_printed",
    title="Corollary 7 as printed (pair condition λ(v_i, a_i, b_i) = (v_j, a_j, b_j))",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §3, Proposition 2 and Corollary 7 (corrected in docs/mathematics.md §5)",
    statement="Read literally: S is in bijection with the pairs {i, j} of nonzero neurons such that "
              "λ(v_i, a_i, b_i) = (v_j, a_j, b_j) for some λ > 0, i.e. exactly these pairs can be swapped by an "
              "element diag(λ_i, λ_j)(i j) of the stabilizer.",
    method="z3 search in Ω(1, 2, 1) for a pair satisfying the printed condition that no element of H_2 swaps, "
           "and for a swappable pair violating it (the other side as a ForAll); both models re-checked "
           "exactly by brute force over H_2 and with reluid's stabilizer.",
    sizes="Ω(1, 2, 1).",
    expected="counterexample",
    check=check,
    order=(3, 7, 1),
)
