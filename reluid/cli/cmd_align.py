"""``reluid align A B -o OUT``: write B permuted and rescaled into A's coordinates, with a certificate."""

from __future__ import annotations

import os

from reluid.cli.common import add_input_options, load_network
from reluid.verdicts import ExitCode

NAME = "align"
HELP = "align B to A exactly (permutation and positive scaling per hidden layer) and certify it"
DESCRIPTION = ("When B lies in A's orbit of the obvious symmetries, write B permuted and rescaled layer by layer "
               "into A's coordinates (OUT: .json, .npz, .onnx or .safetensors; its parameters are exactly A's) and "
               "a reluid.alignment/1 certificate of the group element (default: OUT with the suffix "
               ".alignment.json). Otherwise say so and name the first layer whose canonical rows cannot be "
               "matched; with --nearest, also find the best permutation and positive scaling per hidden layer by "
               "weight matching (Hungarian matching of normalised weights, layer by layer) and report the exact "
               "largest weight deviation after it: a measurement, not a verdict (OUT, when given, then holds B in "
               "those coordinates: exactly B's function, no certificate). Written files keep B's float type when "
               "every aligned weight is exactly representable in it, and ONNX input and output names. --verify "
               "CERT re-verifies a certificate against A and B with the model alone. Exit codes: 0 aligned / "
               "valid, 1 not in the orbit (with or without --nearest) / rejected, 3 unknown, 4 invalid input, "
               "2 usage.")


def add_arguments(p) -> None:
    p.add_argument("reference", metavar="A", help="the reference network")
    p.add_argument("other", metavar="B", help="the network to align to A")
    p.add_argument("-o", "--output", metavar="OUT", help="where to write B in A's coordinates")
    p.add_argument("--certificate", metavar="CERT.json", help="where to write the alignment certificate")
    p.add_argument("--verify", metavar="CERT.json", help="re-verify an alignment certificate instead")
    p.add_argument("--nearest", action="store_true",
                   help="when B is not in A's orbit: the best alignment by weight matching and the exact largest "
                        "weight deviation after it (a measurement)")
    p.add_argument("--scales", choices=["ratio", "pow2"], default="ratio",
                   help="with --nearest: the least-squares scalings (default), or their nearest powers of two, "
                        "which keep a float32 B exactly representable in float32")
    p.add_argument("--format", choices=["text", "json"], default="text", help="text (default) or json")
    add_input_options(p)


def default_certificate(output: str) -> str:
    return os.path.splitext(output)[0] + ".alignment.json"


def write_aligned(net, output: str, sources) -> str:
    """Write ``net`` keeping the float type and (ONNX) names of the first source that has them.

    Returns the float type written (or "exact" for .json).  The type of the
    network being aligned comes first; when its weights are not all exactly of
    that type, float64 is tried; otherwise the writer's error stands.
    """
    from reluid.api import save, stored_types
    from reluid.errors import InvalidNetwork

    float_type, names = None, None
    for path in sources:
        ft, nm = stored_types(path)
        float_type = float_type or ft
        names = names or nm
    if os.path.splitext(output)[1].lower() == ".json":
        save(net, output)
        return "exact"
    tried = [float_type] if float_type == "float32" else []
    for ft in tried + ["float64"]:
        try:
            save(net, output, float_type=ft, names=names)
            return ft
        except InvalidNetwork:
            if ft == "float64":
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def run(args, stdout, stderr) -> ExitCode:
    from reluid import api
    from reluid.report.equivalence import (generate_alignment, generate_alignment_check, generate_alignment_json,
                                           generate_nearest)

    if args.verify is None and args.output is None and not args.nearest:
        print("reluid align: error: give -o OUT (where to write the aligned network), --nearest or --verify "
              "CERT.json", file=stderr)
        return ExitCode.USAGE
    if args.nearest and args.output and args.scales == "ratio" and args.verify is None \
            and os.path.splitext(args.output)[1].lower() != ".json":
        print("reluid align: error: with --nearest, the least-squares scalings are rarely floats, so the aligned "
              "network fits only a .json OUT; give --scales pow2 to write a float file exactly", file=stderr)
        return ExitCode.USAGE
    a, b = load_network(args.reference, args, stderr), load_network(args.other, args, stderr)
    if args.verify is not None:
        doc = api.read_alignment(args.verify)
        res = api.check_alignment(doc, a, b)
        stdout.write(generate_alignment_check(res, args.verify))
        return res.exit_code
    al = api.align(a, b)
    if not al.same_orbit:
        near = None
        written = None
        if args.nearest and al.same_orbit is False and a.architecture == b.architecture:
            near = api.nearest_alignment(a, b, scales=args.scales)
            if args.output:
                written = write_aligned(near.aligned, args.output, (args.other, args.reference))
        if args.format == "json":
            stdout.write(generate_alignment_json(al, args.reference, args.other, nearest=near,
                                                 output=args.output if written else None, float_type=written))
        else:
            stdout.write(generate_alignment(al, args.reference, args.other, nothing_written=written is None,
                                            hint=not args.nearest))
            if near is not None:
                stdout.write(generate_nearest(near, args.reference, args.other, args.output if written else None,
                                              written))
        return ExitCode.DIFFERENT if al.same_orbit is False else ExitCode.UNKNOWN
    if args.output is None:               # --nearest on B in A's orbit: the exact element, nothing written
        if args.format == "json":
            stdout.write(generate_alignment_json(al, args.reference, args.other))
        else:
            stdout.write(generate_alignment(al, args.reference, args.other))
        return ExitCode.OK
    cert = args.certificate or default_certificate(args.output)
    if os.path.abspath(cert) == os.path.abspath(args.output):
        print("reluid align: error: the certificate and the aligned network would be the same file", file=stderr)
        return ExitCode.USAGE
    written = write_aligned(al.aligned, args.output, (args.other, args.reference))
    doc = api.alignment_document(al, a, b, reference_name=os.path.basename(args.reference),
                                 other_name=os.path.basename(args.other), aligned_file=os.path.basename(args.output))
    api.write_alignment(doc, cert)
    if args.format == "json":
        stdout.write(generate_alignment_json(al, args.reference, args.other, output=args.output,
                                             float_type=written, certificate=cert))
    else:
        stdout.write(generate_alignment(al, args.reference, args.other, args.output, cert, float_type=written))
    return ExitCode.OK
