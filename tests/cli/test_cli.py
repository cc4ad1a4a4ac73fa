"""The command line: exit codes, one-line errors, and the round trip certify → check."""

import io
import json
import os

import pytest

from reluid.cli.main import main
from tests.paths import EXAMPLES

EX = str(EXAMPLES)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def ex(name):
    return os.path.join(EX, name)


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and "reluid" in capsys.readouterr().out
    for cmd in ("certify", "check", "equiv", "minimal", "stabilizer", "conditions", "audit"):
        with pytest.raises(SystemExit) as e:
            main([cmd, "--help"])
        assert e.value.code == 0


def test_every_option_of_every_command_is_described():
    import argparse

    from reluid.cli.main import COMMANDS, build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(sub.choices) == sorted(COMMANDS)
    missing = [(name, a.option_strings or a.dest) for name, sp in sub.choices.items() for a in sp._actions
               if not isinstance(a, argparse._HelpAction) and (not a.help or a.help == argparse.SUPPRESS)]
    assert missing == []
    for name in COMMANDS:
        with pytest.raises(SystemExit) as e:
            main([name, "--help"])
        assert e.value.code == 0


def test_certify_and_check_round_trip(tmp_path):
    cert = tmp_path / "c.json"
    code, out, _ = run("certify", ex("theta1.json"), "-o", str(cert))
    assert code == 1 and "HIDDEN-SYMMETRY" in out and "Σ_{i∈F} m_i a_iᵀ" in out
    code, out, _ = run("check", str(cert))
    assert code == 0 and out.startswith("VALID")
    code, out, err = run("check", str(cert), "--network", ex("theta2.json"))   # another network: wrong input
    assert code == 4 and "is not the network" in err and err.count("\n") == 1
    code, out, _ = run("certify", ex("generic_2_4_1.json"), "--format", "md")
    assert code == 0 and out.startswith("# reluid certificate")
    for fmt in ("html", "json", "junit", "text"):
        code, out, _ = run("certify", ex("sum_two_kinks.json"), "--format", fmt)
        assert code == 0 and out


def test_equiv(tmp_path):
    code, out, _ = run("equiv", ex("theta1.json"), ex("theta2.json"))
    assert code == 0 and "different H_n-orbits" in out
    code, out, _ = run("equiv", ex("theta1.json"), ex("theta1.json"))
    assert code == 0 and "same H_n-orbit" in out
    code, out, _ = run("equiv", ex("theta1.json"), ex("generic_2_4_1.json"))
    assert code == 1 and "x = (" in out


def test_minimal_and_stabilizer():
    code, out, _ = run("minimal", ex("theta1.json"))
    assert code == 0 and json.loads(out)["format"] == "reluid.network/1"
    code, out, _ = run("stabilizer", ex("theta1.json"))
    assert code == 0 and "trivial" in out


def test_conditions():
    code, out, _ = run("conditions", "--arch", "1,2,1")
    assert code == 0 and "V4" in out
    code, out, _ = run("conditions", "--at", ex("sum_two_kinks.json"))
    assert code == 1 and "FAILS" in out


@pytest.mark.parametrize("content, suffix", [
    ("{not json", ".json"),
    ('{"format": "other"}', ".json"),
    ('{"format": "reluid.network/1", "layers": [{"weight": [[1, 2], [3]], "bias": [0, 0]}]}', ".json"),
    ('{"format": "reluid.network/1", "layers": [{"weight": [[NaN]], "bias": [0]}]}', ".json"),
    ("hello", ".txt"),
    ("PK\x03\x04garbage", ".npz"),
    ("garbage", ".onnx"),
    ("garbage", ".safetensors"),
])
def test_bad_input_gives_one_line_and_exit_4(tmp_path, content, suffix):
    p = tmp_path / f"bad{suffix}"
    p.write_text(content)
    for cmd in (["certify", str(p)], ["minimal", str(p)], ["equiv", str(p), str(p)], ["audit", str(p)]):
        code, out, err = run(*cmd)
        if cmd[0] == "audit":
            assert code == 4 and "invalid-input" in out
            continue
        assert code == 4, (cmd, err)
        assert err.count("\n") == 1 and "bad" in err and "Traceback" not in err


def test_missing_file_and_bad_certificate(tmp_path):
    code, _, err = run("certify", str(tmp_path / "nope.json"))
    assert code == 4 and err.count("\n") == 1
    p = tmp_path / "c.json"
    p.write_text('{"format": "reluid.certificate/1", "verdict": 0.5}')
    code, _, err = run("check", str(p))
    assert code == 4 and err.count("\n") == 1
    p.write_text('{"format": "reluid.alignment/1"}')
    code, _, err = run("check", str(p))
    assert code == 4 and err.count("\n") == 1 and "reluid align --verify" in err


def test_audit_reports(tmp_path):
    junit, md = tmp_path / "j.xml", tmp_path / "s.md"
    code, out, _ = run("audit", EX, "--junit", str(junit), "--markdown", str(md),
                       "--certificates", str(tmp_path / "certs"), "--html", str(tmp_path / "html"))
    assert code == 1   # theta1 has a hidden symmetry; no invalid inputs among the examples
    x = junit.read_text()
    assert "<testsuite" in x and "<failure" in x
    assert "| network |" in md.read_text()
    certs = os.listdir(tmp_path / "certs")
    assert certs and all(run("check", str(tmp_path / "certs" / c))[0] == 0 for c in certs)


def test_fundim_exact_cells_keeps_the_time_budget():
    """``reluid fundim --exact-cells --timeout S`` hands its cell enumeration what is left of S (it ran without
    one: a 1-100-1 network's enumeration went on past a minute); with almost nothing left it stops at once and says so,
    a lower bound and exit 3, where without the budget the cells of the same network give dim_fun = U."""
    code, out, _ = run("fundim", ex("deep_generic.json"), "--exact-cells")
    assert code == 0 and "dim_fun = " in out
    code, out, _ = run("fundim", ex("deep_generic.json"), "--exact-cells", "--timeout", "1e-9")
    assert code == 3 and "cell enumeration incomplete: timeout after 0 nodes" in out and "dim_fun >= " in out


def test_an_entry_past_the_double_range_is_invalid_input(tmp_path):
    """Exact entries are read exactly, but every command but ``check`` searches with a float copy of the
    network: an entry past about 1.8e308 (here 10^309 in the output layer) is refused with one line and exit 4
    (it crashed certify, fundim and minimal with an OverflowError); 10^100 still reads."""
    net = {"format": "reluid.network/1", "layers": [{"weight": [[1], [2]], "bias": [0, 1]},
                                                    {"weight": [[10**309, 1]], "bias": [0]}]}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(net))
    for cmd in (["certify", "--timeout", "5"], ["fundim"], ["minimal"]):
        code, out, err = run(cmd[0], str(path), *cmd[1:])
        assert code == 4 and out == "" and len(err.strip().splitlines()) == 1
        assert "W^2[1, 1] is beyond the range of IEEE double" in err
    net["layers"][1]["weight"][0][0] = 10**100
    path.write_text(json.dumps(net))
    assert run("certify", str(path), "--timeout", "5")[0] in (0, 1, 3)


@pytest.mark.parametrize("layers, command, layer", [
    ([{"weight": [], "inputs": 2, "bias": []}, {"weight": [[]], "bias": [1]}], ["fundim"], 1),
    ([{"weight": [], "inputs": 2, "bias": []}, {"weight": [[]], "bias": [1]}], ["fundim", "--triangular"], 1),
    ([{"weight": [[1, 2], [3, -1], [0, 1]], "bias": [0, 1, 2]}, {"weight": [], "inputs": 3, "bias": []},
      {"weight": [[]], "bias": [1]}], ["certify", "--timeout", "5"], 2),
])
def test_an_empty_hidden_layer_is_refused_by_the_analyses_that_need_it(tmp_path, layers, command, layer):
    """A hidden layer of width 0 makes the network constant past it. One hidden layer of width 0 is the shallow
    n = 0 case that certify decides; the functional dimension and the deep analyses refuse it as invalid input
    with one line (they answered exit 2, "not an architecture", or crashed with an internal error)."""
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"format": "reluid.network/1", "layers": layers}))
    code, out, err = run(command[0], str(path), *command[1:])
    assert code == 4 and out == "" and len(err.strip().splitlines()) == 1
    assert f"hidden layer {layer} of" in err and "has no neurons" in err


def test_no_hidden_neurons_is_the_shallow_case_certify_decides(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"format": "reluid.network/1", "layers": [
        {"weight": [], "inputs": 2, "bias": []}, {"weight": [[]], "bias": [1]}]}))
    code, out, _ = run("certify", str(path), "--timeout", "5")
    assert code == 0 and "NO-HIDDEN-SYMMETRIES" in out


@pytest.mark.parametrize("argv, message", [
    (["certify", "theta1.json", "--seed", "-1"], "argument --seed: must be an integer >= 0: '-1'"),
    (["fundim", "theta1.json", "--seed", "x"], "argument --seed: not an integer: 'x'"),
    (["check", "theta1.json", "--work-limit", "-1"], "argument --work-limit: must be an integer >= 0: '-1'"),
    (["certify", "theta1.json", "--memory-gb", "0"], "argument --memory-gb: must be a positive number of GB: '0'"),
])
def test_bad_numbers_of_options_are_usage_errors(argv, message, capsys):
    """A negative seed crashed certify in numpy (an internal error), a negative work limit was taken as one, and
    --memory-gb spoke of seconds."""
    with pytest.raises(SystemExit) as e:
        main([argv[0], ex(argv[1]), *argv[2:]])
    assert e.value.code == 2 and message in capsys.readouterr().err
