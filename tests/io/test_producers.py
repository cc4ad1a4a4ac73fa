"""Files written by real producers (PyTorch, scikit-learn, skl2onnx) and the in-memory adapters.

The fixtures in ``tests/fixtures/producers/`` were written by
``tests/fixtures/make_fixtures.py`` (its docstring gives the command and the
versions), together with the producers' own outputs at exact inputs in
``expected.json``.  Tests of the committed files run everywhere; tests that
need torch or scikit-learn import them with ``pytest.importorskip``.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import reluid
from reluid.certificates.schema import from_json, read_certificate
from reluid.cli.main import main
from reluid.errors import InvalidArgument, InvalidNetwork, UnsupportedOperator
from reluid.io import load
from reluid.io.chain import nearest_float32_sqrt
from reluid.model.network import Network
from reluid.report.certificate import generate_html, generate_markdown, generate_text
from tests.paths import ROOT

FIX = ROOT / "tests" / "fixtures" / "producers"
EXPECTED = json.loads((FIX / "expected.json").read_text(encoding="utf-8"))
F = Fraction


def fixture(name: str) -> str:
    return str(FIX / name)


def make_fixtures():
    spec = importlib.util.spec_from_file_location("make_fixtures", ROOT / "tests" / "fixtures" / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def refused(*argv, fragments=()) -> str:
    """``reluid ARGV`` exits 4 with one line on stderr, no traceback, containing every fragment."""
    code, out, err = run(*argv)
    assert code == 4, (code, out, err)
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err and "internal error" not in err, err
    for fragment in fragments:
        assert fragment in err, err
    return err


def max_error(net: Network, key: str, outputs: str = "outputs") -> float:
    """Largest |net(x) − producer(x)| / (1 + |producer(x)|) over the recorded inputs."""
    entry = EXPECTED[key]
    worst = 0.0
    for x, y in zip(entry["inputs"], entry[outputs]):
        got = net([F(v) for v in x])
        ref = [float.fromhex(h) for h in y]
        assert len(got) == len(ref)
        worst = max(worst, max(abs(float(g) - r) / (1 + abs(r)) for g, r in zip(got, ref)))
    return worst


def softmax(z):
    m = max(z)
    e = [math.exp(v - m) for v in z]
    return [v / sum(e) for v in e]


# ---------------------------------------------------------------------------
# ONNX exports of torch models
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["plain", "bias_false", "batchnorm_exact", "dropout", "flatten", "named",
                                     "numbered", "prefixed"])
def test_torch_onnx_exports_compute_what_torch_computes(variant):
    net = load(fixture(f"torch_{variant}.onnx"))
    # the exact network versus torch's float64 evaluation of the same float32 weights
    assert max_error(net, f"torch_{variant}") < 1e-14
    if variant == "batchnorm_exact":  # eps = 0 and perfect-square variances: folded with no rounding at all
        assert "BatchNormalization node '/1/BatchNormalization' folded into Gemm node '/0/Gemm' exactly" \
            in net.assumption
    else:
        assert net.assumption is None
    if variant == "flatten":
        assert net.input_dim == 6


def test_torch_onnx_batchnorm_with_irrational_scale_needs_the_float32_statement(tmp_path):
    path = fixture("torch_batchnorm.onnx")
    with pytest.raises(InvalidNetwork, match=r"√\(σ² \+ ε\) is irrational at feature 0 .* batchnorm='float32'"):
        load(path)
    refused("certify", path, fragments=["is irrational", "--batchnorm float32", "torch_batchnorm.onnx"])
    net = load(path, batchnorm="float32")
    assert "with the scale γ/√(σ²+ε) correctly rounded to float32 (stated by batchnorm='float32')" in net.assumption
    assert max_error(net, "torch_batchnorm") < 1e-6       # the rounding of the scale, nothing more
    cert_path = tmp_path / "bn.cert.json"
    code, out, err = run("certify", path, "--batchnorm", "float32", "-o", cert_path)
    assert code in (0, 1, 3), err
    assert "Assumption (not checkable" in out and "(stated by --batchnorm float32)" in out
    assert "rounded to float32" in read_certificate(cert_path).assumption


def test_batchnorm_fold_uses_the_correctly_rounded_float32_scale():
    import onnx
    from onnx import numpy_helper

    model = onnx.load(fixture("torch_batchnorm.onnx"))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    node = next(n for n in model.graph.node if n.op_type == "BatchNormalization")
    gamma, beta, mean, var = (init[name] for name in node.input[1:])
    eps = F(next(a.f for a in node.attribute if a.name == "epsilon"))
    W = init[next(n for n in model.graph.node if n.name == "/3/Gemm").input[1]]
    net = load(fixture("torch_batchnorm.onnx"), batchnorm="float32")
    for j in range(4):  # BN sits after the ReLU: it scales column j of the next layer
        s = nearest_float32_sqrt(F(float(gamma[j])) ** 2 / (F(float(var[j])) + eps)) * (1 if gamma[j] > 0 else -1)
        assert float(s) == float(np.float32(np.float64(gamma[j]) / np.sqrt(np.float64(var[j]) + float(eps))))
        assert net.layers[1].weight[0][j] == F(float(W[0, j])) * s


@pytest.mark.parametrize("variant, fragment", [
    ("final_relu", "the output passes through Relu node '/3/Relu' (the last operation)"),
    ("softmax", "the output passes through Softmax node '/3/Softmax' (the last operation)"),
    ("leaky_relu", "unsupported operator LeakyRelu (LeakyRelu node '/1/LeakyRelu')"),
])
def test_torch_onnx_exports_outside_relu_networks_are_refused_by_name(variant, fragment):
    path = fixture(f"torch_{variant}.onnx")
    with pytest.raises(InvalidNetwork, match=None) as info:
        load(path)
    assert fragment in str(info.value)
    refused("certify", path, fragments=[fragment])


# ---------------------------------------------------------------------------
# safetensors state dicts
# ---------------------------------------------------------------------------
STATE_DICTS = ["plain", "bias_false", "dropout", "flatten", "final_relu", "softmax", "leaky_relu", "named",
               "numbered", "prefixed"]


@pytest.mark.parametrize("variant", STATE_DICTS)
def test_safetensors_without_a_statement_are_refused(variant):
    path = fixture(f"torch_{variant}.safetensors")
    refused("certify", path, fragments=["holds tensors, not the function they compute",
                                        "state it with --assume relu-mlp"])
    with pytest.raises(InvalidNetwork, match="state it with assume='relu-mlp'"):
        load(path)


@pytest.mark.parametrize("variant", ["plain", "bias_false", "dropout", "flatten", "numbered", "prefixed"])
def test_safetensors_with_a_statement_equal_the_onnx_export(variant):
    net = load(fixture(f"torch_{variant}.safetensors"), assume="relu-mlp")
    assert net == load(fixture(f"torch_{variant}.onnx"))
    assert net.assumption.startswith("relu-mlp (stated by assume='relu-mlp'): Linear layers ")
    assert max_error(net, f"torch_{variant}") < 1e-14


def test_safetensors_layouts_and_their_recorded_order():
    order = {v: load(fixture(f"torch_{v}.safetensors"), assume="relu-mlp").assumption
             for v in ("plain", "numbered", "prefixed", "bias_false")}
    assert "0 → 2 → 4 (ordered by the module indices)" in order["plain"]
    assert "fc1 → fc2 → fc3 (ordered by the numbers in the module names)" in order["numbered"]
    assert "model.net.0 → model.net.2 (ordered by the module indices)" in order["prefixed"]
    # bias=False: the biases are absent from the state dict and read as zero
    net = load(fixture("torch_bias_false.safetensors"), assume="relu-mlp")
    assert all(b == 0 for L in net.layers for b in L.bias)


def test_safetensors_with_reluid_metadata_need_no_statement():
    net = load(fixture("torch_plain_reluid.safetensors"))
    assert net == load(fixture("torch_plain.onnx"))
    assert net.assumption == ("relu-mlp (stated by the file's reluid metadata): Linear layers 0 → 2 → 4 (order from "
                              "the file's reluid metadata), ReLU between consecutive layers, none after the last")


def test_safetensors_with_ambiguous_names_need_the_layer_order(tmp_path):
    path = fixture("torch_named.safetensors")
    refused("certify", path, "--assume", "relu-mlp",
            fragments=["module names (fc1, fc2, out) do not say in which order", "pass --layers"])
    net = load(path, assume="relu-mlp", layers="fc1,fc2,out")
    assert net == load(fixture("torch_named.onnx"))
    assert "Linear layers fc1 → fc2 → out (order from layers=)" in net.assumption
    assert net.layers[2].bias == (0, 0)  # out has bias=False
    assert load(path, assume="relu-mlp", layers=["fc1", "fc2", "out"]) == net
    for layers, fragment in [("fc1,out", "does not name module(s) 'fc2'"),
                             ("fc1,fc2,fc2,out", "names 'fc2' twice"),
                             ("fc1,fc2,head", "names 'head', which is not a module")]:
        refused("certify", path, "--assume", "relu-mlp", "--layers", layers, fragments=[fragment])
    # a wrong order is the user's statement, but shapes that do not chain still refuse it
    refused("certify", path, "--assume", "relu-mlp", "--layers", "fc2,fc1,out", fragments=["columns"])
    code, out, err = run("certify", path, "--assume", "relu-mlp", "--layers", "fc1,fc2,out",
                         "-o", tmp_path / "c.json")
    assert code in (0, 1, 3), err
    assert "order from --layers" in read_certificate(tmp_path / "c.json").assumption


def test_leaky_relu_state_dict_is_certified_only_under_the_stated_assumption(tmp_path):
    path = fixture("torch_leaky_relu.safetensors")
    refused("certify", path, fragments=["holds tensors, not the function they compute"])
    cert_path = tmp_path / "leaky.cert.json"
    code, out, err = run("certify", path, "--assume", "relu-mlp", "-o", cert_path)
    assert code in (0, 1, 3), err
    out = " ".join(out.split())   # the text report wraps long lines
    stated = ("relu-mlp (stated by --assume relu-mlp): Linear layers 0 → 2 (ordered by the module indices), "
              "ReLU between consecutive layers, none after the last")
    assert f"Assumption (not checkable; the verdict is about the network read under it): {stated}" in out
    doc = json.loads(cert_path.read_text(encoding="utf-8"))
    assert doc["network"]["assumption"] == stated
    cert = read_certificate(cert_path)
    assert cert.assumption == stated
    for render in (generate_text, generate_markdown, generate_html):
        text = " ".join(render(cert).split())
        assert "Assumption" in text and "stated by --assume relu-mlp" in text
    code, out, err = run("check", cert_path)
    assert code == 0 and f"assumption (recorded, not checkable): {stated}" in out
    code, out, err = run("certify", path, "--assume", "relu-mlp", "--format", "junit")
    assert "[assumption: relu-mlp (stated by --assume relu-mlp)" in out
    # the stated function is not the model's: LeakyReLU and ReLU differ on negative pre-activations
    net = load(path, assume="relu-mlp")
    assert max_error(net, "torch_leaky_relu") > 1e-3


def test_batchnorm_state_dict_is_refused_by_tensor_name():
    refused("certify", fixture("torch_batchnorm.safetensors"), "--assume", "relu-mlp",
            fragments=["unexpected tensor '2.num_batches_tracked'", "export ONNX or use reluid.from_torch"])


def test_assumption_round_trips_and_is_not_hashed(tmp_path):
    net = load(fixture("torch_plain.safetensors"), assume="relu-mlp")
    same = load(fixture("torch_plain.onnx"))
    assert net.assumption and same.assumption is None
    assert net.sha256() == same.sha256()  # the hash names the parameters only
    cert = reluid.certify(net, timeout=20)
    assert cert.assumption == net.assumption
    again = from_json(reluid.certificates.schema.to_json(cert))
    assert again.assumption == net.assumption and reluid.check(again).valid
    bad = json.loads(reluid.certificates.schema.to_json(cert))
    bad["network"]["assumption"] = 3
    with pytest.raises(reluid.certificates.schema.CertificateError, match="assumption must be a non-empty string"):
        from_json(json.dumps(bad))


# ---------------------------------------------------------------------------
# scikit-learn
# ---------------------------------------------------------------------------
def test_sklearn_fixtures_compute_what_sklearn_computes():
    clf = load(fixture("sklearn_mlp_classifier.npz"))
    reg = load(fixture("sklearn_mlp_regressor.npz"))
    assert clf.architecture == (3, 5, 3) and reg.architecture == (3, 4, 3, 1)
    assert max_error(clf, "sklearn_mlp_classifier", "logits") < 1e-14
    assert max_error(reg, "sklearn_mlp_regressor", "predict") < 1e-14
    entry = EXPECTED["sklearn_mlp_classifier"]
    for x, p in zip(entry["inputs"], entry["predict_proba"]):
        probabilities = softmax([float(v) for v in clf([F(v) for v in x])])
        assert max(abs(a - float.fromhex(b)) for a, b in zip(probabilities, p)) < 1e-14


def test_skl2onnx_classifier_gets_a_clear_message():
    refused("certify", fixture("sklearn_mlp_classifier.onnx"),
            fragments=["scikit-learn model exported by skl2onnx", "'output_label', 'output_probability'",
                       "reluid.from_sklearn(estimator)", "export the logits"])


def test_skl2onnx_regressor_is_the_float32_rounding_of_the_fitted_network():
    onnx_net = load(fixture("sklearn_mlp_regressor.onnx"))  # Cast (same type) and Reshape [-1, 1] are no-ops
    fitted = load(fixture("sklearn_mlp_regressor.npz"))
    f32 = lambda q: F(float(np.float32(float(q))))  # noqa: E731
    assert onnx_net == Network.from_lists(
        [([[f32(w) for w in row] for row in L.weight], [f32(b) for b in L.bias]) for L in fitted.layers])


def test_npz_in_sklearn_orientation_gets_the_transposition_hint(tmp_path):
    with np.load(fixture("sklearn_mlp_regressor.npz")) as z:
        arrays = {k: (z[k].T if k.startswith("W") else z[k]) for k in z.files}
    np.savez(tmp_path / "coefs.npz", **arrays)
    refused("certify", tmp_path / "coefs.npz", fragments=["weights are n_out × n_in; this looks transposed"])


def test_pickles_are_refused_with_the_safe_alternatives(tmp_path):
    marker = tmp_path / "unpickled"
    for suffix in (".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".joblib"):
        path = tmp_path / f"model{suffix}"
        path.write_bytes(b"\x80\x04")  # never opened
        refused("certify", path, fragments=[f"{suffix} files are pickles", "never unpickles", ".safetensors",
                                            "export ONNX", "reluid.from_torch", "reluid.from_sklearn"])
    assert not marker.exists()


def test_refusals_leave_no_traceback_in_a_real_process():
    proc = subprocess.run([sys.executable, "-m", "reluid", "certify", fixture("torch_leaky_relu.safetensors")],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 4
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "--assume relu-mlp" in proc.stderr


def test_importing_reluid_imports_neither_torch_nor_sklearn():
    code = ("import sys, reluid; reluid.from_torch; reluid.from_sklearn; "
            "net = reluid.load('examples/networks/relu_abs.json'); reluid.certify(net); "
            "assert 'torch' not in sys.modules and 'sklearn' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


# ---------------------------------------------------------------------------
# reluid.from_torch (needs torch)
# ---------------------------------------------------------------------------
def torch_model(variant: str):
    """The fixture's torch model with the committed weights."""
    pytest.importorskip("torch")
    safetensors_torch = pytest.importorskip("safetensors.torch")
    model = make_fixtures().build(variant)
    model.load_state_dict(safetensors_torch.load_file(fixture(f"torch_{variant}.safetensors")))
    return model


@pytest.mark.parametrize("variant", ["plain", "bias_false", "batchnorm_exact", "dropout", "flatten", "named",
                                     "numbered", "prefixed"])
def test_from_torch_equals_the_onnx_export(variant):
    model = torch_model(variant)
    net = reluid.from_torch(model, input_shape=tuple(EXPECTED[f"torch_{variant}"]["input_shape"]))
    assert net == load(fixture(f"torch_{variant}.onnx"))
    assert max_error(net, f"torch_{variant}") < 1e-14
    assert net.name == type(model).__name__


def test_from_torch_batchnorm_follows_the_same_fold_rule():
    model = torch_model("batchnorm")
    with pytest.raises(InvalidNetwork, match=r"module 2 \(BatchNorm1d\): √\(σ² \+ ε\) is irrational"):
        reluid.from_torch(model)
    net = reluid.from_torch(model, batchnorm="float32")
    assert "module 2 (BatchNorm1d) folded into module 3 (Linear) with the scale γ/√(σ²+ε) correctly rounded" \
        in net.assumption
    assert max_error(net, "torch_batchnorm") < 1e-6
    exact = reluid.from_torch(torch_model("batchnorm_exact"))
    assert "module 1 (BatchNorm1d) folded into module 0 (Linear) exactly" in exact.assumption


def test_from_torch_refuses_by_name_and_position():
    torch = pytest.importorskip("torch")
    nn = torch.nn
    F_ = torch.nn.functional

    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(2, 2), nn.Linear(2, 1)

        def forward(self, x):
            return self.fc2(F_.relu(self.fc1(x)) + x)

    class Gelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(2, 2), nn.Linear(2, 1)

        def forward(self, x):
            return self.fc2(F_.gelu(self.fc1(x)))

    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 1)

        def forward(self, x):
            if x.sum() > 0:
                return self.fc(x)
            return -self.fc(x)

    cases = [
        (torch_model("final_relu"), InvalidNetwork, "the output passes through module 3 (ReLU) (the last operation)"),
        (torch_model("softmax"), UnsupportedOperator, "module 3 (Softmax) is the last operation"),
        (nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.LogSoftmax(dim=1)), UnsupportedOperator,
         "module 3 (LogSoftmax) is the last operation"),
        (nn.Sequential(nn.Linear(2, 1), nn.Sigmoid()), UnsupportedOperator, "module 1 (Sigmoid) is the last"),
        (torch_model("leaky_relu"), UnsupportedOperator, "module 1 (LeakyReLU) is not supported"),
        (nn.Sequential(nn.Linear(2, 2), nn.GELU(), nn.Linear(2, 1)), UnsupportedOperator,
         "module 1 (GELU) is not supported"),
        (nn.Sequential(nn.Conv1d(1, 1, 1)), UnsupportedOperator, "module 0 (Conv1d) is not supported"),
        (nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Dropout(0.2), nn.Linear(2, 1)), InvalidNetwork,
         "module 2 (Dropout) is in training mode, where Dropout is random"),
        (nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.Linear(2, 1)), InvalidNetwork,
         "module 1 (BatchNorm1d) is in training mode"),
        (nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2, track_running_stats=False), nn.ReLU(),
                       nn.Linear(2, 1)).eval(), InvalidNetwork, "track_running_stats=False"),
        (nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1)), InvalidNetwork,
         "module 1 (Linear) follows module 0 (Linear) without a ReLU"),
        (nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.BatchNorm1d(2), nn.ReLU(), nn.Linear(2, 1)).eval(),
         InvalidNetwork, "module 2 (BatchNorm1d) has no affine layer next to it"),
        (nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Flatten(0), nn.Linear(2, 1)), UnsupportedOperator,
         "module 2 (Flatten) has start_dim=0"),
        (Residual(), UnsupportedOperator, "the Residual module, operation 2 (add) does not continue a plain chain"),
        (Gelu(), UnsupportedOperator, "the Gelu module, operation 1 (gelu): gelu is not supported"),
        (Branchy(), InvalidNetwork, "cannot trace the Branchy module with torch.fx"),
        (nn.Sequential(nn.ReLU()), InvalidNetwork, "module 0 (ReLU) does not follow an affine layer"),
    ]
    for module, exc, fragment in cases:
        with pytest.raises(InvalidNetwork) as info:
            reluid.from_torch(module)
        assert isinstance(info.value, exc), (fragment, repr(info.value))
        assert fragment in str(info.value) and "\n" not in str(info.value), str(info.value)
    with pytest.raises(InvalidArgument, match="expects a torch.nn.Module"):
        reluid.from_torch("model")
    with pytest.raises(InvalidNetwork, match=r"input_shape \(2, 3\) does not match .* add nn.Flatten\(\) first"):
        reluid.from_torch(torch_model("plain"), input_shape=(2, 3))
    with pytest.raises(InvalidNetwork, match=r"input_shape \(7,\) flattens to 7 features"):
        reluid.from_torch(torch_model("flatten"), input_shape=(7,))


def test_from_torch_reads_every_float_dtype_exactly():
    torch = pytest.importorskip("torch")
    nn = torch.nn
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        model = nn.Sequential(nn.Linear(2, 3, bias=False), nn.ReLU(), nn.Linear(3, 1)).to(dtype).eval()
        net = reluid.from_torch(model)
        W = model[0].weight.detach().to(torch.float64).numpy()  # exact widening
        assert net.layers[0].weight == tuple(tuple(F(float(v)) for v in row) for row in W)
        assert net.layers[0].bias == (0, 0, 0)
        assert net.layers[1].bias == (F(float(model[2].bias.detach().to(torch.float64)[0])),)


def test_certify_accepts_a_torch_module():
    model = torch_model("plain")
    cert = reluid.certify(model, timeout=20)
    assert cert.network == load(fixture("torch_plain.onnx"))
    assert reluid.check(cert).valid
    with pytest.raises(InvalidNetwork, match="module 3 \\(Softmax\\)"):
        reluid.certify(torch_model("softmax"))


# ---------------------------------------------------------------------------
# reluid.from_sklearn (needs scikit-learn)
# ---------------------------------------------------------------------------
def test_from_sklearn_matches_the_estimator():
    pytest.importorskip("sklearn")
    clf, reg = make_fixtures().sklearn_estimators()
    xs = [[F(v) for v in x] for x in EXPECTED["sklearn_mlp_classifier"]["inputs"]]
    X = np.array([[float(v) for v in x] for x in xs])
    net = reluid.from_sklearn(clf)
    assert net.layers[0].weight == tuple(tuple(F(float(v)) for v in row) for row in clf.coefs_[0].T)
    assert net.assumption == ("the logits of a scikit-learn MLPClassifier: its output softmax (applied by "
                              "predict_proba) is not part of the certified function")
    for x, p in zip(xs, clf.predict_proba(X)):
        assert max(abs(a - b) for a, b in zip(softmax([float(v) for v in net(x)]), p)) < 1e-12
    rnet = reluid.from_sklearn(reg)
    assert rnet.assumption is None
    for x, y in zip(xs, reg.predict(X)):
        assert abs(float(rnet(x)[0]) - y) < 1e-12
    cert = reluid.certify(clf, timeout=20)
    assert cert.assumption == net.assumption and "logits" in generate_text(cert)


def test_from_sklearn_equals_the_committed_fixture_when_the_fit_is_reproduced():
    pytest.importorskip("sklearn")
    clf, reg = make_fixtures().sklearn_estimators()
    committed = load(fixture("sklearn_mlp_classifier.npz"))
    fresh = reluid.from_sklearn(clf)
    if fresh != committed:
        pytest.skip("this scikit-learn version fits other weights than the one that wrote the fixture")
    assert reluid.from_sklearn(reg) == load(fixture("sklearn_mlp_regressor.npz"))


def test_from_sklearn_refusals():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.linear_model import LinearRegression
    from sklearn.neural_network import MLPClassifier, MLPRegressor

    X, y = [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]], [0, 1, 1, 0]
    with pytest.raises(InvalidNetwork, match="the MLPRegressor is not fitted"):
        reluid.from_sklearn(MLPRegressor())
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sklearn.exceptions.ConvergenceWarning)
        tanh = MLPClassifier(hidden_layer_sizes=(2,), activation="tanh", max_iter=5).fit(X, y)
        binary = MLPClassifier(hidden_layer_sizes=(2,), max_iter=5).fit(X, y)
    with pytest.raises(InvalidNetwork, match="activation='tanh'"):
        reluid.from_sklearn(tanh)
    with pytest.raises(InvalidNetwork, match="LinearRegression is not supported"):
        reluid.from_sklearn(LinearRegression().fit(X, y))
    assert "its output logistic" in reluid.from_sklearn(binary).assumption


def test_audit_of_a_folder_under_one_statement(tmp_path):
    code, out, err = run("audit", FIX, "--assume", "relu-mlp", "--timeout", "10", "--markdown", tmp_path / "s.md")
    assert code == 4  # some producer files are refused
    lines = {line.split(": ", 1)[0].rsplit("/", 1)[-1]: line for line in out.splitlines()}
    assert "invalid-input" in lines["torch_leaky_relu.onnx"] and "LeakyRelu" in lines["torch_leaky_relu.onnx"]
    assert "[assumption: relu-mlp (stated by --assume relu-mlp)" in lines["torch_leaky_relu.safetensors"]
    assert "[assumption:" not in lines["torch_plain.onnx"]
    assert "pass --layers" in lines["torch_named.safetensors"]
    assert "[assumption: relu-mlp (stated by --assume relu-mlp)" in (tmp_path / "s.md").read_text(encoding="utf-8")


def test_an_assumption_is_not_lost_by_converting_the_network(tmp_path):
    path = fixture("torch_prefixed.safetensors")
    code, out, err = run("minimal", path, "--assume", "relu-mlp")
    assert code == 0, err
    assert json.loads(out)["assumption"].startswith("relu-mlp (stated by --assume relu-mlp)")
    converted = tmp_path / "minimal.json"
    converted.write_text(out, encoding="utf-8")
    code, out, err = run("certify", converted, "-o", tmp_path / "c.json")
    out = " ".join(out.split())   # the text report wraps long lines
    assert "Assumption (not checkable" in out and "stated by --assume relu-mlp" in out
    assert read_certificate(tmp_path / "c.json").assumption.startswith("relu-mlp (stated by --assume relu-mlp)")
