"""Evidence against the two-hidden-layer theorem's implementation: planted hidden symmetries are never certified rigid.

Every known mechanism is planted into certified networks (the certified example of
docs/mathematics.md §8.8 and GLR-style certified nets of Ω(2,3,3,1) and Ω(3,3,3,1)): a dead neuron
in either hidden layer, an always-active layer-2 neuron (alone or in a pair), a never co-active
pair, layer flips at 1→2 and 2→out, positively proportional neurons in either layer, coincident
or opposite layer-1 hyperplanes, zero outgoing weights in either layer.  For each planted
network an explicit θ′ is built and shown *exactly* to compute the same function
(:func:`reluid.analysis.deep.cells.same_function`) outside the orbit (exhaustive orbit search), so
the network really has a hidden symmetry; then neither :func:`analyse_two_layers` nor
``reluid certify`` may answer ``no-hidden-symmetries``, and a ``hidden-symmetry`` certificate
must pass the checker.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.cells import exact_functional_dimension, same_function
from reluid.analysis.deep.fundim import functional_dimension
from reluid.analysis.deep.mechanisms import Mechanism, detect_mechanisms
from reluid.analysis.deep.orbit import same_orbit
from reluid.analysis.deep.two_layers import analyse_two_layers, flipped
from reluid.api import certify, check
from reluid.model.network import Network
from reluid.verdicts import Verdict
from reluid.report.fundim import describe_fundim
from tests.two_layer_nets import CERTIFIED, glr, net

STATS: Counter = Counter()


def parts(n: Network):
    L1, L2, L3 = n.layers
    return ([list(r) for r in L1.weight], list(L1.bias), [list(r) for r in L2.weight], list(L2.bias),
            [list(r) for r in L3.weight], list(L3.bias))




def _bases():
    out = [CERTIFIED]
    rng = random.Random(21)
    for arch in ((2, 3, 3, 1), (3, 3, 3, 1)):
        while True:
            n = glr(arch, rng)
            if analyse_two_layers(n).verdict is Verdict.NO_HIDDEN:
                out.append(n)
                break
    return out


BASES = _bases()


def witness(kind, layer, neurons, n, delta=F(1)):
    return Mechanism(kind, layer, tuple(neurons), "identity").witness(n, delta)


# ---- the planters: (name, base) -> (network, θ′) ------------------------------------

def dead_layer1(n, j=0):
    A, a, W, w, V, c = parts(n)
    A[j], a[j] = [F(0)] * len(A[j]), F(-1)
    m = net(A, a, W, w, V, c)
    return m, witness("dead-neuron", 1, (j,), m)


def always_active_layer1(n, j=0):
    """A constant layer-1 neuron σ(1/2): always active, its bias moves into layer 2."""
    A, a, W, w, V, c = parts(n)
    A[j], a[j] = [F(0)] * len(A[j]), F(1, 2)
    m = net(A, a, W, w, V, c)
    return m, witness("always-active", 1, (j,), m)


def dead_layer2(n, k=0):
    A, a, W, w, V, c = parts(n)
    W[k], w[k] = [-abs(x) - 1 for x in W[k]], F(-1)
    m = net(A, a, W, w, V, c)
    return m, witness("dead-neuron", 2, (k,), m)


def always_active_layer2(n, k=0):
    A, a, W, w, V, c = parts(n)
    W[k], w[k] = [abs(x) + 1 for x in W[k]], F(1)
    m = net(A, a, W, w, V, c)
    return m, witness("always-active", 2, (k,), m)


def two_always_active(n):
    A, a, W, w, V, c = parts(n)
    for k in (0, 1):
        W[k], w[k] = [abs(x) + 1 + k for x in W[k]], F(1 + k)
    m = net(A, a, W, w, V, c)
    return m, witness("always-active", 2, (1,), m)


def never_coactive(n):
    """A third layer-1 neuron u = -u_1 - 1 (positive only where u_1 < -1) and a layer-2 neuron k with
    W_k = (W_k1, 0, ..., -1), w_k = -1 there: no input has u > 0 and g_k > 0, so W_k,u may decrease."""
    A, a, W, w, V, c = parts(n)
    A.append([-x for x in A[0]])
    a.append(-a[0] - 1)
    for row in W:
        row.append(F(1, 2))
    W[0] = [W[0][0]] + [F(0)] * (len(W[0]) - 2) + [F(-1)]
    w[0] = F(-1)
    m = net(A, a, W, w, V, c)
    return m, witness("never-coactive", 2, (len(A) - 1, 0), m)


def proportional_layer1(n, lam=F(2)):
    A, a, W, w, V, c = parts(n)
    A[1], a[1] = [lam * x for x in A[0]], lam * a[0]
    m = net(A, a, W, w, V, c)
    return m, witness("proportional-neurons", 1, (0, 1), m)


def coincident_layer1(n):
    return proportional_layer1(n, F(1))


def opposite_layer1(n):
    """u_2 = -u_1 with W_{:,2} = -W_{:,1}: the pair computes W_{:,1}u, an affine map, so its hyperplane moves
    (a_1 += 1, a_2 -= 1, w -= W_{:,1})."""
    A, a, W, w, V, c = parts(n)
    A[1], a[1] = [-x for x in A[0]], -a[0]
    for row in W:
        row[1] = -row[0]
    m = net(A, a, W, w, V, c)
    a2 = list(a)
    a2[0], a2[1] = a[0] + 1, a[1] - 1
    return m, net(A, a2, W, [wk - row[0] for wk, row in zip(w, W)], V, c)


def proportional_layer2(n, lam=F(3)):
    A, a, W, w, V, c = parts(n)
    W[1], w[1] = [lam * x for x in W[0]], lam * w[0]
    m = net(A, a, W, w, V, c)
    return m, witness("proportional-neurons", 2, (0, 1), m)


def zero_outgoing_layer1(n, j=0):
    A, a, W, w, V, c = parts(n)
    for row in W:
        row[j] = F(0)
    m = net(A, a, W, w, V, c)
    return m, witness("zero-outgoing", 1, (j,), m)


def zero_outgoing_layer2(n, k=0):
    A, a, W, w, V, c = parts(n)
    for row in V:
        row[k] = F(0)
    m = net(A, a, W, w, V, c)
    return m, witness("zero-outgoing", 2, (k,), m)


def layer1_flip(n):
    """Two parallel layer-1 neurons with opposite normals and equal outgoing columns: {1, 2} ∈ 𝔉1."""
    A, a, W, w, V, c = parts(n)
    A[1], a[1] = [-x for x in A[0]], -a[0] + F(5, 2)
    for row in W:
        row[1] = row[0]
    m = net(A, a, W, w, V, c)
    return m, flipped(m, (0, 1), ())


def layer2_flip(n):
    """g_3 = -(g_1 + g_2) up to the bias, and V_1 = V_2 = V_3: {1, 2, 3} ∈ 𝔉2 (the Lemma D.15 mechanism)."""
    A, a, W, w, V, c = parts(n)
    W[2] = [-(x + y) for x, y in zip(W[0], W[1])]
    w[2] = F(13)
    V = [[F(1)] * len(W) for _ in V]
    m = net(A, a, W, w, V, c)
    return m, flipped(m, (), (0, 1, 2))


PLANTERS = {f.__name__: f for f in (dead_layer1, always_active_layer1, dead_layer2, always_active_layer2, two_always_active,
                                     never_coactive, proportional_layer1, coincident_layer1, opposite_layer1,
                                     proportional_layer2, zero_outgoing_layer1, zero_outgoing_layer2, layer1_flip,
                                     layer2_flip)}


@pytest.mark.parametrize("base", range(len(BASES)))
@pytest.mark.parametrize("name", sorted(PLANTERS))
def test_planted_hidden_symmetry_is_never_certified_rigid(name, base):
    m, theta2 = PLANTERS[name](BASES[base])
    same, x = same_function(m, theta2)
    assert same, f"the planted θ′ ({name}) does not compute the same function (differs at {x})"
    assert same_orbit(m, theta2) is None, f"the planted θ′ ({name}) is in the orbit"
    r = analyse_two_layers(m, timeout=30)
    STATS["planted"] += 1
    STATS[f"theorem: {r.verdict.value}"] += 1
    assert r.verdict is not Verdict.NO_HIDDEN, f"{name}: a planted hidden symmetry was certified rigid"
    if r.verdict is Verdict.HIDDEN:
        assert same_function(m, r.witness)[0] and same_orbit(m, r.witness) is None
    else:
        assert r.first_failure() is not None


@pytest.mark.parametrize("name", sorted(PLANTERS))
def test_planted_networks_through_reluid_certify(name):
    """The whole decision (theorem, then mechanisms): never no-hidden-symmetries; every certificate checks."""
    m, _ = PLANTERS[name](CERTIFIED)
    cert = certify(m, timeout=10)
    STATS[f"certify: {cert.verdict.value}"] += 1
    assert cert.verdict is not Verdict.NO_HIDDEN
    assert check(cert, m).valid


def test_certified_networks_have_no_mechanism_and_full_functional_dimension():
    """On every certified base: mechanism detection finds nothing, and dim_fun = U exactly (from the cells)."""
    for n in BASES:
        rep = detect_mechanisms(n, timeout=20)
        assert not rep.mechanisms
        fd = exact_functional_dimension(n)
        assert fd.exact and fd.certified, describe_fundim(fd)
        assert functional_dimension(n, method="cells").certified      # the public fundim, at the cell points


def test_zz_counts():
    print("\nplanted two-layer nets:", dict(sorted(STATS.items())))     # shown with pytest -s
    assert STATS["planted"] == len(PLANTERS) * len(BASES)
