"""The checker's readers (reluid/checker/readers.py) beyond test_readers.py: θ as integer rows, and list readers'
messages, with exact expected values."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from reluid.checker import readers as R
from reluid.checker.registry import Context
from reluid.errors import CheckFailed
from reluid.io.loader import ArrayLayer, network_from_arrays
from reluid.model.network import Network

NET = Network.from_lists([([[F(1, 2), F(1, 3)], [2, 0]], [F(1, 6), 1]), ([[F(3, 4), 5]], [0])])


def test_lcm_rows():
    ints, scales = R.lcm_rows([[F(1, 2), F(1, 3), F(5, 6)], [F(2), F(4)], [F(0), F(-3, 4)]])
    assert ints == [[3, 2, 5], [2, 4], [0, -3]] and scales == [F(1, 6), F(1), F(1, 4)]
    assert all(type(x) is int for r in ints for x in r)
    assert R.lcm_rows([]) == ([], [])


def test_neuron_rows_and_output_columns():
    t = NET.shallow()
    assert R.neuron_rows(t) == ([[3, 2, 1], [2, 0, 1]], [F(1, 6), F(1)])
    assert R.output_columns(t) == ([[3], [5]], [F(1, 4), F(1)])


def test_rationals_name_their_field():
    c = Context(NET, "c")
    with pytest.raises(CheckFailed) as e:
        R.rationals(c, "1/2", "w")
    assert (e.value.claim, e.value.reason) == ("c", "w must be a list")
    with pytest.raises(CheckFailed) as e:
        R.rationals(c, [1], "w", 2)
    assert e.value.reason == "w has 1 entries, expected 2"
    assert R.rationals(c, [1, "1/2"], "w", 2) == (F(1), F(1, 2))


def test_rows_of_a_network_read_from_floats():
    """float32 weights are read as integers times a power of two per row: taken as they are."""
    W1 = np.array([[0.5, 0.25], [1.5, -2.0]], dtype=np.float32)
    W2 = np.array([[0.75, -4.0], [3.0, 0.5]], dtype=np.float32)
    b = np.zeros(2, dtype=np.float32)
    t = network_from_arrays([ArrayLayer(W1, np.array([0.125, 1.0], dtype=np.float32), "W", "b"),
                             ArrayLayer(W2, b, "W", "b")]).shallow()
    assert t.hidden is not None and t.output is not None
    assert R.neuron_rows(t) == ([[4, 2, 1], [3, -4, 2]], [F(1, 8), F(1, 2)])
    C, mu = R.output_columns(t)
    assert (C, mu) == ([[3, 12], [-16, 2]], [F(1, 4), F(1, 4)])        # one scale: the rows' least power of two
    for i in range(2):
        assert [mu[i] * c for c in C[i]] == list(t.out(i))
