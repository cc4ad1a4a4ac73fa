"""The vocabularies of answers: verdicts, audit outcomes, searches, and what the checker concluded.

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
* :class:`ClaimStatus` is what ``reluid check`` concluded about one claim, and
  :class:`CheckState` what a report says of a whole certificate (re-verified,
  rejected, or not re-verified); :class:`FailOn` names the outcomes
  ``reluid audit --fail-on`` can fail a job on.

Every vocabulary is an :class:`enum.StrEnum`: its members are strings, and
``str()`` and f-strings give the value, so JSON output, certificates and
reports spell the values exactly as the literals did; no other module spells
them as literals (``tests/test_vocabulary.py``).

This module imports nothing from reluid, so every layer may use it.

>>> Outcome.FOUND.value, Verdict.HIDDEN.exit_code
('found', 1)
>>> AuditOutcome.of(Verdict.UNKNOWN).policy_name, AuditOutcome.INVALID_INPUT.exit_code
('unknown', 4)
"""

from __future__ import annotations

import enum

__all__ = ["Verdict", "Outcome", "AuditOutcome", "FailOn", "ClaimStatus", "CheckState"]


class Verdict(enum.StrEnum):
    """The three honest answers about a network (exit codes 0 / 1 / 3)."""

    NO_HIDDEN = "no-hidden-symmetries"
    HIDDEN = "hidden-symmetry"
    UNKNOWN = "unknown"

    @property
    def exit_code(self) -> int:
        return {"no-hidden-symmetries": 0, "hidden-symmetry": 1, "unknown": 3}[self.value]


class AuditOutcome(enum.StrEnum):
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
    def policy_name(self) -> "FailOn | None":
        return {"no-hidden-symmetries": None, "hidden-symmetry": FailOn.HIDDEN, "unknown": FailOn.UNKNOWN,
                "invalid-input": FailOn.INVALID}[self.value]


class FailOn(enum.StrEnum):
    """The outcomes ``reluid audit --fail-on`` names (in this order), one per outcome that can fail a job."""

    HIDDEN = "hidden"
    UNKNOWN = "unknown"
    INVALID = "invalid"


class Outcome(enum.StrEnum):
    """The answer of a search: found (a witness), none (a proof), unknown (a reason)."""

    FOUND = "found"
    NONE = "none"
    UNKNOWN = "unknown"


class ClaimStatus(enum.StrEnum):
    """What the checker concluded about one claim (``reluid check`` prints it in brackets)."""

    VERIFIED = "verified"                  # evidence the derivation rule used, verified
    INFORMATION = "information verified"   # a side fact, re-verified
    NOT_REVERIFIED = "not re-verified"     # a kind the checker does not know: nothing is taken from it
    FAILED = "failed"


class CheckState(enum.StrEnum):
    """What a report says of a whole certificate: the checker's word, or that there is none.

    ``NO_CERTIFICATE`` (the empty string) is an audited file that gave no
    certificate to check (invalid input).
    """

    RE_VERIFIED = "re-verified"
    REJECTED = "rejected"
    NOT_REVERIFIED = "not re-verified"
    NO_CERTIFICATE = ""

    @classmethod
    def of(cls, report) -> "CheckState":
        """The state for a :class:`~reluid.checker.check.CheckReport`, or ``None`` (not run)."""
        if report is None:
            return cls.NOT_REVERIFIED
        return cls.RE_VERIFIED if report.valid else cls.REJECTED
