"""Format dispatch and the exact array → network conversion shared by the readers.

:func:`load` and :func:`save` pick a format by the file's suffix.  The binary
readers (``.npz``, ``.onnx``, ``.safetensors``) all end in
:func:`network_from_arrays`, which validates a list of ``(weight, bias)`` numpy
arrays and converts every entry to the exact rational it holds; the binary
writers start from :func:`float_arrays` (float64 by default, or float32),
which refuses any network that the float type cannot hold exactly.

Every problem with a file is reported as :class:`~reluid.errors.InvalidNetwork`
(or its subclass :class:`~reluid.errors.UnsupportedOperator`) with a one-line
message that names the file.
"""

from __future__ import annotations

import importlib
import os
import stat
from dataclasses import dataclass
from fractions import Fraction
from itertools import repeat
from typing import Sequence

import numpy as np

from reluid.errors import InvalidArgument, InvalidNetwork
from reluid.model.dyadic import float_parts, from_float_arrays
from reluid.model.network import Layer, Network
from reluid.model.rational import FAST_FRACTIONS, coprime_fractions, gc_paused

__all__ = [
    "ASSUMPTIONS",
    "BATCHNORM_MODES",
    "PICKLE_SUFFIXES",
    "ReadOptions",
    "read_file",
    "MAX_FILE_BYTES",
    "MAX_PARAMS",
    "SUFFIXES",
    "ArrayLayer",
    "load",
    "save",
    "check_file",
    "check_param_count",
    "network_from_arrays",
    "exact_values",
    "float64_arrays",
    "float_arrays",
    "stored_types",
    "read_bytes",
    "write_bytes",
    "one_line",
]

MAX_FILE_BYTES = 2 * 1024**3
"""Files (and decompressed archive contents) larger than this are refused."""

MAX_PARAMS = 10**9
"""Networks with more parameters than this are refused before any conversion."""

#: suffix -> (module implementing ``read(path)`` and ``write(net, path)``, optional
#: dependency it needs).  The modules are imported on first use, so ``import
#: reluid.io`` pulls in neither onnx nor safetensors.
SUFFIXES = {
    ".json": ("reluid.io.json_format", None),
    ".npz": ("reluid.io.npz", None),
    ".onnx": ("reluid.io.onnx_format", "onnx"),
    ".safetensors": ("reluid.io.safetensors_format", "safetensors"),
}


#: Suffixes of pickle-based files (PyTorch checkpoints, joblib/pickle dumps).
#: They are refused by name: unpickling runs arbitrary code.
PICKLE_SUFFIXES = (".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".joblib")

PICKLE_ADVICE = ("reluid never unpickles (loading a pickle runs arbitrary code); for a PyTorch model export "
                 "ONNX, save its state_dict as .safetensors and state the architecture (--assume relu-mlp), "
                 "or call reluid.from_torch(model) in Python; for scikit-learn call reluid.from_sklearn(estimator)")

#: The architectures a user (or the file's ``reluid`` metadata) can state for
#: a file that holds tensors only.  ``relu-mlp``: the layers are Linear maps
#: ``x -> W x + b`` (W stored n_out × n_in), applied in order, with ReLU
#: between consecutive layers and nothing after the last.
ASSUMPTIONS = ("relu-mlp",)

#: How a BatchNorm whose scale γ/√(σ²+ε) is irrational may be folded:
#: ``exact`` refuses it, ``float32`` uses the scale correctly rounded to
#: float32 and records that (see :mod:`reluid.io.chain`).
BATCHNORM_MODES = ("exact", "float32")


@dataclass(frozen=True)
class ReadOptions:
    """What the user states about a file beyond what the file says itself.

    Parameters
    ----------
    assume : str, optional
        One of :data:`ASSUMPTIONS`; needed for ``.safetensors`` files without
        reluid's own metadata, ignored by formats that state their function.
    layers : tuple of str, optional
        The order of a ``.safetensors`` file's modules (``("fc1", "fc2", "out")``).
    batchnorm : str
        One of :data:`BATCHNORM_MODES`.
    cli : bool
        Name the options as command-line flags (``--assume relu-mlp``) rather
        than as keyword arguments (``assume='relu-mlp'``) in messages and in
        the recorded assumption.
    """

    assume: str | None = None
    layers: tuple[str, ...] | None = None
    batchnorm: str = "exact"
    cli: bool = False

    def __post_init__(self):
        if self.assume is not None and self.assume not in ASSUMPTIONS:
            raise InvalidArgument(f"{self.flag('assume')}: unknown architecture {self.assume!r}; "
                                  f"expected one of {', '.join(ASSUMPTIONS)}")
        if self.batchnorm not in BATCHNORM_MODES:
            raise InvalidArgument(f"{self.flag('batchnorm')}: expected one of {', '.join(BATCHNORM_MODES)}, "
                                  f"got {self.batchnorm!r}")
        layers = self.layers
        if layers is not None:
            if isinstance(layers, str):
                layers = tuple(part.strip() for part in layers.split(","))
            else:
                try:
                    layers = tuple(layers)
                except TypeError:
                    raise InvalidArgument(f"{self.flag('layers')}: expected module names, got "
                                          f"{type(self.layers).__name__}") from None
            if not layers or not all(isinstance(x, str) and x for x in layers):
                raise InvalidArgument(f"{self.flag('layers')}: expected a non-empty list of module names")
            object.__setattr__(self, "layers", layers)

    def flag(self, name: str, value: str | None = None) -> str:
        """How the user spells option ``name`` (with ``value``): ``--assume relu-mlp`` or ``assume='relu-mlp'``."""
        if self.cli:
            return f"--{name}" + (f" {value}" if value is not None else "")
        return f"{name}=" + (repr(value) if value is not None else "")


# ---------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------
def _format_module(path: str, *, for_writing: bool):
    """The module handling ``path``'s suffix, imported now."""
    def error(message: str) -> Exception:  # the caller's mistake when writing, the file's when reading
        return InvalidArgument(f"{path}: {message}") if for_writing else InvalidNetwork(message, path)

    suffix = os.path.splitext(path)[1].lower()
    if suffix in PICKLE_SUFFIXES and not for_writing:
        raise error(f"{suffix} files are pickles: {PICKLE_ADVICE}")
    if suffix not in SUFFIXES:
        raise error(f"unknown file type {suffix or '(no suffix)'!r}; expected one of {', '.join(SUFFIXES)}")
    module, dependency = SUFFIXES[suffix]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if dependency is None or (exc.name or "").partition(".")[0] != dependency:
            raise
        raise error(f"{suffix} files need the optional dependency {dependency} "
                    f"(pip install 'reluid[{dependency}]')") from None


def load(path, *, assume: str | None = None, layers=None, batchnorm: str = "exact") -> Network:
    """Read a network file, choosing the format by its suffix.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.json`` (reluid format), ``.npz``, ``.onnx`` or ``.safetensors`` file.
    assume : {"relu-mlp"}, optional
        The architecture of a ``.safetensors`` file, which holds tensors but
        not the function they compute.  Needed unless the file carries the
        ``reluid`` metadata that :func:`save` writes; recorded in
        :attr:`Network.assumption` and so in every certificate and report.
        Formats that state their function ignore it.
    layers : str or sequence of str, optional
        The order of a ``.safetensors`` file's layers by module name
        (``"fc1,fc2,out"``), for names that do not sort unambiguously.
    batchnorm : {"exact", "float32"}
        How an ONNX ``BatchNormalization`` is folded into its neighbouring
        affine layer: ``"exact"`` only when every √(σ²+ε) is rational,
        ``"float32"`` with the scale γ/√(σ²+ε) correctly rounded to float32
        (recorded in :attr:`Network.assumption`).

    Returns
    -------
    Network
        The network with every parameter the exact rational the file holds:
        decimal text is read as the decimal it denotes, binary floats as their
        exact binary value.

    Raises
    ------
    InvalidNetwork
        For any problem with the file (missing, too large, malformed, NaN or
        infinite entries, inconsistent shapes, unsupported ONNX operators, a
        safetensors file without a statement of its architecture, a pickle...).
        The message is one line and names the file.
    InvalidArgument
        For an unknown ``assume`` or ``batchnorm``, or ``layers`` given for a
        format other than safetensors.

    Examples
    --------
    >>> net = load("examples/networks/theta1.json")
    >>> net.architecture
    (2, 3, 1)
    """
    return read_file(path, ReadOptions(assume=assume, layers=layers, batchnorm=batchnorm))


def read_file(path, options: ReadOptions = ReadOptions()) -> Network:
    """:func:`load` with the options collected in a :class:`ReadOptions` (the CLI's entry point)."""
    path = os.fspath(path)
    module = _format_module(path, for_writing=False)
    if options.layers is not None and os.path.splitext(path)[1].lower() != ".safetensors":
        raise InvalidArgument(f"{path}: {options.flag('layers')} applies only to .safetensors files "
                              "(the other formats state their layer order)")
    check_file(path)
    try:
        return module.read(path, options)
    except InvalidNetwork as err:
        raise _printable(err.with_path(path)) from None


def save(net: Network, path, *, float_type: str = "float64", names: tuple[str, str] | None = None) -> None:
    """Write ``net`` to ``path``, choosing the format by its suffix.

    ``.json`` keeps every rational exactly.  The binary formats store
    ``float_type`` (float64 by default, or float32) and are written only when
    every parameter is exactly a value of that type.

    Parameters
    ----------
    net : Network
    path : str or os.PathLike
    float_type : {"float64", "float32"}, keyword-only
        The element type of the binary formats (ignored by ``.json``).
    names : (str, str), keyword-only
        The names of the graph input and output (``.onnx`` only; default
        ``input`` and ``output``).

    Raises
    ------
    InvalidArgument
        If ``net`` is not a :class:`Network` or the suffix is unknown.
    InvalidNetwork
        If the format cannot hold ``net`` exactly (save to ``.json`` instead);
        nothing is written then.
    OSError
        If the file cannot be written.
    """
    if not isinstance(net, Network):
        raise InvalidArgument(f"save expects a Network, got {type(net).__name__}")
    path = os.fspath(path)
    module = _format_module(path, for_writing=True)
    if float_type not in FLOAT_TYPES:
        raise InvalidArgument(f"float_type must be one of {', '.join(FLOAT_TYPES)}, not {float_type!r}")
    options = {}
    if module.__name__ != "reluid.io.json_format":
        options["float_type"] = float_type
    if names is not None and module.__name__ == "reluid.io.onnx_format":
        options["names"] = names
    try:
        module.write(net, path, **options)
    except InvalidNetwork as err:
        raise err.with_path(path) from None


def stored_types(path) -> tuple[str | None, tuple[str, str] | None]:
    """``(float_type, names)`` of a network file: its parameters' float type, and (ONNX) its input and output names.

    ``float_type`` is ``"float32"`` when every float parameter is stored as
    float32 (or narrower), ``"float64"`` when some is float64, None for
    ``.json`` or a file without float parameters; ``names`` is None except
    for ``.onnx``.  The file is assumed readable (it was loaded before).
    """
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    kinds: set[str] = set()
    names = None
    if suffix == ".onnx":
        import onnx

        model = onnx.load(path, load_external_data=False)
        inits = {t.name for t in model.graph.initializer}
        by_code = {onnx.TensorProto.FLOAT: "float32", onnx.TensorProto.DOUBLE: "float64",
                   onnx.TensorProto.FLOAT16: "float32", onnx.TensorProto.BFLOAT16: "float32"}
        kinds = {by_code[t.data_type] for t in model.graph.initializer if t.data_type in by_code}
        inputs = [v.name for v in model.graph.input if v.name not in inits]
        if len(inputs) == 1 and len(model.graph.output) == 1:
            names = (inputs[0], model.graph.output[0].name)
    elif suffix == ".safetensors":
        import json
        import struct

        with open(path, "rb") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(n))
        by_name = {"F64": "float64", "F32": "float32", "F16": "float32", "BF16": "float32"}
        kinds = {by_name[e["dtype"]] for k, e in header.items() if k != "__metadata__" and e.get("dtype") in by_name}
    elif suffix == ".npz":
        with np.load(path, allow_pickle=False) as data:
            for key in data.files:
                kind = data[key].dtype
                if kind.kind == "f":
                    kinds.add("float64" if kind.itemsize > 4 else "float32")
    if not kinds:
        return None, names
    return ("float64" if "float64" in kinds else "float32"), names


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------
def unique_keys(pairs):
    """``json.loads`` object hook that rejects duplicate keys (JSON lets the last one win silently)."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise InvalidNetwork(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def one_line(text) -> str:
    """Collapse whitespace (a third-party message may span lines)."""
    return " ".join(str(text).split())


def _escape(text: str) -> str:
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _printable(err: InvalidNetwork) -> InvalidNetwork:
    """``err`` with control characters (a newline in a name read from the file, say) escaped."""
    if str(err).isprintable():
        return err
    clean = type(err).__new__(type(err))
    InvalidNetwork.__init__(clean, _escape(err.message), err.path and _escape(err.path))
    return clean


def check_file(path: str) -> int:
    """Check that ``path`` is a readable regular file within the size cap.

    Returns
    -------
    int
        The file size in bytes.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InvalidNetwork("no such file", path) from None
    except OSError as exc:
        raise InvalidNetwork(f"cannot access the file ({one_line(exc.strerror or exc)})", path) from None
    if stat.S_ISDIR(st.st_mode):
        raise InvalidNetwork("is a directory, not a network file", path)
    if not stat.S_ISREG(st.st_mode):
        raise InvalidNetwork("is not a regular file", path)
    if st.st_size > MAX_FILE_BYTES:
        raise InvalidNetwork(
            f"file is {st.st_size} bytes, larger than the {MAX_FILE_BYTES}-byte limit", path)
    return st.st_size


def read_bytes(path: str) -> bytes:
    """The contents of ``path``, with OS errors reported as InvalidNetwork."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise InvalidNetwork(f"cannot read the file ({one_line(exc.strerror or exc)})", path) from None


def write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` (encoded in full first, so a refused network leaves no file)."""
    with open(path, "wb") as fh:
        fh.write(data)


# ---------------------------------------------------------------------------
# exact conversion of numpy arrays
# ---------------------------------------------------------------------------
# The probe lives with the exact rationals (reluid.model.rational), where the analyses use it too.
_FAST_FRACTIONS = FAST_FRACTIONS


def _fractions(numerators: list[int], denominators) -> list[Fraction]:
    """``[Fraction(n, d) ...]`` for coprime ``n`` and ``d > 0``."""
    with gc_paused():
        return coprime_fractions(numerators, denominators)


def _check_dtype(array: np.ndarray, name: str) -> None:
    dt = array.dtype
    if dt.kind in "iu" or dt.name == "bfloat16":
        return
    if dt.kind == "f" and dt.itemsize <= 8:
        return
    if dt.kind == "O":
        raise InvalidNetwork(f"{name} is an object array (pickled data is never loaded)")
    raise InvalidNetwork(f"{name} has dtype {dt}; expected an integer or float16/32/64 array")


def _check_finite(x: np.ndarray, name: str) -> None:
    """Refuse a NaN or infinite entry of the flat float array ``x`` (of any accepted float type)."""
    finite = np.isfinite(x)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise InvalidNetwork(f"{name} has a non-finite entry ({float(x[i])}) at flat index {i}")


def _is_float(array: np.ndarray) -> bool:
    return array.dtype.kind == "f" or array.dtype.name == "bfloat16"


def exact_values(array: np.ndarray, name: str = "array") -> list[Fraction]:
    """The exact value of every entry of ``array``, flattened in C order.

    Integers are read as themselves; floats (float16, bfloat16, float32,
    float64) as the exact binary rational they hold, so float32 ``0.1`` is
    ``13421773/134217728``.  The decomposition into odd mantissa and power of
    two is vectorised; only the final Fraction objects are built in Python.

    Parameters
    ----------
    array : numpy.ndarray
    name : str
        How to call the array in error messages.

    Raises
    ------
    InvalidNetwork
        For an unsupported dtype or a NaN/infinite entry.

    Examples
    --------
    >>> exact_values(np.array([0.1, -2.0], dtype=np.float32))
    [Fraction(13421773, 134217728), Fraction(-2, 1)]
    """
    _check_dtype(array, name)
    flat = np.ascontiguousarray(array).reshape(-1)
    if flat.dtype.kind in "iu":
        return _fractions(flat.tolist(), repeat(1))
    x = flat.astype(np.float64)  # exact widening from every accepted float type
    _check_finite(x, name)
    n, k = float_parts(x)
    numerators = n.tolist()
    exponents = k.tolist()
    for i in np.flatnonzero(k < 0).tolist():  # integer values >= 2**53
        numerators[i] <<= -exponents[i]
        exponents[i] = 0
    powers = [1 << e for e in range(max(exponents, default=0) + 1)]
    return _fractions(numerators, map(powers.__getitem__, exponents))


# ---------------------------------------------------------------------------
# arrays -> network
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ArrayLayer:
    """One affine layer as read from a file, before exact conversion.

    The layer is ``x -> weight_scale * weight @ x + bias_scale * bias``; the
    scales carry ONNX Gemm's ``alpha``/``beta`` exactly.

    Parameters
    ----------
    weight : numpy.ndarray
        Shape ``(n_out, n_in)``.
    bias : numpy.ndarray
        Shape ``(n_out,)``.
    weight_name, bias_name : str
        The names the file gives them (for error messages).
    weight_scale, bias_scale : Fraction
    """

    weight: np.ndarray
    bias: np.ndarray
    weight_name: str
    bias_name: str
    weight_scale: Fraction = Fraction(1)
    bias_scale: Fraction = Fraction(1)


def check_param_count(count: int) -> None:
    """Refuse networks with more than :data:`MAX_PARAMS` parameters."""
    if count > MAX_PARAMS:
        raise InvalidNetwork(f"the network has {count} parameters, more than the limit of {MAX_PARAMS}")


def _fits_transposed(layers: Sequence[ArrayLayer]) -> bool:
    """Whether the shapes would chain if every weight were stored n_in × n_out."""
    previous = None
    for L in layers:
        if not (isinstance(L.weight, np.ndarray) and isinstance(L.bias, np.ndarray)
                and L.weight.ndim == 2 and L.bias.ndim == 1 and L.bias.shape[0] == L.weight.shape[1]):
            return False
        if previous is not None and L.weight.shape[0] != previous.weight.shape[1]:
            return False
        previous = L
    return True


TRANSPOSED_HINT = "weights are n_out × n_in; this looks transposed"


def _check_shapes(layers: Sequence[ArrayLayer], orientation_hint: bool = False) -> None:
    try:
        _check_shapes_as_stored(layers)
    except InvalidNetwork as err:
        if orientation_hint and layers and _fits_transposed(layers):
            raise InvalidNetwork(f"{err.message}; {TRANSPOSED_HINT}") from None
        raise


def _check_shapes_as_stored(layers: Sequence[ArrayLayer]) -> None:
    if not layers:
        raise InvalidNetwork("the file contains no layers")
    count = 0
    previous = None
    for L in layers:
        for array, name in ((L.weight, L.weight_name), (L.bias, L.bias_name)):
            if not isinstance(array, np.ndarray):
                raise InvalidNetwork(f"{name} is not an array")
            _check_dtype(array, name)
        if L.weight.ndim != 2:
            raise InvalidNetwork(f"{L.weight_name} must be 2-dimensional, got shape {L.weight.shape}")
        if L.bias.ndim != 1:
            raise InvalidNetwork(f"{L.bias_name} must be 1-dimensional, got shape {L.bias.shape}")
        n_out, n_in = L.weight.shape
        if L.bias.shape[0] != n_out:
            raise InvalidNetwork(
                f"{L.weight_name} has shape {L.weight.shape} but {L.bias_name} has shape {L.bias.shape}")
        if previous is not None and n_in != previous.weight.shape[0]:
            raise InvalidNetwork(
                f"{L.weight_name} has {n_in} columns but {previous.weight_name} has "
                f"{previous.weight.shape[0]} rows")
        count += n_out * (n_in + 1)
        previous = L
    check_param_count(count)


def _scaled(values: list[Fraction], scale: Fraction) -> list[Fraction]:
    return values if scale == 1 else [v * scale for v in values]


def network_from_arrays(layers: Sequence[ArrayLayer], *, name: str | None = None,
                        description: str | None = None, assumption: str | None = None,
                        orientation_hint: bool = False) -> Network:
    """Validate ``(weight, bias)`` arrays and build the exact :class:`Network`.

    Parameters
    ----------
    layers : sequence of ArrayLayer
        In order from input to output; ReLU is applied after every layer but
        the last.
    name, description, assumption : str, optional
    orientation_hint : bool
        When the shapes do not chain but would with every weight transposed,
        say so (for formats whose convention is n_out × n_in).

    Raises
    ------
    InvalidNetwork
        If there are no layers, an array has the wrong dtype or number of
        dimensions, the shapes do not chain, an entry is NaN or infinite, or
        the parameter count exceeds :data:`MAX_PARAMS`.

    Examples
    --------
    >>> net = network_from_arrays([ArrayLayer(np.array([[0.5, -1.0]]), np.array([3]), "W1", "b1")])
    >>> net.layers[0].weight, net.layers[0].bias
    (((Fraction(1, 2), Fraction(-1, 1)),), (Fraction(3, 1),))
    """
    _check_shapes(layers, orientation_hint)
    built = []
    for L in layers:
        n_out, n_in = L.weight.shape
        if _is_float(L.weight) and _is_float(L.bias) and L.weight_scale == 1 and L.bias_scale == 1:
            # binary floats: integer mantissas with a power of two per row, Fractions only on demand
            _check_finite(L.weight.reshape(-1), L.weight_name)
            _check_finite(L.bias, L.bias_name)
            built.append(Layer(None, None, n_in, from_float_arrays(L.weight, L.bias)))
            continue
        w = _scaled(exact_values(L.weight, L.weight_name), L.weight_scale)
        b = _scaled(exact_values(L.bias, L.bias_name), L.bias_scale)
        rows = tuple(tuple(w[i:i + n_in]) for i in range(0, n_out * n_in, n_in)) if n_in else ((),) * n_out
        built.append(Layer(rows, tuple(b), n_in))
    return Network(tuple(built), name=name, description=description, assumption=assumption)


# ---------------------------------------------------------------------------
# network -> arrays
# ---------------------------------------------------------------------------
def _is_float64(q: Fraction) -> bool:
    try:
        return Fraction(float(q)) == q
    except OverflowError:
        return False


#: The float types the binary writers store.
FLOAT_TYPES = ("float32", "float64")


def _float64_array(values: list[Fraction], shape: tuple[int, ...], what: str,
                   float_type: str = "float64") -> np.ndarray:
    dtype = np.dtype(float_type)
    try:
        with np.errstate(over="ignore"):
            array = np.array(list(map(float, values)), dtype=np.float64).astype(dtype)
        exact = bool(np.isfinite(array).all()) and exact_values(array) == values
    except OverflowError:
        exact = False
    if not exact:
        bad = next(i for i, q in enumerate(values)
                   if not _is_float64(q) or (float_type == "float32" and Fraction(float(np.float32(float(q)))) != q))
        index = "][".join(str(int(j)) for j in np.unravel_index(bad, shape))
        raise InvalidNetwork(
            f"{what}[{index}] = {values[bad]} is not exactly a {float_type}; "
            "save to .json to keep exact rationals")
    return array.reshape(shape)


def float_arrays(net: Network, float_type: str = "float64") -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(weight, bias), ...]`` as ``float_type`` arrays holding ``net`` exactly (InvalidNetwork otherwise)."""
    if float_type not in FLOAT_TYPES:
        raise InvalidArgument(f"float_type must be one of {', '.join(FLOAT_TYPES)}, not {float_type!r}")
    out = []
    for i, L in enumerate(net.layers):
        flat = [x for row in L.weight for x in row]
        W = _float64_array(flat, (L.n_out, L.n_in), f"layer {i} weight", float_type)
        b = _float64_array(list(L.bias), (L.n_out,), f"layer {i} bias", float_type)
        out.append((W, b))
    return out


def float64_arrays(net: Network) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(weight, bias), ...]`` as float64 arrays holding ``net`` exactly (:func:`float_arrays`).

    Raises
    ------
    InvalidNetwork
        If some parameter is not exactly a float64 (such as 1/3).
    """
    return float_arrays(net, "float64")
