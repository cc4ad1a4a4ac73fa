"""The hidden-symmetry decision for networks with two or more hidden layers.

No complete decision procedure for hidden symmetries of deep ReLU networks is
known (Grigsby, Lindsey, Rolnick 2023, Section 5).  :func:`decide_deep`
therefore answers one of two ways:

* ``hidden-symmetry`` with an explicit θ′ when a mechanism is certified
  (:mod:`reluid.analysis.deep.mechanisms`).  θ′ is built by the mechanism's
  exact construction, is checked to lie outside the orbit of θ
  (:func:`~reluid.analysis.deep.orbit.same_orbit`, an exhaustive search), and
  to agree with θ at random exact rational inputs;
* ``unknown`` otherwise, with a reason stating what was checked and the
  certified functional dimension (Grigsby, Lindsey, Rolnick 2023, Lemma F.6:
  dim_fun < U is evidence of hidden symmetries, dim_fun = U is consistent with
  having none, neither is a proof), and, when the rank is D - N, that θ is
  locally identifiable (Theorem A1, docs/mathematics.md §6), which says nothing
  about parameters far from θ.

Every phase runs inside one :class:`~reluid.budget.Budget`, cheap and informative
phases first, each with its named share of what is left (:data:`reluid.budget.SHARES`):
mechanism detection and activity witnesses, then (two hidden layers) the certificate of
docs/mathematics.md §8, then witness construction and the functional dimension.  When the
budget runs out the verdict is ``unknown`` and :attr:`DeepDecision.budget_note` says what
was done and what was left; what a size limit excluded is in :attr:`DeepDecision.size_note`.

For two hidden layers (input dimension >= 2) the hypotheses of docs/mathematics.md §8
(:mod:`reluid.analysis.deep.two_layers`) are decided after mechanism detection, unless a
simple mechanism (:data:`SIMPLE_KINDS`: zero outgoing weights, a dead, proportional or
always-active neuron) already names the hidden symmetry.  When they hold, the theorem
settles the question: ``no-hidden-symmetries`` when neither layer has a flip set
(Corollary 8.3), ``hidden-symmetry`` with the witness θ^{F1,F2} otherwise.  When they fail
the mechanisms found decide as for any depth, and the reason of an ``unknown`` says which
hypothesis failed.  For three hidden layers the certificate of docs/mathematics.md §12.11
(:mod:`reluid.analysis.deep.three_layers`: clash points, Corollary 12.15, trivial flip families)
is tried in the same place; it only ever gives ``no-hidden-symmetries``.  No other deep network is
ever answered ``no-hidden-symmetries``.  The
witness is named by the simplest mechanism that explains it (:func:`preference`).

The result is a frozen :class:`DeepDecision`;
:func:`reluid.certificates.build.certificate_from_deep_decision` turns it into a certificate.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass
from fractions import Fraction

from reluid.analysis.deep.fundim import FunDimResult, functional_dimension
from reluid.analysis.deep.mechanisms import (AFFINE_FLIP, ALWAYS_ACTIVE, COLLAPSED_KINK, DEAD, LAYER_FLIP,
                                             NEVER_COACTIVE, PROPORTIONAL, ZERO_OUTGOING, Mechanism,
                                             MechanismReport, check_deep, detect_mechanisms)
from reluid.analysis.deep.three_layers import ThreeLayerResult, analyse_three_layers
from reluid.analysis.deep.two_layers import TwoLayerResult, analyse_two_layers
from reluid.analysis.deep.orbit import same_orbit
from reluid.analysis.progress import phases
from reluid.budget import MIN_SECONDS, Budget, load_slowdown
from reluid.errors import OrbitSearchExhausted
from reluid.model.network import Network
from reluid.verdicts import PremiseMethod, Reason, ReasonCode, StopReason, Verdict

__all__ = ["DeepDecision", "decide_deep", "agreement_inputs", "SIMPLICITY", "SIMPLE_KINDS", "preference"]

#: The order in which mechanisms name a witness, simplest first: a neuron nothing downstream sees, a neuron
#: that never fires, two neurons that are one, an affine neuron, then the constructions over sets and pairs.
#: A zero outgoing column W^{l+1}[:, i] = 0 makes {i} a layer flip set too; it is named by the simpler cause.
SIMPLICITY = (ZERO_OUTGOING, DEAD, PROPORTIONAL, ALWAYS_ACTIVE, LAYER_FLIP, NEVER_COACTIVE, COLLAPSED_KINK,
              AFFINE_FLIP)
#: Mechanisms that, once found, name the hidden symmetry before the two-layer theorem is tried.
SIMPLE_KINDS = frozenset({ZERO_OUTGOING, DEAD, PROPORTIONAL, ALWAYS_ACTIVE})


@dataclass(frozen=True, slots=True)
class DeepDecision:
    """The outcome of :func:`decide_deep`.

    Attributes
    ----------
    verdict : Verdict
        ``HIDDEN`` or ``UNKNOWN``; ``NO_HIDDEN`` only by docs/mathematics.md §8 or §12.11 (``theorem``).
    network : Network
    report : MechanismReport
        Everything mechanism detection established (premises, activity points,
        layers without flips, open questions).
    mechanism : Mechanism or None
        The mechanism behind the witness.
    witness : Network or None
        θ′, the mechanism's construction, outside the orbit of θ.
    delta : Fraction or None
        The construction's parameter.
    inputs : tuple of tuple of Fraction
        Exact inputs at which θ and θ′ were compared (a sanity check).
    fundim : FunDimResult or None
        The certified functional dimension, when computed.
    reasons : tuple of Reason
        Why the verdict is unknown, one :class:`~reluid.verdicts.Reason` per sentence
        (:mod:`reluid.report.reasons` words them).
    seed, timeout, prover_mode
        How the decision was made (recorded by the certificate's producer).
    theorem : TwoLayerResult or ThreeLayerResult or None
        The checks of docs/mathematics.md §8 (two hidden layers) or §12.11 (three).  When the verdict
        rests on them, ``mechanism`` is None and ``witness`` is θ^{F1,F2} (hidden symmetry, two layers).
    budget_note : Reason or None
        When the time budget ran out: which phases were done and what was left.
    size_note : Reason or None
        What a size limit (not the time budget) excluded, e.g. a functional dimension whose
        memory estimate exceeds the limit.
    phase_seconds : tuple of (str, float)
        Seconds spent in each phase (informational).
    """

    verdict: Verdict
    network: Network
    report: MechanismReport
    mechanism: Mechanism | None = None
    witness: Network | None = None
    delta: Fraction | None = None
    inputs: tuple[tuple[Fraction, ...], ...] = ()
    fundim: FunDimResult | None = None
    reasons: tuple[Reason, ...] = ()
    seed: int = 0
    timeout: float | None = None
    prover_mode: str = "auto"
    theorem: TwoLayerResult | ThreeLayerResult | None = None
    budget_note: Reason | None = None
    phase_seconds: tuple[tuple[str, float], ...] = ()
    size_note: Reason | None = None


def preference(m: Mechanism, zero_rows=()) -> tuple:
    """Sort key of the mechanisms tried for the witness.

    Premises the checker recomputes first (an affine layer 1, an exact identity, a one-signed row; a Farkas
    tree last); then away from witnesses whose orbit question the checker's canonical form cannot settle
    (networks with zero rows); then the simplest kind (:data:`SIMPLICITY`), so that a zeroed outgoing column
    is named as such and not as the layer flip {i} it also is; then the layer and neurons.
    """
    degenerate = any(zero_rows) and m.kind != ALWAYS_ACTIVE
    return (PremiseMethod(m.method).rank, degenerate, SIMPLICITY.index(m.kind), m.layer, m.neurons)


def agreement_inputs(n0: int, seed: int, count: int) -> tuple[tuple[Fraction, ...], ...]:
    """Exact dyadic inputs at which θ and θ′ are compared (deterministic in ``seed``)."""
    rng = random.Random(f"reluid-deep-agree-{seed}")
    return tuple(tuple(Fraction(round(rng.gauss(0.0, 1.0) * (1 + 7 * (k % 3)) * 1024), 1024) for _ in range(n0))
                 for k in range(count))


def _zero_rows(net: Network) -> tuple[int, ...]:
    return tuple(sum(1 for w, b in zip(L.weight, L.bias) if not any(w) and not b) for L in net.layers[:-1])


class _Stopped(Exception):
    """The witness construction's time ran out (``expired()``) before it could say."""


def _witness_for(net: Network, m: Mechanism, inputs, expired=lambda: False) -> tuple[Network, Fraction] | None:
    """θ′ for mechanism m outside the orbit of θ and agreeing on ``inputs``, or None; :class:`_Stopped` when
    ``expired()`` says so first (asked before each θ′, in the orbit search and before each exact input)."""
    for delta in (Fraction(1), Fraction(2), Fraction(1, 2), Fraction(3)):
        if expired():
            raise _Stopped
        theta2 = m.witness(net, delta)
        try:
            if theta2 == net or same_orbit(net, theta2, expired=expired) is not None:
                continue
        except OrbitSearchExhausted:
            if expired():
                raise _Stopped from None
            continue                   # orbit membership undecided: this θ′ proves nothing
        for x in inputs:
            if expired():
                raise _Stopped
            if net(x) != theta2(x):
                return None  # the premise is wrong (cannot happen for a sound premise): never certify it
        return theta2, delta
    return None


def decide_deep(net: Network, *, timeout: float = 60.0, seed: int = 0, prover: str = "auto",
                samples: int = 16, fundim: bool = True, fundim_points: int | None = None,
                progress: bool = False, budget: Budget | None = None) -> DeepDecision:
    """Find a certified hidden symmetry of a network with >= 2 hidden layers, or say what is known.

    Parameters
    ----------
    net : Network
        At least two hidden layers (shallow networks belong to
        ``reluid.analysis.shallow``).
    timeout : float, keyword-only
        Seconds for the whole decision (every phase, the Farkas-tree prover's premise
        questions included), unless ``budget`` is given.
    seed : int, keyword-only
        Seeds probes, agreement inputs and the functional-dimension sample.
    prover : {"auto", "always", "never"}, keyword-only
        See :func:`~reluid.analysis.deep.mechanisms.detect_mechanisms`.
    samples : int, keyword-only
        Number of exact random inputs at which θ and θ′ are compared.
    fundim : bool, keyword-only
        Compute the certified functional dimension (always done for ``unknown``).
    fundim_points : int, optional, keyword-only
        The most sample points for it (default 100 U; the computation stops at U).
    progress : bool, keyword-only
        Show which phase is running (when rich is installed and stderr is a terminal).
    budget : Budget, optional, keyword-only
        The time budget shared with the caller (``reluid certify --timeout``): mechanism
        detection, witness construction and the functional dimension all stop when it
        runs out, and the result says what was done and what was left.  Each phase
        has its named share of what is left (:data:`reluid.budget.SHARES`); the
        functional dimension leaves about a quarter for the certificate and its check.

    Returns
    -------
    DeepDecision
        ``HIDDEN`` (with a witness) or ``UNKNOWN`` (with a reason);
        ``NO_HIDDEN`` only for two hidden layers by docs/mathematics.md §8 and for three by §12.11.

    Raises
    ------
    InvalidArgument
        For a network with fewer than two hidden layers.

    Examples
    --------
    >>> net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
    >>> d = decide_deep(net)
    >>> d.verdict.value, d.mechanism.kind
    ('hidden-symmetry', 'dead-neuron')
    """
    check_deep(net)
    if budget is None:
        budget = Budget(timeout if timeout and timeout != float("inf") else None)
    with phases(progress, budget) as phase:
        # 1. mechanisms and activity witnesses: cheap, informative, and guaranteed their share
        spent = []
        t = time.monotonic()
        phase("mechanism detection")
        report = detect_mechanisms(net, timeout=min(timeout, budget.share_of("premise prover")), seed=seed,
                                   prover=prover, deadline=budget.deadline_of("mechanism detection"))
        spent.append(("mechanism detection", time.monotonic() - t))
        # 2. the two-layer certificate (docs/mathematics.md §8) or the three-layer one (§12.11), unless a simple
        #    mechanism already names the hidden symmetry (a zero outgoing column is a layer flip too, but the
        #    simpler name is the right one)
        theorem = None
        depth = len(net.hidden_widths)
        if depth in (2, 3) and not any(m.kind in SIMPLE_KINDS for m in report.mechanisms):
            name = "two hidden layers" if depth == 2 else "three hidden layers"
            phase(f"{name} (docs/mathematics.md {'§8' if depth == 2 else '§12'})")
            t = time.monotonic()
            analyse = analyse_two_layers if depth == 2 else analyse_three_layers
            theorem = analyse(net, timeout=min(timeout, budget.share_of(name)))
            spent.append((name, time.monotonic() - t))
            if theorem.verdict is not Verdict.UNKNOWN:
                got = _by_theorem(net, theorem, report, timeout=timeout, seed=seed, prover=prover, samples=samples,
                                  fundim=fundim, fundim_points=fundim_points, phase=phase, budget=budget,
                                  spent=spent)
                if got is not None:
                    return got
        # 3. witness construction and the functional dimension
        return _decide(net, report, timeout=timeout, seed=seed, prover=prover, samples=samples, fundim=fundim,
                       fundim_points=fundim_points, phase=phase, budget=budget, spent=spent, theorem=theorem)


def _by_theorem(net, theorem: TwoLayerResult | ThreeLayerResult, report: MechanismReport, *, timeout, seed, prover,
                samples, fundim, fundim_points, phase, budget, spent) -> DeepDecision | None:
    """The verdict of docs/mathematics.md §8 (H0–H4 hold) or §12.11, or None if a witness fails a sanity check."""
    inputs = agreement_inputs(net.input_dim, seed, samples)
    fd = None
    note = None
    if fundim:
        if budget.expired():
            note = _time_budget(budget, True, ["mechanism detection", spent[-1][0]], ["functional dimension"])
        else:
            phase("functional dimension")
            t = time.monotonic()
            fd = functional_dimension(net, method="cells", seed=seed, points=fundim_points,
                                      deadline=budget.deadline_of("functional dimension"), progress=phase.detail)
            spent.append(("functional dimension", time.monotonic() - t))
    phase("certificate")
    common = dict(network=net, report=report, inputs=inputs, fundim=fd, seed=seed, timeout=timeout,
                  prover_mode=prover, theorem=theorem, budget_note=note, phase_seconds=tuple(spent))
    if theorem.verdict is Verdict.NO_HIDDEN:
        return DeepDecision(Verdict.NO_HIDDEN, **common)
    theta2 = theorem.witness
    if theta2 == net or same_orbit(net, theta2) is not None or any(net(x) != theta2(x) for x in inputs):
        return None     # cannot happen (Propositions 8.11, 8.12); never certify it
    return DeepDecision(Verdict.HIDDEN, witness=theta2, **common)


#: CPU seconds per parameter of θ that Theorem A3's search spends before its first point (exact, modular and
#: float copies of θ: 1.7 s at 784-128-128-10 on the reference machine under load).
A3_SETUP_SECONDS_PER_PARAM = 1.5e-5

#: How the full rank of docs/mathematics.md §6.3 stops short of an answer that Theorem A3 might still give.
_UNFINISHED = (StopReason.NOT_ATTEMPTED, StopReason.TIME_BUDGET, StopReason.MEMORY_CAP)


def _by_theorem_a3(net: Network, fd: FunDimResult, seed: int, deadline: float | None) -> FunDimResult:
    """``fd``, or, when Theorem A3 (docs/mathematics.md §6.4) proves rank D - N within ``deadline``, the
    functional dimension it certifies (its points and evidence; dim_fun = U and θ locally identifiable)."""
    from reluid.analysis.deep.triangular import triangular_certificate

    setup = max(MIN_SECONDS, A3_SETUP_SECONDS_PER_PARAM * net.n_params * load_slowdown())
    if deadline is not None and time.monotonic() + setup > deadline:
        return fd                          # not started: its exact and modular copies of θ alone would not fit
    a3 = triangular_certificate(net, seed=seed, deadline=deadline)
    if not a3.full_rank:
        return fd
    return dataclasses.replace(fd, rank=a3.rank, prime=a3.prime, points=a3.points, pivots=(), rows=(),
                               stop_reason=StopReason.UPPER_BOUND, estimate_s=None, estimate_gb=None,
                               memory_cap_gb=None, triangular=a3.evidence())


def _decide(net, report, *, timeout, seed, prover, samples, fundim, fundim_points, phase, budget, spent,
            theorem=None) -> DeepDecision:
    inputs = agreement_inputs(net.input_dim, seed, samples)
    zero = _zero_rows(net)
    done = ["mechanism detection"]
    left = []       # what the time budget left undone
    limits = []     # what a size limit excluded (never reported as a budget)
    if report.out_of_time:
        left.append(Reason(ReasonCode.LEFT_MECHANISM_DETECTION, {"questions": report.out_of_time}))

    chosen = None
    candidates = sorted(report.mechanisms, key=lambda m: preference(m, zero))
    if candidates:
        phase("witness construction")
        t = time.monotonic()
        for n, m in enumerate(candidates):
            if budget.expired():
                left.append(Reason(ReasonCode.LEFT_WITNESS_CONSTRUCTION, {"mechanisms": len(candidates) - n}))
                break
            try:
                got = _witness_for(net, m, inputs, budget.expired)
            except _Stopped:
                left.append(Reason(ReasonCode.LEFT_WITNESS_CONSTRUCTION, {"mechanisms": len(candidates) - n}))
                break
            if got is not None:
                chosen = (m, *got)
                break
        spent.append(("witness construction", time.monotonic() - t))
        done.append("witness construction")
    fd = None
    if fundim or chosen is None:
        phase("functional dimension")
        t = time.monotonic()
        fd = functional_dimension(net, points=fundim_points, seed=seed,
                                  deadline=budget.deadline_of("functional dimension"), progress=phase.detail)
        if not fd.full_rank and fd.stop_reason in _UNFINISHED:
            fd = _by_theorem_a3(net, fd, seed, budget.deadline_of("functional dimension"))
        spent.append(("functional dimension", time.monotonic() - t))
        if fd.complete:
            done.append("functional dimension")
        elif (fd.stop_reason == StopReason.NOT_ATTEMPTED and fd.estimate_gb is not None
              and fd.memory_cap_gb is not None and fd.estimate_gb > fd.memory_cap_gb):
            limits.append(Reason(ReasonCode.FUNDIM_MEMORY, {"estimate_gb": fd.estimate_gb,
                                                            "cap_gb": fd.memory_cap_gb}))
        elif fd.stop_reason == StopReason.NOT_ATTEMPTED:
            need = fd.summary().params
            left.append(Reason(ReasonCode.LEFT_FUNDIM_NOT_STARTED, {k: need[k] for k in ("estimate_s", "estimate_gb",
                                                                                       "cap_gb")}))
        else:
            left.append(Reason(ReasonCode.LEFT_FUNDIM_PARTIAL, {"rank": fd.rank, "upper_bound": fd.upper_bound,
                                                                "estimate_s": fd.estimate_s}))
    phase("certificate")
    note = None
    if left:
        ran_out = budget.expired() or (fd is not None and fd.stop_reason == StopReason.TIME_BUDGET)
        note = _time_budget(budget, ran_out, done, left)
    size_note = Reason(ReasonCode.SIZE_LIMIT, {"limits": limits}) if limits else None
    common = dict(network=net, report=report, inputs=inputs, fundim=fd, seed=seed, timeout=timeout,
                  prover_mode=prover, theorem=theorem, budget_note=note, phase_seconds=tuple(spent),
                  size_note=size_note)
    if chosen is not None:
        m, theta2, delta = chosen
        return DeepDecision(Verdict.HIDDEN, mechanism=m, witness=theta2, delta=delta, **common)
    reasons = [_no_mechanism(net, report)]
    if report.undecided:
        reasons.append(Reason(ReasonCode.UNDECIDED_QUESTIONS, {"questions": report.undecided[:5],
                                                               "more": max(0, len(report.undecided) - 5)}))
    if theorem is not None:
        code = ReasonCode.THREE_HIDDEN_LAYERS if isinstance(theorem, ThreeLayerResult) else ReasonCode.TWO_HIDDEN_LAYERS
        reasons.append(Reason(code, {"theorem": theorem.reason}))
    reasons.append(fd.summary())
    if fd.full_rank:
        reasons.append(Reason(ReasonCode.LOCALLY_IDENTIFIABLE))
    elif fd.certified:
        reasons.append(Reason(ReasonCode.DIM_FUN_IS_U))
    reasons += [r for r in (size_note, note) if r is not None]
    return DeepDecision(Verdict.UNKNOWN, reasons=tuple(reasons), **common)


def _no_mechanism(net: Network, report: MechanismReport) -> Reason:
    """What mechanism detection checked and found (docs/mathematics.md §6.2), as data."""
    act = report.activity
    return Reason(ReasonCode.NO_DEEP_MECHANISM, {
        "architecture": net.architecture, "mechanisms": len(report.mechanisms),
        "hidden": sum(net.architecture[1:-1]), "active": len(act.active), "inactive": len(act.inactive),
        "coactive": len(act.coactive), "no_flip_layers": report.no_flip_layers, "flip_search": report.flip_search,
        "prover_queries": report.prover_queries, "undecided": len(report.undecided)})


def _time_budget(budget: Budget, ran_out: bool, done, left) -> Reason:
    """What the time budget let run (``done``) and left (phase names, or reasons), as data."""
    return Reason(ReasonCode.TIME_BUDGET, {"seconds": budget.seconds, "used": budget.elapsed(),
                                           "ran_out": ran_out, "done": done, "left": left})
