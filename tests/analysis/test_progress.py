"""One progress bar across every phase: the tracker, the analyses' reports, and the command line."""

import io
import os

import pytest

from reluid.analysis.progress import Tracker, current, phases, progress_bar, report
from reluid.cli.main import main
from tests.paths import EXAMPLES


class Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, description, position):
        self.events.append((description, position))

    @property
    def positions(self):
        return [p for _, p in self.events]

    @property
    def descriptions(self):
        return [d for d, _ in self.events]


def test_report_without_a_tracker_does_nothing():
    assert current() is None
    report("anything", 0.5)          # no error, no effect
    with phases(False) as phase:
        phase("a phase")


def test_stages_split_the_bar_and_it_never_moves_back():
    rec = Recorder()
    with Tracker(sink=rec) as t:
        assert current() is t
        with t.stage("audit", ["a", "b"]):
            t.step("a")
            with t.stage("", ["decide", "certificate"]):
                t.step("decide")
                report("flip sets: rank", 0.5)
                assert t.position == pytest.approx(0.125)
                assert t.description == "audit › a › decide › flip sets: rank"
                report("certificate")                       # a step name: the bar moves there
                assert t.position == pytest.approx(0.25)
                report("late detail", 0.0)                   # never back
                assert t.position == pytest.approx(0.25)
            t.step("b")
            assert t.position == pytest.approx(0.5)
            t.step(index=1)
        assert t.position == pytest.approx(1.0)
    assert current() is None
    assert rec.positions == sorted(rec.positions)
    assert rec.positions[-1] == 1.0


def test_phases_report_to_the_active_tracker():
    rec = Recorder()
    with Tracker(sink=rec) as t, t.stage("", ["mechanism detection", "functional dimension"]):
        with phases(True) as phase:     # a tracker is active: no bar of its own
            phase("functional dimension")
        assert t.position == pytest.approx(0.5)
    assert any("functional dimension" in d for d in rec.descriptions)


def test_bar_is_silent_off_a_terminal_and_draws_when_forced():
    quiet = io.StringIO()
    with progress_bar(True, stream=quiet) as bar, bar.stage("", ["x"]):
        report("x", 0.5)
    assert quiet.getvalue() == ""
    pytest.importorskip("rich")
    shown = io.StringIO()
    with progress_bar(True, stream=shown, force=True) as bar, bar.stage("", ["step one"]):
        bar.step("step one")
        report("working", 0.5)
    assert "reluid" in shown.getvalue()


def test_certify_reports_its_phases():
    import reluid

    for name, expected in (("theta1.json", ["decide", "certificate"]),
                           ("deep_layer_flip.json", ["mechanism detection", "certificate"])):
        rec = Recorder()
        net = reluid.load(os.path.join(EXAMPLES, name))
        with Tracker(sink=rec) as bar:
            cert = reluid.certify(net, progress=bar)
            reluid.check(cert, net, progress=bar)
        assert all(any(e in d for d in rec.descriptions) for e in expected + ["check"]), rec.descriptions
        assert rec.positions == sorted(rec.positions) and rec.positions[-1] == 1.0


def test_shallow_search_steps_reach_the_bar():
    import reluid

    rec = Recorder()
    with Tracker(sink=rec) as bar:
        reluid.certify(reluid.load(os.path.join(EXAMPLES, "generic_2_4_1.json")), progress=bar)
    assert any("flip sets:" in d for d in rec.descriptions), rec.descriptions


def test_fundim_reports_fractions():
    import reluid

    rec = Recorder()
    with Tracker(sink=rec) as bar:
        reluid.functional_dimension(reluid.load(os.path.join(EXAMPLES, "deep_generic.json")), progress=bar)
    assert any("Jacobian rank" in d for d in rec.descriptions)
    assert rec.positions[-1] == 1.0


@pytest.mark.parametrize("argv", [["certify", "theta1.json"], ["audit", "theta1.json", "relu_abs.json"],
                                  ["fundim", "deep_generic.json"]])
def test_progress_flag_is_silent_when_stderr_is_not_a_terminal(argv):
    out, err = io.StringIO(), io.StringIO()
    args = [a if not a.endswith(".json") else os.path.join(EXAMPLES, a) for a in argv]
    code = main(args + ["--progress"], out, err)
    assert code in (0, 1)
    assert err.getvalue() == ""


def test_survey_progress_flag():
    out, err = io.StringIO(), io.StringIO()
    code = main(["survey", "--depth", "3", "--width", "2", "--networks", "2", "--points-factor", "5", "--workers",
                 "1", "--progress"], out, err)
    assert code == 0 and err.getvalue() == ""


def test_long_descriptions_keep_the_first_and_the_last_step():
    from reluid.analysis.progress import _fit

    d = "1/16 flip_per_output_not_joint.json › certify › decide › flip sets: lattice"
    assert _fit(d, 200) == d
    assert _fit(d, 60) == "1/16 flip_per_output_not_joint.json › … › flip sets: lattice"
    short = _fit(d, 36)
    assert len(short) <= 36 and short.startswith("1/16 ") and short.endswith("flip sets: lattice")
