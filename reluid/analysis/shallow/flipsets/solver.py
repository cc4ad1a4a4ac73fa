"""z3 as the last resort (docs/mathematics.md §3).

A pseudo-Boolean (or integer / real) query over the rows of U
(:mod:`reluid.smt.flipsets`).  z3 only *searches*: a ``sat`` is re-checked
exactly on all rows (a spurious candidate adds a violated row and asks again)
and becomes a witness; an ``unsat`` is not a certificate, so it leaves the
answer unknown.
"""

from __future__ import annotations

from reluid.analysis.shallow.flipsets._problem import Clock, MethodResult, Problem, SearchTimeout, found, gave_up
from reluid.analysis.shallow.flipsets.rank import Profile
from reluid.verdicts import Outcome

__all__ = ["solve"]

def solve(prob: Problem, prof: Profile | None, clock: Clock, seed: int, encoding: str) -> MethodResult:
    from reluid.smt.flipsets import solve_flip_set
    from reluid.smt.solver import SolverConfig

    rows = list(prof.rows) if prof is not None else list(range(prob.km))
    for _ in range(prob.km + 1):
        rem = clock.remaining()
        if rem is not None and rem <= 0.05:
            raise SearchTimeout("z3", f"n = {prob.n}, no time left for the solver")
        config = SolverConfig(seed=seed, timeout_ms=60_000 if rem is None else max(1, int(rem * 1000)))
        ans = solve_flip_set(prob.int_rows(rows), prob.n, config=config, encoding=encoding)
        if ans.outcome is Outcome.NONE:
            return gave_up(f"z3 answered unsat for n = {prob.n}, which is not a certificate the checker can "
                           "re-verify", solver=ans.solver)
        if ans.outcome is Outcome.UNKNOWN:
            return gave_up(f"z3 returned unknown ({ans.reason}) for n = {prob.n}", solver=ans.solver)
        if prob.is_flip(ans.flip_set):
            return found(ans.flip_set)
        # the candidate solves the encoded rows only: add a violated row and ask again
        s = prob.column_sum(ans.flip_set)
        extra = next((t for t, v in enumerate(s) if v and t not in rows), None)
        if extra is None:
            return gave_up("z3 returned a candidate that violates an encoded row")
        rows.append(extra)
    return gave_up("z3 kept returning spurious candidates")
