"""``reluid fundim NET``: certified functional dimension.

Exit codes: 0 when dim_fun = U is certified, 3 when only a lower bound below U
was certified (the gap is evidence of hidden symmetries, not a proof), 4 for an
invalid network file, 2 for usage errors.
"""

from __future__ import annotations

import argparse

from reluid.cli.common import (add_input_options, add_memory_option, apply_memory_option, load_network,
                               natural, positive_float, positive_int, write_text)
from reluid.verdicts import ExitCode

NAME = "fundim"
HELP = "certified functional dimension (exact Jacobian rank modulo a prime)"
DESCRIPTION = ("Certify a lower bound on the functional dimension of NET (Grigsby-Lindsey-Meyerhoff-Wu) from exactly "
               "checked parametrically smooth sample points, and compare it with the upper bound U = D - #hidden "
               "neurons. Exit codes: 0 certified dim_fun = U, 3 lower bound below U, 4 invalid input, 2 usage.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("network", metavar="NET",
                   help="network file (.json, .npz, .onnx, .safetensors; see README, File formats)")
    p.add_argument("--points", type=positive_int, default=None, metavar="N",
                   help="the most Gaussian sample points (default 100 × U; drawn in growing batches, stopping at U)")
    p.add_argument("--timeout", type=positive_float, default=None, metavar="S",
                   help="time budget in seconds: the rank found by then is reported (a certified lower bound), "
                        "with an estimate of the time the rest would need")
    p.add_argument("--seed", type=natural, default=0, help="sampling seed (default 0)")
    p.add_argument("--exact", action="store_true",
                   help="find every activation pattern exactly (slower; witness points are always checked exactly)")
    p.add_argument("--exact-cells", action="store_true",
                   help="enumerate the activation cells exactly and give dim_fun itself (docs/mathematics.md §9); "
                        "exit 0 when dim_fun = U is proved")
    p.add_argument("--triangular", action="store_true",
                   help="the block-triangular sufficient condition of Theorem A3 (docs/mathematics.md §6.4): "
                        "local identifiability and dim_fun = U at MNIST size, re-verified by the checker; exit 0 "
                        "when it holds, 3 when it could not be met (which proves nothing)")
    p.add_argument("--json", metavar="FILE", help="write the result (with the witness points) as JSON")
    p.add_argument("--progress", action="store_true",
                   help="show one progress bar across every phase on stderr (needs rich; off when stderr is not a "
                        "terminal)")
    add_memory_option(p)
    add_input_options(p)


def run(args, stdout, stderr) -> ExitCode:
    from reluid.api import functional_dimension, progress_bar
    from reluid.report.fundim import generate_fundim_json, generate_fundim_text

    import time

    start = time.monotonic()
    apply_memory_option(args)
    with progress_bar(args.progress, stream=stderr) as bar, bar.stage("", ["read", "functional dimension"]):
        bar.step("read")
        net = load_network(args.network, args)
        bar.step("functional dimension")
        if args.exact_cells:
            import json

            from reluid.api import exact_functional_dimension
            from reluid.report.fundim import cells_fundim_dict, describe_cells

            left = None if args.timeout is None else max(0.0, start + args.timeout - time.monotonic())
            c = exact_functional_dimension(net, timeout=left)
            stdout.write(f"{args.network}: {describe_cells(c)}\n")
            if args.json:
                write_text(args.json, json.dumps(cells_fundim_dict(c), indent=1) + "\n")
            return ExitCode.OK if c.exact and c.certified else ExitCode.UNKNOWN
        deadline = None if args.timeout is None else start + args.timeout
        if args.triangular:
            return _triangular(net, args, deadline, stdout)
        r = functional_dimension(net, points=args.points, seed=args.seed, method="exact" if args.exact else "auto",
                                 deadline=deadline, progress=bar)
    stdout.write(generate_fundim_text(r, args.network))
    if args.json:
        write_text(args.json, generate_fundim_json(r))
    return ExitCode.OK if r.certified else ExitCode.UNKNOWN


def _triangular(net, args, deadline, stdout) -> ExitCode:
    """Theorem A3: the producer's points and combinations, then the checker's own re-computation of both claims."""
    import json

    from reluid.api import triangular_identifiability
    from reluid.errors import CheckFailed
    from reluid.report.fundim import describe_triangular

    try:
        r, ev, lines = triangular_identifiability(net, seed=args.seed, deadline=deadline)
    except CheckFailed as e:                               # pragma: no cover - the producer's evidence is checked
        stdout.write(f"check failed: {e}\n")
        return ExitCode.UNKNOWN
    stdout.write(f"{args.network}: {describe_triangular(r)}\n")
    for line in lines:
        stdout.write(f"check ({line})\n")
    if args.json:
        write_text(args.json, json.dumps(ev) + "\n")
    return ExitCode.OK if r.full_rank and lines else ExitCode.UNKNOWN
