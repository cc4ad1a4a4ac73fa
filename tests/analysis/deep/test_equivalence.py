"""Deep equivalence and exact alignment: planted orbits, one-ulp changes, hidden symmetries decided by regions."""

import random
from fractions import Fraction as F

import numpy as np
import pytest

import reluid
from reluid.analysis.deep.align import align
from reluid.analysis.deep.equivalence import ExactEvaluator, equivalent, search_difference
from reluid.analysis.deep.orbit import same_orbit
from reluid.errors import IncompatibleNetworks
from reluid.io import load
from reluid.model.network import Layer, Network
from reluid.model.symmetry import GroupElement, act_layers
from reluid.report.reasons import sentence
from reluid.verdicts import ReasonCode
from tests.paths import EXAMPLES


def he_network(arch, seed):
    """float32 He-initialised weights, read exactly."""
    rng = np.random.default_rng(seed)
    layers = []
    for a, b in zip(arch, arch[1:]):
        W = (rng.standard_normal((b, a)) * np.sqrt(2 / a)).astype(np.float32).astype(np.float64)
        c = (rng.standard_normal(b) * 0.01).astype(np.float32).astype(np.float64)
        layers.append((W.tolist(), c.tolist()))
    return Network.from_lists(layers, allow_float=True)


def planted(net, seed):
    rng = random.Random(seed)
    out = []
    for n in net.hidden_widths:
        perm = list(range(n))
        rng.shuffle(perm)
        out.append(GroupElement(tuple(perm), tuple(F(rng.randint(1, 9), rng.randint(1, 9)) for _ in range(n))))
    return tuple(out)


def one_ulp(net, layer, j, k):
    """net with W^layer[j][k] moved to the next float32 (layer 1-based)."""
    L = list(net.layers)
    W = [list(r) for r in L[layer - 1].weight]
    W[j][k] = F(float(np.nextafter(np.float32(float(W[j][k])), np.float32(np.inf))))
    L[layer - 1] = Layer(tuple(map(tuple, W)), L[layer - 1].bias, L[layer - 1].n_in)
    return Network(tuple(L))


def flip(net, layer, F_):
    """The layer flip of [GLR] §5 (iv): negate the rows in F_ of hidden layer `layer`, fix the next bias."""
    L = list(net.layers)
    A, B = L[layer - 1], L[layer]
    W = tuple(tuple(-x for x in r) if i in F_ else r for i, r in enumerate(A.weight))
    b = tuple(-x if i in F_ else x for i, x in enumerate(A.bias))
    c = tuple(cb + sum(B.weight[k][i] * A.bias[i] for i in F_) for k, cb in enumerate(B.bias))
    L[layer - 1], L[layer] = Layer(W, b, A.n_in), Layer(B.weight, c, B.n_in)
    return Network(tuple(L))


@pytest.mark.parametrize("arch", [(4, 6, 5, 2), (8, 16, 16, 16, 3), (3, 5, 1)])
def test_planted_permutations_and_scalings(arch):
    net = he_network(arch, sum(arch))
    g = planted(net, len(arch))
    other = act_layers(g, net)
    eq = reluid.equivalent(net, other)
    assert eq.equal and eq.same_orbit
    if net.is_shallow:
        assert eq.orbit.act(net.shallow()) == other.shallow()
    else:
        assert eq.orbit == g and act_layers(eq.orbit, net) == other and eq.method == "orbit"
    al = align(net, other)
    assert al.same_orbit and al.aligned == net and act_layers(al.elements, other) == net
    assert al.elements == tuple(h.inverse() for h in g)


@pytest.mark.parametrize("layer, j, k", [(1, 0, 0), (2, 3, 5), (3, 1, 2)])
def test_one_ulp_is_another_orbit_and_another_function(layer, j, k):
    net = he_network((6, 8, 8, 2), 5)
    other = act_layers(planted(net, 1), one_ulp(net, layer, j, k))
    al = align(net, other)
    assert al.same_orbit is False and al.first_difference == layer
    eq = equivalent(net, other)
    assert eq.equal is False and eq.first_difference == layer and not eq.same_orbit
    x = eq.input
    assert all(isinstance(v, F) for v in x)
    assert net(x) == eq.outputs[0] and other(x) == eq.outputs[1] and net(x) != other(x)


def test_layer_flip_and_dead_neuron_equal_functions_different_orbits():
    net = load(EXAMPLES / "deep_layer_flip.json")
    flipped = flip(net, 1, {0, 1})
    assert same_orbit(net, flipped) is None
    eq = equivalent(net, flipped)
    assert eq.equal is True and eq.same_orbit is False and eq.method == "region split" and eq.regions
    assert eq.first_difference == 1
    dead = load(EXAMPLES / "deep_dead_neuron.json")
    L = list(dead.layers)
    L[2] = Layer(((F(7), L[2].weight[0][1]),), L[2].bias, 2)       # neuron 1 of hidden layer 2 never fires
    eq = equivalent(dead, Network(tuple(L)))
    assert eq.equal is True and eq.same_orbit is False and eq.first_difference == 3


def test_different_architectures_same_function():
    a = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])                  # |x|
    b = Network.from_lists([([[1], [-1], [1]], [0, 0, -1]), ([[1, 1, 0], [0, 0, 1]], [0, 0]),        # |x| + 0·σ(x-1)
                            ([[1, 0]], [0])])
    eq = equivalent(a, b)
    assert eq.equal is True and eq.same_orbit is False and eq.method == "region split"
    c = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1], [1]], [0, 0])])
    with pytest.raises(IncompatibleNetworks):
        equivalent(a, c)
    with pytest.raises(IncompatibleNetworks):
        reluid.equivalent(a, c)


def test_a_difference_only_the_region_split_sees():
    # |x| plus a bump of width 2⁻²⁹ at x = 1000, far from the float probes: σ(x-c) - 2σ(x-c-ε) + σ(x-c-2ε)
    eps = F(1, 2 ** 30)
    a = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])
    b = Network.from_lists([([[1], [-1], [1], [1], [1]], [0, 0, -1000, -1000 - eps, -1000 - 2 * eps]),
                            ([[1, 1, 1, -2, 1]], [0]), ([[1]], [0])])
    eq = equivalent(a, b, probes=64)
    assert eq.equal is False and eq.method == "region split" and a(eq.input) != b(eq.input)


def test_undecided_is_unknown_with_a_reason():
    net = load(EXAMPLES / "deep_layer_flip.json")
    eq = equivalent(net, flip(net, 1, {0, 1}), max_regions=1, timeout=2)
    assert eq.equal is None and eq.same_orbit is False and eq.reason.code is ReasonCode.EQUIV_UNDECIDED
    assert "region split stopped" in sentence(eq.reason)


def test_shallow_behaviour_unchanged():
    t1, t2 = load(EXAMPLES / "theta1.json"), load(EXAMPLES / "theta2.json")
    eq = reluid.equivalent(t1, t2)
    assert eq.equal and eq.same_orbit is False and eq.method == "function data" and eq.first_difference is None
    eq = reluid.equivalent(t1, t1)
    assert isinstance(eq.orbit, GroupElement)


def test_exact_evaluator_matches_the_model():
    net = he_network((5, 7, 6, 3), 2)
    rng = random.Random(0)
    pts = [[rng.randint(-2 ** 22, 2 ** 22) for _ in range(5)] for _ in range(6)]
    assert ExactEvaluator(net).outputs(pts, 2 ** 20) == [net([F(v, 2 ** 20) for v in p]) for p in pts]
    x, ya, yb, _ = search_difference(net, net)
    assert x is None


def test_align_agrees_with_the_exhaustive_search_on_small_integer_networks():
    rng = random.Random(4)
    for _ in range(60):
        arch = (rng.randint(1, 3),) + tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 3))) + (rng.randint(1, 2),)
        net = Network.from_lists([([[rng.randint(-2, 2) for _ in range(a)] for _ in range(b)],
                                   [rng.randint(-2, 2) for _ in range(b)]) for a, b in zip(arch, arch[1:])])
        g = planted(net, rng.randint(0, 99))
        other = act_layers(g, net)
        al = align(net, other)
        assert al.same_orbit and act_layers(al.elements, other) == net
        bumped = one_ulp(other, rng.randint(1, len(arch) - 1), 0, 0)
        al = align(net, bumped)
        truth = same_orbit(bumped, net)
        assert al.same_orbit is (truth is not None)
