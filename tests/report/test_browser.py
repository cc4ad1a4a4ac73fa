"""The committed HTML audit in a real browser (headless Chromium); skipped when no chromium binary is found.

The pages must load without a console message (no script error, nothing
blocked by their Content-Security-Policy, so nothing fetched), their script
must have run (the filters), and they must render to a non-trivial picture.
"""

import re
import struct

import pytest

from reluid.report.browser import dump_dom, find_chromium, screenshot
from tests.paths import EXAMPLES, REPORTS

pytestmark = pytest.mark.skipif(find_chromium() is None, reason="no chromium binary found")

HTML = REPORTS / "examples" / "html"


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    w, h = struct.unpack(">II", data[16:24])
    return w, h, data


def _distinct_colours(data):
    """How many colours a PNG uses (with Pillow, which comes with matplotlib; None without it)."""
    try:
        from PIL import Image
    except ImportError:
        return None
    import io
    im = Image.open(io.BytesIO(data)).convert("RGB")
    return len(im.getcolors(maxcolors=1 << 24))


def test_index_loads_runs_its_filters_and_logs_nothing():
    dom, console = dump_dom(HTML / "index.html")
    assert console == [], console
    root = re.search(r"<html[^>]*>", dom).group(0)
    assert 'data-ready="1"' in root and "data-js-error" not in root
    n = len(list(EXAMPLES.iterdir()))
    hidden = len(re.findall(r'<tr data-verdict="hidden-symmetry"', (HTML / "index.html").read_text(encoding="utf-8")))
    assert 0 < hidden < n
    assert dom.count('class="badge v-') >= n and f"{n} of {n} shown" in dom
    dom, console = dump_dom(HTML / "index.html", "verdict=hidden-symmetry&check=re-verified")
    assert console == [], console
    rows = re.findall(r'<tr data-verdict="([^"]+)" data-check="[^"]*"( hidden="")?>', dom)
    assert len(rows) == n
    assert all((v == "hidden-symmetry") == (not h) for v, h in rows)
    assert f"{hidden} of {n} shown" in dom


@pytest.mark.parametrize("page, figures", [("theta1_json.html", 2), ("deep_generic_json.html", 1),
                                           ("mnist_like_16_8_3_npz.html", 0)])
def test_network_pages_load_cleanly(page, figures):
    dom, console = dump_dom(HTML / page)
    assert console == [], console
    assert "badge big v-" in dom and 'data-check="re-verified"' in dom and "<math" in dom and 'id="claims"' in dom
    assert dom.count("<svg") == figures
    if figures == 2:
        assert 'class="neuron changed"' in dom


@pytest.mark.parametrize("page, size", [("index.html", (1280, 1000)), ("theta1_json.html", (1280, 1800))])
def test_screenshots_are_non_trivial(tmp_path, page, size):
    png = tmp_path / "shot.png"
    console = screenshot(HTML / page, png, *size)
    assert console == [], console
    w, h, data = _png_size(png)
    assert (w, h) == size
    assert len(data) > 40_000                        # a blank page compresses to a few kB
    colours = _distinct_colours(data)
    assert colours is None or colours > 50


def test_committed_screenshots_exist():
    for name in ("audit-index.png", "audit-theta1.png"):
        w, h, data = _png_size(REPORTS / name)
        assert w == 1280 and h >= 1000 and len(data) > 40_000
