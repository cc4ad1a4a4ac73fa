"""reluid certify's estimate of the checker's work (cmd_certify.check_work) against the work the checker charges.

The estimate decides whether certify re-verifies its certificate inside the time budget; it used to be a
fixed 0.2 s for every one-hidden-layer certificate, while the stratum and the separation certificate cost
n (m + k) steps each (784-10000-10: 24 million steps, 2.4 s of CPU).
"""

import pytest

from benchmarks.bench_fundim import mlp
from reluid.api import certify
from reluid.checker import check as check_mod
from reluid.checker.registry import Budget
from reluid.cli.cmd_certify import check_estimate, check_work

#: The estimate is within this factor of the steps charged (networks without an enumerated paper condition).
FACTOR = 1.5


def _charged(cert, net, monkeypatch) -> int:
    budgets = []

    def recording(limit):
        budgets.append(Budget(limit))
        return budgets[-1]

    monkeypatch.setattr(check_mod, "Budget", recording)
    report = check_mod.check_certificate(cert, net)
    assert report.valid
    return sum(b.used for b in budgets)


@pytest.mark.parametrize("arch, seed", [((5, 20, 3), 0), ((10, 40, 4), 1), ((16, 64, 10), 0), ((30, 100, 2), 1)])
def test_estimate_is_within_a_factor_of_the_charged_work(arch, seed, monkeypatch):
    net = mlp(arch, seed)
    cert = certify(net, timeout=60)
    assert any(c.evidence.get("y") is not None for c in cert.claims)        # a separation certificate
    est, used = check_work(cert), _charged(cert, net, monkeypatch)
    assert used / FACTOR <= est <= used * FACTOR, (est, used)


def test_estimate_grows_with_the_network():
    m, n, k = 784, 4096, 10

    class Cert:                                    # what check_work reads: the architecture and the claims
        architecture = (m, n, k)
        claims = ()
        producer = {}

    # the stratum, recomputed twice, at least: no longer a constant
    assert check_work(Cert) == 2 * n * (m + k + 1)
    assert check_estimate(Cert) > 0.2 + 0.5
