"""GitLab CI's and Bitbucket Pipelines' jobs read by their adapters: which forge runs the job, what its
variables name, a bad variable left out with a note; and the facts only those forges accept."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanelog.errors import FactInvalid
from lanelog.router import ChangeOptions, attempt_change, check_repository, outside_ci
from lanelog.router.facts import check_nested_repository, check_sha, check_short_sha
from lanelog.router.forges import PullRequest, Run, forge, job_forge

GITLAB_JOB = {"GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "31", "CI_MERGE_REQUEST_PROJECT_PATH": "org/team/svc",
              "CI_MERGE_REQUEST_PROJECT_URL": "https://gitlab.example.com/org/team/svc", "CI_PIPELINE_ID": "77",
              "CI_JOB_URL": "https://gitlab.example.com/org/team/svc/-/jobs/9", "GITLAB_USER_LOGIN": "agent.one"}
BITBUCKET_JOB = {"BITBUCKET_BUILD_NUMBER": "5", "BITBUCKET_PR_ID": "8", "BITBUCKET_REPO_FULL_NAME": "acme/orders"}


def test_the_forge_whose_ci_runs_the_job_is_gitlabs_or_bitbuckets() -> None:
    assert job_forge(GITLAB_JOB) is forge("gitlab")
    assert job_forge(BITBUCKET_JOB) is forge("bitbucket")
    assert job_forge({"GITLAB_CI": "false", "CI_MERGE_REQUEST_IID": "3"}) is None


def test_a_gitlab_job_names_its_merge_request_its_pipeline_and_who_started_it() -> None:
    change = forge("gitlab").job_change(GITLAB_JOB, ["pull_request", "agent", "ci_run"], lambda _: None)
    assert change.pull_request == PullRequest("org/team/svc", 31,
                                              "https://gitlab.example.com/org/team/svc/-/merge_requests/31")
    assert change.agent == "agent.one"
    assert change.ci_run == Run(id="77", url="https://gitlab.example.com/org/team/svc/-/jobs/9")


def test_the_agent_option_wins_over_who_started_the_gitlab_pipeline() -> None:
    found = attempt_change(ChangeOptions(agent="sweep-bot"), GITLAB_JOB)
    assert found["agent"] == "sweep-bot" and found["pull_request"]["repository"] == "org/team/svc"


def test_a_bitbucket_job_names_its_pull_request_and_build_but_no_agent() -> None:
    found = attempt_change(ChangeOptions(), BITBUCKET_JOB)
    assert found == {"pull_request": {"repository": "acme/orders", "number": 8,
                                      "url": "https://bitbucket.org/acme/orders/pull-requests/8"},
                     "ci_run": {"id": "5", "url": "https://bitbucket.org/acme/orders/pipelines/results/5"}}


@pytest.mark.parametrize(("name", "environ", "note"), [
    ("gitlab", {**GITLAB_JOB, "CI_MERGE_REQUEST_IID": "x1"}, "pull_request left out: $CI_MERGE_REQUEST_IID:"),
    ("gitlab", {**GITLAB_JOB, "CI_MERGE_REQUEST_PROJECT_PATH": "org//svc"},
     "pull_request left out: $CI_MERGE_REQUEST_PROJECT_PATH: must be GROUP/PROJECT"),
    ("gitlab", {**GITLAB_JOB, "GITLAB_USER_LOGIN": "a b"}, "agent left out: $GITLAB_USER_LOGIN:"),
    ("gitlab", {**GITLAB_JOB, "CI_PIPELINE_ID": "-1"}, "ci_run left out: $CI_PIPELINE_ID:"),
    ("bitbucket", {**BITBUCKET_JOB, "BITBUCKET_PR_ID": "8;"}, "pull_request left out: $BITBUCKET_PR_ID:"),
])
def test_a_bad_ci_variable_leaves_its_field_out_with_one_note(name: str, environ: dict[str, str], note: str) -> None:
    notes: list[str] = []
    forge(name).job_change(environ, ["pull_request", "agent", "ci_run"], notes.append)
    assert len(notes) == 1 and notes[0].startswith(note)


def test_a_bad_bitbucket_repository_leaves_out_both_fields_it_names() -> None:
    notes: list[str] = []
    found = forge("bitbucket").job_change({**BITBUCKET_JOB, "BITBUCKET_REPO_FULL_NAME": "a/b/c"},
                                          ["pull_request", "ci_run"], notes.append)
    assert (found.pull_request, found.ci_run) == (None, None)
    assert [note.split(":")[0:2] for note in notes] == [["pull_request left out", " $BITBUCKET_REPO_FULL_NAME"],
                                                        ["ci_run left out", " $BITBUCKET_REPO_FULL_NAME"]]


def test_a_process_started_outside_ci_has_none_of_gitlabs_or_bitbuckets_variables() -> None:
    assert outside_ci({**GITLAB_JOB, **BITBUCKET_JOB, "PATH": "/bin", "MY_CI": "kept"}) == {"PATH": "/bin",
                                                                                          "MY_CI": "kept"}


def test_neither_ci_has_a_close_to_read_off_the_job(tmp_path: Path) -> None:
    assert forge("gitlab").job_close(GITLAB_JOB) is None and forge("bitbucket").job_close(BITBUCKET_JOB) is None


def test_a_nested_group_is_gitlabs_alone_and_githubs_rule_stays_owner_and_name() -> None:
    assert check_nested_repository("a/b/c/d", "x") == "a/b/c/d"
    assert check_nested_repository("a/b", "x") == "a/b"
    for bad in ("a", "a//b", "a/../b", "/a/b", "a/b/", "a/" + "b/" * 22 + "c"):
        with pytest.raises(FactInvalid):
            check_nested_repository(bad, "x")
    with pytest.raises(FactInvalid):
        check_repository("group/sub/project", "--repository")


def test_a_twelve_digit_commit_id_is_bitbuckets_alone() -> None:
    assert check_short_sha("D3022FC0CA3D", "x") == "d3022fc0ca3d"
    assert check_short_sha("a" * 40, "x") == "a" * 40
    for bad in ("d3022fc0ca3", "d3022fc0ca3dz", "g3022fc0ca3d", 12):
        with pytest.raises(FactInvalid):
            check_short_sha(bad, "x")
    with pytest.raises(FactInvalid):
        check_sha("d3022fc0ca3d", "--head")
