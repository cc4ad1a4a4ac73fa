"""Exact activation regions of ReLU networks: rational interior points and Farkas certificates.

A *row* ``r = (a_1, ..., a_n, b)`` stands for the affine function
``r(x) = a·x + b`` on Rⁿ.  An *open cell* is ``{x : r(x) > 0 for every row r}``.

Feasibility (docs/mathematics.md §7)
    :func:`strict_feasibility` decides whether an open cell is nonempty, with
    evidence either way: a rational point ``x`` with every ``r(x) > 0``, or
    multipliers ``y ≥ 0``, ``y ≠ 0`` with ``Σ y_i a_i = 0`` and
    ``Σ y_i b_i ≤ 0`` (Gordan's transposition theorem applied to the
    homogenised system), which make ``Σ y_i r_i(x) = Σ y_i b_i ≤ 0`` for every
    x, so no x has every ``r_i(x) > 0``.  Both are found by one exact simplex
    run (Bland's rule, :class:`fractions.Fraction` arithmetic) on
    ``max t : r_i(x) ≥ t, t ≤ 1`` through its dual, and both are re-verified
    (:meth:`Feasibility.verify`) before they are returned.

Arrangements
    :func:`arrangement` lists the nonempty open cells of a hyperplane
    arrangement ``{r = 0}`` (every sign vector ``s`` with
    ``{x : s_j r_j(x) > 0}`` nonempty), each with a rational point; every sign
    choice it drops comes with a Farkas certificate.

Activation regions
    :func:`activation_regions` does the same for the piecewise structure of
    one or more networks on a common input space: it splits Rⁿ by the layer-1
    hyperplanes, then each cell by the layer-2 pre-activations (affine on that
    cell), and so on.  A region fixes, for every hidden neuron, the sign of its
    pre-activation: ``+1`` or ``-1`` (strict on the whole region) or ``0``
    (identically zero there).  On a region every network is affine, and
    :attr:`Region.pieces` holds those affine functions.  The closures of the
    regions cover Rⁿ: each split removes only a hyperplane from a cell, so the
    union of the regions is dense (docs/mathematics.md §7).

:class:`RegionWalk` yields the regions one at a time (so that a caller can
stop at the first region it needs) within a time and region budget, and
freezes into a :class:`RegionEnumeration`.

Examples
--------
>>> from fractions import Fraction as F
>>> strict_feasibility([(F(1), F(0)), (F(-1), F(1))]).point       # 0 < x < 1
(Fraction(1, 2),)
>>> strict_feasibility([(F(1), F(0)), (F(-1), F(0))]).multipliers  # x > 0 and -x > 0
(Fraction(1, 2), Fraction(1, 2))
>>> len(arrangement([(F(1), F(0), F(0)), (F(0), F(1), F(0)), (F(1), F(1), F(-1))], 2).regions)
7
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator, Sequence

from reluid.errors import InvalidArgument
from reluid.model.network import Network
from reluid.model.rational import primitive_ray
from reluid.verdicts import Reason, ReasonCode

__all__ = ["Row", "Feasibility", "strict_feasibility", "evaluate_row", "Region", "EmptyCell",
           "RegionEnumeration", "RegionWalk", "arrangement", "activation_regions"]

Row = tuple[Fraction, ...]
_ZERO = Fraction(0)
_ONE = Fraction(1)


def evaluate_row(row: Sequence[Fraction], x: Sequence[Fraction]) -> Fraction:
    """``r(x) = a·x + b`` exactly."""
    return sum((a * v for a, v in zip(row, x) if a), row[-1])


def _sign(v) -> int:
    return (v > 0) - (v < 0)


# ---------------------------------------------------------------------------
# exact strict feasibility
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Feasibility:
    """Whether ``{x : r(x) > 0 for every row}`` is nonempty, with the evidence.

    Exactly one of ``point`` (every ``r(x) > 0``) and ``multipliers``
    (``y ≥ 0``, ``y ≠ 0``, ``Σ y_i a_i = 0``, ``Σ y_i b_i ≤ 0``) is set.
    """

    rows: tuple[Row, ...]
    point: tuple[Fraction, ...] | None = None
    multipliers: tuple[Fraction, ...] | None = None

    @property
    def nonempty(self) -> bool:
        return self.point is not None

    def verify(self) -> bool:
        """Re-check the evidence exactly."""
        if (self.point is None) == (self.multipliers is None):
            return False
        if self.point is not None:
            return all(evaluate_row(r, self.point) > 0 for r in self.rows)
        y = self.multipliers
        if len(y) != len(self.rows) or any(v < 0 for v in y) or not any(y):
            return False
        n = len(self.rows[0]) - 1
        combo = [sum((yi * r[c] for yi, r in zip(y, self.rows) if yi), _ZERO) for c in range(n + 1)]
        return all(v == 0 for v in combo[:n]) and combo[n] <= 0


def _pivot(T: list[list[Fraction]], cost: list[Fraction], r: int, c: int) -> None:
    row = T[r]
    p = row[c]
    if p != 1:
        inv = 1 / p
        row[:] = [v * inv if v else v for v in row]
    nz = [(j, v) for j, v in enumerate(row) if v]
    for other in (*T, cost):
        if other is row:
            continue
        f = other[c]
        if f:
            for j, v in nz:
                other[j] -= f * v


def strict_feasibility(rows: Sequence[Sequence[Fraction]], dim: int | None = None) -> Feasibility:
    """Decide exactly whether some x has ``r(x) > 0`` for every row (docs/mathematics.md §7).

    Parameters
    ----------
    rows : sequence of rows ``(a_1, ..., a_n, b)`` of Fractions
    dim : int, optional
        n, needed only when ``rows`` is empty.

    Returns
    -------
    Feasibility
        With a rational point maximising ``min_i r_i(x)`` (capped at 1), or
        Farkas multipliers; verified before it is returned.

    Notes
    -----
    The simplex runs on the dual of ``max t : r_i(x) ≥ t (all i), t ≤ 1``,

        min Σ b_i y_i + u  subject to  Σ a_i y_i = 0,  Σ y_i + u = 1,  y, u ≥ 0,

    whose optimum equals the primal one, t*.  If t* > 0 the simplex
    multipliers give x with every ``r_i(x) ≥ t* > 0``; otherwise the optimal y
    is nonzero (y = 0 forces u = 1 and the value 1) and ``Σ b_i y_i ≤ -u ≤ 0``.
    Bland's rule makes it terminate.
    """
    rows = tuple(tuple(Fraction(v) for v in r) for r in rows)
    if not rows:
        if dim is None:
            raise InvalidArgument("strict_feasibility needs dim when there are no rows")
        return Feasibility(rows, point=(_ZERO,) * dim)
    n = len(rows[0]) - 1
    if any(len(r) != n + 1 for r in rows):
        raise InvalidArgument("rows of different lengths")
    m = len(rows)
    # columns: y_0..y_{m-1}, u, then n + 1 tracking columns (B⁻¹; never enter), then the right-hand side
    width = m + 1 + (n + 1)
    T = []
    for e in range(n):
        line = [r[e] for r in rows] + [_ZERO] + [_ONE if t == e else _ZERO for t in range(n + 1)] + [_ZERO]
        T.append(line)
    T.append([_ONE] * m + [_ONE] + [_ONE if t == n else _ZERO for t in range(n + 1)] + [_ONE])
    basis = [m + 1 + e for e in range(n)] + [m]        # tracking columns act as artificials at level 0
    cost_of = [r[n] for r in rows] + [_ONE] + [_ZERO] * (n + 1)
    # reduced costs d_j = c_j - c_B B⁻¹ A_j; initially π = (0, ..., 0, 1)
    cost = [cost_of[j] - T[n][j] for j in range(width)] + [-T[n][width]]
    # drive the artificials (rows with right-hand side 0) out of the basis where the row allows it
    for e in range(n):
        j = next((j for j in range(m + 1) if T[e][j]), None)
        if j is not None:
            _pivot(T, cost, e, j)
            basis[e] = j
    # phase 2, Bland's rule
    while True:
        enter = next((j for j in range(m + 1) if cost[j] < 0), None)
        if enter is None:
            break
        best = None
        for i, line in enumerate(T):
            a = line[enter]
            if a > 0:
                ratio = line[width] / a
                if best is None or ratio < best[0] or (ratio == best[0] and basis[i] < basis[best[1]]):
                    best = (ratio, i)
        if best is None:  # pragma: no cover - the dual is bounded below by any primal point
            raise AssertionError("strict_feasibility: unbounded dual")
        _pivot(T, cost, best[1], enter)
        basis[best[1]] = enter
    value = -cost[width]
    if value > 0:
        # π_e = -d(tracking column e); x = -π_x
        point = tuple(cost[m + 1 + e] for e in range(n))
        result = Feasibility(rows, point=point)
    else:
        y = [_ZERO] * m
        for i, bv in enumerate(basis):
            if bv < m:
                y[bv] = T[i][width]
        result = Feasibility(rows, multipliers=tuple(y))
    if not result.verify():  # pragma: no cover - keeps every answer honest
        raise AssertionError("strict_feasibility produced evidence that does not verify")
    return result


# ---------------------------------------------------------------------------
# regions
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Region:
    """A nonempty open region on which every listed pre-activation has a constant sign.

    Attributes
    ----------
    pattern : tuple
        ``pattern[i][l][j]`` is the sign (``1``, ``-1``, or ``0`` when it is
        identically zero on the region) of neuron j of hidden layer l + 1 of
        network i (for :func:`arrangement`: ``pattern[0][0][j]`` is the sign of
        row j).
    point : tuple of Fraction
        A rational point of the region.
    inequalities : tuple of rows
        The region is ``{x : r(x) > 0 for every r}`` (one row per split).
    pieces : tuple
        ``pieces[i][l]`` are the pre-activations of layer map l + 1 of network i
        as affine functions (rows) on the region, for every split layer and the
        one after it; when every hidden layer was split the last entry is the
        network's output, so ``pieces[i][-1]`` is its affine map there.
    """

    pattern: tuple[tuple[tuple[int, ...], ...], ...]
    point: tuple[Fraction, ...]
    inequalities: tuple[Row, ...]
    pieces: tuple[tuple[tuple[Row, ...], ...], ...] = ()

    def output(self, i: int = 0) -> tuple[Row, ...]:
        """The affine map of network i on the region (one row per output)."""
        return self.pieces[i][-1]

    def contains(self, x: Sequence[Fraction]) -> bool:
        return all(evaluate_row(r, x) > 0 for r in self.inequalities)


@dataclass(frozen=True, slots=True)
class EmptyCell:
    """A sign choice that was dropped: ``{x : r(x) > 0 for every r}`` is empty, by Farkas multipliers."""

    inequalities: tuple[Row, ...]
    multipliers: tuple[Fraction, ...]

    def verify(self) -> bool:
        return Feasibility(self.inequalities, multipliers=self.multipliers).verify()


@dataclass(frozen=True, slots=True)
class RegionEnumeration:
    """Every nonempty open region (when ``complete``), with the dropped cells' certificates.

    ``reason`` says how the walk ended, as data (:mod:`reluid.report.reasons` words it).
    """

    input_dim: int
    regions: tuple[Region, ...]
    empty: tuple[EmptyCell, ...]
    complete: bool
    reason: Reason = Reason(ReasonCode.REGIONS_NOT_RUN)
    lps: int = 0

    def __len__(self) -> int:
        return len(self.regions)


class _Cell:
    """A region under construction (mutable; copied on every split)."""

    __slots__ = ("ineqs", "keys", "point", "pattern", "pieces", "z")

    def __init__(self, ineqs, keys, point, pattern, pieces, z):
        self.ineqs = ineqs        # list of rows, each > 0 on the cell
        self.keys = keys          # primitive ray of each inequality -> True
        self.point = point
        self.pattern = pattern    # list (per network) of lists (per layer) of lists of signs
        self.pieces = pieces      # list (per network) of lists (per layer) of tuples of rows
        self.z = z                # rows being split (the current layer's pre-activations)

    def child(self, row, key, point) -> "_Cell":
        keys = dict(self.keys)
        keys[key] = True
        return _Cell(self.ineqs + [row], keys, point, [[list(s) for s in p] for p in self.pattern],
                     [list(p) for p in self.pieces], self.z)


def _neg(row: Row) -> Row:
    return tuple(-v for v in row)


class RegionWalk:
    """Depth-first enumeration of exact regions; iterate it, then read ``complete`` / :meth:`result`.

    Parameters
    ----------
    nets : sequence of Network
        Networks with the same input dimension (their regions are refined together).
    upto : int, optional
        Split hidden layers 1..upto only (default: all of them).
    timeout : float, optional
        Seconds; the walk stops (``complete = False``) when they run out.
    max_regions : int, optional
        Stop after this many regions.
    keep_empty : bool
        Keep every dropped cell with its Farkas certificate (:attr:`empty`).
    """

    def __init__(self, nets: Sequence[Network], *, upto: int | None = None, timeout: float | None = None,
                 max_regions: int | None = None, keep_empty: bool = True, _rows: Sequence[Row] | None = None,
                 _dim: int | None = None):
        if _rows is None:
            nets = tuple(nets)
            if not nets:
                raise InvalidArgument("RegionWalk needs at least one network")
            dims = {net.input_dim for net in nets}
            if len(dims) != 1:
                raise InvalidArgument(f"networks with different input dimensions {sorted(dims)}")
            self.dim = dims.pop()
            deepest = max(len(net.hidden_widths) for net in nets)
            self.upto = deepest if upto is None else upto
            if not 0 <= self.upto <= deepest:
                raise InvalidArgument(f"upto must be between 0 and {deepest}, got {upto}")
        else:
            self.dim, self.upto = _dim, 1
        self.nets = tuple(nets)
        self._rows = None if _rows is None else tuple(tuple(Fraction(v) for v in r) for r in _rows)
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.max_regions = max_regions
        self.keep_empty = keep_empty
        self.empty: list[EmptyCell] = []
        self.regions: list[Region] = []
        self.lps = 0
        self.complete = False
        self.reason = Reason(ReasonCode.REGIONS_NOT_RUN)
        self._started = False

    # ---- stages ----------------------------------------------------------
    def _stages(self):
        """(network index, hidden layer l ≥ 1) in splitting order."""
        if self._rows is not None:
            return [(0, 1)]
        return [(i, l) for l in range(1, self.upto + 1) for i, net in enumerate(self.nets)
                if l <= len(net.hidden_widths)]

    def _layer_rows(self, cell: _Cell, i: int, l: int) -> tuple[Row, ...]:
        """Pre-activations of layer map l of network i on the cell (its earlier layers' signs are fixed)."""
        if self._rows is not None:
            return self._rows
        L = self.nets[i].layers[l - 1]
        n = self.dim
        if l == 1:
            return tuple(tuple(w) + (b,) for w, b in zip(L.weight, L.bias))
        prev = cell.pieces[i][l - 2]
        signs = cell.pattern[i][l - 2]
        live = [(j, prev[j]) for j in range(len(prev)) if signs[j] > 0]
        out = []
        for w, b in zip(L.weight, L.bias):
            acc = [_ZERO] * n + [b]
            for j, r in live:
                c = w[j]
                if c:
                    for t in range(n + 1):
                        if r[t]:
                            acc[t] += c * r[t]
            out.append(tuple(acc))
        return tuple(out)

    # ---- splitting --------------------------------------------------------
    def _out_of_budget(self) -> Reason | None:
        if self.max_regions is not None and len(self.regions) >= self.max_regions:
            return Reason(ReasonCode.REGIONS_STOPPED, {"regions": len(self.regions), "lps": self.lps,
                                                       "max_regions": self.max_regions})
        if self.deadline is not None and time.monotonic() > self.deadline:
            return Reason(ReasonCode.REGIONS_STOPPED, {"regions": len(self.regions), "lps": self.lps,
                                                       "max_regions": None})
        return None

    def _other_side(self, cell: _Cell, row: Row) -> tuple[Fraction, ...] | None:
        """A point of the cell with row(x) > 0 (the cell's point has row(point) ≤ 0), or None (certified)."""
        ineqs = cell.ineqs + [row]
        x, a = cell.point, row[:-1]
        v = evaluate_row(row, x)
        aa = sum((t * t for t in a), _ZERO)
        for f in (Fraction(2), Fraction(3, 2), Fraction(11, 10), Fraction(101, 100)):   # try just across first
            step = (-v / aa) * f if v else f / aa / 1024
            y = tuple(xi + step * ai for xi, ai in zip(x, a))
            if all(evaluate_row(r, y) > 0 for r in ineqs):
                return y
        self.lps += 1
        res = strict_feasibility(ineqs, self.dim)
        if res.nonempty:
            return res.point
        if self.keep_empty:
            self.empty.append(EmptyCell(tuple(ineqs), res.multipliers))
        return None

    def _split(self, cell: _Cell, row: Row, record) -> list[_Cell]:
        """The nonempty children of ``cell`` cut by ``row``; ``record(child, sign)`` stores the sign."""
        if not any(row[:-1]):
            s = _sign(row[-1])
            record(cell, s)
            return [cell]
        key, _ = primitive_ray(row)
        nkey = tuple(-v for v in key)
        if key in cell.keys:
            record(cell, 1)
            return [cell]
        if nkey in cell.keys:
            record(cell, -1)
            return [cell]
        v = evaluate_row(row, cell.point)
        out = []
        for s, r, k in ((1, row, key), (-1, _neg(row), nkey)):
            if v * s > 0:
                p = cell.point
            else:
                p = self._other_side(cell, r)
                if p is None:
                    continue
            child = cell.child(r, k, p)
            record(child, s)
            out.append(child)
        return out

    # ---- the walk -----------------------------------------------------------
    def __iter__(self) -> Iterator[Region]:
        if self._started:
            raise InvalidArgument("a RegionWalk can be iterated once; use result() for the regions")
        self._started = True
        stages = self._stages()
        npat = 1 if self._rows is not None else len(self.nets)
        root = _Cell([], {}, (_ZERO,) * self.dim, [[] for _ in range(npat)], [[] for _ in range(npat)], None)
        # stack entries: (cell, stage index, neuron index)
        stack = [(root, 0, 0)]
        while stack:
            reason = self._out_of_budget()
            if reason:
                self.complete, self.reason = False, reason
                return
            cell, si, j = stack.pop()
            if si == len(stages):
                region = self._freeze(cell)
                self.regions.append(region)
                yield region
                continue
            i, l = stages[si]
            if j == 0:
                cell.z = self._layer_rows(cell, i, l)
                cell.pattern[i].append([])
                cell.pieces[i].append(cell.z)
            if j == len(cell.z):
                stack.append((cell, si + 1, 0))
                continue

            def record(c, s, i=i):
                c.pattern[i][-1].append(s)
            children = self._split(cell, cell.z[j], record)
            for c in reversed(children):
                stack.append((c, si, j + 1))
        self.complete, self.reason = True, Reason(ReasonCode.REGIONS_COMPLETE, {"regions": len(self.regions),
                                                                               "lps": self.lps})

    def _freeze(self, cell: _Cell) -> Region:
        pieces = cell.pieces
        if self._rows is None:
            pieces = [list(p) for p in pieces]
            for i, net in enumerate(self.nets):
                l = len(pieces[i]) + 1         # the layer map after the last split one
                if l <= net.depth:
                    pieces[i].append(self._layer_rows(cell, i, l))
        return Region(tuple(tuple(tuple(s) for s in p) for p in cell.pattern), cell.point, tuple(cell.ineqs),
                      tuple(tuple(p) for p in pieces))

    def run(self) -> "RegionEnumeration":
        for _ in self:
            pass
        return self.result()

    def result(self) -> RegionEnumeration:
        return RegionEnumeration(self.dim, tuple(self.regions), tuple(self.empty), self.complete, self.reason,
                                 self.lps)


def arrangement(rows: Sequence[Sequence[Fraction]], dim: int, *, timeout: float | None = None,
                max_regions: int | None = None) -> RegionEnumeration:
    """The nonempty open cells of the hyperplane arrangement ``{r = 0 : r in rows}``.

    A row with a zero linear part is a constant: its sign is recorded and it
    cuts nothing.  Each region's ``pattern[0][0]`` is its sign vector and
    ``point`` a rational point of it; every sign vector not listed is empty
    (its certificate is in ``empty``, or it repeats a hyperplane already cut).
    """
    return RegionWalk((), timeout=timeout, max_regions=max_regions, _rows=rows, _dim=dim).run()


def activation_regions(nets: Network | Sequence[Network], *, upto: int | None = None,
                       timeout: float | None = None, max_regions: int | None = None) -> RegionEnumeration:
    """Every nonempty open activation region of one network, or of several refined together.

    Parameters
    ----------
    nets : Network or sequence of Network
        Networks with a common input dimension.
    upto : int, optional
        Split only hidden layers 1..upto (``upto = 1``: the arrangement of the
        layer-1 hyperplanes, with the layer-2 pre-activations as affine pieces).
    timeout, max_regions : optional
        Budgets; when one runs out the result has ``complete = False``.

    Returns
    -------
    RegionEnumeration

    Examples
    --------
    >>> net = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [-1]), ([[1]], [0])])   # σ(|x| - 1)
    >>> regs = activation_regions(net)
    >>> sorted((r.pattern[0], r.output(0)) for r in regs.regions)[0]
    (((-1, 1), (-1,)), ((Fraction(0, 1), Fraction(0, 1)),))
    >>> len(regs), regs.complete
    (4, True)
    """
    if isinstance(nets, Network):
        nets = (nets,)
    return RegionWalk(nets, upto=upto, timeout=timeout, max_regions=max_regions).run()
