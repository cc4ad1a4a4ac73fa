"""Network files → exact :class:`~reluid.model.network.Network` objects, and back.

Formats, chosen by suffix:

``.json``
    The reluid format ``reluid.network/1``: exact integers, decimals and
    ``"p/q"`` strings (:mod:`reluid.io.json_format`).
``.npz``
    NumPy arrays ``W1, b1, W2, b2, ...`` (:mod:`reluid.io.npz`).
``.onnx``
    Chains of ``Gemm``/``MatMul``+``Add`` and ``Relu`` (:mod:`reluid.io.onnx_format`).
``.safetensors``
    PyTorch ``nn.Sequential`` state dicts (:mod:`reluid.io.safetensors_format`).

Binary floats are read as the exact binary value they hold; nothing is
approximated and nothing is unpickled.  Every problem with a file raises
:class:`~reluid.errors.InvalidNetwork` with a one-line message naming the file.

Examples
--------
>>> from reluid.io import load, generate_json
>>> net = load("examples/networks/relu_abs.json")
>>> net([-3])
(Fraction(3, 1),)
"""

from reluid.io.json_format import generate_json, parse_network
from reluid.io.loader import load, save

read_network = load
write_network = save

__all__ = ["load", "save", "parse_network", "generate_json", "read_network", "write_network"]
