"""Rendering of the paper's Zariski-open conditions and of their evaluation at a network.

:func:`generate_conditions` writes the families V1–V4 of
:mod:`reluid.analysis.shallow.zariski` as plain text or LaTeX;
:func:`generate_evaluation` writes an :class:`~reluid.analysis.shallow.zariski.Evaluation`
as the lines ``reluid conditions --at NET`` prints.
"""

from __future__ import annotations

import sympy

from reluid.errors import InvalidArgument
from reluid.verdicts import Outcome

__all__ = ["generate_conditions", "generate_evaluation", "EVALUATION_WORD"]

#: The state of a family (the outcome of the search for a vanishing condition) in words.
EVALUATION_WORD = {Outcome.NONE: "holds", Outcome.FOUND: "FAILS", Outcome.UNKNOWN: "not fully checked"}


def _latex_condition(polys) -> str:
    if len(polys) == 1:
        return f"{_latex(polys[0])} \\neq 0"
    body = ", ".join(_latex(p) for p in polys)
    return f"\\left({body}\\right) \\neq 0"


def _latex_names(expr) -> dict:
    names = {}
    for s in expr.free_symbols:
        head, *idx = s.name.split("_")
        names[s] = f"{head}_{{{','.join(idx)}}}"
    return names


def _tex_escape(text: str) -> str:
    """The reference strings hold only these bits of mathematics."""
    for plain, tex in (("π_j", r"$\pi_j$"), ("U4", "$U_4$"), ("v_i", "$v_i$")):
        text = text.replace(plain, tex)
    return text


def _latex(expr) -> str:
    return sympy.latex(expr, symbol_names=_latex_names(expr))


def generate_conditions(condition_set, fmt: str = "text", limit: int | None = None) -> str:
    """Write the conditions out as plain text or LaTeX.

    Parameters
    ----------
    condition_set : ConditionSet
        From :func:`reluid.analysis.shallow.zariski.conditions`.
    fmt : {"text", "latex"}
        Plain text (sympy's ``str``) or a LaTeX fragment (``sympy.latex``).
    limit : int, optional
        Show the first ``limit`` members of each family; None shows all
        (do not pass None for large n: V4 has (3ⁿ − 1)/2 members).

    Returns
    -------
    str
        A header, then for each family its statement, reference and count,
        and its first members.  A condition with several polynomials is
        written ``(p_1, ..., p_r) ≠ 0``: not all p_s vanish.

    References
    ----------
    Ramakrishnan 2026, Lemma 23, Proposition 24, Theorem 5, Proposition 20.

    Examples
    --------
    >>> from reluid.analysis.shallow.zariski import conditions
    >>> print(generate_conditions(conditions(1, 2), limit=1))
    Zariski conditions for Ω(m=1, n=2, k=1) (Ramakrishnan 2026, Lemma 23, Proposition 24, Theorem 5)
    θ lies in U = U∼ ∩ U4 iff no condition vanishes; (p, q, ...) ≠ 0 means not all of p, q, ... are 0.
    V1: v_i ≠ 0 [Ramakrishnan 2026, Lemma 23, V1] -- 2 conditions
      v_1 ≠ 0
      ... 1 more
    V2: (a_i, b_i), (a_j, b_j) linearly independent (i < j): not all 2×2 minors vanish [Ramakrishnan 2026, Lemma 23, V2 (Lemma 22, Definition 8)] -- 1 condition
      a_1_1*b_2 - a_2_1*b_1 ≠ 0
    V3: a_i ≠ 0 [Ramakrishnan 2026, Lemma 23, V3] -- 2 conditions
      a_1_1 ≠ 0
      ... 1 more
    V4: Σ_i β(i) v_i a_i ≠ 0 for every β ∈ {0,±1}ⁿ∖{0} up to sign [Ramakrishnan 2026, Proposition 24; Theorem 5 (U4)] -- 4 conditions
      a_1_1*v_1 ≠ 0
      ... 3 more
    """
    if type(condition_set).__name__ != "ConditionSet":
        raise InvalidArgument(f"expected a ConditionSet, got {type(condition_set).__name__}")
    if fmt not in ("text", "latex"):
        raise InvalidArgument(f"fmt must be 'text' or 'latex', got {fmt!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidArgument(f"limit must be a non-negative integer or None, got {limit!r}")
    cs = condition_set
    dims = f"m={cs.m}, n={cs.n}, k={cs.k}"
    src = "Ramakrishnan 2026, Lemma 23, Proposition 24, Theorem 5" + (", Proposition 20" if cs.k > 1 else "")
    if cs.literal_definition_9:
        src += "; V4 after Definition 9 read literally"
    lines: list[str] = []
    if fmt == "text":
        lines.append(f"Zariski conditions for Ω({dims}) ({src})")
        lines.append("θ lies in U = U∼ ∩ U4 iff no condition vanishes; "
                     "(p, q, ...) ≠ 0 means not all of p, q, ... are 0.")
    else:
        lines.append(f"% Zariski conditions for Omega({dims}) ({src})")
        lines.append(r"% (p_1, ..., p_r) \neq 0 means: not all p_s vanish")
        lines.append(r"\begin{description}")
    for fam in cs.families:
        plural = "condition" if fam.count == 1 else "conditions"
        shown = fam.count if limit is None else min(limit, fam.count)
        if fmt == "text":
            lines.append(f"{fam.name}: {fam.statement} [{fam.reference}] -- {fam.count} {plural}")
        else:
            lines.append(f"\\item[$V_{{{fam.name[1:]}}}$] {fam.statement_latex} "
                         f"({_tex_escape(fam.reference)}): ${fam.count}$ {plural}")
            if shown:
                lines.append(r"  \begin{itemize}")
        for c in cs.iter_conditions(fam.name, shown):
            where = f"  [π_{c.output + 1}]" if c.output is not None else ""
            if fmt == "text":
                lines.append(f"  {c}{where}")
            else:
                tag = f" \\quad (\\pi_{{{c.output + 1}}})" if c.output is not None else ""
                lines.append(f"  \\item ${_latex_condition(c.polynomials)}{tag}$")
        rest = fam.count - shown
        if fmt == "text":
            if rest:
                lines.append(f"  ... {rest} more")
        else:
            if rest:
                lines.append(f"  \\item \\ldots\\ ${rest}$ more")
            if shown:
                lines.append(r"  \end{itemize}")
    if fmt == "latex":
        lines.append(r"\end{description}")
    return "\n".join(lines)


def generate_evaluation(evaluation, where: str) -> str:
    """The evaluation at a network, one line per family and a last line for the paper's condition."""
    lines = ["", f"At {where}:"]
    for f in evaluation.families:
        line = f"  {f.family}: {EVALUATION_WORD[f.outcome]} ({f.checked}/{f.total} checked) [{f.reference}]"
        if f.violations:
            v = f.violations[0]
            line += f"; vanishing at {v.index}" + (f" (output {v.output + 1})" if v.output is not None else "")
        elif f.witnesses_sample:
            w = f.witnesses_sample[0]
            line += f"; e.g. {w.where} = {w.value}"
        if f.note:
            line += f"; {f.note}"
        lines.append(line)
    word = {Outcome.NONE: "holds", Outcome.FOUND: "fails", Outcome.UNKNOWN: "undecided"}[evaluation.outcome]
    lines.append(f"Paper's sufficient condition: {word}")
    return "\n".join(lines) + "\n"
