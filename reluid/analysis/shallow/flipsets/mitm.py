"""Meet in the middle (docs/mathematics.md §3).

The columns are hashed to h_i = Σ_(j,l) w_(jm+l) D·U_(jm+l),i mod 2^61 − 1 for
random weights w; a flip set has Σ_{i∈F} h_i ≡ 0, so all 2^{n/2} subset sums
of each half are sorted and matched, and every match is checked exactly.
Certificate: ``{"method": "mitm", "n"}``; the checker re-runs its own meet in
the middle.
"""

from __future__ import annotations

import numpy as np

from reluid.analysis.shallow.flipsets._problem import (HASH_PRIME, MITM_MAX_N, Clock, MethodResult, Problem,
                                                      Progress, found, gave_up, none)
from reluid.verdicts import FlipSetMethod, Reason, ReasonCode

__all__ = ["mitm_hits", "mitm"]

def mitm_hits(prob: Problem, clock: Clock, progress: Progress):
    """Yield every nonempty F whose hashed column sum vanishes mod 2^61 − 1 (a superset of the flip sets)."""
    n, P = prob.n, HASH_PRIME
    Mi, Ai, _ = prob.integers()
    w = [[int(x) for x in prob.rng.integers(1, 1 << 60, size=prob.m)] for _ in range(prob.k)]
    keys = []
    for i in range(n):
        keys.append(sum(Mi[j][i] * sum(wl * a for wl, a in zip(w[j], Ai[i])) for j in range(prob.k)) % P)
    h = n // 2

    def sums(ks):
        a = np.zeros(1, dtype=np.int64)
        for key in ks:
            a = np.concatenate([a, (a + key) % P])
        return a

    left, right = sums(keys[:h]), sums(keys[h:])
    clock.check(FlipSetMethod.MITM, Reason(ReasonCode.AT_SUBSET_SUMS, {"n": n}))
    order = np.argsort(left)
    ls = left[order]
    target = (P - right) % P
    rorder = np.argsort(target)
    ts = target[rorder]
    lo = np.searchsorted(ls, ts, "left")    # sorted queries: a cache-friendly merge
    hi = np.searchsorted(ls, ts, "right")
    task = progress.task(f"mitm: 2^{n - h} right sums", len(right))
    for q in np.nonzero(hi > lo)[0].tolist():
        rmask = int(rorder[q])
        for pos in range(lo[q], hi[q]):
            lmask = int(order[pos])
            if lmask == 0 and rmask == 0:
                continue
            yield frozenset(i for i in range(h) if lmask >> i & 1) | frozenset(
                h + i for i in range(n - h) if rmask >> i & 1)
        clock.check(FlipSetMethod.MITM, lambda: Reason(ReasonCode.AT_MATCHING, {"n": n}))
    progress.advance(task, len(right))


def mitm(prob: Problem, clock: Clock, progress: Progress) -> MethodResult:
    n = prob.n
    if n > MITM_MAX_N:
        return gave_up(Reason(ReasonCode.MITM_TOO_LARGE, {"n": n, "limit": MITM_MAX_N}))
    for F in mitm_hits(prob, clock, progress):
        if prob.is_flip(F):
            return found(F)
    return none({"method": FlipSetMethod.MITM, "n": n})
