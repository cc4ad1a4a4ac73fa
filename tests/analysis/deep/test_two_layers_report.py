"""reports/two_layers.json is consistent and current, and the competitor search finds nothing outside the orbits."""

from __future__ import annotations

import json
import os

import pytest

from reluid.analysis.deep.two_layers import analyse_two_layers
from reluid.analysis.deep.two_layers_survey import survey
from reluid.model.network import Network
from tests.paths import ROOT

REPORT = os.path.join(str(ROOT), "reports", "two_layers.json")
FIELDS = ("verdict", "first_failure", "dim_fun", "U", "dim_fun_exact", "cells", "theorem", "w_failure")
ARCHS = [(2, 2, 3, 1), (2, 3, 3, 1), (3, 3, 3, 1), (2, 4, 4, 2)]


@pytest.fixture(scope="module")
def doc():
    with open(REPORT, encoding="utf-8") as fh:
        return json.load(fh)


def test_the_report_is_consistent(doc):
    assert {(tuple(r["architecture"]), r["distribution"]) for r in doc["rows"]} == {
        (a, k) for a in ARCHS for k in ("glr", "iid")}
    for r in doc["rows"]:
        recs = r["records"]
        assert len(recs) == r["count"] == r["no_hidden"] + r["hidden"] + r["unknown"]
        assert r["no_hidden"] == sum(x["verdict"] == "no-hidden-symmetries" for x in recs)
        assert sum(r["first_failure"].values()) == r["unknown"]
        assert r["dim_fun_U"] == sum(x["dim_fun_exact"] and x["dim_fun"] == x["U"] for x in recs)
        for x in recs:     # every certified network has dim_fun = U exactly
            if x["verdict"] != "unknown":
                assert x["dim_fun_exact"] and x["dim_fun"] == x["U"]
    t = doc["search_total"]
    assert t["competitors"] == 0 and t["near_fits"] == t["in_orbit"] + t["refuted"] and t["near_fits"] > 0
    assert all(c["competitors"] == 0 and c["orbits_found"] >= 1 for c in doc["controls"])


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kind", ["glr", "iid"])
def test_the_first_records_are_current(doc, arch, kind):
    row = next(r for r in doc["rows"] if tuple(r["architecture"]) == arch and r["distribution"] == kind)
    for (_, rec), committed in zip(survey(arch, kind, 2, doc["seed"]), row["records"]):
        assert {k: rec.get(k) for k in FIELDS} == {k: committed.get(k) for k in FIELDS}, "reports/two_layers.json is stale: run reports/two_layers.py"


def test_a_short_competitor_search():
    pytest.importorskip("scipy", reason="the competitor search fits with scipy (reluid[search], in reluid[test])")
    from reluid.analysis.deep.competitors import search_competitors
    net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[2, 1], [1, 2], [-3, -3]], [-6, -8, 13]),
                              ([[1, 1, 1]], [0])])
    s = search_competitors(net, analyse_two_layers(net), starts=7, seed=1)
    assert not s.competitors and s.near_fits == s.in_orbit + s.refuted and s.near_fits >= 1


@pytest.mark.slow
def test_competitor_search_on_certified_networks():
    """Evidence against the implementation (slow): no near-fit outside the orbits θ^{F1,F2} on certified nets,
    and the second orbit of the Lemma D.15 network is found (positive control)."""
    pytest.importorskip("scipy", reason="the competitor search fits with scipy (reluid[search], in reluid[test])")
    from reluid.analysis.deep.competitors import SearchResult, search_competitors
    total = SearchResult()
    for arch in [(2, 2, 3, 1), (2, 3, 3, 1), (3, 3, 3, 1)]:
        for i, (net, rec) in enumerate(survey(arch, "glr", 6, 7)):
            if rec["verdict"] == "unknown":
                continue
            total.add(search_competitors(net, analyse_two_layers(net), seed=i))
    print(f"\ncompetitor search: {total.starts} starts, {total.near_fits} near-fits, {total.in_orbit} in orbits, "
          f"{total.refuted} refuted, {len(total.competitors)} competitors")
    assert not total.competitors and total.near_fits > 20
    d15 = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[2, 1], [1, 2], [-3, -3]], [-6, -8, 13]),
                              ([[1, 1, 1]], [0])])
    s = search_competitors(d15, analyse_two_layers(d15), seed=1)
    assert (frozenset(), frozenset({0, 1, 2})) in s.orbits_hit


def test_the_models_at_size_are_current(doc):
    """The trained-model rows name the committed fixtures, and the cheap ones recompute to the same answer."""
    import reluid

    trained = {r["file"]: r for r in doc["trained"]}
    root = os.path.join(str(ROOT), "tests", "fixtures", "trained")
    assert trained and all(os.path.exists(os.path.join(root, f)) for f in trained)
    for f in ("torch_breast_cancer_30_16_16_1.onnx", "torch_digits_64_32_32_10.onnx"):
        net = reluid.load(os.path.join(root, f))
        r = analyse_two_layers(net, timeout=600)
        assert list(net.architecture) == trained[f]["architecture"]
        assert r.verdict.value == trained[f]["verdict"]
    for row in doc["he_init"]:
        assert len(row["records"]) == row["count"]
