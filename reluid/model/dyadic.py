"""Layers of binary floats held as integer arrays: row i of ``[W | b]`` is ``N[i] · 2^shift[i]``.

A float (float16, bfloat16, float32, float64) is an odd integer times a power
of two, so a whole row of them is one integer vector times one power of two:
:class:`~reluid.model.network.ScaledRows` holds the integers (an int64 array
when every row fits in 62 bits, Python integers otherwise) and the row
exponents, and every value stays the exact binary number the file holds.
This module builds that form from numpy arrays and does the vectorised work on
it that the exact model needs: the Fractions (only where an algorithm asks for
them), the canonical text that :meth:`Network.sha256` hashes (the same bytes as
from the Fractions), residues modulo a prime and exact integer matrix products
on float64 BLAS (21-bit limbs, bounds asserted).  docs/mathematics.md §2 uses
the rows only up to positive scalings, which is what makes the form enough.

The checker uses none of it (it reads the Python integers of the form).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reluid.model.network import ScaledRows
from reluid.model.rational import coprime_fractions, gc_paused

__all__ = ["float_parts", "from_float_arrays", "as_array", "fractions", "canonical_text", "common_scale_max", "residues",
           "int_matmul", "bit_lengths"]

#: Rows whose integers need more bits than this are held as Python integers (int64 has 63 and a sign).
_INT64_BITS = 62
#: Entries per block of the vectorised passes: their temporaries stay a few MB, which the allocator reuses
#: (blocks of 512 rows of 785 entries spent as much system time on fresh pages as user time in the text).
_BLOCK = 1 << 17


def _block_rows(cols: int) -> int:
    """Rows per block of a matrix with ``cols`` columns."""
    return max(1, _BLOCK // max(cols, 1))


def float_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reduced ``(n, k)`` with ``x == n * 2**-k`` elementwise, for finite float64 ``x``.

    ``k`` may be negative (integers of 2**53 and beyond); ``n`` is odd unless
    it is 0, in which case ``k`` is 0.

    >>> n, k = float_parts(np.array([0.75, -8.0, 0.0]))
    >>> n.tolist(), k.tolist()
    ([3, -1, 0], [2, -3, 0])
    """
    mantissa, exponent = np.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
    n = (mantissa * 2.0**53).astype(np.int64)  # exact: |n| < 2**53
    shift = _trailing_zeros(n)
    zero = n == 0
    n >>= shift
    k = 53 - exponent.astype(np.int64) - shift
    k[zero] = 0
    return n, k


def _exponents(a: np.ndarray) -> np.ndarray:
    """The biased binary exponent field of ``a`` converted to float64 (0 for 0): cheaper than ``np.frexp``."""
    return a.astype(np.float64).view(np.int64) >> 52


def _trailing_zeros(n: np.ndarray) -> np.ndarray:
    """The number of trailing zero bits of every entry of the int64 array ``n`` (|n| < 2^63; 0 for 0)."""
    lowest_bit = n & -n  # 2**(trailing zeros), exact in float64; 0 for n == 0
    return np.maximum(_exponents(lowest_bit) - 1023, 0)


def bit_lengths(n: np.ndarray) -> np.ndarray:
    """``abs(v).bit_length()`` of every entry of the int64 array ``n`` (|v| < 2^62)."""
    a = np.abs(n)
    out = np.maximum(_exponents(a) - 1022, 0)
    # float64 rounding can round 2^j - 1 (j > 53) up to 2^j: correct those entries down
    big = out > 53
    if big.any():
        over = (a[big] >> (out[big] - 1)) == 0
        out[np.flatnonzero(big)[over]] -= 1
    return out


def from_float_arrays(weight: np.ndarray, bias: np.ndarray) -> ScaledRows:
    """The exact form of the layer ``x -> weight @ x + bias`` (float arrays, finite entries).

    Row i of ``[weight | bias]`` becomes ``N_i · 2^{-K_i}`` with ``K_i`` the
    largest exponent k of :func:`float_parts` in the row, so some entry of
    ``N_i`` is odd (or the row is 0 and K_i = 0): the form is canonical.

    >>> form = from_float_arrays(np.array([[0.5, -1.0]], dtype=np.float32), np.array([3.0], dtype=np.float32))
    >>> form.rows, form.shifts
    ([[1, -2, 6]], (-1,))
    """
    rows, cols = weight.shape[0], weight.shape[1] + 1
    N = np.zeros((rows, cols), dtype=np.int64)
    shifts: list[int] = []
    wide = False
    step = _block_rows(cols)
    for r in range(0, rows, step):              # in blocks: small temporaries, reused memory
        x = np.concatenate([weight[r:r + step].astype(np.float64),
                            bias[r:r + step].astype(np.float64).reshape(-1, 1)], axis=1)
        n, k = float_parts(x)
        nonzero = n != 0
        K = np.where(nonzero, k, np.iinfo(np.int64).min).max(axis=1, initial=np.iinfo(np.int64).min)
        K = np.where(nonzero.any(axis=1), K, 0)
        up = np.where(nonzero, K[:, None] - k, 0)              # ≥ 0: each entry's shift onto its row's scale
        shifts.extend((-K).tolist())
        if wide or int(np.where(nonzero, bit_lengths(n) + up, 0).max(initial=0)) > _INT64_BITS:
            wide = True
            continue
        N[r:r + step] = n << up
    if not wide:
        return ScaledRows(None, shifts, cols, array=N)
    x = np.concatenate([weight.astype(np.float64), bias.astype(np.float64).reshape(rows, 1)], axis=1)
    n, k = float_parts(x)
    K = np.array([-s for s in shifts], dtype=np.int64)
    up = np.where(n != 0, K[:, None] - k, 0)
    with gc_paused():
        exact = (n.astype(object) << up.astype(object)).tolist()
    return ScaledRows(exact, shifts, cols)


def as_array(form: ScaledRows) -> np.ndarray:
    """The integers of ``form`` as a numpy array: int64 when held so, else of Python integers (dtype object)."""
    if form.array is not None:
        return form.array
    return np.array(form.rows, dtype=object).reshape(len(form.shifts), form.n_cols)


def _reduced(N: np.ndarray, shifts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(p, d)`` int64 with N·2^shift = p / 2^d in lowest terms, or None when some p overflows int64."""
    tz = _trailing_zeros(N)
    s = shifts[:, None]
    if (s > 0).any():
        if int(np.where(s > 0, bit_lengths(N) + s, 0).max()) > _INT64_BITS:
            return None
    r = np.where(s < 0, np.minimum(tz, -s), 0)
    p = np.where(s > 0, N << np.maximum(s, 0), N >> r)
    d = np.where(s < 0, -s - r, 0)
    d[N == 0] = 0
    return p, d


def fractions(form: ScaledRows) -> list[list[Fraction]]:
    """The rows of ``form`` as exact Fractions (vectorised for an int64 form)."""
    if form.array is None:
        return form.fractions()
    red = _reduced(form.array, np.asarray(form.shifts, dtype=np.int64))
    if red is None:
        return form.fractions()
    p, d = red
    dens = d.reshape(-1).tolist()
    powers = [1 << e for e in range(max(dens, default=0) + 1)]
    with gc_paused():
        flat = coprime_fractions(p.reshape(-1).tolist(), map(powers.__getitem__, dens))
    w = form.n_cols
    return [flat[i:i + w] for i in range(0, len(flat), w)] if w else [[] for _ in form.shifts]


#: "0000" ... "9999" as 4-byte words: four decimal digits per table look-up
_DIGITS4 = np.frombuffer("".join(f"{v:04d}" for v in range(10**4)).encode(), dtype=np.uint32)
#: the same without leading zeros (NUL bytes instead): the lowest group of a number ("0" for 0), and a higher one
_LEADING_LOW = np.frombuffer("".join(f"{v:4d}" for v in range(10**4)).replace(" ", "\0").encode(), dtype=np.uint32)
_LEADING_HIGH = _LEADING_LOW.copy()
_LEADING_HIGH[0] = 0


def _text(p: np.ndarray, d: np.ndarray, tails: dict[int, bytes]) -> bytes:
    """``b"p/q,p/q,...,p/q;"`` for every row of the int64 arrays (q = 2^d), as ``Network.canonical_chunks`` writes.

    Every entry is laid out in a fixed-width byte row: the sign, the digits of
    |p| right-aligned (four at a time from a table), then ``/q`` and the
    separator from a table of the few q that occur (``tails`` caches their
    digits).  The text has no NUL byte, so every unused byte is a NUL and one
    compress removes them all.
    """
    rows, cols = p.shape
    if cols == 0:
        return b";" * rows
    p, d = p.reshape(-1), d.reshape(-1)
    magnitude = np.abs(p)
    groups = max(1, -(-len(str(int(magnitude.max()))) // 4))
    words = np.empty((p.size, groups), dtype=np.uint32)
    a = magnitude
    for g in range(groups):                     # from the lowest group up; a leading group loses its zeros
        a, r = np.divmod(a, 10**4)
        leading = (_LEADING_LOW if g == 0 else _LEADING_HIGH)[r]
        words[:, groups - 1 - g] = leading if g == groups - 1 else np.where(a == 0, leading, _DIGITS4[r])
    keys = np.flatnonzero(np.bincount(d))
    ends = []
    for e in keys.tolist():
        if e not in tails:
            tails[e] = b"/" + str(1 << e).encode()
        ends += [tails[e] + b",", tails[e] + b";"]
    table = np.zeros((len(ends), max(map(len, ends))), dtype=np.uint8)
    for r, t in enumerate(ends):
        table[r, :len(t)] = np.frombuffer(t, dtype=np.uint8)
    slot = np.zeros(int(keys[-1]) + 1, dtype=np.int64)
    slot[keys] = 2 * np.arange(len(keys))
    which = slot[d]
    which[cols - 1::cols] += 1                  # the last entry of a row ends with ";"
    width = 4 * groups
    out = np.empty((p.size, 1 + width + table.shape[1]), dtype=np.uint8)
    out[:, 0] = np.where(p < 0, ord("-"), 0)
    out[:, 1:width + 1] = words.view(np.uint8)
    out[:, width + 1:] = table[which]
    flat = out.reshape(-1)
    return flat[flat != 0].tobytes()              # boolean indexing: ~10× faster than np.compress here


def canonical_text(form: ScaledRows, n_in: int):
    """The canonical chunks of one layer's rows (weight rows, then the bias row), or None to use the Fractions.

    The bytes are exactly those :meth:`Network.canonical_chunks` writes from
    the Fractions: every entry ``p/q`` in lowest terms, here with q = 2^d.
    The rows are reduced and written in blocks of about :data:`_BLOCK` entries.
    """
    if form.array is None:
        return None
    shifts = np.asarray(form.shifts, dtype=np.int64)
    chunks, bias, tails = [], [], {}
    rows = _block_rows(form.n_cols)
    for i in range(0, form.array.shape[0], rows):
        red = _reduced(form.array[i:i + rows], shifts[i:i + rows])
        if red is None:
            return None
        p, d = red
        chunks.append(_text(p[:, :n_in], d[:, :n_in], tails))
        bias.append((p[:, n_in], d[:, n_in]))
    if bias:
        p, d = np.concatenate([b[0] for b in bias]), np.concatenate([b[1] for b in bias])
    else:
        p = d = np.zeros(0, dtype=np.int64)
    chunks.append(_text(p.reshape(1, -1), d.reshape(1, -1), tails))
    return chunks


def common_scale_max(form: ScaledRows, cols: int) -> int:
    """max |x|·2^D over the first ``cols`` columns of ``form``, 2^D the lcm of their denominators, exactly.

    What clearing the denominators of those entries (and nothing else) makes
    the largest integer, without building a Fraction: an entry N·2^s has the
    denominator 2^max(0, −s − tz(N)).  In blocks of rows.

    >>> common_scale_max(ScaledRows([[3, 1, 5], [8, 2, 1]], (-3, 0), 3), 2)      # 3/8, 1/8 | 8, 2: D = 3
    64
    """
    N, shifts = as_array(form), list(form.shifts)
    rowmax, D = [], 0
    step = _block_rows(cols)
    for r in range(0, len(shifts), step):
        block = N[r:r + step, :cols]
        if block.dtype == object:
            tz = [[(int(v) & -int(v)).bit_length() - 1 if v else None for v in row] for row in block.tolist()]
            top = [max((abs(int(v)) for v in row), default=0) for row in block.tolist()]
            low = [min((t for t in row if t is not None), default=None) for row in tz]
        else:
            tz = np.where(block != 0, _trailing_zeros(block), np.iinfo(np.int64).max)
            top = np.abs(block).max(axis=1, initial=0).tolist()
            low = [None if t == np.iinfo(np.int64).max else t for t in tz.min(axis=1, initial=np.iinfo(np.int64).max).tolist()]
        for s, t in zip(shifts[r:r + step], low):
            if t is not None:
                D = max(D, -s - t)
        rowmax += top
    return max(((v << (s + D)) if s + D >= 0 else (v >> -(s + D)) for v, s in zip(rowmax, shifts) if v), default=0)


def residues(form: ScaledRows, p: int, cols: int) -> np.ndarray:
    """The first ``cols`` columns of ``form`` modulo the odd prime ``p < 2^31``, as int64 in [0, p)."""
    N = as_array(form)[:, :cols]
    scale = np.array([pow(2, s, p) for s in form.shifts], dtype=np.int64).reshape(-1, 1)
    if N.dtype == object:
        N = (N % p).astype(np.int64)
    return (N % p) * scale % p


def _limbs(X: np.ndarray, bits: int, width: int) -> list[np.ndarray]:
    """float64 limbs of the integer array X (|X| < 2^bits): X = Σ_u L_u 2^{width·u}.

    The two's complement split: every limb but the last is ``(X >> width·u) & mask``
    in [0, 2^width), the last is ``X >> width·top`` (signed, |L_top| < 2^width too).
    """
    top = max(0, -(-bits // width) - 1)
    mask = (1 << width) - 1
    out = [((X >> (width * u)) & mask).astype(np.float64) for u in range(top)]
    out.append((X >> (width * top)).astype(np.float64))
    return out


def int_matmul(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """X @ Y exactly for integer arrays (int64 or Python integers): float64 BLAS on limbs.

    The inner dimension K is cut into limbs of w bits with K·2^{2w} < 2^53, so
    every limb product is an exact float64; the result is int64 when its bound
    allows, else an array of Python integers.

    >>> int(int_matmul(np.array([[2**61, -3]]), np.array([[4], [5]]))[0, 0]) == 2**63 - 15
    True
    """
    K = X.shape[1]
    bx = max((int(abs(v)).bit_length() for v in (X.max(initial=0), X.min(initial=0))), default=0)
    by = max((int(abs(v)).bit_length() for v in (Y.max(initial=0), Y.min(initial=0))), default=0)
    width = (53 - max(K, 1).bit_length()) // 2
    assert max(K, 1) << (2 * width) <= 1 << 53
    fits = bx + by + max(K, 1).bit_length() <= 62
    LX, LY = _limbs(X, bx, width), _limbs(Y, by, width)
    out = None
    for u, A in enumerate(LX):
        for v, B in enumerate(LY):
            part = (A @ B).astype(np.int64)
            if not fits:
                part = part.astype(object)
            part = part << (width * (u + v))
            out = part if out is None else out + part
    return out
