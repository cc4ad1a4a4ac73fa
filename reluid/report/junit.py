"""Audit summaries for CI: JUnit XML and a Markdown table, linking each network's report and certificate."""

from __future__ import annotations

import os
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
    """One audited network: its path, outcome, a one-line message and the files written for it.

    ``certificate``, ``report`` (Markdown) and ``page`` (HTML) are paths as
    written; the renderers link them relative to the file they write.
    ``check`` is the checker's status of the certificate (re-verified /
    rejected), ``short`` the message without the long part of a reason,
    ``details`` the short message without the verdict (for tables that show
    the verdict in a column of its own).
    """

    path: str
    outcome: str                 # a key of STATUS
    message: str
    seconds: float = 0.0
    architecture: tuple[int, ...] = ()
    certificate: str | None = None
    check: str = ""
    short: str | None = None
    details: str | None = None
    report: str | None = None
    page: str | None = None
    n_params: int | None = None

    @property
    def exit_code(self) -> int:
        return STATUS[self.outcome][1]

    def files(self, base: str | None) -> list[tuple[str, str]]:
        """(label, link) pairs for the files of this network, relative to the folder ``base``."""
        out = []
        for label, p in (("report", self.report), ("HTML report", self.page), ("certificate", self.certificate)):
            if p:
                out.append((label, _rel(p, base)))
        return out


def _rel(path: str, base: str | None) -> str:
    if base is None:
        return os.fspath(path).replace(os.sep, "/")
    return os.path.relpath(os.fspath(path), os.fspath(base) or ".").replace(os.sep, "/")


def generate_junit(entries, suite: str = "reluid audit", base: str | None = None) -> str:
    """JUnit XML: one test case per network; failure = hidden symmetry, error = invalid, skipped = unknown.

    The files of each network (report, HTML page, certificate) are linked
    relative to ``base`` (the folder of the XML file): as ``<property>``
    elements and as lines of ``<system-out>``.
    """
    ts = ET.Element("testsuite", name=suite, tests=str(len(entries)),
                    failures=str(sum(e.outcome == "hidden-symmetry" for e in entries)),
                    errors=str(sum(e.outcome == "invalid-input" for e in entries)),
                    skipped=str(sum(e.outcome == "unknown" for e in entries)),
                    time=f"{sum(e.seconds for e in entries):.3f}")
    for e in entries:
        tc = ET.SubElement(ts, "testcase", classname="reluid.certify", name=e.path, time=f"{e.seconds:.3f}")
        files = e.files(base)
        if files:
            props = ET.SubElement(tc, "properties")
            for label, link in files:
                ET.SubElement(props, "property", name=label.replace(" ", "-").lower(), value=link)
        tag = STATUS[e.outcome][0]
        lines = [e.message] + [f"{label}: {link}" for label, link in files]
        if tag:
            ET.SubElement(tc, tag, message=e.short or e.message, type=e.outcome).text = "\n".join(lines)
        else:
            ET.SubElement(tc, "system-out").text = "\n".join(lines)
    ET.indent(ts)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(ts, encoding="unicode") + "\n"


def generate_summary_markdown(entries, base: str | None = None) -> str:
    """A Markdown table suitable for a CI job summary; networks link their reports relative to ``base``."""
    icon = {"no-hidden-symmetries": "✅", "hidden-symmetry": "❌", "unknown": "❔", "invalid-input": "⚠️"}
    lines = ["## reluid audit", "",
             f"{len(entries)} network(s): "
             + ", ".join(f"{sum(e.outcome == k for e in entries)} {k}" for k in STATUS), "",
             "| network | architecture | verdict | details | files |", "| --- | --- | --- | --- | --- |"]
    for e in entries:
        arch = "-".join(map(str, e.architecture)) if e.architecture else ""
        msg = (e.details or e.short or e.message).replace("|", "\\|")
        files = e.files(base)
        name = f"[`{e.path}`]({files[0][1]})" if files and files[0][0] != "certificate" else f"`{e.path}`"
        links = ", ".join(f"[{label}]({link})" for label, link in files)
        lines.append(f"| {name} | {arch} | {icon[e.outcome]} {e.outcome} | {msg} | {links} |")
    return "\n".join(lines) + "\n"
