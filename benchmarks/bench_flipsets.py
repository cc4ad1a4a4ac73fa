"""Benchmark: certifying "no flip set" (docs/mathematics.md §3) against the baselines.

    python benchmarks/bench_flipsets.py [--quick] [--only NAME ...] [--budget SECONDS]

For each configuration (input dimension m, output dimension k, weight family)
the widths n of a ladder are tried in turn until one is not decided within the
time budget (60 s; 5 s with ``--quick``).  Every run happens in a fresh
process, so the peak memory (``ru_maxrss``) belongs to that run and a flint
call that overruns can be killed.

Columns
-------
reluid n, method, time, check, MB
    the largest n decided (``none`` with a checkable certificate, or ``found``
    with a witness), the method, the producer's time, the independent
    checker's time on the JSON round-tripped claim, and the peak RSS.
exhaustive 2^n, paper 3^n
    the baselines, measured in the same run: a vectorised (numpy) search over
    all 2ⁿ subsets, resp. all β ∈ {0, ±1}ⁿ (the paper's Proposition 24
    condition), of a 61-bit hash of the columns with exact re-checks.  Their
    largest n within the budget is extrapolated (marked ``~``) from a measured
    run at n_b, since each extra neuron doubles (triples) the work.
z3-only n
    ``find_flip_set(method="z3")`` on the same ladder.
speedup
    baseline time extrapolated to reluid's largest n, divided by reluid's time.

Weights: ``float32`` is He initialisation (input weights N(0, 2/m), output
weights N(0, 2/n)) read exactly; ``int5`` is integers in [−5, 5] without 0;
``subset-sum`` (m = k = 1) has a_i = 1 and v_i uniform in ±[1, 2^40], the
hard zero-subset-sum family where flip sets are rare.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import resource
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reluid.analysis.shallow.flipsets import find_flip_set, flip_matrix  # noqa: E402
from reluid.checker.registry import VERIFIERS, Context  # noqa: E402
import reluid.checker.flipsets  # noqa: E402,F401  (registers the verifiers)
from reluid.model.network import Shallow  # noqa: E402

P = 2**61 - 1

CONFIGS = {
    # name: (m, k, weights, full ladder, quick ladder)
    "m2-k1-float32": (2, 1, "float32", [20, 30, 36, 40, 44, 48], [20, 30, 40]),
    "m10-k1-float32": (10, 1, "float32", [40, 60, 80, 100, 105, 110], [40, 60, 80]),
    "m784-k10-float32": (784, 10, "float32", [256, 512, 1024, 2048, 4096], [128, 256, 512]),
    "m2-k1-int5": (2, 1, "int5", [20, 40, 100, 200, 400], [20, 40, 100]),
    "m10-k1-int5": (10, 1, "int5", [20, 40, 60, 100], [20, 40]),
    "m784-k10-int5": (784, 10, "int5", [256, 1024, 2048, 4096], [128, 256]),
    "m1-k1-subset-sum": (1, 1, "subset-sum", [20, 30, 36, 40, 44, 48], [20, 30, 36]),
}


# ---------------------------------------------------------------------------
# instances
# ---------------------------------------------------------------------------

def make_theta(m: int, k: int, n: int, weights: str, seed: int = 0) -> Shallow:
    rng = np.random.default_rng(seed)
    if weights == "float32":
        A = (rng.standard_normal((n, m)) * np.sqrt(2 / m)).astype(np.float32).tolist()
        M = (rng.standard_normal((k, n)) * np.sqrt(2 / n)).astype(np.float32).tolist()
    elif weights == "int5":
        vals = np.array([-5, -4, -3, -2, -1, 1, 2, 3, 4, 5])
        A = rng.choice(vals, size=(n, m)).tolist()
        M = rng.choice(vals, size=(k, n)).tolist()
    elif weights == "subset-sum":
        A = [[1]] * n
        M = [[int(x) * int(s) for x, s in zip(rng.integers(1, 2**40, size=n), rng.choice([-1, 1], size=n))]]
    else:
        raise ValueError(weights)
    frac = lambda rows: tuple(tuple(Fraction(x) for x in row) for row in rows)  # noqa: E731  (exact)
    return Shallow(frac(M), frac(A), tuple(Fraction(i) for i in range(n)), tuple(Fraction(0) for _ in range(k)), m)


# ---------------------------------------------------------------------------
# one run in a child process
# ---------------------------------------------------------------------------

def _child(conn, m, k, n, weights, method, budget):
    try:
        theta = make_theta(m, k, n, weights)
        t0 = time.perf_counter()
        res = find_flip_set(theta, timeout=budget, method=method)
        t_find = time.perf_counter() - t0
        t_check = None
        if res.status != "unknown":
            claim = json.loads(json.dumps(res.claim().to_dict()))
            net = theta.to_network()
            t0 = time.perf_counter()
            if claim["trust"] == "checked":
                VERIFIERS[claim["kind"]](claim["evidence"], Context(net, claim["id"]))
                t_check = time.perf_counter() - t0
        conn.send({"status": res.status, "method": res.method, "trust": res.trust, "time": t_find,
                   "check": t_check, "reason": res.reason,
                   "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})
    except Exception as e:  # report, never hang the parent
        conn.send({"status": "error", "reason": f"{type(e).__name__}: {e}"})


def run_one(m, k, n, weights, method, budget):
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, m, k, n, weights, method, budget))
    proc.start()
    hard = 3 * budget + 60          # building θ and checking are not under the producer's budget
    out = parent.recv() if parent.poll(hard) else {"status": "killed", "reason": f"no answer in {hard:.0f} s"}
    proc.join(1)
    if proc.is_alive():
        proc.kill()
        proc.join()
    return out


# ---------------------------------------------------------------------------
# baselines
# ---------------------------------------------------------------------------

def column_hashes(theta: Shallow, seed: int = 1) -> list[int]:
    rng = np.random.default_rng(seed)
    U = flip_matrix(theta)
    w = [int(x) for x in rng.integers(1, 2**60, size=len(U.rows))]
    return [sum(wr * row[i] for wr, row in zip(w, U.entries)) % P for i in range(theta.n)]


def _table(keys, digits):
    """All Σ β_i key_i mod P for β ∈ digits^len(keys), index = the β's number in base len(digits)."""
    a = np.zeros(1, dtype=np.int64)
    for key in keys:
        a = np.concatenate([(a + d * key) % P for d in digits])
    return a


def baseline_search(theta: Shallow, digits=(0, 1), low_bits: int = 18) -> tuple[bool, float]:
    """Exhaustive search over digitsⁿ∖0 (2ⁿ flip sets, or 3ⁿ with digits (0, 1, −1)); (found?, seconds)."""
    t0 = time.perf_counter()
    keys = column_hashes(theta)
    n, b = len(keys), len(digits)
    lo = min(n, max(1, int(low_bits / math.log2(b))))
    low = _table(keys[:lo], digits)
    for hi_index in range(b ** (n - lo)):
        s, x = 0, hi_index
        for key in keys[lo:]:
            s += digits[x % b] * key
            x //= b
        zeros = np.nonzero((low + s % P) % P == 0)[0]
        for z in zeros.tolist():
            if z == 0 and hi_index == 0:
                continue
            beta = [digits[(z // b**i) % b] for i in range(lo)]
            x = hi_index
            for _ in keys[lo:]:
                beta.append(digits[x % b])
                x //= b
            if is_zero_combination(theta, beta):
                return True, time.perf_counter() - t0
    return False, time.perf_counter() - t0


def is_zero_combination(theta, beta):
    return all(sum((theta.M[j][i] * theta.A[i][l] * beta[i] for i in range(theta.n) if beta[i]), Fraction(0)) == 0
               for j in range(theta.k) for l in range(theta.m))


def baseline_row(m, k, weights, budget, reluid_n, reluid_time):
    """(text for 2ⁿ, text for 3ⁿ, speedup text) with extrapolation from a measured n.

    ``reluid_time`` is None unless reluid certified "none" at ``reluid_n``
    (when a witness exists both sides stop early and a ratio means little).
    """
    cells, speedups = [], []
    for digits, base, n_b in (((0, 1), 2, 24), ((0, 1, -1), 3, 14)):
        theta = make_theta(m, k, n_b, weights)
        found, t = baseline_search(theta, digits)
        if found:
            cells.append(f"found at n={n_b} ({t:.2f}s)")
            speedups.append("")
            continue
        n_max = n_b + math.log(budget / t, base) if t > 0 else float("inf")
        cells.append(f"~{math.floor(n_max)} (n={n_b}: {t:.2f}s)")
        if reluid_n and reluid_time:
            log10 = math.log10(t) + (reluid_n - n_b) * math.log10(base) - math.log10(reluid_time)
            speedups.append(f"{base}^n: 10^{log10:.1f}x")
    return cells, ", ".join(s for s in speedups if s)


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

def ladder(m, k, weights, ns, method, budget, log):
    best = None
    for n in ns:
        out = run_one(m, k, n, weights, method, budget)
        ok = out["status"] in ("none", "found") and out.get("time", budget + 1) <= budget
        chk = f"{out['check']:.2f}s" if out.get("check") is not None else "-"
        log(f"    {method:5s} n={n:5d}: {out['status']:7s} {out.get('method', ''):10s} "
            f"time {out.get('time', float('nan')):7.2f}s  check {chk:>7s}  peak {out.get('mb', float('nan')):7.0f} MB"
            + (f"  ({out['reason']})" if not ok and out.get("reason") else ""))
        if not ok:
            break
        best = (n, out)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small ladders and a 5 s budget")
    ap.add_argument("--only", nargs="*", choices=sorted(CONFIGS), help="run only these configurations")
    ap.add_argument("--budget", type=float, help="seconds per run (default 60, or 5 with --quick)")
    ap.add_argument("--no-baselines", action="store_true", help="skip the exhaustive and z3-only baselines")
    args = ap.parse_args(argv)
    budget = args.budget or (5.0 if args.quick else 60.0)
    log = lambda s: print(s, flush=True)  # noqa: E731
    log(f"flip-set certificates, budget {budget:.0f} s per run, {mp.cpu_count()} CPUs")
    rows = []
    for name, (m, k, weights, full, quick) in CONFIGS.items():
        if args.only and name not in args.only:
            continue
        ns = quick if args.quick else full
        log(f"== {name} (m={m}, k={k}, {weights})")
        best = ladder(m, k, weights, ns, "auto", budget, log)
        rn, rout = (best[0], best[1]) if best else (None, {})
        z3_best = None if args.no_baselines else ladder(m, k, weights, ns, "z3", budget, log)
        if args.no_baselines:
            cells, speed = ["-", "-"], ""
        else:
            cells, speed = baseline_row(m, k, weights, budget, rn,
                                        rout.get("time") if rout.get("status") == "none" else None)
        rows.append((name, rn, rout, cells, z3_best[0] if z3_best else None, speed, ns))
    log("")
    head = (f"{'configuration':18s} {'reluid n':>8s} {'method':9s} {'time':>7s} {'check':>7s} {'MB':>6s}  "
            f"{'exhaustive 2^n':24s} {'paper 3^n':24s} {'z3-only n':>9s}  speedup")
    log(head)
    log("-" * len(head))
    for name, rn, rout, cells, zn, speed, ns in rows:
        top = "" if rn is None or rn < ns[-1] else "+"   # "+": the whole ladder was decided
        chk = f"{rout['check']:.2f}" if rout.get("check") is not None else "-"
        log(f"{name:18s} {(str(rn) + top) if rn else '-':>8s} {rout.get('method', '-'):9s} "
            f"{rout.get('time', float('nan')):7.2f} {chk:>7s} {rout.get('mb', float('nan')):6.0f}  "
            f"{cells[0]:24s} {cells[1]:24s} {str(zn) if zn else '-':>9s}  {speed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
