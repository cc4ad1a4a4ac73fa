"""One vocabulary: no module spells an enumerated name as a string literal, and no analysis words a reason.

``reluid/verdicts.py`` and ``reluid/certificates/schema.py`` define every
enumerated name (verdicts, outcomes, claim statuses, check states,
mechanisms, strata, the methods of the evidence, frames, claim kinds and
roles) as a :class:`enum.StrEnum`; everything else imports the members.  The
detector below reads the package with :mod:`ast` and reports each string
constant equal to a value of those enums outside the two defining modules.

Values with a hyphen or a space (``"dead-neuron"``, ``"not re-verified"``)
mean one thing only and are reported wherever they occur.  The values in
:data:`ORDINARY` are also ordinary words or symbols of the package (``"x"``
is a MathML identifier, ``"rank"`` and ``"undecided"`` JSON fields, ``"none"`` a CLI word), so
they are reported only where a string is used as a name: compared (``==``,
``in``), returned, given as a ``method=``/``frame=``/… argument or as the
value of such a key in a dict display, or as keys of a dict display that
holds two or more values of one vocabulary.  Docstrings and f-string text are
prose and never reported.  :data:`ALLOWED` lists, with a reason, the few
places where such a string is genuinely something else.
"""

from __future__ import annotations

import ast
import enum
from pathlib import Path

import pytest

import reluid
from reluid import verdicts
from reluid.certificates import schema

PACKAGE = Path(reluid.__file__).resolve().parent
DEFINING = {"verdicts.py", "certificates/schema.py"}

#: every string enum the two defining modules declare (a new vocabulary is checked without being listed here;
#: the integer ExitCode is checked by test_no_command_returns_a_bare_exit_integer)
VOCABULARIES = tuple(v for mod in (verdicts, schema) for v in vars(mod).values()
                     if isinstance(v, type) and issubclass(v, enum.StrEnum) and v.__module__ == mod.__name__
                     and v is not verdicts.Name)

#: vocabulary -> the enums it belongs to
VALUES: dict[str, tuple[str, ...]] = {}
for _enum in VOCABULARIES:
    for _member in _enum:
        if _member.value:
            VALUES[_member.value] = VALUES.get(_member.value, ()) + (_enum.__name__,)

#: values that are also ordinary words or symbols of the package: reported only where used as names
ORDINARY = frozenset({"a", "b", "u", "x", "none", "unknown", "found", "count", "rank", "lattice", "affine",
                      "identity", "orthant", "farkas", "empty", "generic", "proportional", "pattern", "verdict",
                      "information", "hidden", "invalid", "flip", "box", "verified", "failed", "rejected",
                      "witness", "separation", "enumerate", "exhaustive", "z3", "mitm", "constant", "dead",
                      "merge", "undecided", "orbit", "regions", "budget", "pinning", "H0", "H4"})

#: keys (of dict displays and keyword arguments) whose string values are names of a vocabulary
NAME_KEYS = frozenset({"method", "frame", "mechanism", "kind", "status", "check", "outcome", "verdict", "role",
                       "stratum", "case"})

#: (module, value): why the literal there is not the enum's name
ALLOWED = {
    ("analysis/deep/farkas.py", "farkas"): "the LP status 'farkas' (closed rows infeasible), beside 'optimal' and "
                                           "'error': the solver's word, not the premise method",
    ("analysis/deep/strict.py", "farkas"): "solve_strict's result tag ('point' or 'farkas', a Farkas certificate), "
                                           "not the premise method",
    ("analysis/deep/equivalence.py", "box"): "an equivalence region's kind (a box of inputs), not the pattern method",
    ("report/equivalence.py", "box"): "an equivalence region's kind (a box of inputs), not the pattern method",
    ("checker/deep.py", "b"): "the bias positions ('W' / 'b') of a difference between θ′ and θ, not W.3(b)",
    ("io/onnx_format.py", "affine"): "the ONNX reader's name for a Gemm/MatMul+Add node, not a stratum",
    ("io/sklearn_adapter.py", "identity"): "scikit-learn's out_activation_ 'identity', not a premise method",
    ("report/html.py", "not re-verified"): "the badge text shown for CheckState.NOT_REVERIFIED (words, which "
                                           "happen to equal the state's name)",
    ("certificates/reduction.py", "undecided"): "a key of the reduction certificate (the neurons kept), not the "
                                                "equivalence method",
    ("certificates/build.py", "no-flip-set"): "a claim id (ids read like their kind, but name one claim)",
    ("certificates/build.py", "flip-set"): "a claim id (ids read like their kind, but name one claim)",
    ("certificates/build.py", "paper-condition"): "a claim id (ids read like their kind, but name one claim)",
    ("certificates/build.py", "local-identifiability"): "a claim id (ids read like their kind, but name one claim)",
    ("certificates/build.py", "reduced-no-hidden-symmetries"): "a claim id (ids read like their kind, but name one "
                                                               "claim)",
}


def _prose(tree) -> set[int]:
    """ids of docstring constants and of the text parts of f-strings."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
        if isinstance(node, ast.JoinedStr):
            out.update(id(v) for v in node.values if isinstance(v, ast.Constant))
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            out.update(id(c) for c in ast.walk(node.value))
    return out


def _constants(node):
    """The string constants of ``node`` itself or of a tuple / list / set display it is."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _name_uses(tree) -> set[int]:
    """ids of the string constants used as names (see the module docstring)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                out.update(id(c) for c in _constants(side))
        elif isinstance(node, ast.Return) and node.value is not None:
            out.update(id(c) for c in _constants(node.value))
        elif isinstance(node, ast.keyword) and node.arg in NAME_KEYS:
            out.update(id(c) for c in _constants(node.value))
        elif isinstance(node, ast.Dict):
            keys = [k for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            for k, v in zip(node.keys, node.values):
                if k in keys and k.value in NAME_KEYS:
                    out.update(id(c) for c in _constants(v))
            for enum_name in {e for k in keys for e in VALUES.get(k.value, ())}:
                same = [k for k in keys if enum_name in VALUES.get(k.value, ())]
                if len(same) >= 2:
                    out.update(id(k) for k in same)
    return out


def offenders(source: str, module: str = "<source>") -> list[tuple[str, int, str]]:
    """(module, line, value) for every vocabulary value spelled as a literal in ``source``."""
    tree = ast.parse(source)
    prose, names = _prose(tree), _name_uses(tree)
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in prose:
            continue
        if node.value in VALUES and (node.value not in ORDINARY or id(node) in names):
            out.append((module, node.lineno, node.value))
    return sorted(out)


def _package_offenders():
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module not in DEFINING:
            yield from offenders(path.read_text(encoding="utf-8"), module)


PLANTED = [
    ('if method == "mitm":\n    pass\n', ["mitm"]),
    ('evidence = {"method": "rank", "p": 7}\n', ["rank"]),
    ('near = frame == "u"\n', ["u"]),
    ('kind = "dead-neuron"\n', ["dead-neuron"]),
    ('CLASS = {"verified": "ok", "failed": "bad"}\n', ["failed", "verified"]),
    ('claim = Claim("c", kind, "s", "r", role="information")\n', ["information"]),
    ('def w3(k):\n    return k, "b"\n', ["b"]),
    ('if status in ("not re-verified", "failed"):\n    pass\n', ["failed", "not re-verified"]),
    ('x = mi("x")\ny = row["rank"]\n', []),
    ('def f():\n    """Evidence {"method": "mitm"} and the frame "u"."""\n', []),
    ('message = f"timeout in mitm: {x}"\n', []),
    ('__all__ = ["lattice", "rank"]\n', []),
]


@pytest.mark.parametrize("source,expected", PLANTED)
def test_the_detector_finds_planted_literals(source, expected):
    assert sorted(v for _, _, v in offenders(source)) == expected


def test_no_module_spells_a_vocabulary_as_a_string():
    found = list(_package_offenders())
    bad = [f"{m}:{line}: {v!r} ({', '.join(VALUES[v])})" for m, line, v in found if (m, v) not in ALLOWED]
    assert not bad, "string literals of an enumerated name (import the enum member instead):\n" + "\n".join(bad)


def test_the_vocabularies_are_found():
    names = {v.__name__ for v in VOCABULARIES}
    assert {"Verdict", "Outcome", "ClaimStatus", "CheckState", "Mechanism", "FlipSetMethod", "FlipSearchStep",
            "EquivalenceMethod", "AlignMethod", "PatternMethod", "PremiseMethod", "ReasonCode", "Frame",
            "ClaimKind"} <= names


def test_every_allowed_literal_is_still_there():
    found = {(m, v) for m, _, v in _package_offenders()}
    assert set(ALLOWED) <= found, f"stale entries of ALLOWED: {sorted(set(ALLOWED) - found)}"


# ---- reasons are data: no analysis composes a reason in words ----

#: producers: they return verdicts.Reason values, which only reluid/report/ turns into words
PRODUCERS = ("analysis", "smt")
#: keyword arguments, dict keys and variables that hold a reason or a part of one
REASON_NAMES = frozenset({"reason", "detail", "why"})
#: lists a producer collects reasons in
REASON_LISTS = frozenset({"reasons", "notes", "undecided"})

#: (module, function): why the words composed there are not a reason of an answer
WORDS_ALLOWED = {
    ("analysis/deep/fundim.py", "upper_bound"): "the derivation of U (FunDimResult.upper_bound_reason, a note of the "
                                                "reluid.fundim/1 JSON), not why an answer is unknown",
}


def _wordy(node) -> bool:
    """Whether ``node`` builds words: a nonempty string, an f-string, a concatenation, a join, a describe()."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(node.value)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _wordy(node.left) or _wordy(node.right)
    if isinstance(node, ast.IfExp):
        return _wordy(node.body) or _wordy(node.orelse)
    if isinstance(node, ast.Lambda):
        return _wordy(node.body)
    return isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("join", "format", "describe")


def _called(func) -> str:
    return getattr(func, "attr", getattr(func, "id", ""))


def _reason_slots(node):
    """The expressions at ``node`` that hold a reason: reason=/detail=/why= arguments and dict values, the
    argument of gave_up(), the detail of SearchTimeout() and Clock.check(), what is appended to a list of
    reasons, what is assigned to reason / why, and any describe() inside a Reason(...)."""
    if isinstance(node, ast.Call):
        yield from (k.value for k in node.keywords if k.arg in REASON_NAMES)
        name = _called(node.func)
        if name == "gave_up" and node.args:
            yield node.args[0]
        if name in ("SearchTimeout", "check") and len(node.args) >= 2:
            yield node.args[1]
        if name == "append" and node.args and _called(getattr(node.func, "value", None)) in REASON_LISTS:
            arg = node.args[0]
            yield arg.elts[-1] if isinstance(arg, (ast.Tuple, ast.List)) and arg.elts else arg   # (…, why)
        if name == "Reason":
            yield from (c for c in ast.walk(node) if isinstance(c, ast.Call) and _called(c.func) == "describe")
        if name == "Hypothesis":          # a hypothesis of Theorem 8.2: what decided it and its notes
            yield from node.args[2:4]
            if len(node.args) > 3 and isinstance(node.args[3], (ast.Tuple, ast.List)):
                yield from node.args[3].elts
    elif isinstance(node, ast.Dict):
        yield from (v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value in REASON_NAMES)
    elif isinstance(node, ast.Assign):
        for t in node.targets:
            pairs = zip(t.elts, node.value.elts) if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                else [(t, node.value)]
            yield from (v for t2, v in pairs if _called(t2) in REASON_NAMES)


def worded_reasons(source: str, module: str = "<source>") -> list[tuple[str, str, int]]:
    """(module, enclosing function, line) for every reason ``source`` composes in words."""
    out = []

    def visit(node, function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        out.extend((module, function, v.lineno) for v in _reason_slots(node) if _wordy(v))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(ast.parse(source), "<module>")
    return sorted(set(out))


REASON_PLANTED = [
    ('return Answer(Outcome.UNKNOWN, reason=f"node budget of {n} exhausted")\n', 1),
    ('reasons.append(f"z3: {no.describe()}")\n', 1),
    ('reasons.append([FlipSetMethod.Z3, no.reason()])\n', 0),
    ('undecided.append((l, i, "time budget exhausted"))\n', 1),
    ('Reason(ReasonCode.FUNDIM, {"architecture": a, "detail": fd.describe()})\n', 1),
    ('Reason(ReasonCode.FUNDIM, fd.summary().params)\n', 0),
    ('self.reason = "not run"\n', 1),
    ('self.complete, self.reason = True, f"{k} regions"\n', 1),
    ('return gave_up("no zero column and no opposite pair")\n', 1),
    ('clock.check(FlipSetMethod.MITM, lambda: f"n = {n}, matching")\n', 1),
    ('clock.check(FlipSetMethod.MITM, lambda: Reason(ReasonCode.AT_MATCHING, {"n": n}))\n', 0),
    ('raise SearchTimeout("rank profile", "n = " + str(n))\n', 1),
    ('notes.append("; ".join(parts))\n', 1),
    ('eq = Equivalence(None, method=EquivalenceMethod.UNDECIDED, reason=Reason(ReasonCode.EQUIV_UNDECIDED))\n', 0),
    ('message = f"timeout after {t} s"\nlog(message)\n', 0),
    ('h = Hypothesis("H1", False, f"{n} regions",\n               ("a note",))\n', 2),
    ('h = Hypothesis("H1", True, Reason(ReasonCode.H1_COUNT, {"full": 1, "regions": 2}), notes)\n', 0),
]


@pytest.mark.parametrize("source,expected", REASON_PLANTED)
def test_the_reason_detector_finds_planted_words(source, expected):
    assert len(worded_reasons(source)) == expected


def _producer_words():
    for path in sorted(p for part in PRODUCERS for p in (PACKAGE / part).rglob("*.py")):
        yield from worded_reasons(path.read_text(encoding="utf-8"), path.relative_to(PACKAGE).as_posix())


def test_no_producer_composes_a_reason_in_words():
    """Analyses return verdicts.Reason (a ReasonCode and JSON parameters); reluid/report/reasons.py words them."""
    bad = [f"{m}:{line} (in {fn})" for m, fn, line in _producer_words() if (m, fn) not in WORDS_ALLOWED]
    assert not bad, "reasons composed in words (return a verdicts.Reason instead):\n" + "\n".join(bad)


def test_every_allowed_wording_is_still_there():
    found = {(m, fn) for m, fn, _ in _producer_words()}
    assert set(WORDS_ALLOWED) <= found, f"stale entries of WORDS_ALLOWED: {sorted(set(WORDS_ALLOWED) - found)}"


# ---- exit codes: every command returns a member of verdicts.ExitCode ----

def _int_literals(node):
    """The integer constants ``node`` is, directly or as a branch of a conditional or a value of a looked-up dict."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [node]
    if isinstance(node, ast.IfExp):
        return _int_literals(node.body) + _int_literals(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [c for v in node.values for c in _int_literals(v)]
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict):
        return [c for v in node.value.values for c in _int_literals(v)]
    return []


def bare_exit_codes(source: str, handlers: bool = True) -> list[int]:
    """Lines where an exit code is a bare integer: returned by a function (every function when ``handlers``,
    else those named ``exit_code``) or passed to an ``exit`` call."""
    out = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not (handlers or fn.name == "exit_code"):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Return) and node.value is not None:
                out += [c.lineno for c in _int_literals(node.value)]
            elif (isinstance(node, ast.Call) and node.args and getattr(node.func, "attr", getattr(node.func, "id", ""))
                  == "exit"):
                out += [c.lineno for c in _int_literals(node.args[0])]
    return sorted(set(out))


EXIT_PLANTED = [
    ("def run(args, stdout, stderr):\n    return 2\n", [2]),
    ("def run(a, o, e):\n    if a:\n        return ExitCode.OK\n    return 3 if a.x is None else 0\n", [4]),
    ("def run(a, o, e):\n    return {Outcome.NONE: 0, Outcome.FOUND: 1}[a.outcome]\n", [2]),
    ("def error(self, m):\n    self.exit(2, m)\n", [2]),
    ("def run(a, o, e):\n    return ExitCode.of(a.outcome)\n", []),
    ("def _arch(text):\n    return (*text, 1)\n", []),
    ("def weight(f):\n    return 0.2 + 0.6 * f\n", []),
]


@pytest.mark.parametrize("source,expected", EXIT_PLANTED)
def test_the_exit_code_detector_finds_planted_integers(source, expected):
    assert bare_exit_codes(source) == expected


def test_no_command_returns_a_bare_exit_integer():
    """The handlers of reluid/cli, the proofs runner and every ``exit_code`` return :class:`verdicts.ExitCode`."""
    sources = [(p, True) for p in sorted((PACKAGE / "cli").glob("*.py"))]
    sources += [(PACKAGE.parent / "proofs" / "_runner.py", True)] if (PACKAGE.parent / "proofs").is_dir() else []
    sources += [(p, False) for p in sorted(PACKAGE.rglob("*.py")) if p.parent.name != "cli"]
    bad = [f"{p.relative_to(PACKAGE.parent).as_posix()}:{line}" for p, handlers in sources
           for line in bare_exit_codes(p.read_text(encoding="utf-8"), handlers)]
    assert not bad, "bare exit integers (return a member of reluid.verdicts.ExitCode):\n" + "\n".join(bad)


def test_exit_codes_follow_the_outcomes():
    assert [verdicts.Verdict(v).exit_code for v in ("no-hidden-symmetries", "hidden-symmetry", "unknown")] == [0, 1, 3]
    assert verdicts.AuditOutcome.INVALID_INPUT.exit_code is verdicts.ExitCode.INVALID == 4
    assert [verdicts.ExitCode.of(o) for o in verdicts.Outcome] == [1, 0, 3]
    assert [verdicts.ExitCode.answer(a) for a in (True, False, None)] == [0, 1, 3]
    assert all(isinstance(o.exit_code, verdicts.ExitCode) for o in verdicts.AuditOutcome)
