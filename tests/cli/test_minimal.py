"""``reluid minimal`` at any depth: the reduced network, its certificate, --verify, and agreement with equiv."""

import io
import json

import pytest

import reluid
from reluid.cli.main import main
from tests.paths import EXAMPLES

PLANTED = str(EXAMPLES / "planted_redundancy.json")


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("suffix", [".json", ".npz", ".onnx", ".safetensors"])
def test_reduce_write_verify_and_equiv(tmp_path, suffix):
    out = tmp_path / f"reduced{suffix}"
    code, text, _ = run("minimal", PLANTED, "-o", out)
    assert code == 0 and "reduces exactly to (2, 2, 3, 1)" in text
    cert = tmp_path / "reduced.reduction.json"
    assert json.loads(cert.read_text())["format"] == "reluid.reduction/1"
    assert reluid.load(out) == reluid.load(EXAMPLES / "two_layers_certified.json")
    code, text, _ = run("minimal", "--verify", cert, PLANTED, out)
    assert code == 0 and text.startswith("VALID")
    code, text, _ = run("equiv", PLANTED, out)
    assert code == 0 and "equal functions" in text


def test_verify_rejects_another_reduced_network(tmp_path):
    out = tmp_path / "r.json"
    assert run("minimal", PLANTED, "-o", out)[0] == 0
    code, text, _ = run("minimal", "--verify", tmp_path / "r.reduction.json", PLANTED, PLANTED)
    assert code == 1 and text.startswith("REJECTED")


def test_deep_without_output_prints_the_reduced_network():
    code, text, _ = run("minimal", PLANTED)
    assert code == 0 and json.loads(text)["format"] == "reluid.network/1"
    assert reluid.parse_network(text).architecture == (2, 2, 3, 1)


def test_check_points_to_minimal_verify(tmp_path):
    out = tmp_path / "r.json"
    run("minimal", PLANTED, "-o", out)
    code, _, err = run("check", tmp_path / "r.reduction.json")
    assert code == 4 and "reluid minimal --verify" in err


def test_usage_errors(tmp_path):
    assert run("minimal", "--verify", tmp_path / "c.json", PLANTED)[0] == 2
    assert run("minimal", PLANTED, PLANTED)[0] == 2
    out = tmp_path / "same.json"
    assert run("minimal", PLANTED, "-o", out, "--certificate", out)[0] == 2
