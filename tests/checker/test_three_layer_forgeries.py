"""The depth-three certificate (docs/mathematics.md §12.11) and the forgeries ``reluid check`` must reject.

The committed certificate of examples/networks/three_layers_certified.json (Example 12.21, reports/examples)
is valid by Theorem 12.37; every tampered variant below changes one thing the checker recomputes, and is
rejected with the checker's own reason.  The negative control (layer-1 neuron 1 feeding nothing) has an exact
competitor outside the orbit (tests/analysis/deep/test_clash_points.py), so no certificate may pass for it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.three_layers import analyse_three_layers
from reluid.certificates.schema import from_json
from reluid.checker.check import check_certificate
from reluid.checker.registry import VERIFIERS, Budget, Context
from reluid.errors import CheckFailed
from reluid.io.loader import load
from reluid.model.network import Network
from reluid.verdicts import ReasonCode, Verdict
from tests.paths import ROOT

CERT = ROOT / "reports" / "examples" / "certificates" / "three_layers_certified_json.cert.json"
RULE = ("three hidden layers: (CP) of Theorem 12.37 by clash points (verified), so every competitor is layer-1 "
        "matched; the hypotheses of Corollary 12.15 (verified); and 𝔉1 = 𝔉2 = 𝔉3 = {∅} (verified); so by "
        "docs/mathematics.md Theorem 12.37 the fibre of θ is its orbit under permutations and positive scalings")


def _doc() -> dict:
    return json.loads(CERT.read_text(encoding="utf-8"))


def _claim(d, kind):
    return next(c for c in d["claims"] if c["kind"] == kind)["evidence"]


def _check(d):
    return check_certificate(from_json(json.dumps(d)))


def test_the_committed_certificate_is_valid_by_theorem_12_37():
    rep = _check(_doc())
    assert rep.valid and rep.verdict is Verdict.NO_HIDDEN and rep.rule == RULE
    assert [c.status.value for c in rep.claims[:5]] == ["verified"] * 5


# ---- forgeries of the clash claim (Theorem 12.37, Lemma 12.41) ------------------------------------

def _clash(d):
    return _claim(d, "deep-three-layer-clash")


def _dup_point(d):
    _clash(d)["points"].append(copy.deepcopy(_clash(d)["points"][0]))


def _drop_H1(d):         # every clash point on H_1 = {x_1 = 0}: then m_1 = 0 and (CP-L) fails at k = 1
    _clash(d)["points"] = [p for p in _clash(d)["points"] if p["point"][0] != "0"]


def _shift_point(d):
    p = _clash(d)["points"][0]["point"]
    p[2] = str(F(p[2]) + F(1, 1000))


def _zero_direction(d):
    _clash(d)["points"][0]["flats"][0]["direction"] = ["0", "0", "0"]


def _outward_germ(d):    # point 0 lies on H_1 and its first flat is on the side s_1 = −: the germ must go there
    fl = _clash(d)["points"][0]["flats"][0]
    assert fl["signs"][0] == "-" and fl["direction"] == ["-1", "0", "0"]
    fl["direction"] = ["1", "0", "0"]


def _single_flat(d):     # one flat: two normals, rank 2 = n2, not a clash point
    p = _clash(d)["points"][0]
    p["flats"] = p["flats"][:1]


def _other_unit(d):
    fl = _clash(d)["points"][0]["flats"][1]
    fl["unit"] = (fl["unit"] + 1) % 6


def _germ_off_the_flat(d):
    fl = _clash(d)["points"][0]["flats"][1]
    fl["direction"] = [str(F(v) + 1) for v in fl["direction"]]


_F0, _R0, _Z0 = ("points", 0, "flats", 0), ("regions", 0, "flats", 0), ("cells", 0, "zeros", 0)


def _setter(claim):
    """``set(path, value)``: the forgery that replaces the field at ``path`` of ``claim``'s evidence by ``value``
    (or by ``value(old)`` when it is callable)."""
    def set_(path, value):
        def forge(d):
            at = claim(d)
            for key in path[:-1]:
                at = at[key]
            at[path[-1]] = value(at[path[-1]]) if callable(value) else value
        return forge
    return set_


_set_clash = _setter(_clash)


def _without(field):
    return lambda f: {k: v for k, v in f.items() if k != field}


CLASH_FORGERIES = {
    "a clash point listed twice": (_dup_point, "a clash point is listed twice"),
    "the clash points of H_1 dropped": (_drop_H1, "(CP-L) fails: m_(i) sorted is [0, 3, 3], and m_(1) < 1"),
    "a point moved off its flats": (_shift_point,
                                    "point 0, flat 0: the germ x + t·d does not lie on the flat ℓ0 = 0 = z^3_6"),
    "a zero germ": (_zero_direction, "point 0, flat 0: the direction is 0"),
    "a germ out of the wall": (_outward_germ,
                               "point 0, flat 0: the germ leaves the wall (defining function 1 of layer 1)"),
    "one flat at a point": (_single_flat,
                            "point 0: not a clash point, the normals of its flats span at most n2 = 2 dimensions"),
    "another unit": (_other_unit, "point 0, flat 1: the germ x + t·d does not lie on the flat ℓ0 = 0 = z^3_1"),
    "a germ off the flat": (_germ_off_the_flat,
                            "point 0, flat 1: the germ x + t·d does not lie on the flat ℓ0 = 0 = z^3_6"),
    "a clash flat without a direction": (_set_clash(_F0, _without("direction")),
                                         "point 0, flat 0: missing field 'direction'"),
    "a clash flat's layer-1 signs too short": (_set_clash(_F0 + ("signs",), "+-"), "point 0, flat 0: signs must be "
                                               "a string of 3 characters '+' or '-', got '+-'"),
    "a clash flat's cell signs too long": (_set_clash(_F0 + ("cell",), "+++"), "point 0, flat 0: signs must be a "
                                           "string of 2 characters '+' or '-', got '+++'"),
    "a clash flat of layer 3": (_set_clash(_F0 + ("layer",), 3), "point 0, flat 0: layer = 3 is outside [1, 3)"),
    "a clash flat of layer 0": (_set_clash(_F0 + ("layer",), 0), "point 0, flat 0: layer = 0 is outside [1, 3)"),
    "a clash flat's layer as text": (_set_clash(_F0 + ("layer",), "two"),
                                     "point 0, flat 0: layer: not an integer or 'p/q' string: 'two'"),
    "a layer-2 clash flat of neuron index 2": (_set_clash(_F0 + ("index",), 2),
                                               "point 0, flat 0: index = 2 is outside [0, 2)"),
    "a layer-1 clash flat of neuron index 3": (_set_clash(("points", 0, "flats", 2, "index"), 3),
                                               "point 0, flat 2: index = 3 is outside [0, 3)"),
    "a clash flat of index -1": (_set_clash(_F0 + ("index",), -1), "point 0, flat 0: index = -1 is outside [0, 2)"),
    "a clash flat of unit index 6": (_set_clash(_F0 + ("unit",), 6), "point 0, flat 0: unit = 6 is outside [0, 6)"),
    "a clash flat of unit index -1": (_set_clash(_F0 + ("unit",), -1),
                                      "point 0, flat 0: unit = -1 is outside [0, 6)"),
    "a clash flat's direction of two coordinates": (_set_clash(_F0 + ("direction",), lambda p: p[:2]),
                                                    "point 0, flat 0: direction: every point needs 3 coordinates"),
}


# ---- forgeries of the hypotheses of Corollary 12.15 -----------------------------------------------

def _hyp(d):
    return _claim(d, "deep-three-layer-hypotheses")


def _region(d, signs):
    return next(r for r in _hyp(d)["regions"] if r["signs"] == signs)


def _thin_region(d):     # R_(+,+,−) has 3 flats per neuron; keep one of neuron 1
    reg = _region(d, "++-")
    first = next(f for f in reg["flats"] if f["neuron"] == 0)
    reg["flats"] = [first] + [f for f in reg["flats"] if f["neuron"] == 1]


def _repeated_flat(d):   # the same flat twice counts once: neuron 1 has one distinct flat, not two
    reg = _region(d, "++-")
    mine = [f for f in reg["flats"] if f["neuron"] == 0]
    reg["flats"] = [mine[0], copy.deepcopy(mine[0])] + [f for f in reg["flats"] if f["neuron"] == 1]


def _flat_point_off(d):
    p = _hyp(d)["regions"][0]["flats"][0]["point"]
    p[0] = str(F(p[0]) + F(1, 997))


def _flat_on_negative_side(d):
    fl = _hyp(d)["regions"][0]["flats"][0]
    fl["cell"] = "-" + fl["cell"][1:] if fl["neuron"] == 0 else fl["cell"][0] + "-"


def _drop_label(d):
    _hyp(d)["edges"] = [e for e in _hyp(d)["edges"] if e["label"] != 2]


def _edge_from_minus(d):
    _hyp(d)["edges"][0]["signs"] = "-++"


def _not_a_permutation(d):
    _hyp(d)["order"] = [0, 0, 1, 2, 3, 4]


def _unit_not_the_order(d):
    _hyp(d)["pinning"][0]["unit"] = 1


def _edge_from_unreached(d):
    entry = _hyp(d)["pinning"][0]
    entry["edges"] = list(reversed([{**e, "from": e["to"], "to": e["from"]} for e in entry["edges"]]))


def _one_edge_only(d):   # the cells reached differ in r_1 only: (a3)(i) has rank 1 < n2
    entry = _hyp(d)["pinning"][0]
    entry["edges"] = entry["edges"][:1]


def _two_signs(d):
    entry = _hyp(d)["pinning"][0]
    entry["edges"].append({"from": 1, "to": 2, "point": entry["edges"][0]["point"]})


def _edge_point_off_wall(d):
    e = _hyp(d)["pinning"][0]["edges"][0]
    e["point"] = _hyp(d)["cells"][0]["point"]


def _zero_moved(d):
    z = _hyp(d)["cells"][0]["zeros"][0]["point"]
    z[1] = str(F(z[1]) + F(1, 101))


def _seed_without_zero(d):
    cell = _hyp(d)["cells"][_hyp(d)["pinning"][0]["seed"]]
    cell["zeros"] = [z for z in cell["zeros"] if z["unit"] != _hyp(d)["pinning"][0]["unit"]]


_set = _setter(_hyp)


HYPOTHESIS_FORGERIES = {
    "a seed index -1": (_set(("pinning", 0, "seed"), -1), "pinning 0: seed = -1 is outside [0, 3)"),
    "an edge from index -1": (_set(("pinning", 0, "edges", 0, "from"), -1),
                              "pinning 0, edge 0: from = -1 is outside [0, 3)"),
    "an edge to index 3": (_set(("pinning", 0, "edges", 0, "to"), 3), "pinning 0, edge 0: to = 3 is outside [0, 3)"),
    "an order of five units": (_set(("order",), lambda o: o[:5]), "order has 5 entries, expected 6"),
    "five pinning entries": (_set(("pinning",), lambda p: p[:5]), "pinning has 5 entries, expected 6"),
    "a pinning entry without edges": (_set(("pinning", 0), lambda e: {"unit": e["unit"], "seed": e["seed"]}),
                                      "pinning 0: missing field 'edges'"),
    "an edge without a point": (_set(("pinning", 0, "edges", 0), lambda e: {"from": e["from"], "to": e["to"]}),
                                "pinning 0, edge 0: missing field 'point'"),
    "a unit given as text": (_set(("pinning", 0,
                             "unit"), "zero"), "pinning 0: unit: not an integer or 'p/q' string: 'zero'"),
    "a cell without zeros": (_set(("cells", 0), lambda c: {k: v for k, v in c.items() if k != "zeros"}),
                             "cell 0: missing field 'zeros'"),
    "a cell sign string too short": (_set(("cells", 0,
                                     "cell"), "+"), "cell 0: signs must be a string of 2 characters '+' or '-', "
                                     "got '+'"),
    "a cell's layer-1 sign string too short": (_set(("cells", 0, "signs"), "+"),
                                               "cell 0: signs must be a string of 3 characters '+' or '-', got '+'"),
    "a cell point outside its cell": (_set(("cells", 0, "point"), ["-5", "-5", "-5"]),
                                      "cell 0: the point is not inside C_(+++, ++)"),
    "a cell point of two coordinates": (_set(("cells", 0, "point"), lambda p: p[:2]),
                                        "cell 0: point: every point needs 3 coordinates"),
    "an edge point of two coordinates": (_set(("pinning", 0, "edges", 0, "point"), lambda p: p[:2]),
                                         "pinning 0, edge 0: point: every point needs 3 coordinates"),
    "a rigid edge to a region not listed full": (_set(("edges",), lambda e: e + [{"signs": "++-", "label": 0}]),
                                                 "edge 3: an end of the edge (++-, -+-) is not a listed full region"),
    "a rigid edge without a label": (_set(("edges", 0), lambda e: {"signs": e["signs"]}),
                                     "edge 0: missing field 'label'"),
    "a rigid edge's sign string too long": (_set(("edges", 0, "signs"), "++++"),
                                            "edge 0: signs must be a string of 3 characters '+' or '-', got '++++'"),
    "a rigid edge of label index 3": (_set(("edges", 0, "label"), 3), "edge 0: label = 3 is outside [0, 3)"),
    "a rigid edge of label index -1": (_set(("edges", 0, "label"), -1), "edge 0: label = -1 is outside [0, 3)"),
    "a rigid edge's label as text": (_set(("edges", 0, "label"), "one"),
                                     "edge 0: label: not an integer or 'p/q' string: 'one'"),
    "a level-2 flat without a point": (_set(_R0, _without("point")), "region 0, flat 0: missing field 'point'"),
    "a level-2 flat's cell signs too short": (_set(_R0 + ("cell",), "+"), "region 0, flat 0: signs must be a string "
                                              "of 2 characters '+' or '-', got '+'"),
    "a level-2 flat of neuron index 2": (_set(_R0 + ("neuron",), 2), "region 0, flat 0: neuron = 2 is outside [0, 2)"),
    "a level-2 flat of neuron index -1": (_set(_R0 + ("neuron",), -1),
                                          "region 0, flat 0: neuron = -1 is outside [0, 2)"),
    "a level-2 flat of unit index 6": (_set(_R0 + ("unit",), 6), "region 0, flat 0: unit = 6 is outside [0, 6)"),
    "a level-2 flat of unit index -1": (_set(_R0 + ("unit",), -1), "region 0, flat 0: unit = -1 is outside [0, 6)"),
    "a level-2 flat's unit as text": (_set(_R0 + ("unit",), "one"),
                                      "region 0, flat 0: unit: not an integer or 'p/q' string: 'one'"),
    "a level-2 flat's point of two coordinates": (_set(_R0 + ("point",), lambda p: p[:2]),
                                                  "region 0, flat 0: point: every point needs 3 coordinates"),
    "a cell point on a wall of its cell": (_set(("cells", 0, "point"), ["0", "1", "1/2"]),
                                           "cell 0: the point is not inside C_(+++, ++)"),
    "a zero of unit index 6": (_set(_Z0 + ("unit",), 6), "cell 0, zero 0: unit = 6 is outside [0, 6)"),
    "a zero of unit index -1": (_set(_Z0 + ("unit",), -1), "cell 0, zero 0: unit = -1 is outside [0, 6)"),
    "a zero without a point": (_set(_Z0, _without("point")), "cell 0, zero 0: missing field 'point'"),
    "a zero's point of two coordinates": (_set(_Z0 + ("point",), lambda p: p[:2]),
                                          "cell 0, zero 0: point: every point needs 3 coordinates"),
    "a cell's zeros not a list": (_set(("cells", 0, "zeros"), 5), "cell 0: zeros must be a list"),
    "no region listed": (_set(("regions",), []), "Theorem 12.14 needs full regions, and none is listed"),
    "the regions not a list": (_set(("regions",), 5), "regions must be a list"),
    "a region without flats": (_set(("regions", 0), _without("flats")), "region 0: missing field 'flats'"),
    "a region sign string with a zero": (_set(("regions", 0, "signs"), "+0+"),
                                         "region 0: signs must be a string of 3 characters '+' or '-', got '+0+'"),
    "a cell listed twice": (_set(("cells",), lambda c: c + c[:1]), "cell 3: the cell (+++, ++) is listed twice"),
    "a region listed twice": (_set(("regions",), lambda r: r + r[:1]), "region 4: the region +++ is listed twice"),
    "a region with one flat on a neuron": (_thin_region,
                                           "region 1: R_++- is not shown full: the distinct level-2 flats per "
                                           "neuron, sorted, are [1, 3], and Lemma 10.12(c) needs b_(1) >= 2"),
    "a flat listed twice": (_repeated_flat,
                            "region 1: R_++- is not shown full: the distinct level-2 flats per neuron, sorted, are "
                            "[1, 3], and Lemma 10.12(c) needs b_(1) >= 2"),
    "a flat point off the flat": (_flat_point_off,
                                  "region 0, flat 0: (B4) fails, the point is not on the flat z^2_1 = 0 = z^3_1"),
    "a level-2 triple with r_i = −": (_flat_on_negative_side,
                                      "region 0, flat 0: a level-2 bend triple needs r_1 = + (Definition 12.13)"),
    "no rigid edge of label 3": (_drop_label,
                                 "Theorem 12.14 needs every label among the rigid edges; label 3 is missing"),
    "an edge listed from s_j = −": (_edge_from_minus,
                                    "edge 0: a rigid edge (s, s^(j), j) is listed from the end with s_j = +"),
    "an order with a repeat": (_not_a_permutation, "order: repeated index"),
    "a unit out of order": (_unit_not_the_order, "pinning 0: the unit is not entry 0 of the order"),
    "an edge from a cell not reached": (_edge_from_unreached,
                                        "pinning 0, edge 0: the edge leaves a cell not reached yet"),
    "too few cells for (a3)": (_one_edge_only,
                               "pinning 0: (a3)(i) fails: the same-pattern differences of the cells reached have "
                               "rank < n2"),
    "an edge flipping two signs": (_two_signs,
                                   "pinning 0, edge 2: the cells (+++, -+) and (+++, +-) differ in 2 signs, an "
                                   "edge flips exactly one"),
    "an edge point inside the cell": (_edge_point_off_wall,
                                      "pinning 0, edge 0: (e2) fails, the point is not a wall point of the edge "
                                      "with ℓ0 = 0 = z^3_1"),
    "a zero moved off Z(z^3_k)": (_zero_moved,
                                  "cell 0, zero 0: not a point of C_(+++, ++) on the zero set of a non-constant "
                                  "z^3_1"),
    "a seed without the unit's zero": (_seed_without_zero, "pinning 0: unit 1 has no witnessed zero on its seed"),
}


CLAIMS = {"deep-three-layer-clash": "three-layer-clash", "deep-three-layer-hypotheses": "three-layer-hypotheses"}


def _forged(name):
    """The certificate document with the named forgery, and the kind of the claim it forges."""
    forge, _ = {**CLASH_FORGERIES, **HYPOTHESIS_FORGERIES}[name]
    d = _doc()
    forge(d)
    return d, "deep-three-layer-clash" if name in CLASH_FORGERIES else "deep-three-layer-hypotheses"


@pytest.mark.parametrize("name", sorted({**CLASH_FORGERIES, **HYPOTHESIS_FORGERIES}))
def test_a_forgery_is_rejected(name):
    """The forged claim's verifier, run as reluid check runs it (its own context on the certificate's network),
    rejects it in the checker's own words, exactly; the other claim is not re-run (the test after this one shows
    that a rejected claim makes the whole certificate invalid)."""
    d, kind = _forged(name)
    cert = from_json(json.dumps(d))
    claim = next(c for c in cert.claims if c.kind == kind)
    with pytest.raises(CheckFailed) as e:
        VERIFIERS[kind](claim.evidence, Context(cert.network, claim.id, Budget()))
    assert (e.value.claim, e.value.reason) == (CLAIMS[kind], {**CLASH_FORGERIES, **HYPOTHESIS_FORGERIES}[name][1])


@pytest.mark.parametrize("name", ["a zero germ", "a cell listed twice"])
def test_a_forged_claim_makes_the_certificate_invalid(name):
    d, kind = _forged(name)
    rep = _check(d)
    why = {**CLASH_FORGERIES, **HYPOTHESIS_FORGERIES}[name][1]
    assert not rep.valid
    assert rep.reason == f"claim {CLAIMS[kind]} ({kind}) is false: {why}", rep.reason


@pytest.mark.parametrize("kind, what", [
    ("deep-three-layer-clash", "certificate of (CP) of Theorem 12.37 (clash points)"),
    ("deep-three-layer-hypotheses", "certificate of the hypotheses of Corollary 12.15")])
def test_the_rule_needs_both_claims(kind, what):
    d = _doc()
    d["claims"] = [c for c in d["claims"] if c["kind"] != kind]
    rep = _check(d)
    assert not rep.valid and rep.reason == f"the rule needs a {what}, and the certificate gives none that verifies"


def test_the_rule_needs_layer_3_without_flip_sets():
    d = _doc()
    d["claims"] = [c for c in d["claims"] if not (c["kind"] == "deep-layer-no-flip-set"
                                                 and c["evidence"]["layer"] == 3)]
    rep = _check(d)
    assert not rep.valid and "hidden layer 3 has no flip set" in rep.reason


# ---- the negative control: an exact competitor exists, so nothing may certify it -----------------

def _example() -> Network:
    return load(ROOT / "examples" / "networks" / "three_layers_certified.json")


def _control() -> Network:
    L1, L2, L3, L4 = _example().layers          # W^2_{:,1} = 0: f does not depend on x_1
    return Network.from_lists([(L1.weight, L1.bias), ([[0, *row[1:]] for row in L2.weight], L2.bias),
                               (L3.weight, L3.bias), (L4.weight, L4.bias)])


def test_the_example_evidence_does_not_pass_for_the_negative_control():
    net = _control()
    cert = dataclasses.replace(from_json(CERT.read_text(encoding="utf-8")), network=net, network_sha256=net.sha256())
    rep = check_certificate(cert)
    assert not rep.valid and "claim three-layer-clash (deep-three-layer-clash) is false" in rep.reason


def test_the_analysis_answers_unknown_for_the_negative_control_and_wide_layers():
    r = analyse_three_layers(_control())
    assert r.verdict is Verdict.UNKNOWN and r.reason.code == ReasonCode.D3_NO_CP
    assert dict(r.reason.params) == {"points": 0, "m": (0, 0, 0)}
    wide = Network.from_lists([([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0]), ([[1, 1, 0], [0, 1, 1], [1, 0, 1]],
                               [0, 0, 1]), ([[1, 2, 3]], [0]), ([[1]], [0])])
    r = analyse_three_layers(wide)
    assert r.verdict is Verdict.UNKNOWN and dict(r.reason.params) == {"n0": 3, "n2": 3}


def test_the_producer_finds_the_committed_certificate():
    r = analyse_three_layers(_example(), timeout=None)
    assert r.verdict is Verdict.NO_HIDDEN and r.cp_l == (3, 3, 3) and len(r.clash["points"]) == 78
    assert _hyp(_doc()) == json.loads(json.dumps(r.hypotheses))


def test_both_claims_are_charged_to_the_work_limit():
    """Every loop is charged (the forger's certificate with 300 extra layer-1 neurons and 12 000 repeated flats
    ran 2 minutes uncharged before): with a limit too small, neither claim is taken, and nothing is derived."""
    cert = from_json(CERT.read_text(encoding="utf-8"))
    rep = check_certificate(cert, work_limit=100_000)
    assert not rep.valid and rep.claims[0].over_limit and rep.claims[1].over_limit
    assert check_certificate(cert, work_limit=1_000_000).valid
