"""The outcome line: what became of a pull request when it closed (``lanelog outcome``).

It is read from the closed event of a forge's CI job (under GitHub Actions, the ``pull_request``
``closed`` event at ``$GITHUB_EVENT_PATH``) or a saved payload (``--event FILE``), or from flags
for a forge without an adapter; the approvals and who set each label come from the forge's
files (``--reviews``, ``--label-events``).  The forge (router/forges/) reads and checks every
value (router/facts.py): a payload that is not a closed pull request's event, or a value that
is not well formed, is an error naming the file and the key, and nothing is written; but a
login or a label name the line refuses (a bidi override, a control character) is no reason to
lose the close: it is left out, named on stderr and in the line's ``omitted``, and the merge is
recorded (judged without it: a merge by an account left out is by no person).  The pull
request's title and body are never read.

Recording the same close again gives the same line: ``outcome_id`` is derived from the close
itself and ``ts`` is when it closed, so a re-run job writes the line again and ingest counts
it once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from lanelog.errors import FactInvalid
from lanelog.router.change import ci_run_field
from lanelog.router.facts import check_login, check_text
from lanelog.router.forges import (
    Account,
    Approval,
    AutoMerge,
    Close,
    Forge,
    LabelEvent,
    Omission,
    PullRequest,
    chosen_forge,
    kept,
    refuse,
)
from lanelog.router.lane_log import OUTCOME_KIND, OUTCOME_PRODUCER, SCHEMA
from lanelog.router.short_ids import full_ids

FLAG_OF = {"labels": "--label"}  # a flag not spelled as its field


@dataclass(frozen=True)
class OutcomeFlags:
    """The closed pull request given as flags (another forge, or no event), each value already checked but
    the logins and labels, which ``closed_from_flags`` checks (one the line refuses is left out, not fatal)."""

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
    forge: str | None = None  # whose files --event, --reviews and --label-events are [default: the CI job's]
    repo: Path | None = None  # a checkout that resolves a payload's abbreviated commit ids (Bitbucket's)


def outcome_line(request: OutcomeRequest, environ: Mapping[str, str] | None = None,
                 notify: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """The outcome line of the closed pull request the request names; FactInvalid or InputFileInvalid
    (naming the file or flag and the key) when an input cannot be used, ForgeUnknown for a forge no
    adapter is named."""
    env = os.environ if environ is None else environ
    forge = chosen_forge(request.forge, env)
    omitted: list[Omission] = []

    def omit(omission: Omission) -> None:
        omitted.append(omission)
        notify(f"{omission.message}; left out, and named in the line's omitted: the close is recorded")

    closed = full_ids(_closed(request, forge, env, omit), request.repo)
    approvals = forge.read_approvals(request.reviews, closed.pull_request, omit) if request.reviews is not None \
        else None if closed.approvals is None else list(closed.approvals)
    setters = forge.read_label_events(request.label_events, omit) if request.label_events is not None else None
    repo = request.repo_name if request.repo_name is not None else closed.pull_request.repository.rsplit("/", 1)[1]
    return build_outcome(closed, repo=repo, approvals=approvals, setters=setters,
                         ci_run=ci_run_field(request.ci_run_url, env, notify), omitted=omitted)


def _closed(request: OutcomeRequest, forge: Forge, env: Mapping[str, str], omit: Callable[[Omission], None]) -> Close:
    """The close from ``--event``, else the flags, else the CI job's closed event."""
    given = request.flags.given()
    if request.event is not None:
        if given:
            raise FactInvalid(f"--event FILE describes the pull request; leave out {', '.join(given)}")
        return forge.read_close(request.event, env, omit)
    if given:
        return closed_from_flags(request.flags, forge, env, omit)
    found = forge.job_close(env, omit)
    if found is None:
        raise FactInvalid(f"no closed pull request to record: give --event FILE ({forge.event_words}), "
                          f"or --pull-request N --state merged|closed --closed-at TIME, or {forge.job_words}")
    return found


def closed_from_flags(flags: OutcomeFlags, forge: Forge, environ: Mapping[str, str],
                      omit: Callable[[Omission], None] = refuse) -> Close:
    """The close the flags give; what they leave out stays unknown (null), never guessed; a login or a
    label the line refuses is left out (``omit``)."""
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
    repository = flags.repository if flags.repository is not None else forge.job_repository(environ)
    if repository is None:
        raise FactInvalid(f"an outcome from flags needs --repository OWNER/NAME (or {forge.repository_words})")
    assert flags.pull_request is not None and flags.state is not None and flags.closed_at is not None
    merged_by = kept(check_login, flags.merged_by, "--merged-by", "merged_by", "", omit) if flags.merged_by else None
    author = kept(check_login, flags.author, "--author", "author", "", omit) if flags.author else None
    labels = (kept(check_text, label, f"--label [{index}]", "labels", "", omit)
              for index, label in enumerate(flags.labels))
    return Close(
        pull_request=PullRequest(repository, flags.pull_request, flags.pull_request_url), head=flags.head,
        state=flags.state,
        # A merge closes the pull request: the merge's time is the close's unless told otherwise.
        merged_at=(flags.merged_at or flags.closed_at) if merged else None, closed_at=flags.closed_at,
        merged_by=Account(merged_by, flags.merged_by_type) if merged_by else None,
        auto_merge=AutoMerge(None, None) if flags.auto_merge else None,
        author=Account(author, flags.author_type) if author else None,
        labels=tuple(label for label in labels if label is not None), merge_commit=flags.merge_commit,
    )


def outcome_id(closed: Close) -> str:
    """``outcome-`` and 32 hex digits of the close itself: the same close, the same id."""
    key = f"{closed.pull_request.repository}\n{closed.pull_request.number}\n{closed.state}\n{closed.closed_at}"
    return "outcome-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _account(account: Account | None) -> dict[str, Any] | None:
    return None if account is None else account.line()


def build_outcome(closed: Close, *, repo: str, approvals: list[Approval] | None,
                  setters: Mapping[str, LabelEvent] | None, ci_run: Mapping[str, Any] | None,
                  omitted: Sequence[Omission] = ()) -> dict[str, Any]:
    """The outcome line, fields in their documented order; ``approvals`` absent when unknown (no reviews
    file), never ``[]``; a label's ``set_by`` and ``set_at`` only when its events say them; ``omitted``
    only when a value was left out."""
    line: dict[str, Any] = {
        "schema": SCHEMA, "kind": OUTCOME_KIND, "producer": OUTCOME_PRODUCER, "outcome_id": outcome_id(closed),
        "ts": closed.closed_at, "repo": repo, "pull_request": closed.pull_request.line(),
        "head": closed.head, "state": closed.state, "merged_at": closed.merged_at, "closed_at": closed.closed_at,
        "merged_by": _account(closed.merged_by),
        "auto_merge": None if closed.auto_merge is None else closed.auto_merge.line(),
        "author": _account(closed.author),
    }
    if approvals is not None:
        line["approvals"] = [approval.line() for approval in approvals]
    line["labels"] = [{"name": name, **(setters[name].line() if setters and name in setters else {})}
                      for name in closed.labels]
    line["merge_commit"] = closed.merge_commit
    if closed.short:
        line["short_ids"] = list(closed.short)
    if closed.forge is not None:
        line["forge"] = closed.forge
    if ci_run is not None:
        line["ci_run"] = dict(ci_run)
    if omitted:
        line["omitted"] = [omission.line() for omission in omitted]
    return line
