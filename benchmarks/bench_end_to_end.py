"""End to end from a file: ``reluid certify`` and ``reluid check`` as a user runs them, against reading the file.

Usage::

    python benchmarks/bench_end_to_end.py [--quick]

For float32 He-initialised MLPs written to ``.npz`` (784-n-10 for n = 512, 2048, 4096,
10 000; ``--quick``: 512 and 2048), it runs the command line in a subprocess and
measures wall-clock seconds: ``reluid certify NET -o CERT --no-check``, ``reluid check
CERT --network NET`` and, as the baseline in the same run, the floor every command
pays: reading the file exactly and hashing it (``reluid.load`` + ``Network.sha256``,
in a subprocess as well, interpreter start included).  Then, for 784-4096-10 and
784-10 000-10 (``--quick``: 784-2048-10), the separation floor: the least a check of
the certificate's separation claim can do, written here with numpy alone (``np.load``,
the float32 mantissas of each row as integers, s_i = m_iᵀ Y a_i exactly on 21-bit
limbs with float64 BLAS), again in a subprocess; certify and check are shown against
it, in wall seconds and in CPU seconds of the subprocesses (the machine may be shared),
and issue 22's targets at 784-10 000-10 (certify ≤ 5 s, check ≤ 3 s) against the same
floor.  Then 784-16 384-10 (n/km = 2.09, past the point where random columns stop being
separable) and 64-2000-10 (n/km = 3.1): ``reluid certify --timeout 60`` (resp. 30)
``--memory-gb 2`` with its own check, its verdict, seconds and peak resident memory
against the time and the 2 GB it is given, and its reason.
The bytecode of the package is compiled first, as an installed package has it.
Then the two deep rows of the
README: ``reluid certify --timeout 30`` of a 64-32-32-16-10 MLP (functional dimension
and local identifiability) and of a 784-128-128-10 MLP (an honest ``unknown``), with
the verdict and the seconds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from reluid.certificates.schema import read_certificate
from reluid.report.reasons import certificate_reasons

ROOT = Path(__file__).resolve().parents[1]
#: issue 22's targets: 784-10000-10 from a file, certify and check (seconds); the wide network past n/km = 2
CERTIFY_TARGET_S, CHECK_TARGET_S = 5.0, 3.0
WIDE, WIDE_SMALL, WIDE_MEMORY_GB = (784, 16384, 10), (64, 2000, 10), 2.0
FLOOR = "import sys, reluid; reluid.load(sys.argv[1]).sha256()"


def mlp_npz(arch, path: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    arrays = {}
    for i, (a, b) in enumerate(zip(arch, arch[1:]), 1):
        arrays[f"W{i}"] = (rng.standard_normal((b, a)) * np.sqrt(2 / a)).astype(np.float32)
        arrays[f"b{i}"] = (rng.standard_normal(b) * 0.1).astype(np.float32)
    np.savez(path, **arrays)
    return path


SEPARATION_FLOOR = r"""
import json, sys
import numpy as np
net = np.load(sys.argv[1])
y = next(c["evidence"]["y"] for c in json.load(open(sys.argv[2]))["claims"] if c["id"] == "no-flip-set")
Y = np.array(y, dtype=np.int64)

def integers(X):                      # X = N * 2^e exactly, N int64 (e per row, or one for all)
    e = np.frexp(X)[1].min(axis=-1, keepdims=True) - 24
    N = np.ldexp(X.astype(np.float64), -e).astype(np.int64)
    assert (np.ldexp(N.astype(np.float64), e) == X).all() and np.abs(N).max() < 2**62
    return N

A, M = integers(net["W1"]), integers(net["W2"].reshape(1, -1)).reshape(net["W2"].shape)
w, top = 21, int(np.abs(A).max()).bit_length()
assert A.shape[1] << 2 * w <= 2**53 and np.abs(Y).max() < 2**w
count = -(-top // w)                  # limbs: the low ones in [0, 2^w), the top one signed
limbs = [(A >> (w * u)) & ((1 << w) - 1) for u in range(count - 1)] + [A >> (w * (count - 1))]
Z = sum((L.astype(np.float64) @ Y.T.astype(np.float64)).astype(np.int64).astype(object) << (w * u)
        for u, L in enumerate(limbs))
s = (Z * M.T.astype(object)).sum(axis=1)
assert all(v > 0 for v in s)
"""


def child(argv) -> tuple[float, int, str, float, float]:
    """(wall seconds, exit code, stdout, CPU seconds, peak resident MB) of one subprocess."""
    with tempfile.TemporaryFile("w+") as out:
        t = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    return elapsed, proc.returncode, text, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def wall(argv) -> tuple[float, int, str, float]:
    """(wall seconds, exit code, stdout, CPU seconds of the subprocess)."""
    return child(argv)[:4]


def reluid(*args) -> list[str]:
    return [sys.executable, "-m", "reluid", *args]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only 784-512-10 and 784-2048-10, no deep rows")
    ap.add_argument("--wide-timeout", type=float, default=60.0, metavar="S",
                    help="the --timeout of the 784-16384-10 row (default 60)")
    args = ap.parse_args(argv)
    widths = [512, 2048] if args.quick else [512, 2048, 4096, 10000]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "reluid")], env=env,
                   stdout=subprocess.DEVNULL, check=False)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        print("Shallow float32 784-n-10 from .npz, wall seconds (subprocesses, interpreter start included)")
        print(f"{'network':<14} {'floor':>7} {'certify':>8} {'check':>7} {'certify/floor':>14} {'check/floor':>12}  "
              "verdict")
        floors = {}
        for n in widths:
            net = mlp_npz((784, n, 10), tmp / f"mlp{n}.npz")
            cert = tmp / f"mlp{n}.cert.json"
            floor, _, _, floor_cpu = wall([sys.executable, "-c", FLOOR, str(net)])
            t_cert, rc, _, c_cert = wall(reluid("certify", str(net), "-o", str(cert), "--no-check", "--format", "json"))
            t_check, rc_check, _, c_check = wall(reluid("check", str(cert), "--network", str(net)))
            verdict = {0: "no-hidden-symmetries", 1: "hidden-symmetry", 3: "unknown"}.get(rc, f"exit {rc}")
            print(f"784-{n}-10{'':<{5 - len(str(n))}} {floor:>7.1f} {t_cert:>8.1f} {t_check:>7.1f} "
                  f"{t_cert / floor:>13.2f}x {t_check / floor:>11.2f}x  {verdict}, check exit {rc_check}",
                  flush=True)
            if n in (2048 if args.quick else (4096, 10000)) and rc == 0:
                sep, rc_sep, _, sep_cpu = wall([sys.executable, "-c", SEPARATION_FLOOR, str(net), str(cert)])
                if rc_sep == 0:
                    floors[n] = (sep, sep_cpu, t_cert, c_cert, t_check, c_check)
        if floors:
            print()
            print("Against the separation floor (np.load + exact s_i = m_iᵀ Y a_i on limbs), wall / CPU seconds")
            print(f"{'network':<14} {'floor':>11} {'certify':>11} {'check':>11} {'certify/floor':>15} "
                  f"{'check/floor':>15}")
            for n, (sep, sep_cpu, t_cert, c_cert, t_check, c_check) in floors.items():
                ratios = [f"{t / sep:.1f}x/{c / sep_cpu:.1f}x" for t, c in ((t_cert, c_cert), (t_check, c_check))]
                print(f"784-{n}-10{'':<{5 - len(str(n))}} {sep:>5.2f}/{sep_cpu:<5.2f} {t_cert:>5.2f}/{c_cert:<5.2f} "
                      f"{t_check:>5.2f}/{c_check:<5.2f} {ratios[0]:>15} {ratios[1]:>15}", flush=True)
        if 10000 in floors:
            sep, sep_cpu, t_cert, c_cert, t_check, c_check = floors[10000]
            print()
            print("Targets at 784-10000-10 (issue 22, item 2), seconds of this run, wall / CPU, and against the "
                  "separation floor")
            for what, target, t, c in (("certify", CERTIFY_TARGET_S, t_cert, c_cert),
                                       ("check", CHECK_TARGET_S, t_check, c_check)):
                print(f"  {what:<8} ≤ {target:g} s: {t:5.2f} / {c:5.2f} s  ({t / sep:.1f}x / {c / sep_cpu:.1f}x the "
                      f"floor's {sep:.2f} / {sep_cpu:.2f} s)  {'met' if min(t, c) <= target else 'NOT met'}"
                      f"{' (by CPU; the machine is shared)' if c <= target < t else ''}", flush=True)
        if not args.quick:
            print()
            print(f"Past n/km = 2 (issue 22, item 1): reluid certify --timeout S --memory-gb {WIDE_MEMORY_GB:g}, its "
                  "check included; the answer is due within S seconds and the memory cap")
            for arch, seconds in ((WIDE, args.wide_timeout), (WIDE_SMALL, 30.0)):
                net = mlp_npz(arch, tmp / "wide.npz")
                cert = tmp / "wide.cert.json"
                floor, _, _, floor_cpu = wall([sys.executable, "-c", FLOOR, str(net)])
                t, rc, _, c, rss = child(reluid("certify", str(net), "-o", str(cert), "--timeout", f"{seconds:g}",
                                                "--memory-gb", str(WIDE_MEMORY_GB), "--format", "json"))
                verdict = {0: "no-hidden-symmetries", 1: "hidden-symmetry", 3: "unknown"}.get(rc, f"exit {rc}")
                reason = "; ".join(certificate_reasons(read_certificate(cert))) if cert.exists() else "(no certificate)"
                cap = WIDE_MEMORY_GB * 1024
                print(f"  {'-'.join(map(str, arch))}, --timeout {seconds:g}: {verdict} in {t:.1f} s wall / {c:.1f} s "
                      f"CPU ({'met' if t <= seconds else 'NOT met'}), peak RSS {rss:.0f} MB "
                      f"({'met' if rss <= cap else 'NOT met'}); reading and hashing alone {floor:.1f} / "
                      f"{floor_cpu:.1f} s", flush=True)
                print(f"    reason: {reason}", flush=True)
        if not args.quick:
            print()
            print("Deep, reluid certify --timeout 30 (mechanisms, functional dimension, certificate, its check)")
            for arch in [(64, 32, 32, 16, 10), (784, 128, 128, 10)]:
                net = mlp_npz(arch, tmp / "deep.npz")
                t = time.perf_counter()
                proc = subprocess.run(reluid("certify", str(net), "--timeout", "30", "--format", "text"), cwd=ROOT,
                                      capture_output=True, text=True)
                t = time.perf_counter() - t
                lines = proc.stdout.splitlines()
                verdict = next((ln.removeprefix("Verdict: ").lower() for ln in lines if ln.startswith("Verdict: ")),
                               None)
                if verdict is None:         # no report: an internal error or a refusal, said on stderr
                    verdict = f"no report, exit {proc.returncode}: " + (proc.stderr.strip().splitlines() or [""])[-1]
                said = next((ln for ln in lines if ln.startswith("Locally identifiable:")), "")
                local = ("locally identifiable" if said.startswith(("Locally identifiable: yes",
                                                                     "Locally identifiable: claimed"))
                         else said.removeprefix("Locally identifiable: ").split(":")[0])
                checked = next((ln.split(":", 1)[1].strip().split(" (")[0] for ln in lines
                                if ln.startswith(("Re-verified by", "Re-verification:"))), "")
                print(f"{'-'.join(map(str, arch))}: {', '.join(x for x in (verdict, local, checked) if x)}, "
                      f"{t:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
