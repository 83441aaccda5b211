"""Bitbucket Cloud: its Pipelines' variables, its pull request payloads, its accounts.

**The job.**  Every Bitbucket Pipelines step has ``$BITBUCKET_BUILD_NUMBER``; only then is
anything of the job read.  A pull request pipeline names its pull request: ``$BITBUCKET_PR_ID``
in ``$BITBUCKET_REPO_FULL_NAME`` (``WORKSPACE/REPOSITORY``); the run is the build
``$BITBUCKET_BUILD_NUMBER``.  The agent is ``--agent`` alone: no variable names who opened it.
A step has no payload of the pull request's close: ``lanelog outcome`` takes it as ``--event FILE``.

**The payload.**  ``--event FILE`` is the body of a ``pullrequest:fulfilled`` or
``pullrequest:rejected`` webhook request.  Its event key travels in a header (``X-Event-Key``),
not in the body, so the body's ``pullrequest.state`` says which: ``MERGED`` or ``DECLINED``.
The time is ``pullrequest.updated_on``.  Bitbucket gives commits as 12-digit abbreviations:
``lanelog outcome --repo DIR`` resolves them to full ids in that checkout; without it they are
kept as given and the line names them in ``short_ids``.  The approvals are in the payload: the
participants with ``approved: true`` when it merged, the author excluded (by ``account_id``).
Bitbucket gives no approval's time (``participated_on`` is a participant's last activity), so an
approval is kept as standing at the merge: its ``submitted_at`` is the merge's time.

**Accounts.**  An account's login is its ``nickname``.  A ``type`` of ``user`` is a person,
``app_user`` an app; the line's ``type`` says ``User`` or ``Bot``, and null for an account of
no known type (never a person).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from lanelog.errors import FactInvalid
from lanelog.router.facts import (
    check_login,
    check_number,
    check_repository,
    check_short_sha,
    check_text,
    check_time,
    check_url,
)
from lanelog.router.forges import (
    Account,
    Approval,
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
from lanelog.router.forges._payload import a_flag, a_word, an_array, an_object
from lanelog.router.paths import printable

NAME = "bitbucket"
STATES = ("MERGED", "DECLINED")
ACCOUNT_TYPES = {"user": "User", "app_user": "Bot"}
MAX_BUILD_NUMBER = 20
SITE = "https://bitbucket.org"


class Bitbucket(Forge):
    """Bitbucket Cloud and Bitbucket Pipelines."""

    name = NAME
    repository_words = "$BITBUCKET_REPO_FULL_NAME under Bitbucket Pipelines"
    event_words = "a saved pullrequest:fulfilled or pullrequest:rejected payload"
    job_words = "save the pullrequest:fulfilled or pullrequest:rejected payload and give it as --event FILE"

    def runs_here(self, environ: Mapping[str, str]) -> bool:
        return bool(environ.get("BITBUCKET_BUILD_NUMBER"))

    def owns_variable(self, name: str) -> bool:
        return name.startswith("BITBUCKET_")

    def job_repository(self, environ: Mapping[str, str]) -> str | None:
        if not self.runs_here(environ) or "BITBUCKET_REPO_FULL_NAME" not in environ:
            return None
        return check_repository(environ["BITBUCKET_REPO_FULL_NAME"], "$BITBUCKET_REPO_FULL_NAME")

    def job_change(self, environ: Mapping[str, str], wanted: Collection[str],
                   notify: Callable[[str], None]) -> Change:
        if not self.runs_here(environ):
            return Change()
        # The agent comes from --agent alone on Bitbucket Pipelines.
        return change_read({"pull_request": lambda: _job_pull_request(environ), "ci_run": lambda: _job_run(environ)},
                           wanted, notify)

    def close_of(self, event: Any, named: str, environ: Mapping[str, str], omit: Omit = refuse) -> Close:
        return _close(event, named)  # (its pipelines carry no close: the base's job_close, None, stands)

    def read_approvals(self, path: Path, pull_request: PullRequest, omit: Omit = refuse) -> list[Approval]:
        raise FactInvalid(f"{printable(str(path))}: Bitbucket's approvals are read from the --event payload "
                          f"(its participants); leave out --reviews")

    def read_label_events(self, path: Path, omit: Omit = refuse) -> dict[str, LabelEvent]:
        raise FactInvalid(f"{printable(str(path))}: a Bitbucket pull request has no labels; leave out --label-events")

    def is_person(self, account: Account) -> bool:
        return account.type == "User"


FORGE = Bitbucket()


# The job.

def _digits(environ: Mapping[str, str], name: str) -> str:
    value = environ[name]
    if not (value.isascii() and value.isdigit() and len(value) <= MAX_BUILD_NUMBER):
        raise FactInvalid(f"${name}: must be 1 to {MAX_BUILD_NUMBER} digits")
    return value


def _job_pull_request(environ: Mapping[str, str]) -> PullRequest | None:
    """The pull request of a pull request pipeline; None for a branch's pipeline."""
    if not environ.get("BITBUCKET_PR_ID"):
        return None
    number = check_number(int(_digits(environ, "BITBUCKET_PR_ID")), "$BITBUCKET_PR_ID")
    repository = FORGE.job_repository(environ)
    if repository is None:
        raise FactInvalid("$BITBUCKET_REPO_FULL_NAME: missing")
    return PullRequest(repository, number, f"{SITE}/{repository}/pull-requests/{number}")


def _job_run(environ: Mapping[str, str]) -> Run:
    build = _digits(environ, "BITBUCKET_BUILD_NUMBER")
    repository = FORGE.job_repository(environ)
    return Run(id=build, url=None if repository is None else f"{SITE}/{repository}/pipelines/results/{build}")


# The payload.

def _account(value: Any, where: str) -> Account:
    """An account: its ``nickname``, and ``User``, ``Bot`` or null (no known type) by its ``type``."""
    account = an_object(value, where)
    login = check_login(account.get("nickname"), f"{where}.nickname")
    found = account.get("type")
    if found is not None and not isinstance(found, str):
        raise FactInvalid(f"{where}.type: must be a string")
    return Account(login, ACCOUNT_TYPES.get(found) if isinstance(found, str) else None)


def _account_id(value: Mapping[str, Any], where: str) -> str | None:
    found = value.get("account_id")
    return None if found is None else check_text(found, f"{where}.account_id", spaces=False)


def _close(event: Any, named: str) -> Close:
    """The close a ``pullrequest:fulfilled`` or ``pullrequest:rejected`` payload says."""
    if not isinstance(event, dict) or not isinstance(event.get("pullrequest"), dict):
        raise FactInvalid(f"{named}, key pullrequest: is not a pullrequest:fulfilled or pullrequest:rejected "
                          f"payload (no pullrequest object)")
    where = f"{named}, key pullrequest"
    pull = event["pullrequest"]
    merged = a_word(pull.get("state"), f"{where}.state", STATES) == "MERGED"
    closed_at = check_time(pull.get("updated_on"), f"{where}.updated_on")
    repository = an_object(event.get("repository"), f"{named}, key repository")
    head = check_short_sha(an_object(an_object(pull.get("source"), f"{where}.source").get("commit"),
                                     f"{where}.source.commit").get("hash"), f"{where}.source.commit.hash")
    merge_commit = None
    if merged and pull.get("merge_commit") is not None:
        merge_commit = check_short_sha(an_object(pull["merge_commit"], f"{where}.merge_commit").get("hash"),
                                       f"{where}.merge_commit.hash")
    closer = pull.get("closed_by") if pull.get("closed_by") is not None else event.get("actor")
    closer_where = f"{where}.closed_by" if pull.get("closed_by") is not None else f"{named}, key actor"
    author = an_object(pull.get("author"), f"{where}.author")
    return Close(
        pull_request=PullRequest(
            check_repository(repository.get("full_name"), f"{named}, key repository.full_name"),
            check_number(pull.get("id"), f"{where}.id"),
            check_url(an_object(an_object(pull.get("links"), f"{where}.links").get("html"), f"{where}.links.html")
                      .get("href"), f"{where}.links.html.href")),
        head=head, state="merged" if merged else "closed",
        merged_at=closed_at if merged else None, closed_at=closed_at,
        merged_by=None if not merged or closer is None else _account(closer, closer_where),
        auto_merge=None, author=_account(author, f"{where}.author"), labels=(),
        merge_commit=merge_commit,
        approvals=_approvals(pull.get("participants"), f"{where}.participants", _account_id(author, f"{where}.author"),
                             closed_at),
        forge=NAME,
        short=tuple(field for field, value in (("head", head), ("merge_commit", merge_commit))
                    if value is not None and len(value) == 12),
    )


def _approvals(value: Any, where: str, author_id: str | None, merged_at: str) -> tuple[Approval, ...]:
    """The participants approving when it closed, the author left out: each standing at ``merged_at``."""
    found: list[Approval] = []
    for index, item in enumerate(an_array([] if value is None else value, where)):
        at = f"{where}[{index}]"
        participant = an_object(item, at)
        if not a_flag(participant.get("approved"), f"{at}.approved"):
            continue
        user = an_object(participant.get("user"), f"{at}.user")
        if author_id is not None and _account_id(user, f"{at}.user") == author_id:
            continue
        found.append(Approval(_account(user, f"{at}.user"), merged_at, None))
    return tuple(sorted(found, key=lambda approval: approval.account.login))
