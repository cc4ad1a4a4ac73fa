"""Exact checks of docs/mathematics.md §12.10 (clash points, Theorem 12.37; not used by reluid).

* Example 12.38: the network of Example 12.21 (n0 = 3, n2 = 2) has 146 bend flats (the counts of
  Example 12.29, cross-checked against the independent enumeration of test_depth_three.py) and 82 clash
  points, all on θ's layer-1 planes (Corollary 12.36), and meets (CP-L) and (CP): every competitor is
  layer-1 matched (slow).
* Negative controls: with W^2_{:,1} = 0, and Example 12.19's trade lifted to R³, exact competitors move
  layer-1 hyperplanes, and (CP) fails (no clash points).
* Corollary 12.36 on a seeded random (3, 3, 2, 4, 1) network: clash points exist and lie on the H_j.
* The exact cover searches on configurations with known answers.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.equivalence import equivalent
from reluid.analysis.deep.strict import rref
from reluid.model.network import Network
from tests.depth3_clash import (Net3, clash_points, cover_by_planes, cp_l, cp_star, dedupe,
                                edge_flats, level1_flats, on_H)

CD = [(F(1, 10), F(9, 10)), (F(2, 10), F(8, 10)), (F(3, 10), F(7, 10)),
      (F(7, 10), F(3, 10)), (F(8, 10), F(2, 10)), (F(9, 10), F(1, 10))]
I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
W3 = [[1 / d, 1 / c] for c, d in CD]


def _example(W2):
    return Net3(I3, [0, 0, 0], W2, [-5, F(11, 2)], W3, [-1] * 6, [[1] * 6], [0])


def _key(rows):
    return tuple(map(tuple, rref(rows)[0]))


@pytest.mark.slow
def test_example_12_38_clash_points_meet_cp():
    net = _example([[5, 1, 10], [-6, -1, -8]])
    edges, lvl1 = edge_flats(net), level1_flats(net)
    assert sum(f.kind == "L2" for f in edges) == 36 and sum(f.kind == "L1" for f in edges) == 96
    assert len(lvl1) == 14 and [sum(f.on == j for f in lvl1) for j in range(3)] == [6, 4, 4]
    # the same 146 lines as the enumeration of test_depth_three.py (Example 12.29, Proposition 12.31)
    from tests.analysis.deep.test_depth_three import _example_12_21_flats, _layer_1_edge_flats
    other = _example_12_21_flats()[0] + _layer_1_edge_flats()
    assert {_key(f.rows) for f in edges + lvl1} == {_key(rows) for rows, *_ in other}
    flats = dedupe(edges + lvl1)
    assert len(flats) == 146
    X = clash_points(flats)
    assert len(X) == 82
    assert all(on_H(net, x) for x in X)                     # Corollary 12.36
    ok_l, stats = cp_l(net, X)
    assert stats == [(12, 3, 3), (27, 7, 3), (15, 4, 3)] and ok_l is True
    assert cp_star(net, X) == (True, None)
    # each clash point comes from two flats whose lines meet in it, inside both closed active parts
    for x, pairs in X.items():
        for a, b in pairs:
            for f in (flats[a], flats[b]):
                assert all(sum(r[q] * x[q] for q in range(3)) + r[3] == 0 for r in f.rows)
                assert f.contains_closure(x)


def test_example_12_38_edge_flats_alone_meet_cp_l():
    # Definition 12.23(a) flats only (no level-1 flats, whose active parts depend on the layer-3 pattern): 132
    # lines, 78 clash points, and the same X_i°, c_i, m_i as with all 146 flats, so (CP-L) holds from them alone.
    # Monotone (more flats only add clash points): a certificate may carry edge flats only.
    net = _example([[5, 1, 10], [-6, -1, -8]])
    flats = dedupe(edge_flats(net))
    X = clash_points(flats)
    assert len(flats) == 132 and len(X) == 82 - 4
    assert all(on_H(net, x) for x in X)
    assert cp_l(net, X) == (True, [(12, 3, 3), (27, 7, 3), (15, 4, 3)])


def test_negative_control_competitor_moves_h1_and_cp_fails():
    W2 = [[0, 1, 10], [0, -1, -8]]           # layer-1 neuron 1 feeds nothing
    net = _example(W2)
    flats = dedupe(edge_flats(net) + level1_flats(net))
    assert len(flats) == 22 and all(f.d[1] == 0 == f.d[2] for f in flats)    # all parallel to e_1
    X = clash_points(flats)
    assert X == {} and cp_star(net, X)[0] is False and cp_l(net, X)[0] is False
    theta = Network.from_lists([(I3, [0, 0, 0]), (W2, [-5, F(11, 2)]), (W3, [-1] * 6), ([[1] * 6], [0])])
    moved = Network.from_lists([([[1, 1, 0], [0, 1, 0], [0, 0, 1]], [3, 0, 0]), (W2, [-5, F(11, 2)]),
                                (W3, [-1] * 6), ([[1] * 6], [0])])
    eq = equivalent(theta, moved)
    assert eq.equal is True and eq.same_orbit is False      # a competitor that is not layer-1 matched


def test_negative_control_example_12_19_lifted_to_r3():
    # Example 12.19's trade (z^2_1 = 2σ(x_1) − σ(x_1 − 1) ≥ 0 is also σ(x_1 + 1) − σ(1 − x_1) after σ)
    # inside Ω(3, 3, 2, 3, 1) with a third layer-1 neuron on x_2 + x_3: f depends on all inputs and has
    # bend flats, an exact competitor moves H_1 and H_2, and (CP) fails (every flat has direction
    # (0, 1, −1), so no two meet)
    W1, b1, W2, b2 = [[1, 0, 0], [1, 0, 0], [0, 1, 1]], [0, -1, 0], [[2, -1, 0], [0, 0, 1]], [0, -F(1, 2)]
    W3, b3, V = [[1, 2], [-1, 1], [F(1, 2), -3]], [-F(1, 3), F(1, 2), F(1, 4)], [[1, -2, 1]]
    net = Net3(W1, b1, W2, b2, W3, b3, V, [0])
    flats = dedupe(edge_flats(net) + level1_flats(net))
    assert len(flats) == 4 and all(f.d[0] == 0 and f.d[1] == -f.d[2] != 0 for f in flats)
    X = clash_points(flats)
    assert X == {} and cp_star(net, X)[0] is False
    theta = Network.from_lists([(W1, b1), (W2, b2), (W3, b3), (V, [0])])
    moved = Network.from_lists([([[1, 0, 0], [-1, 0, 0], [0, 1, 1]], [1, 1, 0]), ([[1, -1, 0], [0, 0, 1]], b2),
                                (W3, b3), (V, [0])])
    eq = equivalent(theta, moved)
    assert eq.equal is True and eq.same_orbit is False


def test_corollary_12_36_on_a_random_network():
    rng = random.Random(7)
    g = lambda: F(round(rng.gauss(0.0, 1.0) * 16), 16)
    arch = (3, 3, 2, 4, 1)
    mats = [([[g() for _ in range(a)] for _ in range(b)], [g() for _ in range(b)]) for a, b in zip(arch, arch[1:])]
    net = Net3(*(m for pair in mats for m in pair))
    flats = dedupe(edge_flats(net) + level1_flats(net))
    X = clash_points(flats)
    assert len(flats) >= 10 and len(X) >= 3
    assert all(on_H(net, x) for x in X)


def test_cover_searches_known_answers():
    # four affinely independent points: two planes, not one
    pts = [(F(0), F(0), F(0)), (F(1), F(0), F(0)), (F(0), F(1), F(0)), (F(0), F(0), F(1))]
    assert cover_by_planes(pts, 1) is False and cover_by_planes(pts, 2) is True
    # five points of the plane {x = 0}, no three collinear: one plane if it may be {x = 0}; else the
    # members meet {x = 0} in lines, and three lines are needed
    conic = [(F(0), F(t), F(t * t)) for t in range(5)]
    H = (F(1), F(0), F(0), F(0))
    assert cover_by_planes(conic, 1) is True
    assert cover_by_planes(conic, 2, [H]) is False and cover_by_planes(conic, 3, [H]) is True
    # a 3 × 3 grid on {x = 0}: three lines suffice, two do not
    grid = [(F(0), F(a), F(b)) for a in range(3) for b in range(3)]
    assert cover_by_planes(grid, 3, [H]) is True and cover_by_planes(grid, 2, [H]) is False
