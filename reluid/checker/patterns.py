"""Verifier for ``no-other-pattern`` claims (docs/mathematics.md §4, Theorem 4).

Recomputed from θ alone, with this module's own exact arithmetic (Fractions,
integers and python-flint's ``nmod_mat``; the §3 flip-set verifiers of
:mod:`reluid.checker.flipsets` are reused for two methods):

* the essential stratum: every m_i ≠ 0 and a_i ≠ 0; each hyperplane (integer line
  key of :mod:`reluid.checker.shallow`, classes numbered in sorted key order) holds
  one neuron or an opposite pair with K_r ≠ 0; some pair; pair directions independent;
* K_r = Σ |λ_i| m_i and L = −Σ_{λ_i<0} |λ_i| m_i a_rᵀ for (a_i, b_i) = λ_i r;
* the list of cases (P, q): 0 ≤ q ≤ ⌊p/2⌋, P ⊆ [s] with |P| = p − 2q; the evidence
  must hold exactly one entry for each, and nothing else;
* per case: Z_P (for each free column f of rref(A_P), the primitive integer vector
  with z_f > 0, zero on the other free columns, A_P z = 0), ā_r = Z_P a_r, X₀ = L Z_Pᵀ,
  C_r = K_r ā_rᵀ, X(e) = X₀ + Σ_{r∈J} e_r C_r (J = [s] ∖ P), and the method:

``own-only``  (P, q) = (P_θ, 0) and θ has no single neuron: the only e is θ's own;
``flip``      (P_θ, 0): a §3 ``rank``/``lattice``/``enumerate``/``mitm`` evidence that
              θ̄_P (θ's single neurons in index order, outputs m_i, rows Z_P a_i) has no
              flip set;
``box``       q = 0, not own: y (row-major k·m′) with ⟨y, X₀⟩ + Σ_r max(0, ⟨y, C_r⟩) < 0;
``lattice``   q = 0, not own: a §3 ``rank``/``lattice`` evidence for θ̃ ∈ Ω(k·m′, |J′|+1, 1)
              (outputs 1, rows the columns of [U | −(2t − U𝟙)]), U e = t the integer form of
              X(e) = 0 over J′ = {r ∈ J : ā_r ≠ 0}; a solution would be the kernel vector
              (2e − 𝟙, 1) of squared length n(θ̃), which both evidences exclude;
``modp-enum`` q = 0, not own: a prime p; every 0/1 point of U e ≡ t (mod p) is checked exactly
              (at most 2^22 of them);
``proj-enum`` not own: T ⊆ J and columns F with ā_rᵀ F = 0 for r ∈ T; rank X(e)F > q for all
              e on J ∖ T (at most 2^22), through a determinant filter mod 2^61 − 1 and an
              exact rank wherever the filter vanishes.

Every case with min(k, m′) ≤ q is rejected outright (all its orientations solve it).
"""

from __future__ import annotations

import hashlib
import math
from fractions import Fraction
from itertools import combinations
from typing import Mapping

from flint import nmod_mat

from reluid.certificates.schema import ClaimKind
from reluid.checker import readers as R
from reluid.checker.flipsets import verify_no_flip_set
from reluid.checker.linalg import integer_kernel, pivots_mod_p, rank
from reluid.checker.registry import Context, WorkLimit, charge, fail, verifies
from reluid.checker.search import searched
from reluid.checker.shallow import _line
from reluid.errors import CheckFailed, ReluidError
from reluid.model.network import Shallow
from reluid.verdicts import FlipSetMethod, PatternMethod

__all__ = ["CASE_LIMIT", "ENUMERATE_LIMIT", "verify_no_other_pattern"]

CASE_LIMIT = 10_000
ENUMERATE_LIMIT = 22
_SKETCH_PRIME = 2**61 - 1
_EXTRA = {PatternMethod.OWN_ONLY: set(), PatternMethod.FLIP: {"evidence"}, PatternMethod.BOX: {"y"},
          PatternMethod.LATTICE: {"evidence"}, PatternMethod.MODP_ENUM: {"prime"}, PatternMethod.PROJ_ENUM: {"T", "F"}}
#: the flip-set certificates a pattern case may nest: every method but z3 (its answer is no checkable certificate)
_FLIP_METHODS = tuple(m for m in FlipSetMethod if m is not FlipSetMethod.Z3)
_ZERO = Fraction(0)


# ---- reading the evidence ----------------------------------------------------------

def _int(ctx, x, what) -> int:
    return R.integer(ctx, x, what)


def _list(ctx, x, what, length=None):
    return list(R.sequence(ctx, x, what, length))


def _rationals(ctx, x, what, length):
    return list(R.rationals(ctx, x, what, length))


def _mapping(ctx, x, what):
    return R.mapping(ctx, x, what)


# ---- θ: the stratum, classes, K, L ---------------------------------------------------

class _Theta:
    """What the checker derives from θ."""

    def __init__(self, ctx: Context):
        try:
            t = ctx.theta
        except ReluidError as e:
            fail(ctx, f"realisation patterns are defined for shallow networks only ({e})")
        self.t, self.m, self.k, self.n = t, t.m, t.k, t.n
        classes: dict = {}
        rows, scales = R.neuron_rows(t)
        for i in range(t.n):
            if not any(t.out(i)):
                fail(ctx, f"not on the essential stratum: neuron {i + 1} has m_i = 0")
            if not any(t.A[i]):
                fail(ctx, f"not on the essential stratum: neuron {i + 1} has a_i = 0")
            key, lam = _line(rows[i], scales[i])
            classes.setdefault(key, []).append((i, lam))
        self.keys = sorted(classes)
        self.K, self.own, self.singles = [], [], {}
        self.L = [[_ZERO] * self.m for _ in range(self.k)]
        for r, key in enumerate(self.keys):
            mem = classes[key]
            if len(mem) == 1:
                self.own.append("+" if mem[0][1] > 0 else "-")
                self.singles[r] = mem[0][0]
            elif len(mem) == 2 and (mem[0][1] > 0) != (mem[1][1] > 0):
                self.own.append("P")
            else:
                fail(ctx, f"not on the essential stratum: {len(mem)} neurons on one hyperplane, not an opposite pair")
            K = [sum((abs(lam) * t.M[j][i] for i, lam in mem), _ZERO) for j in range(self.k)]
            if not any(K):
                fail(ctx, f"not on the essential stratum: the kinks on hyperplane {key} cancel")
            self.K.append(K)
            for i, lam in mem:
                if lam < 0:
                    for j in range(self.k):
                        w = -lam * t.M[j][i]
                        self.L[j] = [x - w * a for x, a in zip(self.L[j], key)]
        self.P_theta = tuple(r for r, o in enumerate(self.own) if o == "P")
        if not self.P_theta:
            fail(ctx, "not on the essential stratum: no opposite pair (this is the generic stratum)")
        if rank([self.a(r) for r in self.P_theta]) < len(self.P_theta):
            fail(ctx, "not on the essential stratum: the pair directions are linearly dependent")

    @property
    def s(self):
        return len(self.keys)

    @property
    def p(self):
        return len(self.P_theta)

    def a(self, r):
        return self.keys[r][:self.m]


class _Case:
    def __init__(self, th: _Theta, P, q):
        self.P, self.q = P, q
        self.J = [r for r in range(th.s) if r not in set(P)]
        self.Z = integer_kernel([th.a(r) for r in P], th.m)
        self.mp = len(self.Z)
        self.abar = {r: tuple(sum(z * a for z, a in zip(zr, th.a(r))) for zr in self.Z) for r in self.J}
        self.X0 = [[sum((x * z for x, z in zip(row, zr)), _ZERO) for zr in self.Z] for row in th.L]
        self.own = q == 0 and tuple(P) == th.P_theta

    def where(self):
        return f"case P = {list(self.P)}, q = {self.q}"


# ---- the verifier ---------------------------------------------------------------------

@verifies(ClaimKind.NO_OTHER_PATTERN)
def verify_no_other_pattern(evidence, ctx: Context) -> str:
    """Every case (P, q) of Theorem 4 has no solution; see the module docstring."""
    return _verify(evidence, ctx)


def _verify(evidence, ctx: Context) -> str:
    ev = _mapping(ctx, evidence, "evidence")
    if set(ev) != {"p", "s", "cases"}:
        fail(ctx, f"no-other-pattern evidence must have the fields ['cases', 'p', 's'], got {sorted(ev)}")
    th = _Theta(ctx)
    if _int(ctx, ev["p"], "p") != th.p or _int(ctx, ev["s"], "s") != th.s:
        fail(ctx, f"evidence is for p = {ev['p']} pairs and s = {ev['s']} classes; θ has p = {th.p}, s = {th.s}")
    total = sum(math.comb(th.s, th.p - 2 * q) for q in range(th.p // 2 + 1))
    if total > CASE_LIMIT:
        fail(ctx, f"{total} cases exceed the checker's limit {CASE_LIMIT}")
    entries = {}
    for n_ent, raw in enumerate(_list(ctx, ev["cases"], "cases")):
        ent = _mapping(ctx, raw, f"cases[{n_ent}]")
        meth = ent.get("method")
        if meth not in _EXTRA:
            fail(ctx, f"cases[{n_ent}]: unknown method {meth!r}")
        if set(ent) != {"P", "q", "method"} | _EXTRA[meth]:
            fail(ctx, f"cases[{n_ent}]: a {meth} entry has the fields "
                      f"{sorted({'P', 'q', 'method'} | _EXTRA[meth])}, got {sorted(ent)}")
        P = tuple(_int(ctx, x, f"cases[{n_ent}].P") for x in _list(ctx, ent["P"], f"cases[{n_ent}].P"))
        key = (P, _int(ctx, ent["q"], f"cases[{n_ent}].q"))
        if key in entries:
            fail(ctx, f"case P = {list(P)}, q = {key[1]} appears twice")
        entries[key] = ent
    expected = [(P, q) for q in range(th.p // 2 + 1) for P in combinations(range(th.s), th.p - 2 * q)]
    for key in expected:
        if key not in entries:
            fail(ctx, f"case P = {list(key[0])}, q = {key[1]} is missing")
    if len(entries) != len(expected):
        extra = next(k for k in entries if k not in set(expected))
        fail(ctx, f"case P = {list(extra[0])}, q = {extra[1]} is not a case of θ")
    counts: dict[str, int] = {}
    for P, q in expected:
        ent = entries[(P, q)]
        charge(ctx, (len(P) + th.s) * th.m * (th.m + th.k), "building one case of Theorem 4")
        _verify_case(ctx, th, _Case(th, P, q), ent)
        counts[ent["method"]] = counts.get(ent["method"], 0) + 1
    methods = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    return (f"no other realisation pattern: all {total} cases (P, q) of Theorem 4 re-verified "
            f"(s = {th.s} classes, p = {th.p} pairs; {methods})")


def _verify_case(ctx, th: _Theta, case: _Case, ent) -> None:
    meth, where = ent["method"], case.where()
    if meth == PatternMethod.OWN_ONLY:
        if not (case.own and not case.J):
            fail(ctx, f"{where}: own-only needs the own case of a θ without single neurons")
        return
    if case.own:
        if meth != PatternMethod.FLIP:
            fail(ctx, f"{where}: the own case is certified by own-only or flip, not {meth}")
        if case.mp == 0:
            fail(ctx, f"{where}: m′ = 0, so flipping any single neuron is absorbed by the pairs")
        _nested(ctx, where, ent["evidence"], _FLIP_METHODS, _virtual_network(th, case))
        return
    if meth == PatternMethod.FLIP:
        fail(ctx, f"{where}: flip certifies the own case only")
    if min(th.k, case.mp) <= case.q:
        fail(ctx, f"{where}: min(k, m′) = {min(th.k, case.mp)} ≤ q, so every orientation solves this case")
    if meth in (PatternMethod.BOX, PatternMethod.LATTICE, PatternMethod.MODP_ENUM) and case.q != 0:
        fail(ctx, f"{where}: {meth} applies to q = 0 only")
    if meth == PatternMethod.BOX:
        _box(ctx, th, case, _rationals(ctx, ent["y"], f"{where}: y", th.k * case.mp))
    elif meth == PatternMethod.LATTICE:
        _nested(ctx, where, ent["evidence"], (FlipSetMethod.RANK, FlipSetMethod.LATTICE), _lattice_network(th, case))
    elif meth == PatternMethod.MODP_ENUM:
        _modp_enum(ctx, th, case, _int(ctx, ent["prime"], f"{where}: prime"))
    else:
        _proj_enum(ctx, th, case, ent)


def _nested(ctx, where, evidence, allowed, net):
    ev = _mapping(ctx, evidence, f"{where}: evidence")
    if ev.get("method") not in allowed:
        fail(ctx, f"{where}: the nested evidence must use one of {list(allowed)}, not {ev.get('method')!r}")
    try:
        verify_no_flip_set(ev, Context(net, ctx.claim_id, ctx.budget))
    except WorkLimit as e:
        raise WorkLimit(e.claim, f"{where}: {e.reason}") from None
    except CheckFailed as e:
        fail(ctx, f"{where}: {e.reason}")


def _virtual_network(th: _Theta, case: _Case):
    t = th.t
    idx = sorted(th.singles.values())
    A = tuple(tuple(sum((z * x for z, x in zip(zr, t.A[i])), _ZERO) for zr in case.Z) for i in idx)
    M = tuple(tuple(t.M[j][i] for i in idx) for j in range(th.k))
    return Shallow(M, A, (_ZERO,) * len(idx), (_ZERO,) * th.k, case.mp).to_network()


def _box(ctx, th: _Theta, case: _Case, y) -> None:
    Y = [y[j * case.mp:(j + 1) * case.mp] for j in range(th.k)]
    val = sum((a * b for ra, rb in zip(Y, case.X0) for a, b in zip(ra, rb)), _ZERO)
    for r in case.J:
        w = [sum((a * b for a, b in zip(row, case.abar[r])), _ZERO) for row in Y]
        val += max(_ZERO, sum((K * x for K, x in zip(th.K[r], w)), _ZERO))
    if not val < 0:
        fail(ctx, f"{case.where()}: box value ⟨y, X₀⟩ + Σ max(0, ⟨y, C_r⟩) = {val} is not negative")


def _system(th: _Theta, case: _Case):
    """(J′, U, t): D·vec C_r as the columns, −D·vec X₀, D the lcm of the denominators of X₀ and K_r (r ∈ J′)."""
    x0 = [x for row in case.X0 for x in row]
    Jp = [r for r in case.J if any(case.abar[r])]
    den = math.lcm(1, *[x.denominator for x in x0], *[x.denominator for r in Jp for x in th.K[r]])
    U = [[int(den * th.K[r][j] * case.abar[r][l]) for r in Jp] for j in range(th.k) for l in range(case.mp)]
    return Jp, U, [int(-den * x) for x in x0]


def _lattice_network(th: _Theta, case: _Case):
    Jp, U, t = _system(th, case)
    tp = [2 * ti - sum(row) for ti, row in zip(t, U)]
    rows = [tuple(Fraction(row[c]) for row in U) for c in range(len(Jp))] + [tuple(Fraction(-x) for x in tp)]
    n = len(rows)
    return Shallow(((Fraction(1),) * n,), tuple(rows), (_ZERO,) * n, (_ZERO,), len(t)).to_network()


def _modp_enum(ctx, th: _Theta, case: _Case, p: int) -> None:
    where = case.where()
    if not R.SEARCH_PRIME_MIN < p < R.PRIME_BOUND or not R.is_prime(p):
        fail(ctx, f"{where}: {R.show(p)} is not a prime between 2^30 and 2^63 (a small prime makes every point a "
                  "candidate)")
    Jp, U, t = _system(th, case)
    nJ = len(Jp)
    Rm, rk = nmod_mat([[x % p for x in row] + [y % p] for row, y in zip(U, t)], p).rref()
    piv = pivots_mod_p(Rm, rk)
    if nJ in piv:
        return                                   # 0 ≡ 1 (mod p): no solution at all
    free = [c for c in range(nJ) if c not in set(piv)]
    if len(free) > ENUMERATE_LIMIT:
        fail(ctx, f"{where}: {len(free)} free coordinates mod {p} exceed the checker's limit {ENUMERATE_LIMIT}")
    charge(ctx, 1 << len(free), f"{where}: enumerating 2^{len(free)} points mod {p}")
    searched(ctx, f"2^{len(free)} points mod {p}")
    coef = [[(-int(Rm[i, f])) % p for f in free] for i in range(rk)]
    rhs = [int(Rm[i, nJ]) for i in range(rk)]
    x = [0] * len(free)

    def candidate():
        vals = [(b + sum(cf for cf, xf in zip(row, x) if xf)) % p for b, row in zip(rhs, coef)]
        if all(v <= 1 for v in vals):
            e = [0] * nJ
            for f, xf in zip(free, x):
                e[f] = xf
            for c_, v in zip(piv, vals):
                e[c_] = v
            if all(sum(a * b for a, b in zip(row, e)) == ti for row, ti in zip(U, t)):
                fail(ctx, f"{where}: the orientation e = {e} on J′ = {Jp} solves X(e) = 0")

    first = rhs[0] if rk else 0
    if first <= 1:
        candidate()
    for step in range(1, 1 << len(free)):        # Gray code: one free coordinate changes per step
        f = (step & -step).bit_length() - 1
        x[f] ^= 1
        if rk:
            first = (first + (coef[0][f] if x[f] else -coef[0][f])) % p
            if first > 1:
                continue
        candidate()


def _sketch_entry(tag: int, i: int, j: int) -> int:
    h = hashlib.sha256(b"reluid pattern sketch %d %d %d" % (tag, i, j)).digest()
    return int.from_bytes(h[:8], "big") % _SKETCH_PRIME


def _det_mod(A, p) -> int:
    return int(nmod_mat(A, p).det())


def _proj_enum(ctx, th: _Theta, case: _Case, ent) -> None:
    where, q, k = case.where(), case.q, th.k
    T = [_int(ctx, x, f"{where}: T") for x in _list(ctx, ent["T"], f"{where}: T")]
    if any(b <= a for a, b in zip(T, T[1:])) or not set(T) <= set(case.J):
        fail(ctx, f"{where}: T = {T} is not an increasing list of classes outside P")
    F = [_rationals(ctx, col, f"{where}: F column", case.mp) for col in _list(ctx, ent["F"], f"{where}: F")]
    d = len(F)
    if d <= q:
        fail(ctx, f"{where}: F has {d} ≤ q columns")
    for r in T:
        if any(sum((a * x for a, x in zip(case.abar[r], col)), _ZERO) for col in F):
            fail(ctx, f"{where}: F does not annihilate Z_P a_r for class {r} ∈ T")
    rest = [r for r in case.J if r not in set(T)]
    if len(rest) > ENUMERATE_LIMIT:
        fail(ctx, f"{where}: 2^{len(rest)} orientations exceed the checker's limit 2^{ENUMERATE_LIMIT}")
    charge(ctx, 4 * (1 << len(rest)) * (q + 1) ** 3, f"{where}: 2^{len(rest)} sketched determinants of size {q + 1}")
    searched(ctx, f"2^{len(rest)} orientations")

    def times_F(X):
        return [[sum((x * c for x, c in zip(row, col)), _ZERO) for col in F] for row in X]

    XF0 = times_F(case.X0)
    CF = [[[K * sum((a * c for a, c in zip(case.abar[r], col)), _ZERO) for col in F] for K in th.K[r]]
          for r in rest]
    den = math.lcm(1, *[x.denominator for row in XF0 for x in row],
                   *[x.denominator for C in CF for row in C for x in row])
    X0i = [[int(x * den) for x in row] for row in XF0]
    Ci = [[[int(x * den) for x in row] for row in C] for C in CF]
    p = _SKETCH_PRIME
    Rs = [[_sketch_entry(0, i, j) for j in range(k)] for i in range(q + 1)]
    Ss = [[_sketch_entry(1, i, j) for j in range(q + 1)] for i in range(d)]

    def sketch(X):
        RX = [[sum(a * b for a, b in zip(rrow, col)) % p for col in zip(*X)] for rrow in Rs]
        return [[sum(a * b for a, b in zip(row, col)) % p for col in zip(*Ss)] for row in RX]

    cur = sketch(X0i)
    N = [sketch(C) for C in Ci]
    e = [0] * len(rest)

    def exact():
        X = [row[:] for row in X0i]
        for er, C in zip(e, Ci):
            if er:
                X = [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(X, C)]
        if rank(X) <= q:
            fail(ctx, f"{where}: the orientation {dict(zip(rest, e))} (0 on T) gives rank X(e)F ≤ {q}")

    if _det_mod(cur, p) == 0:
        exact()
    for step in range(1, 1 << len(rest)):
        f = (step & -step).bit_length() - 1
        e[f] ^= 1
        sign = 1 if e[f] else -1
        cur = [[(a + sign * b) % p for a, b in zip(ra, rb)] for ra, rb in zip(cur, N[f])]
        if _det_mod(cur, p) == 0:
            exact()
