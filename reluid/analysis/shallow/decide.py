"""The complete hidden-symmetry decision for shallow networks.

For θ ∈ Ω(m, n, k), decide whether the fibre ρ⁻¹(ρ(θ)) equals the orbit
H_n·θ, on every parameter (docs/mathematics.md §2 and §4):

1. dead outputs (m_i = 0), constant neurons (a_i = 0), positively
   proportional rows (Lemma 10, Lemma 11) and opposite pairs whose kinks
   cancel always give a hidden symmetry; an explicit θ′ is built.
2. Opposite pairs with nonzero kink carry an adjustable linear term; if the
   directions a_r of the pair classes are linearly dependent the weights move
   continuously (hidden).  Otherwise θ is on the essential stratum, decided
   exactly case by case with a certificate per case (:mod:`.essential`,
   docs/mathematics.md §4, Theorem 4).
3. The generic stratum (all m_i ≠ 0, a_i ≠ 0, rows pairwise independent):
   no hidden symmetry iff no nonempty flip set (exact criterion, docs/mathematics.md §2),
   decided with checkable certificates (:mod:`.flipsets`).

Every witness θ′ is re-verified exactly: same function
(:func:`~.function.equivalent`) and outside the orbit (:func:`~.orbit.same_orbit`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

from reluid.analysis.shallow.essential import EssentialResult, classes_text, decide_essential, hyperplane_text
from reluid.analysis.shallow import rows
from reluid.analysis.shallow.function import canonical_row, equivalent
from reluid.errors import InvalidArgument
from reluid.model.network import Network, Shallow
from reluid.verdicts import Mechanism, Outcome, Reason, ReasonCode, Stratum, Verdict

__all__ = ["Decision", "EssentialResult", "decide", "decide_affine", "hyperplane_text", "STRATA"]

STRATA = {
    Stratum.AFFINE: "no hidden layer: θ is the affine map x ↦ Wx + b, which determines W and b",
    Stratum.EMPTY: "n = 0: θ is a constant; the fibre is the single point θ",
    Stratum.DEAD_OUTPUT: "a neuron with zero output weight (Ramakrishnan 2026, Lemma 10)",
    Stratum.CONSTANT_NEURON: "a neuron with a_i = 0 (Ramakrishnan 2026, Lemma 11(2))",
    Stratum.PROPORTIONAL: "two positively proportional rows (Ramakrishnan 2026, Lemma 11(1))",
    Stratum.CANCELLING_PAIR: "an opposite pair whose kinks cancel (σ(z) − σ(−z) = z, Ramakrishnan 2026, "
                             "Prop. 14)",
    Stratum.DEPENDENT_PAIRS: "opposite pairs with linearly dependent directions (docs/mathematics.md §4)",
    Stratum.OPPOSITE_PAIRS: "opposite pairs with nonzero kinks (docs/mathematics.md §4)",
    Stratum.GENERIC: "all m_i ≠ 0, a_i ≠ 0, rows pairwise linearly independent (docs/mathematics.md §2)",
}


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome of :func:`decide`.

    Attributes
    ----------
    verdict : Verdict
    stratum : str
        One of :data:`STRATA`.
    witness : Shallow | None
        θ′ with ρ(θ′) = ρ(θ), θ′ ∉ H_n·θ (verified exactly) for a hidden symmetry.
    mechanism : str | None
        What produced the witness ("flip-set", "dead-output", "pattern", ...).
    details : Mapping
        Mechanism data (neuron indices, flip set, ...), JSON-shaped.
    flip : FlipSetResult or None
        The flip-set search result on the generic stratum (certificate data).
    pattern : EssentialResult or None
        On the opposite-pairs (essential) stratum: the case-by-case decision,
        with the certificate evidence when there is no hidden symmetry.
    paper_condition : FamilyResult or None
        The paper's sufficient condition (V4 of Proposition 24) at θ, when it
        was evaluated (``decide(..., paper_condition=True)``, every a_i ≠ 0).
    reasons : tuple of Reason
        Why the verdict is unknown (:mod:`reluid.report.reasons` words it).
    fibre : FlipSetEnumeration or None
        On the generic stratum with a flip set: every flip set, with the
        search that found them all, when that was cheap.
    fibre_orbits : int | None
        On the generic stratum: number of H_n-orbits in the fibre (= flip sets incl. ∅).
    """

    verdict: Verdict
    stratum: Stratum
    theta: Shallow
    witness: Shallow | None = None
    mechanism: str | None = None
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    flip: Any = None
    pattern: EssentialResult | None = None
    paper_condition: Any = None
    reasons: tuple[Reason, ...] = ()
    fibre: Any = None
    fibre_orbits: int | None = None
    seconds: float = 0.0


# ----------------------------------------------------------------------------------------------
def _replace_neuron(theta: Shallow, i: int, row=None, out=None, c=None) -> Shallow:
    A, b, M = list(theta.A), list(theta.b), [list(r) for r in theta.M]
    if row is not None:
        A[i], b[i] = tuple(row[:-1]), row[-1]
    if out is not None:
        for j in range(theta.k):
            M[j][i] = out[j]
    return Shallow(tuple(tuple(r) for r in M), tuple(A), tuple(b), tuple(c) if c is not None else theta.c,
                   theta.m)


def _classes(theta: Shallow):
    """Map canonical row r -> list of (i, λ) with (a_i, b_i) = λ_i r (a_i ≠ 0 only)."""
    classes: dict = {}
    for i in range(theta.n):
        cr = canonical_row(theta.A[i], theta.b[i])
        if cr is not None:
            classes.setdefault(cr[0], []).append((i, cr[1]))
    return classes


def _shared_lines(theta: Shallow):
    """The classes of :func:`_classes` with two or more neurons (on the integer form when θ has one)."""
    fast = rows.shared_lines(theta)
    if fast is not None:
        return fast
    return {r: members for r, members in _classes(theta).items() if len(members) > 1}


def _kernel_vector(vectors):
    """A nonzero rational c with Σ c_r v_r = 0, or None when the v_r are independent (exact)."""
    n = len(vectors)
    dim = len(vectors[0])
    # solve [v_1 ... v_n] c = 0 by reduced row echelon form on the dim × n matrix
    mat = [[vectors[r][l] for r in range(n)] for l in range(dim)]
    pivots = []
    row = 0
    for col in range(n):
        piv = next((r for r in range(row, dim) if mat[r][col]), None)
        if piv is None:
            continue
        mat[row], mat[piv] = mat[piv], mat[row]
        p = mat[row][col]
        mat[row] = [x / p for x in mat[row]]
        for r in range(dim):
            if r != row and mat[r][col]:
                f = mat[r][col]
                mat[r] = [x - f * y for x, y in zip(mat[r], mat[row])]
        pivots.append(col)
        row += 1
    free = next((c for c in range(n) if c not in pivots), None)
    if free is None:
        return None
    c = [Fraction(0)] * n
    c[free] = Fraction(1)
    for r, pc in enumerate(pivots):
        c[pc] = -mat[r][free]
    return c


# ----------------------------------------------------------------------------------------------
def decide(theta: Shallow | Network, *, timeout: float | None = 60.0, seed: int = 0,
           progress: bool = False, count_orbits: bool = True, paper_condition: bool = False) -> Decision:
    """Decide whether θ has hidden symmetries (fibre ≠ H_n-orbit).

    Parameters
    ----------
    theta : Shallow or Network
        A network with one hidden layer.
    timeout : float or None
        Seconds for the searches (flip sets, realisation patterns); running out gives ``unknown``.
    seed : int
        Seed for z3 and randomised steps (recorded in certificates).
    progress : bool
        Show progress bars for long searches.
    count_orbits : bool
        On the generic stratum, count the H_n-orbits in the fibre when cheap.
    paper_condition : bool
        Also evaluate the paper's sufficient condition (Proposition 24, V4),
        for the certificate's information claim.

    Returns
    -------
    Decision

    References
    ----------
    Ramakrishnan 2026, Lemmas 10, 11, Proposition 14, Theorems 3–5; docs/mathematics.md §2–§4.

    Examples
    --------
    >>> from reluid.model import Shallow
    >>> decide(Shallow.make([1, 1, 1], [[1, 1], [-1, 0], [0, -1]], [-2, -1, -1], [-6])).verdict.value
    'hidden-symmetry'
    >>> decide(Shallow.make([1, 1], [[1], [1]], [0, 1], [0])).verdict.value   # σ(x) + σ(x+1)
    'no-hidden-symmetries'
    """
    t0 = time.perf_counter()
    if isinstance(theta, Network):
        theta = theta.shallow()
    d = _decide(theta, timeout=timeout, seed=seed, progress=progress, count_orbits=count_orbits)
    condition = None
    if paper_condition and theta.n > 0 and _no_constant_neuron(theta):
        from reluid.analysis.shallow.zariski import evaluate_v4

        condition = evaluate_v4(theta)
    d = replace(d, paper_condition=condition, seconds=time.perf_counter() - t0)
    if d.witness is not None:
        _verify_witness(theta, d.witness)
    return d


def _no_constant_neuron(theta: Shallow) -> bool:
    """Every a_i ≠ 0."""
    const = rows.first_constant_neuron(theta)
    return all(any(a) for a in theta.A) if const is None else const < 0


def decide_affine(net: Network) -> Decision:
    """A network with no hidden layer computes x ↦ Wx + b, which determines W (its linear part) and b (its value at 0)."""
    if net.depth != 1:
        raise InvalidArgument(f"decide_affine needs a network with no hidden layer, got {net.architecture}")
    return Decision(Verdict.NO_HIDDEN, Stratum.AFFINE, None)


def _verify_witness(theta: Shallow, witness: Shallow) -> None:
    entries = [x for r in witness.M + witness.A for x in r] + list(witness.b + witness.c)
    if not all(type(x) is Fraction for x in entries):
        raise AssertionError("internal error: witness has a non-rational entry")
    eq = equivalent(theta, witness)
    if not eq.equal or eq.same_orbit:
        raise AssertionError("internal error: constructed witness failed exact re-verification")


def _hidden(theta, stratum, witness, mechanism, **details) -> Decision:
    return Decision(Verdict.HIDDEN, stratum, theta, witness=witness, mechanism=mechanism,
                    details=MappingProxyType(details))


def _decide(theta: Shallow, *, timeout, seed, progress, count_orbits) -> Decision:
    n, m, k = theta.n, theta.m, theta.k
    if n == 0:
        return Decision(Verdict.NO_HIDDEN, Stratum.EMPTY, theta)
    # 1. dead outputs (Lemma 10): change the row of a neuron whose output is zero
    dead = rows.first_dead_output(theta)
    for i in range(n) if dead is None else [dead] if dead >= 0 else []:
        if not any(theta.out(i)):
            row = theta.row(i)
            new = tuple(-x for x in row) if any(row) else (Fraction(1),) + (Fraction(0),) * m
            return _hidden(theta, Stratum.DEAD_OUTPUT, _replace_neuron(theta, i, row=new), Mechanism.DEAD_OUTPUT,
                           neuron=i, note="m_i = 0, so (a_i, b_i) is free")
    # 2. constant neurons (Lemma 11(2)): move the bias and compensate in c
    const = rows.first_constant_neuron(theta)
    for i in range(n) if const is None else [const] if const >= 0 else []:
        if not any(theta.A[i]):
            b = theta.b[i]
            mi = theta.out(i)
            if b > 0:
                nb, c = b + 1, tuple(cj - x for cj, x in zip(theta.c, mi))
            else:
                nb, c = b - 1, theta.c
            return _hidden(theta, Stratum.CONSTANT_NEURON,
                           _replace_neuron(theta, i, row=theta.A[i] + (nb,), c=c), Mechanism.CONSTANT_NEURON,
                           neuron=i, note="a_i = 0: m_i σ(b_i) is a constant absorbed by c")
    classes = _shared_lines(theta)
    # 3. positively proportional rows (Lemma 11(1)): move all output weight onto one of them
    for r, members in classes.items():
        pos = [(i, lam) for i, lam in members if lam > 0]
        neg = [(i, lam) for i, lam in members if lam < 0]
        for group in (pos, neg):
            if len(group) >= 2:
                (i, li), (j, lj) = group[0], group[1]
                ratio = lj / li          # (a_j, b_j) = ratio·(a_i, b_i), ratio > 0
                new_i = tuple(x + ratio * y for x, y in zip(theta.out(i), theta.out(j)))
                w = _replace_neuron(theta, i, out=new_i)
                w = _replace_neuron(w, j, out=(Fraction(0),) * k)
                return _hidden(theta, Stratum.PROPORTIONAL, w, Mechanism.MERGE_PROPORTIONAL, neurons=(i, j),
                               ratio=ratio, note="m_i σ(z) + m_j σ(λz) = (m_i + λ m_j) σ(z)")
    # 4. cancelling classes: the class computes an affine map; shift its hyperplane.  Every class
    #    now holds one neuron (K_r = |λ| m_i ≠ 0) or an opposite pair, whose kink may cancel.
    pairs = {r: members for r, members in classes.items() if len(members) == 2}
    for r, members in pairs.items():
        if not any(sum(abs(lam) * theta.M[j][i] for i, lam in members) for j in range(k)):
            w_neg = [Fraction(0)] * k
            for i, lam in members:
                if lam < 0:
                    for j in range(k):
                        w_neg[j] += abs(lam) * theta.out(i)[j]
            wit = theta
            for i, lam in members:
                row = theta.row(i)
                wit = _replace_neuron(wit, i, row=row[:-1] + (row[-1] + lam,))
            # class moved from b_r to b_r + 1; its affine part −w_neg (a_r x + b_r) changes by −w_neg
            wit = Shallow(wit.M, wit.A, wit.b, tuple(cj + x for cj, x in zip(theta.c, w_neg)), m)
            return _hidden(theta, Stratum.CANCELLING_PAIR, wit, Mechanism.SHIFT_CANCELLING_PAIR,
                           neurons=tuple(i for i, _ in members),
                           note="the class computes an affine map, so its hyperplane can move")
    if pairs:
        return _decide_pairs(theta, pairs, timeout=timeout)
    return _decide_generic(theta, timeout=timeout, seed=seed, progress=progress, count_orbits=count_orbits)


def _decide_generic(theta, *, timeout, seed, progress, count_orbits) -> Decision:
    from reluid.analysis.shallow.flipsets import enumerate_flip_sets, find_flip_set

    res = find_flip_set(theta, timeout=timeout, progress=progress)
    if res.outcome is Outcome.FOUND:
        F = sorted(res.flip_set)
        A, b = list(theta.A), list(theta.b)
        c = list(theta.c)
        for i in F:
            A[i] = tuple(-x for x in A[i])
            b[i] = -b[i]
            for j in range(theta.k):
                c[j] += theta.M[j][i] * theta.b[i]
        wit = Shallow(theta.M, tuple(A), tuple(b), tuple(c), theta.m)
        fibre = enumerate_flip_sets(theta, timeout=min(timeout or 2.0, 2.0)) if count_orbits else None
        details = {"flip_set": tuple(F),
                   "note": "Σ_{i∈F} m_i a_iᵀ = 0; flip the rows in F, c′ = c + Σ_{i∈F} m_i b_i"}
        return Decision(Verdict.HIDDEN, Stratum.GENERIC, theta, witness=wit, mechanism=Mechanism.FLIP_SET,
                        details=MappingProxyType(details), flip=res, fibre=fibre,
                        fibre_orbits=None if fibre is None else len(fibre.flip_sets) + 1)
    if res.outcome is Outcome.NONE:
        return Decision(Verdict.NO_HIDDEN, Stratum.GENERIC, theta, flip=res, fibre_orbits=1)
    return Decision(Verdict.UNKNOWN, Stratum.GENERIC, theta, flip=res,
                    reasons=(Reason(ReasonCode.FLIP_SET_SEARCH_UNKNOWN, {"detail": res.reason}),))


def _decide_pairs(theta, pairs, *, timeout) -> Decision:
    m, k = theta.m, theta.k
    pair_rows = sorted(pairs)
    dirs = [tuple(Fraction(x) for x in r[:m]) for r in pair_rows]
    coef = _kernel_vector(dirs)       # Σ c_r a_r = 0: shift every pair's w₋ by c_r·e_1
    if coef is not None:
        wit = theta
        c = list(theta.c)
        for r, cr in zip(pair_rows, coef):
            if not cr:
                continue
            (i, li), (j, lj) = sorted(pairs[r], key=lambda t: t[1] > 0)  # i negative orientation
            # w₊σ(z) + w₋σ(−z): changing w₋ by δ and w₊ by −δ changes the function by −δ(a_r x + b_r)
            delta = [Fraction(0)] * k
            delta[0] = cr
            oi, oj = theta.out(i), theta.out(j)
            wit = _replace_neuron(wit, i, out=tuple(x + dl / abs(li) for x, dl in zip(oi, delta)))
            wit = _replace_neuron(wit, j, out=tuple(x - dl / abs(lj) for x, dl in zip(oj, delta)))
            c[0] += cr * r[m]
        wit = Shallow(wit.M, wit.A, wit.b, tuple(c), m)
        return _hidden(theta, Stratum.DEPENDENT_PAIRS, wit, Mechanism.DEPENDENT_PAIRS,
                       classes=len(pair_rows), note="Σ c_r a_r = 0 over the pair directions: the "
                                                    "linear terms −w₋ a_rᵀ of the pairs can trade off")
    res = decide_essential(theta, timeout=timeout)
    if res.outcome is Outcome.NONE:
        return Decision(Verdict.NO_HIDDEN, Stratum.OPPOSITE_PAIRS, theta, pattern=res)
    if res.outcome is Outcome.FOUND:
        case = res.details["case"]
        details = {"pattern": res.description, "case": f"P = {classes_text(case['P'])}, q = {case['q']} (Theorem 4)",
                   "extra_pairs": res.details["extra_pairs"], "dead": res.details["dead"]}
        return Decision(Verdict.HIDDEN, Stratum.OPPOSITE_PAIRS, theta, witness=res.witness, mechanism=Mechanism.PATTERN,
                        details=MappingProxyType(details), pattern=res)
    return Decision(Verdict.UNKNOWN, Stratum.OPPOSITE_PAIRS, theta, pattern=res,
                    reasons=(Reason(ReasonCode.PATTERNS_UNKNOWN, {"search": res.reason}),))
