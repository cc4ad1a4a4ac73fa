"""Turn analysis results into certificates: the only place claims are constructed.

* :func:`certificate_from_decision` -- a shallow
  :class:`~reluid.analysis.shallow.decide.Decision`;
* :func:`certificate_from_deep_decision` -- a
  :class:`~reluid.analysis.deep.decide.DeepDecision`.

Both read the frozen results only (duck-typed: nothing here imports the
analyses), so the data flows one way: analysis → certificate → checker.
"""

from __future__ import annotations

from reluid._version import __version__
from reluid.certificates.schema import PREMISE_KIND, Certificate, Claim, ClaimKind, ClaimRole, Witness
from reluid.model.network import Network
from reluid.model.rational import format_rational
from reluid.verdicts import ConditionMethod, Frame, Mechanism, Outcome, PremiseMethod, Stratum, Verdict

__all__ = ["certificate_from_decision", "certificate_from_deep_decision", "flip_claim", "paper_condition_claim",
           "fundim_claims", "producer_info", "two_layer_evidence", "pinning_evidence", "EMBED_MAX_PARAMS", "FLIP_CHECK_PRIME"]

EMBED_MAX_PARAMS = 20_000

#: Prime used for the exact-rank evidence of ``deep-no-layer-flip``.
FLIP_CHECK_PRIME = 2_147_483_647

REF_EXACT = "docs/mathematics.md §2 (exact flip-set criterion on the generic stratum; sharpens Ramakrishnan 2026, Prop. 24)"
REF_GENERIC = "Ramakrishnan 2026, Lemma 23 (V1–V3); docs/mathematics.md §2"
REF_ESSENTIAL = "docs/mathematics.md §4 (the essential stratum); Ramakrishnan 2026, Prop. 14, Thm 3"
REF_PATTERNS = "docs/mathematics.md §4 (Theorem 4)"
REF_PAPER = "Ramakrishnan 2026, Proposition 24 / Theorem 5 (V4)"
REF_MECH = {
    Mechanism.DEAD_OUTPUT: "Ramakrishnan 2026, Lemma 10",
    Mechanism.CONSTANT_NEURON: "Ramakrishnan 2026, Lemma 11(2)",
    Mechanism.MERGE_PROPORTIONAL: "Ramakrishnan 2026, Lemma 11(1)",
    Mechanism.SHIFT_CANCELLING_PAIR: "Ramakrishnan 2026, Prop. 14 (σ(z) − σ(−z) = z)",
    Mechanism.DEPENDENT_PAIRS: "docs/mathematics.md §4 (opposite pairs carry adjustable linear terms)",
    Mechanism.PATTERN: "docs/mathematics.md §4 (Theorems 1 and 4: realisation patterns)",
    Mechanism.FLIP_SET: "docs/mathematics.md §2 (flip sets); Ramakrishnan 2026, §1 (θ1, θ2)",
}


def producer_info(**extra) -> dict:
    info = {"reluid": __version__}
    try:
        import flint
        info["python-flint"] = flint.__version__
    except Exception:  # pragma: no cover
        pass
    info.update({k: v for k, v in extra.items() if v is not None})
    return info


# ---------------------------------------------------------------------------
# shallow networks
# ---------------------------------------------------------------------------

def flip_claim(result, cid: str = "no-flip-set") -> Claim | None:
    """The claim for a :class:`~reluid.analysis.shallow.flipsets.FlipSetResult` (None when unknown)."""
    if result.outcome is Outcome.NONE:
        return Claim(cid, ClaimKind.NO_FLIP_SET, "no nonempty F ⊆ [n] has Σ_{i∈F} m_i a_iᵀ = 0",
                     REF_EXACT, result.evidence)
    if result.outcome is Outcome.FOUND:
        F = sorted(result.flip_set)
        return Claim("flip-set" if cid == "no-flip-set" else cid, ClaimKind.FLIP_SET,
                     f"F = {{{', '.join(str(i + 1) for i in F)}}} is a flip set: Σ_{{i∈F}} m_i a_iᵀ = 0",
                     REF_EXACT, {"flip_set": F})
    return None


def paper_condition_claim(family, n: int, cid: str = "paper-condition") -> Claim:
    """The paper's sufficient condition (Prop. 24, V4 per output), as an information claim.

    ``family`` is the V4 :class:`~reluid.analysis.shallow.zariski.FamilyResult`.
    """
    if family.outcome is Outcome.UNKNOWN and family.checked == 0:
        return Claim(cid, ClaimKind.PAPER_CONDITION,
                     f"the paper's sufficient condition was not enumerated (n = {n}; its (3ⁿ − 1)/2 vectors β per "
                     "output are not checked one by one)",
                     REF_PAPER, {"holds": None, "method": ConditionMethod.NOT_ENUMERATED},
                     role=ClaimRole.INFORMATION)
    holds = {Outcome.NONE: True, Outcome.FOUND: False, Outcome.UNKNOWN: None}[family.outcome]
    method = ConditionMethod.ENUMERATE if holds is not None else ConditionMethod.NOT_ENUMERATED
    evidence = {"holds": holds, "method": method,
                "checked": family.checked, "total": family.total, "violations": family.violation_count}
    if family.outcome is Outcome.FOUND:
        v = family.violations[0]
        evidence["violation"] = {"beta": list(v.index), "output": v.output or 0}
        text = (f"the paper's sufficient condition fails: Σ β(i) v_i a_i = 0 for β = {list(v.index)}"
                + (f" (output {v.output + 1})" if v.output is not None else ""))
    elif family.outcome is Outcome.NONE:
        text = "the paper's sufficient condition holds: Σ β(i) v_i a_i ≠ 0 for every β ∈ {0,±1}ⁿ∖0"
    else:
        text = f"the paper's sufficient condition was not enumerated ({family.note or 'n too large'})"
    return Claim(cid, ClaimKind.PAPER_CONDITION, text, REF_PAPER, evidence, role=ClaimRole.INFORMATION)


def _embed(net: Network, embed: bool | None) -> bool:
    return net.n_params <= EMBED_MAX_PARAMS if embed is None else embed


def certificate_from_decision(net: Network, decision, *, embed: bool | None = None, timeout=None,
                              seed=0, fundim=None, fundim_note: Reason | None = None) -> Certificate:
    """Build the certificate for a shallow :class:`~reluid.analysis.shallow.decide.Decision`.

    ``embed=None`` embeds the network when it has at most ``EMBED_MAX_PARAMS``
    parameters; larger certificates name it by hash and are checked with
    ``reluid check CERT --network NET``.  ``fundim`` (a
    :class:`~reluid.analysis.deep.fundim.FunDimResult`) adds the functional
    dimension and, when its rank is D - N, the local-identifiability property
    (information claims: the verdict never rests on them); ``fundim_note`` says
    why it was not computed.
    """
    theta = decision.theta
    claims: list[Claim] = []
    v = decision.verdict
    st = decision.stratum
    if st == Stratum.AFFINE:
        claims.append(Claim("affine", ClaimKind.EMPTY, "the network has no hidden layer: it is the affine map "
                            "x ↦ Wx + b, whose linear part is W and whose value at 0 is b, so its fibre is {θ}",
                            "docs/mathematics.md §1", {}))
    if st == Stratum.EMPTY:
        claims.append(Claim("empty", ClaimKind.EMPTY, "the network has no hidden neurons, so its fibre is {θ}",
                            "Ramakrishnan 2026, §2.1", {}))
    if st == Stratum.GENERIC:
        claims.append(Claim("generic", ClaimKind.GENERIC_STRATUM,
                            "every output column m_i ≠ 0, every a_i ≠ 0, and the rows (a_i, b_i) are "
                            "pairwise linearly independent; so the fibre is the union of the orbits of "
                            "θ_F over flip sets F",
                            REF_GENERIC, {"method": "normalised-rows"}))
        if decision.flip is not None:
            claim = flip_claim(decision.flip)
            if claim is not None:
                claims.append(claim)
    if st == Stratum.OPPOSITE_PAIRS and decision.pattern is not None:
        claims.append(Claim("essential", ClaimKind.ESSENTIAL_STRATUM,
                            "no dead or constant neuron, no positively proportional rows, every opposite "
                            "pair has a nonzero kink, and the pair directions are linearly independent",
                            REF_ESSENTIAL, {}))
        if decision.pattern.outcome is Outcome.NONE:
            claims.append(Claim("patterns", ClaimKind.NO_OTHER_PATTERN,
                                "no realisation pattern of ρ(θ) with n neurons other than θ's own exists",
                                REF_PATTERNS, decision.pattern.evidence))
    witness = None
    if v is Verdict.HIDDEN:
        mech = decision.mechanism
        witness = Witness(mech, decision.witness.to_network(name="witness"), dict(decision.details))
        claims.append(Claim("witness", ClaimKind.WITNESS,
                            "θ′ computes the same function as θ and is not in the H_n-orbit of θ",
                            REF_MECH.get(mech, "docs/mathematics.md §4"), {"mechanism": mech}))
    if decision.fibre is not None:
        orbits = len(decision.fibre.flip_sets) + 1
        claims.append(Claim("fibre", ClaimKind.FIBRE_ORBITS,
                            f"the fibre of θ is the disjoint union of {orbits} H_n-orbits, one per flip set "
                            "(∅ included): the orbits of θ_F", REF_EXACT,
                            {**decision.fibre.evidence, "orbits": orbits,
                             "flip_sets": [sorted(F) for F in decision.fibre.flip_sets]}, role=ClaimRole.INFORMATION))
    if decision.paper_condition is not None:
        claims.append(paper_condition_claim(decision.paper_condition, theta.n))
    if fundim is not None and fundim.points:
        claims.extend(fundim_claims(fundim))
    producer = producer_info(seed=seed, timeout_s=str(timeout) if timeout is not None else None,
                             stratum=st, fibre_orbits=decision.fibre_orbits, local_identifiability=fundim_note.to_dict() if fundim_note else None)
    return Certificate(verdict=v, network_sha256=net.sha256(), architecture=net.architecture,
                       claims=tuple(claims), network=net if _embed(net, embed) else None, witness=witness,
                       reasons=decision.reasons, producer=producer, assumption=net.assumption)


# ---------------------------------------------------------------------------
# deep networks
# ---------------------------------------------------------------------------

def _points(pts) -> list:
    return [[format_rational(v) for v in x] for x in pts]


REF_FUNDIM = ("Grigsby, Lindsey, Meyerhoff, Wu 2022 (functional dimension); Grigsby, Lindsey, Rolnick 2023, "
              "Definition F.2, Lemma F.6; docs/mathematics.md §6 (Lemma R: region rows)")
REF_LOCAL = ("docs/mathematics.md §6, Theorem A1 (a special case of Bona-Pellissier, Bachoc, Malgouyres 2022, "
             "Theorem 9, as read in a submission version)")


def _fundim_evidence(fd) -> dict:
    if fd.triangular is not None:          # Theorem A3 (docs/mathematics.md §6.4, method ``triangular``)
        return {**fd.triangular, "rank": fd.rank, "upper_bound": fd.upper_bound, "n_params": fd.n_params}
    return {"prime": fd.prime, "rank": fd.rank, "upper_bound": fd.upper_bound, "n_params": fd.n_params,
            "points": _points(fd.points), "pivots": [list(t) for t in fd.pivots],
            "rows": [list(t) for t in fd.rows]}


def fundim_claims(fd) -> list[Claim]:
    """The functional-dimension claim of a :class:`~reluid.analysis.deep.fundim.FunDimResult`, and the
    local-identifiability claim when its rank is D - N (both information: no verdict rests on them)."""
    n = len(fd.points)
    if fd.certified and fd.triangular is not None:
        st = (f"dim_fun(θ) = {fd.rank} = U (certified by Theorem A3, docs/mathematics.md §6.4): at generic points "
              f"of the activation regions of {n} listed points, combinations of Jacobian rows form a block-"
              f"triangular matrix whose diagonal blocks have ranks summing to {fd.rank} = D - N modulo {fd.prime}")
    elif fd.certified:
        st = (f"dim_fun(θ) = {fd.rank} = U (certified): the Jacobian of θ ↦ (F_θ(z))_z at generic points of the "
              f"activation regions of {n} listed points has rank {fd.rank} modulo {fd.prime}")
    elif fd.complete:
        st = (f"dim_fun(θ) >= {fd.rank} (certified lower bound); upper bound U = {fd.upper_bound}, gap {fd.gap}: "
              f"the rank stayed below U at every point tried ({fd.n_sampled} points, {fd.n_regions} activation "
              "regions), which is evidence of hidden symmetries at parameters arbitrarily close to θ (Grigsby, "
              "Lindsey, Rolnick 2023, Lemma F.6), not a verdict: θ itself may have none (|x| = σ(x) + σ(−x); "
              "docs/mathematics.md §6.3)")
    else:
        st = (f"dim_fun(θ) >= {fd.rank} (certified lower bound; the computation stopped at the time budget); upper "
              f"bound U = {fd.upper_bound}")
    claims = [Claim(id="fundim", kind=ClaimKind.FUNCTIONAL_DIMENSION, statement=st, reference=REF_FUNDIM,
                    evidence=_fundim_evidence(fd), role=ClaimRole.INFORMATION)]
    if fd.full_rank:
        ev = _fundim_evidence(fd)
        ev["hypotheses"] = ("every listed point is generic (no hidden pre-activation is 0); the Jacobian rank is "
                            "D - N; no hidden neuron has a zero incoming row and bias")
        claims.append(Claim(
            id="local-identifiability", kind=ClaimKind.LOCAL_IDENTIFIABILITY,
            statement=("θ is locally identifiable: there is a neighbourhood of θ, invariant under positive "
                       "rescalings, in which every parameter computing the same function as θ (indeed agreeing "
                       "with it on finitely many generic points near the listed ones) is a positive rescaling of "
                       "θ, with the same neuron order. This is a statement about parameters near θ only: it does "
                       "not exclude hidden symmetries far from θ"),
            reference=REF_LOCAL, evidence=ev, role=ClaimRole.INFORMATION))
    return claims


def _premise_claim(m, cid: str) -> Claim:
    if m.kind == Mechanism.NEVER_COACTIVE:
        ev = {"layer": m.layer, "upstream": m.neurons[0], "downstream": m.neurons[1]}
    elif m.kind in (Mechanism.LAYER_FLIP, Mechanism.PROPORTIONAL_NEURONS, Mechanism.AFFINE_LAYER_FLIP):
        ev = {"layer": m.layer, "neurons": list(m.neurons)}
    else:
        ev = {"layer": m.layer, "neuron": m.neurons[0]}
    if m.kind in (Mechanism.COLLAPSED_KINK, Mechanism.AFFINE_LAYER_FLIP):
        ev.update(m.evidence)        # per successor / per output row: Farkas trees (docs/mathematics.md §6.2)
    elif m.method == PremiseMethod.FARKAS:
        ev["tree"] = m.evidence      # a reluid.farkas-tree/1 certificate for exactly these neurons
    elif m.method in (PremiseMethod.AFFINE, PremiseMethod.ORTHANT):
        ev["method"] = m.method      # a proof by inspection, which the checker redoes
    return Claim(id=cid, kind=PREMISE_KIND[m.kind], statement=m.statement, reference=m.reference, evidence=ev,
                 role=ClaimRole.VERDICT)


def _deep_information_claims(report, fd) -> list[Claim]:
    claims = []
    a = report.activity
    if a.active or a.inactive or a.coactive:
        claims.append(Claim(
            id="activity", kind=ClaimKind.DEEP_ACTIVITY,
            statement=(f"{len(a.active)} neurons are active somewhere, {len(a.inactive)} are negative somewhere and "
                       f"{len(a.coactive)} adjacent pairs are co-active somewhere (explicit exact inputs), so they "
                       "carry no dead / always-active / never-co-active symmetry"),
            reference="Grigsby, Lindsey, Rolnick 2023, Section 5, mechanisms (i), (ii)",
            evidence={"points": _points(a.points), "active": [list(t) for t in a.active],
                      "inactive": [list(t) for t in a.inactive], "coactive": [list(t) for t in a.coactive]},
            role=ClaimRole.INFORMATION))
    if report.no_flip_layers:
        claims.append(Claim(
            id="no-layer-flip", kind=ClaimKind.DEEP_NO_LAYER_FLIP,
            statement=(f"hidden layers {list(report.no_flip_layers)} have no layer flip set: the vectors "
                       "vec(W^{l+1}[:, i] W^l[i, :]) are linearly independent"),
            reference="Grigsby, Lindsey, Rolnick 2023, Section 5, mechanism (iv); flip sets (Ramakrishnan 2026)",
            evidence={"layers": list(report.no_flip_layers), "prime": FLIP_CHECK_PRIME}, role=ClaimRole.INFORMATION))
    if fd is not None and fd.points:
        claims.extend(fundim_claims(fd))
    return claims


REF_TWO_LAYERS = "docs/mathematics.md §8, Theorem 8.2 and Corollary 8.3 (two hidden layers)"


def _signs(s) -> str:
    return "".join("+" if v > 0 else "-" for v in s)


def two_layer_evidence(theorem) -> dict:
    """The ``deep-two-layer-hypotheses`` evidence of a :class:`~reluid.analysis.deep.two_layers.TwoLayerResult`.

    ``vertices``: the full regions of the component 𝒞 (signs, an interior point, one zero of
    each g^s_k); ``edges``: the rigid edge set E (signs s with s_j = +, label j), connected and
    carrying every label; ``flats``: one bend triple (s, j, k) with its point on the wall per
    distinct bend flat; ``cover`` (when H4 holds but not by Lemma 10.12's count): one cover tree
    per set I the count leaves open (docs/certificates.md).
    """
    comp = set(theorem.component)
    ev = {
        "vertices": [{"signs": _signs(f.signs), "point": [format_rational(v) for v in f.point],
                      "zeros": [[format_rational(v) for v in z] for z in f.zeros]}
                     for f in theorem.full if f.signs in comp],
        "edges": [{"signs": _signs(e.signs), "label": e.label} for e in theorem.edges],
        "flats": [{"signs": _signs(f.signs), "neuron": f.neuron, "unit": f.unit,
                   "point": [format_rational(v) for v in f.point]} for f in theorem.flats],
    }
    if getattr(theorem, "h4_trees", None) is not None:
        ev["cover"] = [{"I": list(I), "tree": cover_tree(tree)} for I, tree in theorem.h4_trees]
    return ev


def cover_tree(node) -> dict:
    """A cover tree of :mod:`reluid.analysis.deep.h4_trees` as JSON: ``{"y": q or [[t, y_t], ...]}`` (a packing
    leaf) or ``{"split": t, "children": [...]}``."""
    if node[0] == "split":
        return {"split": node[1], "children": [cover_tree(c) for c in node[2]]}
    y = node[1]
    return {"y": [[t, format_rational(v)] for t, v in y] if isinstance(y, tuple) else format_rational(y)}


REF_THEOREM_W = ("Theorem W and Lemma H4-count (docs/mathematics.md, two hidden layers on partial regions; "
                 "docs/certificates.md, deep-two-layer-pinning)")


def _q(v) -> list:
    return [format_rational(x) for x in v]


def pinning_evidence(pin) -> dict:
    """The ``deep-two-layer-pinning`` evidence of a :class:`~reluid.analysis.deep.pinning.PinningResult`.

    ``frame``: ``"u"`` (rank A = n1, ``minor`` the columns of a nonsingular n1 × n1 minor of A)
    or ``"x"`` (``minor`` null); ``regions``: the regions used, with (x frame) an interior point,
    a zero of every visible g^s_k and a Motzkin vector for every invisible nonconstant one;
    ``order``: per layer-2 neuron in pinning order its seed, its edges ``[region, j]`` (x frame:
    ``[region, j, wall point]``) and the W.3 method; ``h4``: the bend triples and the method (the
    ``exhaustive`` method with its cover trees, when they were built).
    """
    x = pin.frame.kind == Frame.X
    regions = []
    for s, point, vis, inv in pin.regions:
        r = {"signs": _signs(s)}
        if x:
            r["point"] = _q(point)
            r["visible"] = [[k, _q(p)] for k, p in sorted(vis.items())]
            r["invisible"] = [[k, {"y": _q(f[0]), "z": format_rational(f[1][0])}]
                              for k, f in sorted(inv.items()) if f is not None]
        regions.append(r)
    order = [{"neuron": k, "seed": i0, "edges": [[ri, j, _q(p)] if x else [ri, j] for ri, j, p in edges],
              "method": m} for k, i0, edges, m in pin.order]
    flats = []
    for s, j, k, p in pin.flats:
        f = {"signs": _signs(s), "neuron": j, "unit": k}
        if x:
            f["point"] = _q(p)
        flats.append(f)
    h4 = {"method": pin.h4_method, "flats": flats}
    if getattr(pin, "h4_trees", None) is not None:
        h4["cover"] = [{"I": list(I), "tree": cover_tree(tree)} for I, tree in pin.h4_trees]
    return {"frame": pin.frame.kind, "minor": None if x else list(pin.frame.minor), "regions": regions,
            "order": order, "h4": h4}


def _two_layer_claims(theorem, role: str) -> list[Claim]:
    n0, n1, n2, _ = theorem.architecture
    per = [sum(1 for f in theorem.flats if f.neuron == j) for j in range(n1)]
    pin = getattr(theorem, "pinning", None)
    if pin is not None and pin.holds:
        claims = [Claim(
            id="two-layer-pinning", kind=ClaimKind.DEEP_TWO_LAYER_PINNING,
            statement=(f"θ satisfies the hypotheses of Theorem W: H0, H0′ (the layer-2 rows pairwise "
                       f"non-proportional), H4 ({pin.h4_method}; distinct bend flats per H_j {list(pin.flat_counts)}) "
                       f"and a pinning certificate: all {n2} layer-2 neurons pinned along valid edges of "
                       f"{len(pin.regions)} regions with exact visible sets ({pin.frame.kind} frame)"),
            reference=REF_THEOREM_W, evidence=pinning_evidence(pin), role=role)]
        return claims + _layer_flip_claims(theorem, role)
    claims = [Claim(
        id="two-layer-hypotheses", kind=ClaimKind.DEEP_TWO_LAYER_HYPOTHESES,
        statement=(f"θ satisfies H0–H4 of docs/mathematics.md §8: distinct layer-1 hyperplanes; "
                   f"{len(theorem.component)} full regions joined by {len(theorem.edges)} rigid edges that form one "
                   f"connected graph and carry every label 1..{n1}; bend flats per H_j {per}, and for no nonempty "
                   "I ⊆ [n1] are the flats on the H_j, j ∈ I, covered by |I| hyperplanes other than the H_i"),
        reference=REF_TWO_LAYERS, evidence=two_layer_evidence(theorem), role=role)]
    return claims + _layer_flip_claims(theorem, role)


def _layer_flip_claims(theorem, role: str) -> list[Claim]:
    claims = []
    for layer, r in enumerate(theorem.layer_flips, start=1):
        if r is not None and r.outcome is Outcome.NONE:
            claims.append(Claim(
                id=f"no-flip-layer-{layer}", kind=ClaimKind.DEEP_LAYER_NO_FLIP_SET,
                statement=(f"hidden layer {layer} has no flip set: Σ_(i∈F) W^{layer + 1}[:, i] W^{layer}[i, :] ≠ 0 "
                           f"for every nonempty F (𝔉{layer} = {{∅}})"),
                reference=(f"docs/mathematics.md §3 (certificates for 'no flip set'), "
                           f"{'§8.1' if len(theorem.layer_flips) == 2 else '§12.2'} (the layer flip families)"),
                evidence={"layer": layer, "evidence": r.evidence}, role=role))
    return claims


REF_THREE_LAYERS = ("docs/mathematics.md §12.11 (Theorem 12.37 by clash points, Corollary 12.15; docs/certificates.md, "
                    "three hidden layers)")


def _three_layer_certificate(decision, embedded, producer) -> Certificate:
    """``no-hidden-symmetries`` at three hidden layers: Corollary 12.15's hypotheses, (CP-L), 𝔉1 = 𝔉2 = 𝔉3 = {∅}."""
    net, theorem = decision.network, decision.theorem
    hyp, clash = theorem.hypotheses, theorem.clash
    role = ClaimRole.VERDICT
    claims = [
        Claim(id="three-layer-clash", kind=ClaimKind.DEEP_THREE_LAYER_CLASH,
              statement=(f"θ has {len(clash['points'])} clash points of edge bend flats (Definition 12.34, n2 < n0) with "
                         f"m_i = {list(theorem.cp_l)}, so (CP-L) and hence (CP) hold: every real θ′ with the same "
                         "function is layer-1 matched (Theorem 12.37)"),
              reference=REF_THREE_LAYERS, evidence=clash, role=role),
        Claim(id="three-layer-hypotheses", kind=ClaimKind.DEEP_THREE_LAYER_HYPOTHESES,
              statement=(f"θ satisfies the hypotheses of Corollary 12.15: H0₁, T0, {len(hyp['regions'])} full layer-1 "
                         f"regions joined by {len(hyp['edges'])} rigid edges carrying every label, walls, and a depth-3 "
                         f"pinning certificate of all {net.architecture[3]} layer-3 neurons over {len(hyp['cells'])} "
                         "cells"),
              reference=REF_THREE_LAYERS, evidence=hyp, role=role)]
    claims += _layer_flip_claims(theorem, role)
    info = _deep_information_claims(decision.report, decision.fundim)
    return Certificate(verdict=Verdict.NO_HIDDEN, network_sha256=net.sha256(), architecture=net.architecture,
                       claims=tuple(claims + info), network=embedded, producer={**producer, "theorem": REF_THREE_LAYERS},
                       assumption=net.assumption)


def _two_layer_certificate(decision, embedded, producer) -> Certificate:
    net, theorem = decision.network, decision.theorem
    info = _deep_information_claims(decision.report, decision.fundim)
    producer = {**producer, "theorem": REF_TWO_LAYERS, "strict_systems": theorem.systems}
    if decision.verdict is Verdict.NO_HIDDEN:
        return Certificate(verdict=Verdict.NO_HIDDEN, network_sha256=net.sha256(), architecture=net.architecture,
                           claims=tuple(_two_layer_claims(theorem, ClaimRole.VERDICT) + info), network=embedded,
                           producer=producer, assumption=net.assumption)
    F1, F2 = (sorted(F) for F in theorem.witness_flips)
    theta2 = decision.witness
    orbits = (len(theorem.family1) * len(theorem.family2)
              if theorem.family1 is not None and theorem.family2 is not None else None)
    wclaim = Claim(
        id="witness", kind=ClaimKind.DEEP_WITNESS,
        statement=(f"θ′ = θ^(F1,F2) with F1 = {{{', '.join(str(j + 1) for j in F1)}}} (hidden layer 1) and F2 = "
                   f"{{{', '.join(str(k + 1) for k in F2)}}} (hidden layer 2), both flip sets: it computes the same "
                   "function (docs/mathematics.md §8, Proposition 8.11), lies outside the orbit of θ (Proposition "
                   f"8.12), and agrees with θ at {len(decision.inputs)} listed inputs"),
        reference="docs/mathematics.md §8.1 (θ^{F1,F2}), Propositions 8.11 and 8.12",
        evidence={"mechanism": Mechanism.TWO_LAYER_FLIP, "layer": 1, "neurons": F1, "layer2_neurons": F2,
                  "network": theta2.to_dict(), "inputs": _points(decision.inputs)})
    details = {"F1": [j + 1 for j in F1], "F2": [k + 1 for k in F2], "theorem": REF_TWO_LAYERS}
    if orbits is not None:
        details["orbits"] = orbits
    witness = Witness(mechanism=Mechanism.TWO_LAYER_FLIP, network=theta2, details=details)
    return Certificate(verdict=Verdict.HIDDEN, network_sha256=net.sha256(), architecture=net.architecture,
                       claims=(wclaim, *_two_layer_claims(theorem, ClaimRole.INFORMATION), *info), network=embedded,
                       witness=witness, producer=producer, assumption=net.assumption)


def certificate_from_deep_decision(decision, *, embed: bool | None = None) -> Certificate:
    """Build the certificate for a :class:`~reluid.analysis.deep.decide.DeepDecision`.

    ``embed=None`` embeds the network when it has at most ``EMBED_MAX_PARAMS``
    parameters, as for shallow networks.  A verdict that rests on docs/mathematics.md §8
    (two hidden layers) carries the evidence of H0–H4 and of the flip families.
    """
    net, report = decision.network, decision.report
    producer = {"reluid": __version__, "analysis": "reluid.analysis.deep", "seed": decision.seed,
                "timeout_s": str(decision.timeout), "prover_mode": decision.prover_mode,
                "prover_queries": report.prover_queries}
    if getattr(decision, "budget_note", None):
        producer["time_budget"] = decision.budget_note.to_dict()
    if getattr(decision, "size_note", None):
        producer["size_limit"] = decision.size_note.to_dict()
    if getattr(decision, "phase_seconds", ()):
        producer["phase_ms"] = {name: int(1000 * sec) for name, sec in decision.phase_seconds}
    embedded = net if _embed(net, embed) else None
    theorem = getattr(decision, "theorem", None)
    if theorem is not None and decision.verdict is not Verdict.UNKNOWN and decision.mechanism is None:
        if len(net.hidden_widths) == 3:
            return _three_layer_certificate(decision, embedded, producer)
        return _two_layer_certificate(decision, embedded, producer)
    info = _deep_information_claims(report, decision.fundim)
    if decision.verdict is not Verdict.HIDDEN:
        return Certificate(verdict=decision.verdict, network_sha256=net.sha256(), architecture=net.architecture,
                           claims=tuple(info), network=embedded, reasons=decision.reasons, producer=producer,
                           assumption=net.assumption)
    m, theta2, inputs = decision.mechanism, decision.witness, decision.inputs
    premise = _premise_claim(m, "premise")
    wclaim = Claim(
        id="witness", kind=ClaimKind.DEEP_WITNESS,
        statement=(f"θ′ is obtained from θ by the {m.kind} construction at hidden layer {m.layer} "
                   f"(neurons {[i + 1 for i in m.neurons]}, counted from 1); it computes the same function (given "
                   f"the premise), lies outside the orbit of θ, and agrees with θ at {len(inputs)} listed inputs"),
        reference=m.reference,
        evidence={"mechanism": m.kind, "layer": m.layer, "neurons": list(m.neurons), "premise": "premise",
                  "network": theta2.to_dict(), "inputs": _points(inputs)})
    # shown 1-based, like the layers; the "neurons" fields stay 0-based indices
    where = (f"hidden layer {m.layer - 1} neuron {m.neurons[0] + 1} -> hidden layer {m.layer} neuron "
             f"{m.neurons[1] + 1}" if m.kind == Mechanism.NEVER_COACTIVE
             else f"hidden layer {m.layer}, neurons {[i + 1 for i in m.neurons]}")
    witness = Witness(mechanism=m.kind, network=theta2,
                      details={"location": where, "layer": m.layer, "neurons": list(m.neurons),
                               "delta": decision.delta, "method": m.method})
    return Certificate(verdict=Verdict.HIDDEN, network_sha256=net.sha256(), architecture=net.architecture,
                       claims=(premise, wclaim, *info), network=embedded, witness=witness, producer=producer,
                       assumption=net.assumption)


# ---------------------------------------------------------------------------
# the reduced network (a property, never the verdict)
# ---------------------------------------------------------------------------

REF_REDUCED = ("docs/mathematics.md §11 (exact reduction); docs/certificates.md, Reduction certificates; the reduced "
               "network's own certificate")


def reduced_no_hidden_claim(reduction, reduced_cert: Certificate) -> Claim:
    """The information claim "the reduced network (architecture …) has no hidden symmetries".

    Its evidence is the ``reluid.reduction/1`` document from θ to the reduced network, that
    network, and its own certificate (verdict no-hidden-symmetries); the checker re-verifies
    the steps and the embedded certificate.  θ's own verdict is unchanged.
    """
    from reluid.certificates.reduction import reduction_document

    red = reduction.reduced
    counts = ", ".join(f"{n} {k}" for k, n in reduction.counts().items() if n)
    return Claim(
        id="reduced-no-hidden-symmetries", kind=ClaimKind.REDUCED_NO_HIDDEN,
        statement=(f"the reduced network (architecture {red.architecture}) has no hidden symmetries: θ reduces "
                   f"exactly to it in {len(reduction.steps)} step(s) ({counts}), so it computes the same function, "
                   f"and every network of architecture {red.architecture} computing that function is a permutation "
                   "and positive rescaling of it. θ's own verdict is unchanged"),
        reference=REF_REDUCED,
        evidence={"reduction": reduction_document(reduction), "network": red.to_dict(),
                  "certificate": reduced_cert.to_dict()},
        role=ClaimRole.INFORMATION)
