"""The reluid JSON network format, ``reluid.network/1``.

A file holds one object::

    {
      "format": "reluid.network/1",
      "name": "theta1",                      (optional)
      "description": "...",                  (optional)
      "assumption": "...",                   (optional: see Network.assumption)
      "layers": [
        {"weight": [[1, 1], [-1, 0], [0, -1]], "bias": [-2, -1, -1]},
        {"weight": [[1, 1, 1]], "bias": [-6]}
      ]
    }

Each layer is ``x -> weight @ x + bias``, with ReLU after every layer but the
last.  An entry is a JSON integer, a JSON decimal literal read as the exact
decimal it denotes (``0.1`` is 1/10, never the float nearest to it), or a
string ``"p/q"`` or decimal string.  A layer with no rows gives its input
width as ``"inputs"``.  Writing emits integers and ``"p/q"`` strings only, so
reading back what was written gives the same network exactly.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

from reluid.errors import InvalidArgument, InvalidNetwork
from reluid.model.network import Layer, Network
from reluid.model.rational import format_rational, parse_rational
from reluid.io.loader import check_param_count, one_line, read_bytes, unique_keys, write_bytes

__all__ = ["FORMAT", "parse_network", "generate_json", "read", "write"]

FORMAT = "reluid.network/1"

_TOP_KEYS = {"format", "name", "description", "assumption", "layers"}
_LAYER_KEYS = {"weight", "bias", "inputs"}

#: Largest decimal exponent accepted: ``1e999999999`` would otherwise make
#: Fraction build a billion-digit integer.  Matches Python's int-to-str limit.
MAX_DECIMAL_EXPONENT = 4300

_EXPONENT = re.compile(r"[eE]\s*([-+]?\d+)")


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------
def _short(value, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _check_exponent(text: str) -> None:
    m = _EXPONENT.search(text)
    if m:
        digits = m.group(1).lstrip("+-").lstrip("0") or "0"
        if len(digits) > len(str(MAX_DECIMAL_EXPONENT)) or int(digits) > MAX_DECIMAL_EXPONENT:
            raise InvalidNetwork(f"the exponent of {_short(text)} is beyond ±{MAX_DECIMAL_EXPONENT}")


def _decimal_literal(text: str) -> Fraction:
    """``parse_float`` hook: the exact decimal a JSON literal denotes."""
    _check_exponent(text)
    return Fraction(text)


def _reject_constant(name: str):
    raise InvalidNetwork(f"{name} is not allowed (entries must be finite)")




def _entry(x, where: str) -> Fraction:
    if type(x) is Fraction:  # a decimal literal, already exact
        return x
    if type(x) is int:  # bool is excluded on purpose
        return Fraction(x)
    if isinstance(x, str):
        _check_exponent(x)
        try:
            return parse_rational(x)
        except InvalidArgument:
            raise InvalidNetwork(f"{where} is {_short(x)}, not an exact rational") from None
    raise InvalidNetwork(f"{where} is {_short(x)}; expected a number or a 'p/q' string")


def _vector(xs, where: str) -> tuple[Fraction, ...]:
    if not isinstance(xs, list):
        raise InvalidNetwork(f"{where} must be a list of numbers, got {_short(xs)}")
    return tuple(_entry(x, f"{where}[{j}]") for j, x in enumerate(xs))


def _layer(obj, i: int, n_in_expected: int | None) -> Layer:
    where = f"layer {i}"
    if not isinstance(obj, dict):
        raise InvalidNetwork(f"{where} must be an object with 'weight' and 'bias', got {_short(obj)}")
    unknown = set(obj) - _LAYER_KEYS
    if unknown:
        raise InvalidNetwork(f"{where} has unknown key(s) {', '.join(map(repr, sorted(unknown)))}")
    for key in ("weight", "bias"):
        if key not in obj:
            raise InvalidNetwork(f"{where} has no {key!r}")
    weight = obj["weight"]
    if not isinstance(weight, list):
        raise InvalidNetwork(f"{where} weight must be a list of rows, got {_short(weight)}")
    rows = tuple(_vector(r, f"{where} weight[{r_i}]") for r_i, r in enumerate(weight))
    bias = _vector(obj["bias"], f"{where} bias")
    inputs = obj.get("inputs")
    if inputs is not None and (type(inputs) is not int or inputs < 0):
        raise InvalidNetwork(f"{where} 'inputs' must be a non-negative integer, got {_short(inputs)}")
    if inputs is not None and n_in_expected is not None and inputs != n_in_expected:
        raise InvalidNetwork(f"{where} has 'inputs' {inputs} but the previous layer has {n_in_expected} outputs")
    n_in = inputs if inputs is not None else n_in_expected
    return Layer.from_lists(rows, bias, n_in=n_in, index=i)


def _network(doc) -> Network:
    if not isinstance(doc, dict):
        raise InvalidNetwork(f"expected a JSON object with \"format\": {FORMAT!r}")
    fmt = doc.get("format")
    if fmt != FORMAT:
        found = "no 'format' key" if fmt is None else f"'format' is {_short(fmt)}"
        raise InvalidNetwork(f"not a reluid network: {found}, expected {FORMAT!r}")
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise InvalidNetwork(f"unknown top-level key(s) {', '.join(map(repr, sorted(unknown)))}")
    for key in ("name", "description", "assumption"):
        if key in doc and not isinstance(doc[key], str):
            raise InvalidNetwork(f"{key!r} must be a string, got {_short(doc[key])}")
    raw = doc.get("layers")
    if not isinstance(raw, list) or not raw:
        raise InvalidNetwork("'layers' must be a non-empty list")
    layers: list[Layer] = []
    count = 0
    for i, obj in enumerate(raw):
        layers.append(_layer(obj, i, layers[-1].n_out if layers else None))
        count += layers[-1].n_out * (layers[-1].n_in + 1)
        check_param_count(count)
    return Network(tuple(layers), name=doc.get("name"), description=doc.get("description"),
                   assumption=doc.get("assumption") or None)


def parse_network(text: str, path: str | None = None) -> Network:
    """Read a network from ``reluid.network/1`` JSON text.

    Parameters
    ----------
    text : str
        The JSON document.
    path : str, optional
        The file it came from; error messages name it.

    Returns
    -------
    Network

    Raises
    ------
    InvalidNetwork
        Malformed JSON, a wrong or missing ``"format"``, NaN/Infinity,
        non-numeric or non-finite entries, ragged or mismatched shapes, or no
        layers.

    Examples
    --------
    >>> net = parse_network('{"format": "reluid.network/1", "layers": '
    ...                     '[{"weight": [[0.1, "1/3"]], "bias": [2]}]}')
    >>> net.layers[0].weight
    ((Fraction(1, 10), Fraction(1, 3)),)
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"parse_network expects str, got {type(text).__name__}")
    try:
        doc = json.loads(text, parse_float=_decimal_literal, parse_constant=_reject_constant,
                         object_pairs_hook=unique_keys)
        return _network(doc)
    except InvalidNetwork as err:
        raise err.with_path(path) if path is not None else err from None
    except json.JSONDecodeError as exc:
        raise InvalidNetwork(f"malformed JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", path) from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer literal beyond the digit limit
        raise InvalidNetwork(f"malformed JSON ({type(exc).__name__}: {one_line(exc)})", path) from None


def read(path: str, options=None) -> Network:
    """Read a ``.json`` network file (see :func:`parse_network`).

    The format states its function, so ``options`` (a
    :class:`~reluid.io.loader.ReadOptions`) has nothing to add.
    """
    data = read_bytes(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidNetwork(f"not UTF-8 text (byte {exc.start})", path) from None
    return parse_network(text, path)


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
def _row(xs) -> str:
    return "[" + ", ".join(json.dumps(format_rational(x)) for x in xs) + "]"


def generate_json(net: Network) -> str:
    """The ``reluid.network/1`` JSON text of ``net``, one matrix row per line.

    Entries are integers or ``"p/q"`` strings, so ``parse_network`` gives back
    ``net`` exactly.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [-1]], [0, Fraction(1, 3)]), ([[1, 1]], [0])])
    >>> print(generate_json(net))
    {
      "format": "reluid.network/1",
      "layers": [
        {
          "weight": [
            [1],
            [-1]
          ],
          "bias": [0, "1/3"]
        },
        {
          "weight": [
            [1, 1]
          ],
          "bias": [0]
        }
      ]
    }
    >>> parse_network(generate_json(net)) == net
    True
    """
    if not isinstance(net, Network):
        raise InvalidArgument(f"generate_json expects a Network, got {type(net).__name__}")
    head = [f'  "format": {json.dumps(FORMAT)}']
    if net.name:
        head.append(f'  "name": {json.dumps(net.name, ensure_ascii=False)}')
    if net.description:
        head.append(f'  "description": {json.dumps(net.description, ensure_ascii=False)}')
    if net.assumption:
        head.append(f'  "assumption": {json.dumps(net.assumption, ensure_ascii=False)}')
    layers = []
    for L in net.layers:
        rows = ",\n".join(f"        {_row(r)}" for r in L.weight)
        parts = [f'      "weight": [\n{rows}\n      ]' if L.weight else '      "weight": []',
                 f'      "bias": {_row(L.bias)}']
        if not L.weight:
            parts.append(f'      "inputs": {L.n_in}')
        layers.append("    {\n" + ",\n".join(parts) + "\n    }")
    head.append('  "layers": [\n' + ",\n".join(layers) + "\n  ]")
    return "{\n" + ",\n".join(head) + "\n}"


def write(net: Network, path: str) -> None:
    """Write ``net`` as a ``.json`` file (see :func:`generate_json`)."""
    write_bytes(path, (generate_json(net) + "\n").encode("utf-8"))
