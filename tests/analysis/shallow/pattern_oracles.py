"""Independent oracles for the essential stratum, used only by the tests.

* :func:`random_essential`: random θ on the essential stratum (p opposite pairs with
  independent directions, t single neurons);
* :func:`z3_verdict`: the former decision, a z3 search over realisation patterns
  (:mod:`reluid.smt.patterns`), rebuilt into θ′ and re-verified; it decides no verdict
  of reluid any more and serves as a cross-check;
* :func:`brute_force`: for tiny n, every combinatorial type of θ′ ∈ Ω(m, n, k) (each
  neuron dead, or on a kink hyperplane, or on one of ⌊n/2⌋ new hyperplanes, with a
  side) and the §1 equations, bilinear in the new directions, solved by z3's nonlinear
  real arithmetic -- using neither Theorem 1 nor the rank formula.

The oracles return "hidden", "rigid" or "unknown".  ``METHOD_EXAMPLES`` and
``HIDDEN_EXAMPLES`` are small networks (found by a search over :func:`random_essential`)
whose certificates use each method, and whose witnesses come from each kind of case.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as Fr

import z3

from reluid.analysis.shallow.function import canonical_row, equivalent, function_data
from reluid.model.network import Shallow
from reluid.smt.patterns import PAIR, SINGLE_NEG, SINGLE_POS, PatternProblem, search_other_pattern
from reluid.smt.solver import SolverConfig
from reluid.verdicts import Outcome

__all__ = ["random_essential", "z3_verdict", "brute_force", "essential_data", "METHOD_EXAMPLES", "HIDDEN_EXAMPLES"]


def _rank(rows) -> int:
    from flint import fmpq, fmpq_mat
    if not rows:
        return 0
    return fmpq_mat([[fmpq(x.numerator, x.denominator) for x in r] for r in rows]).rank()


def random_essential(rng, m=None, k=None, p=None, t=None, wmax=3):
    """A random θ on the essential stratum: p opposite pairs (independent directions), t singles."""
    m = m or rng.choice((1, 2, 3))
    k = k or rng.choice((1, 2, 3))
    p = p or rng.randint(1, min(3, m))
    t = rng.randint(0, 8 - 2 * p) if t is None else t

    def rvec(dim, lo, hi):
        while True:
            v = [rng.randint(lo, hi) for _ in range(dim)]
            if any(v):
                return v

    while True:
        classes, seen, dirs, ok = [], set(), [], True
        for idx in range(p + t):
            for _ in range(50):
                a, b = rvec(m, -2, 2), rng.randint(-2, 2)
                cr = canonical_row(tuple(Fr(x) for x in a), Fr(b))[0]
                if cr in seen:
                    continue
                if idx < p and _rank(dirs + [[Fr(x) for x in a]]) < len(dirs) + 1:
                    continue
                break
            else:
                ok = False
                break
            seen.add(cr)
            if idx < p:
                dirs.append([Fr(x) for x in a])
            classes.append((a, b))
        if ok:
            break
    neurons = []
    for idx, (a, b) in enumerate(classes):
        row = [Fr(x) for x in a] + [Fr(b)]
        if idx < p:
            while True:
                l1, l2 = rng.choice((1, 2, Fr(1, 2))), rng.choice((1, 2, Fr(1, 2)))
                m1, m2 = [Fr(x) for x in rvec(k, -wmax, wmax)], [Fr(x) for x in rvec(k, -wmax, wmax)]
                if any(l1 * x + l2 * y for x, y in zip(m1, m2)):
                    break
            neurons.append(([l1 * x for x in row], m1))
            neurons.append(([-l2 * x for x in row], m2))
        else:
            lam = rng.choice((1, -1, 2, -2))
            neurons.append(([lam * x for x in row], [Fr(x) for x in rvec(k, -wmax, wmax)]))
    rng.shuffle(neurons)
    M = [[o[j] for _, o in neurons] for j in range(k)]
    return Shallow.make(M, [rw[:m] for rw, _ in neurons], [rw[m] for rw, _ in neurons],
                        [Fr(rng.randint(-3, 3)) for _ in range(k)])


def essential_data(theta):
    """(classes sorted, own, K, L, w) -- the minimum the oracles need."""
    classes = {}
    for i in range(theta.n):
        r, lam = canonical_row(theta.A[i], theta.b[i])
        classes.setdefault(r, []).append((i, lam))
    fd = function_data(theta)
    keys = sorted(classes)
    own, w = [], {}
    for idx, r in enumerate(keys):
        mem = classes[r]
        if len(mem) == 1:
            own.append("+" if mem[0][1] > 0 else "-")
        else:
            own.append("P")
            i, lam = min(mem, key=lambda t: t[1])
            w[idx] = tuple(abs(lam) * x for x in theta.out(i))
    return keys, own, [fd.kinks[r] for r in keys], fd.linear, w


# ---- the former decision: a z3 search over patterns ------------------------------------

def _build(problem, model, fd) -> Shallow:
    m, k = problem.m, problem.k
    zero = Fr(0)
    neurons, c = [], list(fd.constant)
    for r, K, ch, w in zip(problem.rows, problem.kinks, model.choice, model.pair_weights):
        neg = tuple(-x for x in r)
        if ch == PAIR:
            neurons += [(r, tuple(x - y for x, y in zip(K, w))), (neg, w)]
            c = [cj + wj * r[m] for cj, wj in zip(c, w)]
        elif ch == SINGLE_NEG:
            neurons.append((neg, K))
            c = [cj + Kj * r[m] for cj, Kj in zip(c, K)]
        else:
            neurons.append((r, K))
    taken = set(problem.rows)
    for W, H in model.extra:
        beta = Fr(1)
        while H and canonical_row(tuple(H), beta)[0] in {canonical_row(t[:m], t[m])[0] for t in taken}:
            beta += 1
        row = tuple(H) + (beta,)
        taken.add(row)
        neurons += [(row, W), (tuple(-x for x in row), tuple(-x for x in W))]
        c = [cj - Wj * beta for cj, Wj in zip(c, W)]
    neurons += [((Fr(1),) + (zero,) * m, (zero,) * k)] * model.dead
    M = tuple(tuple(o[j] for _, o in neurons) for j in range(k))
    return Shallow(M, tuple(rw[:m] for rw, _ in neurons), tuple(rw[m] for rw, _ in neurons), tuple(c), m)


def z3_verdict(theta, timeout: float = 30.0) -> str:
    """The former z3 decision on the essential stratum (a sat is rebuilt and re-verified)."""
    fd = function_data(theta)
    keys, own, _, _, _ = essential_data(theta)
    code = {"+": SINGLE_POS, "-": SINGLE_NEG, "P": PAIR}
    rows = tuple(tuple(Fr(x) for x in r) for r in keys)
    problem = PatternProblem(theta.m, theta.k, theta.n, rows, tuple(fd.kinks[r] for r in keys), fd.linear,
                             tuple(code[o] for o in own))
    outcome, model, _ = search_other_pattern(problem, SolverConfig(timeout_ms=int(timeout * 1000)))
    if outcome is Outcome.NONE:
        return "rigid"
    if outcome is Outcome.FOUND:
        eq = equivalent(theta, _build(problem, model, fd))
        return "hidden" if eq.equal and not eq.same_orbit else "unknown"
    return "unknown"


# ---- brute force over combinatorial types ---------------------------------------------

def brute_force(theta, timeout_ms: int = 20000) -> str:
    """See the module docstring."""
    keys, own, K, L, w = essential_data(theta)
    n, m, k, s = theta.n, theta.m, theta.k, len(keys)
    a = [r[:m] for r in keys]
    G = n // 2
    labels = ["D"] + [("k", r, sg) for r in range(s) for sg in (1, -1)] + \
             [("g", g, sg) for g in range(G) for sg in (1, -1)]
    own_kink = sorted(("k", r, sg) for r in range(s)
                      for sg in ((1, -1) if own[r] == "P" else ((1,) if own[r] == "+" else (-1,))))

    def q(x):
        return z3.RealVal(str(x))

    unknown = False
    for ms in itertools.combinations_with_replacement(range(len(labels)), n):
        lab = [labels[i] for i in ms]
        if any(not any(x != "D" and x[0] == "k" and x[1] == r for x in lab) for r in range(s)):
            continue
        used = sorted({x[1] for x in lab if x != "D" and x[0] == "g"})
        if used != list(range(len(used))):
            continue
        sol = z3.Solver()
        sol.set("timeout", timeout_ms)
        W = []
        for i, x in enumerate(lab):
            if x == "D":
                W.append(None)
                continue
            wi = [z3.Real(f"w{i}_{j}") for j in range(k)]
            sol.add(z3.Or([v != 0 for v in wi]))
            W.append(wi)
        H = {g: [z3.Real(f"h{g}_{l}") for l in range(m)] for g in used}
        for g in used:
            sol.add(z3.Or([v != 0 for v in H[g]]))
        for r in range(s):
            for j in range(k):
                sol.add(z3.Sum([W[i][j] for i, x in enumerate(lab) if x != "D" and x[:2] == ("k", r)]) == q(K[r][j]))
        for g in used:
            for j in range(k):
                sol.add(z3.Sum([W[i][j] for i, x in enumerate(lab) if x != "D" and x[:2] == ("g", g)]) == 0)
        for j in range(k):
            for l in range(m):
                terms = [z3.RealVal(0)]
                for i, x in enumerate(lab):
                    if x == "D" or x[2] == 1:
                        continue
                    terms.append(-W[i][j] * (q(a[x[1]][l]) if x[0] == "k" else H[x[1]][l]))
                sol.add(z3.Sum(terms) == q(L[j][l]))
        if "D" not in lab and not used and sorted(lab) == own_kink:      # exclude θ's own orbit
            diffs = []
            for r in w:
                i = next(i for i, x in enumerate(lab) if x == ("k", r, -1))
                diffs += [W[i][j] != q(w[r][j]) for j in range(k)]
            sol.add(z3.Or(diffs))
        res = sol.check()
        if res == z3.sat:
            return "hidden"
        if res == z3.unknown:
            unknown = True
    return "unknown" if unknown else "rigid"


# ---- small essential networks whose certificates use each method ------------------------
S = Shallow.make

#: name -> (θ, the methods of its certificate); found by a search over random_essential.
METHOD_EXAMPLES = {
    "own-only": (S([1, 2], [[1], [-1]], [0, 0], [0]), {"own-only": 1}),                     # σ(x) + 2σ(−x)
    "flip": (S([1, 2, 1], [[1, 0], [-1, 0], [0, 1]], [0, 0, 0], [0]), {"flip": 1, "lattice": 1}),
    "box": (S([-2, 1, -1], [[0, "1/2"], [0, "-1/2"], [1, 0]], [1, -1, -2], [-2]), {"flip": 1, "box": 1}),
    "lattice": (S([1, -2, 1], [[0, 4], [1, 0], [0, -1]], [2, 2, "-1/2"], [-1]), {"flip": 1, "lattice": 1}),
    "modp-enum": (S([-1, 2, -1], [[0, -2], [-2, 2], [0, 2]], [-2, 4, 2], [2]), {"flip": 1, "modp-enum": 1}),
    "proj-enum": (S([[2, 0, -1, -1, 2], [1, 1, 0, 3, -1]],
                    [[1, -2, -1], [0, 0, -1], [0, 0, 2], [-1, 1, -2], ["-1/2", 1, "1/2"]],
                    [0, "-1/2", 1, 2, 0], [0, -3]), {"flip": 1, "box": 2, "proj-enum": 1}),
    "enumeration": (S([[-1, 0, 1, 2], [-2, 2, -2, -2]], [[0, -1], [0, 1], [1, 0], [-2, 0]], [1, -1, -1, 2],
                      [-3, 1]), {"own-only": 1, "proj-enum": 1}),
    # four pairs in Ω(4, 8, 3): cases with q = 1 and q = 2 (the former z3 search gives up here)
    "proj-enum-q2": (S([[-3, -1, 0, 1, 2, 3, -1, 0], [1, -3, 1, -1, 3, -1, -3, -1], [2, 2, -1, -3, 3, 3, 3, 2]],
                       [[0, -1, -2, 0], [2, 2, 0, 0], [0, 2, 4, 0], [-4, -4, 0, 0], ["1/2", -1, "-1/2", 1],
                        [-4, 0, 0, 2], ["-1/2", 1, "1/2", -1], [1, 0, 0, "-1/2"]],
                       [2, 2, -4, -4, "1/2", 2, "-1/2", "-1/2"], [1, -1, -3]), {"own-only": 1, "proj-enum": 7}),
}

#: Hidden examples: name -> (θ, (q, extra pairs, dead neurons) of the witness found).
HIDDEN_EXAMPLES = {
    "hidden_pair": (S([1, 2, 3], [[1], [-1], [1]], [0, 0, 1], [0]), (0, 0, 0)),      # σ(x) + 2σ(−x) + 3σ(x+1)
    "two_pairs_k1": (S([1, 2, 3, 5], [[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 1, -1], [0]), (1, 1, 0)),  # p ≥ 2k
    "new_pair_k2": (S([[-1, -1, -1, 1], [-1, 1, 1, 0]], [[1, 0], [0, "-1/2"], [-1, 0], [0, 1]], [0, "-1/2", 0, 1],
                      [3, -2]), (1, 1, 0)),                                           # q = 1 with k = 2 > q
    "dead_after_reduction": (S([[1, 1, -2, 1, -1], [0, 2, 1, 0, 2]], [[-2, 0], [0, -2], [-1, 1], [2, -2], [0, 1]],
                               [0, 0, "1/2", -1, 0], [-3, 2]), (0, 0, 1)),            # Lemma 2: a pair becomes one neuron
}
