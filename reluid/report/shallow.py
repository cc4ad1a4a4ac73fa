"""Rendering of the shallow algebra: stabilizers and functional equivalence."""

from __future__ import annotations

from reluid.report.certificate import fmt_q, fmt_vec

__all__ = ["generate_stabilizer", "generate_equivalence"]


def generate_stabilizer(st) -> str:
    """Stab_{H_n}(θ) as ``reluid stabilizer`` prints it (neurons numbered from 1)."""
    lines = [f"Stab_H{st.n}(θ) ≅ {st.describe()}   (Ramakrishnan 2026, Theorem 2 / Corollary 7)",
             f"zero neurons (n′ = {st.n_prime}): {[i + 1 for i in st.zero_neurons]}",
             f"order of the finite part: {st.finite_order}"]
    lines += [f"component {[i + 1 for i in comp]}: S_{len(comp)}" for comp in st.components]
    for g in st.generators:
        i, j = [t for t in range(g.n) if g.perm[t] != t]
        lines.append(f"generator diag({fmt_q(g.scale[i])}, {fmt_q(g.scale[j])})({i + 1} {j + 1})")
    return "\n".join(lines) + "\n"


def generate_equivalence(eq, name1: str, name2: str) -> str:
    """An :class:`~reluid.analysis.shallow.function.Equivalence` as ``reluid equiv`` prints it."""
    if eq.equal:
        lines = ["equal functions"]
        if eq.same_orbit:
            g = eq.orbit
            moves = ", ".join(f"{i + 1} ↦ {p + 1}" for i, p in enumerate(g.perm))   # neurons counted from 1
            lines.append(f"same H_n-orbit: g·θ1 = θ2 with permutation ({moves}) and scalings "
                         f"{fmt_vec(g.scale)}")
        else:
            lines.append("different H_n-orbits: a hidden symmetry relates them")
        return "\n".join(lines) + "\n"
    return "\n".join(["different functions", f"x = {fmt_vec(eq.input)}", f"{name1}(x) = {fmt_vec(eq.outputs[0])}",
                      f"{name2}(x) = {fmt_vec(eq.outputs[1])}"]) + "\n"
