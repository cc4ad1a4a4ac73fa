"""Certified functional dimension of ReLU networks, at the size of real MLPs.

The functional dimension of θ (Grigsby, Lindsey, Meyerhoff, Wu 2022,
Definition 7.3; Grigsby, Lindsey, Rolnick 2023, Definition F.2) is

    dim_fun(θ) = sup { rank J E_Z(θ) : Z ⊂ R^{n0} finite, parametrically smooth for θ },

where E_Z(θ) = (F_θ(z))_{z ∈ Z}.  This module computes

* the **upper bound** U = D - (n_1 + ... + n_{d-1}) (:func:`upper_bound`);
* a **certified lower bound** r for it, from explicit rational points x_1, …, x_R
  checked *exactly* to be generic (no hidden pre-activation is 0), one per
  activation region.

Region rows (docs/mathematics.md §6, Lemma R).  Inside the activation region
R_s of a generic point x (an open polyhedron), ∂_θ F_θ(x') is affine in x'.  So
the Jacobian rows at the n0 + 1 points x, x + εe_1, …, x + εe_{n0} (generic for
ε > 0 small) span the same space as the k (n0 + 1) *region rows*

    r(s, o, j) = [ δ^ℓ_o(s) ⊗ A^{ℓ-1}_s e_j ]_{ℓ = 1..d},   o = 1..k,  j = 0..n0,

where A^ℓ_s is the ((n_ℓ + 1) × (n0 + 1)) matrix of the affine map x̃ ↦ h̃^ℓ on
R_s (A^0 = I) and δ^ℓ_o(s) the back-propagated output o (both depend on the
pattern s only).  The rank of the region rows modulo a prime p is a certified
lower bound for dim_fun, attained by an explicit finite set of generic points.

Speed
-----
* **Layer 1 is Kronecker.**  The layer-1 part of r(s, o, j) is δ^1_o(s) ⊗ e_j: for
  each slot j the rows occupy their own n_1 columns, with the same coefficient
  vectors δ^1_o(s).  With a set P of pairs (s, o) whose δ^1 are independent
  (ρ = |P|, the *pivots*), rank = (n0 + 1) ρ + rank S, where S holds the rows
  r(s, o, j) - Σ_{t∈P} K_t r(t, j) (δ^1_{s,o} = Σ K_t δ^1_t) restricted to the
  D - n_1 (n0 + 1) parameters of layers 2..d.  For 64-32-32-16-10 that is 1 754
  columns instead of 3 834, for 784-128-128-10 17 802 instead of 118 282.
* **Regions, not points.**  One point per activation region suffices; points are
  drawn adaptively (Gaussian, rounded to multiples of 2^-20, float patterns
  deduplicated) and the computation stops at U.
* **Exact integers modulo p.**  Everything is int64 numpy modulo p < 2^26
  (large products through float64 BLAS on 13-bit halves, exact); the first
  block of rows goes through flint's ``nmod_mat`` (rank profile and kernel);
  after it only a basis N of the kernel still in question is kept, with the
  scaling directions ξ_u (always in the kernel) taken out, so a later row costs
  its projection on N.  Later regions are first *screened* with one random
  combination N g (a region whose rows project to Y ≠ 0 is missed with
  probability at most 1/p, which can only lower the rank found, never raise
  it), computed by one backward pass per pair without forming the region's
  affine maps; only the regions that pass are projected and eliminated.
* **Bounded.**  A ``deadline`` is checked before every chunk of a block, and a
  block (or the first elimination) is started only when its predicted wall
  time fits (the cost model, scaled by the run's wall/CPU ratio and by how far
  the last block exceeded its model); work whose memory estimate exceeds what
  the memory cap leaves (:func:`reluid.budget.memory_left_gb`) is not
  attempted.  The rank found so far is still a certified lower bound, and the
  result states what was left and an estimate of the time it would need.  A
  rank that stays put over several rounds while the sample at least doubles
  is reported as stalled (a measurement that the gap is likely real).

When r = U the functional dimension is certified equal to U.  When
r = D - N the hypotheses of Theorem A1 (local identifiability,
docs/mathematics.md §6) hold.  When r < U the gap is *evidence* of hidden
symmetries near θ (Grigsby, Lindsey, Rolnick 2023, Lemma F.6), not a proof.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Mapping, Sequence

import flint
import numpy as np

from reluid.analysis.progress import report as _report
from reluid.budget import load_slowdown, memory_cap_gb, memory_left_gb, resident_gb
from reluid.errors import InvalidArgument, InvalidNetwork
from reluid.model.modp import matmul_mod as _mm, pivot_columns
from reluid.model.network import Network
from reluid.model.rational import to_rational
from reluid.verdicts import Reason, ReasonCode, StopReason

__all__ = ["FunDimResult", "FunDimStop", "functional_dimension", "upper_bound", "identifiability_bound",
           "estimate_seconds", "estimate_memory_gb",
           "jacobian_rows_mod_p", "region_rows_mod_p", "exact_pattern", "sample_points", "PRIMES", "DYADIC_BITS"]

#: Primes below 2^26 tried in order (a prime dividing a denominator is skipped).
PRIMES = (67108859, 67108837, 67108819, 67108777)
#: Sample points are Gaussian samples rounded to multiples of 2^-DYADIC_BITS (exactly).
DYADIC_BITS = 20
#: Most entries materialised at once (rows × columns), and most entries handed to flint at once.
_MAX_ENTRIES = 1 << 24
_MAX_FLINT_ENTRIES = 60_000_000
#: Used only to word results made before the memory cap was recorded; the cap itself is
#: :func:`reluid.budget.memory_cap_gb` (``--memory-gb``).
MAX_MEMORY_GB = 8.0
#: A block is not started once the process holds this fraction of the memory cap (``"memory cap"``).
MEMORY_STOP = 0.6

# Cost model (CPU seconds per unit, this project's 2-core reference machine under load; only used to
# decide what fits in a time budget and to state how long unfinished work would take).  The flint
# figures are measured with other processes on both cores (an idle machine is 2-3 times faster): a
# model that is too optimistic lets one elimination, which cannot be interrupted, run past the
# deadline (64-32-32-16-10: a 1153 × 1754 elimination modelled at 1.1 s took 3.5 s).
_C_RREF = 6e-10        # flint rref, per m · n · rank
_C_FLINT_IN = 3e-7     # building an nmod_mat, per entry
_C_ENTRY = 5.5e-7      # reading one entry of a flint matrix back into Python (the kernel basis)
_C_NUMPY = 4e-9        # int64 / split-float work per entry produced
_C_EXACT = 4e-7        # exact integer forward pass, per multiply-add


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FunDimResult:
    """A certified lower bound on dim_fun(θ), the upper bound U, and how it was found.

    Attributes
    ----------
    architecture : tuple of int
    n_params : int
        D, the number of parameters.
    upper_bound : int
        U (D - number of hidden neurons, or less for width-one chains).
    upper_bound_reason : str
    rank : int
        rank over F_p of the region rows of ``points``: a certified lower bound for dim_fun(θ).
    prime : int
    points : tuple of tuple of Fraction
        One exactly generic point per activation region used (the witnesses).
    pivots : tuple of (int, int)
        (point index, output) pairs whose layer-1 back-propagated vectors δ^1 are independent.
    rows : tuple of (int, int, int)
        (point index, output, slot j) of the reduced rows of S that are independent.
    n_sampled, n_smooth, n_regions, n_rows : int
        Points drawn, points with a certain (float-filtered or exact) generic pattern,
        distinct activation regions seen, region rows examined.
    stopped_early : bool
        The rank reached U before every region of the sample was examined.
    stop_reason : str
        ``"upper bound reached"``, ``"sample exhausted"``, ``"memory cap"`` (stopped before a block
        with the process holding most of the memory cap), ``"rank stalled"`` (the last ``stall_rounds``
        rounds, ``stall_regions`` activation regions, added nothing: the sample kept growing while the rank
        did not, a measurement that the gap is likely real, not a proof), ``"time budget"`` or
        ``"not attempted"`` (:attr:`stop` gives the same as structured data).
    estimate_s : float or None
        When stopped by the time budget: the estimated seconds the whole computation needs.
    estimate_gb : float or None
        When not attempted: the estimated peak memory (GB).
    memory_cap_gb : float or None
        When not attempted: the memory the estimate was compared with (:func:`reluid.budget.memory_left_gb`).
    stall_rounds, stall_regions : int
        Rounds (blocks of regions, or sampling rounds that found no new region) and activation regions
        examined since the rank last grew.
    triangular : mapping or None
        When the rank was certified by Theorem A3 (docs/mathematics.md §6.4) instead: its evidence
        (``method: triangular``); ``points`` are then its points and ``pivots``, ``rows`` are empty.
    seed : int
    method : str
        ``"float-filter"`` or ``"exact"`` (how patterns of the sample were found; witness
        points are always checked exactly).
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
    pivots: tuple[tuple[int, int], ...] = ()
    rows: tuple[tuple[int, int, int], ...] = ()
    stop_reason: StopReason = StopReason.SAMPLE_EXHAUSTED
    estimate_s: float | None = None
    seconds: float = field(default=0.0, compare=False)
    estimate_gb: float | None = None
    memory_cap_gb: float | None = None
    stall_rounds: int = 0
    stall_regions: int = 0
    triangular: Mapping | None = field(default=None, compare=False)   # evidence (a dict): not hashed

    @property
    def certified(self) -> bool:
        """``True`` when the lower bound meets U: dim_fun(θ) = U is certified."""
        return self.rank == self.upper_bound

    @property
    def gap(self) -> int:
        return self.upper_bound - self.rank

    @property
    def complete(self) -> bool:
        """The computation ran to its end (U reached, the sample exhausted or the rank stalled), not stopped by time."""
        return StopReason(self.stop_reason).complete

    @property
    def stop(self) -> "FunDimStop":
        """Why the computation stopped, as structured data (a code and its parameters)."""
        return FunDimStop(self.stop_reason, rank=self.rank, upper_bound=self.upper_bound, seconds=self.seconds,
                          estimate_s=self.estimate_s, estimate_gb=self.estimate_gb,
                          memory_cap_gb=self.memory_cap_gb, stall_rounds=self.stall_rounds,
                          stall_regions=self.stall_regions)

    @property
    def full_rank(self) -> bool:
        """rank = D - N: the rank hypothesis of Theorem A1 (local identifiability) holds."""
        return self.rank == identifiability_bound(self.architecture)

    def summary(self) -> Reason:
        """What the computation came to, as data (``fundim-result``; :func:`reluid.report.reasons.fundim_words`
        words it)."""
        mem = cap = None                    # what a computation not attempted would need, and the cap it exceeds
        if self.stop_reason == StopReason.NOT_ATTEMPTED:
            mem = self.estimate_gb if self.estimate_gb is not None else estimate_memory_gb(self.architecture)
            cap = self.memory_cap_gb if self.memory_cap_gb is not None else MAX_MEMORY_GB
        return Reason(ReasonCode.FUNDIM, {
            "architecture": self.architecture, "n_params": self.n_params, "stop": self.stop_reason,
            "certified": self.certified, "by_theorem_a3": self.triangular is not None, "complete": self.complete,
            "rank": self.rank, "upper_bound": self.upper_bound, "stall_rounds": self.stall_rounds,
            "stall_regions": self.stall_regions, "estimate_s": self.estimate_s, "estimate_gb": mem, "cap_gb": cap,
            "points": len(self.points), "prime": self.prime, "smooth": self.n_smooth, "sampled": self.n_sampled,
            "regions": self.n_regions, "rows": self.n_rows, "stopped_early": self.stopped_early})


@dataclass(frozen=True, slots=True)
class FunDimStop:
    """Why :func:`functional_dimension` stopped: ``code`` (a ``stop_reason``) and the numbers that go with it.

    Reports word it; analyses compare codes (``"rank stalled"`` is a measurement that more time is unlikely
    to raise the rank, ``"time budget"`` that it might).
    """

    code: StopReason
    rank: int
    upper_bound: int
    seconds: float = 0.0
    estimate_s: float | None = None
    estimate_gb: float | None = None
    memory_cap_gb: float | None = None
    stall_rounds: int = 0
    stall_regions: int = 0


def nonempty_layers(net: Network) -> None:
    """Refuse a network with an empty hidden layer (constant past it): the Jacobian rank needs every layer."""
    empty = next((l for l, n in enumerate(net.hidden_widths, 1) if n == 0), None)
    if empty is not None:
        raise InvalidNetwork(f"hidden layer {empty} of {net.architecture} has no neurons, so the network is constant "
                             "past it; the functional dimension needs every hidden layer nonempty")


def _arch(architecture) -> tuple[int, ...]:
    arch = tuple(int(a) for a in architecture)
    if len(arch) < 2 or any(a < 1 for a in arch):
        raise InvalidArgument(f"not an architecture: {arch}")
    return arch


def identifiability_bound(architecture: Sequence[int]) -> int:
    """D - N (N hidden neurons): the rank Theorem A1 asks for (docs/mathematics.md §6).

    >>> identifiability_bound((2, 3, 1))
    10
    """
    arch = _arch(architecture)
    return sum(arch[l + 1] * (arch[l] + 1) for l in range(len(arch) - 1)) - sum(arch[1:-1])


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
    arch = _arch(architecture)
    D = sum(arch[l + 1] * (arch[l] + 1) for l in range(len(arch) - 1))
    H = sum(arch[1:-1])
    U = D - H
    why = f"U = D - (number of hidden neurons) = {D} - {H} (Grigsby-Lindsey-Meyerhoff-Wu 2022)"
    k = arch[-1]
    if all(a == 1 for a in arch[:-1]) and len(arch) >= 3 and 2 * k + 2 < U:
        return 2 * k + 2, (f"U = 2k + 2 = {2 * k + 2} < D - H = {U}: a width-one chain computes a clipped "
                           "ramp (two breakpoints, value at -inf, total change)")
    return U, why


def _rank_problem(arch) -> tuple[int, int]:
    """(columns of S, rank of S needed): the parameters of layers 2..d and U - n_1 (n0 + 1)."""
    n0, k = arch[0], arch[-1]
    D = sum(arch[l + 1] * (arch[l] + 1) for l in range(len(arch) - 1))
    n1 = arch[1] if len(arch) > 2 else k
    cols = D - n1 * (n0 + 1)
    return cols, max(0, upper_bound(arch)[0] - n1 * (n0 + 1))


def estimate_seconds(architecture: Sequence[int]) -> float:
    """A rough estimate of the CPU seconds :func:`functional_dimension` needs to reach U.

    Fitted on this project's 2-core machine (CPU seconds, within a factor of
    about 1.5 from 64-32-32-16-10 to 384-64-64-10): the eliminations of S, about
    4·10^-10 · columns · rank², the region rows formed and projected, about
    4·10^-9 · (n0 + 1) · columns · rank (the input width enters here: every pair
    (s, o) has n0 + 1 rows), plus per-region work proportional to the columns.

    >>> 1 < estimate_seconds((64, 32, 32, 16, 10)) < 10
    True
    >>> estimate_seconds((384, 64, 64, 10)) > 1.4 * estimate_seconds((100, 64, 64, 10))
    True
    """
    arch = _arch(architecture)
    cols, need = _rank_problem(arch)
    return 4e-10 * cols * need * need + 4e-9 * (arch[0] + 1) * cols * need + 8e-4 * cols + 0.3


def estimate_memory_gb(architecture: Sequence[int]) -> float:
    """Peak memory (GB): the first elimination block (its rows as int64, as flint entries and as Python ints),
    the kernel basis it leaves when it is capped below the rank needed (with the temporaries of its
    updates), the chunks of region rows formed on the way (up to about six arrays of 2^24 entries, fewer when
    (n0 + 1) · columns · (pairs needed) is smaller), and the interpreter with numpy and flint (0.2 GB).

    >>> estimate_memory_gb((384, 64, 64, 10)) > estimate_memory_gb((32, 64, 64, 10))
    True
    """
    arch = _arch(architecture)
    cols, need = _rank_problem(arch)
    n1 = arch[1] if len(arch) > 2 else arch[-1]
    entries = min(1.15 * need * cols, _MAX_FLINT_ENTRIES + 0.0) if need * cols else 0.0
    formed = min(1.0, (arch[0] + 1) * cols * max(1, need // (n1 + 1)) / _MAX_ENTRIES) * 6 * 8 * _MAX_ENTRIES
    width = max(0.0, cols - entries / max(1, cols))        # the kernel basis N left by the first block
    kernel = 4 * 8 * cols * width if width > cols - need else 0.0   # N and the temporaries of N · N'
    return (entries * (8 + 8 + 36) + formed + kernel) / 1e9 + 0.2


# ---------------------------------------------------------------------------
# exact evaluation (integers) and sampling
# ---------------------------------------------------------------------------

class _IntNet:
    """The network over a common denominator per layer, for exact signs fast."""

    __slots__ = ("layers", "_fmpz")

    def __init__(self, net: Network):
        layers = []
        for L in net.layers[:-1]:
            vals = [x for r in L.weight for x in r] + list(L.bias)
            den = math.lcm(*{q.denominator for q in vals})
            ints = [q.numerator * (den // q.denominator) for q in vals]
            n_in = L.n_in
            W = [ints[i * n_in:(i + 1) * n_in] for i in range(L.n_out)]
            b = ints[L.n_out * n_in:]
            layers.append((W, b, den))
        self.layers = layers
        self._fmpz = None

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

    def patterns(self, points: Sequence[Sequence[Fraction]]) -> list[tuple[tuple[int, ...], ...]]:
        """:meth:`pattern` of many points at once (flint integer matrix products, exact)."""
        if not points:
            return []
        if self._fmpz is None:
            self._fmpz = [flint.fmpz_mat([list(row) + [bi] for row, bi in zip(W, b)]).transpose()
                          for W, b, _ in self.layers]
        den_x = 1
        for x in points:
            for q in x:
                den_x = den_x * q.denominator // math.gcd(den_x, q.denominator)
        H = [[int(q * den_x) for q in x] + [den_x] for x in points]
        out: list[list[tuple[int, ...]]] = [[] for _ in points]
        for (W, b, den), Wt in zip(self.layers, self._fmpz):
            Z = (flint.fmpz_mat(H) * Wt).tolist()
            scale = H[0][-1] * den
            H = []
            for k, z in enumerate(Z):
                zi = [int(v) for v in z]
                out[k].append(tuple((v > 0) - (v < 0) for v in zi))
                H.append([v if v > 0 else 0 for v in zi] + [scale])
        return [tuple(o) for o in out]


def exact_pattern(net: Network, x: Sequence) -> tuple[tuple[int, ...], ...]:
    """Exact signs of all hidden pre-activations at x (0 means not smooth there)."""
    return _IntNet(net).pattern(tuple(to_rational(t) for t in x))


def sample_points(n0: int, count: int, seed: int = 0) -> np.ndarray:
    """``count`` points from N(0, I) rounded to multiples of 2^-20, as integer numerators.

    The point is ``row / 2**DYADIC_BITS`` exactly (numpy ``int64`` array).
    Drawing them in several calls on one generator gives the same points.
    """
    rng = np.random.default_rng(seed)
    return _draw(rng, n0, count)


def _draw(rng, n0: int, count: int) -> np.ndarray:
    return np.rint(rng.standard_normal((count, n0)) * (1 << DYADIC_BITS)).astype(np.int64)


def _fractions(row, bits=DYADIC_BITS) -> tuple[Fraction, ...]:
    return tuple(Fraction(int(v), 1 << bits) for v in row)


def _float_patterns(Wf, bf, X: np.ndarray, rtol: float = 1e-9):
    """Activation masks from a float64 pass and a per-point 'uncertain' flag.

    A pre-activation is uncertain when |z| <= rtol · (max |h| · max_i ||W_i||_1 + max |b|) over the
    whole batch, a bound far above the float64 error of any entry; uncertain points are decided
    exactly or dropped, and every witness point is checked exactly anyway.
    """
    h = X
    masks, bad = [], []
    for W, b in zip(Wf, bf):
        z = h @ np.ascontiguousarray(W.T)
        z += b
        thr = rtol * (float(np.abs(h).max(initial=0.0)) * float(np.abs(W).sum(axis=1).max(initial=0.0))
                      + float(np.abs(b).max(initial=0.0))) + 1e-300
        flat = np.flatnonzero(np.abs(z).ravel() <= thr)
        if flat.size:
            bad.append(flat // z.shape[1])
        m = z > 0
        masks.append(m)
        h = np.maximum(z, 0.0)
    uncertain = np.zeros(X.shape[0], dtype=bool)
    for idx in bad:
        uncertain[idx] = True
    return masks, uncertain


# ---------------------------------------------------------------------------
# arithmetic modulo p
# ---------------------------------------------------------------------------

def _choose_prime(net: Network) -> int:
    for p in PRIMES:
        if all(q.denominator % p for L in net.layers for q in (*(x for r in L.weight for x in r), *L.bias)):
            return p
    raise InvalidArgument("every candidate prime divides a denominator of the network")  # pragma: no cover


class _ModNet:
    """Residues of the augmented layers W̃^ℓ = [W^ℓ | b^ℓ] (n_ℓ × (n_{ℓ-1} + 1))."""

    __slots__ = ("p", "W", "b", "Wt", "dims")

    def __init__(self, net: Network, p: int):
        self.p = p
        inv: dict[int, int] = {}

        def res(vals):
            out = []
            for q in vals:
                d = q.denominator
                if d not in inv:
                    inv[d] = pow(d, -1, p)
                out.append(q.numerator % p * inv[d] % p)
            return np.array(out, dtype=np.int64)

        self.W = [res([x for r in L.weight for x in r]).reshape(L.n_out, L.n_in) for L in net.layers]
        self.b = [res(L.bias) for L in net.layers]
        self.Wt = [np.concatenate([W, b[:, None]], axis=1) for W, b in zip(self.W, self.b)]
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


def _forward(mod: _ModNet, masks: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The affine maps of R regions (``masks[l]``: R × n_{l+1} bool), mod p.

    ``A[ℓ]`` (ℓ = 0..d-1) is R × (n_ℓ + 1) × (n0 + 1): x̃ ↦ h̃^ℓ on the region (last row e_{n0}).
    """
    p = mod.p
    R = masks[0].shape[0] if masks else 1
    dims = mod.dims
    n0, d = dims[0], len(dims) - 1
    A = [np.broadcast_to(np.eye(n0 + 1, dtype=np.int64), (R, n0 + 1, n0 + 1))]
    last = np.zeros((R, 1, n0 + 1), dtype=np.int64)
    last[:, 0, n0] = 1
    for l in range(1, d):
        if l == 1:
            z = np.broadcast_to(mod.Wt[0], (R,) + mod.Wt[0].shape)
        else:
            z = _mm(mod.Wt[l - 1], A[-1], p)
        z = z * masks[l - 1][:, :, None]
        A.append(np.concatenate([z, last], axis=1))
    return A


def _backward(mod: _ModNet, masks: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The back-propagations of R regions, mod p: ``B[ℓ - 1]`` is R × n_ℓ × k, column o is δ^ℓ_o (ℓ = 1..d)."""
    p = mod.p
    R = masks[0].shape[0] if masks else 1
    dims = mod.dims
    d, k = len(dims) - 1, dims[-1]
    B = [None] * d
    B[d - 1] = np.broadcast_to(np.eye(k, dtype=np.int64), (R, k, k))
    for l in range(d - 1, 0, -1):
        WT = np.ascontiguousarray(mod.W[l].T)             # n_l × n_{l+1}
        B[l - 1] = _mm(WT, B[l], p) * masks[l - 1][:, :, None]
    return B


def _region_data(mod: _ModNet, masks: Sequence[np.ndarray]):
    """(:func:`_forward`, :func:`_backward`) of R regions."""
    return _forward(mod, masks), _backward(mod, masks)


def region_rows_mod_p(mod: _ModNet, masks: Sequence[np.ndarray]) -> np.ndarray:
    """All region rows r(s, o, j) (R·k·(n0+1) × D), columns per layer ℓ as (neuron, input-or-bias).

    The direct construction (no Kronecker reduction), for tests and small networks.
    """
    A, B = _region_data(mod, masks)
    p = mod.p
    R = A[0].shape[0]
    k, n0 = mod.dims[-1], mod.dims[0]
    blocks = []
    for l in range(1, len(mod.dims)):
        a = A[l - 1].transpose(0, 2, 1)                   # R × (n0+1) × (n_{l-1}+1)
        b = B[l - 1].transpose(0, 2, 1)                   # R × k × n_l
        blk = (b[:, :, None, :, None] * a[:, None, :, None, :]) % p
        blocks.append(blk.reshape(R * k * (n0 + 1), -1))
    return np.concatenate(blocks, axis=1)


# ---------------------------------------------------------------------------
# rank bookkeeping
# ---------------------------------------------------------------------------

def _rows_nonzero(Y: np.ndarray) -> np.ndarray:
    """Y.any(axis=1), faster for narrow Y."""
    if Y.ndim != 2 or Y.shape[1] > 64 or Y.shape[0] < 256:
        return Y.any(axis=1)
    return np.any(np.ascontiguousarray(Y.T) != 0, axis=0)


def _nmod(rows: np.ndarray, p: int) -> "flint.nmod_mat":
    return flint.nmod_mat(int(rows.shape[0]), int(rows.shape[1]), rows.ravel().tolist(), p)


def _eliminate_small(Y: np.ndarray, p: int) -> tuple[list[int], list[int], np.ndarray]:
    """Gaussian elimination of a narrow matrix (numpy).

    Returns (rows, cols, E): ``rows`` index a maximal independent set of rows of Y,
    ``cols`` their pivot columns, and E (len(rows) × width) the reduced echelon basis
    of their span (E[i, cols[i]] = 1, E[i, cols[j]] = 0 for j != i).  Rows are taken in
    chunks; each chunk is reduced against the basis so far in one product, and each new
    pivot is eliminated from the rest of the chunk at once, so the Python loop runs once
    per pivot, not once per row.
    """
    m, w = Y.shape
    rows: list[int] = []
    cols: list[int] = []
    E = np.zeros((0, w), dtype=np.int64)
    start = 0
    step = max(16, 2 * w)
    while start < m and len(rows) < w:
        blk = Y[start:start + step] % p
        if rows:
            blk = (blk - _mm(blk[:, cols], E, p)) % p
        live = np.flatnonzero(_rows_nonzero(blk))
        while live.size and len(rows) < w:
            t = int(live[0])
            v = blk[t]
            c = int(np.flatnonzero(v)[0])
            v = v * pow(int(v[c]), -1, p) % p
            if rows:
                E = (E - (E[:, c:c + 1] * v[None, :]) % p) % p
            E = np.vstack([E, v[None, :]])
            rows.append(start + t)
            cols.append(c)
            rest = live[1:]
            if not rest.size:
                break
            sub = blk[rest]
            sub = (sub - (sub[:, c:c + 1] * v[None, :]) % p) % p
            blk[rest] = sub
            live = rest[_rows_nonzero(sub)]
        start += step
    return rows, cols, E


class _Delta:
    """Independent layer-1 vectors δ^1 (the pivots), in reduced echelon form with their coefficients."""

    def __init__(self, n1: int, p: int):
        self.p, self.n1 = p, n1
        self.E = np.zeros((0, n1), dtype=np.int64)     # reduced rows, E = T · G
        self.T = np.zeros((0, 0), dtype=np.int64)
        self.cols: list[int] = []                       # pivot column of each row of E
        self.sources: list[tuple[int, int]] = []        # (region, output) of each row of G

    @property
    def full(self) -> bool:
        return len(self.cols) == self.n1

    def residual(self, V: np.ndarray) -> np.ndarray:
        if not self.cols:
            return V % self.p
        return (V - _mm(V[:, self.cols], self.E, self.p)) % self.p

    def add(self, v: np.ndarray, source: tuple[int, int]) -> bool:
        """Add ``v`` as a pivot if it is independent of the pivots; return whether it was."""
        p = self.p
        r = self.residual(v[None, :])[0]
        nz = np.flatnonzero(r)
        if nz.size == 0:
            return False
        c = int(nz[0])
        inv = pow(int(r[c]), -1, p)
        rho = len(self.cols)
        coef = np.zeros(rho + 1, dtype=np.int64)       # r = v - v[cols] E = [-v[cols] T, 1] · [G; v]
        if rho:
            coef[:rho] = (-_mm(v[None, self.cols], self.T, p)[0]) % p
        coef[rho] = 1
        e = r * inv % p
        coef = coef * inv % p
        T = np.concatenate([self.T, np.zeros((rho, 1), dtype=np.int64)], axis=1) if rho else self.T.reshape(0, 1)
        if rho:
            f = self.E[:, c].copy()
            self.E = (self.E - np.outer(f, e) % p) % p
            T = (T - np.outer(f, coef) % p) % p
        self.E = np.vstack([self.E, e[None, :]])
        self.T = np.vstack([T, coef[None, :]])
        self.cols.append(c)
        self.sources.append(source)
        return True

    def coefficients(self, V: np.ndarray) -> np.ndarray:
        """K with V = K · G for rows V in the span of the pivots (V[:, cols] · T)."""
        return _mm(V[:, self.cols], self.T, self.p)


class _Kernel:
    """The rank of the S rows found so far and a basis N of the part of their kernel still in question.

    N (ncols × width) has the identity at its rows ``F`` (so a kernel vector v
    is N · v[F]).  Directions known to lie in the kernel of every region row
    (the scalings ξ_u) are taken out once (:meth:`quotient`); later rows are
    only projected on what is left, so a block costs rows × width.
    """

    def __init__(self, ncols: int, p: int):
        self.p, self.ncols = p, ncols
        self.N: np.ndarray | None = None               # None: the identity (nothing found yet)
        self.F = list(range(ncols))
        self.rank = 0
        self.known = 0                                  # kernel directions taken out by quotient()
        self.ids: list[tuple[int, int, int]] = []
        #: the rank reached what was needed (U): every further row is dependent, and N is not kept current
        self.saturated = False
        #: changes of N since a consumer started tracking them (None: nobody tracks): ("mul", Nn) for
        #: N ← N · Nn, ("keep", columns) for N ← N[:, columns], ("reset",) for a new N
        self.ops: list | None = None

    @property
    def width(self) -> int:
        return self.ncols - self.rank - self.known

    def project(self, S: np.ndarray) -> np.ndarray:
        return S if self.N is None else _mm(S, self.N, self.p)

    def add(self, Y: np.ndarray, ids: Sequence[tuple[int, int, int]], need: int, group: int = 1) -> int:
        """Add rows whose projections on N are Y (their ``ids``); keep the independent ones; return how many.

        ``need`` is how many more are wanted: once they are found the kernel is not updated.  Rows come
        in groups of ``group`` consecutive rows (the slots of one pair (s, o)); each group is first
        thinned to rows independent among themselves (a rank profile of Y·Ω for a random Ω, which
        keeps only rows that are independent in Y), so the block elimination sees few dependent rows.
        """
        p = self.p
        w = self.width
        if w == 0 or Y.shape[0] == 0 or need <= 0 or self.saturated:
            return 0
        sel = self._thin(Y, group)
        if not sel.size:
            return 0
        Yn = Y[sel]
        if w <= 160:                                         # narrow: numpy elimination
            indep, piv, E = _eliminate_small(Yn, p)
            r = len(indep)
            R = None
        else:
            M = _nmod(Yn, p)
            RT, r = M.transpose().rref()
            indep = pivot_columns(RT, r) if r else []
        if r == 0:  # pragma: no cover - nonzero rows have rank >= 1
            return 0
        self.ids.extend(ids[int(sel[i])] for i in indep)
        if r < need and r < w:
            if w > 160:                                    # the kernel of Yn is that of its independent rows
                R, r2 = (M if r == Yn.shape[0] else _nmod(Yn[indep], p)).rref()
                piv = pivot_columns(R, r2)
            pivset = set(piv)
            free = [f for f in range(w) if f not in pivset]
            Nn = np.zeros((w, len(free)), dtype=np.int64)
            Nn[free, np.arange(len(free))] = 1
            if R is None:
                Nn[piv, :] = (p - E[:, free]) % p
            else:
                for t, f in enumerate(free):
                    for i, c in enumerate(piv):
                        v = int(R[i, f])
                        if v:
                            Nn[c, t] = p - v
            if self.ops is not None:
                self.ops.append(("reset",) if self.N is None else ("mul", Nn))
            self.N = Nn if self.N is None else _mm(self.N, Nn, p)
            self.F = [self.F[f] for f in free]
        elif r >= need:
            self.saturated = True
        self.rank += r
        return r

    def _thin(self, Y: np.ndarray, group: int) -> np.ndarray:
        """Indices of nonzero rows, each group thinned to rows independent within the group."""
        p = self.p
        w = Y.shape[1]
        nz = _rows_nonzero(Y)
        if group <= 8 or Y.shape[0] % group or w <= 64:
            return np.flatnonzero(nz)                    # small: the block elimination is cheap anyway
        G = Y.shape[0] // group
        s = min(w, group + 8)
        if s < w:
            omega = np.random.default_rng(0x5eed).integers(0, p, size=(w, s), dtype=np.int64)
            Z = _mm(Y, omega, p)
        else:
            Z = Y
        out = []
        for g in range(G):
            rows = np.flatnonzero(nz[g * group:(g + 1) * group])
            if not rows.size:
                continue
            Zg = Z[g * group + rows]
            if rows.size == 1:
                out.append(g * group + rows)
                continue
            RT, r = _nmod(np.ascontiguousarray(Zg.T), p).rref()
            out.append(g * group + rows[pivot_columns(RT, r)])
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)

    def quotient(self, Xi: np.ndarray) -> None:
        """Take out the span of the columns of Xi (ncols × h), known to lie in the kernel of every row.

        Xi = N · Xi[F]; N is replaced by its columns at coordinates complementing
        those where Xi[F] is invertible, which spans a complement of span Xi in span N.
        """
        if self.N is None or self.saturated or not Xi.shape[1] or not self.width:
            return
        p = self.p
        X = Xi[self.F] % p                                   # width × h
        if not X.any():
            return
        RT, h = _nmod(np.ascontiguousarray(X.T), p).rref()  # h × width: pivots = coordinates carrying Xi
        piv = set(pivot_columns(RT, h))
        keep = [t for t in range(X.shape[0]) if t not in piv]
        if self.ops is not None:
            self.ops.append(("keep", keep))
        self.N = np.ascontiguousarray(self.N[:, keep])
        self.F = [self.F[t] for t in keep]
        self.known += h


# ---------------------------------------------------------------------------
# the computation
# ---------------------------------------------------------------------------

class _Stop(Exception):
    pass


def functional_dimension(net: Network, *, points: int | Sequence | None = None, seed: int = 0,
                         points_factor: int = 100, method: str = "auto", prime: int | None = None,
                         stop_at_upper_bound: bool = True, deadline: float | None = None,
                         progress: Callable[[str], None] | None = None) -> FunDimResult:
    """Certified lower bound (and, when it meets U, the value) of dim_fun(θ).

    Parameters
    ----------
    net : Network
        Any depth; every entry an exact rational.
    points : int or sequence of rational points, optional, keyword-only
        The most Gaussian points to draw (default ``points_factor × U``, the
        protocol of Grigsby, Lindsey, Rolnick 2023, Section 6); points are
        drawn in growing batches and the computation stops when the rank
        reaches U.  Or explicit points (classified exactly).
    seed : int, keyword-only
        Seeds the sample (``numpy.random.default_rng(seed)``).
    points_factor : int, keyword-only
        Used when ``points`` is None (the paper uses 100).
    method : {"auto", "float-filter", "exact", "cells"}, keyword-only
        How activation patterns of the sample are found.  Either way every
        witness point is checked exactly.  ``"cells"`` enumerates the
        activation cells exactly and uses n0 + 1 points of each
        (:mod:`reluid.analysis.deep.cells`; sampling when they are too many).
    prime : int, optional, keyword-only
        The prime p (below 2^26); default the first of :data:`PRIMES` that
        divides no denominator.
    stop_at_upper_bound : bool, keyword-only
        Stop once the rank reaches U.
    deadline : float, optional, keyword-only
        A ``time.monotonic()`` time: work that would run past it is not
        started; the result then says so (``stop_reason == "time budget"``)
        and estimates the time needed.
    progress : callable, optional, keyword-only
        Called with a short status line after each block.

    Returns
    -------
    FunDimResult

    Examples
    --------
    >>> net = Network.from_lists([([[1, 2], [-1, 1], [2, -3]], [1, 0, -1]),
    ...                           ([[1, -1, 2], [2, 1, -1]], [0, 1]), ([[1, -2]], [1])])
    >>> r = functional_dimension(net, points=200)
    >>> r.rank, r.upper_bound, r.certified, len(r.points)
    (15, 15, True, 6)
    """
    t0 = time.perf_counter()
    if not isinstance(net, Network):
        raise InvalidArgument(f"expected a Network, got {type(net).__name__}")
    nonempty_layers(net)
    if method == "cells":   # n0 + 1 exact points in every activation cell (docs/mathematics.md §9)
        from reluid.analysis.deep.cells import cell_sample
        # the cell enumeration is charged to the same deadline (10 s at most, as before)
        left = 10.0 if deadline is None else max(0.0, min(10.0, deadline - time.monotonic()))
        pts = cell_sample(net, timeout=left)
        if pts:
            r = functional_dimension(net, points=pts, seed=seed, prime=prime, stop_at_upper_bound=stop_at_upper_bound,
                                     deadline=deadline, progress=progress)
            return dataclasses.replace(r, method="cells", seconds=time.perf_counter() - t0)
        method = "auto"
    if method not in ("auto", "float-filter", "exact"):
        raise InvalidArgument(f"method must be 'auto', 'float-filter' or 'exact', got {method!r}")
    arch = net.architecture
    n0, k = arch[0], arch[-1]
    hidden = arch[1:-1]
    U, why = upper_bound(arch)
    D = net.n_params
    p = prime if prime is not None else _choose_prime(net)
    if not (2 < p < (1 << 26)) or not flint.fmpz(p).is_prime():
        raise InvalidArgument(f"p must be an odd prime below 2^26, got {p}")
    n1 = hidden[0] if hidden else k
    slots = n0 + 1
    cols = D - n1 * slots                                   # parameters of layers 2..d
    per_region = k * slots
    deadline = math.inf if deadline is None else deadline

    # ---- the sample -----------------------------------------------------
    exact_pts = None
    if points is None or isinstance(points, (int, np.integer)):
        count = int(points) if points is not None else points_factor * U
        if count < 1:
            raise InvalidArgument(f"need at least one point, got {count}")
    else:
        exact_pts = [tuple(to_rational(t) for t in x) for x in points]
        if any(len(x) != n0 for x in exact_pts):
            raise InvalidArgument(f"every point needs {n0} coordinates")
        if not exact_pts:
            raise InvalidArgument("need at least one point")
        count = len(exact_pts)
    if method == "auto" or exact_pts is not None:
        method = "exact" if exact_pts is not None else "float-filter"

    common = dict(architecture=arch, n_params=D, upper_bound=U, upper_bound_reason=why, prime=p, seed=seed,
                  method=method)
    estimate = estimate_seconds(arch)
    memory = estimate_memory_gb(arch)
    mem_left = memory_left_gb()
    if time.monotonic() + estimate / 3 > deadline or memory > mem_left:
        return FunDimResult(rank=0, points=(), n_sampled=0, n_smooth=0, n_regions=0, n_rows=0, stopped_early=False,
                            stop_reason=StopReason.NOT_ATTEMPTED, estimate_s=estimate, seconds=time.perf_counter() - t0,
                            estimate_gb=memory, memory_cap_gb=mem_left, **common)

    intnet = _IntNet(net)
    mod = _ModNet(net, p)
    Wf = [np.array([[float(x) for x in r] for r in L.weight], dtype=np.float64).reshape(L.n_out, L.n_in)
          for L in net.layers[:-1]]
    bf = [np.array([float(x) for x in L.bias], dtype=np.float64) for L in net.layers[:-1]]
    excluded: set[int] = set()
    while True:
        run = _Run(net, mod, intnet, Wf, bf, arch, U, cols, per_region, stop_at_upper_bound, deadline, progress,
                   excluded, estimate)
        run.go(exact_pts, count, seed, method)
        bad = run.verify_witnesses()
        if not bad:
            break
        excluded |= bad                                    # a float pattern was wrong: do it again without it
    rank = run.rank
    if rank > U:  # pragma: no cover - would refute the upper bound
        raise AssertionError(f"rank {rank} exceeds the upper bound {U}")
    pts, pivots, rows = run.witnesses()
    reason = run.reason
    if reason == StopReason.TIME_BUDGET and run.n_rows == 0:
        reason = StopReason.NOT_ATTEMPTED
    stopped = reason == StopReason.UPPER_BOUND and run.more_left
    est = estimate if reason == StopReason.NOT_ATTEMPTED else None
    if reason == StopReason.TIME_BUDGET:
        est = max(estimate, time.perf_counter() - t0 + run.estimate_left())
    return FunDimResult(rank=rank, points=pts, pivots=pivots, rows=rows, n_sampled=run.n_sampled,
                        n_smooth=run.n_smooth, n_regions=run.n_regions, n_rows=run.n_rows, stopped_early=stopped,
                        stop_reason=reason, estimate_s=est, seconds=time.perf_counter() - t0,
                        stall_rounds=run.stall_rounds, stall_regions=run.next_region - run.gain_region, **common)


def _pair_ids(r0: int, part: np.ndarray, k: int, slots: int) -> np.ndarray:
    """The (region, output, slot) triples of the rows of the pairs ``part`` (pair t: region r0 + t // k, output t % k)."""
    ids = np.empty((part.size, slots, 3), dtype=np.int64)
    ids[:, :, 0] = (r0 + part // k)[:, None]
    ids[:, :, 1] = (part % k)[:, None]
    ids[:, :, 2] = np.arange(slots)[None, :]
    return ids.reshape(-1, 3)


class _Run:
    """One pass of :func:`functional_dimension`: regions in, rank and witnesses out.

    Regions are kept as rows of arrays: ``X`` (dyadic numerators of one point per region, or
    ``xs`` for explicit exact points) and ``M[l]`` (the activation pattern of hidden layer l + 1).
    """

    #: Tuning: the first block aims at this fraction of the rank still needed; later blocks hold about
    #: ``BLOCK_ROWS`` × (kernel width) rows, more when the width is small.
    FIRST_BLOCK = 1.15
    BLOCK_ROWS = 1

    def __init__(self, net, mod, intnet, Wf, bf, arch, U, cols, per_region, stop, deadline, progress, excluded,
                 estimate):
        self.net, self.mod, self.intnet, self.Wf, self.bf = net, mod, intnet, Wf, bf
        self.arch, self.U, self.cols, self.per_region = arch, U, cols, per_region
        self.stop, self.deadline, self.progress, self.excluded = stop, deadline, progress, excluded
        self.estimate = estimate
        self.p = mod.p
        self.n0, self.k = arch[0], arch[-1]
        self.hidden = arch[1:-1]
        n1 = self.hidden[0] if self.hidden else self.k
        self.delta = _Delta(n1, self.p)
        self.kernel = _Kernel(cols, self.p)
        self.X = np.zeros((0, self.n0), dtype=np.int64)
        self.xs: list | None = None
        self.M = [np.zeros((0, w), dtype=bool) for w in self.hidden]
        self.keys = np.zeros(0, dtype=np.uint64)
        self.n_regions = 0
        self.seen = np.zeros(0, dtype=np.uint64)       # sorted keys of the regions queued
        self.salt = np.random.default_rng(0xC0FFEE).integers(1, 2**62, size=8, dtype=np.int64
                                                              ).astype(np.uint64) * np.uint64(2) + np.uint64(1)
        self.next_region = 0
        self.store: dict[int, tuple] = {}     # pivot region -> (A list, B list) for that region
        self.n_sampled = self.n_smooth = self.n_rows = 0
        self.reason = StopReason.SAMPLE_EXHAUSTED
        self.more_left = False
        self._pi = None                        # (N, number of pivots, Π) cache
        self.stall_rounds = 0                  # blocks processed since the rank last grew
        self._clock0 = (time.monotonic(), time.process_time())
        self.gain_region = 0                   # regions examined when the rank last grew
        self.gain_sampled = 0                  # points drawn when the rank last grew
        self._rng = np.random.default_rng(0x5C4EE7)

    # ---- rank -------------------------------------------------------------
    @property
    def rank(self) -> int:
        return (self.n0 + 1) * len(self.delta.cols) + self.kernel.rank

    def _say(self):
        text = f"rank {self.rank}/{self.U}, {self.next_region} activation regions, {self.n_sampled} points"
        _report(f"functional dimension: Jacobian {text}", self.rank / max(self.U, 1))
        if self.progress is not None:
            self.progress(text)

    def _batch_cost(self, R: int) -> float:
        """Model seconds to process R more regions now."""
        rows = R * self.per_region
        T = max(1, len(self.store))
        cost = _C_EXACT * self.net.n_params + _C_NUMPY * R * self.net.n_params * (self.n0 + 1) / 4
        if self.kernel.N is None:
            w = self.cols
            r = max(1, min(rows, w, self.U - self.rank))
            cost += _C_NUMPY * rows * w * T + _C_FLINT_IN * rows * w + 2 * _C_RREF * rows * w * r
            cost += _C_ENTRY * r * max(0, w - r)
        else:
            w = max(1, self.kernel.width)
            cost += _C_NUMPY * R * self.k * self.cols * w / 4 + _C_NUMPY * rows * w * 2
            # projections on N without forming the rows (_proj): the pivot rows Π (recomputed when N changed)
            # and the pairs passing the screen, each (pairs) × width × (cols + slots · Σ (n_l + 1))
            sum_w = sum(a + 1 for a in self.arch[1:-1])
            pairs = len(self.delta.sources) + min(R * self.k, 2 * w // max(1, min(self.n0 + 1, self.hidden[0] + 1
                                                                                 if self.hidden else 1)) + 1)
            cost += _C_NUMPY * pairs * w * (self.cols + (self.n0 + 1) * sum_w)
            m = min(rows, 2 * w + self.per_region)            # rows reaching an elimination (screened, thinned)
            r = max(1, min(m, w, self.U - self.rank))
            cost += 2 * _C_FLINT_IN * m * w + 2 * _C_RREF * m * w * r + _C_ENTRY * r * max(0, w - r)
        return cost

    def estimate_left(self) -> float:
        need = self.U - self.rank
        if need <= 0:
            return 0.0
        R = -(-int(need * self.FIRST_BLOCK + 8) // self.per_region)
        return self._batch_cost(R)

    def _regions_wanted(self) -> int:
        need = self.U - self.rank
        if self.kernel.N is None:
            per = self.per_region
            if self._wide_input():
                # rows of one pair (s, o) restricted to layers 2..d depend on the slot j through A^1_s e_j only,
                # so they have rank at most n_1 + 1: size the first block by that, not by the k (n0 + 1) rows
                per = self.k * min(self.n0 + 1, self.hidden[0] + 1)
            cap = max(1, _MAX_FLINT_ENTRIES // max(1, per * self.cols))
            return max(1, min(cap, -(-int(need * self.FIRST_BLOCK + 8) // per)))
        width = max(1, self.kernel.width)
        rows = max(self.BLOCK_ROWS * width, min(1 << 17, _MAX_ENTRIES // (4 * width)), self.per_region)
        data = max(1, sum(a + 1 for a in self.arch[:-1]) * (self.n0 + 1) + self.k * sum(self.hidden))
        cap = max(1, min(-(-rows // self.per_region), _MAX_ENTRIES // data))
        cheap = (1 << 19) // max(1, self.per_region * max(1, self.cols))
        return min(cap, max(16, self.next_region, cheap))  # blocks at most double what was done, unless cheap

    # ---- blocks of regions -------------------------------------------------
    def _process(self, r0: int, r1: int) -> None:
        """Feed regions r0 .. r1 - 1 into the rank."""
        k, slots = self.k, self.n0 + 1
        R = r1 - r0
        masks = [m[r0:r1] for m in self.M]
        B = _backward(self.mod, masks)
        A = _forward(self.mod, masks) if self.kernel.N is None else None
        self.n_rows += R * self.per_region
        d1 = np.ascontiguousarray(B[0].transpose(0, 2, 1)).reshape(R * k, -1)  # (region, output) × n1
        if not self.delta.full:
            res = self.delta.residual(d1)
            for t in np.flatnonzero(_rows_nonzero(res)):
                src = (r0 + int(t) // k, int(t) % k)
                if self.delta.add(d1[t], src) and src[0] not in self.store:
                    pos = src[0] - r0
                    Ar = A if A is not None else _forward(self.mod, [m[pos:pos + 1] for m in masks])
                    i = pos if A is not None else 0
                    self.store[src[0]] = ([a[i].copy() for a in Ar], [b[pos].copy() for b in B])
        if not self.cols or self.kernel.saturated or (self.kernel.N is not None and not self.kernel.width):
            return
        pivots = {(r - r0) * k + o for r, o in self.delta.sources if r0 <= r < r1}
        rest = np.array([t for t in range(R * k) if t not in pivots], dtype=np.int64) if pivots else \
            np.arange(R * k, dtype=np.int64)
        if not rest.size:
            return
        K = self.delta.coefficients(d1[rest])                             # |rest| × ρ
        if self.kernel.N is not None:                                     # screen: only pairs that add rank
            kept = self._screened(rest, masks, B, K)
            if kept is None:
                return
            rest, K, A = kept
        if self.kernel.N is None and self._wide_input():
            used = self._first_elimination(r0, rest, A, B, K)
            if self.kernel.N is not None and used < rest.size:            # the rest of this block is screened
                self._process_more(r0, rest[used:], masks, B, K[used:])
            return
        for c0 in range(0, rest.size, self._chunk()):
            self._check_clock()
            part = rest[c0:c0 + self._chunk()]
            ids = _pair_ids(r0, part, k, slots)
            first = self.kernel.N is None
            if first:
                Y = self._reduced_rows(part, A, B, K[c0:c0 + part.size])
            else:
                Y = self._projected_rows(part, A, B, K[c0:c0 + part.size])
            self.kernel.add(Y, ids, self.U - self.rank, group=slots)
            if first and self.kernel.N is not None:
                self.kernel.quotient(self._scalings())
                if c0 + part.size < rest.size:                          # the rest of this block is screened
                    more = rest[c0 + part.size:]
                    self._process_more(r0, more, masks, B, K[c0 + part.size:])
                    return
            if (self.stop and self.rank >= self.U) or self.kernel.saturated or not self.kernel.width:
                return

    def _wide_input(self) -> bool:
        """n0 + 1 > 2 (n_1 + 1): a pair's n0 + 1 rows have rank at most n_1 + 1, so most are dependent and the
        first elimination gathers thinned rows of many pairs (:meth:`_first_elimination`)."""
        n1 = self.hidden[0] if self.hidden else self.k
        return len(self.hidden) >= 2 and self.n0 + 1 > 2 * (n1 + 1)

    def _first_elimination(self, r0, rest, A, B, K) -> int:
        """The first elimination: reduced rows of the pairs ``rest`` formed chunk by chunk, each pair's rows
        thinned to rows independent among themselves, gathered until about FIRST_BLOCK × (rank still needed)
        rows are in hand, then eliminated at once.  Returns how many pairs of ``rest`` were used.

        One elimination of many rows narrows the kernel at once; one per chunk would change N (and
        everything computed from it) once per chunk.  Thinning keeps only rows independent within their
        pair, so no rank is lost: a dependent row of a pair lies in the span of the pair's kept rows.
        """
        k, slots = self.k, self.n0 + 1
        want = int((self.U - self.rank) * self.FIRST_BLOCK) + 8
        limit = max(want, 1) if self.cols else 0
        cap_rows = max(1, _MAX_FLINT_ENTRIES // max(1, self.cols))
        Ys, idss, got, used = [], [], 0, 0
        step = self._chunk()
        while used < rest.size and got < min(limit, cap_rows):
            self._check_clock()
            part = rest[used:used + step]
            Y = self._reduced_rows(part, A, B, K[used:used + part.size])
            sel = self.kernel._thin(Y, slots)
            if sel.size:
                Ys.append(Y[sel])
                ids = _pair_ids(r0, part, k, slots)
                idss.append(ids[sel])
                got += int(sel.size)
            used += part.size
        if not Ys:
            return used
        Y = np.concatenate(Ys)[:cap_rows]
        ids = np.concatenate(idss)[:cap_rows]
        m = Y.shape[0]
        while m > 64 and not self._elimination_fits(m, self.cols):  # what fits: fewer rows, a smaller first rank
            m //= 2
        if not self._elimination_fits(m, self.cols):
            self.reason = StopReason.TIME_BUDGET
            raise _Stop
        Y, ids = Y[:m], ids[:m]
        self.kernel.add(Y, ids, self.U - self.rank, group=1)
        if self.kernel.N is not None:
            self.kernel.quotient(self._scalings())
        return used

    def _screened(self, rest, masks, B, K):
        """The pairs of ``rest`` the screen keeps, their coefficients and their regions' maps; None if none is kept."""
        hit = self._screen(rest, masks, B, K)
        rest, K = rest[hit], K[hit]
        if not rest.size:
            return None
        regs = np.unique(rest // self.k)
        return rest, K, (regs, _forward(self.mod, [m[regs] for m in masks]))

    def _process_more(self, r0, rest, masks, B, K) -> None:
        """Pairs of a block left over when the kernel was first formed: screened and projected."""
        k, slots = self.k, self.n0 + 1
        if self.kernel.saturated or not self.kernel.width:
            return
        kept = self._screened(rest, masks, B, K)
        if kept is None:
            return
        rest, K, A = kept
        for c0 in range(0, rest.size, self._chunk()):
            self._check_clock()
            part = rest[c0:c0 + self._chunk()]
            ids = _pair_ids(r0, part, k, slots)
            Y = self._projected_rows(part, A, B, K[c0:c0 + part.size])
            self.kernel.add(Y, ids, self.U - self.rank, group=slots)
            if (self.stop and self.rank >= self.U) or self.kernel.saturated or not self.kernel.width:
                return

    def _screen(self, rest, masks, B, K) -> np.ndarray:
        """Which pairs have a reduced row with nonzero projection on N (a random combination N g of it).

        A pair whose rows project to Y ≠ 0 is missed with probability at most 1/p; a miss only
        lowers the rank found, which stays a certified lower bound.  The projection on N g of the
        rows r(s, o, ·) is y = Σ_ℓ A^{ℓ-1}_sᵀ (V^ℓ)ᵀ δ^ℓ_o (V = N g), computed by one backward pass
        per pair (Horner: t ← P_mᵀ t + u_m with A^m = P_m A^{m-1}), without forming A.
        """
        p, k, slots = self.p, self.k, self.n0 + 1
        N = self.kernel.N
        c = N.shape[1]
        g = self._rng.integers(0, p, size=(c, 1), dtype=np.int64)
        v = _mm(N, g, p)[:, 0]                                            # a random kernel direction
        pos, outs = rest // k, rest % k
        d = len(self.arch) - 1
        offs, off = {}, 0
        for l in range(2, d + 1):
            offs[l] = off
            off += self.arch[l] * (self.arch[l - 1] + 1)
        t = None
        for m in range(d, 0, -1):                                         # t lives in the space of h̃^{m-1}
            if m >= 2:
                nl, w = self.arch[m], self.arch[m - 1] + 1
                V = v[offs[m]:offs[m] + nl * w].reshape(nl, w)
                u = _mm(B[m - 1][pos, :, outs], V, p)                     # Q × w
                t = u if t is None else (t + u) % p
            if m >= 2 or t is not None:
                # t ← P_{m-1}ᵀ t (down to the space of h̃^{m-2}); at m = 1 t is already in slot space
                if m - 1 >= 1:
                    nm = self.arch[m - 1]
                    tm = t[:, :nm] * masks[m - 2][pos]
                    t2 = _mm(tm, self.mod.Wt[m - 2], p)
                    t2[:, -1] = (t2[:, -1] + t[:, nm]) % p
                    t = t2
        y = t                                                             # Q × slots
        pi = self._pivot_rows().reshape(len(self.delta.sources), slots, c)
        piv = _mm(K, (pi @ g[:, 0]) % p if c * p * p < (1 << 62) else _mm(pi, g, p)[..., 0], p)
        z = (y - piv) % p
        return _rows_nonzero(z)

    def _explicit(self) -> bool:
        """Whether :meth:`_projected_rows` forms the reduced rows (all ``cols`` of them) before projecting."""
        slots, c = self.n0 + 1, self.kernel.width
        sum_w = sum(a + 1 for a in self.arch[1:-1])
        return 4 * slots * self.cols + slots * self.cols * c / 4 < 2 * (self.cols * c + slots * sum_w * c)

    def _chunk(self) -> int:
        """Pairs per chunk: about ``_MAX_ENTRIES`` entries of the widest array a chunk forms."""
        if self.kernel.N is None or self._explicit():
            w = self.cols                                   # the reduced rows themselves are formed
        else:
            w = 4 * max(1, self.kernel.width, max(a + 1 for a in self.arch[1:-1]) // 4)
        return max(1, _MAX_ENTRIES // max(1, (self.n0 + 1) * w))

    def _kap(self, K: np.ndarray):
        """K (Q × ρ, over the pivot pairs) regrouped by pivot region: (Q × T × k), and the regions."""
        regs = sorted(self.store)
        where = {r: n for n, r in enumerate(regs)}
        kap = np.zeros((K.shape[0], len(regs), self.k), dtype=np.int64)
        for s_i, (r, o) in enumerate(self.delta.sources):
            kap[:, where[r], o] = K[:, s_i]
        return kap, regs

    def _reduced_rows(self, part, A, B, K) -> np.ndarray:
        """The reduced rows r(s,o,j) - Σ_t K_t r(t,j) of S, restricted to layers 2..d, formed explicitly."""
        p, slots, k = self.p, self.n0 + 1, self.k
        pos, outs = part // k, part % k
        kap, regs = self._kap(K)
        if isinstance(A, tuple):                           # the forward maps of some regions only
            at = np.searchsorted(A[0], pos)
            A_own = [None] + [a[at] for a in A[1][1:]]
        else:
            A_own = [None] + [a[pos] for a in A[1:]]
        blocks = []
        for l in range(2, len(self.arch)):
            a_own = A_own[l - 1].transpose(0, 2, 1)                         # Q × slots × (n_{l-1}+1)
            b_own = B[l - 1][pos, :, outs]                                  # Q × n_l
            own = (b_own[:, None, :, None] * a_own[:, :, None, :]) % p      # Q × slots × n_l × (n_{l-1}+1)
            if not regs:
                blocks.append(own.reshape(own.shape[0] * slots, -1))
                continue
            Bp = np.stack([self.store[r][1][l - 1] for r in regs])         # T × n_l × k
            Ap = np.stack([self.store[r][0][l - 1] for r in regs])         # T × (n_{l-1}+1) × slots
            Uq = np.einsum("tik,qtk->qit", Bp, kap) % p                     # Q × n_l × T  (k small: exact)
            Q, nl, T = Uq.shape
            Z = _mm(Uq.reshape(Q * nl, T), Ap.reshape(T, -1), p)           # (Q n_l) × ((n_{l-1}+1) slots)
            Z = Z.reshape(Q, nl, Ap.shape[1], slots).transpose(0, 3, 1, 2)
            blocks.append(((own - Z) % p).reshape(Q * slots, -1))
        return np.concatenate(blocks, axis=1)

    def _proj(self, A_list, delta_list) -> np.ndarray:
        """Σ_ℓ A^{ℓ-1}ᵀ (δ^ℓ · N_ℓ): the rows r(·, ·, j) of a batch of pairs times N (Q × slots × c)."""
        p, c = self.p, self.kernel.width
        N = self.kernel.N
        out, off = None, 0
        for l in range(2, len(self.arch)):
            nl, w = self.arch[l], self.arch[l - 1] + 1
            Nl = N[off:off + nl * w]
            off += nl * w
            G = _mm(delta_list[l], Nl.reshape(nl, w * c), p).reshape(-1, w, c)   # Q × w × c
            Al = A_list[l]                                                        # Q × w × slots
            if Al.shape[0] * w * Al.shape[2] * c <= (1 << 22):               # small: one broadcast sum
                part = np.einsum("qmj,qmc->qjc", Al, G) % p                   # w terms < 2^52 each: exact
            else:
                part = _mm(np.ascontiguousarray(Al.transpose(0, 2, 1)), G, p)  # Q × slots × c
            out = part if out is None else (out + part) % p
        return out

    def _pivot_rows(self) -> np.ndarray:
        """Π: the pivot pairs' rows r(t, j) times N (ρ × (slots · c)), cached while N and the pivots stay."""
        N = self.kernel.N
        if self._pi is not None and self._pi[0] is N and self._pi[1] == len(self.delta.sources):
            return self._pi[2]
        srcs = self.delta.sources
        slots, c = self.n0 + 1, self.kernel.width
        if not srcs:
            pi = np.zeros((0, slots * c), dtype=np.int64)
            self._pi = (N, 0, pi)
            self.kernel.ops = []
            return pi
        pi = self._pi_updated()
        done = 0 if pi is None else self._pi[1]
        if done < len(srcs):                                # rows of pivots added since: computed on their own
            new = srcs[done:]
            A_list = {l: np.stack([self.store[r][0][l - 1] for r, _ in new]) for l in range(2, len(self.arch))}
            d_list = {l: np.stack([self.store[r][1][l - 1][:, o] for r, o in new]) for l in range(2, len(self.arch))}
            more = self._proj(A_list, d_list).reshape(len(new), -1)
            pi = more if pi is None else np.concatenate([pi, more])
        self._pi = (N, len(srcs), pi)
        self.kernel.ops = []                                # track the changes of N from here on
        return pi

    def _pi_updated(self):
        """The cached Π carried along the changes of N since it was computed (Π ← Π · Nn per product,
        Π ← Π[:, columns] per quotient), when that is cheaper than computing it again; else None."""
        ops = self.kernel.ops
        if self._pi is None or ops is None or any(op[0] == "reset" for op in ops):
            return None
        pi = self._pi[2]
        rho, slots = pi.shape[0], self.n0 + 1
        sum_w = sum(a + 1 for a in self.arch[1:-1])
        again = rho * self.kernel.width * (self.cols + slots * sum_w)
        carry = sum(rho * slots * op[1].shape[0] * op[1].shape[1] for op in ops if op[0] == "mul")
        if carry > again:
            return None
        p = self.p
        for op in ops:
            c_old = pi.shape[1] // slots
            if op[0] == "mul":
                pi = _mm(pi.reshape(rho * slots, c_old), op[1], p).reshape(rho, -1)
            else:
                pi = np.ascontiguousarray(pi.reshape(rho, slots, c_old)[:, :, op[1]]).reshape(rho, -1)
        return pi

    def _projected_rows(self, part, A, B, K) -> np.ndarray:
        """The reduced rows of S times N: formed and multiplied when that is cheaper (narrow layers),
        else without forming them, proj(q) - K · Π."""
        p, slots, k, c = self.p, self.n0 + 1, self.k, self.kernel.width
        if self._explicit():
            return _mm(self._reduced_rows(part, A, B, K), self.kernel.N, p)
        pos, outs = part // k, part % k
        regs, Ar = A                                       # the forward maps of the regions ``regs`` only
        at = np.searchsorted(regs, pos)
        A_list = {l: Ar[l - 1][at] for l in range(2, len(self.arch))}
        d_list = {l: B[l - 1][pos, :, outs] for l in range(2, len(self.arch))}
        own = self._proj(A_list, d_list).reshape(part.size, slots * c)
        Y = (own - _mm(K, self._pivot_rows(), p)) % p
        return Y.reshape(part.size * slots, c)

    def _scalings(self) -> np.ndarray:
        """The scaling tangents ξ_u (Lemma A0) restricted to the parameters of layers 2..d (cols × N), mod p."""
        p, arch = self.p, self.arch
        offs, off = {}, 0
        for l in range(2, len(arch)):
            offs[l] = off
            off += arch[l] * (arch[l - 1] + 1)
        vecs = []
        for l in range(1, len(arch) - 1):                  # hidden layer l, neuron u
            n_prev, n_next = arch[l - 1], arch[l + 1]
            for u in range(arch[l]):
                v = np.zeros(self.cols, dtype=np.int64)
                if l >= 2:                                 # incoming (W^l[u, :], b^l_u)
                    o = offs[l] + u * (n_prev + 1)
                    v[o:o + n_prev + 1] = self.mod.Wt[l - 1][u]
                o = offs[l + 1]                            # outgoing -W^{l+1}[:, u]
                v[o + u:o + n_next * (arch[l] + 1):arch[l] + 1] = (-self.mod.W[l][:, u]) % p
                vecs.append(v)
        return np.stack(vecs, axis=1) if vecs else np.zeros((self.cols, 0), dtype=np.int64)

    # ---- regions ------------------------------------------------------------
    def _hash(self, masks: Sequence[np.ndarray]) -> np.ndarray:
        """64-bit keys of activation patterns (rows): the pattern itself up to 64 hidden neurons, else a hash
        (a collision only drops a region, never adds rank)."""
        n = masks[0].shape[0] if masks else 1
        if not self.hidden:
            return np.zeros(n, dtype=np.uint64)
        packed = np.packbits(np.concatenate(masks, axis=1), axis=1)
        nb = packed.shape[1]
        pad = -nb % 8
        if pad:
            packed = np.concatenate([packed, np.zeros((n, pad), dtype=np.uint8)], axis=1)
        words = np.ascontiguousarray(packed).view("<u8")
        if words.shape[1] == 1:
            return words[:, 0].copy()
        h = np.zeros(n, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for i in range(words.shape[1]):
                h = (h ^ words[:, i]) * self.salt[i % self.salt.size]
        return h

    def _queue(self, X, xs, masks) -> None:
        """Queue the points whose patterns were not seen yet (one per pattern)."""
        n = masks[0].shape[0] if self.hidden else (len(xs) if xs is not None else X.shape[0])
        if n == 0:
            return
        if not self.hidden:
            if self.n_regions:
                return
            sel = np.array([0])
            keys = np.zeros(1, dtype=np.uint64)
        else:
            h = self._hash(masks)
            keys, first = np.unique(h, return_index=True)
            fresh = ~np.isin(keys, self.seen, assume_unique=True)
            if self.excluded:
                fresh &= ~np.isin(keys, np.array(sorted(self.excluded), dtype=np.uint64))
            first = first[fresh]
            keys = keys[fresh]
            order = np.argsort(first, kind="stable")
            sel, keys = first[order], keys[order]
            self.seen = np.union1d(self.seen, keys)
        if xs is not None:
            self.xs = (self.xs or []) + [xs[i] for i in sel]
        else:
            self.X = np.concatenate([self.X, X[sel]])
        self.M = [np.concatenate([M, m[sel]]) for M, m in zip(self.M, masks)]
        self.keys = np.concatenate([self.keys, keys])
        self.n_regions += int(sel.size)

    def _sample(self, rng, want: int, method: str) -> None:
        """Draw ``want`` points; queue one point of every activation region not seen yet."""
        L = len(self.hidden)
        Xn = _draw(rng, self.n0, want)
        self.n_sampled += want
        if not L:
            self.n_smooth += want
            self._queue(Xn, None, [])
            return
        if method == "exact":
            pats = self.intnet.patterns([_fractions(x) for x in Xn])
            ok = np.array([all(all(s) for s in pt) for pt in pats], dtype=bool)
            fm = [np.array([[s > 0 for s in pt[l]] for pt in pats], dtype=bool).reshape(want, w)
                  for l, w in enumerate(self.hidden)]
        else:
            fm, unc = _float_patterns(self.Wf, self.bf, Xn / float(1 << DYADIC_BITS))
            ok = ~unc
            doubt = np.flatnonzero(unc)[:200]   # decide a few exactly, drop the rest
            if doubt.size:
                pats = self.intnet.patterns([_fractions(Xn[i]) for i in doubt])
                for i, pt in zip(doubt, pats):
                    if all(all(s) for s in pt):
                        ok[i] = True
                        for l in range(L):
                            fm[l][i] = np.array([s > 0 for s in pt[l]], dtype=bool)
        keep = np.flatnonzero(ok)
        self.n_smooth += int(keep.size)
        if keep.size:
            self._queue(Xn[keep], None, [m[keep] for m in fm])

    def go(self, exact_pts, count: int, seed: int, method: str) -> None:
        try:
            if exact_pts is not None:
                self.n_sampled = len(exact_pts)
                pats = self.intnet.patterns(exact_pts)
                keep = [i for i, pt in enumerate(pats) if all(all(s) for s in pt)]
                self.n_smooth = len(keep)
                masks = [np.array([[s > 0 for s in pats[i][l]] for i in keep], dtype=bool).reshape(len(keep), w)
                         for l, w in enumerate(self.hidden)]
                self._queue(None, [exact_pts[i] for i in keep], masks)
                self._drain()
            else:
                rng = np.random.default_rng(seed)
                size = 0
                while self.n_sampled < count:
                    want = self._regions_wanted()
                    cheap = (1 << 20) // max(1, self.net.n_params)
                    size = min(count - self.n_sampled, max(64, 2 * want, 2 * self.n_sampled, cheap))
                    before = self.next_region
                    self._sample(rng, size, method)
                    self._drain()
                    if self.next_region == before:          # a sampling round that found no new region
                        self._round(False)
        except _Stop:
            pass
        if self.reason == StopReason.UPPER_BOUND:
            self.more_left = self.next_region < self.n_regions or self.n_sampled < count

    def _drain(self) -> None:
        """Process the queued regions in blocks (all of them; the caller samples more when needed)."""
        while self.next_region < self.n_regions:
            if self.stop and self.rank >= self.U:
                self.reason = StopReason.UPPER_BOUND
                raise _Stop
            R = min(self._regions_wanted(), self.n_regions - self.next_region)
            while R > 1 and time.monotonic() + self._predict(R) > self.deadline:
                R //= 2                                    # a smaller block may still fit
            if time.monotonic() + self._predict(R) > self.deadline:
                self.reason = StopReason.TIME_BUDGET
                raise _Stop
            if resident_gb() > MEMORY_STOP * memory_cap_gb():  # a backstop: the estimates missed a working set
                self.reason = StopReason.MEMORY_CAP
                raise _Stop
            r0 = self.next_region
            self.next_region += R
            before = self.rank
            projected = self.kernel.N is not None
            model, t = self._batch_cost(R) * self._slowdown(), time.monotonic()
            self._process(r0, r0 + R)
            if projected and model > 0:                    # calibrate the model of the later blocks
                self.calib = min(20.0, max(1.0, (time.monotonic() - t) / model))
            self._say()
            self._round(self.rank > before)
        if self.stop and self.rank >= self.U:
            self.reason = StopReason.UPPER_BOUND
            raise _Stop
        if time.monotonic() > self.deadline:
            self.reason = StopReason.TIME_BUDGET
            raise _Stop

    #: The rank counts as stalled after this many rounds (blocks of regions, or sampling rounds that found
    #: no new region) that added nothing, over which the sample at least doubled (and grew by at least
    #: STALL_MIN_POINTS points).
    STALL_ROUNDS = 4
    STALL_MIN_POINTS = 1024
    stall_enabled = True

    def _round(self, gained: bool) -> None:
        """Bookkeeping after a round; stop as ``"rank stalled"`` when the rank has stopped growing."""
        if gained:
            self.stall_rounds, self.gain_region, self.gain_sampled = 0, self.next_region, self.n_sampled
            return
        self.stall_rounds += 1
        if self.stalled():
            self.reason = StopReason.RANK_STALLED
            raise _Stop

    def stalled(self) -> bool:
        """Several rounds added nothing while the sample at least doubled."""
        if not self.stall_enabled or self.rank == 0 or (self.stop and self.rank >= self.U):
            return False
        since = self.n_sampled - self.gain_sampled
        return self.stall_rounds >= self.STALL_ROUNDS and since >= max(self.STALL_MIN_POINTS, self.gain_sampled)

    calib = 1.0

    def _predict(self, R: int) -> float:
        """Wall seconds the next block of R regions is expected to take (model × load × calibration)."""
        return self._batch_cost(R) * self._slowdown() * (self.calib if self.kernel.N is not None else 1.0)

    def _slowdown(self) -> float:
        """Wall seconds per CPU second so far (at least 1): the cost model counts CPU seconds, deadlines are wall
        time, and a loaded machine stretches one into the other."""
        wall = time.monotonic() - self._clock0[0]
        cpu = time.process_time() - self._clock0[1]
        return max(load_slowdown(), wall / cpu if cpu > 0.25 else 1.0)

    def _elimination_fits(self, rows: int, width: int) -> bool:
        """Whether one flint elimination of ``rows`` × ``width`` (built, reduced twice) ends before the deadline."""
        r = min(rows, width)
        cost = 2 * _C_FLINT_IN * rows * width + 2 * _C_RREF * rows * width * r + _C_ENTRY * r * (width - r)
        return time.monotonic() + cost * self._slowdown() <= self.deadline

    def _check_clock(self) -> None:
        """Between chunks of a block: stop when the deadline has passed (the rank so far stays certified)."""
        if time.monotonic() > self.deadline:
            self.reason = StopReason.TIME_BUDGET
            raise _Stop

    # ---- witnesses ---------------------------------------------------------
    def _used(self) -> list[int]:
        used = {r for r, _ in self.delta.sources} | {int(r) for r, _, _ in self.kernel.ids}
        return sorted(used)

    def _point(self, r: int) -> tuple[Fraction, ...]:
        return self.xs[r] if self.xs is not None else _fractions(self.X[r])

    def verify_witnesses(self) -> set:
        """Exact check of every witness point: generic, with the pattern used.  Returns the bad keys."""
        used = self._used()
        pats = self.intnet.patterns([self._point(r) for r in used])
        bad = set()
        for r, pt in zip(used, pats):
            ok = all(all(s) for s in pt) and all(
                np.array_equal(self.M[l][r], np.array([s > 0 for s in pt[l]], dtype=bool)) for l in range(len(pt)))
            if not ok:
                bad.add(int(self.keys[r]))
        return bad

    def witnesses(self):
        used = self._used()
        index = {r: n for n, r in enumerate(used)}
        pts = tuple(self._point(r) for r in used)
        pivots = tuple((index[r], o) for r, o in self.delta.sources)
        rows = tuple((index[int(r)], int(o), int(j)) for r, o, j in self.kernel.ids)
        return pts, pivots, rows
