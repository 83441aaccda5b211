"""Recorded GitHub payloads for the router's tests, in the shape GitHub sends them.

The shapes follow GitHub's webhook payloads (octokit/webhooks' payload-examples,
pull_request/closed.payload.json) and its REST answers for a pull request's reviews and an
issue's events: every key a consumer might read is there, with the values GitHub gives,
including the ones lanelog must not trust or must not read (the title, the body, the test
merge commit of an unmerged pull request).  The people: copilot-swe-agent[bot] opens the pull
requests, alice and bob review and merge, mergify[bot] merges for a team that lets a bot do it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

REPOSITORY = "octo-org/orders-service"
NUMBER = 42
HEAD = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
BASE = "e6939dfe5201d4fb696d6ed8b9e39642fa76fe97"
MERGE_COMMIT = "c4295bd74fb0f4fda03689c3df3f2803b658fd85"
API = "https://api.github.com"
WEB = "https://github.com"


def account(login: str, kind: str = "User", ident: int = 1) -> dict[str, Any]:
    """A user object as GitHub embeds it in a payload (a bot's login ends in [bot], its type Bot)."""
    return {
        "login": login, "id": ident, "node_id": f"MDQ6VXNlcj{ident}", "avatar_url":
        f"https://avatars.githubusercontent.com/u/{ident}?v=4", "gravatar_id": "", "url": f"{API}/users/{login}",
        "html_url": f"{WEB}/{login}", "followers_url": f"{API}/users/{login}/followers",
        "repos_url": f"{API}/users/{login}/repos", "events_url": f"{API}/users/{login}/events{{/privacy}}",
        "type": kind, "user_view_type": "public", "site_admin": False,
    }


AGENT = account("copilot-swe-agent[bot]", "Bot", 198982749)
ALICE = account("alice", "User", 1001)
BOB = account("bob", "User", 1002)
CAROL = account("carol", "User", 1003)
MERGIFY = account("mergify[bot]", "Bot", 37929162)
ACTIONS_BOT = account("github-actions[bot]", "Bot", 41898282)


def repository(full_name: str = REPOSITORY) -> dict[str, Any]:
    owner, name = full_name.split("/")
    return {
        "id": 186853002, "node_id": "MDEwOlJlcG9zaXRvcnkxODY4NTMwMDI=", "name": name, "full_name": full_name,
        "private": False, "owner": account(owner, "Organization", 9919), "html_url": f"{WEB}/{full_name}",
        "description": None, "fork": False, "url": f"{API}/repos/{full_name}", "default_branch": "main",
        "created_at": "2026-01-05T09:00:00Z", "updated_at": "2026-10-08T13:00:00Z", "pushed_at": "2026-10-08T13:00:00Z",
    }


def label(name: str, ident: int = 1) -> dict[str, Any]:
    return {"id": ident, "node_id": f"LA_kw{ident}", "url": f"{API}/repos/{REPOSITORY}/labels/{name}",
            "name": name, "color": "d73a4a", "default": False, "description": None}


def pull_request(*, merged: bool, state: str = "closed", merged_by: dict[str, Any] | None = None,
                 auto_merge: dict[str, Any] | None = None, labels: tuple[str, ...] = (),
                 closed_at: str | None = "2026-10-08T14:03:00Z", author: dict[str, Any] = AGENT) -> dict[str, Any]:
    """A pull request object as the event carries it."""
    base = f"{API}/repos/{REPOSITORY}"
    return {
        "url": f"{base}/pulls/{NUMBER}", "id": 279147437, "node_id": "MDExOlB1bGxSZXF1ZXN0Mjc5MTQ3NDM3",
        "html_url": f"{WEB}/{REPOSITORY}/pull/{NUMBER}", "diff_url": f"{WEB}/{REPOSITORY}/pull/{NUMBER}.diff",
        "issue_url": f"{base}/issues/{NUMBER}", "number": NUMBER, "state": state, "locked": False,
        "title": "Copy the body on put", "user": copy.deepcopy(author),
        "body": "The agent's description of its patch.", "created_at": "2026-10-08T12:00:00Z",
        "updated_at": "2026-10-08T14:03:00Z", "closed_at": closed_at,
        "merged_at": closed_at if merged else None,
        # GitHub fills this on an unmerged pull request too: its test merge, never merged.
        "merge_commit_sha": MERGE_COMMIT, "assignee": None, "assignees": [], "requested_reviewers": [],
        "requested_teams": [], "labels": [label(name, index + 1) for index, name in enumerate(labels)],
        "milestone": None, "draft": False, "commits_url": f"{base}/pulls/{NUMBER}/commits",
        "statuses_url": f"{base}/statuses/{HEAD}",
        "head": {"label": "octo-org:copilot/fix-put", "ref": "copilot/fix-put", "sha": HEAD,
                 "user": account("octo-org", "Organization", 9919), "repo": repository()},
        "base": {"label": "octo-org:main", "ref": "main", "sha": BASE,
                 "user": account("octo-org", "Organization", 9919), "repo": repository()},
        "_links": {"html": {"href": f"{WEB}/{REPOSITORY}/pull/{NUMBER}"}},
        "author_association": "CONTRIBUTOR", "auto_merge": auto_merge, "active_lock_reason": None,
        "merged": merged, "mergeable": None, "rebaseable": None, "mergeable_state": "unknown",
        "merged_by": copy.deepcopy(merged_by), "comments": 0, "review_comments": 1, "maintainer_can_modify": False,
        "commits": 1, "additions": 1, "deletions": 1, "changed_files": 1,
    }


def event(action: str = "closed", **pull: Any) -> dict[str, Any]:
    """A pull_request event payload: its action, the pull request, the repository and the sender."""
    sender = pull.get("merged_by") or ALICE
    return {"action": action, "number": NUMBER, "pull_request": pull_request(**pull), "repository": repository(),
            "organization": {"login": "octo-org", "id": 9919}, "sender": copy.deepcopy(sender)}


def merged_by_a_person() -> dict[str, Any]:
    return event(merged=True, merged_by=ALICE)


def auto_merged() -> dict[str, Any]:
    """Auto-merge merged it: GitHub names whoever enabled auto-merge as the merger."""
    auto = {"enabled_by": copy.deepcopy(ALICE), "merge_method": "squash",
            "commit_title": "Copy the body on put (#42)", "commit_message": ""}
    return event(merged=True, merged_by=ALICE, auto_merge=auto)


def merged_by_a_bot() -> dict[str, Any]:
    return event(merged=True, merged_by=MERGIFY)


def closed_without_merge() -> dict[str, Any]:
    return event(merged=False)


def review(user: dict[str, Any], state: str, submitted_at: str | None, ident: int,
           commit: str = HEAD) -> dict[str, Any]:
    """A review as `gh api repos/OWNER/NAME/pulls/N/reviews` prints it."""
    return {
        "id": ident, "node_id": f"PRR_kw{ident}", "user": copy.deepcopy(user), "body": "",
        "state": state, "html_url": f"{WEB}/{REPOSITORY}/pull/{NUMBER}#pullrequestreview-{ident}",
        "pull_request_url": f"{API}/repos/{REPOSITORY}/pulls/{NUMBER}",
        "author_association": "MEMBER", "_links": {"html": {"href": f"{WEB}/{REPOSITORY}/pull/{NUMBER}"}},
        **({"submitted_at": submitted_at} if submitted_at is not None else {}), "commit_id": commit,
    }


def labeled(name: str, actor: dict[str, Any] | None, created_at: str, ident: int,
            kind: str = "labeled") -> dict[str, Any]:
    """An issue event as `gh api repos/OWNER/NAME/issues/N/events` prints it."""
    return {"id": ident, "node_id": f"LE_lADO{ident}", "url": f"{API}/repos/{REPOSITORY}/issues/events/{ident}",
            "actor": copy.deepcopy(actor), "event": kind, "commit_id": None, "commit_url": None,
            "created_at": created_at, "label": {"name": name, "color": "d73a4a"}, "performed_via_github_app": None}


def write(path: Path, *pages: Any) -> Path:
    """Write JSON as gh prints it: each page's array in turn (one page: one JSON document)."""
    path.write_text("".join(json.dumps(page, indent=2) for page in pages) + "\n", encoding="utf-8")
    return path
