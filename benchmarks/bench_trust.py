"""What the verdicts rest on, over a varied set: the share that is not exact arithmetic the checker re-derives.

Usage::

    python benchmarks/bench_trust.py [--quick]

For every network of the set (the bundled examples, the named catalogue, the
planted shallow families, random deep networks of Grigsby–Lindsey–Rolnick's
kind and the planted deep mechanisms) it certifies, re-checks with
``reluid check``'s own rules, and counts:

* verdicts (no hidden symmetries / hidden symmetry / unknown);
* verdicts the checker accepted by an exact rule (its rule text names it);
* verdicts resting on anything else: a claim the rule used whose evidence is a
  solver's answer, or a verdict the checker did not accept — the goal is 0;
* the unknown verdicts and why, since a verdict that used to rest on z3 now
  becomes either an exact certificate or an honest unknown.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir))

from reluid.api import certify, check, load  # noqa: E402
from reluid.model.network import Network  # noqa: E402
from reluid.verdicts import Verdict  # noqa: E402


def _deep_random(rng, arch, glr: bool) -> Network:
    layers = []
    for a, b in zip(arch, arch[1:]):
        if glr:   # positive weights and negative biases make dead and never co-active neurons common
            W = [[rng.randint(0, 4) for _ in range(a)] for _ in range(b)]
            bias = [rng.randint(-6, 0) for _ in range(b)]
        else:
            W = [[rng.randint(-3, 3) for _ in range(a)] for _ in range(b)]
            bias = [rng.randint(-3, 3) for _ in range(b)]
        layers.append((W, bias))
    return Network.from_lists(layers)


def networks(quick: bool):
    from tests.deep_catalogue import DEEP_CATALOGUE
    from tests.analysis.shallow.test_planted import case
    from tests.catalogue import CATALOGUE
    from tests.paths import EXAMPLES

    for path in sorted(EXAMPLES.iterdir()):
        yield "bundled example", load(path)
    for ex in CATALOGUE:
        yield "catalogue", ex.theta.to_network()
    for index in range(0, 10_000, 100 if quick else 25):
        family, theta, _ = case(index)
        yield f"planted shallow: {family}", theta.to_network()
    for ex in DEEP_CATALOGUE:
        yield "planted deep mechanism", ex.network
    rng = random.Random(9)
    for k in range(12 if quick else 60):
        arch = rng.choice([(2, 3, 3, 1), (2, 4, 4, 1), (3, 4, 4, 2), (2, 3, 3, 3, 1)])
        yield f"random deep ({'GLR-style' if k % 2 else 'i.i.d.'})", _deep_random(rng, arch, glr=bool(k % 2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smaller sample (CI-sized)")
    args = ap.parse_args(argv)
    rows: dict[str, Counter] = {}
    unknown_reasons: Counter = Counter()
    not_exact = []
    t0 = time.perf_counter()
    for group, net in networks(args.quick):
        cert = certify(net, timeout=30)
        rep = check(cert, net)
        c = rows.setdefault(group, Counter())
        c[cert.verdict.value] += 1
        solver_evidence = any(ch.status == "verified" and next(
            (cl for cl in cert.claims if cl.id == ch.id)).evidence.get("method") == "z3" for ch in rep.claims)
        if cert.verdict is not Verdict.UNKNOWN:
            if rep.valid and not solver_evidence:
                c["exact"] += 1
            else:
                c["not exact"] += 1
                not_exact.append((group, net.architecture, rep.reason or "solver evidence"))
        else:
            unknown_reasons[str(cert.reasons[0].code)] += 1
    total = Counter()
    print(f"{'group':42s} {'none':>6s} {'hidden':>7s} {'unknown':>8s} {'exact':>6s} {'not exact':>10s}")
    for group, c in rows.items():
        total.update(c)
        print(f"{group:42s} {c['no-hidden-symmetries']:6d} {c['hidden-symmetry']:7d} {c['unknown']:8d} "
              f"{c['exact']:6d} {c['not exact']:10d}")
    decided = total["no-hidden-symmetries"] + total["hidden-symmetry"]
    print(f"{'total':42s} {total['no-hidden-symmetries']:6d} {total['hidden-symmetry']:7d} {total['unknown']:8d} "
          f"{total['exact']:6d} {total['not exact']:10d}")
    share = total["not exact"] / decided if decided else 0.0
    print(f"\nverdicts resting on anything but exact arithmetic the checker re-derives: {total['not exact']} of "
          f"{decided} = {100 * share:.1f}% (goal 0%; before the exact essential-stratum decision and the Farkas "
          f"trees, about 10% rested on z3 unsat)")
    for reason, count in unknown_reasons.most_common():
        print(f"  unknown ({count}): {reason}")
    for item in not_exact:
        print("  NOT EXACT:", item)
    print(f"{time.perf_counter() - t0:.1f} s")
    return 1 if not_exact else 0


if __name__ == "__main__":
    sys.exit(main())
