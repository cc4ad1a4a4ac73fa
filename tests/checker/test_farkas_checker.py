"""The Farkas-tree checker's parts (reluid/checker/farkas.py) against an independent construction of the rows.

The rows of every leaf (docs/mathematics.md §6.1: per scope neuron z ≥ 0, −z ≥ 0
or h ≥ 0, h − z ≥ 0; then the closed and the strict conditions) are rebuilt
here with Fractions, from the definition, and compared with the checker's; the
leaf test (Σ y a + Σ μ a = 0, Σ y β + Σ μ β ≤ 0, and < 0 or μ ≠ 0) is compared
with its definition on the prover's certificates and on scaled, shifted and
pruned copies of them; every rejection is triggered with its exact message.
"""

from __future__ import annotations

import copy
import random
from fractions import Fraction

import pytest

from reluid.analysis.deep.farkas import prove_no_input
from reluid.checker import farkas as ck
from reluid.checker.farkas import FORMAT, verify_no_input
from reluid.errors import CheckFailed
from reluid.model.jsondata import thaw
from reluid.model.network import Network
from reluid.verdicts import Outcome
from tests.analysis.deep.test_farkas import COACTIVE, DEAD_L1, DEAD_MIXED, DEAD_ORTHANT, KINK, KINK3
from tests.strategies import random_conditions, random_deep

N = Network.from_lists
F = Fraction


def reason(net, conds, ev, **kw):
    with pytest.raises(CheckFailed) as e:
        verify_no_input(net, conds, ev, **kw)
    return e.value.reason


def leaf_ev(closed, strict, scope_layers=0):
    return {"format": FORMAT, "scope_layers": scope_layers, "tree": {"leaf": {"closed": closed, "strict": strict}}}


# ---- an independent construction of the rows -------------------------------------------------------

def rows_by_definition(net, conds, sigma):
    L = max(c[0] for c in conds)
    n0 = net.input_dim
    S = sum(net.hidden_widths[:L - 1])
    nv = n0 + S

    def unit(c):
        v = [F(0)] * (nv + 1)
        v[c] = F(1)
        return v

    post = [unit(c) for c in range(n0)]
    z, closed, k = {}, [], 0
    for l in range(1, L + 1):
        layer = net.layers[l - 1]
        zl = []
        for i in range(layer.n_out):
            v = [F(0)] * nv + [layer.bias[i]]
            for c, w in enumerate(layer.weight[i]):
                v = [a + w * b for a, b in zip(v, post[c])]
            zl.append(v)
        z[l] = zl
        if l == L:
            break
        new = []
        for i in range(layer.n_out):
            s = sigma[k]
            if s > 0:
                closed.append(zl[i])
                new.append(zl[i])
            elif s < 0:
                closed.append([-x for x in zl[i]])
                new.append([F(0)] * (nv + 1))
            else:
                closed.append(unit(n0 + k))
                closed.append([a - b for a, b in zip(unit(n0 + k), zl[i])])
                new.append(unit(n0 + k))
            k += 1
        post = new
    for l, i, sg in conds:
        if sg in (">=0", "<=0"):
            closed.append(z[l][i] if sg == ">=0" else [-x for x in z[l][i]])
    strict = [z[l][i] if sg == ">0" else [-x for x in z[l][i]] for l, i, sg in conds if sg in (">0", "<0")]
    return closed, strict


def checker_rows(net, conds, sigma):
    p = ck._Problem(net, tuple(conds))
    rows = ck._Rows(p, list(sigma))

    def frac(desc):
        vec, den = rows.row(desc)
        assert den > 0
        return [F(x, den) for x in vec]

    return [frac(d) for d in rows.closed], [frac(d) for d in rows.strict]


def random_net(rng, arch):
    layers = []
    for a, b in zip(arch, arch[1:]):
        W = [[F(rng.randint(-3, 3), rng.choice([1, 1, 2, 3])) for _ in range(a)] for _ in range(b)]
        layers.append((W, [F(rng.randint(-3, 3), rng.choice([1, 2, 5])) for _ in range(b)]))
    return N(layers)


def test_rows_agree_with_the_definition():
    rng = random.Random(1)
    for t in range(150):
        arch = (rng.randint(1, 3),) + tuple(rng.randint(1, 3) for _ in range(rng.randint(1, 3))) + (1,)
        net = random_net(rng, arch)
        hidden = net.hidden_widths
        conds = []
        for _ in range(rng.randint(1, 3)):
            l = rng.randint(1, len(hidden))
            conds.append((l, rng.randrange(hidden[l - 1]), rng.choice(ck.SIGNS)))
        L = max(c[0] for c in conds)
        S = sum(hidden[:L - 1])
        sigma = [rng.choice((-1, 0, 1)) for _ in range(S)]
        assert checker_rows(net, conds, sigma) == rows_by_definition(net, conds, sigma), (net, conds, sigma)


def test_problem_and_scope():
    conds = ((3, 1, ">0"), (1, 0, "<=0"), (3, 0, ">=0"))
    p = ck._Problem(KINK3, conds)
    assert (p.L, p.n0, p.S, p.nv) == (3, 1, 5, 6)
    assert p.offset == {1: 0, 2: 2}
    assert p.scope_index == {(1, 0): 0, (1, 1): 1, (2, 0): 2, (2, 1): 3, (2, 2): 4}
    assert p.condition_neurons == {1: [0], 2: [], 3: [0, 1]}
    assert ck.scope_of(KINK3, conds) == ((1, 0), (1, 1), (2, 0), (2, 1), (2, 2))
    assert ck.scope_of(KINK3, [(1, 0, ">0")]) == ()
    assert ck.scope_of(KINK3, [(2, 2, ">0"), (1, 0, ">0")]) == ((1, 0), (1, 1))
    assert set(p.layers) == {1, 2, 3}


def test_integer_layers():
    layer = N([([["1/2", 3], [F(-2, 3), 0]], ["1/4", 1]), ([[1, 1]], [0])]).layers[0]
    assert ck._integer_layer(layer) == (12, [[6, 36], [-8, 0]], [3, 12])
    layer = N([([[2, 3]], [5]), ([[1]], [0])]).layers[0]
    assert ck._integer_layer(layer) == (1, [[2, 3]], [5])
    layer = N([([[1, 2]], ["7/6"]), ([[1]], [0])]).layers[0]        # the bias alone sets D
    assert ck._integer_layer(layer) == (6, [[6, 12]], [7])


# ---- the leaf test against its definition -----------------------------------------------------------

def leaf_is_valid(net, conds, sigma, leaf):
    closed, strict = rows_by_definition(net, conds, sigma)
    nv = len(closed[0] if closed else strict[0]) - 1
    comb = [F(0)] * (nv + 1)
    for key, rows in (("closed", closed), ("strict", strict)):
        for idx, val in leaf[key]:
            comb = [a + F(val) * b for a, b in zip(comb, rows[idx])]
    return not any(comb[:nv]) and comb[nv] <= 0 and (comb[nv] < 0 or bool(leaf["strict"]))


def leaves_with_sigma(problem_net, conds, tree):
    L = max(c[0] for c in conds)
    scope = ck.scope_of(problem_net, conds)
    index = {t: k for k, t in enumerate(scope)}
    stack, out = [(tree, [0] * len(scope))], []
    while stack:
        node, sigma = stack.pop()
        if "leaf" in node:
            out.append((node["leaf"], sigma))
        else:
            k = index[tuple(node["split"])]
            for s, key in ((1, "pos"), (-1, "neg")):
                child = list(sigma)
                child[k] = s
                stack.append((node[key], child))
    assert L >= 1
    return out


def certificates(count):
    out = []
    for t in range(count):
        rng = random.Random(f"leaf-{t}")
        arch = (rng.randint(1, 3), rng.randint(2, 3), rng.randint(1, 3), 1)
        net = random_deep(rng, arch, dyadic=t % 2 == 0)
        conds = random_conditions(rng, net)
        r = prove_no_input(net, conds)
        if r.outcome is Outcome.NONE:
            out.append((net, conds, thaw(r.evidence)))
    for net, conds in ((DEAD_ORTHANT, [(2, 0, ">0")]), (DEAD_MIXED, [(2, 0, ">0")]), (KINK, [(1, 0, "<0"), (2, 0, ">0")]),
                       (COACTIVE, [(1, 0, ">0"), (2, 0, ">0")]), (KINK3, [(2, 0, "<0"), (3, 0, ">0")])):
        out.append((net, conds, thaw(prove_no_input(net, conds).evidence)))
    return out


CERTS = certificates(60)


def single_leaf(net, conds, sigma, leaf):
    """Verify one leaf through _check_leaf (raises _Fail when the checker rejects it)."""
    p = ck._Problem(net, tuple(conds))
    ck._check_leaf(p, list(sigma), leaf, "here")


def test_leaf_test_agrees_with_its_definition():
    rng = random.Random(2)
    outcomes = {True: 0, False: 0}
    for net, conds, ev in CERTS:
        for leaf, sigma in leaves_with_sigma(net, conds, ev["tree"]):
            variants = [leaf]
            scale = F(rng.randint(1, 5), rng.randint(1, 5))
            variants.append({k: [[i, str(F(v) * scale) if F(v) * scale != int(F(v) * scale)
                                  else int(F(v) * scale)] for i, v in leaf[k]] for k in ("closed", "strict")})
            for key in ("closed", "strict"):
                for j in range(len(leaf[key])):
                    v = copy.deepcopy(leaf)
                    del v[key][j]
                    variants.append(v)
                    v = copy.deepcopy(leaf)
                    v[key][j][1] = str(F(v[key][j][1]) + F(1, 3))
                    variants.append(v)
            closed, strict = rows_by_definition(net, conds, sigma)
            for key, rows in (("closed", closed), ("strict", strict)):
                used = {i for i, _ in leaf[key]}
                free = [i for i in range(len(rows)) if i not in used]
                if free:
                    v = copy.deepcopy(leaf)
                    v[key] = sorted(v[key] + [[rng.choice(free), 1]])
                    variants.append(v)
            for v in variants:
                truth = leaf_is_valid(net, conds, sigma, v)
                outcomes[truth] += 1
                if truth:
                    single_leaf(net, conds, sigma, v)
                else:
                    with pytest.raises(ck._Fail):
                        single_leaf(net, conds, sigma, v)
    assert outcomes[True] > 60 and outcomes[False] > 100


def test_leaf_boundaries():
    # z^1_0 = −1 on DEAD_L1: the strict row is −1 (> 0 impossible); the closed ">=0" row is −1 as well
    assert verify_no_input(DEAD_L1, [(1, 0, ">0")], leaf_ev([], [[0, 1]])) == 1            # −1 < 0, μ ≠ 0
    assert verify_no_input(DEAD_L1, [(1, 0, ">=0")], leaf_ev([[0, 1]], [])) == 1           # −1 < 0 with μ = 0
    # z^1_1 = x_0 + x_1: x_0 + x_1 > 0 and −(x_0 + x_1) ≥ 0 (rows sum to 0 with μ ≠ 0)
    conds = [(1, 1, "<=0"), (1, 1, ">0")]
    assert verify_no_input(DEAD_L1, conds, leaf_ev([[0, 1]], [[0, 1]])) == 1
    assert reason(DEAD_L1, [(1, 1, "<=0"), (1, 1, ">=0")], leaf_ev([[0, 1], [1, 1]], [])) == \
        "root: the combination is 0 with no strict row: no contradiction"
    assert reason(DEAD_L1, conds, leaf_ev([[0, 2]], [[0, 1]])) == \
        "root: the combination of the rows is not constant (coefficient of x_0 is -1)"
    assert reason(DEAD_L1, [(1, 1, ">0")], leaf_ev([], [[0, "1/2"]])) == \
        "root: the combination of the rows is not constant (coefficient of x_0 is 1/2)"
    assert reason(DEAD_L1, [(1, 0, "<0")], leaf_ev([], [[0, 3]])) == \
        "root: the combination of the rows is the constant 3 > 0"
    assert reason(DEAD_L1, [(1, 0, "<0")], leaf_ev([], [[0, 1]])) == \
        "root: the combination of the rows is the constant 1 > 0"             # the smallest positive integer
    assert reason(DEAD_L1, [(1, 0, "<0")], leaf_ev([], [[0, "3/2"]])) == \
        "root: the combination of the rows is the constant 3/2 > 0"
    assert reason(DEAD_L1, [(1, 0, "<0")], leaf_ev([], [[0, "1/7"]])) == \
        "root: the combination of the rows is the constant 1/7 > 0"
    # a coefficient on an h variable (scope neuron 2 = layer-1 neuron 1 of DEAD_ORTHANT, undecided)
    assert reason(DEAD_ORTHANT, [(2, 0, ">0")], leaf_ev([[2, 1]], [], scope_layers=1)) == \
        "root: the combination of the rows is not constant (coefficient of h of scope neuron 1 is 1)"
    assert reason(DEAD_ORTHANT, [(2, 1, ">0")], leaf_ev([], [[0, 1]], scope_layers=1)) == \
        "root: the combination of the rows is not constant (coefficient of h of scope neuron 0 is 1)"


def test_row_indices():
    # DEAD_ORTHANT, scope 2 undecided neurons: 4 closed rows (+1 per closed condition), 1 strict row
    conds = [(2, 0, ">0"), (2, 1, "<=0")]
    good = [[0, 1], [2, 2]]
    assert verify_no_input(DEAD_ORTHANT, [(2, 0, ">0")], leaf_ev(good, [[0, 1]], 1)) == 1
    assert reason(DEAD_ORTHANT, conds, leaf_ev(good + [[5, 1]], [[0, 1]], 1)) == \
        "closed row index 5 out of range (the leaf has 5 closed rows)"
    assert reason(DEAD_ORTHANT, conds, leaf_ev(good, [[0, 1], [1, 1]], 1)) == \
        "strict row index 1 out of range (the leaf has 1 strict rows)"
    assert reason(DEAD_ORTHANT, conds, leaf_ev([[-1, 1]] + good, [[0, 1]], 1)) == \
        "closed row index -1 out of range (the leaf has 5 closed rows)"
    assert reason(DEAD_ORTHANT, conds, leaf_ev([[2, 2], [0, 1]], [[0, 1]], 1)) == \
        "closed row indices must be strictly increasing (0 after 2)"
    assert reason(DEAD_ORTHANT, conds, leaf_ev([[0, 1], [0, 1]], [[0, 1]], 1)) == \
        "closed row indices must be strictly increasing (0 after 0)"
    assert verify_no_input(DEAD_ORTHANT, conds, leaf_ev([[0, 1], [2, 2]], [[0, 1]], 1)) == 1
    assert reason(DEAD_ORTHANT, conds, leaf_ev([[0, 1, 2]], [[0, 1]], 1)) == \
        "closed multiplier [0, 1, 2] is not an [index, value] pair"
    assert reason(DEAD_ORTHANT, conds, leaf_ev([["0", 1]], [[0, 1]], 1)) == \
        "closed multiplier ['0', 1] is not an [index, value] pair"
    assert reason(DEAD_ORTHANT, conds, leaf_ev([[True, 1]], [[0, 1]], 1)) == \
        "closed multiplier [True, 1] is not an [index, value] pair"
    assert reason(DEAD_ORTHANT, conds, leaf_ev({}, [[0, 1]], 1)) == \
        "closed multipliers must be a list of [index, value] pairs"
    assert reason(DEAD_ORTHANT, conds, leaf_ev(good, "x", 1)) == \
        "strict multipliers must be a list of [index, value] pairs"
    # a decided neuron has one closed row (z ≥ 0 or −z ≥ 0), an undecided one two
    split = {"split": [1, 0], "pos": {"leaf": {"closed": [[0, 1], [1, 2]], "strict": [[0, 1]]}},
             "neg": {"leaf": {"closed": [[1, 2]], "strict": [[0, 1]]}}}
    ev = {"format": FORMAT, "scope_layers": 1, "tree": split}
    assert verify_no_input(DEAD_ORTHANT, [(2, 0, ">0"), (2, 1, "<=0")], ev) == 2
    split["pos"]["leaf"]["closed"] = [[0, 1], [1, 2], [4, 1]]
    assert reason(DEAD_ORTHANT, [(2, 0, ">0"), (2, 1, "<=0")], ev) == \
        "closed row index 4 out of range (the leaf has 4 closed rows)"


def test_multipliers():
    assert ck._multiplier(3) == 3 and ck._multiplier("3/4") == F(3, 4) and ck._multiplier(1) == 1
    for v, msg in [(0, "multiplier 0 is not positive (list only the nonzero multipliers, all > 0)"),
                   (-2, "multiplier -2 is not positive (list only the nonzero multipliers, all > 0)"),
                   ("-1/2", "multiplier '-1/2' is not positive (list only the nonzero multipliers, all > 0)"),
                   ("4/2", "multiplier '4/2': not in lowest terms: '4/2'"),
                   ("3/1", "multiplier '3/1': '3/1': an integer is written 'p', not 'p/1'"),
                   ("1/0", "multiplier '1/0': not an integer or 'p/q' string: '1/0'"),
                   ("01/2", "multiplier '01/2': not an integer or 'p/q' string: '01/2'"),
                   ("-0/3", "multiplier '-0/3': not an integer or 'p/q' string: '-0/3'"),
                   (1.5, "multiplier 1.5 is not an integer or a 'p/q' string"),
                   (True, "multiplier True is not an integer or a 'p/q' string"),
                   ("7", "multiplier '7' is not an integer or a 'p/q' string"),
                   ("1/2 ", "multiplier '1/2 ' is not an integer or a 'p/q' string")]:
        with pytest.raises(ck._Fail) as e:
            ck._multiplier(v)
        assert str(e.value) == msg
    with pytest.raises(ck._Fail) as e:
        ck._multiplier("1" * 50 + "/1")
    assert str(e.value) == ("multiplier '" + "1" * 40 + "': '" + "1" * 50 + "/1': an integer is written 'p', "
                            "not 'p/1'")
    long = "9" * 100 + "/7"
    with pytest.raises(ck._Fail) as e:
        ck._multiplier("-" + long)
    assert str(e.value) == "multiplier '-" + "9" * 58 + " is not positive (list only the nonzero multipliers, all > 0)"
    with pytest.raises(ck._Fail) as e:
        ck._multiplier([1] * 40)
    assert str(e.value) == "multiplier " + repr([1] * 40)[:60] + " is not an integer or a 'p/q' string"
    with pytest.raises(ck._Fail) as e:
        ck._multiplier("2" * 50 + "/4")
    assert str(e.value) == "multiplier '" + "2" * 40 + "': not in lowest terms: '" + "2" * 50 + "/4'"
    assert ck._multipliers([[0, 1], [3, "1/2"]], 4, "closed") == [(0, F(1)), (3, F(1, 2))]
    assert ck._multipliers((), 0, "closed") == []


# ---- the tree ---------------------------------------------------------------------------------------

LEAF = {"leaf": {"closed": [], "strict": [[0, 1]]}}


def test_tree_messages():
    conds = [(2, 0, ">0")]

    def tree_ev(tree, sl=1):
        return {"format": FORMAT, "scope_layers": sl, "tree": tree}

    split = {"split": [1, 0], "pos": copy.deepcopy(LEAF), "neg": {"leaf": {"closed": [], "strict": []}}}
    assert reason(DEAD_ORTHANT, conds, tree_ev(split)) == \
        "root/pos[1, 0]: the combination of the rows is not constant (coefficient of x_0 is -1)"
    split["pos"], split["neg"] = split["neg"], split["pos"]
    assert reason(DEAD_ORTHANT, conds, tree_ev(split)) == \
        "root/pos[1, 0]: the combination is 0 with no strict row: no contradiction"
    deep = {"split": [1, 0], "pos": {"split": [1, 1], "pos": {"leaf": {"closed": []}}, "neg": LEAF}, "neg": LEAF}
    assert reason(DEAD_ORTHANT, conds, tree_ev(deep)) == \
        "root/pos[1, 0]/pos[1, 1]: a leaf is {'closed': [...], 'strict': [...]}"
    again = {"split": [1, 0], "pos": {"split": [1, 0], "pos": LEAF, "neg": LEAF}, "neg": LEAF}
    assert reason(DEAD_ORTHANT, conds, tree_ev(again)) == \
        "root/pos[1, 0]: neuron [1, 0] is already decided on this branch"
    # one scope neuron (the first layer of KINK has 3 neurons; a network with a single one)
    one = N([([[1]], [0]), ([[-1]], [-1]), ([[1]], [0])])
    chain = {"split": [1, 0], "pos": {"split": [1, 0], "pos": LEAF, "neg": LEAF}, "neg": LEAF}
    assert reason(one, [(2, 0, ">0")], tree_ev(chain)) == "root/pos[1, 0]: the tree is deeper than the scope (1 neurons)"
    assert reason(DEAD_ORTHANT, conds, tree_ev({"split": [2, 0], "pos": LEAF, "neg": LEAF})) == \
        "root: neuron [2, 0] is not in the scope (hidden layers 1..1)"
    assert reason(DEAD_ORTHANT, conds, tree_ev({"split": (1, 0, 0), "pos": LEAF, "neg": LEAF})) == \
        "root: split must name [layer, neuron], got (1, 0, 0)"
    assert reason(DEAD_ORTHANT, conds, tree_ev({"split": [1, 0], "pos": LEAF})) == \
        "root: a split node has exactly the keys 'split', 'pos' and 'neg'"
    assert reason(DEAD_ORTHANT, conds, tree_ev({"leaf": LEAF["leaf"], "x": 1})) == \
        "root: a leaf node has the single key 'leaf'"
    assert reason(DEAD_ORTHANT, conds, tree_ev({"split": [1, 0], "pos": 3, "neg": LEAF})) == \
        "root/pos[1, 0]: a node must be an object, got int"
    assert reason(DEAD_ORTHANT, conds, tree_ev({"what": 1})) == "root: a node is {'split', 'pos', 'neg'} or {'leaf'}"
    assert reason(DEAD_ORTHANT, conds, tree_ev(LEAF, sl=0)) == \
        "scope_layers must be 1 (the largest condition layer minus 1), got 0"
    assert reason(DEAD_ORTHANT, conds, tree_ev(LEAF, sl="1")) == \
        "scope_layers must be 1 (the largest condition layer minus 1), got '1'"
    assert reason(DEAD_ORTHANT, conds, {"format": "x" * 100, "scope_layers": 1, "tree": LEAF}) == \
        "format must be 'reluid.farkas-tree/1', got " + repr("x" * 100)[:60]
    assert reason(DEAD_ORTHANT, conds, {"format": FORMAT, "tree": LEAF}) == \
        "evidence must be {'format', 'scope_layers', 'tree'}"


def test_leaf_and_node_budgets():
    conds = [(2, 0, ">0")]
    ev = thaw(prove_no_input(DEAD_MIXED, conds).evidence)
    n = verify_no_input(DEAD_MIXED, conds, ev)
    assert n >= 2
    assert verify_no_input(DEAD_MIXED, conds, ev, max_leaves=n) == n
    # a tree with more than max_leaves leaves has more than 2·max_leaves nodes, met first (leaves need splits)
    assert reason(DEAD_MIXED, conds, ev, max_leaves=n - 1) == f"the tree has more than {2 * (n - 1)} nodes"
    # two splits before the first leaf: with one leaf allowed, the node budget (2) is met first
    net = N([([[1], [1], [-1]], [0, -1, 0]), ([[-1, 1, 0], [1, -2, 1]], [-1, 0]), ([[1, 1]], [0])])
    chain = {"split": [1, 0], "neg": LEAF, "pos": {"split": [1, 1], "neg": LEAF, "pos": LEAF}}
    ev = {"format": FORMAT, "scope_layers": 1, "tree": chain}
    assert reason(net, conds, ev, max_leaves=1) == "the tree has more than 2 nodes"


def test_conditions_are_read_exactly():
    ev = leaf_ev([], [[0, 1]])
    for conds, msg in [
        ([], "the conditions must be a non-empty list of (layer, neuron, sign)"),
        ("1", "the conditions must be a non-empty list of (layer, neuron, sign)"),
        ([(1, 0)], "condition (1, 0) is not a (layer, neuron, sign) triple"),
        ([7], "condition 7 is not a (layer, neuron, sign) triple"),
        ([(1, 0, ">")], "condition (1, 0, '>'): layer and neuron must be integers, sign one of "
                        "('>0', '<0', '>=0', '<=0')"),
        ([(True, 0, ">0")], "condition (True, 0, '>0'): layer and neuron must be integers, sign one of "
                            "('>0', '<0', '>=0', '<=0')"),
        ([(1, 0.0, ">0")], "condition (1, 0.0, '>0'): layer and neuron must be integers, sign one of "
                           "('>0', '<0', '>=0', '<=0')"),
        ([(0, 0, ">0")], "condition (0, 0, '>0'): the network has hidden layers 1..2"),
        ([(3, 0, ">0")], "condition (3, 0, '>0'): the network has hidden layers 1..2"),
        ([(1, 3, ">0")], "condition (1, 3, '>0'): hidden layer 1 has 3 neurons"),
        ([(1, -1, ">0")], "condition (1, -1, '>0'): hidden layer 1 has 3 neurons"),
        ([(2, 2, ">0")], "condition (2, 2, '>0'): hidden layer 2 has 2 neurons"),
    ]:
        assert reason(DEAD_L1, conds, ev) == msg
    assert verify_no_input(DEAD_L1, [[1, 0, ">0"]], ev) == 1
    assert verify_no_input(DEAD_L1, ((1, 0, ">0"),), ev, claim="mine") == 1
    with pytest.raises(CheckFailed) as e:
        verify_no_input(DEAD_L1, [], ev, claim="mine")
    assert e.value.claim == "mine"
    with pytest.raises(CheckFailed) as e:
        verify_no_input(DEAD_L1, [], ev)
    assert e.value.claim == "farkas-tree"
    assert reason("net", [(1, 0, ">0")], ev) == "expected a Network, got str"


def test_a_recursion_error_becomes_a_rejection():
    """Evidence objects whose inspection recurses without end are rejected as nested too deeply."""
    from collections.abc import Mapping

    class Bottomless(Mapping):
        def __getitem__(self, key):
            raise RecursionError

        def __iter__(self):
            raise RecursionError

        def __len__(self):
            return 3

    with pytest.raises(CheckFailed) as e:
        verify_no_input(DEAD_L1, [(1, 0, ">0")], Bottomless(), claim="deep")
    assert (e.value.claim, e.value.reason) == ("deep", "evidence nested too deeply")
