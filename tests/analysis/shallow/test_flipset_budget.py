"""The flip-set search honours its time and memory: z3 is not asked for formulas that cannot fit."""

from __future__ import annotations

import time

import numpy as np
import pytest

from reluid import budget as B
from reluid.analysis.shallow.flipsets import find_flip_set
from reluid.analysis.shallow.flipsets._problem import Clock, Problem
from reluid.analysis.shallow.flipsets.solver import refusal
from reluid.model.network import Shallow
from reluid.smt.flipsets import formula_cost, solve_flip_set
from reluid.verdicts import Outcome


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
    text = no.describe()
    assert "n/km = 10.00" in text and "kernel of U of dimension 36" in text and "4 rows × 40 neurons" in text
    B.set_memory_cap(1e-9)
    no = refusal(prob, 4, Clock(None), "pb", 36)
    assert no.code == "z3-memory" and "memory cap" in no.describe()
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
    assert "z3 not attempted" in r.reason and "n/km = 100.00" in r.reason
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
