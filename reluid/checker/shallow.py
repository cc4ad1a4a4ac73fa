"""Independent re-verification of shallow facts (one hidden layer).

Deliberately a second, short implementation of the exact facts the verdicts
rest on (it shares no code with :mod:`reluid.analysis`):

* :func:`classify` -- the stratum of θ (docs/mathematics.md §2, §4): empty,
  one of the degenerate strata (where a hidden symmetry always exists), the
  essential stratum (opposite pairs with nonzero kinks and independent
  directions) or the generic stratum;
* :func:`kink_form` -- ρ(θ) = Σ_r K_r σ(r·(x,1)) + L x + c̄ over canonical rows
  (first nonzero entry of a_r equal to 1); equal functions iff equal forms;
* :func:`orbit_form` -- each neuron scaled positively so the first nonzero
  entry of (a_i, b_i) (else of m_i) has absolute value 1, neurons sorted;
* :func:`verify_shallow_witness` -- θ′ has the same kink form and another orbit form;
* the information claims about the stratum and the paper's condition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from reluid.certificates.schema import ClaimKind
from reluid.checker import readers as R
from reluid.checker.linalg import rank
from reluid.checker.registry import Context, charge, fail, verifies
from reluid.checker.search import searched
from reluid.model.network import Shallow
from reluid.verdicts import Stratum as _names

__all__ = ["Stratum", "classify", "kink_form", "orbit_form", "verify_shallow_witness", "ALWAYS_HIDDEN",
           "PAPER_CONDITION_LIMIT"]

#: Strata on which θ always has a hidden symmetry, with the reason (docs/mathematics.md §4).
ALWAYS_HIDDEN = {
    _names.DEAD_OUTPUT: "a neuron with m_i = 0 has a free row (Ramakrishnan 2026, Lemma 10)",
    _names.CONSTANT_NEURON: "a neuron with a_i = 0 is a constant absorbed by c (Ramakrishnan 2026, Lemma 11(2))",
    _names.PROPORTIONAL: "positively proportional rows merge (Ramakrishnan 2026, Lemma 11(1))",
    _names.CANCELLING_PAIR: "an opposite pair whose kinks cancel computes an affine map, so its hyperplane moves "
                       "(docs/mathematics.md §4)",
    _names.DEPENDENT_PAIRS: "opposite pairs with dependent directions trade linear terms (docs/mathematics.md §4)",
}

#: Largest n for which the checker re-enumerates the paper's condition (3^(n/2) sums per half).
PAPER_CONDITION_LIMIT = 24


def _lead(v):
    return next((x for x in v if x), None)


def kink_form(t: Shallow):
    """(frozenset of (r, K_r) with K_r ≠ 0, L, c̄) -- see module docstring."""
    m, k = t.m, t.k
    K: dict = {}
    L = [[Fraction(0)] * m for _ in range(k)]
    c = list(t.c)
    for i in range(t.n):
        out = t.out(i)
        lead = _lead(t.A[i])
        if lead is None:                                    # constant neuron m_i σ(b_i)
            c = [cj + oj * max(t.b[i], 0) for cj, oj in zip(c, out)]
            continue
        r = tuple(x / lead for x in t.row(i))
        s = abs(lead)
        K[r] = [x + s * o for x, o in zip(K.get(r, [0] * k), out)]
        if lead < 0:                                        # s·m σ(−z) = s·m σ(z) − s·m z
            for j in range(k):
                L[j] = [x - s * out[j] * rl for x, rl in zip(L[j], r[:m])]
                c[j] -= s * out[j] * r[m]
    kinks = frozenset((r, tuple(v)) for r, v in K.items() if any(v))
    return kinks, tuple(map(tuple, L)), tuple(c)


def orbit_form(t: Shallow):
    """A canonical form of the H_n-orbit of θ (sorted normalised neurons, c)."""
    neurons = []
    for i in range(t.n):
        row, out = t.row(i), t.out(i)
        lead = _lead(row)
        s = 1 / abs(lead) if lead is not None else (abs(_lead(out)) if _lead(out) is not None else 1)
        neurons.append((tuple(x * s for x in row), tuple(x / s for x in out)))
    return tuple(sorted(neurons)), t.c


def verify_shallow_witness(theta: Shallow, witness: Shallow) -> str:
    """Raise ValueError unless ρ(witness) = ρ(θ) and witness ∉ H_n·θ."""
    if (witness.m, witness.n, witness.k) != (theta.m, theta.n, theta.k):
        raise ValueError(f"witness is in Ω{(witness.m, witness.n, witness.k)}, not Ω{(theta.m, theta.n, theta.k)}")
    if kink_form(witness) != kink_form(theta):
        raise ValueError("witness computes a different function")
    if orbit_form(witness) == orbit_form(theta):
        raise ValueError("witness lies in the H_n-orbit of the network (not a hidden symmetry)")
    return "θ′ has the same kinks, linear part and constant as θ (so the same function) and a different orbit form"


# ---------------------------------------------------------------------------
# the stratum
# ---------------------------------------------------------------------------

def _line(ints, lam=None):
    """(key, λ') with row = λ'·key, key an integer vector with gcd 1 whose first nonzero entry is > 0.

    ``row = lam·ints`` (``lam`` > 0, as :func:`reluid.checker.readers.neuron_rows` gives them), or,
    without ``lam``, ``ints`` is the row of Fractions itself.  Integer keys hash fast; rows on the same
    line through 0 get the same key.
    """
    if lam is None:
        (ints,), (lam,) = R.lcm_rows([ints])
    g = math.gcd(*ints)
    if next(filter(None, ints), 0) < 0:
        g = -g
    if g == 1:
        return tuple(ints), lam
    if g == -1:
        return tuple(map(int.__neg__, ints)), -lam
    return tuple([v // g for v in ints]), lam * g


#: Entries after the first nonzero one that name a row's bucket (see :func:`_bucket`).
_BUCKET_ENTRIES = 3


def _bucket(head, lead_at: int):
    """A key shared by every row on the line through 0 of the row that starts with ``head``.

    ``head`` holds the row's first nonzero entry (at ``lead_at``) and a few
    entries after it; the key is ``lead_at`` and those entries divided by the
    first nonzero one, as reduced integer pairs.  A nonzero rational multiple
    of the row has the same zeros and the same ratios, so rows on one line
    always share a key; rows with equal keys are then compared exactly.
    """
    lead = head[lead_at]
    key = [lead_at]
    for v in head[lead_at + 1:lead_at + 1 + _BUCKET_ENTRIES]:
        g = math.gcd(v, lead)
        num, den = v // g, lead // g
        key.append((num, den) if den > 0 else (-num, -den))
    return tuple(key)


@dataclass(frozen=True, slots=True)
class Stratum:
    """Where θ lies: ``name`` (``empty``, a key of :data:`ALWAYS_HIDDEN`, ``opposite-pairs`` or ``generic``).

    ``where`` names the neurons (1-based) behind a degenerate stratum;
    ``pairs`` lists the opposite pairs (0-based (i, j) with (a_i, b_i) the
    positive side) and ``classes`` the lines through 0 that hold two or more
    neurons, each as (its primitive integer vector, its neurons with their λ),
    in the order of their first neuron.
    """

    name: _names
    where: str = ""
    pairs: tuple[tuple[int, int], ...] = ()
    classes: tuple = ()


def classify(t: Shallow, ctx: Context | None = None) -> Stratum:
    """The stratum of θ, decided exactly (docs/mathematics.md §2 and §4).

    With the verifying ``ctx``, the work is charged to its budget, and the
    answer is kept in the certificate's :attr:`Budget.shared <reluid.checker.registry.Budget.shared>`:
    one check asks for the stratum more than once, and the answer is kept there,
    with the parts of θ it was decided from (its layers' integer forms, or M,
    A, b and c; kept alive with it, so that their identity names θ), for that
    check only.
    """
    if ctx is None:
        return _classify(t)
    shared = ctx.budget.shared
    parts = (t.hidden, t.output) if t.hidden is not None and t.output is not None else (t.M, t.A, t.b, t.c)
    key = ("stratum", t.m) + tuple(map(id, parts))
    got = shared.get(key)
    if got is not None and all(a is b for a, b in zip(got[0], parts)):
        return got[1]
    charge(ctx, t.n * (t.m + t.k + 1), "the stratum of θ (every row read once)")
    st = _classify(t)
    shared[key] = (parts, st)
    return st


def _classify(t: Shallow) -> Stratum:
    """Dead outputs, constant neurons, then the lines through 0 of the rows (a_i, b_i).

    Each row is put in a bucket by :func:`_bucket`, from its first entries;
    only the rows of a bucket with two or more members are read in full and
    grouped exactly by their primitive vectors (:func:`_line`).
    """
    if t.n == 0:
        return Stratum(_names.EMPTY)
    outs, _ = R.output_columns(t)
    for i in range(t.n):
        if not any(outs[i]):
            return Stratum(_names.DEAD_OUTPUT, f"neuron {i + 1}")
    rows = R.IntRows(t)
    buckets: dict = {}
    for i in range(t.n):
        head = rows.head(i, 1 + _BUCKET_ENTRIES)
        if head and head[0] and t.m:
            lead_at = 0
        else:
            head = rows.row(i)
            lead_at = next((l for l, v in enumerate(head) if v), t.m + 1)
            if lead_at >= t.m:
                return Stratum(_names.CONSTANT_NEURON, f"neuron {i + 1}")
        buckets.setdefault(_bucket(head, lead_at), []).append(i)
    lines: dict = {}
    for members in buckets.values():
        if len(members) > 1:
            for i in members:
                key, lam = _line(rows.row(i), rows.scales[i])
                lines.setdefault(key, []).append((i, lam))
    shared = sorted((members[0][0], key, members) for key, members in lines.items() if len(members) > 1)
    for _, _, members in shared:
        for sign in (1, -1):
            same = [i for i, lam in members if (lam > 0) == (sign > 0)]
            if len(same) > 1:
                return Stratum(_names.PROPORTIONAL, f"neurons {same[0] + 1} and {same[1] + 1}")
    pairs, dirs = [], []
    for _, key, members in shared:           # two neurons, one on each side
        (i, li), (j, lj) = sorted(members, key=lambda t_: t_[1] < 0)
        if not any(abs(li) * x + abs(lj) * y for x, y in zip(t.out(i), t.out(j))):
            return Stratum(_names.CANCELLING_PAIR, f"neurons {i + 1} and {j + 1}")
        pairs.append((i, j))
        dirs.append([Fraction(x) for x in key[:t.m]])
    frozen = tuple((key, tuple(members)) for _, key, members in shared)
    if pairs and rank(dirs) < len(dirs):
        return Stratum(_names.DEPENDENT_PAIRS, "the opposite pairs", tuple(pairs), frozen)
    return Stratum(_names.OPPOSITE_PAIRS if pairs else _names.GENERIC, "", tuple(pairs), frozen)


def _stratum_claim(ctx: Context, expected: str) -> str:
    st = classify(ctx.theta, ctx)
    if st.name != expected:
        fail(ctx, f"θ lies in the {st.name} stratum" + (f" ({st.where})" if st.where else "") + f", not {expected}")
    return st


@verifies(ClaimKind.EMPTY)
def _empty(ev, ctx: Context) -> str:
    if ctx.network.depth == 1:
        return "no hidden layer: the affine map x ↦ Wx + b determines W and b"
    if not ctx.network.is_shallow:
        fail(ctx, f"the network has hidden layers {ctx.network.hidden_widths}")
    _stratum_claim(ctx, _names.EMPTY)
    return "n = 0: the fibre of a constant is a point"


@verifies(ClaimKind.GENERIC_STRATUM)
def _generic(ev, ctx: Context) -> str:
    _stratum_claim(ctx, _names.GENERIC)
    return f"all {ctx.theta.n} neurons have m_i ≠ 0, a_i ≠ 0 and pairwise independent rows (recomputed)"


@verifies(ClaimKind.ESSENTIAL_STRATUM)
def _essential(ev, ctx: Context) -> str:
    st = _stratum_claim(ctx, _names.OPPOSITE_PAIRS)
    return (f"{len(st.pairs)} opposite pair(s) with nonzero kinks and independent directions; no other degeneracy "
            "(recomputed)")


# ---------------------------------------------------------------------------
# the paper's sufficient condition (information)
# ---------------------------------------------------------------------------

def _vanishing_beta(t: Shallow, j: int):
    """Some β ∈ {0,±1}ⁿ∖0 with Σ β(i) M_ji a_i = 0, or None.

    Meet in the middle: the signed sums of each half of the vectors
    w_i = M_ji a_i (scaled to integers) are tabulated, and a vanishing β is a
    left sum that cancels a right sum with (β_left, β_right) ≠ 0.
    """
    rows = [[t.M[j][i] * a for a in t.A[i]] for i in range(t.n)]
    den = math.lcm(*(x.denominator for r in rows for x in r)) if rows and t.m else 1
    w = [tuple(x.numerator * (den // x.denominator) for x in r) for r in rows]
    h = t.n // 2

    def sums(idx):
        table = [((0,) * t.m, ())]
        for i in idx:
            table = [(tuple(s + b * x for s, x in zip(vec, w[i])), beta + (b,)) for vec, beta in table
                     for b in (0, 1, -1)]
        return table

    left: dict = {}
    for vec, beta in sums(range(h)):
        known = left.setdefault(vec, [])
        if len(known) < 2:
            known.append(beta)
    for vec, beta in sums(range(h, t.n)):
        for other in left.get(tuple(-x for x in vec), ()):
            if any(other) or any(beta):
                return other + beta
    return None


@verifies(ClaimKind.PAPER_CONDITION)
def _paper_condition(ev, ctx: Context) -> str:
    """Ramakrishnan 2026, Proposition 24: Σ β(i) v_i a_i ≠ 0 for β ∈ {0,±1}ⁿ∖0 (per output)."""
    t = ctx.theta
    holds = ev.get("holds")
    if holds is False:
        if not ev.get("violation"):
            fail(ctx, "claims the condition fails but gives no β")
        viol = R.fields(ctx, ev["violation"], "violation", ("beta",), ("output",))
        beta = R.integers(ctx, viol["beta"], "β")
        j = R.integer(ctx, viol.get("output", 0), "output")
        if len(beta) != t.n or any(x not in (-1, 0, 1) for x in beta) or not any(beta) or not 0 <= j < t.k:
            fail(ctx, "β is not a nonzero vector in {0,±1}ⁿ for a valid output")
        charge(ctx, t.n * t.m, "Σ β(i) v_i a_i")
        s = [sum(beta[i] * t.M[j][i] * t.A[i][l] for i in range(t.n)) for l in range(t.m)]
        if any(s):
            fail(ctx, "Σ β(i) v_i a_i ≠ 0 for the β given")
        return f"fails: Σ β(i) v_i a_i = 0 for β = {tuple(beta)} (output {j + 1}), recomputed"
    if holds is True:
        if t.n > PAPER_CONDITION_LIMIT:
            fail(ctx, f"claims the condition holds, which the checker re-enumerates only up to n = "
                      f"{PAPER_CONDITION_LIMIT}")
        h = t.n // 2
        charge(ctx, 3 * t.k * (3 ** h + 3 ** (t.n - h)) * (t.m + 1),   # ~3 loop steps per vector entry
               f"meet in the middle over 3^{h} + 3^{t.n - h} signed sums for {t.k} output(s)")
        searched(ctx, f"meet in the middle over 3^{h} + 3^{t.n - h} signed sums")
        for j in range(t.k):
            beta = _vanishing_beta(t, j)
            if beta is not None:
                fail(ctx, f"claims the condition holds but β = {list(beta)} vanishes (output {j + 1})")
        return "holds: no β ∈ {0,±1}ⁿ∖0 vanishes, for every output (re-enumerated by meet in the middle)"
    if holds is None:
        return "not enumerated: the certificate asserts nothing about the condition"
    fail(ctx, f"holds must be true, false or null, got {R.show(holds)}")
