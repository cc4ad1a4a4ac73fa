"""reluid: exact verification of the symmetries of ReLU networks.

The supported API is listed in ``__all__``: the functions of the façade
:mod:`reluid.api`, the model, the result types and the exception tree.  Names
are imported lazily (PEP 562), so ``import reluid`` is cheap and
``import reluid.checker`` stays free of the solver and the search code.

>>> import reluid
>>> net = reluid.Shallow.make([1, 1], [[1], [1]], [0, 1], [0]).to_network()   # σ(x) + σ(x+1)
>>> cert = reluid.certify(net)
>>> cert.verdict.value, reluid.check(cert).valid
('no-hidden-symmetries', True)
"""

from __future__ import annotations

import importlib

from reluid._version import __version__

_API = ("load", "save", "parse_network", "generate_json", "read_certificate", "write_certificate", "from_torch",
        "from_sklearn", "as_network",
        "certify", "decide", "check", "equivalent", "canonical_form", "is_canonical", "same_orbit", "align",
        "alignment_document", "write_alignment", "read_alignment", "check_alignment", "activation_regions",
        "reduce_network", "reduction_document", "write_reduction", "read_reduction", "check_reduction",
        "minimal_form", "is_minimal", "zero_factor_reduction", "ominus", "stabilizer", "find_flip_set",
        "is_flip_set", "functional_dimension", "conditions", "evaluate_conditions", "run_survey", "prove",
        "progress_bar")

_EXPORTS = {name: "reluid.api" for name in _API} | {
    # the exact model
    "Network": "reluid.model.network", "Layer": "reluid.model.network", "Shallow": "reluid.model.network",
    "GroupElement": "reluid.model.symmetry", "to_rational": "reluid.model.rational",
    # answers
    "Verdict": "reluid.verdicts", "Outcome": "reluid.verdicts",
    # result types
    "Certificate": "reluid.certificates.schema", "Claim": "reluid.certificates.schema",
    "ClaimKind": "reluid.certificates.schema", "Witness": "reluid.certificates.schema",
    "CheckReport": "reluid.checker.check", "ClaimCheck": "reluid.checker.check",
    "Decision": "reluid.analysis.shallow.decide", "DeepDecision": "reluid.analysis.deep.decide",
    "FlipSetResult": "reluid.analysis.shallow.flipsets", "Equivalence": "reluid.analysis.shallow.function",
    "FunctionData": "reluid.analysis.shallow.function", "Alignment": "reluid.analysis.deep.align",
    "AlignmentCheck": "reluid.checker.alignment", "RegionEnumeration": "reluid.analysis.deep.regions",
    "MinimalForm": "reluid.analysis.shallow.minimal", "Reduction": "reluid.analysis.reduction",
    "ReductionCheck": "reluid.checker.reduction",
    "Stabilizer": "reluid.analysis.shallow.stabilizer", "FunDimResult": "reluid.analysis.deep.fundim",
    "Evaluation": "reluid.analysis.shallow.zariski", "SurveyConfig": "reluid.analysis.deep.survey",
    "SurveyResult": "reluid.analysis.deep.survey", "Tracker": "reluid.analysis.progress",
    # the exception tree
    "ReluidError": "reluid.errors", "InvalidArgument": "reluid.errors", "InvalidNetwork": "reluid.errors",
    "UnsupportedOperator": "reluid.errors", "NotShallow": "reluid.errors", "CertificateError": "reluid.errors",
    "CheckFailed": "reluid.errors", "OrbitSearchExhausted": "reluid.errors",
    "IncompatibleNetworks": "reluid.errors",
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
