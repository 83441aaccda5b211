"""What the people do with the agent's pull requests: review them, merge, close, or leave them open.

Each demo patch is a pull request of ``demo-org/<repository>`` (a follow-up patch is the agent's
narrower second try on the same one). Once every week is routed, the reviewers act on what the
router said of each pull request's last attempt, one to three days after it:

- a held lane is approved by one reviewer and merged by the other;
- a failed lane, and a patch the probe rejected, is closed without merge (a docs-only patch,
  which needs no property, is merged after review);
- an unresolved lane is merged or closed, turn about;
- a setup reject (CI broken) is left open: nobody decided anything;
- one pull request whose last attempt had a live quarantine is merged by auto-merge, which the
  agent's account enabled, with nobody's review after the attempt: the credit bug a real merge
  makes; another is labelled ``lanelog:accept-quarantine`` by a reviewer: a reviewed exception;
- a pull request that would close after the demo's last week is still open.

What they did is written as GitHub records it (the ``pull_request`` closed event, the reviews
and the issue events, as ``gh api`` prints them), and the real ``lanelog outcome`` reads it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from lanelog.cli.demo.agent import Patch
from lanelog.reasons import SETUP_REASONS
from lanelog.times import rfc3339

ORG = "demo-org"
API, WEB = "https://api.github.com", "https://github.com"
REVIEWERS = ("dana", "lee")
ACCEPT_LABEL = "lanelog:accept-quarantine"


@dataclass
class Tried:
    """One pull request's routed attempts, in the order they ran: the patch, its day and the router's plan."""

    number: int
    attempts: list[tuple[Patch, date, dict[str, Any]]] = field(default_factory=list)

    @property
    def last(self) -> tuple[Patch, date, dict[str, Any]]:
        return self.attempts[-1]

    @property
    def repository(self) -> str:
        return f"{ORG}/{self.last[0].repo.name}"


@dataclass
class Closing:
    """What the people did with one pull request: the files `lanelog outcome` reads."""

    tried: Tried
    event: dict[str, Any]
    reviews: list[dict[str, Any]]
    label_events: list[dict[str, Any]]
    story: str  # merged, closed, auto_merged_over_quarantine, accepted_quarantine


def opened_at(tried: Tried) -> datetime:
    """When the first attempt ran (the router's ts: --today's date, the clock's time of day)."""
    return datetime.fromisoformat(str(tried.attempts[0][2]["ts"]).replace("Z", "+00:00"))


def waited(tried: Tried) -> int:
    """Days from the pull request's last attempt to its close: one to three."""
    return 1 + tried.number % 3


def closed_at(tried: Tried) -> datetime:
    """Whole days after the first attempt's time (its last attempt's day plus `waited`), so the hours from
    the first attempt to the merge are the same on every run of the demo, whatever the clock said."""
    days = (tried.last[1] - tried.attempts[0][1]).days + waited(tried)
    return opened_at(tried) + timedelta(days=days)


def _account(login: str, kind: str = "User") -> dict[str, Any]:
    return {"login": login, "id": int(hashlib.sha256(login.encode()).hexdigest()[:6], 16), "type": kind,
            "url": f"{API}/users/{login}", "html_url": f"{WEB}/{login}", "site_admin": False}


def _sha(*parts: object) -> str:
    return hashlib.sha1("\n".join(map(str, parts)).encode()).hexdigest()


def story(tried: Tried, live_quarantines_seen: int) -> str | None:
    """What happens to a pull request, by what the router said of its last attempt; None: left open."""
    patch, _, plan = tried.last
    reasons = set(plan.get("reasons") or [])
    if plan.get("probe") == "reject":
        if reasons & SETUP_REASONS:
            return None
        return "merged" if patch.kind == "unmapped" else "closed"
    lane = plan.get("lane")
    if lane == "hold" and plan.get("quarantine"):
        # The tenth held attempt over a live freeze is auto-merged; the fifth is accepted by label.
        return {9: "auto_merged_over_quarantine", 4: "accepted_quarantine"}.get(live_quarantines_seen, "merged")
    if lane == "hold":
        return "merged"
    if lane == "fail":
        return "closed"
    return "merged" if tried.number % 2 == 0 else "closed"


def closing(tried: Tried, what: str) -> Closing:
    """The closed event, reviews and label events of one pull request, as GitHub records them."""
    patch, _, plan = tried.last
    closed, said = closed_at(tried), rfc3339(closed_at(tried) - timedelta(hours=5))
    reviewer, merger = REVIEWERS[tried.number % 2], REVIEWERS[(tried.number + 1) % 2]
    merged = what != "closed"
    agent = _account(patch.agent, "Bot")
    labels: list[dict[str, Any]] = []
    reviews: list[dict[str, Any]] = []
    label_events: list[dict[str, Any]] = []
    auto_merge = None
    merged_by: dict[str, Any] | None = _account(merger) if merged else None
    pulls = f"{API}/repos/{tried.repository}/pulls/{tried.number}"
    head = plan.get("head") or _sha(tried.repository, tried.number, "head")
    if what == "auto_merged_over_quarantine":
        auto_merge = {"enabled_by": agent, "merge_method": "squash", "commit_title": patch.kind, "commit_message": ""}
        merged_by = agent
    elif what == "accepted_quarantine":
        labels.append({"name": ACCEPT_LABEL, "color": "0e8a16", "default": False})
        label_events.append({"id": tried.number, "event": "labeled", "actor": _account(reviewer),
                             "created_at": said, "label": {"name": ACCEPT_LABEL, "color": "0e8a16"}})
    elif merged:
        reviews.append({"id": tried.number, "user": _account(reviewer), "state": "APPROVED", "body": "",
                        "submitted_at": said, "commit_id": head, "pull_request_url": pulls})
    pull = {
        "url": pulls, "number": tried.number, "state": "closed", "title": patch.kind.replace("_", " "),
        "html_url": f"{WEB}/{tried.repository}/pull/{tried.number}", "user": agent,
        "created_at": rfc3339(opened_at(tried) - timedelta(minutes=10)), "closed_at": rfc3339(closed),
        "merged_at": rfc3339(closed) if merged else None, "merged": merged, "merged_by": merged_by,
        "auto_merge": auto_merge, "labels": labels, "head": {"ref": f"agent/{tried.number}", "sha": head},
        "base": {"ref": "main", "repo": {"full_name": tried.repository}},
        "merge_commit_sha": _sha(tried.repository, tried.number, "merge"),
    }
    event = {"action": "closed", "number": tried.number, "pull_request": pull,
             "repository": {"full_name": tried.repository, "name": patch.repo.name},
             "sender": merged_by or _account(reviewer)}
    return Closing(tried, event, reviews, label_events, what)


def closings(pull_requests: list[Tried], end: date) -> list[Closing]:
    """Every pull request the people closed before the demo's end (the rest are still open)."""
    out, live = [], 0
    for tried in pull_requests:
        what = story(tried, live)
        plan = tried.last[2]
        if plan.get("lane") == "hold" and plan.get("quarantine") and plan.get("probe") != "reject":
            live += 1
        if what is None or closed_at(tried).date() >= end:
            continue
        out.append(closing(tried, what))
    return out


def write_inputs(found: Closing, folder: Path) -> tuple[Path, Path, Path]:
    """The three files as the outcome job would have them: the event, and `gh api`'s two answers."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "event.json", folder / "reviews.json", folder / "label-events.json"
    for path, value in zip(paths, (found.event, found.reviews, found.label_events)):
        path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    return paths
