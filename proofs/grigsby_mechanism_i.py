"""Grigsby–Lindsey–Rolnick 2023, Section 5, mechanism (i): a stably unactivated neuron."""

from __future__ import annotations

from fractions import Fraction

from ._framework import GLR, SEED_G, Checks, Statement, equal_1d, fmt_net
from reluid.analysis.deep.mechanisms import DEAD, detect_mechanisms
from reluid.analysis.deep.orbit import same_orbit
from reluid.model.network import Layer, Network
from ._lemmas import deep_dead_neuron, deep_functions_equal

ARCHS = ((1, 2, 2, 1), (2, 2, 2, 1), (2, 2, 2, 2, 1))
ARCHS_LARGE = ((2, 3, 3, 1), (2, 2, 3, 2, 1))

# n0 = 1: h = (σ(x), σ(−x)); neuron 1 of hidden layer 2 has pre-activation −h1 − 2h2 − 1 < 0 everywhere.
EXAMPLE = Network.from_lists([([[1], [-1]], [0, 0]), ([[-1, -2], [1, -1]], [-1, 0]), ([[1, 1]], [0])])


def _perturbed(net: Network, layer: int, i: int, eps: Fraction, out: Fraction) -> Network:
    """Move the incoming row and bias of neuron i of hidden layer ``layer`` by eps and its outgoing weights by out."""
    layers = [[[list(r) for r in L.weight], list(L.bias), L.n_in] for L in net.layers]
    W, b, _ = layers[layer - 1]
    W[i] = [w + eps for w in W[i]]
    b[i] += eps
    for row in layers[layer][0]:
        row[i] += out
    return Network(tuple(Layer(tuple(tuple(r) for r in W_), tuple(b_), n) for W_, b_, n in layers))


def check(max_n, timeout):
    c = Checks(timeout)
    archs = ARCHS + (ARCHS_LARGE if (max_n or 0) >= 3 else ())
    for arch in archs:
        queries = [deep_dead_neuron(arch, l, i, timeout=c.budget())
                   for l in range(1, len(arch) - 1) for i in range(arch[l])]
        c.z3_unsat_all(f"z3, architecture {arch}, every hidden neuron: z^ℓ_i(x) ≤ 0 ∧ F_θ(x) ≠ F_θ′(x) with new "
                       "outgoing weights", queries)
    c.z3_sat("z3, architecture (1, 2, 2, 1), hypothesis dropped (vacuity check: outgoing weights do matter where "
             "the neuron is on)", deep_dead_neuron((1, 2, 2, 1), 2, 0, hypothesis=False, timeout=c.budget()))
    # a concrete stably unactivated neuron and the hidden symmetry it produces
    rep = detect_mechanisms(EXAMPLE, prover="never")
    dead = [m for m in rep.mechanisms if m.kind == DEAD and m.layer == 2 and m.neurons == (0,)]
    c.exact(f"example θ = {fmt_net(EXAMPLE)}: neuron 1 of hidden layer 2 is dead, exactly (layer-2 inputs lie in "
            "the closed positive orthant, its row and bias are ≤ 0; reluid.analysis.deep.mechanisms finds it with "
            "method 'orthant')", bool(dead) and dead[0].method == "orthant")
    if not dead:
        return c.outcome("the example's dead neuron was not found")
    family = [_perturbed(EXAMPLE, 2, 0, eps, out) for eps in (Fraction(0), Fraction(1, 3), Fraction(-1, 2))
              for out in (Fraction(1), Fraction(-5, 2))]
    equal = all(equal_1d(EXAMPLE, w)[0] for w in family)
    outside = all(same_orbit(EXAMPLE, w) is None for w in family)
    c.exact(f"{len(family)} parameters θ′ with the dead neuron's incoming row and bias moved by ε ∈ {{0, 1/3, −1/2}} "
            "(so they stay < 0: the neuron stays dead) and its outgoing weights moved by 1 or −5/2 realise F_θ "
            "exactly (n0 = 1: equal at every breakpoint of both networks and beyond) and none is in the orbit of θ "
            "(reluid's exact deep orbit test)", equal and outside)
    c.z3_unsat("z3 (linear arithmetic), the same for ε = 0 and outgoing weights moved by −5/2: ∃x F_θ(x) ≠ F_θ′(x)",
               deep_functions_equal(EXAMPLE, family[1], timeout=c.budget()))
    c.remark("The z3 lemma is pointwise: wherever z^ℓ_i(x) ≤ 0 the outgoing weights of neuron i do not enter "
             "F_θ(x). A neuron that is off on all of R^{n0} (for ℓ ≥ 2 it suffices that its half-space misses the "
             "positive orthant) therefore leaves its outgoing weights free, and when that persists under small "
             "perturbations of its incoming weights (stably unactivated, Definition A.2) those are free too.")
    return c.outcome("Proved pointwise for every hidden neuron of the listed architectures (z3 unsat with all weights "
                     "and the input unknown), and exhibited exactly on a concrete network: a whole open set of "
                     "parameters outside the orbit realises the same function.")


STATEMENT = Statement(
    name="grigsby_mechanism_i",
    title="Mechanism (i) (stably unactivated neuron)",
    paper=GLR,
    reference=f"{SEED_G}, §5, mechanism (i), Definition A.2, Figure 2",
    statement="If the positive half-space of neuron i of layer ℓ has empty intersection with F_(ℓ−1)(R^{n0}) (it is "
              "off everywhere), changing its outgoing weights does not change F_θ; if this persists under small "
              "perturbations of its own parameters, those perturbations do not change F_θ either: a hidden "
              "symmetry.",
    method="z3, pointwise and for all parameters: weights, biases, input x and new outgoing weights unknown, "
           "hypothesis z^ℓ_i(x) ≤ 0, goal F_θ(x) ≠ F_θ′(x), for every hidden neuron (unsat expected); a vacuity "
           "query without the hypothesis must be sat. Then a concrete network with n0 = 1: the premise by the "
           "orthant argument (exact), equality of the functions by exact evaluation at every breakpoint (exact "
           "for n0 = 1) and by z3, and non-membership in the orbit by reluid's exact deep orbit test.",
    sizes="architectures (1, 2, 2, 1), (2, 2, 2, 1), (2, 2, 2, 2, 1); with --max-n 3 or more also (2, 3, 3, 1) and "
          "(2, 2, 3, 2, 1).",
    expected="holds",
    check=check,
    order=(5, 1),
)
