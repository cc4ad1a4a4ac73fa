"""Benchmark: two hidden layers at real width, Theorem W against Theorem 8.2's enumeration, in one run.

    python benchmarks/bench_two_layers.py [--quick] [--big] [--xframe]

For each float32 He-initialised network (weights N(0, 2/fan_in), biases N(0, 0.01), read exactly;
reports/two_layers.py's ``he_network``) it measures, in this process, CPU seconds
(``time.process_time``; the machine is shared) of

* **baseline**: ``analyse_two_layers(net, theorem_w=False)``, Theorem 8.2 with its enumeration
  of the 2^{n1} layer-1 sign patterns and the 2^{n1} − 1 sets I of H4 (it stops at n1 > 14 with
  "beyond the size limit", shown as ``size limit``);
* **new**: ``analyse_two_layers(net)``, which tries Theorem W when 8.2 does not apply (at n1 > 14
  directly: no enumeration);
* **certify** (``reluid.api.certify``, the whole pipeline with its 600 s budget) and **check**
  (``check_certificate`` on the JSON round-tripped certificate, at the default work limit ``reluid check`` gives its file: ``work_limit_for`` of its length).

Targets (issue 18 §2): 64-32-32-10, 64-128-128-10 and 784-128-128-10 decided in ≤ 30, 120 and 600 s,
each checked in at most half that.  64-128-128-10 has n1 > n0: Theorem W in the x frame, whose regions,
zeros, wall points and Motzkin vectors come from the LP-guided search (HiGHS, the extra ``lp``); the
baseline cannot run there (2^128 sign patterns: ``size limit``), nor on the ``XFRAME`` rows (n1 > 14).  ``--quick`` runs the small rows only; ``--big`` adds
784-128-128-10 (minutes); ``--xframe`` runs only the n1 > n0 rows (``XFRAME`` and 64-128-128-10).  The ratio column is baseline / new where both decide.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reports"))

from reluid.analysis.deep.two_layers import analyse_two_layers  # noqa: E402
from reluid.api import certify  # noqa: E402
from reluid.certificates.schema import from_json, to_json  # noqa: E402
from reluid.checker.check import check_certificate  # noqa: E402
from reluid.checker.registry import work_limit_for  # noqa: E402
from reluid.verdicts import ReasonCode  # noqa: E402

SMALL = [(8, 6, 6, 2), (12, 10, 10, 2), (16, 12, 12, 2)]
#: n1 > n0 (the x frame of Theorem W): beyond the sign tree of §8 the LP-guided search (analysis/deep/xsearch.py)
XFRAME = [(8, 16, 16, 2), (16, 32, 32, 4), (32, 64, 64, 10)]
TARGETS = [((64, 32, 32, 10), 30), ((64, 128, 128, 10), 120)]
BIG = [((784, 128, 128, 10), 600)]
#: Theorem 8.2's enumeration is stopped here (it is exponential in n1)
BASELINE_TIMEOUT = 60
#: the new path and certify get the default certify budget (reluid certify --timeout 60)
TIMEOUT = 60
#: the checker's work limit in this benchmark (the default, 2^24, is about ten seconds of work)


def _t(f):
    t = time.process_time()
    out = f()
    return out, time.process_time() - t


def row(arch, target=None, seed=0):
    from two_layers import he_network

    net = he_network(arch, seed)
    base, tb = _t(lambda: analyse_two_layers(net, theorem_w=False, timeout=BASELINE_TIMEOUT))
    new, tn = _t(lambda: analyse_two_layers(net, timeout=TIMEOUT))
    cert, tc = _t(lambda: certify(net, timeout=TIMEOUT if target is None else max(TIMEOUT, target)))
    text = to_json(cert)
    rep, tk = _t(lambda: check_certificate(from_json(text), net, work_limit=work_limit_for(len(text.encode()))))
    why = base.reason.code if base.reason is not None else None
    bv = ("size limit" if why == ReasonCode.THEOREM_82_SIZE_LIMIT else
          "timeout" if why == ReasonCode.THEOREM_82_BUDGET else base.verdict.value)
    ratio = f"{tb / tn:.1f}×" if base.verdict.value != "unknown" and new.verdict.value != "unknown" and tn else "—"
    route = "8.2" if new.applies_82 else "W" if new.applies_w else "-"
    ok = "" if target is None else ("meets" if cert.verdict.value != "unknown" and tc <= target and tk <= target / 2
                                    else "misses")
    print(f"| {'-'.join(map(str, arch))} | {bv} {tb:.2f} s | {new.verdict.value} ({route}) {tn:.2f} s | {ratio} | "
          f"{cert.verdict.value} {tc:.1f} s | {'valid' if rep.valid else 'INVALID'} {tk:.1f} s | {len(text) // 1024} KiB | "
          f"{'' if target is None else f'≤ {target} s / ≤ {target // 2} s: {ok}'} |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--xframe", action="store_true")
    args = ap.parse_args(argv)
    print("| architecture | baseline: Theorem 8.2 (enumeration) | new: 8.2, then Theorem W | ratio | certify | check | "
          "certificate | target (decide / check) |")
    print("|---|---|---|---|---|---|---|---|")
    if args.xframe:
        for arch in XFRAME:
            row(arch)
        row(*TARGETS[1])
        return 0
    for arch in SMALL[:2] if args.quick else SMALL:
        row(arch)
    if not args.quick:
        for arch in XFRAME:
            row(arch)
        for arch, target in TARGETS + (BIG if args.big else []):
            row(arch, target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
