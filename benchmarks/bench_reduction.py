"""Exact reduction at any depth (``reluid minimal -o``): producer and checker, against the shallow minimal form.

Baseline: the shallow minimal form (Ramakrishnan 2026, Definition 3; reluid's
integer-ray path), which merges and zeroes neurons in one pass and emits no
certificate.  reluid's reduction removes one neuron per step and hashes every
intermediate network, so that the checker can re-verify each step; both are
timed in the same run and the table prints the ratio.  Then deep float32
He-initialised networks with planted pruning (every 8th neuron of hidden layer
1 has zero outgoing weights) and dead neurons (every 8th neuron of hidden
layer 2 has a nonpositive row and bias): producer and checker seconds.

    python benchmarks/bench_reduction.py [--quick]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np

from reluid.analysis.reduction import reduce_network
from reluid.analysis.shallow.minimal import minimal_form
from reluid.certificates.reduction import reduction_document
from reluid.checker.reduction import check_reduction
from reluid.model.network import Layer, Network


def _network(layers) -> Network:
    return Network(tuple(Layer(tuple(tuple(Fraction(float(v)) for v in r) for r in W),
                               tuple(Fraction(float(v)) for v in b), W.shape[1]) for W, b in layers))


def shallow(n: int, m: int, seed: int = 0, duplicate_fraction: float = 0.1) -> Network:
    rng = np.random.default_rng(seed)
    A = (rng.standard_normal((n, m)) * np.sqrt(2 / m)).astype(np.float32)
    b = (rng.standard_normal(n) * 0.1).astype(np.float32)
    v = (rng.standard_normal((1, n)) * np.sqrt(2 / n)).astype(np.float32)
    for i in rng.choice(n - 1, int(duplicate_fraction * n), replace=False):
        A[i + 1], b[i + 1] = 2 * A[i], 2 * b[i]          # positively proportional (exact in float32)
    return _network([(A, b), (v, np.zeros(1, dtype=np.float32))])


def deep(arch, seed: int = 0) -> Network:
    rng = np.random.default_rng(seed)
    layers = []
    for a, b in zip(arch, arch[1:]):
        layers.append(((rng.standard_normal((b, a)) * np.sqrt(2 / a)).astype(np.float32),
                       rng.uniform(-0.1, 0.1, b).astype(np.float32)))
    for i in range(0, arch[1], 8):
        layers[1][0][:, i] = 0
    for i in range(1, arch[2], 8):
        layers[1][0][i, :] = -np.abs(layers[1][0][i, :])
        layers[1][1][i] = -1
    return _network(layers)


def _timed(fn, repeats: int):
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    repeats = 1 if args.quick else 3
    print("| network | steps | minimal form (baseline) | reduction | check | reduction / baseline |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in ((500,) if args.quick else (500, 2000)):
        net = shallow(n, 10)
        tb, _ = _timed(lambda: minimal_form(net), repeats)
        tr, r = _timed(lambda: reduce_network(net, timeout=None), repeats)
        doc = reduction_document(r)
        tc, ok = _timed(lambda: check_reduction(doc, net, r.reduced), repeats)
        assert ok.valid
        print(f"| shallow 10-{n}-1, 10 % copies | {len(r.steps)} | {tb:.2f} s | {tr:.2f} s | {tc:.2f} s | "
              f"{tr / max(tb, 1e-9):.1f}× |")
    for arch in (((64, 32, 32, 10),) if args.quick else ((64, 32, 32, 10), (784, 128, 128, 10))):
        net = deep(arch)
        tr, r = _timed(lambda: reduce_network(net, timeout=None), repeats)
        doc = reduction_document(r)
        tc, ok = _timed(lambda: check_reduction(doc, net, r.reduced), repeats)
        assert ok.valid
        print(f"| deep {'-'.join(map(str, arch))} → {'-'.join(map(str, r.reduced.architecture))} | {len(r.steps)} | "
              f"— | {tr:.2f} s | {tc:.2f} s | — |")


if __name__ == "__main__":
    main()
