"""The spaces of Theorem A3's checker (reluid/checker/triangular.py) against their definitions, modulo p.

The checker computes every space of step 4 from G[ℓ] = D_ℓ W^ℓ ⋯ D_2 W^2 D_1 Q (Q the pivot columns of W^1,
width ρ = rank W^1 ≤ n0) instead of the n_ℓ × n0 weight part C^ℓ = D_ℓ W^ℓ ⋯ D_1 W^1 of the region's map
(docs/mathematics.md §6.4, "The checker's spaces").  Here the definitions are evaluated directly, in plain
Python arithmetic modulo small primes (where accidental dependencies are common): C^ℓ by products,
Y^ℓ = col(C^{ℓ-1}) ∩ ker W^ℓ_S and Y^1 = ker W^1_S by an elimination of their own, and sums of them over
several points; every dimension must be the checker's.  Rank-deficient W^1, n0 < n1, n0 > n1, dead layers
and one to three hidden layers are drawn.
"""

from __future__ import annotations

import random

import flint
import pytest

from reluid.checker.triangular import _column_basis, _layer_matrices, _point_maps, _space, _span_rank


def _rref(rows, ncols, p):
    """(reduced rows, pivot columns) of a list of rows modulo p (plain Python)."""
    rows, piv, r = [[x % p for x in row] for row in rows], [], 0
    for c in range(ncols):
        t = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if t is None:
            continue
        rows[r], rows[t] = rows[t], rows[r]
        inv = pow(rows[r][c], p - 2, p)
        rows[r] = [x * inv % p for x in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c]:
                f = rows[i][c]
                rows[i] = [(x - f * y) % p for x, y in zip(rows[i], rows[r])]
        piv.append(c)
        r += 1
    return rows[:r], piv


def _rank(rows, ncols, p):
    return len(_rref(rows, ncols, p)[1]) if rows else 0


def _kernel(rows, ncols, p):
    """A basis of {x : rows·x = 0} modulo p."""
    R, piv = _rref(rows, ncols, p) if rows else ([], [])
    free = [c for c in range(ncols) if c not in piv]
    out = []
    for f in free:
        x = [0] * ncols
        x[f] = 1
        for row, c in zip(R, piv):
            x[c] = -row[f] % p
        out.append(x)
    return out


def _mul(A, B, p):
    return [[sum(a * b for a, b in zip(row, col)) % p for col in zip(*B)] for row in A]


def _intersection(U, V, n, p):
    """A basis of span U ∩ span V (rows of length n)."""
    if not U or not V:
        return []
    # x = Σ a_i u_i = Σ b_j v_j: the kernel of [Uᵀ | -Vᵀ]
    M = [[u[t] for u in U] + [-v[t] % p for v in V] for t in range(n)]
    vecs = [[sum(a * u[t] for a, u in zip(z, U)) % p for t in range(n)] for z in _kernel(M, len(U) + len(V), p)]
    return _rref(vecs, n, p)[0] if vecs else []


def _instance(rng):
    p = rng.choice([2, 3, 5, 7, 101])
    d = rng.randint(2, 4)
    arch = [rng.randint(1, 5) for _ in range(d)] + [rng.randint(1, 3)]
    lo = rng.choice([0, 1, 2])
    W = [[[rng.randint(-lo, lo) for _ in range(arch[l - 1])] for _ in range(arch[l])] for l in range(1, d + 1)]
    if rng.random() < 0.3 and arch[1] > 1:            # a rank-deficient W^1: a repeated row
        W[0][1] = list(W[0][0])
    points = [[[rng.random() < 0.6 for _ in range(arch[l])] for l in range(1, d)] for _ in range(rng.randint(1, 3))]
    return p, arch, W, points


def _reference(p, arch, W, masks, ell):
    """(dim Y^ℓ per point, dim of their sum, dim Σ col(C^{d-1})) from the definitions."""
    d, n0 = len(arch) - 1, arch[0]
    dims, spans, cols = [], [], []
    for mask in masks:
        C = [[int(i == j) for j in range(n0)] for i in range(n0)]        # C^0 = I
        Cs = [C]
        for l in range(1, d):
            C = _mul(W[l - 1], C, p)
            C = [row if mask[l - 1][u] else [0] * n0 for u, row in enumerate(C)]
            Cs.append(C)
        S = [W[ell - 1][u] for u in range(arch[ell]) if mask[ell - 1][u]]
        if ell == 1:
            Y = _kernel(S, n0, p) if S else [[int(i == j) for j in range(n0)] for i in range(n0)]
            n_prev = n0
        else:
            n_prev = arch[ell - 1]
            colC = _rref([list(c) for c in zip(*Cs[ell - 1])], n_prev, p)[0]
            kerS = _kernel(S, n_prev, p) if S else [[int(i == j) for j in range(n_prev)] for i in range(n_prev)]
            Y = _intersection(colC, kerS, n_prev, p)
        dims.append(_rank(Y, n_prev, p))
        spans.extend(Y)
        cols.extend(list(c) for c in zip(*Cs[d - 1]))
    return dims, _rank(spans, n_prev, p), _rank(cols, arch[d - 1], p)


@pytest.mark.parametrize("seed", range(300))
def test_the_checker_spaces_are_their_definitions(seed):
    rng = random.Random(seed)
    p, arch, W, masks = _instance(rng)
    d, n0 = len(arch) - 1, arch[0]
    Wt = [[row + [0] for row in layer] for layer in W]                # residue rows (W | b), b = 0
    Wm, WT = _layer_matrices(Wt, arch, p)
    Q, rho = _column_basis(Wm[1], p)
    assert rho == _rank(W[0], n0, p)
    maps = [_point_maps(Wm, WT, Q, arch, mask, p) for mask in masks]
    for ell in range(1, d):
        dims, total, out = _reference(p, arch, W, masks, ell)
        got = [_space(ell, G, n0, rho, True) for _, G in maps]
        assert [g[0] for g in got] == dims == [_space(ell, G, n0, rho, False)[0] for _, G in maps]
        width = rho if ell == 1 else arch[ell - 1]
        assert (n0 - rho if ell == 1 else 0) + _span_rank([g[1] for g in got], width, p) == total
        assert _span_rank([(G[d - 1], rho) for _, G in maps], arch[d - 1], p) == out


@pytest.mark.parametrize("seed", range(40))
def test_the_back_propagated_outputs_are_their_definitions(seed):
    """δ^l = D_l (W^{l+1})ᵀ ⋯ D_{d-1} (W^d)ᵀ, column o for output o."""
    rng = random.Random(1000 + seed)
    p, arch, W, masks = _instance(rng)
    d = len(arch) - 1
    Wm, WT = _layer_matrices([[row + [0] for row in layer] for layer in W], arch, p)
    Q, _ = _column_basis(Wm[1], p)
    for mask in masks:
        delta, _ = _point_maps(Wm, WT, Q, arch, mask, p)
        B = [[int(i == j) for j in range(arch[d])] for i in range(arch[d])]
        for l in range(d - 1, 0, -1):
            B = _mul([list(c) for c in zip(*W[l])], B, p)
            B = [row if mask[l - 1][u] else [0] * arch[d] for u, row in enumerate(B)]
            assert delta[l] == flint.nmod_mat(B, p)
