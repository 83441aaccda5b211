"""Hostile input through the real command: file and folder names that are not UTF-8,
regexes built to backtrack, YAML alias bombs, runners whose children escape the timeout,
a git that never returns."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
from pathlib import Path

import pytest

import lanelog.router.gitfacts
from tests.router.conftest import LANES_YAML

PATTERNS = "assertion_patterns: ['\\bassert', '\\bexpect\\(', '\\bprop_']"
STORE = {"store.py": "def put(key, body):\n    return dict(body)\n"}
API = {"api.py": "def handle(payload):\n    assert payload\n    return payload or None\n"}


def _policy(**changes: str) -> str:
    """The test policy with some of its lines replaced (old line -> new line)."""
    text = LANES_YAML
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


# -- 1. file names that are not valid UTF-8 -------------------------------------------------

def test_names_differing_in_one_undecodable_byte_are_counted_apart(make_repo, route):
    repo = make_repo({"lanes.yaml": _policy(**{"line_cap: 400": "line_cap: 100"})})
    notes = {b"notes-%c.txt" % (0x80 + index): "line\n" * 90 for index in range(10)}
    repo.write({**STORE, **notes}).commit()
    done = route(repo)
    line = done.line
    assert done.exit_code == 1
    assert line["reasons"] == ["line_cap"]
    assert line["lines_changed"] == 902
    assert line["files_count"] == 11
    shown = [rf"notes-\x{0x80 + index:x}.txt" for index in range(10)]
    assert line["files"] == shown + ["store.py"]
    assert line["message"] == ("line_cap: 902 lines changed (excluded paths left out) "
                               "> line_cap 100")


def test_a_binary_file_cannot_hide_behind_a_name_one_byte_apart(make_repo, route):
    repo = make_repo()
    repo.write({**STORE, b"logo-\x80.png": b"\x00\x01\x02", b"logo-\x81.png": "one line\n"})
    repo.commit()
    line = route(repo).line
    assert line["reasons"] == ["size_unknown"]
    assert line["files"] == ["logo-\\x80.png", "logo-\\x81.png", "store.py"]
    assert line["message"] == (r"size_unknown: binary file of unknown size: logo-\x80.png; "
                               "exclude generated paths in the policy")


def test_an_undecodable_name_is_still_matched_by_the_policy(make_repo, route):
    repo = make_repo()
    repo.write({**STORE, b"tests/test_\xff.py": "def test():\n    pass\n",
                b"fixtures/\xfe.json": "{}\n"}).commit()
    line = route(repo).line
    assert line["reasons"] == ["fixture_and_test"]
    assert line["message"] == (r"fixture_and_test: fixture fixtures/\xfe.json and test "
                               r"tests/test_\xff.py in one diff")


def test_a_policy_whose_name_is_not_utf8_is_read_from_the_base_commit(make_repo, route):
    repo = make_repo({b"ci/caf\xe9.yaml": LANES_YAML.replace("line_cap: 400", "line_cap: 1")})
    repo.write(STORE).commit()
    line = route(repo, "--policy", str(repo.root / os.fsdecode(b"ci/caf\xe9.yaml"))).line
    assert line["reasons"] == ["line_cap"]
    assert line["line_cap"] == 1


# -- 2. a repo name that is not valid UTF-8 -------------------------------------------------

def test_a_repo_name_that_is_not_utf8_is_a_usage_error(make_repo, cli, tmp_path):
    repo = make_repo()
    repo.write(STORE).commit()
    log = tmp_path / "lane-log.jsonl"
    done = cli("--repo", str(repo.root), "--base", "main", "--out", str(log),
               "--repo-name", os.fsdecode(b"svc/caf\xe9"))
    assert done.returncode == 2
    assert done.stderr.endswith(
        "Error: Invalid value for '--repo-name': svc/caf\\xe9 is not UTF-8 text\n")
    assert done.stdout == ""
    assert not log.exists()


def test_a_checkout_folder_that_is_not_utf8_needs_a_repo_name(make_repo, cli, tmp_path):
    repo = make_repo(folder=b"caf\xe9")
    repo.write(STORE).commit()
    log = tmp_path / "lane-log.jsonl"
    common = ["--repo", str(repo.root), "--base", "main", "--out", str(log)]
    refused = cli(*common)
    assert refused.returncode == 2
    assert refused.stderr == ("Error: the checkout folder's name caf\\xe9 is not UTF-8 text: "
                              "name the repo with --repo-name\n")
    assert not log.exists()
    named = cli(*common, "--repo-name", "svc/cafe")
    assert named.returncode == 0, named.stderr
    assert json.loads(named.stdout)["repo"] == "svc/cafe"
    assert json.loads(log.read_text(encoding="utf-8"))["probe"] == "pass"


def test_only_the_checkout_folder_name_matters(make_repo, cli, tmp_path):
    repo = make_repo()
    inner = repo.root / os.fsdecode(b"docs-\xff")
    inner.mkdir()
    repo.write(STORE).commit()
    done = cli("--base", "main", "--out", str(tmp_path / "lane-log.jsonl"), cwd=inner)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["repo"] == repo.root.name


def test_a_missing_base_in_a_folder_that_is_not_utf8_is_a_readable_reject(make_repo, route):
    repo = make_repo(folder=b"caf\xe9")
    repo.write(STORE).commit()
    line = route(repo, "--repo-name", "svc/cafe", base="no-such-ref").line
    assert line["reasons"] == ["base_missing"]
    assert line["message"] == ("base_missing: 'no-such-ref' names no commit in "
                               f"{repo.root.parent}/caf\\xe9; fetch it, or pass --base")


# -- 3. assertion patterns run in linear time -----------------------------------------------

def test_a_backtracking_pattern_on_a_long_removed_line_does_not_hang(make_repo, cli, tmp_path):
    hostile = "a" * 5000 + "b"
    repo = make_repo({
        "lanes.yaml": _policy(**{PATTERNS: "assertion_patterns: ['^(a+)+$']"}),
        "notes.txt": f"aaaa\n{hostile}\nkept\n",
    })
    repo.write({**STORE, "notes.txt": "kept\n"}).commit()
    log = tmp_path / "lane-log.jsonl"
    # Backtracking takes far longer than this bound; a linear scan takes milliseconds.
    done = cli("--repo", str(repo.root), "--base", "main", "--out", str(log), timeout=60)
    assert done.returncode == 1, done.stderr
    line = json.loads(done.stdout)
    assert line["reasons"] == ["assertion_removed"]
    assert line["message"] == ("assertion_removed: 1 removed line(s) match an assertion pattern, "
                               "0 come back verbatim, net change -1 (assertion_rule strict); in notes.txt")


@pytest.mark.parametrize("pattern", ["(?=assert)", "(assert)\\1"])
def test_a_pattern_the_linear_engine_cannot_run_is_policy_invalid(make_repo, route, pattern):
    repo = make_repo({"lanes.yaml": _policy(**{
        PATTERNS: f"assertion_patterns: ['\\bassert', '{pattern}']"})})
    repo.write(STORE).commit()
    done = route(repo)
    line = done.line
    assert line["reasons"] == ["policy_invalid"]
    assert line["message"].startswith(
        f"policy_invalid: lanes.yaml (base commit) line 6, key assertion_patterns[1]: "
        f"{pattern!r} is not an RE2 pattern (")
    assert line["message"].endswith(
        "); patterns run in linear time, without lookaround or backreferences")
    assert "re2.cc" not in done.stderr


# -- 4. YAML anchors and aliases ------------------------------------------------------------

def _bomb(levels: int) -> str:
    rows = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    rows += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, levels)]
    return "\n".join(rows) + "\n"


def test_an_alias_in_the_policy_is_refused_at_once(make_repo, route):
    repo = make_repo({"lanes.yaml": LANES_YAML.replace(
        'exclude: ["*.lock", "generated/"]',
        'exclude: &generated ["*.lock", "generated/"]\nfixture_paths: *generated').replace(
        'fixture_paths: ["fixtures/", "*.fixture.json"]\n', "")})
    repo.write(STORE).commit()
    line = route(repo).line
    assert line["reasons"] == ["policy_invalid"]
    assert line["message"] == (
        "policy_invalid: lanes.yaml (base commit) line 3: anchors and aliases (&name, *name) "
        "are not allowed: write the value out")


def _limited_memory() -> None:
    # Without the refusal the expansion would take gigabytes; fail fast instead.
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize(("name", "reason"), [("lanes.yaml", "policy_invalid"),
                                              ("flaky.yaml", "flaky_invalid")])
def test_an_alias_bomb_is_refused_before_it_expands(make_repo, cli, tmp_path, name, reason):
    bomb = _bomb(9)
    assert len(bomb) < 800
    text = LANES_YAML + bomb if name == "lanes.yaml" else "flaky: []\n" + bomb
    repo = make_repo({name: text})
    repo.write(STORE).commit()
    log = tmp_path / "lane-log.jsonl"
    done = cli("--repo", str(repo.root), "--base", "main", "--out", str(log), timeout=60,
               preexec_fn=_limited_memory)
    assert done.returncode == 1, done.stderr
    line = json.loads(done.stdout)
    assert line["reasons"] == [reason]
    first = text.count("\n", 0, text.index("&l0")) + 1
    assert line["message"] == (f"{reason}: {name} (base commit) line {first}: anchors and "
                               "aliases (&name, *name) are not allowed: write the value out")


def test_an_alias_in_the_flaky_list_is_refused(make_repo, route):
    flaky = ("flaky:\n  - &row {id: t1, expires: 2026-10-22, owner: ci, reason: clock}\n"
             "  - *row\n")
    repo = make_repo({"flaky.yaml": flaky})
    repo.write(STORE).commit()
    line = route(repo).line
    assert line["reasons"] == ["flaky_invalid"]
    assert line["message"] == (
        "flaky_invalid: flaky.yaml (base commit) line 2: anchors and aliases (&name, *name) "
        "are not allowed: write the value out")

def test_a_policy_nested_thousands_deep_is_policy_invalid(make_repo, route):
    repo = make_repo({"lanes.yaml": LANES_YAML + "deep: " + "[" * 5000 + "]" * 5000 + "\n"})
    repo.write(STORE).commit()
    line = route(repo).line
    assert line["reasons"] == ["policy_invalid"]
    assert line["message"] == ("policy_invalid: lanes.yaml (base commit): nested too deeply "
                               "to be a hand-written file")


# -- 5. a runner whose child escapes the timeout, and a git that hangs ----------------------

ESCAPE = """\
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"],
                         start_new_session=True, stderr=subprocess.DEVNULL)
open({pidfile!r}, "w").write(str(child.pid))
print("hold", flush=True)
if {runner_waits}:
    time.sleep(3600)
"""


@pytest.mark.parametrize("runner_waits", [True, False], ids=["runner-waits", "runner-exits"])
# The child keeps the runner's stdout (the router's pipe) open; its stderr would
# be this test's pipe, so it lets go of that one.
def test_the_timeout_bounds_a_run_whose_child_leaves_the_session(make_repo, cli, py_cmd,
                                                                 tmp_path, runner_waits):
    repo = make_repo()
    repo.write(API).commit()
    pidfile = tmp_path / "escaped.pid"
    code = ESCAPE.format(pidfile=str(pidfile), runner_waits=runner_waits)
    log = tmp_path / "lane-log.jsonl"
    try:
        # The escaped child lives for an hour: only a bounded run returns before this.
        done = cli("--repo", str(repo.root), "--base", "main", "--out", str(log),
                   "--run", py_cmd(code), "--property-timeout", "0.5", timeout=60)
    finally:
        _kill_escaped(pidfile)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert line["results"] == {"prop_reject_empty": "unresolved"}
    assert line["lane"] == "unresolved"
    assert "lanelog route: prop_reject_empty: unresolved (timed out after 0.5 s)" in done.stderr


def _kill_escaped(pidfile: Path) -> None:
    if pidfile.exists() and pidfile.read_text():
        try:
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_git_that_hangs_fails_the_attempt_with_a_line(make_repo, route, tmp_path,
                                                       monkeypatch):
    repo = make_repo()
    repo.write(STORE).commit()
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\ncase " $* " in *" diff "*) exec sleep 30;; esac\n'
                       f'exec {shutil.which("git")} "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(lanelog.router.gitfacts, "GIT_TIMEOUT", 0.5)
    line = route(repo).line
    assert line["reasons"] == ["internal_error"]
    assert line["message"] == ("internal_error: GitError: git diff did not finish within "
                               "0.5 s")
    assert line["base"] == repo.git("rev-parse", "main").strip()
