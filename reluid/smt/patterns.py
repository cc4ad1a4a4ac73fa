"""z3 search over realisation patterns of a shallow function (docs/mathematics.md §4).

Given the exact function data f = Σ_r K_r σ(r·(x,1)) + L x + c̄ with s kink
classes, every θ′ ∈ Ω(m, n, k) realising f can be reduced to a *pattern*: for
each class r one neuron with either orientation, or an opposite pair
w₊σ(z) + w₋σ(−z) (w₊ + w₋ = K_r) carrying the linear term −w₋ a_rᵀ; q extra
cancelling pairs on new hyperplanes, each realising a rank-one linear map
W_t H_tᵀ; and d ≥ 0 free (dead) neurons, with s + |pairs| + 2q + d = n.  The
linear parts must add up to L; constants are absorbed by c′.

This module asks z3 for a pattern that differs from θ's own (an orientation or
pair choice changes, q ≥ 1, or d ≥ 1).  It decides no verdict: reluid decides
this stratum exactly with :mod:`reluid.analysis.shallow.essential`
(docs/mathematics.md §4, Theorem 4), and the tests use this search as an
independent cross-check (``tests/analysis/shallow/pattern_oracles.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import z3

from reluid.smt.solver import SolverConfig, check, isolated, make_solver, rational_to_z3, z3_to_rational
from reluid.verdicts import Outcome

__all__ = ["PatternProblem", "PatternModel", "search_other_pattern"]

SINGLE_POS, SINGLE_NEG, PAIR = 0, 1, 2


@dataclass(frozen=True, slots=True)
class PatternProblem:
    """The data of f and θ's own pattern."""

    m: int
    k: int
    n: int
    rows: tuple[tuple[Fraction, ...], ...]     # canonical rows r = (a_r, b_r)
    kinks: tuple[tuple[Fraction, ...], ...]    # K_r ∈ Q^k (nonzero)
    linear: tuple[tuple[Fraction, ...], ...]   # L, k × m
    own: tuple[int, ...]                       # θ's choice per class (SINGLE_POS / SINGLE_NEG / PAIR)

    @property
    def n_pairs(self) -> int:
        return sum(1 for o in self.own if o == PAIR)


@dataclass(frozen=True, slots=True)
class PatternModel:
    """An exact candidate pattern read back from a z3 model."""

    choice: tuple[int, ...]
    pair_weights: tuple[tuple[Fraction, ...] | None, ...]    # w₋ per class (pairs only)
    extra: tuple[tuple[tuple[Fraction, ...], tuple[Fraction, ...]], ...]  # (W_t ∈ Q^k, H_t ∈ Q^m)
    dead: int


@isolated
def search_other_pattern(problem: PatternProblem, config: SolverConfig = SolverConfig()):
    """Look for a realisation pattern of f with n neurons other than θ's own.

    Returns
    -------
    (Outcome, PatternModel | None, reason)
        FOUND (a candidate pattern, to be rebuilt and re-verified), NONE
        (resting on z3) or UNKNOWN (with the reason).
    """
    P = problem
    s, k, m = len(P.rows), P.k, P.m
    solver = make_solver(config)
    choice = [z3.Int(f"o_{r}") for r in range(s)]
    w = [[z3.Real(f"w_{r}_{j}") for j in range(k)] for r in range(s)]
    for o in choice:
        solver.add(o >= 0, o <= 2)
    qmax = max(0, (P.n - s) // 2)
    use = [z3.Bool(f"extra_{t}") for t in range(qmax)]
    # every k × m matrix has rank ≤ 1 when min(k, m) = 1: then W_t H_tᵀ is linear in one factor
    free_matrix = min(k, m) == 1
    W = [[z3.Real(f"W_{t}_{j}") for j in range(k)] for t in range(qmax)]
    H = [[z3.Real(f"H_{t}_{l}") for l in range(m)] for t in range(qmax)]
    n_used = s + z3.Sum([z3.If(o == PAIR, 1, 0) for o in choice] or [z3.IntVal(0)]) \
        + 2 * z3.Sum([z3.If(u, 1, 0) for u in use] or [z3.IntVal(0)])
    dead = z3.Int("dead")
    solver.add(dead == P.n - n_used, dead >= 0)
    for j in range(k):
        for l in range(m):
            terms = []
            for r in range(s):
                a = P.rows[r][l]
                if a:
                    A = rational_to_z3(a)
                    terms.append(z3.If(choice[r] == SINGLE_NEG, -rational_to_z3(P.kinks[r][j]) * A,
                                       z3.If(choice[r] == PAIR, -w[r][j] * A, z3.RealVal(0))))
            for t in range(qmax):
                if free_matrix:  # R_t[j][l] = W_t[j] (m = 1, H_t = 1) or H_t[l] (k = 1, W_t = 1)
                    term = W[t][j] if m == 1 else H[t][l]
                else:
                    term = W[t][j] * H[t][l]
                terms.append(z3.If(use[t], term, z3.RealVal(0)))
            solver.add(z3.Sum(terms or [z3.RealVal(0)]) == rational_to_z3(P.linear[j][l]))
    different = [choice[r] != P.own[r] for r in range(s)] + list(use) + [dead >= 1]
    solver.add(z3.Or(different))
    # symmetry breaking among the interchangeable extra pairs
    for t in range(1, qmax):
        solver.add(z3.Implies(use[t], use[t - 1]))
    out = check(solver, config)
    if out.outcome is not Outcome.FOUND:
        return out.outcome, None, out.reason
    md = out.model
    try:
        val = lambda e: z3_to_rational(md.eval(e, model_completion=True))
        ch = tuple(int(md.eval(o, model_completion=True).as_long()) for o in choice)
        pw = tuple(tuple(val(x) for x in w[r]) if ch[r] == PAIR else None for r in range(s))
        extra = []
        for t in range(qmax):
            if z3.is_true(md.eval(use[t], model_completion=True)):
                if free_matrix and m == 1:
                    extra.append((tuple(val(x) for x in W[t]), (Fraction(1),)))
                elif free_matrix:
                    extra.append(((Fraction(1),), tuple(val(x) for x in H[t])))
                else:
                    extra.append((tuple(val(x) for x in W[t]), tuple(val(x) for x in H[t])))
        d = int(md.eval(dead, model_completion=True).as_long())
    except ValueError as e:
        return Outcome.UNKNOWN, None, f"z3 model not rational: {e}"
    return Outcome.FOUND, PatternModel(ch, pw, tuple(extra), d), None
