"""NumPy ``.npz`` archives of weight and bias arrays.

An archive holds ``W1, b1, W2, b2, ...`` (1-based) or ``weight_0, bias_0,
weight_1, bias_1, ...`` (0-based), ``W`` of shape ``(n_out, n_in)`` and ``b``
of shape ``(n_out,)``; ReLU follows every layer but the last.  Integer arrays
are read exactly and float arrays as the exact binary value of each entry.

Every member's header is inspected before its data is read, so object
(pickled) arrays and oversized arrays are refused without being loaded, and
data is read with ``allow_pickle=False`` in any case.  Writing stores float64
arrays ``W1, b1, ...`` and refuses networks that float64 cannot hold exactly.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib

import numpy as np

from reluid.errors import InvalidNetwork
from reluid.model.network import Network
from reluid.io.loader import (
    MAX_FILE_BYTES, ArrayLayer, check_param_count, float_arrays, network_from_arrays,
    one_line, write_bytes,
)

__all__ = ["read", "write", "encode"]

#: The two accepted naming schemes: (weight prefix, bias prefix, first index).
_SCHEMES = (("W", "b", 1), ("weight_", "bias_", 0))
_KEY = re.compile(r"(W|b|weight_|bias_)(0|[1-9]\d*)\Z")

#: A fixed timestamp makes written archives byte-for-byte reproducible.
_EPOCH = (1980, 1, 1, 0, 0, 0)


def _header(zf: zipfile.ZipFile, member: zipfile.ZipInfo, key: str) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype from a member's .npy header, without reading its data."""
    with zf.open(member) as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            raise InvalidNetwork(f"array {key!r} uses unsupported .npy format version {version}")
    return shape, dtype


def _layer_keys(keys: list[str]) -> list[tuple[str, str]]:
    """``[(weight_key, bias_key), ...]`` in layer order, checking the naming scheme."""
    if not keys:
        raise InvalidNetwork("the archive contains no arrays")
    parsed = {}
    for key in keys:
        m = _KEY.match(key)
        if not m:
            raise InvalidNetwork(f"unexpected array {key!r}; expected W1, b1, W2, b2, ... "
                                 "or weight_0, bias_0, ...")
        parsed[key] = (m.group(1), int(m.group(2)))
    for w_prefix, b_prefix, first in _SCHEMES:
        if not all(prefix in (w_prefix, b_prefix) for prefix, _ in parsed.values()):
            continue
        indices = {index for _, index in parsed.values()}
        if min(indices) < first:
            lowest = min(parsed, key=lambda key: parsed[key][1])
            raise InvalidNetwork(f"unexpected array {lowest!r} (layers are numbered from {first})")
        expected = [(f"{w_prefix}{i}", f"{b_prefix}{i}") for i in range(first, first + len(indices))]
        for key in (key for pair in expected for key in pair):
            if key not in parsed:
                raise InvalidNetwork(f"array {key!r} is missing (layers are numbered "
                                     f"{first}, {first + 1}, ... without gaps)")
        return expected
    raise InvalidNetwork("the archive mixes the W1/b1 and weight_0/bias_0 naming schemes")


def _arrays(zf: zipfile.ZipFile) -> tuple[list[tuple[str, str]], dict[str, np.ndarray]]:
    members = {}
    for info in zf.infolist():
        if not info.filename.endswith(".npy"):
            raise InvalidNetwork(f"unexpected member {info.filename!r} (an .npz holds only .npy arrays)")
        if info.filename[:-4] in members:
            raise InvalidNetwork(f"the archive holds {info.filename!r} twice")
        members[info.filename[:-4]] = info
    pairs = _layer_keys(list(members))
    unpacked = sum(info.file_size for info in members.values())
    if unpacked > MAX_FILE_BYTES:
        raise InvalidNetwork(f"the archive unpacks to {unpacked} bytes, more than the "
                             f"{MAX_FILE_BYTES}-byte limit")
    count = 0
    for key, info in members.items():
        shape, dtype = _header(zf, info, key)
        if dtype.hasobject:
            raise InvalidNetwork(f"array {key!r} is an object array (pickled data is never loaded)")
        count += int(np.prod(shape, dtype=object))
    check_param_count(count)
    arrays = {}
    for key, info in members.items():
        with zf.open(info) as fh:
            arrays[key] = np.lib.format.read_array(fh, allow_pickle=False)
    return pairs, arrays


def read(path: str, options=None) -> Network:
    """Read an ``.npz`` network file.

    Raises
    ------
    InvalidNetwork
        If the file is not a zip of ``.npy`` arrays, an array is missing,
        misnamed, of object or unsupported dtype, of the wrong dimension or
        shape, or holds NaN or infinity.

    Examples
    --------
    >>> net = read("examples/networks/mnist_like_16_8_3.npz")
    >>> net.architecture
    (16, 8, 3)
    """
    try:
        with zipfile.ZipFile(path) as zf:
            pairs, arrays = _arrays(zf)
    except InvalidNetwork:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, OSError, EOFError,
            ValueError, TypeError, NotImplementedError, RuntimeError) as exc:
        raise InvalidNetwork(f"not a readable .npz archive ({type(exc).__name__}: {one_line(exc)})",
                             path) from None
    return network_from_arrays([ArrayLayer(arrays[w], arrays[b], w, b) for w, b in pairs], orientation_hint=True)


def encode(net: Network, float_type: str = "float64") -> bytes:
    """The ``.npz`` bytes of ``net``: ``float_type`` arrays ``W1, b1, ...``.

    Raises
    ------
    InvalidNetwork
        If a parameter is not exactly a float64, or the network carries an
        assumption (an ``.npz`` archive has no place for it).
    """
    if net.assumption:
        raise InvalidNetwork(f"the network was read under an assumption ({net.assumption[:80]}...) that .npz "
                             "cannot record; save to .json, .onnx or .safetensors, which keep it")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for i, (W, b) in enumerate(float_arrays(net, float_type), start=1):
            for key, array in ((f"W{i}", W), (f"b{i}", b)):
                with zf.open(zipfile.ZipInfo(f"{key}.npy", date_time=_EPOCH), "w", force_zip64=True) as fh:
                    np.lib.format.write_array(fh, array, allow_pickle=False)
    return buffer.getvalue()


def write(net: Network, path: str, float_type: str = "float64") -> None:
    """Write ``net`` as an ``.npz`` file (see :func:`encode`)."""
    write_bytes(path, encode(net, float_type))
