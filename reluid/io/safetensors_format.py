"""``.safetensors`` files: tensors of Linear layers, with the architecture stated.

A safetensors file holds named tensors and no graph: it does not say which
activations the model applies, in which order the layers run, or whether a
Softmax or a ReLU follows the last layer.  reluid therefore reads one only
with a statement of the architecture, from one of

* the file's own ``__metadata__`` entry ``"reluid": "relu-mlp"``, which
  :func:`write` (``reluid.save``) writes, together with the layer order
  ``"reluid.layers": "0,2,4"``;
* the user: ``--assume relu-mlp`` on the command line, ``assume="relu-mlp"``
  in :func:`reluid.load`.

Without either, reading fails with one line naming the missing statement.
The statement is recorded in :attr:`Network.assumption`, so certificates and
reports show it.  ``relu-mlp`` means: every module is a Linear layer
``x -> W x + b`` with ``W`` stored n_out × n_in (``<module>.weight``) and
``b`` stored as ``<module>.bias`` (absent for ``bias=False``: zero), applied
in order, with ReLU between consecutive layers and nothing after the last.

Module names are dotted paths (``0``, ``net.2``, ``model.fc1``).  The order is
taken from, in turn, ``--layers`` / ``layers=`` (each module named once, with
or without the common prefix), the file's ``reluid.layers`` metadata, or the
names themselves when they sort unambiguously: all numeric after the common
prefix (``net.0, net.2, net.10``, nested ``0.0, 0.2, 1``: compared as integer
tuples) or one stem with distinct numbers (``fc1, fc2, fc10``).  Anything else
(``fc1, fc2, out``) is refused with a request for ``--layers``.  A tensor that
is not a ``weight`` or ``bias`` (``bn.running_mean``, say) is refused.

Reading parses the file directly (an 8-byte little-endian header length, a
JSON header, then raw little-endian tensor data) instead of going through
``safetensors.numpy``, which cannot represent bfloat16.  The header is checked
as strictly as the safetensors library checks it (offsets contiguous, sizes
matching shapes) and every tensor is decoded exactly: a bfloat16 is the top
half of a float32.  Nothing is ever unpickled, and torch is never imported.
Writing uses ``safetensors.numpy`` and stores float64 tensors.
"""

from __future__ import annotations

import json
import re
import struct
import warnings

import numpy as np
from safetensors.numpy import save as _save_tensors

from reluid.errors import InvalidNetwork
from reluid.model.network import Network
from reluid.io.loader import (
    ASSUMPTIONS, ArrayLayer, ReadOptions, check_param_count, float_arrays, network_from_arrays, one_line,
    read_bytes, unique_keys, write_bytes,
)

__all__ = ["read", "write", "encode"]

#: safetensors dtype -> numpy dtype (little-endian); BF16 is decoded separately.
_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2",
    "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
    "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1",
}
_ITEMSIZE = {**{k: np.dtype(v).itemsize for k, v in _DTYPES.items()}, "BF16": 2}

#: The safetensors library's own limit on the JSON header.
MAX_HEADER_BYTES = 100 * 1024 * 1024

_COMPONENT = re.compile(r"[A-Za-z_]\w*|\d+")
_STEM_NUMBER = re.compile(r"([A-Za-z_]+?)(\d+)\Z")
_KINDS = ("weight", "bias")

#: The ``__metadata__`` keys reluid writes and reads.
STATEMENT_KEY = "reluid"
LAYERS_KEY = "reluid.layers"
ASSUMPTION_KEY = "reluid.assumption"


def _header(data: bytes) -> tuple[dict, dict, int]:
    """``(tensor entries, metadata, offset of the data buffer)``."""
    if len(data) < 8:
        raise InvalidNetwork("too short for a safetensors file (no header length)")
    (size,) = struct.unpack("<Q", data[:8])
    if size > MAX_HEADER_BYTES or 8 + size > len(data):
        raise InvalidNetwork(f"header length {size} does not fit in the {len(data)}-byte file")
    try:
        header = json.loads(data[8:8 + size].decode("utf-8"), object_pairs_hook=unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidNetwork(f"malformed safetensors header ({type(exc).__name__}: {one_line(exc)})") from None
    if not isinstance(header, dict):
        raise InvalidNetwork("malformed safetensors header (not a JSON object)")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise InvalidNetwork("malformed safetensors header ('__metadata__' must map strings to strings)")
    return header, metadata, 8 + size


def _check_entry(key: str, entry) -> tuple[str, tuple[int, ...], int, int]:
    if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
        raise InvalidNetwork(f"tensor {key!r}: malformed header entry {one_line(entry)[:80]}")
    dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
    if dtype not in _ITEMSIZE:
        raise InvalidNetwork(f"tensor {key!r} has dtype {dtype!r}; expected a float (F16, BF16, F32, F64) "
                             "or integer dtype")
    if (not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape)
            or not isinstance(offsets, list) or len(offsets) != 2
            or not all(type(o) is int and o >= 0 for o in offsets)):
        raise InvalidNetwork(f"tensor {key!r}: malformed shape or data_offsets")
    begin, end = offsets
    if end - begin != _ITEMSIZE[dtype] * int(np.prod(shape, dtype=object)):
        raise InvalidNetwork(f"tensor {key!r}: {end - begin} data bytes do not match {dtype} shape {shape}")
    return dtype, tuple(shape), begin, end


def _tensors(data: bytes) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    header, metadata, start = _header(data)
    entries = {key: _check_entry(key, entry) for key, entry in header.items()}
    check_param_count(sum(int(np.prod(shape, dtype=object)) for _, shape, _, _ in entries.values()))
    position = 0
    for key, (_, _, begin, end) in sorted(entries.items(), key=lambda item: item[1][2:]):
        if begin != position:
            raise InvalidNetwork(f"tensor {key!r}: data_offsets are not contiguous (starts at {begin}, "
                                 f"expected {position})")
        position = end
    if start + position != len(data):
        raise InvalidNetwork(f"the data buffer is {len(data) - start} bytes but the header describes {position}")
    tensors = {}
    for key, (dtype, shape, begin, end) in entries.items():
        raw = data[start + begin:start + end]
        if dtype == "BF16":  # the top 16 bits of a float32
            array = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            array = np.frombuffer(raw, _DTYPES[dtype])
        tensors[key] = array.reshape(shape)
    return tensors, metadata


def _modules(tensors: dict[str, np.ndarray]) -> dict[str, dict[str, str]]:
    """module path -> {"weight": key, "bias": key}, checking every key's form."""
    if not tensors:
        raise InvalidNetwork("the file contains no tensors")
    modules: dict[str, dict[str, str]] = {}
    for key in tensors:
        path, _, kind = key.rpartition(".")
        if kind not in _KINDS or not path or not all(_COMPONENT.fullmatch(c) for c in path.split(".")):
            raise InvalidNetwork(f"unexpected tensor {key!r}: a relu-mlp holds only Linear layers "
                                 "(<module>.weight, <module>.bias); for other modules export ONNX or use "
                                 "reluid.from_torch")
        modules.setdefault(path, {})[kind] = key
    for path, keys in modules.items():
        if "weight" not in keys:
            raise InvalidNetwork(f"{keys['bias']!r} has no matching {path}.weight")
    return modules


def _common_prefix(paths: list[list[str]]) -> int:
    """Number of leading components shared by all paths, leaving at least one of each."""
    n = min(len(p) for p in paths) - 1
    k = 0
    while k < n and all(p[k] == paths[0][k] for p in paths):
        k += 1
    return k


def _named_order(names: tuple[str, ...], modules: dict, prefix: str, source: str) -> list[str]:
    """The modules in the order ``names`` gives (full paths, or relative to the common prefix)."""
    order = []
    for name in names:
        full = name if name in modules else prefix + name
        if full not in modules:
            raise InvalidNetwork(f"{source} names {name!r}, which is not a module in the file "
                                 f"(modules: {', '.join(sorted(modules))})")
        if full in order:
            raise InvalidNetwork(f"{source} names {name!r} twice")
        order.append(full)
    missing = sorted(set(modules) - set(order))
    if missing:
        raise InvalidNetwork(f"{source} does not name module(s) {', '.join(map(repr, missing))}, which hold tensors "
                             "in the file; every module must be placed")
    return order


def _order(modules: dict, metadata: dict, options: ReadOptions) -> tuple[list[str], str]:
    """``(module paths in layer order, how the order was found)``."""
    split = {m: m.split(".") for m in modules}
    k = _common_prefix(list(split.values()))
    prefix = ".".join(next(iter(split.values()))[:k]) + "." if k else ""
    explicit = None
    if options.layers is not None:
        explicit = _named_order(options.layers, modules, prefix, options.flag("layers"))
    stored = None
    if LAYERS_KEY in metadata:
        names = tuple(part.strip() for part in metadata[LAYERS_KEY].split(","))
        stored = _named_order(names, modules, prefix, f"the file's {LAYERS_KEY!r} metadata")
    if explicit is not None and stored is not None and explicit != stored:
        raise InvalidNetwork(f"{options.flag('layers')} orders the layers {', '.join(explicit)} but the file's "
                             f"{LAYERS_KEY!r} metadata orders them {', '.join(stored)}")
    if explicit is not None:
        return explicit, f"order from {options.flag('layers')}"
    if stored is not None:
        return stored, "order from the file's reluid metadata"
    if len(modules) == 1:
        return list(modules), "a single layer"
    rest = {m: parts[k:] for m, parts in split.items()}
    if all(c.isdigit() for parts in rest.values() for c in parts):
        keys = {m: tuple(int(c) for c in parts) for m, parts in rest.items()}
        if len(set(keys.values())) == len(keys):
            return sorted(modules, key=keys.__getitem__), "ordered by the module indices"
    stems = {m: _STEM_NUMBER.match(parts[0]) if len(parts) == 1 else None for m, parts in rest.items()}
    if all(stems.values()) and len({st[1] for st in stems.values()}) == 1 \
            and len({int(st[2]) for st in stems.values()}) == len(stems):
        return sorted(modules, key=lambda m: int(stems[m][2])), "ordered by the numbers in the module names"
    shown = ", ".join(sorted(".".join(parts) for parts in rest.values()))
    raise InvalidNetwork(f"the module names ({shown}) do not say in which order the layers run; pass "
                         f"{options.flag('layers')} with them in the order the model applies them")


#: Module-name fragments (lower case) that suggest a layer a relu-mlp statement leaves out.
_SUSPICIOUS = (
    (re.compile(r"leaky|lrelu|prelu|gelu|selu|silu|swish|mish|tanh|sigmoid|softplus|hardswish|(^|_)elu"),
     "an activation other than ReLU"),
    (re.compile(r"softmax"), "a softmax after a layer"),
    (re.compile(r"resid|^res(block|net)?_?\d*$|skip|shortcut|downsample"), "a residual (skip) connection"),
    (re.compile(r"attn|attention|conv|norm|embed|lstm|gru"), "a layer other than Linear"),
)


class StatementWarning(UserWarning):
    """The names in a file suggest a function other than the one the user stated (``--assume``)."""


def suspicious_names(modules) -> tuple[str, str] | None:
    """``(what, module name)`` for the first module path whose name suggests a layer relu-mlp leaves out."""
    for path in sorted(modules):
        for component in path.lower().split("."):
            for pattern, what in _SUSPICIOUS:
                if pattern.search(component):
                    return what, path
    return None


def _statement(metadata: dict, options: ReadOptions) -> str:
    """Where the architecture statement comes from (raises when there is none)."""
    stated = metadata.get(STATEMENT_KEY)
    if stated is not None and stated not in ASSUMPTIONS:
        raise InvalidNetwork(f"the file's {STATEMENT_KEY!r} metadata states the architecture {stated!r}, which this "
                             f"version of reluid does not know (it knows {', '.join(ASSUMPTIONS)})")
    if stated is not None:
        return "stated by the file's reluid metadata"
    if options.assume is not None:
        return f"stated by {options.flag('assume', options.assume)}"
    raise InvalidNetwork(
        "a safetensors file holds tensors, not the function they compute (activations, layer order, what follows "
        f"the last layer), and this one carries no reluid metadata saying it; state it with "
        f"{options.flag('assume', 'relu-mlp')} if the model is Linear layers with ReLU between them and nothing "
        "after the last")


def read(path: str, options: ReadOptions = ReadOptions()) -> Network:
    """Read a ``.safetensors`` network file (see the module docstring for the statement it needs).

    Raises
    ------
    InvalidNetwork
        If the architecture is stated neither by the file's reluid metadata
        nor by ``options.assume``, the header is malformed or inconsistent
        with the data, a tensor has an unsupported dtype or is not a Linear
        weight or bias, the layer order is ambiguous and not given, or the
        shapes or values are invalid.

    Examples
    --------
    >>> net = read("examples/networks/small_16_8_3.safetensors")
    >>> net.architecture
    (16, 8, 3)
    >>> print(net.assumption)
    relu-mlp (stated by the file's reluid metadata): Linear layers 0 → 2 (order from the file's reluid metadata), ReLU between consecutive layers, none after the last
    """
    tensors, metadata = _tensors(read_bytes(path))
    modules = _modules(tensors)
    stated_by = _statement(metadata, options)
    order, how = _order(modules, metadata, options)
    layers = []
    for module in order:
        keys = modules[module]
        weight = tensors[keys["weight"]]
        if "bias" in keys:
            bias, bias_name = tensors[keys["bias"]], keys["bias"]
        else:
            bias = np.zeros(weight.shape[0] if weight.ndim == 2 else 0, dtype=np.int64)
            bias_name = f"{module}.bias (absent, so zero)"
        layers.append(ArrayLayer(weight, bias, keys["weight"], bias_name))
    assumption = (f"relu-mlp ({stated_by}): Linear layers {' → '.join(order)} ({how}), ReLU between consecutive "
                  "layers, none after the last")
    hint = suspicious_names(modules) if stated_by != "stated by the file's reluid metadata" else None
    if hint is not None:
        what, name = hint
        note = (f"the module name {name!r} suggests {what}; the certificate is of the stated function (Linear "
                "layers with ReLU between them), not necessarily of the model")
        assumption = f"{assumption}; {note}"
        warnings.warn(StatementWarning(f"{path}: {note}"), stacklevel=3)
    if metadata.get(ASSUMPTION_KEY):  # the network reluid saved had been read under an assumption itself
        assumption = f"{metadata[ASSUMPTION_KEY]}; {assumption}"
    return network_from_arrays(layers, name=metadata.get("reluid.name"),
                               description=metadata.get("reluid.description"), assumption=assumption,
                               orientation_hint=True)


def encode(net: Network, float_type: str = "float64") -> bytes:
    """The ``.safetensors`` bytes of ``net``: ``float_type`` tensors ``0.weight, 0.bias, 2.weight, ...``.

    The metadata states the architecture (``"reluid": "relu-mlp"``) and the
    layer order (``"reluid.layers": "0,2,..."``), so reading it back needs no
    ``--assume``.

    Raises
    ------
    InvalidNetwork
        If a parameter is not exactly a ``float_type``.
    """
    tensors = {}
    for i, (W, b) in enumerate(float_arrays(net, float_type)):
        tensors[f"{2 * i}.weight"] = W
        tensors[f"{2 * i}.bias"] = b
    metadata = {"format": "pt", STATEMENT_KEY: "relu-mlp",
                LAYERS_KEY: ",".join(str(2 * i) for i in range(len(net.layers)))}
    if net.name:
        metadata["reluid.name"] = net.name
    if net.description:
        metadata["reluid.description"] = net.description
    if net.assumption:
        metadata[ASSUMPTION_KEY] = net.assumption
    return _save_tensors(tensors, metadata=metadata)


def write(net: Network, path: str, float_type: str = "float64") -> None:
    """Write ``net`` as a ``.safetensors`` file (see :func:`encode`)."""
    write_bytes(path, encode(net, float_type))
