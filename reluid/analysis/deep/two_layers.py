"""Two hidden layers: the fibre is the union of the orbits of the flips (docs/mathematics.md §8).

For a rational θ = (A, a; W, w; V, c) of architecture (n0, n1, n2, n3), n0 >= 2,
:func:`analyse_two_layers` decides the hypotheses of Theorem 8.2 exactly and, with
them, the layer flip families

    𝔉1 = {F ⊆ [n1] : Σ_{j∈F} W_{:,j} A_j = 0},   𝔉2 = {F ⊆ [n2] : Σ_{k∈F} V_{:,k} W_{k,:} = 0}

(the flip sets of the shallow networks (A, a; W, w) and (W, w; V, c), decided by
:func:`reluid.analysis.shallow.flipsets.find_flip_set` with its certificates).

H0 (nondegenerate rows)
    A_j ≠ 0, rank[u_i; u_j] = 2 for i ≠ j, V_{:,k} ≠ 0.
Regions
    the nonempty layer-1 regions R_s = {s_j u_j > 0 ∀j}, found by a sign tree whose nodes are
    exact strict systems (:mod:`reluid.analysis.deep.strict`): every nonempty region has a
    rational witness, every pruned branch a Farkas vector.
H1 (full regions)
    s is full when every ∇g^s_k ≠ 0 (F1), every g^s_k vanishes in R_s (F2, a rational witness
    z_{s,k}) and the g^s_k are pairwise non-proportional (F3); some region is full.
H2 ∧ H3 (a connected rigid family)
    an edge (s, s^(j)) joins full regions, rigid when rank[u_j; g^s_k; g^s_k′] = 3 for all
    k < k′; some connected component of the rigid edges carries every label j.  The
    certificate's edge set E is a spanning tree of that component plus one rigid edge for each
    label the tree misses (the referee's change C1).
H4 (bend flats)
    the bend triples (s, j, k) with (B1) W_kj ≠ 0, (B2) rank_∇[u_j; g^s_k] = 2, (B3) for k′ ≠ k
    g^s_k′ ∈ span(u_j) or rank[u_j; g^s_k; g^s_k′] = 3, (B4) a rational point p with u_j(p) = 0,
    g^s_k(p) = 0, s_i u_i(p) > 0 (i ≠ j); their flats S = {u_j = 0 = g^s_k} (kept once each, by
    the reduced row echelon form of [u_j; g^s_k]); and for every nonempty I ⊆ [n1] no cover of
    ∪_{j∈I} 𝒮_j by at most |I| hyperplanes other than the H_i, decided by the finite search of
    Lemma 8.6(e) over the candidate hyperplanes spanned by two flats on different H_j.

Verdicts: ``no-hidden-symmetries`` when H0–H4 hold and 𝔉1 = 𝔉2 = {∅} (Corollary 8.3);
``hidden-symmetry`` with the witness θ^{F1,F2} when they hold and a flip set exists;
``unknown`` otherwise (a hypothesis fails, the work exceeds its budget, or a flip search is
undecided), with the reason and the size left.  Every number is exact; nothing here is a float.

>>> from reluid.model.network import Network
>>> net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 2], [2, 1], [1, 1]], [-1, -3, -5]),
...                           ([[1, 1, 1]], [0])])
>>> r = analyse_two_layers(net)
>>> r.verdict.value, [h.holds for h in r.hypotheses], len(r.flats)
('no-hidden-symmetries', [True, True, True, True], 6)
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from reluid.analysis.deep.strict import StrictBudget, nullspace, rank, rref, solve_strict
from reluid.budget import MIN_SECONDS, SHARES
from reluid.errors import InvalidArgument
from reluid.model.network import Layer, Network
from reluid.verdicts import H82Phase, Outcome, Reason, ReasonCode, Verdict, WFailure

__all__ = ["Hypothesis", "FullRegion", "Edge", "BendFlat", "TwoLayerResult", "analyse_two_layers", "flipped",
           "signs_text", "HYPOTHESES"]

ZERO = Fraction(0)
HYPOTHESES = ("H0", "H1", "H2∧H3", "H4")
#: The cover search of H4 visits at most this many nodes per set I.
COVER_NODES = 200_000


def signs_text(s: Sequence[int]) -> str:
    """(+1, -1, +1) as ``"+-+"``."""
    return "".join("+" if v > 0 else "-" for v in s)


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """One hypothesis of Theorem 8.2: ``holds`` True/False, or None when the budget ran out first.

    ``detail`` is what decided it; ``notes`` add the particulars (the first
    regions that are not full, the bend flats): reasons, worded by :mod:`reluid.report.reasons`.
    """

    name: str
    holds: bool | None
    detail: Reason
    notes: tuple[Reason, ...] = ()


@dataclass(frozen=True, slots=True)
class FullRegion:
    """A full region: its signs, an interior point, and one zero z_{s,k} of each g^s_k in R_s (F2)."""

    signs: tuple[int, ...]
    point: tuple[Fraction, ...]
    zeros: tuple[tuple[Fraction, ...], ...]


@dataclass(frozen=True, slots=True)
class Edge:
    """The rigid edge between the full regions s (with s_j = +1) and s^(j); ``label`` is j (0-based)."""

    signs: tuple[int, ...]
    label: int


@dataclass(frozen=True, slots=True)
class BendFlat:
    """A bend triple (s, j, k) with its point p on the wall (B4); ``key`` is rref[u_j; g^s_k] (the flat)."""

    signs: tuple[int, ...]
    neuron: int
    unit: int
    point: tuple[Fraction, ...]
    key: tuple[tuple[Fraction, ...], ...]


@dataclass(frozen=True, slots=True)
class TwoLayerResult:
    """Everything :func:`analyse_two_layers` established.

    Attributes
    ----------
    verdict : Verdict
        ``NO_HIDDEN`` / ``HIDDEN`` when the theorem applies, ``UNKNOWN`` otherwise.
    reason : Reason or None
        Why the verdict is unknown (the failing hypothesis, the budget, an undecided flip search), as
        data (:mod:`reluid.report.reasons` words it).
    hypotheses : tuple of Hypothesis
        H0, H1, H2∧H3, H4 in that order (those not reached are absent).
    regions : tuple of (signs, point)
        The nonempty layer-1 regions with exact interior points.
    empty : tuple of (signs prefix, y)
        The pruned branches of the sign tree with their Farkas vectors (Lemma 8.1(b)).
    full : tuple of FullRegion
    not_full : tuple of (signs, reason)
    component : tuple of signs
        The vertices of the chosen component 𝒞 (H2 ∧ H3).
    edges : tuple of Edge
        The certificate's edge set E (connected, rigid, every label; change C1).
    flats : tuple of BendFlat
        One bend triple per distinct flat.
    h4_cover : Reason or None
        A cover of some ∪_{j∈I} 𝒮_j, when H4 fails.
    h4_trees : tuple or None
        When H4 holds but not by the count: one cover tree per set I the count leaves open
        (:mod:`reluid.analysis.deep.h4_trees`), for the certificate; None when there is none to give.
    candidates : int
        Candidate hyperplanes of the H4 search.
    flips1, flips2 : FlipSetResult or None
        The flip-set answers for (A, a; W, w) and (W, w; V, c).
    family1, family2 : tuple of frozenset or None
        𝔉1, 𝔉2 with ∅ (when enumerated).
    witness : Network or None
        θ^{F1,F2} (hidden symmetry).
    witness_flips : (frozenset, frozenset) or None
    systems : int
        Strict systems solved.
    seconds : float
    """

    architecture: tuple[int, ...]
    verdict: Verdict
    reason: Reason | None
    hypotheses: tuple[Hypothesis, ...]
    regions: tuple = ()
    empty: tuple = ()
    full: tuple[FullRegion, ...] = ()
    not_full: tuple = ()
    component: tuple = ()
    edges: tuple[Edge, ...] = ()
    flats: tuple[BendFlat, ...] = ()
    h4_cover: Reason | None = None
    h4_trees: tuple | None = None
    candidates: int = 0
    flips1: object = None
    flips2: object = None
    family1: tuple | None = None
    family2: tuple | None = None
    witness: Network | None = None
    witness_flips: tuple | None = None
    systems: int = 0
    seconds: float = 0.0
    pinning: object = None

    @property
    def layer_flips(self) -> tuple:
        """The flip-set answers of hidden layers 1 and 2, in order."""
        return (self.flips1, self.flips2)

    @property
    def applies_82(self) -> bool:
        """H0–H4 of Theorem 8.2 all hold."""
        return len(self.hypotheses) == len(HYPOTHESES) and all(h.holds for h in self.hypotheses)

    @property
    def applies_w(self) -> bool:
        """H0, H0′, H4 and a pinning certificate of Theorem W hold (:mod:`reluid.analysis.deep.pinning`)."""
        return self.pinning is not None and self.pinning.holds

    @property
    def applies(self) -> bool:
        """Theorem 8.2 or Theorem W applies."""
        return self.applies_82 or self.applies_w

    def first_failure(self) -> str | None:
        """The name of the first hypothesis that fails (or is undecided), or None."""
        if self.applies_w:
            return None
        for h in self.hypotheses:
            if not h.holds:
                return h.name
        return None if self.applies else "budget"


# ---------------------------------------------------------------------------
# the flips (§8.1)
# ---------------------------------------------------------------------------

def flipped(net: Network, F1, F2) -> Network:
    """θ^{F1,F2}: negate (A_j, a_j) for j ∈ F1 and set w ← w + Σ_{F1} W_{:,j} a_j; then negate
    (W_k, w_k) for k ∈ F2 and set c ← c + Σ_{F2} V_{:,k} w_k (the new w) (docs/mathematics.md §8.1)."""
    L1, L2, L3 = net.layers
    F1, F2 = set(F1), set(F2)
    A = tuple(tuple(-x for x in r) if j in F1 else r for j, r in enumerate(L1.weight))
    a = tuple(-x if j in F1 else x for j, x in enumerate(L1.bias))
    w1 = [L2.bias[k] + sum((L2.weight[k][j] * L1.bias[j] for j in F1), ZERO) for k in range(L2.n_out)]
    c = tuple(L3.bias[o] + sum((L3.weight[o][k] * w1[k] for k in F2), ZERO) for o in range(L3.n_out))
    W = tuple(tuple(-x for x in r) if k in F2 else r for k, r in enumerate(L2.weight))
    w = tuple(-x if k in F2 else x for k, x in enumerate(w1))
    return Network((Layer(A, a, L1.n_in), Layer(W, w, L2.n_in), Layer(L3.weight, c, L3.n_in)),
                   name=net.name, description=net.description)


# ---------------------------------------------------------------------------
# the analysis
# ---------------------------------------------------------------------------

class _Budget(Exception):
    """The §8 checks stopped: ``why`` is the Reason (H82_TIMEOUT, W_STRICT_BUDGET or FM_ROW_BUDGET)."""

    def __init__(self, why: Reason):
        super().__init__(why)
        self.why = why


class _Analysis:
    def __init__(self, net: Network, max_systems: int, deadline: float | None, max_rows: int):
        self.net = net
        self.n0, self.n1, self.n2, self.n3 = net.architecture
        L1, L2, L3 = net.layers
        self.A, self.a = L1.weight, L1.bias
        self.W, self.w = L2.weight, L2.bias
        self.V = L3.weight
        self.u = [tuple(self.A[j]) + (self.a[j],) for j in range(self.n1)]
        self.max_systems, self.deadline, self.max_rows = max_systems, deadline, max_rows
        self.systems = 0
        self.h4_trees = None

    def tick(self, phase: H82Phase, count: int | None = None) -> None:
        """Raise :class:`_Budget` once the deadline has passed (the H4 loops grow with the bend flats)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Budget(Reason(ReasonCode.H82_TIMEOUT, {"phase": phase, "count": count}))

    def strict(self, B, b, C=(), c=()):
        self.systems += 1
        if self.systems > self.max_systems:
            raise _Budget(Reason(ReasonCode.W_STRICT_BUDGET, {"systems": self.systems, "limit": self.max_systems}))
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Budget(Reason(ReasonCode.W_STRICT_BUDGET, {"systems": self.systems, "limit": None}))
        try:
            return solve_strict(B, b, C, c, n=self.n0, max_rows=self.max_rows)
        except StrictBudget as e:
            raise _Budget(Reason(ReasonCode.FM_ROW_BUDGET, e.params)) from None

    def g(self, s) -> list[tuple[Fraction, ...]]:
        """g^s_k = Σ_{j: s_j = +} W_kj u_j + w_k as vectors (gradient..., constant)."""
        out = []
        for k in range(self.n2):
            v = [ZERO] * (self.n0 + 1)
            for j in range(self.n1):
                if s[j] > 0 and self.W[k][j]:
                    v = [x + self.W[k][j] * y for x, y in zip(v, self.u[j])]
            v[-1] += self.w[k]
            out.append(tuple(v))
        return out

    def rows(self, s, skip=None):
        B = [[s[j] * x for x in self.A[j]] for j in range(self.n1) if j != skip]
        b = [s[j] * self.a[j] for j in range(self.n1) if j != skip]
        return B, b

    # ---- H0 --------------------------------------------------------------
    def h0(self) -> Hypothesis:
        bad = [["zero-row", "A", "a", j + 1, None] for j in range(self.n1) if not any(self.A[j])]
        bad += [["proportional", "A", "a", i + 1, j + 1]
                for i in range(self.n1) for j in range(i + 1, self.n1) if rank([self.u[i], self.u[j]]) < 2]
        bad += [["zero-column", "V", "c", k + 1, None] for k in range(self.n2)
                if not any(self.V[o][k] for o in range(self.n3))]
        if bad:
            return Hypothesis("H0", False, Reason(ReasonCode.W_DEGENERATE_ROWS,
                                                  {"items": bad[:4], "more": max(0, len(bad) - 4)}))
        return Hypothesis("H0", True, Reason(ReasonCode.H0_HOLDS, {"n1": self.n1}))

    # ---- regions ----------------------------------------------------------
    def regions(self):
        regions, empty = [], []

        def walk(prefix, point):
            j = len(prefix)
            if j == self.n1:
                regions.append((tuple(prefix), tuple(point)))
                return
            for sg in (1, -1):
                val = sum((x * y for x, y in zip(self.A[j], point)), self.a[j])
                if sg * val > 0:
                    walk(prefix + [sg], point)
                    continue
                s = prefix + [sg]
                B = [[s[i] * x for x in self.A[i]] for i in range(j + 1)]
                b = [s[i] * self.a[i] for i in range(j + 1)]
                kind, res = self.strict(B, b)
                if kind == "point":
                    walk(s, res)
                else:
                    empty.append((tuple(s), tuple(res[0])))

        walk([], [ZERO] * self.n0)
        return regions, empty

    # ---- H1 ----------------------------------------------------------------
    def fullness(self, s, point):
        gs = self.g(s)
        for k in range(self.n2):
            if not any(gs[k][:-1]):
                return None, Reason(ReasonCode.F_CONSTANT, {"k": k + 1})
        B, b = self.rows(s)
        zeros = []
        for k in range(self.n2):
            kind, res = self.strict(B, b, [list(gs[k][:-1])], [gs[k][-1]])
            if kind != "point":
                return None, Reason(ReasonCode.F_NO_ZERO, {"k": k + 1, "y": [str(v) for v in res[0]]})
            zeros.append(tuple(res))
        for k, k2 in itertools.combinations(range(self.n2), 2):
            if rank([gs[k], gs[k2]]) < 2:
                return None, Reason(ReasonCode.F_PROPORTIONAL, {"k": k + 1, "k2": k2 + 1})
        return FullRegion(tuple(s), tuple(point), tuple(zeros)), None

    # ---- H2 ∧ H3 ------------------------------------------------------------
    def rigid(self, s, j) -> bool:
        gs = self.g(s)
        return all(rank([self.u[j], gs[k], gs[k2]]) == 3 for k, k2 in itertools.combinations(range(self.n2), 2))

    def component(self, full):
        fulls = [f.signs for f in full]
        index = {s: i for i, s in enumerate(fulls)}
        edges, rigid = [], []
        for s in fulls:
            for j in range(self.n1):
                if s[j] > 0:
                    t = s[:j] + (-1,) + s[j + 1:]
                    if t in index:
                        edges.append((s, j))
                        if self.rigid(s, j):
                            rigid.append((s, j))
        parent = list(range(len(fulls)))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def flip(s, j):
            return s[:j] + (-1,) + s[j + 1:]

        for s, j in rigid:
            parent[find(index[s])] = find(index[flip(s, j)])
        labels: dict[int, set] = {}
        for s, j in rigid:
            labels.setdefault(find(index[s]), set()).add(j)
        good = [r for r, ls in labels.items() if ls == set(range(self.n1))]
        stats = Reason(ReasonCode.H23_STATS, {"full": len(fulls), "edges": len(edges), "rigid": len(rigid)})
        if not good:
            best = max((len(ls) for ls in labels.values()), default=0)
            return None, (), (stats, Reason(ReasonCode.H23_NO_COMPONENT, {"n1": self.n1, "best": best}))
        size = {r: sum(1 for s in fulls if find(index[s]) == r) for r in good}
        root = max(good, key=lambda r: (size[r], -r))
        comp = [s for s in fulls if find(index[s]) == root]
        inner = [(s, j) for s, j in rigid if find(index[s]) == root]
        adj: dict[tuple, list] = {s: [] for s in comp}
        for s, j in inner:
            adj[s].append((flip(s, j), (s, j)))
            adj[flip(s, j)].append((s, (s, j)))
        seen, tree, stack = {comp[0]}, [], [comp[0]]
        while stack:
            x = stack.pop(0)
            for y, e in adj[x]:
                if y not in seen:
                    seen.add(y)
                    tree.append(e)
                    stack.append(y)
        have = {j for _, j in tree}
        for s, j in inner:
            if j not in have:
                tree.append((s, j))
                have.add(j)
        E = tuple(Edge(s, j) for s, j in tree)
        return tuple(comp), E, (stats, Reason(ReasonCode.H23_COMPONENT, {"size": len(comp)}),
                                Reason(ReasonCode.H23_EDGE_SET, {"edges": len(E)}))

    # ---- H4 -----------------------------------------------------------------
    def flats(self, nonempty):
        found: dict[tuple, BendFlat] = {}
        for s in nonempty:
            self.tick(H82Phase.BEND_FLATS, len(found))
            gs = None
            for j in range(self.n1):
                if s[j] < 0 or s[:j] + (-1,) + s[j + 1:] not in nonempty:
                    continue
                gs = gs or self.g(s)
                uj = self.u[j]
                for k in range(self.n2):
                    if self.W[k][j] == 0 or rank([uj[:-1], gs[k][:-1]]) != 2:
                        continue                                        # B1, B2
                    if any(k2 != k and rank([uj, gs[k2]]) > 1 and rank([uj, gs[k], gs[k2]]) != 3
                           for k2 in range(self.n2)):
                        continue                                        # B3
                    key = (j,) + tuple(tuple(r) for r in rref([uj, gs[k]])[0])
                    if key in found:
                        continue
                    B, b = self.rows(s, skip=j)
                    kind, p = self.strict(B, b, [list(uj[:-1]), list(gs[k][:-1])], [uj[-1], gs[k][-1]])
                    if kind == "point":                                  # B4
                        found[key] = BendFlat(tuple(s), j, k, tuple(p), key[1:])
        return tuple(found.values())

    def h4(self, flats) -> tuple[Hypothesis, Reason | None, int]:
        from reluid.analysis.deep.pinning import count_condition

        n1 = self.n1
        counts = [len({f.key for f in flats if f.neuron == j}) for j in range(n1)]
        if count_condition(counts):
            return Hypothesis("H4", True, Reason(ReasonCode.H4_BY_COUNT, {"counts": counts})), None, 0
        return self.h4_search(flats, counts)

    def h4_search(self, flats, counts) -> tuple[Hypothesis, Reason | None, int]:
        """Lemma 8.6(e)'s cover search over every nonempty I (exponential in n1: the fallback of the count)."""
        n1 = self.n1
        cands = {}
        for f1, f2 in itertools.combinations(flats, 2):
            if f1.neuron == f2.neuron:
                continue
            self.tick(H82Phase.H4_CANDIDATES, len(flats))
            rows = [list(r) for r in f1.key] + [list(r) for r in f2.key]
            if rank(rows) != 3:
                continue
            # ℓ = α f1[0] + β f1[1] = γ f2[0] + δ f2[1]: the kernel of [f1; -f2]ᵀ is one-dimensional
            cols = [[rows[0][t], rows[1][t], -rows[2][t], -rows[3][t]] for t in range(self.n0 + 1)]
            al = nullspace(cols, 4)[0]
            ell = [al[0] * x + al[1] * y for x, y in zip(rows[0], rows[1])]
            lead = next(x for x in ell if x != 0)
            cands[tuple(x / lead for x in ell)] = None
        blocks = []
        for ell in cands:
            self.tick(H82Phase.H4_BLOCKS, len(cands))
            blocks.append(frozenset(i for i, f in enumerate(flats) if rank([list(r) for r in f.key] + [list(ell)]) == 2))
        for r in range(1, n1 + 1):
            for I in itertools.combinations(range(n1), r):
                self.tick(H82Phase.H4_COVER_SEARCH)
                U = frozenset(i for i, f in enumerate(flats) if f.neuron in I)
                cover = _cover(U, [b & U for b in blocks if len(b & U) >= 2], r, [COVER_NODES])
                if cover is not None:
                    why = Reason(ReasonCode.H4_COVERED, {
                        "I": [j + 1 for j in I], "flats": len(U),
                        "cover": [[[[str(v) for v in flats[i].point], flats[i].neuron + 1] for i in sorted(c)]
                                  for c in cover]})
                    return (Hypothesis("H4", False, why, (Reason(ReasonCode.H4_FLAT_COUNTS, {"counts": counts}),)),
                            why, len(cands))
        self.h4_trees = self.cover_trees(flats, cands, blocks)
        return (Hypothesis("H4", True, Reason(ReasonCode.H4_NO_COVER, {"counts": counts, "candidates": len(cands)})),
                None, len(cands))

    def cover_trees(self, flats, cands, blocks):
        """The certificate's cover trees over the checker's blocks (the candidates that are no H_i); None past the
        node limit (the checker then searches itself)."""
        from reluid.analysis.deep.h4_trees import Limit, cover_trees

        own = [b for ell, b in zip(cands, blocks) if not any(rank([list(ell), list(u)]) == 1 for u in self.u)]
        try:
            return cover_trees([f.neuron for f in flats], own, self.n1, max_nodes=COVER_NODES,
                               tick=lambda: self.tick(H82Phase.H4_COVER_TREES))
        except Limit:
            return None



def _cover(U, blocks, budget, nodes):
    """At most ``budget`` sets from ``blocks`` and singletons covering U, or None (Lemma 8.6(e))."""
    if not U:
        return []
    if budget == 0:
        return None
    nodes[0] -= 1
    if nodes[0] < 0:
        raise _Budget(Reason(ReasonCode.H4_COVER_NODES, {"limit": COVER_NODES}))
    mx = max([len(b) for b in blocks] + [1])
    if len(U) > budget * mx:
        return None
    x = min(U)
    for b in [b for b in blocks if x in b] + [frozenset([x])]:
        rest = _cover(U - b, [bb - b for bb in blocks if len(bb - b) >= 2], budget - 1, nodes)
        if rest is not None:
            return [b] + rest
    return None


def _shallow_views(net: Network):
    L1, L2, L3 = net.layers
    return Network((L1, L2)).shallow(), Network((L2, L3)).shallow()


def analyse_two_layers(net: Network, *, timeout: float | None = 60.0, max_systems: int = 20000,
                       max_rows: int = 4000, max_width: int = 14, stop_early: bool = True,
                       flip_timeout: float | None = None, enumerate_families: bool = True,
                       theorem_w: bool = True) -> TwoLayerResult:
    """Decide H0–H4 of docs/mathematics.md §8 and the flip families, exactly.

    Parameters
    ----------
    net : Network
        Two hidden layers, input dimension n0 >= 2 (otherwise the theorem does not apply and the
        answer is ``unknown``).
    timeout : float, optional
        Seconds for all strict systems together.
    max_systems, max_rows : int
        Budget: strict systems solved, rows of one Fourier–Motzkin step.
    max_width : int
        n1 above this is beyond the budget (2^{n1} regions and sets I).
    stop_early : bool
        Stop at the first failing hypothesis.
    flip_timeout : float, optional
        Seconds for each flip-set search (default: ``timeout``).
    enumerate_families : bool
        When a flip set exists, enumerate 𝔉1 and 𝔉2 (for the orbit count).
    theorem_w : bool
        When Theorem 8.2 does not apply (or n1 > max_width), try Theorem W
        (:mod:`reluid.analysis.deep.pinning`); False gives Theorem 8.2 alone (the baseline of
        benchmarks/bench_two_layers.py).
    """
    t0 = time.monotonic()
    if not isinstance(net, Network):
        raise InvalidArgument(f"expected a Network, got {type(net).__name__}")
    arch = net.architecture
    if len(arch) != 4:
        raise InvalidArgument(f"the two-hidden-layer theorem needs exactly two hidden layers, got {arch}")
    n0, n1, n2, n3 = arch
    done = lambda verdict, reason, hyps, **kw: TwoLayerResult(arch, verdict, reason, tuple(hyps),
                                                               seconds=time.monotonic() - t0, **kw)
    if n0 < 2:
        return done(Verdict.UNKNOWN, Reason(ReasonCode.INPUT_DIMENSION_ONE), [])
    # Theorem 8.2's enumeration may use its share of the time, so that Theorem W (polynomial) is never starved
    share = SHARES["theorem 8.2"] if theorem_w else 1.0
    an = _Analysis(net, max_systems, None if timeout is None else t0 + share * timeout, max_rows)
    hyps: list[Hypothesis] = []
    got: dict = {}

    def result(verdict, reason, **kw):
        return done(verdict, reason, hyps, systems=an.systems, **{**got, **kw})

    def _families():
        pin = got.get("pinning")
        return _flip_families(net, result, got, None if timeout is None else t0 + timeout, flip_timeout,
                              enumerate_families, pin is not None and pin.holds)

    def failed(h):
        hyps.append(h)
        return not h.holds and stop_early

    def try_theorem_w(reason):
        """Theorem W when Theorem 8.2 does not apply; the flip families when it does."""
        from reluid.analysis.deep.pinning import analyse_pinning

        if not theorem_w:
            return result(Verdict.UNKNOWN, reason)
        from reluid.analysis.deep.xsearch import available

        if timeout is not None and t0 + timeout - time.monotonic() <= MIN_SECONDS:    # no time left: not started
            return result(Verdict.UNKNOWN, Reason(ReasonCode.THEOREM_W_FAILS, {
                "theorem_8_2": reason, "failed": WFailure.BUDGET, "detail": Reason(ReasonCode.THEOREM_W_NOT_STARTED, {})}))
        left = None if timeout is None else max(MIN_SECONDS, t0 + timeout - time.monotonic())
        regs = got.get("regions")
        search = regs is not None and n1 > n0 and available()     # the LP-guided search as the second try
        first = left if left is None or not search else left * SHARES["theorem w first try"]
        pin = analyse_pinning(net, regions=regs, timeout=first, max_rows=max_rows,
                              max_systems=max(0, max_systems - an.systems))
        if search and not pin.holds and pin.failed in (WFailure.H4, WFailure.PINNING, WFailure.BUDGET):
            left = None if timeout is None else max(MIN_SECONDS, t0 + timeout - time.monotonic())
            again = analyse_pinning(net, timeout=left)
            pin = again if again.holds else pin
        got.update(pinning=pin)
        if not pin.holds:
            return result(Verdict.UNKNOWN, Reason(ReasonCode.THEOREM_W_FAILS, {"theorem_8_2": reason,
                                                                                "failed": pin.failed,
                                                                                "detail": pin.detail}))
        return None

    def fails(h: Hypothesis) -> Reason:
        return Reason(ReasonCode.HYPOTHESIS_FAILS, {"hypothesis": h.name, "detail": h.detail, "notes": h.notes})

    if n1 > max_width:
        return try_theorem_w(Reason(ReasonCode.THEOREM_82_SIZE_LIMIT, {"n1": n1, "max_width": max_width})) \
            or _families()
    try:
        if failed(an.h0()):
            return try_theorem_w(fails(hyps[-1])) or _families()
        regions, empty = an.regions()
        got.update(regions=tuple(regions), empty=tuple(empty))
        full, not_full = [], []
        for s, p in regions:
            f, why = an.fullness(s, p)
            (full.append(f) if f is not None else not_full.append((s, why)))
            got.update(full=tuple(full), not_full=tuple(not_full))
        count = Reason(ReasonCode.H1_COUNT, {"full": len(full), "regions": len(regions)})
        notes = () if full else tuple(Reason(ReasonCode.REGION_NOT_FULL, {"signs": signs_text(s), "why": why})
                                      for s, why in not_full[:3])
        h1 = Hypothesis("H1", bool(full), count, notes)
        if failed(h1):
            return try_theorem_w(fails(h1)) or _families()
        comp, E, (detail, *notes) = an.component(full)
        got.update(component=comp, edges=E)
        if failed(Hypothesis("H2∧H3", comp is not None, detail, tuple(notes))):
            return try_theorem_w(fails(hyps[-1])) or _families()
        flats = an.flats({s for s, _ in regions})
        got.update(flats=flats)
        h4, cover, ncand = an.h4(flats)
        got.update(h4_cover=cover, candidates=ncand, h4_trees=an.h4_trees)
        hyps.append(h4)
    except _Budget as e:
        return try_theorem_w(Reason(ReasonCode.THEOREM_82_BUDGET, {
            "stopped": e.why, "decided": [h.name for h in hyps], "regions": len(got.get("regions", ())),
            "full": len(got.get("full", ())), "flats": len(got.get("flats", ())),
            "tested": len(got.get("full", ())) + len(got.get("not_full", ())), "n1": n1})) or _families()
    if not all(h.holds for h in hyps):
        return try_theorem_w(fails(next(h for h in hyps if not h.holds))) or _families()
    return _families()


def _flip_families(net, result, got, end, flip_timeout, enumerate_families, by_theorem_w):
    """The flip families (§3 certificates on the shallow views), once Theorem 8.2 or W applies.

    ``end`` is the ``time.monotonic()`` time the whole analysis ends by (None: unbounded): each search has
    what is left of it (at most ``flip_timeout`` seconds), never more.
    """
    from reluid.analysis.shallow.flipsets import enumerate_flip_sets, find_flip_set

    def left(cap):
        if end is None:
            return cap
        rest = max(MIN_SECONDS, end - time.monotonic())
        return rest if cap is None else min(cap, rest)

    t1, t2 = _shallow_views(net)
    ft = flip_timeout
    r1 = find_flip_set(t1, timeout=left(ft))
    r2 = find_flip_set(t2, timeout=left(ft))
    got.update(flips1=r1, flips2=r2)
    if r1.outcome is Outcome.NONE and r2.outcome is Outcome.NONE:
        return result(Verdict.NO_HIDDEN, None, family1=(frozenset(),), family2=(frozenset(),))
    if Outcome.FOUND in (r1.outcome, r2.outcome):
        F1 = r1.flip_set if r1.outcome is Outcome.FOUND else frozenset()
        F2 = r2.flip_set if r2.outcome is Outcome.FOUND else frozenset()
        fam1 = fam2 = None
        if enumerate_families:
            fams = []
            for r, t in ((r1, t1), (r2, t2)):
                if r.outcome is Outcome.NONE:
                    fams.append((frozenset(),))
                else:
                    e = enumerate_flip_sets(t, timeout=left(min(ft or 5.0, 5.0)))
                    fams.append(None if e is None else (frozenset(),) + tuple(e.flip_sets))
            fam1, fam2 = fams
        return result(Verdict.HIDDEN, None, witness=flipped(net, F1, F2), witness_flips=(F1, F2),
                      family1=fam1, family2=fam2)
    undecided = [[l, r.reason] for l, r in ((1, r1), (2, r2)) if r.outcome is Outcome.UNKNOWN]
    return result(Verdict.UNKNOWN, Reason(ReasonCode.FLIP_SEARCH_UNDECIDED, {"theorem_w": by_theorem_w,
                                                                             "layers": undecided}))
