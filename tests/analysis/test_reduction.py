"""Exact reduction at any depth (reluid/analysis/reduction.py): planted networks with known answers."""

from fractions import Fraction as F

import pytest

import reluid
from reluid.analysis.reduction import is_reduced, reduce_network
from reluid.checker.reduction import check_reduction
from reluid.certificates.reduction import reduction_document
from reluid.model.network import Network
from reluid.report.reasons import sentence
from reluid.verdicts import ReasonCode
from tests.paths import EXAMPLES

# three hidden layers, n0 = 1:
#   layer 1: σ(x), σ(x + 1), σ(2x) = 2 σ(x)          (neuron 3 positively proportional to neuron 1, λ = 2)
#   layer 2: z1 = h1 − h2 <= 0 and z3 = h2 − h1 − 2 <= −1 (dead: σ(x) <= σ(x + 1) <= σ(x) + 1, not by
#            inspection), z2 = h1 + h2 − 1, z4 = h1 + h3, z5 = h2 − 3 (zero outgoing weights)
PLANTED = Network.from_lists([
    ([[1], [1], [2]], [0, 1, 0]),
    ([[1, -1, 0], [1, 1, 0], [-1, 1, 0], [1, 0, 1], [0, 1, 0]], [0, -1, -2, 0, -3]),
    ([[1, 1, 1, 1, 0], [1, -1, 2, 1, 0]], [0, 1]),
    ([[1, 2]], [0]),
], name="planted")


def _inputs():
    return [F(k, 4) for k in range(-20, 21)] + [F(-7, 3), F(11, 5)]


def test_planted_three_hidden_layers_known_answer():
    r = reduce_network(PLANTED)
    assert r.reduced.architecture == (1, 2, 2, 2, 1)
    assert r.counts() == {"constant": 0, "zero-outgoing": 1, "merge": 1, "dead": 2}
    merge = next(s for s in r.steps if s.rule == "merge")
    assert (merge.layer, merge.original, merge.into, merge.factor) == (1, (1, 2), 0, F(2))
    assert {s.original for s in r.steps if s.rule == "dead"} == {(2, 0), (2, 2)}
    assert all("tree" in s.premise for s in r.steps if s.rule == "dead")      # not dead by inspection
    assert next(s for s in r.steps if s.rule == "zero-outgoing").original == (2, 4)
    assert all(PLANTED([x]) == r.reduced([x]) for x in _inputs())
    assert r.complete and is_reduced(r.reduced)
    assert check_reduction(reduction_document(r), PLANTED, r.reduced).valid
    eq = reluid.equivalent(PLANTED, r.reduced)
    assert eq.equal is True


def test_planted_example_reduces_to_the_certified_network():
    net, target = reluid.load(EXAMPLES / "planted_redundancy.json"), reluid.load(EXAMPLES / "two_layers_certified.json")
    r = reduce_network(net)
    assert r.reduced == target                              # exactly its parameters, neuron order included
    assert [s.rule for s in r.steps] == ["merge", "zero-outgoing", "constant"]
    assert sum(net.hidden_widths) - sum(r.reduced.hidden_widths) == 3
    assert check_reduction(reduction_document(r), net, r.reduced).valid


def test_constant_neuron_passes_its_value_to_the_next_bias():
    net = Network.from_lists([([[1], [0]], [0, 3]), ([[2, 5]], [1])])        # 2 σ(x) + 5 σ(3) + 1
    r = reduce_network(net)
    assert [(s.rule, s.value) for s in r.steps] == [("constant", F(3))]
    assert r.reduced.layers[1].bias == (F(16),) and r.reduced.layers[1].weight == ((F(2),),)


def test_always_active_neuron_with_a_nonzero_row_is_kept():
    # z = h1 + h2 + 1 >= 1 > 0 everywhere: its ReLU is the identity, but z depends on layer 1, which layer 3
    # does not see, so removing it is not exact (docs/mathematics.md §11)
    net = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1], [1, -1]], [1, 0]), ([[1, 1]], [0])])
    assert reduce_network(net).steps == ()


def test_a_layer_with_only_dead_neurons_leaves_a_constant_network():
    net = Network.from_lists([([[1], [-1]], [0, 0]), ([[-1, -1]], [-1]), ([[3]], [2])])
    r = reduce_network(net)
    assert r.reduced.hidden_widths == (0, 0)                 # the dead neuron, then both layer-1 neurons unused
    assert r.reduced([5]) == (F(2),) == net([5])
    assert check_reduction(reduction_document(r), net, r.reduced).valid


def test_nothing_to_reduce():
    net = reluid.load(EXAMPLES / "deep_generic.json")
    r = reduce_network(net)
    assert r.steps == () and r.reduced == net
    assert check_reduction(reduction_document(r), net, r.reduced).valid


def test_prover_off_keeps_the_dead_neurons_it_cannot_see():
    r = reduce_network(PLANTED, prover=False)
    assert r.counts()["dead"] == 0 and r.reduced.architecture == (1, 2, 4, 2, 1)


@pytest.mark.parametrize("bad", [None, Network.from_lists([([[1]], [0])])])
def test_bad_input(bad):
    with pytest.raises(reluid.InvalidArgument):
        reduce_network(bad)


def test_shallow_networks_reduce_too():
    # Ramakrishnan 2026, Example 1: rows (4,4,4) and (1,1,1) are positively proportional, v = (2, 3, -1)
    net = reluid.Shallow.make([2, 3, -1], [[4, 4], [1, 1], [5, 2]], [4, 1, 1], [0]).to_network()
    r = reduce_network(net)
    assert [s.rule for s in r.steps] == ["merge"] and r.reduced.architecture == (2, 2, 1)
    assert r.reduced.layers[1].weight == ((F(11, 4), F(-1)),)          # 2 + 3/4 on the kept neuron
    assert reluid.equivalent(net, r.reduced).equal is True
    assert check_reduction(reduction_document(r), net, r.reduced).valid


def test_a_spent_budget_stops_with_exact_steps_only():
    r = reduce_network(PLANTED, timeout=1e-9)
    assert r.steps == () and not r.complete and r.undecided[0][2].code is ReasonCode.REDUCTION_STOPPED
    assert "time budget" in sentence(r.undecided[0][2])
    doc = reduction_document(r)
    assert doc["undecided"] == [{"reason": {"code": "reduction-stopped", "params": {}}}]
    assert check_reduction(doc, PLANTED, r.reduced).valid
