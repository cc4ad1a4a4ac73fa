"""examples/ci/reluid-audit.yml works: its steps run green in a fresh virtual environment.

The workflow installs reluid with pip from the checkout it runs in
(``RELUID=.[onnx,safetensors]``, as the README installs it).  Here the job's
folder is a copy of this repository's files (what ``actions/checkout`` gives)
with ``models/`` holding a deep network (unknown: reported, not a failure
under the default policy), a 64-512-10 network (38 410 parameters, so its
certificate names it by SHA-256 and the re-check needs ``--network``) and two
small networks; every ``run:`` step of the job runs in order with bash and
must exit 0.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import venv
from xml.etree import ElementTree as ET

import numpy as np
import pytest

from tests.paths import EXAMPLES, ROOT

WORKFLOW = ROOT / "examples" / "ci" / "reluid-audit.yml"
STEPS = ["Install reluid", "Certify networks", "Job summary", "Re-check the certificates independently"]


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


def test_the_workflow_installs_from_this_repository():
    text = WORKFLOW.read_text(encoding="utf-8")
    req = re.search(r'RELUID: "(.*)"', text).group(1)
    assert req == ".[onnx,safetensors]"                  # the checkout, as the README's pip install -e '.[…]'
    assert "github.com/reluid" not in text and "@v0" not in text    # no repository or tag that does not exist
    assert [n for n, _ in _steps(text)] == STEPS
    recheck = dict(_steps(text))["Re-check the certificates independently"]
    assert "--network" in recheck


def _mlp(dims, seed):
    rng = np.random.default_rng(seed)
    out = {}
    for l, (a, b) in enumerate(zip(dims, dims[1:]), 1):
        out[f"W{l}"] = (rng.standard_normal((b, a)) / np.sqrt(a)).astype(np.float32)
        out[f"b{l}"] = (0.1 * rng.standard_normal(b)).astype(np.float32)
    return out


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """A checkout of this repository with models/, a fresh venv on PATH; runs every step, in order."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout of the repository to copy")
    where = tmp_path_factory.mktemp("ci")
    work = where / "job"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, work / rel)
    models = work / "models"
    models.mkdir()
    np.savez(models / "wide_64_512_10.npz", **_mlp([64, 512, 10], 0))
    np.savez(models / "deep_6_12_12_12_3.npz", **_mlp([6, 12, 12, 12, 3], 1))
    for f in ("mnist_like_16_8_3.npz", "small_16_8_3.safetensors"):
        shutil.copy2(EXAMPLES / f, models / f)
    venv.create(where / "venv", with_pip=True)
    bindir = where / "venv" / ("Scripts" if os.name == "nt" else "bin")
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(where / "venv"),
           "GITHUB_STEP_SUMMARY": str(where / "summary"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    env.pop("RELUID", None)
    text = WORKFLOW.read_text(encoding="utf-8")
    env["RELUID"] = re.search(r'RELUID: "(.*)"', text).group(1)
    codes = {}
    for name, script in _steps(text):
        r = subprocess.run(["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True, text=True,
                           timeout=900)
        codes[name] = (r.returncode, r.stdout[-1500:] + r.stderr[-1500:])
    return work, env, codes


def test_the_workflow_runs_green_on_a_deep_and_a_wide_model(job):
    work, env, codes = job
    for name in STEPS:
        assert codes[name][0] == 0, f"{name}: exit {codes[name][0]}\n{codes[name][1]}"
    suite = ET.parse(work / "reluid-junit.xml").getroot()
    assert suite.get("tests") == "4" and suite.get("failures") == "0" and suite.get("errors") == "0"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["models/deep_6_12_12_12_3.npz"].find("skipped") is not None      # unknown, not a failure
    assert cases["models/wide_64_512_10.npz"].find("skipped") is None
    summary = (work.parent / "summary").read_text(encoding="utf-8")
    assert "**4 networks:" in summary and "passed (exit 0)" in summary and "1 unknown" in summary
    assert "](" not in summary, "no relative link in a job summary: they do not resolve there"
    where = subprocess.run(["python", "-c", "import reluid; print(reluid.__file__)"], cwd=work.parent, env=env,
                           capture_output=True, text=True).stdout
    assert "site-packages" in where and str(work) not in where and str(ROOT) not in where


def test_the_wide_model_needs_its_network_to_be_rechecked(job):
    work, env, _ = job
    cert = work / "certificates" / "wide_64_512_10_npz.cert.json"
    named = json.loads(cert.read_text(encoding="utf-8"))["network"]
    assert set(named) == {"sha256", "architecture"}                  # named by SHA-256 only
    alone = subprocess.run(["reluid", "check", str(cert)], cwd=work, env=env, capture_output=True, text=True)
    assert alone.returncode == 4 and "--network" in alone.stderr
    both = subprocess.run(["reluid", "check", str(cert), "--network", "models/wide_64_512_10.npz"], cwd=work,
                          env=env, capture_output=True, text=True)
    assert both.returncode == 0, both.stdout + both.stderr


def test_unknown_fails_the_job_only_when_the_policy_says_so(job):
    work, env, _ = job
    r = subprocess.run(["reluid", "audit", "models/deep_6_12_12_12_3.npz", "--fail-on", "hidden,unknown,invalid",
                        "--junit", "strict.xml"], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 3
    suite = ET.parse(work / "strict.xml").getroot()
    assert suite.get("failures") == "1" and suite.find("testcase/failure").get("type") == "unknown"
