"""Everything a person reads: the only package that renders.

* :mod:`.certificate` -- proof-like reports of a certificate (text, Markdown, HTML, JSON);
* :mod:`.check` -- the checker's report;
* :mod:`.junit` -- audit summaries for CI (JUnit XML, a Markdown table);
* :mod:`.conditions` -- the paper's Zariski-open conditions and their evaluation;
* :mod:`.shallow` -- stabilizers and functional equivalence;
* :mod:`.fundim` -- functional-dimension results (``reluid.fundim/1`` JSON);
* :mod:`.survey` -- the Figure 6 survey (JSON, Markdown, plots);
* :mod:`.proofs` -- ``reluid prove`` reports.

Renderers take frozen results and return strings (``generate_*``) or write
files (``write_*``); nothing here imports an analysis.
"""

from reluid.report.certificate import (RENDERERS, generate_html, generate_markdown, generate_report, generate_text,
                                       write_report)
from reluid.report.junit import AuditEntry, generate_junit, generate_summary_markdown

__all__ = ["generate_text", "generate_markdown", "generate_html", "generate_report", "write_report", "RENDERERS",
           "AuditEntry", "generate_junit", "generate_summary_markdown"]
