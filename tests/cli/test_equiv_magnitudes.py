"""``reluid equiv`` reports the size of a difference, and searches the region the user gives.

On the trained fixtures of ``tests/fixtures/trained/`` (``make_fixtures.py trained``): a fine-tuned copy,
a copy rescaled by ordinary float32 scales (in no exact orbit) and an independently trained network.
"""

import io
import json
from fractions import Fraction as F

import numpy as np
import pytest

import reluid
from reluid.analysis.deep.equivalence import Region, measure, search_region
from reluid.cli.main import main
from reluid.model.network import Network
from tests.paths import ROOT

T = ROOT / "tests" / "fixtures" / "trained"
BASE = T / "torch_digits_64_32_32_10.onnx"
TUNED = T / "torch_digits_64_32_32_10_finetuned.onnx"
RESCALED = T / "torch_digits_64_32_32_10_rescaled.onnx"
DATA = T / "digits_test_inputs.npy"


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_json_on_a_fine_tuned_copy_gives_the_exact_difference_and_its_decimals():
    code, out, _ = run("equiv", BASE, TUNED, "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["format"] == "reluid.equivalence/1" and doc["equal"] is False
    d = doc["difference"]
    x = [F(v) for v in d["input"]]
    a, b = reluid.load(BASE), reluid.load(TUNED)
    ya, yb = a(x), b(x)
    assert [F(v) for v in d["outputs"][0]] == list(ya) and [F(v) for v in d["outputs"][1]] == list(yb)
    absd = max(abs(q - p) for p, q in zip(ya, yb))
    scale = max(max(abs(p), abs(q)) for p, q in zip(ya, yb))
    assert F(d["abs_diff"]) == absd and F(d["relative"]) == absd / scale and F(d["scale"]) == scale
    assert d["abs_diff_decimal"] == float(absd) and d["relative_decimal"] == float(absd / scale)
    assert 0.01 < d["relative_decimal"] < 1          # a fine-tuned copy: a small but real difference
    assert "max_k max(|net1_k(x)|, |net2_k(x)|)" in doc["scale_definition"]


def test_text_shows_decimals_first_then_exact():
    code, out, _ = run("equiv", BASE, RESCALED)
    lines = out.splitlines()
    assert code == 1 and lines[0] == "different functions"
    delta = next(l for l in lines if l.startswith("|Δ| = "))
    assert lines.index(delta) < next(i for i, l in enumerate(lines) if l.startswith("exact:"))
    # ordinary float scales: a tiny difference (float32 rounding of the products), far below the outputs' scale
    rel = float(delta.rsplit(":", 1)[1])
    assert 0 < rel < 1e-4


def test_box_finds_an_input_inside_the_box():
    code, out, _ = run("equiv", BASE, TUNED, "--format", "json", "--box=-0.5,0.25")
    doc = json.loads(out)
    r = doc["region"]
    assert code == 1 and r["kind"] == "box" and r["found"] is True and r["box"] == ["-1/2", "1/4"]
    x = [F(v) for v in r["difference"]["input"]]
    assert all(F(-1, 2) <= v <= F(1, 4) for v in x)
    assert reluid.load(BASE)(x) != reluid.load(TUNED)(x)
    # the default search's input lies far outside the data; the box's does not
    assert max(abs(F(v)) for v in doc["difference"]["input"]) > 1


def test_near_stays_close_to_the_data(tmp_path):
    code, out, _ = run("equiv", BASE, TUNED, "--near", DATA)
    assert code == 1 and "near the 32 given points: distinguishing input found" in out
    assert "distance to the nearest given point ≈" in out


def test_box_says_so_when_none_is_found():
    a = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])      # |x|
    c = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 2]], [0]), ([[1]], [0])])      # σ(x) + 2σ(-x)
    rs = search_region(a, c, Region.box(0, 1))
    assert rs.found is None and rs.probes > 0
    rs = search_region(a, c, Region.box(-1, 0))
    assert rs.found is not None and rs.found.input[0] < 0 and measure(a, c, rs.found.input) == rs.found


def test_cli_box_none_found_is_not_equality(tmp_path):
    a = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])
    c = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 2]], [0]), ([[1]], [0])])
    pa, pc = tmp_path / "a.json", tmp_path / "c.json"
    reluid.save(a, pa)
    reluid.save(c, pc)
    code, out, _ = run("equiv", pa, pc, "--box", "0,1")
    assert code == 1 and "different functions" in out
    assert "the box [0, 1] (every coordinate): no distinguishing input found" in out
    assert "does not show that the functions agree there" in out


def test_measure_of_equal_outputs_is_zero():
    a = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])
    d = measure(a, a, [F(3)])
    assert d.abs_diff == 0 and not d.differs and d.scale == 3 and d.relative == 0
    z = measure(a, a, [F(0)])
    assert z.relative is None


@pytest.mark.parametrize("argv, fragment", [
    (("--box", "1"), "--box expects LO,HI"),
    (("--box", "2,1"), "is empty"),
])
def test_bad_box_is_a_usage_error(argv, fragment):
    code, _, err = run("equiv", BASE, TUNED, *argv)
    assert code == 2 and fragment in err and err.count("\n") == 1


def test_bad_near_file_is_invalid_input(tmp_path):
    bad = tmp_path / "x.npy"
    bad.write_bytes(b"not numpy")
    code, _, err = run("equiv", BASE, TUNED, "--near", bad)
    assert code == 4 and err.count("\n") == 1 and "--near" in err
    wrong = tmp_path / "w.npy"
    np.save(wrong, np.zeros((3, 5)))
    code, _, err = run("equiv", BASE, TUNED, "--near", wrong)
    assert code == 4 and "5 coordinates" in err and err.count("\n") == 1
