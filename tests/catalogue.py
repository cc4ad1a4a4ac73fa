"""Named ground-truth shallow examples, run through every path (style practice 12).

Each answer was derived by hand (see the comments) and is checked against the
decision procedure, the certificate checker, brute force where feasible, and
the reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F

from reluid.model.network import Shallow

__all__ = ["Example", "CATALOGUE", "by_name"]


@dataclass(frozen=True)
class Example:
    name: str
    theta: Shallow
    hidden: bool             # ground truth: does θ have a hidden symmetry?
    stratum: str
    stabilizer_order: int    # order of the finite part of Stab_{H_n}(θ)
    n_prime: int = 0         # number of zero neurons
    note: str = ""


S = Shallow.make

CATALOGUE = (
    Example("theta1", S([1, 1, 1], [[1, 1], [-1, 0], [0, -1]], [-2, -1, -1], [-6]), True, "generic", 1,
            note="Ramakrishnan 2026 §1: {1,2,3} is a flip set; θ2 realises the same function"),
    Example("theta2", S([1, 1, 1], [[-1, -1], [1, 0], [0, 1]], [2, 1, 1], [-10]), True, "generic", 1),
    Example("sum_two_kinks", S([1, 1], [[1], [1]], [0, 1], [0]), False, "generic", 1,
            note="σ(x)+σ(x+1): the paper's condition fails (β=(1,−1)) yet no flip set exists"),
    Example("generic_2_4_1", S([1, 2, 5, -3], [[1, 0], [0, 1], [1, 2], [2, -1]], [0, 1, -1, 3], [0]), False,
            "generic", 1),
    Example("literal_def9", S([2, -1], [[1], [2]], [0, 1], [0]), True, "generic", 1,
            note="satisfies Definition 9 read literally, but {1,2} is a flip set"),
    Example("flip_per_output_not_joint", S([[1, -1, 5], [2, 3, -1]], [[1], [1], [2]], [0, 1, 3], [0, 0]),
            False, "generic", 1, note="output 1 alone has F={1,2}, output 2 alone F={1,3}; none jointly"),
    Example("joint_flip_k2", S([[1, 1, 1], [2, 2, 2]], [[1, 1], [-1, 0], [0, -1]], [-2, -1, -1], [0, 0]),
            True, "generic", 1),
    Example("empty", Shallow((( ),), (), (), (F(3),), 2), False, "empty", 1),
    Example("dead_output", S([1, 0], [[1], [2]], [0, 1], [0]), True, "dead-output", 1),
    Example("zero_neuron", S([1, 0, 0], [[1], [0], [0]], [0, 0, 0], [0]), True, "dead-output", 1, n_prime=2),
    Example("constant_neuron", S([1, 4], [[1], [0]], [0, 2], [1]), True, "constant-neuron", 1),
    Example("proportional", S([2, 1], [[1], [2]], [1, 2], [0]), True, "proportional", 2,
            note="(a_2,b_2) = 2(a_1,b_1) and m_2 = m_1/2: swappable, so |S| = 2"),
    Example("proportional_not_swappable", S([1, 1], [[1], [2]], [1, 2], [0]), True, "proportional", 1),
    Example("cancelling_pair", S([1, -1, 1], [[1], [-1], [1]], [0, 0, 1], [0]), True, "cancelling-pair", 1,
            note="σ(x) − σ(−x) = x: the pair's hyperplane can move"),
    Example("relu_abs", S([1, 1], [[1], [-1]], [0, 0], [0]), False, "opposite-pairs", 1,
            note="|x| = σ(x) + σ(−x): the pair's weights are forced (w₋ = 1)"),
    Example("rigid_pair", S([1, 2], [[1], [-1]], [0, 0], [0]), False, "opposite-pairs", 1,
            note="σ(x) + 2σ(−x) is rigid (docs/mathematics.md §4)"),
    Example("hidden_pair", S([1, 2, 3], [[1], [-1], [1]], [0, 0, 1], [0]), True, "opposite-pairs", 1,
            note="σ(x) + 2σ(−x) + 3σ(x+1) = σ(x+1) + 2σ(−x−1) + 3σ(x) + 2 (docs/mathematics.md §4)"),
    Example("two_pairs_m1", S([1, 2, 3, 5], [[1], [-1], [1], [-1]], [0, 0, 1, -1], [0]), True, "dependent-pairs", 1),
    Example("two_pairs_m2", S([1, 2, 3, 5], [[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 1, -1], [0]), True,
            "opposite-pairs", 1, note="k = 1: two pairs become singles and one new pair realises the residual"),
    Example("rigid_pair_m2", S([1, 2, 1], [[1, 0], [-1, 0], [0, 1]], [0, 0, 0], [0]), False, "opposite-pairs", 1,
            note="σ(x1) + 2σ(−x1) + σ(x2): no other pattern fits L = (−2, 0)"),
)


def by_name(name: str) -> Example:
    return next(e for e in CATALOGUE if e.name == name)
