"""PyTorch modules in memory → exact :class:`~reluid.model.network.Network` objects.

:func:`from_torch` reads

* an ``nn.Sequential`` (nested ``Sequential`` containers are flattened), or
* a module whose ``forward`` is a plain chain, found by ``torch.fx``
  symbolic tracing: one input, each operation applied to the previous
  operation's result only, one tensor returned,

built from ``Linear`` (``bias=False`` is fine), ``ReLU`` (or the functions
``relu`` / ``F.relu`` / ``.relu()``), ``Flatten`` / ``torch.flatten`` with
``start_dim=1, end_dim=-1``, ``Dropout`` and ``Identity`` (no-ops in eval
mode), and ``BatchNorm1d`` in eval mode with running statistics, folded into
the neighbouring ``Linear`` exactly as ONNX ``BatchNormalization`` is (the
shared code and its exactness rule are in :mod:`reluid.io.chain`:
``batchnorm="exact"`` folds only rational √(σ²+ε), ``batchnorm="float32"``
rounds the scale and records that).

The model must end with a ``Linear`` (or a ``BatchNorm1d`` folded into one):
a final ``ReLU``, ``Softmax``, ``LogSoftmax`` or ``Sigmoid`` is refused by
name and position (``module 5 (Softmax) ...``), because reluid certifies a
ReLU network's logits and never assumes the output activation away.
Anything else (``LeakyReLU``, ``Conv1d``, ``GELU``, a residual ``x + f(x)``,
functional calls other than ``relu`` and ``flatten``) is refused by name and
position.  A ``Dropout`` or ``BatchNorm1d`` in training mode is refused: call
``model.eval()`` first.

Every weight is read as the exact binary value it holds (float16, bfloat16,
float32, float64 → exact Fractions).  torch is an optional dependency
(``pip install 'reluid[torch]'``) imported only when :func:`from_torch` is
called; ``import reluid`` never imports it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reluid.errors import InvalidArgument, InvalidNetwork, UnsupportedOperator
from reluid.io.chain import Affine, BatchNorm, Relu, assemble
from reluid.io.loader import ArrayLayer, ReadOptions
from reluid.model.network import Network

__all__ = ["from_torch"]

_SUPPORTED = ("Linear, ReLU, Flatten(start_dim=1), Dropout and Identity (eval mode), BatchNorm1d (eval mode), "
              "and the functions relu and flatten")
_OUTPUT_ACTIVATIONS = ("Softmax", "LogSoftmax", "Sigmoid", "Softmin", "Tanh")


def _torch():
    try:
        import torch
        import torch.fx  # noqa: F401  (symbolic tracing)
    except ImportError:
        raise InvalidArgument("reluid.from_torch needs PyTorch (pip install 'reluid[torch]')") from None
    return torch


def _is(module, cls) -> bool:
    """``module`` is a ``cls`` that computes what ``cls`` computes (no overridden forward)."""
    return isinstance(module, cls) and type(module).forward is cls.forward


def _label(qualname: str, what: str) -> str:
    return f"module {qualname} ({what})" if qualname else f"the {what} module"


class _Op:
    """One operation of the chain: a module or a function call, with its label."""

    def __init__(self, label: str, module=None, kind: str | None = None, args=(), kwargs=None):
        self.label, self.module, self.kind, self.args, self.kwargs = label, module, kind, args, kwargs or {}


def _operations(torch, module, qualname: str):
    """The chain of operations ``module`` applies, in order."""
    nn = torch.nn
    if isinstance(module, nn.Sequential) and type(module).forward is nn.Sequential.forward:
        for name, child in module.named_children():
            yield from _operations(torch, child, f"{qualname}.{name}" if qualname else name)
        return
    known = (nn.Linear, nn.ReLU, nn.Flatten, nn.Dropout, nn.Identity, nn.BatchNorm1d)
    if any(_is(module, cls) for cls in known) or type(module).__module__.startswith(("torch.nn.", "torch.ao.nn.")):
        yield _Op(_label(qualname, type(module).__name__), module)
        return
    yield from _traced(torch, module, qualname)


def _traced(torch, module, qualname: str):
    fx = torch.fx
    what = type(module).__name__
    try:
        graph = fx.symbolic_trace(module).graph
    except Exception as exc:  # tracing runs user code: any failure means it is not a plain chain
        message = " ".join(str(exc).split())[:200]
        raise InvalidNetwork(f"cannot trace {_label(qualname, what)} with torch.fx ({type(exc).__name__}: "
                             f"{message}); reluid reads nn.Sequential or a forward that is a plain chain") from None
    previous = None
    position = 0
    for node in graph.nodes:
        if node.op == "placeholder":
            if previous is not None:
                raise InvalidNetwork(f"{_label(qualname, what)}: forward takes more than one input ({node.name!r})")
            previous = node
            continue
        if node.op == "output":
            if node.args[0] is not previous:
                raise InvalidNetwork(f"{_label(qualname, what)}: forward does not return the result of its last "
                                     "operation alone (a tuple, or a value computed off the chain)")
            return
        where = f"{_label(qualname, what)}, operation {position} ({node.name})"
        position += 1
        nodes_in = [a for a in node.args[1:] if isinstance(a, fx.Node)] + \
                   [v for v in node.kwargs.values() if isinstance(v, fx.Node)]
        if node.op == "get_attr":
            raise UnsupportedOperator(f"{where} reads the tensor {node.target!r} directly; reluid reads "
                                      f"{_SUPPORTED}")
        if not node.args or node.args[0] is not previous or nodes_in:
            raise UnsupportedOperator(f"{where} does not continue a plain chain (it combines other values, as a "
                                      f"residual connection does); reluid reads a chain of {_SUPPORTED}")
        if node.op == "call_module":
            sub = module.get_submodule(node.target)
            yield from _operations(torch, sub, f"{qualname}.{node.target}" if qualname else node.target)
        else:
            name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", str(node.target))
            yield _Op(f"{where}: {name}", kind=_function_kind(torch, node), args=node.args[1:], kwargs=node.kwargs)
        previous = node
    raise InvalidNetwork(f"{_label(qualname, what)}: the traced graph has no output")  # pragma: no cover


def _function_kind(torch, node) -> str | None:
    F = torch.nn.functional
    if node.op == "call_function":
        if node.target in (torch.relu, F.relu, torch.relu_):
            return "relu"
        if node.target is torch.flatten:
            return "flatten"
    if node.op == "call_method":
        return {"relu": "relu", "relu_": "relu", "flatten": "flatten"}.get(node.target)
    return None


def _array(torch, tensor, name: str) -> np.ndarray:
    """The exact contents of a tensor as a numpy array (bfloat16 and float8 widened exactly to float32)."""
    t = tensor.detach()
    if getattr(t, "is_quantized", False):
        raise InvalidNetwork(f"{name} is a quantized tensor; reluid reads float or integer tensors")
    if t.device.type == "meta":
        raise InvalidNetwork(f"{name} has no data (meta device)")
    if t.is_complex() or t.dtype == torch.bool:
        raise InvalidNetwork(f"{name} has dtype {t.dtype}; expected a float or integer tensor")
    t = t.cpu()
    if t.is_floating_point() and t.dtype not in (torch.float16, torch.float32, torch.float64):
        t = t.to(torch.float32)  # bfloat16, float8: every value is a float32
    return t.numpy()


def _flatten_ok(op: _Op) -> bool:
    if op.module is not None:
        return op.module.start_dim == 1 and op.module.end_dim == -1
    start = op.args[0] if op.args else op.kwargs.get("start_dim", 0)  # torch.flatten starts at 0 by default
    end = op.args[1] if len(op.args) > 1 else op.kwargs.get("end_dim", -1)
    return start == 1 and end == -1 and set(op.kwargs) <= {"start_dim", "end_dim"}


def _steps(torch, ops: list[_Op]) -> tuple[list, bool]:
    """The chain steps, and whether a Flatten comes before the first Linear."""
    nn = torch.nn
    steps = []
    flatten_first = False
    for position, op in enumerate(ops):
        m = op.module
        last = position == len(ops) - 1
        if m is None:
            if op.kind == "relu" and op.args in ((), (False,), (True,)) and set(op.kwargs) <= {"inplace"}:
                steps.append(Relu(op.label))
            elif op.kind == "flatten" and _flatten_ok(op):
                flatten_first = flatten_first or not any(isinstance(s, Affine) for s in steps)
            else:
                raise UnsupportedOperator(f"{op.label} is not supported; reluid reads {_SUPPORTED}")
        elif _is(m, nn.Linear):
            weight = _array(torch, m.weight, f"{op.label} weight")
            bias = (_array(torch, m.bias, f"{op.label} bias") if m.bias is not None
                    else np.zeros(weight.shape[0] if weight.ndim == 2 else 0, dtype=np.int64))
            steps.append(Affine(ArrayLayer(weight, bias, f"{op.label} weight",
                                           f"{op.label} bias" if m.bias is not None else f"{op.label} bias (none)"),
                                op.label))
        elif _is(m, nn.ReLU):
            steps.append(Relu(op.label))
        elif _is(m, nn.Flatten):
            if not _flatten_ok(op):
                raise UnsupportedOperator(f"{op.label} has start_dim={m.start_dim}, end_dim={m.end_dim}; only "
                                          "Flatten(start_dim=1, end_dim=-1) is supported")
            flatten_first = flatten_first or not any(isinstance(s, Affine) for s in steps)
        elif _is(m, nn.Dropout):
            if m.training:
                raise InvalidNetwork(f"{op.label} is in training mode, where Dropout is random; call model.eval() "
                                     "first")
        elif _is(m, nn.Identity):
            pass
        elif _is(m, nn.BatchNorm1d):
            if m.training:
                raise InvalidNetwork(f"{op.label} is in training mode, where it normalises with each batch's own "
                                     "statistics; call model.eval() first")
            if m.running_mean is None or m.running_var is None:
                raise InvalidNetwork(f"{op.label} has track_running_stats=False, so it normalises with each "
                                     "batch's statistics even in eval mode; it is not a fixed affine map")
            n = m.num_features
            gamma = _array(torch, m.weight, f"{op.label} weight") if m.weight is not None else np.ones(n, np.int64)
            beta = _array(torch, m.bias, f"{op.label} bias") if m.bias is not None else np.zeros(n, np.int64)
            eps = float(m.eps)
            if not math.isfinite(eps):
                raise InvalidNetwork(f"{op.label} has eps = {eps}")
            steps.append(BatchNorm(op.label, gamma, beta, _array(torch, m.running_mean, f"{op.label} running_mean"),
                                   _array(torch, m.running_var, f"{op.label} running_var"), Fraction(eps)))
        elif last and type(m).__name__ in _OUTPUT_ACTIVATIONS:
            raise UnsupportedOperator(f"{op.label} is the last operation: reluid certifies a ReLU network's logits "
                                      f"and does not assume the {type(m).__name__} away; pass the model without it "
                                      "(for an nn.Sequential, model[:-1])")
        else:
            raise UnsupportedOperator(f"{op.label} is not supported; reluid reads {_SUPPORTED}")
    return steps, flatten_first


def from_torch(module, *, input_shape=None, batchnorm: str = "exact") -> Network:
    """The exact ReLU network a PyTorch module computes (see the module docstring).

    Parameters
    ----------
    module : torch.nn.Module
        An ``nn.Sequential`` or a module whose ``forward`` is a plain chain.
    input_shape : sequence of int, optional
        The shape of one input without the batch dimension, checked against
        the first layer: ``(n_in,)``, or any shape with ``n_in`` entries when
        a ``Flatten`` comes first (the network's input is then the flattened
        vector, in C order).
    batchnorm : {"exact", "float32"}
        How ``BatchNorm1d`` is folded (:mod:`reluid.io.chain`).

    Returns
    -------
    Network
        Named after the module's class; its ``assumption`` records any
        folded BatchNorm.

    Raises
    ------
    InvalidNetwork
        (or its subclass UnsupportedOperator) for anything outside the
        supported chain, naming the module or operation and its position.
    InvalidArgument
        If torch is missing, ``module`` is not an ``nn.Module``, or an
        argument is invalid.

    Examples
    --------
    >>> import torch                                            # doctest: +SKIP
    >>> model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))  # doctest: +SKIP
    >>> from_torch(model).architecture                          # doctest: +SKIP
    (2, 3, 1)
    """
    torch = _torch()
    if not isinstance(module, torch.nn.Module):
        raise InvalidArgument(f"from_torch expects a torch.nn.Module, got {type(module).__name__}")
    options = ReadOptions(batchnorm=batchnorm)
    ops = list(_operations(torch, module, ""))
    steps, flatten_first = _steps(torch, ops)
    net = assemble(steps, options, name=type(module).__name__)
    if input_shape is not None:
        try:
            shape = tuple(int(d) for d in input_shape)
        except (TypeError, ValueError):
            raise InvalidArgument(f"input_shape must be a sequence of integers, got {input_shape!r}") from None
        if not shape or any(d < 1 for d in shape):
            raise InvalidArgument(f"input_shape must be positive dimensions without the batch, got {shape}")
        if flatten_first:
            if math.prod(shape) != net.input_dim:
                raise InvalidNetwork(f"input_shape {shape} flattens to {math.prod(shape)} features but the first "
                                     f"layer takes {net.input_dim}")
        elif shape != (net.input_dim,):
            raise InvalidNetwork(f"input_shape {shape} does not match the first layer, which takes vectors of "
                                 f"{net.input_dim} features" + ("; add nn.Flatten() first" if len(shape) > 1 else ""))
    return net
