"""`lanelog report --format json` held byte for byte against golden files made before the
report's figures and money came from one pass over the attempts (docs/performance.md).

demo.report.json is the report of `lanelog demo --weeks 4` (the session's demo database,
tests/conftest.py); when the demo itself changes, make it again with
`lanelog demo --db D --weeks 4 --out L && lanelog report --db D --format json --today 2026-12-01` (the day
fixed, so the stale pull requests are counted to the same day whenever the test runs).
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from lanelog.cli import cli

DATA = Path(__file__).parent / "data"
TODAY = "2026-12-01"


def report_json(*args: str) -> str:
    result = CliRunner().invoke(cli, ["report", *args, "--format", "json", "--today", TODAY],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_demo_report_is_the_golden_file_byte_for_byte(demo_dir: Path) -> None:
    assert report_json("--db", str(demo_dir / "demo.duckdb")) == (DATA / "demo.report.json").read_text()


def test_the_review_report_is_the_golden_file_byte_for_byte() -> None:
    assert report_json(str(DATA / "review.jsonl")) == (DATA / "review.report.json").read_text()


def test_spend_avoided_is_patch_rejects_times_the_cost_per_armed_call_and_setup_rejects_never_count(
        demo_dir: Path) -> None:
    """One definition of the spend avoided: the demo has setup rejects (CI to fix), which saved nothing."""
    import json
    from decimal import Decimal

    money = json.loads(report_json("--db", str(demo_dir / "demo.duckdb")))["money"]
    weeks = [week for week in money["weeks"] if week["cost_per_armed_call"] is not None]
    assert weeks and any(week["probe_rejects"] > week["patch_rejects"] for week in weeks)
    for week in weeks:
        # The week's mean cost per armed call is shown rounded; the estimate is made from the exact one.
        exact = Decimal(str(week["cost"])) * week["patch_rejects"] / week["calls_priced"]
        assert Decimal(str(week["spend_avoided_estimate"])) == round(exact, 10)
    total = sum(Decimal(str(week["spend_avoided_estimate"])) for week in money["weeks"])
    assert money["totals"]["spend_avoided_estimate"] == float(total)
