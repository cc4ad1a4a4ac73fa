"""Exact plane geometry of a one-hidden-layer network with two inputs (used for Lemma D.15).

For θ ∈ Ω(2, n, 1) the bent hyperplanes of the hidden neurons are lines H_i = {a_i·x + b_i = 0}; the
output's is the level set Z = ρ(θ)⁻¹(0).  Everything here is exact: vertices solve 2 × 2 systems,
edges are parametrised by rationals, and each activation region is found from a point at an exactly
computed distance from one of its edges.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from reluid.model.network import Shallow

__all__ = ["PlaneGeometry"]

Q = Fraction


class PlaneGeometry:
    """Exact geometry of θ ∈ Ω(2, n, 1): hidden lines H_i = {a_i·x + b_i = 0}, activation regions, Z = ρ(θ)⁻¹(0)."""

    def __init__(self, theta: Shallow):
        if theta.m != 2 or theta.k != 1:
            raise ValueError("plane geometry needs m = 2 and k = 1")
        self.theta = theta
        self.n = theta.n
        self.a = [theta.A[i] for i in range(self.n)]
        self.b = [theta.b[i] for i in range(self.n)]
        self.v = theta.M[0]
        self.C = theta.c[0]

    # -- basic maps ------------------------------------------------------
    def z(self, i, x):
        return self.a[i][0] * x[0] + self.a[i][1] * x[1] + self.b[i]

    def f(self, x):
        return self.theta(x)[0]

    def signs(self, x):
        return tuple((self.z(i, x) > 0) - (self.z(i, x) < 0) for i in range(self.n))

    def formula(self, s):
        """The affine map (gradient, constant) of ρ(θ) on the activation region with sign vector s."""
        g = [sum((self.v[i] * self.a[i][l] for i in range(self.n) if s[i] > 0), Q(0)) for l in range(2)]
        c = sum((self.v[i] * self.b[i] for i in range(self.n) if s[i] > 0), Q(0)) + self.C
        return tuple(g), c

    # -- arrangement -------------------------------------------------------
    def vertex(self, i, j):
        (p, q), (r, s) = self.a[i], self.a[j]
        det = p * s - q * r
        if det == 0:
            return None
        return ((-self.b[i] * s + q * self.b[j]) / det, (-p * self.b[j] + r * self.b[i]) / det)

    def vertices(self):
        out = {}
        for i, j in itertools.combinations(range(self.n), 2):
            x = self.vertex(i, j)
            if x is not None:
                out.setdefault(x, set()).update((i, j))
        return out

    def generic(self) -> bool:
        """Pairwise intersections are points, no three lines meet (k-fold intersections have dimension 2 − k)."""
        pairs_ok = all(self.vertex(i, j) is not None for i, j in itertools.combinations(range(self.n), 2))
        verts = self.vertices()
        return pairs_ok and all(len(ls) == 2 for ls in verts.values()) and all(any(a) for a in self.a)

    def _line(self, i):
        (p, q), b = self.a[i], self.b[i]
        p0 = (-b / p, Q(0)) if p else (Q(0), -b / q)
        return p0, (-q, p)

    def edges(self, i):
        """The open 1-cells of H_i: (parameter interval, two interior points, the point map t ↦ p0 + t d)."""
        p0, d = self._line(i)
        ts = set()
        for j in range(self.n):
            if j == i:
                continue
            den = self.a[j][0] * d[0] + self.a[j][1] * d[1]
            if den:
                ts.add(-self.z(j, p0) / den)
        ts = sorted(ts)
        point = lambda t: (p0[0] + t * d[0], p0[1] + t * d[1])  # noqa: E731
        cells = []
        if not ts:
            cells.append(((None, None), (Q(0), Q(1))))
        else:
            cells.append(((None, ts[0]), (ts[0] - 2, ts[0] - 1)))
            for lo, hi in zip(ts, ts[1:]):
                cells.append(((lo, hi), (lo + (hi - lo) / 3, lo + 2 * (hi - lo) / 3)))
            cells.append(((ts[-1], None), (ts[-1] + 1, ts[-1] + 2)))
        return [(iv, pts, point) for iv, pts in cells]

    def regions(self):
        """Sign vector → an interior point, for every nonempty activation region (all signs nonzero)."""
        found = {}
        for i in range(self.n):
            ai = self.a[i]
            for iv, (t0, _), point in self.edges(i):
                p = point(t0)
                eps = Q(1)
                for j in range(self.n):
                    dot = self.a[j][0] * ai[0] + self.a[j][1] * ai[1]
                    if j != i and dot:
                        eps = min(eps, abs(self.z(j, p)) / (2 * abs(dot)))
                for sgn in (1, -1):
                    x = (p[0] + sgn * eps * ai[0], p[1] + sgn * eps * ai[1])
                    s = self.signs(x)
                    if 0 not in s:
                        found.setdefault(s, x)
        return found

    def zeros_on_line(self, i):
        """Points of H_i ∩ Z (ρ(θ) = 0), and whether ρ(θ) is constant zero on some open edge of H_i."""
        pts, flat_zero = [], False
        for (lo, hi), (t0, t1), point in self.edges(i):
            f0, f1 = self.f(point(t0)), self.f(point(t1))
            slope = (f1 - f0) / (t1 - t0)
            if slope == 0:
                flat_zero |= f0 == 0
                continue
            t = t0 - f0 / slope
            if (lo is None or t > lo) and (hi is None or t < hi):
                pts.append(point(t))
        return pts, flat_zero
