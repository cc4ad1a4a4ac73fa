"""Certified functional dimension against the float SVD of Grigsby-Lindsey-Rolnick 2023 (Section 6), same run.

Figure 6 architectures at the paper's protocol.  Both sides see the same
networks (weights N(0, 2/fan-in), biases N(0, 0.01)) and the same F × U sample
points (Gaussian, rounded to multiples of 2^-20):

* **float**: the Jacobian of θ ↦ (F_θ(z))_z by numpy backpropagation at every
  point, rank by SVD with numpy's default tolerance (S_max · max(M, N) · eps);
* **exact**: :func:`reluid.analysis.deep.fundim.functional_dimension` on the same
  sample (region rows modulo p, witness points checked exactly, stop at U).
  Its rank is certified and at least the float rank at the points whenever
  the float rank is right (region rows span what the points span).

Real MLPs (float32 He-initialised weights read exactly, biases N(0, 0.01)):
64-32-32-16-10 (3 834 parameters) and 784-128-128-10 (118 282), exact
functional dimension within a budget, against the float SVD of the Jacobian at
⌈2U/k⌉ Gaussian points (2U rows), and the checker's time on the certificate
(functional-dimension and local-identifiability claims).

Times are CPU seconds (``time.process_time``) with one BLAS thread.
Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_fundim.py [--networks K] [--quick]``;
``--growth [--budget S] [--growth-max N]`` prints only the growth curve from 1 k to 118 k parameters (each
size in a fresh process, so that its peak memory is its own): the full rank of §6.3, the block-triangular
certificate of Theorem A3 (§6.4; producer and checker) and the float SVD where its Jacobian fits.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from reluid.analysis.deep.fundim import (DYADIC_BITS, estimate_memory_gb, estimate_seconds,  # noqa: E402
                                         functional_dimension, sample_points, upper_bound)
from reluid.analysis.deep.survey import architecture_for, random_network  # noqa: E402
from reluid.model.network import Network  # noqa: E402

FIGURE6 = [(4, 5), (6, 5), (4, 10), (6, 10), (4, 15), (6, 15)]


def float_rank(net, X: np.ndarray) -> int:
    """The paper's computation: float64 Jacobian at every point, SVD rank with the usual tolerance."""
    return int(np.linalg.matrix_rank(float_jacobian(net, X)))


def float_jacobian(net, X: np.ndarray) -> np.ndarray:
    """∂F_o(x)/∂θ for every point and output (rows), by float64 backpropagation."""
    Ws = [np.array([[float(v) for v in r] for r in L.weight]).reshape(L.n_out, L.n_in) for L in net.layers]
    bs = [np.array([float(v) for v in L.bias]) for L in net.layers]
    hs, ms = [X], []
    for W, b in zip(Ws[:-1], bs[:-1]):
        z = hs[-1] @ W.T + b
        ms.append(z > 0)
        hs.append(np.where(z > 0, z, 0.0))
    n, k = X.shape[0], Ws[-1].shape[0]
    out = []
    for o in range(k):
        delta = np.zeros((n, k))
        delta[:, o] = 1.0
        blocks = []
        for l in range(len(Ws) - 1, -1, -1):
            blocks.append(np.concatenate([(delta[:, :, None] * hs[l][:, None, :]).reshape(n, -1), delta], axis=1))
            if l:
                delta = (delta @ Ws[l]) * ms[l - 1]
        out.append(np.concatenate(blocks[::-1], axis=1))
    return np.concatenate(out, axis=0)


def mlp(arch, seed: int = 0) -> Network:
    """float32 He-initialised weights (biases N(0, 0.01)), read exactly as the binary values they hold."""
    rng = np.random.default_rng(seed)
    layers = []
    for a, b in zip(arch, arch[1:]):
        W = (rng.standard_normal((b, a)) * np.sqrt(2 / a)).astype(np.float32)
        c = (rng.standard_normal(b) * 0.1).astype(np.float32)
        layers.append((W.astype(np.float64).tolist(), c.astype(np.float64).tolist()))
    return Network.from_lists(layers, allow_float=True)


def cpu(fn):
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def bench_figure6(depth: int, width: int, networks: int, factor: int, seed: int = 0) -> dict:
    arch = architecture_for(depth, width)
    U = upper_bound(arch)[0]
    count = factor * U
    t_float = t_exact = 0.0
    agree = lower = higher = full = 0
    for i in range(networks):
        net = random_network(arch, np.random.default_rng([seed, i]))
        X = sample_points(arch[0], count, seed + i) / float(1 << DYADIC_BITS)
        fr, tf = cpu(lambda: float_rank(net, X))
        ex, te = cpu(lambda: functional_dimension(net, points=count, seed=seed + i))
        t_float += tf
        t_exact += te
        agree += ex.rank == fr
        lower += ex.rank < fr
        higher += ex.rank > fr
        full += ex.certified
    return {"arch": arch, "U": U, "points": count, "networks": networks, "float_s": t_float / networks,
            "exact_s": t_exact / networks, "agree": agree, "exact_lower": lower, "exact_higher": higher, "full": full}


#: The checker's work limit in these timings (above its default, which the larger certificates exceed:
#: 384-64-64-10 needs about 3.1·10^8 steps; ``reluid check --work-limit`` raises it the same way).
CHECK_WORK_LIMIT = 1 << 31
#: The work limit for the checker of Theorem A3 certificates (flint operations are charged 64 to a step: about
#: 3·10^8 steps at 784-128-128-10, past the default 2^26, at which ``reluid check`` says "not re-verified").
TRI_CHECK_WORK_LIMIT = 1 << 40


def bench_mlp(arch, budget: float, float_rows: bool = True, float_gb: float = 4.0) -> dict:
    """Exact functional dimension (budget), its check, and the float SVD at 2U rows."""
    from reluid.certificates.build import fundim_claims
    from reluid.checker.registry import Budget, Context, VERIFIERS
    import reluid.checker.check  # noqa: F401

    net = mlp(arch)
    U = upper_bound(arch)[0]
    D = net.n_params
    row = {"arch": arch, "D": D, "U": U, "estimate_s": estimate_seconds(arch), "memory_gb": estimate_memory_gb(arch)}
    r, t = cpu(lambda: functional_dimension(net, deadline=time.monotonic() + budget))
    row.update(exact_s=t, rank=r.rank, outcome=r.stop_reason, points=len(r.points), full=r.full_rank)
    if r.points:
        claims = {str(c.kind): c for c in fundim_claims(r)}
        _, tc = cpu(lambda: VERIFIERS["functional-dimension"](claims["functional-dimension"].evidence,
                                                              Context(net, "f", Budget(CHECK_WORK_LIMIT))))
        row["check_s"] = tc
        if "local-identifiability" in claims:
            _, tl = cpu(lambda: VERIFIERS["local-identifiability"](claims["local-identifiability"].evidence,
                                                                   Context(net, "l", Budget(CHECK_WORK_LIMIT))))
            row["check_li_s"] = tl
    k = arch[-1]
    npts = math.ceil(2 * U / k)
    if float_rows and npts * k * D * 8 < float_gb * 1e9:
        X = sample_points(arch[0], npts, 1) / float(1 << DYADIC_BITS)
        fr, tf = cpu(lambda: float_rank(net, X))
        row.update(float_s=tf, float_rank=fr, float_points=npts)
    else:
        row.update(float_s=None, float_rank=None, float_points=npts,
                   float_note=f"the float Jacobian alone would be {npts * k} × {D} ({npts * k * D * 8 / 1e9:.1f} GB)")
    return row


#: The growth curve: 1 k to 118 k parameters (float32 He-initialised MLPs, seeded).
GROWTH = [(32, 24, 24, 10), (64, 32, 32, 16, 10), (64, 64, 64, 10), (100, 64, 64, 10), (384, 64, 64, 10),
          (540, 90, 90, 10), (784, 128, 128, 10)]


def growth_row(arch, budget: float, check: bool = True, float_gb: float = 4.0) -> dict:
    """One point of the growth curve, measured in this process: exact (CPU s, peak GB), check, float SVD."""
    import resource

    row = bench_mlp(arch, budget, float_rows=check, float_gb=float_gb)
    row["peak_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    return row


def triangular_row(arch, budget: float) -> dict:
    """Theorem A3 (docs/mathematics.md §6.4) in this process: the producer and the checker of both claims
    (CPU s), its outcome and the peak memory of the whole (GB)."""
    import resource

    from reluid.analysis.deep.triangular import triangular_certificate
    from reluid.checker import fundim as cfd
    from reluid.checker.registry import VERIFIERS, Budget, Context, work_limit_for

    net = mlp(arch)
    r, t = cpu(lambda: triangular_certificate(net, deadline=time.monotonic() + budget))
    row = {"arch": list(arch), "tri_s": t, "tri_rank": r.rank, "tri_full": r.full_rank, "tri_points": len(r.points),
           "tri_lp": r.n_lp, "tri_outcome": "D - N (A3)" if r.full_rank else str(r.stop_reason.value)}
    if r.full_rank:
        ev = r.evidence()
        ev.update(rank=r.rank, n_params=net.n_params, upper_bound=cfd.upper_bound(arch))
        b = Budget(TRI_CHECK_WORK_LIMIT)
        _, tc = cpu(lambda: (VERIFIERS["functional-dimension"](ev, Context(net, "f", b)),
                             VERIFIERS["local-identifiability"](ev, Context(net, "l", b))))
        # the default work limit of `reluid check` for a file holding this evidence once (a lower bound of a
        # certificate's length, so of its default limit): the two claims are re-verified there if the steps fit
        row.update(tri_check_s=tc, tri_steps=b.used,
                   tri_default_limit=work_limit_for(len(json.dumps(ev, default=str).encode())))
    row["tri_peak_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    return row


def _growth_child(arch, budget: float, what: str = "growth_row", **kw) -> dict:
    """:func:`growth_row` (or :func:`triangular_row`) in a fresh interpreter, so that each peak memory is its own."""
    import subprocess
    import sys

    code = (f"import json, sys; from benchmarks.bench_fundim import {what}; "
            f"r = {what}({tuple(arch)!r}, {budget!r}, **{kw!r}); "
            "print(json.dumps({k: (list(v) if isinstance(v, tuple) else v) for k, v in r.items()}))")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=budget * 4 + 600)
    if out.returncode:
        return {"arch": arch, "error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_triangular(archs=GROWTH, tri_budget: float = 900.0) -> None:
    """Theorem A3 alone at every size: producer, checker of both claims, its steps against the default limit."""
    print(f"Theorem A3 of §6.4 (float32 He-initialised MLPs; CPU s, peak GB of a fresh process, {tri_budget:g} s wall "
          "each; steps: the checker's work, against the default work limit of a file holding the evidence once)")
    print(f"{'architecture':<22} {'D':>7} {'A3':<11} {'A3 s':>7} {'check s':>8} {'steps':>11} {'default':>11} "
          f"{'GB':>5}")
    for arch in archs:
        t = _growth_child(arch, tri_budget, "triangular_row")
        if "error" in t or t.get("tri_check_s") is None:
            print(f"{str(tuple(arch)):<22} {t.get('error') or t.get('tri_outcome')}", flush=True)
            continue
        fits = "fits" if t["tri_steps"] <= t["tri_default_limit"] else "past it"
        print(f"{str(tuple(arch)):<22} {mlp(arch).n_params:>7} {t['tri_outcome']:<11} {t['tri_s']:>7.1f} "
              f"{t['tri_check_s']:>8.1f} {t['tri_steps']:>11,} {t['tri_default_limit']:>11,} {t['tri_peak_gb']:>5.2f} "
              f"{fits}", flush=True)


def print_growth(budget: float, archs=GROWTH, tri_budget: float = 900.0, float_gb: float = 4.0) -> None:
    print(f"Growth curve (float32 He-initialised MLPs; CPU s, peak GB of a fresh process; budget {budget:g} s "
          f"wall each for the full rank of §6.3 (exact), {tri_budget:g} s for Theorem A3 of §6.4 (A3: producer, "
          f"checker of both claims, peak of the two); the float SVD where its Jacobian is under {float_gb:g} GB)")
    print(f"{'architecture':<22} {'D':>7} {'U':>7} {'outcome':<20} {'rank':>7} {'exact s':>8} {'peak GB':>8} "
          f"{'est s':>7} {'est GB':>7} {'check s':>8} | {'A3':<11} {'A3 s':>7} {'A3 chk s':>8} {'A3 GB':>6} | "
          f"{'float s':>8} {'float rank':>10}")
    for arch in archs:
        r = _growth_child(arch, budget, float_gb=float_gb)
        t = _growth_child(arch, tri_budget, "triangular_row")
        if "error" in r:
            print(f"{str(tuple(arch)):<22} error: {r['error']}", flush=True)
            continue
        fs = f"{r['float_s']:.1f}" if r.get("float_s") is not None else "-"
        fr = str(r["float_rank"]) if r.get("float_rank") is not None else "too big"
        chk = r.get("check_s")
        if "error" in t:
            a3 = f"{'error':<11} {'-':>7} {'-':>8} {'-':>6}"
        else:
            tc = t.get("tri_check_s")
            a3 = (f"{t['tri_outcome']:<11} {t['tri_s']:>7.1f} {(f'{tc:.1f}' if tc is not None else '-'):>8} "
                  f"{t['tri_peak_gb']:>6.2f}")
        print(f"{str(tuple(arch)):<22} {r['D']:>7} {r['U']:>7} {r['outcome']:<20} {r['rank']:>7} "
              f"{r['exact_s']:>8.1f} {r['peak_gb']:>8.2f} {r['estimate_s']:>7.0f} {r['memory_gb']:>7.1f} "
              f"{(f'{chk:.1f}' if chk is not None else '-'):>8} | {a3} | {fs:>8} {fr:>10}", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--networks", type=int, default=4, help="networks per Figure 6 architecture (default 4)")
    p.add_argument("--points-factor", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="2 networks each, without (6, 15) and without 784-128-128-10")
    p.add_argument("--budget", type=float, default=120.0, help="seconds for each real MLP (default 120)")
    p.add_argument("--growth", action="store_true",
                   help="only the growth curve (1 k to 118 k parameters), each size in a fresh process")
    p.add_argument("--growth-max", type=int, default=len(GROWTH), help="the first N sizes of the growth curve")
    p.add_argument("--tri-budget", type=float, default=900.0,
                   help="seconds (wall) for Theorem A3 at each size of the growth curve (default 900)")
    p.add_argument("--float-gb", type=float, default=4.0,
                   help="the float SVD runs where its Jacobian is under this many GB (default 4)")
    p.add_argument("--triangular", action="store_true",
                   help="only Theorem A3 at each size of the growth curve, with the checker's steps")
    args = p.parse_args(argv)
    if args.triangular:
        print_triangular(GROWTH[:args.growth_max], args.tri_budget)
        return
    if args.growth:
        print_growth(args.budget, GROWTH[:args.growth_max], args.tri_budget, args.float_gb)
        return
    nets = 2 if args.quick else args.networks
    print("Figure 6 architectures, the paper's protocol (F × U Gaussian points), CPU s per network")
    print(f"{'architecture':<26} {'U':>5} {'points':>7} {'float s':>8} {'exact s':>8} {'speed-up':>8} "
          f"{'agree':>7} {'ex<fl':>5} {'ex>fl':>5} {'=U':>4}")
    for depth, width in FIGURE6:
        if args.quick and (depth, width) == (6, 15):
            continue
        r = bench_figure6(depth, width, nets, args.points_factor, args.seed)
        ratio = r["float_s"] / r["exact_s"] if r["exact_s"] else float("nan")
        print(f"{str(r['arch']):<26} {r['U']:>5} {r['points']:>7} {r['float_s']:>8.3f} {r['exact_s']:>8.3f} "
              f"{ratio:>7.1f}x {r['agree']:>3}/{r['networks']:<3} {r['exact_lower']:>5} {r['exact_higher']:>5} "
              f"{r['full']:>4}", flush=True)
    print()
    print("Real MLPs (float32 He initialisation), CPU s")
    for arch in [(64, 32, 32, 16, 10)] + ([] if args.quick else [(784, 128, 128, 10)]):
        r = bench_mlp(arch, args.budget)
        fl = (f"float SVD at {r['float_points']} points: rank {r['float_rank']}, {r['float_s']:.1f} s"
              if r["float_s"] is not None else f"float SVD: infeasible here ({r['float_note']})")
        print(f"{str(arch)}: D = {r['D']}, U = {r['U']}; exact: {r['outcome']}, rank {r['rank']}, "
              f"{r['exact_s']:.1f} s, {r['points']} witness points"
              + (", locally identifiable" if r["full"] else "")
              + (f"; check {r['check_s']:.1f} s" if "check_s" in r else "")
              + (f" (+ {r['check_li_s']:.1f} s for local identifiability)" if "check_li_s" in r else "")
              + f"; estimate {r['estimate_s']:.0f} s, {r['memory_gb']:.1f} GB; {fl}", flush=True)


if __name__ == "__main__":
    main()
