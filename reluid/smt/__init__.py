"""The only package that imports z3.  Every solver is made by :func:`make_solver`."""

from reluid.smt.solver import SolverConfig, SolverAnswer, check, make_solver, rational_to_z3, z3_to_rational, z3_version

__all__ = ["SolverConfig", "SolverAnswer", "check", "make_solver", "rational_to_z3", "z3_to_rational", "z3_version"]
