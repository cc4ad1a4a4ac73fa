"""The checker's bounded searches (reluid/checker/search.py) on networks with known normal forms.

Exact values of the orbit normal form (rows scaled to L1 norm 1 and sorted, ties broken by the least
result over every order), the work each search charges and what it records as searched, the orbit
invariant, and :func:`outside_orbit` on networks in, and outside, one orbit.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from reluid.checker import search as S
from reluid.checker.registry import Budget, Context, WorkLimit
from reluid.model.network import Network

#: x ↦ (1, 3) σ((2x1 + 2, x2 - 1)): rows of L1 norm 4 and 2
A = Network.from_lists([([[2, 0], [0, 1]], [2, -1]), ([[1, 3]], [0])])
#: two hidden rows equal up to scale (norm 2 and 4): a tie, broken by the output weights
TIED = Network.from_lists([([[1, 1], [2, 2]], [0, 0]), ([[1, 3]], [5])])


def _permuted_scaled(net, perm, scales):
    """g·θ: hidden neuron i of the result is neuron perm[i] of θ, its row scaled by scales[i] > 0."""
    (W, b), (V, c) = [([list(r) for r in L.weight], list(L.bias)) for L in net.layers]
    W2 = [[x * s for x in W[p]] for p, s in zip(perm, scales)]
    b2 = [b[p] * s for p, s in zip(perm, scales)]
    V2 = [[row[p] / s for p, s in zip(perm, scales)] for row in V]
    return Network.from_lists([(W2, b2), (V2, c)])


def test_the_orbit_form_by_hand():
    assert S.orbit_form(A) == (
        (((F(0), F(1, 2)), (F(1, 2), F(0))), (F(-1, 2), F(1, 2))),      # rows sorted: (0, 1/2 | -1/2) first
        (((F(6), F(4)),), (F(0),)))                                     # output columns times the norms 2, 4
    c = Context(A, "o")
    S.orbit_form(A, c)
    assert c.budget.used == 6 + 3 and c.budget.searches == []           # the two layers' sizes; no tie


def test_ties_are_broken_by_the_least_form_and_recorded():
    c = Context(TIED, "o")
    form = S.orbit_form(TIED, c)
    assert form == ((((F(1, 2), F(1, 2)), (F(1, 2), F(1, 2))), (F(0), F(0))), (((F(2), F(12)),), (F(5),)))
    assert c.budget.used == 9 + 2 * 3                                   # the layers, then 2 orders × the output
    assert c.budget.searches == ["2 orders of tied neurons in hidden layer 1"]
    swapped = _permuted_scaled(TIED, [1, 0], [F(1, 2), F(3)])
    assert S.orbit_form(swapped) == form


def test_three_tied_neurons_try_six_orders():
    t = Network.from_lists([([[1, 0], [2, 0], [3, 0]], [0, 0, 0]), ([[5, 1, 2]], [0])])
    c = Context(t, "o")
    form = S.orbit_form(t, c)
    assert form[1] == (((F(2), F(5), F(6)),), (F(0),))                  # 5·1, 1·2, 2·3 sorted by the least order
    assert c.budget.used == 13 + 6 * 4 and c.budget.searches == ["6 orders of tied neurons in hidden layer 1"]


def test_two_hidden_layers_normalise_layer_by_layer():
    net = Network.from_lists([([[1, 0], [0, -2]], [0, 0]), ([[1, 1], [4, 0]], [1, 0]), ([[1, 2]], [0])])
    form = S.orbit_form(net)
    # layer 1: (0, -1 | 0) < (1, 0 | 0), norms 2 and 1; layer 2 sees columns reordered and scaled: rows
    # (2, 1 | 1) (norm 4) and (0, 4 | 0) (norm 4) -> (1/2, 1/4 | 1/4) and (0, 1 | 0)
    assert form[0] == (((F(0), F(-1)), (F(1), F(0))), (F(0), F(0)))
    assert form[1] == (((F(0), F(1)), (F(1, 2), F(1, 4))), (F(0), F(1, 4)))
    assert form[2] == (((F(8), F(4)),), (F(0),))
    assert S.orbit_form(_deep_permuted(net)) == form


def _deep_permuted(net):
    (A1, a1), (A2, a2), (A3, a3) = [([list(r) for r in L.weight], list(L.bias)) for L in net.layers]
    # swap the layer-1 neurons and scale them by 3 and 1/2; swap the layer-2 neurons
    s = [F(3), F(1, 2)]
    B1 = [[x * s[0] for x in A1[1]], [x * s[1] for x in A1[0]]]
    b1 = [a1[1] * s[0], a1[0] * s[1]]
    B2 = [[row[1] / s[0], row[0] / s[1]] for row in (A2[1], A2[0])]
    b2 = [a2[1], a2[0]]
    B3 = [[A3[0][1], A3[0][0]]]
    return Network.from_lists([(B1, b1), (B2, b2), (B3, list(a3))])


def test_a_zero_row_has_no_form_and_no_invariant():
    zero = Network.from_lists([([[0, 0], [1, 1]], [0, 0]), ([[1, 3]], [5])])
    assert S.orbit_form(zero) is None and S.orbit_invariant(zero) is None
    assert S.outside_orbit(zero, zero) is None                          # undecided, never "in the orbit"
    zero2 = Network.from_lists([([[1, 0], [0, 0]], [0, 0]), ([[1, 1]], [0])])
    assert S.orbit_form(zero2) is None
    bias_only = Network.from_lists([([[0, 0], [1, 1]], [1, 0]), ([[1, 3]], [5])])   # a row (0, 0 | 1) is no zero row
    assert S.orbit_form(bias_only) is not None


def test_the_orbit_invariant():
    assert S.orbit_invariant(A) == (
        ((((0, F(0)), (1, F(1, 2))), F(-1, 2)), (((0, F(1, 2)), (1, F(0))), F(1, 2))),
        ((((0, F(6)), (1, F(4))), F(0)),))
    assert S.orbit_invariant(_permuted_scaled(A, [1, 0], [F(5), F(1, 7)])) == S.orbit_invariant(A)
    # the tied neurons share one class: the output key lists both with class 0
    assert S.orbit_invariant(TIED)[1] == ((((0, F(2)), (0, F(12))), F(5)),)
    other = Network.from_lists([([[2, 0], [0, 1]], [2, -1]), ([[1, 4]], [0])])
    assert S.orbit_invariant(other) != S.orbit_invariant(A)


def test_outside_orbit():
    same = _permuted_scaled(A, [1, 0], [F(5), F(1, 7)])
    assert S.outside_orbit(A, same) is False
    assert S.outside_orbit(TIED, _permuted_scaled(TIED, [1, 0], [F(2), F(1, 3)])) is False
    other = Network.from_lists([([[2, 0], [0, 1]], [2, -1]), ([[1, 4]], [0])])
    assert S.outside_orbit(A, other) is True
    wider = Network.from_lists([([[2, 0], [0, 1], [1, 1]], [2, -1, 0]), ([[1, 3, 1]], [0])])
    assert S.outside_orbit(A, wider) is True                            # another architecture
    dead = Network.from_lists([([[2, 0], [0, 0]], [2, 0]), ([[1, 3]], [0])])
    assert S.outside_orbit(A, dead) is True                             # a zero row appears
    c = Context(A, "o")
    assert S.outside_orbit(A, other, c) is True
    assert c.budget.used == 4 * (A.n_params + other.n_params)           # the invariants decided: no form computed
    c = Context(A, "o")
    assert S.outside_orbit(A, same, c) is False
    assert c.budget.used == 4 * (A.n_params + same.n_params) + 2 * (6 + 3)


def test_searched_records_in_order():
    c = Context(A, "o", Budget())
    S.searched(c, "x")
    S.searched(c, "y")
    assert c.budget.searches == ["x", "y"]


def test_the_work_of_the_form_is_charged_and_named():
    with pytest.raises(WorkLimit) as e:
        S.orbit_form(A, Context(A, "o", Budget(limit=5)))
    assert e.value.reason == ("the orbit normal form takes 9 steps, past the checker's work limit (5 steps per "
                              "certificate, 0 used; reluid check --work-limit raises it)")
    many = Network.from_lists([([[k + 1, 0] for k in range(12)], [0] * 12), ([list(range(1, 13))], [0])])
    with pytest.raises(WorkLimit) as e:                     # 12! orders: past the default limit
        S.orbit_form(many)
    assert e.value.claim == "orbit form" and "479,001,600 orders of tied neurons in hidden layer 1" in e.value.reason


def test_ties_in_the_second_hidden_layer_cost_the_layers_after_it():
    net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 1], [2, 2]], [0, 0]), ([[1, 3]], [0])])
    c = Context(net, "o")
    S.orbit_form(net, c)
    # layer sizes 6, 6, 3: tail = (15, 9, 3); layer 1 charges 15, layer 2 charges 9 and then 2 orders × 3
    assert c.budget.used == 15 + 9 + 2 * 3
    assert c.budget.searches == ["2 orders of tied neurons in hidden layer 2"]


def test_the_invariant_keeps_the_outputs_in_order():
    two = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 2], [5, 1]], [0, 3])])
    # the hidden neurons (0, 1 | 0) and (1, 0 | 0) get the classes 0 and 1; the outputs are not sorted
    assert S.orbit_invariant(two)[-1] == ((((0, F(2)), (1, F(1))), F(0)), (((0, F(1)), (1, F(5))), F(3)))
