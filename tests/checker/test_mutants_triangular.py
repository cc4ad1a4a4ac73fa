"""The Theorem A3 checker (reluid/checker/triangular.py) on a certificate whose layer-1 blocks sum several
kernels: its exact rank decomposition, its work, and what it refuses (docs/mathematics.md §6.4).

A 4-7-4-3 network (n1 > n0, so a layer-1 neuron's block needs the kernels of W^1_S at several points: the
path through ``_kernel_rows``) is certified by the producer; the checker must find r = D - N = 71 =
14 + 3·4 + 45 and charge exactly its recorded work, and every change of an entry must change what it finds.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from reluid.analysis.deep.triangular import triangular_certificate
from reluid.certificates.schema import ClaimKind
from reluid.checker.registry import VERIFIERS, Budget, Context, WorkLimit
from reluid.checker.triangular import triangular_rank
from reluid.errors import CheckFailed
from tests.analysis.deep.test_triangular import evidence, mlp

WORK = 1311          # the steps the checker charges for this certificate (the formula of ``_charge``)


@pytest.fixture(scope="module")
def case():
    net = mlp((4, 7, 4, 3), 2)
    r = triangular_certificate(net, seed=0)
    assert r.full_rank
    ev = evidence(net, r)
    assert any(l == 1 and len(e) > 1 for l, _, e in ev["blocks"])
    return net, ev


def rank(net, ev, limit=1 << 40):
    return triangular_rank(net, copy.deepcopy(ev), Context(net, "fundim", Budget(limit=limit)))


def test_the_rank_decomposes_as_theorem_a3_says(case):
    net, ev = case
    t = rank(net, ev)
    assert (t.rank, t.r_bias, t.r_out, t.r_hidden, t.points) == (71, 14, 4, 45, len(ev["points"]))
    assert t.rank == net.n_params - sum(net.architecture[1:-1])
    line = VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION](copy.deepcopy(ev), Context(net, "fundim", Budget()))
    assert "71 = 14 + 3·4 + 45" in line


def test_the_work_is_charged_before_it_is_done(case):
    net, ev = case
    budget = Budget(limit=1 << 40)
    triangular_rank(net, copy.deepcopy(ev), Context(net, "fundim", budget))
    assert budget.used == WORK
    assert rank(net, ev, limit=WORK).rank == 71
    with pytest.raises(WorkLimit, match="triangular-certificate"):
        rank(net, ev, limit=WORK - 1)


def test_a_sum_of_layer_1_kernels_counts_each_point(case):
    """Dropping one point of a layer-1 block with several lowers r (the kernels' sum is smaller)."""
    net, ev = case
    j = next(t for t, (l, _, e) in enumerate(ev["blocks"]) if l == 1 and len(e) > 1)
    short = copy.deepcopy(ev)
    short["blocks"][j][2].pop()
    assert rank(net, short).rank < 71
    with pytest.raises(CheckFailed):
        VERIFIERS[ClaimKind.LOCAL_IDENTIFIABILITY](short, Context(net, "local", Budget()))


@pytest.mark.parametrize("change, match", [
    (lambda ev: ev["blocks"].append(copy.deepcopy(ev["blocks"][0])), "listed twice"),
    (lambda ev: ev["blocks"][0][2].append(copy.deepcopy(ev["blocks"][0][2][0])), "a point twice"),
    (lambda ev: ev["blocks"][0].__setitem__(0, 9), "layer"),
    (lambda ev: ev["blocks"][0].__setitem__(1, 99), "neuron"),
    (lambda ev: ev["blocks"][0][2][0].__setitem__(0, 10 ** 6), "point"),
    (lambda ev: ev["blocks"][0][2][0].__setitem__(1, [1, 2]), "combination"),
    (lambda ev: ev.__setitem__("bias_points", [10 ** 6]), "bias_points"),
    (lambda ev: ev.__setitem__("out_points", [-1]), "out_points"),
    (lambda ev: ev.__setitem__("points", []), "points"),
    (lambda ev: ev.__setitem__("prime", 4), "prime"),
])
def test_malformed_blocks_are_refused(case, change, match):
    net, ev = case
    bad = copy.deepcopy(ev)
    change(bad)
    with pytest.raises(CheckFailed, match=match):
        rank(net, bad)


def test_a_shallow_network_is_refused(case):
    from reluid.model.network import Network

    net, ev = case
    shallow = Network.from_lists([([[1, 0, 0, 0]], [0])])
    with pytest.raises(CheckFailed, match="hidden layers"):
        triangular_rank(shallow, copy.deepcopy(ev), Context(shallow, "fundim", Budget()))


# ---- a 2-2-1-1 network by hand: every block's rank, the work formula, every refusal by its message ------------

#: x ↦ 2·relu(relu(x1) - relu(x2) + 1): one output (k = 1), D = 11, N = 3, D - N = 8
#: (-1, -1): layer 1 off, layer 2 on; (1, -1): neuron 1 of layer 1 on; (1, 1/2), (2, 1): all on;
#: (-1, 3): layer 2 off; (-1, 1/2), (-2, 1/3): neuron 2 of layer 1 on, layer 2 on
POINTS = [["-1", "-1"], ["1", "-1"], ["1", "1/2"], ["-1", "3"], ["2", "1"], ["-1", "1/2"], ["-2", "1/3"]]
#: the terms of ``_charge`` here (flint's products of so few entries are under a step, 256 multiply-adds):
#: per point its n0 = 2 coordinates and 2 + 1 pre-activations read; per point in use its 2 + 1 diagonal
#: entries; once the 11 residues and Q (n1·ρ = 2·2); the bias rows (5 of 4 entries); the output columns
#: (4 points of ρ = 2); per listed entry n_l + k, per sum of spaces its placed columns (2 per point)
PER_POINT, MAPS, ONCE, BIAS, OUT = 2 + 3, 3, 11 + 2 * 2, 5 * 4, 4 * 2


def small():
    from reluid.model.network import Network

    return Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, -1]], [1]), ([[2]], [0])])


def small_ev(blocks, bias=(0, 1, 2, 3, 4), out=(0, 1, 2, 4), prime=101, points=POINTS):
    return {"method": "triangular", "prime": prime, "points": copy.deepcopy(points), "bias_points": list(bias),
            "out_points": list(out), "blocks": copy.deepcopy(blocks)}


#: layer 1: neuron 1 at three points (its kernel e_2 at (1, -1), 0 elsewhere), neuron 2 at two points where
#: neuron 1 is off (kernel e_1); layer 2 at (1, 1/2), where Y^2 = ker (1, -1) = span (1, 1)
FULL = [[1, 0, [[1, [1]], [2, [1]], [4, [1]]]], [1, 1, [[5, [1]], [6, [1]]]], [2, 0, [[2, [1]]]]]


def small_rank(ev, limit=1 << 40):
    net = small()
    budget = Budget(limit=limit)
    t = triangular_rank(net, ev, Context(net, "tri", budget))
    return (t.rank, t.r_bias, t.r_out, t.r_hidden, t.points), budget.used


def test_small_network_rank_and_work():
    """r = D - N = 8 = 4 + 1·1 + (1 + 1 + 1); the work is 7 points, all in use, and the three blocks' entries
    (n_l + k each; the two sums of layer-1 kernels place ρ = 2 columns per point)."""
    work = 7 * (PER_POINT + MAPS) + ONCE + BIAS + OUT + (3 * 3 + 3 * 2) + (2 * 3 + 2 * 2) + 1 * 2
    assert small_rank(small_ev(FULL)) == ((8, 4, 1, 3, 7), work)
    assert small_rank(small_ev(FULL, prime=3)) == ((8, 4, 1, 3, 7), work)        # 3 is the least prime taken
    assert small_rank(small_ev(FULL), limit=work)[0][0] == 8
    with pytest.raises(WorkLimit) as e:
        small_rank(small_ev(FULL), limit=work - 1)
    assert e.value.reason.startswith(f"the triangular-certificate re-computation takes {work} steps, past")


def test_small_network_words_of_a_long_coordinate():
    """A coordinate of 40 + 24 bits costs two machine words per parameter at every point (1 + 64 // 64): under a
    step here (22 multiply-adds of flint), so the work is that of eight points, one in use, and one entry."""
    far = [str(F(-(2**39 + 1), 2**23)), "-1"]          # layer 1 off, layer 2 on, like (-1, -1)
    ev = small_ev([[2, 0, [[0, [1]]]]], bias=(), out=(), points=POINTS + [far])
    assert small_rank(ev) == ((0, 0, 0, 0, 8), 8 * PER_POINT + ONCE + MAPS + 1 * 2)


@pytest.mark.parametrize("blocks, bias, out, want", [
    # k = 1: the bias row at a point where layer 2 is off is (0, 0, 0 | e_1): rank 1 from e_o alone
    ([], (3,), (), (1, 1, 0, 0, 7)),
    ([], (), (), (0, 0, 0, 0, 7)),
    # Y^2 at (-1, -1): the weight part of A^1 is 0 (layer 1 off), so col(C) = 0
    ([[2, 0, [[0, [1]]]]], (), (), (0, 0, 0, 0, 7)),
    # Y^2 at (1, -1): col(C) = span e_1 and W^2 is injective on it: ker = 0
    ([[2, 0, [[1, [1]]]]], (), (), (0, 0, 0, 0, 7)),
    ([[2, 0, [[2, [1]]]]], (), (), (1, 0, 0, 1, 7)),
    # a block with no entries counts 0 and the blocks after it still count
    ([[1, 0, []]] + FULL[1:], (0, 1, 2, 3, 4), (0, 1, 2, 4), (7, 4, 1, 2, 7)),
    # a combination is read modulo p: 102 ≡ 1, -100 ≡ 1 (mod 101)
    ([[1, 0, [[1, [102]], [2, [-100]], [4, [1]]]]] + FULL[1:], (0, 1, 2, 3, 4), (0, 1, 2, 4), (8, 4, 1, 3, 7)),
])
def test_small_network_blocks(blocks, bias, out, want):
    assert small_rank(small_ev(blocks, bias, out))[0] == want


@pytest.mark.parametrize("change, reason", [
    (dict(prime=2), "evidence field 'prime' = 2 is outside [3, 2^63)"),
    (dict(points=[]), "evidence field 'points' must be a nonempty list of points"),
    (dict(points=[["1"]]), "evidence field 'points': every point needs 2 coordinates"),
    (dict(bias_points=[7]), "evidence field 'bias_points': index out of range [0, 7)"),
    (dict(bias_points=[1, 1]), "evidence field 'bias_points': repeated index"),
    (dict(out_points=[-1]), "evidence field 'out_points': index out of range [0, 7)"),
    (dict(out_points=[2, 2]), "evidence field 'out_points': repeated index"),
    (dict(blocks="x"), "evidence field 'blocks' must be a list"),
    (dict(blocks=[[1, 0]]), "a block has 2 entries, expected 3"),
    (dict(blocks=[7]), "a block must be a list"),
    (dict(blocks=[[0, 0, []]]), "a block's layer = 0 is outside [1, 3)"),
    (dict(blocks=[[3, 0, []]]), "a block's layer = 3 is outside [1, 3)"),
    (dict(blocks=[[1, 2, []]]), "a block's neuron = 2 is outside [0, 2)"),
    (dict(blocks=[[2, 1, []]]), "a block's neuron = 1 is outside [0, 1)"),
    (dict(blocks=[[1, -1, []]]), "a block's neuron = -1 is outside [0, 2)"),
    (dict(blocks=[[1, 0, "x"]]), "the entries of block (1, 0) must be a list"),
    (dict(blocks=[[1, 0, [[1]]]]), "a block entry has 1 entries, expected 2"),
    (dict(blocks=[[1, 0, [[7, [1]]]]]), "a block entry's point = 7 is outside [0, 7)"),
    (dict(blocks=[[1, 0, [[-1, [1]]]]]), "a block entry's point = -1 is outside [0, 7)"),
    (dict(blocks=[[1, 0, [[1, [1, 1]]]]]), "a block entry's combination has 2 entries, expected 1"),
    (dict(blocks=[[1, 0, [[1, ["1/2"]]]]]), "a block entry's combination: '1/2' is not an integer"),
    (dict(blocks=[[1, 0, []], [1, 0, []]]),
     "the block of neuron 0 of layer 1 is listed twice (its rank would count twice)"),
    (dict(blocks=[[1, 0, [[1, [1]], [1, [2]]]]]), "block (1, 0) lists a point twice"),
    (dict(blocks=[[1, 0, [[0, [1]]]]]), "block (1, 0), point 0: the combination of outputs is 0 at neuron 0"),
    (dict(blocks=[[1, 0, [[1, [0]]]]]), "block (1, 0), point 1: the combination of outputs is 0 at neuron 0"),
    (dict(blocks=[[1, 0, [[1, [101]]]]]), "block (1, 0), point 1: the combination of outputs is 0 at neuron 0"),
    (dict(blocks=[[1, 0, []], [1, 1, [[2, [1]]]]]),
     "block (1, 1), point 2: the combination of outputs is not 0 on the neurons listed before 1 (its rows would "
     "not vanish on the earlier blocks)"),
    (dict(points=[["0", "1"]] + POINTS[1:]),
     "point ['0', '1'] is not generic: a hidden pre-activation is 0 there (not parametrically smooth)"),
])
def test_small_network_refusals(change, reason):
    ev = dict(small_ev(FULL), **change)
    with pytest.raises(CheckFailed) as e:
        small_rank(ev)
    assert (e.value.claim, e.value.reason) == ("tri", reason)


def test_a_shallow_network_is_refused_by_its_message():
    from reluid.model.network import Network

    shallow = Network.from_lists([([[1, 0]], [0])])
    with pytest.raises(CheckFailed) as e:
        triangular_rank(shallow, small_ev(FULL), Context(shallow, "tri", Budget()))
    assert (e.value.claim, e.value.reason) == ("tri", "a triangular certificate is about networks with hidden layers")


def test_the_two_claims_share_the_work_of_one_evidence_only():
    """In one certificate's budget the same evidence is computed (and charged) once; other evidence is not taken
    for it."""
    net = small()
    budget = Budget(limit=1 << 40)
    ctx = Context(net, "tri", budget)
    assert triangular_rank(net, small_ev(FULL), ctx).rank == 8
    used = budget.used
    assert triangular_rank(net, small_ev(FULL), ctx).rank == 8 and budget.used == used
    assert triangular_rank(net, small_ev([[1, 0, []]] + FULL[1:]), ctx).rank == 7
    assert budget.used == used + 7 * (PER_POINT + MAPS) + ONCE + BIAS + OUT + (2 * 3 + 2 * 2) + 1 * 2


def test_the_work_formula_at_size():
    """At 64-32-16-4 flint's terms of ``_charge`` count (256 multiply-adds to a step, ρ at its bound
    min(n0, n1) = 32, an elimination of an a × b matrix a·b·min(a, b)/3), each term by hand:
    10 points × (64 + 48 + 2676 // 256) = 1220; once 2676 + 32·(32 + 64·32 // 256) = 3956; 3 points in use
    × (48 + (32²·32 + 16·48·32 + 32·48·4 + 16·20·4) // 256) = 903; bias rows 8·52 + 8·52·8 // 256 = 429;
    output columns 96 + (3·16·32·96 + 8192) // 256 = 704; block (1, 0), two entries 2·(36 + 54740 // 256)
    and their sum 64 + (2·32·32·64 + 21845) // 256: 1159; block (2, 3), one entry 20 + 46484 // 256 = 201."""
    from reluid.checker.triangular import _charge
    from reluid.model.network import Network

    arch = (64, 32, 16, 4)
    net = Network.from_lists([([[(i + j) % 3 - 1 for j in range(a)] for i in range(b)], [1] * b)
                              for a, b in zip(arch, arch[1:])])
    assert net.n_params == 2676
    pts = [tuple(F(i - t) for t in range(64)) for i in range(10)]
    c = (1, 0, 0, 0)
    blocks = [(1, 0, [(0, c), (1, c)]), (2, 3, [(2, c)])]
    budget = Budget(limit=1 << 40)
    _charge(Context(net, "tri", budget), net, pts, (0, 1), (0, 1, 2), blocks)
    assert budget.used == 1220 + 3956 + 903 + 429 + 704 + 1159 + 201


def test_the_words_of_a_long_coordinate_at_size():
    """A coordinate 1/(2^62 + 1) has 1 + 63 bits, so every point's evaluation costs two words per parameter:
    10·(2676·2 // 256 − 2676 // 256) = 100 steps more than with one word."""
    from reluid.checker.triangular import _charge
    from reluid.model.network import Network

    arch = (64, 32, 16, 4)
    net = Network.from_lists([([[(i + j) % 3 - 1 for j in range(a)] for i in range(b)], [1] * b)
                              for a, b in zip(arch, arch[1:])])
    pts = [tuple(F(i - t) for t in range(64)) for i in range(10)]
    c = (1, 0, 0, 0)
    blocks = [(1, 0, [(0, c), (1, c)]), (2, 3, [(2, c)])]
    used = []
    for first in (F(0), F(1, 2**62 + 1)):
        budget = Budget(limit=1 << 40)
        _charge(Context(net, "tri", budget), net, [(first,) + pts[0][1:]] + pts[1:], (0, 1), (0, 1, 2), blocks)
        used.append(budget.used)
    assert used == [8572, 8572 + 100]


def test_a_prime_dividing_a_denominator_is_refused():
    """The residues of the network modulo the certificate's prime need p ∤ every denominator (output weight 2/3,
    p = 3): refused with the checker's reason, not a crash."""
    from reluid.model.network import Network

    net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, -1]], [1]), ([[F(2, 3)]], [0])])
    with pytest.raises(CheckFailed) as e:
        triangular_rank(net, small_ev(FULL, prime=3), Context(net, "tri", Budget(limit=1 << 40)))
    assert e.value.reason == "the prime 3 divides a denominator (2/3)"


def test_a_dead_input_adds_one_kernel_direction_to_each_layer_1_sum():
    """The 2-2-1-1 network with a third input that no neuron reads (W^1 of rank ρ = 2 < n0 = 3): every Y^1_i
    gains e_3, so each layer-1 block's sum of kernels is one larger (n0 − ρ = 1, counted once per block, not
    per point); r_b, r_out and the layer-2 block are unchanged: r = 4 + 1·1 + (2 + 2 + 1) = 10."""
    from reluid.model.network import Network

    net = Network.from_lists([([[1, 0, 0], [0, 1, 0]], [0, 0]), ([[1, -1]], [1]), ([[2]], [0])])
    ev = small_ev(FULL, points=[p + ["5"] for p in POINTS])
    t = triangular_rank(net, ev, Context(net, "tri", Budget(limit=1 << 40)))
    assert (t.rank, t.r_bias, t.r_out, t.r_hidden, t.points) == (10, 4, 1, 5, 7)
    # the layer-2 block at two points where everything is on: Y^2 = span (1, 1) at both, a sum of dimension 1
    # (no n0 − ρ there: Y^2 lies in F^{n1})
    two = small_ev(FULL[:2] + [[2, 0, [[2, [1]], [4, [1]]]]], points=[p + ["5"] for p in POINTS])
    assert triangular_rank(net, two, Context(net, "tri", Budget(limit=1 << 40))).r_hidden == 5


def test_one_hidden_layer_is_a_network_with_hidden_layers():
    """Theorem A3 holds for one hidden layer too (d = 2: only the bias, output and layer-1 blocks): the
    producer's certificate of a 3-4-2 network is re-verified at r = D − N."""
    net = mlp((3, 4, 2), 1)
    r = triangular_certificate(net, seed=0)
    assert r.full_rank
    t = triangular_rank(net, evidence(net, r), Context(net, "tri", Budget(limit=1 << 40)))
    assert t.rank == net.n_params - 4 == r.rank
