"""``reluid stabilizer NET``: the structure of Stab_{H_n}(θ) (Theorem 2)."""

from __future__ import annotations

from reluid.cli.common import add_input_options, load_network

NAME = "stabilizer"
HELP = "print the stabilizer of a shallow network in H_n"


def add_arguments(p) -> None:
    p.add_argument("network", metavar="NET")
    add_input_options(p)


def run(args, stdout, stderr) -> int:
    from reluid.analysis.shallow.stabilizer import stabilizer
    from reluid.report.render import fmt_q

    st = stabilizer(load_network(args.network, args))
    print(f"Stab_H{st.n}(θ) ≅ {st.describe()}   (Ramakrishnan 2026, Theorem 2 / Corollary 7)", file=stdout)
    print(f"zero neurons (n′ = {st.n_prime}): {[i + 1 for i in st.zero_neurons]}", file=stdout)
    print(f"order of the finite part: {st.finite_order}", file=stdout)
    for comp in st.components:
        print(f"component {[i + 1 for i in comp]}: S_{len(comp)}", file=stdout)
    for g in st.generators:
        i, j = [t for t in range(g.n) if g.perm[t] != t]
        print(f"generator diag({fmt_q(g.scale[i])}, {fmt_q(g.scale[j])})({i + 1} {j + 1})", file=stdout)
    return 0
