"""The budgets on the Spend review and the Overview (AppTest), and `lanelog dashboard --budgets`."""

from __future__ import annotations

import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from lanelog.dashboard.launch import app_environment


def spent(day: str, cost: float, repo: str = "svc-orders") -> dict[str, object]:
    return {"ts": f"{day}T12:00:00Z", "repo": repo, "probe": "pass", "model_call_allowed": True,
            "properties": ["prop_a"], "units": 1,
            "usage": {"prop_a": {"input_tokens": 10, "output_tokens": 1, "cost": cost, "currency": "USD"}}}


@pytest.fixture
def budgeted(make_db, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A database with 9 USD spent in the week of 2026-10-05, judged on 2026-10-07."""
    def make(text: str) -> Path:
        budgets = tmp_path / "budgets.yaml"
        budgets.write_text(text)
        monkeypatch.setenv("LANELOG_BUDGETS", str(budgets))
        monkeypatch.setenv("LANELOG_TODAY", "2026-10-07")
        return make_db([spent("2026-10-05", 4.0), spent("2026-10-06", 5.0), spent("2026-09-28", 2.0)])
    return make


def test_the_spend_review_shows_each_budget_and_its_sentence(budgeted, app) -> None:
    db = budgeted("budgets:\n  - {name: all_spend, amount: 10, currency: USD, period: week}\n"
                  "  - {name: svc, amount: 100, currency: USD, period: month, repo: 'svc-*'}\n")
    at = app(db, "views/spend.py")
    assert not at.exception
    texts = [text.value for text in at.text]
    assert "all_spend: 9.00 USD of 10.00 USD this week (90%), 21.00 USD projected by Sunday 2026-10-11" in texts
    # September's spend is not October's.
    assert ("svc (repositories svc-*): 9.00 USD of 100.00 USD this month (9%), 39.86 USD projected by "
            "Saturday 2026-10-31") in texts
    subheaders = [header.value for header in at.subheader]
    assert subheaders.index("Budgets") < subheaders.index("Cost per week")


def test_the_overview_names_a_budget_past_80_percent_as_text_not_markup(budgeted, app) -> None:
    db = budgeted("budgets:\n  - {name: all_spend_x_, amount: 10, currency: USD, period: week}\n"
                  "  - {name: quiet, amount: 1000, currency: USD, period: week}\n")
    at = app(db)
    assert not at.exception
    named = [box.value for box in at.warning if box.value.startswith("Budget")]
    assert named == ["Budget all\\_spend\\_x\\_ is nearly spent: 9\\.00 USD of 10\\.00 USD this week \\(90%\\), "
                     "21\\.00 USD projected by Sunday 2026\\-10\\-11\\. See the Spend review\\."]


def test_a_budgets_file_that_cannot_be_used_is_named_on_the_page(budgeted, app) -> None:
    db = budgeted("budgets:\n  - {name: a, amount: -5, currency: USD, period: week}\n")
    at = app(db, "views/spend.py")
    assert not at.exception
    assert [error.value for error in at.error] == ["The budgets file cannot be used."]
    assert any("line 2, key budgets[0].amount: an amount must be a number above 0" in text.value for text in at.text)
    # The page goes on with its figures.
    assert "Cost per week" in [header.value for header in at.subheader]
    # The Overview stays on its own figures.
    overview = app(db)
    assert not overview.exception and not [box for box in overview.error if "budget" in box.value]


def test_the_app_gets_the_budgets_file_and_day_only_when_given(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANELOG_BUDGETS", "/stale/budgets.yaml")
    monkeypatch.setenv("LANELOG_TODAY", "2001-01-01")
    env = app_environment(tmp_path / "db.duckdb")
    assert "LANELOG_BUDGETS" not in env and "LANELOG_TODAY" not in env
    env = app_environment(tmp_path / "db.duckdb", budgets=Path("b.yaml"), today=date(2026, 10, 7))
    assert env["LANELOG_BUDGETS"] == str(Path("b.yaml").resolve()) and env["LANELOG_TODAY"] == "2026-10-07"


def test_the_dashboard_refuses_a_budgets_file_it_cannot_use_before_serving(tmp_path: Path) -> None:
    bad = tmp_path / "budgets.yaml"
    bad.write_text("budgets:\n  - name: a\n    amount: .nan\n    currency: USD\n    period: week\n")
    done = subprocess.run([sys.executable, "-m", "lanelog", "dashboard", "--db", str(tmp_path / "x.duckdb"),
                           "--budgets", str(bad), "--port", "1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"Error: {bad} line 3, key budgets[0].amount: an amount must be a number "
                                   "above 0 and at most 1e+09, not nan")


def test_without_a_budgets_file_the_spend_review_says_how_to_set_one(make_db, app,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANELOG_BUDGETS", raising=False)
    at = app(make_db([spent("2026-10-05", 4.0)]), "views/spend.py")
    assert not at.exception
    assert "Budgets" not in [header.value for header in at.subheader]
    assert any("No budgets are set: `lanelog dashboard --budgets FILE`" in caption.value for caption in at.caption)


def test_the_pages_and_check_judge_the_budgets_with_the_same_function_and_figures(
        budgeted, app, monkeypatch: pytest.MonkeyPatch) -> None:
    """One judge: the Spend review's budgets are queries.judge's, as `check --budgets` prints them."""
    import json

    from click.testing import CliRunner

    import lanelog.queries
    from lanelog.cli import cli
    from lanelog.queries import budgets as budget_model
    from lanelog.queries import reporting

    text = ("budgets:\n  - {name: all_spend, amount: 10, currency: USD, period: week}\n"
            "  - {name: svc, amount: 100, currency: USD, period: month, repo: 'svc-*'}\n")
    db = budgeted(text)
    judged: list[str] = []
    judge = budget_model.judge

    def spy(*args, **kwargs):
        judged.append("called")
        return judge(*args, **kwargs)

    # Wherever the function is bound: its module, the door (`queries.judge`, the pages'), and check's report.
    for module in (budget_model, lanelog.queries, reporting):
        monkeypatch.setattr(module, "judge", spy, raising=False)
    done = CliRunner().invoke(cli, ["check", "--db", str(db), "--budgets", str(Path(db).parent / "budgets.yaml"),
                                    "--today", "2026-10-07", "--format", "json"])
    from_check = [json.loads(line) for line in done.stdout.splitlines() if '"kind": "budget"' in line]
    assert judged == ["called"]
    at = app(db, "views/spend.py")
    assert not at.exception and len(judged) > 1  # the page judged through the same function
    from lanelog.dashboard import data

    from_pages = data.budgets(date(2026, 10, 7))["statuses"]
    assert [{"kind": "budget", **status} for status in from_pages] == from_check
    assert [status["spend"] for status in from_pages] == [9.0, 9.0]


def _layers(at) -> list[list[dict]]:
    """Each chart's layers, as vega-lite specs, with their data rows under "rows"."""
    import json

    import pyarrow as pa

    found = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        datasets = {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist() for d in chart.proto.datasets}
        layers = spec.get("layer", [spec])
        found.append([{**layer, "rows": datasets.get(layer.get("data", {}).get("name"), [])} for layer in layers])
    return found


def test_a_scoped_budget_is_drawn_over_its_own_spend_and_one_matching_nothing_is_listed(budgeted, app) -> None:
    db = budgeted("budgets:\n  - {name: all_spend, amount: 10, currency: USD, period: week}\n"
                  "  - {name: svc, amount: 5, currency: USD, period: week, repo: 'svc-*'}\n"
                  "  - {name: ghost, amount: 5, currency: USD, period: week, repo: 'nothing-*'}\n")
    at = app(db, "views/spend.py")
    assert not at.exception
    charts = _layers(at)
    legends = [[row.get("line") for layer in chart for row in layer["rows"] if "line" in row] for chart in charts]
    # The weekly cost of all spend carries the all-spend budget alone; svc has a chart of its own spend.
    assert ["budget all_spend: 10.00 USD a week"] in legends and ["budget svc: 5.00 USD a week"] in legends
    assert not any("budget ghost" in line for lines in legends for line in lines)
    svc = next(chart for chart, lines in zip(charts, legends) if lines == ["budget svc: 5.00 USD a week"])
    bars = next(layer for layer in svc if layer.get("mark", {}).get("type") == "bar")
    assert sorted((row["week"], row["cost"]) for row in bars["rows"]) == [("2026-09-28", 2.0), ("2026-10-05", 9.0)]
    captions = [caption.value for caption in at.caption]
    assert "No spend in these weeks in the scope of ghost (repositories nothing-*): nothing to draw." in captions
