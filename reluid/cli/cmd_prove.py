"""``reluid prove [NAME...]``: run the papers' statements (``proofs/``) and write the reports."""

from __future__ import annotations

from reluid.errors import InvalidArgument

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


def run(args, stdout, stderr) -> int:
    from reluid import prove

    if args.list:
        for st in prove.discover():
            print(f"{st.name:40s} {st.paper}, {st.title} (expected: {st.expected})", file=stdout)
        return 0
    width = max((len(s.name) for s in prove.discover()), default=10)

    def progress(r):
        flag = "ok" if r.matches else ("UNKNOWN" if r.outcome.status == prove.UNKNOWN else "SURPRISE")
        print(f"{r.statement.name:{width}s}  {r.outcome.status:14s} (expected {r.statement.expected:14s}) "
              f"{flag:8s} {r.seconds:7.2f} s", file=stdout, flush=True)

    result = prove.run(args.names, max_n=args.max_n, timeout=args.timeout, progress=progress)
    total = sum(r.seconds for r in result.runs)
    code = prove.exit_code(result)
    n_ok = sum(1 for r in result.runs if r.matches)
    print(f"{n_ok}/{len(result.runs)} statements as expected in {total:.1f} s", file=stdout)
    for r in result.runs:
        if r.outcome.status == prove.UNKNOWN:
            print(f"  {r.statement.name}: unknown: {r.outcome.reason}", file=stdout)
        elif not r.matches:
            print(f"  {r.statement.name}: SURPRISE: {r.outcome.proved} {r.outcome.counterexample}", file=stdout)
    out_dir = args.output_dir
    if out_dir is None and result.default:
        out_dir = prove.default_output_dir()
    if out_dir is not None:
        md, js = prove.write_reports(result, out_dir)
        print(f"wrote {md} and {js}", file=stdout)
    else:
        print("reports not written (partial or non-default run; use --output-dir DIR)", file=stdout)
    return code
