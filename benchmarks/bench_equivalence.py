"""Equivalence decision and minimal form at scale, against the paper's pairwise algorithm.

Baseline: the algorithm of Ramakrishnan 2026, §6 (group neurons by testing
every pair of rows for positive proportionality -- O(n²) -- then merge), run
here in exact arithmetic so that both sides compute the same answer.
reluid hashes primitive integer rays instead (O(n)).  Both are timed in the
same run; the table prints the ratio.

Then the target size (n = 100 000, m = 10; 20 000 with ``--quick``), CPU
seconds, against reluid's general paths measured in the same run: the orbit
keys for the orbit element, the Fraction construction of the distinguishing
input with a Fraction evaluation of both networks, and the general minimal
form.  Targets: equal and different cases ≤ 3 s each, minimal form ≤ 3 s.

    python benchmarks/bench_equivalence.py [--quick]
"""

from __future__ import annotations

import argparse
import gc
import time
from fractions import Fraction

import numpy as np

from reluid.analysis.shallow.function import distinguishing_input, equivalent, function_data
from reluid.analysis.shallow.minimal import _minimal_form_general, minimal_form
from reluid.analysis.shallow.orbit import _same_orbit_keys
from reluid.model.network import Shallow
from reluid.model.symmetry import GroupElement


def random_theta(n, m, seed=0, duplicate_fraction=0.1):
    """float32 He-style weights (read exactly); some rows duplicated by positive rescaling."""
    rng = np.random.default_rng(seed)
    A = (rng.standard_normal((n, m)) * np.sqrt(2 / m)).astype(np.float32).astype(np.float64)
    b = (rng.standard_normal(n) * 0.1).astype(np.float32).astype(np.float64)
    v = (rng.standard_normal(n) * np.sqrt(2 / n)).astype(np.float32).astype(np.float64)
    dup = rng.choice(n, int(duplicate_fraction * n), replace=False)
    src = rng.integers(0, n, len(dup))
    A[dup], b[dup] = 2 * A[src], 2 * b[src]
    Aq = tuple(tuple(map(Fraction, r)) for r in A.tolist())
    return Shallow((tuple(map(Fraction, v.tolist())),), Aq, tuple(map(Fraction, b.tolist())), (Fraction(0),), m)


def baseline_minimal(theta: Shallow):
    """The paper's §6 grouping: every pair of rows tested for semi-dependence (O(n²)), exactly."""
    rows = [theta.row(i) for i in range(theta.n)]
    v = theta.M[0]
    live = [i for i in range(theta.n) if v[i] and any(theta.A[i])]
    groups, used = [], set()
    for i in live:
        if i in used:
            continue
        group = [i]
        ri = rows[i]
        for j in live:
            if j <= i or j in used:
                continue
            rj = rows[j]
            # semi-dependent: rj = λ ri with λ > 0 (all 2 × 2 minors vanish and signs agree)
            if all(ri[p] * rj[q] == ri[q] * rj[p] for p in range(len(ri)) for q in range(p + 1, len(ri))) \
                    and all((x > 0) == (y > 0) and (x < 0) == (y < 0) for x, y in zip(ri, rj)):
                group.append(j)
        used.update(group)
        groups.append(group)
    return len(groups)


def timed(fn, *a):
    t = time.perf_counter()
    out = fn(*a)
    return time.perf_counter() - t, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    sizes = [200, 400] if args.quick else [500, 1000, 2000]
    print("minimal form, m = 10, k = 1 (10% of rows duplicated)")
    print(f"{'n':>8} {'baseline O(n²) s':>17} {'reluid s':>10} {'ratio':>8}")
    for n in sizes:
        t = random_theta(n, 10, seed=n)
        tb, groups = timed(baseline_minimal, t)
        tr, mf = timed(minimal_form, t)
        assert groups == sum(1 for i in range(n) if any(mf.theta.out(i))) + sum(
            1 for s in mf.steps if s[0] == "merge" and not any(s[2]))
        print(f"{n:>8} {tb:>17.3f} {tr:>10.3f} {tb / tr:>7.1f}x")
    big = 20_000 if args.quick else 100_000
    t = random_theta(big, 10, seed=1)
    rng = np.random.default_rng(2)
    g = GroupElement(tuple(int(x) for x in rng.permutation(big)),
                     tuple(Fraction(int(x)) for x in rng.integers(1, 9, big)))
    t2 = g.act(t)
    tv, ta = ulp_variants(t)

    def fraction_path(a, b):      # the general construction: Fractions, then both networks evaluated
        x = distinguishing_input(function_data(a), function_data(b))
        return a(x) != b(x)

    rows = []
    eq, c_eq = cpu(equivalent, t, t2)
    assert eq.equal and eq.orbit.act(t) == t2
    ok, c_b = cpu(lambda: function_data(t) == function_data(t2) and _same_orbit_keys(t, t2).act(t) == t2)
    assert ok
    rows.append(("equal, with the orbit element", c_eq, "function data + orbit keys", c_b))
    for label, other in (("different (v_7 + 1 ulp)", tv), ("different (A_7,3 + 1 ulp)", ta)):
        d, c_d = cpu(equivalent, t, other)
        assert not d.equal and d.outputs[0] != d.outputs[1]
        ok, c_b = cpu(fraction_path, t, other)
        assert ok
        rows.append((label, c_d, "Fraction construction + evaluation", c_b))
    mf, c_m = cpu(minimal_form, t)
    gm, c_b = cpu(_minimal_form_general, t)
    assert mf.theta == gm.theta and mf.steps == gm.steps
    rows.append(("minimal form", c_m, "general minimal form", c_b))
    n0 = sizes[-1]
    tb0, _ = timed(baseline_minimal, random_theta(n0, 10, seed=n0))
    print(f"\nn = {big}, m = 10, k = 1 (CPU seconds; target ≤ 3 s each)")
    print("| case | reluid s | baseline | baseline s | ratio |\n| --- | --- | --- | --- | --- |")
    for label, ours, base, b in rows:
        print(f"| {label} | {ours:.2f} | {base} | {b:.2f} | {b / ours:.1f}x |")
    print(f"| minimal form | {c_m:.2f} | paper's O(n²) grouping (extrapolated from n = {n0}) | "
          f"{tb0 * (big / n0) ** 2:.0f} | {tb0 * (big / n0) ** 2 / c_m:.0f}x |")


def cpu(fn, *a):
    """(result, CPU seconds), including the collections of what the call allocated.

    The networks themselves are moved out of the collector's sight first
    (``gc.freeze``): a full collection walks every live Fraction, whatever the
    algorithm, and would be charged to whichever call happens to trigger it.
    """
    gc.collect()
    gc.freeze()
    try:
        t = time.process_time()
        out = fn(*a)
        gc.collect()
        return out, time.process_time() - t
    finally:
        gc.unfreeze()


def ulp_variants(th):
    """θ with v_7 moved by one float32 ulp, and θ with A[7][3] moved by one ulp."""
    v = list(th.M[0])
    v[7] = Fraction(float(np.nextafter(np.float32(float(v[7])), np.float32(np.inf))))
    A = list(th.A)
    row = list(A[7])
    row[3] = Fraction(float(np.nextafter(np.float32(float(row[3])), np.float32(np.inf))))
    A[7] = tuple(row)
    return Shallow((tuple(v),), th.A, th.b, th.c, th.m), Shallow(th.M, tuple(A), th.b, th.c, th.m)


if __name__ == "__main__":
    main()
