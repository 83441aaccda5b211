"""The property lane (issue 6): real runner processes, tokens, the lane, and its environment."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from lanelog.router import lane_for
from lanelog.router.lane import read_result

ONE_PROPERTY = {"api.py": "def handle(payload):\n    assert payload\n    return payload or None\n"}
TWO_PROPERTIES = {"store.py": "def put(key, body):\n    return dict(body)\n"}


@pytest.fixture
def patched(make_repo):
    def make(files=ONE_PROPERTY, base=None):
        repo = make_repo(base)
        repo.write(files).commit()
        return repo
    return make


@pytest.mark.parametrize(("code", "token_from", "token"), [
    ("print('hold')", "stdout", "hold"),
    ("print('fail')", "stdout", "fail"),
    ("print('checking...'); print(); print('  hold  '); print('   ')", "stdout", "hold"),
    ("print('The property probably holds, but the fixture timed out.')", "stdout", "unresolved"),
    ("print('hold'); print('on second thought, maybe not')", "stdout", "unresolved"),
    ("print('x' * 200_000); print('hold')", "stdout", "hold"),  # past the kept tail
    ("print('HOLD')", "stdout", "unresolved"),
    ("pass", "stdout", "unresolved"),                                   # empty output
    ("import sys; print('hold'); sys.exit(2)", "stdout", "unresolved"),  # did not finish
    ("import sys; print('fail'); sys.exit(1)", "stdout", "fail"),
    ("raise SystemExit(0)", "exit", "hold"),
    ("raise SystemExit(1)", "exit", "fail"),
    ("print('hold'); raise SystemExit(2)", "exit", "unresolved"),        # exit code 2
    ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "exit", "unresolved"),
])
def test_token_from_a_real_runner(patched, route, py_cmd, code, token_from, token):
    repo = patched()
    done = route(repo, "--run", py_cmd(code), "--token-from", token_from)
    line = done.line
    assert done.exit_code == 0  # the exit code stays the probe's
    assert line["results"] == {"prop_reject_empty": token}
    assert line["lane"] == token
    assert line["merge_credit"] == 0 and line["review"] == "pending"
    assert f"lanelog route: prop_reject_empty: {token}" in done.stderr


def test_timeout_stops_the_runner_and_its_children(patched, route):
    repo = patched()
    done = route(repo, "--run", "sh -c 'sleep 30; echo hold'", "--property-timeout", "0.3")
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert "timed out after 0.3 s" in done.stderr


def test_missing_command_is_unresolved(patched, route, tmp_path):
    repo = patched()
    done = route(repo, "--run", str(tmp_path / "no-such-runner") + " {property}")
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert done.line["lane"] == "unresolved"
    assert "cannot start" in done.stderr


@pytest.mark.parametrize(("tokens", "lane"), [
    ({"prop_round_trip": "hold", "prop_idempotent_put": "hold"}, "hold"),
    ({"prop_round_trip": "hold", "prop_idempotent_put": "fail"}, "fail"),
    ({"prop_round_trip": "prose", "prop_idempotent_put": "fail"}, "fail"),
    ({"prop_round_trip": "hold", "prop_idempotent_put": "prose"}, "unresolved"),
])
def test_lane_follows_the_table(patched, route, py_cmd, tokens, lane):
    repo = patched(TWO_PROPERTIES)
    code = (f"import os; t = {tokens!r}[os.environ['LANELOG_PROPERTY']]; "
            "print('it looks fine' if t == 'prose' else t)")
    done = route(repo, "--run", py_cmd(code))
    expected = {prop: ("unresolved" if token == "prose" else token)
                for prop, token in tokens.items()}
    assert list(done.line["results"].items()) == list(expected.items())  # in properties order
    assert done.line["lane"] == lane
    assert done.line["merge_credit"] == 0 and done.exit_code == 0
    held = route(repo, "--run", py_cmd(code), "--require-hold")
    assert held.exit_code == (0 if lane == "hold" else 3)


def test_rejected_probe_never_starts_the_lane(make_repo, route, py_cmd, tmp_path):
    repo = make_repo()
    repo.write({"docs/notes.md": "unmapped\n"}).commit()
    marker = tmp_path / "ran"
    done = route(repo, "--run", py_cmd(f"open({str(marker)!r}, 'w'); print('hold')"),
                 "--require-hold")
    assert done.exit_code == 1  # a reject stays a reject, even with --require-hold
    assert done.line["lane"] == "not_started" and done.line["results"] == {}
    assert not marker.exists()


def test_without_run_the_lane_is_not_started(patched, route):
    line = route(patched()).line
    assert line["probe"] == "pass"
    assert line["lane"] == "not_started" and line["results"] == {}


def test_a_quarantined_id_listed_in_the_map_is_not_run(patched, route, py_cmd, tmp_path):
    flaky = ("flaky:\n  - {id: prop_idempotent_put, expires: 2026-10-22, owner: ci-team,\n"
             "     reason: shared clock in the export fixture}\n")
    repo = patched(TWO_PROPERTIES, {"flaky.yaml": flaky})
    ran = tmp_path / "ran.txt"
    code = (f"import os; open({str(ran)!r}, 'a').write(os.environ['LANELOG_PROPERTY'] + '\\n'); "
            "print('hold')")
    line = route(repo, "--run", py_cmd(code)).line
    assert line["properties"] == ["prop_round_trip", "prop_idempotent_put"]
    assert line["quarantine"] == ["prop_idempotent_put"]
    assert line["results"] == {"prop_round_trip": "hold"}
    assert ran.read_text() == "prop_round_trip\n"
    assert line["lane"] == "hold" and line["merge_credit"] == 0


def test_a_lane_where_every_property_is_quarantined_is_unresolved(patched, route, py_cmd):
    flaky = "flaky:\n  - {id: prop_reject_empty, expires: 2026-10-22, owner: ci, reason: r}\n"
    repo = patched(ONE_PROPERTY, {"flaky.yaml": flaky})
    line = route(repo, "--run", py_cmd("print('hold')")).line
    assert line["results"] == {}
    assert line["lane"] == "unresolved"  # a quarantine can delay a signal, never create one


DUMP = ("import json, os, sys; "
        "env = {k: v for k, v in os.environ.items() if k.startswith('LANELOG_')}; "
        "env['cwd'] = os.getcwd(); env['argv'] = sys.argv[1:]; "
        "env['patch'] = open(env['LANELOG_PATCH_FILE']).read(); "
        "open(sys.argv[1], 'w').write(json.dumps(env)); print('hold')")


def test_the_runner_environment(patched, route, py_cmd, tmp_path):
    repo = patched(TWO_PROPERTIES)
    out = tmp_path / "env-{property}.json"
    line = route(repo, "--run", py_cmd(DUMP) + f" {out} 'id is {{property}}; $(touch pwned)'").line
    first = json.loads((tmp_path / "env-prop_round_trip.json").read_text())
    second = json.loads((tmp_path / "env-prop_idempotent_put.json").read_text())
    assert first["LANELOG_PROPERTY"] == "prop_round_trip"
    assert first["LANELOG_PROPERTY_SAYS"] == "serialize-then-parse returns the same record"
    assert second["LANELOG_PROPERTY_SAYS"] == (
        "a second put of the same key does not change the stored body")
    assert first["LANELOG_ATTEMPT_ID"] == line["attempt_id"]
    assert first["cwd"] == str(repo.root)
    assert first["argv"] == [str(tmp_path / "env-prop_round_trip.json"),
                             "id is prop_round_trip; $(touch pwned)"]
    assert not (repo.root / "pwned").exists() and not (tmp_path / "pwned").exists()
    assert "-    return body\n+    return dict(body)\n" in first["patch"]
    assert "diff --git a/store.py b/store.py" in first["patch"]
    assert not Path(first["LANELOG_PATCH_FILE"]).exists()  # removed after the lane
    assert len(first["LANELOG_FIXTURE_HASH"]) == 64
    assert first["LANELOG_FIXTURE_HASH"] == second["LANELOG_FIXTURE_HASH"]


def test_fixture_hash_changes_when_a_fixture_changes(patched, route, py_cmd, tmp_path):
    repo = patched(TWO_PROPERTIES)
    out = tmp_path / "env.json"
    command = py_cmd(DUMP) + f" {out}"
    route(repo, "--run", command)
    before = json.loads(out.read_text())["LANELOG_FIXTURE_HASH"]
    repo.write({"README.md": "not a fixture\n"}).commit()
    route(repo, "--run", command)
    assert json.loads(out.read_text())["LANELOG_FIXTURE_HASH"] == before
    repo.write({"fixtures/order.fixture.json": '{"id": 2}\n'}).commit()
    line = route(repo, "--run", command).line
    assert line["probe"] == "pass"
    assert json.loads(out.read_text())["LANELOG_FIXTURE_HASH"] != before


def test_read_result_and_lane_for_directly():
    assert read_result("stdout", 0, b"\xff\xfe garbage\nfail\n")[:2] == ("fail", "")
    assert read_result("stdout", -9, b"hold\n")[0] == "unresolved"
    assert read_result("exit", 3, b"")[0] == "unresolved"
    assert lane_for({}) == "unresolved"
    assert lane_for({"a": "hold", "b": "unresolved", "c": "fail"}) == "fail"


def test_a_child_the_runner_leaves_behind_cannot_hold_routes_own_pipes(patched, tmp_path):
    """The runner gets pipes of its own, relayed by route: a child it starts in a new
    session (setsid) and leaves running holds only those, never route's stdout or stderr."""
    repo = patched()
    pid_file = tmp_path / "leftover.pid"
    runner = (f"sh -c 'setsid sleep 25 & echo $! > {pid_file}; "
              "echo checking the property >&2; echo hold'")
    proc = subprocess.Popen([sys.executable, "-m", "lanelog", "route", "--repo", str(repo.root),
                             "--base", "main", "--today", "2026-10-08", "--out", str(tmp_path / "log.jsonl"),
                             "--run", runner, "--property-timeout", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The leftover sleep lives 25 s: reaching the end of both pipes well before that
        # means nothing but route held them.
        stdout, stderr = proc.communicate(timeout=20)
    finally:
        proc.kill()
        proc.wait()
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert proc.returncode == 0, stderr
    # The runner's pipes stay open while its child lives: the run is bounded by the timeout.
    assert json.loads(stdout)["results"] == {"prop_reject_empty": "unresolved"}
    assert "prop_reject_empty: unresolved (timed out after 1 s)" in stderr
    assert "checking the property" in stderr  # the runner's stderr is relayed, not lost
