"""The two-layer checker (reluid/checker/two_layers.py) rule by rule: each check rejects with its own message.

The forgery suites (test_two_layer_forgeries.py) show that forged certificates are rejected; these
tests pin down *which* check rejects each planted defect (the exact message, naming the item and the
condition of docs/mathematics.md §8 that fails), the work each phase charges, the H4 cover search
on honest evidence too thin for Lemma 10.12's count, and the flip θ^{F1,F2} read back from a
witness.  A check that never fires, or fires on the wrong item, fails one of them.

Networks (x ↦ V σ(W σ(A x + a) + w) + c, tests/two_layer_nets.py):
``CERTIFIED`` (A = I, W = [[1,2],[2,1],[1,1]], w = (-1,-3,-5)) and variants of it with one planted
defect each.  Evidence is written out by hand (the vertex zeros and wall points solve the linear
equations of g^s_k on the 2-dimensional input space).
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from reluid.checker import search as S
from reluid.checker import two_layers as T
from reluid.checker.registry import Budget, Context, WorkLimit
from reluid.errors import CheckFailed
from reluid.model.network import Network
from reluid.verdicts import Mechanism
from tests.two_layer_nets import CERTIFIED, net

#: the deep-two-layer-hypotheses evidence the producer writes for CERTIFIED
EVIDENCE = {
    "vertices": [{"signs": "++", "point": [1, 1], "zeros": [["1/3", "1/3"], [1, 1], [4, 1]]},
                 {"signs": "+-", "point": [1, -1], "zeros": [[1, -1], ["3/2", -1], [5, -1]]},
                 {"signs": "-+", "point": [-1, 1], "zeros": [[-1, "1/2"], [-1, 3], [-1, 5]]}],
    "edges": [{"signs": "++", "label": 0}, {"signs": "++", "label": 1}],
    "flats": [{"signs": "++", "neuron": 0, "unit": 0, "point": [0, "1/2"]},
              {"signs": "++", "neuron": 0, "unit": 1, "point": [0, 3]},
              {"signs": "++", "neuron": 0, "unit": 2, "point": [0, 5]},
              {"signs": "++", "neuron": 1, "unit": 0, "point": [1, 0]},
              {"signs": "++", "neuron": 1, "unit": 1, "point": ["3/2", 0]},
              {"signs": "++", "neuron": 1, "unit": 2, "point": [5, 0]}],
}

#: a GLR-style Ω(3,3,3,1) network (tests/two_layer_nets.glr, seed 2) and its honest evidence with two of the
#: distinct bend flats (lines) on each H_j kept: Lemma 10.12's count fails (sorted (2, 2, 2): 2 > 2), and
#: no plane other than the H_i holds the flats of any I by |I| planes
GLR3 = net([[F(-7, 4), F(-3, 2), F(-3, 2)], [F(3, 4), F(-3, 4), F(1, 4)], [0, F(-1, 2), F(-7, 4)]],
           [F(-1, 2), F(1, 2), F(1, 2)],
           [[3, F(9, 4), F(3, 2)], [F(9, 4), 2, F(9, 4)], [F(5, 4), F(1, 4), F(1, 4)]],
           [F(-23, 4), F(-13, 2), F(-11, 2)], [[1, F(5, 4), 2]], [F(-1, 2)])
GLR3_EVIDENCE = {
    "vertices": [
        {"signs": "+++", "point": ["-1/2", 0, 0], "zeros": [["25/57", -1, 0], ["8/39", -1, 0], ["-3/4", -2, 0]]},
        {"signs": "++-", "point": [-1, -1, 1], "zeros": [["-62/57", -1, 1], ["-74/39", -1, 1], ["-59/32", -2, 1]]},
        {"signs": "+-+", "point": [-1, 0, 0], "zeros": [["-26/21", 0, 0], ["-104/63", 0, 0], ["-96/35", 0, 0]]},
        {"signs": "+--", "point": [-3, 2, 0], "zeros": [["-65/21", 2, 0], ["-230/63", 2, 0], ["-158/35", 2, 0]]},
        {"signs": "-++", "point": [0, 0, 0], "zeros": [["62/27", 0, 0], ["35/12", 0, 0], [28, 0, 0]]},
        {"signs": "-+-", "point": [2, 2, 0], "zeros": [["128/27", 2, 0], ["17/3", 2, 0], ["92/3", 2, 0]]},
        {"signs": "--+", "point": ["-1/2", "1/2", 0], "zeros": [[0, "23/6", -3], [0, "20/9", -2], [7, 6, -14]]}],
    "edges": [{"signs": "+++", "label": 0}, {"signs": "+++", "label": 1}, {"signs": "+++", "label": 2},
              {"signs": "-++", "label": 1}, {"signs": "-++", "label": 2}, {"signs": "+-+", "label": 2}],
    "flats": [{"signs": "+-+", "neuron": 0, "unit": 0, "point": [-1, "23/6", -3]},
              {"signs": "+-+", "neuron": 0, "unit": 1, "point": ["-10/21", "20/9", -2]},
              {"signs": "-++", "neuron": 1, "unit": 0, "point": ["25/6", "23/6", -3]},
              {"signs": "-++", "neuron": 1, "unit": 2, "point": [10, 6, -14]},
              {"signs": "-++", "neuron": 2, "unit": 0, "point": ["101/27", 1, 0]},
              {"signs": "+++", "neuron": 2, "unit": 0, "point": ["-221/228", "-3/4", "1/2"]}],
}


#: the work each phase charges for CERTIFIED (n0, n1, n2) = (2, 2, 3): one rank of three vectors of
#: length n0 + 1 costs 3 (n0 + 1)^2 = 27 steps
RANK = 27
VERTICES = 3 * (3 * (2 + 2 + 2) + 3 * RANK)          # per vertex: n2 (n1 + n0 + 2) + C(n2, 2) ranks
EDGES = 2 * (3 + 1) * RANK                            # per edge: C(n2, 2) + 1 ranks
FLATS = 6 * (2 * 3 + 2) * RANK                        # per flat: 2 n2 + 2 ranks


def ev(**changes):
    d = copy.deepcopy(EVIDENCE)
    d.update(changes)
    return d


def ctx(network=CERTIFIED, limit=None):
    return Context(network, "h", Budget() if limit is None else Budget(limit=limit))


def rejects(evidence, reason, network=CERTIFIED):
    with pytest.raises(CheckFailed) as e:
        T.verify_two_layer_hypotheses(evidence, ctx(network))
    assert (e.value.claim, e.value.reason) == ("h", reason)


def variant(W=None, w=None, A=None, a=None, V=None):
    """CERTIFIED with some of its layers replaced."""
    return net(A or [[1, 0], [0, 1]], a or [0, 0], W or [[1, 2], [2, 1], [1, 1]], w or [-1, -3, -5],
               V or [[1, 1, 1]], [0])


# ---- the honest evidence: the message and the work, exactly ------------------------------

def test_the_honest_evidence_is_accepted_with_what_was_checked():
    c = ctx()
    msg = T.verify_two_layer_hypotheses(EVIDENCE, c)
    assert msg == ("H0 recomputed; 3 full regions, 2 rigid edges (connected, every label 1..2); 6 distinct bend "
                   "flats (per H_j: [3, 3]) verified (B1)–(B4); H4 by Lemma 10.12's count (sorted, b_(m) > m: no "
                   "search): H0–H4 of docs/mathematics.md §8 hold (recomputed)")
    assert c.budget.used == VERTICES + EDGES + FLATS == 297 + 216 + 1296


@pytest.mark.parametrize("limit, what, steps, used", [
    (VERTICES - 1, "the full-region checks (F1–F3)", VERTICES, 0),
    (VERTICES + EDGES - 1, "the rigidity checks of the edges (H3)", EDGES, VERTICES),
    (VERTICES + EDGES + FLATS - 1, "the bend-flat checks (B1–B4)", FLATS, VERTICES + EDGES),
])
def test_each_phase_charges_its_work_before_it_starts(limit, what, steps, used):
    with pytest.raises(WorkLimit) as e:
        T.verify_two_layer_hypotheses(EVIDENCE, ctx(limit=limit))
    assert e.value.reason == (f"{what} takes {steps:,} steps, past the checker's work limit ({limit:,} steps per "
                              f"certificate, {used:,} used; reluid check --work-limit raises it)")
    T.verify_two_layer_hypotheses(EVIDENCE, ctx(limit=VERTICES + EDGES + FLATS))      # exactly enough


# ---- the network (§8 and H0) -------------------------------------------------------------

def test_the_network_must_have_two_hidden_layers_and_n0_at_least_2():
    shallow = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 1]], [0])])
    rejects(EVIDENCE, "docs/mathematics.md §8 is about two hidden layers; the architecture is (2, 2, 1)", shallow)
    line = net([[1], [2]], [0, 1], [[1, 1]], [0], [[1]], [0])
    rejects(EVIDENCE, "docs/mathematics.md §8 needs input dimension n0 >= 2", line)
    wide = lambda n1: net([[1, j] for j in range(n1)], [0] * n1, [[1] * n1], [0], [[1]], [0])
    assert T._two_layers(ctx(wide(T.MAX_WIDTH))) is not None                # 16 neurons: within the limit
    rejects(EVIDENCE, "n1 = 17 exceeds the checker's limit 16", wide(T.MAX_WIDTH + 1))


def test_h0_is_recomputed_from_the_network():
    rejects(EVIDENCE, "H0 fails: A_2 = 0", variant(A=[[1, 0], [0, 0]], a=[0, 1]))
    rejects(EVIDENCE, "H0 fails: the rows (A_1, a_1) and (A_2, a_2) are proportional",
            variant(A=[[1, 0], [2, 0]]))
    rejects(EVIDENCE, "H0 fails: V_(:,2) = 0", variant(V=[[1, 0, 1]]))
    # rows with the same A but another bias are not proportional, and a V column nonzero in another output
    two_out = net([[1, 0], [0, 1]], [0, 0], [[1, 2], [2, 1], [1, 1]], [-1, -3, -5], [[1, 0, 1], [0, 1, 0]], [0, 0])
    T._h0(ctx(two_out), T._Theta(two_out))
    same_a = net([[1, 0], [1, 0]], [0, 1], [[1, 2], [2, 1], [1, 1]], [-1, -3, -5], [[1, 1, 1]], [0])
    T._h0(ctx(same_a), T._Theta(same_a))


def test_the_evidence_must_have_exactly_its_three_fields():
    rejects({"vertices": [], "edges": []}, "two-layer evidence must have exactly the fields "
                                            "['edges', 'flats', 'vertices']")
    rejects([1, 2, 3], "two-layer evidence must have exactly the fields ['edges', 'flats', 'vertices']")


# ---- the vertices: full regions (F1–F3) --------------------------------------------------

def test_vertex_reading():
    rejects(ev(vertices="++"), "vertices must be a list")
    rejects(ev(vertices=[{"signs": "++", "point": [1, 1]}]),
            "vertex 1 must have exactly the fields ['point', 'signs', 'zeros']")
    bad = ev()
    bad["vertices"][1]["signs"] = "+"
    rejects(bad, "vertex 2: signs must be a string of 2 characters '+' or '-', got '+'")
    bad = ev()
    bad["vertices"][2] = copy.deepcopy(bad["vertices"][1])
    rejects(bad, "vertex 3: the region +- is listed twice")
    bad = ev()
    bad["vertices"][1]["point"] = [1]
    rejects(bad, "vertex 2: a point needs 2 coordinates")
    bad["vertices"][1]["point"] = "1"
    rejects(bad, "vertex 2: expected a list of numbers, got str")
    bad = ev()
    bad["vertices"][1]["zeros"] = {"1": 1}
    rejects(bad, "vertex 2 zeros must be a list")
    bad = ev()
    bad["vertices"][1]["zeros"] = bad["vertices"][1]["zeros"][:2]
    rejects(bad, "vertex 2: 2 zeros, expected one per layer-2 neuron (3)")
    bad = ev()
    bad["vertices"][1]["zeros"][2] = [5]
    rejects(bad, "vertex 2 zero 3: a point needs 2 coordinates")


def test_a_vertex_point_must_lie_in_its_open_region():
    for point, i in (([1, 0], 1), ([0, -1], 1), ([-1, -1], 1), (["1/5", 2], 2)):
        bad = ev()
        bad["vertices"][i]["point"] = point
        signs = bad["vertices"][i]["signs"]
        rejects(bad, f"vertex {i + 1}: the point is not in the region R_{signs}")


def test_each_zero_must_be_a_zero_of_its_g_inside_the_region():
    bad = ev()
    bad["vertices"][0]["zeros"][1] = [2, 2]                   # in R_++, but g_2 = 2x + y - 3 = 3 there
    rejects(bad, "vertex 1: zero 2 is not a point of R_++ where g_2 = 0 (F2)")
    bad = ev()
    bad["vertices"][0]["zeros"][2] = [6, -1]                  # g_3 = x + y - 5 = 0, but outside R_++
    rejects(bad, "vertex 1: zero 3 is not a point of R_++ where g_3 = 0 (F2)")
    bad = ev()
    bad["vertices"][2]["zeros"][0] = [-1, "1/3"]              # on R_-+, g_1 = 2y - 1
    rejects(bad, "vertex 3: zero 1 is not a point of R_-+ where g_1 = 0 (F2)")


def test_a_g_constant_on_its_region_is_f1():
    flat_on_minus = variant(W=[[0, 2], [2, 1], [1, 1]])        # on R_+-, g_1 = W_11 x - 1 = -1
    bad = ev()
    bad["vertices"][0]["zeros"][0] = [1, "1/2"]                # on R_++, g_1 = 2y - 1
    rejects(bad, "vertex 2: g_1 is constant on R_+- (F1 fails)", flat_on_minus)


def test_proportional_gs_are_f3():
    twice = variant(W=[[1, 2], [2, 4], [1, 1]], w=[-1, -2, -5])    # g_2 = 2 g_1 on R_++
    bad = ev()
    bad["vertices"][0]["zeros"] = [["1/3", "1/3"], ["1/3", "1/3"], [4, 1]]
    rejects(bad, "vertex 1: g_1 and g_2 are proportional on R_++ (F3 fails)", twice)
    later = variant(W=[[1, 2], [2, 1], [4, 2]], w=[-1, -3, -6])    # g_3 = 2 g_2 on R_++ (k, k' = 2, 3)
    bad = ev()
    bad["vertices"][0]["zeros"] = [["1/3", "1/3"], [1, 1], [1, 1]]
    rejects(bad, "vertex 1: g_2 and g_3 are proportional on R_++ (F3 fails)", later)


# ---- the edges: rigid, connected, every label (H2, H3) -----------------------------------

def test_edge_reading():
    rejects(ev(edges={"signs": "++"}), "edges must be a list")
    rejects(ev(edges=[]), "H2∧H3 needs edges")
    rejects(ev(edges=[{"signs": "++"}]), "edge 1 must have exactly the fields ['label', 'signs']")
    rejects(ev(edges=[{"signs": "++", "label": 0}, {"signs": "+", "label": 1}]),
            "edge 2: signs must be a string of 2 characters '+' or '-', got '+'")
    rejects(ev(edges=[{"signs": "++", "label": 0}, {"signs": "++", "label": 2}]),
            "edge 2 label must be an integer in [0, 2), got 2")
    rejects(ev(edges=[{"signs": "++", "label": 0}, {"signs": "-+", "label": 0}]),
            "edge 2: the sign of neuron 1 in -+ must be '+'")
    rejects(ev(edges=[{"signs": "++", "label": 0}, {"signs": "+-", "label": 0}]),
            "edge 2: both regions +- and -- must be listed (and verified) full vertices")
    rejects(ev(edges=[{"signs": "-+", "label": 1}]),
            "edge 1: both regions -+ and -- must be listed (and verified) full vertices")


def test_a_non_rigid_edge_is_h3():
    """On R_++ of this net g_1 = (1, 2, -1) and g_2 = (3, 2, -1): rank[u_1; g_1; g_2] = 2."""
    lax = variant(W=[[1, 2], [3, 2], [1, 1]], w=[-1, -1, -5])
    th = T._Theta(lax)
    for edges, reason in (([{"signs": "++", "label": 0}], "edge 1: rank[u_1; g_1; g_2] < 3 on R_++: not rigid (H3)"),
                          ([{"signs": "++", "label": 1}, {"signs": "++", "label": 0}],
                           "edge 2: rank[u_1; g_1; g_2] < 3 on R_++: not rigid (H3)")):
        with pytest.raises(CheckFailed) as e:
            T._edges(ctx(lax), th, edges, {(1, 1), (-1, 1), (1, -1)})
        assert e.value.reason == reason
    third = variant(W=[[1, 2], [2, 1], [3, 2]], w=[-1, -3, -1])     # g_3 = (3, 2, -1): (k, k') = (1, 3)
    with pytest.raises(CheckFailed) as e:
        T._edges(ctx(third), T._Theta(third), [{"signs": "++", "label": 0}], {(1, 1), (-1, 1)})
    assert e.value.reason == "edge 1: rank[u_1; g_1; g_3] < 3 on R_++: not rigid (H3)"


def test_the_edges_must_be_connected_and_carry_every_label():
    rejects(ev(edges=[{"signs": "++", "label": 0}]), "no edge carries the label(s) [2]: the edge set must cover "
                                                     "every layer-1 neuron (H2, docs/mathematics.md §8.3)")
    # three of GLR3's rigid edges, one per label: +++ – -++ – --+ and, apart, +-+ – +--
    apart = copy.deepcopy(GLR3_EVIDENCE)
    apart["edges"] = [apart["edges"][t] for t in (0, 3, 5)]
    rejects(apart, "the edges form 2 connected pieces, not one (H2)", GLR3)
    th = T._Theta(GLR3)
    vertices = T._vertices(ctx(GLR3), th, GLR3_EVIDENCE["vertices"])
    assert len(vertices) == 7
    assert T._edges(ctx(GLR3), th, GLR3_EVIDENCE["edges"], vertices) == 6
    joined = copy.deepcopy(GLR3_EVIDENCE["edges"])
    assert T._edges(ctx(GLR3), th, [joined[t] for t in (0, 3, 5, 1)], vertices) == 4     # +++ – +-+ joins them


# ---- the bend flats (B1–B4) ----------------------------------------------------------------

def _flat(**kw):
    f = {"signs": "++", "neuron": 0, "unit": 0, "point": [0, "1/2"]}
    f.update(kw)
    return f


def _flats_reject(flats, reason, network=CERTIFIED):
    with pytest.raises(CheckFailed) as e:
        T._flats(ctx(network), T._Theta(network), flats)
    assert (e.value.claim, e.value.reason) == ("h", reason)


def test_flat_reading():
    rejects(ev(flats="flats"), "flats must be a list")
    _flats_reject([{"signs": "++", "neuron": 0, "unit": 0}],
                  "flat 1 must have exactly the fields ['neuron', 'point', 'signs', 'unit']")
    _flats_reject([_flat(), _flat(signs="+++")], "flat 2: signs must be a string of 2 characters '+' or '-', got "
                                                 "'+++'")
    _flats_reject([_flat(neuron=2)], "flat 1 neuron must be an integer in [0, 2), got 2")
    _flats_reject([_flat(unit=3)], "flat 1 unit must be an integer in [0, 3), got 3")
    _flats_reject([_flat(point=[0])], "flat 1: a point needs 2 coordinates")
    _flats_reject([_flat(signs="-+")], "flat 1: the sign of neuron 1 must be '+'")


def test_the_number_of_flats_is_bounded():
    _flats_reject([_flat()] * (T.MAX_FLATS + 1), "4001 flats exceed the checker's limit 4000")
    # at the limit the flats are read (and the first bad one named)
    _flats_reject([_flat(unit=3)] + [_flat()] * (T.MAX_FLATS - 1), "flat 1 unit must be an integer in [0, 3), got 3")


def test_b1_b2_b3():
    _flats_reject([_flat()], "flat 1: W_(1,1) = 0 (B1)", variant(W=[[0, 2], [2, 1], [1, 1]]))
    _flats_reject([_flat()], "flat 1: the gradients of u_1 and g_1 are dependent (B2)",
                  variant(W=[[1, 0], [2, 1], [1, 1]]))
    twice = variant(W=[[1, 2], [2, 4], [1, 1]], w=[-1, -2, -5])    # g_2 = 2 g_1 on R_++
    _flats_reject([_flat()], "flat 1: g_2 lies in span(u_1, g_1) but not in span(u_1) (B3)", twice)
    _flats_reject([_flat(unit=1, point=[0, "1/2"])], "flat 1: g_1 lies in span(u_1, g_2) but not in span(u_1) (B3)",
                  twice)


def test_b3_allows_a_g_in_span_u_j():
    """g_3 = (1, 0, 0) = u_1 on R_++: it lies in span(u_1) itself, which (B3) allows."""
    along = variant(W=[[1, 2], [2, 1], [1, 0]], w=[-1, -3, 0])
    th = T._Theta(along)
    assert th.g((1, 1))[2] == (F(1), F(0), F(0))
    got = T._flats(ctx(along), th, [_flat()])
    assert got == [(0, ((F(1), F(0), F(0)), (F(0), F(1), F(-1, 2))))]


def test_b4_the_point_is_on_the_wall_where_g_vanishes():
    for point in ([F(1, 10), F(1, 2)], [0, 1], [0, F(1, 2) + 1]):
        _flats_reject([_flat(point=[str(x) for x in point])],
                      "flat 1: the point is not on the wall {u_1 = 0, s_i u_i > 0 (i ≠ 1)} of R_++ with g_1 = 0 (B4)")
    # on H_2 with g_2 = 0 the point (3/2, 0) is on the wall; (-3/2, ...) is not: the other sign is wrong
    assert T._flats(ctx(), T._Theta(CERTIFIED), [_flat(neuron=1, unit=1, point=["3/2", 0])])
    lower = variant(W=[[1, 2], [2, 1], [1, 1]], w=[-1, 3, -5])    # g_2 = 2x + y + 3 = 0 at (-3/2, 0)
    _flats_reject([_flat(neuron=1, unit=1, point=["-3/2", 0])],
                  "flat 1: the point is not on the wall {u_2 = 0, s_i u_i > 0 (i ≠ 2)} of R_++ with g_2 = 0 (B4)",
                  lower)


def test_a_flat_listed_twice_or_from_another_region_counts_once():
    th = T._Theta(CERTIFIED)
    one = T._flats(ctx(), th, [_flat()])
    assert T._flats(ctx(), th, [_flat(), _flat()]) == one
    # the same flat {x = 0, y = 1/2} is B-verified from R_+- too when its g_1 there vanishes on it: not here
    assert len(T._flats(ctx(), th, EVIDENCE["flats"])) == 6
    assert [j for j, _ in T._flats(ctx(), th, EVIDENCE["flats"])] == [0, 0, 0, 1, 1, 1]


# ---- H4: the count, the cover search ------------------------------------------------------

def test_the_count_condition():
    flats = [(0, "a"), (0, "b"), (1, "c"), (1, "d"), (1, "e")]
    assert T._count_condition(flats, 2)                    # sorted (2, 3): 2 > 1, 3 > 2
    assert not T._count_condition(flats[1:], 2)            # (1, 3): 1 > 1 fails
    assert not T._count_condition(flats[:2] + flats[2:4], 2)   # (2, 2): 2 > 2 fails
    assert not T._count_condition(flats, 3)                # a third H_j with no flat
    assert T._count_condition([], 0)


def test_the_work_budget_bounds_the_cover_search(monkeypatch):
    """Before GLR3's last set I = {1, 2, 3}, 8483 steps are used; its search needs 5 nodes of 4 steps."""
    def limited(limit):
        return Context(GLR3, "h", Budget(limit=limit))

    message = ("the H4 cover search takes 12 steps, past the checker's work limit (8,491 steps per certificate, "
               "8,483 used; reluid check --work-limit raises it)")
    with pytest.raises(WorkLimit) as e:                 # room for 2 nodes: the search stops there, a third charged
        T.verify_two_layer_hypotheses(GLR3_EVIDENCE, limited(8491))
    assert e.value.reason == message
    monkeypatch.setattr(S, "COVER_LIMIT", 14)          # 1 node of COVER_LIMIT left when the budget runs out
    with pytest.raises(WorkLimit) as e:
        T.verify_two_layer_hypotheses(GLR3_EVIDENCE, limited(8491))
    assert e.value.reason == message
    monkeypatch.setattr(S, "COVER_LIMIT", 13)          # COVER_LIMIT runs out with the budget: the search's limit
    with pytest.raises(CheckFailed) as e:
        T.verify_two_layer_hypotheses(GLR3_EVIDENCE, limited(8491))
    assert not isinstance(e.value, WorkLimit)
    assert e.value.reason == "the H4 cover search exceeds the checker's limit of 13 nodes"


def test_h4_by_search_finds_the_cover_of_thin_honest_evidence():
    """Two flats on each H_j: the count fails and the search finds the two lines through (0, 1/2), (1, 0) and
    (0, 3), (3/2, 0), each a hyperplane other than H_1, H_2 through a flat on each."""
    thin = ev(flats=[EVIDENCE["flats"][t] for t in (0, 1, 3, 4)])
    c = ctx()
    with pytest.raises(CheckFailed) as e:
        T.verify_two_layer_hypotheses(thin, c)
    assert e.value.reason == ("H4 fails: for I = {1, 2} the 4 bend flats on those H_j are covered by 2 "
                              "hyperplane(s) other than the H_i")
    # the work: the four flats' checks, the 6 pairs of flats, the 4 lines through a flat on each H_j, and the
    # search, charged per set I (blocks + flats) and per node (blocks + 1)
    base = VERTICES + EDGES + 4 * 8 * RANK
    pairs, per_line = 6 * 3 * RANK, 4 * 4 * RANK
    sets = 3 * (4 + 4)                              # then one node (4 + 1 steps) for I = {1}, {2}, two for {1, 2}
    assert c.budget.used == base + pairs + per_line + sets + 2 * 5 + 10 == 2339
    one = ev(flats=[EVIDENCE["flats"][t] for t in (0, 3, 4, 5)])
    rejects(one, "H4 fails: for I = {1} the 1 bend flats on those H_j are covered by 1 hyperplane(s) other than "
                 "the H_i")


def test_h4_by_search_that_finds_no_cover():
    c = Context(GLR3, "h")
    msg = T.verify_two_layer_hypotheses(GLR3_EVIDENCE, c)
    assert msg == ("H0 recomputed; 7 full regions, 6 rigid edges (connected, every label 1..3); 6 distinct bend "
                   "flats (per H_j: [2, 2, 2]) verified (B1)–(B4); the checker searched: no cover of the flats of "
                   "any of the 7 sets I by |I| hyperplanes other than the H_i (3 hyperplanes through two flats): "
                   "H0–H4 of docs/mathematics.md §8 hold (recomputed)")
    used = c.budget.used
    # vertices 1176, edges 1152, flats 2304; the 15 pairs of flats 2880, the 3 planes through two of them 864;
    # then per set I (7 of them) its blocks and flats, 3 + 6, and 3 + 1 per node of its search: 1, 1, 1, 3, 2, 3, 5
    assert used == 1176 + 1152 + 2304 + 2880 + 864 + 7 * 9 + 4 * (1 + 1 + 1 + 3 + 2 + 3 + 5) == 8503
    assert isinstance(used, int)
    for limit, what, steps, before in ((7511, "the hyperplanes through two bend flats (H4)", 2880, 4632),
                                       (8375, "the flats on each such hyperplane (H4)", 864, 7512),
                                       (8384, "the H4 cover search", 9, 8376),
                                       (8388, "the H4 cover search", 4, 8385),
                                       (8502, "the H4 cover search", 20, 8483)):
        with pytest.raises(WorkLimit) as e:
            T.verify_two_layer_hypotheses(GLR3_EVIDENCE, Context(GLR3, "h", Budget(limit=limit)))
        assert e.value.reason == (f"{what} takes {steps:,} steps, past the checker's work limit ({limit:,} steps "
                                  f"per certificate, {before:,} used; reluid check --work-limit raises it)")
    T.verify_two_layer_hypotheses(GLR3_EVIDENCE, Context(GLR3, "h", Budget(limit=used)))     # exactly enough


def test_a_hyperplane_through_two_flats_with_a_zero_leading_coefficient():
    """The H4 search's hyperplanes are the functionals two flats share; one may lack x_1 (here ℓ = y - 1) and
    still be a hyperplane: only a functional without any gradient (a constant) is no hyperplane."""
    f1 = ([F(0), F(1), F(-1)], [F(1), F(0), F(0)])
    f2 = ([F(0), F(2), F(-2)], [F(1), F(1), F(5)])
    assert T._common_functional(f1, f2) == (F(0), F(1), F(-1))
    g1 = ([F(0), F(0), F(1), F(-1)], [F(1), F(0), F(0), F(0)])          # n0 = 3: ℓ = z - 1
    g2 = ([F(0), F(0), F(3), F(-3)], [F(0), F(1), F(0), F(0)])
    assert T._common_functional(g1, g2) == (F(0), F(0), F(1), F(-1))


def test_the_cover_search():
    a, b, c, d = 0, 1, 2, 3
    blocks = [frozenset({a, b}), frozenset({c, d}), frozenset({a, c})]
    assert S.cover(frozenset(), blocks, 0, [10]) == []
    assert S.cover(frozenset({a}), blocks, 0, [10]) is None        # no hyperplane left
    assert S.cover(frozenset({a, b, c, d}), blocks, 2, [10]) == [frozenset({a, b}), frozenset({c, d})]
    assert S.cover(frozenset({a, b, c, d}), blocks, 1, [10]) is None
    assert S.cover(frozenset({a, b, c}), [frozenset({a, b}), frozenset({a, c})], 2, [10]) == [
        frozenset({a, b}), frozenset({c})]
    assert S.cover(frozenset({a, d}), [], 2, [10]) == [frozenset({a}), frozenset({d})]
    assert S.cover(frozenset({a, d}), [], 1, [10]) is None
    nodes = [10]
    S.cover(frozenset({a, b, c, d}), blocks, 2, nodes)
    assert nodes == [8]                                              # two nodes: {a, b}, then {c, d}
    assert S.cover(frozenset({a, b, c, d}), blocks, 2, [1]) == "limit"
    assert S.cover(frozenset({a, b, c, d}), blocks, 2, [2]) == [frozenset({a, b}), frozenset({c, d})]
    # a block that the chosen one leaves with a single element is dropped (its rest is a singleton anyway)
    assert S.cover(frozenset({a, b, c}), [frozenset({a, b}), frozenset({b, c})], 2, [10]) == [
        frozenset({a, b}), frozenset({c})]


def test_the_cover_search_is_bounded_and_charged(monkeypatch):
    thin = ev(flats=[EVIDENCE["flats"][t] for t in (0, 1, 3, 4)])
    monkeypatch.setattr(S, "COVER_LIMIT", 1)
    rejects(thin, "the H4 cover search exceeds the checker's limit of 1 nodes")
    c = ctx()
    with pytest.raises(CheckFailed):
        T.verify_two_layer_hypotheses(thin, c)
    with pytest.raises(CheckFailed) as e:              # with no step to spare it is still the node limit
        T.verify_two_layer_hypotheses(thin, ctx(limit=c.budget.used))
    assert not isinstance(e.value, WorkLimit) and "exceeds the checker's limit of 1 nodes" in e.value.reason
    monkeypatch.setattr(S, "COVER_LIMIT", 2_000_000)
    c = ctx()
    with pytest.raises(CheckFailed):
        T.verify_two_layer_hypotheses(thin, c)
    total = c.budget.used
    with pytest.raises(WorkLimit) as e:
        T.verify_two_layer_hypotheses(thin, ctx(limit=total - 1))
    assert "the H4 cover search takes" in e.value.reason


# ---- the witness θ^{F1,F2} -----------------------------------------------------------------

#: Ω(2,2,2,1) with 𝔉1 ∋ {1, 2} (W_(:,1) A_1 + W_(:,2) A_2 = 0) and 𝔉2 ∋ {1, 2} (V_(:,1) W_1 + V_(:,2) W_2 = 0)
FLIPPY = net([[1, 0], [-1, 0]], [1, 2], [[1, 1], [2, 2]], [3, -1], [[2, -1]], [5])


def _flip(theta, F1, F2):
    (A, a), (W, w), (V, c) = [(L.weight, L.bias) for L in theta.layers]
    A2 = [[-x for x in A[j]] if j in F1 else list(A[j]) for j in range(len(A))]
    a2 = [-a[j] if j in F1 else a[j] for j in range(len(a))]
    wF = [w[k] + sum((W[k][j] * a[j] for j in F1), F(0)) for k in range(len(w))]
    W2 = [[-x for x in W[k]] if k in F2 else list(W[k]) for k in range(len(W))]
    w2 = [-wF[k] if k in F2 else wF[k] for k in range(len(w))]
    c2 = [c[o] + sum((V[o][k] * wF[k] for k in F2), F(0)) for o in range(len(c))]
    return net(A2, a2, W2, w2, [list(r) for r in V], c2)


def test_a_flip_is_read_back_with_its_sets():
    for F1, F2, sets in (((0, 1), (), "F1 = {1, 2} and F2 = ∅"), ((), (0, 1), "F1 = ∅ and F2 = {1, 2}"),
                         ((0, 1), (0, 1), "F1 = {1, 2} and F2 = {1, 2}")):
        got = T.flips_construction(ctx(FLIPPY), FLIPPY, _flip(FLIPPY, F1, F2))
        assert got.kind == Mechanism.TWO_LAYER_FLIP and got.layer == 1
        assert got.neurons == tuple(F1) + tuple(2 + k for k in F2)
        assert got.what == (f"is θ^(F1,F2) with {sets}, both flip sets (recomputed), so it computes f_θ "
                            "(docs/mathematics.md §8, Proposition 8.11)")


def _flip_rejects(a, b, reason):
    with pytest.raises(CheckFailed) as e:
        T.flips_construction(ctx(a), a, b)
    assert (e.value.claim, e.value.reason) == ("h", reason)


def test_a_flip_witness_that_is_not_one():
    shallow = Network.from_lists([([[1, 0]], [0]), ([[1]], [0])])
    _flip_rejects(shallow, shallow, "θ^{F1,F2} is defined for two hidden layers")
    _flip_rejects(FLIPPY, FLIPPY, "the witness network equals θ")
    good = _flip(FLIPPY, (0, 1), (0, 1))
    L = [(list(map(list, l.weight)), list(l.bias)) for l in good.layers]

    def changed(layer, row=None, col=None, value=None, bias=None):
        M = copy.deepcopy(L)
        if value is not None:
            M[layer][0][row][col] = value
        if bias is not None:
            M[layer][1][row] = bias
        return Network.from_lists(M)

    # layer 1: a row neither kept nor negated (weight, or bias alone)
    _flip_rejects(FLIPPY, changed(0, 1, 0, value=3), "layer-1 row 2 of θ′ is neither θ's row nor its negative")
    _flip_rejects(FLIPPY, changed(0, 0, bias=5), "layer-1 row 1 of θ′ is neither θ's row nor its negative")
    _flip_rejects(FLIPPY, changed(0, 1, bias=7), "layer-1 row 2 of θ′ is neither θ's row nor its negative")
    # layer 2, output layer
    _flip_rejects(FLIPPY, changed(1, 1, 0, value=9), "layer-2 row 2 of θ′ is neither (W_k, w^F1_k) nor its negative")
    _flip_rejects(FLIPPY, changed(1, 0, bias=100), "layer-2 row 1 of θ′ is neither (W_k, w^F1_k) nor its negative")
    kept = _flip(FLIPPY, (0, 1), ())                   # F2 = ∅: layer 2 kept as (W_k, w^F1_k)
    K = [(list(map(list, l.weight)), list(l.bias)) for l in kept.layers]
    K[1][1][0] += 1
    _flip_rejects(FLIPPY, Network.from_lists(K), "layer-2 row 1 of θ′ is neither (W_k, w^F1_k) nor its negative")
    K = [(list(map(list, l.weight)), list(l.bias)) for l in kept.layers]
    K[1][0][1][0] += 1
    _flip_rejects(FLIPPY, Network.from_lists(K), "layer-2 row 2 of θ′ is neither (W_k, w^F1_k) nor its negative")
    _flip_rejects(FLIPPY, changed(2, 0, bias=100), "the output layer of θ′ is not (V, c + Σ_(k∈F2) V_(:,k) w^F1_k)")
    _flip_rejects(FLIPPY, changed(2, 0, 0, value=3), "the output layer of θ′ is not (V, c + Σ_(k∈F2) V_(:,k) w^F1_k)")


def test_a_flip_of_sets_that_are_not_flip_sets():
    # one neuron of the pair flipped: W_(:,1) A_1 ≠ 0
    _flip_rejects(FLIPPY, _flip(FLIPPY, (0,), ()), "F1 = {1} is not a flip set of layer 1: Σ_(j∈F1) W_(:,j) A_j ≠ 0")
    _flip_rejects(FLIPPY, _flip(FLIPPY, (), (1,)), "F2 = {2} is not a flip set of layer 2: Σ_(k∈F2) V_(:,k) W_k ≠ 0")
    # the second output row / second input column are checked too
    wide = net([[1, 0], [-1, 1]], [1, 2], [[1, 1], [2, 2]], [3, -1], [[2, -1], [0, 1]], [5, 0])
    _flip_rejects(wide, _flip(wide, (0, 1), ()), "F1 = {1, 2} is not a flip set of layer 1: Σ_(j∈F1) W_(:,j) A_j ≠ 0")
    _flip_rejects(wide, _flip(wide, (), (0, 1)), "F2 = {1, 2} is not a flip set of layer 2: Σ_(k∈F2) V_(:,k) W_k ≠ 0")


def test_theta_recomputes_g_on_every_region():
    th = T._Theta(CERTIFIED)
    assert th.g((-1, -1)) == [(F(0), F(0), F(-1)), (F(0), F(0), F(-3)), (F(0), F(0), F(-5))]
    assert th.g((1, -1)) == [(F(1), F(0), F(-1)), (F(2), F(0), F(-3)), (F(1), F(0), F(-5))]
    assert th.g((1, 1)) == [(F(1), F(2), F(-1)), (F(2), F(1), F(-3)), (F(1), F(1), F(-5))]
    assert th.u == [(F(1), F(0), F(0)), (F(0), F(1), F(0))]
    assert (th.n0, th.n1, th.n2, th.n3) == (2, 2, 3, 1)
