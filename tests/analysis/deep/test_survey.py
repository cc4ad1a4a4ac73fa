"""The Figure 6 survey (Grigsby-Lindsey-Rolnick 2023, Section 6) and the committed report."""

from __future__ import annotations

import io
import json
import math
import os

import numpy as np
import pytest

from reluid.analysis.deep.survey import (PAPER_FIGURE6, SurveyConfig, architecture_for, random_network, run_survey,
                                         survey_task, wilson_interval)
from reluid.report.survey import generate_survey_json as generate_json
from reluid.report.survey import generate_survey_markdown as generate_markdown
from reluid.report.survey import write_survey_plot as write_plot
from reluid.errors import InvalidArgument
from tests.paths import REPORTS as REPORTS_DIR, ROOT

REPORTS = str(REPORTS_DIR)
TINY = SurveyConfig(depth=3, width=3, networks=6, seed=5, points_factor=5)


def test_wilson_interval():
    lo, hi = wilson_interval(25, 100)
    assert math.isclose(lo, 0.1754, abs_tol=1e-4) and math.isclose(hi, 0.3430, abs_tol=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_architecture_and_initialisation():
    assert architecture_for(4, 5) == (5, 5, 5, 5, 1)
    assert architecture_for(6, 10, 5) == (5, 10, 10, 10, 10, 10, 1)
    net = random_network((5, 5, 5, 5, 1), np.random.default_rng(0))
    assert net.architecture == (5, 5, 5, 5, 1)
    with pytest.raises(InvalidArgument):
        SurveyConfig(depth=1, width=3)


def test_tasks_are_reproducible_and_backend_independent():
    a = survey_task(TINY, 3)
    b = survey_task(TINY, 3)
    assert a.rank == b.rank and a.n_regions == b.n_regions
    serial = run_survey(TINY, workers=1)
    procs = run_survey(TINY, workers=2)
    assert [r.rank for r in serial.records] == [r.rank for r in procs.records]
    assert [r.index for r in procs.records] == list(range(TINY.networks))
    assert serial.backend == "serial" and procs.backend == "processes"
    assert 0 <= serial.full <= serial.n == TINY.networks
    assert sum(c for _, c in serial.histogram) == serial.n


def test_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        res = run_survey(TINY, client=client)
    assert res.backend == "dask"
    assert [r.rank for r in res.records] == [r.rank for r in run_survey(TINY, workers=1).records]


def test_reports_render(tmp_path):
    res = run_survey(TINY, workers=1)
    md = generate_markdown([res])
    assert "(3, 3, 3, 1)" in md and "Wilson" in md
    data = json.loads(generate_json([res]))
    assert data["format"] == "reluid.survey/1" and data["results"][0]["ranks"] == [r.rank for r in res.records]
    pytest.importorskip("matplotlib")
    write_plot([res], tmp_path / "fig.png")
    assert (tmp_path / "fig.png").stat().st_size > 1000


def test_cli_survey(tmp_path):
    from reluid.cli.main import main
    out = io.StringIO()
    rc = main(["survey", "--depth", "3", "--width", "3", "--networks", "4", "--points-factor", "5", "--workers", "1",
               "--json", str(tmp_path / "s.json"), "--markdown", str(tmp_path / "s.md")], out, io.StringIO())
    assert rc == 0
    assert "Wilson" in out.getvalue()
    assert json.loads((tmp_path / "s.json").read_text())["results"][0]["networks"] == 4
    assert main(["survey", "--depth", "2", "--width", "3", "--networks", "1"], io.StringIO(), io.StringIO()) == 2


# ---- the committed report (reports/survey.json, reports/survey.md) ----------------------------

def _report():
    path = os.path.join(REPORTS, "survey.json")
    if not os.path.exists(path):
        pytest.skip("reports/survey.json not generated yet")
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _runs(data):
    return data["results"] + data.get("investigation", {}).get("runs", [])


def test_committed_report_is_consistent():
    data = _report()
    assert data["format"] == "reluid.survey/1"
    md = open(os.path.join(REPORTS, "survey.md"), encoding="utf-8").read()
    for r in _runs(data):
        ranks = r["ranks"]
        U = r["upper_bound"]
        assert len(ranks) == r["networks"] and max(ranks) <= U
        assert r["full"] == sum(x == U for x in ranks)
        lo, hi = wilson_interval(r["full"], r["networks"])
        assert math.isclose(lo, r["wilson95"][0], abs_tol=1e-6) and math.isclose(hi, r["wilson95"][1], abs_tol=1e-6)
        cfg = r["config"]
        assert r["paper_fraction_full"] == PAPER_FIGURE6.get((cfg["depth"], cfg["width"]))
        assert "(" + ", ".join(map(str, r["architecture"])) + ")" in md


def test_committed_report_is_reproducible():
    """The first networks of every committed survey give at least the recorded certified ranks again.

    The committed data were computed from the Jacobian rows at the sampled points; reluid now uses
    the region rows of the same points (docs/mathematics.md §6, Lemma R), which span at least as much.
    """
    data = _report()
    for r in _runs(data):
        cfg = r["config"]
        config = SurveyConfig(depth=cfg["depth"], width=cfg["width"], input_dim=cfg["input_dim"],
                              networks=r["networks"], seed=cfg["seed"], points_factor=cfg["points_factor"],
                              bias_variance=cfg["bias_variance"])
        count = 2 if cfg["width"] <= 5 else 1
        for i in range(count):
            assert r["ranks"][i] <= survey_task(config, i).rank <= r["upper_bound"]


def test_figure6_redrawn_from_committed_json(tmp_path):
    pytest.importorskip("matplotlib")
    import os
    from reluid.report.survey import plot_from_json

    root = str(ROOT)
    out = tmp_path / "fig.png"
    plot_from_json(os.path.join(root, "reports", "survey.json"), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
