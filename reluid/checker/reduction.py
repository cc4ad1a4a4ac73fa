"""Re-verify a ``reluid.reduction/1`` document step by step, with the model and the Farkas-tree checker alone.

The rule: starting from the original network (its SHA-256 must be the
document's), each step names one neuron of the current network and a rule; the
checker recomputes that the rule's premise holds for *that* neuron of *that*
network, applies the rule itself, and compares the SHA-256 of what it built
with the step's ``result``.  The last network must be the reduced one (its
SHA-256 and its parameters).  Each rule keeps the function on all of R^{n0}
(docs/mathematics.md §11), so the reduced network computes exactly the
original's function.

Premises, recomputed:

``constant``  W^l[i, :] = 0, and the stated value is σ(b^l_i);
``zero-outgoing``  W^{l+1}[:, i] = 0;
``merge``  (W^l[i, :], b^l_i) = λ (W^l[into, :], b^l_into) with λ > 0 the stated factor;
``dead``  no input has z^l_i > 0: by inspection (l >= 2, row and bias <= 0: the
layer's inputs are >= 0) or by a ``reluid.farkas-tree/1`` certificate checked
with :func:`reluid.checker.farkas.verify_no_input` against the current network.

A malformed document (not JSON, JSON floats, duplicate keys, wrong shapes)
raises :class:`~reluid.errors.CertificateError`; a well-formed document whose
claim is false is *rejected*.

The claim ``reduced-no-hidden-symmetries`` of a certificate (``reluid certify``)
carries such a document, the reduced network and the reduced network's own
certificate; :func:`verify_reduced_no_hidden` re-verifies all three.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from reluid.certificates.schema import ClaimKind, network_from_dict, strict_json
from reluid.checker.farkas import verify_no_input
from reluid.checker.registry import Context, WorkLimit, charge, fail, verifies
from reluid.errors import CertificateError, CheckFailed, InvalidArgument
from reluid.model.jsondata import thaw
from reluid.model.network import Layer, Network
from reluid.model.rational import parse_canonical
from reluid.verdicts import ExitCode, PremiseMethod, ReductionRule, Verdict

__all__ = ["ReductionCheck", "parse_reduction", "read_reduction", "check_reduction", "verify_reduced_no_hidden"]

FORMAT = "reluid.reduction/1"
RULES = tuple(ReductionRule)
MAX_BYTES = 1 << 30
#: steps × parameters the standalone check may rebuild (about a minute of work)
WORK_LIMIT = 2**28


@dataclass(frozen=True, slots=True)
class ReductionCheck:
    """The checker's answer: ``valid`` with the rule applied, or the reason for rejecting."""

    valid: bool
    reason: str
    steps: int = 0

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.answer(self.valid)


class _Reject(Exception):
    pass


def _int(d, key, where) -> int:
    v = d.get(key)
    if type(v) is not int or v < 0:
        raise CertificateError(f"{where}: {key!r} must be a non-negative integer, got {v!r}")
    return v


def _rational(d, key, where) -> Fraction:
    v = d.get(key)
    if type(v) is int:
        return Fraction(v)
    if not isinstance(v, str):
        raise CertificateError(f"{where}: {key!r} must be an integer or a 'p/q' string, got {v!r}")
    try:
        return parse_canonical(v)
    except InvalidArgument as e:
        raise CertificateError(f"{where}: {key!r}: {e}") from None


def _check_shape(doc) -> dict:
    if not isinstance(doc, dict):
        raise CertificateError("a reduction document is a JSON object")
    if doc.get("format") != FORMAT:
        raise CertificateError(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    for side in ("original", "reduced"):
        d = doc.get(side)
        if not isinstance(d, dict) or not isinstance(d.get("sha256"), str):
            raise CertificateError(f"{side!r} must be an object with a 'sha256' string")
    steps = doc.get("steps")
    if not isinstance(steps, list):
        raise CertificateError("'steps' must be a list")
    for n, s in enumerate(steps, 1):
        where = f"step {n}"
        if not isinstance(s, dict) or s.get("step") != n:
            raise CertificateError(f"steps[{n - 1}] must be an object with \"step\": {n}")
        if s.get("rule") not in RULES:
            raise CertificateError(f"{where}: unknown rule {s.get('rule')!r} (one of {', '.join(RULES)})")
        if _int(s, "layer", where) < 1:
            raise CertificateError(f"{where}: 'layer' counts hidden layers from 1")
        _int(s, "neuron", where)
        if not isinstance(s.get("result"), str):
            raise CertificateError(f"{where}: 'result' must be a SHA-256 string")
        if s["rule"] == ReductionRule.MERGE:
            _int(s, "into", where)
            _rational(s, "factor", where)
        if s["rule"] == ReductionRule.CONSTANT:
            _rational(s, "value", where)
        if s["rule"] == ReductionRule.DEAD and not isinstance(s.get("premise"), dict):
            raise CertificateError(f"{where}: a dead neuron needs a 'premise' object")
    return doc


def parse_reduction(text: str | bytes) -> dict:
    """Parse the JSON text strictly (no floats, no NaN, no duplicate keys) and check its shape."""
    return _check_shape(strict_json(text, "a reduction document"))


def read_reduction(path) -> dict:
    """Read and parse a reduction document file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as e:
        raise CertificateError(f"cannot read: {e.strerror or e}", str(path)) from None
    if len(data) > MAX_BYTES:
        raise CertificateError("reduction document too large", str(path))
    try:
        return parse_reduction(data)
    except CertificateError as e:
        raise CertificateError(e.message, str(path)) from None


# ---- the checker's own edits -----------------------------------------------------

def _relu(x: Fraction) -> Fraction:
    return x if x > 0 else Fraction(0)


def _step(net: Network, s: Mapping, n: int) -> Network:
    """The network after step ``s``, built by the checker once the step's premise holds; _Reject otherwise."""
    rule, l, i = s["rule"], s["layer"], s["neuron"]
    where = f"step {n} ({rule}, hidden layer {l}, neuron {i + 1})"
    hidden = net.hidden_widths
    if l > len(hidden):
        raise _Reject(f"{where}: the network has {len(hidden)} hidden layer(s)")
    if i >= hidden[l - 1]:
        raise _Reject(f"{where}: hidden layer {l} has {hidden[l - 1]} neuron(s)")
    L, N = net.layers[l - 1], net.layers[l]
    W = [list(r) for r in N.weight]
    c = list(N.bias)
    if rule == ReductionRule.CONSTANT:
        if any(L.weight[i]):
            raise _Reject(f"{where}: the incoming row W^{l}[{i + 1}, :] is not zero")
        value = _relu(L.bias[i])
        if _rational(s, "value", where) != value:
            raise _Reject(f"{where}: the stated value is not σ(b^{l}_{i + 1}) = {value}")
        c = [cc + value * row[i] for cc, row in zip(c, W)]
    elif rule == ReductionRule.ZERO_OUTGOING:
        if any(row[i] for row in W):
            raise _Reject(f"{where}: the outgoing weights W^{l + 1}[:, {i + 1}] are not zero")
    elif rule == ReductionRule.MERGE:
        j = s["into"]
        if j >= hidden[l - 1] or j == i:
            raise _Reject(f"{where}: 'into' must be another neuron of hidden layer {l}")
        ri, rj = L.weight[i] + (L.bias[i],), L.weight[j] + (L.bias[j],)
        lead = next((t for t, x in enumerate(rj) if x), None)
        lam = None if lead is None else ri[lead] / rj[lead]
        if lam is None or lam <= 0 or any(x != lam * y for x, y in zip(ri, rj)):
            raise _Reject(f"{where}: its incoming row and bias are not a positive multiple of neuron {j + 1}'s")
        if _rational(s, "factor", where) != lam:
            raise _Reject(f"{where}: the stated factor is not λ = {lam}")
        for row in W:
            row[j] += lam * row[i]
    else:   # dead
        premise = s["premise"]
        if "tree" in premise:
            try:
                verify_no_input(net, [(l, i, ">0")], premise["tree"], claim=f"step {n}")
            except CheckFailed as e:
                raise _Reject(f"{where}: the Farkas tree does not prove that no input has z^{l}_{i + 1} > 0 "
                              f"({e.reason})") from None
        elif premise.get("method") == PremiseMethod.ORTHANT:
            if l < 2 or any(w > 0 for w in L.weight[i]) or L.bias[i] > 0:
                raise _Reject(f"{where}: not dead by inspection (that needs hidden layer >= 2 and an incoming "
                              "row and bias <= 0 entrywise)")
        else:
            raise _Reject(f"{where}: the premise gives neither a Farkas tree nor the inspection 'orthant'")
    layers = list(net.layers)
    layers[l - 1] = Layer(L.weight[:i] + L.weight[i + 1:], L.bias[:i] + L.bias[i + 1:], L.n_in)
    layers[l] = Layer(tuple(tuple(r[:i] + r[i + 1:]) for r in W), tuple(c), L.n_out - 1)
    return Network(tuple(layers))


def _walk(doc: dict, original: Network, reduced: Network, charge_steps) -> int:
    if doc["original"]["sha256"] != original.sha256():
        raise _Reject("the original network's SHA-256 does not match the document")
    if doc["reduced"]["sha256"] != reduced.sha256():
        raise _Reject("the reduced network's SHA-256 does not match the document")
    if (original.input_dim, original.output_dim, original.depth) != \
            (reduced.input_dim, reduced.output_dim, reduced.depth):
        raise _Reject(f"architectures {original.architecture} and {reduced.architecture} do not have the same "
                      "inputs, outputs and number of layers")
    steps = doc["steps"]
    charge_steps(len(steps) * (original.n_params + 1))
    cur = original
    for n, s in enumerate(steps, 1):
        cur = _step(cur, s, n)
        if cur.sha256() != s["result"]:
            raise _Reject(f"step {n}: the network the checker built has another SHA-256 than the step's result")
    if cur != reduced:
        raise _Reject("the steps do not end at the reduced network")
    return len(steps)


def check_reduction(doc: Mapping | str, original: Network, reduced: Network, *,
                    work_limit: int = WORK_LIMIT) -> ReductionCheck:
    """Re-verify that the steps of ``doc`` turn ``original`` into ``reduced`` exactly, each by its rule.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [2]], [0, 0]), ([[1, 3]], [0])])      # σ(2x) = 2 σ(x)
    >>> red = Network.from_lists([([[1]], [0]), ([[7]], [0])])
    >>> doc = {"format": FORMAT, "original": {"sha256": net.sha256()}, "reduced": {"sha256": red.sha256()},
    ...        "steps": [{"step": 1, "rule": "merge", "layer": 1, "neuron": 1, "into": 0, "factor": 2,
    ...                   "result": red.sha256()}]}
    >>> check_reduction(doc, net, red).valid
    True
    >>> doc["steps"][0]["factor"] = 3
    >>> check_reduction(doc, net, red).reason
    'step 1 (merge, hidden layer 1, neuron 2): the stated factor is not λ = 2'
    """
    doc = parse_reduction(doc if isinstance(doc, str) else json.dumps(thaw(doc)))

    def limit(steps):
        if steps > work_limit:
            raise _Reject(f"rebuilding {len(doc['steps'])} networks takes {steps:,} steps, past the work limit "
                          f"({work_limit:,})")

    try:
        n = _walk(doc, original, reduced, limit)
    except _Reject as e:
        return ReductionCheck(False, str(e))
    return ReductionCheck(True, f"the hashes name the two networks and {n} step(s), each re-verified by its rule, "
                                "turn the original into the reduced network exactly: the same function", n)


@verifies(ClaimKind.REDUCED_NO_HIDDEN)
def verify_reduced_no_hidden(evidence, ctx: Context) -> str:
    """The reduction steps from θ (re-verified) and the reduced network's own certificate (valid, no hidden symmetries)."""
    from reluid.certificates.schema import from_json
    from reluid.checker.check import check_certificate

    try:
        doc = _check_shape(strict_json(json.dumps(thaw(evidence["reduction"])), "a reduction document"))
        reduced = network_from_dict(thaw(evidence["network"]), "reduced network")
        cert = from_json(json.dumps(thaw(evidence["certificate"])))
    except CertificateError as e:
        fail(ctx, f"malformed evidence: {e}")
    try:
        n = _walk(doc, ctx.network, reduced, lambda steps: charge(ctx, steps, "rebuilding the reduction steps"))
    except _Reject as e:
        fail(ctx, f"the reduction is not valid: {e}")
    if cert.network_sha256 != reduced.sha256():
        fail(ctx, "the embedded certificate is about another network than the reduced one")
    if cert.verdict is not Verdict.NO_HIDDEN:
        fail(ctx, f"the reduced network's certificate says {cert.verdict.value}, not no-hidden-symmetries")
    left = ctx.budget.limit - ctx.budget.used
    report = check_certificate(cert, reduced, work_limit=max(1, left))
    if not report.valid and any(c.over_limit for c in report.claims):
        raise WorkLimit(ctx.claim_id or "claim", "the reduced network's certificate needs more than the work left "
                                                 f"({left:,} steps)")
    if not report.valid:
        fail(ctx, f"the reduced network's certificate does not verify: {report.reason}")
    return (f"{n} reduction step(s) re-verified, ending at the reduced network {reduced.architecture}; its own "
            f"certificate verified: {report.rule}")
