"""Benchmark: deep premises "no input with these sign conditions", z3 against Farkas-tree certificates.

    PYTHONPATH=. python benchmarks/bench_premises.py [--quick] [--z3-timeout SECONDS] [--seed N]

Both sides answer the same questions on the same networks (docs/mathematics.md §6, §6.1):

* **z3**: :func:`reluid.smt.deep.find_input` (QF_LRA, ``If(z > 0, z, 0)`` per ReLU);
  its ``unsat`` is not re-checkable, and a timeout counts as unknown;
* **farkas**: :func:`reluid.analysis.deep.farkas.prove_no_input` (branch and bound with
  a float LP guide, exact multipliers), then the independent checker
  :func:`reluid.checker.farkas.verify_no_input` on the JSON round-tripped tree.

Networks
    ``examples``: the repository's deep examples (``examples/networks/deep_*.json``);
    ``planted``: the hand-made premises of ``tests/analysis/deep/test_farkas.py``;
    ``glr``: random networks in the style of Grigsby–Lindsey–Rolnick (weights N(0, 2/fan-in),
    biases N(0, 0.01), read as their exact binary values), width 5–10, depth 3–4;
    ``glr-shifted``: the same with the last hidden layer's biases lowered by 3/2, so that
    dead neurons (hard "none" answers) occur.

Questions per network: what the mechanism detection asks: dead (z > 0) and always active
(z < 0) for neurons of layers >= 2, never co-active pairs (z^{l-1}_i > 0, z^l_j > 0) and
collapsed kinks (z^{l-1}_i < 0, z^l_j > 0) -- all of them for small networks, a seeded
sample for the random ones.

Columns: questions; answers of farkas (found/none/unknown) and of z3; disagreements where
both decided; total seconds of z3, of the prover and of the checker; the ratio z3 / prover
(over all questions, z3 timeouts counted at their limit); the largest and mean tree (leaves).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reluid.analysis.deep.farkas import Condition, prove_no_input  # noqa: E402
from reluid.analysis.deep.survey import architecture_for, random_network  # noqa: E402
from reluid.checker.farkas import verify_no_input  # noqa: E402
from reluid.io import read_network  # noqa: E402
from reluid.model import Network  # noqa: E402
from reluid.model.jsondata import thaw  # noqa: E402
from reluid.smt.deep import Condition as Z3Condition  # noqa: E402
from reluid.smt.deep import find_input  # noqa: E402
from reluid.smt.solver import SolverConfig  # noqa: E402
from reluid.verdicts import Outcome  # noqa: E402


def questions(net: Network, limit: int | None, rng: random.Random):
    hidden = net.hidden_widths
    qs = []
    for l in range(2, len(hidden) + 1):
        for j in range(hidden[l - 1]):
            qs.append(((l, j, ">0"),))
            qs.append(((l, j, "<0"),))
            for i in range(hidden[l - 2]):
                qs.append(((l - 1, i, ">0"), (l, j, ">0")))
                qs.append(((l - 1, i, "<0"), (l, j, ">0")))
    if limit is not None and len(qs) > limit:
        # keep every single-neuron question of the last layer (where the dead ones are), sample the rest
        last = len(hidden)
        keep = [q for q in qs if len(q) == 1 and q[0][0] == last and q[0][2] == ">0"]
        rest = [q for q in qs if q not in keep]
        qs = keep + rng.sample(rest, max(0, limit - len(keep)))
    return qs


def shifted(net: Network, delta: Fraction) -> Network:
    layers = [(L.weight, L.bias) for L in net.layers]
    W, b = layers[-2]
    layers[-2] = (W, tuple(x - delta for x in b))
    return Network.from_lists(layers)


def networks(quick: bool, seed: int):
    for path in sorted((ROOT / "examples" / "networks").glob("deep_*.json")):
        yield "examples", path.stem, read_network(path)
    sys.path.insert(0, str(ROOT))
    from tests.analysis.deep.test_farkas import PLANTED
    for name, net, _ in PLANTED:
        yield "planted", name, net
    archs = [architecture_for(3, 5), architecture_for(4, 5), architecture_for(3, 8), (2, 8, 8, 8, 1),
             architecture_for(4, 10), (3, 10, 10, 10, 1)]
    if quick:
        archs = archs[:2] + archs[3:4]
    per = 1 if quick else 2
    for arch in archs:
        for k in range(per):
            net = random_network(arch, np.random.default_rng([seed, k, len(arch), arch[1]]))
            yield "glr", f"{arch} #{k}", net
            yield "glr-shifted", f"{arch} #{k}", shifted(net, Fraction(3, 2))


def run_one(net, conds, z3_timeout):
    cfg = SolverConfig(timeout_ms=int(1000 * z3_timeout), logic="QF_LRA")
    t0 = time.perf_counter()
    z = find_input(net, [Z3Condition(*c) for c in conds], cfg)
    t1 = time.perf_counter()
    r = prove_no_input(net, [Condition(*c) for c in conds], timeout=max(60.0, z3_timeout))
    t2 = time.perf_counter()
    tc = 0.0
    if r.outcome is Outcome.NONE:
        ev = json.loads(json.dumps(thaw(r.evidence)))
        t3 = time.perf_counter()
        n = verify_no_input(net, conds, ev)
        tc = time.perf_counter() - t3
        assert n == r.leaves
    elif r.outcome is Outcome.FOUND:
        pre = net.preactivations(r.point)
        assert all(Condition(*c).holds(pre[c[0] - 1][c[1]]) for c in conds)
    return z.outcome, t1 - t0, r, t2 - t1, tc


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer networks and questions")
    p.add_argument("--z3-timeout", type=float, default=10.0, help="seconds per z3 query (default 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--questions", type=int, default=None, help="questions per random network (default 24, quick 12)")
    args = p.parse_args(argv)
    limit = args.questions or (12 if args.quick else 24)
    rng = random.Random(args.seed)
    groups: dict = {}
    hdr = (f"{'group':<12} {'network':<26} {'q':>4} {'farkas f/n/u':>13} {'z3 f/n/u':>10} {'diff':>4} "
           f"{'z3 s':>8} {'farkas s':>9} {'check s':>8} {'z3/farkas':>9} {'max leaves':>10} {'mean':>6}")
    print(hdr)
    print("-" * len(hdr))
    for group, name, net in networks(args.quick, args.seed):
        qs = questions(net, None if group in ("examples", "planted") else limit, rng)
        row = {"q": 0, "f": [0, 0, 0], "z": [0, 0, 0], "diff": 0, "tz": 0.0, "tp": 0.0, "tc": 0.0, "leaves": []}
        idx = {Outcome.FOUND: 0, Outcome.NONE: 1, Outcome.UNKNOWN: 2}
        for conds in qs:
            zo, tz, r, tp, tc = run_one(net, conds, args.z3_timeout)
            row["q"] += 1
            row["z"][idx[zo]] += 1
            row["f"][idx[r.outcome]] += 1
            if Outcome.UNKNOWN not in (zo, r.outcome) and zo is not r.outcome:
                row["diff"] += 1
                print(f"  DISAGREEMENT {name} {conds}: z3 {zo.value}, farkas {r.outcome.value}", flush=True)
            row["tz"] += tz
            row["tp"] += tp
            row["tc"] += tc
            if r.outcome is Outcome.NONE:
                row["leaves"].append(r.leaves)
        g = groups.setdefault(group, {"q": 0, "f": [0, 0, 0], "z": [0, 0, 0], "diff": 0, "tz": 0.0, "tp": 0.0,
                                      "tc": 0.0, "leaves": []})
        for k in ("q", "diff", "tz", "tp", "tc"):
            g[k] += row[k]
        g["f"] = [a + b for a, b in zip(g["f"], row["f"])]
        g["z"] = [a + b for a, b in zip(g["z"], row["z"])]
        g["leaves"] += row["leaves"]
        _print(group, name, row)
    print("-" * len(hdr))
    total = {"q": 0, "f": [0, 0, 0], "z": [0, 0, 0], "diff": 0, "tz": 0.0, "tp": 0.0, "tc": 0.0, "leaves": []}
    for group, g in groups.items():
        _print(group, "(all)", g)
        for k in ("q", "diff", "tz", "tp", "tc"):
            total[k] += g[k]
        total["f"] = [a + b for a, b in zip(total["f"], g["f"])]
        total["z"] = [a + b for a, b in zip(total["z"], g["z"])]
        total["leaves"] += g["leaves"]
    _print("total", "", total)
    print(f"\nz3 per-query limit {args.z3_timeout:g} s (its unknowns are timeouts); farkas limit 60 s per query.")


def _print(group, name, r):
    leaves = r["leaves"]
    ratio = r["tz"] / r["tp"] if r["tp"] else float("nan")
    print(f"{group:<12} {name:<26} {r['q']:>4} {'/'.join(map(str, r['f'])):>13} {'/'.join(map(str, r['z'])):>10} "
          f"{r['diff']:>4} {r['tz']:>8.2f} {r['tp']:>9.3f} {r['tc']:>8.3f} {ratio:>9.1f} "
          f"{max(leaves) if leaves else 0:>10} {sum(leaves) / len(leaves) if leaves else 0:>6.1f}", flush=True)


if __name__ == "__main__":
    main()
