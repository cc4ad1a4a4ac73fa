"""Turn analysis results into certificates (Result → Certificate)."""

from __future__ import annotations


from reluid.certificates.schema import Certificate, Claim, Trust, Verdict, Witness
from reluid.model.network import Network

__all__ = ["certificate_from_decision", "paper_condition_claim", "producer_info"]

REF_EXACT = "docs/mathematics.md §2 (exact flip-set criterion on the generic stratum; sharpens Ramakrishnan 2026, Prop. 24)"
REF_GENERIC = "Ramakrishnan 2026, Lemma 23 (V1–V3); docs/mathematics.md §2"
REF_PATTERNS = "docs/mathematics.md §4 (realisation patterns outside the generic stratum); Ramakrishnan 2026, Prop. 14, Thm 3"
REF_MECH = {
    "dead-output": "Ramakrishnan 2026, Lemma 10",
    "constant-neuron": "Ramakrishnan 2026, Lemma 11(2)",
    "merge-proportional": "Ramakrishnan 2026, Lemma 11(1)",
    "shift-cancelling-pair": "Ramakrishnan 2026, Prop. 14 (σ(z) − σ(−z) = z)",
    "dependent-pairs": "docs/mathematics.md §4 (opposite pairs carry adjustable linear terms)",
    "pattern": "docs/mathematics.md §4 (realisation patterns)",
    "flip-set": "docs/mathematics.md §2 (flip sets); Ramakrishnan 2026, §1 (θ1, θ2)",
}


def producer_info(**extra) -> dict:
    from reluid import __version__
    info = {"reluid": __version__}
    try:
        import flint
        info["python-flint"] = flint.__version__
    except Exception:  # pragma: no cover
        pass
    info.update({k: v for k, v in extra.items() if v is not None})
    return info


def paper_condition_claim(theta, cid: str = "paper-condition") -> Claim:
    """The paper's sufficient condition (Prop. 24, V4 per output), as an information claim."""
    from reluid.analysis.shallow.zariski import V4_MAX_N, evaluate

    if theta.n > V4_MAX_N:
        return Claim(cid, "paper-condition",
                     f"the paper's sufficient condition was not enumerated (n = {theta.n} > {V4_MAX_N}; "
                     "its (3ⁿ − 1)/2 vectors β per output are not checked one by one)",
                     "Ramakrishnan 2026, Proposition 24 / Theorem 5 (V4)",
                     {"holds": None, "method": "not-enumerated"}, Trust.CHECKED, role="information")
    ev = evaluate(theta)
    fam = next(f for f in ev.families if f.family == "V4")
    evidence = {"holds": fam.holds, "method": "enumerate" if fam.holds is not None else "not-enumerated",
                "checked": fam.checked, "total": fam.total, "violations": fam.violation_count}
    if fam.holds is False:
        v = fam.violations[0]
        evidence["violation"] = {"beta": list(v.index), "output": v.output or 0}
        text = (f"the paper's sufficient condition fails: Σ β(i) v_i a_i = 0 for β = {list(v.index)}"
                + (f" (output {v.output + 1})" if v.output is not None else ""))
    elif fam.holds:
        text = "the paper's sufficient condition holds: Σ β(i) v_i a_i ≠ 0 for every β ∈ {0,±1}ⁿ∖0"
    else:
        text = f"the paper's sufficient condition was not enumerated ({fam.note or 'n too large'})"
    return Claim(cid, "paper-condition", text, "Ramakrishnan 2026, Proposition 24 / Theorem 5 (V4)",
                 evidence, Trust.CHECKED, role="information")


EMBED_MAX_PARAMS = 20_000


def certificate_from_decision(net: Network, decision, *, embed: bool | None = None, timeout=None, seed=0,
                              paper_condition: bool = True) -> Certificate:
    """Build the certificate for a shallow :class:`~reluid.analysis.shallow.decide.Decision`.

    ``embed=None`` embeds the network when it has at most ``EMBED_MAX_PARAMS``
    parameters; larger certificates name it by hash and are checked with
    ``reluid check CERT --network NET``.
    """
    if embed is None:
        embed = net.n_params <= EMBED_MAX_PARAMS
    theta = decision.theta
    claims: list[Claim] = []
    v = decision.verdict
    st = decision.stratum
    if st == "empty":
        claims.append(Claim("empty", "empty", "the network has no hidden neurons, so its fibre is {θ}",
                            "Ramakrishnan 2026, §2.1", {}))
    if st == "generic":
        claims.append(Claim("generic", "generic-stratum",
                            "every output column m_i ≠ 0, every a_i ≠ 0, and the rows (a_i, b_i) are "
                            "pairwise linearly independent; so the fibre is the union of the orbits of "
                            "θ_F over flip sets F",
                            REF_GENERIC, {"method": "normalised-rows"}))
        f = decision.flip
        if f is not None and f.status == "none":
            claims.append(Claim("no-flip-set", "no-flip-set",
                                "no nonempty F ⊆ [n] has Σ_{i∈F} m_i a_iᵀ = 0",
                                REF_EXACT, f.evidence, Trust(f.trust), solver=f.solver))
        if f is not None and f.status == "found":
            claims.append(Claim("flip-set", "flip-set",
                                f"F = {{{', '.join(str(i + 1) for i in sorted(f.flip_set))}}} is a flip set: "
                                "Σ_{i∈F} m_i a_iᵀ = 0",
                                REF_EXACT, {"flip_set": sorted(f.flip_set)}))
    if st == "opposite-pairs" and decision.pattern is not None:
        claims.append(Claim("essential", "essential-stratum",
                            "no dead or constant neuron, no positively proportional rows, every opposite "
                            "pair has a nonzero kink, and the pair directions are linearly independent",
                            REF_PATTERNS, {}))
        if decision.pattern.get("status") == "unsat":
            claims.append(Claim("patterns", "pattern-search",
                                "no realisation pattern of ρ(θ) with n neurons other than θ's own exists",
                                REF_PATTERNS, {"method": "z3", "classes": decision.pattern["classes"],
                                               "pairs": decision.pattern["pairs"]},
                                Trust.SOLVER, solver=decision.pattern["solver"]))
    witness = None
    if v is Verdict.HIDDEN:
        mech = decision.mechanism
        witness = Witness(mech, decision.witness.to_network(name="witness"), dict(decision.details))
        claims.append(Claim("witness", "witness",
                            "θ′ computes the same function as θ and is not in the H_n-orbit of θ",
                            REF_MECH.get(mech, "docs/mathematics.md §4"), {"mechanism": mech}))
    if paper_condition and theta.n > 0 and all(any(theta.A[i]) for i in range(theta.n)):
        claims.append(paper_condition_claim(theta))
    producer = producer_info(seed=seed, timeout_s=str(timeout) if timeout is not None else None,
                             stratum=st,
                             fibre_orbits=decision.fibre_orbits)
    return Certificate(verdict=v, network_sha256=net.sha256(), architecture=net.architecture,
                       claims=tuple(claims), network=net if embed else None, witness=witness,
                       reason=decision.reason, producer=producer, assumption=net.assumption)
