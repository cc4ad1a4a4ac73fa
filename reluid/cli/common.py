"""Helpers shared by the subcommands."""

from __future__ import annotations

__all__ = ["add_input_options", "add_memory_option", "apply_memory_option", "load_network", "positive_float",
           "positive_int", "write_text"]


def add_input_options(p) -> None:
    """``--assume``, ``--layers`` and ``--batchnorm``: what the user states about network files."""
    p.add_argument("--assume", choices=["relu-mlp"], default=None,
                   help="the architecture of a .safetensors file, which holds tensors but not the function: "
                        "relu-mlp = Linear layers in order, ReLU between them, nothing after the last "
                        "(recorded in the certificate; not needed for files reluid saved)")
    p.add_argument("--layers", metavar="A,B,...", default=None,
                   help="the order of a .safetensors file's Linear modules, e.g. fc1,fc2,out")
    p.add_argument("--batchnorm", choices=["exact", "float32"], default="exact",
                   help="fold ONNX BatchNormalization exactly (default; refused when a √(σ²+ε) is irrational) "
                        "or with its scale γ/√(σ²+ε) rounded to float32 (recorded in the certificate)")


def add_memory_option(p) -> None:
    """``--memory-gb G``: the memory cap every phase estimates against (reluid.budget)."""
    p.add_argument("--memory-gb", type=positive_gb, default=None, metavar="G",
                   help="memory cap in GB (default: RELUID_MEMORY_GB, else half the machine's memory); phases whose "
                        "estimated working set exceeds what is left are not attempted (the result says so), and "
                        "the data segment is limited a little above the cap")


#: Set by the console script: only a process of its own gets the data-segment limit (a test calling
#: ``main`` in-process keeps its limits).
ENFORCE_RLIMIT = False


def apply_memory_option(args) -> None:
    """Set the cap of :func:`add_memory_option` for this process (and, from the console script, the
    data-segment backstop)."""
    from reluid.budget import enforce_memory_cap, set_memory_cap

    gb = getattr(args, "memory_gb", None)
    if ENFORCE_RLIMIT:
        enforce_memory_cap(gb)
    elif gb is not None:
        set_memory_cap(gb)


def _double_range(net, path) -> None:
    """Refuse (invalid input) an entry past the range of IEEE double: every command but ``check`` searches with
    a float copy of the network (its results re-verified exactly), and such an entry has none."""
    import sys
    from fractions import Fraction

    from reluid.errors import InvalidNetwork

    top = Fraction(sys.float_info.max)
    for l, L in enumerate(net.layers, 1):
        if L.exact is not None:          # read from float arrays: every entry is a finite float already
            continue
        for i, row in enumerate([*L.weight, L.bias]):
            j = next((j for j, x in enumerate(row) if abs(x) > top), None)
            if j is not None:
                where = f"b^{l}[{j + 1}]" if i == L.n_out else f"W^{l}[{i + 1}, {j + 1}]"
                raise InvalidNetwork(f"{path}: {where} is beyond the range of IEEE double (about 1.8e308), in which "
                                     "reluid's float searches read the network; rescale the neurons it connects (a "
                                     "positive scaling of a hidden neuron's row, with the inverse on its outgoing "
                                     "weights, keeps every symmetry)")


def load_network(path, args=None, stderr=None, *, floats: bool = True):
    """Read ``path`` with the statements of :func:`add_input_options` found on ``args``.

    A warning of the reader (module names that suggest another function than
    the one stated, say) is printed as one line on ``stderr`` (default: the
    process's standard error).  With ``floats`` (every command but ``check``)
    an entry past the range of IEEE double is refused as invalid input.
    """
    import sys
    import warnings

    from reluid.api import load

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net = load(path, assume=getattr(args, "assume", None), layers=getattr(args, "layers", None),
                   batchnorm=getattr(args, "batchnorm", None) or "exact", spelling="cli")
    for w in caught:
        if issubclass(w.category, UserWarning):
            command = getattr(args, "command", None)
            print(f"reluid{' ' + command if command else ''}: warning: {w.message}", file=stderr or sys.stderr)
    if floats:
        _double_range(net, path)
    return net


def positive_float(text: str, unit: str = "seconds") -> float:
    """argparse type for --timeout: a positive number of seconds (a budget, not a parameter)."""
    import argparse
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of {unit}: {text!r}")
    return v


def positive_gb(text: str) -> float:
    """argparse type for --memory-gb: a positive number of GB."""
    return positive_float(text, "GB")


def _integer(text: str, least: int, words: str) -> int:
    """An integer ≥ ``least`` for argparse, else its error (``must be <words>``)."""
    import argparse
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < least:
        raise argparse.ArgumentTypeError(f"must be {words}: {text!r}")
    return v


def natural(text: str) -> int:
    """argparse type for --seed and --work-limit: an integer ≥ 0."""
    return _integer(text, 0, "an integer >= 0")


def positive_int(text: str) -> int:
    """argparse type for counts: a positive integer."""
    return _integer(text, 1, "positive")


def write_text(path, text: str) -> None:
    import os
    d = os.path.dirname(os.fspath(path))
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
