"""``reluid certify NET``: decide hidden symmetries and emit a certificate."""

from __future__ import annotations

import argparse

from reluid.cli.common import (add_input_options, add_memory_option, apply_memory_option, load_network,
                               natural, positive_float, write_text)
from reluid.budget import SLACK_SECONDS
from reluid.verdicts import ExitCode

NAME = "certify"
HELP = "decide whether a network has hidden symmetries; write a certificate"
DESCRIPTION = ("Decide whether NET has hidden symmetries. Exit codes: 0 no hidden symmetries, "
               "1 hidden symmetry, 3 unknown, 4 invalid input, 2 usage.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("network", metavar="NET",
                   help="network file (.json, .npz, .onnx, .safetensors; see README, File formats)")
    p.add_argument("-o", "--output", metavar="CERT.json", help="write the certificate here")
    p.add_argument("--format", choices=["text", "md", "html", "json", "junit"], default="text",
                   help="report format on stdout (default: text)")
    p.add_argument("--timeout", type=positive_float, default=60.0, metavar="S",
                   help="time budget in seconds for the whole command, every phase included (default 60); when it "
                        "runs out the verdict is unknown and says what was done and what was left; the command "
                        f"ends within about 1.1 S + {SLACK_SECONDS:.0f} s (interpreter start, writing the files)")
    p.add_argument("--seed", type=natural, default=0, help="seed for solvers and sampling (default 0)")
    p.add_argument("--progress", action="store_true",
                   help="show one progress bar across every phase on stderr (needs rich; off when stderr is not a "
                        "terminal)")
    p.add_argument("--embed", action=argparse.BooleanOptionalAction, default=None,
                   help="embed the network in the certificate (default: when it has ≤ 20 000 parameters)")
    p.add_argument("--check", action=argparse.BooleanOptionalAction, default=True,
                   help="re-verify the certificate with the independent checker before reporting it, so that the "
                        "report shows the checker's own status of every claim (default: on)")
    add_memory_option(p)
    add_input_options(p)


def run(args, stdout, stderr) -> ExitCode:
    from reluid.api import certify, progress_bar
    from reluid.budget import Budget
    from reluid.report import AuditEntry, generate_junit, generate_report
    from reluid.report.certificate import summary_line
    from reluid.report.junit import FailPolicy

    budget = Budget(args.timeout)
    apply_memory_option(args)
    with progress_bar(args.progress, stream=stderr) as bar, bar.stage("", ["read", "certify", "check"]):
        bar.step("read")
        net = load_network(args.network, args)
        bar.step("certify")
        cert = certify(net, timeout=args.timeout, seed=args.seed, embed=args.embed, progress=bar, budget=budget)
        bar.step("check")
        report = None
        text = generate_report(cert, "json") if args.output else None
        if args.check:
            report = _self_check(cert, net, text, budget, bar, stderr)
    if args.output:
        write_text(args.output, text)
    if args.format == "junit":
        entry = AuditEntry(args.network, cert.verdict.value, summary_line(cert), architecture=net.architecture)
        stdout.write(generate_junit([entry], policy=FailPolicy.strict()))     # as the exit code: 0 only for none
    else:
        stdout.write(generate_report(cert, args.format, net, args.network, report))   # the title names the file
    if report is not None and not report.valid:
        print(f"reluid certify: internal error: the certificate failed its own check ({report.reason}); "
              "no verdict", file=stderr)
        return ExitCode.UNKNOWN
    return cert.verdict.exit_code


#: Work steps of the checker per CPU second, at least (registry.WORK_LIMIT: a step is about a microsecond
#: of Python at most; measured 1.6-3.4 million a second on the reference machine under load).
STEPS_PER_SECOND = 1_000_000


def _self_check(cert, net, text, budget, bar, stderr):
    """The checker's report on ``cert``, inside what is left of ``budget``; None when it is not run.

    The check runs only when its estimate (:func:`check_estimate`, stretched by the machine's load) fits
    in what is left, and its work limit is what is left (in steps at :data:`STEPS_PER_SECOND`) when that is
    less than reluid check's own: a check that would run past the budget stops at its limit, its claims
    not re-verified.
    """
    from reluid.api import check, check_work_limit
    from reluid.budget import load_slowdown
    from reluid.report import generate_report
    from reluid.verdicts import ClaimStatus

    slow = load_slowdown()
    need = check_estimate(cert) * slow
    if not budget.fits(need):
        print(f"reluid certify: the time budget leaves {budget.left():.1f} s, less than the check needs "
              f"(about {need:.1f} s): the certificate is not re-verified here; run reluid check", file=stderr)
        return None
    text = text if text is not None else generate_report(cert, "json")
    limit = check_work_limit(len(text.encode()))          # the work limit reluid check would give the written file
    limit = min(limit, max(1, int(budget.left() / slow * STEPS_PER_SECOND)))
    report = check(cert, net, progress=bar, work_limit=limit)
    if not report.valid and any(c.over_limit for c in report.claims) and \
            not any(c.status is ClaimStatus.FAILED for c in report.claims):
        print(f"reluid certify: the check reached its work limit ({limit:,} steps, what the time budget leaves): "
              "the certificate is not re-verified here; run reluid check", file=stderr)
        return None
    return report


#: CPU seconds per step of :func:`check_work`: the stratum and separation loops (measured 10 million steps a
#: second at 784-4096-10 and 784-10000-10 under load), and the rank behind the functional dimension (3.4
#: million a second at 64-32-32-16-10).
SECONDS_PER_STEP, SECONDS_PER_RANK_STEP = 1e-7, 3e-7


def check_work(cert) -> int:
    """Steps the checker is expected to charge for the loops of ``cert`` that grow with θ (:func:`reluid.api.check_work`)."""
    from reluid.api import check_work as _check_work

    return sum(_check_work(cert))


def check_estimate(cert) -> float:
    """CPU seconds the checker is expected to need: its charged loops (:func:`check_work`), about half the
    functional-dimension time of a deep network, plus a little."""
    ms = cert.producer.get("phase_ms") or {}
    fundim = ms.get("functional dimension", 0) / 1000.0 if hasattr(ms, "get") else 0.0
    from reluid.api import check_work as _check_work

    loops, rank = _check_work(cert)
    return 0.2 + SECONDS_PER_STEP * loops + SECONDS_PER_RANK_STEP * rank + 0.6 * fundim
