"""The public entry points (re-exported by :mod:`reluid`)."""

from __future__ import annotations

from reluid.certificates.schema import Certificate
from reluid.model.network import Network, Shallow

__all__ = ["certify", "check"]


def certify(net: Network | Shallow, *, timeout: float | None = 60.0, seed: int = 0, embed: bool | None = None,
            progress: bool = False) -> Certificate:
    """Decide whether ``net`` has hidden symmetries and return a certificate.

    Shallow networks (one hidden layer) get the complete decision of
    :func:`reluid.analysis.shallow.decide.decide`; deeper networks get exact
    mechanism detection (:func:`reluid.analysis.deep.certify.certify_deep`),
    which never claims ``no-hidden-symmetries``.

    Parameters
    ----------
    net : Network or Shallow
    timeout : float or None
        Seconds for searches; running out gives an ``unknown`` verdict.
    seed : int
        Seed recorded in the certificate.
    embed : bool or None
        Embed the network in the certificate so that it stands alone (default:
        when it has at most 20 000 parameters).

    Examples
    --------
    >>> from reluid.model import Shallow
    >>> cert = certify(Shallow.make([1, 1], [[1], [1]], [0, 1], [0]))   # σ(x) + σ(x + 1)
    >>> cert.verdict.value, check(cert).valid
    ('no-hidden-symmetries', True)
    """
    if isinstance(net, Shallow):
        net = net.to_network()
    if net.is_shallow:
        from reluid.analysis.shallow.decide import decide
        from reluid.certificates.build import certificate_from_decision

        d = decide(net.shallow(), timeout=timeout, seed=seed, progress=progress)
        return certificate_from_decision(net, d, embed=embed, timeout=timeout, seed=seed)
    from reluid.analysis.deep.certify import certify_deep

    return certify_deep(net, timeout=timeout, seed=seed)


def check(cert: Certificate, network: Network | None = None):
    """Re-verify a certificate with the independent checker (no z3, no search code)."""
    from reluid.checker.check import check_certificate

    return check_certificate(cert, network)
