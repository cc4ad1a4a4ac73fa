"""The essential stratum: the exact decision of docs/mathematics.md §4 (Theorem 4)."""

from __future__ import annotations

import random

import pytest

from reluid.analysis.shallow import essential as ess
from reluid.analysis.shallow.decide import decide
from reluid.analysis.shallow.essential import EssentialResult, decide_essential, essential_reason
from reluid.analysis.shallow.function import equivalent
from reluid.api import certify
from reluid.certificates.schema import ClaimKind, Verdict, from_json, to_json
from reluid.checker import patterns as checker_patterns
from reluid.checker.check import check_certificate
from reluid.checker.registry import Context
from reluid.errors import InvalidArgument
from reluid.io.loader import load
from reluid.model.network import Shallow
from reluid.report.reasons import sentence, text
from reluid.verdicts import Outcome, ReasonCode
from tests.analysis.shallow.pattern_oracles import (HIDDEN_EXAMPLES, METHOD_EXAMPLES, brute_force, random_essential,
                                                   z3_verdict)
from tests.paths import EXAMPLES

S = Shallow.make
WORD = {Outcome.FOUND: "hidden", Outcome.NONE: "rigid", Outcome.UNKNOWN: "unknown"}


def checked(theta, res: EssentialResult) -> str:
    """The checker's message for the evidence of a NONE result (raises CheckFailed otherwise)."""
    return checker_patterns.verify_no_other_pattern(res.evidence, Context(theta.to_network(), "patterns"))


def test_rigid_pair_is_rigid_with_a_checked_certificate():
    theta = S([1, 2], [[1], [-1]], [0, 0], [0])                     # σ(x) + 2σ(−x)
    res = decide_essential(theta)
    assert res.outcome is Outcome.NONE and res.cases == 1
    assert res.evidence["p"] == 1 and res.evidence["s"] == 1
    assert [dict(e) for e in res.evidence["cases"]] == [{"P": (0,), "q": 0, "method": "own-only"}]
    assert "all 1 cases" in checked(theta, res)


def test_hidden_pair_has_a_witness_outside_the_orbit():
    theta = S([1, 2, 3], [[1], [-1], [1]], [0, 0, 1], [0])          # σ(x) + 2σ(−x) + 3σ(x+1)
    res = decide_essential(theta)
    assert res.outcome is Outcome.FOUND and not res.evidence
    eq = equivalent(theta, res.witness)
    assert eq.equal and not eq.same_orbit
    assert res.witness.n == theta.n and (res.witness.m, res.witness.k) == (1, 1)
    assert res.description == "x = 0: an opposite pair; x + 1 = 0: one neuron, negative side"
    assert res.details["case"]["q"] == 0 and res.details["dead"] == 0


@pytest.mark.parametrize("name", sorted(METHOD_EXAMPLES))
def test_every_method_is_emitted_and_checked(name):
    theta, methods = METHOD_EXAMPLES[name]
    res = decide_essential(theta)
    assert res.outcome is Outcome.NONE and res.methods == methods
    assert res.cases == sum(methods.values()) == len(res.evidence["cases"])
    if name == "enumeration":
        assert any(e["method"] == "proj-enum" and not e["T"] for e in res.evidence["cases"])
    if name == "proj-enum":
        assert any(e["method"] == "proj-enum" and e["T"] for e in res.evidence["cases"])
    if name == "proj-enum-q2":
        assert {e["q"] for e in res.evidence["cases"]} == {0, 1, 2}
    checked(theta, res)
    assert set(res.methods) <= set(ess.METHODS)


@pytest.mark.parametrize("name", sorted(HIDDEN_EXAMPLES))
def test_hidden_examples(name):
    theta, (q, extra, dead) = HIDDEN_EXAMPLES[name]
    res = decide_essential(theta)
    assert res.outcome is Outcome.FOUND
    assert (res.details["case"]["q"], res.details["extra_pairs"], res.details["dead"]) == (q, extra, dead)
    eq = equivalent(theta, res.witness)
    assert eq.equal and not eq.same_orbit
    d = decide(theta)
    assert d.verdict is Verdict.HIDDEN and d.mechanism == "pattern" and d.details["pattern"] == res.description


@pytest.mark.parametrize("file,hidden", [("rigid_pair.json", False), ("relu_abs.json", False),
                                         ("hidden_pair.json", True)])
def test_bundled_examples_with_opposite_pairs(file, hidden):
    net = load(EXAMPLES / file)
    d = decide(net)
    assert d.stratum == "opposite-pairs" and isinstance(d.pattern, EssentialResult)
    assert d.verdict is (Verdict.HIDDEN if hidden else Verdict.NO_HIDDEN)
    cert = certify(net)
    kinds = {c.kind for c in cert.claims}
    assert (ClaimKind.NO_OTHER_PATTERN in kinds) is not hidden and "pattern-search" not in kinds
    report = check_certificate(from_json(to_json(cert)))
    assert report.valid
    if not hidden:   # the checker's own rule used the no-other-pattern evidence
        assert "essential stratum" in report.rule and report.status("patterns") == "verified"


def test_claim_statement_and_reference():
    cert = certify(METHOD_EXAMPLES["flip"][0])
    claim = next(c for c in cert.claims if c.kind == ClaimKind.NO_OTHER_PATTERN)
    assert claim.statement == "no realisation pattern of ρ(θ) with n neurons other than θ's own exists"
    assert claim.reference == "docs/mathematics.md §4 (Theorem 4)"
    assert "solver" not in claim.to_dict() and "trust" not in claim.to_dict()


def test_not_essential_is_refused():
    for theta in (S([1, 1], [[1], [1]], [0, 1], [0]),                       # generic
                  S([1, 2, 3, 5], [[1], [-1], [1], [-1]], [0, 0, 1, -1], [0]),   # dependent pair directions
                  S([1, -1], [[1], [-1]], [0, 0], [0])):                      # cancelling pair
        assert essential_reason(theta) is not None
        with pytest.raises(InvalidArgument):
            decide_essential(theta)
    assert essential_reason(METHOD_EXAMPLES["box"][0]) is None


def test_limits_and_timeouts_give_unknown():
    theta = METHOD_EXAMPLES["enumeration"][0]
    res = decide_essential(theta, enum_limit=0)
    assert res.outcome is Outcome.UNKNOWN and res.reason.code is ReasonCode.PATTERN_ENUMERATION_LIMIT
    assert res.reason.params["limit"] == 0 and "enumeration limit 2^0" in sentence(res.reason)
    res = decide_essential(METHOD_EXAMPLES["box"][0], timeout=1e-9)
    assert res.outcome is Outcome.UNKNOWN and res.reason.code is ReasonCode.PATTERN_TIMEOUT
    assert "timeout" in sentence(res.reason) and "cases left" in sentence(res.reason)
    d = decide(theta, timeout=1e-9)
    assert d.verdict is Verdict.UNKNOWN and text(d.reasons).startswith("realisation patterns: timeout")
    assert d.reasons[0].params["search"]["code"] == ReasonCode.PATTERN_TIMEOUT
    with pytest.raises(InvalidArgument):
        decide_essential(theta, enum_limit=ess.ENUM_LIMIT + 1)


def test_case_limit(monkeypatch):
    monkeypatch.setattr(ess, "CASE_LIMIT", 1)
    res = decide_essential(METHOD_EXAMPLES["box"][0])
    assert res.outcome is Outcome.UNKNOWN and "2 cases (P, q) exceed the limit 1" in sentence(res.reason)
    assert res.reason.params["cases"] == 2 and res.reason.params["limit"] == 1


def test_producer_and_checker_limits_agree():
    assert ess.CASE_LIMIT == checker_patterns.CASE_LIMIT
    assert ess.ENUM_LIMIT == checker_patterns.ENUMERATE_LIMIT


def test_batched_determinants_mod_p():
    import numpy as np
    from flint import fmpz_mat

    rng = np.random.default_rng(1)
    for size in (1, 2, 3, 4):
        Ms = rng.integers(0, 3, size=(300, size, size)).astype(np.int64)
        Ms[::7, 0, :] = 0
        Ms[::5, :, 0] = 0
        got = ess._mod_det_batch(Ms, ess.PRIME)
        assert got.tolist() == [int(fmpz_mat(M.tolist()).det()) % ess.PRIME for M in Ms]


def test_annihilator_is_canonical():
    # rref of [[1, 2, 3]]: free columns 1 and 2 -> (−2, 1, 0) and (−3, 0, 1)
    assert ess.annihilator([(1, 2, 3)], 3) == [(-2, 1, 0), (-3, 0, 1)]
    assert ess.annihilator([(2, 4, 6)], 3) == [(-2, 1, 0), (-3, 0, 1)]
    assert ess.annihilator([(0, 2, 3)], 3) == [(1, 0, 0), (0, -3, 2)]
    assert ess.annihilator([], 2) == [(1, 0), (0, 1)]


# ------------------------------------------------------------------ agreement with the oracles
def _sample(seed):
    rng = random.Random(seed)
    if seed % 2:
        m, k, p = rng.choice([(2, 2, 2), (2, 3, 2), (3, 2, 2), (3, 2, 3), (3, 3, 2)])
        return random_essential(rng, m=m, k=k, p=p, t=rng.randint(0, 7 - 2 * p), wmax=rng.choice((3, 5)))
    return random_essential(rng, wmax=rng.choice((2, 3, 5)))


def _agree_with_z3(seed):
    theta = _sample(seed)
    res = decide_essential(theta)
    assert res.outcome is not Outcome.UNKNOWN
    if res.outcome is Outcome.NONE:
        checked(theta, res)
    else:
        eq = equivalent(theta, res.witness)
        assert eq.equal and not eq.same_orbit
    other = z3_verdict(theta, timeout=20)
    assert other in (WORD[res.outcome], "unknown"), (str(theta), other)


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_the_former_z3_search(seed):
    _agree_with_z3(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40, 1040))
def test_agrees_with_the_former_z3_search_more(seed):
    _agree_with_z3(seed)


def _tiny(seed, nmax):
    rng = random.Random(10_000 + seed)
    m, k = rng.choice((1, 2)), rng.choice((1, 2))
    p = rng.randint(1, m)
    return random_essential(rng, m=m, k=k, p=p, t=rng.randint(0, max(0, nmax - 2 * p)), wmax=2)


@pytest.mark.parametrize("seed", range(8))
def test_agrees_with_brute_force(seed):
    theta = _tiny(seed, 4)
    assert WORD[decide_essential(theta).outcome] == brute_force(theta), str(theta)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8, 208))
def test_agrees_with_brute_force_more(seed):
    theta = _tiny(seed, 6)
    assert WORD[decide_essential(theta).outcome] == brute_force(theta), str(theta)
