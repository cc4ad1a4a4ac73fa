"""``reluid audit --fail-on``: the exit code, the JUnit report and the summaries follow one policy."""

from __future__ import annotations

import itertools
import shutil
from xml.etree import ElementTree as ET

import pytest

from reluid.report.junit import AuditEntry, FailPolicy, generate_junit, generate_summary_markdown
from reluid.verdicts import AuditOutcome
from tests.cli.test_cli import run
from tests.paths import EXAMPLES, ROOT

ALL = [o.value for o in AuditOutcome]
POLICIES = [",".join(c) for r in range(4) for c in itertools.combinations(FailPolicy.NAMES, r)]


def _entries():
    return [AuditEntry(f"net_{o}.json", o, f"message of {o}") for o in ALL]


@pytest.mark.parametrize("flag", POLICIES)
@pytest.mark.parametrize("present", [s for r in range(1, 5) for s in itertools.combinations(ALL, r)])
def test_exit_code_and_junit_agree(flag, present):
    policy = FailPolicy.parse([flag] if flag else ["none"])
    entries = [e for e in _entries() if e.outcome in present]
    code = policy.exit_code(e.outcome for e in entries)
    suite = ET.fromstring(generate_junit(entries, policy=policy))
    failing = [o for o in present if AuditOutcome(o).policy_name in policy.fail_on]
    # the job fails exactly when JUnit has a failure or an error, with the worst failing outcome's code
    assert (code != 0) == (int(suite.get("failures")) + int(suite.get("errors")) > 0) == bool(failing)
    if failing:
        assert code == max((AuditOutcome(o) for o in failing), key=lambda o: o.severity).exit_code
    for case, o in zip(suite.iter("testcase"), present):
        tags = {c.tag for c in case} - {"properties", "system-out"}
        if o in failing:
            assert tags == {"error" if o == "invalid-input" else "failure"}
        elif o in ("unknown", "invalid-input"):
            assert tags == {"skipped"}
        else:
            assert tags == set()          # passed: no hidden symmetries, or a hidden symmetry the policy allows
    md = generate_summary_markdown(entries, policy=policy)
    assert (f"FAILED (exit {code})" if code else "passed (exit 0)") in md


def test_the_default_fails_on_hidden_and_invalid_not_unknown():
    assert FailPolicy.parse(None) == FailPolicy.parse(["hidden,invalid"]) == FailPolicy.parse(["hidden", "invalid"])
    assert FailPolicy.parse(["all"]) == FailPolicy.parse(["hidden,unknown", "invalid"])
    assert FailPolicy.parse(["none"]).fail_on == frozenset()
    for bad in (["hiden"], ["none,hidden"], ["unknown,"] + ["x"]):
        with pytest.raises(ValueError):
            FailPolicy.parse(bad)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("nets")
    for f in ("theta1.json", "deep_generic.json", "generic_2_4_1.json"):      # hidden, unknown, none
        shutil.copy2(EXAMPLES / f, d / f)
    (d / "broken.json").write_text("{")                                       # invalid input
    return d


@pytest.mark.parametrize("flags,code", [((), 4), (("--fail-on", "hidden"), 1), (("--fail-on", "unknown"), 3),
                                        (("--fail-on", "hidden", "--fail-on", "unknown"), 1),
                                        (("--fail-on", "none"), 0)])
def test_the_command_follows_the_policy(folder, tmp_path, flags, code):
    got, out, err = run("audit", str(folder), "--junit", str(tmp_path / "j.xml"), "--markdown", str(tmp_path / "s.md"),
                        "--html", str(tmp_path / "html"), *flags)
    assert got == code, err
    suite = ET.parse(tmp_path / "j.xml").getroot()
    assert suite.find("properties/property[@name='exit-code']").get("value") == str(code)
    assert (int(suite.get("failures")) + int(suite.get("errors")) > 0) == (code != 0)
    head = "4 networks: 1 with no hidden symmetries, 1 with a hidden symmetry, 1 unknown, 1 invalid input"
    assert head in out.splitlines()[-1] and head in (tmp_path / "s.md").read_text()
    assert head in (tmp_path / "html" / "index.html").read_text()
    assert "certified:" not in (tmp_path / "html" / "index.html").read_text()


def test_a_bad_policy_is_a_usage_error(folder):
    code, _, err = run("audit", str(folder), "--fail-on", "hidden,sometimes")
    assert code == 2 and "sometimes" in err and err.count("\n") == 1


def test_summary_links_resolve_or_are_absent(folder, tmp_path):
    run("audit", str(folder), "--markdown", str(tmp_path / "s.md"), "--html", str(tmp_path / "html"))
    assert "](" not in (tmp_path / "s.md").read_text()              # a job summary: no dead relative links
    run("audit", str(folder), "--markdown", str(tmp_path / "s.md"), "--html", str(tmp_path / "html"),
        "--link-base", "https://ci.example/artifacts/run-7")
    md = (tmp_path / "s.md").read_text()
    assert "](https://ci.example/artifacts/run-7/html/theta1_json.html)" in md


def test_a_batchnorm_model_names_the_flag_and_is_not_assumed(tmp_path):
    bn = ROOT / "tests" / "fixtures" / "producers" / "torch_batchnorm.onnx"
    code, out, err = run("audit", str(bn), "--markdown", str(tmp_path / "s.md"))
    assert code == 4 and "invalid-input: needs --batchnorm float32" in out and "not assumed" in out
    assert out.count(str(bn)) == 1                                  # the path is said once
    assert "Re-run with `--batchnorm float32`" in (tmp_path / "s.md").read_text()
    code, out, _ = run("audit", str(bn), "--batchnorm", "float32")
    assert code in (0, 1) and "invalid-input" not in out           # stated: certified under the stated rounding


def test_certify_junit_fails_on_unknown_as_its_exit_code_does():
    code, out, _ = run("certify", str(EXAMPLES / "deep_generic.json"), "--format", "junit")
    assert code == 3 and "<failure" in out and 'type="unknown"' in out


def test_an_internal_error_on_one_network_is_its_unknown_entry(tmp_path, monkeypatch):
    """A bug of reluid on one network (here a certify that raises) gives that network no verdict, an unknown
    entry saying "internal error", and the audit goes on: the other networks and the JUnit file are written
    (before, the whole audit stopped there and wrote no report)."""
    import reluid.api

    real = reluid.api.certify

    def certify(net, **kw):
        if net.architecture == (2, 4, 1):
            raise RuntimeError("planted")
        return real(net, **kw)

    monkeypatch.setattr(reluid.api, "certify", certify)
    junit = tmp_path / "a.xml"
    code, out, _ = run("audit", str(EXAMPLES / "theta1.json"), str(EXAMPLES / "generic_2_4_1.json"),
                       "--timeout", "10", "--junit", str(junit))
    assert "generic_2_4_1.json: unknown: internal error: RuntimeError: planted" in out
    assert "theta1.json: hidden-symmetry" in out and code == 1
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert len(cases) == 2
