"""The dead-side translation θ_{j,δ} (reluid/analysis/deep/h4_moves.py, Proposition M.1): witnesses verified exactly."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.equivalence import equivalent
from reluid.analysis.deep.h4_moves import DEAD_SIDE_TRANSLATION, find_h4_moves, moves_hyperplane, translated
from reluid.analysis.deep.mechanisms import detect_mechanisms
from reluid.analysis.deep.two_layers import analyse_two_layers
from reluid.io.loader import load
from reluid.model.network import Network
from reluid.errors import InvalidArgument
from tests.paths import EXAMPLES
from tests.two_layer_nets import CERTIFIED, glr, net

#: docs/mathematics.md Remark 10.14: f = σ(x_1 − 1), H1 = {x_1 = 0}; fails only H4
REMARK = net([[1, 0]], [0], [[1]], [-1], [[1]], [0])
#: planted (2, 2, 2, 1): g_1 = σ(x_1) − 2 (the only consumer of neuron 1, dead on {x_1 ≤ 2}),
#: g_2 = σ(x_2) − 1 (the only consumer of neuron 2, dead on {x_2 ≤ 1}): both lines slide
PLANTED = net([[1, 0], [0, 1]], [0, 0], [[1, 0], [0, 1]], [-2, -1], [[1, 1]], [0])


def test_remark_10_14_witness_is_exact():
    # the text's θ′: a′ = −1/2, w′ = −1/2 is θ_{1,1/2}
    w = translated(REMARK, 0, F(1, 2))
    assert w.layers[0].bias == (F(-1, 2),) and w.layers[1].bias == (F(-1, 2),)
    eq = equivalent(REMARK, w)
    assert eq.equal is True and eq.method == "region split" and eq.same_orbit is False
    assert moves_hyperplane(REMARK, 0, F(1, 2))
    moves, undecided = find_h4_moves(REMARK)
    assert moves and not undecided and moves[0].kind == DEAD_SIDE_TRANSLATION
    assert equivalent(REMARK, moves[0].witness).equal is True
    # the family of the remark is δ ∈ [0, 1]: beyond it the consumer comes alive on the moved strip
    assert equivalent(REMARK, translated(REMARK, 0, F(3, 2))).equal is False
    # H4 fails and the known mechanisms do not explain the symmetry
    r = analyse_two_layers(REMARK, stop_early=False)
    assert [h.holds for h in r.hypotheses][-1] is False
    assert not detect_mechanisms(REMARK, prover="never").mechanisms


def test_planted_witness_and_family():
    moves, _ = find_h4_moves(PLANTED, per_neuron=3)
    assert {m.neuron for m in moves} == {0, 1}
    for m in moves:
        assert equivalent(PLANTED, m.witness).equal is True
    # δ negative (the line moves into the dead side) works as well
    assert equivalent(PLANTED, translated(PLANTED, 0, F(-1, 4))).equal is True


@pytest.mark.parametrize("name", ["certified", "example file", "glr"])
def test_detector_does_not_fire_on_certified_networks(name):
    if name == "certified":
        nets = [CERTIFIED]
    elif name == "example file":
        nets = [load(str(EXAMPLES / "two_layers_certified.json"))]
    else:
        rng = random.Random(5)
        nets = [n for n in (glr((2, 3, 3, 1), rng) for _ in range(12)) if analyse_two_layers(n).applies][:3]
        assert nets
    for n in nets:
        assert analyse_two_layers(n).verdict.value == "no-hidden-symmetries"
        moves, _ = find_h4_moves(n)
        assert moves == ()


def test_forgery_translation_without_premise_is_refuted():
    # on the certified network every consumer is alive somewhere on {u_j ≤ 0}: the translation changes f
    for j in range(2):
        assert equivalent(CERTIFIED, translated(CERTIFIED, j, F(1, 4))).equal is False


def test_bad_input():
    with pytest.raises(InvalidArgument):
        translated(REMARK, 3, 1)
    with pytest.raises(InvalidArgument):
        find_h4_moves(Network.from_lists([([[1, 0]], [0]), ([[1]], [0])]))


def test_float_line_search_proposes_and_exact_check_decides():
    from reluid.analysis.deep.h4_moves import float_line_search
    r = float_line_search(REMARK)
    assert r.competitors
    for c in r.competitors:           # every reported competitor is exactly equal and moves H_1
        assert equivalent(REMARK, c).equal is True
        assert c.layers[0].bias != REMARK.layers[0].bias
    # on a certified network nothing is proposed as a competitor
    assert float_line_search(CERTIFIED).competitors == ()


def test_a_dead_side_family_lowers_the_functional_dimension():
    # the one-parameter family θ_{1,t} is a continuous hidden symmetry: dim_fun < U exactly;
    # on the certified network (no family) dim_fun = U
    from reluid.analysis.deep.cells import exact_functional_dimension
    fd = exact_functional_dimension(REMARK)
    assert fd.exact and fd.rank < fd.upper_bound
    fd = exact_functional_dimension(CERTIFIED)
    assert fd.exact and fd.rank == fd.upper_bound
