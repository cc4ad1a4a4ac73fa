"""Reasons in certificates (reluid/certificates/schema.py): format /3 stores them as data, /2 files still read.

The reasons of an ``unknown`` are ``[{"code", "params"}, ...]``; they are never
evidence, so no reason, however forged, changes what ``reluid check`` concludes.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest

import reluid
from reluid.api import certify
from reluid.certificates.schema import FORMAT, FORMAT_2, Certificate, from_json, to_json
from reluid.checker.check import check_certificate
from reluid.errors import CertificateError
from reluid.io.loader import load
from reluid.report.certificate import certificate_view, short_summary, summary_line, unknown_facts
from reluid.report.reasons import text
from reluid.verdicts import Reason, ReasonCode, Verdict
from tests.catalogue import by_name
from tests.paths import EXAMPLES

CHECKER = Path(reluid.__file__).resolve().parent / "checker"


@pytest.fixture(scope="module")
def unknown():
    """The deep example whose verdict is unknown (no mechanism, Theorem 8.2 and W do not apply)."""
    return certify(load(EXAMPLES / "deep_generic.json"), timeout=60)


@pytest.fixture(scope="module")
def proved():
    return certify(by_name("generic_2_4_1").theta)


def _checked(report):
    return report.valid, report.verdict, report.rule, report.reason, [(c.id, c.status, c.message)
                                                                      for c in report.claims]


def test_reasons_are_written_as_codes_with_parameters(unknown):
    d = json.loads(to_json(unknown))
    assert d["format"] == FORMAT == "reluid.certificate/3" and "reason" not in d
    assert [r["code"] for r in d["reasons"]] == ["no-deep-mechanism", "two-hidden-layers", "fundim-result",
                                                 "locally-identifiable"]
    assert d["reasons"][0]["params"]["architecture"] == [2, 3, 3, 1] and d["reasons"][0]["params"]["hidden"] == 6
    theorem = d["reasons"][1]["params"]["theorem"]
    assert theorem["code"] == "theorem-w-fails" and theorem["params"]["failed"] == "H4"
    assert theorem["params"]["theorem_8_2"]["params"]["hypothesis"] == "H1"
    back = from_json(to_json(unknown))
    assert back.reasons == unknown.reasons and back.reason is None and to_json(back) == to_json(unknown)


def test_a_format_2_certificate_is_read_and_its_reason_shown_as_it_stands(unknown):
    d = json.loads(to_json(unknown))
    d["format"] = FORMAT_2
    del d["reasons"]
    d["reason"] = "the prose of an older certificate (it is not split: a. b); shown as it stands"
    old = from_json(json.dumps(d, indent=1, ensure_ascii=False))
    assert old.reasons == () and old.reason == d["reason"] and json.loads(to_json(old)) == d
    assert certificate_view(old).reason == (d["reason"],)
    assert summary_line(old).endswith(": " + d["reason"]) and short_summary(old).endswith(": " + d["reason"])
    assert unknown_facts(old) == ["locally identifiable: claimed (not re-verified here (run reluid check))"]
    assert _checked(check_certificate(old)) == _checked(check_certificate(unknown))


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.update(reasons="why"), "reasons must be a list"),
    (lambda d: d.update(reasons=[{"params": {}}]), "missing field 'code'"),
    (lambda d: d.update(reasons=[{"code": "x", "params": [1]}]), "'params' has the wrong type"),
    (lambda d: d.update(reasons=[{"code": "x", "params": {"a": [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}}]),
     "nested more than 16"),
    (lambda d: d.update(reason="prose"), "not a prose 'reason'"),
    (lambda d: d.update(format=FORMAT_2, reason=7), "reason must be a string"),
    (lambda d: d.update(format=FORMAT_2, reason=None), "needs a reason"),
    (lambda d: d.update(reasons=[]), "needs a reason"),
])
def test_malformed_reasons_are_invalid_input(unknown, mutate, match):
    d = json.loads(to_json(unknown))
    mutate(d)
    with pytest.raises(CertificateError, match=match):
        from_json(json.dumps(d))


FORGED = [
    (Reason(ReasonCode.LOCALLY_IDENTIFIABLE),),
    (Reason(ReasonCode.HYPOTHESIS_FAILS, {"hypothesis": "H0", "detail": "forged", "notes": []}),),
    (Reason("a-code-from-a-newer-reluid", {"verdict": "no-hidden-symmetries", "proved": True}),),
    (Reason(ReasonCode.TIME_BUDGET, {"nonsense": 1}), Reason(ReasonCode.THEOREM_82_BUDGET, {"n1": 10 ** 9})),
]


@pytest.mark.parametrize("reasons", FORGED)
def test_reasons_never_influence_the_checker(unknown, proved, reasons):
    """The same claims checked with any reasons at all give the same report, accepted or rejected."""
    for cert in (unknown, proved):
        forged = dataclasses.replace(cert, reasons=reasons)
        assert _checked(check_certificate(from_json(to_json(forged)))) == _checked(check_certificate(cert))
    # a verdict the claims do not carry stays rejected, whatever the reasons say
    claimed = dataclasses.replace(unknown, verdict=Verdict.NO_HIDDEN, reasons=reasons)
    assert not check_certificate(from_json(to_json(claimed))).valid
    # and the reports do not crash on them
    assert certificate_view(forged).reason and text(reasons)


def _names_the_certificate(node) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("cert", "certificate")
            or isinstance(node, ast.Attribute) and node.attr in ("cert", "certificate"))


def test_the_checker_does_not_read_reasons():
    """No module of the kernel reads a certificate's reasons (its own ``reason`` says why it rejects)."""
    for path in sorted(CHECKER.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        read = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                and (n.attr == "reasons" or n.attr == "reason" and _names_the_certificate(n.value))]
        read += [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value == "reasons"]
        assert not read, f"{path.name}: {read}"


def test_an_unknown_needs_a_reason_and_one_kind_of_it(unknown):
    with pytest.raises(CertificateError, match="needs a reason"):
        dataclasses.replace(unknown, reasons=())
    with pytest.raises(CertificateError, match="not both"):
        dataclasses.replace(unknown, reason="prose")
    assert isinstance(dataclasses.replace(unknown, reasons=(), reason="prose"), Certificate)
