"""The reduction checker (reluid/checker/reduction.py): honest certificates pass, forgeries are rejected."""

import copy
import json

import pytest

from reluid.analysis.reduction import reduce_network
from reluid.certificates.reduction import generate_reduction_json, reduction_document
from reluid.checker.reduction import check_reduction, parse_reduction
from reluid.errors import CertificateError
from reluid.model.network import Layer, Network
from tests.analysis.test_reduction import PLANTED


@pytest.fixture(scope="module")
def honest():
    r = reduce_network(PLANTED)
    return r, json.loads(generate_reduction_json(reduction_document(r)))


def _step(doc, rule, k=0):
    return [s for s in doc["steps"] if s["rule"] == rule][k]


def test_honest(honest):
    r, doc = honest
    res = check_reduction(doc, PLANTED, r.reduced)
    assert res.valid and res.steps == 4


def test_wrong_neuron_dead(honest):
    r, doc = honest
    bad = copy.deepcopy(doc)
    s = _step(bad, "dead")
    s["neuron"] = 0 if s["neuron"] != 0 else 1             # a live neuron of the same layer
    res = check_reduction(bad, PLANTED, r.reduced)
    assert not res.valid and "Farkas tree does not prove" in res.reason


def test_wrong_neuron_zero_outgoing(honest):
    r, doc = honest
    bad = copy.deepcopy(doc)
    _step(bad, "zero-outgoing")["neuron"] = 1
    res = check_reduction(bad, PLANTED, r.reduced)
    assert not res.valid and "outgoing weights" in res.reason


def test_wrong_merge_factor(honest):
    r, doc = honest
    bad = copy.deepcopy(doc)
    _step(bad, "merge")["factor"] = 3
    res = check_reduction(bad, PLANTED, r.reduced)
    assert not res.valid and "factor is not λ = 2" in res.reason


def test_merge_of_non_proportional_neurons(honest):
    r, doc = honest
    bad = copy.deepcopy(doc)
    _step(bad, "merge")["into"] = 1                       # σ(2x) is not a multiple of σ(x + 1)
    res = check_reduction(bad, PLANTED, r.reduced)
    assert not res.valid and "not a positive multiple" in res.reason


def test_wrong_merged_weights_in_the_reduced_network(honest):
    r, doc = honest
    L = r.reduced.layers[1]
    W = [list(row) for row in L.weight]
    W[0][0] += 1                                           # the merged column, off by one
    forged = Network((r.reduced.layers[0], Layer(tuple(map(tuple, W)), L.bias, L.n_in), *r.reduced.layers[2:]))
    bad = copy.deepcopy(doc)
    bad["reduced"]["sha256"] = bad["steps"][-1]["result"] = forged.sha256()
    res = check_reduction(bad, PLANTED, forged)
    assert not res.valid and "another SHA-256" in res.reason


def test_transplanted_premise(honest):
    r, doc = honest
    bad = copy.deepcopy(doc)
    a, b = _step(bad, "dead", 0), _step(bad, "dead", 1)
    a["premise"], b["premise"] = b["premise"], a["premise"]   # each tree speaks of the other neuron
    res = check_reduction(bad, PLANTED, r.reduced)
    assert not res.valid and "Farkas tree does not prove" in res.reason


def test_orthant_claim_for_a_neuron_dead_only_by_a_tree(honest):
    r, doc = honest
    bad = copy.deepcopy(doc)
    _step(bad, "dead")["premise"] = {"method": "orthant"}
    res = check_reduction(bad, PLANTED, r.reduced)
    assert not res.valid and "not dead by inspection" in res.reason


def test_dead_neuron_called_constant(honest):
    r, doc = honest
    bad = copy.deepcopy(doc)
    s = _step(bad, "dead")
    s["rule"], s["value"] = "constant", 0
    res = check_reduction(bad, PLANTED, r.reduced)
    assert not res.valid and "incoming row" in res.reason


@pytest.mark.parametrize("where", ["step", "original", "reduced"])
def test_wrong_hash(honest, where):
    r, doc = honest
    bad = copy.deepcopy(doc)
    if where == "step":
        bad["steps"][1]["result"] = "0" * 64
    else:
        bad[where]["sha256"] = "0" * 64
    assert not check_reduction(bad, PLANTED, r.reduced).valid


def test_dropped_step(honest):
    r, doc = honest
    bad = copy.deepcopy(doc)
    del bad["steps"][-1]
    res = check_reduction(bad, PLANTED, r.reduced)
    assert not res.valid and "do not end at the reduced network" in res.reason


def test_the_reduced_network_must_be_the_one_given(honest):
    r, doc = honest
    res = check_reduction(doc, PLANTED, PLANTED)
    assert not res.valid


@pytest.mark.parametrize("text, why", [
    ('{"format": "reluid.reduction/1", "original": {"sha256": "a"}, "reduced": {"sha256": "b"}, "steps": 1.5}',
     "float"),
    ('{"format": "reluid.reduction/1", "original": {"sha256": "a"}, "reduced": {"sha256": "b"}, '
     '"steps": [{"step": 1, "rule": "shrink", "layer": 1, "neuron": 0, "result": "c"}]}', "unknown rule"),
    ('{"format": "reluid.reduction/1", "original": {"sha256": "a"}, "reduced": {"sha256": "b"}, '
     '"steps": [{"step": 1, "rule": "merge", "layer": 1, "neuron": 0, "into": 1, "factor": "2/4", "result": "c"}]}',
     "lowest terms"),
    ('{"format": "reluid.alignment/1"}', "format"),
])
def test_malformed_documents(text, why):
    with pytest.raises(CertificateError, match=why):
        parse_reduction(text)
