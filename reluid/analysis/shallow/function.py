"""Exact function data of a shallow network and the equivalence decision.

Because σ(−z) = σ(z) − z, every shallow network can be rewritten as

    ρ(θ)(x) = Σ_r K_r σ(r·(x, 1)) + L x + c̄

over canonical rows r = (a_r, b_r) (primitive integer vectors, a-part starting positive),
with K_r = Σ_{i∈r} |λ_i| m_i when (a_i, b_i) = λ_i r.  The functions
σ(r·(x, 1)) for distinct canonical r are linearly independent modulo affine
maps, so ρ(θ) = ρ(θ′) iff the data {(r, K_r) : K_r ≠ 0}, L and c̄ coincide.
This is Theorems 3 and 4 of Ramakrishnan (2026) as an algorithm (docs/mathematics.md
§1): exact, O(n log n) with hashing.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from operator import mul
from typing import Mapping

from reluid.errors import IncompatibleNetworks
from reluid.model.network import Network, Shallow
from reluid.model.rational import FAST_FRACTIONS, coprime_fractions, gc_paused, primitive_ray
from reluid.verdicts import EquivalenceMethod, Reason, ReasonCode

__all__ = ["FunctionData", "function_data", "canonical_row", "Equivalence", "equivalent",
           "distinguishing_input"]

Vec = tuple[Fraction, ...]


def canonical_row(a: Vec, b: Fraction) -> tuple[tuple[int, ...], Fraction] | None:
    """``(r, λ)`` with (a, b) = λ·r, r a primitive integer vector whose a-part starts positive.

    This is the canonical representative of the hyperplane {a·x + b = 0}
    (with its two orientations identified).  Returns None when a = 0 (a
    constant neuron has no hyperplane).

    Examples
    --------
    >>> canonical_row((Fraction(-2), Fraction(4)), Fraction(6))
    ((1, -2, -3), Fraction(-2, 1))
    """
    ray = primitive_ray(tuple(a) + (b,))
    if ray is None:
        return None
    p, s = ray
    for x in p[:-1]:
        if x:
            if x > 0:
                return p, s
            return tuple(-v for v in p), -s
    return None


@dataclass(frozen=True, slots=True)
class FunctionData:
    """The exact normal form of ρ(θ): kinks {r: K_r ≠ 0}, linear part L (k × m), constant c̄.

    Two shallow networks with the same input and output sizes compute the
    same function iff their ``FunctionData`` are equal.
    """

    m: int
    k: int
    kinks: Mapping[tuple[int, ...], Vec]   # canonical integer row -> K_r ∈ Q^k (nonzero)
    linear: tuple[Vec, ...]      # L, k × m
    constant: Vec                # c̄ ∈ Q^k

    def __hash__(self):
        return hash((self.m, self.k, frozenset(self.kinks.items()), self.linear, self.constant))

    def __eq__(self, other):
        if not isinstance(other, FunctionData):
            return NotImplemented
        return (self.m, self.k, self.linear, self.constant) == (other.m, other.k, other.linear, other.constant) \
            and dict(self.kinks) == dict(other.kinks)

    @property
    def n_kinks(self) -> int:
        return len(self.kinks)

    def __call__(self, x) -> Vec:
        """Evaluate Σ K_r σ(r·(x,1)) + L x + c̄ exactly."""
        out = list(self.constant)
        for j in range(self.k):
            out[j] += sum((l * xi for l, xi in zip(self.linear[j], x)), Fraction(0))
        for r, K in self.kinks.items():
            z = sum((ri * xi for ri, xi in zip(r, x)), r[-1])
            if z > 0:
                for j in range(self.k):
                    out[j] += K[j] * z
        return tuple(out)


def _parts(row):
    """(numerators, denominators) of a row of Fractions (the slots where the probe allows)."""
    if FAST_FRACTIONS:
        return [x._numerator for x in row], [x._denominator for x in row]
    return [x.numerator for x in row], [x.denominator for x in row]  # pragma: no cover


def _reduced(num: int, den: int) -> tuple[int, int]:
    g = math.gcd(num, den)
    return (num // g, den // g) if g != 1 else (num, den)


@gc_paused()
def neuron_rays(theta: Shallow):
    """One integer pass over θ, shared by the function data, the orbit matching and the minimal form.

    Returns (R, W): R[i] = (p, g, D) with (a_i, b_i) = (g/D)·p, p a primitive
    integer vector (signs kept), or None for a zero row; W[i] = (g/D)·m_i as
    reduced integer pairs (num, den), or None for a zero row.  (p, W[i]) is
    the neuron normalised by the positive scaling D/g.
    """
    R, W = [], []
    lcm, gcd = math.lcm, math.gcd
    cols = list(zip(*theta.M)) if theta.k else [()] * theta.n
    fast = FAST_FRACTIONS
    for row, bi, col in zip(theta.A, theta.b, cols):
        row = row + (bi,)
        if fast:         # the reduced numerator and denominator, read from the slots (probed)
            D = lcm(*[x._denominator for x in row])
            z = [x._numerator * (D // x._denominator) for x in row]
        else:  # pragma: no cover - depends on the Python implementation
            D = lcm(*[x.denominator for x in row])
            z = [x.numerator * (D // x.denominator) for x in row]
        g = gcd(*z)
        if not g:
            R.append(None)
            W.append(None)
            continue
        R.append((tuple(z) if g == 1 else tuple([v // g for v in z]), g, D))
        w = []
        for x in col:
            if fast:
                num, den = x._numerator * g, x._denominator * D
            else:  # pragma: no cover
                num, den = x.numerator * g, x.denominator * D
            h = gcd(num, den)
            w.append((num // h, den // h) if h != 1 else (num, den))
        W.append(tuple(w))
    return R, W


@gc_paused()
def function_data(theta: Shallow | Network, _rays=None) -> FunctionData:
    """Compute the exact :class:`FunctionData` of a shallow network.

    Kinks are keyed by the canonical integer row of :func:`canonical_row`.
    One integer pass (:func:`neuron_rays`) gives every neuron's primitive ray
    p and its scaled output |λ| m_i as reduced integer pairs; kinks and the
    linear part are summed as integers grouped by denominator, and Fractions
    are built only for the result.

    References
    ----------
    Ramakrishnan 2026, Theorems 3 and 4; docs/mathematics.md §1.

    Examples
    --------
    >>> from reluid.model import Shallow
    >>> fd = function_data(Shallow.make([1, -1], [[1], [-1]], [0, 0], [0]))  # σ(x) − σ(−x) = x
    >>> fd.n_kinks, fd.linear
    (0, ((Fraction(1, 1),),))
    """
    if isinstance(theta, Network):
        theta = theta.shallow()
    kinks, L, c = _function_parts(theta, neuron_rays(theta) if _rays is None else _rays)
    return FunctionData(theta.m, theta.k, {r: tuple(coprime_fractions(*zip(*K))) for r, K in kinks.items()}, L, c)


@gc_paused()
def _function_parts(theta: Shallow, rays):
    """(kinks, L, c̄) of :func:`function_data`, each K_r as reduced integer pairs (canonical, so comparable)."""
    m, k = theta.m, theta.k
    R, W = rays
    acc: dict[tuple[int, ...], list] = {}
    c = list(theta.c)
    cols = None
    negs: dict[tuple[int, int], tuple[list[int], list[tuple[int, ...]]]] = {}   # (j, den) -> (nums, rows r)
    zero = ((0, 1),) * k                   # a zero output as reduced pairs
    for i, (ray, w) in enumerate(zip(R, W)):
        if ray is None or w == zero:
            continue                       # a zero row computes 0; a dead output contributes nothing
        p = ray[0]
        first = p[0]
        if not first:
            first = next((v for v in p[:m] if v), 0)
        if not first:                      # constant neuron: m_i σ(b_i)
            if p[m] > 0:
                cols = cols or list(zip(*theta.M))
                b = theta.b[i]
                for j in range(k):
                    c[j] += cols[i][j] * b
            continue
        r = p if first > 0 else tuple([-v for v in p])
        a = acc.get(r)
        if a is None:
            acc[r] = [w]
        else:
            a.append(w)
        if first < 0:                      # |λ| m σ(−z) = |λ| m σ(z) − |λ| m z
            for j in range(k):
                num, den = w[j]
                if num:
                    slot = negs.get((j, den))
                    if slot is None:
                        negs[(j, den)] = ([num], [r])
                    else:
                        slot[0].append(num)
                        slot[1].append(r)
    kinks = {}
    for r, ws in acc.items():
        if len(ws) == 1:
            K = ws[0]
        else:
            K = []
            for j in range(k):
                den = math.lcm(*[w[j][1] for w in ws])
                K.append(_reduced(sum(w[j][0] * (den // w[j][1]) for w in ws), den))
        K = tuple(K)
        if K != zero:
            kinks[r] = K
    L = [[Fraction(0)] * m for _ in range(k)]
    for (j, den), (nums, rows) in negs.items():
        for l, col in enumerate(zip(*rows)):     # Σ num·r_l over the neurons of this output and denominator
            total = sum(map(mul, nums, col))
            if total:
                if l < m:
                    L[j][l] -= Fraction(total, den)
                else:
                    c[j] -= Fraction(total, den)
    return kinks, tuple(tuple(row) for row in L), tuple(c)


@dataclass(frozen=True, slots=True)
class Equivalence:
    """Result of :func:`equivalent` (one hidden layer) and of
    :func:`reluid.analysis.deep.equivalence.equivalent` (any depth).

    Attributes
    ----------
    equal : bool or None
        The decision; None (deep networks only) when it could not be made,
        with the reason in ``reason``.
    input, outputs : optional
        When the functions differ: a rational point x and the two exact
        outputs, ``outputs[0] != outputs[1]``.
    same_orbit : bool or None
        Whether the parameters lie in one orbit of the obvious symmetries
        (False when the architectures differ; None when not decided).
    orbit : optional
        When ``same_orbit``: the group element g with g·θ1 = θ2, a
        :class:`~reluid.model.symmetry.GroupElement` for one hidden layer and a
        tuple of them (one per hidden layer, ``act_layers(g, net1) == net2``)
        for deeper networks.
    reason : Reason or None
        How ``equal`` was decided, or why it was not, as data (:mod:`reluid.report.reasons` words it).
    first_difference : int or None
        Deep networks in different orbits: the first layer map (1-based; the
        depth means the output layer) whose canonical rows cannot be matched.
    method : EquivalenceMethod
        How ``equal`` was decided (``"function data"``, ``"orbit"``,
        ``"float search"``, ``"region split"``, ``"z3 search"``, ...).
    regions : int or None
        The number of joint activation regions compared, for the region split.
    """

    equal: bool | None
    input: Vec | None = None
    outputs: tuple[Vec, Vec] | None = None
    same_orbit: bool | None = None
    orbit: object = None
    reason: Reason | None = None
    first_difference: int | None = None
    method: EquivalenceMethod = EquivalenceMethod.FUNCTION_DATA
    regions: int | None = None


def _shallow(x) -> Shallow:
    return x.shallow() if isinstance(x, Network) else x


FAST_DISTINGUISH_MIN_N = 2000
"""From this many neurons (both networks together) the distinguishing input is built with integers."""


def equivalent(theta1: Shallow | Network, theta2: Shallow | Network, *, seed: int = 0) -> Equivalence:
    """Decide ρ(θ1) = ρ(θ2) exactly (hidden widths may differ).

    Parameters
    ----------
    theta1, theta2 : Shallow or Network
        Shallow networks with the same input and output dimensions.
    seed : int
        Seed for choosing the distinguishing point (the choice is checked exactly).

    Returns
    -------
    Equivalence
        With a distinguishing input when different, and the orbit relation when equal.

    Notes
    -----
    One integer pass per network (:func:`neuron_rays`) feeds the function
    data and the orbit matching.  For large networks the distinguishing
    input is built with integers next to the first differing hyperplane and
    both networks are evaluated there exactly once
    (:func:`_distinguishing_by_rays`); small ones keep the Fraction
    construction of :func:`distinguishing_input`.

    References
    ----------
    Ramakrishnan 2026, Theorems 3 and 4 (via docs/mathematics.md §1).
    """
    t1, t2 = _shallow(theta1), _shallow(theta2)
    if (t1.m, t1.k) != (t2.m, t2.k):
        raise IncompatibleNetworks((t1.m, t1.n, t1.k), (t2.m, t2.n, t2.k))
    equal, found = _decide(t1, t2, seed)
    if equal:
        return Equivalence(True, same_orbit=found is not None, orbit=found,
                           reason=Reason(ReasonCode.EQUIV_SAME_FUNCTION_DATA))
    x, y1, y2 = found
    assert y1 != y2, "internal error: distinguishing input does not distinguish"
    return Equivalence(False, input=x, outputs=(y1, y2), same_orbit=False,
                       reason=Reason(ReasonCode.EQUIV_FUNCTION_DATA_DIFFER))


def _dots(R, m: int, X0, D0: int, a):
    """Z_i = p_i·(X0, D0) and S_i = p_i·(a, 0) for every neuron (integer rays, no zero rows)."""
    Z, S = [], []
    for p, _, _ in R:
        pa = p[:m]
        Z.append(sum(map(mul, pa, X0)) + p[m] * D0)
        S.append(sum(map(mul, pa, a)))
    return Z, S


@gc_paused()
def _decide(t1: Shallow, t2: Shallow, seed: int):
    """(True, g or None) or (False, (x, y1, y2)); the rays die before the collector resumes."""
    from reluid.analysis.shallow.orbit import same_orbit

    RW1, RW2 = neuron_rays(t1), neuron_rays(t2)
    p1, p2 = _function_parts(t1, RW1), _function_parts(t2, RW2)
    if p1 == p2:
        return True, (same_orbit(t1, t2, (RW1, RW2)) if t1.n == t2.n else None)
    found = None
    if t1.n + t2.n >= FAST_DISTINGUISH_MIN_N:
        found = _distinguishing_by_rays(t1, t2, RW1[0], RW2[0], p1[0], p2[0], seed=seed)
    if found is None:
        x = distinguishing_input(function_data(t1, RW1), function_data(t2, RW2), seed=seed)
        found = (x, t1(x), t2(x))
    return False, found


def _exact_outputs(theta: Shallow, R, Z, S, D0: int, T: int, eps: int) -> Vec:
    """ρ(θ)(x) exactly at x = (T·X0 + ε·D0·a)/(D0·T), from the integer rays and :func:`_dots`.

    With (a_i, b_i) = s_i p_i, s_i = g_i/D_i > 0: a_i·x + b_i = s_i N_i/(D0 T) with
    N_i = T Z_i + ε D0 S_i, so y_j = Σ_i m_ji s_i σ(N_i)/(D0 T) + c_j; the sums
    are integers grouped by the denominator of m_ji s_i.
    """
    N = [T * z + eps * D0 * s for z, s in zip(Z, S)] if eps else [T * z for z in Z]
    out = []
    for j in range(theta.k):
        nums, dens = _parts(theta.M[j])
        acc: dict[int, int] = defaultdict(int)
        for (_, g, D), v, num, den in zip(R, N, nums, dens):
            if v > 0 and num:
                acc[den * D] += num * g * v
        total = sum((Fraction(v, den) for den, v in acc.items()), Fraction(0))
        out.append(total / (D0 * T) + theta.c[j])
    return tuple(out)


def _distinguishing_by_rays(t1: Shallow, t2: Shallow, R1, R2, k1, k2, *, seed: int = 0):
    """(x, ρ(θ1)(x), ρ(θ2)(x)) with the outputs different, built with integers; None when it does not apply.

    Same construction as :func:`distinguishing_input` (docs/mathematics.md §1):
    on the first hyperplane H_r whose kinks differ take x0 = X0/D0 with small
    integers (D0 = a_l for the largest |a_l|, one coordinate solved so that
    r·(x0, 1) = 0); every neuron i of both networks gives the integers
    Z_i = p_i·(X0, D0) and S_i = p_i·(a, 0).  If Z_i = 0 for a neuron off H_r
    another x0 is drawn.  With T = 1 + max ⌊D0 |S_i| / |Z_i|⌋ the points
    x0 + ε a/T, ε ∈ {0, 1, −1}, keep every other neuron's sign (T |Z_i| > D0 |S_i|),
    so the second difference is (K_r − K′_r) ‖a‖² / T ≠ 0 and one of the three
    points distinguishes.  Both networks are evaluated there exactly
    (:func:`_exact_outputs`); those outputs are returned, so the check is the
    evaluation itself.
    """
    if None in R1 or None in R2:
        return None
    m = t1.m
    diff = [r for r, K in k1.items() if k2.get(r) != K] + [r for r in k2 if r not in k1]
    if not diff:      # the affine parts differ: the origin or a unit vector distinguishes
        zero = [0] * m
        for X0 in [tuple(zero)] + [tuple(int(t == l) for t in range(m)) for l in range(m)]:
            y1 = _exact_outputs(t1, R1, *_dots(R1, m, X0, 1, zero), 1, 1, 0)
            y2 = _exact_outputs(t2, R2, *_dots(R2, m, X0, 1, zero), 1, 1, 0)
            if y1 != y2:
                return tuple(Fraction(v) for v in X0), y1, y2
        return None
    r = min(diff)
    a, b = r[:m], r[m]
    piv = max(range(m), key=lambda l: abs(a[l]))
    neg = tuple(-v for v in r)
    rng = random.Random(seed)
    for _ in range(100):
        y = [rng.randint(-20, 20) for _ in range(m)]
        D0 = a[piv]
        X0 = [v * D0 for v in y]
        X0[piv] = -(b + sum(a[t] * y[t] for t in range(m) if t != piv))
        if D0 < 0:
            D0, X0 = -D0, [-v for v in X0]
        T, dots = 1, []
        for R in (R1, R2):
            Z, S = _dots(R, m, X0, D0, a)
            for (p, _, _), z, s_ in zip(R, Z, S):
                if z == 0:
                    if p != r and p != neg:
                        break              # x0 lies on another hyperplane
                elif s_:
                    q = (D0 * abs(s_)) // abs(z) + 1       # T·|Z_i| > D0·|S_i| for every T ≥ q
                    if q > T:
                        T = q
            else:
                dots.append((Z, S))
                continue
            break
        if len(dots) < 2:
            continue
        for eps in (0, 1, -1):
            y1 = _exact_outputs(t1, R1, *dots[0], D0, T, eps)
            y2 = _exact_outputs(t2, R2, *dots[1], D0, T, eps)
            if y1 != y2:
                return tuple(Fraction(X0[l] * T + eps * D0 * a[l], D0 * T) for l in range(m)), y1, y2
        return None
    return None


def distinguishing_input(f1: FunctionData, f2: FunctionData, *, seed: int = 0) -> Vec:
    """A rational x with f1(x) ≠ f2(x), given f1 ≠ f2 (docs/mathematics.md §1).

    If some kink r has different coefficients, the difference g = f1 − f2 has a
    kink on H_r; at a point x0 ∈ H_r off every other hyperplane, and t small
    enough that x0 ± t a_r stay off the others, the second difference
    g(x0 + t a) + g(x0 − t a) − 2 g(x0) = (K_r − K′_r) t ‖a‖² ≠ 0, so one of the
    three points distinguishes.  Otherwise g is affine and nonzero.
    """
    m = f1.m
    zero = Fraction(0)
    diff_rows = [r for r in set(f1.kinks) | set(f2.kinks)
                 if f1.kinks.get(r) != f2.kinks.get(r)]
    if not diff_rows:
        origin = (zero,) * m
        if f1(origin) != f2(origin):
            return origin
        for l in range(m):
            e = tuple(Fraction(int(t == l)) for t in range(m))
            if f1(e) != f2(e):
                return e
        raise AssertionError("affine parts differ but no unit vector distinguishes them")
    r = tuple(Fraction(x) for x in min(diff_rows))
    a, b = r[:m], r[m]
    others = [s for s in set(f1.kinks) | set(f2.kinks) if s != r]
    rng = random.Random(seed)
    aa = sum(t * t for t in a)
    for attempt in range(1000):
        y = tuple(Fraction(rng.randint(-20, 20), rng.randint(1, 7)) for _ in range(m))
        # project y onto H_r: x0 = y − ((a·y + b)/‖a‖²) a
        s = (sum(ai * yi for ai, yi in zip(a, y)) + b) / aa
        x0 = tuple(yi - s * ai for yi, ai in zip(y, a))
        ok = True
        tmax = None
        for o in others:
            z0 = sum((oi * xi for oi, xi in zip(o, x0)), o[m])
            if z0 == 0:
                ok = False
                break
            slope = sum(oi * ai for oi, ai in zip(o, a))
            if slope:
                t = abs(z0 / slope)
                tmax = t if tmax is None else min(tmax, t)
        if not ok:
            continue
        t = Fraction(1) if tmax is None else tmax / 2
        for cand in (x0, tuple(xi + t * ai for xi, ai in zip(x0, a)), tuple(xi - t * ai for xi, ai in zip(x0, a))):
            if f1(cand) != f2(cand):
                return cand
        raise AssertionError("second difference argument failed")  # pragma: no cover
    raise AssertionError("could not find a generic point on the hyperplane")  # pragma: no cover
