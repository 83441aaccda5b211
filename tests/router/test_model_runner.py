"""The bundled model runner, run by `lanelog route --run` against a chat-completions server.

The server is a real HTTP server on 127.0.0.1 (tests/router/chat_server.py), speaking
the chat-completions JSON; each test scripts its answers and reads back what the
runner sent.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.router.chat_server import ChatServer, Reply, running_chat
from tests.router.conftest import LANES_YAML
from tests.workflows.harness import workflow_commands

KEY = "sk-test-9f8e7d6c5b4a-never-printed"
RUNNER = f"{shlex.quote(sys.executable)} -m lanelog.router.model"
ONE_PROPERTY = {"api.py": "def handle(payload):\n    assert payload\n    return payload or None\n"}


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    with running_chat() as server:
        yield server


@pytest.fixture
def model_env(monkeypatch: pytest.MonkeyPatch, chat: ChatServer) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "LANELOG_MODEL_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANELOG_MODEL_BASE_URL", chat.url)
    monkeypatch.setenv("LANELOG_MODEL", "test-model")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("LANELOG_MODEL_BACKOFF", "0.01")
    monkeypatch.setenv("LANELOG_MODEL_TIMEOUT", "5")


@pytest.fixture
def patched(make_repo):
    def make(files=ONE_PROPERTY):
        repo = make_repo()
        repo.write(files).commit()
        return repo
    return make


def no_key_anywhere(done: Any, log_file: Any, runner_output: str) -> None:
    for text in (done.stdout, done.stderr, log_file.read_text(encoding="utf-8"), runner_output):
        assert KEY not in text
        assert "9f8e7d6c5b4a" not in text


def runner_stderr(capfd: pytest.CaptureFixture[str]) -> str:
    """What the runner process wrote (its stderr passes through the router)."""
    captured = capfd.readouterr()
    return captured.out + captured.err


@pytest.mark.usefixtures("model_env")
@pytest.mark.parametrize(("content", "token"), [
    ("hold", "hold"),
    ("fail", "fail"),
    ("  fail\n", "fail"),
    ("The property probably holds, but I cannot be sure.", "unresolved"),
    ("", "unresolved"),
    (None, "unresolved"),
    ("Hold", "unresolved"),
])
def test_the_answer_is_the_token(patched, route, chat, log_file, content, token, capfd):
    chat.script(Reply(content=content))
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    line = done.line
    assert line["results"] == {"prop_reject_empty": token}
    assert line["lane"] == token
    # A prose answer was paid for all the same: its usage is on the line.
    assert line["usage"] == {"prop_reject_empty": {"input_tokens": 1200, "output_tokens": 1,
                                                   "model": "test-model"}}
    assert len(chat.requests) == 1
    no_key_anywhere(done, log_file, err)


@pytest.mark.usefixtures("model_env")
@pytest.mark.parametrize("content", ["##[stop-commands]pwned", "#\u00ad#[add-mask]x", "::warning::x\n::error::y"])
def test_an_answer_holding_a_workflow_command_is_shown_framed(patched, route, chat, content, capfd):
    # A patch can ask the model to answer with a command; the runner's stderr reaches the CI log.
    chat.script(Reply(content=content))
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert "lanelog-model: prop_reject_empty: the model answered " in err
    assert workflow_commands(err) == []


@pytest.mark.usefixtures("model_env")
def test_the_request_carries_the_property_the_fixture_hash_and_the_patch(patched, route, chat, log_file, capfd):
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    assert done.line["results"] == {"prop_reject_empty": "hold"}
    request = chat.requests[0]
    assert request["model"] == "test-model"
    assert request["temperature"] == 0
    text = request["messages"][-1]["content"]
    assert "prop_reject_empty" in text
    assert "an empty payload remains a client error" in text
    assert "+    return payload or None" in text
    fixture_hash = text.split("Fixture hash: ", 1)[1].split("\n", 1)[0]
    assert len(fixture_hash) == 64 and int(fixture_hash, 16) >= 0
    assert "hold" in request["messages"][0]["content"] and "fail" in request["messages"][0]["content"]
    # The key travels only in the Authorization header.
    assert chat.headers[0]["Authorization"] == f"Bearer {KEY}"
    no_key_anywhere(done, log_file, err)


@pytest.mark.usefixtures("model_env")
def test_429_then_200_retries_and_honours_retry_after(patched, route, chat, log_file, capfd):
    chat.script(Reply(status=429, headers={"Retry-After": "0"}), Reply(content="fail"))
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    assert done.line["results"] == {"prop_reject_empty": "fail"}
    assert len(chat.requests) == 2
    assert done.line["usage"]["prop_reject_empty"]["input_tokens"] == 1200
    no_key_anywhere(done, log_file, err)


@pytest.mark.usefixtures("model_env")
def test_500s_until_it_gives_up(patched, route, chat, log_file, monkeypatch, capfd):
    monkeypatch.setenv("LANELOG_MODEL_RETRIES", "2")
    chat.script(Reply(status=500))
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert "usage" not in done.line  # no answer, nothing known to be spent
    assert len(chat.requests) == 3  # the first try and two retries
    assert "HTTP 500 after 3 tries" in err
    no_key_anywhere(done, log_file, err)


@pytest.mark.usefixtures("model_env")
def test_a_client_error_is_not_retried(patched, route, chat, log_file, capfd):
    chat.script(Reply(status=401))
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert len(chat.requests) == 1
    assert "HTTP 401" in err
    no_key_anywhere(done, log_file, err)


@pytest.mark.usefixtures("model_env")
def test_a_timeout_is_unresolved(patched, route, chat, log_file, monkeypatch, capfd):
    monkeypatch.setenv("LANELOG_MODEL_TIMEOUT", "0.5")
    chat.script(Reply(stall=20))
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert "no answer within 0.5 s" in err
    assert len(chat.requests) == 1
    no_key_anywhere(done, log_file, err)


@pytest.mark.usefixtures("model_env")
def test_the_key_never_reaches_the_line_or_any_output(patched, route, chat, log_file, monkeypatch, capfd):
    # The key is also the model's answer and an error's text: neither echo reaches the line.
    monkeypatch.setenv("LANELOG_MODEL_BASE_URL", chat.url + "/" + KEY)
    chat.script(Reply(content=KEY))
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert chat.headers[0]["Authorization"] == f"Bearer {KEY}"
    # The runner prints the model's prose, shortened, on stderr; the key is its head.
    no_key_anywhere(done, log_file, err)


@pytest.mark.usefixtures("model_env")
def test_a_huge_patch_within_the_line_cap_is_not_sent(patched, route, chat, log_file, monkeypatch, capfd):
    monkeypatch.setenv("LANELOG_MODEL_MAX_PATCH_BYTES", "100000")
    # 50 long lines and the changed return: well within the 400-line cap, 300 KB of patch.
    long_lines = "".join(f"X{n} = '{'y' * 6000}'\n" for n in range(50))
    done = route(patched({"api.py": ONE_PROPERTY["api.py"] + long_lines}), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    line = done.line
    assert line["probe"] == "pass" and line["lines_changed"] == 52
    assert line["results"] == {"prop_reject_empty": "unresolved"}
    assert chat.requests == []  # nothing spent on a patch the model would see in part
    assert "over LANELOG_MODEL_MAX_PATCH_BYTES (100000): not sent" in err
    no_key_anywhere(done, log_file, err)


@pytest.mark.usefixtures("model_env")
def test_a_large_patch_under_the_bound_is_sent_whole(patched, route, chat, log_file):
    long_lines = "".join(f"X{n} = '{'y' * 1000}'\n" for n in range(50))
    done = route(patched({"api.py": ONE_PROPERTY["api.py"] + long_lines}), "--run", RUNNER)
    assert done.line["results"] == {"prop_reject_empty": "hold"}
    assert f"X49 = '{'y' * 1000}'" in chat.requests[0]["messages"][-1]["content"]


@pytest.mark.usefixtures("model_env")
def test_cost_from_the_response_wins_over_the_price_table(patched, route, chat, log_file):
    chat.script(Reply(usage={"prompt_tokens": 1000, "completion_tokens": 2, "cost": 0.0042}))
    done = route(patched(), "--run", RUNNER)
    assert done.line["usage"] == {"prop_reject_empty": {
        "input_tokens": 1000, "output_tokens": 2, "cost": 0.0042, "currency": "USD",
        "model": "test-model"}}



@pytest.mark.usefixtures("model_env")
def test_cost_from_the_policy_price_table(make_repo, route, chat, log_file):
    prices = ("prices:\n  test-model: {input_per_million: 2.5, output_per_million: 10,"
              " currency: EUR}\n")
    repo = make_repo({"lanes.yaml": LANES_YAML + prices})
    repo.write(ONE_PROPERTY).commit()
    chat.script(Reply(usage={"prompt_tokens": 2000, "completion_tokens": 10}))
    done = route(repo, "--run", RUNNER)
    assert done.line["usage"]["prop_reject_empty"] == {
        "input_tokens": 2000, "output_tokens": 10, "cost": pytest.approx(0.0051),
        "currency": "EUR", "model": "test-model"}


@pytest.mark.usefixtures("model_env")
def test_no_usage_and_no_price_leaves_cost_empty(patched, route, chat, log_file):
    chat.script(Reply(usage=None))
    done = route(patched(), "--run", RUNNER)
    assert done.line["results"] == {"prop_reject_empty": "hold"}
    assert done.line["usage"] == {"prop_reject_empty": {"model": "test-model"}}


def test_without_a_model_name_nothing_is_called(patched, route, chat, log_file, monkeypatch, capfd):
    monkeypatch.delenv("LANELOG_MODEL", raising=False)
    monkeypatch.setenv("LANELOG_MODEL_BASE_URL", chat.url)
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert "LANELOG_MODEL is not set" in err
    assert chat.requests == []


# An endpoint's error bodies echo what they were sent, the key included (OpenAI's 401 does).
ECHO = f"Incorrect API key provided: {KEY}. You can find your API key at https://example.invalid."


@pytest.mark.usefixtures("model_env")
@pytest.mark.parametrize(("reply", "cause"), [
    (Reply(status=401, error={"message": ECHO, "code": "invalid_api_key"}), "authentication failed (HTTP 401)"),
    (Reply(status=403, error={"message": ECHO}), "authentication failed (HTTP 403)"),
    (Reply(status=404, error={"message": "Not found"}), "unknown model 'test-model' (HTTP 404)"),
    (Reply(status=400, error={"message": f"The model `test-model` does not exist {KEY}", "code": "model_not_found"}),
     "unknown model 'test-model' (HTTP 400)"),
    (Reply(status=400, error={"message": f"Invalid 'max_tokens' {KEY}", "type": "invalid_request_error"}),
     "bad request (HTTP 400)"),
    (Reply(status=429, error={"message": ECHO, "type": "rate_limit_exceeded"}),
     "rate limited (HTTP 429) after 2 tries"),
], ids=["401", "403", "404", "400-model-not-found", "400", "429"])
def test_an_endpoint_error_names_its_cause_without_the_key(patched, route, chat, log_file, monkeypatch, capfd,
                                                           reply, cause):
    monkeypatch.setenv("LANELOG_MODEL_RETRIES", "1")
    chat.script(reply)
    done = route(patched(), "--run", RUNNER)
    err = done.stderr + runner_stderr(capfd)
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert f"lanelog-model: unresolved: {cause}" in err, err
    no_key_anywhere(done, log_file, err)


def _bare_env(chat: ChatServer) -> dict[str, str]:
    """The environment of a CI step that calls lanelog by its absolute path: its venv is not on PATH."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "LANELOG_"))}
    env.update(PATH="/usr/bin:/bin", LANELOG_MODEL="test-model", LANELOG_MODEL_BASE_URL=chat.url,
               LANELOG_MODEL_API_KEY=KEY, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    return env


def test_the_bundled_runner_is_found_beside_the_interpreter_without_path(patched, chat, tmp_path):
    """`/venv/bin/lanelog route --run lanelog-model` runs the venv's lanelog-model, with no venv on PATH."""
    lanelog = Path(sys.executable).parent / "lanelog"
    assert lanelog.is_file(), "the lanelog script is installed beside its interpreter"
    repo = patched()
    out = tmp_path / "lane-log.jsonl"
    done = subprocess.run([str(lanelog), "route", "--repo", str(repo.root), "--base", "main", "--out", str(out),
                           "--run", "lanelog-model", "--require-hold"],
                          env=_bare_env(chat), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert line["results"] == {"prop_reject_empty": "hold"} and line["lane"] == "hold"
    assert "setup_error" not in line
    assert len(chat.requests) == 1


def test_a_runner_that_cannot_start_is_a_setup_error_on_the_line_and_stderr(patched, route, log_file):
    done = route(patched(), "--run", "lanelog-no-such-runner --flag")
    line = done.line
    assert done.exit_code == 0  # the probe passed; without --require-hold its exit stands
    assert line["results"] == {"prop_reject_empty": "unresolved"} and line["lane"] == "unresolved"
    assert line["setup_error"].startswith("cannot start 'lanelog-no-such-runner': ")
    assert "lanelog route: setup error: cannot start 'lanelog-no-such-runner'" in done.stderr
    required = route(patched(), "--run", "lanelog-no-such-runner", "--require-hold")
    assert required.exit_code == 3
    assert required.line["setup_error"].startswith("cannot start 'lanelog-no-such-runner': ")


def test_a_runner_that_starts_has_no_setup_error(patched, route, py_cmd):
    done = route(patched(), "--run", py_cmd("print('unsure')"))
    assert done.line["lane"] == "unresolved" and "setup_error" not in done.line
