"""Exact alignment against float weight matching (the re-basin heuristic), on real-sized MLPs.

Baseline: Hungarian matching of normalised rows, layer by layer, as weight-matching
re-basin tools do: in hidden layer l, the incoming rows (weights and bias) of both
networks are scaled to unit norm, ``scipy.optimize.linear_sum_assignment``
maximises the total cosine similarity, each matched neuron is rescaled by the
ratio of the row norms, and the next layer's columns follow.  It returns a
permutation and float scalings per layer; "aligned" is its verdict when the
aligned weights agree with the reference to a relative 1e-6 (``np.allclose``'s
habit).  scipy is needed only here (a benchmark-only dependency; reluid itself
does not use it).

reluid: :func:`reluid.align` (canonical rows layer by layer, integer arithmetic,
the element verified with ``act_layers``) and :func:`reluid.equivalent`.

Networks: float32 He-initialised weights (N(0, 2/fan-in)) and biases (N(0, 0.01)),
written to ``.npz`` as float32 and read back exactly.  Cases, per network:

* ``planted 2^k``: B = g·A with a random permutation and scalings 2^k,
  k ∈ [-4, 4] per neuron (B is again exactly float32 and goes through a file);
* ``planted p/q``: scalings p/q with 1 ≤ p, q ≤ 9 (B is exact but not a float
  network; the baseline sees it rounded to float64);
* ``near miss``: the ``planted 2^k`` network with one weight of hidden layer 2
  moved by one float32 ulp: another orbit, and another function.

Both sides run in the same process (best of three runs for reluid, of seven for the
baseline); the table gives
the times and their ratio.

    python benchmarks/bench_align.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from fractions import Fraction

import numpy as np
from scipy.optimize import linear_sum_assignment

import reluid
from reluid.model.network import Layer, Network
from reluid.model.symmetry import GroupElement, act_layers


def he_arrays(arch, seed):
    rng = np.random.default_rng(seed)
    return [((rng.standard_normal((b, a)) * np.sqrt(2 / a)).astype(np.float32),
             (rng.standard_normal(b) * 0.01).astype(np.float32)) for a, b in zip(arch, arch[1:])]


def write_float32_npz(arrays, path):
    np.savez(path, **{f"{k}{i + 1}": v for i, (W, b) in enumerate(arrays) for k, v in (("W", W), ("b", b))})


def float32_arrays(net: Network):
    return [(np.array([[float(x) for x in r] for r in L.weight], dtype=np.float32),
             np.array([float(x) for x in L.bias], dtype=np.float32)) for L in net.layers]


def through_file(arrays) -> Network:
    """Write float32 arrays to an .npz file and read them back exactly."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "net.npz")
        write_float32_npz(arrays, path)
        return reluid.load(path)


def planted(net, seed, kind):
    rng = np.random.default_rng(seed)
    gs = []
    for n in net.hidden_widths:
        perm = tuple(int(x) for x in rng.permutation(n))
        if kind == "pow2":
            scale = tuple(Fraction(2) ** int(k) for k in rng.integers(-4, 5, n))
        else:
            scale = tuple(Fraction(int(p), int(q)) for p, q in zip(rng.integers(1, 10, n), rng.integers(1, 10, n)))
        gs.append(GroupElement(perm, scale))
    return tuple(gs)


def one_ulp(net: Network, layer: int, j: int, k: int) -> Network:
    L = list(net.layers)
    W = [list(r) for r in L[layer - 1].weight]
    x = np.float32(float(W[j][k]))
    W[j][k] = Fraction(float(np.nextafter(x, np.float32(np.inf))))
    L[layer - 1] = Layer(tuple(map(tuple, W)), L[layer - 1].bias, L[layer - 1].n_in)
    return Network(tuple(L))


def float_layers(net: Network):
    return [(np.array([[float(x) for x in r] for r in L.weight]), np.array([float(x) for x in L.bias]))
            for L in net.layers]


def baseline_align(A, B):
    """Hungarian matching on normalised rows, layer by layer: (perms, scales, aligned float layers)."""
    B = [(W.copy(), b.copy()) for W, b in B]
    perms, scales = [], []
    for l in range(len(A) - 1):
        RA = np.hstack([A[l][0], A[l][1][:, None]])
        RB = np.hstack([B[l][0], B[l][1][:, None]])
        na, nb = np.linalg.norm(RA, axis=1), np.linalg.norm(RB, axis=1)
        C = (RA / na[:, None]) @ (RB / nb[:, None]).T
        rows, cols = linear_sum_assignment(-C)              # A neuron rows[i] <-> B neuron cols[i]
        perm = np.empty(len(cols), dtype=int)
        perm[cols] = rows                                   # B neuron k goes to position perm[k]
        s = na[perm] / nb                                   # B row k times s[k] ≈ A row perm[k]
        W, b = B[l]
        Wn, bn = np.empty_like(W), np.empty_like(b)
        Wn[perm], bn[perm] = W * s[:, None], b * s
        B[l] = (Wn, bn)
        W2, b2 = B[l + 1]
        W2n = np.empty_like(W2)
        W2n[:, perm] = W2 / s[None, :]
        B[l + 1] = (W2n, b2)
        perms.append(perm)
        scales.append(s)
    return perms, scales, B


def residual(A, B):
    return max(np.abs(Wa - Wb).max() / np.abs(Wa).max() for (Wa, _), (Wb, _) in zip(A, B))


def timed(fn, *a, repeat=1):
    """(best time of ``repeat`` runs, result)."""
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*a)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, out


REPEAT = 3


def run_case(name, A, B, truth, reports, planted_baseline=None):
    """truth: the element carrying B onto A, or None when B is outside A's orbit."""
    fa, fb = float_layers(A), float_layers(B)
    tb, (perms, scales, aligned_f) = timed(baseline_align, fa, fb, repeat=2 * REPEAT + 1)
    res = residual(fa, aligned_f)
    verdict = "aligned" if res <= 1e-6 else "not aligned"
    tr, al = timed(reluid.align, A, B, repeat=REPEAT)
    if truth is not None:
        ok_r = al.same_orbit and al.elements == truth and al.aligned == A
        perm_ok = all(np.array_equal(p, np.array(g.perm)) for p, g in zip(perms, truth))
        exact_scales = sum(int(Fraction(float(x)) == y) for s, g in zip(scales, truth) for x, y in zip(s, g.scale))
        total = sum(g.n for g in truth)
        base = f"perm right, {exact_scales}/{total} scalings exact" if perm_ok else "perm WRONG"
        reluid_txt = "same orbit: the planted element exactly" if ok_r else f"FAILED ({al.reason})"
    else:
        ok_r = al.same_orbit is False
        p0, s0 = planted_baseline
        same = all(np.array_equal(p, q) for p, q in zip(perms, p0)) and \
            all(np.allclose(s, t, rtol=1e-6, atol=0) for s, t in zip(scales, s0))
        base = "the same element as for the planted network" if same else "a different element"
        reluid_txt = (f"different orbits: hidden layer {al.first_difference} is the first that differs" if ok_r
                      else f"FAILED ({al.reason})")
    reports.append((name, reluid_txt, base, f"{res:.1e} ({verdict})", tr, tb))
    return perms, scales


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="the smaller network only")
    args = ap.parse_args()
    archs = [(64, 256, 256, 256, 10)] if args.quick else [(784, 512, 512, 10), (64, 256, 256, 256, 10)]
    rows = []
    extra = []
    for arch in archs:
        label = "-".join(map(str, arch))
        arrays = he_arrays(arch, seed=len(arch))
        t_load, A = timed(through_file, arrays)
        g2 = planted(A, 1, "pow2")
        B2 = act_layers(g2, A)
        from_file = through_file(float32_arrays(B2))
        assert from_file == B2, "the planted network is not exactly float32"
        B2 = from_file
        truth2 = tuple(h.inverse() for h in g2)
        planted_baseline = run_case(f"{label} planted 2^k", A, B2, truth2, rows)
        gq = planted(A, 2, "rational")
        Bq = act_layers(gq, A)
        run_case(f"{label} planted p/q", A, Bq, tuple(h.inverse() for h in gq), rows)
        near = one_ulp(B2, 2, 7, 11)
        run_case(f"{label} near miss (1 ulp)", A, near, None, rows, planted_baseline)
        te, eq = timed(reluid.equivalent, A, near)
        assert eq.equal is False and A(eq.input) != near(eq.input)
        diff = max(abs(p - q) for p, q in zip(*eq.outputs))
        extra.append(f"{label}: writing and reading A as float32 .npz (exact) {t_load:.2f} s; "
                     f"`equivalent(A, near miss)` finds an exact distinguishing input in {te:.2f} s "
                     f"(|Δ output| = {float(diff):.2e}, method: {eq.method})")
        te2, eq2 = timed(reluid.equivalent, A, B2)
        assert eq2.equal and eq2.same_orbit
        extra.append(f"{label}: `equivalent(A, planted 2^k)`: equal, same orbit, in {te2:.2f} s")
    print("| case | reluid | float baseline (Hungarian): element | baseline residual (verdict) | reluid s | "
          "baseline s | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, r, b, res, tr, tb in rows:
        print(f"| {name} | {r} | {b} | {res} | {tr:.2f} | {tb:.3f} | {tr / tb:.0f}x |")
    print()
    for line in extra:
        print(line)


if __name__ == "__main__":
    main()
