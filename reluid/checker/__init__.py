"""The small trusted core: re-verifies certificates with exact arithmetic.

Imports only the standard library, :mod:`reluid.model`,
:mod:`reluid.certificates.schema`, and python-flint's exact matrix kernels
(for determinants and ranks modulo a prime).  Never z3, sympy, networkx, the
analyses or the search code -- ``tests/test_architecture.py`` enforces it.
"""
