"""The command's contract: exit codes, usage errors, where the log goes, concurrent appends,
and the exact shape of a line (golden files)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
NARROW = {"store.py": "def put(key, body):\n    return dict(body)\n"}


@pytest.mark.parametrize(("args", "error"), [
    (["--bogus"], "Error: No such option '--bogus'."),
    (["--today", "2026-13-01"],
     "Error: Invalid value for '--today': '2026-13-01' does not match the format '%Y-%m-%d'."),
    (["--head", "--upload-pack=touch x"],
     "Error: Invalid value for '--head': refused ref '--upload-pack=touch x': "
     "a ref must not be empty or start with '-'"),
    (["--run", "pytest 'unbalanced"],
     "Error: Invalid value for '--run': cannot split the command \"pytest 'unbalanced\": "
     "No closing quotation"),
    (["--run", "  "], "Error: Invalid value for '--run': the command is empty"),
    (["--require-hold"], "Error: --require-hold needs --run: without a lane there is no hold"),
    (["--property-timeout", "0", "--run", "true"],
     "Error: Invalid value for '--property-timeout': 0.0 is not in the range x>0."),
    (["--token-from", "stderr", "--run", "true"], "Error: Invalid value for '--token-from'"),
])
def test_usage_error_exits_2_and_logs_nothing(make_repo, route, log_file, args, error):
    repo = make_repo()
    repo.write(NARROW).commit()
    done = route(repo, *args)
    assert done.exit_code == 2
    assert error in done.stderr
    assert done.stdout == ""
    assert not log_file.exists()


def test_real_process_defaults_origin_main_cwd_log_and_folder_name(make_repo, cli, tmp_path):
    origin = tmp_path / "origin.git"
    repo = make_repo()
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(origin)], check=True)
    repo.git("remote", "add", "origin", str(origin))
    repo.git("fetch", "-q", "origin")
    repo.write(NARROW).commit()
    env = {key: value for key, value in os.environ.items() if key != "LANELOG_LOG"}
    done = cli("--today", "2026-10-08", cwd=repo.root / "tests", env=env)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert line["probe"] == "pass"
    assert line["repo"] == repo.root.name
    assert line["base"] == repo.git("rev-parse", "origin/main").strip()
    logged = (repo.root / "tests" / "lane-log.jsonl").read_text(encoding="utf-8")
    assert json.loads(logged) == line and logged.count("\n") == 1


def test_out_flag_beats_env_which_beats_default(make_repo, cli, tmp_path):
    repo = make_repo()
    repo.write({"docs/a.md": "unmapped\n"}).commit()
    env = {**os.environ, "LANELOG_LOG": str(tmp_path / "from-env.jsonl")}
    common = ["--repo", str(repo.root), "--base", "main", "--repo-name", "svc/orders"]
    first = cli(*common, cwd=tmp_path, env=env)
    second = cli(*common, "--out", str(tmp_path / "from-flag.jsonl"), cwd=tmp_path, env=env)
    assert first.returncode == second.returncode == 1
    assert json.loads((tmp_path / "from-env.jsonl").read_text())["repo"] == "svc/orders"
    assert json.loads((tmp_path / "from-flag.jsonl").read_text())["reasons"] == ["no_properties"]
    assert not (tmp_path / "lane-log.jsonl").exists()
    assert "lanelog route: probe reject: no_properties:" in first.stderr


def test_the_old_log_flag_still_appends_for_one_release_with_a_note(make_repo, cli, tmp_path):
    repo = make_repo()
    repo.write(NARROW).commit()
    log = tmp_path / "old-flag.jsonl"
    done = cli("--repo", str(repo.root), "--base", "main", "--log", str(log), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(log.read_text(encoding="utf-8")) == json.loads(done.stdout)
    assert "warning: --log is deprecated and goes in the next release; use --out FILE" in done.stderr
    assert not (tmp_path / "lane-log.jsonl").exists()


def test_out_and_the_old_log_flag_naming_two_files_is_a_usage_error(make_repo, cli, tmp_path):
    repo = make_repo()
    repo.write(NARROW).commit()
    done = cli("--repo", str(repo.root), "--base", "main", "--out", str(tmp_path / "a.jsonl"),
               "--log", str(tmp_path / "b.jsonl"), cwd=tmp_path)
    assert done.returncode == 2
    assert "Error: --out and the deprecated --log disagree" in done.stderr
    assert not (tmp_path / "a.jsonl").exists() and not (tmp_path / "b.jsonl").exists()


def test_twenty_concurrent_processes_append_twenty_whole_lines(make_repo, tmp_path):
    repo = make_repo()
    repo.write({**NARROW, "docs/long.md": "word " * 4000 + "\n"}).commit()
    log = tmp_path / "shared.jsonl"
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "lanelog", "route", "--repo", str(repo.root), "--base", "main",
             "--today", "2026-10-08", "--out", str(log), "--repo-name", f"job{index}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for index in range(20)
    ]
    codes = [proc.wait(timeout=120) for proc in procs]
    assert codes == [0] * 20, [proc.stderr.read() for proc in procs]
    raw = log.read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 20
    lines = [json.loads(text) for text in raw.decode("utf-8").splitlines()]
    assert sorted(line["repo"] for line in lines) == sorted(f"job{i}" for i in range(20))
    assert len({line["attempt_id"] for line in lines}) == 20


def test_log_that_cannot_be_written_is_an_error_and_the_line_is_still_printed(make_repo, cli,
                                                                              tmp_path):
    repo = make_repo()
    repo.write(NARROW).commit()
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("", encoding="utf-8")
    log = not_a_folder / "lane-log.jsonl"
    done = cli("--repo", str(repo.root), "--base", "main", "--out", str(log))
    assert done.returncode == 2
    assert done.stderr.startswith(f"Error: cannot append to the lane log {log}: ")
    assert json.loads(done.stdout)["probe"] == "pass"
    assert not_a_folder.read_text(encoding="utf-8") == ""


def _normalised(line: dict, repo) -> dict:
    assert re.fullmatch(r"2026-10-08T\d\d:\d\d:\d\dZ", line["ts"])
    assert re.fullmatch(r"[0-9a-f]{32}", line["attempt_id"])
    assert line["base"] == repo.git("rev-parse", "main").strip()
    assert line["head"] == repo.git("rev-parse", "HEAD").strip()
    return {**line, "ts": "<ts>", "attempt_id": "<attempt_id>", "base": "<base>", "head": "<head>"}


def _golden(name: str, line: dict) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    assert json.dumps(line, indent=2, ensure_ascii=False) + "\n" == expected


def test_golden_pass_line(make_repo, route, py_cmd):
    repo = make_repo()
    repo.write(NARROW).commit()
    line = route(repo, "--repo-name", "orders", "--run", py_cmd("print('hold')")).line
    _golden("line_pass.json", _normalised(line, repo))


def test_golden_reject_line(make_repo, route):
    repo = make_repo()
    repo.write({"docs/big.md": "".join(f"line {i}\n" for i in range(401)),
                "fixtures/order.fixture.json": "{}\n",
                "tests/test_store.py": "def test_put():\n    assert True\n    assert 2\n"}).commit()
    line = route(repo, "--repo-name", "orders").line
    _golden("line_reject.json", _normalised(line, repo))
