"""The flip-set verifiers (reluid/checker/flipsets.py) on small networks whose kernel lattices are known by hand.

Each rejection by its exact message and claim, the exact work charged and what is recorded as searched,
and the exact verdict text, for the methods whose paths the comparisons with oracles in
test_flipsets_checker.py leave unobserved: lattice-cvp (fplll's enumeration; a hand-made basis of
ker U ∩ Z³), lattice-enum, the meet in the middle, enumerate, the separation split and the fibre's orbits.
"""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction

import pytest

from reluid.checker import flipsets as cf
from reluid.checker.registry import VERIFIERS, Budget, Context, WorkLimit
from reluid.errors import CheckFailed
from reluid.model.network import Shallow

#: fplll's enumeration (the lattice extra) is what a lattice-cvp certificate is checked with
needs_fplll = pytest.mark.skipif(importlib.util.find_spec("fpylll") is None, reason="pip install reluid[lattice]")


def theta_of(v):
    """k = m = 1, a_i = 1: u_i = v_i, so U = (v_1 … v_n)."""
    return Shallow.make([list(v)], [[1]] * len(v), [0] * len(v), [0])


#: U = (1 2 4): no flip set; ker U ∩ Z³ has the basis (−2, 1, 0), (−4, 0, 1) (x_1 = −2x_2 − 4x_3)
FREE = theta_of((1, 2, 4))
#: U = (1 2 −3): the flip set {1, 2, 3}; (1, 1, 1) = b_1 + b_2 for the basis (−2, 1, 0), (3, 0, 1)
FLIP = theta_of((1, 2, -3))
INVERSE = [[0, 0], [1, 0], [0, 1]]                 # B·C = I for both bases


def run(theta, ev, claim="f", limit=None):
    c = Context(theta.to_network(), claim, Budget() if limit is None else Budget(limit=limit))
    return VERIFIERS["no-flip-set"](json.loads(json.dumps(ev)), c), c.budget


def refused(theta, ev, message, claim="f"):
    with pytest.raises(CheckFailed) as e:
        run(theta, ev, claim)
    assert (e.value.claim, e.value.reason) == (claim, message)


def cvp(basis, radius, points, nodes=1000, **kw):
    return {"method": "lattice-cvp", "p": 5, "basis": basis, "inverse": INVERSE, "rank_rows": [0], "rank_cols": [0],
            "radius": radius, "points": points, "nodes": nodes, **kw}


FREE_B = [[-2, 1, 0], [-4, 0, 1]]
FLIP_B = [[-2, 1, 0], [3, 0, 1]]


# ---- lattice-cvp ------------------------------------------------------------------------------

@needs_fplll
def test_lattice_cvp_accepts_the_honest_ball_with_its_exact_work():
    text, budget = run(FREE, cvp(FREE_B, "1/4", [[0, 0]]))
    assert text == ("lattice-cvp: ker U ∩ Z^3 has a saturated basis of 2 vectors (rank U = 1 mod 5); fplll's "
                    "enumeration of the ball around the projection of ½·1, over a squared radius 0.25 at least the "
                    "proved safe bound, visited at most 1000 nodes and met 1 lattice point(s), none a flip set")
    # the safe radius (2·2·8), the enumeration (1000 // 16 + 1), testing 1 point (n·r = 3·2)
    assert budget.used == 32 + 63 + 6
    assert budget.searches == ["the lattice points of a ball, by fplll's enumeration (1,000 nodes)"]


@needs_fplll
def test_lattice_cvp_tests_every_point_it_meets():
    points = sorted(set(_ball(FREE_B, 10)))
    assert len(points) == 7
    text, budget = run(FREE, cvp(FREE_B, "10", [list(p) for p in points]))
    assert text.endswith("over a squared radius 10 at least the proved safe bound, visited at most 1000 nodes and met "
                         "7 lattice point(s), none a flip set")
    assert budget.used == 32 + 63 + 7 * 3 * 2


def _ball(basis, radius):
    from reluid.checker.compiled_search import ball_points

    d, a = cf._gram_schmidt(basis, 3)
    return ball_points(Context(FREE.to_network(), "x"), basis, d, a, 3, Fraction(radius), 1000)


@needs_fplll
def test_lattice_cvp_finds_a_planted_flip_set():
    refused(FLIP, cvp(FLIP_B, "1", [[1, 1], [0, 0]]), "F = {1, 2, 3} is a flip set, contradicting the claim")
    # the ball of squared radius 1 around t holds (1, 1) (x = 1) and 0 only; the point must be listed
    refused(FLIP, cvp(FLIP_B, "1", [[0, 0]]),
            "the enumeration meets 1 lattice point(s) the certificate does not list")


@needs_fplll
def test_lattice_cvp_refusals():
    refused(FREE, cvp(FREE_B, "1/4", []), "the enumeration meets 1 lattice point(s) the certificate does not list")
    refused(FREE, cvp(FREE_B, "1/4", [[0, 0], [5, 5], [1, 0]]),
            "the certificate lists 2 point(s) the enumeration does not meet")
    refused(FREE, cvp(FREE_B, "1/4", [[0, 0], [0, 0]]), "points lists a coefficient vector twice")
    refused(FREE, cvp(FREE_B, "1/4", [[0, 0, 0]]), "points must be a list of 2-tuples of integers")
    refused(FREE, cvp(FREE_B, "1/3", [[0, 0]]), "the radius must be a double (the enumeration runs with it exactly)")
    refused(FREE, cvp(FREE_B, "1/4", [[0, 0]], nodes=0), "the enumeration needs 1 nodes, more than the certificate's 0")
    refused(FREE, cvp(FREE_B, "1/4", [[0, 0]], nodes="x"), "nodes: not an integer or 'p/q' string: 'x'")
    refused(FREE, cvp(FREE_B, "x", [[0, 0]]), "radius: not an integer or 'p/q' string: 'x'")
    refused(FREE, cvp([[-2, 1, 0], [-4, 0, 2]], "1/4", [[0, 0]]),
            "a basis vector is not in the kernel of U (output 1)")


def test_lattice_cvp_on_a_trivial_kernel():
    ev = {"method": "lattice-cvp", "p": 5, "basis": [], "inverse": [[]], "rank_rows": [0], "rank_cols": [0],
          "radius": "x", "points": "y", "nodes": 3}
    refused(theta_of((2,)), ev, "radius: not an integer or 'p/q' string: 'x'")
    text, budget = run(theta_of((2,)), {**ev, "radius": "0"})
    assert text == "lattice-cvp: ker U = 0 (rank U = n = 1 mod 5), no flip set" and budget.searches == []


def test_lattice_cvp_without_gram_schmidt_data(monkeypatch):
    def dependent(B, n):
        raise ArithmeticError("the basis vectors are dependent")

    monkeypatch.setattr(cf, "_gram_schmidt", dependent)
    refused(FREE, cvp(FREE_B, "1/4", [[0, 0]]), "the basis has no Gram–Schmidt data (the basis vectors are dependent)")


@needs_fplll
def test_lattice_cvp_work_limit():
    with pytest.raises(WorkLimit) as e:
        run(FREE, cvp(FREE_B, "1/4", [[0, 0]]), limit=32 + 63 + 5)
    assert e.value.reason.startswith("testing the 1 lattice points of the ball takes 6 steps")
    run(FREE, cvp(FREE_B, "1/4", [[0, 0]]), limit=32 + 63 + 6)


# ---- the Gram–Schmidt data of the ball ----------------------------------------------------------

def test_gram_schmidt_data_by_hand():
    # Gram matrix of (b_1, b_2, 1) = [[5, 8, −1], [8, 17, −3], [−1, −3, 3]]; its leading minors 1, 5, 21, 49
    # (dist²(1, V) = 49/21 = 7/3 = ⟨1, (1, 2, 4)⟩² / 21)
    d, a = cf._gram_schmidt(FREE_B, 3)
    assert d == [1, 5, 21, 49]
    assert [a[1][0], a[2][0], a[2][1]] == [8, -1, -7]
    assert cf._gram_schmidt([[1, 0, 0]], 3)[0] == [1, 1, 2]        # ‖b_1‖² = 1 is a valid first pivot
    with pytest.raises(ArithmeticError) as e:
        cf._gram_schmidt([[1, 1, 0], [2, 2, 0]], 3)
    assert str(e.value) == "the basis vectors are dependent"
    with pytest.raises(ArithmeticError) as e:
        cf._gram_schmidt([[0, 0, 0]], 3)
    assert str(e.value) == "the basis vectors are dependent"


# ---- rank, enumerate, meet in the middle: the work and the searches ------------------------------

#: k = 3, m = 1, n = 3: U = M·diag(A) with det M = 3, nonzero mod 5
RANK3 = Shallow.make([[1, 2, 0], [0, 1, 1], [1, 0, 1]], [[1], [1], [1]], [0, 0, 0], [0, 0, 0])


def test_the_rank_minor_is_charged_by_its_size():
    ev = {"method": "rank", "p": 5, "rows": [0, 1, 2]}
    text, budget = run(RANK3, ev)
    assert text == "rank: the 3 columns of U are independent (an 3 × 3 minor is nonzero mod 5)"
    assert budget.used == 3 * (3 + 3 + 1) and budget.searches == []
    with pytest.raises(WorkLimit) as e:
        run(RANK3, ev, limit=20)
    assert e.value.reason.startswith("the 3 × 3 minor modulo 5 takes 21 steps")


def test_enumerate_charges_and_records_its_points():
    P = 2 ** 31 - 1
    text, budget = run(FREE, {"method": "enumerate", "p": P, "rows": [0]})
    assert text == f"enumerate: none of the 2^2 0/1 points of ker U_S mod {P} is a flip set"
    assert budget.used == 4 and budget.searches == [f"the 2^2 0/1 points of ker U_S mod {P}"]
    with pytest.raises(WorkLimit) as e:
        run(FREE, {"method": "enumerate", "p": P, "rows": []}, limit=7)
    assert e.value.reason.startswith(f"enumerating the 2^3 0/1 points of ker U_S mod {P} takes 8 steps")
    refused(FLIP, {"method": "enumerate", "p": P, "rows": []}, "F = {1, 2, 3} is a flip set, contradicting the claim")


def test_the_meet_in_the_middle_charges_both_halves():
    five = theta_of((1, 2, 4, 8, 16))
    text, budget = run(five, {"method": "mitm", "n": 5})
    assert text == "mitm: meet in the middle over 2 × 2^3 subset sums found no flip set (n = 5)"
    assert budget.used == 4 + 8 and budget.searches == ["meet in the middle over 2^2 + 2^3 subset sums"]
    with pytest.raises(WorkLimit) as e:
        run(five, {"method": "mitm", "n": 5}, limit=11)
    assert e.value.reason.startswith("meet in the middle over 2^2 + 2^3 subset sums takes 12 steps")
    seven = theta_of((1, 2, 4, 8, 16, 32, -63))                          # the whole set is the flip set
    refused(seven, {"method": "mitm", "n": 7}, "F = {1, 2, 3, 4, 5, 6, 7} is a flip set, contradicting the claim")


# ---- separation-split -----------------------------------------------------------------------------

#: U = (−1, 1, 3) with Y = (1): scores −1, 1, 3, τ = 1; neuron 2 (score 1 = τ) must be in the rest set,
#: and {1, 2} is a flip set
TIE = theta_of((-1, 1, 3))


def split(rest, sub):
    return {"method": "separation-split", "y": [[1]], "rest": rest, "sub": sub}


def test_a_neuron_scoring_exactly_tau_must_be_in_the_rest():
    refused(TIE, split([0], {"method": "mitm", "n": 1}),
            "neuron 2 has m_iᵀ Y a_i ≤ τ (the total negative score) but is not in the rest set")
    refused(TIE, split([0, 1], {"method": "mitm", "n": 2}), "F = {1, 2} is a flip set, contradicting the claim")
    ok = theta_of((-1, 2, 3))                                       # τ = 1: neuron 1 alone is at or below it
    text, _ = run(ok, split([0], {"method": "mitm", "n": 1}))
    assert text == ("separation-split: every flip set lies among the 1 neurons where m_iᵀ Y a_i ≤ τ (τ = the total "
                    "negative score), and there mitm: meet in the middle over 2 × 2^1 subset sums found no flip set "
                    "(n = 1)")


def test_separation_split_refusals():
    ok = theta_of((-1, 2, 3))
    refused(ok, split([0, 3], {"method": "mitm", "n": 1}), "rest: index out of range [0, 3)")
    methods = "rank, lattice, lattice-enum, lattice-cvp, enumerate, mitm"
    refused(ok, split([0], {"method": "separation", "y": [[1]]}),
            f"the rest set needs a {methods} certificate, got 'separation'")
    refused(ok, split([0], [1]), f"the rest set needs a {methods} certificate, got 'list'")
    refused(ok, split([0], {"method": "rank", "p": 5}),
            "rank evidence must have the fields ['method', 'p', 'rows'], got ['method', 'p']")


# ---- lattice-enum: the exact enumeration ----------------------------------------------------------

def unit_basis(v):
    """ker (v_1 … v_n) ∩ Zⁿ for v_1 = 1: b_i = e_i − v_i e_1 (i ≥ 2), and C with B·C = I."""
    n = len(v)
    B = [[-v[i]] + [int(j == i) for j in range(1, n)] for i in range(1, n)]
    C = [[0] * (n - 1)] + [[int(j == i) for j in range(n - 1)] for i in range(n - 1)]
    return B, C


def enum(v, nodes=10000):
    B, C = unit_basis(v)
    return {"method": "lattice-enum", "p": 101, "basis": B, "inverse": C, "rank_rows": [0], "rank_cols": [0],
            "nodes": nodes}


@pytest.mark.parametrize("v,nodes", [((1, 2, 4, 8, 16, 5), 6), ((1, 9, 2, -5, 6, 7), 14),
                                     ((1, -3, 5, 7, 7, 1, 7, 7), 11)])
def test_lattice_enum_visits_exactly_its_nodes(v, nodes):
    text, budget = run(theta_of(v), enum(v))
    assert text == (f"lattice-enum: ker U ∩ Z^{len(v)} has a saturated basis of {len(v) - 1} vectors (rank U = 1 mod "
                    f"101); the exact enumeration of the ball around the projection of ½·1 that holds every 0/1 kernel "
                    f"vector visited {nodes} nodes and found no flip set")
    assert budget.searches == ["the lattice points of a ball"]
    run(theta_of(v), enum(v, nodes))
    refused(theta_of(v), enum(v, nodes - 1), f"the enumeration needs more than the certificate's {nodes - 1} nodes")


@pytest.mark.parametrize("v,F", [((1, 2, 4, 8, 16, -7), "1, 2, 3, 6"), ((1, 3, -2, 5, 7, -4), "1, 3, 4, 6"),
                                 ((1, -1, 2, 2), "1, 2"), ((1, 1, 1, -3), "1, 2, 3, 4")])
def test_lattice_enum_meets_planted_flip_sets(v, F):
    refused(theta_of(v), enum(v), f"F = {{{F}}} is a flip set, contradicting the claim")


def test_lattice_enum_node_bounds_and_labels(monkeypatch):
    trivial = {"method": "lattice-enum", "p": 5, "basis": [], "inverse": [[]], "rank_rows": [0], "rank_cols": [0],
               "nodes": 0}
    text, budget = run(theta_of((2,)), trivial)
    assert text == "lattice-enum: ker U = 0 (rank U = n = 1 mod 5), no flip set" and budget.searches == []
    refused(theta_of((2,)), {**trivial, "nodes": -1}, f"nodes = -1 is outside [0, {cf.LATTICE_ENUM_NODE_LIMIT}]")
    refused(theta_of((2,)), {**trivial, "nodes": cf.LATTICE_ENUM_NODE_LIMIT + 1},
            f"nodes = {cf.LATTICE_ENUM_NODE_LIMIT + 1} is outside [0, {cf.LATTICE_ENUM_NODE_LIMIT}]")
    refused(theta_of((2,)), {**trivial, "nodes": "x"}, "nodes: not an integer or 'p/q' string: 'x'")

    def no_data(B, n):
        raise ArithmeticError("the basis vectors are dependent")

    monkeypatch.setattr(cf, "_ball_data", no_data)
    refused(FREE, enum((1, 2, 4)), "the basis has no Gram–Schmidt data (the basis vectors are dependent)")


def test_the_ball_data_are_exact_floors():
    S = 1 << 48
    q, mu, centre, rhs = cf._ball_data(FREE_B, 3)          # d = 1, 5, 21, 49; a[1][0] = 8, a[2][0] = −1, a[2][1] = −7
    assert q == [5 * S, 21 * S // 5] and mu == [[], [8 * S // 5]]
    assert centre == [-S // 10, -7 * S // 42] and rhs == (3 * 21 - 49) * S ** 3 // (4 * 21)
    assert all(type(x) is int for x in q + mu[1] + centre + [rhs])


def test_signed_support_reads_plus_and_minus_zero_one_vectors():
    B = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert cf._signed_support((1, 1, 1), B, 3) == {0, 1, 2}
    assert cf._signed_support((-1, 0, -1), B, 3) == {0, 2}
    assert cf._signed_support((0, -1, 0), B, 3) == {1}
    assert cf._signed_support((1, -1, 0), B, 3) is None                # mixed signs
    assert cf._signed_support((-1, 1, 0), B, 3) is None
    assert cf._signed_support((2, 0, 0), B, 3) is None
    assert cf._signed_support((0, 0, -2), B, 3) is None
    assert cf._signed_support((0, 0, 0), B, 3) is None                 # 0 is not a flip set
    assert cf._signed_support((1, 1), [[1, -1, 0], [0, 1, 1]], 3) == {0, 2}


# ---- lattice-enum forgeries that a pruning error would accept ------------------------------------

@pytest.mark.parametrize("v,B,C,F", [
    # other bases of ker U ∩ Zⁿ (b_i += k·b_j), under which the flip point lies two steps below a level's centre,
    # or the bound of a level is taken from a stale deeper level
    ((1, 3, -3, -2), [[-8, 2, 0, -1], [1, 2, 1, 2], [-11, 3, 0, -1]],
     [[0, 0, 0], [-1, 0, 1], [8, 1, -6], [-3, 0, 2]], "2, 3"),
    ((1, -2, -3, -2, 3), [[-2, 1, 0, -2, 0], [5, -1, 1, 2, 0], [-11, 2, -2, -3, 1], [-7, 2, 0, -4, 1]],
     [[0, 0, 0, 0], [5, 4, 2, -2], [1, 1, 0, 0], [2, 2, 1, -1], [-2, 0, 0, 1]], "3, 5"),
    ((1, 1, -3, -2, -2, -3), [[109, 5, 12, 0, 24, 10], [45, 2, 5, 0, 10, 4], [2, 0, 0, 1, 0, 0], [2, 0, 0, 0, 1, 0],
                              [8, 0, 1, 0, 1, 1]],
     [[0, 0, 0, 0, 0], [1, -2, 0, -2, -2], [-2, 5, 0, -2, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0], [2, -5, 0, 1, 1]], None),
])
def test_lattice_enum_finds_flip_points_under_other_bases(v, B, C, F):
    ev = {"method": "lattice-enum", "p": 101, "basis": B, "inverse": C, "rank_rows": [0], "rank_cols": [0],
          "nodes": 100000}
    with pytest.raises(CheckFailed) as e:
        run(theta_of(v), ev)
    assert e.value.reason.endswith("is a flip set, contradicting the claim")
    if F:
        assert e.value.reason == f"F = {{{F}}} is a flip set, contradicting the claim"


# ---- separation ------------------------------------------------------------------------------------

def test_separation_by_its_exact_scores():
    text, budget = run(FREE, {"method": "separation", "y": [[1]]})
    assert text == ("separation: m_iᵀ Y a_i > 0 for all 3 neurons, so every nonempty sum Σ_(i∈F) m_i a_iᵀ pairs with "
                    "Y to a positive number")
    assert budget.used == 3 * (1 + 1) and budget.searches == []
    refused(FREE, {"method": "separation", "y": [[-1]]}, "y does not separate: m_iᵀ Y a_i = a negative number for "
                                                         "neuron 1")
    refused(theta_of((1, 2, -4)), {"method": "separation", "y": [[1]]},
            "y does not separate: m_iᵀ Y a_i = a negative number for neuron 3")
    zero = Shallow.make([[1, 2, 3]], [[1, 0], [0, 1], [1, 1]], [0, 0, 0], [0])       # Y = (1, 0): neuron 2 scores 0
    refused(zero, {"method": "separation", "y": [[1, 0]]}, "y does not separate: m_iᵀ Y a_i = 0 for neuron 2")
    text, _ = run(zero, {"method": "separation", "y": [[1, 1]]})
    assert text.startswith("separation: m_iᵀ Y a_i > 0 for all 3 neurons")
    refused(FREE, {"method": "separation", "y": [[1], [1]]}, "y must be a list of k = 1 rows")
    refused(FREE, {"method": "separation", "y": "1"}, "y must be a list of k = 1 rows")
    refused(FREE, {"method": "separation", "y": [[2 ** 64]]}, "an entry of y is not below 2^64")
    refused(FREE, {"method": "separation", "y": [[-2 ** 64]]}, "an entry of y is not below 2^64")
    run(FREE, {"method": "separation", "y": [[2 ** 64 - 1]]})


def test_separation_rows_are_read_and_charged_by_name():
    refused(FREE, {"method": "separation", "y": [[1, 2]]}, "y row has 2 entries, expected 1")
    refused(FREE, {"method": "separation", "y": [["a"]]}, "y row: not an integer or 'p/q' string: 'a'")
    with pytest.raises(WorkLimit) as e:
        run(FREE, {"method": "separation", "y": [[1]]}, limit=5)
    assert e.value.reason.startswith("the separation scores m_iᵀ Y a_i takes 6 steps")
