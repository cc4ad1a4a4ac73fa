"""Exact detection of the mechanisms behind hidden symmetries of deep ReLU networks.

Grigsby, Lindsey and Rolnick (2023, Section 5) list mechanisms by which a
parameter θ of a network with at least two hidden layers acquires hidden
symmetries.  This module certifies four of them, each with an explicit θ′ that
has the same function (:meth:`Mechanism.witness`):

* a **dead** neuron (mechanism (i)): pre-activation <= 0 on all of R^{n0};
  its outgoing weights are irrelevant;
* an **always-active** neuron: pre-activation >= 0 everywhere, so its ReLU is
  the identity and δ > 0 can be moved from its bias into the next layer's;
* a **never co-active** pair (mechanism (ii)): i in layer l - 1 and j in layer
  l with no x where both pre-activations are > 0; W^l[j, i] can be decreased;
* a **layer flip** (mechanism (iv) where the relevant affine hull is the whole
  space): F in hidden layer l with Σ_{i in F} W^{l+1}[:, i] W^l[i, :] = 0;
  since σ(z) - σ(-z) = z, negating the rows in F and adding
  Σ_F W^{l+1}[:, i] b^l_i to b^{l+1} keeps the function.

Each premise is established exactly: by inspection (layer 1 is affine; deeper
layers see the positive orthant), by an exact matrix identity, or by z3 on the
linear-arithmetic encoding of :mod:`reluid.smt.deep` (``unsat`` is labelled
as resting on the solver; ``unknown`` never becomes a verdict).

Orbits
------
The obvious symmetries act on Ω(n0, ..., nd) as the product over hidden
layers of H_{n_l} = permutations · positive diagonal scalings (Grigsby,
Lindsey, Rolnick 2023, Definition F.4, (P) and (S)); an element
``g = (g_1, ..., g_{d-1})`` acts by :func:`reluid.model.symmetry.act_layers`:

    W^l_{π(j) π(k)}  <-  s^l_j · W^l_{jk} / s^{l-1}_k,      b^l_{π(j)} <- s^l_j b^l_j,

with ``s^0 = s^d = 1``.  :func:`deep_orbit_canonical` is a normal form (layer
by layer: each incoming row, in the columns already normalised, is divided by
the absolute value of its first nonzero entry, rows are sorted, ties are broken
by trying every order and keeping the least network); it is undefined when a
hidden neuron's incoming row is zero.  :func:`orbit_element` decides orbit
membership exactly for every pair (zero rows included) by a backtracking
search over permutations with a multiplicative union-find for the scalings.

The shallow analysis of the last hidden layer (Ramakrishnan 2026) is not
applied here; :data:`SHALLOW_HOOKS` is where it plugs in.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations, product
from types import MappingProxyType
from typing import Callable, Mapping

import flint
import numpy as np

from reluid.certificates.schema import Trust
from reluid.errors import InvalidArgument, OrbitSearchExhausted
from reluid.model.network import Layer, Network
from reluid.model.rational import primitive_ray
from reluid.model.symmetry import GroupElement, act_layers

__all__ = ["deep_orbit_canonical", "is_deep_canonical", "orbit_element", "same_orbit",
           "OrbitSearchExhausted", "network_key",
           "DEAD", "ALWAYS_ACTIVE", "NEVER_COACTIVE", "LAYER_FLIP", "KINDS", "METHODS", "REFERENCES",
           "Mechanism", "Activity", "MechanismReport", "detect_mechanisms", "layer_flip_sets",
           "SHALLOW_HOOKS"]

#: Callables ``hook(net) -> iterable of Mechanism``-like findings for the last
#: hidden layer, seen as a shallow network on the image of the earlier layers.
#: Empty for now: the shallow analysis (reluid.analysis.shallow) registers here.
SHALLOW_HOOKS: list[Callable] = []


def network_key(net: Network) -> tuple:
    """A total-order key over all parameters (layer by layer, row by row, bias last)."""
    return tuple((L.weight, L.bias) for L in net.layers)


def _first_abs(row) -> Fraction | None:
    for x in row:
        if x:
            return abs(x)
    return None


def _identity_elements(net: Network) -> list[GroupElement]:
    return [GroupElement.identity(n) for n in net.hidden_widths]


def deep_orbit_canonical(net: Network, *, max_branches: int = 5040) -> tuple[Network, tuple[GroupElement, ...]]:
    """Canonical representative of the orbit of a deep network, with its group element.

    Parameters
    ----------
    net : Network
        Any depth (a shallow network is normalised the same way).
    max_branches : int, keyword-only
        Bound on the number of tie-breaking orders tried.

    Returns
    -------
    (canon, gs)
        ``act_layers(gs, net) == canon``; ``canon`` depends only on the orbit.

    Raises
    ------
    InvalidArgument
        When a hidden neuron has an all-zero incoming row (use
        :func:`orbit_element` there), or ties need more than ``max_branches``
        orders.

    Examples
    --------
    >>> from reluid.model.symmetry import act_layers, GroupElement
    >>> net = Network.from_lists([([[2, 0], [1, 1]], [1, 0]), ([[1, -1], [3, 1]], [0, 1]), ([[1, 2]], [0])])
    >>> g = (GroupElement((1, 0), (Fraction(3), Fraction(1, 2))), GroupElement((1, 0), (Fraction(2), Fraction(5))))
    >>> deep_orbit_canonical(act_layers(g, net))[0] == deep_orbit_canonical(net)[0]
    True
    """
    hidden = net.hidden_widths
    best: list = [None, None]
    count = [0]

    def rec(cur: Network, l: int, gs: list[GroupElement]):
        if l > len(hidden):
            key = network_key(cur)
            if best[0] is None or key < best[0]:
                best[0], best[1] = key, (cur, tuple(gs))
            return
        L = cur.layers[l - 1]
        keyed = []
        for j, (w, b) in enumerate(zip(L.weight, L.bias)):
            row = w + (b,)
            t = _first_abs(row)
            if t is None:
                raise InvalidArgument(
                    f"hidden neuron {j} of layer {l} has a zero incoming row; the deep canonical form is "
                    "undefined there (use orbit_element)")
            s = 1 / t
            keyed.append((tuple(x * s for x in row), j, s))
        keyed.sort(key=lambda t: t[0])
        groups: list[list] = []
        for k in keyed:
            if groups and groups[-1][0][0] == k[0]:
                groups[-1].append(k)
            else:
                groups.append([k])
        orders = [list(permutations(g)) if len(g) > 1 else [tuple(g)] for g in groups]
        for choice in product(*orders):
            count[0] += 1
            if count[0] > max_branches:
                raise InvalidArgument(f"more than {max_branches} tie-breaking orders; canonical form not computed")
            flat = [k for grp in choice for k in grp]
            perm = [0] * len(flat)
            scale = [Fraction(1)] * len(flat)
            for pos, (_, j, s) in enumerate(flat):
                perm[j] = pos
                scale[j] = s
            g = GroupElement(tuple(perm), tuple(scale))
            els = _identity_elements(cur)
            els[l - 1] = g
            new_gs = list(gs)
            new_gs[l - 1] = g
            rec(act_layers(els, cur), l + 1, new_gs)

    rec(net, 1, _identity_elements(net))
    canon, gs = best[1]
    # gs[l] acted on the network produced by the earlier layers' elements; since
    # each element only touches (W^l, b^l, W^{l+1}) the composite is act_layers(gs, net).
    return canon, gs


def is_deep_canonical(net: Network) -> bool:
    """``True`` when ``net`` equals its own :func:`deep_orbit_canonical` form."""
    return deep_orbit_canonical(net)[0] == net


# ---------------------------------------------------------------------------
# Complete orbit membership
# ---------------------------------------------------------------------------

_ONE = ("one",)


class _Ratios:
    """Multiplicative union-find: ``s[node] = r · s[root]`` with r > 0 rational."""

    __slots__ = ("parent",)

    def __init__(self, parent=None):
        self.parent = dict(parent or {})

    def copy(self) -> "_Ratios":
        return _Ratios(self.parent)

    def find(self, node):
        r = Fraction(1)
        while node in self.parent:
            node, q = self.parent[node][0], self.parent[node][1] * r
            r = q
        return node, r

    def relate(self, a, ratio: Fraction, b) -> bool:
        """Impose ``s[a] = ratio · s[b]``; False when inconsistent."""
        if ratio <= 0:
            return False
        ra, xa = self.find(a)
        rb, xb = self.find(b)
        if ra == rb:
            return xa == ratio * xb
        # s[a] = xa s[ra], s[b] = xb s[rb]  =>  s[ra] = ratio xb / xa · s[rb]
        if ra == _ONE:  # keep the fixed node as a root
            self.parent[rb] = (ra, xa / (ratio * xb))
        else:
            self.parent[ra] = (rb, ratio * xb / xa)
        return True

    def value(self, node) -> Fraction:
        root, r = self.find(node)
        return r  # roots other than ONE are set to 1


def _pair(wa: Fraction, wb: Fraction, uf: _Ratios, a_node, b_node) -> bool:
    """Impose wb = wa · s[a_node] / s[b_node] (both zero is fine)."""
    if wa == 0 or wb == 0:
        return wa == wb
    return uf.relate(a_node, wb / wa, b_node)


def orbit_element(a: Network, b: Network, *, max_nodes: int = 200_000) -> tuple[GroupElement, ...] | None:
    """Decide exactly whether ``b = g·a`` for some g in the product of the H_{n_l}.

    Returns the group elements (one per hidden layer, checked with
    :func:`~reluid.model.symmetry.act_layers`) or ``None`` when ``b`` is outside
    the orbit of ``a``.  The search is exhaustive, so ``None`` is a proof.

    Raises
    ------
    OrbitSearchExhausted
        Only when more than ``max_nodes`` partial matches are explored.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [-1]], [0, 1]), ([[1, 1]], [0]), ([[2]], [1])])
    >>> g = (GroupElement((1, 0), (Fraction(2), Fraction(3))), GroupElement((0,), (Fraction(5),)))
    >>> orbit_element(net, act_layers(g, net)) == g
    True
    >>> orbit_element(net, Network.from_lists([([[1], [-1]], [0, 1]), ([[1, 2]], [0]), ([[2]], [1])])) is None
    True
    """
    if a.architecture != b.architecture:
        return None
    hidden = a.hidden_widths
    d = a.depth
    if a.layers[-1].bias != b.layers[-1].bias:
        return None
    if not hidden:
        return () if a.layers == b.layers else None
    nodes = [0]

    def node(l, j):
        return _ONE if l == 0 or l == d else (l, j)

    def signature(row):
        return tuple((x > 0) - (x < 0) for x in row)

    def row_ok(l: int, j: int, c: int, prev_perm, uf: _Ratios) -> _Ratios | None:
        La, Lb = a.layers[l - 1], b.layers[l - 1]
        uf = uf.copy()
        if not _pair(La.bias[j], Lb.bias[c], uf, node(l, j), _ONE):
            return None
        wa, wb = La.weight[j], Lb.weight[c]
        for k, pk in enumerate(prev_perm):
            if not _pair(wa[k], wb[pk], uf, node(l, j), node(l - 1, k)):
                return None
        return uf

    def output_ok(perm_last, uf: _Ratios) -> _Ratios | None:
        La, Lb = a.layers[-1], b.layers[-1]
        uf = uf.copy()
        for o in range(La.n_out):
            for k, pk in enumerate(perm_last):
                if not _pair(La.weight[o][k], Lb.weight[o][pk], uf, _ONE, node(d - 1, k)):
                    return None
        return uf

    def search(l: int, j: int, perms: list[list[int]], used: set, uf: _Ratios):
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise OrbitSearchExhausted(max_nodes)
        if j == hidden[l - 1]:
            if l == len(hidden):
                return perms, output_ok(perms[-1], uf)
            return search(l + 1, 0, perms + [[]], set(), uf)
        prev = list(range(a.input_dim)) if l == 1 else perms[l - 2]
        La, Lb = a.layers[l - 1], b.layers[l - 1]
        sig_a = signature(tuple(La.weight[j][k] for k in range(len(prev))) + (La.bias[j],))
        for c in range(hidden[l - 1]):
            if c in used:
                continue
            # signs must agree entry by entry (scalings are positive)
            wb = Lb.weight[c]
            sig_b = signature(tuple(wb[prev[k]] for k in range(len(prev))) + (Lb.bias[c],))
            if sig_a != sig_b:
                continue
            uf2 = row_ok(l, j, c, prev, uf)
            if uf2 is None:
                continue
            cur = perms[l - 1] + [c]
            new_perms = perms[:l - 1] + [cur]
            res = search(l, j + 1, new_perms, used | {c}, uf2)
            if res is not None and res[1] is not None:
                return res
        return None

    res = search(1, 0, [[]], set(), _Ratios())
    if res is None or res[1] is None:
        return None
    perms, uf = res
    gs = tuple(GroupElement(tuple(perms[l]), tuple(uf.value((l + 1, j)) for j in range(hidden[l])))
               for l in range(len(hidden)))
    if act_layers(gs, a) != b:  # cannot happen; keeps a positive answer honest
        raise AssertionError("orbit search produced a group element that does not map a to b")
    return gs


def same_orbit(a: Network, b: Network) -> bool:
    """``True`` iff ``b`` is in the orbit of ``a`` (exact; see :func:`orbit_element`)."""
    return orbit_element(a, b) is not None


# ===========================================================================
# Mechanisms (i), (ii), (iv) and the always-active shift
# ===========================================================================

DEAD = "dead-neuron"
ALWAYS_ACTIVE = "always-active"
NEVER_COACTIVE = "never-coactive"
LAYER_FLIP = "layer-flip"
ZERO_OUTGOING = "zero-outgoing"
PROPORTIONAL = "proportional-neurons"
KINDS = (DEAD, ALWAYS_ACTIVE, NEVER_COACTIVE, LAYER_FLIP, ZERO_OUTGOING, PROPORTIONAL)

#: How a mechanism's premise was established.
METHODS = ("affine", "orthant", "identity", "solver")

REFERENCES = {
    DEAD: "Grigsby, Lindsey, Rolnick 2023, Section 5, mechanism (i) (stably unactivated neuron)",
    ALWAYS_ACTIVE: "Grigsby, Lindsey, Rolnick 2023, Section 5 (a ReLU that never bends is affine; "
                   "its bias moves to the next layer)",
    NEVER_COACTIVE: "Grigsby, Lindsey, Rolnick 2023, Section 5, mechanism (ii) (never co-active pair)",
    LAYER_FLIP: "Grigsby, Lindsey, Rolnick 2023, Section 5, mechanism (iv); sigma(z) - sigma(-z) = z "
                "(flip sets, Ramakrishnan 2026) applied to one hidden layer",
    ZERO_OUTGOING: "Ramakrishnan 2026, Lemma 10 applied to one hidden layer (a neuron whose outgoing "
                   "weights vanish has free incoming weights)",
    PROPORTIONAL: "Ramakrishnan 2026, Lemma 11(1) applied to one hidden layer (sigma(lambda z) = "
                  "lambda sigma(z) for lambda > 0: positively proportional neurons merge)",
}


@dataclass(frozen=True, slots=True)
class Mechanism:
    """One certified source of hidden symmetries.

    Attributes
    ----------
    kind : str
        :data:`DEAD`, :data:`ALWAYS_ACTIVE`, :data:`NEVER_COACTIVE` or :data:`LAYER_FLIP`.
    layer : int
        Hidden layer l (1-based).  For :data:`NEVER_COACTIVE` it is the layer
        of the downstream neuron j (the upstream i is in layer l - 1).
    neurons : tuple of int
        ``(i,)``; ``(i, j)`` for a never co-active pair; the flip set F.
    method : str
        ``"affine"`` (layer 1: the pre-activation is affine, decided by
        inspection), ``"orthant"`` (layer >= 2: the incoming row has one sign,
        and the layer's input lies in the closed positive orthant),
        ``"identity"`` (an exact matrix identity) or ``"solver"`` (z3 unsat).
    solver : mapping or None
        :meth:`SolverConfig.describe` when ``method == "solver"``.
    """

    kind: str
    layer: int
    neurons: tuple[int, ...]
    method: str
    solver: Mapping | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InvalidArgument(f"unknown mechanism {self.kind!r}")
        if self.method not in METHODS:
            raise InvalidArgument(f"unknown method {self.method!r}")
        object.__setattr__(self, "neurons", tuple(self.neurons))
        if self.solver is not None:
            object.__setattr__(self, "solver", MappingProxyType(dict(self.solver)))

    @property
    def trust(self) -> Trust:
        return Trust.SOLVER if self.method == "solver" else Trust.CHECKED

    @property
    def reference(self) -> str:
        return REFERENCES[self.kind]

    @property
    def statement(self) -> str:
        l, ns = self.layer, self.neurons
        if self.kind == DEAD:
            return f"neuron {ns[0]} of hidden layer {l} is dead: its pre-activation is <= 0 on all of R^n0"
        if self.kind == ALWAYS_ACTIVE:
            return f"neuron {ns[0]} of hidden layer {l} is always active: its pre-activation is >= 0 on all of R^n0"
        if self.kind == NEVER_COACTIVE:
            return (f"neuron {ns[0]} of hidden layer {l - 1} and neuron {ns[1]} of hidden layer {l} are never "
                    "co-active: no x has both pre-activations > 0")
        if self.kind == ZERO_OUTGOING:
            return f"neuron {ns[0]} of hidden layer {l} has zero outgoing weights W^{l + 1}[:, {ns[0]}] = 0"
        if self.kind == PROPORTIONAL:
            return (f"neurons {ns[0]} and {ns[1]} of hidden layer {l} have positively proportional incoming "
                    f"rows: (W^{l}[{ns[1]}, :], b^{l}_{ns[1]}) = λ (W^{l}[{ns[0]}, :], b^{l}_{ns[0]}), λ > 0")
        return (f"F = {list(ns)} in hidden layer {l} is a layer flip set: "
                f"sum over i in F of W^{l + 1}[:, i] W^{l}[i, :] = 0")

    def witness(self, net: Network, delta: Fraction = Fraction(1)) -> Network:
        """θ′: the same function as ``net`` (given the premise), built exactly.

        * dead: add ``delta`` to every entry of the outgoing column W^{l+1}[:, i];
        * always active (``delta > 0``): b^l_i += delta, b^{l+1} -= delta · W^{l+1}[:, i];
        * never co-active (``delta > 0``): W^l[j, i] -= delta;
        * layer flip: negate rows i in F of (W^l, b^l), b^{l+1} += Σ_F W^{l+1}[:, i] b^l_i;
        * zero outgoing: negate the incoming row of i (or set W^l[i, 0] = 1 when it is zero);
        * proportional (i, j), row_j = λ row_i: W^{l+1}[:, i] += λ W^{l+1}[:, j], W^{l+1}[:, j] = 0.
        """
        delta = Fraction(delta)
        layers = [[[list(r) for r in L.weight], list(L.bias), L.n_in] for L in net.layers]
        l = self.layer
        if self.kind in (ALWAYS_ACTIVE, NEVER_COACTIVE) and delta <= 0:
            raise InvalidArgument(f"{self.kind} witnesses need delta > 0, got {delta}")
        if self.kind == DEAD:
            i = self.neurons[0]
            for row in layers[l][0]:
                row[i] += delta
        elif self.kind == ALWAYS_ACTIVE:
            i = self.neurons[0]
            layers[l - 1][1][i] += delta
            for o, row in enumerate(layers[l][0]):
                layers[l][1][o] -= delta * row[i]
        elif self.kind == NEVER_COACTIVE:
            i, j = self.neurons
            layers[l - 1][0][j][i] -= delta
        elif self.kind == ZERO_OUTGOING:
            i = self.neurons[0]
            W, b = layers[l - 1][0], layers[l - 1][1]
            if any(W[i]) or b[i]:
                W[i], b[i] = [-w for w in W[i]], -b[i]
            else:
                W[i][0] = Fraction(1)
        elif self.kind == PROPORTIONAL:
            i, j = self.neurons
            lam = proportionality(net.layers[l - 1], i, j)
            for row in layers[l][0]:
                row[i] += lam * row[j]
                row[j] = Fraction(0)
        else:
            for i in self.neurons:
                b = layers[l - 1][1][i]
                layers[l - 1][0][i] = [-w for w in layers[l - 1][0][i]]
                layers[l - 1][1][i] = -b
                for o, row in enumerate(layers[l][0]):
                    layers[l][1][o] += row[i] * b
        return Network(tuple(Layer(tuple(tuple(r) for r in W), tuple(b), n) for W, b, n in layers),
                       name=net.name, description=net.description)


@dataclass(frozen=True, slots=True)
class Activity:
    """Exact witnesses *against* mechanisms: points where neurons are (co-)active.

    ``active`` lists ``(layer, neuron, k)`` with z^layer_neuron(points[k]) > 0,
    ``inactive`` the same with < 0, and ``coactive`` lists
    ``(layer, i, j, k)`` with z^{layer-1}_i > 0 and z^layer_j > 0 at points[k].
    """

    points: tuple[tuple[Fraction, ...], ...] = ()
    active: tuple[tuple[int, int, int], ...] = ()
    inactive: tuple[tuple[int, int, int], ...] = ()
    coactive: tuple[tuple[int, int, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class MechanismReport:
    """Everything :func:`detect_mechanisms` established about one network.

    Attributes
    ----------
    mechanisms : tuple of Mechanism
        Certified mechanisms (checked ones first).
    activity : Activity
        Exact points refuting the other candidates.
    no_flip_layers : tuple of int
        Hidden layers whose vectors vec(W^{l+1}[:, i] W^l[i, :]) are linearly
        independent over Q (exact rank), so no layer flip set exists there.
    flip_search : tuple of (int, str)
        For the other layers: how the 0/1 kernel vectors were searched.
    undecided : tuple of (str, str)
        Questions left open: z3 ``unknown``/timeouts, budget, skipped searches.
    solver_queries : int
        Number of z3 queries made.
    solver : mapping or None
        The solver configuration used (``SolverConfig.describe()``).
    """

    architecture: tuple[int, ...]
    mechanisms: tuple[Mechanism, ...]
    activity: Activity
    no_flip_layers: tuple[int, ...]
    flip_search: tuple[tuple[int, str], ...]
    undecided: tuple[tuple[str, str], ...]
    solver_queries: int
    solver: Mapping | None = None

    @property
    def checked(self) -> tuple[Mechanism, ...]:
        return tuple(m for m in self.mechanisms if m.trust is Trust.CHECKED)

    def summary(self) -> str:
        """One paragraph: what was checked and found."""
        hidden = sum(self.architecture[1:-1])
        parts = [f"{len(self.mechanisms)} mechanism(s) found "
                 f"({len(self.checked)} independently checkable)" if self.mechanisms else "no mechanism found"]
        parts.append(f"{hidden} hidden neurons examined for dead/always-active "
                     f"({len(self.activity.active)} activity and {len(self.activity.inactive)} inactivity "
                     f"witnesses, {len(self.activity.coactive)} co-activity witnesses)")
        if self.no_flip_layers:
            parts.append(f"no layer flip in hidden layers {list(self.no_flip_layers)} (exact rank)")
        for l, how in self.flip_search:
            parts.append(f"layer {l} flip search: {how}")
        parts.append(f"{self.solver_queries} z3 queries")
        if self.undecided:
            parts.append(f"{len(self.undecided)} question(s) undecided")
        return "; ".join(parts)


# ---- helpers ---------------------------------------------------------------

def proportionality(layer: Layer, i: int, j: int) -> Fraction | None:
    """λ > 0 with (W[j], b_j) = λ (W[i], b_i), or None (rows of ``layer``; row i nonzero)."""
    ri, rj = layer.weight[i] + (layer.bias[i],), layer.weight[j] + (layer.bias[j],)
    lead = next((t for t, x in enumerate(ri) if x), None)
    if lead is None:
        return None
    lam = rj[lead] / ri[lead]
    if lam > 0 and all(y == lam * x for x, y in zip(ri, rj)):
        return lam
    return None


def _exact_structure(net: Network) -> list[Mechanism]:
    """Zero outgoing weights and positively proportional neurons, in every hidden layer (exact)."""
    found = []
    for l in range(1, len(net.layers)):
        L, N = net.layers[l - 1], net.layers[l]
        rays: dict = {}
        for i in range(L.n_out):
            if not any(row[i] for row in N.weight):
                found.append(Mechanism(ZERO_OUTGOING, l, (i,), "identity"))
                continue
            ray = primitive_ray(L.weight[i] + (L.bias[i],))
            if ray is None:
                continue
            if ray[0] in rays:
                found.append(Mechanism(PROPORTIONAL, l, (rays[ray[0]], i), "identity"))
            else:
                rays[ray[0]] = i
    return found


def _probe_points(n0: int, seed: int, count: int) -> list[tuple[Fraction, ...]]:
    """Exact dyadic probe points at several scales (deterministic in ``seed``)."""
    rng = random.Random(f"reluid-deep-probe-{seed}")
    pts = []
    scales = (1, 8, 64)
    for k in range(count):
        s = scales[k % len(scales)]
        pts.append(tuple(Fraction(round(rng.gauss(0.0, 1.0) * s * 256), 256) for _ in range(n0)))
    return pts


def _check_deep(net: Network) -> None:
    if not isinstance(net, Network):
        raise InvalidArgument(f"expected a Network, got {type(net).__name__}")
    if len(net.hidden_widths) < 2:
        raise InvalidArgument(
            f"deep analysis needs at least two hidden layers, got architecture {net.architecture}; "
            "use reluid.analysis.shallow for one hidden layer")


def _layer_flip_vectors(net: Network, l: int) -> list[tuple[Fraction, ...]]:
    """vec(W^{l+1}[:, i] W^l[i, :]) for each neuron i of hidden layer l."""
    Wl, Wn = net.layers[l - 1].weight, net.layers[l].weight
    return [tuple(row[i] * w for row in Wn for w in Wl[i]) for i in range(len(Wl))]


def layer_flip_sets(net: Network, l: int, *, max_support: int = 16, limit: int = 64):
    """Search hidden layer ``l`` for flip sets F (Σ_F W^{l+1}[:, i] W^l[i, :] = 0).

    Returns ``(sets, status)``: ``sets`` are the inclusion-minimal flip sets
    found (sorted by size), ``status`` is ``"full-rank"`` (none exist: the
    vectors are independent over Q), ``"exhausted"`` (every 0/1 vector in the
    kernel's support was tried) or ``"skipped: ..."``.
    """
    vecs = _layer_flip_vectors(net, l)
    n = len(vecs)
    m = len(vecs[0]) if vecs else 0
    if m == 0:
        return [], "skipped: empty layer"
    # column j of V is vecs[j]
    V = flint.fmpq_mat(m, n, [flint.fmpq(vecs[j][r].numerator, vecs[j][r].denominator)
                              for r in range(m) for j in range(n)])
    R, rank = V.rref()
    if rank == n:
        return [], "full-rank"
    pivots = []
    r = 0
    for c in range(n):
        if r < rank and R[r, c] != 0:
            pivots.append(c)
            r += 1
    free = [c for c in range(n) if c not in pivots]
    support = set(free)
    for f in free:
        for row, p in enumerate(pivots):
            if R[row, f] != 0:
                support.add(p)
    support = sorted(support)
    if len(support) > max_support:
        return [], f"skipped: kernel support of {len(support)} neurons exceeds {max_support}"
    p = _FLIP_PRIME
    mods = [np.array([(x.numerator % p) * pow(x.denominator, -1, p) % p for x in vecs[i]], dtype=np.int64)
            for i in support]
    found = []
    acc = np.zeros(m, dtype=np.int64)
    mask = 0
    for step in range(1, 1 << len(support)):  # Gray code: one neuron in or out per step
        bit = (step & -step).bit_length() - 1
        mask ^= 1 << bit
        acc = (acc + mods[bit]) % p if mask >> bit & 1 else (acc - mods[bit]) % p
        if not acc.any():
            F = tuple(support[k] for k in range(len(support)) if mask >> k & 1)
            if all(sum(vecs[i][r] for i in F) == 0 for r in range(m)):
                found.append(F)
    found.sort(key=lambda F: (len(F), F))
    minimal = []
    for F in found:
        if not any(set(G) <= set(F) for G in minimal):
            minimal.append(F)
        if len(minimal) >= limit:
            break
    return minimal, "exhausted"


_FLIP_PRIME = 2_147_483_647  # 2^31 - 1; a prefilter only, every hit is re-checked exactly


# ---- detection ---------------------------------------------------------------

def _float_probes(net, seed, count, add_point, pre, open_dead, open_always, open_pairs, active, inactive, coactive):
    """Refute open candidates with a float64 pass over many points, confirming each witness exactly."""
    if count <= 0:
        return
    rng = np.random.default_rng([seed, 7])
    n0 = net.input_dim
    scales = np.repeat([1.0, 4.0, 16.0, 64.0], -(-count // 4))[:count, None]
    X = np.rint(rng.standard_normal((count, n0)) * scales * 1024) / 1024
    zs = []
    h = X
    for L in net.layers[:-1]:
        W = np.array([[float(v) for v in r] for r in L.weight]).reshape(L.n_out, L.n_in)
        z = h @ W.T + np.array([float(v) for v in L.bias])
        zs.append(z)
        h = np.maximum(z, 0.0)

    def confirm(mask, test) -> int | None:
        for k in np.flatnonzero(mask)[:3]:
            x = tuple(Fraction(int(round(v * 1024)), 1024) for v in X[k])
            z = net.preactivations(x)
            if test(z):
                pre_len = len(pre)
                idx = add_point(x)
                assert idx == pre_len
                return idx
        return None

    for lst, table, sign in ((open_dead, active, 1.0), (open_always, inactive, -1.0)):
        keep = []
        for (l, i) in lst:
            k = confirm(sign * zs[l - 1][:, i] > 1e-9, lambda z, l=l, i=i, s=sign: s * z[l - 1][i] > 0)
            if k is None:
                keep.append((l, i))
            else:
                table[(l, i)] = k
        lst[:] = keep
    keep = []
    for (l, i, j) in open_pairs:
        k = confirm((zs[l - 2][:, i] > 1e-9) & (zs[l - 1][:, j] > 1e-9),
                    lambda z, l=l, i=i, j=j: z[l - 2][i] > 0 and z[l - 1][j] > 0)
        if k is None:
            keep.append((l, i, j))
        else:
            coactive[(l, i, j)] = k
    open_pairs[:] = keep


def detect_mechanisms(net: Network, *, timeout: float = 60.0, query_timeout: float = 10.0, seed: int = 0,
                      solver: str = "auto", probes: int = 48, float_probes: int = 20000) -> MechanismReport:
    """Find certified sources of hidden symmetries in a network with >= 2 hidden layers.

    Parameters
    ----------
    net : Network
        At least two hidden layers.
    timeout : float, keyword-only
        Total seconds for z3 queries.
    query_timeout : float, keyword-only
        Seconds per z3 query (capped by what is left of ``timeout``).
    seed : int, keyword-only
        Seeds the probe points and z3.
    solver : {"auto", "always", "never"}, keyword-only
        ``"auto"`` asks z3 only when no independently checkable mechanism was
        found; ``"always"`` asks every open question; ``"never"`` asks none.
    probes : int, keyword-only
        Number of exact random probe points used to refute candidates before
        asking z3.
    float_probes : int, keyword-only
        Number of further points evaluated in float64 to suggest refutations;
        each suggested point is re-evaluated exactly before it counts.

    Returns
    -------
    MechanismReport

    Notes
    -----
    Order of work (Grigsby, Lindsey, Rolnick 2023, Section 5):

    1. layer 1: the pre-activation ``w·x + b`` is affine, so it is dead iff
       ``w = 0, b <= 0`` and always active iff ``w = 0, b >= 0`` (exact, no
       solver; otherwise explicit points of both signs are recorded);
    2. layers >= 2: the input lies in the closed positive orthant, so a row
       ``W^l[i, :] <= 0, b^l_i <= 0`` is dead and ``>= 0, >= 0`` always active
       (exact, mechanism (i)); other neurons are refuted by exact probe points
       or asked to z3 (``unsat`` rests on the solver);
    3. layer flips: the exact rank of the vectors vec(W^{l+1}[:, i] W^l[i, :]),
       then a search for 0/1 kernel vectors (exact);
    4. never co-active pairs (mechanism (ii)): probes, then z3.

    Examples
    --------
    >>> net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
    >>> [(m.kind, m.layer, m.neurons, m.method) for m in detect_mechanisms(net, solver="never").mechanisms]
    [('dead-neuron', 2, (0,), 'orthant')]
    """
    _check_deep(net)
    if solver not in ("auto", "always", "never"):
        raise InvalidArgument(f"solver must be 'auto', 'always' or 'never', got {solver!r}")
    hidden = net.hidden_widths
    n0 = net.input_dim
    points: list[tuple[Fraction, ...]] = []
    pre: list[tuple] = []

    def add_point(x) -> int:
        points.append(tuple(x))
        pre.append(net.preactivations(x))
        return len(points) - 1

    for x in _probe_points(n0, seed, probes):
        add_point(x)

    def first(pred) -> int | None:
        for k, z in enumerate(pre):
            if pred(z):
                return k
        return None

    mechanisms: list[Mechanism] = []
    active: dict[tuple[int, int], int] = {}
    inactive: dict[tuple[int, int], int] = {}
    coactive: dict[tuple[int, int, int], int] = {}
    dead: set[tuple[int, int]] = set()
    always: set[tuple[int, int]] = set()
    open_dead: list[tuple[int, int]] = []
    open_always: list[tuple[int, int]] = []

    # 1-2. dead / always active, exact where possible
    L1 = net.layers[0]
    for i, (w, b) in enumerate(zip(L1.weight, L1.bias)):
        if not any(w):
            if b <= 0:
                dead.add((1, i))
                mechanisms.append(Mechanism(DEAD, 1, (i,), "affine"))
            if b >= 0:
                always.add((1, i))
                mechanisms.append(Mechanism(ALWAYS_ACTIVE, 1, (i,), "affine"))
            continue
        ww = sum(v * v for v in w)
        for sign, table in ((1, active), (-1, inactive)):
            k = first(lambda z, i=i, s=sign: z[0][i] * s > 0)
            if k is None:  # x = ±(|b| + 1) w / |w|² has w·x + b = ±(|b| + 1) + b
                t = sign * (abs(b) + 1) / ww
                k = add_point(tuple(t * v for v in w))
            table[(1, i)] = k
    for l in range(2, len(hidden) + 1):
        L = net.layers[l - 1]
        for i, (w, b) in enumerate(zip(L.weight, L.bias)):
            k = first(lambda z, l=l, i=i: z[l - 1][i] > 0)
            if k is not None:
                active[(l, i)] = k
            elif all(v <= 0 for v in w) and b <= 0:
                dead.add((l, i))
                mechanisms.append(Mechanism(DEAD, l, (i,), "orthant"))
            else:
                open_dead.append((l, i))
            k = first(lambda z, l=l, i=i: z[l - 1][i] < 0)
            if k is not None:
                inactive[(l, i)] = k
            elif all(v >= 0 for v in w) and b >= 0:
                always.add((l, i))
                mechanisms.append(Mechanism(ALWAYS_ACTIVE, l, (i,), "orthant"))
            else:
                open_always.append((l, i))

    # exact structure: zero outgoing weights, positively proportional neurons (Lemmas 10, 11(1))
    mechanisms.extend(_exact_structure(net))

    # 3. layer flips (exact)
    no_flip, flip_status = [], []
    for l in range(1, len(hidden) + 1):
        sets, status = layer_flip_sets(net, l)
        if status == "full-rank":
            no_flip.append(l)
        else:
            flip_status.append((l, f"{status}; {len(sets)} minimal flip set(s)"))
        for F in sets:
            mechanisms.append(Mechanism(LAYER_FLIP, l, F, "identity"))

    # co-activity refuted by probes
    open_pairs: list[tuple[int, int, int]] = []
    for l in range(2, len(hidden) + 1):
        for i in range(hidden[l - 2]):
            for j in range(hidden[l - 1]):
                k = first(lambda z, l=l, i=i, j=j: z[l - 2][i] > 0 and z[l - 1][j] > 0)
                if k is not None:
                    coactive[(l, i, j)] = k
                else:
                    open_pairs.append((l, i, j))

    # wider float probes for what is still open; every witness they suggest is re-checked exactly
    if open_dead or open_always or open_pairs:
        _float_probes(net, seed, float_probes, add_point, pre, open_dead, open_always, open_pairs,
                      active, inactive, coactive)

    # 4. the solver, for what is still open
    undecided: list[tuple[str, str]] = []
    queries = 0
    desc = None
    use_solver = solver == "always" or (solver == "auto" and not mechanisms)
    if use_solver and (open_dead or open_always or open_pairs):
        from reluid.smt.deep import Condition, find_input
        from reluid.smt.solver import SolverConfig

        start = time.monotonic()

        def ask(conds, question):
            nonlocal queries, desc
            left = timeout - (time.monotonic() - start)
            if left <= 0.05:
                undecided.append((question, "solver budget exhausted"))
                return None
            cfg = SolverConfig(seed=seed, timeout_ms=max(1, int(1000 * min(query_timeout, left))), logic="QF_LRA")
            desc = cfg.describe()
            queries += 1
            res = find_input(net, conds, cfg)
            if res.status == "unknown":
                undecided.append((question, f"z3 unknown: {res.reason}"))
            return res

        for (l, i) in open_dead:
            res = ask([Condition(l, i, ">0")], f"is neuron {i} of layer {l} ever active?")
            if res is None or res.status == "unknown":
                continue
            if res.sat:
                active[(l, i)] = add_point(res.point)
            else:
                dead.add((l, i))
                mechanisms.append(Mechanism(DEAD, l, (i,), "solver", res.solver))
        for (l, i) in open_always:
            res = ask([Condition(l, i, "<0")], f"is neuron {i} of layer {l} ever negative?")
            if res is None or res.status == "unknown":
                continue
            if res.sat:
                inactive[(l, i)] = add_point(res.point)
            else:
                always.add((l, i))
                mechanisms.append(Mechanism(ALWAYS_ACTIVE, l, (i,), "solver", res.solver))
        for (l, i, j) in open_pairs:
            if (l - 1, i) in dead or (l, j) in dead:
                continue  # trivially never co-active; the dead neuron is the mechanism
            k = first(lambda z, l=l, i=i, j=j: z[l - 2][i] > 0 and z[l - 1][j] > 0)
            if k is not None:  # a point found by an earlier query
                coactive[(l, i, j)] = k
                continue
            res = ask([Condition(l - 1, i, ">0"), Condition(l, j, ">0")],
                      f"are neuron {i} of layer {l - 1} and neuron {j} of layer {l} ever co-active?")
            if res is None or res.status == "unknown":
                continue
            if res.sat:
                coactive[(l, i, j)] = add_point(res.point)
            else:
                mechanisms.append(Mechanism(NEVER_COACTIVE, l, (i, j), "solver", res.solver))
    elif open_dead or open_always or open_pairs:
        why = "solver not used (a checkable mechanism was found)" if solver == "auto" else "solver disabled"
        n_open = len(open_dead) + len(open_always) + len(open_pairs)
        undecided.append((f"{n_open} dead/always-active/co-activity question(s) not refuted by probes", why))

    order = {"affine": 0, "identity": 1, "orthant": 2, "solver": 3}
    mechanisms.sort(key=lambda m: (order[m.method], KINDS.index(m.kind), m.layer, m.neurons))
    activity = Activity(
        points=tuple(points),
        active=tuple(sorted((l, i, k) for (l, i), k in active.items())),
        inactive=tuple(sorted((l, i, k) for (l, i), k in inactive.items())),
        coactive=tuple(sorted((l, i, j, k) for (l, i, j), k in coactive.items())),
    )
    # keep only the points a witness refers to (the certificate stays small)
    used = sorted({t[-1] for t in activity.active + activity.inactive + activity.coactive})
    remap = {k: n for n, k in enumerate(used)}
    activity = Activity(
        points=tuple(points[k] for k in used),
        active=tuple((l, i, remap[k]) for l, i, k in activity.active),
        inactive=tuple((l, i, remap[k]) for l, i, k in activity.inactive),
        coactive=tuple((l, i, j, remap[k]) for l, i, j, k in activity.coactive),
    )
    return MechanismReport(
        architecture=net.architecture, mechanisms=tuple(mechanisms), activity=activity,
        no_flip_layers=tuple(no_flip), flip_search=tuple(flip_status), undecided=tuple(undecided),
        solver_queries=queries, solver=MappingProxyType(desc) if desc else None)
