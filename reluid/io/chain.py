"""Chains of affine layers, ReLUs and BatchNorms → an exact :class:`Network`.

The ONNX reader and the PyTorch adapter both describe what they read as a
list of *steps* in the order the model applies them: :class:`Affine` layers
(numpy arrays, not yet converted), :class:`Relu`, :class:`BatchNorm` (inference
mode) and :class:`Width` checks.  :func:`assemble` checks that the steps form
a ReLU network (affine, then ReLU and affine alternately, ending with an
affine layer), folds every BatchNorm into the neighbouring affine layer, and
converts everything exactly.

BatchNorm in inference mode is the per-feature affine map

    y = γ (x − μ) / √(σ² + ε) + β  =  s x + t,   s = γ / √(σ² + ε),   t = β − s μ,

in real arithmetic (the ONNX operator's definition, and PyTorch's eval mode).
The stored γ, β, μ, σ², ε are read as the exact binary values they hold, so
σ² + ε is an exact rational, but its square root is irrational unless its
numerator and denominator are both perfect squares.  Hence two modes:

``exact`` (the default)
    Fold only when every √(σ² + ε) is rational; then the folded network
    computes exactly the model's real-arithmetic function.  Otherwise refuse,
    naming the channel, and say how to opt in.
``float32``
    Use, for every channel, s = γ/√(σ² + ε) *correctly rounded to float32*
    (round to nearest, ties to even, computed with integer square roots from
    the exact values, so it does not depend on any floating-point library);
    then t = β − s μ and the fold are exact.  The certified network is then
    the one with these rounded scales, which differs from the model's real
    function by that rounding (relative error ≤ 2⁻²⁴ per scale outside the
    subnormal range).  The network's
    :attr:`~reluid.model.network.Network.assumption` says so.

A BatchNorm right after an affine layer (no ReLU between) is folded into it
(``W ← diag(s) W``, ``b ← s b + t``); otherwise into the affine layer right
after it (``W ← W diag(s)``, ``b ← b + W t``); a BatchNorm with a ReLU on
both sides, or after the last ReLU, is refused.  Either way the certified
parameters are the folded ones, so the verdict is about symmetries of the
folded network; the assumption records every fold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import isqrt
from typing import Sequence, Union

import numpy as np

from reluid.errors import InvalidNetwork
from reluid.io.loader import ArrayLayer, ReadOptions, exact_values, network_from_arrays
from reluid.model.network import Layer, Network

__all__ = ["Affine", "Relu", "BatchNorm", "Width", "assemble", "batchnorm_scale", "nearest_float32_sqrt"]


@dataclass(frozen=True, eq=False)
class Affine:
    """An affine layer as read (weight n_out × n_in), with the label errors use."""

    layer: ArrayLayer
    label: str


@dataclass(frozen=True)
class Relu:
    label: str


@dataclass(frozen=True, eq=False)
class BatchNorm:
    """A BatchNorm in inference mode: per-feature γ, β, running mean μ and variance σ², and ε."""

    label: str
    gamma: np.ndarray
    beta: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    epsilon: Fraction


@dataclass(frozen=True)
class Width:
    """A no-op that is one only if the tensor has ``width`` features here (an ONNX Reshape, say)."""

    label: str
    width: int


Step = Union[Affine, Relu, BatchNorm, Width]


# ---------------------------------------------------------------------------
# exact and rounded square roots
# ---------------------------------------------------------------------------
def _exact_sqrt(r: Fraction) -> Fraction | None:
    """√r when it is rational (r ≥ 0), else None."""
    p, q = isqrt(r.numerator), isqrt(r.denominator)
    return Fraction(p, q) if p * p == r.numerator and q * q == r.denominator else None


def _floor_log2(t: Fraction) -> int:
    """⌊log₂ t⌋ for t > 0."""
    e = t.numerator.bit_length() - t.denominator.bit_length()
    # 2**e <= t < 2**(e+2) after this estimate; correct it
    if (t.numerator << max(-e, 0)) < (t.denominator << max(e, 0)):
        e -= 1
    return e


FLOAT32_MAX = Fraction((2**24 - 1) * 2**104)


def nearest_float32_sqrt(t: Fraction) -> Fraction:
    """The float32 nearest to √t (ties to even), exactly, for rational t ≥ 0.

    Subnormal results are rounded to the subnormal grid (2⁻¹⁴⁹).  Raises
    :class:`OverflowError` when the result exceeds the largest float32.

    Examples
    --------
    >>> nearest_float32_sqrt(Fraction(4))
    Fraction(2, 1)
    >>> float(nearest_float32_sqrt(Fraction(2))) == float(np.sqrt(np.float32(2)))
    True
    """
    if t < 0:
        raise ValueError("square root of a negative number")
    if t == 0:
        return Fraction(0)
    exponent = _floor_log2(t) // 2          # 2**exponent <= √t < 2**(exponent+1)
    q = max(exponent - 23, -149)           # the float32 grid spacing 2**q near √t
    scaled = t / Fraction(4) ** q if q >= 0 else t * 4 ** (-q)   # (√t / 2**q)²
    n = isqrt(scaled.numerator // scaled.denominator)             # ⌊√t / 2**q⌋
    # round: compare √t/2**q with n + 1/2, i.e. 4·scaled with (2n + 1)²
    twice = 4 * scaled
    half = Fraction((2 * n + 1) ** 2)
    if twice > half or (twice == half and n % 2 == 1):
        n += 1
    value = n * (Fraction(2) ** q)
    if value > FLOAT32_MAX:
        raise OverflowError("beyond the float32 range")
    return value


def batchnorm_scale(gamma: Fraction, var_plus_eps: Fraction, mode: str) -> tuple[Fraction, bool] | None:
    """``(s, exact)`` with s = γ/√(σ²+ε): exact when √(σ²+ε) is rational, else float32-rounded in mode
    ``float32``, else None.

    Examples
    --------
    >>> batchnorm_scale(Fraction(3), Fraction(9, 4), "exact")
    (Fraction(2, 1), True)
    >>> batchnorm_scale(Fraction(1), Fraction(2), "exact") is None
    True
    >>> s, exact = batchnorm_scale(Fraction(1), Fraction(2), "float32")
    >>> exact, float(s) == float(np.float32(1) / np.sqrt(np.float32(2)))
    (False, True)
    """
    root = _exact_sqrt(var_plus_eps)
    if root is not None:
        return gamma / root, True
    if mode != "float32":
        return None
    magnitude = nearest_float32_sqrt(gamma * gamma / var_plus_eps)
    return (magnitude if gamma > 0 else -magnitude), False


# ---------------------------------------------------------------------------
# assembly
# ---------------------------------------------------------------------------
@dataclass
class _Group:
    """One affine layer with the BatchNorms folded into it before and after."""

    affine: Affine
    before: list[BatchNorm] = field(default_factory=list)   # applied to its input, in order
    after: list[BatchNorm] = field(default_factory=list)    # applied to its output, in order
    widths_after: list[Width] = field(default_factory=list)


def _structure(steps: Sequence[Step]) -> tuple[list[_Group], list[Width]]:
    groups: list[_Group] = []
    input_widths: list[Width] = []
    pending: list[BatchNorm] = []
    last: Step | None = None     # the last Affine or Relu
    for step in steps:
        if isinstance(step, Affine):
            if isinstance(last, Affine):
                raise InvalidNetwork(f"{step.label} follows {last.label} without a ReLU between them; "
                                     "compose them into one layer first")
            groups.append(_Group(step, before=pending))
            pending = []
            last = step
        elif isinstance(step, Relu):
            if pending:
                raise InvalidNetwork(f"{pending[0].label} has no affine layer next to it to fold into "
                                     f"({'a ReLU' if last is not None else 'the input'} before it, "
                                     f"{step.label} after it)")
            if last is None:
                raise InvalidNetwork(f"{step.label} does not follow an affine layer")
            if isinstance(last, Relu):
                raise InvalidNetwork(f"{step.label} follows another ReLU ({last.label})")
            last = step
        elif isinstance(step, BatchNorm):
            if isinstance(last, Affine) and not pending:
                groups[-1].after.append(step)
            else:
                pending.append(step)
        elif isinstance(step, Width):
            if pending:
                raise InvalidNetwork(f"{step.label} between {pending[-1].label} and the affine layer it folds into "
                                     "is not supported")
            (groups[-1].widths_after if groups else input_widths).append(step)
        else:  # pragma: no cover - a programming error
            raise TypeError(f"not a step: {step!r}")
    if pending:
        raise InvalidNetwork(f"{pending[0].label} comes after the last ReLU, so there is no affine layer to fold "
                             "it into; a reluid network ends with an affine layer")
    if not groups:
        raise InvalidNetwork("the model has no affine (Linear, Gemm or MatMul) layer")
    if isinstance(last, Relu):
        raise InvalidNetwork(f"the output passes through {last.label} (the last operation); a reluid network "
                             "ends with an affine layer: certify the model without it")
    return groups, input_widths


def _vector(array, n: int, what: str, bn: BatchNorm) -> list[Fraction]:
    array = np.asarray(array)
    if array.ndim != 1 or array.shape[0] != n:
        raise InvalidNetwork(f"{bn.label}: {what} has shape {array.shape}, expected ({n},)")
    return exact_values(array, f"{bn.label} {what}")


def _scales(bn: BatchNorm, n: int, options: ReadOptions) -> tuple[list[Fraction], list[Fraction], bool]:
    """``(s, t, exact)`` with bn(x) = s x + t per feature."""
    gamma, beta = _vector(bn.gamma, n, "scale γ", bn), _vector(bn.beta, n, "bias β", bn)
    mean, var = _vector(bn.mean, n, "running mean μ", bn), _vector(bn.var, n, "running variance σ²", bn)
    s, t, exact = [], [], True
    for i in range(n):
        r = var[i] + bn.epsilon
        if r <= 0:
            raise InvalidNetwork(f"{bn.label}: σ² + ε = {r} is not positive at feature {i}")
        try:
            got = batchnorm_scale(gamma[i], r, options.batchnorm)
        except OverflowError:
            raise InvalidNetwork(f"{bn.label}: the scale γ/√(σ² + ε) at feature {i} is beyond the float32 "
                                 "range") from None
        if got is None:
            raise InvalidNetwork(
                f"{bn.label}: √(σ² + ε) is irrational at feature {i} (σ² + ε = {r}), so the BatchNorm cannot be "
                f"folded exactly; pass {options.flag('batchnorm', 'float32')} to fold it with the scale "
                "γ/√(σ²+ε) rounded to float32 (recorded in the certificate)")
        s.append(got[0])
        t.append(beta[i] - got[0] * mean[i])
        exact = exact and got[1]
    return s, t, exact


def _fold_after(layer: Layer, s, t) -> Layer:
    """bn ∘ layer."""
    weight = tuple(tuple(si * w for w in row) for si, row in zip(s, layer.weight))
    bias = tuple(si * b + ti for si, b, ti in zip(s, layer.bias, t))
    return Layer(weight, bias, layer.n_in)


def _fold_before(layer: Layer, s, t) -> Layer:
    """layer ∘ bn."""
    weight = tuple(tuple(w * sj for w, sj in zip(row, s)) for row in layer.weight)
    bias = tuple(b + sum((w * tj for w, tj in zip(row, t)), Fraction(0)) for row, b in zip(layer.weight, layer.bias))
    return Layer(weight, bias, layer.n_in)


def assemble(steps: Sequence[Step], options: ReadOptions = ReadOptions(), *, name: str | None = None,
             description: str | None = None, assumption: str | None = None) -> Network:
    """The exact network the steps compute (see the module docstring).

    Parameters
    ----------
    steps : sequence of Affine, Relu, BatchNorm, Width
        In the order the model applies them.
    options : ReadOptions
        ``batchnorm`` selects the fold mode; ``flag`` names it in messages.
    name, description : str, optional
    assumption : str, optional
        Recorded before the notes on folded BatchNorms.

    Raises
    ------
    InvalidNetwork
        If the steps are not affine (ReLU affine)*, a BatchNorm has no
        neighbouring affine layer or cannot be folded in the chosen mode,
        shapes or widths do not match, or a value is not finite.

    Examples
    --------
    >>> bn = BatchNorm("bn", np.array([2.0]), np.array([1.0]), np.array([3.0]), np.array([4.0]), Fraction(0))
    >>> fc = Affine(ArrayLayer(np.array([[1.0, -1.0]]), np.array([0.5]), "W", "b"), "fc")
    >>> net = assemble([fc, bn])        # y = 2 (x₁ − x₂ + 1/2 − 3)/2 + 1
    >>> net.layers[0].weight, net.layers[0].bias
    (((Fraction(1, 1), Fraction(-1, 1)),), (Fraction(-3, 2),))
    >>> net.assumption
    'bn folded into fc exactly (the certified parameters are the folded ones)'
    """
    groups, input_widths = _structure(steps)
    plain = network_from_arrays([g.affine.layer for g in groups])
    layers = list(plain.layers)
    exact_folds, rounded_folds = [], []
    for k, (g, layer) in enumerate(zip(groups, layers)):
        for bn in g.after:
            s, t, exact = _scales(bn, layer.n_out, options)
            layer = _fold_after(layer, s, t)
            (exact_folds if exact else rounded_folds).append(f"{bn.label} folded into {g.affine.label}")
        for bn in reversed(g.before):
            s, t, exact = _scales(bn, layer.n_in, options)
            layer = _fold_before(layer, s, t)
            (exact_folds if exact else rounded_folds).append(f"{bn.label} folded into {g.affine.label}")
        for w in g.widths_after:
            if w.width != layer.n_out:
                raise InvalidNetwork(f"{w.label} reshapes to width {w.width}, but {g.affine.label} has "
                                     f"{layer.n_out} outputs")
        layers[k] = layer
    for w in input_widths:
        if w.width != layers[0].n_in:
            raise InvalidNetwork(f"{w.label} reshapes to width {w.width}, but {groups[0].affine.label} has "
                                 f"{layers[0].n_in} inputs")
    notes = [assumption] if assumption else []
    if exact_folds:
        notes.append(", ".join(exact_folds) + " exactly (the certified parameters are the folded ones)")
    if rounded_folds:
        notes.append(", ".join(rounded_folds) + " with the scale γ/√(σ²+ε) correctly rounded to float32 "
                     f"(stated by {options.flag('batchnorm', 'float32')}); the certified parameters are the "
                     "folded ones, and their function differs from the model's real-arithmetic one by that rounding")
    return Network(tuple(layers), name=name, description=description, assumption="; ".join(notes) or None)
