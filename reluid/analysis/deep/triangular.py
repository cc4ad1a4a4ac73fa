"""Local identifiability from a block-triangular Jacobian (docs/mathematics.md §6.4, Theorem A3).

The full rank of §6.3 is a dense rank over D - n_1 (n0 + 1) columns (17 802 at
784-128-128-10).  Theorem A3 is a cheaper sufficient condition: explicit
vectors of the row space of the Jacobian, in families that are zero on the
blocks of coordinates before their own, so that the rank is at least the sum
of the ranks of small diagonal blocks:

* the biases (N + k coordinates): the constant-slot rows of every region, whose
  bias parts are β = (δ^1_o, ..., δ^{d-1}_o, e_o);
* the output weights W^d: the other slots, e_o ⊗ (A^{d-1}_s e_j)_{1..n_{d-1}};
* the incoming weights of hidden neuron u of layer ℓ: combinations
  Σ_o c_o r(s, o, v) with v ∈ ker A^ℓ_s and γ = Σ_o c_o δ^ℓ_o(s) zero on the
  neurons before u and nonzero at u; their diagonal part spans
  Y^ℓ_s = col(A^{ℓ-1}_s) ∩ ker(W^ℓ restricted to the neurons active in s).

When the sum reaches D - N, Theorem A1 applies: θ is locally identifiable and
dim_fun(θ) = U.  Points are searched with linear programs in floats (layer ℓ
neuron u active, the neurons before it pushed inactive, the layers below all
active); every point that is used is classified exactly, and every rank is
computed modulo p from the exact parameters, so the search affects only
whether the condition is met, never its soundness.  A sum below D - N proves
nothing (the full rank of §6.3 may still be D - N).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

from reluid.analysis.deep.fundim import (DYADIC_BITS, nonempty_layers, _IntNet, _ModNet, _backward, _choose_prime, _eliminate_small,
                                         _forward, _fractions, identifiability_bound)
from reluid.budget import memory_cap_gb, resident_gb
from reluid.errors import InvalidArgument
from reluid.model.modp import matmul_mod as _mm
from reluid.model.network import Network
from reluid.verdicts import FunDimMethod, StopReason

__all__ = ["TriangularResult", "triangular_certificate"]


@dataclass(frozen=True, slots=True)
class TriangularResult:
    """What :func:`triangular_certificate` found.

    Attributes
    ----------
    architecture : tuple of int
    target : int
        D - N, the rank Theorem A1 asks for.
    rank : int
        r = r_b + k r_out + Σ r_{ℓ,u}: a certified lower bound for the Jacobian rank (Theorem A3).
    r_bias, r_out : int
    prime : int
    points : tuple of tuple of Fraction
        The exactly generic points used.
    bias_points, out_points : tuple of int
        The points whose rows enter the bias block and the output-weight block.
    blocks : tuple of (layer, neuron, ((point, c), ...))
        For hidden neurons, the points and output combinations c of their families, layer by layer from the
        top and, within a layer, in the order of Theorem A3 (each family vanishes on the neurons listed
        before it in its layer).
    short : tuple of (layer, neuron, rank, need)
        Blocks below their size (empty when the certificate is complete).
    stop_reason : StopReason
        ``UPPER_BOUND`` (r = D - N), ``SAMPLE_EXHAUSTED`` (the search ran out of points to try with some block
        short), ``TIME_BUDGET`` or ``MEMORY_CAP``.
    seconds : float
    """

    architecture: tuple[int, ...]
    target: int
    rank: int
    r_bias: int
    r_out: int
    prime: int
    points: tuple[tuple[Fraction, ...], ...]
    bias_points: tuple[int, ...]
    out_points: tuple[int, ...]
    blocks: tuple
    short: tuple = ()
    stop_reason: StopReason = StopReason.UPPER_BOUND
    seconds: float = field(default=0.0, compare=False)
    n_lp: int = 0

    @property
    def full_rank(self) -> bool:
        """r = D - N: θ is locally identifiable and dim_fun(θ) = U (Theorem A3 with Theorem A1)."""
        return self.rank == self.target

    def evidence(self) -> dict:
        """The certificate evidence (docs/certificates.md, ``method: triangular``)."""
        return {"method": FunDimMethod.TRIANGULAR, "prime": self.prime, "rank": self.rank,
                "points": [[str(q) for q in x] for x in self.points],
                "bias_points": list(self.bias_points), "out_points": list(self.out_points),
                "blocks": [[l, u, [[i, list(c)] for i, c in ent]] for l, u, ent in self.blocks]}


# ---- linear algebra modulo p (numpy) ----------------------------------------------------

class _Span:
    """A subspace of F_p^width kept as a reduced echelon basis E (pivot columns ``cols``)."""

    __slots__ = ("p", "E", "cols")

    def __init__(self, width: int, p: int):
        self.p, self.E, self.cols = p, np.zeros((0, width), dtype=np.int64), []

    @property
    def dim(self) -> int:
        return len(self.cols)

    def add(self, rows: np.ndarray) -> int:
        """Add the span of ``rows``; return by how much the dimension grew."""
        p = self.p
        if not rows.size:
            return 0
        if self.cols:
            rows = (rows - _mm(np.ascontiguousarray(rows[:, self.cols]), self.E, p)) % p
        _, cols, E = _eliminate_small(rows, p)
        if not cols:
            return 0
        if self.cols:                                  # keep E reduced at the new pivot columns
            self.E = (self.E - _mm(np.ascontiguousarray(self.E[:, cols]), E, p)) % p
        self.E = np.vstack([self.E, E])
        self.cols = self.cols + list(cols)
        return len(cols)


def _rank(a: np.ndarray, p: int) -> int:
    return len(_eliminate_small(a % p, p)[0]) if a.size else 0


def _row_basis(a: np.ndarray, p: int) -> np.ndarray:
    """A basis of the row space of a (reduced echelon rows)."""
    if not a.size:
        return np.zeros((0, a.shape[1]), dtype=np.int64)
    return _eliminate_small(a % p, p)[2]


def _kernel(a: np.ndarray, p: int) -> np.ndarray:
    """A basis of the right kernel of a, as columns."""
    n = a.shape[1]
    if not a.shape[0]:
        return np.eye(n, dtype=np.int64)
    _, cols, E = _eliminate_small(a % p, p)
    free = [f for f in range(n) if f not in set(cols)]
    K = np.zeros((n, len(free)), dtype=np.int64)
    K[free, np.arange(len(free))] = 1
    if cols:
        K[cols, :] = (p - E[:, free]) % p
    return K


# ---- one region -----------------------------------------------------------------------

class _Region:
    """The residues of one generic point's maps: A[ℓ] (x̃ ↦ h̃^ℓ) and δ[ℓ] (n_ℓ × k, back-propagated outputs)."""

    __slots__ = ("point", "masks", "A", "delta", "Y")

    def __init__(self, mod: _ModNet, point, masks):
        self.point, self.masks = point, masks
        m1 = [m[None, :] for m in masks]
        self.A = [a[0] for a in _forward(mod, m1)]
        self.delta = [b[0] for b in _backward(mod, m1)]
        self.Y: dict[int, tuple[int, np.ndarray | None]] = {}


class _Block:
    """The span of the diagonal parts of one hidden neuron's family."""

    __slots__ = ("need", "rank", "basis", "entries")

    def __init__(self, need: int):
        self.need, self.rank, self.basis, self.entries = need, 0, None, []


def _combinations(G: np.ndarray, active: np.ndarray, order: np.ndarray, p: int):
    """(u, c) for every active neuron u whose row of G (n_ℓ × k) is independent of the rows of the active
    neurons before it in ``order``; c ∈ F_p^k is orthogonal to those rows and not to row u (so γ = G c
    vanishes on the neurons before u).

    K (k × m) spans the c orthogonal to the rows so far; a row h = G[u] K ≠ 0 serves u with c = K e_t
    (h_t ≠ 0), and K becomes the columns K e_j - (h_j / h_t) K e_t, j ≠ t."""
    out = []
    K = np.eye(G.shape[1], dtype=np.int64)
    for u in order[active[order]]:
        if not K.shape[1]:
            break
        h = (G[u] @ K) % p                                     # k terms below 2^52: exact in int64
        nz = np.flatnonzero(h)
        if not nz.size:
            continue
        t = int(nz[0])
        out.append((int(u), tuple(int(x) for x in K[:, t])))
        f = h * pow(int(h[t]), -1, p) % p
        rest = [j for j in range(K.shape[1]) if j != t]
        K = (K[:, rest] - (K[:, t:t + 1] * f[None, rest]) % p) % p
    return out


class _Search:
    """Points in, blocks filled; see :func:`triangular_certificate`."""

    def __init__(self, net: Network, p: int, deadline: float, seed: int):
        self.net, self.p, self.deadline = net, p, deadline
        self.arch = net.architecture
        self.n0, self.k, self.d = self.arch[0], self.arch[-1], len(self.arch) - 1
        self.mod, self.intnet = _ModNet(net, p), _IntNet(net)
        self.Wf = [np.array([[float(x) for x in r] for r in L.weight]).reshape(L.n_out, L.n_in) for L in net.layers]
        self.bf = [np.array([float(x) for x in L.bias]) for L in net.layers]
        self.rng = np.random.default_rng(seed)
        self.regions: list[_Region] = []
        self.bias = _Span(sum(self.arch[1:]), p)
        self.bias_points: list[int] = []
        self.out = _Span(self.arch[-2], p)
        self.out_points: list[int] = []
        self.blocks = {}
        for l in range(1, self.d):
            for u in range(self.arch[l]):
                w = self.mod.W[l - 1][u]
                self.blocks[(l, u)] = _Block(self.arch[l - 1] - (1 if w.any() else 0))
        self.n_lp = 0
        W1 = self.Wf[0]
        self.free1 = self.n0 >= self.arch[1] and np.linalg.matrix_rank(W1) == self.arch[1]
        self.pinv1 = np.linalg.pinv(W1) if self.free1 else None
        self.order, self.pos = self._orders()

    def _orders(self):
        """Per hidden layer, the neurons by increasing activation frequency at random points (floats): a
        neuron's family must vanish on the neurons before it, which is easiest when those are rarely active."""
        h = self.rng.standard_normal((256, self.n0))
        order, pos = {}, {}
        for l in range(1, self.d):
            z = h @ self.Wf[l - 1].T + self.bf[l - 1]
            order[l] = np.argsort((z > 0).mean(axis=0), kind="stable")
            pos[l] = np.argsort(order[l])
            h = np.maximum(z, 0.0)
        return order, pos

    # ---- adding a point --------------------------------------------------------
    def add(self, x: np.ndarray) -> bool:
        """Classify the dyadic point x (numerators over 2^DYADIC_BITS) exactly; if generic, feed its region."""
        pt = _fractions(x)
        signs = self.intnet.patterns([pt])[0]
        if any(s == 0 for layer in signs for s in layer):
            return False
        masks = [np.array([s > 0 for s in layer], dtype=bool) for layer in signs]
        reg = _Region(self.mod, pt, masks)
        i = len(self.regions)
        self.regions.append(reg)
        used = self._bias_out(reg, i)
        for l in range(1, self.d):
            G = reg.delta[l - 1]
            for u, c in _combinations(G, masks[l - 1], self.order[l], self.p):
                b = self.blocks[(l, u)]
                if b.rank < b.need and self._feed(b, reg, l, i, c):
                    used = True
        if not used:
            self.regions.pop()
        return used

    def _bias_out(self, reg: _Region, i: int) -> bool:
        used = False
        if self.bias.dim < self.bias.E.shape[1]:
            beta = np.ascontiguousarray(np.concatenate([reg.delta[l] for l in range(self.d)], axis=0).T)  # k × (N+k)
            if self.bias.add(beta):
                self.bias_points.append(i)
                used = True
        if self.out.dim < self.out.E.shape[1]:
            cols = np.ascontiguousarray(reg.A[self.d - 1][:self.arch[-2], :self.n0].T)               # n0 × n_{d-1}
            if self.out.add(cols):
                self.out_points.append(i)
                used = True
        return used

    def _space(self, reg: _Region, l: int) -> tuple[int, np.ndarray | None]:
        """(dim Y^ℓ, a basis of Y^ℓ as rows or None when not formed): Y^ℓ = col(C) ∩ ker W^ℓ_S, C the
        weight part of A^{ℓ-1} (identity for ℓ = 1), S the neurons of layer ℓ active in the region."""
        if l in reg.Y:
            return reg.Y[l]
        p = self.p
        WS = self.mod.W[l - 1][reg.masks[l - 1]]
        if l == 1:
            reg.Y[l] = (self.n0 - _rank(WS, p), None)
        else:
            B = _row_basis(np.ascontiguousarray(reg.A[l - 1][:self.arch[l - 1], :self.n0].T), p)  # rows: col(C)
            K = _kernel(_mm(WS, np.ascontiguousarray(B.T), p), p) if WS.shape[0] else np.eye(B.shape[0], dtype=np.int64)
            Y = _mm(np.ascontiguousarray(K.T), B, p)                                                     # rows span Y^ℓ
            reg.Y[l] = (Y.shape[0], Y)
        return reg.Y[l]

    def _rows(self, reg: _Region, l: int) -> np.ndarray:
        dim, Y = self._space(reg, l)
        if Y is None:                                  # layer 1: Y = ker W^1_S, formed only when needed
            Y = _kernel(self.mod.W[0][reg.masks[0]], self.p).T
            reg.Y[l] = (dim, Y)
        return Y

    def _feed(self, b: _Block, reg: _Region, l: int, i: int, c) -> bool:
        dim, _ = self._space(reg, l)
        if not dim or (l == 1 and self.free1 and dim < b.need):
            return False    # a free first layer fills a block from one point (only u active): no n0-wide sums
        if b.rank == 0 and dim >= b.need:
            b.rank = dim
            b.entries.append((i, c))
            return True
        if b.basis is None:
            b.basis = _Span(self.arch[l - 1], self.p)
        if not b.basis.add(self._rows(reg, l)):
            return False
        b.rank = b.basis.dim
        b.entries.append((i, c))
        return True

    # ---- searching points -------------------------------------------------------------
    def random_point(self) -> np.ndarray:
        return np.rint(self.rng.standard_normal(self.n0) * (1 << DYADIC_BITS)).astype(np.int64)

    def lp_point(self, l: int, u: int, avoid: np.ndarray | None, attempt: int = 0) -> np.ndarray | None:
        """A point with neuron u of layer l active, the neurons before it (and those in ``avoid``) inactive as
        far as a linear program can, the layers below active (floats: the point is classified exactly).

        From the second attempt on, some neurons of layer l - 1 are made inactive: first those that push the
        ``avoid`` neurons up most (a neuron active on the whole region where layer l - 1 is active cannot be
        pushed down there), later random ones.  When W^1 has full row rank (n0 ≥ n1) every layer-1
        pre-activation y is reached (x = W^1⁺ (y - b^1)), so the program runs over y, and for l = 1 there is
        nothing to solve: y = -1 except y_u > 0."""
        from scipy.optimize import linprog

        if self.free1:
            if l == 1:
                y = -np.ones(self.arch[1])
                y[u] = 2.0 ** attempt
                return self._from_y(y)
            nv = self.arch[1]
            M, m = np.eye(nv), np.zeros(nv)                    # z^1 = y
        else:
            nv = self.n0
            M, m = self.Wf[0], self.bf[0].copy()               # z^1 = W^1 x + b^1
        base_A, base_b = [], []
        for t in range(1, l):                                  # layers below: sign · z^t ≥ margin
            sign = np.ones(self.arch[t])
            if t == l - 1 and attempt:
                push = self.rng.uniform(0, 1e-3, self.arch[t])
                if avoid is not None and avoid.size:
                    push = push + np.clip(self.Wf[l - 1][avoid], 0, None).sum(axis=0)
                if attempt > 3:                                # later attempts: random patterns below
                    push = self.rng.uniform(0, 1, self.arch[t])
                off = np.argsort(-push)[:max(1, (min(attempt, 3) * self.arch[t]) // 8)]
                sign[off] = -1.0
            base_A.append(-sign[:, None] * M)
            base_b.append(sign * m - 0.05)
            keep = (sign > 0)[:, None]
            M, m = self.Wf[t] @ (M * keep), self.Wf[t] @ (m * keep[:, 0]) + self.bf[t]
        n = M.shape[0]                                         # z^l = M v + m
        others = np.array([v for v in range(n) if v != u], dtype=np.int64)
        w = self.rng.uniform(0.01, 0.05, size=n)
        w[self.order[l][:self.pos[l][u]]] = 1.0                # the neurons before u in the order
        if avoid is not None:
            w[avoid] = 2.0
        # variables (v, t): z_u ≥ 1, z_o ≤ -1 + t_o (o ≠ u), t ≥ 0; minimise Σ w_o t_o
        rows = [np.concatenate([-M[u], np.zeros(others.size)])[None, :]]
        rhs = [np.array([m[u] - 1.0])]
        T = np.zeros((others.size, nv + others.size))
        T[:, :nv] = M[others]
        T[:, nv:] = -np.eye(others.size)
        rows.append(T)
        rhs.append(-1.0 - m[others])
        for Ab, bb in zip(base_A, base_b):
            rows.append(np.concatenate([Ab, np.zeros((Ab.shape[0], others.size))], axis=1))
            rhs.append(bb)
        cost = np.concatenate([np.zeros(nv), w[others]])
        self.n_lp += 1
        r = linprog(cost, A_ub=np.vstack(rows), b_ub=np.concatenate(rhs),
                    bounds=[(-50.0, 50.0)] * nv + [(0, None)] * others.size, method="highs")
        if r.status != 0:
            return None
        return self._from_y(r.x[:nv]) if self.free1 else self._dyadic(r.x[:nv])

    def _from_y(self, y: np.ndarray) -> np.ndarray:
        """The dyadic point x with W^1 x + b^1 ≈ y (least squares; W^1 has full row rank)."""
        return self._dyadic(self.pinv1 @ (y - self.bf[0]))

    @staticmethod
    def _dyadic(x: np.ndarray) -> np.ndarray:
        return np.rint(x * (1 << DYADIC_BITS)).astype(np.int64)

    def float_active(self, x: np.ndarray, l: int) -> np.ndarray:
        """The activation pattern of layer l at the dyadic point x, in floats (only steers the search)."""
        h = x / float(1 << DYADIC_BITS)
        for t in range(l):
            z = self.Wf[t] @ h + self.bf[t]
            h = np.maximum(z, 0.0)
        return z > 0

    # ---- totals -----------------------------------------------------------------------
    def rank(self) -> int:
        return self.bias.dim + self.k * self.out.dim + sum(b.rank for b in self.blocks.values())


def triangular_certificate(net: Network, *, seed: int = 0, prime: int | None = None,
                           deadline: float | None = None, tries: int = 4) -> TriangularResult:
    """Points and combinations for Theorem A3 (docs/mathematics.md §6.4), and the rank they certify.

    Parameters
    ----------
    net : Network
        A network with hidden layers, every entry an exact rational.
    seed : int, keyword-only
        Seeds the random points and the search.
    prime : int, optional, keyword-only
        Default: the first of :data:`reluid.analysis.deep.fundim.PRIMES` dividing no denominator.
    deadline : float, optional, keyword-only
        A ``time.monotonic()`` time, checked before every point (with the memory cap); the result then says
        ``StopReason.TIME_BUDGET`` (or ``MEMORY_CAP``).
    tries : int, keyword-only
        Linear programs per hidden neuron before its block is given up.

    Returns
    -------
    TriangularResult
        ``full_rank`` when r = D - N (θ locally identifiable, dim_fun = U).

    Examples
    --------
    >>> from reluid.model.network import Network
    >>> rng = np.random.default_rng(1)
    >>> net = Network.from_lists([(rng.integers(-9, 10, (4, 6)).tolist(), rng.integers(-3, 4, 4).tolist()),
    ...                           (rng.integers(-9, 10, (2, 4)).tolist(), [0, 1])])
    >>> r = triangular_certificate(net)
    >>> r.rank <= r.target
    True
    """
    t0 = time.perf_counter()
    if not isinstance(net, Network):
        raise InvalidArgument(f"expected a Network, got {type(net).__name__}")
    arch = net.architecture
    if len(arch) < 3:
        raise InvalidArgument("Theorem A3 is about networks with hidden layers")
    nonempty_layers(net)
    p = prime if prime is not None else _choose_prime(net)
    if not (2 < p < (1 << 26)) or not flint.fmpz(p).is_prime():
        raise InvalidArgument(f"p must be an odd prime below 2^26, got {p}")
    deadline = math.inf if deadline is None else deadline
    if time.monotonic() > deadline:                         # nothing started: setting up the search costs too
        return TriangularResult(architecture=arch, target=identifiability_bound(arch), rank=0, r_bias=0, r_out=0,
                                prime=p, points=(), bias_points=(), out_points=(), blocks=(),
                                stop_reason=StopReason.TIME_BUDGET, seconds=time.perf_counter() - t0)
    s = _Search(net, p, deadline, seed)
    reason = StopReason.UPPER_BOUND
    N, k = sum(arch[1:-1]), arch[-1]
    try:
        for _ in range(-(-(N + k) // k) + 4):                 # the bias and output blocks: random points
            _check(deadline)
            s.add(s.random_point())
        for l in range(s.d - 1, 0, -1):
            for u in s.order[l]:
                b = s.blocks[(l, int(u))]
                last = None
                for attempt in range(tries):
                    if b.rank >= b.need:
                        break
                    _check(deadline)
                    avoid = _avoid(s, l, int(u), b, last)
                    x = s.lp_point(l, int(u), avoid, attempt)
                    if x is not None:
                        s.add(x)
                        last = s.float_active(x, l)
        for (l, u), b in sorted(s.blocks.items(), key=lambda t: (-t[0][0], s.pos[t[0][0]][t[0][1]])):  # again
            for attempt in range(tries, 3 * tries):
                if b.rank >= b.need:
                    break
                _check(deadline)
                x = s.lp_point(l, u, _avoid(s, l, u, b, None), attempt)
                if x is not None:
                    s.add(x)
        for _ in range(tries):                                # bias / output blocks still short
            if s.bias.dim == s.bias.E.shape[1] and s.out.dim == s.out.E.shape[1]:
                break
            _check(deadline)
            s.add(s.random_point())
    except _Stop as stop:
        reason = stop.args[0]
    short = tuple((l, u, b.rank, b.need) for (l, u), b in sorted(s.blocks.items()) if b.rank < b.need)
    if reason == StopReason.UPPER_BOUND and (short or s.rank() < identifiability_bound(arch)):
        reason = StopReason.SAMPLE_EXHAUSTED
    used = sorted(set(s.bias_points) | set(s.out_points) | {i for b in s.blocks.values() for i, _ in b.entries})
    index = {r: n for n, r in enumerate(used)}
    blocks = tuple((l, u, tuple((index[i], c) for i, c in b.entries))          # listed in the order of the search
                   for (l, u), b in sorted(s.blocks.items(), key=lambda t: (-t[0][0], s.pos[t[0][0]][t[0][1]]))
                   if b.entries)
    return TriangularResult(architecture=arch, target=identifiability_bound(arch), rank=s.rank(),
                            r_bias=s.bias.dim, r_out=s.out.dim, prime=p,
                            points=tuple(s.regions[i].point for i in used),
                            bias_points=tuple(index[i] for i in s.bias_points),
                            out_points=tuple(index[i] for i in s.out_points), blocks=blocks, short=short,
                            stop_reason=reason, seconds=time.perf_counter() - t0, n_lp=s.n_lp)


def _avoid(s: _Search, l: int, u: int, b: _Block, last):
    """Neurons to push down harder: those active (besides u) in every region already in the block (they keep
    Σ Y short) and those before u that were active at the last point tried (they keep u from being isolated)."""
    out = np.zeros(s.arch[l], dtype=bool)
    common = None
    for i, _ in b.entries:
        act = s.regions[i].masks[l - 1]
        common = act.copy() if common is None else common & act
    if common is not None:
        out |= common
    if last is not None:
        before = s.order[l][:s.pos[l][u]]
        out[before] |= last[before]
    out[u] = False
    return np.flatnonzero(out) if out.any() else None


class _Stop(Exception):
    """The deadline passed (``args[0]``: ``StopReason.TIME_BUDGET``) or the process holds most of the memory cap
    (``StopReason.MEMORY_CAP``, :func:`reluid.budget.memory_cap_gb`)."""


#: A point is not started once the process holds this fraction of the memory cap.
MEMORY_STOP = 0.8


def _check(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise _Stop(StopReason.TIME_BUDGET)
    if resident_gb() > MEMORY_STOP * memory_cap_gb():
        raise _Stop(StopReason.MEMORY_CAP)
