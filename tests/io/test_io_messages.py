"""Clear refusals and warnings at the edge: empty and convolutional ONNX, Pipelines, stated architectures."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

import reluid
from reluid.cli.main import main
from reluid.errors import InvalidNetwork, UnsupportedOperator

onnx = pytest.importorskip("onnx")
pytest.importorskip("safetensors")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from safetensors.numpy import save_file  # noqa: E402


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def refused(*argv) -> str:
    code, out, err = run(*argv)
    assert code == 4 and err.count("\n") == 1 and "Traceback" not in err, (code, out, err)
    return err


def test_an_empty_onnx_file_says_it_is_empty(tmp_path):
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    err = refused("certify", empty)
    assert "the file is empty (0 bytes)" in err and "non-constant inputs" not in err
    bare = tmp_path / "bare.onnx"
    bare.write_bytes(onnx.ModelProto(ir_version=8).SerializeToString())
    err = refused("certify", bare)
    assert "the ONNX model is empty" in err and "non-constant inputs" not in err


def _conv_model(path):
    """Reshape (first), Conv, Relu, Flatten, Gemm: what an exported small CNN looks like."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape0"),
             helper.make_node("Conv", ["r", "K"], ["c"], name="conv1"),
             helper.make_node("Relu", ["c"], ["h"]), helper.make_node("Flatten", ["h"], ["f"]),
             helper.make_node("Gemm", ["f", "W", "b"], ["y"], transB=1)]
    inits = [numpy_helper.from_array(np.array([-1, 1, 3, 3], dtype=np.int64), "shape"),
             numpy_helper.from_array(np.ones((2, 1, 2, 2), np.float32), "K"),
             numpy_helper.from_array(np.ones((3, 8), np.float32), "W"),
             numpy_helper.from_array(np.zeros(3, np.float32), "b")]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 9])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])], initializer=inits)
    path.write_bytes(helper.make_model(graph).SerializeToString())


def test_a_convolutional_onnx_is_refused_naming_conv(tmp_path):
    path = tmp_path / "cnn.onnx"
    _conv_model(path)
    with pytest.raises(UnsupportedOperator, match="Conv node 'conv1' is a convolution"):
        reluid.load(path)
    err = refused("certify", path)
    assert "Conv" in err and "Reshape" not in err


class Pipeline:                      # the shape of sklearn.pipeline.Pipeline, without needing scikit-learn
    def __init__(self, steps):
        self.steps = steps


def test_a_pipeline_is_refused_with_the_hint_to_pass_its_last_step():
    with pytest.raises(InvalidNetwork, match=r"Pipeline \(scaler → mlp\).*pass its last step \(pipeline\[-1\]\)"):
        reluid.from_sklearn(Pipeline([("scaler", object()), ("mlp", object())]))


def test_a_real_pipeline_is_refused_too():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.neural_network import MLPRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    pipe = make_pipeline(StandardScaler(), MLPRegressor(hidden_layer_sizes=(3,), max_iter=5))
    with pytest.raises(InvalidNetwork, match="pass its last step"):
        reluid.from_sklearn(pipe)
    assert sklearn


def _state(path, names):
    rng = np.random.default_rng(0)
    tensors, widths = {}, [3, 4, 4, 2]
    for name, (n_in, n_out) in zip(names, zip(widths, widths[1:])):
        tensors[f"{name}.weight"] = rng.standard_normal((n_out, n_in)).astype(np.float32)
        tensors[f"{name}.bias"] = rng.standard_normal(n_out).astype(np.float32)
    save_file(tensors, str(path))


@pytest.mark.parametrize("names, what", [
    (("leaky_mlp.0", "leaky_mlp.2", "leaky_mlp.4"), "an activation other than ReLU"),
    (("res1", "res2", "res3"), "a residual (skip) connection"),
    (("net.0", "net.2", "softmax_head"), "a softmax after a layer"),
])
def test_assume_relu_mlp_warns_when_the_names_suggest_another_function(tmp_path, names, what, capsys):
    path = tmp_path / "model.safetensors"
    _state(path, names)
    layers = ",".join(names)
    with pytest.warns(UserWarning, match="certificate is of the stated function"):
        net = reluid.load(path, assume="relu-mlp", layers=layers)
    assert what in net.assumption and net.architecture == (3, 4, 4, 2)
    code, out, err = run("equiv", path, path, "--assume", "relu-mlp", "--layers", layers)
    assert code == 0
    lines = [l for l in err.splitlines() if "warning" in l]
    assert len(lines) == 2 and what in lines[0] and "the stated function" in lines[0]


def test_plain_names_do_not_warn(tmp_path):
    path = tmp_path / "plain.safetensors"
    _state(path, ("0", "2", "4"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net = reluid.load(path, assume="relu-mlp")
    assert "suggests" not in net.assumption


def test_a_cnn_exported_by_torch_is_refused_naming_conv():
    from tests.paths import ROOT
    path = ROOT / "tests" / "fixtures" / "trained" / "torch_digits_cnn.onnx"
    err = refused("certify", path)
    assert "Conv node '/1/Conv' is a convolution" in err and "Reshape" not in err and "Mod" not in err
