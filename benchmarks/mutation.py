"""Mutation testing of the checker (``reluid/checker``): the kill rate per module and the surviving mutants.

Usage::

    python benchmarks/mutation.py --run [-j 2]      # run mutmut (resumes a previous run), then report
    python benchmarks/mutation.py                   # report the last run (``mutants/``)
    python benchmarks/mutation.py --threshold 90    # exit 1 when the overall kill rate is below 90 %
    python benchmarks/mutation.py --markdown reports/mutation.md
    python benchmarks/mutation.py --run --only two_layers.py    # one module: its mutants (re-)run, it alone reported

mutmut (configured in ``pyproject.toml``, ``[tool.mutmut]``) copies ``reluid/`` to
``mutants/``, mutates every function of ``reluid/checker/`` and runs, per mutant, the
tests of the selection that reach the mutated function.  A mutant is *killed* when a
test fails (or it times out); it *survives* when every test passes, and it has *no
tests* when no test of the selection reaches its function (counted as not killed).

The kill rate is (killed + timed out) / (every mutant that was run or had no tests).
The surviving mutants are listed with ``file:line`` of the original source and the
changed line; mutmut does not mutate decorated functions (the ``@verifies`` entry
points of the verifiers), and the report lists those separately.

``mutmut run`` keeps its results in ``mutants/``: after a change to the checker or the
tests it re-runs the mutants of the functions that changed; ``--fresh`` removes
``mutants/`` first and re-runs everything.  ``--only MODULE`` (repeatable) hands mutmut the
mutant names ``reluid.checker.MODULE.*``, so that only that module's mutants run (all of them,
again), and reports that module alone; a narrower test selection for such a run is set in
``pyproject.toml`` (``pytest_add_cli_args_test_selection``), and the report should say so.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKER = Path("reluid/checker")
MUTANTS = ROOT / "mutants"

#: mutmut's exit codes (mutmut/stats.py), grouped.
KILLED = {1, 3}
TIMEOUT = {36, 24, -24, 152, 255}
SURVIVED = {0}
NO_TESTS = {5, 33}
SKIPPED = {34}


def status(code) -> str:
    if code is None:
        return "not checked"
    if code in KILLED:
        return "killed"
    if code in TIMEOUT:
        return "timeout"
    if code in SURVIVED:
        return "survived"
    if code in NO_TESTS:
        return "no tests"
    if code in SKIPPED:
        return "skipped"
    return "suspicious"


def _function_lines(source: str) -> dict[str, int]:
    """mutmut's mangled function name (x_f, xǁClassǁmethod) -> the line of its ``def`` in the source."""
    out = {}

    def visit(body, cls=""):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[f"xǁ{cls}ǁ{node.name}" if cls else f"x_{node.name}"] = node.lineno
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{cls}.{node.name}" if cls else node.name)

    visit(ast.parse(source).body)
    return out


def decorated_functions(source: str) -> list[tuple[int, str, int]]:
    """(line, name, length in lines) of the decorated functions, which mutmut leaves unmutated."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.decorator_list:
            out.append((node.lineno, node.name, node.end_lineno - node.lineno + 1))
    return sorted(out)


def _body(lines, span):
    """The lines of a generated function from its ``def`` line on, the mangled name replaced by ``f``."""
    text = lines[span[0] - 1:span[1]]
    start = next((i for i, t in enumerate(text) if t.lstrip().startswith(("def ", "async def "))), 0)
    text = text[start:]
    if text:
        text[0] = re.sub(r"def \S+?\(", "def f(", text[0], count=1)
    while text and not text[-1].strip():
        text = text[:-1]
    return text


def collect(only=None):
    """{module: [(mutant name, status, line, change)]} from the last mutmut run (the modules ``only``, if given)."""
    result = {}
    for meta in sorted((MUTANTS / CHECKER).glob("*.py.meta")):
        module = meta.name[:-len(".meta")]
        if only is not None and module not in only:
            continue
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if not codes:
            continue
        spans_file = meta.with_name(module + ".spans")
        spans = json.loads(spans_file.read_text())["spans"] if spans_file.exists() else {}
        mutated = (MUTANTS / CHECKER / module).read_text().splitlines()
        source_lines = _function_lines((ROOT / CHECKER / module).read_text())
        rows = []
        for key, code in codes.items():
            local = key.rsplit(".", 1)[-1]                   # x_f__mutmut_3 / xǁCǁm__mutmut_3
            func = local.rsplit("__mutmut_", 1)[0]
            line, change = None, ""
            if local in spans and func + "__mutmut_orig" in spans:
                orig, new = _body(mutated, spans[func + "__mutmut_orig"]), _body(mutated, spans[local])
                diff = [d for d in difflib.ndiff(orig, new) if d[:1] in "-+"]
                first = next((i for i, (a, b) in enumerate(zip(orig, new)) if a != b), min(len(orig), len(new)))
                if func in source_lines:
                    line = source_lines[func] + first
                change = " / ".join(d[0] + " " + d[2:].strip() for d in diff)
            rows.append((key, status(code), line, change))
        result[module] = rows
    return result


def summarise(result):
    table = {}
    for module, rows in result.items():
        c = Counter(s for _, s, _, _ in rows)
        counted = sum(c.values()) - c["skipped"] - c["not checked"]
        killed = c["killed"] + c["timeout"]
        table[module] = (c, counted, killed)
    return table


def rate(killed, counted) -> float:
    return 100.0 * killed / counted if counted else 100.0


def report(result, *, markdown: bool = False) -> tuple[str, float]:
    table = summarise(result)
    total = Counter()
    for c, _, _ in table.values():
        total.update(c)
    counted = sum(v[1] for v in table.values())
    killed = sum(v[2] for v in table.values())
    overall = rate(killed, counted)
    out = []
    out.append("| module | mutants | killed | timeout | survived | no tests | other | kill rate |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for module, (c, n, k) in table.items():
        other = c["suspicious"] + c["not checked"] + c["skipped"] + c["segfault"]
        out.append(f"| {module} | {sum(c.values())} | {c['killed']} | {c['timeout']} | {c['survived']} | "
                   f"{c['no tests']} | {other} | {rate(k, n):.1f} % |")
    other = total["suspicious"] + total["not checked"] + total["skipped"] + total["segfault"]
    out.append(f"| **all** | {sum(total.values())} | {total['killed']} | {total['timeout']} | "
               f"{total['survived']} | {total['no tests']} | {other} | **{overall:.1f} %** |")
    out.append("")
    if total["not checked"]:
        out.append(f"{total['not checked']} mutants were not checked: the run is incomplete.")
        out.append("")
    out.append("Surviving mutants (and mutants no test reaches):")
    out.append("")
    for module, rows in result.items():
        for key, st, line, change in sorted(rows, key=lambda r: (r[2] or 0, r[0])):
            if st in ("survived", "no tests", "suspicious"):
                where = f"{CHECKER / module}:{line}" if line else str(CHECKER / module)
                tag = "" if st == "survived" else f" [{st}]"
                out.append(f"* `{where}` `{key.rsplit('.', 1)[-1]}`{tag}: `{change}`" if markdown
                           else f"  {where}  {key.rsplit('.', 1)[-1]}{tag}: {change}")
    out.append("")
    out.append("Not mutated (mutmut skips decorated functions):")
    out.append("")
    for module in sorted(result):
        for line, name, length in decorated_functions((ROOT / CHECKER / module).read_text()):
            out.append(f"* `{CHECKER / module}:{line}` `{name}` ({length} lines)" if markdown
                       else f"  {CHECKER / module}:{line}  {name} ({length} lines)")
    return "\n".join(out), overall


def module_name(module: str) -> str:
    """``two_layers``, ``two_layers.py`` or ``reluid/checker/two_layers.py`` -> ``two_layers.py``."""
    return Path(module).stem + ".py"


def run(jobs: int, fresh: bool, only=None) -> int:
    if fresh and MUTANTS.exists():
        shutil.rmtree(MUTANTS)
    names = [f"reluid.checker.{Path(m).stem}.*" for m in only or ()]
    return subprocess.call([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *names], cwd=ROOT)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="store_true", help="run mutmut first")
    ap.add_argument("--fresh", action="store_true", help="with --run: discard the previous results")
    ap.add_argument("-j", "--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--threshold", type=float, default=None, help="fail below this overall kill rate (percent)")
    ap.add_argument("--markdown", type=Path, default=None, help="also write the report as Markdown")
    ap.add_argument("--only", action="append", default=None, metavar="MODULE",
                    help="run (with --run) and report only this checker module (repeatable)")
    args = ap.parse_args(argv)
    only = None if args.only is None else {module_name(m) for m in args.only}
    if args.run:
        code = run(args.jobs, args.fresh, sorted(only) if only else None)
        if code:
            print(f"mutmut exited with {code}", file=sys.stderr)
            return code
    if not MUTANTS.exists():
        print("no mutants/ directory: run with --run first", file=sys.stderr)
        return 2
    result = collect(only)
    text, overall = report(result)
    print(text)
    if args.markdown:
        md, _ = report(result, markdown=True)
        args.markdown.write_text("# Mutation testing of reluid/checker\n\n" + md + "\n")
    if args.threshold is not None and overall < args.threshold:
        print(f"kill rate {overall:.1f} % is below the threshold {args.threshold:.1f} %", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
