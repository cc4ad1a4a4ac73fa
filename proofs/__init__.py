"""The papers' statements as executable checks, one module per statement.

Each module ``proofs/<paper>_<kind>_<number>.py`` defines ``STATEMENT``, a
:class:`reluid.prove.Statement`.  ``reluid prove`` discovers and runs them
(:mod:`reluid.prove`) and writes ``reports/proofs.md`` and
``reports/proofs.json``.  Helpers shared by the modules are in
:mod:`proofs._framework`; z3 encodings are in :mod:`reluid.smt.lemmas`.
"""
