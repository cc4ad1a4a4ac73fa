"""The public entry points (re-exported by :mod:`reluid`)."""

from __future__ import annotations

import sys

from reluid.certificates.schema import Certificate
from reluid.model.network import Network, Shallow

__all__ = ["certify", "check", "as_network"]


def as_network(net) -> Network:
    """``net`` as a :class:`Network`: a Shallow θ, a torch module or a fitted scikit-learn MLP are converted.

    torch and scikit-learn objects are recognised only when the caller has
    already imported those libraries, so nothing here imports them.
    """
    if isinstance(net, Network):
        return net
    if isinstance(net, Shallow):
        return net.to_network()
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(net, torch.nn.Module):
        from reluid.io.torch_adapter import from_torch
        return from_torch(net)
    if "sklearn" in sys.modules and type(net).__module__.startswith("sklearn."):
        from reluid.io.sklearn_adapter import from_sklearn
        return from_sklearn(net)
    from reluid.errors import InvalidArgument
    raise InvalidArgument(f"certify expects a Network, Shallow, torch.nn.Module or fitted scikit-learn MLP, "
                          f"got {type(net).__name__}")


def certify(net, *, timeout: float | None = 60.0, seed: int = 0, embed: bool | None = None,
            progress: bool = False) -> Certificate:
    """Decide whether ``net`` has hidden symmetries and return a certificate.

    Shallow networks (one hidden layer) get the complete decision of
    :func:`reluid.analysis.shallow.decide.decide`; deeper networks get exact
    mechanism detection (:func:`reluid.analysis.deep.certify.certify_deep`),
    which never claims ``no-hidden-symmetries``.

    Parameters
    ----------
    net : Network, Shallow, torch.nn.Module or fitted scikit-learn MLP
        A module or estimator is read by :func:`reluid.from_torch` /
        :func:`reluid.from_sklearn` with their defaults (call those yourself
        for ``input_shape`` or ``batchnorm="float32"``).
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
    net = as_network(net)
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
