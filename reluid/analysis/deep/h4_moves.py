"""Hidden symmetries of two-hidden-layer networks that fail H4: the dead-side translation.

H4 (docs/mathematics.md §8.3) is used once in the proof of Theorem 8.2, in Step 2: it forces the
layer-1 lines of every competitor θ′ to be the H_j.  Where it fails, a layer-1 line may move.  This
module builds one explicit family of such moves and verifies each witness exactly.

**Construction (dead-side translation).**  θ = (A, a; W, w; V, c), u = Ax + a, g = Wσ(u) + w.  For a
layer-1 neuron j and a rational δ ≠ 0 let θ_{j,δ} be θ with

    a′_j = a_j − δ,      w′ = w + δ W_{:,j}          (everything else unchanged),

so that H′_j = {u_j = δ} is H_j translated.  Then

    g′ − g = W_{:,j} h,     h = σ(u_j − δ) − σ(u_j) + δ,

and h is continuous, piecewise affine, with h = 0 on {u_j ≥ max(δ, 0)}, h ∈ [0, δ] for δ > 0 and
h ∈ [δ, 0] for δ < 0.

**Proposition M.1.** If for every k with W_{kj} ≠ 0 and every x with u_j(x) < max(δ, 0)
both g_k(x) ≤ 0 and g_k(x) + W_{kj} h(x) ≤ 0, then f_{θ_{j,δ}} = f_θ.  If moreover H′_j is none of
H_1, …, H_{n1}, then θ_{j,δ} ∉ G·θ, so θ has a hidden symmetry.
*Proof.* For k with W_{kj} = 0, g′_k = g_k.  For the others, where h(x) = 0 we have g′_k(x) = g_k(x);
where h(x) ≠ 0 we have u_j(x) < max(δ, 0), so g_k(x) ≤ 0 and g′_k(x) = g_k(x) + W_{kj}h(x) ≤ 0, hence
σ(g′_k(x)) = 0 = σ(g_k(x)).  So σ(g′) = σ(g) on R^{n0}, and V, c are unchanged: f_{θ_{j,δ}} = f_θ.  An
element of G permutes the layer-1 neurons and scales them by positive numbers, so it preserves the
set of layer-1 hyperplanes {H_1, …, H_{n1}} (H0: the A_j ≠ 0); θ_{j,δ} has the set
{H_i : i ≠ j} ∪ {H′_j}, which differs when H′_j ∉ {H_i}.  ∎

In words: every consumer of neuron j (every layer-2 neuron that reads it) is dead on the closed
side {u_j ≤ 0} of H_j where j is inactive, with a margin; then H_j is invisible in f and slides
freely in a one-parameter family (δ in an interval around 0).  The (2, 1, 1, 1) network of
docs/mathematics.md Remark 10.14 (f = σ(x_1 − 1), H_1 = {x_1 = 0}, θ′ with a′ = w′ = −1/2) is
θ_{1,1/2}.  The move is not one of the mechanisms of :mod:`reluid.analysis.deep.mechanisms`: the
consumers are dead where j is *inactive*, not where it is active (never co-active, GLR (ii)), and
need not be dead anywhere else.

**Detection and verification.**  The premise of M.1 is not proved separately: for each j and each δ
in a fixed list, the witness θ_{j,δ} is built and f_{θ_{j,δ}} = f_θ is decided by
:func:`reluid.analysis.deep.equivalence.equivalent` (exact joint activation cells, docs/mathematics.md
§7); only ``equal is True`` by the region split or the orbit alignment counts, and the witness is
reported only when H′_j is none of the H_i (exact rank), which makes it a hidden symmetry by M.1's
last sentence.  Floats never decide anything here.

**What a checker rule would be** (not wired; reluid/checker is separate): from the network and the
certificate's (j, δ), rebuild θ_{j,δ} with the checker's own arithmetic, check rank[u_j − δ; u_i] = 2
for every i (H′_j is no H_i, including i = j since δ ≠ 0), and verify the premise of M.1 by a
Farkas-tree certificate for each consumer k and each of the two inequalities ("no x with
u_j(x) < max(δ, 0) and g_k(x) > 0", resp. "… and g_k(x) + W_{kj}h(x) > 0", each a union of polyhedral
pieces over the layer-1 sign pattern), the certificate format the checker already re-verifies for
dead neurons (docs/mathematics.md §6.1).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from reluid.analysis.deep.equivalence import equivalent
from reluid.analysis.deep.strict import rank
from reluid.errors import InvalidArgument
from reluid.model.network import Layer, Network
from reluid.verdicts import Reason, ReasonCode

__all__ = ["DEAD_SIDE_TRANSLATION", "H4Move", "FloatSearch", "float_line_search", "translated", "moves_hyperplane", "find_h4_moves", "DELTAS"]

DEAD_SIDE_TRANSLATION = "dead-side-translation"
#: The translations tried, in this order (both signs of each).
DELTAS = tuple(Fraction(1, d) for d in (64, 16, 4)) + (Fraction(1), Fraction(4))


@dataclass(frozen=True, slots=True)
class H4Move:
    """A verified hidden symmetry θ_{j,δ} (Proposition M.1): ``neuron`` is j (0-based)."""

    kind: str
    neuron: int
    delta: Fraction
    witness: Network
    method: str
    regions: int | None


def _check(net: Network) -> None:
    if not isinstance(net, Network):
        raise InvalidArgument(f"expected a Network, got {type(net).__name__}")
    if len(net.architecture) != 4:
        raise InvalidArgument(f"the dead-side translation is stated for two hidden layers, got {net.architecture}")


def translated(net: Network, j: int, delta) -> Network:
    """θ_{j,δ}: a′_j = a_j − δ and w′ = w + δ W_{:,j}; every other entry unchanged."""
    _check(net)
    delta = Fraction(delta)
    L1, L2, L3 = net.layers
    if not 0 <= j < L1.n_out:
        raise InvalidArgument(f"layer-1 neuron {j} out of range 0..{L1.n_out - 1}")
    a = tuple(b - delta if i == j else b for i, b in enumerate(L1.bias))
    w = tuple(L2.bias[k] + delta * L2.weight[k][j] for k in range(L2.n_out))
    return Network((Layer(L1.weight, a, L1.n_in), Layer(L2.weight, w, L2.n_in), L3),
                   name=net.name, description=net.description)


def moves_hyperplane(net: Network, j: int, delta) -> bool:
    """Whether H′_j = {u_j = δ} differs from every H_i (exact ranks; then θ_{j,δ} ∉ G·θ)."""
    L1 = net.layers[0]
    new = tuple(L1.weight[j]) + (L1.bias[j] - Fraction(delta),)
    if not any(new[:-1]):
        return False
    return all(rank([list(new), list(tuple(L1.weight[i]) + (L1.bias[i],))]) == 2 for i in range(L1.n_out))


def find_h4_moves(net: Network, *, deltas=DELTAS, timeout: float | None = 60.0, per_neuron: int = 1,
                  neurons=None) -> tuple[tuple[H4Move, ...], tuple[str, ...]]:
    """Dead-side translations of ``net`` verified exactly, and the questions left undecided.

    For every layer-1 neuron j (or those in ``neurons``) and δ = ±d for d in ``deltas``, θ_{j,δ} is
    compared with θ by :func:`~reluid.analysis.deep.equivalence.equivalent`; a move counts only when
    the equality is decided True exactly and H′_j is none of the H_i.  At most ``per_neuron`` moves are
    kept per neuron.  Returns (moves, undecided reasons), the reasons as :class:`~reluid.verdicts.Reason` data.
    """
    _check(net)
    t0 = time.monotonic()
    n1 = net.architecture[1]
    moves, undecided = [], []
    for j in (range(n1) if neurons is None else neurons):
        found = 0
        for d in deltas:
            for delta in (Fraction(d), -Fraction(d)):
                if found >= per_neuron:
                    break
                if not moves_hyperplane(net, j, delta):
                    continue
                left = None if timeout is None else timeout - (time.monotonic() - t0)
                if left is not None and left <= 0:
                    undecided.append(Reason(ReasonCode.H4_MOVE_UNDECIDED, {"neuron": j, "delta": delta,
                                                                          "why": Reason(ReasonCode.OUT_OF_TIME)}))
                    continue
                cand = translated(net, j, delta)
                eq = equivalent(net, cand, timeout=left)
                if eq.equal is True:
                    moves.append(H4Move(DEAD_SIDE_TRANSLATION, j, delta, cand, eq.method, eq.regions))
                    found += 1
                elif eq.equal is None:
                    undecided.append(Reason(ReasonCode.H4_MOVE_UNDECIDED, {"neuron": j, "delta": delta,
                                                                          "why": eq.reason}))
    return tuple(moves), tuple(undecided)


@dataclass(frozen=True, slots=True)
class FloatSearch:
    """What :func:`float_line_search` tried: fits with one layer-1 line held moved, near-fits, exact answers."""

    fits: int
    near_fits: int
    refuted: int
    undecided: int
    competitors: tuple[Network, ...]
    best_rms: tuple[float, ...]


def float_line_search(net: Network, *, seed: int = 0, npts: int = 300, near: float = 1e-9, den: int = 4096,
                      moves: tuple[float, ...] = (0.05, -0.05, 0.2, -0.2), timeout: float | None = 30.0) -> FloatSearch:
    """Discover competitors whose layer-1 line j is moved: floats propose, :func:`equivalent` decides.

    For every j and every move (a translation u_j − m·|A_j|, and a rotation of H_j by the angle m about
    the point of H_j nearest the origin), the moved row is held fixed and every other parameter is
    fitted to f_θ on sample points by Levenberg–Marquardt from θ.  A fit with relative RMS below
    ``near`` is rounded to rationals (denominators up to ``den``) and compared with θ exactly; only
    ``equal is True`` with H′_j none of the H_i makes a competitor.
    """
    import numpy as np
    from scipy.optimize import least_squares

    from reluid.analysis.deep.competitors import _Model, _params, _rational_net

    _check(net)
    t0 = time.monotonic()
    arch = net.architecture
    n0, n1, n2, n3 = arch
    model = _Model(arch)
    rng = np.random.default_rng(seed)
    th = _params(net)
    A, a = model.unpack(th)[:2]
    spread = max(3.0, float(np.max(np.abs(a) / (np.linalg.norm(A, axis=1) + 1e-12))) * 2)
    X = rng.uniform(-spread, spread, size=(npts, n0))
    Y = model.forward(th, X)[4]
    scale = float(np.sqrt(np.mean(Y ** 2))) + 1e-12
    fits = nears = refuted = undecided = 0
    comps, best = [], []
    for j in range(n1):
        fixed = np.zeros(th.size, dtype=bool)
        fixed[model.offs[0] + j * n0: model.offs[0] + (j + 1) * n0] = True
        fixed[model.offs[1] + j] = True
        # gauge: hold the largest entry of every other layer-1 row and of every layer-2 row (positive scaling)
        for i in range(n1):
            if i != j:
                fixed[model.offs[0] + i * n0 + int(np.argmax(np.abs(A[i])))] = True
        Wm = model.unpack(th)[2]
        for k in range(n2):
            fixed[model.offs[2] + k * n1 + int(np.argmax(np.abs(Wm[k])))] = True
        for m in moves:
            for how in ("translate", "rotate"):
                if timeout is not None and time.monotonic() - t0 > timeout:
                    return FloatSearch(fits, nears, refuted, undecided + 1, tuple(comps), tuple(sorted(best)))
                p0 = th.copy()
                Aj, aj = A[j].copy(), float(a[j])
                nrm = float(np.linalg.norm(Aj))
                if how == "translate":
                    aj = aj - m * nrm
                else:
                    x0 = -aj * Aj / nrm ** 2          # the point of H_j nearest the origin
                    c, s = np.cos(m), np.sin(m)
                    R = np.eye(n0)
                    R[:2, :2] = [[c, -s], [s, c]]
                    Aj = R @ Aj
                    aj = -float(Aj @ x0)
                # the moved row is a rational with denominator 64, so an exact competitor has rational entries
                p0[model.offs[0] + j * n0: model.offs[0] + (j + 1) * n0] = np.round(Aj * 64) / 64
                p0[model.offs[1] + j] = round(aj * 64) / 64
                free = ~fixed

                def res(q, p0=p0, free=free):
                    p = p0.copy()
                    p[free] = q
                    return (model.forward(p, X)[4] - Y).ravel() / scale

                def jac(q, p0=p0, free=free):
                    p = p0.copy()
                    p[free] = q
                    return model.jacobian(p, X)[:, free] / scale

                try:
                    sol = least_squares(res, p0[free], jac=jac, method="lm", max_nfev=2000,
                                        xtol=1e-15, ftol=1e-15, gtol=1e-15)
                except Exception:      # a singular LM step: no fit from this start
                    continue
                fits += 1
                rms = float(np.sqrt(np.mean(sol.fun ** 2)))
                best.append(rms)
                if rms >= near:
                    continue
                nears += 1
                p = p0.copy()
                p[free] = sol.x
                p = np.where(np.abs(p - th) < 1e-7, th, p)      # entries the fit left alone, exactly
                cand = _rational_net(arch, p, den=den)
                L1 = cand.layers[0]
                if not any(L1.weight[j]) or not all(
                        rank([list(L1.weight[j]) + [L1.bias[j]], list(net.layers[0].weight[i]) + [net.layers[0].bias[i]]]) == 2
                        for i in range(n1)):
                    refuted += 1
                    continue
                left = None if timeout is None else max(1.0, timeout - (time.monotonic() - t0))
                eq = equivalent(net, cand, timeout=left)
                if eq.equal is True:
                    comps.append(cand)
                elif eq.equal is False:
                    refuted += 1
                else:
                    undecided += 1
    return FloatSearch(fits, nears, refuted, undecided, tuple(comps), tuple(sorted(best)))
