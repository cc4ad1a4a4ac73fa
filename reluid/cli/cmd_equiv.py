"""``reluid equiv NET1 NET2``: decide functional equality exactly."""

from __future__ import annotations

from reluid.cli.common import add_input_options, load_network

NAME = "equiv"
HELP = "decide whether two shallow networks compute the same function"
DESCRIPTION = "Exit codes: 0 equal functions, 1 different (prints a distinguishing input), 4 invalid input."


def add_arguments(p) -> None:
    p.add_argument("net1", metavar="NET1")
    p.add_argument("net2", metavar="NET2")
    add_input_options(p)


def run(args, stdout, stderr) -> int:
    from reluid.analysis.shallow.function import equivalent
    from reluid.report.render import fmt_q

    n1, n2 = load_network(args.net1, args), load_network(args.net2, args)
    eq = equivalent(n1, n2)
    vec = lambda v: "(" + ", ".join(fmt_q(x) for x in v) + ")"
    if eq.equal:
        print("equal functions", file=stdout)
        if eq.same_orbit:
            g = eq.orbit
            print(f"same H_n-orbit: g·θ1 = θ2 with permutation {list(g.perm)} and scalings "
                  f"{vec(g.scale)}", file=stdout)
        else:
            print("different H_n-orbits: a hidden symmetry relates them", file=stdout)
        return 0
    print("different functions", file=stdout)
    print(f"x = {vec(eq.input)}", file=stdout)
    print(f"{args.net1}(x) = {vec(eq.outputs[0])}", file=stdout)
    print(f"{args.net2}(x) = {vec(eq.outputs[1])}", file=stdout)
    return 1
