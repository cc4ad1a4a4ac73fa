"""Named planted deep networks, one per mechanism of hidden symmetry (Grigsby–Lindsey–Rolnick 2023, §5).

Each premise was derived by hand (see the comments); the tests run every entry
through mechanism detection, the witness construction, the certificate and
the independent checker, and compare the witness with θ on many exact inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from reluid.model.network import Network

__all__ = ["DeepExample", "DEEP_CATALOGUE", "deep_by_name"]

N = Network.from_lists


@dataclass(frozen=True)
class DeepExample:
    name: str
    network: Network
    mechanism: str | None     # the mechanism planted (None: nothing planted)
    layer: int = 0
    neurons: tuple[int, ...] = ()
    method: str = ""          # how its premise is proved: affine, orthant, identity or farkas
    note: str = ""


DEEP_CATALOGUE = (
    DeepExample("dead_l1", N([([[0, 0], [1, 1], [1, -1]], [-1, 0, 1]), ([[1, 2, -1], [1, -1, 1]], [0, -1]),
                              ([[1, -1]], [0])]), "dead-neuron", 1, (0,), "affine",
                "layer-1 neuron 1 is the constant -1: dead by inspection"),
    DeepExample("dead_orthant", N([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])]),
                "dead-neuron", 2, (0,), "orthant", "a non-positive row on the non-negative orthant (GLR Figure 2)"),
    DeepExample("dead_mixed", N([([[1], [1], [-1]], [0, -1, 0]), ([[-1, 1, 0], [1, -2, 1]], [-1, 0]),
                                 ([[1, 1]], [0])]), "dead-neuron", 2, (0,), "farkas",
                "-σ(x) + σ(x - 1) - 1 <= -1: dead although its row has mixed signs"),
    DeepExample("always_mixed", N([([[1], [1], [-1]], [0, -1, 0]), ([[1, -1, 0], [1, 1, 1]], [0, -1]),
                                   ([[2, 1]], [0])]), "always-active", 2, (0,), "farkas",
                "σ(x) - σ(x - 1) >= 0: always active although its row has mixed signs"),
    DeepExample("never_coactive", N([([[1], [-1], [2]], [0, 0, -1]), ([[-1, 1, 0], [1, 1, 1]], [0, -1]),
                                     ([[1, 2]], [1])]), "never-coactive", 2, (0, 0), "farkas",
                "σ(-x) - σ(x) is positive only where σ(x) = 0 (GLR mechanism (ii))"),
    DeepExample("layer_flip", N([([[1, 2], [-1, -2], [2, -1]], [1, 0, 1]), ([[1, 1, 3], [2, 2, -1]], [0, 1]),
                                 ([[1, -1]], [0])]), "layer-flip", 1, (0, 1), "identity",
                "opposite layer-1 rows with equal outgoing columns: F = {1, 2} is a layer flip set (GLR (iv))"),
    DeepExample("zero_outgoing", N([([[1, 2], [-1, 1], [2, -1]], [1, 0, -1]), ([[1, 0, 2], [2, 0, -1]], [0, 1]),
                                    ([[1, -1]], [0])]), "zero-outgoing", 1, (1,), "identity",
                "W^2[:, 2] = 0: the incoming row of neuron 2 is free (Ramakrishnan Lemma 10, one layer)"),
    DeepExample("proportional", N([([[1, 2], [-1, 1], [2, -1]], [1, 0, -1]), ([[1, -1, 2], [2, -2, 4]], [0, 0]),
                                   ([[1, 3]], [0])]), "proportional-neurons", 2, (0, 1), "identity",
                "row 2 = 2 · row 1 in hidden layer 2 (Ramakrishnan Lemma 11(1), one layer)"),
    DeepExample("collapsed_kink", N([([[1, 0], [-1, -1], [0, 1]], [0, 0, -1]),
                                     ([[1, -1, 0], [2, 0, -1], [0, 1, 1]], [-1, "-1/2", -1]), ([[1, 2, -1]], [0])]),
                "collapsed-kink", 1, (0,), "farkas",
                "neuron 1 of layer 1 (σ(x1)) is neither dead nor always active and co-active with both successors, "
                "yet wherever x1 < 0 both successors are <= 0 with and without its ReLU (GLR mechanism (iii))"),
    DeepExample("affine_hull", N([([[1, 0], [1, 0], [0, 1]], [0, -1, 0]),
                                  ([[1, -1, 0], [-1, 1, 0], [-1, 0, 1]], [1, 2, "1/2"]),
                                  ([[1, 2, 1], [2, 1, -1]], [-1, "-1/2"]), ([[1, 1]], [0])]),
                "affine-layer-flip", 3, (0, 1), "farkas",
                "g1 + g2 = 3 on R^2: the image of layer 2 lies in a plane, and flipping F = {1, 2} in layer 3 only "
                "shifts the output bias although Σ W^4[:, i] W^3[i, :] = (3, 3, 0) ≠ 0 (GLR mechanism (iv), affine)"),
    DeepExample("generic", N([([[1, 2], [-1, 1], [2, -1]], [1, 0, -1]),
                              ([[1, -1, 2], [2, 1, -1], [-1, 1, 1]], [0, 1, -1]), ([[1, -2, 1]], [1])]), None,
                note="nothing planted"),
)


def deep_by_name(name: str) -> DeepExample:
    return next(e for e in DEEP_CATALOGUE if e.name == name)
