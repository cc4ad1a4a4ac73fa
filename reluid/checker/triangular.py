"""Checker for the block-triangular certificate of local identifiability (docs/mathematics.md §6.4, Theorem A3).

Independent of the producer (:mod:`reluid.analysis.deep.triangular`): python-flint
``nmod_mat`` and exact Python integers only, with the exact evaluation and the
residues of :mod:`reluid.checker.fundim`.  The evidence (``method: triangular``) lists
rational ``points``, a prime ``prime``, ``bias_points`` and ``out_points``
(indices of points) and ``blocks``: for hidden neurons (layer ℓ, neuron u,
0-based), pairs (point index, c) with c ∈ F_p^k.  The checker

1. evaluates every point exactly and requires it to be generic (its pattern s_i);
2. computes, modulo p, the back-propagated outputs δ^ℓ_o(s_i) and, for the weight parts C^ℓ of the maps
   A^ℓ_{s_i}, matrices G^ℓ_i of width ρ = rank W^1 with col(C^ℓ) = col(G^ℓ) (:func:`_point_maps`; every
   space below is computed from them, docs/mathematics.md §6.4, "The checker's spaces");
3. r_b: the rank of β(i, o) = (δ^1_o, ..., δ^{d-1}_o, e_o) over the bias points;
   r_out: the rank of the columns j < n0 of the weight rows of A^{d-1} over the output points;
4. for every listed (ℓ, u, i, c): γ = Σ_o c_o δ^ℓ_o(s_i) is 0 on the neurons of layer ℓ listed before u
   (the order of Theorem A3 is the order of the listing) and not at u;
   Y^ℓ_i = col(C) ∩ ker W^ℓ_S (C the weight part of A^{ℓ-1}, the identity for ℓ = 1, S the neurons of
   layer ℓ active in s_i) and r_{ℓ,u} = dim Σ_i Y^ℓ_i; each (ℓ, u) may be listed once;
5. r = r_b + k r_out + Σ r_{ℓ,u}, which is at most the rank of the Jacobian at a finite set of generic
   points (Theorem A3); r = D - N gives local identifiability (Theorem A1) and dim_fun = U.
"""

from __future__ import annotations

from dataclasses import dataclass

import flint

from reluid.checker import readers as R
from reluid.checker.linalg import pivots_mod_p
from reluid.checker.registry import charge, fail
from reluid.model.network import Network

__all__ = ["TriangularRank", "triangular_rank"]


@dataclass(frozen=True, slots=True)
class TriangularRank:
    """r and its parts (bias block, output weights, hidden weight blocks), and the number of points."""

    rank: int
    r_bias: int
    r_out: int
    r_hidden: int
    points: int


#: the evidence fields the rank depends on (with the network)
_FIELDS = ("prime", "points", "bias_points", "out_points", "blocks")


def _read(ctx, evidence, net: Network):
    arch = net.architecture
    n0, k, d = arch[0], arch[-1], len(arch) - 1
    p = R.prime(ctx, evidence.get("prime"), "evidence field 'prime'", lo=3)
    pts = R.points(ctx, evidence.get("points"), "evidence field 'points'", n0, nonempty=True)
    bias = R.indices(ctx, evidence.get("bias_points"), len(pts), "evidence field 'bias_points'")
    out = R.indices(ctx, evidence.get("out_points"), len(pts), "evidence field 'out_points'")
    blocks, seen = [], set()
    for b in R.sequence(ctx, evidence.get("blocks"), "evidence field 'blocks'"):
        l, u, entries = R.sequence(ctx, b, "a block", 3)
        l = R.integer(ctx, l, "a block's layer", lo=1, hi=d)
        u = R.integer(ctx, u, "a block's neuron", lo=0, hi=arch[l])
        if (l, u) in seen:
            fail(ctx, f"the block of neuron {u} of layer {l} is listed twice (its rank would count twice)")
        seen.add((l, u))
        ents = []
        for e in R.sequence(ctx, entries, f"the entries of block ({l}, {u})"):
            i, c = R.sequence(ctx, e, "a block entry", 2)
            i = R.integer(ctx, i, "a block entry's point", lo=0, hi=len(pts))
            c = R.integers(ctx, c, "a block entry's combination", k)
            ents.append((i, tuple(x % p for x in c)))
        if len({i for i, _ in ents}) != len(ents):
            fail(ctx, f"block ({l}, {u}) lists a point twice")
        blocks.append((l, u, ents))
    return p, pts, bias, out, blocks


def _nmod_rank(rows, ncols: int, p: int) -> int:
    rows = [r for r in rows]
    if not rows or not ncols:
        return 0
    return flint.nmod_mat(len(rows), ncols, [x for r in rows for x in r], p).rank()


def _layer_matrices(Wt, arch, p):
    """W^l (n_l × n_{l-1}, the biases dropped) and its transpose as nmod_mat, l = 1, …, d (index 0 unused)."""
    W = [None] + [flint.nmod_mat([row[:arch[l - 1]] for row in Wt[l - 1]], p) for l in range(1, len(arch))]
    return W, [None] + [M.transpose() for M in W[1:]]


def _column_basis(W1: "flint.nmod_mat", p: int):
    """(Q, ρ): the pivot columns of W^1 (n1 × ρ, ρ its rank), a basis of its column space, so that
    W^1 = Q·R with R (ρ × n0) of full row rank (R: the nonzero rows of the reduced row echelon form)."""
    Rm, rho = W1.rref()
    Q = flint.nmod_mat(W1.nrows(), rho, p)
    for t, c in enumerate(pivots_mod_p(Rm, rho)):
        for u in range(W1.nrows()):
            Q[u, t] = W1[u, c]
    return Q, rho


def _diagonal(mask, p: int) -> "flint.nmod_mat":
    D = flint.nmod_mat(len(mask), len(mask), p)
    for u, on in enumerate(mask):
        if on:
            D[u, u] = 1
    return D


def _point_maps(W, WT, Q, arch, mask, p):
    """(δ, G) of one point's region s: δ[l] (n_l × k) the back-propagated outputs at layer l, column o for
    output o, δ^{d-1} = D_{d-1} (W^d)ᵀ and δ^l = D_l (W^{l+1})ᵀ δ^{l+1} (D_l the 0/1 diagonal of s at layer l);
    and G[l] = D_l W^l ⋯ D_2 W^2 D_1 Q (n_l × ρ).  The weight part C^l of A^l_s (x ↦ h^l) is D_l W^l ⋯ D_1 W^1
    = G[l]·R with R onto, so col(C^l) = col(G[l]): every space of step 4 is one of G's, of width ρ ≤ n0."""
    d = len(arch) - 1
    D = [None] + [_diagonal(m, p) for m in mask]
    G = [None, D[1] * Q]
    for l in range(2, d):
        G.append(D[l] * (W[l] * G[l - 1]))
    delta = [None] * d
    for l in range(d - 1, 0, -1):
        delta[l] = D[l] * (WT[l + 1] if l == d - 1 else WT[l + 1] * delta[l + 1])
    return delta, G


def _space(l: int, G, n0: int, rho: int, basis: bool):
    """(dim Y^ℓ, (M, c) or None unless ``basis``) at one point, from its G (:func:`_point_maps`): the first c
    columns of M span Y^ℓ (ℓ ≥ 2), or ker G[1] (ℓ = 1).

    ℓ ≥ 2: Y^ℓ = col(C^{ℓ-1}) ∩ ker W^ℓ_S = G[ℓ-1]·ker G[ℓ] (W^ℓ_S G[ℓ-1] and G[ℓ] = D_ℓ W^ℓ G[ℓ-1] have
    one kernel, which holds ker G[ℓ-1]), so dim Y^ℓ = rank G[ℓ-1] − rank G[ℓ].  ℓ = 1: Y^1 = ker W^1_S =
    ker(G[1]·R) = R⁻¹(ker G[1]), of dimension n0 − ρ + dim ker G[1] (a sum of such preimages is the preimage
    of the sum: n0 − ρ + the dimension of the sum of the ker G[1]).
    """
    if l == 1:
        X, nk = G[1].nullspace()
        return n0 - rho + nk, (X, nk) if basis else None
    dim = G[l - 1].rank() - G[l].rank()
    if not basis:
        return dim, None
    X, nk = G[l].nullspace()
    return dim, (G[l - 1] * X, nk)


def _span_rank(parts, nrows: int, p: int) -> int:
    """The rank of the columns listed in ``parts``, pairs (M, c): the first c columns of M (``nrows`` rows),
    put side by side by products with 0/1 placement matrices (no entry leaves flint)."""
    total = sum(c for _, c in parts)
    if not total:
        return 0
    side, at = flint.nmod_mat(nrows, total, p), 0
    for M, c in parts:
        S = flint.nmod_mat(M.ncols(), total, p)
        for b in range(c):
            S[b, at + b] = 1
        side, at = side + M * S, at + c
    return side.rank()


#: flint's products, ranks and kernels run in C: 256 of their multiply-adds count as one step (its nmod_mat
#: products take about 0.6 ns a multiply-add modulo a prime below 2^31 on this project's CI machine, so a step
#: is about 0.15 µs); every entry read into or out of Python is a step of its own.
FLINT_PER_STEP = 256


def _charge(ctx, net: Network, pts, bias, out, blocks) -> None:
    """The work, before it is done, with ρ at its bound min(n0, n1): per point the exact evaluation (its
    coordinates handed to flint, the integer products, the pre-activations read back); once the residues of
    the network and the column basis Q; per point in use its diagonals and the products G[ℓ] and δ^ℓ; the
    residues read for the bias rows and their rank; per listed entry γ and its space (ranks, or a kernel and
    one product); per sum of spaces the placement products and the rank.  Proportional to the real cost:
    5-10 million steps a CPU second at 1 k to 118 k parameters (`bench_fundim.py --triangular`)."""
    arch = net.architecture
    n0, k, d = arch[0], arch[-1], len(arch) - 1
    hidden, rmax, F = arch[1:d], min(n0, arch[1]), FLINT_PER_STEP
    words = 1 + max(q.numerator.bit_length() + q.denominator.bit_length() for x in pts for q in x) // 64
    work = len(pts) * (n0 + sum(hidden) + net.n_params * words // F)
    work += net.n_params + arch[1] * (rmax + n0 * rmax // F)
    used = len(set(bias) | set(out) | {i for _, _, e in blocks for i, _ in e})
    maps = sum(hidden) + (arch[1] ** 2 * rmax + sum(arch[l] * (arch[l - 1] + arch[l]) * rmax for l in range(2, d))
                          + sum(arch[l] * (arch[l] + arch[l + 1]) * k for l in range(1, d))) // F
    work += used * maps
    rows, width = len(bias) * k, sum(arch[1:])
    work += rows * width + rows * width * min(rows, width) // F

    def rank(a, b):                         # an elimination of an a × b matrix: about a·b·min(a, b)/3 multiply-adds
        return a * b * min(a, b) // 3

    def span(nrows, parts):                 # parts of at most rmax columns each, placed side by side
        total = parts * rmax
        return total + (parts * nrows * rmax * total + rank(nrows, total)) // F

    work += span(arch[d - 1], len(out))
    for l, _, e in blocks:                  # γ; two ranks, or a kernel and a product
        n_l, n_prev = arch[l], (rmax if l == 1 else arch[l - 1])
        work += len(e) * (n_l + k + (n_l * k + rank(n_l, rmax) + rank(n_prev, rmax) + n_prev * rmax ** 2) // F)
        work += span(n_prev, len(e)) if len(e) > 1 else 0
    charge(ctx, work, "the triangular-certificate re-computation")


def triangular_rank(net: Network, evidence, ctx) -> TriangularRank:
    """r of Theorem A3 for the listed points and blocks (steps 1-5 of the module docstring)."""
    if len(net.architecture) < 3:
        fail(ctx, "a triangular certificate is about networks with hidden layers")
    # the two claims of one certificate share the work: keyed by the repr of the fields it reads (equal reprs of
    # JSON values are equal values), so that the evidence is read once (hashing 10^5 parsed Fractions took seconds)
    key = ("triangular rank", net.sha256(), repr([evidence.get(f) for f in _FIELDS]))
    if key not in ctx.budget.shared:
        ctx.budget.shared[key] = _triangular_rank(ctx, net, *_read(ctx, evidence, net))
    return ctx.budget.shared[key]


def _triangular_rank(ctx, net: Network, p, pts, bias, out, blocks) -> TriangularRank:
    from reluid.checker.fundim import _masks, _residue_layers

    arch = net.architecture
    n0, k, d = arch[0], arch[-1], len(arch) - 1
    _charge(ctx, net, pts, bias, out, blocks)
    masks = _masks(ctx, net, pts)
    W, WT = _layer_matrices(_residue_layers(ctx, net, p), arch, p)
    Q, rho = _column_basis(W[1], p)
    need = sorted(set(bias) | set(out) | {i for _, _, e in blocks for i, _ in e})
    reg = {i: _point_maps(W, WT, Q, arch, masks[i], p) for i in need}
    # bias block: β(i, o) = (δ^1_o, ..., δ^{d-1}_o, e_o)
    rows = {i: [[int(v) for v in reg[i][0][l].transpose().entries()] for l in range(1, d)] for i in bias}
    beta = [[v for l in range(d - 1) for v in rows[i][l][o * arch[l + 1]:(o + 1) * arch[l + 1]]]
            + [int(o == t) for t in range(k)] for i in bias for o in range(k)]
    r_b = _nmod_rank(beta, sum(arch[1:]), p)
    # output weights: the columns j < n0 of the weight rows of A^{d-1} over the output points span what the
    # columns of G[d-1] span (col(C^{d-1}) = col(G[d-1]))
    r_out = _span_rank([(reg[i][1][d - 1], rho) for i in out], arch[d - 1], p)
    # hidden weight blocks
    spaces: dict = {}
    r_hidden = 0
    before: dict[int, list[int]] = {l: [] for l in range(1, d)}    # the neurons listed earlier, per layer
    for l, u, ents in blocks:
        for i, c in ents:
            gamma = [int(v) for v in (reg[i][0][l] * flint.nmod_mat(k, 1, list(c), p)).entries()]
            if any(gamma[v] for v in before[l]):
                fail(ctx, f"block ({l}, {u}), point {i}: the combination of outputs is not 0 on the neurons "
                          f"listed before {u} (its rows would not vanish on the earlier blocks)")
            if not gamma[u]:
                fail(ctx, f"block ({l}, {u}), point {i}: the combination of outputs is 0 at neuron {u}")
        before[l].append(u)
        if not ents:
            continue
        several = len(ents) > 1
        for i, _ in ents:
            if (l, i) not in spaces or several and spaces[(l, i)][1] is None:
                spaces[(l, i)] = _space(l, reg[i][1], n0, rho, several)
        if not several:
            r_hidden += spaces[(l, ents[0][0])][0]
            continue
        parts = [spaces[(l, i)][1] for i, _ in ents]
        r_hidden += (n0 - rho if l == 1 else 0) + _span_rank(parts, rho if l == 1 else arch[l - 1], p)
    return TriangularRank(r_b + k * r_out + r_hidden, r_b, r_out, r_hidden, len(pts))
