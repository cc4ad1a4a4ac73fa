"""``reluid equiv NET1 NET2``: decide functional equality exactly, for networks of any depth."""

from __future__ import annotations

from reluid.cli.common import add_input_options, load_network, natural, positive_float
from reluid.verdicts import EquivalenceMethod, ExitCode, Reason, ReasonCode

NAME = "equiv"
HELP = "decide whether two networks compute the same function (any depth)"
DESCRIPTION = ("Decide exactly whether NET1 and NET2 compute the same function. One hidden layer: the exact "
               "function data. Deeper: the canonical forms layer by layer (same orbit: the permutation and positive "
               "scalings per hidden layer), else an exact distinguishing input found by float probes, else for small "
               "networks an exact split over joint activation regions. A difference is reported with its size: at "
               "the distinguishing input x both outputs and |Δ| = max_k |NET2_k(x) - NET1_k(x)|, in decimals and "
               "exactly, and relative to the outputs' scale max_k max(|NET1_k(x)|, |NET2_k(x)|). --box and --near "
               "look for a distinguishing input where you care (float search, exact check); when none is found "
               "there, that is said, and it proves nothing. Exit codes: 0 equal functions, 1 different, 3 unknown "
               "(with the reason), 4 invalid input (including networks whose input or output sizes differ).")


def add_arguments(p) -> None:
    p.add_argument("net1", metavar="NET1",
                   help="the first network file, of any depth (.json, .npz, .onnx, .safetensors; see README, File "
                        "formats)")
    p.add_argument("net2", metavar="NET2", help="the second network, with the same input and output dimensions")
    p.add_argument("--timeout", type=positive_float, default=60.0, metavar="S",
                   help="seconds for the region split and z3 (deep networks; default 60)")
    p.add_argument("--seed", type=natural, default=0, help="seed of the float probes (their answers are exact)")
    p.add_argument("--format", choices=["text", "json"], default="text",
                   help="text (default) or json (reluid.equivalence/1: exact \"p/q\" values with decimals beside)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--box", metavar="LO,HI",
                       help="also look for a distinguishing input with every coordinate in [LO, HI] (decimals or "
                            "p/q; write --box=-1,1 for a negative LO)")
    where.add_argument("--near", metavar="FILE.npy",
                       help="also look for a distinguishing input close to the rows of this array (n × inputs; the "
                            "rows themselves, small moves and points between two rows)")
    add_input_options(p)


def parse_box(text: str):
    """``"LO,HI"`` → Region.box; InvalidArgument when it is not two numbers with LO ≤ HI."""
    from fractions import Fraction

    from reluid.api import region
    from reluid.errors import InvalidArgument

    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        lo, hi = (Fraction(t.strip()) for t in parts)
    except (ValueError, ZeroDivisionError):
        raise InvalidArgument(f"--box expects LO,HI (two numbers), got {text!r}") from None
    return region(box=(lo, hi))


def read_points(path: str):
    """The rows of a ``.npy`` file (never unpickled) → Region.near; InvalidNetwork (exit 4) when unreadable."""
    import numpy as np

    from reluid.api import region
    from reluid.errors import InvalidArgument, InvalidNetwork

    try:
        X = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise InvalidNetwork(f"--near: not a readable NumPy .npy array ({type(e).__name__}: {e})", path) from None
    if not isinstance(X, np.ndarray) or X.dtype.kind not in "fiu":
        raise InvalidNetwork("--near: expected a numeric array of inputs, one per row", path)
    try:
        return region(near=X)
    except InvalidArgument as e:
        raise InvalidNetwork(f"--near: {e}", path) from None


def run(args, stdout, stderr) -> ExitCode:
    from reluid.api import difference as measure, equivalent, search_region
    from reluid.errors import InvalidNetwork
    from reluid.report.equivalence import describe_region, generate_equivalence, generate_equivalence_json

    region = parse_box(args.box) if args.box else None
    if args.near:
        region = read_points(args.near)
    a, b = load_network(args.net1, args, stderr), load_network(args.net2, args, stderr)
    if region is not None and region.kind == "near" and region.points.shape[1] != a.input_dim:
        raise InvalidNetwork(f"--near: the rows have {region.points.shape[1]} coordinates; the networks have "
                             f"{a.input_dim} inputs", args.near)
    eq = equivalent(a, b, seed=args.seed, timeout=args.timeout)
    difference = measure(a, b, eq.input) if eq.equal is False else None
    found = None
    if region is not None and eq.equal is not True:
        found = search_region(a, b, region, seed=args.seed,
                              also=() if difference is None else (difference,))
    if eq.equal is None and found is not None and found.found is not None:
        from dataclasses import replace

        d = found.found            # the region search decided it: an exact distinguishing input
        eq = replace(eq, equal=False, input=d.input, outputs=d.outputs, method=EquivalenceMethod.REGION_FLOAT_SEARCH,
                     reason=Reason(ReasonCode.EQUIV_REGION_FOUND, {"region": describe_region(found.region),
                                                                   "before": eq.reason}))
        difference = d
    if args.format == "json":
        stdout.write(generate_equivalence_json(eq, args.net1, args.net2, difference, found))
    else:
        stdout.write(generate_equivalence(eq, args.net1, args.net2, depth=a.depth, difference=difference,
                                          region=found, labels=("net1", "net2")))
    return ExitCode.answer(eq.equal)
