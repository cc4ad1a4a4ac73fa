"""Checker for Farkas-tree certificates: "no input x in R^{n0} meets these sign conditions".

docs/mathematics.md §6.1 proves the rule this module applies; docs/certificates.md
describes the evidence (``"format": "reluid.farkas-tree/1"``).  In short: the
tree's leaves are partial sign assignments σ of the *scope* (every neuron of
hidden layers 1..L-1, L the largest layer among the conditions) whose regions
cover R^{n0}; each leaf carries Motzkin multipliers y >= 0 (closed rows) and
μ >= 0 (strict rows) with

    Σ y_r a_r + Σ μ_s a_s = 0,   Σ y_r β_r + Σ μ_s β_s <= 0,   (that sum < 0 or μ != 0),

which proves the leaf's linear system (rows a·v + β) infeasible.

Everything but the tree's shape and the multipliers is rebuilt here from the
network: the rows, their order and their coefficients.  The arithmetic is on
Python integers over common denominators (each layer's weights are scaled to
integers once; every affine function of layer l carries the same positive
denominator).  The variables are x_1..x_{n0} followed by one h_k for *every*
scope neuron; the columns of decided neurons are identically zero, so this is
the same test as over the compacted variables of the format.

Imports only the standard library, :mod:`reluid.model`,
:mod:`reluid.certificates.schema` (number reading), :func:`reluid.checker.readers.show`
and :mod:`reluid.errors`.
Every defect -- malformed evidence included -- raises
:class:`reluid.errors.CheckFailed`; nothing else escapes for bad input.

>>> from reluid.model.network import Network
>>> net = Network.from_lists([([[0, 0]], [-1]), ([[1]], [0])])   # z^1_0 = -1: never > 0
>>> ev = {"format": "reluid.farkas-tree/1", "scope_layers": 0,
...       "tree": {"leaf": {"closed": [], "strict": [[0, 1]]}}}
>>> verify_no_input(net, [(1, 0, ">0")], ev)
1
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from fractions import Fraction

from reluid.certificates.schema import q as _read_rational
from reluid.checker.readers import show
from reluid.errors import CertificateError, CheckFailed
from reluid.model.network import Network

__all__ = ["FORMAT", "SIGNS", "MAX_LEAVES", "verify_no_input", "scope_of"]

FORMAT = "reluid.farkas-tree/1"
#: The sign conditions: z(x) > 0, z(x) < 0, z(x) >= 0, z(x) <= 0.
SIGNS = (">0", "<0", ">=0", "<=0")
#: Trees with more leaves are rejected (the work is bounded by leaves × rows).
MAX_LEAVES = 10 ** 6

_FRACTION_TEXT = re.compile(r"-?[0-9]+/[0-9]+\Z")


class _Fail(Exception):
    """Internal: carries a reason up to :func:`verify_no_input`."""


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# ---- the question --------------------------------------------------------------------

def _read_conditions(net: Network, conditions) -> tuple[tuple[int, int, str], ...]:
    if not isinstance(conditions, (list, tuple)) or not conditions:
        raise _Fail("the conditions must be a non-empty list of (layer, neuron, sign)")
    hidden = net.hidden_widths
    out = []
    for c in conditions:
        try:
            layer, neuron, sign = c
        except (TypeError, ValueError):
            raise _Fail(f"condition {c!r} is not a (layer, neuron, sign) triple") from None
        if not (_int(layer) and _int(neuron)) or sign not in SIGNS:
            raise _Fail(f"condition {c!r}: layer and neuron must be integers, sign one of {SIGNS}")
        if not 1 <= layer <= len(hidden):
            raise _Fail(f"condition {c!r}: the network has hidden layers 1..{len(hidden)}")
        if not 0 <= neuron < hidden[layer - 1]:
            raise _Fail(f"condition {c!r}: hidden layer {layer} has {hidden[layer - 1]} neurons")
        out.append((layer, neuron, sign))
    return tuple(out)


def scope_of(net: Network, conditions) -> tuple[tuple[int, int], ...]:
    """The scope of a question: every neuron (layer, index) of hidden layers 1..L-1, in order."""
    L = max(c[0] for c in conditions)
    return tuple((l, i) for l in range(1, L) for i in range(net.hidden_widths[l - 1]))


def _integer_layer(layer):
    """(D, W·D, b·D) with D the least common denominator of the layer's entries."""
    D = 1
    for row in layer.weight:
        for w in row:
            D = math.lcm(D, w.denominator)
    for b in layer.bias:
        D = math.lcm(D, b.denominator)
    W = [[w.numerator * (D // w.denominator) for w in row] for row in layer.weight]
    b = [x.numerator * (D // x.denominator) for x in layer.bias]
    return D, W, b


# ---- the rows of one node --------------------------------------------------------------

class _Rows:
    """The rows of the relaxation at one node (docs/mathematics.md §6.1), built on demand.

    Variables: index c < n0 is x_c, n0 + k is h_k for scope neuron k, ``nv``
    is the constant term.  ``z[l][i]`` is (integer vector, denominator) of the
    pre-activation of neuron i of hidden layer l; ``closed``/``strict`` list
    row descriptors in the canonical order.
    """

    def __init__(self, problem: "_Problem", sigma: list[int]):
        p = problem
        n0, nv = p.n0, p.nv
        self.problem, self.sigma = p, sigma
        post: list[list[int]] = []             # affine post-activations of the previous layer (x itself: unused)
        live = list(range(n0))                 # columns that may be nonzero in ``post``
        E = 1                                  # common denominator of ``post``
        self.z: dict[int, list] = {}
        self.den: dict[int, int] = {}
        closed = []
        for l in range(1, p.L + 1):
            D, W, b = p.layers[l]
            top = l == p.L
            neurons = p.condition_neurons[l] if top else range(len(W))
            Z = {i: self._pre(W[i], b[i], post, live, E, l == 1) for i in neurons}
            E *= D
            self.z[l], self.den[l] = Z, E
            if top:
                break
            new_post = []
            new_live = list(live)
            base = p.offset[l]
            for i in range(len(W)):
                k = base + i
                s = sigma[k]
                if s > 0:
                    closed.append(("z", l, i, 1))
                    new_post.append(Z[i])
                elif s < 0:
                    closed.append(("z", l, i, -1))
                    new_post.append([0] * (nv + 1))
                else:
                    closed.append(("h", l, i, 1))
                    closed.append(("gap", l, i, 1))
                    e = [0] * (nv + 1)
                    e[n0 + k] = E
                    new_post.append(e)
                    new_live.append(n0 + k)
            post, live = new_post, new_live
        for layer, neuron, sign in p.conditions:
            if sign in (">=0", "<=0"):
                closed.append(("z", layer, neuron, 1 if sign == ">=0" else -1))
        self.closed = closed
        self.strict = [("z", layer, neuron, 1 if sign == ">0" else -1)
                       for layer, neuron, sign in p.conditions if sign in (">0", "<0")]

    def _pre(self, Wi, bi, post, live, E, first: bool) -> list[int]:
        """The pre-activation W_i · post + b_i E as an integer vector over (x, h, 1)."""
        nv = self.problem.nv
        if first:                              # the previous layer is x itself: the row is W_i
            return list(Wi) + [0] * (nv - len(Wi)) + [bi * E]
        row = [0] * (nv + 1)
        for c in live:
            row[c] = sum(w * v[c] for w, v in zip(Wi, post) if v[c])
        row[nv] = bi * E + sum(w * v[nv] for w, v in zip(Wi, post) if v[nv])
        return row

    def row(self, desc) -> tuple[list[int], int]:
        """(integer vector over (x, h, 1), positive denominator) of one row."""
        kind, l, i, s = desc
        p = self.problem
        if kind == "z":
            v = self.z[l][i]
            return (v if s > 0 else [-t for t in v]), self.den[l]
        k = p.offset[l] + i
        if kind == "h":
            e = [0] * (p.nv + 1)
            e[p.n0 + k] = 1
            return e, 1
        E = self.den[l]                        # gap row: h_k - z_k = (E e_h - Z) / E
        v = [-t for t in self.z[l][i]]
        v[p.n0 + k] += E
        return v, E


class _Problem:
    def __init__(self, net: Network, conditions):
        self.conditions = conditions
        self.L = max(c[0] for c in conditions)
        self.n0 = net.input_dim
        widths = net.hidden_widths
        self.offset = {}
        S = 0
        for l in range(1, self.L):
            self.offset[l] = S
            S += widths[l - 1]
        self.S = S
        self.nv = self.n0 + S
        self.scope_index = {(l, i): self.offset[l] + i for l in range(1, self.L) for i in range(widths[l - 1])}
        self.layers = {l: _integer_layer(net.layers[l - 1]) for l in range(1, self.L + 1)}
        self.condition_neurons = {l: sorted({c[1] for c in conditions if c[0] == l}) for l in range(1, self.L + 1)}
        rows = [widths[l - 1] if l < self.L else len(self.condition_neurons[l]) for l in range(1, self.L + 1)]
        fan_in = [1] + list(widths[:self.L - 1])           # layer 1 copies W_i; layer l sums over layer l - 1
        #: the work of one leaf: its rows over (x, h, 1), and their combination by the multipliers
        self.leaf_cost = (self.nv + 1) * (sum(r * f for r, f in zip(rows, fan_in)) + 2 * S + len(conditions))


# ---- evidence ----------------------------------------------------------------------------

def _multiplier(v) -> Fraction:
    """A positive multiplier: an int or a lowest-terms ``"p/q"`` string with q > 1."""
    if _int(v):
        x = Fraction(v)
    elif isinstance(v, str) and _FRACTION_TEXT.match(v):
        try:
            x = _read_rational(v)
        except (CertificateError, ValueError) as e:
            raise _Fail(f"multiplier {v[:40]!r}: {e}") from None
        if x.denominator == 1:
            raise _Fail(f"multiplier {v[:40]!r}: an integer is written as an integer, not 'p/1'")
    else:
        raise _Fail(f"multiplier {v!r:.60} is not an integer or a 'p/q' string")
    if x <= 0:
        raise _Fail(f"multiplier {v!r:.60} is not positive (list only the nonzero multipliers, all > 0)")
    return x


def _multipliers(raw, count: int, what: str) -> list[tuple[int, Fraction]]:
    if not isinstance(raw, (list, tuple)):
        raise _Fail(f"{what} multipliers must be a list of [index, value] pairs")
    out = []
    last = -1
    for pair in raw:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not _int(pair[0]):
            raise _Fail(f"{what} multiplier {pair!r:.60} is not an [index, value] pair")
        idx = pair[0]
        if not 0 <= idx < count:
            raise _Fail(f"{what} row index {idx} out of range (the leaf has {count} {what} rows)")
        if idx <= last:
            raise _Fail(f"{what} row indices must be strictly increasing ({idx} after {last})")
        last = idx
        out.append((idx, _multiplier(pair[1])))
    return out


def _check_leaf(problem: _Problem, sigma: list[int], leaf, where: str) -> None:
    if not isinstance(leaf, Mapping) or set(leaf) != {"closed", "strict"}:
        raise _Fail(f"{where}: a leaf is {{'closed': [...], 'strict': [...]}}")
    n_closed = sum(1 if s else 2 for s in sigma) + sum(1 for c in problem.conditions if c[2] in (">=0", "<=0"))
    n_strict = sum(1 for c in problem.conditions if c[2] in (">0", "<0"))
    ys = _multipliers(leaf["closed"], n_closed, "closed")
    mus = _multipliers(leaf["strict"], n_strict, "strict")
    rows = _Rows(problem, sigma)
    terms = [(rows.row(rows.closed[i]), y) for i, y in ys] + [(rows.row(rows.strict[i]), m) for i, m in mus]
    G = 1
    for (_, E), m in terms:
        G = math.lcm(G, m.denominator * E)
    acc = [0] * (problem.nv + 1)
    for (vec, E), m in terms:
        f = (G // (m.denominator * E)) * m.numerator
        for c, t in enumerate(vec):
            if t:
                acc[c] += f * t
    bad = [c for c in range(problem.nv) if acc[c]]
    if bad:
        c = bad[0]
        name = f"x_{c}" if c < problem.n0 else "h of scope neuron %d" % (c - problem.n0)
        raise _Fail(f"{where}: the combination of the rows is not constant (coefficient of {name} is "
                    f"{show(Fraction(acc[c], G))})")
    if acc[-1] > 0:
        raise _Fail(f"{where}: the combination of the rows is the constant {show(Fraction(acc[-1], G))} > 0")
    if acc[-1] == 0 and not mus:
        raise _Fail(f"{where}: the combination is 0 with no strict row: no contradiction")


def verify_no_input(net: Network, conditions, evidence, *, claim: str = "farkas-tree",
                    max_leaves: int = MAX_LEAVES, budget=None) -> int:
    """Verify a ``reluid.farkas-tree/1`` certificate that no x in R^{n0} meets ``conditions``.

    Parameters
    ----------
    net : Network
        The network; every row is rebuilt from it.
    conditions : sequence of (layer, neuron, sign)
        Hidden layer (1-based), neuron (0-based), sign in :data:`SIGNS`.
    evidence : mapping
        ``{"format": "reluid.farkas-tree/1", "scope_layers": L - 1, "tree": NODE}``
        (plain or frozen JSON data; numbers are ints or lowest-terms "p/q").
    claim : str, keyword-only
        The name :class:`CheckFailed` reports.
    max_leaves : int, keyword-only
        Trees with more leaves are rejected.
    budget : callable, keyword-only
        ``budget(steps, what)`` is called before every loop whose length the
        network or the tree controls (it raises to stop the check: the
        checker's work limit, :func:`reluid.checker.registry.charge`).

    Returns
    -------
    int
        The number of leaves verified.

    Raises
    ------
    CheckFailed
        On any defect: a wrong or malformed certificate, malformed conditions,
        a tree deeper than the scope or with more than ``max_leaves`` leaves.
    """
    try:
        if not isinstance(net, Network):
            raise _Fail(f"expected a Network, got {type(net).__name__}")
        conds = _read_conditions(net, conditions)
        return _verify(net, conds, evidence, max_leaves, budget or (lambda steps, what: None))
    except _Fail as e:
        raise CheckFailed(claim, str(e)) from None
    except RecursionError:  # not reached by the iterative walk; kept as a last line of defence
        raise CheckFailed(claim, "evidence nested too deeply") from None


def _verify(net: Network, conds, evidence, max_leaves: int, budget) -> int:
    if not isinstance(evidence, Mapping) or set(evidence) != {"format", "scope_layers", "tree"}:
        raise _Fail("evidence must be {'format', 'scope_layers', 'tree'}")
    if evidence["format"] != FORMAT:
        raise _Fail(f"format must be {FORMAT!r}, got {evidence['format']!r:.60}")
    budget(sum(net.layers[l].n_out * (net.layers[l].n_in + 1) for l in range(max(c[0] for c in conds))),
           "reading the layers of a Farkas-tree question")
    problem = _Problem(net, conds)
    sl = evidence["scope_layers"]
    if not _int(sl) or sl != problem.L - 1:
        raise _Fail(f"scope_layers must be {problem.L - 1} (the largest condition layer minus 1), got {sl!r:.60}")
    S = problem.S
    stack = [(evidence["tree"], [0] * S, 0, "root")]
    leaves = nodes = 0
    while stack:
        node, sigma, depth, where = stack.pop()
        nodes += 1
        if nodes > 2 * max_leaves:
            raise _Fail(f"the tree has more than {2 * max_leaves} nodes")
        if not isinstance(node, Mapping):
            raise _Fail(f"{where}: a node must be an object, got {type(node).__name__}")
        if "leaf" in node:
            if set(node) != {"leaf"}:
                raise _Fail(f"{where}: a leaf node has the single key 'leaf'")
            leaves += 1
            if leaves > max_leaves:
                raise _Fail(f"the tree has more than {max_leaves} leaves")
            budget(problem.leaf_cost, "the rows of one Farkas-tree leaf")
            _check_leaf(problem, sigma, node["leaf"], where)
        elif "split" in node:
            if set(node) != {"split", "pos", "neg"}:
                raise _Fail(f"{where}: a split node has exactly the keys 'split', 'pos' and 'neg'")
            if depth >= S:
                raise _Fail(f"{where}: the tree is deeper than the scope ({S} neurons)")
            target = node["split"]
            if not isinstance(target, (list, tuple)) or len(target) != 2 or not all(_int(t) for t in target):
                raise _Fail(f"{where}: split must name [layer, neuron], got {target!r:.60}")
            k = problem.scope_index.get(tuple(target))
            if k is None:
                raise _Fail(f"{where}: neuron {list(target)} is not in the scope (hidden layers 1..{problem.L - 1})")
            if sigma[k]:
                raise _Fail(f"{where}: neuron {list(target)} is already decided on this branch")
            for sign, key in ((-1, "neg"), (1, "pos")):
                child = list(sigma)
                child[k] = sign
                stack.append((node[key], child, depth + 1, f"{where}/{key}{list(target)}"))
        else:
            raise _Fail(f"{where}: a node is {{'split', 'pos', 'neg'}} or {{'leaf'}}")
    return leaves
