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
from lanelog.framing import framed

RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
FORGE = "\n::warning::pwned"


def assert_framed(*outputs: str) -> None:
    for output in outputs:
        for line in output.split("\n"):
            assert not line.startswith("::"), line
            assert not RAW.search(line), ascii(line)


def run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_an_ingest_error_names_the_path_framed(tmp_path: Path) -> None:
    code, out, err = run("ingest", tmp_path / f"missing{FORGE}.jsonl", "--db", tmp_path / "db.duckdb")
    assert code == 2
    assert "missing\\x0a::warning::pwned.jsonl" in err
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
