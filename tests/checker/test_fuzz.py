"""Structural fuzzing of real certificates: ``reluid check`` answers with a verdict or one line, never a crash.

Every certificate under reports/examples/certificates is mutated at seeded
random paths (wrong types, huge numbers, deep nesting, missing and extra
keys) and checked through the command line in-process.  The answer must be
exit 0 or 1 with a report, or exit 4 with a single ``reluid check: error:``
line: an internal error or a traceback is a bug of the checker.
"""

from __future__ import annotations

import copy
import io
import json
import random

import pytest

from reluid.cli.main import main
from tests.paths import REPORTS

CERTS = sorted((REPORTS / "examples" / "certificates").glob("*.cert.json"))
BIG = "1" * 4000 + "/" + "3" * 3999 + "7"


def _nested(depth: int):
    x = 0
    for _ in range(depth):
        x = [x]
    return x


def _deep_object(depth: int):
    x: object = {}
    for _ in range(depth):
        x = {"k": x}
    return x


JUNK = (None, True, False, 0, -1, 1, 3, 2**70, -(10**4000), "x", "", "1/2", "2/4", "-0", BIG, "1/" + "7" * 4200,
        [], {}, [[]], [0], [None], ["x"], {"leaf": {}}, [1, 2, 3], {"format": "reluid.network/1"})


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for key, v in obj.items():
            yield from _paths(v, prefix + (key,))
    elif isinstance(obj, list):
        for i in sorted({0, len(obj) - 1} if obj else set()):
            yield from _paths(obj[i], prefix + (i,))


def _at(obj, path):
    for key in path:
        obj = obj[key]
    return obj


def _mutate(doc, rng: random.Random):
    out = copy.deepcopy(doc)
    paths = [p for p in _paths(out) if p]
    path = rng.choice(paths)
    parent, last = _at(out, path[:-1]), path[-1]
    r = rng.random()
    if r < 0.55:
        parent[last] = copy.deepcopy(rng.choice(JUNK))
    elif r < 0.7 and isinstance(parent, dict):
        del parent[last]
    elif r < 0.8:
        parent[last] = _nested(rng.choice((50, 300, 600, 900))) if rng.random() < 0.5 else \
            _deep_object(rng.choice((50, 300, 600)))
    elif r < 0.9:
        cur = parent[last]
        if isinstance(cur, list):
            parent[last] = cur + cur[:1] if rng.random() < 0.5 else cur[:-1]
        elif isinstance(cur, dict):
            cur["extra"] = rng.choice(JUNK)
        elif isinstance(cur, int) and not isinstance(cur, bool):
            parent[last] = cur + rng.choice((-1, 1, 10**50))
        else:
            parent[last] = rng.choice(JUNK)
    else:
        parent[last] = [copy.deepcopy(parent[last])]
    return out


def check_text(text: str, tmp_path) -> tuple[int, str, str]:
    path = tmp_path / "cert.json"
    path.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    rc = main(["check", str(path)], out, err)
    return rc, out.getvalue(), err.getvalue()


def assert_answered(rc: int, out: str, err: str, what: str) -> None:
    assert "internal error" not in err and "Traceback" not in err, f"{what}: {err.strip()}"
    assert rc in (0, 1, 4), f"{what}: exit {rc}: {err.strip()}"
    if rc == 4:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("reluid check: error: "), f"{what}: {err!r}"
    else:
        assert out.strip(), what


@pytest.mark.parametrize("cert", CERTS, ids=lambda p: p.name.removesuffix(".cert.json"))
def test_mutated_certificates_get_a_verdict_or_one_line(cert, tmp_path):
    doc = json.loads(cert.read_text(encoding="utf-8"))
    rng = random.Random(cert.name)
    for n in range(40):
        bad = _mutate(doc, rng)
        rc, out, err = check_text(json.dumps(bad), tmp_path)
        assert_answered(rc, out, err, f"{cert.name} mutation {n}")
