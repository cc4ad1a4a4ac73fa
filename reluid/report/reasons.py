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

>>> from reluid.verdicts import AlignMethod, Reason, ReasonCode, StopReason
>>> r = Reason(ReasonCode.FUNDIM_MEMORY, {"estimate_gb": 12.5, "cap_gb": 4})
>>> sentences([Reason(ReasonCode.SIZE_LIMIT, {"limits": [r]})])[0][:66]
'Size limit: functional dimension not attempted: it needs about 12 '
>>> text([Reason(ReasonCode.DIM_FUN_IS_U), Reason("new-code", {"n": 3})])[-31:]
'deep networks. new-code (n = 3)'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from reluid.verdicts import AlignMethod, D3Step, H82Phase, Reason, ReasonCode, StopReason

__all__ = ["sentence", "sentences", "text", "short", "facts", "note", "certificate_reasons", "hypotheses_text",
           "THEOREM_8_2"]

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


def _degenerate(item) -> str:
    """One failure of H0 or H0′: ``[kind, matrix, bias, i, j]`` with 1-based indices."""
    kind, matrix, bias, i, j = item
    if kind == "zero-row":
        return f"{matrix}_{i} = 0"
    if kind == "zero-column":
        return f"{matrix}_(:,{i}) = 0"
    return f"({matrix}_{i}, {bias}_{i}) and ({matrix}_{j}, {bias}_{j}) are proportional"


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
    parts += [f"layer {l} flip search: {_part(how)}" for l, how in p["flip_search"]]
    parts.append(f"{p['prover_queries']} premise question(s) given to the Farkas-tree prover")
    if p["undecided"]:
        parts.append(f"{p['undecided']} question(s) undecided")
    return parts


def _pow2(n) -> int:
    if not isinstance(n, int) or not 0 <= n <= 256:      # n1 of a network; a forged value is not evaluated
        raise ValueError(n)
    return 2 ** n


def _hypothesis(p) -> str:
    """What decided a hypothesis of Theorem 8.2 and its particulars (reasons; words in older certificates)."""
    return "; ".join((_part(p["detail"]), *map(_part, p["notes"])))


_NO_COVER_BY_I = "no set I of layer-1 neurons has its flats covered by |I| other hyperplanes"


#: where the §8 checks ran out of time (verdicts.H82Phase), ``{n}`` its count
_D3_STEP = {
    D3Step.H0_T0: "two layer-1 rows are zero or proportional, or a column of V is zero (H0₁, T0)",
    D3Step.FULL_REGIONS: "no layer-1 region is shown full (Definition 12.13, by Lemma 10.12(c))",
    D3Step.RIGID_EDGES: "no connected set of rigid layer-1 edges carries every label (Theorem 12.14)",
    D3Step.PINNING: "no depth-3 pinning certificate was found (Definition 12.10)",
}
_D3_PART = {D3Step.H0_T0: "H0₁ and T0", D3Step.FULL_REGIONS: "full layer-1 regions",
            D3Step.RIGID_EDGES: "rigid layer-1 edges", D3Step.PINNING: "a depth-3 pinning certificate",
            D3Step.CLASH_POINTS: "the clash points of Theorem 12.37"}

_H82_PHASE = {H82Phase.BEND_FLATS: "the bend flats ({n} found)",
              H82Phase.H4_CANDIDATES: "H4's candidate hyperplanes ({n} bend flats)",
              H82Phase.H4_BLOCKS: "H4's blocks ({n} candidate hyperplanes)",
              H82Phase.H4_COVER_SEARCH: "H4's cover search", H82Phase.H4_COVER_TREES: "H4's cover trees"}


def hypotheses_text(hypotheses) -> str:
    """Theorem 8.2's hypotheses (:class:`reluid.analysis.deep.two_layers.Hypothesis`), each with what decided it."""
    def state(h):
        return "holds" if h.holds else "fails" if h.holds is False else "undecided"
    return "; ".join(f"{h.name} {state(h)} ({_hypothesis({'detail': h.detail, 'notes': h.notes})})"
                     for h in hypotheses)


def _per_h(p) -> str:
    return f"bend flats per H_j: {list(p['counts'])}"


def _h4_covered(p) -> str:
    """H4 fails: the flats of the set I covered by hyperplanes other than the H_i, each given by its flats."""
    where = "; ".join(("a hyperplane through the flats " if len(c) > 1 else "a hyperplane through the flat ")
                      + ", ".join(f"({', '.join(map(str, point))}) on H_{j}" for point, j in c)
                      for c in p["cover"]) or "nothing"
    I = list(p["I"])
    return (f"I = {{{', '.join(map(str, I))}}}: the {p['flats']} bend flats on {', '.join(f'H_{j}' for j in I)} are "
            f"covered by {len(p['cover'])} hyperplane(s) other than the H_i ({where})")


def _num(v) -> str:
    """A number of seconds a caller gave: an integer as one, else as the float it was."""
    q = Fraction(v)
    return str(q.numerator) if q.denominator == 1 else str(float(q))


def _needs(p) -> str:
    """What a functional dimension not attempted would need (``estimate_s``, ``estimate_gb``, ``cap_gb``)."""
    if "needs" in p:                     # a certificate written before these were data
        return str(p["needs"])
    est = f"{_float(p['estimate_s']):.0f} s" if p["estimate_s"] is not None else "unknown time"
    mem, cap = _float(p["estimate_gb"]), _float(p["cap_gb"])
    why = (f"about {mem:.1f} GB of memory, more than the {cap:.1f} GB left under the memory cap" if mem > cap
           else "more than the time budget left")
    return f"it needs an estimated {est} of CPU time and {why}"


def fundim_words(p) -> str:
    """A functional-dimension result (the params of ``FunDimResult.summary()``) in words: the line `reluid fundim`
    prints."""
    arch, stop = _arch(p["architecture"]), p["stop"]
    if stop == StopReason.NOT_ATTEMPTED:
        return (f"functional dimension not attempted: {_needs(p)}; U = {p['upper_bound']}; architecture {arch}, "
                f"D = {p['n_params']}")
    rank, U = p["rank"], p["upper_bound"]
    if p["certified"] and p["by_theorem_a3"]:
        head = (f"dim_fun = {rank} = U (certified by Theorem A3: a block-triangular Jacobian of rank D - N "
                f"at {p['points']} generic points)")
    elif p["certified"]:
        head = f"dim_fun = {rank} = U (certified)"
    elif stop == StopReason.RANK_STALLED:
        head = (f"dim_fun >= {rank} (certified lower bound), U = {U}, gap {U - rank}: rank "
                f"stalled at {rank} after {p['stall_rounds']} rounds ({p['stall_regions']} activation "
                "regions) that added nothing, so the gap is likely real (a measurement, not a proof; more time "
                "is unlikely to help); a gap is evidence of hidden symmetries at parameters arbitrarily close "
                "to θ (Lemma F.6), not a proof")
    elif stop == StopReason.MEMORY_CAP:
        head = (f"dim_fun >= {rank} (certified lower bound so far), U = {U}: stopped "
                "before the next block, the process holding most of the memory cap (--memory-gb)")
    elif p["complete"]:
        head = (f"dim_fun >= {rank} (certified lower bound), U = {U}, gap {U - rank}: "
                "evidence of hidden symmetries at parameters arbitrarily close to θ (Lemma F.6; θ itself may "
                "have none), not a proof")
    else:
        est = f"; the whole computation needs about {_float(p['estimate_s']):.0f} s" if p["estimate_s"] else ""
        head = f"dim_fun >= {rank} (certified lower bound so far), U = {U}: stopped by the time budget{est}"
    return (f"{head}; architecture {arch}, D = {p['n_params']}, {p['points']} witness points (one per "
            f"activation region), rank mod p = {p['prime']}, {p['smooth']}/{p['sampled']} generic sample "
            f"points in {p['regions']} activation regions, {p['rows']} region rows examined"
            + (" (stopped at U)" if p["stopped_early"] else ""))


def _cells(p) -> str:
    """The exact functional dimension from the cells (docs/mathematics.md §9, Theorem 9.1)."""
    rank, U = p["rank"], p["upper_bound"]
    if p["exact"]:
        head = f"dim_fun = {rank} exactly" + (" = U" if p["certified"] else f" < U = {U}")
        why = (f"exact rank over Q at n0 + 1 points of each of the {p['cells']} cells; "
               + ("H_dense holds" if p["dense"] else "rank = U, so H_dense is not needed")
               + " (docs/mathematics.md §9, Theorem 9.1)")
    else:
        head = f"dim_fun >= {rank}, U = {U}"
        if not p["complete"]:
            why = f"cell enumeration incomplete: {_part(p['stopped'])}"
        else:
            layer, neuron, point = p["dense_failure"]
            why = (f"all {p['cells']} cells enumerated, but H_dense fails (neuron {neuron + 1} of hidden layer "
                   f"{layer} is identically 0 on an open region near {[str(v) for v in point]}), so only the lower "
                   "bound is proved (docs/mathematics.md §9)")
    return f"{head}; architecture {_arch(p['architecture'])}, D = {p['n_params']}; {why}"


def _regime(p) -> str:
    """The regime of a wide flip-set problem: n/km and Wendel's chance that separation works there."""
    if p["separable"] is None:
        return ""
    n, km = p["n"], p["km"]
    return (f"; regime n/km = {n / km:.2f}: random columns are separable with probability "
            f"{_float(p['separable']):.2g} (Wendel), and the kernel of U has dimension at least {n - km}")


def _z3_refusal(p, memory: bool) -> str:
    """z3 not attempted: its formula needs more time (``z3-time``) or memory (``z3-memory``) than is left."""
    n, km, rows = p["n"], p["km"], p["rows"]
    size = f"a formula of {rows} rows × {n} neurons ({rows * n:,} terms)"
    if memory:
        why = (f"needs about {_float(p['gb_needed']):.1f} GB, more than the {_float(p['gb_left']):.1f} GB left under "
               "the memory cap")
    else:
        left = "unbounded" if p["seconds_left"] is None else f"{_float(p['seconds_left']):.1f} s"
        why = f"needs about {_float(p['seconds_needed']):.0f} s to build and search once, more than the {left} left"
    kern = f", kernel of U of dimension {p['kernel_dim']}" if p["kernel_dim"] is not None else ""
    return (f"z3 not attempted: {size} {why}; regime n/km = {n / max(1, km):.2f} (n = {n}, km = {km}{kern}): past "
            "n/km ≈ 2 random columns are not separable, and the kernel is too large to enumerate")


def _same_orbit(p) -> str:
    other, reference = p.get("names") or ("other", "reference")
    how = ("the canonical forms agree layer by layer" if p["method"] == AlignMethod.CANONICAL_ROWS
           else f"the {p['method']} finds g")
    return f"{how}; act_layers(g, {other}) == {reference} exactly"


def _orbits(p) -> str:
    return f"orbits: {_part(p['orbits'])}"


def _layer_name(layer, depth) -> str:
    return "the output layer" if layer == depth else f"hidden layer {layer}"



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
    ReasonCode.THREE_HIDDEN_LAYERS: lambda p: f"Three hidden layers: {sentence(p['theorem'])}",
    ReasonCode.D3_WIDE: lambda p: (
        f"n2 = {p['n2']} >= n0 = {p['n0']}: there are no clash points, and no theorem identifies layer 1 of an arbitrary "
        "competitor (docs/mathematics.md Remark 12.40)"),
    ReasonCode.D3_CLASH_INPUT: lambda p: (f"the clash points of Theorem 12.37 are enumerated for input dimension 3 "
                                          f"only (n0 = {p['n0']})"),
    ReasonCode.D3_NO_CP: lambda p: (
        f"(CP) of Theorem 12.37 is not shown: {p['points']} clash points of edge bend flats give m_i = "
        f"[{', '.join(str(m) for m in p['m'])}], and "
        "(CP-L) needs m_(k) >= k for the sorted values"),
    ReasonCode.D3_HYPOTHESIS: lambda p: f"the hypotheses of Corollary 12.15 are not shown: {_D3_STEP[p['step']]}",
    ReasonCode.D3_FLIPS: lambda p: "the flip families are not all shown trivial: " + "; ".join(
        f"hidden layer {layer}: {'a flip set exists' if found else 'undecided'}" for layer, found in p["layers"]),
    ReasonCode.D3_TIMEOUT: lambda p: f"the time ran out while looking for {_D3_PART[p['step']]}",
    ReasonCode.FUNDIM: lambda p: "Functional dimension: " + (p["detail"] if "detail" in p else fundim_words(p)),
    ReasonCode.LOCALLY_IDENTIFIABLE: lambda p: (
        "θ is locally identifiable (Theorem A1, docs/mathematics.md §6): near θ every parameter with the same "
        "function is a positive rescaling of θ; this does not exclude hidden symmetries far from θ, and no complete "
        "method is known for deep networks"),
    ReasonCode.DIM_FUN_IS_U: lambda p: ("dim_fun = U is consistent with no hidden symmetries but does not prove it; "
                                        "no complete method is known for deep networks"),
    ReasonCode.SIZE_LIMIT: lambda p: "Size limit: " + "; ".join(_part(x) for x in p["limits"]),
    ReasonCode.TIME_BUDGET: lambda p: (f"Time budget: {'the ' + _budget(p) + ' ran out' if p['ran_out'] else _budget(p)}"
                                       f": done: {', '.join(p['done'])}; left: {'; '.join(_part(x) for x in p['left'])}"),
    ReasonCode.FLIP_SET_SEARCH_UNKNOWN: lambda p: f"flip-set search gave no answer: {_part(p['detail'])}",
    ReasonCode.PATTERNS_UNKNOWN: lambda p: f"realisation patterns: {_part(p['search'])}",
    ReasonCode.PATTERN_CASE_LIMIT: lambda p: (f"{p['cases']} cases (P, q) exceed the limit {p['limit']} (s = "
                                              f"{p['classes']} classes, p = {p['pairs']} pairs)"),
    ReasonCode.PATTERN_TIMEOUT: lambda p: (
        f"timeout after {_float(p['seconds']):.1f} s"
        + (f" in case P = {_classes(p['P'])}, q = {p['q']}" if p["P"] is not None else "")
        + f": {p['left']} of {p['cases']} cases left"),
    ReasonCode.PATTERN_OWN_CASE: lambda p: (
        f"own case: the flip-set problem of the {p['singles']} single neurons modulo the pairs was not decided with "
        f"a checkable certificate ({_part(p['search'])})"),
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
    ReasonCode.LEFT_FUNDIM_NOT_STARTED: lambda p: f"functional dimension (not started: {_needs(p)})",
    ReasonCode.LEFT_FUNDIM_PARTIAL: lambda p: (
        f"functional dimension (rank {p['rank']} of U = {p['upper_bound']} certified so far; the whole computation "
        f"needs about {_float(p['estimate_s']):.0f} s)"),
    ReasonCode.INPUT_DIMENSION_ONE: lambda p: ("docs/mathematics.md §8 needs input dimension n0 >= 2 (for n0 = 1 there "
                                               "are no bend flats and H4 fails)"),
    ReasonCode.THEOREM_82_SIZE_LIMIT: lambda p: (
        f"beyond the size limit of Theorem 8.2's enumeration: n1 = {p['n1']} > {p['max_width']} (2^{p['n1']} "
        "layer-1 sign patterns and sets I)"),
    ReasonCode.THEOREM_82_BUDGET: lambda p: (
        f"beyond the budget of the §8 checks: {_part(p['stopped'])}; decided: {', '.join(p['decided']) or 'nothing'}; "
        f"{p['regions']} nonempty layer-1 regions, {p['full']} full, {p['flats']} bend flats found (regions tested "
        f"for fullness: {p['tested']}); of the 2^{p['n1']} = {_pow2(p['n1'])} sign patterns and {_pow2(p['n1']) - 1} "
        "sets I of H4"),
    ReasonCode.HYPOTHESIS_FAILS: lambda p: f"the hypotheses of {THEOREM_8_2} fail: {p['hypothesis']}: {_hypothesis(p)}",
    ReasonCode.H0_HOLDS: lambda p: f"{p['n1']} distinct layer-1 hyperplanes, no zero row A_j, no zero column of V",
    ReasonCode.H1_COUNT: lambda p: f"{p['full']} of {p['regions']} nonempty layer-1 regions are full",
    ReasonCode.REGION_NOT_FULL: lambda p: f"{p['signs']}: {_part(p['why'])}",
    ReasonCode.F_CONSTANT: lambda p: f"g_{p['k']} is constant on R_s (F1)",
    ReasonCode.F_NO_ZERO: lambda p: f"g_{p['k']} has no zero in R_s (F2; Motzkin y = ({', '.join(map(str, p['y']))}))",
    ReasonCode.F_PROPORTIONAL: lambda p: f"g_{p['k']} and g_{p['k2']} are proportional on R_s (F3)",
    ReasonCode.H23_STATS: lambda p: f"{p['full']} full regions, {p['edges']} edges between them, {p['rigid']} rigid",
    ReasonCode.H23_NO_COMPONENT: lambda p: (f"no component of rigid edges carries all {p['n1']} labels "
                                            f"(at most {p['best']})"),
    ReasonCode.H23_COMPONENT: lambda p: f"component 𝒞 of {p['size']} full regions carries every label",
    ReasonCode.H23_EDGE_SET: lambda p: f"certificate edge set E: {p['edges']} rigid edges",
    ReasonCode.H4_BY_COUNT: lambda p: f"{_per_h(p)}; by Lemma 10.12's count (sorted, b_(m) > m), {_NO_COVER_BY_I}",
    ReasonCode.H4_NO_COVER: lambda p: f"{_per_h(p)}; {p['candidates']} candidate hyperplanes; {_NO_COVER_BY_I}",
    ReasonCode.H4_COVERED: _h4_covered,
    ReasonCode.H4_FLAT_COUNTS: _per_h,
    ReasonCode.H82_TIMEOUT: lambda p: f"timeout in {_H82_PHASE[p['phase']].format(n=p['count'])}",
    ReasonCode.H4_COVER_NODES: lambda p: f"the H4 cover search exceeded its node budget ({p['limit']} nodes for one I)",
    ReasonCode.THEOREM_W_FAILS: lambda p: (f"{sentence(p['theorem_8_2'])}; Theorem W: {p['failed']} fails "
                                           f"({_part(p['detail'])})"),
    ReasonCode.THEOREM_W_NOT_STARTED: lambda p: "the time budget ran out before it started",
    ReasonCode.W_DEGENERATE_ROWS: lambda p: ("; ".join(map(_degenerate, p["items"]))
                                             + (f" and {p['more']} more" if p.get("more") else "")),
    ReasonCode.W_NEEDS_REGIONS: lambda p: (
        f"the x frame (rank A < n1 = {p['n1']}) needs layer-1 regions with exact witnesses: §8's sign tree stops at "
        "n1 = 14 and the LP-guided search needs highspy (the optional extra 'lp': pip install 'reluid[lp]')"),
    ReasonCode.W_COVER: lambda p: (f"{_per_h(p)}; "
                                   + ("a cover exists" if p["exhaustive"] else "the count condition fails")),
    ReasonCode.W_UNPINNED: lambda p: f"{p['pinned']} of {p['n2']} layer-2 neurons pinned",
    ReasonCode.FM_ROW_BUDGET: lambda p: (f"Fourier–Motzkin step {p['step']} of {p['of']} needs {p['rows']} rows "
                                         f"(budget {p['budget']})"),
    ReasonCode.W_STRICT_BUDGET: lambda p: (f"timeout after {p['systems']} strict systems" if p["limit"] is None
                                           else f"more than {p['limit']} strict systems"),
    ReasonCode.FLIP_SEARCH_UNDECIDED: lambda p: (
        ("the hypotheses of Theorem W hold" if p["theorem_w"] else f"H0–H4 hold ({THEOREM_8_2})")
        + ", but the flip-set search is undecided: " + "; ".join(f"layer {l}: {_part(why)}" for l, why in p["layers"])),
    ReasonCode.LAYER_FLIP_SEARCH: lambda p: f"{_part(p['status'])}; {p['sets']} minimal flip set(s)",
    ReasonCode.LAYER_FLIP_FULL_RANK: lambda p: "full-rank",
    ReasonCode.LAYER_FLIP_EXHAUSTED: lambda p: "exhausted",
    ReasonCode.LAYER_FLIP_EMPTY: lambda p: "skipped: empty layer",
    ReasonCode.LAYER_FLIP_SKIPPED: lambda p: f"skipped: kernel support of {p['support']} neurons exceeds {p['limit']}",
    ReasonCode.LAYER_FLIP_TIMEOUT: lambda p: f"stopped at the time budget after {p['tried']} of {p['subsets']} subsets",
    ReasonCode.FUNDIM_CELLS: _cells,
    ReasonCode.CELLS_STOPPED: lambda p: f"{_part(p['why'])}; {p['cells']} cells found so far",
    ReasonCode.CELLS_NODES: lambda p: f"more than {p['limit']} nodes of the sign tree",
    ReasonCode.CELLS_TIMEOUT: lambda p: f"timeout after {p['nodes']} nodes",
    ReasonCode.CELLS_TOO_MANY: lambda p: f"more than {p['limit']} cells",
    # the flip-set search (reluid.analysis.shallow.flipsets)
    ReasonCode.FLIP_METHODS_GAVE_UP: lambda p: ("; ".join(f"{m}: {_part(why)}" for m, why in p["methods"])
                                                or "no method applies"),
    ReasonCode.FLIP_TIMEOUT: lambda p: f"timeout in {p['method']} ({_part(p['detail'])}){_regime(p)}",
    ReasonCode.FLIP_RANK_DEFICIENT: lambda p: f"U has rank {p['rank']} < n = {p['n']} mod {p['p']}",
    ReasonCode.FLIP_LATTICE_TOO_LARGE: lambda p: f"n = {p['n']} > {p['limit']}",
    ReasonCode.FLIP_SEPARATION_SHARE: lambda p: (
        f"stopped at its share ({_float(p['share']):.0%}) of the time left ({_part(p['detail'])}): at n/km = "
        f"{p['n'] / p['km']:.2f} random columns are separable with probability {_float(p['separable']):.2g} (Wendel)"),
    ReasonCode.SEPARATION_ZERO_COLUMN: lambda p: "a zero column u_i (m_i = 0 or a_i = 0) cannot be separated",
    ReasonCode.SEPARATION_IMPOSSIBLE: lambda p: (
        f"not separable: the max-margin LP optimum is {_float(p['optimum']):.2g} ≤ 0, so (Gordan) some nonzero "
        "x ≥ 0 has Ux = 0"),
    ReasonCode.SEPARATION_NOT_FOUND: lambda p: (("L-BFGS and the HiGHS max-margin LP" if p["lp"] else "L-BFGS")
                                                + " found no y with yᵀu_i > 0 for every i"),
    ReasonCode.SEPARATION_ROUNDING: lambda p: "the rounded y does not separate exactly",
    ReasonCode.SEPARATION_SPLIT_TOO_LARGE: lambda p: (f"{_part(p['why'])}; the split would leave {p['rest']} of the "
                                                      f"{p['n']} neurons"),
    ReasonCode.SEPARATION_SPLIT_UNKNOWN: lambda p: (
        f"{_part(p['why'])}; no certificate for the {p['rest']} neurons the split leaves ({_part(p['sub'])})"),
    ReasonCode.Z3_TIME: lambda p: _z3_refusal(p, memory=False),
    ReasonCode.Z3_MEMORY: lambda p: _z3_refusal(p, memory=True),
    ReasonCode.Z3_NO_TIME: lambda p: f"n = {p['n']}, no time left for the solver",
    ReasonCode.Z3_UNSAT: lambda p: (f"z3 answered unsat for n = {p['n']}, which is not a certificate the checker can "
                                    "re-verify"),
    ReasonCode.Z3_UNKNOWN: lambda p: f"z3 returned unknown ({_part(p['answer'])}) for n = {p['n']}",
    ReasonCode.Z3_SPURIOUS_ROW: lambda p: "z3 returned a candidate that violates an encoded row",
    ReasonCode.Z3_SPURIOUS: lambda p: "z3 kept returning spurious candidates",
    ReasonCode.SCREEN_NOTHING: lambda p: "no zero column and no opposite pair",
    ReasonCode.RANK_DEPENDENT: lambda p: f"k·m = {p['km']} < n = {p['n']}: the columns of U are dependent",
    ReasonCode.RANK_MINORS_VANISH: lambda p: f"the n × n minors of U tried vanish mod {p['p']}",
    ReasonCode.LLL_NOT_ATTEMPTED: lambda p: f"n = {p['n']} > {p['limit']}: LLL not attempted",
    ReasonCode.LATTICE_FULL_RANK: lambda p: "U has full column rank (the rank method applies)",
    ReasonCode.LATTICE_HOPELESS: lambda p: (
        f"det(ker U ∩ Z^n)^(1/{p['dimension']}) < √n = {math.sqrt(p['n']):.3g}: no basis can meet the Gram–Schmidt "
        "bound"),
    ReasonCode.LATTICE_KERNEL_TOO_LARGE: lambda p: "the kernel of the sampled rows is larger than ker U",
    ReasonCode.LATTICE_GRAM_SCHMIDT: lambda p: f"Gram–Schmidt bound fails: min ‖b*_i‖² ≤ n = {p['n']}",
    ReasonCode.LATTICE_ENUM_LIMIT: lambda p: (
        f"Gram–Schmidt bound fails and the enumeration needs more than {p['nodes']} nodes or meets more than "
        f"{p['points']} lattice points (dimension {p['dimension']})"),
    ReasonCode.LATTICE_CVP_INTEGER_CENTRE: lambda p: ("the last Gram–Schmidt coordinate of the centre is an integer "
                                                      "(fplll's sign rule)"),
    ReasonCode.LATTICE_CVP_NODES: lambda p: (
        f"the enumeration of the ball needs up to about {_float(p['estimate']):.2g} nodes after BKZ-{p['block']} "
        f"(dimension {p['dimension']}), more than {p['limit']}"),
    ReasonCode.LATTICE_CVP_TIME: lambda p: (
        f"the enumeration of the ball needs up to about {_float(p['estimate']):.2g} nodes after BKZ-{p['block']} "
        f"(dimension {p['dimension']}), ≈ {_float(p['seconds']):.0f} s, more than the {_float(p['left']):.0f} s "
        "left"),
    ReasonCode.LATTICE_CVP_POINTS: lambda p: (
        f"the ball holds more than {p['points']} lattice points or the enumeration more than {p['nodes']} nodes "
        f"(dimension {p['dimension']})"),
    ReasonCode.ENUMERATE_TOO_LARGE: lambda p: (f"kernel of U mod {p['p']} has dimension {p['dimension']} > "
                                               f"{p['limit']}"),
    ReasonCode.MITM_TOO_LARGE: lambda p: f"n = {p['n']} > {p['limit']}: meet in the middle not attempted",
    ReasonCode.RANK_PROFILE_MEMORY: lambda p: (
        f"n = {p['n']}: it needs about {_float(p['gb_needed']):.1f} GB, more than the {_float(p['gb_left']):.1f} GB "
        "left under the memory cap"),
    ReasonCode.RANK_PROFILE_TIME: lambda p: (f"n = {p['n']}: it needs about {_float(p['seconds_needed']):.0f} s, more "
                                             f"than the {_float(p['seconds_left']):.1f} s left"),
    ReasonCode.AT_SIZE: lambda p: f"n = {p['n']}",
    ReasonCode.AT_CANDIDATES: lambda p: (f"kernel dimension {p['dimension']}, {p['left']} of 2^{p['dimension']} "
                                         "candidates left"),
    ReasonCode.AT_SUBSET_SUMS: lambda p: f"n = {p['n']}, subset sums built",
    ReasonCode.AT_MATCHING: lambda p: f"n = {p['n']}, matching",
    ReasonCode.AT_LLL: lambda p: f"LLL in dimension {p['dimension']}",
    ReasonCode.AT_BKZ: lambda p: f"BKZ-{p['block']} in dimension {p['dimension']}",
    ReasonCode.AT_DIMENSION: lambda p: f"dimension {p['dimension']}",
    ReasonCode.AT_ENUM_NODES: lambda p: f"{p['nodes']} enumeration nodes in dimension {p['dimension']}",
    ReasonCode.AT_LBFGS: lambda p: f"L-BFGS, {p['evaluations']} evaluations",
    ReasonCode.AT_EXACT_CHECK: lambda p: "exact check of the rounded y",
    ReasonCode.AT_FRANK_WOLFE: lambda p: "Frank–Wolfe iteration",
    ReasonCode.AT_MODP_POINTS: lambda p: f"2^{p['free']} points mod {p['p']}",
    ReasonCode.AT_ORIENTATIONS: lambda p: f"2^{p['free']} orientations",
    ReasonCode.NO_TIME_LEFT: lambda p: "no time left",
    ReasonCode.Z3_SAID: lambda p: str(p["answer"]),
    ReasonCode.Z3_MODEL_NOT_RATIONAL: lambda p: f"model not rational: {p['error']}",
    ReasonCode.Z3_MODEL_FAILED: lambda p: "z3 model failed exact re-evaluation",
    ReasonCode.METHOD_ERROR: lambda p: str(p["error"]),
    # the Farkas-tree prover (reluid.analysis.deep.farkas)
    ReasonCode.FARKAS_NODE_BUDGET: lambda p: (f"node budget of {p['max_nodes']} exhausted with {p['open']} open "
                                              "node(s) left"),
    ReasonCode.FARKAS_TIMEOUT: lambda p: f"timeout after {_num(p['seconds'])} s with {p['open']} open node(s) left",
    ReasonCode.FARKAS_INTERNAL: lambda p: f"internal inconsistency: {p['error']}",
    # region enumeration (reluid.analysis.deep.regions)
    ReasonCode.REGIONS_NOT_RUN: lambda p: "not run",
    ReasonCode.REGIONS_COMPLETE: lambda p: f"{p['regions']} regions, {p['lps']} exact LPs",
    ReasonCode.REGIONS_STOPPED: lambda p: (
        f"stopped after {p['regions']} regions (max_regions = {p['max_regions']})" if p["max_regions"] is not None
        else f"stopped after {p['regions']} regions and {p['lps']} exact LPs (time limit)"),
    # alignment (reluid.analysis.deep.align)
    ReasonCode.ALIGN_SAME_ORBIT: _same_orbit,
    ReasonCode.ALIGN_DEPTHS: lambda p: f"different depths ({p['depths'][0]} and {p['depths'][1]} layer maps)",
    ReasonCode.ALIGN_WIDTHS: lambda p: (f"hidden layer {p['layer']} has {p['widths'][0]} neurons in the reference and "
                                        f"{p['widths'][1]} in the other network"),
    ReasonCode.ALIGN_UNMATCHED: lambda p: (
        f"{_layer_name(p['layer'], p['depth'])} is the first whose canonical rows cannot be matched "
        f"({p['unmatched']} row{'s' if p['unmatched'] != 1 else ''} with no partner)"),
    ReasonCode.ALIGN_TIES_STOPPED: lambda p: (f"hidden layer {p['layer']} has tied or zero canonical rows, and the "
                                              f"exhaustive orbit search stopped after {p['nodes']} nodes"),
    ReasonCode.ALIGN_TIES_NO_ELEMENT: lambda p: (
        f"layers before hidden layer {p['layer']} match; hidden layer {p['layer']} has tied or zero canonical rows, "
        "and the exhaustive search finds no element"),
    # equivalence (reluid.analysis.deep.equivalence, reluid.analysis.shallow.function)
    ReasonCode.EQUIV_SAME_FUNCTION_DATA: lambda p: "same kinks, linear part and constant",
    ReasonCode.EQUIV_FUNCTION_DATA_DIFFER: lambda p: "function data differ",
    ReasonCode.EQUIV_SAME_ORBIT: lambda p: f"same orbit: {sentence(p['alignment'])}",
    ReasonCode.EQUIV_DIFFERENT_ARCHITECTURES: lambda p: "different architectures",
    ReasonCode.EQUIV_FLOAT_SEARCH: lambda p: (f"the exact outputs differ at a point chosen by {p['probes']} float "
                                              f"probes; {_orbits(p)}"),
    ReasonCode.EQUIV_REGION_DIFFER: lambda p: (f"the affine maps differ on a joint activation region (found after "
                                               f"{p['regions']} regions); {_orbits(p)}"),
    ReasonCode.EQUIV_REGION_AGREE: lambda p: (f"the affine maps agree on all {p['regions']} joint activation regions "
                                              f"({p['lps']} exact LPs); {_orbits(p)}"),
    ReasonCode.EQUIV_Z3_FOUND: lambda p: f"z3 found the input, checked exactly; {_orbits(p)}",
    ReasonCode.EQUIV_REGION_FOUND: lambda p: (f"the exact outputs differ at an input found in {p['region']}; "
                                              f"before it: {_part(p['before'])}"),
    ReasonCode.EQUIV_UNDECIDED: lambda p: "; ".join([*(_part(n) for n in p["notes"]), _orbits(p)]),
    ReasonCode.EQUIV_NO_PROBE_DIFFERENCE: lambda p: f"no distinguishing input among {p['probes']} float probes",
    ReasonCode.EQUIV_REGION_SPLIT_STOPPED: lambda p: f"region split {_part(p['walk'])}",
    ReasonCode.EQUIV_TOO_LARGE: lambda p: (
        f"too large for the exact region split (input dimension {p['input_dim']}, {p['neurons']} hidden neurons; "
        f"limits {p['limits'][0]} and {p['limits'][1]})"),
    ReasonCode.EQUIV_Z3_UNSAT: lambda p: ("z3 reports no distinguishing input (unsat; not an exact proof, so not a "
                                          "verdict)"),
    ReasonCode.EQUIV_Z3_UNKNOWN: lambda p: f"z3: unknown ({_part(p['answer'])})",
    ReasonCode.EQUIV_NO_TIME_FOR_Z3: lambda p: "no time left for z3",
    ReasonCode.H4_MOVE_UNDECIDED: lambda p: f"neuron {p['neuron'] + 1}, δ = {p['delta']}: {_part(p['why'])}",
    # exact reduction (reluid.analysis.reduction)
    ReasonCode.REDUCTION_STOPPED: lambda p: "time budget exhausted: the reduction stopped (every step so far is exact)",
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
            return f"{r.params['hypothesis']}: {_part(r.params['detail'])}"
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
    return "" if value is None else _part(value)


def certificate_reasons(cert) -> tuple[str, ...]:
    """The sentences of a certificate's reason: its reasons (format /3), or the prose of a /2 file as it stands."""
    if cert.reasons:
        return sentences(cert.reasons)
    return (cert.reason.removesuffix("."),) if cert.reason else ()
