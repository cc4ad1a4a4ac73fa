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


SECOND = T / "torch_digits_64_32_32_10_second.onnx"


def test_align_nearest_reports_the_deviation_of_two_independently_trained_networks():
    code, out, _ = run("align", BASE, SECOND, "--nearest", "--format", "json")
    doc = json.loads(out)
    near = doc["nearest"]
    assert code == 1 and doc["same_orbit"] is False and near["kind"] == "measurement (not a verdict)"
    a, b = reluid.load(BASE), reluid.load(SECOND)
    from reluid.model.symmetry import GroupElement, act_layers
    g = [GroupElement(tuple(e["perm"]), tuple(F(s) for s in e["scale"])) for e in near["elements"]]
    aligned = act_layers(g, b)
    dev = max(abs(x - y) for L, R in zip(aligned.layers, a.layers)
              for r1, r2 in zip(L.weight + (L.bias,), R.weight + (R.bias,)) for x, y in zip(r1, r2))
    assert F(near["max_deviation"]) == dev and near["max_deviation_decimal"] == float(dev)
    assert dev < F(near["unaligned_deviation"])                       # matching brings them closer
    assert near["l2_deviation_float64"] < 0.8 * near["unaligned_l2_float64"]
    assert any(e["perm"] != sorted(e["perm"]) for e in near["elements"])
    code, text, _ = run("align", BASE, SECOND, "--nearest")
    assert code == 1 and "nearest alignment (a measurement, not a verdict)" in text
    assert "largest weight deviation" in text and "not in the orbit" in text


def test_align_nearest_on_a_float_rescaled_copy_finds_the_scales():
    from reluid.analysis.deep.align import nearest_alignment
    a, r = reluid.load(BASE), reluid.load(RESCALED)
    near = nearest_alignment(a, r)
    assert near.max_deviation > 0 and near.relative < F(1, 10 ** 6)   # rounding only: not one orbit, but close
    assert near.unaligned_deviation > F(1, 10)
    assert all(g.perm == tuple(range(32)) for g in near.elements)
    x = [F(k % 7, 8) for k in range(64)]
    assert near.aligned(x) == r(x)                                    # exactly the other's function


def test_align_nearest_writes_float32_with_the_names_kept(tmp_path):
    import onnx
    out = tmp_path / "b.onnx"
    code, text, err = run("align", BASE, SECOND, "--nearest", "--scales", "pow2", "-o", out)
    assert code == 1 and "stored as float32" in text, err
    m = onnx.load(str(out))
    assert [i.name for i in m.graph.input] == ["x"] and [o.name for o in m.graph.output] == ["logits"]
    assert {t.data_type for t in m.graph.initializer} == {onnx.TensorProto.FLOAT}
    x = [F(k % 5, 4) for k in range(64)]
    assert reluid.load(out)(x) == reluid.load(SECOND)(x)
    code, _, err = run("align", BASE, SECOND, "--nearest", "-o", tmp_path / "c.onnx")
    assert code == 2 and "--scales pow2" in err and err.count("\n") == 1


@pytest.mark.parametrize("suffix", [".onnx", ".safetensors", ".npz"])
def test_align_in_the_orbit_keeps_float32(tmp_path, suffix):
    from reluid.model.symmetry import GroupElement, act_layers
    a = reluid.load(BASE)
    g = [GroupElement(tuple(reversed(range(32))), tuple(F(2) ** (k % 3 - 1) for k in range(32))) for _ in range(2)]
    b_path = tmp_path / f"b{suffix}"
    reluid.io.save(act_layers(g, a), b_path, float_type="float32", names=("x", "logits"))
    out = tmp_path / f"aligned{suffix}"
    code, text, err = run("align", BASE, b_path, "-o", out)
    assert code == 0 and "stored as float32" in text, err
    assert reluid.load(out) == a
    from reluid.io.loader import stored_types
    assert stored_types(out)[0] == "float32"
    if suffix == ".onnx":
        assert stored_types(out)[1] == ("x", "logits")


def test_a_region_search_decides_what_the_global_search_left_open(monkeypatch):
    import reluid.analysis.deep.equivalence as deq
    monkeypatch.setattr(deq, "search_difference", lambda a, b, **kw: (None, None, None, 0))
    monkeypatch.setattr(deq, "REGION_SPLIT_LIMITS", (0, 0))
    monkeypatch.setattr(deq, "Z3_LIMIT", 0)
    code, out, _ = run("equiv", BASE, TUNED)
    assert code == 3 and out.startswith("unknown")
    code, out, _ = run("equiv", BASE, TUNED, "--box", "0,1", "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["equal"] is False and doc["method"] == "float search in the region"
    x = [F(v) for v in doc["difference"]["input"]]
    assert all(0 <= v <= 1 for v in x) and reluid.load(BASE)(x) != reluid.load(TUNED)(x)


def test_nearest_without_scipy_falls_back_to_greedy_matching(monkeypatch):
    import builtins

    from reluid.analysis.deep.align import nearest_alignment
    real_import = builtins.__import__

    def no_scipy(name, *args, **kwargs):
        if name.startswith("scipy"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_scipy)
    a, r = reluid.load(BASE), reluid.load(RESCALED)
    near = nearest_alignment(a, r)
    assert near.matching.startswith("greedy") and all(g.perm == tuple(range(32)) for g in near.elements)
    assert near.relative < F(1, 10 ** 6)


def test_api_wrappers():
    a, b = reluid.load(BASE), reluid.load(TUNED)
    from reluid import api
    rs = api.search_region(a, b, api.region(box=(0, 1)))
    assert rs.found is not None and api.difference(a, b, rs.found.input) == rs.found
    with pytest.raises(reluid.errors.InvalidArgument):
        api.region()
    assert api.nearest_alignment(a, b).max_deviation > 0
