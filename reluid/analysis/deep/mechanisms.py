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

:func:`detect_mechanisms` runs in phases over a :class:`_Detection` builder
(exact premises per layer, exact structure, layer flips, probes, the solver)
and freezes it into a :class:`MechanismReport`.  Orbits of deep networks are in
:mod:`reluid.analysis.deep.orbit`.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Mapping

import flint
import numpy as np

from reluid.errors import InvalidArgument
from reluid.model.network import Layer, Network
from reluid.model.rational import primitive_ray
from reluid.verdicts import Outcome, Trust

__all__ = ["DEAD", "ALWAYS_ACTIVE", "NEVER_COACTIVE", "LAYER_FLIP", "ZERO_OUTGOING", "PROPORTIONAL", "KINDS",
           "METHODS", "REFERENCES", "Mechanism", "Activity", "MechanismReport", "detect_mechanisms",
           "layer_flip_sets", "proportionality", "check_deep"]


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


def check_deep(net: Network) -> None:
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
    if _full_rank_mod_p(net, l):
        return [], "full-rank"
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


def _full_rank_mod_p(net: Network, l: int, rows: int | None = None) -> bool:
    """Whether the layer-flip vectors of hidden layer l are independent, decided quickly when they are.

    The vectors vec(W^{l+1}[:, i] W^l[i, :]) restricted to a random subset of about 4 n coordinates,
    modulo 2^31 - 1: rank n there implies rank n over Q (a subset of rows, and rank_p <= rank_Q), so
    "full-rank" is then a proof (the checker recomputes it on all coordinates).  Otherwise the exact
    computation decides.
    """
    Wl, Wn = net.layers[l - 1].weight, net.layers[l].weight
    n, n_in, n_out = len(Wl), net.layers[l - 1].n_in, len(Wn)
    m = n_out * n_in
    if n == 0 or m < n:
        return False
    p = _FLIP_PRIME
    rng = random.Random(f"reluid-flip-rows-{l}")
    pick = sorted(rng.sample(range(m), min(m, rows or 4 * n + 16)))
    inv: dict[int, int] = {}

    def res(q: Fraction) -> int:
        d = q.denominator
        if d not in inv:
            if d % p == 0:
                return -1
            inv[d] = pow(d, -1, p)
        return q.numerator % p * inv[d] % p

    entries = []
    for r in pick:
        o, c = divmod(r, n_in)
        row_o = Wn[o]
        for i in range(n):
            a, b = res(row_o[i]), res(Wl[i][c])
            if a < 0 or b < 0:
                return False
            entries.append(a * b % p)
    return flint.nmod_mat(len(pick), n, entries, p).rank() == n


# ---- detection ---------------------------------------------------------------

_METHOD_ORDER = {"affine": 0, "identity": 1, "orthant": 2, "solver": 3}


class _Detection:
    """Mutable state of one run of :func:`detect_mechanisms`; :meth:`freeze` makes the report.

    ``points``/``pre`` are the exact probe points and their pre-activations;
    ``active``, ``inactive`` and ``coactive`` map a neuron (or pair) to the
    index of a point refuting its candidate mechanism; ``open_*`` are the
    candidates no point has refuted yet.
    """

    def __init__(self, net: Network, seed: int, probes: int):
        self.net = net
        self.points: list[tuple[Fraction, ...]] = []
        self.pre: list[tuple] = []
        self.mechanisms: list[Mechanism] = []
        self.active: dict[tuple[int, int], int] = {}
        self.inactive: dict[tuple[int, int], int] = {}
        self.coactive: dict[tuple[int, int, int], int] = {}
        self.dead: set[tuple[int, int]] = set()
        self.always: set[tuple[int, int]] = set()
        self.open_dead: list[tuple[int, int]] = []
        self.open_always: list[tuple[int, int]] = []
        self.open_pairs: list[tuple[int, int, int]] = []
        self.no_flip: list[int] = []
        self.flip_status: list[tuple[int, str]] = []
        self.undecided: list[tuple[str, str]] = []
        self.queries = 0
        self.solver_desc = None
        for x in _probe_points(net.input_dim, seed, probes):
            self.add_point(x)

    def add_point(self, x) -> int:
        self.points.append(tuple(x))
        self.pre.append(self.net.preactivations(x))
        return len(self.points) - 1

    def first(self, pred) -> int | None:
        for k, z in enumerate(self.pre):
            if pred(z):
                return k
        return None

    @property
    def has_open(self) -> bool:
        return bool(self.open_dead or self.open_always or self.open_pairs)

    def freeze(self) -> MechanismReport:
        mechanisms = sorted(self.mechanisms, key=lambda m: (_METHOD_ORDER[m.method], KINDS.index(m.kind), m.layer,
                                                            m.neurons))
        active = sorted((l, i, k) for (l, i), k in self.active.items())
        inactive = sorted((l, i, k) for (l, i), k in self.inactive.items())
        coactive = sorted((l, i, j, k) for (l, i, j), k in self.coactive.items())
        # keep only the points a witness refers to (the certificate stays small)
        used = sorted({t[-1] for t in active + inactive + coactive})
        remap = {k: n for n, k in enumerate(used)}
        activity = Activity(
            points=tuple(self.points[k] for k in used),
            active=tuple((l, i, remap[k]) for l, i, k in active),
            inactive=tuple((l, i, remap[k]) for l, i, k in inactive),
            coactive=tuple((l, i, j, remap[k]) for l, i, j, k in coactive),
        )
        return MechanismReport(
            architecture=self.net.architecture, mechanisms=tuple(mechanisms), activity=activity,
            no_flip_layers=tuple(self.no_flip), flip_search=tuple(self.flip_status),
            undecided=tuple(self.undecided), solver_queries=self.queries,
            solver=MappingProxyType(self.solver_desc) if self.solver_desc else None)


def _first_layer(d: _Detection) -> None:
    """Layer 1 is affine: dead iff w = 0, b <= 0; always active iff w = 0, b >= 0; else points of both signs."""
    L1 = d.net.layers[0]
    for i, (w, b) in enumerate(zip(L1.weight, L1.bias)):
        if not any(w):
            if b <= 0:
                d.dead.add((1, i))
                d.mechanisms.append(Mechanism(DEAD, 1, (i,), "affine"))
            if b >= 0:
                d.always.add((1, i))
                d.mechanisms.append(Mechanism(ALWAYS_ACTIVE, 1, (i,), "affine"))
            continue
        ww = sum(v * v for v in w)
        for sign, table in ((1, d.active), (-1, d.inactive)):
            k = d.first(lambda z, i=i, s=sign: z[0][i] * s > 0)
            if k is None:  # x = ±(|b| + 1) w / |w|² has w·x + b = ±(|b| + 1) + b
                t = sign * (abs(b) + 1) / ww
                k = d.add_point(tuple(t * v for v in w))
            table[(1, i)] = k


def _deeper_layers(d: _Detection) -> None:
    """Layers >= 2 see the closed positive orthant: a one-signed row is dead / always active; else probes."""
    for l in range(2, len(d.net.hidden_widths) + 1):
        L = d.net.layers[l - 1]
        for i, (w, b) in enumerate(zip(L.weight, L.bias)):
            k = d.first(lambda z, l=l, i=i: z[l - 1][i] > 0)
            if k is not None:
                d.active[(l, i)] = k
            elif all(v <= 0 for v in w) and b <= 0:
                d.dead.add((l, i))
                d.mechanisms.append(Mechanism(DEAD, l, (i,), "orthant"))
            else:
                d.open_dead.append((l, i))
            k = d.first(lambda z, l=l, i=i: z[l - 1][i] < 0)
            if k is not None:
                d.inactive[(l, i)] = k
            elif all(v >= 0 for v in w) and b >= 0:
                d.always.add((l, i))
                d.mechanisms.append(Mechanism(ALWAYS_ACTIVE, l, (i,), "orthant"))
            else:
                d.open_always.append((l, i))


def _layer_flips(d: _Detection) -> None:
    """The exact rank of the layer-flip vectors, then 0/1 kernel vectors (exact)."""
    for l in range(1, len(d.net.hidden_widths) + 1):
        sets, status = layer_flip_sets(d.net, l)
        if status == "full-rank":
            d.no_flip.append(l)
        else:
            d.flip_status.append((l, f"{status}; {len(sets)} minimal flip set(s)"))
        for F in sets:
            d.mechanisms.append(Mechanism(LAYER_FLIP, l, F, "identity"))


def _coactivity(d: _Detection) -> None:
    """Adjacent pairs refuted as never co-active by the exact probe points."""
    hidden = d.net.hidden_widths
    for l in range(2, len(hidden) + 1):
        for i in range(hidden[l - 2]):
            for j in range(hidden[l - 1]):
                k = d.first(lambda z, l=l, i=i, j=j: z[l - 2][i] > 0 and z[l - 1][j] > 0)
                if k is not None:
                    d.coactive[(l, i, j)] = k
                else:
                    d.open_pairs.append((l, i, j))


def _float_probes(d: _Detection, seed: int, count: int) -> None:
    """Refute open candidates with a float64 pass over many points, confirming each witness exactly."""
    if count <= 0:
        return
    net = d.net
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
            if test(net.preactivations(x)):
                return d.add_point(x)
        return None

    for lst, table, sign in ((d.open_dead, d.active, 1.0), (d.open_always, d.inactive, -1.0)):
        keep = []
        for (l, i) in lst:
            k = confirm(sign * zs[l - 1][:, i] > 1e-9, lambda z, l=l, i=i, s=sign: s * z[l - 1][i] > 0)
            if k is None:
                keep.append((l, i))
            else:
                table[(l, i)] = k
        lst[:] = keep
    keep = []
    for (l, i, j) in d.open_pairs:
        k = confirm((zs[l - 2][:, i] > 1e-9) & (zs[l - 1][:, j] > 1e-9),
                    lambda z, l=l, i=i, j=j: z[l - 2][i] > 0 and z[l - 1][j] > 0)
        if k is None:
            keep.append((l, i, j))
        else:
            d.coactive[(l, i, j)] = k
    d.open_pairs[:] = keep


def _solver_phase(d: _Detection, *, timeout: float, query_timeout: float, seed: int) -> None:
    """Ask z3 what is still open; ``unsat`` becomes a mechanism resting on the solver, sat a new point."""
    from reluid.smt.deep import Condition, find_input
    from reluid.smt.solver import SolverConfig

    start = time.monotonic()

    def ask(conds, question):
        left = timeout - (time.monotonic() - start)
        if left <= 0.05:
            d.undecided.append((question, "solver budget exhausted"))
            return None
        cfg = SolverConfig(seed=seed, timeout_ms=max(1, int(1000 * min(query_timeout, left))), logic="QF_LRA")
        d.solver_desc = cfg.describe()
        d.queries += 1
        res = find_input(d.net, conds, cfg)
        if res.outcome is Outcome.UNKNOWN:
            d.undecided.append((question, f"z3 unknown: {res.reason}"))
            return None
        return res

    for open_, rel, word, refuted, proved, kind in ((d.open_dead, ">0", "active", d.active, d.dead, DEAD),
                                                    (d.open_always, "<0", "negative", d.inactive, d.always,
                                                     ALWAYS_ACTIVE)):
        for (l, i) in open_:
            res = ask([Condition(l, i, rel)], f"is neuron {i} of layer {l} ever {word}?")
            if res is None:
                continue
            if res.outcome is Outcome.FOUND:
                refuted[(l, i)] = d.add_point(res.point)
            else:
                proved.add((l, i))
                d.mechanisms.append(Mechanism(kind, l, (i,), "solver", res.solver))
    for (l, i, j) in d.open_pairs:
        if (l - 1, i) in d.dead or (l, j) in d.dead:
            continue  # trivially never co-active; the dead neuron is the mechanism
        k = d.first(lambda z, l=l, i=i, j=j: z[l - 2][i] > 0 and z[l - 1][j] > 0)
        if k is not None:  # a point found by an earlier query
            d.coactive[(l, i, j)] = k
            continue
        res = ask([Condition(l - 1, i, ">0"), Condition(l, j, ">0")],
                  f"are neuron {i} of layer {l - 1} and neuron {j} of layer {l} ever co-active?")
        if res is None:
            continue
        if res.outcome is Outcome.FOUND:
            d.coactive[(l, i, j)] = d.add_point(res.point)
        else:
            d.mechanisms.append(Mechanism(NEVER_COACTIVE, l, (i, j), "solver", res.solver))


def detect_mechanisms(net: Network, *, timeout: float = 60.0, query_timeout: float = 10.0, seed: int = 0,
                      solver: str = "auto", probes: int = 48, float_probes: int = 20000,
                      deadline: float | None = None) -> MechanismReport:
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
    deadline : float, optional, keyword-only
        A ``time.monotonic()`` time after which no further phase starts; the
        phases not run are listed as undecided ("time budget").

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
    check_deep(net)
    if solver not in ("auto", "always", "never"):
        raise InvalidArgument(f"solver must be 'auto', 'always' or 'never', got {solver!r}")
    d = _Detection(net, seed, probes)
    late = (lambda: False) if deadline is None else (lambda: time.monotonic() > deadline)
    steps = [("dead/always-active neurons of layer 1", lambda: _first_layer(d)),
             ("dead/always-active neurons of deeper layers", lambda: _deeper_layers(d)),
             ("zero outgoing weights and proportional neurons",
              lambda: d.mechanisms.extend(_exact_structure(net))),   # Lemmas 10, 11(1) per layer
             ("layer flips", lambda: _layer_flips(d)),
             ("never co-active pairs", lambda: _coactivity(d)),
             ("float probes", lambda: _float_probes(d, seed, float_probes) if d.has_open else None)]
    for n, (what, step) in enumerate(steps):
        if late():
            left = ", ".join(w for w, _ in steps[n:])
            d.undecided.append((f"not examined: {left}", "time budget exhausted"))
            return d.freeze()
        step()
    if solver == "always" or (solver == "auto" and not d.mechanisms):
        if d.has_open:
            if deadline is not None:
                timeout = max(0.0, min(timeout, deadline - time.monotonic()))
            _solver_phase(d, timeout=timeout, query_timeout=query_timeout, seed=seed)
    elif d.has_open:
        why = "solver not used (a checkable mechanism was found)" if solver == "auto" else "solver disabled"
        n_open = len(d.open_dead) + len(d.open_always) + len(d.open_pairs)
        d.undecided.append((f"{n_open} dead/always-active/co-activity question(s) not refuted by probes", why))
    return d.freeze()
