"""The papers' statements as executable checks: framework, discovery, runner and reports.

The statements live one per module in the repository's top-level ``proofs/``
folder (``proofs/ramakrishnan_lemma_4.py``, ...).  Each module defines
``STATEMENT``, a :class:`Statement`: the claim in words and symbols, where it
is in the paper, how it is checked and at which sizes, the expected outcome,
and a ``check(max_n, timeout) -> Outcome`` callable.

An :class:`Outcome` says exactly what was shown: ``holds`` (with the
evidence: exact identities, exhaustive enumerations, z3 ``unsat`` for bounded
sizes, agreement on seeded random exact instances), ``counterexample`` (with
the numbers, re-checked by reluid's exact code) or ``unknown`` (with a
reason; a solver ``unknown`` or a timeout is never turned into ``holds``).

:func:`run` runs a selection, :func:`generate_markdown` and
:func:`generate_json` render the reports deterministically (no timings), and
:func:`write_reports` writes ``proofs.md`` and ``proofs.json``.

Examples
--------
>>> names = [s.name for s in discover()]
>>> "ramakrishnan_lemma_4" in names and "grigsby_lemma_D15" in names
True
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import time
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from reluid.errors import InvalidArgument

__all__ = [
    "HOLDS", "COUNTEREXAMPLE", "UNKNOWN", "STATUSES",
    "Outcome", "Statement", "StatementRun", "ProofRun",
    "proofs_dir", "default_output_dir", "discover", "select", "run_statement", "run",
    "generate_markdown", "generate_json", "write_reports", "exit_code",
]

HOLDS, COUNTEREXAMPLE, UNKNOWN = "holds", "counterexample", "unknown"
STATUSES = (HOLDS, COUNTEREXAMPLE, UNKNOWN)

REPORT_FORMAT = "reluid.proofs/1"

PAPERS = {
    "Ramakrishnan 2026": ("P. Ramakrishnan, *A Complete Symmetry Classification of Shallow ReLU Networks*, "
                          "arXiv 2604.14037 (2026)", "../shared/seeds/001_37695e8e85e040ec.txt"),
    "Grigsby, Lindsey, Rolnick 2023": ("E. Grigsby, K. Lindsey, D. Rolnick, *Hidden Symmetries of ReLU "
                                       "Networks*, ICML 2023", "../shared/seeds/000_09e56a515bf6deed.txt"),
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one check established.

    Attributes
    ----------
    status : str
        ``"holds"``, ``"counterexample"`` or ``"unknown"``.
    proved : str
        Exactly what was shown (for example "unsat for n ≤ 3 (z3)", "sympy
        identity on both branches", "agreement on 400 seeded random exact
        instances").
    evidence : tuple of str
        Itemised sub-results, one line each (sizes and their answers).
    trust : tuple of str
        The kinds of evidence used: ``"exact"`` (rational arithmetic,
        exhaustive enumeration, sympy identities), ``"z3"`` (rests on the
        solver), ``"differential"`` (agreement with reluid's algorithms on
        random instances: evidence, not proof).
    counterexample : str
        The counterexample as numbers, with a short explanation.
    rechecked : bool
        Whether the counterexample was re-verified by reluid's exact code.
    reason : str
        Why the outcome is ``unknown``.
    findings : tuple of str
        Discrepancies with the paper text or the project notes found on the way.
    remarks : tuple of str
        Other notes for the reader.
    witnesses : tuple of (str, Mapping)
        The counterexample's networks as ``reluid.network/1`` objects (integers and
        ``"p/q"`` strings), by label; in the JSON report only.
    """

    status: str
    proved: str
    evidence: tuple[str, ...] = ()
    trust: tuple[str, ...] = ()
    counterexample: str = ""
    rechecked: bool = False
    reason: str = ""
    findings: tuple[str, ...] = ()
    remarks: tuple[str, ...] = ()
    witnesses: tuple[tuple[str, Mapping], ...] = ()

    def __post_init__(self):
        if self.status not in STATUSES:
            raise InvalidArgument(f"outcome status must be one of {STATUSES}, got {self.status!r}")
        for name in ("evidence", "trust", "findings", "remarks", "witnesses"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.status == COUNTEREXAMPLE and not self.counterexample:
            raise InvalidArgument("a counterexample outcome needs the counterexample")
        if self.status == UNKNOWN and not self.reason:
            raise InvalidArgument("an unknown outcome needs a reason")

    def to_dict(self) -> dict:
        return {"status": self.status, "proved": self.proved, "evidence": list(self.evidence),
                "trust": list(self.trust), "counterexample": self.counterexample or None,
                "rechecked": self.rechecked if self.status == COUNTEREXAMPLE else None,
                "reason": self.reason or None, "findings": list(self.findings), "remarks": list(self.remarks),
                "witnesses": {label: dict(net) for label, net in self.witnesses}}


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of a paper, made executable.

    Attributes
    ----------
    name : str
        The module name (``ramakrishnan_lemma_4``).
    title : str
        How the paper names it ("Lemma 4").
    paper : str
        A key of :data:`PAPERS` ("Ramakrishnan 2026").
    reference : str
        Section and position in the seed text.
    statement : str
        The claim in words and symbols.
    method : str
        How it is checked.
    sizes : str
        For which sizes, by default and with ``--max-n``.
    expected : str
        ``"holds"`` or ``"counterexample"``: what a correct run finds.
    check : callable
        ``check(max_n, timeout) -> Outcome``; ``max_n`` None means the default sizes.
    order : tuple of int
        Position in the paper, for the report's order.
    """

    name: str
    title: str
    paper: str
    reference: str
    statement: str
    method: str
    sizes: str
    expected: str
    check: Callable[[int | None, float], Outcome] = field(repr=False, compare=False)
    order: tuple[int, ...] = ()

    def __post_init__(self):
        if self.expected not in (HOLDS, COUNTEREXAMPLE):
            raise InvalidArgument(f"{self.name}: expected must be 'holds' or 'counterexample'")
        if self.paper not in PAPERS:
            raise InvalidArgument(f"{self.name}: unknown paper {self.paper!r}")


@dataclass(frozen=True, slots=True)
class StatementRun:
    """A statement with its outcome; ``seconds`` is for the terminal only, never for the reports."""

    statement: Statement
    outcome: Outcome
    seconds: float = field(default=0.0, compare=False)

    @property
    def matches(self) -> bool:
        return self.outcome.status == self.statement.expected


@dataclass(frozen=True, slots=True)
class ProofRun:
    """The result of :func:`run`."""

    runs: tuple[StatementRun, ...]
    max_n: int | None
    timeout: float
    complete: bool          # every discovered statement was run
    solver: str = ""

    @property
    def default(self) -> bool:
        """True for a complete run at the default sizes (the committed report)."""
        return self.complete and self.max_n is None


# ---------------------------------------------------------------------------
# discovery
# ---------------------------------------------------------------------------

def proofs_dir() -> Path:
    """The repository's ``proofs/`` folder (next to the ``reluid`` package)."""
    return Path(__file__).resolve().parents[1] / "proofs"


def default_output_dir() -> Path:
    """The repository's ``reports/`` folder."""
    return Path(__file__).resolve().parents[1] / "reports"


def _load_package(directory: Path):
    """Import ``directory`` as the package ``proofs`` (by file path)."""
    directory = directory.resolve()
    mod = sys.modules.get("proofs")
    if mod is not None:
        paths = [Path(p).resolve() for p in getattr(mod, "__path__", [])]
        if directory in paths:
            return mod
        for key in [k for k in sys.modules if k == "proofs" or k.startswith("proofs.")]:
            del sys.modules[key]
    init = directory / "__init__.py"
    if not init.is_file():
        raise InvalidArgument(f"no proofs package at {directory}")
    spec = importlib.util.spec_from_file_location("proofs", init, submodule_search_locations=[str(directory)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["proofs"] = mod
    spec.loader.exec_module(mod)
    return mod


def discover(directory: Path | None = None) -> tuple[Statement, ...]:
    """Every ``STATEMENT`` in ``proofs/*.py`` (files starting with ``_`` are helpers), in paper order."""
    directory = proofs_dir() if directory is None else Path(directory)
    _load_package(directory)
    out = []
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_"):
            continue
        mod = importlib.import_module(f"proofs.{path.stem}")
        st = getattr(mod, "STATEMENT", None)
        if not isinstance(st, Statement):
            raise InvalidArgument(f"{path} defines no STATEMENT")
        if st.name != path.stem:
            raise InvalidArgument(f"{path}: STATEMENT.name is {st.name!r}, expected {path.stem!r}")
        out.append(st)
    papers = list(PAPERS)
    out.sort(key=lambda s: (papers.index(s.paper), s.order, s.name))
    return tuple(out)


def select(statements: Sequence[Statement], patterns: Iterable[str]) -> tuple[Statement, ...]:
    """The statements whose name matches one of ``patterns`` (exact names or shell globs).

    Raises
    ------
    InvalidArgument
        If a pattern matches nothing.
    """
    patterns = list(patterns)
    if not patterns:
        return tuple(statements)
    chosen = []
    for p in patterns:
        hits = [s for s in statements if s.name == p or fnmatch(s.name, p)]
        if not hits:
            raise InvalidArgument(f"no statement named {p!r}; known: {', '.join(s.name for s in statements)}")
        chosen += [s for s in hits if s not in chosen]
    return tuple(s for s in statements if s in chosen)


# ---------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------

def run_statement(st: Statement, *, max_n: int | None = None, timeout: float = 120.0) -> StatementRun:
    """Run one statement; an exception becomes an ``unknown`` outcome naming it."""
    t0 = time.perf_counter()
    try:
        out = st.check(max_n, timeout)
        if not isinstance(out, Outcome):
            raise TypeError(f"check returned {type(out).__name__}, not Outcome")
    except Exception as e:  # a failing check must not hide the others
        out = Outcome(UNKNOWN, "the check raised an exception", reason=f"error: {type(e).__name__}: {e}")
    return StatementRun(st, out, time.perf_counter() - t0)


def run(names: Iterable[str] = (), *, max_n: int | None = None, timeout: float = 120.0,
        progress: Callable[[StatementRun], None] | None = None) -> ProofRun:
    """Discover and run the statements named (all when ``names`` is empty).

    Parameters
    ----------
    names : iterable of str
        Statement names or globs; empty for all.
    max_n : int or None
        Raise the size bound of every statement (None: default sizes).
    timeout : float
        Seconds per statement (z3 queries share it).
    progress : callable, optional
        Called with each :class:`StatementRun` as it finishes.
    """
    if max_n is not None and (not isinstance(max_n, int) or max_n < 1):
        raise InvalidArgument(f"--max-n must be a positive integer, got {max_n!r}")
    if not timeout or timeout <= 0:
        raise InvalidArgument(f"--timeout must be positive, got {timeout!r}")
    names = list(names)
    everything = discover()
    chosen = select(everything, names)
    runs = []
    for st in chosen:
        r = run_statement(st, max_n=max_n, timeout=timeout)
        runs.append(r)
        if progress:
            progress(r)
    from reluid.smt.solver import z3_version
    return ProofRun(tuple(runs), max_n, timeout, len(chosen) == len(everything), f"z3 {z3_version()}")


def exit_code(result: ProofRun) -> int:
    """0 when every outcome is the expected one, 1 on a surprise, 3 when some outcome is unknown."""
    if any(r.outcome.status != UNKNOWN and not r.matches for r in result.runs):
        return 1
    if any(r.outcome.status == UNKNOWN for r in result.runs):
        return 3
    return 0


# ---------------------------------------------------------------------------
# reports
# ---------------------------------------------------------------------------

def _sizes_line(result: ProofRun) -> str:
    return "default sizes" if result.max_n is None else f"sizes raised with --max-n {result.max_n}"


def generate_json(result: ProofRun) -> str:
    """The JSON report: deterministic (no timings), sorted as in the papers."""
    doc = {
        "format": REPORT_FORMAT,
        "generator": "reluid prove",
        "max_n": result.max_n,
        "complete": result.complete,
        "solver": result.solver,
        "summary": {s: sum(1 for r in result.runs if r.outcome.status == s) for s in STATUSES}
        | {"as_expected": sum(1 for r in result.runs if r.matches), "total": len(result.runs)},
        "statements": [],
    }
    for r in result.runs:
        st = r.statement
        doc["statements"].append({
            "name": st.name, "paper": st.paper, "title": st.title, "reference": st.reference,
            "statement": st.statement, "method": st.method, "sizes": st.sizes, "expected": st.expected,
            "as_expected": r.matches, **r.outcome.to_dict()})
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


_VERDICT_WORD = {HOLDS: "holds", COUNTEREXAMPLE: "counterexample", UNKNOWN: "unknown"}


def _md_escape_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def generate_markdown(result: ProofRun) -> str:
    """The Markdown report: statements, method, sizes, results, counterexamples, findings."""
    L = []
    L.append("# The papers' statements, checked")
    L.append("")
    L.append("Generated by `reluid prove` "
             f"({_sizes_line(result)}; {result.solver}, seed 0). Do not edit: "
             "`python -m reluid prove` rewrites this file and `reports/proofs.json`, and "
             "`pytest tests/test_proofs.py` checks that they are current.")
    L.append("")
    L.append("Papers:")
    for key, (cite, path) in PAPERS.items():
        L.append(f"- **{key}**: {cite} (seed text `{path}`).")
    L.append("")
    L.append("How to read the results. Each statement is turned into a finite check whose answer is one of "
             "**holds**, **counterexample** or **unknown**. The evidence is labelled:")
    L.append("- **exact**: rational arithmetic in reluid's exact model, exhaustive enumeration, or a sympy "
             "identity verified branch by branch;")
    L.append("- **z3**: a bounded search in which the parameters are unknowns, the hypotheses are constraints "
             "and the negated conclusion is the goal; `unsat` proves the statement for that size *resting on "
             "z3*, `sat` is a candidate that reluid re-checks exactly;")
    L.append("- **differential**: agreement between an independent implementation of the statement and "
             "reluid's algorithms on seeded random exact instances (evidence, not proof).")
    L.append("")
    L.append("A counterexample is reported only after reluid's exact code has re-checked it. A solver "
             "`unknown` or a timeout is reported as unknown, never as holds.")
    L.append("")
    L.append("## Summary")
    L.append("")
    n_ok = sum(1 for r in result.runs if r.matches)
    L.append(f"{n_ok} of {len(result.runs)} statements came out as expected"
             + ("." if n_ok == len(result.runs) else "; see the flagged rows."))
    L.append("")
    L.append("| paper | statement | evidence | expected | outcome |  |")
    L.append("| --- | --- | --- | --- | --- | --- |")
    for r in result.runs:
        st, o = r.statement, r.outcome
        flag = "as expected" if r.matches else ("**unknown**" if o.status == UNKNOWN else "**SURPRISE**")
        L.append(f"| {st.paper} | [{_md_escape_cell(st.title)}](#{_anchor(st)}) | {', '.join(o.trust) or '—'} "
                 f"| {st.expected} | {o.status} | {flag} |")
    L.append("")
    findings = [(r.statement, f) for r in result.runs for f in r.outcome.findings]
    cexs = [r for r in result.runs if r.outcome.status == COUNTEREXAMPLE]
    if findings or cexs:
        L.append("## Findings")
        L.append("")
        L.append("Counterexamples (each re-checked exactly):")
        L.append("")
        for r in cexs:
            L.append(f"- **{r.statement.paper}, [{r.statement.title}](#{_anchor(r.statement)}).** {r.outcome.proved}")
        if findings:
            L.append("")
            L.append("Discrepancies between the paper text, the project notes and the mathematics:")
            L.append("")
            for st, f in findings:
                L.append(f"- **{st.paper}, [{st.title}](#{_anchor(st)}).** {f}")
        L.append("")
    current = None
    for r in result.runs:
        st, o = r.statement, r.outcome
        if st.paper != current:
            current = st.paper
            L.append(f"## {current}")
            L.append("")
        L.append(f"### {st.title}")
        L.append("")
        L.append(f"<a id=\"{_anchor(st)}\"></a>`{st.name}` — {st.reference}.")
        L.append("")
        L.append(f"**Statement.** {st.statement}")
        L.append("")
        L.append(f"**Method.** {st.method}")
        L.append("")
        L.append(f"**Sizes.** {st.sizes}")
        L.append("")
        verdict = _VERDICT_WORD[o.status]
        surprise = "" if r.matches else ("; unknown" if o.status == UNKNOWN else "; SURPRISE")
        L.append(f"**Result: {verdict}** (expected: {st.expected}{surprise}). "
                 f"{o.proved}")
        if o.trust:
            L.append(f"Evidence: {', '.join(o.trust)}.")
        L.append("")
        for e in o.evidence:
            L.append(f"- {e}")
        if o.evidence:
            L.append("")
        if o.counterexample:
            L.append(f"**Counterexample** ({'re-checked exactly' if o.rechecked else 'NOT re-checked'}). "
                     f"{o.counterexample}")
            L.append("")
        if o.reason:
            L.append(f"**Why unknown.** {o.reason}")
            L.append("")
        for f in o.findings:
            L.append(f"**Finding.** {f}")
            L.append("")
        for rm in o.remarks:
            L.append(f"**Remark.** {rm}")
            L.append("")
    return "\n".join(L).rstrip() + "\n"


def _anchor(st: Statement) -> str:
    return st.name.replace("_", "-").lower()


def write_reports(result: ProofRun, directory: Path | str) -> tuple[Path, Path]:
    """Write ``proofs.md`` and ``proofs.json`` into ``directory`` (created if needed)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    md, js = directory / "proofs.md", directory / "proofs.json"
    md.write_text(generate_markdown(result), encoding="utf-8")
    js.write_text(generate_json(result), encoding="utf-8")
    return md, js
