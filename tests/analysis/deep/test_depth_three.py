"""Exact checks of the examples of docs/mathematics.md §12 (three hidden layers).

* Example 12.19: a same-architecture competitor whose layer-1 hyperplanes are not θ's
  (the device of the note's Proposition L.2 inside Ω(2, 2, 1, 1, 1)).
* Proposition 12.5: θ^{F1,F2,F3} built by the three-step recipe computes f_θ, with nonempty flip
  sets in all three layers and with F3 in the function family 𝔉̂_3 ∖ 𝔉_3 (the constant shift
  γ_{F3}); the recipe's bias shifts and the flip conditions are needed.
* Example 12.21: the facts of the Ω(3, 3, 2, 6, 1) network of §12.7 that exact evaluation, ranks and
  the shallow flip-set analysis decide (nonempty cells, the level-2 bend flats behind fullness,
  rigid edges, walls, the seed of the pinning certificate, trivial flip families).
* Example 12.29 (ii): for the same network, the cutting set 𝒞 = {C, H_2, H_3} with
  C = Z(z^{(+,+,+)}_1) is part of no nested cover (Definition 12.26): on the cell
  R = {x_2 > 0, x_3 > 0, C > 0} the bend flats force the two layer-2 planes, and one cell D of those
  planes holds simple fold points on 13 > n3 = 6 distinct planes (Lemma 12.25).
* Example 12.29 (i): the level-2 flats and the level-1 flats with an active witness (enumerated
  completely) admit a flat cover with the same 𝒞, which misses H_1: the flats of §12.5–§12.6 alone
  do not decide Conjecture 12.20 for this network.
* Proposition 12.31 (slow): with the layer-1-edge flats added, no set {H_m : m ≠ j} ∪ {C} (C any real
  plane other than H_j) is part of a flat cover, for j = 1, 2, 3 (the exact decision of Remark 12.30).
"""

from __future__ import annotations

from fractions import Fraction as F

from itertools import product

import pytest

from reluid.analysis.deep.equivalence import equivalent
from reluid.analysis.deep.regions import activation_regions, evaluate_row, strict_feasibility
from reluid.analysis.deep.strict import nullspace, rank, rref
from reluid.analysis.shallow.flipsets import find_flip_set
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
        # σ(z′^2) = z^2 = σ(z^2): θ's layer-2 neuron is never negative (z^2 ≥ 0)
        z2 = THETA.preactivations(x)[1][0]
        assert z2 >= 0 and max(z2p, 0) == z2
    assert COMPETITOR.preactivations((F(0), F(3)))[1][0] == 0


def _flipped(W1, b1, W2, b2, W3, b3, V, c, F1, F2, F3, gamma=None):
    """θ^{F1,F2,F3} by the three steps of §12.2 (γ_{F3} = Σ_{F3} V_{:,k} b^3_k unless ``gamma`` is given)."""
    W1 = [[-v for v in r] if j in F1 else list(r) for j, r in enumerate(W1)]
    b2 = [b2[i] + sum(W2[i][j] * b1[j] for j in F1) for i in range(len(b2))]
    b1 = [-v if j in F1 else v for j, v in enumerate(b1)]
    b3 = [b3[k] + sum(W3[k][i] * b2[i] for i in F2) for k in range(len(b3))]
    W2 = [[-v for v in r] if i in F2 else list(r) for i, r in enumerate(W2)]
    b2 = [-v if i in F2 else v for i, v in enumerate(b2)]
    c = [c[o] + (sum(V[o][k] * b3[k] for k in F3) if gamma is None else gamma[o]) for o in range(len(c))]
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


def test_proposition_12_5_flips_in_all_three_layers():
    # the planted net above with a third layer-3 neuron: F3 = {0, 2} ∈ 𝔉_3 (2·W3[0] − W3[2] = 0),
    # and W3[:,1] = 2 W3[:,0] still holds, so F2 = {0, 1} ∈ 𝔉_2
    W1, b1 = [[1, 1], [2, 2]], [F(1, 3), -1]
    W2, b2 = [[4, -2], [-2, 1], [-6, 3]], [1, 1, -2]
    W3, b3 = [[1, 2, 1], [3, 6, -1], [2, 4, 2]], [F(1, 4), -3, F(2, 7)]
    V, c = [[2, 1, -1]], [F(1, 5)]
    args = (W1, b1, W2, b2, W3, b3, V, c)
    theta = Network.from_lists([(W1, b1), (W2, b2), (W3, b3), (V, c)])
    for F1, F2, F3 in product(((), (0, 1)), ((), (0, 1)), ((), (0, 2))):
        flipped = _flipped(*args, F1, F2, F3)
        eq = equivalent(theta, flipped)
        assert eq.equal is True, (F1, F2, F3)
        assert eq.same_orbit is (F1 == F2 == F3 == ())
        # the flipped pre-activations are diag(ε)u, diag(δ)z^2, diag(η)z^3
        for x in ((F(1, 3), F(-2)), (F(-5, 2), F(3, 4)), (F(7), F(1, 9))):
            for pre, flip, pre_f in zip(theta.preactivations(x), (F1, F2, F3), flipped.preactivations(x)):
                assert list(pre_f) == [-v if m in flip else v for m, v in enumerate(pre)]
    # F3 = {0, 2} without the shift of c, and F3 = {0} (not a flip set), change f
    assert equivalent(theta, _flipped(*args, (0, 1), (0, 1), (0, 2), gamma=[0])).equal is False
    assert equivalent(theta, _flipped(*args, (), (), (0,))).equal is False


def test_proposition_12_5_function_family_needs_the_constant_value():
    # z^2_1 ≡ 3 (zero row), so Σ_k V_k z^3_k = 7σ(3) + Σ b^3 = 21 − 1/2 is constant although
    # Σ_k V_k W3[k] = (0, 7) ≠ 0: F3 = {0, 1} lies in 𝔉̂_3 ∖ 𝔉_3, and γ_{F3} = 41/2, not Σ V_k b^3_k
    W1, b1 = [[1, 0], [0, 1]], [0, 0]
    W2, b2 = [[1, 1], [0, 0]], [-1, 3]
    W3, b3 = [[1, 2], [-1, 5]], [F(1, 2), -1]
    V, c = [[1, 1]], [F(1, 3)]
    args = (W1, b1, W2, b2, W3, b3, V, c)
    theta = Network.from_lists([(W1, b1), (W2, b2), (W3, b3), (V, c)])
    assert equivalent(theta, _flipped(*args, (), (), (0, 1), gamma=[F(41, 2)])).equal is True
    assert equivalent(theta, _flipped(*args, (), (), (0, 1))).equal is False


#: Example 12.21 (§12.7): W^1 = I, b^1 = 0; layer 3 has rows (1/d_k, 1/c_k), b^3_k = −1, V = 1, c = 0
CD = [(F(1, 10), F(9, 10)), (F(2, 10), F(8, 10)), (F(3, 10), F(7, 10)),
      (F(7, 10), F(3, 10)), (F(8, 10), F(2, 10)), (F(9, 10), F(1, 10))]
W1_B, W2_B, B2_B = [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[5, 1, 10], [-6, -1, -8]], [-5, F(11, 2)]
W3_B = [[1 / d, 1 / c] for c, d in CD]
NET_B = Network.from_lists([(W1_B, [0, 0, 0]), (W2_B, B2_B), (W3_B, [-1] * 6), ([[1] * 6], [0])])
#: the full layer-1 regions (the star of rigid edges at (+, +, +))
FULL = ((1, 1, 1), (-1, 1, 1), (1, -1, 1), (1, 1, -1))


def _flat_witness(s, target):
    """A rational x with layer-1 pattern s and z^2(x) = target (u = x), or None: the points of
    (B4) of the level-2 bend triples, searched on a grid of the free coordinate of the flat."""
    P = [m for m in range(3) if s[m] > 0]
    for t in (F(q, 64) for q in range(-128, 129)):
        x = [F(-1)] * 3
        if len(P) == 3:
            x[P[0]] = t
        rest = P[-2:]
        # solve the 2 × 2 system W2[:, rest] x_rest = target − b2 − W2[:, other P] x
        rhs = [target[i] - B2_B[i] - sum(W2_B[i][m] * x[m] for m in P if m not in rest) for i in (0, 1)]
        (a, b), (c, d) = ([W2_B[i][m] for m in rest] for i in (0, 1))
        det = a * d - b * c
        x[rest[0]], x[rest[1]] = (d * rhs[0] - b * rhs[1]) / det, (a * rhs[1] - c * rhs[0]) / det
        u, z2, _ = NET_B.preactivations(x)
        if all(s[m] * u[m] > 0 for m in range(3)) and list(z2) == list(target):
            return x
    return None


def test_example_12_21_flats_cells_and_rigid_edges():
    regs = activation_regions(NET_B, upto=2)
    assert regs.complete and len(regs) == 25
    cells = {r.pattern[0]: r for r in regs.regions}
    # level-2 bend flats: neuron 1 at z^2 = (0, c_k) and neuron 2 at z^2 = (d_k, 0), cell (s, (+, +))
    expected = {(1, 1, 1): 6, (1, -1, 1): 6, (1, 1, -1): 3, (-1, 1, 1): 3}
    for s in FULL:
        assert (s, (1, 1)) in cells
        counts = []
        for i in (0, 1):
            pts = [_flat_witness(s, (0, c) if i == 0 else (d, 0)) for c, d in CD]
            counts.append(sum(p is not None for p in pts))
            for p in filter(None, pts):
                # (B4): a wall point of the layer-2 edge, z^3_k = 0 there for its k
                z3 = NET_B.preactivations(p)[2]
                assert sum(v == 0 for v in z3) == 1
        assert counts == [expected[s]] * 2, s
    # rank[u_j; z^{2,+++}_1; z^{2,+++}_2] = 3 for every j: the three edges at (+, +, +) are rigid
    z2 = [list(W2_B[i]) + [B2_B[i]] for i in (0, 1)]
    for j in range(3):
        assert rank([[int(m == j) for m in range(3)] + [0]] + z2) == 3
    # the seed ((+, +, +), (−, +)): z^3_k = z^2_2/c_k − 1 there; every k is visible (a witness with
    # z^2_2 = c_k) and the six pieces are pairwise independent (distinct c_k), so the seed is good
    seed = cells[((1, 1, 1), (-1, 1))]
    for k, (c, _) in enumerate(CD):
        x = _flat_witness((1, 1, 1), (-F(1, 10), c))
        assert x is not None and seed.contains(x) and NET_B.preactivations(x)[2][k] == 0
    pieces = seed.pieces[0][2]
    assert pieces == tuple(tuple(v / c for v in z2[1][:-1]) + (z2[1][-1] / c - 1,) for c, _ in CD)
    assert all(rank([list(p), list(q)]) == 2 for p, q in product(pieces, pieces) if p != q)


def test_example_12_21_flip_families_are_trivial():
    layers = NET_B.layers
    for pair in ((layers[0], layers[1]), (layers[1], layers[2]), (layers[2], layers[3])):
        assert find_flip_set(Network(pair).shallow()).outcome.value == "none"
    # so flipping one neuron of any one layer changes f, and a G-image does not
    params = [(W1_B, [0, 0, 0]), (W2_B, B2_B), (W3_B, [-1] * 6), ([[1] * 6], [0])]
    args = (W1_B, [0, 0, 0], W2_B, B2_B, W3_B, [-1] * 6, [[1] * 6], [0])
    for F1, F2, F3 in (((0,), (), ()), ((), (1,), ()), ((), (), (3,))):
        assert equivalent(NET_B, _flipped(*args, F1, F2, F3)).equal is False
    perm = [params[0], params[1], ([[2 * v for v in W3_B[k]] for k in (5, 4, 3, 2, 1, 0)], [-2] * 6),
            ([[F(1, 2)] * 6], [0])]
    eq = equivalent(NET_B, Network.from_lists(perm))
    assert eq.equal is True and eq.same_orbit is True


#: Example 12.29: the plane C = Z(z^{(+,+,+)}_1) = {5x_1 + x_2 + 10x_3 = 5} replacing H_1
C_29 = (5, 1, 10, -5)


def _z2_piece(s, i):
    """z^{2,s}_i as a row (∇, constant), u = x."""
    return [F(W2_B[i][m]) * (s[m] > 0) for m in range(3)] + [F(B2_B[i])]


def _z3_piece(s, r, k):
    """z^{3,(s,r)}_k as a row."""
    rows = [_z2_piece(s, i) for i in (0, 1)]
    return [sum(W3_B[k][i] * (r[i] > 0) * rows[i][q] for i in (0, 1)) - (q == 3) for q in range(4)]


def _in_R(x):
    return x[1] > 0 and x[2] > 0 and evaluate_row(C_29, x) > 0


def _level_2_witness(s, k, free):
    """A rational point q of the level-2 flat of the triple ((s, (+, +)), neuron 2, k), i.e.
    z^{2,s}(q) = (d_k, 0), with the coordinate ``free[0]`` set to ``free[1]``."""
    target = (CD[k][1], 0)
    m0, t = free
    rest = [m for m in range(3) if m != m0]
    x = [F(0)] * 3
    x[m0] = F(t)
    rhs = [target[i] - B2_B[i] - W2_B[i][m0] * (s[m0] > 0) * x[m0] for i in (0, 1)]
    (a, b), (c, d) = ([W2_B[i][m] * (s[m] > 0) for m in rest] for i in (0, 1))
    det = a * d - b * c
    x[rest[0]], x[rest[1]] = (d * rhs[0] - b * rhs[1]) / det, (a * rhs[1] - c * rhs[0]) / det
    return x


def test_example_12_29_forced_planes_and_the_layer_3_count():
    A = _z2_piece((1, 1, 1), 1)      # Z(z^{(+,+,+)}_2)
    B = _z2_piece((-1, 1, 1), 1)     # Z(z^{(−,+,+)}_2)
    flats = {}
    for s, ks, free in (((1, 1, 1), (3, 4, 5), (2, F(1, 10))), ((-1, 1, 1), (0, 1, 2), (0, -F(1, 10)))):
        zi, zo = _z2_piece(s, 1), _z2_piece(s, 0)
        for k in ks:
            zk = _z3_piece(s, (1, 1), k)
            # (B1)–(B3) of the level-2 triple ((s, (+, +)), 2, k), Definition 12.13
            assert W3_B[k][1] != 0 and rank([zi[:3], zk[:3]]) == 2
            for k2 in range(6):
                if k2 != k:
                    other = _z3_piece(s, (1, 1), k2)
                    assert rank([zi, other]) <= 1 or rank([zi, zk, other]) == 3
            # a point of the active part S° (a wall point with every other z^3 nonzero) inside R
            q = _level_2_witness(s, k, free)
            u, z2, z3 = NET_B.preactivations(q)
            assert all(s[m] * u[m] > 0 for m in range(3)) and z2[0] > 0 and z2[1] == 0
            assert z3[k] == 0 and all(z3[k2] != 0 for k2 in range(6) if k2 != k)
            assert _in_R(q)
            flats[(s, k)] = [zi, zk]
    lines = list(flats.values())
    # none lies in a member of 𝒞 = {C, H_2, H_3}, so Definition 12.26(a) applies to each on R
    cutting = [[F(v) for v in C_29], [0, 1, 0, 0], [0, 0, 1, 0]]
    assert all(rank(p + [c]) == 3 for p in lines for c in cutting)
    # pairwise distinct lines; the first three lie in Z(A), the last three in Z(B) and not in Z(A)
    assert all(rank(p + q) >= 3 for p, q in product(lines, lines) if p is not q)
    assert all(rank(p + [A]) == 2 for p in lines[:3])
    assert all(rank(p + [B]) == 2 and rank(p + [A]) == 3 for p in lines[3:])
    # so two planes carrying all six lines are Z(A) and Z(B) (one of them holds two lines of Z(A),
    # the other the lines of Z(B) outside Z(A)): 𝒬_R = {Z(A), Z(B)} is forced, and in the component
    # D = R ∩ {A > 0, B > 0} of R ∖ (Z(A) ∪ Z(B)) these simple fold points lie on 13 planes
    points = [(F(32, 105), 1, F(1, 3)), (F(221, 570), F(1, 2), F(1, 3)), (F(5861, 12555), F(1, 31), F(1, 3)),
              (F(71, 170), F(1, 2), F(1, 4)), (F(43, 140), 1, F(1, 4)), (F(166, 585), F(1, 4), F(1, 3)),
              (-F(1, 7), F(499, 120), F(1, 6)), (-F(1, 7), F(457, 105), F(1, 7)),
              (-F(1, 8), F(1047, 220), F(1, 11)), (-F(1, 367), F(903, 220), F(1, 11)),
              (-F(1, 1051), F(751, 210), F(1, 7)),
              (-F(1, 601), F(401, 120), F(1, 6)), (0, 1, F(1, 2))]
    planes = set()
    for x in points:
        x = [F(v) for v in x]
        assert _in_R(x) and evaluate_row(A, x) > 0 and evaluate_row(B, x) > 0
        u, z2, z3 = NET_B.preactivations(x)
        zeros = [(1, j) for j in range(3) if u[j] == 0] + [(2, i) for i in range(2) if z2[i] == 0] + \
                [(3, k) for k in range(6) if z3[k] == 0]
        assert len(zeros) == 1      # exactly one hidden neuron vanishes: a simple fold point (Def. 12.23(c))
        (layer, n), = zeros
        s = tuple(1 if v > 0 else -1 for v in u)
        r = tuple(1 if v > 0 else -1 for v in z2)
        rho = [v > 0 for v in z3]
        if layer == 3:
            piece, coef = _z3_piece(s, r, n), F(1)                       # V_{:,k} = 1
        else:
            assert layer == 1                                           # the only other kind here
            piece = [F(int(m == n)) for m in range(3)] + [F(0)]
            coef = sum(W3_B[k][i] * (r[i] > 0) * W2_B[i][n] for k in range(6) if rho[k] for i in (0, 1))
        assert any(v != 0 for v in piece[:3]) and coef != 0
        lead = next(v for v in piece if v != 0)
        planes.add(tuple(v / lead for v in piece))
    assert len(planes) == 13 > 6


def _line(eqs):
    """The line {e_1 = 0 = e_2} of R³ as (x0, d)."""
    N = nullspace([list(e) for e in eqs], 4)
    v = next(w for w in N if w[3] != 0)
    x0 = [a / v[3] for a in v[:3]]
    w = next(w for w in N if w is not v)
    d = [w[q] - w[3] * x0[q] for q in range(3)]
    return x0, d


def _interval(rows, x0, d):
    """{τ : row(x0 + τd) > 0 for every row} as an open interval (lo, hi) (None = unbounded), or None."""
    lo = hi = None
    for r in rows:
        a, b = sum(r[q] * d[q] for q in range(3)), evaluate_row(r, x0)
        if a == 0:
            if b <= 0:
                return None
        elif a > 0:
            lo = -b / a if lo is None else max(lo, -b / a)
        else:
            hi = -b / a if hi is None else min(hi, -b / a)
    return None if lo is not None and hi is not None and lo >= hi else (lo, hi)


def _signed(row, e):
    return list(row) if e > 0 else [-v for v in row]


def _example_12_21_flats():
    """Every level-2 flat (Definition 12.13) and every level-1 flat with an active witness
    (Definition 12.23(b)) of Example 12.21, each as (rows, x0, d, active τ-intervals)."""
    u = [[F(int(m == j)) for m in range(3)] + [F(0)] for j in range(3)]
    pats = list(product((1, -1), repeat=3))
    flats = []
    for s, r, i, k in product(pats, product((1, -1), repeat=2), (0, 1), range(6)):
        zi, zk = _z2_piece(s, i), _z3_piece(s, r, k)
        if r[i] < 0 or W3_B[k][i] == 0 or rank([zi[:3], zk[:3]]) != 2:
            continue
        if not all(rank([zi, _z3_piece(s, r, k2)]) <= 1 or rank([zi, zk, _z3_piece(s, r, k2)]) == 3
                   for k2 in range(6) if k2 != k):
            continue
        x0, d = _line([zi, zk])
        rows = [_signed(u[m], s[m]) for m in range(3)] + [_signed(_z2_piece(s, 1 - i), r[1 - i])]
        iv = _interval(rows, x0, d)
        if iv is not None:
            flats.append(([zi, zk], x0, d, [iv]))
    n2 = len(flats)
    for s, j, i in product(pats, range(3), (0, 1)):
        zi, zo = _z2_piece(s, i), _z2_piece(s, 1 - i)
        if s[j] < 0 or W2_B[i][j] == 0 or rank([u[j][:3], zi[:3]]) != 2:
            continue
        if not (rank([u[j], zo]) <= 1 or rank([u[j], zi, zo]) == 3):
            continue
        x0, d = _line([u[j], zi])
        ivs = []
        for ro, rho in product((1, -1), product((1, -1), repeat=6)):
            if not any(rh > 0 for rh in rho):          # (V D_ρ W^3)_{:,i} ≠ 0 (V = 1, W^3 > 0)
                continue
            rows = [_signed(u[m], s[m]) for m in range(3) if m != j] + [_signed(zo, ro)]
            # z^3_k on the flat (z^{2,s}_i = 0 there): W^3_{k,o}[r_o = +] z^{2,s}_o − 1
            rows += [_signed([W3_B[k][1 - i] * (ro > 0) * zo[q] - (q == 3) for q in range(4)], rho[k])
                     for k in range(6)]
            iv = _interval(rows, x0, d)
            if iv is not None:
                ivs.append(iv)
        if ivs:
            flats.append(([u[j], zi], x0, d, ivs))
    return flats, n2


def _layer_1_edge_flats():
    """The flats of the edge bend triples on layer-1 edges (Definition 12.23(a)): z^3_k bends at H_j."""
    u = [[F(int(m == j)) for m in range(3)] + [F(0)] for j in range(3)]
    flats = []
    for s, j, r, k in product(product((1, -1), repeat=3), range(3), product((1, -1), repeat=2), range(6)):
        zk = _z3_piece(s, r, k)
        c_k = sum(W3_B[k][i] * (r[i] > 0) * W2_B[i][j] for i in (0, 1))      # (W^3 D_r W^2)_{kj}
        if s[j] < 0 or c_k == 0 or rank([u[j][:3], zk[:3]]) != 2:
            continue
        if not all(rank([u[j], _z3_piece(s, r, k2)]) <= 1 or rank([u[j], zk, _z3_piece(s, r, k2)]) == 3
                   for k2 in range(6) if k2 != k):
            continue
        x0, d = _line([u[j], zk])
        rows = [_signed(u[m], s[m]) for m in range(3) if m != j] + [_signed(_z2_piece(s, i), r[i]) for i in (0, 1)]
        iv = _interval(rows, x0, d)
        if iv is not None:
            flats.append(([u[j], zk], x0, d, [iv]))
    return flats


class _Lines:
    """Distinct lines of R³ (each given by two rows) and their covers by at most two planes."""

    def __init__(self, flats):
        keys = [tuple(map(tuple, rref(rows)[0])) for rows, *_ in flats]
        distinct = sorted(set(keys))
        self.of = [distinct.index(k) for k in keys]
        reps = [flats[keys.index(k)][0] for k in distinct]
        self.plane = {}        # pair of lines -> the plane they span (as the set of lines it holds)
        for a, b in product(range(len(reps)), repeat=2):
            if a < b:
                basis = nullspace([[x[q] for x in reps[a]] + [-y[q] for y in reps[b]] for q in range(4)], 4)
                if len(basis) == 1:      # rank 3: the lines meet or are parallel, so they span a plane
                    ell = [sum(basis[0][t] * reps[a][t][q] for t in (0, 1)) for q in range(4)]
                    held = frozenset(c for c in range(len(reps)) if rank(reps[c] + [ell]) == 2)
                    self.plane[a, b] = self.plane[b, a] = held
        self.memo = {}

    def _one(self, L):
        return len(L) <= 1 or ((L[0], L[1]) in self.plane and set(L) <= self.plane[L[0], L[1]])

    def two_plane_cover(self, flat_indices):
        L = sorted({self.of[i] for i in flat_indices})
        key = tuple(L)
        if key not in self.memo:
            # a plane through L[0] holds no other line of L, or is the plane of L[0] and some g
            self.memo[key] = self._one(L[1:]) or any(
                self._one([c for c in L if c not in self.plane[L[0], g]]) for g in L[1:] if (L[0], g) in self.plane)
        return self.memo[key]


def _one_unknown_plane_cover(flats, j):
    """Remark 12.30: is {H_m : m ≠ j} ∪ {C} part of a flat cover for some plane C ≠ H_j? Branch on the
    sign of C at the end vectors of the active intervals (points (x, 1), directions (d, 0) of rays);
    an interval meets the side {C > 0} iff an end is > 0 there (C is affine along it), and lies in C iff
    both ends are 0. Prune by the exact strict feasibility of the signs and by the covers."""
    others = [m for m in range(3) if m != j]
    rel = [f for f in flats if not any(rank(f[0] + [[F(int(q == m)) for q in range(4)]]) == 2 for m in others)]
    lines = _Lines(rel)
    groups = {}
    for a, (rows, x0, d, ivs) in enumerate(rel):
        for lo, hi in ivs:
            assert lo is not None or hi is not None       # no active part is a whole line here
            ends = [[x0[q] + t * d[q] for q in range(3)] + [F(1)] if t is not None else
                    [sgn * v for v in d] + [F(0)] for t, sgn in ((lo, -1), (hi, 1))]
            t = (lo + hi) / 2 if lo is not None and hi is not None else (hi - 1 if lo is None else lo + 1)
            h = tuple(x0[m] + t * d[m] > 0 for m in others)      # the cell of {H_m : m ≠ j}: fixed along
            assert all(e[m] == 0 or (e[m] > 0) == hm for e in ends for m, hm in zip(others, h))
            groups.setdefault(h, []).append((a, ends))
    if all(lines.two_plane_cover([a for a, _ in g]) for g in groups.values()):
        return True                                               # C is not needed
    work = [it for g in groups.values() if not lines.two_plane_cover([a for a, _ in g]) for it in g]
    heavy = [g for g in groups.values() if not lines.two_plane_cover([a for a, _ in g])]
    vecs = []
    for _, ends in work:
        for e in ends:
            if e not in vecs:
                vecs.append(e)
    idx = {tuple(v): n for n, v in enumerate(vecs)}
    u_j = [F(int(q == j)) for q in range(4)]

    def feasible(signs):
        eqs = [vecs[n] for n, e in signs.items() if e == 0]
        N = nullspace(eqs, 4)
        if not N or (len(N) == 1 and rank([N[0], u_j]) == 1):     # only C = 0 or C = H_j
            return False
        rows = [tuple(e * sum(vecs[n][q] * b[q] for q in range(4)) for b in N) + (F(0),)
                for n, e in signs.items() if e != 0]
        if any(all(v == 0 for v in r) for r in rows):
            return False
        return not rows or strict_feasibility(rows, len(N)).point is not None

    def covered(signs):
        for g in heavy:
            for side in (1, -1):
                if not lines.two_plane_cover([a for a, ends in g if any(signs.get(idx[tuple(e)]) == side
                                                                        for e in ends)]):
                    return False
        return True

    def search(n, signs):
        if not feasible(signs) or not covered(signs):
            return False
        if n == len(vecs):
            return True
        for e in ((1, -1, 0) if any(signs.values()) else (1, 0)):      # C and −C give the same cells
            signs[n] = e
            if search(n + 1, signs):
                return True
            del signs[n]
        return False

    return search(0, {})


def test_example_12_29_level_1_and_2_flats_admit_a_cover_missing_H_1():
    flats, n2 = _example_12_21_flats()
    assert (n2, len(flats) - n2) == (36, 14)
    cutting = [[F(0), F(1), F(0), F(0)], [F(0), F(0), F(1), F(0)], [F(v) for v in C_29]]   # H_2, H_3, C
    # the planes Q_R of each cell (signs of x_2, x_3, C); the cells with x_2, x_3 < 0 meet no flat
    z = {s: [_z2_piece(s, i) for i in (0, 1)] for s in product((1, -1), repeat=3)}
    cover = {(1, 1, 1): [z[(1, 1, 1)][1], z[(-1, 1, 1)][1]], (1, 1, -1): [z[(-1, 1, 1)][0], z[(-1, 1, 1)][1]],
             (1, -1, 1): [z[(1, 1, -1)][1]], (1, -1, -1): [z[(1, 1, -1)][0], z[(1, 1, -1)][1]],
             (-1, 1, 1): [z[(1, -1, 1)][1]], (-1, 1, -1): [z[(1, -1, 1)][0], z[(1, -1, 1)][1]]}
    exempt = met = 0
    for rows, x0, d, ivs in flats:
        if any(rank(rows + [c]) == 2 for c in cutting):
            exempt += 1        # the flat lies in a member of 𝒞
            continue
        for lo, hi in ivs:
            cuts = sorted({-evaluate_row(c, x0) / sum(c[q] * d[q] for q in range(3)) for c in cutting
                           if sum(c[q] * d[q] for q in range(3)) != 0})
            ends = [lo] + [t for t in cuts if (lo is None or t > lo) and (hi is None or t < hi)] + [hi]
            for a, b in zip(ends, ends[1:]):
                t = (a + b) / 2 if a is not None and b is not None else (b - 1 if b is not None else
                                                                        (a + 1 if a is not None else F(0)))
                x = [x0[q] + t * d[q] for q in range(3)]
                cell = tuple(1 if evaluate_row(c, x) > 0 else -1 for c in cutting)
                # Definition 12.26(a): the flat lies in a plane of its cell's 𝒬_R (at most n2 = 2 planes)
                assert any(rank(rows + [p]) == 2 for p in cover[cell]), (rows, cell)
                met += 1
    assert exempt == 15 and met > 0
    # the cover misses H_1 = {x_1 = 0}: no member of 𝒞 is a multiple of u_1
    assert all(rank([c, [F(1), F(0), F(0), F(0)]]) == 2 for c in cutting)


@pytest.mark.slow
def test_proposition_12_31_no_competitor_keeps_two_layer_1_hyperplanes_only():
    flats = _example_12_21_flats()[0] + _layer_1_edge_flats()
    assert len(flats) == 36 + 14 + 96
    for j in range(3):
        assert _one_unknown_plane_cover(flats, j) is False
    # the search finds covers when they exist: with the level-1 and level-2 flats only (Example 12.29(i))
    assert _one_unknown_plane_cover(_example_12_21_flats()[0], 0) is True
