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
* The names a certificate's evidence uses, which producers in
  :mod:`reluid.analysis` write and the checker and reports read: the witness
  :class:`Mechanism`, the shallow :class:`Stratum`, the :class:`ReductionRule`, and how a fact was proved (:class:`FlipSetMethod`,
  :class:`PatternMethod`, :class:`ConditionMethod`, :class:`PremiseMethod`, :class:`CoverMethod`,
  :class:`PinningCase`, :class:`Frame`).  They live here rather than in
  :mod:`reluid.certificates.schema` because analyses may not import
  certificate code; the schema re-exports them with the claim kinds and
  holds the map from a mechanism to the claim kind of its premise.

Every vocabulary is an :class:`enum.StrEnum`: its members are strings, and
``str()`` and f-strings give the value, so JSON output, certificates and
reports spell the values exactly as the literals did; the vocabularies that
replaced literals derive from :class:`Name`, whose ``repr`` is the value's, so
messages and reprs read as before too.  No other module spells them as
literals (``tests/test_vocabulary.py``).

This module imports nothing from reluid, so every layer may use it.

>>> Outcome.FOUND.value, Verdict.HIDDEN.exit_code
('found', 1)
>>> AuditOutcome.of(Verdict.UNKNOWN).policy_name is FailOn.UNKNOWN, AuditOutcome.INVALID_INPUT.exit_code
(True, 4)
>>> f"{ClaimStatus.INFORMATION}", StopReason("time budget").complete
('information verified', False)
"""

from __future__ import annotations

import enum

__all__ = ["Name", "Verdict", "Outcome", "AuditOutcome", "FailOn", "ClaimStatus", "CheckState", "Mechanism", "Stratum",
           "ReductionRule", "StopReason", "FlipSetMethod", "PatternMethod", "ConditionMethod", "PremiseMethod", "CoverMethod", "PinningCase", "Frame"]


class Name(enum.StrEnum):
    """A name of a vocabulary: a string that ``repr`` shows as the string it is.

    The vocabularies below replaced string literals; showing a member as its
    value keeps results, messages and doctests reading exactly as before.
    """

    def __repr__(self) -> str:
        return repr(self.value)


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


class FailOn(Name):
    """The outcomes ``reluid audit --fail-on`` names (in this order), one per outcome that can fail a job."""

    HIDDEN = "hidden"
    UNKNOWN = "unknown"
    INVALID = "invalid"


class Outcome(enum.StrEnum):
    """The answer of a search: found (a witness), none (a proof), unknown (a reason)."""

    FOUND = "found"
    NONE = "none"
    UNKNOWN = "unknown"


class ClaimStatus(Name):
    """What the checker concluded about one claim (``reluid check`` prints it in brackets)."""

    VERIFIED = "verified"                  # evidence the derivation rule used, verified
    INFORMATION = "information verified"   # a side fact, re-verified
    NOT_REVERIFIED = "not re-verified"     # a kind the checker does not know: nothing is taken from it
    FAILED = "failed"


class CheckState(Name):
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


# ---- the names certificates use: producers write them, the checker and the reports read them ----

class Mechanism(Name):
    """How a witness θ′ arises from θ (``witness.mechanism``; docs/mathematics.md §1, §4, §6, §8.1)."""

    # one hidden layer (Ramakrishnan 2026, Lemmas 10, 11, Prop. 14; docs/mathematics.md §2, §4)
    DEAD_OUTPUT = "dead-output"
    CONSTANT_NEURON = "constant-neuron"
    MERGE_PROPORTIONAL = "merge-proportional"
    SHIFT_CANCELLING_PAIR = "shift-cancelling-pair"
    DEPENDENT_PAIRS = "dependent-pairs"
    PATTERN = "pattern"
    FLIP_SET = "flip-set"
    # deeper networks (docs/mathematics.md §6.2, §8.1)
    DEAD_NEURON = "dead-neuron"
    ALWAYS_ACTIVE = "always-active"
    NEVER_COACTIVE = "never-coactive"
    LAYER_FLIP = "layer-flip"
    ZERO_OUTGOING = "zero-outgoing"
    PROPORTIONAL_NEURONS = "proportional-neurons"
    COLLAPSED_KINK = "collapsed-kink"
    AFFINE_LAYER_FLIP = "affine-layer-flip"
    TWO_LAYER_FLIP = "two-layer-flip"


class Stratum(Name):
    """Where a one-hidden-layer θ lies (docs/mathematics.md §2, §4): the decision's first step.

    The checker recomputes it (``reluid.checker.shallow.classify``).
    """

    AFFINE = "affine"                    # no hidden layer
    EMPTY = "empty"                      # n = 0
    DEAD_OUTPUT = "dead-output"          # some m_i = 0 (always hidden)
    CONSTANT_NEURON = "constant-neuron"  # some a_i = 0 (always hidden)
    PROPORTIONAL = "proportional"        # two positively proportional rows (always hidden)
    CANCELLING_PAIR = "cancelling-pair"  # an opposite pair whose kinks cancel (always hidden)
    DEPENDENT_PAIRS = "dependent-pairs"  # opposite pairs with dependent directions (always hidden)
    OPPOSITE_PAIRS = "opposite-pairs"    # the essential stratum: realisation patterns decide
    GENERIC = "generic"                  # flip sets decide


class ReductionRule(Name):
    """The rules of an exact reduction to a reduced network (``reluid.reduction/1``; docs/mathematics.md §11)."""

    CONSTANT = "constant"              # a neuron constant on all inputs (a zero row) folds into the next bias
    ZERO_OUTGOING = "zero-outgoing"    # a neuron nothing downstream sees is removed
    MERGE = "merge"                    # positively proportional neurons merge
    DEAD = "dead"                      # a neuron whose pre-activation is never > 0 is removed


class StopReason(Name):
    """Why the functional-dimension computation stopped (``FunDimResult.stop_reason``; docs/mathematics.md §6)."""

    UPPER_BOUND = "upper bound reached"
    SAMPLE_EXHAUSTED = "sample exhausted"
    RANK_STALLED = "rank stalled"        # a measurement: more time is unlikely to raise the rank
    MEMORY_CAP = "memory cap"            # stopped before a block, the process holding most of the cap
    TIME_BUDGET = "time budget"          # more time might raise the rank
    NOT_ATTEMPTED = "not attempted"      # the estimate did not fit what was left

    @property
    def complete(self) -> bool:
        """The computation ran to its end (U reached, the sample exhausted or the rank stalled)."""
        return self in (StopReason.UPPER_BOUND, StopReason.SAMPLE_EXHAUSTED, StopReason.RANK_STALLED)


class FlipSetMethod(Name):
    """How a flip-set answer is proved (the ``method`` of its evidence; docs/certificates.md)."""

    RANK = "rank"
    LATTICE = "lattice"
    LATTICE_ENUM = "lattice-enum"
    LATTICE_CVP = "lattice-cvp"
    SEPARATION = "separation"
    SEPARATION_SPLIT = "separation-split"
    ENUMERATE = "enumerate"
    MITM = "mitm"
    Z3 = "z3"


class PatternMethod(Name):
    """How one case (P, q) of the realisation-pattern search is certified (docs/mathematics.md §4, Theorem 4)."""

    OWN_ONLY = "own-only"      # the own case with no single neuron left
    FLIP = "flip"              # the own case: a no-flip-set certificate of the singles modulo the pairs
    BOX = "box"                # q = 0: a point y of the box with a negative value
    LATTICE = "lattice"        # q = 0: a no-flip-set certificate of the case's lattice network
    MODP_ENUM = "modp-enum"    # q = 0: an enumeration modulo a prime
    PROJ_ENUM = "proj-enum"    # an enumeration of the orientations after a projection


class ConditionMethod(Name):
    """Whether the paper's sufficient condition (Prop. 24, V4) was enumerated (``paper-condition`` evidence)."""

    ENUMERATE = "enumerate"
    NOT_ENUMERATED = "not-enumerated"


class PremiseMethod(Name):
    """How a deep mechanism's premise was established (docs/mathematics.md §6.2), simplest proof first.

    ``AFFINE``: layer 1, the pre-activation is affine (decided by inspection);
    ``IDENTITY``: an exact matrix identity; ``ORTHANT``: layer >= 2, the
    incoming row and the bias have one sign; ``FARKAS``: a Farkas-tree
    certificate.  :attr:`rank` orders proofs by this preference.
    """

    AFFINE = "affine"
    IDENTITY = "identity"
    ORTHANT = "orthant"
    FARKAS = "farkas"

    @property
    def rank(self) -> int:
        return list(PremiseMethod).index(self)


class CoverMethod(Name):
    """How H4 (no cover of a bend flat set) is shown in a pinning certificate (docs/mathematics.md §10)."""

    COUNT = "count"              # Lemma H4-count: sorted, b_(m) > m
    EXHAUSTIVE = "exhaustive"    # every I ⊆ [n1] tried


class PinningCase(Name):
    """Which case of Lemma W.3 pins a layer-2 neuron (docs/mathematics.md §10)."""

    A = "a"
    B = "b"


class Frame(Name):
    """The coordinates of a pinning certificate: u = Ax + a when rank A = n1 (Lemma 10.18), else x."""

    U = "u"
    X = "x"
