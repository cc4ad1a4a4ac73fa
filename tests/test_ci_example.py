"""examples/ci/reluid-audit.yml works: its steps run in a fresh virtual environment.

The workflow installs reluid from its repository at a pinned tag (``$RELUID``);
here that requirement points at this working tree instead, and every ``run:``
step of the job runs in order with bash, with the bundled networks as
``models/``.  The audit exits 1 (theta1 has a hidden symmetry), which a CI job
would report as a failure; the steps after it must still work, so each step's
exit code is compared with what the workflow intends.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import venv

import pytest

from tests.paths import EXAMPLES, ROOT

WORKFLOW = ROOT / "examples" / "ci" / "reluid-audit.yml"


def _steps(text: str) -> list[tuple[str, str]]:
    """(name, script) of every ``run:`` step, in order (single-line and ``run: |`` blocks)."""
    steps, lines = [], text.splitlines()
    name = ""
    for i, line in enumerate(lines):
        if m := re.match(r"\s*- name: (.*)", line):
            name = m.group(1)
        m = re.match(r"(\s*)(?:- )?run: (.*)", line)
        if not m:
            continue
        if m.group(2).strip() == "|":
            indent = len(m.group(1)) + 2
            body = []
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) < indent:
                    break
                body.append(nxt[indent:])
            steps.append((name, "\n".join(body)))
        else:
            steps.append((name, m.group(2)))
        name = ""
    return steps


def test_the_workflow_pins_the_repository():
    text = WORKFLOW.read_text(encoding="utf-8")
    req = re.search(r'RELUID: "(.*)"', text).group(1)
    assert req.startswith("reluid[") and "@ git+https://" in req and re.search(r"@v\d+\.\d+\.\d+$", req)
    from reluid._version import __version__

    assert req.endswith(f"@v{__version__}"), "the workflow pins the tag of this version"
    assert [n for n, _ in _steps(text)] == ["Install reluid", "Certify networks", "Job summary",
                                            "Re-check the certificates independently"]


@pytest.fixture(scope="module")
def fresh_env(tmp_path_factory):
    where = tmp_path_factory.mktemp("ci")
    venv.create(where / "venv", with_pip=True)
    bindir = where / "venv" / ("Scripts" if os.name == "nt" else "bin")
    work = where / "job"
    shutil.copytree(EXAMPLES, work / "models")
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(where / "venv"),
           "RELUID": f"reluid[onnx,safetensors] @ {ROOT.as_uri()}", "GITHUB_STEP_SUMMARY": str(where / "summary"),
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    return work, env


def test_the_workflow_steps_run_in_a_fresh_environment(fresh_env):
    work, env = fresh_env
    expected = {"Install reluid": 0, "Certify networks": 1, "Job summary": 0,
                "Re-check the certificates independently": 0}
    for name, script in _steps(WORKFLOW.read_text(encoding="utf-8")):
        r = subprocess.run(["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True, text=True,
                           timeout=900)
        assert r.returncode == expected[name], f"{name}: exit {r.returncode}\n{r.stdout[-1500:]}\n{r.stderr[-1500:]}"
    assert (work / "reluid-junit.xml").read_text().count("<testcase") == len(os.listdir(EXAMPLES))
    assert "reluid audit" in (work.parent / "summary").read_text()
    certs = os.listdir(work / "certificates")
    assert certs and len(certs) == len(os.listdir(EXAMPLES))
    assert (work / "reluid-html").is_dir()
    where = subprocess.run(["python", "-c", "import reluid; print(reluid.__file__)"], cwd=work, env=env,
                           capture_output=True, text=True).stdout
    assert "site-packages" in where and str(ROOT) not in where
