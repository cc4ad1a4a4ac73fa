"""The flip-set search honours its time and memory: z3 is not asked for formulas that cannot fit."""

from __future__ import annotations

import time

import numpy as np
import pytest

from reluid import budget as B
from reluid.analysis.shallow.flipsets import (SEPARATION_SHARE, SEPARATION_UNLIKELY, find_flip_set,
                                              separable_probability, separation_clock)
from reluid.analysis.shallow.flipsets._problem import Clock, Problem
from reluid.analysis.shallow.flipsets.solver import refusal
from reluid.model.network import Shallow
from reluid.smt.flipsets import formula_cost, solve_flip_set
from reluid.verdicts import Outcome
from reluid.report.reasons import sentence


def _random_shallow(m: int, n: int, k: int, seed: int = 0) -> Shallow:
    rng = np.random.default_rng(seed)
    M = rng.integers(-50, 51, size=(k, n)).tolist()
    A = rng.integers(-50, 51, size=(n, m)).tolist()
    b = rng.integers(-50, 51, size=n).tolist()
    return Shallow.make([row for row in M] if k > 1 else M[0], A, b, [0] * k)


@pytest.fixture
def cap():
    yield
    B.set_memory_cap(None)


def test_formula_cost_grows_with_size():
    s1, g1 = formula_cost(10, 100)
    s2, g2 = formula_cost(20, 100)
    assert s2 == pytest.approx(2 * s1) and g2 == pytest.approx(2 * g1)
    assert formula_cost(10, 100, "int")[0] > s1                  # If terms over big integers cost more


def test_building_stops_at_the_deadline():
    ans = solve_flip_set([[1, 2, -3]] * 5, 3, deadline=time.monotonic() - 1)
    assert ans.outcome is Outcome.UNKNOWN and "0 of 5 rows" in ans.reason
    assert solve_flip_set([[1, 2, -3]], 3, deadline=time.monotonic() + 60).flip_set == frozenset({0, 1, 2})


def test_refusal_names_time_memory_and_regime(cap):
    prob = Problem(_random_shallow(2, 40, 2), 0)
    clock = Clock(1e-6)
    time.sleep(0.001)
    no = refusal(prob, 4, Clock(None), "pb", 36)
    assert no is None                                           # unbounded time, default memory: it fits
    tiny = Clock(1e-4)
    no = refusal(prob, 4, tiny, "pb", 36)
    assert no is not None and no.code == "z3-time"
    text = sentence(no.reason())
    assert "n/km = 10.00" in text and "kernel of U of dimension 36" in text and "4 rows × 40 neurons" in text
    B.set_memory_cap(1e-9)
    no = refusal(prob, 4, Clock(None), "pb", 36)
    assert no.code == "z3-memory" and "memory cap" in sentence(no.reason())
    del clock


def test_past_the_separable_regime_z3_is_declined_not_built(cap):
    """n = 400 ≫ 2km = 8: no separation, kernel too large to enumerate, n > LATTICE_MAX_N; a memory cap
    below the formula's estimate makes the search answer unknown at once, naming z3 and the regime."""
    theta = _random_shallow(2, 400, 2, seed=1)
    prob = Problem(theta, 0)
    _, gb = formula_cost(prob.km, prob.n)
    B.set_memory_cap(B.resident_gb() + gb / 2)
    t0 = time.perf_counter()
    r = find_flip_set(theta, timeout=30)
    assert r.outcome is Outcome.UNKNOWN
    assert "z3 not attempted" in sentence(r.reason) and "n/km = 100.00" in sentence(r.reason)
    assert r.reason.params["methods"][-1][1]["code"] == "z3-memory"
    assert ("z3", 0.0, "z3-memory") in r.stats
    assert time.perf_counter() - t0 < 20


def test_memory_cap_settings(cap, monkeypatch):
    monkeypatch.delenv("RELUID_MEMORY_GB", raising=False)
    assert B.memory_cap_gb() == pytest.approx(B.DEFAULT_MEMORY_FRACTION * B.machine_memory_gb())
    monkeypatch.setenv("RELUID_MEMORY_GB", "3.5")
    assert B.memory_cap_gb() == 3.5
    B.set_memory_cap(1.25)
    assert B.memory_cap_gb() == 1.25 and B.memory_left_gb() <= 1.25
    with pytest.raises(ValueError):
        B.set_memory_cap(0)
    assert B.resident_gb() > 0


def _float32_shallow(m: int, n: int, k: int, seed: int = 0) -> Shallow:
    """A He-initialised float32 θ, held as integer forms (read as from a file)."""
    from reluid.io.loader import ArrayLayer, network_from_arrays

    rng = np.random.default_rng(seed)
    layers = [ArrayLayer((rng.standard_normal((b, a)) * np.sqrt(2 / a)).astype(np.float32),
                         (rng.standard_normal(b) * 0.1).astype(np.float32), "W", "b") for a, b in ((m, n), (n, k))]
    return network_from_arrays(layers).shallow()


def test_separation_gets_a_share_of_the_time_only_where_it_is_unlikely():
    unlikely = Problem(_random_shallow(10, 301, 10), 0)        # n/km = 3.01: P ≈ 3e-9 (Wendel)
    likely = Problem(_random_shallow(10, 150, 10), 0)          # n/km = 1.5: P ≈ 1
    assert separable_probability(301, 100) < SEPARATION_UNLIKELY < separable_probability(150, 100)
    clock = Clock(40)
    assert separation_clock(likely, clock) is clock
    own = separation_clock(unlikely, clock)
    assert own is not clock and own.remaining() <= SEPARATION_SHARE * 40
    unbounded = Clock(None)
    assert separation_clock(unlikely, unbounded) is unbounded   # no budget: the search's own limits bound it


def test_a_float32_network_past_n_km_2_gets_an_unknown_naming_the_regime_without_fractions(cap):
    """10-301-10 float32 (n/km = 3.01, n > LATTICE_MAX_N): separation fails (or stops at its share), z3 is
    declined under a memory cap below its formula, and the answer is unknown with the regime and both reasons;
    θ's Fractions are never built (the search runs on the integer forms)."""
    theta = _float32_shallow(10, 301, 10)
    prob = Problem(theta, 0)
    _, gb = formula_cost(prob.km, prob.n)
    B.set_memory_cap(B.resident_gb() + gb / 2)
    r = find_flip_set(theta, timeout=30)
    assert r.outcome is Outcome.UNKNOWN and r.method == "none"
    words = sentence(r.reason)
    assert "separation: " in words and "z3 not attempted" in words and "n/km = 3.01" in words
    assert [s[0] for s in r.stats][-2:] == ["separation", "z3"] and r.stats[-1][2] == "z3-memory"
    assert theta._A is None and theta._M is None               # no Fraction matrix of θ was built
