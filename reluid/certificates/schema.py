"""The ``reluid.certificate/3`` format.

A certificate records a verdict about one network and the claims behind it.
It is plain JSON in which every number is an integer or a lowest-terms
``"p/q"`` string; JSON floats are rejected on reading (see
``docs/certificates.md``).  This module uses the standard library
and :mod:`reluid.model` only, because the independent checker reads it.

Layout::

    {"format": "reluid.certificate/3",
     "verdict": "no-hidden-symmetries" | "hidden-symmetry" | "unknown",
     "reasons": [{"code": "...", "params": {...}}, ...],   # unknown only; never evidence
     "network": {"sha256": "...", "architecture": [m, n, k], "embedded": {reluid.network/1},
                 "assumption": "..."},     # only when the input did not state the function itself
     "claims": [{"id", "kind", "statement", "reference", "role", "evidence": {...}}, ...],
     "witness": {"mechanism": "...", "network": {reluid.network/1}, "details": {...}} | null,
     "producer": {"reluid": "...", ...}}     # informational; never makes a claim true

The reasons of an ``unknown`` are data (:class:`~reluid.verdicts.Reason`: a
code and its parameters), which :mod:`reluid.report.reasons` words; like the
producer record, they are read by reports only, never by the checker.  The
earlier ``reluid.certificate/2`` has the same layout with one prose
``"reason"`` instead; it is still read (and written back as it was), and its
reason is shown as it stands.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

from reluid.errors import CertificateError, InvalidNetwork, ReluidError
from reluid.model.network import Layer, Network
from reluid.model.jsondata import freeze, thaw
from reluid.model.rational import parse_canonical
from reluid.verdicts import (ConditionMethod, CoverMethod, FlipSetMethod, Frame, FunDimMethod, Mechanism, Name,
                             PinningCase, PremiseMethod, Reason, ReasonCode, Verdict)

__all__ = ["FORMAT", "FORMAT_2", "Verdict", "Reason", "ReasonCode", "ClaimKind", "ClaimRole", "Mechanism", "PREMISE_KIND", "FlipSetMethod",
           "FunDimMethod",
           "ConditionMethod", "PremiseMethod", "CoverMethod", "PinningCase", "Frame", "Claim", "Witness", "Certificate", "to_json", "from_json",
           "read_certificate", "write_certificate", "freeze", "thaw", "network_from_dict", "q", "qs"]

FORMAT = "reluid.certificate/3"
#: the previous format: a prose ``"reason"`` where /3 has structured ``"reasons"``
FORMAT_2 = "reluid.certificate/2"
MAX_CERTIFICATE_BYTES = 1 << 30
#: Deepest nesting of arrays and objects a certificate may have (the deepest written, a Farkas tree
#: with its splits, nests two levels per split: 400 allows trees about 195 splits deep).
MAX_NESTING = 400
#: Deepest nesting of a reason's parameters (reasons hold a few levels of nested reasons and lists).
MAX_REASON_NESTING = 16


class ClaimKind(enum.StrEnum):
    """Every claim kind reluid writes (docs/certificates.md lists their evidence).

    A certificate read from disk may carry a kind outside this list; it is
    kept as a plain string and the checker treats it as a claim it does not
    need.
    """

    EMPTY = "empty"
    GENERIC_STRATUM = "generic-stratum"
    NO_FLIP_SET = "no-flip-set"
    FLIP_SET = "flip-set"
    ESSENTIAL_STRATUM = "essential-stratum"
    NO_OTHER_PATTERN = "no-other-pattern"
    WITNESS = "witness"
    PAPER_CONDITION = "paper-condition"
    DEEP_DEAD_NEURON = "deep-dead-neuron"
    DEEP_ALWAYS_ACTIVE = "deep-always-active"
    DEEP_NEVER_COACTIVE = "deep-never-coactive"
    DEEP_LAYER_FLIP = "deep-layer-flip"
    DEEP_ZERO_OUTGOING = "deep-zero-outgoing"
    DEEP_PROPORTIONAL = "deep-proportional"
    DEEP_COLLAPSED_KINK = "deep-collapsed-kink"
    DEEP_AFFINE_FLIP = "deep-affine-layer-flip"
    DEEP_WITNESS = "deep-witness"
    DEEP_ACTIVITY = "deep-activity-witnesses"
    DEEP_NO_LAYER_FLIP = "deep-no-layer-flip"
    FUNCTIONAL_DIMENSION = "functional-dimension"
    LOCAL_IDENTIFIABILITY = "local-identifiability"
    FIBRE_ORBITS = "fibre-orbits"
    DEEP_TWO_LAYER_HYPOTHESES = "deep-two-layer-hypotheses"
    DEEP_LAYER_NO_FLIP_SET = "deep-layer-no-flip-set"
    REDUCED_NO_HIDDEN = "reduced-no-hidden-symmetries"
    DEEP_TWO_LAYER_PINNING = "deep-two-layer-pinning"
    DEEP_THREE_LAYER_HYPOTHESES = "deep-three-layer-hypotheses"
    DEEP_THREE_LAYER_CLASH = "deep-three-layer-clash"


class ClaimRole(Name):
    """The producer's label of a claim (never believed: see :class:`Claim`)."""

    VERDICT = "verdict"
    INFORMATION = "information"


#: The claim kind that proves each deep mechanism's premise (the producer writes it, the checker matches it).
PREMISE_KIND: Mapping[Mechanism, ClaimKind] = MappingProxyType({
    Mechanism.DEAD_NEURON: ClaimKind.DEEP_DEAD_NEURON, Mechanism.ALWAYS_ACTIVE: ClaimKind.DEEP_ALWAYS_ACTIVE,
    Mechanism.NEVER_COACTIVE: ClaimKind.DEEP_NEVER_COACTIVE, Mechanism.LAYER_FLIP: ClaimKind.DEEP_LAYER_FLIP,
    Mechanism.ZERO_OUTGOING: ClaimKind.DEEP_ZERO_OUTGOING, Mechanism.PROPORTIONAL_NEURONS: ClaimKind.DEEP_PROPORTIONAL,
    Mechanism.COLLAPSED_KINK: ClaimKind.DEEP_COLLAPSED_KINK, Mechanism.AFFINE_LAYER_FLIP: ClaimKind.DEEP_AFFINE_FLIP})


def _kind(kind):
    try:
        return ClaimKind(kind)
    except ValueError:
        return str(kind)


def q(x) -> Fraction:
    """Read one certificate number (int or ``"p/q"``), rejecting anything else."""
    if isinstance(x, bool):
        raise CertificateError(f"boolean where a number was expected: {x!r}")
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, str):
        try:
            return parse_canonical(x)
        except ReluidError as e:
            raise CertificateError(str(e)) from None
    shown = repr(x) if isinstance(x, (int, type(None))) else repr(x)[:60]
    raise CertificateError(f"expected an integer or 'p/q' string, got {type(x).__name__} {shown}")


def qs(xs) -> tuple[Fraction, ...]:
    if not isinstance(xs, (list, tuple)):
        raise CertificateError(f"expected a list of numbers, got {type(xs).__name__}")
    return tuple(q(x) for x in xs)


@dataclass(frozen=True, slots=True)
class Claim:
    """One statement with its evidence.

    ``role`` is the producer's label: ``"verdict"`` for claims it meant the
    verdict to rest on, ``"information"`` for side facts.  Like the kind and
    the statement it is never believed: the checker verifies every claim as
    the statement its kind and evidence make, and its own rule decides which
    ones the verdict needs.
    """

    id: str
    kind: ClaimKind | str
    statement: str
    reference: str
    evidence: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    role: str = ClaimRole.VERDICT

    def __post_init__(self):
        object.__setattr__(self, "kind", _kind(self.kind))
        object.__setattr__(self, "evidence", freeze(self.evidence))
        if self.role not in tuple(ClaimRole):
            raise CertificateError(f"claim {self.id}: role must be 'verdict' or 'information'")

    def __repr__(self) -> str:
        return f"<Claim {self.id} {self.kind} ({self.role}): {_clip(self.statement, 60)}>"

    def to_dict(self) -> dict:
        return {"id": self.id, "kind": str(self.kind), "statement": self.statement,
                "reference": self.reference, "role": self.role, "evidence": thaw(self.evidence)}


@dataclass(frozen=True, slots=True)
class Witness:
    """A network θ′ with the same function as θ outside its orbit, and how it arose."""

    mechanism: str
    network: Network
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self):
        object.__setattr__(self, "details", freeze(self.details))

    def __repr__(self) -> str:
        return f"<Witness {self.mechanism}, network {self.network.architecture}>"

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "network": self.network.to_dict(),
                "details": thaw(self.details)}


@dataclass(frozen=True, slots=True)
class Certificate:
    """A verdict about one network with its claims; see module docstring."""

    verdict: Verdict
    network_sha256: str
    architecture: tuple[int, ...]
    claims: tuple[Claim, ...] = ()
    network: Network | None = None
    witness: Witness | None = None
    #: why an unknown is unknown, as data (:mod:`reluid.report.reasons` words them); never evidence
    reasons: tuple[Reason, ...] = ()
    producer: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: :attr:`Network.assumption` of the network certified: what was taken to
    #: hold where the input did not say.  Recorded and shown, never checkable.
    assumption: str | None = None
    #: the prose reason of a ``reluid.certificate/2`` file (shown as it stands); new certificates use ``reasons``
    reason: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "verdict", Verdict(self.verdict))
        object.__setattr__(self, "reasons", tuple(self.reasons))
        object.__setattr__(self, "architecture", tuple(self.architecture))
        object.__setattr__(self, "claims", tuple(self.claims))
        object.__setattr__(self, "producer", freeze(self.producer))
        if self.verdict is Verdict.HIDDEN and self.witness is None:
            raise CertificateError("a hidden-symmetry certificate needs a witness network")
        if self.verdict is Verdict.UNKNOWN and not (self.reasons or self.reason):
            raise CertificateError("an unknown verdict needs a reason")
        if self.reasons and self.reason:
            raise CertificateError("a certificate has structured reasons (format /3) or a prose reason (/2), not both")

    def _summary(self) -> list[tuple[str, str]]:
        out = [("verdict", self.verdict.value), ("architecture", "-".join(map(str, self.architecture))),
               ("network", f"sha256 {self.network_sha256[:12]}…" + (" (embedded)" if self.network is not None
                                                                      else " (not embedded)")),
               ("claims", str(len(self.claims)))]
        if self.witness is not None:
            out.append(("witness", self.witness.mechanism))
        if self.reasons or self.reason:
            out.append(("reason", _clip(self.reason or ", ".join(str(r.code) for r in self.reasons), 100)))
        if self.assumption:
            out.append(("assumption", _clip(self.assumption, 60)))
        return out

    def __repr__(self) -> str:
        """One line (a certificate's fields run to megabytes): ``to_json`` gives everything."""
        d = dict(self._summary())
        parts = [d["verdict"], d["architecture"], d["network"], f"{d['claims']} claims"]
        parts += [f"{k}: {d[k]}" for k in ("witness", "reason", "assumption") if k in d]
        return "<Certificate " + ", ".join(parts) + ">"

    def _repr_html_(self) -> str:
        """A small table for notebooks (``reluid.report.generate_html`` renders the whole report)."""
        import html
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                       for k, v in self._summary())
        return f"<table><caption>reluid certificate</caption>{rows}</table>"

    def to_dict(self) -> dict:
        d = {"format": FORMAT_2 if self.reason else FORMAT, "verdict": self.verdict.value}
        if self.reasons:
            d["reasons"] = [r.to_dict() for r in self.reasons]
        if self.reason:
            d["reason"] = self.reason
        d["network"] = {"sha256": self.network_sha256, "architecture": list(self.architecture)}
        if self.network is not None:
            d["network"]["embedded"] = self.network.to_dict()
            d["network"]["embedded"].pop("assumption", None)  # recorded once, in the network block
        if self.assumption:
            d["network"]["assumption"] = self.assumption
        d["claims"] = [c.to_dict() for c in self.claims]
        d["witness"] = self.witness.to_dict() if self.witness else None
        d["producer"] = thaw(self.producer)
        return d


def _clip(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 1] + "…"


_SCALAR_LIST = re.compile(r"\[\s+([^\[\]{}\"]*?(?:\"[^\"\[\]{}]*\"[^\[\]{}\"]*?)*)\s+\]")


def to_json(cert: Certificate, indent: int | None = 1) -> str:
    """Serialise; floats never appear (``freeze`` rejects them).

    Lists of scalars are written on one line so that matrices stay readable.
    """
    text = json.dumps(cert.to_dict(), indent=indent, ensure_ascii=False)
    if indent is not None:
        text = _SCALAR_LIST.sub(lambda mt: "[" + re.sub(r",\s+", ", ", mt.group(1)) + "]", text)
    return text + "\n"


def _reject_float(text, what="certificate"):
    raise CertificateError(f"JSON float {text} in {what}; numbers must be integers or 'p/q' strings")


def _reject_constant(text):
    raise CertificateError(f"JSON constant {text} in certificate")


def _unique_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise CertificateError(f"duplicate key {k!r}")
        out[k] = v
    return out


def strict_json(text: str | bytes, what: str):
    """``json.loads`` for reluid's exact documents: no floats, NaN or duplicate keys; one clear error otherwise."""
    try:
        doc = json.loads(text, parse_float=lambda t: _reject_float(t, what), parse_constant=_reject_constant,
                          object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as e:
        raise CertificateError(f"not valid JSON ({e.msg} at line {e.lineno})") from None
    except RecursionError:
        raise CertificateError("JSON nested too deeply") from None
    except ValueError as e:      # integers beyond CPython's digit limit, invalid UTF-8
        why = "an integer with more than 4300 digits" if "digits" in str(e) else str(e)[:80]
        raise CertificateError(f"unreadable JSON ({why})") from None
    if _nesting(doc) > MAX_NESTING:
        raise CertificateError(f"JSON nested more than {MAX_NESTING} levels deep")
    return doc


def _nesting(obj) -> int:
    """The deepest nesting of arrays and objects in parsed JSON (a walk without recursion)."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((v, depth + 1) for v in node)
    return deepest


def _need(d, key, typ, where):
    if not isinstance(d, dict) or key not in d:
        raise CertificateError(f"{where}: missing field {key!r}")
    v = d[key]
    if not isinstance(v, typ) or isinstance(v, bool) and typ is not bool:
        raise CertificateError(f"{where}: field {key!r} has the wrong type ({type(v).__name__})")
    return v


def network_from_dict(d, where="network") -> Network:
    """Strict reader for an embedded ``reluid.network/1`` object (ints and "p/q" only)."""
    if not isinstance(d, dict) or d.get("format") != "reluid.network/1":
        raise CertificateError(f"{where}: not a reluid.network/1 object")
    layers = _need(d, "layers", list, where)
    for key in ("name", "description"):
        if d.get(key) is not None and not isinstance(d[key], str):
            raise CertificateError(f"{where}: field {key!r} must be a string")
    built = []
    try:
        for i, L in enumerate(layers):
            W = _need(L, "weight", list, f"{where}.layers[{i}]")
            b = _need(L, "bias", list, f"{where}.layers[{i}]")
            Wq = tuple(qs(r) for r in W)
            n_in = len(Wq[0]) if Wq else L.get("inputs", built[-1].n_out if built else None)
            if not Wq and not built and (not isinstance(n_in, int) or isinstance(n_in, bool)):
                raise CertificateError(f"{where}.layers[{i}]: a layer with no rows needs 'inputs', an integer")
            built.append(Layer.from_lists(Wq, qs(b), n_in=built[-1].n_out if built else n_in, index=i))
        return Network(tuple(built), name=d.get("name"), description=d.get("description"))
    except InvalidNetwork as e:
        raise CertificateError(f"{where}: {e}") from None


def from_json(text: str | bytes) -> Certificate:
    """Parse a certificate strictly (no floats, exact rationals, known verdicts)."""
    d = strict_json(text, "certificate")
    if isinstance(d, dict) and d.get("format") == "reluid.certificate/1":
        raise CertificateError("a reluid.certificate/1 file (claims with trust labels, which the checker no longer "
                               "reads): certify the network again")
    if isinstance(d, dict) and d.get("format") == "reluid.alignment/1":
        raise CertificateError("an alignment certificate (reluid.alignment/1): re-verify it with "
                               "`reluid align --verify CERT A B`")
    if isinstance(d, dict) and d.get("format") == "reluid.reduction/1":
        raise CertificateError("a reduction certificate (reluid.reduction/1): re-verify it with "
                               "`reluid minimal --verify CERT NET REDUCED`")
    if not isinstance(d, dict) or d.get("format") not in (FORMAT, FORMAT_2):
        raise CertificateError(f"not a {FORMAT} certificate (format field is {d.get('format') if isinstance(d, dict) else None!r})")
    try:
        verdict = Verdict(_need(d, "verdict", str, "certificate"))
    except ValueError:
        raise CertificateError(f"unknown verdict {d.get('verdict')!r}") from None
    net_d = _need(d, "network", dict, "certificate")
    sha = _need(net_d, "sha256", str, "network")
    arch = _need(net_d, "architecture", list, "network")
    if not all(isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in arch):
        raise CertificateError("network.architecture must be a list of non-negative integers")
    embedded = network_from_dict(net_d["embedded"], "network.embedded") if "embedded" in net_d else None
    assumption = net_d.get("assumption")
    if assumption is not None and (not isinstance(assumption, str) or not assumption):
        raise CertificateError("network.assumption must be a non-empty string")
    claims = []
    for i, c in enumerate(_need(d, "claims", list, "certificate")):
        where = f"claims[{i}]"
        claims.append(Claim(id=_need(c, "id", str, where), kind=_need(c, "kind", str, where),
                            statement=_need(c, "statement", str, where),
                            reference=_need(c, "reference", str, where),
                            evidence=_need(c, "evidence", dict, where), role=_need(c, "role", str, where)))
    w = d.get("witness")
    witness = None
    if w is not None:
        witness = Witness(mechanism=_need(w, "mechanism", str, "witness"),
                          network=network_from_dict(_need(w, "network", dict, "witness"), "witness.network"),
                          details=w.get("details") or {})
    producer = d.get("producer") or {}
    if not isinstance(producer, dict):
        raise CertificateError("producer must be an object")
    reasons, reason = (_reasons(d), None) if d["format"] == FORMAT else ((), d.get("reason"))
    if reason is not None and not isinstance(reason, str):
        raise CertificateError("reason must be a string")
    return Certificate(verdict=verdict, network_sha256=sha, architecture=tuple(arch), claims=tuple(claims),
                       network=embedded, witness=witness, reasons=reasons, producer=producer,
                       assumption=assumption, reason=reason)


def _reasons(d) -> tuple[Reason, ...]:
    """The ``"reasons"`` of a /3 certificate: a list of ``{"code": str, "params": {...}}`` (not evidence)."""
    if "reason" in d:
        raise CertificateError(f"a {FORMAT} certificate gives its reasons as 'reasons', not a prose 'reason'")
    items = d.get("reasons", [])
    if not isinstance(items, list):
        raise CertificateError("reasons must be a list")
    out = []
    for i, r in enumerate(items):
        code, params = _need(r, "code", str, f"reasons[{i}]"), _need(r, "params", dict, f"reasons[{i}]")
        if _nesting(params) > MAX_REASON_NESTING:
            raise CertificateError(f"reasons[{i}]: params nested more than {MAX_REASON_NESTING} levels deep")
        out.append(Reason(code, params))
    return tuple(out)


def read_certificate(path) -> Certificate:
    """Read and parse a certificate file; errors name the file."""
    import os
    try:
        if os.path.getsize(path) > MAX_CERTIFICATE_BYTES:
            raise CertificateError("certificate file larger than 1 GiB", str(path))
        with open(path, "rb") as fh:
            text = fh.read()
    except OSError as e:
        raise CertificateError(f"cannot read certificate ({e.strerror or e})", str(path)) from None
    try:
        return from_json(text)
    except CertificateError as e:
        raise CertificateError(e.message, str(path)) from None


def write_certificate(cert: Certificate, path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(to_json(cert))
