"""HTML reports: one page per certificate and the index of an audit.

Every file stands alone: CSS, the filter script and the figures (inline SVG)
are in the page, formulas are MathML, and a Content-Security-Policy forbids
fetching anything, so a report opens the same way offline, from a CI
artifact or from a mail attachment.  The page reads the section model of
:mod:`reluid.report.certificate` (the one the text and Markdown reports
read): the verdict with the checker's own status (re-verified / rejected /
not re-verified), the network (architecture, parameters, weights as tables,
truncated when large), the assumption, the claims as a numbered proof with
the checker's status of each, the witness θ′ side by side with θ (changed
entries highlighted) and, for two inputs, the bent hyperplane arrangement of
θ and θ′ computed exactly (:mod:`reluid.report.arrangement`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from fractions import Fraction

from reluid.model.network import Network
from reluid.report import mathml as mm
from reluid.report.arrangement import arrangement, changed_neurons, colour, graph, svg_graph, svg_panel
from reluid.report.certificate import CertificateView, Para, fmt_decimal, fmt_q
from reluid.report.mathml import Formula
from reluid.verdicts import AuditOutcome, CheckState, ClaimStatus

__all__ = ["generate_page", "generate_index", "IndexEntry", "VERDICT_LABELS", "CHECK_LABELS", "MAX_ROWS",
           "MAX_COLS"]

#: weight tables show at most this many rows and columns per block
MAX_ROWS = 20
MAX_COLS = 12

VERDICT_LABELS = {AuditOutcome.NO_HIDDEN.value: "no hidden symmetries", AuditOutcome.HIDDEN.value: "hidden symmetry",
                  AuditOutcome.UNKNOWN.value: "unknown", AuditOutcome.INVALID_INPUT.value: "invalid input"}
CHECK_LABELS = {CheckState.RE_VERIFIED: "✓ re-verified", CheckState.REJECTED: "✗ rejected",
                CheckState.NOT_REVERIFIED: "not re-verified", CheckState.NO_CERTIFICATE: "—"}
CLAIM_STATUS_CLASS = {ClaimStatus.VERIFIED: "ok", ClaimStatus.INFORMATION: "info", ClaimStatus.NOT_REVERIFIED: "none",
                      ClaimStatus.FAILED: "bad"}

CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'none'")

CSS = """
:root{--fg:#1d2330;--muted:#5d6675;--line:#dde2ea;--bg:#f4f6f9;--card:#fff;--ok:#137333;--okbg:#e6f4ea;
--bad:#b3261e;--badbg:#fce8e6;--warn:#8a5300;--warnbg:#fef3e0;--grey:#5f6368;--greybg:#eef0f3;--accent:#1a56a8}
*{box-sizing:border-box}
html{font-size:15px}
body{margin:0;background:var(--bg);color:var(--fg);line-height:1.5;
font-family:-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","DejaVu Sans",sans-serif}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
header.top{background:#18202e;color:#fff;padding:.7rem 0}
header.top .wrap{display:flex;align-items:center;gap:1rem;justify-content:space-between}
header.top .brand{font-weight:700;letter-spacing:.02em}header.top a{color:#cfe0ff}
.wrap{max-width:1120px;margin:0 auto;padding:0 1.2rem}
main.wrap{padding-top:1.2rem;padding-bottom:2rem}
.q{text-decoration:underline dotted #9aa3b0;text-underline-offset:2px}
math{font-family:"STIX Two Math","Cambria Math","Latin Modern Math","DejaVu Math TeX Gyre",math,serif}
h1{font-size:1.45rem;margin:.2rem 0 .6rem;font-weight:650;word-break:break-all}
h1 .file{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"DejaVu Sans Mono",monospace;font-weight:600}
h2{font-size:1.12rem;margin:0 0 .7rem;font-weight:650}
h3{font-size:1rem;margin:1rem 0 .4rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1rem 1.2rem;margin:0 0 1rem;
box-shadow:0 1px 2px rgba(16,24,40,.04)}
.verdict{display:flex;flex-wrap:wrap;align-items:center;gap:.8rem 1.4rem}
.badge{display:inline-block;border-radius:999px;padding:.12rem .7rem;font-weight:650;font-size:.85rem;
white-space:nowrap;border:1px solid transparent}
.badge.big{font-size:1.15rem;padding:.35rem 1.1rem;letter-spacing:.01em}
.v-no-hidden-symmetries{background:var(--okbg);color:var(--ok);border-color:#a8dab5}
.v-hidden-symmetry{background:var(--badbg);color:var(--bad);border-color:#f4b8b3}
.v-unknown{background:var(--warnbg);color:var(--warn);border-color:#f6d28b}
.v-invalid-input{background:var(--greybg);color:var(--grey);border-color:#d0d4da}
.c-re-verified{background:#fff;color:var(--ok);border-color:var(--ok)}
.c-rejected{background:#fff;color:var(--bad);border-color:var(--bad)}
.c-not-re-verified,.c-{background:#fff;color:var(--grey);border-color:#b9bec6}
.rule{color:var(--muted);margin:.5rem 0 0;flex-basis:100%}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1.2rem;margin:.2rem 0 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
code,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:.88em}
.hash{word-break:break-all}
.assumption{border-left:4px solid #e0a100;background:#fffaf0;padding:.5rem .8rem;border-radius:0 6px 6px 0}
.reason ul{margin:.3rem 0 0;padding-left:1.2rem}
ol.proof{list-style:none;counter-reset:claim;padding:0;margin:0}
ol.proof>li{counter-increment:claim;border-top:1px solid var(--line);padding:.75rem 0 .75rem 3rem;position:relative}
ol.proof>li:first-child{border-top:none}
ol.proof>li::before{content:counter(claim);position:absolute;left:0;top:.75rem;width:2rem;height:2rem;
border-radius:50%;background:#e8eefb;color:var(--accent);font-weight:700;display:flex;align-items:center;
justify-content:center}
.claim-head{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-bottom:.2rem}
.claim-head .kind{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.82rem;color:var(--muted)}
.s-ok{background:var(--okbg);color:var(--ok)}.s-info{background:#e8f0fe;color:#1a4fa0}
.s-none{background:var(--greybg);color:var(--grey)}.s-bad{background:var(--badbg);color:var(--bad)}
.statement{margin:.15rem 0}.evidence{margin:.35rem 0;color:#2b3240}
.ref{color:var(--muted);font-size:.86rem;margin:.2rem 0 0;font-style:italic}
.checker{color:var(--muted);font-size:.86rem;margin:.15rem 0 0}
math[display=block]{margin:.5rem 0;overflow-x:auto;overflow-y:hidden;padding:.1rem 0}
.tables{display:flex;flex-wrap:wrap;gap:1rem 1.6rem;align-items:flex-start}
.tables.pair{margin-top:.6rem;padding-top:.6rem;border-top:1px dashed var(--line)}
.tblock{overflow-x:auto;max-width:100%}
.tblock .cap{font-weight:600;margin:.2rem 0 .3rem}
table.w{border-collapse:collapse;font-size:.84rem;font-variant-numeric:tabular-nums}
table.w th,table.w td{border:1px solid var(--line);padding:.18rem .5rem;text-align:right;white-space:nowrap}
table.w thead th{background:#f1f4f8;font-weight:600;text-align:center}
table.w tbody th{background:#f8f9fb;color:var(--muted);font-weight:600}
table.w td.chg{background:#fff1c2;outline:2px solid #e0a100;outline-offset:-2px;font-weight:700}
table.w tr.chg th{color:#8a5300;background:#fff1c2}
.note{color:var(--muted);font-size:.86rem;margin:.4rem 0 0}
figure{margin:0}figure .panels{display:flex;flex-wrap:wrap;gap:1rem}
figcaption{color:var(--muted);font-size:.88rem;margin-top:.5rem}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1.1rem;font-size:.85rem;margin-top:.4rem}
.legend .sw{display:inline-block;width:1.6rem;height:0;border-top:3px solid;vertical-align:middle;margin-right:.35rem}
.legend .sw.dash{border-top-style:dashed}
.conclusion{border-left:4px solid var(--accent);padding:.4rem .9rem;background:#f3f7ff;border-radius:0 6px 6px 0}
.conclusion::after{content:"∎";float:right;color:var(--muted)}
footer{color:var(--muted);font-size:.85rem;margin-top:1.4rem}
.filters{display:flex;flex-wrap:wrap;gap:.6rem 2rem;align-items:center;margin:.2rem 0 .8rem}
.filters fieldset{border:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
.filters legend{float:left;color:var(--muted);margin-right:.4rem;font-size:.88rem}
.filters label{cursor:pointer;user-select:none}
.filters input{position:absolute;opacity:0;pointer-events:none}
.filters input+span{opacity:.45;filter:grayscale(.6)}
.filters input:checked+span{opacity:1;filter:none}
.filters input:focus-visible+span{outline:2px solid var(--accent);outline-offset:2px}
.counts{display:flex;flex-wrap:wrap;gap:.5rem;margin:.3rem 0 .2rem}
table.audit{width:100%;border-collapse:collapse;font-size:.9rem}
table.audit th,table.audit td{border-bottom:1px solid var(--line);padding:.45rem .4rem;text-align:left;
vertical-align:top}
table.audit thead th{background:#f1f4f8;font-weight:600;position:sticky;top:0}
table.audit td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.audit tr[hidden]{display:none}
table.audit .msg{color:#39414f;min-width:14rem}
table.audit td.mono{white-space:nowrap}
.a-flag{background:#fffaf0;color:#8a5300;border-color:#e0a100;font-size:.72rem;padding:0 .45rem;
font-family:-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
.reason{margin-top:.7rem}
.shown{color:var(--muted);font-size:.88rem}
@media print{body{background:#fff}.card{box-shadow:none;break-inside:avoid}header.top{display:none}}
"""

INDEX_JS = """
(function(){
  var root=document.documentElement;
  window.addEventListener('error',function(e){root.setAttribute('data-js-error',String(e.message||e));});
  var boxes=[].slice.call(document.querySelectorAll('.filters input[type=checkbox]'));
  var rows=[].slice.call(document.querySelectorAll('table.audit tbody tr'));
  var shown=document.getElementById('shown');
  function wanted(group){
    var s={};boxes.forEach(function(b){if(b.name===group&&b.checked){s[b.value]=true;}});return s;
  }
  function apply(){
    var v=wanted('verdict'),c=wanted('check'),n=0;
    rows.forEach(function(r){
      var ok=v[r.getAttribute('data-verdict')]&&c[r.getAttribute('data-check')];
      r.hidden=!ok;if(ok){n++;}
    });
    shown.textContent=n+' of '+rows.length+' shown';
  }
  function fromHash(){
    var h=(location.hash||'').replace(/^#/,'');if(!h){return;}
    h.split('&').forEach(function(kv){
      var p=kv.split('=');if(p.length!==2){return;}
      var vals=decodeURIComponent(p[1]).split(',');
      boxes.forEach(function(b){if(b.name===p[0]){b.checked=vals.indexOf(b.value)>=0;}});
    });
  }
  boxes.forEach(function(b){b.addEventListener('change',apply);});
  window.addEventListener('hashchange',function(){fromHash();apply();});
  fromHash();apply();
  root.setAttribute('data-ready','1');
})();
"""


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def _para(p: Para | str) -> str:
    """A paragraph as HTML: formulas as MathML (also those inside its strings), the rest escaped."""
    parts = p.parts if isinstance(p, Para) else tuple(mm.split_formulas(str(p)))
    out = []
    display = False
    for x in parts:
        if isinstance(x, Formula):
            out.append(x.mathml)
            display = 'display="block"' in x.mathml
            continue
        for y in mm.split_formulas(str(x)):
            if isinstance(y, Formula):
                out.append(y.mathml)
                display = 'display="block"' in y.mathml
            elif not (display and y.strip() in (".", ",", ";")):   # no stray full stop under a display
                out.append(_e(y))
                display = False
    return "".join(out)


def _doc(title: str, body: str, script: str = "") -> str:
    js = f"<script>{script}</script>" if script else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"generator\" content=\"reluid\">\n"
            f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n{js}\n</body>\n</html>\n")


def _badge(verdict: str, big: bool = False) -> str:
    return (f'<span class="badge{" big" if big else ""} v-{_e(verdict)}" data-verdict="{_e(verdict)}">'
            f'{_e(VERDICT_LABELS.get(verdict, verdict))}</span>')


def _check_badge(state: str, big: bool = False) -> str:
    cls = state.replace(" ", "-")
    return (f'<span class="badge{" big" if big else ""} c-{_e(cls)}" data-check="{_e(state)}" '
            f'title="the independent checker\'s own status">{_e(CHECK_LABELS.get(state, state))}</span>')


# ---------------------------------------------------------------------------
# weight tables
# ---------------------------------------------------------------------------

def _num(x) -> str:
    """A table cell's number: a decimal first, the exact value (and the float it equals) on hover."""
    text, title = fmt_decimal(x)
    if title is None:
        return _e(text)
    return f'<span class="q" title="{_e(title)}">{_e(text)}</span>'


def _table(caption: str, groups, rows, row_labels, other=None, row_head: str = "") -> str:
    """A weight table: ``groups`` are (header, width) column blocks; ``rows`` the numbers; cells that
    differ from ``other`` (same shape) are highlighted."""
    n_rows = len(rows)
    show_r = min(n_rows, MAX_ROWS)
    cols = []        # (group index, column index within group, absolute column)
    start = 0
    trunc_cols = []
    for g, (head, width) in enumerate(groups):
        keep = min(width, MAX_COLS)
        cols += [(g, c, start + c) for c in range(keep)]
        if keep < width:
            trunc_cols.append(f"{keep} of {width} columns of {_para(head)}")
        start += width
    head1 = "".join(f'<th colspan="{sum(1 for c in cols if c[0] == g)}">{_para(h)}</th>'
                    for g, (h, _) in enumerate(groups))
    body = []
    for r in range(show_r):
        cells = []
        changed_row = False
        for g, c, a in cols:
            x = rows[r][a]
            chg = other is not None and Fraction(other[r][a]) != Fraction(x)
            changed_row |= chg
            cells.append(f'<td class="chg" title="changed from θ">{_num(x)}</td>' if chg else f"<td>{_num(x)}</td>")
        if other is not None and not changed_row:
            changed_row = any(Fraction(other[r][a]) != Fraction(rows[r][a]) for a in range(len(rows[r])))
        tr = '<tr class="chg">' if changed_row else "<tr>"
        body.append(f'{tr}<th>{_e(row_labels[r])}</th>{"".join(cells)}</tr>')
    notes = []
    if show_r < n_rows:
        notes.append(f"{show_r} of {n_rows} rows")
    notes += trunc_cols
    note = (f'<p class="note">Showing {", ".join(notes)}; the certificate holds every entry.</p>' if notes else "")
    return (f'<div class="tblock"><div class="cap">{caption}</div><table class="w"><thead><tr><th>{_e(row_head)}</th>'
            f'{head1}</tr></thead><tbody>{"".join(body)}</tbody></table>{note}</div>')


def _shallow_rows(net: Network):
    t = net.shallow()
    rows = [list(t.out(i)) + list(t.A[i]) + [t.b[i]] for i in range(t.n)]
    return t, rows


def _network_tables(net: Network, other: Network | None = None, label: str = "θ") -> str:
    """θ's parameters as tables; with ``other``, cells differing from it are highlighted."""
    return "".join(_layer_tables(net, other, label))


def _side_by_side(net: Network, wit: Network) -> str:
    """θ and θ′ layer by layer, next to each other; θ′'s changed entries highlighted."""
    a, b = _layer_tables(net, None, "θ"), _layer_tables(wit, net, "θ′")
    if len(a) != len(b):
        return f'<div class="tables">{"".join(a)}</div><div class="tables">{"".join(b)}</div>'
    return "".join(f'<div class="tables pair">{x}{y}</div>' for x, y in zip(a, b))


def _layer_tables(net: Network, other: Network | None = None, label: str = "θ") -> list[str]:
    same_shape = other is not None and other.architecture == net.architecture
    if net.is_shallow:
        t, rows = _shallow_rows(net)
        orows = _shallow_rows(other)[1] if same_shape else None
        groups = [(mm.Formula("m_i", mm.math(mm.sub(mm.mi("m"), mm.mi("i")))), t.k),
                  (mm.Formula("a_i", mm.math(mm.sub(mm.mi("a"), mm.mi("i")))), t.m),
                  (mm.Formula("b_i", mm.math(mm.sub(mm.mi("b"), mm.mi("i")))), 1)]
        tbl = _table(_para(Para.of(f"{label}: neurons i = 1, …, {t.n}")), [(Para.of(g), w) for g, w in groups], rows,
                     [str(i + 1) for i in range(t.n)], orows, "i")
        oc = other.shallow().c if same_shape else None
        c_cells = "".join((f'<td class="chg">{_num(x)}</td>' if oc is not None and Fraction(oc[j]) != Fraction(x)
                           else f"<td>{_num(x)}</td>") for j, x in enumerate(t.c[:MAX_COLS]))
        c_head = _para(Para.of(mm.Formula("c", mm.math(mm.mi("c")))))
        c_tbl = (f'<table class="w" style="margin-top:.4rem"><tbody><tr><th>{c_head}</th>'
                 f'{c_cells}</tr></tbody></table>')
        return [tbl.replace("</table>", "</table>" + c_tbl, 1)]
    out = []
    for l, L in enumerate(net.layers, 1):
        rows = [list(r) + [bj] for r, bj in zip(L.weight, L.bias)]
        orows = None
        if same_shape:
            OL = other.layers[l - 1]
            orows = [list(r) + [bj] for r, bj in zip(OL.weight, OL.bias)]
        groups = [(Para.of(Formula(f"W^{l}", mm.math(mm.sup(mm.mi("W"), mm.mn(l))))), L.n_in),
                  (Para.of(Formula(f"b^{l}", mm.math(mm.sup(mm.mi("b"), mm.mn(l))))), 1)]
        what = "output layer" if l == net.depth else f"hidden layer {l}"
        out.append(_table(f"{_e(label)}: layer map {l} ({what})", groups, rows,
                          [str(j + 1) for j in range(L.n_out)], orows, "j"))
    return out


# ---------------------------------------------------------------------------
# the figure
# ---------------------------------------------------------------------------

def _graph_figure(view: CertificateView) -> str:
    """One input: the exact graph of ρ(θ), each neuron's kink (and term, for one hidden layer), θ next to θ′."""
    net = view.network
    wit = view.witness.network if view.witness is not None else None
    g = graph(net)
    if not g.outputs:
        return (f'<section class="card" id="figure"><h2>The function</h2><p class="note">Not drawn: '
                f'{_e(g.note)}.</p></section>')
    hl = changed_neurons(net, wit) if wit is not None else {}
    gw = graph(wit, (g.lo, g.hi)) if wit is not None and wit.input_dim == 1 and wit.depth >= 2 else None
    gw = gw if gw is not None and gw.outputs else None
    ys = [y for gr in (g, gw) if gr is not None for pts in (*gr.outputs, *gr.terms.values()) for _, y in pts]
    rng = (min(ys), max(ys))
    panels = [svg_graph(net, g, title="θ", ident="graph-theta", highlight=hl, y_range=rng)]
    if gw is not None:
        panels.append(svg_graph(wit, gw, title="θ′ (the witness)", ident="graph-theta-prime", highlight=hl,
                                y_range=rng))

    def mark(l, j):
        return f" ({hl[(l, j)]} by θ′)" if (l, j) in hl else ""
    n1 = net.layers[0].n_out
    legend = [f'<span><span class="sw" style="border-color:{colour(1, j)}"></span>neuron {j + 1}{mark(1, j)}</span>'
              for j in range(min(n1, 12))]
    for (l, j) in sorted(k for k in g.kinks if k[0] > 1)[:12]:
        legend.append(f'<span><span class="sw dash" style="border-color:{colour(l, j)}"></span>kinks of hidden layer '
                      f'{l}, neuron {j + 1}{mark(l, j)}</span>')
    fx = Formula("ρ(θ)(x)", mm.math(mm.row(mm.mi("ρ"), mm.fenced(mm.mi("θ")), mm.fenced(mm.mi("x")))))
    legend.append(f'<span><span class="sw" style="border-color:#000"></span>{_para(Para.of(fx))}'
                  f'{" (output 1; output 2, … dashed)" if len(g.outputs) > 1 else ""}</span>')
    what = "The graph of the network's function, exact between its breakpoints; dashed lines mark each neuron's kinks"
    if g.terms:
        what += ", and each neuron's term m_i σ(a_i x + b_i) is drawn in its colour (their sum plus c is the graph)"
    what += "."
    if gw is not None:
        what += (" θ and θ′ have the same graph with different terms" if g.terms else
                 " θ and θ′ have the same graph") + "; the neurons θ′ changes are drawn thick."
    return (f'<section class="card" id="figure"><h2>The function</h2><figure><div class="panels">'
            f'{"".join(panels)}</div><div class="legend">{"".join(legend)}</div>'
            f'<figcaption>The window [{fmt_q(g.lo)}, {fmt_q(g.hi)}] around the kinks. {_para(what)}</figcaption>'
            '</figure></section>')


def _figure(view: CertificateView) -> str:
    net = view.network
    if net is not None and net.input_dim == 1 and net.depth >= 2:
        return _graph_figure(view)
    if net is None or net.input_dim != 2 or net.depth < 2:
        return ""
    wit = view.witness.network if view.witness is not None else None
    arr = arrangement(net)
    hl = changed_neurons(net, wit) if wit is not None else {}
    panels = [svg_panel(net, arr, title="θ", ident="theta", highlight=hl)]
    if wit is not None and wit.input_dim == 2 and wit.depth >= 2:
        panels.append(svg_panel(wit, arrangement(wit, arr.box), title="θ′ (the witness)", ident="theta-prime",
                                highlight=hl))
    x0, x1, y0, y1 = arr.box
    n1 = net.layers[0].n_out

    def mark(l, j):
        return f" ({hl[(l, j)]} by θ′)" if (l, j) in hl else ""
    legend = [f'<span><span class="sw" style="border-color:{colour(1, j)}"></span>neuron {j + 1}{mark(1, j)}</span>'
              for j in range(min(n1, 12))]
    deeper = sorted(k for k in arr.curves if k[0] > 1)
    for (l, j) in deeper[:12]:
        legend.append(f'<span><span class="sw dash" style="border-color:{colour(l, j)}"></span>hidden layer {l}, '
                      f'neuron {j + 1}{mark(l, j)}</span>')
    zero = Formula("ρ(θ)(x) = 0", mm.math(mm.row(mm.mi("ρ"), mm.fenced(mm.mi("θ")), mm.fenced(mm.mi("x")),
                                                  mm.mo("="), mm.mn(0))))
    legend.append(f'<span><span class="sw" style="border-color:#000"></span>{_para(Para.of(zero))}</span>')
    what = ("Each first-layer neuron i draws its line a_i·x + b_i = 0; the arrow points to the side where it is "
            "active, shaded in its colour")
    if net.depth > 2:
        what += ("; a deeper neuron's zero set (dashed, labelled layer.neuron) bends where the layers before it "
                 "change activation, computed exactly region by region")
    what += "; the zero set of the output is black."
    if hl:
        what += " The neurons θ′ changes are drawn thick."
    if arr.note:
        what += f" {arr.note}."
    return (f'<section class="card" id="figure"><h2>The bent hyperplane arrangement</h2><figure><div class="panels">'
            f'{"".join(panels)}</div><div class="legend">{"".join(legend)}</div>'
            f'<figcaption>The window [{fmt_q(x0)}, {fmt_q(x1)}] × [{fmt_q(y0)}, {fmt_q(y1)}] around the kinks, '
            f'as in Figure 1 of Ramakrishnan 2026. {_para(what)}</figcaption></figure></section>')


# ---------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------

def _function_formula(net: Network) -> Formula | None:
    if net.depth < 2:
        return None
    if net.is_shallow:
        return mm.shallow_function(net.shallow())
    return mm.deep_function(net.depth)


def generate_page(view: CertificateView, *, index_href: str | None = None) -> str:
    """The HTML page of one certificate's section model."""
    v = view
    verdict = v.verdict.value
    nav = f'<a href="{_e(index_href)}">← audit index</a>' if index_href else ""
    top = (f'<header class="top"><div class="wrap"><span class="brand">reluid</span><span>{nav}</span></div>'
           "</header>")
    facts = [("Input", f'<span class="mono">{_e(v.source)}</span>'),
             ("Architecture", _e(" → ".join(map(str, v.architecture))) + (
                 f" ({len(v.architecture) - 2} hidden layer{'s' if len(v.architecture) != 3 else ''})"
                 if len(v.architecture) > 2 else " (no hidden layer)"))]
    if v.n_params is not None:
        facts.append(("Parameters", f"{v.n_params:,}".replace(",", " ")))
    facts.append(("Network SHA-256", f'<span class="mono hash">{_e(v.sha256)}</span>'))
    if v.links:
        facts.append(("Files", " · ".join(f'<a href="{_e(h)}">{_e(label)}</a>' for label, h in v.links)))
    head = [f'<section class="card" id="verdict"><h1>reluid certificate: <span class="file">{_e(v.source)}</span></h1>',
            '<div class="verdict">', f'<span>Verdict</span>{_badge(verdict, True)}',
            f'<span>Checker</span>{_check_badge(v.check, True)}',
            f'<p class="rule"><strong>{"Rule" if v.check == CheckState.RE_VERIFIED else "Checker"}:</strong> '
            f'{_para(v.check_detail)}</p></div>',
            '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{val}</dd>" for k, val in facts) + "</dl>"]
    if v.assumption:
        head.append(f'<p class="assumption"><strong>Assumption</strong> (not checkable; the verdict is about the '
                    f'network read under it): {_e(v.assumption)}</p>')
    if v.reason:
        items = "".join(f"<li>{_para(s)}.</li>" for s in v.reason)
        head.append(f'<div class="reason"><strong>Reason</strong><ul>{items}</ul></div>')
    head.append("</section>")
    body = [top, '<main class="wrap">', "".join(head)]
    if v.network is not None:
        f = _function_formula(v.network)
        sec = ['<section class="card" id="network"><h2>The network</h2>']
        if f is not None:
            sec.append(f'<div class="function">{f.mathml}</div>')
        if v.network.is_shallow:
            t = v.network.shallow()
            s = "s" if t.m != 1 else ""
            sec.append("<p>" + _para(f"θ = (M, A, b, c) ∈ Ω({t.m}, {t.n}, {t.k}): {t.m} input{s}, "
                                     f"{t.n} hidden neuron{'s' if t.n != 1 else ''}, {t.k} "
                                     f"output{'s' if t.k != 1 else ''}; m_i is the i-th column of M, a_i the i-th "
                                     "row of A.") + "</p>")
        sec.append('<p class="note">Numbers are shown as decimals: a float32 or float64 weight as the shortest '
                   'decimal that reads back as that float, any other rational rounded (≈). Every number is exact '
                   'in the certificate; hover one for its exact rational value.</p>')
        sec.append(f'<div class="tables">{_network_tables(v.network)}</div></section>')
        body.append("".join(sec))
    body.append(_figure(v))
    if v.claims:
        items = []
        for c in v.claims:
            cls = CLAIM_STATUS_CLASS.get(c.status, "none")
            ev = "".join(f'<p class="evidence">{_para(p)}</p>' for p in c.evidence)
            msg = f'<p class="checker">Checker: {_para(c.message)}</p>' if c.message else ""
            items.append(f'<li id="claim-{c.number}" data-status="{_e(c.status)}"><div class="claim-head">'
                         f'<strong>Claim {c.number}</strong><span class="badge s-{cls}">{_e(c.status)}</span>'
                         f'<span class="kind">{_e(c.kind)}</span></div>'
                         f'<p class="statement">{_para(c.statement)}.</p>{ev}{msg}'
                         f'<p class="ref">{_e(c.reference)}</p></li>')
        body.append('<section class="card" id="claims"><h2>Proof</h2><ol class="proof">' + "".join(items)
                    + "</ol></section>")
    if v.properties:
        body.append('<section class="card" id="properties"><h2>Properties</h2>'
                    '<p class="note">Weaker properties, each under its own name; none of them is a verdict.</p>'
                    + "".join(f"<p>{_para(t)}</p>" for t in v.properties) + "</section>")
    if v.witness is not None and v.network is not None:
        w = v.witness
        det = "".join(f"<dt>{_e(k)}</dt><dd>{_para(p)}</dd>" for k, p in w.details)
        body.append('<section class="card" id="witness"><h2>The witness θ′</h2>'
                    f'<dl class="facts"><dt>mechanism</dt><dd><code>{_e(w.mechanism)}</code></dd>{det}</dl>'
                    '<p class="note">θ on the left, θ′ on the right; the entries θ′ changes are highlighted.</p>'
                    f'{_side_by_side(v.network, w.network)}</section>')
    body.append(f'<section class="card" id="conclusion"><h2>Conclusion</h2><p class="conclusion">'
                f'{_para(v.conclusion)}</p></section>')
    body.append('<footer>Generated by reluid. Every number is exact; the claims\' statuses are the independent '
                "checker's (<code>reluid check</code>), never the certificate's word.</footer></main>")
    return _doc(v.title, "\n".join(b for b in body if b))


# ---------------------------------------------------------------------------
# the audit index
# ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One row of the audit index."""

    path: str
    outcome: AuditOutcome             # a verdict, or invalid input
    check: CheckState                 # NO_CERTIFICATE for invalid input
    message: str
    architecture: tuple = ()
    n_params: int | None = None
    page: str | None = None           # relative links
    certificate: str | None = None
    assumption: str | None = None


def _folder(prefix: str) -> str:
    return f' <span class="shown">(in <span class="mono">{_e(prefix)}</span>)</span>' if prefix else ""


def _common_folder(paths) -> str:
    """The folder prefix (ending in '/') shared by every path, or ''."""
    if len(paths) < 2:
        return ""
    parts = [p.replace("\\", "/").split("/")[:-1] for p in paths]
    common = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common) + "/" if common else ""


def generate_index(entries, title: str, *, report_links=(), policy=None) -> str:
    """The audit's index: a verdict badge per network, filters by verdict and checker status, links.

    The headline counts every outcome and, with ``policy`` (a
    :class:`~reluid.report.junit.FailPolicy`), says whether the job fails.
    """
    from reluid.report.junit import headline, verdict_line
    order = [o.value for o in AuditOutcome]
    counts = {k: sum(e.outcome == k for e in entries) for k in order}
    checks = list(CheckState)
    ccounts = {k: sum(e.check == k for e in entries) for k in checks}
    vbox = "".join(f'<label><input type="checkbox" name="verdict" value="{k}" checked>{_badge(k)} '
                   f'<span class="mono">{counts[k]}</span></label>' for k in order)
    cbox = "".join(f'<label><input type="checkbox" name="check" value="{k}" checked>{_check_badge(k)} '
                   f'<span class="mono">{ccounts[k]}</span></label>' for k in checks if k or ccounts[k])
    rows = []
    prefix = _common_folder([e.path for e in entries])
    for n, e in enumerate(entries, 1):
        shown = e.path[len(prefix):] if prefix else e.path
        name = (f'<a href="{_e(e.page)}" title="{_e(e.path)}">{_e(shown)}</a>' if e.page
                else f'<span title="{_e(e.path)}">{_e(shown)}</span>')
        flag = (f' <span class="badge a-flag" title="{_e(e.assumption)}">assumption</span>' if e.assumption
                else "")

        cert = f'<a href="{_e(e.certificate)}">JSON</a>' if e.certificate else "—"
        params = f"{e.n_params:,}".replace(",", " ") if e.n_params is not None else ""
        rows.append(f'<tr data-verdict="{_e(e.outcome)}" data-check="{_e(e.check)}"><td class="num">{n}</td>'
                    f'<td class="mono">{name}</td><td class="num">{_e("-".join(map(str, e.architecture)))}</td>'
                    f'<td class="num">{params}</td><td>{_badge(e.outcome)}</td><td>{_check_badge(e.check)}</td>'
                    f'<td class="msg">{_e(e.message)}{flag}</td><td>{cert}</td></tr>')
    links = (" · ".join(f'<a href="{_e(h)}">{_e(label)}</a>' for label, h in report_links))
    outcomes = [e.outcome for e in entries]
    verdict = f" Policy: {verdict_line(outcomes, policy)}." if policy is not None else ""
    body = ('<header class="top"><div class="wrap"><span class="brand">reluid</span><span>audit</span></div>'
            '</header><main class="wrap">'
            f'<section class="card"><h1>reluid audit: <span class="file">{_e(title)}</span></h1>'
            f'<p class="headline">{_e(headline(outcomes))}.{_e(verdict)}</p>'
            '<p>Every verdict was re-verified by the independent checker (<code>reluid check</code>) before it was '
            'counted; a certificate that failed its own check counts as unknown, and a file that could not be read '
            'as the function it states is invalid input (no certificate).</p>'
            + (f'<p>Files: {links}</p>' if links else "") +
            '<form class="filters" onsubmit="return false">'
            f'<fieldset><legend>Verdict</legend>{vbox}</fieldset>'
            f'<fieldset><legend>Checker</legend>{cbox}</fieldset>'
            '<span class="shown" id="shown"></span></form>'
            f'<div class="tblock"><table class="audit"><thead><tr><th>#</th><th>network{_folder(prefix)}</th>'
            '<th>architecture</th>'
            '<th>params</th><th>verdict</th><th>checker</th><th>details</th><th>certificate</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div></section>'
            '<footer>Generated by reluid. The pages and certificates are linked relatively; nothing is fetched '
            'from the network.</footer></main>')
    return _doc(f"reluid audit: {title}", body, INDEX_JS)

