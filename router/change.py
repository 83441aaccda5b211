"""Which change an attempt belongs to: its pull request, the agent that opened it, the CI run.

Under GitHub Actions (``GITHUB_ACTIONS=true``) these come from the event payload the runner
leaves at ``$GITHUB_EVENT_PATH`` (a ``pull_request`` or ``pull_request_target`` event carries
the pull request and its author) and from the run's variables; elsewhere, and to override
them, from route's options.  Each field is absent when unknown, never guessed.  What the
environment or the payload says is checked as it is read: a value that is not well formed
leaves its field out with one note on stderr, and never fails the route (the patch is still
bounded and its line still written).  An option's value is checked by the command line, where
a bad one is a usage error.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lanelog.errors import FactInvalid, InputFileInvalid
from lanelog.router.facts import MAX_NUMBER, check_login, check_number, check_repository, check_url, kind
from lanelog.router.jsonfile import read_json
from lanelog.router.paths import printable

MAX_RUN_ID = 20  # digits: GitHub's run ids are 64-bit


@dataclass(frozen=True)
class ChangeOptions:
    """What route's options say about the change, each already checked; None when not given."""

    pull_request: int | None = None
    repository: str | None = None
    pull_request_url: str | None = None
    agent: str | None = None
    ci_run_url: str | None = None


def on_github_actions(environ: Mapping[str, str]) -> bool:
    """Whether this is a GitHub Actions job: every runner sets GITHUB_ACTIONS=true."""
    return environ.get("GITHUB_ACTIONS") == "true"


def attempt_change(given: ChangeOptions, environ: Mapping[str, str] | None = None,
                   notify: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """The line's ``pull_request``, ``agent`` and ``ci_run``, each present only when known.

    Raises FactInvalid (a usage error: nothing is routed) for ``--pull-request`` without a
    repository, from ``--repository`` or, under Actions, ``$GITHUB_REPOSITORY``.
    """
    env = os.environ if environ is None else environ
    actions = on_github_actions(env)
    if given.pull_request is None and (given.repository or given.pull_request_url):
        raise FactInvalid("--repository and --pull-request-url describe a --pull-request N: give it too")
    if given.pull_request is not None and given.repository is None and not (actions and "GITHUB_REPOSITORY" in env):
        raise FactInvalid("--pull-request needs --repository OWNER/NAME (or $GITHUB_REPOSITORY under GitHub Actions)")
    wanted = [name for name, known in (("pull_request", given.pull_request), ("agent", given.agent)) if known is None]
    event = _event(env, " and ".join(wanted), notify) if actions and wanted else None
    named = event_path_name(env)
    found: dict[str, Any] = {}
    if given.pull_request is not None:
        found["pull_request"] = _given_pull_request(given, env, notify)
    elif event is not None:
        found["pull_request"] = _found(lambda: event_pull_request(event, named, env), "pull_request", notify)
    if given.agent is not None:
        found["agent"] = given.agent
    elif event is not None:
        found["agent"] = _found(lambda: event_author(event, named), "agent", notify)
    found["ci_run"] = ci_run_field(given.ci_run_url, env, notify)
    return {field: value for field, value in found.items() if value is not None}


def ci_run_field(url: str | None, environ: Mapping[str, str], notify: Callable[[str], None]) -> dict[str, Any] | None:
    """A line's ``ci_run``: ``{"url"}`` of ``--ci-run-url``, else under GitHub Actions this run's; a run
    variable that is not well formed leaves it out with a note (it is the runner's, not the patch's)."""
    if url is not None:
        return {"url": url}
    return _found(lambda: run_of(environ), "ci_run", notify) if on_github_actions(environ) else None


def _found(read: Callable[[], Any], field: str, notify: Callable[[str], None]) -> Any:
    """What ``read`` finds, or None, with a note, when a value it reads is not well formed."""
    try:
        return read()
    except FactInvalid as exc:
        notify(f"{field} left out: {exc}")
        return None


def event_path_name(environ: Mapping[str, str]) -> str:
    """How a message names the runner's event payload: ``$GITHUB_EVENT_PATH (/home/runner/.../event.json)``."""
    return f"$GITHUB_EVENT_PATH ({printable(environ.get('GITHUB_EVENT_PATH', ''))})"


def _event(env: Mapping[str, str], fields: str, notify: Callable[[str], None]) -> dict[str, Any] | None:
    """The event payload as a JSON object, or None (with a note when there is one that cannot be read)."""
    if not env.get("GITHUB_EVENT_PATH"):
        return None
    try:
        event = read_json(Path(env["GITHUB_EVENT_PATH"]), event_path_name(env))
    except InputFileInvalid as exc:
        notify(f"{fields} left out: {exc}")
        return None
    if not isinstance(event, dict):
        notify(f"{fields} left out: {event_path_name(env)}: is not a JSON object")
        return None
    return event


def event_pull_request(event: Mapping[str, Any], named: str, environ: Mapping[str, str]) -> dict[str, Any] | None:
    """``{"repository", "number", "url"}`` of the event's pull request; None for an event without one (a push).

    ``named`` is how messages name the payload; ``environ`` gives ``$GITHUB_REPOSITORY`` when the
    payload names no repository (under GitHub Actions only).
    """
    pull = event.get("pull_request")
    if pull is None:
        return None
    if not isinstance(pull, dict):
        raise FactInvalid(f"{named}, key pull_request: must be an object")
    out = {"repository": event_repository(event, named, environ),
           "number": check_number(pull.get("number"), f"{named}, key pull_request.number")}
    if pull.get("html_url") is not None:
        out["url"] = check_url(pull["html_url"], f"{named}, key pull_request.html_url")
    return out


def event_repository(event: Mapping[str, Any], named: str, environ: Mapping[str, str]) -> str:
    """The event's ``repository.full_name``, else, under GitHub Actions, the run's ``$GITHUB_REPOSITORY``
    (the repository the workflow runs in, which is the pull request's)."""
    repository = event.get("repository")
    if isinstance(repository, dict) and "full_name" in repository:
        return check_repository(repository["full_name"], f"{named}, key repository.full_name")
    if not on_github_actions(environ) or "GITHUB_REPOSITORY" not in environ:
        raise FactInvalid(f"{named}, key repository.full_name: missing")
    return check_repository(environ["GITHUB_REPOSITORY"], "$GITHUB_REPOSITORY")


def event_author(event: Mapping[str, Any], named: str) -> str | None:
    """The login of the pull request's author (``pull_request.user.login``): the agent that opened it."""
    pull = event.get("pull_request")
    if not isinstance(pull, dict):
        return None
    return check_login(_mapping(pull.get("user"), f"{named}, key pull_request.user").get("login"),
                       f"{named}, key pull_request.user.login")


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise FactInvalid(f"{where}: must be an object, not {kind(value)}")
    return value


def _given_pull_request(given: ChangeOptions, env: Mapping[str, str],
                        notify: Callable[[str], None]) -> dict[str, Any] | None:
    """The pull request the options name; its repository from ``--repository``, else ``$GITHUB_REPOSITORY``."""
    repository = given.repository or _found(lambda: check_repository(env["GITHUB_REPOSITORY"], "$GITHUB_REPOSITORY"),
                                            "pull_request", notify)
    if repository is None:
        return None
    out: dict[str, Any] = {"repository": repository, "number": given.pull_request}
    if given.pull_request_url is not None:
        out["url"] = given.pull_request_url
    return out


def run_of(environ: Mapping[str, str]) -> dict[str, Any] | None:
    """``{"id", "attempt", "url"}`` of this GitHub Actions run (None without ``$GITHUB_RUN_ID``); the url
    only when the server and the repository are known."""
    run_id = environ.get("GITHUB_RUN_ID")
    if run_id is None:
        return None
    if not (run_id.isascii() and run_id.isdigit() and len(run_id) <= MAX_RUN_ID):
        raise FactInvalid(f"$GITHUB_RUN_ID: must be 1 to {MAX_RUN_ID} digits")
    attempt_text = environ.get("GITHUB_RUN_ATTEMPT", "")
    if not (attempt_text.isascii() and attempt_text.isdigit() and len(attempt_text) <= 10):
        raise FactInvalid(f"$GITHUB_RUN_ATTEMPT: must be a whole number from 1 to {MAX_NUMBER}")
    attempt = check_number(int(attempt_text), "$GITHUB_RUN_ATTEMPT")
    out: dict[str, Any] = {"id": run_id, "attempt": attempt}
    server, repository = environ.get("GITHUB_SERVER_URL"), environ.get("GITHUB_REPOSITORY")
    if server and repository:
        base = check_url(server, "$GITHUB_SERVER_URL").rstrip("/")
        if any(mark in base.partition("://")[2] for mark in "/?#"):
            raise FactInvalid("$GITHUB_SERVER_URL: must be the server's address alone, such as https://github.com")
        out["url"] = f"{base}/{check_repository(repository, '$GITHUB_REPOSITORY')}/actions/runs/{run_id}" \
                     f"/attempts/{attempt}"
    return out
