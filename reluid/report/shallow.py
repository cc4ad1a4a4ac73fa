"""Rendering of the shallow algebra: stabilizers (functional equivalence: :mod:`reluid.report.equivalence`)."""

from __future__ import annotations

from reluid.report.certificate import fmt_q
from reluid.report.equivalence import generate_equivalence  # noqa: F401  (rendered there, for every depth)

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
