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


def _act_layer(L: Layer, rows: GroupElement | None, cols: GroupElement | None) -> Layer:
    """One layer map under ``rows`` (its own neurons) and ``cols`` (the previous layer's), in one pass."""
    n_out, n_in = L.n_out, L.n_in
    W: list = [None] * n_out
    bias: list = [None] * n_out
    if cols is not None:
        cp = [s.numerator for s in cols.scale]
        cq = [s.denominator for s in cols.scale]
        order = sorted(range(n_in), key=cols.perm.__getitem__)   # new column t is old column order[t]
    one = Fraction(1)
    for i, (w, b) in enumerate(zip(L.weight, L.bias)):
        p, s = (rows.perm[i], rows.scale[i]) if rows is not None else (i, one)
        if cols is None:
            row = w if s == 1 else tuple(s * x for x in w)
        else:
            P, Q = s.numerator, s.denominator
            # x · s / c_k = (num(x) · P · den(c_k)) / (den(x) · Q · num(c_k)), one reduction per entry
            row = tuple(Fraction(w[k].numerator * P * cq[k], w[k].denominator * Q * cp[k]) for k in order)
        W[p] = row
        bias[p] = b if s == 1 else s * b
    return Layer(tuple(W), tuple(bias), n_in)


def act_layers(gs: Sequence[GroupElement], net: Network) -> Network:
    """Apply one group element per hidden layer of a (deep) network.

    ``gs[l]`` permutes and rescales the neurons of hidden layer l + 1: row i of
    ``W^{l+1}`` and ``b^{l+1}`` is multiplied by ``scale[i]`` and moved to
    ``perm[i]``, and column i of ``W^{l+2}`` is divided by ``scale[i]`` and moved
    to ``perm[i]``.  Each layer map is rewritten once.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [2]], [0, 1]), ([[3, 4]], [5])])
    >>> g = GroupElement((1, 0), (Fraction(2), Fraction(1, 2)))
    >>> act_layers([g], net).layers[1].weight, act_layers([g], net)([Fraction(1)]) == net([Fraction(1)])
    (((Fraction(8, 1), Fraction(3, 2)),), True)
    """
    if len(gs) != len(net.layers) - 1:
        raise InvalidArgument(f"need {len(net.layers) - 1} group elements, got {len(gs)}")
    for l, g in enumerate(gs):
        if g.n != net.layers[l].n_out:
            raise InvalidArgument(f"hidden layer {l + 1} has width {net.layers[l].n_out}, group element has {g.n}")
    layers = tuple(_act_layer(L, gs[l] if l < len(gs) else None, gs[l - 1] if l else None)
                   for l, L in enumerate(net.layers))
    return Network(layers, name=net.name, description=net.description)
