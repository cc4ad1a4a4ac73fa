"""Arithmetic modulo a prime, shared by the searches and rank computations of the analyses.

Residues of exact rationals, the pivot columns of a reduced row echelon form
from python-flint's ``rref`` (modulo p or over Q), and an exact matrix product modulo a
prime below 2^26 on float64 BLAS.  The checker has its own code for all of
this (it shares nothing with the producers).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["residue", "pivot_columns", "matmul_mod", "MATMUL_PRIME_LIMIT"]

#: :func:`matmul_mod` is exact for primes below this
MATMUL_PRIME_LIMIT = 1 << 26
_SPLIT = 1 << 13


def residue(q: Fraction, p: int) -> int:
    """q modulo p (p must not divide the denominator)."""
    return q.numerator % p * pow(q.denominator, -1, p) % p


def pivot_columns(R, rank: int) -> list[int]:
    """Pivot columns of the first ``rank`` rows of a reduced row echelon form ``R`` (``nmod_mat`` or ``fmpq_mat``)."""
    piv, c = [], 0
    for i in range(rank):
        while R[i, c] == 0:
            c += 1
        piv.append(c)
        c += 1
    return piv


def matmul_mod(A: np.ndarray, B: np.ndarray, p: int) -> np.ndarray:
    """A @ B mod p exactly (int64 entries in [0, p), p < 2^26): float64 BLAS on 13-bit halves of B.

    Broadcasts like ``np.matmul``; the inner dimension is cut into pieces below 2^13.

    >>> A = np.array([[67108858, 2]], dtype=np.int64); B = np.array([[67108858], [5]], dtype=np.int64)
    >>> int(matmul_mod(A, B, 67108859)[0, 0])    # (-1)(-1) + 10
    11
    """
    K = A.shape[-1]
    if A.ndim == 2 and B.ndim == 2:
        if K == 0:
            return np.zeros((A.shape[0], B.shape[1]), dtype=np.int64)
        if K < 2048 and A.shape[0] * K * B.shape[1] < (1 << 17):
            return (A @ B) % p                          # small: int64 is exact (K p^2 < 2^63) and faster
    else:
        shape = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
        if K == 0:
            return np.zeros(shape + (A.shape[-2], B.shape[-1]), dtype=np.int64)
        if K < 2048 and math.prod(shape) * A.shape[-2] * K * B.shape[-1] < (1 << 17):
            return np.matmul(A, B) % p
    out = None
    step = 1 << 13
    for s in range(0, K, step):
        a = A[..., s:s + step].astype(np.float64)
        Bhi, Blo = np.divmod(B[..., s:s + step, :], _SPLIT)
        lo = np.matmul(a, Blo.astype(np.float64)).astype(np.int64) % p
        hi = np.matmul(a, Bhi.astype(np.float64)).astype(np.int64) % p
        part = (hi * _SPLIT + lo) % p
        out = part if out is None else (out + part) % p
    return out
