"""GitLab's and Bitbucket's adapters read their forges' published example payloads into outcome lines.

The payloads are the forges' own published examples (tests/router/data/forges/README.md cites
them); every line is written by the real `lanelog outcome`, and a bad one is exit 2 naming the
file and the key, with nothing written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lanelog.router.forges import Account, forge
from tests.router import forge_payloads as fp
from tests.router.conftest import Repo

HEAD = "da1560886d4f094c3e6c9ef40349f7d38b5d27d7"


def test_gitlabs_published_merge_request_hook_merged_gives_an_outcome_line(tmp_path: Path, outcome) -> None:
    event = fp.write(tmp_path / "hook.json", fp.gitlab_hook())
    line = outcome("--forge", "gitlab", "--event", str(event)).line
    assert line["pull_request"] == {"repository": "gitlabhq/gitlab-test", "number": 1,
                                    "url": "http://example.com/diaspora/merge_requests/1"}
    assert (line["repo"], line["head"], line["state"], line["forge"]) == ("gitlab-test", HEAD, "merged", "gitlab")
    assert line["merged_at"] == line["closed_at"] == line["ts"] == "2013-12-03T17:23:34Z"
    assert line["merged_by"] == {"login": "root", "type": "User"}
    assert (line["auto_merge"], line["author"], line["merge_commit"]) == (None, None, None)
    assert line["labels"] == [{"name": "API"}] and "approvals" not in line


def test_gitlabs_close_without_merge_names_no_merger(tmp_path: Path, outcome) -> None:
    event = fp.write(tmp_path / "hook.json", fp.gitlab_hook("close", "closed"))
    line = outcome("--forge", "gitlab", "--event", str(event)).line
    assert (line["state"], line["merged_at"], line["merged_by"]) == ("closed", None, None)


def test_gitlabs_own_time_form_and_a_nested_group_are_read(tmp_path: Path, outcome) -> None:
    hook = fp.gitlab_hook(updated_at="2017-09-15 16:52:00 UTC", merged_at="2017-09-15 16:51:00 UTC")
    hook["project"]["path_with_namespace"] = "platform/payments/ledger"
    line = outcome("--forge", "gitlab", "--event", str(fp.write(tmp_path / "hook.json", hook))).line
    assert line["pull_request"]["repository"] == "platform/payments/ledger" and line["repo"] == "ledger"
    assert (line["merged_at"], line["closed_at"]) == ("2017-09-15T16:51:00Z", "2017-09-15T16:51:00Z")


def test_a_gitlab_merge_when_the_pipeline_succeeds_is_an_auto_merge_by_who_set_it(tmp_path: Path, outcome) -> None:
    event = fp.write(tmp_path / "hook.json", fp.gitlab_hook(merge_when_pipeline_succeeds=True))
    line = outcome("--forge", "gitlab", "--event", str(event)).line
    assert line["auto_merge"] == {"enabled_by": {"login": "root", "type": "User"}, "merge_method": None}


def test_gitlab_approvals_with_a_time_count_and_one_without_is_kept_unknown(tmp_path: Path, outcome) -> None:
    approvals = {"iid": 1, "approved": True, "approved_by": [
        {"user": {"id": 7, "username": "carol", "name": "Carol"}},
        {"user": {"id": 6, "username": "user1", "name": "User1"}, "approved_at": "2013-12-03T17:20:00.000Z"}]}
    event = fp.write(tmp_path / "hook.json", fp.gitlab_hook())
    line = outcome("--forge", "gitlab", "--event", str(event),
                   "--approvals", str(fp.write(tmp_path / "approvals.json", approvals))).line
    assert line["approvals"] == [
        {"login": "user1", "type": "User", "submitted_at": "2013-12-03T17:20:00Z", "commit_id": None},
        {"login": "carol", "type": "User", "submitted_at": None, "commit_id": None}]


def test_gitlab_approvals_of_another_merge_request_are_refused(tmp_path: Path, outcome) -> None:
    event = fp.write(tmp_path / "hook.json", fp.gitlab_hook())
    approvals = fp.write(tmp_path / "approvals.json", {"iid": 2, "approved_by": []})
    found = outcome("--forge", "gitlab", "--event", str(event), "--approvals", str(approvals))
    assert found.exit_code == 2 and "approvals.json, key iid: the approvals are of another" in found.stderr


@pytest.mark.parametrize(("user", "kind"), [
    ({"username": "alice"}, "User"),
    ({"username": "project_42_bot_3f1c9a"}, "Bot"),
    ({"username": "group_7_bot_abc"}, "Bot"),
    ({"username": "project_42_bot"}, "Bot"),
    ({"username": "renovate", "bot": True}, "Bot"),
    ({"username": "project_x_bot_1"}, "User"),
])
def test_gitlabs_bots_are_written_as_bots(tmp_path: Path, outcome, user: dict[str, Any], kind: str) -> None:
    hook = fp.gitlab_hook()
    hook["user"] = user
    line = outcome("--forge", "gitlab", "--event", str(fp.write(tmp_path / "hook.json", hook))).line
    assert line["merged_by"] == {"login": user["username"], "type": kind}
    assert forge("gitlab").is_person(Account(user["username"], kind)) is (kind == "User")


def test_bitbuckets_published_fulfilled_payload_gives_an_outcome_line_with_short_ids(tmp_path: Path,
                                                                                    outcome) -> None:
    event = fp.write(tmp_path / "fulfilled.json", fp.bitbucket_payload("MERGED"))
    line = outcome("--forge", "bitbucket", "--event", str(event)).line
    assert line["pull_request"] == {"repository": "team_name/repo_name", "number": 1,
                                    "url": "https://api.bitbucket.org/pullrequest_id"}
    assert (line["repo"], line["state"], line["forge"]) == ("repo_name", "merged", "bitbucket")
    assert (line["head"], line["merge_commit"], line["short_ids"]) == ("d3022fc0ca3d", "764413d85e29",
                                                                        ["head", "merge_commit"])
    assert line["merged_at"] == line["closed_at"] == "2015-04-06T15:23:38Z"
    # The published example's accounts carry no type: known by login, never taken for a person.
    assert line["merged_by"] == line["author"] == {"login": "emmap1", "type": None}
    assert line["approvals"] == [] and line["labels"] == []


def test_bitbuckets_published_rejected_payload_is_a_close_without_merge(tmp_path: Path, outcome) -> None:
    event = fp.write(tmp_path / "rejected.json", fp.bitbucket_payload("DECLINED"))
    line = outcome("--forge", "bitbucket", "--event", str(event)).line
    assert (line["state"], line["merged_at"], line["merged_by"], line["merge_commit"]) == ("closed", None, None, None)
    assert line["short_ids"] == ["head"]


def test_bitbucket_short_ids_are_made_full_against_the_checkout(tmp_path: Path, outcome, make_repo) -> None:
    repo: Repo = make_repo()
    head = repo.write({"store.py": "def put(key, body):\n    return key\n"}).commit("the agent's change")
    payload = fp.bitbucket_payload("DECLINED")
    payload["pullrequest"]["source"]["commit"]["hash"] = head[:12]
    event = fp.write(tmp_path / "rejected.json", payload)
    line = outcome("--forge", "bitbucket", "--event", str(event), "--repo", str(repo.root)).line
    assert line["head"] == head and "short_ids" not in line
    payload["pullrequest"]["source"]["commit"]["hash"] = "0123456789ab"
    fp.write(tmp_path / "rejected.json", payload)
    unknown = outcome("--forge", "bitbucket", "--event", str(event), "--repo", str(repo.root))
    assert unknown.exit_code == 2 and "the head 0123456789ab names no one commit there" in unknown.stderr


def test_bitbucket_approvals_are_the_approving_participants_but_the_author(tmp_path: Path, outcome) -> None:
    payload = fp.bitbucket_payload("MERGED")
    author = fp.bitbucket_account("agent", "app_user", account_id="author-1")
    payload["pullrequest"]["author"] = author
    payload["pullrequest"]["closed_by"] = fp.bitbucket_account("alice")
    payload["pullrequest"]["participants"] = [
        {"type": "participant", "role": "PARTICIPANT", "approved": True, "user": author,
         "participated_on": "2015-04-06T15:00:00+00:00"},
        {"type": "participant", "role": "REVIEWER", "approved": True, "user": fp.bitbucket_account("bob"),
         "participated_on": "2015-04-06T15:10:00+00:00"},
        {"type": "participant", "role": "REVIEWER", "approved": False, "user": fp.bitbucket_account("carol")},
        {"type": "participant", "role": "REVIEWER", "approved": True,
         "user": fp.bitbucket_account("ci-app", "app_user")},
    ]
    line = outcome("--forge", "bitbucket", "--event", str(fp.write(tmp_path / "fulfilled.json", payload))).line
    assert line["author"] == {"login": "agent", "type": "Bot"} and line["merged_by"] == {"login": "alice",
                                                                                          "type": "User"}
    standing = "2015-04-06T15:23:38Z"  # the merge's: Bitbucket gives no approval's own time
    assert line["approvals"] == [
        {"login": "bob", "type": "User", "submitted_at": standing, "commit_id": None},
        {"login": "ci-app", "type": "Bot", "submitted_at": standing, "commit_id": None}]


def _gitlab(change) -> dict[str, Any]:
    hook = fp.gitlab_hook()
    change(hook)
    return hook


def _bitbucket(change) -> dict[str, Any]:
    payload = fp.bitbucket_payload()
    change(payload)
    return payload


HOSTILE = [
    ("gitlab", fp.published("bitbucket-pullrequest.json"), "key object_kind: is not a Merge Request Hook"),
    ("gitlab", fp.gitlab_hook("open", "opened"), "key object_attributes.action: is not a merge request's merge"),
    ("gitlab", _gitlab(lambda h: h["object_attributes"].update(state="shipped", action="update")),
     "key object_attributes.state: must be one of opened, closed, merged, locked"),
    ("gitlab", _gitlab(lambda h: h["object_attributes"].update(updated_at="yesterday")),
     "key object_attributes.updated_at: must be a time such as 2017-09-15 16:52:00 UTC"),
    ("gitlab", _gitlab(lambda h: h["object_attributes"].pop("last_commit")),
     "key object_attributes.last_commit: must be an object, not null"),
    ("gitlab", _gitlab(lambda h: h.pop("project")), "key project: must be an object, not null"),
    ("gitlab", _gitlab(lambda h: h["project"].update(path_with_namespace="a/../b c")),
     "key project.path_with_namespace: must be GROUP/PROJECT"),
    ("gitlab", _gitlab(lambda h: h["user"].update(username="al\u202eice")), "key user.username:"),
    ("bitbucket", fp.gitlab_hook(), "key pullrequest: is not a pullrequest:fulfilled or pullrequest:rejected"),
    ("bitbucket", fp.bitbucket_payload("OPEN"), "key pullrequest.state: must be one of MERGED, DECLINED"),
    ("bitbucket", fp.published("bitbucket-pullrequest.json"), "key pullrequest.state: must be one of MERGED"),
    ("bitbucket", _bitbucket(lambda p: p["pullrequest"].update(updated_on="2015-04-06 15:23")),
     "key pullrequest.updated_on: must be a time with its offset"),
    ("bitbucket", _bitbucket(lambda p: p["pullrequest"]["source"]["commit"].update(hash="d3022fc0ca3")),
     "key pullrequest.source.commit.hash: must be a commit's id, 12, 40 or 64 hex digits"),
    ("bitbucket", _bitbucket(lambda p: p.pop("repository")), "key repository: must be an object, not null"),
    ("bitbucket", _bitbucket(lambda p: p["pullrequest"].update(participants=[{"approved": "yes"}])),
     "key pullrequest.participants[0].approved: must be true or false"),
]


@pytest.mark.parametrize(("name", "payload", "said"), HOSTILE)
def test_a_bad_payload_is_exit_2_naming_the_file_and_key_and_writes_nothing(
        tmp_path: Path, outcome, name: str, payload: dict[str, Any], said: str) -> None:
    event = fp.write(tmp_path / "event.json", payload)
    found = outcome("--forge", name, "--event", str(event))
    assert found.exit_code == 2 and found.added == []
    assert f"{event}, {said}" in found.stderr and "Traceback" not in found.stderr


def test_bitbucket_refuses_a_reviews_file_its_approvals_are_in_the_payload(tmp_path: Path, outcome) -> None:
    event = fp.write(tmp_path / "fulfilled.json", fp.bitbucket_payload())
    reviews = fp.write(tmp_path / "reviews.json", [])
    found = outcome("--forge", "bitbucket", "--event", str(event), "--reviews", str(reviews))
    assert found.exit_code == 2 and "reviews.json: Bitbucket's approvals are read from the --event" in found.stderr


def test_gitlab_label_events_say_who_set_each_label_last(tmp_path: Path, outcome) -> None:
    events = [
        {"id": 1, "user": {"id": 9, "username": "project_1_bot_x"}, "created_at": "2013-12-03T10:00:00.000Z",
         "resource_type": "MergeRequest", "resource_id": 99, "label": {"id": 206, "name": "API"}, "action": "add"},
        {"id": 2, "user": {"id": 2, "username": "alice"}, "created_at": "2013-12-03T11:00:00.000Z",
         "resource_type": "MergeRequest", "resource_id": 99, "label": {"id": 206, "name": "API"}, "action": "remove"},
        {"id": 3, "user": {"id": 2, "username": "alice"}, "created_at": "2013-12-03T12:00:00.000Z",
         "resource_type": "MergeRequest", "resource_id": 99, "label": {"id": 206, "name": "API"}, "action": "add"},
        {"id": 4, "user": {"id": 2, "username": "alice"}, "created_at": "2013-12-03T12:30:00.000Z",
         "resource_type": "MergeRequest", "resource_id": 99, "label": None, "action": "add"},
    ]
    event = fp.write(tmp_path / "hook.json", fp.gitlab_hook())
    line = outcome("--forge", "gitlab", "--event", str(event),
                   "--label-events", str(fp.write(tmp_path / "label-events.json", events))).line
    assert line["labels"] == [{"name": "API", "set_by": {"login": "alice", "type": "User"},
                               "set_at": "2013-12-03T12:00:00Z"}]


@pytest.mark.parametrize(("approvals", "said"), [
    ([], "approvals.json: must be the JSON object of GET /projects/:id/merge_requests/:iid/approvals, not an array"),
    ({"iid": 1}, "approvals.json, key approved_by: must be an array, not null"),
    ({"approved_by": [{"user": None}]}, "approvals.json, key approved_by[0].user: must be an object, not null"),
    ({"approved_by": [{"user": {"username": "bob"}, "approved_at": "soon"}]},
     "approvals.json, key approved_by[0].approved_at: must be a time such as 2017-09-15 16:52:00 UTC"),
    ({"approved_by": [{"user": {"username": "bob", "bot": "no"}}]},
     "approvals.json, key approved_by[0].user.bot: must be true or false"),
])
def test_a_bad_gitlab_approvals_file_is_exit_2_naming_the_key(tmp_path: Path, outcome, approvals: Any,
                                                             said: str) -> None:
    event = fp.write(tmp_path / "hook.json", fp.gitlab_hook())
    found = outcome("--forge", "gitlab", "--event", str(event),
                    "--approvals", str(fp.write(tmp_path / "approvals.json", approvals)))
    assert found.exit_code == 2 and found.added == [] and said in found.stderr


def test_a_gitlab_label_removed_after_it_was_last_added_says_when(tmp_path: Path, outcome) -> None:
    events = [
        {"id": 1, "user": {"id": 2, "username": "alice"}, "created_at": "2013-12-03T10:00:00.000Z",
         "resource_type": "MergeRequest", "resource_id": 99, "label": {"id": 206, "name": "API"}, "action": "add"},
        {"id": 2, "user": {"id": 2, "username": "alice"}, "created_at": "2013-12-03T11:00:00.000Z",
         "resource_type": "MergeRequest", "resource_id": 99, "label": {"id": 206, "name": "API"}, "action": "remove"},
    ]
    event = fp.write(tmp_path / "hook.json", fp.gitlab_hook())
    line = outcome("--forge", "gitlab", "--event", str(event),
                   "--label-events", str(fp.write(tmp_path / "label-events.json", events))).line
    assert line["labels"] == [{"name": "API", "set_by": {"login": "alice", "type": "User"},
                               "set_at": "2013-12-03T10:00:00Z", "removed_at": "2013-12-03T11:00:00Z"}]
