"""Ramakrishnan 2026, Section 6: the paper's float program for the minimal form, against exact arithmetic.

The first part of this module is the paper's program, transcribed from the
seed text as faithfully as the PDF extraction allows (names, comments, control
flow and floating-point arithmetic unchanged; only the extraction's spacing
was undone).  It is the object of study here and the only place in reluid
where an outcome-relevant quantity is a float; every conclusion below is
re-checked with exact rationals.
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# The paper's program (Section 6, "Code to Compute Minimal Form"), verbatim.
# ---------------------------------------------------------------------------
from math import sqrt


# Notably this sign function returns 0 for 0 instead of 1 as might be more standard.
def sign(x):
    if x > 0: return 1
    elif x < 0: return -1
    else: return 0


def isLinDep(x, y):
    PseudoOutput = 0
    l = len(x)
    for i in range(l):
        for j in range(i, l):
            PseudoOutput += abs(x[i]*y[j] - x[j]*y[i])
    if PseudoOutput == 0: return True
    else: return False


def isSemiLinDep(x, y):
    xsign = [sign(a) for a in x]
    ysign = [sign(a) for a in y]
    if isLinDep(x, y) and xsign == ysign: return True
    else: return False


def inner(x):
    y = 0
    for a in x:
        y += a*a
    return y


# This takes 4 different inputs but returns one input as a list in the form [v_min, A_min, b_min, c_min].
# Notably there is no test for whether the parameter is actually a valid parameter which bears caution.
def minimalForm(v, A, b, c):
    c_final = c
    n = len(v)
    Az = [0]*len(A[0])
    partitionRange = set(range(n))
    # This loop takes care of equivalences (1) and (3) in in the definition of the minimal form
    for i in range(len(b)):
        if A[i] == Az:
            c_final += v[i]*max(0, b[i])
            partitionRange.remove(i)
        if v[i] == 0:
            partitionRange.remove(i)
    combinedAb = [A[i] + [b[i]] for i in range(n)]
    nonZeroSemiDepIndices = []

    # This loop determines linearly semi-dependent rows in A
    for i in partitionRange:
        if partitionRange == {}: break
        if i not in partitionRange: continue
        l = [j for j in partitionRange if isSemiLinDep(combinedAb[i], combinedAb[j])]
        nonZeroSemiDepIndices.append(l)
        partitionRange = partitionRange - set(l)
    r_pos, r_neg, r_zero = [], [], n - len(nonZeroSemiDepIndices)

    # This loop takes care of equivalence (2) in the definition of the minimal form
    for I in nonZeroSemiDepIndices:
        if len(I) > 1:
            w = inner(combinedAb[I[0]])
            s = 1+sum([(v[I[i]]/v[I[0]])*sqrt(inner(combinedAb[I[i]])/w) for i in range(1, len(I))])
            if v[I[0]]*s > 0: r_pos.append([a*abs(s) for a in combinedAb[I[0]]])
            if v[I[0]]*s < 0: r_neg.append([a*abs(s) for a in combinedAb[I[0]]])
            if s == 0: r_zero += 1
        else:
            if v[I[0]] > 0: r_pos.append([a*abs(v[I[0]]) for a in combinedAb[I[0]]])
            if v[I[0]] < 0: r_neg.append([a*abs(v[I[0]]) for a in combinedAb[I[0]]])
    A_pos, A_neg, b_pos, b_neg = [], [], [], []

    # These loops piece together everything to build the minimal form of the parameter
    for r in sorted(r_pos, reverse=True):
        b_pos.append(r.pop())
        A_pos.append(r)
    for r in sorted(r_neg, reverse=True):
        b_neg.append(r.pop())
        A_neg.append(r)
    v_final = [1]*len(r_pos) + [-1]*len(r_neg) + [0]*r_zero
    A_final = A_pos + A_neg + [Az]*r_zero
    b_final = b_pos + b_neg + [0]*r_zero

    return [v_final, A_final, b_final, c_final]


# ---------------------------------------------------------------------------
# The comparison with exact arithmetic (reluid).
# ---------------------------------------------------------------------------
from fractions import Fraction  # noqa: E402

from ._framework import (RAMAKRISHNAN, SEED_R, Checks, Statement, fmt, fmt_point,  # noqa: E402
                               fmt_theta)
from reluid.analysis.shallow.function import equivalent  # noqa: E402
from reluid.analysis.shallow.minimal import minimal_form  # noqa: E402
from reluid.model.network import Shallow  # noqa: E402


def _exact_input(v, A, b, c) -> Shallow:
    """The exact binary values of the program's (float or int) inputs."""
    q = lambda x: Fraction(x)  # noqa: E731 - Fraction(float) is the float's exact value
    return Shallow.make([q(x) for x in v], [[q(x) for x in r] for r in A], [q(x) for x in b], [q(c)])


def _exact_output(out) -> Shallow:
    v, A, b, c = out
    return _exact_input(v, A, b, c)


def _run_paper(v, A, b, c):
    try:
        return minimalForm([x for x in v], [list(r) for r in A], list(b), c), None
    except Exception as e:  # the program's own failure is a result here
        return None, f"{type(e).__name__}: {e}"


def _case(c: Checks, label: str, v, A, b, C, what: str) -> str | None:
    """Run the paper's program and reluid's exact minimal form on the same input; describe the difference."""
    theta = _exact_input(v, A, b, C)
    exact = minimal_form(theta)
    out, err = _run_paper(v, A, b, C)
    c.trust.add("exact")
    if err:
        c.line(f"{label}: the program raises {err.split(':')[0]}; reluid computes the minimal form")
        return f"{label} ({what}): on θ = ({fmt_theta(theta)}) the program raises {err}; reluid's exact minimal form " \
               f"is ({fmt_theta(exact.theta)}), 0-factor rank {exact.zero_factor_rank}."
    prog = _exact_output(out)
    same = prog == exact.theta
    eq = equivalent(theta, prog)
    rank_prog = sum(1 for x in out[0] if x == 0)
    desc = (f"{label} ({what}): θ = ({fmt_theta(theta)}). The program returns v = {out[0]}, A = {out[1]}, "
            f"b = {out[2]}, C = {out[3]!r} (0-factor rank {rank_prog}); the exact minimal form is "
            f"({fmt_theta(exact.theta)}), 0-factor rank {exact.zero_factor_rank}.")
    if not eq.equal:
        x = eq.input
        desc += (f" The program's output does not even realise ρ(θ): exactly, at x = {fmt_point(x)}, "
                 f"ρ(θ) = {fmt(eq.outputs[0][0])} but ρ(output) = {fmt(eq.outputs[1][0])}.")
    c.line(f"{label}: the program's output "
           + ("equals the exact minimal form" if same else
              "differs from the exact minimal form" + ("" if eq.equal else " and realises a different function "
                                                       "(re-checked exactly)")))
    return None if same else desc


def check(max_n, timeout):
    c = Checks(timeout)
    cases = [
        ("Example 1 of the paper (second row)", [2, 3, -1], [[4, 4, 4], [1, 1, 1], [5, 2, 1]], [0, 0, 0], 0,
         "a plain bug: a merged neuron's row is scaled by |s| instead of |v_{I[0]} s|"),
        ("Exact cancellation missed", [49, -1], [[1], [49]], [1, 49], 0,
         "integer input; v_1 + λ v_2 = 49 − 49 = 0 with λ = 49, but 1 − fl(1/49)·49 ≠ 0 in floating point"),
        ("Cancellation invented", [1, -1 / 3], [[1], [3]], [1, 3], 0,
         "v_2 = fl(−1/3) is stored in binary, so v_1 + 3 v_2 = 1 − 3·fl(1/3) = 2⁻⁵⁴ ≠ 0 exactly, "
         "but the float sum rounds to 0"),
        ("Rows merged that are not proportional", [1, 1], [[1], [3]], [0.1, 3 * 0.1], 0,
         "the binary values (1, fl(0.1)) and (3, fl(3·fl(0.1))) are not proportional (the exact minor is "
         "2⁻⁵⁵), but the float minor is 0"),
        ("A neuron with v_i = 0 and a_i = 0", [1, 0], [[1], [0]], [0, 1], 0,
         "a plain bug: index i is removed from partitionRange twice"),
    ]
    diffs = []
    for label, v, A, b, C, what in cases:
        d = _case(c, label, v, A, b, C, what)
        if d:
            diffs.append(d)
    # inputs on which the program is right: single neurons and merges with |v_{I[0]}| = 1, dyadic data
    agree_cases = [
        ([1, 2], [[1, 0], [0, 1]], [0, 1], 3),
        ([1, -1], [[1, 1], [-1, 0]], [-2, -1], 0),
        ([-1, 2, 0.5], [[1], [2], [-1]], [1, 2, 0], 1),
    ]
    agree = 0
    for v, A, b, C in agree_cases:
        out, err = _run_paper(v, A, b, C)
        agree += err is None and _exact_output(out) == minimal_form(_exact_input(v, A, b, C)).theta
    c.exact(f"control: on {len(agree_cases)} inputs without these features the program and the exact minimal "
            f"form agree ({agree} of {len(agree_cases)})", agree == len(agree_cases))
    if c.failures:
        return c.outcome("control failed")
    if not diffs:
        return c.outcome("The program agreed with the exact minimal form on every input tried.")
    for d in diffs[1:]:
        c.remark(d)
    c.finding("Section 6's program has two plain bugs: a merged class is rescaled by |s| rather than "
              "|v_{I[0]}·s| (so it reproduces the paper's own Example 1 wrongly: row (5.5, 5.5, 5.5) instead of "
              "(11, 11, 11)), and a neuron with v_i = 0 and a_i = 0 is removed from partitionRange twice "
              "(KeyError). `partitionRange == {}` compares a set with a dict and is never true (harmless).")
    c.finding("In floating point the program decides proportionality (isLinDep: a sum of |minors| == 0) and "
              "cancellation (s == 0, with s computed through sqrt of squared norms) by exact comparisons of "
              "rounded numbers, so it can miss an exact cancellation, invent one, or merge rows that are not "
              "proportional. reluid.analysis.shallow.minimal.minimal_form works on the exact rational values "
              "(for floats, the exact binary value stored) and obtains the ratio of proportional rows as a "
              "quotient of coordinates, so none of these can happen.")
    return c.counterexample(
        f"The program differs from the exact minimal form on {len(diffs)} of {len(cases)} inputs (every difference "
        "re-checked exactly); the first is the paper's own Example 1.", diffs[0], True,
        [("example_1_input", _exact_input(*cases[0][1:5]))])


STATEMENT = Statement(
    name="ramakrishnan_section_6_float",
    title="Section 6 (the float program for the minimal form)",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §6 'Code to Compute Minimal Form' (and §4, Definition 3, Example 1)",
    statement="The program minimalForm(v, A, b, c) of Section 6 returns the minimal form θ_min = (v_min, A_min, "
              "b_min, C_min) of Definition 3: neurons with v_i = 0 or a_i = 0 removed (the latter absorbed into "
              "C), positively proportional rows merged, rows scaled by |v|, v ∈ {±1, 0}ⁿ, positive neurons "
              "first, zero neurons last.",
    method="The program is transcribed verbatim (floats and math.sqrt) and run on chosen inputs; its output, "
           "converted exactly (Fraction(float) is the float's exact value), is compared with "
           "reluid.analysis.shallow.minimal.minimal_form on the exact values of the same inputs, and when they "
           "differ reluid decides exactly whether the program's output still realises ρ(θ). Control inputs "
           "without the problematic features must agree.",
    sizes="five targeted inputs and three controls (m ≤ 3, n ≤ 3).",
    expected="counterexample",
    check=check,
    order=(6,),
)
