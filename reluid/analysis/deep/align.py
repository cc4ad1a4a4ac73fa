"""Exact alignment: the group element that carries one network onto another, layer by layer.

Two networks of one architecture lie in the same orbit of the obvious
symmetries (one H_{n_l} per hidden layer, :func:`reluid.model.symmetry.act_layers`)
iff their canonical forms agree.  :func:`align` compares the canonical forms
layer by layer without building them (docs/mathematics.md §7):

* In layer l, with the columns of both networks already in canonical
  coordinates (and the other network's columns permuted into the reference's
  order), every incoming row (weights and bias) is written ``σ·p`` with p a
  primitive integer vector and σ > 0 (:func:`~reluid.model.rational.primitive_ray`).
  p is the neuron's canonical row; dividing by σ is the canonical scaling, and
  multiplying the neuron's outgoing column by σ carries the next layer into
  canonical coordinates.
* If the reference's canonical rows in layer l are pairwise distinct, an
  element mapping the other network to the reference must match rows with
  equal p, and the match is forced: the two multisets of canonical rows agree
  or layer l is *the first layer whose canonical rows cannot be matched*.  The
  output layer (no permutation, no scaling) must agree exactly.
* Ties (two neurons with positively proportional incoming rows) and zero rows
  leave the match open; then the exhaustive searches decide
  (:func:`reluid.analysis.shallow.orbit.same_orbit` for one hidden layer,
  :func:`reluid.analysis.deep.orbit.same_orbit` otherwise).

Everything is integer arithmetic on the rows; a positive answer is re-verified
with :func:`~reluid.model.symmetry.act_layers` before it is returned.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from reluid.errors import IncompatibleNetworks, OrbitSearchExhausted
from reluid.model.network import Network
from reluid.model.symmetry import GroupElement, act_layers

__all__ = ["Alignment", "align", "layer_name", "integer_layer"]


def layer_name(layer: int, depth: int) -> str:
    """``"hidden layer l"`` or ``"the output layer"`` for layer map ``layer`` (1-based)."""
    return "the output layer" if layer == depth else f"hidden layer {layer}"


@dataclass(frozen=True, slots=True)
class Alignment:
    """Whether ``other`` lies in the orbit of ``reference``, with the element or the first difference.

    Attributes
    ----------
    same_orbit : bool or None
        None only when the exhaustive search for tied neurons ran out of nodes.
    elements : tuple of GroupElement or None
        One per hidden layer, with ``act_layers(elements, other) == reference``
        (verified exactly).
    aligned : Network or None
        ``act_layers(elements, other)``: the other network in the reference's
        coordinates (equal to the reference, parameter by parameter).
    first_difference : int or None
        When the orbits differ: the first layer map (1-based; the depth means
        the output layer) whose canonical rows cannot be matched, when it is
        located (ties beyond the matched layers can leave it open).
    unmatched : int
        Rows of that layer of the reference without a partner in the other network.
    method : str
        ``"canonical rows"`` or the exhaustive search used for ties.
    reason : str
    """

    same_orbit: bool | None
    elements: tuple[GroupElement, ...] | None = None
    aligned: Network | None = None
    first_difference: int | None = None
    unmatched: int = 0
    method: str = "canonical rows"
    reason: str = ""
    architecture: tuple[int, ...] = ()


class _Ties(Exception):
    """The canonical rows of a layer are not pairwise distinct (or some are zero)."""

    def __init__(self, layer: int):
        self.layer = layer


def integer_layer(L):
    """The layer over one common denominator: integer rows (weights then bias) and D."""
    dens = {x.denominator for r in L.weight for x in r}
    dens.update(x.denominator for x in L.bias)
    D = math.lcm(*dens) if dens else 1
    rows = [[x.numerator * (D // x.denominator) for x in r] + [b.numerator * (D // b.denominator)]
            for r, b in zip(L.weight, L.bias)]
    return rows, D


class _Side:
    """One network on its way to canonical coordinates (column factors of the next layer)."""

    __slots__ = ("net", "factors", "lcm_q")

    def __init__(self, net: Network):
        self.net = net
        self.factors = None      # integer column factors f_j = P_j (Lq / Q_j) for σ_j = P_j / Q_j
        self.lcm_q = 1

    def rows(self, l: int, order=None):
        """Layer map l's rows in canonical column coordinates, as integers over a common denominator.

        ``order[j]`` is the position column j moves to (the previous match).
        Returns (rows, denominator).
        """
        rows, D = integer_layer(self.net.layers[l - 1])
        if self.factors is not None:
            f, Lq = self.factors, self.lcm_q
            rows = [[v * fj for v, fj in zip(r, f)] + [r[-1] * Lq] for r in rows]
            D *= Lq
        if order is not None:
            out = []
            for r in rows:
                new = [0] * (len(r) - 1)
                for j, v in enumerate(r[:-1]):
                    new[order[j]] = v
                new.append(r[-1])
                out.append(new)
            rows = out
        return rows, D

    def normalise(self, rows, D):
        """(canonical rows as tuples, scales σ) of integer rows over D; a zero row gives (None, None)."""
        keys, scales = [], []
        for r in rows:
            g = math.gcd(*r)
            if g == 0:
                keys.append(None)
                scales.append(None)
                continue
            keys.append(tuple(v // g for v in r))
            scales.append(Fraction(g, D))
        return keys, scales

    def carry(self, scales):
        """Set the next layer's column factors from this layer's scales (in the network's own order)."""
        Lq = math.lcm(*(s.denominator for s in scales)) if scales else 1
        self.factors = [s.numerator * (Lq // s.denominator) for s in scales]
        self.lcm_q = Lq


def _fast(reference: Network, other: Network):
    """The canonical-row match; returns (elements, None, 0) or (None, first_difference, unmatched)."""
    hidden = reference.hidden_widths
    ref, oth = _Side(reference), _Side(other)
    order = None               # position in the reference of each neuron of the other's previous layer
    elements = []
    for l in range(1, len(hidden) + 1):
        rows_r, D_r = ref.rows(l)
        rows_o, D_o = oth.rows(l, order)
        keys_r, sc_r = ref.normalise(rows_r, D_r)
        keys_o, sc_o = oth.normalise(rows_o, D_o)
        count_r, count_o = Counter(keys_r), Counter(keys_o)
        if count_r != count_o:
            return None, l, sum((count_r - count_o).values())
        if None in count_r or any(c > 1 for c in count_r.values()):
            raise _Ties(l)
        where = {k: i for i, k in enumerate(keys_r)}
        perm = [where[k] for k in keys_o]
        scale = [sc_r[perm[k]] / sc_o[k] for k in range(len(perm))]
        elements.append(GroupElement(tuple(perm), tuple(scale)))
        ref.carry(sc_r)
        oth.carry(sc_o)
        order = perm
    # the output layer: rows must agree exactly (cross-multiplied over the two denominators)
    d = reference.depth
    rows_r, D_r = ref.rows(d)
    rows_o, D_o = oth.rows(d, order)
    bad = sum(1 for a, b in zip(rows_r, rows_o) if any(x * D_o != y * D_r for x, y in zip(a, b)))
    if bad:
        return None, d, bad
    return tuple(elements), None, 0


def align(reference: Network, other: Network, *, max_nodes: int = 200_000) -> Alignment:
    """Decide exactly whether ``other`` is in the orbit of ``reference``; if so, the element carrying it there.

    Parameters
    ----------
    reference, other : Network
        Any depth; the input and output dimensions must agree.
    max_nodes : int, keyword-only
        Budget of the exhaustive search used only when neurons are tied.

    Returns
    -------
    Alignment
        With ``act_layers(elements, other) == reference`` (re-verified) when
        ``same_orbit``; otherwise the first layer whose canonical rows differ.

    Raises
    ------
    IncompatibleNetworks
        When the input or output dimensions differ.

    Examples
    --------
    >>> net = Network.from_lists([([[1, 2], [3, -1]], [0, 1]), ([[1, 1], [2, -1]], [1, 0]), ([[1, -2]], [0])])
    >>> g = (GroupElement((1, 0), (Fraction(2), Fraction(1, 3))), GroupElement((1, 0), (Fraction(5), Fraction(1))))
    >>> al = align(net, act_layers(g, net))
    >>> al.same_orbit, al.aligned == net, al.elements == tuple(h.inverse() for h in g)
    (True, True, True)
    >>> bumped = Network.from_lists([([[1, 2], [3, -1]], [0, 1]), ([[1, 1], [2, -1]], [1, 0]), ([[1, -3]], [0])])
    >>> al = align(net, bumped); al.same_orbit, al.first_difference
    (False, 3)
    """
    a_arch, b_arch = reference.architecture, other.architecture
    if (a_arch[0], a_arch[-1]) != (b_arch[0], b_arch[-1]):
        raise IncompatibleNetworks(a_arch, b_arch)
    if a_arch != b_arch:
        if len(a_arch) != len(b_arch):
            return Alignment(False, first_difference=None, reason=f"different depths ({len(a_arch) - 1} and "
                             f"{len(b_arch) - 1} layer maps)", architecture=a_arch)
        l = next(i for i in range(1, len(a_arch)) if a_arch[i] != b_arch[i])
        return Alignment(False, first_difference=l, unmatched=abs(a_arch[l] - b_arch[l]),
                         reason=f"hidden layer {l} has {a_arch[l]} neurons in the reference and {b_arch[l]} in the "
                                "other network", architecture=a_arch)
    depth = reference.depth
    try:
        elements, first, unmatched = _fast(reference, other)
        method = "canonical rows"
    except _Ties as t:
        method = "exhaustive search"
        first, unmatched = None, 0
        tied = t.layer
        try:
            if reference.is_shallow:
                from reluid.analysis.shallow.orbit import same_orbit as shallow_same

                g = shallow_same(other.shallow(), reference.shallow())
                elements = None if g is None else (g,)
                method = "orbit keys of one hidden layer (Ramakrishnan 2026, §2.1)"
            else:
                from reluid.analysis.deep.orbit import same_orbit as deep_same

                elements = deep_same(other, reference, max_nodes=max_nodes)
                method = "exhaustive search (tied neurons)"
        except OrbitSearchExhausted as e:
            return Alignment(None, method=method, architecture=a_arch,
                             reason=f"hidden layer {tied} has tied or zero canonical rows, and the exhaustive "
                                    f"orbit search stopped after {e.nodes} nodes")
        if elements is None:
            return Alignment(False, method=method, architecture=a_arch,
                             reason=f"layers before hidden layer {tied} match; hidden layer {tied} has tied or zero "
                                    "canonical rows, and the exhaustive search finds no element")
    if elements is None:
        return Alignment(False, first_difference=first, unmatched=unmatched, method=method, architecture=a_arch,
                         reason=f"{layer_name(first, depth)} is the first whose canonical rows cannot be matched "
                                f"({unmatched} row{'s' if unmatched != 1 else ''} with no partner)")
    aligned = act_layers(elements, other)
    if aligned != reference:  # pragma: no cover - the match is a proof; this keeps a positive answer honest
        raise AssertionError("align produced an element that does not carry the other network onto the reference")
    aligned = Network(aligned.layers, name=other.name, description=other.description, assumption=other.assumption)
    how = ("the canonical forms agree layer by layer" if method == "canonical rows"
           else f"the {method} finds g")
    return Alignment(True, elements, aligned, method=method, architecture=a_arch,
                     reason=f"{how}; act_layers(g, other) == reference exactly")
