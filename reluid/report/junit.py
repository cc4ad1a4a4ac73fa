"""Audit summaries for CI: JUnit XML and a Markdown table."""

from __future__ import annotations

from dataclasses import dataclass
from xml.etree import ElementTree as ET

__all__ = ["AuditEntry", "generate_junit", "generate_summary_markdown", "STATUS"]

# verdict/outcome -> (JUnit element, exit code)
STATUS = {
    "no-hidden-symmetries": (None, 0),
    "hidden-symmetry": ("failure", 1),
    "unknown": ("skipped", 3),
    "invalid-input": ("error", 4),
}


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One audited network: its path, outcome and a one-line message."""

    path: str
    outcome: str                 # a key of STATUS
    message: str
    seconds: float = 0.0
    architecture: tuple[int, ...] = ()
    certificate: str | None = None

    @property
    def exit_code(self) -> int:
        return STATUS[self.outcome][1]


def generate_junit(entries, suite: str = "reluid audit") -> str:
    """JUnit XML: one test case per network; failure = hidden symmetry, error = invalid, skipped = unknown."""
    ts = ET.Element("testsuite", name=suite, tests=str(len(entries)),
                    failures=str(sum(e.outcome == "hidden-symmetry" for e in entries)),
                    errors=str(sum(e.outcome == "invalid-input" for e in entries)),
                    skipped=str(sum(e.outcome == "unknown" for e in entries)),
                    time=f"{sum(e.seconds for e in entries):.3f}")
    for e in entries:
        tc = ET.SubElement(ts, "testcase", classname="reluid.certify", name=e.path, time=f"{e.seconds:.3f}")
        tag = STATUS[e.outcome][0]
        if tag:
            ET.SubElement(tc, tag, message=e.message, type=e.outcome).text = e.message
        else:
            ET.SubElement(tc, "system-out").text = e.message
    ET.indent(ts)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(ts, encoding="unicode") + "\n"


def generate_summary_markdown(entries) -> str:
    """A Markdown table suitable for a CI job summary."""
    icon = {"no-hidden-symmetries": "✅", "hidden-symmetry": "❌", "unknown": "❔", "invalid-input": "⚠️"}
    lines = ["## reluid audit", "",
             f"{len(entries)} network(s): "
             + ", ".join(f"{sum(e.outcome == k for e in entries)} {k}" for k in STATUS), "",
             "| network | architecture | verdict | details |", "| --- | --- | --- | --- |"]
    for e in entries:
        arch = "-".join(map(str, e.architecture)) if e.architecture else ""
        msg = e.message.replace("|", "\\|")
        lines.append(f"| `{e.path}` | {arch} | {icon[e.outcome]} {e.outcome} | {msg} |")
    return "\n".join(lines) + "\n"
