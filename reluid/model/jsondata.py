"""Read-only JSON-shaped data with exact numbers.

Evidence, witness details and producer records are JSON-shaped: mappings,
sequences, strings, integers and rationals.  :func:`freeze` turns them into
read-only mappings and tuples with every rational written as an ``int`` or a
``"p/q"`` string (floats are refused), so results and certificates can hold
them without copying; :func:`thaw` turns them back into plain ``dict`` and
``list`` for the JSON encoder.

>>> from fractions import Fraction
>>> d = freeze({"p": 7, "rows": [1, 2], "scale": Fraction(1, 3)})
>>> d["rows"], d["scale"], thaw(d)
((1, 2), '1/3', {'p': 7, 'rows': [1, 2], 'scale': '1/3'})
"""

from __future__ import annotations

import enum
from fractions import Fraction
from types import MappingProxyType
from typing import Mapping

from reluid.errors import CertificateError
from reluid.model.rational import format_rational

__all__ = ["freeze", "thaw"]


def freeze(obj):
    """Deep-freeze JSON-shaped data: dicts become read-only mappings, lists tuples."""
    if isinstance(obj, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return tuple(freeze(v) for v in obj)
    if isinstance(obj, Fraction):
        return format_rational(obj)
    if isinstance(obj, float):
        raise CertificateError(f"float {obj!r} in certificate data; use an integer or 'p/q' string")
    if isinstance(obj, enum.Enum):
        return obj.value
    return obj


def thaw(obj):
    """Inverse of :func:`freeze`, for JSON encoding."""
    if isinstance(obj, Mapping):
        return {k: thaw(v) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return [thaw(v) for v in obj]
    return obj
