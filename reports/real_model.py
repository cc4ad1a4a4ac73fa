"""The HTML page of a real-sized model, and its screenshot (reports/audit-real-model.png).

A float32 64-512-10 MLP (38 410 parameters, the size of a digits classifier)
is trained here with NumPy alone (seeded, full-batch gradient descent on a
synthetic ten-class problem in 64 dimensions), saved as ``.npz`` and audited;
Chromium then renders its page.  The page shows what a reader of a real
model sees: truncated weight tables with decimals first, the exact value on
hover, and the proof.

    python reports/real_model.py [OUT_DIR]       # default: a temporary folder; needs chromium for the PNG
"""

from __future__ import annotations

import os
import sys
import tempfile

import numpy as np


def train(seed: int = 0, steps: int = 150) -> dict:
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 1, (10, 64)).astype(np.float32)
    y = rng.integers(0, 10, 2000)
    X = np.clip(centres[y] + 0.6 * rng.standard_normal((2000, 64)).astype(np.float32), 0, 1)
    W1 = (rng.standard_normal((512, 64)) * np.sqrt(2 / 64)).astype(np.float32)
    b1 = np.zeros(512, np.float32)
    W2 = (rng.standard_normal((10, 512)) * np.sqrt(1 / 512)).astype(np.float32)
    b2 = np.zeros(10, np.float32)
    onehot = np.eye(10, dtype=np.float32)[y]
    lr = np.float32(0.5)
    for _ in range(steps):
        h = np.maximum(X @ W1.T + b1, 0)
        z = h @ W2.T + b2
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) / len(X)
        gh = (g @ W2) * (h > 0)
        W2 -= lr * g.T @ h
        b2 -= lr * g.sum(0)
        W1 -= lr * gh.T @ X
        b1 -= lr * gh.sum(0)
    accuracy = float((np.argmax(np.maximum(X @ W1.T + b1, 0) @ W2.T + b2, 1) == y).mean())
    return {"W1": W1, "b1": b1, "W2": W2, "b2": b2}, accuracy


def main(argv) -> int:
    from reluid.cli.main import main as reluid
    from reluid.report.browser import find_chromium, screenshot

    png = os.path.join(os.path.dirname(os.path.abspath(__file__)), "audit-real-model.png")
    out = argv[0] if argv else tempfile.mkdtemp(prefix="reluid-real-model-")
    os.makedirs(os.path.join(out, "models"), exist_ok=True)
    os.chdir(out)                                   # the page names the file as the audit was given it
    weights, accuracy = train()
    path = os.path.join("models", "mlp_64_512_10.npz")
    np.savez(path, **weights)
    print(f"trained 64-512-10 (float32), training accuracy {accuracy:.3f}: {os.path.join(out, path)}")
    code = reluid(["audit", "models", "--html", "html", "--timeout", "120"])
    page = os.path.join("html", "mlp_64_512_10_npz.html")
    if find_chromium() is None:
        print("no chromium: screenshot not taken", file=sys.stderr)
        return code
    screenshot(page, png, 1280, 2200)
    print(f"wrote {png}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
