"""The checker's exact linear algebra (reluid/checker/linalg.py) on matrices with known answers.

Row swaps, non-unit pivots, zero rows, fewer pivot columns than entries, kernels with fractional and
zero entries, and residues that vanish only modulo the prime: each result is written out.
"""

from __future__ import annotations

from fractions import Fraction as F

import flint

from reluid.checker import linalg as L


def test_rref_by_hand():
    assert L.rref([[0, 2, 4], [1, 1, 1], [2, 2, 2]], 3) == ([[1, 0, -1], [0, 1, 2]], [0, 1])
    assert L.rref([[0, 0, 3], [0, 2, 1]], 3) == ([[0, 1, 0], [0, 0, 1]], [1, 2])
    assert L.rref([[F(1, 2), F(1, 3)], [F(1, 4), F(1, 5)]], 2) == ([[1, 0], [0, 1]], [0, 1])
    assert L.rref([[0, 0], [0, 0]], 2) == ([], [])
    assert L.rref([], 3) == ([], [])
    # pivots only among the first ncols columns; the rest is carried along
    assert L.rref([[1, 2, 3], [2, 4, 7]], 2) == ([[1, 2, 3]], [0])
    assert L.rref([[2, 4, 7], [1, 2, 3]], 3) == ([[1, 2, 0], [0, 0, 1]], [0, 2])
    R, _ = L.rref([[3, 6]], 2)
    assert all(type(x) is F for x in R[0])


def test_rank_by_hand():
    assert L.rank([]) == 0 and L.rank([[]]) == 0 and L.rank(iter([[1, 2], [2, 4]])) == 1
    assert L.rank([[0, 0, 0]]) == 0 and L.rank([[0, 0, 1], [0, 1, 0], [1, 0, 0]]) == 3
    assert L.rank([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == 2


def test_integer_kernel_by_hand():
    assert L.integer_kernel([[2, -1, 0], [0, 0, 1]], 3) == [(1, 2, 0)]
    assert L.integer_kernel([[1, 1, 1]], 3) == [(-1, 1, 0), (-1, 0, 1)]
    assert L.integer_kernel([[0, 0]], 2) == [(1, 0), (0, 1)]
    assert L.integer_kernel([[1, 0], [0, 1]], 2) == []
    assert L.integer_kernel([[3, 0, -2]], 3) == [(0, 1, 0), (2, 0, 3)]
    assert L.integer_kernel([[F(1, 2), F(1, 3), 1]], 3) == [(-2, 3, 0), (-2, 0, 1)]
    for rows in ([[4, 6, 10]], [[6, 10, 15], [1, 1, 1]]):
        for z in L.integer_kernel(rows, 3):
            assert all(sum(a * b for a, b in zip(r, z)) == 0 for r in rows)
            assert flint.fmpz_mat([list(z)]).rank() == 1


def test_modulo_p_by_hand():
    assert L.rref_mod_p([[2, 4], [1, 3]], 7) == ([[1, 0], [0, 1]], [0, 1])
    assert L.rref_mod_p([[-1, 3]], 5) == ([[1, 2]], [0])                    # -1 ≡ 4, 3 · 4 ≡ 2
    assert L.rref_mod_p([[1, 1], [1, 8]], 7) == ([[1, 1]], [0])              # dependent only modulo 7
    assert L.rref_mod_p([[0, 0, 5], [0, 3, 1]], 7) == ([[0, 1, 0], [0, 0, 1]], [1, 2])
    assert L.rref_mod_p([[7, 14]], 7) == ([], [])
    R, r = flint.nmod_mat([[0, 1, 2], [0, 0, 1]], 11).rref()
    assert L.pivots_mod_p(R, r) == [1, 2] and L.pivots_mod_p(R, 1) == [1] and L.pivots_mod_p(R, 0) == []
    assert L.rank_mod_p(2, 2, [1, 1, 1, 8], 7) == 1 and L.rank_mod_p(2, 2, [1, 1, 1, 8], 11) == 2
    assert L.rank_mod_p(0, 3, [], 7) == 0 and L.rank_mod_p(3, 0, [], 7) == 0
    assert L.rank_mod_p(1, 3, [0, 0, 0], 7) == 0
