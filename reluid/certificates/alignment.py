"""The ``reluid.alignment/1`` document: a certificate that one network is a relabelling of another.

It records the group element g (one permutation and one list of positive
scalings per hidden layer) with ``act_layers(g, other) == reference``, and names
both networks by the SHA-256 of their canonical exact serialisation
(:meth:`~reluid.model.network.Network.sha256`).  Every scaling is an exact
``"p/q"`` string (``"p"`` when integral).  :mod:`reluid.checker.alignment`
re-verifies it with the model alone.

Layout::

    {"format": "reluid.alignment/1",
     "statement": "act_layers(layers, other) == reference ...",
     "convention": "...",
     "reference": {"sha256": "...", "architecture": [...], "name": "..."},
     "other":     {"sha256": "...", "architecture": [...], "name": "..."},
     "aligned":   {"sha256": "...", "file": "..."},        # the written network; equals the reference
     "layers": [{"layer": 1, "perm": [...], "scale": ["p/q", ...]}, ...],
     "producer": {"reluid": "..."}}                       # informational
"""

from __future__ import annotations

import json
from typing import Sequence

from reluid.model.network import Network
from reluid.model.symmetry import GroupElement

__all__ = ["FORMAT", "STATEMENT", "CONVENTION", "alignment_document", "generate_alignment_json", "write_alignment"]

FORMAT = "reluid.alignment/1"
STATEMENT = ("act_layers(layers, other) == reference: the other network, with each hidden layer permuted and "
             "positively rescaled as listed, has exactly the reference's parameters, so both compute the same "
             "function")
CONVENTION = ("neuron i of hidden layer l of the other network moves to position perm[i]; its incoming weights "
              "and bias are multiplied by scale[i] and its outgoing weights divided by scale[i]")


def _q(x) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def alignment_document(reference: Network, other: Network, elements: Sequence[GroupElement], *,
                       reference_name: str | None = None, other_name: str | None = None,
                       aligned_file: str | None = None) -> dict:
    """The ``reluid.alignment/1`` document for ``act_layers(elements, other) == reference``.

    Nothing is checked here: :func:`reluid.checker.alignment.check_alignment` does that.
    """
    from reluid._version import __version__

    def named(net, name):
        d = {"sha256": net.sha256(), "architecture": list(net.architecture)}
        if name or net.name:
            d["name"] = name or net.name
        return d

    aligned = {"sha256": reference.sha256()}
    if aligned_file:
        aligned["file"] = aligned_file
    return {"format": FORMAT, "statement": STATEMENT, "convention": CONVENTION,
            "reference": named(reference, reference_name), "other": named(other, other_name), "aligned": aligned,
            "layers": [{"layer": l, "perm": list(g.perm), "scale": [_q(s) for s in g.scale]}
                       for l, g in enumerate(elements, 1)],
            "producer": {"reluid": __version__}}


def generate_alignment_json(doc: dict) -> str:
    """The document as JSON text: one key per line, one line per hidden layer."""
    items = []
    for k, v in doc.items():
        if k == "layers":
            inner = ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in v)
            items.append(f' "layers": [\n{inner}\n ]' if v else ' "layers": []')
        else:
            items.append(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
    return "{\n" + ",\n".join(items) + "\n}\n"


def write_alignment(doc: dict, path) -> None:
    """Write the document as JSON text."""
    import os

    d = os.path.dirname(os.fspath(path))
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(generate_alignment_json(doc))
