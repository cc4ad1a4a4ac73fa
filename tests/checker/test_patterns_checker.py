"""The no-other-pattern verifier's parts (reluid/checker/patterns.py) against brute force.

For every case (P, q) of small essential networks -- rigid ones and ones with a
hidden symmetry -- the question "is there an orientation e of J with
rank X(e) ≤ q" is answered by trying every e with exact ranks; each case
method (box, modp-enum with primes above 2^30 -- the only ones it accepts --,
with aliases mod p forced by multiples of p, proj-enum with and without T)
must then accept exactly when the answer is no.  θ's own data (classes, K,
L, Z_P, X₀) is compared with values derived by hand, and every rejection is
triggered with its message.
"""

from __future__ import annotations

import ast
import copy
import itertools
import json
import math
import random
from fractions import Fraction

import flint
import pytest

from reluid.analysis.shallow.essential import decide_essential
from reluid.certificates.schema import ClaimKind, thaw
from reluid.checker import linalg
from reluid.checker import patterns as cp
from reluid.checker.registry import VERIFIERS, Context
from reluid.errors import CheckFailed
from reluid.model.network import Network, Shallow
from reluid.verdicts import Outcome
from tests.analysis.shallow.pattern_oracles import HIDDEN_EXAMPLES, METHOD_EXAMPLES, random_essential

S = Shallow.make
F = Fraction
BOX = METHOD_EXAMPLES["box"][0]          # S([-2, 1, -1], [[0, 1/2], [0, -1/2], [1, 0]], [1, -1, -2], [-2])
#: primes modp-enum accepts (between 2^30 and 2^63): the first above 2^30, 2^31 − 1, 2^61 − 1, the last below 2^63
BIG_PRIMES = (2**30 + 3, 2**31 - 1, 2**61 - 1, 2**63 - 25)
P31 = 2**31 - 1
SMALL = "is not a prime between 2^30 and 2^63 (a small prime makes every point a candidate)"


def ctx(theta, cid="pat"):
    return Context(theta.to_network(), cid)


def verify(theta, ev):
    return VERIFIERS[ClaimKind.NO_OTHER_PATTERN](json.loads(json.dumps(ev)), ctx(theta))


def reason_of(call, *args):
    with pytest.raises(CheckFailed) as e:
        call(*args)
    assert e.value.claim == "pat"
    return e.value.reason


def evidence_of(theta):
    res = decide_essential(theta)
    assert res.outcome is Outcome.NONE
    return thaw(res.evidence)


def rank(rows):
    if not rows or not rows[0]:
        return 0
    return flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in r] for r in rows]).rank()


def solutions(th, case):
    """Every orientation e of J (a dict) with rank X(e) ≤ q, X(e) = X₀ + Σ e_r K_r ā_rᵀ."""
    out = []
    for bits in itertools.product((0, 1), repeat=len(case.J)):
        X = [list(row) for row in case.X0]
        for r, e in zip(case.J, bits):
            if e:
                for j in range(th.k):
                    for l in range(case.mp):
                        X[j][l] += th.K[r][j] * case.abar[r][l]
        if rank(X) <= case.q:
            out.append(dict(zip(case.J, bits)))
    return out


def essential_pool():
    pool = [t for t, _ in METHOD_EXAMPLES.values() if t.n <= 6] + [t for t, _ in HIDDEN_EXAMPLES.values()]
    rng = random.Random(17)
    for _ in range(40):
        m, k, p = rng.choice([(1, 1, 1), (2, 1, 1), (2, 2, 1), (2, 1, 2), (2, 2, 2), (3, 2, 2)])
        pool.append(random_essential(rng, m=m, k=k, p=p, t=rng.randint(0, 3), wmax=2))
    return pool


POOL = essential_pool()


def cases_of(theta):
    th = cp._Theta(ctx(theta))
    for q in range(th.p // 2 + 1):
        for P in itertools.combinations(range(th.s), th.p - 2 * q):
            yield th, cp._Case(th, P, q)


def run_case(theta, th, case, ent):
    cp._verify_case(ctx(theta), th, case, ent)


# ---- θ's data -----------------------------------------------------------------------------------------

def test_theta_data_by_hand():
    th = cp._Theta(ctx(BOX))
    # rows (0, 1/2 | 1), (0, −1/2 | −1): one line, key (0, 1, 2), λ = ±1/2; row (1, 0 | −2): key (1, 0, −2)
    assert th.keys == [(0, 1, 2), (1, 0, -2)] and th.s == 2 and th.p == 1 and th.P_theta == (0,)
    assert th.own == ["P", "+"] and th.singles == {1: 2} and (th.m, th.k, th.n) == (2, 1, 3)
    assert th.K == [[F(-1, 2)], [F(-1)]]                      # (1/2)(−2) + (1/2)(1); 1·(−1)
    assert th.L == [[F(0), F(-1, 2)]]                         # −(1/2)·1·(0, 1)
    assert th.a(0) == (0, 1) and th.a(1) == (1, 0)
    own, other = cp._Case(th, (0,), 0), cp._Case(th, (1,), 0)
    assert own.own and not other.own and own.J == [1] and other.J == [0]
    assert own.Z == [(1, 0)] and other.Z == [(0, 1)] and own.mp == other.mp == 1
    assert own.abar == {1: (1,)} and other.abar == {0: (1,)}
    assert own.X0 == [[F(0)]] and other.X0 == [[F(-1, 2)]]
    assert other.where() == "case P = [1], q = 0"
    # a single on the negative side, two outputs
    theta = S([[1, 2, 3], [1, 0, -1]], [[1], [-1], [-2]], [0, 0, 2], [0, 0])
    th = cp._Theta(ctx(theta))
    assert th.keys == [(1, -1), (1, 0)] and th.own == ["-", "P"] and th.singles == {0: 2}
    assert th.K == [[F(6), F(-2)], [F(3), F(1)]]              # 2·(3, −1); (1, 1) + (2, 0)
    assert th.L == [[F(-8)], [F(2)]]                          # −2·(3, −1) − 1·(2, 0)


def test_annihilator_is_primitive_and_positive():
    assert linalg.integer_kernel([(1, 0)], 2) == [(0, 1)]
    assert linalg.integer_kernel([(2, 4, 0)], 3) == [(-2, 1, 0), (0, 0, 1)]
    assert linalg.integer_kernel([(3, 6, 9), (1, 1, 1)], 3) == [(1, -2, 1)]
    assert linalg.integer_kernel([], 2) == [(1, 0), (0, 1)]
    assert linalg.integer_kernel([(1, 1), (1, -1)], 2) == []
    rng = random.Random(3)
    for _ in range(100):
        m = rng.randint(1, 4)
        rows = [tuple(rng.randint(-3, 3) for _ in range(m)) for _ in range(rng.randint(0, 3))]
        Z = linalg.integer_kernel(rows, m)
        assert len(Z) == m - rank([[F(x) for x in r] for r in rows])
        for z in Z:
            assert all(sum(a * b for a, b in zip(r, z)) == 0 for r in rows)
            assert math.gcd(*z) == 1 and all(isinstance(v, int) for v in z)
        if Z:
            assert rank([[F(x) for x in z] for z in Z]) == len(Z)


def test_rref_and_rank():
    R, piv = linalg.rref([[0, 2, 4], [1, 1, 1], [1, 3, 5]], 3)
    assert piv == [0, 1] and R == [[1, 0, -1], [0, 1, 2]]
    assert linalg.rank([]) == 0 and linalg.rank([[]]) == 0 and linalg.rank([[0, 0]]) == 0 and linalg.rank([[0, 3]]) == 1
    rng = random.Random(4)
    for _ in range(100):
        rows = [[F(rng.randint(-2, 2), rng.choice([1, 2])) for _ in range(3)] for _ in range(rng.randint(1, 4))]
        assert linalg.rank(rows) == rank(rows)


def test_the_stratum_is_recomputed():
    for theta, match in [
        (S([1, 0, 1], [[1], [-1], [2]], [0, 0, 1], [0]), "not on the essential stratum: neuron 2 has m_i = 0"),
        (S([1, 1, 1], [[1], [-1], [0]], [0, 0, 1], [0]), "not on the essential stratum: neuron 3 has a_i = 0"),
        (S([1, 1, 1], [[1], [-1], [2]], [0, 0, 0], [0]), "not on the essential stratum: 3 neurons on one hyperplane, "
                                                         "not an opposite pair"),
        (S([1, 1], [[1], [2]], [0, 0], [0]), "not on the essential stratum: 2 neurons on one hyperplane, not an "
                                             "opposite pair"),
        (S([1, -1, 1], [[1], [-1], [1]], [0, 0, 1], [0]), "not on the essential stratum: the kinks on hyperplane "
                                                          "(1, 0) cancel"),
        (S([1, 1], [[1], [2]], [0, 1], [0]), "not on the essential stratum: no opposite pair (this is the generic "
                                             "stratum)"),
        (S([1, 1, 1, 1], [[1], [-1], [1], [-1]], [0, 0, 1, -1], [0]), "not on the essential stratum: the pair "
                                                                      "directions are linearly dependent"),
    ]:
        assert reason_of(cp._Theta, ctx(theta)) == match
    deep = Network.from_lists([([[1]], [0]), ([[1]], [0]), ([[1]], [0])])
    with pytest.raises(CheckFailed, match=r"realisation patterns are defined for shallow networks only \("):
        cp._Theta(Context(deep, "pat"))
    # two outputs: a pair cancels only if every output cancels
    assert cp._Theta(ctx(S([[1, -1], [1, 2]], [[1], [-1]], [0, 0], [0, 0]))).P_theta == (0,)


# ---- the methods against brute force --------------------------------------------------------------------

def test_modp_enum_accepts_exactly_the_cases_without_a_solution():
    seen = set()
    for theta in POOL:
        for th, case in cases_of(theta):
            if case.own or case.q or min(th.k, case.mp) <= 0:
                continue
            truth = solutions(th, case)
            Jp, U, t = cp._system(th, case)
            small = {"P": list(case.P), "q": 0, "method": "modp-enum", "prime": 7}
            assert reason_of(run_case, theta, th, case, small) == f"{case.where()}: 7 {SMALL}"
            for p in BIG_PRIMES:
                ent = {"P": list(case.P), "q": 0, "method": "modp-enum", "prime": p}
                if truth:
                    seen.add("solution")
                    reason = reason_of(run_case, theta, th, case, ent)
                    assert reason.startswith(f"{case.where()}: the orientation e = ") and \
                        reason.endswith(f"on J′ = {Jp} solves X(e) = 0")
                    e = json.loads(reason.split("e = ")[1].split(" on")[0])
                    assert any(all(s[r] == v for r, v in zip(Jp, e)) for s in truth)
                else:
                    seen.add("none")
                    run_case(theta, th, case, ent)
    assert seen == {"solution", "none"}


def test_modp_enum_system_is_the_integer_form_of_x_e():
    for theta in POOL[:12]:
        for th, case in cases_of(theta):
            if case.q:
                continue
            Jp, U, t = cp._system(th, case)
            assert Jp == [r for r in case.J if any(case.abar[r])]
            assert all(isinstance(v, int) for row in U for v in row) and all(isinstance(v, int) for v in t)
            # U e = t  ⟺  X(e) = 0 on J′, for every e
            for bits in itertools.product((0, 1), repeat=len(Jp)):
                X = [x for row in case.X0 for x in row]
                for r, e in zip(Jp, bits):
                    if e:
                        X = [x + th.K[r][j] * case.abar[r][l] for (j, l), x in
                             zip(itertools.product(range(th.k), range(case.mp)), X)]
                lhs = [sum(a * b for a, b in zip(row, bits)) for row in U]
                assert (lhs == t) == (not any(X))
            if U:
                assert math.gcd(*[v for row in U for v in row], *t) >= 1


def test_modp_enum_boundaries(monkeypatch):
    theta = METHOD_EXAMPLES["modp-enum"][0]
    ev = evidence_of(theta)
    e = next(x for x in ev["cases"] if x["method"] == "modp-enum")
    where = f"case P = {e['P']}, q = {e['q']}"
    for p in (1, 4, -7, 2, 3, 7, 2**30 - 35, 2**30, 2**31 + 1, 2**63, 2**63 + 29):
        # 2^30 − 35 is the largest prime below 2^30; 2^63 + 29 a prime above 2^63; 2^31 + 1 = 3 · 715827883
        bad = copy.deepcopy(ev)
        next(x for x in bad["cases"] if x["method"] == "modp-enum")["prime"] = p
        assert reason_of(verify, theta, bad) == f"{where}: {p} {SMALL}"
    assert flint.fmpz(2**63 + 29).is_prime() and flint.fmpz(2**30 - 35).is_prime()
    for p in BIG_PRIMES:
        good = copy.deepcopy(ev)
        next(x for x in good["cases"] if x["method"] == "modp-enum")["prime"] = p
        assert verify(theta, good).startswith("no other realisation pattern")
    th = cp._Theta(ctx(theta))
    case = cp._Case(th, tuple(e["P"]), e["q"])
    Jp, U, t = cp._system(th, case)
    # one coordinate, U e = t has the unique solution e = t/U ∉ {0, 1} mod p: a pivot, no free coordinate
    assert len(Jp) == 1 and t[0] % U[0][0] and t[0] * pow(U[0][0], -1, P31) % P31 not in (0, 1)
    monkeypatch.setattr(cp, "ENUMERATE_LIMIT", 0)
    run_case(theta, th, case, dict(e, prime=P31))                 # 0 free coordinates: within a limit of 0
    monkeypatch.setattr(cp, "ENUMERATE_LIMIT", -1)
    assert reason_of(run_case, theta, th, case, dict(e, prime=P31)) == \
        f"{case.where()}: 0 free coordinates mod {P31} exceed the checker's limit -1"


def test_box_agrees_with_its_value():
    rng = random.Random(21)
    seen = set()
    for theta in POOL:
        for th, case in cases_of(theta):
            if case.own or case.q or min(th.k, case.mp) <= 0:
                continue
            for _ in range(6):
                y = [F(rng.randint(-3, 3), rng.choice([1, 2])) for _ in range(th.k * case.mp)]
                Y = [y[j * case.mp:(j + 1) * case.mp] for j in range(th.k)]
                val = sum((Y[j][l] * case.X0[j][l] for j in range(th.k) for l in range(case.mp)), F(0))
                for r in case.J:
                    c = sum((Y[j][l] * th.K[r][j] * case.abar[r][l] for j in range(th.k) for l in range(case.mp)),
                            F(0))
                    val += max(F(0), c)
                ent = {"P": list(case.P), "q": 0, "method": "box", "y": [str(v) for v in y]}
                if val < 0:
                    seen.add("accepted")
                    run_case(theta, th, case, ent)
                    assert not solutions(th, case)          # soundness of the box certificate
                else:
                    seen.add("rejected")
                    assert reason_of(run_case, theta, th, case, ent) == (
                        f"{case.where()}: box value ⟨y, X₀⟩ + Σ max(0, ⟨y, C_r⟩) = {val} is not negative")
    assert seen == {"accepted", "rejected"}


def test_proj_enum_accepts_exactly_the_cases_without_a_solution():
    seen = set()
    for theta in POOL:
        for th, case in cases_of(theta):
            if case.own or min(th.k, case.mp) <= case.q:
                continue
            truth = solutions(th, case)
            ident = [[int(i == j) for i in range(case.mp)] for j in range(case.mp)]
            ent = {"P": list(case.P), "q": case.q, "method": "proj-enum", "T": [], "F": ident}
            if truth:
                seen.add("solution")
                reason = reason_of(run_case, theta, th, case, ent)
                assert reason.startswith(f"{case.where()}: the orientation {{") and \
                    reason.endswith(f"(0 on T) gives rank X(e)F ≤ {case.q}")
            else:
                seen.add("none")
                run_case(theta, th, case, ent)
    assert seen == {"solution", "none"}


def test_proj_enum_with_t():
    """With T, F must annihilate ā_r for r ∈ T; the orientations of T then do not matter."""
    checked = 0
    for theta in POOL:
        for th, case in cases_of(theta):
            if case.own or min(th.k, case.mp) <= case.q or not case.J:
                continue
            for r in case.J:
                # the columns F = a basis of {f : ā_r · f = 0}
                Fcols = linalg.integer_kernel([case.abar[r]], case.mp) if any(case.abar[r]) else \
                    [tuple(int(i == j) for i in range(case.mp)) for j in range(case.mp)]
                if len(Fcols) <= case.q:
                    continue
                ent = {"P": list(case.P), "q": case.q, "method": "proj-enum", "T": [r], "F": [list(c) for c in Fcols]}
                rest = [x for x in case.J if x != r]
                bad = False
                for bits in itertools.product((0, 1), repeat=len(rest)):
                    X = [list(row) for row in case.X0]
                    for rr, e in zip(rest, bits):
                        if e:
                            for j in range(th.k):
                                for l in range(case.mp):
                                    X[j][l] += th.K[rr][j] * case.abar[rr][l]
                    XF = [[sum((x * c for x, c in zip(row, col)), F(0)) for col in Fcols] for row in X]
                    bad = bad or rank(XF) <= case.q
                checked += 1
                if bad:
                    assert "(0 on T) gives rank X(e)F" in reason_of(run_case, theta, th, case, ent)
                else:
                    run_case(theta, th, case, ent)
                    assert not solutions(th, case)
    assert checked > 20


def test_proj_enum_rejections(monkeypatch):
    theta = METHOD_EXAMPLES["proj-enum"][0]
    ev = evidence_of(theta)
    e = next(x for x in ev["cases"] if x["method"] == "proj-enum")
    th = cp._Theta(ctx(theta))
    case = cp._Case(th, tuple(e["P"]), e["q"])
    w = case.where()
    run_case(theta, th, case, e)
    assert reason_of(run_case, theta, th, case, dict(e, T=[case.J[0], case.J[0]])) == \
        f"{w}: T = {[case.J[0], case.J[0]]} is not an increasing list of classes outside P"
    if len(case.P):
        assert reason_of(run_case, theta, th, case, dict(e, T=[case.P[0]])) == \
            f"{w}: T = {[case.P[0]]} is not an increasing list of classes outside P"
    assert reason_of(run_case, theta, th, case, dict(e, F=e["F"][:case.q])) == f"{w}: F has {case.q} ≤ q columns"
    Fq = [[F(x) for x in col] for col in e["F"]]
    outside = [r for r in case.J if r not in e["T"]
               and any(sum((a * x for a, x in zip(case.abar[r], col)), F(0)) for col in Fq)]
    assert outside
    T = sorted(e["T"] + outside[:1])
    assert reason_of(run_case, theta, th, case, dict(e, T=T)) == \
        f"{w}: F does not annihilate Z_P a_r for class {outside[0]} ∈ T"
    monkeypatch.setattr(cp, "ENUMERATE_LIMIT", len(case.J) - len(e["T"]) - 1)
    n = len(case.J) - len(e["T"])
    assert reason_of(run_case, theta, th, case, e) == \
        f"{w}: 2^{n} orientations exceed the checker's limit 2^{n - 1}"
    monkeypatch.setattr(cp, "ENUMERATE_LIMIT", n)
    run_case(theta, th, case, e)


def test_det_mod():
    p = 101
    rng = random.Random(6)
    for _ in range(200):
        s = rng.randint(1, 4)
        A = [[rng.choice([0, 0, 1, 2, 50, 100]) for _ in range(s)] for _ in range(s)]
        expect = int(flint.nmod_mat(s, s, [x for r in A for x in r], p).det())
        before = [r[:] for r in A]
        assert cp._det_mod(A, p) == expect
        assert A == before                                        # the argument is not changed
    assert cp._det_mod([[0, 1], [1, 0]], 7) == 6 and cp._det_mod([[0, 0], [1, 0]], 7) == 0
    assert cp._det_mod([[3]], 7) == 3 and cp._det_mod([], 7) == 1


def test_sketch_entries_are_fixed():
    assert cp._sketch_entry(0, 1, 2) == int.from_bytes(
        __import__("hashlib").sha256(b"reluid pattern sketch 0 1 2").digest()[:8], "big") % (2**61 - 1)
    assert len({cp._sketch_entry(t, i, j) for t in (0, 1) for i in range(3) for j in range(3)}) == 18


# ---- the case method rules --------------------------------------------------------------------------------

def test_case_method_rules():
    ev = evidence_of(BOX)
    th = cp._Theta(ctx(BOX))
    own, other = cp._Case(th, (0,), 0), cp._Case(th, (1,), 0)
    flip_ent = next(x for x in ev["cases"] if x["method"] == "flip")
    box_ent = next(x for x in ev["cases"] if x["method"] == "box")
    run_case(BOX, th, own, flip_ent)
    run_case(BOX, th, other, box_ent)
    assert reason_of(run_case, BOX, th, own, {"method": "own-only"}) == \
        "case P = [0], q = 0: own-only needs the own case of a θ without single neurons"
    assert reason_of(run_case, BOX, th, other, {"method": "own-only"}) == \
        "case P = [1], q = 0: own-only needs the own case of a θ without single neurons"
    for meth in ("box", "lattice", "modp-enum", "proj-enum"):
        assert reason_of(run_case, BOX, th, own, dict(box_ent, method=meth)) == \
            f"case P = [0], q = 0: the own case is certified by own-only or flip, not {meth}"
    assert reason_of(run_case, BOX, th, other, dict(flip_ent, P=[1])) == \
        "case P = [1], q = 0: flip certifies the own case only"
    # the nested evidence of flip must use a §3 method the virtual network allows
    bad = dict(flip_ent, evidence={"method": "z3", "encoding": "pb", "rows": []})
    assert reason_of(run_case, BOX, th, own, bad) == ("case P = [0], q = 0: the nested evidence must use one of "
                                                      "['rank', 'lattice', 'lattice-enum', 'lattice-cvp', 'separation', "
                                                      "'separation-split', 'enumerate', 'mitm'], not 'z3'")
    # the nested §3 evidence keeps its own prime rules
    bad = dict(flip_ent, evidence={"method": "enumerate", "p": 3, "rows": []})
    assert reason_of(run_case, BOX, th, own, bad) == ("case P = [0], q = 0: enumeration needs a prime above 2^30, "
                                                      "not 3 (a small prime makes every point a candidate)")
    run_case(BOX, th, own, dict(flip_ent, evidence={"method": "enumerate", "p": P31, "rows": []}))
    bad = dict(flip_ent, evidence={"method": "mitm", "n": 7})
    assert reason_of(run_case, BOX, th, own, bad) == ("case P = [0], q = 0: evidence is for n = 7, the network has "
                                                      "n = 1")
    bad = dict(flip_ent, evidence="x")
    assert reason_of(run_case, BOX, th, own, bad) == "case P = [0], q = 0: evidence must be an object, got str"
    bad = dict(box_ent, method="lattice", evidence={"method": "enumerate", "p": 3, "rows": []})
    assert reason_of(run_case, BOX, th, other, bad) == ("case P = [1], q = 0: the nested evidence must use one of "
                                                        "['rank', 'lattice'], not 'enumerate'")


def test_own_case_with_no_free_direction():
    # one pair in Ω(1, 3, 1) with a single neuron: Z_P is empty (m′ = 0), so flipping the single is absorbed
    theta = S([1, 2, 3], [[1], [-1], [1]], [0, 0, 1], [0])
    th = cp._Theta(ctx(theta))
    own = cp._Case(th, th.P_theta, 0)
    assert own.mp == 0
    assert reason_of(run_case, theta, th, own, {"P": list(th.P_theta), "q": 0, "method": "flip",
                                                "evidence": {"method": "mitm", "n": 1}}) == \
        f"{own.where()}: m′ = 0, so flipping any single neuron is absorbed by the pairs"


def test_virtual_and_lattice_networks():
    th = cp._Theta(ctx(BOX))
    own, other = cp._Case(th, (0,), 0), cp._Case(th, (1,), 0)
    v = cp._virtual_network(th, own).shallow()
    # the single neuron 3: output −1, row Z_P a_3 = (1, 0)·(1, 0) = 1, bias 0
    assert (v.M, v.A, v.b, v.c, v.m) == (((F(-1),),), ((F(1),),), (F(0),), (F(0),), 1)
    Jp, U, t = cp._system(th, other)
    assert (Jp, U, t) == ([0], [[-1]], [1])                   # D = 2: 2·(−1/2)·1 = −1, t = −2·(−1/2) = 1
    lat = cp._lattice_network(th, other).shallow()
    # rows: the columns of [U | −(2t − U𝟙)] = [−1 | −(2 + 1)] → (−1), (−3); outputs 1
    assert lat.A == ((F(-1),), (F(-3),)) and lat.M == ((F(1), F(1)),) and lat.m == 1 and lat.b == (0, 0)


def test_verify_reads_the_whole_evidence(monkeypatch):
    theta, methods = METHOD_EXAMPLES["proj-enum"]
    ev = evidence_of(theta)
    msg = verify(theta, ev)
    total = len(ev["cases"])
    assert msg == (f"no other realisation pattern: all {total} cases (P, q) of Theorem 4 re-verified (s = {ev['s']} "
                   f"classes, p = {ev['p']} pairs; " + ", ".join(f"{v} {k}" for k, v in sorted(methods.items())) + ")")
    assert reason_of(verify, theta, dict(ev, extra=1)).startswith(
        "no-other-pattern evidence must have the fields ['cases', 'p', 's'], got ['cases', 'extra', 'p', 's']")
    assert reason_of(verify, theta, "x") == "evidence must be an object, got str"
    assert reason_of(verify, theta, dict(ev, p=ev["p"] + 1)) == (
        f"evidence is for p = {ev['p'] + 1} pairs and s = {ev['s']} classes; θ has p = {ev['p']}, s = {ev['s']}")
    assert reason_of(verify, theta, dict(ev, s=ev["s"] + 1)).startswith(f"evidence is for p = {ev['p']} pairs and s")
    assert reason_of(verify, theta, dict(ev, p=True)) == "p must be an integer, got True"
    assert reason_of(verify, theta, dict(ev, s=True)) == "s must be an integer, got True"
    assert reason_of(verify, theta, dict(ev, s="x")) == "s: not an integer or 'p/q' string: 'x'"
    assert reason_of(verify, theta, dict(ev, cases={})) == "cases must be a list"
    bad = copy.deepcopy(ev)
    bad["cases"][1] = ["x"]
    assert reason_of(verify, theta, bad) == "cases[1] must be an object, got list"
    bad = copy.deepcopy(ev)
    bad["cases"][2]["method"] = "guess"
    assert reason_of(verify, theta, bad) == "cases[2]: unknown method 'guess'"
    bad = copy.deepcopy(ev)
    bad["cases"][0]["extra"] = 1
    m0 = bad["cases"][0]["method"]
    fields = sorted({"P", "q", "method"} | cp._EXTRA[m0])
    assert reason_of(verify, theta, bad) == f"cases[0]: a {m0} entry has the fields {fields}, got " \
                                            f"{sorted(bad['cases'][0])}"
    bad = copy.deepcopy(ev)
    bad["cases"][0]["P"] = "01"
    assert reason_of(verify, theta, bad) == "cases[0].P must be a list"
    bad = copy.deepcopy(ev)
    bad["cases"][0]["P"] = [0.0]
    assert reason_of(verify, theta, bad) == "cases[0].P must be an integer, got 0.0"
    bad = copy.deepcopy(ev)
    bad["cases"][0]["q"] = "1/2"
    assert reason_of(verify, theta, bad) == "cases[0].q: '1/2' is not an integer"
    bad = copy.deepcopy(ev)
    bad["cases"].append(copy.deepcopy(bad["cases"][3]))
    c3 = bad["cases"][3]
    assert reason_of(verify, theta, bad) == f"case P = {c3['P']}, q = {c3['q']} appears twice"
    bad = copy.deepcopy(ev)
    bad["cases"].append({"P": [0, 1, 2, 3, 4, 5, 6], "q": 0, "method": "own-only"})
    assert reason_of(verify, theta, bad) == "case P = [0, 1, 2, 3, 4, 5, 6], q = 0 is not a case of θ"
    bad = copy.deepcopy(ev)
    gone = bad["cases"].pop(0)
    assert reason_of(verify, theta, bad) == f"case P = {gone['P']}, q = {gone['q']} is missing"
    bad = copy.deepcopy(ev)
    bad["cases"][0]["y"] = {"p": 1}
    bad["cases"][0]["method"] = "box"
    bad["cases"][0].pop("evidence", None)
    bad["cases"][0].pop("T", None)
    bad["cases"][0].pop("F", None)
    assert reason_of(verify, theta, bad).startswith("case P = ")
    monkeypatch.setattr(cp, "CASE_LIMIT", total)
    assert verify(theta, ev) == msg
    monkeypatch.setattr(cp, "CASE_LIMIT", total - 1)
    assert reason_of(verify, theta, ev) == f"{total} cases exceed the checker's limit {total - 1}"


def test_malformed_numbers_in_case_entries():
    ev = evidence_of(BOX)
    th = cp._Theta(ctx(BOX))
    other = cp._Case(th, (1,), 0)
    box = next(x for x in ev["cases"] if x["method"] == "box")
    w = other.where()
    assert reason_of(run_case, BOX, th, other, dict(box, y="1")) == f"{w}: y must be a list"
    assert reason_of(run_case, BOX, th, other, dict(box, y=[1, 1])) == f"{w}: y has 2 entries, expected 1"
    assert reason_of(run_case, BOX, th, other, dict(box, y=["2/4"])) == f"{w}: y: not in lowest terms: '2/4'"
    assert reason_of(run_case, BOX, th, other, dict(box, y=["-3/1"])) == \
        f"{w}: y: '-3/1': an integer is written 'p', not 'p/1'"
    assert reason_of(run_case, BOX, th, other, dict(box, y=["0.5"])) == \
        f"{w}: y: not an integer or 'p/q' string: '0.5'"
    assert reason_of(run_case, BOX, th, other, dict(box, y=[True])).startswith(f"{w}: y: boolean")
    assert reason_of(run_case, BOX, th, other, {"P": [1], "q": 0, "method": "modp-enum", "prime": "7"}) == \
        f"{w}: 7 is not a prime between 2^30 and 2^63 (a small prime makes every point a candidate)"
    assert reason_of(run_case, BOX, th, other, {"P": [1], "q": 0, "method": "proj-enum", "T": "x", "F": []}) == \
        f"{w}: T must be a list"
    assert reason_of(run_case, BOX, th, other, {"P": [1], "q": 0, "method": "proj-enum", "T": [], "F": "x"}) == \
        f"{w}: F must be a list"
    assert reason_of(run_case, BOX, th, other, {"P": [1], "q": 0, "method": "proj-enum", "T": [], "F": [[1, 2]]}) \
        == f"{w}: F column has 2 entries, expected 1"
    assert reason_of(run_case, BOX, th, other, {"P": [1], "q": 0, "method": "proj-enum", "T": ["1/2"], "F": [[1]]}) \
        == f"{w}: T: '1/2' is not an integer"


def test_cases_where_every_orientation_solves_are_rejected_outright():
    theta = HIDDEN_EXAMPLES["two_pairs_k1"][0]
    th = cp._Theta(ctx(theta))
    case = cp._Case(th, (), 1)
    assert min(th.k, case.mp) == 1
    assert reason_of(run_case, theta, th, case, {"P": [], "q": 1, "method": "proj-enum", "T": [],
                                                 "F": [[1, 0], [0, 1]]}) == \
        "case P = [], q = 1: min(k, m′) = 1 ≤ q, so every orientation solves this case"
    # box, lattice and modp-enum apply to q = 0 only (in a case that passes the min(k, m′) test)
    theta = METHOD_EXAMPLES["proj-enum-q2"][0]
    th = cp._Theta(ctx(theta))
    q1 = next(c for _, c in cases_of(theta) if c.q == 1 and not c.own and min(th.k, c.mp) > 1)
    for meth, extra in (("box", {"y": [1] * (th.k * q1.mp)}), ("modp-enum", {"prime": 7}),
                        ("lattice", {"evidence": {"method": "rank", "p": 7, "rows": []}})):
        assert reason_of(run_case, theta, th, q1, {"P": list(q1.P), "q": 1, "method": meth, **extra}) == \
            f"{q1.where()}: {meth} applies to q = 0 only"


# ---- the enumerations on synthetic systems ------------------------------------------------------------

class _Where:
    q = 0

    @staticmethod
    def where():
        return "case P = [9], q = 0"


def test_modp_enum_on_synthetic_systems(monkeypatch):
    """U e = t over e ∈ {0, 1}^J′: rejected exactly when some e solves it, whatever p above 2^30.

    In half of the trials U and t get random multiples of p added, so that many 0/1 points
    solve U e ≡ t (mod p) without solving U e = t: each must be checked exactly.
    """
    rng = random.Random(31)
    outcomes = set()
    aliased = 0
    for trial in range(400):
        nJ, rows = rng.randint(1, 5), rng.randint(1, 4)
        p = rng.choice(BIG_PRIMES)
        lift = (lambda: p * rng.randint(-1, 1)) if trial % 4 >= 2 else (lambda: 0)
        U = [[rng.randint(-2, 2) + lift() for _ in range(nJ)] for _ in range(rows)]
        e0 = [rng.randint(0, 1) for _ in range(nJ)]
        if trial % 4 == 0:
            t = [rng.randint(-3, 3) for _ in range(rows)]
        elif trial % 4 == 2:                 # e0 solves U e ≡ t (mod p), and U e = t only if no row is lifted
            t = [sum(a * b for a, b in zip(row, e0)) + lift() for row in U]
        else:
            t = [sum(a * b for a, b in zip(row, e0)) for row in U]
        Jp = sorted(rng.sample(range(9), nJ))
        monkeypatch.setattr(cp, "_system", lambda th, case, s=(Jp, U, t): s)
        sols = [e for e in itertools.product((0, 1), repeat=nJ)
                if all(sum(a * b for a, b in zip(row, e)) == ti for row, ti in zip(U, t))]
        mod_sols = [e for e in itertools.product((0, 1), repeat=nJ)
                    if all((sum(a * b for a, b in zip(row, e)) - ti) % p == 0 for row, ti in zip(U, t))]
        aliased += not sols and bool(mod_sols)
        if sols:
            outcomes.add("solution")
            reason = reason_of(cp._modp_enum, Context(BOX.to_network(), "pat"), None, _Where, p)
            assert reason.startswith("case P = [9], q = 0: the orientation e = [")
            assert reason.endswith(f"] on J′ = {Jp} solves X(e) = 0")
            e = tuple(json.loads(reason.split("e = ")[1].split(" on")[0]))
            assert e in sols
        else:
            outcomes.add("none")
            cp._modp_enum(Context(BOX.to_network(), "pat"), None, _Where, p)
    assert outcomes == {"solution", "none"}
    assert aliased > 40                  # systems with only mod-p solutions were accepted
    assert reason_of(cp._modp_enum, Context(BOX.to_network(), "pat"), None, _Where, 101) == \
        f"case P = [9], q = 0: 101 {SMALL}"


def test_modp_enum_limit_is_on_the_free_coordinates(monkeypatch):
    p = P31
    U, t = [[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]], [1, 1]          # rank 2 mod p, 3 free coordinates
    monkeypatch.setattr(cp, "_system", lambda th, case: ([0, 1, 2, 3, 4], U, t))
    c = Context(BOX.to_network(), "pat")
    monkeypatch.setattr(cp, "ENUMERATE_LIMIT", 3)
    e = json.loads(reason_of(cp._modp_enum, c, None, _Where, p).split("e = ")[1].split(" on")[0])
    assert e[0] + e[1] == 1 and e[2] + e[3] == 1 and e[4] in (0, 1)
    monkeypatch.setattr(cp, "ENUMERATE_LIMIT", 2)
    assert reason_of(cp._modp_enum, c, None, _Where, p) == \
        f"case P = [9], q = 0: 3 free coordinates mod {p} exceed the checker's limit 2"
    # a row that is a multiple of p does not count: [p, p, 0, 0, 0] leaves 4 free coordinates
    monkeypatch.setattr(cp, "_system", lambda th, case: ([0, 1, 2, 3, 4], [[p, p, 0, 0, 0], [0, 0, 1, 1, 0]], [0, 1]))
    monkeypatch.setattr(cp, "ENUMERATE_LIMIT", 3)
    assert reason_of(cp._modp_enum, c, None, _Where, p) == \
        f"case P = [9], q = 0: 4 free coordinates mod {p} exceed the checker's limit 3"
    monkeypatch.setattr(cp, "_system", lambda th, case: ([0, 1], [[1, 1], [1, 1]], [1, 2]))
    cp._modp_enum(c, None, _Where, p)                              # 0 ≡ 1 after elimination: no solution at all
    monkeypatch.setattr(cp, "ENUMERATE_LIMIT", 0)
    cp._modp_enum(c, None, _Where, p)                              # ... found before counting free coordinates


def synthetic_case(rng, sketch_multiple=False):
    from types import SimpleNamespace
    k, mp, q = rng.randint(1, 3), rng.randint(1, 3), rng.randint(0, 1)
    J = sorted(rng.sample(range(6), rng.randint(1, 4)))
    scale = (2**61 - 1) if sketch_multiple else 1

    def num():
        return F(rng.randint(-2, 2), 1 if sketch_multiple else rng.choice([1, 1, 2, 3])) * scale

    th = SimpleNamespace(k=k, K=[[num() for _ in range(k)] for _ in range(6)])
    case = SimpleNamespace(q=q, J=J, mp=mp, abar={r: tuple(rng.randint(-2, 2) for _ in range(mp)) for r in J},
                           X0=[[num() for _ in range(mp)] for _ in range(k)], where=lambda: f"case P = [], q = {q}")
    return th, case


def test_proj_enum_on_synthetic_cases():
    """rank X(e)F > q for every e of J ∖ T (0 on T): accepted exactly then (sketch filter and exact rank)."""
    rng = random.Random(41)
    outcomes = set()
    for trial in range(320):
        th, case = synthetic_case(rng, sketch_multiple=trial % 4 == 3)
        T = sorted(r for r in case.J if rng.random() < 0.3)
        Fcols = linalg.integer_kernel([case.abar[r] for r in T], case.mp) if T else \
            [tuple(int(i == j) for i in range(case.mp)) for j in range(case.mp)]
        if len(Fcols) <= case.q:
            continue
        rest = [r for r in case.J if r not in T]
        bad = None
        for bits in itertools.product((0, 1), repeat=len(rest)):
            X = [list(row) for row in case.X0]
            for r, e in zip(rest, bits):
                if e:
                    X = [[x + th.K[r][j] * case.abar[r][l] for l, x in enumerate(X[j])] for j in range(th.k)]
            XF = [[sum((x * c for x, c in zip(row, col)), F(0)) for col in Fcols] for row in X]
            if rank(XF) <= case.q:
                bad = dict(zip(rest, bits))
                break
        ent = {"T": T, "F": [[str(x) for x in col] for col in Fcols]}
        c = Context(BOX.to_network(), "pat")
        if bad is not None:
            outcomes.add("solution")
            reason = reason_of(cp._proj_enum, c, th, case, ent)
            assert reason.startswith(f"case P = [], q = {case.q}: the orientation {{")
            assert reason.endswith(f"(0 on T) gives rank X(e)F ≤ {case.q}")
            orient = reason.split("orientation ")[1].split(" (0 on T)")[0]
            found = ast.literal_eval(orient)                        # a dict of 0/1 values over J ∖ T
            assert set(found) == set(rest) and set(found.values()) <= {0, 1}
        else:
            outcomes.add("sketch" if trial % 4 == 3 else "none")
            cp._proj_enum(c, th, case, ent)
    assert outcomes == {"solution", "none", "sketch"}


def test_proj_enum_t_may_be_all_of_j():
    from types import SimpleNamespace
    th = SimpleNamespace(k=2, K=[[F(1), F(2)]] * 3)
    case = SimpleNamespace(q=0, J=[0, 2], mp=2, abar={0: (1, 0), 2: (2, 0)}, X0=[[F(1), F(3)], [F(0), F(1)]],
                           where=lambda: "case P = [1], q = 0")
    c = Context(BOX.to_network(), "pat")
    cp._proj_enum(c, th, case, {"T": [0, 2], "F": [[0, 1]]})       # X₀F = (3, 1) ≠ 0 and no orientation left
    case.X0 = [[F(1), F(0)], [F(0), F(0)]]
    assert reason_of(cp._proj_enum, c, th, case, {"T": [0, 2], "F": [[0, 1]]}) == \
        "case P = [1], q = 0: the orientation {} (0 on T) gives rank X(e)F ≤ 0"
    assert reason_of(cp._proj_enum, c, th, case, {"T": [0, 1], "F": [[0, 1]]}) == \
        "case P = [1], q = 0: T = [0, 1] is not an increasing list of classes outside P"


def test_modp_enum_system_keeps_the_denominators_of_x0():
    # a pair (2/3)σ(x) + (1/3)·σ(−x)-side with K = 1 but L = −1/3, and a single on y: in the case P = {single},
    # X(e) = −1/3 + e never vanishes; the integer form needs the 3 of X₀ (K alone is an integer)
    theta = S([1, 1, 1], [["2/3", 0], ["-1/3", 0], [0, 1]], [0, 0, 0], [0])
    th = cp._Theta(ctx(theta))
    case = next(c for _, c in cases_of(theta) if not c.own)
    assert th.K[case.J[0]] == [F(1)] and case.X0 == [[F(-1, 3)]]
    assert cp._system(th, case) == (case.J, [[3]], [1])
    for p in BIG_PRIMES:
        run_case(theta, th, case, {"P": list(case.P), "q": 0, "method": "modp-enum", "prime": p})
    assert reason_of(run_case, theta, th, case, {"P": list(case.P), "q": 0, "method": "modp-enum", "prime": 5}) == \
        f"{case.where()}: 5 {SMALL}"
