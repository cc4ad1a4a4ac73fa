"""Stabilizers Stab_{H_n}(θ) (Ramakrishnan 2026, Theorem 2 and Corollary 7).

h = (π, λ) fixes θ iff λ_i (a_i, b_i) = (a_π(i), b_π(i)) and m_i / λ_i = m_π(i)
for every i.  Neurons with (m_i, a_i, b_i) = 0 (the n′ *zero neurons*) are
fixed by every permutation and scaling among themselves, giving the factor
H_{n′}.  Any other neuron is fixed only by λ = 1, and i can be sent to j iff
(a_j, b_j) = λ (a_i, b_i) and m_j = m_i / λ for some λ > 0: an equivalence
relation whose classes are the components of the *positive-proportionality
graph*.  Hence Stab_{H_n}(θ) ≅ (Π_C S_{|C|}) × H_{n′}.

Note on the statement.  The paper (Proposition 2, Corollary 7) prints the
generating condition as λ(m_i, a_i, b_i) = (m_j, a_j, b_j); the output weight
scales the other way, m_j = m_i/λ (derived above; docs/mathematics.md §5;
``tests/analysis/shallow/test_algebra.py`` checks both on an example where they differ).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import networkx as nx

from reluid.analysis.shallow.orbit import neuron_key
from reluid.model.network import Network, Shallow
from reluid.model.symmetry import GroupElement

__all__ = ["Stabilizer", "stabilizer"]


@dataclass(frozen=True, slots=True)
class Stabilizer:
    """Stab_{H_n}(θ) ≅ (Π S_{|C|}) × H_{n′}.

    Attributes
    ----------
    zero_neurons : tuple[int, ...]
        The n′ neurons with (m_i, a_i, b_i) = 0 (factor H_{n′}).
    components : tuple[tuple[int, ...], ...]
        Classes of size ≥ 2 of the positive-proportionality graph.
    generators : tuple[GroupElement, ...]
        diag(λ, 1/λ)(i j) generating the finite part.
    """

    n: int
    zero_neurons: tuple[int, ...]
    components: tuple[tuple[int, ...], ...]
    generators: tuple[GroupElement, ...]
    graph: object = None

    @property
    def n_prime(self) -> int:
        return len(self.zero_neurons)

    @property
    def finite_order(self) -> int:
        """|S| = Π |C|! over the components."""
        return math.prod(math.factorial(len(c)) for c in self.components)

    @property
    def is_trivial(self) -> bool:
        return self.n_prime == 0 and not self.components

    def describe(self) -> str:
        parts = []
        if self.components:
            parts.append(" × ".join(f"S_{len(c)}" for c in self.components))
        if self.n_prime:
            parts.append(f"H_{self.n_prime}")
        return " × ".join(parts) if parts else "1 (trivial)"


def _transposition(n, i, j, lam) -> GroupElement:
    """diag(λ, 1/λ)(i j): neuron i goes to j scaled by λ, j to i scaled by 1/λ."""
    perm = list(range(n))
    perm[i], perm[j] = j, i
    scale = [Fraction(1)] * n
    scale[i], scale[j] = lam, 1 / lam
    return GroupElement(tuple(perm), tuple(scale))


def stabilizer(theta: Shallow | Network) -> Stabilizer:
    """Compute Stab_{H_n}(θ) with explicit generators.

    References
    ----------
    Ramakrishnan 2026, Theorem 2, Proposition 2, Corollary 7.

    Examples
    --------
    >>> from reluid.model import Shallow
    >>> st = stabilizer(Shallow.make([2, 1, 0], [[1], [2], [0]], [1, 2, 0], [0]))
    >>> st.describe(), st.finite_order, st.zero_neurons
    ('S_2 × H_1', 2, (2,))
    """
    if isinstance(theta, Network):
        theta = theta.shallow()
    n = theta.n
    zero = tuple(i for i in range(n) if not any(theta.A[i]) and not theta.b[i] and not any(theta.out(i)))
    G = nx.Graph()
    G.add_nodes_from(i for i in range(n) if i not in set(zero))
    by_key: dict = {}
    for i in G.nodes:
        by_key.setdefault(neuron_key(theta, i), []).append(i)
    gens = []
    for members in by_key.values():
        first = members[0]
        for j in members[1:]:
            G.add_edge(first, j)
            gens.append(_transposition(n, first, j, _ratio(theta, first, j)))
    comps = tuple(sorted(tuple(sorted(c)) for c in nx.connected_components(G) if len(c) > 1))
    return Stabilizer(n, zero, comps, tuple(gens), G)


def _ratio(theta: Shallow, i: int, j: int) -> Fraction:
    """λ > 0 with (a_j, b_j) = λ (a_i, b_i) (or m_i = λ m_j when the rows vanish)."""
    ri, rj = theta.row(i), theta.row(j)
    for x, y in zip(ri, rj):
        if x:
            return y / x
    for x, y in zip(theta.out(i), theta.out(j)):
        if y:
            return x / y
    return Fraction(1)
