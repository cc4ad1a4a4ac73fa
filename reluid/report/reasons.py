"""The words of a reason: every :class:`~reluid.verdicts.ReasonCode` as the sentence reports show.

Analyses say why an answer is ``unknown`` with :class:`~reluid.verdicts.Reason`
values (a code and JSON parameters), and certificates store them as data
(``"reasons"``, docs/certificates.md); this module is the only place that turns
them into words.  :func:`sentences` gives one sentence per reason for the
reports, :func:`text` the whole reason on one line (audit output, JUnit
messages), :func:`short` its first clause (tables, badges) and :func:`facts`
the facts an index shows first (a hypothesis of Theorem 8.2 that fails, a time
budget that ran out).

A parameter is a number, a string, a list or a nested reason (a ``{"code",
"params"}`` mapping).  Numbers measured as floats (seconds, gigabytes) are
stored as their exact ``"p/q"`` and shown as the float they are.  Some
parameters are still sentences written by the analysis that produced them (a
flip-set search's ``detail``, the functional dimension's ``detail``, an
undecided question and why); they are shown as they stand.

>>> from reluid.verdicts import Reason, ReasonCode
>>> r = Reason(ReasonCode.FUNDIM_MEMORY, {"estimate_gb": 12.5, "cap_gb": 4})
>>> sentences([Reason(ReasonCode.SIZE_LIMIT, {"limits": [r]})])[0][:66]
'Size limit: functional dimension not attempted: it needs about 12 '
>>> text([Reason(ReasonCode.DIM_FUN_IS_U), Reason("new-code", {"n": 3})])[-31:]
'deep networks. new-code (n = 3)'
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from reluid.verdicts import Reason, ReasonCode

__all__ = ["sentence", "sentences", "text", "short", "facts", "note", "certificate_reasons", "THEOREM_8_2"]

#: what Theorem 8.2 rests on, as the two-hidden-layer reasons cite it
THEOREM_8_2 = "docs/mathematics.md §8, Theorem 8.2 and Corollary 8.3"


def _reason(r) -> Reason:
    return r if isinstance(r, Reason) else Reason(r["code"], r["params"])


def _float(v) -> float:
    return float(Fraction(v))


def _arch(a) -> str:
    return "(" + ", ".join(str(x) for x in a) + ")"


def _ints(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _part(v) -> str:
    """A parameter that is either a nested reason or words (a phase name, an analysis's sentence)."""
    return sentence(v) if isinstance(v, Reason) or isinstance(v, Mapping) and "code" in v else str(v)


def _budget(p) -> str:
    if p["seconds"] is None:
        return "no time budget"
    return f"time budget {_float(p['seconds']):g} s ({_float(p['used']):.1f} s used)"


def _classes(P) -> str:
    """A set of classes of docs/mathematics.md §4, numbered from 1 (the reason's params count from 0)."""
    return "{" + ", ".join(str(r + 1) for r in sorted(P)) + "}" if P else "∅"


#: the sign of a pre-activation question, in words
_SIGN_WORD = {">0": "active", "<0": "negative"}


def _mechanism_summary(p) -> list[str]:
    parts = [f"{p['mechanisms']} mechanism(s) found" if p["mechanisms"] else "no mechanism found",
             f"{p['hidden']} hidden neurons examined for dead/always-active ({p['active']} activity and "
             f"{p['inactive']} inactivity witnesses, {p['coactive']} co-activity witnesses)"]
    if p["no_flip_layers"]:
        parts.append(f"no layer flip in hidden layers {_ints(p['no_flip_layers'])} (exact rank)")
    parts += [f"layer {l} flip search: {how}" for l, how in p["flip_search"]]
    parts.append(f"{p['prover_queries']} premise question(s) given to the Farkas-tree prover")
    if p["undecided"]:
        parts.append(f"{p['undecided']} question(s) undecided")
    return parts


def _pow2(n) -> int:
    if not isinstance(n, int) or not 0 <= n <= 256:      # n1 of a network; a forged value is not evaluated
        raise ValueError(n)
    return 2 ** n


def _hypothesis(p) -> str:
    return "; ".join((p["detail"], *p["notes"]))


_WORDS = {
    ReasonCode.NO_DEEP_MECHANISM: lambda p: (f"no mechanism of hidden symmetry certified for the deep architecture "
                                             f"{_arch(p['architecture'])}: " + "; ".join(_mechanism_summary(p))),
    ReasonCode.UNDECIDED_QUESTIONS: lambda p: (
        "Undecided: " + "; ".join(f"{_part(q)} ({_part(why)})" for q, why in p["questions"])
        + (f" and {p['more']} more" if p["more"] else "")),
    ReasonCode.QUESTION_SIGN: lambda p: (f"is neuron {p['neuron'] + 1} of hidden layer {p['layer']} ever "
                                         f"{_SIGN_WORD[p['sign']]}?"),
    ReasonCode.QUESTION_COACTIVE: lambda p: (f"are neuron {p['first'] + 1} of hidden layer {p['layer'] - 1} and neuron "
                                             f"{p['second'] + 1} of hidden layer {p['layer']} ever co-active?"),
    ReasonCode.QUESTION_KINK: lambda p: (
        f"is neuron {p['neuron'] + 1} of layer {p['layer']} ever negative while neuron {p['next'] + 1} of layer "
        f"{p['layer'] + 1}" + (", with that ReLU removed, is active?" if p["removed"] else " is active?")),
    ReasonCode.QUESTION_FLIP_SUM: lambda p: (f"is Σ_F W^{p['layer'] + 1} z^{p['layer']} "
                                             f"{'above' if p['sign'] == '>0' else 'below'} its value somewhere?"),
    ReasonCode.UNEXAMINED_COLLAPSED_KINKS: lambda p: "collapsed kinks (mechanism iii) not all examined",
    ReasonCode.UNEXAMINED_AFFINE_FLIPS: lambda p: "affine layer flips (mechanism iv) not all examined",
    ReasonCode.UNEXAMINED_STEPS: lambda p: "not examined: " + ", ".join(p["steps"]),
    ReasonCode.QUESTIONS_NOT_REFUTED: lambda p: (f"{p['questions']} dead/always-active/co-activity question(s) not "
                                                 "refuted by probes"),
    ReasonCode.PROVER_NOT_USED: lambda p: ("prover not used (a mechanism was found)" if p["mechanism_found"]
                                           else "prover disabled"),
    ReasonCode.OUT_OF_TIME: lambda p: "time budget exhausted",
    ReasonCode.TWO_HIDDEN_LAYERS: lambda p: f"Two hidden layers: {sentence(p['theorem'])}",
    ReasonCode.FUNDIM: lambda p: f"Functional dimension: {p['detail']}",
    ReasonCode.LOCALLY_IDENTIFIABLE: lambda p: (
        "θ is locally identifiable (Theorem A1, docs/mathematics.md §6): near θ every parameter with the same "
        "function is a positive rescaling of θ; this does not exclude hidden symmetries far from θ, and no complete "
        "method is known for deep networks"),
    ReasonCode.DIM_FUN_IS_U: lambda p: ("dim_fun = U is consistent with no hidden symmetries but does not prove it; "
                                        "no complete method is known for deep networks"),
    ReasonCode.SIZE_LIMIT: lambda p: "Size limit: " + "; ".join(_part(x) for x in p["limits"]),
    ReasonCode.TIME_BUDGET: lambda p: (f"Time budget: {'the ' + _budget(p) + ' ran out' if p['ran_out'] else _budget(p)}"
                                       f": done: {', '.join(p['done'])}; left: {'; '.join(_part(x) for x in p['left'])}"),
    ReasonCode.FLIP_SET_SEARCH_UNKNOWN: lambda p: f"flip-set search gave no answer: {p['detail']}",
    ReasonCode.PATTERNS_UNKNOWN: lambda p: f"realisation patterns: {_part(p['search'])}",
    ReasonCode.PATTERN_CASE_LIMIT: lambda p: (f"{p['cases']} cases (P, q) exceed the limit {p['limit']} (s = "
                                              f"{p['classes']} classes, p = {p['pairs']} pairs)"),
    ReasonCode.PATTERN_TIMEOUT: lambda p: (
        f"timeout after {_float(p['seconds']):.1f} s"
        + (f" in case P = {_classes(p['P'])}, q = {p['q']}" if p["P"] is not None else "")
        + f": {p['left']} of {p['cases']} cases left"),
    ReasonCode.PATTERN_OWN_CASE: lambda p: (
        f"own case: the flip-set problem of the {p['singles']} single neurons modulo the pairs was not decided with "
        f"a checkable certificate ({p['search']})"),
    ReasonCode.PATTERN_ENUMERATION_LIMIT: lambda p: (
        f"case P = {_classes(p['P'])}, q = {p['q']}: 2^{p['orientations']} orientations exceed the enumeration limit "
        f"2^{p['limit']}"),
    ReasonCode.LOCAL_IDENTIFIABILITY_SKIPPED: lambda p: (
        f"local identifiability not attempted: its rank computation is estimated at {_float(p['estimate_s']):.0f} s, "
        f"more than the {_float(p['cap_s']):.1f} s given to side properties of shallow networks ("
        + (f"{_float(p['share']):.0%} of the {_float(p['left_s']):.1f} s the decision left" if p["left_s"] is not None
           else "the allowance when there is no time budget") + ")"),
    ReasonCode.LOCAL_IDENTIFIABILITY_UNFINISHED: lambda p: (
        f"local identifiability not established within {_float(p['cap_s']):.1f} s (rank {p['rank']} of D - N so far)"),
    ReasonCode.FUNDIM_MEMORY: lambda p: (
        f"functional dimension not attempted: it needs about {_float(p['estimate_gb']):.2g} GB of memory, more than "
        f"the {_float(p['cap_gb']):.2g} GB left under the memory cap (a size limit: a longer time budget does not "
        "help; reluid certify --memory-gb raises the cap)"),
    ReasonCode.LEFT_MECHANISM_DETECTION: lambda p: ("part of mechanism detection ("
                                                    + "; ".join(_part(q) for q in p["questions"]) + ")"),
    ReasonCode.LEFT_WITNESS_CONSTRUCTION: lambda p: f"witness construction for {p['mechanisms']} mechanism(s)",
    ReasonCode.LEFT_FUNDIM_NOT_STARTED: lambda p: f"functional dimension (not started: {p['needs']})",
    ReasonCode.LEFT_FUNDIM_PARTIAL: lambda p: (
        f"functional dimension (rank {p['rank']} of U = {p['upper_bound']} certified so far; the whole computation "
        f"needs about {_float(p['estimate_s']):.0f} s)"),
    ReasonCode.INPUT_DIMENSION_ONE: lambda p: ("docs/mathematics.md §8 needs input dimension n0 >= 2 (for n0 = 1 there "
                                               "are no bend flats and H4 fails)"),
    ReasonCode.THEOREM_82_SIZE_LIMIT: lambda p: (
        f"beyond the size limit of Theorem 8.2's enumeration: n1 = {p['n1']} > {p['max_width']} (2^{p['n1']} "
        "layer-1 sign patterns and sets I)"),
    ReasonCode.THEOREM_82_BUDGET: lambda p: (
        f"beyond the budget of the §8 checks: {p['stopped']}; decided: {', '.join(p['decided']) or 'nothing'}; "
        f"{p['regions']} nonempty layer-1 regions, {p['full']} full, {p['flats']} bend flats found (regions tested "
        f"for fullness: {p['tested']}); of the 2^{p['n1']} = {_pow2(p['n1'])} sign patterns and {_pow2(p['n1']) - 1} "
        "sets I of H4"),
    ReasonCode.HYPOTHESIS_FAILS: lambda p: f"the hypotheses of {THEOREM_8_2} fail: {p['hypothesis']}: {_hypothesis(p)}",
    ReasonCode.THEOREM_W_FAILS: lambda p: (f"{sentence(p['theorem_8_2'])}; Theorem W: {p['failed']} fails "
                                           f"({p['detail']})"),
    ReasonCode.FLIP_SEARCH_UNDECIDED: lambda p: (
        ("the hypotheses of Theorem W hold" if p["theorem_w"] else f"H0–H4 hold ({THEOREM_8_2})")
        + ", but the flip-set search is undecided: " + "; ".join(f"layer {l}: {why}" for l, why in p["layers"])),
}


def sentence(reason) -> str:
    """The words of one reason (a :class:`Reason` or its ``{"code", "params"}`` mapping), without a full stop.

    A code this version does not know (a newer certificate) is shown with its parameters as they are.
    """
    r = _reason(reason)
    words = _WORDS.get(r.code)
    if words is None:
        return str(r.code) + (" (" + ", ".join(f"{k} = {v}" for k, v in r.params.items()) + ")" if r.params else "")
    try:
        return words(r.params)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return f"{r.code} (parameters not understood: {dict(r.params)})"


def sentences(reasons) -> tuple[str, ...]:
    """One sentence per reason; a functional dimension does not repeat the architecture an earlier one named."""
    out, named = [], set()
    for reason in map(_reason, reasons):
        s = sentence(reason)
        arch = reason.params.get("architecture")
        if arch is not None:
            if reason.code == ReasonCode.FUNDIM and _arch(arch) in named:
                s = s.replace(f"architecture {_arch(arch)}, ", "").replace(f"; architecture {_arch(arch)}", "")
            named.add(_arch(arch))
        out.append(s)
    return tuple(out)


def text(reasons) -> str:
    """The whole reason on one line: every sentence in full, joined by '. '."""
    return ". ".join(sentence(r) for r in reasons)


def _first_clause(words: str) -> str:
    """An analysis's sentence up to its first '; ' outside brackets (for the parameters still in words)."""
    depth = 0
    for k, ch in enumerate(words):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == ";" and depth == 0:
            return words[:k]
    return words


def short(reasons) -> str:
    """The first clause of the first reason (tables, badges)."""
    if not reasons:
        return ""
    first = _reason(reasons[0])
    if first.code == ReasonCode.NO_DEEP_MECHANISM:
        return "no mechanism of hidden symmetry certified: " + _mechanism_summary(first.params)[0]
    return _first_clause(sentence(first))


def _hypothesis_failed(theorem) -> str | None:
    """The hypothesis of Theorem 8.2 a two-hidden-layer reason says fails, with what decided it."""
    try:
        r = _reason(theorem)
        if r.code == ReasonCode.THEOREM_W_FAILS:
            r = _reason(r.params["theorem_8_2"])
        if r.code == ReasonCode.HYPOTHESIS_FAILS:
            return f"{r.params['hypothesis']}: {r.params['detail']}"
    except (KeyError, TypeError):       # a reason this version cannot read: no fact taken from it
        pass
    return None


def facts(reasons) -> list[str]:
    """The facts of a reason an index shows first: the hypothesis of Theorem 8.2 that fails; the time budget.

    Any other reason whose words say that something ran out counts too (a
    search's own sentence, still written by the analysis, may say so).
    """
    out = []
    for r in map(_reason, reasons):
        failed = _hypothesis_failed(r.params.get("theorem")) if r.code == ReasonCode.TWO_HIDDEN_LAYERS else None
        s = sentence(r)
        if failed:
            out.append(f"Theorem 8.2 not applicable: {failed}")
        elif r.code == ReasonCode.TIME_BUDGET or " ran out" in s:
            out.append(s[0].lower() + s[1:])
    return out


def note(value) -> str:
    """A producer note or a part of a result: a reason in words, or words (a /2 certificate's) as they stand."""
    return _part(value)


def certificate_reasons(cert) -> tuple[str, ...]:
    """The sentences of a certificate's reason: its reasons (format /3), or the prose of a /2 file as it stands."""
    if cert.reasons:
        return sentences(cert.reasons)
    return (cert.reason.removesuffix("."),) if cert.reason else ()
