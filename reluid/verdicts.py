"""The vocabularies of answers: verdicts, audit outcomes, searches, and what the checker concluded.

* :class:`Verdict` is what a certificate says about a network: no hidden
  symmetries, a hidden symmetry, or unknown (docs/certificates.md).
* :class:`ExitCode` is what every ``reluid`` command exits with: the verdicts'
  codes 0 / 1 / 3, usage errors 2 and invalid input 4.
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
* :class:`Reason` is why an answer is ``unknown``: a :class:`ReasonCode` and
  its parameters (JSON data), one per sentence; analyses return them and only
  :mod:`reluid.report.reasons` turns them into words.
* :class:`ClaimStatus` is what ``reluid check`` concluded about one claim, and
  :class:`CheckState` what a report says of a whole certificate (re-verified,
  rejected, or not re-verified); :class:`FailOn` names the outcomes
  ``reluid audit --fail-on`` can fail a job on.
* The names a certificate's evidence uses, which producers in
  :mod:`reluid.analysis` write and the checker and reports read: the witness
  :class:`Mechanism`, the shallow :class:`Stratum`, the :class:`ReductionRule`, and how a fact was proved
  (:class:`FlipSetMethod`, :class:`FlipSearchStep`, :class:`PatternMethod`, :class:`ConditionMethod`,
  :class:`PremiseMethod`, :class:`CoverMethod`, :class:`PinningCase`, :class:`Frame`), and how an equivalence or an
  alignment was decided
  (:class:`EquivalenceMethod`, :class:`AlignMethod`).  They live here rather than in
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

>>> Outcome.FOUND.value, Verdict.HIDDEN.exit_code, ExitCode.of(Outcome.NONE)
('found', 1, 0)
>>> AuditOutcome.of(Verdict.UNKNOWN).policy_name is FailOn.UNKNOWN, AuditOutcome.INVALID_INPUT.exit_code
(True, 4)
>>> f"{ClaimStatus.INFORMATION}", StopReason("time budget").complete
('information verified', False)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

__all__ = ["Name", "ExitCode", "Reason", "ReasonCode", "Verdict", "Outcome", "AuditOutcome", "FailOn", "ClaimStatus", "CheckState", "Mechanism", "Stratum",
           "ReductionRule", "StopReason", "FlipSetMethod", "FlipSearchStep", "EquivalenceMethod", "AlignMethod",
           "PatternMethod", "ConditionMethod", "PremiseMethod", "CoverMethod", "PinningCase", "Frame", "WFailure"]


class Name(enum.StrEnum):
    """A name of a vocabulary: a string that ``repr`` shows as the string it is.

    The vocabularies below replaced string literals; showing a member as its
    value keeps results, messages and doctests reading exactly as before.
    """

    def __repr__(self) -> str:
        return repr(self.value)


class ExitCode(enum.IntEnum):
    """The exit code of every ``reluid`` command (``sys.exit`` takes the member as the integer it is).

    0 and 1 answer the command's question: no hidden symmetries / certificate
    valid / networks equal, and hidden symmetry / certificate rejected /
    networks different (``REJECTED`` and ``DIFFERENT`` are other names of 1);
    3 is no answer (unknown, a time-out, the memory cap, an internal error),
    2 a usage error, 4 invalid input (a network or certificate reluid cannot
    read as what it states).  Like a :class:`Name`, a member shows as the
    number it is.
    """

    OK = 0
    HIDDEN = 1
    REJECTED = 1
    DIFFERENT = 1
    USAGE = 2
    UNKNOWN = 3
    INVALID = 4

    def __repr__(self) -> str:
        return repr(self.value)

    @classmethod
    def of(cls, outcome: "Outcome | Verdict | AuditOutcome") -> "ExitCode":
        """The code of a search outcome (none 0, found 1, unknown 3), a verdict or an audit outcome."""
        if isinstance(outcome, (Verdict, AuditOutcome)):
            return outcome.exit_code
        return {Outcome.NONE: cls.OK, Outcome.FOUND: cls.HIDDEN, Outcome.UNKNOWN: cls.UNKNOWN}[Outcome(outcome)]

    @classmethod
    def answer(cls, yes: bool | None) -> "ExitCode":
        """The code of a yes/no question: yes 0 (valid, equal), no 1 (rejected, different), None 3 (unknown)."""
        return cls.UNKNOWN if yes is None else cls.OK if yes else cls.REJECTED


class Verdict(enum.StrEnum):
    """The three honest answers about a network (exit codes 0 / 1 / 3)."""

    NO_HIDDEN = "no-hidden-symmetries"
    HIDDEN = "hidden-symmetry"
    UNKNOWN = "unknown"

    @property
    def exit_code(self) -> ExitCode:
        return {"no-hidden-symmetries": ExitCode.OK, "hidden-symmetry": ExitCode.HIDDEN,
                "unknown": ExitCode.UNKNOWN}[self.value]


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
    def exit_code(self) -> ExitCode:
        return ExitCode.INVALID if self is AuditOutcome.INVALID_INPUT else Verdict(self.value).exit_code

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


class FlipSearchStep(Name):
    """The steps of the flip-set search that prove nothing themselves (``FlipSetResult.method`` and its stats)."""

    SCREEN = "screen"                # the quick witness search (zero columns, opposite pairs)
    RANK_PROFILE = "rank profile"    # the rank profile of U mod p, which lattice and enumerate use
    NONE = "none"                    # no method decided


class EquivalenceMethod(Name):
    """How ``equal`` of an :class:`~reluid.analysis.shallow.function.Equivalence` was decided (docs/mathematics.md
    §7)."""

    FUNCTION_DATA = "function data"          # one hidden layer: kinks, linear part and constant (Theorems 3, 4)
    ORBIT = "orbit"                          # the canonical forms align
    FLOAT_SEARCH = "float search"            # float probes chose a point, exact evaluation decided
    REGION_SPLIT = "region split"            # the joint activation regions, exactly
    Z3_SEARCH = "z3 search"                  # z3 found the input, exact evaluation decided
    REGION_FLOAT_SEARCH = "float search in the region"   # probes in a region the user gave
    UNDECIDED = "undecided"


class AlignMethod(Name):
    """How :func:`~reluid.analysis.deep.align.align` matched the hidden layers."""

    CANONICAL_ROWS = "canonical rows"
    EXHAUSTIVE = "exhaustive search"
    ORBIT_KEYS = "orbit keys of one hidden layer (Ramakrishnan 2026, §2.1)"
    EXHAUSTIVE_TIES = "exhaustive search (tied neurons)"


class FunDimMethod(Name):
    """How a functional-dimension claim is proved (its evidence's ``method``; the region rows of
    docs/mathematics.md §6.3 carry none)."""

    TRIANGULAR = "triangular"    # Theorem A3 (§6.4): a block-triangular family of Jacobian rows


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


class WFailure(Name):
    """Which part of Theorem W fails for a network (docs/mathematics.md §10): what a pinning analysis reports."""

    H0 = "H0"                    # a zero or repeated layer-1 row, or a zero output column
    H0_PRIME = "H0′"             # a zero or repeated layer-2 row
    REGIONS = "regions"          # the x frame's layer-1 regions could not be found
    H4 = "H4"                    # the bend flats admit a cover
    PINNING = "pinning"          # some layer-2 neuron is not pinned
    BUDGET = "budget"            # the time or the strict-system budget ran out


class H82Phase(Name):
    """Where the §8 checks of a two-hidden-layer network ran out of time (reluid.analysis.deep.two_layers)."""

    BEND_FLATS = "bend-flats"            # finding the bend flats (``count``: found so far)
    H4_CANDIDATES = "h4-candidates"      # H4's candidate hyperplanes (``count``: bend flats)
    H4_BLOCKS = "h4-blocks"              # H4's blocks (``count``: candidate hyperplanes)
    H4_COVER_SEARCH = "h4-cover-search"  # H4's cover search
    H4_COVER_TREES = "h4-cover-trees"    # the certificate's cover trees


class D3Step(Name):
    """The hypothesis of Corollary 12.15 a three-hidden-layer network was not shown to meet
    (reluid.analysis.deep.three_layers)."""

    H0_T0 = "h0-t0"                  # H0₁ (distinct layer-1 hyperplanes) or T0 (no zero column of V)
    FULL_REGIONS = "full-regions"    # no full layer-1 region (Definition 12.13, by Lemma 10.12(c))
    RIGID_EDGES = "rigid-edges"      # no connected set of rigid layer-1 edges carrying every label (Theorem 12.14)
    PINNING = "pinning"              # no depth-3 pinning certificate found (Definition 12.10)
    CLASH_POINTS = "clash-points"    # the clash points of Theorem 12.37 (where the time may run out)


class Frame(Name):
    """The coordinates of a pinning certificate: u = Ax + a when rank A = n1 (Lemma 10.18), else x."""

    U = "u"
    X = "x"


# ---- why an answer is unknown: reasons as data ----

class ReasonCode(Name):
    """What a :class:`Reason` says; :mod:`reluid.report.reasons` words each code (its docstring lists the params).

    The first group are the sentences of an ``unknown`` decision, in the
    order the deep decision gives them; the others are the parts those
    sentences hold (a reason's params may hold reasons, as ``{"code",
    "params"}`` mappings).
    """

    # the sentences of a decision
    NO_DEEP_MECHANISM = "no-deep-mechanism"            # no mechanism certified (docs/mathematics.md §6.2)
    UNDECIDED_QUESTIONS = "undecided-questions"        # the premise questions left open
    TWO_HIDDEN_LAYERS = "two-hidden-layers"            # the §8 / Theorem W analysis did not decide
    THREE_HIDDEN_LAYERS = "three-hidden-layers"        # the §12 analysis did not decide (``theorem``)
    FUNDIM = "fundim-result"                           # what the functional dimension came to
    LOCALLY_IDENTIFIABLE = "locally-identifiable"      # Theorem A1 holds, which is not a verdict
    DIM_FUN_IS_U = "dim-fun-is-u"                      # dim_fun = U, which is not a verdict
    SIZE_LIMIT = "size-limit"                          # what a size limit excluded (``limits``)
    TIME_BUDGET = "time-budget"                        # what the time budget left (``done``, ``left``)
    FLIP_SET_SEARCH_UNKNOWN = "flip-set-search-unknown"  # one hidden layer: no flip-set method decided
    PATTERNS_UNKNOWN = "patterns-unknown"              # one hidden layer: realisation patterns undecided (``search``)
    # a side property of a shallow network not established (its functional dimension; the producer record)
    LOCAL_IDENTIFIABILITY_SKIPPED = "local-identifiability-skipped"
    LOCAL_IDENTIFIABILITY_UNFINISHED = "local-identifiability-unfinished"
    # the questions mechanism detection left open (reluid.analysis.deep.mechanisms), and why
    QUESTION_SIGN = "question-sign"                    # is a neuron ever active (>0) / negative (<0)?
    QUESTION_COACTIVE = "question-coactive"            # are two neurons of consecutive layers ever co-active?
    QUESTION_KINK = "question-kink"                    # negative while the next is active (mechanism iii)?
    QUESTION_FLIP_SUM = "question-flip-sum"            # is Σ_F W^{l+1} z^l above / below its value (mechanism iv)?
    UNEXAMINED_COLLAPSED_KINKS = "unexamined-collapsed-kinks"
    UNEXAMINED_AFFINE_FLIPS = "unexamined-affine-flips"
    UNEXAMINED_STEPS = "unexamined-steps"              # the steps of detection the time budget left
    QUESTIONS_NOT_REFUTED = "questions-not-refuted"    # open questions the probes did not refute
    PROVER_NOT_USED = "prover-not-used"                # why: a mechanism was found, or the prover is disabled
    OUT_OF_TIME = "out-of-time"                        # why: the time budget was exhausted
    LAYER_FLIP_SEARCH = "layer-flip-search"            # how a layer's 0/1 kernel vectors were searched (``status``)
    LAYER_FLIP_FULL_RANK = "layer-flip-full-rank"      # the layer-flip vectors are independent: no flip set
    LAYER_FLIP_EXHAUSTED = "layer-flip-exhausted"      # every 0/1 vector of the kernel's support was tried
    LAYER_FLIP_EMPTY = "layer-flip-empty"              # not searched: an empty layer
    LAYER_FLIP_SKIPPED = "layer-flip-skipped"          # not searched: the kernel's support exceeds ``limit``
    LAYER_FLIP_TIMEOUT = "layer-flip-timeout"          # the time ran out after ``tried`` of the ``subsets``
    FUNDIM_CELLS = "fundim-cells"                      # the exact functional dimension from the cells (§9)
    CELLS_STOPPED = "cells-stopped"                    # the cell enumeration stopped (``why``), ``cells`` found
    CELLS_NODES = "cells-nodes"                        # more than ``limit`` nodes of the sign tree
    CELLS_TIMEOUT = "cells-timeout"                    # the time ran out after ``nodes`` nodes
    CELLS_TOO_MANY = "cells-too-many"                  # more than ``limit`` cells
    # parts of a size limit or a time budget
    FUNDIM_MEMORY = "fundim-memory"                    # the functional dimension needs more memory than the cap
    LEFT_MECHANISM_DETECTION = "left-mechanism-detection"
    LEFT_WITNESS_CONSTRUCTION = "left-witness-construction"
    LEFT_FUNDIM_NOT_STARTED = "left-fundim-not-started"
    LEFT_FUNDIM_PARTIAL = "left-fundim-partial"
    # why the realisation-pattern search did not decide (reluid.analysis.shallow.essential, Theorem 4)
    PATTERN_CASE_LIMIT = "pattern-case-limit"          # more cases (P, q) than the limit
    PATTERN_TIMEOUT = "pattern-timeout"                # the time ran out, in a case or between cases
    PATTERN_OWN_CASE = "pattern-own-case"              # the own case's flip-set problem was not certified
    PATTERN_ENUMERATION_LIMIT = "pattern-enumeration-limit"  # a case beyond the orientation enumeration's limit
    # why the two-hidden-layer analysis did not decide (reluid.analysis.deep.two_layers)
    INPUT_DIMENSION_ONE = "input-dimension-one"        # n0 = 1: no bend flats
    THEOREM_82_SIZE_LIMIT = "theorem-8.2-size-limit"   # n1 beyond the enumeration's limit
    THEOREM_82_BUDGET = "theorem-8.2-budget"           # the §8 checks ran out of budget
    THEOREM_W_NOT_STARTED = "theorem-w-not-started"     # no time was left to start Theorem W
    HYPOTHESIS_FAILS = "hypothesis-fails"              # one of H0–H4 fails
    THEOREM_W_FAILS = "theorem-w-fails"                # and Theorem W does not apply either (``failed``: WFailure)
    # why the three-hidden-layer analysis did not decide (reluid.analysis.deep.three_layers)
    D3_WIDE = "d3-wide"                                # n2 >= n0: no clash points exist (Remark 12.40; ``n0``, ``n2``)
    D3_CLASH_INPUT = "d3-clash-input"                  # clash points are enumerated for n0 = 3 only (``n0``)
    D3_NO_CP = "d3-no-cp"                              # (CP-L) fails on the ``points`` clash points (``m``)
    D3_HYPOTHESIS = "d3-hypothesis"                    # Corollary 12.15's ``step`` (D3Step) is not shown
    D3_FLIPS = "d3-flips"                              # a layer's flip family is not shown trivial (``layers``)
    D3_TIMEOUT = "d3-timeout"                          # the time ran out in ``step`` (D3Step)
    # what decided each hypothesis of Theorem 8.2 (the ``detail`` and ``notes`` of a Hypothesis)
    H0_HOLDS = "h0-holds"                              # ``n1`` distinct layer-1 hyperplanes, no zero row or column
    H1_COUNT = "h1-count"                              # ``full`` of ``regions`` nonempty layer-1 regions are full
    REGION_NOT_FULL = "region-not-full"                # region ``signs`` is not full: ``why`` (F_CONSTANT …)
    F_CONSTANT = "f-constant"                          # g_k is constant on R_s (F1)
    F_NO_ZERO = "f-no-zero"                            # g_k has no zero in R_s (F2), with the Motzkin ``y``
    F_PROPORTIONAL = "f-proportional"                  # g_k and g_k2 are proportional on R_s (F3)
    H23_STATS = "h23-stats"                            # ``full`` regions, ``edges`` between them, ``rigid`` rigid
    H23_NO_COMPONENT = "h23-no-component"              # no component carries all ``n1`` labels (at most ``best``)
    H23_COMPONENT = "h23-component"                    # a component of ``size`` full regions carries every label
    H23_EDGE_SET = "h23-edge-set"                      # the certificate's edge set: ``edges`` rigid edges
    H4_BY_COUNT = "h4-by-count"                        # Lemma 10.12's count holds on the flats per H_j (``counts``)
    H4_NO_COVER = "h4-no-cover"                        # the search found no cover (``counts``, ``candidates``)
    H4_COVERED = "h4-covered"                          # the flats of ``I`` (``flats`` of them) are covered (``cover``)
    H4_FLAT_COUNTS = "h4-flat-counts"                  # bend flats per H_j (``counts``)
    H82_TIMEOUT = "h82-timeout"                        # the time ran out in ``phase`` (H82Phase), with its ``count``
    H4_COVER_NODES = "h4-cover-nodes"                  # H4's cover search for one I passed ``limit`` nodes
    W_DEGENERATE_ROWS = "w-degenerate-rows"            # H0 / H0′: zero or proportional rows (``items``, ``more``)
    W_NEEDS_REGIONS = "w-needs-regions"                # the x frame needs the LP-guided region search (highspy)
    W_COVER = "w-cover"                                # H4 fails: flats per H_j (``counts``), ``exhaustive``
    W_UNPINNED = "w-unpinned"                          # ``pinned`` of ``n2`` layer-2 neurons pinned
    W_STRICT_BUDGET = "w-strict-budget"                # ``systems`` strict systems: ``timeout`` or the ``limit``
    FM_ROW_BUDGET = "fm-row-budget"                    # Fourier–Motzkin ``step`` of ``of`` needs ``rows`` > ``budget``
    FLIP_SEARCH_UNDECIDED = "flip-search-undecided"    # a theorem applies, the flip-set search is undecided
    # why the flip-set search did not decide (reluid.analysis.shallow.flipsets)
    FLIP_METHODS_GAVE_UP = "flip-methods-gave-up"      # every method tried gave up (``methods``: [name, why] pairs)
    FLIP_TIMEOUT = "flip-timeout"                      # the time ran out in a method (``method``, ``detail``)
    FLIP_RANK_DEFICIENT = "flip-rank-deficient"        # method rank: U has rank < n mod p
    FLIP_LATTICE_TOO_LARGE = "flip-lattice-too-large"  # method lattice: n beyond LATTICE_MAX_N
    FLIP_SEPARATION_SHARE = "flip-separation-share"    # separation stopped at its share of the time left
    SEPARATION_ZERO_COLUMN = "separation-zero-column"  # a zero column u_i cannot be separated
    SEPARATION_IMPOSSIBLE = "separation-impossible"    # the max-margin LP optimum is <= 0 (Gordan)
    SEPARATION_NOT_FOUND = "separation-not-found"      # L-BFGS (and the LP, ``lp``) found no separating y
    SEPARATION_ROUNDING = "separation-rounding"        # the rounded y does not separate exactly
    SEPARATION_SPLIT_TOO_LARGE = "separation-split-too-large"  # the split would leave ``rest`` of ``n`` neurons
    SEPARATION_SPLIT_UNKNOWN = "separation-split-unknown"      # no certificate for the neurons the split leaves
    SCREEN_NOTHING = "screen-nothing"                  # the screen: no zero column and no opposite pair
    RANK_DEPENDENT = "rank-dependent"                  # k·m < n: the columns of U are dependent
    RANK_MINORS_VANISH = "rank-minors-vanish"          # the n × n minors tried vanish mod ``p``
    LLL_NOT_ATTEMPTED = "lll-not-attempted"            # n beyond LATTICE_MAX_N
    LATTICE_FULL_RANK = "lattice-full-rank"            # U has full column rank (the rank method applies)
    LATTICE_HOPELESS = "lattice-hopeless"              # det(ker U ∩ Z^n)^(1/r) < √n: no basis meets the bound
    LATTICE_KERNEL_TOO_LARGE = "lattice-kernel-too-large"  # the kernel of the sampled rows is larger than ker U
    LATTICE_GRAM_SCHMIDT = "lattice-gram-schmidt"      # the Gram–Schmidt bound fails (no enumeration asked)
    LATTICE_ENUM_LIMIT = "lattice-enum-limit"          # the ball's enumeration exceeds its node or point limit
    LATTICE_CVP_INTEGER_CENTRE = "lattice-cvp-integer-centre"  # fplll's sign rule does not apply
    LATTICE_CVP_NODES = "lattice-cvp-nodes"            # the estimated enumeration exceeds CVP_MAX_NODES
    LATTICE_CVP_TIME = "lattice-cvp-time"              # the estimated enumeration exceeds the time left
    LATTICE_CVP_POINTS = "lattice-cvp-points"          # the ball holds too many points, or took too many nodes
    ENUMERATE_TOO_LARGE = "enumerate-too-large"        # the kernel mod p is beyond ENUMERATE_MAX_FREE
    MITM_TOO_LARGE = "mitm-too-large"                  # n beyond MITM_MAX_N
    RANK_PROFILE_MEMORY = "rank-profile-memory"        # the rank profile needs more memory than is left
    RANK_PROFILE_TIME = "rank-profile-time"            # the rank profile needs more time than is left
    # where a search was when its time ran out (the ``detail`` of a timeout)
    AT_SIZE = "at-size"                                # n = …
    AT_CANDIDATES = "at-candidates"                    # kernel dimension r, candidates left
    AT_SUBSET_SUMS = "at-subset-sums"                  # meet in the middle: the subset sums built
    AT_MATCHING = "at-matching"                        # meet in the middle: matching
    AT_LLL = "at-lll"                                  # LLL in a dimension
    AT_BKZ = "at-bkz"                                  # BKZ-``block`` in a dimension
    AT_DIMENSION = "at-dimension"                      # an enumeration in a dimension
    AT_ENUM_NODES = "at-enum-nodes"                    # ``nodes`` enumeration nodes in a dimension
    AT_LBFGS = "at-lbfgs"                              # L-BFGS after ``evaluations``
    AT_EXACT_CHECK = "at-exact-check"                  # the exact check of the rounded y
    AT_FRANK_WOLFE = "at-frank-wolfe"                  # a Frank–Wolfe iteration (the box method of Theorem 4)
    AT_MODP_POINTS = "at-modp-points"                  # 2^``free`` points mod ``p``
    AT_ORIENTATIONS = "at-orientations"                # 2^``free`` orientations
    NO_TIME_LEFT = "no-time-left"
    Z3_TIME = "z3-time"                                # z3 not attempted: its formula needs more time than is left
    Z3_MEMORY = "z3-memory"                            # z3 not attempted: its formula needs more memory than is left
    Z3_NO_TIME = "z3-no-time"                          # no time left for the solver
    Z3_UNSAT = "z3-unsat"                              # z3 answered unsat: not a certificate the checker re-verifies
    Z3_UNKNOWN = "z3-unknown"                          # z3 answered unknown (``answer``: z3's own word)
    Z3_SPURIOUS_ROW = "z3-spurious-row"                # z3's candidate violates an encoded row
    Z3_SPURIOUS = "z3-spurious"                        # z3 kept returning spurious candidates
    Z3_SAID = "z3-said"                                # z3 answered unknown (``answer``: its reason_unknown)
    Z3_MODEL_NOT_RATIONAL = "z3-model-not-rational"    # z3's model has an irrational value (``error``)
    Z3_MODEL_FAILED = "z3-model-failed"                # z3's model failed the exact re-evaluation
    METHOD_ERROR = "method-error"                      # a method gave up on an arithmetic error (``error``)
    # why a Farkas-tree proof of a premise did not finish (reluid.analysis.deep.farkas)
    FARKAS_NODE_BUDGET = "farkas-node-budget"          # ``max_nodes`` visited, ``open`` nodes left
    FARKAS_TIMEOUT = "farkas-timeout"                  # ``seconds`` ran out, ``open`` nodes left
    FARKAS_INTERNAL = "farkas-internal"                # an internal inconsistency (``error``: its message)
    # the state of an exact region enumeration (reluid.analysis.deep.regions)
    REGIONS_NOT_RUN = "regions-not-run"
    REGIONS_COMPLETE = "regions-complete"              # ``regions`` found with ``lps`` exact LPs
    REGIONS_STOPPED = "regions-stopped"                # by ``max_regions``, or by the time limit when it is None
    # how an alignment was decided (reluid.analysis.deep.align)
    ALIGN_SAME_ORBIT = "align-same-orbit"              # found by ``method``; ``names`` of the two networks
    ALIGN_DEPTHS = "align-depths"                      # different numbers of layer maps
    ALIGN_WIDTHS = "align-widths"                      # a hidden layer of different widths
    ALIGN_UNMATCHED = "align-unmatched"                # the first layer map whose canonical rows do not match
    ALIGN_TIES_STOPPED = "align-ties-stopped"          # tied rows, and the exhaustive orbit search stopped
    ALIGN_TIES_NO_ELEMENT = "align-ties-no-element"    # tied rows, and the exhaustive search finds no element
    # how an equivalence was decided (reluid.analysis.deep.equivalence, reluid.analysis.shallow.function)
    EQUIV_SAME_FUNCTION_DATA = "equiv-same-function-data"
    EQUIV_FUNCTION_DATA_DIFFER = "equiv-function-data-differ"
    EQUIV_SAME_ORBIT = "equiv-same-orbit"              # ``alignment``: the alignment's reason
    EQUIV_DIFFERENT_ARCHITECTURES = "equiv-different-architectures"
    EQUIV_FLOAT_SEARCH = "equiv-float-search"          # the outputs differ at a probe (``probes``, ``orbits``)
    EQUIV_REGION_DIFFER = "equiv-region-differ"        # the affine maps differ on a joint region
    EQUIV_REGION_AGREE = "equiv-region-agree"          # the affine maps agree on every joint region
    EQUIV_Z3_FOUND = "equiv-z3-found"
    EQUIV_REGION_FOUND = "equiv-region-found"          # a float search in the user's region found the input
    EQUIV_UNDECIDED = "equiv-undecided"                # ``notes``: what each phase came to; ``orbits``
    EQUIV_NO_PROBE_DIFFERENCE = "equiv-no-probe-difference"
    EQUIV_REGION_SPLIT_STOPPED = "equiv-region-split-stopped"  # ``walk``: the region walk's reason
    EQUIV_TOO_LARGE = "equiv-too-large"                # beyond the region split's limits
    EQUIV_Z3_UNSAT = "equiv-z3-unsat"                  # z3's unsat, not an exact proof
    EQUIV_Z3_UNKNOWN = "equiv-z3-unknown"              # ``answer``: why z3 gave no answer
    EQUIV_NO_TIME_FOR_Z3 = "equiv-no-time-for-z3"
    H4_MOVE_UNDECIDED = "h4-move-undecided"            # a dead-side translation (``neuron``, ``delta``) not decided
    # an exact reduction stopped (reluid.analysis.reduction)
    REDUCTION_STOPPED = "reduction-stopped"            # the time budget ran out; every step so far is exact


def _json_value(v):
    """``v`` as read-only JSON data: floats as their exact ``"p/q"``, reasons as ``{"code", "params"}``."""
    if isinstance(v, Reason):
        return MappingProxyType({"code": v.code, "params": v.params})
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, (float, Fraction)):
        q = Fraction(v)
        return q.numerator if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
    if isinstance(v, Mapping):
        return MappingProxyType({str(k): _json_value(x) for k, x in v.items()})
    if isinstance(v, (list, tuple)):
        return tuple(_json_value(x) for x in v)
    raise TypeError(f"a reason's parameter must be JSON data, not {type(v).__name__}")


@dataclass(frozen=True, slots=True)
class Reason:
    """Why an answer is unknown, as data: a :class:`ReasonCode` and its parameters.

    ``params`` is read-only JSON data (floats, which certificates do not
    hold, are kept as their exact ``"p/q"``; a nested reason as its
    ``{"code", "params"}`` mapping).  A code read from a certificate that this
    version does not know stays a plain string.  Reasons never take part in a
    verdict: the checker does not read them.

    >>> r = Reason(ReasonCode.FUNDIM_MEMORY, {"estimate_gb": 0.5, "cap_gb": 2})
    >>> r.code, dict(r.params), r.to_dict()["params"]["estimate_gb"]
    ('fundim-memory', {'estimate_gb': '1/2', 'cap_gb': 2}, '1/2')
    """

    code: ReasonCode | str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self):
        code = self.code.value if isinstance(self.code, enum.Enum) else self.code
        object.__setattr__(self, "code", ReasonCode(code) if code in ReasonCode._value2member_map_ else code)
        object.__setattr__(self, "params", _json_value(self.params))

    def __hash__(self) -> int:
        """A reason is a value (results that hold one stay hashable): the hash of its code and parameters."""
        def key(v):
            if isinstance(v, Mapping):
                return tuple(sorted((k, key(x)) for k, x in v.items()))     # keys are unique strings
            return tuple(key(x) for x in v) if isinstance(v, tuple) else v
        return hash((str(self.code), key(self.params)))

    def to_dict(self) -> dict:
        """``{"code": ..., "params": {...}}`` in plain dicts and lists (for JSON)."""
        def thaw(v):
            if isinstance(v, Mapping):
                return {k: thaw(x) for k, x in v.items()}
            return [thaw(x) for x in v] if isinstance(v, tuple) else v
        return {"code": str(self.code), "params": thaw(self.params)}
