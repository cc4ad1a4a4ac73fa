"""Theorem W's x frame at size (n1 > n0, n1 > 14): the LP-guided exact search of analysis/deep/xsearch.py.

A He-initialised 8-16-16-2 network (beyond §8's sign tree, n1 = 16 > 14) is certified through the
search (its certificate is checked, and forgeries of its evidence rejected, in
tests/checker/test_pinning_forgeries.py); a planted layer-2 flip set on it gives hidden-symmetry with
the witness θ^{∅,F2}; the search's exact pieces (projection onto equalities, zeros pushed off a wall,
Motzkin vectors from the LP dual) satisfy their defining identities exactly.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.two_layers import analyse_two_layers
from reluid.model.network import Network
from reluid.report.reasons import sentence
from reluid.verdicts import Verdict
from tests.analysis.deep.test_pinning import _he

xsearch = pytest.importorskip("reluid.analysis.deep.xsearch")
if not xsearch.available():  # pragma: no cover - highspy is the optional extra 'lp'
    pytest.skip("the LP-guided search needs highspy", allow_module_level=True)


NET = _he((8, 16, 16, 2), 0)


def _layers(n):
    return [([list(r) for r in L.weight], list(L.bias)) for L in n.layers]


def test_a_he_network_beyond_the_sign_tree_is_certified_through_the_search():
    r = analyse_two_layers(NET, timeout=60)
    assert r.verdict is Verdict.NO_HIDDEN and r.applies_w and not r.applies_82
    assert "beyond the size limit" in " ".join(sentence(h.detail) for h in r.hypotheses) or not r.hypotheses
    pin = r.pinning
    assert pin.frame.kind == "x" and pin.h4_method == "count" and {k for k, *_ in pin.order} == set(range(16))
    # every region of the certificate carries an exact interior point and a decided visible set
    for s, point, vis, inv in pin.regions:
        assert all(s[i] * (sum(a * x for a, x in zip(NET.layers[0].weight[i], point)) + NET.layers[0].bias[i]) > 0
                   for i in range(16))
        assert set(vis) | set(inv) == set(range(16)) and not set(vis) & set(inv)


def test_a_planted_layer_2_flip_set_gives_its_witness():
    (A, a), (W, w), (V, c) = _layers(NET)
    W[1], w[1] = [-x for x in W[0]], F(1, 4) - w[0]           # V_1 W_1 + V_2 W_2 = 0, rows not proportional
    for row in V:
        row[1] = row[0]
    planted = Network.from_lists([(A, a), (W, w), (V, c)])
    r = analyse_two_layers(planted, timeout=60)
    assert r.verdict is Verdict.HIDDEN and r.applies_w and r.witness_flips == (frozenset(), frozenset({0, 1}))
    rng = random.Random(0)
    for _ in range(50):                  # θ^{∅,F2} computes the same function (exact at rational points)
        x = [F(rng.randint(-400, 400), 64) for _ in range(8)]
        assert planted(x) == r.witness(x)


def test_the_exact_pieces_of_the_search():
    X = xsearch.XSearch(NET, 0)
    chain = X.line(X.rng.standard_normal(8), X.rng.standard_normal(8))
    assert len(chain) == 17 and all(sum(a != b for a, b in zip(s, t)) == 1 for (s, _), (t, _) in zip(chain, chain[1:]))
    assert X.signs_at([p for _, p in chain]) == [s for s, _ in chain]
    (s, _), (t, _) = chain[8], chain[9]
    j = next(i for i in range(16) if s[i] != t[i])
    plus = s if s[j] > 0 else t
    walls = X.zeros(plus, range(16), skip=j)
    assert walls
    G = X.pieces(plus)
    for k, p in walls.items():           # on H_j and Z(g_k), strictly inside the other signs
        assert sum(x * y for x, y in zip(NET.layers[0].weight[j], p)) + NET.layers[0].bias[j] == 0
        assert sum(x * y for x, y in zip(G[k], p)) + G[k][-1] == 0
    for side in (s, t):                  # pushed off the wall into both regions, still zeros of g_k
        got = X.push(side, j, walls)
        Gs = X.pieces(side)
        assert got and all(X.signs_at([p])[0] == side and sum(x * y for x, y in zip(Gs[k], p)) + Gs[k][-1] == 0
                           for k, p in got.items())


def test_motzkin_vectors_from_the_lp_dual_are_exact():
    from reluid.analysis.deep.strict import check_farkas

    X = xsearch.XSearch(NET, 0)
    A, a = NET.layers[0].weight, NET.layers[0].bias
    found = 0
    for s, _ in X.line(X.rng.standard_normal(8), X.rng.standard_normal(8)):
        vis, inv = X.visibility(s)
        G = X.pieces(s)
        for k, mz in inv.items():
            if mz is None:
                continue
            y, z = mz
            assert all(v >= 0 for v in y)
            B = [[s[i] * x for x in A[i]] for i in range(16)]
            assert check_farkas(B, [s[i] * a[i] for i in range(16)], [list(G[k][:-1])], [G[k][-1]], list(y), list(z), 8)
            found += 1
    assert found
