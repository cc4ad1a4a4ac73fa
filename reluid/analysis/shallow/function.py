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

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from reluid.errors import IncompatibleNetworks
from reluid.model.network import Network, Shallow
from reluid.model.rational import gc_paused, primitive_ray

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


@gc_paused()
def function_data(theta: Shallow | Network) -> FunctionData:
    """Compute the exact :class:`FunctionData` of a shallow network.

    Kinks are keyed by the canonical integer row of :func:`canonical_row`.
    The linear part is accumulated as integer sums grouped by denominator, so
    the cost is dominated by one integer normalisation per neuron.

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
    m, k, n = theta.m, theta.k, theta.n
    kinks: dict[tuple[int, ...], list[Fraction]] = {}
    c = list(theta.c)
    neg: dict[int, list[list[int]]] = {}   # denominator -> k rows of m+1 integer sums of w·r
    cols = list(zip(*theta.M)) if k else [()] * n
    for i in range(n):
        mi = cols[i]
        if not any(mi):
            continue
        a, b = theta.A[i], theta.b[i]
        cr = canonical_row(a, b)
        if cr is None:  # constant neuron: m_i σ(b_i)
            if b > 0:
                for j in range(k):
                    c[j] += mi[j] * b
            continue
        r, lam = cr
        s = abs(lam)
        w = [s * x for x in mi]
        acc = kinks.get(r)
        if acc is None:
            kinks[r] = w
        else:
            for j in range(k):
                acc[j] += w[j]
        if lam < 0:  # |λ| m σ(−z) = |λ| m σ(z) − |λ| m z
            for j in range(k):
                wj = w[j]
                if wj:
                    rows = neg.get(wj.denominator)
                    if rows is None:
                        rows = neg[wj.denominator] = [[0] * (m + 1) for _ in range(k)]
                    row, num = rows[j], wj.numerator
                    for l in range(m + 1):
                        if r[l]:
                            row[l] += num * r[l]
    L = [[Fraction(0)] * m for _ in range(k)]
    for den, rows in neg.items():
        for j in range(k):
            for l in range(m):
                if rows[j][l]:
                    L[j][l] -= Fraction(rows[j][l], den)
            if rows[j][m]:
                c[j] -= Fraction(rows[j][m], den)
    return FunctionData(m, k, {r: tuple(K) for r, K in kinks.items() if any(K)},
                        tuple(tuple(row) for row in L), tuple(c))


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
    reason : str
    first_difference : int or None
        Deep networks in different orbits: the first layer map (1-based; the
        depth means the output layer) whose canonical rows cannot be matched.
    method : str
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
    reason: str = ""
    first_difference: int | None = None
    method: str = "function data"
    regions: int | None = None


def _shallow(x) -> Shallow:
    return x.shallow() if isinstance(x, Network) else x


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

    References
    ----------
    Ramakrishnan 2026, Theorems 3 and 4 (via docs/mathematics.md §1).
    """
    from reluid.analysis.shallow.orbit import same_orbit

    t1, t2 = _shallow(theta1), _shallow(theta2)
    if (t1.m, t1.k) != (t2.m, t2.k):
        raise IncompatibleNetworks((t1.m, t1.n, t1.k), (t2.m, t2.n, t2.k))
    f1, f2 = function_data(t1), function_data(t2)
    if f1 == f2:
        g = same_orbit(t1, t2) if t1.n == t2.n else None
        return Equivalence(True, same_orbit=g is not None, orbit=g,
                           reason="same kinks, linear part and constant")
    x = distinguishing_input(f1, f2, seed=seed)
    y1, y2 = t1(x), t2(x)
    assert y1 != y2, "internal error: distinguishing input does not distinguish"
    return Equivalence(False, input=x, outputs=(y1, y2), same_orbit=False,
                       reason="function data differ")


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
