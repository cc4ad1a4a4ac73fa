"""z3 cross-check of Theorem 2: no element of H_n outside the computed stabilizer fixes θ.

Unknowns: a permutation matrix P (Booleans) and positive scalings λ_i.  h = (P, λ)
fixes θ iff for every i, j with P_ij: λ_i (a_i, b_i) = (a_j, b_j) and m_i = λ_i m_j.
The query asks for such an h that sends some non-zero neuron outside its
positive-proportionality class (or moves a non-zero neuron onto a zero one).
``unsat`` confirms Stab_{H_n}(θ) = (Π S_{|C|}) × H_{n′} (resting on z3).
"""

from __future__ import annotations

import z3

from reluid.model.network import Shallow
from reluid.smt.solver import SolverConfig, check, isolated, make_solver, rational_to_z3

__all__ = ["stabilizer_escapes"]


@isolated
def stabilizer_escapes(theta: Shallow, classes, config: SolverConfig = SolverConfig(timeout_ms=20_000)):
    """Search for h ∈ Stab(θ) mapping a neuron outside its class.

    Parameters
    ----------
    classes : sequence of int
        Class label per neuron (zero neurons share one label).

    Returns
    -------
    Outcome
        FOUND (the computed stabilizer is incomplete), NONE or UNKNOWN.
    """
    n = theta.n
    s = make_solver(config)
    P = [[z3.Bool(f"P_{i}_{j}") for j in range(n)] for i in range(n)]
    lam = [z3.Real(f"lam_{i}") for i in range(n)]
    for i in range(n):
        s.add(lam[i] > 0)
        s.add(z3.PbEq([(P[i][j], 1) for j in range(n)], 1))
        s.add(z3.PbEq([(P[j][i], 1) for j in range(n)], 1))
        ri, oi = theta.row(i), theta.out(i)
        for j in range(n):
            rj, oj = theta.row(j), theta.out(j)
            eqs = [lam[i] * rational_to_z3(x) == rational_to_z3(y) for x, y in zip(ri, rj)]
            eqs += [rational_to_z3(x) == lam[i] * rational_to_z3(y) for x, y in zip(oi, oj)]
            s.add(z3.Implies(P[i][j], z3.And(eqs)))
    s.add(z3.Or([P[i][j] for i in range(n) for j in range(n) if classes[i] != classes[j]] or [z3.BoolVal(False)]))
    return check(s, config).outcome
