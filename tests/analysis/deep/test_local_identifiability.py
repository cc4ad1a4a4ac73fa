"""Local identifiability (Theorem A1, docs/mathematics.md §6): its claim, its checker and what it does not say.

θ1 of Ramakrishnan 2026 is locally identifiable (dim_fun = U = D - N) and has a hidden symmetry far away;
|x| = σ(x) + σ(-x) has dim_fun = 4 < U = 5; neither is reported as "no hidden symmetries" because of it.
"""

from __future__ import annotations

import io
import json
from fractions import Fraction as F

import numpy as np
import pytest

import reluid
from benchmarks.bench_fundim import mlp  # float32 He-initialised weights and biases, read exactly
from reluid.analysis.deep.survey import random_network
from reluid.certificates.schema import ClaimKind, from_json, to_json
from reluid.checker.check import INFORMATION, check_certificate
from reluid.model import Network, Shallow
from reluid.report.certificate import generate_html, generate_markdown, generate_text
from reluid.report.reasons import sentence, text
from reluid.verdicts import ReasonCode, Verdict

THETA1 = Shallow.make([1, 1, 1], [[1, 1], [-1, 0], [0, -1]], [-2, -1, -1], [-6])      # Ramakrishnan 2026, §1
ABS = Shallow.make([1, 1], [[1], [-1]], [0, 0], [0])                                    # σ(x) + σ(-x) = |x|
# three hidden layers: no theorem decides it, so the verdict stays unknown (the two-hidden-layer (3, 5, 4, 2)
# network this test used before is certified by Theorem W, docs/mathematics.md §10)
DEEP = random_network((3, 5, 4, 3, 2), np.random.default_rng(1))


def claims(cert, kind):
    return [c for c in cert.claims if c.kind == kind]


def replace_claims(cert, new_claims, **kw):
    d = json.loads(to_json(cert))
    d["claims"] = [c if isinstance(c, dict) else c.to_dict() for c in new_claims]
    d.update(kw)
    return from_json(json.dumps(d))


def evidence_dict(claim) -> dict:
    return json.loads(json.dumps(claim.to_dict()))["evidence"]


def with_evidence(cert, cid, ev):
    d = json.loads(to_json(cert))
    for c in d["claims"]:
        if c["id"] == cid:
            c["evidence"] = ev
    return from_json(json.dumps(d))


# ---- the two examples ------------------------------------------------------------

def test_theta1_is_locally_identifiable_and_still_has_a_hidden_symmetry():
    cert = reluid.certify(THETA1)
    assert cert.verdict is Verdict.HIDDEN
    fd, = claims(cert, ClaimKind.FUNCTIONAL_DIMENSION)
    li, = claims(cert, ClaimKind.LOCAL_IDENTIFIABILITY)
    assert fd.evidence["rank"] == fd.evidence["upper_bound"] == 10 == li.evidence["rank"]
    assert fd.role == li.role == "information"
    assert "does not exclude hidden symmetries far from θ" in li.statement
    report = check_certificate(cert)
    assert report.valid and report.status(li.id) == INFORMATION and report.status(fd.id) == INFORMATION
    text = generate_text(cert, check=report)
    assert "Locally identifiable: yes (information verified)" in text and "far from θ" in text
    assert "HIDDEN-SYMMETRY" in text


def test_abs_has_functional_dimension_below_U_and_no_local_identifiability_claim():
    cert = reluid.certify(ABS)
    fd, = claims(cert, ClaimKind.FUNCTIONAL_DIMENSION)
    assert fd.evidence["rank"] == 4 and fd.evidence["upper_bound"] == 5
    assert not claims(cert, ClaimKind.LOCAL_IDENTIFIABILITY)
    assert "hidden symmetries at parameters arbitrarily close to θ" in fd.statement and "not a verdict" in fd.statement
    assert "positive-dimensional" not in fd.statement
    report = check_certificate(cert)
    assert report.status(fd.id) == INFORMATION
    md = generate_markdown(cert, check=report)
    assert "Locally identifiable: not established" in md


@pytest.mark.parametrize("eps", [F(1, 10), F(1, 1000), F(1, 10 ** 9)])
def test_lemma_F6_at_abs_hidden_symmetries_arbitrarily_close_but_not_at_theta(eps):
    """rank < U at |x| reads as Grigsby–Lindsey–Rolnick Lemma F.6 says: hidden symmetries at parameters
    arbitrarily close to θ (not a positive-dimensional fibre, and not at θ: docs/mathematics.md §6.3).

    u_ε = σ(x) + σ(ε − x) and u′_ε = σ(x − ε) + σ(−x) + ε compute the same function and lie in different
    orbits; both are within ε of |x|, whose own fibre is its orbit.  At u_ε the rank is U.
    """
    assert reluid.certify(ABS).verdict is Verdict.NO_HIDDEN
    u = Shallow.make([1, 1], [[1], [-1]], [0, eps], [0])
    u2 = Shallow.make([1, 1], [[1], [-1]], [-eps, 0], [eps])
    pts = [F(-3), -eps / 2, eps / 3, eps / 2, 2 * eps, F(5)]
    assert all(u(x) == u2(x) for x in ([p] for p in pts))                      # the same function ...
    eq = reluid.equivalent(u, u2)
    assert eq.equal is True and not eq.same_orbit                               # ... outside one orbit
    cert = reluid.certify(u)
    assert cert.verdict is Verdict.HIDDEN and check_certificate(cert).valid
    fd = reluid.functional_dimension(u.to_network(), points=[[F(-1)], [eps / 2], [F(1)]])   # one point per region
    assert fd.rank == fd.upper_bound == 5                                       # full rank, hidden all the same
    assert reluid.functional_dimension(ABS.to_network(), points=[[F(-1)], [eps / 2], [F(1)]]).rank == 4


def test_local_identifiability_never_makes_a_verdict():
    """A no-hidden-symmetries certificate resting on a (true) local-identifiability claim is rejected."""
    cert = reluid.certify(THETA1)
    li, = claims(cert, ClaimKind.LOCAL_IDENTIFIABILITY)
    forged = replace_claims(cert, [li], verdict="no-hidden-symmetries", witness=None)
    report = check_certificate(forged)
    assert not report.valid and report.status(li.id) == INFORMATION
    deep = reluid.certify(DEEP, timeout=30)
    li = claims(deep, ClaimKind.LOCAL_IDENTIFIABILITY)
    assert li, deep.reasons
    d = json.loads(to_json(deep))
    d["verdict"] = "no-hidden-symmetries"
    d.pop("reasons")
    report = check_certificate(from_json(json.dumps(d)))
    assert not report.valid and any(w in report.reason for w in ("no theorem", "H0–H4", "Corollary 12.15"))


# ---- forged local-identifiability claims ----------------------------------------------

@pytest.fixture(scope="module")
def deep_cert():
    cert = reluid.certify(DEEP, timeout=30)
    assert cert.verdict is Verdict.UNKNOWN and check_certificate(cert).valid
    return cert


def test_deep_certificate_reports_the_property(deep_cert):
    li, = claims(deep_cert, ClaimKind.LOCAL_IDENTIFIABILITY)
    assert li.evidence["rank"] == (sum(a * (b + 1) for a, b in zip(DEEP.architecture[1:], DEEP.architecture))
                                   - sum(DEEP.architecture[1:-1]))     # U = D − (hidden neurons)
    assert ReasonCode.LOCALLY_IDENTIFIABLE in [r.code for r in deep_cert.reasons]
    assert "locally identifiable" in text(deep_cert.reasons) and "far from θ" in text(deep_cert.reasons)
    html = generate_html(deep_cert, check=check_certificate(deep_cert))
    assert "Locally identifiable: yes" in html and 'class="badge big v-unknown"' in html


def _rejects(cert, cid, ev, fragment):
    report = check_certificate(with_evidence(cert, cid, ev))
    assert not report.valid, report
    assert fragment in report.reason, report.reason


def test_forged_points_not_smooth(deep_cert):
    li, = claims(deep_cert, ClaimKind.LOCAL_IDENTIFIABILITY)
    ev = evidence_dict(li)
    # a point on the kink of hidden neuron 1: x = -b_1 w_1 / |w_1|^2
    L = DEEP.layers[0]
    w, b = L.weight[0], L.bias[0]
    t = -b / sum(v * v for v in w)
    ev["points"][0] = [f"{(t * v).numerator}/{(t * v).denominator}" if (t * v).denominator != 1
                       else str((t * v).numerator) for v in w]
    _rejects(deep_cert, li.id, ev, "not generic")


def test_forged_rank_lowered_or_raised(deep_cert):
    li, = claims(deep_cert, ClaimKind.LOCAL_IDENTIFIABILITY)
    ev = evidence_dict(li)
    _rejects(deep_cert, li.id, {**ev, "rank": ev["rank"] - 1}, "needs rank D - N")
    _rejects(deep_cert, li.id, {**ev, "rank": ev["rank"] + 1}, "needs rank D - N")
    _rejects(deep_cert, li.id, {**ev, "rows": ev["rows"][:-3]}, "less than D - N")      # the evidence falls short
    fd, = claims(deep_cert, ClaimKind.FUNCTIONAL_DIMENSION)
    evf = evidence_dict(fd)
    _rejects(deep_cert, fd.id, {**evf, "rows": evf["rows"][:-1]}, "less than the claimed")


def test_forged_evidence_of_another_network(deep_cert):
    other = random_network(DEEP.architecture, np.random.default_rng(2))
    oc = reluid.certify(other, timeout=30)
    li_other, = claims(oc, ClaimKind.LOCAL_IDENTIFIABILITY)
    li, = claims(deep_cert, ClaimKind.LOCAL_IDENTIFIABILITY)
    report = check_certificate(with_evidence(deep_cert, li.id, evidence_dict(li_other)))
    assert not report.valid


def test_forged_claim_for_a_network_with_a_zero_incoming_row():
    lists = [[[list(r) for r in L.weight], list(L.bias)] for L in DEEP.layers]
    lists[1][0][2] = [F(0)] * 5                      # hidden layer 2, neuron 3: zero incoming row and bias
    lists[1][1][2] = F(0)
    zero = Network.from_lists(lists)
    zc = reluid.certify(zero, timeout=30)
    assert not claims(zc, ClaimKind.LOCAL_IDENTIFIABILITY)
    good = reluid.certify(DEEP, timeout=30)
    li, = claims(good, ClaimKind.LOCAL_IDENTIFIABILITY)
    d = json.loads(to_json(zc))
    d["claims"].append(li.to_dict())
    report = check_certificate(from_json(json.dumps(d)))
    assert not report.valid
    assert "not generic" in report.reason or "zero incoming row" in report.reason


# ---- bounded work -------------------------------------------------------------------------

def test_a_short_budget_gives_unknown_with_what_was_left():
    # three hidden layers (the two-hidden-layer 32-24-24-10 is certified by Theorem W in 0.1 s)
    net = mlp((32, 24, 24, 16, 10), 1)
    cert = reluid.certify(net, timeout=0.6)
    assert cert.verdict is Verdict.UNKNOWN
    assert "left:" in text(cert.reasons) and "functional dimension" in text(cert.reasons)
    budget = cert.reasons[-1]
    assert budget.code is ReasonCode.TIME_BUDGET and "functional dimension" not in budget.params["done"]
    assert any(str(x["code"]).startswith("left-fundim") for x in budget.params["left"])    # with what came first
    note = sentence(cert.producer["time_budget"])
    assert note == sentence(budget) and "time budget" in note and "functional dimension (" in note.split("left:")[1]
    assert check_certificate(cert).valid


def test_every_phase_is_shown(monkeypatch):
    import reluid.analysis.deep.decide as dd

    seen = []

    class Recorder:
        def __call__(self, name, detail=None):
            seen.append(name)

        def detail(self, text):
            seen.append("detail")

    import contextlib

    @contextlib.contextmanager
    def fake(enabled, budget=None):
        yield Recorder()

    monkeypatch.setattr(dd, "phases", fake)
    dead = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
    reluid.certify(dead, progress=True)
    # mechanisms first; a dead neuron names the hidden symmetry, so the two-layer theorem is not tried;
    # then the reduced network (2, 2, 1, 1) is certified in its turn (its phases follow)
    shown = [s for s in seen if s != "detail"]
    assert ["mechanism detection", "witness construction", "functional dimension", "certificate"] == shown[:4]
    assert shown[4:5] == ["mechanism detection"]
    assert "detail" in seen


def test_cli_certifies_local_identifiability_of_a_64_32_32_16_10_mlp(tmp_path):
    """A real MLP (3 834 parameters, float32 He initialisation read exactly), with visible phases.

    How fast: benchmarks/bench_fundim.py; the budget here is generous so that a loaded machine cannot turn the
    certified rank into a timeout."""
    from reluid.cli.main import main
    net = mlp((64, 32, 32, 16, 10))
    path = tmp_path / "mlp.json"
    reluid.save(net, path)
    out, err = io.StringIO(), io.StringIO()
    rc = main(["certify", str(path), "--timeout", "600", "--progress", "-o", str(tmp_path / "c.json")], out, err)
    assert rc == 3
    text = out.getvalue()
    assert "dim_fun(θ) = 3754 = U (certified)" in text
    assert "Locally identifiable: yes (information verified)" in text
    cert = reluid.read_certificate(tmp_path / "c.json")
    assert claims(cert, ClaimKind.LOCAL_IDENTIFIABILITY) and cert.verdict is Verdict.UNKNOWN


def test_local_identifiability_is_yes_only_when_the_checker_verified_it():
    cert = reluid.certify(THETA1)
    text = generate_text(cert)                                           # no check run
    assert "Locally identifiable: claimed by the certificate (not re-verified" in text
    assert "Locally identifiable: yes" not in text
    assert "Locally identifiable: yes (information verified)" in generate_text(cert, check=check_certificate(cert))
    tight = check_certificate(from_json(to_json(cert)), work_limit=50)   # past the work limit: not re-verified
    assert "Locally identifiable: yes" not in generate_text(cert, check=tight)
