"""Every phase of reluid certify honours the time budget: a budget that expires when a named phase starts.

The budget here is spent the moment the phase asks for its share, so the tests do not depend on how fast
the machine is: a phase that ignored its deadline would run to completion and report a finished result
(for the networks below every phase finishes in well under a second with time to spare), and the
assertions on the stop reasons would fail.
"""

import io
import time

import pytest

from benchmarks.bench_fundim import mlp
from reluid.analysis.deep.decide import decide_deep
from reluid.analysis.deep.two_layers import analyse_two_layers
from reluid.api import certify
from reluid.budget import Budget
from reluid.cli import cmd_certify
from reluid.io import parse_network
from reluid.report.reasons import text
from reluid.verdicts import ReasonCode, StopReason, Verdict

from tests.paths import EXAMPLES


class ExpiresAt(Budget):
    """A budget of an hour that is spent as soon as the phase named ``at`` asks for its share."""

    __slots__ = ("at", "asked")

    def __init__(self, at: str):
        super().__init__(3600.0)
        self.at, self.asked = at, []

    def share_of(self, phase: str) -> float:
        self.asked.append(phase)
        if phase == self.at:
            self.deadline = time.monotonic()          # spent, now
        return super().share_of(phase)


NET = mlp((4, 6, 6, 6, 2))       # three hidden layers: no mechanism, dim_fun = U = 110 when given the time


def _left(d):
    return [ReasonCode(r["code"]) for r in d.budget_note.params["left"]] if d.budget_note is not None else []


def test_unexpired_budget_finishes_every_phase():
    d = decide_deep(NET, budget=Budget(3600.0))
    assert d.verdict is Verdict.UNKNOWN and d.fundim.full_rank and d.budget_note is None


def test_mechanism_detection_stops_and_says_so():
    b = ExpiresAt("premise prover")               # the first share mechanism detection asks for
    d = decide_deep(NET, budget=b)
    assert d.verdict is Verdict.UNKNOWN
    assert d.report.out_of_time                     # the steps it did not examine are listed
    assert ReasonCode.LEFT_MECHANISM_DETECTION in _left(d)
    assert not d.fundim.complete and d.fundim.stop_reason is StopReason.NOT_ATTEMPTED   # later phases too
    said = text(d.reasons)
    assert "mechanism detection" in said and "Time budget" in said


def test_functional_dimension_and_theorem_a3_stop_and_say_so():
    b = ExpiresAt("functional dimension")
    d = decide_deep(NET, budget=b)
    assert d.verdict is Verdict.UNKNOWN
    assert not d.report.out_of_time                 # mechanism detection had its time
    fd = d.fundim
    assert not fd.full_rank and fd.stop_reason in (StopReason.NOT_ATTEMPTED, StopReason.TIME_BUDGET)
    assert fd.triangular is None                    # Theorem A3 was not started either
    assert set(_left(d)) & {ReasonCode.LEFT_FUNDIM_NOT_STARTED, ReasonCode.LEFT_FUNDIM_PARTIAL}
    assert "functional dimension" in text(d.reasons)


def test_certify_reports_the_phase_left():
    cert = certify(NET, budget=ExpiresAt("functional dimension"))
    assert cert.verdict is Verdict.UNKNOWN
    note = cert.producer["time_budget"]
    assert note["params"]["ran_out"] and "functional dimension" not in note["params"]["done"]


def test_two_layer_phase_stops_and_says_so():
    net = parse_network((EXAMPLES / "two_layers_certified.json").read_text())
    assert decide_deep(net, budget=Budget(3600.0)).verdict is Verdict.NO_HIDDEN     # given the time
    r = analyse_two_layers(net, timeout=1e-9)      # a deadline already past when the analysis starts
    assert r.verdict is Verdict.UNKNOWN
    assert r.reason.code in (ReasonCode.THEOREM_82_BUDGET, ReasonCode.THEOREM_W_FAILS)
    if r.reason.code is ReasonCode.THEOREM_W_FAILS:
        assert r.reason.params["failed"] == "budget"
    d = decide_deep(net, budget=ExpiresAt("two hidden layers"))
    assert d.verdict is Verdict.UNKNOWN and d.theorem is not None and d.theorem.verdict is Verdict.UNKNOWN


def test_self_check_is_skipped_or_stopped_by_the_budget(monkeypatch):
    cert = certify(NET, budget=Budget(3600.0))
    err = io.StringIO()
    spent = Budget(1e-6)
    assert cmd_certify._self_check(cert, NET, None, spent, _Bar(), err) is None
    assert "not re-verified here" in err.getvalue()
    # an estimate that is too low: the work limit (what is left, in steps) still stops the check
    monkeypatch.setattr(cmd_certify, "check_estimate", lambda c: 0.0)
    err = io.StringIO()
    almost = Budget(1e-4)
    got = cmd_certify._self_check(cert, NET, None, almost, _Bar(), err)
    assert got is None or got.valid                  # never an internal error
    assert got is not None or "work limit" in err.getvalue() or "not re-verified" in err.getvalue()
    # with the time, the same check verifies every claim
    full = cmd_certify._self_check(cert, NET, None, Budget(3600.0), _Bar(), io.StringIO())
    assert full is not None and full.valid and not any(c.over_limit for c in full.claims)


class _Bar:
    """A silent progress tracker."""

    def __new__(cls):
        from reluid.analysis.progress import Tracker
        return Tracker()


@pytest.mark.parametrize("phase", ["premise prover", "functional dimension"])
def test_the_expired_phase_was_asked(phase):
    b = ExpiresAt(phase)
    decide_deep(NET, budget=b)
    assert phase in b.asked


def test_float_probes_stop_when_late():
    from reluid.analysis.deep import mechanisms as M

    def opened():
        d = M._Detection(NET, 0, 0)
        d.open_pairs[:] = [(2, i, j) for i in range(6) for j in range(6)]
        return d

    d = opened()
    M._float_probes(d, 0, 256, late=lambda: True)
    assert len(d.open_pairs) == 36 and d.out_of_time and not d.coactive    # nothing tried, and said so
    d = opened()
    M._float_probes(d, 0, 256)
    assert len(d.open_pairs) < 36 and not d.out_of_time                     # given the time, probes refute
