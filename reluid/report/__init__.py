"""Human and CI renderings of certificates: text, Markdown, HTML, JSON, JUnit XML."""

from reluid.report.render import generate_html, generate_json, generate_markdown, generate_text, write_report
from reluid.report.junit import AuditEntry, generate_junit, generate_summary_markdown

__all__ = ["generate_text", "generate_markdown", "generate_html", "generate_json", "write_report",
           "AuditEntry", "generate_junit", "generate_summary_markdown"]
