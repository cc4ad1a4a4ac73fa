"""Regenerate the bundled example networks in ``examples/networks/``.

Run from the repository root::

    PYTHONPATH=. python examples/make_examples.py

The exact networks are written in the reluid JSON format.  The small float32
network (16 → 8 → 3, He-initialised with a fixed seed) is written the way
other tools would produce it: ``mnist_like_16_8_3.npz`` (numpy arrays ``W1,
b1, W2, b2``), ``small_16_8_3.onnx`` (float32 ``Gemm(transB=1)``/``Relu``, as
``torch.onnx.export`` emits for an ``nn.Sequential``) and
``small_16_8_3.safetensors`` (the state dict ``0.weight, 0.bias, 2.weight,
2.bias``).  All three hold the same float32 values, so they load to the same
exact network.  Output is deterministic, byte for byte.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import save as safetensors_bytes

from reluid.io import save
from reluid.model.network import Network

OUT = Path(__file__).resolve().parent / "networks"
SEED = 20260101

EXACT = {
    "theta1": dict(
        layers=[([[1, 1], [-1, 0], [0, -1]], [-2, -1, -1]), ([[1, 1, 1]], [-6])],
        description=("Ramakrishnan 2026, §1, θ1 ∈ Ω(2,3,1): σ(x1+x2-2) + σ(-x1-1) + σ(-x2-1) - 6. "
                     "Flipping all three neurons gives theta2, which computes the same function."),
    ),
    "theta2": dict(
        layers=[([[-1, -1], [1, 0], [0, 1]], [2, 1, 1]), ([[1, 1, 1]], [-10])],
        description=("Ramakrishnan 2026, §1, θ2 ∈ Ω(2,3,1): σ(-x1-x2+2) + σ(x1+1) + σ(x2+1) - 10, "
                     "the flip of theta1 on all three neurons (same function, since σ(z) - σ(-z) = z)."),
    ),
    "generic_2_4_1": dict(
        layers=[([[1, 0], [0, 1], [1, 2], [2, -1]], [0, 1, -1, 3]), ([[1, 2, 5, -3]], [0])],
        description=("A generic network in Ω(2,4,1) with no flip set: no nonempty F ⊆ {1..4} has "
                     "Σ_{i∈F} v_i a_i = 0 (the vectors v_i a_i are (1,0), (0,2), (5,10), (-6,3))."),
    ),
    "relu_abs": dict(
        layers=[([[1], [-1]], [0, 0]), ([[1, 1]], [0])],
        description="σ(x) + σ(-x) = |x| in Ω(1,2,1).",
    ),
    "sum_two_kinks": dict(
        layers=[([[1], [1]], [0, 1]), ([[1, 1]], [0])],
        description="σ(x) + σ(x+1) in Ω(1,2,1): two kinks, at x = 0 and x = -1.",
    ),
    "planted_redundancy": dict(
        layers=[([[1, 0], [0, 1], [2, 0], [1, -1]], [0, 0, 0, 1]),
                ([[-1, 2, 1, 0], [2, 1, 0, 0], [1, 1, 0, 0], [-2, 0, 1, 0]], [-1, -3, -5, -1]),
                ([[1, 1, 1, 4]], [0])],
        description=("two_layers_certified (2,2,3,1) with planted redundancy, (2,4,4,1): neuron 3 of hidden layer 1 "
                     "is 2 × neuron 1 (a positively proportional pair), neuron 4 of hidden layer 1 has zero outgoing "
                     "weights, and neuron 4 of hidden layer 2 is dead (its pre-activation is h3 - 2 h1 - 1 = -1). "
                     "reluid minimal reduces it exactly to two_layers_certified."),
    ),
}


def he_init_16_8_3(seed: int = SEED) -> list[tuple[np.ndarray, np.ndarray]]:
    """Float32 ``[(W1, b1), (W2, b2)]`` for 16 → 8 → 3, He-normal weights, small uniform biases."""
    rng = np.random.default_rng(seed)
    layers = []
    for n_in, n_out in ((16, 8), (8, 3)):
        W = rng.standard_normal((n_out, n_in)) * np.sqrt(2.0 / n_in)
        b = rng.uniform(-0.1, 0.1, n_out)
        layers.append((W.astype(np.float32), b.astype(np.float32)))
    return layers


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Like ``np.savez``, with a fixed timestamp so the file is reproducible."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for key, array in arrays.items():
            with zf.open(zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0)), "w") as fh:
                np.lib.format.write_array(fh, array, allow_pickle=False)
    path.write_bytes(buffer.getvalue())


def write_onnx(path: Path, layers) -> None:
    """A float32 Gemm(transB=1)/Relu chain, as exported from an ``nn.Sequential``."""
    nodes, initializers, x = [], [], "input"
    for i, (W, b) in enumerate(layers):
        initializers += [numpy_helper.from_array(W, f"{2 * i}.weight"),
                         numpy_helper.from_array(b, f"{2 * i}.bias")]
        last = i == len(layers) - 1
        z = "output" if last else f"/{2 * i}/Gemm_output_0"
        nodes.append(helper.make_node("Gemm", [x, f"{2 * i}.weight", f"{2 * i}.bias"], [z],
                                      name=f"/{2 * i}/Gemm", alpha=1.0, beta=1.0, transB=1))
        if not last:
            x = f"/{2 * i + 1}/Relu_output_0"
            nodes.append(helper.make_node("Relu", [z], [x], name=f"/{2 * i + 1}/Relu"))
    graph = helper.make_graph(
        nodes, "main_graph",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", layers[0][0].shape[1]])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", layers[-1][0].shape[0]])],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="reluid examples", ir_version=8,
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, spec in EXACT.items():
        net = Network.from_lists(spec["layers"], name=name, description=spec["description"])
        save(net, OUT / f"{name}.json")
    layers = he_init_16_8_3()
    write_npz(OUT / "mnist_like_16_8_3.npz",
              {key: array for i, (W, b) in enumerate(layers, start=1)
               for key, array in ((f"W{i}", W), (f"b{i}", b))})
    write_onnx(OUT / "small_16_8_3.onnx", layers)
    state_dict = {key: array for i, (W, b) in enumerate(layers)
                  for key, array in ((f"{2 * i}.weight", W), (f"{2 * i}.bias", b))}
    # (safetensors' save_file would create the file with mode 0600)
    (OUT / "small_16_8_3.safetensors").write_bytes(safetensors_bytes(state_dict, metadata={"format": "pt"}))
    for path in sorted(OUT.iterdir()):
        print(path.relative_to(OUT.parent.parent))


if __name__ == "__main__":
    main()
