"""Exact strict linear systems: is {x : Bx + b > 0, Cx + c = 0} nonempty?

docs/mathematics.md §8.2, Lemma 8.1 (Motzkin): exactly one of

(a) a rational x with Bx + b > 0 and Cx + c = 0 (a *witness*);
(b) rational y >= 0, z with Bᵀy + Cᵀz = 0, bᵀy + cᵀz <= 0 and (y ≠ 0 or bᵀy + cᵀz < 0)
    (a *Farkas certificate*).

:func:`solve_strict` decides which, by Fourier–Motzkin elimination on the
strict rows after parametrising the equalities exactly (each derived row
carries its nonnegative multipliers, so an infeasible constant row is a
Farkas certificate; back substitution with the simplest rational in each
open interval gives a witness).  After eliminating v variables a derived row
combining more than v + 1 original rows is dropped (Chernikov's rule: it is
a nonnegative combination of retained rows, hence implied).  Both answers are re-checked exactly before
they are returned.  The work is bounded by ``max_rows`` derived rows per
elimination step; beyond it :class:`StrictBudget` is raised (never a guess).

Everything is Python :class:`fractions.Fraction`; no floats.

>>> F = Fraction
>>> solve_strict([[F(1), F(0)], [F(-1), F(0)]], [F(0), F(1)])[0]        # 0 < x1 < 1
'point'
>>> kind, (y, z) = solve_strict([[F(1)], [F(-1)]], [F(0), F(0)])          # x > 0 and -x > 0
>>> kind, y
('farkas', [Fraction(1, 1), Fraction(1, 1)])
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

__all__ = ["StrictBudget", "solve_strict", "check_point", "check_farkas", "rref", "rank", "nullspace",
           "simplest_between"]

ZERO = Fraction(0)


class StrictBudget(Exception):
    """Fourier–Motzkin would exceed its row budget; the question is left open.

    ``params`` (step, of, rows, budget) are the data of ReasonCode.FM_ROW_BUDGET."""

    def __init__(self, step: int, of: int, rows: int, budget: int):
        super().__init__(step, of, rows, budget)
        self.params = {"step": step, "of": of, "rows": rows, "budget": budget}

    def __str__(self) -> str:
        return "Fourier–Motzkin step {step} of {of} needs {rows} rows (budget {budget})".format(**self.params)


# ---------------------------------------------------------------------------
# exact linear algebra over Q
# ---------------------------------------------------------------------------

def rref(M) -> tuple[list[list[Fraction]], list[int]]:
    """Reduced row echelon form (rows, pivot columns) of a list of rows."""
    R = [[Fraction(x) for x in row] for row in M]
    piv: list[int] = []
    r = 0
    ncol = len(R[0]) if R else 0
    for col in range(ncol):
        p = next((i for i in range(r, len(R)) if R[i][col] != 0), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        inv = 1 / R[r][col]
        R[r] = [x * inv for x in R[r]]
        for i in range(len(R)):
            if i != r and R[i][col] != 0:
                f = R[i][col]
                R[i] = [x - f * y for x, y in zip(R[i], R[r])]
        piv.append(col)
        r += 1
        if r == len(R):
            break
    return R[:r], piv


def rank(M) -> int:
    return len(rref(M)[0]) if M else 0


def nullspace(M, ncol: int) -> list[list[Fraction]]:
    """A basis of {x ∈ Q^ncol : M x = 0}."""
    if not M:
        return [[Fraction(int(i == j)) for i in range(ncol)] for j in range(ncol)]
    R, piv = rref(M)
    basis = []
    for f in (j for j in range(ncol) if j not in piv):
        v = [ZERO] * ncol
        v[f] = Fraction(1)
        for i, pc in enumerate(piv):
            v[pc] = -R[i][f]
        basis.append(v)
    return basis


def _solve(M, rhs, ncol: int):
    """One solution of M x = rhs, or None."""
    aug = [list(row) + [r] for row, r in zip(M, rhs)]
    R, piv = rref(aug)
    if ncol in piv:
        return None
    x = [ZERO] * ncol
    for i, pc in enumerate(piv):
        x[pc] = R[i][ncol]
    return x


def _floor(q: Fraction) -> int:
    return q.numerator // q.denominator


def simplest_between(lo: Fraction | None, hi: Fraction | None) -> Fraction:
    """The rational with the smallest denominator (then the smallest |·|) in the open interval (lo, hi)."""
    if lo is None and hi is None:
        return ZERO
    if lo is None:
        return ZERO if hi > 0 else Fraction(_floor(hi) - 1 if hi == _floor(hi) else _floor(hi))
    if hi is None:
        return ZERO if lo < 0 else Fraction(_floor(lo) + 1)
    if not lo < hi:
        raise ValueError(f"empty interval ({lo}, {hi})")
    if lo < 0 < hi:
        return ZERO
    if hi <= 0:
        return -simplest_between(-hi, -lo)
    fl = _floor(lo)
    if fl + 1 < hi:
        return Fraction(fl + 1)
    # lo, hi in [fl, fl + 1]: x = fl + 1/y with y in (1/(hi - fl), 1/(lo - fl))
    return fl + 1 / simplest_between(1 / (hi - fl), None if lo == fl else 1 / (lo - fl))


# ---------------------------------------------------------------------------
# checks (the same rule the checker applies)
# ---------------------------------------------------------------------------

def _dot(u, v) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), ZERO)


def check_point(B, b, C, c, x) -> bool:
    """x satisfies Bx + b > 0 and Cx + c = 0 exactly."""
    return all(_dot(r, x) + bi > 0 for r, bi in zip(B, b)) and all(_dot(r, x) + ci == 0 for r, ci in zip(C, c))


def check_farkas(B, b, C, c, y, z, n: int) -> bool:
    """(y, z) is a Motzkin certificate of Lemma 8.1(b) for the system."""
    if len(y) != len(B) or len(z) != len(C) or any(v < 0 for v in y):
        return False
    for l in range(n):
        if sum((y[i] * B[i][l] for i in range(len(B))), ZERO) + sum((z[i] * C[i][l] for i in range(len(C))), ZERO):
            return False
    val = _dot(y, b) + _dot(z, c)
    return val < 0 or (val == 0 and any(v != 0 for v in y))


# ---------------------------------------------------------------------------
# Fourier–Motzkin
# ---------------------------------------------------------------------------

def _key(alpha, beta):
    """(direction of (alpha, beta) up to positive scaling) for deduplication."""
    lead = next((x for x in alpha if x != 0), beta)
    if lead == 0:
        return ("zero",)
    s = abs(lead)
    return tuple(x / s for x in alpha) + (beta / s,)


def _fm(cons, nvar: int, max_rows: int, tick=None):
    """cons: (alpha, beta, y) meaning alpha·t + beta > 0 with (alpha, beta) = Σ y_i (row i).

    Returns ('point', t) or ('farkas', y); ``tick()`` (which may raise) before each row's combinations."""
    levels = [cons]
    cur = cons
    for v in range(nvar):
        pos = [r for r in cur if r[0][v] > 0]
        neg = [r for r in cur if r[0][v] < 0]
        new = [r for r in cur if r[0][v] == 0]
        if len(new) + len(pos) * len(neg) > max_rows:
            raise StrictBudget(v + 1, nvar, len(new) + len(pos) * len(neg), max_rows)
        for ap, bp, yp in pos:
            if tick is not None:
                tick()
            for an, bn, yn in neg:
                p, q = ap[v], -an[v]
                new.append((tuple(q * x + p * w for x, w in zip(ap, an)), q * bp + p * bn,
                            tuple(q * x + p * w for x, w in zip(yp, yn))))
        seen = {}
        for r in new:
            if all(x == 0 for x in r[0]):
                if r[1] <= 0:
                    return "farkas", r[2]
                continue          # 0 > -beta: always true, carries no information
            if sum(1 for w in r[2] if w) > v + 2:
                continue          # Chernikov's rule: implied by rows of smaller support
            seen.setdefault(_key(r[0], r[1]), r)
        cur = list(seen.values())
        levels.append(cur)
    for alpha, beta, y in cur:
        if beta <= 0:
            return "farkas", y
    t: list[Fraction | None] = [None] * nvar
    for v in range(nvar - 1, -1, -1):
        lo = hi = None
        for alpha, beta, _ in levels[v]:
            if alpha[v] == 0:
                continue
            rest = beta + sum((alpha[i] * t[i] for i in range(v + 1, nvar)), ZERO)
            bound = -rest / alpha[v]
            if alpha[v] > 0:
                lo = bound if lo is None or bound > lo else lo
            else:
                hi = bound if hi is None or bound < hi else hi
        t[v] = simplest_between(lo, hi)
    return "point", t


def solve_strict(B: Sequence[Sequence[Fraction]], b: Sequence[Fraction], C: Sequence[Sequence[Fraction]] = (),
                 c: Sequence[Fraction] = (), n: int | None = None, *, max_rows: int = 4000, tick=None):
    """Decide ∃x: Bx + b > 0, Cx + c = 0, exactly (Lemma 8.1).

    Returns ``("point", x)`` with x a list of Fractions, or ``("farkas", (y, z))``.
    Raises :class:`StrictBudget` when elimination would exceed ``max_rows``; ``tick()`` is called during the
    elimination (before each row's combinations), so that a caller's deadline can stop it by raising.
    """
    if n is None:
        n = len(B[0]) if B else len(C[0])
    B = [[Fraction(x) for x in r] for r in B]
    b = [Fraction(x) for x in b]
    C = [[Fraction(x) for x in r] for r in C]
    c = [Fraction(x) for x in c]
    m = len(B)
    if C:
        x0 = _solve(C, [-v for v in c], n)
        if x0 is None:       # zᵀC = 0, zᵀc ≠ 0
            Ct = [[C[i][l] for i in range(len(C))] for l in range(n)]
            z = next(zz for zz in nullspace(Ct, len(C)) if _dot(zz, c) != 0)
            s = _dot(z, c)
            z = [zi / -s for zi in z]
            y = [ZERO] * m
            assert check_farkas(B, b, C, c, y, z, n)
            return "farkas", (y, z)
        N = nullspace(C, n)
    else:
        x0 = [ZERO] * n
        N = [[Fraction(int(i == j)) for i in range(n)] for j in range(n)]
    d = len(N)
    cons = []
    for i in range(m):
        alpha = tuple(_dot(B[i], N[t]) for t in range(d))
        cons.append((alpha, _dot(B[i], x0) + b[i], tuple(Fraction(int(i == r)) for r in range(m))))
    kind, res = _fm(cons, d, max_rows, tick)
    if kind == "point":
        x = [x0[l] + sum((res[t] * N[t][l] for t in range(d)), ZERO) for l in range(n)]
        if not check_point(B, b, C, c, x):  # pragma: no cover - Fourier–Motzkin is exact
            raise AssertionError("strict system: the witness does not check")
        return "point", x
    y = list(res)
    Bty = [sum((y[i] * B[i][l] for i in range(m)), ZERO) for l in range(n)]
    if C:
        Ct = [[C[i][l] for i in range(len(C))] for l in range(n)]
        z = _solve(Ct, [-v for v in Bty], len(C))
    else:
        z = [] if not any(Bty) else None
    if z is None or not check_farkas(B, b, C, c, y, z, n):  # pragma: no cover
        raise AssertionError("strict system: the Farkas certificate does not check")
    return "farkas", (y, z)
