"""``reluid conditions --arch m,n,k``: the paper's Zariski-open conditions."""

from __future__ import annotations

from reluid.errors import InvalidArgument
from reluid.verdicts import ExitCode

NAME = "conditions"
HELP = "print the polynomial conditions of Lemma 23 / Theorem 5, optionally evaluated at a network"


def _arch(text):
    try:
        parts = [int(x) for x in text.split(",")]
    except ValueError:
        raise InvalidArgument(f"--arch wants m,n,k (integers), got {text!r}") from None
    if len(parts) not in (2, 3):
        raise InvalidArgument(f"--arch wants m,n,k, got {text!r}")
    return tuple(parts) if len(parts) == 3 else (*parts, 1)


def add_arguments(p) -> None:
    p.add_argument("--arch", metavar="m,n,k", help="architecture (default: that of --at)")
    p.add_argument("--at", metavar="NET", help="evaluate the conditions at this network")
    p.add_argument("--limit", type=int, default=10, metavar="N", help="members listed per family (default 10)")
    p.add_argument("--latex", action="store_true", help="LaTeX instead of plain text")
    p.add_argument("--literal-definition-9", action="store_true",
                   help="use Definition 9 as printed (Σβ(i)a_i, without v_i) -- known to be wrong")
    from reluid.cli.common import add_input_options
    add_input_options(p)


def run(args, stdout, stderr) -> ExitCode:
    from reluid.api import conditions, evaluate_conditions
    from reluid.report.conditions import generate_conditions, generate_evaluation

    net = None
    if args.at:
        from reluid.cli.common import load_network
        net = load_network(args.at, args)
        theta = net.shallow()
        arch = (theta.m, theta.n, theta.k)
    if args.arch:
        arch = _arch(args.arch)
        if net is not None and arch != (theta.m, theta.n, theta.k):
            raise InvalidArgument(f"--arch {arch} does not match the network {(theta.m, theta.n, theta.k)}")
    elif net is None:
        raise InvalidArgument("give --arch m,n,k or --at NET")
    cs = conditions(*arch, literal_definition_9=args.literal_definition_9)
    stdout.write(generate_conditions(cs, fmt="latex" if args.latex else "text", limit=args.limit))
    if net is None:
        return ExitCode.OK
    ev = evaluate_conditions(theta, literal_definition_9=args.literal_definition_9)
    stdout.write(generate_evaluation(ev, args.at))
    return ExitCode.of(ev.outcome)
