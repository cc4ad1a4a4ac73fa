"""Checker for two hidden layers: the hypotheses of docs/mathematics.md §8 and the flips θ^{F1,F2}.

Imports only the standard library, :mod:`reluid.model`, :mod:`reluid.certificates.schema`,
:mod:`reluid.checker.registry`, :mod:`reluid.checker.flipsets`, :mod:`reluid.checker.cover_trees`,
:mod:`reluid.checker.search` and :mod:`reluid.errors`.  The
exact linear algebra here is the checker's own (Fractions, Gaussian elimination); nothing is
shared with the producer (:mod:`reluid.analysis.deep.two_layers`).

``deep-two-layer-hypotheses``
    evidence ``{"vertices", "edges", "flats"}`` (and ``"cover"``, optional) for θ = (A, a; W, w; V, c) ∈
    Ω(n0, n1, n2, n3), n0 >= 2.  The checker recomputes H0; verifies every vertex as a full region (an interior
    point, a zero of every g^s_k in R_s, ∇g^s_k ≠ 0, the g^s_k pairwise non-proportional);
    verifies every edge (s, s^(j)) between two listed vertices as rigid (rank[u_j; g^s_k; g^s_k′]
    = 3 for every k < k′), the edges as one connected graph, and their labels as all of [n1]
    (the referee's change C1); verifies every bend triple (B1)–(B4) with its point on the wall,
    keeps each flat once (by the reduced row echelon form of [u_j; g^s_k]); and then decides H4
    itself: by Lemma 10.12's count (sorted, b_(m) > m for the distinct flats b_j on each H_j:
    polynomial) when it holds, and otherwise over the blocks it computes itself: the flats on each
    hyperplane spanned by *any* two flats and equal to no H_i (the referee's C6).  With ``cover``,
    a branch-and-bound tree for every nonempty I ⊆ [n1] the count leaves open, checked against
    those blocks (:mod:`reluid.checker.cover_trees`, docs/mathematics.md Lemma 8.13); without it
    (older certificates), for every such I a search for a cover of the flats on the H_j, j ∈ I,
    by at most |I| blocks and singletons (:func:`reluid.checker.search.h4_covers`, recorded as a
    search); its message says which.  A cover, or any defect, rejects the claim.
``deep-layer-no-flip-set``
    evidence ``{"layer": l, "evidence": E}``: E is ``no-flip-set`` evidence (docs/mathematics.md
    §3) for the shallow network (W^l, b^l; W^{l+1}, b^{l+1}) cut out of the network under check,
    verified by :func:`reluid.checker.flipsets.verify_no_flip_set`: 𝔉_l = {∅}.
the witness ``two-layer-flip``
    :func:`flips_construction` decides that θ′ is exactly θ^{F1,F2} (§8.1) for some F1 ∈ 𝔉1,
    F2 ∈ 𝔉2, not both empty, recomputing both identities (Proposition 8.11: then θ′ computes
    f_θ, with no hypothesis).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from reluid.certificates.schema import CertificateError, ClaimKind, qs
from reluid.checker.cover_trees import verify_cover_trees
from reluid.checker.flipsets import verify_no_flip_set
from reluid.checker.linalg import rank, rref
from reluid.checker.registry import Context, charge, fail, verifies
from reluid.checker.search import h4_covers
from reluid.model.network import Network
from reluid.verdicts import Mechanism

__all__ = ["verify_two_layer_hypotheses", "verify_layer_no_flip_set", "flips_construction", "MAX_WIDTH",
           "MAX_FLATS"]

ZERO = Fraction(0)
MAX_WIDTH = 16          # n1: the checker visits 2^n1 - 1 sets I
MAX_FLATS = 4000


# ---- exact linear algebra (the checker's own) -----------------------------------

def _rank(rows) -> int:
    """The rank over Q (checker/linalg.py)."""
    rows = [list(r) for r in rows]
    return rank(rows)


def _echelon(rows) -> tuple:
    """Reduced row echelon form of independent rows, as a hashable key."""
    R, _ = rref(rows, len(rows[0]))
    return tuple(tuple(row) for row in R)


def _common_functional(f1, f2):
    """The functional ℓ (up to scale) in both 2-dimensional row spaces, when they meet in a line."""
    n = len(f1[0])
    # solve α f1[0] + β f1[1] - γ f2[0] - δ f2[1] = 0: kernel of the n × 4 matrix
    M = [[f1[0][t], f1[1][t], -f2[0][t], -f2[1][t]] for t in range(n)]
    R = [list(r) for r in M]
    piv, r = [], 0
    for col in range(4):
        p = next((i for i in range(r, len(R)) if R[i][col] != 0), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        R[r] = [x / R[r][col] for x in R[r]]
        for i in range(len(R)):
            if i != r and R[i][col] != 0:
                f = R[i][col]
                R[i] = [x - f * y for x, y in zip(R[i], R[r])]
        piv.append(col)
        r += 1
    free = [c for c in range(4) if c not in piv]
    if len(free) != 1:
        return None
    v = [ZERO] * 4
    v[free[0]] = Fraction(1)
    for i, pc in enumerate(piv):
        v[pc] = -R[i][free[0]]
    ell = [v[0] * x + v[1] * y for x, y in zip(f1[0], f1[1])]
    if not any(ell[:-1]):
        return None
    lead = next(x for x in ell if x != 0)
    return tuple(x / lead for x in ell)


def _ev(form, x) -> Fraction:
    return sum((g * t for g, t in zip(form, x)), form[-1])


# ---- reading -------------------------------------------------------------------

def _two_layers(ctx) -> Network:
    net = ctx.network
    if len(net.hidden_widths) != 2:
        fail(ctx, f"docs/mathematics.md §8 is about two hidden layers; the architecture is {net.architecture}")
    if net.input_dim < 2:
        fail(ctx, "docs/mathematics.md §8 needs input dimension n0 >= 2")
    if net.hidden_widths[0] > MAX_WIDTH:
        fail(ctx, f"n1 = {net.hidden_widths[0]} exceeds the checker's limit {MAX_WIDTH}")
    return net


def _signs(ctx, raw, n1, what) -> tuple[int, ...]:
    if not isinstance(raw, str) or len(raw) != n1 or set(raw) - {"+", "-"}:
        fail(ctx, f"{what}: signs must be a string of {n1} characters '+' or '-', got {raw!r}")
    return tuple(1 if ch == "+" else -1 for ch in raw)


def _point(ctx, raw, n0, what) -> tuple[Fraction, ...]:
    try:
        p = qs(raw)
    except CertificateError as e:
        fail(ctx, f"{what}: {e}")
    if len(p) != n0:
        fail(ctx, f"{what}: a point needs {n0} coordinates")
    return p


def _index(ctx, raw, bound, what) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool) or not 0 <= raw < bound:
        fail(ctx, f"{what} must be an integer in [0, {bound}), got {raw!r}")
    return raw


def _fields(ctx, d, keys, what):
    if not hasattr(d, "keys") or set(d.keys()) != set(keys):
        fail(ctx, f"{what} must have exactly the fields {sorted(keys)}")


def _list(ctx, raw, what):
    if not isinstance(raw, (list, tuple)):
        fail(ctx, f"{what} must be a list")
    return raw


class _Theta:
    """θ's affine data recomputed from the network: u_j and g^s_k as vectors (gradient..., constant)."""

    def __init__(self, net: Network):
        L1, L2, L3 = net.layers
        self.n0, self.n1, self.n2, self.n3 = net.architecture
        self.u = [tuple(L1.weight[j]) + (L1.bias[j],) for j in range(self.n1)]
        self.W, self.w, self.V = L2.weight, L2.bias, L3.weight
        self._g = {}

    def g(self, s):
        if s not in self._g:
            out = []
            for k in range(self.n2):
                v = [ZERO] * (self.n0 + 1)
                for j in range(self.n1):
                    if s[j] > 0:
                        v = [x + self.W[k][j] * y for x, y in zip(v, self.u[j])]
                v[-1] += self.w[k]
                out.append(tuple(v))
            self._g[s] = out
        return self._g[s]

    def in_region(self, s, x, skip=None) -> bool:
        return all(s[j] * _ev(self.u[j], x) > 0 for j in range(self.n1) if j != skip)


def _h0(ctx, T: _Theta) -> None:
    for j in range(T.n1):
        if not any(T.u[j][:-1]):
            fail(ctx, f"H0 fails: A_{j + 1} = 0")
    for i, j in itertools.combinations(range(T.n1), 2):
        if _rank([T.u[i], T.u[j]]) < 2:
            fail(ctx, f"H0 fails: the rows (A_{i + 1}, a_{i + 1}) and (A_{j + 1}, a_{j + 1}) are proportional")
    for k in range(T.n2):
        if not any(T.V[o][k] for o in range(T.n3)):
            fail(ctx, f"H0 fails: V_(:,{k + 1}) = 0")


def _sgn(s) -> str:
    return "".join("+" if v > 0 else "-" for v in s)


def _rank_cost(T: "_Theta") -> int:
    """Steps charged for one exact rank of at most three vectors of length n0 + 1."""
    return 3 * (T.n0 + 1) ** 2


def _vertices(ctx, T: _Theta, raw) -> set:
    out = set()
    listed = _list(ctx, raw, "vertices")
    charge(ctx, len(listed) * (T.n2 * (T.n1 + T.n0 + 2) + T.n2 * (T.n2 - 1) // 2 * _rank_cost(T)),
           "the full-region checks (F1–F3)")
    for i, v in enumerate(listed):
        where = f"vertex {i + 1}"
        _fields(ctx, v, ("signs", "point", "zeros"), where)
        s = _signs(ctx, v["signs"], T.n1, where)
        if s in out:
            fail(ctx, f"{where}: the region {v['signs']} is listed twice")
        if not T.in_region(s, _point(ctx, v["point"], T.n0, where)):
            fail(ctx, f"{where}: the point is not in the region R_{v['signs']}")
        zeros = _list(ctx, v["zeros"], f"{where} zeros")
        if len(zeros) != T.n2:
            fail(ctx, f"{where}: {len(zeros)} zeros, expected one per layer-2 neuron ({T.n2})")
        gs = T.g(s)
        for k, z in enumerate(zeros):
            z = _point(ctx, z, T.n0, f"{where} zero {k + 1}")
            if not any(gs[k][:-1]):
                fail(ctx, f"{where}: g_{k + 1} is constant on R_{v['signs']} (F1 fails)")
            if _ev(gs[k], z) != 0 or not T.in_region(s, z):
                fail(ctx, f"{where}: zero {k + 1} is not a point of R_{v['signs']} where g_{k + 1} = 0 (F2)")
        for k, k2 in itertools.combinations(range(T.n2), 2):
            if _rank([gs[k], gs[k2]]) < 2:
                fail(ctx, f"{where}: g_{k + 1} and g_{k2 + 1} are proportional on R_{v['signs']} (F3 fails)")
        out.add(s)
    return out


def _edges(ctx, T: _Theta, raw, vertices) -> int:
    edges = _list(ctx, raw, "edges")
    if not edges:
        fail(ctx, "H2∧H3 needs edges")
    charge(ctx, len(edges) * (T.n2 * (T.n2 - 1) // 2 + 1) * _rank_cost(T), "the rigidity checks of the edges (H3)")
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    labels = set()
    for i, e in enumerate(edges):
        where = f"edge {i + 1}"
        _fields(ctx, e, ("signs", "label"), where)
        s = _signs(ctx, e["signs"], T.n1, where)
        j = _index(ctx, e["label"], T.n1, f"{where} label")
        if s[j] < 0:
            fail(ctx, f"{where}: the sign of neuron {j + 1} in {e['signs']} must be '+'")
        t = s[:j] + (-1,) + s[j + 1:]
        if s not in vertices or t not in vertices:
            fail(ctx, f"{where}: both regions {_sgn(s)} and {_sgn(t)} must be listed (and verified) full vertices")
        gs = T.g(s)
        for k, k2 in itertools.combinations(range(T.n2), 2):
            if _rank([T.u[j], gs[k], gs[k2]]) != 3:
                fail(ctx, f"{where}: rank[u_{j + 1}; g_{k + 1}; g_{k2 + 1}] < 3 on R_{_sgn(s)}: not rigid (H3)")
        parent[find(s)] = find(t)
        labels.add(j)
    roots = {find(x) for x in list(parent)}
    if len(roots) != 1:
        fail(ctx, f"the edges form {len(roots)} connected pieces, not one (H2)")
    missing = sorted(set(range(T.n1)) - labels)
    if missing:
        fail(ctx, f"no edge carries the label(s) {[j + 1 for j in missing]}: the edge set must cover every "
                  "layer-1 neuron (H2, docs/mathematics.md §8.3)")
    return len(edges)


def _flats(ctx, T: _Theta, raw) -> list[tuple[int, tuple]]:
    flats = _list(ctx, raw, "flats")
    if len(flats) > MAX_FLATS:
        fail(ctx, f"{len(flats)} flats exceed the checker's limit {MAX_FLATS}")
    charge(ctx, len(flats) * (2 * T.n2 + 2) * _rank_cost(T), "the bend-flat checks (B1–B4)")
    keys = {}
    for i, f in enumerate(flats):
        where = f"flat {i + 1}"
        _fields(ctx, f, ("signs", "neuron", "unit", "point"), where)
        s = _signs(ctx, f["signs"], T.n1, where)
        j = _index(ctx, f["neuron"], T.n1, f"{where} neuron")
        k = _index(ctx, f["unit"], T.n2, f"{where} unit")
        p = _point(ctx, f["point"], T.n0, where)
        if s[j] < 0:
            fail(ctx, f"{where}: the sign of neuron {j + 1} must be '+'")
        gs, uj = T.g(s), T.u[j]
        if T.W[k][j] == 0:
            fail(ctx, f"{where}: W_({k + 1},{j + 1}) = 0 (B1)")
        if _rank([uj[:-1], gs[k][:-1]]) != 2:
            fail(ctx, f"{where}: the gradients of u_{j + 1} and g_{k + 1} are dependent (B2)")
        for k2 in range(T.n2):
            if k2 != k and _rank([uj, gs[k2]]) > 1 and _rank([uj, gs[k], gs[k2]]) != 3:
                fail(ctx, f"{where}: g_{k2 + 1} lies in span(u_{j + 1}, g_{k + 1}) but not in span(u_{j + 1}) (B3)")
        if _ev(uj, p) != 0 or _ev(gs[k], p) != 0 or not T.in_region(s, p, skip=j):
            fail(ctx, f"{where}: the point is not on the wall {{u_{j + 1} = 0, s_i u_i > 0 (i ≠ {j + 1})}} of "
                      f"R_{f['signs']} with g_{k + 1} = 0 (B4)")
        keys.setdefault(_echelon([uj, gs[k]]), j)
    return [(j, key) for key, j in keys.items()]


def _count_condition(flats, n1) -> bool:
    """Lemma 10.12 (H4-count, docs/mathematics.md §10): a hyperplane P ≠ H_j holds at most one bend flat on H_j,
    so if the b_j distinct flats on the H_j satisfy, sorted, b_(m) > m for every m, no set I is covered."""
    counts = sorted(sum(1 for j, _ in flats if j == i) for i in range(n1))
    return all(b > m for m, b in enumerate(counts, start=1))


def _blocks(ctx, T: _Theta, flats) -> list[frozenset]:
    """The checker's own blocks: for every hyperplane through two of the ``flats`` and equal to no H_i, the set
    of the flats (indices) on it (docs/mathematics.md §8.3, Lemma 8.6(c))."""
    planes = set()
    F = len(flats)
    charge(ctx, F * (F - 1) // 2 * (T.n1 + 1) * _rank_cost(T), "the hyperplanes through two bend flats (H4)")
    for (j1, f1), (j2, f2) in itertools.combinations(flats, 2):
        ell = _common_functional(f1, f2)
        if ell is None or any(_rank([ell, T.u[i]]) == 1 for i in range(T.n1)):
            continue                    # no hyperplane through both, or it is some H_i
        planes.add(ell)
    charge(ctx, len(planes) * F * _rank_cost(T), "the flats on each such hyperplane (H4)")
    return [frozenset(t for t, (_, f) in enumerate(flats) if _rank([f[0], f[1], ell]) == 2) for ell in planes]


def _h4(ctx, T: _Theta, flats, trees=None) -> str | None:
    """H4 for every nonempty I: by the count (returns None), by the certificate's cover ``trees`` checked against
    the checker's own blocks, or, without trees, by the checker's cover search (:mod:`reluid.checker.search`);
    returns how, in words."""
    if _count_condition(flats, T.n1):
        if trees is not None:
            verify_cover_trees(ctx, T.n1, flats, [], trees)     # the count leaves no set I: trees must be []
        return None
    blocks = _blocks(ctx, T, flats)
    if trees is None:
        h4_covers(ctx, T.n1, flats, blocks)
        return (f"the checker searched: no cover of the flats of any of the {2 ** T.n1 - 1} sets I by |I| "
                f"hyperplanes other than the H_i ({len(blocks)} hyperplanes through two flats)")
    n, nodes = verify_cover_trees(ctx, T.n1, flats, blocks, trees)
    return (f"H4 by the count and {n} cover tree(s) ({nodes} node(s)) for the sets I it leaves open, checked against "
            f"the checker's own {len(blocks)} hyperplanes through two flats")


@verifies(ClaimKind.DEEP_TWO_LAYER_HYPOTHESES)
def verify_two_layer_hypotheses(evidence, ctx: Context) -> str:
    """H0–H4 of docs/mathematics.md §8 hold for the network under check (see the module docstring)."""
    net = _two_layers(ctx)
    trees = hasattr(evidence, "keys") and "cover" in evidence.keys()
    _fields(ctx, evidence, ("vertices", "edges", "flats") + (("cover",) if trees else ()), "two-layer evidence")
    if trees and evidence["cover"] is None:
        fail(ctx, "cover must be a list")
    T = _Theta(net)
    _h0(ctx, T)
    vertices = _vertices(ctx, T, evidence["vertices"])
    n_edges = _edges(ctx, T, evidence["edges"], vertices)
    flats = _flats(ctx, T, evidence["flats"])
    h4 = _h4(ctx, T, flats, evidence["cover"] if trees else None) or "H4 by Lemma 10.12's count (sorted, b_(m) > m: no search)"
    per = [sum(1 for j, _ in flats if j == i) for i in range(T.n1)]
    return (f"H0 recomputed; {len(vertices)} full regions, {n_edges} rigid edges (connected, every label "
            f"1..{T.n1}); {len(flats)} distinct bend flats (per H_j: {per}) verified (B1)–(B4); {h4}: H0–H4 of "
            "docs/mathematics.md §8 hold (recomputed)")


@verifies(ClaimKind.DEEP_LAYER_NO_FLIP_SET)
def verify_layer_no_flip_set(evidence, ctx: Context) -> str:
    """𝔉_l = {∅}: no-flip-set evidence for the shallow network (W^l, b^l; W^{l+1}, b^{l+1}) of θ."""
    net = ctx.network
    _fields(ctx, evidence, ("layer", "evidence"), "layer no-flip-set evidence")
    hidden = len(net.hidden_widths)
    l = evidence["layer"]
    if not isinstance(l, int) or isinstance(l, bool) or not 1 <= l <= hidden:
        fail(ctx, f"layer must be a hidden layer 1..{hidden}, got {l!r}")
    sub = Network((net.layers[l - 1], net.layers[l]))
    msg = verify_no_flip_set(evidence["evidence"], Context(sub, ctx.claim_id, ctx.budget))   # one budget
    return f"hidden layer {l} has no flip set (Σ_(i∈F) W^{l + 1}[:, i] W^{l}[i, :] ≠ 0 for every F ≠ ∅): {msg}"


def _set(F) -> str:
    return "{" + ", ".join(str(i + 1) for i in F) + "}" if F else "∅"


def flips_construction(ctx, a: Network, b: Network):
    """θ′ = b is exactly θ^{F1,F2} of θ = a with F1 ∈ 𝔉1, F2 ∈ 𝔉2 (docs/mathematics.md §8.1, Prop. 8.11)."""
    from reluid.checker.deep import Construction

    if len(a.hidden_widths) != 2:
        fail(ctx, "θ^{F1,F2} is defined for two hidden layers")
    (A1, A2, A3), (B1, B2, B3) = a.layers, b.layers
    n1, n2 = A1.n_out, A2.n_out
    F1 = []
    for j in range(n1):
        keep = B1.weight[j] == A1.weight[j] and B1.bias[j] == A1.bias[j]
        if not keep:
            if B1.weight[j] != tuple(-x for x in A1.weight[j]) or B1.bias[j] != -A1.bias[j]:
                fail(ctx, f"layer-1 row {j + 1} of θ′ is neither θ's row nor its negative")
            F1.append(j)
    for k in range(A2.n_out):
        for i in range(A1.n_in):
            if sum((A2.weight[k][j] * A1.weight[j][i] for j in F1), ZERO) != 0:
                fail(ctx, f"F1 = {{{', '.join(str(j + 1) for j in F1)}}} is not a flip set of layer 1: "
                          "Σ_(j∈F1) W_(:,j) A_j ≠ 0")
    wF = [A2.bias[k] + sum((A2.weight[k][j] * A1.bias[j] for j in F1), ZERO) for k in range(n2)]
    F2 = []
    for k in range(n2):
        keep = B2.weight[k] == A2.weight[k] and B2.bias[k] == wF[k]
        if not keep:
            if B2.weight[k] != tuple(-x for x in A2.weight[k]) or B2.bias[k] != -wF[k]:
                fail(ctx, f"layer-2 row {k + 1} of θ′ is neither (W_k, w^F1_k) nor its negative")
            F2.append(k)
    for o in range(A3.n_out):
        for j in range(n1):
            if sum((A3.weight[o][k] * A2.weight[k][j] for k in F2), ZERO) != 0:
                fail(ctx, f"F2 = {{{', '.join(str(k + 1) for k in F2)}}} is not a flip set of layer 2: "
                          "Σ_(k∈F2) V_(:,k) W_k ≠ 0")
    c = tuple(A3.bias[o] + sum((A3.weight[o][k] * wF[k] for k in F2), ZERO) for o in range(A3.n_out))
    if B3.weight != A3.weight or B3.bias != c:
        fail(ctx, "the output layer of θ′ is not (V, c + Σ_(k∈F2) V_(:,k) w^F1_k)")
    if not F1 and not F2:
        fail(ctx, "the witness network equals θ")
    text = (f"is θ^(F1,F2) with F1 = {_set(F1)} and F2 = {_set(F2)}, both flip sets (recomputed), so it computes f_θ "
            "(docs/mathematics.md §8, Proposition 8.11)")
    return Construction(Mechanism.TWO_LAYER_FLIP, 1, tuple(F1) + tuple(n1 + k for k in F2), text)
