"""The independent verifier of ``no-other-pattern`` claims: accepts what the producer emits,
rejects every forgery (docs/certificates.md, docs/mathematics.md §4)."""

from __future__ import annotations

import copy
import json
import random

import pytest

from reluid.analysis.shallow.essential import decide_essential
from reluid.api import certify
from reluid.certificates.schema import ClaimKind, from_json, thaw, to_json
from reluid.checker import patterns as cp
from reluid.checker.check import NOT_REVERIFIED, check_certificate
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed
from reluid.io.loader import load
from reluid.model.network import Shallow
from reluid.verdicts import Outcome
from tests.analysis.shallow.pattern_oracles import HIDDEN_EXAMPLES, METHOD_EXAMPLES, random_essential
from tests.paths import EXAMPLES

S = Shallow.make


def evidence_of(theta) -> dict:
    res = decide_essential(theta)
    assert res.outcome is Outcome.NONE
    return thaw(res.evidence)


def verify(theta, ev, ctx=None) -> str:
    """Through the registry, with evidence as it comes out of JSON."""
    ctx = ctx or Context(theta.to_network(), "patterns")
    return VERIFIERS[ClaimKind.NO_OTHER_PATTERN](json.loads(json.dumps(ev)), ctx)


def rejects(theta, ev, match=None):
    with pytest.raises(CheckFailed, match=match):
        verify(theta, ev)


def entry(ev, method):
    return next(e for e in ev["cases"] if e["method"] == method)


def test_registered():
    assert VERIFIERS[ClaimKind.NO_OTHER_PATTERN] is cp.verify_no_other_pattern


@pytest.mark.parametrize("name", sorted(METHOD_EXAMPLES))
def test_accepts_every_method_in_little_work(name):
    theta, methods = METHOD_EXAMPLES[name]
    ev = evidence_of(theta)
    ctx = Context(theta.to_network(), "patterns")
    msg = verify(theta, ev, ctx)
    assert 0 < ctx.budget.used < 10_000              # the steps charged to the work limit (at most 2 976 here)
    assert f"all {sum(methods.values())} cases" in msg
    for meth, count in methods.items():
        assert f"{count} {meth}" in msg


@pytest.mark.parametrize("file", ["rigid_pair.json", "relu_abs.json"])
def test_bundled_certificates_check_in_little_work(file):
    cert = certify(load(EXAMPLES / file))
    report = check_certificate(from_json(to_json(cert)), work_limit=100_000)
    assert report.valid and report.verdict is cert.verdict
    assert not any(c.status == NOT_REVERIFIED for c in report.claims)


# ------------------------------------------------------------------ forged certificates
def test_a_dropped_case_is_rejected():
    for name, (theta, _) in METHOD_EXAMPLES.items():
        ev = evidence_of(theta)
        for i in range(len(ev["cases"])):
            bad = copy.deepcopy(ev)
            dropped = bad["cases"].pop(i)
            rejects(theta, bad, match=rf"case P = \{dropped['P']}, q = {dropped['q']} is missing")


def test_duplicated_and_foreign_cases_are_rejected():
    theta = METHOD_EXAMPLES["box"][0]
    ev = evidence_of(theta)
    bad = copy.deepcopy(ev)
    bad["cases"].append(copy.deepcopy(bad["cases"][0]))
    rejects(theta, bad, match="appears twice")
    bad = copy.deepcopy(ev)
    bad["cases"].append({"P": [0, 1], "q": 0, "method": "own-only"})
    rejects(theta, bad, match="not a case")
    bad = copy.deepcopy(ev)
    bad["p"], bad["s"] = 2, 3
    rejects(theta, bad, match="evidence is for p = 2")


def test_swapped_methods_are_rejected():
    theta = METHOD_EXAMPLES["box"][0]
    ev = evidence_of(theta)
    own, box = entry(ev, "flip"), entry(ev, "box")
    for e, swaps in ((own, [{"method": "own-only"}, {"method": "box", "y": [1, 1]},
                            {"method": "modp-enum", "prime": 7}, {"method": "proj-enum", "T": [], "F": [[1]]}]),
                     (box, [{"method": "own-only"}, {"method": "flip", "evidence": own["evidence"]},
                            {"method": "lattice", "evidence": own["evidence"]}])):
        for new in swaps:
            bad = copy.deepcopy(ev)
            tgt = next(x for x in bad["cases"] if x["P"] == e["P"] and x["q"] == e["q"])
            for key in ("evidence", "y", "prime", "T", "F"):
                tgt.pop(key, None)
            tgt.update(new)
            rejects(theta, bad)
    bad = copy.deepcopy(ev)
    entry(bad, "box")["method"] = "lattice"                  # fields of a box entry under another name
    rejects(theta, bad, match="fields")


def test_changed_numbers_are_rejected():
    theta = METHOD_EXAMPLES["box"][0]
    ev = evidence_of(theta)
    bad = copy.deepcopy(ev)
    entry(bad, "box")["y"] = [0] * len(entry(ev, "box")["y"])
    rejects(theta, bad, match="box value")
    bad = copy.deepcopy(ev)
    entry(bad, "box")["y"] = [-x if isinstance(x, int) else x.lstrip("-") if x.startswith("-") else "-" + x
                              for x in entry(ev, "box")["y"]]
    rejects(theta, bad, match="box value")

    theta = METHOD_EXAMPLES["modp-enum"][0]
    ev = evidence_of(theta)
    for p in (1, 4, 2**64 + 13, True, "7"):
        bad = copy.deepcopy(ev)
        entry(bad, "modp-enum")["prime"] = p
        rejects(theta, bad)

    theta = METHOD_EXAMPLES["lattice"][0]
    ev = evidence_of(theta)
    bad = copy.deepcopy(ev)
    nested = entry(bad, "lattice")["evidence"]
    nested["basis"][0][0] += 1
    rejects(theta, bad)

    theta = METHOD_EXAMPLES["proj-enum"][0]
    ev = evidence_of(theta)
    e = entry(ev, "proj-enum")
    others = [r for r in range(ev["s"]) if r not in e["P"] and r not in e["T"]]
    bad = copy.deepcopy(ev)
    entry(bad, "proj-enum")["T"] = sorted(e["T"] + others[:1])
    rejects(theta, bad, match="does not annihilate")
    bad = copy.deepcopy(ev)
    entry(bad, "proj-enum")["F"] = [[1] * len(e["F"][0])] * len(e["F"])
    rejects(theta, bad)
    bad = copy.deepcopy(ev)
    entry(bad, "proj-enum")["F"] = e["F"][:1]                    # ≤ q columns
    rejects(theta, bad, match="≤ q columns")


def test_nested_evidence_must_use_a_sound_method():
    # for the ±1 embedding only rank and lattice evidence exclude the vector (2e − 1, 1);
    # an enumerate / mitm evidence for θ̃ (no 0/1 kernel vector) proves nothing here
    theta = METHOD_EXAMPLES["lattice"][0]
    ev = evidence_of(theta)
    n = len([r for r in range(ev["s"]) if r not in entry(ev, "lattice")["P"]]) + 1
    bad = copy.deepcopy(ev)
    entry(bad, "lattice")["evidence"] = {"method": "mitm", "n": n}
    rejects(theta, bad, match="must use one of")
    bad = copy.deepcopy(ev)
    entry(bad, "flip")["evidence"] = {"method": "z3", "encoding": "pb", "rows": []}
    rejects(theta, bad, match="must use one of")


def test_evidence_on_a_network_with_a_hidden_symmetry_is_rejected():
    # σ(x1) + 2σ(−x1) + σ(x1 + 1): same shape and case list as the rigid σ(x1) + 2σ(−x1) + σ(x2),
    # but the single's direction lies in the span of the pair's, so flipping it is absorbed
    rigid = METHOD_EXAMPLES["flip"][0]
    hidden = S([1, 2, 1], [[1, 0], [-1, 0], [1, 0]], [0, 0, 1], [0])
    assert decide_essential(hidden).outcome is Outcome.FOUND
    rejects(hidden, evidence_of(rigid))
    for theta, _ in HIDDEN_EXAMPLES.values():
        for donor, _ in METHOD_EXAMPLES.values():
            with pytest.raises(CheckFailed):
                verify(theta, evidence_of(donor))


def test_transplants_between_random_networks_of_one_shape_are_rejected_when_wrong():
    """No certificate is ever accepted for a network with a hidden symmetry (soundness), and
    a transplanted certificate that is accepted must be valid for its new network too."""
    rng = random.Random(5)
    pool = {}
    for _ in range(160):
        m, k, p = rng.choice([(2, 1, 1), (2, 2, 1), (2, 2, 2), (3, 2, 2)])
        theta = random_essential(rng, m=m, k=k, p=p, t=rng.randint(0, 3), wmax=3)
        pool.setdefault((theta.m, theta.n, theta.k), []).append((theta, decide_essential(theta)))
    tried = rejected = 0
    for group in pool.values():
        donors = [(t, r) for t, r in group if r.outcome is Outcome.NONE]
        for theta, res in group:
            for donor, dres in donors[:4]:
                if donor is theta:
                    continue
                tried += 1
                try:
                    verify(theta, thaw(dres.evidence))
                except CheckFailed:
                    rejected += 1
                    continue
                assert res.outcome is Outcome.NONE, f"certificate of {donor} accepted for the hidden {theta}"
    assert tried > 100 and rejected > tried // 2


def test_a_generic_network_is_rejected():
    rejects(S([1, 1], [[1], [1]], [0, 1], [0]), evidence_of(METHOD_EXAMPLES["own-only"][0]),
            match="no opposite pair")


@pytest.mark.parametrize("mutate", [
    lambda ev: "not a mapping",
    lambda ev: {**ev, "extra": 1},
    lambda ev: {**ev, "cases": "none"},
    lambda ev: {**ev, "cases": [7]},
    lambda ev: {**ev, "cases": [{"P": [0], "q": 0}]},
    lambda ev: {**ev, "cases": [{"P": [0], "q": 0, "method": "guess"}]},
    lambda ev: {**ev, "cases": [{"P": "0", "q": 0, "method": "own-only"}]},
    lambda ev: {**ev, "cases": [{"P": [0], "q": True, "method": "own-only"}]},
    lambda ev: {**ev, "cases": [{"P": ["x"], "q": 0, "method": "own-only"}]},
    lambda ev: {**ev, "cases": [{"P": [], "q": 0, "method": "box", "y": [1, 1]}] + ev["cases"][1:]},
    lambda ev: {**ev, "p": "1/2"},
    lambda ev: {**ev, "s": None},
])
def test_malformed_structures_fail_cleanly(mutate):
    theta = METHOD_EXAMPLES["own-only"][0]
    with pytest.raises(CheckFailed):
        verify(theta, mutate(evidence_of(theta)))


@pytest.mark.parametrize("field,value", [
    ("y", "1/2"), ("y", [1, 1, 1]), ("y", [0.5]), ("y", ["a"]), ("y", [[1]]), ("y", ["2/4"]), ("y", [True]),
    ("F", [[1, 2, 3]]), ("F", "F"), ("F", [[None]]), ("T", [1, 0]), ("T", [99]), ("T", "T"),
    ("prime", [7]), ("evidence", []), ("evidence", {"method": "rank", "p": 7}),
    ("evidence", {"method": "rank", "p": 2147483647, "rows": [0, 0]}),
])
def test_malformed_fields_fail_cleanly(field, value):
    hosts = {"y": "box", "F": "proj-enum", "T": "proj-enum", "prime": "modp-enum", "evidence": "flip"}
    theta = METHOD_EXAMPLES[hosts[field]][0]
    ev = evidence_of(theta)
    bad = copy.deepcopy(ev)
    entry(bad, hosts[field])[field] = value
    with pytest.raises(CheckFailed):
        verify(theta, bad)


def test_checker_limits(monkeypatch):
    theta, _ = METHOD_EXAMPLES["enumeration"]
    ev = evidence_of(theta)
    monkeypatch.setattr(cp, "ENUMERATE_LIMIT", 0)
    rejects(theta, ev, match="exceed the checker's limit")
    monkeypatch.setattr(cp, "CASE_LIMIT", 1)
    rejects(theta, ev, match="cases exceed the checker's limit")


def test_a_case_that_always_has_a_solution_is_rejected():
    # two pairs, k = 1: case (∅, 1) has min(k, m′) = 1 ≤ q, whatever the certificate says
    theta = HIDDEN_EXAMPLES["two_pairs_k1"][0]
    ev = {"p": 2, "s": 2, "cases": [{"P": [0, 1], "q": 0, "method": "own-only"},
                                     {"P": [], "q": 1, "method": "proj-enum", "T": [], "F": [[1, 0], [0, 1]]}]}
    rejects(theta, ev, match="every orientation solves")


def test_whole_certificates_with_forged_patterns_are_rejected():
    theta = METHOD_EXAMPLES["modp-enum"][0]
    text = to_json(certify(theta))
    d = json.loads(text)
    claim = next(c for c in d["claims"] if c["kind"] == "no-other-pattern")
    claim["evidence"]["cases"].pop()
    report = check_certificate(from_json(json.dumps(d)))
    assert not report.valid and "missing" in report.reason
    d = json.loads(text)
    d["claims"] = [c for c in d["claims"] if c["kind"] != "no-other-pattern"]
    assert not check_certificate(from_json(json.dumps(d))).valid
    d = json.loads(text)
    for c in d["claims"]:
        if c["kind"] == "no-other-pattern":
            c["kind"] = "pattern-search"                       # the former z3 claim is no longer accepted
    assert not check_certificate(from_json(json.dumps(d))).valid
