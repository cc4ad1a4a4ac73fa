"""Audit summaries for CI: the fail policy, JUnit XML and a Markdown summary.

One :class:`FailPolicy` decides, for every outcome, whether it fails the
job; the exit code (:meth:`FailPolicy.exit_code`), the JUnit test cases
(:func:`generate_junit`) and the Markdown headline
(:func:`generate_summary_markdown`) all read it, so they tell the same story:

=====================  ==========================  =========================
outcome                ``--fail-on`` names it      does not name it
=====================  ==========================  =========================
no hidden symmetries   (never fails)               passed
hidden symmetry        ``<failure>``               passed, message in output
unknown                ``<failure>``               ``<skipped>``
invalid input          ``<error>``                 ``<skipped>``
=====================  ==========================  =========================

The exit code is that of the worst failing outcome (invalid input 4 > hidden
symmetry 1 > unknown 3), and 0 when none fails: a job passes exactly when its
JUnit report has no failure and no error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from xml.etree import ElementTree as ET

from reluid.verdicts import AuditOutcome, CheckState, ExitCode, FailOn

__all__ = ["AuditEntry", "FailPolicy", "generate_junit", "generate_summary_markdown", "headline", "STATUS",
           "OUTCOME_WORDS"]

#: outcome -> (JUnit element, exit code) when the outcome fails the job (every outcome but no-hidden)
STATUS = {
    AuditOutcome.NO_HIDDEN.value: (None, 0),
    AuditOutcome.HIDDEN.value: ("failure", 1),
    AuditOutcome.UNKNOWN.value: ("failure", 3),
    AuditOutcome.INVALID_INPUT.value: ("error", 4),
}

#: how headlines count each outcome
OUTCOME_WORDS = {AuditOutcome.NO_HIDDEN: "with no hidden symmetries", AuditOutcome.HIDDEN: "with a hidden symmetry",
                 AuditOutcome.UNKNOWN: "unknown", AuditOutcome.INVALID_INPUT: "invalid input"}
_POLICY_WORDS = {FailOn.HIDDEN: "hidden symmetry", FailOn.UNKNOWN: "unknown", FailOn.INVALID: "invalid input"}
#: the words of ``--fail-on`` beyond the outcome names: every outcome, and none (a CLI word, not a search outcome)
ALL, NOTHING = "all", "none"


@dataclass(frozen=True, slots=True)
class FailPolicy:
    """Which outcomes fail a CI job (``reluid audit --fail-on``).

    >>> p = FailPolicy.parse(["hidden,invalid"])
    >>> p.fails("unknown"), p.fails("invalid-input"), p.exit_code(["unknown", "hidden-symmetry"])
    (False, True, 1)
    >>> FailPolicy.parse(["all"]).exit_code(["unknown"]), FailPolicy.parse(["none"]).exit_code(["invalid-input"])
    (3, 0)
    """

    fail_on: frozenset = frozenset({FailOn.HIDDEN, FailOn.INVALID})

    NAMES = tuple(FailOn)
    #: the default: a hidden symmetry and an unreadable file fail; unknown is reported (skipped), since
    #: most networks with two or more hidden layers are unknown (proved only under Theorem 8.2)
    DEFAULT = ",".join((FailOn.HIDDEN, FailOn.INVALID))

    @classmethod
    def parse(cls, values) -> "FailPolicy":
        """From ``--fail-on`` values: comma lists of hidden / unknown / invalid, or ``all`` / ``none``.

        Raises ``ValueError`` naming a word outside that list.
        """
        words = [w.strip() for v in (values or [cls.DEFAULT]) for w in str(v).split(",") if w.strip()]
        out = set()
        for w in words:
            if w == ALL:
                out |= set(cls.NAMES)
            elif w == NOTHING:
                continue
            elif w in cls.NAMES:
                out.add(FailOn(w))
            else:
                raise ValueError(f"--fail-on: {w!r} is not one of {', '.join(cls.NAMES)}, {ALL}, {NOTHING}")
        if NOTHING in words and out:
            raise ValueError("--fail-on: none cannot be combined with " + ", ".join(sorted(out)))
        return cls(frozenset(out))

    @classmethod
    def strict(cls) -> "FailPolicy":
        """Every outcome but no hidden symmetries fails (``reluid certify``'s exit codes)."""
        return cls(frozenset(cls.NAMES))

    def fails(self, outcome) -> bool:
        return AuditOutcome(outcome).policy_name in self.fail_on

    def junit_element(self, outcome) -> str | None:
        """failure / error / skipped, or None for a passed test case."""
        o = AuditOutcome(outcome)
        if self.fails(o):
            return STATUS[o.value][0]
        return "skipped" if o in (AuditOutcome.UNKNOWN, AuditOutcome.INVALID_INPUT) else None

    def exit_code(self, outcomes) -> ExitCode:
        failing = [AuditOutcome(o) for o in outcomes if self.fails(o)]
        return max(failing, key=lambda o: o.severity).exit_code if failing else ExitCode.OK

    def describe(self) -> str:
        """``hidden symmetry, invalid input`` (in the order of NAMES), or ``nothing``."""
        return ", ".join(_POLICY_WORDS[n] for n in self.NAMES if n in self.fail_on) or "nothing"

    @property
    def flag(self) -> str:
        return "--fail-on " + (",".join(n for n in self.NAMES if n in self.fail_on) or NOTHING)


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
    outcome: AuditOutcome        # or its value
    message: str
    seconds: float = 0.0
    architecture: tuple[int, ...] = ()
    certificate: str | None = None
    check: CheckState = CheckState.NO_CERTIFICATE
    short: str | None = None
    details: str | None = None
    report: str | None = None
    page: str | None = None
    n_params: int | None = None

    @property
    def exit_code(self) -> ExitCode:
        return AuditOutcome(self.outcome).exit_code

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


def headline(outcomes) -> str:
    """``4 networks: 2 with no hidden symmetries, 1 unknown, 1 invalid input`` (nonzero counts only)."""
    outcomes = [AuditOutcome(o) for o in outcomes]
    n = len(outcomes)
    counts = ", ".join(f"{sum(o is k for o in outcomes)} {w}" for k, w in OUTCOME_WORDS.items() if k in outcomes)
    return f"{n} network{'s' if n != 1 else ''}" + (f": {counts}" if counts else "")


def verdict_line(outcomes, policy: FailPolicy) -> str:
    """``fails on hidden symmetry, invalid input: FAILED (exit 1)``."""
    code = policy.exit_code(outcomes)
    return f"fails on {policy.describe()}: {'FAILED' if code else 'passed'} (exit {code})"


def generate_junit(entries, suite: str = "reluid audit", base: str | None = None,
                   policy: FailPolicy | None = None) -> str:
    """JUnit XML: one test case per network, failure / error / skipped as ``policy`` says (module docstring).

    The files of each network (report, HTML page, certificate) are linked
    relative to ``base`` (the folder of the XML file): as ``<property>``
    elements and as lines of ``<system-out>``.  The suite's properties name
    the policy and the exit code it gives.
    """
    policy = policy or FailPolicy()
    tags = [policy.junit_element(e.outcome) for e in entries]
    ts = ET.Element("testsuite", name=suite, tests=str(len(entries)), failures=str(tags.count("failure")),
                    errors=str(tags.count("error")), skipped=str(tags.count("skipped")),
                    time=f"{sum(e.seconds for e in entries):.3f}")
    props = ET.SubElement(ts, "properties")
    ET.SubElement(props, "property", name="fail-on", value=",".join(n for n in policy.NAMES if n in policy.fail_on)
                  or NOTHING)
    ET.SubElement(props, "property", name="exit-code", value=str(policy.exit_code(e.outcome for e in entries)))
    for e, tag in zip(entries, tags):
        tc = ET.SubElement(ts, "testcase", classname="reluid.certify", name=e.path, time=f"{e.seconds:.3f}")
        files = e.files(base)
        p = ET.SubElement(tc, "properties")
        ET.SubElement(p, "property", name="outcome", value=AuditOutcome(e.outcome).value)
        for label, link in files:
            ET.SubElement(p, "property", name=label.replace(" ", "-").lower(), value=link)
        lines = [e.message] + [f"{label}: {link}" for label, link in files]
        if tag == "skipped":
            why = f"not a failure under {policy.flag}: {e.short or e.message}"
            ET.SubElement(tc, tag, message=why)
            ET.SubElement(tc, "system-out").text = "\n".join(lines)
        elif tag:
            ET.SubElement(tc, tag, message=e.short or e.message, type=AuditOutcome(e.outcome).value).text = \
                "\n".join(lines)
        else:
            ET.SubElement(tc, "system-out").text = "\n".join(lines)
    ET.indent(ts)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(ts, encoding="unicode") + "\n"


ICONS = {AuditOutcome.NO_HIDDEN: "✅", AuditOutcome.HIDDEN: "❌", AuditOutcome.UNKNOWN: "❔",
         AuditOutcome.INVALID_INPUT: "⚠️"}


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def generate_summary_markdown(entries, base: str | None = None, policy: FailPolicy | None = None,
                              link_base: str | None = None, notes=()) -> str:
    """A Markdown summary for a CI job summary (``$GITHUB_STEP_SUMMARY``).

    The headline counts every outcome and says whether the job fails under
    ``policy``.  Files are linked only when ``link_base`` is given: a job
    summary is shown away from the files, where a relative link is dead, so
    by default they are named (as paths relative to ``base``, the summary's
    folder) without a link.  ``link_base`` is a URL (or ``.`` for links
    relative to the summary) that the paths are appended to.  ``notes`` are
    extra lines (Markdown) shown under the headline.
    """
    policy = policy or FailPolicy()
    outcomes = [e.outcome for e in entries]
    lines = ["## reluid audit", "", f"**{headline(outcomes)}**; {verdict_line(outcomes, policy)}.", ""]
    unknown_ok = any(AuditOutcome(o) is AuditOutcome.UNKNOWN for o in outcomes) and not policy.fails(AuditOutcome.UNKNOWN)
    if unknown_ok:
        lines += ["`unknown` does not fail this job (pass `--fail-on hidden,unknown,invalid` to make it).", ""]
    lines += [f"- {n}" for n in notes] + ([""] if notes else [])

    def ref(label, link):
        if link_base is None:
            return f"`{link}`"
        return f"[{label}]({link_base.rstrip('/')}/{link})"
    lines += ["| network | architecture | verdict | details | files |", "| --- | --- | --- | --- | --- |"]
    for e in entries:
        arch = "-".join(map(str, e.architecture)) if e.architecture else ""
        o = AuditOutcome(e.outcome)
        msg = _md(e.details or e.short or e.message)
        files = e.files(base)
        if link_base is not None and files and files[0][0] != "certificate":
            name = f"[`{_md(e.path)}`]({link_base.rstrip('/')}/{files[0][1]})"
        else:
            name = f"`{_md(e.path)}`"
        links = ", ".join(ref(label, link) for label, link in files)
        mark = "" if policy.fails(o) or o is AuditOutcome.NO_HIDDEN else " (not a failure)"
        lines.append(f"| {name} | {arch} | {ICONS[o]} {o.value}{mark} | {msg} | {links} |")
    return "\n".join(lines) + "\n"
