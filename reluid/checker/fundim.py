"""Checker verifiers for the functional dimension and for local identifiability.

Imports only the standard library, :mod:`reluid.model`,
:mod:`reluid.certificates.schema`, :mod:`reluid.checker.registry`,
:mod:`reluid.errors` and python-flint (no numpy).  Everything is recomputed
from the network under check, with an implementation independent of the
producer's (:mod:`reluid.analysis.deep.fundim` works in numpy int64; this
module in exact Python integers, flint ``nmod_mat`` products and integers
packed 128 bits a slot).

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
from fractions import Fraction

import flint

from reluid.certificates.schema import ClaimKind
from reluid.checker.deep import _int, _points as _read_points
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

def _tuples(ctx, evidence, key, size) -> list[tuple[int, ...]]:
    raw = evidence.get(key)
    if not isinstance(raw, (list, tuple)) or not all(
            isinstance(t, (list, tuple)) and len(t) == size and
            all(isinstance(v, int) and not isinstance(v, bool) for v in t) for t in raw):
        fail(ctx, f"evidence field {key!r} must be a list of {size}-tuples of integers")
    return [tuple(t) for t in raw]


def _prime(ctx, evidence) -> int:
    p = _int(ctx, evidence, "prime")
    if p < 3 or p >= 1 << 62 or not flint.fmpz(p).is_prime():
        fail(ctx, f"{p} is not an odd prime below 2^62")
    return p


def _points(ctx, evidence, n0) -> tuple[tuple[Fraction, ...], ...]:
    raw = evidence.get("points")
    if not isinstance(raw, (list, tuple)) or not raw:
        fail(ctx, "evidence field 'points' must be a nonempty list of points")
    return _read_points(ctx, evidence, "points", n0)


# ---- exact evaluation -----------------------------------------------------------------

def _integer_layers(net: Network):
    """Each hidden layer over a common denominator: (integer rows, integer biases, denominator)."""
    out = []
    for L in net.layers[:-1]:
        dl = math.lcm(*{q.denominator for r in L.weight for q in r}, *{q.denominator for q in L.bias})
        out.append(([[w.numerator * (dl // w.denominator) for w in row] for row in L.weight],
                    [b.numerator * (dl // b.denominator) for b in L.bias], dl))
    return out


def _hidden_signs(layers, x) -> list[list[int]]:
    """Signs of every hidden pre-activation at x, in exact integers."""
    den = math.lcm(*(q.denominator for q in x)) if x else 1
    h = [q.numerator * (den // q.denominator) for q in x]
    scale = den
    signs = []
    for W, b, dl in layers:
        z = [bi * scale + sum(w * v for w, v in zip(row, h) if v) for row, bi in zip(W, b)]
        signs.append([(v > 0) - (v < 0) for v in z])
        h = [v if v > 0 else 0 for v in z]
        scale *= dl
    return signs


class RegionRank:
    """What :func:`region_rank` found: the rank, its two parts and how many points."""

    __slots__ = ("rank", "rho", "s", "points", "rows")

    def __init__(self, rank, rho, s, points, rows):
        self.rank, self.rho, self.s, self.points, self.rows = rank, rho, s, points, rows


_LAST: list = [None, None]       # (key, RegionRank): the two claims of one certificate share the work


def region_rank(net: Network, evidence, ctx: Context) -> RegionRank:
    """The certified rank of the region rows of the listed points (steps 1-4 of the module docstring)."""
    p = _prime(ctx, evidence)
    arch = net.architecture
    n0, k = arch[0], arch[-1]
    d = len(arch) - 1
    pts = _points(ctx, evidence, n0)
    pivots = _tuples(ctx, evidence, "pivots", 2)
    rows = _tuples(ctx, evidence, "rows", 3)
    key = (id(net), net.sha256(), p, pts, tuple(pivots), tuple(rows))
    if _LAST[0] == key:
        return _LAST[1]
    slots = n0 + 1
    for i, o in pivots:
        if not (0 <= i < len(pts) and 0 <= o < k):
            fail(ctx, f"pivot ({i}, {o}) names no listed point and output")
    for i, o, j in rows:
        if not (0 <= i < len(pts) and 0 <= o < k and 0 <= j < slots):
            fail(ctx, f"row ({i}, {o}, {j}) names no listed point, output and slot")
    if len(set(pivots)) != len(pivots):
        fail(ctx, "a pivot is listed twice")
    hidden = arch[1:-1]
    n1 = hidden[0] if hidden else k
    # the work, before it is done: exact evaluation of every point, the region maps of the points used, the
    # packed row products (one big-integer product per pivot point and slot) and the final rank (flint)
    widths = [arch[l] * (arch[l - 1] + 1) for l in range(2, d + 1)]
    ncols = sum(widths)
    used = len({i for i, _ in pivots} | {i for i, _, _ in rows})
    n_piv = len({i for i, _ in pivots})
    words = 1 + max(q.numerator.bit_length() + q.denominator.bit_length() for x in pts for q in x) // 64
    charge(ctx, len(pts) * net.n_params * words + used * sum(a * b for a, b in zip(arch, arch[1:])) * slots
           + len(rows) * (n_piv + 1) * max(1, ncols // 64)
           + len(rows) * ncols * min(len(rows), ncols) // 65536, "the functional-dimension re-computation")

    # 1. every point generic
    masks = []
    ilayers = _integer_layers(net)
    for x in pts:
        sg = _hidden_signs(ilayers, x)
        if any(v == 0 for layer in sg for v in layer):
            fail(ctx, f"point {[str(v) for v in x]} is not generic: a hidden pre-activation is 0 there "
                      "(not parametrically smooth)")
        masks.append([[v > 0 for v in layer] for layer in sg])

    # 2. region data modulo p
    inverses: dict[int, int] = {}

    def res(q: Fraction) -> int:
        dq = q.denominator
        if dq not in inverses:
            if dq % p == 0:
                fail(ctx, f"the prime {p} divides a denominator of the network ({q})")
            inverses[dq] = pow(dq, -1, p)
        return q.numerator * inverses[dq] % p

    Wt = [[[res(w) for w in row] + [res(b)] for row, b in zip(L.weight, L.bias)] for L in net.layers]
    need = sorted({i for i, _ in pivots} | {i for i, _, _ in rows})
    A: dict[int, list] = {}      # point -> [A^0 (None), A^1, ..., A^{d-1}] as lists of rows
    delta: dict[int, list] = {}  # point -> [δ^1, ..., δ^d], each a list over outputs of lists
    for s in need:
        m = masks[s]
        Am = flint.nmod_mat([[int(i == j) for j in range(slots)] for i in range(slots)], p)
        As = [None]
        for l in range(1, d):
            P = [row if m[l - 1][i] else [0] * len(row) for i, row in enumerate(Wt[l - 1])]
            P.append([0] * (len(Wt[l - 1][0]) - 1) + [1])
            Am = flint.nmod_mat(P, p) * Am
            As.append(Am)
        Bm = flint.nmod_mat([[int(i == j) for j in range(k)] for i in range(k)], p)
        Bs = [None] * (d + 1)
        Bs[d] = Bm
        for l in range(d - 1, 0, -1):           # δ^l = D_l (W^{l+1})ᵀ δ^{l+1}
            nl = arch[l]
            WT = [[Wt[l][r][i] for r in range(arch[l + 1])] if m[l - 1][i] else [0] * arch[l + 1]
                  for i in range(nl)]
            Bm = flint.nmod_mat(WT, p) * Bm
            Bs[l] = Bm
        A[s] = [None] + [[[int(v) for v in r] for r in M.tolist()] for M in As[1:]]
        delta[s] = [None] + [[[int(M[i, o]) for i in range(M.nrows())] for o in range(k)] for M in Bs[1:]]

    # 3. pivots independent; coefficients of every listed row's δ^1
    rho = len(pivots)
    if rho > n1:
        fail(ctx, f"{rho} pivots, but layer 1 has only {n1} neurons")
    G = [delta[i][1][o] for i, o in pivots]
    if rho:
        Gm = flint.nmod_mat(G, p)
        R, r = Gm.rref()
        if r != rho:
            fail(ctx, f"the layer-1 vectors of the {rho} pivots are dependent modulo {p} (rank {r})")
        cols, c = [], 0
        for i in range(r):
            while int(R[i, c]) == 0:
                c += 1
            cols.append(c)
            c += 1
        inv = flint.nmod_mat([[G[t][c] for c in cols] for t in range(rho)], p).inv()
    pairs = sorted({(i, o) for i, o, _ in rows})
    K: dict[tuple[int, int], list[int]] = {}
    if pairs and rho:
        V = flint.nmod_mat([delta[i][1][o] for i, o in pairs], p)
        Vc = flint.nmod_mat([[delta[i][1][o][c] for c in cols] for i, o in pairs], p)
        Km = Vc * inv
        if Km * Gm != V:
            bad = next(pr for n, pr in enumerate(pairs)
                       if (flint.nmod_mat([[int(Km[n, t]) for t in range(rho)]], p) * Gm)
                       != flint.nmod_mat([delta[pr[0]][1][pr[1]]], p))
            fail(ctx, f"the layer-1 vector of point {bad[0]}, output {bad[1]} is not in the span of the pivots "
                      "(its rows would keep a layer-1 part)")
        for n, pr in enumerate(pairs):
            K[pr] = [int(Km[n, t]) for t in range(rho)]
    elif pairs:
        for i, o in pairs:
            if any(delta[i][1][o]):
                fail(ctx, f"the layer-1 vector of point {i}, output {o} is nonzero and there are no pivots")
            K[(i, o)] = []

    # 4. reduced rows on layers 2..d, then their rank.  Row (i, o, j) is Σ_r u_r ⊗ A^{l-1}_r e_j per layer l,
    #    over r = point i (u = δ^l_o) and the pivot points (u = -Σ_o' K δ^l_o'), computed on integers
    #    packed one entry per 64-, 128- or wider slot (u_r ⊗ a is one byte string per entry of u_r).
    s_rank = 0
    if rows and ncols:
        preg = sorted({i for i, _ in pivots})
        # a slot sums up to len(preg) + 1 products of two residues: it must hold that sum without a carry
        need = (len(preg) + 1) * (p - 1) ** 2
        bits = 64 if need < 1 << 64 else 128 if need < 1 << 128 else 64 * (need.bit_length() // 64 + 1)
        nb = bits // 8
        us: dict[tuple[int, int], list] = {}             # pair -> [(point, [u^l for l = 2..d]), ...]
        for pr in pairs:
            i, o = pr
            terms = {i: [list(delta[i][l][o]) for l in range(2, d + 1)]}
            for t, kt in enumerate(K[pr]):
                if not kt:
                    continue
                ti, to = pivots[t]
                acc = terms.setdefault(ti, [[0] * arch[l] for l in range(2, d + 1)])
                for n, l in enumerate(range(2, d + 1)):
                    dv = delta[ti][l][to]
                    acc[n] = [(a - kt * v) % p for a, v in zip(acc[n], dv)]
            us[pr] = list(terms.items())
        mat = []
        cols_cache: dict[tuple[int, int], list] = {}     # (point, slot) -> packed columns A^{l-1} e_j, l = 2..d
        for i, o, j in sorted(rows, key=lambda r: r[2]):
            total = 0
            for r, ul in us[(i, o)]:
                key2 = (r, j)
                if key2 not in cols_cache:
                    if len(cols_cache) > 4096:
                        cols_cache.clear()
                    cols_cache[key2] = [int.from_bytes(b"".join(row[j].to_bytes(nb, "little") for row in A[r][l - 1]),
                                                       "little") for l in range(2, d + 1)]
                pcols = cols_cache[key2]
                parts = []
                for n, l in enumerate(range(2, d + 1)):
                    w = (arch[l - 1] + 1) * nb
                    pa = pcols[n]
                    parts.extend((u * pa).to_bytes(w, "little") if u else bytes(w) for u in ul[n])
                total += int.from_bytes(b"".join(parts), "little")
            data = total.to_bytes(ncols * nb, "little")
            raw = memoryview(data).cast("Q")
            if bits == 64:
                mat.append([v % p for v in raw])
            elif bits == 128:
                c64 = (1 << 64) % p
                mat.append([(lo + hi * c64) % p for lo, hi in zip(raw[0::2], raw[1::2])])
            else:
                mat.append([int.from_bytes(data[c * nb:(c + 1) * nb], "little") % p for c in range(ncols)])
        s_rank = flint.nmod_mat(mat, p).rank()
    out = RegionRank(slots * rho + s_rank, rho, s_rank, len(pts), len(rows))
    _LAST[0], _LAST[1] = key, out
    return out


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
    got = region_rank(net, evidence, ctx)
    if got.rank < target:
        fail(ctx, f"the region rows at the listed points have rank {got.rank} modulo {evidence['prime']}, "
                  f"less than D - N = {target}")
    return (f"{got.points} generic points (exact), Jacobian rank {got.rank} = D - N modulo {evidence['prime']} "
            "(recomputed), every hidden neuron has a nonzero incoming row: Theorem A1 applies (locally "
            "identifiable; says nothing about parameters far from θ)")
