"""assertion_paths: only removed lines in matching files count for assertion_removed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lanelog.router.policy import PolicyInvalid, parse_policy
from tests.router.conftest import LANES_YAML

# The docs map to a property, so a docs-only patch is judged on its assertions alone.
POLICY = LANES_YAML + '  "docs/": [prop_round_trip]\n'
SCOPED = POLICY + 'assertion_paths: ["tests/", "test_*.py"]\n'
GUIDE = "# Guide\n\nThe assertions in tests/ are checked in CI.\nRun them with pytest.\n"


@pytest.fixture
def history(make_repo, tmp_path):
    """Three patches on main: prose that says "assertions", a library assert, a test's assert."""
    repo = make_repo({"lanes.yaml": POLICY, "docs/guide.md": GUIDE})
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "main").strip()
    repo.write({"docs/guide.md": GUIDE.replace("The assertions in tests/ are checked in CI.\n", "")})
    prose = repo.commit("Shorten the guide")
    repo.write({"api.py": "def handle(payload):\n    return payload\n"})
    library = repo.commit("Drop the payload assert")
    repo.write({"tests/test_store.py": "def test_put():\n    pass\n"})
    test = repo.commit("Empty the put test")
    scoped = tmp_path / "scoped.yaml"
    scoped.write_text(SCOPED, encoding="utf-8")
    return repo, base, (prose, library, test), scoped


def test_route_counts_removed_assertions_only_in_the_matching_files(history, route, tmp_path):
    repo, base, (prose, library, test), scoped = history
    rejected = {}
    for head in (prose, library, test):
        for name, policy in (("every file", None), ("scoped", scoped)):
            extra = ("--policy", str(policy)) if policy else ()
            line = route(repo, "--base", f"{head}^", "--head", head, *extra, base=None).line
            rejected[head, name] = "assertion_removed" in line["reasons"]
    # By hand: every file, the seed's rule: all three remove a line matching \bassert.
    # Scoped to tests: only the test's removed assert counts.
    assert rejected == {(prose, "every file"): True, (prose, "scoped"): False,
                        (library, "every file"): True, (library, "scoped"): False,
                        (test, "every file"): True, (test, "scoped"): True}


def test_replay_shows_what_the_scope_releases(history):
    repo, base, (prose, library, test), scoped = history
    done = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(repo.root),
                           "--policy", str(scoped), "--commits", f"{base}..main", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["baseline"]["reasons"]["assertion_removed"] == 3
    assert result["candidate"]["reasons"]["assertion_removed"] == 1
    assert [(flip["head"], flip["baseline"]["probe"], flip["candidate"]["probe"]) for flip in result["flips"]] == [
        (prose, "reject", "pass"), (library, "reject", "pass")]


def test_a_bad_assertion_paths_value_names_the_key():
    with pytest.raises(PolicyInvalid, match="assertion_paths"):
        parse_policy(POLICY + "assertion_paths: tests/\n", "lanes.yaml")
    with pytest.raises(PolicyInvalid, match="assertion_paths"):
        parse_policy(POLICY + "assertion_paths: ['']\n", "lanes.yaml")
    assert parse_policy(POLICY, "lanes.yaml").assertion_paths is None
