"""The ``reluid.reduction/1`` document: a step-by-step certificate that a smaller network computes the same function.

It lists the steps of :func:`reluid.analysis.reduction.reduce_network` in order,
each naming the neuron it removes (0-based, in the network before the step),
the rule, its premise evidence and the SHA-256 of the network after the step,
and names the original and the reduced network by the SHA-256 of their
canonical exact serialisation.  :mod:`reluid.checker.reduction` rebuilds every
intermediate network itself and re-verifies it.

Layout::

    {"format": "reluid.reduction/1",
     "statement": "...", "convention": "...",
     "original": {"sha256": "...", "architecture": [...], "name": "..."},
     "reduced":  {"sha256": "...", "architecture": [...], "file": "..."},
     "steps": [{"step": 1, "rule": "dead", "layer": 2, "neuron": 0, "premise": {"tree": {...}}, "result": "..."},
               {"step": 2, "rule": "merge", "layer": 1, "neuron": 3, "into": 1, "factor": "p/q", "result": "..."},
               {"step": 3, "rule": "constant", "layer": 1, "neuron": 2, "value": "p/q", "result": "..."},
               {"step": 4, "rule": "zero-outgoing", "layer": 3, "neuron": 5, "result": "..."}],
     "undecided": [{"layer": 2, "neuron": 4, "reason": {"code": "...", "params": {...}}}],  # informational: kept
     "producer": {"reluid": "..."}}                                 # informational
"""

from __future__ import annotations

import json

from reluid.model.jsondata import thaw
from reluid.model.rational import format_rational
from reluid.verdicts import Reason

__all__ = ["FORMAT", "STATEMENT", "CONVENTION", "reduction_document", "generate_reduction_json",
           "write_reduction"]

FORMAT = "reluid.reduction/1"
STATEMENT = ("each step removes one hidden neuron by its rule, keeping the function on all of R^n0; the steps, "
             "applied in order to the original network, give exactly the reduced network, so both compute the "
             "same function")
CONVENTION = ("neurons are 0-based indices in the network before the step, layers 1-based hidden layers; "
              "constant: W^l[i, :] = 0, b^(l+1) += value W^(l+1)[:, i] with value = σ(b^l_i); zero-outgoing: "
              "W^(l+1)[:, i] = 0; merge: (W^l[i, :], b^l_i) = factor (W^l[into, :], b^l_into), factor > 0, "
              "W^(l+1)[:, into] += factor W^(l+1)[:, i]; dead: no input has z^l_i > 0 (premise); then neuron i "
              "is deleted; result: the SHA-256 of the network after the step")


def _step(n: int, s) -> dict:
    d = {"step": n, "rule": s.rule, "layer": s.layer, "neuron": s.neuron}
    if s.into is not None:
        d["into"] = s.into
        d["factor"] = format_rational(s.factor)
    if s.value is not None:
        d["value"] = format_rational(s.value)
    if s.premise is not None:
        d["premise"] = thaw(s.premise)
    d["result"] = s.result
    return d


def reduction_document(reduction, *, original_name: str | None = None, reduced_file: str | None = None) -> dict:
    """The ``reluid.reduction/1`` document of a :class:`~reluid.analysis.reduction.Reduction`.

    Nothing is checked here: :func:`reluid.checker.reduction.check_reduction` does that.
    """
    from reluid._version import __version__

    orig, red = reduction.original, reduction.reduced
    o = {"sha256": orig.sha256(), "architecture": list(orig.architecture)}
    if original_name or orig.name:
        o["name"] = original_name or orig.name
    r = {"sha256": red.sha256(), "architecture": list(red.architecture)}
    if reduced_file:
        r["file"] = reduced_file
    doc = {"format": FORMAT, "statement": STATEMENT, "convention": CONVENTION, "original": o, "reduced": r,
           "steps": [_step(n, s) for n, s in enumerate(reduction.steps, 1)]}
    if reduction.undecided:
        doc["undecided"] = [{"layer": l, "neuron": i, "reason": _data(why)} if l > 0 else {"reason": _data(why)}
                            for l, i, why in reduction.undecided]
    doc["producer"] = {"reluid": __version__, "prover_queries": reduction.prover_queries}
    return doc


def _data(why):
    """A reason as its ``{"code", "params"}`` data (words, from an older producer, as they stand)."""
    return why.to_dict() if isinstance(why, Reason) else why


def generate_reduction_json(doc: dict) -> str:
    """The document as JSON text: one key per line, one line per step."""
    items = []
    for k, v in doc.items():
        if k in ("steps", "undecided"):
            inner = ",\n".join("  " + json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in v)
            items.append(f' "{k}": [\n{inner}\n ]' if v else f' "{k}": []')
        else:
            items.append(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
    return "{\n" + ",\n".join(items) + "\n}\n"


def write_reduction(doc: dict, path) -> None:
    """Write the document as JSON text."""
    import os

    d = os.path.dirname(os.fspath(path))
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(generate_reduction_json(doc))
