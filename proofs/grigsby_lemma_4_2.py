"""Grigsby–Lindsey–Rolnick 2023, Lemma 4.2: preimages under the first map of a composition."""

from __future__ import annotations

import itertools

from ._framework import GLR, SEED_G, Checks, Statement
from ._lemmas import composition_preimage_lemma


def _subsets(xs):
    return [frozenset(c) for r in range(len(xs) + 1) for c in itertools.combinations(xs, r)]


def check(max_n, timeout):
    c = Checks(timeout)
    top = max(3, min(max_n or 3, 4))     # the enumeration grows like |B|^|A|·4^|B|
    cases = 0
    for na in range(0, top + 1):
        for nb in range(1, top + 1):
            A, B = range(na), range(nb)
            subsets = _subsets(B)
            for images in itertools.product(B, repeat=na):
                G = dict(zip(A, images))
                GA = frozenset(images)
                pre = {S: frozenset(a for a in A if G[a] in S) for S in subsets}
                for S, S2 in itertools.product(subsets, repeat=2):
                    lhs = pre[S] & pre[S2]
                    if lhs != pre[GA & S & S2] or bool(lhs) != bool(GA & S & S2):
                        c.exact("G⁻¹(S) ∩ G⁻¹(S′) = G⁻¹(G(A) ∩ S ∩ S′)", False,
                                f"|A| = {na}, |B| = {nb}, G = {images}, S = {set(S)}, S′ = {set(S2)}")
                        return c.outcome("failed")
                    cases += 1
    c.exact(f"exact enumeration: every map G : A → B and all S, S′ ⊆ B with |A| ≤ {top}, 1 ≤ |B| ≤ {top} "
            f"({cases} cases): G⁻¹(S) ∩ G⁻¹(S′) = G⁻¹(G(A) ∩ S ∩ S′), hence the equivalence", True)
    c.z3_unsat("z3 with uninterpreted sorts A, B (arbitrary sets), G : A → B and S, S′ ⊆ B as uninterpreted "
               "predicates: (∃a. G(a) ∈ S ∩ S′) ≠ (∃b ∈ G(A). b ∈ S ∩ S′)",
               composition_preimage_lemma(timeout=c.budget()))
    c.remark("H and F = H∘G play no role in the statement; the lemma is pure set theory.")
    return c.outcome("Proved for arbitrary sets by z3 (uninterpreted sorts, quantifiers) and by exhaustive "
                     f"enumeration for |A|, |B| ≤ {top}.")


STATEMENT = Statement(
    name="grigsby_lemma_4_2",
    title="Lemma 4.2 (preimages and images)",
    paper=GLR,
    reference=f"{SEED_G}, §4, Lemma 4.2",
    statement="Let G : A → B and H : B → C be functions, F = H∘G, and S, S′ ⊆ B. Then G⁻¹(S) ∩ G⁻¹(S′) ≠ ∅ iff "
              "G(A) ∩ S ∩ S′ ≠ ∅ (because G⁻¹(S) ∩ G⁻¹(S′) = G⁻¹(G(A) ∩ S ∩ S′)).",
    method="Exhaustive enumeration over all maps between small finite sets and all pairs of subsets (exact), and "
           "a z3 proof for arbitrary sets with uninterpreted sorts, an uninterpreted function and predicates.",
    sizes="enumeration: |A| ≤ 3, 1 ≤ |B| ≤ 3 (≤ min(N, 4) with --max-n N); z3: all sets.",
    expected="holds",
    check=check,
    order=(4, 2),
)
