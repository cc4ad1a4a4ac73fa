"""Orbits of H_n = permutations · positive scalings on Ω(m, n, k).

A neuron (m_i, a_i, b_i) with (a_i, b_i) = s·p, p a primitive integer vector
and s > 0, is brought by the positive scaling 1/s to (s·m_i, p): its *orbit
key* records p and s·m_i (as integers).  A neuron with zero row is normalised through its
output ray instead, and a zero neuron has the key ("zero",).  Two parameters
are in the same orbit iff they have the same output bias and the same
multiset of keys (Ramakrishnan 2026, §2.1: h·θ = (M h⁻¹, hA, hb, c)); the
canonical representative lists the normalised neurons in sorted order.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

from reluid.errors import InvalidArgument
from reluid.model.network import Network, Shallow
from reluid.model.rational import coprime_fractions, gc_paused, primitive_ray
from reluid.model.symmetry import GroupElement

__all__ = ["canonical_form", "is_canonical", "same_orbit", "neuron_key", "orbit_keys"]

_ONE = Fraction(1)


def _key(row, out):
    """(key, λ): the orbit key of one neuron and the positive scaling λ that normalises it.

    Scaling by λ multiplies (a_i, b_i) by λ and divides m_i by λ.  With
    (a_i, b_i) = s·p and m_i = s_o·p_o (primitive integer vectors, s, s_o > 0),
    the normalised neuron is (p, (s·s_o)·p_o); the key stores it with integers
    only, so that hashing and sorting stay fast.
    """
    ray = primitive_ray(row)
    oray = primitive_ray(out)
    if ray is not None:
        p, s = ray
        if oray is None:
            return (0, p, None, None), 1 / s
        q = s * oray[1]
        return (0, p, oray[0], (q.numerator, q.denominator)), 1 / s
    if oray is not None:
        return (1, oray[0]), oray[1]
    return (2,), _ONE


def orbit_keys(theta: Shallow):
    """Per neuron: (key, λ) with λ > 0 the normalising scaling (see module docstring)."""
    cols = list(zip(*theta.M)) if theta.k else [()] * theta.n
    return [_key(theta.A[i] + (theta.b[i],), cols[i]) for i in range(theta.n)]


def neuron_key(theta: Shallow, i: int):
    """The orbit key of neuron i."""
    return _key(theta.row(i), theta.out(i))[0]


def _normalised(key, m, k):
    """The (row, out) of a normalised neuron with this key."""
    zero = Fraction(0)
    if key[0] == 0:
        _, p, po, q = key
        out = (zero,) * k if po is None else tuple(Fraction(q[0] * x, q[1]) for x in po)
        return tuple(Fraction(x) for x in p), out
    if key[0] == 1:
        return (zero,) * (m + 1), tuple(Fraction(x) for x in key[1])
    return (zero,) * (m + 1), (zero,) * k


@gc_paused()
def canonical_form(theta: Shallow | Network) -> tuple[Shallow, GroupElement]:
    """Canonical representative of the H_n-orbit of θ and g with g·θ = canonical.

    Each neuron is scaled so that (a_i, b_i) is a primitive integer vector (or,
    if that row is zero, so that m_i is), and the neurons are sorted.

    Examples
    --------
    >>> from reluid.model import Shallow
    >>> t = Shallow.make([6, 1], [[2], [-1]], [4, 0], [0])
    >>> canon, g = canonical_form(t)
    >>> g.act(t) == canon, canon.A, canon.b, canon.M
    (True, ((Fraction(-1, 1),), (Fraction(1, 1),)), (Fraction(0, 1), Fraction(2, 1)), ((Fraction(1, 1), Fraction(12, 1)),))
    """
    if isinstance(theta, Network):
        theta = theta.shallow()
    n, m, k = theta.n, theta.m, theta.k
    keyed = sorted(((key, i, lam) for i, (key, lam) in enumerate(orbit_keys(theta))), key=lambda t: t[0])
    perm = [0] * n
    scale = [_ONE] * n
    neurons = []
    for pos, (key, i, lam) in enumerate(keyed):
        perm[i] = pos
        scale[i] = lam
        neurons.append(_normalised(key, m, k))
    g = GroupElement(tuple(perm), tuple(scale))
    A = tuple(r[:m] for r, _ in neurons)
    b = tuple(r[m] for r, _ in neurons)
    M = tuple(tuple(o[j] for _, o in neurons) for j in range(k))
    return Shallow(M, A, b, theta.c, m), g


def is_canonical(theta: Shallow | Network) -> bool:
    """True iff θ equals its own canonical form."""
    if isinstance(theta, Network):
        theta = theta.shallow()
    return canonical_form(theta)[0] == theta


@gc_paused()
def same_orbit(theta1: Shallow | Network, theta2: Shallow | Network, _rays=None) -> GroupElement | None:
    """g ∈ H_n with g·θ1 = θ2, or None when θ2 ∉ H_n·θ1 (O(n) with hashing).

    Neurons are matched by their normalised form (p, s·m_i), (a_i, b_i) = s·p,
    read off one integer pass (:func:`~.function.neuron_rays`; ``_rays`` may
    pass both networks' rays when the caller has them); a network with a zero
    row goes through the orbit keys of :func:`orbit_keys` instead.

    Examples
    --------
    >>> from reluid.model import Shallow
    >>> t1 = Shallow.make([1, 2], [[1], [3]], [0, 1], [0])
    >>> t2 = Shallow.make([6, 1], [[1], [1]], [Fraction(1, 3), 0], [0])
    >>> g = same_orbit(t1, t2); g.act(t1) == t2
    True
    """
    from reluid.analysis.shallow.function import neuron_rays

    t1 = theta1.shallow() if isinstance(theta1, Network) else theta1
    t2 = theta2.shallow() if isinstance(theta2, Network) else theta2
    if (t1.m, t1.k) != (t2.m, t2.k):
        raise InvalidArgument("networks of different input/output sizes")
    if t1.n != t2.n or t1.c != t2.c:
        return None
    (R1, W1), (R2, W2) = _rays if _rays is not None else (neuron_rays(t1), neuron_rays(t2))
    if None in R1 or None in R2:
        return _same_orbit_keys(t1, t2)
    slots: dict = {}
    add = slots.setdefault
    for j, (ray, w) in enumerate(zip(R2, W2)):
        add((ray[0], w), []).append(j)
    perm, nums, dens = [0] * t1.n, [0] * t1.n, [0] * t1.n
    gcd = math.gcd
    for i, (ray, w) in enumerate(zip(R1, W1)):
        bucket = slots.get((ray[0], w))
        if not bucket:
            return None
        j = bucket.pop()
        _, g2, D2 = R2[j]
        num, den = g2 * ray[2], D2 * ray[1]      # (a_j, b_j)/(a_i, b_i) = (g2/D2)/(g1/D1) > 0
        h = gcd(num, den)
        perm[i], nums[i], dens[i] = j, num // h, den // h
    return GroupElement(tuple(perm), tuple(coprime_fractions(nums, dens)))


def _same_orbit_keys(t1: Shallow, t2: Shallow) -> GroupElement | None:
    """:func:`same_orbit` through the orbit keys (any neurons, zero rows included)."""
    slots = defaultdict(list)
    for j, (key, lam) in enumerate(orbit_keys(t2)):
        slots[key].append((j, lam))
    perm, scale = [0] * t1.n, [_ONE] * t1.n
    for i, (key, lam) in enumerate(orbit_keys(t1)):
        bucket = slots.get(key)
        if not bucket:
            return None
        j, lam2 = bucket.pop()
        perm[i], scale[i] = j, lam / lam2      # normalise θ1's neuron, then undo θ2's normalisation
    return GroupElement(tuple(perm), tuple(scale))
