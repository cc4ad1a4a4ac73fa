"""docs/mathematics.md §8: the exact checks of H0–H4 and the flip families (reluid.analysis.deep.two_layers)."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.cells import same_function
from reluid.analysis.deep.orbit import same_orbit
from reluid.analysis.deep.two_layers import analyse_two_layers, flipped, signs_text
from reluid.analysis.deep.xsearch import available
from reluid.model.network import Network
from reluid.report.reasons import sentence
from reluid.verdicts import Reason, ReasonCode, Verdict, WFailure
from tests.two_layer_nets import CERTIFIED, D15, glr, net


LAYER1_FLIP = net([[1, 0], [-1, 0], [F(1, 2), 2]], [0, F(5, 2), -1],
                  [[1, 1, 3], [F(1, 4), F(1, 4), F(1, 2)], [F(3, 4), F(3, 4), 1]], [-9, F(-17, 4), F(-29, 4)],
                  [[-2, 2, 2]], [0])


def points(flats, j):
    return sorted(f.point for f in flats if f.neuron == j)


def test_the_certified_example():
    r = analyse_two_layers(CERTIFIED)
    assert r.verdict is Verdict.NO_HIDDEN and r.applies
    assert sorted(signs_text(f.signs) for f in r.full) == ["++", "+-", "-+"]
    assert [signs_text(s) for s, why in r.not_full] == ["--"]
    assert points(r.flats, 0) == [(0, F(1, 2)), (0, 3), (0, 5)]
    assert points(r.flats, 1) == [(1, 0), (F(3, 2), 0), (5, 0)]
    # three distinct flats on each H_j: sorted (3, 3) > (1, 2), so H4 holds by Lemma 10.12's count, with no
    # candidate hyperplane and no cover search (which would search 9 candidates and find no cover)
    assert r.candidates == 0 and "Lemma 10.12" in sentence(next(h.detail for h in r.hypotheses if h.name == "H4"))
    assert r.family1 == r.family2 == (frozenset(),)
    assert {e.label for e in r.edges} == {0, 1}


def test_the_cover_search_agrees_with_the_count_where_both_apply():
    """Lemma 8.6(e)'s search on the certified example: 9 candidate hyperplanes and no cover, as the count says."""
    from reluid.analysis.deep import two_layers as tl

    r = analyse_two_layers(CERTIFIED)
    an = tl._Analysis(CERTIFIED, 10_000, None, 4000)
    hyp, cover, ncand = an.h4_search(r.flats, [3, 3])
    assert hyp.holds and cover is None and ncand == 9


def test_lemma_d15_counterexample_is_two_orbits():
    r = analyse_two_layers(D15)
    assert r.verdict is Verdict.HIDDEN and r.applies
    assert points(r.flats, 0) == [(0, 4), (0, F(13, 3)), (0, 6)]
    assert points(r.flats, 1) == [(3, 0), (F(13, 3), 0), (8, 0)]
    assert r.witness_flips == (frozenset(), frozenset({0, 1, 2}))
    assert r.family1 == (frozenset(),) and set(r.family2) == {frozenset(), frozenset({0, 1, 2})}
    assert same_function(D15, r.witness)[0] and same_orbit(D15, r.witness) is None


def test_a_layer_one_flip():
    r = analyse_two_layers(LAYER1_FLIP)
    assert r.verdict is Verdict.HIDDEN and len(r.full) == 5
    assert r.witness_flips == (frozenset({0, 1}), frozenset())
    assert [len(points(r.flats, j)) for j in range(3)] == [3, 3, 6]
    assert same_function(LAYER1_FLIP, r.witness)[0] and same_orbit(LAYER1_FLIP, r.witness) is None


def test_both_flips_at_once():
    """𝔉1 = {∅, {1, 2}} and 𝔉2 = {∅, {1, 2, 3}}: the fibre is four orbits, the witness flips both layers."""
    both = net([[1, 0], [-1, 0], [-1, 2]], [0, 2, -2], [[2, 2, 2], [3, 3, 3], [-5, -5, -5]], [-5, -9, 16],
               [[1, 1, 1]], [0])
    r = analyse_two_layers(both)
    assert r.verdict is Verdict.HIDDEN and r.applies
    assert r.witness_flips == (frozenset({0, 1}), frozenset({0, 1, 2}))
    assert len(r.family1) * len(r.family2) == 4
    for F1 in r.family1:
        for F2 in r.family2:
            assert same_function(both, flipped(both, F1, F2))[0]
    assert same_orbit(both, r.witness) is None


def test_flipped_is_the_construction_of_section_8_1():
    t = flipped(LAYER1_FLIP, {0, 1}, set())
    A, W = t.layers[0], t.layers[1]
    assert A.weight[0] == (-1, 0) and A.bias[1] == F(-5, 2) and W.weight == LAYER1_FLIP.layers[1].weight
    assert W.bias == tuple(w + W.weight[k][1] * F(5, 2) for k, w in enumerate(LAYER1_FLIP.layers[1].bias))


def test_no_theorem_for_one_input_or_two_by_two():
    one = net([[1], [-1]], [0, 1], [[1, 2], [2, 1], [1, 1]], [-1, -3, -5], [[1, 1, 1]], [0])
    assert analyse_two_layers(one).verdict is Verdict.UNKNOWN
    rng = random.Random(4)
    for _ in range(8):          # every Ω(n0, 2, 2, ·) fails H4 (docs/mathematics.md §8.8)
        r = analyse_two_layers(glr((2, 2, 2, 1), rng), stop_early=False)
        assert r.verdict is Verdict.UNKNOWN and any(h.name == "H4" and h.holds is False for h in r.hypotheses)


#: Ω(2,3,3,1), i.i.d. on the 1/16 grid: Theorem 8.2 fails, Theorem W holds in x coordinates (W.3(a) and (b))
X_FRAME = Network.from_lists([
    ([[F(7, 16), 0], [F(1, 8), F(-5, 16)], [F(-11, 8), F(-17, 16)]], [F(-5, 4), F(17, 16), F(17, 16)]),
    ([[F(-7, 8), F(1, 2), F(-1, 8)], [F(9, 4), F(1, 2), F(3, 16)], [F(-23, 16), F(1, 16), F(29, 16)]],
     [F(-15, 16), -1, F(-5, 8)]),
    ([[F(-3, 4), F(-9, 16), F(-13, 8)]], [F(9, 16)])])


def test_budget_gives_unknown_with_the_size_left():
    # Theorem 8.2 runs out of strict systems; Theorem W in u coordinates (rank A = n1) needs none
    r = analyse_two_layers(CERTIFIED, max_systems=3)
    assert not r.applies_82 and r.applies_w and r.verdict is Verdict.NO_HIDDEN and r.pinning.systems == 0
    # n1 > n0: Theorem W's x frame needs strict systems too, and the budget stops both
    x = analyse_two_layers(X_FRAME, max_systems=3)
    assert "beyond the budget" in sentence(x.reason) and "3 strict systems" in sentence(x.reason)
    stopped = x.reason.params["theorem_8_2"]["params"]["stopped"]        # what stopped §8, as data
    assert stopped == Reason(ReasonCode.W_STRICT_BUDGET, {"systems": 4, "limit": 3}).to_dict()
    # the sign tree stopped before any region: the LP-guided search of the x frame is the only source of regions
    assert x.pinning is not None and (x.pinning.failed is not WFailure.REGIONS if available() else x.pinning.failed is WFailure.REGIONS)
    from reluid.analysis.deep.pinning import analyse_pinning
    from reluid.analysis.deep.two_layers import _Analysis
    regions = _Analysis(X_FRAME, 20000, None, 4000).regions()[0]
    p = analyse_pinning(X_FRAME, regions=regions, max_systems=5)
    assert not p.holds and p.failed is WFailure.BUDGET and p.detail.code is ReasonCode.W_STRICT_BUDGET
    assert p.detail.params == {"systems": 6, "limit": 5} and sentence(p.detail) == "more than 5 strict systems"
    assert analyse_pinning(X_FRAME, regions=regions).holds
    assert analyse_two_layers(X_FRAME).verdict is Verdict.NO_HIDDEN
    wide = Network.from_lists([([[1, j] for j in range(16)], [0] * 16), ([[1] * 16], [-1]), ([[1]], [0])])
    r = analyse_two_layers(wide, timeout=20)
    assert "beyond the size limit" in sentence(r.reason) and r.verdict is Verdict.UNKNOWN
    assert r.reason.params["theorem_8_2"]["code"] == "theorem-8.2-size-limit"


def test_without_highspy_the_x_frame_at_size_says_why(monkeypatch):
    from reluid.analysis.deep import xsearch
    monkeypatch.setattr(xsearch, "available", lambda: False)
    wide = Network.from_lists([([[1, j] for j in range(16)], [0] * 16), ([[1] * 16], [-1]), ([[1]], [0])])
    r = analyse_two_layers(wide)
    assert "beyond the size limit" in sentence(r.reason) and r.pinning.failed is WFailure.REGIONS
    assert r.pinning.detail == Reason(ReasonCode.W_NEEDS_REGIONS, {"n1": 16}) and "highspy" in sentence(r.pinning.detail)


@pytest.mark.parametrize("arch", [(2, 2, 3, 1), (2, 3, 3, 1), (3, 3, 3, 1)])
def test_glr_style_nets_are_mostly_certified_and_have_full_functional_dimension(arch):
    from reluid.analysis.deep.fundim import functional_dimension
    rng = random.Random(1)
    nets = [glr(arch, rng) for _ in range(6)]
    verdicts = [analyse_two_layers(n).verdict for n in nets]
    assert verdicts.count(Verdict.NO_HIDDEN) >= 3
    for n, v in zip(nets, verdicts):
        if v is Verdict.NO_HIDDEN:      # Lemma F.6's consistency check, with the public fundim
            assert functional_dimension(n, method="cells").certified


def test_the_cover_search_stops_at_its_node_budget_with_a_reason():
    """H4's cover search (Lemma 8.6(e)) for one I is bounded by nodes; past the bound it stops with a structured
    reason, nested in the §8 budget reason that the report words (it was a sentence in a Reason's place)."""
    from reluid.analysis.deep.two_layers import COVER_NODES, _Budget, _cover

    U, blocks = frozenset(range(6)), [frozenset({0, 1}), frozenset({2, 3}), frozenset({4, 5})]
    assert _cover(U, blocks, 3, [COVER_NODES]) is not None           # three blocks cover the six flats
    assert _cover(U, blocks, 2, [COVER_NODES]) is None               # two of at most two flats each cannot
    with pytest.raises(_Budget) as stop:
        _cover(U, blocks, 3, [2])
    assert stop.value.why == Reason(ReasonCode.H4_COVER_NODES, {"limit": COVER_NODES})
    words = sentence(Reason(ReasonCode.THEOREM_82_BUDGET, {"stopped": stop.value.why, "decided": ["H0", "H1"],
                                                            "regions": 7, "full": 7, "flats": 6, "tested": 7, "n1": 3}))
    assert words.startswith("beyond the budget of the §8 checks: the H4 cover search exceeded its node budget "
                            f"({COVER_NODES} nodes for one I); decided: H0, H1;")
