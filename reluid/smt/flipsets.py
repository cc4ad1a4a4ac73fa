"""The z3 encoding of "θ has a nonempty flip set" (docs/mathematics.md §3, last resort).

A flip set is a nonempty F ⊆ [n] with Σ_{i∈F} u_i = 0, where u_i ∈ Q^{km} is
column i of the flip matrix U (``reluid.analysis.shallow.flipsets``).  Given
some rows of U this module asks z3 for a 0/1 vector x ≠ 0 with U x = 0:

``encoding="pb"``
    one Bool per neuron and one pseudo-Boolean equality ``PbEq`` per row,
    after multiplying the row by the common denominator of its entries (an
    exact rescaling of one equation, which does not change its solutions).
    z3 takes PB coefficients as C ints; when a coefficient does not fit the
    query silently uses ``"int"`` instead (recorded in the answer).
``encoding="int"``
    the same integer rows as ``Σ If(x_i, c_i, 0) == 0`` over the integers.
``encoding="real"``
    one Bool per neuron and ``Σ If(x_i, u_ri, 0) == 0`` per row over the
    reals, every coefficient an exact ``"n/d"`` numeral
    (:func:`~reluid.smt.solver.rational_to_z3`).

Answers: ``"sat"`` comes with the candidate set, which the caller re-verifies
exactly against *all* rows of U (when only some rows were encoded the
candidate may fail; see :func:`solve_flip_set`); ``"unsat"`` is not a proof: no
verdict rests on it (the exact rank, lattice and enumeration methods prove
"no flip set"); ``"unknown"`` keeps z3's reason and is never turned into a
verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import z3

from reluid.errors import InvalidArgument
from reluid.smt.solver import SolverConfig, check, isolated, make_solver, rational_to_z3
from reluid.verdicts import Outcome

__all__ = ["ENCODINGS", "FlipSetQuery", "solve_flip_set"]

ENCODINGS = ("pb", "int", "real")
_PB_MAX = 2**31 - 1


@dataclass(frozen=True, slots=True)
class FlipSetQuery:
    """z3's answer to one flip-set query.

    Attributes
    ----------
    outcome : Outcome
        FOUND (``flip_set`` is a candidate satisfying the encoded rows),
        NONE (no nonempty 0/1 solution of the encoded rows, resting on z3)
        or UNKNOWN (``reason`` holds z3's ``reason_unknown()``).
    flip_set : frozenset of int or None
        The candidate, 0-based neuron indices.
    reason : str or None
    encoding : str
        The encoding actually used.
    solver : dict
        :meth:`SolverConfig.describe` of the solver used.
    """

    outcome: Outcome
    flip_set: frozenset | None
    reason: str | None
    encoding: str
    solver: dict


def _integer_row(row: Sequence[Fraction]) -> tuple[int, ...]:
    row = [Fraction(x) for x in row]
    d = math.lcm(*(x.denominator for x in row)) if row else 1
    return tuple(int(x.numerator * (d // x.denominator)) for x in row)


@isolated
def solve_flip_set(rows: Sequence[Sequence[Fraction]], n: int, *, config: SolverConfig = SolverConfig(),
                   encoding: str = "pb") -> FlipSetQuery:
    """Ask z3 for a nonempty x ∈ {0,1}ⁿ with ``row · x = 0`` for every given row.

    Parameters
    ----------
    rows : sequence of length-n sequences of rationals
        Some rows of the flip matrix U (any exact rescaling of a row is
        allowed).  With fewer rows than U the question is a relaxation: an
        ``unsat`` still proves that U has no flip set, a ``sat`` candidate
        must be checked against the other rows.
    n : int
        Number of neurons (columns).
    config : SolverConfig, keyword-only
        Seed and time limit (the single place solvers are made is
        :func:`~reluid.smt.solver.make_solver`).
    encoding : {"pb", "int", "real"}, keyword-only

    Returns
    -------
    FlipSetQuery

    Examples
    --------
    >>> solve_flip_set([[1, 2, -3]], 3).flip_set
    frozenset({0, 1, 2})
    >>> solve_flip_set([[1, 2, 4]], 3).outcome.value
    'none'
    >>> solve_flip_set([[2**40, -2**40, 0]], 3).encoding
    'int'
    """
    if encoding not in ENCODINGS:
        raise InvalidArgument(f"unknown flip-set encoding {encoding!r}; expected one of {ENCODINGS}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidArgument(f"n must be a non-negative integer, got {n!r}")
    rows = [tuple(Fraction(x) for x in r) for r in rows]
    for r in rows:
        if len(r) != n:
            raise InvalidArgument(f"a row has {len(r)} entries, expected {n}")
    describe = config.describe()
    if n == 0:
        return FlipSetQuery(Outcome.NONE, None, None, encoding, describe)
    if encoding != "real":
        ints = [_integer_row(r) for r in rows]
        if encoding == "pb" and any(abs(c) > _PB_MAX for row in ints for c in row):
            encoding = "int"
    x = [z3.Bool(f"x_{i}") for i in range(n)]
    solver = make_solver(config)
    solver.add(z3.Or(x))
    for t, r in enumerate(rows):
        if encoding == "pb":
            terms = [(x[i], c) for i, c in enumerate(ints[t]) if c != 0]
            if terms:
                solver.add(z3.PbEq(terms, 0))
        elif encoding == "int":
            terms = [z3.If(x[i], z3.IntVal(c), z3.IntVal(0)) for i, c in enumerate(ints[t]) if c != 0]
            if terms:
                solver.add(z3.Sum(terms) == 0)
        else:
            terms = [z3.If(x[i], rational_to_z3(c), rational_to_z3(Fraction(0))) for i, c in enumerate(r) if c != 0]
            if terms:
                solver.add(z3.Sum(terms) == 0)
    out = check(solver, config)
    if out.outcome is Outcome.FOUND:
        model = out.model
        chosen = frozenset(i for i in range(n) if z3.is_true(model.eval(x[i], model_completion=True)))
        return FlipSetQuery(Outcome.FOUND, chosen, None, encoding, describe)
    if out.outcome is Outcome.NONE:
        return FlipSetQuery(Outcome.NONE, None, None, encoding, describe)
    return FlipSetQuery(Outcome.UNKNOWN, None, out.reason or "unknown", encoding, describe)
