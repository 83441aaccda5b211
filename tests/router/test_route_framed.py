"""Untrusted text on the terminal: a file name, ref or log text that route prints never starts a line.

Under GitHub Actions a line of output that begins `::warning::` is a workflow command; anywhere,
a raw line break forges a line and a control character drives the terminal.
"""

from __future__ import annotations

import json
import re

import pytest

from lanelog.framing import framed
from tests.router.conftest import LANES_YAML
from tests.workflows.harness import workflow_commands

# What no line of output may hold raw: C0 but the line break itself, DEL, C1, the Unicode
# line and paragraph separators, and the bidi marks and overrides.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
FORGED = "tests/test_x\n::warning::pwned.py"


def assert_framed(*outputs: str) -> None:
    """No raw control character, and no workflow command as the runner reads one (both forms)."""
    for output in outputs:
        assert workflow_commands(output) == [], output
        for line in output.split("\n"):
            assert not RAW.search(line), ascii(line)


# A patch's names and removed lines that hold workflow commands of both forms, some hidden from an
# ordinal search by a character the runner's ICU search ignores (a soft hyphen, a zero-width space).
COMMAND_NAMES = ["src/test_##[stop-commands]x.py", "src/#\u00ad#[stop-commands]y.py", "src/\u00ad::warning::z.py"]
COMMAND_LINES = ["    assert ok  # ##[add-mask]secret-ish", "    assert ok  # #\u200b#[error]forged",
                 "    assert ok  # ##[set-output name=pwned]1", "    assert ok  # \u00ad::error::forged"]


def test_a_reject_under_actions_prints_no_command_but_its_own_annotations(make_repo, route, monkeypatch, tmp_path):
    body = "".join(line + "\n" for line in COMMAND_LINES)
    files = dict.fromkeys(COMMAND_NAMES, f"def f(ok):\n{body}    return ok\n")
    repo = make_repo({"lanes.yaml": LANES_YAML + '  "src/*": [prop_round_trip]\n', **files})
    repo.write(dict.fromkeys(COMMAND_NAMES, "def f(ok):\n    return ok\n")).commit()
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    done = route(repo)
    assert done.exit_code == 1 and done.line["reasons"] == ["assertion_removed"]
    assert workflow_commands(done.stdout) == []
    read = workflow_commands(done.stderr)
    # Nine removed lines annotated and the tenth annotation saying what was left out: lanelog's own, all.
    assert len(read) == 10 and {command for command, _, _ in read} == {"error"}
    assert {props["title"] for _, props, _ in read} == {"lanelog: assertion removed", "lanelog: more"}
    # On the file it names, shown framed as all the text lanelog prints (a ##[ in a name is never raw).
    assert {props.get("file") for _, props, _ in read} == {*map(framed, COMMAND_NAMES), None}
    others = [line for line in done.stderr.splitlines() if not line.startswith("::error ")]
    assert_framed("\n".join(others), done.stdout)


def test_a_file_name_with_a_line_break_cannot_forge_a_workflow_command(make_repo, route):
    repo = make_repo()
    repo.write({FORGED: "x = 1\n", "fixtures/order.fixture.json": '{"id": 2}\n'}).commit()
    done = route(repo)
    assert done.exit_code == 1
    assert_framed(done.stdout, done.stderr)
    assert "fixture_and_test: fixture fixtures/order.fixture.json and test tests/test_x\\x0a::warning::pwned.py" \
        in done.stderr
    assert FORGED in done.line["files"]  # the line keeps the name; only its display is framed


@pytest.mark.parametrize("name", ["notes\u2028::warning::x.txt", "notes\x85::error::x.txt", "bidi\u202e.txt",
                                  "esc\x1b[2J.txt", "csi\x9b2J.txt"])
def test_the_printed_line_escapes_separators_and_controls_and_still_parses(make_repo, route, log_file, name):
    repo = make_repo()
    repo.write({name: "x\n", "api.py": "def handle(payload):\n    assert payload\n    return payload or 1\n"})
    repo.commit()
    done = route(repo)
    assert_framed(done.stdout, done.stderr)
    assert name in json.loads(done.stdout)["files"]
    # The log's line too: the design note's reader splits lines with str.splitlines.
    (line,) = log_file.read_text(encoding="utf-8").splitlines()
    assert name in json.loads(line)["files"]


def test_a_runner_whose_name_holds_a_line_break_is_framed_in_its_setup_error(make_repo, route):
    repo = make_repo()
    repo.write({"api.py": "def handle(payload):\n    assert payload\n    return payload or 1\n"}).commit()
    done = route(repo, "--run", "'no-runner\n::error::pwned'")
    assert done.line["setup_error"].startswith("cannot start 'no-runner\\n::error::pwned'")
    assert_framed(done.stdout, done.stderr)


def test_a_bad_option_value_is_framed_in_the_usage_error(make_repo, cli):
    repo = make_repo()
    done = cli("--repo", str(repo.root), "--today", "2026\n::error::pwned", "--out", "/dev/null")
    assert done.returncode == 2
    assert "pwned" in done.stderr
    assert_framed(done.stdout, done.stderr)
