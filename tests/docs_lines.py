"""Real lines and a real report for tests/test_docs.py: the keys the pages must document, as made.

`lane_lines(folder)` routes four patches with the real `lanelog route` in a throwaway git repository (a
quarantined pass whose freezes one is dead, a pass whose lane runs and reports usage under a cost
cap, with a shadow policy and its pull request, agent and CI run; a reject with evidence; a lane
that cannot start) and records the pull request's close with the real `lanelog outcome`.
`outcomes(folder)` ingests those lines and returns `lanelog report --format json`'s ``outcomes`` section.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from lanelog.cli import cli
from tests.router import github_payloads as github

TODAY = "2026-10-07"
POLICY = """\
line_cap: 400
budget_cap: 3
fixture_paths: ["fixtures/"]
test_paths: ["tests/"]
properties:
  prop_round_trip: {units: 1, says: "serialize-then-parse returns the same record"}
  prop_reject_empty: {units: 1, says: "an empty payload remains a client error"}
map:
  store.py: [prop_round_trip]
  api.py: [prop_reject_empty]
prices:
  gpt-4o-mini: {input_per_million: 0.15, output_per_million: 0.60, currency: USD}
cost_cap: 5
"""
FLAKY = """\
flaky:
  - id: test_export_race
    expires: 2026-10-22
    owner: ci-team
    reason: shared clock in the export fixture
    paths: ["export/"]
  - id: test_old_clock
    expires: 2026-01-01
    owner: ci-team
    reason: fixed since
"""
USAGE = {"input_tokens": 1843, "output_tokens": 1, "model": "gpt-4o-mini"}
# Maps whose keys are data (property ids, test ids, reason codes), not fields: their values' keys are fields.
KEYED_BY_DATA = ("results", "usage", "freezes", "evidence")


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "docs", "GIT_AUTHOR_EMAIL": "docs@lanelog.invalid",
           "GIT_COMMITTER_NAME": "docs", "GIT_COMMITTER_EMAIL": "docs@lanelog.invalid"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env, timeout=60)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _patch(root: Path, branch: str, files: dict[str, str]) -> None:
    _git(root, "checkout", "-q", "-B", branch, "main")
    _write(root, files)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--no-verify", "-m", branch)


def _invoke(args: list[str]) -> None:
    done = CliRunner().invoke(cli, args, catch_exceptions=False, env={"GITHUB_ACTIONS": None})
    assert done.exit_code in (0, 1), done.output


def lane_lines(folder: Path) -> list[dict[str, Any]]:
    """The lines routed and recorded in a fresh folder (the repository, the log, the payloads go there)."""
    root, log = folder / "repo", folder / "lane-log.jsonl"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _write(root, {"lanes.yaml": POLICY, "flaky.yaml": FLAKY, "store.py": "def put(key, body):\n    return body\n",
                  "api.py": "def handle(payload):\n    assert payload\n    return payload\n",
                  "fixtures/order.json": '{"id": 1}\n', "export/run.py": "RUN = 1\n"})
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    route = ["route", "--repo", str(root), "--out", str(log), "--base", "main", "--today", TODAY]
    runner = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
        f"print({json.dumps(json.dumps({'token': 'hold', 'usage': USAGE}))})")
    _patch(root, "quarantined", {"export/run.py": "RUN = 2\n",
                                 "store.py": "def put(key, body):\n    return body  # kept\n"})
    _invoke(route)
    (folder / "shadow.yaml").write_text(POLICY.replace("budget_cap: 3", "budget_cap: 1"), encoding="utf-8")
    _patch(root, "lane", {"store.py": "def put(key, body):\n    return dict(body)\n"})
    _invoke([*route, "--run", runner, "--shadow", str(folder / "shadow.yaml"), "--pull-request",
             str(github.NUMBER), "--repository", github.REPOSITORY, "--pull-request-url",
             f"{github.WEB}/{github.REPOSITORY}/pull/{github.NUMBER}", "--agent", "copilot-swe-agent[bot]",
             "--ci-run-url", "https://ci.example/runs/1"])
    _patch(root, "rejected", {"api.py": "def handle(payload):\n    return payload\n", "fixtures/order.json": "{}\n"})
    _invoke(route)
    _patch(root, "unstarted", {"api.py": "def handle(payload):\n    assert payload\n    return None\n"})
    _invoke([*route, "--run", "lanelog-docs-no-such-runner {property}"])
    _outcome(folder, log)
    return [json.loads(text) for text in log.read_text(encoding="utf-8").splitlines()]


def _outcome(folder: Path, log: Path) -> None:
    """The pull request merged by auto-merge, approved, and labelled by a person: every outcome field (and
    a label whose name holds a bidi override, left out and named in ``omitted``)."""
    label = "lanelog:accept-quarantine"
    auto = {"enabled_by": github.ALICE, "merge_method": "squash", "commit_title": "t", "commit_message": ""}
    event = github.write(folder / "event.json", github.event(merged=True, merged_by=github.ALICE, auto_merge=auto,
                                                             labels=(label, "odd\u202e")))
    reviews = github.write(folder / "reviews.json", [github.review(github.BOB, "APPROVED", "2026-10-08T13:50:00Z", 1)])
    labels = github.write(folder / "labels.json", [github.labeled(label, github.CAROL, "2026-10-08T13:40:00Z", 1)])
    _invoke(["outcome", "--out", str(log), "--event", str(event), "--reviews", str(reviews), "--label-events",
             str(labels), "--ci-run-url", "https://ci.example/runs/2"])


def fields(value: Any, key: str | None = None) -> Iterator[str]:
    """Every field name in a line: its keys, and its objects' keys, but not a map's keys that are data."""
    if isinstance(value, list):
        for item in value:
            yield from fields(item)
    elif isinstance(value, dict):
        for name, inner in value.items():
            if key not in KEYED_BY_DATA:
                yield name
            yield from fields(inner, name if key not in KEYED_BY_DATA else None)


def outcomes(folder: Path) -> dict[str, Any]:
    """`lanelog report --format json`'s outcomes section, over the lines lane_lines wrote there, ingested."""
    db = folder / "lanelog.duckdb"
    for args in (["ingest", "--db", str(db), str(folder / "lane-log.jsonl")], ["report", "--db", str(db), "--format",
                                                                             "json"]):
        done = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert done.exit_code == 0, done.output
    report: dict[str, Any] = json.loads(done.stdout)
    return dict(report["outcomes"])
