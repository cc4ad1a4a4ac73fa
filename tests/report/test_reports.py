"""The committed reports under reports/ are current (regenerate with reports/regenerate.sh)."""

import os
import re


from reluid.cli.main import main
from tests.paths import ROOT

ROOT = str(ROOT)


def _normalise(text: str) -> str:
    # producer versions are informational and differ between installs
    text = re.sub(r'("(?:reluid|python-flint|version)": )"[^"]*"', r'\1"*"', text)
    text = re.sub(r'("phase_ms": )\{[^}]*\}', r"\1*", text)          # milliseconds per phase vary by run
    return re.sub(r"z3 \d+(\.\d+)*", "z3 *", text)


def test_example_reports_are_current(tmp_path, update_golden, monkeypatch):
    import io
    monkeypatch.chdir(ROOT)
    out = os.path.join("reports", "examples") if update_golden else str(tmp_path / "examples")
    main(["audit", os.path.join("examples", "networks"), "--markdown", os.path.join(out, "summary.md"),
          "--link-base", ".", "--reports", out, "--certificates", os.path.join(out, "certificates"), "--html", os.path.join(out, "html")],
         io.StringIO(), io.StringIO())
    if update_golden:
        return
    committed = os.path.join(ROOT, "reports", "examples")
    for sub in ("", "certificates", "html"):
        a, b = os.path.join(committed, sub), os.path.join(out, sub)
        names = sorted(f for f in os.listdir(b) if os.path.isfile(os.path.join(b, f)))
        assert names == sorted(f for f in os.listdir(a) if os.path.isfile(os.path.join(a, f))), \
            "reports/examples lists different files: run reports/regenerate.sh"
        for f in names:
            with open(os.path.join(a, f), encoding="utf-8") as fa, open(os.path.join(b, f), encoding="utf-8") as fb:
                assert _normalise(fa.read()) == _normalise(fb.read()), f"reports/examples/{sub}/{f} is stale"
