"""GitLab's and Bitbucket's published example payloads (tests/router/data/forges/README.md cites them),
made into the closes the tests need by setting what GitLab and Bitbucket set on a merge or a close."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "forges"


def published(name: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return payload


def write(path: Path, payload: Any) -> Path:
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def gitlab_hook(action: str = "merge", state: str = "merged", **attributes: Any) -> dict[str, Any]:
    """GitLab's Merge Request Hook example as GitLab sends it on ``action`` (a merge by default)."""
    hook = copy.deepcopy(published("gitlab-merge-request-hook.json"))
    hook["object_attributes"].update(action=action, state=state, **attributes)
    return hook


def bitbucket_payload(state: str = "MERGED") -> dict[str, Any]:
    """Bitbucket's pull request payload example: MERGED is ``pullrequest:fulfilled``'s, DECLINED ``rejected``'s."""
    payload = copy.deepcopy(published("bitbucket-pullrequest.json"))
    payload["pullrequest"]["state"] = state
    return payload


def bitbucket_account(nickname: str, kind: str = "user", account_id: str | None = None) -> dict[str, Any]:
    """An account object as Bitbucket Cloud gives it today (with its ``type``)."""
    return {"type": kind, "nickname": nickname, "display_name": nickname.title(),
            "account_id": account_id or f"5b0{nickname}", "uuid": "{00000000-0000-0000-0000-000000000000}"}
