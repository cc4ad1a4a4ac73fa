"""The checker's exact linear algebra: over Q with Fractions, over Z and modulo a prime with python-flint.

One implementation of each, used by every verifier of the kernel (the
two-layer verifier keeps its own copies for now).

>>> from fractions import Fraction as F
>>> rref([[1, 2], [2, 4]], 2)
([[Fraction(1, 1), Fraction(2, 1)]], [0])
>>> rank([[1, 0], [0, 1]]), integer_kernel([[1, 2, 3]], 3)
(2, [(-2, 1, 0), (-3, 0, 1)])
>>> rref_mod_p([[1, 2], [2, 4]], 7)
([[1, 2]], [0])
>>> row_products([[[1, 2, 9], [3, -4, 9]]], 3, [[1, 1], [0, 5]])
[[3, 10], [-1, -20]]
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import fmpz_mat, nmod_mat

__all__ = ["rref", "rank", "integer_kernel", "rref_mod_p", "pivots_mod_p", "rank_mod_p", "row_products"]


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


def row_products(blocks, width: int, Y) -> list[list[int]]:
    """Z with Z[i][j] = Σ_l N_il Y_jl exactly, for integer rows N_i of ``width`` entries and integer rows Y_j
    of at most ``width`` entries (entries of N_i past Y_j's meet zeros).

    The rows N_0, N_1, … come in ``blocks``, each a list of rows; each block
    is one flint ``fmpz_mat`` times Yᵀ (an exact integer matrix product), so
    that only one block's integers need be held at once.
    """
    k = len(Y)
    if any(len(row) > width for row in Y):
        raise ValueError(f"a row of Y is longer than the {width} entries of a row of N")
    Yt = fmpz_mat(width, k, [Y[j][l] if l < len(Y[j]) else 0 for l in range(width) for j in range(k)])
    out = []
    for block in blocks:
        if any(len(row) != width for row in block):
            raise ValueError(f"a row of N does not have {width} entries")
        if block:
            entries = [int(x) for x in (fmpz_mat(block) * Yt).entries()]
            out.extend(entries[t * k:(t + 1) * k] for t in range(len(block)))
    return out
