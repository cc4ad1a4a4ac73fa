"""Certified functional dimension of ReLU networks.

The functional dimension of θ (Grigsby, Lindsey, Meyerhoff, Wu 2022,
Definition 7.3; Grigsby, Lindsey, Rolnick 2023, Definition F.2) is

    dim_fun(θ) = sup { rank J E_Z(θ) : Z ⊂ R^{n0} finite, parametrically smooth for θ },

where E_Z(θ) = (F_θ(z))_{z ∈ Z}.  This module computes

* the **upper bound** U = D - (n_1 + ... + n_{d-1}) (D parameters, one
  dimension lost to the positive scaling at each hidden neuron; Grigsby et al.
  2022), see :func:`upper_bound`;
* a **certified lower bound** r = rank_p J_Z(θ) for an explicit finite set Z of
  rational points: every z in Z is checked *exactly* to have no hidden
  pre-activation equal to zero (then F is polynomial in (θ, x) near (θ, z),
  so z is parametrically smooth), the Jacobian entries are the exact rationals
  of backpropagation inside z's activation region, reduced modulo a prime p,
  and rank over F_p <= rank over Q.

When r = U the functional dimension is certified equal to U.  When r < U the
gap is *evidence* of hidden symmetries near θ (Grigsby, Lindsey, Rolnick 2023,
Lemma F.6: no hidden symmetries on an open ball forces dim_fun = U there), not
a proof: the supremum may need points that were not sampled.

Speed (what makes the Figure 6 survey feasible)
-----------------------------------------------
* Inside one activation region the gradient ∇_θ F(x) is affine in x, so a
  region contributes at most n0 + 1 independent rows: points are deduplicated
  by activation pattern (at most n0 + 1 kept per region) and interleaved
  region by region.
* Activation patterns are found with a float64 forward pass; only the points
  that end up in Z are trusted, and each of them is re-evaluated in exact
  integer arithmetic (a disagreement removes the point and the rank is
  recomputed).  ``method="exact"`` computes every pattern exactly instead.
* Rows are computed modulo p < 2^26 with vectorised int64 arithmetic.  The rank
  is r0 + rank(P) where r0 is the rank of a first block E of about U rows and
  P = R·N_E the remaining rows times a basis N_E of E's null space (rows in the
  span of E map to zero); P has only D - r0 columns.  The products R·N_E are
  exact float64 BLAS products of 13-bit halves.
* Adding points stops as soon as the rank reaches U (still a certified lower
  bound; nothing larger is possible).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

import flint
import numpy as np

from reluid.analysis.progress import report as _report
from reluid.errors import InvalidArgument
from reluid.model.network import Network
from reluid.model.rational import to_rational

__all__ = ["FunDimResult", "functional_dimension", "upper_bound", "jacobian_rows_mod_p", "exact_pattern",
           "sample_points", "PRIMES", "DYADIC_BITS"]

#: Primes below 2^26 tried in order (a prime dividing a denominator is skipped).
PRIMES = (67108859, 67108837, 67108819, 67108777)
#: Sample points are Gaussian samples rounded to multiples of 2^-DYADIC_BITS (exactly).
DYADIC_BITS = 20
_SPLIT = 1 << 13


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FunDimResult:
    """A certified lower bound on dim_fun(θ) and the upper bound U.

    Attributes
    ----------
    architecture : tuple of int
    n_params : int
        D, the number of parameters.
    upper_bound : int
        U = D - (number of hidden neurons).
    upper_bound_reason : str
        Where U comes from.
    rank : int
        rank over F_p of the Jacobian at ``points``; a certified lower bound
        for dim_fun(θ).
    prime : int
        The prime p.
    points : tuple of tuple of Fraction
        Z: parametrically smooth points (checked exactly) with rank_p J_Z = rank.
    n_sampled, n_smooth, n_regions, n_rows : int
        Points drawn, points kept after the smoothness check, distinct
        activation patterns among them, Jacobian rows examined.
    stopped_early : bool
        The rank reached U before all rows were examined.
    seed : int
    method : str
        ``"float-filter"`` or ``"exact"`` (how activation patterns were found;
        the points in Z are always checked exactly).
    seconds : float
        Wall time (informational).
    """

    architecture: tuple[int, ...]
    n_params: int
    upper_bound: int
    upper_bound_reason: str
    rank: int
    prime: int
    points: tuple[tuple[Fraction, ...], ...]
    n_sampled: int
    n_smooth: int
    n_regions: int
    n_rows: int
    stopped_early: bool
    seed: int
    method: str
    seconds: float = field(default=0.0, compare=False)

    @property
    def certified(self) -> bool:
        """``True`` when the lower bound meets U: dim_fun(θ) = U is certified."""
        return self.rank == self.upper_bound

    @property
    def gap(self) -> int:
        return self.upper_bound - self.rank

    def describe(self) -> str:
        """One line for humans, e.g. ``dim_fun = 21 (certified) ...``."""
        arch = "(" + ", ".join(map(str, self.architecture)) + ")"
        if self.certified:
            head = f"dim_fun = {self.rank} = U (certified)"
        else:
            head = (f"dim_fun >= {self.rank} (certified lower bound), U = {self.upper_bound}, gap {self.gap}: "
                    "evidence of hidden symmetries near θ (Lemma F.6), not a proof")
        return (f"{head}; architecture {arch}, D = {self.n_params}, {len(self.points)} witness points, "
                f"rank mod p = {self.prime}, {self.n_smooth}/{self.n_sampled} smooth sample points in "
                f"{self.n_regions} activation regions, {self.n_rows} rows examined"
                + (" (stopped at U)" if self.stopped_early else ""))


def upper_bound(architecture: Sequence[int]) -> tuple[int, str]:
    """The upper bound U on dim_fun over the whole architecture, with its justification.

    In general U = D - (n_1 + ... + n_{d-1}) (Grigsby, Lindsey, Meyerhoff, Wu
    2022): the positive scaling of each hidden neuron (incoming weights and
    bias times t, outgoing weights divided by t) is a curve in the fibre, so
    its tangent lies in the kernel of the Jacobian at every parametrically
    smooth point; these tangents are independent as long as every hidden neuron
    has a nonzero incoming or outgoing weight, and a neuron with neither
    contributes no rank at all.

    Input dimension one (n0 = 1).  For width-one chains (1, 1, ..., 1, k) the
    bound drops to 2k + 2 once d >= 4: by induction every hidden layer output
    is a monotone "clipped ramp" of x (constant, affine, constant, with at most
    two breakpoints), because x -> σ(w h + c) maps clipped ramps to clipped
    ramps; so F = v h + c is determined near θ by two breakpoints, its value at
    -∞ and its total change (2 + k + k numbers), and the Jacobian of a map whose
    image lies in a (2k + 2)-dimensional family has rank at most 2k + 2.  For
    other n0 = 1 architectures U is not lowered: the certified ranks reach U
    for (1, 2, 2, 1), (1, 3, 3, 1), (1, 2, 3, 1), (1, 3, 2, 1) and
    (1, 2, 2, 2, 1) (``tests/analysis/deep/test_fundim.py::test_input_dimension_one``), so no
    architecture-wide refinement exists there.

    Examples
    --------
    >>> upper_bound((5, 5, 5, 5, 1))
    (81, 'U = D - (number of hidden neurons) = 96 - 15 (Grigsby-Lindsey-Meyerhoff-Wu 2022)')
    >>> upper_bound((1, 1, 1, 1, 1))[0]
    4
    """
    arch = tuple(int(a) for a in architecture)
    if len(arch) < 2 or any(a < 1 for a in arch):
        raise InvalidArgument(f"not an architecture: {arch}")
    D = sum(arch[l + 1] * (arch[l] + 1) for l in range(len(arch) - 1))
    H = sum(arch[1:-1])
    U = D - H
    why = f"U = D - (number of hidden neurons) = {D} - {H} (Grigsby-Lindsey-Meyerhoff-Wu 2022)"
    k = arch[-1]
    if all(a == 1 for a in arch[:-1]) and len(arch) >= 3 and 2 * k + 2 < U:
        return 2 * k + 2, (f"U = 2k + 2 = {2 * k + 2} < D - H = {U}: a width-one chain computes a clipped "
                           "ramp (two breakpoints, value at -inf, total change)")
    return U, why


# ---------------------------------------------------------------------------
# exact evaluation (integers) and sampling
# ---------------------------------------------------------------------------

class _IntNet:
    """The network over a common denominator per layer, for exact signs fast."""

    __slots__ = ("layers",)

    def __init__(self, net: Network):
        layers = []
        for L in net.layers[:-1]:
            den = 1
            for q in (*(x for r in L.weight for x in r), *L.bias):
                den = den * q.denominator // math.gcd(den, q.denominator)
            W = [[int(x * den) for x in r] for r in L.weight]
            b = [int(x * den) for x in L.bias]
            layers.append((W, b, den))
        self.layers = layers

    def pattern(self, x: Sequence[Fraction]) -> tuple[tuple[int, ...], ...]:
        """Signs (-1, 0, 1) of every hidden pre-activation at x, exactly."""
        den_x = 1
        for q in x:
            den_x = den_x * q.denominator // math.gcd(den_x, q.denominator)
        h = [int(q * den_x) for q in x]
        dh = den_x
        out = []
        for W, b, den in self.layers:
            z = [sum(w * v for w, v in zip(row, h)) + bi * dh for row, bi in zip(W, b)]
            out.append(tuple((v > 0) - (v < 0) for v in z))
            h = [v if v > 0 else 0 for v in z]
            dh *= den
        return tuple(out)


def exact_pattern(net: Network, x: Sequence) -> tuple[tuple[int, ...], ...]:
    """Exact signs of all hidden pre-activations at x (0 means not smooth there)."""
    return _IntNet(net).pattern(tuple(to_rational(t) for t in x))


def sample_points(n0: int, count: int, seed: int = 0) -> np.ndarray:
    """``count`` points from N(0, I) rounded to multiples of 2^-20, as integer numerators.

    The point is ``row / 2**DYADIC_BITS`` exactly (numpy ``int64`` array).
    """
    rng = np.random.default_rng(seed)
    return np.rint(rng.standard_normal((count, n0)) * (1 << DYADIC_BITS)).astype(np.int64)


def _fractions(row, bits=DYADIC_BITS) -> tuple[Fraction, ...]:
    return tuple(Fraction(int(v), 1 << bits) for v in row)


# ---------------------------------------------------------------------------
# Jacobian rows modulo p
# ---------------------------------------------------------------------------

def _residue(q: Fraction, p: int) -> int:
    return q.numerator % p * pow(q.denominator, -1, p) % p


def _choose_prime(net: Network) -> int:
    for p in PRIMES:
        if all(q.denominator % p for L in net.layers for q in (*(x for r in L.weight for x in r), *L.bias)):
            return p
    raise InvalidArgument("every candidate prime divides a denominator of the network")  # pragma: no cover


class _ModNet:
    __slots__ = ("p", "W", "b", "dims")

    def __init__(self, net: Network, p: int):
        self.p = p
        self.W = [np.array([[_residue(x, p) for x in r] for r in L.weight], dtype=np.int64).reshape(L.n_out, L.n_in)
                  for L in net.layers]
        self.b = [np.array([_residue(x, p) for x in L.bias], dtype=np.int64) for L in net.layers]
        self.dims = net.architecture


def jacobian_rows_mod_p(mod: _ModNet, xres: np.ndarray, masks: Sequence[np.ndarray]) -> np.ndarray:
    """∂F_o(x)/∂θ modulo p for every point and output, by exact backpropagation.

    ``xres`` holds the points' residues (N × n0), ``masks[l]`` the activation
    pattern of hidden layer l + 1 (N × n_{l+1}, bool).  Parameters are ordered
    layer by layer, W^l row-major then b^l.  Returns an (N · nd) × D int64
    array, the rows of output o for all points first, then output o + 1.
    """
    p = mod.p
    N = xres.shape[0]
    hs = [xres % p]
    for W, b, m in zip(mod.W[:-1], mod.b[:-1], masks):
        z = (hs[-1] @ W.T % p + b) % p
        hs.append(z * m)
    blocks = []
    nd = mod.dims[-1]
    for o in range(nd):
        delta = np.zeros((N, nd), dtype=np.int64)
        delta[:, o] = 1
        grads = []
        for l in range(len(mod.W) - 1, -1, -1):
            gW = (delta[:, :, None] * hs[l][:, None, :]) % p
            grads.append((gW.reshape(N, -1), delta))
            if l:
                delta = (delta @ mod.W[l]) % p * masks[l - 1]
        grads.reverse()
        blocks.append(np.concatenate([a for g in grads for a in g], axis=1))
    return np.concatenate(blocks, axis=0)


def _matmul_mod(A: np.ndarray, B: np.ndarray, p: int) -> np.ndarray:
    """A @ B mod p exactly, with float64 BLAS on 13-bit halves of B (p < 2^26, inner dim < 2^14)."""
    Bhi, Blo = np.divmod(B, _SPLIT)
    Af = A.astype(np.float64)
    lo = (Af @ Blo.astype(np.float64)).astype(np.int64) % p
    hi = (Af @ Bhi.astype(np.float64)).astype(np.int64) % p
    return (hi * _SPLIT + lo) % p


def _nmod(rows: np.ndarray, p: int) -> "flint.nmod_mat":
    return flint.nmod_mat(int(rows.shape[0]), int(rows.shape[1]), rows.ravel().tolist(), p)


def _to_numpy(M: "flint.nmod_mat") -> np.ndarray:
    return np.array([int(v) for v in M.entries()], dtype=np.int64).reshape(M.nrows(), M.ncols())


def _independent_rows(rows: np.ndarray, p: int) -> list[int]:
    """Indices of a maximal independent set of rows (pivot columns of rowsᵀ's rref)."""
    R, rank = _nmod(rows.T.copy(), p).rref()
    if rank == 0:
        return []
    Rn = _to_numpy(R)[:rank]
    return [int(np.flatnonzero(r)[0]) for r in Rn]


class _Echelon:
    """Reduced row echelon basis mod p, grown chunk by chunk."""

    def __init__(self, ncols: int, p: int):
        self.p = p
        self.ncols = ncols
        self.rows = np.zeros((0, ncols), dtype=np.int64)
        self.pivots: list[int] = []
        self.sources: list[int] = []

    def add(self, P: np.ndarray, source: np.ndarray, limit: int) -> None:
        p = self.p
        if self.pivots:
            P = (P - _matmul_mod(P[:, self.pivots], self.rows, p)) % p
        P = P.copy()
        alive = np.ones(P.shape[0], dtype=bool)
        for c in range(self.ncols):
            if len(self.pivots) >= limit:
                return
            if c in self.pivots:
                continue
            nz = np.flatnonzero((P[:, c] != 0) & alive)
            if nz.size == 0:
                continue
            k = int(nz[0])
            row = P[k] * pow(int(P[k, c]), -1, p) % p
            alive[k] = False
            P = (P - np.outer(P[:, c], row) % p) % p
            if len(self.rows):
                self.rows = (self.rows - np.outer(self.rows[:, c], row) % p) % p
            self.rows = np.vstack([self.rows, row[None, :]])
            self.pivots.append(c)
            self.sources.append(int(source[k]))


# ---------------------------------------------------------------------------
# the computation
# ---------------------------------------------------------------------------

def _float_patterns(net: Network, X: np.ndarray, rtol: float = 1e-9):
    """Activation masks from a float64 pass and a per-point 'uncertain' flag."""
    h = X
    masks, uncertain = [], np.zeros(X.shape[0], dtype=bool)
    for L in net.layers[:-1]:
        W = np.array([[float(x) for x in r] for r in L.weight], dtype=np.float64).reshape(L.n_out, L.n_in)
        b = np.array([float(x) for x in L.bias], dtype=np.float64)
        z = h @ W.T + b
        scale = np.abs(h) @ np.abs(W).T + np.abs(b) + 1e-300
        uncertain |= (np.abs(z) <= rtol * scale).any(axis=1)
        m = z > 0
        masks.append(m)
        h = np.where(m, z, 0.0)
    return masks, uncertain


def functional_dimension(net: Network, *, points: int | Sequence | None = None, seed: int = 0,
                         points_factor: int = 100, method: str = "auto", prime: int | None = None,
                         stop_at_upper_bound: bool = True) -> FunDimResult:
    """Certified lower bound (and, when it meets U, the value) of dim_fun(θ).

    Parameters
    ----------
    net : Network
        Any depth; every entry an exact rational.
    points : int or sequence of rational points, optional, keyword-only
        How many Gaussian points to sample (default ``points_factor × U``, as in
        Grigsby, Lindsey, Rolnick 2023, Section 6), or explicit points.
    seed : int, keyword-only
        Seeds the sample (``numpy.random.default_rng(seed)``).
    points_factor : int, keyword-only
        Used when ``points`` is None (the paper uses 100).
    method : {"auto", "float-filter", "exact", "cells"}, keyword-only
        How activation patterns of the sample are found.  Either way every
        point of the returned Z is checked exactly.  ``"cells"`` enumerates the
        activation cells exactly and uses n0 + 1 points of each
        (:mod:`reluid.analysis.deep.cells`; sampling when they are too many).
    prime : int, optional, keyword-only
        The prime p (below 2^26); default the first of :data:`PRIMES` that
        divides no denominator.
    stop_at_upper_bound : bool, keyword-only
        Stop adding rows once the rank reaches U.

    Returns
    -------
    FunDimResult

    Examples
    --------
    >>> net = Network.from_lists([([[1, 2], [-1, 1], [2, -3]], [1, 0, -1]),
    ...                           ([[1, -1, 2], [2, 1, -1]], [0, 1]), ([[1, -2]], [1])])
    >>> r = functional_dimension(net, points=200)
    >>> r.rank, r.upper_bound, r.certified
    (15, 15, True)
    """
    t0 = time.perf_counter()
    if not isinstance(net, Network):
        raise InvalidArgument(f"expected a Network, got {type(net).__name__}")
    if method == "cells":   # n0 + 1 exact points in every activation cell (docs/mathematics.md §9)
        from reluid.analysis.deep.cells import cell_sample
        pts = cell_sample(net)
        if pts:
            r = functional_dimension(net, points=pts, seed=seed, prime=prime, stop_at_upper_bound=stop_at_upper_bound)
            return dataclasses.replace(r, method="cells", seconds=time.perf_counter() - t0)
        method = "auto"
    if method not in ("auto", "float-filter", "exact"):
        raise InvalidArgument(f"method must be 'auto', 'float-filter' or 'exact', got {method!r}")
    arch = net.architecture
    n0, nd = arch[0], arch[-1]
    U, why = upper_bound(arch)
    D = net.n_params
    p = prime if prime is not None else _choose_prime(net)
    if not (2 < p < (1 << 26)) or not flint.fmpz(p).is_prime():
        raise InvalidArgument(f"p must be an odd prime below 2^26, got {p}")

    # ---- the sample: integer numerators over a power of two ------------
    if points is None or isinstance(points, (int, np.integer)):
        count = int(points) if points is not None else points_factor * U
        if count < 1:
            raise InvalidArgument(f"need at least one point, got {count}")
        Xn = sample_points(n0, count, seed)
        bits = DYADIC_BITS
        exact_pts = None
    else:
        exact_pts = [tuple(to_rational(t) for t in x) for x in points]
        if any(len(x) != n0 for x in exact_pts):
            raise InvalidArgument(f"every point needs {n0} coordinates")
        if not exact_pts:
            raise InvalidArgument("need at least one point")
        Xn = None
        bits = None
    N = len(exact_pts) if exact_pts is not None else Xn.shape[0]
    if method == "auto" or exact_pts is not None:  # explicit points are always classified exactly
        method = "exact" if exact_pts is not None else "float-filter"

    def point(k: int) -> tuple[Fraction, ...]:
        return exact_pts[k] if exact_pts is not None else _fractions(Xn[k], bits)

    intnet = _IntNet(net)
    hidden = arch[1:-1]

    # ---- activation patterns ------------------------------------------
    if method == "exact" or Xn is None:
        pats = []
        for k in range(N):
            pats.append(intnet.pattern(point(k)))
        smooth = np.array([all(all(s) for s in pt) for pt in pats], dtype=bool)
        masks = [np.array([[s > 0 for s in pt[l]] for pt in pats], dtype=bool).reshape(N, hidden[l])
                 for l in range(len(hidden))]
    else:
        masks, uncertain = _float_patterns(net, Xn / float(1 << bits))
        smooth = ~uncertain
        for k in np.flatnonzero(uncertain)[:200]:  # decide a few exactly, drop the rest
            pt = intnet.pattern(point(int(k)))
            if all(all(s) for s in pt):
                smooth[k] = True
                for l in range(len(hidden)):
                    masks[l][k] = np.array([s > 0 for s in pt[l]], dtype=bool)

    def residues(idx: np.ndarray) -> np.ndarray:
        if Xn is not None:
            inv = pow(1 << bits, -1, p)
            return Xn[idx] % p * inv % p
        return np.array([[_residue(q, p) for q in exact_pts[k]] for k in idx], dtype=np.int64).reshape(len(idx), n0)

    mod = _ModNet(net, p)
    _report("functional dimension: Jacobian rank", 0.1)
    excluded: set[int] = set()
    while True:
        res = _rank_pass(mod, masks, smooth, excluded, residues, U, D, n0, nd, stop_at_upper_bound)
        rank, Z, n_regions, n_rows, n_smooth, stopped = res
        # exact check of every witness point: smooth, and the pattern used is right
        bad = []
        for k in Z:
            pt = intnet.pattern(point(k))
            ok = all(all(s) for s in pt) and all(
                np.array_equal(masks[l][k], np.array([s > 0 for s in pt[l]], dtype=bool)) for l in range(len(hidden)))
            if not ok:
                bad.append(k)
        if not bad:
            break
        excluded.update(bad)
    if Z:
        rows = jacobian_rows_mod_p(mod, residues(np.array(Z)), [m[np.array(Z)] for m in masks])
        direct = _nmod(rows, p).rank()  # J_Z itself: the number that is certified
        if direct < rank:  # pragma: no cover - the two computations are the same mathematics
            raise AssertionError(f"rank bookkeeping {rank} exceeds the direct rank {direct} of J_Z")
        rank = direct  # (with several outputs J_Z may have a few more independent rows)
    if rank > U:  # pragma: no cover - would refute the upper bound
        raise AssertionError(f"rank {rank} exceeds the upper bound {U}")
    return FunDimResult(
        architecture=arch, n_params=D, upper_bound=U, upper_bound_reason=why, rank=rank, prime=p,
        points=tuple(point(k) for k in Z), n_sampled=N, n_smooth=n_smooth, n_regions=n_regions, n_rows=n_rows,
        stopped_early=stopped, seed=seed, method=method, seconds=time.perf_counter() - t0)


def _rank_pass(mod: _ModNet, masks, smooth, excluded, residues, U, D, n0, nd, stop):
    """One rank computation over the kept points; returns (rank, Z, regions, rows, smooth, stopped)."""
    p = mod.p
    ok = smooth.copy()
    if excluded:
        ok[list(excluded)] = False
    idx = np.flatnonzero(ok)
    n_smooth = int(idx.size)
    if idx.size == 0:
        return 0, [], 0, 0, 0, False
    # deduplicate by activation pattern, at most n0 + 1 points per region,
    # interleaved: the first point of every region, then the second, ...
    packed = np.packbits(np.concatenate([m[idx] for m in masks], axis=1), axis=1) if masks else \
        np.zeros((idx.size, 1), dtype=np.uint8)
    _, inverse = np.unique(packed, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    n_regions = int(inverse.max()) + 1
    order = np.argsort(inverse, kind="stable")
    counts = np.bincount(inverse)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank_in_region = np.empty(idx.size, dtype=np.int64)
    rank_in_region[order] = np.arange(idx.size) - np.repeat(starts, counts)
    keep = rank_in_region <= n0
    sel = np.lexsort((np.arange(idx.size), rank_in_region))
    sel = sel[keep[sel]]
    pts = idx[sel]

    def rows_for(chunk: np.ndarray) -> np.ndarray:
        return jacobian_rows_mod_p(mod, residues(chunk), [m[chunk] for m in masks])

    # first block: about U rows, its independent rows and null space
    first = max(1, -(-(U + 8) // nd))
    c0 = pts[:first]
    R0 = rows_for(c0)
    src0 = np.tile(c0, nd)
    indep = _independent_rows(R0, p)
    r0 = len(indep)
    Z = sorted({int(src0[i]) for i in indep})
    n_rows = R0.shape[0]
    if (r0 >= U and stop) or first >= pts.size:
        return r0, Z, n_regions, n_rows, n_smooth, first < pts.size
    X, nullity = _nmod(R0, p).nullspace()
    NE = _to_numpy(X)[:, :nullity]
    ech = _Echelon(nullity, p)
    limit = U - r0 if stop else nullity
    stopped = False
    chunk = 2048
    for s in range(first, pts.size, chunk):
        c = pts[s:s + chunk]
        R = rows_for(c)
        n_rows += R.shape[0]
        P = _matmul_mod(R, NE, p)
        ech.add(P, np.tile(c, nd), limit)
        _report("functional dimension: Jacobian rank", 0.1 + 0.9 * (r0 + len(ech.pivots)) / max(U, 1))
        if len(ech.pivots) >= limit and stop:
            stopped = s + chunk < pts.size
            break
    Z = sorted(set(Z) | set(ech.sources))
    return r0 + len(ech.pivots), Z, n_regions, n_rows, n_smooth, stopped
