"""The verifier registry (reluid/checker/registry.py)."""

from __future__ import annotations

import pytest

from reluid.certificates.schema import ClaimKind
import reluid.checker.check  # noqa: F401  (registers every verifier)
from reluid.checker import registry
from reluid.checker.registry import VERIFIERS, Context, fail, verifies
from reluid.errors import CheckFailed
from reluid.model.network import Network, Shallow


def test_every_kind_the_checker_knows_is_registered_once():
    known = {str(k) for k in ClaimKind} - {"witness"}       # the witness claim is verified against the certificate
    assert set(VERIFIERS) == known


def test_verifies_registers_under_the_string_kind(monkeypatch):
    monkeypatch.setattr(registry, "VERIFIERS", dict(VERIFIERS))

    def v(ev, ctx):
        return "ok"

    assert verifies("brand-new")(v) is v
    assert registry.VERIFIERS["brand-new"] is v
    with pytest.raises(RuntimeError, match=r"^two verifiers for claim kind 'brand-new'$"):
        verifies("brand-new")(lambda ev, ctx: "other")
    assert registry.VERIFIERS["brand-new"] is v
    with pytest.raises(RuntimeError, match=r"two verifiers for claim kind <ClaimKind.EMPTY: 'empty'>"):
        verifies(ClaimKind.EMPTY)(v)
    assert registry.VERIFIERS["empty"] is VERIFIERS["empty"]


def test_fail_names_the_claim():
    net = Shallow.make([1], [[1]], [0], [0]).to_network()
    with pytest.raises(CheckFailed) as e:
        fail(Context(net, "c3"), "because")
    assert (e.value.claim, e.value.reason, str(e.value)) == ("c3", "because", "c3: because")
    with pytest.raises(CheckFailed) as e:
        fail(Context(net), "because")
    assert e.value.claim == "claim"


def test_context_views_the_network():
    theta = Shallow.make([1, 2], [[1], [3]], [0, 1], [0])
    ctx = Context(theta.to_network(), "x")
    assert ctx.theta == theta and ctx.claim_id == "x" and Context(theta.to_network()).claim_id == ""
    assert isinstance(ctx.network, Network)
