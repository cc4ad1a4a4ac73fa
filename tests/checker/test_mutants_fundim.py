"""The §6.3 functional-dimension checker (reluid/checker/fundim.py): its exact work, the reduction without
pivots, and the work shared by the two claims of one certificate (docs/mathematics.md §6, docs/certificates.md).

The work of a region-rank check is charged before it runs, term by term (``_charge``): the exact evaluation of
every point (parameters × machine words), the region maps of every point used (Σ n_l n_{l+1} per slot), the
listed rows (one entry per column), the reduction of each (point, output) pair by the pivot points
(/ 64) and the final rank (rows × columns × min / 65536).  A 2-12-6-2 network with 180 listed rows makes
every term nonzero.
"""

from __future__ import annotations

import copy
import random
from fractions import Fraction as F

import pytest

from reluid.certificates.schema import ClaimKind
from reluid.checker import fundim as cfd
from reluid.checker.registry import VERIFIERS, Budget, Context, WorkLimit
from reluid.errors import CheckFailed
from reluid.model.network import Network
from tests.checker.test_deep_checker import _generic, jacobian_rank_near, region_evidence


def wide():
    """A 2-12-6-2 network with small integer weights (seed 5) and 30 generic points of (Z/7 × Z/11)."""
    rng = random.Random(5)
    W1 = [[rng.choice([-3, -2, -1, 1, 2, 3]) for _ in range(2)] for _ in range(12)]
    b1 = [rng.randint(-5, 5) for _ in range(12)]
    W2 = [[rng.randint(-3, 3) for _ in range(12)] for _ in range(6)]
    b2 = [rng.randint(1, 9) for _ in range(6)]
    W3 = [[rng.randint(-3, 3) for _ in range(6)] for _ in range(2)]
    net = Network.from_lists([(W1, b1), (W2, b2), (W3, [0, 0])])
    pts = _generic(net, [(F(rng.randint(-60, 60), 7), F(rng.randint(-60, 60), 11)) for _ in range(30)])
    return net, pts


@pytest.fixture(scope="module")
def case():
    net, pts = wide()
    assert net.architecture == (2, 12, 6, 2) and net.n_params == 128 and len(pts) == 30
    return net, pts, region_evidence(net, pts, 2**31 - 1)


def rank(net, ev, limit=1 << 40, cid="fd"):
    budget = Budget(limit=limit)
    got = cfd.region_rank(net, copy.deepcopy(ev), Context(net, cid, budget))
    return (got.rank, got.rho, got.s, got.points, got.rows), budget.used


#: 30 points · 128 parameters · 1 word + 30 points used · (2·12 + 12·6 + 6·2) · 3 slots + 180 rows · 92 columns
#: + 60 pairs · (8 pivot points + 1) · 92 · 3 // 64 + 180 · 92 · min(180, 92) // 65536
WORK = 30 * 128 + 30 * 108 * 3 + 180 * 92 + 60 * 9 * 92 * 3 // 64 + 180 * 92 * 92 // 65536


def test_the_rank_is_the_exact_rank_and_the_work_is_charged_before_it_is_done(case):
    net, pts, ev = case
    assert len(ev["pivots"]) == 12 and len({i for i, _ in ev["pivots"]}) == 8 and len(ev["rows"]) == 180
    assert WORK == 3840 + 9720 + 16560 + 2328 + 23
    truth = jacobian_rank_near(net, pts, F(1, 10**6))
    assert truth == 66 < cfd.upper_bound(net.architecture)
    assert rank(net, ev) == ((66, 12, 30, 30, 180), WORK)
    assert rank(net, ev, limit=WORK)[0][0] == 66
    with pytest.raises(WorkLimit) as e:
        rank(net, ev, limit=WORK - 1)
    assert e.value.reason.startswith(f"the functional-dimension re-computation takes {WORK:,} steps, past")


def test_a_long_coordinate_costs_two_words_per_parameter_at_every_point(case):
    """One more listed point (no row uses it) with a coordinate of 40 + 24 bits: 1 + 64 // 64 = 2 words."""
    net, pts, ev = case
    far = (F(-(2**39 + 1), 2**23), F(1, 3))
    assert _generic(net, [far])
    long = dict(ev, points=ev["points"] + [[str(v) for v in far]])
    assert rank(net, long) == ((66, 12, 30, 31, 180),
                               31 * 128 * 2 + 30 * 108 * 3 + 180 * 92 + 60 * 9 * 92 * 3 // 64 + 180 * 92 * 92 // 65536)


def test_the_two_claims_share_the_work_of_one_evidence_only(case):
    """In one certificate's budget the same evidence is computed (and charged) once; other evidence (fewer rows)
    is not taken for it."""
    net, pts, ev = case
    budget = Budget(limit=1 << 40)
    ctx = Context(net, "fd", budget)
    assert cfd.region_rank(net, copy.deepcopy(ev), ctx).rank == 66
    assert cfd.region_rank(net, copy.deepcopy(ev), ctx).rank == 66 and budget.used == WORK
    few = dict(ev, rows=ev["rows"][:90])
    assert cfd.region_rank(net, few, ctx).rank == rank(net, few)[0][0] < 66
    assert budget.used == WORK + rank(net, few)[1]


# ---- no pivots: rows whose layer-1 vector is 0 ----------------------------------------------------------------

#: x ↦ 2·relu(relu(x1) - relu(x2) + 1); at (-1, -1) layer 1 is off and layer 2 on (δ^1 = 0, δ^2 = 2), at
#: (-1, 1/2) neuron 2 of layer 1 is on (δ^1 ≠ 0)
SMALL = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, -1]], [1]), ([[2]], [0])])


def small_ev(points, pivots, rows, rank=0):
    return {"prime": 101, "rank": rank, "upper_bound": 8, "n_params": 11, "points": points, "pivots": pivots,
            "rows": rows}


def test_rows_with_a_zero_layer_1_vector_need_no_pivots():
    assert cfd.upper_bound(SMALL.architecture) == 8
    v = VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION]
    ev = small_ev([["-1", "-1"]], [], [[0, 0, 0], [0, 0, 1], [0, 0, 2]], rank=1)
    assert jacobian_rank_near(SMALL, [(F(-1), F(-1))]) == 1
    assert rank(SMALL, ev) == ((1, 0, 1, 1, 3), 1 * 11 + 1 * (4 + 2 + 1) * 3 + 3 * 5 + 1 * 1 * 5 * 3 // 64 + 0)
    assert v(ev, Context(SMALL, "fd", Budget())) == \
        "1 generic points (exact), rank 1 = 3·0 + 1 modulo 101 (recomputed): dim_fun >= 1, U = 8"
    # a row at (-1, 1/2) (point 1, output 0) keeps a layer-1 part that no pivot can remove
    bad = small_ev([["-1", "-1"], ["-1", "1/2"]], [], [[0, 0, 2], [1, 0, 0]])
    with pytest.raises(CheckFailed) as e:
        v(bad, Context(SMALL, "fd", Budget()))
    assert (e.value.claim, e.value.reason) == \
        ("fd", "the layer-1 vector of point 1, output 0 is nonzero and there are no pivots")
    # with (1, 0) as pivot the two regions give rank 4 = 3·1 + 1, the exact rank there
    ok = dict(bad, pivots=[[1, 0]], rows=[[0, 0, 2], [1, 0, 0], [1, 0, 1], [1, 0, 2]], rank=4)
    assert jacobian_rank_near(SMALL, [(F(-1), F(-1)), (F(-1), F(1, 2))]) == 4
    assert v(ok, Context(SMALL, "fd", Budget())) == \
        "2 generic points (exact), rank 4 = 3·1 + 1 modulo 101 (recomputed): dim_fun >= 4, U = 8"


def test_the_exact_signs_pass_a_pre_activation_of_one():
    """The exact evaluation (one flint integer product per layer for all points) keeps a positive pre-activation
    of exactly 1 (x ↦ relu(x) at x = 1, over the layers' common denominators) for the next layer: there
    2·1 − 1 > 0, where dropping it gives −1; each point keeps its own denominator (x = 1/3 and 1/5 give
    1/3 − 1/2 < 0 and 1/5 − 1/2 < 0 in layer 2)."""
    from reluid.checker.fundim import _hidden_signs, _integer_layers

    net = Network.from_lists([([[1]], [0]), ([[1]], [F(-1, 2)]), ([[1]], [0])])
    got = _hidden_signs(_integer_layers(net), [(F(1),), (F(1, 3),), (F(1, 5),), (F(-1),)])
    assert got == [[[1], [1]], [[1], [-1]], [[1], [-1]], [[-1], [-1]]]
    assert _hidden_signs(_integer_layers(net), []) == []
