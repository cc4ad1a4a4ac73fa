"""z3 encodings of statements from the two papers, for ``reluid prove``.

Every function here builds one bounded query: the parameters of a small
network are unknowns, the statement's hypotheses are constraints and the
*negated* conclusion is the goal.  The answer is a :class:`LemmaResult`:

``unsat``
    no parameter of this size violates the statement.  This rests on z3
    (name, version, seed and limit are in :attr:`LemmaResult.solver`).
``sat``
    a candidate counterexample.  Its values come back as exact rationals
    (:func:`~reluid.smt.solver.z3_to_rational`); the caller re-checks them
    with reluid's exact code before calling anything a counterexample.
``unknown``
    z3 gave up (``reason_unknown()`` kept) or ran out of time.  Never a proof.

ReLU is encoded exactly as ``If(z > 0, z, 0)``; every constant enters as an
exact ``"n/d"`` numeral.  Only :func:`~reluid.smt.solver.make_solver` makes
solvers.

Naming convention of the unknowns (1-based, as in the papers): ``v1``,
``a1`` (or ``a1_2`` for coordinate 2 of a_1 when m > 1), ``b1``, ``C`` for
θ = (v, A, b, C); the same letters with a prime (``v1'``...) for a second
parameter θ′.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

import z3

from reluid.errors import InvalidArgument
from reluid.smt.solver import SolverConfig, check, isolated, make_solver, rational_to_z3, z3_to_rational
from reluid.verdicts import Outcome

__all__ = [
    "LemmaResult",
    "SHALLOW_TRANSFORMS",
    "fixed_by_permutation",
    "fixed_by_scaling",
    "shallow_transform",
    "affine_not_paired",
    "hidden_symmetry_1d",
    "v4_violation_candidate",
    "printed_stabilizer_condition",
    "deep_dead_neuron",
    "deep_never_coactive",
    "deep_functions_equal",
    "composition_preimage_lemma",
]


@dataclass(frozen=True, slots=True)
class LemmaResult:
    """The answer to one bounded query.

    Attributes
    ----------
    outcome : Outcome
        NONE (unsat: the statement holds at this size, resting on z3), FOUND
        (sat: a candidate counterexample in :attr:`model`) or UNKNOWN.
    model : Mapping[str, Fraction | bool] or None
        Exact values of the named unknowns when ``sat``.
    reason : str or None
        z3's ``reason_unknown()`` when ``unknown``.
    solver : Mapping
        :meth:`SolverConfig.describe` of the solver used.
    query : str
        The query in one line.
    """

    outcome: Outcome
    model: Mapping[str, Any] | None = None
    reason: str | None = None
    solver: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    query: str = ""

    @property
    def answer(self) -> str:
        """z3's own word for the outcome (``"sat"``, ``"unsat"`` or ``"unknown"``), as the reports quote it."""
        return {Outcome.FOUND: "sat", Outcome.NONE: "unsat", Outcome.UNKNOWN: "unknown"}[self.outcome]


def _config(timeout: float, seed: int = 0) -> SolverConfig:
    if not timeout or timeout <= 0:
        raise InvalidArgument(f"timeout must be positive, got {timeout!r}")
    return SolverConfig(seed=seed, timeout_ms=max(1, int(timeout * 1000)))


def _solve(constraints: Sequence, named: Mapping[str, Any], timeout: float, query: str,
           seed: int = 0) -> LemmaResult:
    """Check ``constraints``; on ``sat`` evaluate every named term exactly."""
    config = _config(timeout, seed)
    s = make_solver(config)
    s.add(*constraints)
    out = check(s, config)
    desc = MappingProxyType(config.describe())
    if out.outcome is not Outcome.FOUND:
        return LemmaResult(out.outcome, None, out.reason, desc, query)
    model = {}
    for name, term in named.items():
        val = out.model.eval(term, model_completion=True)
        if z3.is_bool(val):
            model[name] = z3.is_true(val)
        else:
            try:
                model[name] = z3_to_rational(val)
            except ValueError as e:
                return LemmaResult(Outcome.UNKNOWN, None, f"model value of {name} is not rational: {e}", desc, query)
    return LemmaResult(Outcome.FOUND, MappingProxyType(model), None, desc, query)


def _relu(e):
    return z3.If(e > 0, e, 0)


def _q(x) -> "z3.ArithRef":
    return rational_to_z3(Fraction(x))


# ---------------------------------------------------------------------------
# symbolic shallow parameters θ = (v, A, b, C) with k = 1
# ---------------------------------------------------------------------------

class _Sym:
    """Unknowns of θ ∈ Ω(m, n, 1), named as in the papers (``prime`` adds ')."""

    def __init__(self, m: int, n: int, prime: str = ""):
        self.m, self.n = m, n
        p = prime
        self.v = [z3.Real(f"v{i + 1}{p}") for i in range(n)]
        self.A = [[z3.Real(f"a{i + 1}{p}" if m == 1 else f"a{i + 1}_{l + 1}{p}") for l in range(m)]
                  for i in range(n)]
        self.b = [z3.Real(f"b{i + 1}{p}") for i in range(n)]
        self.C = z3.Real(f"C{p}")

    def row(self, i):
        return self.A[i] + [self.b[i]]

    def named(self) -> dict:
        out = {}
        for i in range(self.n):
            out[str(self.v[i])] = self.v[i]
            for x in self.A[i]:
                out[str(x)] = x
            out[str(self.b[i])] = self.b[i]
        out[str(self.C)] = self.C
        return out

    def f(self, x, v=None, A=None, b=None, C=None):
        """ρ(θ)(x) = Σ v_i σ(a_i·x + b_i) + C, with optional replacements."""
        v = self.v if v is None else v
        A = self.A if A is None else A
        b = self.b if b is None else b
        C = self.C if C is None else C
        terms = [vi * _relu(z3.Sum([ai * xi for ai, xi in zip(Ai, x)]) + bi) for vi, Ai, bi in zip(v, A, b)]
        return z3.Sum(terms) + C if terms else C


def _check_size(m: int, n: int, *, min_n: int = 1):
    if not (isinstance(m, int) and m >= 1 and isinstance(n, int) and n >= min_n):
        raise InvalidArgument(f"need m ≥ 1 and n ≥ {min_n}, got m = {m}, n = {n}")


# ---------------------------------------------------------------------------
# Ramakrishnan, Lemma 4 and Lemma 5 (stabilizers in S_n and D_n^+)
# ---------------------------------------------------------------------------

def _cycles(perm: Sequence[int]) -> list[list[int]]:
    seen, out = set(), []
    for i in range(len(perm)):
        if i in seen:
            continue
        c, j = [], i
        while j not in seen:
            seen.add(j)
            c.append(j)
            j = perm[j]
        out.append(c)
    return out


@isolated
def fixed_by_permutation(perm: Sequence[int], m: int, *, timeout: float = 60.0) -> LemmaResult:
    """Lemma 4 for one permutation p: p·θ = θ ⇒ θ_i = θ_j whenever i, j lie in one cycle of p.

    Unknowns θ = (v, A, b) ∈ Ω(m, n, 1) (C is fixed by every h).  p sends
    neuron i to position p(i), so p·θ = θ iff (v, a, b)_{p(i)} = (v, a, b)_i
    for all i.  The goal is a pair i, j in one cycle with different neurons.
    ``unsat`` means the transpositions (i j) inside the cycles of p also fix θ.

    Examples
    --------
    >>> fixed_by_permutation((1, 2, 0), m=1).answer
    'unsat'
    """
    n = len(perm)
    _check_size(m, n)
    t = _Sym(m, n)
    neuron = [[t.v[i]] + t.row(i) for i in range(n)]
    hyp = [x == y for i in range(n) for x, y in zip(neuron[perm[i]], neuron[i])]
    goal = [z3.Or([x != y for x, y in zip(neuron[i], neuron[j])])
            for c in _cycles(perm) for i, j in itertools.combinations(c, 2)]
    if not goal:
        return LemmaResult(Outcome.NONE, query=f"p = {list(perm)}: every cycle is a fixed point",
                           solver=MappingProxyType(_config(timeout).describe()))
    return _solve(hyp + [z3.Or(goal)], t.named(), timeout,
                  f"p = {tuple(perm)}, m = {m}: p·θ = θ ∧ ∃ i, j in one cycle with θ_i ≠ θ_j")


@isolated
def fixed_by_scaling(n: int, m: int, *, timeout: float = 60.0) -> LemmaResult:
    """Lemma 5: diag(λ)·θ = θ, λ > 0 ⇒ λ_i = 1 unless (v_i, a_i, b_i) = 0.

    diag(λ) acts by (v_i, a_i, b_i) ↦ (v_i/λ_i, λ_i a_i, λ_i b_i); v_i/λ_i = v_i
    is written v_i = λ_i v_i.  The goal is a neuron with λ_i ≠ 1 and
    (v_i, a_i, b_i) ≠ 0.
    """
    _check_size(m, n)
    t = _Sym(m, n)
    lam = [z3.Real(f"lambda{i + 1}") for i in range(n)]
    hyp = []
    for i in range(n):
        hyp.append(lam[i] > 0)
        hyp.append(t.v[i] == lam[i] * t.v[i])
        hyp += [lam[i] * x == x for x in t.row(i)]
    goal = z3.Or([z3.And(lam[i] != 1, z3.Or([x != 0 for x in [t.v[i]] + t.row(i)])) for i in range(n)])
    named = t.named() | {str(x): x for x in lam}
    return _solve(hyp + [goal], named, timeout,
                  f"n = {n}, m = {m}: diag(λ)·θ = θ ∧ ∃ i: λ_i ≠ 1 ∧ (v_i, a_i, b_i) ≠ 0")


# ---------------------------------------------------------------------------
# Ramakrishnan, Lemma 10, Lemma 11, Corollary 9: explicit θ′ with ρ(θ′) = ρ(θ)
# ---------------------------------------------------------------------------

def _dead_output(t: _Sym, i: int, j: int, lam):
    w = [z3.Real(f"w_{l + 1}") for l in range(t.m)]
    mu = z3.Real("mu")
    A = [list(r) for r in t.A]
    b = list(t.b)
    A[i], b[i] = w, mu
    return [t.v[i] == 0], dict(A=A, b=b), [t.v[i] == 0], w + [mu]


def _constant_neuron(t: _Sym, i: int, j: int, lam):
    v = list(t.v)
    v[i] = z3.RealVal(0)
    C = t.C + t.v[i] * _relu(t.b[i])
    return [x == 0 for x in t.A[i]], dict(v=v, C=C), [x == 0 for x in t.A[i]], []


def _proportional(base: str, weight: Callable):
    """λ > 0 and λ·(row ``base``) = (row of the other neuron); θ′ moves output weight as ``weight`` says."""
    def build(t: _Sym, i: int, j: int, lam):
        src, dst = (i, j) if base == "i" else (j, i)
        prop = [lam * x == y for x, y in zip(t.row(src), t.row(dst))]
        v = list(t.v)
        keep, gone, val = weight(t, i, j, lam)
        v[keep], v[gone] = val, z3.RealVal(0)
        return [lam > 0] + prop, dict(v=v), prop, [lam]
    return build


SHALLOW_TRANSFORMS: Mapping[str, tuple[str, Callable]] = MappingProxyType({
    "dead-output": (
        "v_i = 0  ⇒  ρ(v, A, b, C) = ρ(v, A_w, b_μ, C), row i replaced by any (w, μ)  [Lemma 10]",
        _dead_output),
    "constant-neuron": (
        "a_i = 0  ⇒  ρ(v, A, b, C) = ρ(v†, A, b, C + v_i σ(b_i)), v†_i = 0  [Lemma 11(2)]",
        _constant_neuron),
    "merge": (
        "λ > 0, λ(a_i, b_i) = (a_j, b_j)  ⇒  ρ(v, A, b, C) = ρ(v′, A, b, C), "
        "v′_i = v_i + λ v_j, v′_j = 0  [Lemma 11(1), corrected reading]",
        _proportional("i", lambda t, i, j, lam: (i, j, t.v[i] + lam * t.v[j]))),
    "merge-as-extracted": (
        "λ > 0, λ(a_j, b_j) = (a_i, b_i)  ⇒  ρ(v, A, b, C) = ρ(v′, A, b, C), "
        "v′_i = v_i + λ v_j, v′_j = 0  [Lemma 11(1) as the seed text reads]",
        _proportional("j", lambda t, i, j, lam: (i, j, t.v[i] + lam * t.v[j]))),
    "corollary-9-as-printed": (
        "λ > 0, λ(a_i, b_i) = (a_j, b_j)  ⇒  ρ(M, A, b, c) = ρ(M′, A, b, c), "
        "v′_i = 0, v′_j = v_j + λ v_i  [Corollary 9, second case, as printed]",
        _proportional("i", lambda t, i, j, lam: (j, i, t.v[j] + lam * t.v[i]))),
    "corollary-9-corrected": (
        "λ > 0, λ(a_i, b_i) = (a_j, b_j)  ⇒  ρ(M, A, b, c) = ρ(M′, A, b, c), "
        "v′_i = 0, v′_j = v_j + v_i/λ  [Corollary 9, second case, corrected]",
        _proportional("i", lambda t, i, j, lam: (j, i, t.v[j] + t.v[i] / lam))),
})


@isolated
def shallow_transform(kind: str, m: int, n: int, *, i: int = 0, j: int = 1, hypothesis: bool = True,
                      nondegenerate: bool = False, timeout: float = 60.0) -> LemmaResult:
    """Is the explicit θ′ of ``kind`` (see :data:`SHALLOW_TRANSFORMS`) in the fibre of θ?

    Unknowns: θ ∈ Ω(m, n, 1), the input x ∈ Rᵐ, and the free data of θ′
    (λ, w, μ).  The goal is ρ(θ)(x) ≠ ρ(θ′)(x).  ``unsat`` proves the identity
    for all parameters of this size; ``sat`` is a counterexample (θ, x).

    With ``hypothesis=False`` the defining hypothesis (v_i = 0, a_i = 0 or the
    proportionality) is dropped: ``sat`` then shows the hypothesis is needed
    (a vacuity check of the encoding).  ``nondegenerate=True`` adds v_l ≠ 0
    and a_l ≠ 0 for every neuron (useful to get readable counterexamples).

    Examples
    --------
    >>> shallow_transform("merge", 1, 2).answer
    'unsat'
    >>> res = shallow_transform("merge-as-extracted", 1, 2)
    >>> res.answer, res.model["lambda"] != 1
    ('sat', True)
    """
    if kind not in SHALLOW_TRANSFORMS:
        raise InvalidArgument(f"unknown transform {kind!r}; expected one of {sorted(SHALLOW_TRANSFORMS)}")
    _check_size(m, n)
    single = kind in ("dead-output", "constant-neuron")
    if not (0 <= i < n and (single or (0 <= j < n and i != j))):
        raise InvalidArgument(f"bad neuron indices i = {i}, j = {j} for n = {n}")
    t = _Sym(m, n)
    x = [z3.Real(f"x{l + 1}") for l in range(m)]
    lam = z3.Real("lambda")
    hyps, repl, defining, extra = SHALLOW_TRANSFORMS[kind][1](t, i, j, lam)
    if not hypothesis:
        hyps = [h for h in hyps if all(not h.eq(d) for d in defining)]
    if nondegenerate:
        hyps = hyps + [x != 0 for x in t.v] + [z3.Or([y != 0 for y in row]) for row in t.A]
    goal = t.f(x) != t.f(x, **repl)
    named = t.named() | {str(e): e for e in x + extra} | {"lambda": lam}
    return _solve(hyps + [goal], named, timeout,
                  f"{kind}, m = {m}, n = {n}, i = {i + 1}" + ("" if single else f", j = {j + 1}")
                  + ("" if hypothesis else ", hypothesis dropped") + ": hypotheses ∧ ρ(θ)(x) ≠ ρ(θ′)(x)")


# ---------------------------------------------------------------------------
# Ramakrishnan, Proposition 14
# ---------------------------------------------------------------------------

def _minors(r, s):
    return [r[p] * s[q] - r[q] * s[p] for p, q in itertools.combinations(range(len(r)), 2)]


def _matchings(n: int):
    """Perfect matchings of range(n) as tuples of pairs."""
    if n == 0:
        yield ()
        return
    if n % 2:
        return
    def rec(rest):
        if not rest:
            yield ()
            return
        a = rest[0]
        for k in range(1, len(rest)):
            for m in rec(rest[1:k] + rest[k + 1:]):
                yield ((a, rest[k]),) + m
    yield from rec(list(range(n)))


def _canonical_rows(t: "_Sym"):
    """Scale every row so that the first nonzero entry of a_i is ±1 (Booleans choose where and which sign).

    Returns (constraints, canonical rows c_i = ±(a_i, b_i) with first nonzero entry of the a-part +1, the
    Booleans neg_i meaning (a_i, b_i) = −c_i).  Two such rows are parallel iff their canonical rows are equal.
    """
    cons, canon, neg = [], [], []
    for i in range(t.n):
        first = [z3.Bool(f"lead{i + 1}_{l + 1}") for l in range(t.m)]
        ni = z3.Bool(f"neg{i + 1}")
        cons.append(z3.PbEq([(f, 1) for f in first], 1))
        for l in range(t.m):
            cons.append(z3.Implies(first[l], z3.And([t.A[i][k] == 0 for k in range(l)]
                                                    + [t.A[i][l] == z3.If(ni, z3.RealVal(-1), z3.RealVal(1))])))
        row = t.row(i)
        canon.append([z3.If(ni, -x, x) for x in row])
        neg.append(ni)
    return cons, canon, neg


@isolated
def affine_not_paired(m: int, n: int, *, paired_goal: bool = True, timeout: float = 60.0) -> LemmaResult:
    """Proposition 14, "only if": a minimal θ without 0-factors computing an affine map is paired.

    Normalisation.  A minimal θ without 0-factors has v_i = ±1, a_i ≠ 0 and pairwise semi-independent
    rows.  Rescaling each neuron by a positive factor (an element of H_n: the function is unchanged) so
    that the first nonzero entry of a_i is ±1 turns these hypotheses into: v_i ≠ 0, that normalisation,
    and no two rows equal; the pairing (a_j, b_j) = −(a_i, b_i), v_j = −v_i is preserved in both
    directions.  The encoding is then linear: unknowns v_i (reals), rows with a Boolean choice of the
    leading coordinate and its sign.

    "ρ(θ) is affine" is encoded exactly by its characterisation for sums of ReLUs: crossing the hyperplane
    H_i at a point off the other hyperplanes, the gradient of Σ_j v_j σ(a_j·x + b_j) jumps by
    (Σ_{j: H_j = H_i} v_j |λ_ij|) n_i, where (a_j, b_j) = λ_ij c_i; after the normalisation |λ_ij| = 1, so
    ρ(θ) is affine iff Σ_{j: c_j = c_i} v_j = 0 for every i.

    The goal (``paired_goal=True``) is that the neurons do *not* split into pairs with (a_j, b_j) =
    −(a_i, b_i) and v_j = −v_i.  With ``paired_goal=False`` the goal is dropped (``sat`` for even n
    shows the affine case occurs).

    Examples
    --------
    >>> affine_not_paired(2, 3).answer, affine_not_paired(1, 2, paired_goal=False).answer
    ('unsat', 'sat')
    """
    _check_size(m, n)
    t = _Sym(m, n)
    cons, canon, neg = _canonical_rows(t)
    cons += [x != 0 for x in t.v]
    same = {}
    for i, j in itertools.permutations(range(n), 2):
        same[i, j] = z3.And([x == y for x, y in zip(canon[i], canon[j])])
    for i, j in itertools.combinations(range(n), 2):
        cons.append(z3.Implies(same[i, j], neg[i] != neg[j]))        # semi-independence: no equal rows
    for i in range(n):
        cons.append(t.v[i] + z3.Sum([z3.If(same[i, j], t.v[j], 0) for j in range(n) if j != i]
                                    or [z3.RealVal(0)]) == 0)
    if paired_goal:
        options = [z3.And([z3.And(same[a, b], t.v[a] == -t.v[b]) for a, b in mt]) for mt in _matchings(n)]
        cons.append(z3.Not(z3.Or(options)) if options else z3.BoolVal(True))
    named = {str(x): x for x in t.v} | {str(e): e for i in range(n) for e in t.row(i)}
    return _solve(cons, named, timeout,
                  f"m = {m}, n = {n}: minimal, no 0-factors, ρ(θ) affine"
                  + (" ∧ rows not paired" if paired_goal else ""))


# ---------------------------------------------------------------------------
# Ramakrishnan, Proposition 24 / Definition 9 / Theorem 5 with m = 1
# ---------------------------------------------------------------------------

def _signs(n: int):
    for beta in itertools.product((0, 1, -1), repeat=n):
        nz = [x for x in beta if x]
        if nz and nz[0] == 1:
            yield beta


CONDITIONS_1D = ("prop24", "literal-def9", "none")


@isolated
def hidden_symmetry_1d(n: int, *, condition: str = "prop24", theta=None, normalise: bool = True,
                       timeout: float = 60.0) -> LemmaResult:
    """Search Ω(1, n, 1) for θ satisfying ``condition`` that has a hidden symmetry.

    Unknowns: θ = (v, a, b) (or the fixed ``theta`` = (v, a, b) as rationals)
    and θ′ = (v′, a′, b′) with a′_j ∈ {−1, 0, 1} (every θ′ can be brought to
    this form by H_n, which changes neither its function nor its orbit).

    ``condition``
        ``"prop24"``: v_i ≠ 0, rows pairwise linearly independent and
        Σ β(i) v_i a_i ≠ 0 for all β ∈ {0, ±1}ⁿ ∖ 0 (Proposition 24);
        ``"literal-def9"``: the same with Σ β(i) a_i ≠ 0 (Definition 9 as
        printed, inside Theorem 5: V1, V2, V3 and U4 literally);
        ``"none"``: no condition (use with ``theta``).
    ``normalise``
        Scale θ so that a_i = ±1 (Booleans ``p1``...).  Only valid for
        conditions invariant under H_n (Proposition 24's are); the literal
        Definition 9 is not, so it needs ``normalise=False`` (a_i free ≠ 0).

    "ρ(θ′) = ρ(θ) for a suitable C′" is encoded exactly by the elementary
    description of piecewise-linear functions of one variable: the slopes
    agree at −∞ and the slope jumps agree at every breakpoint (the jump of
    v σ(a x + b) at x = −b/a is v|a|).  Then C′ is determined.  "θ′ ∉ H_n·θ"
    (with C′ = C forced) is: no permutation π matches every neuron i with
    π(i) after positive scaling.  The neurons of θ and of θ′ are sorted by
    breakpoint (θ′'s constant neurons last), which loses no generality and
    makes larger n feasible.  ``unsat`` means no parameter of this size
    satisfying ``condition`` has a hidden symmetry (resting on z3).

    Examples
    --------
    >>> hidden_symmetry_1d(2).answer                       # Proposition 24, n = 2
    'unsat'
    >>> hidden_symmetry_1d(2, condition="none", theta=([1, 1], [1, 1], [0, 1])).answer   # σ(x) + σ(x+1)
    'unsat'
    >>> hidden_symmetry_1d(2, condition="none", theta=([2, -1], [1, 2], [0, 1])).answer  # {1, 2} is a flip set
    'sat'
    """
    if condition not in CONDITIONS_1D:
        raise InvalidArgument(f"condition must be one of {CONDITIONS_1D}, got {condition!r}")
    if condition == "literal-def9" and normalise:
        raise InvalidArgument("the literal Definition 9 is not H_n-invariant: use normalise=False")
    _check_size(1, n)
    cons = []
    named = {}
    if theta is not None:
        v = [_q(x) for x in theta[0]]
        a = [_q(x) for x in theta[1]]
        b = [_q(x) for x in theta[2]]
        if len(v) != n or len(a) != n or len(b) != n:
            raise InvalidArgument("theta must be (v, a, b) with n entries each")
        if any(Fraction(x) == 0 for x in theta[1]):
            raise InvalidArgument("a fixed theta must have every a_i ≠ 0 (constant neurons are not encoded)")
        absa = [_q(abs(Fraction(x))) for x in theta[1]]
        bp = [_q(-Fraction(y) / Fraction(x)) for x, y in zip(theta[1], theta[2])]     # breakpoints −b_i/a_i
        pos = [z3.BoolVal(Fraction(x) > 0) for x in theta[1]]
    else:
        v = [z3.Real(f"v{i + 1}") for i in range(n)]
        b = [z3.Real(f"b{i + 1}") for i in range(n)]
        if normalise:
            p = [z3.Bool(f"p{i + 1}") for i in range(n)]
            a = [z3.If(p[i], z3.RealVal(1), z3.RealVal(-1)) for i in range(n)]
            absa = [z3.RealVal(1)] * n
            bp = [z3.If(p[i], -b[i], b[i]) for i in range(n)]
            pos = p
        else:
            a = [z3.Real(f"a{i + 1}") for i in range(n)]
            absa = [z3.If(a[i] > 0, a[i], -a[i]) for i in range(n)]
            bp = [z3.Real(f"t{i + 1}") for i in range(n)]
            cons += [a[i] != 0 for i in range(n)]
            cons += [a[i] * bp[i] + b[i] == 0 for i in range(n)]
            pos = [a[i] > 0 for i in range(n)]
        named |= {f"v{i + 1}": v[i] for i in range(n)} | {f"a{i + 1}": a[i] for i in range(n)} \
            | {f"b{i + 1}": b[i] for i in range(n)}

    def times_a(i, e):
        """a_i·e, kept linear when a_i = ±1 is a Boolean choice."""
        if theta is None and normalise:
            return z3.If(pos[i], e, -e)
        return a[i] * e

    # the condition on θ
    if condition != "none":
        cons += [x != 0 for x in v]
        for i, j in itertools.combinations(range(n), 2):
            cons.append(times_a(i, b[j]) - times_a(j, b[i]) != 0)
        for beta in _signs(n):
            w = [a[i] if condition == "literal-def9" else times_a(i, v[i]) for i in range(n)]
            cons.append(z3.Sum([bt * w[i] for i, bt in enumerate(beta) if bt]) != 0)
    # θ′ with a′ ∈ {−1, 0, 1}
    w_ = [z3.Real(f"v{j + 1}'") for j in range(n)]
    d_ = [z3.Real(f"b{j + 1}'") for j in range(n)]
    q_ = [z3.Bool(f"p{j + 1}'") for j in range(n)]
    z_ = [z3.Bool(f"z{j + 1}'") for j in range(n)]
    a_ = [z3.If(z_[j], z3.RealVal(0), z3.If(q_[j], z3.RealVal(1), z3.RealVal(-1))) for j in range(n)]
    bp_ = [z3.If(q_[j], -d_[j], d_[j]) for j in range(n)]
    named |= {f"v{j + 1}'": w_[j] for j in range(n)} | {f"a{j + 1}'": a_[j] for j in range(n)} \
        | {f"b{j + 1}'": d_[j] for j in range(n)}

    unit = theta is None and normalise     # a_i = ±1: |a_i| = 1

    def jumps(pt):
        k1 = z3.Sum([z3.If(bp[i] == pt, v[i] if unit else v[i] * absa[i], 0) for i in range(n)])
        k2 = z3.Sum([z3.If(z3.And(z3.Not(z_[j]), bp_[j] == pt), w_[j], 0) for j in range(n)])
        return k1, k2

    for pt in bp + bp_:
        k1, k2 = jumps(pt)
        cons.append(k1 == k2)
    slope = z3.Sum([z3.If(pos[i], 0, times_a(i, v[i])) for i in range(n)])
    slope_ = z3.Sum([z3.If(z3.Or(z_[j], q_[j]), 0, -w_[j]) for j in range(n)])
    cons.append(slope == slope_)

    # θ′ not in the orbit: no π with neuron i ~ neuron π(i) after a positive scaling
    def match(i, j):
        if unit:
            return z3.And(z3.Not(z_[j]), q_[j] == pos[i], d_[j] == b[i], w_[j] == v[i])
        return z3.And(z3.Not(z_[j]), q_[j] == pos[i], d_[j] * absa[i] == b[i], w_[j] == v[i] * absa[i])

    cons.append(z3.Not(z3.Or([z3.And([match(i, pi[i]) for i in range(n)])
                              for pi in itertools.permutations(range(n))])))
    # symmetry breaking (sound: permuting the neurons of θ or of θ′ changes neither function nor orbit)
    if theta is None:
        cons += [bp[i] <= bp[i + 1] for i in range(n - 1)]
    for j in range(n - 1):
        cons.append(z3.Implies(z_[j], z_[j + 1]))
        cons.append(z3.Implies(z3.Not(z_[j + 1]), bp_[j] <= bp_[j + 1]))
    what = {"prop24": "Proposition 24's hypotheses", "literal-def9": "Definition 9 read literally",
            "none": "the given θ"}[condition]
    return _solve(cons, named, timeout,
                  f"m = 1, n = {n}: {what} ∧ ∃ θ′ ∉ H_n·θ with ρ(θ′) = ρ(θ)")


@isolated
def v4_violation_candidate(n: int, *, exclude: Sequence[Sequence[Fraction]] = (), timeout: float = 60.0
                           ) -> LemmaResult:
    """θ ∈ Ω(1, n, 1) outside Proposition 24's set U, steered towards rigidity.

    Constraints: a_i = ±1 (normalised by H_n), v_i ≠ 0, rows pairwise linearly
    independent, some β with entries of both signs has Σ β(i) v_i a_i = 0
    (so θ violates Proposition 24), no β ∈ {0, 1}ⁿ ∖ 0 vanishes (no flip
    set: docs/mathematics.md §2; used only to steer the search, the candidate is
    re-checked independently), and θ differs from every (v, a, b) in
    ``exclude``.  Small integers are preferred by bounding |v_i|, |b_i| ≤ 4.
    """
    _check_size(1, n, min_n=2)
    v = [z3.Real(f"v{i + 1}") for i in range(n)]
    b = [z3.Real(f"b{i + 1}") for i in range(n)]
    p = [z3.Bool(f"p{i + 1}") for i in range(n)]
    a = [z3.If(p[i], z3.RealVal(1), z3.RealVal(-1)) for i in range(n)]
    cons = [x != 0 for x in v] + [z3.And(x >= -4, x <= 4) for x in v + b]
    cons += [z3.IsInt(x) for x in v + b]
    for i, j in itertools.combinations(range(n), 2):
        cons.append(a[i] * b[j] - a[j] * b[i] != 0)
    mixed, binary = [], []
    for beta in _signs(n):
        s = z3.Sum([bt * v[i] * a[i] for i, bt in enumerate(beta) if bt])
        (binary if all(x >= 0 for x in beta) else mixed).append(s)
    cons.append(z3.Or([s == 0 for s in mixed]))
    cons += [s != 0 for s in binary]
    for ex in exclude:
        vv, aa, bb = ex
        cons.append(z3.Not(z3.And([v[i] == _q(vv[i]) for i in range(n)] + [a[i] == _q(aa[i]) for i in range(n)]
                                  + [b[i] == _q(bb[i]) for i in range(n)])))
    named = {f"v{i + 1}": v[i] for i in range(n)} | {f"a{i + 1}": a[i] for i in range(n)} \
        | {f"b{i + 1}": b[i] for i in range(n)}
    return _solve(cons, named, timeout, f"m = 1, n = {n}: V1–V3 hold, V4 fails with a mixed-sign β, no flip set")


# ---------------------------------------------------------------------------
# Ramakrishnan, Proposition 2 / Corollary 7 as printed
# ---------------------------------------------------------------------------

@isolated
def printed_stabilizer_condition(direction: str, *, timeout: float = 60.0) -> LemmaResult:
    """Compare the printed pair condition of Corollary 7 with the stabilizer, on Ω(1, 2, 1).

    printed(1, 2): ∃ λ > 0 with λ(v_1, a_1, b_1) = (v_2, a_2, b_2);
    swap(1, 2): ∃ μ > 0 with diag(μ, 1/μ)(1 2)·θ = θ, i.e. μ(a_1, b_1) = (a_2, b_2)
    and v_1/μ = v_2.

    ``direction="printed-not-swap"`` asks for θ with printed(1, 2) and no
    swap; ``"swap-not-printed"`` the converse.  v_i ≠ 0 and a_i ≠ 0 (no
    degenerate neurons).
    The universally quantified side is passed to z3 as a ``ForAll``.
    """
    v1, a1, b1, v2, a2, b2 = z3.Reals("v1 a1 b1 v2 a2 b2")
    lam, mu = z3.Real("lambda"), z3.Real("mu")
    nonzero = [v1 != 0, a1 != 0, v2 != 0, a2 != 0]

    def printed(l):
        return z3.And(l > 0, l * v1 == v2, l * a1 == a2, l * b1 == b2)

    def swap(u):
        return z3.And(u > 0, u * a1 == a2, u * b1 == b2, v2 * u == v1)

    if direction == "printed-not-swap":
        cons = [printed(lam), z3.ForAll([mu], z3.Not(swap(mu)))]
    elif direction == "swap-not-printed":
        cons = [swap(mu), z3.ForAll([lam], z3.Not(printed(lam)))]
    else:
        raise InvalidArgument(f"unknown direction {direction!r}")
    named = {str(x): x for x in (v1, a1, b1, v2, a2, b2, lam, mu)}
    return _solve(cons + nonzero, named, timeout, f"Ω(1, 2, 1): {direction}")


# ---------------------------------------------------------------------------
# Grigsby–Lindsey–Rolnick: mechanisms (i) and (ii), pointwise
# ---------------------------------------------------------------------------

class _SymDeep:
    def __init__(self, arch: Sequence[int]):
        if len(arch) < 3 or any((not isinstance(w, int)) or w < 1 for w in arch):
            raise InvalidArgument(f"need an architecture (n0, ..., nd) with d ≥ 2 and widths ≥ 1, got {arch}")
        self.arch = tuple(arch)
        self.W = [[[z3.Real(f"W{l}_{j + 1}_{i + 1}") for i in range(arch[l - 1])] for j in range(arch[l])]
                  for l in range(1, len(arch))]
        self.b = [[z3.Real(f"b{l}_{j + 1}") for j in range(arch[l])] for l in range(1, len(arch))]

    def forward(self, x, W=None):
        W = self.W if W is None else W
        h, pre = list(x), []
        for l, (Wl, bl) in enumerate(zip(W, self.b)):
            z = [z3.Sum([w * hi for w, hi in zip(row, h)]) + bj for row, bj in zip(Wl, bl)]
            pre.append(z)
            h = [_relu(e) for e in z] if l < len(W) - 1 else z
        return h, pre

    def copy_weights(self):
        return [[list(r) for r in Wl] for Wl in self.W]


@isolated
def deep_dead_neuron(arch: Sequence[int], layer: int, i: int, *, hypothesis: bool = True,
                     timeout: float = 60.0) -> LemmaResult:
    """Mechanism (i), pointwise: where neuron i of hidden layer ``layer`` is off, its outgoing weights do not matter.

    Unknowns: every weight and bias of the architecture, the input x and new
    outgoing weights W^{ℓ+1}[:, i].  Hypothesis z^ℓ_i(x) ≤ 0; goal
    F_θ(x) ≠ F_θ′(x).  ``unsat`` gives F_θ = F_θ′ on all of R^{n0} whenever
    the neuron is dead (pre-activation ≤ 0 everywhere).
    """
    net = _SymDeep(arch)
    if not (1 <= layer < len(arch) - 1 and 0 <= i < arch[layer]):
        raise InvalidArgument(f"no neuron {i} in hidden layer {layer} of {arch}")
    x = [z3.Real(f"x{k + 1}") for k in range(arch[0])]
    W2 = net.copy_weights()
    new = [z3.Real(f"new_{o + 1}") for o in range(arch[layer + 1])]
    for o in range(arch[layer + 1]):
        W2[layer][o][i] = new[o]
    y, pre = net.forward(x)
    y2, _ = net.forward(x, W2)
    cons = [pre[layer - 1][i] <= 0] if hypothesis else []
    cons.append(z3.Or([p != q for p, q in zip(y, y2)]))
    return _solve(cons, {str(e): e for e in x + new}, timeout,
                  f"{tuple(arch)}, layer {layer}, neuron {i + 1}: z ≤ 0 ∧ F_θ(x) ≠ F_θ′(x)"
                  if hypothesis else f"{tuple(arch)}, layer {layer}, neuron {i + 1}, hypothesis dropped")


@isolated
def deep_never_coactive(arch: Sequence[int], layer: int, i: int, j: int, *, hypothesis: bool = True,
                        timeout: float = 60.0) -> LemmaResult:
    """Mechanism (ii), pointwise: where i (layer ℓ−1) and j (layer ℓ) are not both on, W^ℓ[j, i] may decrease.

    Unknowns: all weights and biases, x, and δ ≥ 0; θ′ has W^ℓ[j, i] − δ.
    Hypothesis: not (z^{ℓ−1}_i(x) > 0 and z^ℓ_j(x) > 0); goal F_θ(x) ≠ F_θ′(x).
    """
    net = _SymDeep(arch)
    if not (2 <= layer < len(arch) - 1 and 0 <= i < arch[layer - 1] and 0 <= j < arch[layer]):
        raise InvalidArgument(f"no pair ({i}, {j}) in hidden layers {layer - 1}, {layer} of {arch}")
    x = [z3.Real(f"x{k + 1}") for k in range(arch[0])]
    delta = z3.Real("delta")
    W2 = net.copy_weights()
    W2[layer - 1][j][i] = net.W[layer - 1][j][i] - delta
    y, pre = net.forward(x)
    y2, _ = net.forward(x, W2)
    cons = [delta >= 0, z3.Or([p != q for p, q in zip(y, y2)])]
    if hypothesis:
        cons.append(z3.Not(z3.And(pre[layer - 2][i] > 0, pre[layer - 1][j] > 0)))
    return _solve(cons, {str(e): e for e in x + [delta]}, timeout,
                  f"{tuple(arch)}, neurons ({layer - 1}, {i + 1}) → ({layer}, {j + 1})"
                  + (": not co-active at x ∧ F_θ(x) ≠ F_θ′(x)" if hypothesis else ", hypothesis dropped"))


@isolated
def deep_functions_equal(net1, net2, *, timeout: float = 60.0) -> LemmaResult:
    """∀x F_1(x) = F_2(x) for two concrete networks: ``unsat`` of F_1(x) ≠ F_2(x) (linear arithmetic)."""
    if net1.architecture[0] != net2.architecture[0] or net1.architecture[-1] != net2.architecture[-1]:
        raise InvalidArgument("the networks have different input or output dimensions")
    x = [z3.Real(f"x{k + 1}") for k in range(net1.input_dim)]

    def forward(net):
        h = list(x)
        for l, L in enumerate(net.layers):
            z = [z3.Sum([_q(w) * hi for w, hi in zip(row, h)]) + _q(bj) for row, bj in zip(L.weight, L.bias)]
            h = [_relu(e) for e in z] if l < len(net.layers) - 1 else z
        return h

    y1, y2 = forward(net1), forward(net2)
    return _solve([z3.Or([p != q for p, q in zip(y1, y2)])], {str(e): e for e in x}, timeout,
                  "F_1(x) ≠ F_2(x)")


# ---------------------------------------------------------------------------
# Grigsby–Lindsey–Rolnick, Lemma 4.2 (pure set theory, uninterpreted sorts)
# ---------------------------------------------------------------------------

@isolated
def composition_preimage_lemma(*, timeout: float = 60.0) -> LemmaResult:
    """G⁻¹(S) ∩ G⁻¹(S′) ≠ ∅ ⇔ G(A) ∩ S ∩ S′ ≠ ∅ for arbitrary sets and maps.

    A and B are uninterpreted sorts (any sets, finite or not), G : A → B an
    uninterpreted function, S, S′ ⊆ B uninterpreted predicates.  ``unsat`` of
    the negated equivalence is a proof for all sets (resting on z3's
    quantifier reasoning).  H plays no role in the statement.

    Examples
    --------
    >>> composition_preimage_lemma().answer
    'unsat'
    """
    A, B = z3.DeclareSort("A"), z3.DeclareSort("B")
    G = z3.Function("G", A, B)
    S = z3.Function("S", B, z3.BoolSort())
    S2 = z3.Function("S_prime", B, z3.BoolSort())
    a, b = z3.Const("a", A), z3.Const("b", B)
    lhs = z3.Exists([a], z3.And(S(G(a)), S2(G(a))))
    rhs = z3.Exists([b], z3.And(z3.Exists([a], G(a) == b), S(b), S2(b)))
    return _solve([lhs != rhs], {}, timeout, "(∃a. G(a) ∈ S ∩ S′) ≠ (∃b ∈ G(A). b ∈ S ∩ S′)")
