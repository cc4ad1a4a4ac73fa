"""Theorem A3 (docs/mathematics.md §6.4): local identifiability from a block-triangular Jacobian.

Planted networks: float32 He-initialised MLPs that meet the condition (checked by the independent checker,
and never above the full rank of §6.3); a dead neuron and a neuron with zero outgoing weights (dim_fun < U)
that must not meet it; forged certificates (a block's combination changed, a block listed twice, a point
moved to another region, a non-generic point, a rank claimed too high) that the checker must reject.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from benchmarks.bench_fundim import mlp  # float32 He-initialised weights and biases, read exactly
from reluid.analysis.deep.fundim import functional_dimension, upper_bound
from reluid.analysis.deep.triangular import triangular_certificate
from reluid.certificates.schema import ClaimKind
from reluid.checker import fundim as cfd
from reluid.checker.registry import VERIFIERS, Budget, Context
from reluid.checker.triangular import triangular_rank
from reluid.errors import CheckFailed
from reluid.model.network import Network
from reluid.verdicts import StopReason
from reluid.report.fundim import describe_fundim, describe_triangular


CASES = [((24, 8, 8, 4), 1), ((30, 10, 10, 5), 1), ((10, 4, 3), 0)]


def evidence(net, r):
    ev = r.evidence()
    ev.update(rank=r.rank, n_params=net.n_params, upper_bound=cfd.upper_bound(net.architecture))
    return ev


def fd(ev, net):
    return VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION](ev, Context(net, "fundim", Budget()))


def li(ev, net):
    return VERIFIERS[ClaimKind.LOCAL_IDENTIFIABILITY](ev, Context(net, "local", Budget()))


@pytest.fixture(scope="module")
def certified():
    out = []
    for arch, seed in CASES:
        net = mlp(arch, seed)
        out.append((net, triangular_certificate(net)))
    return out


def test_planted_networks_are_certified_and_checked(certified):
    for net, r in certified:
        D_N = net.n_params - sum(net.architecture[1:-1])
        assert r.full_rank and r.rank == r.target == D_N and r.stop_reason == StopReason.UPPER_BOUND, describe_triangular(r)
        ev = evidence(net, r)
        assert fd(ev, net).endswith(f"dim_fun = U = {D_N} (certified)")
        assert "Theorems A3 and A1 apply (locally identifiable" in li(ev, net)
        t = triangular_rank(net, ev, Context(net, "t", Budget()))
        assert (t.rank, t.r_bias, t.r_out) == (r.rank, r.r_bias, r.r_out)     # the checker's own computation
        assert r.r_bias == sum(net.architecture[1:]) and r.r_out == net.architecture[-2]


def test_triangular_rank_never_exceeds_the_full_rank():
    """r ≤ rank J (Theorem A3) at any network, certified or not; the full rank of §6.3 reaches U here."""
    for arch, seed in [((24, 8, 8, 4), 0), ((16, 6, 6, 6, 4), 0), ((10, 4, 3), 1)]:
        net = mlp(arch, seed)
        r = triangular_certificate(net)
        full = functional_dimension(net, points=4000)
        assert r.rank <= full.rank <= upper_bound(arch)[0]
        assert not r.full_rank or full.certified


def _dead(net, layer, u):
    """Neuron u of hidden layer ``layer`` with zero incoming weights and bias -1: dead everywhere."""
    layers = [([list(r) for r in L.weight], list(L.bias)) for L in net.layers]
    W, b = layers[layer - 1]
    W[u] = [0] * len(W[u])
    b[u] = -1
    return Network.from_lists(layers)


def _mute(net, layer, u):
    """Neuron u of hidden layer ``layer`` with zero outgoing weights (Remark (2) of §6.3: rank < U)."""
    layers = [([list(r) for r in L.weight], list(L.bias)) for L in net.layers]
    W, _ = layers[layer]
    for row in W:
        row[u] = 0
    return Network.from_lists(layers)


@pytest.mark.parametrize("planted", [_dead, _mute])
def test_networks_below_U_are_not_certified(certified, planted):
    """A dead neuron, or one with zero outgoing weights, has dim_fun < D - N: the condition must fail, and the
    certificate of the unmodified network must be rejected for the modified one."""
    net, r = certified[0]
    for layer, u in ((1, 3), (2, 5)):
        bad = planted(net, layer, u)
        got = triangular_certificate(bad)
        assert not got.full_rank and got.rank < got.target
        assert functional_dimension(bad, points=4000).rank < got.target      # dim_fun < D - N indeed
        ev = evidence(bad, r)
        with pytest.raises(CheckFailed):
            li(ev, bad)
        with pytest.raises(CheckFailed):
            fd(ev, bad)


def _later_blocks(ev):
    """The blocks listed after another block of their layer (their combinations have a condition)."""
    first = {}
    for n, b in enumerate(ev["blocks"]):
        first.setdefault(b[0], n)
    return [n for n, b in enumerate(ev["blocks"]) if first[b[0]] != n]


def test_forged_certificates_are_rejected(certified):
    net, r = certified[0]
    ev = evidence(net, r)
    k = net.architecture[-1]
    fd(ev, net)

    def forged(change):
        e = copy.deepcopy(ev)
        change(e)
        return e

    # a block whose combination of outputs is 0 (so its family is 0 on its own block)
    e = forged(lambda e: e["blocks"][0][2][0].__setitem__(1, [0] * k))
    with pytest.raises(CheckFailed, match="the combination of outputs is 0 at neuron"):
        li(e, net)
    # a block whose combination does not vanish on the neurons listed before it: some unit combination e_o at a
    # block listed after another of its layer (where an earlier neuron is active) must be caught
    caught = 0
    for n in _later_blocks(ev):
        for o in range(k):
            e = forged(lambda e: e["blocks"][n][2][0].__setitem__(1, [int(t == o) for t in range(k)]))
            try:
                li(e, net)
            except CheckFailed as err:
                assert "is not 0 on the neurons listed before" in str(err) or "is 0 at neuron" in str(err) \
                    or "less than D - N" in str(err), str(err)
                caught += "is not 0 on the neurons listed before" in str(err)
    assert caught
    # a block listed twice would count its rank twice
    e = forged(lambda e: e["blocks"].append(copy.deepcopy(e["blocks"][-1])))
    with pytest.raises(CheckFailed, match="is listed twice"):
        li(e, net)
    # a block left out: the rank falls below D - N
    e = forged(lambda e: e["blocks"].pop())
    with pytest.raises(CheckFailed, match="less than D - N"):
        li(e, net)
    with pytest.raises(CheckFailed, match="less than the claimed"):
        fd(e, net)
    # a point moved to another activation region (the point of another block)
    i, j = ev["blocks"][-1][2][0][0], ev["blocks"][0][2][0][0]
    assert i != j
    e = forged(lambda e: e["points"].__setitem__(i, e["points"][j]))
    with pytest.raises(CheckFailed):
        li(e, net)
    # a point where a hidden pre-activation is 0
    w, b = net.layers[0].weight[0], net.layers[0].bias[0]
    x = [-b * q / sum(v * v for v in w) for q in w]
    assert sum(a * q for a, q in zip(w, x)) + b == 0
    e = forged(lambda e: e["points"].__setitem__(i, [str(q) for q in x]))
    with pytest.raises(CheckFailed, match="is not generic"):
        li(e, net)
    # malformed evidence: one clear reason, no traceback
    for change, match in [(lambda e: e.__setitem__("method", "magic"), "unknown functional-dimension method"),
                          (lambda e: e.__setitem__("blocks", [[9, 0, []]]), "a block's layer = 9 is outside"),
                          (lambda e: e["blocks"][0][2].append(copy.deepcopy(e["blocks"][0][2][0])),
                           "lists a point twice"),
                          (lambda e: e["blocks"][0][2][0].__setitem__(1, [1]), "combination")]:
        with pytest.raises(CheckFailed, match=match):
            li(forged(change), net)


def test_a_prime_dividing_a_denominator_is_rejected(certified):
    net, r = certified[2]
    layers = [([list(r) for r in L.weight], list(L.bias)) for L in net.layers]
    layers[0][1][0] = F(1, r.prime)
    bad = Network.from_lists(layers)
    with pytest.raises(CheckFailed, match="divides a denominator"):
        li(evidence(bad, r), bad)


def test_cli_triangular(tmp_path):
    """``reluid fundim NET --triangular``: exit 0 with both claims re-verified; 3 (no conclusion) for a dead neuron."""
    import io

    from reluid.cli.main import main
    from reluid.io.loader import save

    net = mlp((24, 8, 8, 4), 1)
    for n, want in ((net, 0), (_dead(net, 1, 3), 3)):
        path = tmp_path / f"net{want}.json"
        save(n, path)
        out, err = io.StringIO(), io.StringIO()
        assert main(["fundim", str(path), "--triangular", "--json", str(tmp_path / "ev.json")], out, err) == want
        text = out.getvalue()
        if want == 0:
            assert "locally identifiable (Theorem A3" in text and "Theorems A3 and A1 apply" in text
        else:
            assert "no conclusion" in text and "check" not in text


def test_deadline_and_memory_cap_are_honoured():
    """A deadline in the past stops before the first point; so does a memory cap the process already exceeds.
    The rank so far (0) is reported, never a conclusion."""
    import time

    from reluid.budget import set_memory_cap

    net = mlp((24, 8, 8, 4), 1)
    r = triangular_certificate(net, deadline=time.monotonic() - 1)
    assert r.stop_reason == StopReason.TIME_BUDGET and r.rank == 0 and not r.full_rank and not r.points
    set_memory_cap(0.001)
    try:
        r = triangular_certificate(net)
    finally:
        set_memory_cap(None)
    assert r.stop_reason == StopReason.MEMORY_CAP and not r.full_rank


def test_the_deep_decision_falls_back_to_theorem_a3_and_its_claims_are_checked():
    """Where the full rank of §6.3 is not attempted, the deep decision takes Theorem A3's rank D - N instead: the
    certificate's functional-dimension and local-identifiability claims carry its evidence, the checker verifies
    both, and the report names Theorem A3."""
    from reluid.analysis.deep import decide as deep_decide
    from reluid.analysis.deep.fundim import FunDimResult
    from reluid.certificates.build import fundim_claims

    net = mlp((24, 8, 8, 4), 1)
    U = upper_bound(net.architecture)[0]
    skipped = FunDimResult(architecture=net.architecture, n_params=net.n_params, upper_bound=U,
                           upper_bound_reason="", rank=0, prime=2, points=(), n_sampled=0, n_smooth=0, n_regions=0,
                           n_rows=0, stopped_early=False, seed=0, method="exact",
                           stop_reason=StopReason.NOT_ATTEMPTED, estimate_s=1e4)
    got = deep_decide._by_theorem_a3(net, skipped, 0, None)
    assert got.certified and got.full_rank and got.triangular is not None and got.rank == U
    assert "Theorem A3" in describe_fundim(got)
    claims = fundim_claims(got)
    assert [c.kind for c in claims] == [ClaimKind.FUNCTIONAL_DIMENSION, ClaimKind.LOCAL_IDENTIFIABILITY]
    for c in claims:
        assert c.evidence["method"] == "triangular" and c.evidence["rank"] == U
        lines = VERIFIERS[c.kind](copy.deepcopy(dict(c.evidence)), Context(net, c.id, Budget()))
        assert lines
    forged = copy.deepcopy(dict(claims[0].evidence))
    forged["rank"] = U + 1
    with pytest.raises(CheckFailed):
        VERIFIERS[ClaimKind.FUNCTIONAL_DIMENSION](forged, Context(net, "fundim", Budget()))
    # a network with dim_fun < U (a dead neuron) keeps what the full rank said
    W1, b1 = [list(r) for r in net.layers[0].weight], list(net.layers[0].bias)
    W1[0], b1[0] = [F(0)] * len(W1[0]), F(-1)
    dead = Network.from_lists([(W1, b1)] + [([list(r) for r in L.weight], list(L.bias)) for L in net.layers[1:]])
    assert deep_decide._by_theorem_a3(dead, skipped, 0, None) is skipped
