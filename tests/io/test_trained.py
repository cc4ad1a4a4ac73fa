"""Trained two-hidden-layer models (``tests/fixtures/trained/``) load exactly as their producers computed them.

Written by ``python tests/fixtures/make_fixtures.py trained`` (torch and scikit-learn on the data sets
bundled with scikit-learn; the docstring of ``make_fixtures.py`` gives the versions).  ``expected.json``
holds each producer's float64 outputs at exact held-out inputs; reluid's exact outputs must round to them.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import reluid
from tests.paths import ROOT

TRAINED = ROOT / "tests" / "fixtures" / "trained"
EXPECTED = json.loads((TRAINED / "expected.json").read_text(encoding="utf-8"))


def _files(name):
    if name.startswith("torch_"):
        return [(f"{name}.onnx", None), (f"{name}.safetensors", "relu-mlp")]
    return [(f"{name}.npz", None)]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_trained_models_load_exactly(name):
    entry = EXPECTED[name]
    outputs = entry.get("outputs") or entry["logits"]
    for file, assume in _files(name):
        net = reluid.load(TRAINED / file, assume=assume)
        assert list(net.architecture) == entry["architecture"] and net.depth == 3
        assert all(Fraction(float(np.float32(x))) == x for L in net.layers for r in L.weight for x in r)  # float32
        for x, want in zip(entry["inputs"], outputs):
            got = net([Fraction(v) for v in x])
            # the producer's float64 forward pass is within a few ulps of the exact value
            assert np.allclose([float(v) for v in got], [float.fromhex(w) for w in want], rtol=1e-12, atol=1e-12)


def test_the_trained_models_learned_their_task():
    assert EXPECTED["torch_digits_64_32_32_10"]["test_accuracy"] > 0.9
    assert EXPECTED["torch_breast_cancer_30_16_16_1"]["test_accuracy"] > 0.9
    assert EXPECTED["sklearn_digits_mlp_classifier_64_32_32_10"]["test_score"] > 0.9


def test_test_inputs_are_float32_rows():
    X = np.load(TRAINED / "digits_test_inputs.npy")
    assert X.dtype == np.float32 and X.shape == (32, 64) and 0 <= X.min() and X.max() <= 1
