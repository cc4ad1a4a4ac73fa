"""The functional dimension under time and memory budgets: stalls, per-chunk deadlines, estimates, messages."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest

import reluid.analysis.deep.fundim as fd
from reluid import budget as B
from reluid.analysis.deep.fundim import estimate_memory_gb, estimate_seconds, functional_dimension
from reluid.analysis.deep.survey import random_network
from reluid.model import Network
from reluid.report.fundim import describe_fundim


def gaussian_net(arch, seed):
    return random_network(arch, np.random.default_rng(seed))


@pytest.fixture
def cap():
    yield
    B.set_memory_cap(None)


def test_a_rank_that_stops_growing_is_reported_as_stalled(monkeypatch):
    """A dead hidden neuron (zero incoming weights, negative bias) leaves a true gap: the rank stops growing,
    and the result says so with the rounds that added nothing, instead of asking for more time."""
    rng = np.random.default_rng(5)
    W1 = rng.normal(0, 0.5, (6, 4))
    b1 = rng.normal(0, 0.1, 6)
    W2 = rng.normal(0, 0.5, (6, 6))
    b2 = rng.normal(0, 0.1, 6)
    W2[0] = 0.0
    b2[0] = -1.0                                     # layer-2 neuron 0 is never active
    W3 = rng.normal(0, 0.5, (2, 6))
    net = Network.from_lists([(W1.tolist(), b1.tolist()), (W2.tolist(), b2.tolist()), (W3.tolist(), [0.0, 0.0])],
                             allow_float=True)
    r = functional_dimension(net, points=10**6)
    assert r.stop_reason == "rank stalled" and r.complete and r.gap > 0
    assert r.stall_rounds >= fd._Run.STALL_ROUNDS and r.stall_regions >= 0
    text = describe_fundim(r)
    assert f"rank stalled at {r.rank} after {r.stall_rounds} rounds" in text and "needs about" not in text
    assert r.stop.code == "rank stalled" and r.stop.stall_rounds == r.stall_rounds
    # without the stall rule the same sample gives the same rank (the stall only saved time)
    monkeypatch.setattr(fd._Run, "stall_enabled", False)
    full = functional_dimension(net, points=10**6)
    assert full.rank == r.rank and full.stop_reason == "sample exhausted"


def test_the_deadline_is_checked_between_chunks(monkeypatch):
    """A deadline passing inside a block stops before the next chunk; the rank so far is kept."""
    net = gaussian_net((6, 12, 12, 3), 1)
    full = functional_dimension(net)
    monkeypatch.setattr(fd, "_MAX_ENTRIES", 1 << 10)       # many small chunks per block
    orig = fd._Kernel.add
    calls = {"n": 0}

    def add(self, *a, **k):
        out = orig(self, *a, **k)
        calls["n"] += 1
        if calls["n"] == 2:
            run_deadline[0] = True
        return out

    run_deadline = [False]
    orig_check = fd._Run._check_clock

    def check(self):
        if run_deadline[0]:
            self.deadline = time.monotonic() - 1
        orig_check(self)

    monkeypatch.setattr(fd._Kernel, "add", add)
    monkeypatch.setattr(fd._Run, "_check_clock", check)
    r = functional_dimension(net)
    assert r.stop_reason == "time budget" and 0 < r.rank < full.rank and calls["n"] == 2


def test_estimates_include_the_input_width():
    """100-64-64-10 and 384-64-64-10 have the same columns of S and rank needed; the wider input costs more
    (measured 47-61 s against 78 s CPU with this version, 253-271 s before)."""
    assert estimate_seconds((384, 64, 64, 10)) > 1.4 * estimate_seconds((100, 64, 64, 10))
    assert estimate_memory_gb((384, 64, 64, 10)) >= estimate_memory_gb((100, 64, 64, 10))
    assert estimate_memory_gb((784, 128, 128, 10)) > 8


def test_memory_cap_declines_before_allocating(cap):
    net = gaussian_net((6, 12, 12, 3), 1)
    B.set_memory_cap(B.resident_gb() + 0.01)
    r = functional_dimension(net)
    assert r.stop_reason == "not attempted" and r.rank == 0 and r.estimate_gb > r.memory_cap_gb
    assert "memory cap" in describe_fundim(r) and r.stop.estimate_gb == r.estimate_gb


def test_progress_without_rich_says_so_once(monkeypatch):
    from reluid.analysis import progress as P

    monkeypatch.setattr(P, "_rich_sink", lambda stream, force: None)
    monkeypatch.setattr(P, "_NO_RICH_SAID", False)
    err = io.StringIO()
    with P.progress_bar(True, stream=err, force=True):
        pass
    with P.progress_bar(True, stream=err, force=True):
        pass
    assert err.getvalue().count("needs the optional package rich") == 1


def test_side_properties_get_a_share_of_the_timeout():
    """Local identifiability of a shallow network is attempted within a share of --timeout, not a fixed 2 s."""
    import reluid
    from reluid.budget import Budget

    net = gaussian_net((16, 40, 3), 2)
    cert = reluid.certify(net, budget=Budget(60.0))
    from reluid.report.reasons import note, sentence
    li = cert.producer.get("local_identifiability")
    assert li is None or "2.0 s" not in note(li)
    from reluid.api import SIDE_PROPERTY_SHARE, _shallow_fundim
    fdr, why = _shallow_fundim(net, Budget(0.05), 0)
    assert fdr is None and why.code == "local-identifiability-skipped" and why.params["left_s"] is not None
    assert f"{SIDE_PROPERTY_SHARE:.0%} of the" in sentence(why)


def test_cli_memory_gb_caps_the_functional_dimension(tmp_path, cap):
    from reluid.cli.main import main

    import reluid
    path = tmp_path / "n.json"
    reluid.save(gaussian_net((6, 12, 12, 3), 1), path)
    out, err = io.StringIO(), io.StringIO()
    rc = main(["fundim", str(path), "--memory-gb", "0.001"], out, err)
    assert rc == 3 and "not attempted" in out.getvalue() and "memory cap" in out.getvalue()
    B.set_memory_cap(None)
    out = io.StringIO()
    assert main(["fundim", str(path)], out, err) == 0 and "= U (certified)" in out.getvalue()


def test_no_block_starts_once_most_of_the_memory_cap_is_held(monkeypatch):
    net = gaussian_net((6, 12, 12, 3), 1)
    monkeypatch.setattr(fd, "resident_gb", lambda: 100.0)
    r = functional_dimension(net)
    assert r.stop_reason == "memory cap" and not r.complete and r.rank == 0
    assert "memory cap" in describe_fundim(r)
