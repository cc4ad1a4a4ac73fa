"""``reluid audit PATH...``: certify many networks and write CI reports."""

from __future__ import annotations

import os
import time

from reluid.cli.common import add_input_options, load_network, positive_float, write_text
from reluid.errors import InvalidNetwork, NotShallow

NAME = "audit"
HELP = "certify every network under the given files/folders; write JUnit/Markdown/HTML reports"
DESCRIPTION = ("Certify many networks. One JUnit test case per network (failure = hidden symmetry, "
               "error = invalid input, skipped = unknown). Exit code = worst outcome, in the order "
               "invalid input (4) > hidden symmetry (1) > unknown (3) > no hidden symmetries (0).")

SUFFIXES = (".json", ".npz", ".onnx", ".safetensors")
SEVERITY = {0: 0, 3: 1, 1: 2, 4: 3}


def add_arguments(p) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--junit", metavar="FILE")
    p.add_argument("--markdown", metavar="FILE")
    p.add_argument("--html", metavar="DIR", help="one HTML report per network")
    p.add_argument("--certificates", metavar="DIR", help="one certificate per network")
    p.add_argument("--reports", metavar="DIR", help="one Markdown proof-like report per network")
    p.add_argument("--timeout", type=positive_float, default=60.0, metavar="S", help="per network (default 60)")
    p.add_argument("--seed", type=int, default=0)
    add_input_options(p)


def collect(paths):
    """Network files under ``paths`` (folders are searched recursively, sorted)."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                out += [os.path.join(root, f) for f in sorted(files) if f.endswith(SUFFIXES)]
        else:
            out.append(p)
    return out


def _stems(paths) -> dict:
    """Report file stems: the base name (dots → _), prefixed by its folders only when names collide."""
    base = {p: os.path.basename(p).replace(".", "_") for p in paths}
    clash = {b for b in base.values() if list(base.values()).count(b) > 1}
    return {p: (os.path.normpath(p).replace(os.sep, "_").replace(".", "_").strip("_") if b in clash else b)
            for p, b in base.items()}


def run(args, stdout, stderr) -> int:
    from reluid.api import certify, check
    from reluid.report import (AuditEntry, generate_html, generate_junit, generate_markdown, generate_report,
                               generate_summary_markdown)
    from reluid.report.certificate import summary_line

    entries = []
    paths = collect(args.paths)
    stems = _stems(paths)
    for path in paths:
        t0 = time.perf_counter()
        try:
            net = load_network(path, args)
            cert = certify(net, timeout=args.timeout, seed=args.seed)
        except (InvalidNetwork, NotShallow) as e:
            entries.append(AuditEntry(path, "invalid-input", " ".join(str(e).split()), time.perf_counter() - t0))
            print(f"{path}: invalid-input: {entries[-1].message}", file=stdout)
            continue
        report = check(cert, net)
        outcome = cert.verdict.value if report.valid else "unknown"
        message = summary_line(cert) if report.valid else f"the certificate failed its own check: {report.reason}"
        entry = AuditEntry(path, outcome, message, time.perf_counter() - t0, net.architecture)
        entries.append(entry)
        print(f"{path}: {entry.message}", file=stdout)
        if args.certificates:
            write_text(os.path.join(args.certificates, stems[path] + ".cert.json"), generate_report(cert, "json"))
        if args.reports:
            write_text(os.path.join(args.reports, stems[path] + ".md"), generate_markdown(cert, net, path, report))
        if args.html:
            write_text(os.path.join(args.html, stems[path] + ".html"), generate_html(cert, net, path, report))
    if args.junit:
        write_text(args.junit, generate_junit(entries))
    if args.markdown:
        write_text(args.markdown, generate_summary_markdown(entries))
    if not entries:
        print("reluid audit: no network files found", file=stderr)
        return 4
    return max((e.exit_code for e in entries), key=SEVERITY.__getitem__)
