"""``reluid conditions --arch m,n,k``: the paper's Zariski-open conditions."""

from __future__ import annotations

from reluid.errors import InvalidArgument

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


def run(args, stdout, stderr) -> int:
    from reluid.analysis.shallow import zariski

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
    cs = zariski.conditions(*arch, literal_definition_9=args.literal_definition_9)
    stdout.write(zariski.render(cs, fmt="latex" if args.latex else "text", limit=args.limit))
    if net is None:
        return 0
    ev = zariski.evaluate(theta, literal_definition_9=args.literal_definition_9)
    print("", file=stdout)
    print(f"At {args.at}:", file=stdout)
    for f in ev.families:
        state = {True: "holds", False: "FAILS", None: "not fully checked"}[f.holds]
        line = f"  {f.family}: {state} ({f.checked}/{f.total} checked) [{f.reference}]"
        if f.violations:
            v = f.violations[0]
            line += f"; vanishing at {v.index}" + (f" (output {v.output + 1})" if v.output is not None else "")
        elif f.witnesses_sample:
            w = f.witnesses_sample[0]
            line += f"; e.g. {w.where} = {w.value}"
        if f.note:
            line += f"; {f.note}"
        print(line, file=stdout)
    print(f"Paper's sufficient condition: {'holds' if ev.holds else 'fails' if ev.holds is False else 'undecided'}",
          file=stdout)
    return 0 if ev.holds else 1 if ev.holds is False else 3
