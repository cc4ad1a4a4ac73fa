"""Certified functional dimension vs the float approach of Grigsby-Lindsey-Rolnick 2023 (Section 6).

Both sides see the same networks (weights N(0, 2/fan-in), biases N(0, 0.01)) and
the same F × U sample points (Gaussian, rounded to multiples of 2^-20):

* **float**: the Jacobian of θ ↦ (F_θ(z))_z by numpy backpropagation at every
  point, rank by SVD with numpy's default tolerance (S_max · max(M, N) · eps);
* **exact**: :func:`reluid.analysis.deep.fundim.functional_dimension` (activation
  regions deduplicated, Jacobian modulo a prime, witness points checked exactly,
  stop at U).

Prints a table: seconds per network, the ratio, and how often the ranks agree.
Run: ``PYTHONPATH=. python benchmarks/bench_fundim.py [--networks K] [--points-factor F]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from reluid.analysis.deep.fundim import DYADIC_BITS, functional_dimension, sample_points, upper_bound
from reluid.analysis.deep.survey import architecture_for, random_network


def float_rank(net, X: np.ndarray) -> int:
    """The paper's computation: float64 Jacobian at every point, SVD rank with the usual tolerance."""
    Ws = [np.array([[float(v) for v in r] for r in L.weight]).reshape(L.n_out, L.n_in) for L in net.layers]
    bs = [np.array([float(v) for v in L.bias]) for L in net.layers]
    hs, ms = [X], []
    for W, b in zip(Ws[:-1], bs[:-1]):
        z = hs[-1] @ W.T + b
        ms.append(z > 0)
        hs.append(np.where(z > 0, z, 0.0))
    n = X.shape[0]
    delta = np.ones((n, 1))
    blocks = []
    for l in range(len(Ws) - 1, -1, -1):
        blocks.append(np.concatenate([(delta[:, :, None] * hs[l][:, None, :]).reshape(n, -1), delta], axis=1))
        if l:
            delta = (delta @ Ws[l]) * ms[l - 1]
    J = np.concatenate(blocks[::-1], axis=1)
    return int(np.linalg.matrix_rank(J))


def bench(arch, networks: int, factor: int, seed: int = 0):
    U = upper_bound(arch)[0]
    count = factor * U
    t_float = t_exact = 0.0
    agree = lower = higher = full = 0
    for i in range(networks):
        net = random_network(arch, np.random.default_rng([seed, i]))
        X = sample_points(arch[0], count, seed + i) / float(1 << DYADIC_BITS)
        t0 = time.perf_counter()
        fr = float_rank(net, X)
        t1 = time.perf_counter()
        ex = functional_dimension(net, points=count, seed=seed + i)
        t2 = time.perf_counter()
        t_float += t1 - t0
        t_exact += t2 - t1
        agree += ex.rank == fr
        lower += ex.rank < fr
        higher += ex.rank > fr
        full += ex.certified
    return {"arch": arch, "U": U, "points": count, "networks": networks, "float_s": t_float / networks,
            "exact_s": t_exact / networks, "agree": agree, "exact_lower": lower, "exact_higher": higher,
            "full": full}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--networks", type=int, default=10)
    p.add_argument("--points-factor", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    archs = [architecture_for(4, 5), architecture_for(6, 5), architecture_for(4, 10), (3, 8, 8, 8, 1)]
    print(f"{'architecture':<24} {'U':>4} {'points':>7} {'float s':>8} {'exact s':>8} {'ratio':>6} "
          f"{'agree':>7} {'ex<fl':>5} {'ex>fl':>5} {'=U':>4}")
    for arch in archs:
        r = bench(arch, args.networks, args.points_factor, args.seed)
        ratio = r["exact_s"] / r["float_s"] if r["float_s"] else float("nan")
        print(f"{str(arch):<24} {r['U']:>4} {r['points']:>7} {r['float_s']:>8.3f} {r['exact_s']:>8.3f} "
              f"{ratio:>6.2f} {r['agree']:>3}/{r['networks']:<3} {r['exact_lower']:>5} {r['exact_higher']:>5} "
              f"{r['full']:>4}")


if __name__ == "__main__":
    main()
