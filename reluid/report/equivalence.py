"""Rendering of functional equivalence (``reluid equiv``) and exact alignment (``reluid align``)."""

from __future__ import annotations

from reluid.model.symmetry import GroupElement
from reluid.report.certificate import fmt_q, fmt_vec

__all__ = ["generate_equivalence", "generate_alignment", "generate_alignment_check", "MAX_LISTED"]

#: Longest permutation printed in full; longer ones are summarised (``reluid align`` writes them all).
MAX_LISTED = 16


def _where(layer: int | None, depth: int | None) -> str:
    if layer is None:
        return ""
    return "the output layer" if depth is not None and layer == depth else f"hidden layer {layer}"


def _moves(perm) -> str:
    """A permutation as people read it, neurons counted from 1: ``(1 ↦ 2, 2 ↦ 1)``."""
    return "(" + ", ".join(f"{i + 1} ↦ {p + 1}" for i, p in enumerate(perm)) + ")"


def _element_line(label: str, g: GroupElement) -> str:
    if g.n <= MAX_LISTED:
        return f"{label}: permutation {_moves(g.perm)} and scalings {fmt_vec(g.scale)}"
    moved = sum(1 for i, p in enumerate(g.perm) if p != i)
    distinct = sorted(set(g.scale))
    scales = (", ".join(fmt_q(s) for s in distinct) if len(distinct) <= 8
              else f"{len(distinct)} distinct values in [{fmt_q(distinct[0])}, {fmt_q(distinct[-1])}]")
    return (f"{label}: {g.n} neurons, {moved} moved (permutation begins {_moves(g.perm[:8])[:-1]}, …); scalings: {scales}")


def generate_equivalence(eq, name1: str, name2: str, depth: int | None = None) -> str:
    """An :class:`~reluid.analysis.shallow.function.Equivalence` as ``reluid equiv`` prints it.

    ``depth`` (the number of layer maps) names the output layer in a first difference.
    """
    if eq.equal is None:
        return "\n".join(["unknown: functional equality not decided", f"reason: {eq.reason}"]) + "\n"
    if eq.equal:
        lines = ["equal functions"]
        if eq.same_orbit and isinstance(eq.orbit, GroupElement):
            g = eq.orbit
            lines.append(f"same H_n-orbit: g·{name1} = {name2} with permutation {_moves(g.perm)} and scalings "
                         f"{fmt_vec(g.scale)}")
        elif eq.same_orbit:
            lines.append(f"same orbit: act_layers(g, {name1}) = {name2} exactly, with")
            lines += [_element_line(f"  hidden layer {l}", g) for l, g in enumerate(eq.orbit, 1)]
        elif eq.same_orbit is None:
            lines.append("orbit relation not decided (tied neurons: the exhaustive search ran out)")
        elif isinstance(eq.orbit, GroupElement) or eq.method == "function data":
            lines.append("different H_n-orbits: a hidden symmetry relates them")
        else:
            where = _where(eq.first_difference, depth)
            lines.append("different orbits: a hidden symmetry relates them"
                         + (f" (the canonical rows first differ in {where})" if where else ""))
        if eq.method not in ("function data", "orbit"):
            lines.append(f"decided by the {eq.method}: {eq.reason}")
        return "\n".join(lines) + "\n"
    lines = ["different functions", f"x = {fmt_vec(eq.input)}", f"{name1}(x) = {fmt_vec(eq.outputs[0])}",
             f"{name2}(x) = {fmt_vec(eq.outputs[1])}"]
    if eq.method != "function data":
        where = _where(eq.first_difference, depth)
        lines.append(f"found by the {eq.method}, decided by exact evaluation"
                     + (f"; the canonical rows first differ in {where}" if where else ""))
    return "\n".join(lines) + "\n"


def generate_alignment(al, reference: str, other: str, output: str | None = None,
                       certificate: str | None = None) -> str:
    """An :class:`~reluid.analysis.deep.align.Alignment` as ``reluid align`` prints it."""
    depth = len(al.architecture) - 1 if al.architecture else None
    if al.same_orbit:
        lines = [f"{other} is in the orbit of {reference}: act_layers(g, {other}) = {reference} exactly"]
        lines += [_element_line(f"  hidden layer {l}", g) for l, g in enumerate(al.elements, 1)]
        if output:
            lines.append(f"aligned network: {output} (its parameters are exactly those of {reference})")
        if certificate:
            lines.append(f"certificate: {certificate} (re-verify: reluid align --verify {certificate} {reference} "
                         f"{other})")
        return "\n".join(lines) + "\n"
    if al.same_orbit is None:
        return f"unknown: whether {other} is in the orbit of {reference} was not decided\nreason: {al.reason}\n"
    lines = [f"{other} is not in the orbit of {reference}; nothing written"]
    where = _where(al.first_difference, depth)
    if where:
        lines.append(f"first difference: {where} ({al.unmatched} row{'s' if al.unmatched != 1 else ''} without a "
                     "partner)")
    lines.append(f"reason: {al.reason}")
    return "\n".join(lines) + "\n"


def generate_alignment_check(check, path: str) -> str:
    """An :class:`~reluid.checker.alignment.AlignmentCheck` as ``reluid align --verify`` prints it."""
    if check.valid:
        return f"VALID: {path}\n  rule: {check.reason} ({check.layers} hidden layers)\n"
    return f"REJECTED: {path}\n  reason: {check.reason}\n"
