"""The outcome line: what became of a pull request when it closed (``lanelog outcome``).

It is read from the ``pull_request`` ``closed`` event that GitHub Actions leaves at
``$GITHUB_EVENT_PATH`` (or a saved payload, ``--event FILE``), or from flags for another forge;
the approvals and who set each label come from what ``gh api`` prints (router/reviews.py).
Every value is checked where it is read (router/facts.py): a payload that is not a closed pull
request's event, or a value that is not well formed, is an error naming the file and the key,
and nothing is written.  The pull request's title and body are never read.

Recording the same close again gives the same line: ``outcome_id`` is derived from the close
itself and ``ts`` is when it closed, so a re-run job writes the line again and ingest counts
it once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from lanelog.errors import FactInvalid
from lanelog.router.change import ci_run_field, event_path_name, event_repository, on_github_actions
from lanelog.router.facts import (
    check_account,
    check_number,
    check_repository,
    check_sha,
    check_text,
    check_time,
    check_url,
    kind,
)
from lanelog.router.jsonfile import read_json
from lanelog.router.lane_log import OUTCOME_KIND, OUTCOME_PRODUCER, SCHEMA
from lanelog.router.paths import printable
from lanelog.router.reviews import approving_reviews, label_setters

MAX_LABELS = 100     # GitHub's own limit of labels on an issue or pull request
MERGE_METHODS = ("merge", "squash", "rebase")
FLAG_OF = {"labels": "--label"}  # a flag not spelled as its field


@dataclass(frozen=True)
class OutcomeFlags:
    """The closed pull request given as flags (another forge, or no event), each value already checked."""

    repository: str | None = None
    pull_request: int | None = None
    pull_request_url: str | None = None
    state: str | None = None
    closed_at: str | None = None
    merged_at: str | None = None
    merged_by: str | None = None
    merged_by_type: str | None = None
    auto_merge: bool = False
    head: str | None = None
    merge_commit: str | None = None
    author: str | None = None
    author_type: str | None = None
    labels: tuple[str, ...] = ()

    def given(self) -> list[str]:
        """The flags given, as typed (``--merged-by``, ``--label``)."""
        return [FLAG_OF.get(item.name, "--" + item.name.replace("_", "-"))
                for item in fields(self) if getattr(self, item.name) not in (None, False, ())]


@dataclass(frozen=True)
class OutcomeRequest:
    """The inputs of one ``lanelog outcome`` call (the command's options)."""

    event: Path | None = None
    flags: OutcomeFlags = field(default_factory=OutcomeFlags)
    reviews: Path | None = None
    label_events: Path | None = None
    repo_name: str | None = None
    ci_run_url: str | None = None


@dataclass(frozen=True)
class Closed:
    """A closed pull request's facts, checked: what the outcome line says of it."""

    repository: str
    number: int
    url: str | None
    head: str | None
    state: str
    merged_at: str | None
    closed_at: str
    merged_by: dict[str, Any] | None
    auto_merge: dict[str, Any] | None
    author: dict[str, Any] | None
    labels: list[str]
    merge_commit: str | None


def outcome_line(request: OutcomeRequest, environ: Mapping[str, str] | None = None,
                 notify: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """The outcome line of the closed pull request the request names; FactInvalid or InputFileInvalid
    (naming the file or flag and the key) when an input cannot be used."""
    env = os.environ if environ is None else environ
    closed = _closed(request, env)
    found = None
    if request.reviews is not None:
        found = approving_reviews(request.reviews, printable(str(request.reviews)), closed.repository, closed.number)
    setters = label_setters(request.label_events, printable(str(request.label_events))) \
        if request.label_events is not None else None
    repo = request.repo_name if request.repo_name is not None else closed.repository.split("/")[1]
    return build_outcome(closed, repo=repo, approvals=found, setters=setters,
                         ci_run=ci_run_field(request.ci_run_url, env, notify))


def _closed(request: OutcomeRequest, env: Mapping[str, str]) -> Closed:
    """The closed pull request from ``--event``, else the flags, else, under Actions, ``$GITHUB_EVENT_PATH``."""
    given = request.flags.given()
    if request.event is not None:
        if given:
            raise FactInvalid(f"--event FILE describes the pull request; leave out {', '.join(given)}")
        named = printable(str(request.event))
        return closed_from_event(read_json(request.event, named), named, env)
    if given:
        return closed_from_flags(request.flags, env)
    if on_github_actions(env) and env.get("GITHUB_EVENT_PATH"):
        named = event_path_name(env)
        return closed_from_event(read_json(Path(env["GITHUB_EVENT_PATH"]), named), named, env)
    raise FactInvalid("no closed pull request to record: give --event FILE (a saved pull_request closed event), "
                      "or --pull-request N --state merged|closed --closed-at TIME, or run it under GitHub Actions "
                      "on a pull_request closed event")


def closed_from_event(event: Any, named: str, environ: Mapping[str, str]) -> Closed:
    """The facts of a ``pull_request`` ``closed`` event payload, as GitHub sends it."""
    pull = event.get("pull_request") if isinstance(event, dict) else None
    if not isinstance(pull, dict) or event.get("action") != "closed":
        raise FactInvalid(f"{named}: is not a pull_request closed event ({_what(event)})")
    where = f"{named}, key pull_request"
    merged = pull.get("merged")
    if not isinstance(merged, bool):
        raise FactInvalid(f"{where}.merged: must be true or false, not {kind(merged)}")
    return Closed(
        repository=event_repository(event, named, environ),
        number=check_number(pull.get("number"), f"{where}.number"),
        url=None if pull.get("html_url") is None else check_url(pull["html_url"], f"{where}.html_url"),
        head=check_sha(_object(pull.get("head"), f"{where}.head").get("sha"), f"{where}.head.sha"),
        state="merged" if merged else "closed",
        merged_at=check_time(pull.get("merged_at"), f"{where}.merged_at") if merged else None,
        closed_at=check_time(pull.get("closed_at"), f"{where}.closed_at"),
        merged_by=_account_or_none(pull.get("merged_by"), f"{where}.merged_by") if merged else None,
        auto_merge=_auto_merge(pull.get("auto_merge"), f"{where}.auto_merge"),
        author=check_account(pull.get("user"), f"{where}.user"),
        labels=_labels(pull.get("labels"), f"{where}.labels"),
        # GitHub fills merge_commit_sha on an unmerged pull request too (its test merge): only a merge has one.
        merge_commit=check_sha(pull["merge_commit_sha"], f"{where}.merge_commit_sha")
        if merged and pull.get("merge_commit_sha") is not None else None,
    )


def _what(event: Any) -> str:
    """What an event that is not a closed pull request's is, in a few safe words."""
    if not isinstance(event, dict):
        return f"the payload is {kind(event)}"
    action = event.get("action")
    shown = f"action {action!r}" if isinstance(action, str) and action.isascii() and action.isidentifier() \
        and len(action) <= 40 else f"action {kind(action)}"
    return f"{shown}, no pull_request object" if not isinstance(event.get("pull_request"), dict) else shown


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise FactInvalid(f"{where}: must be an object, not {kind(value)}")
    return value


def _account_or_none(value: Any, where: str) -> dict[str, str] | None:
    """An account, or None where GitHub gives null (nobody GitHub can name)."""
    return None if value is None else check_account(value, where)


def _auto_merge(value: Any, where: str) -> dict[str, Any] | None:
    """``{"enabled_by", "merge_method"}`` of the pull request's auto-merge; None when it had none."""
    if value is None:
        return None
    auto = _object(value, where)
    method = auto.get("merge_method")
    if method is not None and method not in MERGE_METHODS:
        raise FactInvalid(f"{where}.merge_method: must be one of {', '.join(MERGE_METHODS)}")
    return {"enabled_by": _account_or_none(auto.get("enabled_by"), f"{where}.enabled_by"), "merge_method": method}


def _labels(value: Any, where: str) -> list[str]:
    """The names of the pull request's labels, at most MAX_LABELS."""
    if not isinstance(value, list):
        raise FactInvalid(f"{where}: must be an array, not {kind(value)}")
    if len(value) > MAX_LABELS:
        raise FactInvalid(f"{where}: holds {len(value)} labels; a pull request has at most {MAX_LABELS}")
    return [check_text(_object(label, f"{where}[{index}]").get("name"), f"{where}[{index}].name")
            for index, label in enumerate(value)]


def closed_from_flags(flags: OutcomeFlags, environ: Mapping[str, str]) -> Closed:
    """The facts the flags give; what they leave out stays unknown (null), never guessed."""
    needed = (("--pull-request N", flags.pull_request), ("--state merged|closed", flags.state),
              ("--closed-at TIME", flags.closed_at))
    missing = [name for name, value in needed if value is None]
    if missing:
        raise FactInvalid(f"an outcome from flags needs {', '.join(missing)}")
    merged = flags.state == "merged"
    of_merge = [name for name in ("--merged-at", "--merged-by", "--merged-by-type", "--auto-merge", "--merge-commit")
                if name in flags.given()]
    if of_merge and not merged:
        raise FactInvalid(f"{', '.join(of_merge)} describe a merge: --state closed has none")
    for typed, named in (("--merged-by-type", "--merged-by"), ("--author-type", "--author")):
        if typed in flags.given() and named not in flags.given():
            raise FactInvalid(f"{typed} needs {named}")
    repository = flags.repository
    if repository is None and on_github_actions(environ) and "GITHUB_REPOSITORY" in environ:
        repository = check_repository(environ["GITHUB_REPOSITORY"], "$GITHUB_REPOSITORY")
    if repository is None:
        raise FactInvalid("an outcome from flags needs --repository OWNER/NAME (or $GITHUB_REPOSITORY under "
                          "GitHub Actions)")
    assert flags.pull_request is not None and flags.state is not None and flags.closed_at is not None
    return Closed(
        repository=repository, number=flags.pull_request, url=flags.pull_request_url, head=flags.head,
        state=flags.state,
        # A merge closes the pull request: the merge's time is the close's unless told otherwise.
        merged_at=(flags.merged_at or flags.closed_at) if merged else None, closed_at=flags.closed_at,
        merged_by={"login": flags.merged_by, "type": flags.merged_by_type} if flags.merged_by else None,
        auto_merge={"enabled_by": None, "merge_method": None} if flags.auto_merge else None,
        author={"login": flags.author, "type": flags.author_type} if flags.author else None,
        labels=list(flags.labels), merge_commit=flags.merge_commit,
    )


def outcome_id(closed: Closed) -> str:
    """``outcome-`` and 32 hex digits of the close itself: the same close, the same id."""
    key = f"{closed.repository}\n{closed.number}\n{closed.state}\n{closed.closed_at}"
    return "outcome-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def build_outcome(closed: Closed, *, repo: str, approvals: list[dict[str, Any]] | None,
                  setters: Mapping[str, Mapping[str, Any]] | None, ci_run: Mapping[str, Any] | None) -> dict[str, Any]:
    """The outcome line, fields in their documented order; ``approvals`` absent when unknown (no reviews
    file), never ``[]``; a label's ``set_by`` and ``set_at`` only when its events say them."""
    line: dict[str, Any] = {
        "schema": SCHEMA, "kind": OUTCOME_KIND, "producer": OUTCOME_PRODUCER, "outcome_id": outcome_id(closed),
        "ts": closed.closed_at, "repo": repo,
        "pull_request": {"repository": closed.repository, "number": closed.number,
                         **({"url": closed.url} if closed.url is not None else {})},
        "head": closed.head, "state": closed.state, "merged_at": closed.merged_at, "closed_at": closed.closed_at,
        "merged_by": closed.merged_by, "auto_merge": closed.auto_merge, "author": closed.author,
    }
    if approvals is not None:
        line["approvals"] = approvals
    line["labels"] = [{"name": name, **(setters or {}).get(name, {})} for name in closed.labels]
    line["merge_commit"] = closed.merge_commit
    if ci_run is not None:
        line["ci_run"] = dict(ci_run)
    return line
