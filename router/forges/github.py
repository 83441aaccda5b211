"""GitHub: its Actions jobs' variables, its event payloads, what `gh api` prints, its accounts.

**The job.**  Every GitHub Actions runner sets ``GITHUB_ACTIONS=true``; only then is anything
of the job read.  Its event payload is the file at ``$GITHUB_EVENT_PATH``: a ``pull_request``
or ``pull_request_target`` event (and the review events) carries the pull request and its
author, a push or a schedule neither.  The run is ``$GITHUB_RUN_ID`` and ``$GITHUB_RUN_ATTEMPT``,
its address made from ``$GITHUB_SERVER_URL`` and ``$GITHUB_REPOSITORY``.  ``$GITHUB_STEP_SUMMARY``
names the job summary's file.

**The files.**  ``--event FILE`` is a saved webhook payload as the runner writes it.  ``--reviews
FILE`` is the output of ``gh api repos/OWNER/NAME/pulls/N/reviews --paginate``, ``--label-events
FILE`` of ``gh api repos/OWNER/NAME/issues/N/events --paginate``: with ``--paginate``, gh prints
each page's JSON array in turn, with nothing around them (with ``--slurp``, one array of the
pages); both are read, as one list in the order printed.

GitHub's rule for which reviews approve, as the pull request's page shows them: each reviewer's
latest submitted review that is not a comment decides.  APPROVED approves; CHANGES_REQUESTED
cancels an earlier approval, and so does DISMISSED (an approval dismissed, by a person or as
stale after a push, changes its own state to DISMISSED); COMMENTED changes nothing; a PENDING
review is not submitted.  A review whose account was deleted (``user`` null) names nobody and
is not counted.  A person is an account of type User whose login does not end in ``[bot]``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from lanelog.errors import FactInvalid, InputFileInvalid
from lanelog.router.facts import (
    MAX_NUMBER,
    check_login,
    check_number,
    check_repository,
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
    kept,
    noted,
    refuse,
)
from lanelog.router.jsonfile import read_json, read_pages
from lanelog.router.paths import printable

MAX_RUN_ID = 20      # digits: GitHub's run ids are 64-bit
MAX_LABELS = 100     # GitHub's own limit of labels on an issue or pull request
MAX_APPROVALS = 100
MERGE_METHODS = ("merge", "squash", "rebase")
STATES = ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING")
DECIDING = ("APPROVED", "CHANGES_REQUESTED", "DISMISSED")
ACCOUNT_TYPE = re.compile(r"[A-Z][A-Za-z]{0,39}\Z")     # User, Bot, Organization, Mannequin


class GitHub(Forge):
    """GitHub and GitHub Actions."""

    name = "github"
    repository_words = "$GITHUB_REPOSITORY under GitHub Actions"
    event_words = "a saved pull_request closed event"
    job_words = "run it under GitHub Actions on a pull_request closed event"

    def runs_here(self, environ: Mapping[str, str]) -> bool:
        return environ.get("GITHUB_ACTIONS") == "true"

    def owns_variable(self, name: str) -> bool:
        return name.startswith("GITHUB_")

    def job_repository(self, environ: Mapping[str, str]) -> str | None:
        if not self.runs_here(environ) or "GITHUB_REPOSITORY" not in environ:
            return None
        return check_repository(environ["GITHUB_REPOSITORY"], "$GITHUB_REPOSITORY")

    def job_change(self, environ: Mapping[str, str], wanted: Collection[str],
                   notify: Callable[[str], None]) -> Change:
        if not self.runs_here(environ):
            return Change()
        from_event = [field for field in ("pull_request", "agent") if field in wanted]
        event = _event(environ, " and ".join(from_event), notify) if from_event else None
        pull_request = agent = None
        if event is not None:
            named = event_path_name(environ)
            if "pull_request" in wanted:
                pull_request = noted(lambda: _event_pull_request(event, named, environ), "pull_request", notify)
            if "agent" in wanted:
                agent = noted(lambda: _event_author(event, named), "agent", notify)
        run = noted(lambda: _run(environ), "ci_run", notify) if "ci_run" in wanted else None
        return Change(pull_request=pull_request, agent=agent, ci_run=run)

    def job_close(self, environ: Mapping[str, str], omit: Omit = refuse) -> Close | None:
        if not self.runs_here(environ) or not environ.get("GITHUB_EVENT_PATH"):
            return None
        named = event_path_name(environ)
        return _close(read_json(Path(environ["GITHUB_EVENT_PATH"]), named), named, environ, omit)

    def summary_path(self, environ: Mapping[str, str]) -> str | None:
        """``$GITHUB_STEP_SUMMARY``, read on or off Actions: ``--annotations always`` writes it wherever it is set."""
        return environ.get("GITHUB_STEP_SUMMARY") or None

    def close_of(self, event: Any, named: str, environ: Mapping[str, str], omit: Omit = refuse) -> Close:
        return _close(event, named, environ, omit)

    def read_approvals(self, path: Path, pull_request: PullRequest, omit: Omit = refuse) -> list[Approval]:
        return _approvals(path, printable(str(path)), pull_request, omit)

    def read_label_events(self, path: Path, omit: Omit = refuse) -> dict[str, LabelEvent]:
        return _label_events(path, printable(str(path)), omit)

    def is_person(self, account: Account) -> bool:
        return account.type == "User" and bool(account.login) and not account.login.endswith("[bot]")


FORGE = GitHub()


# The job's event and run.

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


def _event_pull_request(event: Mapping[str, Any], named: str, environ: Mapping[str, str]) -> PullRequest | None:
    """The event's pull request (its repository, number and address); None for an event without one (a push)."""
    pull = event.get("pull_request")
    if pull is None:
        return None
    if not isinstance(pull, dict):
        raise FactInvalid(f"{named}, key pull_request: must be an object")
    repository = _event_repository(event, named, environ)
    number = check_number(pull.get("number"), f"{named}, key pull_request.number")
    url = None if pull.get("html_url") is None else check_url(pull["html_url"], f"{named}, key pull_request.html_url")
    return PullRequest(repository, number, url)


def _event_repository(event: Mapping[str, Any], named: str, environ: Mapping[str, str]) -> str:
    """The event's ``repository.full_name``, else, under GitHub Actions, the run's ``$GITHUB_REPOSITORY``
    (the repository the workflow runs in, which is the pull request's)."""
    repository = event.get("repository")
    if isinstance(repository, dict) and "full_name" in repository:
        return check_repository(repository["full_name"], f"{named}, key repository.full_name")
    found = FORGE.job_repository(environ)
    if found is None:
        raise FactInvalid(f"{named}, key repository.full_name: missing")
    return found


def _event_author(event: Mapping[str, Any], named: str) -> str | None:
    """The login of the pull request's author (``pull_request.user.login``): the agent that opened it."""
    pull = event.get("pull_request")
    if not isinstance(pull, dict):
        return None
    return check_login(_object(pull.get("user"), f"{named}, key pull_request.user").get("login"),
                       f"{named}, key pull_request.user.login")


def _run(environ: Mapping[str, str]) -> Run | None:
    """This run's id and attempt (None without ``$GITHUB_RUN_ID``); its url only when the server and the
    repository are known."""
    run_id = environ.get("GITHUB_RUN_ID")
    if run_id is None:
        return None
    if not (run_id.isascii() and run_id.isdigit() and len(run_id) <= MAX_RUN_ID):
        raise FactInvalid(f"$GITHUB_RUN_ID: must be 1 to {MAX_RUN_ID} digits")
    attempt_text = environ.get("GITHUB_RUN_ATTEMPT", "")
    if not (attempt_text.isascii() and attempt_text.isdigit() and len(attempt_text) <= 10):
        raise FactInvalid(f"$GITHUB_RUN_ATTEMPT: must be a whole number from 1 to {MAX_NUMBER}")
    attempt = check_number(int(attempt_text), "$GITHUB_RUN_ATTEMPT")
    server, repository = environ.get("GITHUB_SERVER_URL"), environ.get("GITHUB_REPOSITORY")
    if not (server and repository):
        return Run(id=run_id, attempt=attempt)
    base = check_url(server, "$GITHUB_SERVER_URL").rstrip("/")
    if any(mark in base.partition("://")[2] for mark in "/?#"):
        raise FactInvalid("$GITHUB_SERVER_URL: must be the server's address alone, such as https://github.com")
    return Run(id=run_id, attempt=attempt, url=f"{base}/{check_repository(repository, '$GITHUB_REPOSITORY')}"
                                                f"/actions/runs/{run_id}/attempts/{attempt}")


# A closed event.

def _close(event: Any, named: str, environ: Mapping[str, str], omit: Omit) -> Close:
    """The close a ``pull_request`` ``closed`` event payload says, as GitHub sends it; an account or a
    label the line refuses is left out (``omit``)."""
    pull = event.get("pull_request") if isinstance(event, dict) else None
    if not isinstance(pull, dict) or event.get("action") != "closed":
        raise FactInvalid(f"{named}: is not a pull_request closed event ({_what(event)})")
    where = f"{named}, key pull_request"
    merged = pull.get("merged")
    if not isinstance(merged, bool):
        raise FactInvalid(f"{where}.merged: must be true or false, not {kind(merged)}")
    return Close(
        pull_request=PullRequest(
            _event_repository(event, named, environ), check_number(pull.get("number"), f"{where}.number"),
            None if pull.get("html_url") is None else check_url(pull["html_url"], f"{where}.html_url")),
        head=check_sha(_object(pull.get("head"), f"{where}.head").get("sha"), f"{where}.head.sha"),
        state="merged" if merged else "closed",
        merged_at=check_time(pull.get("merged_at"), f"{where}.merged_at") if merged else None,
        closed_at=check_time(pull.get("closed_at"), f"{where}.closed_at"),
        merged_by=kept(_account_or_none, pull.get("merged_by"), f"{where}.merged_by", "merged_by", named,
                       omit) if merged else None,
        auto_merge=_auto_merge(pull.get("auto_merge"), f"{where}.auto_merge", named, omit),
        author=kept(_account, pull.get("user"), f"{where}.user", "author", named, omit),
        # A pull request object without a labels key (some APIs' shapes) has none.
        labels=_labels(pull.get("labels", []), f"{where}.labels", named, omit),
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


def _account(value: Any, where: str) -> Account:
    """A GitHub user object as the line keeps it: its login and type (User, Bot, Organization...)."""
    if not isinstance(value, dict):
        raise FactInvalid(f"{where}: must be an object with a login and a type, not {kind(value)}")
    login = check_login(value.get("login"), f"{where}.login")
    account_type = value.get("type")
    if not isinstance(account_type, str) or not ACCOUNT_TYPE.match(account_type):
        shown = "" if isinstance(account_type, str) else f", not {kind(account_type)}"
        raise FactInvalid(f"{where}.type: must be an account type such as User or Bot{shown}")
    return Account(login, account_type)


def _account_or_none(value: Any, where: str) -> Account | None:
    """An account, or None where GitHub gives null (nobody GitHub can name)."""
    return None if value is None else _account(value, where)


def _auto_merge(value: Any, where: str, named: str, omit: Omit) -> AutoMerge | None:
    """Who enabled the pull request's auto-merge, and its method; None when it had none."""
    if value is None:
        return None
    auto = _object(value, where)
    method = auto.get("merge_method")
    if method is not None and method not in MERGE_METHODS:
        raise FactInvalid(f"{where}.merge_method: must be one of {', '.join(MERGE_METHODS)}")
    return AutoMerge(kept(_account_or_none, auto.get("enabled_by"), f"{where}.enabled_by", "auto_merge.enabled_by",
                          named, omit), method)


def _labels(value: Any, where: str, named: str, omit: Omit) -> tuple[str, ...]:
    """The names of the pull request's labels, at most MAX_LABELS; a label the line refuses left out."""
    if not isinstance(value, list):
        raise FactInvalid(f"{where}: must be an array, not {kind(value)}")
    if len(value) > MAX_LABELS:
        raise FactInvalid(f"{where}: holds {len(value)} labels; a pull request has at most {MAX_LABELS}")
    names = (kept(_label_name, label, f"{where}[{index}]", "labels", named, omit) for index, label in enumerate(value))
    return tuple(name for name in names if name is not None)


def _label_name(label: Any, where: str) -> str:
    return check_text(_object(label, where).get("name"), f"{where}.name")


# What `gh api --paginate` prints: the reviews and the issue events.

def _items(path: Path, named: str, what: str) -> list[tuple[str, Any]]:
    """Every item of every page, with the key a message names it by (``[3]``, counted across pages)."""
    pages = read_pages(path, named)
    if len(pages) == 1 and isinstance(pages[0], list) and pages[0] and all(isinstance(page, list)
                                                                            for page in pages[0]):
        pages = pages[0]  # gh api --paginate --slurp: one array of the pages
    # The pages that are no array, as a list: a page may be null, false or 0, so no value can mark "none".
    wrong = [page for page in pages if not isinstance(page, list)]
    if not pages or wrong:
        raise FactInvalid(f"{named}: must be the JSON array of {what} that `gh api ... --paginate` prints, "
                          f"not {kind(wrong[0]) if pages else 'an empty file'}")
    return [(f"[{index}]", item) for index, item in enumerate(itertools.chain.from_iterable(pages))]


def _item(item: Any, where: str, what: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise FactInvalid(f"{where}: must be {what} object, not {kind(item)}")
    return item


def _approvals(path: Path, named: str, pull_request: PullRequest, omit: Omit) -> list[Approval]:
    """The approving reviews by GitHub's rule: one per reviewer whose latest deciding review approves, in
    the order they were submitted; a review by an account the line refuses is left out (``omit``)."""
    deciding: list[tuple[str, int, str, Approval]] = []
    for key, item in _items(path, named, "reviews"):
        where = f"{named}, key {key}"
        review = _item(item, where, "a review")
        _of_this_pull_request(review.get("pull_request_url"), f"{where}.pull_request_url", pull_request)
        state = review.get("state")
        if not isinstance(state, str) or state not in STATES:
            raise FactInvalid(f"{where}.state: must be one of {', '.join(STATES)}")
        if state not in DECIDING or review.get("user") is None:
            continue
        account = kept(_account, review["user"], f"{where}.user", "approvals", named, omit)
        if account is None:
            continue
        submitted = check_time(review.get("submitted_at"), f"{where}.submitted_at")
        commit = review.get("commit_id")
        commit_id = None if commit is None else check_sha(commit, f"{where}.commit_id")
        deciding.append((submitted, len(deciding), state, Approval(account, submitted, commit_id)))
    latest: dict[str, tuple[str, Approval]] = {}
    for _, _, state, approval in sorted(deciding, key=lambda row: row[:2]):
        latest[approval.account.login] = (state, approval)
    approved = sorted((approval for state, approval in latest.values() if state == "APPROVED"),
                      key=lambda approval: (approval.submitted_at or "", approval.account.login))
    if len(approved) > MAX_APPROVALS:
        raise FactInvalid(f"{named}: {len(approved)} reviewers approve; an outcome keeps at most {MAX_APPROVALS}")
    return approved


def _of_this_pull_request(value: Any, where: str, pull_request: PullRequest) -> None:
    """A review names its pull request's API address: one of another pull request is the wrong file."""
    repository, number = pull_request.repository, pull_request.number
    if isinstance(value, str) and not value.lower().endswith(f"/repos/{repository.lower()}/pulls/{number}"):
        raise FactInvalid(f"{where}: the review is of another pull request than {repository}#{number}")


def _label_events(path: Path, named: str, omit: Omit) -> dict[str, LabelEvent]:
    """Who set each label last, and when: the last ``labeled`` event of each label name (no ``set_by`` when
    the account was deleted, or is one the line refuses: ``omit``; a label name it refuses is skipped), the
    app that acted for them (``performed_via_github_app``), and the ``unlabeled`` event after it, if any."""
    found: list[tuple[str, int, str, str, Account | None, str | None]] = []
    for index, (key, item) in enumerate(_items(path, named, "issue events")):
        where = f"{named}, key {key}"
        event = _item(item, where, "an issue event")
        if event.get("event") not in ("labeled", "unlabeled"):
            continue  # nothing else is read of the other events
        label = _item(event.get("label"), f"{where}.label", "a label")
        name = kept(check_text, label.get("name"), f"{where}.label.name", "labels", named, omit)
        at = check_time(event.get("created_at"), f"{where}.created_at")
        if name is None:
            continue
        set_by = None if event.get("actor") is None else kept(_account, event["actor"], f"{where}.actor", "labels",
                                                               named, omit)
        app = event.get("performed_via_github_app")
        via_app = None if app is None else kept(_app_slug, app, f"{where}.performed_via_github_app", "labels",
                                                 named, omit)
        # An app whose name the line refuses still acted: the label is then set by nobody the line can name.
        found.append((at, index, event["event"], name, None if app is not None and via_app is None else set_by,
                      via_app))
    last: dict[str, LabelEvent] = {}
    for at, _, action, name, set_by, via_app in sorted(found, key=lambda row: row[:2]):
        if action == "labeled":
            last[name] = LabelEvent(name, at, set_by, via_app)
        elif name in last:
            last[name] = replace(last[name], removed_at=at)
    return last


def _app_slug(app: Any, where: str) -> str:
    """The slug of the GitHub App that performed an event (``performed_via_github_app.slug``)."""
    return check_login(_object(app, where).get("slug"), f"{where}.slug")
