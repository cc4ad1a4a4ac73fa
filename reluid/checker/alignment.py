"""Re-verify a ``reluid.alignment/1`` document with the model alone (no search code, no solver).

The rule: the document's hashes name exactly the two networks given (and the
aligned network it names is the reference), it lists one permutation with
positive scalings per hidden layer of the other network, and
``act_layers(layers, other) == reference`` holds exactly.  A malformed document
(not JSON, JSON floats, duplicate keys, wrong shapes, a rational not in lowest
terms) raises :class:`~reluid.errors.CertificateError`; a well-formed document
whose claim is false is *rejected*.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping

from reluid.certificates.schema import strict_json
from reluid.errors import CertificateError, InvalidArgument
from reluid.model.rational import parse_canonical
from reluid.model.network import Network
from reluid.model.symmetry import GroupElement, act_layers
from reluid.verdicts import ExitCode

__all__ = ["AlignmentCheck", "parse_alignment", "read_alignment", "check_alignment"]

FORMAT = "reluid.alignment/1"
MAX_BYTES = 1 << 28


@dataclass(frozen=True, slots=True)
class AlignmentCheck:
    """The checker's answer: ``valid`` with the rule applied, or the reason for rejecting."""

    valid: bool
    reason: str
    layers: int = 0

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.answer(self.valid)


def parse_alignment(text: str) -> dict:
    """Parse the JSON text strictly (no floats, no NaN, no duplicate keys) and check its shape."""
    doc = strict_json(text, "an alignment document")
    if not isinstance(doc, dict):
        raise CertificateError("an alignment document is a JSON object")
    if doc.get("format") != FORMAT:
        raise CertificateError(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    for side in ("reference", "other"):
        d = doc.get(side)
        if not isinstance(d, dict) or not isinstance(d.get("sha256"), str):
            raise CertificateError(f"{side!r} must be an object with a 'sha256' string")
    if "aligned" in doc and not (isinstance(doc["aligned"], dict) and isinstance(doc["aligned"].get("sha256"), str)):
        raise CertificateError("'aligned' must be an object with a 'sha256' string")
    layers = doc.get("layers")
    if not isinstance(layers, list):
        raise CertificateError("'layers' must be a list")
    for i, entry in enumerate(layers, 1):
        if not isinstance(entry, dict) or entry.get("layer") != i:
            raise CertificateError(f"layers[{i - 1}] must be an object with \"layer\": {i}")
        perm, scale = entry.get("perm"), entry.get("scale")
        if not isinstance(perm, list) or not all(type(p) is int for p in perm):
            raise CertificateError(f"layer {i}: 'perm' must be a list of integers")
        if not isinstance(scale, list) or not all(isinstance(s, str) for s in scale):
            raise CertificateError(f"layer {i}: 'scale' must be a list of 'p/q' strings")
        for s in scale:
            try:
                parse_canonical(s)
            except InvalidArgument as e:
                raise CertificateError(f"layer {i}: scale {e}") from None
    return doc


def read_alignment(path) -> dict:
    """Read and parse an alignment document file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as e:
        raise CertificateError(f"cannot read: {e.strerror or e}", str(path)) from None
    if len(data) > MAX_BYTES:
        raise CertificateError("alignment document too large", str(path))
    try:
        return parse_alignment(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CertificateError("not UTF-8 text", str(path)) from None
    except CertificateError as e:
        raise CertificateError(e.message, str(path)) from None


def check_alignment(doc: Mapping | str, reference: Network, other: Network) -> AlignmentCheck:
    """Re-verify ``act_layers(doc's layers, other) == reference`` exactly, and the hashes.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [2]], [0, 1]), ([[1, 1]], [0])])
    >>> from fractions import Fraction
    >>> g = GroupElement((1, 0), (Fraction(3), Fraction(1, 2)))
    >>> other = act_layers([g], net)
    >>> doc = {"format": FORMAT, "reference": {"sha256": net.sha256()}, "other": {"sha256": other.sha256()},
    ...        "layers": [{"layer": 1, "perm": [1, 0], "scale": ["2", "1/3"]}]}
    >>> check_alignment(doc, net, other).valid
    True
    >>> doc["layers"][0]["scale"] = ["2", "1/2"]
    >>> check_alignment(doc, net, other).reason
    'act_layers(layers, other) differs from the reference in layer map 1'
    """
    if isinstance(doc, str):
        doc = parse_alignment(doc)
    else:
        doc = parse_alignment(json.dumps(doc))
    if doc["reference"]["sha256"] != reference.sha256():
        return AlignmentCheck(False, "the reference network's SHA-256 does not match the document")
    if doc["other"]["sha256"] != other.sha256():
        return AlignmentCheck(False, "the other network's SHA-256 does not match the document")
    if "aligned" in doc and doc["aligned"]["sha256"] != reference.sha256():
        return AlignmentCheck(False, "the aligned network named by the document is not the reference")
    if (reference.input_dim, reference.output_dim) != (other.input_dim, other.output_dim) or \
            reference.hidden_widths != other.hidden_widths:
        return AlignmentCheck(False, f"architectures {reference.architecture} and {other.architecture} differ")
    layers = doc["layers"]
    if len(layers) != len(other.hidden_widths):
        return AlignmentCheck(False, f"{len(layers)} layer entries for {len(other.hidden_widths)} hidden layers")
    gs = []
    for entry, n in zip(layers, other.hidden_widths):
        try:
            g = GroupElement(tuple(entry["perm"]), tuple(parse_canonical(s) for s in entry["scale"]))
        except InvalidArgument as e:
            return AlignmentCheck(False, f"layer {entry['layer']}: not a permutation with positive scalings ({e})")
        if g.n != n:
            return AlignmentCheck(False, f"layer {entry['layer']}: {g.n} entries for {n} neurons")
        gs.append(g)
    aligned = act_layers(gs, other)
    for l, (x, y) in enumerate(zip(aligned.layers, reference.layers), 1):
        if x != y:
            return AlignmentCheck(False, f"act_layers(layers, other) differs from the reference in layer map {l}")
    return AlignmentCheck(True, "the hashes name the two networks and act_layers(layers, other) == reference exactly",
                          len(gs))
