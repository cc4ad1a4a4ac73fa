"""``reluid equiv`` for any depth and ``reluid align``: exit codes, written files, certificates."""

import io
import json
from fractions import Fraction as F

import pytest

import reluid
from reluid.cli.main import main
from reluid.model.network import Layer, Network
from reluid.model.symmetry import GroupElement, act_layers
from tests.paths import EXAMPLES

FLIP = str(EXAMPLES / "deep_layer_flip.json")


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def _planted(tmp_path):
    a = reluid.load(FLIP)
    g = (GroupElement((2, 0, 1), (F(2), F(1, 4), F(8))), GroupElement((1, 0), (F(1, 2), F(4))))
    b = act_layers(g, a)                     # power-of-two scalings: every format holds b exactly
    path = tmp_path / "b.npz"
    reluid.save(b, path)
    return a, b, path


def _flipped(tmp_path):
    a = reluid.load(FLIP)
    A, B, C = a.layers
    W = tuple(tuple(-x for x in r) if i < 2 else r for i, r in enumerate(A.weight))
    bias = tuple(-x if i < 2 else x for i, x in enumerate(A.bias))
    c = tuple(cb + sum(B.weight[k][i] * A.bias[i] for i in range(2)) for k, cb in enumerate(B.bias))
    net = Network((Layer(W, bias, 2), Layer(B.weight, c, 3), C))
    path = tmp_path / "flipped.json"
    reluid.save(net, path)
    return path


def test_equiv_exit_codes(tmp_path):
    _, _, b = _planted(tmp_path)
    code, out, _ = run("equiv", FLIP, b)
    assert code == 0 and "same orbit" in out and "hidden layer 2: permutation (1 ↦ 2, 2 ↦ 1)" in out
    code, out, _ = run("equiv", FLIP, _flipped(tmp_path))
    assert code == 0 and "different orbits: a hidden symmetry relates them" in out and "region split" in out
    code, out, _ = run("equiv", FLIP, EXAMPLES / "deep_generic.json")
    assert code == 1 and "x = (" in out
    code, out, _ = run("equiv", FLIP, EXAMPLES / "theta1.json")          # different depths, same sizes
    assert code == 1 and "different functions" in out
    code, _, err = run("equiv", FLIP, EXAMPLES / "deep_dead_neuron.json")   # input sizes 2 and 1
    assert code == 4 and err.count("\n") == 1 and "cannot compare" in err


def test_equiv_unknown_exits_3(tmp_path, monkeypatch):
    import reluid.analysis.deep.equivalence as deq
    monkeypatch.setattr(deq, "REGION_SPLIT_LIMITS", (0, 0))
    monkeypatch.setattr(deq, "Z3_LIMIT", 0)
    code, out, _ = run("equiv", FLIP, _flipped(tmp_path))
    assert code == 3 and out.startswith("unknown") and "too large for the exact region split" in out


@pytest.mark.parametrize("suffix", [".json", ".npz", ".onnx", ".safetensors"])
def test_align_writes_the_reference_coordinates_exactly(tmp_path, suffix):
    a, b, b_path = _planted(tmp_path)
    out = tmp_path / f"b_aligned{suffix}"
    code, text, err = run("align", FLIP, b_path, "-o", out)
    assert code == 0, err
    assert reluid.load(out) == a and reluid.load(out).sha256() == a.sha256()
    cert = tmp_path / "b_aligned.alignment.json"
    doc = json.loads(cert.read_text())
    assert doc["format"] == "reluid.alignment/1" and doc["reference"]["sha256"] == a.sha256()
    assert doc["other"]["sha256"] == b.sha256() and doc["layers"][1] == {"layer": 2, "perm": [1, 0],
                                                                          "scale": ["1/4", "2"]}
    code, text, _ = run("align", "--verify", cert, FLIP, b_path)
    assert code == 0 and text.startswith("VALID")
    code, text, _ = run("align", "--verify", cert, b_path, FLIP)           # the roles swapped
    assert code == 1 and text.startswith("REJECTED")


def test_align_outside_the_orbit_names_the_first_layer(tmp_path):
    out = tmp_path / "x.json"
    code, text, _ = run("align", FLIP, _flipped(tmp_path), "-o", out)
    assert code == 1 and "not in the orbit" in text and "first difference: hidden layer 1" in text
    assert not out.exists()
    code, text, _ = run("align", FLIP, EXAMPLES / "deep_generic.json", "-o", out)
    assert code == 1 and "hidden layer 2" in text


def test_align_usage_and_invalid_certificates(tmp_path):
    _, _, b = _planted(tmp_path)
    code, _, err = run("align", FLIP, b)
    assert code == 2 and "-o OUT" in err
    bad = tmp_path / "bad.alignment.json"
    bad.write_text('{"format": "reluid.alignment/1", "scale": 0.5}')
    code, _, err = run("align", "--verify", bad, FLIP, b)
    assert code == 4 and err.count("\n") == 1
    code, _, err = run("align", FLIP, EXAMPLES / "deep_dead_neuron.json", "-o", tmp_path / "y.json")
    assert code == 4 and "cannot compare" in err
    code, _, err = run("align", FLIP, b, "-o", tmp_path / "c.json", "--certificate", tmp_path / "c.json")
    assert code == 2


def test_help():
    for cmd in ("equiv", "align"):
        with pytest.raises(SystemExit) as e:
            main([cmd, "--help"])
        assert e.value.code == 0
