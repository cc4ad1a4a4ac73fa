"""ONNX models that are chains of dense layers and ReLUs.

The graph must be one chain from its single input to its single output built
from

* ``Gemm`` (``alpha``, ``beta`` and ``transB`` are honoured exactly;
  ``transA = 1`` would transpose the batch and is refused),
* ``MatMul`` with a constant right operand, optionally followed by ``Add``
  of a constant bias,
* ``Relu`` between two affine layers (two affine layers must be separated by
  a ``Relu``, and the last affine layer must not be followed by one),
* ``Identity`` anywhere, and ``Flatten`` (``axis = 1``) before the first layer.

Any other operator raises :class:`~reluid.errors.UnsupportedOperator` naming
the operator and the node.  Weights must be initializers; they are read with
``onnx.numpy_helper.to_array`` and converted to the exact rationals they hold.
External data is read only from files inside the model's own folder.
Writing produces a float64 ``Gemm``/``Relu`` chain and refuses networks that
float64 cannot hold exactly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from reluid.errors import InvalidNetwork, UnsupportedOperator
from reluid.model.network import Network
from reluid.io.loader import (
    MAX_FILE_BYTES, ArrayLayer, check_param_count, float64_arrays, network_from_arrays, one_line,
    write_bytes,
)

__all__ = ["read", "write", "encode", "OPSET"]

OPSET = 13
"""The default-domain opset of written models (Gemm and Relu are unchanged since)."""

_SUPPORTED = "Gemm, MatMul, Add (bias of a MatMul), Relu, Identity, Flatten (at the input)"
_GEMM_ATTRIBUTES = {"alpha", "beta", "transA", "transB", "broadcast"}  # broadcast: opset < 7
_NUMERIC_TYPES = frozenset({
    TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16,
    TensorProto.INT8, TensorProto.INT16, TensorProto.INT32, TensorProto.INT64,
    TensorProto.UINT8, TensorProto.UINT16, TensorProto.UINT32, TensorProto.UINT64,
})


def _text(value) -> str:
    """A protobuf string field as text (invalid UTF-8 comes back as bytes)."""
    return value if isinstance(value, str) else value.decode("utf-8", "backslashreplace")


def _node_label(node, position: int) -> str:
    op = _text(node.op_type)
    return f"{op} node {_text(node.name)!r}" if node.name else f"{op} node #{position}"


@dataclass(frozen=True)
class _Affine:
    """An affine layer found in the graph, before its initializers are read."""

    label: str
    weight: str                       # initializer name
    weight_is_in_by_out: bool         # stored as (n_in, n_out): MatMul, or Gemm with transB = 0
    bias: str | None = None
    alpha: Fraction = Fraction(1)
    beta: Fraction = Fraction(1)


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------
def _load_model(path: str):
    try:
        return onnx.load(path, load_external_data=False)
    except Exception as exc:  # protobuf raises DecodeError, upb a RuntimeError, ...: any is a bad file
        raise InvalidNetwork(f"not a valid ONNX model ({type(exc).__name__}: {one_line(exc)})", path) from None


def _attribute(node, label: str, name: str, default):
    for attr in node.attribute:
        if attr.name == name:
            if isinstance(default, int) and attr.type == AttributeProto.INT:
                return attr.i
            if isinstance(default, Fraction) and attr.type == AttributeProto.FLOAT:
                if not np.isfinite(attr.f):
                    raise InvalidNetwork(f"{label} has non-finite {name} = {attr.f}")
                return Fraction(attr.f)  # the exact value of the stored float32
            raise InvalidNetwork(f"{label}: attribute {name} has the wrong type")
    return default


def _gemm(node, label: str) -> _Affine:
    unknown = {_text(a.name) for a in node.attribute} - _GEMM_ATTRIBUTES
    if unknown:
        raise InvalidNetwork(f"{label} has unsupported attribute(s) {', '.join(map(repr, sorted(unknown)))}")
    if _attribute(node, label, "transA", 0):
        raise InvalidNetwork(f"{label} has transA=1, which transposes the batch; only transA=0 is supported")
    if len(node.input) not in (2, 3):
        raise InvalidNetwork(f"{label} has {len(node.input)} inputs, expected 2 or 3")
    return _Affine(label, node.input[1], weight_is_in_by_out=not _attribute(node, label, "transB", 0),
                   bias=node.input[2] if len(node.input) == 3 and node.input[2] else None,
                   alpha=_attribute(node, label, "alpha", Fraction(1)),
                   beta=_attribute(node, label, "beta", Fraction(1)))


def _chain(graph, initializers: dict) -> list[_Affine]:
    """Walk the nodes from the graph input to its output; the affine layers in order."""
    inputs = [v.name for v in graph.input if v.name not in initializers]
    if len(inputs) != 1:
        raise InvalidNetwork(f"the graph has {len(inputs)} non-constant inputs, expected 1")
    if len(graph.output) != 1:
        raise InvalidNetwork(f"the graph has {len(graph.output)} outputs, expected 1")
    current = inputs[0]
    layers: list[_Affine] = []
    last = "input"  # the kind of the previous node: input, matmul, affine or relu
    for position, node in enumerate(graph.node):
        op, label = _text(node.op_type), _node_label(node, position)
        if node.domain not in ("", "ai.onnx") or op not in {"Gemm", "MatMul", "Add", "Relu", "Identity", "Flatten"}:
            qualified = f"{_text(node.domain)}.{op}" if node.domain not in ("", "ai.onnx") else op
            raise UnsupportedOperator(f"unsupported operator {qualified} ({label}); reluid reads only {_SUPPORTED}")
        if len(node.output) != 1:
            raise InvalidNetwork(f"{label} has {len(node.output)} outputs, expected 1")
        if op == "Add":
            if last != "matmul":
                raise UnsupportedOperator(f"{label}: Add is supported only as the bias right after a MatMul")
            if len(node.input) != 2 or current not in node.input:
                raise InvalidNetwork(f"{label} does not add a constant to the output of the MatMul")
            bias = node.input[1] if node.input[0] == current else node.input[0]
            layers[-1] = replace(layers[-1], bias=bias)
            last = "affine"
        elif not node.input or node.input[0] != current:
            raise InvalidNetwork(f"{label} does not continue the chain: it reads "
                                 f"{node.input[0] if node.input else None!r}, expected {current!r}")
        elif op in ("Gemm", "MatMul"):
            if last in ("matmul", "affine"):
                raise InvalidNetwork(f"{label} follows another affine layer without a Relu between them; "
                                     "compose them into one layer first")
            if op == "Gemm":
                layers.append(_gemm(node, label))
                last = "affine"
            else:
                if len(node.input) != 2:
                    raise InvalidNetwork(f"{label} has {len(node.input)} inputs, expected 2")
                layers.append(_Affine(label, node.input[1], weight_is_in_by_out=True))
                last = "matmul"
        elif op == "Relu":
            if last not in ("matmul", "affine"):
                raise InvalidNetwork(f"{label} does not follow an affine layer")
            last = "relu"
        elif op == "Flatten":
            if last != "input":
                raise InvalidNetwork(f"{label}: Flatten is supported only before the first layer")
            if _attribute(node, label, "axis", 1) != 1:
                raise InvalidNetwork(f"{label}: only Flatten with axis=1 is supported")
        current = node.output[0]
    if not layers:
        raise InvalidNetwork("the graph has no Gemm or MatMul layer")
    if current != graph.output[0].name:
        raise InvalidNetwork(f"the chain ends at {current!r}, not at the graph output {graph.output[0].name!r}")
    if last == "relu":
        raise InvalidNetwork("the output passes through a Relu; a reluid network ends with an affine layer")
    return layers


def _check_external(tensor, base_dir: str) -> None:
    """Refuse external data outside the model's folder (or too large)."""
    info = {_text(entry.key): _text(entry.value) for entry in tensor.external_data}
    location = info.get("location", "")
    name = _text(tensor.name)
    try:
        root = os.path.realpath(base_dir)
        target = os.path.realpath(os.path.join(root, location))
        inside = (bool(location) and not os.path.isabs(location)
                  and os.path.commonpath([root, target]) == root)
        size = os.path.getsize(target) if inside and os.path.isfile(target) else None
    except (OSError, ValueError):  # e.g. an embedded NUL byte
        inside, size = False, None
    if not inside:
        raise InvalidNetwork(f"initializer {name!r} points to external data {location!r} "
                             "outside the model's folder")
    if size is None:
        raise InvalidNetwork(f"initializer {name!r}: external data file {location!r} not found")
    if size > MAX_FILE_BYTES:
        raise InvalidNetwork(f"initializer {name!r}: external data file {location!r} is larger "
                             f"than the {MAX_FILE_BYTES}-byte limit")


def _array(name: str, initializers: dict, label: str, base_dir: str) -> np.ndarray:
    if name not in initializers:
        raise InvalidNetwork(f"{label}: input {name!r} is not an initializer (weights must be constants)")
    tensor = initializers[name]
    if tensor.data_type not in _NUMERIC_TYPES:
        kind = TensorProto.DataType.Name(tensor.data_type) if tensor.data_type in TensorProto.DataType.values() \
            else str(tensor.data_type)
        raise InvalidNetwork(f"initializer {name!r} has data type {kind}; expected a float or integer type")
    if tensor.data_location == TensorProto.EXTERNAL:
        _check_external(tensor, base_dir)
    try:
        return numpy_helper.to_array(tensor, base_dir)
    except Exception as exc:  # malformed tensor contents: any failure is a bad file
        raise InvalidNetwork(f"initializer {name!r} cannot be read ({type(exc).__name__}: {one_line(exc)})") \
            from None


def _bias_vector(array: np.ndarray, n_out: int, name: str) -> np.ndarray:
    """A bias that broadcasts over the batch, as a vector of length ``n_out``."""
    if array.ndim > 2 or (array.ndim == 2 and array.shape[0] != 1) \
            or (array.ndim >= 1 and array.shape[-1] not in (1, n_out)):
        raise InvalidNetwork(f"bias {name!r} of shape {array.shape} does not broadcast to ({n_out},) "
                             "for every batch size")
    return np.broadcast_to(array.reshape(-1), (n_out,))


def _array_layer(layer: _Affine, initializers: dict, base_dir: str) -> ArrayLayer:
    weight = _array(layer.weight, initializers, layer.label, base_dir)
    if weight.ndim != 2:
        raise InvalidNetwork(f"{layer.label}: weight {layer.weight!r} has shape {weight.shape}, expected 2-D")
    if layer.weight_is_in_by_out:
        weight = weight.T
    if layer.bias is None:
        bias = np.zeros(weight.shape[0], dtype=np.int64)
    else:
        bias = _bias_vector(_array(layer.bias, initializers, layer.label, base_dir), weight.shape[0], layer.bias)
    return ArrayLayer(weight, bias, layer.weight, layer.bias or f"{layer.label} bias",
                      weight_scale=layer.alpha, bias_scale=layer.beta)


def read(path: str) -> Network:
    """Read an ``.onnx`` network file.

    Raises
    ------
    UnsupportedOperator
        If the graph uses an operator outside the supported set.
    InvalidNetwork
        If the file is not an ONNX model, the graph is not a single chain of
        affine layers separated by ReLUs, a weight is not a numeric
        initializer, external data lies outside the model's folder, or the
        shapes or values are invalid.

    Examples
    --------
    >>> read("examples/networks/small_16_8_3.onnx").architecture
    (16, 8, 3)
    """
    model = _load_model(path)
    graph = model.graph
    initializers = {}
    for tensor in graph.initializer:
        if tensor.name in initializers:
            raise InvalidNetwork(f"two initializers are named {tensor.name!r}")
        initializers[tensor.name] = tensor
    chain = _chain(graph, initializers)
    used = {name for layer in chain for name in (layer.weight, layer.bias) if name in initializers}
    check_param_count(sum(int(np.prod(initializers[name].dims, dtype=object)) for name in used))
    base_dir = os.path.dirname(os.path.abspath(path))
    metadata = {_text(p.key): _text(p.value) for p in model.metadata_props}
    return network_from_arrays([_array_layer(layer, initializers, base_dir) for layer in chain],
                               name=metadata.get("reluid.name"),
                               description=metadata.get("reluid.description"))


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
def encode(net: Network) -> bytes:
    """The ``.onnx`` bytes of ``net``: a float64 ``Gemm``/``Relu`` chain.

    The input is ``input`` of shape ``(N, n_in)`` and the output ``output``;
    layer ``i`` is ``Gemm(x, W{i}, b{i}, transB=1)``.

    Raises
    ------
    InvalidNetwork
        If a parameter is not exactly a float64.
    """
    nodes, initializers = [], []
    x = "input"
    arrays = float64_arrays(net)
    for i, (W, b) in enumerate(arrays, start=1):
        initializers += [numpy_helper.from_array(W, f"W{i}"), numpy_helper.from_array(b, f"b{i}")]
        z = "output" if i == len(arrays) else f"z{i}"
        nodes.append(helper.make_node("Gemm", [x, f"W{i}", f"b{i}"], [z], name=f"gemm{i}", transB=1))
        if z != "output":
            x = f"h{i}"
            nodes.append(helper.make_node("Relu", [z], [x], name=f"relu{i}"))
    graph = helper.make_graph(
        nodes, "reluid_network",
        [helper.make_tensor_value_info("input", TensorProto.DOUBLE, ["N", net.input_dim])],
        [helper.make_tensor_value_info("output", TensorProto.DOUBLE, ["N", net.output_dim])],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="reluid", ir_version=8,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    metadata = {"reluid.name": net.name, "reluid.description": net.description}
    helper.set_model_props(model, {k: v for k, v in metadata.items() if v})
    return model.SerializeToString()


def write(net: Network, path: str) -> None:
    """Write ``net`` as an ``.onnx`` file (see :func:`encode`)."""
    write_bytes(path, encode(net))
