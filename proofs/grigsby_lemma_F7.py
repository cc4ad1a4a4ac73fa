"""Grigsby–Lindsey–Rolnick 2023, Lemma F.7: rotating an affine map about a hyperplane keeps it on the hyperplane."""

from __future__ import annotations

import sympy

from ._framework import GLR, SEED_G, Checks, Statement


def _identity(n: int, j: int) -> tuple[bool, bool]:
    """Symbolic check in Rⁿ with o_j ≠ 0 (the coordinate used to parametrise S).

    Symbols: n_H, b_H, o, t, the point s_H ∈ S ∩ {A = 0} and x ∈ S.  S is the hyperplane through s_H with
    normal o; x = s_H + Σ_{k≠j} μ_k (o_j e_k − o_k e_j) runs over all of S (as o_j ≠ 0).
    Returns (A_t(x) − A(x) ≡ 0, A_t(s_H) − A(s_H) ≡ 0) as polynomial identities.
    """
    nH = sympy.symbols(f"nH1:{n + 1}", real=True)
    o = sympy.symbols(f"o1:{n + 1}", real=True)
    s = sympy.symbols(f"s1:{n + 1}", real=True)
    mu = sympy.symbols(f"mu1:{n + 1}", real=True)
    bH, t = sympy.symbols("bH t", real=True)
    dot = lambda u, w: sum((ui * wi for ui, wi in zip(u, w)), sympy.Integer(0))  # noqa: E731
    x = list(s)
    for k in range(n):
        if k != j:
            x[k] += mu[k] * o[j]
            x[j] -= mu[k] * o[k]
    A = lambda y: dot(y, nH) - bH  # noqa: E731
    At = lambda y: dot(y, [a + t * b for a, b in zip(nH, o)]) - bH - t * dot(s, o)  # noqa: E731
    on_S = sympy.expand(dot(x, o) - dot(s, o)) == 0          # x really lies on S
    off_S = [si + oi for si, oi in zip(s, o)]                 # s_H + o is off S when o ≠ 0
    moves = sympy.expand(At(off_S) - A(off_S) - t * dot(o, o)) == 0   # A_t − A = t|o|² there: a genuine pencil
    return on_S and moves and sympy.expand(At(x) - A(x)) == 0, sympy.expand(At(s) - A(s)) == 0


def check(max_n, timeout):
    c = Checks(timeout)
    top = max_n or 4
    for n in range(1, top + 1):
        results = [_identity(n, j) for j in range(n)]
        c.exact(f"sympy, n = {n}, every choice of a nonzero coordinate o_j of o: A_t(x) − A(x) expands to 0 "
                "for every x ∈ S, A_t(s_H) = A(s_H), and A_t(s_H + o) − A(s_H + o) = t|o|² (so A_t ≠ A for t ≠ 0)",
                all(a and b for a, b in results))
    c.remark("The proof only uses s_H ∈ S; the extra requirement A(s_H) = 0 is not needed for A = A_t on S (it makes "
             "H_t = {A_t = 0} pass through S ∩ H, which Proposition 5.1 uses). The seed text lost the minus signs: "
             "A(x) = x·n_H − b_H and A_t(x) = x·(n_H + t o) − b_H − t s_H·o.")
    return c.outcome(f"A polynomial identity in all the data (n_H, b_H, o, t, s_H and the coordinates of x on S) "
                     f"for n ≤ {top}, for each coordinate chart of S.")


STATEMENT = Statement(
    name="grigsby_lemma_F7",
    title="Lemma F.7 (a pencil of affine maps agreeing on S)",
    paper=GLR,
    reference=f"{SEED_G}, Appendix F.1, Lemma F.7 (used for Proposition 5.1, mechanism (iv))",
    statement="Let S be a hyperplane in Rⁿ, A(x) = x·n_H − b_H, o a vector orthogonal to S and s_H ∈ S ∩ {A = 0}. "
              "For t ∈ R let A_t(x) = x·(n_H + t o) − b_H − t s_H·o. Then A and A_t coincide on S.",
    method="sympy: S is parametrised exactly (x = s_H + Σ_{k≠j} μ_k (o_j e_k − o_k e_j), valid when o_j ≠ 0, one "
           "chart per j), and A_t(x) − A(x) is expanded as a polynomial in all symbols; it must be 0.",
    sizes="n ≤ 4 (n ≤ N with --max-n N).",
    expected="holds",
    check=check,
    order=(16, 7),
)
