"""A float search for competitors θ′ of a two-hidden-layer network: evidence against Theorem 8.2's implementation.

This never makes a verdict.  It fits θ′ of the same architecture to f_θ on sample points from
many starts (teacher–student, Levenberg–Marquardt with an analytic Jacobian) and classifies every
near-fit exactly:

* *in an orbit*: normalised in floats to the form of some θ^{F1,F2} (layer-1 rows matched to
  ±(A_j, a_j), layer-2 rows to ±(W_k, w^{F1}_k), scalings divided out), with F1 ∈ 𝔉1, F2 ∈ 𝔉2, the
  rounded output layer equal to θ^{F1,F2}'s, and f_{θ^{F1,F2}} = f_θ re-verified exactly
  (:func:`reluid.analysis.deep.cells.same_function`);
* otherwise the near-fit is rounded to rationals and compared with θ exactly: *refuted* (it
  differs somewhere: a sampling artefact) or a **competitor** (same function, outside every
  orbit θ^{F1,F2}: it would contradict the theorem).

Starts (docs/mathematics.md §8, the referee's search): θ perturbed by 3 %, 10 % and 30 %; one
layer-1 row or one layer-2 row replaced at random; two neurons of a layer with their roles
swapped (incoming rows exchanged, outgoing weights kept); random with the teacher's per-layer
scale; and θ^{F1} + 5 % and θ^{F2} + 5 % for **every** nonempty F1 ⊆ [n1] and F2 ⊆ [n2], flip
set or not (a systematic probe of the sign-flip directions that does not use 𝔉1, 𝔉2).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from reluid.analysis.deep.cells import same_function
from reluid.analysis.deep.two_layers import flipped
from reluid.errors import ReluidError
from reluid.model.network import Network

__all__ = ["SearchResult", "search_competitors", "START_KINDS"]

START_KINDS = ("perturb 3%", "perturb 10%", "perturb 30%", "layer-1 row replaced", "layer-2 row replaced",
               "roles swapped", "random")


@dataclass
class SearchResult:
    """Counts of one search (floats only search; every classification is exact)."""

    starts: int = 0
    fits: int = 0
    near_fits: int = 0
    in_orbit: int = 0
    refuted: int = 0
    competitors: list = field(default_factory=list)
    orbits_hit: set = field(default_factory=set)
    near_by_kind: dict = field(default_factory=dict)
    best_rms: list = field(default_factory=list)

    def add(self, other: "SearchResult") -> None:
        for k in ("starts", "fits", "near_fits", "in_orbit", "refuted"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.competitors += other.competitors
        for k, v in other.near_by_kind.items():
            self.near_by_kind[k] = self.near_by_kind.get(k, 0) + v


def _params(net: Network) -> np.ndarray:
    return np.array([float(v) for L in net.layers for v in [x for r in L.weight for x in r] + list(L.bias)])


class _Model:
    def __init__(self, arch):
        self.arch = n0, n1, n2, n3 = arch
        self.shapes = [(n1, n0), (n1,), (n2, n1), (n2,), (n3, n2), (n3,)]
        self.sizes = [int(np.prod(s)) for s in self.shapes]
        self.offs = [sum(self.sizes[:i]) for i in range(6)]

    def unpack(self, p):
        return [p[o:o + s].reshape(sh) for o, s, sh in zip(self.offs, self.sizes, self.shapes)]

    def pack(self, A, a, W, w, V, c):
        return np.concatenate([A.ravel(), a, W.ravel(), w, V.ravel(), c])

    def forward(self, p, X):
        A, a, W, w, V, c = self.unpack(p)
        u = X @ A.T + a
        h = np.maximum(u, 0)
        g = h @ W.T + w
        z = np.maximum(g, 0)
        return u, h, g, z, z @ V.T + c

    def jacobian(self, p, X):
        A, a, W, w, V, c = self.unpack(p)
        u, h, g, z, _ = self.forward(p, X)
        n0, n1, n2, n3 = self.arch
        N = X.shape[0]
        du, dg = (u > 0).astype(float), (g > 0).astype(float)
        J = np.zeros((N, n3, p.size))
        for o in range(n3):
            Go = dg * V[o]
            Ho = (Go @ W) * du
            dV = np.zeros((N, n3, n2))
            dV[:, o, :] = z
            dc = np.zeros((N, n3))
            dc[:, o] = 1
            J[:, o, :] = np.hstack([(Ho[:, :, None] * X[:, None, :]).reshape(N, -1), Ho,
                                    (Go[:, :, None] * h[:, None, :]).reshape(N, -1), Go, dV.reshape(N, -1), dc])
        return J.reshape(N * n3, -1)


def _sample(net: Network, theorem, rng, n: int) -> np.ndarray:
    n0 = net.input_dim
    pts = []
    if theorem is not None:
        pts += [f.point for f in theorem.full] + [z for f in theorem.full for z in f.zeros]
        pts += [f.point for f in theorem.flats] + [p for _, p in theorem.regions]
    P = np.array([[float(v) for v in x] for x in pts]) if pts else np.zeros((1, n0))
    lo, hi = P.min(axis=0), P.max(axis=0)
    mid, half = (lo + hi) / 2, np.maximum((hi - lo) / 2, 1.0) * 1.5
    X = [mid + half * rng.uniform(-1, 1, size=(n, n0))]
    spread = float(np.max(half))
    for sc in (0.02, 0.1):
        X.append(P[rng.integers(len(P), size=n // 2)] + rng.normal(0, spread * sc, size=(n // 2, n0)))
    return np.vstack(X)


def _rational_net(arch, p, den=10**6) -> Network:
    vals = [Fraction(float(x)).limit_denominator(den) for x in p]
    n0, n1, n2, n3 = arch
    it = iter(vals)
    take = lambda m: [next(it) for _ in range(m)]
    A = [take(n0) for _ in range(n1)]
    a = take(n1)
    W = [take(n1) for _ in range(n2)]
    w = take(n2)
    V = [take(n2) for _ in range(n3)]
    c = take(n3)
    return Network.from_lists([(A, a), (W, w), (V, c)])


def _snap(net: Network, model: _Model, p, fam1, fam2, rtol=1e-6):
    """(F1, F2) when the float fit p is, after dividing out G, the normal form of θ^{F1,F2} (checked exactly)."""
    n0, n1, n2, n3 = model.arch
    A, a, W, w, V, c = model.unpack(p)
    L1 = np.hstack([A, a[:, None]])
    R1 = np.array([[float(v) for v in net.layers[0].weight[j]] + [float(net.layers[0].bias[j])] for j in range(n1)])
    perm1, eps, W2 = [None] * n1, [None] * n1, np.zeros_like(W)
    for i in range(n1):
        best = None
        for j in range(n1):
            lam = L1[i] @ R1[j] / (R1[j] @ R1[j])
            err = np.linalg.norm(L1[i] - lam * R1[j]) / (np.linalg.norm(L1[i]) + 1e-300)
            if err < rtol and (best is None or err < best[0]):
                best = (err, j, lam)
        if best is None or best[1] in perm1:
            return None
        _, j, lam = best
        perm1[i], eps[j] = j, 1 if lam > 0 else -1
        W2[:, j] = W[:, i] * abs(lam)
    F1 = frozenset(j for j in range(n1) if eps[j] < 0)
    ref1 = flipped(net, F1, ())
    R2 = np.array([[float(v) for v in ref1.layers[1].weight[k]] + [float(ref1.layers[1].bias[k])] for k in range(n2)])
    L2 = np.hstack([W2, w[:, None]])
    perm2, dl, Vn = [None] * n2, [None] * n2, [None] * n2
    for i in range(n2):
        best = None
        for k in range(n2):
            lam = L2[i] @ R2[k] / (R2[k] @ R2[k])
            err = np.linalg.norm(L2[i] - lam * R2[k]) / (np.linalg.norm(L2[i]) + 1e-300)
            if err < rtol and (best is None or err < best[0]):
                best = (err, k, lam)
        if best is None or best[1] in perm2:
            return None
        _, k, lam = best
        perm2[i], dl[k] = k, 1 if lam > 0 else -1
        Vn[k] = V[:, i] * abs(lam)
    F2 = frozenset(k for k in range(n2) if dl[k] < 0)
    if F1 not in fam1 or F2 not in fam2:
        return None
    target = flipped(net, F1, F2)
    Vt, ct = target.layers[2].weight, target.layers[2].bias
    ok = all(Fraction(float(Vn[k][o])).limit_denominator(10**4) == Vt[o][k] for k in range(n2) for o in range(n3)) \
        and all(Fraction(float(x)).limit_denominator(10**4) == y for x, y in zip(c, ct))
    return (F1, F2) if ok else None


def search_competitors(net: Network, theorem, *, starts: int = 21, seed: int = 0, npts: int = 300,
                       near: float = 1e-8) -> SearchResult:
    """Fit θ′ to f_θ from ``starts`` generic starts plus one start θ^{F} + 5 % per nonempty F in each layer.

    ``theorem`` is the :class:`~reluid.analysis.deep.two_layers.TwoLayerResult` of θ (its witnesses
    place the sample points; its flip families classify the fits).
    """
    try:
        from scipy.optimize import least_squares
    except ImportError:
        raise ReluidError("the competitor search needs scipy's least-squares fit: pip install 'reluid[search]'") \
            from None

    arch = net.architecture
    n0, n1, n2, n3 = arch
    model = _Model(arch)
    rng = np.random.default_rng(seed)
    X = _sample(net, theorem, rng, npts)
    th = _params(net)
    Y = model.forward(th, X)[4]
    scale = float(np.sqrt(np.mean(Y ** 2))) + 1e-12
    fam1 = set(theorem.family1 or (frozenset(),))
    fam2 = set(theorem.family2 or (frozenset(),))
    sd = [float(np.sqrt(np.mean(th[o:o + s] ** 2))) + 0.1 for o, s in zip(model.offs, model.sizes)]
    out = SearchResult()
    schedule = [(START_KINDS[i % len(START_KINDS)], None) for i in range(starts)]
    schedule += [("layer-1 sign flip", F) for r in range(1, n1 + 1) for F in itertools.combinations(range(n1), r)]
    schedule += [("layer-2 sign flip", F) for r in range(1, n2 + 1) for F in itertools.combinations(range(n2), r)]
    verified_orbits = set()

    def noise(rel):
        return rel * (np.abs(th) + 0.5) * rng.normal(0, 1, th.size)

    def start(kind, F):
        if kind.startswith("perturb"):
            return th + noise(float(kind.split()[1][:-1]) / 100)
        if kind == "random":
            return np.concatenate([rng.normal(0, s, m) for s, m in zip(sd, model.sizes)])
        if kind == "layer-1 sign flip":
            return _params(flipped(net, F, ())) + noise(0.05)
        if kind == "layer-2 sign flip":
            return _params(flipped(net, (), F)) + noise(0.05)
        A, a, W, w, V, c = [x.copy() for x in model.unpack(th.copy())]
        if kind == "layer-1 row replaced":
            j = rng.integers(n1)
            A[j], a[j] = rng.normal(0, sd[0], n0), rng.normal(0, sd[1])
        elif kind == "layer-2 row replaced":
            k = rng.integers(n2)
            W[k], w[k] = rng.normal(0, sd[2], n1), rng.normal(0, sd[3])
        else:                                   # roles swapped: exchange the incoming rows of two neurons
            layer = rng.integers(2) if n2 > 1 and n1 > 1 else (0 if n1 > 1 else 1)
            if layer == 0:
                i, j = rng.choice(n1, 2, replace=False)
                A[[i, j]], a[[i, j]] = A[[j, i]], a[[j, i]]
            else:
                i, j = rng.choice(n2, 2, replace=False)
                W[[i, j]], w[[i, j]] = W[[j, i]], w[[j, i]]
        return model.pack(A, a, W, w, V, c) + noise(0.05)

    for kind, F in schedule:
        out.starts += 1
        p0 = start(kind, F)
        try:
            sol = least_squares(lambda p: (model.forward(p, X)[4] - Y).ravel() / scale, p0,
                                jac=lambda p: model.jacobian(p, X) / scale, method="lm", max_nfev=3000,
                                xtol=1e-15, ftol=1e-15, gtol=1e-15)
        except Exception:   # a singular LM step: no fit from this start
            continue
        out.fits += 1
        rms = float(np.sqrt(np.mean(sol.fun ** 2)))
        out.best_rms.append(rms)
        if rms >= near:
            continue
        out.near_fits += 1
        out.near_by_kind[kind] = out.near_by_kind.get(kind, 0) + 1
        hit = _snap(net, model, sol.x, fam1, fam2)
        if hit is not None:
            if hit not in verified_orbits:      # f_{θ^{F1,F2}} = f_θ, exactly (once per orbit)
                same, _ = same_function(net, flipped(net, *hit))
                if not same:    # pragma: no cover - would contradict Proposition 8.11
                    raise AssertionError(f"θ^{hit} differs from θ")
                verified_orbits.add(hit)
            out.in_orbit += 1
            out.orbits_hit.add(hit)
            continue
        cand = _rational_net(arch, sol.x)
        same, _ = same_function(net, cand)
        if same:
            out.competitors.append(cand)
        else:
            out.refuted += 1
    out.best_rms.sort()
    return out
