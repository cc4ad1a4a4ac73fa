"""Rendering of a checker report (``reluid check``)."""

from __future__ import annotations

__all__ = ["generate_check_text"]


def generate_check_text(report, assumption: str | None = None) -> str:
    """The lines ``reluid check`` prints for a :class:`~reluid.checker.check.CheckReport`.

    ``assumption`` is the certificate's record of what its input did not state
    (shown, since the checker cannot check it).
    """
    lines = [f"{'VALID' if report.valid else 'REJECTED'}: verdict {report.verdict.value}"]
    if report.valid:
        lines.append(f"  rule: {report.rule}")
    else:
        lines.append(f"  reason: {report.reason}")
    for c in report.claims:
        lines.append(f"  [{c.status}] {c.id} ({c.kind}): {c.message}")
    if assumption:
        lines.append(f"  assumption (recorded, not checkable): {assumption}")
    return "\n".join(lines)
