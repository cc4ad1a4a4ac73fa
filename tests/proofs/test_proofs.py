"""The papers' statements (proofs/) run at their default sizes, and the committed reports are current.

The whole suite is run once per session (about ten seconds); every test reads from that run.
``pytest tests/test_proofs.py --update-golden`` rewrites reports/proofs.md and reports/proofs.json.
"""

from __future__ import annotations

from reluid.verdicts import Outcome

import io
import json
import re

import pytest

from reluid.cli.main import main
from reluid.proofs import _runner as prove
from reluid.proofs._runner import COUNTEREXAMPLE, HOLDS, UNKNOWN, ProofRun, Statement, StatementResult, StatementRun
from reluid.report.proofs import generate_proofs_json, generate_proofs_markdown, write_proofs_reports

REPORTS = prove.default_output_dir()

EXPECTED_COUNTEREXAMPLES = {
    "ramakrishnan_definition_9_literal",
    "ramakrishnan_proposition_24_converse",
    "ramakrishnan_corollary_7_printed",
    "ramakrishnan_section_6_float",
    "grigsby_lemma_D15",
    "grigsby_lemma_D15_two_hidden_layers",
}

REQUIRED = {
    "ramakrishnan_lemma_4", "ramakrishnan_lemma_5", "ramakrishnan_theorem_2", "ramakrishnan_lemma_10",
    "ramakrishnan_lemma_11", "ramakrishnan_corollary_9", "ramakrishnan_proposition_14", "ramakrishnan_lemma_17",
    "ramakrishnan_theorem_3", "ramakrishnan_proposition_24", "grigsby_lemma_4_2", "grigsby_lemma_F7",
    "grigsby_mechanism_i", "grigsby_mechanism_ii",
} | EXPECTED_COUNTEREXAMPLES


@pytest.fixture(scope="session")
def proof_run() -> ProofRun:
    return prove.run()


def _by_name(result: ProofRun) -> dict[str, StatementRun]:
    return {r.statement.name: r for r in result.runs}


# ---------------------------------------------------------------------------
# the statements
# ---------------------------------------------------------------------------

def test_every_required_statement_is_present():
    names = {s.name for s in prove.discover()}
    assert REQUIRED <= names


def test_statement_metadata_is_complete():
    for st in prove.discover():
        assert isinstance(st, Statement)
        for field in ("title", "reference", "statement", "method", "sizes"):
            assert getattr(st, field).strip(), (st.name, field)
        assert "seeds/" in st.reference
        assert st.expected == (COUNTEREXAMPLE if st.name in EXPECTED_COUNTEREXAMPLES else HOLDS), st.name


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_outcome_is_the_expected_one(proof_run, name):
    r = _by_name(proof_run)[name]
    assert r.outcome.status != UNKNOWN, r.outcome.reason
    assert r.matches, (r.outcome.proved, r.outcome.counterexample)
    assert r.outcome.proved and r.outcome.trust
    if r.outcome.status == COUNTEREXAMPLE:
        assert r.outcome.rechecked and r.outcome.counterexample


def test_exit_code_of_the_default_run(proof_run):
    assert prove.exit_code(proof_run) == 0
    assert proof_run.complete and proof_run.default


def test_statements_leave_z3_to_the_lemmas_module():
    for path in prove.proofs_dir().glob("*.py"):
        if path.name == "_lemmas.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(import z3|from z3 )", text, re.M), path


# ---------------------------------------------------------------------------
# the counterexamples, re-checked here once more from scratch
# ---------------------------------------------------------------------------

def test_D15_counterexample_rechecked():
    from reluid.proofs.grigsby_lemma_D15 import THETA1, THETA2, conditions
    from reluid.analysis.shallow.function import equivalent
    from reluid.analysis.shallow.orbit import same_orbit

    ok = conditions(THETA1)
    assert ok["generic"] and ok["supertransversal"] and ok["tpic"] and ok["lra_T"] and ok["lra_everywhere"]
    assert equivalent(THETA1, THETA2).equal
    assert same_orbit(THETA1, THETA2) is None
    # the hyperplanes meet Z where the report says (x1 + x2 = 2 at (9, -7) and (-7, 9))
    assert sorted(ok["data"]["zeros"][0]) == [(-7, 9), (9, -7)]


def test_D15_geometry_detects_a_violation():
    """A parameter whose output vanishes on a vertex is not supertransversal."""
    from reluid.proofs._framework import shallow
    from reluid.proofs.grigsby_lemma_D15 import conditions

    theta = shallow([1, 1, 1], [[1, 1], [-1, 0], [0, -1]], [-2, -1, -1], 0)   # f(vertex) = 0 at (−1, −1)
    assert not conditions(theta)["supertransversal"]
    parallel = shallow([1, 1], [[1, 0], [2, 0]], [0, 1], 0)
    assert not conditions(parallel)["generic"]


def test_definition_9_literal_counterexample_rechecked():
    from reluid.proofs.ramakrishnan_definition_9_literal import _from_model
    from reluid.analysis.shallow.function import equivalent
    from reluid.analysis.shallow.zariski import evaluate
    from reluid.proofs._lemmas import hidden_symmetry_1d

    res = hidden_symmetry_1d(2, condition="literal-def9", normalise=False, timeout=60)
    assert res.outcome is Outcome.FOUND
    theta, prime = _from_model(res.model, 2)
    assert evaluate(theta, literal_definition_9=True).outcome is Outcome.NONE
    assert evaluate(theta).outcome is Outcome.FOUND
    eq = equivalent(theta, prime)
    assert eq.equal and not eq.same_orbit


def test_proposition_24_converse_example_rechecked():
    from reluid.proofs._framework import shallow
    from reluid.api import certify, check
    from reluid.proofs._lemmas import hidden_symmetry_1d

    theta = shallow([1, 1], [1, 1], [0, 1], 0)      # σ(x) + σ(x + 1)
    cert = certify(theta)
    assert cert.verdict.value == "no-hidden-symmetries" and check(cert).valid
    assert hidden_symmetry_1d(2, condition="none", theta=([1, 1], [1, 1], [0, 1])).outcome is Outcome.NONE
    # and the search does see a hidden symmetry when there is one (θ1-like flip in one dimension)
    assert hidden_symmetry_1d(2, condition="none", theta=([2, -1], [1, 2], [0, 1])).outcome is Outcome.FOUND


def test_section_6_program_is_the_papers():
    from reluid.proofs import ramakrishnan_section_6_float as s6

    out = s6.minimalForm([2, 3, -1], [[4, 4, 4], [1, 1, 1], [5, 2, 1]], [0, 0, 0], 0)
    assert out[1][0] == [5.5, 5.5, 5.5]          # the bug: Example 1 of the paper says (11, 11, 11)
    with pytest.raises(KeyError):
        s6.minimalForm([1, 0], [[1], [0]], [0, 1], 0)


# ---------------------------------------------------------------------------
# the framework
# ---------------------------------------------------------------------------

def test_solver_unknown_is_never_holds():
    from reluid.proofs._framework import Checks
    from reluid.proofs._lemmas import LemmaResult

    c = Checks(10)
    c.z3_unsat("query", LemmaResult(Outcome.UNKNOWN, reason="timeout"))
    out = c.outcome("would hold")
    assert out.status == UNKNOWN and "timeout" in out.reason


def test_sat_where_unsat_expected_is_a_counterexample():
    from reluid.proofs._framework import Checks
    from reluid.proofs._lemmas import LemmaResult

    c = Checks(10)
    c.z3_unsat("query", LemmaResult(Outcome.FOUND, model={"v1": 1}))
    out = c.outcome("would hold")
    assert out.status == COUNTEREXAMPLE and "v1 = 1" in out.counterexample and not out.rechecked


def test_z3_timeout_gives_unknown():
    from reluid.proofs._lemmas import hidden_symmetry_1d

    res = hidden_symmetry_1d(5, timeout=0.05)
    assert res.outcome is Outcome.UNKNOWN


def test_a_crashing_check_is_reported_not_raised():
    def boom(max_n, timeout):
        raise RuntimeError("boom")

    st = Statement("x", "X", "Ramakrishnan 2026", "seeds/x", "s", "m", "n", HOLDS, boom)
    r = prove.run_statement(st)
    assert r.outcome.status == UNKNOWN and "boom" in r.outcome.reason


def test_exit_codes():
    st = Statement("x", "X", "Ramakrishnan 2026", "seeds/x", "s", "m", "n", HOLDS, lambda *a: None)
    held = StatementRun(st, StatementResult(HOLDS, "ok"))
    surprise = StatementRun(st, StatementResult(COUNTEREXAMPLE, "no", counterexample="θ"))
    unknown = StatementRun(st, StatementResult(UNKNOWN, "?", reason="timeout"))
    mk = lambda *rs: ProofRun(tuple(rs), None, 1.0, True)  # noqa: E731
    assert prove.exit_code(mk(held)) == 0
    assert prove.exit_code(mk(held, surprise)) == 1
    assert prove.exit_code(mk(held, unknown)) == 3
    assert prove.exit_code(mk(unknown, surprise)) == 1


def test_outcome_validation():
    from reluid.errors import InvalidArgument

    with pytest.raises(InvalidArgument):
        StatementResult("maybe", "x")
    with pytest.raises(InvalidArgument):
        StatementResult(COUNTEREXAMPLE, "x")
    with pytest.raises(InvalidArgument):
        StatementResult(UNKNOWN, "x")


# ---------------------------------------------------------------------------
# the command line and the reports
# ---------------------------------------------------------------------------

def test_cli_subset_writes_only_with_output_dir(tmp_path):
    out = io.StringIO()
    code = main(["prove", "grigsby_lemma_4_2", "grigsby_lemma_F*", "--output-dir", str(tmp_path)], out, io.StringIO())
    assert code == 0
    assert "2/2 statements as expected" in out.getvalue()
    doc = json.loads((tmp_path / "proofs.json").read_text(encoding="utf-8"))
    assert [s["name"] for s in doc["statements"]] == ["grigsby_lemma_4_2", "grigsby_lemma_F7"]
    assert doc["complete"] is False
    out = io.StringIO()
    assert main(["prove", "grigsby_lemma_4_2"], out, io.StringIO()) == 0
    assert "reports not written" in out.getvalue()


def test_cli_unknown_name_is_a_usage_error():
    err = io.StringIO()
    assert main(["prove", "no_such_statement"], io.StringIO(), err) == 2
    assert "no statement named" in err.getvalue()


def test_cli_list():
    out = io.StringIO()
    assert main(["prove", "--list"], out, io.StringIO()) == 0
    assert "grigsby_lemma_D15" in out.getvalue()


def test_cli_max_n_is_validated():
    with pytest.raises(SystemExit) as e:
        main(["prove", "--max-n", "0"], io.StringIO(), io.StringIO())
    assert e.value.code == 2


def test_reports_are_current(proof_run, update_golden):
    md, js = generate_proofs_markdown(proof_run), generate_proofs_json(proof_run)
    if update_golden:
        write_proofs_reports(proof_run, REPORTS)
        return
    assert (REPORTS / "proofs.md").read_text(encoding="utf-8") == md, \
        "reports/proofs.md is stale: run `python -m reluid prove` or pytest --update-golden"
    assert (REPORTS / "proofs.json").read_text(encoding="utf-8") == js, \
        "reports/proofs.json is stale: run `python -m reluid prove` or pytest --update-golden"


def test_reports_contain_no_timings(proof_run):
    import re

    for text in (generate_proofs_json(proof_run), generate_proofs_markdown(proof_run)):
        assert not re.search(r"\d\.\d+ ?s\b|seconds", text)


def test_committed_json_witnesses_recheck():
    """The networks stored in reports/proofs.json are exact and re-check with reluid's exact code."""
    from reluid.analysis.shallow.decide import decide
    from reluid.analysis.shallow.function import equivalent
    from reluid.io import parse_network

    doc = json.loads((REPORTS / "proofs.json").read_text(encoding="utf-8"))
    wit = {s["name"]: s["witnesses"] for s in doc["statements"]}
    net = lambda d: parse_network(json.dumps(d))  # noqa: E731
    for name, (a, b) in (("grigsby_lemma_D15", ("theta1", "theta2")),
                         ("ramakrishnan_definition_9_literal", ("theta", "theta_prime"))):
        eq = equivalent(net(wit[name][a]), net(wit[name][b]))
        assert eq.equal and not eq.same_orbit, name
    rigid = net(wit["ramakrishnan_proposition_24_converse"]["theta"])
    assert decide(rigid).verdict.value == "no-hidden-symmetries"
