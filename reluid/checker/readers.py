"""How the checker reads evidence: one reader per kind of value, every bound in one place.

A certificate is hostile input.  Each reader takes a value from the
(frozen) evidence, checks its type and bounds, and returns it in the form the
verifiers compute with, or fails the claim with a one-line reason
(:func:`reluid.checker.registry.fail`).  No verifier reads a raw field
without a reader, so a wrong type anywhere is a rejected claim, never an
exception of the kernel.

The rules:

rationals
    every number of a certificate is a JSON integer or a canonical string, ``"p"`` or a
    lowest-terms ``"p/q"`` with q > 1 (:func:`reluid.certificates.schema.q`, at most
    :data:`reluid.model.rational.MAX_DIGITS` digits each); ``bool`` is not a number.
integers
    numbers whose value is an integer, optionally in a range.
primes
    integers in ``[lo, PRIME_BOUND)`` that pass ONE primality test,
    python-flint's ``fmpz.is_prime`` (a proof, not a probable-prime test).
    :data:`PRIME_BOUND` keeps a residue in a machine word (flint's ``nmod_mat``);
    an enumeration mod p needs ``p > SEARCH_PRIME_MIN`` (below it a small prime
    makes every point a candidate).
networks
    a ``reluid.network/1`` object through the certificate reader.

>>> from reluid.checker.registry import Context
>>> from reluid.model.network import Network, Shallow
>>> ctx = Context(Network.from_lists([([[1]], [0]), ([[1]], [0])]), "c")
>>> integer(ctx, 3, "n"), rational(ctx, "-1/2", "x"), prime(ctx, 101, "p")
(3, Fraction(-1, 2), 101)
>>> integer(ctx, "1/2", "n")
Traceback (most recent call last):
...
reluid.errors.CheckFailed: c: n: '1/2' is not an integer
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from fractions import Fraction

from reluid.certificates.schema import network_from_dict, q, thaw
from reluid.checker.registry import Context, fail
from reluid.errors import CertificateError
from reluid.model.network import Network

__all__ = ["PRIME_BOUND", "SEARCH_PRIME_MIN", "SHOWN_DIGITS", "mapping", "fields", "sequence", "integer",
           "integers", "tuples", "indices", "rational", "rationals", "points", "prime", "is_prime", "network", "residue",
           "show", "lcm_rows", "neuron_rows", "IntRows", "output_columns"]

#: Every prime of a certificate lies below this bound (residues fit a machine word).
PRIME_BOUND = 2**63
#: An enumeration modulo p needs p above this (a small prime makes every point a candidate).
SEARCH_PRIME_MIN = 2**30
#: Numbers in messages are shown with at most this many digits in numerator and denominator.
SHOWN_DIGITS = 60


def show(x) -> str:
    """A number for a message: exact when short, abbreviated (with its digit count) when long.

    >>> show(Fraction(-1, 3)), show(10**100)
    ('-1/3', '1000000000…(101 digits)')
    """
    if isinstance(x, Fraction):
        return show(x.numerator) if x.denominator == 1 else f"{show(x.numerator)}/{show(x.denominator)}"
    if isinstance(x, int) and not isinstance(x, bool):
        bits = abs(x).bit_length()
        if bits <= 3 * SHOWN_DIGITS:          # 3 bits per digit is below log2(10): short numbers stay exact
            return str(x)
        digits = len(str(abs(x))) if bits < 14_000 else int(bits * 0.30103) + 1
        head = str(abs(x) // 10 ** max(digits - 10, 0)) if bits < 14_000 else "?"
        return f"{'-' if x < 0 else ''}{head}…({digits} digits)"
    text = repr(x)
    return text if len(text) <= SHOWN_DIGITS else text[:SHOWN_DIGITS] + "…"


def mapping(ctx: Context, x, what: str, keys=None) -> Mapping:
    """An object; with ``keys``, exactly those fields."""
    if not isinstance(x, Mapping):
        fail(ctx, f"{what} must be an object, got {type(x).__name__}")
    if keys is not None and set(x) != set(keys):
        fail(ctx, f"{what} must have the fields {sorted(keys)}, got {sorted(map(str, x))}")
    return x


def fields(ctx: Context, x, what: str, required, optional=()) -> Mapping:
    """An object with every field of ``required``, and otherwise only fields of ``optional``."""
    mapping(ctx, x, what)
    missing = [k for k in required if k not in x]
    if missing:
        fail(ctx, f"{what}: missing field {missing[0]!r}")
    extra = sorted(str(k) for k in x if k not in set(required) | set(optional))
    if extra:
        fail(ctx, f"{what}: unexpected field {extra[0]!r}")
    return x


def sequence(ctx: Context, x, what: str, length: int | None = None) -> tuple:
    """A list (a tuple once frozen), optionally of a given length."""
    if not isinstance(x, (list, tuple)):
        fail(ctx, f"{what} must be a list")
    if length is not None and len(x) != length:
        fail(ctx, f"{what} has {len(x)} entries, expected {length}")
    return tuple(x)


def integer(ctx: Context, x, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integral certificate number (a JSON integer, or ``"p"``) in ``[lo, hi)`` (either end optional)."""
    if isinstance(x, bool) or not isinstance(x, (int, str)):
        fail(ctx, f"{what} must be an integer, got {show(x)}")
    if isinstance(x, str):
        v = rational(ctx, x, what)
        if v.denominator != 1:
            fail(ctx, f"{what}: {show(x)} is not an integer")
        x = v.numerator
    if (lo is not None and x < lo) or (hi is not None and x >= hi):
        fail(ctx, f"{what} = {show(x)} is outside [{'' if lo is None else lo}, {'' if hi is None else show(hi)})")
    return x


def integers(ctx: Context, x, what: str, length: int | None = None) -> tuple[int, ...]:
    return tuple(integer(ctx, v, what) for v in sequence(ctx, x, what, length))


def tuples(ctx: Context, x, what: str, size: int) -> tuple[tuple[int, ...], ...]:
    """A list of ``size``-tuples of integers."""
    if not isinstance(x, (list, tuple)) or not all(
            isinstance(t, (list, tuple)) and len(t) == size and
            all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in t) for t in x):
        fail(ctx, f"{what} must be a list of {size}-tuples of integers")
    return tuple(tuple(integer(ctx, v, what) for v in t) for t in x)


def indices(ctx: Context, x, bound: int, what: str, length: int | None = None, distinct: bool = True):
    """Integers in ``[0, bound)``, distinct unless told otherwise."""
    out = integers(ctx, x, what, length)
    if any(not 0 <= i < bound for i in out):
        fail(ctx, f"{what}: index out of range [0, {bound})")
    if distinct and len(set(out)) != len(out):
        fail(ctx, f"{what}: repeated index")
    return out


def rational(ctx: Context, x, what: str) -> Fraction:
    try:
        return q(x)
    except CertificateError as e:
        fail(ctx, f"{what}: {e}")


def rationals(ctx: Context, x, what: str, length: int | None = None) -> tuple[Fraction, ...]:
    return tuple(rational(ctx, v, what) for v in sequence(ctx, x, what, length))


def points(ctx: Context, x, what: str, dim: int, nonempty: bool = False) -> tuple[tuple[Fraction, ...], ...]:
    """A list of rational points of R^dim."""
    raw = sequence(ctx, x, what)
    if nonempty and not raw:
        fail(ctx, f"{what} must be a nonempty list of points")
    pts = tuple(rationals(ctx, v, what) for v in raw)
    if any(len(v) != dim for v in pts):
        fail(ctx, f"{what}: every point needs {dim} coordinates")
    return pts


def is_prime(p: int) -> bool:
    """The checker's one primality test (python-flint, proven for every size)."""
    import flint       # here, so that the Farkas-tree checker, which reads through this module, loads no flint

    return p >= 2 and bool(flint.fmpz(p).is_prime())


def prime(ctx: Context, x, what: str, lo: int = 2) -> int:
    """A prime in ``[lo, PRIME_BOUND)``."""
    p = integer(ctx, x, what)
    if not lo <= p < PRIME_BOUND:
        fail(ctx, f"{what} = {show(p)} is outside [{'2^30' if lo == SEARCH_PRIME_MIN else lo}, 2^63)")
    if not is_prime(p):
        fail(ctx, f"{what} = {p} is not prime")
    return p


def residue(ctx: Context, x: Fraction, p: int) -> int:
    """x mod p, or fail when p divides its denominator."""
    if x.denominator % p == 0:
        fail(ctx, f"the prime {p} divides a denominator ({show(x)})")
    return x.numerator * pow(x.denominator, -1, p) % p


def network(ctx: Context, x, what: str) -> Network:
    """A ``reluid.network/1`` object (frozen or plain)."""
    if not isinstance(x, Mapping):
        fail(ctx, f"{what} must be a reluid.network/1 object, got {type(x).__name__}")
    try:
        return network_from_dict(thaw(x), what)
    except CertificateError as e:
        fail(ctx, str(e))


# ---------------------------------------------------------------------------
# θ as integer rows (the network itself, not evidence: read once per check)
# ---------------------------------------------------------------------------

def lcm_rows(rows) -> tuple[list[list[int]], list[Fraction]]:
    """Each row of Fractions as (integers, λ) with row = λ·integers, λ = 1/(the lcm of its denominators)."""
    ints, scales = [], []
    for row in rows:
        dens = {x.denominator for x in row}
        den = math.lcm(*dens)
        q = {e: den // e for e in dens}          # rows of stored floats have few distinct denominators
        ints.append([x.numerator * q[x.denominator] for x in row])
        scales.append(Fraction(1, den))
    return ints, scales


def _power_of_two(s: int) -> Fraction:
    """2^s as a Fraction (faster than ``Fraction(2) ** s``)."""
    return Fraction(1 << s) if s >= 0 else Fraction(1, 1 << -s)


def neuron_rows(t: Shallow) -> tuple[list[list[int]], list[Fraction]]:
    """(N, λ): (a_i, b_i) = λ_i·N_i with N_i a list of m + 1 integers and λ_i > 0, for every neuron i.

    A θ read from binary floats holds its hidden layer as integers times a
    power of two per row (:class:`~reluid.model.network.ScaledRows`), which
    are taken as they are; otherwise each row is cleared of its denominators.
    """
    if t.hidden is not None:
        return t.hidden.rows, [_power_of_two(s) for s in t.hidden.shifts]
    return lcm_rows(t.row(i) for i in range(t.n))


class IntRows:
    """θ's hidden layer as integer rows, read where they lie: (a_i, b_i) = λ_i·N_i with λ_i > 0.

    The same integers as :func:`neuron_rows`, without building all of them as
    Python lists at once when the form holds them as a C-contiguous array of
    64-bit integers: then they are read through the buffer protocol (a
    ``memoryview``; the checker imports nothing to do so), one row, a few
    entries or a block of rows at a time (:meth:`blocks`, for
    :func:`reluid.checker.linalg.row_products`).

    >>> from reluid.model.network import Shallow
    >>> rows = IntRows(Shallow.make([1, 1], [[1, 2], ["1/2", 0]], [3, 1], [0]))
    >>> rows.row(1), rows.head(0, 2), rows.scales, list(rows.blocks(1))
    ([1, 0, 2], [1, 2], [Fraction(1, 1), Fraction(1, 2)], [[[1, 2, 3]], [[1, 0, 2]]])
    """

    __slots__ = ("n", "width", "scales", "_words", "_rows")

    def __init__(self, t: Shallow):
        self.n, self.width = t.n, t.m + 1
        self._words = _int64_words(t.hidden, self.n, self.width) if t.hidden is not None else None
        if self._words is not None:
            self._rows = None
            self.scales = [_power_of_two(s) for s in t.hidden.shifts]
        else:
            self._rows, self.scales = neuron_rows(t)

    def row(self, i: int) -> list[int]:
        """N_i, a list of m + 1 integers."""
        if self._words is None:
            return self._rows[i]
        return self._words[i * self.width:(i + 1) * self.width].tolist()

    def head(self, i: int, count: int) -> list[int]:
        """The first ``count`` entries of N_i (fewer when the row is shorter)."""
        if self._words is None:
            return self._rows[i][:count]
        return self._words[i * self.width:i * self.width + min(count, self.width)].tolist()

    def blocks(self, size: int):
        """N_0, N_1, … in order, ``size`` rows at a time: each block a list of rows (lists of m + 1 integers)."""
        for start in range(0, self.n, size):
            stop = min(start + size, self.n)
            yield self._rows[start:stop] if self._words is None else [self.row(i) for i in range(start, stop)]


def _int64_words(form, n: int, width: int):
    """The integers of ``form`` as a flat ``memoryview`` of signed 64-bit words (row-major), or None."""
    array = getattr(form, "array", None)
    if array is None or sys.byteorder != "little":      # "<q" and "<l" below name the native order only there
        return None
    try:
        view = memoryview(array)
    except TypeError:
        return None
    if view.itemsize != 8 or view.format not in ("q", "l", "<q", "<l", "=q", "=l") or not view.c_contiguous \
            or tuple(view.shape) != (n, width) or len(form.shifts) != n:
        return None
    return view.cast("B").cast("q")          # a memoryview is flattened through its bytes: the same words


def output_columns(t: Shallow) -> tuple[list[list[int]], list[Fraction]]:
    """(C, μ): m_i = μ_i·C_i with C_i a list of k integers and μ_i > 0, for every neuron i."""
    if t.output is not None:
        rows, shifts = t.output.rows, t.output.shifts
        low = min(shifts, default=0)
        up = [s - low for s in shifts]
        cols = [[v << u for v, u in zip(col, up)] for col in zip(*rows)][:t.n] if rows else [[] for _ in range(t.n)]
        return cols, [Fraction(2) ** low] * t.n
    return lcm_rows(t.out(i) for i in range(t.n))
