"""Grigsby–Lindsey–Rolnick 2023, Section 5, mechanism (ii): a pair of neurons that are never co-active."""

from __future__ import annotations

from fractions import Fraction

from ._framework import GLR, SEED_G, Checks, Statement, equal_1d, fmt_net, test_points_1d
from reluid.analysis.deep.orbit import same_orbit
from reluid.model.network import Layer, Network
from ._lemmas import deep_functions_equal, deep_never_coactive

ARCHS = ((1, 2, 2, 1), (2, 2, 2, 1), (2, 2, 2, 2, 1))
ARCHS_LARGE = ((2, 3, 3, 1), (2, 2, 3, 2, 1))

# n0 = 1: h = (σ(x), σ(−x)); layer 2: z_1 = h2 − h1 (on only for x < 0, where h1 = 0), z_2 = h1 − h2 = x.
EXAMPLE = Network.from_lists([([[1], [-1]], [0, 0]), ([[-1, 1], [1, -1]], [0, 0]), ([[1, 2]], [0])])


def _never_coactive_1d(net: Network, layer: int, i: int, j: int) -> bool:
    """Exact for n0 = 1: both pre-activations are affine on every cell between breakpoints, so testing every
    breakpoint and cell midpoint decides whether z^{ℓ−1}_i > 0 and z^ℓ_j > 0 ever hold together."""
    for x in test_points_1d(net):
        pre = net.preactivations((x,))
        if pre[layer - 2][i] > 0 and pre[layer - 1][j] > 0:
            return False
    return True


def _decrease(net: Network, layer: int, i: int, j: int, delta: Fraction) -> Network:
    layers = [[[list(r) for r in L.weight], list(L.bias), L.n_in] for L in net.layers]
    layers[layer - 1][0][j][i] -= delta
    return Network(tuple(Layer(tuple(tuple(r) for r in W), tuple(b), n) for W, b, n in layers))


def check(max_n, timeout):
    c = Checks(timeout)
    archs = ARCHS + (ARCHS_LARGE if (max_n or 0) >= 3 else ())
    for arch in archs:
        queries = [deep_never_coactive(arch, l, i, j, timeout=c.budget())
                   for l in range(2, len(arch) - 1) for i in range(arch[l - 1]) for j in range(arch[l])]
        c.z3_unsat_all(f"z3, architecture {arch}, every pair (i in layer ℓ−1, j in layer ℓ): not both on at x ∧ "
                       "F_θ(x) ≠ F_θ′(x) with W^ℓ[j, i] decreased by δ ≥ 0", queries)
    c.z3_sat("z3, architecture (1, 2, 2, 1), hypothesis dropped (vacuity check)",
             deep_never_coactive((1, 2, 2, 1), 2, 0, 0, hypothesis=False, timeout=c.budget()))
    layer, i, j = 2, 0, 0
    premise = _never_coactive_1d(EXAMPLE, layer, i, j)
    c.exact(f"example θ = {fmt_net(EXAMPLE)}: neuron 1 of layer 1 and neuron 1 of layer 2 are never co-active "
            "(exact: n0 = 1, every breakpoint and cell midpoint tested)", premise)
    family = [_decrease(EXAMPLE, layer, i, j, d) for d in (Fraction(1, 2), Fraction(1), Fraction(7))]
    equal = all(equal_1d(EXAMPLE, w)[0] for w in family)
    outside = all(same_orbit(EXAMPLE, w) is None for w in family)
    c.exact("θ′ with W²[1, 1] decreased by δ ∈ {1/2, 1, 7} realise F_θ exactly (n0 = 1) and none is in the orbit "
            "of θ (reluid's exact deep orbit test)", equal and outside)
    c.z3_unsat("z3 (linear arithmetic), the same for δ = 1/2: ∃x F_θ(x) ≠ F_θ′(x)",
               deep_functions_equal(EXAMPLE, family[0], timeout=c.budget()))
    c.remark("The pointwise statement is for decreasing the weight: where the upstream neuron is off the weight "
             "is multiplied by 0, and where the downstream neuron is off a smaller weight keeps it off. Increasing "
             "the weight is also harmless when the downstream pre-activation stays ≤ 0, which holds for small "
             "changes when it is bounded away from 0 where the upstream neuron is on ('generically', as GLR say); "
             "in the example the downstream pre-activation is −σ(x) there, which is not bounded away from 0, so "
             "only decreases are used.")
    return c.outcome("Proved pointwise for every adjacent pair of the listed architectures (z3 unsat with all weights, "
                     "the input and δ unknown), and exhibited exactly on a concrete network.")


STATEMENT = Statement(
    name="grigsby_mechanism_ii",
    title="Mechanism (ii) (never co-active neurons)",
    paper=GLR,
    reference=f"{SEED_G}, §5, mechanism (ii), Definition A.5, Figure 3",
    statement="If neuron i of layer ℓ−1 and neuron j of layer ℓ are never co-active ({x : z^{ℓ−1}_i(x) > 0 and "
              "z^ℓ_j(x) > 0} = ∅), the weight W^ℓ[j, i] can be perturbed (decreased) without changing F_θ: either "
              "the upstream neuron is off and contributes 0, or the downstream neuron is off and stays off.",
    method="z3, pointwise and for all parameters: weights, biases, x and δ ≥ 0 unknown, hypothesis "
           "¬(z^{ℓ−1}_i(x) > 0 ∧ z^ℓ_j(x) > 0), goal F_θ(x) ≠ F_θ′(x) with W^ℓ[j, i] − δ, for every adjacent "
           "pair (unsat expected); vacuity query without the hypothesis (sat expected). Concrete network with "
           "n0 = 1: premise, equality of functions (exact, all breakpoints) and non-membership in the orbit (exact).",
    sizes="architectures (1, 2, 2, 1), (2, 2, 2, 1), (2, 2, 2, 2, 1); with --max-n 3 or more also (2, 3, 3, 1) and "
          "(2, 2, 3, 2, 1).",
    expected="holds",
    check=check,
    order=(5, 2),
)
