"""The vocabularies of answers: one for verdicts, one for searches, one for how a fact is known.

* :class:`Verdict` is what a certificate says about a network: no hidden
  symmetries, a hidden symmetry, or unknown (docs/certificates.md).
* :class:`Outcome` is what every search returns -- flip sets, realisation
  patterns, z3 queries, violations of the paper's conditions, counterexamples
  to a paper's statement: something was **found** (with a witness), there is
  **none** (with a proof), or the answer is **unknown** (with a reason).  A
  solver ``unknown`` or a timeout is always ``UNKNOWN``; it never becomes
  ``NONE``.

This module imports nothing from reluid, so every layer may use it.

>>> Outcome.FOUND.value, Verdict.HIDDEN.exit_code
('found', 1)
"""

from __future__ import annotations

import enum

__all__ = ["Verdict", "Outcome"]


class Verdict(str, enum.Enum):
    """The three honest answers about a network (exit codes 0 / 1 / 3)."""

    NO_HIDDEN = "no-hidden-symmetries"
    HIDDEN = "hidden-symmetry"
    UNKNOWN = "unknown"

    @property
    def exit_code(self) -> int:
        return {"no-hidden-symmetries": 0, "hidden-symmetry": 1, "unknown": 3}[self.value]


class Outcome(str, enum.Enum):
    """The answer of a search: found (a witness), none (a proof), unknown (a reason)."""

    FOUND = "found"
    NONE = "none"
    UNKNOWN = "unknown"
