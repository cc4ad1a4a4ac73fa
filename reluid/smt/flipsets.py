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
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import z3

from reluid.errors import InvalidArgument
from reluid.smt.solver import SolverConfig, check, isolated, make_solver, rational_to_z3
from reluid.verdicts import Outcome

__all__ = ["ENCODINGS", "FlipSetQuery", "solve_flip_set", "formula_cost"]

ENCODINGS = ("pb", "int", "real")
_PB_MAX = 2**31 - 1

#: Cost of one term of the formula (seconds to build, bytes held), measured with z3 4.x on the project's
#: 2-core reference machine (2 000 neurons × 50 rows): pseudo-Boolean terms 11 µs and 0.6-1.5 kB,
#: ``If`` terms over big integers or rationals 38-41 µs and 0.3-8 kB (the upper ends, rounded up, are used).
_TERM_COST = {"pb": (1.5e-5, 1600.0), "int": (5e-5, 8000.0), "real": (6e-5, 8000.0)}
#: z3 is given at least this multiple of the building time to search (an estimate of the least it needs to
#: propagate a formula once; its search time has no useful upper bound).
_SEARCH_FACTOR = 2.0


def formula_cost(n_rows: int, n: int, encoding: str = "pb") -> tuple[float, float]:
    """(seconds, GB) to build and first propagate a formula of ``n_rows`` rows over ``n`` neurons.

    The seconds are building plus the least search time z3 is given (``_SEARCH_FACTOR`` × building), the
    memory that of the terms; both are estimates from size alone (every coefficient taken as nonzero).

    >>> s, gb = formula_cost(7840, 16384)
    >>> s > 3600 and gb > 100
    True
    """
    t, b = _TERM_COST[encoding]
    terms = n_rows * n
    return terms * t * (1 + _SEARCH_FACTOR), terms * b / 1e9


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
                   encoding: str = "pb", deadline: float | None = None) -> FlipSetQuery:
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
    deadline : float, optional, keyword-only
        A ``time.monotonic()`` time, checked after every row while the formula
        is built: when it passes, the answer is ``UNKNOWN`` (building did not
        finish) without calling the solver.

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
        if deadline is not None and time.monotonic() > deadline:
            return FlipSetQuery(Outcome.UNKNOWN, None, f"the time ran out while building the formula ({t} of "
                                f"{len(rows)} rows built)", encoding, describe)
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
