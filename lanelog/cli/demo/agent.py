"""A scripted agent: each patch kind is one row (or reject reason) of the decision table.

A patch is a branch off `main` in a throwaway repository; `Patch` says how the
router is to be called on it.  Outcome markers (`demo-outcome: ...`) in the
added lines tell the demo's property runner what to answer, so the lane gets
hold, fail and unresolved results from real subprocess runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from lanelog.cli.demo.repos import DemoRepo

# The outcome a narrow patch asks the runner for, per property or for all ("*").
Outcome = dict[str, str]


@dataclass(frozen=True)
class Patch:
    """One attempt to route: which repository, which refs, and what the agent meant."""

    kind: str
    repo: DemoRepo
    head: str
    base: str = "main"
    checkout: Path | None = None  # route from another folder (the not-a-checkout case)
    extra_args: tuple[str, ...] = field(default=())
    pull_request: int = 0  # the pull request it is an attempt of (scenario.py numbers them)
    agent: str = ""  # the agent's account, which opened the pull request


def _marker(outcome: Outcome) -> str:
    return "# demo-outcome: " + " ".join(f"{prop}={token}" for prop, token in outcome.items())


def _append(repo: DemoRepo, rel: str, lines: list[str]) -> None:
    repo.write({rel: repo.read(rel).rstrip("\n") + "\n" + "\n".join(lines) + "\n"})


def _small_change(n: int, outcome: Outcome) -> list[str]:
    return [
        "",
        _marker(outcome),
        f"def tidy_{n}(record: dict) -> dict:",
        "    return {k: v for k, v in record.items() if v is not None}",
    ]


def narrow(repo: DemoRepo, n: int, day: date, path: str, outcome: Outcome) -> Patch:
    """A narrow diff on a mapped file: the property lane is eligible."""
    branch = f"agent/{n}-narrow"
    repo.start_branch(branch)
    _append(repo, path, _small_change(n, outcome))
    return Patch("narrow", repo, repo.commit_branch(f"tidy records in {path}", day))


def too_wide(repo: DemoRepo, n: int, day: date) -> Patch:
    """More than the line cap: the probe rejects before any call."""
    repo.start_branch(f"agent/{n}-wide")
    _append(repo, "store.py", [f"CACHE_{i} = {i}" for i in range(450)])
    return Patch("too_wide", repo, repo.commit_branch("inline the cache table", day))


def narrowed(repo: DemoRepo, n: int, day: date, first: Patch, outcome: Outcome) -> Patch:
    """The agent's second try on the pull request of a patch the probe rejected as too wide: one narrow edit."""
    repo.start_branch(f"agent/{n}-narrowed")
    _append(repo, "store.py", _small_change(n, outcome))
    return Patch("narrowed", repo, repo.commit_branch("inline only the hot cache entry", day),
                 pull_request=first.pull_request)


def generated_bulk(repo: DemoRepo, n: int, day: date, outcome: Outcome) -> Patch:
    """Hundreds of generated lines (excluded by policy) plus a narrow edit: still a pass."""
    repo.start_branch(f"agent/{n}-generated")
    repo.write({"generated/schema_gen.py": "\n".join(f"FIELD_{i} = {i}" for i in range(600)) + "\n"})
    _append(repo, "api.py", _small_change(n, outcome))
    return Patch("generated_bulk", repo, repo.commit_branch("regenerate the schema", day))


def fixture_and_test(repo: DemoRepo, n: int, day: date) -> Patch:
    """A fixture and a test edited in one diff."""
    repo.start_branch(f"agent/{n}-fixture")
    repo.write({"fixtures/order.fixture.json": f'{{"id": {n}, "total": 0}}\n'})
    _append(repo, "tests/test_store.py", [f"def test_zero_total_{n}():", "    pass"])
    return Patch("fixture_and_test", repo, repo.commit_branch("make the order test pass", day))


def assertion_removed(repo: DemoRepo, n: int, day: date) -> Patch:
    """A deleted assert: the probe rejects."""
    repo.start_branch(f"agent/{n}-assert")
    text = repo.read("store.py")
    repo.write({"store.py": text.replace("    assert isinstance(record, dict)\n", "", 1)})
    return Patch("assertion_removed", repo, repo.commit_branch("drop a failing check", day))


def unmapped(repo: DemoRepo, n: int, day: date) -> Patch:
    """Only files the map does not name: nothing selected means stop."""
    repo.start_branch(f"agent/{n}-docs")
    _append(repo, "docs/notes.md", [f"- note {n}: clarified the retry wording"])
    return Patch("unmapped", repo, repo.commit_branch("reword the notes", day))


def over_budget(repo: DemoRepo, n: int, day: date) -> Patch:
    """Properties whose units exceed the cap: split the patch."""
    repo.start_branch(f"agent/{n}-budget")
    _append(repo, "store.py", _small_change(n, {"*": "hold"}))
    _append(repo, "export.py", _small_change(n + 1, {"*": "hold"}))
    return Patch("over_budget", repo, repo.commit_branch("store and export in one go", day))


def over_cost_cap(repo: DemoRepo, n: int, day: date) -> Patch:
    """A long edit under the line cap whose call is estimated above the policy's cost cap."""
    repo.start_branch(f"agent/{n}-costly")
    _append(repo, "ledger.py", [f"RATE_{n}_{i:03d} = 'a posting rate copied in from the finance sheet'"
                                for i in range(300)])
    return Patch("over_cost_cap", repo, repo.commit_branch("inline the rate table", day))


def policy_change(repo: DemoRepo, n: int, day: date) -> Patch:
    """A patch that raises its own line cap: judged by the base commit's policy, rejected."""
    repo.start_branch(f"agent/{n}-policy")
    repo.write({"lanes.yaml": repo.read("lanes.yaml").replace("line_cap: 400", "line_cap: 2000")})
    _append(repo, "api.py", _small_change(n, {"*": "hold"}))
    return Patch("policy_change", repo, repo.commit_branch("raise the line cap", day))


def binary_file(repo: DemoRepo, n: int, day: date) -> Patch:
    """A binary file has no line count: size unknown, reject."""
    repo.start_branch(f"agent/{n}-binary")
    repo.write({f"assets/badge_{n}.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))})
    _append(repo, "api.py", _small_change(n, {"*": "hold"}))
    return Patch("binary_file", repo, repo.commit_branch("add a status badge", day))


def base_missing(repo: DemoRepo, n: int, day: date) -> Patch:
    """A CI job without the remote ref fetched: the base is missing, reject."""
    repo.start_branch(f"agent/{n}-nobase")
    _append(repo, "api.py", _small_change(n, {"*": "hold"}))
    head = repo.commit_branch("handle empty bodies", day)
    return Patch("base_missing", repo, head, base="origin/main")


def head_missing(repo: DemoRepo, n: int, day: date) -> Patch:
    """A branch deleted before the job ran: the head is missing, reject."""
    return Patch("head_missing", repo, f"agent/{n}-deleted-before-ci")


def not_a_repo(repo: DemoRepo, n: int, day: date, folder: Path) -> Patch:
    """A job that ran in an unpacked tarball rather than a checkout."""
    folder.mkdir(parents=True, exist_ok=True)
    return Patch("not_a_repo", repo, "HEAD", checkout=folder)
