"""The harness keeps GitHub's rules where the example workflows depend on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workflows.expressions import ExpressionError, condition, evaluate, interpolate
from tests.workflows.harness import Event, GitHub, HarnessError

CONTEXT = {"vars": {"BUCKET": "ci-logs"}, "github": {"run_id": "77", "event": {"pull_request": {"number": 5}}}}


@pytest.mark.parametrize(("expression", "status", "expected"), [
    ("always()", "failure", True),
    (None, "failure", False),
    ("success()", "success", True),
    ("failure()", "failure", True),
    ("vars.BUCKET != ''", "success", True),
    ("vars.MISSING != ''", "success", False),
    ("vars.BUCKET != ''", "failure", False),  # no status function: success() && (...)
    ("always() && vars.BUCKET != ''", "failure", True),
    ("always() && vars.MISSING != ''", "failure", False),
    ("${{ always() && vars.BUCKET == 'CI-LOGS' }}", "success", True),  # strings compare without case
    ("!cancelled() && (failure() || vars.BUCKET)", "success", True),
])
def test_if_conditions_read_as_the_runner_reads_them(expression, status, expected):
    assert condition(expression, CONTEXT, status) is expected


def test_expressions_give_text_and_fall_back_with_or():
    assert interpolate("lane-log-${{ github.run_id }}-${{ github.event.pull_request.number }}", CONTEXT) == \
        "lane-log-77-5"
    assert interpolate("${{ vars.GIT || 'https://example.invalid/x' }}", CONTEXT) == "https://example.invalid/x"
    assert interpolate("s3://${{ vars.MISSING }}/", CONTEXT) == "s3:///"
    assert evaluate("vars.MISSING == null && 0 == ''", CONTEXT) is True
    with pytest.raises(ExpressionError, match="not implemented"):
        evaluate("hashFiles('x')", CONTEXT)


WORKFLOW = """\
name: semantics
on: [workflow_dispatch]
jobs:
  job:
    runs-on: ubuntu-latest
    env:
      GREETING: hello ${{ vars.WHO }}
    steps:
      - uses: actions/cache@v4
        with:
          path: state.txt
          key: state-${{ github.run_id }}
          restore-keys: state-
      - name: Write
        run: |
          echo "$GREETING $GITHUB_RUN_ID" >> state.txt
          echo "LATER=from-env-file" >> "$GITHUB_ENV"
      - name: Maybe fail
        run: test "$FAIL" != yes
        env:
          FAIL: ${{ vars.FAIL }}
      - name: After a failure
        if: failure()
        run: echo "$LATER"
      - name: Only on success
        run: echo never after a failure
"""


def run(tmp_path: Path, github: GitHub, run_id: int, **variables: str):
    workflow = tmp_path / "semantics.yml"
    workflow.write_text(WORKFLOW, encoding="utf-8")
    return github.run(workflow, "job", Event(name="workflow_dispatch", repository="acme/orders", run_id=run_id,
                                             vars={"WHO": "team", **variables}))


def test_actions_cache_saves_only_when_the_job_succeeds_and_restores_the_newest(tmp_path):
    github = GitHub(tmp_path / "github")
    first = run(tmp_path, github, 1)
    assert first.status == "success" and first.step("After a failure").outcome == "skipped"
    failed = run(tmp_path, github, 2, FAIL="yes")
    assert failed.status == "failure"
    assert [step.outcome for step in failed.steps[2:]] == ["failure", "success", "skipped"]
    assert failed.step("After a failure").stdout == "from-env-file\n"
    third = run(tmp_path, github, 3)
    # The failed run saved nothing: the third restores the first run's entry, the newest saved.
    assert third.steps[0].outputs["cache-matched-key"] == "state-1"
    assert (third.workspace / "state.txt").read_text() == "hello team 1\nhello team 3\n"
    assert [entry["key"] for entry in github.caches.entries()] == ["state-1", "state-3"]


def test_a_cache_key_is_written_once(tmp_path):
    github = GitHub(tmp_path / "github")
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "state.txt").write_text("first\n")
    assert github.caches.save("k", ["state.txt"], folder) == "Cache saved with key: k"
    (folder / "state.txt").write_text("second\n")
    assert "Unable to reserve cache with key k" in github.caches.save("k", ["state.txt"], folder)
    restored = tmp_path / "restored"
    assert github.caches.restore("other", ["k"], ["state.txt"], restored) == "k"
    assert (restored / "state.txt").read_text() == "first\n"
    assert github.caches.restore("other", ["x"], ["state.txt"], restored) is None


def test_an_action_the_harness_does_not_implement_is_an_error(tmp_path):
    workflow = tmp_path / "other.yml"
    workflow.write_text("on: [workflow_dispatch]\njobs:\n  job:\n    steps:\n      - uses: actions/github-script@v7\n")
    with pytest.raises(HarnessError, match="actions/github-script@v7 is not implemented"):
        GitHub(tmp_path / "github").run(workflow, "job", Event(name="workflow_dispatch", repository="a/b", run_id=1))
