"""Rendering of exact reductions (``reluid minimal`` at any depth) and of their re-verification."""

from __future__ import annotations

from reluid.report.certificate import fmt_q
from reluid.report.reasons import note
from reluid.verdicts import ReductionRule

__all__ = ["describe_step", "generate_reduction", "generate_reduction_check", "MAX_LISTED_STEPS"]

#: Steps printed one per line; longer reductions are summarised (the certificate lists them all).
MAX_LISTED_STEPS = 40


def describe_step(s) -> str:
    """One step in words, neurons counted from 1 (as in the network before the step)."""
    where = f"neuron {s.neuron + 1} of hidden layer {s.layer}"
    if s.original is not None and s.original[1] != s.neuron:
        where += f" (neuron {s.original[1] + 1} of the original)"
    if s.rule == ReductionRule.CONSTANT:
        if s.value == 0:
            return f"{where} is dead: its incoming row is zero and its bias <= 0 (removed)"
        return (f"{where} is the constant σ(b) = {fmt_q(s.value)}: its incoming row is zero (removed; "
                f"{fmt_q(s.value)} × its outgoing weights added to the next layer's bias)")
    if s.rule == ReductionRule.ZERO_OUTGOING:
        return f"{where} has zero outgoing weights (removed)"
    if s.rule == ReductionRule.MERGE:
        return (f"{where} = {fmt_q(s.factor)} × neuron {s.into + 1} (positively proportional incoming row and "
                f"bias): merged into neuron {s.into + 1}, whose outgoing weights gain {fmt_q(s.factor)} × its own")
    how = "a Farkas-tree certificate" if s.premise and "tree" in s.premise else "inspection (row and bias <= 0)"
    return f"{where} is dead: no input makes its pre-activation > 0 ({how}; removed)"


def generate_reduction(r, source: str, output: str | None = None, certificate: str | None = None) -> str:
    """A :class:`~reluid.analysis.reduction.Reduction` as ``reluid minimal -o`` prints it."""
    before, after = r.original.architecture, r.reduced.architecture
    hidden = sum(before[1:-1]) - sum(after[1:-1])
    if r.steps:
        lines = [f"{source} {before} reduces exactly to {after}: {hidden} hidden neuron(s) removed in "
                 f"{len(r.steps)} step(s), the same function"]
    else:
        lines = [f"{source} {before}: nothing to remove (no constant, dead or zero-outgoing neuron, no positively "
                 "proportional pair)"]
    counts = r.counts()
    named = {ReductionRule.CONSTANT: "constant or dead by inspection of a zero row",
             ReductionRule.ZERO_OUTGOING: "zero outgoing weights", ReductionRule.MERGE: "merged proportional neurons",
             ReductionRule.DEAD: "dead (pre-activation never > 0)"}
    shown = [f"{n} {named[k]}" for k, n in counts.items() if n]
    if shown:
        lines.append("  " + "; ".join(shown))
    for n, s in enumerate(r.steps[:MAX_LISTED_STEPS], 1):
        lines.append(f"  step {n}: {describe_step(s)}")
    if len(r.steps) > MAX_LISTED_STEPS:
        lines.append(f"  … and {len(r.steps) - MAX_LISTED_STEPS} more step(s) (listed in the certificate)")
    open_ = [u for u in r.undecided if u[0] > 0]
    if open_:
        lines.append(f"not decided, kept: {len(open_)} neuron(s) whose deadness the prover left open (first: "
                     f"neuron {open_[0][1] + 1} of hidden layer {open_[0][0]}: {note(open_[0][2])})")
    for _, _, why in (u for u in r.undecided if u[0] == 0):
        lines.append(f"stopped: {note(why)}")
    if output:
        lines.append(f"reduced network: {output}")
    if certificate:
        lines.append(f"certificate: {certificate} (re-verify: reluid minimal --verify {certificate} {source} "
                     f"{output or 'REDUCED'})")
    return "\n".join(lines) + "\n"


def generate_reduction_check(check, path: str) -> str:
    """A :class:`~reluid.checker.reduction.ReductionCheck` as ``reluid minimal --verify`` prints it."""
    if check.valid:
        return f"VALID: {path}\n  rule: {check.reason}\n"
    return f"REJECTED: {path}\n  reason: {check.reason}\n"
