"""Certified functional dimension (Grigsby-Lindsey-Meyerhoff-Wu 2022; Grigsby-Lindsey-Rolnick 2023, Def. F.2)."""

from __future__ import annotations

import dataclasses
import io
import json
from fractions import Fraction as F

import numpy as np
import pytest

import reluid.checker.deep as checker_deep
from reluid.analysis.deep import FunDimResult, functional_dimension, upper_bound
from reluid.analysis.deep.fundim import (_ModNet, exact_pattern, jacobian_rows_mod_p, sample_points, DYADIC_BITS)
from reluid.analysis.deep.survey import random_network
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed, InvalidArgument
from reluid.model import Network
from reluid.model.rational import format_rational

from benchmarks.bench_fundim import float_rank  # the float approach (numpy backprop + SVD rank)

N = Network.from_lists
SMALL = N([([[1, 2], [-1, 1], [2, -3]], [1, 0, -1]), ([[1, -1, 2], [2, 1, -1]], [0, 1]), ([[1, -2]], [1])])


def gaussian_net(arch, seed):
    return random_network(arch, np.random.default_rng(seed))


def test_upper_bound():
    assert upper_bound((5, 5, 5, 5, 1))[0] == 96 - 15
    assert upper_bound((2, 3, 2, 1))[0] == 15
    assert upper_bound((3, 1))[0] == 4                       # affine map: nothing lost
    assert upper_bound((1, 1, 1))[0] == 3 and upper_bound((1, 1, 1, 1))[0] == 4
    assert upper_bound((1, 1, 1, 1, 1))[0] == 4               # width-one chain: clipped ramp
    assert upper_bound((1, 1, 1, 1, 1, 2))[0] == 6
    with pytest.raises(InvalidArgument):
        upper_bound((3, 0, 1))


def test_certified_equal_to_upper_bound_small():
    r = functional_dimension(SMALL, points=300)
    assert r.certified and r.rank == r.upper_bound == 15 and r.gap == 0
    assert len(r.points) == r.rank
    assert all(all(all(s) for s in exact_pattern(SMALL, x)) for x in r.points)   # parametrically smooth
    assert "certified" in r.describe()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.rank = 0  # type: ignore[misc]
    assert isinstance(r, FunDimResult)


@pytest.mark.parametrize("arch,seed", [((2, 3, 3, 1), 2), ((3, 4, 4, 1), 3), ((3, 4, 4, 2), 0)])
def test_attains_U_on_small_architectures(arch, seed):
    net = gaussian_net(arch, seed)
    r = functional_dimension(net, seed=seed)
    assert r.certified, r.describe()


@pytest.mark.parametrize("arch", [(2, 3, 3, 1), (3, 4, 4, 1), (5, 5, 5, 5, 1), (2, 2, 2, 2, 1), (1, 3, 3, 1)])
def test_exact_rank_agrees_with_float_rank(arch):
    for seed in range(2):
        net = gaussian_net(arch, 100 + seed)
        U = upper_bound(arch)[0]
        count = 10 * U
        exact = functional_dimension(net, points=count, seed=seed, stop_at_upper_bound=False)
        X = sample_points(arch[0], count, seed) / float(1 << DYADIC_BITS)
        assert exact.rank == float_rank(net, X)


def test_exact_and_float_filter_patterns_agree():
    net = gaussian_net((3, 4, 4, 1), 7)
    pts = [tuple(F(int(v), 1 << DYADIC_BITS) for v in row) for row in sample_points(3, 150, 3)]
    a = functional_dimension(net, points=pts, method="exact")
    b = functional_dimension(net, points=150, seed=3, method="float-filter")
    assert a.rank == b.rank and a.n_regions == b.n_regions and a.n_smooth == b.n_smooth


def test_jacobian_rows_agree_with_the_checker_and_with_difference_quotients():
    net = gaussian_net((2, 3, 2, 1), 4)
    p = 67108859
    x = (F(3, 7), F(-5, 4))
    pattern = exact_pattern(net, x)
    masks = [np.array([[s > 0 for s in layer]]) for layer in pattern]
    xres = np.array([[v.numerator * pow(v.denominator, -1, p) % p for v in x]], dtype=np.int64)
    mod_row = jacobian_rows_mod_p(_ModNet(net, p), xres, masks)[0]
    rows, smooth = checker_deep.jacobian_rows(net, x)
    assert smooth
    exact_row = rows[0]
    assert [v.numerator * pow(v.denominator, -1, p) % p for v in exact_row] == [int(v) for v in mod_row]
    # F is affine in each single parameter inside an activation region: difference quotients are exact
    flat = [(m, "W", r, c) for m, L in enumerate(net.layers) for r in range(L.n_out) for c in range(L.n_in)]
    params = []
    for m, L in enumerate(net.layers):
        params += [(m, "W", r, c) for r in range(L.n_out) for c in range(L.n_in)] + [(m, "b", r) for r in range(L.n_out)]
    assert len(params) == net.n_params and len(flat) < len(params)
    eps = F(1, 10**9)
    for k, prm in enumerate(params):
        lists = [[[list(r) for r in L.weight], list(L.bias)] for L in net.layers]
        if prm[1] == "W":
            lists[prm[0]][0][prm[2]][prm[3]] += eps
        else:
            lists[prm[0]][1][prm[2]] += eps
        bumped = N(lists)
        assert exact_pattern(bumped, x) == pattern
        assert (bumped(x)[0] - net(x)[0]) / eps == exact_row[k]


def test_nonsmooth_points_are_excluded():
    net = N([([[1, 0], [0, 1]], [0, 0]), ([[1, 1], [1, -1]], [0, 0]), ([[1, 1]], [0])])
    pts = [(F(0), F(1)), (F(1), F(2)), (F(2), F(-1)), (F(-1), F(-3)), (F(3), F(1))]
    r = functional_dimension(net, points=pts)
    assert r.n_smooth == 3 and r.n_sampled == 5            # x1 = 0 and x1 = x2 lie on bent hyperplanes
    assert (F(0), F(1)) not in r.points


def test_dead_network_has_low_dimension():
    # layer-2 neuron 0 is dead: its 3 incoming parameters and outgoing weight are lost, and the scaling too
    net = N([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
    r = functional_dimension(net, points=500)
    assert r.rank < r.upper_bound and not r.certified
    assert "evidence" in r.describe()


@pytest.mark.parametrize("layers,target", [
    ([([[-1], [2]], [0, 3]), ([[-1, 3], [1, -1]], [2, 2]), ([[-3, 1]], [-2])], 9),
    ([([[-3], [-3], [-2]], [-4, 2, -1]), ([[-2, 2, -3], [2, -2, 2], [3, -2, 1]], [-1, 2, 4]), ([[-1, -3, -3]], [-3])], 16),
    ([([[3], [2]], [4, -3]), ([[-1, 3], [1, 3]], [3, -4]), ([[2, 2], [1, -3]], [-3, 4]), ([[-3, 1]], [1])], 13),
    ([([[1]], [-2]), ([[-3]], [1]), ([[-1]], [4]), ([[-1]], [-3])], 4),
], ids=["1-2-2-1", "1-3-3-1", "1-2-2-2-1", "1-1-1-1-1"])
def test_input_dimension_one(layers, target):
    """n0 = 1: U is attained (so not lowered) except for width-one chains, where it is 2k + 2."""
    net = N(layers)
    pts = [(F(k, 8),) for k in range(-200, 201)]
    r = functional_dimension(net, points=pts)
    assert r.rank == target == r.upper_bound and r.certified


def _fundim_evidence(r):
    return {"prime": r.prime, "rank": r.rank, "upper_bound": r.upper_bound, "n_params": r.n_params,
            "points": [[format_rational(v) for v in x] for x in r.points]}


def test_checker_verifies_functional_dimension_and_rejects_tampering():
    r = functional_dimension(SMALL, points=300)
    ctx = Context(SMALL, "fundim")
    ev = _fundim_evidence(r)
    assert "dim_fun = U = 15 (certified)" in VERIFIERS["functional-dimension"](ev, ctx)
    for bad in ({"rank": r.rank + 1}, {"upper_bound": 16}, {"prime": 15}, {"n_params": 1},
                {"points": ev["points"][:-1]}, {"points": [["0", "0"]] + ev["points"][1:]}):
        with pytest.raises(CheckFailed):
            VERIFIERS["functional-dimension"]({**ev, **bad}, ctx)


def test_several_outputs_and_checker():
    net = gaussian_net((3, 4, 3, 2), 5)
    r = functional_dimension(net, seed=1)
    assert r.rank <= r.upper_bound
    VERIFIERS["functional-dimension"](_fundim_evidence(r), Context(net, "f"))


def test_invalid_arguments():
    with pytest.raises(InvalidArgument):
        functional_dimension(SMALL, points=0)
    with pytest.raises(InvalidArgument):
        functional_dimension(SMALL, points=[(F(1),)])
    with pytest.raises(InvalidArgument):
        functional_dimension(SMALL, method="magic")
    with pytest.raises(InvalidArgument):
        functional_dimension(SMALL, prime=15)


def test_cli_fundim(tmp_path):
    from reluid.cli.main import main
    path = tmp_path / "net.json"
    path.write_text(json.dumps(SMALL.to_dict()))
    out, err = io.StringIO(), io.StringIO()
    assert main(["fundim", str(path), "--points", "300", "--json", str(tmp_path / "r.json")], out, err) == 0
    assert "certified" in out.getvalue()
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["rank"] == data["upper_bound"] == 15
    dead = N([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
    path.write_text(json.dumps(dead.to_dict()))
    assert main(["fundim", str(path), "--points", "200", "--exact"], io.StringIO(), io.StringIO()) == 3
    (tmp_path / "bad.json").write_text("{")
    assert main(["fundim", str(tmp_path / "bad.json")], io.StringIO(), io.StringIO()) == 4
