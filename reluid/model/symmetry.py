"""The obvious symmetries: H_n = permutations · positive diagonal scalings.

A :class:`GroupElement` ``g = (perm, scale)`` sends hidden neuron ``i`` to
position ``perm[i]`` after multiplying its incoming weights and bias by
``scale[i] > 0`` and dividing its outgoing weights by ``scale[i]``.  On a
shallow parameter this is the paper's action
h·(M, A, b, c) = (M h⁻¹, hA, hb, c) with h = P·D (Ramakrishnan 2026, §2.1).
For deep networks one element per hidden layer acts the same way on
(W^ℓ, b^ℓ, W^{ℓ+1}).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from reluid.errors import InvalidArgument
from reluid.model.network import Layer, Network, Shallow

__all__ = ["GroupElement", "act", "act_layers"]


@dataclass(frozen=True, slots=True)
class GroupElement:
    """An element of H_n: ``perm`` (a permutation of range(n)) and positive ``scale``."""

    perm: tuple[int, ...]
    scale: tuple[Fraction, ...]

    def __post_init__(self):
        n = len(self.perm)
        if sorted(self.perm) != list(range(n)) or len(self.scale) != n:
            raise InvalidArgument(f"not a permutation of range({n}) with {n} scalings: {self}")
        if any(not (s > 0) for s in self.scale):
            raise InvalidArgument("H_n scalings must be positive")

    @property
    def n(self) -> int:
        return len(self.perm)

    @classmethod
    def identity(cls, n: int) -> "GroupElement":
        return cls(tuple(range(n)), (Fraction(1),) * n)

    def is_identity(self) -> bool:
        return all(p == i for i, p in enumerate(self.perm)) and all(s == 1 for s in self.scale)

    def inverse(self) -> "GroupElement":
        n = self.n
        perm = [0] * n
        scale = [Fraction(1)] * n
        for i, p in enumerate(self.perm):
            perm[p] = i
            scale[p] = 1 / self.scale[i]
        return GroupElement(tuple(perm), tuple(scale))

    def compose(self, other: "GroupElement") -> "GroupElement":
        """``self ∘ other``: apply ``other`` first."""
        perm = tuple(self.perm[other.perm[i]] for i in range(self.n))
        scale = tuple(other.scale[i] * self.scale[other.perm[i]] for i in range(self.n))
        return GroupElement(perm, scale)

    def act(self, theta: Shallow) -> Shallow:
        """h·θ (Ramakrishnan 2026, §2.1)."""
        if theta.n != self.n:
            raise InvalidArgument(f"group element of H_{self.n} applied to a network with n = {theta.n}")
        n = self.n
        A = [None] * n
        b = [None] * n
        cols = [None] * n
        for i, (p, s) in enumerate(zip(self.perm, self.scale)):
            A[p] = tuple(s * x for x in theta.A[i])
            b[p] = s * theta.b[i]
            cols[p] = tuple(x / s for x in theta.out(i))
        M = tuple(tuple(cols[j][r] for j in range(n)) for r in range(theta.k))
        return Shallow(M, tuple(A), tuple(b), theta.c, theta.m)

    def to_dict(self) -> dict:
        from reluid.model.rational import format_rational
        return {"perm": list(self.perm), "scale": [format_rational(s) for s in self.scale]}


def act(g: GroupElement, theta: Shallow) -> Shallow:
    """Functional form of :meth:`GroupElement.act`."""
    return g.act(theta)


def act_layers(gs: Sequence[GroupElement], net: Network) -> Network:
    """Apply one group element per hidden layer of a (deep) network."""
    if len(gs) != len(net.layers) - 1:
        raise InvalidArgument(f"need {len(net.layers) - 1} group elements, got {len(gs)}")
    layers = list(net.layers)
    for l, g in enumerate(gs):
        L, N = layers[l], layers[l + 1]
        if g.n != L.n_out:
            raise InvalidArgument(f"hidden layer {l + 1} has width {L.n_out}, group element has {g.n}")
        W = [None] * g.n
        bb = [None] * g.n
        cols = [None] * g.n
        for i, (p, s) in enumerate(zip(g.perm, g.scale)):
            W[p] = tuple(s * x for x in L.weight[i])
            bb[p] = s * L.bias[i]
            cols[p] = tuple(row[i] / s for row in N.weight)
        layers[l] = Layer(tuple(W), tuple(bb), L.n_in)
        W2 = tuple(tuple(cols[j][r] for j in range(g.n)) for r in range(N.n_out))
        layers[l + 1] = Layer(W2, N.bias, g.n)
    return Network(tuple(layers), name=net.name, description=net.description)
