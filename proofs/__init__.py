"""The papers' statements as executable checks, one module per statement.

Installed with the package as :mod:`reluid.proofs` (the repository's top-level
``proofs/`` folder, mapped by ``package-dir`` in ``pyproject.toml``).  Each
module ``<paper>_<kind>_<number>.py`` defines ``STATEMENT``, a
:class:`~reluid.proofs._runner.Statement`.  ``reluid prove`` discovers and
runs them (:mod:`reluid.proofs._runner`) and :mod:`reluid.report.proofs`
writes ``reports/proofs.md`` and ``reports/proofs.json``.  Helpers shared by
the modules are in :mod:`._framework`; their z3 encodings are in
:mod:`._lemmas` (the only z3 code outside :mod:`reluid.smt`).
"""
