"""The alignment checker: valid certificates pass, forgeries are rejected, malformed documents are invalid."""

import json
import random
from fractions import Fraction as F

import pytest

import reluid
from reluid.checker.alignment import check_alignment, parse_alignment
from reluid.errors import CertificateError
from reluid.model.network import Network
from reluid.model.symmetry import GroupElement, act_layers


def _pair():
    rng = random.Random(2)
    net = Network.from_lists([([[rng.randint(-5, 5) for _ in range(3)] for _ in range(4)], [1, -1, 2, 0]),
                              ([[rng.randint(-5, 5) for _ in range(4)] for _ in range(3)], [0, 1, -2]),
                              ([[1, -1, 2]], [3])])
    g = (GroupElement((2, 0, 3, 1), (F(3), F(1, 2), F(5, 7), F(2))), GroupElement((1, 2, 0), (F(4), F(1, 3), F(1))))
    return net, act_layers(g, net)


@pytest.fixture
def doc():
    a, b = _pair()
    al = reluid.align(a, b)
    assert al.same_orbit
    return json.loads(json.dumps(reluid.alignment_document(al, a, b)))


def test_valid(doc):
    a, b = _pair()
    res = check_alignment(doc, a, b)
    assert res.valid and res.exit_code == 0 and res.layers == 2


def _mutate(doc, fn):
    d = json.loads(json.dumps(doc))
    fn(d)
    return d


FORGERIES = {
    "scaling changed": lambda d: d["layers"][0]["scale"].__setitem__(0, "7/2"),
    "permutation swapped": lambda d: d["layers"][1]["perm"].reverse(),
    "reference hash of another network": lambda d: d["reference"].__setitem__("sha256", "0" * 64),
    "other hash of another network": lambda d: d["other"].__setitem__("sha256", d["reference"]["sha256"]),
    "aligned hash of another network": lambda d: d["aligned"].__setitem__("sha256", d["other"]["sha256"]),
    "negative scaling": lambda d: d["layers"][0]["scale"].__setitem__(1, "-1/2"),
    "not a permutation": lambda d: d["layers"][0].__setitem__("perm", [0, 0, 1, 2]),
    "a layer missing": lambda d: d["layers"].pop(),
    "wrong size": lambda d: (d["layers"][1]["perm"].append(3), d["layers"][1]["scale"].append("1")),
}


@pytest.mark.parametrize("name", FORGERIES)
def test_forgeries_are_rejected(doc, name):
    a, b = _pair()
    res = check_alignment(_mutate(doc, FORGERIES[name]), a, b)
    assert not res.valid and res.exit_code == 1, name


def test_swapped_networks_are_rejected(doc):
    a, b = _pair()
    assert not check_alignment(doc, b, a).valid


@pytest.mark.parametrize("text", [
    "not json", "[]", '{"format": "reluid.certificate/2"}',
    '{"format": "reluid.alignment/1", "reference": {"sha256": "a"}, "other": {"sha256": "b"}, '
    '"layers": [{"layer": 1, "perm": [0], "scale": [0.5]}]}',
    '{"format": "reluid.alignment/1", "reference": {"sha256": "a"}, "other": {"sha256": "b"}, '
    '"layers": [{"layer": 1, "perm": [0], "scale": ["2/4"]}]}',
    '{"format": "reluid.alignment/1", "reference": {"sha256": "a"}, "other": {"sha256": "b"}, '
    '"layers": [{"layer": 1, "perm": [0], "scale": ["3/1"]}]}',
    '{"format": "reluid.alignment/1", "format": "reluid.alignment/1"}',
    '{"format": "reluid.alignment/1", "reference": {"sha256": "a"}, "other": {"sha256": "b"}, '
    '"layers": [{"layer": 2, "perm": [0], "scale": ["1"]}]}',
])
def test_malformed_documents_are_invalid(text):
    with pytest.raises(CertificateError):
        parse_alignment(text)
