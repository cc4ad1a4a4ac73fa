"""Enumeration over the kernel of U modulo p (docs/mathematics.md §3).

Every flip set x satisfies U_S x ≡ 0 (mod p) for independent rows S, so its
pivot coordinates in rref(U_S) mod p are fixed by its free ones: when the
kernel mod p has dimension r ≤ ENUMERATE_MAX_FREE, the 2^r candidates are
generated and each one that is 0/1 mod p is checked exactly.  Certificate:
``{"method": "enumerate", "p", "rows"}``; the checker re-runs the enumeration.
"""

from __future__ import annotations

import numpy as np

from reluid.analysis.shallow.flipsets._problem import (CHUNK, ENUMERATE_MAX_FREE, Clock, MethodResult, Problem,
                                                      Progress, found, gave_up, none)
from reluid.analysis.shallow.flipsets.rank import Profile
from reluid.verdicts import FlipSetMethod, Reason, ReasonCode

__all__ = ["kernel_candidates", "enumerate_kernel"]

def kernel_candidates(prof: Profile, clock: Clock, progress: Progress, method: str):
    """Yield every x ∈ {0,1}ⁿ∖0 with U_S x ≡ 0 (mod p) — a superset of the flip sets — as index sets."""
    r, p = len(prof.free), prof.p
    free = np.asarray(prof.free, dtype=np.int64)
    piv = np.asarray(prof.pivots, dtype=np.int64)
    shifts = np.arange(r, dtype=np.int64)
    total = 1 << r
    task = progress.task(f"{method}: 2^{r} kernel points", total)
    for start in range(1, total, CHUNK):
        stop = min(total, start + CHUNK)
        X = (np.arange(start, stop, dtype=np.int64)[:, None] >> shifts) & 1
        for t in range(len(piv)):
            v = (X @ prof.coeff[t]) % p
            X = X[v <= 1]
            if not len(X):
                break
        for x in X:
            vals = (prof.coeff @ x) % p if len(piv) else np.zeros(0, dtype=np.int64)
            if np.all(vals <= 1):
                yield frozenset(free[x == 1].tolist()) | frozenset(piv[vals == 1].tolist())
        progress.advance(task, stop - start)
        clock.check(method, lambda: Reason(ReasonCode.AT_CANDIDATES, {"dimension": r, "left": total - stop}))


def enumerate_kernel(prob: Problem, prof: Profile, clock: Clock, progress: Progress) -> MethodResult:
    r = len(prof.free)
    if r > ENUMERATE_MAX_FREE or prof.coeff is None:
        return gave_up(Reason(ReasonCode.ENUMERATE_TOO_LARGE, {"p": prof.p, "dimension": r,
                                                                "limit": ENUMERATE_MAX_FREE}))
    for F in kernel_candidates(prof, clock, progress, FlipSetMethod.ENUMERATE):
        if prob.is_flip(F):
            return found(F)
    return none({"method": FlipSetMethod.ENUMERATE, "p": prof.p, "rows": list(prof.rows)})
