"""Checker verifiers and rules for deep networks (two or more hidden layers).

Imports only the standard library, :mod:`reluid.model`,
:mod:`reluid.certificates.schema`, :mod:`reluid.checker.registry`,
:mod:`reluid.checker.farkas`, :mod:`reluid.errors` and python-flint.
Everything is recomputed from the network under check with an implementation
independent of the producer's (different normalisation for orbits,
Fractions and reverse-mode differentiation for Jacobians).

The witness of a hidden symmetry
    :func:`construction` reads which parameters θ′ changes and decides
    whether that is exactly the construction of the named mechanism, for
    which neurons, and what premise it then needs: a neuron that is dead
    (no input with z > 0), always active (no input with z < 0), or a pair
    that is never co-active (no input with both z > 0); layer flips, zero
    outgoing weights and proportional neurons need only identities, which
    are recomputed.  It also decides that θ′ lies outside the orbit of θ.
Premises
    a premise claim is verified as the statement it makes about its own
    neurons: by inspection where that is a proof (layer 1 is affine; a
    one-signed row sees the non-negative orthant from layer 2 on) or by a
    Farkas-tree certificate (:mod:`reluid.checker.farkas`).  The rule in
    :mod:`reluid.checker.check` then asks for a verified premise about
    exactly the neurons :func:`construction` found.
Side facts
    activity witnesses (exact pre-activations at listed points) and full rank
    of the layer-flip vectors modulo a prime.  The functional dimension and
    local identifiability are verified by :mod:`reluid.checker.fundim`.

References: Grigsby, Lindsey, Rolnick 2023 (Section 5 mechanisms, Definition
F.2, Lemma F.6); Grigsby, Lindsey, Meyerhoff, Wu 2022 (functional dimension).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from reluid.certificates.schema import PREMISE_KIND, ClaimKind, Mechanism, qs
from reluid.checker import readers as R
from reluid.checker.farkas import verify_no_input
from reluid.checker.linalg import rank_mod_p
from reluid.checker.registry import Budget, Context, charge, fail, verifies
from reluid.checker.search import orbit_form, outside_orbit
from reluid.model.network import Layer, Network

__all__ = ["PREMISE_KINDS", "IDENTITY_KINDS", "Construction", "construction", "premise_of", "outside_orbit",
           "orbit_form"]



# ---- small readers -----------------------------------------------------------

def _int(ctx, evidence, key) -> int:
    return R.integer(ctx, evidence.get(key), f"evidence field {key!r}")


def _ints(ctx, evidence, key) -> tuple[int, ...]:
    return R.integers(ctx, evidence.get(key), f"evidence field {key!r}")


def _one_based(indices) -> str:
    """Neuron indices as people count them (the certificate's JSON counts from 0)."""
    return ", ".join(str(i + 1) for i in sorted(indices))


def _hidden_layer(ctx, net: Network, l: int) -> int:
    hidden = net.hidden_widths
    if len(hidden) < 2:
        fail(ctx, f"not a deep network: architecture {net.architecture}")
    if not 1 <= l <= len(hidden):
        fail(ctx, f"hidden layer {R.show(l)} does not exist (the network has 1..{len(hidden)})")
    return hidden[l - 1]


def _neuron(ctx, net: Network, l: int, i: int) -> None:
    n = _hidden_layer(ctx, net, l)
    if not 0 <= i < n:
        fail(ctx, f"neuron {R.show(i + 1)} does not exist in hidden layer {l} (width {n})")


# ---- premises ------------------------------------------------------------------

#: Claim kinds whose evidence proves a "no input with …" premise.
PREMISE_KINDS = (ClaimKind.DEEP_DEAD_NEURON, ClaimKind.DEEP_ALWAYS_ACTIVE, ClaimKind.DEEP_NEVER_COACTIVE,
                 ClaimKind.DEEP_COLLAPSED_KINK, ClaimKind.DEEP_AFFINE_FLIP)
#: Claim kinds that state an exact identity a construction also recomputes itself.
IDENTITY_KINDS = (ClaimKind.DEEP_LAYER_FLIP, ClaimKind.DEEP_PROPORTIONAL, ClaimKind.DEEP_ZERO_OUTGOING)


def _budget(ctx):
    """The work budget as :func:`reluid.checker.farkas.verify_no_input` takes it."""
    return lambda steps, what: charge(ctx, steps, what)


def _conditions(ctx, kind, evidence) -> tuple[tuple[int, int, str], ...]:
    """The sign conditions "no input satisfies" for a premise claim, read from its own fields."""
    net = ctx.network
    l = _int(ctx, evidence, "layer")
    if kind == ClaimKind.DEEP_NEVER_COACTIVE:
        i, j = _int(ctx, evidence, "upstream"), _int(ctx, evidence, "downstream")
        if l < 2:
            fail(ctx, "a never co-active pair needs the downstream neuron in hidden layer >= 2")
        _neuron(ctx, net, l - 1, i)
        _neuron(ctx, net, l, j)
        return ((l - 1, i, ">0"), (l, j, ">0"))
    i = _int(ctx, evidence, "neuron")
    _neuron(ctx, net, l, i)
    return ((l, i, ">0" if kind == ClaimKind.DEEP_DEAD_NEURON else "<0"),)


def _inspection(ctx, conditions) -> str | None:
    """A proof by inspection of one sign condition, when there is one (None otherwise).

    Layer 1 is affine: z = w·x + b is never > 0 iff w = 0 and b <= 0 (never < 0:
    w = 0, b >= 0).  From layer 2 on the input is >= 0 entrywise, so z <= 0
    everywhere when the incoming row and the bias are <= 0 (>= 0 likewise).
    """
    if len(conditions) != 1:
        return None
    (l, i, sign), = conditions
    L = ctx.network.layers[l - 1]
    w, b = L.weight[i], L.bias[i]
    s = 1 if sign == ">0" else -1
    if l == 1 and not any(w) and s * b <= 0:
        return f"layer-1 neuron {i + 1} is the constant {R.show(b)}"
    if l >= 2 and all(s * v <= 0 for v in w) and s * b <= 0:
        return (f"the incoming row and bias of neuron {i + 1} in hidden layer {l} are "
                f"{'<= 0' if s > 0 else '>= 0'} entrywise, and its inputs are >= 0")
    return None


def _premise(evidence, ctx: Context, kind) -> str:
    conditions = _conditions(ctx, kind, evidence)
    text = " and ".join(f"z^{l}_{i + 1} {sign[0]} 0" for l, i, sign in conditions)
    if "tree" in evidence:
        leaves = verify_no_input(ctx.network, conditions, evidence["tree"], claim=ctx.claim_id, budget=_budget(ctx))
        return f"no input has {text}: a Farkas-tree certificate with {leaves} leaves (verified)"
    why = _inspection(ctx, conditions)
    if why is None:
        fail(ctx, f"no proof that no input has {text}: give a Farkas-tree certificate")
    return f"no input has {text}: {why} (recomputed)"


def _silent(net: Network, layer: int, rows, biases) -> Network:
    """``net`` with neurons appended to hidden layer ``layer`` (rows over its input) and zero outgoing weights."""
    layers = [[[list(r) for r in L.weight], list(L.bias), L.n_in] for L in net.layers]
    W, b, _ = layers[layer - 1]
    W.extend([list(r) for r in rows])
    b.extend(biases)
    for row in layers[layer][0]:
        row.extend([Fraction(0)] * len(rows))
    layers[layer][2] += len(rows)
    return Network(tuple(Layer(tuple(tuple(r) for r in W_), tuple(b_), n_in) for W_, b_, n_in in layers))


def _successor_trees(ctx, evidence, successors) -> dict:
    raw = R.sequence(ctx, evidence.get("successors"), "successors")
    if not successors:
        fail(ctx, "the neuron has no successor: nothing collapses its kink")
    given = {}
    for item in raw:
        R.fields(ctx, item, "a successor", ("neuron",), ("tree", "identity_tree"))
        v = R.integer(ctx, item["neuron"], "a successor's neuron")
        if v in given:
            fail(ctx, "each successor must be named once by its index")
        given[v] = item
    if sorted(given) != successors:
        fail(ctx, f"the successors are {[v + 1 for v in successors]} (recomputed), not "
                  f"{sorted(R.show(v + 1) for v in given)}")
    return given


def _collapsed_kink(evidence, ctx: Context) -> str:
    """Every successor v of u: no input has z_u < 0 and z_v > 0, nor z_u < 0 and z_v + W[v, u] z_u > 0."""
    net = ctx.network
    p, u = _int(ctx, evidence, "layer"), _int(ctx, evidence, "neuron")
    _neuron(ctx, net, p, u)
    if p >= len(net.hidden_widths):
        fail(ctx, "a collapsed kink needs a next hidden layer")
    nxt = net.layers[p]
    successors = [v for v in range(nxt.n_out) if nxt.weight[v][u]]
    given = _successor_trees(ctx, evidence, successors)
    leaves = 0
    Lp = net.layers[p - 1]
    for v in successors:
        charge(ctx, 2 * net.n_params, "rebuilding the network for one successor")
        leaves += verify_no_input(net, ((p, u, "<0"), (p + 1, v, ">0")), given[v].get("tree"), claim=ctx.claim_id,
                                  budget=_budget(ctx))
        # v with u's ReLU replaced by the identity: z_u = σ(z_u) − σ(−z_u), via two silent neurons
        aug = _silent(net, p, [[-w for w in Lp.weight[u]]], [-Lp.bias[u]])
        row = list(nxt.weight[v]) + [-nxt.weight[v][u]]
        row[u] += nxt.weight[v][u]
        aug = _silent(aug, p + 1, [row], [nxt.bias[v]])
        leaves += verify_no_input(aug, ((p, u, "<0"), (p + 1, nxt.n_out, ">0")), given[v].get("identity_tree"),
                                  claim=ctx.claim_id, budget=_budget(ctx))
    return (f"wherever z^{p}_{u + 1} < 0, each of its {len(successors)} successor(s) in hidden layer {p + 1} is <= 0, "
            f"with and without neuron {u + 1}'s ReLU: {leaves} Farkas-tree leaves (verified)")


def _flip_set(ctx, evidence, net) -> tuple[int, tuple[int, ...]]:
    """(layer, F) of a layer-flip claim: F a nonempty set of neurons of that hidden layer."""
    l = _int(ctx, evidence, "layer")
    F = tuple(sorted(_ints(ctx, evidence, "neurons")))
    if not F or len(set(F)) != len(F):
        fail(ctx, "a flip set must be a non-empty set of neurons")
    for i in F:
        _neuron(ctx, net, l, i)
    return l, F


def _affine_flip(evidence, ctx: Context) -> str:
    """Σ_{i∈F} W^{l+1}[:, i] z^l_i is the listed constant on R^{n0}: per output row, two trees on a silent neuron."""
    net = ctx.network
    l, F = _flip_set(ctx, evidence, net)
    if l < 2:
        fail(ctx, "in hidden layer 1 the sum is affine in x: only the plain layer flip applies")
    Wl, Wn = net.layers[l - 1], net.layers[l]
    constant = R.rationals(ctx, evidence.get("constant"), "constant", Wn.n_out)
    trees = R.sequence(ctx, evidence.get("trees"), "trees", Wn.n_out)
    charge(ctx, Wn.n_out * len(F) * (Wl.n_in + 1), "the sums over the flip set")
    leaves = 0
    for o, (c, pair) in enumerate(zip(constant, trees)):
        row = [sum((Wn.weight[o][i] * Wl.weight[i][k] for i in F), Fraction(0)) for k in range(Wl.n_in)]
        shift = sum((Wn.weight[o][i] * Wl.bias[i] for i in F), Fraction(0))
        if not any(row):
            if shift != c:
                fail(ctx, f"row {o + 1}: the sum is the constant {R.show(shift)}, not {R.show(c)}")
            if pair is not None:
                fail(ctx, f"row {o + 1}: the sum is constant by inspection; no trees belong there")
            continue
        pair = R.sequence(ctx, pair, f"row {o + 1}: the trees (above and below the constant)", 2)
        charge(ctx, 2 * net.n_params, "rebuilding the network for one row")
        aug = _silent(net, l, [row], [shift - c])
        idx = Wl.n_out
        leaves += verify_no_input(aug, ((l, idx, ">0"),), pair[0], claim=ctx.claim_id, budget=_budget(ctx))
        leaves += verify_no_input(aug, ((l, idx, "<0"),), pair[1], claim=ctx.claim_id, budget=_budget(ctx))
    return (f"Σ_(i∈F) W^{l + 1}[:, i] z^{l}_i is constant for F = {{{_one_based(F)}}}: {leaves} Farkas-tree leaves "
            "(verified)")


@verifies(ClaimKind.DEEP_COLLAPSED_KINK)
def verify_collapsed_kink(evidence, ctx: Context) -> str:
    """Mechanism (iii): the next layer collapses the neuron's kink (docs/mathematics.md §6.2)."""
    return _collapsed_kink(evidence, ctx)


@verifies(ClaimKind.DEEP_AFFINE_FLIP)
def verify_affine_flip(evidence, ctx: Context) -> str:
    """Mechanism (iv), affine layer flip (docs/mathematics.md §6.2)."""
    return _affine_flip(evidence, ctx)


def premise_of(claim) -> tuple:
    """What a verified premise claim proves, as the key :func:`construction` asks for (fields already read)."""
    ev = claim.evidence
    mechanism = _MECHANISM_OF[claim.kind]
    if mechanism is Mechanism.AFFINE_LAYER_FLIP:
        return (mechanism, ev["layer"], tuple(sorted(ev["neurons"])), qs(ev["constant"]))
    if mechanism is Mechanism.NEVER_COACTIVE:
        return (mechanism, ev["layer"], (ev["upstream"], ev["downstream"]))
    if mechanism is Mechanism.LAYER_FLIP:
        return (mechanism, ev["layer"], tuple(sorted(ev["neurons"])))
    if mechanism is Mechanism.PROPORTIONAL_NEURONS:
        return (mechanism, ev["layer"], tuple(ev["neurons"]))
    return (mechanism, ev["layer"], (ev["neuron"],))


#: The mechanism whose premise each premise claim kind proves (the inverse of the schema's map).
_MECHANISM_OF = {kind: mechanism for mechanism, kind in PREMISE_KIND.items()}


@verifies(ClaimKind.DEEP_DEAD_NEURON)
def verify_dead(evidence, ctx: Context) -> str:
    """Mechanism (i): the neuron's pre-activation is <= 0 on all of R^{n0}."""
    return _premise(evidence, ctx, ClaimKind.DEEP_DEAD_NEURON)


@verifies(ClaimKind.DEEP_ALWAYS_ACTIVE)
def verify_always_active(evidence, ctx: Context) -> str:
    """The neuron's pre-activation is >= 0 on all of R^{n0}."""
    return _premise(evidence, ctx, ClaimKind.DEEP_ALWAYS_ACTIVE)


@verifies(ClaimKind.DEEP_NEVER_COACTIVE)
def verify_never_coactive(evidence, ctx: Context) -> str:
    """Mechanism (ii): no input has both pre-activations > 0."""
    return _premise(evidence, ctx, ClaimKind.DEEP_NEVER_COACTIVE)


def _flip_product_zero(ctx, net: Network, l: int, F) -> bool:
    Wl, Wn = net.layers[l - 1].weight, net.layers[l].weight
    charge(ctx, len(Wn) * net.layers[l - 1].n_in * len(F), "the layer-flip identity")
    return all(sum((Wn[o][i] * Wl[i][k] for i in F), Fraction(0)) == 0
               for o in range(len(Wn)) for k in range(net.layers[l - 1].n_in))


@verifies(ClaimKind.DEEP_LAYER_FLIP)
def verify_layer_flip(evidence, ctx: Context) -> str:
    """Σ_{i in F} W^{l+1}[:, i] W^l[i, :] = 0, recomputed exactly."""
    l, F = _flip_set(ctx, evidence, ctx.network)
    if not _flip_product_zero(ctx, ctx.network, l, F):
        fail(ctx, f"sum over F = {{{_one_based(F)}}} of W^{l + 1}[:, i] W^{l}[i, :] is not zero")
    return f"layer-flip identity holds exactly for F = {{{_one_based(F)}}} in hidden layer {l} (recomputed)"


# ---- the witness -------------------------------------------------------------------

def _differences(ctx, a: Network, b: Network):
    """Positions where two same-architecture networks differ: ('W', layer-map, row, col) / ('b', layer-map, row)."""
    charge(ctx, a.n_params, "comparing θ′ with θ")
    out = []
    for m, (La, Lb) in enumerate(zip(a.layers, b.layers)):
        for r, (ra, rb) in enumerate(zip(La.weight, Lb.weight)):
            out.extend(("W", m, r, c) for c, (x, y) in enumerate(zip(ra, rb)) if x != y)
        out.extend(("b", m, r) for r, (x, y) in enumerate(zip(La.bias, Lb.bias)) if x != y)
    return out


@dataclass(frozen=True, slots=True)
class Construction:
    """What θ′ is: a mechanism's construction at (layer, neurons), and the premise it needs (or None)."""

    kind: str
    layer: int
    neurons: tuple[int, ...]
    what: str
    premise: tuple | None = None
    premise_text: str = ""

    @property
    def key(self) -> tuple:
        """The fact behind the construction, as :func:`premise_of` states it."""
        neurons = tuple(sorted(self.neurons)) if self.kind == Mechanism.LAYER_FLIP else self.neurons
        return (self.kind, self.layer, neurons)


def _single(ctx, items, what: str):
    items = sorted(set(items))
    if len(items) != 1:
        fail(ctx, f"θ′ {what} of {len(items)} neurons, not of exactly one")
    return items[0]


def _dead_neuron(ctx, kind, a, b, diffs) -> Construction:
    """Only the outgoing column W^{l+1}[:, i] changes."""
    hidden = len(a.hidden_widths)
    if any(d[0] != "W" or not 1 <= d[1] <= hidden for d in diffs):
        fail(ctx, "θ′ changes more than outgoing weights of hidden neurons")
    l, i = _single(ctx, ((d[1], d[3]) for d in diffs), "changes the outgoing weights")
    return Construction(kind, l, (i,), f"changes only the outgoing weights of neuron {i + 1} in hidden layer {l}",
                        (Mechanism.DEAD_NEURON, l, (i,)), f"that neuron is dead (no input has z^{l}_{i + 1} > 0)")


def _bias_shift(ctx, kind, a, b, diffs) -> Construction:
    """b^l_i += δ > 0 and b^{l+1} -= δ W^{l+1}[:, i] (always-active, collapsed-kink)."""
    hidden = len(a.hidden_widths)
    shifted = [d for d in diffs if d[0] == "b"]
    if not shifted:
        fail(ctx, "θ′ shifts no bias")
    low = min(d[1] for d in shifted)           # b^l_i moves; b^(l+1) (one layer map up) compensates
    if low >= hidden:
        fail(ctx, "θ′ shifts only the output bias")
    l, i = _single(ctx, ((d[1] + 1, d[2]) for d in shifted if d[1] == low), "shifts the bias")
    _neuron(ctx, a, l, i)
    delta = b.layers[l - 1].bias[i] - a.layers[l - 1].bias[i]
    if not delta > 0:
        fail(ctx, f"the bias shift δ = {R.show(delta)} of neuron ({l}, {i + 1}) must be positive")
    col = [row[i] for row in a.layers[l].weight]
    expect = tuple(x - delta * c for x, c in zip(a.layers[l].bias, col))
    if b.layers[l].bias != expect:
        fail(ctx, f"b^{l + 1} of θ′ is not b^{l + 1} - δ·W^{l + 1}[:, {i + 1}]")
    if any(d[0] == "W" or not ((d[1] == l - 1 and d[2] == i) or d[1] == l) for d in diffs):
        fail(ctx, f"θ′ changes parameters other than b^{l}_{i + 1} and b^{l + 1}")
    what = f"moves δ = {R.show(delta)} from b^{l + 1} into the bias of neuron {i + 1} in hidden layer {l}"
    if kind == Mechanism.COLLAPSED_KINK:
        return Construction(kind, l, (i,), what, (Mechanism.COLLAPSED_KINK, l, (i,)),
                            f"the next layer collapses that neuron's kink (every successor is <= 0, with and "
                            f"without the neuron's ReLU, wherever z^{l}_{i + 1} < 0)")
    return Construction(kind, l, (i,), what, (Mechanism.ALWAYS_ACTIVE, l, (i,)),
                        f"that neuron is always active (no input has z^{l}_{i + 1} < 0)")


def _never_coactive(ctx, kind, a, b, diffs) -> Construction:
    """A single weight W^l[j, i] decreases, i in layer l-1, j in layer l."""
    if len(diffs) != 1 or diffs[0][0] != "W" or not 1 <= diffs[0][1] < len(a.hidden_widths):
        fail(ctx, "θ′ must differ from θ in exactly one weight between two hidden layers")
    _, m, j, i = diffs[0]
    l = m + 1
    if not b.layers[m].weight[j][i] < a.layers[m].weight[j][i]:
        fail(ctx, f"W^{l}[{j + 1}, {i + 1}] must decrease")
    return Construction(kind, l, (i, j), f"decreases W^{l}[{j + 1}, {i + 1}]",
                        (Mechanism.NEVER_COACTIVE, l, (i, j)),
                        f"neuron {i + 1} of hidden layer {l - 1} and neuron {j + 1} of hidden layer {l} are never "
                        f"co-active (no input has z^{l - 1}_{i + 1} > 0 and z^{l}_{j + 1} > 0)")


def _zero_outgoing_construction(ctx, kind, a, b, diffs) -> Construction:
    """Only the incoming row of a neuron with zero outgoing weights changes."""
    if any(not 0 <= d[1] < len(a.hidden_widths) for d in diffs):
        fail(ctx, "θ′ changes more than incoming rows of hidden neurons")
    l, i = _single(ctx, ((d[1] + 1, d[2]) for d in diffs), "changes the incoming row")
    _zero_outgoing(ctx, a, l, i)
    return Construction(kind, l, (i,), f"changes only the incoming row of neuron {i + 1} in hidden layer {l}, "
                        "whose outgoing weights are 0 (recomputed)")


def _proportional_construction(ctx, kind, a, b, diffs) -> Construction:
    """W^{l+1}[:, i] += λ W^{l+1}[:, j], W^{l+1}[:, j] = 0."""
    hidden = len(a.hidden_widths)
    if any(d[0] != "W" or not 1 <= d[1] <= hidden for d in diffs):
        fail(ctx, "θ′ changes more than outgoing weights of hidden neurons")
    layers = {d[1] for d in diffs}
    if len(layers) != 1:
        fail(ctx, "θ′ changes outgoing weights in more than one layer")
    l = layers.pop()
    Na, Nb = a.layers[l], b.layers[l]
    cols = sorted({d[3] for d in diffs})
    gone = [c for c in cols if not any(row[c] for row in Nb.weight)]
    if len(cols) != 2 or len(gone) != 1:
        fail(ctx, "θ′ must move the outgoing weights of one neuron onto another")
    j = gone[0]
    i = next(c for c in cols if c != j)
    lam = _proportional(ctx, a, l, i, j)
    expect = tuple(tuple(r[t] + lam * r[j] if t == i else (Fraction(0) if t == j else r[t])
                         for t in range(len(r))) for r in Na.weight)
    if Nb.weight != expect:
        fail(ctx, f"θ′ is not W^{l + 1}[:, {i + 1}] += λ W^{l + 1}[:, {j + 1}], W^{l + 1}[:, {j + 1}] = 0 with "
                  f"λ = {R.show(lam)}")
    return Construction(kind, l, (i, j), f"moves the outgoing weights of neuron {j + 1} onto neuron {i + 1} in "
                        f"hidden layer {l}, whose rows are positively proportional (λ = {R.show(lam)}, recomputed)")


def _flipped_rows(ctx, a, b, diffs, lowest: int):
    """(l, F): θ′ negates exactly the rows F of (W^l, b^l), l the lowest layer θ′ changes (>= ``lowest``)."""
    l = min(d[1] for d in diffs) + 1      # rows of (W^l, b^l) negated; b^(l+1) compensates
    if not lowest <= l <= len(a.hidden_widths):
        fail(ctx, "θ′ changes only the output layer: that flips no hidden neuron" if lowest == 1 else
             "θ′ must flip neurons of a hidden layer >= 2")
    La, Lb = a.layers[l - 1], b.layers[l - 1]
    F = tuple(sorted({d[2] for d in diffs if d[1] == l - 1}))
    for i in range(La.n_out):
        s = -1 if i in F else 1
        if Lb.weight[i] != tuple(s * x for x in La.weight[i]) or Lb.bias[i] != s * La.bias[i]:
            fail(ctx, f"row {i + 1} of layer {l} is not {'negated' if s < 0 else 'kept'}")
    return l, F


def _affine_layer_flip(ctx, kind, a, b, diffs) -> Construction:
    """Negate the rows in F of (W^l, b^l), b^{l+1} += the constant c_F."""
    l, F = _flipped_rows(ctx, a, b, diffs, 2)
    Na, Nb = a.layers[l], b.layers[l]
    if Nb.weight != Na.weight or any(d[1] not in (l - 1, l) for d in diffs):
        fail(ctx, f"θ′ changes more than the rows in F and b^{l + 1}")
    constant = tuple(y - x for x, y in zip(Na.bias, Nb.bias))
    return Construction(kind, l, F, f"flips F = {{{_one_based(F)}}} in hidden layer {l} and adds "
                        f"{[R.show(c) for c in constant]} to b^{l + 1}", (Mechanism.AFFINE_LAYER_FLIP, l, F, constant),
                        f"Σ_(i∈F) W^{l + 1}[:, i] z^{l}_i is that constant on R^n0")


def _layer_flip(ctx, kind, a, b, diffs) -> Construction:
    """Negate the rows in F of (W^l, b^l), b^{l+1} += Σ_F W^{l+1}[:, i] b^l_i."""
    l, F = _flipped_rows(ctx, a, b, diffs, 1)
    La, Na, Nb = a.layers[l - 1], a.layers[l], b.layers[l]
    if not _flip_product_zero(ctx, a, l, F):
        fail(ctx, f"the layer-flip identity fails for F = {{{_one_based(F)}}}")
    expect = tuple(c + sum((row[i] * La.bias[i] for i in F), Fraction(0)) for c, row in zip(Na.bias, Na.weight))
    if Nb.weight != Na.weight or Nb.bias != expect:
        fail(ctx, f"layer {l + 1} of θ′ is not W^{l + 1} with b^{l + 1} + Σ_F W^{l + 1}[:, i] b^{l}_i")
    if any(d[1] not in (l - 1, l) for d in diffs):
        fail(ctx, "θ′ changes other layers")
    return Construction(kind, l, F, f"flips F = {{{_one_based(F)}}} in hidden layer {l}, and "
                        "Σ_(i∈F) W^(l+1)[:, i] W^l[i, :] = 0 (recomputed)")


def _two_layer_flip(ctx, kind, a, b, diffs):
    """θ^{F1,F2} of docs/mathematics.md §8.1."""
    from reluid.checker.two_layers import flips_construction
    return flips_construction(ctx, a, b)


#: The construction of each mechanism, read from the differences between θ′ and θ.
_CONSTRUCTIONS = {Mechanism.DEAD_NEURON: _dead_neuron, Mechanism.ALWAYS_ACTIVE: _bias_shift,
                  Mechanism.COLLAPSED_KINK: _bias_shift, Mechanism.NEVER_COACTIVE: _never_coactive,
                  Mechanism.ZERO_OUTGOING: _zero_outgoing_construction,
                  Mechanism.PROPORTIONAL_NEURONS: _proportional_construction,
                  Mechanism.AFFINE_LAYER_FLIP: _affine_layer_flip, Mechanism.LAYER_FLIP: _layer_flip,
                  Mechanism.TWO_LAYER_FLIP: _two_layer_flip}


def _read_construction(ctx, kind: str, a: Network, b: Network) -> Construction:
    """θ′ = b must be exactly the construction of ``kind`` applied to θ = a; the neurons come from the differences."""
    if not isinstance(kind, str) or kind not in _CONSTRUCTIONS:
        fail(ctx, f"unknown mechanism {R.show(kind)}")
    diffs = _differences(ctx, a, b)
    if not diffs:
        fail(ctx, "the witness network equals θ")
    return _CONSTRUCTIONS[kind](ctx, kind, a, b, diffs)


def construction(net: Network, theta2: Network, kind: str, budget: Budget | None = None) -> Construction:
    """The construction θ′ is, with the premise it needs; raises CheckFailed unless θ′ ∉ orbit(θ) too."""
    ctx = Context(net, "witness", budget or Budget())
    if theta2.architecture != net.architecture:
        fail(ctx, f"witness architecture {theta2.architecture} differs from {net.architecture}")
    c = _read_construction(ctx, kind, net, theta2)
    out = outside_orbit(net, theta2, ctx)
    if out is None:
        fail(ctx, "cannot decide orbit membership (zero incoming rows in both networks)")
    if not out:
        fail(ctx, "θ′ lies in the orbit of θ: not a hidden symmetry")
    return c


def _zero_outgoing(ctx, net: Network, l: int, i: int) -> None:
    _neuron(ctx, net, l, i)
    if any(row[i] for row in net.layers[l].weight):
        fail(ctx, f"neuron {i + 1} of hidden layer {l} has a nonzero outgoing weight")


def _proportional(ctx, net: Network, l: int, i: int, j: int) -> Fraction:
    """λ > 0 with row_j = λ row_i in layer l, re-derived; fails otherwise."""
    _neuron(ctx, net, l, i)
    _neuron(ctx, net, l, j)
    L = net.layers[l - 1]
    ri, rj = L.weight[i] + (L.bias[i],), L.weight[j] + (L.bias[j],)
    lead = next((t for t, x in enumerate(ri) if x), None)
    if i == j or lead is None:
        fail(ctx, "two distinct neurons with a nonzero row are needed")
    lam = rj[lead] / ri[lead]
    if not lam > 0 or any(y != lam * x for x, y in zip(ri, rj)):
        fail(ctx, f"the incoming rows of neurons {i + 1} and {j + 1} in hidden layer {l} are not positively proportional")
    return lam


@verifies(ClaimKind.DEEP_ZERO_OUTGOING)
def verify_zero_outgoing(evidence, ctx: Context) -> str:
    """Lemma 10 in one hidden layer: W^{l+1}[:, i] = 0 (checked exactly)."""
    l, i = _int(ctx, evidence, "layer"), _int(ctx, evidence, "neuron")
    _zero_outgoing(ctx, ctx.network, l, i)
    return f"neuron {i + 1} of hidden layer {l} has zero outgoing weights (recomputed)"


@verifies(ClaimKind.DEEP_PROPORTIONAL)
def verify_proportional(evidence, ctx: Context) -> str:
    """Lemma 11(1) in one hidden layer: positively proportional incoming rows (checked exactly)."""
    l = _int(ctx, evidence, "layer")
    neurons = _ints(ctx, evidence, "neurons")
    if len(neurons) != 2:
        fail(ctx, "a proportional pair names two neurons")
    lam = _proportional(ctx, ctx.network, l, *neurons)
    return (f"the row of neuron {neurons[1] + 1} = {R.show(lam)} × the row of neuron {neurons[0] + 1} in hidden "
            f"layer {l} (recomputed)")


@verifies(ClaimKind.DEEP_WITNESS)
def verify_witness(evidence, ctx: Context) -> str:
    """θ′ is the named mechanism's construction and lies outside the orbit; it agrees at the listed inputs."""
    net = ctx.network
    theta2 = R.network(ctx, evidence.get("network"), "witness network")
    c = construction(net, theta2, evidence.get("mechanism"), ctx.budget)
    inputs = R.points(ctx, evidence["inputs"], "inputs", net.input_dim) if "inputs" in evidence else ()
    charge(ctx, 2 * len(inputs) * net.n_params, "evaluating θ and θ′ at the listed inputs")
    for x in inputs:
        if net(x) != theta2(x):
            fail(ctx, f"θ and θ′ differ at input {[R.show(v) for v in x]}")
    tail = f"; equal at {len(inputs)} listed inputs (a sanity check)" if inputs else ""
    return (f"θ′ {c.what}" + (f"; it keeps the function if {c.premise_text}" if c.premise else "")
            + f"; outside the orbit (normal forms differ){tail}")


# ---- information claims ------------------------------------------------------------

def _witness_entries(ctx, evidence, key, size, npoints):
    """The (…, point index) tuples of an activity claim."""
    out = R.tuples(ctx, evidence.get(key), key, size)
    for t in out:
        if not 0 <= t[-1] < npoints:
            fail(ctx, f"{key}: point index {R.show(t[-1])} out of range")
    return out


@verifies(ClaimKind.DEEP_ACTIVITY)
def verify_activity(evidence, ctx: Context) -> str:
    """Exact pre-activations at the listed points have the listed signs."""
    net = ctx.network
    pts = R.points(ctx, evidence.get("points"), "evidence field 'points'", net.input_dim)
    active = _witness_entries(ctx, evidence, "active", 3, len(pts))
    inactive = _witness_entries(ctx, evidence, "inactive", 3, len(pts))
    coactive = _witness_entries(ctx, evidence, "coactive", 4, len(pts))
    charge(ctx, len(pts) * net.n_params, "evaluating the network at the listed points")
    pre = [net.preactivations(x) for x in pts]
    for l, i, k in active:
        _neuron(ctx, net, l, i)
        if not pre[k][l - 1][i] > 0:
            fail(ctx, f"neuron {i + 1} of hidden layer {l} is not active at point {k + 1}")
    for l, i, k in inactive:
        _neuron(ctx, net, l, i)
        if not pre[k][l - 1][i] < 0:
            fail(ctx, f"neuron {i + 1} of hidden layer {l} is not negative at point {k + 1}")
    for l, i, j, k in coactive:
        if l < 2:
            fail(ctx, "co-activity needs hidden layer >= 2")
        _neuron(ctx, net, l - 1, i)
        _neuron(ctx, net, l, j)
        if not (pre[k][l - 2][i] > 0 and pre[k][l - 1][j] > 0):
            fail(ctx, f"neuron {i + 1} of hidden layer {l - 1} and neuron {j + 1} of hidden layer {l} are not "
                      f"co-active at point {k + 1}")
    return (f"{len(active)} activity, {len(inactive)} inactivity and {len(coactive)} co-activity witnesses at "
            f"{len(pts)} points (recomputed)")


@verifies(ClaimKind.DEEP_NO_LAYER_FLIP)
def verify_no_layer_flip(evidence, ctx: Context) -> str:
    """The vectors vec(W^{l+1}[:, i] W^l[i, :]) have full rank mod p, hence over Q: no flip set."""
    net = ctx.network
    p = R.prime(ctx, evidence.get("prime"), "evidence field 'prime'", lo=3)
    layers = _ints(ctx, evidence, "layers")
    for l in layers:
        n = _hidden_layer(ctx, net, l)
        n_in, n_out = net.layers[l - 1].n_in, net.layers[l].n_out
        charge(ctx, n * (n_in + n_out), f"the weights of hidden layer {l} modulo {p}")
        Wl = [[R.residue(ctx, x, p) for x in row] for row in net.layers[l - 1].weight]
        Wn = [[R.residue(ctx, x, p) for x in row] for row in net.layers[l].weight]
        # entry (o, k) of vector i is W^{l+1}[o, i] W^l[i, k], mod p.  The rows (o, k) with k < K come first: a
        # set of rows of rank n gives the whole matrix rank n (its rank is at most the whole one's), and the
        # n_out · K >= 2n of them usually do; all n_out · n_in rows only when they fall short.
        K = min(n_in, -(-2 * n // max(1, n_out)))
        for cols in dict.fromkeys((K, n_in)):
            charge(ctx, n * n_out * cols, f"the layer-flip vectors of hidden layer {l}")
            entries = [Wn[o][i] * Wl[i][k] % p for o in range(n_out) for k in range(cols) for i in range(n)]
            if rank_mod_p(n_out * cols, n, entries, p) == n:
                break
        else:
            fail(ctx, f"the layer-flip vectors of hidden layer {l} are dependent modulo {p}")
    return f"no layer flip set in hidden layers {list(layers)}: full rank modulo {p} (recomputed)"
