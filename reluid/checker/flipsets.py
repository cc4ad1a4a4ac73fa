"""Verifiers for ``flip-set`` and ``no-flip-set`` claims (docs/mathematics.md §2-3).

A flip set of θ = (M, A, b, c) is a nonempty F ⊆ [n] with
Σ_{i∈F} M[:, i] A[i, :] = 0.  With u_i = vec(m_i a_iᵀ) (row ``j*m + l`` holds
``M[j][i] * A[i][l]``) that is Σ_{i∈F} u_i = 0.  Everything here is re-derived
from the network in the context; the certificate only says where to look.

``flip-set``: ``{"flip_set": [i, ...]}`` -- the sum is zero, exactly.

``no-flip-set``, by ``evidence["method"]``:

``separation`` ``{y}``
    Y (k rows of m integers below 2^64) has s_i = m_iᵀ Y a_i > 0 for every
    neuron: a flip set F would give 0 = ⟨Y, Σ_{i∈F} m_i a_iᵀ⟩ = Σ_{i∈F} s_i > 0.
    Each a_i and each m_i is scaled to integers by its own positive factor
    (signs are kept), and Z = A·Yᵀ is one integer matrix product.
``separation-split`` ``{y, rest, sub}``
    with the s_i on one common scale and τ the total of the negative ones,
    every neuron with s_i ≤ τ is in ``rest`` (then every flip set lies in
    ``rest``: docs/mathematics.md §3), and ``sub`` is a rank, lattice,
    lattice-enum, enumerate or mitm certificate for the subnetwork on
    ``rest``, verified here on that subnetwork.
``rank`` ``{p, rows}``
    p is prime and divides no denominator; ``rows`` are n distinct rows of U
    whose n × n minor is nonzero mod p.  Then the u_i are independent over Q.
``lattice`` ``{p, basis, inverse, rank_rows, rank_cols}``
    B = ``basis`` (r × n) and C = ``inverse`` (n × r) are integral with
    U Bᵀ = 0 and B C = I (B is saturated: yB ∈ Zⁿ forces y = yBC ∈ Zʳ); the
    minor on ``rank_rows`` × ``rank_cols`` (n − r each) is nonzero mod p, so
    rank U = n − r and B is a basis of L = ker U ∩ Zⁿ.  Finally
    ‖b*_t‖² = d_t / d_{t-1} > n for the leading minors d_t of the Gram matrix
    B Bᵀ, so every nonzero vector of L has squared length > n, while a flip
    set has squared length |F| ≤ n.
``lattice-enum`` ``{p, basis, inverse, rank_rows, rank_cols, nodes}``
    B is a basis of L as for ``lattice``; every 0/1 vector of L lies in the
    ball ‖x − t‖² ≤ n/4 − dist²(½·1, ker U) around the projection t of ½·1,
    whose lattice points are enumerated here exactly (integer bounds from the
    exact Gram–Schmidt data never prune a point of the ball), within
    ``nodes`` ≤ 2^25 nodes; no leaf is a nonzero 0/1 or 0/−1 vector.
``lattice-cvp`` ``{p, basis, inverse, rank_rows, rank_cols, radius, points, nodes}``
    the ball of ``lattice-enum``, enumerated by fplll
    (:mod:`reluid.checker.compiled_search`) over the squared radius
    ``radius``, which must be at least the proved safe bound of §3, so that
    no point of the ball is missed despite rounding; the points it meets must
    be exactly those listed (coefficient vectors), none is a nonzero 0/1 or
    0/−1 vector, and it visits at most ``nodes`` ≤ 2^31 − 1 nodes.
``enumerate`` ``{p, rows}``
    every flip set x satisfies U_S x ≡ 0 (mod p) for the listed rows S, so its
    pivot coordinates (in rref(U_S) mod p) are fixed by its free ones; all
    2^r choices of the free coordinates (r ≤ 22) are tried and every
    candidate that is 0/1 mod p is checked exactly.
``mitm`` ``{n}``
    n ≤ 44: a meet in the middle over a hash of the columns mod 2^61 − 1, each
    hash collision checked exactly.
``z3``
    a solver's ``unsat`` is not a proof: accepted only when the checker can
    re-decide the question itself (n ≤ 44, by its own meet in the middle).

:func:`flip_sets_of` re-runs the enumeration or the meet in the middle and
returns every flip set it finds, so that a claimed count of the fibre's
orbits can be re-verified too.

This module imports only the standard library, :mod:`reluid.model`,
:mod:`reluid.certificates.schema`, the registry, :mod:`reluid.errors`,
:mod:`reluid.checker.compiled_search` (fplll's enumeration, for ``lattice-cvp`` only) and
python-flint's exact matrices (no numpy: the rank minor is built from residues
and its determinant taken by flint; the separation scores are flint integer
matrix products).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from fractions import Fraction

from flint import fmpz_mat, nmod_mat

from reluid.certificates.schema import ClaimKind
from reluid.checker import readers as R
from reluid.checker.compiled_search import ball_points
from reluid.checker.linalg import pivots_mod_p, row_products
from reluid.checker.registry import Context, charge, fail, verifies
from reluid.checker.search import searched
from reluid.errors import ReluidError
from reluid.model.network import Shallow
from reluid.verdicts import FlipSetMethod, Stratum

__all__ = ["ENUMERATE_LIMIT", "MITM_LIMIT", "LATTICE_ENUM_NODE_LIMIT", "verify_flip_set", "verify_no_flip_set", "flip_sets_of",
           "verify_fibre_orbits"]

ENUMERATE_LIMIT = 22
MITM_LIMIT = 44
_HASH = 2**61 - 1
_KEYS = {FlipSetMethod.RANK: {"method", "p", "rows"}, FlipSetMethod.ENUMERATE: {"method", "p", "rows"},
         FlipSetMethod.MITM: {"method", "n"},
         FlipSetMethod.LATTICE: {"method", "p", "basis", "inverse", "rank_rows", "rank_cols"},
         FlipSetMethod.LATTICE_ENUM: {"method", "p", "basis", "inverse", "rank_rows", "rank_cols", "nodes"},
         FlipSetMethod.LATTICE_CVP: {"method", "p", "basis", "inverse", "rank_rows", "rank_cols", "radius", "points",
                                     "nodes"},
         FlipSetMethod.SEPARATION: {"method", "y"}, FlipSetMethod.SEPARATION_SPLIT: {"method", "y", "rest", "sub"},
         FlipSetMethod.Z3: {"method", "encoding", "rows"}}
#: the certificates a ``separation-split`` may rest on for the neurons it leaves
_SUB_METHODS = (FlipSetMethod.RANK, FlipSetMethod.LATTICE, FlipSetMethod.LATTICE_ENUM, FlipSetMethod.LATTICE_CVP,
                FlipSetMethod.ENUMERATE, FlipSetMethod.MITM)
LATTICE_ENUM_NODE_LIMIT = 1 << 25
"""Most nodes the checker enumerates for a ``lattice-enum`` certificate (about 100 s of Python)."""
LATTICE_ENUM_LEAF_LIMIT = 1 << 16
"""Most lattice points of the ball the checker tests one by one (each costs O(n·r))."""
LATTICE_ENUM_SCALE = 48
SEPARATION_BITS = 64
"""Entries of a separation matrix Y must lie below 2^64 in absolute value (bounded work)."""
SEPARATION_BLOCK = 1 << 14
"""About this many integers of θ's hidden layer are held as Python integers at once by the separation scores."""


# ---- reading the evidence -------------------------------------------------------

def _theta(ctx):
    try:
        return ctx.theta
    except ReluidError as e:
        fail(ctx, f"flip sets are defined for shallow networks only ({e})")


def _int(ctx, x, what):
    return R.integer(ctx, x, what)


def _ints(ctx, xs, what, length=None):
    return list(R.integers(ctx, xs, what, length))


def _indices(ctx, xs, bound, what, length=None):
    return list(R.indices(ctx, xs, bound, what, length))


def _one_based(indices) -> str:
    """Neuron indices as people count them (the certificate's JSON counts from 0)."""
    return ", ".join(str(i + 1) for i in sorted(indices))


def _prime(ctx, theta, x, lo=2):
    p = R.prime(ctx, x, "p", lo)
    for row in theta.M + theta.A:
        for v in row:
            if v.denominator % p == 0:
                fail(ctx, f"p = {p} divides the denominator of {R.show(v)}")
    return p


# ---- the flip matrix U, re-derived from θ --------------------------------------

def _residues(theta, p):
    inv = {}

    def r(v):
        if v.denominator not in inv:
            inv[v.denominator] = pow(v.denominator, -1, p)
        return v.numerator * inv[v.denominator] % p

    Mp = [[r(v) for v in row] for row in theta.M]
    Acols = [[r(theta.A[i][l]) for i in range(theta.n)] for l in range(theta.m)]
    return Mp, Acols


def _rows_mod(theta, rows, p, cols=None):
    """The listed rows of U mod p (restricted to ``cols``) as an nmod_mat."""
    Mp, Acols = _residues(theta, p)
    cols = range(theta.n) if cols is None else cols
    m = theta.m
    entries = [[Mp[r // m][i] * Acols[r % m][i] % p for i in cols] for r in rows]
    return nmod_mat(len(rows), len(cols), [x for row in entries for x in row], p)


def _integers(theta):
    dm = math.lcm(*(v.denominator for row in theta.M for v in row))
    da = math.lcm(*(v.denominator for row in theta.A for v in row))
    Mi = [[v.numerator * (dm // v.denominator) for v in row] for row in theta.M]
    Ai = [[v.numerator * (da // v.denominator) for v in row] for row in theta.A]
    return Mi, Ai


def _is_flip(theta, F):
    return bool(F) and all(sum((theta.M[j][i] * theta.A[i][l] for i in F), Fraction(0)) == 0
                           for j in range(theta.k) for l in range(theta.m))


class _Collect:
    """Where a search reports the flip sets it meets: collect them, or fail on the first one."""

    def __init__(self, ctx, theta, collect: bool):
        self.ctx, self.theta, self.collect, self.found = ctx, theta, collect, set()

    def __call__(self, F):
        if _is_flip(self.theta, F):
            if not self.collect:
                fail(self.ctx, f"F = {{{_one_based(F)}}} is a flip set, contradicting the claim")
            self.found.add(frozenset(F))


# ---- verifiers -------------------------------------------------------------------

@verifies(ClaimKind.FLIP_SET)
def verify_flip_set(evidence, ctx: Context) -> str:
    """Σ_{i∈F} m_i a_iᵀ = 0 exactly, F nonempty."""
    theta = _theta(ctx)
    if set(evidence) != {"flip_set"}:
        fail(ctx, f"flip-set evidence must have exactly the field 'flip_set', got {sorted(evidence)}")
    F = _indices(ctx, evidence["flip_set"], theta.n, "flip_set")
    if not F:
        fail(ctx, "the empty set is not a flip set")
    if not _is_flip(theta, F):
        fail(ctx, f"Σ_(i∈F) m_i a_iᵀ ≠ 0 for F = {{{_one_based(F)}}}")
    return f"F = {{{_one_based(F)}}} is a flip set: Σ_(i∈F) m_i a_iᵀ = 0 exactly"


@verifies(ClaimKind.NO_FLIP_SET)
def verify_no_flip_set(evidence, ctx: Context) -> str:
    """Dispatch on ``evidence["method"]``; see the module docstring."""
    theta = _theta(ctx)
    method = R.mapping(ctx, evidence, "no-flip-set evidence").get("method")
    if not isinstance(method, str) or method not in _KEYS:
        fail(ctx, f"unknown no-flip-set method {method!r}")
    if set(evidence) != _KEYS[method]:
        fail(ctx, f"{method} evidence must have the fields {sorted(_KEYS[method])}, got {sorted(evidence)}")
    return _VERIFY[method](evidence, ctx, theta, _Collect(ctx, theta, False))


def flip_sets_of(evidence, ctx: Context) -> set[frozenset]:
    """Every flip set, found by re-running the ``enumerate`` or ``mitm`` search named in ``evidence``."""
    theta = _theta(ctx)
    method = evidence.get("method")
    if (method not in (FlipSetMethod.ENUMERATE, FlipSetMethod.MITM)
            or set(evidence) - {"orbits", "flip_sets"} != _KEYS[method]):
        fail(ctx, f"an enumeration needs enumerate or mitm evidence, got {method!r} with {sorted(evidence)}")
    sink = _Collect(ctx, theta, True)
    (_enumerate if method == FlipSetMethod.ENUMERATE else _mitm_claim)(evidence, ctx, theta, sink)
    return sink.found


@verifies(ClaimKind.FIBRE_ORBITS)
def verify_fibre_orbits(evidence, ctx: Context) -> str:
    """The fibre has ``orbits`` H_n-orbits: the listed flip sets are all of them (docs/mathematics.md §2)."""
    from reluid.checker.shallow import classify

    theta = _theta(ctx)
    if classify(theta, ctx).name != Stratum.GENERIC:
        fail(ctx, "the orbit count by flip sets holds on the generic stratum only")
    found = flip_sets_of(evidence, ctx)
    listed = {frozenset(_indices(ctx, F, theta.n, "flip set"))
              for F in R.sequence(ctx, evidence.get("flip_sets", ()), "flip_sets")}
    if listed != found:
        fail(ctx, f"the listed flip sets are not all of them ({len(found)} found, {len(listed)} listed)")
    if _int(ctx, evidence.get("orbits"), "orbits") != len(found) + 1:
        fail(ctx, f"{len(found)} nonempty flip sets give {len(found) + 1} orbits, not {evidence.get('orbits')}")
    return (f"the fibre is the disjoint union of {len(found) + 1} H_n-orbits, one per flip set (∅ included); "
            f"every flip set re-found by {evidence['method']}")


def _rank(ev, ctx, theta, sink):
    n, km = theta.n, theta.k * theta.m
    p = _prime(ctx, theta, ev["p"])
    rows = _indices(ctx, ev["rows"], km, "rows", length=n)
    if n and _minor_det(ctx, theta, rows, p) == 0:
        fail(ctx, f"the {n} × {n} minor on the given rows vanishes mod {p}")
    return f"rank: the {n} columns of U are independent (an {n} × {n} minor is nonzero mod {p})"


def _minor_det(ctx, theta, rows, p):
    """det mod p of the square minor of U on ``rows`` × all n columns."""
    charge(ctx, theta.n * (len(rows) + theta.k + theta.m), f"the {theta.n} × {theta.n} minor modulo {p}")
    return _rows_mod(theta, rows, p).det()


def _kernel_basis(ev, ctx, theta):
    """(p, B, r): B is shown to be a basis of L = ker U ∩ Zⁿ (the checks of ``lattice`` and ``lattice-enum``).

    U Bᵀ = 0 (B ⊆ L), B C = I (the row lattice of B is saturated: yB ∈ Zⁿ
    forces y = yBC ∈ Zʳ), and a nonzero (n − r)-minor of U mod p (rank U =
    n − r, so B spans ker U over Q).
    """
    n, k, m = theta.n, theta.k, theta.m
    p = _prime(ctx, theta, ev["p"])
    if not isinstance(ev["basis"], (list, tuple)) or not isinstance(ev["inverse"], (list, tuple)):
        fail(ctx, "basis and inverse must be lists of rows")
    r = len(ev["basis"])
    if r > n:
        fail(ctx, f"{r} basis vectors in dimension {n}")
    B = [_ints(ctx, b, "basis vector", length=n) for b in ev["basis"]]
    C = [_ints(ctx, c, "inverse row", length=r) for c in ev["inverse"]]
    if len(C) != n:
        fail(ctx, f"inverse has {len(C)} rows, expected {n}")
    rows = _indices(ctx, ev["rank_rows"], k * m, "rank_rows", length=n - r)
    cols = _indices(ctx, ev["rank_cols"], n, "rank_cols", length=n - r)
    if n - r and _rows_mod(theta, rows, p, cols).det() == 0:
        fail(ctx, f"the rank minor vanishes mod {p}")
    if r:
        Mi, Ai = _integers(theta)
        At = fmpz_mat([[Ai[i][l] for i in range(n)] for l in range(m)])
        for j in range(k):   # (U Bᵀ) restricted to output j is Aᵀ diag(M_j) Bᵀ
            if not (At * fmpz_mat([[Mi[j][i] * b[i] for b in B] for i in range(n)])).is_zero():
                fail(ctx, f"a basis vector is not in the kernel of U (output {j + 1})")
        if not (fmpz_mat(B) * fmpz_mat(C)).is_one():
            fail(ctx, "basis · inverse ≠ I: the basis is not shown to be saturated")
    return p, B, r


def _gram(B):
    r = len(B)
    if not r:
        return []
    Bz = fmpz_mat(B)
    G = Bz * Bz.transpose()
    return [[int(G[i, j]) for j in range(r)] for i in range(r)]


def _lattice(ev, ctx, theta, sink):
    n = theta.n
    p, B, r = _kernel_basis(ev, ctx, theta)
    a = _gram(B)
    prev = 1
    for t in range(r):   # Bareiss: a[t][t] becomes the leading minor d_t = Π ‖b*_s‖²
        d = a[t][t]
        if d <= n * prev:
            fail(ctx, f"Gram–Schmidt bound fails at vector {t + 1}: ‖b*‖² = {Fraction(d, prev)} ≤ n = {n}")
        for i in range(t + 1, r):
            for j in range(t + 1, r):
                a[i][j] = (d * a[i][j] - a[i][t] * a[t][j]) // prev
        prev = d
    return (f"lattice: ker U ∩ Z^{n} has a saturated basis of {r} vectors with min ‖b*‖² > n = {n}, "
            f"so no x ∈ {{0,±1}}^n∖0 has Ux = 0 (rank U = {n - r} mod {p})")


def _gram_schmidt(B, n):
    """(d, a): the exact Gram–Schmidt data of the ball ‖x − t‖² ≤ R², t = proj_V(½·1).

    Fraction-free elimination of the Gram matrix of (b_1, …, b_r, 1): after
    step t, a[i][t] = d_t ⟨b_i, b*_t⟩ with d_t the leading t-minor, so
    μ_it = a[i][t]/d_{t+1}, ‖b*_t‖² = d_{t+1}/d_t, the Gram–Schmidt coordinate of
    ½·1 along b*_t is a[r][t]/(2 d_{t+1}), and dist²(1, V) = d_{r+1}/d_r (0 when
    1 ∈ V).  R² = n/4 − dist²(½·1, V) = (n − d_{r+1}/d_r)/4.
    """
    r = len(B)
    G = _gram(B)
    ones = [sum(b) for b in B]
    a = [G[i] + [ones[i]] for i in range(r)] + [ones + [n]]
    d, prev = [1], 1
    for t in range(r + 1):
        piv = a[t][t]
        if t == r:
            if piv < 0:
                raise ArithmeticError("distance² < 0")
            d.append(piv)
            break
        if piv <= 0:
            raise ArithmeticError("the basis vectors are dependent")
        d.append(piv)
        for i in range(t + 1, r + 1):
            for j in range(t + 1, r + 1):
                a[i][j] = (piv * a[i][j] - a[i][t] * a[t][j]) // prev
        prev = piv
    return d, a


def _ball_data(B, n):
    """The data of :func:`_gram_schmidt` as floors of S-scaled integers (S = 2^48): q, mu, centre, rhs."""
    r, S = len(B), 1 << LATTICE_ENUM_SCALE
    d, a = _gram_schmidt(B, n)
    q = [d[t + 1] * S // d[t] for t in range(r)]
    mu = [[a[i][t] * S // d[t + 1] for t in range(i)] for i in range(r)]
    centre = [a[r][t] * S // (2 * d[t + 1]) for t in range(r)]
    rhs = (n * d[r] - d[r + 1]) * S**3 // (4 * d[r])
    return q, mu, centre, rhs


def _signed_support(c, B, n) -> set[int] | None:
    """The support of x = cB when x is ±(a 0/1 vector), else None (read coordinate by coordinate)."""
    support = [(ci, b) for ci, b in zip(c, B) if ci]
    sign = 0
    for t in range(n):
        v = sum(ci * b[t] for ci, b in support)
        if v and (v not in (1, -1) or sign and v != sign):
            return None
        sign = sign or v
    return {t for t in range(n) if sum(ci * b[t] for ci, b in support)} if sign else None


class _BallWalk:
    """Schnorr–Euchner enumeration, exact in S-scaled integers, of the integer points c of the ball of
    :func:`_ball_data`: level j is centred from c_{j+1}, …, c_{r−1}, and a value v is kept while the integer
    lower bound of Σ_{i ≥ j} stays ≤ rhs (nearest value first, then upwards, then downwards)."""

    def __init__(self, ball, r):
        self.q, self.mu, self.centre0, self.rhs = ball
        self.r, self.S = r, 1 << LATTICE_ENUM_SCALE
        self.c = [0] * r
        self.low = [0] * (r + 1)       # low[j]: the integer lower bound of Σ_{i ≥ j} (scaled by S³)
        self.spread = [0] * (r + 1)    # spread[j]: Σ_{i ≥ j} |c_i|
        self.mid, self.err = [0] * r, [0] * r
        self.nxt, self.prv, self.side = [0] * r, [0] * r, [0] * r

    def enter(self, j):
        """Fix the centre of level j from c_{j+1}, …, c_{r−1}."""
        x = self.centre0[j]
        for i in range(j + 1, self.r):
            if self.c[i]:
                x -= self.mu[i][j] * self.c[i]
        self.mid[j], self.err[j] = x, 1 + self.spread[j + 1]
        v = (x + self.S // 2) // self.S
        self.nxt[j], self.prv[j], self.side[j] = v, v - 1, 0

    def lower(self, j, v):
        e = abs(v * self.S - self.mid[j]) - self.err[j]
        return self.low[j + 1] + self.q[j] * e * e if e > 0 else self.low[j + 1]

    def next_value(self, j):
        """The next value of level j inside the ball, with its bound, or None when the level is spent."""
        if self.side[j] == 0:
            bnd = self.lower(j, self.nxt[j])
            if bnd <= self.rhs:
                v, self.nxt[j] = self.nxt[j], self.nxt[j] + 1
                return v, bnd
            self.side[j] = 1
        if self.side[j] == 1:
            bnd = self.lower(j, self.prv[j])
            if bnd <= self.rhs:
                v, self.prv[j] = self.prv[j], self.prv[j] - 1
                return v, bnd
            self.side[j] = 2
        return None

    def points(self, visit):
        """Yield every c of the ball (the same list object, updated); ``visit()`` is called once per node."""
        j = self.r - 1
        self.enter(j)
        while j < self.r:
            step = self.next_value(j)
            if step is None:
                j += 1
                continue
            visit()
            v, bnd = step
            self.c[j], self.low[j], self.spread[j] = v, bnd, self.spread[j + 1] + abs(v)
            if j:
                j -= 1
                self.enter(j)
            else:
                yield self.c


def _lattice_enum(ev, ctx, theta, sink):
    """Every 0/1 point of L lies in the ball ‖x − t‖² ≤ R² (docs/mathematics.md §3); enumerate it exactly."""
    n = theta.n
    budget = _int(ctx, ev["nodes"], "nodes")
    if not 0 <= budget <= LATTICE_ENUM_NODE_LIMIT:
        fail(ctx, f"nodes = {budget} is outside [0, {LATTICE_ENUM_NODE_LIMIT}]")
    p, B, r = _kernel_basis(ev, ctx, theta)
    if not r:
        return f"lattice-enum: ker U = 0 (rank U = n = {n} mod {p}), no flip set"
    try:
        walk = _BallWalk(_ball_data(B, n), r)
    except ArithmeticError as e:
        fail(ctx, f"the basis has no Gram–Schmidt data ({e})")
    searched(ctx, "the lattice points of a ball")
    nodes = 0

    def visit():
        nonlocal nodes
        nodes += 1
        if not nodes & 4095:           # the work is charged as it is done: ~4 loop steps per node
            charge(ctx, 4 * 4096, f"the lattice enumeration past {nodes:,} nodes")
        if nodes > budget:
            fail(ctx, f"the enumeration needs more than the certificate's {budget} nodes")

    for leaves, c in enumerate(walk.points(visit), 1):
        if leaves > LATTICE_ENUM_LEAF_LIMIT:
            fail(ctx, f"the ball holds more than {LATTICE_ENUM_LEAF_LIMIT} lattice points")
        F = _signed_support(c, B, n)
        if F:
            sink(F)
    return (f"lattice-enum: ker U ∩ Z^{n} has a saturated basis of {r} vectors (rank U = {n - r} mod {p}); "
            f"the exact enumeration of the ball around the projection of ½·1 that holds every 0/1 kernel vector "
            f"visited {nodes} nodes and found no flip set")


def _lattice_cvp(ev, ctx, theta, sink):
    """The ball of ``lattice-enum``, enumerated by fplll over a proved safe radius (docs/mathematics.md §3)."""
    n = theta.n
    nodes = _int(ctx, ev["nodes"], "nodes")
    radius = R.rational(ctx, ev["radius"], "radius")
    p, B, r = _kernel_basis(ev, ctx, theta)
    if not r:
        return f"lattice-cvp: ker U = 0 (rank U = n = {n} mod {p}), no flip set"
    listed = {tuple(c) for c in R.tuples(ctx, ev["points"], "points", r)}
    if len(listed) != len(ev["points"]):
        fail(ctx, "points lists a coefficient vector twice")
    try:
        d, a = _gram_schmidt(B, n)
    except ArithmeticError as e:
        fail(ctx, f"the basis has no Gram–Schmidt data ({e})")
    met = set(ball_points(ctx, B, d, a, n, radius, nodes))
    if met - listed:
        fail(ctx, f"the enumeration meets {len(met - listed)} lattice point(s) the certificate does not list")
    if listed - met:
        fail(ctx, f"the certificate lists {len(listed - met)} point(s) the enumeration does not meet")
    charge(ctx, len(met) * n * r, f"testing the {len(met)} lattice points of the ball")
    for c in sorted(met):
        F = _signed_support(c, B, n)
        if F:
            sink(F)
    return (f"lattice-cvp: ker U ∩ Z^{n} has a saturated basis of {r} vectors (rank U = {n - r} mod {p}); "
            f"fplll's enumeration of the ball around the projection of ½·1, over a squared radius "
            f"{float(radius):.6g} at least the proved safe bound, visited at most {nodes} nodes and met "
            f"{len(met)} lattice point(s), none a flip set")


def _enumerate(ev, ctx, theta, sink):
    n, km = theta.n, theta.k * theta.m
    p = _prime(ctx, theta, ev["p"])
    if p < R.SEARCH_PRIME_MIN:
        fail(ctx, f"enumeration needs a prime above 2^30, not {p} (a small prime makes every point a candidate)")
    rows = _indices(ctx, ev["rows"], km, "rows")
    Rm, rank = _rows_mod(theta, rows, p).rref() if rows else (None, 0)
    pivots = pivots_mod_p(Rm, rank) if rows else []
    free = [c for c in range(n) if c not in set(pivots)]
    if len(free) > ENUMERATE_LIMIT:
        fail(ctx, f"kernel dimension {len(free)} mod {p} exceeds the checker's limit {ENUMERATE_LIMIT}")
    charge(ctx, 1 << len(free), f"enumerating the 2^{len(free)} 0/1 points of ker U_S mod {p}")
    searched(ctx, f"the 2^{len(free)} 0/1 points of ker U_S mod {p}")
    # x[pivots[t]] ≡ Σ_f coef[t][f] x[free[f]] (mod p) for every x with U_S x ≡ 0
    coef = [[(-int(Rm[t, c])) % p for c in free] for t in range(rank)]
    x, val = [0] * len(free), 0
    for step in range(1, 1 << len(free)):      # Gray code: flip one free coordinate per step
        f = (step & -step).bit_length() - 1
        x[f] ^= 1
        if rank:
            val = (val + (coef[0][f] if x[f] else -coef[0][f])) % p
            if val > 1:
                continue
        vals = [sum(cf for cf, xf in zip(row, x) if xf) % p for row in coef]
        if all(v <= 1 for v in vals):
            F = {free[g] for g in range(len(free)) if x[g]} | {pivots[t] for t in range(rank) if vals[t]}
            sink(F)
    return f"enumerate: none of the 2^{len(free)} 0/1 points of ker U_S mod {p} is a flip set"


def _weight(row):
    """A fixed pseudo-random weight mod 2^61 − 1 for row ``row`` of U (any weights are sound)."""
    return int.from_bytes(hashlib.sha256(b"reluid flip-set hash %d" % row).digest()[:8], "big") % _HASH


def _mitm(ctx, theta, sink):
    """Meet in the middle over h_i = Σ_(j,l) w_(jm+l) M_ji A_il (mod 2^61 − 1)."""
    n, m = theta.n, theta.m
    if n > MITM_LIMIT:
        fail(ctx, f"n = {n} exceeds the checker's meet-in-the-middle limit {MITM_LIMIT}")
    charge(ctx, (1 << (n // 2)) + (1 << (n - n // 2)), f"meet in the middle over 2^{n // 2} + 2^{n - n // 2} subset sums")
    searched(ctx, f"meet in the middle over 2^{n // 2} + 2^{n - n // 2} subset sums")
    Mi, Ai = _integers(theta)
    w = [[_weight(j * m + l) for l in range(m)] for j in range(theta.k)]
    keys = [sum(Mi[j][i] * sum(wl * a for wl, a in zip(w[j], Ai[i])) for j in range(theta.k)) % _HASH
            for i in range(n)]
    h = n // 2

    def sums(ks):
        out = [0]
        for key in ks:
            out += [(s + key) % _HASH for s in out]
        return out

    first, more = {}, {}
    for mask, s in enumerate(sums(keys[:h])):
        if s in first:
            more.setdefault(s, [first[s]]).append(mask)
        else:
            first[s] = mask
    for rmask, s in enumerate(sums(keys[h:])):
        t = (-s) % _HASH
        if t in first:
            for lmask in more.get(t, [first[t]]):
                if lmask or rmask:
                    sink({i for i in range(h) if lmask >> i & 1} | {h + i for i in range(n - h) if rmask >> i & 1})
    return f"mitm: meet in the middle over 2 × 2^{n - h} subset sums found no flip set (n = {n})"


def _mitm_claim(ev, ctx, theta, sink):
    if _int(ctx, ev["n"], "n") != theta.n:
        fail(ctx, f"evidence is for n = {ev['n']}, the network has n = {theta.n}")
    return _mitm(ctx, theta, sink)


def _z3(ev, ctx, theta, sink):
    if theta.n > MITM_LIMIT:
        fail(ctx, f"a solver's unsat is not a proof, and n = {theta.n} > {MITM_LIMIT} is beyond the checker's own "
                  "meet in the middle")
    return "z3's answer re-decided by the checker: " + _mitm(ctx, theta, sink)


# ---- separation (Gordan) ---------------------------------------------------------

def _separation_scores(ctx, theta, ev):
    """(s, λ): s_i·λ_i = m_iᵀ Y a_i for every neuron, s_i an integer and λ_i > 0, exactly, with Y = ``ev["y"]``.

    With (a_i, b_i) = λa_i·N_i and m_i = λm_i·C_i (integer N_i, C_i;
    :class:`reluid.checker.readers.IntRows`, :func:`~reluid.checker.readers.output_columns`),
    s_i = C_iᵀ Y N_i = Σ_j C_ij Z_ij with Z = N·Yᵀ (b_i's entry of N_i meets
    a zero): an exact integer matrix product through flint, a block of
    :data:`SEPARATION_BLOCK` entries of N at a time
    (:func:`~reluid.checker.linalg.row_products`), then n dot products of length k.
    """
    n, m, k = theta.n, theta.m, theta.k
    if not isinstance(ev["y"], (list, tuple)) or len(ev["y"]) != k:
        fail(ctx, f"y must be a list of k = {k} rows")
    Y = [_ints(ctx, row, "y row", length=m) for row in ev["y"]]
    if any(abs(v) >> SEPARATION_BITS for row in Y for v in row):
        fail(ctx, f"an entry of y is not below 2^{SEPARATION_BITS}")
    if not n:
        return [], []
    charge(ctx, n * (m + k), "the separation scores m_iᵀ Y a_i")
    rows = R.IntRows(theta)
    C, lm = R.output_columns(theta)
    Z = row_products(rows.blocks(max(1, SEPARATION_BLOCK // rows.width)), rows.width, Y)   # Z[i][j] = Y_j·N_i
    s = [sum(c * z for c, z in zip(C[i], Z[i]) if c) for i in range(n)]
    return s, [a * b for a, b in zip(rows.scales, lm)]


def _separation(ev, ctx, theta, sink):
    s, _ = _separation_scores(ctx, theta, ev)
    bad = next((i for i, v in enumerate(s) if v <= 0), None)
    if bad is not None:
        fail(ctx, f"y does not separate: m_iᵀ Y a_i = {'0' if s[bad] == 0 else 'a negative number'} for neuron "
                  f"{bad + 1}")
    return (f"separation: m_iᵀ Y a_i > 0 for all {theta.n} neurons, so every nonempty sum Σ_(i∈F) m_i a_iᵀ "
            "pairs with Y to a positive number")


class _Restricted:
    """The sink of a sub-certificate on the neurons ``rest``: a flip set there is one of θ."""

    def __init__(self, sink, rest):
        self.sink, self.rest = sink, rest

    def __call__(self, F):
        self.sink({self.rest[i] for i in F})


def _separation_split(ev, ctx, theta, sink):
    n = theta.n
    s, lam = _separation_scores(ctx, theta, ev)
    rest = _indices(ctx, ev["rest"], n, "rest")
    common = [v * x for v, x in zip(s, lam)]                            # m_iᵀ Y a_i, exactly
    tau = -sum(v for v in common if v < 0)
    inside = set(rest)
    out = next((i for i, v in enumerate(common) if v <= tau and i not in inside), None)
    if out is not None:
        fail(ctx, f"neuron {out + 1} has m_iᵀ Y a_i ≤ τ (the total negative score) but is not in the rest set")
    sub = ev["sub"]
    if not isinstance(sub, Mapping) or not isinstance(sub.get("method"), str) or sub["method"] not in _SUB_METHODS:
        fail(ctx, f"the rest set needs a {', '.join(_SUB_METHODS)} certificate, got "
                  f"{sub.get('method') if isinstance(sub, Mapping) else type(sub).__name__!r}")
    if set(sub) != _KEYS[sub["method"]]:
        fail(ctx, f"{sub['method']} evidence must have the fields {sorted(_KEYS[sub['method']])}, got {sorted(sub)}")
    part = Shallow(tuple(tuple(row[i] for i in rest) for row in theta.M), tuple(theta.A[i] for i in rest),
                   tuple(theta.b[i] for i in rest), theta.c, theta.m)
    inner = _VERIFY[sub["method"]](sub, ctx, part, _Restricted(sink, rest))
    return (f"separation-split: every flip set lies among the {len(rest)} neurons where m_iᵀ Y a_i ≤ τ "
            f"(τ = the total negative score), and there {inner}")


_VERIFY = {FlipSetMethod.RANK: _rank, FlipSetMethod.LATTICE: _lattice, FlipSetMethod.LATTICE_ENUM: _lattice_enum,
           FlipSetMethod.LATTICE_CVP: _lattice_cvp,
           FlipSetMethod.ENUMERATE: _enumerate, FlipSetMethod.MITM: _mitm_claim, FlipSetMethod.Z3: _z3,
           FlipSetMethod.SEPARATION: _separation, FlipSetMethod.SEPARATION_SPLIT: _separation_split}
