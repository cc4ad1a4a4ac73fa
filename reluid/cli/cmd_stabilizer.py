"""``reluid stabilizer NET``: the structure of Stab_{H_n}(θ) (Theorem 2)."""

from __future__ import annotations

from reluid.cli.common import add_input_options, load_network
from reluid.verdicts import ExitCode

NAME = "stabilizer"
HELP = "print the stabilizer of a shallow network in H_n"


def add_arguments(p) -> None:
    p.add_argument("network", metavar="NET",
                   help="a shallow network file (.json, .npz, .onnx, .safetensors; see README, File formats)")
    add_input_options(p)


def run(args, stdout, stderr) -> ExitCode:
    from reluid.api import stabilizer
    from reluid.report.shallow import generate_stabilizer

    stdout.write(generate_stabilizer(stabilizer(load_network(args.network, args))))
    return ExitCode.OK
