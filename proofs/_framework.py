"""Helpers shared by the statement modules: formatting, a builder for outcomes, random exact instances.

The statement modules import :class:`Statement` and :class:`StatementResult` from
here (they live in :mod:`reluid.proofs._runner`) together with:

* :func:`fmt`, :func:`fmt_vec`, :func:`fmt_mat`, :func:`fmt_theta`,
  :func:`fmt_net`, :func:`fmt_model`: render exact numbers (integers and
  ``p/q``);
* :class:`Checks`: accumulates sub-results (z3 answers, exact checks,
  differential agreement) against a deadline and freezes them into an
  :class:`StatementResult`;
* :func:`random_shallow`: seeded random parameters with small integer
  entries and planted coincidences (repeated, proportional, opposite, dead,
  constant and zero neurons), so that degenerate cases are actually hit.
"""

from __future__ import annotations

import random
import time
from fractions import Fraction
from typing import Iterable, Sequence

from reluid.model.network import Network, Shallow
from reluid.verdicts import Outcome

from ._runner import COUNTEREXAMPLE, HOLDS, UNKNOWN, Statement, StatementResult

__all__ = ["Statement", "StatementResult", "HOLDS", "COUNTEREXAMPLE", "UNKNOWN", "RAMAKRISHNAN", "GLR",
           "SEED_R", "SEED_G", "fmt", "fmt_vec", "fmt_point", "fmt_mat", "fmt_theta", "fmt_net", "fmt_model",
           "Checks", "random_shallow", "shallow", "sim_move", "with_flip_set", "flip", "perturb",
           "critical_points", "test_points_1d", "equal_1d", "F"]

F = Fraction
RAMAKRISHNAN = "Ramakrishnan 2026"
GLR = "Grigsby, Lindsey, Rolnick 2023"
SEED_R = "seeds/001_37695e8e85e040ec.txt"
SEED_G = "seeds/000_09e56a515bf6deed.txt"

TRUST_ORDER = ("exact", "z3", "differential")


# ---------------------------------------------------------------------------
# formatting (exact: integers and p/q)
# ---------------------------------------------------------------------------

def fmt(x) -> str:
    """An exact number as ``3`` or ``-1/2``; booleans as ``true``/``false``."""
    if isinstance(x, bool):
        return "true" if x else "false"
    q = Fraction(x)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def fmt_vec(xs: Iterable) -> str:
    return "(" + ", ".join(fmt(x) for x in xs) + ")"


def fmt_point(x: Sequence) -> str:
    """An input point: ``-1`` in one dimension, ``(1, 2)`` otherwise."""
    return fmt(x[0]) if len(x) == 1 else fmt_vec(x)


def fmt_mat(rows: Iterable[Iterable]) -> str:
    return "[" + ", ".join("[" + ", ".join(fmt(x) for x in r) + "]" for r in rows) + "]"


def fmt_theta(t: Shallow) -> str:
    """θ = (v, A, b, C) for one output, (M, A, b, c) otherwise."""
    A = fmt_mat(t.A) if t.m > 1 else fmt_vec(r[0] for r in t.A)
    a_name = "A" if t.m > 1 else "a"
    if t.k == 1:
        return f"v = {fmt_vec(t.M[0])}, {a_name} = {A}, b = {fmt_vec(t.b)}, C = {fmt(t.c[0])}"
    return f"M = {fmt_mat(t.M)}, {a_name} = {A}, b = {fmt_vec(t.b)}, c = {fmt_vec(t.c)}"


def fmt_net(net: Network) -> str:
    return "; ".join(f"W{l + 1} = {fmt_mat(L.weight)}, b{l + 1} = {fmt_vec(L.bias)}"
                     for l, L in enumerate(net.layers))


def fmt_model(model, names: Sequence[str] | None = None) -> str:
    keys = list(model) if names is None else [k for k in names if k in model]
    return ", ".join(f"{k} = {fmt(model[k])}" for k in keys)


def shallow(v, a, b, C=0) -> Shallow:
    """θ ∈ Ω(m, n, 1) from v, rows a (numbers for m = 1 or lists), b, C."""
    rows = [[x] if not isinstance(x, (list, tuple)) else list(x) for x in a]
    return Shallow.make(list(v), rows, list(b), [C])


# ---------------------------------------------------------------------------
# outcome builder
# ---------------------------------------------------------------------------

class Checks:
    """Accumulate the sub-results of one statement, then freeze them into a :class:`StatementResult`.

    Parameters
    ----------
    timeout : float
        Seconds for the whole statement; :meth:`budget` hands what is left to
        each z3 query, and :meth:`expired` lets loops stop (giving ``unknown``).
    """

    def __init__(self, timeout: float):
        self.deadline = time.monotonic() + timeout
        self.lines: list[str] = []
        self.trust: set[str] = set()
        self.unknown: list[str] = []
        self.failures: list[tuple[str, str, bool]] = []
        self.findings: list[str] = []
        self.remarks: list[str] = []

    # -- time ---------------------------------------------------------
    def budget(self) -> float:
        """Seconds left (at least one, so that a query can still report ``unknown``)."""
        return max(1.0, self.deadline - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def out_of_time(self, what: str) -> None:
        self.unknown.append(f"time limit reached during {what}")

    # -- recording ------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append(text)

    def z3_unsat(self, label: str, res, explain=None) -> bool:
        """Record a query whose expected answer is ``unsat`` (the statement holds at this size)."""
        self.trust.add("z3")
        if res.outcome is Outcome.NONE:
            self.lines.append(f"{label}: unsat")
            return True
        if res.outcome is Outcome.UNKNOWN:
            self.lines.append(f"{label}: unknown")
            self.unknown.append(f"z3 returned unknown on {label} ({res.reason})")
            return False
        text = explain(res) if explain else f"z3 model: {fmt_model(res.model)}"
        self.lines.append(f"{label}: sat")
        self.failures.append((label, text, False))
        return False

    def z3_unsat_all(self, label: str, results: Iterable, explain=None) -> bool:
        """Record a family of queries expected ``unsat`` as one line (stops at the first other answer)."""
        count = 0
        for res in results:
            if res.outcome is not Outcome.NONE:
                return self.z3_unsat(f"{label} [{res.query}]", res, explain)
            count += 1
        self.trust.add("z3")
        self.lines.append(f"{label}: unsat ({count} quer{'y' if count == 1 else 'ies'})")
        return True

    def z3_sat(self, label: str, res) -> bool:
        """Record a query whose expected answer is ``sat`` (a vacuity or sanity check)."""
        self.trust.add("z3")
        if res.outcome is Outcome.FOUND:
            self.lines.append(f"{label}: sat")
            return True
        if res.outcome is Outcome.UNKNOWN:
            self.lines.append(f"{label}: unknown")
            self.unknown.append(f"z3 returned unknown on {label} ({res.reason})")
            return False
        self.lines.append(f"{label}: unsat (expected sat)")
        self.failures.append((label, f"{label} was expected to be satisfiable", False))
        return False

    def exact(self, label: str, ok: bool, counterexample: str = "", kind: str = "exact") -> bool:
        """Record an exact check (or, with ``kind="differential"``, agreement on random instances)."""
        self.trust.add(kind)
        self.lines.append(f"{label}: {'yes' if ok else 'NO'}")
        if not ok:
            self.failures.append((label, counterexample or label, True))
        return ok

    def fail(self, label: str, counterexample: str, rechecked: bool) -> None:
        self.failures.append((label, counterexample, rechecked))

    def finding(self, text: str) -> None:
        self.findings.append(text)

    def remark(self, text: str) -> None:
        self.remarks.append(text)

    # -- freezing -------------------------------------------------------
    def _trust(self) -> tuple[str, ...]:
        return tuple(t for t in TRUST_ORDER if t in self.trust)

    def outcome(self, proved: str) -> StatementResult:
        """``holds`` with ``proved`` unless something failed (counterexample) or was unknown."""
        common = dict(evidence=tuple(self.lines), trust=self._trust(), findings=tuple(self.findings),
                      remarks=tuple(self.remarks))
        if self.failures:
            label, text, rechecked = self.failures[0]
            return StatementResult(COUNTEREXAMPLE, f"The statement fails: {label}.", counterexample=text,
                           rechecked=rechecked, **common)
        if self.unknown:
            return StatementResult(UNKNOWN, proved, reason="; ".join(self.unknown), **common)
        return StatementResult(HOLDS, proved, **common)

    def counterexample(self, proved: str, counterexample: str, rechecked: bool, witnesses=()) -> StatementResult:
        """A counterexample found on purpose (the expected outcome of a refuted statement).

        ``witnesses`` are (label, Shallow or Network) pairs, stored exactly in the JSON report.
        """
        nets = tuple((label, (w.to_network() if isinstance(w, Shallow) else w).to_dict()) for label, w in witnesses)
        return StatementResult(COUNTEREXAMPLE, proved, evidence=tuple(self.lines), trust=self._trust(),
                       counterexample=counterexample, rechecked=rechecked, findings=tuple(self.findings),
                       remarks=tuple(self.remarks), witnesses=nets)

    def unknown_outcome(self, proved: str, reason: str) -> StatementResult:
        return StatementResult(UNKNOWN, proved, evidence=tuple(self.lines), trust=self._trust(),
                       reason="; ".join(self.unknown + [reason]), findings=tuple(self.findings),
                       remarks=tuple(self.remarks))


# ---------------------------------------------------------------------------
# random exact instances with planted coincidences
# ---------------------------------------------------------------------------

def _small(rng: random.Random, lo: int = -3, hi: int = 3, halves: bool = True) -> Fraction:
    x = Fraction(rng.randint(lo, hi))
    if halves and rng.random() < 0.2:
        x /= 2
    return x


def random_shallow(rng: random.Random, m: int, n: int, k: int = 1, *, plant: float = 0.5,
                   zero_ok: bool = True) -> Shallow:
    """A random θ ∈ Ω(m, n, k) with small exact entries.

    With probability ``plant`` a neuron copies an earlier one: identical,
    positively or negatively proportional (rows times ±λ, outputs free or
    divided by λ), or it is made dead (m_i = 0), constant (a_i = 0) or zero.
    """
    rows, outs = [], []
    pos_scales = (Fraction(1), Fraction(2), Fraction(1, 2), Fraction(3))
    for i in range(n):
        a = [_small(rng) for _ in range(m)]
        if not any(a):
            a[rng.randrange(m)] = Fraction(1)
        row = a + [_small(rng)]
        out = [_small(rng) or Fraction(1) for _ in range(k)]
        if i and rng.random() < plant:
            j = rng.randrange(i)
            kind = rng.choice(("same", "pos", "pos-swap", "neg", "dead", "const", "zero") if zero_ok
                              else ("same", "pos", "pos-swap", "neg"))
            lam = rng.choice(pos_scales)
            if kind == "same":
                row, out = list(rows[j]), list(outs[j])
            elif kind == "pos":
                row = [lam * x for x in rows[j]]
            elif kind == "pos-swap":
                row = [lam * x for x in rows[j]]
                out = [x / lam for x in outs[j]]
            elif kind == "neg":
                row = [-lam * x for x in rows[j]]
                if rng.random() < 0.5:
                    out = [-x / lam for x in outs[j]]
            elif kind == "dead":
                out = [Fraction(0)] * k
            elif kind == "const":
                row = [Fraction(0)] * m + [row[-1]]
            else:
                row, out = [Fraction(0)] * (m + 1), [Fraction(0)] * k
        rows.append(row)
        outs.append(out)
    M = [[outs[i][j] for i in range(n)] for j in range(k)]
    return Shallow.make(M, [r[:m] for r in rows], [r[m] for r in rows], [_small(rng) for _ in range(k)], m=m)


# ---------------------------------------------------------------------------
# moves inside an equivalence class (Definition 3) and across it (flip sets)
# ---------------------------------------------------------------------------

def _neurons(t: Shallow):
    return [(t.M[0][i], t.row(i)) for i in range(t.n)]


def _from_neurons(neurons, C, m) -> Shallow:
    if not neurons:
        return Shallow(((),), (), (), (Fraction(C),), m)
    return Shallow.make([w for w, _ in neurons], [list(r[:m]) for _, r in neurons], [r[m] for _, r in neurons],
                        [C], m=m)


def sim_move(rng: random.Random, theta: Shallow) -> Shallow:
    """One random move of Definition 3's equivalence ∼ or of H_n (k = 1); ρ is unchanged.

    split a neuron into two positively proportional ones; add a dead neuron
    (v = 0, any row); add a constant neuron (a = 0) and compensate C; or apply
    a random permutation with positive scalings.
    """
    m = theta.m
    neurons = _neurons(theta)
    C = theta.c[0]
    kind = rng.choice(("split", "dead", "constant", "orbit")) if neurons else rng.choice(("dead", "constant"))
    if kind == "split":
        i = rng.randrange(len(neurons))
        v, r = neurons[i]
        lam = rng.choice((Fraction(1), Fraction(2), Fraction(1, 2), Fraction(3)))
        w = _small(rng)
        neurons[i] = (v - w, r)
        neurons.append((w / lam, tuple(lam * x for x in r)))
    elif kind == "dead":
        neurons.append((Fraction(0), tuple(_small(rng) for _ in range(m + 1))))
    elif kind == "constant":
        u, beta = _small(rng), _small(rng)
        neurons.append((u, (Fraction(0),) * m + (beta,)))
        C -= u * max(beta, Fraction(0))
    else:
        rng.shuffle(neurons)
        out = []
        for v, r in neurons:
            s = rng.choice((Fraction(1), Fraction(2), Fraction(1, 3)))
            out.append((v / s, tuple(s * x for x in r)))
        neurons = out
    return _from_neurons(neurons, C, m)


def with_flip_set(rng: random.Random, m: int, n: int) -> tuple[Shallow, tuple[int, ...]] | None:
    """θ ∈ Ω(m, n, 1) with a planted flip set F (Σ_{i∈F} v_i a_i = 0, |F| ≥ 2), or None."""
    if n < 2:
        return None
    size = rng.randint(2, n)
    F = tuple(sorted(rng.sample(range(n), size)))
    v = [_small(rng) or Fraction(1) for _ in range(n)]
    A = [[_small(rng) for _ in range(m)] for _ in range(n)]
    b = [_small(rng) for _ in range(n)]
    last = F[-1]
    s = [sum((v[i] * A[i][l] for i in F if i != last), Fraction(0)) for l in range(m)]
    if not any(s):
        return None
    A[last] = [-x / v[last] for x in s]
    return Shallow.make(v, A, b, [_small(rng)], m=m), F


def flip(theta: Shallow, F: Sequence[int]) -> Shallow:
    """Negate the rows in F and set C′ = C + Σ_{i∈F} v_i b_i (same function when F is a flip set)."""
    A, b = [list(r) for r in theta.A], list(theta.b)
    C = theta.c[0]
    for i in F:
        A[i] = [-x for x in A[i]]
        C += theta.M[0][i] * b[i]
        b[i] = -b[i]
    return Shallow.make(list(theta.M[0]), A, b, [C], m=theta.m)


def perturb(rng: random.Random, theta: Shallow) -> Shallow:
    """Change one entry of θ by a small nonzero amount (usually changes the function)."""
    neurons = _neurons(theta)
    C = theta.c[0]
    if not neurons or rng.random() < 0.2:
        return _from_neurons(neurons, C + rng.choice((Fraction(1), Fraction(-1, 2))), theta.m)
    i = rng.randrange(len(neurons))
    v, r = neurons[i]
    if rng.random() < 0.5:
        v += rng.choice((Fraction(1), Fraction(-1), Fraction(1, 2)))
    else:
        j = rng.randrange(len(r))
        r = r[:j] + (r[j] + rng.choice((Fraction(1), Fraction(-1))),) + r[j + 1:]
    neurons[i] = (v, r)
    return _from_neurons(neurons, C, theta.m)


# ---------------------------------------------------------------------------
# exact one-dimensional analysis of deep networks (n0 = 1)
# ---------------------------------------------------------------------------

def critical_points(net: Network) -> list[Fraction]:
    """Every x ∈ R where some hidden pre-activation of a network with n0 = 1 vanishes on a cell boundary.

    Layer by layer: between consecutive points found so far every pre-activation of the next layer is
    affine, so its zero in that cell (if any) is computed exactly from two interior values.  The
    network's function and all pre-activations are affine between consecutive returned points.
    """
    if net.input_dim != 1:
        raise ValueError("critical_points needs n0 = 1")
    pts: list[Fraction] = []
    for l in range(len(net.layers) - 1):
        cells = []
        if not pts:
            cells.append((None, None, Fraction(0), Fraction(1)))
        else:
            cells.append((None, pts[0], pts[0] - 2, pts[0] - 1))
            cells += [(lo, hi, lo + (hi - lo) / 3, lo + 2 * (hi - lo) / 3) for lo, hi in zip(pts, pts[1:])]
            cells.append((pts[-1], None, pts[-1] + 1, pts[-1] + 2))
        new = set()
        for lo, hi, t0, t1 in cells:
            z0, z1 = net.preactivations((t0,))[l], net.preactivations((t1,))[l]
            for a, b in zip(z0, z1):
                slope = (b - a) / (t1 - t0)
                if slope:
                    t = t0 - a / slope
                    if (lo is None or t > lo) and (hi is None or t < hi):
                        new.add(t)
                elif a == 0:
                    pass        # vanishes on the whole cell: no new breakpoint
        pts = sorted(set(pts) | new)
    return pts


def test_points_1d(*nets: Network) -> list[Fraction]:
    """Points that decide equality of the given n0 = 1 networks: all critical points, a point beyond each end,
    and the midpoint of every cell (so that sign conditions on open cells are decided too)."""
    pts = sorted(set().union(*(critical_points(n) for n in nets)))
    if not pts:
        return [Fraction(0), Fraction(1)]
    mids = [(a + b) / 2 for a, b in zip(pts, pts[1:])]
    return sorted(set(pts + mids + [pts[0] - 1, pts[-1] + 1]))


def equal_1d(net1: Network, net2: Network) -> tuple[bool, Fraction | None]:
    """Exact decision of F_1 = F_2 on R for n0 = 1: both are affine between consecutive points of
    :func:`test_points_1d`, so agreement there (and one point beyond each end) is agreement everywhere."""
    for x in test_points_1d(net1, net2):
        if net1((x,)) != net2((x,)):
            return False, x
    return True, None
