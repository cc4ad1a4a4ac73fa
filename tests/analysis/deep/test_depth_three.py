"""Exact checks of two examples of docs/mathematics.md §12 (three hidden layers).

* Example 12.19: a same-architecture competitor whose layer-1 hyperplanes are not θ's
  (the device of the note's Proposition L.2 inside Ω(2, 2, 1, 1, 1)).
* Proposition 12.5: θ^{F1,F2,∅} built by the three-step recipe computes f_θ, and the recipe's
  bias shift and the flip condition are needed.
"""

from __future__ import annotations

from fractions import Fraction as F

from reluid.analysis.deep.equivalence import equivalent
from reluid.model.network import Network

HALF = F(1, 2)

#: Example 12.19: z^2 = 2σ(x_1) − σ(x_1 − 1) ≥ 0, f = σ(σ(z^2) − 1/2)
THETA = Network.from_lists([([[1, 0], [1, 0]], [0, -1]), ([[2, -1]], [0]), ([[1]], [-HALF]), ([[1]], [0])])
#: its competitor: z′^2 = σ(x_1 + 1) − σ(1 − x_1), whose zero set is {x_1 = 0} = H_1
COMPETITOR = Network.from_lists([([[1, 0], [-1, 0]], [1, 1]), ([[1, -1]], [0]), ([[1]], [-HALF]), ([[1]], [0])])


def _hyperplanes(net: Network) -> set[tuple[F, ...]]:
    """Layer-1 hyperplanes as canonical rows (first nonzero weight 1)."""
    out = set()
    layer = net.layers[0]
    for w, b in zip(layer.weight, layer.bias):
        lead = next(v for v in w if v != 0)
        out.add(tuple(v / lead for v in (*w, b)))
    return out


def test_example_12_19_competitor_is_exact_and_moves_layer_1():
    eq = equivalent(THETA, COMPETITOR)
    assert eq.equal is True and eq.method == "region split" and eq.same_orbit is False
    assert _hyperplanes(THETA) != _hyperplanes(COMPETITOR)
    assert _hyperplanes(THETA) == {(1, 0, 0), (1, 0, -1)}
    assert _hyperplanes(COMPETITOR) == {(1, 0, 1), (1, 0, -1)}
    # θ′'s layer-2 neuron carries H_1 = {x_1 = 0}: z′^2 = 2x_1 on |x_1| ≤ 1, x_1 ± 1 outside
    for x1 in (F(-3), F(-1), F(-1, 3), F(0), F(1, 5), F(1), F(7, 2)):
        x = (x1, F(5, 7))
        z2p = COMPETITOR.preactivations(x)[1][0]
        assert z2p == (x1 - 1 if x1 <= -1 else 2 * x1 if x1 <= 1 else x1 + 1)
        # σ(z′^2) = z^2 = σ(z^2): θ's layer-2 neuron is always active (z^2 ≥ 0)
        z2 = THETA.preactivations(x)[1][0]
        assert z2 >= 0 and max(z2p, 0) == z2
    assert COMPETITOR.preactivations((F(0), F(3)))[1][0] == 0


def _flipped(W1, b1, W2, b2, W3, b3, V, c, F1, F2, F3):
    """θ^{F1,F2,F3} by the three steps of §12.2 (F_ℓ in 𝔉_ℓ; γ_{F3} = Σ_{F3} V_{:,k} b^3_k)."""
    W1 = [[-v for v in r] if j in F1 else list(r) for j, r in enumerate(W1)]
    b2 = [b2[i] + sum(W2[i][j] * b1[j] for j in F1) for i in range(len(b2))]
    b1 = [-v if j in F1 else v for j, v in enumerate(b1)]
    b3 = [b3[k] + sum(W3[k][i] * b2[i] for i in F2) for k in range(len(b3))]
    W2 = [[-v for v in r] if i in F2 else list(r) for i, r in enumerate(W2)]
    b2 = [-v if i in F2 else v for i, v in enumerate(b2)]
    c = [c[o] + sum(V[o][k] * b3[k] for k in F3) for o in range(len(c))]
    W3 = [[-v for v in r] if k in F3 else list(r) for k, r in enumerate(W3)]
    b3 = [-v if k in F3 else v for k, v in enumerate(b3)]
    return Network.from_lists([(W1, b1), (W2, b2), (W3, b3), (V, c)])


def test_proposition_12_5_three_layer_flips():
    # (2, 2, 3, 2, 1); F1 = {0, 1}: W2[:,0]·W1[0] + W2[:,1]·W1[1] = 0 (W1[1] = 2 W1[0], W2[:,0] = −2 W2[:,1]);
    # F2 = {0, 1}: W3[:,0] W2[0] + W3[:,1] W2[1] = 0 (W3[:,1] = 2 W3[:,0], W2[0] = −2 W2[1]);
    # (F3 = ∅: a flip of the last hidden layer is the shallow case, §2 and §6.2)
    W1, b1 = [[1, 1], [2, 2]], [F(1, 3), -1]
    W2, b2 = [[4, -2], [-2, 1], [-6, 3]], [1, 1, -2]
    W3, b3 = [[1, 2, 1], [3, 6, -1]], [F(1, 4), -3]
    V, c = [[2, 1]], [F(1, 5)]
    theta = Network.from_lists([(W1, b1), (W2, b2), (W3, b3), (V, c)])
    for F1 in ((), (0, 1)):
        for F2 in ((), (0, 1)):
            flipped = _flipped(W1, b1, W2, b2, W3, b3, V, c, F1, F2, ())
            eq = equivalent(theta, flipped)
            assert eq.equal is True, (F1, F2)
            assert eq.same_orbit is (F1 == () and F2 == ())
    # the layer-2 bias shift Σ_{F2} W3[:,i] b2[i] is needed
    bad = _flipped(W1, b1, W2, b2, W3, b3, V, c, (), (0, 1), ())
    layers = [(l.weight, l.bias) for l in bad.layers]
    layers[2] = (layers[2][0], tuple(b for b in b3))
    assert equivalent(theta, Network.from_lists(layers)).equal is False
    # a set that is not a layer-2 flip set ({0}: W3[:,0] W2[0] ≠ 0) does not keep f
    assert equivalent(theta, _flipped(W1, b1, W2, b2, W3, b3, V, c, (), (0,), ())).equal is False
