"""The reports people read: HTML pages and index, links between the renderings, numbering, wrapping."""

import io
import json
import os
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

import reluid
from reluid.cli.main import main
from reluid.report.arrangement import arrangement, changed_neurons
from reluid.report.certificate import WIDTH, certificate_view, generate_markdown, generate_text
from reluid.report.html import generate_page
from tests.paths import EXAMPLES

EX = str(EXAMPLES)


def ex(name):
    return os.path.join(EX, name)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    return main([str(a) for a in argv], out, err), out.getvalue(), err.getvalue()


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.text = [], [], []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.append((tag, dict(attrs)))
        if tag in ("script", "style", "title", "math", "svg"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style", "title", "math", "svg"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def parse(text):
    p = _Collect()
    p.feed(text)
    return p


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    d = tmp_path_factory.mktemp("audit")
    code, out, err = run("audit", EX, "--html", d / "html", "--reports", d / "md", "--markdown", d / "summary.md",
                         "--junit", d / "junit.xml", "--certificates", d / "certs", "--link-base", ".")
    assert code == 1, err
    return d


def test_every_file_of_a_network_has_the_same_stem(audit):
    stems = {f[:-3] for f in os.listdir(audit / "md")}
    assert stems == {f[:-5] for f in os.listdir(audit / "html") if f != "index.html"}
    assert stems == {f[:-len(".cert.json")] for f in os.listdir(audit / "certs")}
    assert "theta1_json" in stems


def test_pages_are_self_contained(audit):
    for f in os.listdir(audit / "html"):
        text = (audit / "html" / f).read_text(encoding="utf-8")
        p = parse(text)
        assert "Content-Security-Policy" in text and "default-src 'none'" in text
        assert not {"link", "img", "iframe", "object", "embed"} & set(p.tags), f
        assert not any("src" in a for t, a in p.attrs if t != "svg"), f
        # the only URL is the SVG namespace, which is never fetched
        assert set(re.findall(r"https?://[^\s\"'<>]+", text)) <= {"http://www.w3.org/2000/svg"}, f


def test_index_has_badges_filters_and_links(audit):
    text = (audit / "html" / "index.html").read_text(encoding="utf-8")
    p = parse(text)
    rows = [a for t, a in p.attrs if t == "tr" and "data-verdict" in a]
    assert len(rows) == len(os.listdir(EXAMPLES))
    assert {a["data-verdict"] for a in rows} == {"no-hidden-symmetries", "hidden-symmetry", "unknown"}
    assert {a["data-check"] for a in rows} == {"re-verified"}
    boxes = [a for t, a in p.attrs if t == "input" and a.get("type") == "checkbox"]
    assert {a["name"] for a in boxes} == {"verdict", "check"}
    assert "<script>" in text and "reluid audit: " + EX in text      # the title names the input
    for t, a in p.attrs:
        if t == "a" and "href" in a:
            assert (audit / "html" / a["href"]).is_file(), a["href"]


def test_network_page_shows_verdict_checker_proof_mathml_and_figure(audit):
    text = (audit / "html" / "theta1_json.html").read_text(encoding="utf-8")
    p = parse(text)
    body = " ".join(" ".join(p.text).split())
    assert 'class="badge big v-hidden-symmetry"' in text and 'data-check="re-verified"' in text
    assert "examples/networks/theta1.json" in body
    assert "Architecture 2 → 3 → 1" in body and "Parameters 13" in body
    assert text.count("<svg") == 2 and 'class="neuron changed"' in text and 'class="output"' in text
    assert text.count("<math") >= 10 and "<munder>" in text and "<mtable>" in text
    assert "Σ_{" not in body and "Σ_(" not in body and "a_iᵀ" not in body      # formulas are MathML, not text
    claims = [a for t, a in p.attrs if t == "li" and a.get("id", "").startswith("claim-")]
    n = len(reluid.certify(reluid.load(os.path.join(EXAMPLES, "theta1.json"))).claims)
    assert n >= 5 and [a["id"] for a in claims] == [f"claim-{i}" for i in range(1, n + 1)]
    assert 'id="properties"' in text and "Locally identifiable: yes" in body     # a property, not a verdict
    assert {a["data-status"] for a in claims} <= {"verified", "information verified"}
    assert text.count('class="chg"') >= 7           # θ′'s changed entries are highlighted
    for t, a in p.attrs:
        if t == "a" and "href" in a:
            assert (audit / "html" / a["href"]).is_file(), a["href"]


def test_deep_page_draws_bent_hypersurfaces(audit):
    text = (audit / "html" / "deep_generic_json.html").read_text(encoding="utf-8")
    assert 'data-layer="2"' in text and 'stroke-dasharray' in text and "v-unknown" in text
    text = (audit / "html" / "deep_dead_neuron_json.html").read_text(encoding="utf-8")   # n0 = 1: the graph
    assert text.count('class="graph"') == 2 and "Farkas tree): 2 leaves, depth 1" in text and "<math" in text


def test_markdown_and_junit_link_the_pages_and_certificates(audit):
    md = (audit / "md" / "theta1_json.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+)\)", md)
    assert links == ["../certs/theta1_json.cert.json", "../html/theta1_json.html"]
    assert all((audit / "md" / link).is_file() for link in links)
    summary = (audit / "summary.md").read_text(encoding="utf-8")
    summary_links = re.findall(r"\]\(([^)]+)\)", summary)
    assert len(summary_links) == 4 * len(os.listdir(EXAMPLES))       # --link-base .: the name and three files
    for link in summary_links:
        assert (audit / link).is_file(), link
    junit = ET.parse(audit / "junit.xml").getroot()
    props = [p.get("value") for p in junit.iter("property") if p.get("name") in ("report", "html-report",
                                                                                  "certificate")]
    assert len(props) == 3 * len(os.listdir(EXAMPLES)) and all((audit / v).is_file() for v in props)
    assert "certificate: certs/theta1_json.cert.json" in (audit / "junit.xml").read_text(encoding="utf-8")


def test_certify_html_is_the_single_page():
    code, out, _ = run("certify", ex("theta1.json"), "--format", "html")
    assert code == 1 and out.startswith("<!DOCTYPE html>") and "<svg" in out and "audit index" not in out


def test_text_reports_are_wrapped_and_say_each_thing_once():
    code, out, _ = run("certify", ex("deep_generic.json"))
    assert code == 3
    assert max(len(line) for line in out.splitlines() if not line.startswith("Network SHA")) <= WIDTH
    flat = " ".join(out.split())
    assert flat.count("architecture (2, 3, 3, 1)") == 1
    code, out, _ = run("certify", ex("deep_layer_flip.json"))
    assert out.count("neurons [1, 2]") + out.count("neurons {1, 2}") == 2     # the witness claim and its location
    assert "F = {1, 2} in hidden layer 1" in out and "F = [0, 1]" not in out
    assert "Vanishing" not in run("certify", ex("theta1.json"))[1]


@pytest.mark.parametrize("name, neuron", [("deep_dead_neuron.json", "neuron 1 of hidden layer 2 is dead")])
def test_deep_statements_count_from_one(name, neuron):
    net = reluid.load(ex(name))
    cert = reluid.certify(net)
    assert neuron in cert.claims[0].statement
    assert json.loads(reluid.api.generate_json(net))  # (the network itself is unchanged)
    for render in (generate_text, generate_markdown):
        assert "neuron 0" not in render(cert, net, name, reluid.check(cert, net))


def test_essential_case_counts_classes_from_one():
    cert = reluid.certify(reluid.load(ex("hidden_pair.json")))
    assert cert.witness.details["case"].startswith("P = {1}")


def test_arrangement_is_exact_and_marks_the_flipped_neurons():
    theta1, theta2 = reluid.load(ex("theta1.json")), reluid.load(ex("theta2.json"))
    arr = arrangement(theta1)
    assert sorted(arr.curves) == [(1, 0), (1, 1), (1, 2)]
    assert all(len(v) == 1 for v in arr.curves.values())     # layer 1: whole lines
    assert changed_neurons(theta1, theta2) == {(1, 0): "flipped", (1, 1): "flipped", (1, 2): "flipped"}
    deep = reluid.load(ex("deep_generic.json"))
    arr = arrangement(deep)
    net = deep
    for (l, j), segs in arr.curves.items():       # every piece lies exactly on its neuron's zero set
        if l != 2:
            continue
        for seg in segs:
            for x in seg:
                assert net.preactivations(x)[1][j] == 0


@pytest.mark.parametrize("name", ["hidden_pair.json", "deep_dead_neuron.json", "flip_per_output_not_joint.json"])
def test_one_input_graph_is_exact(name):
    from reluid.report.arrangement import graph

    net = reluid.load(ex(name))
    g = graph(net)
    for o, pts in enumerate(g.outputs):
        assert [x for x, _ in pts] == sorted(x for x, _ in pts) and pts[0][0] == g.lo and pts[-1][0] == g.hi
        for x, y in pts:
            assert net((x,))[o] == y
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):       # affine between breakpoints: the midpoint agrees
            assert net(((x0 + x1) / 2,))[o] == (y0 + y1) / 2
    for (l, j), xs in g.kinks.items():
        for x in xs:
            assert net.preactivations((x,))[l - 1][j] == 0


def test_large_weights_are_truncated_with_a_note():
    from reluid.model.network import Network

    net = Network.from_lists([([[i + j for j in range(30)] for i in range(25)], [1] * 25), ([list(range(25))], [0])])
    cert = reluid.certify(net, timeout=10)
    page = generate_page(certificate_view(cert, net, "big.json", reluid.check(cert, net)))
    assert "Showing 20 of 25 rows" in page and "12 of 30 columns" in page


def test_equivalence_numbers_the_permutation_from_one():
    from reluid.model import Shallow
    from reluid.report.shallow import generate_equivalence

    a = Shallow.make([1, 2], [[1], [2]], [0, 1], [0])
    b = Shallow.make([2, 1], [[2], [1]], [1, 0], [0])
    assert "permutation (1 ↦ 2, 2 ↦ 1)" in generate_equivalence(reluid.equivalent(a, b), "a", "b")


def test_an_invalid_input_is_a_row_without_a_page(tmp_path):
    bad = tmp_path / "nets" / "bad.json"
    bad.parent.mkdir()
    bad.write_text("{not json")
    (tmp_path / "nets" / "theta1.json").write_text((EXAMPLES / "theta1.json").read_text())
    code, _, _ = run("audit", tmp_path / "nets", "--html", tmp_path / "html", "--junit", tmp_path / "j.xml")
    assert code == 4
    index = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    assert 'data-verdict="invalid-input" data-check=""' in index and "theta1_json.html" in index
    assert sorted(os.listdir(tmp_path / "html")) == ["index.html", "theta1_json.cert.json", "theta1_json.html"]
    assert "JUnit XML" in index and (tmp_path / "html" / "../j.xml").is_file()


def test_figures_of_large_networks_stop_with_a_note():
    import random

    from reluid.model.network import Network
    from reluid.report.arrangement import graph

    rng = random.Random(1)

    def layer(n_in, n_out):
        return ([[rng.randint(-5, 5) for _ in range(n_in)] for _ in range(n_out)],
                [rng.randint(-5, 5) for _ in range(n_out)])
    arr = arrangement(Network.from_lists([layer(2, 40), layer(40, 40), layer(40, 40), layer(40, 1)]))
    assert "not drawn" in arr.note and {l for l, _ in arr.curves} == {1} and not arr.outputs
    g = graph(Network.from_lists([layer(1, 300), layer(300, 300), layer(300, 1)]))
    assert "not drawn" in g.note and not g.outputs
