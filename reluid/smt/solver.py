"""Making z3 solvers reproducibly and reading their answers honestly.

* :func:`make_solver` is the one place solvers are created: fixed seeds and a
  time limit, a fresh solver per query; query functions are wrapped in
  :func:`isolated` so that each runs in a fresh z3 context.
* :func:`check` returns a :class:`SolverAnswer` whose outcome is FOUND (sat:
  a model), NONE (unsat) or UNKNOWN (with z3's ``reason_unknown()``).  A model
  is a candidate only: callers evaluate it exactly.  An unsat is labelled as
  resting on z3 wherever it is used.
* Rationals cross the boundary exactly: ``Fraction -> "n/d"`` numerals, and
  model values come back through ``numerator_as_long()`` /
  ``denominator_as_long()`` -- never through ``float``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction

import z3

from reluid.verdicts import Outcome

__all__ = ["SolverConfig", "SolverAnswer", "isolated", "make_solver", "check", "rational_to_z3", "z3_to_rational",
           "z3_version"]


def z3_version() -> str:
    return z3.get_version_string()


@dataclass(frozen=True, slots=True)
class SolverConfig:
    """Seed and limits; recorded in every claim that rests on the solver."""

    seed: int = 0
    timeout_ms: int = 60_000
    logic: str | None = None

    def describe(self) -> dict:
        return {"name": "z3", "version": z3_version(), "seed": self.seed, "timeout_ms": self.timeout_ms,
                **({"logic": self.logic} if self.logic else {})}


@dataclass(frozen=True, slots=True)
class SolverAnswer:
    """z3's answer: FOUND (sat, with ``model``), NONE (unsat) or UNKNOWN (``reason``)."""

    outcome: Outcome
    model: object = field(default=None, compare=False, repr=False)
    reason: str | None = None
    config: SolverConfig = SolverConfig()


def isolated(fn):
    """Run a query function in a fresh z3 context, so that its answer does not depend on history.

    z3's search order depends on the identifiers of the terms, which depend on
    everything created earlier in the same context; a fresh context per query
    makes models (which appear in certificates and reports) reproducible within
    and across processes.  The previous main context is restored afterwards, so
    terms held elsewhere stay valid.  Decorated functions must return no z3
    objects.
    """
    @functools.wraps(fn)
    def run(*args, **kwargs):
        module = z3.z3
        saved = module._main_ctx
        module._main_ctx = z3.Context()
        try:
            return fn(*args, **kwargs)
        finally:
            module._main_ctx = saved
    return run


def make_solver(config: SolverConfig = SolverConfig()) -> "z3.Solver":
    """A fresh solver with fixed seeds and a time limit."""
    s = z3.SolverFor(config.logic) if config.logic else z3.Solver()
    s.set("random_seed", config.seed)
    s.set("timeout", int(config.timeout_ms))
    return s


def check(solver: "z3.Solver", config: SolverConfig = SolverConfig()) -> SolverAnswer:
    """Run ``solver.check()`` and package the answer; ``unknown`` keeps its reason."""
    r = solver.check()
    if r == z3.sat:
        return SolverAnswer(Outcome.FOUND, solver.model(), None, config)
    if r == z3.unsat:
        return SolverAnswer(Outcome.NONE, None, None, config)
    return SolverAnswer(Outcome.UNKNOWN, None, solver.reason_unknown(), config)


def rational_to_z3(x: Fraction) -> "z3.ArithRef":
    x = Fraction(x)
    return z3.RealVal(f"{x.numerator}/{x.denominator}")


def z3_to_rational(v) -> Fraction:
    """Exact value of a z3 rational numeral (model value)."""
    if z3.is_int_value(v):
        return Fraction(v.as_long())
    if z3.is_rational_value(v):
        return Fraction(v.numerator_as_long(), v.denominator_as_long())
    if z3.is_algebraic_value(v):
        raise ValueError("z3 returned an irrational algebraic number; refusing to approximate it")
    raise ValueError(f"not a z3 numeral: {v}")
