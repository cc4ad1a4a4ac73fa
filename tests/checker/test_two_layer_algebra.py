"""The two-layer checker's own exact linear algebra and sign reading against flint (reluid/checker/two_layers.py).

The forgery suites test the rules; these test the arithmetic they rest on, where a wrong elimination
step would only show on rank-deficient or non-unit inputs.
"""

from __future__ import annotations

from fractions import Fraction as F

import flint
import pytest
from hypothesis import given, settings, strategies as st

from reluid.checker import two_layers as T
from reluid.checker.registry import Context
from reluid.errors import CheckFailed
from reluid.model.network import Network

q = st.fractions(min_value=-5, max_value=5, max_denominator=6)


def _flint_rank(rows) -> int:
    if not rows or not rows[0]:
        return 0
    return flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in r] for r in rows]).rank()


def _combos(base, coeffs):
    return [[sum((c * b[t] for c, b in zip(cs, base)), F(0)) for t in range(len(base[0]))] for cs in coeffs]


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.data())
def test_rank_matches_flint_also_on_dependent_rows(width, count, data):
    base = data.draw(st.lists(st.lists(q, min_size=width, max_size=width), min_size=1, max_size=3))
    coeffs = data.draw(st.lists(st.lists(q, min_size=len(base), max_size=len(base)), min_size=count,
                                max_size=count))
    rows = _combos(base, coeffs)                       # rank at most len(base): usually deficient
    assert T._rank(rows) == _flint_rank(rows)


def test_rank_by_hand():
    assert T._rank([]) == 0
    assert T._rank([[F(2), F(4)], [F(3), F(6)]]) == 1            # proportional, leading entries not ±1
    assert T._rank([[F(0), F(2)], [F(3), F(6)]]) == 2
    assert T._rank([[F(1, 3), F(1, 2), F(1)], [F(2, 3), F(1), F(2)], [F(0), F(0), F(5)]]) == 2


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 4), st.data())
def test_echelon_is_flints_rref_and_a_key_of_the_row_space(width, data):
    rows = data.draw(st.lists(st.lists(q, min_size=width, max_size=width), min_size=1, max_size=width))
    if _flint_rank(rows) < len(rows):
        return                                         # _echelon is for independent rows
    R, r = flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in row] for row in rows]).rref()
    expect = tuple(tuple(F(int(R[i, j].p), int(R[i, j].q)) for j in range(width)) for i in range(r))
    assert T._echelon(rows) == expect
    mix = data.draw(st.lists(q, min_size=len(rows), max_size=len(rows)))
    if len(rows) == 2 and mix[0] != 0:                 # another basis of the same space: the same key
        other = [[mix[0] * a + mix[1] * b for a, b in zip(rows[0], rows[1])], list(rows[1])]
        assert T._echelon(other) == expect


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 4), st.data())
def test_common_functional_is_the_line_both_planes_share(n, data):
    vec = st.lists(q, min_size=n + 1, max_size=n + 1)
    ell, a, b = data.draw(vec), data.draw(vec), data.draw(vec)
    s = data.draw(q)
    f1 = (ell, a)                                      # span(ℓ, a) and span(2ℓ + s·b, b) share the line ℓ
    f2 = ([2 * x + s * y for x, y in zip(ell, b)], b)
    if _flint_rank(list(f1)) < 2 or _flint_rank(list(f2)) < 2 or _flint_rank([*f1, *f2]) != 3:
        return                                         # not two planes meeting in exactly one line
    got = T._common_functional(f1, f2)
    if not any(ell[:-1]):
        assert got is None                             # a constant is no hyperplane
        return
    assert got is not None
    assert _flint_rank([*f1, list(got)]) == 2 and _flint_rank([*f2, list(got)]) == 2
    assert next(x for x in got if x != 0) == 1                          # normalised: leading entry 1
    assert _flint_rank([list(got), ell]) == 1                           # the planted common line, up to scale


def test_common_functional_by_hand():
    e = [F(1), F(2), F(-3)]                            # x + 2y - 3
    f1 = (e, [F(0), F(1), F(1)])
    f2 = ([F(3) * x for x in e], [F(1), F(0), F(4)])
    assert T._common_functional(f1, f2) == (F(1), F(2), F(-3))
    half = ([F(1, 2) * x for x in e], [F(0), F(5), F(1, 3)])
    assert T._common_functional(half, f2) == (F(1), F(2), F(-3))
    assert T._common_functional(f1, f1) is None                         # the same plane: no single line
    const = ([F(0), F(0), F(1)], [F(1), F(0), F(0)])                    # they share only the constant
    assert T._common_functional(const, ([F(0), F(0), F(2)], [F(0), F(1), F(0)])) is None


def test_signs_indices_and_regions_at_their_boundaries():
    net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 2], [2, 1], [1, 1]], [-1, -3, -5]), ([[1, 1, 1]], [0])])
    ctx = Context(net, "h")
    assert T._signs(ctx, "+-", 2, "v") == (1, -1)
    for bad in ("+", "+-+", "+x", 5):
        with pytest.raises(CheckFailed):
            T._signs(ctx, bad, 2, "v")
    assert T._index(ctx, 1, 2, "i") == 1
    for bad in (2, -1, True, "1"):
        with pytest.raises(CheckFailed):
            T._index(ctx, bad, 2, "i")
    assert T._sgn((1, -1)) == "+-" and T._sgn((-1, 1)) == "-+"
    th = T._Theta(net)
    assert th.in_region((1, 1), (F(1), F(2))) and not th.in_region((1, -1), (F(1), F(2)))
    assert not th.in_region((1, 1), (F(0), F(2)))                      # on H_1: in no open region
    assert th.in_region((1, 1), (F(0), F(2)), skip=0)                   # ... but on the wall of R_{++}
    with pytest.raises(CheckFailed):
        T._fields(ctx, {"a": 1}, ("a", "b"), "x")
    T._fields(ctx, {"b": 1, "a": 2}, ("a", "b"), "x")
