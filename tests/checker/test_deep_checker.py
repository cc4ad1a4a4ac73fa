"""The checker's deep verifiers and constructions (reluid/checker/deep.py).

Every mechanism's construction is read back from hand-made θ′ (and every way
θ′ can fail to be that construction is tried, with its 1-based message); the
orbit form is checked against the H_n action; Jacobians against exact
directional differences; premises by inspection at their sign boundaries.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import flint
import pytest

from reluid.certificates.schema import ClaimKind, Claim
from reluid.checker import deep as cd
from reluid.checker import fundim as cfd
from reluid.checker import search
from reluid.checker.registry import VERIFIERS, Budget, Context, WorkLimit
from reluid.errors import CheckFailed
from reluid.model.network import Layer, Network
from tests.checker.reference import jacobian_rows as reference_jacobian_rows

N = Network.from_lists
F = Fraction

#: 2 inputs, hidden layers of widths 3 and 2, 1 output
D = N([([[1, 2], [-1, 1], [2, -1]], [1, 0, -1]), ([[1, -1, 2], [2, 1, -1]], [0, 1]), ([[1, -2]], [1])])
#: three hidden layers (1, 2, 2, 2, 2)
D3 = N([([[1], [-1]], [0, 1]), ([[1, 2], [-1, 1]], [0, -1]), ([[2, 1], [1, -1]], [1, 0]), ([[1, 1], [-1, 2]], [0, 0])])
SHALLOW = N([([[1], [2]], [0, 1]), ([[1, 1]], [0])])


def ctx(net=D, cid="c5"):
    return Context(net, cid)


def rejected(call, *args, match, **kwargs):
    """``call`` raises CheckFailed whose reason is ``match`` (or contains it, with a leading ``~``)."""
    with pytest.raises(CheckFailed) as e:
        call(*args, **kwargs)
    assert e.value.claim in ("c5", "witness"), e.value.claim
    assert match == e.value.reason if not match.startswith("~") else match[1:] in e.value.reason, e.value.reason
    return e.value.reason


def edit(net, **changes):
    """θ′: ``W<m>_<r>_<c>=v`` sets W of layer map m (0-based) at (r, c) (0-based); ``b<m>_<r>=v`` a bias."""
    layers = [([list(r) for r in L.weight], list(L.bias)) for L in net.layers]
    for key, v in changes.items():
        parts = key[1:].split("_")
        if key[0] == "W":
            m, r, c = map(int, parts)
            layers[m][0][r][c] = F(v)
        else:
            m, r = map(int, parts)
            layers[m][1][r] = F(v)
    return N(layers)


def scaled(net, layer, j, lam):
    """Scale hidden neuron j of hidden layer ``layer`` (1-based) by lam > 0 (an element of H_n)."""
    layers = [([list(r) for r in L.weight], list(L.bias)) for L in net.layers]
    W, b = layers[layer - 1]
    W[j] = [x * lam for x in W[j]]
    b[j] *= lam
    Wn = layers[layer][0]
    for row in Wn:
        row[j] /= lam
    return N(layers)


def permuted(net, layer, perm):
    layers = [([list(r) for r in L.weight], list(L.bias)) for L in net.layers]
    W, b = layers[layer - 1]
    layers[layer - 1] = ([W[perm[t]] for t in range(len(W))], [b[perm[t]] for t in range(len(b))])
    layers[layer] = ([[row[perm[t]] for t in range(len(row))] for row in layers[layer][0]], layers[layer][1])
    return N(layers)


# ---- readers -----------------------------------------------------------------------------------------

def test_deep_field_readers():
    c = ctx()
    assert cd._int(c, {"k": 3}, "k") == 3 and cd._int(c, {"k": -1}, "k") == -1
    for ev, shown in (({"k": True}, "True"), ({}, "None"), ({"k": 1.0}, "1.0")):
        rejected(cd._int, c, ev, "k", match=f"evidence field 'k' must be an integer, got {shown}")
    assert cd._ints(c, {"k": [1, 2]}, "k") == (1, 2) and cd._ints(c, {"k": (0,)}, "k") == (0,)
    assert cd._ints(c, {"k": []}, "k") == ()
    for bad in ("12", None, 3):
        rejected(cd._ints, c, {"k": bad}, "k", match="evidence field 'k' must be a list")
    assert cd._int(c, {"k": "3"}, "k") == 3                                   # a number written "p"
    for bad in ([1, True], [1, "1/2"], [1.0]):
        rejected(cd._ints, c, {"k": bad}, "k", match="~evidence field 'k'")
    assert cd._one_based([3, 0]) == "1, 4"


def test_layers_and_neurons():
    c = ctx()
    assert cd._hidden_layer(c, D, 1) == 3 and cd._hidden_layer(c, D, 2) == 2
    rejected(cd._hidden_layer, c, SHALLOW, 1, match="not a deep network: architecture (1, 2, 1)")
    rejected(cd._hidden_layer, c, D, 0, match="hidden layer 0 does not exist (the network has 1..2)")
    rejected(cd._hidden_layer, c, D, 3, match="hidden layer 3 does not exist (the network has 1..2)")
    cd._neuron(c, D, 1, 2)
    cd._neuron(c, D, 2, 0)
    rejected(cd._neuron, c, D, 1, 3, match="neuron 4 does not exist in hidden layer 1 (width 3)")
    rejected(cd._neuron, c, D, 2, 2, match="neuron 3 does not exist in hidden layer 2 (width 2)")
    rejected(cd._neuron, c, D, 2, -1, match="neuron 0 does not exist in hidden layer 2 (width 2)")


# ---- premises --------------------------------------------------------------------------------------

def test_premise_conditions():
    c = ctx()
    assert cd._conditions(c, ClaimKind.DEEP_DEAD_NEURON, {"layer": 2, "neuron": 1}) == ((2, 1, ">0"),)
    assert cd._conditions(c, ClaimKind.DEEP_ALWAYS_ACTIVE, {"layer": 1, "neuron": 2}) == ((1, 2, "<0"),)
    assert cd._conditions(c, ClaimKind.DEEP_NEVER_COACTIVE, {"layer": 2, "upstream": 2, "downstream": 1}) == \
        ((1, 2, ">0"), (2, 1, ">0"))
    rejected(cd._conditions, c, ClaimKind.DEEP_NEVER_COACTIVE, {"layer": 1, "upstream": 0, "downstream": 0},
             match="a never co-active pair needs the downstream neuron in hidden layer >= 2")
    rejected(cd._conditions, c, ClaimKind.DEEP_NEVER_COACTIVE, {"layer": 2, "upstream": 3, "downstream": 0},
             match="neuron 4 does not exist in hidden layer 1 (width 3)")
    rejected(cd._conditions, c, ClaimKind.DEEP_NEVER_COACTIVE, {"layer": 2, "upstream": 0, "downstream": 2},
             match="neuron 3 does not exist in hidden layer 2 (width 2)")
    rejected(cd._conditions, c, ClaimKind.DEEP_DEAD_NEURON, {"layer": 3, "neuron": 0},
             match="hidden layer 3 does not exist (the network has 1..2)")
    rejected(cd._conditions, c, ClaimKind.DEEP_DEAD_NEURON, {"layer": 2},
             match="evidence field 'neuron' must be an integer, got None")
    rejected(cd._conditions, c, ClaimKind.DEEP_NEVER_COACTIVE, {"layer": 2, "upstream": 0},
             match="evidence field 'downstream' must be an integer, got None")
    rejected(cd._conditions, c, ClaimKind.DEEP_NEVER_COACTIVE, {"layer": 2, "downstream": 0},
             match="evidence field 'upstream' must be an integer, got None")
    for kind in (ClaimKind.DEEP_NEVER_COACTIVE, ClaimKind.DEEP_DEAD_NEURON):
        rejected(cd._conditions, c, kind, {"neuron": 0, "upstream": 0, "downstream": 0},
                 match="evidence field 'layer' must be an integer, got None")


#: layer-1 neurons: constant 0, constant -1, constant 2, x; layer-2 neurons: rows of every sign pattern,
#: and non-positive rows with the biases 1 and 1/2 (positive at inputs where the layer below is 0)
INSPECT = N([([[0], [0], [0], [1]], [0, -1, 2, 0]),
             ([[-1, 0, -2, 0], [0, 0, 0, 0], [1, 0, 0, 2], [-1, 0, 0, 1], [0, 1, 1, 0], [-1, 0, 0, -1],
               [0, 0, -1, -1]], [0, 0, 0, -1, 3, 1, "1/2"]),
             ([[1, 1, 1, 1, 1, 1, 1]], [0])])


@pytest.mark.parametrize("l,i,sign,expect", [
    (1, 0, ">0", "layer-1 neuron 1 is the constant 0"), (1, 0, "<0", "layer-1 neuron 1 is the constant 0"),
    (1, 1, ">0", "layer-1 neuron 2 is the constant -1"), (1, 1, "<0", None),
    (1, 2, ">0", None), (1, 2, "<0", "layer-1 neuron 3 is the constant 2"),
    (1, 3, ">0", None), (1, 3, "<0", None),
    (2, 0, ">0", "the incoming row and bias of neuron 1 in hidden layer 2 are <= 0 entrywise, and its inputs are >= 0"),
    (2, 0, "<0", None),
    (2, 1, ">0", "the incoming row and bias of neuron 2 in hidden layer 2 are <= 0 entrywise, and its inputs are >= 0"),
    (2, 1, "<0", "the incoming row and bias of neuron 2 in hidden layer 2 are >= 0 entrywise, and its inputs are >= 0"),
    (2, 2, ">0", None),
    (2, 2, "<0", "the incoming row and bias of neuron 3 in hidden layer 2 are >= 0 entrywise, and its inputs are >= 0"),
    (2, 3, ">0", None), (2, 3, "<0", None),
    (2, 4, ">0", None),
    (2, 4, "<0", "the incoming row and bias of neuron 5 in hidden layer 2 are >= 0 entrywise, and its inputs are >= 0"),
    (2, 5, ">0", None), (2, 6, ">0", None), (2, 5, "<0", None),
])
def test_inspection_at_the_sign_boundaries(l, i, sign, expect):
    assert cd._inspection(ctx(INSPECT), ((l, i, sign),)) == expect


def test_inspection_needs_a_single_condition():
    assert cd._inspection(ctx(INSPECT), ((1, 0, ">0"), (2, 0, ">0"))) is None
    assert cd._inspection(ctx(INSPECT), ()) is None


def premise(kind, **ev):
    return VERIFIERS[kind](ev, ctx(INSPECT))


def test_premise_claims():
    assert premise(ClaimKind.DEEP_DEAD_NEURON, layer=1, neuron=1) == \
        "no input has z^1_2 > 0: layer-1 neuron 2 is the constant -1 (recomputed)"
    assert premise(ClaimKind.DEEP_ALWAYS_ACTIVE, layer=2, neuron=2) == \
        ("no input has z^2_3 < 0: the incoming row and bias of neuron 3 in hidden layer 2 are >= 0 entrywise, and its "
         "inputs are >= 0 (recomputed)")
    with pytest.raises(CheckFailed, match=r"^c5: no proof that no input has z\^2_4 > 0: give a Farkas-tree "
                                          r"certificate$"):
        premise(ClaimKind.DEEP_DEAD_NEURON, layer=2, neuron=3)
    with pytest.raises(CheckFailed, match=r"no proof that no input has z\^1_4 > 0 and z\^2_5 > 0: give a"):
        premise(ClaimKind.DEEP_NEVER_COACTIVE, layer=2, upstream=3, downstream=4)
    # with a tree: z^2_4 = -h_1 + h_4 - 1 > 0 ... is possible (x large), so no tree proves it; z^1_2 = -1 > 0 is not
    tree = {"format": "reluid.farkas-tree/1", "scope_layers": 0,
            "tree": {"leaf": {"closed": [], "strict": [[0, 1]]}}}
    assert premise(ClaimKind.DEEP_DEAD_NEURON, layer=1, neuron=1, tree=tree) == \
        "no input has z^1_2 > 0: a Farkas-tree certificate with 1 leaves (verified)"
    with pytest.raises(CheckFailed, match=r"^c5: "):
        premise(ClaimKind.DEEP_DEAD_NEURON, layer=1, neuron=2, tree=tree)   # z^1_3 = 2: the leaf is false


def test_premise_of_every_kind():
    def pc(kind, **ev):
        return cd.premise_of(Claim("x", kind, "", "", ev))

    assert pc(ClaimKind.DEEP_DEAD_NEURON, layer=2, neuron=1) == ("dead-neuron", 2, (1,))
    assert pc(ClaimKind.DEEP_ALWAYS_ACTIVE, layer=1, neuron=0) == ("always-active", 1, (0,))
    assert pc(ClaimKind.DEEP_NEVER_COACTIVE, layer=2, upstream=3, downstream=1) == ("never-coactive", 2, (3, 1))
    assert pc(ClaimKind.DEEP_LAYER_FLIP, layer=1, neurons=[2, 0]) == ("layer-flip", 1, (0, 2))
    assert pc(ClaimKind.DEEP_PROPORTIONAL, layer=1, neurons=[2, 0]) == ("proportional-neurons", 1, (2, 0))
    assert pc(ClaimKind.DEEP_ZERO_OUTGOING, layer=2, neuron=1) == ("zero-outgoing", 2, (1,))


# ---- identities ------------------------------------------------------------------------------------

#: layer-1 rows (1, 2 | 1) and (−1, −2 | 0) with equal outgoing columns over two outputs
FLIP2 = N([([[1, 2], [-1, -2], [2, -1]], [1, 0, 1]), ([[1, 1, 3], [2, 2, -1]], [0, 1]), ([[1, -1], [2, 1]], [0, 3])])


def test_flip_product():
    c = ctx()
    assert cd._flip_product_zero(c, FLIP2, 1, (0, 1))
    assert not cd._flip_product_zero(c, FLIP2, 1, (0,)) and not cd._flip_product_zero(c, FLIP2, 1, (0, 2))
    assert not cd._flip_product_zero(c, FLIP2, 1, (0, 1, 2))
    # a set that cancels for output 1 of the next layer only
    half = N([([[1, 2], [-1, -2]], [1, 0]), ([[1, 1], [1, 2]], [0, 1]), ([[1, 1]], [0])])
    assert not cd._flip_product_zero(c, half, 1, (0, 1))
    # ... or on input 1 only
    half = N([([[1, 2], [-1, -3]], [1, 0]), ([[1, 1]], [0]), ([[1]], [0])])
    assert not cd._flip_product_zero(c, half, 1, (0, 1))
    # layer 2 of D3: neurons with rows (2, 1) and (1, −1) never cancel
    assert not cd._flip_product_zero(ctx(), D3, 2, (0, 1))


def test_layer_flip_claims():
    v = VERIFIERS[ClaimKind.DEEP_LAYER_FLIP]
    assert v({"layer": 1, "neurons": [1, 0]}, ctx(FLIP2)) == \
        "layer-flip identity holds exactly for F = {1, 2} in hidden layer 1 (recomputed)"
    with pytest.raises(CheckFailed, match=r"sum over F = \{1, 3\} of W\^2\[:, i\] W\^1\[i, :\] is not zero"):
        v({"layer": 1, "neurons": [0, 2]}, ctx(FLIP2))
    for bad in ([], [0, 0]):
        with pytest.raises(CheckFailed, match="a flip set must be a non-empty set of neurons"):
            v({"layer": 1, "neurons": bad}, ctx(FLIP2))
    with pytest.raises(CheckFailed, match="neuron 4 does not exist in hidden layer 1"):
        v({"layer": 1, "neurons": [0, 3]}, ctx(FLIP2))


def test_zero_outgoing_and_proportional():
    z = N([([[1, 2], [-1, 1]], [1, 0]), ([[1, 0], [2, 0]], [0, 1]), ([[1, -1]], [0])])
    cd._zero_outgoing(ctx(z), z, 1, 1)
    rejected(cd._zero_outgoing, ctx(z), z, 1, 0, match="neuron 1 of hidden layer 1 has a nonzero outgoing weight")
    rejected(cd._zero_outgoing, ctx(z), z, 2, 0, match="neuron 1 of hidden layer 2 has a nonzero outgoing weight")
    rejected(cd._zero_outgoing, ctx(z), z, 1, 2, match="neuron 3 does not exist in hidden layer 1 (width 2)")
    assert VERIFIERS[ClaimKind.DEEP_ZERO_OUTGOING]({"layer": 1, "neuron": 1}, ctx(z)) == \
        "neuron 2 of hidden layer 1 has zero outgoing weights (recomputed)"
    p = N([([[0, 2], [0, 3], [0, -2], [0, 0]], [1, "3/2", -1, 0]), ([[1, 1, 1, 1]], [0]), ([[1]], [0])])
    assert cd._proportional(ctx(p), p, 1, 0, 1) == F(3, 2)
    assert cd._proportional(ctx(p), p, 1, 1, 0) == F(2, 3)
    rejected(cd._proportional, ctx(p), p, 1, 0, 2, match="the incoming rows of neurons 1 and 3 in hidden layer 1 are "
                                                          "not positively proportional")
    rejected(cd._proportional, ctx(p), p, 1, 0, 0, match="two distinct neurons with a nonzero row are needed")
    rejected(cd._proportional, ctx(p), p, 1, 3, 0, match="two distinct neurons with a nonzero row are needed")
    rejected(cd._proportional, ctx(p), p, 1, 0, 3, match="the incoming rows of neurons 1 and 4 in hidden layer 1 are "
                                                          "not positively proportional")   # λ = 0
    q = N([([[1, 2], [2, 4], [2, 4]], [1, 2, 3]), ([[1, 1, 1]], [0]), ([[1]], [0])])
    rejected(cd._proportional, ctx(q), q, 1, 0, 2, match="the incoming rows of neurons 1 and 3 in hidden layer 1 are "
                                                          "not positively proportional")   # bias breaks it
    assert cd._proportional(ctx(q), q, 1, 0, 1) == 2
    rejected(cd._proportional, ctx(q), q, 1, 0, 3, match="neuron 4 does not exist in hidden layer 1 (width 3)")
    rejected(cd._proportional, ctx(q), q, 1, 3, 0, match="neuron 4 does not exist in hidden layer 1 (width 3)")
    v = VERIFIERS[ClaimKind.DEEP_PROPORTIONAL]
    assert v({"layer": 1, "neurons": [0, 1]}, ctx(q)) == \
        "the row of neuron 2 = 2 × the row of neuron 1 in hidden layer 1 (recomputed)"
    with pytest.raises(CheckFailed, match="a proportional pair names two neurons"):
        v({"layer": 1, "neurons": [0, 1, 2]}, ctx(q))


# ---- orbits ------------------------------------------------------------------------------------------

def random_deep(rng, arch, ties=False):
    layers = []
    for a, b in zip(arch, arch[1:]):
        W = [[F(rng.randint(-3, 3), rng.choice([1, 2])) for _ in range(a)] for _ in range(b)]
        bias = [F(rng.randint(-2, 2)) for _ in range(b)]
        if ties and b >= 2:
            W[1], bias[1] = list(W[0]), bias[0]
        layers.append((W, bias))
    return N(layers)


def random_group_element(rng, net):
    for l, width in enumerate(net.hidden_widths, start=1):
        perm = list(range(width))
        rng.shuffle(perm)
        net = permuted(net, l, perm)
        for j in range(width):
            net = scaled(net, l, j, F(rng.randint(1, 5), rng.randint(1, 5)))
    return net


def test_orbit_form_is_a_normal_form():
    rng = random.Random(8)
    checked = 0
    for t in range(80):
        arch = (rng.randint(1, 3),) + tuple(rng.randint(1, 3) for _ in range(rng.randint(2, 3))) + (rng.randint(1, 2),)
        net = random_deep(rng, arch, ties=t % 3 == 0)
        form = cd.orbit_form(net)
        if form is None:
            assert any(not any(w) and b == 0 for L in net.layers[:-1] for w, b in zip(L.weight, L.bias))
            continue
        checked += 1
        g = random_group_element(rng, net)
        assert cd.orbit_form(g) == form and cd.outside_orbit(net, g) is False
        # flipping the sign of a neuron (not in H_n) or moving the output bias leaves the orbit
        l = rng.randint(1, len(net.hidden_widths))
        j = rng.randrange(net.hidden_widths[l - 1])
        moved = edit(net, **{f"b{len(net.layers) - 1}_0": net.layers[-1].bias[0] + 1})
        assert cd.orbit_form(moved) != form and cd.outside_orbit(net, moved) is True
        neg = scaled(net, l, j, F(-1))
        if neg != net:
            assert cd.orbit_form(neg) != form
    assert checked > 50


def test_orbit_form_by_hand():
    net = N([([[2, -2], [0, 1]], [4, -1]), ([[1, 3]], [5])])          # L1 norms 8 and 2
    form = cd.orbit_form(net)
    assert form == ((((F(0), F(1, 2)), (F(1, 4), F(-1, 4))), (F(-1, 2), F(1, 2))), (((F(6), F(8)),), (F(5),)))
    # ties: three equal neurons with distinct outgoing weights, any order gives the same form
    tied = N([([[1], [1], [1]], [0, 0, 0]), ([[1, 2, 3]], [0]), ([[1]], [0])])
    for perm in itertools.permutations(range(3)):
        assert cd.orbit_form(permuted(tied, 1, list(perm))) == cd.orbit_form(tied)
    assert cd.orbit_form(tied)[1][0] == ((F(1, 6), F(1, 3), F(1, 2)),)


def test_orbit_form_charges_every_order_of_tied_neurons():
    # ties of size 3 in hidden layer 1 (3! orders): each order costs the layers after it
    tied = N([([[1], [1], [1]], [0, 0, 0]), ([[1, 2, 3], [1, 0, 0]], [0, 0]), ([[1, 1]], [0])])
    used = Budget()
    form = cd.orbit_form(tied, Context(tied, "c", used))
    assert form is not None and form == cd.orbit_form(tied)
    with pytest.raises(WorkLimit, match="the orbit normal form"):
        cd.orbit_form(tied, Context(tied, "c", Budget(used.used - 1)))
    with pytest.raises(WorkLimit, match="the orbit normal form: 6 orders of tied neurons in hidden layer 1 "
                                        "\\(searched by the checker\\)"):
        cd.orbit_form(tied, Context(tied, "c", Budget(20)))
    # 7! orders are decided within the default limit; a small limit stops them before they run
    big = N([([[1]] * 7, [0] * 7), ([list(range(1, 8))], [0])])
    assert cd.orbit_form(big) is not None
    with pytest.raises(WorkLimit, match="5,040 orders"):
        cd.orbit_form(big, Context(big, "c", Budget(10_000)))


def test_orbit_invariant_is_shared_by_the_orbit_and_separates_witnesses():
    inv = search.orbit_invariant(D)
    assert search.orbit_invariant(scaled(D, 2, 1, F(3))) == inv
    for perm in itertools.permutations(range(3)):
        assert search.orbit_invariant(permuted(D, 1, list(perm))) == inv
    assert search.orbit_invariant(edit(D, W2_0_0=7)) != inv
    assert search.orbit_invariant(N([([[0], [1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])) is None
    # tied neurons: a changed layer-2 row is told apart without a search
    tied = N([([[1]] * 6, [0] * 6), ([[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]], [0, 0]), ([[1, 0]], [0])])
    used = Budget()
    assert cd.outside_orbit(tied, edit(tied, W1_0_0=9), Context(tied, "c", used)) is True and not used.searches
    # equal invariants, different orbits: the search decides (the two rows swap their pairing)
    a = N([([[1]] * 2 + [[2]] * 2, [0] * 4), ([[1, 2, 3, 4], [2, 1, 4, 3]], [0, 0]), ([[1, 1]], [0])])
    b = N([([[1]] * 2 + [[2]] * 2, [0] * 4), ([[1, 2, 3, 4], [2, 1, 3, 4]], [0, 0]), ([[1, 1]], [0])])
    assert search.orbit_invariant(a) == search.orbit_invariant(b)
    used = Budget()
    assert cd.outside_orbit(a, b, Context(a, "c", used)) is True and used.searches


def test_orbit_form_is_undefined_on_zero_rows():
    z = N([([[0], [1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])
    assert cd.orbit_form(z) is None
    assert cd.orbit_form(N([([[0], [1]], [1, 0]), ([[1, 1]], [0]), ([[1]], [0])])) is not None
    assert search._zero_row_counts(z) == (1, 0)
    assert search._zero_row_counts(D) == (0, 0)
    assert search._zero_row_counts(N([([[0], [0]], [0, 2]), ([[0, 0], [1, 1]], [0, 0]), ([[1, 1]], [0])])) == (1, 1)


def test_outside_orbit():
    z = N([([[0], [1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])
    assert cd.outside_orbit(z, edit(z, W2_0_0=2)) is None             # both have the zero row
    assert cd.outside_orbit(z, edit(z, W0_0_0=1)) is True             # the zero row is gone
    assert cd.outside_orbit(z, edit(z, W0_1_0=0)) is True             # one more zero row
    assert cd.outside_orbit(D, D3) is True                            # other architecture
    assert cd.outside_orbit(D, scaled(D, 2, 1, F(3))) is False
    assert cd.outside_orbit(D, edit(D, W2_0_0=7)) is True
    # many ties: decided by the charged search
    big = N([([[1]] * 6, [0] * 6), ([list(range(1, 7))], [0])])                  # 6! orders
    tied_less = N([([[1]] * 6, [0] * 4 + [1, 2]), ([list(range(1, 7))], [0])])  # 4! orders
    assert cd.outside_orbit(big, tied_less) is True and cd.outside_orbit(tied_less, big) is True
    assert cd.outside_orbit(big, permuted(big, 1, [5, 4, 3, 2, 1, 0])) is False


# ---- the witness constructions -------------------------------------------------------------------------

def test_differences():
    assert cd._differences(ctx(), D, D) == []
    assert cd._differences(ctx(), D, edit(D, W1_1_2=5, b0_2=3, W0_0_1=0)) == [("W", 0, 0, 1), ("b", 0, 2), ("W", 1, 1, 2)]


def test_single():
    assert cd._single(ctx(), [(1, 2), (1, 2)], "x") == (1, 2)
    rejected(cd._single, ctx(), [(1, 2), (2, 1)], "changes y", match="θ′ changes y of 2 neurons, not of exactly one")
    rejected(cd._single, ctx(), [], "changes y", match="θ′ changes y of 0 neurons, not of exactly one")


def read(kind, b, a=D):
    return cd._read_construction(ctx(a), kind, a, b)


def test_every_mechanism_needs_a_change():
    for kind in ("dead-neuron", "always-active", "never-coactive", "zero-outgoing", "proportional-neurons",
                 "layer-flip"):
        rejected(read, kind, D, match="the witness network equals θ")
    rejected(read, "anything", D, match="unknown mechanism 'anything'")
    rejected(read, "anything", edit(D, W0_0_0=9), match="unknown mechanism 'anything'")


def test_dead_neuron_construction():
    c = read("dead-neuron", edit(D, W1_0_2=7, W1_1_2=0))              # outgoing column of layer-1 neuron 3
    assert (c.kind, c.layer, c.neurons, c.premise) == ("dead-neuron", 1, (2,), ("dead-neuron", 1, (2,)))
    assert c.what == "changes only the outgoing weights of neuron 3 in hidden layer 1"
    assert c.premise_text == "that neuron is dead (no input has z^1_3 > 0)"
    c = read("dead-neuron", edit(D, W2_0_1=0))                        # into the output: hidden layer 2 (the last)
    assert (c.layer, c.neurons, c.key) == (2, (1,), ("dead-neuron", 2, (1,)))
    rejected(read, "dead-neuron", edit(D, W0_0_0=5), match="θ′ changes more than outgoing weights of hidden neurons")
    rejected(read, "dead-neuron", edit(D, W1_0_2=7, b1_0=1), match="θ′ changes more than outgoing weights of hidden "
                                                                   "neurons")
    rejected(read, "dead-neuron", edit(D, W1_0_2=7, W1_0_1=0), match="θ′ changes the outgoing weights of 2 neurons, "
                                                                     "not of exactly one")
    rejected(read, "dead-neuron", edit(D, W1_0_0=7, W2_0_0=0), match="θ′ changes the outgoing weights of 2 neurons, "
                                                                     "not of exactly one")


def test_always_active_construction():
    # δ = 2 into b^1_2 (layer-1 neuron 2), b^2 −= 2·W^2[:, 2] = 2·(−1, 1)
    good = edit(D, b0_1=2, b1_0=2, b1_1=-1)
    c = read("always-active", good)
    assert (c.kind, c.layer, c.neurons, c.premise) == ("always-active", 1, (1,), ("always-active", 1, (1,)))
    assert c.what == "moves δ = 2 from b^2 into the bias of neuron 2 in hidden layer 1"
    assert c.premise_text == "that neuron is always active (no input has z^1_2 < 0)"
    c = read("always-active", edit(D, b1_1=F(3, 2), b2_0=2))       # δ = 1/2 into b^2_2; b^3 = 1 − (1/2)(−2)
    assert c.what == "moves δ = 1/2 from b^3 into the bias of neuron 2 in hidden layer 2" and c.layer == 2
    rejected(read, "always-active", edit(D, W0_0_0=5), match="θ′ shifts no bias")
    rejected(read, "always-active", edit(D, b2_0=9), match="θ′ shifts only the output bias")
    rejected(read, "always-active", edit(D, b0_1=2, b0_2=0, b1_0=2, b1_1=-1),
             match="θ′ shifts the bias of 2 neurons, not of exactly one")
    rejected(read, "always-active", edit(D, b0_1=-2, b1_0=-2, b1_1=3),
             match="the bias shift δ = -2 of neuron (1, 2) must be positive")
    rejected(read, "always-active", edit(D, b0_1=2, b1_0=2, b1_1=0), match="b^2 of θ′ is not b^2 - δ·W^2[:, 2]")
    rejected(read, "always-active", edit(D, b0_1=2), match="b^2 of θ′ is not b^2 - δ·W^2[:, 2]")
    rejected(read, "always-active", edit(D, b0_1=2, b1_0=2, b1_1=-1, W1_0_0=4),
             match="θ′ changes parameters other than b^1_2 and b^2")
    rejected(read, "always-active", edit(D, b0_1=2, b1_0=2, b1_1=-1, W0_1_0=4),
             match="θ′ changes parameters other than b^1_2 and b^2")
    rejected(read, "always-active", edit(D, b0_1=2, b1_0=2, b1_1=-1, b2_0=0),
             match="θ′ changes parameters other than b^1_2 and b^2")
    # D3: δ = 1 into b^1_2 and b^2 −= 1·W^2[:, 2] = (2, 1); then a change two layers up, in the same row
    good3 = edit(D3, b0_1=2, b1_0=-2, b1_1=-2)
    assert read("always-active", good3, a=D3).what == "moves δ = 1 from b^2 into the bias of neuron 2 in hidden layer 1"
    rejected(read, "always-active", edit(good3, b2_1=5), a=D3, match="θ′ changes parameters other than b^1_2 and b^2")


def test_never_coactive_construction():
    c = read("never-coactive", edit(D, W1_1_2=-4))                   # W^2[2, 3] from −1 to −4
    assert (c.kind, c.layer, c.neurons, c.premise) == ("never-coactive", 2, (2, 1), ("never-coactive", 2, (2, 1)))
    assert c.what == "decreases W^2[2, 3]"
    assert c.premise_text == ("neuron 3 of hidden layer 1 and neuron 2 of hidden layer 2 are never co-active (no "
                              "input has z^1_3 > 0 and z^2_2 > 0)")
    rejected(read, "never-coactive", edit(D, W1_1_2=0), match="W^2[2, 3] must decrease")
    for bad in (edit(D, W1_1_2=-4, W1_0_0=0), edit(D, b1_1=0), edit(D, W0_0_0=0), edit(D, W2_0_0=0)):
        rejected(read, "never-coactive", bad, match="θ′ must differ from θ in exactly one weight between two hidden "
                                                    "layers")
    c = read("never-coactive", edit(D3, W2_0_1=0), a=D3)               # between hidden layers 2 and 3
    assert c.premise == ("never-coactive", 3, (1, 0))


def test_zero_outgoing_construction():
    z = N([([[1, 2], [-1, 1]], [1, 0]), ([[1, 0], [2, 0]], [0, 1]), ([[1, -1]], [0])])
    c = read("zero-outgoing", edit(z, W0_1_0=5, b0_1=3), a=z)
    assert (c.kind, c.layer, c.neurons, c.premise) == ("zero-outgoing", 1, (1,), None)
    assert c.what == "changes only the incoming row of neuron 2 in hidden layer 1, whose outgoing weights are 0 " \
                     "(recomputed)"
    assert c.key == ("zero-outgoing", 1, (1,))
    rejected(read, "zero-outgoing", edit(z, W0_0_0=5), a=z, match="neuron 1 of hidden layer 1 has a nonzero outgoing "
                                                                  "weight")
    rejected(read, "zero-outgoing", edit(z, W0_1_0=5, W0_0_0=5), a=z,
             match="θ′ changes the incoming row of 2 neurons, not of exactly one")
    rejected(read, "zero-outgoing", edit(z, W2_0_0=5), a=z, match="θ′ changes more than incoming rows of hidden "
                                                                  "neurons")
    rejected(read, "zero-outgoing", edit(z, W0_1_0=5, b2_0=1), a=z, match="θ′ changes more than incoming rows of "
                                                                          "hidden neurons")
    zl = N([([[1, 2], [-1, 1]], [1, 0]), ([[1, 0], [2, 0]], [0, 3]), ([[1, 0]], [0])])
    c = read("zero-outgoing", edit(zl, W1_1_0=5), a=zl)
    assert (c.layer, c.neurons) == (2, (1,))


def test_proportional_construction():
    # hidden layer 1 of P: neuron 3 = 2 × neuron 1; move column 3 of W^2 onto column 1 (λ = 2)
    P = N([([[1, 2], [-1, 1], [2, 4]], [1, 0, 2]), ([[1, -1, 3], [2, 1, -1]], [0, 1]), ([[1, -2]], [1])])
    good = edit(P, W1_0_0=7, W1_1_0=0, W1_0_2=0, W1_1_2=0)
    c = read("proportional-neurons", good, a=P)
    assert (c.kind, c.layer, c.neurons, c.premise) == ("proportional-neurons", 1, (0, 2), None)
    assert c.what == ("moves the outgoing weights of neuron 3 onto neuron 1 in hidden layer 1, whose rows are "
                      "positively proportional (λ = 2, recomputed)")
    rejected(read, "proportional-neurons", edit(P, W1_0_0=7, W1_1_0=1, W1_0_2=0, W1_1_2=0), a=P,
             match="θ′ is not W^2[:, 1] += λ W^2[:, 3], W^2[:, 3] = 0 with λ = 2")
    rejected(read, "proportional-neurons", edit(P, W1_0_0=7, W1_1_0=0, W1_0_2=0), a=P,
             match="θ′ must move the outgoing weights of one neuron onto another")
    rejected(read, "proportional-neurons", edit(P, W1_0_2=0, W1_1_2=0), a=P,
             match="θ′ must move the outgoing weights of one neuron onto another")
    rejected(read, "proportional-neurons", edit(P, W1_0_0=0, W1_1_0=0, W1_0_2=0, W1_1_2=0), a=P,
             match="θ′ must move the outgoing weights of one neuron onto another")
    rejected(read, "proportional-neurons", edit(P, W1_0_0=7, W1_1_0=0, W1_0_1=0, W1_1_1=0, W1_0_2=0, W1_1_2=0), a=P,
             match="θ′ must move the outgoing weights of one neuron onto another")
    rejected(read, "proportional-neurons", edit(P, W1_0_0=7, W1_0_2=0, W2_0_0=0), a=P,
             match="θ′ changes outgoing weights in more than one layer")
    rejected(read, "proportional-neurons", edit(P, W1_0_0=7, b1_0=5), a=P,
             match="θ′ changes more than outgoing weights of hidden neurons")
    rejected(read, "proportional-neurons", edit(P, W0_0_0=7), a=P,
             match="θ′ changes more than outgoing weights of hidden neurons")
    rejected(read, "proportional-neurons", edit(P, W1_0_1=0, W1_1_1=0, W1_0_0=9), a=P,
             match="the incoming rows of neurons 1 and 2 in hidden layer 1 are not positively proportional")
    c = read("proportional-neurons", edit(P, W1_0_2=F(1, 2) + 3, W1_1_2=-1 + 2 * F(1, 2), W1_0_0=0, W1_1_0=0), a=P)
    assert c.neurons == (2, 0) and "λ = 1/2" in c.what


def test_layer_flip_construction():
    # negate rows 1 and 2 of layer 1 of FLIP2; b^2 += W^2[:, 1]·1 + W^2[:, 2]·0 = (1, 2)
    good = edit(FLIP2, W0_0_0=-1, W0_0_1=-2, b0_0=-1, W0_1_0=1, W0_1_1=2, b0_1=0, b1_0=1, b1_1=3)
    c = read("layer-flip", good, a=FLIP2)
    assert (c.kind, c.layer, c.neurons, c.premise) == ("layer-flip", 1, (0, 1), None)
    assert c.what == "flips F = {1, 2} in hidden layer 1, and Σ_(i∈F) W^(l+1)[:, i] W^l[i, :] = 0 (recomputed)"
    assert c.key == ("layer-flip", 1, (0, 1))
    rejected(read, "layer-flip", edit(FLIP2, b2_0=5), a=FLIP2,
             match="θ′ changes only the output layer: that flips no hidden neuron")
    rejected(read, "layer-flip", edit(good, W0_0_1=2), a=FLIP2, match="row 1 of layer 1 is not negated")
    rejected(read, "layer-flip", edit(good, b0_0=1), a=FLIP2, match="row 1 of layer 1 is not negated")
    rejected(read, "layer-flip", edit(good, W0_2_0=-2, W0_2_1=1, b0_2=-1), a=FLIP2,
             match="the layer-flip identity fails for F = {1, 2, 3}")
    rejected(read, "layer-flip", edit(good, b1_1=2), a=FLIP2,
             match="layer 2 of θ′ is not W^2 with b^2 + Σ_F W^2[:, i] b^1_i")
    rejected(read, "layer-flip", edit(good, W1_1_2=0), a=FLIP2,
             match="layer 2 of θ′ is not W^2 with b^2 + Σ_F W^2[:, i] b^1_i")
    rejected(read, "layer-flip", edit(good, b2_0=1), a=FLIP2, match="θ′ changes other layers")
    # a flip in the last hidden layer compensates in the output bias; a zero-outgoing neuron flips alone
    z = N([([[1, 2], [-1, 1]], [1, 0]), ([[1, 0], [2, 0]], [0, 1]), ([[1, -1]], [0])])
    c = read("layer-flip", edit(z, W0_1_0=1, W0_1_1=-1), a=z)
    assert c.neurons == (1,) and c.layer == 1
    zl = N([([[1, 2], [-1, 1]], [1, 0]), ([[1, 0], [2, 0]], [0, 3]), ([[1, 0]], [0])])
    c = read("layer-flip", edit(zl, W1_1_0=-2, b1_1=-3), a=zl)
    assert (c.layer, c.neurons) == (2, (1,))


def test_construction_decides_the_orbit():
    good = edit(D, W1_0_2=7, W1_1_2=0)
    c = cd.construction(D, good, "dead-neuron")
    assert c.kind == "dead-neuron"
    with pytest.raises(CheckFailed, match=r"^witness: witness architecture \(2, 3, 2, 1\) differs from "
                                          r"\(1, 2, 2, 2, 2\)$"):
        cd.construction(D3, D, "dead-neuron")
    z = N([([[0], [1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])      # the zero row makes the orbit form undefined
    with pytest.raises(CheckFailed, match=r"^witness: cannot decide orbit membership \(zero incoming rows in both "
                                          r"networks\)$"):
        cd.construction(z, edit(z, W1_0_0=3), "dead-neuron")
    # two zero-outgoing neurons with opposite rows: flipping both permutes them
    pair = N([([[1, 2], [-1, -2], [1, 1]], [1, -1, 0]), ([[0, 0, 1]], [0]), ([[1]], [0])])
    swapped = edit(pair, W0_0_0=-1, W0_0_1=-2, b0_0=-1, W0_1_0=1, W0_1_1=2, b0_1=1)
    assert cd._read_construction(ctx(pair), "layer-flip", pair, swapped).neurons == (0, 1)
    with pytest.raises(CheckFailed, match=r"^witness: θ′ lies in the orbit of θ: not a hidden symmetry$"):
        cd.construction(pair, swapped, "layer-flip")


# ---- the deep witness claim ------------------------------------------------------------------------------

def test_deep_witness_claims():
    v = VERIFIERS[ClaimKind.DEEP_WITNESS]
    good = edit(D, W1_0_2=7, W1_1_2=0)
    ev = {"mechanism": "dead-neuron", "network": good.to_dict()}
    assert v(ev, ctx()) == ("θ′ changes only the outgoing weights of neuron 3 in hidden layer 1; it keeps the function "
                            "if that neuron is dead (no input has z^1_3 > 0); outside the orbit (normal forms differ)")
    z = N([([[1, 2], [-1, 1]], [1, 0]), ([[1, 0], [2, 0]], [0, 1]), ([[1, -1]], [0])])
    ev2 = {"mechanism": "zero-outgoing", "network": edit(z, W0_1_0=5).to_dict(), "inputs": [[0, 0], [1, "1/2"]]}
    assert v(ev2, ctx(z)) == ("θ′ changes only the incoming row of neuron 2 in hidden layer 1, whose outgoing weights "
                              "are 0 (recomputed); outside the orbit (normal forms differ); equal at 2 listed inputs "
                              "(a sanity check)")
    # neuron 3 of layer 1 is not dead: the listed inputs show the functions differ
    with pytest.raises(CheckFailed, match=r"θ and θ′ differ at input \['1', '0'\]"):
        v(dict(ev, inputs=[[0, 0], [1, 0]]), ctx())
    with pytest.raises(CheckFailed, match="inputs: every point needs 2 coordinates"):
        v(dict(ev, inputs=[[1]]), ctx())
    with pytest.raises(CheckFailed, match="witness network"):
        v({"mechanism": "dead-neuron", "network": {"format": "nope"}}, ctx())
    with pytest.raises(CheckFailed, match="unknown mechanism None"):
        v({"network": good.to_dict()}, ctx())
    # frozen (read-only, tuple) evidence is thawed first
    from reluid.model.jsondata import freeze
    assert v(freeze(ev), ctx()).startswith("θ′ changes only the outgoing weights of neuron 3")


# ---- side facts --------------------------------------------------------------------------------------------

def test_activity_witnesses():
    v = VERIFIERS[ClaimKind.DEEP_ACTIVITY]
    # at (0, 0): layer 1 pre-activations (1, 0, −1), layer 2: (1·1 − 0 + 0, 2·1 + 0 − 0 + 1) = (1, 3)
    ev = {"points": [[0, 0]], "active": [[1, 0, 0], [2, 1, 0]], "inactive": [[1, 2, 0]], "coactive": [[2, 0, 1, 0]]}
    assert D.preactivations([0, 0]) == ((1, 0, -1), (1, 3))
    assert v(ev, ctx()) == ("2 activity, 1 inactivity and 1 co-activity witnesses at 1 points (recomputed)")
    for key, entry, match in [
        ("active", [1, 1, 0], "neuron 2 of hidden layer 1 is not active at point 1"),
        ("inactive", [1, 1, 0], "neuron 2 of hidden layer 1 is not negative at point 1"),
        ("inactive", [2, 0, 0], "neuron 1 of hidden layer 2 is not negative at point 1"),
        ("coactive", [2, 2, 0, 0], "neuron 3 of hidden layer 1 and neuron 1 of hidden layer 2 are not co-active at "
                                   "point 1"),
        ("coactive", [1, 0, 0, 0], "co-activity needs hidden layer >= 2"),
        ("active", [1, 0, 1], "active: point index 1 out of range"),
        ("active", [1, 0, -1], "active: point index -1 out of range"),
        ("active", [1, 0], "active must be a list of 3-tuples of integers"),
        ("coactive", [2, 0, 0], "coactive must be a list of 4-tuples of integers"),
        ("inactive", [1, True, 0], "inactive must be a list of 3-tuples of integers"),
        ("active", [1, 3, 0], "neuron 4 does not exist in hidden layer 1 (width 3)"),
        ("coactive", [2, 0, 2, 0], "neuron 3 does not exist in hidden layer 2 (width 2)"),
    ]:
        bad = dict(ev, **{key: [entry]})
        with pytest.raises(CheckFailed) as e:
            v(bad, ctx())
        assert e.value.reason == match
    with pytest.raises(CheckFailed, match="active must be a list"):
        v(dict(ev, active="x"), ctx())


def test_no_layer_flip():
    v = VERIFIERS[ClaimKind.DEEP_NO_LAYER_FLIP]
    assert v({"prime": 101, "layers": [1, 2]}, ctx()) == "no layer flip set in hidden layers [1, 2]: full rank " \
                                                         "modulo 101 (recomputed)"
    with pytest.raises(CheckFailed, match="the layer-flip vectors of hidden layer 1 are dependent modulo 101"):
        v({"prime": 101, "layers": [1]}, ctx(FLIP2))
    assert v({"prime": 101, "layers": [2]}, ctx(FLIP2)).startswith("no layer flip set in hidden layers [2]")
    with pytest.raises(CheckFailed, match="hidden layer 3 does not exist"):
        v({"prime": 101, "layers": [3]}, ctx())
    half = N([([["1/3", 1], [1, 2]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])
    with pytest.raises(CheckFailed, match=r"the prime 3 divides a denominator \(1/3\)"):
        v({"prime": 3, "layers": [1]}, ctx(half))


def perturbed(net, p, t):
    """θ + t·e_p, parameters layer by layer, W row-major then b."""
    layers, k = [], 0
    for L in net.layers:
        W = [list(r) for r in L.weight]
        b = list(L.bias)
        for r in range(len(W)):
            for c in range(L.n_in):
                if k == p:
                    W[r][c] += t
                k += 1
        for r in range(len(b)):
            if k == p:
                b[r] += t
            k += 1
        layers.append(Layer(tuple(map(tuple, W)), tuple(b), L.n_in))
    return Network(tuple(layers))


def test_jacobian_rows_are_exact_directional_derivatives():
    rng = random.Random(12)
    for net in (D, D3, FLIP2, random_deep(rng, (2, 3, 2, 2)), random_deep(rng, (3, 2, 2, 2, 1))):
        for _ in range(3):
            x = tuple(F(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(net.input_dim))
            rows, smooth = reference_jacobian_rows(net, x)
            pre = net.preactivations(x)
            assert smooth == all(v != 0 for z in pre for v in z)
            assert len(rows) == net.output_dim and all(len(r) == net.n_params for r in rows)
            if not smooth:
                continue
            t = F(1, 10**9)
            base = net(x)
            for p in range(net.n_params):
                moved = perturbed(net, p, t)
                assert [v > 0 for z in moved.preactivations(x) for v in z] == [v > 0 for z in pre for v in z]
                diff = [(a - b) / t for a, b in zip(moved(x), base)]
                assert [r[p] for r in rows] == diff


def test_jacobian_at_a_kink_is_not_smooth():
    rows, smooth = reference_jacobian_rows(D, (F(0), F(0)))        # layer-1 neuron 2 is exactly 0 there
    assert not smooth and len(rows) == 1


def test_upper_bound():
    """The bound U now lives in reluid/checker/fundim.py (``upper_bound``), next to D − N."""
    assert not hasattr(cd, "_upper_bound")
    assert cfd.upper_bound((2, 3, 1)) == 3 * 3 + 1 * 4 - 3
    assert cfd.upper_bound((2, 3, 2, 1)) == 3 * 3 + 2 * 4 + 1 * 3 - 5
    assert cfd.upper_bound((1, 1, 1, 1, 1)) == 4                  # width-one chain: 2k + 2 < D − Σ hidden = 5
    assert cfd.upper_bound((1, 1, 1, 1, 1, 2)) == 6
    assert cfd.upper_bound((1, 1, 1, 1, 3)) == 8                  # D − Σ hidden = 9 > 2·3 + 2
    assert cfd.upper_bound((1, 1, 1, 1, 1, 3)) == 8
    assert cfd.upper_bound((2, 1, 1, 1, 1)) == 3 + 2 + 2 + 2 - 3  # the input is not width one: no chain bound
    assert cfd.upper_bound((1, 1, 1, 1, 3, 1)) == 16 - 6          # the last hidden layer is not width one
    assert cfd.upper_bound((1, 1, 2)) == 5                        # shallow chain: D − N = 2k + 1 < 2k + 2
    for arch in [(2, 3, 1), (2, 3, 2, 1), (1, 1, 1, 1, 1), (2, 1, 1, 1, 1), (3, 5, 4, 2), (1, 2)]:
        D = sum(b * (a + 1) for a, b in zip(arch, arch[1:]))
        assert cfd.identifiability_bound(arch) == D - sum(arch[1:-1])
        assert cfd.upper_bound(arch) <= cfd.identifiability_bound(arch)


def _exact_rank(rows):
    if not rows:
        return 0
    return flint.fmpq_mat(len(rows), len(rows[0]), [flint.fmpq(v.numerator, v.denominator) for r in rows for v in r]
                          ).rank()


def region_evidence(net, pts, prime, rank=0):
    """functional-dimension evidence listing every region row (i, o, j) of ``pts``.

    The pivots are a maximal independent set of the layer-1 vectors δ^1_o (the gradients of the
    layer-1 biases, read from the exact Jacobian), chosen greedily over Q.
    """
    n0, n1, k = net.input_dim, net.layers[0].n_out, net.output_dim
    d1 = []
    for x in pts:
        rows, smooth = reference_jacobian_rows(net, x)
        assert smooth
        d1 += [rows[o][n1 * n0:n1 * n0 + n1] for o in range(k)]
    # the greedy choice is the rank profile: the pivot columns of rref of the transpose
    R, r = flint.fmpq_mat(n1, len(d1), [flint.fmpq(d[t].numerator, d[t].denominator) for t in range(n1) for d in d1]
                          ).rref()
    pivots, c = [], 0
    for t in range(r):
        while R[t, c] == 0:
            c += 1
        pivots.append([c // k, c % k])
        c += 1
    return {"prime": prime, "rank": rank, "upper_bound": cfd.upper_bound(net.architecture), "n_params": net.n_params,
            "points": [[str(v) for v in x] for x in pts], "pivots": pivots,
            "rows": [[i, o, j] for i in range(len(pts)) for o in range(net.output_dim) for j in range(n0 + 1)]}


def jacobian_rank_near(net, pts, eps=F(1, 10**9)):
    """Exact rank over Q of the Jacobian rows at x and x + ε e_j (j = 1..n0), each in the region of x (the oracle)."""
    J = []
    for x in pts:
        signs = [v > 0 for z in net.preactivations(x) for v in z]
        for j in range(-1, net.input_dim):
            y = tuple(v + (eps if t == j else 0) for t, v in enumerate(x))
            assert [v > 0 for z in net.preactivations(y) for v in z] == signs
            J += reference_jacobian_rows(net, y)[0]
    return _exact_rank(J)


def test_functional_dimension_claims():
    v = VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION]
    U = cfd.upper_bound(D.architecture)
    assert U == 15
    rng = random.Random(13)
    pts = [(F(rng.randint(-90, 90), 10), F(rng.randint(-90, 90), 10)) for _ in range(24)]
    pts = [x for x in pts if all(z != 0 for zs in D.preactivations(x) for z in zs)]
    p = 2**31 - 1
    ev = region_evidence(D, pts, p)
    msg = v(ev, ctx())
    got = int(msg.split(", rank ")[1].split(" ")[0])
    assert got == jacobian_rank_near(D, pts) == U                      # the oracle: the exact rank over Q
    rho = len(ev["pivots"])
    assert msg == f"{len(pts)} generic points (exact), rank {U} = 3·{rho} + {U - 3 * rho} modulo {p} (recomputed): " \
                  f"dim_fun = U = {U} (certified)"
    assert v(dict(ev, rank=U), ctx()) == msg
    # one point: a smaller rank, exactly the oracle's, accepted as claimed and rejected one above
    one = region_evidence(D, pts[:1], p)
    r1 = jacobian_rank_near(D, pts[:1])
    assert r1 < U
    assert v(dict(one, rank=r1), ctx()) == (f"1 generic points (exact), rank {r1} = 3·1 + {r1 - 3} modulo {p} "
                                            f"(recomputed): dim_fun >= {r1}, U = {U}")
    with pytest.raises(CheckFailed, match=f"the region rows at the listed points have rank {r1} modulo {p}, less than "
                                          f"the claimed {r1 + 1}$"):
        v(dict(one, rank=r1 + 1), ctx())
    # fewer rows: the rank the checker finds is again the oracle's (the pivots' rows always count)
    few = dict(ev, rows=[r for r in ev["rows"] if r[0] < 3])
    r3 = jacobian_rank_near(D, [pts[i] for i in sorted({0, 1, 2} | {i for i, _ in ev["pivots"]})])
    assert r3 < U
    with pytest.raises(CheckFailed, match=f"have rank {r3} modulo {p}, less than the claimed {U}$"):
        v(dict(few, rank=U), ctx())
    with pytest.raises(CheckFailed, match=f"claimed rank {U + 1} exceeds the upper bound {U}$"):
        v(dict(ev, rank=U + 1), ctx())
    with pytest.raises(CheckFailed, match=f"the upper bound is {U}, not {U + 1}$"):
        v(dict(ev, upper_bound=U + 1), ctx())
    with pytest.raises(CheckFailed, match=f"the network has {D.n_params} parameters, not 3$"):
        v(dict(ev, n_params=3), ctx())
    with pytest.raises(CheckFailed, match=r"point \['0', '0'\] is not generic: a hidden pre-activation is 0 there "
                                          r"\(not parametrically smooth\)$"):
        v(dict(ev, points=[["0", "0"]] + ev["points"][1:]), ctx())
    with pytest.raises(CheckFailed, match="evidence field 'points' must be a nonempty list of points$"):
        v(dict(ev, points=[], pivots=[], rows=[]), ctx())
    with pytest.raises(CheckFailed, match="'points': not in lowest terms: '2/4'$"):
        v(dict(ev, points=[["2/4", "1"]] + ev["points"][1:]), ctx())
    with pytest.raises(CheckFailed, match=f"pivot \\({len(pts)}, 0\\) names no listed point and output$"):
        v(dict(ev, pivots=ev["pivots"] + [[len(pts), 0]]), ctx())
    with pytest.raises(CheckFailed, match=r"row \(0, 0, 3\) names no listed point, output and slot$"):
        v(dict(ev, rows=ev["rows"] + [[0, 0, 3]]), ctx())
    with pytest.raises(CheckFailed, match="a pivot is listed twice$"):
        v(dict(ev, pivots=ev["pivots"] + ev["pivots"][:1]), ctx())
    assert rho == 3                                                    # = the width of layer 1
    with pytest.raises(CheckFailed, match="4 pivots, but layer 1 has only 3 neurons$"):
        v(dict(ev, pivots=ev["pivots"] + [[i, 0] for i in range(len(pts)) if [i, 0] not in ev["pivots"]][:1]), ctx())
    # two points of one region have the same δ^1: as two pivots they are dependent
    twin = region_evidence(D, [pts[0], (pts[0][0] + F(1, 10**6), pts[0][1])], p)
    assert twin["pivots"] == [[0, 0]]
    with pytest.raises(CheckFailed, match=f"the layer-1 vectors of the 2 pivots are dependent modulo {p} \\(rank 1\\)$"):
        v(dict(twin, pivots=[[0, 0], [1, 0]]), ctx())
    assert v(dict(twin, rank=r1), ctx()).startswith(f"2 generic points (exact), rank {r1} = 3·1 + {r1 - 3} ")
    # a row whose δ^1 is outside the span of the pivots would keep a layer-1 part
    (a, _), (b, _) = ev["pivots"][:2]
    apart = region_evidence(D, [pts[a], pts[b]], p)
    with pytest.raises(CheckFailed, match="the layer-1 vector of point 1, output 0 is not in the span of the pivots "
                                          "\\(its rows would keep a layer-1 part\\)$"):
        v(dict(apart, pivots=[[0, 0]], rows=[[1, 0, 0]]), ctx())
    for bad in (2, -5, 2**63 + 29):
        with pytest.raises(CheckFailed, match=f"{bad} is outside \\[3, 2\\^63\\)$"):
            v(dict(ev, prime=bad), ctx())
    with pytest.raises(CheckFailed, match="= 9 is not prime$"):
        v(dict(ev, prime=9), ctx())
    # primes near 2^62 and 2^63 find the same rank
    assert flint.fmpz(2**62 - 57).is_prime() and flint.fmpz(2**62 + 135).is_prime()
    assert v(dict(ev, prime=2**62 + 135), ctx()).startswith(f"{len(pts)} generic points (exact), rank {U} = ")
    assert v(dict(ev, prime=2**62 - 57), ctx()).startswith(f"{len(pts)} generic points (exact), rank {U} = ")
    half = N([([["1/3", 1], [1, 2]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])
    with pytest.raises(CheckFailed, match=r"the prime 3 divides a denominator \(1/3\)$"):
        v({"prime": 3, "rank": 0, "upper_bound": cfd.upper_bound(half.architecture), "n_params": half.n_params,
           "points": [[1, 1]], "pivots": [[0, 0]], "rows": []}, ctx(half))
    # local identifiability: the same evidence with rank D − N (= U here)
    li = VERIFIERS[ClaimKind.LOCAL_IDENTIFIABILITY]
    assert li(dict(ev, rank=U), ctx()) == (f"{len(pts)} generic points (exact), Jacobian rank {U} = D - N modulo {p} "
                                           "(recomputed), every hidden neuron has a nonzero incoming row: Theorem A1 "
                                           "applies (locally identifiable; says nothing about parameters far from θ)")
    with pytest.raises(CheckFailed, match=f"Theorem A1 needs rank D - N = {U}; the evidence claims {U - 1}$"):
        li(dict(ev, rank=U - 1), ctx())
    with pytest.raises(CheckFailed, match=f"the region rows at the listed points have rank {r1} modulo {p}, less than "
                                          f"D - N = {U}$"):
        li(dict(one, rank=U), ctx())


def test_region_rank_with_many_pivot_terms_for_primes_near_2_62():
    """A reduced row sums (pivot points + 1) products below p²: with p near 2^62 and 80 pivot points that is past
    128 bits.  An earlier checker packed residues into 128-bit slots that carried into each other there, and found
    rank 291 where the listed rows have rank 289; the rank must be exact for every prime."""
    rng = random.Random(1)
    n1 = 80
    W1 = [[rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([-3, -2, -1, 1, 2, 3])] for _ in range(n1)]
    W2 = [[rng.randint(1, 3) for _ in range(n1)]] + [[rng.randint(-3, 3) for _ in range(n1)] for _ in range(2)]
    net = N([(W1, [rng.randint(-20, 20) for _ in range(n1)]), (W2, [1000, 1, -2]), ([[1, 2, 3]], [0])])

    def region(x):
        pre = net.preactivations(x)
        return [z > 0 for zs in pre for z in zs] if all(z != 0 for zs in pre for z in zs) else None

    pts, eps = [], F(1, 64)
    while len(pts) < 300:      # points of (Z/4)², generic, with x + ε e_j in the same region (for the oracle)
        x = (F(rng.randint(-160, 160), 4), F(rng.randint(-160, 160), 4))
        if region(x) is not None and region(x) == region((x[0] + eps, x[1])) == region((x[0], x[1] + eps)):
            pts.append(x)
    ev = region_evidence(net, pts, 0)
    assert len({i for i, _ in ev["pivots"]}) == n1
    exact = jacobian_rank_near(net, pts, eps)
    assert exact == 289 < cfd.upper_bound(net.architecture)
    for p in (67108859, 2**61 - 1, 2**62 - 57):
        got = cfd.region_rank(net, dict(ev, prime=p), Context(net, "c5"))
        assert got.rank == exact, (p, got.rank, exact)
    with pytest.raises(CheckFailed, match=f"have rank {exact} modulo {2**62 - 57}, less than the claimed {exact + 1}$"):
        VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION](dict(ev, prime=2**62 - 57, rank=exact + 1), Context(net, "c5"))


#: D with rational weights and biases (denominators 3, 5, 7): residues need the inverses of the denominators
DQ = N([([["1/3", 2], [-1, "2/5"], [2, -1]], ["1/7", 0, -1]), ([[1, "-1/3", 2], ["2/5", 1, -1]], [0, "1/3"]),
        ([[1, "-2/7"]], [1])])


def test_functional_dimension_with_rational_weights_matches_the_exact_rank():
    v = VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION]
    rng = random.Random(3)
    pts = [(F(rng.randint(-90, 90), 10), F(rng.randint(-90, 90), 10)) for _ in range(24)]
    pts = [x for x in pts if all(z != 0 for zs in DQ.preactivations(x) for z in zs)]
    for p in (2**31 - 1, 1000003):
        ev = region_evidence(DQ, pts, p)
        msg = v(ev, ctx(DQ))
        assert int(msg.split(", rank ")[1].split(" ")[0]) == jacobian_rank_near(DQ, pts)
        few = region_evidence(DQ, pts[:2], p)
        r2 = jacobian_rank_near(DQ, pts[:2])
        assert v(dict(few, rank=r2), ctx(DQ)).startswith(f"2 generic points (exact), rank {r2} = ")
        with pytest.raises(CheckFailed, match=f"have rank {r2} modulo {p}, less than the claimed {r2 + 1}$"):
            v(dict(few, rank=r2 + 1), ctx(DQ))


def _generic(net, pts):
    return [x for x in pts if all(z != 0 for zs in net.preactivations(x) for z in zs)]


def test_functional_dimension_index_bounds_are_exact():
    """The last valid index of every field is accepted, one past it is rejected by name."""
    v = VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION]
    pts = _generic(D, [(F(1, 3), F(2, 7)), (F(-5, 2), F(3, 4)), (F(7, 3), F(-1, 5)), (F(-3, 7), F(-9, 4))])[:2]
    ev = region_evidence(D, pts, 2**31 - 1)
    last = len(pts) - 1
    assert v(dict(ev, rows=[[last, 0, 2]]), ctx())                         # point, output and slot at their ends
    for row in ([len(pts), 0, 0], [0, 1, 0], [0, 0, 3], [-1, 0, 0]):        # k = 1, n0 + 1 = 3 slots
        with pytest.raises(CheckFailed, match=rf"row \({row[0]}, {row[1]}, {row[2]}\) names no listed point, "
                                              "output and slot$"):
            v(dict(ev, rows=[row]), ctx())
    for piv in ([len(pts), 0], [0, 1], [-1, 0]):
        with pytest.raises(CheckFailed, match=rf"pivot \({piv[0]}, {piv[1]}\) names no listed point and output$"):
            v(dict(ev, pivots=[piv]), ctx())


def test_functional_dimension_without_pivots_or_rows():
    v = VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION]
    pts = _generic(D, [(F(1, 3), F(2, 7)), (F(-5, 2), F(3, 4)), (F(7, 3), F(-1, 5))])[:1]
    ev = region_evidence(D, pts, 2**31 - 1)
    rho = len(ev["pivots"])
    assert rho == 1
    # no rows: the rank is the pivots' (n0 + 1 per pivot) and nothing else
    assert v(dict(ev, rows=[], rank=3 * rho), ctx()) == (f"1 generic points (exact), rank {3 * rho} = 3·{rho} + 0 "
                                                        f"modulo {2**31 - 1} (recomputed): dim_fun >= {3 * rho}, U = 15")
    with pytest.raises(CheckFailed, match=f"have rank {3 * rho} modulo {2**31 - 1}, less than the claimed {3 * rho + 1}$"):
        v(dict(ev, rows=[], rank=3 * rho + 1), ctx())
    # rows but no pivots: a nonzero layer-1 vector cannot be reduced
    with pytest.raises(CheckFailed, match="the layer-1 vector of point 0, output 0 is nonzero and there are no "
                                          "pivots$"):
        v(dict(ev, pivots=[], rows=[[0, 0, 0]]), ctx())


#: rational weights with a value relation: layer-1 neurons 1 and 2 positively proportional (row and bias ×2), so
#: the Jacobian loses rank through the values themselves, and residues computed without the denominators'
#: inverses would not see it
DQP = N([([["1/3", "2/5"], ["2/3", "4/5"], [2, -1]], ["1/7", "2/7", -1]),
         ([[1, "-1/3", 2], ["2/5", 1, -1]], [0, "1/3"]), ([[1, "-2/7"]], [1])])


def test_functional_dimension_sees_a_rank_loss_that_lives_in_rational_values():
    v = VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION]
    rng = random.Random(4)
    pts = _generic(DQP, [(F(rng.randint(-90, 90), 10), F(rng.randint(-90, 90), 10)) for _ in range(40)])
    truth = jacobian_rank_near(DQP, pts)
    assert truth < cfd.upper_bound(DQP.architecture)               # the proportional pair costs rank
    for p in (2**31 - 1, 1000003):
        ev = region_evidence(DQP, pts, p)
        assert v(dict(ev, rank=truth), ctx(DQP)).split(", rank ")[1].startswith(f"{truth} ")
        with pytest.raises(CheckFailed, match=f"have rank {truth} modulo {p}, less than the claimed {truth + 1}$"):
            v(dict(ev, rank=truth + 1), ctx(DQP))


def test_functional_dimension_evidence_fields_are_named_with_the_claim():
    v = VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION]
    pts = _generic(D, [(F(1, 3), F(2, 7)), (F(-5, 2), F(3, 4)), (F(7, 3), F(-1, 5))])[:1]
    ev = region_evidence(D, pts, 2**31 - 1)
    for change, reason in [
            (dict(rank="3/2"), "evidence field 'rank': '3/2' is not an integer"),
            (dict(prime=True), "evidence field 'prime' must be an integer, got True"),
            (dict(pivots=[[0]]), "evidence field 'pivots' must be a list of 2-tuples of integers"),
            (dict(rows="x"), "evidence field 'rows' must be a list of 3-tuples of integers"),
            (dict(rows=[[0, 0, "1/2"]]), "evidence field 'rows': '1/2' is not an integer"),
            (dict(points=[["1"]]), "evidence field 'points': every point needs 2 coordinates")]:
        with pytest.raises(CheckFailed) as e:
            v(dict(ev, **change), ctx(cid="c9"))
        assert (e.value.claim, e.value.reason) == ("c9", reason)
