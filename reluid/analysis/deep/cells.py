"""Exact activation cells of a ReLU network and its exact functional dimension (docs/mathematics.md §9).

A *cell* is a nonempty set R_s = {x : the hidden pre-activations have the strict signs s} for a sign
pattern s of every hidden neuron.  On R_s every pre-activation is an affine function of x (the
masks below it are fixed), so R_s is an open convex polyhedron, and the Jacobian rows
∂_θ F_θ(x) are affine in x (docs/mathematics.md §9, Theorem 9.1).  Hence n0 + 1 affinely
independent points of every cell span all Jacobian rows at generic points, and the exact rank
r_gen of the Jacobian at those points is

* a lower bound on dim_fun(θ) (the points are generic, hence parametrically smooth);
* equal to dim_fun(θ) when no hidden pre-activation vanishes identically on a nonempty open
  set (H_dense), which is decided exactly during the enumeration: a pre-activation whose
  affine form on a region of the layers below (and the neurons before it) is the zero form.

:func:`enumerate_cells` walks the sign tree neuron by neuron (layer by layer), deciding each
branch by an exact strict system (:func:`reluid.analysis.deep.strict.solve_strict`), within a
budget of cells and tree nodes; :func:`exact_functional_dimension` adds the points and the exact
rank over Q (python-flint).  Nothing here is a float.

>>> from reluid.model.network import Layer, Network
>>> net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 2], [2, 1], [1, 1]], [-1, -3, -5]),
...                           ([[1, 1, 1]], [0])])
>>> r = exact_functional_dimension(net)
>>> r.rank, r.upper_bound, r.dense, r.exact
(14, 14, True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint

from reluid.analysis.deep.strict import StrictBudget, solve_strict
from reluid.errors import InvalidArgument
from reluid.model.network import Layer, Network
from reluid.verdicts import Reason, ReasonCode

__all__ = ["Cell", "CellEnumeration", "CellsFunDim", "enumerate_cells", "cell_points", "exact_jacobian_rows",
           "exact_functional_dimension", "cell_sample", "same_function", "CellBudget"]

ZERO = Fraction(0)


class CellBudget(Exception):
    """The enumeration would exceed its budget (cells, nodes or time); ``reason`` says which, as data."""

    def __init__(self, reason: Reason):
        self.reason = reason
        super().__init__(reason.code)


@dataclass(frozen=True, slots=True)
class Cell:
    """One nonempty cell: its sign pattern (per hidden layer, +1/-1) and an exact interior point."""

    signs: tuple[tuple[int, ...], ...]
    point: tuple[Fraction, ...]
    rows: tuple[tuple[tuple[Fraction, ...], Fraction], ...]   # the strict rows (a, β): a·x + β > 0


@dataclass(frozen=True, slots=True)
class CellEnumeration:
    """Every nonempty cell, or why the enumeration stopped.

    ``complete`` is False when the budget ran out (``reason`` says where, as data); ``dense`` is False
    when some hidden pre-activation is the zero form on a nonempty open region (``dense_failure``
    names the first one: layer, neuron, and a point of that region).
    """

    architecture: tuple[int, ...]
    cells: tuple[Cell, ...]
    complete: bool
    dense: bool
    dense_failure: tuple | None
    nodes: int
    reason: Reason | None = None


def _affine_apply(W, b, forms, n0, check=None):
    """Pre-activations of a layer as affine forms (gradient..., constant) of x; ``check()`` before each row
    (one row of a layer of a 784-128-128 network is 10^5 exact products)."""
    out = []
    for row, bi in zip(W, b):
        if check is not None:
            check()
        v = [ZERO] * (n0 + 1)
        for wij, f in zip(row, forms):
            if wij and f is not None:
                for t in range(n0 + 1):
                    v[t] += wij * f[t]
        v[n0] += bi
        out.append(tuple(v))
    return out


def enumerate_cells(net: Network, *, max_cells: int = 5000, max_nodes: int = 50000, timeout: float | None = None,
                    max_rows: int = 4000, zero_forms: str = "skip") -> CellEnumeration:
    """All nonempty cells of ``net`` with exact witness points (see the module docstring).

    ``zero_forms``: a pre-activation whose affine form on a region is the zero form has no
    generic point there; ``"skip"`` drops that region (for the functional dimension),
    ``"inactive"`` continues with the neuron inactive (σ(0) = 0) and sign 0 in the pattern, so
    that the cells cover a dense open subset of R^{n0} (for :func:`same_function`).
    """
    if zero_forms not in ("skip", "inactive"):
        raise InvalidArgument(f"zero_forms must be 'skip' or 'inactive', got {zero_forms!r}")
    if not isinstance(net, Network):
        raise InvalidArgument(f"expected a Network, got {type(net).__name__}")
    n0 = net.input_dim
    hidden = [L for L in net.layers[:-1]]
    deadline = None if timeout is None else time.monotonic() + timeout
    cells: list[Cell] = []
    state = {"nodes": 0, "dense": True, "failure": None}
    identity = [tuple(Fraction(int(i == t)) for t in range(n0)) + (ZERO,) for i in range(n0)]

    def tick():
        state["nodes"] += 1
        if state["nodes"] > max_nodes:
            raise CellBudget(Reason(ReasonCode.CELLS_NODES, {"limit": max_nodes}))
        late()

    def late():
        if deadline is not None and time.monotonic() > deadline:
            raise CellBudget(Reason(ReasonCode.CELLS_TIMEOUT, {"nodes": state["nodes"]}))

    def feasible(rows):
        B = [list(a) for a, _ in rows]
        b = [beta for _, beta in rows]
        kind, res = solve_strict(B, b, n=n0, max_rows=max_rows, tick=late)     # one elimination ran 10 s
        return res if kind == "point" else None

    def walk(l, forms, pre, i, signs, rows, point):
        # forms: post-activation forms of layer l-1 (inputs for l = 0); pre: pre-activations of layer l
        if l == len(hidden):
            if len(cells) >= max_cells:
                raise CellBudget(Reason(ReasonCode.CELLS_TOO_MANY, {"limit": max_cells}))
            cells.append(Cell(tuple(tuple(s) for s in signs), tuple(point), tuple(rows)))
            return
        if pre is None:
            L = hidden[l]
            pre = _affine_apply(L.weight, L.bias, forms, n0, late)
            signs = signs + [[]]
        if i == len(pre):
            post = [z if s > 0 else None for z, s in zip(pre, signs[-1])]
            walk(l + 1, post, None, 0, signs, rows, point)
            return
        z = pre[i]
        grad, const = z[:n0], z[n0]
        if not any(grad):
            if const == 0:
                if state["dense"]:
                    state["dense"], state["failure"] = False, (l + 1, i, tuple(point))
                if zero_forms == "skip":
                    return       # no generic point here: the pre-activation is 0 on this open region
            s = 1 if const > 0 else -1 if const < 0 else 0
            walk(l, forms, pre, i + 1, signs[:-1] + [signs[-1] + [s]], rows, point)
            return
        for s in (1, -1):
            tick()
            val = sum((g * x for g, x in zip(grad, point)), const) if point is not None else None
            row = (tuple(s * g for g in grad), s * const)
            if val is not None and s * val > 0:
                p = point          # the current witness already satisfies the new row
            else:
                p = feasible(rows + [row])
                if p is None:
                    continue
            walk(l, forms, pre, i + 1, signs[:-1] + [signs[-1] + [s]], rows + [row], tuple(p))

    try:
        walk(0, identity, None, 0, [], [], tuple([ZERO] * n0))
    except (CellBudget, StrictBudget) as e:
        why = e.reason if isinstance(e, CellBudget) else Reason(ReasonCode.METHOD_ERROR, {"error": str(e)})
        return CellEnumeration(net.architecture, tuple(cells), False, state["dense"], state["failure"],
                               state["nodes"], Reason(ReasonCode.CELLS_STOPPED, {"why": why, "cells": len(cells)}))
    return CellEnumeration(net.architecture, tuple(cells), True, state["dense"], state["failure"], state["nodes"])


def cell_points(cell: Cell, n0: int) -> list[tuple[Fraction, ...]]:
    """n0 + 1 affinely independent exact points of an open cell: p and p + ε_i e_i."""
    p = cell.point
    out = [tuple(p)]
    for i in range(n0):
        eps = Fraction(1)
        for a, beta in cell.rows:
            val = sum((x * y for x, y in zip(a, p)), beta)
            if a[i] < 0:
                eps = min(eps, val / (2 * -a[i]))
        q = list(p)
        q[i] += eps
        out.append(tuple(q))
    return out


def exact_jacobian_rows(net: Network, x) -> list[list[Fraction]]:
    """∂F_o(x)/∂θ for every output o, exactly, at a point with no hidden pre-activation 0.

    Parameters are ordered layer by layer, W row-major then b (as everywhere in reluid).
    """
    hs = [tuple(x)]
    masks = []
    for L in net.layers[:-1]:
        z = L.apply(hs[-1])
        if any(v == 0 for v in z):
            raise InvalidArgument("the point is not generic: a hidden pre-activation is 0")
        masks.append(tuple(v > 0 for v in z))
        hs.append(tuple(v if v > 0 else ZERO for v in z))
    rows = []
    for out in range(net.output_dim):
        delta = [Fraction(int(o == out)) for o in range(net.output_dim)]
        grads = []
        for m in range(len(net.layers) - 1, -1, -1):
            L = net.layers[m]
            grads.append([d * h for d in delta for h in hs[m]] + list(delta))
            if m:
                delta = [sum((L.weight[o][k] * delta[o] for o in range(L.n_out)), ZERO) if masks[m - 1][k] else ZERO
                         for k in range(L.n_in)]
        rows.append([v for g in reversed(grads) for v in g])
    return rows


@dataclass(frozen=True, slots=True)
class CellsFunDim:
    """The exact rank r_gen of the Jacobian at n0 + 1 points of every cell (Theorem 9.1).

    ``exact`` is True when dim_fun(θ) = ``rank`` is proved: all cells were enumerated and either
    H_dense holds or ``rank`` = U.  Otherwise ``rank`` is a lower bound (complete or not).
    """

    architecture: tuple[int, ...]
    n_params: int
    upper_bound: int
    rank: int
    cells: int
    points: tuple[tuple[Fraction, ...], ...]
    complete: bool
    dense: bool
    dense_failure: tuple | None
    reason: Reason | None = None
    seconds: float = field(default=0.0, compare=False)

    @property
    def exact(self) -> bool:
        return self.complete and (self.dense or self.rank == self.upper_bound)

    @property
    def certified(self) -> bool:
        """dim_fun = U is proved."""
        return self.rank == self.upper_bound

    def summary(self) -> Reason:
        """The result as data (``fundim-cells``; :func:`reluid.report.fundim.describe_cells` words it)."""
        failure = None
        if self.dense_failure is not None:
            layer, neuron, p = self.dense_failure
            failure = [layer, neuron, [str(v) for v in p]]
        return Reason(ReasonCode.FUNDIM_CELLS, {
            "architecture": self.architecture, "n_params": self.n_params, "rank": self.rank,
            "upper_bound": self.upper_bound, "exact": self.exact, "certified": self.certified, "dense": self.dense,
            "complete": self.complete, "cells": self.cells, "dense_failure": failure, "stopped": self.reason})


def cell_sample(net: Network, *, max_cells: int = 2000, max_nodes: int = 20000,
                timeout: float | None = 10.0) -> list[tuple[Fraction, ...]] | None:
    """n0 + 1 exact generic points in every cell, or None when the cells cannot all be enumerated."""
    en = enumerate_cells(net, max_cells=max_cells, max_nodes=max_nodes, timeout=timeout)
    if not en.complete or not en.cells:
        return None
    return [q for c in en.cells for q in cell_points(c, net.input_dim)]


def _joint(net1: Network, net2: Network) -> Network:
    """A network computing F_1 − F_2: the hidden layers side by side, the last layer [W1, −W2]."""
    layers = []
    for m, (L1, L2) in enumerate(zip(net1.layers, net2.layers)):
        last = m == len(net1.layers) - 1
        if m == 0:
            W = L1.weight + L2.weight
        else:
            W = tuple(tuple(r) + (ZERO,) * L2.n_in for r in L1.weight)
            W2 = tuple((ZERO,) * L1.n_in + tuple(r) for r in L2.weight)
            W = tuple(tuple(a - b for a, b in zip(r1, r2)) for r1, r2 in zip(W, W2)) if last else W + W2
        b = tuple(x - y for x, y in zip(L1.bias, L2.bias)) if last else L1.bias + L2.bias
        layers.append(Layer(W, b, L1.n_in + (L2.n_in if m else 0)))
    return Network(tuple(layers))


def same_function(net1: Network, net2: Network, *, max_cells: int = 20000, max_nodes: int = 200000,
                  timeout: float | None = None) -> tuple[bool | None, tuple[Fraction, ...] | None]:
    """Exact decision of F_1 = F_2 on R^{n0} for two networks of the same depth and input/output widths.

    The network computing F_1 − F_2 (:func:`_joint`) is affine on each of its cells, which cover
    a dense open set (zero forms taken as inactive); both sides are continuous, so F_1 = F_2 iff
    the difference vanishes at n0 + 1 affinely independent points of every cell.  Returns
    ``(True, None)``, ``(False, x)`` with F_1(x) ≠ F_2(x), or ``(None, None)`` beyond the budget.
    """
    if (net1.depth, net1.input_dim, net1.output_dim) != (net2.depth, net2.input_dim, net2.output_dim):
        raise InvalidArgument("same_function needs the same depth, input and output widths")
    joint = _joint(net1, net2)
    en = enumerate_cells(joint, max_cells=max_cells, max_nodes=max_nodes, timeout=timeout, zero_forms="inactive")
    if not en.complete:
        return None, None
    for c in en.cells:
        for x in cell_points(c, joint.input_dim):
            if net1(x) != net2(x):
                return False, x
    return True, None


def _rank_q(rows, ncols: int) -> int:
    """The rank over Q of rational rows (each row scaled to integers; python-flint)."""
    if not rows:
        return 0
    ints = []
    for row in rows:
        d = math.lcm(*(v.denominator for v in row))
        ints.append([int(v * d) for v in row])
    return flint.fmpz_mat(ints).rank()


def exact_functional_dimension(net: Network, *, max_cells: int = 5000, max_nodes: int = 50000,
                               timeout: float | None = None) -> CellsFunDim:
    """dim_fun(θ) exactly from the cells when they can be enumerated (docs/mathematics.md §9)."""
    from reluid.analysis.deep.fundim import upper_bound

    t0 = time.perf_counter()
    en = enumerate_cells(net, max_cells=max_cells, max_nodes=max_nodes, timeout=timeout)
    U, _ = upper_bound(net.architecture)
    pts = [q for c in en.cells for q in cell_points(c, net.input_dim)]
    rows = [r for x in pts for r in exact_jacobian_rows(net, x)]
    r = _rank_q(rows, net.n_params)
    return CellsFunDim(net.architecture, net.n_params, U, r, len(en.cells), tuple(pts), en.complete, en.dense,
                       en.dense_failure, en.reason, time.perf_counter() - t0)
