"""No Python repr ever reaches a page people read.

Every page type is rendered for real-sized float32 models whose weight tables
are truncated (a 64-512-10 net with no hidden symmetry, the same net with a
dead neuron, a hidden symmetry whose witness is shown next to θ, and a deep
net whose verdict is unknown), together with the audit index, the Markdown
and text reports, the Markdown summary and the JUnit report; each output is
searched for the marks of a repr.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from reluid.api import check, load, read_certificate
from reluid.cli.main import main
from reluid.report.certificate import certificate_view, fmt_decimal, generate_markdown, generate_text
from reluid.report.html import generate_page

REPR = re.compile(r"Para\(|Formula\(|Fraction\(|ClaimView\(|WitnessView\(|CertificateView\(|Network\(|Layer\("
                  r"|Certificate\(|Claim\(|Verdict\.|AuditOutcome\.|ClaimKind\.|MappingProxyType|<object|object at 0x"
                  r"|dataclass|parts=\(|mathml=|\bNone\b|\['[^'\]]*',")


def _mlp(dims, seed):
    rng = np.random.default_rng(seed)
    out = {}
    for l, (a, b) in enumerate(zip(dims, dims[1:]), 1):
        out[f"W{l}"] = (rng.standard_normal((b, a)) / np.sqrt(a)).astype(np.float32)
        out[f"b{l}"] = (0.1 * rng.standard_normal(b)).astype(np.float32)
    return out


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    d = tmp_path_factory.mktemp("real")
    nets = d / "nets"
    nets.mkdir()
    np.savez(nets / "wide_64_512_10.npz", **_mlp([64, 512, 10], 0))
    dead = _mlp([32, 40, 3], 2)
    dead["W2"][:, 7] = 0                      # neuron 8 has no outgoing weight: a hidden symmetry
    np.savez(nets / "dead_32_40_3.npz", **dead)
    np.savez(nets / "deep_6_24_24_3.npz", **_mlp([6, 24, 24, 3], 1))
    (nets / "broken.json").write_text("{")
    code = main(["audit", str(nets), "--html", str(d / "html"), "--reports", str(d / "md"), "--markdown",
                 str(d / "summary.md"), "--junit", str(d / "junit.xml"), "--certificates", str(d / "certs")])
    assert code == 4        # the broken file; the others are certified
    return d


def _clean(name, text):
    m = REPR.search(text)
    assert m is None, f"{name}: a repr reached the page: …{text[max(0, m.start() - 120):m.end() + 80]}…"


def test_no_page_shows_a_repr(audit):
    files = sorted((audit / "html").glob("*.html")) + sorted((audit / "md").glob("*.md")) + [
        audit / "summary.md", audit / "junit.xml"]
    assert len(files) == 4 + 3 + 2           # three pages and the index, three reports, summary, JUnit
    for f in files:
        _clean(f.name, f.read_text(encoding="utf-8"))
    for stem in ("wide_64_512_10_npz", "dead_32_40_3_npz", "deep_6_24_24_3_npz"):
        net = load(str(audit / "nets" / stem.replace("_npz", ".npz")))
        cert = read_certificate(audit / "certs" / f"{stem}.cert.json")
        view = certificate_view(cert, net, stem, check(cert, net))
        for name, text in (("text", generate_text(view)), ("markdown", generate_markdown(view)),
                           ("page", generate_page(view, index_href="index.html"))):
            _clean(f"{stem} {name}", text)


def test_the_tables_are_truncated_and_say_so_in_words(audit):
    page = (audit / "html" / "wide_64_512_10_npz.html").read_text(encoding="utf-8")
    note = re.search(r'<p class="note">Showing (.*?); the certificate holds every entry\.</p>', page).group(1)
    assert note.startswith("20 of 512 rows, 12 of 64 columns of <math") and "<mi>a</mi>" in note
    dead = (audit / "html" / "dead_32_40_3_npz.html").read_text(encoding="utf-8")
    assert 'id="witness"' in dead and "Showing 20 of 40 rows" in dead
    deep = (audit / "html" / "deep_6_24_24_3_npz.html").read_text(encoding="utf-8")
    assert "Showing 20 of 24 rows" in deep


def test_numbers_are_decimals_first_with_the_exact_float32_on_hover(audit):
    page = (audit / "html" / "wide_64_512_10_npz.html").read_text(encoding="utf-8")
    cells = re.findall(r'<span class="q" title="exact value (-?\d+/\d+) = the float32 ([-\d.e]+)">([^<]*)</span>',
                       page)
    assert len(cells) > 400                                   # 20 rows × 13 columns of layer 1, 10 × 21 of layer 2
    for exact, f32, shown in cells:
        p, q = map(int, exact.split("/"))
        assert shown == f32 and Fraction(float(np.float32(shown))) == Fraction(p, q)   # it reads back as that float
        assert len(shown.replace("-", "").replace(".", "").lstrip("0")) <= 9        # the shortest such decimal
    assert not re.search(r"<td>-?\d+/\d+</td>", page)          # no bare fraction in a cell


def test_the_index_shows_the_useful_fact_of_an_unknown(audit):
    index = (audit / "html" / "index.html").read_text(encoding="utf-8")
    row = re.search(r'<tr data-verdict="unknown".*?</tr>', index).group(0)
    assert "no mechanism found" not in row and re.search(r"rank gap|dim_fun = U|locally identifiable", row)
    assert "4 networks: 1 with no hidden symmetries, 1 with a hidden symmetry, 1 unknown, 1 invalid input" in index


@pytest.mark.parametrize("x,text,exact", [(0.5, "0.5", None), ("1/3", "≈0.333333", "1/3"), (-12, "-12", None),
                                          ("16777217/2", "8388608.5", None),
                                          ("16777217/3", "≈5.59241e+06", "16777217/3")])
def test_fmt_decimal(x, text, exact):
    got, title = fmt_decimal(Fraction(x))
    assert got == text and (title is None if exact is None else exact in title)


def test_the_committed_example_reports_show_no_repr():
    """reports/examples (kept current by test_reports.py): the bundled networks' pages, reports and summary."""
    from tests.paths import REPORTS

    files = [p for p in (REPORTS / "examples").rglob("*") if p.suffix in (".html", ".md")]
    assert len(files) > 30
    for f in files:
        _clean(f.name, f.read_text(encoding="utf-8"))


def test_notebook_reprs_are_short(audit):
    """A notebook shows repr and _repr_html_: a line and a small table, not the megabytes of weights."""
    net = load(str(audit / "nets" / "wide_64_512_10.npz"))
    cert = read_certificate(audit / "certs" / "wide_64_512_10_npz.cert.json")
    assert repr(net).startswith("<Network 64-512-10, 38410 parameters") and len(repr(net)) < 120
    assert repr(net.layers[0]) == "<Layer 64 -> 512>" and repr(net.shallow()) == "<Shallow θ ∈ Ω(m=64, n=512, k=10)>"
    r = repr(cert)
    assert r.startswith("<Certificate no-hidden-symmetries, 64-512-10, sha256 ") and "(not embedded)" in r
    assert len(r) < 200
    table = cert._repr_html_()
    assert table.startswith("<table>") and "no-hidden-symmetries" in table and len(table) < 2000
    deep = read_certificate(audit / "certs" / "deep_6_24_24_3_npz.cert.json")
    assert len(repr(deep)) < 300 and "reason: " in repr(deep)
    assert all(len(repr(c)) < 160 for c in deep.claims)
    hidden = read_certificate(audit / "certs" / "dead_32_40_3_npz.cert.json")
    assert "witness: dead-output" in repr(hidden) and repr(hidden.witness).startswith("<Witness dead-output")
    import dataclasses

    evil = dataclasses.replace(deep, reasons=(), reason="<script>alert(1)</script> & more")     # a /2 prose reason
    assert "<script>" not in evil._repr_html_() and "&lt;script&gt;" in evil._repr_html_()
