"""``reluid align A B -o OUT``: write B permuted and rescaled into A's coordinates, with a certificate."""

from __future__ import annotations

import os

from reluid.cli.common import add_input_options, load_network

NAME = "align"
HELP = "align B to A exactly (permutation and positive scaling per hidden layer) and certify it"
DESCRIPTION = ("When B lies in A's orbit of the obvious symmetries, write B permuted and rescaled layer by layer "
               "into A's coordinates (OUT: .json, .npz, .onnx or .safetensors; its parameters are exactly A's) and "
               "a reluid.alignment/1 certificate of the group element (default: OUT with the suffix "
               ".alignment.json). Otherwise say so and name the first layer whose canonical rows cannot be "
               "matched. --verify CERT re-verifies a certificate against A and B with the model alone. Exit codes: "
               "0 aligned / valid, 1 not in the orbit / rejected, 3 unknown, 4 invalid input, 2 usage.")


def add_arguments(p) -> None:
    p.add_argument("reference", metavar="A", help="the reference network")
    p.add_argument("other", metavar="B", help="the network to align to A")
    p.add_argument("-o", "--output", metavar="OUT", help="where to write B in A's coordinates")
    p.add_argument("--certificate", metavar="CERT.json", help="where to write the alignment certificate")
    p.add_argument("--verify", metavar="CERT.json", help="re-verify an alignment certificate instead")
    add_input_options(p)


def default_certificate(output: str) -> str:
    return os.path.splitext(output)[0] + ".alignment.json"


def run(args, stdout, stderr) -> int:
    from reluid import api
    from reluid.report.equivalence import generate_alignment, generate_alignment_check

    if args.verify is None and args.output is None:
        print("reluid align: error: give -o OUT (where to write the aligned network) or --verify CERT.json",
              file=stderr)
        return 2
    a, b = load_network(args.reference, args), load_network(args.other, args)
    if args.verify is not None:
        doc = api.read_alignment(args.verify)
        res = api.check_alignment(doc, a, b)
        stdout.write(generate_alignment_check(res, args.verify))
        return res.exit_code
    al = api.align(a, b)
    if not al.same_orbit:
        stdout.write(generate_alignment(al, args.reference, args.other))
        return 1 if al.same_orbit is False else 3
    cert = args.certificate or default_certificate(args.output)
    if os.path.abspath(cert) == os.path.abspath(args.output):
        print("reluid align: error: the certificate and the aligned network would be the same file", file=stderr)
        return 2
    api.save(al.aligned, args.output)
    doc = api.alignment_document(al, a, b, reference_name=os.path.basename(args.reference),
                                 other_name=os.path.basename(args.other), aligned_file=os.path.basename(args.output))
    api.write_alignment(doc, cert)
    stdout.write(generate_alignment(al, args.reference, args.other, args.output, cert))
    return 0
