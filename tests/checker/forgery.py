"""Forgers and an independent oracle for the checker's forgery suite.

A *mutant* is a certificate changed the way an adversary would: a number in
the evidence or the witness moved, rows swapped, claims dropped or relabelled,
the verdict flipped, evidence transplanted from another network of the same
architecture, the network swapped for another one, the premise of a deep
witness moved to another neuron.  A mutant may pass the checker only if the
oracle below, which shares no code with the checker, shows that its verdict is
still true for its network.

The oracle decides small shallow networks by brute force (every subset for
flip sets, the degenerate strata by their definitions) and uses the producer's
exact decision, cross-checked by z3's realisation-pattern search, on the
essential stratum; a shallow witness is accepted only if it computes the same
function (exact function data) and lies outside the orbit (canonical forms).
A deep witness is accepted only if z3 proves that no input distinguishes the
two networks (an encoding of both, independent of the checker's mechanism
rules) and the exhaustive orbit search places it outside the orbit.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from fractions import Fraction

from reluid.analysis.shallow.function import canonical_row, equivalent
from reluid.certificates.schema import from_json, network_from_dict
from reluid.errors import CertificateError, ReluidError
from reluid.model.network import Network, Shallow
from reluid.verdicts import Verdict

__all__ = ["MUTATIONS", "mutants", "truth", "verdict_is_true", "parse"]


# ---------------------------------------------------------------------------
# the oracle
# ---------------------------------------------------------------------------

def _brute_flip_set(t: Shallow) -> bool:
    for r in range(1, t.n + 1):
        for F in itertools.combinations(range(t.n), r):
            if all(sum(t.M[j][i] * t.A[i][l] for i in F) == 0 for j in range(t.k) for l in range(t.m)):
                return True
    return False


def truth(net: Network) -> bool | None:
    """Whether a small network has a hidden symmetry (True/False), or None when the oracle cannot tell."""
    if net.depth == 1:
        return False
    if not net.is_shallow:
        return None
    t = net.shallow()
    if t.n == 0:
        return False
    if any(not any(t.out(i)) for i in range(t.n)) or any(not any(a) for a in t.A):
        return True                                     # Lemma 10, Lemma 11(2)
    rows = [canonical_row(t.A[i], t.b[i]) for i in range(t.n)]
    classes: dict = {}
    for i, (r, lam) in enumerate(rows):
        classes.setdefault(r, []).append((i, lam))
    if any(len([1 for _, lam in ms if lam > 0]) > 1 or len([1 for _, lam in ms if lam < 0]) > 1
           for ms in classes.values()):
        return True                                     # Lemma 11(1)
    pairs = [ms for ms in classes.values() if len(ms) == 2]
    if not pairs:
        return _brute_flip_set(t) if t.n <= 14 else None
    for ms in pairs:                                    # cancelling kinks: the pair is affine
        if not any(sum(abs(lam) * t.M[j][i] for i, lam in ms) for j in range(t.k)):
            return True
    from reluid.analysis.shallow.decide import decide

    d = decide(t, timeout=30, count_orbits=False)
    if d.verdict is Verdict.UNKNOWN:
        return None
    return d.verdict is Verdict.HIDDEN


def same_function_by_z3(a: Network, b: Network) -> bool:
    """z3 proves ∀x a(x) = b(x) (unsat of a distinguishing x); False when it finds one or cannot tell."""
    import z3

    from reluid.smt.solver import rational_to_z3

    def encode(net, xs, tag):
        h = xs
        for i, L in enumerate(net.layers):
            z = [z3.Sum(*[rational_to_z3(w) * v for w, v in zip(row, h)], rational_to_z3(bias))
                 for row, bias in zip(L.weight, L.bias)]
            h = z if i == len(net.layers) - 1 else [z3.If(t > 0, t, z3.RealVal(0)) for t in z]
        return h

    xs = [z3.Real(f"x{k}") for k in range(a.input_dim)]
    s = z3.Solver()
    s.set("timeout", 20_000)
    s.add(z3.Or([p != q for p, q in zip(encode(a, xs, "a"), encode(b, xs, "b"))]))
    return s.check() == z3.unsat


def verdict_is_true(cert) -> bool:
    """Whether the (possibly mutated) certificate's verdict is true of its network, by the oracle."""
    net = cert.network
    if cert.verdict is Verdict.UNKNOWN:
        return True
    if cert.verdict is Verdict.HIDDEN and cert.witness is not None and net.is_shallow:
        try:
            eq = equivalent(net.shallow(), cert.witness.network.shallow())
        except ReluidError:
            return False
        return eq.equal and not eq.same_orbit
    if cert.verdict is Verdict.HIDDEN and cert.witness is not None and net.depth > 2:
        from reluid.analysis.deep.orbit import same_orbit

        theta2 = cert.witness.network
        return (theta2.architecture == net.architecture and same_function_by_z3(net, theta2)
                and same_orbit(net, theta2) is None)
    t = truth(net)
    return t is not None and t == (cert.verdict is Verdict.HIDDEN)


# ---------------------------------------------------------------------------
# the forgers
# ---------------------------------------------------------------------------

def _numbers(obj, path=()):
    """Paths to every number (int or "p/q" string) in JSON-shaped data."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _numbers(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _numbers(v, path + (i,))
    elif isinstance(obj, bool):
        return
    elif isinstance(obj, int) or (isinstance(obj, str) and _is_rational(obj)):
        yield path


def _is_rational(s: str) -> bool:
    try:
        Fraction(s)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def _get(obj, path):
    for p in path:
        obj = obj[p]
    return obj


def _set(obj, path, value):
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def _bump(x, rng):
    q = Fraction(x) + rng.choice([1, -1, Fraction(1, 2), 2])
    if q == Fraction(x):
        q += 1
    return int(q) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _with_sha(d, net: Network):
    d["network"]["embedded"] = net.to_dict()
    d["network"]["sha256"] = net.sha256()
    d["network"]["architecture"] = list(net.architecture)
    return d


def m_number(d, rng, others):
    """Move one number in the evidence, the witness or the claims (never the network: that is another mutation)."""
    spots = [p for p in _numbers(d) if p[0] in ("claims", "witness")]
    if not spots:
        return None
    path = rng.choice(spots)
    _set(d, path, _bump(_get(d, path), rng))
    return d


def m_swap_rows(d, rng, others):
    """Swap two entries of a list in the evidence (rows, basis vectors, indices)."""
    lists = []

    def walk(obj, path):
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, path + (k,))
        elif isinstance(obj, list):
            if len(obj) >= 2 and obj[0] != obj[1]:
                lists.append(path)
            for i, v in enumerate(obj):
                walk(v, path + (i,))

    walk(d["claims"], ("claims",))
    if d.get("witness"):
        walk(d["witness"], ("witness",))
    if not lists:
        return None
    lst = _get(d, rng.choice(lists))
    i, j = rng.sample(range(len(lst)), 2)
    lst[i], lst[j] = lst[j], lst[i]
    return d


def m_flip_verdict(d, rng, others):
    choices = [v for v in ("no-hidden-symmetries", "hidden-symmetry", "unknown") if v != d["verdict"]]
    d["verdict"] = rng.choice(choices)
    if d["verdict"] == "unknown":
        d["reasons"] = [{"code": "forged", "params": {}}]
    else:
        d.pop("reasons", None)
    if d["verdict"] == "hidden-symmetry" and not d.get("witness"):
        d["witness"] = {"mechanism": "flip-set", "network": copy.deepcopy(d["network"]["embedded"]), "details": {}}
    return d


def m_drop_claim(d, rng, others):
    if not d["claims"]:
        return None
    d["claims"].pop(rng.randrange(len(d["claims"])))
    return d


def m_relabel(d, rng, others):
    """Change a claim's kind or role to another one."""
    if not d["claims"]:
        return None
    c = rng.choice(d["claims"])
    kinds = ["no-flip-set", "flip-set", "generic-stratum", "essential-stratum", "no-other-pattern", "witness",
             "paper-condition", "fibre-orbits", "empty", "deep-dead-neuron", "deep-always-active"]
    if rng.random() < 0.7:
        c["kind"] = rng.choice([k for k in kinds if k != c["kind"]])
    else:
        c["role"] = "information" if c["role"] == "verdict" else "verdict"
    return d


def m_transplant(d, rng, others):
    """Replace the claims (and witness) by those of another network's certificate of the same architecture."""
    same = [o for o in others if o["network"]["architecture"] == d["network"]["architecture"]
            and o["network"]["sha256"] != d["network"]["sha256"]]
    if not same:
        return None
    o = copy.deepcopy(rng.choice(same))
    d["claims"], d["witness"], d["verdict"] = o["claims"], o.get("witness"), o["verdict"]
    d.pop("reasons", None)
    if o.get("reasons"):
        d["reasons"] = o["reasons"]
    return d


def m_swap_network(d, rng, others):
    """Keep the claims and witness, swap the network for another of the same architecture (hash updated)."""
    same = [o for o in others if o["network"]["architecture"] == d["network"]["architecture"]
            and o["network"]["sha256"] != d["network"]["sha256"]]
    if not same:
        return None
    other = network_from_dict(rng.choice(same)["network"]["embedded"])
    return _with_sha(d, other)


def m_orbit_witness(d, rng, others):
    """Replace the witness by a permuted and rescaled copy of the network itself (inside the orbit)."""
    net = network_from_dict(d["network"]["embedded"])
    if not net.is_shallow or net.shallow().n < 1:
        return None
    t = net.shallow()
    perm = list(range(t.n))
    rng.shuffle(perm)
    from reluid.model.symmetry import GroupElement
    g = GroupElement(tuple(perm), tuple(Fraction(rng.randint(1, 5), rng.randint(1, 5)) for _ in range(t.n)))
    d["verdict"] = "hidden-symmetry"
    d.pop("reasons", None)
    d["witness"] = {"mechanism": "flip-set", "network": g.act(t).to_network(name="witness").to_dict(),
                    "details": {}}
    return d


def m_move_premise(d, rng, others):
    """Point a deep premise (or the witness claim) at another neuron of the same or another layer."""
    spots = [(c, key) for c in d["claims"] for key in ("neuron", "upstream", "downstream", "layer")
             if key in c["evidence"] and (c["kind"].startswith("deep-") or c["kind"] == "witness")]
    if not spots:
        return None
    c, key = rng.choice(spots)
    c["evidence"][key] = c["evidence"][key] + rng.choice([1, -1, 2])
    return d


def m_witness_other_neuron(d, rng, others):
    """Move a deep witness's change to another neuron: shift every changed parameter to the next row/column."""
    w = d.get("witness")
    if not w or len(w["network"]["layers"]) < 3:
        return None
    base, wit = d["network"]["embedded"]["layers"], w["network"]["layers"]
    changed = [(m, r, c) for m, (La, Lb) in enumerate(zip(base, wit)) for r, (ra, rb) in
               enumerate(zip(La["weight"], Lb["weight"])) for c, (x, y) in enumerate(zip(ra, rb)) if x != y]
    if not changed:
        return None
    m, r, c = rng.choice(changed)
    rows = wit[m]["weight"]
    nc = (c + 1) % len(rows[r])
    rows[r][nc], rows[r][c] = rows[r][c], base[m]["weight"][r][c]
    for claim in d["claims"]:
        if claim["kind"] == "deep-witness":
            claim["evidence"]["network"] = copy.deepcopy(w["network"])
    return d


MUTATIONS = {f.__name__[2:]: f for f in (m_number, m_swap_rows, m_flip_verdict, m_drop_claim, m_relabel,
                                         m_transplant, m_swap_network, m_orbit_witness, m_move_premise,
                                         m_witness_other_neuron)}


def mutants(text: str, rng: random.Random, others, count: int):
    """``count`` mutants (name, JSON text) of the certificate ``text``; ``others`` are other certificates (dicts)."""
    base = json.loads(text)
    out = []
    names = list(MUTATIONS)
    tries = 0
    while len(out) < count and tries < 20 * count:
        tries += 1
        name = rng.choice(names)
        d = MUTATIONS[name](copy.deepcopy(base), rng, others)
        if d is None:
            continue
        out.append((name, json.dumps(d)))
    return out


def parse(text: str):
    """The certificate, or None when the mutant is not even a well-formed certificate."""
    try:
        return from_json(text)
    except CertificateError:
        return None
