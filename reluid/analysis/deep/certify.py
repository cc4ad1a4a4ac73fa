"""Certificates for networks with two or more hidden layers.

No complete decision procedure for hidden symmetries of deep ReLU networks is
known (Grigsby, Lindsey, Rolnick 2023, Section 5).  :func:`certify_deep`
therefore answers one of two ways:

* ``hidden-symmetry`` with an explicit θ′ when a mechanism is certified
  (:mod:`reluid.analysis.deep.mechanisms`).  θ′ is built by the mechanism's
  exact construction, is checked to lie outside the orbit of θ
  (:func:`~reluid.analysis.deep.mechanisms.orbit_element`, an exhaustive
  search), and to agree with θ at random exact rational inputs, which are
  listed in the certificate for the checker;
* ``unknown`` otherwise, with a reason stating what was checked and the
  certified functional dimension (Grigsby, Lindsey, Rolnick 2023, Lemma F.6:
  dim_fun < U is evidence of hidden symmetries, dim_fun = U is consistent with
  having none, neither is a proof).

It never answers ``no-hidden-symmetries`` for a deep network.

Claim kinds (evidence formats; every number an int or a ``"p/q"`` string):

``deep-dead-neuron``, ``deep-always-active``
    ``{"layer": l, "neuron": i, "method": "affine" | "orthant" | "solver"}``
``deep-never-coactive``
    ``{"layer": l, "upstream": i, "downstream": j, "method": "solver"}``
    (i in hidden layer l - 1, j in hidden layer l)
``deep-layer-flip``
    ``{"layer": l, "neurons": [i, ...], "method": "identity"}``
``deep-witness``
    ``{"mechanism": kind, "layer": l, "neurons": [...], "premise": claim id,
    "network": reluid.network/1 of θ′, "inputs": [[x_1, ..., x_n0], ...]}``
``deep-activity-witnesses`` (information)
    ``{"points": [...], "active": [[l, i, k], ...], "inactive": [[l, i, k], ...],
    "coactive": [[l, i, j, k], ...]}``: z^l_i(points[k]) > 0, < 0, and both
    z^{l-1}_i, z^l_j > 0.
``deep-no-layer-flip`` (information)
    ``{"layers": [l, ...], "prime": p}``: the vectors vec(W^{l+1}[:, i] W^l[i, :])
    have full rank modulo p, hence over Q.
``functional-dimension`` (information)
    ``{"prime": p, "rank": r, "upper_bound": U, "n_params": D, "points": [...]}``:
    the points are parametrically smooth and the Jacobian of θ ↦ (F_θ(z))_z has
    rank >= r modulo p, so dim_fun(θ) >= r.
"""

from __future__ import annotations

import random
from fractions import Fraction

from reluid.analysis.deep.fundim import FunDimResult, functional_dimension
from reluid.analysis.deep.mechanisms import (ALWAYS_ACTIVE, DEAD, LAYER_FLIP, NEVER_COACTIVE, PROPORTIONAL,
                                             ZERO_OUTGOING, Mechanism, MechanismReport, _check_deep,
                                             detect_mechanisms, orbit_element)
from reluid.certificates.schema import Certificate, Claim, Verdict, Witness
from reluid.model.network import Network
from reluid.model.rational import format_rational

__all__ = ["certify_deep", "agreement_inputs", "FLIP_CHECK_PRIME", "CLAIM_KINDS"]

#: Prime used for the exact-rank evidence of ``deep-no-layer-flip``.
FLIP_CHECK_PRIME = 2_147_483_647

CLAIM_KINDS = {DEAD: "deep-dead-neuron", ALWAYS_ACTIVE: "deep-always-active",
               NEVER_COACTIVE: "deep-never-coactive", LAYER_FLIP: "deep-layer-flip",
               ZERO_OUTGOING: "deep-zero-outgoing", PROPORTIONAL: "deep-proportional"}


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
        if theta2 == net or orbit_element(net, theta2) is not None:
            continue
        if all(net(x) == theta2(x) for x in inputs):
            return theta2, delta
        return None  # the premise is wrong (cannot happen for a sound premise): never certify it
    return None


def _premise_claim(m: Mechanism, cid: str) -> Claim:
    kind = CLAIM_KINDS[m.kind]
    if m.kind == NEVER_COACTIVE:
        ev = {"layer": m.layer, "upstream": m.neurons[0], "downstream": m.neurons[1], "method": m.method}
    elif m.kind in (LAYER_FLIP, PROPORTIONAL):
        ev = {"layer": m.layer, "neurons": list(m.neurons), "method": m.method}
    else:
        ev = {"layer": m.layer, "neuron": m.neurons[0], "method": m.method}
    return Claim(id=cid, kind=kind, statement=m.statement, reference=m.reference, evidence=ev,
                 trust=m.trust, role="verdict", solver=dict(m.solver) if m.solver else None)


def _points(pts) -> list:
    return [[format_rational(v) for v in x] for x in pts]


def _information_claims(net: Network, report: MechanismReport, fd: FunDimResult | None) -> list[Claim]:
    claims = []
    a = report.activity
    if a.active or a.inactive or a.coactive:
        claims.append(Claim(
            id="activity", kind="deep-activity-witnesses",
            statement=(f"{len(a.active)} neurons are active somewhere, {len(a.inactive)} are negative somewhere and "
                       f"{len(a.coactive)} adjacent pairs are co-active somewhere (explicit exact inputs), so they "
                       "carry no dead / always-active / never-co-active symmetry"),
            reference="Grigsby, Lindsey, Rolnick 2023, Section 5, mechanisms (i), (ii)",
            evidence={"points": _points(a.points), "active": [list(t) for t in a.active],
                      "inactive": [list(t) for t in a.inactive], "coactive": [list(t) for t in a.coactive]},
            role="information"))
    if report.no_flip_layers:
        claims.append(Claim(
            id="no-layer-flip", kind="deep-no-layer-flip",
            statement=(f"hidden layers {list(report.no_flip_layers)} have no layer flip set: the vectors "
                       "vec(W^{l+1}[:, i] W^l[i, :]) are linearly independent"),
            reference="Grigsby, Lindsey, Rolnick 2023, Section 5, mechanism (iv); flip sets (Ramakrishnan 2026)",
            evidence={"layers": list(report.no_flip_layers), "prime": FLIP_CHECK_PRIME}, role="information"))
    if fd is not None:
        st = (f"dim_fun(θ) = {fd.rank} = U (certified)" if fd.certified else
              f"dim_fun(θ) >= {fd.rank} (certified); upper bound U = {fd.upper_bound}, gap {fd.gap}")
        claims.append(Claim(
            id="fundim", kind="functional-dimension", statement=st,
            reference="Grigsby, Lindsey, Meyerhoff, Wu 2022 (functional dimension); Grigsby, Lindsey, Rolnick 2023, "
                      "Definition F.2, Lemma F.6",
            evidence={"prime": fd.prime, "rank": fd.rank, "upper_bound": fd.upper_bound, "n_params": fd.n_params,
                      "points": _points(fd.points)},
            role="information"))
    return claims


def certify_deep(net: Network, *, timeout: float = 60.0, seed: int = 0, solver: str = "auto",
                 samples: int = 16, fundim: bool = True, fundim_points: int | None = None) -> Certificate:
    """Certify a hidden symmetry of a network with >= 2 hidden layers, or say what is known.

    Parameters
    ----------
    net : Network
        At least two hidden layers (shallow networks belong to
        ``reluid.analysis.shallow``).
    timeout : float, keyword-only
        Seconds for all z3 queries together.
    seed : int, keyword-only
        Seeds probes, z3, agreement inputs and the functional-dimension sample.
    solver : {"auto", "always", "never"}, keyword-only
        See :func:`~reluid.analysis.deep.mechanisms.detect_mechanisms`.
    samples : int, keyword-only
        Number of exact random inputs at which θ and θ′ are compared.
    fundim : bool, keyword-only
        Compute the certified functional dimension (always done for ``unknown``).
    fundim_points : int, optional, keyword-only
        Sample size for it (default 100 U).

    Returns
    -------
    Certificate
        ``hidden-symmetry`` (with a witness) or ``unknown`` (with a reason);
        never ``no-hidden-symmetries``.

    Raises
    ------
    InvalidArgument
        For a network with fewer than two hidden layers.

    Examples
    --------
    >>> net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[-1, -2], [1, 1]], [0, -1]), ([[1, 1]], [0])])
    >>> cert = certify_deep(net)
    >>> cert.verdict.value, cert.witness.mechanism, cert.rests_on_solver
    ('hidden-symmetry', 'dead-neuron', False)
    """
    _check_deep(net)
    report = detect_mechanisms(net, timeout=timeout, seed=seed, solver=solver)
    inputs = agreement_inputs(net.input_dim, seed, samples)
    zero = _zero_rows(net)

    def preference(m: Mechanism):
        # checkable first; avoid witnesses whose orbit question the checker's canonical form cannot settle
        order = {"affine": 0, "identity": 1, "orthant": 2, "solver": 3}[m.method]
        degenerate = any(zero) and m.kind != ALWAYS_ACTIVE
        return (order, degenerate)

    chosen = None
    for m in sorted(report.mechanisms, key=preference):
        got = _witness_for(net, m, inputs)
        if got is not None:
            chosen = (m, *got)
            break
    fd = functional_dimension(net, points=fundim_points, seed=seed) if (fundim or chosen is None) else None
    producer = {"reluid": _version(), "analysis": "reluid.analysis.deep", "seed": seed, "timeout_s": str(timeout),
                "solver_mode": solver, "solver_queries": report.solver_queries}
    if report.solver:
        producer["solver"] = dict(report.solver)
    info = _information_claims(net, report, fd)
    if chosen is not None:
        m, theta2, delta = chosen
        premise = _premise_claim(m, "premise")
        wclaim = Claim(
            id="witness", kind="deep-witness",
            statement=(f"θ′ is obtained from θ by the {m.kind} construction at hidden layer {m.layer} "
                       f"(neurons {[i + 1 for i in m.neurons]}, counted from 1); it computes the same function (given the premise), lies outside "
                       f"the orbit of θ, and agrees with θ at {len(inputs)} listed inputs"),
            reference=m.reference,
            evidence={"mechanism": m.kind, "layer": m.layer, "neurons": list(m.neurons), "premise": "premise",
                      "network": theta2.to_dict(), "inputs": _points(inputs)})
        # shown 1-based, like the layers; the "neurons" fields stay 0-based indices
        where = (f"hidden layer {m.layer - 1} neuron {m.neurons[0] + 1} -> hidden layer {m.layer} neuron "
                 f"{m.neurons[1] + 1}" if m.kind == NEVER_COACTIVE
                 else f"hidden layer {m.layer}, neurons {[i + 1 for i in m.neurons]}")
        witness = Witness(mechanism=m.kind, network=theta2,
                          details={"location": where, "layer": m.layer, "neurons": list(m.neurons),
                                   "delta": delta, "method": m.method, "trust": m.trust.value})
        return Certificate(verdict=Verdict.HIDDEN, network_sha256=net.sha256(), architecture=net.architecture,
                           claims=(premise, wclaim, *info), network=net, witness=witness, producer=producer,
                           assumption=net.assumption)
    reason = (f"no mechanism of hidden symmetry certified for the deep architecture {net.architecture}: "
              f"{report.summary()}")
    if report.undecided:
        shown = "; ".join(f"{q} ({why})" for q, why in report.undecided[:5])
        more = f" and {len(report.undecided) - 5} more" if len(report.undecided) > 5 else ""
        reason += f". Undecided: {shown}{more}"
    reason += f". Functional dimension: {fd.describe()}"
    if fd.certified:
        reason += (". dim_fun = U is consistent with no hidden symmetries but does not prove it; no complete "
                   "method is known for deep networks")
    return Certificate(verdict=Verdict.UNKNOWN, network_sha256=net.sha256(), architecture=net.architecture,
                       claims=tuple(info), network=net, reason=reason, producer=producer,
                       assumption=net.assumption)


def _version() -> str:
    from reluid import __version__
    return __version__
