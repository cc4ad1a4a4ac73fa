"""Orbits of the obvious symmetries on networks of any depth: canonical form and membership.

The obvious symmetries act on Ω(n0, ..., nd) as the product over hidden
layers of H_{n_l} = permutations · positive diagonal scalings (Grigsby,
Lindsey, Rolnick 2023, Definition F.4, (P) and (S)); an element
``g = (g_1, ..., g_{d-1})`` acts by :func:`reluid.model.symmetry.act_layers`:

    W^l_{π(j) π(k)}  <-  s^l_j · W^l_{jk} / s^{l-1}_k,      b^l_{π(j)} <- s^l_j b^l_j,

with ``s^0 = s^d = 1``.  The names are those of the shallow module
(:mod:`reluid.analysis.shallow.orbit`), with one group element per hidden
layer:

* :func:`canonical_form` returns ``(canon, gs)`` with ``act_layers(gs, net) ==
  canon`` (layer by layer: each incoming row, in the columns already
  normalised, is divided by the absolute value of its first nonzero entry,
  rows are sorted, ties are broken by trying every order and keeping the least
  network); it is undefined when a hidden neuron's incoming row is zero;
* :func:`is_canonical` is its predicate;
* :func:`same_orbit` decides orbit membership exactly for every pair (zero
  rows included) by a backtracking search over permutations with a
  multiplicative union-find for the scalings, and returns the group elements
  or None.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations, product

from reluid.errors import InvalidArgument, OrbitSearchExhausted
from reluid.model.network import Network
from reluid.model.symmetry import GroupElement, act_layers

__all__ = ["canonical_form", "is_canonical", "same_orbit", "network_key"]


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


def canonical_form(net: Network, *, max_branches: int = 5040) -> tuple[Network, tuple[GroupElement, ...]]:
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
    >>> canonical_form(act_layers(g, net))[0] == canonical_form(net)[0]
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
                    f"hidden neuron {j + 1} of layer {l} has a zero incoming row; the deep canonical form is "
                    "undefined there (use same_orbit)")
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


def is_canonical(net: Network) -> bool:
    """``True`` when ``net`` equals its own :func:`canonical_form`."""
    return canonical_form(net)[0] == net


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


def same_orbit(a: Network, b: Network, *, max_nodes: int = 200_000, expired=None) -> tuple[GroupElement, ...] | None:
    """Decide exactly whether ``b = g·a`` for some g in the product of the H_{n_l}.

    Returns the group elements (one per hidden layer, checked with
    :func:`~reluid.model.symmetry.act_layers`) or ``None`` when ``b`` is outside
    the orbit of ``a``.  The search is exhaustive, so ``None`` is a proof.

    Raises
    ------
    OrbitSearchExhausted
        Only when more than ``max_nodes`` partial matches are explored, or when ``expired()`` (asked every
        256 of them) says the caller's time ran out.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [-1]], [0, 1]), ([[1, 1]], [0]), ([[2]], [1])])
    >>> g = (GroupElement((1, 0), (Fraction(2), Fraction(3))), GroupElement((0,), (Fraction(5),)))
    >>> same_orbit(net, act_layers(g, net)) == g
    True
    >>> same_orbit(net, Network.from_lists([([[1], [-1]], [0, 1]), ([[1, 2]], [0]), ([[2]], [1])])) is None
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
        if nodes[0] > max_nodes or expired is not None and not nodes[0] & 0xFF and expired():
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
