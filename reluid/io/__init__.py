"""Network files → exact :class:`~reluid.model.network.Network` objects, and back.

Formats, chosen by suffix:

``.json``
    The reluid format ``reluid.network/1``: exact integers, decimals and
    ``"p/q"`` strings (:mod:`reluid.io.json_format`).
``.npz``
    NumPy arrays ``W1, b1, W2, b2, ...`` (:mod:`reluid.io.npz`).
``.onnx``
    Chains of ``Gemm``/``MatMul``+``Add`` and ``Relu``, with BatchNormalization
    folded (:mod:`reluid.io.onnx_format`, :mod:`reluid.io.chain`).
``.safetensors``
    Linear-layer state dicts, read only with a statement of the architecture
    (``assume="relu-mlp"`` or reluid's own metadata; :mod:`reluid.io.safetensors_format`).

Pickles (``.pt``, ``.pth``, ``.pkl``, ...) are refused.  Models in memory are
read by :func:`reluid.from_torch` (:mod:`reluid.io.torch_adapter`) and
:func:`reluid.from_sklearn` (:mod:`reluid.io.sklearn_adapter`).

Binary floats are read as the exact binary value they hold; nothing is
approximated and nothing is unpickled.  What an input does not state and the
user does is recorded in :attr:`Network.assumption`.  Every problem with a file
raises :class:`~reluid.errors.InvalidNetwork` with a one-line message naming the file.

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
