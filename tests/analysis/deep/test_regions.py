"""Exact regions: feasibility evidence, arrangement counts, activation regions against sampling."""

import random
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.regions import (EmptyCell, Feasibility, activation_regions, arrangement, evaluate_row,
                                          strict_feasibility)
from reluid.errors import InvalidArgument
from reluid.model.network import Network
from reluid.report.reasons import sentence


def _rows(rng, n, m, lo=-5, hi=5):
    return [tuple(F(rng.randint(lo, hi)) for _ in range(n + 1)) for _ in range(m)]


def test_feasibility_evidence_always_verifies_and_agrees_with_sampling():
    rng = random.Random(3)
    for _ in range(300):
        n, m = rng.randint(1, 4), rng.randint(1, 8)
        rows = _rows(rng, n, m)
        res = strict_feasibility(rows)
        assert res.verify()
        hit = any(all(evaluate_row(r, x) > 0 for r in rows)
                  for x in (tuple(F(rng.randint(-40, 40), rng.randint(1, 8)) for _ in range(n)) for _ in range(30)))
        if hit:
            assert res.nonempty


def test_feasibility_edge_cases():
    assert strict_feasibility([], 3).point == (0, 0, 0)
    with pytest.raises(InvalidArgument):
        strict_feasibility([])
    assert not strict_feasibility([(F(0), F(0))]).nonempty          # 0 > 0
    assert strict_feasibility([(F(0), F(1))]).nonempty              # 1 > 0
    # x > 0, y > 0, x + y < 1 (a triangle) and x + y > 2 (outside it)
    tri = [(F(1), F(0), F(0)), (F(0), F(1), F(0)), (F(-1), F(-1), F(1))]
    assert strict_feasibility(tri).nonempty
    res = strict_feasibility(tri + [(F(1), F(1), F(-2))])
    assert not res.nonempty and res.verify()
    # forged evidence does not verify
    assert not Feasibility(tuple(tri), point=(F(1), F(1))).verify()
    assert not Feasibility(tuple(tri), multipliers=(F(0), F(0), F(0))).verify()
    assert not EmptyCell(tuple(tri), (F(1), F(1), F(1))).verify()


@pytest.mark.parametrize("k", [1, 3, 6, 9])
def test_arrangement_of_lines_in_general_position(k):
    rng = random.Random(k)
    rows = _rows(rng, 2, k, -40, 40)
    e = arrangement(rows, 2)
    assert e.complete and len(e) == 1 + k + k * (k - 1) // 2
    assert len({r.pattern for r in e.regions}) == len(e)
    assert all(r.contains(r.point) for r in e.regions) and all(c.verify() for c in e.empty)


def test_repeated_and_parallel_hyperplanes():
    x, mx, x1 = (F(1), F(0)), (F(-2), F(0)), (F(1), F(-1))
    e = arrangement([x, mx, x1], 1)
    assert sorted(r.pattern[0][0] for r in e.regions) == [(-1, 1, -1), (1, -1, -1), (1, -1, 1)]


def _net(rng, arch):
    return Network.from_lists([([[F(rng.randint(-3, 3)) for _ in range(a)] for _ in range(b)],
                                [F(rng.randint(-3, 3)) for _ in range(b)]) for a, b in zip(arch, arch[1:])])


@pytest.mark.parametrize("arch", [(1, 3, 3, 1), (2, 4, 3, 2), (2, 3, 3, 3, 1), (3, 4, 1)])
def test_activation_regions_cover_the_sampled_patterns_and_carry_the_affine_maps(arch):
    rng = random.Random(sum(arch))
    net = _net(rng, arch)
    e = activation_regions(net)
    assert e.complete and all(c.verify() for c in e.empty)
    by_pattern = {r.pattern[0]: r for r in e.regions}
    assert len(by_pattern) == len(e)
    for r in e.regions:
        assert r.contains(r.point)
        assert tuple(evaluate_row(o, r.point) for o in r.output(0)) == net(r.point)
        got = tuple(tuple((v > 0) - (v < 0) for v in layer) for layer in net.preactivations(r.point))
        # strict signs agree; a sign 0 in the pattern means identically zero on the region
        assert all(s == t for ps, gs in zip(r.pattern[0], got) for s, t in zip(ps, gs))
    for _ in range(300):
        x = tuple(F(rng.randint(-60, 60), rng.randint(1, 9)) for _ in range(arch[0]))
        pre = net.preactivations(x)
        if any(v == 0 for layer in pre for v in layer):
            continue
        pat = tuple(tuple(1 if v > 0 else -1 for v in layer) for layer in pre)
        match = [r for p, r in by_pattern.items() if all(s in (t, 0) for ps, ts in zip(p, pat) for s, t in zip(ps, ts))]
        assert any(r.contains(x) for r in match), x


def test_joint_regions_and_partial_splits():
    rng = random.Random(7)
    a, b = _net(rng, (2, 3, 2, 1)), _net(rng, (2, 4, 1))
    e = activation_regions([a, b])
    assert e.complete and all(len(r.pattern) == 2 and len(r.pieces) == 2 for r in e.regions)
    for r in e.regions:
        assert tuple(evaluate_row(o, r.point) for o in r.output(1)) == b(r.point)
    layer1 = activation_regions(a, upto=1)      # layer-1 cells with the layer-2 pre-activations as pieces
    for r in layer1.regions:
        assert len(r.pattern[0]) == 1
        assert tuple(evaluate_row(z, r.point) for z in r.pieces[0][1]) == a.preactivations(r.point)[1]
    stopped = activation_regions(a, max_regions=1)
    assert not stopped.complete and len(stopped) == 1 and stopped.reason.params["max_regions"] == 1
    assert sentence(stopped.reason) == "stopped after 1 regions (max_regions = 1)"
