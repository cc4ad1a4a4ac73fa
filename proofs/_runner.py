"""The papers' statements as executable checks: framework, discovery and runner.

The statements live one per module in the repository's top-level ``proofs/``
folder (``proofs/ramakrishnan_lemma_4.py``, ...), installed with the package as
:mod:`reluid.proofs`.  Each module defines
``STATEMENT``, a :class:`Statement`: the claim in words and symbols, where it
is in the paper, how it is checked and at which sizes, the expected outcome,
and a ``check(max_n, timeout) -> StatementResult`` callable.

A :class:`StatementResult` says exactly what was shown.  Checking a statement
is a search for a counterexample, so its ``status`` is an
:class:`~reluid.verdicts.Outcome`: NONE, the statement **holds** (with the
evidence: exact identities, exhaustive enumerations, z3 ``unsat`` for bounded
sizes, agreement on seeded random exact instances), FOUND, a
**counterexample** (with the numbers, re-checked by reluid's exact code), or
UNKNOWN (with a reason; a solver ``unknown`` or a timeout is never turned into
``holds``).

:func:`run` runs a selection; :mod:`reluid.report.proofs` renders the reports
deterministically (no timings) and writes ``proofs.md`` and ``proofs.json``.

Examples
--------
>>> names = [s.name for s in discover()]
>>> "ramakrishnan_lemma_4" in names and "grigsby_lemma_D15" in names
True
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from reluid.errors import InvalidArgument
from reluid.verdicts import ExitCode, Outcome

__all__ = [
    "HOLDS", "COUNTEREXAMPLE", "UNKNOWN", "STATUSES", "STATUS_WORD",
    "StatementResult", "Statement", "StatementRun", "ProofRun",
    "proofs_dir", "default_output_dir", "discover", "select", "run_statement", "run", "exit_code",
]

#: The outcomes of the search for a counterexample, under their names in the reports.
HOLDS, COUNTEREXAMPLE, UNKNOWN = Outcome.NONE, Outcome.FOUND, Outcome.UNKNOWN
STATUSES = (HOLDS, COUNTEREXAMPLE, UNKNOWN)
STATUS_WORD = {HOLDS: "holds", COUNTEREXAMPLE: "counterexample", UNKNOWN: "unknown"}
_BY_WORD = {word: status for status, word in STATUS_WORD.items()}

REPORT_FORMAT = "reluid.proofs/1"

PAPERS = {
    "Ramakrishnan 2026": ("P. Ramakrishnan, *A Complete Symmetry Classification of Shallow ReLU Networks*, "
                          "arXiv 2604.14037 (2026)", "../shared/seeds/001_37695e8e85e040ec.txt"),
    "Grigsby, Lindsey, Rolnick 2023": ("E. Grigsby, K. Lindsey, D. Rolnick, *Hidden Symmetries of ReLU "
                                       "Networks*, ICML 2023", "../shared/seeds/000_09e56a515bf6deed.txt"),
}


@dataclass(frozen=True, slots=True)
class StatementResult:
    """What one check established.

    Attributes
    ----------
    status : Outcome
        :data:`HOLDS` (no counterexample), :data:`COUNTEREXAMPLE` (found) or
        :data:`UNKNOWN`; the words ``"holds"``, ``"counterexample"`` and
        ``"unknown"`` are accepted too.
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

    status: Outcome
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
        status = _BY_WORD.get(self.status, self.status)
        if status not in STATUSES:
            raise InvalidArgument(f"outcome status must be one of {list(STATUS_WORD.values())}, got {self.status!r}")
        object.__setattr__(self, "status", Outcome(status))
        for name in ("evidence", "trust", "findings", "remarks", "witnesses"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.status == COUNTEREXAMPLE and not self.counterexample:
            raise InvalidArgument("a counterexample outcome needs the counterexample")
        if self.status == UNKNOWN and not self.reason:
            raise InvalidArgument("an unknown outcome needs a reason")

    def to_dict(self) -> dict:
        return {"status": STATUS_WORD[self.status], "proved": self.proved, "evidence": list(self.evidence),
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
    expected : Outcome
        :data:`HOLDS` or :data:`COUNTEREXAMPLE` (or those words): what a correct run finds.
    check : callable
        ``check(max_n, timeout) -> StatementResult``; ``max_n`` None means the default sizes.
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
    expected: Outcome
    check: Callable[[int | None, float], StatementResult] = field(repr=False, compare=False)
    order: tuple[int, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "expected", _BY_WORD.get(self.expected, self.expected))
        if self.expected not in (HOLDS, COUNTEREXAMPLE):
            raise InvalidArgument(f"{self.name}: expected must be 'holds' or 'counterexample'")
        if self.paper not in PAPERS:
            raise InvalidArgument(f"{self.name}: unknown paper {self.paper!r}")


@dataclass(frozen=True, slots=True)
class StatementRun:
    """A statement with its outcome; ``seconds`` is for the terminal only, never for the reports."""

    statement: Statement
    outcome: StatementResult
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
    """The folder of the statement modules: the package :mod:`reluid.proofs` (the repository's ``proofs/``)."""
    return Path(__file__).resolve().parent


def default_output_dir() -> Path | None:
    """The repository's ``reports/`` when run from a source checkout, else None (nothing is written by default)."""
    root = proofs_dir().parent
    reports = root / "reports"
    return reports if reports.is_dir() and (root / "pyproject.toml").is_file() else None


def discover() -> tuple[Statement, ...]:
    """Every ``STATEMENT`` in ``proofs/*.py`` (files starting with ``_`` are helpers), in paper order."""
    out = []
    for path in sorted(proofs_dir().glob("*.py")):
        if path.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__package__}.{path.stem}")
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
        if not isinstance(out, StatementResult):
            raise TypeError(f"check returned {type(out).__name__}, not StatementResult")
    except Exception as e:  # a failing check must not hide the others
        out = StatementResult(UNKNOWN, "the check raised an exception", reason=f"error: {type(e).__name__}: {e}")
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


def exit_code(result: ProofRun) -> ExitCode:
    """0 when every outcome is the expected one, 1 on a surprise, 3 when some outcome is unknown."""
    if any(r.outcome.status != UNKNOWN and not r.matches for r in result.runs):
        return ExitCode.REJECTED
    if any(r.outcome.status == UNKNOWN for r in result.runs):
        return ExitCode.UNKNOWN
    return ExitCode.OK
