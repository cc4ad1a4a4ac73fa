"""Proof-like reports of one certificate.

A report reads like a short proof: the network, each claim with its paper
reference and its evidence in mathematical notation, what rests on z3, and
the conclusion; for a hidden symmetry the witness θ′ and the identity behind
it (for a flip set F, Σ_{i∈F} m_i a_iᵀ = 0 with the numbers).  One structured
list of sections feeds the text, Markdown and HTML renderers.
"""

from __future__ import annotations

import html
from fractions import Fraction

from reluid.certificates.schema import Certificate, ClaimKind, to_json
from reluid.model.network import Network
from reluid.verdicts import Verdict

__all__ = ["generate_text", "generate_markdown", "generate_html", "generate_report", "write_report", "RENDERERS",
           "summary_line", "fmt_q", "fmt_vec"]

MAX_LISTED_NEURONS = 12
INDEX_KEYS = ("flip_set", "neurons", "neuron")

CONCLUSION = {
    Verdict.NO_HIDDEN: "the fibre ρ⁻¹(ρ(θ)) equals the orbit H_n·θ: θ has no hidden symmetries.",
    Verdict.HIDDEN: "θ′ lies in the fibre of θ but not in its H_n-orbit: θ has a hidden symmetry.",
    Verdict.UNKNOWN: "no verdict could be established.",
}


def fmt_q(x) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def fmt_vec(v) -> str:
    return "(" + ", ".join(fmt_q(x) for x in v) + ")"


def _network_lines(net: Network) -> list[str]:
    arch = net.architecture
    lines = [f"Architecture {arch}: {net.depth} layer maps, {net.n_params} parameters."]
    if net.is_shallow:
        t = net.shallow()
        lines[0] = f"θ = (M, A, b, c) ∈ Ω({t.m}, {t.n}, {t.k}), {net.n_params} parameters."
        if t.n <= MAX_LISTED_NEURONS and t.m <= 8:
            for i in range(t.n):
                lines.append(f"neuron {i + 1}: m_{i + 1} = {fmt_vec(t.out(i))}, a_{i + 1} = {fmt_vec(t.A[i])}, "
                             f"b_{i + 1} = {fmt_q(t.b[i])}")
            lines.append(f"c = {fmt_vec(t.c)}")
    elif net.n_params <= 80:
        for l, L in enumerate(net.layers, 1):
            rows = "; ".join(" ".join(fmt_q(x) for x in r) for r in L.weight)
            lines.append(f"W^{l} = [{rows}], b^{l} = {fmt_vec(L.bias)}")
    return lines


def _evidence_lines(claim, net: Network) -> list[str]:
    ev = claim.evidence
    kind = claim.kind
    out = []
    if kind == ClaimKind.NO_FLIP_SET:
        method = ev.get("method")
        if method == "rank":
            out.append(f"Evidence (rank): with p = {ev.get('p')}, the {len(ev.get('rows', ()))} selected rows of "
                       "U = [vec(m_1 a_1ᵀ) … vec(m_n a_nᵀ)] form a square matrix that is nonsingular mod p; "
                       "so the columns of U are linearly independent over Q and no nonempty 0/1 combination vanishes.")
        elif method == "lattice":
            out.append(f"Evidence (lattice): an LLL-reduced basis of ker U ∩ Zⁿ ({len(ev.get('basis', ()))} "
                       "vectors), saturated (B·C = I) and complete (rank U mod p = n − r), whose Gram–Schmidt "
                       "norms all exceed √n; every flip set would be a nonzero lattice vector of norm ≤ √n.")
        elif method == "enumerate":
            out.append(f"Evidence (enumeration): every flip set lies in the kernel mod p = {ev.get('p')} of "
                       f"{len(ev.get('rows', ()))} listed rows of U; the checker recomputes that kernel and tries "
                       "every 0/1 vector in it exactly.")
        elif method == "mitm":
            out.append(f"Evidence (meet in the middle): the checker splits the n = {ev.get('n')} neurons in two "
                       "halves, hashes all subset sums of each half and finds no pair that cancels (re-run "
                       "by the checker with its own code).")
        else:
            out.append(f"Evidence ({method}): " + ", ".join(f"{k} = {v}" for k, v in ev.items() if k != "method"))
    elif kind == ClaimKind.FLIP_SET and net.is_shallow:
        t = net.shallow()
        F = [int(i) for i in ev.get("flip_set", ())]
        terms = " + ".join(f"{fmt_vec(t.out(i))}·{fmt_vec(t.A[i])}ᵀ" for i in F)
        out.append(f"Identity: Σ_{{i∈F}} m_i a_iᵀ = {terms} = 0.")
    elif kind == ClaimKind.PAPER_CONDITION and ev.get("violation"):
        out.append(f"Vanishing: β = {list(ev['violation']['beta'])}.")
    return out


def _status(check, claim) -> str:
    """The checker's status of a claim, or that it has not been re-verified."""
    if check is None:
        return "not re-verified here (run reluid check)"
    return check.status(claim.id) or "not re-verified"


def _check_line(check) -> list[str]:
    if check is None:
        return ["Re-verification: not run (reluid check re-verifies every claim)"]
    if check.valid:
        return [f"Re-verified by reluid check: {check.rule}"]
    return [f"REJECTED by reluid check: {check.reason}"]


LOCAL_CAVEAT = ("a statement about parameters near θ only: it does not exclude hidden symmetries far from θ, "
                "and it is not the verdict \"no hidden symmetries\"")


def _property_lines(cert: Certificate, check) -> list[str]:
    """Weaker properties, each under its own name with the checker's status (never a verdict)."""
    lines = []
    li = [c for c in cert.claims if c.kind == ClaimKind.LOCAL_IDENTIFIABILITY]
    fd = [c for c in cert.claims if c.kind == ClaimKind.FUNCTIONAL_DIMENSION]
    for c in li:
        lines.append(f"Locally identifiable: yes ({_status(check, c)}). Near θ every parameter computing the same "
                     f"function is a positive rescaling of θ (Theorem A1, docs/mathematics.md §6). This is "
                     f"{LOCAL_CAVEAT}.")
    if not li and fd:
        ev = fd[0].evidence
        rank, U = ev.get("rank"), ev.get("upper_bound")
        if isinstance(rank, int) and isinstance(U, int):
            if rank < U:
                lines.append(f"Locally identifiable: not established ({_status(check, fd[0])}): the certified "
                             f"Jacobian rank is {rank} < U = {U}. When the rank stays below U at every point tried, "
                             "that is evidence of a positive-dimensional fibre near θ (hidden symmetries arbitrarily "
                             "close to θ; Grigsby, Lindsey, Rolnick 2023, Lemma F.6), not a verdict.")
            else:
                lines.append(f"Locally identifiable: not established: dim_fun = U = {U} ({_status(check, fd[0])}) "
                             "is below D - N, the rank Theorem A1 needs.")
    note = cert.producer.get("local_identifiability") if hasattr(cert.producer, "get") else None
    if not li and not fd and note:
        lines.append(f"Locally identifiable: {note}.")
    tb = cert.producer.get("time_budget") if hasattr(cert.producer, "get") else None
    if tb:
        lines.append(f"Time budget: {tb}.")
    return lines


def _sections(cert: Certificate, net: Network | None, title: str | None, check=None):
    net = net if net is not None else cert.network
    name = title or (net.name if net is not None and net.name else "network")
    secs = [(f"reluid certificate: {name}",
             [f"Verdict: {cert.verdict.value.upper()}", *_check_line(check),
              f"Network SHA-256: {cert.network_sha256}"]
             + ([f"Assumption (not checkable; the verdict is about the network read under it): {cert.assumption}"]
                if cert.assumption else [])
             + ([f"Reason: {cert.reason}"] if cert.reason else []))]
    if net is not None:
        secs.append(("The network", _network_lines(net)))
    claim_lines = []
    for n_, c in enumerate(cert.claims, 1):
        tag = _status(check, c)
        role = ""
        first = c.statement.split(" ", 1)[0]
        stmt = c.statement[0].upper() + c.statement[1:] if first.isascii() and first.isalpha() else c.statement
        claim_lines.append(f"Claim {n_} ({c.kind}; {tag}{role}). {stmt}. "
                           f"[{c.reference}]")
        if net is not None:
            claim_lines.extend(_evidence_lines(c, net))
    if claim_lines:
        secs.append(("Claims", claim_lines))
    props = _property_lines(cert, check)
    if props:
        secs.append(("Properties", props))
    if cert.witness is not None:
        w = cert.witness
        lines = [f"Mechanism: {w.mechanism}."]
        for k, v in w.details.items():
            if k in INDEX_KEYS:  # stored 0-based, shown 1-based as in the papers
                v = [i + 1 for i in v] if isinstance(v, (tuple, list)) else v + 1
            lines.append(f"{k.replace('_', ' ')}: {v}")
        lines.extend("θ′: " + s for s in _network_lines(w.network))
        secs.append(("Witness", lines))
    secs.append(("Conclusion", [CONCLUSION[cert.verdict]]))
    return secs


def generate_text(cert: Certificate, network: Network | None = None, title: str | None = None, check=None) -> str:
    out = []
    for t, lines in _sections(cert, network, title, check):
        out += [t, "-" * len(t)] + lines + [""]
    return "\n".join(out)


def generate_markdown(cert: Certificate, network: Network | None = None, title: str | None = None,
                      check=None) -> str:
    out = []
    for i, (t, lines) in enumerate(_sections(cert, network, title, check)):
        out.append(("# " if i == 0 else "## ") + t)
        out.append("")
        out += [f"- {l}" if not l.startswith("Verdict") else f"**{l}**" for l in lines]
        out.append("")
    return "\n".join(out)


def generate_html(cert: Certificate, network: Network | None = None, title: str | None = None, check=None) -> str:
    body = []
    secs = _sections(cert, network, title, check)
    for i, (t, lines) in enumerate(secs):
        body.append(f"<h{1 if i == 0 else 2}>{html.escape(t)}</h{1 if i == 0 else 2}>")
        body.append("<ul>" + "".join(f"<li>{html.escape(l)}</li>" for l in lines) + "</ul>")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(secs[0][0])}</title><style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}"
            "li{margin:.3em 0}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def _certificate_json(cert: Certificate, network: Network | None = None, title: str | None = None,
                      check=None) -> str:
    return to_json(cert)


RENDERERS = {"text": generate_text, "md": generate_markdown, "markdown": generate_markdown,
             "html": generate_html, "json": _certificate_json}


def generate_report(cert: Certificate, fmt: str = "text", network: Network | None = None,
                    title: str | None = None, check=None) -> str:
    """The report of ``cert`` in ``fmt`` (text, md, html or json; json is the certificate itself).

    ``check`` is the :class:`~reluid.checker.check.CheckReport` of the
    certificate: each claim is then shown with the checker's own status, and
    without it as not re-verified.  Nothing is shown as checked on the
    certificate's word.
    """
    return RENDERERS[fmt](cert, network, title, check)


def write_report(cert: Certificate, path, fmt: str = "md", network: Network | None = None, title=None,
                 check=None) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(generate_report(cert, fmt, network, title, check))


def summary_line(cert: Certificate) -> str:
    """One line: verdict, mechanism or evidence, solver label (audit output and JUnit messages)."""
    s = cert.verdict.value
    if cert.witness is not None:
        s += f" (mechanism: {cert.witness.mechanism})"
    methods = [c.evidence.get("method") for c in cert.claims if c.kind == ClaimKind.NO_FLIP_SET]
    if methods:
        s += f" (no flip set: {methods[0]} certificate)"
    if any(c.kind == ClaimKind.LOCAL_IDENTIFIABILITY for c in cert.claims):
        s += " (locally identifiable: near θ only)"
    if cert.reason:
        s += f": {cert.reason}"
    if cert.assumption:
        s += f" [assumption: {cert.assumption}]"
    return s
