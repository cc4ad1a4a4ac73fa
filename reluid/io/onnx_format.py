"""ONNX models that are chains of dense layers and ReLUs.

The graph must be one chain from its single input to its single output built
from

* ``Gemm`` (``alpha``, ``beta`` and ``transB`` are honoured exactly;
  ``transA = 1`` would transpose the batch and is refused),
* ``MatMul`` with a constant right operand, optionally followed by ``Add``
  of a constant bias,
* ``Relu`` between two affine layers (two affine layers must be separated by
  a ``Relu``),
* ``BatchNormalization`` in inference mode, folded into the neighbouring
  affine layer (exactly when every √(σ²+ε) is rational; otherwise only with
  ``--batchnorm float32``, which rounds the scale γ/√(σ²+ε) to float32 and
  records it: see :mod:`reluid.io.chain`); ``training_mode = 1`` is refused,
* no-ops: ``Identity``, ``Dropout`` in inference mode, ``Cast`` to the
  element type the tensor already has, ``Reshape`` to ``[-1, width]`` after
  an affine layer or ReLU, and ``Flatten`` (``axis = 1``) before the first
  layer.

The last operation must be affine: a final ``Relu``, ``Softmax``,
``LogSoftmax`` or ``Sigmoid`` is refused by name (reluid certifies the
logits; export the model without its output activation).  scikit-learn
classifiers exported by skl2onnx (``ZipMap``, two outputs) are refused with a
pointer to ``reluid.from_sklearn``.  Any other operator raises
:class:`~reluid.errors.UnsupportedOperator` naming the operator and the
node.  Weights must be initializers or ``Constant`` nodes (possibly passed
through ``Identity``); they are read with ``onnx.numpy_helper.to_array`` and
converted to the exact rationals they hold.  External data is read only from
files inside the model's own folder.  Writing produces a float64
``Gemm``/``Relu`` chain and refuses networks that float64 cannot hold exactly.
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
from reluid.io.chain import Affine, BatchNorm, Relu, Width, assemble
from reluid.io.loader import (
    MAX_FILE_BYTES, ArrayLayer, ReadOptions, check_param_count, float_arrays, one_line, write_bytes,
)

__all__ = ["read", "write", "encode", "OPSET"]

OPSET = 13
"""The default-domain opset of written models (Gemm and Relu are unchanged since)."""

_SUPPORTED = ("Gemm, MatMul, Add (bias of a MatMul), Relu, BatchNormalization (inference), Identity, "
              "Dropout (inference), Cast (to the same type), Reshape (to [-1, width]), Flatten (at the input)")
_CHAIN_OPS = frozenset({"Gemm", "MatMul", "Add", "Relu", "BatchNormalization", "Identity", "Dropout", "Cast",
                        "Reshape", "Flatten"})
_OUTPUT_ACTIVATIONS = frozenset({"Softmax", "LogSoftmax", "Sigmoid", "Relu"})
_SKLEARN_OPS = frozenset({"ZipMap", "ArgMax", "ArrayFeatureExtractor"})
#: Layers of other kinds of networks, refused by name wherever they stand in the graph.
_FOREIGN_LAYERS = {
    "Conv": "a convolution", "ConvTranspose": "a transposed convolution", "ConvInteger": "a convolution",
    "QLinearConv": "a convolution", "MaxPool": "pooling", "AveragePool": "pooling", "GlobalAveragePool": "pooling",
    "GlobalMaxPool": "pooling", "LpPool": "pooling", "LSTM": "a recurrent layer", "GRU": "a recurrent layer",
    "RNN": "a recurrent layer", "Attention": "attention", "MultiHeadAttention": "attention",
    "LayerNormalization": "layer normalisation", "GroupNormalization": "group normalisation",
    "InstanceNormalization": "instance normalisation", "Loop": "a loop", "If": "a branch", "Scan": "a loop",
}
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
        if os.path.getsize(path) == 0:
            raise InvalidNetwork("the file is empty (0 bytes), not an ONNX model", path)
    except OSError:
        pass  # onnx.load reports a missing or unreadable file
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


def _constants(graph, initializers: dict) -> tuple[dict, list]:
    """Initializers plus ``Constant`` node values (and ``Identity`` aliases of them); the other nodes."""
    constants = dict(initializers)
    rest = []
    for position, node in enumerate(graph.node):
        op, label = _text(node.op_type), _node_label(node, position)
        if node.domain not in ("", "ai.onnx"):
            rest.append((position, node))
            continue
        if op == "Constant":
            if len(node.output) != 1 or len(node.attribute) != 1:
                raise InvalidNetwork(f"{label} must have one output and one value attribute")
            attr = node.attribute[0]
            name = _text(attr.name)
            if name == "value":
                tensor = attr.t
            elif name in ("value_float", "value_floats", "value_int", "value_ints"):
                values = {"value_float": [attr.f], "value_floats": list(attr.floats),
                          "value_int": [attr.i], "value_ints": list(attr.ints)}[name]
                kind = TensorProto.FLOAT if "float" in name else TensorProto.INT64
                dims = [] if name in ("value_float", "value_int") else [len(values)]
                tensor = helper.make_tensor(node.output[0], kind, dims, values)
            else:
                raise InvalidNetwork(f"{label}: a Constant with {name!r} is not a numeric tensor")
        elif op == "Identity" and len(node.input) == 1 and node.input[0] in constants:
            tensor = constants[node.input[0]]
        else:
            rest.append((position, node))
            continue
        if len(node.output) != 1:
            raise InvalidNetwork(f"{label} has {len(node.output)} outputs, expected 1")
        if node.output[0] in constants:
            raise InvalidNetwork(f"two constants are named {node.output[0]!r}")
        constants[node.output[0]] = tensor
    return constants, rest


def _int_vector(name: str, constants: dict, label: str) -> list[int] | None:
    """A small constant integer vector (a Reshape shape, say), or None when it is not one."""
    tensor = constants.get(name)
    if tensor is None or tensor.data_type not in (TensorProto.INT64, TensorProto.INT32):
        return None
    try:
        array = numpy_helper.to_array(tensor)
    except Exception:
        return None
    return [int(v) for v in array.reshape(-1)] if array.ndim <= 1 and array.size <= 8 else None


def _refuse_sklearn(model, graph) -> None:
    ops = {_text(n.op_type) for n in graph.node}
    if _text(model.producer_name) == "skl2onnx" or ops & _SKLEARN_OPS:
        outputs = ", ".join(repr(_text(o.name)) for o in graph.output)
        raise InvalidNetwork(
            f"this is a scikit-learn model exported by skl2onnx (outputs {outputs}; operators "
            f"{', '.join(sorted(ops & (_SKLEARN_OPS | {'Softmax', 'Sigmoid'}))) or 'for labels'}), whose output is "
            "labels and probabilities, not a ReLU network's; call reluid.from_sklearn(estimator) in Python, which "
            "certifies its logits, or export the logits alone")


def _refuse_foreign(nodes: list) -> None:
    """Name the first convolution, pooling, recurrent, ... node: those networks are not ReLU MLPs."""
    for position, node in nodes:
        op = _text(node.op_type)
        if node.domain in ("", "ai.onnx") and op in _FOREIGN_LAYERS:
            raise UnsupportedOperator(f"{_node_label(node, position)} is {_FOREIGN_LAYERS[op]}, not a fully "
                                      "connected layer; reluid reads chains of Gemm/MatMul layers with Relu between "
                                      "them")


def _chain(model, graph, constants: dict, nodes: list, options: ReadOptions) -> list:
    """Walk the nodes from the graph input to its output; the steps in order."""
    if not graph.node and not graph.input and not graph.output:
        raise InvalidNetwork("the ONNX model is empty: it has no graph (no nodes, inputs or outputs)")
    _refuse_foreign(nodes)
    inputs = [v for v in graph.input if v.name not in constants]
    if len(inputs) != 1:
        raise InvalidNetwork(f"the graph has {len(inputs)} non-constant inputs, expected 1")
    if len(graph.output) != 1:
        _refuse_sklearn(model, graph)
        raise InvalidNetwork(f"the graph has {len(graph.output)} outputs, expected 1")
    elem_type = inputs[0].type.tensor_type.elem_type if inputs[0].type.HasField("tensor_type") else 0
    current = inputs[0].name
    output = graph.output[0].name
    steps: list = []
    last = "input"  # the kind of the previous node: input, matmul, affine, relu or batchnorm
    for position, node in nodes:
        op, label = _text(node.op_type), _node_label(node, position)
        if node.domain not in ("", "ai.onnx") or op not in _CHAIN_OPS:
            qualified = f"{_text(node.domain)}.{op}" if node.domain not in ("", "ai.onnx") else op
            if op in _SKLEARN_OPS:
                _refuse_sklearn(model, graph)
            if op in _OUTPUT_ACTIVATIONS and node.domain in ("", "ai.onnx") and node.output \
                    and node.output[0] == output:
                _refuse_sklearn(model, graph)
                raise UnsupportedOperator(f"the output passes through {label} (the last operation); reluid "
                                          "certifies a ReLU network's logits: export the model without its "
                                          f"{op}")
            raise UnsupportedOperator(f"unsupported operator {qualified} ({label}); reluid reads only {_SUPPORTED}")
        if op == "Dropout":
            if len(node.output) not in (1, 2):
                raise InvalidNetwork(f"{label} has {len(node.output)} outputs, expected 1 or 2")
        elif op == "BatchNormalization" and len(node.output) != 1:
            raise InvalidNetwork(f"{label} has {len(node.output)} outputs: it updates running statistics, which "
                                 "only training mode does; export the model in eval mode")
        elif len(node.output) != 1:
            raise InvalidNetwork(f"{label} has {len(node.output)} outputs, expected 1")
        if op == "Add":
            if last != "matmul":
                raise UnsupportedOperator(f"{label}: Add is supported only as the bias right after a MatMul")
            if len(node.input) != 2 or current not in node.input:
                raise InvalidNetwork(f"{label} does not add a constant to the output of the MatMul")
            bias = node.input[1] if node.input[0] == current else node.input[0]
            steps[-1] = replace(steps[-1], bias=bias)
            last = "affine"
        elif not node.input or node.input[0] != current:
            raise InvalidNetwork(f"{label} does not continue the chain: it reads "
                                 f"{node.input[0] if node.input else None!r}, expected {current!r}")
        elif op in ("Gemm", "MatMul"):
            if last in ("matmul", "affine"):
                raise InvalidNetwork(f"{label} follows another affine layer without a Relu between them; "
                                     "compose them into one layer first")
            if op == "Gemm":
                steps.append(_gemm(node, label))
                last = "affine"
            else:
                if len(node.input) != 2:
                    raise InvalidNetwork(f"{label} has {len(node.input)} inputs, expected 2")
                steps.append(_Affine(label, node.input[1], weight_is_in_by_out=True))
                last = "matmul"
        elif op == "Relu":
            steps.append(Relu(label))
            last = "relu"
        elif op == "BatchNormalization":
            steps.append(_batchnorm(node, label))
            last = "batchnorm"
        elif op == "Dropout":
            _check_dropout(node, label, constants)
        elif op == "Cast":
            to = _attribute(node, label, "to", -1)
            if not elem_type or to != elem_type:
                have = TensorProto.DataType.Name(elem_type) if elem_type in TensorProto.DataType.values() \
                    else "an unknown type"
                raise UnsupportedOperator(f"{label} casts to another type than the tensor's ({have}); only a Cast to "
                                          "the same type (a no-op) is supported")
        elif op == "Reshape":
            shape = _int_vector(node.input[1], constants, label) if len(node.input) == 2 else None
            if last not in ("affine", "matmul", "relu", "batchnorm") or shape is None \
                    or len(shape) != 2 or shape[0] != -1 or shape[1] < 1:
                raise UnsupportedOperator(f"{label}: only a Reshape to a constant [-1, width] after a layer (a "
                                          "no-op) is supported")
            steps.append(Width(label, shape[1]))
        elif op == "Flatten":
            if last != "input":
                raise InvalidNetwork(f"{label}: Flatten is supported only before the first layer")
            if _attribute(node, label, "axis", 1) != 1:
                raise InvalidNetwork(f"{label}: only Flatten with axis=1 is supported")
        current = node.output[0]
    if not any(isinstance(step, _Affine) for step in steps):
        raise InvalidNetwork("the graph has no Gemm or MatMul layer")
    if current != output:
        raise InvalidNetwork(f"the chain ends at {current!r}, not at the graph output {output!r}")
    return steps


def _check_dropout(node, label: str, constants: dict) -> None:
    """A Dropout is the identity in inference mode (ONNX: ``training_mode`` false or absent)."""
    if _attribute(node, label, "is_test", 1) != 1:  # opset < 7
        raise InvalidNetwork(f"{label} has is_test=0 (training mode, where Dropout is random)")
    if len(node.input) >= 3 and node.input[2]:
        flag = _int_vector(node.input[2], constants, label)
        tensor = constants.get(node.input[2])
        if tensor is not None and tensor.data_type == TensorProto.BOOL:
            flag = [int(v) for v in numpy_helper.to_array(tensor).reshape(-1)]
        if flag != [0]:
            raise InvalidNetwork(f"{label}: training_mode is not a constant false, so the Dropout may be random")


def _batchnorm(node, label: str) -> "_BatchNormNode":
    known = {"epsilon", "momentum", "training_mode", "spatial", "is_test", "consumed_inputs"}
    unknown = {_text(a.name) for a in node.attribute} - known
    if unknown:
        raise InvalidNetwork(f"{label} has unsupported attribute(s) {', '.join(map(repr, sorted(unknown)))}")
    if _attribute(node, label, "training_mode", 0) != 0:
        raise InvalidNetwork(f"{label} has training_mode=1: it normalises with the batch's own statistics, not "
                             "a fixed affine map; export the model in eval mode")
    if _attribute(node, label, "is_test", 1) != 1:
        raise InvalidNetwork(f"{label} has is_test=0 (training mode); export the model in eval mode")
    if _attribute(node, label, "spatial", 1) != 1:
        raise InvalidNetwork(f"{label} has spatial=0, which is not supported")
    if len(node.input) != 5 or not all(node.input):
        raise InvalidNetwork(f"{label} has {len(node.input)} inputs, expected 5 (X, scale, B, mean, var)")
    epsilon = _attribute(node, label, "epsilon", Fraction(1, 10**5))
    if "epsilon" not in {_text(a.name) for a in node.attribute}:
        epsilon = Fraction(float(np.float32(1e-5)))  # the default is the float32 1e-5
    return _BatchNormNode(label, *node.input[1:5], epsilon=epsilon)


@dataclass(frozen=True)
class _BatchNormNode:
    label: str
    scale: str
    bias: str
    mean: str
    var: str
    epsilon: Fraction


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


def read(path: str, options: ReadOptions = ReadOptions()) -> Network:
    """Read an ``.onnx`` network file.

    Raises
    ------
    UnsupportedOperator
        If the graph uses an operator outside the supported set, or ends
        with an output activation.
    InvalidNetwork
        If the file is not an ONNX model, the graph is not a single chain of
        affine layers separated by ReLUs, a BatchNormalization is in training
        mode or cannot be folded (see :mod:`reluid.io.chain`), a weight is
        not a numeric constant, external data lies outside the model's
        folder, or the shapes or values are invalid.

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
    constants, nodes = _constants(graph, initializers)
    chain = _chain(model, graph, constants, nodes, options)
    used = {name for step in chain for name in _names(step) if name in constants}
    check_param_count(sum(int(np.prod(constants[name].dims, dtype=object)) for name in used))
    base_dir = os.path.dirname(os.path.abspath(path))
    steps = []
    for step in chain:
        if isinstance(step, _Affine):
            steps.append(Affine(_array_layer(step, constants, base_dir), step.label))
        elif isinstance(step, _BatchNormNode):
            arrays = [_array(name, constants, step.label, base_dir)
                      for name in (step.scale, step.bias, step.mean, step.var)]
            steps.append(BatchNorm(step.label, *arrays, epsilon=step.epsilon))
        else:
            steps.append(step)
    metadata = {_text(p.key): _text(p.value) for p in model.metadata_props}
    return assemble(steps, options, name=metadata.get("reluid.name"), description=metadata.get("reluid.description"),
                    assumption=metadata.get("reluid.assumption") or None)


def _names(step) -> tuple:
    if isinstance(step, _Affine):
        return (step.weight, step.bias)
    if isinstance(step, _BatchNormNode):
        return (step.scale, step.bias, step.mean, step.var)
    return ()


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
def encode(net: Network, float_type: str = "float64", names: tuple[str, str] | None = None) -> bytes:
    """The ``.onnx`` bytes of ``net``: a ``float_type`` (float64 by default) ``Gemm``/``Relu`` chain.

    The input is ``names[0]`` (default ``input``) of shape ``(N, n_in)`` and
    the output ``names[1]`` (default ``output``); layer ``i`` is
    ``Gemm(x, W{i}, b{i}, transB=1)``.

    Raises
    ------
    InvalidNetwork
        If a parameter is not exactly a ``float_type``, or the names collide
        with the internal ones.
    """
    input_name, output_name = names or ("input", "output")
    arrays = float_arrays(net, float_type)
    internal = {f"{p}{i}" for i in range(1, len(arrays) + 1) for p in ("W", "b", "z", "h")}
    if not input_name or not output_name or input_name == output_name or {input_name, output_name} & internal:
        raise InvalidNetwork(f"cannot name the graph input {input_name!r} and output {output_name!r}")
    elem = TensorProto.FLOAT if float_type == "float32" else TensorProto.DOUBLE
    nodes, initializers = [], []
    x = input_name
    for i, (W, b) in enumerate(arrays, start=1):
        initializers += [numpy_helper.from_array(W, f"W{i}"), numpy_helper.from_array(b, f"b{i}")]
        z = output_name if i == len(arrays) else f"z{i}"
        nodes.append(helper.make_node("Gemm", [x, f"W{i}", f"b{i}"], [z], name=f"gemm{i}", transB=1))
        if z != output_name:
            x = f"h{i}"
            nodes.append(helper.make_node("Relu", [z], [x], name=f"relu{i}"))
    graph = helper.make_graph(
        nodes, "reluid_network",
        [helper.make_tensor_value_info(input_name, elem, ["N", net.input_dim])],
        [helper.make_tensor_value_info(output_name, elem, ["N", net.output_dim])],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="reluid", ir_version=8,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    metadata = {"reluid.name": net.name, "reluid.description": net.description, "reluid.assumption": net.assumption}
    helper.set_model_props(model, {k: v for k, v in metadata.items() if v})
    return model.SerializeToString()


def write(net: Network, path: str, float_type: str = "float64", names: tuple[str, str] | None = None) -> None:
    """Write ``net`` as an ``.onnx`` file (see :func:`encode`)."""
    write_bytes(path, encode(net, float_type, names))
