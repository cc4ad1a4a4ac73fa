"""The Zariski-open conditions of Lemma 23, Proposition 24 and Theorem 5.

Ramakrishnan (2026) shows that the fibre of the realisation map is a single
H_n-orbit on a Zariski-open set U = U∼ ∩ U4 of Ω(m, n, 1), and lifts this to
k outputs through the projections π_j (Proposition 20).  U is the complement
of four families of algebraic sets; this module writes them out as explicit
polynomials in sympy symbols named as in the paper, and evaluates them exactly
at a concrete parameter θ = (M, A, b, c).

The four families, for one output (v = M is a row vector):

V1 (Lemma 23)
    v_i ≠ 0, one condition per neuron.
V2 (Lemma 23 with Lemma 22 and Definition 8)
    (a_i, b_i) and (a_j, b_j) are linearly independent for i < j: not every
    2 × 2 minor of the 2 × (m+1) matrix with these rows vanishes.
V3 (Lemma 23)
    a_i ≠ 0: not all of a_i_1, ..., a_i_m vanish.
V4(β) (Proposition 24, the set U4 of Theorem 5)
    Σ_i β(i) v_i a_i ≠ 0 ∈ Qᵐ for β ∈ {0, ±1}ⁿ ∖ {0}.  β and −β give the same
    condition, so there are (3ⁿ − 1)/2 of them; they are never materialised
    all at once.

For k outputs the paper asks every projection π_j(θ) = (M_j, A, b, c_j) to lie
in U (Proposition 20).  V1 and V4 then hold per output (symbols ``M_j_i``);
V2 and V3 involve only (A, b) and are listed once.

Every condition has the meaning ``'nonzero-any'``: it holds at θ iff *some*
polynomial in it is nonzero at θ.  θ ∈ U iff all conditions hold.

Conventions
-----------
Symbol names and rendered text are 1-based, as in the paper (``v_1``,
``a_2_1``, ``M_2_1`` = output 2, neuron 1).  Indices stored in Python objects
(:attr:`Condition.index`, :attr:`Condition.output`, the positions in β) are
0-based, as in :class:`~reluid.model.network.Shallow`.

Notes
-----
These conditions are *sufficient* for the fibre of θ to be one H_n-orbit,
not necessary.  On the stratum where V1–V3 hold the exact criterion is the
absence of a flip set F ≠ ∅ with Σ_{i∈F} m_i a_iᵀ = 0 (see
``docs/mathematics.md`` §2).  A flip set F is exactly a vanishing V4(β) with
β the indicator of F (β ∈ {0, 1}ⁿ); V4 also forbids cancellations with mixed
signs, such as β = (1, −1) for θ = σ(x) + σ(x + 1), which has no hidden
symmetry.  For k > 1 the exact criterion is joint (Σ_{i∈F} m_i a_iᵀ = 0 as a
k × m matrix), so asking every projection π_j(θ) to be in U, as
Proposition 20 does, is stronger still.  Definition 9 as printed omits the weights v_i; read literally
(``literal_definition_9=True``) Theorem 5 fails: v = (2, −1), a = (1, 2),
b = (0, 1) satisfies every literal condition, yet flipping both neurons keeps
the function.  Proposition 24, which keeps v_i, is the intended reading and is
the default here.

References
----------
P. Ramakrishnan, "A complete symmetry classification of shallow ReLU
networks", 2026: Lemma 22, Definition 8, Lemma 23, Proposition 24,
Definition 9, Theorem 5, Proposition 20.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable, Iterator

from reluid.errors import InvalidArgument
from reluid.model.network import Network, Shallow
from reluid.model.rational import primitive_ray
from reluid.verdicts import Outcome

if TYPE_CHECKING:
    import sympy


def _sympy():
    """sympy, imported on first use: evaluating the conditions at a network never needs it (0.4-0.5 s saved)."""
    import sympy

    return sympy

__all__ = [
    "FAMILIES",
    "V4_MAX_N",
    "Family",
    "Condition",
    "ConditionSet",
    "Witness",
    "Vanishing",
    "FamilyResult",
    "Evaluation",
    "conditions",
    "evaluate",
    "evaluate_v4",
    "parameter_symbols",
    "substitution",
    "iter_signs",
]

FAMILIES = ("V1", "V2", "V3", "V4")
"""The family names, in the order they are listed and evaluated."""

V4_MAX_N = 16
"""Widths up to which :func:`evaluate` checks every V4(β) (meet in the middle)."""

NONZERO_ANY = "nonzero-any"

_REF = "Ramakrishnan 2026"
_REFERENCES = {
    "V1": f"{_REF}, Lemma 23, V1",
    "V2": f"{_REF}, Lemma 23, V2 (Lemma 22, Definition 8)",
    "V3": f"{_REF}, Lemma 23, V3",
    "V4": f"{_REF}, Proposition 24; Theorem 5 (U4)",
}
_REF_V4_LITERAL = f"{_REF}, Definition 9 read literally (without v_i; known to be wrong)"
_REF_PROJECTION = "; Proposition 20 (projection π_j)"

# A witness scan stops after this many β; it only fills a sample.
_WITNESS_SCAN = 10_000


# ---------------------------------------------------------------------------
# symbols
# ---------------------------------------------------------------------------

def _out_name(j: int, i: int, k: int) -> str:
    return f"v_{i + 1}" if k == 1 else f"M_{j + 1}_{i + 1}"


def _a_name(i: int, l: int) -> str:
    return f"a_{i + 1}_{l + 1}"


def _out_symbol(j: int, i: int, k: int) -> sympy.Symbol:
    return _sympy().Symbol(_out_name(j, i, k))


def _a_symbol(i: int, l: int) -> sympy.Symbol:
    return _sympy().Symbol(_a_name(i, l))


def _b_symbol(i: int) -> sympy.Symbol:
    return _sympy().Symbol(f"b_{i + 1}")


def _row_symbols(i: int, m: int) -> tuple[sympy.Symbol, ...]:
    return tuple(_a_symbol(i, l) for l in range(m)) + (_b_symbol(i),)


def parameter_symbols(m: int, n: int, k: int = 1):
    """The sympy symbols of (M, A, b), named as in the paper.

    Parameters
    ----------
    m, n, k : int
        Input dimension, hidden width and output dimension.

    Returns
    -------
    (M, A, b) : tuple
        ``M`` is a k-tuple of n-tuples (``v_i`` when k = 1, else ``M_j_i``),
        ``A`` an n-tuple of m-tuples (``a_i_j``), ``b`` an n-tuple (``b_i``).
        The symbols carry no assumptions, so ``sympy.Symbol("v_1")`` elsewhere
        is the same symbol.

    Examples
    --------
    >>> M, A, b = parameter_symbols(2, 2)
    >>> M, A, b
    (((v_1, v_2),), ((a_1_1, a_1_2), (a_2_1, a_2_2)), (b_1, b_2))
    """
    _check_dims(m, n, k)
    return (tuple(tuple(_out_symbol(j, i, k) for i in range(n)) for j in range(k)),
            tuple(tuple(_a_symbol(i, l) for l in range(m)) for i in range(n)),
            tuple(_b_symbol(i) for i in range(n)))


def substitution(theta) -> dict:
    """The map symbol → exact sympy Rational for the entries of θ's (M, A, b).

    Examples
    --------
    >>> theta = Shallow.make([1, 2], [[3], [4]], [5, 6], [0])
    >>> sorted((str(s), v) for s, v in substitution(theta).items())[:3]
    [('a_1_1', 3), ('a_2_1', 4), ('b_1', 5)]
    """
    theta = _check_theta(theta)
    M, A, b = parameter_symbols(theta.m, theta.n, theta.k)
    q = lambda x: _sympy().Rational(x.numerator, x.denominator)  # noqa: E731
    out = {}
    for j in range(theta.k):
        out.update((M[j][i], q(theta.M[j][i])) for i in range(theta.n))
    for i in range(theta.n):
        out.update((A[i][l], q(theta.A[i][l])) for l in range(theta.m))
        out[b[i]] = q(theta.b[i])
    return out


# ---------------------------------------------------------------------------
# β ∈ {0, ±1}ⁿ ∖ 0 up to sign
# ---------------------------------------------------------------------------

def iter_signs(n: int) -> Iterator[tuple[int, ...]]:
    """Every β ∈ {0, ±1}ⁿ ∖ {0} up to sign, lazily.

    The representative of {β, −β} is the one whose first nonzero entry is +1.
    The order is by support size, then support (lexicographic), then the
    signs after the first (``+`` before ``−``), so small cancellations come
    first.  There are (3ⁿ − 1)/2 of them.

    Examples
    --------
    >>> list(iter_signs(2))
    [(1, 0), (0, 1), (1, 1), (1, -1)]
    """
    for s in range(1, n + 1):
        for support in itertools.combinations(range(n), s):
            for rest in itertools.product((1, -1), repeat=s - 1):
                beta = [0] * n
                beta[support[0]] = 1
                for i, sign in zip(support[1:], rest):
                    beta[i] = sign
                yield tuple(beta)


def _beta_order(beta: tuple[int, ...]):
    support = tuple(i for i, x in enumerate(beta) if x)
    return (len(support), support, tuple(0 if beta[i] > 0 else 1 for i in support))


def _v4_count(n: int) -> int:
    return (3 ** n - 1) // 2


def _count_text(n: int, count: int) -> str:
    """The number (3ⁿ − 1)/2 as text; in that form when it has too many digits to print."""
    return str(count) if n <= 60 else f"(3^{n} − 1)/2"


# ---------------------------------------------------------------------------
# conditions
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Condition:
    """One polynomial condition: θ satisfies it iff some polynomial is nonzero.

    Attributes
    ----------
    family : str
        ``"V1"``, ``"V2"``, ``"V3"`` or ``"V4"``.
    index : tuple of int
        0-based: ``(i,)`` for V1 and V3, ``(i, j)`` with i < j for V2, and β
        (entries in {0, ±1}, first nonzero +1) for V4.
    polynomials : tuple of sympy.Expr
        V1: ``(v_i,)``; V2: the minors ``u_p w_q − u_q w_p`` (p < q) of
        u = (a_i, b_i), w = (a_j, b_j), in ``itertools.combinations`` order;
        V3: ``(a_i_1, ..., a_i_m)``; V4: the m coordinates of Σ β(i) v_i a_i.
    meaning : str
        Always ``'nonzero-any'``: not all polynomials vanish.
    reference : str
        Where the condition comes from in the paper.
    output : int or None
        The 0-based output j of the projection π_j (V1 and V4 when k > 1),
        else None.
    """

    family: str
    index: tuple[int, ...]
    polynomials: tuple
    meaning: str
    reference: str
    output: int | None = None

    def __str__(self) -> str:
        body = ", ".join(str(p) for p in self.polynomials)
        return f"{body} ≠ 0" if len(self.polynomials) == 1 else f"({body}) ≠ 0"


@dataclass(frozen=True, slots=True)
class Family:
    """A family of conditions, described without materialising it.

    Attributes
    ----------
    name : str
        ``"V1"`` ... ``"V4"``.
    reference : str
        The paper's statement it comes from.
    statement : str
        The condition in words, 1-based as in the paper.
    count : int
        How many conditions the family has (computed combinatorially).
    per_output : bool
        Whether the family is repeated for each output projection π_j.
    statement_latex : str
        ``statement`` as a LaTeX text fragment.
    """

    name: str
    reference: str
    statement: str
    count: int
    per_output: bool
    statement_latex: str = ""


@dataclass(frozen=True, slots=True)
class ConditionSet:
    """The conditions cutting out U = U∼ ∩ U4 in Ω(m, n, k).

    Built by :func:`conditions`.  The families are held as :class:`Family`
    descriptors with exact counts; the conditions themselves are produced
    lazily by :meth:`iter_conditions`, since V4 has (3ⁿ − 1)/2 members (times k).
    """

    m: int
    n: int
    k: int
    literal_definition_9: bool
    families: tuple[Family, ...]

    def family(self, name: str) -> Family:
        """The :class:`Family` called ``name`` (``"V1"`` ... ``"V4"``)."""
        for f in self.families:
            if f.name == name:
                return f
        raise InvalidArgument(f"unknown family {name!r}; expected one of {FAMILIES}")

    def count(self, family: str | None = None) -> int:
        """Number of conditions in ``family``, or in all families when None.

        Examples
        --------
        >>> cs = conditions(1, 40)
        >>> cs.count("V4") == (3**40 - 1) // 2
        True
        """
        if family is None:
            return sum(f.count for f in self.families)
        return self.family(family).count

    def iter_conditions(self, family: str, limit: int | None = None) -> Iterator[Condition]:
        """Yield the conditions of ``family`` lazily, at most ``limit`` of them.

        Per-output families run output by output (π_1 first).  V4 follows
        :func:`iter_signs` within each output.

        Examples
        --------
        >>> cs = conditions(1, 2)
        >>> [str(c) for c in cs.iter_conditions("V4")]
        ['a_1_1*v_1 ≠ 0', 'a_2_1*v_2 ≠ 0', 'a_1_1*v_1 + a_2_1*v_2 ≠ 0', 'a_1_1*v_1 - a_2_1*v_2 ≠ 0']
        """
        fam = self.family(family)
        _check_limit(limit)
        gen = self._generate(fam)
        return gen if limit is None else itertools.islice(gen, limit)

    def values_at(self, condition: Condition, theta) -> tuple[Fraction, ...]:
        """The exact values of ``condition.polynomials`` at θ, computed directly.

        Agrees with substituting :func:`substitution` into the sympy
        polynomials, without going through sympy.
        """
        theta = _check_theta(theta)
        if (theta.m, theta.n, theta.k) != (self.m, self.n, self.k):
            raise InvalidArgument(
                f"θ lies in Ω{(theta.m, theta.n, theta.k)}, the conditions are for Ω{(self.m, self.n, self.k)}")
        i = condition.index
        if condition.family == "V1":
            return (theta.M[condition.output or 0][i[0]],)
        if condition.family == "V2":
            return _minors(theta.row(i[0]), theta.row(i[1]))
        if condition.family == "V3":
            return theta.A[i[0]]
        if condition.family == "V4":
            w = _v4_vectors(theta, condition.output or 0, self.literal_definition_9)
            return _beta_sum(i, w, theta.m)
        raise InvalidArgument(f"unknown family {condition.family!r}")

    # -- generation ------------------------------------------------------
    def _generate(self, fam: Family) -> Iterator[Condition]:
        m, n, k = self.m, self.n, self.k
        outputs = [j if k > 1 else None for j in range(k)]
        if fam.name == "V1":
            for j in outputs:
                for i in range(n):
                    yield Condition("V1", (i,), (_out_symbol(j or 0, i, k),), NONZERO_ANY, fam.reference, j)
        elif fam.name == "V2":
            for i, j in itertools.combinations(range(n), 2):
                u, w = _row_symbols(i, m), _row_symbols(j, m)
                polys = tuple(u[p] * w[q] - u[q] * w[p] for p, q in itertools.combinations(range(m + 1), 2))
                yield Condition("V2", (i, j), polys, NONZERO_ANY, fam.reference)
        elif fam.name == "V3":
            for i in range(n):
                yield Condition("V3", (i,), tuple(_a_symbol(i, l) for l in range(m)), NONZERO_ANY, fam.reference)
        else:
            for j in ([None] if self.literal_definition_9 else outputs):
                for beta in iter_signs(n):
                    polys = []
                    for l in range(m):
                        terms = []
                        for i, s in enumerate(beta):
                            if s:
                                t = _a_symbol(i, l)
                                if not self.literal_definition_9:
                                    t = _out_symbol(j or 0, i, k) * t
                                terms.append(t if s > 0 else -t)
                        polys.append(_sympy().Add(*terms))
                    yield Condition("V4", beta, tuple(polys), NONZERO_ANY, fam.reference, j)


def conditions(m: int, n: int, k: int = 1, *, literal_definition_9: bool = False) -> ConditionSet:
    """The conditions V1–V4 whose common non-vanishing defines U ⊂ Ω(m, n, k).

    Parameters
    ----------
    m, n, k : int
        Input dimension (≥ 1), hidden width (≥ 0) and output dimension (≥ 1).
    literal_definition_9 : bool, keyword-only
        Use V^a(β) = V(Σ β(i) a_i) exactly as Definition 9 is printed, without
        the weights v_i.  This reading is wrong (see the module Notes); it is
        offered to exhibit the counterexample.  The literal V4 does not
        involve M, so it is listed once rather than per output.

    Returns
    -------
    ConditionSet
        Family descriptors with exact counts: V1 n·k, V2 C(n, 2), V3 n,
        V4 (3ⁿ − 1)/2 · k (weighted) or (3ⁿ − 1)/2 (literal).

    Raises
    ------
    InvalidArgument
        If a dimension is not an integer in range.

    Notes
    -----
    θ ∈ U∼ iff V1–V3 hold (Lemma 23); θ ∈ U4 iff every V4(β) holds
    (Proposition 24, Theorem 5).  For k > 1, θ is in the open set of
    Proposition 20 iff every projection π_j(θ) is in U.

    References
    ----------
    Ramakrishnan 2026, Lemma 23, Proposition 24, Definition 9, Theorem 5,
    Proposition 20.

    Examples
    --------
    >>> cs = conditions(1, 2)
    >>> [(f.name, f.count) for f in cs.families]
    [('V1', 2), ('V2', 1), ('V3', 2), ('V4', 4)]
    >>> next(cs.iter_conditions("V2")).polynomials
    (a_1_1*b_2 - a_2_1*b_1,)
    """
    _check_dims(m, n, k)
    if not isinstance(literal_definition_9, bool):
        raise InvalidArgument("literal_definition_9 must be a bool")
    per = k > 1
    proj = _REF_PROJECTION if per else ""
    v, v_tex = ("M_j_i", "M_{j,i}") if per else ("v_i", "v_i")
    each, each_tex = (", for each output j", ", for each output $j$") if per else ("", "")
    signs, signs_tex = "β ∈ {0,±1}ⁿ∖{0} up to sign", r"$\beta \in \{0,\pm 1\}^n \setminus \{0\}$ up to sign"
    if literal_definition_9:
        v4 = Family("V4", _REF_V4_LITERAL, f"Σ_i β(i) a_i ≠ 0 for every {signs}", _v4_count(n), False,
                    rf"$\sum_i \beta(i)\, a_i \neq 0$ for every {signs_tex}")
    else:
        v4 = Family("V4", _REFERENCES["V4"] + proj, f"Σ_i β(i) {v} a_i ≠ 0 for every {signs}{each}",
                    _v4_count(n) * k, per,
                    rf"$\sum_i \beta(i)\, {v_tex}\, a_i \neq 0$ for every {signs_tex}{each_tex}")
    fams = (
        Family("V1", _REFERENCES["V1"] + proj, f"{v} ≠ 0{each}", n * k, per, f"${v_tex} \\neq 0${each_tex}"),
        Family("V2", _REFERENCES["V2"],
               "(a_i, b_i), (a_j, b_j) linearly independent (i < j): not all 2×2 minors vanish",
               math.comb(n, 2), False,
               r"$(a_i, b_i)$, $(a_j, b_j)$ linearly independent ($i < j$): "
               r"not all $2 \times 2$ minors vanish"),
        Family("V3", _REFERENCES["V3"], "a_i ≠ 0", n, False, r"$a_i \neq 0$"),
        v4,
    )
    return ConditionSet(m, n, k, literal_definition_9, fams)


# ---------------------------------------------------------------------------
# evaluation
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Witness:
    """A condition that holds, and the nonzero polynomial that shows it.

    ``position`` indexes ``Condition.polynomials``; ``value`` is its exact
    value at θ; ``where`` names it (1-based, e.g. ``"a_2_1"`` or
    ``"a_1_1*b_2 - a_2_1*b_1"``).
    """

    family: str
    index: tuple[int, ...]
    output: int | None
    position: int
    value: Fraction
    where: str


@dataclass(frozen=True, slots=True)
class Vanishing:
    """A condition that fails at θ: every polynomial in it is zero."""

    family: str
    index: tuple[int, ...]
    output: int | None = None


@dataclass(frozen=True, slots=True)
class FamilyResult:
    """The verdict of one family at θ.

    Attributes
    ----------
    outcome : Outcome
        Of the search for a vanishing condition: FOUND if some condition
        vanishes (the family fails at θ), NONE if all ``total`` were checked
        and none vanishes (the family holds), UNKNOWN if not every condition
        was checked.
    violations : tuple of Vanishing
        The vanishing conditions found (at most ``max_violations``), in the
        family's order.
    violation_count : int
        How many vanishing conditions were found in all (may exceed
        ``len(violations)``).
    witnesses_sample : tuple of Witness
        Nonvanishing witnesses for the first few conditions that hold.
    checked, total : int
        How many conditions were decided, out of how many.
    note : str
        Why the family was not fully checked, when it was not.
    """

    family: str
    reference: str
    outcome: Outcome
    violations: tuple[Vanishing, ...]
    witnesses_sample: tuple[Witness, ...]
    checked: int
    total: int
    violation_count: int = 0
    note: str = ""


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The conditions of :func:`conditions` evaluated at one θ.

    ``outcome`` is that of the search for a vanishing condition over all
    families: NONE iff θ ∈ U (every family checked and holding), FOUND if
    some condition vanishes, and UNKNOWN if some family was not fully checked
    and none failed.
    """

    outcome: Outcome
    families: tuple[FamilyResult, ...]
    m: int | None = None
    n: int | None = None
    k: int | None = None
    literal_definition_9: bool = False

    def family(self, name: str) -> FamilyResult:
        """The :class:`FamilyResult` called ``name``."""
        for f in self.families:
            if f.family == name:
                return f
        raise InvalidArgument(f"unknown family {name!r}; expected one of {FAMILIES}")


def evaluate(theta, *, limit: int | None = None, literal_definition_9: bool = False,
             sample: int = 8, max_violations: int = 256, v4_max_n: int = V4_MAX_N) -> Evaluation:
    """Evaluate every condition of Lemma 23 and Proposition 24 at θ, exactly.

    Parameters
    ----------
    theta : Shallow or Network
        The parameter; a :class:`~reluid.model.network.Network` must be shallow.
    limit : int, optional, keyword-only
        For V4 when it is not checked in full: check the first ``limit``
        β (per output, in :func:`iter_signs` order).  Without it, V4 is
        checked in full when n ≤ ``v4_max_n`` and reported as not enumerated
        (outcome UNKNOWN) otherwise.
    literal_definition_9 : bool, keyword-only
        Evaluate V4 as Definition 9 is printed (Σ β(i) a_i, without v_i).
    sample : int, keyword-only
        Number of witnesses kept per family.
    max_violations : int, keyword-only
        Number of vanishing conditions kept per family (all are counted).
    v4_max_n : int, keyword-only
        Largest n for which V4 is checked in full by default.

    Returns
    -------
    Evaluation
        Per family: witnesses (a nonzero coordinate or minor with its exact
        value) and the vanishing conditions.

    Raises
    ------
    InvalidArgument
        If θ is not a shallow parameter or an option is out of range.
    NotShallow
        If θ is a network with more than one hidden layer.

    Notes
    -----
    V1–V3 are checked in full in O(n·m·k) arithmetic plus the output: V2
    groups the rows (a_i, b_i) by their normalisation (first nonzero entry 1),
    so dependent pairs are found without forming all C(n, 2) · C(m+1, 2)
    minors.  V4 is checked in full by meet in the middle: the 3^⌊n/2⌋ signed
    sums of the first half of the vectors w_i = v_i a_i (scaled to integers)
    are hashed, and each signed sum of the second half looks up its negative;
    this counts all vanishing β exactly in O(3^⌈n/2⌉) hash operations.  For
    k > 1 V1 and V4 are checked for each projection π_j (Proposition 20).
    An exact certificate of V4 for large n is not built here.

    References
    ----------
    Ramakrishnan 2026, Lemma 23, Proposition 24, Theorem 5, Proposition 20.

    Examples
    --------
    σ(x) + σ(x + 1) has no hidden symmetry, but it is not in U: β = (1, −1)
    cancels.

    >>> theta = Shallow.make([1, 1], [[1], [1]], [0, 1], [0])
    >>> ev = evaluate(theta)
    >>> ev.outcome.value, ev.family("V4").violations
    ('found', (Vanishing(family='V4', index=(1, -1), output=None),))
    """
    theta = _check_theta(theta)
    _check_limit(limit)
    for name, val in (("sample", sample), ("max_violations", max_violations), ("v4_max_n", v4_max_n)):
        if not _is_int(val) or val < 0:
            raise InvalidArgument(f"{name} must be a non-negative integer, got {val!r}")
    if not isinstance(literal_definition_9, bool):
        raise InvalidArgument("literal_definition_9 must be a bool")
    cs = conditions(theta.m, theta.n, theta.k, literal_definition_9=literal_definition_9)
    results = (
        _eval_v1(theta, cs.family("V1"), sample, max_violations),
        _eval_v2(theta, cs.family("V2"), sample, max_violations),
        _eval_v3(theta, cs.family("V3"), sample, max_violations),
        _eval_v4(theta, cs.family("V4"), literal_definition_9, limit, sample, max_violations, v4_max_n),
    )
    if any(r.outcome is Outcome.FOUND for r in results):
        outcome = Outcome.FOUND
    elif all(r.outcome is Outcome.NONE for r in results):
        outcome = Outcome.NONE
    else:
        outcome = Outcome.UNKNOWN
    return Evaluation(outcome, results, theta.m, theta.n, theta.k, literal_definition_9)


def evaluate_v4(theta, *, max_violations: int = 256, v4_max_n: int = V4_MAX_N) -> FamilyResult:
    """Only the family V4 (the paper's sufficient condition, Proposition 24) at θ.

    The same as ``evaluate(theta).family("V4")`` without the cost of V1–V3;
    for n > ``v4_max_n`` the family is not enumerated (outcome UNKNOWN, with a
    note).

    >>> evaluate_v4(Shallow.make([1, 1], [[1], [1]], [0, 1], [0])).outcome.value   # σ(x) + σ(x + 1)
    'found'
    """
    theta = _check_theta(theta)
    fam = conditions(theta.m, theta.n, theta.k).family("V4")
    return _eval_v4(theta, fam, False, None, 8, max_violations, v4_max_n)


class _Builder:
    """Accumulates one family's result, then freezes it."""

    def __init__(self, fam: Family, sample: int, max_violations: int):
        self.fam, self.sample, self.max_violations = fam, sample, max_violations
        self.violations: list[Vanishing] = []
        self.witnesses: list[Witness] = []
        self.count = 0
        self.checked = 0

    def vanish(self, v: Vanishing, times: int = 1):
        self.count += times
        if len(self.violations) < self.max_violations:
            self.violations.append(v)

    def witness(self, w: Witness):
        if len(self.witnesses) < self.sample:
            self.witnesses.append(w)

    @property
    def wants_witness(self) -> bool:
        return len(self.witnesses) < self.sample

    def freeze(self, note: str = "") -> FamilyResult:
        total = self.fam.count
        outcome = (Outcome.FOUND if self.count else
                   Outcome.NONE if self.checked >= total else Outcome.UNKNOWN)
        return FamilyResult(self.fam.name, self.fam.reference, outcome, tuple(self.violations),
                            tuple(self.witnesses), self.checked, total, self.count, note)


def _eval_v1(theta: Shallow, fam: Family, sample: int, max_violations: int) -> FamilyResult:
    out = _Builder(fam, sample, max_violations)
    for j in range(theta.k):
        o = j if theta.k > 1 else None
        for i in range(theta.n):
            x = theta.M[j][i]
            if x:
                out.witness(Witness("V1", (i,), o, 0, x, str(_out_symbol(j, i, theta.k))))
            else:
                out.vanish(Vanishing("V1", (i,), o))
    out.checked = fam.count
    return out.freeze()


def _ray_key(row: tuple[Fraction, ...]):
    """The line through ``row`` as a hashable key (primitive integer vector up to sign), or None."""
    ray = primitive_ray(row)
    if ray is None:
        return None
    p = ray[0]
    return p if next(x for x in p if x) > 0 else tuple(-x for x in p)


def _eval_v2(theta: Shallow, fam: Family, sample: int, max_violations: int) -> FamilyResult:
    n, m = theta.n, theta.m
    out = _Builder(fam, sample, max_violations)
    keys = [_ray_key(theta.row(i)) for i in range(n)]
    zero = [i for i in range(n) if keys[i] is None]
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(keys):
        if key is not None:
            groups.setdefault(key, []).append(i)
    z = len(zero)
    count = math.comb(z, 2) + z * (n - z) + sum(math.comb(len(g), 2) for g in groups.values())
    # list the dependent pairs in lexicographic order, up to the cap
    for i in range(n):
        if len(out.violations) >= max_violations:
            break
        if keys[i] is None:
            partners: Iterable[int] = range(i + 1, n)
        else:
            partners = sorted(set(j for j in zero if j > i) | set(j for j in groups[keys[i]] if j > i))
        for j in partners:
            if len(out.violations) >= max_violations:
                break
            out.violations.append(Vanishing("V2", (i, j)))
    out.count = count
    # witnesses: the first independent pairs, with their first nonzero minor
    cols = list(itertools.combinations(range(m + 1), 2))
    for i, j in itertools.combinations(range(n), 2):
        if not out.wants_witness:
            break
        if keys[i] is None or keys[j] is None or keys[i] == keys[j]:
            continue
        u_, w_ = theta.row(i), theta.row(j)
        pos = next(t for t, (p, q) in enumerate(cols) if u_[p] * w_[q] != u_[q] * w_[p])
        u, w = _row_symbols(i, m), _row_symbols(j, m)
        p, q = cols[pos]
        out.witness(Witness("V2", (i, j), None, pos, u_[p] * w_[q] - u_[q] * w_[p], f"{u[p]}*{w[q]} - {u[q]}*{w[p]}"))
    out.checked = fam.count
    return out.freeze()


def _eval_v3(theta: Shallow, fam: Family, sample: int, max_violations: int) -> FamilyResult:
    out = _Builder(fam, sample, max_violations)
    for i, a in enumerate(theta.A):
        pos = next((l for l, x in enumerate(a) if x), None)
        if pos is None:
            out.vanish(Vanishing("V3", (i,)))
        else:
            out.witness(Witness("V3", (i,), None, pos, a[pos], str(_a_symbol(i, pos))))
    out.checked = fam.count
    return out.freeze()


def _eval_v4(theta: Shallow, fam: Family, literal: bool, limit: int | None, sample: int,
             max_violations: int, v4_max_n: int) -> FamilyResult:
    n, m = theta.n, theta.m
    out = _Builder(fam, sample, max_violations)
    per_output = _v4_count(n)
    full = n <= v4_max_n and (limit is None or limit >= per_output)
    if not full and limit is None:
        return out.freeze(
            f"not enumerated: n = {n} > {v4_max_n} gives {_count_text(n, per_output)} conditions per output; "
            "pass limit= to check the first ones")
    outputs = [None] if literal else [j if theta.k > 1 else None for j in range(theta.k)]
    for o in outputs:
        w = _v4_vectors(theta, o or 0, literal)
        if full:
            _v4_full(w, n, m, o, out)
            out.checked += per_output
            # the witnesses only fill a sample: scan the first β, skipping vanishing ones
            for beta in itertools.islice(iter_signs(n), _WITNESS_SCAN):
                if not out.wants_witness:
                    break
                _v4_record(beta, _beta_sum(beta, w, m), o, out, literal, theta.k, witness_only=True)
        else:
            for beta in itertools.islice(iter_signs(n), limit):
                _v4_record(beta, _beta_sum(beta, w, m), o, out, literal, theta.k)
                out.checked += 1
    note = "" if full else f"checked the first {limit} of {_count_text(n, per_output)} β per output"
    return out.freeze(note)


def _v4_record(beta, s, o, out: _Builder, literal: bool, k: int, witness_only: bool = False):
    pos = next((l for l, x in enumerate(s) if x), None)
    if pos is None:
        if not witness_only:
            out.vanish(Vanishing("V4", beta, o))
    elif out.wants_witness:
        out.witness(Witness("V4", beta, o, pos, s[pos], _v4_where(beta, pos, o, literal, k)))


def _v4_where(beta, pos: int, o, literal: bool, k: int) -> str:
    terms = []
    for i, s in enumerate(beta):
        if s:
            t = _a_name(i, pos) if literal else f"{_out_name(o or 0, i, k)}*{_a_name(i, pos)}"
            terms.append(("+ " if s > 0 else "- ") + t)
    text = " ".join(terms)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def _v4_full(w, n: int, m: int, o, out: _Builder) -> None:
    """Find every β with Σ β(i) w_i = 0 by meet in the middle."""
    den = 1
    for vec in w:
        for x in vec:
            den = math.lcm(den, x.denominator)
    W = [tuple(int(x * den) for x in vec) for vec in w]
    h = n // 2

    def half(indices):
        sums = [((), (0,) * m)]
        for i in indices:
            wi = W[i]
            nxt = []
            for beta, s in sums:
                nxt.append((beta + (0,), s))
                nxt.append((beta + (1,), tuple(a + b for a, b in zip(s, wi))))
                nxt.append((beta + (-1,), tuple(a - b for a, b in zip(s, wi))))
            sums = nxt
        return sums

    left: dict[tuple, list[tuple]] = {}
    for beta, s in half(range(h)):
        left.setdefault(s, []).append(beta)
    total = 0
    found: list[tuple] = []
    for beta_r, s in half(range(h, n)):
        matches = left.get(tuple(-x for x in s))
        if not matches:
            continue
        total += len(matches)
        if len(found) >= out.max_violations:
            continue
        r_lead = next((x for x in beta_r if x), 0)
        for beta_l in matches:
            lead = next((x for x in beta_l if x), r_lead)
            if lead == 1:  # the representative of {β, −β}; β = 0 has lead 0
                found.append(beta_l + beta_r)
                if len(found) >= out.max_violations:
                    break
    found.sort(key=_beta_order)
    for beta in found:
        out.vanish(Vanishing("V4", beta, o))
    out.count += (total - 1) // 2 - len(found)  # β = 0 is the one unpaired zero sum


# ---------------------------------------------------------------------------
# exact arithmetic shared by values_at and evaluate
# ---------------------------------------------------------------------------

def _minors(u, w) -> tuple[Fraction, ...]:
    return tuple(u[p] * w[q] - u[q] * w[p] for p, q in itertools.combinations(range(len(u)), 2))


def _v4_vectors(theta: Shallow, j: int, literal: bool):
    if literal:
        return theta.A
    return tuple(tuple(theta.M[j][i] * x for x in theta.A[i]) for i in range(theta.n))


def _beta_sum(beta, w, m: int) -> tuple[Fraction, ...]:
    s = [Fraction(0)] * m
    for i, b in enumerate(beta):
        if b > 0:
            s = [x + y for x, y in zip(s, w[i])]
        elif b < 0:
            s = [x - y for x, y in zip(s, w[i])]
    return tuple(s)


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------

def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_dims(m, n, k) -> None:
    for name, val, low in (("m", m, 1), ("n", n, 0), ("k", k, 1)):
        if not _is_int(val) or val < low:
            raise InvalidArgument(f"{name} must be an integer ≥ {low}, got {val!r}")


def _check_limit(limit) -> None:
    if limit is not None and (not _is_int(limit) or limit < 0):
        raise InvalidArgument(f"limit must be a non-negative integer or None, got {limit!r}")


def _check_theta(theta) -> Shallow:
    if isinstance(theta, Network):
        return theta.shallow()
    if not isinstance(theta, Shallow):
        raise InvalidArgument(f"expected a Shallow parameter θ or a shallow Network, got {type(theta).__name__}")
    return theta
