"""GitLab: its CI jobs' variables, its Merge Request Hook, what its API gives, its accounts.

**The job.**  Every GitLab CI job has ``GITLAB_CI=true``; only then is anything of the job read.
A merge request pipeline names its merge request: ``$CI_MERGE_REQUEST_IID`` in the project
``$CI_MERGE_REQUEST_PROJECT_PATH`` (nested groups included: ``group/sub/project``), at
``$CI_MERGE_REQUEST_PROJECT_URL``; the run is the pipeline ``$CI_PIPELINE_ID``, its address the
job's, ``$CI_JOB_URL``.  The agent is ``--agent``, else ``$GITLAB_USER_LOGIN``: who started the
pipeline (for a merge request pipeline, whoever pushed or opened it).  A job has no payload of
the merge request's close: ``lanelog outcome`` takes the hook's payload with ``--event FILE``.

**The files.**  ``--event FILE`` is a Merge Request Hook payload (``object_kind``
``merge_request``) of a merge (``object_attributes.action`` ``merge``, or ``state`` ``merged``)
or a close without merge (``close``, ``closed``).  The hook has no ``merged_at``: the time is
``object_attributes.merged_at`` where present, else its ``updated_at``; GitLab writes times as
``2017-09-15 16:52:00 UTC`` or in RFC 3339, and both are read.  ``--reviews FILE`` (also spelled
``--approvals``) is the JSON of ``GET /projects/:id/merge_requests/:iid/approvals``;
``--label-events FILE`` that of ``GET /projects/:id/merge_requests/:iid/resource_label_events``.

**Accounts.**  A user object's ``username`` is the login.  A bot is a user with ``bot: true`` or
a project's or group's access-token user (``project_N_bot_...``, ``group_N_bot_...``); every
other user is a person.  The line's ``type`` says it in the words every forge's lines share:
``User`` for a person, ``Bot`` for a bot.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from lanelog.errors import FactInvalid
from lanelog.router.facts import (
    check_login,
    check_nested_repository,
    check_number,
    check_sha,
    check_text,
    check_time,
    check_url,
    kind,
)
from lanelog.router.forges import (
    Account,
    Approval,
    AutoMerge,
    Change,
    Close,
    Forge,
    LabelEvent,
    Omit,
    PullRequest,
    Run,
    change_read,
    refuse,
)
from lanelog.router.forges._payload import MAX_ITEMS, a_flag, a_word, an_array, an_object
from lanelog.router.jsonfile import read_json, read_pages
from lanelog.router.paths import printable

NAME = "gitlab"
BOT_LOGIN = re.compile(r"(?:project|group)_[0-9]+_bot(?:_|\Z)")
GITLAB_TIME = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2}) UTC\Z")
STATES = ("opened", "closed", "merged", "locked")
MAX_PIPELINE_ID = 20


class GitLab(Forge):
    """GitLab and GitLab CI."""

    name = NAME
    repository_words = "$CI_MERGE_REQUEST_PROJECT_PATH under GitLab CI"
    event_words = "a saved Merge Request Hook payload of a merge or a close"
    job_words = "save the Merge Request Hook's payload and give it as --event FILE"

    def runs_here(self, environ: Mapping[str, str]) -> bool:
        return environ.get("GITLAB_CI") == "true"

    def owns_variable(self, name: str) -> bool:
        return name.startswith(("CI_", "GITLAB_"))

    def job_repository(self, environ: Mapping[str, str]) -> str | None:
        if not self.runs_here(environ) or "CI_MERGE_REQUEST_PROJECT_PATH" not in environ:
            return None
        return check_nested_repository(environ["CI_MERGE_REQUEST_PROJECT_PATH"], "$CI_MERGE_REQUEST_PROJECT_PATH")

    def job_change(self, environ: Mapping[str, str], wanted: Collection[str],
                   notify: Callable[[str], None]) -> Change:
        if not self.runs_here(environ):
            return Change()
        return change_read({"pull_request": lambda: _job_merge_request(environ), "agent": lambda: _job_agent(environ),
                            "ci_run": lambda: _job_run(environ)}, wanted, notify)

    def close_of(self, event: Any, named: str, environ: Mapping[str, str], omit: Omit = refuse) -> Close:
        return _close(event, named)  # (its pipelines carry no close: the base's job_close, None, stands)

    def read_approvals(self, path: Path, pull_request: PullRequest, omit: Omit = refuse) -> list[Approval]:
        named = printable(str(path))
        return _approvals(read_json(path, named), named, pull_request)

    def read_label_events(self, path: Path, omit: Omit = refuse) -> dict[str, LabelEvent]:
        named = printable(str(path))
        return _label_events(read_pages(path, named), named)

    def is_person(self, account: Account) -> bool:
        return account.type == "User" and not BOT_LOGIN.match(account.login)


FORGE = GitLab()


# The job.

def _job_merge_request(environ: Mapping[str, str]) -> PullRequest | None:
    """The merge request of a merge request pipeline; None for a branch's pipeline."""
    iid = environ.get("CI_MERGE_REQUEST_IID")
    if iid is None:
        return None
    if not (iid.isascii() and iid.isdigit() and len(iid) <= 10):
        raise FactInvalid("$CI_MERGE_REQUEST_IID: must be a whole number")
    number = check_number(int(iid), "$CI_MERGE_REQUEST_IID")
    repository = FORGE.job_repository(environ)
    if repository is None:
        raise FactInvalid("$CI_MERGE_REQUEST_PROJECT_PATH: missing")
    project_url = environ.get("CI_MERGE_REQUEST_PROJECT_URL")
    url = None if not project_url else \
        f"{check_url(project_url, '$CI_MERGE_REQUEST_PROJECT_URL').rstrip('/')}/-/merge_requests/{number}"
    return PullRequest(repository, number, url)


def _job_agent(environ: Mapping[str, str]) -> str | None:
    login = environ.get("GITLAB_USER_LOGIN")
    return None if login is None else check_login(login, "$GITLAB_USER_LOGIN")


def _job_run(environ: Mapping[str, str]) -> Run | None:
    pipeline = environ.get("CI_PIPELINE_ID")
    if pipeline is None:
        return None
    if not (pipeline.isascii() and pipeline.isdigit() and len(pipeline) <= MAX_PIPELINE_ID):
        raise FactInvalid(f"$CI_PIPELINE_ID: must be 1 to {MAX_PIPELINE_ID} digits")
    job_url = environ.get("CI_JOB_URL")
    return Run(id=pipeline, url=None if not job_url else check_url(job_url, "$CI_JOB_URL"))


# The Merge Request Hook.

def gitlab_time(value: Any, where: str) -> str:
    """A time in either of GitLab's forms (``2017-09-15 16:52:00 UTC``, RFC 3339), as the line keeps it."""
    found = GITLAB_TIME.match(value) if isinstance(value, str) else None
    try:
        return check_time(f"{found.group(1)}T{found.group(2)}Z" if found else value, where)
    except FactInvalid:
        raise FactInvalid(f"{where}: must be a time such as 2017-09-15 16:52:00 UTC or 2017-09-15T16:52:00Z"
                          f"{'' if isinstance(value, str) else f', not {kind(value)}'}") from None


def _state(attributes: Mapping[str, Any], where: str) -> tuple[str, str | None]:
    """``merged`` or ``closed``, and the hook's action; any other hook is not a close."""
    action = attributes.get("action")
    if action is not None and not isinstance(action, str):
        raise FactInvalid(f"{where}.action: must be a string, not {kind(action)}")
    state = a_word(attributes.get("state"), f"{where}.state", STATES)
    if action == "merge" or (action != "close" and state == "merged"):
        return "merged", action
    if action == "close" or state == "closed":
        return "closed", action
    raise FactInvalid(f"{where}.action: is not a merge request's merge or close (state {state})")


def _close(event: Any, named: str) -> Close:
    """The close a Merge Request Hook payload says."""
    if not isinstance(event, dict) or event.get("object_kind") != "merge_request":
        raise FactInvalid(f"{named}, key object_kind: is not a Merge Request Hook (object_kind merge_request)")
    where = f"{named}, key object_attributes"
    attributes = an_object(event.get("object_attributes"), where)
    state, action = _state(attributes, where)
    merged = state == "merged"
    merged_at = attributes.get("merged_at")
    closed_at = gitlab_time(merged_at, f"{where}.merged_at") if merged and merged_at is not None \
        else gitlab_time(attributes.get("updated_at"), f"{where}.updated_at")
    user = None if event.get("user") is None else _account(event["user"], f"{named}, key user")
    auto = a_flag(attributes.get("merge_when_pipeline_succeeds"), f"{where}.merge_when_pipeline_succeeds") \
        or a_flag(attributes.get("auto_merge_enabled"), f"{where}.auto_merge_enabled")
    merge_sha = attributes.get("merge_commit_sha")
    project = an_object(event.get("project"), f"{named}, key project")
    return Close(
        pull_request=PullRequest(
            check_nested_repository(project.get("path_with_namespace"), f"{named}, key project.path_with_namespace"),
            check_number(attributes.get("iid"), f"{where}.iid"),
            None if attributes.get("url") is None else check_url(attributes["url"], f"{where}.url")),
        head=check_sha(an_object(attributes.get("last_commit"), f"{where}.last_commit").get("id"),
                       f"{where}.last_commit.id"),
        state=state, merged_at=closed_at if merged else None, closed_at=closed_at,
        # The hook's user merged it on a merge action (with auto-merge, who set it); on another, nobody known.
        merged_by=user if merged and action == "merge" else None,
        auto_merge=AutoMerge(user if action == "merge" else None, None) if merged and auto else None,
        author=None,  # the hook names the author by id alone
        labels=_labels(event.get("labels", attributes.get("labels", [])), f"{named}, key labels"),
        merge_commit=check_sha(merge_sha, f"{where}.merge_commit_sha") if merged and merge_sha is not None else None,
        forge=NAME,
    )


def _account(value: Any, where: str) -> Account:
    """A GitLab user object: its ``username``, ``User`` for a person and ``Bot`` for a bot."""
    user = an_object(value, where)
    login = check_login(user.get("username"), f"{where}.username")
    bot = a_flag(user.get("bot"), f"{where}.bot") or BOT_LOGIN.match(login) is not None
    return Account(login, "Bot" if bot else "User")


def _labels(value: Any, where: str) -> tuple[str, ...]:
    return tuple(check_text(an_object(label, f"{where}[{index}]").get("title"), f"{where}[{index}].title")
                 for index, label in enumerate(an_array(value, where)))


# The API's files.

def _approvals(found: Any, named: str, pull_request: PullRequest) -> list[Approval]:
    """Who approved (``approved_by``): with its ``approved_at`` where GitLab gives it, else of no known
    time, which the line keeps (null) and which never counts."""
    if not isinstance(found, dict):
        raise FactInvalid(f"{named}: must be the JSON object of GET /projects/:id/merge_requests/:iid/approvals, "
                          f"not {kind(found)}")
    approvals: Mapping[str, Any] = found
    iid = approvals.get("iid")
    if iid is not None and check_number(iid, f"{named}, key iid") != pull_request.number:
        raise FactInvalid(f"{named}, key iid: the approvals are of another merge request than "
                          f"{pull_request.repository}!{pull_request.number}")
    given: list[Approval] = []
    for index, item in enumerate(an_array(approvals.get("approved_by"), f"{named}, key approved_by")):
        where = f"{named}, key approved_by[{index}]"
        entry = an_object(item, where)
        at = entry.get("approved_at")
        given.append(Approval(_account(entry.get("user"), f"{where}.user"),
                              None if at is None else gitlab_time(at, f"{where}.approved_at"), None))
    return sorted(given, key=lambda approval: (approval.submitted_at is None, approval.submitted_at or "",
                                               approval.account.login))


def _label_events(pages: list[Any], named: str) -> dict[str, LabelEvent]:
    """Who added each label last, and when: the last ``add`` of each label name, and the ``remove`` after it."""
    items = list(itertools.chain.from_iterable(an_array(page, named, limit=10_000) for page in pages))
    found: list[tuple[str, int, str, str, Account | None]] = []
    for index, item in enumerate(items):
        where = f"{named}, key [{index}]"
        event = an_object(item, where)
        action = a_word(event.get("action"), f"{where}.action", ("add", "remove"))
        if event.get("label") is None:
            continue  # a label deleted since
        name = check_text(an_object(event["label"], f"{where}.label").get("name"), f"{where}.label.name")
        at = gitlab_time(event.get("created_at"), f"{where}.created_at")
        found.append((at, index, action, name,
                      None if event.get("user") is None else _account(event["user"], f"{where}.user")))
    last: dict[str, LabelEvent] = {}
    for at, _, action, name, set_by in sorted(found, key=lambda row: row[:2]):
        if action == "add":
            last[name] = LabelEvent(name, at, set_by)
        elif name in last:
            last[name] = replace(last[name], removed_at=at)
    if len(last) > MAX_ITEMS:
        raise FactInvalid(f"{named}: sets {len(last)} labels; an outcome keeps at most {MAX_ITEMS}")
    return last
