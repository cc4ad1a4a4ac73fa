"""The bent hyperplane arrangement of a network with two inputs, computed exactly, drawn as SVG.

For input dimension n0 = 2 each layer-1 neuron i has the line a_i·x + b_i = 0;
a neuron of a deeper layer has a *bent* line: the network is affine on every
region of the arrangement of the layers before it, so there its
pre-activation is affine and its zero set is a segment.  :func:`arrangement`
computes these pieces region by region with exact rationals (convex polygons
cut by one half-plane at a time), inside a window around the kinks, together
with where each neuron is active and the zero set of every output
(Ramakrishnan 2026, Figure 1).  :func:`svg_panel` draws one network;
floats appear only in the SVG coordinates.  A network with one input is drawn
as the exact graph of its function instead (:func:`graph`, :func:`svg_graph`):
the breakpoints, every neuron's kinks and, for one hidden layer, every
neuron's term m_i σ(a_i x + b_i).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from fractions import Fraction

from reluid.model.network import Network

__all__ = ["Arrangement", "arrangement", "window", "svg_panel", "changed_neurons", "colour", "COLOURS", "DEEP_COLOURS",
           "MAX_CELLS", "Graph", "graph", "svg_graph"]

#: Colours of the neurons (the paper's red, blue, green first).
COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#7f7f7f")

#: Colours of deeper neurons (dashed).
DEEP_COLOURS = ("#7b3294", "#e66101", "#008080", "#5e3c99", "#b35806", "#01665e", "#c51b7d", "#4d4d4d")

#: Regions beyond which deeper layers are not drawn.
MAX_CELLS = 4000

#: Exact rational operations a figure may cost (about a second); beyond it the layer being
#: computed and the deeper ones are left out, with a note.  A count, not a time: the figure of
#: a network is the same on every machine.
MAX_WORK = 500_000

Point = tuple[Fraction, Fraction]


@dataclass
class Arrangement:
    """Exact pieces of the picture inside ``box`` = (x_lo, x_hi, y_lo, y_hi)."""

    box: tuple[Fraction, Fraction, Fraction, Fraction]
    #: (layer, neuron) → segments of its zero set (layer from 1, neuron from 0)
    curves: dict = field(default_factory=dict)
    #: (layer, neuron) → polygons where it is active
    active: dict = field(default_factory=dict)
    #: output index → segments of its zero set
    outputs: dict = field(default_factory=dict)
    layers_drawn: int = 0
    note: str = ""


# ---------------------------------------------------------------------------
# exact convex geometry
# ---------------------------------------------------------------------------

def _val(c, d, p: Point) -> Fraction:
    return c[0] * p[0] + c[1] * p[1] + d


def _cut(poly: list[Point], c, d):
    """The parts of a convex polygon where c·x + d ≥ 0 and ≤ 0, and the segment c·x + d = 0 inside it."""
    vals = [_val(c, d, p) for p in poly]
    if all(v >= 0 for v in vals):
        return poly, None, None
    if all(v <= 0 for v in vals):
        return None, poly, None
    pos, neg, seg = [], [], []
    n = len(poly)
    for k in range(n):
        p, q = poly[k], poly[(k + 1) % n]
        vp, vq = vals[k], vals[(k + 1) % n]
        if vp >= 0:
            pos.append(p)
        if vp <= 0:
            neg.append(p)
        if vp == 0:
            seg.append(p)
        if (vp > 0 and vq < 0) or (vp < 0 and vq > 0):
            t = vp / (vp - vq)
            x = (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))
            pos.append(x)
            neg.append(x)
            seg.append(x)
    segment = (seg[0], seg[-1]) if len(seg) >= 2 and seg[0] != seg[-1] else None
    return (pos if len(pos) >= 3 else None), (neg if len(neg) >= 3 else None), segment


def _segment(poly: list[Point], c, d):
    """The segment where the affine c·x + d vanishes inside the polygon, if it crosses it."""
    if c[0] == 0 and c[1] == 0:
        return None
    _, _, seg = _cut(poly, c, d)
    return seg


# ---------------------------------------------------------------------------
# the window and the arrangement
# ---------------------------------------------------------------------------

def _nice(x: Fraction, up: bool) -> Fraction:
    """Round outwards to a multiple of a power of two (or an integer for large values)."""
    step = Fraction(1, 4) if abs(x) < 4 else Fraction(1) if abs(x) < 64 else Fraction(16)
    q = x / step
    n = math.ceil(q) if up else math.floor(q)
    return n * step


def colour(layer: int, neuron: int) -> str:
    """The colour of a neuron in the figure and its legend (layer from 1, neuron from 0)."""
    if layer == 1:
        return COLOURS[neuron % len(COLOURS)]
    return DEEP_COLOURS[(neuron + 3 * (layer - 2)) % len(DEEP_COLOURS)]


def window(net: Network) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """A square window around the kinks.

    Layer 1: the pairwise intersections of its lines and the lines' points
    nearest the origin.  Deeper networks: also the bends of the deeper zero
    sets and of the output's, found in a window four times as large.
    """
    box = _layer1_window(net)
    if net.depth <= 2:
        return box
    x0, x1, y0, y1 = box
    cx, cy, h = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2
    big = (cx - 4 * h, cx + 4 * h, cy - 4 * h, cy + 4 * h)
    arr = arrangement(net, big, max_cells=MAX_CELLS // 4, max_work=MAX_WORK // 4)
    pts = [(x0, y0), (x1, y1)]
    segs = [s for (l, _), ss in arr.curves.items() if l > 1 for s in ss] + \
        [s for ss in arr.outputs.values() for s in ss]
    for p, q in segs:
        for r in (p, q):
            if big[0] < r[0] < big[1] and big[2] < r[1] < big[3]:    # a bend, not an exit from the window
                pts.append(r)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    half = max(max(xs) - min(xs), max(ys) - min(ys)) / 2 * Fraction(11, 10)
    mx, my = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    a, b, c, d = _nice(mx - half, False), _nice(mx + half, True), _nice(my - half, False), _nice(my + half, True)
    span = max(b - a, d - c)
    return a, a + span, c, c + span


def _layer1_window(net: Network) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    L = net.layers[0]
    pts: list[Point] = []
    rows = [(tuple(Fraction(x) for x in w), Fraction(b)) for w, b in zip(L.weight, L.bias) if any(w)]
    for a, b in rows:
        s = a[0] * a[0] + a[1] * a[1]
        pts.append((-b * a[0] / s, -b * a[1] / s))   # the point of the line nearest to the origin
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            (a, b), (c, d) = rows[i], rows[j]
            det = a[0] * c[1] - a[1] * c[0]
            if det:
                pts.append(((-b * c[1] + d * a[1]) / det, (-a[0] * d + c[0] * b) / det))
    if not pts:
        pts = [(Fraction(0), Fraction(0))]
    xs = sorted(p[0] for p in pts)
    ys = sorted(p[1] for p in pts)
    # robust to far outliers (nearly parallel lines): keep the central 90 % when there are many points
    if len(xs) > 10:
        cut = len(xs) // 20
        xs, ys = xs[cut:len(xs) - cut], ys[cut:len(ys) - cut]
    cx, cy = (xs[0] + xs[-1]) / 2, (ys[0] + ys[-1]) / 2
    half = max(xs[-1] - xs[0], ys[-1] - ys[0], Fraction(1)) / 2
    half = half * Fraction(3, 2) + Fraction(1, 2)
    x0, x1, y0, y1 = _nice(cx - half, False), _nice(cx + half, True), _nice(cy - half, False), _nice(cy + half, True)
    span = max(x1 - x0, y1 - y0)          # square, so that angles are drawn true
    return x0, x0 + span, y0, y0 + span


def arrangement(net: Network, box=None, max_cells: int = MAX_CELLS, max_work: int = MAX_WORK) -> Arrangement:
    """The exact bent arrangement of ``net`` (n0 = 2) inside ``box`` (default :func:`window`).

    Layer 1's lines are always drawn; a deeper layer (and the output's zero set) is left out,
    with a note, when it would split the window into more than ``max_cells`` regions or cost
    more than ``max_work`` exact cuts.
    """
    if net.input_dim != 2:
        raise ValueError("the arrangement is drawn for networks with two inputs")
    box = box or window(net)
    x0, x1, y0, y1 = box
    out = Arrangement(box)
    one, zero = Fraction(1), Fraction(0)
    # a cell: (polygon, P, q) with h(x) = P x + q the input of the next layer on the polygon
    cells = [([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], [(one, zero), (zero, one)], [zero, zero])]
    work = 0

    def stop(l, why):
        for key in [k for k in out.curves if k[0] >= max(l, 2)]:
            del out.curves[key]
        out.note = f"hidden layer {l} {why}; " + (f"layers from {l} on are not drawn" if l > 1 else
                                                   "only its lines are drawn")
        return out

    for l, L in enumerate(net.layers[:-1], 1):
        W = [[Fraction(v) for v in r] for r in L.weight]
        b = [Fraction(v) for v in L.bias]
        if l == 1:
            for j, (w, bj) in enumerate(zip(W, b)):
                seg = _segment(cells[0][0], (w[0], w[1]), bj)
                if seg is not None:
                    out.curves[(1, j)] = [seg]
        pieces = []
        work += 3 * len(cells) * len(W) * len(cells[0][1])
        if work > max_work:
            return stop(l, f"needs more than {max_work} exact operations")
        for poly, P, q in cells:
            Z = [((sum(w[t] * P[t][0] for t in range(len(P))), sum(w[t] * P[t][1] for t in range(len(P)))),
                  sum(w[t] * q[t] for t in range(len(q))) + bj) for w, bj in zip(W, b)]
            pieces.append((poly, Z, []))
        for j in range(len(W)):
            nxt = []
            work += 30 * len(pieces)
            if work > max_work:
                return stop(l, f"needs more than {max_work} exact operations")
            for poly, Z, signs in pieces:
                c, d = Z[j]
                if c[0] == 0 and c[1] == 0:
                    nxt.append((poly, Z, signs + [d > 0]))
                    continue
                pos, neg, seg = _cut(poly, c, d)
                if seg is not None and l > 1:   # layer 1: whole lines, below
                    out.curves.setdefault((l, j), []).append(seg)
                if pos is not None:
                    nxt.append((pos, Z, signs + [True]))
                if neg is not None:
                    nxt.append((neg, Z, signs + [False]))
            pieces = nxt
            if len(pieces) > max_cells:
                return stop(l, f"splits the window into more than {max_cells} regions")
        cells = []
        for poly, Z, signs in pieces:
            for j, s in enumerate(signs):
                if s:
                    out.active.setdefault((l, j), []).append(poly)
            P = [Z[j][0] if s else (zero, zero) for j, s in enumerate(signs)]
            q = [Z[j][1] if s else zero for j, s in enumerate(signs)]
            cells.append((poly, P, q))
        out.layers_drawn = l
    Lf = net.layers[-1]
    for o, (w, bo) in enumerate(zip(Lf.weight, Lf.bias)):
        w = [Fraction(v) for v in w]
        for poly, P, q in cells:
            c = (sum(w[t] * P[t][0] for t in range(len(P))), sum(w[t] * P[t][1] for t in range(len(P))))
            d = sum(w[t] * q[t] for t in range(len(q))) + Fraction(bo)
            seg = _segment(poly, c, d)
            if seg is not None:
                out.outputs.setdefault(o, []).append(seg)
    return out


def changed_neurons(net: Network, other: Network) -> dict:
    """(layer, neuron) → "flipped" (incoming row and bias negated) or "changed", for θ′ against θ."""
    out = {}
    if net.architecture != other.architecture:
        return out
    for l in range(1, net.depth):
        A, B = net.layers[l - 1], other.layers[l - 1]
        nxt_a, nxt_b = net.layers[l], other.layers[l]
        for j in range(A.n_out):
            ra, rb = tuple(A.weight[j]) + (A.bias[j],), tuple(B.weight[j]) + (B.bias[j],)
            oa = tuple(r[j] for r in nxt_a.weight)
            ob = tuple(r[j] for r in nxt_b.weight)
            if ra != rb and any(ra) and rb == tuple(-x for x in ra):
                out[(l, j)] = "flipped"
            elif ra != rb or oa != ob:
                out[(l, j)] = "changed"
    return out


# ---------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------

def _f(x) -> str:
    return f"{float(x):.2f}".rstrip("0").rstrip(".")


def _label_q(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"


def svg_panel(net: Network, arr: Arrangement, *, title: str, ident: str, highlight: dict | None = None,
              size: int = 340, shade: bool | None = None) -> str:
    """One panel: layer-1 lines, bent deeper lines, active regions (shaded), the output's zero set in black."""
    highlight = highlight or {}
    x0, x1, y0, y1 = arr.box
    pad_l, pad_b, pad_t = 34, 26, 22
    W = H = size
    sx = (W - pad_l - 8) / float(x1 - x0)
    sy = (H - pad_b - pad_t) / float(y1 - y0)

    def X(x):
        return pad_l + (float(x) - float(x0)) * sx

    def Y(y):
        return pad_t + (float(y1) - float(y)) * sy

    def pts(poly):
        return " ".join(f"{_f(X(p[0]))},{_f(Y(p[1]))}" for p in poly)

    first = net.layers[0].n_out
    if shade is None:
        shade = first <= 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
             f'role="img" aria-label="{html.escape(title)}" class="arrangement">',
             f'<title>{html.escape(title)}</title>',
             f'<rect x="{pad_l}" y="{pad_t}" width="{_f(W - pad_l - 8)}" height="{_f(H - pad_b - pad_t)}" '
             'fill="#fff" stroke="#999" stroke-width="1"/>']
    # clip to the window
    cid = "clip-" + "".join(ch if ch.isalnum() else "-" for ch in ident)
    parts.append(f'<defs><clipPath id="{cid}"><rect x="{pad_l}" y="{pad_t}" width="{_f(W - pad_l - 8)}" '
                 f'height="{_f(H - pad_b - pad_t)}"/></clipPath></defs><g clip-path="url(#{cid})">')
    if shade:   # where each first-layer neuron is active (the paper's Figure 1)
        for (l, j), polys in sorted(arr.active.items()):
            if l != 1:
                continue
            for poly in polys:
                parts.append(f'<polygon points="{pts(poly)}" fill="{colour(l, j)}" fill-opacity="0.15" '
                             'stroke="none"/>')
    # axes through the origin when visible
    if x0 < 0 < x1:
        parts.append(f'<line x1="{_f(X(0))}" y1="{pad_t}" x2="{_f(X(0))}" y2="{H - pad_b}" stroke="#ccc" '
                     'stroke-width="1"/>')
    if y0 < 0 < y1:
        parts.append(f'<line x1="{pad_l}" y1="{_f(Y(0))}" x2="{W - 8}" y2="{_f(Y(0))}" stroke="#ccc" '
                     'stroke-width="1"/>')
    labels = []
    for (l, j), segs in sorted(arr.curves.items()):
        col = colour(l, j)
        hl = (l, j) in highlight
        width = 3.4 if hl else (2 if l == 1 else 1.8)
        dash = "" if l == 1 else ' stroke-dasharray="6 3"'
        cls = f' class="neuron{" changed" if hl else ""}" data-layer="{l}" data-neuron="{j + 1}"'
        d = " ".join(f"M{_f(X(p[0]))},{_f(Y(p[1]))}L{_f(X(q[0]))},{_f(Y(q[1]))}" for p, q in segs)
        parts.append(f'<path d="{d}" stroke="{col}" stroke-width="{width}" fill="none"{dash}{cls}/>')
        if l == 1 and segs:
            p, q = segs[0]
            mx, my = (X(p[0]) + X(q[0])) / 2, (Y(p[1]) + Y(q[1])) / 2
            w = net.layers[0].weight[j]
            nx, ny = float(w[0]), -float(w[1])          # towards the active side, in screen coordinates
            nrm = math.hypot(nx, ny) or 1.0
            ax, ay = mx + 14 * nx / nrm, my + 14 * ny / nrm
            parts.append(f'<line x1="{_f(mx)}" y1="{_f(my)}" x2="{_f(ax)}" y2="{_f(ay)}" stroke="{col}" '
                         f'stroke-width="1.6" marker-end="url(#{cid}a{j % len(COLOURS)})"/>')
            # label near the end of the segment that is farthest into the window
            ex, ey = X(q[0]), Y(q[1])
            ex = min(max(ex, pad_l + 10), W - 18)
            ey = min(max(ey, pad_t + 12), H - pad_b - 4)
            labels.append(f'<text x="{_f(ex)}" y="{_f(ey)}" font-size="12" font-weight="bold" fill="{col}" '
                          f'text-anchor="middle" paint-order="stroke" stroke="#fff" stroke-width="3">{j + 1}</text>')
        elif segs:   # a deeper neuron: "layer.neuron" at the end of its longest piece
            p, q = max(segs, key=lambda s: abs(s[0][0] - s[1][0]) + abs(s[0][1] - s[1][1]))
            ex = min(max((X(p[0]) + X(q[0])) / 2, pad_l + 12), W - 20)
            ey = min(max((Y(p[1]) + Y(q[1])) / 2 - 4, pad_t + 12), H - pad_b - 4)
            labels.append(f'<text x="{_f(ex)}" y="{_f(ey)}" font-size="11" font-weight="bold" fill="{col}" '
                          f'text-anchor="middle" paint-order="stroke" stroke="#fff" stroke-width="3">'
                          f'{l}.{j + 1}</text>')
    for o, segs in sorted(arr.outputs.items()):
        d = " ".join(f"M{_f(X(p[0]))},{_f(Y(p[1]))}L{_f(X(q[0]))},{_f(Y(q[1]))}" for p, q in segs)
        dash = "" if o == 0 else ' stroke-dasharray="2 2"'
        parts.append(f'<path d="{d}" stroke="#000" stroke-width="2.4" fill="none"{dash} class="output" '
                     f'data-output="{o + 1}"/>')
    parts.append("</g>")
    markers = "".join(f'<marker id="{cid}a{k}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" '
                      f'markerHeight="5" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="{c}"/></marker>'
                      for k, c in enumerate(COLOURS))
    parts.insert(3, f"<defs>{markers}</defs>")
    parts.extend(labels)
    # ticks: the window's corners
    parts.append(f'<text x="{pad_l}" y="{H - pad_b + 14}" font-size="10" fill="#555">{_label_q(x0)}</text>')
    parts.append(f'<text x="{W - 8}" y="{H - pad_b + 14}" font-size="10" fill="#555" '
                 f'text-anchor="end">{_label_q(x1)}</text>')
    parts.append(f'<text x="{pad_l - 4}" y="{H - pad_b}" font-size="10" fill="#555" '
                 f'text-anchor="end">{_label_q(y0)}</text>')
    parts.append(f'<text x="{pad_l - 4}" y="{pad_t + 8}" font-size="10" fill="#555" '
                 f'text-anchor="end">{_label_q(y1)}</text>')
    parts.append(f'<text x="{(W + pad_l) / 2:.0f}" y="{H - 6}" font-size="11" fill="#333" '
                 'text-anchor="middle">x₁</text>')
    parts.append(f'<text x="10" y="{(H - pad_b + pad_t) / 2:.0f}" font-size="11" fill="#333" '
                 'text-anchor="middle">x₂</text>')
    parts.append(f'<text x="{(W + pad_l) / 2:.0f}" y="15" font-size="13" font-weight="bold" fill="#222" '
                 f'text-anchor="middle">{html.escape(title)}</text>')
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------------------
# one input: the graph of the function, exactly piecewise linear
# ---------------------------------------------------------------------------

@dataclass
class Graph:
    """A network with one input on [lo, hi]: the exact breakpoints and values of every output, the kinks of
    every neuron ((layer, neuron) → x values), and for one hidden layer each neuron's term m_i σ(a_i x + b_i)."""

    lo: Fraction
    hi: Fraction
    outputs: list = field(default_factory=list)        # per output: [(x, y), ...] exact, increasing x
    kinks: dict = field(default_factory=dict)
    terms: dict = field(default_factory=dict)          # neuron → [(x, y), ...] (shallow, one output)
    note: str = ""


def _pieces(net: Network, lo: Fraction, hi: Fraction, max_work: int = MAX_WORK):
    """Intervals [(a, b, P, q)] on which h^{L-1}(x) = P x + q, the kinks of every hidden neuron, and a note
    (with the intervals None) when that costs more than ``max_work`` affine evaluations."""
    kinks: dict = {}
    cells = [(lo, hi, [Fraction(1)], [Fraction(0)])]
    work = 0
    for l, L in enumerate(net.layers[:-1], 1):
        work += 2 * len(cells) * L.n_out * L.n_in
        if work > max_work:
            return None, kinks, f"hidden layer {l} needs more than {max_work} exact operations; not drawn"
        W = [[Fraction(v) for v in r] for r in L.weight]
        b = [Fraction(v) for v in L.bias]
        nxt = []
        for a, e, P, q in cells:
            Z = [(sum(w[t] * P[t] for t in range(len(P))), sum(w[t] * q[t] for t in range(len(q))) + bj)
                 for w, bj in zip(W, b)]
            cuts = sorted({-d / c for c, d in Z if c and a < -d / c < e})
            for j, (c, d) in enumerate(Z):
                if c and a < -d / c < e:
                    kinks.setdefault((l, j), []).append(-d / c)
            pts = [a, *cuts, e]
            for u, v in zip(pts, pts[1:]):
                mid = (u + v) / 2
                on = [c * mid + d > 0 for c, d in Z]
                nxt.append((u, v, [c if s else Fraction(0) for (c, _), s in zip(Z, on)],
                            [d if s else Fraction(0) for (_, d), s in zip(Z, on)]))
        cells = nxt
        if len(cells) > MAX_CELLS:
            return None, kinks, f"hidden layer {l} has more than {MAX_CELLS} pieces; not drawn"
    return cells, kinks, ""


def graph(net: Network, box=None) -> Graph:
    """The exact graph of a one-input network on a window around its kinks (or ``box`` = (lo, hi))."""
    if net.input_dim != 1:
        raise ValueError("the graph is drawn for networks with one input")
    if box is None:
        big = Fraction(1000)
        _, kinks, _ = _pieces(net, -big, big, MAX_WORK // 4)
        xs = sorted(x for v in kinks.values() for x in v) or [Fraction(0)]
        c, half = (xs[0] + xs[-1]) / 2, max((xs[-1] - xs[0]) / 2, Fraction(1, 2))
        half = half * Fraction(3, 2) + Fraction(1, 2)
        box = (_nice(c - half, False), _nice(c + half, True))
    lo, hi = box
    cells, kinks, note = _pieces(net, lo, hi)
    g = Graph(lo, hi, kinks={k: sorted(v) for k, v in kinks.items()}, note=note)
    if cells is None:
        return g
    Lf = net.layers[-1]
    for w, bo in zip(Lf.weight, Lf.bias):
        w = [Fraction(v) for v in w]
        pts = []
        for a, e, P, q in cells:
            slope = sum(wt * p for wt, p in zip(w, P))
            icpt = sum(wt * v for wt, v in zip(w, q)) + Fraction(bo)
            if not pts:
                pts.append((a, slope * a + icpt))
            pts.append((e, slope * e + icpt))
        g.outputs.append(pts)
    if net.is_shallow and net.output_dim == 1:
        t = net.shallow()
        for i in range(t.n):
            a, b, m = Fraction(t.A[i][0]), Fraction(t.b[i]), Fraction(t.M[0][i])
            xs = [lo, hi] + ([-b / a] if a and lo < -b / a < hi else [])
            g.terms[i] = [(x, m * max(a * x + b, Fraction(0))) for x in sorted(xs)]
    return g


def svg_graph(net: Network, g: Graph, *, title: str, ident: str, highlight: dict | None = None, size: int = 340,
              y_range=None) -> str:
    """One panel: the output's graph in black, each neuron's term m_i σ(a_i x + b_i) in its colour, the kinks."""
    highlight = highlight or {}
    W, H = size, int(size * 0.8)
    pad_l, pad_b, pad_t, pad_r = 40, 26, 22, 8
    ys = [y for pts in g.outputs for _, y in pts] + [y for pts in g.terms.values() for _, y in pts]
    y0, y1 = y_range or (min(ys), max(ys))
    if y0 == y1:
        y0, y1 = y0 - 1, y1 + 1
    span = y1 - y0
    y0, y1 = y0 - span / 10, y1 + span / 10
    sx = (W - pad_l - pad_r) / float(g.hi - g.lo)
    sy = (H - pad_t - pad_b) / float(y1 - y0)

    def X(x):
        return pad_l + (float(x) - float(g.lo)) * sx

    def Y(y):
        return pad_t + (float(y1) - float(y)) * sy

    def path(pts):
        return "M" + "L".join(f"{_f(X(x))},{_f(Y(y))}" for x, y in pts)

    cid = "clip-" + "".join(ch if ch.isalnum() else "-" for ch in ident)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
             f'aria-label="{html.escape(title)}" class="graph"><title>{html.escape(title)}</title>',
             f'<defs><clipPath id="{cid}"><rect x="{pad_l}" y="{pad_t}" width="{W - pad_l - pad_r}" '
             f'height="{H - pad_t - pad_b}"/></clipPath></defs>',
             f'<rect x="{pad_l}" y="{pad_t}" width="{W - pad_l - pad_r}" height="{H - pad_t - pad_b}" fill="#fff" '
             'stroke="#999"/>', f'<g clip-path="url(#{cid})">']
    if y0 < 0 < y1:
        parts.append(f'<line x1="{pad_l}" y1="{_f(Y(0))}" x2="{W - pad_r}" y2="{_f(Y(0))}" stroke="#ccc"/>')
    if g.lo < 0 < g.hi:
        parts.append(f'<line x1="{_f(X(0))}" y1="{pad_t}" x2="{_f(X(0))}" y2="{H - pad_b}" stroke="#ccc"/>')
    labels = []
    for (l, j), xs in sorted(g.kinks.items()):
        col = colour(l, j)
        for x in xs:
            parts.append(f'<line x1="{_f(X(x))}" y1="{pad_t}" x2="{_f(X(x))}" y2="{H - pad_b}" stroke="{col}" '
                         f'stroke-width="{2.2 if (l, j) in highlight else 1.2}" stroke-dasharray="3 3" '
                         f'class="kink" data-layer="{l}" data-neuron="{j + 1}"/>')
        if xs:
            name = f"{j + 1}" if l == 1 else f"{l}.{j + 1}"
            labels.append(f'<text x="{_f(X(xs[0]))}" y="{pad_t + 12 + 12 * (l - 1)}" font-size="11" '
                          f'font-weight="bold" fill="{col}" text-anchor="middle" paint-order="stroke" stroke="#fff" '
                          f'stroke-width="3">{name}</text>')
    for i, pts in sorted(g.terms.items()):
        hl = (1, i) in highlight
        parts.append(f'<path d="{path(pts)}" stroke="{colour(1, i)}" stroke-width="{2.6 if hl else 1.4}" '
                     f'fill="none" stroke-opacity="0.85" class="term{" changed" if hl else ""}" '
                     f'data-neuron="{i + 1}"/>')
    for o, pts in enumerate(g.outputs):
        dash = "" if o == 0 else ' stroke-dasharray="6 3"'
        parts.append(f'<path d="{path(pts)}" stroke="#000" stroke-width="2.6" fill="none"{dash} class="output" '
                     f'data-output="{o + 1}"/>')
    parts.append("</g>")
    parts.extend(labels)
    parts.append(f'<text x="{pad_l}" y="{H - pad_b + 14}" font-size="10" fill="#555">{_label_q(g.lo)}</text>')
    parts.append(f'<text x="{W - pad_r}" y="{H - pad_b + 14}" font-size="10" fill="#555" '
                 f'text-anchor="end">{_label_q(g.hi)}</text>')
    parts.append(f'<text x="{pad_l - 4}" y="{H - pad_b}" font-size="10" fill="#555" '
                 f'text-anchor="end">{float(y0):.3g}</text>')
    parts.append(f'<text x="{pad_l - 4}" y="{pad_t + 8}" font-size="10" fill="#555" '
                 f'text-anchor="end">{float(y1):.3g}</text>')
    parts.append(f'<text x="{(W + pad_l) / 2:.0f}" y="{H - 6}" font-size="11" fill="#333" '
                 'text-anchor="middle">x</text>')
    parts.append(f'<text x="{(W + pad_l) / 2:.0f}" y="15" font-size="13" font-weight="bold" fill="#222" '
                 f'text-anchor="middle">{html.escape(title)}</text>')
    parts.append("</svg>")
    return "".join(parts)
