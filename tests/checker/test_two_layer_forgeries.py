"""The checker against forged two-hidden-layer certificates (docs/mathematics.md §8).

Targeted forgeries (each must be rejected): a region witness moved out of its region, a zero moved
off its g^s_k, an edge dropped so that a label is missing, a disconnected edge set, a bend-flat
point moved off the wall, an H4 cover hidden (honest evidence of a network where H4 fails, with
duplicated or fabricated flats), flip-set evidence of another network, the whole certificate
transplanted to a network of the same architecture where H4 fails, and the verdict flipped
either way.  Then random mutations (tests/checker/forgery.py) of every certificate in a pool,
judged by an exact oracle that shares no code with the checker: the producer's verdict for the
unmutated networks, and for a witness the exact equality of the functions on every cell of
their difference (reluid.analysis.deep.cells.same_function) and the exhaustive orbit search.
The counts are printed at the end.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import Counter
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.cells import same_function
from reluid.analysis.deep.orbit import same_orbit
from reluid.analysis.deep.two_layers import _Analysis, analyse_two_layers, flipped
from reluid.api import certify
from reluid.certificates.build import two_layer_evidence
from reluid.certificates.schema import from_json, to_json
from reluid.checker.check import check_certificate
from reluid.model.rational import format_rational
from tests.checker.forgery import MUTATIONS, mutants
from tests.two_layer_nets import CERTIFIED, D15, glr, net

STATS: Counter = Counter()


BOTH = net([[1, 0], [-1, 0], [-1, 2]], [0, 2, -2], [[2, 2, 2], [3, 3, 3], [-5, -5, -5]], [-5, -9, 16],
           [[1, 1, 1]], [0])
#: Ω(2,2,3,1), H0 and H1 hold, H2∧H3 and H4 fail (the transplant target)
H4_FAILS = net([[-1, 1], [1, -2]], [-2, 2], [[1, 3], [3, -1], [-1, 2]], [-1, 3, 1], [[2, -2, -2]], [0])


def _pool():
    nets = [CERTIFIED, D15, BOTH, H4_FAILS]
    rng = random.Random(3)
    for arch in ((2, 2, 3, 1), (2, 2, 3, 1), (2, 3, 3, 1), (3, 3, 3, 1)):
        nets.append(glr(arch, rng))
    return [(n, to_json(certify(n, timeout=20))) for n in nets]


POOL = _pool()
POOL_DICTS = [json.loads(t) for _, t in POOL]
TRUTH = {n.sha256(): json.loads(t)["verdict"] for n, t in POOL}


def cert_of(n):
    return next(json.loads(t) for m, t in POOL if m == n)


def verdict_is_true(cert) -> bool:
    """The exact oracle (no checker code)."""
    if cert.verdict.value == "unknown":
        return True
    netw = cert.network
    if cert.verdict.value == "hidden-symmetry":
        w = cert.witness.network
        if w.architecture != netw.architecture:
            return False
        same, _ = same_function(netw, w)
        return bool(same) and same_orbit(netw, w) is None
    return TRUTH.get(netw.sha256()) == "no-hidden-symmetries"


def judge(d, what):
    """Check a forged certificate (JSON data); True when rejected.  An accepted one must be true."""
    STATS["tried"] += 1
    STATS[f"tried: {what}"] += 1
    try:
        cert = from_json(json.dumps(d))
    except Exception:
        STATS["malformed"] += 1
        return True
    report = check_certificate(cert)
    if report.valid:
        assert verdict_is_true(cert), f"forged certificate accepted ({what}): {report.rule}"
        STATS["accepted, verdict true"] += 1
        return False
    STATS["rejected"] += 1
    STATS[f"rejected: {what}"] += 1
    return True


def claim(d, kind):
    return next(c for c in d["claims"] if c["kind"] == kind)


def pt(xs):
    return [format_rational(F(x)) for x in xs]


# ---- the honest certificates ----------------------------------------------------

def test_honest_certificates_are_valid_and_say_what_the_theorem_says():
    verdicts = {}
    for n, text in POOL:
        report = check_certificate(from_json(text))
        assert report.valid, report.reason
        verdicts[n.sha256()] = json.loads(text)["verdict"]
    assert verdicts[CERTIFIED.sha256()] == "no-hidden-symmetries"
    assert verdicts[D15.sha256()] == verdicts[BOTH.sha256()] == "hidden-symmetry"
    assert verdicts[H4_FAILS.sha256()] == "unknown"
    assert "Theorem 8.2" in check_certificate(from_json(POOL[0][1])).rule


# ---- targeted forgeries ----------------------------------------------------------

def test_region_witness_moved_out_of_its_region():
    d = cert_of(CERTIFIED)
    ev = claim(d, "deep-two-layer-hypotheses")["evidence"]
    for v in range(len(ev["vertices"])):
        f = copy.deepcopy(d)
        V = claim(f, "deep-two-layer-hypotheses")["evidence"]["vertices"][v]
        V["point"] = pt(-F(x) - 1 for x in V["point"])          # the opposite orthant
        assert judge(f, "region witness moved out of its region")
        f = copy.deepcopy(d)
        V = claim(f, "deep-two-layer-hypotheses")["evidence"]["vertices"][v]
        V["zeros"][0] = pt(F(x) + F(1, 7) for x in V["zeros"][0])  # off g^s_1 = 0
        assert judge(f, "zero of g^s_k moved")
        f = copy.deepcopy(d)
        V = claim(f, "deep-two-layer-hypotheses")["evidence"]["vertices"][v]
        V["zeros"] = V["zeros"][:-1]
        assert judge(f, "a zero dropped")


def test_an_edge_dropped_so_that_a_label_is_missing():
    d = cert_of(CERTIFIED)
    edges = claim(d, "deep-two-layer-hypotheses")["evidence"]["edges"]
    assert sorted(e["label"] for e in edges) == [0, 1]
    for i in range(len(edges)):
        f = copy.deepcopy(d)
        del claim(f, "deep-two-layer-hypotheses")["evidence"]["edges"][i]
        assert judge(f, "edge dropped, a label missing")
    f = copy.deepcopy(d)
    claim(f, "deep-two-layer-hypotheses")["evidence"]["edges"] = []
    assert judge(f, "no edges")


def test_edges_between_unverified_or_non_adjacent_regions_and_disconnected_edge_sets():
    d = cert_of(CERTIFIED)
    f = copy.deepcopy(d)
    ev = claim(f, "deep-two-layer-hypotheses")["evidence"]
    ev["edges"].append({"signs": "+-", "label": 0})      # (−,−) is not full
    assert judge(f, "edge to a region that is not full")
    f = copy.deepcopy(d)
    ev = claim(f, "deep-two-layer-hypotheses")["evidence"]
    ev["vertices"] = [v for v in ev["vertices"] if v["signs"] != "-+"]
    assert judge(f, "an edge end not listed")
    # a (2,3,3,1) net whose rigid edges can be chosen to cover every label without being connected
    rng = random.Random(8)
    tried = 0
    for _ in range(40):
        n = glr((2, 3, 3, 1), rng)
        r = analyse_two_layers(n)
        if r.verdict.value != "no-hidden-symmetries":
            continue
        an = _Analysis(n, 10**6, None, 4000)
        comp = set(r.component)
        rigid = [(s, j) for s in comp for j in range(3) if s[j] > 0 and s[:j] + (-1,) + s[j + 1:] in comp
                 and an.rigid(s, j)]
        for E in itertools.combinations(rigid, 3):
            ends = [{s, s[:j] + (-1,) + s[j + 1:]} for s, j in E]
            labels = {j for _, j in E}
            if labels == {0, 1, 2} and any(not (ends[a] & (ends[b] | ends[c]))
                                           for a, b, c in ((0, 1, 2), (1, 0, 2), (2, 0, 1))):
                f = json.loads(to_json(certify(n, timeout=20)))
                claim(f, "deep-two-layer-hypotheses")["evidence"]["edges"] = [
                    {"signs": "".join("+" if v > 0 else "-" for v in s), "label": j} for s, j in E]
                assert judge(f, "disconnected edge set carrying every label")
                tried += 1
                break
        if tried >= 2:
            break
    assert tried >= 1


def test_a_bend_flat_point_moved_off_the_wall():
    d = cert_of(CERTIFIED)
    flats = claim(d, "deep-two-layer-hypotheses")["evidence"]["flats"]
    for i, fl in enumerate(flats):
        for delta in ((F(1, 3), 0), (0, F(1, 3)), (-1, -1)):
            f = copy.deepcopy(d)
            g = claim(f, "deep-two-layer-hypotheses")["evidence"]["flats"][i]
            g["point"] = pt(F(x) + dx for x, dx in zip(g["point"], delta))
            assert judge(f, "bend-flat point moved off the wall")
        f = copy.deepcopy(d)
        g = claim(f, "deep-two-layer-hypotheses")["evidence"]["flats"][i]
        g["unit"] = (g["unit"] + 1) % 3                    # the point is not on that g's zero set
        assert judge(f, "bend flat relabelled to another layer-2 neuron")
        f = copy.deepcopy(d)
        g = claim(f, "deep-two-layer-hypotheses")["evidence"]["flats"][i]
        g["neuron"] = 1 - g["neuron"]
        assert judge(f, "bend flat moved to another layer-1 hyperplane")


def test_a_bend_flat_outside_the_wall_in_three_dimensions():
    """n0 = 3: flats are lines; a point on the line but outside the wall is rejected."""
    rng = random.Random(2)
    for _ in range(20):
        n = glr((3, 3, 3, 1), rng)
        r = analyse_two_layers(n)
        if r.verdict.value == "no-hidden-symmetries":
            break
    d = json.loads(to_json(certify(n, timeout=20)))
    fl = claim(d, "deep-two-layer-hypotheses")["evidence"]["flats"][0]
    A, W = n.layers[0], n.layers[1]
    j, k = fl["neuron"], fl["unit"]
    s = [1 if ch == "+" else -1 for ch in fl["signs"]]
    g = [sum((W.weight[k][i] * A.weight[i][t] for i in range(3) if s[i] > 0), F(0)) for t in range(3)]
    u = A.weight[j]
    direction = [u[1] * g[2] - u[2] * g[1], u[2] * g[0] - u[0] * g[2], u[0] * g[1] - u[1] * g[0]]  # along the flat
    p = [F(x) for x in fl["point"]]
    moved = 0
    for t in (F(10**3), F(-10**3)):
        q = [x + t * y for x, y in zip(p, direction)]
        inside = all(s[i] * (sum((A.weight[i][c] * q[c] for c in range(3)), A.bias[i])) > 0 for i in range(3) if i != j)
        if not inside:
            f = copy.deepcopy(d)
            claim(f, "deep-two-layer-hypotheses")["evidence"]["flats"][0]["point"] = pt(q)
            assert judge(f, "point on the flat, off the wall")
            moved += 1
    assert moved


def _h4_failing_no_hidden_certificate():
    """Ω(2,2,2,1) satisfies H0–H3 and no flip set, but H4 fails: honest evidence, verdict forged."""
    rng = random.Random(5)
    for _ in range(60):
        n = glr((2, 2, 2, 1), rng)
        r = analyse_two_layers(n, stop_early=False)
        hs = {h.name: h.holds for h in r.hypotheses}
        if not (hs["H0"] and hs["H1"] and hs["H2∧H3"] and hs["H4"] is False):
            continue
        from reluid.analysis.deep.two_layers import _shallow_views
        from reluid.analysis.shallow.flipsets import find_flip_set
        views = [find_flip_set(t) for t in _shallow_views(n)]
        if any(v.outcome.value != "none" for v in views):
            continue
        d = json.loads(to_json(certify(n, timeout=20)))
        d["verdict"] = "no-hidden-symmetries"
        d.pop("reasons", None)
        d["claims"] = [{"id": "h", "kind": "deep-two-layer-hypotheses", "statement": "H0–H4", "reference": "§8",
                        "role": "verdict", "evidence": json.loads(json.dumps(two_layer_evidence(r), default=str))}]
        for layer, v in ((1, views[0]), (2, views[1])):
            d["claims"].append({"id": f"f{layer}", "kind": "deep-layer-no-flip-set", "statement": "none",
                                "reference": "§3", "role": "verdict",
                                "evidence": {"layer": layer, "evidence": json.loads(json.dumps(dict(v.evidence)))}})
        return n, r, d
    raise AssertionError("no Ω(2,2,2,1) net failing only H4 found")


def test_an_h4_cover_cannot_be_hidden():
    n, r, d = _h4_failing_no_hidden_certificate()
    report = check_certificate(from_json(json.dumps(d)))
    assert not report.valid and "H4 fails" in report.reason
    STATS["tried"] += 1
    STATS["rejected"] += 1
    ev = claim(d, "deep-two-layer-hypotheses")["evidence"]
    for fl in list(ev["flats"]):
        f = copy.deepcopy(d)
        claim(f, "deep-two-layer-hypotheses")["evidence"]["flats"].append(copy.deepcopy(fl))   # the same flat again
        assert judge(f, "H4 cover hidden by a repeated flat")
        for s in ("++", "+-", "-+", "--"):                  # the same flat claimed from another region
            f = copy.deepcopy(d)
            g = copy.deepcopy(fl)
            g["signs"] = s
            claim(f, "deep-two-layer-hypotheses")["evidence"]["flats"].append(g)
            assert judge(f, "H4 cover hidden by a flat from another region")
        for dx in (F(1), F(-1, 2), F(5)):                   # a fabricated flat elsewhere on the hyperplane
            f = copy.deepcopy(d)
            g = copy.deepcopy(fl)
            u = n.layers[0].weight[g["neuron"]]
            g["point"] = pt(F(x) + dx * y for x, y in zip(g["point"], (u[1], -u[0])))
            claim(f, "deep-two-layer-hypotheses")["evidence"]["flats"].append(g)
            assert judge(f, "H4 cover hidden by a fabricated flat")
    # cover trees cannot hide it either: uniform packings, a branch per flat, or nothing left at all
    from reluid.analysis.deep.h4_trees import open_sets

    sets = open_sets([fl["neuron"] for fl in ev["flats"]], 2)
    assert sets
    for tree in ({"y": "1"}, {"y": "1/2"}, {"y": []}, {"split": 0, "children": [{"y": "1"}]}):
        f = copy.deepcopy(d)
        claim(f, "deep-two-layer-hypotheses")["evidence"]["cover"] = [{"I": list(I), "tree": tree} for I in sets]
        assert judge(f, "H4 cover hidden by forged cover trees")


def test_flip_set_evidence_of_another_network():
    good = cert_of(CERTIFIED)
    for victim in (D15, BOTH):
        d = copy.deepcopy(cert_of(victim))
        d["verdict"], d["witness"] = "no-hidden-symmetries", None
        theirs = [c for c in d["claims"] if c["kind"] != "deep-layer-no-flip-set"]
        d["claims"] = [c for c in theirs if c["kind"] != "deep-witness"] + [
            copy.deepcopy(c) for c in good["claims"] if c["kind"] == "deep-layer-no-flip-set"]
        for c in d["claims"]:
            c["role"] = "verdict"
        assert judge(d, "no-flip-set evidence of another network")
    # and for a network without flip sets, evidence of another network is accepted only if it is true here
    for n, text in POOL[4:]:
        d = json.loads(text)
        if d["verdict"] != "no-hidden-symmetries":
            continue
        f = copy.deepcopy(d)
        for c in f["claims"]:
            if c["kind"] == "deep-layer-no-flip-set":
                c["evidence"] = copy.deepcopy(claim(good, "deep-layer-no-flip-set")["evidence"])
                c["evidence"]["layer"] = c["evidence"]["layer"]
        judge(f, "no-flip-set evidence of another network (rigid victim)")


def test_the_whole_certificate_transplanted_to_a_network_where_h4_fails():
    for n, text in POOL:
        d = json.loads(text)
        if d["verdict"] == "unknown" or tuple(d["network"]["architecture"]) != H4_FAILS.architecture:
            continue
        f = copy.deepcopy(d)
        f["network"]["embedded"] = H4_FAILS.to_dict()
        f["network"]["sha256"] = H4_FAILS.sha256()
        assert judge(f, "whole certificate transplanted to a network where H4 fails")
        f = copy.deepcopy(d)            # the hash alone not updated: rejected before any claim
        f["network"]["embedded"] = H4_FAILS.to_dict()
        assert judge(f, "transplant without the hash")


def test_verdict_flipped():
    d = cert_of(CERTIFIED)
    w_orbit = flipped(CERTIFIED, (), ())
    candidates = [CERTIFIED, w_orbit] + [flipped(CERTIFIED, F1, F2) for F1 in ((), (0,), (1,), (0, 1))
                                          for r in range(4) for F2 in itertools.combinations(range(3), r)
                                          if F1 or F2]
    for w in candidates:
        f = copy.deepcopy(d)
        f["verdict"] = "hidden-symmetry"
        f["witness"] = {"mechanism": "two-layer-flip", "network": w.to_dict(), "details": {}}
        assert judge(f, "no-hidden flipped to hidden with a θ^{F1,F2} that is not a flip")
    for mech in ("layer-flip", "dead-neuron", "always-active"):
        f = copy.deepcopy(d)
        f["verdict"] = "hidden-symmetry"
        f["witness"] = {"mechanism": mech, "network": flipped(CERTIFIED, (0,), ()).to_dict(), "details": {}}
        assert judge(f, "no-hidden flipped to hidden, other mechanisms")
    for victim in (D15, BOTH):
        f = copy.deepcopy(cert_of(victim))
        f["verdict"], f["witness"] = "no-hidden-symmetries", None
        for c in f["claims"]:
            c["role"] = "verdict"
        assert judge(f, "hidden flipped to no-hidden")
    # a hidden witness transplanted to a network of the same architecture without that flip
    f = copy.deepcopy(d)
    f["verdict"] = "hidden-symmetry"
    f["witness"] = copy.deepcopy(cert_of(D15)["witness"])
    assert judge(f, "witness of another network")


# ---- random mutations ---------------------------------------------------------------

@pytest.mark.parametrize("index", range(len(POOL)))
def test_random_mutations_are_rejected_unless_true(index):
    rng = random.Random(1000 + index)
    for name, text in mutants(POOL[index][1], rng, POOL_DICTS, 40):
        judge(json.loads(text), f"mutation {name}")


def test_the_mutations_touch_the_two_layer_evidence():
    rng = random.Random(9)
    d = cert_of(CERTIFIED)
    hits = 0
    for _ in range(60):
        m = MUTATIONS["number"](copy.deepcopy(d), rng, POOL_DICTS)
        if m != d and claim(m, "deep-two-layer-hypotheses") != claim(d, "deep-two-layer-hypotheses"):
            hits += 1
            judge(m, "mutation number (two-layer evidence)")
    assert hits > 10


def test_zz_report_counts():
    # the counts of the run, shown with pytest -s (a default run stays quiet)
    print(f"\ntwo-layer forgeries: {STATS['tried']} tried, {STATS['rejected']} rejected, "
          f"{STATS['malformed']} malformed, {STATS['accepted, verdict true']} accepted with a true verdict")
    for k in sorted(STATS):
        if k.startswith("tried: "):
            print(f"  {k[7:]}: {STATS[k]} tried, {STATS['rejected: ' + k[7:]]} rejected")
    assert STATS["tried"] >= 100
