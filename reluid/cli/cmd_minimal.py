"""``reluid minimal NET``: print the minimal form (Ramakrishnan 2026, Definition 3)."""

from __future__ import annotations

from dataclasses import replace

from reluid.cli.common import add_input_options, load_network

NAME = "minimal"
HELP = "print the minimal form of a shallow network as reluid JSON"


def add_arguments(p) -> None:
    p.add_argument("network", metavar="NET",
                   help="a shallow network file (.json, .npz, .onnx, .safetensors; see README, File formats)")
    add_input_options(p)


def run(args, stdout, stderr) -> int:
    from reluid.api import generate_json, minimal_form

    net = load_network(args.network, args)
    mf = minimal_form(net)
    out = mf.theta.to_network(name=f"{net.name or 'network'} (minimal form)",
                              description=f"minimal form (Ramakrishnan 2026, Definition 3); "
                                          f"0-factor rank {mf.zero_factor_rank}")
    if net.assumption:  # the same function, so the same assumption about it
        out = replace(out, assumption=net.assumption)
    text = generate_json(out)
    stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
