"""gdlcheck in editors and CI: the pre-commit hook, --format junit, and shell completion."""

import os
import re
import subprocess
import sys

import junitparser
import pytest
import yaml
from click.shell_completion import ShellComplete

from gdlcheck.cli import cli
from tests.conftest import ROOT, SAMPLES, newcomer_env

# --------------------------------------------------------------------------- pre-commit


def hooks():
    return yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())


def test_the_pre_commit_hook_runs_gdlcheck_verify_on_spec_files():
    (hook,) = hooks()
    assert hook["id"] == "gdlcheck-verify" and hook["language"] == "python"
    assert hook["entry"].split()[:2] == ["gdlcheck", "verify"]
    # pre-commit installs the package, then runs its script
    scripts = (ROOT / "pyproject.toml").read_text().split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    assert re.search(rf"^{hook['entry'].split()[0]} = ", scripts.strip(), flags=re.M)
    files = re.compile(hook["files"])
    for path in ("specs/conv.yaml", "model/spec/attention.yml", "specs/sub/gcn.yaml"):
        assert files.search(path), path
    for path in (".pre-commit-config.yaml", ".github/workflows/ci.yml", "samples/conv.yaml", "specs/w.npy"):
        assert not files.search(path), path


@pytest.mark.slow
def test_the_hook_entry_passes_and_fails_as_pre_commit_would_run_it(tmp_path):
    (hook,) = hooks()
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in ("conv.yaml", "deepsets.yaml", "bias-breaks.yaml"):
        (specs / name).write_text((SAMPLES / name).read_text())
    env = newcomer_env(NO_COLOR="1", PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    command = hook["entry"].split() + hook.get("args", [])

    def run(*names):
        return subprocess.run(
            command + [f"specs/{n}" for n in names], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )

    assert run("conv.yaml", "deepsets.yaml").returncode == 0
    failing = run("conv.yaml", "bias-breaks.yaml")
    assert failing.returncode == 1 and "2 inputs: 1 hold, 1 fail" in failing.stdout


# --------------------------------------------------------------------------- junit


def junit(run, *args):
    result = run(["verify", *args, "--format", "junit"])
    return result, junitparser.JUnitXml.fromstring(result.stdout)


def test_junit_has_one_test_case_per_input(run, tmp_path):
    missing = tmp_path / "absent.csv"
    result, xml = junit(
        run, SAMPLES / "conv.yaml", SAMPLES / "bias-breaks.yaml", missing, SAMPLES / "symbolic-broken.yaml"
    )
    assert result.exit_code == 2  # the worst: an unreadable input
    (suite,) = list(xml)
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (4, 2, 1, 0)
    cases = {case.name: case for case in suite}
    assert list(cases) == [
        str(SAMPLES / "conv.yaml"),
        str(SAMPLES / "bias-breaks.yaml"),
        str(missing),
        str(SAMPLES / "symbolic-broken.yaml"),
    ]
    assert cases[str(SAMPLES / "conv.yaml")].is_passed
    (failure,) = cases[str(SAMPLES / "symbolic-broken.yaml")].result
    assert isinstance(failure, junitparser.Failure) and failure.type == "fails"
    assert "linear is not equivariant under cyclic (n=3)" in failure.message
    assert "counterexample for (0 1 2) (exact): W[2, 1] = c but W[1, 0] = b" in failure.text
    assert "would hold if: b = c" in failure.text
    (error,) = cases[str(missing)].result
    assert isinstance(error, junitparser.Error) and "cannot read: no such file or directory" in error.message
    # the error line still goes to standard error
    assert "cannot read" in result.stderr


def test_junit_reports_inconclusive_as_an_error_and_is_deterministic(run):
    result, xml = junit(run, SAMPLES.parent / "docs" / "examples" / "pooled-bias.yaml", "--method", "exact")
    assert result.exit_code == 3
    (case,) = list(list(xml)[0])
    (error,) = case.result
    assert error.type == "inconclusive" and "could not decide" in error.message
    again = run(
        ["verify", SAMPLES.parent / "docs" / "examples" / "pooled-bias.yaml", "--method", "exact", "--format", "junit"]
    )
    assert again.stdout == result.stdout


def test_junit_follows_the_ant_junit_layout(run):
    import xml.etree.ElementTree as ET

    result = run(["verify", SAMPLES / "conv.yaml", SAMPLES / "bias-breaks.yaml", "--format", "junit"])
    assert result.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites"
    (suite,) = root
    assert suite.tag == "testsuite" and {"name", "tests", "failures", "errors"} <= set(suite.attrib)
    for case in suite:
        assert case.tag == "testcase" and {"name", "classname"} <= set(case.attrib)
        assert {child.tag for child in case} <= {"failure", "error", "skipped", "system-out"}
    assert "time" not in result.stdout and "timestamp" not in result.stdout  # the same bytes every run


# --------------------------------------------------------------------------- shell completion


def completions(args, incomplete):
    complete = ShellComplete(cli, {}, "gdlcheck", "_GDLCHECK_COMPLETE")
    return [(item.value, item.type) for item in complete.get_completions(args, incomplete)]


def test_group_names_complete():
    assert [v for v, _ in completions(["derive", "--group"], "p")] == ["permutation", "p4", "p4m"]
    assert ("dihedral", "plain") in completions(["verify", "w.npy", "-g"], "")
    assert [v for v, _ in completions(["groups"], "cy")] == ["cyclic"]


def test_layer_kinds_complete():
    assert [v for v, _ in completions(["kinds"], "t")] == ["transformer_encoder"]
    assert {"gcn", "conv", "attention"} <= {v for v, _ in completions(["kinds"], "")}


def test_inputs_complete_as_files():
    assert completions(["verify"], "sam") == [("sam", "file")]
    assert completions(["derive", "--plot"], "pic") == [("pic", "file")]


@pytest.mark.slow
def test_completion_through_the_installed_script():
    env = newcomer_env(COMP_WORDS="gdlcheck kinds g", COMP_CWORD="2", _GDLCHECK_COMPLETE="bash_complete")
    script = os.path.join(os.path.dirname(sys.executable), "gdlcheck")
    out = subprocess.run([script], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.splitlines() == ["plain,gcn"]
    source = subprocess.run(
        [script], env=newcomer_env(_GDLCHECK_COMPLETE="bash_source"), capture_output=True, text=True, timeout=60
    )
    assert "_gdlcheck_completion" in source.stdout


def test_the_manual_documents_completion():
    from tests import manual

    readme = manual.everything()
    for shell in ("bash", "zsh", "fish"):
        assert f"_GDLCHECK_COMPLETE={shell}_source gdlcheck" in readme
