"""``reluid audit PATH...``: certify many networks and write CI reports."""

from __future__ import annotations

import os
import time

from reluid.cli.common import add_input_options, load_network, natural, positive_float, write_text
from reluid.errors import InvalidNetwork, NotShallow
from reluid.verdicts import ExitCode

NAME = "audit"
HELP = "certify every network under the given files/folders; write JUnit/Markdown/HTML reports"
DESCRIPTION = ("Certify many networks. Each file's outcome is no hidden symmetries, hidden symmetry, unknown or "
               "invalid input. --fail-on names the outcomes that fail the job (default: hidden,invalid; unknown is "
               "reported but does not fail, since most networks with two or more hidden layers are unknown: no hidden "
               "symmetries is proved for them only under Theorem 8.2). The exit code "
               "is the worst failing outcome, in the order invalid input (4) > hidden symmetry (1) > unknown (3), "
               "and 0 when none fails; the JUnit report agrees (failure = hidden symmetry or unknown that fails, "
               "error = invalid input that fails, skipped = unknown or invalid input that does not). Every report "
               "file of one network has the same stem (theta1.json → theta1_json.md, theta1_json.html, "
               "theta1_json.cert.json), and the reports link to each other relatively.")

SUFFIXES = (".json", ".npz", ".onnx", ".safetensors")


def add_arguments(p) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="network files, or folders searched recursively for .json, .npz, .onnx and .safetensors")
    p.add_argument("--junit", metavar="FILE", help="write a JUnit XML report (one test case per network)")
    p.add_argument("--markdown", metavar="FILE",
                   help="write a Markdown summary (for a CI job summary): headline counts, the policy's result, a "
                        "table naming each network's files (linked only with --link-base)")
    p.add_argument("--html", metavar="DIR",
                   help="write an HTML report: DIR/index.html (verdict badges, filters) and one self-contained page "
                        "per network (certificates go there too unless --certificates is given)")
    p.add_argument("--certificates", metavar="DIR", help="write one certificate per network (STEM.cert.json)")
    p.add_argument("--reports", metavar="DIR", help="write one Markdown proof-like report per network (STEM.md)")
    p.add_argument("--fail-on", action="append", metavar="LIST",
                   help="outcomes that fail the job: a comma list of hidden, unknown, invalid (or all, none); may be "
                        "repeated. Default hidden,invalid: a hidden symmetry or an unreadable file fails, unknown "
                        "does not (it is reported, and skipped in JUnit)")
    p.add_argument("--link-base", metavar="URL",
                   help="link the files in the --markdown summary as URL/PATH (PATH relative to the summary's "
                        "folder; '.' for relative links). Default: no links, the files are named, since a CI job "
                        "summary is shown where relative links do not resolve")
    p.add_argument("--timeout", type=positive_float, default=60.0, metavar="S",
                   help="time budget per network in seconds (default 60)")
    p.add_argument("--seed", type=natural, default=0, help="seed for solvers and sampling (default 0)")
    p.add_argument("--progress", action="store_true",
                   help="show one progress bar across every network and phase on stderr (needs rich; off when "
                        "stderr is not a terminal)")
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


def run(args, stdout, stderr) -> ExitCode:
    from reluid.api import certify, check, progress_bar
    from reluid.report import AuditEntry, generate_junit, generate_summary_markdown
    from reluid.report.junit import FailPolicy, headline, verdict_line
    from reluid.report.certificate import (certificate_view, generate_markdown, relative_link, short_reason,
                                           short_summary, summary_details, summary_line,
                                           unknown_facts)
    from reluid.report.html import IndexEntry, generate_index, generate_page
    from reluid.verdicts import AuditOutcome, CheckState, Verdict

    try:
        policy = FailPolicy.parse(args.fail_on)
    except ValueError as e:
        print(f"reluid audit: error: {e}", file=stderr)
        return ExitCode.USAGE
    entries, index = [], []
    paths = collect(args.paths)
    stems = _stems(paths)
    cert_dir = args.certificates or args.html          # the HTML pages link a certificate, so they need one

    def files(path):
        stem = stems[path]
        return {"cert": os.path.join(cert_dir, stem + ".cert.json") if cert_dir else None,
                "md": os.path.join(args.reports, stem + ".md") if args.reports else None,
                "html": os.path.join(args.html, stem + ".html") if args.html else None}

    def links(f, here, own):
        out = [("certificate", f["cert"]), ("Markdown report", f["md"]), ("HTML report", f["html"])]
        return tuple((label, relative_link(p, here)) for label, p in out if p is not None and label != own)

    steps = [f"{i + 1}/{len(paths)} {os.path.basename(p)}" for i, p in enumerate(paths)]
    with progress_bar(args.progress, stream=stderr) as bar, bar.stage("", steps):
        for k, path in enumerate(paths):
            bar.step(index=k)
            t0 = time.perf_counter()
            f = files(path)
            with bar.stage("", ["read", "certify", "check", "reports"]):
                bar.step("read")
                try:
                    net = load_network(path, args)
                    bar.step("certify")
                    cert = certify(net, timeout=args.timeout, seed=args.seed, progress=bar)
                except (InvalidNetwork, NotShallow) as e:
                    msg = " ".join((e.message if isinstance(e, InvalidNetwork) else str(e)).split())
                    short = msg
                    if needs := _needs_statement(path, args):
                        short = (f"needs {needs}: a BatchNorm scale γ/√(σ²+ε) is irrational; the file reads only "
                                 "when that rounding is stated (not assumed here)")
                        msg = f"{short}; {msg}"
                    bad = AuditOutcome.INVALID_INPUT
                    entries.append(AuditEntry(path, bad, msg, time.perf_counter() - t0, short=short, details=short))
                    index.append(IndexEntry(path, bad, CheckState.NO_CERTIFICATE, msg))
                    print(f"{path}: {bad.value}: {msg}", file=stdout)
                    continue
                except MemoryError:
                    raise
                except Exception as e:  # a bug of reluid on this network: no verdict for it, the audit goes on
                    if os.environ.get("RELUID_DEBUG"):
                        raise
                    msg = f"internal error: {type(e).__name__}: {' '.join(str(e).split())}"
                    entries.append(AuditEntry(path, AuditOutcome.UNKNOWN, msg, time.perf_counter() - t0, short=msg,
                                              details=msg))
                    index.append(IndexEntry(path, AuditOutcome.UNKNOWN, CheckState.NO_CERTIFICATE, msg))
                    print(f"{path}: {AuditOutcome.UNKNOWN.value}: {msg}", file=stdout)
                    continue
                bar.step("check")
                report = check(cert, net, progress=bar)
                bar.step("reports")
            outcome = AuditOutcome.of(cert.verdict) if report.valid else AuditOutcome.UNKNOWN
            if report.valid:
                message, short = summary_line(cert), short_summary(cert)
                facts = unknown_facts(cert, report) if cert.verdict is Verdict.UNKNOWN else []
                details = "; ".join(summary_details(cert) + (facts or [r for r in (short_reason(cert),) if r]))
                if facts:
                    short = f"{cert.verdict.value}: {'; '.join(facts)}"
                if cert.assumption:
                    short += f" [assumption: {cert.assumption}]"
            else:
                message = short = details = f"the certificate failed its own check: {report.reason}"
            entry = AuditEntry(path, outcome, message, time.perf_counter() - t0, net.architecture,
                               certificate=f["cert"], check=CheckState.of(report),
                               short=short, details=details + (f" [assumption: {cert.assumption}]"
                                                               if cert.assumption and report.valid else ""),
                               report=f["md"], page=f["html"], n_params=net.n_params)
            entries.append(entry)
            print(f"{path}: {entry.message}", file=stdout)
            if f["cert"]:
                write_text(f["cert"], _json(cert))
            if f["md"]:
                write_text(f["md"], generate_markdown(certificate_view(cert, net, path, report,
                                                                       links(f, args.reports, "Markdown report"))))
            if f["html"]:
                view = certificate_view(cert, net, path, report, links(f, args.html, "HTML report"))
                write_text(f["html"], generate_page(view, index_href="index.html"))
            if args.html:
                index.append(IndexEntry(path, outcome, entry.check, details, net.architecture, net.n_params,
                                        relative_link(f["html"], args.html),
                                        relative_link(f["cert"], args.html) if f["cert"] else None,
                                        cert.assumption))
    if args.junit:
        write_text(args.junit, generate_junit(entries, base=os.path.dirname(args.junit), policy=policy))
    if args.markdown:
        write_text(args.markdown, generate_summary_markdown(entries, base=os.path.dirname(args.markdown),
                                                            policy=policy, link_base=args.link_base,
                                                            notes=_notes(entries)))
    if args.html:
        extra = [(label, relative_link(p, args.html)) for label, p in
                 (("JUnit XML", args.junit), ("Markdown summary", args.markdown)) if p]
        write_text(os.path.join(args.html, "index.html"), generate_index(index, " ".join(args.paths),
                                                                          report_links=extra, policy=policy))
    if not entries:
        print("reluid audit: no network files found", file=stderr)
        return ExitCode.INVALID
    outcomes = [e.outcome for e in entries]
    print(f"reluid audit: {headline(outcomes)}; {verdict_line(outcomes, policy)}", file=stdout)
    return policy.exit_code(outcomes)


def _notes(entries) -> list[str]:
    from reluid.verdicts import AuditOutcome

    n = sum(e.outcome == AuditOutcome.INVALID_INPUT and (e.short or "").startswith("needs --batchnorm float32")
            for e in entries)
    if not n:
        return []
    return [f"{n} network{'s read' if n != 1 else ' reads'} only with `--batchnorm float32`: a BatchNorm scale "
            "γ/√(σ²+ε) is irrational, so it folds exactly only when rounded to float32. Re-run with "
            "`--batchnorm float32` to certify the network with that rounding (recorded in each certificate)."]


def _needs_statement(path, args) -> str | None:
    """The input statement (a flag) under which an unreadable file would read, or None.

    Only ``--batchnorm float32`` is tried: a BatchNorm whose scale γ/√(σ²+ε)
    is irrational reads exactly only when the user states the float32
    rounding.  The file is not certified under it; the audit only says so.
    """
    if getattr(args, "batchnorm", "exact") != "exact" or not str(path).endswith(".onnx"):
        return None
    from argparse import Namespace

    try:
        load_network(path, Namespace(**{**vars(args), "batchnorm": "float32"}))
    except (InvalidNetwork, NotShallow):
        return None
    except Exception:                                # a reader's own failure is not a reason to hint
        return None
    return "--batchnorm float32"


def _json(cert) -> str:
    from reluid.report import generate_report

    return generate_report(cert, "json")
