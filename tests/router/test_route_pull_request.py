"""`lanelog route` names the change an attempt belongs to: its pull request, its agent, its CI run.

Under GitHub Actions they come from the event payload and the run's variables, elsewhere from
options; each is absent when unknown.  A payload or variable that cannot be used leaves its
field out with one note, and the route goes on: the patch is still bounded and logged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.router import github_payloads as gh
from tests.router.test_route_github import runner_reads

NARROW = {"store.py": "def put(key, body):\n    return dict(body)\n"}
PULL_REQUEST = {"repository": gh.REPOSITORY, "number": gh.NUMBER,
                "url": f"https://github.com/{gh.REPOSITORY}/pull/{gh.NUMBER}"}
CI_RUN = {"id": "9876543210", "attempt": 2,
          "url": f"https://github.com/{gh.REPOSITORY}/actions/runs/9876543210/attempts/2"}
CHANGE = ("pull_request", "agent", "ci_run")


@pytest.fixture
def patch(make_repo):
    repo = make_repo()
    repo.write(NARROW).commit("Copy the body on put")
    return repo


@pytest.fixture
def on_actions(monkeypatch, tmp_path):
    """A GitHub Actions job on a pull_request event: the payload at $GITHUB_EVENT_PATH and the run's variables."""

    def start(payload: object | None = None, path: Path | None = None, **variables: str) -> Path:
        event = path or tmp_path / "event.json"
        if payload is not None:
            event.write_text(json.dumps(payload), encoding="utf-8")
        for name, value in {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(event),
                            "GITHUB_REPOSITORY": gh.REPOSITORY, "GITHUB_SERVER_URL": "https://github.com",
                            "GITHUB_RUN_ID": "9876543210", "GITHUB_RUN_ATTEMPT": "2", **variables}.items():
            monkeypatch.setenv(name, value)
        return event

    return start


def test_under_actions_the_line_names_the_pull_request_its_author_and_the_run(patch, route, on_actions):
    on_actions(gh.event("synchronize", merged=False, state="open", closed_at=None))
    done = route(patch, "--annotations", "never")
    assert (done.exit_code, done.stderr) == (0, "")
    line = done.line
    assert line["pull_request"] == PULL_REQUEST
    assert line["agent"] == "copilot-swe-agent[bot]"
    assert line["ci_run"] == CI_RUN
    assert list(line)[-3:] == list(CHANGE)  # after the decision's fields, schema 1 all the same
    assert line["schema"] == 1 and line["probe"] == "pass"


def test_agent_overrides_the_pull_requests_author(patch, route, on_actions):
    on_actions(gh.event("opened", merged=False, state="open", closed_at=None))
    line = route(patch, "--agent", "Copilot coding agent").line
    assert (line["agent"], line["pull_request"]["number"]) == ("Copilot coding agent", gh.NUMBER)


def test_pull_request_target_events_carry_the_pull_request_too(patch, route, on_actions):
    # pull_request_target runs in the base repository with the same payload shape.
    on_actions(gh.event("labeled", merged=False, state="open", closed_at=None))
    assert route(patch).line["pull_request"] == PULL_REQUEST


def test_an_event_without_a_pull_request_names_only_the_run(patch, route, on_actions):
    on_actions({"ref": "refs/heads/main", "before": gh.BASE, "after": gh.HEAD, "repository": gh.repository(),
                "pusher": {"name": "alice"}, "sender": gh.ALICE})
    done = route(patch)
    assert done.stderr == ""  # nothing is wrong: a push has no pull request
    assert [key for key in CHANGE if key in done.line] == ["ci_run"]


def test_off_actions_nothing_is_read_and_nothing_is_guessed(patch, route, tmp_path, monkeypatch):
    event = tmp_path / "event.json"
    event.write_text(json.dumps(gh.merged_by_a_person()), encoding="utf-8")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))  # without GITHUB_ACTIONS=true: not a runner
    monkeypatch.setenv("GITHUB_RUN_ID", "12")
    done = route(patch)
    assert done.stderr == "" and not set(CHANGE) & set(done.line)


def test_options_name_the_change_elsewhere(patch, route):
    line = route(patch, "--pull-request", "7", "--repository", "acme/orders", "--pull-request-url",
                 "https://git.example.org/acme/orders/-/merge_requests/7", "--agent", "codex",
                 "--ci-run-url", "https://ci.example.org/acme/orders/jobs/88").line
    assert {key: line[key] for key in CHANGE} == {
        "pull_request": {"repository": "acme/orders", "number": 7,
                         "url": "https://git.example.org/acme/orders/-/merge_requests/7"},
        "agent": "codex", "ci_run": {"url": "https://ci.example.org/acme/orders/jobs/88"}}


def test_options_override_the_event_and_the_run_and_take_the_runs_repository(patch, route, on_actions):
    on_actions(gh.event("opened", merged=False, state="open", closed_at=None))
    line = route(patch, "--pull-request", "9", "--ci-run-url", "https://ci.example.org/run/1").line
    assert line["pull_request"] == {"repository": gh.REPOSITORY, "number": 9}
    assert line["agent"] == "copilot-swe-agent[bot]"  # still the event's: --agent was not given
    assert line["ci_run"] == {"url": "https://ci.example.org/run/1"}


def test_without_the_server_url_the_run_has_no_url(patch, route, on_actions, monkeypatch):
    on_actions(gh.event("opened", merged=False, state="open", closed_at=None))
    monkeypatch.delenv("GITHUB_SERVER_URL")
    assert route(patch).line["ci_run"] == {"id": "9876543210", "attempt": 2}


def _bad_event(kind: str, path: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)  # no writer: a blocking read would wait for ever
    elif kind == "folder":
        path.mkdir()
    elif kind == "not JSON":
        path.write_text('{"pull_request": {"number": 42', encoding="utf-8")
    elif kind == "not UTF-8":
        path.write_bytes(b'{"pull_request": {"number": 42, "user": {"login": "caf\xe9"}}}')
    elif kind == "NaN":
        path.write_text('{"pull_request": {"number": NaN}}', encoding="utf-8")
    elif kind == "huge":
        with path.open("wb") as out:
            out.truncate(25 * 1024 * 1024 + 1)  # sparse: its size alone refuses it
    elif kind == "an array":
        path.write_text("[]", encoding="utf-8")


@pytest.mark.parametrize(("kind", "why"), [
    ("fifo", "is not a regular file (a FIFO, a device or a socket)"),
    ("folder", "is a folder, not a file"),
    ("missing", "cannot be read (No such file or directory)"),
    ("not JSON", "is not JSON (line 1, column 31: Expecting ',' delimiter)"),
    ("not UTF-8", "is not UTF-8 text (byte 54)"),  # the é of caf\xe9
    ("NaN", "is not JSON (NaN is not a JSON number)"),
    ("huge", "is larger than 26214400 bytes"),
    ("an array", "is not a JSON object"),
])
def test_an_event_file_that_cannot_be_read_leaves_the_pull_request_out_and_the_route_goes_on(
        patch, cli, tmp_path, kind, why):
    event = tmp_path / "event.json"
    _bad_event(kind, event)
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(event), "GITHUB_RUN_ID": "5",
           "GITHUB_RUN_ATTEMPT": "1"}
    done = cli("--repo", str(patch.root), "--base", "main", "--out", str(tmp_path / "log.jsonl"), env=env,
               timeout=60)
    assert done.returncode == 0
    assert done.stderr == f"lanelog route: pull_request and agent left out: $GITHUB_EVENT_PATH ({event}): {why}\n"
    line = json.loads(done.stdout)
    assert line["probe"] == "pass" and line["ci_run"] == {"id": "5", "attempt": 1}
    assert "pull_request" not in line and "agent" not in line


TEN_MB = "x" * (10 * 1024 * 1024)


@pytest.mark.parametrize(("change", "field", "note"), [
    ({"user": {"login": "bot\x1b[2J", "type": "Bot"}}, "agent",
     "key pull_request.user.login: holds the control, separator or bidi character U+001B"),
    ({"user": {"login": "\u202etob", "type": "Bot"}}, "agent",
     "key pull_request.user.login: holds the control, separator or bidi character U+202E"),
    ({"user": {"login": "a\u2028b", "type": "Bot"}}, "agent",
     "key pull_request.user.login: holds the control, separator or bidi character U+2028"),
    ({"user": {"login": "\ud800", "type": "Bot"}}, "agent",
     "key pull_request.user.login: holds the control, separator or bidi character U+D800"),
    ({"user": {"login": TEN_MB, "type": "Bot"}}, "agent",
     "key pull_request.user.login: must be 1 to 100 characters, not 10485760"),
    ({"user": {"login": 42, "type": "Bot"}}, "agent", "key pull_request.user.login: must be a string, not a number"),
    ({"user": None}, "agent", "key pull_request.user: must be an object, not null"),
    ({"number": "42"}, "pull_request",
     "key pull_request.number: must be a whole number from 1 to 2147483647, not a string of 2 characters"),
    ({"number": 2**31}, "pull_request", "key pull_request.number: must be a whole number from 1 to 2147483647"),
    ({"number": True}, "pull_request",
     "key pull_request.number: must be a whole number from 1 to 2147483647, not a boolean"),
    ({"html_url": "javascript:alert(1)//https://github.com"}, "pull_request",
     "key pull_request.html_url: must be an http or https URL with a host and no credentials"),
    ({"html_url": "https://ghp_secret@github.com/x"}, "pull_request",
     "key pull_request.html_url: must be an http or https URL with a host and no credentials"),
    ({"html_url": TEN_MB}, "pull_request",
     "key pull_request.html_url: must be an http or https URL of at most 2048 printable ASCII characters"),
])
def test_a_hostile_field_of_the_event_leaves_its_field_out_with_one_note(patch, route, on_actions, change, field,
                                                                         note):
    payload = gh.event("opened", merged=False, state="open", closed_at=None)
    payload["pull_request"].update(change)
    event = on_actions()
    event.write_text(json.dumps(payload), encoding="utf-8")  # ensure_ascii: a lone surrogate as its escape
    done = route(patch, "--annotations", "never")
    assert done.exit_code == 0
    assert done.stderr == f"lanelog route: {field} left out: $GITHUB_EVENT_PATH ({event}), {note}\n"
    line = done.line
    assert field not in line and line["ci_run"] == CI_RUN
    assert {"pull_request", "agent"} - {field} <= set(line)


def test_a_repository_that_breaks_githubs_rules_leaves_the_pull_request_out(patch, route, on_actions):
    payload = gh.event("opened", merged=False, state="open", closed_at=None)
    payload["repository"]["full_name"] = "octo-org/../../etc"
    event = on_actions(payload)
    done = route(patch)
    assert done.stderr == (f"lanelog route: pull_request left out: $GITHUB_EVENT_PATH ({event}), key "
                           "repository.full_name: must be OWNER/NAME, each part 1 to 100 letters, digits, '.', '_' "
                           "or '-'\n")
    assert "pull_request" not in done.line and done.line["agent"] == "copilot-swe-agent[bot]"


@pytest.mark.parametrize(("variables", "note"), [
    ({"GITHUB_RUN_ID": "12; rm -rf /"}, "$GITHUB_RUN_ID: must be 1 to 20 digits"),
    ({"GITHUB_RUN_ATTEMPT": "0"}, "$GITHUB_RUN_ATTEMPT: must be a whole number from 1 to 2147483647"),
    ({"GITHUB_RUN_ATTEMPT": "two"}, "$GITHUB_RUN_ATTEMPT: must be a whole number from 1 to 2147483647"),
    ({"GITHUB_SERVER_URL": "https://github.com/evil?x=1"},
     "$GITHUB_SERVER_URL: must be the server's address alone, such as https://github.com"),
    ({"GITHUB_SERVER_URL": "file:///etc"},
     "$GITHUB_SERVER_URL: must be an http or https URL with a host and no credentials"),
])
def test_a_bad_run_variable_leaves_the_run_out_with_one_note(patch, route, on_actions, variables, note):
    on_actions(gh.event("opened", merged=False, state="open", closed_at=None), **variables)
    done = route(patch)
    assert done.stderr == f"lanelog route: ci_run left out: {note}\n"
    assert "ci_run" not in done.line and done.line["pull_request"] == PULL_REQUEST


def test_a_forged_workflow_command_in_a_login_stays_data(patch, on_actions, tmp_path):
    payload = gh.event("opened", merged=False, state="open", closed_at=None)
    payload["pull_request"]["user"]["login"] = "::error::forged"
    event = on_actions(payload)
    done = subprocess.run([sys.executable, "-m", "lanelog", "route", "--repo", str(patch.root), "--base", "main",
                           "--out", str(tmp_path / "log.jsonl"), "--annotations", "always"],
                          capture_output=True, timeout=120, env={**os.environ, "GITHUB_EVENT_PATH": str(event)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["agent"] == "::error::forged"
    assert runner_reads(done.stdout) == runner_reads(done.stderr) == []


@pytest.mark.parametrize(("args", "error"), [
    (["--pull-request", "0"], "Error: Invalid value for '--pull-request': 0 is not in the range 1<=x<=2147483647."),
    (["--pull-request", "7"],
     "Error: --pull-request needs --repository OWNER/NAME (or $BITBUCKET_REPO_FULL_NAME under Bitbucket "
     "Pipelines or $GITHUB_REPOSITORY under GitHub Actions or $CI_MERGE_REQUEST_PROJECT_PATH under GitLab CI)"),
    (["--repository", "acme/orders"],
     "Error: --repository and --pull-request-url describe a --pull-request N: give it too"),
    (["--pull-request", "7", "--repository", "acme"],
     "Error: Invalid value for '--repository': must be OWNER/NAME, each part 1 to 100 letters, digits, '.', '_' "
     "or '-'"),
    (["--pull-request", "7", "--repository", "a/b", "--pull-request-url", "ftp://example.org/7"],
     "Error: Invalid value for '--pull-request-url': must be an http or https URL with a host and no credentials"),
    (["--agent", "  codex"], "Error: Invalid value for '--agent': must not begin or end with white space"),
    (["--agent", "codex\n::warning::forged"],
     "Error: Invalid value for '--agent': holds the control, separator or bidi character U+000A"),
    (["--agent", "x" * 101], "Error: Invalid value for '--agent': must be 1 to 100 characters, not 101"),
    (["--ci-run-url", "https://ci.example.org/" + "x" * 2048],
     "Error: Invalid value for '--ci-run-url': must be an http or https URL of at most 2048 printable ASCII "
     "characters"),
])
def test_a_bad_option_is_a_usage_error_and_nothing_is_logged(patch, route, log_file, args, error):
    done = route(patch, *args)
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.endswith(error + "\n"), done.stderr
    assert not log_file.exists()


def test_the_shadow_decision_carries_no_change_of_its_own(patch, route, on_actions, tmp_path):
    on_actions(gh.event("opened", merged=False, state="open", closed_at=None))
    shadow = tmp_path / "shadow.yaml"
    shadow.write_text((patch.root / "lanes.yaml").read_text(), encoding="utf-8")
    line = route(patch, "--shadow", str(shadow)).line
    assert set(line["shadow"]) == {"policy", "policy_sha256", "probe", "reasons", "units", "model_call_allowed",
                                   "lines_changed", "message"}
    assert line["pull_request"] == PULL_REQUEST


def test_replay_under_actions_reads_no_event_and_passes_over_outcome_lines(patch, route, tmp_path, log_file):
    """replay writes no line, so it has no change to name; an outcome line in a log it reads is no attempt."""
    route(patch)
    outcome = subprocess.run([sys.executable, "-m", "lanelog", "outcome", "--out", str(log_file), "--event",
                              str(gh.write(tmp_path / "closed.json", gh.merged_by_a_person()))],
                             capture_output=True, text=True, timeout=120)
    assert outcome.returncode == 0, outcome.stderr
    fifo = tmp_path / "event.fifo"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(patch.root), "--policy",
                           str(patch.root / "lanes.yaml"), str(log_file), "--format", "json"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(fifo)})
    assert done.returncode == 0 and done.stderr == ""
    result = json.loads(done.stdout)
    assert (result["patches"], result["skipped"]) == (1, [])
