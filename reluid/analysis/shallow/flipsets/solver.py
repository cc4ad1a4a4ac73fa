"""z3 as the last resort (docs/mathematics.md §3).

A pseudo-Boolean (or integer / real) query over the rows of U
(:mod:`reluid.smt.flipsets`).  z3 only *searches*: a ``sat`` is re-checked
exactly on all rows (a spurious candidate adds a violated row and asks again)
and becomes a witness; an ``unsat`` is not a certificate, so it leaves the
answer unknown.

Since z3 can only ever find a witness, it is not asked at all when the formula
is beyond what it can build and search in the time and memory left: the size
(rows × neurons) is estimated first (:func:`reluid.smt.flipsets.formula_cost`)
and the formula is built with the clock checked after every row.  The reason
then names the regime: n/km, the ratio past which random columns stop being
separable (about 2, Wendel's theorem), and the kernel dimension of U.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from reluid.analysis.shallow.flipsets._problem import Clock, MethodResult, Problem, SearchTimeout, found, gave_up
from reluid.analysis.shallow.flipsets.rank import Profile
from reluid.budget import MIN_SECONDS, memory_left_gb
from reluid.verdicts import FlipSetMethod, Outcome, Reason, ReasonCode

__all__ = ["solve", "Z3Refusal"]


@dataclass(frozen=True, slots=True)
class Z3Refusal:
    """Why z3 was not asked: its formula does not fit (:meth:`reason` gives it as a :class:`Reason`).

    ``code`` is ``"z3-time"`` (the estimate exceeds the seconds left) or ``"z3-memory"`` (the GB left).
    """

    code: ReasonCode
    n: int
    km: int
    rows: int
    kernel_dim: int | None
    seconds_needed: float
    seconds_left: float | None
    gb_needed: float
    gb_left: float

    def reason(self) -> Reason:
        return Reason(self.code, {"n": self.n, "km": self.km, "rows": self.rows, "kernel_dim": self.kernel_dim,
                                  "seconds_needed": self.seconds_needed, "seconds_left": self.seconds_left,
                                  "gb_needed": self.gb_needed, "gb_left": self.gb_left})


def effective_encoding(prob: Problem, encoding: str) -> str:
    """The encoding z3 will get: ``"pb"`` falls back to ``"int"`` when a coefficient exceeds a C int."""
    if encoding != "pb" or not prob.n:
        return encoding
    from reluid.smt.flipsets import _PB_MAX

    top_m, top_a = prob.integer_bounds()
    return "pb" if top_m * top_a <= _PB_MAX else "int"


def refusal(prob: Problem, n_rows: int, clock: Clock, encoding: str, kernel_dim: int | None) -> Z3Refusal | None:
    """A :class:`Z3Refusal` when z3's formula over ``n_rows`` rows does not fit, else None."""
    from reluid.smt.flipsets import formula_cost

    seconds, gb = formula_cost(n_rows, prob.n, effective_encoding(prob, encoding))
    rem = clock.remaining()
    mem = memory_left_gb()
    code = None
    if gb > mem:
        code = ReasonCode.Z3_MEMORY
    elif rem is not None and seconds > rem:
        code = ReasonCode.Z3_TIME
    if code is None:
        return None
    return Z3Refusal(code, prob.n, prob.km, n_rows, kernel_dim, seconds, rem, gb, mem)


def solve(prob: Problem, prof: Profile | None, clock: Clock, seed: int, encoding: str) -> MethodResult:
    from reluid.smt.flipsets import solve_flip_set
    from reluid.smt.solver import SolverConfig

    rows = list(prof.rows) if prof is not None else list(range(prob.km))
    kernel_dim = prob.n - len(prof.rows) if prof is not None else None
    for _ in range(prob.km + 1):
        rem = clock.remaining()
        if rem is not None and rem <= MIN_SECONDS:
            raise SearchTimeout(FlipSetMethod.Z3, Reason(ReasonCode.Z3_NO_TIME, {"n": prob.n}))
        no = refusal(prob, len(rows), clock, encoding, kernel_dim)
        if no is not None:
            return gave_up(no.reason())
        config = SolverConfig(seed=seed, timeout_ms=60_000 if rem is None else max(1, int(rem * 1000)))
        deadline = None if rem is None else time.monotonic() + rem
        ans = solve_flip_set(prob.int_rows(rows), prob.n, config=config, encoding=encoding, deadline=deadline)
        if ans.outcome is Outcome.NONE:
            return gave_up(Reason(ReasonCode.Z3_UNSAT, {"n": prob.n}), solver=ans.solver)
        if ans.outcome is Outcome.UNKNOWN:
            return gave_up(Reason(ReasonCode.Z3_UNKNOWN, {"answer": ans.reason, "n": prob.n}), solver=ans.solver)
        if prob.is_flip(ans.flip_set):
            return found(ans.flip_set)
        # the candidate solves the encoded rows only: add a violated row and ask again
        s = prob.column_sum(ans.flip_set)
        extra = next((t for t, v in enumerate(s) if v and t not in rows), None)
        if extra is None:
            return gave_up(Reason(ReasonCode.Z3_SPURIOUS_ROW))
        rows.append(extra)
    return gave_up(Reason(ReasonCode.Z3_SPURIOUS))
