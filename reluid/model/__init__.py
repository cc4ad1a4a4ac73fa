"""Exact parameter model: rationals, networks, and the H_n action.  No solver imports."""

from reluid.model.rational import Q, to_rational, format_rational, parse_rational
from reluid.model.network import Layer, Network, Shallow
from reluid.model.symmetry import GroupElement

__all__ = ["Q", "to_rational", "format_rational", "parse_rational", "Layer", "Network", "Shallow", "GroupElement"]
