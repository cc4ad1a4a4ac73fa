"""End to end from a file: ``reluid certify`` and ``reluid check`` as a user runs them, against reading the file.

Usage::

    python benchmarks/bench_end_to_end.py [--quick]

For float32 He-initialised MLPs written to ``.npz`` (784-n-10 for n = 512, 2048, 4096,
10 000; ``--quick``: 512 and 2048), it runs the command line in a subprocess and
measures wall-clock seconds: ``reluid certify NET -o CERT --no-check``, ``reluid check
CERT --network NET`` and, as the baseline in the same run, the floor every command
pays: reading the file exactly and hashing it (``reluid.load`` + ``Network.sha256``,
in a subprocess as well, interpreter start included).  Then the two deep rows of the
README: ``reluid certify --timeout 30`` of a 64-32-32-16-10 MLP (functional dimension
and local identifiability) and of a 784-128-128-10 MLP (an honest ``unknown``), with
the verdict and the seconds.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FLOOR = "import sys, reluid; reluid.load(sys.argv[1]).sha256()"


def mlp_npz(arch, path: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    arrays = {}
    for i, (a, b) in enumerate(zip(arch, arch[1:]), 1):
        arrays[f"W{i}"] = (rng.standard_normal((b, a)) * np.sqrt(2 / a)).astype(np.float32)
        arrays[f"b{i}"] = (rng.standard_normal(b) * 0.1).astype(np.float32)
    np.savez(path, **arrays)
    return path


def wall(argv) -> tuple[float, int, str]:
    t = time.perf_counter()
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    return time.perf_counter() - t, run.returncode, run.stdout


def reluid(*args) -> list[str]:
    return [sys.executable, "-m", "reluid", *args]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only 784-512-10 and 784-2048-10, no deep rows")
    args = ap.parse_args(argv)
    widths = [512, 2048] if args.quick else [512, 2048, 4096, 10000]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        print("Shallow float32 784-n-10 from .npz, wall seconds (subprocesses, interpreter start included)")
        print(f"{'network':<14} {'floor':>7} {'certify':>8} {'check':>7} {'certify/floor':>14} {'check/floor':>12}  "
              "verdict")
        for n in widths:
            net = mlp_npz((784, n, 10), tmp / f"mlp{n}.npz")
            cert = tmp / f"mlp{n}.cert.json"
            floor, _, _ = wall([sys.executable, "-c", FLOOR, str(net)])
            t_cert, rc, _ = wall(reluid("certify", str(net), "-o", str(cert), "--no-check", "--format", "json"))
            t_check, rc_check, _ = wall(reluid("check", str(cert), "--network", str(net)))
            verdict = {0: "no-hidden-symmetries", 1: "hidden-symmetry", 3: "unknown"}.get(rc, f"exit {rc}")
            print(f"784-{n}-10{'':<{5 - len(str(n))}} {floor:>7.1f} {t_cert:>8.1f} {t_check:>7.1f} "
                  f"{t_cert / floor:>13.2f}x {t_check / floor:>11.2f}x  {verdict}, check exit {rc_check}",
                  flush=True)
        if not args.quick:
            print()
            print("Deep, reluid certify --timeout 30 (mechanisms, functional dimension, certificate, its check)")
            for arch in [(64, 32, 32, 16, 10), (784, 128, 128, 10)]:
                net = mlp_npz(arch, tmp / "deep.npz")
                t, rc, out = wall(reluid("certify", str(net), "--timeout", "30", "--format", "text"))
                verdict = {0: "no-hidden-symmetries", 1: "hidden-symmetry", 3: "unknown"}.get(rc, f"exit {rc}")
                local = "locally identifiable" if "Locally identifiable: yes" in out else "not locally identifiable"
                print(f"{'-'.join(map(str, arch))}: {verdict}, {local}, {t:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
