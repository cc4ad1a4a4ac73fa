"""The integer form of binary-float layers (reluid.model.dyadic) is exact and agrees with the Fraction path.

Every float is an odd integer times a power of two, so a row of floats is an
integer vector times one power of two (ScaledRows).  These tests check that
the form holds every value exactly at the extremes of each float type, that
the hash, residues, float rows and exact products computed on it are those of
the Fractions, and that certify and check reach the same answers and the same
certificates from either representation.
"""

from __future__ import annotations

from fractions import Fraction as F

import ml_dtypes
import numpy as np
import pytest

from reluid.analysis.shallow.decide import decide
from reluid.analysis.shallow.flipsets._problem import Problem
from reluid.analysis.shallow.flipsets.separation import common_scores, exact_scores
from reluid.api import certify
from reluid.certificates.schema import from_json, to_json
from reluid.checker import readers as R
from reluid.checker.check import check_certificate
from reluid.checker.shallow import classify
from reluid.io.loader import ArrayLayer, exact_values, network_from_arrays
from reluid.model import dyadic
from reluid.model.network import Layer, Network, ScaledRows
from tests.catalogue import CATALOGUE

BF16 = ml_dtypes.bfloat16


def _extremes(dtype) -> np.ndarray:
    """Largest, smallest normal, smallest subnormal, ±0, one, and a few in between, of ``dtype``."""
    info = ml_dtypes.finfo(dtype) if dtype is BF16 else np.finfo(dtype)
    values = [float(info.max), float(info.tiny), float(info.smallest_subnormal), 0.0, -0.0, 1.0, 0.1, -3.5,
              float(info.eps), 1 / 3, -float(info.max), -float(info.smallest_subnormal), 2.0 ** 10]
    return np.array(values, dtype=np.float64).astype(dtype)


def _fraction_network(net: Network) -> Network:
    """The same network with Fraction layers only (no integer form)."""
    return Network(tuple(Layer(L.weight, L.bias, L.n_in) for L in net.layers))


def _layer(W, b):
    return ArrayLayer(np.asarray(W), np.asarray(b), "W", "b")


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32, np.float64], ids=str)
def test_every_extreme_value_is_held_exactly(dtype):
    x = _extremes(dtype)
    rng = np.random.default_rng(0)
    W = np.stack([x, x[::-1], rng.permutation(x), np.zeros_like(x), np.full_like(x, x[2])])
    b = np.array([x[0], x[2], -0.0, 0.0, x[1]], dtype=dtype)
    form = dyadic.from_float_arrays(W, b)
    want = [exact_values(np.concatenate([W[i], b[i:i + 1]])) for i in range(W.shape[0])]
    assert form.fractions() == want                 # the pure-Python reading of the integers
    assert dyadic.fractions(form) == want           # the vectorised one
    for row, s in zip(form.rows, form.shifts):      # canonical: an odd entry, or a zero row with shift 0
        assert any(v % 2 for v in row) or (not any(row) and s == 0)
    assert F(-0.0) == 0 and form.fractions()[3] == [0] * W.shape[1] + [0]


def test_wide_rows_fall_back_to_python_integers():
    W = np.array([[3.0e38, 1.0e-45], [1.0, 2.0]], dtype=np.float32)      # 2^127 down to 2^-149 in one row
    form = dyadic.from_float_arrays(W, np.array([0.5, -0.25], dtype=np.float32))
    assert form.array is None and max(abs(v) for v in form.rows[0]).bit_length() > 250
    assert form.fractions()[0] == exact_values(np.array([3.0e38, 1.0e-45, 0.5], dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32, np.float64], ids=str)
def test_hash_and_equality_are_those_of_the_fractions(dtype):
    x = _extremes(dtype)
    rng = np.random.default_rng(1)
    W1 = rng.permutation(np.concatenate([x, x])).reshape(2, -1).astype(dtype)
    net = network_from_arrays([_layer(W1, x[:2]), _layer(rng.permutation(x)[:2].reshape(1, 2), x[3:4])])
    plain = _fraction_network(net)
    assert net.layers[0].exact is not None and plain.layers[0].exact is None
    assert net.sha256() == plain.sha256() and net.canonical_bytes() == plain.canonical_bytes()
    assert net == plain and hash(net.layers[0]) == hash(plain.layers[0])


def test_hash_of_a_random_float32_layer_with_empty_and_zero_rows():
    rng = np.random.default_rng(2)
    W = (rng.standard_normal((40, 30)) * rng.choice([1e-3, 1.0, 1e4], size=(40, 1))).astype(np.float32)
    W[3] = 0
    net = network_from_arrays([_layer(W, rng.standard_normal(40).astype(np.float32)),
                               _layer(np.zeros((1, 40), np.float32), np.array([-0.0], np.float32))])
    assert net.sha256() == _fraction_network(net).sha256()
    empty = network_from_arrays([_layer(np.zeros((0, 3), np.float32), np.zeros(0, np.float32)),   # n = 0
                                 _layer(np.zeros((2, 0), np.float32), np.ones(2, np.float32))])
    assert empty.sha256() == _fraction_network(empty).sha256()


def test_exact_products_and_residues():
    rng = np.random.default_rng(3)
    for bits in (3, 40, 62):
        X = rng.integers(-2**bits + 1, 2**bits, size=(20, 300))
        Y = rng.integers(-2**20, 2**20, size=(300, 4))
        assert (dyadic.int_matmul(X, Y) == X.astype(object) @ Y.astype(object)).all()
    W = (rng.standard_normal((6, 5)) * 10.0 ** rng.integers(-8, 8, size=(6, 5))).astype(np.float32)
    form = dyadic.from_float_arrays(W, rng.standard_normal(6).astype(np.float32))
    p = 2**31 - 1
    want = [[q.numerator * pow(q.denominator, -1, p) % p for q in row[:5]] for row in form.fractions()]
    assert dyadic.residues(form, p, 5).tolist() == want


def _float32_theta(rng, n, m, k, plant=False):
    A = rng.standard_normal((n, m)).astype(np.float32)
    M = rng.standard_normal((k, n)).astype(np.float32)
    if plant:                       # Σ_{i<3} m_i a_iᵀ = 0 with a_3 = -(a_1 + a_2), m_1 = m_2 = m_3
        A[:2] = np.round(A[:2] * 1024) / 1024          # so that the sum is exact in float32
        A[2] = -(A[0] + A[1])
        assert (A[2].astype(np.float64) == -(A[0].astype(np.float64) + A[1].astype(np.float64))).all()
        M[:, 1] = M[:, 2] = M[:, 0]
    net = network_from_arrays([_layer(A, rng.standard_normal(n).astype(np.float32)),
                               _layer(M, rng.standard_normal(k).astype(np.float32))])
    return net


@pytest.mark.parametrize("seed", range(4))
def test_integer_and_fraction_paths_agree_on_scores_and_floats(seed):
    rng = np.random.default_rng(seed)
    net = _float32_theta(rng, 30, 5, 3)
    fast, slow = Problem(net.shallow()), Problem(_fraction_network(net).shallow())
    assert fast.dyadic and not slow.dyadic
    Y = rng.integers(-50, 50, size=(3, 5)).tolist()
    exact = [sum(m * y * a for y_row, m in zip(Y, net.shallow().out(i)) for y, a in zip(y_row, net.shallow().A[i]))
             for i in range(30)]
    for prob in (fast, slow):
        s = exact_scores(prob, Y)
        assert [v > 0 for v in s] == [v > 0 for v in exact] and [v == 0 for v in s] == [v == 0 for v in exact]
        common = common_scores(prob, s)                 # one positive scale for all neurons
        ratios = {F(c) / e for c, e in zip(common, exact) if e}
        assert len(ratios) == 1 and ratios.pop() > 0
    p = fast.prime()
    assert [x.tolist() for x in fast.residues(p)] == [x.tolist() for x in slow.residues(p)]
    for got, ref, axis in zip(fast.floats(), slow.floats(), (1, 0)):   # rows of A, columns of M: up to scale
        unit = [x / np.abs(x).max(axis=axis, keepdims=True) for x in (got, ref)]
        assert np.allclose(*unit, rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32, np.float64], ids=str)
def test_integer_bounds_are_those_of_the_fractions(dtype):
    """max |DM·M| and max |DA·A| from the forms (what z3's encoding is chosen by) equal the Fraction path's."""
    x = _extremes(dtype)
    rng = np.random.default_rng(4)
    for W, b, M, c in ((rng.permutation(np.concatenate([x, x])).reshape(2, -1), x[:2], x[4:6].reshape(1, 2), x[:1]),
                       (np.zeros((3, 2)), np.array([x[2], 0.0, x[0]]), np.ones((2, 3)), np.array([x[2], 1.0])),
                       (rng.standard_normal((7, 4)), rng.standard_normal(7), rng.standard_normal((3, 7)) * 1e-3,
                        rng.standard_normal(3))):
        net = network_from_arrays([_layer(np.asarray(W).astype(dtype), np.asarray(b).astype(dtype)),
                                   _layer(np.asarray(M).astype(dtype), np.asarray(c).astype(dtype))])
        fast, slow = Problem(net.shallow()), Problem(_fraction_network(net).shallow())
        assert fast.dyadic and fast.integer_bounds() == slow.integer_bounds()
        assert fast._ints is None                       # no Fraction was built for it


def test_checker_rows_are_the_networks_rows():
    net = _float32_theta(np.random.default_rng(5), 12, 4, 2)
    t, plain = net.shallow(), _fraction_network(net).shallow()
    for theta in (t, plain):
        N, lam = R.neuron_rows(theta)
        C, mu = R.output_columns(theta)
        assert [[x * v for v in row] for row, x in zip(N, lam)] == [list(plain.row(i)) for i in range(12)]
        assert [[x * v for v in col] for col, x in zip(C, mu)] == [list(plain.out(i)) for i in range(12)]
    assert classify(t) == classify(plain)


def _certificates_agree(net: Network):
    plain = _fraction_network(net)
    a, b = certify(net, timeout=30), certify(plain, timeout=30)
    assert to_json(a) == to_json(b)
    for cert, network in ((a, net), (b, plain), (a, plain), (b, net)):
        report = check_certificate(from_json(to_json(cert)), network)
        assert report.valid
    return a


@pytest.mark.parametrize("seed", range(3))
def test_certify_and_check_agree_with_the_fraction_path_generic(seed):
    cert = _certificates_agree(_float32_theta(np.random.default_rng(seed), 40, 6, 2))
    assert cert.verdict.value == "no-hidden-symmetries"


def test_certify_and_check_agree_with_the_fraction_path_planted_flip_set():
    net = _float32_theta(np.random.default_rng(7), 8, 3, 2, plant=True)
    cert = _certificates_agree(net)
    assert cert.verdict.value == "hidden-symmetry"
    assert decide(net).stratum == decide(_fraction_network(net)).stratum == "generic"


def _dyadic_catalogue():
    out = []
    for ex in CATALOGUE:
        t = ex.theta
        values = [x for r in t.M + t.A for x in r] + list(t.b + t.c)
        if t.n and t.m and all(F(float(np.float32(float(x)))) == x for x in values):
            out.append(ex)
    return out


@pytest.mark.parametrize("ex", _dyadic_catalogue(), ids=lambda e: e.name)
def test_catalogue_through_float32_arrays(ex):
    t = ex.theta
    net = network_from_arrays([_layer(np.array(t.A, dtype=np.float32).reshape(t.n, t.m), np.array(t.b, np.float32)),
                               _layer(np.array(t.M, dtype=np.float32).reshape(t.k, t.n), np.array(t.c, np.float32))])
    assert net.layers[0].exact is not None and net == t.to_network()
    d = decide(net)
    assert (d.verdict.value == "hidden-symmetry") == ex.hidden and d.stratum == decide(t).stratum
    _certificates_agree(net)


def test_scaled_rows_reads_and_compares():
    form = ScaledRows([[3, -2], [0, 0]], (-2, 0), 2)
    assert form.fractions() == [[F(3, 4), F(-1, 2)], [0, 0]]
    assert form == ScaledRows([[3, -2], [0, 0]], (-2, 0), 2) and form != ScaledRows([[3, -2], [0, 0]], (-1, 0), 2)
    layer = Layer(None, None, 1, form)
    assert layer.weight == ((F(3, 4),), (0,)) and layer.bias == (F(-1, 2), 0) and layer.n_out == 2


def test_flip_sets_are_recognised_on_the_integers():
    net = _float32_theta(np.random.default_rng(7), 8, 3, 2, plant=True)
    fast, slow = Problem(net.shallow()), Problem(_fraction_network(net).shallow())
    for F_ in ({0, 1, 2}, {0, 1}, {3}, {0, 1, 2, 3}, set()):
        assert fast.is_flip(F_) == slow.is_flip(F_) == (F_ == {0, 1, 2})


def test_forms_compare_by_value_and_pickle():
    import pickle

    assert ScaledRows([[2, 4]], (0,), 2) == ScaledRows([[1, 2]], (1,), 2)        # not canonical, same values
    net = _float32_theta(np.random.default_rng(9), 5, 3, 2)
    back = pickle.loads(pickle.dumps(net))
    assert back == net and back.sha256() == net.sha256() and back.layers[0].exact is not None
    assert pickle.loads(pickle.dumps(net.shallow())).A == net.shallow().A


def test_shared_lines_on_the_integers_are_those_of_the_fractions():
    from reluid.analysis.shallow import decide as D, rows

    rng = np.random.default_rng(11)
    A = rng.standard_normal((9, 4)).astype(np.float32)
    b = rng.standard_normal(9).astype(np.float32)
    A[1], b[1] = 2 * A[0], 2 * b[0]                 # positively proportional to row 0
    A[2], b[2] = -0.5 * A[0], -0.5 * b[0]           # opposite to row 0
    A[4], b[4] = -A[3] * 0.25, -b[3] * 0.25         # an opposite pair
    A[5] = 0                                        # a constant neuron has no line
    net = network_from_arrays([_layer(A, b), _layer(rng.standard_normal((2, 9)).astype(np.float32),
                                                    np.zeros(2, np.float32))])
    fast = rows.shared_lines(net.shallow())
    assert fast == D._shared_lines(_fraction_network(net).shallow())
    assert sorted(sorted(i for i, _ in v) for v in fast.values()) == [[0, 1, 2], [3, 4]]
