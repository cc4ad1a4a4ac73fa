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
layers see the positive orthant), by an exact matrix identity, or by a
Farkas-tree certificate from :func:`reluid.analysis.deep.farkas.prove_no_input`
(docs/mathematics.md §6.1), which the checker re-verifies; a prover that runs
out of budget leaves the question undecided, never answered.

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
from typing import Mapping

import flint
import numpy as np

from reluid.analysis.progress import report as _report
from reluid.budget import MIN_SECONDS
from reluid.errors import InvalidArgument, InvalidNetwork
from reluid.model.modp import matmul_mod, pivot_columns
from reluid.model.network import Layer, Network
from reluid.model.rational import primitive_ray
from reluid.verdicts import Mechanism as _names
from reluid.verdicts import Outcome, PremiseMethod, Reason, ReasonCode

__all__ = ["DEAD", "ALWAYS_ACTIVE", "NEVER_COACTIVE", "LAYER_FLIP", "ZERO_OUTGOING", "PROPORTIONAL", "KINDS",
           "METHODS", "REFERENCES", "Mechanism", "Activity", "MechanismReport", "detect_mechanisms",
           "layer_flip_sets", "proportionality", "check_deep"]


# ===========================================================================
# Mechanisms (i), (ii), (iv) and the always-active shift
# ===========================================================================

DEAD = _names.DEAD_NEURON
ALWAYS_ACTIVE = _names.ALWAYS_ACTIVE
NEVER_COACTIVE = _names.NEVER_COACTIVE
LAYER_FLIP = _names.LAYER_FLIP
ZERO_OUTGOING = _names.ZERO_OUTGOING
PROPORTIONAL = _names.PROPORTIONAL_NEURONS
COLLAPSED_KINK = _names.COLLAPSED_KINK
AFFINE_FLIP = _names.AFFINE_LAYER_FLIP
KINDS = (DEAD, ALWAYS_ACTIVE, NEVER_COACTIVE, LAYER_FLIP, ZERO_OUTGOING, PROPORTIONAL, COLLAPSED_KINK, AFFINE_FLIP)

#: How a mechanism's premise was established.
METHODS = tuple(PremiseMethod)

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
    COLLAPSED_KINK: "Grigsby, Lindsey, Rolnick 2023, Section 5, mechanism (iii) (a kink collapsed by the next "
                    "layer); docs/mathematics.md §6.2, Theorem (collapsed kink)",
    AFFINE_FLIP: "Grigsby, Lindsey, Rolnick 2023, Section 5, mechanism (iv) (the image of a hidden layer in an "
                 "affine subspace); docs/mathematics.md §6.2, Theorem (affine layer flip)",
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
    method : PremiseMethod
        ``AFFINE`` (layer 1: the pre-activation is affine, decided by
        inspection), ``ORTHANT`` (layer >= 2: the incoming row has one sign,
        and the layer's input lies in the closed positive orthant),
        ``IDENTITY`` (an exact matrix identity) or ``FARKAS`` (a
        Farkas-tree certificate, in ``evidence``).
    evidence : mapping or None
        The ``reluid.farkas-tree/1`` certificate when the method is ``FARKAS``.
    """

    kind: _names
    layer: int
    neurons: tuple[int, ...]
    method: PremiseMethod
    evidence: Mapping | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InvalidArgument(f"unknown mechanism {self.kind!r}")
        if self.method not in METHODS:
            raise InvalidArgument(f"unknown method {self.method!r}")
        if (self.method == PremiseMethod.FARKAS) != (self.evidence is not None):
            raise InvalidArgument("a Farkas-tree premise needs its certificate, and only it")
        if self.kind in (COLLAPSED_KINK, AFFINE_FLIP) and self.method != PremiseMethod.FARKAS:
            raise InvalidArgument(f"a {self.kind} premise is proved by Farkas trees")
        object.__setattr__(self, "neurons", tuple(self.neurons))

    @property
    def reference(self) -> str:
        return REFERENCES[self.kind]

    @property
    def statement(self) -> str:
        """The premise in words, neurons counted from 1."""
        l, ns = self.layer, tuple(i + 1 for i in self.neurons)
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
        if self.kind == COLLAPSED_KINK:
            return (f"the kink of neuron {ns[0]} of hidden layer {l} is collapsed by hidden layer {l + 1}: wherever "
                    f"z^{l}_{ns[0]} < 0, every successor v has z^{l + 1}_v <= 0 and z^{l + 1}_v + "
                    f"W^{l + 1}[v, {ns[0]}] z^{l}_{ns[0]} <= 0")
        if self.kind == AFFINE_FLIP:
            return (f"F = {{{', '.join(map(str, ns))}}} in hidden layer {l}: Σ_(i∈F) W^{l + 1}[:, i] z^{l}_i is "
                    f"constant on R^n0 (the image of hidden layer {l - 1} lies in an affine subspace it vanishes on)")
        return (f"F = {{{', '.join(map(str, ns))}}} in hidden layer {l} is a layer flip set: "
                f"sum over i in F of W^{l + 1}[:, i] W^{l}[i, :] = 0")

    def witness(self, net: Network, delta: Fraction = Fraction(1)) -> Network:
        """θ′: the same function as ``net`` (given the premise), built exactly.

        * dead: add ``delta`` to every entry of the outgoing column W^{l+1}[:, i];
        * always active (``delta > 0``): b^l_i += delta, b^{l+1} -= delta · W^{l+1}[:, i];
        * never co-active (``delta > 0``): W^l[j, i] -= delta;
        * layer flip: negate rows i in F of (W^l, b^l), b^{l+1} += Σ_F W^{l+1}[:, i] b^l_i;
        * zero outgoing: negate the incoming row of i (or set W^l[i, 0] = 1 when it is zero; when θ has a zero
          incoming row elsewhere, set the row of i to zero: the count of zero rows then tells θ′ from θ's orbit);
        * proportional (i, j), row_j = λ row_i: W^{l+1}[:, i] += λ W^{l+1}[:, j], W^{l+1}[:, j] = 0;
        * collapsed kink (``delta > 0``): as for always active (any δ > 0 keeps the function);
        * affine layer flip: as for the layer flip, b^{l+1} += the constant c of the premise.
        """
        delta = Fraction(delta)
        layers = [[[list(r) for r in L.weight], list(L.bias), L.n_in] for L in net.layers]
        l = self.layer
        if self.kind in (ALWAYS_ACTIVE, NEVER_COACTIVE, COLLAPSED_KINK) and delta <= 0:
            raise InvalidArgument(f"{self.kind} witnesses need delta > 0, got {delta}")
        if self.kind == DEAD:
            i = self.neurons[0]
            for row in layers[l][0]:
                row[i] += delta
        elif self.kind in (ALWAYS_ACTIVE, COLLAPSED_KINK):
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
            if not (any(W[i]) or b[i]):
                W[i][0] = Fraction(1)
            elif any(not any(w) and not c for L in net.layers[:-1] for w, c in zip(L.weight, L.bias)):
                # the checker's orbit normal form is undefined on zero rows; a zero row more is an orbit invariant
                W[i], b[i] = [Fraction(0)] * len(W[i]), Fraction(0)
            else:
                W[i], b[i] = [-w for w in W[i]], -b[i]
        elif self.kind == PROPORTIONAL:
            i, j = self.neurons
            lam = proportionality(net.layers[l - 1], i, j)
            for row in layers[l][0]:
                row[i] += lam * row[j]
                row[j] = Fraction(0)
        elif self.kind == AFFINE_FLIP:
            constant = [Fraction(c) for c in self.evidence["constant"]]
            for i in self.neurons:
                layers[l - 1][0][i] = [-w for w in layers[l - 1][0][i]]
                layers[l - 1][1][i] = -layers[l - 1][1][i]
            layers[l][1] = [b + c for b, c in zip(layers[l][1], constant)]
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
    flip_search : tuple of (int, Reason)
        For the other layers: how the 0/1 kernel vectors were searched (``layer-flip-search``).
    undecided : tuple of (Reason, str or Reason)
        Questions left open, and why: prover budget or timeout (the prover's
        words), skipped searches, the time budget.
    out_of_time : tuple of Reason
        The questions of ``undecided`` that the time budget left unasked (a
        longer budget may decide them).
    prover_queries : int
        Number of "no input with …" questions given to the Farkas-tree prover.
    """

    architecture: tuple[int, ...]
    mechanisms: tuple[Mechanism, ...]
    activity: Activity
    no_flip_layers: tuple[int, ...]
    flip_search: tuple[tuple[int, str], ...]
    undecided: tuple[tuple[Reason, str | Reason], ...]
    prover_queries: int
    out_of_time: tuple[Reason, ...] = ()

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


def silent_neurons(net: Network, layer: int, rows, biases) -> Network:
    """``net`` with neurons appended to hidden layer ``layer`` whose outgoing weights are 0.

    The rows are over that layer's input; every neuron of ``net`` keeps its
    pre-activation, so a sign condition on an appended neuron is a condition on
    the affine function of the previous layer's output it computes.
    """
    layers = [[[list(r) for r in L.weight], list(L.bias), L.n_in] for L in net.layers]
    W, b, _ = layers[layer - 1]
    W.extend([list(r) for r in rows])
    b.extend(biases)
    for row in layers[layer][0]:
        row.extend([Fraction(0)] * len(rows))
    layers[layer][2] += len(rows)
    return Network(tuple(Layer(tuple(tuple(map(Fraction, r)) for r in W), tuple(map(Fraction, bb)), n_in)
                         for W, bb, n_in in layers))


def kink_network(net: Network, p: int, u: int, v: int) -> tuple[Network, int]:
    """``net`` with σ(−z_u) added to hidden layer p and z_v + W^{p+1}[v, u] z_u added to layer p+1 (both silent).

    z_u = σ(z_u) − σ(−z_u), so the second is v's pre-activation with u's ReLU
    replaced by the identity.  Returns the network and the index of that neuron
    in layer p+1.
    """
    Lp = net.layers[p - 1]
    aug = silent_neurons(net, p, [[-w for w in Lp.weight[u]]], [-Lp.bias[u]])
    Ln = net.layers[p]
    w_vu = Ln.weight[v][u]
    row = list(Ln.weight[v]) + [-w_vu]
    row[u] += w_vu
    return silent_neurons(aug, p + 1, [row], [Ln.bias[v]]), Ln.n_out


def _exact_structure(net: Network) -> list[Mechanism]:
    """Zero outgoing weights and positively proportional neurons, in every hidden layer (exact)."""
    found = []
    for l in range(1, len(net.layers)):
        L, N = net.layers[l - 1], net.layers[l]
        rays: dict = {}
        for i in range(L.n_out):
            if not any(row[i] for row in N.weight):
                found.append(Mechanism(ZERO_OUTGOING, l, (i,), PremiseMethod.IDENTITY))
                continue
            ray = primitive_ray(L.weight[i] + (L.bias[i],))
            if ray is None:
                continue
            if ray[0] in rays:
                found.append(Mechanism(PROPORTIONAL, l, (rays[ray[0]], i), PremiseMethod.IDENTITY))
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
    empty = next((l for l, n in enumerate(net.hidden_widths, 1) if n == 0), None)
    if empty is not None:
        raise InvalidNetwork(f"hidden layer {empty} of {net.architecture} has no neurons, so the network is constant "
                             "past it; the deep analyses need every hidden layer nonempty")


def _layer_flip_vectors(net: Network, l: int) -> list[tuple[Fraction, ...]]:
    """vec(W^{l+1}[:, i] W^l[i, :]) for each neuron i of hidden layer l."""
    Wl, Wn = net.layers[l - 1].weight, net.layers[l].weight
    return [tuple(row[i] * w for row in Wn for w in Wl[i]) for i in range(len(Wl))]


def layer_flip_sets(net: Network, l: int, *, max_support: int = 16, limit: int = 64, late=None):
    """Search hidden layer ``l`` for flip sets F (Σ_F W^{l+1}[:, i] W^l[i, :] = 0).

    Returns ``(sets, status)``: ``sets`` are the inclusion-minimal flip sets
    found (sorted by size), ``status`` a :class:`~reluid.verdicts.Reason`:
    ``layer-flip-full-rank`` (none exist: the vectors are independent over Q),
    ``layer-flip-exhausted`` (every 0/1 vector in the kernel's support was
    tried), ``layer-flip-timeout`` (``late()`` said the time ran out first: the sets found so far), or
    ``layer-flip-empty`` / ``layer-flip-skipped`` (not searched).
    """
    if _full_rank_mod_p(net, l):
        return [], Reason(ReasonCode.LAYER_FLIP_FULL_RANK)
    return zero_subsets(_layer_flip_vectors(net, l), max_support=max_support, limit=limit, late=late)


def zero_subsets(vecs, *, max_support: int = 16, limit: int = 64, late=None):
    """The inclusion-minimal nonempty F with Σ_{i∈F} vecs[i] = 0 (exact), as :func:`layer_flip_sets` reports them;
    ``late()`` is asked every 1024 subsets of the walk (up to 2^16 of them, each hit checked exactly)."""
    n = len(vecs)
    m = len(vecs[0]) if vecs else 0
    if m == 0:
        return [], Reason(ReasonCode.LAYER_FLIP_EMPTY)
    # column j of V is vecs[j]
    V = flint.fmpq_mat(m, n, [flint.fmpq(vecs[j][r].numerator, vecs[j][r].denominator)
                              for r in range(m) for j in range(n)])
    R, rank = V.rref()
    if rank == n:
        return [], Reason(ReasonCode.LAYER_FLIP_FULL_RANK)
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
        return [], Reason(ReasonCode.LAYER_FLIP_SKIPPED, {"support": len(support), "limit": max_support})
    p = _FLIP_PRIME
    mods = [np.array([(x.numerator % p) * pow(x.denominator, -1, p) % p for x in vecs[i]], dtype=np.int64)
            for i in support]
    found = []
    acc = np.zeros(m, dtype=np.int64)
    mask = 0
    status = Reason(ReasonCode.LAYER_FLIP_EXHAUSTED)
    for step in range(1, 1 << len(support)):  # Gray code: one neuron in or out per step
        if late is not None and not step & 0x3FF and late():
            status = Reason(ReasonCode.LAYER_FLIP_TIMEOUT, {"tried": step - 1, "subsets": (1 << len(support)) - 1})
            break
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
    return minimal, status


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
        self.flip_status: list[tuple[int, Reason]] = []
        self.undecided: list[tuple[Reason, str | Reason]] = []
        self.out_of_time: list[Reason] = []
        self.queries = 0
        for x in _probe_points(net.input_dim, seed, probes):
            self.add_point(x)

    def add_point(self, x, pre=None) -> int:
        """Record the exact point x (``pre``: its pre-activations, when already computed)."""
        self.points.append(tuple(x))
        self.pre.append(self.net.preactivations(x) if pre is None else pre)
        return len(self.points) - 1

    def first(self, pred) -> int | None:
        for k, z in enumerate(self.pre):
            if pred(z):
                return k
        return None

    def ran_out(self, question: Reason) -> None:
        """``question`` is left undecided because the time budget ran out."""
        self.undecided.append((question, Reason(ReasonCode.OUT_OF_TIME)))
        self.out_of_time.append(question)

    @property
    def has_open(self) -> bool:
        return bool(self.open_dead or self.open_always or self.open_pairs)

    def freeze(self) -> MechanismReport:
        mechanisms = sorted(self.mechanisms, key=lambda m: (PremiseMethod(m.method).rank, KINDS.index(m.kind), m.layer,
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
            undecided=tuple(self.undecided), prover_queries=self.queries, out_of_time=tuple(self.out_of_time))


def _first_layer(d: _Detection) -> None:
    """Layer 1 is affine: dead iff w = 0, b <= 0; always active iff w = 0, b >= 0; else points of both signs."""
    L1 = d.net.layers[0]
    for i, (w, b) in enumerate(zip(L1.weight, L1.bias)):
        if not any(w):
            if b <= 0:
                d.dead.add((1, i))
                d.mechanisms.append(Mechanism(DEAD, 1, (i,), PremiseMethod.AFFINE))
            if b >= 0:
                d.always.add((1, i))
                d.mechanisms.append(Mechanism(ALWAYS_ACTIVE, 1, (i,), PremiseMethod.AFFINE))
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
                d.mechanisms.append(Mechanism(DEAD, l, (i,), PremiseMethod.ORTHANT))
            else:
                d.open_dead.append((l, i))
            k = d.first(lambda z, l=l, i=i: z[l - 1][i] < 0)
            if k is not None:
                d.inactive[(l, i)] = k
            elif all(v >= 0 for v in w) and b >= 0:
                d.always.add((l, i))
                d.mechanisms.append(Mechanism(ALWAYS_ACTIVE, l, (i,), PremiseMethod.ORTHANT))
            else:
                d.open_always.append((l, i))


def _layer_flips(d: _Detection, late=None) -> None:
    """The exact rank of the layer-flip vectors, then 0/1 kernel vectors (exact), until ``late()``."""
    for l in range(1, len(d.net.hidden_widths) + 1):
        sets, status = layer_flip_sets(d.net, l, late=late)
        if status.code is ReasonCode.LAYER_FLIP_FULL_RANK:
            d.no_flip.append(l)
        else:
            d.flip_status.append((l, Reason(ReasonCode.LAYER_FLIP_SEARCH, {"status": status, "sets": len(sets)})))
        for F in sets:
            d.mechanisms.append(Mechanism(LAYER_FLIP, l, F, PremiseMethod.IDENTITY))


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


def _float_probes(d: _Detection, seed: int, count: int, late=lambda: False) -> None:
    """Refute open candidates with a float64 pass over many points, confirming each witness exactly.

    Each probe point is evaluated exactly at most once (its pre-activations are kept for every candidate
    it may refute); ``late()`` is asked before each candidate, and once it says the time budget has run
    out the candidates not yet tried stay open (the step is reported as left unexamined).
    """
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

    exact: dict[int, tuple] = {}        # probe index -> (exact input, its pre-activations)
    added: dict[int, int] = {}          # probe index -> index of the recorded point
    stopped = []

    def confirm(mask, test) -> int | None:
        for k in np.flatnonzero(mask)[:3]:
            k = int(k)
            if k not in exact:
                x = tuple(Fraction(int(round(v * 1024)), 1024) for v in X[k])
                exact[k] = (x, net.preactivations(x))
            if test(exact[k][1]):
                if k not in added:
                    added[k] = d.add_point(*exact[k])
                return added[k]
        return None

    def out_of_time() -> bool:
        if not stopped and late():
            stopped.append(True)
            d.ran_out(Reason(ReasonCode.UNEXAMINED_STEPS, {"steps": ["float probes"]}))
        return bool(stopped)

    for lst, table, sign in ((d.open_dead, d.active, 1.0), (d.open_always, d.inactive, -1.0)):
        keep = []
        for (l, i) in lst:
            if out_of_time():
                keep.append((l, i))
                continue
            k = confirm(sign * zs[l - 1][:, i] > 1e-9, lambda z, l=l, i=i, s=sign: s * z[l - 1][i] > 0)
            if k is None:
                keep.append((l, i))
            else:
                table[(l, i)] = k
        lst[:] = keep
    keep = []
    for (l, i, j) in d.open_pairs:
        if out_of_time():
            keep.append((l, i, j))
            continue
        k = confirm((zs[l - 2][:, i] > 1e-9) & (zs[l - 1][:, j] > 1e-9),
                    lambda z, l=l, i=i, j=j: z[l - 2][i] > 0 and z[l - 1][j] > 0)
        if k is None:
            keep.append((l, i, j))
        else:
            d.coactive[(l, i, j)] = k
    d.open_pairs[:] = keep


def _prover_phase(d: _Detection, *, timeout: float, query_timeout: float, max_nodes: int) -> None:
    """Decide what is still open with Farkas-tree certificates: NONE becomes a mechanism, FOUND a new point."""
    from reluid.analysis.deep.farkas import Condition, prove_no_input

    start = time.monotonic()

    def ask(conds, question, net=None):
        left = timeout - (time.monotonic() - start)
        _report("mechanism detection: Farkas-tree prover", 1 - left / timeout if 0 < timeout < float("inf") else None)
        if left <= MIN_SECONDS:
            d.ran_out(question)
            return None
        d.queries += 1
        res = prove_no_input(d.net if net is None else net, conds, max_nodes=max_nodes,
                             timeout=min(query_timeout, left))
        if res.outcome is Outcome.UNKNOWN:
            d.undecided.append((question, res.reason))
            return None
        return res

    ask.late = lambda: time.monotonic() - start >= timeout - MIN_SECONDS

    for open_, rel, refuted, proved, kind in ((d.open_dead, ">0", d.active, d.dead, DEAD),
                                              (d.open_always, "<0", d.inactive, d.always, ALWAYS_ACTIVE)):
        for (l, i) in open_:
            res = ask([Condition(l, i, rel)], Reason(ReasonCode.QUESTION_SIGN, {"layer": l, "neuron": i, "sign": rel}))
            if res is None:
                continue
            if res.outcome is Outcome.FOUND:
                refuted[(l, i)] = d.add_point(res.point)
            else:
                proved.add((l, i))
                d.mechanisms.append(Mechanism(kind, l, (i,), PremiseMethod.FARKAS, res.evidence))
    for (l, i, j) in d.open_pairs:
        if (l - 1, i) in d.dead or (l, j) in d.dead:
            continue  # trivially never co-active; the dead neuron is the mechanism
        k = d.first(lambda z, l=l, i=i, j=j: z[l - 2][i] > 0 and z[l - 1][j] > 0)
        if k is not None:  # a point found by an earlier query
            d.coactive[(l, i, j)] = k
            continue
        res = ask([Condition(l - 1, i, ">0"), Condition(l, j, ">0")],
                  Reason(ReasonCode.QUESTION_COACTIVE, {"layer": l, "first": i, "second": j}))
        if res is None:
            continue
        if res.outcome is Outcome.FOUND:
            d.coactive[(l, i, j)] = d.add_point(res.point)
        else:
            d.mechanisms.append(Mechanism(NEVER_COACTIVE, l, (i, j), PremiseMethod.FARKAS, res.evidence))
    _collapsed_kinks(d, ask, Condition)
    _affine_flips(d, ask, Condition)


def _collapsed_kinks(d: _Detection, ask, Condition) -> None:
    """Mechanism (iii): a neuron u whose kink the next layer collapses (docs/mathematics.md §6.2).

    For every successor v (W^{p+1}[v, u] ≠ 0) no input may have z_u < 0 together
    with z_v > 0, nor together with z_v + W^{p+1}[v, u] z_u > 0 (v with u's ReLU
    replaced by the identity, a silent neuron of :func:`kink_network`).  Probe
    points refute most candidates; the rest go to the prover.  Dead and always
    active neurons are left to their own mechanisms.
    """
    net, hidden = d.net, d.net.hidden_widths
    for p in range(1, len(hidden)):
        nxt = net.layers[p]
        for u in range(hidden[p - 1]):
            if ask.late():
                d.ran_out(Reason(ReasonCode.UNEXAMINED_COLLAPSED_KINKS))
                return
            if (p, u) in d.dead or (p, u) in d.always or (p, u) not in d.inactive:
                continue
            successors = [v for v in range(nxt.n_out) if nxt.weight[v][u]]
            if not successors or any(z[p - 1][u] < 0 and (z[p][v] > 0 or z[p][v] + nxt.weight[v][u] * z[p - 1][u] > 0)
                                     for z in d.pre for v in successors):
                continue
            proofs = []
            for v in successors:
                plain = ask([Condition(p, u, "<0"), Condition(p + 1, v, ">0")],
                            Reason(ReasonCode.QUESTION_KINK, {"layer": p, "neuron": u, "next": v, "removed": False}))
                if plain is None or plain.outcome is Outcome.FOUND:
                    break
                aug, virtual = kink_network(net, p, u, v)
                identity = ask([Condition(p, u, "<0"), Condition(p + 1, virtual, ">0")],
                               Reason(ReasonCode.QUESTION_KINK, {"layer": p, "neuron": u, "next": v, "removed": True}),
                               aug)
                if identity is None or identity.outcome is Outcome.FOUND:
                    break
                proofs.append({"neuron": v, "tree": plain.evidence, "identity_tree": identity.evidence})
            else:
                d.mechanisms.append(Mechanism(COLLAPSED_KINK, p, (u,), PremiseMethod.FARKAS, {"successors": proofs}))


def _affine_flips(d: _Detection, ask, Condition) -> None:
    """Mechanism (iv), affine layer flip: Σ_{i∈F} W^{l+1}[:, i] z^l_i constant although the plain product is not 0.

    Candidates come from the exact image points of layer l − 1 at the probe
    points: when their differences span a proper subspace B, F with
    Σ_{i∈F} W^{l+1}[:, i] (W^l[i, :] B) = 0 is a candidate, and the constancy of
    each row of c_F(x) is then proved by two Farkas trees on a silent neuron
    (docs/mathematics.md §6.2).
    """
    net, hidden = d.net, d.net.hidden_widths
    for l in range(2, len(hidden) + 1):
        images = [tuple(v if v > 0 else Fraction(0) for v in z[l - 2]) for z in d.pre]
        diffs = [[a - b for a, b in zip(y, images[0])] for y in images[1:]]
        if ask.late():
            d.ran_out(Reason(ReasonCode.UNEXAMINED_AFFINE_FLIPS))
            return
        basis = _row_basis(diffs, hidden[l - 2])
        if len(basis) >= hidden[l - 2]:
            continue                                    # the sampled image already spans: no refinement here
        Wl, Wn = net.layers[l - 1], net.layers[l]
        if basis and _independent_mod_p(Wl.weight, Wn.weight, basis):
            continue                                    # no F has Σ_F W^{l+1}[:, i] (W^l[i, :] B) = 0
        vecs = [tuple(Wn.weight[o][i] * sum(Wl.weight[i][k] * bvec[k] for k in range(len(bvec)))
                      for o in range(Wn.n_out) for bvec in basis) for i in range(Wl.n_out)]
        sets, _ = zero_subsets(vecs, late=ask.late) if basis else ([tuple(range(Wl.n_out))], None)
        for F in sets:
            rows = [[sum((Wn.weight[o][i] * Wl.weight[i][k] for i in F), Fraction(0)) for k in range(Wl.n_in)]
                    for o in range(Wn.n_out)]
            if not any(any(r) for r in rows):
                continue                                # a plain layer flip: found by the exact identity
            shift = [sum((Wn.weight[o][i] * Wl.bias[i] for i in F), Fraction(0)) for o in range(Wn.n_out)]
            constant = [sum((r[k] * images[0][k] for k in range(Wl.n_in)), Fraction(0)) + s_
                        for r, s_ in zip(rows, shift)]
            proofs = []
            for r, s_, c in zip(rows, shift, constant):
                if not any(r):
                    proofs.append(None)
                    continue
                aug = _hull_network(net, l, r, s_ - c)
                idx = net.layers[l - 1].n_out
                pos = ask([Condition(l, idx, ">0")], Reason(ReasonCode.QUESTION_FLIP_SUM, {"layer": l, "sign": ">0"}),
                          aug)
                if pos is None or pos.outcome is Outcome.FOUND:
                    break
                neg = ask([Condition(l, idx, "<0")], Reason(ReasonCode.QUESTION_FLIP_SUM, {"layer": l, "sign": "<0"}),
                          aug)
                if neg is None or neg.outcome is Outcome.FOUND:
                    break
                proofs.append([pos.evidence, neg.evidence])
            else:
                d.mechanisms.append(Mechanism(AFFINE_FLIP, l, F, PremiseMethod.FARKAS,
                                              {"constant": constant, "trees": proofs}))


def _hull_network(net: Network, l: int, row, bias) -> Network:
    """``net`` with a silent neuron in hidden layer l computing row·h^{l−1} + bias (an affine function of h^{l−1})."""
    return silent_neurons(net, l, [row], [bias])


#: the prime of the quick independence tests of the affine-layer-flip search (below 2^26, for matmul_mod)
_HULL_PRIME = 67_108_859


def _residues(rows, p: int) -> np.ndarray | None:
    """The matrix ``rows`` of rationals modulo p (int64), or None if p divides a denominator."""
    inv: dict[int, int] = {}
    out = np.zeros((len(rows), len(rows[0]) if rows else 0), dtype=np.int64)
    for r, row in enumerate(rows):
        for c, q in enumerate(row):
            q = Fraction(q)
            d = q.denominator
            if d not in inv:
                if d % p == 0:
                    return None
                inv[d] = pow(d, -1, p)
            out[r, c] = q.numerator % p * inv[d] % p
    return out


def _independent_mod_p(Wl, Wn, basis) -> bool:
    """Whether the vectors (W^{l+1}[o, i] · W^l[i, :] b)_{o, b} of the neurons i are independent mod p.

    Then they are independent over Q and no nonempty F sums them to 0: a quick exit
    for the candidate search of :func:`_affine_flips` (False decides nothing).
    """
    p = _HULL_PRIME
    A, N, B = _residues(Wl, p), _residues(Wn, p), _residues(basis, p)
    if A is None or N is None or B is None:
        return False
    proj = matmul_mod(A, np.ascontiguousarray(B.T), p)    # n × r: W^l[i, :] b for every basis vector b
    n, r = proj.shape
    vecs = (N.T[:, :, None] * proj[:, None, :] % p).reshape(n, N.shape[0] * r)
    if vecs.shape[1] < n:
        return False
    return flint.nmod_mat(n, vecs.shape[1], vecs.ravel().tolist(), p).rank() == n


def _row_basis(vectors, dim: int) -> list[list[Fraction]]:
    """A maximal set of ``vectors`` independent modulo p (so independent over Q), in their order.

    It spans the vectors over Q unless p divides a minor that matters, which only
    makes the candidate search below wider: this is a search, and every candidate is
    proved or refuted exactly.  Vectors with a denominator divisible by p are skipped.
    """
    p = _HULL_PRIME
    rows, keep = [], []
    for j, v in enumerate(vectors):
        res = _residues([v], p)
        if res is not None and res.any():
            rows.append(res[0])
            keep.append(j)
    if not rows:
        return []
    T = np.ascontiguousarray(np.array(rows, dtype=np.int64).T)      # dim × len(rows): its pivots are rows
    R, rank = flint.nmod_mat(dim, len(rows), T.ravel().tolist(), p).rref()
    return [[Fraction(x) for x in vectors[keep[c]]] for c in pivot_columns(R, rank)]


def detect_mechanisms(net: Network, *, timeout: float = 60.0, query_timeout: float = 10.0, seed: int = 0,
                      prover: str = "auto", max_nodes: int = 20000, probes: int = 48,
                      float_probes: int = 20000, deadline: float | None = None) -> MechanismReport:
    """Find certified sources of hidden symmetries in a network with >= 2 hidden layers.

    Parameters
    ----------
    net : Network
        At least two hidden layers.
    timeout : float, keyword-only
        Total seconds for the Farkas-tree prover.
    query_timeout : float, keyword-only
        Seconds per premise question (capped by what is left of ``timeout``).
    seed : int, keyword-only
        Seeds the probe points.
    prover : {"auto", "always", "never"}, keyword-only
        ``"auto"`` gives the open premise questions to the Farkas-tree prover
        only when no mechanism was found otherwise; ``"always"`` gives it
        every open question; ``"never"`` none.
    max_nodes : int, keyword-only
        Node budget of the prover per question.
    probes : int, keyword-only
        Number of exact random probe points used to refute candidates first.
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
       ``w = 0, b <= 0`` and always active iff ``w = 0, b >= 0`` (exact, by
       inspection; otherwise explicit points of both signs are recorded);
    2. layers >= 2: the input lies in the closed positive orthant, so a row
       ``W^l[i, :] <= 0, b^l_i <= 0`` is dead and ``>= 0, >= 0`` always active
       (exact, mechanism (i)); other neurons are refuted by exact probe points
       or decided by the Farkas-tree prover (docs/mathematics.md §6.1);
    3. layer flips: the exact rank of the vectors vec(W^{l+1}[:, i] W^l[i, :]),
       then a search for 0/1 kernel vectors (exact);
    4. never co-active pairs (mechanism (ii)): probes, then the prover.

    Examples
    --------
    >>> net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
    >>> [(m.kind, m.layer, m.neurons, m.method) for m in detect_mechanisms(net, prover="never").mechanisms]
    [('dead-neuron', 2, (0,), 'orthant')]
    """
    check_deep(net)
    if prover not in ("auto", "always", "never"):
        raise InvalidArgument(f"prover must be 'auto', 'always' or 'never', got {prover!r}")
    d = _Detection(net, seed, probes)
    late = (lambda: False) if deadline is None else (lambda: time.monotonic() > deadline)
    steps = [("dead/always-active neurons of layer 1", lambda: _first_layer(d)),
             ("dead/always-active neurons of deeper layers", lambda: _deeper_layers(d)),
             ("zero outgoing weights and proportional neurons",
              lambda: d.mechanisms.extend(_exact_structure(net))),   # Lemmas 10, 11(1) per layer
             ("layer flips", lambda: _layer_flips(d, late)),
             ("never co-active pairs", lambda: _coactivity(d)),
             # wider float probes; every witness they suggest is re-checked exactly
             ("float probes", lambda: _float_probes(d, seed, float_probes, late) if d.has_open else None)]
    for n, (what, step) in enumerate(steps):
        if late():
            d.ran_out(Reason(ReasonCode.UNEXAMINED_STEPS, {"steps": [w for w, _ in steps[n:]]}))
            return d.freeze()
        step()
    if prover == "always" or (prover == "auto" and not d.mechanisms):
        if deadline is not None:
            timeout = max(0.0, min(timeout, deadline - time.monotonic()))
        _prover_phase(d, timeout=timeout, query_timeout=query_timeout, max_nodes=max_nodes)
    elif d.has_open:
        n_open = len(d.open_dead) + len(d.open_always) + len(d.open_pairs)
        d.undecided.append((Reason(ReasonCode.QUESTIONS_NOT_REFUTED, {"questions": n_open}),
                            Reason(ReasonCode.PROVER_NOT_USED, {"mechanism_found": prover == "auto"})))
    return d.freeze()
