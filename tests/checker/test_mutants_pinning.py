"""The Theorem W checker (reluid/checker/pinning.py) rule by rule: each check rejects with its own message.

test_pinning_forgeries.py shows that forged pinning certificates are rejected; these tests pin down
*which* check rejects each planted defect (its exact message), the work the honest evidence costs, and
the checker's small exact routines (the normal form up to a factor, the determinant modulo p, the
orthant rule, the kernel, W.3(a) and (b)) on inputs with known answers.

The two honest evidences are the producer's for tests/analysis/deep/test_pinning.py's BASE (u frame,
rank A = n1 = 3) and tests/analysis/deep/test_two_layers.py's X_FRAME (x frame, n0 = 2 < n1 = 3),
written out here.
"""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction as F

import pytest

from reluid.checker import pinning as P
from reluid.checker.registry import Budget, Context, WorkLimit
from reluid.errors import CheckFailed
from reluid.model.network import Network
from tests.two_layer_nets import net

U_NET = net([[-2, F(1, 2), F(-9, 8)], [F(5, 8), F(-7, 8), F(-3, 16)], [F(1, 8), F(1, 2), F(-3, 16)]],
            [F(7, 8), F(-1, 16), F(13, 16)],
            [[F(17, 16), F(3, 8), F(-1, 16)], [F(1, 8), F(5, 16), F(-23, 16)], [F(3, 8), F(21, 16), F(-1, 4)]],
            [F(9, 16), F(17, 16), F(-1, 4)], [[F(15, 8), F(29, 16), F(1, 4)]], [F(17, 16)])
U_EV = {"frame": "u", "minor": [0, 1, 2],
        "regions": [{"signs": "--+"}, {"signs": "+-+"}, {"signs": "-++"}, {"signs": "+--"}, {"signs": "++-"}],
        "order": [{"neuron": 0, "seed": 0, "edges": [[0, 0], [0, 1]], "method": "b"},
                  {"neuron": 1, "seed": 0, "edges": [[0, 0], [0, 1]], "method": "b"},
                  {"neuron": 2, "seed": 3, "edges": [[3, 1], [3, 2]], "method": "b"}],
        "h4": {"method": "count", "flats": [
            {"signs": "++-", "neuron": 0, "unit": 2}, {"signs": "+-+", "neuron": 0, "unit": 0},
            {"signs": "+-+", "neuron": 0, "unit": 1}, {"signs": "+++", "neuron": 0, "unit": 0},
            {"signs": "++-", "neuron": 1, "unit": 2}, {"signs": "-++", "neuron": 1, "unit": 0},
            {"signs": "-++", "neuron": 1, "unit": 1}, {"signs": "+++", "neuron": 1, "unit": 0},
            {"signs": "+-+", "neuron": 2, "unit": 2}, {"signs": "-++", "neuron": 2, "unit": 2},
            {"signs": "+++", "neuron": 2, "unit": 2}]}}

X_NET = Network.from_lists([
    ([[F(7, 16), 0], [F(1, 8), F(-5, 16)], [F(-11, 8), F(-17, 16)]], [F(-5, 4), F(17, 16), F(17, 16)]),
    ([[F(-7, 8), F(1, 2), F(-1, 8)], [F(9, 4), F(1, 2), F(3, 16)], [F(-23, 16), F(1, 16), F(29, 16)]],
     [F(-15, 16), -1, F(-5, 8)]),
    ([[F(-3, 4), F(-9, 16), F(-13, 8)]], [F(9, 16)])])
X_EV = {"frame": "x", "minor": None, "regions": [
    {"signs": "+++", "point": [3, -3], "visible": [[0, ["86/19", -5]], [2, ["2304/797", -3]]],
     "invisible": [[1, {"y": ["1359/808", 0, "637/3232"], "z": "-119/202"}]]},
    {"signs": "++-", "point": [3, 0], "visible": [[0, ["128/41", -2]], [1, ["210/67", 0]]],
     "invisible": [[2, {"y": ["2593/2544", 0, "35/2544"], "z": "119/159"}]]},
    {"signs": "-+-", "point": [1, 0], "visible": [[0, ["11/4", "-3/2"]], [1, ["5/2", -2]]],
     "invisible": [[2, {"y": ["9/2", 0, "35/32"], "z": "119/2"}]]},
    {"signs": "-++", "point": [0, 0], "visible": [[0, ["21/10", -2]], [1, ["-69/50", 0]], [2, ["175/318", 0]]],
     "invisible": []},
    {"signs": "+--", "point": [3, 5], "visible": [[1, ["244/63", 5]]],
     "invisible": [[0, {"y": [1, 0, 0], "z": "8/7"}], [2, {"y": [1, 0, 0], "z": "16/23"}]]},
    {"signs": "--+", "point": [-9, 0], "visible": [[1, ["-307/66", 2]], [2, ["-573/319", 3]]],
     "invisible": [[0, {"y": [0, 0, 1], "z": 8}]]}],
    "order": [{"neuron": 0, "seed": 0, "edges": [[0, 2, ["1156/257", "-1239/257"]], [1, 0, ["20/7", "-51/35"]],
                                                 [2, 2, ["17/8", "-7/4"]]], "method": "b"},
              {"neuron": 1, "seed": 1, "edges": [[1, 0, ["20/7", "-13/7"]], [1, 1, ["244/63", "1559/315"]],
                                                 [2, 2, ["85/36", "-37/18"]]], "method": "a"},
              {"neuron": 2, "seed": 0, "edges": [[0, 0, ["20/7", "-5135/1743"]], [3, 1, ["-1679/1044", "1439/522"]]],
               "method": "b"}],
    "h4": {"method": "exhaustive", "flats": [
        {"signs": "+++", "neuron": 0, "unit": 2, "point": ["20/7", "-5135/1743"]},
        {"signs": "++-", "neuron": 0, "unit": 0, "point": ["20/7", "-51/35"]},
        {"signs": "++-", "neuron": 0, "unit": 1, "point": ["20/7", "-13/7"]},
        {"signs": "++-", "neuron": 1, "unit": 1, "point": ["244/63", "1559/315"]},
        {"signs": "-++", "neuron": 1, "unit": 1, "point": ["-473/108", "89/54"]},
        {"signs": "-++", "neuron": 1, "unit": 2, "point": ["-1679/1044", "1439/522"]},
        {"signs": "+++", "neuron": 2, "unit": 0, "point": ["1156/257", "-1239/257"]},
        {"signs": "-++", "neuron": 2, "unit": 0, "point": ["17/8", "-7/4"]},
        {"signs": "-++", "neuron": 2, "unit": 1, "point": ["85/36", "-37/18"]}]}}


def verify(network, evidence, limit=None):
    c = Context(network, "p", Budget() if limit is None else Budget(limit=limit))
    return P.verify_pinning(evidence, c), c.budget.used


def rejects(network, evidence, reason):
    with pytest.raises(CheckFailed) as e:
        verify(network, evidence)
    assert (e.value.claim, e.value.reason) == ("p", reason)


def changed(evidence, fn):
    d = copy.deepcopy(evidence)
    fn(d)
    return d


def layers(n):
    return [([list(r) for r in L.weight], list(L.bias)) for L in n.layers]


def with_layers(n, **kw):
    """n with (A, a), (W, w) or (V, c) replaced: kw keys A, a, W, w, V, c."""
    (A, a), (W, w), (V, c) = layers(n)
    return net(kw.get("A", A), kw.get("a", a), kw.get("W", W), kw.get("w", w), kw.get("V", V), kw.get("c", c))


# ---- the honest evidence: the message and the work, exactly ------------------------------

def test_the_honest_evidence_in_both_frames():
    msg, used = verify(U_NET, U_EV)
    assert msg == ("H0, H0′ recomputed; u frame (rank A = n1 by a nonsingular minor mod p); 5 regions with exact "
                   "visible sets; all 3 layer-2 neurons pinned along valid edges (Lemmas W.1–W.3); distinct bend "
                   "flats per H_j [4, 4, 3], H4 by count: the hypotheses of Theorem W hold")
    assert used == 706
    msg, used = verify(X_NET, X_EV)
    assert msg == ("H0, H0′ recomputed; x frame; 6 regions with exact visible sets; all 3 layer-2 neurons pinned "
                   "along valid edges (Lemmas W.1–W.3); distinct bend flats per H_j [3, 3, 3], H4 by exhaustive: the "
                   "hypotheses of Theorem W hold")
    assert used == 14648


@pytest.mark.parametrize("network, evidence, used", [(U_NET, U_EV, 706), (X_NET, X_EV, 14648)])
def test_the_work_is_charged(network, evidence, used):
    verify(network, evidence, limit=used)                  # exactly enough
    for limit in (used - 1, used // 2, used // 5, 1):
        with pytest.raises(WorkLimit):
            verify(network, evidence, limit=limit)


# ---- the network and the frame ------------------------------------------------------------

def test_the_network_and_the_frame():
    shallow = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 1]], [0])])
    rejects(shallow, U_EV, "Theorem W is about two hidden layers; the architecture is (2, 2, 1)")
    line = net([[1], [2]], [0, 1], [[1, 1]], [0], [[1]], [0])
    rejects(line, U_EV, "Theorem W needs input dimension n0 >= 2")
    rejects(U_NET, {k: v for k, v in U_EV.items() if k != "h4"},
            "pinning evidence must have exactly the fields ['frame', 'h4', 'minor', 'order', 'regions']")
    rejects(U_NET, dict(U_EV, frame="y"), "frame must be 'x' or 'u', got 'y'")
    rejects(X_NET, dict(X_EV, minor=[0, 1]), "the x frame has no minor")


@pytest.mark.parametrize("minor", [[0, 1], [0, 1, 3], [0, 0, 1], [0, 1, True], "012", [-1, 1, 2], [0, 1, 2, 0],
                                   None, [0, 1, "2"]])
def test_a_malformed_minor(minor):
    rejects(U_NET, dict(U_EV, minor=minor), "the u frame needs 'minor': 3 distinct column indices of A in [0, 3)")


def test_the_minor_must_be_nonsingular():
    assert verify(U_NET, dict(U_EV, minor=[2, 0, 1]))[0].startswith("H0, H0′ recomputed; u frame")
    (A, a), _, _ = layers(U_NET)
    A[2] = [x + y for x, y in zip(A[0], A[1])]            # rank A = 2; rows still pairwise non-proportional
    rejects(with_layers(U_NET, A=A), U_EV,
            "the listed columns of A do not give a nonsingular minor (mod p): rank A = n1 is not shown")


def test_the_determinant_modulo_p():
    p = 7
    assert P._det_mod([[2, 1], [1, 1]], p) == 1
    assert P._det_mod([[0, 1], [1, 0]], p) == p - 1                    # a row swap: -1
    assert P._det_mod([[1, 2], [2, 4]], p) == 0
    assert P._det_mod([[0, 0], [1, 1]], p) == 0
    assert P._det_mod([[2, 0, 0], [0, 3, 0], [0, 0, 5]], p) == 30 % p
    assert P._det_mod([[0, 2, 1], [3, 0, 0], [1, 1, 1]], 101) == -3 % 101
    assert P._det_mod([[1, 2, 3], [4, 5, 6], [7, 8, 10]], 1_000_003) == -3 % 1_000_003
    assert P._det_mod([[7, 1], [0, 1]], 7) == 0                       # 7 ≡ 0 mod 7
    assert P._det_mod([[1, 3], [2, 13]], p) == 0                      # 13 - 6 = 7 ≡ 0
    assert P._det_mod([[-1, 0], [0, 1]], p) == p - 1


def test_the_normal_form_up_to_a_factor():
    assert P._nf((0, 0, 0)) is None
    assert P._nf((2, 4, -6)) == (1, 2, -3) == P._nf((-2, -4, 6))
    assert P._nf((0, -3, 6)) == (0, 1, -2)
    assert P._nf((F(1, 2), F(1))) == (F(1), F(2)) == P._nf((F(-3), F(-6)))
    assert P._nf((6, 4)) == (3, 2) and P._nf((-6, -4)) == (3, 2)
    assert P._nf((F(0), F(2), F(4))) == (F(0), F(1), F(2))


def test_the_orthant_rule_and_homogeneous_points():
    # a zero of Σ c_i v_i + w with v > 0: the nonzero c_i of both signs, or one sign opposite to w
    assert P._orthant_zero([1, -1], 0) and P._orthant_zero([0, 2], -1) and P._orthant_zero([0, -2], 1)
    assert not P._orthant_zero([0, 2], 1) and not P._orthant_zero([0, -2], -1) and not P._orthant_zero([0, 0], 1)
    assert not P._orthant_zero([0, 0], 0) and not P._orthant_zero([3, 0], 0) and not P._orthant_zero([-3], 0)
    assert P._homogeneous((F(1, 2), F(-1, 3))) == [3, -2, 6]
    assert P._homogeneous((F(2), F(0))) == [2, 0, 1]


# ---- H0 and H0′ -----------------------------------------------------------------------------

def test_h0_and_h0_prime():
    (A, a), (W, w), (V, c) = layers(X_NET)
    rejects(with_layers(X_NET, A=[A[0], [0, 0], A[2]]), X_EV, "H0 fails: A_2 = 0")
    rejects(with_layers(X_NET, A=[A[0], A[1], [2 * x for x in A[0]]], a=[a[0], a[1], 2 * a[0]]), X_EV,
            "H0 fails: (A_1, a_1) and (A_3, a_3) are proportional")
    rejects(with_layers(X_NET, V=[[V[0][0], 0, V[0][2]]]), X_EV, "H0 fails: V_(:,2) = 0")
    rejects(with_layers(X_NET, W=[W[0], [0, 0, 0], W[2]]), X_EV, "H0′ fails: W_2 = 0")
    rejects(with_layers(X_NET, W=[W[0], W[1], [3 * x for x in W[1]]], w=[w[0], w[1], 3 * w[1]]), X_EV,
            "H0′ fails: (W_2, w_2) and (W_3, w_3) are proportional")
    (A, a), (W, w), (V, c) = layers(U_NET)
    rejects(with_layers(U_NET, V=[[0, V[0][1], V[0][2]]]), U_EV, "H0 fails: V_(:,1) = 0")
    rejects(with_layers(U_NET, W=[W[0], [-2 * x for x in W[0]], W[2]], w=[w[0], -2 * w[0], w[2]]), U_EV,
            "H0′ fails: (W_1, w_1) and (W_2, w_2) are proportional")


# ---- the regions ----------------------------------------------------------------------------

def _region(i, **kw):
    def fn(ev):
        ev["regions"][i].update(kw)
    return fn


def test_u_frame_regions():
    rejects(U_NET, dict(U_EV, regions="--+"), "regions must be a list")
    rejects(U_NET, changed(U_EV, _region(1, point=[1, 1, 1])), "region 2 must have exactly the fields ['signs']")
    rejects(U_NET, changed(U_EV, _region(2, signs="+-+")), "region 3: the region +-+ is listed twice")
    rejects(U_NET, changed(U_EV, _region(2, signs="+-")), "region 3: signs must be a string of 3 characters '+' or "
                                                         "'-', got '+-'")


def test_x_frame_regions():
    rejects(X_NET, changed(X_EV, lambda ev: ev["regions"][0].pop("invisible")),
            "region 1 must have exactly the fields ['invisible', 'point', 'signs', 'visible']")
    rejects(X_NET, changed(X_EV, _region(0, point=[1, 1])), "region 1: the point is not in R_+++")
    rejects(X_NET, changed(X_EV, _region(5, point=[-9])), "region 6: a point needs 2 coordinates")
    both = changed(X_EV, lambda ev: ev["regions"][3]["invisible"].append([1, {"y": [0, 0, 0], "z": 0}]))
    rejects(X_NET, both, "region 4: g_2 is listed both as visible and as invisible")
    moved = changed(X_EV, lambda ev: ev["regions"][0]["visible"][1].__setitem__(1, ["2304/797", -2]))
    rejects(X_NET, moved, "region 1: the witness of g_3 is not a zero in R_+++")
    neither = changed(X_EV, lambda ev: ev["regions"][0]["invisible"].clear())
    rejects(X_NET, neither, "region 1: neither a zero nor a Motzkin vector for g_2: K_s is not decided")
    rejects(X_NET, changed(X_EV, lambda ev: ev["regions"][0]["visible"][0].__setitem__(1, [1])),
            "region 1 visible 1: a point needs 2 coordinates")


def test_a_constant_g_cannot_be_visible():
    """W_(3,2) = 0: on R_-+-, where only neuron 2 is active, g_3 is the constant w_3 (it needs no evidence)."""
    (A, a), (W, w), (V, c) = layers(X_NET)
    flat = with_layers(X_NET, W=[W[0], W[1], [W[2][0], 0, W[2][2]]])        # on R_-+-, g_3 = w_3
    region = copy.deepcopy(X_EV["regions"][2])
    ctx = Context(flat, "p")
    T = P._Theta(ctx, flat, "x", None)
    region["invisible"] = []
    assert P._regions(ctx, T, [region])[0] == {(-1, 1, -1): ({0, 1}, True)}     # a constant g_3 needs nothing
    region["visible"].append([2, [1, 0]])
    with pytest.raises(CheckFailed) as e:
        P._regions(ctx, T, [region])
    assert e.value.reason == "region 1: g_3 is constant on the region, not visible"


def test_visibility_pairs():
    rejects(X_NET, changed(X_EV, _region(0, visible={"0": 1})), "region 1 visible must be a list")
    rejects(X_NET, changed(X_EV, _region(0, visible=[[0]])), "region 1 visible: entries are [neuron, data]")
    rejects(X_NET, changed(X_EV, _region(0, visible=[7])), "region 1 visible: entries are [neuron, data]")
    rejects(X_NET, changed(X_EV, _region(0, visible=[[3, [1, 1]]])),
            "region 1 visible neuron must be an integer in [0, 3), got 3")
    rejects(X_NET, changed(X_EV, _region(0, visible=[[0, ["86/19", -5]], [0, ["86/19", -5]]])),
            "region 1 visible: neuron 1 twice")
    rejects(X_NET, changed(X_EV, _region(0, invisible=[[1, {"y": [1, 0, 0], "z": 0}], [1, {}]])),
            "region 1 invisible: neuron 2 twice")


def test_motzkin_vectors():
    def inv(value):
        return changed(X_EV, _region(0, invisible=[[1, value]]))
    what = "region 1 invisible 2"
    rejects(X_NET, inv({"y": [0, 0, 0]}), f"{what}: a Motzkin vector is {{'y': [...], 'z': q}}")
    rejects(X_NET, inv([1, 2]), f"{what}: a Motzkin vector is {{'y': [...], 'z': q}}")
    rejects(X_NET, inv({"y": [0, 0, 0], "z": 0, "w": 1}), f"{what}: a Motzkin vector is {{'y': [...], 'z': q}}")
    rejects(X_NET, inv({"y": "0", "z": 0}), f"{what}: expected a list of numbers, got str")
    rejects(X_NET, inv({"y": [0, 0], "z": 0}), f"{what}: y needs 3 nonnegative entries")
    rejects(X_NET, inv({"y": ["1359/808", "-1/1000", "637/3232"], "z": "-119/202"}),
            f"{what}: y needs 3 nonnegative entries")
    rejects(X_NET, inv({"y": [0, 0, 0], "z": 0}), f"{what}: not a Motzkin certificate of emptiness")
    rejects(X_NET, inv({"y": ["1359/808", 0, "637/3232"], "z": "119/202"}),
            f"{what}: not a Motzkin certificate of emptiness")
    rejects(X_NET, inv({"y": ["1359/808", 0, "637/3231"], "z": "-119/202"}),
            f"{what}: not a Motzkin certificate of emptiness")
    # a scaled Motzkin vector is one too
    assert verify(X_NET, inv({"y": ["1359/404", 0, "637/1616"], "z": "-119/101"}))[0].startswith("H0, H0′")


def test_motzkin_constant_sign():
    """Σ y_i s_i u_i + z g must be a constant <= 0, and < 0 when y = 0: y = 0, z g constant is never enough."""
    T = P._Theta(Context(X_NET, "p"), X_NET, "x", None)
    s = (1, 1, 1)
    ctx = Context(X_NET, "p")
    g = (F(0), F(0), F(-1))                       # a constant function -1: {g = 0} is empty
    P._motzkin(ctx, T, s, g, {"y": [0, 0, 0], "z": 1}, "m")
    with pytest.raises(CheckFailed):
        P._motzkin(ctx, T, s, (F(0), F(0), F(1)), {"y": [0, 0, 0], "z": 1}, "m")
    with pytest.raises(CheckFailed):
        P._motzkin(ctx, T, s, (F(0), F(0), F(0)), {"y": [0, 0, 0], "z": 1}, "m")
    # y = e_1: u_1 + z g with g = -u_1 - 1 and z = 1 is the constant -1 < 0 (u_1 > 0 and g = 0 cannot meet)
    g = tuple(-x for x in T.u[0][:-1]) + (-T.u[0][-1] - 1,)
    P._motzkin(ctx, T, s, g, {"y": [1, 0, 0], "z": 1}, "m")
    g0 = tuple(-x for x in T.u[0])                                   # u_1 + g = 0 <= 0 with y ≠ 0: enough
    P._motzkin(ctx, T, s, g0, {"y": [1, 0, 0], "z": 1}, "m")
    with pytest.raises(CheckFailed):                                  # u_1 + 2 g = -u_1: not a constant
        P._motzkin(ctx, T, s, g0, {"y": [1, 0, 0], "z": 2}, "m")


# ---- the order: pinning along edges --------------------------------------------------------

def _entry(m, **kw):
    def fn(ev):
        ev["order"][m].update(kw)
    return fn


def test_order_reading():
    rejects(U_NET, dict(U_EV, order={"neuron": 0}), "order must be a list")
    rejects(U_NET, changed(U_EV, lambda ev: ev["order"].pop()), "the order lists 2 neurons, not n2 = 3")
    rejects(U_NET, changed(U_EV, lambda ev: ev["order"][1].pop("method")),
            "order entry 2 must have exactly the fields ['edges', 'method', 'neuron', 'seed']")
    rejects(U_NET, changed(U_EV, _entry(2, neuron=3)), "order entry 3 neuron must be an integer in [0, 3), got 3")
    rejects(U_NET, changed(U_EV, _entry(1, neuron=0)), "order entry 2: neuron 1 is pinned twice")
    rejects(U_NET, changed(U_EV, _entry(0, seed=5)), "order entry 1 seed must be an integer in [0, 5), got 5")
    rejects(U_NET, changed(U_EV, _entry(0, edges="00")), "order entry 1 edges must be a list")
    rejects(U_NET, changed(U_EV, _entry(0, method="c")), "order entry 1: method must be 'a' or 'b', got 'c'")


def test_the_seed_must_be_good_with_k_visible():
    rejects(U_NET, changed(U_EV, _entry(0, seed=3, edges=[])),
            "order entry 1: the seed must be a good region with g_1 visible (W.1(a))")
    rejects(X_NET, changed(X_EV, _entry(2, seed=1)),
            "order entry 3: the seed must be a good region with g_3 visible (W.1(a))")


def test_u_frame_edges():
    w = "order entry 1 edge 1"
    rejects(U_NET, changed(U_EV, _entry(0, edges=[[0, 0, [0, 0, 0]]])), f"{w}: an edge is [region, j]")
    rejects(U_NET, changed(U_EV, _entry(0, edges=[[0]])), f"{w}: an edge is [region, j]")
    rejects(U_NET, changed(U_EV, _entry(0, edges=[[5, 0]])), f"{w} region must be an integer in [0, 5), got 5")
    rejects(U_NET, changed(U_EV, _entry(0, edges=[[0, 3]])), f"{w} label must be an integer in [0, 3), got 3")
    rejects(U_NET, changed(U_EV, _entry(0, edges=[[1, 0]])),
            f"{w}: its source region is not reached from the seed by the edges before it")
    rejects(U_NET, changed(U_EV, _entry(0, edges=[[0, 2]])), f"{w}: the region s^(3) is not listed")
    rejects(U_NET, changed(U_EV, _entry(0, seed=1, edges=[[1, 2]])),
            f"{w}: both ends must be good regions with g_1 visible")
    # the second edge may leave the region the first one reached
    assert verify(U_NET, changed(U_EV, _entry(2, edges=[[3, 1], [4, 1], [3, 2]])))[0].startswith("H0, H0′")


def test_x_frame_edges():
    w = "order entry 1 edge 2"
    rejects(X_NET, changed(X_EV, lambda ev: ev["order"][0]["edges"][1].pop()),
            f"{w}: an edge is [region, j] plus a wall point")
    rejects(X_NET, changed(X_EV, lambda ev: ev["order"][0]["edges"][1].__setitem__(2, ["20/7", "-17/12"])),
            f"{w}: no point of {{u_1 = 0 = g_1}} on the wall (e2)")
    rejects(X_NET, changed(X_EV, lambda ev: ev["order"][0]["edges"][1].__setitem__(2, [1])),
            f"{w}: a point needs 2 coordinates")


def test_w3_failures():
    # the last entry pinned from its seed alone: W.3(a) needs every label flipped, W.3(b) s0 = (+, ..., +)
    rejects(U_NET, changed(U_EV, _entry(2, edges=[], method="a")),
            "order entry 3: the difference system of W.3(a) has a nonzero solution")
    rejects(U_NET, changed(U_EV, _entry(2, edges=[], method="b")), "order entry 3: W.3(b) fails for some F ⊆ [n1]")
    rejects(X_NET, changed(X_EV, _entry(1, edges=[], method="a")),
            "order entry 2: the difference system of W.3(a) has a nonzero solution")
    rejects(X_NET, changed(X_EV, _entry(0, edges=[], method="b")), "order entry 1: W.3(b) fails for some F ⊆ [n1]")


def test_w3_by_hand():
    T = P._Theta(Context(U_NET, "p"), U_NET, "u", [0, 1, 2])
    ctx = Context(U_NET, "p")
    s0 = (-1, -1, 1)
    assert P._covered(T, s0, {s0}) == set()
    assert P._covered(T, s0, {s0, (1, -1, 1), (-1, 1, 1)}) == {0, 1}
    assert not P._w3a(ctx, T, s0, {s0, (1, -1, 1), (-1, 1, 1)})
    assert P._w3a(ctx, T, s0, {s0, (1, -1, 1), (-1, 1, 1), (-1, -1, -1)})
    # the closed form of W.3(b): every label not flipped has s0_i = + and W_ki ≠ 0
    assert P._w3b(ctx, T, 0, s0, {s0, (1, -1, 1), (-1, 1, 1)})
    assert not P._w3b(ctx, T, 0, s0, {s0, (1, -1, 1)})
    assert P._w3b(ctx, T, 0, (1, 1, 1), {(1, 1, 1)})
    assert not P._w3b(ctx, T, 0, (1, 1, -1), {(1, 1, -1)})


def test_the_kernel():
    assert P._kernel([[1, 0, 0], [0, 1, 0]], 3) == [[0, 0, 1]]
    assert P._kernel([[1, 2, 3]], 3) == [[-2, 1, 0], [-3, 0, 1]]
    assert P._kernel([[0, 0, 0]], 2) == [[1, 0], [0, 1]]
    assert P._kernel([[1, 1], [1, -1]], 2) == []
    assert P._kernel([[F(1, 2), 1]], 2) == [[-2, 1]]


# ---- H4 -------------------------------------------------------------------------------------

def _flat(i, **kw):
    def fn(ev):
        ev["h4"]["flats"][i].update(kw)
    return fn


def test_h4_reading():
    rejects(U_NET, dict(U_EV, h4={"flats": []}), "h4 must have exactly the fields ['flats', 'method']")
    rejects(U_NET, dict(U_EV, h4={"flats": 1, "method": "count"}), "h4 flats must be a list")
    rejects(U_NET, changed(U_EV, lambda ev: ev["h4"].update(cover=[])), "h4 cover trees go with the method "
                                                                         "'exhaustive'")
    rejects(U_NET, changed(U_EV, lambda ev: ev["h4"].update(cover=None, method="exhaustive")), "cover must be a list")
    rejects(U_NET, changed(U_EV, lambda ev: ev["h4"].update(cover=[[]], method="exhaustive")),
            "1 cover trees, but the count leaves only 0 sets I")
    rejects(U_NET, changed(U_EV, _flat(0, point=[0, 0, 0])),
            "flat 1 must have exactly the fields ['neuron', 'signs', 'unit']")
    rejects(X_NET, changed(X_EV, lambda ev: ev["h4"]["flats"][0].pop("point")),
            "flat 1 must have exactly the fields ['neuron', 'point', 'signs', 'unit']")
    rejects(U_NET, changed(U_EV, _flat(1, signs="+-")), "flat 2: signs must be a string of 3 characters '+' or '-', "
                                                       "got '+-'")
    rejects(U_NET, changed(U_EV, _flat(1, neuron=3)), "flat 2 neuron must be an integer in [0, 3), got 3")
    rejects(U_NET, changed(U_EV, _flat(1, unit=3)), "flat 2 unit must be an integer in [0, 3), got 3")
    rejects(U_NET, changed(U_EV, _flat(1, signs="--+")), "flat 2: the sign of neuron 1 must be '+'")
    rejects(U_NET, changed(U_EV, lambda ev: ev["h4"].update(method="cover")),
            "h4 method must be 'count' or 'exhaustive', got 'cover'")


def test_h4_b_conditions():
    (A, a), (W, w), (V, c) = layers(U_NET)
    W0 = [list(r) for r in W]
    W0[2][0] = 0
    rejects(with_layers(U_NET, W=W0), U_EV, "flat 1: W_(3,1) = 0 (B1)")
    # u frame: g^{+--}_k has only the coordinate of neuron 1: rank_∇[u_1; g_k] < 2
    rejects(U_NET, changed(U_EV, _flat(0, signs="+--")), "flat 1: rank_∇[u_1; g_3] < 2 (B2)")
    # u frame, the orthant rule: g^{++-}_1 has no zero on the wall {u_1 = 0, u_2 > 0, u_3 < 0}
    rejects(U_NET, changed(U_EV, _flat(1, signs="++-", unit=0)), "flat 2: no point of the flat on the wall (B4)")
    rejects(X_NET, changed(X_EV, _flat(2, point=["20/7", "-13/6"])), "flat 3: no point of the flat on the wall (B4)")


def test_h4_b3():
    """W_3 = W_2 + e_1 and w_3 = w_2: on R_{++-}, g_3 − g_2 = u_1, so g_3 ≡ g_2 modulo u_1 (B3)."""
    (A, a), (W, w), (V, c) = layers(U_NET)
    W3 = [list(r) for r in W]
    W3[2] = [W3[1][0] + 1, W3[1][1], W3[2][2]]            # g^{++-}_3 = g^{++-}_2 + u_1: equal modulo u_1
    W3w = [w[0], w[1], w[1]]
    other = with_layers(U_NET, W=W3, w=W3w)
    ev = changed(U_EV, lambda ev: ev["h4"].update(flats=[{"signs": "++-", "neuron": 0, "unit": 1}]))
    rejects(other, ev, "flat 1: some g_k′ lies in span(u_1, g_2) but not in span(u_1) (B3)")


def test_h4_count_and_exhaustive():
    few = changed(U_EV, lambda ev: ev["h4"].update(flats=ev["h4"]["flats"][:5]))
    rejects(U_NET, few, "H4 by Lemma H4-count needs, sorted, b_(m) > m for every m; the distinct bend flats per H_j "
                        "are [4, 1, 0]")
    ok = changed(U_EV, lambda ev: ev["h4"].update(flats=ev["h4"]["flats"][:4] + ev["h4"]["flats"][5:7]
                                                  + ev["h4"]["flats"][8:]))
    assert "per H_j [4, 2, 3], H4 by count" in verify(U_NET, ok)[0]
    again = changed(U_EV, lambda ev: ev["h4"]["flats"].extend(ev["h4"]["flats"][:3]))
    assert "per H_j [4, 4, 3]" in verify(U_NET, again)[0]
    # the exhaustive search in the u frame: no cover with these flats
    assert "H4 by exhaustive" in verify(U_NET, changed(U_EV, lambda ev: ev["h4"].update(method="exhaustive")))[0]
    # too few flats for the count, and the search finds a cover
    rejects(X_NET, changed(X_EV, lambda ev: ev["h4"].update(flats=ev["h4"]["flats"][:1] + ev["h4"]["flats"][3:4]
                                                           + ev["h4"]["flats"][6:7])),
            "H4 fails: for I = {1} the 1 bend flats on those H_j are covered by 1 hyperplane(s) other than the H_i")


def test_the_exhaustive_search_is_bounded(monkeypatch):
    monkeypatch.setattr(P, "MAX_EXHAUSTIVE", 2)
    rejects(X_NET, X_EV, "the exhaustive H4 search visits 2^n1 sets I; n1 = 3 exceeds 2")
    monkeypatch.setattr(P, "MAX_EXHAUSTIVE", 3)
    assert verify(X_NET, X_EV)[0].endswith("H4 by exhaustive: the hypotheses of Theorem W hold")


def test_w3b_width_is_bounded(monkeypatch):
    monkeypatch.setattr(P, "MAX_B_WIDTH", 2)
    rejects(X_NET, X_EV, "W.3(b) in the x frame enumerates the sets F; n1 = 3 exceeds 2")
    monkeypatch.setattr(P, "MAX_B_WIDTH", 3)
    assert verify(X_NET, X_EV)[0].startswith("H0, H0′")


def _all_orthants(network):
    ctx = Context(network, "p")
    T = P._Theta(ctx, network, "u", [0, 1, 2])
    regions, listed = P._regions(ctx, T, [{"signs": "".join(t)} for t in itertools.product("+-", repeat=3)])
    return ctx, T, regions, listed


def _order_rejects(network, entry, reason):
    ctx, T, regions, listed = _all_orthants(network)
    others = [{"neuron": x, "seed": 0, "edges": [], "method": "b"} for x in range(3) if x != entry["neuron"]]
    with pytest.raises(CheckFailed) as e:
        P._order(ctx, T, [entry] + others, regions, listed)
    assert e.value.reason == reason


def test_goodness_of_a_region():
    """W_3 = W_2 + e_1, w_3 = w_2 (u frame): where neuron 1 is off, g_3 = g_2, so those regions are not good."""
    (A, a), (W, w), (V, c) = layers(U_NET)
    W3 = [list(r) for r in W]
    W3[2] = [W3[1][0] + 1, W3[1][1], W3[1][2]]
    twin = with_layers(U_NET, W=W3, w=[w[0], w[1], w[1]])
    _, _, regions, listed = _all_orthants(twin)
    assert [regions[s][1] for s in listed] == [True, True, True, True, False, True, False, True]
    assert regions[(-1, 1, 1)] == ({0, 1, 2}, False) and regions[(1, 1, -1)] == (set(), True)
    # listed in the order +++, ++-, +-+, +--, -++, -+-, --+, ---
    _order_rejects(twin, {"neuron": 0, "seed": 4, "edges": [], "method": "b"},
                   "order entry 1: the seed must be a good region with g_1 visible (W.1(a))")
    _order_rejects(twin, {"neuron": 0, "seed": 0, "edges": [[0, 0]], "method": "b"},
                   "order entry 1 edge 1: both ends must be good regions with g_1 visible")


def test_the_count_e4_in_the_u_frame():
    """W_3 = (1, 0, 0), w_3 = -1: g_3 = u_1 - 1, visible exactly where neuron 1 is on; across H_2 from ++- the
    count fails (K_t = {3} and nothing pinned yet: 1 < n2 - 1, and 1 < n2 on the other side)."""
    (A, a), (W, w), (V, c) = layers(U_NET)
    W3 = [list(r) for r in W]
    W3[2] = [1, 0, 0]
    single = with_layers(U_NET, W=W3, w=[w[0], w[1], -1])
    _, _, regions, listed = _all_orthants(single)
    assert regions[(1, 1, -1)] == ({2}, True) and regions[(1, -1, -1)] == ({2}, True)
    _order_rejects(single, {"neuron": 2, "seed": 1, "edges": [[1, 1]], "method": "b"},
                   "order entry 1 edge 1: the count (e4) fails")
    # with neuron 1 pinned before, P − K_t = {1} makes the count: the edge passes and W.3(b) decides (and fails)
    ctx, T, regions, listed = _all_orthants(single)
    order = [{"neuron": 0, "seed": 0, "edges": [], "method": "b"},
             {"neuron": 2, "seed": 1, "edges": [[1, 1]], "method": "b"}, {"neuron": 1, "seed": 0, "edges": [], "method": "b"}]
    with pytest.raises(CheckFailed) as e:
        P._order(ctx, T, order, regions, listed)
    assert e.value.reason == "order entry 2: W.3(b) fails for some F ⊆ [n1]"


# ---- the work, charge by charge -------------------------------------------------------------

#: the first charge of each kind in the honest checks: (what, steps used before it, its steps)
U_CHARGES = [("integer layer-2 rows", 0, 24), ("the determinant of the n1 × n1 minor of A (mod p)", 24, 36),
             ("H0 and H0′", 60, 33), ("the layer-2 pieces of a region", 93, 12),
             ("the visible set of a region", 105, 12), ("the goodness of a region", 117, 10),
             ("the bend triples (B1)–(B4)", 263, 110), ("the pieces modulo u_j on a wall", 373, 24),
             ("the validity of the edges (e2)–(e4)", 601, 32), ("W.3(b) (closed form)", 633, 3)]
X_CHARGES = [("integer forms of u and of the layer-2 rows", 0, 21), ("H0 and H0′", 21, 33),
             ("reading the visibility evidence of a region", 54, 12), ("the layer-2 pieces of a region", 66, 18),
             ("exact evaluation of points", 84, 34), ("the goodness of a region", 118, 8),
             ("the bend triples (B1)–(B4)", 486, 90), ("the pieces modulo u_j on a wall", 576, 18),
             ("the hyperplanes through two bend flats (H4)", 783, 3888),
             ("the flats on each such hyperplane (H4)", 4671, 6561), ("the H4 cover search", 11232, 36),
             ("the validity of the edges (e2)–(e4)", 13416, 42), ("W.3(b) over every F ⊆ [n1]", 13458, 508),
             ("W.3(a) modulo p", 14008, 43)]


def _over(network, evidence, limit):
    with pytest.raises(WorkLimit) as e:
        verify(network, evidence, limit=limit)
    return e.value.reason


@pytest.mark.parametrize("frame, what, before, steps", [("u", *c) for c in U_CHARGES] + [("x", *c) for c in X_CHARGES])
def test_each_charge_is_taken_before_its_work_with_its_name(frame, what, before, steps):
    network, evidence = (U_NET, U_EV) if frame == "u" else (X_NET, X_EV)
    limit = before + steps - 1
    assert _over(network, evidence, limit) == (
        f"{what} takes {steps:,} steps, past the checker's work limit ({limit:,} steps per certificate, "
        f"{before:,} used; reluid check --work-limit raises it)")


def _scaled(c):
    """X_NET with the rows (A_j, a_j) scaled by c > 0 and the columns W_(:,j) by 1/c (the same g^s_k), and X_EV
    with the Motzkin multipliers y_i of u_i divided by c: the same certificate in larger numbers."""
    (A, a), (W, w), (V, cc) = layers(X_NET)
    big = net([[x * c for x in r] for r in A], [x * c for x in a], [[x / c for x in r] for r in W], w, V, cc)
    ev = copy.deepcopy(X_EV)
    for r in ev["regions"]:
        for _, m in r["invisible"]:
            m["y"] = [str(F(y) / c) for y in m["y"]]
    return big, ev


def test_larger_numbers_cost_more_words():
    big, ev = _scaled(F(3) ** 200)                     # u_j of about 320 bits: 6 machine words
    assert P._Theta(Context(big, "p"), big, "x", None).words == 6
    msg, used = verify(big, ev)
    assert msg == verify(X_NET, X_EV)[0] and used == 14701
    assert _over(big, ev, 14700) == ("exact evaluation of points takes 12 steps, past the checker's work limit "
                                     "(14,700 steps per certificate, 14,689 used; reluid check --work-limit raises it)")


# ---- points on the boundary, walls, Motzkin combinations -----------------------------------

def test_a_point_on_a_hyperplane_is_in_no_open_region():
    # (20/7, -3): u_1 = 0, u_2 > 0, u_3 > 0
    rejects(X_NET, changed(X_EV, _region(0, point=["20/7", -3])), "region 1: the point is not in R_+++")


def test_a_wall_point_must_be_on_its_wall():
    # the visible zero of g_1 in R_+++ is a point of Z(g_1) inside the region, not on H_3
    ev = changed(X_EV, lambda ev: ev["order"][0]["edges"][0].__setitem__(2, ["86/19", -5]))
    rejects(X_NET, ev, "order entry 1 edge 1: no point of {u_3 = 0 = g_1} on the wall (e2)")


def test_a_region_without_visible_pieces():
    """R_--- (all of layer 1 off): every g^s_k is the constant w_k; nothing to witness, nothing visible."""
    ctx = Context(X_NET, "p")
    T = P._Theta(ctx, X_NET, "x", None)
    assert P._regions(ctx, T, [{"signs": "---", "point": [0, 4], "visible": [], "invisible": []}]) == (
        {(-1, -1, -1): (set(), True)}, [(-1, -1, -1)])


def test_a_motzkin_combination_with_a_gradient_is_no_certificate():
    """y = (0, 0, 101/176), z = 1 on R_+++ for g_2: the combination is (0, -1359/1408 | -3481/1408), a
    nonconstant function: it proves nothing (its first coordinate alone vanishes)."""
    T = P._Theta(Context(X_NET, "p"), X_NET, "x", None)
    g = T.g(Context(X_NET, "p"), (1, 1, 1))[1]
    comb = [gg + F(101, 176) * uu for gg, uu in zip(g, T.u[2])]
    assert comb == [0, F(-1359, 1408), F(-3481, 1408)]
    rejects(X_NET, changed(X_EV, _region(0, invisible=[[1, {"y": [0, 0, "101/176"], "z": 1}]])),
            "region 1 invisible 2: not a Motzkin certificate of emptiness")


# ---- W.3 --------------------------------------------------------------------------------------

def test_w3a_with_a_label_never_flipped():
    """Entry 2 (W.3(a)) keeping the edges across H_1 and H_3 only: label 2 is never flipped, the difference
    system has rank 2 < n1; both the fast rank modulo p and the exact rank see it."""
    ev = changed(X_EV, lambda ev: ev["order"][1].update(edges=[ev["order"][1]["edges"][0], ev["order"][1]["edges"][2]]))
    rejects(X_NET, ev, "order entry 2: the difference system of W.3(a) has a nonzero solution")
    assert _over(X_NET, ev, 14030 + 108 - 1) == (
        "W.3(a) exactly takes 108 steps, past the checker's work limit (14,137 steps per certificate, 14,030 used; "
        "reluid check --work-limit raises it)")


def test_w3_u_frame_work():
    T = P._Theta(Context(U_NET, "p"), U_NET, "u", [0, 1, 2])
    C = {(-1, -1, 1), (1, -1, 1), (-1, 1, 1), (-1, -1, -1)}
    c = Context(U_NET, "p")
    assert P._w3a(c, T, (-1, -1, 1), C) and c.budget.used == 4 * 3
    with pytest.raises(WorkLimit) as e:
        P._w3a(Context(U_NET, "p", Budget(limit=11)), T, (-1, -1, 1), C)
    assert e.value.reason.startswith("W.3(a) takes 12 steps, past the checker's work limit (11 steps")
    c = Context(U_NET, "p")
    assert P._w3b(c, T, 0, (1, 1, 1), {(1, 1, 1)}) and c.budget.used == 3
    with pytest.raises(WorkLimit) as e:
        P._w3b(Context(U_NET, "p", Budget(limit=2)), T, 0, (1, 1, 1), {(1, 1, 1)})
    assert e.value.reason.startswith("W.3(b) (closed form) takes 3 steps, past the checker's work limit (2 steps")


def test_w3b_closed_form_needs_w_ki_nonzero():
    (A, a), (W, w), (V, c) = layers(U_NET)
    for row, holds in (([1, 1, 1], True), ([1, 0, 1], False), ([2, 1, -1], True)):
        Wk = [list(r) for r in W]
        Wk[0] = row
        n = with_layers(U_NET, W=Wk)
        T = P._Theta(Context(n, "p"), n, "u", [0, 1, 2])
        assert P._w3b(Context(n, "p"), T, 0, (1, 1, 1), {(1, 1, 1)}) is holds
        # a label with W_ki = 0 is fine once it is flipped somewhere
        assert P._w3b(Context(n, "p"), T, 0, (1, 1, 1), {(1, 1, 1), (1, -1, 1)}) is True


# ---- the edge conditions (e2)–(e4) in the x frame, on the regions they are given -----------------

PPP, MPP = (1, 1, 1), (-1, 1, 1)


def _x_order(network, regions, order):
    """The order's verdict for regions whose visible sets and goodness are given (as _regions returns them)."""
    ctx = Context(network, "p")
    T = P._Theta(ctx, network, "x", None)
    try:
        P._order(ctx, T, order, regions, list(regions))
    except CheckFailed as e:
        return e.reason
    return "valid"


def _entry_x(k, seed, edges, method="b"):
    return {"neuron": k, "seed": seed, "edges": [[r, j, [0, 0]] for r, j in edges], "method": method}


def _rest(ks):
    return [_entry_x(k, 0, []) for k in ks]


def test_e2_the_gradients_of_u_j_and_g_k():
    """W_1 = (1, 17/16, -5/16): on R_+++ the y-components of A_2 and A_3 cancel, ∇g_1 ∥ A_1."""
    (A, a), (W, w), (V, c) = layers(X_NET)
    W0 = [list(r) for r in W]
    W0[0] = [1, F(17, 16), F(-5, 16)]
    assert _x_order(with_layers(X_NET, W=W0), {PPP: ({0}, True), MPP: ({0}, True)},
                    [_entry_x(0, 0, [(0, 0)])] + _rest([1, 2])) == "order entry 1 edge 1: rank_∇[u_1; g_1] < 2 (e2)"


def test_e3_a_piece_in_span_u_j_g_k_on_one_side():
    (A, a), (W, w), (V, c) = layers(X_NET)
    twice = [list(r) for r in W]
    twice[2] = [2 * W[1][0] + 1, 2 * W[1][1], 2 * W[1][2]]          # g_3 = 2 g_2 + u_1 on R_+++
    only = [list(r) for r in W]
    only[2] = [1, 0, 0]                                              # g_3 = u_1 on R_+++: 0 modulo u_1
    for network in (with_layers(X_NET, W=twice, w=[w[0], w[1], 2 * w[1]]), with_layers(X_NET, W=only, w=[w[0], w[1], 0])):
        # g_3 visible on the source side only: (e3) ranges over K_s ∪ K_t
        assert _x_order(network, {PPP: ({1, 2}, True), MPP: ({1}, True)}, [_entry_x(1, 0, [(0, 0)])] + _rest([0, 2])) == (
            "order entry 1 edge 1: rank[u_1; g_2; g_3] < 3 on one side (e3)")


def test_e4_counts_the_pinned_neurons_off_each_side():
    # K_s = [n2] alone makes the count (K_t = {1}, nothing pinned): the edge passes, W.3(b) decides
    assert _x_order(X_NET, {PPP: ({0, 1, 2}, True), MPP: ({0}, True)}, [_entry_x(0, 0, [(0, 0)])] + _rest([1, 2])) == (
        "order entry 1: W.3(b) fails for some F ⊆ [n1]")
    # n2 = 4: neuron 4 pinned first (W.3(a) along three edges); then for neuron 1 across H_1 from R_++-,
    # |K_s| + |P − K_s| = 3 + 1 = n2 makes the count although |K_t| + |P − K_t| = 2 < n2 − 1
    (A, a), (W, w), (V, c) = layers(X_NET)
    four = net(A, a, W + [[1, 1, 1]], w + [-1], [V[0] + [1]], c)
    every = {0, 1, 2, 3}
    regions = {PPP: (every, True), MPP: (every, True), (1, -1, 1): (every, True), (1, -1, -1): (every, True),
               (1, 1, -1): ({0, 1, 2}, True), (-1, 1, -1): ({0}, True)}
    first = _entry_x(3, 0, [(0, 0), (0, 1), (2, 2)], "a")
    assert _x_order(four, regions, [first, _entry_x(0, 4, [(4, 0)])] + _rest([1, 2])) == (
        "order entry 2: W.3(b) fails for some F ⊆ [n1]")
    regions[(1, 1, -1)] = ({0, 1}, True)                             # one fewer on the source side: the count fails
    assert _x_order(four, regions, [first, _entry_x(0, 4, [(4, 0)])] + _rest([1, 2])) == (
        "order entry 2 edge 1: the count (e4) fails")


# ---- the checker's integer forms and normal forms -------------------------------------------

def test_integer_forms():
    T = P._Theta(Context(U_NET, "p"), U_NET, "u", [0, 1, 2])
    assert T.u == [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0)]           # the u frame: u_j is the coordinate
    assert T.rows == [(17, 6, -1, 9), (2, 5, -23, 17), (6, 21, -4, -4)]
    n = with_layers(U_NET, W=[[F(1, 3), F(1, 2), 1], [1, 0, 0], [0, 1, 0]], w=[5, 1, 1])
    assert P._Theta(Context(n, "p"), n, "u", [0, 1, 2]).rows[0] == (2, 3, 6, 30)   # every denominator cleared
    X = P._Theta(Context(X_NET, "p"), X_NET, "x", None)
    assert X.piv == [0, 0, 0] and X.U == [[7, 0, -20], [2, -5, 17], [-22, -17, 17]]
    n = with_layers(X_NET, A=[[1, 0], [0, 2], [1, 5]], a=[0, 1, 2])
    assert P._Theta(Context(n, "p"), n, "x", None).piv == [0, 1, 0]     # the first nonzero column of A_j


def test_the_normal_form_is_exact():
    assert P._nf((1, 2)) == (1, 2) == P._nf((3, 6)) and P._nf((-1, 2)) == (1, -2)
    assert P._nf((3 ** 40, 3 ** 40 + 1)) == (3 ** 40, 3 ** 40 + 1)    # integers, not floats
    assert all(type(x) is int for x in P._nf((4, 6)))


def test_regions_read_every_piece():
    (A, a), (W, w), (V, c) = layers(X_NET)
    # W_1 with W_(1,2) = 0: on R_-+- (only neuron 2 active) g_1 is constant, g_2 and g_3 still need evidence
    n = with_layers(X_NET, W=[[W[0][0], 0, W[0][2]], W[1], W[2]])
    region = copy.deepcopy(X_EV["regions"][2])
    region["visible"] = region["visible"][1:]
    ctx = Context(n, "p")
    T = P._Theta(ctx, n, "x", None)
    assert P._regions(ctx, T, [region])[0] == {(-1, 1, -1): ({1}, True)}
    region["invisible"] = []
    with pytest.raises(CheckFailed) as e:
        P._regions(ctx, T, [region])
    assert e.value.reason == "region 1: neither a zero nor a Motzkin vector for g_3: K_s is not decided"
    # W_2 = (2, 1, 8/11): on R_+++ the x-components cancel, g_2 varies in y only and still needs evidence
    m = with_layers(X_NET, W=[W[0], [2, 1, F(8, 11)], W[2]])
    region = copy.deepcopy(X_EV["regions"][0])
    region["invisible"] = []
    ctx = Context(m, "p")
    T = P._Theta(ctx, m, "x", None)
    assert T.gi(ctx, (1, 1, 1))[1][0] == 0 and T.gi(ctx, (1, 1, 1))[1][1] != 0
    with pytest.raises(CheckFailed) as e:
        P._regions(ctx, T, [region])
    assert e.value.reason == "region 1: neither a zero nor a Motzkin vector for g_2: K_s is not decided"


def test_h4_count_at_b_m_equal_m():
    fl = U_EV["h4"]["flats"]
    ev = changed(U_EV, lambda ev: ev["h4"].update(flats=fl[:1] + fl[4:6] + fl[8:11]))     # 1, 2, 3 per H_j
    rejects(U_NET, ev, "H4 by Lemma H4-count needs, sorted, b_(m) > m for every m; the distinct bend flats per H_j "
                       "are [1, 2, 3]")


def test_h4_exhaustive_in_the_u_frame_excludes_the_h_i():
    """Two flats on each H_j: the plane through the two on H_j is H_j itself (no cover of I = {j}); the search
    finds the cover of I = {1, 2} by two planes."""
    fl = U_EV["h4"]["flats"]
    ev = changed(U_EV, lambda ev: ev["h4"].update(method="exhaustive", flats=fl[0:2] + fl[4:6] + fl[8:10]))
    rejects(U_NET, ev, "H4 fails: for I = {1, 2} the 4 bend flats on those H_j are covered by 2 hyperplane(s) other "
                       "than the H_i")


def test_the_work_is_counted_in_whole_steps():
    for network, evidence in ((U_NET, U_EV), (X_NET, X_EV)):
        assert type(verify(network, evidence)[1]) is int


def test_w3b_checks_every_f():
    """x frame, neuron 1 from R_+++ with one more region: W.3(b) fails for one F only (F = {3} across H_3, F = {2}
    across H_2), after sets F that are inconsistent: every F must be tried."""
    ctx = Context(X_NET, "p")
    T = P._Theta(ctx, X_NET, "x", None)
    assert P._w3b(ctx, T, 0, (1, 1, 1), {(1, 1, 1), (1, 1, -1)}) is False
    assert P._w3b(ctx, T, 0, (1, 1, 1), {(1, 1, 1), (1, -1, 1)}) is False


def test_u_frame_rows_clear_the_bias_denominator_too():
    n = with_layers(U_NET, W=[[1, 1, 1], [1, 0, 0], [0, 1, 0]], w=[F(1, 3), 1, 1])
    assert P._Theta(Context(n, "p"), n, "u", [0, 1, 2]).rows[0] == (3, 3, 3, 1)
