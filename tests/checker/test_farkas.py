"""The Farkas-tree checker (docs/certificates.md): what it accepts, and every forgery it must reject."""

from __future__ import annotations

import ast
import copy
import json
import random

import pytest

import reluid.checker.farkas as checker
from reluid.analysis.deep.farkas import prove_no_input
from reluid.checker.farkas import FORMAT, verify_no_input
from reluid.errors import CheckFailed
from reluid.model import Network
from reluid.model.jsondata import freeze, thaw
from reluid.verdicts import Outcome
from tests.analysis.deep.test_farkas import COACTIVE, DEAD_L1, DEAD_MIXED, DEAD_ORTHANT, KINK, KINK3, PLANTED
from tests.strategies import random_conditions, random_deep

N = Network.from_lists


def cert(net, conds):
    r = prove_no_input(net, conds)
    assert r.outcome is Outcome.NONE
    return thaw(r.evidence)


def rejects(net, conds, evidence, match=None):
    with pytest.raises(CheckFailed, match=match):
        verify_no_input(net, conds, evidence)


def leaves_of(tree):
    stack, out = [tree], []
    while stack:
        t = stack.pop()
        if "leaf" in t:
            out.append(t["leaf"])
        else:
            stack += [t["pos"], t["neg"]]
    return out


def first_split(tree):
    assert "split" in tree
    return tree


# ---- acceptance ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name,net,conds", PLANTED, ids=[p[0] for p in PLANTED])
def test_accepts_the_provers_certificates_plain_and_frozen(name, net, conds):
    ev = cert(net, conds)
    n = verify_no_input(net, conds, ev)
    assert n == len(leaves_of(ev["tree"]))
    assert verify_no_input(net, conds, freeze(ev)) == n
    assert verify_no_input(net, tuple(tuple(c) for c in conds), json.loads(json.dumps(ev))) == n


def test_hand_written_certificates():
    # z^1_0 = -1: the strict row -1 > 0 with μ = 1
    ev = {"format": FORMAT, "scope_layers": 0, "tree": {"leaf": {"closed": [], "strict": [[0, 1]]}}}
    assert verify_no_input(DEAD_L1, [(1, 0, ">0")], ev) == 1
    assert verify_no_input(DEAD_L1, [(1, 0, ">=0"), (1, 0, ">0")],
                           {**ev, "tree": {"leaf": {"closed": [], "strict": [[0, "1/3"]]}}}) == 1
    # -h_0 - 2 h_1 > 0 with h_0, h_1 >= 0 (rows 0 and 2)
    ev = {"format": FORMAT, "scope_layers": 1,
          "tree": {"leaf": {"closed": [[0, 1], [2, 2]], "strict": [[0, 1]]}}}
    assert verify_no_input(DEAD_ORTHANT, [(2, 0, ">0")], ev) == 1
    # the same with every multiplier halved
    ev["tree"]["leaf"] = {"closed": [[0, "1/2"], [2, 1]], "strict": [[0, "1/2"]]}
    assert verify_no_input(DEAD_ORTHANT, [(2, 0, ">0")], ev) == 1
    # a closed contradiction (Farkas, μ = 0): z >= 0 and -z - 1 >= 0 is not expressible here, but
    # x_0 >= 0 (neuron 0 positive) and -x_0 >= 0 (neuron 0 negative) are on different branches; a
    # constant -1 >= 0 is: z^1_0 = -1 with ">=0"
    ev = {"format": FORMAT, "scope_layers": 0, "tree": {"leaf": {"closed": [[0, 5]], "strict": []}}}
    assert verify_no_input(DEAD_L1, [(1, 0, ">=0")], ev) == 1


def test_random_certificates_are_accepted():
    checked = 0
    for t in range(120):
        rng = random.Random(f"checker-{t}")
        arch = (2, 3, 3, 3, 1) if t % 3 == 0 else (rng.randint(1, 3), rng.randint(2, 4), rng.randint(2, 4), 1)
        net = random_deep(rng, arch, dyadic=t % 2 == 0)
        conds = random_conditions(rng, net)
        r = prove_no_input(net, conds)
        if r.outcome is Outcome.NONE:
            assert verify_no_input(net, conds, r.evidence) == r.leaves
            checked += 1
    assert checked >= 25


# ---- forgeries -----------------------------------------------------------------------------------

def test_a_changed_multiplier_is_rejected():
    conds = [(2, 0, ">0")]
    ev = cert(DEAD_ORTHANT, conds)
    for path, value in ((("closed", 1, 1), 3), (("closed", 0, 1), 2), (("strict", 0, 1), 2)):
        bad = copy.deepcopy(ev)
        bad["tree"]["leaf"][path[0]][path[1]][path[2]] = value
        rejects(DEAD_ORTHANT, conds, bad, "not constant|constant")


def test_every_single_multiplier_matters():
    """Scaling any one multiplier of any leaf by 2 breaks the identity (the leaves here are minimal)."""
    for name, net, conds in PLANTED:
        ev = cert(net, conds)
        for li, leaf in enumerate(leaves_of(ev["tree"])):
            for key in ("closed", "strict"):
                for j in range(len(leaf[key])):
                    bad = copy.deepcopy(ev)
                    target = leaves_of(bad["tree"])[li]
                    target[key][j][1] = target[key][j][1] * 2 if isinstance(target[key][j][1], int) else "7/3"
                    total = len(leaf["closed"]) + len(leaf["strict"])
                    if total == 1:      # a single row: any positive multiple certifies as well
                        verify_no_input(net, conds, bad)
                    else:
                        rejects(net, conds, bad)


@pytest.mark.parametrize("value,match", [(-1, "not positive"), (0, "not positive"), ("-1/2", "not positive"),
                                         (0.5, "not an integer"), (1.0, "not an integer"), (True, "not an integer"),
                                         ("2/4", "lowest terms"), ("3/1", "'p/1'"), ("0.5", "not an integer"),
                                         ("1/0", "multiplier"), ("1e3", "not an integer"), (None, "not an integer"),
                                         ("9" * 5000 + "/7", "multiplier")])
def test_bad_numbers_are_rejected(value, match):
    ev = cert(DEAD_ORTHANT, [(2, 0, ">0")])
    ev["tree"]["leaf"]["strict"][0][1] = value
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], ev, match)


def test_a_dropped_leaf_is_rejected():
    conds = [(2, 0, ">0")]
    ev = cert(DEAD_MIXED, conds)
    tree = first_split(ev["tree"])
    for side in ("pos", "neg"):
        bad = copy.deepcopy(ev)
        del bad["tree"][side]
        rejects(DEAD_MIXED, conds, bad, "exactly the keys")
        bad = copy.deepcopy(ev)
        bad["tree"] = bad["tree"][side]       # promote one branch: it no longer covers R^n0
        rejects(DEAD_MIXED, conds, bad)
    assert tree


def test_a_swapped_branch_is_rejected():
    ev = cert(DEAD_MIXED, [(2, 0, ">0")])
    ev["tree"]["pos"], ev["tree"]["neg"] = ev["tree"]["neg"], ev["tree"]["pos"]
    rejects(DEAD_MIXED, [(2, 0, ">0")], ev)


@pytest.mark.parametrize("target,match", [([2, 0], "not in the scope"), ([3, 0], "not in the scope"),
                                          ([0, 0], "not in the scope"), ([1, 3], "not in the scope"),
                                          ([1, -1], "not in the scope"), ([1], "layer, neuron"),
                                          ([1, "0"], "layer, neuron"), ([True, 0], "layer, neuron"),
                                          ("1,0", "layer, neuron")])
def test_splits_outside_the_scope_are_rejected(target, match):
    ev = cert(DEAD_MIXED, [(2, 0, ">0")])
    ev["tree"]["split"] = target
    rejects(DEAD_MIXED, [(2, 0, ">0")], ev, match)


def test_a_split_on_a_decided_neuron_is_rejected():
    ev = cert(DEAD_MIXED, [(2, 0, ">0")])
    l, i = ev["tree"]["split"]
    ev["tree"]["pos"] = {"split": [l, i], "pos": ev["tree"]["pos"], "neg": ev["tree"]["pos"]}
    rejects(DEAD_MIXED, [(2, 0, ">0")], ev, "already decided")


@pytest.mark.parametrize("key,index", [("closed", 99), ("closed", -1), ("strict", 1), ("strict", 99)])
def test_row_indices_out_of_range_are_rejected(key, index):
    ev = cert(DEAD_ORTHANT, [(2, 0, ">0")])
    ev["tree"]["leaf"][key].append([index, 1])
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], ev, "out of range|strictly increasing")


def test_duplicate_or_unsorted_indices_are_rejected():
    ev = cert(DEAD_ORTHANT, [(2, 0, ">0")])
    ev["tree"]["leaf"]["closed"] = [[2, 2], [0, 1]]
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], ev, "strictly increasing")
    ev["tree"]["leaf"]["closed"] = [[0, 1], [0, 1], [2, 2]]
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], ev, "strictly increasing")
    ev["tree"]["leaf"]["closed"] = [[0, 1, 2]]
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], ev, "pair")


def test_an_empty_leaf_is_no_contradiction():
    ev = {"format": FORMAT, "scope_layers": 0, "tree": {"leaf": {"closed": [], "strict": []}}}
    rejects(DEAD_L1, [(1, 0, ">0")], ev, "no strict row")


def test_another_network_of_the_same_architecture_is_rejected():
    """A certificate for one network against networks where the conditions are satisfiable."""
    tried = 0
    for t in range(200):
        rng = random.Random(f"swap-{t}")
        arch = (rng.randint(1, 3), rng.randint(2, 4), rng.randint(2, 4), 1)
        a, b = random_deep(rng, arch), random_deep(rng, arch)
        conds = random_conditions(rng, a)
        ra, rb = prove_no_input(a, conds), prove_no_input(b, conds)
        if ra.outcome is Outcome.NONE and rb.outcome is Outcome.FOUND:
            rejects(b, conds, ra.evidence)
            tried += 1
    assert tried >= 10
    ev = cert(DEAD_ORTHANT, [(2, 0, ">0")])
    other = N([([[1, 0], [0, 1]], [0, 0]), ([[-1, 2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
    rejects(other, [(2, 0, ">0")], ev)


def test_changed_conditions_are_rejected():
    ev = cert(DEAD_ORTHANT, [(2, 0, ">0")])
    rejects(DEAD_ORTHANT, [(2, 1, ">0")], ev)           # another neuron
    rejects(DEAD_ORTHANT, [(2, 0, "<0")], ev)           # another sign
    rejects(DEAD_ORTHANT, [(2, 0, ">=0")], ev)          # a closed row: not a contradiction (z = 0 possible)
    rejects(DEAD_ORTHANT, [(1, 0, ">0"), (2, 0, ">0")], ev)     # the strict row 0 is now another one
    # a further condition appended at the end only adds rows: the certificate stays valid, and rightly so
    assert verify_no_input(DEAD_ORTHANT, [(2, 0, ">0"), (1, 0, ">0")], ev) == 1
    ev = cert(DEAD_L1, [(1, 0, ">0")])
    rejects(DEAD_L1, [(1, 1, ">0")], ev)
    kink = cert(KINK, [(1, 0, "<0"), (2, 0, ">0")])
    rejects(KINK, [(1, 0, ">0"), (2, 0, ">0")], kink)
    rejects(KINK, [(2, 0, ">0"), (1, 0, "<0")], kink)    # the order of the conditions fixes the rows


@pytest.mark.parametrize("conds", [[], None, [(1, 0)], [(1, 0, ">")], [(0, 0, ">0")], [(9, 0, ">0")],
                                   [(1, 9, ">0")], [(1.0, 0, ">0")], [(1, 0, 0)], "(1, 0, '>0')", [5]])
def test_malformed_conditions_are_rejected(conds):
    rejects(DEAD_L1, conds, {"format": FORMAT, "scope_layers": 0,
                             "tree": {"leaf": {"closed": [], "strict": [[0, 1]]}}})


@pytest.mark.parametrize("mutate,match", [
    (lambda ev: ev.update(format="reluid.farkas-tree/2"), "format"),
    (lambda ev: ev.update(scope_layers=0), "scope_layers"),
    (lambda ev: ev.update(scope_layers=True), "scope_layers"),
    (lambda ev: ev.update(extra=1), "evidence must be"),
    (lambda ev: ev.pop("tree"), "evidence must be"),
    (lambda ev: ev.update(tree=[]), "must be an object"),
    (lambda ev: ev.update(tree={"leaf": ev["tree"]["leaf"], "split": [1, 0]}), "single key"),
    (lambda ev: ev.update(tree={"leaf": {"closed": []}}), "a leaf is"),
    (lambda ev: ev.update(tree={"leaf": {"closed": {}, "strict": []}}), "list of"),
    (lambda ev: ev.update(tree={"node": 1}), "a node is"),
])
def test_malformed_evidence_is_rejected(mutate, match):
    ev = cert(DEAD_ORTHANT, [(2, 0, ">0")])
    mutate(ev)
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], ev, match)
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], "not a mapping", "evidence must be")


def test_not_a_network():
    with pytest.raises(CheckFailed, match="expected a Network"):
        verify_no_input("net", [(1, 0, ">0")], {})


def test_recursion_bombs_are_rejected_without_recursing():
    """A chain of splits far deeper than the scope (and than Python's recursion limit)."""
    node = {"leaf": {"closed": [], "strict": [[0, 1]]}}
    for _ in range(100_000):
        node = {"split": [1, 0], "pos": node, "neg": node}
    ev = {"format": FORMAT, "scope_layers": 1, "tree": node}
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], ev, "already decided|deeper than the scope")
    node = {"leaf": {"closed": [], "strict": [[0, 1]]}}
    for k in range(50_000):
        node = {"split": [1, k % 2], "pos": node, "neg": {"leaf": {"closed": [], "strict": [[0, 1]]}}}
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], {**ev, "tree": node}, "already decided|deeper than the scope")
    cyc = {"split": [1, 0], "neg": {"leaf": {"closed": [], "strict": []}}}
    cyc["pos"] = cyc
    rejects(DEAD_ORTHANT, [(2, 0, ">0")], {**ev, "tree": cyc})


def test_too_many_leaves_are_rejected():
    ev = cert(KINK3, [(2, 0, "<0"), (3, 0, ">0")])
    n = verify_no_input(KINK3, [(2, 0, "<0"), (3, 0, ">0")], ev)
    assert n >= 2
    with pytest.raises(CheckFailed, match="more than"):
        verify_no_input(KINK3, [(2, 0, "<0"), (3, 0, ">0")], ev, max_leaves=n - 1)


def test_fuzzed_evidence_raises_only_check_failed():
    """Random corruption anywhere in a valid certificate: accepted, or CheckFailed -- nothing else."""
    base = cert(COACTIVE, [(1, 0, ">0"), (2, 0, ">0")])
    rng = random.Random(3)
    junk = [None, -1, 0, 1, 7, "x", "1/2", "2/4", 1.5, [], {}, [1], [0, 1], [[0, 1]], {"leaf": {}}, True,
            {"split": [1, 0]}, [[0, "1/2"]], [9, 9]]
    accepted = 0
    for _ in range(600):
        ev = copy.deepcopy(base)
        slots = []
        stack = [ev]
        while stack:
            obj = stack.pop()
            items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
            for k, v in items:
                slots.append((obj, k))
                stack.append(v)
        obj, k = rng.choice(slots)
        obj[k] = copy.deepcopy(rng.choice(junk))
        try:
            verify_no_input(COACTIVE, [(1, 0, ">0"), (2, 0, ">0")], ev)
            accepted += 1
        except CheckFailed:
            pass
    assert accepted < 600


def test_the_checker_imports_only_what_it_may():
    src = checker.__file__
    tree = ast.parse(open(src, encoding="utf-8").read())
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mods.add(node.module)
    allowed_reluid = {"reluid.model.network", "reluid.certificates.schema", "reluid.checker.readers", "reluid.errors"}
    reluid_mods = {m for m in mods if m.split(".")[0] == "reluid"}
    assert reluid_mods <= allowed_reluid, reluid_mods
    stdlib = {"__future__", "math", "re", "collections.abc", "fractions"}
    assert mods - reluid_mods <= stdlib, mods - reluid_mods


def test_importing_the_checker_loads_no_numeric_or_solver_library():
    import subprocess
    import sys
    code = "import sys, reluid.checker.farkas; print('\\n'.join(sorted(sys.modules)))"
    mods = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    bad = [m for m in mods if m.split(".")[0] in ("numpy", "flint", "z3", "sympy", "networkx", "scipy", "highspy")
           or m.startswith(("reluid.analysis", "reluid.smt", "reluid.io"))]
    assert not bad, bad
