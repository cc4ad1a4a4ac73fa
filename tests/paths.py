"""Where the repository's folders are, for tests at any depth."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "networks"
REPORTS = ROOT / "reports"
