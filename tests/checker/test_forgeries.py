"""The checker against forgers: every mutant is rejected unless an independent oracle shows its verdict is true.

The pool is the named catalogue plus seeded random networks of every shallow
family; Hypothesis picks a certificate, a mutation and its details.  The
counts of mutants tried, rejected and (rightly) accepted are printed at the end
of the run.  ``--runslow`` tries many more.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reluid.api import certify
from reluid.certificates.schema import to_json
from reluid.checker.check import check_certificate
from reluid.model.network import Shallow
from tests.catalogue import CATALOGUE
from tests.checker.forgery import MUTATIONS, mutants, parse, verdict_is_true
from tests.strategies import random_generic, random_shallow

STATS: Counter = Counter()


def _pool():
    nets = [ex.theta for ex in CATALOGUE]
    rng = random.Random(2026)
    for _ in range(12):                       # generic, with and without flip sets, same architectures
        nets.append(random_generic(rng, 1, rng.randint(2, 5), 1, lo=-3, hi=3))
        nets.append(random_generic(rng, 2, rng.randint(2, 4), 1, lo=-3, hi=3))
    for _ in range(8):                        # every degenerate family, small integers
        nets.append(random_shallow(rng, rng.randint(1, 2), rng.randint(1, 4), rng.randint(1, 2), lo=-1, hi=1,
                                   nonzero=False))
    nets.append(Shallow.make([2, -1], [[1], [2]], [0, 3], [0]))      # a flip set, m = k = 1
    nets.append(Shallow.make([2, -1], [[1], [3]], [0, 3], [0]))      # none
    from tests.deep_catalogue import DEEP_CATALOGUE
    nets += [e.network for e in DEEP_CATALOGUE]
    return [to_json(certify(t, timeout=30)) for t in nets]


POOL = _pool()
POOL_DICTS = [json.loads(t) for t in POOL]


def _judge(name, text):
    cert = parse(text)
    if cert is None:
        STATS["malformed"] += 1
        return
    report = check_certificate(cert)
    if not report.valid:
        STATS["rejected"] += 1
        return
    assert verdict_is_true(cert), f"a forged certificate ({name}) was accepted: {report.rule}\n{text[:2000]}"
    STATS[f"accepted, verdict true ({name})"] += 1


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(POOL) - 1), st.integers(0, 2**32 - 1))
def test_mutants_are_rejected_unless_their_verdict_is_true(index, seed):
    rng = random.Random(seed)
    for name, text in mutants(POOL[index], rng, POOL_DICTS, 4):
        STATS["tried"] += 1
        STATS[f"tried {name}"] += 1
        _judge(name, text)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(POOL) - 1), st.integers(0, 2**32 - 1))
def test_many_more_mutants(index, seed):
    test_mutants_are_rejected_unless_their_verdict_is_true.hypothesis.inner_test(index, seed)


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_every_mutation_applies_somewhere(name):
    rng = random.Random(7)
    assert any(MUTATIONS[name](copy.deepcopy(d), rng, POOL_DICTS) is not None for d in POOL_DICTS)


def _opposite_forgeries(d):
    """Certificates for the same network with the opposite verdict, built from every piece of evidence at hand."""
    same = [o for o in POOL_DICTS if o["network"]["architecture"] == d["network"]["architecture"]]
    out = []
    if d["verdict"] == "hidden-symmetry":
        for o in same:   # claim no hidden symmetry with any evidence found for a network of the same shape
            f = copy.deepcopy(d)
            f["verdict"], f["witness"] = "no-hidden-symmetries", None
            f["claims"] = copy.deepcopy(o["claims"])
            out.append(f)
    else:
        net = parse(json.dumps(d)).network
        if net.is_shallow and net.shallow().n:
            t = net.shallow()
            for r in range(1, min(t.n, 4) + 1):   # flip rows of non-flip sets, as if they were flip sets
                for F in itertools.combinations(range(t.n), r):
                    A = [tuple(-x for x in t.A[i]) if i in F else t.A[i] for i in range(t.n)]
                    b = [-t.b[i] if i in F else t.b[i] for i in range(t.n)]
                    c = [t.c[j] + sum((t.M[j][i] * t.b[i] for i in F), Fraction(0)) for j in range(t.k)]
                    w = Shallow(t.M, tuple(A), tuple(b), tuple(c), t.m)
                    f = copy.deepcopy(d)
                    f["verdict"] = "hidden-symmetry"
                    f.pop("reasons", None)
                    f["witness"] = {"mechanism": "flip-set", "network": w.to_network().to_dict(), "details": {}}
                    out.append(f)
        for o in same:
            if o.get("witness"):
                f = copy.deepcopy(d)
                f["verdict"], f["witness"] = "hidden-symmetry", copy.deepcopy(o["witness"])
                f.pop("reasons", None)
                out.append(f)
    return out


@pytest.mark.parametrize("index", range(len(POOL)))
def test_opposite_verdicts_are_never_both_valid(index):
    d = POOL_DICTS[index]
    genuine = check_certificate(parse(POOL[index]))
    assert genuine.valid
    if d["verdict"] == "unknown":
        return
    for f in _opposite_forgeries(d):
        cert = parse(json.dumps(f))
        if cert is not None:
            STATS["opposite forgeries"] += 1
            assert not check_certificate(cert).valid, f"both verdicts accepted for {d['network']['sha256'][:12]}"


def test_the_pool_covers_every_verdict_and_stratum():
    verdicts = {d["verdict"] for d in POOL_DICTS}
    assert {"hidden-symmetry", "no-hidden-symmetries"} <= verdicts
    strata = {d["producer"].get("stratum") for d in POOL_DICTS}
    assert {"generic", "dead-output", "constant-neuron", "proportional", "opposite-pairs"} <= strata
    mechanisms = {d["witness"]["mechanism"] for d in POOL_DICTS if d.get("witness") and len(d["network"]["architecture"]) > 3}
    assert {"dead-neuron", "always-active", "never-coactive", "layer-flip", "proportional-neurons"} <= mechanisms


def test_summary():
    """Runs last in this module: the counts of the run, for the note (pytest -s shows them)."""
    print("\nforgery suite:", dict(sorted(STATS.items())))
    assert STATS["tried"] == 0 or STATS["rejected"] > 0
