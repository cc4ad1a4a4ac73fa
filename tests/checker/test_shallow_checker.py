"""The checker's shallow facts (reluid/checker/shallow.py): kink form, orbit form, strata, witnesses, the paper's condition.

The kink form is checked against the function itself (it must reproduce θ(x)
at many rational points), the orbit form against the H_n action, the strata
against their definitions on hand-made networks (with the 1-based neurons the
messages name), and the paper's condition against brute force over {0, ±1}ⁿ.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import flint
import pytest

from reluid.certificates.schema import ClaimKind
from reluid.checker import linalg
from reluid.checker import shallow as cs
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed
from reluid.model.network import Network, Shallow
from tests.strategies import random_shallow

S = Shallow.make
F = Fraction


def ctx(theta, cid="c"):
    return Context(theta if isinstance(theta, Network) else theta.to_network(), cid)


def relu(z):
    return z if z > 0 else F(0)


def evaluate_kink_form(form, x):
    kinks, L, c = form
    out = list(c)
    for r, K in kinks:
        z = sum((a * xi for a, xi in zip(r[:-1], x)), F(0)) + r[-1]
        out = [o + Kj * relu(z) for o, Kj in zip(out, K)]
    return tuple(o + sum((Lj * xi for Lj, xi in zip(row, x)), F(0)) for o, row in zip(out, L))


def random_rational_theta(rng, m, n, k, zero_rows=False):
    def num(nonzero=False):
        while True:
            v = F(rng.randint(-4, 4), rng.choice([1, 1, 2, 3]))
            if v or not nonzero:
                return v

    A = [[num() for _ in range(m)] for _ in range(n)]
    if not zero_rows:
        for row in A:
            if not any(row):
                row[0] = F(1)
    return S([[num(True) for _ in range(n)] for _ in range(k)], A, [num() for _ in range(n)], [num() for _ in range(k)],
             m=m)


def points(rng, m, count=40):
    return [tuple(F(rng.randint(-60, 60), rng.choice([1, 2, 7])) for _ in range(m)) for _ in range(count)]


def act(theta, perm, scale):
    """g·θ for the permutation ``perm`` and positive scales (neuron perm[i] of g·θ is neuron i of θ scaled)."""
    n = theta.n
    M = [[None] * n for _ in range(theta.k)]
    A, b = [None] * n, [None] * n
    for i in range(n):
        t, s = perm[i], scale[i]
        A[t] = [x * s for x in theta.A[i]]
        b[t] = theta.b[i] * s
        for j in range(theta.k):
            M[j][t] = theta.M[j][i] / s
    return S(M, A, b, list(theta.c), m=theta.m)


# ---- the kink form -------------------------------------------------------------------------------

def test_kink_form_reproduces_the_function():
    rng = random.Random(1)
    for _ in range(150):
        theta = random_rational_theta(rng, rng.randint(1, 3), rng.randint(0, 5), rng.randint(1, 2), zero_rows=True)
        form = cs.kink_form(theta)
        for x in points(rng, theta.m, 12):
            assert evaluate_kink_form(form, x) == theta(x)
        for r, K in form[0]:
            assert next(v for v in r[:-1] if v) == 1 and any(K)    # canonical rows, nonzero kinks only


def test_kink_form_by_hand():
    # 2σ(−x + 1) + 3σ(2x) − σ(0·x − 2) + σ(0·x + 5): the constant neurons add 0 and 5·1; −x+1 → kink on (1, −1)
    theta = S([[2, 3, -1, 1]], [[-1], [2], [0], [0]], [1, 0, -2, 5], [7])
    kinks, L, c = cs.kink_form(theta)
    assert kinks == frozenset({((F(1), F(-1)), (F(2),)), ((F(1), F(0)), (F(6),))})
    assert L == ((F(-2),),)        # 2σ(1 − x) = 2σ(x − 1) − 2(x − 1)
    assert c == (F(7 + 5 + 2),)
    # two outputs, m = 2, negative lead on the second coordinate
    theta = S([[1, -2], [3, 1]], [[0, -2], [1, 1]], [4, 0], [0, 1])
    kinks, L, c = cs.kink_form(theta)
    assert kinks == frozenset({((F(0), F(1), F(-2)), (F(2), F(6))), ((F(1), F(1), F(0)), (F(-2), F(1)))})
    assert L == ((F(0), F(-2)), (F(0), F(-6)))
    assert c == (F(4), F(13))


def test_cancelling_kinks_disappear_from_the_form():
    # σ(x) − σ(−x) = x and σ(x + 1) − σ(−x − 1) − 1 = x: same form, no kinks
    a, b = S([1, -1], [[1], [-1]], [0, 0], [0]), S([1, -1], [[1], [-1]], [1, -1], [-1])
    assert cs.kink_form(a) == cs.kink_form(b) == (frozenset(), ((F(1),),), (F(0),))
    assert cs.verify_shallow_witness(a, b).startswith("θ′ has the same kinks")


def test_kink_form_merges_positively_proportional_neurons():
    a = S([[1, 1], [2, 0]], [[1, 1], [2, 2]], [1, 2], [0, 0])          # σ(x+y+1) + σ(2x+2y+2) = 3σ(x+y+1)
    b = S([[3, 0], [2, 0]], [[1, 1], [5, -1]], [1, 3], [0, 0])
    assert cs.kink_form(a) == cs.kink_form(b)
    assert cs.kink_form(a)[0] == frozenset({((F(1), F(1), F(1)), (F(3), F(2)))})


# ---- the orbit form --------------------------------------------------------------------------------

def test_orbit_form_is_invariant_under_the_group_and_nothing_else():
    rng = random.Random(2)
    for _ in range(100):
        theta = random_rational_theta(rng, rng.randint(1, 3), rng.randint(1, 5), rng.randint(1, 2), zero_rows=True)
        perm = list(range(theta.n))
        rng.shuffle(perm)
        scale = [F(rng.randint(1, 9), rng.randint(1, 9)) for _ in range(theta.n)]
        assert cs.orbit_form(act(theta, perm, scale)) == cs.orbit_form(theta)
        i = rng.randrange(theta.n)
        if any(theta.row(i)):                                           # −1 is not in H_n
            neg = act(theta, list(range(theta.n)), [F(-1) if t == i else F(1) for t in range(theta.n)])
            assert cs.orbit_form(neg) != cs.orbit_form(theta)
        c2 = S(theta.M, theta.A, theta.b, [x + 1 for x in theta.c], m=theta.m)
        assert cs.orbit_form(c2) != cs.orbit_form(theta)


def test_orbit_form_by_hand():
    theta = S([[6, 4]], [[-2, 4], [0, 0]], [2, 0], [1])                   # row −2 → scale 1/2; zero row: out 4 → 1
    form = cs.orbit_form(theta)
    assert form == (tuple(sorted([((F(-1), F(2), F(1)), (F(12),)), ((F(0), F(0), F(0)), (F(1),))])), (F(1),))
    dead = S([[0, -3]], [[0, 0], [0, 0]], [0, 0], [0])                    # zero row and zero output: scale 1
    assert cs.orbit_form(dead)[0] == (((F(0), F(0), F(0)), (F(-1),)), ((F(0), F(0), F(0)), (F(0),)))
    assert cs.orbit_form(S([[-2]], [[0]], [0], [0]))[0] == (((F(0), F(0)), (F(-1),)),)
    assert cs.orbit_form(S([[2]], [[0]], [3], [0]))[0] == (((F(0), F(1)), (F(6),)),)


def test_shallow_witness():
    theta = S([2, -1], [[1], [2]], [0, 3], [0])                         # {1, 2} is a flip set
    flipped = S([2, -1], [[-1], [-2]], [0, -3], [-3])
    assert cs.verify_shallow_witness(theta, flipped) == ("θ′ has the same kinks, linear part and constant as θ (so "
                                                         "the same function) and a different orbit form")
    with pytest.raises(ValueError, match=r"^witness lies in the H_n-orbit of the network \(not a hidden symmetry\)$"):
        cs.verify_shallow_witness(theta, act(theta, [1, 0], [F(3), F(1, 2)]))
    with pytest.raises(ValueError, match=r"^witness computes a different function$"):
        cs.verify_shallow_witness(theta, S([2, -1], [[-1], [-2]], [0, -3], [-2]))
    with pytest.raises(ValueError, match=r"^witness is in Ω\(1, 3, 1\), not Ω\(1, 2, 1\)$"):
        cs.verify_shallow_witness(theta, S([2, -1, 1], [[1], [2], [1]], [0, 3, 0], [0]))
    with pytest.raises(ValueError, match=r"Ω\(2, 2, 1\), not Ω\(1, 2, 1\)"):
        cs.verify_shallow_witness(theta, S([2, -1], [[1, 0], [2, 0]], [0, 3], [0]))
    with pytest.raises(ValueError, match=r"Ω\(1, 2, 2\), not Ω\(1, 2, 1\)"):
        cs.verify_shallow_witness(theta, S([[2, -1], [0, 0]], [[1], [2]], [0, 3], [0, 0]))


# ---- lines and strata -----------------------------------------------------------------------------

def test_line_key_and_factor():
    rng = random.Random(3)
    for _ in range(300):
        row = [F(rng.randint(-6, 6), rng.randint(1, 6)) for _ in range(rng.randint(1, 4))]
        if not any(row):
            continue
        key, lam = cs._line(row)
        assert all(isinstance(v, int) for v in key) and next(v for v in key if v) > 0
        assert math.gcd(*key) == 1
        assert [lam * v for v in key] == row
    assert cs._line([F(0), F(-2, 3), F(4, 9)]) == ((0, 3, -2), F(-2, 9))
    assert cs._line([F(6), F(3)]) == ((2, 1), F(3))


def test_empty_and_degenerate_strata_name_their_neurons():
    assert cs.classify(S([], [], [], [0], m=1)).name == "empty"
    st = cs.classify(S([1, 0, 0], [[1], [0], [2]], [0, 1, 2], [0]))
    assert (st.name, st.where) == ("dead-output", "neuron 2")           # before the constant neuron 2
    st = cs.classify(S([[1, 2, 3], [1, 0, 3]], [[1, 1], [2, 1], [0, 0]], [0, 1, 2], [0, 0]))
    assert (st.name, st.where) == ("constant-neuron", "neuron 3")
    st = cs.classify(S([1, 1, 1], [[1], [2], [3]], [1, 0, 3], [0]))      # rows (1,1), (2,0), (3,3)
    assert (st.name, st.where) == ("proportional", "neurons 1 and 3")
    st = cs.classify(S([1, 1, 1], [[-1], [2], [-3]], [-1, 0, -3], [0]))   # both on the negative side
    assert (st.name, st.where) == ("proportional", "neurons 1 and 3")
    st = cs.classify(S([1, 1, 1], [[2], [-1], [1]], [1, 0, 0], [0]))     # (2,1) alone; (−1,0), (1,0) opposite
    assert st.name == "opposite-pairs" and st.pairs == ((2, 1),)
    st = cs.classify(S([1, 1, 1], [[1], [-1], [2]], [0, 0, 0], [0]))     # three on a line, two of one sign
    assert (st.name, st.where) == ("proportional", "neurons 1 and 3")
    st = cs.classify(S([1, 1, 1, 1], [[-1], [-3], [1], [2]], [0, 0, 0, 0], [0]))   # two of each sign: + first
    assert (st.name, st.where) == ("proportional", "neurons 3 and 4")


def test_opposite_pairs():
    # pair (−2x + 2, x − 1) with kinks 2·1 + 1·(−1)... : K = |λ_i| m_i + |λ_j| m_j
    st = cs.classify(S([1, 2, 5], [[-2], [1], [1]], [2, -1, 0], [0]))   # λ = −2 (m 1) and 1 (m 2): K = 4 ≠ 0
    assert st.name == "opposite-pairs" and st.pairs == ((1, 0),) and st.where == ""
    assert st.classes == (((1, -1), ((0, F(-2)), (1, F(1)))),)           # the lines of two or more neurons
    st = cs.classify(S([1, 2], [[-1], ["1/2"]], [-1, "1/2"], [0]))     # λ = −1 and 1/2: the positive side first
    assert st.pairs == ((1, 0),) and st.classes == (((1, 1), ((0, F(-1)), (1, F(1, 2)))),)
    st = cs.classify(S([1, -2, 5], [[-2], [1], [1]], [2, -1, 0], [0]))  # K = 2·1 + 1·(−2) = 0
    assert (st.name, st.where) == ("cancelling-pair", "neurons 2 and 1")
    st = cs.classify(S([[1, -2], [0, 0]], [[-2], [1]], [2, -1], [0, 0]))
    assert (st.name, st.where) == ("cancelling-pair", "neurons 2 and 1")
    st = cs.classify(S([[1, -2], [0, 1]], [[-2], [1]], [2, -1], [0, 0]))  # the second output keeps it alive
    assert st.name == "opposite-pairs"


def test_dependent_pairs():
    # two pairs on the lines x = 0 and x = −1: directions (1) and (1) are dependent
    theta = S([1, 1, 1, 1], [[1], [-1], [1], [-1]], [0, 0, 1, -1], [0])
    st = cs.classify(theta)
    assert (st.name, st.where) == ("dependent-pairs", "the opposite pairs") and st.pairs == ((0, 1), (2, 3))
    assert st.classes == (((1, 0), ((0, F(1)), (1, F(-1)))), ((1, 1), ((2, F(1)), (3, F(-1)))))
    # in the plane, directions (1, 0) and (0, 1) are independent; (1, 0) and (2, 0) are not
    theta = S([1, 1, 1, 1], [[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 1, -1], [0])
    assert cs.classify(theta).name == "opposite-pairs"
    theta = S([1, 1, 1, 1], [[1, 0], [-1, 0], [2, 0], [-2, 0]], [0, 0, 1, -1], [0])
    assert cs.classify(theta).name == "dependent-pairs"
    theta = S([1, 1, 1, 1, 1, 1], [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1]], [0, 0, 0, 0, 1, -1], [0])
    assert cs.classify(theta).name == "dependent-pairs"                   # three directions in the plane


def test_rank_by_elimination():
    rng = random.Random(4)

    def oracle(rows):
        return flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in r] for r in rows]).rank()

    assert linalg.rank([]) == 0
    for _ in range(150):
        r, c = rng.randint(1, 4), rng.randint(1, 4)
        rows = [[F(rng.choice([0, 0, 1, -1, 2, 3]), rng.choice([1, 2])) for _ in range(c)] for _ in range(r)]
        if rng.random() < 0.3:
            rows.append([x + y for x, y in zip(rows[0], rows[-1])])
        assert linalg.rank(rows) == oracle(rows)
    assert linalg.rank([[0, 1], [1, 0]]) == 2 and linalg.rank([[0, 0], [0, 2], [0, 1]]) == 1


def test_generic_networks_classify_generic():
    rng = random.Random(5)
    for _ in range(60):
        theta = random_shallow(rng, 2, rng.randint(1, 5), 1)
        st = cs.classify(theta)
        rows = [cs._line(theta.row(i))[0] for i in range(theta.n)]
        if len(set(rows)) == theta.n:
            assert st.name == "generic" and st.pairs == () and st.classes == ()


# ---- the stratum claims ------------------------------------------------------------------------------

def verify(kind, theta, ev=None):
    return VERIFIERS[kind](ev or {}, ctx(theta))


def test_stratum_claims():
    generic = S([1, 2], [[1], [2]], [0, 1], [0])
    pairs = S([1, 2, 5], [[-2], [1], [1]], [2, -1, 0], [0])
    assert verify(ClaimKind.GENERIC_STRATUM, generic) == ("all 2 neurons have m_i ≠ 0, a_i ≠ 0 and pairwise "
                                                         "independent rows (recomputed)")
    assert verify(ClaimKind.ESSENTIAL_STRATUM, pairs).startswith("1 opposite pair(s) with nonzero kinks")
    with pytest.raises(CheckFailed, match=r"c: θ lies in the opposite-pairs stratum, not generic$"):
        verify(ClaimKind.GENERIC_STRATUM, pairs)
    with pytest.raises(CheckFailed, match=r"θ lies in the generic stratum, not opposite-pairs$"):
        verify(ClaimKind.ESSENTIAL_STRATUM, generic)
    with pytest.raises(CheckFailed, match=r"θ lies in the dead-output stratum \(neuron 1\), not generic$"):
        verify(ClaimKind.GENERIC_STRATUM, S([0, 2], [[1], [2]], [0, 1], [0]))
    assert verify(ClaimKind.EMPTY, S([], [], [], [0], m=1)) == "n = 0: the fibre of a constant is a point"
    with pytest.raises(CheckFailed, match=r"θ lies in the generic stratum, not empty"):
        verify(ClaimKind.EMPTY, generic)
    affine = Network.from_lists([([[1, 2]], [3])])
    assert verify(ClaimKind.EMPTY, affine) == "no hidden layer: the affine map x ↦ Wx + b determines W and b"
    deep = Network.from_lists([([[1]], [0]), ([[1], [2]], [0, 0]), ([[1, 1]], [0])])
    with pytest.raises(CheckFailed, match=r"the network has hidden layers \(1, 2\)"):
        verify(ClaimKind.EMPTY, deep)


# ---- the paper's condition (Proposition 24) -----------------------------------------------------------

def brute_beta(theta, j):
    w = [[theta.M[j][i] * a for a in theta.A[i]] for i in range(theta.n)]
    den = math.lcm(1, *[x.denominator for r in w for x in r])
    w = [[int(x * den) for x in r] for r in w]
    for beta in itertools.product((0, 1, -1), repeat=theta.n):
        if any(beta) and not any(sum(b * r[l] for b, r in zip(beta, w)) for l in range(theta.m)):
            return True
    return False


def test_vanishing_beta_agrees_with_brute_force():
    rng = random.Random(6)
    found = {True: 0, False: 0}
    for t in range(200):
        theta = random_rational_theta(rng, rng.randint(1, 2), rng.randint(1, 6 if t % 4 == 0 else 5),
                                       rng.randint(1, 2))
        if t % 3 == 0 and theta.n >= 2:        # plant β on a random support
            i, j = rng.sample(range(theta.n), 2)
            A = [list(a) for a in theta.A]
            A[j] = [theta.M[0][i] * x / theta.M[0][j] for x in A[i]]
            theta = S(theta.M, A, theta.b, theta.c, m=theta.m)
        for j in range(theta.k):
            beta = cs._vanishing_beta(theta, j)
            truth = brute_beta(theta, j)
            found[truth] += 1
            assert (beta is not None) == truth
            if beta is not None:
                assert len(beta) == theta.n and any(beta) and set(beta) <= {0, 1, -1}
                assert all(sum((beta[i] * theta.M[j][i] * theta.A[i][l] for i in range(theta.n)), F(0)) == 0
                           for l in range(theta.m))
    assert min(found.values()) > 30


def test_vanishing_beta_inside_one_half():
    # w = (1, −1, 5, 7): the only vanishing β lives in the left half (right half zero)
    theta = S([1, 1, 1, 1], [[1], [-1], [5], [7]], [0, 1, 2, 3], [0])
    beta = cs._vanishing_beta(theta, 0)
    assert beta in ((1, 1, 0, 0), (-1, -1, 0, 0))
    theta = S([1, 1, 1, 1], [[5], [7], [1], [-1]], [0, 1, 2, 3], [0])  # ... and in the right half
    assert cs._vanishing_beta(theta, 0) in ((0, 0, 1, 1), (0, 0, -1, -1))
    theta = S([1, 1, 1, 1, 1], [[3], [7], [2], [-1], [-4]], [0, 1, 2, 3, 4], [0])   # 3 − 7 + 2·... : 3 + 1 − 4
    assert brute_beta(theta, 0) and cs._vanishing_beta(theta, 0) is not None
    assert cs._vanishing_beta(S([1, 1], [[1], [3]], [0, 1], [0]), 0) is None
    # exact integers beyond 2^53: 2^53 + 1 and −2^53 do not cancel (they would in floating point)
    assert cs._vanishing_beta(S([1, 1], [[2**53 + 1], [-2**53]], [0, 1], [0]), 0) is None
    assert cs._vanishing_beta(S([1, 1], [[2**53 + 1], [-2**53 - 1]], [0, 1], [0]), 0) in ((1, 1), (-1, -1))


def test_paper_condition_claims(monkeypatch):
    v = VERIFIERS[ClaimKind.PAPER_CONDITION]
    holds = S([1, 1, 1], [[1], [3], [9]], [0, 1, 2], [0])
    fails = S([[1, 1, 1], [1, 2, 3]], [[1], [2], [3]], [0, 1, 2], [0, 0])   # output 1: 1 + 2 − 3 = 0
    assert v({"holds": True}, ctx(holds)).startswith("holds: no β")
    with pytest.raises(CheckFailed, match=r"claims the condition holds but β = \[.*\] vanishes \(output 1\)"):
        v({"holds": True}, ctx(fails))
    out2 = S([[1, 1, 1], [2, 1, -1]], [[1], [3], [5]], [0, 1, 2], [0, 0])   # output 2: 2 + 3 − 5 = 0
    assert v({"holds": False, "violation": {"beta": [1, 1, 1], "output": 1}}, ctx(out2)).endswith(
        "(output 2), recomputed")
    with pytest.raises(CheckFailed, match=r"vanishes \(output 2\)"):
        v({"holds": True}, ctx(out2))
    ok = v({"holds": False, "violation": {"beta": [1, 1, -1]}}, ctx(fails))
    assert ok == "fails: Σ β(i) v_i a_i = 0 for β = (1, 1, -1) (output 1), recomputed"
    with pytest.raises(CheckFailed, match="Σ β\\(i\\) v_i a_i ≠ 0 for the β given"):
        v({"holds": False, "violation": {"beta": [1, 1, 1]}}, ctx(fails))
    with pytest.raises(CheckFailed, match="gives no β"):
        v({"holds": False}, ctx(fails))
    for viol in ({"beta": [0, 0, 0]}, {"beta": [1, 2, -1]}, {"beta": [1, 1]}, {"beta": [1, 1, -1], "output": 2},
                 {"beta": [1, 1, -1], "output": -1}):
        with pytest.raises(CheckFailed, match="not a nonzero vector"):
            v({"holds": False, "violation": viol}, ctx(fails))
    assert v({"holds": None}, ctx(fails)).startswith("not enumerated")
    with pytest.raises(CheckFailed, match="holds must be true, false or null, got 'yes'"):
        v({"holds": "yes"}, ctx(fails))
    monkeypatch.setattr(cs, "PAPER_CONDITION_LIMIT", 2)
    with pytest.raises(CheckFailed, match="re-enumerates only up to n = 2"):
        v({"holds": True}, ctx(holds))
