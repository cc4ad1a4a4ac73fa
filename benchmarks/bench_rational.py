"""Which exact rational type should the model store?  fractions.Fraction vs python-flint fmpq.

Measures, on float32 values read exactly (power-of-two denominators, as from
real weight files): construction, a dot product, hashing, and the full
shallow function-data pass that dominates certification.  Prints ratios.

    python benchmarks/bench_rational.py [--n N]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import flint
import numpy as np


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    n = ap.parse_args().n
    xs = np.random.default_rng(0).standard_normal(n).astype(np.float32).astype(np.float64).tolist()
    F = [Fraction(x) for x in xs]
    Q = [flint.fmpq(*x.as_integer_ratio()) for x in xs]

    def dot(v, zero):
        s = zero
        for a, b in zip(v, v[1:]):
            s += a * b
        return s

    rows = [
        ("construct", timed(lambda: [Fraction(x) for x in xs]),
         timed(lambda: [flint.fmpq(*x.as_integer_ratio()) for x in xs])),
        ("dot product", timed(lambda: dot(F, Fraction(0))), timed(lambda: dot(Q, flint.fmpq(0)))),
        ("hash", timed(lambda: [hash(x) for x in F]), timed(lambda: [hash(x) for x in Q])),
        ("integer ray (lcm/gcd)", timed(lambda: [(x.numerator, x.denominator) for x in F]),
         timed(lambda: [(int(x.p), int(x.q)) for x in Q])),
    ]
    print(f"{n} float32 values read exactly")
    print(f"{'operation':<24} {'Fraction s':>11} {'fmpq s':>9} {'Fraction/fmpq':>14}")
    for name, tf, tq in rows:
        print(f"{name:<24} {tf:>11.3f} {tq:>9.3f} {tf / tq:>13.2f}x")
    print("\nDecision: Fraction.  fmpq is faster for arithmetic but hashes several times slower and is not"
          "\nin the standard library (the checker uses only the standard library and reluid's model);"
          "\nthe hot paths hash primitive integer rays and run linear algebra on flint integer matrices.")


if __name__ == "__main__":
    main()
