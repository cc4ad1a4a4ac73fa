"""Theorem W (two hidden layers on partial regions) and Lemma H4-count in the producer.

Planted networks with known mechanisms must not be certified; a planted layer-2 flip set gives
hidden-symmetry with θ^{∅,F2} equal to θ on every joint cell (exact); the closed forms of the u
frame (visibility on an orthant, W.3(b) for every F at once) agree with Fourier–Motzkin and with
the enumeration of F; the count condition of H4 never holds where the exhaustive cover search
finds a cover.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.cells import same_function
from reluid.analysis.deep.mechanisms import detect_mechanisms
from reluid.analysis.deep.pinning import (_W, _all_signs, _exhaustive_h4, analyse_pinning, choose_frame,
                                          count_condition, orthant_zero, u_frame_b)
from reluid.analysis.deep.strict import solve_strict
from reluid.analysis.deep.two_layers import _Analysis, analyse_two_layers, flipped
from reluid.analysis.deep.two_layers_survey import draw
from reluid.model.network import Network
from reluid.verdicts import Verdict
from tests.two_layer_nets import net

Q = lambda s: F(s)
#: Ω(3,3,3,1), i.i.d. on the 1/16 grid: H1 holds but H2∧H3 fail (Theorem 8.2 does not apply); Theorem W
#: holds (every neuron pinned by W.3(b) from the orthants with u_3 > 0, resp. u_1 > 0)
BASE = net([[-2, F(1, 2), F(-9, 8)], [F(5, 8), F(-7, 8), F(-3, 16)], [F(1, 8), F(1, 2), F(-3, 16)]],
           [F(7, 8), F(-1, 16), F(13, 16)],
           [[F(17, 16), F(3, 8), F(-1, 16)], [F(1, 8), F(5, 16), F(-23, 16)], [F(3, 8), F(21, 16), F(-1, 4)]],
           [F(9, 16), F(17, 16), F(-1, 4)], [[F(15, 8), F(29, 16), F(1, 4)]], [F(17, 16)])


def _layers(n):
    (A, a), (W, w), (V, c) = [([list(r) for r in L.weight], list(L.bias)) for L in n.layers]
    return A, a, W, w, V, c


def _plant(change):
    A, a, W, w, V, c = _layers(BASE)
    change(A, a, W, w, V, c)
    return net(A, a, W, w, V, c)


def test_the_base_is_certified_by_theorem_w_and_not_by_theorem_82():
    r = analyse_two_layers(BASE)
    assert not r.applies_82 and r.applies_w and r.verdict is Verdict.NO_HIDDEN
    assert r.first_failure() is None and [h.name for h in r.hypotheses if not h.holds] == ["H2∧H3"]
    assert r.pinning.frame.kind == "u" and {k for k, *_ in r.pinning.order} == {0, 1, 2}
    assert not detect_mechanisms(BASE, timeout=20).mechanisms


def _dead(A, a, W, w, V, c):
    W[0] = [-abs(x) for x in W[0]]
    w[0] = F(-1)


def _always(A, a, W, w, V, c):
    W[0] = [abs(x) for x in W[0]]
    w[0] = F(1)


def _v_zero(A, a, W, w, V, c):
    V[0][1] = F(0)


def _proportional(A, a, W, w, V, c):
    W[1] = [2 * x for x in W[0]]
    w[1] = 2 * w[0]


def _coincident(A, a, W, w, V, c):
    A[1] = [3 * x for x in A[0]]
    a[1] = 3 * a[0]


def _never_coactive(A, a, W, w, V, c):
    # layer-2 neuron 1 is active only where u_1 < 0: W_{1,:} = (-2, 0, 0), w_1 = -1/2 ... never with u_1 > 0
    W[1] = [F(-2), F(0), F(0)]
    w[1] = F(-1, 2)


PLANTED = {"dead layer-2 neuron": (_dead, "pinning"), "always-active layer-2 neuron": (_always, "pinning"),
           "V column = 0": (_v_zero, "H0"), "proportional layer-2 rows": (_proportional, "H0′"),
           "coincident layer-1 hyperplanes": (_coincident, "H0")}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_planted_mechanisms_are_not_certified(name):
    change, failing = PLANTED[name]
    n = _plant(change)
    r = analyse_two_layers(n)
    assert r.verdict is not Verdict.NO_HIDDEN and not r.applies_w
    assert r.pinning.failed == failing, r.pinning.detail


def test_a_never_coactive_pair_is_not_certified():
    n = _plant(_never_coactive)
    assert any(m.kind == "never-coactive" or m.kind == "dead-neuron" for m in detect_mechanisms(n, timeout=20).mechanisms)
    r = analyse_two_layers(n)
    assert r.verdict is not Verdict.NO_HIDDEN and not r.applies_w


def test_a_planted_layer_2_flip_set_gives_its_witness():
    def flip(A, a, W, w, V, c):
        W[1] = [-x for x in W[0]]
        V[0][1] = V[0][0]
    n = _plant(flip)
    r = analyse_two_layers(n)
    assert r.applies_w and r.verdict is Verdict.HIDDEN and r.witness_flips == (frozenset(), frozenset({0, 1}))
    assert r.witness == flipped(n, (), {0, 1})
    same, _ = same_function(n, r.witness)
    assert same


def test_orthant_rule_agrees_with_fourier_motzkin():
    rng = random.Random(5)
    for _ in range(300):
        m = rng.randint(1, 4)
        c = [F(rng.randint(-2, 2)) for _ in range(m)]
        w = F(rng.randint(-2, 2))
        if not any(c):
            continue
        B = [[F(int(i == t)) for t in range(m)] for i in range(m)]
        kind, _ = solve_strict(B, [F(0)] * m, [c], [w], n=m)
        assert orthant_zero(c, w) == (kind == "point"), (c, w)


def _u_nets(arch, count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        n = draw(arch, "iid", rng)
        if choose_frame(n).kind == "u":
            out.append(n)
    return out


def test_the_closed_form_of_w3b_agrees_with_the_enumeration_of_f():
    rng = random.Random(7)
    agree = {True: 0, False: 0}
    for n in _u_nets((3, 3, 3, 1), 12, 11):
        an = _W(n, choose_frame(n), None, 4000)
        for s in _all_signs(3):
            an.region(s)
        signs = list(an.regions)
        for _ in range(6):
            k = rng.randrange(3)
            s0 = rng.choice(signs)
            C = [s0] + rng.sample(signs, rng.randint(0, 3))
            covered = {i for s in C for i in range(3) if s[i] != s0[i]}
            closed = u_frame_b(an.W[k], s0, covered)
            assert closed == an.w3b(k, s0, C)
            agree[closed] += 1
    assert agree[True] and agree[False]          # both answers occur


@pytest.mark.parametrize("arch", [(2, 3, 3, 1), (3, 3, 3, 1), (2, 2, 3, 1), (3, 4, 3, 1)])
def test_the_count_condition_never_holds_where_a_cover_exists(arch):
    rng = random.Random(f"h4-count-{arch}")
    held = 0
    for _ in range(15):
        n = draw(arch, "iid", rng)
        fr = choose_frame(n)
        an = _W(n, fr, None, 4000)
        if fr.kind == "u":
            for s in _all_signs(arch[1]):
                an.region(s)
        else:
            if an.h0():
                continue
            for s, p in _Analysis(n, 20000, None, 4000).regions()[0]:
                an.region(s, p)
        full = an.flats(10 ** 6)
        for cap in (2, 3, 4, 10 ** 6):          # subsets of the flats: more cases for the count
            per = {j: dict(itertools.islice(full[j].items(), cap)) for j in full}
            counts = [len(per[j]) for j in per]
            if count_condition(counts):
                held += 1
                assert _exhaustive_h4(an, per), (arch, counts)
    assert held > 0


def test_count_condition_is_the_sorted_test():
    for counts in itertools.product(range(5), repeat=3):
        brute = all(any(counts[j] > len(I) for j in I)
                    for r in range(1, 4) for I in itertools.combinations(range(3), r))
        assert count_condition(counts) == brute


def _he(arch, seed):
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(seed)
    layers = []
    for a, b in zip(arch[:-1], arch[1:]):
        W = (rng.standard_normal((b, a)) * np.sqrt(2 / a)).astype(np.float32)
        bias = (rng.standard_normal(b) * 0.1).astype(np.float32)
        layers.append(([[F(float(x)) for x in r] for r in W], [F(float(x)) for x in bias]))
    return Network.from_lists(layers)


def test_a_he_initialised_64_32_32_10_network_is_certified_without_enumeration():
    n = _he((64, 32, 32, 10), 0)
    r = analyse_two_layers(n, timeout=60)
    assert r.verdict is Verdict.NO_HIDDEN and r.applies_w and not r.regions
    p = r.pinning
    assert p.frame.kind == "u" and p.h4_method == "count" and len(p.regions) <= 2 * 33
    assert min(p.flat_counts) >= 33
