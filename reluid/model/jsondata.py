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


def _leaf(obj):
    if isinstance(obj, Fraction):
        return format_rational(obj)
    if isinstance(obj, float):
        raise CertificateError(f"float {obj!r} in certificate data; use an integer or 'p/q' string")
    if isinstance(obj, enum.Enum):
        return obj.value
    return obj


def _rebuild(obj, container, leaf):
    """Rebuild nested mappings and sequences bottom-up without recursion (any depth).

    ``container(kind, items)`` builds a mapping (``kind`` "map", items (key,
    value) pairs) or a sequence (``kind`` "seq"); ``leaf`` maps every other value.
    """
    done: dict[int, object] = {}
    stack = [(obj, False)]
    while stack:
        node, expanded = stack.pop()
        if isinstance(node, Mapping):
            children = list(node.values())
        elif isinstance(node, (list, tuple)):
            children = list(node)
        else:
            done[id(node)] = leaf(node)
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in children)
            continue
        if isinstance(node, Mapping):
            done[id(node)] = container("map", [(k, done[id(v)]) for k, v in node.items()])
        else:
            done[id(node)] = container("seq", [done[id(v)] for v in node])
    return done[id(obj)]


def _frozen(kind, items):
    return MappingProxyType(dict(items)) if kind == "map" else tuple(items)


def _thawed(kind, items):
    return dict(items) if kind == "map" else list(items)


def freeze(obj):
    """Deep-freeze JSON-shaped data: dicts become read-only mappings, lists tuples (at any depth)."""
    return _rebuild(obj, _frozen, _leaf)


def thaw(obj):
    """Inverse of :func:`freeze`, for JSON encoding (at any depth)."""
    return _rebuild(obj, _thawed, lambda x: x)
