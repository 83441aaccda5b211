"""The example policy and flaky list load.

The example workflows are run step by step, as GitHub runs them, in tests/workflows/.
"""

from __future__ import annotations

from pathlib import Path

from lanelog.router import parse_flaky, parse_policy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_example_policy_and_flaky_list_load():
    policy = parse_policy((EXAMPLES / "lanes.yaml").read_text(encoding="utf-8"), "lanes.yaml")
    assert policy.line_cap == 400 and policy.budget_cap == 3
    assert policy.properties_for("store.py") == ["prop_round_trip", "prop_idempotent_put"]
    (row,) = parse_flaky((EXAMPLES / "flaky.yaml").read_text(encoding="utf-8"), "flaky.yaml")
    assert row.id == "test_export_race" and row.owner == "ci-team"
