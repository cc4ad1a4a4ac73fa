"""Orbits of H_n = permutations · positive scalings on Ω(m, n, k).

Each hidden neuron (m_i, a_i, b_i) is brought to a normal form by the positive
scaling that makes the first nonzero entry of (a_i, b_i) equal to ±1 (or, when
(a_i, b_i) = 0, the first nonzero entry of m_i equal to ±1); the neurons are
then sorted.  Two parameters are in the same orbit iff their canonical forms
are equal (Ramakrishnan 2026, §2.1; the H_n-action h·θ = (M h⁻¹, hA, hb, c)).
"""

from __future__ import annotations

from fractions import Fraction

from reluid.errors import InvalidArgument
from reluid.model.network import Network, Shallow
from reluid.model.symmetry import GroupElement

__all__ = ["canonical_form", "is_canonical", "same_orbit", "neuron_key"]


def _first_abs(v) -> Fraction | None:
    for x in v:
        if x:
            return abs(x)
    return None


def _neuron(theta: Shallow, i: int):
    """(key, λ): the neuron after the positive scaling λ that normalises it.

    Scaling by λ multiplies (a_i, b_i) by λ and divides m_i by λ.
    """
    row = theta.A[i] + (theta.b[i],)
    out = theta.out(i)
    t = _first_abs(row)
    if t is not None:
        lam = 1 / t
    else:
        t = _first_abs(out)
        lam = Fraction(1) if t is None else t
    if lam == 1:
        return (row, out), lam
    return (tuple(x * lam for x in row), tuple(x / lam for x in out)), lam


def neuron_key(theta: Shallow, i: int):
    """The orbit-normalised (row, output) of neuron i."""
    return _neuron(theta, i)[0]


def canonical_form(theta: Shallow | Network) -> tuple[Shallow, GroupElement]:
    """Canonical representative of the H_n-orbit of θ and g with g·θ = canonical.

    Returns
    -------
    (Shallow, GroupElement)

    Examples
    --------
    >>> from reluid.model import Shallow
    >>> t = Shallow.make([6, 1], [[2], [-1]], [4, 0], [0])
    >>> canon, g = canonical_form(t)
    >>> g.act(t) == canon, canon.A, canon.M
    (True, ((Fraction(-1, 1),), (Fraction(1, 1),)), ((Fraction(1, 1), Fraction(12, 1)),))
    """
    if isinstance(theta, Network):
        theta = theta.shallow()
    n, m = theta.n, theta.m
    keyed = []
    for i in range(n):
        key, s = _neuron(theta, i)
        keyed.append((key, i, s))
    keyed.sort(key=lambda t: t[0])
    perm = [0] * n
    scale = [Fraction(1)] * n
    for pos, (key, i, s) in enumerate(keyed):
        perm[i] = pos
        scale[i] = s
    g = GroupElement(tuple(perm), tuple(scale))
    A = tuple(k[0][:m] for k, _, _ in keyed)
    b = tuple(k[0][m] for k, _, _ in keyed)
    M = tuple(tuple(k[1][j] for k, _, _ in keyed) for j in range(theta.k))
    return Shallow(M, A, b, theta.c, m), g


def is_canonical(theta: Shallow | Network) -> bool:
    """True iff θ equals its own canonical form."""
    if isinstance(theta, Network):
        theta = theta.shallow()
    return canonical_form(theta)[0] == theta


def same_orbit(theta1: Shallow | Network, theta2: Shallow | Network) -> GroupElement | None:
    """g ∈ H_n with g·θ1 = θ2, or None when θ2 ∉ H_n·θ1.

    Examples
    --------
    >>> from reluid.model import Shallow
    >>> t1 = Shallow.make([1, 2], [[1], [3]], [0, 1], [0])
    >>> t2 = Shallow.make([6, 1], [[1], [1]], [Fraction(1, 3), 0], [0])
    >>> g = same_orbit(t1, t2); g.act(t1) == t2
    True
    """
    t1 = theta1.shallow() if isinstance(theta1, Network) else theta1
    t2 = theta2.shallow() if isinstance(theta2, Network) else theta2
    if (t1.m, t1.n, t1.k) != (t2.m, t2.n, t2.k):
        if (t1.m, t1.k) != (t2.m, t2.k):
            raise InvalidArgument("networks of different input/output sizes")
        return None
    c1, g1 = canonical_form(t1)
    c2, g2 = canonical_form(t2)
    if c1 != c2:
        return None
    g = g2.inverse().compose(g1)
    return g
