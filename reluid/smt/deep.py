"""z3 encodings of "is there an input x such that ..." for deep ReLU networks.

Grigsby, Lindsey and Rolnick (2023, Section 5) list mechanisms (i)-(iv) by
which hidden symmetries arise.  Three of them reduce to questions of the form

    is there an x in R^{n0} whose hidden pre-activations satisfy given strict or
    non-strict sign conditions?

which is exact linear real arithmetic over the activation patterns: each ReLU
is an ``If(z > 0, z, 0)`` and every weight enters z3 as an exact ``"n/d"``
numeral (:func:`reluid.smt.solver.rational_to_z3`).

* ``sat`` is only a candidate: the model's x is read back exactly
  (:func:`reluid.smt.solver.z3_to_rational`) and re-evaluated with
  :meth:`reluid.model.network.Network.preactivations`.  A model that fails the
  exact re-evaluation is reported as ``unknown``, never as ``sat``.
* ``unsat`` is a claim resting on z3; callers label it with
  :meth:`SolverConfig.describe`.
* ``unknown`` (timeouts included) keeps z3's ``reason_unknown()`` and is never
  turned into a verdict.

Layers are numbered as in the paper: hidden layer ``l`` (1-based) is the output
of the layer map ``F^l``, i.e. of ``net.layers[l - 1]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Mapping, Sequence

import z3

from reluid.errors import InvalidArgument
from reluid.model.network import Network
from reluid.smt.solver import SolverConfig, check, isolated, make_solver, rational_to_z3, z3_to_rational
from reluid.verdicts import Outcome, Reason, ReasonCode

__all__ = ["Condition", "InputSearch", "find_input", "encode_preactivations", "RELATIONS", "DifferenceSearch",
           "find_difference"]

#: The sign conditions a :class:`Condition` may impose on a pre-activation.
RELATIONS = (">0", ">=0", "<0", "<=0", "=0", "!=0")


@dataclass(frozen=True, slots=True)
class Condition:
    """``z^layer_neuron(x) <rel> 0`` for a hidden pre-activation (layer is 1-based)."""

    layer: int
    neuron: int
    rel: str

    def __post_init__(self):
        if self.rel not in RELATIONS:
            raise InvalidArgument(f"unknown relation {self.rel!r}; expected one of {RELATIONS}")

    def holds(self, value: Fraction) -> bool:
        """Decide the condition exactly for a pre-activation value."""
        return {">0": value > 0, ">=0": value >= 0, "<0": value < 0, "<=0": value <= 0,
                "=0": value == 0, "!=0": value != 0}[self.rel]

    def describe(self) -> str:
        return f"z^{self.layer}_{self.neuron}(x) {self.rel[0:-1]} 0"


@dataclass(frozen=True, slots=True)
class InputSearch:
    """Answer to "is there an x with all conditions?".

    ``outcome`` is FOUND (``point`` is an exact rational x, re-checked),
    NONE (rests on z3, see ``solver``) or UNKNOWN (``reason``).
    """

    outcome: Outcome
    conditions: tuple[Condition, ...]
    point: tuple[Fraction, ...] | None = None
    reason: Reason | None = None
    solver: Mapping = field(default_factory=lambda: MappingProxyType({}))



def _check_conditions(net: Network, conditions: Sequence[Condition]) -> int:
    hidden = net.hidden_widths
    if not conditions:
        raise InvalidArgument("find_input needs at least one condition")
    top = 0
    for c in conditions:
        if not 1 <= c.layer <= len(hidden):
            raise InvalidArgument(f"{c}: the network has hidden layers 1..{len(hidden)}")
        if not 0 <= c.neuron < hidden[c.layer - 1]:
            raise InvalidArgument(f"{c}: hidden layer {c.layer} has {hidden[c.layer - 1]} neurons")
        top = max(top, c.layer)
    return top


def encode_preactivations(net: Network, upto: int, solver: "z3.Solver"):
    """Add the network's first ``upto`` hidden layers to ``solver``.

    Returns ``(xs, zs)``: the input variables and, for each hidden layer
    ``1..upto``, a tuple of z3 variables constrained to equal the exact
    pre-activations (ReLU encoded as ``If(z > 0, z, 0)``).
    """
    xs = tuple(z3.Real(f"x_{k}") for k in range(net.input_dim))
    h = xs
    zs = []
    for l in range(1, upto + 1):
        L = net.layers[l - 1]
        zl = []
        for j, (row, b) in enumerate(zip(L.weight, L.bias)):
            terms = [rational_to_z3(w) * v for w, v in zip(row, h) if w != 0]
            expr = z3.Sum(*terms) + rational_to_z3(b) if terms else rational_to_z3(b)
            z = z3.Real(f"z_{l}_{j}")
            solver.add(z == expr)
            zl.append(z)
        zs.append(tuple(zl))
        h = tuple(z3.If(z > 0, z, z3.RealVal(0)) for z in zl)
    return xs, tuple(zs)


def _z3_relation(z, rel: str):
    zero = z3.RealVal(0)
    return {">0": z > zero, ">=0": z >= zero, "<0": z < zero, "<=0": z <= zero,
            "=0": z == zero, "!=0": z != zero}[rel]


@isolated
def find_input(net: Network, conditions: Sequence[Condition],
               config: SolverConfig = SolverConfig(logic="QF_LRA")) -> InputSearch:
    """Decide whether some x in R^{n0} meets every condition.

    Parameters
    ----------
    net : Network
        The network (any depth).
    conditions : sequence of Condition
        Sign conditions on hidden pre-activations, conjoined.
    config : SolverConfig
        Seed and time limit (recorded in the answer).

    Returns
    -------
    InputSearch
        FOUND with an exactly re-checked rational point, NONE (resting on
        z3) or UNKNOWN with z3's reason.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [-1]), ([[1]], [0])])
    >>> find_input(net, [Condition(2, 0, ">0")]).outcome.value     # |x| - 1 > 0 somewhere
    'found'
    >>> find_input(net, [Condition(1, 0, ">0"), Condition(1, 1, ">0")]).outcome.value
    'none'
    """
    conditions = tuple(conditions)
    top = _check_conditions(net, conditions)
    solver = make_solver(config)
    xs, zs = encode_preactivations(net, top, solver)
    for c in conditions:
        solver.add(_z3_relation(zs[c.layer - 1][c.neuron], c.rel))
    out = check(solver, config)
    desc = MappingProxyType(config.describe())
    if out.outcome is Outcome.NONE:
        return InputSearch(Outcome.NONE, conditions, solver=desc)
    if out.outcome is Outcome.UNKNOWN:
        return InputSearch(Outcome.UNKNOWN, conditions, solver=desc,
                           reason=Reason(ReasonCode.Z3_SAID, {"answer": out.reason or "unknown"}))
    model = out.model
    point = []
    for x in xs:
        v = model.eval(x, model_completion=True)
        try:
            point.append(z3_to_rational(v))
        except ValueError as e:  # irrational model value: never approximate
            return InputSearch(Outcome.UNKNOWN, conditions, solver=desc,
                               reason=Reason(ReasonCode.Z3_MODEL_NOT_RATIONAL, {"error": str(e)}))
    point = tuple(point)
    pre = net.preactivations(point)
    if not all(c.holds(pre[c.layer - 1][c.neuron]) for c in conditions):
        return InputSearch(Outcome.UNKNOWN, conditions, reason=Reason(ReasonCode.Z3_MODEL_FAILED), solver=desc)
    return InputSearch(Outcome.FOUND, conditions, point=point, solver=desc)


# ---------------------------------------------------------------------------
# an input where two networks differ
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class DifferenceSearch:
    """Answer to "is there an x with net_a(x) != net_b(x)?".

    FOUND: ``point`` is an exact rational x at which the exact outputs differ
    (re-evaluated); NONE: z3 reports none (resting on z3, never an exact
    proof); UNKNOWN: ``reason``.
    """

    outcome: Outcome
    point: tuple[Fraction, ...] | None = None
    reason: Reason | None = None
    solver: Mapping = field(default_factory=lambda: MappingProxyType({}))


def _encode_outputs(net: Network, xs, prefix: str, solver: "z3.Solver"):
    h = xs
    for l, L in enumerate(net.layers, 1):
        zl = []
        for j, (row, b) in enumerate(zip(L.weight, L.bias)):
            terms = [rational_to_z3(w) * v for w, v in zip(row, h) if w != 0]
            expr = z3.Sum(*terms) + rational_to_z3(b) if terms else rational_to_z3(b)
            z = z3.Real(f"{prefix}_{l}_{j}")
            solver.add(z == expr)
            zl.append(z)
        h = tuple(z3.If(z > 0, z, z3.RealVal(0)) for z in zl) if l < net.depth else tuple(zl)
    return h


@isolated
def find_difference(net_a: Network, net_b: Network,
                    config: SolverConfig = SolverConfig(logic="QF_LRA")) -> DifferenceSearch:
    """Search for an input where two networks with the same input and output sizes differ.

    A model is read back exactly and both networks are re-evaluated exactly
    at it; only then is it FOUND.

    Examples
    --------
    >>> a = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [0])])    # |x|
    >>> b = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0]), ([[1]], [-1])])   # |x| - 1
    >>> r = find_difference(a, b); r.outcome.value, a(r.point) != b(r.point)
    ('found', True)
    >>> find_difference(a, a).outcome.value
    'none'
    """
    if net_a.input_dim != net_b.input_dim or net_a.output_dim != net_b.output_dim:
        raise InvalidArgument("find_difference needs networks with the same input and output sizes")
    solver = make_solver(config)
    xs = tuple(z3.Real(f"x_{k}") for k in range(net_a.input_dim))
    ya = _encode_outputs(net_a, xs, "a", solver)
    yb = _encode_outputs(net_b, xs, "b", solver)
    solver.add(z3.Or(*[p != q for p, q in zip(ya, yb)]))
    out = check(solver, config)
    desc = MappingProxyType(config.describe())
    if out.outcome is Outcome.NONE:
        return DifferenceSearch(Outcome.NONE, solver=desc)
    if out.outcome is Outcome.UNKNOWN:
        return DifferenceSearch(Outcome.UNKNOWN, solver=desc,
                                reason=Reason(ReasonCode.Z3_SAID, {"answer": out.reason or "unknown"}))
    point = []
    for x in xs:
        try:
            point.append(z3_to_rational(out.model.eval(x, model_completion=True)))
        except ValueError as e:
            return DifferenceSearch(Outcome.UNKNOWN, solver=desc,
                                    reason=Reason(ReasonCode.Z3_MODEL_NOT_RATIONAL, {"error": str(e)}))
    point = tuple(point)
    if net_a(point) == net_b(point):
        return DifferenceSearch(Outcome.UNKNOWN, reason=Reason(ReasonCode.Z3_MODEL_FAILED), solver=desc)
    return DifferenceSearch(Outcome.FOUND, point=point, solver=desc)
