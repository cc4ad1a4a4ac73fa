"""The Theorem A3 checker (reluid/checker/triangular.py) on a certificate whose layer-1 blocks sum several
kernels: its exact rank decomposition, its work, and what it refuses (docs/mathematics.md §6.4).

A 4-7-4-3 network (n1 > n0, so a layer-1 neuron's block needs the kernels of W^1_S at several points: the
path through ``_kernel_rows``) is certified by the producer; the checker must find r = D - N = 71 =
14 + 3·4 + 45 and charge exactly its recorded work, and every change of an entry must change what it finds.
"""

from __future__ import annotations

import copy

import pytest

from reluid.analysis.deep.triangular import triangular_certificate
from reluid.certificates.schema import ClaimKind
from reluid.checker.registry import VERIFIERS, Budget, Context, WorkLimit
from reluid.checker.triangular import triangular_rank
from reluid.errors import CheckFailed
from tests.analysis.deep.test_triangular import evidence, mlp

WORK = 5982          # the steps the checker charges for this certificate (the formula of ``_charge``)


@pytest.fixture(scope="module")
def case():
    net = mlp((4, 7, 4, 3), 2)
    r = triangular_certificate(net, seed=0)
    assert r.full_rank
    ev = evidence(net, r)
    assert any(l == 1 and len(e) > 1 for l, _, e in ev["blocks"])
    return net, ev


def rank(net, ev, limit=1 << 40):
    return triangular_rank(net, copy.deepcopy(ev), Context(net, "fundim", Budget(limit=limit)))


def test_the_rank_decomposes_as_theorem_a3_says(case):
    net, ev = case
    t = rank(net, ev)
    assert (t.rank, t.r_bias, t.r_out, t.r_hidden, t.points) == (71, 14, 4, 45, len(ev["points"]))
    assert t.rank == net.n_params - sum(net.architecture[1:-1])
    line = VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION](copy.deepcopy(ev), Context(net, "fundim", Budget()))
    assert "71 = 14 + 3·4 + 45" in line


def test_the_work_is_charged_before_it_is_done(case):
    net, ev = case
    budget = Budget(limit=1 << 40)
    triangular_rank(net, copy.deepcopy(ev), Context(net, "fundim", budget))
    assert budget.used == WORK
    assert rank(net, ev, limit=WORK).rank == 71
    with pytest.raises(WorkLimit, match="triangular-certificate"):
        rank(net, ev, limit=WORK - 1)


def test_a_sum_of_layer_1_kernels_counts_each_point(case):
    """Dropping one point of a layer-1 block with several lowers r (the kernels' sum is smaller)."""
    net, ev = case
    j = next(t for t, (l, _, e) in enumerate(ev["blocks"]) if l == 1 and len(e) > 1)
    short = copy.deepcopy(ev)
    short["blocks"][j][2].pop()
    assert rank(net, short).rank < 71
    with pytest.raises(CheckFailed):
        VERIFIERS[ClaimKind.LOCAL_IDENTIFIABILITY](short, Context(net, "local", Budget()))


@pytest.mark.parametrize("change, match", [
    (lambda ev: ev["blocks"].append(copy.deepcopy(ev["blocks"][0])), "listed twice"),
    (lambda ev: ev["blocks"][0][2].append(copy.deepcopy(ev["blocks"][0][2][0])), "a point twice"),
    (lambda ev: ev["blocks"][0].__setitem__(0, 9), "layer"),
    (lambda ev: ev["blocks"][0].__setitem__(1, 99), "neuron"),
    (lambda ev: ev["blocks"][0][2][0].__setitem__(0, 10 ** 6), "point"),
    (lambda ev: ev["blocks"][0][2][0].__setitem__(1, [1, 2]), "combination"),
    (lambda ev: ev.__setitem__("bias_points", [10 ** 6]), "bias_points"),
    (lambda ev: ev.__setitem__("out_points", [-1]), "out_points"),
    (lambda ev: ev.__setitem__("points", []), "points"),
    (lambda ev: ev.__setitem__("prime", 4), "prime"),
])
def test_malformed_blocks_are_refused(case, change, match):
    net, ev = case
    bad = copy.deepcopy(ev)
    change(bad)
    with pytest.raises(CheckFailed, match=match):
        rank(net, bad)


def test_a_shallow_network_is_refused(case):
    from reluid.model.network import Network

    net, ev = case
    shallow = Network.from_lists([([[1, 0, 0, 0]], [0])])
    with pytest.raises(CheckFailed, match="hidden layers"):
        triangular_rank(shallow, copy.deepcopy(ev), Context(shallow, "fundim", Budget()))
