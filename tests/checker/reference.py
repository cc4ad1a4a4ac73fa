"""Independent oracles the checker's tests compare against (test code only; the kernel does not use them)."""

from __future__ import annotations

from fractions import Fraction

from reluid.model.network import Network


def jacobian_rows(net: Network, x) -> tuple[list[list[Fraction]], bool]:
    """(rows ∂F_o(x)/∂θ for every output o, smooth) by exact reverse-mode differentiation.

    Parameters are ordered layer by layer, W row-major then b; ``smooth`` is
    False when some hidden pre-activation is exactly 0.
    """
    hs = [tuple(x)]
    masks = []
    smooth = True
    for L in net.layers[:-1]:
        z = L.apply(hs[-1])
        smooth = smooth and all(v != 0 for v in z)
        masks.append(tuple(v > 0 for v in z))
        hs.append(tuple(v if v > 0 else Fraction(0) for v in z))
    rows = []
    for out in range(net.output_dim):
        delta = [Fraction(int(o == out)) for o in range(net.output_dim)]
        grads = []
        for m in range(len(net.layers) - 1, -1, -1):
            L = net.layers[m]
            grads.append([d * h for d in delta for h in hs[m]] + list(delta))
            if m:
                delta = [sum((L.weight[o][k] * delta[o] for o in range(L.n_out)), Fraction(0)) if masks[m - 1][k]
                         else Fraction(0) for k in range(L.n_in)]
        rows.append([v for g in reversed(grads) for v in g])
    return rows, smooth
