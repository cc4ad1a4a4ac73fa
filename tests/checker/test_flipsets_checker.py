"""The checker's flip-set verifiers (reluid/checker/flipsets.py) against independent oracles.

Every method is compared with a brute-force or Fraction-arithmetic oracle on
small networks (fractions, several outputs, small primes included where the
method allows them; ``enumerate`` needs a prime above 2^30, so its aliasing
mod p is forced with entries that are multiples of p), and every rejection is
triggered on its own, with its 1-based message.  The checker's
limits are exercised at their boundaries by lowering them (the comparisons are
what is tested; the constants are the module's).
"""

from __future__ import annotations

import itertools
import json
import random
import re
from fractions import Fraction

import pytest

from reluid.certificates.schema import ClaimKind
from reluid.checker import flipsets as cf
from reluid.checker.readers import is_prime
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed
from reluid.model.network import Network, Shallow

S = Shallow.make
PRIMES_BELOW_3000 = [p for p in range(2, 3000) if all(p % d for d in range(2, int(p ** 0.5) + 1))]
#: primes the enumeration accepts (above 2^30, below 2^63): the first above 2^30, 2^31 − 1 (the producer's), ...
BIG_PRIMES = [2**30 + 3, 2**31 - 1, 2**61 - 1, 2**63 - 25]
P31 = 2**31 - 1


# ---- helpers -------------------------------------------------------------------------------

def ctx(theta, cid="claim-7"):
    net = theta if isinstance(theta, Network) else theta.to_network()
    return Context(net, cid)


def no_flip(theta, ev):
    return VERIFIERS[ClaimKind.NO_FLIP_SET](json.loads(json.dumps(ev)), ctx(theta))


def flip(theta, F):
    return VERIFIERS[ClaimKind.FLIP_SET]({"flip_set": F}, ctx(theta))


def rejected(call, *args, match):
    """``call(*args)`` raises CheckFailed for claim-7 with a reason that ``match`` finds."""
    with pytest.raises(CheckFailed) as e:
        call(*args)
    assert e.value.claim == "claim-7"
    assert re.search(match, e.value.reason), e.value.reason
    return e.value.reason


def columns(theta):
    """u_i = vec(m_i a_iᵀ), entry j·m + l, as Fractions."""
    return [[theta.M[j][i] * theta.A[i][l] for j in range(theta.k) for l in range(theta.m)] for i in range(theta.n)]


def brute_force(theta) -> set[frozenset]:
    u = columns(theta)
    out = set()
    for r in range(1, theta.n + 1):
        for F in itertools.combinations(range(theta.n), r):
            if all(sum((u[i][t] for i in F), Fraction(0)) == 0 for t in range(theta.k * theta.m)):
                out.add(frozenset(F))
    return out


def det(rows):
    """Exact determinant by Fraction elimination."""
    a = [[Fraction(x) for x in r] for r in rows]
    n, d = len(a), Fraction(1)
    for c in range(n):
        p = next((i for i in range(c, n) if a[i][c]), None)
        if p is None:
            return Fraction(0)
        if p != c:
            a[c], a[p] = a[p], a[c]
            d = -d
        d *= a[c][c]
        for i in range(c + 1, n):
            f = a[i][c] / a[c][c]
            a[i] = [x - f * y for x, y in zip(a[i], a[c])]
    return d


def minor(theta, rows, cols=None):
    u = columns(theta)
    cols = range(theta.n) if cols is None else cols
    return det([[u[i][r] for i in cols] for r in rows])


def mod_zero(x: Fraction, p: int) -> bool:
    return x.numerator % p == 0


def random_theta(rng, m, n, k, frac=True, plant=False):
    def num():
        v = rng.choice([x for x in range(-3, 4) if x])
        return Fraction(v, rng.choice([1, 1, 2, 3, 5])) if frac else Fraction(v)

    M = [[num() for _ in range(n)] for _ in range(k)]
    A = [[num() for _ in range(m)] for _ in range(n)]
    if plant and n >= 2:
        F = rng.sample(range(n), rng.randint(2, n))
        for i in F[1:]:                      # equal output columns, rows summing to zero on F
            for j in range(k):
                M[j][i] = M[j][F[0]]
        A[F[-1]] = [-sum((A[i][l] for i in F[:-1]), Fraction(0)) for l in range(m)]
        if not any(A[F[-1]]):
            A[F[-1]][0] = Fraction(1)        # (the plant may fail; the oracle decides)
    return S(M, A, list(range(n)), [0] * k)


def pool(seed, count, **kw):
    rng = random.Random(seed)
    out = []
    for t in range(count):
        m, n, k = rng.randint(1, 3), rng.randint(1, 6), rng.randint(1, 2)
        out.append(random_theta(rng, m, n, k, plant=t % 2 == 1, **kw))
    return out


def good_prime(theta, start=3):
    dens = [v.denominator for row in theta.M + theta.A for v in row]
    return next(p for p in PRIMES_BELOW_3000 if p >= start and all(d % p for d in dens))


# ---- primality ---------------------------------------------------------------------------------

def test_is_prime_agrees_with_trial_division():
    small = set(PRIMES_BELOW_3000)
    for n in range(-3, 3000):
        assert is_prime(n) == (n in small), n


@pytest.mark.parametrize("n", [561, 1105, 41041, 825265, 3215031751, 2152302898747, 3474749660383,
                               341550071728321, 3825123056546413051, 318665857834031151167461,
                               (2**31 - 1) * (2**61 - 1), 1000003 * 1000033])
def test_is_prime_rejects_carmichael_numbers_and_strong_pseudoprimes(n):
    assert not is_prime(n)          # the last spsp's fool every base below 41 (resp. 37)


@pytest.mark.parametrize("p", [2, 3, 41, 43, 2**31 - 1, 2**61 - 1, 2**63 - 25, 1000003, 2**89 - 1])
def test_is_prime_accepts_primes(p):
    assert is_prime(p)


def test_prime_bounds():
    theta = S([1], [[3]], [0], [0])                                   # U = (3)
    assert no_flip(theta, {"method": "rank", "p": 2, "rows": [0]}).endswith("nonzero mod 2)")
    rejected(no_flip, theta, {"method": "rank", "p": 3, "rows": [0]}, match=r"minor on the given rows vanishes mod 3")
    for p, match in [(1, r"p = 1 is outside \[2, 2\^63\)"), (0, r"p = 0 is outside"), (-7, r"p = -7 is outside"),
                     (2**63 + 29, r"p = 9223372036854775837 is outside \[2, 2\^63\)"),
                     (2**63, r"outside"), (9, r"p = 9 is not prime"), (2**61 + 1, r"is not prime")]:
        rejected(no_flip, theta, {"method": "rank", "p": p, "rows": [0]}, match=match)
    assert no_flip(theta, {"method": "rank", "p": 2**63 - 25, "rows": [0]}).endswith("mod 9223372036854775783)")


def test_a_prime_dividing_a_denominator_is_rejected():
    theta = S([1, "1/3"], [["1/5"], [1]], [0, 1], [0])            # M has 1/3, A has 1/5
    rejected(no_flip, theta, {"method": "rank", "p": 3, "rows": [0]}, match=r"p = 3 divides the denominator of 1/3")
    rejected(no_flip, theta, {"method": "rank", "p": 5, "rows": [0]}, match=r"p = 5 divides the denominator of 1/5")
    theta = S([1, "1/6"], [[1], [1]], [0, 1], [0])
    rejected(no_flip, theta, {"method": "rank", "p": 2, "rows": [0]}, match="divides the denominator of 1/6")
    rejected(no_flip, S([1, 1], [[1], ["1/7"]], [0, 1], [0]), {"method": "enumerate", "p": 7, "rows": []},
             match=r"^p = 7 divides the denominator of 1/7$")
    rejected(no_flip, S([1, 1], [[1], [f"1/{P31}"]], [0, 1], [0]), {"method": "enumerate", "p": P31, "rows": []},
             match=rf"^p = {P31} divides the denominator of 1/{P31}$")


# ---- reading numbers and indices ---------------------------------------------------------------

@pytest.mark.parametrize("rows,match", [
    ("0", r"rows must be a list"), ({"a": 0}, r"rows must be a list"),
    ([0], r"rows has 1 entries, expected 2"), ([0, 1, 2], r"rows has 3 entries, expected 2"),
    ([0, "1/2"], r"rows: '1/2' is not an integer"), ([0, True], r"rows must be an integer, got True"), ([0, 1.0], r"rows must be an integer, got 1.0"),
    ([0, "x"], r"rows: not an integer or 'p/q' string: 'x'$"), ([0, "4/1"], r"rows: '4/1': an integer is written 'p'"),
    ([0, "2/4"], r"rows: not in lowest terms: '2/4'$"), ([0, " 1"], r"rows: not an integer or 'p/q' string: ' 1'$"),
    ([0, 2], r"rows: index out of range \[0, 2\)"),
    ([-1, 0], r"rows: index out of range \[0, 2\)"), ([1, 1], r"rows: repeated index"),
])
def test_malformed_rows_are_rejected(rows, match):
    theta = S([1, 1], [[1, 0], [0, 1]], [0, 1], [0])              # U = I (k·m = 2)
    with pytest.raises(CheckFailed, match=match):
        cf._rank({"p": 7, "rows": rows}, ctx(theta), theta, None)


def test_integers_may_be_written_as_strings():
    theta = S([1, 1], [[1, 0], [0, 1]], [0, 1], [0])
    assert no_flip(theta, {"method": "rank", "p": "7", "rows": ["0", "1"]}).startswith("rank:")
    assert cf._int(ctx(theta), "-2", "x") == -2 and cf._int(ctx(theta), "0", "x") == 0
    # numbers are read canonically: an integer is "p", never "p/1", "+p", "-0" or a decimal
    for text, why in [("4/1", "'4/1': an integer is written 'p', not 'p/1'"),
                      ("8/2", "not in lowest terms: '8/2'"), ("+4", "not an integer or 'p/q' string: '+4'"),
                      ("-0", "not an integer or 'p/q' string: '-0'"), ("4.0", "not an integer or 'p/q' string: '4.0'")]:
        with pytest.raises(CheckFailed) as e:
            cf._int(ctx(theta), text, "x")
        assert e.value.claim == "claim-7" and e.value.reason == f"x: {why}"
    rejected(no_flip, theta, {"method": "rank", "p": "7/1", "rows": [0, 1]},
             match=r"^p: '7/1': an integer is written 'p', not 'p/1'$")


def test_the_one_based_helper():
    assert cf._one_based([2, 0, 5]) == "1, 3, 6"
    assert cf._one_based([]) == ""


# ---- flip-set ----------------------------------------------------------------------------------

def test_flip_set_claims():
    theta = S([2, -1, 3], [[1], [2], [1]], [0, 1, 2], [0])       # 2·1 − 1·2 = 0
    assert flip(theta, [1, 0]) == "F = {1, 2} is a flip set: Σ_(i∈F) m_i a_iᵀ = 0 exactly"
    rejected(flip, theta, [0, 2], match=r"Σ_\(i∈F\) m_i a_iᵀ ≠ 0 for F = \{1, 3\}")
    rejected(flip, theta, [], match="the empty set is not a flip set")
    rejected(flip, theta, [3], match=r"flip_set: index out of range \[0, 3\)")
    rejected(flip, theta, [0, 0, 1], match="repeated index")
    with pytest.raises(CheckFailed, match="exactly the field 'flip_set', got \\['flip_set', 'x'\\]"):
        VERIFIERS[ClaimKind.FLIP_SET]({"flip_set": [0, 1], "x": 1}, ctx(theta))


def test_flip_sets_are_defined_for_shallow_networks_only():
    deep = Network.from_lists([([[1]], [0]), ([[1]], [0]), ([[1]], [0])])
    with pytest.raises(CheckFailed, match=r"flip sets are defined for shallow networks only \("):
        VERIFIERS[ClaimKind.FLIP_SET]({"flip_set": [0]}, Context(deep, "c"))
    with pytest.raises(CheckFailed, match="shallow networks only"):
        cf.flip_sets_of({"method": "mitm", "n": 1}, Context(deep, "c"))


def test_is_flip_is_exact_over_every_output():
    theta = S([[1, 1], [1, 2]], [[1], [-1]], [0, 1], [0, 0])      # output 1 cancels, output 2 does not
    assert not cf._is_flip(theta, [0, 1])
    theta = S([[1, 1], [2, 2]], [[1, 3], [-1, -3]], [0, 1], [0, 0])
    assert cf._is_flip(theta, [0, 1]) and not cf._is_flip(theta, [0]) and not cf._is_flip(theta, [])


# ---- rank ----------------------------------------------------------------------------------------

def test_rank_agrees_with_the_exact_minor():
    """For every choice of n rows and a few primes: accepted iff the exact minor is nonzero mod p."""
    tried = accepted = 0
    for theta in pool(11, 60):
        km = theta.k * theta.m
        if theta.n > km:
            continue
        for rows in itertools.islice(itertools.permutations(range(km), theta.n), 12):
            d = minor(theta, rows)
            for p in (2, 3, 5, 7, 1009):
                dens = [v.denominator for row in theta.M + theta.A for v in row]
                if any(x % p == 0 for x in dens):
                    continue
                tried += 1
                ev = {"method": "rank", "p": p, "rows": list(rows)}
                if mod_zero(d, p):
                    rejected(no_flip, theta, ev, match=rf"the {theta.n} × {theta.n} minor on the given rows "
                                                       rf"vanishes mod {p}")
                else:
                    accepted += 1
                    assert no_flip(theta, ev) == (f"rank: the {theta.n} columns of U are independent (an {theta.n} "
                                                  f"× {theta.n} minor is nonzero mod {p})")
                    assert not brute_force(theta)
    assert tried > 300 and 50 < accepted < tried


def test_rank_for_a_network_with_a_flip_set_is_always_rejected():
    theta = S([[1, 1, 2], ["1/2", "1/2", 3]], [["1/3", 2], ["-1/3", -2], [1, 5]], [0, 1, 2], [0, 0])
    assert brute_force(theta) == {frozenset({0, 1})}
    for rows in itertools.permutations(range(4), 3):
        for p in (5, 7, 11, 13):
            with pytest.raises(CheckFailed):
                no_flip(theta, {"method": "rank", "p": p, "rows": list(rows)})


def test_rank_of_the_empty_network():
    theta = S([], [], [], [0], m=2)
    assert no_flip(theta, {"method": "rank", "p": 3, "rows": []}) == \
        "rank: the 0 columns of U are independent (an 0 × 0 minor is nonzero mod 3)"


def test_rows_mod_reads_row_j_m_plus_l():
    theta = S([[1, 2, "1/2"], [3, -1, 1]], [[1, 2], [3, "1/3"], [-1, 1]], [0, 0, 0], [0, 0])   # k = m = 2, n = 3
    p = 7
    u = columns(theta)
    R = cf._rows_mod(theta, [3, 0, 2], p)
    for t, r in enumerate([3, 0, 2]):
        for i in range(3):
            x = u[i][r]
            assert int(R[t, i]) == x.numerator * pow(x.denominator, -1, p) % p
    R = cf._rows_mod(theta, [1], p, cols=[2, 0])
    assert [int(R[0, c]) for c in range(2)] == [u[i][1].numerator * pow(u[i][1].denominator, -1, p) % p
                                                 for i in (2, 0)]


# ---- lattice -------------------------------------------------------------------------------------

def gram_schmidt_norms(B):
    out, ortho = [], []
    for b in B:
        v = [Fraction(x) for x in b]
        for w in ortho:
            c = sum(x * y for x, y in zip(v, w)) / sum(y * y for y in w)
            v = [x - c * y for x, y in zip(v, w)]
        ortho.append(v)
        out.append(sum(x * x for x in v))
    return out


def lattice_case(P, k_scale=None):
    """θ whose integer kernel lattice has the saturated basis B = [P | I_r] (r × n).

    U = [I_(n−r) | −Pᵀ] (m = n − r, k = 1; k = 2 with ``k_scale`` copies the rows).
    """
    r, nr = len(P), len(P[0])
    n = nr + r
    B = [list(P[t]) + [int(t == s) for s in range(r)] for t in range(r)]
    U = [[int(i == c) for i in range(nr)] + [-P[t][c] for t in range(r)] for c in range(nr)]
    A = [[U[c][i] for c in range(nr)] for i in range(n)]                 # a_i = column i of U
    M = [[1] * n] if k_scale is None else [[1] * n, [k_scale] * n]
    theta = S(M, A, list(range(n)), [0] * len(M))
    C = [[0] * r for _ in range(nr)] + [[int(t == s) for s in range(r)] for t in range(r)]
    ev = {"method": "lattice", "p": 10007, "basis": B, "inverse": C, "rank_rows": list(range(nr)),
          "rank_cols": list(range(nr))}
    return theta, ev, B


def test_lattice_agrees_with_exact_gram_schmidt():
    rng = random.Random(5)
    seen = set()
    for _ in range(120):
        r, nr = rng.randint(1, 3), rng.randint(1, 4)
        P = [[rng.randint(-3, 3) for _ in range(nr)] for _ in range(r)]
        if any(not any(row) for row in P):
            continue
        theta, ev, B = lattice_case(P)
        n = theta.n
        norms = gram_schmidt_norms(B)
        bad = next((t for t, x in enumerate(norms) if x <= n), None)
        if bad is None:
            seen.add("accepted")
            assert no_flip(theta, ev) == (f"lattice: ker U ∩ Z^{n} has a saturated basis of {r} vectors with min "
                                          f"‖b*‖² > n = {n}, so no x ∈ {{0,±1}}^n∖0 has Ux = 0 (rank U = {n - r} "
                                          f"mod 10007)")
            assert not brute_force(theta)
        else:
            seen.add(bad)
            rejected(no_flip, theta, ev, match=re.escape(f"Gram–Schmidt bound fails at vector {bad + 1}: ‖b*‖² = "
                                                         f"{norms[bad]} ≤ n = {n}"))
    assert {"accepted", 0, 1, 2} <= seen


def test_gram_schmidt_bound_equality_is_rejected():
    # b1 = (2, 1, 1, 0, 0), b2 = (1, −1, −1, 1, 1): ‖b1‖² = 6 > 5, ‖b2*‖² = 30/6 = 5 = n
    B = [[2, 1, 1, 0, 0], [1, -1, -1, 1, 1]]
    U = kernel_complement(B)
    theta = S([1] * 5, [[U[c][i] for c in range(3)] for i in range(5)], list(range(5)), [0])
    ev = {"method": "lattice", "p": 10007, "basis": B, "inverse": [[0, 0], [1, 0], [0, 0], [1, 1], [0, 0]],
          "rank_rows": [0, 1, 2], "rank_cols": pivot_columns(U)}
    rejected(no_flip, theta, ev, match=r"Gram–Schmidt bound fails at vector 2: ‖b\*‖² = 5 ≤ n = 5")
    B = [[2, 1, 1, 0, 0], [1, -1, -1, 1, 2]]                                # ‖b2*‖² = 8 > 5
    U = kernel_complement(B)
    theta = S([1] * 5, [[U[c][i] for c in range(3)] for i in range(5)], list(range(5)), [0])
    ev.update(basis=B, rank_cols=pivot_columns(U))
    assert no_flip(theta, ev).startswith("lattice: ker U ∩ Z^5 has a saturated basis of 2 vectors")
    # squared length n exactly at the first vector: the all-ones kernel vector is a flip set
    theta = S([1, 1, 1, 1], [[1, 0], [0, 1], [-1, 0], [0, -1]], [0, 1, 2, 3], [0])
    ev = {"method": "lattice", "p": 7, "basis": [[1, 1, 1, 1], [1, 0, 1, 0]], "inverse": [[0, 1], [1, -1], [0, 0],
                                                                                           [0, 0]],
          "rank_rows": [0, 1], "rank_cols": [0, 1]}
    assert frozenset({0, 1, 2, 3}) in brute_force(theta)
    rejected(no_flip, theta, ev, match=r"Gram–Schmidt bound fails at vector 1: ‖b\*‖² = 4 ≤ n = 4")


def kernel_complement(B):
    """Integer rows spanning the orthogonal complement of the rows of B (rref over Q, scaled)."""
    n = len(B[0])
    R = [[Fraction(x) for x in b] for b in B]
    piv, top = [], 0
    for c in range(n):
        p = next((i for i in range(top, len(R)) if R[i][c]), None)
        if p is None:
            continue
        R[top], R[p] = R[p], R[top]
        R[top] = [x / R[top][c] for x in R[top]]
        for i in range(len(R)):
            if i != top and R[i][c]:
                R[i] = [x - R[i][c] * y for x, y in zip(R[i], R[top])]
        piv.append(c)
        top += 1
    out = []
    for f in [c for c in range(n) if c not in piv]:
        v = [Fraction(0)] * n
        v[f] = Fraction(1)
        for t, pc in enumerate(piv):
            v[pc] = -R[t][f]
        out.append(v)
    return out


def pivot_columns(U):
    """Columns c with U[:, c] nonsingular (the pivots of rref(U); U has full row rank)."""
    R = [[Fraction(x) for x in row] for row in U]
    piv, top = [], 0
    for c in range(len(U[0])):
        p = next((i for i in range(top, len(R)) if R[i][c]), None)
        if p is None:
            continue
        R[top], R[p] = R[p], R[top]
        for i in range(top + 1, len(R)):
            f = R[i][c] / R[top][c]
            R[i] = [x - f * y for x, y in zip(R[i], R[top])]
        piv.append(c)
        top += 1
    assert len(piv) == len(U) and det([[U[r][c] for c in piv] for r in range(len(U))]) != 0
    return piv


def test_bareiss_at_the_third_vector():
    rng = random.Random(9)
    seen = set()
    for _ in range(80):
        n = rng.randint(5, 7)
        B = [[rng.randint(-2, 2) for _ in range(n)] for _ in range(3)]
        for t in range(3):
            B[t][n - 3:] = [int(s == t) for s in range(3)]
        U = kernel_complement(B)
        A = [[U[c][i] for c in range(len(U))] for i in range(n)]
        if any(not any(a) for a in A):
            continue
        theta = S([1] * n, A, list(range(n)), [0])
        C = [[0] * 3 for _ in range(n - 3)] + [[int(s == t) for s in range(3)] for t in range(3)]
        ev = {"method": "lattice", "p": good_prime(theta, 1009), "basis": B, "inverse": C,
              "rank_rows": list(range(n - 3)), "rank_cols": pivot_columns(U)}
        norms = gram_schmidt_norms(B)
        bad = next((t for t, x in enumerate(norms) if x <= n), None)
        if bad is None:
            seen.add("ok")
            no_flip(theta, ev)
        else:
            seen.add(bad)
            rejected(no_flip, theta, ev, match=re.escape(f"at vector {bad + 1}: ‖b*‖² = {norms[bad]} ≤ n = {n}"))
    assert {"ok", 2} <= seen


def test_lattice_rejections():
    theta, ev, B = lattice_case([[2, 2], [3, -1]])                        # n = 4, r = 2, accepted as it is
    assert no_flip(theta, ev).startswith("lattice:")
    n = theta.n

    def bad(match, **changes):
        e = json.loads(json.dumps(ev))
        e.update(changes)
        return rejected(no_flip, theta, e, match=match)

    bad("^basis and inverse must be lists of rows$", basis="x")
    bad("^basis and inverse must be lists of rows$", inverse=7)
    bad(r"^p: '1/2' is not an integer$", p="1/2")
    bad(r"^p = 4 is not prime$", p=4)
    bad(r"^rank_cols has 1 entries, expected 2$", rank_cols=[0])
    bad(r"^rank_cols has 3 entries, expected 2$", rank_cols=[0, 1, 2])
    bad(r"5 basis vectors in dimension 4", basis=[[1, 0, 0, 0]] * 5)
    bad(r"basis vector has 3 entries, expected 4", basis=[[1, 0, 0], [0, 1, 0, 0]])
    bad(r"inverse row has 1 entries, expected 2", inverse=[[0]] * 4)
    bad(r"inverse has 3 rows, expected 4", inverse=ev["inverse"][:3])
    bad(r"rank_rows has 1 entries, expected 2", rank_rows=[0])
    bad(r"rank_cols: repeated index", rank_cols=[0, 0])
    bad(r"rank_cols: index out of range \[0, 4\)", rank_cols=[0, 4])
    bad(r"rank_rows: index out of range \[0, 2\)", rank_rows=[0, 2])
    assert minor(theta, [0, 1], [0, 2]) == -2
    bad(r"the rank minor vanishes mod 2", p=2, rank_cols=[0, 2])
    bad(r"a basis vector is not in the kernel of U \(output 1\)", basis=[[1, 0, 0, 0], ev["basis"][1]])
    bad(r"^basis · inverse ≠ I: the basis is not shown to be saturated$", inverse=[[1, 0], [0, 0], [0, 0], [0, 1]])
    # twice the basis is in the kernel but not saturated: B·C = 2I for every integral C
    bad(r"basis · inverse ≠ I", basis=[[2 * x for x in b] for b in B], inverse=[[0, 0], [0, 0], [1, 0], [0, 1]])
    assert n == 4


def test_lattice_kernel_is_checked_for_every_output():
    theta, ev, _ = lattice_case([[2, 2], [3, -1]], k_scale=3)               # output 2 = 3 × output 1
    assert no_flip(theta, ev).startswith("lattice:")
    # the same with a kernel that fails only in output 2 (rank rows from output 1)
    theta3 = S([[1, 1, 1], [1, 2, 3]], [[1], [1], [-2]], [0, 1, 2], [0, 0])   # output 1: 1 + 1 − 2 = 0
    e = {"method": "lattice", "p": 7, "basis": [[1, 1, 1]], "inverse": [[1], [0], [0]], "rank_rows": [0, 1],
         "rank_cols": [0, 1]}
    rejected(no_flip, theta3, e, match=r"a basis vector is not in the kernel of U \(output 2\)")


def test_lattice_without_basis_is_a_rank_proof():
    theta = S([1, 2], [[1, 0], [0, 1]], [0, 1], [0])
    ev = {"method": "lattice", "p": 3, "basis": [], "inverse": [[], []], "rank_rows": [0, 1], "rank_cols": [1, 0]}
    assert no_flip(theta, ev) == ("lattice: ker U ∩ Z^2 has a saturated basis of 0 vectors with min ‖b*‖² > n = 2, "
                                  "so no x ∈ {0,±1}^n∖0 has Ux = 0 (rank U = 2 mod 3)")
    theta = S([1, 2], [[1, 0], [2, 0]], [0, 1], [0])                      # u_2 = 4 u_1: rank 1
    rejected(no_flip, theta, ev, match="the rank minor vanishes mod 3")


def test_lattice_with_fractions_uses_exact_integer_scaling():
    # u_1 = (1/2)(1, 2/3), u_2 = (1/3)(3/2, 1) = (1/2, 1/3): u_1 = u_2, kernel (1, −1) of squared length 2 ≤ 2
    theta = S(["1/2", "1/3"], [[1, "2/3"], ["3/2", 1]], [0, 1], [0])
    ev = {"method": "lattice", "p": 7, "basis": [[1, -1]], "inverse": [[1], [0]], "rank_rows": [0], "rank_cols": [0]}
    rejected(no_flip, theta, ev, match=r"at vector 1: ‖b\*‖² = 2 ≤ n = 2")
    ev["basis"] = [[1, 1]]
    rejected(no_flip, theta, ev, match=r"not in the kernel of U \(output 1\)")


# ---- enumerate -----------------------------------------------------------------------------------

def test_enumerate_agrees_with_brute_force():
    """Any rows and prime above 2^30: accepted iff no flip set; flip_sets_of re-finds exactly all of them."""
    rng = random.Random(3)
    outcomes = set()
    for theta in pool(21, 70):
        km = theta.k * theta.m
        truth = brute_force(theta)
        for _ in range(3):
            rows = rng.sample(range(km), rng.randint(0, km))
            p = rng.choice(BIG_PRIMES)                  # the denominators (1, 2, 3, 5) are all prime to it
            ev = {"method": "enumerate", "p": p, "rows": rows}
            assert cf.flip_sets_of(ev, ctx(theta)) == truth
            if truth:
                outcomes.add("rejected")
                reason = rejected(no_flip, theta, ev, match=r"is a flip set, contradicting the claim")
                F = re.search(r"F = \{([0-9, ]+)\}", reason).group(1)
                assert frozenset(int(x) - 1 for x in F.split(", ")) in truth
            else:
                outcomes.add("accepted")
                msg = no_flip(theta, ev)
                assert re.fullmatch(rf"enumerate: none of the 2\^\d+ 0/1 points of ker U_S mod {p} is a flip set",
                                    msg)
    assert outcomes == {"accepted", "rejected"}


def test_enumerate_reports_the_kernel_dimension():
    theta = S([1, 1, 1], [[1, 0], [0, 1], [1, 1]], [0, 1, 2], [0])      # U = [[1,0,1],[0,1,1]]: kernel dim 1
    assert no_flip(theta, {"method": "enumerate", "p": P31, "rows": [0, 1]}) == \
        f"enumerate: none of the 2^1 0/1 points of ker U_S mod {P31} is a flip set"
    assert no_flip(theta, {"method": "enumerate", "p": P31, "rows": []}) == \
        f"enumerate: none of the 2^3 0/1 points of ker U_S mod {P31} is a flip set"
    assert no_flip(theta, {"method": "enumerate", "p": P31, "rows": [1]}) == \
        f"enumerate: none of the 2^2 0/1 points of ker U_S mod {P31} is a flip set"
    # rows that are 0 mod p do not cut the kernel: u = (p, 2p, 3p) (one row) leaves all 2^3 points
    theta = S([1, 1, 1], [[P31], [2 * P31], [3 * P31]], [0, 1, 2], [0])
    assert no_flip(theta, {"method": "enumerate", "p": P31, "rows": [0]}) == \
        f"enumerate: none of the 2^3 0/1 points of ker U_S mod {P31} is a flip set"
    assert no_flip(theta, {"method": "enumerate", "p": 2**61 - 1, "rows": [0]}) == \
        f"enumerate: none of the 2^2 0/1 points of ker U_S mod {2**61 - 1} is a flip set"


def test_enumerate_needs_a_prime_above_2_30():
    """Modulo a small prime every point is a candidate: refused, at the boundary 2^30 too."""
    theta = S([1, 1, 1], [[1], [2], [4]], [0, 1, 2], [0])                 # no flip set
    for p in (2, 3, 5, 7, 1009, 2**30 - 35):                             # 2^30 − 35: the largest prime below 2^30
        assert is_prime(p)
        assert rejected(no_flip, theta, {"method": "enumerate", "p": p, "rows": [0]}, match="") == \
            f"enumeration needs a prime above 2^30, not {p} (a small prime makes every point a candidate)"
        with pytest.raises(CheckFailed, match="needs a prime above 2\\^30"):
            cf.flip_sets_of({"method": "enumerate", "p": p, "rows": [0]}, ctx(theta))
    for p in BIG_PRIMES:                                                 # 2^30 + 3: the smallest prime above 2^30
        assert no_flip(theta, {"method": "enumerate", "p": p, "rows": [0]}) == \
            f"enumerate: none of the 2^2 0/1 points of ker U_S mod {p} is a flip set"
    # the small prime is refused before the rows are read
    assert rejected(no_flip, theta, {"method": "enumerate", "p": 3, "rows": [5]}, match="").startswith(
        "enumeration needs a prime above 2^30, not 3")


def test_enumerate_finds_flip_sets_that_are_only_zero_mod_p_candidates(monkeypatch):
    # u = (1, 2, −3): {1,2,3} is a flip set, found whatever the prime
    theta = S([1, 1, 1], [[1], [2], [-3]], [0, 1, 2], [0])
    for p in BIG_PRIMES:
        rejected(no_flip, theta, {"method": "enumerate", "p": p, "rows": [0]}, match=r"^F = \{1, 2, 3\} is a flip set")
    # with a prime above 2^30, aliases are forced by multiples of p: each candidate is checked exactly
    seen = []
    is_flip = cf._is_flip
    monkeypatch.setattr(cf, "_is_flip", lambda th, F: seen.append(frozenset(F)) or is_flip(th, F))
    for p in BIG_PRIMES:
        # u = (1, 2, p − 3): 1 + 2 + (p − 3) = p ≡ 0, no flip set; u = (1, −1, p): {1, 2} is, {1, 2, 3} and {3} alias
        theta = S([1, 1, 1], [[1], [2], [p - 3]], [0, 1, 2], [0])
        seen.clear()
        assert no_flip(theta, {"method": "enumerate", "p": p, "rows": [0]}) == \
            f"enumerate: none of the 2^2 0/1 points of ker U_S mod {p} is a flip set"
        assert seen == [frozenset({0, 1, 2})] and not brute_force(theta)
        assert cf.flip_sets_of({"method": "enumerate", "p": p, "rows": [0]}, ctx(theta)) == set()
        theta = S([1, 1, 1], [[1], [-1], [p]], [0, 1, 2], [0])
        assert brute_force(theta) == {frozenset({0, 1})}
        seen.clear()
        assert cf.flip_sets_of({"method": "enumerate", "p": p, "rows": [0]}, ctx(theta)) == {frozenset({0, 1})}
        assert set(seen) == {frozenset({0, 1}), frozenset({2}), frozenset({0, 1, 2})}
        rejected(no_flip, theta, {"method": "enumerate", "p": p, "rows": [0]},
                 match=r"^F = \{1, 2\} is a flip set, contradicting the claim$")
        # two outputs: the alias on output 1 is no flip set because output 2 does not cancel
        theta = S([[1, 1, 1], [1, 1, 2]], [[1], [2], [p - 3]], [0, 1, 2], [0, 0])
        assert no_flip(theta, {"method": "enumerate", "p": p, "rows": [0]}).startswith("enumerate: none of the 2^2")
        assert not brute_force(theta)


def test_enumerate_limit(monkeypatch):
    monkeypatch.setattr(cf, "ENUMERATE_LIMIT", 3)
    theta = S([1, 1, 1], [[1], [2], [4]], [0, 1, 2], [0])
    assert no_flip(theta, {"method": "enumerate", "p": P31, "rows": []}).startswith("enumerate: none of the 2^3")
    theta = S([1, 1, 1, 1], [[1], [2], [4], [8]], [0, 1, 2, 3], [0])
    rejected(no_flip, theta, {"method": "enumerate", "p": P31, "rows": []},
             match=rf"^kernel dimension 4 mod {P31} exceeds the checker's limit 3$")
    assert no_flip(theta, {"method": "enumerate", "p": P31, "rows": [0]}).startswith("enumerate: none of the 2^3")
    # a row that vanishes mod p does not lower the kernel dimension
    theta = S([1, 1, 1, 1], [[P31], [2 * P31], [4 * P31], [8 * P31]], [0, 1, 2, 3], [0])
    rejected(no_flip, theta, {"method": "enumerate", "p": P31, "rows": [0]},
             match=rf"^kernel dimension 4 mod {P31} exceeds the checker's limit 3$")


# ---- meet in the middle and z3 -------------------------------------------------------------------

def test_mitm_agrees_with_brute_force():
    outcomes = set()
    for theta in pool(31, 80) + pool(32, 20, frac=False):
        truth = brute_force(theta)
        assert cf.flip_sets_of({"method": "mitm", "n": theta.n}, ctx(theta)) == truth
        ev = {"method": "mitm", "n": theta.n}
        if truth:
            outcomes.add("rejected")
            rejected(no_flip, theta, ev, match="is a flip set, contradicting the claim")
            rejected(no_flip, theta, {"method": "z3", "encoding": "pb", "rows": []}, match="contradicting the claim")
        else:
            outcomes.add("accepted")
            h = theta.n // 2
            assert no_flip(theta, ev) == (f"mitm: meet in the middle over 2 × 2^{theta.n - h} subset sums found no "
                                          f"flip set (n = {theta.n})")
            assert no_flip(theta, {"method": "z3", "encoding": "pb", "rows": []}) == \
                "z3's answer re-decided by the checker: " + no_flip(theta, ev)
    assert outcomes == {"accepted", "rejected"}


def test_mitm_finds_flip_sets_with_repeated_subset_sums():
    # many equal columns: equal left sums must all be paired with the right sums
    theta = S([1] * 6, [[1], [1], [1], [-1], [-1], [2]], list(range(6)), [0])
    assert cf.flip_sets_of({"method": "mitm", "n": 6}, ctx(theta)) == brute_force(theta)
    theta = S([1] * 5, [[1], [1], [1], [1], [-4]], list(range(5)), [0])
    assert cf.flip_sets_of({"method": "mitm", "n": 5}, ctx(theta)) == {frozenset(range(5))}
    theta = S([1] * 5, [[-4], [1], [1], [1], [1]], list(range(5)), [0])
    assert cf.flip_sets_of({"method": "mitm", "n": 5}, ctx(theta)) == {frozenset(range(5))}


def test_mitm_and_z3_limits(monkeypatch):
    monkeypatch.setattr(cf, "MITM_LIMIT", 3)
    small, big = S([1, 1, 1], [[1], [2], [4]], [0, 1, 2], [0]), S([1] * 4, [[1], [2], [4], [8]], [0, 1, 2, 3], [0])
    assert no_flip(small, {"method": "mitm", "n": 3}).startswith("mitm:")
    assert no_flip(small, {"method": "z3", "encoding": "int", "rows": [0]}).startswith("z3's answer re-decided")
    rejected(no_flip, big, {"method": "mitm", "n": 4}, match=r"n = 4 exceeds the checker's meet-in-the-middle limit 3")
    rejected(no_flip, big, {"method": "z3", "encoding": "pb", "rows": []},
             match=r"a solver's unsat is not a proof, and n = 4 > 3 is beyond the checker's own meet in the middle")


def test_mitm_evidence_names_the_network_size():
    theta = S([1, 1, 1], [[1], [2], [4]], [0, 1, 2], [0])
    rejected(no_flip, theta, {"method": "mitm", "n": 4}, match=r"evidence is for n = 4, the network has n = 3")
    rejected(no_flip, theta, {"method": "mitm", "n": "3/2"}, match=r"n: '3/2' is not an integer")


def test_collect_reports_one_based_flip_sets():
    theta = S([1, 1, 1, 1], [[3], [1], [5], [-1]], [0, 1, 2, 3], [0])     # only {2, 4}
    rejected(no_flip, theta, {"method": "mitm", "n": 4}, match=r"^F = \{2, 4\} is a flip set, contradicting the claim$")
    rejected(no_flip, theta, {"method": "enumerate", "p": P31, "rows": []},
             match=r"^F = \{2, 4\} is a flip set, contradicting the claim$")
    rejected(no_flip, theta, {"method": "enumerate", "p": P31, "rows": [0]},
             match=r"^F = \{2, 4\} is a flip set, contradicting the claim$")


# ---- flip_sets_of and fibre-orbits -----------------------------------------------------------------

def test_flip_sets_of_needs_an_enumeration():
    theta = S([1, 1], [[1], [-1]], [0, 1], [0])
    assert cf.flip_sets_of({"method": "mitm", "n": 2, "orbits": 2, "flip_sets": [[0, 1]]}, ctx(theta)) == \
        {frozenset({0, 1})}
    assert cf.flip_sets_of({"method": "enumerate", "p": P31, "rows": [0], "orbits": 2}, ctx(theta)) == \
        {frozenset({0, 1})}
    for ev, match in (({"method": "enumerate", "p": 4, "rows": [0]}, "p = 4 is not prime"),
                      ({"method": "enumerate", "p": 3, "rows": [0]}, r"^enumeration needs a prime above 2\^30, not 3 "),
                      ({"method": "enumerate", "p": P31, "rows": [5]}, r"rows: index out of range \[0, 1\)"),
                      ({"method": "mitm", "n": 3}, "evidence is for n = 3, the network has n = 2")):
        with pytest.raises(CheckFailed) as e:
            cf.flip_sets_of(ev, ctx(theta))
        assert e.value.claim == "claim-7" and re.search(match, e.value.reason)
    for ev in ({"method": "rank", "p": 3, "rows": [0]}, {"method": "mitm"}, {"method": "mitm", "n": 2, "x": 0},
               {"method": None}, {"method": "enumerate", "p": 3}):
        with pytest.raises(CheckFailed, match=r"an enumeration needs enumerate or mitm evidence, got"):
            cf.flip_sets_of(ev, ctx(theta))


def test_fibre_orbits():
    theta = S([1, 1, 2, 1], [[1], [-1], [1], [2]], [0, 1, 2, 3], [0])    # generic; flip sets {1,2}
    truth = brute_force(theta)
    listed = [sorted(F) for F in truth]
    v = VERIFIERS[ClaimKind.FIBRE_ORBITS]
    ev = {"method": "mitm", "n": 4, "orbits": len(truth) + 1, "flip_sets": listed}
    assert v(ev, ctx(theta)).startswith(f"the fibre is the disjoint union of {len(truth) + 1} H_n-orbits")
    with pytest.raises(CheckFailed, match="not all of them"):
        v(dict(ev, flip_sets=listed[1:]), ctx(theta))
    with pytest.raises(CheckFailed, match="orbits"):
        v(dict(ev, orbits=len(truth) + 2), ctx(theta))
    with pytest.raises(CheckFailed, match="generic stratum only"):
        v(ev, ctx(S([1, 1], [[1], [2]], [0, 0], [0])))


def test_a_basis_may_span_the_whole_space():
    # n = 1 and U = 0 (a dead neuron): the basis (1) has r = n; the Gram–Schmidt bound then fails, as it must
    theta = S([0], [[1]], [0], [0])
    ev = {"method": "lattice", "p": 3, "basis": [[1]], "inverse": [[1]], "rank_rows": [], "rank_cols": []}
    assert rejected(no_flip, theta, ev, match="") == "Gram–Schmidt bound fails at vector 1: ‖b*‖² = 1 ≤ n = 1"


def test_malformed_evidence_names_its_claim():
    theta = S([1, 1, 1], [[1], [2], [4]], [0, 1, 2], [0])
    for ev, reason in [({"method": "enumerate", "p": True, "rows": []}, "p must be an integer, got True"),
                       ({"method": "enumerate", "p": P31, "rows": [1]}, "rows: index out of range [0, 1)"),
                       ({"method": "enumerate", "p": P31, "rows": "0"}, "rows must be a list"),
                       ({"method": "enumerate", "p": P31, "rows": [0, 0]}, "rows: repeated index"),
                       ({"method": "enumerate", "p": 5, "rows": [0]},
                        "enumeration needs a prime above 2^30, not 5 (a small prime makes every point a candidate)"),
                       ({"method": "rank", "p": "x", "rows": [0]}, "p: not an integer or 'p/q' string: 'x'"),
                       ({"method": "rank", "p": "5/1", "rows": [0]}, "p: '5/1': an integer is written 'p', not 'p/1'"),
                       ({"method": "lattice", "p": 2**64 + 13, "basis": [], "inverse": [], "rank_rows": [],
                         "rank_cols": []}, "p = 18446744073709551629 is outside [2, 2^63)")]:
        assert rejected(no_flip, theta, ev, match="") == reason
