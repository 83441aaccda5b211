"""Who approved a pull request, and who set its labels, from what `gh api` prints.

``--reviews FILE`` is the output of ``gh api repos/OWNER/NAME/pulls/N/reviews --paginate``;
``--label-events FILE`` of ``gh api repos/OWNER/NAME/issues/N/events --paginate``.  With
``--paginate``, gh prints each page's JSON array in turn, with nothing around them (with
``--slurp``, one array of the pages): both are read, as one list in the order printed.

GitHub's rule for which reviews approve, as the pull request's page shows them: each reviewer's
latest submitted review that is not a comment decides.  APPROVED approves; CHANGES_REQUESTED
cancels an earlier approval, and so does DISMISSED (an approval dismissed, by a person or as
stale after a push, changes its own state to DISMISSED); COMMENTED changes nothing; a PENDING
review is not submitted.  A review whose account was deleted (``user`` null) names nobody and
is not counted.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from lanelog.errors import FactInvalid
from lanelog.router.facts import check_account, check_sha, check_text, check_time, kind
from lanelog.router.jsonfile import read_pages

MAX_APPROVALS = 100
STATES = ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING")
DECIDING = ("APPROVED", "CHANGES_REQUESTED", "DISMISSED")


def _items(path: Path, named: str, what: str) -> list[tuple[str, Any]]:
    """Every item of every page, with the key a message names it by (``[3]``, counted across pages)."""
    pages = read_pages(path, named)
    if len(pages) == 1 and pages[0] and all(isinstance(page, list) for page in pages[0]):
        pages = pages[0]  # gh api --paginate --slurp: one array of the pages
    wrong = next((page for page in pages if not isinstance(page, list)), None)
    if not pages or wrong is not None:
        raise FactInvalid(f"{named}: must be the JSON array of {what} that `gh api ... --paginate` prints, "
                          f"not {kind(wrong) if pages else 'an empty file'}")
    return [(f"[{index}]", item) for index, item in enumerate(itertools.chain.from_iterable(pages))]


def _object(item: Any, where: str, what: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise FactInvalid(f"{where}: must be {what} object, not {kind(item)}")
    return item


def approving_reviews(path: Path, named: str, repository: str, number: int) -> list[dict[str, Any]]:
    """The approving reviews by GitHub's rule: one per reviewer whose latest deciding review approves,
    ``{"login", "type", "submitted_at", "commit_id"}``, in the order they were submitted."""
    deciding: list[tuple[str, int, str, dict[str, Any]]] = []
    for key, item in _items(path, named, "reviews"):
        where = f"{named}, key {key}"
        review = _object(item, where, "a review")
        _of_this_pull_request(review.get("pull_request_url"), f"{where}.pull_request_url", repository, number)
        state = review.get("state")
        if not isinstance(state, str) or state not in STATES:
            raise FactInvalid(f"{where}.state: must be one of {', '.join(STATES)}")
        if state not in DECIDING or review.get("user") is None:
            continue
        user = check_account(review["user"], f"{where}.user")
        commit = review.get("commit_id")
        deciding.append((check_time(review.get("submitted_at"), f"{where}.submitted_at"), len(deciding), state,
                         {**user, "commit_id": None if commit is None else check_sha(commit, f"{where}.commit_id")}))
    latest: dict[str, tuple[str, dict[str, Any]]] = {}
    for submitted, _, state, review in sorted(deciding, key=lambda row: row[:2]):
        latest[review["login"]] = (state, {"login": review["login"], "type": review["type"],
                                           "submitted_at": submitted, "commit_id": review["commit_id"]})
    approved = sorted((review for state, review in latest.values() if state == "APPROVED"),
                      key=lambda review: (review["submitted_at"], review["login"]))
    if len(approved) > MAX_APPROVALS:
        raise FactInvalid(f"{named}: {len(approved)} reviewers approve; an outcome keeps at most {MAX_APPROVALS}")
    return approved


def _of_this_pull_request(value: Any, where: str, repository: str, number: int) -> None:
    """A review names its pull request's API address: one of another pull request is the wrong file."""
    if isinstance(value, str) and not value.lower().endswith(f"/repos/{repository.lower()}/pulls/{number}"):
        raise FactInvalid(f"{where}: the review is of another pull request than {repository}#{number}")


def label_setters(path: Path, named: str) -> dict[str, dict[str, Any]]:
    """Who set each label last, and when: the last ``labeled`` event of each label name, as
    ``{"set_by": {"login", "type"}, "set_at"}`` (no ``set_by`` when the account was deleted)."""
    last: dict[str, tuple[str, int, dict[str, Any]]] = {}
    for index, (key, item) in enumerate(_items(path, named, "issue events")):
        where = f"{named}, key {key}"
        event = _object(item, where, "an issue event")
        if event.get("event") != "labeled":
            continue  # nothing else is read of the other events
        label = _object(event.get("label"), f"{where}.label", "a label")
        name = check_text(label.get("name"), f"{where}.label.name")
        set_at = check_time(event.get("created_at"), f"{where}.created_at")
        setter = {} if event.get("actor") is None else {"set_by": check_account(event["actor"], f"{where}.actor")}
        if name not in last or (set_at, index) >= last[name][:2]:
            last[name] = (set_at, index, {**setter, "set_at": set_at})
    return {name: found for name, (_, _, found) in last.items()}
