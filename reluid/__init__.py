"""reluid: exact verification of the symmetries of ReLU networks.

The supported API is listed in ``__all__``.  Names are imported lazily (PEP
562) so that ``import reluid.checker`` stays free of the solver and search
code.

>>> import reluid
>>> net = reluid.Shallow.make([1, 1], [[1], [1]], [0, 1], [0]).to_network()   # σ(x) + σ(x+1)
>>> cert = reluid.certify(net)
>>> cert.verdict.value, reluid.check(cert).valid
('no-hidden-symmetries', True)
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_EXPORTS = {
    # model
    "Network": "reluid.model.network", "Layer": "reluid.model.network", "Shallow": "reluid.model.network",
    "GroupElement": "reluid.model.symmetry", "to_rational": "reluid.model.rational",
    # files
    "load": "reluid.io", "save": "reluid.io", "parse_network": "reluid.io", "generate_json": "reluid.io",
    "from_torch": "reluid.io.torch_adapter", "from_sklearn": "reluid.io.sklearn_adapter",
    # shallow analyses
    "function_data": "reluid.analysis.shallow.function", "equivalent": "reluid.analysis.shallow.function",
    "canonical_form": "reluid.analysis.shallow.orbit", "is_canonical": "reluid.analysis.shallow.orbit",
    "same_orbit": "reluid.analysis.shallow.orbit",
    "minimal_form": "reluid.analysis.shallow.minimal", "is_minimal": "reluid.analysis.shallow.minimal",
    "zero_factor_reduction": "reluid.analysis.shallow.minimal", "ominus": "reluid.analysis.shallow.minimal",
    "stabilizer": "reluid.analysis.shallow.stabilizer",
    "decide": "reluid.analysis.shallow.decide",
    "find_flip_set": "reluid.analysis.shallow.flipsets",
    "functional_dimension": "reluid.analysis.deep.fundim",
    # certificates
    "certify": "reluid.api", "check": "reluid.api",
    "Certificate": "reluid.certificates.schema", "Verdict": "reluid.certificates.schema",
    "read_certificate": "reluid.certificates.schema", "write_certificate": "reluid.certificates.schema",
    # errors
    "ReluidError": "reluid.errors", "InvalidNetwork": "reluid.errors", "CheckFailed": "reluid.errors",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'reluid' has no attribute {name!r}")
    value = getattr(importlib.import_module(mod), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
