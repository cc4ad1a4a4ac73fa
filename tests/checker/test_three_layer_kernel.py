"""The steps of reluid/checker/three_layers.py one at a time, each on a case where it must fail and one where it
must pass (docs/mathematics.md §12.3, §12.11): the exemptions and (e3), goodness, (e2)'s point, both forms of
(e4), a layer-1 edge, and (a3)(ii).  The valid certificate alone never reaches these branches (every edge of
Example 12.21's certificate is a layer-2 edge meeting (e4t)), so a weaker kernel would pass it."""

from __future__ import annotations

import contextlib
from fractions import Fraction as F

import pytest

from reluid.certificates.schema import from_json
from reluid.checker import three_layers as tl
from reluid.checker.registry import Budget, Context
from reluid.errors import CheckFailed
from reluid.model.network import Network
from tests.paths import ROOT

CERT = from_json((ROOT / "reports" / "examples" / "certificates" / "three_layers_certified_json.cert.json")
                 .read_text(encoding="utf-8"))
PLUS, SEED, LOW = (1, 1, 1), (1, 1), (-1, 1)


@contextlib.contextmanager
def _rejected(reason):
    """The step must fail with exactly these words (a mutant of a message or of a number in it is a change)."""
    with pytest.raises(CheckFailed) as e:
        yield
    assert (e.value.claim, e.value.reason) == ("c", reason)


def _theta(net):
    ctx = Context(net, "c", Budget(10**9))
    return ctx, tl._Theta(ctx)


def _evidence(kind):
    return next(c for c in CERT.claims if c.kind == kind).evidence


#: a small θ ∈ Ω(2, 2, 2, 4, 1): u = x, z^2 = (x1, x2) on R_(+,+), and on the cell ((+,+), (+,+)) the pieces
#: x1 + x2 − 1, 2(x1 + x2 − 1) (proportional to the first), x1 (= u_1) and x2 − 1
SMALL = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 0], [0, 1]], [0, 0]),
                            ([[1, 1], [2, 2], [1, 0], [0, 1]], [-1, -2, 0, -1]), ([[1, 1, 1, 1]], [0])])


def test_exemption_is_proportionality_to_l0_a_u_m_or_an_own_z2():
    ctx, T = _theta(SMALL)
    cell = tl._Cell((1, 1), (1, 1), frozenset())
    x1, x2 = (F(1), F(0), F(0)), (F(0), F(1), F(0))
    z3 = T.z3(cell.s, cell.r)
    assert tl._exempt(T, cell, x2, z3[2])                     # x1 = u_1
    assert tl._exempt(T, cell, x2, (F(0), F(3), F(0)))        # 3·x2, proportional to ℓ0 = x2 and to u_2
    assert not tl._exempt(T, cell, x2, z3[3])                 # x2 − 1: no zero set of a cell's defining function
    assert not tl._exempt(T, cell, x1, z3[0])


def test_e3_tests_every_non_exempt_piece_and_skips_the_exempt_ones():
    ctx, T = _theta(SMALL)
    cell = tl._Cell((1, 1), (1, 1), frozenset())
    x2 = (F(0), F(1), F(0))
    # k = 0 with ℓ0 = x2: piece 1 is proportional to piece 0 (rank 2 with ℓ0), not exempt: (e3) fails;
    # piece 2 (x1) is exempt, and piece 3 (x2 − 1) has rank 3 with ℓ0 and piece 0
    assert not tl._separated(ctx, T, cell, x2, 0)
    assert tl._separated(ctx, T, cell, x2, 2)                 # x1: every other piece has rank 3 with x2 and x1


def test_goodness_is_against_every_non_constant_piece():
    ctx, T = _theta(SMALL)
    with _rejected("w: the cell (++, ++) is not good (a witnessed piece is proportional to another non-constant "
                   "piece)"):
        tl._good(ctx, T, tl._Cell((1, 1), (1, 1), frozenset({0})), "w")       # piece 1 ∥ piece 0
    tl._good(ctx, T, tl._Cell((1, 1), (1, 1), frozenset({2, 3})), "w")        # x1 and x2 − 1: independent of all


@pytest.fixture(scope="module")
def example():
    ctx, T = _theta(CERT.network)
    return ctx, T, tl._cells(ctx, T, _evidence("deep-three-layer-hypotheses")["cells"])


def _with(cell, zeros):
    return tl._Cell(cell.s, cell.r, frozenset(zeros))


def _edge_point():
    e = _evidence("deep-three-layer-hypotheses")["pinning"][0]["edges"][0]      # seed → ((+,+,+), (−,+)), unit 0
    return tuple(F(v) for v in e["point"])


def test_e4_either_on_the_head_or_on_the_tail_with_e3s(example):
    ctx, T, (seed, low, _) = example
    p, P = _edge_point(), frozenset()
    tl._valid_edge(ctx, T, _with(seed, {0}), _with(low, range(5)), 0, P, p, "w")   # (e4t): |K̂ ∪ P| = 5 = n3 − 1
    tl._valid_edge(ctx, T, seed, _with(low, {0, 1}), 0, P, p, "w")             # (e4s): the tail has all 6
    with _rejected("w: (e4) fails, |K̂ ∪ P| is 2 on the head and 5 on the tail (n3 = 6)"):
        tl._valid_edge(ctx, T, _with(seed, range(5)), _with(low, {0, 1}), 0, P, p, "w")
    tl._valid_edge(ctx, T, _with(seed, range(5)), _with(low, {0, 1}), 0, frozenset({5}), p, "w")   # P counts
    with _rejected("w: (e4) fails, |K̂ ∪ P| is 4 on the head and 5 on the tail (n3 = 6)"):
        tl._valid_edge(ctx, T, _with(seed, range(5)), _with(low, range(4)), 0, P, p, "w")      # n3 − 2 is too few


def test_e2_needs_both_equations_and_the_wall(example):
    ctx, T, (seed, low, _) = example
    p = _edge_point()
    l0, za = T.z2(PLUS)[0], T.z3(PLUS, SEED)[0]
    g0, ga = l0[:-1], za[:-1]
    dot = lambda a, b: sum((x * y for x, y in zip(a, b)), F(0))
    along_l0 = [a - dot(ga, g0) / dot(g0, g0) * b for a, b in zip(ga, g0)]   # ⊥ ∇ℓ0, not ⊥ ∇z^3_1
    along_za = [a - dot(g0, ga) / dot(ga, ga) * b for a, b in zip(g0, ga)]   # ⊥ ∇z^3_1, not ⊥ ∇ℓ0
    t = F(1, 10**4)
    for d in (along_l0, along_za):
        q = tuple(x + t * v for x, v in zip(p, d))
        assert tl._wall_point(T, PLUS, SEED, (2, 0), q)          # still a wall point, on one of the two zero sets
        with _rejected("w: (e2) fails, the point is not a wall point of the edge with ℓ0 = 0 = z^3_1"):
            tl._valid_edge(ctx, T, seed, low, 0, frozenset(), q, "w")
    with _rejected("w: unit 1 has no witnessed zero on (+++, -+)"):
        tl._valid_edge(ctx, T, seed, _with(low, {1, 2}), 0, frozenset(), p, "w")


def test_a_layer_1_edge_separates_by_u_j(example):
    """The layer-1 edge ((+,+,+), (+,+)) → ((−,+,+), (+,+)) of unit 6 across H_1 at a point of the layer-1 flat of the
    clash certificate: valid, and the same point is no wall point of the layer-2 edge of neuron 1."""
    ctx, T, (seed, _, _) = example
    x, d = (F(0), F(3), F(1, 5)), (F(0), F(41), F(-4))
    p = tuple(a + F(1, 10**6) * b for a, b in zip(x, d))
    assert T.u[0][0] * p[0] == 0 and tl._wall_point(T, PLUS, SEED, (1, 0), p)
    other = tl._Cell((-1, 1, 1), SEED, frozenset(range(6)))
    tl._valid_edge(ctx, T, seed, other, 5, frozenset(range(5)), p, "w")
    with _rejected("w: the cells (+++, ++) and (-++, -+) differ in 2 signs, an edge flips exactly one"):
        tl._valid_edge(ctx, T, seed, tl._Cell((-1, 1, 1), LOW, frozenset(range(6))), 5, frozenset(), p, "w")


def test_a3_ii_needs_every_layer_1_neuron_on_in_some_pattern(example):
    ctx, T, cells = example
    tl._a3(ctx, T, list(cells), "w")
    # differences from the first cell: r_1 alone, then both signs; from the second there would be r_2 alone
    tl._a3(ctx, T, [cells[0], cells[1], tl._Cell(PLUS, (-1, -1), frozenset())], "w")
    minus = [tl._Cell((-1, 1, 1), r, frozenset()) for r in (SEED, LOW, (1, -1))]
    with _rejected("w: (a3)(ii) fails: the layer-1 patterns of the cells reached do not determine a flip of layer 1"):
        tl._a3(ctx, T, minus, "w")                               # neuron 1 is off in every pattern reached
    with _rejected("w: (a3)(i) fails: the same-pattern differences of the cells reached have rank < n2"):
        tl._a3(ctx, T, [cells[0], cells[1]], "w")                # the pair differs in r_1 only


def test_e2_needs_l0_and_the_piece_independent():
    """θ ∈ Ω(2, 2, 1, 1, 1) with z^3 = z^2 = x1 on ((+,+), (+)): across H_1 the piece is u_1 itself."""
    net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 0]], [0]), ([[1]], [0]), ([[1]], [0])])
    ctx, T = _theta(net)
    a, b = tl._Cell((1, 1), (1,), frozenset({0})), tl._Cell((-1, 1), (1,), frozenset({0}))
    with _rejected("w: (e2) fails, the gradients of ℓ0 and z^3_1 are dependent"):
        tl._valid_edge(ctx, T, a, b, 0, frozenset(), (F(0), F(1)), "w")


#: The work charged to the valid certificate, per claim and phase: (steps, calls).  Every charge is
#: ``STEPS_PER_OP`` (4) times the size of the loop it pays for, and some are derived below from Example 12.21's
#: shape (n0, n1, n2, n3) = (3, 3, 2, 6): (e3) 12 calls of 4·n3·(n1 + n2 + 2) = 168, goodness 3 cells of
#: 4·|zeros|·n3 = 4·6·6, (a3)(i) 6 units of 4·|reached|·n2·(n0 + 1) = 4·3·2·4, H0₁ one pass of
#: 4·n1·(n0 + 1)·n0.
#: A mutant of a charge's factor or words changes this table: the cost model changes only on purpose.
LEDGER = {
    "three-layer-clash": {
        "(B3)": (6048, 252), "H0₁": (144, 1), "an exact rank": (294348, 2856), "point #: flats": (1008, 78),
        "points": (312, 1), "the clash points on each H_i": (4680, 1),
        "the defining functions of a cell at a point": (20160, 252),
        "the largest number of points on a flat": (568512, 3), "the layer-3 pieces of a cell": (3264, 17),
        "the layer-2 pieces of a region": (576, 6)},
    "three-layer-hypotheses": {
        "(B3)": (864, 36), "(a3)(i)": (576, 6), "(a3)(ii)": (216, 6), "(e3)": (2016, 12), "H0₁": (144, 1),
        "a reduced row echelon form": (2304, 36), "an exact rank": (79224, 936), "cell #: zeros": (72, 3),
        "cells": (12, 1), "edges": (12, 1), "goodness": (432, 3), "pinning #: edges": (48, 6),
        "region #: flats": (144, 4), "regions": (16, 1), "rigidity": (48, 3),
        "the defining functions of a cell at a point": (5520, 69), "the layer-3 pieces of a cell": (1152, 6),
        "the layer-2 pieces of a region": (384, 4)},
}


def test_the_valid_certificate_is_charged_phase_by_phase(monkeypatch):
    import re
    from collections import defaultdict

    from reluid.checker.check import check_certificate

    seen, numbers = defaultdict(lambda: [0, 0]), defaultdict(list)
    charge = tl.charge_steps

    def recorded(ctx, steps, what):
        m = re.match(r"(point|cell|region|pinning) (\d+): ", what)
        key = (ctx.claim_id, what if m is None else f"{m.group(1)} #: {what[m.end():]}")
        seen[key][0] += steps
        seen[key][1] += 1
        if m:
            numbers[key].append(int(m.group(2)))
        return charge(ctx, steps, what)

    monkeypatch.setattr(tl, "charge_steps", recorded)
    assert check_certificate(CERT).valid
    assert {claim: {what: tuple(v) for (c, what), v in seen.items() if c == claim} for claim in LEDGER} == LEDGER
    for key, found in numbers.items():          # the numbered phases: every point, cell, region and unit once
        assert found == list(range(len(found))), key
    n0, n1, n2, n3 = 3, 3, 2, 6
    hyp = LEDGER["three-layer-hypotheses"]
    assert hyp["(e3)"] == (12 * 4 * n3 * (n1 + n2 + 2), 12) and hyp["goodness"] == (3 * 4 * 6 * n3, 3)
    assert hyp["(a3)(i)"] == (6 * 4 * 3 * n2 * (n0 + 1), 6) and hyp["H0₁"] == (4 * n1 * (n0 + 1) * n0, 1)


def test_a3_on_pieces_with_zero_coefficients():
    """On SMALL the pieces of layer 2 are z^2 = (x1, x2), with zero coefficients: from the cell r = (+,+), the
    cells r = (−,+) and (+,−) differ by z^2_1 and by z^2_2 alone, rank 2 = n2; W^1 = I, so both neurons are on
    (rank 2)."""
    ctx, T = _theta(SMALL)
    cells = [tl._Cell((1, 1), r, frozenset()) for r in ((1, 1), (-1, 1), (1, -1))]
    tl._a3(ctx, T, cells, "w")
    with _rejected("w: (a3)(i) fails: the same-pattern differences of the cells reached have rank < n2"):
        tl._a3(ctx, T, cells[:2], "w")


#: θ ∈ Ω(2, 2, 3, 2, 1) with z^2 = (x1, x2, x1 + x2 − 2) on the cell ((+,+), (+,+,+)); the edge across z^2_3 = 0
#: (ℓ0 = x1 + x2 − 2) at p = (1, 1) for unit 1 (z^3_1 = x1 + 2x2 − 3 on both cells); on the head (+,+,−) the
#: piece z^3_2 = 2x1 + 3x2 − 5 = z^3_1 + ℓ0 lies in the span of ℓ0 and z^3_1 and is exempt by nothing
def _e3_net(bias_2):
    return Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 0], [0, 1], [1, 1]], [0, 0, -2]),
                               ([[1, 2, 0], [2, 3, 0]], [-3, bias_2]), ([[1, 1]], [0])])


def test_e3_on_the_head_of_an_edge():
    a, b = tl._Cell((1, 1), (1, 1, 1), frozenset({0})), tl._Cell((1, 1), (1, 1, -1), frozenset({0}))
    p = (F(1), F(1))
    ctx, T = _theta(_e3_net(-5))
    with _rejected("w: (e3t) fails on the head"):
        tl._valid_edge(ctx, T, a, b, 0, frozenset(), p, "w")
    ctx, T = _theta(_e3_net(-4))                          # z^3_2 = 2x1 + 3x2 − 4: rank 3 with ℓ0 and z^3_1
    tl._valid_edge(ctx, T, a, b, 0, frozenset(), p, "w")  # and |K̂| = 1 = n3 − 1 on the head: (e4t)


def test_goodness_is_asked_of_the_seed_and_of_both_ends_of_an_edge():
    ctx, T = _theta(SMALL)
    bad = tl._Cell((1, 1), (1, 1), frozenset({0}))      # piece 0 is witnessed and piece 1 is proportional to it
    words = "the cell (++, ++) is not good (a witnessed piece is proportional to another non-constant piece)"
    with _rejected(f"pinning 0, seed: {words}"):
        tl._pinning(ctx, T, [bad], [0, 1, 2, 3], [{"unit": u, "seed": 0, "edges": []} for u in range(4)])
    with _rejected(f"w: {words}"):
        other = tl._Cell((1, 1), (1, -1), frozenset({0}))
        tl._valid_edge(ctx, T, bad, other, 0, frozenset(), (F(1), F(0)), "w")


def test_rigidity_is_rank_3_of_u_j_and_the_layer_2_pieces():
    """On SMALL, u_1 = x1 = z^2_1 on R_(+,+): rank[u_1; z^2_1; z^2_2] = 2.  With W^2 = [[1, 1], [1, −1]] and
    b^2 = (0, −1), z^2 = (x1 + x2, x1 − x2 − 1) and both edges from R_(+,+) are rigid (rank 3 with x1 and x2)."""
    full = {(1, 1), (-1, 1), (1, -1)}
    ctx, T = _theta(SMALL)
    with _rejected("edge 0: not rigid, rank[u_1; z^2_1; z^2_2] < 3 on R_++"):
        tl._rigid_edges(ctx, T, [{"signs": "++", "label": 0}], full)
    mixed = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 1], [1, -1]], [0, -1]), ([[1, 1]], [0]),
                                ([[1]], [0])])
    ctx, T = _theta(mixed)
    tl._rigid_edges(ctx, T, [{"signs": "++", "label": 0}, {"signs": "++", "label": 1}], full)
    with _rejected("Theorem 12.14 needs every label among the rigid edges; label 2 is missing"):
        tl._rigid_edges(ctx, T, [{"signs": "++", "label": 0}], full)


def _rejected_by(net, step=None):
    ctx = Context(net, "c", Budget(10**9))
    with pytest.raises(CheckFailed) as e:
        T = tl._Theta(ctx)
        step(ctx, T)
    assert e.value.claim == "c"
    return e.value.reason


def test_theta_is_three_hidden_layers_on_at_least_two_inputs():
    assert _rejected_by(Network.from_lists([([[1, 0]], [0]), ([[1]], [0]), ([[1]], [0])])) == \
        "docs/mathematics.md §12 is about three hidden layers; the architecture is (2, 1, 1, 1)"
    assert _rejected_by(Network.from_lists([([[1]], [0]), ([[1]], [0]), ([[1]], [0]), ([[1]], [0])])) == \
        "docs/mathematics.md §12.5 needs input dimension n0 >= 2"


def _in_omega_2_2_1_2_1(W1, b1, V):
    return Network.from_lists([(W1, b1), ([[1, 1]], [0]), ([[1], [2]], [0, -1]), (V, [0])])


def test_h0_and_t0_are_recomputed():
    """H0₁: no row of [W^1 | b^1] is zero in its weights, no two are proportional; T0: no column of V is zero."""
    h0t0 = tl._h0_t0
    assert _rejected_by(_in_omega_2_2_1_2_1([[1, 0], [0, 0]], [0, 0], [[1, 1]]), h0t0) == "H0₁ fails: W^1_2 = 0"
    assert _rejected_by(_in_omega_2_2_1_2_1([[1, 0], [2, 0]], [1, 2], [[1, 1]]), h0t0) == \
        "H0₁ fails: the rows (W^1_1, b^1_1) and (W^1_2, b^1_2) are proportional"
    assert _rejected_by(_in_omega_2_2_1_2_1([[1, 0], [0, 1]], [0, 0], [[1, 0]]), h0t0) == "T0 fails: V_(:,2) = 0"
    for W1, b1 in (([[1, 0], [2, 0]], [1, 3]), ([[1, 0], [0, 1]], [0, 0])):   # parallel planes, crossing ones
        ctx, T = _theta(_in_omega_2_2_1_2_1(W1, b1, [[1, 1]]))
        tl._h0_t0(ctx, T)


def test_c_i_is_the_most_points_on_one_flat_of_codimension_2(monkeypatch):
    """c_i of (CP-L): the most of the clash points on H_i that lie on one (n0 − 2)-flat (a line for n0 = 3, a
    plane for n0 = 4), whatever the order of the points; the search over (n0 − 1)-subsets is charged."""
    ctx, T = _theta(CERT.network)                                            # n0 = 3: lines in H_1 = {x1 = 0}
    P = lambda *v: tuple(F(x) for x in v)                                    # noqa: E731
    assert tl._max_on_flat(ctx, T, [P(0, 0, 0), P(0, 1, 0), P(0, 0, 1)]) == 2
    line = [P(0, t, 2 * t) for t in range(4)]
    assert tl._max_on_flat(ctx, T, [P(0, 5, 0)] + line + [P(0, 0, 7)]) == 4
    assert tl._max_on_flat(ctx, T, line) == 4                                # all on one line
    four = Network.from_lists([([[1, 0, 0, 0], [0, 1, 0, 0]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0]), ([[1]], [0])])
    ctx4, T4 = _theta(four)                                                  # n0 = 4: planes in {x1 = 0}
    charged = []
    charge = tl.charge_steps
    monkeypatch.setattr(tl, "charge_steps", lambda c, steps, what: (charged.append((what, steps)),
                                                                     charge(c, steps, what)))
    pts = [P(0, 0, 0, 0), P(0, 1, 0, 0), P(0, 2, 0, 0), P(0, 0, 1, 0), P(0, 0, 0, 1), P(0, 1, 1, 1)]
    assert tl._max_on_flat(ctx4, T4, pts) == 4      # the first triple is collinear (no plane): the search goes on
    # C(6, 3) triples · 6 points · (n0 − 1)² · n0, four steps an operation
    assert ("the largest number of points on a flat", 4 * 20 * 6 * 9 * 4) in charged
