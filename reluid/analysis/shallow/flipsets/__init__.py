"""Flip sets of a shallow ReLU network, and certificates that there are none.

For θ = (M, A, b, c) ∈ Ω(m, n, k) a *flip set* is a nonempty F ⊆ [n] with

    Σ_{i∈F} m_i a_iᵀ = 0        (a k × m matrix; docs/mathematics.md §2).

Flipping the rows (a_i, b_i), i ∈ F, and moving Σ_{i∈F} m_i b_i into c keeps
the function, so on the generic stratum θ has hidden symmetries iff it has a
flip set.  Write u_i = vec(m_i a_iᵀ) ∈ Q^{km} (entry ``j*m + l`` is
``M[j][i] * A[i][l]``) and U for the km × n matrix with columns u_i: F is a
flip set iff its indicator vector x ∈ {0,1}ⁿ∖0 satisfies U x = 0.  Columns of
U must not be rescaled one by one (that changes the 0/1 question); rows may.

Deciding whether a flip set exists is NP-complete (zero subset sum), so
:func:`find_flip_set` tries certificates that are cheap when the answer is
easy, in this order (docs/mathematics.md §3):

``separation``
    an integer k × m matrix Y with m_iᵀ Y a_i > 0 for every i (Gordan): a
    flip set would pair with Y to a sum of positive numbers.  Random networks
    are separable up to n ≈ 2km (Wendel); it subsumes rank.  When Y separates
    all but a few neurons, ``separation-split`` adds a certificate for the
    subnetwork on the neurons every flip set must lie in.
``rank``
    u_1, …, u_n independent: a prime p and n rows of U with an n × n minor
    that is nonzero mod p.
``lattice``
    an LLL- (and BKZ-) reduced basis B of L = ker U ∩ Zⁿ with min ‖b*_i‖² > n;
    then L has no nonzero vector of squared length ≤ n, so no x ∈ {0, ±1}ⁿ∖0
    with U x = 0 (this is also Proposition 24's condition for the joint
    matrix).  Otherwise ``lattice-enum``: every 0/1 vector of L lies in the
    ball around the projection of ½·1 onto ker U of squared radius
    n/4 − dist²(½·1, ker U); its lattice points are enumerated exactly.
``enumerate``
    a prime p and rows S of U whose kernel mod p has small dimension r: every
    flip set x satisfies U_S x ≡ 0 (mod p), so it is determined by its r free
    coordinates, and 2^r candidates are checked.  With S empty this is plain
    exhaustive search over 2ⁿ subsets.
``mitm``
    meet in the middle over 2^{n/2} subset sums of a hash of the columns.
``z3``
    a pseudo-Boolean query; an ``unsat`` rests on the solver.

One module per method (:mod:`.separation`, :mod:`.rank`, :mod:`.lattice`,
:mod:`.enumeration`, :mod:`.mitm`, :mod:`.solver`) behind :func:`find_flip_set`.  Every certificate
is re-verified by :mod:`reluid.checker.flipsets`, which shares no code with
this package.

References
----------
P. Ramakrishnan, "A complete symmetry classification of shallow ReLU
networks", 2026: Proposition 24, Theorem 5.
H. Cohen, "A course in computational algebraic number theory", 1993:
Algorithm 2.7.2 (integral kernel by LLL), Section 2.6.1 (Gram–Schmidt bound).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Iterable, Mapping

import numpy as np

from reluid.analysis.progress import report as _report
from reluid.analysis.shallow.flipsets._problem import (ENUMERATE_MAX_FREE, LATTICE_MAX_N, MITM_MAX_N, Clock,
                                                      MethodResult, Problem, Progress, SearchTimeout,
                                                      check_limit, check_subset, check_theta, check_timeout,
                                                      gave_up, none)
from reluid.analysis.shallow.flipsets.enumeration import enumerate_kernel, kernel_candidates
from reluid.analysis.shallow.flipsets.lattice import lattice
from reluid.analysis.shallow.flipsets.mitm import mitm, mitm_hits
from reluid.analysis.shallow.flipsets.rank import profile, rank_random, screen
from reluid.analysis.shallow.flipsets.separation import separation
from reluid.analysis.shallow.flipsets.solver import refusal, solve
from reluid.errors import InvalidArgument
from reluid.model.jsondata import freeze
from reluid.model.network import Shallow  # noqa: F401  (the doctests use it)
from reluid.verdicts import FlipSearchStep, FlipSetMethod, Outcome, Reason, ReasonCode

__all__ = [
    "METHODS",
    "ENUMERATE_MAX_FREE",
    "MITM_MAX_N",
    "LATTICE_MAX_N",
    "FlipMatrix",
    "FlipSetResult",
    "flip_matrix",
    "is_flip_set",
    "find_flip_set",
    "all_flip_sets",
    "count_flip_sets",
    "enumerate_flip_sets",
    "FlipSetEnumeration",
]

METHODS = ("auto", FlipSetMethod.SEPARATION, FlipSetMethod.RANK, FlipSetMethod.LATTICE, FlipSetMethod.ENUMERATE,
           FlipSetMethod.MITM, FlipSetMethod.Z3)
"""The values of ``method=`` accepted by :func:`find_flip_set`."""

REFERENCE = "Ramakrishnan 2026, Proposition 24 and Theorem 5; docs/mathematics.md §2-3 (flip sets)"


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FlipMatrix:
    """Some rows of the flip matrix, scaled to integers.

    ``entries[t][i] == scale * M[j][i] * A[i][l]`` where ``rows[t] == j*m + l``;
    ``scale`` is one common denominator for the whole matrix, so integer
    relations between columns are exactly those of U.

    Attributes
    ----------
    entries : tuple of tuple of int
    rows : tuple of int
        Row indices into the km rows of U.
    scale : int
        The common denominator D (D·U is integral).
    shape : (int, int)
        (km, n), the shape of the full U.
    """

    entries: tuple[tuple[int, ...], ...]
    rows: tuple[int, ...]
    scale: int
    shape: tuple[int, int]


@dataclass(frozen=True, slots=True)
class FlipSetResult:
    """The answer of :func:`find_flip_set`.

    Attributes
    ----------
    outcome : Outcome
        ``NONE``: θ has no flip set (certified by ``evidence``);
        ``FOUND``: ``flip_set`` is one (checked exactly);
        ``UNKNOWN``: no method decided; ``reason`` says why.
    flip_set : frozenset of int or None
        0-based neuron indices.
    evidence : mapping
        JSON-shaped, read-only (ints and tuples): the evidence that
        :mod:`reluid.certificates.build` puts in a ``no-flip-set`` or
        ``flip-set`` claim.  Empty when unknown.
    method : FlipSetMethod or FlipSearchStep
        The method that decided (``"screen"`` for the quick witness search),
        or ``"none"``.
    solver : mapping or None
        :meth:`SolverConfig.describe` when z3 was asked (it only searches: its
        unsat never gives NONE).
    reason : Reason or None
        Why the answer is unknown, as data (:mod:`reluid.report.reasons` words it): the time ran out in a
        method (``flip-timeout``), or what each method tried came to (``flip-methods-gave-up``).
    stats : tuple of (method, seconds, outcome)
        Every method tried, in order.
    """

    outcome: Outcome
    flip_set: frozenset | None = None
    evidence: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    method: FlipSetMethod | FlipSearchStep = FlipSearchStep.NONE
    solver: Mapping[str, Any] | None = None
    reason: Reason | None = None
    stats: tuple[tuple[str, float, str], ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "outcome", Outcome(self.outcome))
        object.__setattr__(self, "evidence", freeze(self.evidence))
        if self.solver is not None:
            object.__setattr__(self, "solver", freeze(self.solver))


def flip_matrix(theta, rows: Iterable[int] | None = None) -> FlipMatrix:
    """The flip matrix D·U (or some of its rows) as integers.

    Column i of U is u_i = vec(m_i a_iᵀ) ∈ Q^{km}; row ``j*m + l`` (output j,
    input coordinate l) holds ``M[j][i] * A[i][l]``.  F is a flip set iff the
    columns in F sum to zero (docs/mathematics.md §2).  When km ≫ n ask for a few rows
    only: forming all km·n entries costs time and memory.

    Parameters
    ----------
    theta : Shallow or Network
    rows : iterable of int, optional
        Row indices in ``range(k*m)``; all rows by default.

    Returns
    -------
    FlipMatrix

    Examples
    --------
    >>> theta = Shallow.make([[1, 2], [3, 4]], [["1/2"], [1]], [0, 0], [0, 0])
    >>> U = flip_matrix(theta)
    >>> U.entries, U.scale
    (((1, 4), (3, 8)), 2)
    """
    theta = check_theta(theta)
    km = theta.k * theta.m
    rows = tuple(range(km)) if rows is None else tuple(rows)
    for r in rows:
        if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 0 <= int(r) < km:
            raise InvalidArgument(f"row index {r!r} out of range for k·m = {km}")
    prob = Problem(theta)
    rows = tuple(int(r) for r in rows)
    return FlipMatrix(tuple(tuple(r) for r in prob.int_rows(rows)), rows, prob.integers()[2], (km, theta.n))


def is_flip_set(theta, F) -> bool:
    """Whether F is a flip set: nonempty and Σ_{i∈F} m_i a_iᵀ = 0, exactly.

    Parameters
    ----------
    theta : Shallow or Network
    F : iterable of int
        0-based neuron indices.

    Returns
    -------
    bool
        ``False`` for the empty set (a flip set is nonempty by definition).

    Raises
    ------
    InvalidArgument
        An index is out of range or not an integer.

    Examples
    --------
    >>> theta = Shallow.make([2, -1], [[1], [2]], [0, 1], [0])   # docs/mathematics.md §2
    >>> is_flip_set(theta, {0, 1}), is_flip_set(theta, {0})
    (True, False)
    """
    theta = check_theta(theta)
    F = check_subset(theta, F)
    if not F:
        return False
    for j in range(theta.k):
        Mj = theta.M[j]
        for l in range(theta.m):
            if sum((Mj[i] * theta.A[i][l] for i in F), Fraction(0)) != 0:
                return False
    return True


# ---------------------------------------------------------------------------
# the public entry points
# ---------------------------------------------------------------------------

def find_flip_set(theta, *, timeout: float | None = None, method: str = "auto", progress: bool = False,
                  seed: int = 0, encoding: str = "pb") -> FlipSetResult:
    """Decide whether θ has a flip set, with a certificate either way.

    A flip set is a nonempty F ⊆ [n] with Σ_{i∈F} m_i a_iᵀ = 0 (docs/mathematics.md
    §2).  On the generic stratum (m_i ≠ 0, a_i ≠ 0, rows (a_i, b_i) pairwise
    independent) θ has no hidden symmetries iff it has no flip set.

    Parameters
    ----------
    theta : Shallow or Network
    timeout : float, optional, keyword-only
        Seconds.  On expiry the answer is ``"unknown"`` naming the method that
        gave up and the size left; a single flint call (a determinant, an LLL
        reduction) is not interrupted.
    method : {"auto", "separation", "rank", "lattice", "enumerate", "mitm", "z3"}, keyword-only
        ``"auto"`` looks for small witnesses, then tries separation, rank,
        lattice (with its enumeration), enumerate, mitm and finally z3
        (docs/mathematics.md §3).  A named method runs alone (after the rank
        profile it needs).
    progress : bool, keyword-only
        Show a rich progress bar for long steps (when rich is installed).
    seed : int, keyword-only
        Seeds the row sampling and hashes (which never affect correctness)
        and z3.
    encoding : {"pb", "int", "real"}, keyword-only
        The z3 encoding (:mod:`reluid.smt.flipsets`).

    Returns
    -------
    FlipSetResult
        ``outcome`` is ``NONE`` (certified by ``evidence``), ``FOUND``
        (``flip_set`` is checked exactly) or ``UNKNOWN`` (``reason``).
        A timeout or a solver ``unknown`` never becomes ``NONE``.

    Raises
    ------
    InvalidArgument
        Unknown method, bad timeout, or θ of the wrong type.
    NotShallow
        A Network with more than one hidden layer.

    Notes
    -----
    Certificates (``evidence``), each re-verified by
    :mod:`reluid.checker.flipsets`; row ``j*m + l`` of U is output j, input
    coordinate l:

    * ``{"method": "separation", "y"}``: Y (k lists of m integers) with
      m_iᵀ Y a_i > 0 for every neuron i.
    * ``{"method": "separation-split", "y", "rest", "sub"}``: every neuron
      with D·m_iᵀ Y a_i at most the total negative score is in ``rest``, and
      ``sub`` is a rank, lattice, lattice-enum, enumerate or mitm certificate
      for the subnetwork on ``rest`` (in that order).
    * ``{"method": "rank", "p", "rows"}``: n distinct rows whose n × n minor
      is nonzero mod the prime p.
    * ``{"method": "lattice", "p", "basis", "inverse", "rank_rows",
      "rank_cols"}``: B (r × n, ``basis``) with U Bᵀ = 0; C (n × r,
      ``inverse``, a list of n rows) with B C = I_r, so the row lattice of B
      is saturated; the minor of U on ``rank_rows`` × ``rank_cols``
      (n − r each) is nonzero mod p, so rank U = n − r and B is a basis of
      ker U ∩ Zⁿ; and min ‖b*_i‖² > n (Gram–Schmidt), so ker U has no nonzero
      vector of squared length ≤ n, in particular no 0/1 (nor 0/±1) vector.
    * ``{"method": "lattice-enum", "p", "basis", "inverse", "rank_rows",
      "rank_cols", "nodes"}``: the lattice fields without the Gram–Schmidt
      bound; the checker enumerates the ball around the projection of ½·1
      exactly, within ``nodes`` nodes, and finds no 0/1 kernel vector.
    * ``{"method": "enumerate", "p", "rows"}``: the kernel of the listed rows
      of U mod p has dimension r ≤ 22; the checker enumerates its 2^r
      candidate 0/1 points and checks that none is a flip set.
    * ``{"method": "mitm", "n"}``: n ≤ 44; the checker re-runs its own meet
      in the middle.
    * found: ``{"flip_set": [indices]}``.

    The lattice bound is Ramakrishnan's Proposition 24 condition for the
    joint matrix (no β ∈ {0, ±1}ⁿ∖0 with Σ β(i) m_i a_iᵀ = 0), strictly
    stronger than "no flip set".

    References
    ----------
    Ramakrishnan 2026, Proposition 24 and Theorem 5.

    Examples
    --------
    >>> theta = Shallow.make([1, 1], [[1], [1]], [0, 1], [0])   # σ(x) + σ(x + 1)
    >>> r = find_flip_set(theta)
    >>> r.outcome.value, r.method
    ('none', 'separation')
    >>> theta = Shallow.make([2, -1], [[1], [2]], [0, 1], [0])
    >>> sorted(find_flip_set(theta).flip_set)
    [0, 1]
    """
    theta = check_theta(theta)
    timeout = check_timeout(timeout)
    if method not in METHODS:
        raise InvalidArgument(f"unknown flip-set method {method!r}; expected one of {METHODS}")
    if encoding not in ("pb", "int", "real"):
        raise InvalidArgument(f"unknown z3 encoding {encoding!r}")
    clock = Clock(timeout)
    bar = Progress(progress)
    try:
        return _search(Problem(theta, seed), method, clock, bar, seed, encoding)
    finally:
        bar.close()


def _search(prob: Problem, method: str, clock: Clock, bar: Progress, seed: int, encoding: str) -> FlipSetResult:
    n = prob.n
    stats: list[tuple[str, float, str]] = []
    reasons: list[list] = []           # [method, why] for each method that gave up
    solver_info = None

    def run(name, fn):
        _report(f"flip sets: {name}")
        t0 = time.perf_counter()
        try:
            out = fn()
        except SearchTimeout:
            stats.append((name, time.perf_counter() - t0, "timeout"))
            raise
        except ArithmeticError as e:  # LLL failed to separate, etc.: the method gives up
            out = gave_up(Reason(ReasonCode.METHOD_ERROR, {"error": str(e)}))
        stats.append((name, time.perf_counter() - t0, out.outcome.value))
        if out.outcome is Outcome.UNKNOWN and out.reason:
            reasons.append([name, out.reason])
        return out

    def finish(name, out):
        return FlipSetResult(out.outcome, out.flip_set, out.evidence or {}, name, out.solver,
                             None, tuple(stats))

    try:
        if n == 0:
            return FlipSetResult(Outcome.NONE, None, {"method": FlipSetMethod.RANK, "p": prob.prime(), "rows": []},
                                 FlipSetMethod.RANK, stats=((FlipSetMethod.RANK, 0.0, Outcome.NONE.value),))
        if method in ("auto", "sub"):
            out = run(FlipSearchStep.SCREEN, lambda: screen(prob, clock))
            if out.outcome is Outcome.FOUND:
                return finish(FlipSearchStep.SCREEN, out)
        if method in ("auto", FlipSetMethod.SEPARATION):
            out = run(FlipSetMethod.SEPARATION, lambda: _separation_within_share(prob, clock, seed))
            if out.outcome is not Outcome.UNKNOWN:
                return finish(FlipSetMethod.SEPARATION, out)
        if method in ("auto", "sub", FlipSetMethod.RANK) and prob.km >= n:
            out = run(FlipSetMethod.RANK, lambda: rank_random(prob, clock))
            if out.outcome is not Outcome.UNKNOWN:
                return finish(FlipSetMethod.RANK, out)
        prof = None
        # past n - km > ENUMERATE_MAX_FREE + 2 and n > LATTICE_MAX_N only z3 could use the profile: when z3's
        # formula (about min(km, n) rows) cannot fit in what is left, neither is computed
        only_z3 = (n - prob.km > ENUMERATE_MAX_FREE + 2 and n > LATTICE_MAX_N
                   and method in ("auto", "sub", FlipSetMethod.Z3))
        no_z3 = refusal(prob, min(prob.km, n), clock, encoding, n - min(prob.km, n)) if only_z3 else None
        if no_z3 is not None:
            stats.append((FlipSetMethod.Z3, 0.0, no_z3.code))
            reasons.append([FlipSetMethod.Z3, no_z3.reason()])
            return FlipSetResult(Outcome.UNKNOWN, reason=Reason(ReasonCode.FLIP_METHODS_GAVE_UP, {"methods": reasons}),
                                 stats=tuple(stats))
        if (method in ("auto", "sub", FlipSetMethod.RANK, FlipSetMethod.LATTICE, FlipSetMethod.ENUMERATE)
                or (method == FlipSetMethod.Z3 and prob.km > 2 * n)):
            t0 = time.perf_counter()
            prof = profile(prob, clock)
            r = n - len(prof.rows)
            stats.append((FlipSearchStep.RANK_PROFILE, time.perf_counter() - t0, f"kernel dimension {r} mod {prof.p}"))
            if r == 0 and method in ("auto", "sub", FlipSetMethod.RANK):
                return finish(FlipSetMethod.RANK,
                              none({"method": FlipSetMethod.RANK, "p": prof.p, "rows": list(prof.rows)}))
            if method == FlipSetMethod.RANK:
                reasons.append([FlipSetMethod.RANK, Reason(ReasonCode.FLIP_RANK_DEFICIENT, {"rank": n - r, "n": n,
                                                                                           "p": prof.p})])
        if method in ("auto", "sub", FlipSetMethod.LATTICE) and n <= LATTICE_MAX_N:
            out = run(FlipSetMethod.LATTICE, lambda: lattice(prob, prof, clock))
            if out.outcome is not Outcome.UNKNOWN:
                return finish(FlipSetMethod.LATTICE, out)
        elif method == FlipSetMethod.LATTICE:
            reasons.append([FlipSetMethod.LATTICE, Reason(ReasonCode.FLIP_LATTICE_TOO_LARGE, {"n": n,
                                                                                              "limit": LATTICE_MAX_N})])
        if method in ("auto", "sub", FlipSetMethod.ENUMERATE):
            out = run(FlipSetMethod.ENUMERATE, lambda: enumerate_kernel(prob, prof, clock, bar))
            if out.outcome is not Outcome.UNKNOWN:
                return finish(FlipSetMethod.ENUMERATE, out)
        if method in ("auto", "sub", FlipSetMethod.MITM):
            out = run(FlipSetMethod.MITM, lambda: mitm(prob, clock, bar))
            if out.outcome is not Outcome.UNKNOWN:
                return finish(FlipSetMethod.MITM, out)
        if method in ("auto", FlipSetMethod.Z3):
            out = run(FlipSetMethod.Z3, lambda: solve(prob, prof, clock, seed, encoding))
            solver_info = out.solver
            if out.outcome is not Outcome.UNKNOWN:
                return finish(FlipSetMethod.Z3, out)
    except SearchTimeout as t:
        return FlipSetResult(Outcome.UNKNOWN, solver=solver_info, stats=tuple(stats),
                             reason=Reason(ReasonCode.FLIP_TIMEOUT, {"method": t.method, "detail": t.detail,
                                                                     **_regime(prob)}))
    return FlipSetResult(Outcome.UNKNOWN, solver=solver_info, stats=tuple(stats),
                         reason=Reason(ReasonCode.FLIP_METHODS_GAVE_UP, {"methods": reasons}))


def separable_probability(n: int, km: int) -> float:
    """Wendel's probability P(Bin(n - 1, 1/2) <= km - 1) that n random symmetric columns in R^km are separable.

    >>> separable_probability(10, 10), round(separable_probability(21, 10), 3)
    (1.0, 0.412)
    """
    if n <= km:
        return 1.0
    lg = math.lgamma
    logs = [lg(n) - lg(j + 1) - lg(n - j) - (n - 1) * math.log(2) for j in range(km)]
    top = max(logs)
    return min(1.0, math.exp(top) * sum(math.exp(v - top) for v in logs))


#: Where n random symmetric columns in R^km are separable with probability below this (Wendel), the
#: separation search gets only :data:`SEPARATION_SHARE` of the time left, and the rest goes to the methods after it.
SEPARATION_UNLIKELY = 1e-3
SEPARATION_SHARE = 0.25


def separation_clock(prob: Problem, clock: Clock) -> Clock:
    """The clock the separation search runs under: ``clock``, or a share of it where separation is unlikely.

    Past n/km ≈ 2 random columns are almost never separable (Gordan: some
    nonzero x ≥ 0 then has Ux = 0), and at n = 16 384, km = 7 840 one L-BFGS
    evaluation takes a sizeable part of a second: without a share the search
    spends the whole budget and the answer names the timeout instead of the
    regime.  A trained network may still be separable there, so the search
    is shortened, not skipped.

    >>> theta = Shallow.make([[1] * 30, [2] * 30], [[i + 1, 1] for i in range(30)], [0] * 30, [0, 0])
    >>> prob, unbounded = Problem(theta, 0), Clock(None)       # n = 30 columns in R^4: P ≈ 7.6e-06
    >>> separation_clock(prob, Clock(60)).remaining() <= 15, separation_clock(prob, unbounded) is unbounded
    (True, True)
    """
    rem = clock.remaining()
    if rem is None or separable_probability(prob.n, prob.km) >= SEPARATION_UNLIKELY:
        return clock
    return Clock(SEPARATION_SHARE * max(rem, 0.0))


def _separation_within_share(prob: Problem, clock: Clock, seed: int) -> MethodResult:
    """:func:`.separation.separation` under :func:`separation_clock`; running past its share gives up, not a timeout."""
    own = separation_clock(prob, clock)
    try:
        return separation(prob, own, seed, split=lambda rest: _split_rest(prob, rest, clock, seed))
    except SearchTimeout as t:
        if own is clock:
            raise
        return gave_up(Reason(ReasonCode.FLIP_SEPARATION_SHARE, {"share": SEPARATION_SHARE, "detail": t.detail,
                                                                  "n": prob.n, "km": prob.km,
                                                                  "separable": separable_probability(prob.n, prob.km)}))


def _regime(prob: Problem) -> dict:
    """The regime of a wide network, for reasons: n, km and Wendel's chance that separation can work there."""
    n, km = prob.n, prob.km
    return {"n": n, "km": km, "separable": separable_probability(n, km) if n > km else None}


def _split_rest(prob: Problem, rest: list[int], clock: Clock, seed: int) -> MethodResult:
    """A certificate for the subnetwork on the neurons ``rest`` (every method but separation and z3)."""
    t = prob.theta
    sub = Shallow(tuple(tuple(row[i] for i in rest) for row in t.M), tuple(t.A[i] for i in rest),
                  tuple(t.b[i] for i in rest), t.c, t.m)
    res = _search(Problem(sub, seed), "sub", clock, Progress(False), seed, "pb")
    return MethodResult(res.outcome, dict(res.evidence) if res.outcome is Outcome.NONE else None, res.flip_set,
                        res.reason)


@dataclass(frozen=True, slots=True)
class FlipSetEnumeration:
    """Every nonempty flip set of θ, and the search that found them all (re-run by the checker).

    ``evidence`` is an ``enumerate`` or ``mitm`` certificate in the format of
    :func:`find_flip_set`: the search it names meets every flip set.
    """

    flip_sets: tuple[frozenset, ...]
    evidence: Mapping[str, Any]

    def __post_init__(self):
        object.__setattr__(self, "evidence", freeze(self.evidence))


def enumerate_flip_sets(theta, *, limit: int | None = None, timeout: float | None = None) -> FlipSetEnumeration | None:
    """Every nonempty flip set of θ with a re-checkable record of the search, or None when not feasible.

    Feasible when the kernel of U mod p has dimension ≤ ``ENUMERATE_MAX_FREE``
    (enumeration) or n ≤ ``MITM_MAX_N`` (meet in the middle); None also when
    more than ``limit`` flip sets are found or ``timeout`` runs out.

    Examples
    --------
    >>> theta = Shallow.make([1, -1, 1, -1], [[1], [1], [2], [2]], [0, 1, 2, 3], [0])
    >>> e = enumerate_flip_sets(theta)
    >>> [sorted(F) for F in e.flip_sets], e.evidence["method"]
    ([[0, 1], [2, 3], [0, 1, 2, 3]], 'enumerate')
    """
    theta = check_theta(theta)
    limit = check_limit(limit)
    clock = Clock(check_timeout(timeout))
    prob = Problem(theta)
    found: list[frozenset] = []

    def add(F):
        if prob.is_flip(F):
            found.append(F)
            if limit is not None and len(found) > limit:
                raise SearchTimeout("limit", "")

    try:
        if prob.n == 0:
            return FlipSetEnumeration((), {"method": FlipSetMethod.MITM, "n": 0})
        prof = profile(prob, clock)
        if prof.coeff is not None:
            for F in kernel_candidates(prof, clock, Progress(False), "count"):
                add(F)
            evidence = {"method": FlipSetMethod.ENUMERATE, "p": prof.p, "rows": list(prof.rows)}
        elif prob.n <= MITM_MAX_N:
            for F in mitm_hits(prob, clock, Progress(False)):
                add(F)
            evidence = {"method": FlipSetMethod.MITM, "n": prob.n}
        else:
            return None
    except (SearchTimeout, ArithmeticError):
        return None
    return FlipSetEnumeration(tuple(sorted(set(found), key=lambda F: (len(F), sorted(F)))), evidence)


def all_flip_sets(theta, *, limit: int | None = None, timeout: float | None = None) -> tuple[frozenset, ...] | None:
    """Every nonempty flip set of θ, or None when that is not feasible.

    Parameters
    ----------
    theta : Shallow or Network
    limit : int, optional, keyword-only
        Give up (return None) once more than ``limit`` flip sets were found.
    timeout : float, optional, keyword-only
        Seconds; None on expiry.

    Returns
    -------
    tuple of frozenset or None
        Sorted by size, then lexicographically.  Feasible when the kernel of U
        mod p has dimension ≤ 22 (enumeration), when n ≤ 44 (meet in the
        middle), or when the lattice bound shows there are none.

    Examples
    --------
    >>> theta = Shallow.make([1, -1, 1, -1], [[1], [1], [2], [2]], [0, 1, 2, 3], [0])
    >>> [sorted(F) for F in all_flip_sets(theta)]
    [[0, 1], [2, 3], [0, 1, 2, 3]]
    """
    enum = enumerate_flip_sets(theta, limit=limit, timeout=timeout)
    if enum is not None:
        return enum.flip_sets
    theta = check_theta(theta)
    if theta.n > LATTICE_MAX_N:
        return None
    try:
        prob = Problem(theta)
        clock = Clock(check_timeout(timeout))
        if lattice(prob, profile(prob, clock), clock).outcome is Outcome.NONE:
            return ()
    except (SearchTimeout, ArithmeticError):
        pass
    return None


def count_flip_sets(theta, *, limit: int | None = None, timeout: float | None = None) -> int | None:
    """The number of flip sets of θ counting ∅, or None when not feasible.

    On the generic stratum this is the number of H_n-orbits in the fibre of θ
    (docs/mathematics.md §2: the fibre is the disjoint union of the orbits of θ_F).

    Parameters
    ----------
    theta : Shallow or Network
    limit : int, optional, keyword-only
        Give up (None) when there are more than ``limit`` nonempty flip sets.
    timeout : float, optional, keyword-only

    Examples
    --------
    >>> theta = Shallow.make([1, -1, 1, -1], [[1], [1], [2], [2]], [0, 1, 2, 3], [0])
    >>> count_flip_sets(theta)
    4
    """
    sets = all_flip_sets(theta, limit=limit, timeout=timeout)
    return None if sets is None else len(sets) + 1
