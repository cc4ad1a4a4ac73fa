"""The import rules of the package, checked on every module (the data flows one way).

io → model → analysis → certificates → checker → report → cli, with

* only ``reluid.smt`` imports z3 (and ``reluid.proofs._lemmas``, the z3 encodings
  of the papers' statements, which serve only ``reluid prove``);
* the checker imports no analysis, smt, io, z3, sympy, networkx or numpy, at
  module level or inside functions, and importing it loads none of them;
* analyses import no certificate or report code;
* report imports no analysis;
* the model imports nothing above it;
* nothing outside the package (``proofs/`` is installed as ``reluid.proofs``).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import reluid
import reluid.proofs

PACKAGE = Path(reluid.__file__).resolve().parent
PROOFS = Path(reluid.proofs.__file__).resolve().parent


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        yield ".".join(p for p in rel.parts if p != "__init__"), path
    for path in sorted(PROOFS.glob("*.py")):
        yield "reluid.proofs" + ("" if path.stem == "__init__" else "." + path.stem), path


def _imports(path: Path, package: str) -> set[str]:
    """Every module named by an import statement anywhere in the file (functions included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + (1 if path.stem == "__init__" else 0)]
                out.add(".".join(base + ([node.module] if node.module else [])))
            else:
                out.add(node.module)
    return out


MODULES = {name: _imports(path, name) for name, path in _modules()}


def _within(mod: str, prefixes) -> bool:
    return any(mod == p or mod.startswith(p + ".") for p in prefixes)


def _violations(importers, forbidden, allow=()):
    return sorted((name, mod) for name, mods in MODULES.items() if _within(name, importers)
                  and not _within(name, allow) for mod in mods if _within(mod, forbidden))


def test_the_rules_see_the_whole_package():
    assert len(MODULES) > 60
    assert "reluid.checker.check" in MODULES and "reluid.proofs._runner" in MODULES
    assert "z3" in MODULES["reluid.smt.solver"]


def test_only_smt_imports_z3():
    assert _violations(["reluid"], ["z3"], allow=["reluid.smt", "reluid.proofs._lemmas"]) == []


@pytest.mark.parametrize("forbidden", [["reluid.analysis"], ["reluid.smt"], ["reluid.io"], ["reluid.api"],
                                       ["reluid.report"], ["reluid.cli"], ["reluid.proofs"],
                                       ["z3"], ["sympy"], ["networkx"], ["numpy"]])
def test_checker_imports_no_search_code_and_no_solver(forbidden):
    assert _violations(["reluid.checker"], forbidden) == []


def test_checker_loads_nothing_forbidden():
    code = ("import sys; import reluid.checker.check, reluid.cli.cmd_check; "
            "print('\\n'.join(sorted(sys.modules)))")
    mods = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    bad = [m for m in mods if _within(m, ("z3", "sympy", "networkx", "numpy", "reluid.analysis", "reluid.smt",
                                          "reluid.io"))]
    assert not bad, f"the checker imported {bad}"


def test_analyses_import_no_certificates_or_reports():
    assert _violations(["reluid.analysis", "reluid.smt"], ["reluid.certificates", "reluid.checker",
                                                           "reluid.report", "reluid.cli", "reluid.api"]) == []


def test_report_imports_no_analysis():
    assert _violations(["reluid.report"], ["reluid.analysis", "reluid.smt", "reluid.checker", "reluid.cli",
                                           "reluid.api"]) == []


def test_certificates_import_no_analysis():
    assert _violations(["reluid.certificates"], ["reluid.analysis", "reluid.smt", "reluid.checker",
                                                 "reluid.report", "reluid.cli", "reluid.api"]) == []


def test_model_is_the_bottom():
    above = ["reluid.io", "reluid.analysis", "reluid.smt", "reluid.certificates", "reluid.checker", "reluid.report",
             "reluid.cli", "reluid.api", "reluid.proofs", "z3", "sympy", "networkx"]
    assert _violations(["reluid.model", "reluid.verdicts", "reluid.errors", "reluid._version", "reluid.budget"],
                      above) == []


def test_cli_goes_through_the_api():
    assert _violations(["reluid.cli"], ["reluid.analysis", "reluid.smt", "reluid.io", "reluid.certificates",
                                        "reluid.checker"]) == []


def test_nothing_reaches_outside_the_package():
    for name, path in _modules():
        text = path.read_text(encoding="utf-8")
        assert "parents[1]" not in text and "parents[2]" not in text, name
        assert not _within_any(MODULES[name], ("proofs",)), name


def _within_any(mods, prefixes):
    return any(_within(m, prefixes) for m in mods)


def test_setuptools_lists_every_subpackage():
    import tomllib

    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]) \
        if (PACKAGE.parent / "pyproject.toml").is_file() else None
    if listed is None:
        pytest.skip("not a source checkout")
    found = {".".join(p.relative_to(PACKAGE.parent).parts[:-1]) for p in PACKAGE.rglob("__init__.py")}
    assert found | {"reluid.proofs"} == listed
