"""Grigsby–Lindsey–Rolnick 2023, Lemma D.15, with two hidden layers: a counterexample of architecture (2, 2, 3, 1)."""

from __future__ import annotations

import itertools
from fractions import Fraction

from ._framework import GLR, SEED_G, Checks, Statement, fmt_net, fmt_vec
from reluid.analysis.deep.cells import enumerate_cells, exact_functional_dimension, same_function
from reluid.analysis.deep.orbit import same_orbit
from reluid.analysis.deep.strict import rank, solve_strict
from reluid.analysis.deep.two_layers import analyse_two_layers, flipped
from reluid.model.network import Network
from reluid.report.reasons import hypotheses_text

Q = Fraction

#: A = I, a = 0, W = [[2,1],[1,2],[-3,-3]], w = (-6,-8,13), V = (1,1,1); the output bias c = -2 (see the remark).
THETA = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[2, 1], [1, 2], [-3, -3]], [-6, -8, 13]),
                            ([[1, 1, 1]], [-2])])


def _forms(net: Network, s1, s2=None):
    """u_i, g^{s1}_k and (with s2) the output's affine form on the cell (s1, s2), as (gradient, constant)."""
    L1, L2, L3 = net.layers
    n0 = L1.n_in
    u = [tuple(L1.weight[j]) + (L1.bias[j],) for j in range(L1.n_out)]
    g = []
    for k in range(L2.n_out):
        v = [Q(0)] * (n0 + 1)
        for j in range(L1.n_out):
            if s1[j] > 0:
                v = [x + L2.weight[k][j] * y for x, y in zip(v, u[j])]
        v[-1] += L2.bias[k]
        g.append(tuple(v))
    if s2 is None:
        return u, g, None
    f = [Q(0)] * (n0 + 1)
    for k in range(L2.n_out):
        if s2[k] > 0:
            f = [x + L3.weight[0][k] * y for x, y in zip(f, g[k])]
    f[-1] += L3.bias[0]
    return u, g, tuple(f)


def _others(n2, k, sig):
    s2 = [0] * n2
    for sg, kk in zip(sig, [kk for kk in range(n2) if kk != k]):
        s2[kk] = sg
    return s2


def tpic_points(net: Network) -> dict:
    """For ℓ = 2 a point p²_ik ∈ H_i ∩ Ĥ²_k and for ℓ = 3 a point p³_k ∈ Ĥ²_k ∩ Ĥ³ (Ĥ³ = F⁻¹(0)), each a
    transversal crossing: the two affine forms vanish at p with independent gradients, and every other
    hidden pre-activation is nonzero there.  Keys (2, i, k) and (3, k); values (p, s1, s2) with the cell
    on the negative side of both forms."""
    n0, n1, n2, _ = net.architecture
    pts = {}
    for s1 in itertools.product((1, -1), repeat=n1):
        u, g, _ = _forms(net, s1)
        for i, k in itertools.product(range(n1), range(n2)):
            if s1[i] < 0 or (2, i, k) in pts or rank([u[i][:-1], g[k][:-1]]) < 2:
                continue
            for sig in itertools.product((1, -1), repeat=n2 - 1):
                s2 = _others(n2, k, sig)
                B = [[s1[j] * x for x in u[j][:-1]] for j in range(n1) if j != i] + \
                    [[s2[kk] * x for x in g[kk][:-1]] for kk in range(n2) if kk != k]
                b = [s1[j] * u[j][-1] for j in range(n1) if j != i] + [s2[kk] * g[kk][-1] for kk in range(n2) if kk != k]
                kind, p = solve_strict(B, b, [list(u[i][:-1]), list(g[k][:-1])], [u[i][-1], g[k][-1]], n=n0)
                if kind == "point":
                    s1n = tuple(-1 if j == i else s1[j] for j in range(n1))
                    pts[(2, i, k)] = (tuple(p), s1n, tuple(-1 if kk == k else s2[kk] for kk in range(n2)))
                    break
        for k in range(n2):
            if (3, k) in pts:
                continue
            for sig in itertools.product((1, -1), repeat=n2 - 1):
                s2 = _others(n2, k, sig)
                s2[k] = -1
                _, _, f = _forms(net, s1, s2)
                if rank([g[k][:-1], f[:-1]]) < 2:
                    continue
                B = [[s1[j] * x for x in u[j][:-1]] for j in range(n1)] + \
                    [[s2[kk] * x for x in g[kk][:-1]] for kk in range(n2) if kk != k]
                b = [s1[j] * u[j][-1] for j in range(n1)] + [s2[kk] * g[kk][-1] for kk in range(n2) if kk != k]
                kind, p = solve_strict(B, b, [list(g[k][:-1]), list(f[:-1])], [g[k][-1], f[-1]], n=n0)
                if kind == "point":
                    pts[(3, k)] = (tuple(p), s1, tuple(s2))
                    break
    return pts


def adjacent_cells(net: Network, key, info):
    """The four activation regions adjacent to a chosen crossing point (both signs of both forms)."""
    _, s1, s2 = info
    out = []
    for a, b in itertools.product((1, -1), repeat=2):
        if key[0] == 2:
            _, i, k = key
            S1 = tuple(a if j == i else s1[j] for j in range(len(s1)))
            S2 = tuple(b if kk == k else s2[kk] for kk in range(len(s2)))
        else:
            _, k = key
            S1, S2 = s1, tuple(b if kk == k else s2[kk] for kk in range(len(s2)))
            if a < 0:
                continue        # for ℓ = 3 the output's sign does not change the activation region
        out.append((S1, S2))
    return out


def supertransversal(net: Network) -> list:
    """Supertransversality read cell by cell in the plane; returns the violations (empty when it holds).

    On every cell of the two hidden layers: no hidden pre-activation and not the output is the zero
    form (every bent hyperplane, the output's level set F⁻¹(0) included, is a curve); no two of the
    non-constant forms u_i, g_k, F are proportional (no two bent hyperplanes coincide on a cell); and
    at every point of the cell's closure where two of them meet, no third pre-activation and not F
    vanishes (all vertices are simple, transversal crossings).
    """
    en = enumerate_cells(net, zero_forms="inactive")
    bad = [] if en.dense else [f"a pre-activation vanishes on an open set near {en.dense_failure}"]
    n0, n1, n2, _ = net.architecture
    for c in en.cells:
        s1, s2 = c.signs
        u, g, f = _forms(net, s1, s2)
        if not any(f):
            bad.append(f"F ≡ 0 on the cell {c.signs}")
        named = [(f"u_{i + 1}", u[i]) for i in range(n1)] + [(f"g_{k + 1}", g[k]) for k in range(n2)] + [("F", f)]
        named = [(nm, v) for nm, v in named if any(v[:-1])]
        for (na, a), (nb, b) in itertools.combinations(named, 2):
            if rank([a, b]) < 2:
                bad.append(f"{na} and {nb} coincide on the cell {c.signs}")
                continue
            det = a[0] * b[1] - a[1] * b[0]
            if det == 0:
                continue
            x = ((-a[2] * b[1] + a[1] * b[2]) / det, (-a[0] * b[2] + b[0] * a[2]) / det)
            if not all(sum((ai * xi for ai, xi in zip(row, x)), beta) >= 0 for row, beta in c.rows):
                continue
            zeros = sum(1 for z in net.preactivations(x) for v in z if v == 0) + (net(x)[0] == 0)
            if zeros != 2:
                bad.append(f"{zeros} bent hyperplanes meet at {fmt_vec(x)}")
    return bad


def check(max_n, timeout):
    c = Checks(timeout)
    net = THETA
    L1 = net.layers[0]
    c.exact("generic: the layer-1 lines H_1 = {x1 = 0}, H_2 = {x2 = 0} are distinct and transverse",
            rank([list(r) for r in L1.weight]) == 2)
    st = supertransversal(net)
    c.exact("supertransversal (read cell by cell on the cells of both hidden layers): no pre-activation and "
            "not F vanishes on an open set, no two bent hyperplanes coincide on a cell, every crossing is simple",
            not st, "; ".join(st[:3]))
    pts = tpic_points(net)
    need = [(2, i, k) for i in range(2) for k in range(3)] + [(3, k) for k in range(3)]
    c.exact("TPIC: every layer-2 bent hyperplane Ĥ²_k crosses every H_i, and Ĥ³ = F⁻¹(0) crosses every Ĥ²_k, "
            "transversally, at " + "; ".join(
                (f"H_{key[1] + 1} ∩ Ĥ²_{key[2] + 1}: {fmt_vec(pts[key][0])}" if key[0] == 2 else
                 f"Ĥ²_{key[1] + 1} ∩ Ĥ³: {fmt_vec(pts[key][0])}") for key in need if key in pts),
            all(key in pts for key in need))
    T = {}
    for key in need:
        if key in pts:
            for cell in adjacent_cells(net, key, pts[key]):
                T[cell] = _forms(net, *cell)[2]
    c.exact(f"LRA on T (the closures of the activation regions adjacent to these points): the {len(T)} "
            "regions of T carry pairwise different affine maps", len(set(T.values())) == len(T) and bool(T))
    r = analyse_two_layers(net)
    c.exact(f"docs/mathematics.md §8, H0–H4 hold ({hypotheses_text(r.hypotheses)})", r.applies)
    witness = flipped(net, (), (0, 1, 2))
    same, x = same_function(net, witness)
    c.exact(f"θ′ = θ^(∅,{{1,2,3}}) (layer-2 rows negated, c′ = c + Σ_k V_k w_k = {witness.layers[2].bias[0]}) "
            "computes the same function: exact equality on every cell of F_θ − F_θ′", bool(same), f"they differ at {x}")
    c.exact("θ′ ∉ G·θ (exhaustive orbit search)", same_orbit(net, witness) is None)
    fd = exact_functional_dimension(net)
    c.exact(f"dim_fun(θ) = U = {fd.upper_bound} exactly (docs/mathematics.md §9; {fd.cells} cells)",
            fd.exact and fd.certified)
    if not (same and same_orbit(net, witness) is None):
        return c.outcome("the counterexample did not re-check")
    if c.failures:
        return c.outcome("θ does not satisfy the hypotheses")
    c.remark("Reading of the definitions, as for the one-hidden-layer statement: the bent hyperplanes are the zero "
             "sets of all pre-activations, the output's included (Ĥ¹_i = H_i, Ĥ²_k = {g_k = 0}, Ĥ³ = F⁻¹(0)); "
             "supertransversality is read cell by cell; activation regions are those of the hidden neurons. The "
             "output bias c = −2 is ours: with c = 0 the output vanishes on the open set where every layer-2 "
             "neuron is off, so F⁻¹(0) is not a curve and supertransversality fails in this reading; c enters "
             "neither the flip (θ′ has c′ = c − 1) nor H0–H4 of docs/mathematics.md §8.")
    c.remark("By docs/mathematics.md §8, Theorem 8.2 (H0–H4 hold, 𝔉1 = {∅}, 𝔉2 = {∅, {1, 2, 3}}), the fibre of θ "
             "is exactly the disjoint union of the two orbits G·θ and G·θ′.")
    c.finding("Lemma D.15 fails with two hidden layers too: θ ∈ Ω(2, 2, 3, 1) is generic, supertransversal, "
              "satisfies TPIC and LRA on T (and even dim_fun = U), yet θ′ = θ^(∅,{1,2,3}) computes the same function "
              "outside its orbit, because {1, 2, 3} is a layer-2 flip set (Σ_k V_k W_k = 0); the mechanism is "
              "σ(z) − σ(−z) = z in the second hidden layer, which LRA and TPIC do not see.")
    text = (f"θ = ({fmt_net(net)}) satisfies the hypotheses of Lemma D.15 (in the reading stated); θ′ = "
            f"({fmt_net(witness)}) computes the same function and is not obtained from θ by permuting and positively "
            "rescaling hidden neurons.")
    return c.counterexample("θ ∈ Ω(2, 2, 3, 1) satisfies every hypothesis of Lemma D.15 (exact) and has the hidden "
                            "symmetry θ^(∅,{1,2,3}) (exact).", text, True, [("theta", net), ("theta_prime", witness)])


STATEMENT = Statement(
    name="grigsby_lemma_D15_two_hidden_layers",
    title="Lemma D.15 with two hidden layers",
    paper=GLR,
    reference=f"{SEED_G}, Appendix D, Lemma D.15 (with §2, Definitions A.1–A.4, B.7, B.9, D.2), for depth d = 3",
    statement="Let θ be a generic, supertransversal parameter satisfying TPIC. For each i, j, ℓ choose "
              "p^ℓ_ij ∈ Ĥ^{ℓ−1}_i ∩ Ĥ^ℓ_j, let T^ℓ_ij be the union of the closures of the activation regions "
              "adjacent to p^ℓ_ij and T their union. If F_θ satisfies LRA on T, then θ can be recovered from F_θ "
              "up to permutation and positive rescaling (θ has no hidden symmetries).",
    method="Exact: the cells of both hidden layers (reluid.analysis.deep.cells, strict systems with Farkas "
           "certificates) decide supertransversality cell by cell; transversal crossing points for TPIC are "
           "exact solutions of strict systems with two equalities; LRA compares the exact affine maps of the "
           "regions adjacent to them. Then H0–H4 of docs/mathematics.md §8, the exact equality of F_θ and "
           "F_θ′ on every cell of their difference, the exhaustive orbit search, and dim_fun exactly.",
    sizes="the single parameter θ of architecture (2, 2, 3, 1).",
    expected="counterexample",
    check=check,
    order=(14, 15, 2),
)
