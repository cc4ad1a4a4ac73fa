"""A hostile certificate costs the checker time linear in its length, or is not re-verified.

Each case here was a small file that made the checker hang, crash or answer
with the wrong exit code: numbers with huge exponents or digit counts, deep
nesting, primes beyond machine words, enumerations modulo 2, and information
claims whose re-verification grows with the number of outputs.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction

import pytest

from reluid.api import certify
from reluid.certificates.schema import Certificate, Claim, from_json, q, to_json
from reluid.checker.check import INFORMATION, NOT_REVERIFIED, VERIFIED, check_certificate
from reluid.checker.registry import WORK_LIMIT
from reluid.errors import CertificateError
from reluid.model.network import Network
from reluid.verdicts import Verdict

from tests.catalogue import by_name


@pytest.mark.parametrize("text", ["1e300000000", "1e5", "10e-1", "0.5", "1/2 ", " 1/2", "+1", "-0", "2/4", "3/1",
                                  "1/0", "١", "٢/3", "0x10", "1_000", "9" * 4100, "1/" + "7" * 4100])
def test_only_canonical_numbers_are_read(text):
    t0 = time.perf_counter()
    with pytest.raises(CertificateError):
        q(text)
    assert time.perf_counter() - t0 < 0.5


@pytest.mark.parametrize("text, value", [("0", Fraction(0)), ("-3/4", Fraction(-3, 4)), ("7", Fraction(7)),
                                         ("-12/5", Fraction(-12, 5)), ("9" * 4000, Fraction(int("9" * 4000)))])
def test_canonical_numbers_are_read(text, value):
    assert q(text) == value


def _cert_text(name="generic_2_4_1"):
    return to_json(certify(by_name(name).theta))


@pytest.mark.parametrize("mutate, match", [
    (lambda t: t.replace('"format"', '"format": "x", "format"', 1), "duplicate key"),
    (lambda t: t.replace('"claims"', '"big": ' + "7" * 5000 + ', "claims"', 1), "4300 digits"),
    (lambda t: t.replace('"claims"', '"deep": ' + "[" * 100_000 + "]" * 100_000 + ', "claims"', 1), "nested"),
    (lambda t: t.replace('"claims"', '"x": NaN, "claims"', 1), "NaN"),
])
def test_hostile_json_is_malformed_not_a_crash(mutate, match):
    with pytest.raises(CertificateError, match=match):
        from_json(mutate(_cert_text()))


def _with_claims(cert: Certificate, *claims) -> Certificate:
    return Certificate(cert.verdict, cert.network_sha256, cert.architecture, tuple(claims), network=cert.network,
                       witness=cert.witness, reasons=cert.reasons, reason=cert.reason)


def test_enumeration_modulo_a_small_prime_is_refused():
    cert = certify(by_name("generic_2_4_1").theta)
    forged = _with_claims(cert, Claim("nfs", "no-flip-set", "none", "§3", {"method": "enumerate", "p": 2,
                                                                          "rows": []}))
    report = check_certificate(forged)
    assert not report.valid and "above 2^30" in report.reason


def test_a_prime_beyond_machine_words_is_rejected_not_a_crash():
    from tests.deep_catalogue import DEEP_CATALOGUE

    net = next(c.network for c in DEEP_CATALOGUE if c.network.depth >= 3)
    cert = certify(net)
    bad = Claim("nlf", "deep-no-layer-flip", "none", "§6", {"layers": [1], "prime": 2**127 - 1},
                role="information")
    report = check_certificate(_with_claims(cert, *cert.claims, bad))
    assert not report.valid and "outside [3, 2^63)" in report.reason


def _paper_condition_network(k: int) -> Network:
    n = 24
    A = [[1, 3 ** i] for i in range(n)]
    M = [[(j + 1) * 5 ** i for i in range(n)] for j in range(k)]
    return Network.from_lists([(A, [0] * n), (M, [0] * k)])


def test_information_past_the_work_limit_is_not_reverified():
    """paper-condition re-enumerates 2·3^12 sums per output: 40 outputs are past the limit (about 0.1 s, not minutes)."""
    net = _paper_condition_network(40)
    cert = Certificate(Verdict.UNKNOWN, net.sha256(), net.architecture,
                       (Claim("pc", "paper-condition", "holds", "Prop 24", {"holds": True}, role="information"),),
                       network=net, reason="a test")
    t0 = time.perf_counter()
    report = check_certificate(cert)
    assert time.perf_counter() - t0 < 5
    assert report.valid and report.status("pc") == NOT_REVERIFIED
    assert "work limit" in report.claims[0].message


def test_a_verdict_past_the_work_limit_is_rejected():
    cert = certify(by_name("generic_2_4_1").theta)
    mitm = Claim("nfs", "no-flip-set", "none", "§3", {"method": "mitm", "n": cert.network.shallow().n})
    forged = _with_claims(cert, *(c for c in cert.claims if c.kind != "no-flip-set"), mitm)
    assert check_certificate(forged).valid                      # within the default limit
    t = cert.network.shallow()
    stratum = t.n * (t.m + t.k + 1)                             # the stratum is read within the limit, the mitm not
    report = check_certificate(forged, work_limit=stratum + 4)
    assert not report.valid and report.status("nfs") == NOT_REVERIFIED
    assert report.status("generic") != NOT_REVERIFIED and "no flip set" in report.reason
    report = check_certificate(forged, work_limit=4)            # not even the stratum: rejected, and says why
    assert not report.valid and "the stratum of θ is not recomputed" in report.reason and "work limit" in report.reason


def test_the_budget_is_shared_by_all_claims():
    cert = certify(by_name("generic_2_4_1").theta)
    n = cert.network.shallow().n
    one = 2 * (1 << (n // 2)) if n % 2 == 0 else (1 << (n // 2)) + (1 << (n - n // 2))
    claims = [Claim(f"m{i}", "no-flip-set", "none", "§3", {"method": "mitm", "n": n}) for i in range(3)]
    t = cert.network.shallow()
    generic = next(c for c in cert.claims if c.kind == "generic-stratum")     # the stratum first, read once
    report = check_certificate(_with_claims(cert, generic, *claims), work_limit=2 * one + t.n * (t.m + t.k + 1))
    assert report.valid                                        # one verified claim is all the rule needs
    assert (report.status("m0"), report.status("m1"), report.status("m2")) == (VERIFIED, INFORMATION, NOT_REVERIFIED)
    assert WORK_LIMIT >= 2 * 2**22                             # the largest single enumeration fits by default


def test_cli_exit_codes_for_hostile_files(tmp_path, capsys):
    from reluid.cli.main import main

    text = _cert_text()
    p = tmp_path / "c.json"
    for bad in (text.replace('"claims"', '"big": ' + "7" * 5000 + ', "claims"', 1),
                text.replace('"claims"', '"deep": ' + "[" * 50_000 + "]" * 50_000 + ', "claims"', 1)):
        p.write_text(bad)
        assert main(["check", str(p)]) == 4
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "reluid.network/1", "layers": [
        {"weight": [[1, 0], [0, 1]], "bias": [0, 1]}, {"weight": [[1, 1]], "bias": [0]}]}))
    p.write_text(text)
    assert main(["check", str(p), "--network", str(other)]) == 4
    assert "is not the network" in capsys.readouterr().err


def test_a_functional_dimension_claim_past_the_work_limit_is_not_reverified():
    """The re-computation of a functional-dimension claim is charged before it runs."""
    import reluid
    from reluid.certificates.schema import ClaimKind

    net = reluid.Network.from_lists([([[1, 2], [-1, 1], [2, -3]], [1, 0, -1]),
                                     ([[1, -1, 2], [2, 1, -1]], [0, 1]), ([[1, -2]], [1])])
    cert = reluid.certify(net)
    assert any(c.kind == ClaimKind.FUNCTIONAL_DIMENSION for c in cert.claims)
    full = check_certificate(cert)
    assert full.valid
    fd = next(c for c in cert.claims if c.kind == ClaimKind.FUNCTIONAL_DIMENSION)
    assert full.status(fd.id) == "information verified"
    tight = check_certificate(from_json(to_json(cert)), work_limit=50)     # a fresh copy: nothing cached
    assert tight.status(fd.id) == "not re-verified"
    msg = next(c.message for c in tight.claims if c.id == fd.id)
    assert "functional-dimension re-computation" in msg and "work limit" in msg


def _two_layer_hypotheses_certificate(n2: int) -> Certificate:
    """A genuine H0–H4 certificate for (2, 2, n2, 1) with 2·n2 bend flats: its check grows like n2^4."""
    W, w, k = [], [], 0
    while len(W) < n2:
        k += 1
        a, b, c = k + 1, 2 * k + 3, -(k * k + 7)
        if any(Fraction(c, a) == Fraction(c2, a2) or Fraction(c, b) == Fraction(c2, b2)
               for (a2, b2), c2 in zip(W, w)):
            continue
        W.append([a, b])
        w.append(c)
    net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), (W, w), ([[1] * n2], [0])])
    fr = lambda x: str(Fraction(x))
    ev = {"vertices": [
        {"signs": "++", "point": [1, 1], "zeros": [[fr(Fraction(-c, a + b))] * 2 for (a, b), c in zip(W, w)]},
        {"signs": "+-", "point": [1, -1], "zeros": [[fr(Fraction(-c, a)), -1] for (a, b), c in zip(W, w)]},
        {"signs": "-+", "point": [-1, 1], "zeros": [[-1, fr(Fraction(-c, b))] for (a, b), c in zip(W, w)]}],
        "edges": [{"signs": "++", "label": 0}, {"signs": "++", "label": 1}],
        "flats": [{"signs": "++", "neuron": 0, "unit": t, "point": [0, fr(Fraction(-c, b))]}
                  for t, ((a, b), c) in enumerate(zip(W, w))]
        + [{"signs": "++", "neuron": 1, "unit": t, "point": [fr(Fraction(-c, a)), 0]}
           for t, ((a, b), c) in enumerate(zip(W, w))]}
    d = {"format": "reluid.certificate/2", "verdict": "unknown", "reason": "r",
         "network": {"sha256": net.sha256(), "architecture": list(net.architecture), "embedded": net.to_dict()},
         "claims": [{"id": "h", "kind": "deep-two-layer-hypotheses", "statement": "s", "reference": "r",
                     "role": "information", "evidence": ev}], "witness": None}
    return from_json(json.dumps(d))


def test_two_layer_hypotheses_are_charged_to_the_work_budget():
    cert = _two_layer_hypotheses_certificate(12)
    assert check_certificate(cert).status("h") == INFORMATION              # genuine: verified at the default
    tight = check_certificate(cert, work_limit=5000)
    assert tight.status("h") == NOT_REVERIFIED
    assert "work limit" in next(c.message for c in tight.claims if c.id == "h")
    t = time.monotonic()
    big = check_certificate(_two_layer_hypotheses_certificate(80), work_limit=100_000)
    assert big.status("h") == NOT_REVERIFIED and time.monotonic() - t < 5


def test_layer_no_flip_set_claims_share_one_budget():
    """Every deep-layer-no-flip-set claim draws on the certificate's budget, not a fresh one of its own."""
    import random

    rng = random.Random(5)
    n2 = 30
    net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]),
                              ([[rng.randint(1, 99), rng.randint(1, 99)] for _ in range(n2)],
                               [rng.randint(-9, 9) for _ in range(n2)]),
                              ([[rng.randint(1, 10**6) for _ in range(n2)]], [0])])
    claims = [{"id": f"c{i}", "kind": "deep-layer-no-flip-set", "statement": "s", "reference": "r",
               "role": "information", "evidence": {"layer": 2, "evidence": {"method": "mitm", "n": n2}}}
              for i in range(3)]
    d = {"format": "reluid.certificate/2", "verdict": "unknown", "reason": "r",
         "network": {"sha256": net.sha256(), "architecture": list(net.architecture), "embedded": net.to_dict()},
         "claims": claims, "witness": None}
    cert = from_json(json.dumps(d))
    free = check_certificate(cert)
    assert [free.status(f"c{i}") for i in range(3)] == [INFORMATION] * 3
    one_mitm = 2 * 2 ** 15                                                  # about one claim's worth
    shared = check_certificate(cert, work_limit=int(1.5 * one_mitm) + 10_000)
    statuses = [shared.status(f"c{i}") for i in range(3)]
    assert statuses[0] == INFORMATION and NOT_REVERIFIED in statuses[1:], statuses


def test_functional_dimension_points_are_charged_by_their_size():
    """Points with 3 000-digit coordinates cost more steps than small ones (the evaluation is big-integer work)."""
    import reluid
    from reluid.certificates.schema import ClaimKind

    net = reluid.Network.from_lists([([[1, 2], [-1, 1], [2, -3]], [1, 0, -1]),
                                     ([[1, -1, 2], [2, 1, -1]], [0, 1]), ([[1, -2]], [1])])
    d = json.loads(to_json(certify(net)))
    fd = next(c for c in d["claims"] if c["kind"] == ClaimKind.FUNCTIONAL_DIMENSION)
    small = check_certificate(from_json(json.dumps(d)), work_limit=20_000)
    assert small.status(fd["id"]) == INFORMATION
    shift = Fraction(1, 10 ** 3000)                    # the same regions, 3 000-digit denominators
    fd["evidence"]["points"] = [[str(Fraction(q) + shift) for q in map(str, x)] for x in fd["evidence"]["points"]]
    assert check_certificate(from_json(json.dumps(d))).status(fd["id"]) == INFORMATION     # still true
    heavy = check_certificate(from_json(json.dumps(d)), work_limit=20_000)
    assert heavy.status(fd["id"]) == NOT_REVERIFIED


def test_the_default_work_limit_grows_with_the_files_checked(tmp_path, monkeypatch, capsys):
    """Past 2^24 steps, reluid check allows 16 steps per byte of certificate and network: a certificate that lists
    what its proof uses is checked in time linear in its length (a 51 MB Theorem W certificate needs 1.7 per byte)."""
    from reluid.checker import registry
    from reluid.cli.main import main

    p = tmp_path / "c.json"
    p.write_text(to_json(certify(by_name("generic_2_4_1").theta)))
    size = p.stat().st_size
    assert registry.work_limit_for(size) == WORK_LIMIT
    monkeypatch.setattr(registry, "WORK_LIMIT", 1)          # only the per-byte allowance is left
    assert registry.work_limit_for(size) == registry.STEPS_PER_BYTE * size
    assert main(["check", str(p)]) == 0 and "not re-verified" not in capsys.readouterr().out
    assert main(["check", str(p), "--work-limit", "1"]) == 1       # the same certificate, the old fixed limit
    assert "not re-verified" in capsys.readouterr().out
