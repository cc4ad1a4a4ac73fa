"""Proof-like reports of one certificate: the section model, and its text and Markdown renderings.

A report reads like a short proof: the network, each claim with its paper
reference and its evidence in mathematical notation, the checker's own status
of every claim, and the conclusion; for a hidden symmetry the witness θ′ and
the identity behind it (for a flip set F, Σ_{i∈F} m_i a_iᵀ = 0 with the
numbers).  :func:`certificate_view` builds one :class:`CertificateView` from
the certificate, the network and the :class:`~reluid.checker.check.CheckReport`;
the text and Markdown renderers here and the HTML renderer
(:mod:`reluid.report.html`) all read it.

Numbering: neurons, layers, claims and classes are counted from 1 in every
report (as in the papers); the certificate's JSON counts neurons and classes
from 0 (docs/certificates.md).
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from reluid.certificates.schema import Certificate, ClaimKind, FunDimMethod, to_json
from reluid.model.network import Network
from reluid.report import mathml as mm
from reluid.report import reasons as words
from reluid.report.mathml import Formula
from reluid.verdicts import CheckState, ClaimStatus, FlipSetMethod, Verdict

__all__ = ["generate_text", "generate_markdown", "generate_html", "generate_report", "write_report", "RENDERERS",
           "summary_line", "short_summary", "summary_details", "short_reason", "fmt_q", "fmt_decimal", "fmt_vec",
           "unknown_facts",
           "certificate_view", "CertificateView", "ClaimView", "WitnessView", "Para",
           "WIDTH", "wrap", "relative_link"]

MAX_LISTED_NEURONS = 12
MAX_LISTED_PARAMS = 80
#: evidence and witness fields holding 0-based neuron (or class) indices, shown from 1
INDEX_KEYS = ("flip_set", "neurons", "neuron", "upstream", "downstream")
#: line width of the text and Markdown reports
WIDTH = 100

CONCLUSION = {
    Verdict.NO_HIDDEN: "the fibre ρ⁻¹(ρ(θ)) equals the orbit H_n·θ: θ has no hidden symmetries.",
    Verdict.HIDDEN: "θ′ lies in the fibre of θ but not in its H_n-orbit: θ has a hidden symmetry.",
    Verdict.UNKNOWN: "no verdict could be established.",
}



def fmt_q(x) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _float32(q: Fraction) -> float | None:
    """The float32 equal to ``q`` (as a Python float), or None when ``q`` is not a float32."""
    import struct
    try:
        f = struct.unpack("<f", struct.pack("<f", float(q)))[0]
    except (OverflowError, struct.error):
        return None
    return f if Fraction(f) == q else None


def _shortest(f: float, single: bool) -> str:
    """The shortest decimal that reads back as ``f`` (as a float32 when ``single``)."""
    import struct
    for digits in range(1, 18):
        s = f"{f:.{digits}g}"
        back = float(s)
        if single:
            back = struct.unpack("<f", struct.pack("<f", back))[0]
        if back == f:
            return s
    return repr(f)


def fmt_decimal(x, digits: int = 6) -> tuple[str, str | None]:
    """``(text, title)``: ``x`` as a decimal people can scan, and its exact value (None when the text is it).

    A float32 or float64 value is written as the shortest decimal that reads
    back as that float (the number a framework prints), and the title gives
    the exact rational and names the float; any other rational is rounded to
    ``digits`` significant digits, and the title gives it exactly.

    >>> fmt_decimal(Fraction(-730011, 8388608))
    ('-0.08702409', 'exact value -730011/8388608 = the float32 -0.08702409')
    >>> fmt_decimal(Fraction(1, 3))
    ('≈0.333333', 'exact value 1/3')
    >>> fmt_decimal(Fraction(3, 4)), fmt_decimal(7)
    (('0.75', None), ('7', None))
    """
    q = Fraction(x)
    if q.denominator == 1:
        return str(q.numerator), None
    exact = fmt_q(q)
    f32 = _float32(q)
    if f32 is not None:
        text = _shortest(f32, True)
        if Fraction(text) == q:
            return text, None
        return text, f"exact value {exact} = the float32 {text}"
    f = float(q)
    if Fraction(f) == q:
        text = _shortest(f, False)
        if Fraction(text) == q:
            return text, None
        short = f"{f:.{digits}g}"
        return ("≈" + short if Fraction(short) != q else short), f"exact value {exact} = the float64 {text}"
    short = f"{f:.{digits}g}"
    return ("≈" + short if Fraction(short) != q else short), f"exact value {exact}"


def fmt_vec(v) -> str:
    return "(" + ", ".join(fmt_q(x) for x in v) + ")"


def _one_based(xs) -> str:
    return "{" + ", ".join(str(int(i) + 1) for i in xs) + "}"


# ---------------------------------------------------------------------------
# the section model
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Para:
    """A paragraph: plain strings and :class:`~reluid.report.mathml.Formula` objects, in order."""

    parts: tuple

    @staticmethod
    def of(*parts) -> "Para":
        return Para(tuple(p for p in parts if p != ""))

    @property
    def text(self) -> str:
        return "".join(p.text if isinstance(p, Formula) else str(p) for p in self.parts)


@dataclass(frozen=True, slots=True)
class ClaimView:
    number: int                 # from 1
    id: str
    kind: str
    status: str                 # the checker's status (or that it was not run)
    statement: str              # capitalised, without the final full stop
    reference: str
    evidence: tuple = ()        # Paras
    message: str = ""           # what the checker said about it


@dataclass(frozen=True, slots=True)
class WitnessView:
    mechanism: str
    details: tuple              # (label, Para) pairs, indices shown from 1, nothing repeated
    network: Network


@dataclass(frozen=True, slots=True)
class CertificateView:
    """Everything a report of one certificate shows, in the order it shows it."""

    title: str                  # names the input file
    source: str
    verdict: Verdict
    check: CheckState           # the checker's word on the whole certificate
    check_detail: str           # the checker's rule, or why it rejected
    sha256: str
    architecture: tuple
    assumption: str | None
    reason: tuple               # the reason for unknown, one sentence per entry
    network: Network | None
    network_lines: tuple        # Paras: the network in words
    claims: tuple               # ClaimViews
    witness: WitnessView | None
    conclusion: str
    links: tuple = ()           # (label, relative href) pairs: the certificate, the other renderings
    producer: dict = field(default_factory=dict)
    properties: tuple = ()      # weaker certified properties (local identifiability), never a verdict

    @property
    def n_params(self) -> int | None:
        return None if self.network is None else self.network.n_params


def _status(check, claim) -> str:
    """The checker's status of a claim, or that it has not been re-verified."""
    if check is None:
        return "not re-verified here (run reluid check)"
    return check.status(claim.id) or ClaimStatus.NOT_REVERIFIED


def _message(check, claim) -> str:
    if check is None:
        return ""
    return next((c.message for c in check.claims if c.id == claim.id), "")


def _check_detail(check) -> str:
    if check is None:
        return "not run (reluid check re-verifies every claim)"
    return check.rule if check.valid else check.reason


def _network_lines(net: Network) -> list:
    arch = net.architecture
    lines = [Para.of(f"Architecture {arch}: {net.depth} layer maps, {net.n_params} parameters.")]
    if net.is_shallow:
        t = net.shallow()
        lines[0] = Para.of(f"θ = (M, A, b, c) ∈ Ω({t.m}, {t.n}, {t.k}), {net.n_params} parameters.")
        if t.n <= MAX_LISTED_NEURONS and t.m <= 8:
            for i in range(t.n):
                lines.append(Para.of(f"neuron {i + 1}: m_{i + 1} = {fmt_vec(t.out(i))}, a_{i + 1} = "
                                     f"{fmt_vec(t.A[i])}, b_{i + 1} = {fmt_q(t.b[i])}"))
            lines.append(Para.of(f"c = {fmt_vec(t.c)}"))
        else:
            lines.append(Para.of(f"(weights not listed here: n = {t.n}, m = {t.m}; they are in the certificate "
                                 "and the HTML report)"))
    elif net.n_params <= MAX_LISTED_PARAMS:
        for l, L in enumerate(net.layers, 1):
            rows = "; ".join(" ".join(fmt_q(x) for x in r) for r in L.weight)
            lines.append(Para.of(f"W^{l} = [{rows}], b^{l} = {fmt_vec(L.bias)}"))
    else:
        lines.append(Para.of(f"(weights not listed here: {net.n_params} parameters; they are in the certificate "
                             "and the HTML report)"))
    return lines


def _tree_stats(tree) -> tuple[int, int]:
    """(leaves, depth) of a reluid.farkas-tree/1 evidence (walked without recursion)."""
    if not isinstance(tree, Mapping):
        return 0, 0
    stack = [(tree.get("tree"), 0)]
    leaves = depth = 0
    while stack:
        node, d = stack.pop()
        if not isinstance(node, Mapping):
            continue
        if "leaf" in node:
            leaves += 1
            depth = max(depth, d)
        else:
            stack += [(node.get("pos"), d + 1), (node.get("neg"), d + 1)]
    return leaves, depth


def _evidence(claim, net: Network | None) -> list:
    ev = claim.evidence
    kind = claim.kind
    out = []
    if kind == ClaimKind.NO_FLIP_SET:
        method = ev.get("method")
        if method == FlipSetMethod.RANK:
            out.append(Para.of(f"Evidence (rank): with p = {ev.get('p')}, the {len(ev.get('rows', ()))} selected rows "
                               "R of U = [vec(m_1 a_1ᵀ) … vec(m_n a_nᵀ)] form a square matrix with ",
                               mm.rank_minor(ev.get("p")), "; so the columns of U are linearly independent over Q "
                               "and no nonempty 0/1 combination vanishes."))
        elif method == FlipSetMethod.LATTICE:
            n = net.shallow().n if net is not None and net.is_shallow else None
            out.append(Para.of(f"Evidence (lattice): an LLL-reduced basis b_1, …, b_r of ker U ∩ Zⁿ "
                               f"({len(ev.get('basis', ()))} vectors), saturated (B·C = I) and complete (rank U "
                               "mod p = n − r), whose Gram–Schmidt vectors satisfy ", mm.gram_schmidt_bound(n),
                               "; every flip set would be a nonzero lattice vector of squared norm ≤ n."))
        elif method == FlipSetMethod.LATTICE_ENUM:
            out.append(Para.of(f"Evidence (lattice enumeration): a reduced basis of ker U ∩ Zⁿ "
                               f"({len(ev.get('basis', ()))} vectors), saturated (B·C = I) and complete (rank U mod "
                               "p = n − r). Every 0/1 vector x has ‖x − ½·1‖² = n/4, so every flip set lies in the "
                               "ball around the projection of ½·1 onto ker U; the checker enumerates that ball exactly "
                               f"({ev.get('nodes')} nodes) and finds none."))
        elif method == FlipSetMethod.LATTICE_CVP:
            out.append(Para.of(f"Evidence (compiled lattice enumeration): a BKZ-reduced basis of ker U ∩ Zⁿ "
                               f"({len(ev.get('basis', ()))} vectors), saturated (B·C = I) and complete (rank U mod "
                               "p = n − r). Every flip set lies in the ball around the projection of ½·1 onto ker U "
                               "(every 0/1 vector x has ‖x − ½·1‖² = n/4); the checker enumerates that ball with "
                               "fplll over a squared radius it proves safe against rounding "
                               f"({ev.get('nodes')} nodes), meets the {len(ev.get('points', ()))} listed lattice "
                               "point(s) and tests each exactly: none is a flip set."))
        elif method == FlipSetMethod.SEPARATION:
            Y = ev.get("y") or ()
            shown = (" Y = [" + "; ".join(" ".join(str(v) for v in row) for row in Y) + "].") \
                if sum(len(row) for row in Y) <= 16 else ""
            out.append(Para.of("Evidence (separation): an integer matrix Y with m_iᵀ Y a_i > 0 for every neuron i; "
                               "a flip set F would give Σ_{i∈F} m_iᵀ Y a_i = 0, a sum of positive numbers. The "
                               f"checker recomputes the n numbers exactly.{shown}"))
        elif method == FlipSetMethod.SEPARATION_SPLIT:
            sub = ev.get("sub") or {}
            out.append(Para.of(f"Evidence (separation split): an integer matrix Y; every flip set lies among the "
                               f"{len(ev.get('rest', ()))} neurons with m_iᵀ Y a_i at most the total negative score, "
                               f"and those have none ({sub.get('method')} certificate for the subnetwork). The checker "
                               "recomputes the scores exactly and re-verifies the sub-certificate."))
        elif method == FlipSetMethod.ENUMERATE:
            out.append(Para.of(f"Evidence (enumeration): every flip set lies in the kernel mod p = {ev.get('p')} of "
                               f"{len(ev.get('rows', ()))} listed rows of U; the checker recomputes that kernel and "
                               "tries every 0/1 vector in it exactly."))
        elif method == FlipSetMethod.MITM:
            out.append(Para.of(f"Evidence (meet in the middle): the checker splits the n = {ev.get('n')} neurons in "
                               "two halves, hashes all subset sums of each half and finds no pair that cancels "
                               "(re-run by the checker with its own code)."))
        else:
            out.append(Para.of(f"Evidence ({method}): " + ", ".join(f"{k} = {v}" for k, v in ev.items()
                                                                  if k != "method")))
    elif kind == ClaimKind.NO_OTHER_PATTERN:
        cases = ev.get("cases", ())
        counts: dict = {}
        for ent in cases:
            counts[ent.get("method")] = counts.get(ent.get("method"), 0) + 1
        out.append(Para.of("Function data: θ is rewritten exactly in kink form ", mm.kink_form(),
                           " over canonical hyperplanes r (Ramakrishnan 2026, Theorems 3 and 4)."))
        out.append(Para.of(f"Evidence (Theorem 4): {len(cases)} case{'s' if len(cases) != 1 else ''} (P, q), one "
                           f"certificate each ({', '.join(f'{v} {k}' for k, v in sorted(counts.items()))}); no "
                           "orientation e of the classes outside P gives rank X(e) ≤ q, except θ's own in the own "
                           "case (P_θ, 0). The checker recomputes the classes, K_r, L, the list of cases and every "
                           "case from θ."))
    elif kind == ClaimKind.FLIP_SET and net is not None and net.is_shallow:
        t = net.shallow()
        F = [int(i) for i in ev.get("flip_set", ())]
        out.append(Para.of("Identity: ", mm.flip_identity_numbers([(t.out(i), t.A[i]) for i in F], t.k, t.m),
                           "."))
    elif kind in (ClaimKind.DEEP_DEAD_NEURON, ClaimKind.DEEP_ALWAYS_ACTIVE, ClaimKind.DEEP_NEVER_COACTIVE):
        neurons = ([ev.get("upstream"), ev.get("downstream")] if "upstream" in ev else [ev.get("neuron")])
        f = mm.sign_premise(str(kind), ev.get("layer", 0), [i for i in neurons if i is not None]) \
            if all(isinstance(i, int) for i in neurons) and isinstance(ev.get("layer"), int) else None
        if f is not None:
            out.append(Para.of("Premise: ", f, "."))
        if "tree" in ev:
            leaves, depth = _tree_stats(ev["tree"])
            out.append(Para.of(f"Evidence (Farkas tree): {leaves} lea{'ves' if leaves != 1 else 'f'}, depth {depth}; "
                               "at every leaf, nonnegative Motzkin multipliers of its rows satisfy ",
                               mm.farkas_condition(), " so no input x meets the leaf's sign conditions "
                               "(docs/mathematics.md §6.1)."))
        elif ev.get("method"):
            out.append(Para.of(f"Evidence ({ev['method']}): by inspection of the incoming row and bias, redone by "
                               "the checker."))
    elif kind == ClaimKind.DEEP_LAYER_FLIP and isinstance(ev.get("layer"), int):
        out.append(Para.of("Identity: ", mm.layer_flip(ev["layer"]),
                           f" for F = {_one_based(ev.get('neurons', ()))} (recomputed exactly by the checker)."))
    elif kind == ClaimKind.FUNCTIONAL_DIMENSION:
        r, U = ev.get("rank"), ev.get("upper_bound")
        if isinstance(r, int) and isinstance(U, int) and ev.get("method") == FunDimMethod.TRIANGULAR:
            out.append(Para.of(f"Evidence (Theorem A3): a block-triangular family of Jacobian rows at "
                               f"{len(ev.get('points', ()))} exactly smooth rational points, of rank {r} mod p = "
                               f"{ev.get('prime')}: ", mm.fundim_bound(r, U, r == U), "."))
        elif isinstance(r, int) and isinstance(U, int):
            out.append(Para.of(f"Evidence: the Jacobian of {len(ev.get('points', ()))} exactly smooth rational "
                               f"points has rank {r} mod p = {ev.get('prime')}: ", mm.fundim_bound(r, U, r == U),
                               "."))
    return out


def _claim_statement(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text[0].upper() + text[1:] if text and first.isascii() and first.isalpha() else text


def _witness_view(w) -> WitnessView:
    details = []
    d = dict(w.details)
    if "location" in d:          # it already names the layer and the neurons
        d.pop("layer", None)
        d.pop("neurons", None)
    for k, v in d.items():
        if k in INDEX_KEYS:  # stored 0-based, shown 1-based as in the papers
            v = _one_based(v) if isinstance(v, (tuple, list)) else int(v) + 1
        details.append((k.replace("_", " "), Para.of(*mm.split_formulas(str(v))) if isinstance(v, str)
                        else Para.of(str(v))))
    return WitnessView(w.mechanism, tuple(details), w.network)


LOCAL_CAVEAT = ("a statement about parameters near θ only: it does not exclude hidden symmetries far from θ, "
                "and it is not the verdict \"no hidden symmetries\"")


def _property_lines(cert: Certificate, check) -> list[str]:
    """Weaker properties, each under its own name with the checker's status (never a verdict)."""
    lines = []
    li = [c for c in cert.claims if c.kind == ClaimKind.LOCAL_IDENTIFIABILITY]
    fd = [c for c in cert.claims if c.kind == ClaimKind.FUNCTIONAL_DIMENSION]
    for c in li:
        status = _status(check, c)
        said = "yes" if status == ClaimStatus.INFORMATION else "claimed by the certificate"   # only the checker's word
        lines.append(f"Locally identifiable: {said} ({status}). Near θ every parameter computing the same "
                     f"function is a positive rescaling of θ (Theorem A1, docs/mathematics.md §6). This is "
                     f"{LOCAL_CAVEAT}.")
    if not li and fd:
        ev = fd[0].evidence
        rank, U = ev.get("rank"), ev.get("upper_bound")
        if isinstance(rank, int) and isinstance(U, int):
            if rank < U and check is not None and check.valid and check.verdict == Verdict.NO_HIDDEN:
                lines.append(f"Locally identifiable: not established ({_status(check, fd[0])}): the certified "
                             f"Jacobian rank is {rank} < U = {U} at the points tried. The verdict above is about θ "
                             "itself and is proved independently of this rank, which is compatible with it (|x| = "
                             "σ(x) + σ(−x) has rank 4 < U = 5 and no hidden symmetry, while σ(x) + σ(ε − x), "
                             "ε-close, has one: docs/mathematics.md §6.3); points in activation regions not "
                             "reached may also raise it.")
            elif rank < U:
                lines.append(f"Locally identifiable: not established ({_status(check, fd[0])}): the certified "
                             f"Jacobian rank is {rank} < U = {U}. When the rank stays below U at every point tried, "
                             "that is evidence of hidden symmetries at parameters arbitrarily close to θ (Grigsby, "
                             "Lindsey, Rolnick 2023, Lemma F.6), not a verdict: θ itself may have none.")
            else:
                lines.append(f"Locally identifiable: not established: dim_fun = U = {U} ({_status(check, fd[0])}) "
                             "is below D - N, the rank Theorem A1 needs.")
    for c in (c for c in cert.claims if c.kind == ClaimKind.REDUCED_NO_HIDDEN):
        status = _status(check, c)
        said = "yes" if status == ClaimStatus.INFORMATION else "claimed by the certificate"
        net = c.evidence.get("network") if hasattr(c.evidence, "get") else None
        arch = c.evidence["reduction"]["reduced"].get("architecture") if said == "yes" else None
        steps = len(c.evidence["reduction"]["steps"]) if said == "yes" else None
        where = f" (architecture {tuple(arch)}, {steps} exact reduction step(s) from θ)" if arch and net else ""
        lines.append(f"Reduced network has no hidden symmetries: {said} ({status}){where}. Every network of that "
                     "architecture computing θ's function is a permutation and positive rescaling of the reduced "
                     "network; θ itself has the hidden symmetries of its redundancy (the verdict).")
    note = cert.producer.get("local_identifiability") if hasattr(cert.producer, "get") else None
    if not li and not fd and note:
        lines.append(f"Locally identifiable: {words.note(note)}.")
    for key, head in (("time_budget", "Time budget"), ("size_limit", "Size limit")):
        note = cert.producer.get(key) if hasattr(cert.producer, "get") else None
        if isinstance(note, Mapping) and "code" in note:    # a reason (format /3): its sentence names it
            lines.append(f"{words.sentence(note)}.")
        elif note:                                          # the words of a /2 certificate
            lines.append(f"{head}: {note}.")
    return lines


def certificate_view(cert: Certificate, network: Network | None = None, title: str | None = None, check=None,
                     links=()) -> CertificateView:
    """The section model of one certificate.

    ``title`` names the input (a file name); ``check`` is the certificate's
    :class:`~reluid.checker.check.CheckReport` (claims are shown with the
    checker's own status, and as not re-verified without it); ``links`` are
    (label, relative href) pairs to the certificate and the other renderings.
    """
    net = network if network is not None else cert.network
    source = title or (net.name if net is not None and net.name else "network")
    claims = []
    for n_, c in enumerate(cert.claims, 1):
        claims.append(ClaimView(n_, c.id, str(c.kind), _status(check, c), _claim_statement(c.statement).rstrip("."),
                                c.reference, tuple(_evidence(c, net)) if net is not None else (),
                                _message(check, c)))
    return CertificateView(
        title=f"reluid certificate: {source}", source=source, verdict=cert.verdict, check=CheckState.of(check),
        check_detail=_check_detail(check), sha256=cert.network_sha256, architecture=tuple(cert.architecture),
        assumption=cert.assumption, reason=words.certificate_reasons(cert), network=net,
        network_lines=tuple(_network_lines(net)) if net is not None else (), claims=tuple(claims),
        witness=_witness_view(cert.witness) if cert.witness is not None else None,
        conclusion=CONCLUSION[cert.verdict], links=tuple(links), producer=dict(cert.producer),
        properties=tuple(_property_lines(cert, check)))


# ---------------------------------------------------------------------------
# text and Markdown
# ---------------------------------------------------------------------------

def _check_line(v: CertificateView) -> str:
    if v.check == CheckState.RE_VERIFIED:
        return f"Re-verified by reluid check: {v.check_detail}"
    if v.check == CheckState.REJECTED:
        return f"REJECTED by reluid check: {v.check_detail}"
    return f"Re-verification: {v.check_detail}"


def _sections(v: CertificateView, md: bool = False):
    """(title, lines) pairs; a line is a string or a (string, sub-lines) pair."""
    head = [f"Verdict: {v.verdict.value.upper()}", _check_line(v), f"Network SHA-256: {v.sha256}"]
    if v.assumption:
        head.append(f"Assumption (not checkable; the verdict is about the network read under it): {v.assumption}")
    if v.reason:
        head.append(("Reason:", [s + "." for s in v.reason]) if len(v.reason) > 1 else f"Reason: {v.reason[0]}.")
    if v.links:
        sep = ", "
        head.append("Files: " + sep.join(f"[{label}]({href})" if md else f"{label}: {href}"
                                         for label, href in v.links))
    secs = [(v.title, head)]
    if v.network is not None:
        secs.append(("The network", [p.text for p in v.network_lines]))
    claim_lines = []
    for c in v.claims:
        claim_lines.append(f"Claim {c.number} ({c.kind}; {c.status}). {c.statement}. [{c.reference}]")
        claim_lines.extend(p.text for p in c.evidence)
    if claim_lines:
        secs.append(("Claims", claim_lines))
    if v.properties:
        secs.append(("Properties", list(v.properties)))
    if v.witness is not None:
        w = v.witness
        lines = [f"Mechanism: {w.mechanism}."]
        lines += [f"{k}: {p.text}" for k, p in w.details]
        lines.extend("θ′ = " + p.text[4:] if p.text.startswith("θ = ") else "θ′: " + p.text
                     for p in _network_lines(w.network))
        secs.append(("Witness", lines))
    secs.append(("Conclusion", [v.conclusion]))
    return secs


def wrap(line: str, first: str = "", rest: str = "  ", width: int = WIDTH) -> list[str]:
    """``line`` wrapped at ``width`` (never inside a word), the first line prefixed by ``first``."""
    return textwrap.wrap(line, width=width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False) or [first.rstrip()]


def _as_view(cert, network, title, check, links=()) -> CertificateView:
    return cert if isinstance(cert, CertificateView) else certificate_view(cert, network, title, check, links)


def generate_text(cert: Certificate, network: Network | None = None, title: str | None = None, check=None,
                  links=()) -> str:
    v = _as_view(cert, network, title, check, links)
    out = []
    for t, lines in _sections(v):
        out += [t, "-" * len(t)]
        for line in lines:
            if isinstance(line, tuple):
                out += wrap(line[0])
                for sub in line[1]:
                    out += wrap(sub, "  - ", "    ")
            else:
                out += wrap(line)
        out.append("")
    return "\n".join(out)


def generate_markdown(cert: Certificate, network: Network | None = None, title: str | None = None,
                      check=None, links=()) -> str:
    v = _as_view(cert, network, title, check, links)
    out = []
    for i, (t, lines) in enumerate(_sections(v, md=True)):
        out.append(("# " if i == 0 else "## ") + t)
        out.append("")
        for line in lines:
            if isinstance(line, tuple):
                out += wrap(line[0], "- ", "  ")
                for sub in line[1]:
                    out += wrap(sub, "  - ", "    ")
            elif line.startswith("Verdict"):
                out.append(f"**{line}**")
                out.append("")
            elif line.startswith("Files: "):     # links are not broken across lines
                out.append(f"- {line}")
            else:
                out += wrap(line, "- ", "  ")
        out.append("")
    return "\n".join(out)


def generate_html(cert: Certificate, network: Network | None = None, title: str | None = None, check=None,
                  links=()) -> str:
    """The HTML page of one certificate (:func:`reluid.report.html.generate_page`)."""
    from reluid.report.html import generate_page

    return generate_page(_as_view(cert, network, title, check, links))


def _certificate_json(cert: Certificate, network: Network | None = None, title: str | None = None,
                      check=None, links=()) -> str:
    return to_json(cert)


RENDERERS = {"text": generate_text, "md": generate_markdown, "markdown": generate_markdown,
             "html": generate_html, "json": _certificate_json}


def generate_report(cert: Certificate, fmt: str = "text", network: Network | None = None,
                    title: str | None = None, check=None, links=()) -> str:
    """The report of ``cert`` in ``fmt`` (text, md, html or json; json is the certificate itself).

    ``check`` is the :class:`~reluid.checker.check.CheckReport` of the
    certificate: each claim is then shown with the checker's own status, and
    without it as not re-verified.  Nothing is shown as checked on the
    certificate's word.  ``links``: (label, relative href) pairs shown with
    the report (the certificate file, the other renderings).
    """
    return RENDERERS[fmt](cert, network, title, check, links)


def write_report(cert: Certificate, path, fmt: str = "md", network: Network | None = None, title=None,
                 check=None, links=()) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(generate_report(cert, fmt, network, title, check, links))


def relative_link(target, start_dir) -> str:
    """``target`` relative to the folder ``start_dir``, with forward slashes (for Markdown and HTML links)."""
    return os.path.relpath(os.fspath(target), os.fspath(start_dir) or ".").replace(os.sep, "/")


def summary_line(cert: Certificate) -> str:
    """One line: verdict, mechanism or evidence, reason and assumption (audit output and JUnit messages)."""
    s = short_summary(cert, reason=False)
    if any(c.kind == ClaimKind.LOCAL_IDENTIFIABILITY for c in cert.claims):
        s += " (local identifiability claimed: near θ only)"
    if cert.reasons or cert.reason:
        s += f": {words.text(cert.reasons) or cert.reason}"
    if cert.assumption:
        s += f" [assumption: {cert.assumption}]"
    return s


def summary_details(cert: Certificate) -> list[str]:
    """What the verdict rests on, in a few words: the mechanism, or the certificate method."""
    out = []
    if cert.witness is not None:
        out.append(f"mechanism: {cert.witness.mechanism}")
    methods = [c.evidence.get("method") for c in cert.claims if c.kind == ClaimKind.NO_FLIP_SET]
    if methods:
        out.append(f"no flip set: {methods[0]} certificate")
    if cert.verdict is Verdict.NO_HIDDEN and any(
            c.kind == ClaimKind.DEEP_TWO_LAYER_HYPOTHESES for c in cert.claims):
        out.append("two hidden layers: H0–H4 and no layer flip set, docs/mathematics.md §8, Theorem 8.2")
    cases = [len(c.evidence.get("cases", ())) for c in cert.claims if c.kind == ClaimKind.NO_OTHER_PATTERN]
    if cases:
        out.append(f"no other realisation pattern: {cases[0]} case{'s' if cases[0] != 1 else ''} certified")
    return out


def unknown_facts(cert: Certificate, check=None) -> list[str]:
    """For an ``unknown`` certificate, the facts a reader wants first (tables, the audit index).

    In order: local identifiability (with the checker's status: "yes" only when
    the checker verified it), a certified rank gap of the functional dimension,
    or dim_fun = U; then the hypothesis of Theorem 8.2 that failed, and a time
    budget that ran out.  Each is a weaker fact under its own name, never a
    verdict.  Empty when the certificate states none of them.
    """
    out = []
    li = [c for c in cert.claims if c.kind == ClaimKind.LOCAL_IDENTIFIABILITY]
    fd = [c for c in cert.claims if c.kind == ClaimKind.FUNCTIONAL_DIMENSION]
    if li:
        status = _status(check, li[0])
        out.append("locally identifiable (near θ only)" if status == ClaimStatus.INFORMATION
                   else f"locally identifiable: claimed ({status})")
    elif fd:
        ev = fd[0].evidence
        rank, U = ev.get("rank"), ev.get("upper_bound")
        if isinstance(rank, int) and isinstance(U, int):
            out.append(f"rank gap: dim_fun ≥ {rank} < U = {U} (gap {U - rank}; evidence of hidden symmetries near "
                       "θ, not a verdict)" if rank < U else f"dim_fun = U = {U}: no rank gap, not locally "
                       "identifiable by Theorem A1")
    out += words.facts(cert.reasons)
    if not out:
        note = cert.producer.get("local_identifiability") if hasattr(cert.producer, "get") else None
        if note:
            out.append(words.note(note))
    return out


def short_reason(cert: Certificate) -> str:
    """The first clause of the certificate's reason (a /2 certificate's prose reason as it stands)."""
    return words.short(cert.reasons) or cert.reason or ""


def short_summary(cert: Certificate, *, reason: bool = True) -> str:
    """The verdict with its mechanism or evidence, and the first clause of the reason (tables, badges)."""
    s = cert.verdict.value + "".join(f" ({d})" for d in summary_details(cert))
    if reason and (cert.reasons or cert.reason):
        s += f": {short_reason(cert)}"
    return s
