"""The checker is a second, independent computation: it must not import the solver or search code."""

import subprocess
import sys

FORBIDDEN = ("z3", "sympy", "networkx", "numpy", "reluid.analysis", "reluid.smt", "reluid.io")


def test_checker_imports_no_solver_or_search_code():
    code = ("import sys; import reluid.checker.check, reluid.cli.cmd_check; "
            "print('\\n'.join(sorted(sys.modules)))")
    mods = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    bad = [m for m in mods if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)]
    assert not bad, f"the checker imported {bad}"
