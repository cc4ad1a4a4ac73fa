"""``reluid prove [NAME...]``: run the papers' statements (``proofs/``) and write the reports."""

from __future__ import annotations

from reluid.errors import InvalidArgument
from reluid.verdicts import ExitCode

NAME = "prove"
HELP = "check the papers' statements (proofs/) and write reports/proofs.md and reports/proofs.json"
DESCRIPTION = (
    "Run the executable statements of Ramakrishnan (2026) and Grigsby-Lindsey-Rolnick (2023) in proofs/: "
    "exact identities, bounded z3 searches and differential checks against reluid's algorithms. "
    "Exit status: 0 when every outcome is the expected one, 1 on a surprise, 3 when some outcome is unknown. "
    "A complete run at the default sizes rewrites the repository's reports/; a partial run, or one with "
    "--max-n, writes only when --output-dir is given."
)


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise InvalidArgument(f"not an integer: {text!r}") from None
    if v < 1:
        raise InvalidArgument(f"must be at least 1: {text!r}")
    return v


def add_arguments(p) -> None:
    from reluid.cli.common import positive_float

    p.add_argument("names", nargs="*", metavar="NAME",
                   help="statements to run (module names in proofs/, shell globs allowed; default: all)")
    p.add_argument("--max-n", type=_positive_int, default=None, metavar="N",
                   help="raise the size bound of the bounded checks to N (default: each statement's own sizes)")
    p.add_argument("--timeout", type=positive_float, default=300.0, metavar="S",
                   help="seconds per statement; running out gives 'unknown' (default 300)")
    p.add_argument("--output-dir", metavar="DIR", default=None,
                   help="where to write proofs.md and proofs.json (default: the repository's reports/ for a "
                        "complete run at default sizes; otherwise nothing is written)")
    p.add_argument("--list", action="store_true", help="list the statements and exit")


def run(args, stdout, stderr) -> ExitCode:
    from reluid.api import prove
    from reluid.proofs import _runner
    from reluid.report.proofs import generate_proofs_line, generate_proofs_listing, generate_proofs_summary
    from reluid.report.proofs import write_proofs_reports

    if args.list:
        stdout.write(generate_proofs_listing(_runner.discover()))
        return ExitCode.OK
    width = max((len(s.name) for s in _runner.discover()), default=10)

    def progress(r):
        print(generate_proofs_line(r, width), file=stdout, flush=True)

    result = prove(args.names, max_n=args.max_n, timeout=args.timeout, progress=progress)
    stdout.write(generate_proofs_summary(result))
    out_dir = args.output_dir
    if out_dir is None and result.default:
        out_dir = _runner.default_output_dir()
    if out_dir is not None:
        md, js = write_proofs_reports(result, out_dir)
        print(f"wrote {md} and {js}", file=stdout)
    elif result.default:
        print("reports not written (not a source checkout; use --output-dir DIR)", file=stdout)
    else:
        print("reports not written (partial or non-default run; use --output-dir DIR)", file=stdout)
    return _runner.exit_code(result)
