"""Benchmark: certifying "no flip set" (docs/mathematics.md §3) against the baselines, in one run.

    python benchmarks/bench_flipsets.py [--quick] [--budget SECONDS]      # the targets
    python benchmarks/bench_flipsets.py --ladders [--quick] [--only NAME ...]

Targets (default).  Every measurement runs in a fresh process and reports CPU
seconds (``time.process_time``: the machine is shared) and the peak RSS:

* separation, 64-1024-10 and 784-10000-10 float32 (n ≤ 1.8 km): reluid's
  certify and check against the HiGHS max-margin LP alone (the float search
  the certificate replaces) and z3 alone;
* the rank floor, 784-4096-10: floor = loading θ + one det mod p of the rank
  certificate's minor (flint ``nmod_mat.det``), measured in the same run;
  reluid's certify and check (auto, i.e. separation, and the rank path) as
  multiples of it;
* lattice-enum, m = 10, k = 1, n = 140 and m = 2, k = 1, n = 50 and 60: against
  the Gram–Schmidt certificate on the LLL basis alone, the enumeration on the
  LLL basis (no BKZ), exhaustive 2ⁿ search (measured at n = 24, extrapolated)
  and z3 alone;
* the hard regimes (``cvp``), m = 10, k = 1, n = 160 / 180 / 200 and m = 2,
  k = 1, n = 70 / 80 / 90 / 100, each with a 120 s timeout: reluid's auto path
  (``lattice-cvp``: BKZ-32 and fplll's enumeration, certify and check) against
  the pure-Python enumeration (``lattice-enum`` on the BKZ-20 basis, certify
  and check, bounded by its 10⁷ nodes rather than the wall clock, which a
  shared machine distorts); the ratio is the baseline's certify + check over
  reluid's (``≥`` when the baseline gave up).

``--quick`` runs smaller instances of each target (CI-sized, about a minute).

Ladders (``--ladders``): for each configuration (input dimension m, output
dimension k, weight family) the widths n of a ladder are tried in turn until
one is not decided within the time budget (60 s; 5 s with ``--quick``).

Columns of the ladder table
---------------------------
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
import os
import resource
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # a shared 2-core machine: threaded BLAS only waits
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reluid.analysis.shallow.flipsets import MITM_MAX_N, find_flip_set, flip_matrix  # noqa: E402
from reluid.certificates.build import flip_claim  # noqa: E402
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
        if res.outcome.value != "unknown":
            claim = json.loads(json.dumps(flip_claim(res).to_dict()))
            net = theta.to_network()
            t0 = time.perf_counter()
            VERIFIERS[claim["kind"]](claim["evidence"], Context(net, claim["id"]))
            t_check = time.perf_counter() - t0
        conn.send({"status": res.outcome.value, "method": res.method, "trust": res.trust.value, "time": t_find,
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


# ---------------------------------------------------------------------------
# the targets
# ---------------------------------------------------------------------------

def _cpu():
    return time.process_time()


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _task(kind, m, k, n, weights, opts):
    """One measurement (in a child process); CPU seconds."""
    out = {}
    t = _cpu()
    theta = make_theta(m, k, n, weights)
    out["load"] = _cpu() - t
    if kind == "certify":
        t = _cpu()
        res = find_flip_set(theta, timeout=opts.get("timeout"), method=opts.get("method", "auto"))
        out["certify"] = _cpu() - t
        out["mb_certify"] = _peak_mb()
        out.update(status=res.outcome.value, method=res.evidence.get("method", res.method), reason=res.reason,
                   nodes=res.evidence.get("nodes"))
        if res.outcome.value != "unknown":
            claim = json.loads(json.dumps(flip_claim(res).to_dict()))
            net = theta.to_network()
            t = _cpu()
            VERIFIERS[claim["kind"]](claim["evidence"], Context(net, claim["id"]))
            out["check"] = _cpu() - t
    elif kind == "lp":
        from reluid.analysis.shallow.flipsets._problem import Clock, Problem
        from reluid.analysis.shallow.flipsets.separation import _lp, _unit_factors, have_lp
        if not have_lp():
            out["status"] = "highspy not installed"
            return out
        t = _cpu()
        Ah, Mh = _unit_factors(Problem(theta))
        _, margin = _lp(Ah, Mh, Clock(opts.get("timeout")))
        out["lp"] = _cpu() - t
        out["status"] = f"margin {margin:.3g}" if margin is not None else "no optimum"
    elif kind == "python-enum":                      # the ½-shifted ball enumerated in Python (lattice-enum)
        from reluid.analysis.shallow.flipsets._problem import Clock, Problem
        from reluid.analysis.shallow.flipsets.lattice import lattice
        from reluid.analysis.shallow.flipsets.rank import profile
        t = _cpu()
        prob, clock = Problem(theta), Clock(opts.get("timeout"))
        try:
            res = lattice(prob, profile(prob, clock), clock, compiled=False)
            out.update(status=res.outcome.value, reason=res.reason, nodes=(res.evidence or {}).get("nodes"))
        except Exception as e:      # a timeout
            res = None
            out.update(status="timeout", reason=str(e))
        out["certify"] = _cpu() - t
        if res is not None and res.outcome.value == "none":
            ev = json.loads(json.dumps(res.evidence))
            t = _cpu()
            VERIFIERS["no-flip-set"](ev, Context(theta.to_network(), "c"))
            out["check"] = _cpu() - t
    elif kind in ("lll-gs", "lll-enum"):
        from reluid.analysis.shallow.flipsets._problem import Clock, Problem
        from reluid.analysis.shallow.flipsets.lattice import lattice
        from reluid.analysis.shallow.flipsets.rank import profile
        t = _cpu()
        prob, clock = Problem(theta), Clock(opts.get("timeout"))
        try:
            res = lattice(prob, profile(prob, clock), clock, reduce=False,
                          node_limit=0 if kind == "lll-gs" else 10**8)
            out.update(status=res.outcome.value, reason=res.reason, nodes=(res.evidence or {}).get("nodes"))
        except Exception as e:      # a timeout
            out.update(status="timeout", reason=str(e))
        out["time"] = _cpu() - t
    elif kind == "floor":
        from flint import nmod_mat
        from reluid.analysis.shallow.flipsets._problem import Problem
        from reluid.analysis.shallow.flipsets.rank import contiguous_rows
        prob = Problem(theta)
        p = prob.small_prime()
        N = nmod_mat(prob.mod_rows(contiguous_rows(k, m, n), p).tolist(), p)    # not counted
        t = _cpu()
        out["nonzero"] = int(N.det()) != 0
        out["det"] = _cpu() - t
        out["floor"] = out["load"] + out["det"]
    out["mb"] = _peak_mb()
    return out


def _child_task(conn, *args):
    try:
        conn.send(_task(*args))
    except Exception as e:  # report, never hang the parent
        conn.send({"status": "error", "reason": f"{type(e).__name__}: {e}"})


def run_task(kind, m, k, n, weights="float32", hard=1800, **opts):
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_task, args=(child, kind, m, k, n, weights, opts))
    proc.start()
    out = parent.recv() if parent.poll(hard) else {"status": "killed", "reason": f"no answer in {hard} s"}
    proc.join(1)
    if proc.is_alive():
        proc.kill()
        proc.join()
    return out


def _fmt(x, digits=2):
    if x is None:
        return "-"
    return f"{x:.1e}" if x >= 1e6 else f"{x:.{digits}f}"


def main_targets(args, log) -> int:
    budget = args.budget or (5.0 if args.quick else 60.0)
    quick = args.quick
    log(f"flip-set targets{' (quick)' if quick else ''}: CPU seconds, z3 budget {budget:.0f} s, "
        f"{mp.cpu_count()} CPUs")
    table = []   # (target, reluid text, certify, check, MB, baseline, baseline seconds, ratio text)

    def row(target, reluid_txt, cert, chk, mb, base, base_s, ratio):
        table.append((target, reluid_txt, cert, chk, mb, base, base_s, ratio))
        log(f"  {target:24s} {reluid_txt:22s} certify {_fmt(cert):>7s} check {_fmt(chk):>7s} "
            f"{_fmt(mb, 0):>6s} MB | {base:34s} {_fmt(base_s):>8s}  {ratio}")

    def ratio(base_s, ours, at_least=False):
        if base_s is None or not ours:
            return ""
        q = base_s / ours
        return f"{'≥ ' if at_least else ''}" + (f"10^{math.log10(q):.0f}x" if q >= 1e4 else f"{q:.1f}x")

    def z3_row(name, z, ours):
        if z.get("status") == "unknown":     # z3 only searches: no certificate, whatever the time
            row(name, "", None, None, z.get("mb"), f"z3 only: unknown after the {budget:.0f} s budget",
                z.get("certify"), "no certificate")
        else:
            row(name, "", None, None, z.get("mb"), f"z3 only: {z.get('status')}", z.get("certify"),
                ratio(z.get("certify"), ours))

    want = set(args.targets or ("separation", "floor", "lattice", "cvp"))

    # 1. separation
    seps = [] if "separation" not in want else [(32, 10, 512), (784, 10, 1024)] if quick else [(64, 10, 1024), (784, 10, 10000)]
    for m, k, n in seps:
        name = f"separation {m}-{n}-{k}"
        log(f"== {name} (n/km = {n / (k * m):.2f})")
        r = run_task("certify", m, k, n)
        ours = r.get("certify")
        txt = f"{r.get('status')} {r.get('method')}"
        row(name, txt, ours, r.get("check"), r.get("mb"), "load θ (not counted)", r.get("load"), "")
        if n * (k * m + 1) <= 2_000_000:
            b = run_task("lp", m, k, n, timeout=600)
            row(name, "", None, None, b.get("mb"), f"HiGHS max-margin LP ({b.get('status')})", b.get("lp"),
                ratio(b.get("lp"), ours))
        else:
            row(name, "", None, None, None, f"HiGHS LP: {n * (k * m + 1) / 1e6:.0f} M entries, not run", None, "")
        if k * m * n <= 2_000_000:
            z3_row(name, run_task("certify", m, k, n, method="z3", timeout=budget), ours)
        else:
            row(name, "", None, None, None, f"z3 only: {k * m} × {n} rows, not run", None, "")
        if n > k * m:
            row(name, "", None, None, None, "rank: impossible (n > km), lattice: n > 300", None, "")
        else:
            b = run_task("certify", m, k, n, method="rank")
            row(name, "", None, None, b.get("mb"), f"rank certificate (check {_fmt(b.get('check'))} s)",
                b.get("certify"), ratio(b.get("certify"), ours))

    # 2. the floor
    if "floor" in want:
        fm, fk, fn = (784, 10, 1024) if quick else (784, 10, 4096)
        name = f"floor {fm}-{fn}-{fk}"
        log(f"== {name}")
        fl = run_task("floor", fm, fk, fn)
        floor = fl.get("floor")
        row(name, "floor = load + det", floor, None, fl.get("mb"),
            f"load {_fmt(fl.get('load'))} + det mod p {_fmt(fl.get('det'))}", floor, "1.0x")
        for method in ("auto", "rank"):
            r = run_task("certify", fm, fk, fn, method=method)
            cert = (r.get("load") or 0) + (r.get("certify") or 0)
            chk = (r.get("load") or 0) + (r.get("check") or 0)
            row(name, f"{method}: {r.get('method')}", cert, chk, r.get("mb"),
                f"incl. load; peak {_fmt(r.get('mb_certify'), 0)} MB certifying, {_fmt(r.get('mb'), 0)} MB "
                "checking", None, f"{cert / floor:.2f}x / {chk / floor:.2f}x the floor" if floor else "")

    # 3. lattice enumeration
    encs = [] if "lattice" not in want else [(10, 120), (2, 50)] if quick else [(10, 140), (2, 50), (2, 60)]
    for m, n in encs:
        name = f"lattice-enum m{m} k1 n{n}"
        log(f"== {name}")
        r = run_task("certify", m, 1, n)
        ours = r.get("certify")
        row(name, f"{r.get('status')} {r.get('method')} ({r.get('nodes')} nodes)", ours, r.get("check"), r.get("mb"),
            "", None, "")
        g = run_task("lll-gs", m, 1, n)
        gs_txt = "no certificate" if g.get("status") == "unknown" else g.get("status")
        row(name, "", None, None, g.get("mb"), f"LLL + Gram–Schmidt bound only: {gs_txt}", g.get("time"), "")
        e = run_task("lll-enum", m, 1, n, timeout=10 * budget)
        row(name, "", None, None, e.get("mb"), f"enumeration on LLL (no BKZ): {e.get('nodes')} nodes",
            e.get("time"), ratio(e.get("time"), ours, at_least=e.get("status") == "timeout"))
        theta_b = make_theta(m, 1, 24, "float32")
        found, t_b = baseline_search(theta_b)
        if not found:
            est = t_b * 2 ** (n - 24)
            row(name, "", None, None, None, f"exhaustive 2^n (n=24: {t_b:.2f} s, extrapolated)", est,
                ratio(est, ours))
        z3_row(name, run_task("certify", m, 1, n, method="z3", timeout=budget), ours)
        if n > MITM_MAX_N:
            row(name, "", None, None, None, f"meet in the middle: n > {MITM_MAX_N}, not run", None, "")
    # 4. hard regimes: fplll's enumeration (lattice-cvp) against the Python one (lattice-enum)
    hard = [] if "cvp" not in want else [(10, 140), (2, 60)] if quick else [(10, 160), (10, 180), (10, 200),
                                                                           (2, 70), (2, 80), (2, 90), (2, 100)]
    limit = 20.0 if quick else 120.0
    for m, n in hard:
        name = f"lattice-cvp m{m} k1 n{n}"
        log(f"== {name}")
        r = run_task("certify", m, 1, n, timeout=limit, hard=int(4 * limit) + 120)
        ours = (r.get("certify") or 0) + (r.get("check") or 0) if r.get("status") != "unknown" else None
        txt = f"{r.get('status')} {r.get('method')}" + (f" ({r.get('nodes')} nodes)" if r.get("nodes") else "")
        row(name, txt if r.get("status") != "unknown" else f"unknown: {(r.get('reason') or '')[:60]}",
            r.get("certify"), r.get("check"), r.get("mb"), "", None, "")
        b = run_task("python-enum", m, 1, n, hard=int(4 * limit) + 120)   # bounded by its 10⁷ nodes, not the clock
        base = (b.get("certify") or 0) + (b.get("check") or 0) if b.get("status") == "none" else None
        btxt = (f"Python enumeration: {b.get('status')}" + (f", {b.get('nodes')} nodes" if b.get("nodes") else "")
                + (f", check {_fmt(b.get('check'))} s" if b.get("check") is not None else ""))
        row(name, "", None, None, b.get("mb"), btxt, b.get("certify"),
            ratio(base, ours) if base is not None and ours else
            (f"≥ {b.get('certify') / ours:.1f}x" if ours and b.get("certify") else ""))
    log("")
    head = ("| target | reluid | certify s | check s | peak MB | baseline | baseline s | ratio |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- |")
    log(head)
    for target, txt, cert, chk, mb, base, base_s, rat in table:
        log(f"| {target} | {txt} | {_fmt(cert)} | {_fmt(chk)} | {_fmt(mb, 0)} | {base} | {_fmt(base_s)} | {rat} |")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized instances and a 5 s budget")
    ap.add_argument("--ladders", action="store_true", help="the width ladders instead of the targets")
    ap.add_argument("--targets", nargs="*", choices=("separation", "floor", "lattice", "cvp"),
                    help="run only these targets")
    ap.add_argument("--only", nargs="*", choices=sorted(CONFIGS), help="ladders: run only these configurations")
    ap.add_argument("--budget", type=float, help="seconds per run (default 60, or 5 with --quick)")
    ap.add_argument("--no-baselines", action="store_true", help="ladders: skip the exhaustive and z3-only baselines")
    args = ap.parse_args(argv)
    log = lambda s: print(s, flush=True)  # noqa: E731
    if not args.ladders:
        return main_targets(args, log)
    budget = args.budget or (5.0 if args.quick else 60.0)
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
