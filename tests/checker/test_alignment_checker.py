"""reluid/checker/alignment.py rule by rule: every malformed shape with its exact message, reading files, and
every reason a well-formed document is rejected (the forgery tests are in test_alignment.py)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction as F

import pytest

from reluid.checker import alignment as A
from reluid.checker.alignment import FORMAT, check_alignment, parse_alignment, read_alignment
from reluid.errors import CertificateError
from reluid.model.network import Network
from reluid.model.symmetry import GroupElement, act_layers

NET = Network.from_lists([([[1, 2], [3, -1], [0, 1]], [0, 1, -1]), ([[1, 1, 2], [2, -1, 1]], [1, 0]),
                          ([[1, -2]], [0])])
G = (GroupElement((2, 0, 1), (F(3), F(1, 2), F(5))), GroupElement((1, 0), (F(4), F(1, 3))))
OTHER = act_layers(G, NET)


def _doc() -> dict:
    inv = [g.inverse() for g in G]
    return {"format": FORMAT, "reference": {"sha256": NET.sha256()}, "other": {"sha256": OTHER.sha256()},
            "aligned": {"sha256": NET.sha256()},
            "layers": [{"layer": l, "perm": list(g.perm), "scale": [str(s) for s in g.scale]}
                       for l, g in enumerate(inv, 1)]}


def test_the_planted_element_is_valid_and_counts_its_layers():
    res = check_alignment(_doc(), NET, OTHER)
    assert res.valid and res.exit_code == 0 and res.layers == 2
    assert res.reason == "the hashes name the two networks and act_layers(layers, other) == reference exactly"
    assert check_alignment(json.dumps(_doc()), NET, OTHER).valid                  # text is parsed the same way
    no_aligned = _doc()
    del no_aligned["aligned"]
    assert check_alignment(no_aligned, NET, OTHER).valid                           # "aligned" is optional


def _malformed(mutate):
    d = _doc()
    mutate(d)
    return json.dumps(d)


@pytest.mark.parametrize("text, message", [
    ("[1, 2]", "an alignment document is a JSON object"),
    (_malformed(lambda d: d.update(format="reluid.alignment/2")),
     "format must be 'reluid.alignment/1', got 'reluid.alignment/2'"),
    (_malformed(lambda d: d.pop("format")), "format must be 'reluid.alignment/1', got None"),
    (_malformed(lambda d: d.update(reference="abc")), "'reference' must be an object with a 'sha256' string"),
    (_malformed(lambda d: d.update(reference={"sha256": 5})), "'reference' must be an object with a 'sha256' string"),
    (_malformed(lambda d: d.update(reference={})), "'reference' must be an object with a 'sha256' string"),
    (_malformed(lambda d: d.update(other=[])), "'other' must be an object with a 'sha256' string"),
    (_malformed(lambda d: d["other"].update(sha256=None)), "'other' must be an object with a 'sha256' string"),
    (_malformed(lambda d: d.update(aligned="x")), "'aligned' must be an object with a 'sha256' string"),
    (_malformed(lambda d: d.update(aligned={"sha256": 1})), "'aligned' must be an object with a 'sha256' string"),
    (_malformed(lambda d: d.update(layers={})), "'layers' must be a list"),
    (_malformed(lambda d: d.pop("layers")), "'layers' must be a list"),
    (_malformed(lambda d: d["layers"].__setitem__(0, 7)), 'layers[0] must be an object with "layer": 1'),
    (_malformed(lambda d: d["layers"][1].update(layer=1)), 'layers[1] must be an object with "layer": 2'),
    (_malformed(lambda d: d["layers"][0].update(perm="210")), "layer 1: 'perm' must be a list of integers"),
    (_malformed(lambda d: d["layers"][1].update(perm=[1, True])), "layer 2: 'perm' must be a list of integers"),
    (_malformed(lambda d: d["layers"][0].update(scale=None)), "layer 1: 'scale' must be a list of 'p/q' strings"),
    (_malformed(lambda d: d["layers"][0].update(scale=["1", 2, "3"])),
     "layer 1: 'scale' must be a list of 'p/q' strings"),
    (_malformed(lambda d: d["layers"][1].update(scale=["2/4", "1"])), "layer 2: scale not in lowest terms: '2/4'"),
])
def test_malformed_shapes_name_what_is_wrong(text, message):
    with pytest.raises(CertificateError) as e:
        parse_alignment(text)
    assert e.value.message == message


def test_strict_json_names_the_document():
    with pytest.raises(CertificateError) as e:
        parse_alignment('{"format": 1.5}')
    assert "an alignment document" in e.value.message


def test_read_alignment_from_files(tmp_path, monkeypatch):
    good = tmp_path / "a.alignment.json"
    good.write_text(json.dumps(_doc()), encoding="utf-8")
    assert read_alignment(good) == _doc()
    with pytest.raises(CertificateError) as e:
        read_alignment(tmp_path / "missing.json")
    assert e.value.message == "cannot read: No such file or directory" and e.value.path.endswith("missing.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{}")
    with pytest.raises(CertificateError) as e:
        read_alignment(bad)
    assert (e.value.message, e.value.path) == ("not UTF-8 text", str(bad))
    wrong = tmp_path / "wrong.json"
    wrong.write_text("[]", encoding="utf-8")
    with pytest.raises(CertificateError) as e:
        read_alignment(wrong)
    assert (e.value.message, e.value.path) == ("an alignment document is a JSON object", str(wrong))
    size = len(good.read_bytes())
    monkeypatch.setattr(A, "MAX_BYTES", size)                      # exactly the limit: still read
    assert read_alignment(good) == _doc()
    monkeypatch.setattr(A, "MAX_BYTES", size - 1)                  # one byte over: refused
    with pytest.raises(CertificateError) as e:
        read_alignment(good)
    assert (e.value.message, e.value.path) == ("alignment document too large", str(good))


def _rejected(doc, ref=NET, other=OTHER) -> str:
    res = check_alignment(doc, ref, other)
    assert not res.valid and res.exit_code == 1
    return res.reason


def test_every_rejection_says_why():
    d = _doc()
    d["reference"]["sha256"] = "0" * 64
    assert _rejected(d) == "the reference network's SHA-256 does not match the document"
    d = _doc()
    d["other"]["sha256"] = NET.sha256()
    assert _rejected(d) == "the other network's SHA-256 does not match the document"
    d = _doc()
    d["aligned"]["sha256"] = OTHER.sha256()
    assert _rejected(d) == "the aligned network named by the document is not the reference"

    wider = Network.from_lists([([[1, 2], [3, -1], [0, 1], [1, 1]], [0, 1, -1, 0]),
                                ([[1, 1, 2, 1], [2, -1, 1, 0]], [1, 0]), ([[1, -2]], [0])])
    d = _doc()
    d["reference"]["sha256"] = d["aligned"]["sha256"] = wider.sha256()
    assert _rejected(d, ref=wider) == "architectures (2, 4, 2, 1) and (2, 3, 2, 1) differ"

    d = _doc()
    d["layers"].pop()
    assert _rejected(d) == "1 layer entries for 2 hidden layers"
    d = _doc()
    d["layers"][0]["perm"] = [0, 0, 1]
    assert _rejected(d).startswith("layer 1: not a permutation with positive scalings (")
    d = _doc()
    d["layers"][1]["scale"] = ["-4", "1/3"]
    assert _rejected(d).startswith("layer 2: not a permutation with positive scalings (")
    d = _doc()
    d["layers"][1] = {"layer": 2, "perm": [0, 1, 2], "scale": ["1", "1", "1"]}
    assert _rejected(d) == "layer 2: 3 entries for 2 neurons"
    for l in (1, 2):
        d = copy.deepcopy(_doc())
        s = d["layers"][l - 1]["scale"]
        s[0] = str(F(s[0]) * 2)
        assert _rejected(d) == f"act_layers(layers, other) differs from the reference in layer map {l}"
    d = _doc()
    d["layers"][1]["scale"] = [str(F(x) * 7) for x in d["layers"][1]["scale"]]
    assert _rejected(d) == "act_layers(layers, other) differs from the reference in layer map 2"
