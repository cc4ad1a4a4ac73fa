"""Certified functional dimension (Grigsby-Lindsey-Meyerhoff-Wu 2022; Grigsby-Lindsey-Rolnick 2023, Def. F.2).

The producer works with region rows (docs/mathematics.md §6, Lemma R) and the Kronecker reduction of
layer 1; these tests tie it to the plain definition: the exact rational rank of the Jacobian of
θ ↦ (F_θ(z))_z at explicit generic points.
"""

from __future__ import annotations

import dataclasses
import io
import json
import time
from fractions import Fraction as F

import flint
import numpy as np
import pytest

import reluid.checker.check  # noqa: F401  (registers every verifier)
from tests.checker.reference import jacobian_rows as reference_jacobian_rows
from reluid.analysis.deep import FunDimResult, functional_dimension, upper_bound
from reluid.analysis.deep.fundim import (DYADIC_BITS, _float_patterns, _IntNet, _ModNet, _nmod, estimate_seconds,
                                         exact_pattern, identifiability_bound, jacobian_rows_mod_p, region_rows_mod_p,
                                         sample_points)
from reluid.analysis.deep.survey import random_network
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed, InvalidArgument
from reluid.model import Network
from reluid.model.rational import format_rational
from reluid.report.fundim import describe_fundim

from benchmarks.bench_fundim import float_rank  # the float approach (numpy backprop + SVD rank)

N = Network.from_lists
SMALL = N([([[1, 2], [-1, 1], [2, -3]], [1, 0, -1]), ([[1, -1, 2], [2, 1, -1]], [0, 1]), ([[1, -2]], [1])])


def gaussian_net(arch, seed):
    return random_network(arch, np.random.default_rng(seed))


def exact_rank_near(net, points):
    """rank over Q of the Jacobian at x, x + εe_1, ..., x + εe_n0 for every listed x (ε halved until generic)."""
    rows = []
    for x in points:
        pattern = exact_pattern(net, x)
        eps = F(1, 2 ** 12)
        while True:
            near = [tuple(v + (eps if i == j else 0) for i, v in enumerate(x)) for j in range(len(x))]
            if all(exact_pattern(net, y) == pattern for y in near):
                break
            eps /= 2
        for y in [x] + near:
            jac, smooth = reference_jacobian_rows(net, y)
            assert smooth
            rows.extend(jac)
    return flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in r] for r in rows]).rank()


def test_upper_bound():
    assert upper_bound((5, 5, 5, 5, 1))[0] == 96 - 15
    assert upper_bound((2, 3, 2, 1))[0] == 15
    assert upper_bound((3, 1))[0] == 4                       # affine map: nothing lost
    assert upper_bound((1, 1, 1))[0] == 3 and upper_bound((1, 1, 1, 1))[0] == 4
    assert upper_bound((1, 1, 1, 1, 1))[0] == 4               # width-one chain: clipped ramp
    assert upper_bound((1, 1, 1, 1, 1, 2))[0] == 6
    assert identifiability_bound((1, 1, 1, 1, 1)) == 5        # Theorem A1 asks D - N, never the chain bound
    with pytest.raises(InvalidArgument):
        upper_bound((3, 0, 1))


def test_certified_equal_to_upper_bound_small():
    r = functional_dimension(SMALL, points=300)
    assert r.certified and r.rank == r.upper_bound == 15 and r.gap == 0 and r.full_rank
    assert r.stop_reason == "upper bound reached" and r.complete
    assert 0 < len(r.points) <= r.rank                          # one point per region used
    assert all(all(all(s) for s in exact_pattern(SMALL, x)) for x in r.points)   # generic, checked exactly
    assert (SMALL.input_dim + 1) * len(r.pivots) + len(r.rows) == r.rank
    assert "certified" in describe_fundim(r)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.rank = 0  # type: ignore[misc]
    assert isinstance(r, FunDimResult)


@pytest.mark.parametrize("arch,seed", [((2, 3, 3, 1), 2), ((3, 4, 4, 1), 3), ((3, 4, 4, 2), 0)])
def test_attains_U_on_small_architectures(arch, seed):
    net = gaussian_net(arch, seed)
    r = functional_dimension(net, seed=seed)
    assert r.certified, describe_fundim(r)


@pytest.mark.parametrize("arch,seed", [((2, 3, 2, 1), 4), ((2, 3, 3, 1), 2), ((3, 4, 3, 2), 5), ((2, 3, 1), 1),
                                       ((3, 4, 3), 0), ((2, 2, 2, 2, 1), 3)])
def test_region_rank_is_the_exact_rank_at_explicit_generic_points(arch, seed):
    """Lemma R: the certified rank equals rank_Q of the plain Jacobian at n0 + 1 generic points per witness."""
    net = gaussian_net(arch, seed)
    r = functional_dimension(net, seed=seed, points=200, stop_at_upper_bound=False)
    assert exact_rank_near(net, r.points) == r.rank
    mod = _ModNet(net, r.prime)
    pats = _IntNet(net).patterns(list(r.points))
    masks = [np.array([[s > 0 for s in pt[l]] for pt in pats], dtype=bool).reshape(len(pats), -1)
             for l in range(len(arch) - 2)]
    assert _nmod(region_rows_mod_p(mod, masks), r.prime).rank() == r.rank   # no Kronecker reduction


@pytest.mark.parametrize("arch", [(2, 3, 3, 1), (3, 4, 4, 1), (5, 5, 5, 5, 1), (2, 2, 2, 2, 1), (1, 3, 3, 1)])
def test_rank_is_at_least_the_float_rank_at_the_same_sample(arch):
    """The paper's protocol: the same sample; region rows see at least what the points see."""
    for seed in range(2):
        net = gaussian_net(arch, 100 + seed)
        U = upper_bound(arch)[0]
        count = 10 * U
        exact = functional_dimension(net, points=count, seed=seed, stop_at_upper_bound=False)
        X = sample_points(arch[0], count, seed) / float(1 << DYADIC_BITS)
        assert exact.rank >= float_rank(net, X)
        # and it is the rank of all region rows of the sample (no region missed)
        Wf = [np.array([[float(v) for v in r] for r in L.weight]).reshape(L.n_out, L.n_in) for L in net.layers[:-1]]
        bf = [np.array([float(v) for v in L.bias]) for L in net.layers[:-1]]
        masks, unc = _float_patterns(Wf, bf, X)
        keep = ~unc
        allm = np.concatenate([m[keep] for m in masks], axis=1)
        _, first = np.unique(allm, axis=0, return_index=True)
        regions = [m[keep][first] for m in masks]
        rows = region_rows_mod_p(_ModNet(net, exact.prime), regions)
        assert _nmod(rows, exact.prime).rank() == exact.rank


def test_sample_is_drawn_in_pieces_of_one_stream():
    a = sample_points(3, 100, 5)
    g = np.random.default_rng(5)
    from reluid.analysis.deep.fundim import _draw
    b = np.concatenate([_draw(g, 3, 13), _draw(g, 3, 87)])
    assert np.array_equal(a, b)


def test_exact_and_float_filter_patterns_agree():
    net = gaussian_net((3, 4, 4, 1), 7)
    pts = [tuple(F(int(v), 1 << DYADIC_BITS) for v in row) for row in sample_points(3, 150, 3)]
    a = functional_dimension(net, points=pts, method="exact")
    b = functional_dimension(net, points=150, seed=3, method="float-filter")
    c = functional_dimension(net, points=150, seed=3, method="exact")
    assert a.rank == b.rank == c.rank and a.n_regions == b.n_regions == c.n_regions and a.n_smooth == b.n_smooth


def test_jacobian_rows_agree_with_the_checker_and_with_difference_quotients():
    net = gaussian_net((2, 3, 2, 1), 4)
    p = 67108859
    x = (F(3, 7), F(-5, 4))
    pattern = exact_pattern(net, x)
    masks = [np.array([[s > 0 for s in layer]]) for layer in pattern]
    xres = np.array([[v.numerator * pow(v.denominator, -1, p) % p for v in x]], dtype=np.int64)
    mod_row = jacobian_rows_mod_p(_ModNet(net, p), xres, masks)[0]
    rows, smooth = reference_jacobian_rows(net, x)
    assert smooth
    exact_row = rows[0]
    assert [v.numerator * pow(v.denominator, -1, p) % p for v in exact_row] == [int(v) for v in mod_row]
    # F is affine in each single parameter inside an activation region: difference quotients are exact
    params = []
    for m, L in enumerate(net.layers):
        params += [(m, "W", r, c) for r in range(L.n_out) for c in range(L.n_in)] + [(m, "b", r) for r in range(L.n_out)]
    assert len(params) == net.n_params
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


def test_region_rows_span_the_jacobian_rows_of_the_region():
    """Lemma R(b): ∂_θ F_o(x) = Σ_j x̃_j r(s, o, j) for x in the region."""
    net = gaussian_net((2, 3, 2, 2), 6)
    p = 67108859
    x = (F(3, 7), F(-5, 4))
    pattern = exact_pattern(net, x)
    masks = [np.array([[s > 0 for s in layer]]) for layer in pattern]
    R = region_rows_mod_p(_ModNet(net, p), masks)                     # k (n0 + 1) rows, columns per layer
    rows, _ = reference_jacobian_rows(net, x)
    xt = [v.numerator * pow(v.denominator, -1, p) % p for v in x] + [1]
    for o in range(2):
        combo = sum(xt[j] * R[o * 3 + j] for j in range(3)) % p
        # reorder the checker's (W row-major, then b) into (neuron, input-or-bias) per layer
        want, off = [], 0
        for L in net.layers:
            W = rows[o][off:off + L.n_out * L.n_in]
            b = rows[o][off + L.n_out * L.n_in:off + L.n_out * (L.n_in + 1)]
            off += L.n_out * (L.n_in + 1)
            for i in range(L.n_out):
                want += list(W[i * L.n_in:(i + 1) * L.n_in]) + [b[i]]
        assert [int(v) for v in combo] == [v.numerator * pow(v.denominator, -1, p) % p for v in want]


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
    assert r.rank < r.upper_bound and not r.certified and not r.full_rank
    assert "evidence" in describe_fundim(r)


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


# ---- the time budget ---------------------------------------------------------------------

def test_deadline_in_the_past_means_not_attempted():
    net = gaussian_net((3, 4, 4, 1), 3)
    r = functional_dimension(net, deadline=time.monotonic() - 1)
    assert r.stop_reason == "not attempted" and r.rank == 0 and not r.complete and r.estimate_s > 0
    assert "not attempted" in describe_fundim(r)


def test_deadline_stops_between_blocks_with_a_lower_bound_and_an_estimate():
    net = gaussian_net((6, 12, 12, 3), 1)
    full = functional_dimension(net)
    assert full.certified
    # a deadline that has passed after the first block: the result keeps the rank found so far
    import reluid.analysis.deep.fundim as fd
    orig = fd._Run._say
    state = {"n": 0}

    def say(self):
        orig(self)
        state["n"] += 1
        if state["n"] == 1:
            self.deadline = time.monotonic() - 1

    fd._Run._say = say
    try:
        r = functional_dimension(net)
    finally:
        fd._Run._say = orig
    assert r.stop_reason == "time budget" and not r.complete
    assert 0 < r.rank <= full.rank and r.estimate_s is not None and r.estimate_s > 0
    assert "time budget" in describe_fundim(r)


def test_estimate_grows_with_the_architecture():
    assert estimate_seconds((64, 32, 32, 16, 10)) < estimate_seconds((784, 128, 128, 10))
    assert estimate_seconds((784, 128, 128, 10)) > 100


# ---- the checker -------------------------------------------------------------------------

def _fundim_evidence(r):
    return {"prime": r.prime, "rank": r.rank, "upper_bound": r.upper_bound, "n_params": r.n_params,
            "points": [[format_rational(v) for v in x] for x in r.points],
            "pivots": [list(t) for t in r.pivots], "rows": [list(t) for t in r.rows]}


def _verify(kind, ev, net):
    return VERIFIERS[kind](ev, Context(net, kind))


def test_checker_verifies_functional_dimension_and_rejects_tampering():
    r = functional_dimension(SMALL, points=300)
    ev = _fundim_evidence(r)
    assert "dim_fun = U = 15 (certified)" in _verify("functional-dimension", ev, SMALL)
    on_kink = [["-1", "0"]] + ev["points"][1:]                    # neuron 1: x1 + 2 x2 + 1 = 0 at (-1, 0)
    for bad in ({"rank": r.rank + 1}, {"upper_bound": 16}, {"prime": 15}, {"n_params": 1},
                {"points": ev["points"][:-1]}, {"points": on_kink}, {"rows": ev["rows"][:-1]},
                {"pivots": ev["pivots"][:-1]}, {"pivots": ev["pivots"] + ev["pivots"][:1]},
                {"rows": [[0, 5, 0]] + ev["rows"]}):
        with pytest.raises(CheckFailed):
            _verify("functional-dimension", {**ev, **bad}, SMALL)


def test_several_outputs_and_checker():
    net = gaussian_net((3, 4, 3, 2), 5)
    r = functional_dimension(net, seed=1)
    assert r.rank <= r.upper_bound
    _verify("functional-dimension", _fundim_evidence(r), net)


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
    assert data["rank"] == data["upper_bound"] == 15 and data["locally_identifiable"] is True
    dead = N([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
    path.write_text(json.dumps(dead.to_dict()))
    assert main(["fundim", str(path), "--points", "200", "--exact"], io.StringIO(), io.StringIO()) == 3
    (tmp_path / "bad.json").write_text("{")
    assert main(["fundim", str(tmp_path / "bad.json")], io.StringIO(), io.StringIO()) == 4


def test_the_reason_of_a_result_says_what_reluid_fundim_prints():
    """``summary()`` is the result as data; the report's words for it are the line `reluid fundim` prints, in every
    state a result can be in (certified, by Theorem A3, stalled, memory cap, complete with a gap, time budget, not
    attempted with a memory or a time estimate)."""
    from reluid.report.reasons import sentence
    from reluid.verdicts import StopReason

    r = functional_dimension(SMALL, seed=0)
    assert r.certified
    S = StopReason
    states = [r, dataclasses.replace(r, triangular={"method": "triangular"}),
              dataclasses.replace(r, rank=r.upper_bound - 2, stop_reason=S.RANK_STALLED, stall_rounds=3,
                                  stall_regions=9),
              dataclasses.replace(r, rank=r.upper_bound - 1, stop_reason=S.MEMORY_CAP),
              dataclasses.replace(r, rank=r.upper_bound - 1, stop_reason=S.SAMPLE_EXHAUSTED, stopped_early=False),
              dataclasses.replace(r, rank=r.upper_bound - 1, stop_reason=S.TIME_BUDGET, estimate_s=123.4),
              dataclasses.replace(r, rank=r.upper_bound - 1, stop_reason=S.TIME_BUDGET, estimate_s=None),
              dataclasses.replace(r, stop_reason=S.NOT_ATTEMPTED, estimate_s=1e4, estimate_gb=12.5, memory_cap_gb=2.0),
              dataclasses.replace(r, stop_reason=S.NOT_ATTEMPTED, estimate_s=None, estimate_gb=None)]
    words = [describe_fundim(r) for r in states]
    assert len(set(words)) == len(states)
    for state, said in zip(states, words):
        reason = state.summary()
        assert sentence(reason) == "Functional dimension: " + said == sentence(reason.to_dict())
