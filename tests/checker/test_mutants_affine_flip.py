"""The affine-layer-flip premise (GLR mechanism (iv), affine form; docs/mathematics.md §6.2,
reluid/checker/deep.py ``_affine_flip``): Σ_{i∈F} W^{l+1}[:, i] z^l_i is the listed constant on R^{n0}.

The network is ``affine_hull`` of tests/deep_catalogue.py: g1 + g2 = 3 on R^2 in hidden layer 2, so that
in hidden layer 3 the sum over F = {1, 2} of W^4[:, i] z^3_i is the constant 15/2 although
Σ W^4[:, i] W^3[i, :] = (3, 3, 0) ≠ 0.  EVIDENCE is the producer's (reluid/analysis/deep/mechanisms.py), frozen
here so that the checker's tests do not run the search.  Every rejection is read by its exact message, and
the work is charged as the module says.
"""

from __future__ import annotations

import copy

import pytest

from reluid.checker import deep as cd
from reluid.checker.registry import Budget, Context, WorkLimit
from reluid.errors import CheckFailed
from tests.deep_catalogue import deep_by_name

NET = deep_by_name("affine_hull").network
_ABOVE = {"format": "reluid.farkas-tree/1", "scope_layers": 2, "tree": {
    "split": [2, 0],
    "pos": {"split": [2, 1], "pos": {"leaf": {"closed": [], "strict": [[0, 1]]}},
            "neg": {"split": [1, 0], "pos": {"leaf": {"closed": [[2, 1], [6, 1]], "strict": []}},
                    "neg": {"leaf": {"closed": [[1, 1], [6, 1]], "strict": []}}}},
    "neg": {"split": [2, 1], "pos": {"split": [1, 1], "pos": {"leaf": {"closed": [[1, 1], [5, 1]], "strict": []}},
                                     "neg": {"leaf": {"closed": [[0, 1], [5, 1]], "strict": []}}},
            "neg": {"leaf": {"closed": [[6, 1], [7, 1]], "strict": []}}}}}
_BELOW = {"format": "reluid.farkas-tree/1", "scope_layers": 2,
          "tree": {"leaf": {"closed": [[7, 3], [9, 3]], "strict": [[0, 1]]}}}
EVIDENCE = {"layer": 3, "neurons": [0, 1], "constant": ["15/2"], "trees": [[_ABOVE, _BELOW]]}


def verify(evidence, net=NET, limit=None):
    c = Context(net, "c5", Budget() if limit is None else Budget(limit=limit))
    return cd.verify_affine_flip(evidence, c), c


def rejected(evidence, reason, net=NET):
    with pytest.raises(CheckFailed) as e:
        verify(evidence, net)
    assert (e.value.claim, e.value.reason) == ("c5", reason)


def edited(**changes):
    ev = copy.deepcopy(EVIDENCE)
    ev.update(changes)
    return ev


def test_the_honest_premise_is_accepted_and_charged():
    msg, c = verify(copy.deepcopy(EVIDENCE))
    assert msg == "Σ_(i∈F) W^4[:, i] z^3_i is constant for F = {1, 2}: 7 Farkas-tree leaves (verified)"
    # 1 row · |F| = 2 · (3 + 1) for the sums, 2 · 32 parameters for the rebuilt network, then the trees
    assert c.budget.used > 1 * 2 * 4 + 2 * 32
    with pytest.raises(WorkLimit) as e:
        verify(copy.deepcopy(EVIDENCE), limit=7)
    assert e.value.reason.startswith("the sums over the flip set takes 8 steps")
    with pytest.raises(WorkLimit) as e:
        verify(copy.deepcopy(EVIDENCE), limit=8 + 63)
    assert e.value.reason.startswith("rebuilding the network for one row takes 64 steps")


def test_each_tree_is_checked_for_its_own_side():
    """The tree below the constant is one leaf that holds only for "< 0"; the tree above (6 leaves) proves the
    cells empty or the sum identically the constant, so it closes either side (the sum *is* constant: valid)."""
    rejected(edited(trees=[[_BELOW, _ABOVE]]),
             "root: the combination of the rows is not constant (coefficient of h of scope neuron 3 is 6)")
    rejected(edited(trees=[[_BELOW, _BELOW]]),
             "root: the combination of the rows is not constant (coefficient of h of scope neuron 3 is 6)")
    msg, _ = verify(edited(trees=[[_ABOVE, _ABOVE]]))
    assert msg.endswith(": 12 Farkas-tree leaves (verified)")


def test_another_constant_is_rejected_by_the_trees():
    rejected(edited(constant=["17/2"]), "root: the combination of the rows is the constant 1 > 0")
    rejected(edited(constant=[7]), "root/pos[2, 0]/pos[2, 1]: the combination of the rows is the constant 1/2 > 0")
    rejected(edited(constant=[8]), "root: the combination of the rows is the constant 1/2 > 0")


def test_the_fields_are_read():
    rejected(edited(constant=["15/2", 1]), "constant has 2 entries, expected 1")
    rejected(edited(constant="15/2"), "constant must be a list")
    rejected(edited(trees=[]), "trees has 0 entries, expected 1")
    rejected(edited(trees=[[_ABOVE]]), "row 1: the trees (above and below the constant) has 1 entries, expected 2")
    rejected(edited(trees=[[_ABOVE, _BELOW, _BELOW]]),
             "row 1: the trees (above and below the constant) has 3 entries, expected 2")
    rejected(edited(trees=[[_ABOVE, {"format": 1}]]), "evidence must be {'format', 'scope_layers', 'tree'}")


def test_hidden_layer_1_is_the_plain_flip():
    rejected(edited(layer=1), "in hidden layer 1 the sum is affine in x: only the plain layer flip applies")


def test_a_row_constant_by_inspection():
    """With W^4 = 0 the sum is the constant 0 by inspection: its constant must be 0 and no trees belong there."""
    layers = [(L.weight, L.bias) for L in NET.layers]
    flat = type(NET).from_lists([*layers[:-1], ([[0, 0]], [0])])
    msg, _ = verify(edited(constant=[0], trees=[None]), flat)
    assert msg == "Σ_(i∈F) W^4[:, i] z^3_i is constant for F = {1, 2}: 0 Farkas-tree leaves (verified)"
    rejected(edited(constant=["1/2"], trees=[None]), "row 1: the sum is the constant 0, not 1/2", flat)
    rejected(edited(constant=[0]), "row 1: the sum is constant by inspection; no trees belong there", flat)


def test_every_output_row_is_checked():
    """Two output rows: the first (W^4 row 0) constant by inspection, the second the network's; both are checked,
    the second by its trees, and a wrong constant in the second row is still found."""
    layers = [(L.weight, L.bias) for L in NET.layers]
    two = type(NET).from_lists([*layers[:-1], ([[0, 0], [1, 1]], [0, 0])])
    msg, _ = verify(edited(constant=[0, "15/2"], trees=[None, [_ABOVE, _BELOW]]), two)
    assert msg.endswith(": 7 Farkas-tree leaves (verified)")
    rejected(edited(constant=[0, "17/2"], trees=[None, [_ABOVE, _BELOW]]),
             "root: the combination of the rows is the constant 1 > 0", two)
