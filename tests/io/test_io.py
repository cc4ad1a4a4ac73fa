"""Tests for reluid.io: exact round trips, exact float reading, and refusal of bad files."""

from __future__ import annotations

import itertools
import json
import os
import pickle
import struct
import subprocess
import sys
import time
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import save_file

import reluid.io.loader as loader
from reluid.errors import InvalidArgument, InvalidNetwork, UnsupportedOperator
from reluid.io import generate_json, load, parse_network, read_network, save, write_network
from reluid.io.loader import exact_values
from reluid.model.network import Layer, Network
from tests.paths import EXAMPLES, ROOT

F = Fraction
F32_TENTH = F(13421773, 134217728)  # float32(0.1), exactly

# A network with exact rationals (JSON only) and one that float64 holds exactly.
RATIONAL = Network.from_lists(
    [([[1, F(1, 3)], [F(-7, 2), 0], [F(10**30), F(-1, 10**20)]], [0, "0.1", F(2, 3)]),
     ([[1, -1, F(5, 7)]], [F(-6)])],
    name="rational", description="exact ½ and ⅓ 🙂")
DYADIC = Network.from_lists(
    [([[1, F(1, 4)], [F(-3, 8), 0], [2**60, F(1, 2**80)]], [0, F(5, 2), -1]),
     ([[1, -1, F(3, 1024)]], [F(-6)])],
    name="dyadic", description="float64-exact")


def bad(path, *fragments: str, exc: type = InvalidNetwork, **options) -> str:
    """Assert that loading ``path`` raises ``exc`` with a one-line message naming the file."""
    with pytest.raises(InvalidNetwork) as info:
        load(path, **options)
    assert isinstance(info.value, exc), repr(info.value)
    message = str(info.value)
    assert "\n" not in message
    assert Path(path).name in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def layer_shapes(net: Network):
    return [(L.n_out, L.n_in) for L in net.layers]


# ---------------------------------------------------------------------------
# exact conversion of arrays
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_exact_values_match_the_binary_value_of_every_float(dtype):
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**(8 * np.dtype(dtype).itemsize), 20000, dtype=np.uint64)
    x = bits.astype(f"u{np.dtype(dtype).itemsize}").view(dtype)
    x = x[np.isfinite(x)]
    extremes = np.array([0.0, -0.0, 1.0, -1.0, 0.1, np.finfo(dtype).max, -np.finfo(dtype).max,
                         np.finfo(dtype).tiny, np.finfo(dtype).smallest_subnormal, 2.0**10, 3.0], dtype=dtype)
    x = np.concatenate([x, extremes])
    got = exact_values(x)
    want = [F(float(v)) for v in x]
    assert got == want
    # the fast path must produce fully normal Fractions: reduced, hashable like the real thing
    assert [(q.numerator, q.denominator) for q in got] == [(q.numerator, q.denominator) for q in want]
    assert {hash(q) for q in got} == {hash(q) for q in want}
    assert all(type(q) is Fraction for q in got)


def test_exact_values_of_float32_tenth_and_integers():
    assert exact_values(np.array([0.1], dtype=np.float32)) == [F32_TENTH]
    big = np.array([2**63 - 1, -2**63], dtype=np.int64)
    assert exact_values(big) == [F(2**63 - 1), F(-2**63)]
    assert exact_values(np.array([2**64 - 1], dtype=np.uint64)) == [F(2**64 - 1)]
    assert exact_values(np.array([2.0**80, -(2.0**53 + 2)])) == [F(2**80), F(-(2**53 + 2))]


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_exact_values_reject_non_finite(value):
    with pytest.raises(InvalidNetwork, match="non-finite"):
        exact_values(np.array([1.0, value], dtype=np.float32), "W1")


def test_large_float32_matrix_converts_fast():
    rng = np.random.default_rng(1)
    W = (rng.standard_normal((4096, 784)) * np.sqrt(2 / 784)).astype(np.float32)
    start = time.perf_counter()
    net = loader.network_from_arrays([loader.ArrayLayer(W, np.zeros(4096, np.float32), "W1", "b1")])
    elapsed = time.perf_counter() - start
    assert net.layers[0].weight[123][456] == F(float(W[123, 456]))
    assert elapsed < 10, f"784x4096 float32 took {elapsed:.1f} s"


# ---------------------------------------------------------------------------
# round trips
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".json", ".npz", ".onnx", ".safetensors"])
def test_round_trip_every_format(tmp_path, suffix):
    path = tmp_path / f"net{suffix}"
    save(DYADIC, path)
    back = load(path)
    assert back == DYADIC
    assert back.layers[0].weight[2][1] == F(1, 2**80)
    if suffix != ".npz":  # npz carries no metadata
        assert (back.name, back.description) == (DYADIC.name, DYADIC.description)


def test_json_round_trip_keeps_exact_rationals(tmp_path):
    path = tmp_path / "net.json"
    write_network(RATIONAL, path)
    back = read_network(path)
    assert back == RATIONAL
    assert back.layers[0].weight[0][1] == F(1, 3)
    assert back.layers[0].bias[1] == F(1, 10)
    assert (back.name, back.description) == ("rational", "exact ½ and ⅓ 🙂")
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["layers"][0]["weight"][0] == [1, "1/3"]
    assert doc["layers"][0]["bias"] == [0, "1/10", "2/3"]
    assert parse_network(generate_json(RATIONAL)) == RATIONAL


def test_json_round_trip_of_a_zero_width_hidden_layer(tmp_path):
    net = Network((Layer((), (), 2), Layer(((),), (F(3),), 0)))
    assert net.architecture == (2, 0, 1)
    text = generate_json(net)
    assert json.loads(text)["layers"][0] == {"weight": [], "bias": [], "inputs": 2}
    assert parse_network(text) == net
    assert parse_network(json.dumps(net.to_dict())) == net


@pytest.mark.parametrize("suffix", [".npz", ".onnx", ".safetensors"])
def test_binary_formats_refuse_what_float64_cannot_hold(tmp_path, suffix):
    path = tmp_path / f"net{suffix}"
    with pytest.raises(InvalidNetwork, match=r"layer 0 weight\[0\]\[1\] = 1/3 is not exactly a float64"):
        save(RATIONAL, path)
    assert not path.exists()
    huge = Network.from_lists([([[F(2**1100)]], [0])])
    with pytest.raises(InvalidNetwork, match="not exactly a float64"):
        save(huge, tmp_path / f"huge{suffix}")


def test_save_checks_its_arguments(tmp_path):
    with pytest.raises(InvalidArgument, match="unknown file type '.txt'"):
        save(DYADIC, tmp_path / "net.txt")
    with pytest.raises(InvalidArgument, match="expects a Network"):
        save(DYADIC.to_dict(), tmp_path / "net.json")


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------
def doc(layers, **extra) -> str:
    return json.dumps({"format": "reluid.network/1", "layers": layers, **extra})


def test_json_decimal_literals_are_exact_decimals():
    text = ('{"format": "reluid.network/1", "layers": ['
            '{"weight": [[0.1, 1e-3, -2.50E+2]], "bias": [0.3]}]}')
    net = parse_network(text)
    assert net.layers[0].weight == ((F(1, 10), F(1, 1000), F(-250)),)
    assert net.layers[0].bias == (F(3, 10),)
    assert net.layers[0].weight[0][0] != F(0.1)  # not the float nearest to 0.1


def test_json_strings_are_exact_rationals():
    net = parse_network(doc([{"weight": [["0.1", "-6/4", "2.5e-1", " 7 "]], "bias": ["1/3"]}]))
    assert net.layers[0].weight == ((F(1, 10), F(-3, 2), F(1, 4), F(7)),)
    assert net.layers[0].bias == (F(1, 3),)


@pytest.mark.parametrize("text, fragment", [
    ('{"format": "reluid.network/1", "layers": [{"weight": [[NaN]], "bias": [0]}]}', "NaN is not allowed"),
    ('{"format": "reluid.network/1", "layers": [{"weight": [[Infinity]], "bias": [0]}]}', "Infinity"),
    ('{"format": "reluid.network/1", "layers": [{"weight": [[-Infinity]], "bias": [0]}]}', "-Infinity"),
    ('{"format": "reluid.network/1", "layers": [{"weight": [[1]], "bias": [0]}', "malformed JSON"),
    ('', "malformed JSON"),
    ('[1, 2]', "expected a JSON object"),
    (doc([{"weight": [[1]], "bias": [0]}]).replace("network/1", "network/2"), "'format' is 'reluid.network/2'"),
    ('{"layers": [{"weight": [[1]], "bias": [0]}]}', "no 'format' key"),
    (doc([]), "'layers' must be a non-empty list"),
    (doc([{"weight": [[1]], "bias": [0]}], extra=1), "unknown top-level key(s) 'extra'"),
    (doc([{"weight": [[1]], "bias": [0], "biases": [1]}]), "layer 0 has unknown key(s) 'biases'"),
    (doc([{"weight": [[1]]}]), "layer 0 has no 'bias'"),
    (doc([{"weight": [[1, 2], [3]], "bias": [0, 0]}]), "ragged"),
    (doc([{"weight": [[1, 2], [3, 4]], "bias": [0]}]), "2 rows but bias has 1 entries"),
    (doc([{"weight": [[1, 2]], "bias": [0]}, {"weight": [[1, 2]], "bias": [0]}]), "expected 1"),
    (doc([{"weight": [[True]], "bias": [0]}]), "layer 0 weight[0][0] is True"),
    (doc([{"weight": [[None]], "bias": [0]}]), "layer 0 weight[0][0] is None"),
    (doc([{"weight": [[[1]]], "bias": [0]}]), "layer 0 weight[0][0] is [1]"),
    (doc([{"weight": [["abc"]], "bias": [0]}]), "'abc', not an exact rational"),
    (doc([{"weight": [["1/0"]], "bias": [0]}]), "'1/0', not an exact rational"),
    (doc([{"weight": [["nan"]], "bias": [0]}]), "'nan', not an exact rational"),
    (doc([{"weight": [[1]], "bias": 0}]), "layer 0 bias must be a list"),
    (doc([{"weight": {"a": 1}, "bias": [0]}]), "layer 0 weight must be a list of rows"),
    (doc(["layer"]), "layer 0 must be an object"),
    (doc([{"weight": [], "bias": [], "inputs": -1}]), "'inputs' must be a non-negative integer"),
    (doc([{"weight": [[1]], "bias": [0]}, {"weight": [], "bias": [], "inputs": 2}]), "has 'inputs' 2"),
    (doc([{"weight": [[1]], "bias": [0]}], name=3), "'name' must be a string"),
    ('{"format": "reluid.network/1", "format": "reluid.network/1", "layers": []}', "duplicate key 'format'"),
    ('{"format": "reluid.network/1", "layers": [{"weight": [[1e999999999]], "bias": [0]}]}', "exponent"),
    (doc([{"weight": [["1e-999999999"]], "bias": [0]}]), "exponent"),
    ('{"format": "reluid.network/1", "layers": [{"weight": [[1e00000000000999999999]], "bias": [0]}]}',
     "exponent"),
    (doc([{"weight": [["0." + "0" * 5000 + "1"]], "bias": [0]}]), "not an exact rational"),
    ('{"format": "reluid.network/1", "layers": [{"weight": [[0.' + "0" * 5000 + '1]], "bias": [0]}]}',
     "malformed JSON"),
    ('{"format": "reluid.network/1", "layers": [{"weight": [[' + "9" * 5000 + ']], "bias": [0]}]}',
     "malformed JSON"),
    (doc([{"weight": [[]], "bias": [0]}]), "input and output dimensions must be at least 1"),
])
def test_json_bad_input(tmp_path, text, fragment):
    path = tmp_path / "bad net.json"
    path.write_text(text, encoding="utf-8")
    bad(path, fragment)
    with pytest.raises(InvalidNetwork):
        parse_network(text)


def test_json_not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"format": "reluid.network/1", "name": "\xe9"}')
    bad(path, "not UTF-8")


def test_parse_network_names_the_path_only_when_given():
    with pytest.raises(InvalidNetwork) as info:
        parse_network("{}")
    assert info.value.path is None
    with pytest.raises(InvalidNetwork) as info:
        parse_network("{}", path="x/net.json")
    assert str(info.value).startswith("x/net.json: ")


# ---------------------------------------------------------------------------
# npz
# ---------------------------------------------------------------------------
def test_npz_float32_is_read_exactly(tmp_path):
    path = tmp_path / "f32.npz"
    np.savez(path, W1=np.array([[0.1, -0.5], [3, 0]], np.float32), b1=np.array([0.1, 0], np.float32),
             W2=np.array([[1, 2]], np.float32), b2=np.array([-1], np.float32))
    net = load(path)
    assert net.architecture == (2, 2, 1)
    assert net.layers[0].weight == ((F32_TENTH, F(-1, 2)), (F(3), F(0)))
    assert net.layers[0].bias == (F32_TENTH, F(0))


def test_npz_other_dtypes_and_naming(tmp_path):
    path = tmp_path / "ints.npz"
    np.savez_compressed(path, weight_0=np.array([[1, -2]], np.int8), bias_0=np.array([7], np.uint64),
                        weight_1=np.array([[0.1]], np.float16), bias_1=np.array([2.0**-24], np.float16))
    net = load(path)
    assert net.layers[0].weight == ((F(1), F(-2)),) and net.layers[0].bias == (F(7),)
    assert net.layers[1].weight == ((F(float(np.float16(0.1))),),)
    assert net.layers[1].bias == (F(1, 2**24),)


def test_npz_object_array_is_never_unpickled(tmp_path):
    marker = tmp_path / "unpickled"

    class Boom:
        def __reduce__(self):
            return (Path.touch, (marker,))

    pickle.dumps(Boom())  # (sanity: it does pickle)
    path = tmp_path / "evil.npz"
    np.savez(path, W1=np.array([Boom()], dtype=object), b1=np.zeros(1))
    bad(path, "'W1' is an object array")
    assert not marker.exists()


def npz(path, **arrays):
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize("arrays, fragment", [
    (dict(W1=np.ones((2, 2)), b1=np.ones(2), W3=np.ones((1, 2)), b3=np.ones(1)), "'W2' is missing"),
    (dict(W1=np.ones((2, 2)), b1=np.ones(2), W2=np.ones((1, 2))), "'b2' is missing"),
    (dict(W0=np.ones((2, 2)), b0=np.ones(2)), "unexpected array 'W0'"),
    (dict(W1=np.ones((2, 2)), b1=np.ones(2), bias_1=np.ones(1)), "mixes"),
    (dict(W1=np.ones((2, 2)), b1=np.ones(2), extra=np.ones(1)), "unexpected array 'extra'"),
    (dict(W01=np.ones((2, 2)), b01=np.ones(2)), "unexpected array 'W01'"),
    (dict(W1=np.ones((2, 2, 1)), b1=np.ones(2)), "W1 must be 2-dimensional"),
    (dict(W1=np.ones((2, 2)), b1=np.ones((2, 1))), "b1 must be 1-dimensional"),
    (dict(W1=np.ones((2, 2)), b1=np.ones(3)), "W1 has shape (2, 2) but b1 has shape (3,)"),
    (dict(W1=np.ones((2, 2)), b1=np.ones(2), W2=np.ones((1, 3)), b2=np.ones(1)), "W2 has 3 columns"),
    (dict(W1=np.array([[1.0, np.nan]]), b1=np.ones(1)), "W1 has a non-finite entry (nan)"),
    (dict(W1=np.ones((1, 1)), b1=np.array([np.inf], np.float32)), "b1 has a non-finite entry (inf)"),
    (dict(W1=np.ones((1, 1), complex), b1=np.ones(1)), "W1 has dtype complex128"),
    (dict(W1=np.ones((1, 1), bool), b1=np.ones(1)), "W1 has dtype bool"),
    (dict(W1=np.array([["a"]]), b1=np.ones(1)), "W1 has dtype <U1"),
    (dict(W1=np.ones((1, 1), np.longdouble), b1=np.ones(1)), "W1 has dtype"),
    ({}, "the archive contains no arrays"),
    (dict(W1=np.ones((1, 0)), b1=np.ones(1)), "input and output dimensions must be at least 1"),
])
def test_npz_bad_input(tmp_path, arrays, fragment):
    bad(npz(tmp_path / "bad.npz", **arrays), fragment)


def test_npz_not_an_archive(tmp_path):
    good = npz(tmp_path / "good.npz", W1=np.ones((2, 2)), b1=np.ones(2))
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:200])
    bad(truncated, "not a readable .npz archive")
    npy = tmp_path / "single.npz"
    with open(npy, "wb") as fh:
        np.save(fh, np.ones((2, 2)))
    bad(npy, "not a readable .npz archive")
    odd = tmp_path / "odd.npz"
    with zipfile.ZipFile(odd, "w") as zf:
        zf.writestr("readme.txt", "hello")
    bad(odd, "unexpected member 'readme.txt'")


def test_npz_written_files_are_reproducible(tmp_path):
    save(DYADIC, tmp_path / "a.npz")
    save(DYADIC, tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    with np.load(tmp_path / "a.npz", allow_pickle=False) as z:
        assert sorted(z.files) == ["W1", "W2", "b1", "b2"] and z["W1"].dtype == np.float64


# ---------------------------------------------------------------------------
# ONNX
# ---------------------------------------------------------------------------
def onnx_model(path, nodes, initializers, *, inputs=("x",), outputs=("y",), opset=13, dtype=TensorProto.FLOAT):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(name, dtype, None) for name in inputs],
        [helper.make_tensor_value_info(name, dtype, None) for name in outputs],
        initializer=[numpy_helper.from_array(np.asarray(a), n) for n, a in initializers.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    onnx.save(model, path)
    return path


W_IN = np.array([[0.1, 1], [-1, 2], [0, 3]], np.float32)  # (n_out=3, n_in=2) as torch stores it
B_IN = np.array([0.5, 0.1, -1], np.float32)
W_OUT = np.array([[1, 1, 1]], np.float32)
B_OUT = np.array([-6], np.float32)


def torch_like(path, **extra_nodes):
    nodes = [helper.make_node("Gemm", ["x", "W1", "b1"], ["z1"], name="fc1", transB=1),
             helper.make_node("Relu", ["z1"], ["h1"], name="act"),
             helper.make_node("Gemm", ["h1", "W2", "b2"], ["y"], name="fc2", transB=1)]
    return onnx_model(path, nodes, dict(W1=W_IN, b1=B_IN, W2=W_OUT, b2=B_OUT))


def test_onnx_torch_style_gemm_is_read_exactly(tmp_path):
    net = load(torch_like(tmp_path / "m.onnx"))
    assert net.architecture == (2, 3, 1)
    assert net.layers[0].weight[0] == (F32_TENTH, F(1))
    assert net.layers[0].bias == (F(1, 2), F32_TENTH, F(-1))
    assert net.layers[1].bias == (F(-6),)


def test_onnx_gemm_attributes_are_exact(tmp_path):
    # Y = alpha * X @ B + beta * C with B stored (n_in, n_out) (transB = 0), C broadcast from (1,)
    nodes = [helper.make_node("Gemm", ["x", "B", "C"], ["y"], name="g", alpha=0.1, beta=3.0, transB=0)]
    B = np.array([[1, 2, 0], [0, 1, 4]], np.float32)  # 2 inputs, 3 outputs
    net = load(onnx_model(tmp_path / "g.onnx", nodes, dict(B=B, C=np.array([0.5], np.float32))))
    assert net.layers[0].weight == ((F32_TENTH, F(0)), (2 * F32_TENTH, F32_TENTH), (F(0), 4 * F32_TENTH))
    assert net.layers[0].bias == (F(3, 2),) * 3


def test_onnx_matmul_add_identity_and_flatten(tmp_path):
    nodes = [helper.make_node("Flatten", ["x"], ["f"], name="flat", axis=1),
             helper.make_node("MatMul", ["f", "W1t"], ["m1"], name="mm1"),
             helper.make_node("Add", ["b1", "m1"], ["z1"], name="add1"),  # constant first is fine
             helper.make_node("Identity", ["z1"], ["i1"], name="id"),
             helper.make_node("Relu", ["i1"], ["h1"], name="relu"),
             helper.make_node("MatMul", ["h1", "W2t"], ["y"], name="mm2")]  # no bias: zeros
    path = onnx_model(tmp_path / "mm.onnx", nodes, dict(W1t=W_IN.T.copy(), b1=B_IN.reshape(1, 3), W2t=W_OUT.T.copy()))
    net = load(path)
    assert net.layers[0].weight[0] == (F32_TENTH, F(1))
    assert net.layers[0].bias == (F(1, 2), F32_TENTH, F(-1))
    assert net.layers[1].weight == ((F(1), F(1), F(1)),) and net.layers[1].bias == (F(0),)


def test_onnx_float64_written_model_passes_the_checker(tmp_path):
    save(DYADIC, tmp_path / "d.onnx")
    model = onnx.load(tmp_path / "d.onnx")
    onnx.checker.check_model(model)
    assert [n.op_type for n in model.graph.node] == ["Gemm", "Relu", "Gemm"]
    assert model.graph.initializer[0].data_type == TensorProto.DOUBLE


def test_onnx_sigmoid_is_rejected_by_name(tmp_path):
    nodes = [helper.make_node("Gemm", ["x", "W1", "b1"], ["z1"], name="fc1", transB=1),
             helper.make_node("Sigmoid", ["z1"], ["h1"], name="squash"),
             helper.make_node("Gemm", ["h1", "W2", "b2"], ["y"], name="fc2", transB=1)]
    path = onnx_model(tmp_path / "sig.onnx", nodes, dict(W1=W_IN, b1=B_IN, W2=W_OUT, b2=B_OUT))
    message = bad(path, "unsupported operator Sigmoid", "'squash'", exc=UnsupportedOperator)
    assert "Relu" in message  # says what is supported


def gemm(a, w, b, out, name, **attrs):
    return helper.make_node("Gemm", [a, w, b], [out], name=name, transB=1, **attrs)


INITS = dict(W1=W_IN, b1=B_IN, W2=W_OUT, b2=B_OUT)


@pytest.mark.parametrize("nodes, inits, fragment, exc", [
    ([gemm("x", "W1", "b1", "z", "fc1"), helper.make_node("Tanh", ["z"], ["y"])], INITS,
     "unsupported operator Tanh (Tanh node #1)", UnsupportedOperator),
    ([gemm("x", "W1", "b1", "z", "fc1"), helper.make_node("Relu", ["z"], ["y"], domain="com.example")], INITS,
     "unsupported operator com.example.Relu", UnsupportedOperator),
    ([gemm("x", "W1", "b1", "z", "fc1"), helper.make_node("Add", ["z", "b1"], ["y"], name="a")], INITS,
     "Add is supported only as the bias right after a MatMul", UnsupportedOperator),
    ([gemm("x", "W1", "b1", "z", "fc1"), gemm("z", "W2", "b2", "y", "fc2")], INITS,
     "fc2'", InvalidNetwork),
    ([gemm("x", "W1", "b1", "z", "fc1"), helper.make_node("Relu", ["z"], ["y"], name="r")], INITS,
     "the output passes through Relu node 'r' (the last operation)", InvalidNetwork),
    ([helper.make_node("Relu", ["x"], ["h"], name="r"), gemm("h", "W1", "b1", "y", "fc1")], INITS,
     "Relu node 'r' does not follow an affine layer", InvalidNetwork),
    ([gemm("x", "W1", "b1", "y", "fc1", transA=1)], INITS, "transA=1", InvalidNetwork),
    ([gemm("x", "W1", "b1", "z", "fc1"), helper.make_node("Relu", ["z"], ["h"]),
      helper.make_node("Flatten", ["h"], ["f"], name="fl"), gemm("f", "W2", "b2", "y", "fc2")], INITS,
     "Flatten is supported only before the first layer", InvalidNetwork),
    ([helper.make_node("Flatten", ["x"], ["f"], name="fl", axis=2), gemm("f", "W1", "b1", "y", "fc1")], INITS,
     "only Flatten with axis=1", InvalidNetwork),
    ([gemm("x", "W1", "b1", "z", "fc1"), helper.make_node("Relu", ["x"], ["h"], name="branch"),
      gemm("h", "W2", "b2", "y", "fc2")], INITS, "'branch' does not continue the chain", InvalidNetwork),
    ([gemm("x", "W1", "b1", "y", "fc1"), helper.make_node("Relu", ["y"], ["dangling"], name="r")], INITS,
     "the chain ends at 'dangling', not at the graph output 'y'", InvalidNetwork),
    ([gemm("x", "W1", "b1", "z", "fc1")], INITS, "not at the graph output 'y'", InvalidNetwork),
    ([gemm("x", "W1", "b1", "y", "fc1")], dict(W1=W_IN, b1=np.ones((3, 1), np.float32)),
     "does not broadcast", InvalidNetwork),
    ([gemm("x", "W1", "b1", "y", "fc1")], dict(W1=W_IN.reshape(3, 2, 1), b1=B_IN), "expected 2-D", InvalidNetwork),
    ([gemm("x", "W1", "b1", "y", "fc1")], dict(W1=np.array([[np.nan, 1]] * 3, np.float32), b1=B_IN),
     "non-finite", InvalidNetwork),
    ([gemm("x", "W1", "b1", "y", "fc1")], dict(W1=W_IN), "'b1' is not an initializer", InvalidNetwork),
    ([gemm("x", "W1", "b1", "y", "fc1", alpha=float("inf"))], INITS, "non-finite alpha", InvalidNetwork),
    ([], INITS, "no Gemm or MatMul layer", InvalidNetwork),
])
def test_onnx_bad_graphs(tmp_path, nodes, inits, fragment, exc):
    bad(onnx_model(tmp_path / "bad.onnx", nodes, inits), fragment, exc=exc)


def bn_node(x, y, name="bn", **attrs):
    return helper.make_node("BatchNormalization", [x, "g", "beta", "mu", "var"], [y], name=name, **attrs)


BN_INITS = dict(INITS, g=np.array([2, -1, 0.5], np.float32), beta=np.array([1, 0, -1], np.float32),
                mu=np.array([0.5, -2, 0], np.float32), var=np.array([4, 0.25, 2.25], np.float32))


def test_onnx_batchnorm_is_folded_exactly_when_the_square_roots_are_rational(tmp_path):
    nodes = [gemm("x", "W1", "b1", "z", "fc1"), bn_node("z", "n", epsilon=0.0),
             helper.make_node("Relu", ["n"], ["h"], name="r"), gemm("h", "W2", "b2", "y", "fc2")]
    net = load(onnx_model(tmp_path / "bn.onnx", nodes, BN_INITS))
    s = [F(2, 2), F(-1, F(1, 2)), F(1, 2) / F(3, 2)]      # γ / √(σ² + ε)
    t = [F(1) - s[0] * F(1, 2), F(0) - s[1] * -2, F(-1)]   # β − s μ
    W, b = load(torch_like(tmp_path / "plain.onnx")).layers[0].weight, (F(1, 2), F32_TENTH, F(-1))
    assert net.layers[0].weight == tuple(tuple(s[i] * w for w in W[i]) for i in range(3))
    assert net.layers[0].bias == tuple(s[i] * b[i] + t[i] for i in range(3))
    assert net.assumption == ("BatchNormalization node 'bn' folded into Gemm node 'fc1' exactly "
                              "(the certified parameters are the folded ones)")
    # before the first layer it folds into that layer's columns: W diag(s), b + W t
    nodes = [helper.make_node("BatchNormalization", ["x", "g2", "beta2", "mu2", "var2"], ["n"], name="bn0",
                              epsilon=0.0), gemm("n", "W1", "b1", "y", "fc1")]
    inits = dict(W1=W_IN, b1=B_IN, g2=np.array([3, 1], np.float32), beta2=np.array([0, 1], np.float32),
                 mu2=np.array([1, 0], np.float32), var2=np.array([9, 1], np.float32))
    net = load(onnx_model(tmp_path / "bn0.onnx", nodes, inits))
    assert net([0, 0]) == tuple(F(float(bb)) + F(float(w[0])) * -1 + F(float(w[1])) * 1 for w, bb in zip(W_IN, B_IN))
    assert net([1, 1]) == tuple(F(float(bb)) + F(float(w[1])) * 2 for w, bb in zip(W_IN, B_IN))


def test_onnx_batchnorm_with_irrational_scale_and_training_mode(tmp_path):
    nodes = [gemm("x", "W1", "b1", "z", "fc1"), bn_node("z", "y")]
    path = onnx_model(tmp_path / "bn.onnx", nodes, BN_INITS)  # default epsilon: float32 1e-5
    message = bad(path, "BatchNormalization node 'bn': √(σ² + ε) is irrational at feature 0",
                  "batchnorm='float32'")
    assert "σ² + ε = " + str(4 + F(float(np.float32(1e-5)))) in message
    net = load(path, batchnorm="float32")
    assert "rounded to float32 (stated by batchnorm='float32')" in net.assumption
    scale = net.layers[0].weight[0][1] / F(1)  # W_IN[0, 1] = 1
    assert scale == F(float(np.float32(2 / np.sqrt(np.float64(4) + np.float64(np.float32(1e-5))))))
    for attrs, fragment in [(dict(training_mode=1), "training_mode=1"), (dict(spatial=0), "spatial=0"),
                            (dict(foo=1), "unsupported attribute(s) 'foo'")]:
        bad(onnx_model(tmp_path / "t.onnx", [gemm("x", "W1", "b1", "z", "fc1"), bn_node("z", "y", **attrs)],
                       BN_INITS), fragment)
    three = helper.make_node("BatchNormalization", ["z", "g", "beta", "mu", "var"], ["y", "rm", "rv"], name="bn",
                             training_mode=1)
    bad(onnx_model(tmp_path / "t3.onnx", [gemm("x", "W1", "b1", "z", "fc1"), three], BN_INITS),
        "has 3 outputs: it updates running statistics")
    lonely = [gemm("x", "W1", "b1", "z", "fc1"), helper.make_node("Relu", ["z"], ["h"], name="r"),
              bn_node("h", "y", epsilon=0.0)]
    bad(onnx_model(tmp_path / "lonely.onnx", lonely, BN_INITS), "'bn' comes after the last ReLU")
    negative = dict(BN_INITS, var=np.array([-1, 1, 1], np.float32))
    bad(onnx_model(tmp_path / "neg.onnx", [gemm("x", "W1", "b1", "z", "fc1"), bn_node("z", "y", epsilon=0.0)],
                   negative), "σ² + ε = -1 is not positive")


def test_onnx_constants_casts_dropout_and_reshape(tmp_path):
    nodes = [helper.make_node("Constant", [], ["W1c"], name="cw", value=numpy_helper.from_array(W_IN)),
             helper.make_node("Identity", ["W1c"], ["W1a"], name="alias"),
             helper.make_node("Cast", ["x"], ["xc"], name="cast", to=TensorProto.FLOAT),
             helper.make_node("Gemm", ["xc", "W1a", "b1"], ["z"], name="fc1", transB=1),
             helper.make_node("Relu", ["z"], ["h"], name="r"),
             helper.make_node("Dropout", ["h"], ["d", "mask"], name="drop"),
             helper.make_node("Constant", [], ["b2c"], name="cb", value_floats=[-6.0]),
             helper.make_node("Gemm", ["d", "W2", "b2c"], ["o"], name="fc2", transB=1),
             helper.make_node("Reshape", ["o", "shape"], ["y"], name="reshape")]
    inits = dict(b1=B_IN, W2=W_OUT, shape=np.array([-1, 1], np.int64))
    net = load(onnx_model(tmp_path / "c.onnx", nodes, inits))
    assert net == load(torch_like(tmp_path / "plain.onnx"))
    for node, fragment in [
            (helper.make_node("Cast", ["x"], ["xc"], name="cast", to=TensorProto.DOUBLE),
             "Cast node 'cast' casts to another type than the tensor's (FLOAT)"),
            (helper.make_node("Dropout", ["x", "ratio", "train"], ["xc"], name="drop"),
             "training_mode is not a constant false")]:
        graph = [node] + nodes[3:]
        graph[0:0] = nodes[:2]
        bad(onnx_model(tmp_path / "bad.onnx", graph, dict(inits, ratio=np.array(0.5, np.float32),
                                                           train=np.array(True))), fragment)
    wrong = dict(inits, shape=np.array([-1, 2], np.int64))
    bad(onnx_model(tmp_path / "w.onnx", nodes, wrong), "Reshape node 'reshape' reshapes to width 2")
    bad(onnx_model(tmp_path / "s.onnx", [helper.make_node("Constant", [], ["W1c"], name="cs",
                                                          value_string=b"x")] + nodes[1:], inits),
        "a Constant with 'value_string' is not a numeric tensor")


def test_onnx_two_outputs_and_output_activations(tmp_path):
    nodes = [gemm("x", "W1", "b1", "z", "fc1"), helper.make_node("Softmax", ["z"], ["y"], name="sm")]
    bad(onnx_model(tmp_path / "sm.onnx", nodes, INITS), "the output passes through Softmax node 'sm'",
        "export the model without its Softmax", exc=UnsupportedOperator)
    nodes = [gemm("x", "W1", "b1", "z", "fc1"), helper.make_node("Sigmoid", ["z"], ["y"], name="sg")]
    bad(onnx_model(tmp_path / "sg.onnx", nodes, INITS), "the output passes through Sigmoid node 'sg'")
    two = onnx_model(tmp_path / "two.onnx", [gemm("x", "W1", "b1", "y", "fc1"),
                                             helper.make_node("Relu", ["y"], ["y2"], name="r")], INITS,
                     outputs=("y", "y2"))
    bad(two, "the graph has 2 outputs, expected 1")


def test_onnx_string_initializer_and_two_inputs(tmp_path):
    path = tmp_path / "str.onnx"
    graph = helper.make_graph(
        [gemm("x", "W1", "b1", "y", "fc1")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[helper.make_tensor("W1", TensorProto.STRING, [1, 1], [b"1"]),
                     numpy_helper.from_array(np.ones(1, np.float32), "b1")])
    onnx.save(helper.make_model(graph), path)
    bad(path, "'W1' has data type STRING")
    two = onnx_model(tmp_path / "two.onnx", [gemm("x", "W1", "b1", "y", "fc1")], INITS, inputs=("x", "x2"))
    bad(two, "2 non-constant inputs")


def external_model(folder: Path, location: str, data_file: Path) -> Path:
    data_file.parent.mkdir(parents=True, exist_ok=True)
    data_file.write_bytes(W_IN.tobytes())
    tensor = numpy_helper.from_array(W_IN, "W1")
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", str(W_IN.nbytes))):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph([gemm("x", "W1", "b1", "y", "fc1")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=[tensor, numpy_helper.from_array(B_IN, "b1")])
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ext.onnx"
    path.write_bytes(helper.make_model(graph, ir_version=8).SerializeToString())
    return path


def test_onnx_external_data_inside_the_folder_is_read(tmp_path):
    path = external_model(tmp_path / "model", "weights.bin", tmp_path / "model" / "weights.bin")
    assert load(path).layers[0].weight[0] == (F32_TENTH, F(1))


@pytest.mark.parametrize("location", ["../outside.bin", "{abs}"])
def test_onnx_external_data_outside_the_folder_is_rejected(tmp_path, location):
    outside = tmp_path / "outside.bin"
    location = location.format(abs=outside)
    bad(external_model(tmp_path / "model", location, outside), "outside the model's folder")


def test_onnx_not_a_model(tmp_path):
    good = torch_like(tmp_path / "good.onnx").read_bytes()
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(good[:len(good) // 2])
    bad(truncated, "not a valid ONNX model")
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\xff" * 64)
    bad(garbage)
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    bad(empty)


# ---------------------------------------------------------------------------
# safetensors
# ---------------------------------------------------------------------------
def raw_safetensors(path: Path, entries: dict, data: bytes, metadata=None) -> Path:
    header = dict(entries)
    if metadata is not None:
        header["__metadata__"] = metadata
    blob = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(blob)) + blob + data)
    return path


def test_safetensors_state_dict_is_read_exactly(tmp_path):
    path = tmp_path / "sd.safetensors"
    save_file({"0.weight": W_IN, "0.bias": B_IN, "2.weight": W_OUT.astype(np.float16),
               "2.bias": np.array([-6], np.int32)}, str(path))
    bad(path, "holds tensors, not the function they compute", "assume='relu-mlp'")
    net = load(path, assume="relu-mlp")
    assert net.architecture == (2, 3, 1)
    assert net.layers[0].weight[0] == (F32_TENTH, F(1))
    assert net.layers[1].bias == (F(-6),)
    assert net.assumption.startswith("relu-mlp (stated by assume='relu-mlp'): Linear layers 0 → 2")


def test_safetensors_bfloat16_is_decoded_exactly(tmp_path):
    # bfloat16 0x3DCD = 0.10009765625 = 205/2048; 0xC000 = -2; 0x0001 = 2**-133 (subnormal)
    data = struct.pack("<3H", 0x3DCD, 0xC000, 0x0001) + struct.pack("<f", 0.5)
    entries = {"net.0.weight": {"dtype": "BF16", "shape": [3, 1], "data_offsets": [0, 6]},
               "net.0.bias": {"dtype": "F32", "shape": [1], "data_offsets": [6, 10]}}
    with pytest.raises(InvalidNetwork):  # shapes: bias of length 1 for 3 rows
        load(raw_safetensors(tmp_path / "mismatch.safetensors", entries, data), assume="relu-mlp")
    entries["net.0.weight"]["shape"] = [1, 3]
    net = load(raw_safetensors(tmp_path / "bf16.safetensors", entries, data), assume="relu-mlp")
    assert net.layers[0].weight == ((F(205, 2048), F(-2), F(1, 2**133)),)
    assert net.layers[0].bias == (F(1, 2),)


def test_safetensors_layers_ordered_by_integer_index(tmp_path):
    path = tmp_path / "order.safetensors"
    tensors = {f"{i}.weight": np.ones((1, 1), np.float32) * (i + 1) for i in (0, 2, 10)}
    tensors.update({f"{i}.bias": np.zeros(1, np.float32) for i in (0, 2, 10)})
    save_file(tensors, str(path))
    net = load(path, assume="relu-mlp")
    assert [L.weight[0][0] for L in net.layers] == [F(1), F(3), F(11)]  # 10 after 2
    assert "0 → 2 → 10 (ordered by the module indices)" in net.assumption


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


GOOD = {"0.weight": entry("F32", [1, 1], 0, 4), "0.bias": entry("F32", [1], 4, 8)}
EIGHT = struct.pack("<2f", 1.0, 2.0)


@pytest.mark.parametrize("entries, data, fragment", [
    ({"0.bias": entry("F32", [1], 0, 4)}, EIGHT[:4], "'0.bias' has no matching 0.weight"),
    ({**GOOD, "0.running_mean": entry("F32", [1], 8, 12)}, EIGHT + EIGHT[:4], "unexpected tensor '0.running_mean'"),
    ({"a.0.weight": entry("F32", [1, 1], 0, 4), "b.0.bias": entry("F32", [1], 4, 8)}, EIGHT,
     "'b.0.bias' has no matching b.0.weight"),
    ({"0.weight": entry("BOOL", [1, 1], 0, 1), "0.bias": entry("F32", [1], 1, 5)}, b"\x01" + EIGHT[:4],
     "dtype 'BOOL'"),
    ({"0.weight": entry("F32", [1, 2], 0, 4), "0.bias": entry("F32", [1], 4, 8)}, EIGHT,
     "do not match F32 shape [1, 2]"),
    ({"0.weight": entry("F32", [1, 1], 0, 4), "0.bias": entry("F32", [1], 8, 12)}, EIGHT * 2,
     "not contiguous"),
    (GOOD, EIGHT + b"\0", "the data buffer is 9 bytes"),
    ({"0.weight": entry("F32", [1, 1], 0, 4), "0.bias": entry("F32", [1], 4, 8)},
     struct.pack("<2f", 1.0, float("nan")), "non-finite"),
    ({"0.weight": {"dtype": "F32", "shape": [1, 1]}, "0.bias": entry("F32", [1], 4, 8)}, EIGHT,
     "malformed header entry"),
    ({"0.weight": entry("F32", [1, -1], 0, 4), "0.bias": entry("F32", [1], 4, 8)}, EIGHT,
     "malformed shape"),
    ({}, b"", "no tensors"),
])
def test_safetensors_bad_input(tmp_path, entries, data, fragment):
    bad(raw_safetensors(tmp_path / "bad.safetensors", entries, data), fragment, assume="relu-mlp")


def test_safetensors_written_by_reluid_state_their_architecture(tmp_path):
    path = tmp_path / "net.safetensors"
    save(DYADIC, path)
    blob = path.read_bytes()
    header = json.loads(blob[8:8 + struct.unpack("<Q", blob[:8])[0]])
    assert header["__metadata__"]["reluid"] == "relu-mlp" and header["__metadata__"]["reluid.layers"] == "0,2"
    assert load(path).assumption.startswith("relu-mlp (stated by the file's reluid metadata)")


def test_safetensors_statement_and_order_conflicts(tmp_path):
    data = EIGHT * 2
    entries = {"a.weight": entry("F32", [1, 1], 0, 4), "a.bias": entry("F32", [1], 4, 8),
               "b.weight": entry("F32", [1, 1], 8, 12), "b.bias": entry("F32", [1], 12, 16)}
    unknown = raw_safetensors(tmp_path / "u.safetensors", entries, data, metadata={"reluid": "gelu-mlp"})
    bad(unknown, "states the architecture 'gelu-mlp', which this version of reluid does not know",
        assume="relu-mlp")
    ordered = raw_safetensors(tmp_path / "o.safetensors", entries, data,
                              metadata={"reluid": "relu-mlp", "reluid.layers": "b,a"})
    assert [L.weight[0][0] for L in load(ordered).layers] == [F(1), F(1)]
    assert "b → a (order from the file's reluid metadata)" in load(ordered).assumption
    assert load(ordered, layers="b,a") == load(ordered)
    bad(ordered, "layers= orders the layers a, b but the file's 'reluid.layers' metadata orders them b, a",
        layers="a,b")
    bad(raw_safetensors(tmp_path / "m.safetensors", entries, data, metadata={"reluid": "relu-mlp"}),
        "do not say in which order")
    weird = {"a.b-c.weight": entry("F32", [1, 1], 0, 4), "x.bias": entry("F32", [1], 4, 8)}
    bad(raw_safetensors(tmp_path / "w.safetensors", weird, EIGHT), "unexpected tensor 'a.b-c.weight'",
        assume="relu-mlp")


def test_safetensors_transposed_weights_get_a_hint(tmp_path):
    path = tmp_path / "t.safetensors"
    save_file({"0.weight": W_IN.T.copy(), "0.bias": B_IN, "2.weight": W_OUT.T.copy(), "2.bias": B_OUT}, str(path))
    bad(path, "weights are n_out × n_in; this looks transposed", assume="relu-mlp")


def test_read_options_are_checked(tmp_path):
    with pytest.raises(InvalidArgument, match="unknown architecture 'leaky-mlp'"):
        load(EXAMPLES / "theta1.json", assume="leaky-mlp")
    with pytest.raises(InvalidArgument, match="batchnorm=: expected one of exact, float32"):
        load(EXAMPLES / "theta1.json", batchnorm="float16")
    with pytest.raises(InvalidArgument, match="layers= applies only to .safetensors files"):
        load(EXAMPLES / "theta1.json", layers="a,b")
    with pytest.raises(InvalidArgument, match="non-empty list of module names"):
        load(EXAMPLES / "theta1.json", layers="")
    # formats that state their function need no statement and ignore one
    assert load(EXAMPLES / "theta1.json", assume="relu-mlp").assumption is None


def test_safetensors_malformed_files(tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(b"\x01\x02")
    bad(path, "too short")
    path.write_bytes(struct.pack("<Q", 10**6) + b"{}")
    bad(path, "header length 1000000 does not fit")
    path.write_bytes(struct.pack("<Q", 5) + b"{oops")
    bad(path, "malformed safetensors header")
    path.write_bytes(struct.pack("<Q", 2) + b"[]")
    bad(path, "not a JSON object")
    raw_safetensors(path, GOOD, EIGHT, metadata={"a": 1})
    bad(path, "'__metadata__' must map strings to strings")
    good = tmp_path / "good.safetensors"
    save(DYADIC, good)
    path.write_bytes(good.read_bytes()[:-3])
    bad(path)


# ---------------------------------------------------------------------------
# files in general
# ---------------------------------------------------------------------------
def test_missing_file_unknown_suffix_and_directory(tmp_path):
    bad(tmp_path / "nowhere.json", "no such file")
    other = tmp_path / "net.pt"
    other.write_bytes(b"\x80\x04")  # a pickle: never opened
    bad(other, ".pt files are pickles", "never unpickles", "reluid.from_torch")
    bad(tmp_path / "other.xyz", "unknown file type '.xyz'")
    folder = tmp_path / "folder.onnx"
    folder.mkdir()
    bad(folder, "is a directory")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.json"
        os.mkfifo(fifo)
        bad(fifo, "is not a regular file")


@pytest.mark.parametrize("suffix", [".json", ".npz", ".onnx", ".safetensors"])
def test_size_caps(tmp_path, monkeypatch, suffix):
    path = tmp_path / f"net{suffix}"
    save(DYADIC, path)
    monkeypatch.setattr(loader, "MAX_PARAMS", DYADIC.n_params - 1)
    bad(path, f"the network has {DYADIC.n_params} parameters, more than the limit of {DYADIC.n_params - 1}")
    monkeypatch.setattr(loader, "MAX_PARAMS", 10**9)
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 100)
    bad(path, "larger than the 100-byte limit")


def test_suffix_is_case_insensitive(tmp_path):
    path = tmp_path / "NET.JSON"
    save(DYADIC, path)
    assert load(path) == DYADIC


def test_importing_reluid_io_does_not_import_onnx():
    code = "import sys, reluid.io; assert 'onnx' not in sys.modules and 'safetensors' not in sys.modules"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)


def _mutations(data: bytes):
    """Byte-level corruptions: truncation, overwrite, insertion."""
    n = len(data)
    return st.one_of(
        st.integers(0, n - 1).map(lambda i: data[:i]),
        st.tuples(st.integers(0, n - 1), st.integers(0, 255)).map(
            lambda t: data[:t[0]] + bytes([t[1]]) + data[t[0] + 1:]),
        st.tuples(st.integers(0, n), st.binary(min_size=1, max_size=8)).map(
            lambda t: data[:t[0]] + t[1] + data[t[0]:]),
    )


@pytest.mark.parametrize("suffix", [".json", ".npz", ".onnx", ".safetensors"])
def test_corrupted_files_only_raise_invalid_network(tmp_path, suffix):
    original = tmp_path / f"orig{suffix}"
    save(DYADIC, original)
    target = tmp_path / f"corrupt{suffix}"

    @settings(max_examples=150, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(_mutations(original.read_bytes()))
    def check(corrupted):
        target.write_bytes(corrupted)
        try:
            net = load(target)
        except InvalidNetwork as err:
            message = str(err)
            assert "\n" not in message and target.name in message
        else:
            assert isinstance(net, Network)

    check()


# ---------------------------------------------------------------------------
# bundled examples
# ---------------------------------------------------------------------------
def test_bundled_theta_examples():
    t1, t2 = load(EXAMPLES / "theta1.json"), load(EXAMPLES / "theta2.json")
    assert t1.shallow().A == ((1, 1), (-1, 0), (0, -1)) and t1.shallow().b == (-2, -1, -1)
    assert t1.shallow().M == ((1, 1, 1),) and t1.shallow().c == (-6,)
    assert t2.shallow().A == ((-1, -1), (1, 0), (0, 1)) and t2.shallow().c == (-10,)
    assert "Ramakrishnan 2026, §1, θ1" in t1.description
    grid = [F(p, 2) for p in range(-9, 10)]
    assert all(t1([x, y]) == t2([x, y]) for x in grid for y in grid)


def test_bundled_generic_example_has_no_flip_set():
    theta = load(EXAMPLES / "generic_2_4_1.json").shallow()
    assert (theta.m, theta.n, theta.k) == (2, 4, 1)
    for size in range(1, theta.n + 1):
        for subset in itertools.combinations(range(theta.n), size):
            total = [sum(theta.M[0][i] * theta.A[i][j] for i in subset) for j in range(theta.m)]
            assert total != [0, 0], subset


def test_bundled_small_examples():
    relu_abs = load(EXAMPLES / "relu_abs.json")
    assert [relu_abs([x])[0] for x in (-3, 0, 2)] == [3, 0, 2]
    kinks = load(EXAMPLES / "sum_two_kinks.json")
    assert [kinks([x])[0] for x in (-2, F(-1, 2), 1)] == [0, F(1, 2), 3]


def test_bundled_float32_examples_agree_exactly():
    nets = [load(EXAMPLES / name) for name in
            ("mnist_like_16_8_3.npz", "small_16_8_3.onnx", "small_16_8_3.safetensors")]
    assert nets[0] == nets[1] == nets[2]
    assert nets[0].architecture == (16, 8, 3)
    with np.load(EXAMPLES / "mnist_like_16_8_3.npz", allow_pickle=False) as z:
        W1 = z["W1"]
    assert W1.dtype == np.float32
    assert nets[0].layers[0].weight[3][5] == F(float(W1[3, 5]))
    assert all(q.denominator & (q.denominator - 1) == 0 for row in nets[0].layers[0].weight for q in row)


@pytest.mark.parametrize("suffix, dependency", [(".onnx", "onnx"), (".safetensors", "safetensors")])
def test_missing_optional_dependency_is_reported(tmp_path, monkeypatch, suffix, dependency):
    path = tmp_path / f"net{suffix}"
    save(DYADIC, path)
    module = loader.SUFFIXES[suffix][0]
    monkeypatch.delitem(sys.modules, module)
    for name in [m for m in sys.modules if m == dependency or m.startswith(dependency + ".")]:
        monkeypatch.setitem(sys.modules, name, None)  # makes `import dependency...` fail
    monkeypatch.setitem(sys.modules, dependency, None)
    bad(path, f"optional dependency {dependency}", f"reluid[{dependency}]")
    with pytest.raises(InvalidArgument, match=f"optional dependency {dependency}"):
        save(DYADIC, tmp_path / f"other{suffix}")


def test_nearest_float32_sqrt_is_correctly_rounded():
    from reluid.io.chain import assemble, Affine, BatchNorm, nearest_float32_sqrt
    from reluid.io.loader import ArrayLayer, ReadOptions

    rng = np.random.default_rng(7)
    x = np.abs(rng.standard_normal(3000) * np.exp(rng.uniform(-40, 40, 3000))).astype(np.float32)
    x = np.concatenate([x, np.array([0, 1, 2, 4, 0.25, np.finfo(np.float32).max], np.float32)])
    for v in x:  # float32 sqrt of a float32 is correctly rounded (IEEE 754)
        assert nearest_float32_sqrt(F(float(v))) == F(float(np.sqrt(v))), v
    assert nearest_float32_sqrt(F(1, 2**300)) == 0               # 2**-150: a tie, to even (zero)
    assert nearest_float32_sqrt(F(1, 2**298)) == F(1, 2**149)    # the smallest subnormal
    assert nearest_float32_sqrt(F(9, 4)) == F(3, 2)
    with pytest.raises(OverflowError):
        nearest_float32_sqrt(F(2**256))
    bn = BatchNorm("bn", np.array([3e38], np.float32), np.zeros(1), np.zeros(1), np.array([1e-30], np.float32), F(0))
    fc = Affine(ArrayLayer(np.ones((1, 1)), np.zeros(1), "W", "b"), "fc")
    with pytest.raises(InvalidNetwork, match="beyond the float32 range"):
        assemble([fc, bn], ReadOptions(batchnorm="float32"))


@pytest.mark.parametrize("suffix", [".json", ".onnx", ".safetensors"])
def test_assumption_travels_with_the_network(tmp_path, suffix):
    from dataclasses import replace

    stated = replace(DYADIC, assumption="relu-mlp (stated by --assume relu-mlp): Linear layers 0 → 2 (...)")
    path = tmp_path / f"net{suffix}"
    save(stated, path)
    back = load(path)
    assert back == stated and back.assumption.startswith(stated.assumption)
    if suffix == ".safetensors":  # plus reluid's own statement in the file it wrote
        assert back.assumption.endswith("(stated by the file's reluid metadata): Linear layers 0 → 2 (order from "
                                        "the file's reluid metadata), ReLU between consecutive layers, none after "
                                        "the last")
    else:
        assert back.assumption == stated.assumption
    with pytest.raises(InvalidNetwork, match="that .npz cannot record"):
        save(stated, tmp_path / "net.npz")
    assert not (tmp_path / "net.npz").exists()
    with pytest.raises(InvalidNetwork, match="'assumption' must be a string"):
        parse_network(doc([{"weight": [[1]], "bias": [0]}], assumption=1))
