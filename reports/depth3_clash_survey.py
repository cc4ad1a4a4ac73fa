#!/usr/bin/env python3
"""How often the clash-point condition (CP) of docs/mathematics.md §12.10 holds on random networks.

    PYTHONPATH=. python reports/depth3_clash_survey.py [--count N] [--seed S] [--arch 3,3,2,4,1 ...]

A seeded i.i.d. sample (every entry N(0, 1) rounded to a multiple of 1/16, the project's law) of
three-hidden-layer networks with n0 = 3 (the condition needs n2 < n0).  For each network: H0₁ and T0,
the bend flats of Definition 12.23 (a), (b) enumerated exactly (tests/depth3_clash.py), the clash
points, the per-line test (CP-L) and the exact decision (CP) of Theorem 12.37, and the check of
Corollary 12.36 (every clash point lies on a layer-1 hyperplane of θ).  Exact throughout; a
script outside reluid (nothing in reluid uses §12.10).
"""

from __future__ import annotations

import argparse
import random
import time
from fractions import Fraction

from reluid.analysis.deep.strict import rank
from tests.depth3_clash import Net3, clash_points, cp_l, cp_star, dedupe, edge_flats, level1_flats, on_H


def draw(arch, rng):
    g = lambda: Fraction(round(rng.gauss(0.0, 1.0) * 16), 16)
    mats = []
    for a, b in zip(arch, arch[1:]):
        mats.append(([[g() for _ in range(a)] for _ in range(b)], [g() for _ in range(b)]))
    return mats


def h0_t0(mats):
    (W1, b1), _, _, (V, _) = mats
    rows = [list(w) + [b] for w, b in zip(W1, b1)]
    h0 = all(any(w) for w in W1) and all(rank([p, q]) == 2 for a, p in enumerate(rows) for q in rows[a + 1:])
    return h0 and all(any(V[o][k] for o in range(len(V))) for k in range(len(V[0])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--arch", nargs="*", default=["3,3,2,4,1", "3,3,2,6,1"])
    ap.add_argument("--max-points", type=int, default=40,
                    help="skip the exact (CP) search (unbudgeted, exponential in |I|) above this many clash points")
    args = ap.parse_args()
    for spec in args.arch:
        arch = tuple(int(v) for v in spec.split(","))
        rng = random.Random(f"{args.seed}:{spec}")
        held = held_l = valid = 0
        t0 = time.process_time()
        for n in range(args.count):
            mats = draw(arch, rng)
            if not h0_t0(mats):
                print(f"{spec} #{n}: H0₁ or T0 fails")
                continue
            valid += 1
            net = Net3(*(m for pair in mats for m in pair))
            flats = dedupe(edge_flats(net) + level1_flats(net))
            X = clash_points(flats)
            ok_l, stats = cp_l(net, X)
            if not ok_l and len(X) > args.max_points:
                print(f"{spec} #{n}: {len(flats)} flats, {len(X)} clash points, CP-L False, CP not decided")
                continue
            ok, I = cp_star(net, X)
            # Corollary 12.36 (θ is its own competitor): every clash point lies on some H_j
            off = sum(not on_H(net, x) for x in X)
            assert off == 0, "a clash point off every H_j would contradict Lemma 12.33"
            on2 = sum(len(on_H(net, x)) >= 2 for x in X)
            held += ok
            held_l += ok_l
            per = " ".join(f"H{i + 1}:{a}/{c}" for i, (a, c, _) in enumerate(stats))
            print(f"{spec} #{n}: {len(flats)} flats, {len(X)} clash points, |X_i°|/c_i {per}, "
                  f"{on2} on two H's, CP-L {ok_l}, CP {ok}" + ("" if ok else f" (fails at I = {[i + 1 for i in I]})"))
        print(f"{spec}: CP holds on {held}/{valid} (CP-L {held_l}/{valid}; undecided ones count in valid); "
              f"{time.process_time() - t0:.0f} CPU s")


if __name__ == "__main__":
    main()
