"""Orbits, functional equivalence, minimal forms and stabilizers of shallow networks."""

import itertools
import random
from fractions import Fraction
from fractions import Fraction as F

import pytest

from reluid.analysis.shallow.function import equivalent, function_data
from reluid.analysis.shallow.minimal import is_minimal, minimal_form, ominus, zero_factor_reduction
from reluid.analysis.shallow.orbit import canonical_form, is_canonical, same_orbit
from reluid.analysis.shallow.stabilizer import stabilizer
from reluid.model.network import Shallow
from reluid.model.symmetry import GroupElement
from reluid.verdicts import Outcome
from tests.catalogue import CATALOGUE, by_name
from tests.strategies import random_generic, random_group_element, random_input, random_shallow

S = Shallow.make


# ---------------------------------------------------------------- orbits
@pytest.mark.parametrize("seed", range(40))
def test_canonical_form_is_orbit_invariant_and_witnessed(seed):
    rng = random.Random(seed)
    t = random_shallow(rng, rng.randint(1, 3), rng.randint(1, 6), rng.randint(1, 2), nonzero=False)
    g = random_group_element(rng, t.n)
    t2 = g.act(t)
    c1, g1 = canonical_form(t)
    c2, g2 = canonical_form(t2)
    assert c1 == c2 and g1.act(t) == c1 and g2.act(t2) == c2
    assert is_canonical(c1)
    h = same_orbit(t, t2)
    assert h is not None and h.act(t) == t2


def test_group_action_inverse_and_composition():
    rng = random.Random(1)
    t = random_shallow(rng, 2, 5, 2)
    g, h = random_group_element(rng, 5), random_group_element(rng, 5)
    assert g.inverse().act(g.act(t)) == t
    assert g.compose(h).act(t) == g.act(h.act(t))


def test_different_orbits_detected():
    assert same_orbit(by_name("theta1").theta, by_name("theta2").theta) is None
    t = S([1, 2], [[1], [3]], [0, 1], [0])
    assert same_orbit(t, S([1, 2], [[1], [3]], [0, 1], [1])) is None      # c differs
    assert same_orbit(t, S([2, 1], [[1], [3]], [0, 1], [0])) is None      # outputs swapped


# ---------------------------------------------------------------- function data / equivalence
def test_theta1_theta2_equal_functions_different_orbits():
    eq = equivalent(by_name("theta1").theta, by_name("theta2").theta)
    assert eq.equal and eq.same_orbit is False


@pytest.mark.parametrize("seed", range(30))
def test_function_data_agrees_with_evaluation(seed):
    rng = random.Random(seed)
    t = random_shallow(rng, rng.randint(1, 3), rng.randint(0, 6), rng.randint(1, 2), nonzero=False)
    fd = function_data(t)
    for _ in range(10):
        x = random_input(rng, t.m)
        assert fd(x) == t(x)


@pytest.mark.parametrize("seed", range(30))
def test_permuted_rescaled_copy_is_equal_and_same_orbit(seed):
    rng = random.Random(100 + seed)
    t = random_shallow(rng, 2, 5, 2, nonzero=False)
    g = random_group_element(rng, 5)
    eq = equivalent(t, g.act(t))
    assert eq.equal and eq.same_orbit and eq.orbit.act(t) == g.act(t)


@pytest.mark.parametrize("seed", range(25))
def test_single_weight_perturbation_changes_function_with_valid_input(seed):
    """No dead, constant or proportional neurons: every 1/1000 perturbation is detected."""
    rng = random.Random(200 + seed)
    t = random_generic(rng, 2, 4, 2)
    net = t.to_network()
    for li, L in enumerate(net.layers):
        for r in range(L.n_out):
            for cidx in range(L.n_in + 1):
                layers = [[list(map(list, X.weight)), list(X.bias)] for X in net.layers]
                if cidx < L.n_in:
                    layers[li][0][r][cidx] += F(1, 1000)
                else:
                    layers[li][1][r] += F(1, 1000)
                from reluid.model.network import Network
                t2 = Network.from_lists(layers).shallow()
                eq = equivalent(t, t2)
                assert not eq.equal
                assert t(eq.input) == eq.outputs[0] != eq.outputs[1] == t2(eq.input)


def test_equivalence_across_widths():
    # σ(x) + σ(x) (n = 2) equals 2σ(x) (n = 1)
    assert equivalent(S([1, 1], [[1], [1]], [0, 0], [0]), S([2], [[1]], [0], [0])).equal
    eq = equivalent(S([1], [[1]], [0], [0]), S([1], [[1]], [1], [0]))
    assert not eq.equal and eq.outputs[0] != eq.outputs[1]


def test_distinguishing_input_for_kink_difference_near_other_hyperplanes():
    t1 = S([1, 1, 1], [[1, 0], [0, 1], [1, 1]], [0, 0, 0], [0])
    t2 = S([1, 1, 1], [[1, 0], [0, 1], [1, 1]], [0, 0, F(1, 10**6)], [0])
    eq = equivalent(t1, t2)
    assert not eq.equal and t1(eq.input) != t2(eq.input)


# ---------------------------------------------------------------- minimal form (Definition 3)
EXAMPLE_1 = [
    # (parameter, minimal form, 0-factor rank): Ramakrishnan 2026, Example 1 (table reconstructed from the PDF)
    (S([0, 0, 0], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [1, 2, 3], [5]),
     S([0, 0, 0], [[0] * 3] * 3, [0, 0, 0], [5]), 3),
    (S([2, 3, -1], [[4, 4, 4], [1, 1, 1], [5, 2, 1]], [0, 0, 0], [5]),
     S([1, -1, 0], [[11, 11, 11], [5, 2, 1], [0, 0, 0]], [0, 0, 0], [5]), 1),
    (S([1, 1, -1], [[2, 4, 0], [1, 1, 3], [0, 0, 0]], [7, 2, 3], [7]),
     S([1, 1, 0], [[2, 4, 0], [1, 1, 3], [0, 0, 0]], [7, 2, 0], [4]), 1),
    (S([9, 1, -5], [[4, 0, 7], [1, 7, 3], [2, 1, 3]], [0, 2, 9], [8]),
     S([1, 1, -1], [[36, 0, 63], [1, 7, 3], [10, 5, 15]], [0, 2, 45], [8]), 0),
]


@pytest.mark.parametrize("theta, expected, rank", EXAMPLE_1)
def test_paper_example_1_minimal_forms(theta, expected, rank):
    mf = minimal_form(theta)
    assert mf.theta == expected and mf.zero_factor_rank == rank
    assert is_minimal(expected) and equivalent(theta, expected).equal


@pytest.mark.parametrize("seed", range(30))
def test_minimal_form_properties(seed):
    rng = random.Random(300 + seed)
    t = random_shallow(rng, rng.randint(1, 2), rng.randint(1, 6), 1, lo=-2, hi=2, nonzero=False)
    mf = minimal_form(t)
    assert equivalent(t, mf.theta).equal                       # same function
    assert minimal_form(mf.theta).theta == mf.theta             # idempotent
    g = random_group_element(rng, t.n)
    assert minimal_form(g.act(t)).theta == mf.theta             # orbit invariant
    r = zero_factor_reduction(t)
    assert r.n == t.n - mf.zero_factor_rank and equivalent(t, r).equal


def test_minimal_form_detects_exact_cancellation_that_floats_miss():
    # v_1 σ(r) + v_2 σ(λ r) with v_1 + λ v_2 = 0 exactly; λ = 1/10 has no finite binary expansion
    t = S([1, -10], [[F(3)], [F(3, 10)]], [F(7), F(7, 10)], [0])
    mf = minimal_form(t)
    assert mf.zero_factor_rank == 2 and not any(mf.theta.M[0])


def test_ominus_realises_the_difference():
    t1, t2 = by_name("theta1").theta, by_name("theta2").theta
    d = ominus(t1, t2)
    assert d.n == 6 and function_data(d) == function_data(S([0], [[0, 0]], [0], [0]))
    rng = random.Random(5)
    a, b = random_shallow(rng, 2, 3), random_shallow(rng, 2, 2)
    x = random_input(rng, 2)
    assert ominus(a, b)(x)[0] == a(x)[0] - b(x)[0]


# ---------------------------------------------------------------- stabilizer (Theorem 2)
@pytest.mark.parametrize("ex", CATALOGUE, ids=lambda e: e.name)
def test_stabilizer_matches_catalogue(ex):
    st = stabilizer(ex.theta)
    assert st.finite_order == ex.stabilizer_order and st.n_prime == ex.n_prime
    for g in st.generators:
        assert g.act(ex.theta) == ex.theta


def _brute_stabilizer_finite_part(t):
    """All permutations π for which positive scalings fixing θ exist, restricted to non-zero neurons."""
    zero = {i for i in range(t.n) if not any(t.row(i)) and not any(t.out(i))}
    count = 0
    for perm in itertools.permutations(range(t.n)):
        if any((i in zero) != (perm[i] in zero) for i in range(t.n)):
            continue
        if any(i in zero and perm[i] != i for i in range(t.n)):
            continue
        ok = True
        scale = []
        for i in range(t.n):
            j = perm[i]
            if i in zero:
                scale.append(F(1))
                continue
            ri, rj = t.row(i), t.row(j)
            lead = next(((x, y) for x, y in zip(ri, rj) if x or y), None)
            if lead is None:
                oi, oj = t.out(i), t.out(j)
                lead2 = next(((x, y) for x, y in zip(oi, oj) if x or y), None)
                lam = lead2[0] / lead2[1] if lead2 and lead2[1] else None
            else:
                lam = lead[1] / lead[0] if lead[0] else None
            if lam is None or lam <= 0:
                ok = False
                break
            scale.append(lam)
        if ok and GroupElement(perm, tuple(scale)).act(t) == t:
            count += 1
    return count


@pytest.mark.parametrize("seed", range(30))
def test_stabilizer_order_against_brute_force(seed):
    rng = random.Random(400 + seed)
    base = random_shallow(rng, 1, 3, 1, lo=-2, hi=2, nonzero=False)
    # plant copies of a neuron, rescaled, to create nontrivial stabilizers
    i = rng.randrange(base.n)
    lam = F(rng.randint(1, 3))
    t = Shallow.make([list(base.M[0]) + [base.M[0][i] / lam]], [list(r) for r in base.A] + [[x * lam for x in base.A[i]]],
                     list(base.b) + [base.b[i] * lam], list(base.c))
    assert stabilizer(t).finite_order == _brute_stabilizer_finite_part(t)


def test_stabilizer_condition_scales_outputs_inversely():
    """The paper prints λ(m_i, a_i, b_i) = (m_j, a_j, b_j); the derivation gives m_j = m_i/λ (docs/mathematics.md §5).

    θ = 2σ(x+1) + σ(2x+2): rows satisfy (a_2,b_2) = 2(a_1,b_1) and m_2 = m_1/2, so
    diag(2, 1/2)(1 2) fixes θ although λ m_1 ≠ m_2.  Conversely σ(x+1) + 2σ(2x+2)
    satisfies λ(m_1,a_1,b_1) = (m_2,a_2,b_2) but diag(2,1/2)(1 2) moves it.
    """
    t = by_name("proportional").theta
    g = GroupElement((1, 0), (F(2), F(1, 2)))
    assert g.act(t) == t and stabilizer(t).finite_order == 2
    t_notes = S([1, 2], [[1], [2]], [1, 2], [0])
    assert g.act(t_notes) != t_notes and stabilizer(t_notes).finite_order == 1


@pytest.mark.parametrize("seed", range(12))
def test_stabilizer_complete_according_to_z3(seed):
    """Theorem 2 cross-check: z3 finds no fixing element outside the computed classes."""
    from reluid.smt.stabilizer import stabilizer_escapes

    rng = random.Random(500 + seed)
    base = random_shallow(rng, 1, 3, 1, lo=-2, hi=2, nonzero=False)
    i = rng.randrange(base.n)
    t = Shallow.make([list(base.M[0]) + [base.M[0][i] / 2]], [list(r) for r in base.A] + [[x * 2 for x in base.A[i]]],
                     list(base.b) + [base.b[i] * 2], list(base.c))
    st = stabilizer(t)
    label = {}
    for ci, comp in enumerate(st.components):
        for j in comp:
            label[j] = ci
    classes = [("zero" if j in st.zero_neurons else label.get(j, f"single{j}")) for j in range(t.n)]
    assert stabilizer_escapes(t, classes) is Outcome.NONE
    # and with a deliberately wrong (too fine) labelling z3 must find an escape when |S| > 1
    if st.components:
        wrong = list(range(t.n))
        assert stabilizer_escapes(t, wrong) is Outcome.FOUND


# ---------------------------------------------------------------------------
# the integer fast paths (rays shared by function data, orbits and minimal form) agree with the general ones
# ---------------------------------------------------------------------------

def _messy_theta(rng, m, n, k, degenerate):
    vals = [1, -1, 2, -3, Fraction(1, 2), Fraction(-2, 3), Fraction(5, 4)] + ([0, 0] if degenerate else [])
    M = [[rng.choice(vals) for _ in range(n)] for _ in range(k)]
    A = [[rng.choice(vals) for _ in range(m)] for _ in range(n)]
    b = [rng.choice(vals + [0]) for _ in range(n)]
    for _ in range(rng.randint(0, 2)):           # proportional and opposite rows
        if n >= 2:
            i, j = rng.sample(range(n), 2)
            s = rng.choice([2, Fraction(1, 3), -1, -2, Fraction(-1, 2)])
            A[j] = [s * x for x in A[i]]
            b[j] = s * b[i]
            if rng.random() < 0.5 and s > 0:      # cancelling outputs
                for t in range(k):
                    M[t][j] = -Fraction(M[t][i]) / s
    return Shallow.make(M, A, b, [rng.choice(vals) for _ in range(k)])


@pytest.mark.parametrize("seed", range(3))
def test_fast_paths_agree_with_the_general_ones(seed):
    from reluid.analysis.shallow.function import _distinguishing_by_rays, _function_parts, neuron_rays
    from reluid.analysis.shallow.minimal import _minimal_form_by_rays, _minimal_form_general
    from reluid.analysis.shallow.orbit import _same_orbit_keys
    from reluid.model.symmetry import GroupElement

    rng = random.Random(seed)
    fast_min = fast_dist = 0
    for trial in range(300):
        m, k, n = rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 7)
        theta = _messy_theta(rng, m, n, k, degenerate=trial % 3 == 0)
        fm = _minimal_form_by_rays(theta)
        gm = _minimal_form_general(theta)
        if fm is not None:
            fast_min += 1
            assert (fm.theta, fm.steps, fm.zero_factor_rank) == (gm.theta, gm.steps, gm.zero_factor_rank)
        perm = list(range(n))
        rng.shuffle(perm)
        g = GroupElement(tuple(perm), tuple(Fraction(rng.randint(1, 5), rng.randint(1, 4)) for _ in range(n)))
        t2 = g.act(theta)
        h = same_orbit(theta, t2)
        assert h == _same_orbit_keys(theta, t2) and h.act(theta) == t2
        M2 = [list(r) for r in theta.M]
        M2[rng.randrange(k)][rng.randrange(n)] += rng.choice([1, Fraction(1, 3)])
        other = Shallow.make(M2, [list(r) for r in theta.A], list(theta.b), list(theta.c))
        R1, R2 = neuron_rays(theta), neuron_rays(other)
        p1, p2 = _function_parts(theta, R1), _function_parts(other, R2)
        assert (p1 == p2) == (function_data(theta) == function_data(other))
        if p1 != p2:
            out = _distinguishing_by_rays(theta, other, R1[0], R2[0], p1[0], p2[0], seed=trial)
            if out is not None:
                fast_dist += 1
                x, y1, y2 = out
                assert y1 != y2 and theta(x) == y1 and other(x) == y2
    assert fast_min > 100 and fast_dist > 100


def test_large_networks_take_the_integer_path():
    from reluid.analysis.shallow.function import FAST_DISTINGUISH_MIN_N

    n = FAST_DISTINGUISH_MIN_N // 2 + 1
    rng = random.Random(9)
    A = [[Fraction(rng.randint(-99, 99), rng.choice([8, 16, 32])) or Fraction(1) for _ in range(3)] for _ in range(n)]
    v = [Fraction(rng.choice([-3, -1, 1, 2]), rng.choice([4, 64])) for _ in range(n)]
    theta = Shallow.make([v], A, [Fraction(rng.randint(-50, 50), 16) for _ in range(n)], [0])
    w = list(v)
    w[17] += Fraction(1, 2**30)
    other = Shallow.make([w], A, list(theta.b), [0])
    eq = equivalent(theta, other)
    assert not eq.equal and theta(eq.input) == eq.outputs[0] and other(eq.input) == eq.outputs[1]
    assert eq.outputs[0] != eq.outputs[1]
    mf = minimal_form(theta)
    assert equivalent(mf.theta, theta).equal
