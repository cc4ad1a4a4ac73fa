"""Exact reduction of a ReLU network of any depth to fewer neurons with the same function.

:func:`reduce_network` applies four rules (docs/mathematics.md §11), one neuron at
a time, repeating until none applies:

``constant``
    the incoming row W^l[i, :] is zero, so h^l_i = σ(b^l_i) is a constant: add
    σ(b^l_i) W^{l+1}[:, i] to b^{l+1} and remove neuron i (a zero row with
    b^l_i <= 0, a dead neuron, is the case σ(b^l_i) = 0);
``zero-outgoing``
    W^{l+1}[:, i] = 0: nothing downstream sees neuron i; remove it;
``merge``
    (W^l[i, :], b^l_i) = λ (W^l[j, :], b^l_j) with λ > 0, so h^l_i = λ h^l_j
    (σ is positively homogeneous): add λ W^{l+1}[:, i] to W^{l+1}[:, j] and
    remove neuron i;
``dead``
    no x in R^{n0} has z^l_i(x) > 0, so h^l_i ≡ 0: remove neuron i.  The
    premise is proved by inspection (layer >= 2 with a row and bias <= 0: its
    inputs are >= 0) or by a Farkas-tree certificate
    (:func:`reluid.analysis.deep.farkas.prove_no_input`); a question the prover
    leaves open leaves the neuron in place, never removed.

Each rule keeps the pre-activation of every other neuron as a function on
R^{n0}, so a point at which a neuron is active in θ stays a point at which it
is active in every reduced network: probe points refute dead-neuron candidates
once, for the whole run.  An always-active neuron with a nonzero incoming row
is not removed: its ReLU is the identity, but W^{l+1}[:, i] W^l[i, :] h^{l-1}
is a function of the previous layer, which the next layer does not see.

Every step records the network it produced by SHA-256, so that
:mod:`reluid.checker.reduction` can rebuild and compare each one.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from reluid.budget import MIN_SECONDS
from reluid.errors import InvalidArgument
from reluid.model.network import Layer, Network
from reluid.model.rational import primitive_ray
from reluid.verdicts import Outcome, PremiseMethod, Reason, ReasonCode, ReductionRule

__all__ = ["RULES", "ReductionStep", "Reduction", "reduce_network", "is_reduced"]

CONSTANT, ZERO_OUTGOING, MERGE, DEAD = (ReductionRule.CONSTANT, ReductionRule.ZERO_OUTGOING, ReductionRule.MERGE,
                                       ReductionRule.DEAD)
RULES = tuple(ReductionRule)


@dataclass(frozen=True, slots=True)
class ReductionStep:
    """One removal: neuron ``neuron`` (0-based, in the network before the step) of hidden layer ``layer``.

    ``into`` and ``factor`` (λ) for a merge, ``value`` (σ(b)) for a constant neuron,
    ``premise`` for a dead neuron (``{"method": "orthant"}`` or ``{"tree": ...}``), and
    ``result`` the SHA-256 of the network after the step.
    """

    rule: str
    layer: int
    neuron: int
    result: str
    into: int | None = None
    factor: Fraction | None = None
    value: Fraction | None = None
    premise: Mapping | None = None
    original: tuple[int, int] | None = None     # (layer, neuron of θ): informational


@dataclass(frozen=True, slots=True)
class Reduction:
    """What :func:`reduce_network` did: the reduced network and the steps from θ to it.

    ``undecided`` lists the dead-neuron questions left open (prover budget or
    time): those neurons were kept, so the reduction may not be complete.  Each
    entry is (layer, neuron, why) with ``why`` a :class:`~reluid.verdicts.Reason`
    (layer 0: the reduction itself stopped).
    """

    original: Network
    reduced: Network
    steps: tuple[ReductionStep, ...]
    undecided: tuple[tuple[int, int, Reason], ...] = ()
    prover_queries: int = 0
    seconds: float = 0.0

    @property
    def removed(self) -> int:
        return len(self.steps)

    @property
    def complete(self) -> bool:
        return not self.undecided

    def counts(self) -> dict[str, int]:
        return {r: sum(1 for s in self.steps if s.rule == r) for r in RULES}


# ---- edits ------------------------------------------------------------------------

def _relu(x: Fraction) -> Fraction:
    return x if x > 0 else Fraction(0)


# ---- the rules --------------------------------------------------------------------

def _identity_step(net: Network, rays_of: dict | None = None):
    """The first constant / zero-outgoing / merge step that applies, as (rule, l, i, into, factor, value), or None.

    ``rays_of`` caches the primitive ray of each incoming row by the row's identity (a step keeps the rows
    of the layer it removes from).
    """
    cache = {} if rays_of is None else rays_of
    for l in range(1, len(net.layers)):
        L, N = net.layers[l - 1], net.layers[l]
        rays: dict = {}                     # primitive ray of (W^l[j, :], b^l_j) -> (j, its scale)
        for i in range(L.n_out):
            if not any(L.weight[i]):
                return CONSTANT, l, i, None, None, _relu(L.bias[i])
            if not any(row[i] for row in N.weight):
                return ZERO_OUTGOING, l, i, None, None, None
            row, b = L.weight[i], L.bias[i]
            got = cache.get(id(row))
            if got is None or got[0] is not row or got[1] != b:
                got = cache[id(row)] = (row, b, primitive_ray(row + (b,)))
            p, scale = got[2]
            if p in rays:
                j, s_j = rays[p]
                return MERGE, l, i, j, scale / s_j, None
            rays[p] = (i, scale)
    return None


def _apply(net: Network, rule: str, l: int, i: int, into=None, factor=None, value=None) -> Network:
    """The network after one step; unchanged layers and rows are the same objects (so hashes can be cached)."""
    L, N = net.layers[l - 1], net.layers[l]
    W = [list(r) for r in N.weight]
    c = list(N.bias)
    if rule == CONSTANT and value:
        c = [cc + value * row[i] for cc, row in zip(c, W)]
    elif rule == MERGE:
        for row in W:
            row[into] += factor * row[i]
    layers = list(net.layers)
    layers[l - 1] = Layer(L.weight[:i] + L.weight[i + 1:], L.bias[:i] + L.bias[i + 1:], L.n_in)
    layers[l] = Layer(tuple(tuple(r[:i] + r[i + 1:]) for r in W), tuple(c), L.n_out - 1)
    return Network(tuple(layers), name=net.name, description=net.description, assumption=net.assumption)


class _Hasher:
    """:meth:`Network.sha256` with the text of each row cached by identity (rows a step keeps are not re-written)."""

    def __init__(self):
        self.rows: dict[int, tuple] = {}

    def __call__(self, net: Network) -> str:
        h = hashlib.sha256(b"reluid.network/1")
        rows = self.rows
        for L in net.layers:
            h.update(f"|{L.n_out},{L.n_in}|".encode())
            for row in L.weight + (L.bias,):
                got = rows.get(id(row))
                if got is None or got[0] is not row:
                    got = rows[id(row)] = (row, (",".join([f"{x.numerator}/{x.denominator}" for x in row]) + ";")
                                           .encode())
                h.update(got[1])
        if len(rows) > 1 << 20:
            rows.clear()
        return h.hexdigest()


def _probe_points(n0: int, seed: int, count: int):
    rng = random.Random(f"reluid-reduce-probe-{seed}")
    scales = (1, 8, 64)
    return [tuple(Fraction(round(rng.gauss(0.0, 1.0) * scales[k % 3] * 256), 256) for _ in range(n0))
            for k in range(count)]


def _active_somewhere(net: Network, seed: int, probes: int, float_probes: int) -> set[tuple[int, int]]:
    """(layer, neuron) of θ with an exact point where the pre-activation is > 0.

    A few exact probe points first; then float64 pre-activations at ``float_probes`` points
    suggest points, taken greedily (the point that covers most neurons not yet shown active),
    and each suggested point is evaluated exactly before it counts.
    """
    active = set()

    def mark(x):
        for l, z in enumerate(net.preactivations(x), 1):
            active.update((l, i) for i, v in enumerate(z) if v > 0)

    for x in _probe_points(net.input_dim, seed, probes):
        mark(x)
    hidden = [(l, i) for l, n in enumerate(net.hidden_widths, 1) for i in range(n)]
    if float_probes and len(active) < len(hidden):
        import numpy as np

        rng = np.random.default_rng([seed, 11])
        X = np.rint(rng.standard_normal((float_probes, net.input_dim))
                    * np.repeat([1.0, 8.0, 64.0], -(-float_probes // 3))[:float_probes, None] * 256) / 256
        cols, h = [], X
        for L in net.layers[:-1]:
            W = np.array([[float(v) for v in r] for r in L.weight]).reshape(L.n_out, L.n_in)
            z = h @ W.T + np.array([float(v) for v in L.bias])
            cols.append(z > 1e-9 * (1 + np.abs(z).max(initial=0.0)))
            h = np.maximum(z, 0.0)
        hint = np.concatenate(cols, axis=1)                      # points × hidden neurons
        index = {key: k for k, key in enumerate(hidden)}
        for _ in range(64):
            todo = np.array([key not in active for key in hidden])
            cover = hint[:, todo].sum(axis=1) if todo.any() else None
            if cover is None or cover.max() == 0:
                break
            k = int(cover.argmax())
            before = len(active)
            mark(tuple(Fraction(int(round(v * 256)), 256) for v in X[k]))
            hint[k, :] = False
            if len(active) == before:                             # a float artefact: drop its hints
                for key in hidden:
                    if key not in active:
                        hint[k, index[key]] = False
    return active


def _orthant_dead(net: Network, l: int, i: int) -> bool:
    L = net.layers[l - 1]
    return l >= 2 and all(w <= 0 for w in L.weight[i]) and L.bias[i] <= 0


def reduce_network(net: Network, *, timeout: float | None = 60.0, seed: int = 0, prover: bool = True,
                   query_timeout: float = 10.0, max_nodes: int = 20000, probes: int = 4,
                   float_probes: int = 2000) -> Reduction:
    """Reduce ``net`` exactly: remove constant, dead and zero-outgoing neurons and merge proportional ones.

    Parameters
    ----------
    net : Network
        Any network with at least one hidden layer.
    timeout : float or None, keyword-only
        Seconds for the whole reduction, the Farkas-tree prover included (dead
        neurons beyond layer 1 that no probe point refutes and no inspection
        settles); when they run out the reduction stops where it is (every step
        taken is exact) and says so in ``undecided``.  None: unbounded.
    seed : int, keyword-only
        Seeds the probe points.
    prover : bool, keyword-only
        Ask the prover at all (False: only identities and inspection).

    Returns
    -------
    Reduction
        The reduced network and every step, each with the SHA-256 of its result.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [2], [0]], [0, 0, 1]), ([[1, 1, 1]], [0])])
    >>> r = reduce_network(net)          # neuron 2 = 2 × neuron 1; neuron 3 is the constant 1
    >>> [s.rule for s in r.steps], r.reduced.architecture, r.reduced([5]) == net([5])
    (['merge', 'constant'], (1, 1, 1), True)
    """
    if not isinstance(net, Network):
        raise InvalidArgument(f"expected a Network, got {type(net).__name__}")
    if net.depth < 2:
        raise InvalidArgument(f"a network without hidden layers has nothing to reduce: architecture {net.architecture}")
    start = time.monotonic()
    deadline = None if timeout is None else start + timeout
    ids = [list(range(n)) for n in net.hidden_widths]        # the θ index of every current neuron
    active = None
    tried: set[tuple[int, int]] = set()                      # θ neurons whose dead question is settled or open
    undecided = []
    steps = []
    queries = 0
    cur = net
    sha = _Hasher()
    rays_of: dict = {}
    while True:
        if deadline is not None and time.monotonic() > deadline:
            undecided.append((0, -1, Reason(ReasonCode.REDUCTION_STOPPED)))
            break
        got = _identity_step(cur, rays_of)
        if got is None:
            if active is None and len(cur.hidden_widths) >= 2:       # layer 1 has no dead-neuron question
                active = _active_somewhere(net, seed, probes, float_probes)
            for l, n in enumerate(cur.hidden_widths, 1):
                if l == 1:
                    continue                        # layer 1 is affine: dead only with a zero row (constant)
                for i in range(n):
                    key = (l, ids[l - 1][i])
                    if key in active or key in tried:
                        continue
                    if _orthant_dead(cur, l, i):
                        got = (DEAD, l, i, None, None, None, {"method": PremiseMethod.ORTHANT})
                        break
                    tried.add(key)
                    if not prover:
                        continue
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= MIN_SECONDS:
                        undecided.append((l, key[1], Reason(ReasonCode.OUT_OF_TIME)))
                        continue
                    from reluid.analysis.deep.farkas import Condition, prove_no_input

                    queries += 1
                    res = prove_no_input(cur, [Condition(l, i, ">0")], max_nodes=max_nodes,
                                         timeout=query_timeout if left is None else min(query_timeout, left))
                    if res.outcome is Outcome.NONE:
                        got = (DEAD, l, i, None, None, None, {"tree": res.evidence})
                        break
                    if res.outcome is Outcome.UNKNOWN:
                        undecided.append((l, key[1], res.reason))
                if got is not None:
                    break
            if got is None:
                break
        else:
            got = got + (None,)
        rule, l, i, into, factor, value, premise = got
        nxt = _apply(cur, rule, l, i, into, factor, value)
        steps.append(ReductionStep(rule, l, i, sha(nxt), into=into, factor=factor, value=value,
                                   premise=premise, original=(l, ids[l - 1][i])))
        del ids[l - 1][i]
        cur = nxt
    name = f"{net.name or 'network'} (reduced)"
    reduced = Network(cur.layers, name=name, description=f"exact reduction of {net.name or 'the network'} "
                      f"{net.architecture} to {cur.architecture} ({len(steps)} neuron(s) removed)",
                      assumption=net.assumption)
    return Reduction(net, reduced, tuple(steps), tuple(undecided), queries, time.monotonic() - start)


def is_reduced(net: Network) -> bool:
    """True iff no rule applies to ``net`` without the prover (no constant, zero-outgoing or proportional neuron,
    no dead neuron by inspection)."""
    return not reduce_network(net, prover=False, probes=0, float_probes=0).steps
