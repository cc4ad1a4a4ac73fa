"""``.safetensors`` state dicts of a PyTorch ``nn.Sequential`` of Linear and ReLU.

The tensors are ``<prefix>0.weight, <prefix>0.bias, <prefix>2.weight, ...``:
the integer is the module's index in the ``Sequential`` (ReLU modules hold no
tensors, hence the gaps), and layers are ordered by it.  ``<prefix>`` is empty
or a dotted module path such as ``net.``, the same for every tensor.  Each
weight has shape ``(n_out, n_in)`` and each bias ``(n_out,)``; a ReLU is
assumed between consecutive Linear layers, which a state dict cannot show.

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

import numpy as np
from safetensors.numpy import save as _save_tensors

from reluid.errors import InvalidNetwork
from reluid.model.network import Network
from reluid.io.loader import (
    ArrayLayer, check_param_count, float64_arrays, network_from_arrays, one_line, read_bytes, unique_keys,
    write_bytes,
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

_KEY = re.compile(r"(?P<prefix>(?:[A-Za-z_]\w*\.)*)(?P<index>0|[1-9]\d*)\.(?P<kind>weight|bias)\Z")




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


def _layers(tensors: dict[str, np.ndarray]) -> list[ArrayLayer]:
    if not tensors:
        raise InvalidNetwork("the file contains no tensors")
    found: dict[int, dict[str, str]] = {}
    prefixes = set()
    for key in tensors:
        m = _KEY.match(key)
        if not m:
            raise InvalidNetwork(f"unexpected tensor {key!r}; expected an nn.Sequential state dict "
                                 "(0.weight, 0.bias, 2.weight, ...)")
        prefixes.add(m["prefix"])
        found.setdefault(int(m["index"]), {})[m["kind"]] = key
    if len(prefixes) > 1:
        raise InvalidNetwork(f"tensors come from different modules: {', '.join(map(repr, sorted(prefixes)))}")
    layers = []
    for index in sorted(found):
        keys = found[index]
        for kind in ("weight", "bias"):
            if kind not in keys:
                present = next(iter(keys.values()))
                raise InvalidNetwork(f"{present!r} has no matching {present.rsplit('.', 1)[0]}.{kind!s}")
        layers.append(ArrayLayer(tensors[keys["weight"]], tensors[keys["bias"]], keys["weight"], keys["bias"]))
    return layers


def read(path: str) -> Network:
    """Read a ``.safetensors`` network file.

    Raises
    ------
    InvalidNetwork
        If the header is malformed or inconsistent with the data, a tensor
        has an unsupported dtype, the names are not an ``nn.Sequential``
        state dict, a layer lacks its weight or bias, or the shapes or values
        are invalid.

    Examples
    --------
    >>> read("examples/networks/small_16_8_3.safetensors").architecture
    (16, 8, 3)
    """
    tensors, metadata = _tensors(read_bytes(path))
    return network_from_arrays(_layers(tensors), name=metadata.get("reluid.name"),
                               description=metadata.get("reluid.description"))


def encode(net: Network) -> bytes:
    """The ``.safetensors`` bytes of ``net``: float64 tensors ``0.weight, 0.bias, 2.weight, ...``.

    Raises
    ------
    InvalidNetwork
        If a parameter is not exactly a float64.
    """
    tensors = {}
    for i, (W, b) in enumerate(float64_arrays(net)):
        tensors[f"{2 * i}.weight"] = W
        tensors[f"{2 * i}.bias"] = b
    metadata = {"format": "pt"}
    if net.name:
        metadata["reluid.name"] = net.name
    if net.description:
        metadata["reluid.description"] = net.description
    return _save_tensors(tensors, metadata=metadata)


def write(net: Network, path: str) -> None:
    """Write ``net`` as a ``.safetensors`` file (see :func:`encode`)."""
    write_bytes(path, encode(net))
