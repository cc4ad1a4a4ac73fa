"""``reluid check`` of every certificate stored in the repository under 100 KB, at the default work limit.

Each one ends within its work limit with one of the documented outcomes -- valid (exit 0, every claim
verified or not re-verified) or rejected (exit 1) -- never an internal error (exit 3) or a failure to read
it (exit 4).  The certificates are found, not listed: tests/fixtures, examples/ and reports/.
"""

import io
import json
import time

import pytest

from reluid.checker import check as check_mod
from reluid.checker.registry import Budget
from reluid.cli.main import main
from reluid.verdicts import ExitCode

from tests.paths import ROOT

LIMIT_BYTES = 100_000
#: The CPU a check at the default work limit may take (issue 20's done-when): 2^24 steps are about ten seconds.
CPU_SECONDS = 10.0


def _certificates():
    found = []
    for folder in ("tests/fixtures", "examples", "reports"):
        for path in sorted((ROOT / folder).rglob("*.json")):
            if path.stat().st_size >= LIMIT_BYTES:
                continue
            try:
                doc = json.loads(path.read_text())
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(doc, dict) and str(doc.get("format", "")).startswith("reluid.certificate/"):
                found.append(path)
    return found


CERTIFICATES = _certificates()


def test_the_fixtures_are_found():
    assert len(CERTIFICATES) >= 19                 # reports/examples/certificates alone holds 19
    assert {p.parent.name for p in CERTIFICATES} >= {"certificates"}


def _check(path, monkeypatch):
    budgets = []

    def recording(limit):
        budgets.append(Budget(limit))
        return budgets[-1]

    monkeypatch.setattr(check_mod, "Budget", recording)    # every budget of the check (a sub-certificate's too)
    out, err = io.StringIO(), io.StringIO()
    t = time.process_time()
    code = main(["check", str(path)], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue(), budgets, time.process_time() - t


@pytest.mark.parametrize("path", CERTIFICATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_check_ends_within_its_work_limit_with_a_documented_outcome(path, monkeypatch):
    code, said, err, budgets, _ = _check(path, monkeypatch)
    assert code in (ExitCode.OK, ExitCode.REJECTED), (code, err)
    assert "internal error" not in err and "Traceback" not in err
    assert said.startswith("VALID") if code == ExitCode.OK else said.startswith("REJECTED")
    assert budgets and all(b.used <= b.limit for b in budgets)


@pytest.mark.slow
@pytest.mark.parametrize("path", CERTIFICATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_check_at_the_default_work_limit_takes_under_ten_seconds_of_cpu(path, monkeypatch):
    code, _, err, _, cpu = _check(path, monkeypatch)
    assert code in (ExitCode.OK, ExitCode.REJECTED), (code, err)
    assert cpu < CPU_SECONDS, f"{path.name}: {cpu:.1f} s of CPU"
