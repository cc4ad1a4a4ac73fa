"""det(X) mod p for p < 2^20 by a recursive LU whose updates are float64 BLAS products (exact).

Why every step is exact
-----------------------
IEEE-754 double precision represents every integer of absolute value below
2^53, and the sum, difference or product of two such integers is computed
exactly whenever the exact result is again below 2^53 (it is representable,
so round-to-nearest returns it).  Every quantity below is such an integer:

* entries are kept reduced, in [0, p), p < 2^20;
* a product of two entries is below p² < 2^40;
* a matrix product X·Y of reduced blocks with inner dimension w is formed
  only for w·(p − 1)² < 2^53 (:func:`_mulmod` cuts longer inner dimensions
  into chunks and reduces after each), so every partial sum of every dot
  product, in whatever order, blocking or FMA grouping the BLAS uses, is an
  integer in [0, 2^53): the result is the exact integer product;
* an update C − R with C, R ∈ [0, p) lies in (−p, p), and C − a·b with
  a, b, C ∈ [0, p) lies in (−p², p);
* reduction (:func:`_mod`) of an integer x with |x| < 2^52: q = ⌊x · fl(1/p)⌋
  differs from ⌊x/p⌋ by at most 1, because the computed quotient has
  relative error below 2^−52 and |x/p| < 2^52, so its absolute error is
  below 1; x − q·p is then an exact integer in (−p, 2p), and one conditional
  ±p brings it into [0, p).

The elimination itself is ordinary Gaussian elimination over the field Z/p:
a pivot is any nonzero residue in the current column (a row swap flips the
sign of the determinant), the multipliers are piv⁻¹ times the column (the
inverse from Python's ``pow``), and the determinant is the product of the
pivots, accumulated as a Python integer mod p.  A column without a nonzero
residue below the diagonal means det ≡ 0 (mod p).
"""

from __future__ import annotations

import numpy as np

__all__ = ["det_mod_p", "MAX_PRIME"]

MAX_PRIME = 1 << 20
BASE = 16
_EXACT = float(1 << 53)


def _mod(X: np.ndarray, p: int, chunk: int = 512) -> np.ndarray:
    """X ← X mod p in place, for float64 integers |X| < 2^52 (see the module docstring)."""
    inv = 1.0 / p
    for r0 in range(0, X.shape[0], chunk):
        Y = X[r0:r0 + chunk]
        q = np.floor(Y * inv)
        q *= p
        Y -= q
        np.add(Y, p, out=Y, where=Y < 0)
        np.subtract(Y, p, out=Y, where=Y >= p)
    return X


def _mulmod(X: np.ndarray, Y: np.ndarray, p: int) -> np.ndarray:
    """(X·Y) mod p for reduced float64 blocks, the inner dimension cut so that every partial sum is < 2^53."""
    w = X.shape[1]
    step = max(1, int((_EXACT - 1) // float((p - 1) ** 2)))
    if w <= step:
        return _mod(X @ Y, p)
    out = np.zeros((X.shape[0], Y.shape[1]))
    for s in range(0, w, step):
        out += _mod(X[:, s:s + step] @ Y[s:s + step], p)
        _mod(out, p)
    return out


def _trsm(A, r0, r1, c0, c1, p):
    """A[r0:r1, c0:c1] ← L⁻¹ A[r0:r1, c0:c1] mod p, L the unit lower triangle stored in A[r0:r1, r0:r1]."""
    if r1 - r0 <= BASE:
        for t in range(r0, r1 - 1):
            A[t + 1:r1, c0:c1] -= np.outer(A[t + 1:r1, t], A[t, c0:c1])
            _mod(A[t + 1:r1, c0:c1], p)
        return
    mid = (r0 + r1) // 2
    _trsm(A, r0, mid, c0, c1, p)
    A[mid:r1, c0:c1] -= _mulmod(A[mid:r1, r0:mid], A[r0:mid, c0:c1], p)
    _mod(A[mid:r1, c0:c1], p)
    _trsm(A, mid, r1, c0, c1, p)


class _Singular(Exception):
    pass


def det_mod_p(X, p: int) -> int:
    """det(X) mod p for a square integer matrix X (any integer entries) and a prime 2 < p < 2^20."""
    if not 2 < p < MAX_PRIME:
        raise ValueError(f"p = {p} is outside (2, 2^20)")
    A = np.asarray(X)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("det_mod_p needs a square matrix")
    if A.dtype.kind in "iuO":
        A = (A % p).astype(np.float64)
    else:
        A = np.array(A, dtype=np.float64)
        if not (np.all(np.rint(A) == A) and (A.size == 0 or np.abs(A).max() < 2**52)):
            raise ValueError("float entries must be integers below 2^52")
        _mod(A, p)
    n = A.shape[0]
    det = [1]

    def rec(c0, c1):
        if c1 - c0 <= BASE:
            for c in range(c0, c1):
                nz = np.flatnonzero(A[c:, c])
                if nz.size == 0:
                    raise _Singular
                r = c + int(nz[0])
                if r != c:
                    A[[c, r], :] = A[[r, c], :]
                    det[0] = -det[0]
                piv = int(A[c, c])
                det[0] = det[0] * piv % p
                col = A[c + 1:, c]
                col *= float(pow(piv, -1, p))
                _mod(col, p)
                if c + 1 < c1:
                    A[c + 1:, c + 1:c1] -= np.outer(col, A[c, c + 1:c1])
                    _mod(A[c + 1:, c + 1:c1], p)
            return
        mid = (c0 + c1) // 2
        rec(c0, mid)
        _trsm(A, c0, mid, mid, c1, p)
        A[mid:, mid:c1] -= _mulmod(A[mid:, c0:mid], A[c0:mid, mid:c1], p)
        _mod(A[mid:, mid:c1], p)
        rec(mid, c1)

    try:
        rec(0, n)
    except _Singular:
        return 0
    return det[0] % p
