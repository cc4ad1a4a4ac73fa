"""Looking at the HTML reports in a real browser: headless Chromium, when one is installed.

Used by the tests (the page's DOM after its script ran, the console
messages, a screenshot) and by ``reports/regenerate.sh`` (the committed
screenshots).  Nothing here is needed to write a report; without a browser
:func:`find_chromium` returns None and callers skip.  The browser runs with
a fresh profile, no sandbox (CI containers run as root), no GPU and every
background service off, on ``file://`` URLs only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["find_chromium", "dump_dom", "screenshot", "console_messages", "FLAGS"]

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--hide-scrollbars", "--enable-logging=stderr", "--v=0")


def find_chromium() -> str | None:
    """The Chromium (or Chrome) binary: ``$RELUID_CHROMIUM``, else the first of :data:`NAMES` on PATH."""
    env = os.environ.get("RELUID_CHROMIUM")
    if env:
        return env if os.path.isfile(env) and os.access(env, os.X_OK) else None
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _url(path, fragment: str = "") -> str:
    return Path(path).resolve().as_uri() + (f"#{fragment}" if fragment else "")


def _run(args, timeout: float) -> subprocess.CompletedProcess:
    binary = find_chromium()
    if binary is None:
        raise FileNotFoundError("no chromium binary found")
    with tempfile.TemporaryDirectory(prefix="reluid-chromium-") as profile:
        return subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                              text=True, timeout=timeout)


def console_messages(stderr: str) -> list[str]:
    """The page's console messages (errors, CSP violations, logs) from Chromium's stderr log."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def dump_dom(path, fragment: str = "", timeout: float = 90) -> tuple[str, list[str]]:
    """(the DOM after the page's scripts ran, its console messages)."""
    r = _run(["--dump-dom", _url(path, fragment)], timeout)
    return r.stdout, console_messages(r.stderr)


def screenshot(path, png, width: int = 1280, height: int = 1000, timeout: float = 90) -> list[str]:
    """Write a PNG of the page at the given window size; returns the console messages."""
    png = Path(png).resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    r = _run([f"--screenshot={png}", f"--window-size={width},{height}", _url(path)], timeout)
    if not png.is_file():
        raise RuntimeError(f"chromium wrote no screenshot (exit {r.returncode}): {r.stderr[-500:]}")
    return console_messages(r.stderr)


def main(argv=None) -> int:
    """``python -m reluid.report.browser PAGE.html OUT.png [WIDTH HEIGHT]``: a screenshot (exit 2 without Chromium)."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) not in (2, 4):
        print("usage: python -m reluid.report.browser PAGE.html OUT.png [WIDTH HEIGHT]", file=sys.stderr)
        return 2
    if find_chromium() is None:
        print("no chromium binary found: screenshot not taken", file=sys.stderr)
        return 2
    size = (int(args[2]), int(args[3])) if len(args) == 4 else (1280, 1000)
    for msg in screenshot(args[0], args[1], *size):
        print(msg, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
