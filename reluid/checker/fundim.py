"""Checker verifiers for the functional dimension and for local identifiability.

Imports only the standard library, :mod:`reluid.model`,
:mod:`reluid.certificates.schema`, :mod:`reluid.checker.registry`,
:mod:`reluid.errors` and python-flint (no numpy).  Everything is recomputed
from the network under check, with an implementation independent of the
producer's (:mod:`reluid.analysis.deep.fundim` works in numpy int64; this
module in exact Python integers and flint ``nmod_mat`` products modulo p).

The evidence (docs/certificates.md) lists rational ``points``, a prime
``prime``, ``pivots`` (point index, output) and ``rows`` (point index,
output, slot).  The checker

1. evaluates every point exactly and requires every hidden pre-activation to
   be nonzero (the point is generic, so its activation region R_s is open);
2. computes, modulo p, the region's affine maps A^ℓ_s (x̃ ↦ h̃^ℓ) and the
   back-propagated outputs δ^ℓ_o(s); the *region rows*
   r(s, o, j) = [δ^ℓ_o(s) ⊗ A^{ℓ-1}_s e_j]_ℓ span the Jacobian rows at all
   points of R_s (docs/mathematics.md §6, Lemma R);
3. requires the layer-1 vectors δ^1 of the pivots to be independent (ρ of
   them), so the pivot rows r(t, j), all slots j, have independent layer-1
   parts; reduces every listed row by the pivot rows of the same slot, so
   that its layer-1 part vanishes (checked), and computes the rank s of the
   reduced rows on the remaining parameters;
4. concludes rank ≥ (n0 + 1) ρ + s of the Jacobian at a finite set of generic
   points (n0 + 1 near each listed point), which is the certified lower
   bound on dim_fun.

Local identifiability (Theorem A1) needs that rank to be D - N and the points
generic; the checker also recomputes that no hidden neuron has a zero
incoming row and bias (implied by one generic point, Lemma A0(e)).  It is a
statement about a neighbourhood of θ only and no verdict rule uses it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import flint

from reluid.certificates.schema import ClaimKind, FunDimMethod
from reluid.checker import readers as R
from reluid.checker.linalg import pivots_mod_p, rank_mod_p
from reluid.checker.registry import Context, charge, fail, verifies
from reluid.model.network import Network

__all__ = ["region_rank", "upper_bound", "identifiability_bound", "RegionRank"]


# ---- bounds -------------------------------------------------------------------

def identifiability_bound(arch) -> int:
    """D - N: parameters minus hidden neurons."""
    D = sum(arch[l + 1] * (arch[l] + 1) for l in range(len(arch) - 1))
    return D - sum(arch[1:-1])


def upper_bound(arch) -> int:
    """U: D - N, or 2k + 2 for width-one chains (docs/mathematics.md §6)."""
    U = identifiability_bound(arch)
    k = arch[-1]
    if all(a == 1 for a in arch[:-1]) and len(arch) >= 3:
        U = min(U, 2 * k + 2)
    return U


# ---- evidence readers -----------------------------------------------------------

def _pairs(ctx, evidence, key, size) -> tuple[tuple[int, ...], ...]:
    return R.tuples(ctx, evidence.get(key), f"evidence field {key!r}", size)


@dataclass(frozen=True, slots=True)
class _Evidence:
    p: int
    points: tuple
    pivots: tuple
    rows: tuple


def _read(ctx, evidence, net: Network) -> _Evidence:
    arch = net.architecture
    n0, k = arch[0], arch[-1]
    p = R.prime(ctx, evidence.get("prime"), "evidence field 'prime'", lo=3)
    pts = R.points(ctx, evidence.get("points"), "evidence field 'points'", n0, nonempty=True)
    pivots, rows = _pairs(ctx, evidence, "pivots", 2), _pairs(ctx, evidence, "rows", 3)
    for i, o in pivots:
        if not (0 <= i < len(pts) and 0 <= o < k):
            fail(ctx, f"pivot ({R.show(i)}, {R.show(o)}) names no listed point and output")
    for i, o, j in rows:
        if not (0 <= i < len(pts) and 0 <= o < k and 0 <= j <= n0):
            fail(ctx, f"row ({R.show(i)}, {R.show(o)}, {R.show(j)}) names no listed point, output and slot")
    if len(set(pivots)) != len(pivots):
        fail(ctx, "a pivot is listed twice")
    n1 = arch[1] if len(arch) > 2 else k
    if len(pivots) > n1:
        fail(ctx, f"{len(pivots)} pivots, but layer 1 has only {n1} neurons")
    return _Evidence(p, pts, tuple(pivots), tuple(rows))


# ---- exact evaluation -----------------------------------------------------------------

def _integer_layers(net: Network):
    """Each hidden layer over a common denominator: (integer rows, integer biases, denominator)."""
    out = []
    for L in net.layers[:-1]:
        dl = math.lcm(*{q.denominator for r in L.weight for q in r}, *{q.denominator for q in L.bias})
        out.append(([[w.numerator * (dl // w.denominator) for w in row] for row in L.weight],
                    [b.numerator * (dl // b.denominator) for b in L.bias], dl))
    return out


def _hidden_signs(layers, pts) -> list[list[list[int]]]:
    """Signs of every hidden pre-activation at every point, in exact integers: one flint integer matrix
    product per layer for all points (row i is point i times the lcm d_i of its denominators, so each row
    carries its own positive scale d_i times the layers' denominators so far, which no sign depends on)."""
    if not pts:
        return []
    H, scale = [], []
    for x in pts:
        den = math.lcm(*(q.denominator for q in x)) if x else 1
        H.append([q.numerator * (den // q.denominator) for q in x])
        scale.append([den])
    signs = [[] for _ in pts]
    for W, b, dl in layers:
        Z = (flint.fmpz_mat(len(H), len(W[0]) if W else 0, [v for row in H for v in row])
             * flint.fmpz_mat(W).transpose() + flint.fmpz_mat(scale) * flint.fmpz_mat([b])).tolist()
        for sg, z in zip(signs, Z):
            sg.append([(v > 0) - (v < 0) for v in z])
        H = [[v if v > 0 else 0 for v in z] for z in Z]
        scale = [[s * dl] for s, in scale]
    return signs


def _masks(ctx, net: Network, pts) -> list[list[list[bool]]]:
    """Step 1: the activation pattern of every point, which must be generic (no hidden pre-activation 0)."""
    masks = []
    for x, sg in zip(pts, _hidden_signs(_integer_layers(net), pts)):
        if any(v == 0 for layer in sg for v in layer):
            fail(ctx, f"point {[R.show(v) for v in x]} is not generic: a hidden pre-activation is 0 there "
                      "(not parametrically smooth)")
        masks.append([[v > 0 for v in layer] for layer in sg])
    return masks


# ---- region data modulo p ----------------------------------------------------------------

def _identity(n: int, p: int):
    return flint.nmod_mat(n, n, [int(i == j) for i in range(n) for j in range(n)], p)


def _region(Wt, arch, mask, p):
    """(A, δ) of one region (step 2): A[l] the nmod_mat of x̃ ↦ h̃^l (rows: neurons of layer l and the
    constant 1; columns: the n0 + 1 slots), and δ[l][o] the back-propagated output o at layer l."""
    d = len(arch) - 1
    A, Am = [None], None                    # A^0 = I: A^1 is P_1 itself
    for l in range(1, d):
        P = [row if mask[l - 1][i] else [0] * len(row) for i, row in enumerate(Wt[l - 1])]
        P.append([0] * arch[l - 1] + [1])
        Am = flint.nmod_mat(P, p) if Am is None else flint.nmod_mat(P, p) * Am
        A.append(Am)
    delta, Bm = [None] * (d + 1), None      # δ^d = I: δ^{d-1} is D_{d-1} (W^d)ᵀ itself
    delta[d] = _identity(arch[d], p)
    for l in range(d - 1, 0, -1):           # δ^l = D_l (W^{l+1})ᵀ δ^{l+1}
        WT = [[Wt[l][r][i] for r in range(arch[l + 1])] if mask[l - 1][i] else [0] * arch[l + 1]
              for i in range(arch[l])]
        Bm = flint.nmod_mat(WT, p) if Bm is None else flint.nmod_mat(WT, p) * Bm
        delta[l] = Bm
    return A, [None] + [[[int(M[i, o]) for i in range(M.nrows())] for o in range(arch[d])] for M in delta[1:]]


def _residue_layers(ctx, net: Network, p: int):
    """Every layer as rows (W_i | b_i) of residues modulo p."""
    return [[[R.residue(ctx, w, p) for w in row] + [R.residue(ctx, b, p)] for row, b in zip(L.weight, L.bias)]
            for L in net.layers]


# ---- the rank --------------------------------------------------------------------------

def _coefficients(ctx, ev: _Evidence, delta) -> dict:
    """Step 3: the pivots' layer-1 vectors are independent; K[(i, o)] expresses δ^1 of (i, o) in them."""
    p, pivots = ev.p, ev.pivots
    rho = len(pivots)
    pairs = sorted({(i, o) for i, o, _ in ev.rows})
    if not rho:
        bad = next((pr for pr in pairs if any(delta[pr[0]][1][pr[1]])), None)
        if bad is not None:
            fail(ctx, f"the layer-1 vector of point {bad[0]}, output {bad[1]} is nonzero and there are no pivots")
        return {pr: [] for pr in pairs}
    G = flint.nmod_mat([delta[i][1][o] for i, o in pivots], p)
    Rm, r = G.rref()
    if r != rho:
        fail(ctx, f"the layer-1 vectors of the {rho} pivots are dependent modulo {p} (rank {r})")
    cols = pivots_mod_p(Rm, r)
    inv = flint.nmod_mat([[int(G[t, c]) for c in cols] for t in range(rho)], p).inv()
    K = {}
    for i, o in pairs:
        v = delta[i][1][o]
        coef = flint.nmod_mat([[v[c] for c in cols]], p) * inv
        if coef * G != flint.nmod_mat([v], p):
            fail(ctx, f"the layer-1 vector of point {i}, output {o} is not in the span of the pivots "
                      "(its rows would keep a layer-1 part)")
        K[(i, o)] = [int(coef[0, t]) for t in range(rho)]
    return K


def _terms(ev: _Evidence, delta, K, arch, pair) -> dict:
    """The reduced row of ``pair`` as Σ_r u_r ⊗ A^{l-1}_r: point r -> [u^l for l = 2..d] (mod p)."""
    i, o = pair
    d = len(arch) - 1
    terms = {i: [list(delta[i][l][o]) for l in range(2, d + 1)]}
    for t, kt in enumerate(K[pair]):
        if kt:
            ti, to = ev.pivots[t]
            acc = terms.setdefault(ti, [[0] * arch[l] for l in range(2, d + 1)])
            for n, l in enumerate(range(2, d + 1)):
                acc[n] = [(a - kt * v) % ev.p for a, v in zip(acc[n], delta[ti][l][to])]
    return terms


def _reduced_rows(ev: _Evidence, A, delta, K, arch) -> list[list[int]]:
    """Step 4: every listed row on layers 2..d, modulo p; one flint product per (point, output) and layer."""
    p, d = ev.p, len(arch) - 1
    by_pair: dict[tuple[int, int], list[int]] = {}
    for i, o, j in ev.rows:
        by_pair.setdefault((i, o), []).append(j)
    columns: dict = {}                        # (point, layer) -> the rows of A^{l-1} as Python integers

    def rows_of(r, l):
        if (r, l) not in columns:
            columns[(r, l)] = [[int(v) for v in row] for row in A[r][l - 1].tolist()]
        return columns[(r, l)]

    out = []
    for pair, js in sorted(by_pair.items()):
        terms = list(_terms(ev, delta, K, arch, pair).items())
        blocks = []
        for n, l in enumerate(range(2, d + 1)):   # block[t, c·|js| + jj] = Σ_r u_r[t] A^{l-1}_r[c, js[jj]]
            w = arch[l - 1] + 1
            U = flint.nmod_mat(arch[l], len(terms), [ul[n][t] for t in range(arch[l]) for _, ul in terms], p)
            S = flint.nmod_mat(len(terms), w * len(js), [row[j] for r, _ in terms for row in rows_of(r, l)
                                                         for j in js], p)
            blocks.append((w, arch[l], [int(x) for x in (U * S).entries()]))
        for jj in range(len(js)):
            out.append([E[(t * w + c) * len(js) + jj] for w, nt, E in blocks for t in range(nt) for c in range(w)])
    return out


def _charge(ctx, net: Network, ev: _Evidence) -> None:
    """The work, before it is done: exact evaluation, the region maps, the row blocks and the final rank."""
    arch = net.architecture
    slots = arch[0] + 1
    ncols = sum(arch[l] * (arch[l - 1] + 1) for l in range(2, len(arch)))
    used = len({i for i, _ in ev.pivots} | {i for i, _, _ in ev.rows})
    words = 1 + max(q.numerator.bit_length() + q.denominator.bit_length() for x in ev.points for q in x) // 64
    terms = len({i for i, _ in ev.pivots}) + 1
    charge(ctx, len(ev.points) * net.n_params * words + used * sum(a * b for a, b in zip(arch, arch[1:])) * slots
           + len(ev.rows) * ncols + len({(i, o) for i, o, _ in ev.rows}) * terms * ncols * slots // 64
           + len(ev.rows) * ncols * min(len(ev.rows), ncols) // 65536, "the functional-dimension re-computation")


@dataclass(frozen=True, slots=True)
class RegionRank:
    """What :func:`region_rank` found: the rank, its two parts, the number of points and of listed rows."""

    rank: int
    rho: int
    s: int
    points: int
    rows: int


def region_rank(net: Network, evidence, ctx: Context) -> RegionRank:
    """The certified rank of the region rows of the listed points (steps 1-4 of the module docstring)."""
    ev = _read(ctx, evidence, net)
    key = ("region rank", net.sha256(), ev)
    if key not in ctx.budget.shared:      # the two claims of one certificate share the work
        ctx.budget.shared[key] = _region_rank(ctx, net, ev)
    return ctx.budget.shared[key]


def _region_rank(ctx, net: Network, ev: _Evidence) -> RegionRank:
    arch = net.architecture
    _charge(ctx, net, ev)
    masks = _masks(ctx, net, ev.points)
    Wt = _residue_layers(ctx, net, ev.p)
    need = sorted({i for i, _ in ev.pivots} | {i for i, _, _ in ev.rows})
    A, delta = {}, {}
    for s in need:
        A[s], delta[s] = _region(Wt, arch, masks[s], ev.p)
    K = _coefficients(ctx, ev, delta)
    ncols = sum(arch[l] * (arch[l - 1] + 1) for l in range(2, len(arch)))
    s_rank = 0
    if ev.rows and ncols:
        s_rank = rank_mod_p(len(ev.rows), ncols, [x for row in _reduced_rows(ev, A, delta, K, arch) for x in row],
                            ev.p)
    return RegionRank((arch[0] + 1) * len(ev.pivots) + s_rank, len(ev.pivots), s_rank, len(ev.points), len(ev.rows))


def _triangular(ctx, evidence) -> bool:
    """Whether the evidence is a block-triangular certificate (``method: triangular``, Theorem A3) rather than
    the region rows of §6.3 (no ``method``)."""
    method = R.mapping(ctx, evidence, "the evidence").get("method")
    if method is not None and method != FunDimMethod.TRIANGULAR:
        fail(ctx, f"unknown functional-dimension method {R.show(method)}")
    return method == FunDimMethod.TRIANGULAR


def _triangular_rank(net: Network, evidence, ctx):
    from reluid.checker.triangular import triangular_rank

    return triangular_rank(net, evidence, ctx)


def _describe(net: Network, t) -> str:
    return (f"block-triangular Jacobian rank {t.rank} = {t.r_bias} + {net.architecture[-1]}·{t.r_out} + "
            f"{t.r_hidden} (Theorem A3: biases, output weights, hidden weights)")


def _int(ctx, evidence, key) -> int:
    return R.integer(ctx, evidence.get(key), f"evidence field {key!r}")


def _check_counts(ctx, evidence, net: Network) -> None:
    if _int(ctx, evidence, "n_params") != net.n_params:
        fail(ctx, f"the network has {net.n_params} parameters, not {evidence['n_params']}")


@verifies(ClaimKind.FUNCTIONAL_DIMENSION)
def verify_functional_dimension(evidence, ctx: Context) -> str:
    """dim_fun(θ) >= the claimed rank: the region rows at the listed generic points have at least that rank mod p."""
    net = ctx.network
    U = upper_bound(net.architecture)
    claimed = _int(ctx, evidence, "rank")
    if _int(ctx, evidence, "upper_bound") != U:
        fail(ctx, f"the upper bound is {U}, not {evidence['upper_bound']}")
    _check_counts(ctx, evidence, net)
    if claimed > U:
        fail(ctx, f"claimed rank {claimed} exceeds the upper bound {U}")
    if _triangular(ctx, evidence):
        t = _triangular_rank(net, evidence, ctx)
        if t.rank < claimed:
            fail(ctx, f"the block-triangular rows at the listed points certify rank {t.rank} modulo "
                      f"{evidence['prime']}, less than the claimed {claimed}")
        tail = f"dim_fun = U = {U} (certified)" if t.rank >= U else f"dim_fun >= {t.rank}, U = {U}"
        return f"{t.points} generic points (exact), {_describe(net, t)} modulo {evidence['prime']} (recomputed): {tail}"
    got = region_rank(net, evidence, ctx)
    if got.rank < claimed:
        fail(ctx, f"the region rows at the listed points have rank {got.rank} modulo {evidence['prime']}, "
                  f"less than the claimed {claimed}")
    tail = f"dim_fun = U = {U} (certified)" if got.rank >= U else f"dim_fun >= {got.rank}, U = {U}"
    return (f"{got.points} generic points (exact), rank {got.rank} = {net.input_dim + 1}·{got.rho} + {got.s} modulo "
            f"{evidence['prime']} (recomputed): {tail}")


@verifies(ClaimKind.LOCAL_IDENTIFIABILITY)
def verify_local_identifiability(evidence, ctx: Context) -> str:
    """Theorem A1: generic points, Jacobian rank D - N; and no hidden neuron with a zero incoming row."""
    net = ctx.network
    arch = net.architecture
    if len(arch) < 3:
        fail(ctx, "local identifiability is claimed for networks with hidden layers")
    target = identifiability_bound(arch)
    if _int(ctx, evidence, "rank") != target:
        fail(ctx, f"Theorem A1 needs rank D - N = {target}; the evidence claims {evidence['rank']}")
    _check_counts(ctx, evidence, net)
    for l, L in enumerate(net.layers[:-1], 1):
        for i, (w, b) in enumerate(zip(L.weight, L.bias)):
            if not any(w) and not b:
                fail(ctx, f"neuron {i + 1} of hidden layer {l} has a zero incoming row and bias")
    if _triangular(ctx, evidence):
        t = _triangular_rank(net, evidence, ctx)
        if t.rank < target:
            fail(ctx, f"the block-triangular rows at the listed points certify rank {t.rank} modulo "
                      f"{evidence['prime']}, less than D - N = {target}")
        return (f"{t.points} generic points (exact), {_describe(net, t)} = D - N modulo {evidence['prime']} "
                "(recomputed), every hidden neuron has a nonzero incoming row: Theorems A3 and A1 apply (locally "
                "identifiable; says nothing about parameters far from θ)")
    got = region_rank(net, evidence, ctx)
    if got.rank < target:
        fail(ctx, f"the region rows at the listed points have rank {got.rank} modulo {evidence['prime']}, "
                  f"less than D - N = {target}")
    return (f"{got.points} generic points (exact), Jacobian rank {got.rank} = D - N modulo {evidence['prime']} "
            "(recomputed), every hidden neuron has a nonzero incoming row: Theorem A1 applies (locally "
            "identifiable; says nothing about parameters far from θ)")
