"""A non-editable ``pip install .`` gives every command, ``reluid prove`` included.

The package is installed with ``pip install --no-deps --target`` into a
temporary folder (the dependencies come from this environment) and every
command runs from there, in a working directory outside the repository, so
nothing can reach back into the source tree.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.paths import EXAMPLES, ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    target = tmp_path_factory.mktemp("site")
    build = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                            str(ROOT)], capture_output=True, text=True, cwd=tmp_path_factory.getbasetemp())
    assert build.returncode == 0, build.stderr[-2000:]
    return target


def _reluid(installed, tmp_path, *args):
    env = {**os.environ, "PYTHONPATH": str(installed)}
    return subprocess.run([sys.executable, "-m", "reluid", *map(str, args)], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=300)


def test_the_installed_package_is_not_the_source_tree(installed, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(installed)}
    out = subprocess.run([sys.executable, "-c", "import reluid, reluid.proofs; print(reluid.__file__); "
                          "print(reluid.proofs.__file__)"], capture_output=True, text=True, cwd=tmp_path, env=env)
    files = out.stdout.split()
    assert len(files) == 2 and all(f.startswith(str(installed)) for f in files), out


def test_prove_runs_from_the_installed_package(installed, tmp_path):
    r = _reluid(installed, tmp_path, "prove", "ramakrishnan_lemma_10", "grigsby_lemma_D15",
                "--output-dir", tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2/2 statements as expected" in r.stdout
    assert (tmp_path / "out" / "proofs.md").is_file()
    listing = _reluid(installed, tmp_path, "prove", "--list")
    assert listing.returncode == 0 and "ramakrishnan_lemma_4" in listing.stdout


def test_every_command_runs_from_the_installed_package(installed, tmp_path):
    theta1, theta2 = EXAMPLES / "theta1.json", EXAMPLES / "theta2.json"
    cert = tmp_path / "theta1.cert.json"
    assert _reluid(installed, tmp_path, "certify", theta1, "-o", cert).returncode == 1
    assert _reluid(installed, tmp_path, "check", cert).returncode == 0
    assert _reluid(installed, tmp_path, "equiv", theta1, theta2).returncode == 0
    assert _reluid(installed, tmp_path, "minimal", theta1).returncode == 0
    assert _reluid(installed, tmp_path, "stabilizer", theta1).returncode == 0
    assert _reluid(installed, tmp_path, "conditions", "--at", theta1).returncode == 1    # V4 fails at θ1
    assert _reluid(installed, tmp_path, "fundim", EXAMPLES / "deep_generic.json").returncode in (0, 3)
    assert _reluid(installed, tmp_path, "audit", theta1, "--junit", tmp_path / "j.xml").returncode == 1
    assert _reluid(installed, tmp_path, "survey", "--depth", 3, "--width", 2, "--networks", 2,
                   "--workers", 1).returncode == 0
    assert _reluid(installed, tmp_path, "--version").stdout.startswith("reluid ")
