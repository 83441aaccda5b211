"""Every command frames what it prints: a name with a line break or a control character in it
never starts a line of output (a forged line, or under GitHub Actions a workflow command)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lanelog.cli import cli
from lanelog.cli.output import echo
from lanelog.framing import framed, framed_line
from tests.workflows.harness import workflow_commands

RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u00ad\u2028\u2029\u200b-\u200f\u202a-\u202e\u2060-\u206f"
                 "\ufeff]")
FORGE = "\n::warning::pwned"
# Commands as the runner finds them: "::" after white space, "##[" anywhere, and either hidden from
# an ordinal search by a character ICU ignores (a soft hyphen, a zero-width space, a BOM).
COMMANDS = ["::warning::a", "  \t::error::b", "\u00a0\u3000::notice::c", "\u00ad::add-mask::d", "\u200b::debug::e",
            "x ##[stop-commands]f", "#\u00ad#[error]g", "##\u200b[set-output name=x]h", "\ufeff::group::i",
            "::\u00ad:warning::j", "#\ufe0f#[add-mask]k"]


def assert_framed(*outputs: str) -> None:
    """No line holds a raw control or invisible character, and the runner reads no command in any."""
    for output in outputs:
        assert workflow_commands(output) == [], output
        for line in output.split("\n"):
            assert not RAW.search(line), ascii(line)


def run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_an_ingest_error_names_the_path_framed(tmp_path: Path) -> None:
    code, out, err = run("ingest", tmp_path / f"missing{FORGE}.jsonl", "--db", tmp_path / "db.duckdb")
    assert code == 2
    assert "missing\\x0a::warning::pwned.jsonl" in err
    assert_framed(out, err)


def test_an_ingest_lists_missing_files_named_like_commands_framed(tmp_path: Path) -> None:
    # Each listed file is a line of its own, starting with two spaces and the name the user gave.
    names = [tmp_path / "real.jsonl", *(command + ".jsonl" for command in COMMANDS)]
    (tmp_path / "real.jsonl").write_text('{"attempt_id": "a"}\n')
    code, out, err = run("ingest", *names, "--db", tmp_path / "db.duckdb")
    assert code == 2
    assert f"Error: {len(COMMANDS)} files could not be read:" in err
    assert "  \\x3a:warning::a.jsonl: no such file or folder" in err
    assert_framed(out, err)


def test_a_missing_database_is_named_framed_in_the_error(tmp_path: Path) -> None:
    code, out, err = run("report", "--db", tmp_path / f"x{FORGE}.duckdb")
    assert code == 2 and "Error: " in err
    assert_framed(out, err)


def test_the_export_summary_names_the_lake_framed(tmp_path: Path) -> None:
    log = tmp_path / "lane-log.jsonl"
    log.write_text(json.dumps({"attempt_id": "a", "ts": "2026-10-05T12:00:00Z", "probe": "pass"}) + "\n")
    db = tmp_path / "db.duckdb"
    assert run("ingest", log, "--db", db)[0] == 0
    code, out, err = run("export", "--db", db, "--lake", tmp_path / f"lake{FORGE}")
    assert code == 0, err
    assert "lake\\x0a::warning::pwned" in out
    assert_framed(out, err)


def test_a_bad_option_value_is_framed_in_clicks_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "lanelog", "report", "--since", f"2026{FORGE}"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "pwned" in done.stderr
    assert_framed(done.stdout, done.stderr)


def test_a_lane_log_with_a_hostile_repo_prints_framed_in_check_and_report(tmp_path: Path) -> None:
    log = tmp_path / "lane-log.jsonl"
    bug = {"attempt_id": f"b{FORGE}", "ts": "2026-10-05T12:00:00Z", "repo": f"svc{FORGE}\x1b[2J\u202e",
           "producer": "legacy", "probe": "pass", "quarantine": ["t"], "merge_credit": 1,
           "model_call_allowed": True}
    log.write_text(json.dumps(bug) + "\n")
    for args in (["check", log], ["check", log, "--format", "json"], ["report", log, "--format", "markdown"],
                 ["report", log], ["report", log, "--format", "json"]):
        code, out, err = run(*args)
        assert code in (0, 1), err
        assert_framed(out, err)


@pytest.mark.parametrize("text", ["a\nb", "\x1b[31m", "\x9b2J", "x\u2028y", "\u202eevil", "tab\there"])
def test_framed_shows_every_unsafe_character_escaped(text: str) -> None:
    shown = framed(text)
    assert not RAW.search(shown) and "\n" not in shown
    assert json.loads(framed(json.dumps(text, ensure_ascii=False), json=True)) == text


def test_a_document_keeps_its_own_line_ends(capsys: pytest.CaptureFixture[str]) -> None:
    echo("a,b\r\n\"x\ny\",z\r\n", nl=False, newline="\r\n")
    echo("row one\nrow\x1b two", newline="\n")
    echo("one message\nnot two")
    out = capsys.readouterr().out
    assert out == 'a,b\r\n"x\\x0ay",z\r\nrow one\nrow\\x1b two\none message\\x0anot two\n'


@pytest.mark.parametrize(("text", "shown"), [
    ("::warning::pwned", "\\x3a:warning::pwned"),
    ("  \u00a0::add-mask::x", "  \u00a0\\x3a:add-mask::x"),
    ("see ##[error]pwned ::x", "see ##\\x5berror]pwned ::x"),
])
def test_no_workflow_command_can_start_in_a_framed_line(text: str, shown: str) -> None:
    # The runner reads "::" at a line's start (after white space) and "##[" anywhere in it.
    assert framed_line(text) == shown
    assert "##[" not in framed(text)
    assert json.loads(framed(json.dumps(text, ensure_ascii=False), json=True)) == text


@pytest.mark.parametrize("text", COMMANDS)
def test_no_line_framed_whole_is_a_command_and_json_stays_json(text: str) -> None:
    for shown in (framed_line(text), framed_line(f"  {text}  ")):
        assert workflow_commands(shown) == [] and "\n" not in shown
    document = framed_line(json.dumps({"v": text}, ensure_ascii=False), json=True)
    assert workflow_commands(document) == [] and json.loads(document) == {"v": text}


@pytest.mark.parametrize("text", ["\U000e0001tag", "x\ud800y", "\u2066\u2069", "\U0001d173"])
def test_invisible_and_unwritable_characters_are_shown_escaped_and_json_parses_back(text: str) -> None:
    shown = framed(text)
    assert shown.isascii()
    shown.encode("utf-8")  # a lone surrogate could not be written to a stream
    assert json.loads(framed(json.dumps(text, ensure_ascii=False), json=True)) == text


def test_a_replay_of_hostile_names_prints_no_workflow_command(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, timeout=60)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t.invalid", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin"}
    policy = 'line_cap: 400\nbudget_cap: 3\nassertion_patterns: ["assert"]\nproperties:\n  p: {units: 1, says: x}\n' \
             'map:\n  "*": [p]\n'
    (repo / "lanes.yaml").write_text(policy, encoding="utf-8")
    (repo / "::warning::x.py").write_text("assert a\n# ##[error]pwned\n", encoding="utf-8")
    for message in ("base", "::error::y ##[warning]z"):
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env, timeout=60)
        subprocess.run(["git", "-C", str(repo), "commit", "-qm", message], check=True, env=env, timeout=60)
        (repo / "::warning::x.py").write_text("# ##[error]pwned\n", encoding="utf-8")
    for fmt in ("text", "markdown", "json"):
        code, out, err = run("replay", "--repo", repo, "--policy", repo / "lanes.yaml", "--no-baseline",
                             "--commits", "HEAD~1..HEAD", "--format", fmt)
        assert code == 0, err
        assert ("x.py" in out or fmt == "text") and "##[" not in out + err
        assert_framed(out, err)
