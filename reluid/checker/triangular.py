"""Checker for the block-triangular certificate of local identifiability (docs/mathematics.md §6.4, Theorem A3).

Independent of the producer (:mod:`reluid.analysis.deep.triangular`): python-flint
``nmod_mat`` and exact Python integers only, with the region maps of
:mod:`reluid.checker.fundim`.  The evidence (``method: triangular``) lists
rational ``points``, a prime ``prime``, ``bias_points`` and ``out_points``
(indices of points) and ``blocks``: for hidden neurons (layer ℓ, neuron u,
0-based), pairs (point index, c) with c ∈ F_p^k.  The checker

1. evaluates every point exactly and requires it to be generic (its pattern s_i);
2. computes, modulo p, the maps A^ℓ_{s_i} and the back-propagated outputs δ^ℓ_o(s_i);
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


def _row_basis(M: "flint.nmod_mat") -> list[list[int]]:
    Rm, r = M.rref()
    return [[int(Rm[i, j]) for j in range(Rm.ncols())] for i in range(r)]


def _space(arch, Wt, A, mask, l: int, p: int):
    """(dim, basis rows or None): Y^ℓ = col(C) ∩ ker W^ℓ_S, C the weight part of A^{ℓ-1} (the identity for
    ℓ = 1); for ℓ = 1 the basis is formed only when asked (``None``: not formed)."""
    n_prev = arch[l - 1]
    S = [Wt[l - 1][u][:n_prev] for u in range(arch[l]) if mask[l - 1][u]]
    if l == 1:
        r = flint.nmod_mat(S, p).rank() if S else 0
        return n_prev - r, None
    Am = A[l - 1]
    C = flint.nmod_mat([[int(Am[w, j]) for w in range(n_prev)] for j in range(arch[0])], p)   # rows: Cᵀ
    B = _row_basis(C)                                                                    # rows span col(C)
    if not B:
        return 0, []
    if not S:
        return len(B), B
    M = flint.nmod_mat(S, p) * flint.nmod_mat(B, p).transpose()                       # |S| × dim col(C)
    X, n = M.nullspace()
    if not n:
        return 0, []
    K = flint.nmod_mat([[int(X[a, b]) for b in range(n)] for a in range(X.nrows())], p)
    Y = K.transpose() * flint.nmod_mat(B, p)
    return n, [[int(Y[a, b]) for b in range(Y.ncols())] for a in range(n)]


def _kernel_rows(Wt, mask, arch, p: int) -> list[list[int]]:
    """A basis of ker W^1_S as rows (layer 1: Y^1 itself)."""
    n0 = arch[0]
    S = [Wt[0][u][:n0] for u in range(arch[1]) if mask[0][u]]
    if not S:
        return [[int(i == j) for j in range(n0)] for i in range(n0)]
    X, n = flint.nmod_mat(S, p).nullspace()
    return [[int(X[a, b]) for a in range(n0)] for b in range(n)]


#: flint's products, ranks and kernels run in C: 64 of their multiply-adds count as one step (as in
#: reluid.checker.fundim); every entry read into or out of Python is a step of its own.
FLINT_PER_STEP = 64


def _charge(ctx, net: Network, pts, blocks) -> None:
    """The work, before it is done: per point the exact evaluation, the region maps (their entries handed to
    flint and read back, and the products A^ℓ = P_ℓ A^{ℓ-1} and δ^ℓ in C) ; per listed entry the space Y^ℓ
    (C read from A^{ℓ-1}, the rank or kernel against W^ℓ_S in C, Y read back) and its share of the block's
    rank.  Proportional to the real cost: 4-7 million steps a CPU second, like the other verifiers."""
    arch = net.architecture
    n0, k, d = arch[0], arch[-1], len(arch) - 1
    words = 1 + max(q.numerator.bit_length() + q.denominator.bit_length() for x in pts for q in x) // 64
    entries = sum(arch[l] * (arch[l - 1] + 1) + arch[l] * arch[l + 1] + arch[l] * k for l in range(1, d))
    flops = sum(arch[l] * (arch[l - 1] + 1) * (n0 + 1) for l in range(2, d)) \
        + sum(arch[l] * arch[l + 1] * k for l in range(1, d))
    per_point = net.n_params * words + entries + flops // FLINT_PER_STEP
    ents = 0
    for l, _, e in blocks:
        if l == 1:      # the rank of W^1_S; a sum of several kernels: their bases read back, a rank over n0 columns
            ents += len(e) * (n0 * arch[1] + n0 * arch[1] * min(arch[1], n0) // FLINT_PER_STEP)
            ents += len(e) * (n0 * n0 + n0 ** 3 // FLINT_PER_STEP) if len(e) > 1 else 0
        else:           # C read (n0 × n_{l-1}), its echelon form and kernel against W^l_S, Y read back, the sum
            ents += len(e) * (2 * n0 * arch[l - 1] + arch[l] * arch[l - 1]
                              + (n0 + arch[l]) * arch[l - 1] ** 2 // FLINT_PER_STEP)
    charge(ctx, len(pts) * per_point + ents, "the triangular-certificate re-computation")


def triangular_rank(net: Network, evidence, ctx) -> TriangularRank:
    """r of Theorem A3 for the listed points and blocks (steps 1-5 of the module docstring)."""
    if len(net.architecture) < 3:
        fail(ctx, "a triangular certificate is about networks with hidden layers")
    p, pts, bias, out, blocks = _read(ctx, evidence, net)
    key = ("triangular rank", net.sha256(), p, pts, bias, out, tuple((l, u, tuple(e)) for l, u, e in blocks))
    if key not in ctx.budget.shared:      # the two claims of one certificate share the work
        ctx.budget.shared[key] = _triangular_rank(ctx, net, p, pts, bias, out, blocks)
    return ctx.budget.shared[key]


def _triangular_rank(ctx, net: Network, p, pts, bias, out, blocks) -> TriangularRank:
    from reluid.checker.fundim import _masks, _region, _residue_layers

    arch = net.architecture
    n0, k, d = arch[0], arch[-1], len(arch) - 1
    _charge(ctx, net, pts, blocks)
    masks = _masks(ctx, net, pts)
    Wt = _residue_layers(ctx, net, p)
    need = sorted(set(bias) | set(out) | {i for _, _, e in blocks for i, _ in e})
    reg = {i: _region(Wt, arch, masks[i], p) for i in need}
    # bias block: β(i, o) = (δ^1_o, ..., δ^{d-1}_o, e_o)
    beta = [[v for l in range(1, d) for v in reg[i][1][l][o]] + [int(o == t) for t in range(k)]
            for i in bias for o in range(k)]
    r_b = _nmod_rank(beta, sum(arch[1:]), p)
    # output weights: the columns j < n0 of the weight rows of A^{d-1}, over the output points
    n_last = arch[d - 1]
    cols = [[int(reg[i][0][d - 1][w, j]) for w in range(n_last)] for i in out for j in range(n0)]
    r_out = _nmod_rank(cols, n_last, p)
    # hidden weight blocks
    spaces: dict = {}
    r_hidden = 0
    before: dict[int, list[int]] = {l: [] for l in range(1, d)}    # the neurons listed earlier, per layer
    for l, u, ents in blocks:
        for i, c in ents:
            gamma = [sum(c[o] * reg[i][1][l][o][t] for o in range(k)) % p for t in range(arch[l])]
            if any(gamma[v] for v in before[l]):
                fail(ctx, f"block ({l}, {u}), point {i}: the combination of outputs is not 0 on the neurons "
                          f"listed before {u} (its rows would not vanish on the earlier blocks)")
            if not gamma[u]:
                fail(ctx, f"block ({l}, {u}), point {i}: the combination of outputs is 0 at neuron {u}")
        before[l].append(u)
        if not ents:
            continue
        for i, _ in ents:
            if (l, i) not in spaces:
                spaces[(l, i)] = _space(arch, Wt, reg[i][0], masks[i], l, p)
        if len(ents) == 1:
            r_hidden += spaces[(l, ents[0][0])][0]
            continue
        rows = []
        for i, _ in ents:
            dim, basis = spaces[(l, i)]
            if basis is None:
                basis = _kernel_rows(Wt, masks[i], arch, p)
                spaces[(l, i)] = (dim, basis)
            rows.extend(basis)
        r_hidden += _nmod_rank(rows, arch[l - 1], p)
    return TriangularRank(r_b + k * r_out + r_hidden, r_b, r_out, r_hidden, len(pts))
