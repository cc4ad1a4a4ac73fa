"""``reluid equiv NET1 NET2``: decide functional equality exactly, for networks of any depth."""

from __future__ import annotations

from reluid.cli.common import add_input_options, load_network, positive_float

NAME = "equiv"
HELP = "decide whether two networks compute the same function (any depth)"
DESCRIPTION = ("Decide exactly whether NET1 and NET2 compute the same function. One hidden layer: the exact "
               "function data. Deeper: the canonical forms layer by layer (same orbit: the permutation and positive "
               "scalings per hidden layer), else an exact distinguishing input found by float probes, else for small "
               "networks an exact split over joint activation regions. Exit codes: 0 equal functions, 1 different "
               "(prints a distinguishing input and both outputs), 3 unknown (with the reason), 4 invalid input "
               "(including networks whose input or output sizes differ).")


def add_arguments(p) -> None:
    p.add_argument("net1", metavar="NET1",
                   help="the first network file, of any depth (.json, .npz, .onnx, .safetensors; see README, File "
                        "formats)")
    p.add_argument("net2", metavar="NET2", help="the second network, with the same input and output dimensions")
    p.add_argument("--timeout", type=positive_float, default=60.0, metavar="S",
                   help="seconds for the region split and z3 (deep networks; default 60)")
    p.add_argument("--seed", type=int, default=0, help="seed of the float probes (their answers are exact)")
    add_input_options(p)


def run(args, stdout, stderr) -> int:
    from reluid.api import equivalent
    from reluid.report.equivalence import generate_equivalence

    a, b = load_network(args.net1, args), load_network(args.net2, args)
    eq = equivalent(a, b, seed=args.seed, timeout=args.timeout)
    stdout.write(generate_equivalence(eq, args.net1, args.net2, depth=a.depth))
    return 3 if eq.equal is None else 0 if eq.equal else 1
