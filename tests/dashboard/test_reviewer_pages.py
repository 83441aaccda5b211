"""The pages as the weekly reviewer reads them: triage in the order of the work, whole ids, tables that
say when they hold more rows than they show, Data health's outcome lines, the Overview's week before,
its ratio line, headings and money in one form."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from lanelog import queries, store
from lanelog.dashboard import cells, charts, present, spend_charts, triage_tables
from lanelog.money import amount_text
from tests.dashboard.dashboard_support import ingested
from tests.dashboard.dashboard_support import line as dashboard_line
from tests.dashboard.test_pages import flat_layers, texts
from tests.ingest.support import line, outcome

TRIAGE, HEALTH, SPEND = "views/triage.py", "views/health.py", "views/spend.py"


def demo_ids(db: Path) -> set[str]:
    """Every test id a quarantine of the demo names."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {row[0] for row in con.execute("SELECT DISTINCT unnest(quarantine) FROM attempts").fetchall()}
    finally:
        con.close()


def test_a_quarantine_cell_keeps_whole_ids_and_counts_the_rest() -> None:
    ids = ["test_export_race", "test_shared_tmpdir"]
    assert cells.fit_ids(ids, 400) == "test_export_race; test_shared_tmpdir"
    assert cells.fit_ids(ids, triage_tables.MERGE_WIDTHS["quarantine"]) == "test_export_race +1 more"
    assert cells.fit_ids("; ".join(ids), triage_tables.TRIAGE_WIDTHS["quarantine"]) == "test_export_race +1 more"
    assert cells.fit_ids([*ids, "test_ledger_clock"], 120) == "3 tests"  # not one whole id fits beside the count
    assert cells.fit_ids([], 100) == "" and cells.fit_ids(None, 100) == ""
    alone = cells.fit_ids(["test_" + "x" * 40], 120)
    assert alone.endswith("…") and cells.text_px(alone) <= 120 - cells.CELL_PADDING_PX


def test_no_triage_cell_is_cut_inside_a_test_id_on_the_demo(app: Any, demo_db: Path) -> None:
    at = app(demo_db, TRIAGE)
    assert not at.exception
    known, shown = demo_ids(demo_db), []
    for table in at.dataframe:
        frame = table.value
        if "quarantine" in frame.columns and "field" not in frame.columns:
            shown += list(frame["quarantine"])
    con = store.open_db(demo_db, read_only=True)
    try:
        credit, rows = queries.credit_bugs(con), queries.credit_bug_rows(con)
    finally:
        con.close()
    # The lines, the merged credit bug and the reviewed exceptions: every row of the three tables.
    assert len(shown) == len(rows) + len(credit.merges) + len(credit.exceptions) > 10
    for cell in shown:
        ids = re.sub(r" \+\d+ more$", "", cell).split("; ")
        assert set(ids) <= known, cell
    assert "test_export_race +1 more" in shown


def test_only_a_credit_bugs_quarantine_cell_is_tinted() -> None:
    merge = {"merged_at": None, "pr_repository": "demo-org/orders-service", "pr_number": 31, "merged_by": "bot",
             "auto_merge": True, "quarantine": ["test_export_race"]}
    styled = triage_tables.highlighted(triage_tables.merges_shown([merge, {**merge, "pr_number": 32}]))
    styled._compute()
    tinted = {column for (_, column), styles in styled.ctx.items() if styles}
    assert tinted == {list(triage_tables.MERGE_WIDTHS).index("quarantine")}
    assert all(styles == [("background-color", "rgba(214, 39, 40, 0.16)")]
               for (_, column), styles in styled.ctx.items() if column in tinted)


def test_the_triage_page_tints_the_credit_bugs_and_not_the_reviewed_exceptions(app: Any, demo_db: Path) -> None:
    at = app(demo_db, TRIAGE)
    heads = [str(element.value) for element in at.subheader]
    merged, lines, reviewed = (next(i for i, head in enumerate(heads) if head.startswith(start))
                               for start in ("Merged over", "Lines with", "Reviewed exceptions"))
    assert merged < lines < reviewed  # the credit bugs first, the reviewed exceptions below
    styled = [bool(table.proto.arrow_data.styler.styles) for table in at.dataframe]
    # The merged credit bug's table and the lines' table are tinted; the exceptions' and the details are not.
    assert styled == [True, False, True, False, False, False], styled
    assert len(at.dataframe[4].value) == len(at.dataframe[4].value["pull request"]) > 1  # the exceptions' table


def test_a_table_that_holds_more_rows_than_it_shows_says_so_and_how_to_see_them(app: Any, make_db: Any) -> None:
    weeks = [date.fromordinal(date(2026, 3, 2).toordinal() + 7 * n).isoformat() for n in range(22)]
    db = make_db([dashboard_line(week, properties=[f"prop_{n}"], results={f"prop_{n}": "hold"})
                  for n, week in enumerate(weeks)])
    spend = app(db, SPEND, query={"weeks": [weeks[0], weeks[-1]]})
    assert not spend.exception
    said = [text for text in texts(spend) if text.endswith(" in view: scroll inside the table for the others.")]
    # Units per week and property, per week and repository, lanes run per week: 22 rows each.
    assert said.count("20 of 22 rows in view: scroll inside the table for the others.") >= 3, said
    few = app(make_db([dashboard_line(week) for week in weeks[:3]]), SPEND)
    assert not [text for text in texts(few) if " in view: " in text]
    assert cells.more_rows_text(20) is None and cells.more_rows_text(21) == (
        "20 of 21 rows in view: scroll inside the table for the others.")
    assert cells.more_rows_text(5, total=8) == (
        "The first 5 of 8 rows, in file order; `lanelog report` and the database hold them all.")



def test_the_open_pull_requests_list_says_when_it_holds_more_than_it_shows(app: Any, make_db: Any) -> None:
    lines = [dashboard_line("2026-10-06", attempt_id=f"open-{n}", agent="sweep-bot[bot]",
                            pull_request={"number": n, "repository": "demo-org/orders-service"}) for n in range(1, 23)]
    at = app(make_db(lines), "views/outcomes.py", query={"weeks": ["2026-10-05", "2026-10-11"]})
    assert not at.exception, [e.value for e in at.exception]
    waiting = next(frame.value for frame in at.dataframe if "days open" in frame.value.columns)
    assert len(waiting) == 22
    assert "20 of 22 pull requests in view: scroll inside the table for the others." in texts(at)


def log_db(tmp_path: Path, lines: bytes) -> Path:
    log, db = tmp_path / "mixed.jsonl", tmp_path / "mixed.duckdb"
    log.write_bytes(lines)
    return ingested(log, db)


def test_data_health_counts_each_logs_outcome_lines_beside_its_attempts(app: Any, demo_db: Path) -> None:
    at = app(demo_db, HEALTH)
    files = at.dataframe[0].value
    assert list(files.columns) == ["file", "still there", "attempts", "outcomes", "rejected", "duplicates"]
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        (stored,) = con.execute("SELECT count(*) FROM outcomes").fetchone()
    finally:
        con.close()
    row = files[files["file"] == "outcomes.jsonl"].to_dict("records")
    assert row == [{"file": "outcomes.jsonl", "still there": row[0]["still there"], "attempts": 0,
                    "outcomes": stored, "rejected": 0, "duplicates": 0}]
    assert stored > 0 and files["outcomes"].sum() == stored


def test_data_health_lists_the_outcome_lines_that_could_not_be_dated(app: Any, tmp_path: Path) -> None:
    db = log_db(tmp_path, b"".join([
        line(attempt_id="a1", ts="2026-10-05T09:00:00Z", repo="svc", probe="pass"),
        outcome(outcome_id="o1", ts="2026-10-06T09:00:00Z", repo="svc", state="merged",
                pull_request={"repository": "org/svc", "number": 7}),
        outcome(outcome_id="o2", repo="svc", state="merged", pull_request={"repository": "org/svc", "number": 8}),
        outcome(outcome_id="o3", ts="3026-01-01T00:00:00Z", repo="svc", state="closed"),
    ]))
    at = app(db, HEALTH)
    assert not at.exception
    assert "Undated outcome lines" in [str(element.value) for element in at.subheader]
    table = next(table.value for table in at.dataframe if "pull request" in table.value.columns)
    assert table.to_dict("records") == [
        {"file": "mixed.jsonl", "line": 3, "pull request": "org/svc#8", "state": "merged", "why": "no ts"},
        {"file": "mixed.jsonl", "line": 4, "pull request": "(not named)", "state": "closed", "why": "out of range"},
    ]


def test_a_one_week_range_is_compared_with_the_week_before_it(app: Any, demo_db: Path) -> None:
    con = store.open_db(demo_db, read_only=True)
    try:
        weeks = {row["week"]: row for row in queries.report(con)["weeks"] if row["week"]}
    finally:
        con.close()
    now, then = weeks["2026-10-05"], weeks["2026-09-28"]
    assert then["attempts"] > 0
    at = app(demo_db, query={"weeks": ["2026-10-05", "2026-10-11"]})
    assert not at.exception
    (heading,) = [str(element.value) for element in at.subheader if str(element.value).startswith("Week of")]
    assert heading == present.unbroken("Week of 2026-10-05 against the week of 2026-09-28")
    shown = {metric.label: (metric.value, metric.proto.delta) for metric in at.metric}
    assert shown["Attempts"] == (str(now["attempts"]), str(now["attempts"] - then["attempts"]))
    assert shown["Patch rejects"][1] == str(now["patch_rejects"] - then["patch_rejects"])


def test_a_heading_never_breaks_inside_a_date() -> None:
    heading = present.unbroken("Week of 2026-11-09 against the week of 2026-11-02")
    assert not re.search(r"\d-\d", heading) and heading.count("\u2011") == 4
    assert heading.replace("\u2011", "-") == "Week of 2026-11-09 against the week of 2026-11-02"
    assert present.unbroken("a well-known week") == "a well-known week"  # words keep their hyphens


# Patch rejects a week: a week of fewer than 5 (the second and the last) is a hollow point between the line's runs.
REJECTS = {"2026-09-07": 6, "2026-09-14": 2, "2026-09-21": 6, "2026-09-28": 5, "2026-10-05": 3}


def test_the_ratio_line_breaks_across_a_week_left_out_and_draws_every_point(app: Any, make_db: Any) -> None:
    lines = [dashboard_line(week, probe="reject", reasons=["line_cap"], model_call_allowed=False, lane="not_started",
                            results={}) for week, count in REJECTS.items() for _ in range(count)]
    lines += [dashboard_line(week) for week in REJECTS for _ in range(4)]  # four armed calls a week
    at = app(make_db(lines))
    chart = next(chart for chart in at.get("vega_lite_chart")
                 if any(layer.get("encoding", {}).get("y", {}).get("title") == "armed calls per patch reject"
                        for layer in flat_layers(json.loads(chart.proto.spec))))
    datasets = {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist() for d in chart.proto.datasets}
    line_layer, points = (layer for layer in flat_layers(json.loads(chart.proto.spec))
                          if layer["mark"]["type"] in ("line", "point"))
    assert line_layer["encoding"]["detail"]["field"] == "run" and points["mark"]["filled"] is False
    joined = {row["week"]: row["run"] for row in datasets[line_layer["data"]["name"]]}
    rough = {row["week"]: row["armed_per_reject"] for row in datasets[points["data"]["name"]]}
    assert rough == {"2026-09-14": 2.0, "2026-10-05": 4 / 3}  # every week with a ratio has its point, the latest too
    assert sorted(joined) == ["2026-09-07", "2026-09-21", "2026-09-28"]
    # The week left out between them breaks the line; the weeks next to each other are joined.
    assert joined["2026-09-07"] != joined["2026-09-21"] == joined["2026-09-28"]


DAY = date(2026, 10, 14)


def test_the_cost_chart_has_no_legend_without_a_budget_and_money_is_written_one_way() -> None:
    costs = spend_charts.weekly_cost_frame({"weeks": [{"week": "2026-10-05", "currency": "USD", "cost": 0.0109},
                                                      {"week": "2026-10-12", "currency": "USD", "cost": 0.065049}]})
    alone = spend_charts.weekly_cost(costs, [], "USD", DAY).to_dict()
    assert alone["layer"][0]["encoding"]["color"]["legend"] is None  # no stray entry under the axis
    budget = {"name": "team", "amount": 1.0, "currency": "USD", "period": "month"}
    with_budget = spend_charts.weekly_cost(costs, [budget], "USD", DAY).to_dict()
    assert with_budget["layer"][0]["encoding"]["color"]["legend"] is not None
    assert spend_charts.budget_line_label(budget, DAY).endswith(
        f"(≈ {amount_text(spend_charts.weekly_amount(budget, DAY))} a week)")
    stacked = charts.stacked_weeks(costs.assign(property="prop_a"), "cost", "property", "cost (USD)",
                                   money=True).to_dict()
    for tooltips in (alone["layer"][0]["encoding"]["tooltip"], with_budget["layer"][1]["encoding"]["tooltip"],
                     stacked["encoding"]["tooltip"]):
        assert all("format" not in tip for tip in tooltips)  # the amount is text lanelog.money wrote
    shown = json.dumps([alone["datasets"], stacked["datasets"]])
    assert '"0.010900"' in shown and '"0.065049"' in shown  # six decimals, both
