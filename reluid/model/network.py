"""Exact ReLU networks.

A network is a sequence of affine layers ``x -> W x + b`` with ReLU after every
layer but the last.  Every entry is a :class:`fractions.Fraction`; objects are
frozen and hashable.  :class:`Shallow` is the paper's view θ = (M, A, b, c) of a
network with one hidden layer (Ramakrishnan 2026, Section 2.1):

    ρ(θ)(x) = M σ(A x + b) + c.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Sequence

from reluid.errors import InvalidNetwork, NotShallow
from reluid.model.rational import FAST_FRACTIONS, ZERO, coprime_fraction, format_rational, to_rational

__all__ = ["Layer", "Network", "ScaledRows", "Shallow", "relu"]

Row = tuple[Fraction, ...]
Matrix = tuple[Row, ...]


def relu(z: Fraction) -> Fraction:
    """σ(z) = max(0, z), exactly."""
    return z if z > 0 else ZERO


def _matrix(rows, n_cols: int | None, what: str, allow_float: bool) -> Matrix:
    try:
        out = tuple(tuple(to_rational(x, allow_float=allow_float) for x in r) for r in rows)
    except TypeError:
        raise InvalidNetwork(f"{what} is not a matrix of numbers") from None
    for i, r in enumerate(out):
        if n_cols is None:
            n_cols = len(r)
        if len(r) != n_cols:
            raise InvalidNetwork(f"{what} is ragged: row {i} has {len(r)} entries, expected {n_cols}")
    return out


def _vector(xs, what: str, allow_float: bool) -> Row:
    try:
        return tuple(to_rational(x, allow_float=allow_float) for x in xs)
    except TypeError:
        raise InvalidNetwork(f"{what} is not a vector of numbers") from None


class ScaledRows:
    """An exact matrix whose row i is the integer vector ``rows[i]`` times ``2 ** shifts[i]``.

    The form binary floats take (:mod:`reluid.model.dyadic` builds it from
    numpy arrays): a row of floats is one integer vector times one power of
    two.  It is canonical: a nonzero row has an odd entry and a zero row has
    shift 0, so two forms are equal exactly when their values are.  ``array``
    (an int64 numpy array, optional) holds the same integers for vectorised
    code; ``rows`` (lists of Python integers) is built from it on first use.

    Examples
    --------
    >>> form = ScaledRows([[3, -2]], (-2,), 2)
    >>> form.fractions()
    [[Fraction(3, 4), Fraction(-1, 2)]]
    """

    __slots__ = ("_rows", "shifts", "n_cols", "array")

    def __init__(self, rows, shifts, n_cols: int, *, array=None):
        if rows is None and array is None:
            raise InvalidNetwork("a scaled matrix needs its integers")
        self._rows = rows
        self.shifts = tuple(shifts)
        self.n_cols = n_cols
        self.array = array

    def __repr__(self) -> str:
        return f"<ScaledRows {len(self.shifts)} × {self.n_cols}>"

    @property
    def rows(self) -> list[list[int]]:
        """The integers, as lists of Python ints (from ``array`` on first use)."""
        if self._rows is None:
            self._rows = self.array.tolist()
        return self._rows

    def __eq__(self, other) -> bool:
        if not isinstance(other, ScaledRows):
            return NotImplemented
        if (len(self.shifts), self.n_cols) != (len(other.shifts), other.n_cols):
            return False
        if self.shifts == other.shifts and self.rows == other.rows:
            return True
        # canonical forms of equal values are equal; a form built by hand need not be canonical
        return self.fractions() == other.fractions()

    __hash__ = None

    def fractions(self) -> list[list[Fraction]]:
        """The entries as exact Fractions, row by row."""
        out = []
        for row, s in zip(self.rows, self.shifts):
            if s >= 0:
                out.append([Fraction(v << s) for v in row])
                continue
            r = []
            for v in row:
                if not v:
                    r.append(ZERO)
                    continue
                t = min((v & -v).bit_length() - 1, -s)
                r.append(coprime_fraction(v >> t, 1 << (-s - t)))
            out.append(r)
        return out

    def materialise(self) -> list[list[Fraction]]:
        """:meth:`fractions`, vectorised when ``array`` is held."""
        if self.array is not None:
            from reluid.model import dyadic

            return dyadic.fractions(self)
        return self.fractions()


class Layer:
    """One affine map ``x -> weight @ x + bias`` (weight is n_out × n_in).

    ``weight`` and ``bias`` are tuples of Fractions.  A layer read from binary
    floats holds them as one :class:`ScaledRows` ``exact`` of ``[weight | bias]``
    instead, and builds the Fractions only when they are first asked for; the
    shallow algorithms work on ``exact`` directly.
    """

    __slots__ = ("_weight", "_bias", "n_in", "exact")

    def __init__(self, weight: Matrix | None, bias: Row | None, n_in: int, exact: ScaledRows | None = None):
        if (weight is None or bias is None) and exact is None:
            raise InvalidNetwork("a layer needs its weight and bias")
        object.__setattr__(self, "_weight", weight)
        object.__setattr__(self, "_bias", bias)
        object.__setattr__(self, "n_in", n_in)
        object.__setattr__(self, "exact", exact)

    def __setattr__(self, name, value):
        raise AttributeError(f"Layer is immutable (cannot set {name!r})")

    def __repr__(self) -> str:
        return f"<Layer {self.n_in} -> {self.n_out}>"

    def _materialise(self) -> None:
        rows = self.exact.materialise()
        n = self.n_in
        object.__setattr__(self, "_weight", tuple(tuple(r[:n]) for r in rows))
        object.__setattr__(self, "_bias", tuple(r[n] for r in rows))

    @property
    def weight(self) -> Matrix:
        if self._weight is None:
            self._materialise()
        return self._weight

    @property
    def bias(self) -> Row:
        if self._bias is None:
            self._materialise()
        return self._bias

    @property
    def n_out(self) -> int:
        if self._bias is None:
            return len(self.exact.shifts)
        return len(self._bias)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Layer):
            return NotImplemented
        if self.n_in != other.n_in:
            return False
        if self.exact is not None and other.exact is not None:
            return self.exact == other.exact
        return self.weight == other.weight and self.bias == other.bias

    def __hash__(self) -> int:
        return hash((self.n_in, self.weight, self.bias))

    def __reduce__(self):
        return Layer, (self._weight, self._bias, self.n_in, self.exact)

    @classmethod
    def from_lists(cls, weight, bias, *, n_in: int | None = None, allow_float: bool = False,
                   index: int | None = None) -> "Layer":
        """Build a layer, checking shapes and converting every entry exactly."""
        where = f"layer {index}" if index is not None else "layer"
        W = _matrix(weight, None, f"{where} weight", allow_float)
        b = _vector(bias, f"{where} bias", allow_float)
        if len(W) != len(b):
            raise InvalidNetwork(f"{where}: weight has {len(W)} rows but bias has {len(b)} entries")
        cols = len(W[0]) if W else n_in
        if cols is None:
            raise InvalidNetwork(f"{where}: cannot infer the input width of an empty weight")
        if n_in is not None and cols != n_in:
            raise InvalidNetwork(f"{where}: weight has {cols} columns, expected {n_in}")
        return cls(W, b, cols)

    def apply(self, x: Sequence[Fraction]) -> Row:
        return tuple(sum((w * xi for w, xi in zip(row, x)), bi) for row, bi in zip(self.weight, self.bias))


_INTEGER_FORMS: dict[int, tuple] = {}


def _integer_layers(net: "Network") -> list[tuple[list[list[int]], list[int], int]]:
    """The hidden layers of ``net`` over a common denominator each: (integer rows, integer biases, denominator)."""
    hit = _INTEGER_FORMS.get(id(net))
    if hit is not None and hit[0] is net:
        return hit[1]
    layers = []
    for L in net.layers[:-1]:
        dl = math.lcm(*{q.denominator for r in L.weight for q in r}, *{q.denominator for q in L.bias})
        layers.append(([[w.numerator * (dl // w.denominator) for w in row] for row in L.weight],
                       [q.numerator * (dl // q.denominator) for q in L.bias], dl))
    if len(_INTEGER_FORMS) >= 32:
        _INTEGER_FORMS.clear()
    _INTEGER_FORMS[id(net)] = (net, layers)
    return layers


@dataclass(frozen=True, slots=True)
class Network:
    """A ReLU network with exact rational parameters.

    Examples
    --------
    >>> net = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0])])
    >>> net.architecture
    (1, 2, 1)
    >>> net([Fraction(-3)])   # σ(x) + σ(-x) = |x|
    (Fraction(3, 1),)
    """

    layers: tuple[Layer, ...]
    name: str | None = field(default=None, compare=False)
    description: str | None = field(default=None, compare=False)
    #: What the input did not state and was taken to hold when it was read
    #: (``"relu-mlp (stated by --assume relu-mlp): ..."``), or how the
    #: parameters were derived from it (a folded BatchNorm, the logits of a
    #: classifier).  ``None`` when the input states the function itself.
    #: Recorded in certificates and shown in every report; like ``name`` it is
    #: not compared and not hashed (:meth:`sha256` names the parameters).
    assumption: str | None = field(default=None, compare=False)
    #: the SHA-256 once computed (the layers are immutable, so it never changes)
    _sha: list = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self):
        if not self.layers:
            raise InvalidNetwork("the network has no layers")
        for i, (prev, nxt) in enumerate(zip(self.layers, self.layers[1:])):
            if nxt.n_in != prev.n_out:
                raise InvalidNetwork(
                    f"layer {i + 1} expects {nxt.n_in} inputs but layer {i} has {prev.n_out} outputs")
        if self.layers[0].n_in < 1 or self.layers[-1].n_out < 1:
            raise InvalidNetwork("input and output dimensions must be at least 1")

    # ---- construction -------------------------------------------------
    def __repr__(self) -> str:
        """One line: the weights of a real network would run to megabytes (``to_dict`` has them)."""
        arch = "-".join(map(str, self.architecture))
        extra = (f", name {self.name!r}" if self.name else "") + (", with an assumption" if self.assumption else "")
        return f"<Network {arch}, {self.n_params} parameters{extra}>"

    @classmethod
    def from_lists(cls, layers: Iterable, *, allow_float: bool = False, name=None, description=None) -> "Network":
        """Build from ``[(weight, bias), ...]`` with exact conversion of every entry."""
        built: list[Layer] = []
        for i, (W, b) in enumerate(layers):
            built.append(Layer.from_lists(W, b, n_in=built[-1].n_out if built else None,
                                          allow_float=allow_float, index=i))
        return cls(tuple(built), name=name, description=description)

    # ---- shape ----------------------------------------------------------
    @property
    def architecture(self) -> tuple[int, ...]:
        return (self.layers[0].n_in,) + tuple(L.n_out for L in self.layers)

    @property
    def depth(self) -> int:
        """Number of layer maps (Grigsby–Lindsey–Rolnick's d)."""
        return len(self.layers)

    @property
    def hidden_widths(self) -> tuple[int, ...]:
        return self.architecture[1:-1]

    @property
    def input_dim(self) -> int:
        return self.architecture[0]

    @property
    def output_dim(self) -> int:
        return self.architecture[-1]

    @property
    def n_params(self) -> int:
        return sum(L.n_out * (L.n_in + 1) for L in self.layers)

    @property
    def is_shallow(self) -> bool:
        return len(self.layers) == 2

    # ---- evaluation -----------------------------------------------------
    def __call__(self, x: Sequence) -> Row:
        """Evaluate exactly at a rational input."""
        v = tuple(to_rational(t) for t in x)
        if len(v) != self.input_dim:
            raise InvalidNetwork(f"input has {len(v)} entries, the network expects {self.input_dim}")
        for L in self.layers[:-1]:
            v = tuple(relu(z) for z in L.apply(v))
        return self.layers[-1].apply(v)

    def preactivations(self, x: Sequence) -> tuple[Row, ...]:
        """Pre-activations of every hidden layer at ``x`` (exact).

        Computed on integers (each layer over a common denominator, cached per
        network), then returned as Fractions: the same values as Fraction
        arithmetic, many times faster.
        """
        v = tuple(to_rational(t) for t in x)
        den = 1
        for q in v:
            den = den * q.denominator // math.gcd(den, q.denominator)
        h = [q.numerator * (den // q.denominator) for q in v]
        scale = den
        out = []
        for W, b, dl in _integer_layers(self):
            z = [bi * scale + sum(w * t for w, t in zip(row, h) if t) for row, bi in zip(W, b)]
            d = scale * dl
            out.append(tuple(Fraction(t, d) for t in z))
            h = [t if t > 0 else 0 for t in z]
            scale = d
        return tuple(out)

    # ---- views and serialisation ---------------------------------------
    def shallow(self) -> "Shallow":
        """The paper's θ = (M, A, b, c); raises :class:`NotShallow` otherwise."""
        if not self.is_shallow:
            raise NotShallow(self.architecture)
        h, o = self.layers
        return Shallow(o._weight, h._weight, h._bias, o._bias, h.n_in, hidden=h.exact, output=o.exact)

    def to_dict(self) -> dict:
        """The ``reluid.network/1`` JSON object (integers and ``"p/q"`` strings)."""
        d = {"format": "reluid.network/1"}
        if self.name:
            d["name"] = self.name
        if self.description:
            d["description"] = self.description
        if self.assumption:
            d["assumption"] = self.assumption
        d["layers"] = [
            {"weight": [[format_rational(x) for x in r] for r in L.weight] if L.weight else [],
             "bias": [format_rational(x) for x in L.bias],
             **({"inputs": L.n_in} if not L.weight else {})}
            for L in self.layers
        ]
        return d

    def canonical_chunks(self):
        """The canonical exact serialisation hashed by :meth:`sha256`, in chunks.

        ``reluid.network/1`` then, per layer, ``|n_out,n_in|`` followed by the
        weight rows and the bias, each entry written ``p/q`` in lowest terms
        (q = 1 included) and separated by ``,`` (rows by ``;``).  Name,
        description and assumption are not part of it.
        """
        yield b"reluid.network/1"
        for L in self.layers:
            yield f"|{L.n_out},{L.n_in}|".encode()
            if L.exact is not None and L.exact.array is not None:
                from reluid.model import dyadic

                chunks = dyadic.canonical_text(L.exact, L.n_in)     # the same bytes, vectorised
                if chunks is not None:
                    yield from chunks
                    continue
            for row in L.weight + (L.bias,):
                try:
                    if not FAST_FRACTIONS:  # pragma: no cover - depends on the Python implementation
                        raise AttributeError
                    text = ",".join([f"{x._numerator}/{x._denominator}" for x in row])   # the same reduced pair
                except AttributeError:      # not all Fractions, or no slots
                    text = ",".join([f"{x.numerator}/{x.denominator}" for x in row])
                yield (text + ";").encode()

    def canonical_bytes(self) -> bytes:
        """See :meth:`canonical_chunks`."""
        return b"".join(self.canonical_chunks())

    def sha256(self) -> str:
        """SHA-256 of the canonical exact serialisation (names certificates' networks)."""
        if not self._sha:
            h = hashlib.sha256()
            for chunk in self.canonical_chunks():
                h.update(chunk)
            self._sha.append(h.hexdigest())
        return self._sha[0]


class Shallow:
    """θ = (M, A, b, c) ∈ Ω(m, n, k) (Ramakrishnan 2026, §2.1).

    ``M`` is k × n (column i is the output weight m_i of neuron i), ``A`` is
    n × m (row i is a_iᵀ), ``b`` ∈ Qⁿ, ``c`` ∈ Qᵏ.  The view of a network read
    from binary floats also holds the layers' :class:`ScaledRows`, ``hidden``
    (of [A | b]) and ``output`` (of [M | c]), and builds M, A, b, c from them
    only when they are first asked for.
    """

    __slots__ = ("_M", "_A", "_b", "_c", "m", "hidden", "output")

    def __init__(self, M, A, b, c, m: int, *, hidden: ScaledRows | None = None, output: ScaledRows | None = None):
        if (A is None or b is None) and hidden is None or (M is None or c is None) and output is None:
            raise InvalidNetwork("θ = (M, A, b, c) needs all four parts")
        for name, value in (("_M", M), ("_A", A), ("_b", b), ("_c", c), ("m", m), ("hidden", hidden),
                            ("output", output)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"Shallow is immutable (cannot set {name!r})")

    def __reduce__(self):
        return _shallow, (self._M, self._A, self._b, self._c, self.m, self.hidden, self.output)

    def __repr__(self) -> str:
        return f"<Shallow θ ∈ Ω(m={self.m}, n={self.n}, k={self.k})>"

    def _split(self, form: ScaledRows, names: tuple[str, str], width: int) -> None:
        rows = form.materialise()
        object.__setattr__(self, names[0], tuple(tuple(r[:width]) for r in rows))
        object.__setattr__(self, names[1], tuple(r[width] for r in rows))

    @property
    def M(self) -> Matrix:
        if self._M is None:
            self._split(self.output, ("_M", "_c"), self.n)
        return self._M

    @property
    def c(self) -> Row:
        if self._c is None:
            self._split(self.output, ("_M", "_c"), self.n)
        return self._c

    @property
    def A(self) -> Matrix:
        if self._A is None:
            self._split(self.hidden, ("_A", "_b"), self.m)
        return self._A

    @property
    def b(self) -> Row:
        if self._b is None:
            self._split(self.hidden, ("_A", "_b"), self.m)
        return self._b

    def __eq__(self, other) -> bool:
        if not isinstance(other, Shallow):
            return NotImplemented
        return (self.m, self.M, self.A, self.b, self.c) == (other.m, other.M, other.A, other.b, other.c)

    def __hash__(self) -> int:
        return hash((self.m, self.M, self.A, self.b, self.c))

    @property
    def n(self) -> int:
        return len(self.hidden.shifts) if self._b is None else len(self._b)

    @property
    def k(self) -> int:
        return len(self.output.shifts) if self._c is None else len(self._c)

    def out(self, i: int) -> Row:
        """The output column m_i ∈ Qᵏ of neuron i."""
        return tuple(row[i] for row in self.M)

    def row(self, i: int) -> Row:
        """(a_i, b_i) ∈ Q^{m+1}."""
        return self.A[i] + (self.b[i],)

    @classmethod
    def make(cls, M, A, b, c, *, m: int | None = None, allow_float: bool = False) -> "Shallow":
        """Build θ from nested lists (k = 1 accepts a flat ``M`` = v)."""
        A_ = _matrix(A, m, "A", allow_float)
        b_ = _vector(b, "b", allow_float)
        c_ = _vector(c if isinstance(c, (list, tuple)) else [c], "c", allow_float)
        if M and not isinstance(M[0], (list, tuple)):
            M = [M]
        M_ = _matrix(M, len(b_), "M", allow_float) if M else tuple(() for _ in c_)
        mm = len(A_[0]) if A_ else m
        if mm is None:
            raise InvalidNetwork("cannot infer the input dimension m of an empty A")
        if len(A_) != len(b_) or len(M_) != len(c_):
            raise InvalidNetwork("θ = (M, A, b, c) has inconsistent shapes")
        return cls(M_, A_, b_, c_, mm)

    def to_network(self, name=None, description=None) -> Network:
        return Network((Layer(self._A, self._b, self.m, self.hidden), Layer(self._M, self._c, self.n, self.output)),
                       name=name, description=description)

    def __call__(self, x) -> Row:
        return self.to_network()(x)


def _shallow(M, A, b, c, m, hidden, output) -> Shallow:
    """Unpickle a :class:`Shallow` (its slots are read-only)."""
    return Shallow(M, A, b, c, m, hidden=hidden, output=output)
