"""Grigsby–Lindsey–Rolnick 2023, Lemma D.15, against Ramakrishnan's θ1 (architecture (2, 3, 1))."""

from __future__ import annotations

from fractions import Fraction

import sympy

from ._framework import GLR, SEED_G, SEED_R, Checks, Statement, fmt, fmt_theta, fmt_vec, shallow
from ._plane import PlaneGeometry
from reluid.analysis.shallow.function import equivalent
from reluid.analysis.shallow.orbit import same_orbit
from reluid.model.network import Shallow

Q = Fraction


def _identity_check(t1: Shallow, t2: Shallow) -> bool:
    """sympy: ρ(θ1) − ρ(θ2) = Σ_i (σ(z_i) − σ(−z_i)) + C1 − C2 = Σ_i z_i + C1 − C2 ≡ 0, with σ(z) − σ(−z) = z
    checked on the branches z > 0, z < 0, z = 0."""
    x1, x2 = sympy.symbols("x1 x2", real=True)
    R = sympy.Rational
    zs = [R(t1.A[i][0]) * x1 + R(t1.A[i][1]) * x2 + R(t1.b[i]) for i in range(t1.n)]
    for i in range(t1.n):
        if tuple(-x for x in t1.row(i)) != t2.row(i) or t1.M[0][i] != t2.M[0][i]:
            return False
    w = sympy.Symbol("w", real=True)
    ident = sympy.Max(0, w) - sympy.Max(0, -w) - w
    pos, neg = sympy.Symbol("p", positive=True), sympy.Symbol("q", negative=True)
    if any(sympy.simplify(ident.subs(w, val)) != 0 for val in (pos, neg, 0)):
        return False
    total = sum((sympy.Rational(t1.M[0][i]) * z for i, z in enumerate(zs)), sympy.Integer(0))
    total += sympy.Rational(t1.c[0]) - sympy.Rational(t2.c[0])
    return sympy.expand(total) == 0


THETA1 = shallow([1, 1, 1], [[1, 1], [-1, 0], [0, -1]], [-2, -1, -1], -6)
THETA2 = shallow([1, 1, 1], [[-1, -1], [1, 0], [0, 1]], [2, 1, 1], -10)


def conditions(theta: Shallow, c: Checks | None = None, name: str = "θ1") -> dict:
    """Check generic, supertransversal, TPIC and LRA for θ ∈ Ω(2, n, 1) exactly; return the data."""
    G = PlaneGeometry(theta)
    out = {"generic": G.generic()}
    verts = G.vertices()
    regions = G.regions()
    formulas = {s: G.formula(s) for s in regions}
    # supertransversality F¹ ⋔_c C(F²): the level set Z = {W² h + b² = 0} pulled back cell by cell
    vert_ok = all(G.f(x) != 0 for x in verts)
    region_ok = all(not (g == (0, 0) and k == 0) for g, k in formulas.values())
    zeros = {}
    edge_ok = True
    for i in range(G.n):
        pts, flat = G.zeros_on_line(i)
        zeros[i] = pts
        edge_ok &= not flat
    out["supertransversal"] = vert_ok and region_ok and edge_ok
    out["tpic"] = all(zeros[i] for i in range(G.n)) and out["supertransversal"]
    # LRA on T (and on the whole plane): different activation regions carry different affine maps
    distinct_all = len(set(formulas.values())) == len(formulas)
    lra_T = True
    T_regions = set()
    for i, pts in zeros.items():
        if not pts:             # no point p_i: T is not defined (TPIC fails)
            lra_T = False
            continue
        p = pts[0]
        ai = G.a[i]
        eps = min([abs(G.z(j, p)) / (2 * abs(G.a[j][0] * ai[0] + G.a[j][1] * ai[1]))
                   for j in range(G.n) if j != i and (G.a[j][0] * ai[0] + G.a[j][1] * ai[1])] + [Q(1)])
        s_plus = G.signs((p[0] + eps * ai[0], p[1] + eps * ai[1]))
        s_minus = G.signs((p[0] - eps * ai[0], p[1] - eps * ai[1]))
        T_regions |= {s_plus, s_minus}
        lra_T &= formulas[s_plus] != formulas[s_minus]
    out["lra_T"] = lra_T
    out["lra_everywhere"] = distinct_all
    out["data"] = dict(vertices=verts, regions=regions, formulas=formulas, zeros=zeros, T=T_regions)
    if c is not None:
        c.exact(f"{name} generic: the three hidden lines meet pairwise in the points "
                f"{', '.join(fmt_vec(x) for x in sorted(verts))}, no three concurrent", out["generic"])
        c.exact(f"{name} supertransversal (F¹ ⋔_c C(F²), checked cell by cell): ρ ≠ 0 at every vertex "
                f"({', '.join(fmt(G.f(x)) for x in sorted(verts))}); on every open edge ρ is either nonconstant "
                "or a nonzero constant; no activation region on which ρ ≡ 0", out["supertransversal"])
        c.exact(f"{name} TPIC: Z = ρ⁻¹(0) meets every hidden line transversally, at "
                + "; ".join(f"H_{i + 1}: {', '.join(fmt_vec(p) for p in pts)}" for i, pts in zeros.items()),
                out["tpic"])
        c.exact(f"{name} LRA on T (the closures of the activation regions adjacent to the chosen points "
                f"p_i ∈ H_i ∩ Z) and in fact on all of R²: the {len(regions)} activation regions carry pairwise "
                "different affine maps, gradients "
                + ", ".join(f"{''.join('+' if x > 0 else '−' for x in s)}: {fmt_vec(formulas[s][0])}"
                            for s in sorted(regions, reverse=True)), out["lra_T"] and out["lra_everywhere"])
    return out


def check(max_n, timeout):
    c = Checks(timeout)
    ok = conditions(THETA1, c, "θ1")
    if not all(ok[k] for k in ("generic", "supertransversal", "tpic", "lra_T")):
        return c.outcome("θ1 does not satisfy the hypotheses")
    eq = equivalent(THETA1, THETA2)
    orbit = same_orbit(THETA1, THETA2)
    ident = _identity_check(THETA1, THETA2)
    c.exact("ρ(θ1) = ρ(θ2): sympy, ρ(θ1) − ρ(θ2) = Σ_i (σ(z_i) − σ(−z_i)) − 6 + 10 = Σ_i z_i + 4 = 0 with "
            "σ(z) − σ(−z) = z verified on each branch; and reluid's exact function data agree", ident and eq.equal)
    c.exact("θ2 ∉ H_3·θ1 (permutations and positive scalings): the canonical orbit forms differ", orbit is None)
    if not (ident and eq.equal and orbit is None):
        return c.outcome("the counterexample did not re-check")
    ok2 = conditions(THETA2)
    if all(ok2[k] for k in ("generic", "supertransversal", "tpic", "lra_T")):
        c.remark("θ2 satisfies the same four conditions (checked the same way), so both parameters of the "
                 "fibre are 'as generic as possible' in the sense of Lemma D.15.")
    c.remark("Reading of the definitions used (GLR §2, Appendix A, B.7, B.9, D.2). The bent hyperplanes are the "
             "zero sets of all pre-activations, including the output's: Ĥ¹_i = H_i (lines) and Ĥ²_1 = Z = "
             "ρ(θ)⁻¹(0), as in the base case d = 2 of GLR's Theorem 4.1. Supertransversality F¹ ⋔_c C(F²) is "
             "checked on the cells of the line arrangement: vertices must miss Z, Z may cross an edge only where "
             "ρ is nonconstant along it, and ρ must not vanish on a 2-cell. Activation regions are those of the "
             "hidden neurons: the output map is affine, so counting the output's sign as part of the pattern "
             "would make LRA fail for every network (two regions differing only in that sign always carry the "
             "same affine map).")
    c.finding("Lemma D.15 (Rolnick–Kording, Thm. 2, as restated by GLR) fails as stated: Ramakrishnan's θ1 "
              "satisfies genericity, supertransversality, TPIC and LRA on T (verified exactly), yet θ2, with the "
              "rows negated and C = −10, realises the same function outside the H_3-orbit, because {1, 2, 3} is "
              "a flip set (Σ v_i a_i = 0). The mechanism is the identity σ(z) − σ(−z) = z, which LRA and TPIC do "
              "not see.")
    text = (f"θ1 = ({fmt_theta(THETA1)}) satisfies the hypotheses of Lemma D.15; θ2 = ({fmt_theta(THETA2)}) has "
            "ρ(θ2) = ρ(θ1) and is not obtained from θ1 by permuting and positively rescaling hidden neurons, so θ1 "
            "cannot be recovered from ρ(θ1) up to permutation and positive rescaling.")
    return c.counterexample("Ramakrishnan's θ1 satisfies every hypothesis of Lemma D.15 (exact plane geometry) "
                            "and has a hidden symmetry θ2 (exact).", text, True,
                            [("theta1", THETA1), ("theta2", THETA2)])


STATEMENT = Statement(
    name="grigsby_lemma_D15",
    title="Lemma D.15 (TPIC + LRA ⇒ no hidden symmetries)",
    paper=GLR,
    reference=f"{SEED_G}, Appendix D, Lemma D.15 (with §2, Definitions A.1–A.4, B.7, B.9, D.2); the "
              f"counterexample θ1, θ2 is from {SEED_R}, §1",
    statement="Let θ be a generic, supertransversal parameter satisfying TPIC. For each i, j, ℓ choose "
              "p^ℓ_ij ∈ Ĥ^{ℓ−1}_i ∩ Ĥ^ℓ_j, let T^ℓ_ij be the union of the closures of the activation regions "
              "adjacent to p^ℓ_ij and T their union. If F_θ satisfies LRA on T, then θ can be recovered from F_θ "
              "up to permutation and positive rescaling (θ has no hidden symmetries).",
    method="Exact plane geometry for θ1 ∈ Ω(2, 3, 1): the hidden lines, their vertices, edges and activation "
           "regions (sample points offset from each edge by an exactly computed ε), the affine map on each "
           "region, and Z = ρ(θ1)⁻¹(0) on each edge; genericity, supertransversality (cell by cell), TPIC and "
           "LRA are decided from these. Then ρ(θ1) = ρ(θ2) by a sympy identity and by reluid's exact function "
           "data, and θ2 ∉ H_3·θ1 by exact canonical orbit forms.",
    sizes="the single parameter θ1 of architecture (2, 3, 1).",
    expected="counterexample",
    check=check,
    order=(14, 15),
)
