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
  having none, neither is a proof).

For two hidden layers (input dimension >= 2) it first decides the hypotheses of
docs/mathematics.md §8 (:mod:`reluid.analysis.deep.two_layers`).  When they hold, the
theorem settles the question: ``no-hidden-symmetries`` when neither layer has a flip set
(Corollary 8.3), ``hidden-symmetry`` with the witness θ^{F1,F2} otherwise.  When they fail
the mechanisms are searched as for any depth, and the reason of an ``unknown`` says which
hypothesis failed.  No other deep network is ever answered ``no-hidden-symmetries``.

The result is a frozen :class:`DeepDecision`;
:func:`reluid.certificates.build.certificate_from_deep_decision` turns it into a certificate.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from reluid.analysis.deep.fundim import FunDimResult, functional_dimension
from reluid.analysis.deep.mechanisms import (ALWAYS_ACTIVE, Activity, Mechanism, MechanismReport, check_deep,
                                             detect_mechanisms)
from reluid.analysis.deep.two_layers import TwoLayerResult, analyse_two_layers
from reluid.analysis.deep.orbit import same_orbit
from reluid.analysis.progress import phases
from reluid.model.network import Network
from reluid.verdicts import Verdict

__all__ = ["DeepDecision", "decide_deep", "agreement_inputs"]


@dataclass(frozen=True, slots=True)
class DeepDecision:
    """The outcome of :func:`decide_deep`.

    Attributes
    ----------
    verdict : Verdict
        ``HIDDEN`` or ``UNKNOWN``; ``NO_HIDDEN`` only by docs/mathematics.md §8 (``theorem``).
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
    reason : str or None
        Why the verdict is unknown.
    seed, timeout, prover_mode
        How the decision was made (recorded by the certificate's producer).
    theorem : TwoLayerResult or None
        The checks of docs/mathematics.md §8 (two hidden layers).  When the verdict rests on
        them, ``mechanism`` is None and ``witness`` is θ^{F1,F2} (hidden symmetry).
    """

    verdict: Verdict
    network: Network
    report: MechanismReport
    mechanism: Mechanism | None = None
    witness: Network | None = None
    delta: Fraction | None = None
    inputs: tuple[tuple[Fraction, ...], ...] = ()
    fundim: FunDimResult | None = None
    reason: str | None = None
    seed: int = 0
    timeout: float | None = None
    prover_mode: str = "auto"
    theorem: TwoLayerResult | None = None


def agreement_inputs(n0: int, seed: int, count: int) -> tuple[tuple[Fraction, ...], ...]:
    """Exact dyadic inputs at which θ and θ′ are compared (deterministic in ``seed``)."""
    rng = random.Random(f"reluid-deep-agree-{seed}")
    return tuple(tuple(Fraction(round(rng.gauss(0.0, 1.0) * (1 + 7 * (k % 3)) * 1024), 1024) for _ in range(n0))
                 for k in range(count))


def _zero_rows(net: Network) -> tuple[int, ...]:
    return tuple(sum(1 for w, b in zip(L.weight, L.bias) if not any(w) and not b) for L in net.layers[:-1])


def _witness_for(net: Network, m: Mechanism, inputs) -> tuple[Network, Fraction] | None:
    """θ′ for mechanism m outside the orbit of θ and agreeing on ``inputs``, or None."""
    for delta in (Fraction(1), Fraction(2), Fraction(1, 2), Fraction(3)):
        theta2 = m.witness(net, delta)
        if theta2 == net or same_orbit(net, theta2) is not None:
            continue
        if all(net(x) == theta2(x) for x in inputs):
            return theta2, delta
        return None  # the premise is wrong (cannot happen for a sound premise): never certify it
    return None


def decide_deep(net: Network, *, timeout: float = 60.0, seed: int = 0, prover: str = "auto",
                samples: int = 16, fundim: bool = True, fundim_points: int | None = None,
                progress: bool = False) -> DeepDecision:
    """Find a certified hidden symmetry of a network with >= 2 hidden layers, or say what is known.

    Parameters
    ----------
    net : Network
        At least two hidden layers (shallow networks belong to
        ``reluid.analysis.shallow``).
    timeout : float, keyword-only
        Seconds for the Farkas-tree prover, all premise questions together.
    seed : int, keyword-only
        Seeds probes, agreement inputs and the functional-dimension sample.
    prover : {"auto", "always", "never"}, keyword-only
        See :func:`~reluid.analysis.deep.mechanisms.detect_mechanisms`.
    samples : int, keyword-only
        Number of exact random inputs at which θ and θ′ are compared.
    fundim : bool, keyword-only
        Compute the certified functional dimension (always done for ``unknown``).
    fundim_points : int, optional, keyword-only
        Sample size for it (default 100 U).
    progress : bool, keyword-only
        Show which phase is running (when rich is installed and stderr is a terminal).

    Returns
    -------
    DeepDecision
        ``HIDDEN`` (with a witness) or ``UNKNOWN`` (with a reason);
        ``NO_HIDDEN`` only for two hidden layers by docs/mathematics.md §8.

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
    with phases(progress) as phase:
        theorem = None
        if len(net.hidden_widths) == 2:
            phase("two hidden layers (docs/mathematics.md §8)")
            theorem = analyse_two_layers(net, timeout=timeout)
            if theorem.verdict is not Verdict.UNKNOWN:
                got = _by_theorem(net, theorem, timeout=timeout, seed=seed, prover=prover, samples=samples,
                                  fundim=fundim, fundim_points=fundim_points, phase=phase)
                if got is not None:
                    return got
        phase("mechanism detection")
        report = detect_mechanisms(net, timeout=timeout, seed=seed, prover=prover)
        phase("witness construction")
        return _decide(net, report, timeout=timeout, seed=seed, prover=prover, samples=samples, fundim=fundim,
                       fundim_points=fundim_points, phase=phase, theorem=theorem)


def _by_theorem(net, theorem: TwoLayerResult, *, timeout, seed, prover, samples, fundim, fundim_points,
                phase) -> DeepDecision | None:
    """The verdict of docs/mathematics.md §8 (H0–H4 hold), or None if its witness fails a sanity check."""
    report = MechanismReport(net.architecture, (), Activity(), (), (), (), 0)
    inputs = agreement_inputs(net.input_dim, seed, samples)
    fd = None
    if fundim:
        phase("functional dimension")
        fd = functional_dimension(net, method="cells", seed=seed, points=fundim_points)
    common = dict(network=net, report=report, inputs=inputs, fundim=fd, seed=seed, timeout=timeout,
                  prover_mode=prover, theorem=theorem)
    if theorem.verdict is Verdict.NO_HIDDEN:
        return DeepDecision(Verdict.NO_HIDDEN, **common)
    theta2 = theorem.witness
    if theta2 == net or same_orbit(net, theta2) is not None or any(net(x) != theta2(x) for x in inputs):
        return None     # cannot happen (Propositions 8.11, 8.12); never certify it
    return DeepDecision(Verdict.HIDDEN, witness=theta2, **common)


def _decide(net, report, *, timeout, seed, prover, samples, fundim, fundim_points, phase,
            theorem=None) -> DeepDecision:
    inputs = agreement_inputs(net.input_dim, seed, samples)
    zero = _zero_rows(net)

    def preference(m: Mechanism):
        # checkable first; avoid witnesses whose orbit question the checker's canonical form cannot settle
        order = {"affine": 0, "identity": 1, "orthant": 2, "farkas": 3}[m.method]
        degenerate = any(zero) and m.kind != ALWAYS_ACTIVE
        return (order, degenerate)

    chosen = None
    for m in sorted(report.mechanisms, key=preference):
        got = _witness_for(net, m, inputs)
        if got is not None:
            chosen = (m, *got)
            break
    fd = None
    if fundim or chosen is None:
        phase("functional dimension")
        fd = functional_dimension(net, points=fundim_points, seed=seed)
    common = dict(network=net, report=report, inputs=inputs, fundim=fd, seed=seed, timeout=timeout,
                  prover_mode=prover, theorem=theorem)
    if chosen is not None:
        m, theta2, delta = chosen
        return DeepDecision(Verdict.HIDDEN, mechanism=m, witness=theta2, delta=delta, **common)
    reason = (f"no mechanism of hidden symmetry certified for the deep architecture {net.architecture}: "
              f"{report.summary()}")
    if report.undecided:
        shown = "; ".join(f"{q} ({why})" for q, why in report.undecided[:5])
        more = f" and {len(report.undecided) - 5} more" if len(report.undecided) > 5 else ""
        reason += f". Undecided: {shown}{more}"
    if theorem is not None:
        reason += f". Two hidden layers: {theorem.reason}"
    reason += f". Functional dimension: {fd.describe()}"
    if fd.certified:
        reason += (". dim_fun = U is consistent with no hidden symmetries but does not prove it; no complete "
                   "method is known for deep networks")
    return DeepDecision(Verdict.UNKNOWN, reason=reason, **common)
