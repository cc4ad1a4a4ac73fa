"""``reluid equiv NET1 NET2``: decide functional equality exactly."""

from __future__ import annotations

from reluid.cli.common import add_input_options, load_network

NAME = "equiv"
HELP = "decide whether two shallow networks compute the same function"
DESCRIPTION = "Exit codes: 0 equal functions, 1 different (prints a distinguishing input), 4 invalid input."


def add_arguments(p) -> None:
    p.add_argument("net1", metavar="NET1",
                   help="the first shallow network file (.json, .npz, .onnx, .safetensors; see README, File formats)")
    p.add_argument("net2", metavar="NET2", help="the second shallow network, with the same input and output dimensions")
    add_input_options(p)


def run(args, stdout, stderr) -> int:
    from reluid.api import equivalent
    from reluid.report.shallow import generate_equivalence

    eq = equivalent(load_network(args.net1, args), load_network(args.net2, args))
    stdout.write(generate_equivalence(eq, args.net1, args.net2))
    return 0 if eq.equal else 1
