"""The vocabularies of answers: one for verdicts, one for searches, one for how a fact is known.

* :class:`Verdict` is what a certificate says about a network: no hidden
  symmetries, a hidden symmetry, or unknown (docs/certificates.md).
* :class:`AuditOutcome` is what ``reluid audit`` records per file: the
  three verdicts and **invalid input** (a file reluid cannot read as the
  function it states; no certificate), each with its exit code, its rank
  (severity) and the name ``--fail-on`` gives it.
* :class:`Outcome` is what every search returns -- flip sets, realisation
  patterns, z3 queries, violations of the paper's conditions, counterexamples
  to a paper's statement: something was **found** (with a witness), there is
  **none** (with a proof), or the answer is **unknown** (with a reason).  A
  solver ``unknown`` or a timeout is always ``UNKNOWN``; it never becomes
  ``NONE``.

This module imports nothing from reluid, so every layer may use it.

>>> Outcome.FOUND.value, Verdict.HIDDEN.exit_code
('found', 1)
>>> AuditOutcome.of(Verdict.UNKNOWN).policy_name, AuditOutcome.INVALID_INPUT.exit_code
('unknown', 4)
"""

from __future__ import annotations

import enum

__all__ = ["Verdict", "Outcome", "AuditOutcome"]


class Verdict(str, enum.Enum):
    """The three honest answers about a network (exit codes 0 / 1 / 3)."""

    NO_HIDDEN = "no-hidden-symmetries"
    HIDDEN = "hidden-symmetry"
    UNKNOWN = "unknown"

    @property
    def exit_code(self) -> int:
        return {"no-hidden-symmetries": 0, "hidden-symmetry": 1, "unknown": 3}[self.value]


class AuditOutcome(str, enum.Enum):
    """The outcome of one file in an audit: a verdict, or invalid input (exit codes 0 / 1 / 3 / 4).

    ``severity`` ranks them (invalid input > hidden symmetry > unknown > no
    hidden symmetries); ``policy_name`` is the word ``reluid audit --fail-on``
    uses for it (``None`` for no hidden symmetries, which never fails).
    """

    NO_HIDDEN = "no-hidden-symmetries"
    HIDDEN = "hidden-symmetry"
    UNKNOWN = "unknown"
    INVALID_INPUT = "invalid-input"

    @classmethod
    def of(cls, verdict: "Verdict") -> "AuditOutcome":
        return cls(Verdict(verdict).value)

    @property
    def exit_code(self) -> int:
        return 4 if self is AuditOutcome.INVALID_INPUT else Verdict(self.value).exit_code

    @property
    def severity(self) -> int:
        return {"no-hidden-symmetries": 0, "unknown": 1, "hidden-symmetry": 2, "invalid-input": 3}[self.value]

    @property
    def policy_name(self) -> str | None:
        return {"no-hidden-symmetries": None, "hidden-symmetry": "hidden", "unknown": "unknown",
                "invalid-input": "invalid"}[self.value]


class Outcome(str, enum.Enum):
    """The answer of a search: found (a witness), none (a proof), unknown (a reason)."""

    FOUND = "found"
    NONE = "none"
    UNKNOWN = "unknown"
