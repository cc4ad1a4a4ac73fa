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

from reluid.errors import IncompatibleNetworks, InvalidArgument, OrbitSearchExhausted
from reluid.model.network import Network
from reluid.model.symmetry import GroupElement, act_layers
from reluid.verdicts import AlignMethod, Reason, ReasonCode

__all__ = ["Alignment", "align", "layer_name", "integer_layer", "NearestAlignment", "nearest_alignment"]


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
    method : AlignMethod
        ``"canonical rows"`` or the exhaustive search used for ties.
    reason : Reason or None
        How the answer was reached, as data (:mod:`reluid.report.reasons` words it).
    """

    same_orbit: bool | None
    elements: tuple[GroupElement, ...] | None = None
    aligned: Network | None = None
    first_difference: int | None = None
    unmatched: int = 0
    method: AlignMethod = AlignMethod.CANONICAL_ROWS
    reason: Reason | None = None
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
            return Alignment(False, first_difference=None, architecture=a_arch,
                             reason=Reason(ReasonCode.ALIGN_DEPTHS, {"depths": [len(a_arch) - 1, len(b_arch) - 1]}))
        l = next(i for i in range(1, len(a_arch)) if a_arch[i] != b_arch[i])
        return Alignment(False, first_difference=l, unmatched=abs(a_arch[l] - b_arch[l]),
                         reason=Reason(ReasonCode.ALIGN_WIDTHS, {"layer": l, "widths": [a_arch[l], b_arch[l]]}),
                         architecture=a_arch)
    depth = reference.depth
    try:
        elements, first, unmatched = _fast(reference, other)
        method = AlignMethod.CANONICAL_ROWS
    except _Ties as t:
        method = AlignMethod.EXHAUSTIVE
        first, unmatched = None, 0
        tied = t.layer
        try:
            if reference.is_shallow:
                from reluid.analysis.shallow.orbit import same_orbit as shallow_same

                g = shallow_same(other.shallow(), reference.shallow())
                elements = None if g is None else (g,)
                method = AlignMethod.ORBIT_KEYS
            else:
                from reluid.analysis.deep.orbit import same_orbit as deep_same

                elements = deep_same(other, reference, max_nodes=max_nodes)
                method = AlignMethod.EXHAUSTIVE_TIES
        except OrbitSearchExhausted as e:
            return Alignment(None, method=method, architecture=a_arch,
                             reason=Reason(ReasonCode.ALIGN_TIES_STOPPED, {"layer": tied, "nodes": e.nodes}))
        if elements is None:
            return Alignment(False, method=method, architecture=a_arch,
                             reason=Reason(ReasonCode.ALIGN_TIES_NO_ELEMENT, {"layer": tied}))
    if elements is None:
        return Alignment(False, first_difference=first, unmatched=unmatched, method=method, architecture=a_arch,
                         reason=Reason(ReasonCode.ALIGN_UNMATCHED, {"layer": first, "depth": depth,
                                                                    "unmatched": unmatched}))
    aligned = act_layers(elements, other)
    if aligned != reference:  # pragma: no cover - the match is a proof; this keeps a positive answer honest
        raise AssertionError("align produced an element that does not carry the other network onto the reference")
    aligned = Network(aligned.layers, name=other.name, description=other.description, assumption=other.assumption)
    return Alignment(True, elements, aligned, method=method, architecture=a_arch,
                     reason=Reason(ReasonCode.ALIGN_SAME_ORBIT, {"method": method}))


# ---------------------------------------------------------------------------
# nearest alignment (weight matching): a measurement for networks in different orbits
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class NearestAlignment:
    """The permutation and positive scaling per hidden layer that bring ``other`` closest to ``reference``.

    Found by weight matching (floats choose), then measured exactly.  This is
    a measurement, never a verdict: ``aligned`` computes exactly the function
    of ``other`` (it is ``act_layers(elements, other)``), and the deviations
    say how far its parameters are from the reference's.

    Attributes
    ----------
    elements : tuple of GroupElement
        One per hidden layer (exact rational scalings).
    aligned : Network
        ``act_layers(elements, other)``, exact.
    max_deviation : Fraction
        ``max |aligned − reference|`` over every weight and bias (exact).
    layer_deviations : tuple of Fraction
        The same per layer map.
    unaligned_deviation : Fraction
        ``max |other − reference|`` before alignment (the identity element), for comparison.
    reference_scale : Fraction
        ``max |reference|`` over every weight and bias.
    relative : Fraction or None
        ``max_deviation / reference_scale``.
    matching : str
        How the permutations were chosen.
    scales : str
        ``"exact"`` (the same orbit: the exact element of :func:`align`),
        ``"ratio"`` (the float64 least-squares ratio, as an exact rational)
        or ``"pow2"`` (its nearest power of two, so that the aligned network
        is as representable in floats as ``other``).
    l2_deviation, unaligned_l2 : float
        ``‖aligned − reference‖₂`` and ``‖other − reference‖₂`` over all
        parameters, in float64 (for orientation; the weight-matching objective).
    """

    elements: tuple[GroupElement, ...]
    aligned: Network
    max_deviation: Fraction
    layer_deviations: tuple[Fraction, ...]
    unaligned_deviation: Fraction
    reference_scale: Fraction
    relative: Fraction | None
    matching: str
    scales: str
    l2_deviation: float = 0.0
    unaligned_l2: float = 0.0


def _float_rows(L):
    import numpy as np

    W = np.array([[float(x) for x in r] for r in L.weight], dtype=np.float64).reshape(L.n_out, L.n_in)
    b = np.array([float(x) for x in L.bias], dtype=np.float64)
    return W, b


def _assignment(S):
    """Row i of the reference ↔ column perm_inv[i] of the other, maximising the total similarity."""
    import numpy as np

    try:
        from scipy.optimize import linear_sum_assignment
    except ImportError:  # greedy fallback: the largest similarity first
        n = S.shape[0]
        order = np.dstack(np.unravel_index(np.argsort(-S, axis=None), S.shape))[0]
        used_r, used_c, match = set(), set(), [0] * n
        for i, j in order:
            if i not in used_r and j not in used_c:
                used_r.add(int(i))
                used_c.add(int(j))
                match[int(i)] = int(j)
        return match, "greedy weight matching (scipy not installed)"
    rows, cols = linear_sum_assignment(-S)
    match = [0] * S.shape[0]
    for i, j in zip(rows, cols):
        match[int(i)] = int(j)
    return match, "Hungarian weight matching (scipy.optimize.linear_sum_assignment)"


def _largest(net: Network) -> Fraction:
    """max |θ| over every weight and bias."""
    w = max((abs(x) for L in net.layers for r in L.weight for x in r), default=Fraction(0))
    return max(w, max((abs(x) for L in net.layers for x in L.bias), default=Fraction(0)))


def _max_abs_diff(L1, L2) -> Fraction:
    """max |θ1 − θ2| over the weights and biases of two layers of one shape, exactly.

    Floats choose the candidates: each parameter converted to float64 (correctly
    rounded) and subtracted is within a few ulps of max(|θ1|, |θ2|) of the true
    difference, so every entry whose float difference comes within
    ``1e-12 · max |θ|`` (thousands of ulps) of the float maximum is a candidate,
    and the largest exact difference among the candidates is the exact maximum.
    """
    import numpy as np

    (W1, b1), (W2, b2) = _float_rows(L1), _float_rows(L2)
    f1 = np.concatenate([W1.reshape(-1), b1])
    f2 = np.concatenate([W2.reshape(-1), b2])
    if f1.size == 0:
        return Fraction(0)
    with np.errstate(over="ignore", invalid="ignore"):
        diff = np.abs(f1 - f2)
    big = float(max(np.abs(f1).max(), np.abs(f2).max()))
    if not (np.isfinite(diff).all() and np.isfinite(big)):   # beyond float64: every entry exactly
        candidates = range(f1.size)
    else:
        candidates = np.flatnonzero(diff >= diff.max() - 1e-12 * big - 1e-300)
    n = L1.n_in
    best = Fraction(0)
    for k in candidates:
        k = int(k)
        if k < L1.n_out * n:
            d = abs(L1.weight[k // n][k % n] - L2.weight[k // n][k % n])
        else:
            d = abs(L1.bias[k - L1.n_out * n] - L2.bias[k - L1.n_out * n])
        if d > best:
            best = d
    return best


def _l2(n1: Network, n2: Network) -> float:
    """‖θ1 − θ2‖₂ over every parameter, in float64."""
    import numpy as np

    sq = 0.0
    for L, R in zip(n1.layers, n2.layers):
        (W1, b1), (W2, b2) = _float_rows(L), _float_rows(R)
        sq += float(((W1 - W2) ** 2).sum() + ((b1 - b2) ** 2).sum())
    return float(np.sqrt(sq))


def nearest_alignment(reference: Network, other: Network, *, scales: str = "ratio") -> NearestAlignment:
    """The best permutation and positive scaling per hidden layer by weight matching, measured exactly.

    Layer by layer (as re-basin weight matching does): with ``other``'s
    columns already carried into the reference's order and scale, every
    incoming row (weights and bias) of both networks is normalised to unit
    Euclidean length, the similarity of two neurons is the inner product of
    their normalised rows, and the permutation maximising the total similarity
    is chosen (Hungarian method).  The scaling of a matched neuron is the
    least-squares σ = ⟨a_i, b_j⟩ / ⟨b_j, b_j⟩ minimising ‖σ·b_j − a_i‖ over
    its incoming row (1 when that is not positive), refined by coordinate
    descent on the sum of squared differences of the incoming rows and
    outgoing columns (:func:`_refine_scales`).
    Floats only choose; the element is exact, and the deviation is computed
    exactly on ``act_layers(elements, other)``.

    Parameters
    ----------
    reference, other : Network
        The same architecture.
    scales : {"ratio", "pow2"}, keyword-only
        ``"pow2"`` rounds every scaling to the nearest power of two.

    Raises
    ------
    IncompatibleNetworks
        When the architectures differ.

    Examples
    --------
    >>> net = Network.from_lists([([[1, 2], [3, -1]], [0, 1]), ([[1, 1], [2, -1]], [1, 0]), ([[1, -2]], [0])])
    >>> g = (GroupElement((1, 0), (Fraction(2), Fraction(1, 3))), GroupElement((1, 0), (Fraction(5), Fraction(1))))
    >>> near = nearest_alignment(net, act_layers(g, net))      # the same orbit: the exact element
    >>> near.aligned == net, near.max_deviation, near.matching
    (True, Fraction(0, 1), 'exact alignment (the same orbit)')
    >>> bumped = Network.from_lists([([[1, 2], [3, -1]], [0, 1]), ([[1, 1], [2, -1]], [1, 0]), ([[1, -3]], [0])])
    >>> near = nearest_alignment(net, act_layers(g, bumped))  # another orbit: the nearest by weight matching
    >>> [h.perm for h in near.elements], near.max_deviation < 2, near.aligned([1, 1]) == bumped([1, 1])
    ([(1, 0), (1, 0)], True, True)
    """
    import numpy as np

    if scales not in ("ratio", "pow2"):
        raise InvalidArgument(f"scales must be 'ratio' or 'pow2', not {scales!r}")
    if reference.architecture != other.architecture:
        raise IncompatibleNetworks(reference.architecture, other.architecture)
    exact = align(reference, other)
    if exact.same_orbit:
        zero = tuple(Fraction(0) for _ in reference.layers)
        ref_scale = _largest(reference)
        return NearestAlignment(exact.elements, exact.aligned, Fraction(0), zero,
                                max((_max_abs_diff(L, R) for L, R in zip(other.layers, reference.layers)),
                                    default=Fraction(0)), ref_scale, Fraction(0) if ref_scale else None,
                                "exact alignment (the same orbit)", "exact", 0.0, _l2(other, reference))
    elements, perms, sigmas = [], [], []
    col_perm = None          # position in the reference of each column of the other's current layer
    col_scale = None         # the scalings of the previous hidden layer (float), in the other's own order
    matching = "no hidden layer"
    for l in range(len(reference.hidden_widths)):
        Wa, ba = _float_rows(reference.layers[l])
        Wb, bb = _float_rows(other.layers[l])
        if col_perm is not None:
            moved = np.zeros_like(Wb)
            moved[:, col_perm] = Wb / col_scale[None, :]
            Wb = moved
        A = np.hstack([Wa, ba[:, None]])
        B = np.hstack([Wb, bb[:, None]])
        na, nb = np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1)
        Ah = A / np.where(na > 0, na, 1.0)[:, None]
        Bh = B / np.where(nb > 0, nb, 1.0)[:, None]
        match, matching = _assignment(Ah @ Bh.T)        # reference neuron i ↔ other neuron match[i]
        perm = [0] * len(match)
        sigma = np.ones(len(match))
        for i, j in enumerate(match):
            perm[j] = i
            ab, bb2 = float(A[i] @ B[j]), float(B[j] @ B[j])
            s = ab / bb2 if bb2 > 0 else 0.0               # least squares: min_σ ‖σ·b_j − a_i‖
            if s > 0 and np.isfinite(s):
                sigma[j] = s
        perms.append(perm)
        sigmas.append(sigma)
        col_perm, col_scale = perm, sigma
    sigmas = _refine_scales(reference, other, perms, sigmas)
    for perm, sigma in zip(perms, sigmas):
        if scales == "pow2":
            sigma = np.exp2(np.rint(np.log2(sigma)))
        elements.append(GroupElement(tuple(perm), tuple(Fraction(float(s)) for s in sigma)))
    aligned = act_layers(elements, other)
    aligned = Network(aligned.layers, name=other.name, description=other.description, assumption=other.assumption)
    per_layer = tuple(_max_abs_diff(L, R) for L, R in zip(aligned.layers, reference.layers))
    before = max((_max_abs_diff(L, R) for L, R in zip(other.layers, reference.layers)), default=Fraction(0))
    ref_scale = _largest(reference)
    dev = max(per_layer, default=Fraction(0))
    return NearestAlignment(tuple(elements), aligned, dev, per_layer, before, ref_scale,
                            dev / ref_scale if ref_scale else None, matching, scales, _l2(aligned, reference),
                            _l2(other, reference))


def _refine_scales(reference: Network, other: Network, perms, sigmas, sweeps: int = 3):
    """Coordinate descent on the scalings: each neuron's σ in turn minimises ‖τ·row − a‖² + ‖col/τ − d‖².

    ``row`` is the neuron's incoming row (weights and bias) and ``col`` its
    outgoing column, both in the reference's coordinates; the minimiser is a
    positive root of τ⁴|row|² − τ³⟨row, a⟩ + τ⟨col, d⟩ − |col|² = 0.  Floats
    only: the result is a choice, measured exactly afterwards.
    """
    import numpy as np

    ref = [_float_rows(L) for L in reference.layers]
    cur = []
    prev_perm, prev_sigma = None, None
    for l, L in enumerate(other.layers):        # the other network carried by (perms, sigmas), in floats
        W, b = _float_rows(L)
        if prev_perm is not None:
            moved = np.zeros_like(W)
            moved[:, prev_perm] = W / prev_sigma[None, :]
            W = moved
        if l < len(perms):
            W, b = W * sigmas[l][:, None], b * sigmas[l]
            rows_W, rows_b = np.zeros_like(W), np.zeros_like(b)
            rows_W[perms[l]], rows_b[perms[l]] = W, b
            W, b = rows_W, rows_b
            prev_perm, prev_sigma = perms[l], sigmas[l]
        cur.append([W, b])
    total = [np.ones(len(p)) for p in perms]     # extra factors, in the reference's order
    for _ in range(sweeps):
        for l in range(len(perms)):
            (W, b), (Wn, _) = cur[l], cur[l + 1]
            (Wa, ba), (Wna, _) = ref[l], ref[l + 1]
            for i in range(W.shape[0]):
                row, a = np.append(W[i], b[i]), np.append(Wa[i], ba[i])
                col, d = Wn[:, i], Wna[:, i]
                B, C = float(row @ row), float(col @ col)
                if B == 0 or C == 0:
                    continue
                roots = np.roots([B, -float(row @ a), 0.0, float(col @ d), -C])
                real = [r.real for r in roots if abs(r.imag) < 1e-12 * max(1.0, abs(r)) and r.real > 0]
                if not real:
                    continue
                f = [(t * t * B - 2 * t * float(row @ a) + C / (t * t) - 2 * float(col @ d) / t, t) for t in real]
                t = min(f)[1]
                if not np.isfinite(t) or t <= 0:
                    continue
                W[i] *= t
                b[i] *= t
                Wn[:, i] /= t
                total[l][i] *= t
    out = []
    for l, (perm, sigma) in enumerate(zip(perms, sigmas)):
        factor = np.empty(len(perm))
        factor[:] = [total[l][perm[j]] for j in range(len(perm))]    # back to the other's own order
        out.append(sigma * factor)
    return out
