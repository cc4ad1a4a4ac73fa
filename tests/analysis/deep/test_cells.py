"""Exact strict systems (docs/mathematics.md §8.2), activation cells and the exact functional dimension (§9)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.cells import (cell_points, enumerate_cells, exact_functional_dimension,
                                        exact_jacobian_rows, same_function)
from reluid.analysis.deep.fundim import functional_dimension
from reluid.analysis.deep.strict import StrictBudget, check_farkas, check_point, simplest_between, solve_strict
from reluid.model.network import Network
from reluid.report.fundim import describe_cells

CERTIFIED = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 2], [2, 1], [1, 1]], [-1, -3, -5]),
                                ([[1, 1, 1]], [0])])


def test_strict_systems_against_a_float_lp():
    """Every answer carries a certificate that checks; the float LP agrees on every random system."""
    np = pytest.importorskip("numpy")
    linprog = pytest.importorskip("scipy.optimize").linprog
    rng = random.Random(11)
    for _ in range(120):
        d, m, ne = rng.choice([2, 3, 4]), rng.randint(2, 8), rng.choice([0, 0, 1, 2])
        B = [[F(rng.randint(-5, 5)) for _ in range(d)] for _ in range(m)]
        b = [F(rng.randint(-5, 5)) for _ in range(m)]
        C = [[F(rng.randint(-3, 3)) for _ in range(d)] for _ in range(ne)]
        c = [F(rng.randint(-3, 3)) for _ in range(ne)]
        kind, res = solve_strict(B, b, C, c, n=d)
        if kind == "point":
            assert check_point(B, b, C, c, res)
        else:
            assert check_farkas(B, b, C, c, res[0], res[1], d)
        obj = np.zeros(d + 1)
        obj[-1] = -1
        r = linprog(obj, A_ub=np.hstack([-np.array(B, dtype=float), np.ones((m, 1))]), b_ub=np.array(b, dtype=float),
                    A_eq=np.hstack([np.array(C, dtype=float), np.zeros((ne, 1))]) if ne else None,
                    b_eq=-np.array(c, dtype=float) if ne else None, bounds=[(None, None)] * d + [(None, 1)])
        assert (r.status == 0 and -r.fun > 1e-9) == (kind == "point")


def test_strict_budget_and_simplest_rationals():
    assert simplest_between(F(1, 3), F(1, 2)) == F(2, 5)
    assert simplest_between(F(-7, 2), F(-3)) == F(-10, 3)
    assert simplest_between(None, F(-2)) == -3 and simplest_between(F(2), None) == 3
    B = [[F(i), F(j), F(k), F(1)] for i, j, k in itertools.product((-1, 1), repeat=3)] * 2
    with pytest.raises(StrictBudget):
        solve_strict(B, [F(1)] * len(B), n=4, max_rows=3)


def test_cells_of_the_certified_example():
    en = enumerate_cells(CERTIFIED)
    assert en.complete and en.dense and len(en.cells) == 13
    for c in en.cells:
        pts = cell_points(c, 2)
        assert len(pts) == 3
        for x in pts:          # every point is in its cell (exact pre-activation signs)
            pre = CERTIFIED.preactivations(x)
            assert tuple(tuple(1 if v > 0 else -1 for v in z) for z in pre) == c.signs


def test_exact_functional_dimension_beats_sampling():
    """dim_fun = U exactly from the cells, where 1400 Gaussian points certify only 12 of 14."""
    r = exact_functional_dimension(CERTIFIED)
    assert (r.rank, r.upper_bound, r.exact, r.certified) == (14, 14, True, True)
    assert describe_cells(r) == ("dim_fun = 14 exactly = U; architecture (2, 2, 3, 1), D = 19; exact rank over Q at "
                                 "n0 + 1 points of each of the 13 cells; H_dense holds (docs/mathematics.md §9, "
                                 "Theorem 9.1)")
    assert functional_dimension(CERTIFIED).rank <= 14
    fd = functional_dimension(CERTIFIED, method="cells")
    assert fd.method == "cells" and fd.rank == 14 and fd.certified


def test_h_dense_failure_and_lower_bound():
    # the layer-2 neuron 2 is identically 0 where x < 0 (its input is σ(x)): H_dense fails
    net = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1], [1, 0]], [0, 0]), ([[1, 1]], [0])])
    r = exact_functional_dimension(net)
    assert r.complete and not r.dense and r.dense_failure[:2] == (2, 1)
    assert not r.exact or r.rank == r.upper_bound
    assert "H_dense fails" in describe_cells(r) or r.certified


def test_exact_jacobian_is_the_exact_difference_quotient():
    """Within a cell F is affine in each single parameter, so a small exact difference quotient is the derivative."""
    x = (F(1, 3), F(2, 7))
    rows = exact_jacobian_rows(CERTIFIED, x)
    layers = [([list(r) for r in L.weight], list(L.bias)) for L in CERTIFIED.layers]
    spots = [(m, "W", i, j) for m, (W, b) in enumerate(layers) for i in range(len(W)) for j in range(len(W[0]))]
    spots = [s for m in range(3) for s in [t for t in spots if t[0] == m] + [(m, "b", i) for i in range(len(layers[m][1]))]]
    t = F(1, 10**6)
    base = CERTIFIED(x)[0]
    assert len(spots) == len(rows[0]) == CERTIFIED.n_params
    for col, spot in enumerate(spots):
        moved = [([list(r) for r in W], list(b)) for W, b in layers]
        if spot[1] == "W":
            moved[spot[0]][0][spot[2]][spot[3]] += t
        else:
            moved[spot[0]][1][spot[2]] += t
        net = Network.from_lists(moved)
        assert (net(x)[0] - base) / t == rows[0][col]


def test_same_function_decides_the_flip_families():
    from reluid.analysis.deep.two_layers import flipped
    d15 = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[2, 1], [1, 2], [-3, -3]], [-6, -8, 13]),
                              ([[1, 1, 1]], [0])])
    equal = set()
    for F1 in ((), (0,), (1,), (0, 1)):
        for r in range(4):
            for F2 in itertools.combinations(range(3), r):
                same, x = same_function(d15, flipped(d15, F1, F2))
                if same:
                    equal.add((F1, F2))
                else:
                    assert d15(x) != flipped(d15, F1, F2)(x)
    assert equal == {((), ()), ((), (0, 1, 2))}


def test_a_deadline_inside_a_layer_stops_with_a_timeout_reason(monkeypatch):
    """The deadline is checked before every exact row of a layer's forms (784-128-128-10 spent minutes in one
    layer); passing it there stops the enumeration with the same structured reason as between nodes (a string
    in its place crashed ``reluid certify`` of 784-128-128-10 with an internal error)."""
    import reluid.analysis.deep.cells as cells_module
    from reluid.report.reasons import sentence
    from reluid.verdicts import ReasonCode

    clock = iter(range(10**6))
    monkeypatch.setattr(cells_module.time, "monotonic", lambda: next(clock))
    en = enumerate_cells(CERTIFIED, timeout=0.5)      # deadline 0.5: the first row of layer 1 sees 1 > 0.5
    assert not en.complete and en.nodes == 0 and en.cells == ()
    assert en.reason.code is ReasonCode.CELLS_STOPPED
    why = en.reason.params["why"]                    # a nested reason is frozen as its JSON form
    assert why["code"] == ReasonCode.CELLS_TIMEOUT.value and dict(why["params"]) == {"nodes": 0}
    assert "timeout after 0 nodes" in sentence(en.reason)


def test_a_strict_system_asks_its_caller_during_the_elimination():
    """solve_strict calls ``tick()`` before each row's Fourier–Motzkin combinations, so that the cell
    enumeration's deadline can stop one elimination (one over 64 variables ran 10 s past it); a raise there
    propagates, and without it the answer is the same."""
    B = [[F(1), F(0)], [F(-1), F(0)], [F(0), F(1)], [F(0), F(-1)], [F(1), F(1)]]
    b = [F(0), F(1), F(0), F(1), F(-1)]                 # 0 < x < 1, 0 < y < 1, x + y > 1
    calls = []
    kind, x = solve_strict(B, b, n=2, tick=lambda: calls.append(1))
    assert kind == "point" and check_point(B, b, [], [], x) and len(calls) == 3   # pos rows: 2 for x, 1 for y

    class Stop(Exception):
        pass

    def stop():
        raise Stop

    with pytest.raises(Stop):
        solve_strict(B, b, n=2, tick=stop)
    assert solve_strict(B, b, n=2) == (kind, x)
