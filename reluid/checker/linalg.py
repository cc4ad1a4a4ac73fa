"""The checker's exact linear algebra: over Q with Fractions, modulo a prime with python-flint.

One implementation of each, used by every verifier of the kernel (the
two-layer verifier keeps its own copies for now).

>>> from fractions import Fraction as F
>>> rref([[1, 2], [2, 4]], 2)
([[Fraction(1, 1), Fraction(2, 1)]], [0])
>>> rank([[1, 0], [0, 1]]), integer_kernel([[1, 2, 3]], 3)
(2, [(-2, 1, 0), (-3, 0, 1)])
>>> rref_mod_p([[1, 2], [2, 4]], 7)
([[1, 2]], [0])
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import nmod_mat

__all__ = ["rref", "rank", "integer_kernel", "rref_mod_p", "pivots_mod_p", "rank_mod_p"]


def rref(rows, ncols: int) -> tuple[list[list[Fraction]], list[int]]:
    """(R, pivots): the reduced row echelon form of rational rows (zero rows dropped), Gauss–Jordan."""
    R = [[Fraction(x) for x in row] for row in rows]
    piv, top = [], 0
    for col in range(ncols):
        pr = next((i for i in range(top, len(R)) if R[i][col]), None)
        if pr is None:
            continue
        R[top], R[pr] = R[pr], R[top]
        pv = R[top][col]
        R[top] = [x / pv for x in R[top]]
        for i in range(len(R)):
            if i != top and R[i][col]:
                f = R[i][col]
                R[i] = [x - f * y for x, y in zip(R[i], R[top])]
        piv.append(col)
        top += 1
    return R[:top], piv


def rank(rows) -> int:
    """The rank over Q of a list of equally long rows."""
    rows = list(rows)
    return len(rref(rows, len(rows[0]))[1]) if rows and len(rows[0]) else 0


def integer_kernel(rows, ncols: int) -> list[tuple[int, ...]]:
    """A basis of the right kernel: per free column f, the primitive integer vector z with z_f > 0,
    zero on the other free columns, and rows · z = 0."""
    R, piv = rref(rows, ncols)
    out = []
    for f in (c for c in range(ncols) if c not in set(piv)):
        v = [Fraction(0)] * ncols
        v[f] = Fraction(1)
        for t, pc in enumerate(piv):
            v[pc] = -R[t][f]
        den = math.lcm(*[x.denominator for x in v])
        w = [x.numerator * (den // x.denominator) for x in v]
        g = math.gcd(*w)
        out.append(tuple(x // g for x in w))
    return out


def pivots_mod_p(R: nmod_mat, r: int) -> list[int]:
    """The pivot columns of the first ``r`` rows of a reduced row echelon form."""
    out, c = [], 0
    for i in range(r):
        while int(R[i, c]) == 0:
            c += 1
        out.append(c)
        c += 1
    return out


def rref_mod_p(rows, p: int) -> tuple[list[list[int]], list[int]]:
    """(R, pivots) modulo p of integer rows (a nonempty list of equally long rows), through flint."""
    M = nmod_mat([[x % p for x in row] for row in rows], p)
    R, r = M.rref()
    return [[int(R[i, j]) for j in range(M.ncols())] for i in range(r)], pivots_mod_p(R, r)


def rank_mod_p(nrows: int, ncols: int, entries, p: int) -> int:
    """The rank modulo p of the matrix with the given row-major residues."""
    if not nrows or not ncols:
        return 0
    return nmod_mat(nrows, ncols, list(entries), p).rank()
