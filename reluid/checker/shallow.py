"""Independent re-verification of shallow claims.

Deliberately a second, short implementation of the exact facts the verdicts
rest on (it shares no code with :mod:`reluid.analysis`):

* ``kink_form``: ρ(θ) = Σ_r K_r σ(r·(x,1)) + L x + c̄ over canonical rows
  (first nonzero entry of a_r equal to 1); equal functions iff equal forms.
* ``orbit_form``: each neuron scaled positively so the first nonzero entry of
  (a_i, b_i) (else of m_i) has absolute value 1, neurons sorted.
"""

from __future__ import annotations

import math
from fractions import Fraction

from reluid.certificates.schema import ClaimKind
from reluid.checker.registry import Context, fail, verifies
from reluid.model.network import Shallow

__all__ = ["kink_form", "orbit_form", "verify_shallow_witness"]


def _lead(v):
    return next((x for x in v if x), None)


def kink_form(t: Shallow):
    """(frozenset of (r, K_r) with K_r ≠ 0, L, c̄) -- see module docstring."""
    m, k = t.m, t.k
    K: dict = {}
    L = [[Fraction(0)] * m for _ in range(k)]
    c = list(t.c)
    for i in range(t.n):
        out = t.out(i)
        lead = _lead(t.A[i])
        if lead is None:                                    # constant neuron m_i σ(b_i)
            c = [cj + oj * max(t.b[i], 0) for cj, oj in zip(c, out)]
            continue
        r = tuple(x / lead for x in t.row(i))
        s = abs(lead)
        K[r] = [x + s * o for x, o in zip(K.get(r, [0] * k), out)]
        if lead < 0:                                        # s·m σ(−z) = s·m σ(z) − s·m z
            for j in range(k):
                L[j] = [x - s * out[j] * rl for x, rl in zip(L[j], r[:m])]
                c[j] -= s * out[j] * r[m]
    kinks = frozenset((r, tuple(v)) for r, v in K.items() if any(v))
    return kinks, tuple(map(tuple, L)), tuple(c)


def orbit_form(t: Shallow):
    """A canonical form of the H_n-orbit of θ (sorted normalised neurons, c)."""
    neurons = []
    for i in range(t.n):
        row, out = t.row(i), t.out(i)
        lead = _lead(row)
        s = 1 / abs(lead) if lead is not None else (abs(_lead(out)) if _lead(out) is not None else 1)
        neurons.append((tuple(x * s for x in row), tuple(x / s for x in out)))
    return tuple(sorted(neurons)), t.c


def verify_shallow_witness(theta: Shallow, witness: Shallow) -> str:
    """Raise ValueError unless ρ(witness) = ρ(θ) and witness ∉ H_n·θ."""
    if (witness.m, witness.n, witness.k) != (theta.m, theta.n, theta.k):
        raise ValueError(f"witness is in Ω{(witness.m, witness.n, witness.k)}, not Ω{(theta.m, theta.n, theta.k)}")
    if kink_form(witness) != kink_form(theta):
        raise ValueError("witness computes a different function")
    if orbit_form(witness) == orbit_form(theta):
        raise ValueError("witness lies in the H_n-orbit of the network (not a hidden symmetry)")
    return "θ′ has the same kinks, linear part and constant as θ, and a different orbit form"


@verifies(ClaimKind.EMPTY)
def _empty(ev, ctx: Context) -> str:
    if ctx.theta.n != 0:
        fail(ctx, "claims n = 0 but the network has hidden neurons")
    return "n = 0: the fibre of a constant is a point"


def _rows_check(ctx: Context):
    t = ctx.theta
    for i in range(t.n):
        if not any(t.out(i)):
            fail(ctx, f"neuron {i} has zero output weight m_i")
        if not any(t.A[i]):
            fail(ctx, f"neuron {i} has a_i = 0")
    classes: dict = {}
    for i in range(t.n):
        key, lam = _line(t.row(i))
        classes.setdefault(key, []).append((i, lam))
    return t, classes


def _line(row):
    """(key, λ) with row = λ·key, key an integer vector with gcd 1 whose first nonzero entry is > 0.

    Integer keys hash fast; rows on the same line through 0 get the same key.
    """
    den = 1
    for x in row:
        den = den * x.denominator // math.gcd(den, x.denominator)
    ints = [x.numerator * (den // x.denominator) for x in row]
    g = math.gcd(*ints)
    if _lead(ints) < 0:
        g = -g
    return tuple(v // g for v in ints), Fraction(g, den)


@verifies(ClaimKind.GENERIC_STRATUM)
def _generic(ev, ctx: Context) -> str:
    t, classes = _rows_check(ctx)
    for members in classes.values():
        if len(members) > 1:
            fail(ctx, f"rows of neurons {members[0][0]} and {members[1][0]} are linearly dependent")
    return f"all {t.n} neurons have m_i ≠ 0, a_i ≠ 0, pairwise independent rows"


@verifies(ClaimKind.ESSENTIAL_STRATUM)
def _essential(ev, ctx: Context) -> str:
    """No dead/constant neurons, ≤ 2 per class, pairs opposite with K_r ≠ 0, pair directions independent."""
    t, classes = _rows_check(ctx)
    pair_dirs = []
    for r, members in classes.items():
        if len(members) > 2:
            fail(ctx, f"{len(members)} neurons on one hyperplane")
        if len(members) == 2:
            (i, li), (j, lj) = members
            if (li > 0) == (lj > 0):
                fail(ctx, f"neurons {i} and {j} are positively proportional")
            K = [abs(li) * x + abs(lj) * y for x, y in zip(t.out(i), t.out(j))]
            if not any(K):
                fail(ctx, f"the kinks of the pair ({i}, {j}) cancel")
            pair_dirs.append([Fraction(x) for x in r[:t.m]])
    if not pair_dirs:
        fail(ctx, "no opposite pair: this is the generic stratum")
    if _rank(pair_dirs) < len(pair_dirs):
        fail(ctx, "the pair directions a_r are linearly dependent")
    return f"{len(pair_dirs)} opposite pair(s) with nonzero kinks and independent directions; no other degeneracy"


@verifies(ClaimKind.WITNESS)
def _witness(ev, ctx: Context) -> str:
    return "re-verified with the witness network"  # the witness itself is checked in check.py


def _rank(rows) -> int:
    rows = [list(r) for r in rows]
    rank = 0
    for col in range(len(rows[0]) if rows else 0):
        piv = next((i for i in range(rank, len(rows)) if rows[i][col]), None)
        if piv is None:
            continue
        rows[rank], rows[piv] = rows[piv], rows[rank]
        for i in range(rank + 1, len(rows)):
            f = rows[i][col] / rows[rank][col]
            rows[i] = [x - f * y for x, y in zip(rows[i], rows[rank])]
        rank += 1
    return rank


@verifies(ClaimKind.PAPER_CONDITION)
def _paper_condition(ev, ctx: Context) -> str:
    """Ramakrishnan 2026, Proposition 24: Σ β(i) v_i a_i ≠ 0 for β ∈ {0,±1}ⁿ∖0 (per output)."""
    t = ctx.theta
    viol = ev.get("violation")
    if ev.get("holds") is False:
        if not viol:
            fail(ctx, "claims the condition fails but gives no β")
        beta = [int(x) for x in viol["beta"]]
        j = int(viol.get("output", 0))
        if len(beta) != t.n or any(x not in (-1, 0, 1) for x in beta) or not any(beta) or not 0 <= j < t.k:
            fail(ctx, "β is not a nonzero vector in {0,±1}ⁿ for a valid output")
        s = [sum(beta[i] * t.M[j][i] * t.A[i][l] for i in range(t.n)) for l in range(t.m)]
        if any(s):
            fail(ctx, "Σ β(i) v_i a_i ≠ 0 for the β given")
        return f"fails: Σ β(i) v_i a_i = 0 for β = {beta} (output {j + 1}), re-computed"
    if ev.get("holds") is True and t.n <= 10:
        import itertools
        for j in range(t.k):
            for beta in itertools.product((-1, 0, 1), repeat=t.n):
                if any(beta) and not any(sum(beta[i] * t.M[j][i] * t.A[i][l] for i in range(t.n))
                                         for l in range(t.m)):
                    fail(ctx, f"claims the condition holds but β = {list(beta)} vanishes")
        return "holds: all 3ⁿ − 1 vectors β re-enumerated"
    return "information only (not re-verified for this size)"
