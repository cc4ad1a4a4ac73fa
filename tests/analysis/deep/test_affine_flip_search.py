"""The fast paths of the affine-layer-flip search (mechanism iv) against exact linear algebra."""

from fractions import Fraction

import flint
from hypothesis import given, settings, strategies as st

from reluid.analysis.deep.mechanisms import _independent_mod_p, _row_basis

small = st.fractions(min_value=-4, max_value=4, max_denominator=5)


def _rank_q(rows) -> int:
    if not rows or not rows[0]:
        return 0
    return flint.fmpq_mat([[flint.fmpq(q.numerator, q.denominator) for q in r] for r in rows]).rank()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 6), st.data())
def test_row_basis_is_independent_and_spans(dim, count, data):
    seed = data.draw(st.lists(st.lists(small, min_size=dim, max_size=dim), min_size=1, max_size=3))
    coeffs = data.draw(st.lists(st.lists(st.integers(-2, 2), min_size=len(seed), max_size=len(seed)),
                                min_size=count, max_size=count))
    vectors = [[sum((c * v[k] for c, v in zip(cs, seed)), Fraction(0)) for k in range(dim)] for cs in coeffs]
    basis = _row_basis(vectors, dim)
    assert all(b in vectors for b in basis)
    assert _rank_q(basis) == len(basis) == _rank_q(vectors)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3), st.data())
def test_independence_mod_p_implies_no_vanishing_combination(n, m, r, data):
    Wl = data.draw(st.lists(st.lists(small, min_size=m, max_size=m), min_size=n, max_size=n))
    Wn = data.draw(st.lists(st.lists(small, min_size=n, max_size=n), min_size=1, max_size=3))
    basis = data.draw(st.lists(st.lists(small, min_size=m, max_size=m), min_size=r, max_size=r))
    vecs = [[Wn[o][i] * sum((Wl[i][k] * b[k] for k in range(m)), Fraction(0)) for o in range(len(Wn)) for b in basis]
            for i in range(n)]
    exact = _rank_q(vecs) == n
    assert _independent_mod_p(Wl, Wn, basis) == exact     # 2^31 - 1 divides none of these small minors


def test_a_planted_dependency_is_not_called_independent():
    Wl = [[1, 2], [2, 4], [0, 1]]
    Wn = [[1, -1, 3]]
    basis = [[Fraction(1), Fraction(0)]]
    # neuron 0 and 1: W^l b = 1 and 2, outgoing 1 and -1: 1·1 + (-1)·... vectors (1), (-2), (0): dependent
    assert not _independent_mod_p(Wl, Wn, basis)
    assert _independent_mod_p([[1, 0]], [[1]], [[Fraction(1), Fraction(0)]])
