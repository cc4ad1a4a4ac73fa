"""``reluid minimal NET [-o OUT]``: the minimal form of a shallow network, the exact reduction at any depth."""

from __future__ import annotations

import os
from dataclasses import replace

from reluid.cli.common import add_input_options, load_network, natural, positive_float
from reluid.verdicts import ExitCode

NAME = "minimal"
HELP = "reduce a network exactly (any depth) with a certificate; the minimal form of a shallow network"
DESCRIPTION = ("With -o OUT: remove constant, dead and zero-outgoing neurons and merge positively proportional "
               "neurons of every hidden layer, repeating until nothing changes; write the reduced network (.json, "
               ".npz, .onnx or .safetensors) and a reluid.reduction/1 certificate that re-verifies every step "
               "(default: OUT with the suffix .reduction.json). Without -o: print the minimal form of a shallow "
               "network (Ramakrishnan 2026, Definition 3), or the reduced deep network, as reluid JSON. --verify "
               "CERT NET REDUCED re-verifies a reduction certificate with the checker alone. Exit codes: 0 done / "
               "valid, 1 rejected, 4 invalid input, 2 usage.")


def add_arguments(p) -> None:
    p.add_argument("network", metavar="NET",
                   help="a network file (.json, .npz, .onnx, .safetensors; see README, File formats)")
    p.add_argument("reduced", metavar="REDUCED", nargs="?", help="with --verify: the reduced network")
    p.add_argument("-o", "--output", metavar="OUT", help="where to write the reduced network")
    p.add_argument("--certificate", metavar="CERT.json", help="where to write the reduction certificate")
    p.add_argument("--verify", metavar="CERT.json", help="re-verify a reduction certificate against NET and REDUCED")
    p.add_argument("--timeout", type=positive_float, default=60.0, metavar="S",
                   help="seconds for the Farkas-tree prover's dead-neuron questions (default 60); a question left "
                        "open keeps its neuron")
    p.add_argument("--seed", type=natural, default=0, help="seed of the probe points (their answers are exact)")
    add_input_options(p)


def default_certificate(output: str) -> str:
    return os.path.splitext(output)[0] + ".reduction.json"


def run(args, stdout, stderr) -> ExitCode:
    from reluid import api
    from reluid.report.reduction import generate_reduction, generate_reduction_check

    if args.verify is not None:
        if args.reduced is None:
            print("reluid minimal: error: --verify CERT needs NET and REDUCED", file=stderr)
            return ExitCode.USAGE
        doc = api.read_reduction(args.verify)
        res = api.check_reduction(doc, load_network(args.network, args), load_network(args.reduced, args))
        stdout.write(generate_reduction_check(res, args.verify))
        return res.exit_code
    if args.reduced is not None:
        print("reluid minimal: error: a second network is read only with --verify", file=stderr)
        return ExitCode.USAGE
    net = load_network(args.network, args)
    if args.output is None and net.is_shallow:
        mf = api.minimal_form(net)
        out = mf.theta.to_network(name=f"{net.name or 'network'} (minimal form)",
                                  description=f"minimal form (Ramakrishnan 2026, Definition 3); "
                                              f"0-factor rank {mf.zero_factor_rank}")
        if net.assumption:  # the same function, so the same assumption about it
            out = replace(out, assumption=net.assumption)
        text = api.generate_json(out)
        stdout.write(text if text.endswith("\n") else text + "\n")
        return ExitCode.OK
    r = api.reduce_network(net, timeout=args.timeout, seed=args.seed)
    if args.output is None:
        text = api.generate_json(r.reduced)
        stdout.write(text if text.endswith("\n") else text + "\n")
        return ExitCode.OK
    cert = args.certificate or default_certificate(args.output)
    if os.path.abspath(cert) == os.path.abspath(args.output):
        print("reluid minimal: error: the certificate and the reduced network would be the same file", file=stderr)
        return ExitCode.USAGE
    api.save(r.reduced, args.output)
    doc = api.reduction_document(r, original_name=os.path.basename(args.network),
                                 reduced_file=os.path.basename(args.output))
    api.write_reduction(doc, cert)
    stdout.write(generate_reduction(r, args.network, args.output, cert))
    return ExitCode.OK
