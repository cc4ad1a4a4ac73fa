"""Exact equivalence of ReLU networks of any depth (docs/mathematics.md §7).

:func:`equivalent` decides whether two networks with the same input and
output sizes compute the same function, in phases that stop at the first
answer:

1. **orbit** (same architecture): :func:`reluid.analysis.deep.align.align`
   compares the canonical forms layer by layer; in one orbit, the element g
   with ``act_layers(g, net1) == net2`` is returned, verified exactly.
2. **search**: float64 forward passes at many points (Gaussian points at
   three scales and points next to the layer-1 hyperplanes of both networks)
   rank candidates by how far the float outputs differ; the best ones are
   evaluated exactly (integer matrix products over a common denominator), and
   a point where the exact outputs differ is returned.  Floats only choose.
3. **region split** (small networks): the joint activation regions of both
   networks are enumerated exactly (:mod:`reluid.analysis.deep.regions`); on
   each both networks are affine, so the functions are equal iff the affine
   maps agree on every region, and a region where they differ gives an exact
   distinguishing point.  This decides both ways.
4. **z3** (small networks, only when the region split ran out of budget):
   a model is re-checked exactly; z3's "no such input" is not taken as a proof.

Otherwise the answer is ``equal=None`` with the reason.  The result is the
:class:`~reluid.analysis.shallow.function.Equivalence` of the shallow module,
with ``orbit`` a tuple of group elements (one per hidden layer).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import flint
import numpy as np

from reluid.analysis.deep.align import align, integer_layer
from reluid.analysis.deep.regions import RegionWalk, evaluate_row
from reluid.analysis.shallow.function import Equivalence
from reluid.errors import IncompatibleNetworks, InvalidArgument
from reluid.model.network import Network
from reluid.verdicts import EquivalenceMethod, Outcome, Reason, ReasonCode

__all__ = ["equivalent", "search_difference", "ExactEvaluator", "REGION_SPLIT_LIMITS", "Z3_LIMIT", "Difference",
           "measure", "Region", "RegionSearch", "search_region"]

#: The region split is tried when the input dimension and the total number of
#: hidden neurons of both networks are at most these.
REGION_SPLIT_LIMITS = (16, 128)
#: z3 is asked when both networks have at most this many hidden neurons together.
Z3_LIMIT = 64
_BITS = 20          # candidate points are multiples of 2^-20


class ExactEvaluator:
    """Exact outputs of a network at many rational points at once (integer matrix products).

    Every layer is held as an integer matrix over one common denominator
    (python-flint ``fmpz_mat``); the points are integer numerators over one
    denominator.  Results are exact Fractions.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0])])
    >>> ExactEvaluator(net).outputs([[-3], [1]], 2)
    [(Fraction(3, 2),), (Fraction(1, 2),)]
    """

    __slots__ = ("layers", "input_dim")

    def __init__(self, net: Network):
        self.input_dim = net.input_dim
        self.layers = []
        for L in net.layers:
            rows, D = integer_layer(L)
            self.layers.append((flint.fmpz_mat([r[:-1] for r in rows]) if rows and L.n_in else None,
                                [r[-1] for r in rows], D, L.n_in))

    def outputs(self, points: Sequence[Sequence[int]], den: int) -> list[tuple[Fraction, ...]]:
        """The outputs at ``points[p] / den`` (integer numerators)."""
        K = len(points)
        H = flint.fmpz_mat(self.input_dim, K, [int(points[p][k]) for k in range(self.input_dim) for p in range(K)])
        dh = den
        vals: list[list[int]] = []
        last = len(self.layers) - 1
        for idx, (W, bias, D, n_in) in enumerate(self.layers):
            n_out = len(bias)
            if W is None:
                vals = [[b * dh] * K for b in bias]
            else:
                e = (W * H).entries()
                vals = [[int(e[k * K + p]) + bias[k] * dh for p in range(K)] for k in range(n_out)]
            dh *= D
            if idx < last:
                vals = [[v if v > 0 else 0 for v in row] for row in vals]
                H = flint.fmpz_mat(n_out, K, [v for row in vals for v in row])
        return [tuple(Fraction(vals[k][p], dh) for k in range(len(vals))) for p in range(K)]


def _float_layers(net: Network):
    return [(np.array([[float(x) for x in r] for r in L.weight], dtype=np.float64).reshape(L.n_out, L.n_in),
             np.array([float(x) for x in L.bias], dtype=np.float64)) for L in net.layers]


def _forward(layers, X: np.ndarray) -> np.ndarray:
    for W, b in layers[:-1]:
        X = np.maximum(X @ W.T + b, 0.0)
    W, b = layers[-1]
    return X @ W.T + b


def _candidates(fa, fb, n0: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """Gaussian points at three scales and points on both sides of the layer-1 hyperplanes."""
    parts = [rng.standard_normal((count // 4, n0)) * s for s in (1.0, 10.0, 0.1)]
    hyper = []
    for layers in (fa, fb):
        W, b = layers[0]
        live = np.flatnonzero(np.abs(W).sum(axis=1) > 0)
        if live.size == 0:
            continue
        k = count // 8
        j = rng.choice(live, k)
        a, c = W[j], b[j]
        y = rng.standard_normal((k, n0))
        aa = (a * a).sum(axis=1)
        x0 = y - (((a * y).sum(axis=1) + c) / aa)[:, None] * a
        unit = a / np.sqrt(aa)[:, None]
        delta = (10.0 ** -rng.integers(1, 5, k))[:, None] * (1 + np.abs(x0).max(axis=1))[:, None]
        sign = rng.choice([-1.0, 1.0], k)[:, None]
        hyper.append(x0 + sign * delta * unit)
    X = np.vstack(parts + hyper)
    X = np.clip(X, -1e6, 1e6)
    return np.rint(X * (1 << _BITS))


def search_difference(a: Network, b: Network, *, seed: int = 0, probes: int | None = None, exact_checks: int = 16):
    """A rational x with a(x) != b(x), found by float probes and decided exactly, or None.

    Returns ``(x, a(x), b(x), probes)`` (x and the outputs exact) or ``(None, None, None, probes)``.
    """
    n0 = a.input_dim
    if probes is None:  # about 2·10⁸ multiply-adds per network
        probes = int(min(4096, max(64, 2e8 / max(1, a.n_params + b.n_params))))
    rng = np.random.default_rng(seed)
    fa, fb = _float_layers(a), _float_layers(b)
    Xi = _candidates(fa, fb, n0, probes, rng)
    X = Xi / float(1 << _BITS)
    with np.errstate(all="ignore"):
        ya, yb = _forward(fa, X), _forward(fb, X)
        scale = 1.0 + np.maximum(np.abs(ya).max(axis=1), np.abs(yb).max(axis=1))
        score = np.abs(ya - yb).max(axis=1) / scale
    score = np.nan_to_num(score, nan=np.inf)
    order = np.argsort(-score, kind="stable")
    top = list(order[: exact_checks // 2])
    rest = [i for i in rng.permutation(len(Xi))[: exact_checks] if i not in set(top)][: exact_checks - len(top)]
    chosen = top + rest
    pts = [[int(v) for v in Xi[i]] for i in chosen]
    den = 1 << _BITS
    outs_a = ExactEvaluator(a).outputs(pts, den)
    outs_b = ExactEvaluator(b).outputs(pts, den)
    for p, oa, ob in zip(pts, outs_a, outs_b):
        if oa != ob:
            return tuple(Fraction(v, den) for v in p), oa, ob, len(Xi)
    return None, None, None, len(Xi)


def _point_where_maps_differ(region, oa, ob) -> tuple[Fraction, ...]:
    """A point of the region where the affine maps ``oa`` and ``ob`` (rows) take different values."""
    p = region.point
    if any(evaluate_row(r, p) != evaluate_row(s, p) for r, s in zip(oa, ob)):
        return p
    t = next(t for t in range(len(p)) if any(r[t] != s[t] for r, s in zip(oa, ob)))
    eps = Fraction(1)
    for r in region.inequalities:
        if r[t] < 0:
            eps = min(eps, evaluate_row(r, p) / -r[t])
    return tuple(v + eps / 2 if i == t else v for i, v in enumerate(p))


def equivalent(a: Network, b: Network, *, seed: int = 0, timeout: float | None = 60.0,
               max_regions: int | None = 50_000, probes: int | None = None) -> Equivalence:
    """Decide whether two networks of any depth compute the same function (docs/mathematics.md §7).

    Parameters
    ----------
    a, b : Network
        The same input and output dimensions; depths and widths may differ.
    seed : int
        Seed of the float probes (their answers are decided exactly).
    timeout : float or None
        Seconds for the region split and z3 together.
    max_regions : int or None
        Budget of the region split.
    probes : int, optional
        Number of float probes (default: by size).

    Returns
    -------
    Equivalence
        ``equal`` True (same orbit, with the per-layer elements; or equal
        affine maps on every joint region), False (with an exact
        distinguishing input and both outputs) or None (with the reason).

    Raises
    ------
    IncompatibleNetworks
        When the input or output dimensions differ.

    Examples
    --------
    >>> a = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])     # |x|
    >>> b = Network.from_lists([([[-1], [1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])     # |x|, neurons swapped
    >>> eq = equivalent(a, b); eq.equal, eq.same_orbit, [g.perm for g in eq.orbit]
    (True, True, [(1, 0), (0,)])
    >>> c = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 2]], [0]), ([[1]], [0])])     # σ(x) + 2σ(-x)
    >>> eq = equivalent(a, c); eq.equal, eq.first_difference, a(eq.input) != c(eq.input)
    (False, 2, True)
    >>> d = Network.from_lists([([[1], [-1], [1]], [0, 0, -1]), ([[1, 1, 0]], [0]), ([[1]], [0])])  # a dead-end neuron
    >>> eq = equivalent(a, d); eq.equal, eq.same_orbit, eq.method
    (True, False, 'region split')
    """
    if not isinstance(a, Network) or not isinstance(b, Network):
        raise InvalidArgument("equivalent expects two Networks")
    if (a.input_dim, a.output_dim) != (b.input_dim, b.output_dim):
        raise IncompatibleNetworks(a.architecture, b.architecture)
    start = time.monotonic()
    deadline = None if timeout is None else start + timeout
    same_arch = a.architecture == b.architecture
    orbit_note = Reason(ReasonCode.EQUIV_DIFFERENT_ARCHITECTURES)
    first = None
    same = False
    if same_arch:
        al = align(b, a)                 # act_layers(g, a) == b
        if al.same_orbit:
            return Equivalence(True, same_orbit=True, orbit=al.elements, method=EquivalenceMethod.ORBIT,
                               reason=Reason(ReasonCode.EQUIV_SAME_ORBIT, {"alignment": Reason(
                                   al.reason.code, {**al.reason.params, "names": ["net1", "net2"]})}))
        same = al.same_orbit          # False, or None when the tie search ran out
        first = al.first_difference
        orbit_note = al.reason
    x, ya, yb, n_probes = search_difference(a, b, seed=seed, probes=probes)
    if x is not None:
        return Equivalence(False, input=x, outputs=(ya, yb), same_orbit=False if same is not None else None,
                           first_difference=first, method=EquivalenceMethod.FLOAT_SEARCH,
                           reason=Reason(ReasonCode.EQUIV_FLOAT_SEARCH, {"probes": n_probes, "orbits": orbit_note}))
    notes = [Reason(ReasonCode.EQUIV_NO_PROBE_DIFFERENCE, {"probes": n_probes})]
    n0_max, neuron_max = REGION_SPLIT_LIMITS
    neurons = sum(a.hidden_widths) + sum(b.hidden_widths)
    region_done = False
    if a.input_dim <= n0_max and neurons <= neuron_max:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        walk = RegionWalk((a, b), timeout=left, max_regions=max_regions, keep_empty=False)
        for region in walk:
            oa, ob = region.output(0), region.output(1)
            if oa != ob:
                x = _point_where_maps_differ(region, oa, ob)
                ya, yb = a(x), b(x)
                if ya == yb:  # pragma: no cover - the point lies in a region where the maps differ
                    raise AssertionError("region split: the point does not distinguish")
                return Equivalence(False, input=x, outputs=(ya, yb), same_orbit=False if same is not None else None,
                                   first_difference=first, method=EquivalenceMethod.REGION_SPLIT,
                                   regions=len(walk.regions),
                                   reason=Reason(ReasonCode.EQUIV_REGION_DIFFER, {"regions": len(walk.regions),
                                                                                 "orbits": orbit_note}))
        if walk.complete:
            return Equivalence(True, same_orbit=False if same is not None else None, first_difference=first,
                               method=EquivalenceMethod.REGION_SPLIT, regions=len(walk.regions),
                               reason=Reason(ReasonCode.EQUIV_REGION_AGREE, {"regions": len(walk.regions),
                                                                            "lps": walk.lps, "orbits": orbit_note}))
        notes.append(Reason(ReasonCode.EQUIV_REGION_SPLIT_STOPPED, {"walk": walk.reason}))
        region_done = True
    else:
        notes.append(Reason(ReasonCode.EQUIV_TOO_LARGE, {"input_dim": a.input_dim, "neurons": neurons,
                                                         "limits": [n0_max, neuron_max]}))
    if neurons <= Z3_LIMIT:
        left = 30.0 if deadline is None else deadline - time.monotonic()
        if left >= 1:
            from reluid.smt.deep import find_difference
            from reluid.smt.solver import SolverConfig

            res = find_difference(a, b, SolverConfig(seed=seed, timeout_ms=int(left * 1000), logic="QF_LRA"))
            if res.outcome is Outcome.FOUND:
                x = res.point
                return Equivalence(False, input=x, outputs=(a(x), b(x)),
                                   same_orbit=False if same is not None else None, first_difference=first,
                                   method=EquivalenceMethod.Z3_SEARCH,
                                   reason=Reason(ReasonCode.EQUIV_Z3_FOUND, {"orbits": orbit_note}))
            if res.outcome is Outcome.NONE:
                notes.append(Reason(ReasonCode.EQUIV_Z3_UNSAT))
            else:
                notes.append(Reason(ReasonCode.EQUIV_Z3_UNKNOWN, {"answer": res.reason}))
        elif region_done:
            notes.append(Reason(ReasonCode.EQUIV_NO_TIME_FOR_Z3))
    return Equivalence(None, same_orbit=False if same is not None else None, first_difference=first,
                       method=EquivalenceMethod.UNDECIDED,
                       reason=Reason(ReasonCode.EQUIV_UNDECIDED, {"notes": notes, "orbits": orbit_note}))


# ---------------------------------------------------------------------------
# magnitudes: how large a difference is, and where the user looks for one
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Difference:
    """The size of a difference at one input, exactly.

    Attributes
    ----------
    input : tuple of Fraction
        The rational input x.
    outputs : (tuple of Fraction, tuple of Fraction)
        ``a(x)`` and ``b(x)``, exact.
    delta : tuple of Fraction
        ``b(x) - a(x)`` coordinate by coordinate.
    abs_diff : Fraction
        ``max_k |b_k(x) - a_k(x)|`` (the largest output coordinate difference).
    coordinate : int
        The output coordinate k (0-based) where it is attained.
    scale : Fraction
        The outputs' scale at x: ``max_k max(|a_k(x)|, |b_k(x)|)``.
    relative : Fraction or None
        ``abs_diff / scale``; None when both outputs are zero.
    """

    input: tuple[Fraction, ...]
    outputs: tuple[tuple[Fraction, ...], tuple[Fraction, ...]]
    delta: tuple[Fraction, ...]
    abs_diff: Fraction
    coordinate: int
    scale: Fraction
    relative: Fraction | None

    @property
    def differs(self) -> bool:
        return self.abs_diff != 0


def measure(a: Network, b: Network, x: Sequence) -> Difference:
    """The exact :class:`Difference` of ``a`` and ``b`` at the rational input ``x``.

    Examples
    --------
    >>> a = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])     # |x|
    >>> c = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 2]], [0]), ([[1]], [0])])     # σ(x) + 2σ(-x)
    >>> d = measure(a, c, [Fraction(-1, 2)]); d.abs_diff, d.scale, d.relative
    (Fraction(1, 2), Fraction(1, 1), Fraction(1, 2))
    """
    x = tuple(Fraction(v) for v in x)
    return _difference(x, tuple(a(x)), tuple(b(x)))


def _difference(x, ya, yb) -> Difference:
    delta = tuple(q - p for p, q in zip(ya, yb))
    k = max(range(len(delta)), key=lambda i: abs(delta[i])) if delta else 0
    absd = abs(delta[k]) if delta else Fraction(0)
    scale = max((max(abs(p), abs(q)) for p, q in zip(ya, yb)), default=Fraction(0))
    return Difference(x, (ya, yb), delta, absd, k, scale, absd / scale if scale else None)


@dataclass(frozen=True, slots=True)
class Region:
    """Where the user looks for distinguishing inputs.

    ``kind`` is ``"box"`` (every coordinate in ``[lo, hi]``, exact rationals) or
    ``"near"`` (close to the rows of ``points``, float64 data: the searched
    inputs are the points themselves, points moved by a fraction of the data's
    spread, and points on segments between two of them).
    """

    kind: str
    lo: Fraction | None = None
    hi: Fraction | None = None
    points: object = None        # a float64 array (n, input_dim) for "near"

    @classmethod
    def box(cls, lo, hi) -> "Region":
        lo, hi = Fraction(lo), Fraction(hi)
        if lo > hi:
            raise InvalidArgument(f"the box [{lo}, {hi}] is empty (LO > HI)")
        return cls("box", lo=lo, hi=hi)

    @classmethod
    def near(cls, points) -> "Region":
        X = np.asarray(points, dtype=np.float64)
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2 or X.shape[0] == 0 or not np.isfinite(X).all():
            raise InvalidArgument("the points to stay near must be a non-empty 2-D array of finite numbers")
        return cls("near", points=X)

    def contains(self, x) -> bool:
        """Whether the exact point x lies in a box (always True for ``near``)."""
        return self.kind != "box" or all(self.lo <= v <= self.hi for v in x)



@dataclass(frozen=True, slots=True)
class RegionSearch:
    """A search for distinguishing inputs in a :class:`Region`.

    ``found`` is the exact :class:`Difference` at the input with the largest
    exact ``abs_diff`` among those evaluated exactly, or None: then no
    distinguishing input was found there, which proves nothing about equality
    there.  ``float_output_scale`` is ``max |a(x)|`` over the probes in float64
    (an estimate, for orientation only); ``distance`` is, for ``near``, the
    float64 Euclidean distance from the input found to the nearest given point.
    """

    region: Region
    found: Difference | None
    probes: int
    exact_checks: int
    float_output_scale: float
    distance: float | None = None


def _region_candidates(region: Region, n0: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """Integer numerators over 2^_BITS of candidate points inside the region."""
    den = float(1 << _BITS)
    if region.kind == "box":
        lo, hi = float(region.lo), float(region.hi)
        X = rng.uniform(lo, hi, (count, n0))
        corners = rng.choice([lo, hi], (count // 8, n0))          # vertices: where ReLU nets grow most
        X = np.vstack([X, corners])
        Xi = np.rint(X * den)
        lo_i = -((-region.lo.numerator * (1 << _BITS)) // region.lo.denominator)   # ceil(lo·2^B)
        hi_i = (region.hi.numerator * (1 << _BITS)) // region.hi.denominator       # floor(hi·2^B)
        if lo_i > hi_i:
            raise InvalidArgument(f"the box [{region.lo}, {region.hi}] holds no multiple of 2^-{_BITS}")
        return np.clip(Xi, lo_i, hi_i)
    P = region.points
    if P.shape[1] != n0:
        raise InvalidArgument(f"the points to stay near have {P.shape[1]} coordinates; the networks have "
                              f"{n0} inputs")
    spread = P.std(axis=0) if P.shape[0] > 1 else np.abs(P[0])
    spread = np.where(spread > 0, spread, 1.0)
    parts = [P[rng.integers(0, P.shape[0], min(count, P.shape[0]))]]
    for r in (0.01, 0.1):
        base = P[rng.integers(0, P.shape[0], count // 3)]
        parts.append(base + r * spread * rng.standard_normal(base.shape))
    i, j = rng.integers(0, P.shape[0], (2, count // 3))
    t = rng.uniform(0, 1, (count // 3, 1))
    parts.append((1 - t) * P[i] + t * P[j])
    return np.rint(np.vstack(parts) * den)


def search_region(a: Network, b: Network, region: Region, *, seed: int = 0, probes: int | None = None,
                  exact_checks: int = 32, also: Sequence[Difference] = ()) -> RegionSearch:
    """Look for an input in ``region`` where ``a`` and ``b`` differ; the difference reported is exact.

    Float64 forward passes rank the candidate points by their float absolute
    and relative differences; the best ``exact_checks`` (and a few random ones) are
    evaluated exactly, and among those that differ exactly the one with the
    largest exact ``abs_diff`` is returned.  Floats only choose.  ``also``
    holds differences already known (from another search); those inside a
    box take part in the comparison.

    Examples
    --------
    >>> a = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])     # |x|
    >>> c = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 2]], [0]), ([[1]], [0])])     # σ(x) + 2σ(-x)
    >>> search_region(a, c, Region.box(0, 1)).found is None                               # equal on [0, 1]
    True
    >>> found = search_region(a, c, Region.box(-1, 1)).found; found.input[0] < 0 and found.abs_diff == -found.input[0]
    True
    """
    if (a.input_dim, a.output_dim) != (b.input_dim, b.output_dim):
        raise IncompatibleNetworks(a.architecture, b.architecture)
    n0 = a.input_dim
    if probes is None:
        probes = int(min(4096, max(64, 2e8 / max(1, a.n_params + b.n_params))))
    rng = np.random.default_rng(seed)
    Xi = _region_candidates(region, n0, probes, rng)
    X = Xi / float(1 << _BITS)
    fa, fb = _float_layers(a), _float_layers(b)
    with np.errstate(all="ignore"):
        ya, yb = _forward(fa, X), _forward(fb, X)
        out_scale = float(np.nan_to_num(np.abs(ya).max(), nan=np.inf)) if ya.size else 0.0
        scale = np.maximum(np.abs(ya).max(axis=1), np.abs(yb).max(axis=1))
        absolute = np.abs(ya - yb).max(axis=1)
        score = absolute / np.where(scale > 0, scale, 1.0)
    score, absolute = np.nan_to_num(score, nan=np.inf), np.nan_to_num(absolute, nan=np.inf)
    top = []                     # the largest float differences, absolute and relative, in turn
    for i, j in zip(np.argsort(-absolute, kind="stable"), np.argsort(-score, kind="stable")):
        for k in (int(i), int(j)):
            if k not in top and len(top) < exact_checks:
                top.append(k)
        if len(top) >= exact_checks:
            break
    seen = set(top)
    rest = [int(i) for i in rng.permutation(len(Xi))[: exact_checks // 4] if int(i) not in seen]
    chosen = top + rest
    den = 1 << _BITS
    pts = [[int(v) for v in Xi[i]] for i in chosen]
    outs_a = ExactEvaluator(a).outputs(pts, den)
    outs_b = ExactEvaluator(b).outputs(pts, den)
    best = None
    for p, oa, ob in zip(pts, outs_a, outs_b):
        if oa == ob:
            continue
        x = tuple(Fraction(v, den) for v in p)
        if not region.contains(x):  # pragma: no cover - candidates are clipped into the box
            raise AssertionError("a candidate left the box")
        d = _difference(x, oa, ob)
        if best is None or d.abs_diff > best.abs_diff:
            best = d
    for d in also:
        if region.kind == "box" and d.differs and region.contains(d.input) and (best is None
                                                                             or d.abs_diff > best.abs_diff):
            best = d
    distance = None
    if best is not None and region.kind == "near":
        xf = np.array([float(v) for v in best.input])
        distance = float(np.sqrt(((region.points - xf) ** 2).sum(axis=1)).min())
    return RegionSearch(region, best, len(Xi), len(chosen), out_scale, distance)
