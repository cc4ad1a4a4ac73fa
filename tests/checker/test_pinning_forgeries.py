"""The checker against forged Theorem W certificates (``deep-two-layer-pinning``).

The honest certificates (u frame: a (3,3,3,1) network and a He-initialised 64-32-32-10 one; x frame:
a (2,3,3,1) network pinned by W.3(a) and (b)) are valid.  Each targeted forgery must be rejected: an
edge dropped, a wall point or a visibility witness moved, an invisible neuron claimed visible, a
Motzkin vector changed, the order swapped, a neuron pinned twice, the method changed from (b) to
(a), the seed replaced, a bend flat duplicated to pass the count, the H4 method changed, a dependent
minor, a region made bad, and the whole certificate transplanted to another network.  Further forgeries, each
rejected by one check alone (with that check removed the checker would accept it): an edge failing only the
count (e4), a single-region pin that fails W.3(a) or the closed form of W.3(b), one bend flat per H_j listed
many times (the per-H_j count must count distinct flats), the u frame claimed for a network with rank A < n1
(the minor), and malformed evidence (a failed claim, never an internal error). The evidence
of the x frame's LP-guided search (n1 > n0 at size) is valid, and a wall point moved off its wall, a
region point with one wrong sign, a Motzkin vector with a negative entry, a visibility witness or a
bend-flat point moved off its zero set, and a dropped edge are each rejected.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
from fractions import Fraction as F

import pytest

from reluid.api import certify
from reluid.certificates.schema import from_json, to_json
from reluid.checker.check import check_certificate
from reluid.checker.pinning import _orthant_zero
from tests.analysis.deep.test_pinning import BASE, _he
from tests.analysis.deep.test_two_layers import X_FRAME
from tests.two_layer_nets import net

#: Ω(3,3,3,1), i.i.d. on the 1/16 grid, certified in the u frame; for its first neuron (P = ∅) the edges
#: ++- → +++ and ++- → ++- across H_1 and H_3 meet every condition but the count (e4): K_t has one neuron
E4_NET = net([[F(-11, 16), F(3, 16), F(5, 8)], [F(-13, 8), F(-1, 8), F(-47, 16)], [F(15, 8), 1, F(1, 2)]],
             [F(-3, 4), F(21, 16), F(1, 8)],
             [[F(-21, 16), F(5, 16), F(-13, 16)], [F(-3, 2), F(-9, 16), F(9, 16)], [F(27, 16), F(-3, 16), F(-7, 8)]],
             [F(-1, 4), F(-1, 16), F(-27, 16)], [[F(-1, 2), F(9, 16), F(-3, 16)]], [F(-1, 2)])


def _cert(n):
    c = certify(n, timeout=60)
    d = json.loads(to_json(c))
    assert any(cl["kind"] == "deep-two-layer-pinning" for cl in d["claims"]), d.get("reasons")
    return d


@pytest.fixture(scope="module")
def certs():
    return {"u": (BASE, _cert(BASE)), "x": (X_FRAME, _cert(X_FRAME)), "he": (_he((64, 32, 32, 10), 0), None)}


def _ev(d):
    return next(c for c in d["claims"] if c["kind"] == "deep-two-layer-pinning")["evidence"]


def _valid(d, n):
    return check_certificate(from_json(json.dumps(d)), n).valid


def _rejected(d, n, change):
    d = copy.deepcopy(d)
    change(_ev(d))
    rep = check_certificate(from_json(json.dumps(d)), n)
    return not rep.valid


def test_honest_certificates_are_valid(certs):
    for key in ("u", "x"):
        n, d = certs[key]
        rep = check_certificate(from_json(json.dumps(d)), n)
        assert rep.valid, rep.reason
        assert rep.rule == ("two hidden layers, n0 >= 2: Theorem W (H0, H0′, H4 and a pinning certificate, verified) "
                            "and 𝔉1 = 𝔉2 = {∅} (verified), so by docs/mathematics.md (Theorem 8.2 and Corollary 8.3, "
                            "or Theorem W) the fibre of θ is its orbit under permutations and positive scalings")
    n, _ = certs["he"]
    d = _cert(n)
    assert _valid(d, n) and _ev(d)["frame"] == "u" and _ev(d)["h4"]["method"] == "count"


def test_x_frame_uses_both_methods_and_evidence_of_invisibility(certs):
    ev = _ev(certs["x"][1])
    assert ev["frame"] == "x" and {e["method"] for e in ev["order"]} == {"a", "b"}
    assert any(r["invisible"] for r in ev["regions"])


def _drop_edge(ev):
    e = next(e for e in ev["order"] if e["edges"])
    e["edges"].pop()


def _drop_edges_of_a(ev):
    e = next(e for e in ev["order"] if e["method"] == "a" and e["edges"])
    e["edges"] = []


def _swap_order(ev):
    ev["order"][0], ev["order"][-1] = ev["order"][-1], ev["order"][0]
    # a swapped order is still honest when (e4) holds for every P; forge the seeds too
    ev["order"][0]["seed"], ev["order"][-1]["seed"] = ev["order"][-1]["seed"], ev["order"][0]["seed"]


def _twice(ev):
    ev["order"][1]["neuron"] = ev["order"][0]["neuron"]


def _b_as_a(ev):
    e = next(e for e in ev["order"] if e["method"] == "b")
    e["method"] = "a"


def _duplicate_flats(ev):
    ev["h4"]["flats"] = ev["h4"]["flats"][:1] * 40
    ev["h4"]["method"] = "count"


def _exhaustive_to_count(ev):
    ev["h4"]["method"] = "count" if ev["h4"]["method"] == "exhaustive" else "cover"


def _truncate_flats(ev):
    j = ev["h4"]["flats"][0]["neuron"]
    ev["h4"]["flats"] = [f for f in ev["h4"]["flats"] if f["neuron"] != j][:]


def _dependent_minor(ev):
    ev["minor"] = [ev["minor"][0]] * len(ev["minor"])


def _seed_elsewhere(ev):
    for e in ev["order"]:
        e["seed"] = (e["seed"] + 1) % len(ev["regions"])


@pytest.mark.parametrize("change", [_drop_edge, _swap_order, _twice, _b_as_a, _duplicate_flats, _truncate_flats,
                                    _dependent_minor, _seed_elsewhere])
def test_u_frame_forgeries_are_rejected(certs, change):
    n, d = certs["u"]
    assert _rejected(d, n, change)


def _move_visible_point(ev):
    r = next(r for r in ev["regions"] if r["visible"])
    r["visible"][0][1] = [str(F(x) + F(1, 3)) for x in r["visible"][0][1]]


def _invisible_claimed_visible(ev):
    r = next(r for r in ev["regions"] if r["invisible"])
    k, _ = r["invisible"].pop()
    r["visible"].append([k, r["point"]])


def _visible_also_invisible(ev):
    """A visible neuron listed a second time as invisible, with a vacuous Motzkin vector (y = 0, z = 0)."""
    r = next(r for r in ev["regions"] if r["visible"])
    k = r["visible"][0][0]
    r["invisible"].append([k, [["0"] * len(r["signs"]), "0"]])


def _invisible_dropped(ev):
    r = next(r for r in ev["regions"] if r["invisible"])
    r["invisible"].pop()


def _motzkin_changed(ev):
    r = next(r for r in ev["regions"] if r["invisible"])
    r["invisible"][0][1]["z"] = str(-F(r["invisible"][0][1]["z"]) - 1)


def _wall_point_moved(ev):
    e = next(e for e in ev["order"] if e["edges"])
    e["edges"][0][2] = [str(F(x) + 1) for x in e["edges"][0][2]]


def _region_point_moved(ev):
    ev["regions"][0]["point"] = [str(F(x) * -7 - 3) for x in ev["regions"][0]["point"]]


def _flat_point_moved(ev):
    ev["h4"]["flats"][0]["point"] = [str(F(x) + F(1, 5)) for x in ev["h4"]["flats"][0]["point"]]


def _x_with_minor(ev):
    ev["minor"] = [0, 1]


@pytest.mark.parametrize("change", [_drop_edges_of_a, _twice, _b_as_a, _move_visible_point, _invisible_claimed_visible,
                                    _invisible_dropped, _motzkin_changed, _wall_point_moved, _region_point_moved,
                                    _flat_point_moved, _x_with_minor, _duplicate_flats,
                                    _visible_also_invisible])
def test_x_frame_forgeries_are_rejected(certs, change):
    n, d = certs["x"]
    assert _rejected(d, n, change)


def test_transplanted_certificates_are_rejected(certs):
    for key in ("u", "x"):
        n, d = certs[key]
        W = [list(r) for r in n.layers[1].weight]
        w = list(n.layers[1].bias)
        W[0], w[0] = [-abs(x) for x in W[0]], F(-1)          # the same architecture, layer-2 neuron 1 dead
        other = n.__class__.from_lists([(n.layers[0].weight, n.layers[0].bias), (W, w),
                                        (n.layers[2].weight, n.layers[2].bias)])
        cert = from_json(json.dumps(d))
        moved = dataclasses.replace(cert, network=other, network_sha256=other.sha256())
        rep = check_certificate(from_json(to_json(moved)), other)
        assert not rep.valid
        assert next(c for c in rep.claims if c.id == "two-layer-pinning").status == "failed"


def test_the_checkers_orthant_rule():
    assert _orthant_zero([1, -1], 5) and _orthant_zero([1, 1], -1) and _orthant_zero([-1], 1)
    assert not _orthant_zero([1, 1], 0) and not _orthant_zero([0, 0], -1) and not _orthant_zero([-2], -1)


def _reason(d, n, change):
    d = copy.deepcopy(d)
    change(_ev(d))
    rep = check_certificate(from_json(json.dumps(d)), n)
    assert not rep.valid
    return rep.reason


def _all_orthants(ev):
    """List every orthant as a region (in the u frame each one is), re-indexing the seeds and edges."""
    old = [r["signs"] for r in ev["regions"]]
    new = ["".join(t) for t in itertools.product("+-", repeat=len(old[0]))]
    ev["regions"] = [{"signs": s} for s in new]
    for e in ev["order"]:
        e["seed"] = new.index(old[e["seed"]])
        e["edges"] = [[new.index(old[r]), j] for r, j in e["edges"]]
    return new


def _pin_from(entry, seed, labels, method):
    def change(ev):
        new = _all_orthants(ev)
        e = next(e for e in ev["order"] if e["neuron"] == entry)
        e.update(seed=new.index(seed), edges=[[new.index(seed), j] for j in labels], method=method)
    return change


def test_listing_every_orthant_keeps_an_honest_certificate_valid(certs):
    n, d = certs["u"]
    d = copy.deepcopy(d)
    _all_orthants(_ev(d))
    assert _valid(d, n)


def test_an_edge_failing_only_the_count_e4_is_rejected():
    d = _cert(E4_NET)
    assert "(e4)" in _reason(d, E4_NET, _pin_from(0, "++-", [0, 2], "b"))


def test_a_single_region_pin_is_rejected_by_w3(certs):
    n, d = certs["u"]
    # no edge: W.3(a) needs every label flipped somewhere in 𝒞; W.3(b) from one region needs s0 = (+, …, +)
    assert "W.3(a)" in _reason(d, n, _pin_from(0, "+++", [], "a"))
    assert "W.3(b)" in _reason(d, n, _pin_from(0, "+-+", [], "b"))


def _one_flat_per_line_repeated(ev):
    flats = ev["h4"]["flats"]
    one = [next(f for f in flats if f["neuron"] == j) for j in sorted({f["neuron"] for f in flats})]
    ev["h4"]["flats"] = one * (len(one) + 1)
    ev["h4"]["method"] = "count"


def test_repeated_flats_count_once_per_line(certs):
    for key in ("u", "x"):
        n, d = certs[key]
        assert "H4 by Lemma H4-count" in _reason(d, n, _one_flat_per_line_repeated)


def test_the_u_frame_is_rejected_when_rank_a_is_below_n1(certs):
    n, d = certs["u"]
    A = [list(r) for r in n.layers[0].weight]
    A[2] = [x + y for x, y in zip(A[0], A[1])]           # rank A = 2 < n1 = 3; the rows stay non-proportional
    other = n.__class__.from_lists([(A, n.layers[0].bias), (n.layers[1].weight, n.layers[1].bias),
                                    (n.layers[2].weight, n.layers[2].bias)])
    moved = dataclasses.replace(from_json(json.dumps(d)), network=other, network_sha256=other.sha256())
    rep = check_certificate(from_json(to_json(moved)), other)
    pin = next(c for c in rep.claims if c.id == "two-layer-pinning")
    assert not rep.valid and pin.status == "failed" and "nonsingular minor" in pin.message


@pytest.mark.parametrize("where, value", [("minor", [{}, 1, 2]), ("minor", [[0], 1, 2]), ("flip", None),
                                          ("flip", []), ("flip", "separation")])
def test_malformed_evidence_is_a_failed_claim(certs, where, value):
    n, d = certs["u"]
    d = copy.deepcopy(d)
    if where == "minor":
        _ev(d)["minor"] = value
    else:
        next(c for c in d["claims"] if c["kind"] == "deep-layer-no-flip-set")["evidence"]["evidence"] = value
    rep = check_certificate(from_json(json.dumps(d)), n)
    assert not rep.valid and any(c.status == "failed" for c in rep.claims)


# ---- the x frame at size: the certificate of the LP-guided search (analysis/deep/xsearch.py) ----------------

@pytest.fixture(scope="module")
def search():
    """The Theorem W evidence of the search on a He-initialised 8-16-16-2 network, as JSON data."""
    pytest.importorskip("highspy")
    from reluid.analysis.deep.pinning import analyse_pinning
    from reluid.certificates.build import pinning_evidence
    from tests.analysis.deep.test_xsearch import NET
    pin = analyse_pinning(NET)
    assert pin.holds and pin.frame.kind == "x"
    return NET, json.loads(json.dumps(pinning_evidence(pin)))


def _verifies(n, ev):
    from reluid.checker.pinning import verify_pinning
    from reluid.checker.registry import Context
    from reluid.errors import CheckFailed
    try:
        verify_pinning(ev, Context(n, "two-layer-pinning"))
    except CheckFailed:
        return False
    return True


def _tiny(x):
    return str(F(x) + F(1, 2 ** 40))


def _wall_point_off_the_wall(ev):
    e = next(e for e in ev["order"] if e["edges"])
    e["edges"][-1][2][0] = _tiny(e["edges"][-1][2][0])


def _region_point_of_the_neighbour(ev):
    e = next(e for e in ev["order"] if e["edges"])
    src, j, _ = e["edges"][0]
    signs = ev["regions"][src]["signs"]
    t = signs[:j] + ("-" if signs[j] == "+" else "+") + signs[j + 1:]
    other = next(r for r in ev["regions"] if r["signs"] == t)
    ev["regions"][src]["point"] = other["point"]          # a real point, with exactly the sign of u_j wrong


def _motzkin_negative_entry(ev):
    r = next(r for r in ev["regions"] if r["invisible"])
    y = r["invisible"][0][1]["y"]
    i = next(i for i, v in enumerate(y) if F(v) == 0)
    y[i] = "-1"


def _visible_off_its_zero_set(ev):
    r = ev["regions"][0]
    r["visible"][0][1][0] = _tiny(r["visible"][0][1][0])


def _flat_off_its_flat(ev):
    f = ev["h4"]["flats"][-1]
    f["point"][1] = _tiny(f["point"][1])


def _last_edge_dropped(ev):
    e = next(e for e in ev["order"] if e["edges"])
    e["edges"].pop()                                       # a label never flipped: W.3(a) fails


def test_the_evidence_of_the_search_is_valid(search):
    n, ev = search
    assert _verifies(n, ev)


@pytest.mark.slow
def test_the_certificate_of_the_search_is_valid():
    from tests.analysis.deep.test_xsearch import NET
    d = _cert(NET)
    assert _ev(d)["frame"] == "x" and _valid(d, NET)


@pytest.mark.parametrize("change", [_wall_point_off_the_wall, _region_point_of_the_neighbour, _motzkin_negative_entry,
                                    _visible_off_its_zero_set, _flat_off_its_flat, _last_edge_dropped])
def test_forgeries_of_the_search_evidence_are_rejected(search, change):
    n, ev = search
    ev = copy.deepcopy(ev)
    change(ev)
    assert not _verifies(n, ev)
