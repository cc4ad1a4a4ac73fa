"""The checker's integer rows (readers.IntRows): the bucketed stratum and the separation scores.

Both read θ's hidden layer as integers, from Python lists or, for a layer read
from binary floats, from its 64-bit words.  The stratum puts rows in buckets by
a few leading ratios and compares only a bucket's rows exactly; the tests plant
rows that share a bucket without sharing a line (and rows that share a line
under every kind of scaling) and compare with the plain classification, which
groups every row by its primitive vector.  The separation scores (flint integer
matrix products, a block of rows at a time: linalg.row_products) are compared
with m_iᵀ Y a_i computed entry by entry, on both layouts, for y up to its 2^64
bound and for 64-bit words at both ends of their range.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import numpy as np
import pytest

from reluid.checker import flipsets as cf
from reluid.checker import readers as R
from reluid.checker import shallow as cs
from reluid.checker.linalg import rank, row_products
from reluid.checker.registry import Budget, Context
from reluid.errors import CheckFailed
from reluid.io.loader import ArrayLayer, network_from_arrays
from reluid.model.network import Layer, Network, ScaledRows, Shallow
from reluid.verdicts import Stratum


def _plain_classify(t: Shallow):
    """(name, where, pairs): the classification with every row keyed by its primitive vector (no buckets)."""
    outs = [t.out(i) for i in range(t.n)]
    for i in range(t.n):
        if not any(outs[i]):
            return Stratum.DEAD_OUTPUT, f"neuron {i + 1}", ()
    for i in range(t.n):
        if not any(t.A[i]):
            return Stratum.CONSTANT_NEURON, f"neuron {i + 1}", ()
    lines: dict = {}
    for i in range(t.n):
        key, lam = cs._line(list(t.row(i)))
        lines.setdefault(key, []).append((i, lam))
    for members in lines.values():
        for positive in (True, False):
            same = [i for i, lam in members if (lam > 0) == positive]
            if len(same) > 1:
                return Stratum.PROPORTIONAL, f"neurons {same[0] + 1} and {same[1] + 1}", ()
    pairs, dirs = [], []
    for key, members in lines.items():
        if len(members) == 2:
            (i, li), (j, lj) = sorted(members, key=lambda x: x[1] < 0)
            if not any(abs(li) * x + abs(lj) * y for x, y in zip(t.out(i), t.out(j))):
                return Stratum.CANCELLING_PAIR, f"neurons {i + 1} and {j + 1}", ()
            pairs.append((i, j))
            dirs.append([F(x) for x in key[:t.m]])
    if pairs:
        if rank(dirs) < len(dirs):
            return Stratum.DEPENDENT_PAIRS, "the opposite pairs", tuple(pairs)
        return Stratum.OPPOSITE_PAIRS, "", tuple(pairs)
    return Stratum.GENERIC, "", ()


def _colliding_rows(rng: random.Random, n: int, m: int) -> list[list[int]]:
    """Rows (a_i, b_i) that share their first four entries in groups, a few of them on shared lines."""
    prefix = [rng.choice([-3, 1, 2]) for _ in range(4)]
    rows = []
    for _ in range(n):
        r = prefix[:min(4, m + 1)] + [rng.randint(-9, 9) for _ in range(m + 1 - 4)]
        if rng.random() < 0.3:
            r[0] = 0                                    # a leading zero: the bucket starts further on
        rows.append(r)
    for _ in range(rng.randint(0, 3)):                  # copies on the line of another row, scaled by ±p/q
        src = rng.randrange(n)
        c = F(rng.choice([-1, 1]) * rng.randint(1, 7), rng.randint(1, 5))
        rows[rng.randrange(n)] = [v * c for v in rows[src]]
    return rows


def _shallow(rows, outs, m) -> Shallow:
    return Shallow.make([list(col) for col in zip(*outs)], [r[:m] for r in rows], [r[m] for r in rows],
                        [0] * len(outs[0]), m=m)


@pytest.mark.parametrize("seed", range(40))
def test_bucketed_stratum_agrees_with_the_plain_one_on_planted_collisions(seed):
    rng = random.Random(seed)
    m, n, k = rng.randint(4, 7), rng.randint(2, 12), rng.randint(1, 2)
    rows = _colliding_rows(rng, n, m)
    outs = [[rng.choice([-2, -1, 1, 3]) for _ in range(k)] for _ in range(n)]
    if rng.random() < 0.3:                              # make a pair cancel: m_j = −(λ_i/λ_j) m_i
        i, j = rng.sample(range(n), 2)
        rows[j] = [-2 * v for v in rows[i]]
        outs[j] = [F(v, 2) for v in outs[i]]
    t = _shallow(rows, outs, m)
    st = cs.classify(t)
    assert (st.name, st.where, st.pairs) == _plain_classify(t)
    for key, members in st.classes:                     # every listed line holds its neurons, exactly
        assert len(members) >= 2 and math.gcd(*key) == 1
        for i, lam in members:
            assert [lam * v for v in key] == list(t.row(i))


def test_rows_in_one_bucket_on_different_lines_stay_apart():
    # the first four entries agree up to scale, the fifth does not: one bucket, three lines
    rows = [[1, 2, 3, 4, 5, 0], [2, 4, 6, 8, 11, 0], [-1, -2, -3, -4, 7, 1]]
    t = _shallow(rows, [[1], [1], [1]], 5)
    assert cs.classify(t).name == Stratum.GENERIC
    rows.append([3, 6, 9, 12, 15, 0])                   # 3 × the first row: proportional
    t = _shallow(rows, [[1], [1], [1], [1]], 5)
    assert (cs.classify(t).name, cs.classify(t).where) == (Stratum.PROPORTIONAL, "neurons 1 and 4")
    rows[3] = [-3, -6, -9, -12, -15, 0]                 # −3 × the first: an opposite pair
    st = cs.classify(_shallow(rows, [[1], [1], [1], [1]], 5))
    assert st.name == Stratum.OPPOSITE_PAIRS and st.pairs == ((0, 3),)


def _float32_net(rng, n, m, k, scale=1.0) -> Network:
    A = (rng.standard_normal((n, m)) * scale).astype(np.float32)
    M = rng.standard_normal((k, n)).astype(np.float32)
    return network_from_arrays([ArrayLayer(A, rng.standard_normal(n).astype(np.float32), "W", "b"),
                                ArrayLayer(M, rng.standard_normal(k).astype(np.float32), "W", "b")])


def _fractions_only(net: Network) -> Network:
    return Network(tuple(Layer(L.weight, L.bias, L.n_in) for L in net.layers))


def test_words_and_lists_give_the_same_rows_and_blocks():
    net = _float32_net(np.random.default_rng(1), 9, 5, 2)
    words, lists = R.IntRows(net.shallow()), R.IntRows(_fractions_only(net).shallow())
    assert words._words is not None and lists._words is None
    t = _fractions_only(net).shallow()
    for rows in (words, lists):
        for i in range(t.n):
            assert [rows.scales[i] * v for v in rows.row(i)] == list(t.row(i))
            assert rows.head(i, 3) == rows.row(i)[:3]
        for size in (1, 4, 9, 100):
            blocks = list(rows.blocks(size))
            assert [len(b) for b in blocks] == [min(size, t.n - s) for s in range(0, t.n, size)]
            assert [r for b in blocks for r in b] == [rows.row(i) for i in range(t.n)]


def _dot_products(N, Y):
    return [[sum(a * b for a, b in zip(row, y)) for y in Y] for row in N]


@pytest.mark.parametrize("seed", range(6))
def test_row_products_are_the_dot_products(seed):
    rng = random.Random(seed)
    n, width, k = rng.randint(1, 30), rng.randint(1, 9), rng.randint(0, 4)
    big = [-2**63, 2**63 - 1, -2**63 + 1, 2**200, 0]
    N = [[rng.choice(big) if rng.random() < 0.2 else rng.randint(-9, 9) for _ in range(width)] for _ in range(n)]
    Y = [[rng.choice([2**64 - 1, -2**64 + 1, rng.randint(-5, 5)]) for _ in range(rng.randint(0, width))]
         for _ in range(k)]
    want = _dot_products(N, Y)
    for size in (1, 3, n):
        assert row_products((N[s:s + size] for s in range(0, n, size)), width, Y) == want
    assert row_products([[], N], width, Y) == want
    with pytest.raises(ValueError):
        row_products([[[0] * width]], width, [[1] * (width + 1)])
    with pytest.raises(ValueError):
        row_products([[[0] * (width + 1)]], width, Y)


@pytest.mark.parametrize("top", [3, 2**40, 2**64 - 1])        # the last is y's bound, 2^64 − 1
def test_separation_scores_are_exact_on_both_layouts(top):
    rng = np.random.default_rng(2)
    net = _float32_net(rng, 11, 6, 3, scale=1e-3)
    plain = _fractions_only(net)
    Y = [[int(v) for v in rng.integers(-3, 4, size=6)] for _ in range(3)]
    Y[0][0] = top
    t = plain.shallow()
    want = [sum(t.M[j][i] * Y[j][l] * t.A[i][l] for j in range(3) for l in range(6)) for i in range(t.n)]
    for network in (net, plain):
        ctx = Context(network, "nfs", Budget())
        s, lam = cf._separation_scores(ctx, network.shallow(), {"y": Y})
        assert [v * x for v, x in zip(s, lam)] == want


def test_separation_scores_read_the_extreme_64_bit_words():
    # a hand-built integer form whose words reach both ends of int64 (not canonical: the checker reads it as given)
    words = np.array([[-2**63, 2**63 - 1, 5], [2**62, -1, -2**63], [0, 1, 2**63 - 1], [-7, -2**63 + 1, 0]],
                     dtype=np.int64)
    shifts = (-3, 0, 2, -70)
    out_rows, out_shifts = [[1, -2**40, 3, 1, 0]], (-1,)
    t = Shallow(None, None, None, None, 2, hidden=ScaledRows(None, shifts, 3, array=words),
                output=ScaledRows(out_rows, out_shifts, 5))
    assert R.IntRows(t)._words is not None
    rows = [[F(int(v)) * F(2) ** s for v in row] for row, s in zip(words.tolist(), shifts)]
    M = [F(v) * F(2) ** out_shifts[0] for v in out_rows[0][:4]]
    for Y in ([[1, 1]], [[2**64 - 1, -(2**64 - 1)]], [[-3, 2**63]]):
        want = [M[i] * sum(Y[0][l] * rows[i][l] for l in range(2)) for i in range(4)]
        s, lam = cf._separation_scores(Context(Network.from_lists([([[1, 0]], [0]), ([[1]], [0])]), "nfs", Budget()),
                                       t, {"y": Y})
        assert [v * x for v, x in zip(s, lam)] == want


def test_the_stratum_is_charged_once_per_check():
    net = _float32_net(np.random.default_rng(3), 6, 4, 2)
    ctx = Context(net, "generic", Budget(10**6))
    t = net.shallow()
    assert cs.classify(t, ctx).name == Stratum.GENERIC
    used = ctx.budget.used
    assert used == t.n * (t.m + t.k + 1)
    assert cs.classify(net.shallow(), ctx).name == Stratum.GENERIC and ctx.budget.used == used   # kept
    with pytest.raises(CheckFailed, match="work limit"):
        cs.classify(t, Context(net, "generic", Budget(used - 1)))
