"""Mutation testing of the checker, on demand: the kill rate of reluid/checker must stay at least 90 %.

``python benchmarks/mutation.py --run --threshold 90`` runs mutmut (configured in
pyproject.toml, ``[tool.mutmut]``) over every function of ``reluid/checker`` with
the tests of ``tests/checker/``, prints the kill rate per module and the
surviving mutants, and exits 1 below the threshold.  It takes hours on two
cores, so this test is marked ``slow`` (``pytest --runslow -m mutation``) and
needs the ``mutation`` extra (mutmut).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import ROOT

THRESHOLD = 90


@pytest.mark.slow
@pytest.mark.mutation
def test_the_checker_kills_at_least_90_percent_of_its_mutants():
    pytest.importorskip("mutmut")
    run = subprocess.run([sys.executable, "benchmarks/mutation.py", "--run", "--threshold", str(THRESHOLD)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_the_report_reads_mutmut_results(tmp_path, monkeypatch):
    """The report (no mutmut needed): statuses, kill rate, and where a surviving mutant is."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import mutation
    finally:
        sys.path.pop(0)
    assert [mutation.status(c) for c in (1, 3, 0, 33, 5, 34, 36, -24, None, 99)] == [
        "killed", "killed", "survived", "no tests", "no tests", "skipped", "timeout", "timeout", "not checked",
        "suspicious"]
    src = tmp_path / "reluid" / "checker"
    src.mkdir(parents=True)
    (src / "m.py").write_text("import os\n\n\ndef f(x):\n    y = x + 1\n    return y\n\n\n@dec\ndef g():\n    pass\n")
    mut = tmp_path / "mutants" / "reluid" / "checker"
    mut.mkdir(parents=True)
    body = ["import os", "", "", "def x_f__mutmut_orig(x):", "    y = x + 1", "    return y", "",
            "def x_f__mutmut_1(x):", "    y = x - 1", "    return y", "",
            "def x_f__mutmut_2(x):", "    y = x + 2", "    return y"]
    (mut / "m.py").write_text("\n".join(body) + "\n")
    (mut / "m.py.spans").write_text('{"version": 1, "spans": {"x_f__mutmut_orig": [4, 6], "x_f__mutmut_1": [8, 10],'
                                    ' "x_f__mutmut_2": [12, 14]}}')
    (mut / "m.py.meta").write_text('{"exit_code_by_key": {"reluid.checker.m.x_f__mutmut_1": 1, '
                                   '"reluid.checker.m.x_f__mutmut_2": 0}}')
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setattr(mutation, "MUTANTS", tmp_path / "mutants")
    result = mutation.collect()
    assert result == {"m.py": [("reluid.checker.m.x_f__mutmut_1", "killed", 5, "- y = x + 1 / + y = x - 1"),
                               ("reluid.checker.m.x_f__mutmut_2", "survived", 5, "- y = x + 1 / + y = x + 2")]}
    text, overall = mutation.report(result)
    assert overall == 50.0
    assert "| m.py | 2 | 1 | 0 | 1 | 0 | 0 | 50.0 % |" in text
    assert "reluid/checker/m.py:5  x_f__mutmut_2: - y = x + 1 / + y = x + 2" in text
    assert "reluid/checker/m.py:10  g (2 lines)" in text
    # one module at a time: its mutants by name, and the report of that module alone
    assert mutation.collect({"m.py"}) == result and mutation.collect({"n.py"}) == {}
    assert mutation.module_name("reluid/checker/two_layers.py") == mutation.module_name("two_layers") == "two_layers.py"
    calls = []
    monkeypatch.setattr(mutation.subprocess, "call", lambda args, cwd: calls.append(args) or 0)
    assert mutation.run(2, False, ["two_layers.py"]) == 0 and mutation.run(1, False) == 0
    assert calls[0][-3:] == ["--max-children", "2", "reluid.checker.two_layers.*"]
    assert calls[1][-2:] == ["--max-children", "1"]
