"""Exact rationals and the float policy.

reluid stores every parameter as a :class:`fractions.Fraction`.  The choice was
measured (``benchmarks/bench_rational.py``): python-flint's ``fmpq`` is about
3-7x faster for arithmetic, but ``Fraction`` hashes 4x faster, is in the
standard library (so the independent checker needs nothing else), and the
heavy linear algebra in reluid runs on integer matrices (flint ``fmpz_mat`` /
``nmod_mat``) anyway, where neither rational type is on the hot path.

Float policy
------------
* A Python/numpy float is converted to the exact binary value it holds
  (float32 0.1 is 13421773/134217728) -- only when the caller opts in with
  ``allow_float=True`` (the binary readers do).
* Text is read as the exact decimal it denotes: ``"0.1"`` is 1/10, ``"1e-3"``
  is 1/1000, ``"3/4"`` is 3/4.
* NaN and infinities are always rejected.
"""

from __future__ import annotations

import contextlib
import gc
import math
import numbers
import re
from collections import deque
from fractions import Fraction
from itertools import repeat

from reluid.errors import InvalidArgument

__all__ = ["Q", "to_rational", "format_rational", "parse_rational", "parse_canonical", "MAX_DIGITS", "primitive_ray",
           "ZERO", "ONE", "FAST_FRACTIONS", "coprime_fraction", "coprime_fractions"]

Q = Fraction
ZERO = Fraction(0)
ONE = Fraction(1)

_RATIONAL_TEXT = re.compile(
    r"""\s*[-+]?(
        \d+\s*/\s*\d+            # p/q
      | (\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?   # decimal
    )\s*\Z""",
    re.VERBOSE | re.ASCII,
)

#: The most digits a number in a certificate may have (CPython's own limit for int <-> str is 4300).
MAX_DIGITS = 4000
_CANONICAL_TEXT = re.compile(r"(0|-?[1-9][0-9]*)(/[1-9][0-9]*)?\Z", re.ASCII)


def parse_rational(text: str) -> Fraction:
    """Read ``"p/q"`` or a decimal string as an exact rational.

    Examples
    --------
    >>> parse_rational("0.1")
    Fraction(1, 10)
    >>> parse_rational("-6/4")
    Fraction(-3, 2)
    >>> parse_rational("2.5e-1")
    Fraction(1, 4)
    """
    if not isinstance(text, str) or not _RATIONAL_TEXT.match(text):
        raise InvalidArgument(f"not an exact rational: {text!r}")
    try:
        return Fraction(text.replace(" ", ""))
    except (ValueError, ZeroDivisionError) as exc:
        raise InvalidArgument(f"not an exact rational: {text!r} ({exc})") from None


def parse_canonical(text: str) -> Fraction:
    """Read a number as reluid writes one: ``"p"`` or a lowest-terms ``"p/q"`` with q > 1.

    Only ASCII digits, no sign on zero, no spaces, decimals or exponents, and at
    most :data:`MAX_DIGITS` digits, so that reading a hostile file costs time
    linear in its length.

    Examples
    --------
    >>> parse_canonical("-3/4")
    Fraction(-3, 4)
    >>> parse_canonical("6/8")
    Traceback (most recent call last):
    ...
    reluid.errors.InvalidArgument: not in lowest terms: '6/8'
    """
    if not isinstance(text, str) or len(text) > 2 * MAX_DIGITS + 2 or not _CANONICAL_TEXT.match(text):
        raise InvalidArgument(f"not an integer or 'p/q' string: {text[:40] if isinstance(text, str) else text!r}")
    num, _, den = text.partition("/")
    if len(num) > MAX_DIGITS + 1 or len(den) > MAX_DIGITS:
        raise InvalidArgument(f"a number with more than {MAX_DIGITS} digits: {text[:40]}…")
    q = int(den) if den else 1
    v = Fraction(int(num), q)
    if den and q == 1:
        raise InvalidArgument(f"{text!r}: an integer is written 'p', not 'p/1'")
    if den and v.denominator != q:
        raise InvalidArgument(f"not in lowest terms: {text!r}")
    return v


def to_rational(x, *, allow_float: bool = False) -> Fraction:
    """Convert ``x`` to an exact :class:`~fractions.Fraction`.

    Parameters
    ----------
    x : int, Fraction, str, float, numpy scalar, or flint ``fmpq``/``fmpz``
        The value.  Strings follow :func:`parse_rational`.
    allow_float : bool, keyword-only
        Accept binary floats, converting them to the exact value they hold.
        Without it a float raises :class:`~reluid.errors.InvalidArgument`.

    Examples
    --------
    >>> to_rational(3)
    Fraction(3, 1)
    >>> import numpy as np
    >>> to_rational(np.float32(0.1), allow_float=True)
    Fraction(13421773, 134217728)
    """
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool):
        raise InvalidArgument(f"a boolean is not a number: {x!r}")
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, str):
        return parse_rational(x)
    if isinstance(x, numbers.Integral):  # numpy integers
        return Fraction(int(x))
    if isinstance(x, (float, numbers.Real)) and not isinstance(x, numbers.Rational):
        f = float(x)  # numpy float16/32/64 widen exactly to a Python float
        if math.isnan(f) or math.isinf(f):
            raise InvalidArgument(f"not a finite number: {x!r}")
        if not allow_float:
            raise InvalidArgument(
                f"float {x!r} given where an exact rational is required "
                "(pass a string like '1/10', or opt in to reading its binary value)"
            )
        return Fraction(f)
    if isinstance(x, numbers.Rational):
        return Fraction(int(x.numerator), int(x.denominator))
    # python-flint types expose .p/.q (fmpq) or int() (fmpz)
    if hasattr(x, "p") and hasattr(x, "q"):
        return Fraction(int(x.p), int(x.q))
    if type(x).__name__ == "fmpz":
        return Fraction(int(x))
    raise InvalidArgument(f"cannot read {x!r} ({type(x).__name__}) as an exact rational")


def format_rational(q: Fraction):
    """The JSON form of a rational: an ``int`` when integral, else ``"p/q"``.

    Examples
    --------
    >>> format_rational(Fraction(3))
    3
    >>> format_rational(Fraction(-1, 3))
    '-1/3'
    """
    if not isinstance(q, Fraction):
        q = Fraction(q)
    d = q.denominator
    if d == 1:
        return int(q.numerator)
    return f"{q.numerator}/{d}"


def primitive_ray(values) -> tuple[tuple[int, ...], Fraction] | None:
    """Write a nonzero rational vector as s·p with p a primitive integer vector and s > 0.

    The positive ray through ``values`` is determined by ``p`` (gcd 1, signs
    kept), so two vectors are positively proportional iff their ``p`` agree.
    Integer tuples hash and compare far faster than tuples of Fractions,
    which is what makes the shallow algorithms O(n) with hashing in practice.
    Returns None for the zero vector.

    Examples
    --------
    >>> primitive_ray((Fraction(-2, 3), Fraction(4, 9), Fraction(0)))
    ((-3, 2, 0), Fraction(2, 9))
    """
    try:
        if not FAST_FRACTIONS:  # pragma: no cover - depends on the Python implementation
            raise AttributeError
        dens = {x._denominator for x in values}                               # the slots (probed below)
        D = math.lcm(*dens) if dens else 1
        if len(dens) == 1:
            z = [x._numerator for x in values]
        else:
            q = {e: D // e for e in dens}                                    # few distinct denominators
            z = [x._numerator * q[x._denominator] for x in values]
    except AttributeError:      # not all Fractions, or no slots
        D = math.lcm(*[x.denominator for x in values]) if values else 1
        z = [x.numerator * (D // x.denominator) for x in values]
    g = math.gcd(*z)
    if g == 0:
        return None
    return (tuple(z) if g == 1 else tuple([v // g for v in z])), Fraction(g, D)


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic garbage collector while millions of acyclic objects are built.

    Fractions and tuples are GC-tracked; building millions of them triggers
    full collections that walk the growing heap, roughly doubling the cost of
    whole-network passes.  The previous state is restored on exit.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _coprime_fraction_slots_work() -> bool:
    """Whether Fractions can be built (and read) through their two slots directly.

    CPython's ``Fraction`` keeps a reduced numerator and positive denominator
    in the slots ``_numerator``/``_denominator`` (3.12 adds the equivalent
    ``Fraction._from_coprime_ints``).  Filling them skips the constructor's
    gcd and type dispatch, which halves the cost of reading a large float
    matrix; reading them skips a property call per entry.  If another
    implementation lays Fraction out differently, the probe fails and the
    public constructor and properties are used.
    """
    try:
        f = object.__new__(Fraction)
        f._numerator, f._denominator = -3, 4
        ref = Fraction(-3, 4)
        return (f == ref and hash(f) == hash(ref) and str(f) == "-3/4"
                and f.numerator == -3 and f.denominator == 4 and f + 1 == Fraction(1, 4)
                and ref._numerator == -3 and ref._denominator == 4)
    except Exception:  # pragma: no cover - depends on the Python implementation
        return False


FAST_FRACTIONS = _coprime_fraction_slots_work()
"""The probe above: True where Fraction's slots may be filled and read directly."""


def coprime_fraction(num: int, den: int) -> Fraction:
    """``Fraction(num, den)`` for coprime ``num`` and ``den > 0``, without re-normalising.

    The caller guarantees gcd(num, den) = 1 and den > 0 (as the result of an
    exact reduction); the slots are filled only where :data:`FAST_FRACTIONS`
    says that is safe.
    """
    if FAST_FRACTIONS:
        f = object.__new__(Fraction)
        f._numerator, f._denominator = num, den
        return f
    return Fraction(num, den)  # pragma: no cover - depends on the Python implementation


def coprime_fractions(numerators, denominators) -> list[Fraction]:
    """``[Fraction(n, d) ...]`` for coprime pairs with ``d > 0`` (the slots filled in bulk where allowed)."""
    numerators = list(numerators)
    if not FAST_FRACTIONS:  # pragma: no cover - depends on the Python implementation
        return list(map(Fraction, numerators, denominators))
    out = list(map(object.__new__, repeat(Fraction, len(numerators))))
    deque(map(setattr, out, repeat("_numerator"), numerators), maxlen=0)
    deque(map(setattr, out, repeat("_denominator"), denominators), maxlen=0)
    return out
