"""AppTest runs of every page: figures equal `lanelog report`, the alert rules, filters, guidance."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from lanelog import ingest, queries, store
from lanelog.dashboard import charts
from lanelog.reasons import REASONS
from tests.dashboard.dashboard_support import PAGES, line

METRIC_KEYS = {
    "Attempts": "attempts",
    "Patch rejects": "patch_rejects",
    "Armed calls": "calls_armed",
    "Credit bugs": "credit_bugs",
    "Units spent": "units",
    "Quarantined": "quarantined",
}


def report_json(db: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "report", "--db", str(db), "--format", "json", *args],
        capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout)


def metrics(at: Any) -> dict[str, tuple[str, str]]:
    return {m.label: (m.value, m.proto.delta) for m in at.metric}


def expected_metrics(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """What the overview must show: the latest dated week and its change against the week before, its cost
    too (from `report --format json`'s money, worked out here with Decimal, shown as lanelog.money writes it)."""
    from decimal import Decimal

    from lanelog.money import money_text

    # The Overview's credit bugs count both kinds: the report's lines, and its outcomes' merges over a live
    # quarantine in the week they merged.
    merged = {row["week"]: row["merge_credit_bugs"] for row in report["outcomes"]["weeks"]}
    dated = [{**row, "credit_bugs": row["credit_bugs"] + merged.get(row["week"], 0)}
             for row in report["weeks"] if row["week"] is not None]
    latest, previous = dated[-1], dated[-2] if len(dated) > 1 else None
    shown = {
        label: (str(latest[key]), str(latest[key] - previous[key]) if previous else "")
        for label, key in METRIC_KEYS.items()
    }
    money = {row["week"]: row for row in report["money"]["weeks"]}
    now, then = money[latest["week"]], money[previous["week"]] if previous else {}
    if now["cost"] is None:
        shown["Cost"] = ("none", "")
        return shown
    change = ""
    if then.get("cost") is not None and then["currency"] == now["currency"]:
        delta = Decimal(str(now["cost"])) - Decimal(str(then["cost"]))
        change = ("+" if delta >= 0 else "-") + money_text(abs(delta), "").strip()
    # The currency in the label, the amount alone beneath it.
    shown[f"Cost ({now['currency']})"] = (money_text(now["cost"], "").strip(), change)
    return shown


def texts(at: Any) -> list[str]:
    """Every piece of text the page drew as markdown (titles, captions, alerts, markdown)."""
    kinds = ("title", "subheader", "caption", "markdown", "error", "warning", "info", "success")
    return [str(element.value) for kind in kinds for element in getattr(at, kind)]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_on_demo_data(app: Any, demo_db: Path, page: str) -> None:
    at = app(demo_db, page)
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.title) == 1
    if page.endswith(("overview.py", "triage.py")):
        assert "credit bug" in at.error[0].value


def test_overview_metrics_equal_report_json(app: Any, demo_db: Path) -> None:
    at = app(demo_db)
    report = report_json(demo_db)
    assert metrics(at) == expected_metrics(report)
    lines, merges = report["totals"]["credit_bugs"], report["outcomes"]["totals"]["merge_credit_bugs"]
    assert lines and merges  # the demo has both kinds: the faulty producer's lines, and an auto-merge
    assert at.error[0].value.startswith(
        f"{lines + merges} credit bugs in range: merge credit was set on {lines} quarantined attempts, and "
        f"{merges} pull request{'s' if merges > 1 else ''} merged over a live quarantine nobody said may go.")


def test_the_weekly_frame_keeps_every_figure_the_report_gives(demo_db: Path) -> None:
    """The pages' weekly table is the report's weeks: a figure the report gains is never dropped."""
    from lanelog.dashboard import present

    report = report_json(demo_db)
    assert list(present.weeks_frame(report).columns) == list(report["weeks"][0])


def test_repo_filter_changes_the_figures_and_is_read_from_the_url(app: Any, demo_db: Path) -> None:
    at = app(demo_db)
    everything = metrics(at)
    at.selectbox(key="repo").set_value("billing-service").run()
    billing = report_json(demo_db, "--repo-name", "billing-service")
    assert metrics(at) == expected_metrics(billing)
    assert metrics(at) != everything

    shared = app(demo_db, query={"repo": "billing-service"})
    assert shared.selectbox(key="repo").value == "billing-service"
    assert metrics(shared) == expected_metrics(billing)


def test_week_range_filter_changes_the_figures(app: Any, demo_db: Path) -> None:
    weeks = [row["week"] for row in report_json(demo_db)["weeks"]]
    first, second = date.fromisoformat(weeks[0]), date.fromisoformat(weeks[1])
    at = app(demo_db)
    at.date_input(key="weeks").set_value((first, second)).run()
    narrowed = report_json(demo_db, "--since", first.isoformat(), "--until", second.isoformat())
    assert [row["week"] for row in narrowed["weeks"]] == weeks[:2]
    assert metrics(at) == expected_metrics(narrowed)


def test_banner_shows_with_a_credit_bug_and_not_with_quarantine_alone(app: Any, make_db: Any) -> None:
    quiet = make_db([
        line("2026-10-05", quarantine=["test_export_race"]),
        line("2026-10-06", quarantine=["test_export_race"], merge_credit=0),
        line("2026-10-13", probe="reject", reasons=["line_cap"], model_call_allowed=False, lane="not_started"),
    ])
    at = app(quiet)
    assert not at.exception
    assert len(at.error) == 0
    assert metrics(at)["Quarantined"][0] == "0"  # the latest week, 2026-10-12, has none
    assert metrics(at)["Credit bugs"][0] == "0"

    alarming = make_db([
        line("2026-10-05", quarantine=["test_export_race"]),
        line("2026-10-06", quarantine=["test_export_race"], merge_credit=1, producer="legacy-promoter"),
    ])
    at = app(alarming)
    assert [e.value for e in at.error] == [
        "1 credit bug in range: merge credit was set on quarantined attempts. Open Credit-bug triage for the rows."
    ]


def _chart_rows(at: Any, title: str, colour: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The vega-lite spec of the chart whose y axis has this title (and colour field), and its data rows."""
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        layers = spec.get("layer", [spec])
        if any(
            layer.get("encoding", {}).get("y", {}).get("title") == title
            and colour in (None, layer["encoding"].get("color", {}).get("field"))
            for layer in layers
        ):
            datasets = {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist() for d in chart.proto.datasets}
            name = spec.get("data", {}).get("name") or layers[0]["data"]["name"]
            return spec, datasets[name]
    raise AssertionError(f"no chart titled {title!r}")


def flat_layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """A chart's drawn layers, those of a layer inside a layer too (the ratio's line and its points)."""
    return [leaf for layer in spec.get("layer", [spec])
            for leaf in (flat_layers(layer) if "layer" in layer else [layer])]


def test_credit_bug_chart_colours_exactly_the_weeks_with_credit_bugs(app: Any, demo_db: Path) -> None:
    at = app(demo_db)
    spec, rows = _chart_rows(at, "credit bugs")
    bars = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "bar")
    scale = bars["encoding"]["color"]["scale"]
    colour_of = dict(zip(scale["domain"], scale["range"]))
    colour_by_week = {row["week"]: colour_of[row[bars["encoding"]["color"]["field"]]] for row in rows}

    report = report_json(demo_db)
    buggy = {row["week"] for row in report["weeks"] if row["credit_bugs"] > 0}
    assert buggy and len(buggy) < len(report["weeks"])  # the demo has both kinds of week
    assert set(colour_by_week) == {row["week"] for row in report["weeks"]}
    assert {week for week, colour in colour_by_week.items() if colour == charts.ALERT} == buggy
    assert all(colour == charts.NEUTRAL for week, colour in colour_by_week.items() if week not in buggy)


def test_spend_review_draws_lane_outcomes_and_unresolved_units_from_the_queries(app: Any, demo_db: Path) -> None:
    at = app(demo_db, "views/spend.py")
    con = store.open_db(demo_db, read_only=True)
    try:
        lanes = charts.labelled(queries.lanes_weekly(con, queries.Filters()))
        unresolved = charts.labelled(queries.unresolved_units(con, queries.Filters()))
    finally:
        con.close()
    from lanelog.dashboard import present

    _, lane_rows = _chart_rows(at, "attempts", colour="lane")
    drawn = sorted((row["week"], row["lane"], row["attempts"]) for row in lane_rows)
    worded = present.lane_words(lanes)
    assert drawn == sorted(zip(worded["week"], worded["lane"], worded["attempts"]))
    # The lanes in words; the faulty producer's copied lines ran no lane.
    assert {row["lane"] for row in lane_rows} == {"not started", "hold", "fail", "unresolved", "no call armed"}
    _, unit_rows = _chart_rows(at, "units on unresolved lanes")
    assert [(row["week"], row["units"]) for row in unit_rows] == list(zip(unresolved["week"], unresolved["units"]))
    assert sum(row["units"] for row in unit_rows) > 0


def test_spend_review_splits_units_or_armed_calls_by_property_and_repo(app: Any, demo_db: Path) -> None:
    at = app(demo_db, "views/spend.py")
    con = store.open_db(demo_db, read_only=True)
    try:
        by_property = charts.labelled(queries.spend_by_property(con, queries.Filters()))
    finally:
        con.close()
    _, rows = _chart_rows(at, "units spent", colour="property")
    assert sorted((r["week"], r["property"], r["units"]) for r in rows) == sorted(
        zip(by_property["week"], by_property["property"], by_property["units"]))
    at.segmented_control(key="spend_measure").set_value("calls_armed").run()
    _, rows = _chart_rows(at, "armed calls", colour="property")
    assert sorted((r["week"], r["property"], r["calls_armed"]) for r in rows) == sorted(
        zip(by_property["week"], by_property["property"], by_property["calls_armed"]))


def test_an_undated_credit_bug_alerts_and_its_bucket_is_drawn_red(app: Any, make_db: Any) -> None:
    undated = {key: value for key, value in line("2026-10-05").items() if key != "ts"}
    db = make_db([
        line("2026-10-05", quarantine=["test_export_race"]),
        {**undated, "quarantine": ["test_export_race"], "merge_credit": 1, "producer": "legacy-promoter"},
    ])
    at = app(db)
    assert not at.exception
    assert at.error[0].value.startswith("1 credit bug in range")
    assert metrics(at)["Credit bugs"][0] == "0"  # the latest dated week is clean
    spec, rows = _chart_rows(at, "credit bugs")
    scale = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "bar")["encoding"]["color"]["scale"]
    colour_of = dict(zip(scale["domain"], scale["range"]))
    assert {row["week"]: colour_of[row["status"]] for row in rows} == {
        "2026-10-05": charts.NEUTRAL, "undated": charts.ALERT,
    }
    for page in PAGES[1:]:
        assert not app(db, page).exception, page


@pytest.mark.parametrize("page", PAGES)
def test_empty_database_shows_guidance(app: Any, tmp_path: Path, page: str) -> None:
    empty = tmp_path / "empty.duckdb"
    store.open_db(empty).close()
    for db in (empty, tmp_path / "missing.duckdb"):
        at = app(db, page)
        assert not at.exception
        if page.endswith("whatif.py") and db.exists():  # it reads stored replays, not the lane log
            assert at.info[0].value.startswith("No replay stored yet")
            continue
        assert at.info[0].value.startswith("No lane-log data here yet")
        assert "lanelog ingest" in at.code[0].value and "lanelog demo" in at.code[0].value
        assert len(at.metric) == 0
        assert len(at.error) == 0


def test_log_text_is_never_rendered_as_markdown(app: Any, make_db: Any) -> None:
    hostile = "<img src=x onerror=alert(1)> **bold** [link](http://example.invalid)"
    db = make_db([
        line("2026-10-05", quarantine=[hostile], merge_credit=1, repo=hostile, producer=hostile),
        line("2026-10-06", probe="reject", reasons=[hostile], model_call_allowed=False, lane="not_started"),
    ])
    for page in PAGES:
        at = app(db, page)
        assert not at.exception, page
        assert not any("<img" in text or "**bold**" in text for text in texts(at)), page
    triage = app(db, "views/triage.py")
    assert hostile in triage.code[-1].value  # the raw line, last (a long source path may stand whole above it)


def test_an_ingest_holding_the_database_keeps_the_last_figures(app: Any, make_db: Any) -> None:
    db = make_db([line("2026-10-05"), line("2026-10-12", quarantine=["test_export_race"])])
    at = app(db)
    before = metrics(at)
    holder = subprocess.Popen(  # a writer that has committed a chunk and still holds the lock, as ingest does
        [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1]); "
         "con.execute('CREATE TABLE chunk AS SELECT 1 AS x; CHECKPOINT'); print('held', flush=True); "
         "sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        at.button(key="refresh").click().run()
        assert not at.exception
        assert metrics(at) == before
        assert "ingest in progress: showing the last figures" in [c.value for c in at.caption]

        newcomer = app(db)  # a session with nothing to show yet gets a quiet note, not an error
        assert not newcomer.exception
        assert len(newcomer.error) == 0
        assert newcomer.info[0].value.startswith("Ingest in progress")
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    at.button(key="refresh").click().run()
    assert "ingest in progress: showing the last figures" not in [c.value for c in at.caption]
    assert metrics(at) == before


def test_uploader_ingests_a_lane_log_and_the_figures_follow(app: Any, make_db: Any) -> None:
    db = make_db([line("2026-10-05")])
    at = app(db)
    assert metrics(at)["Attempts"][0] == "1"
    upload = "".join(json.dumps({"attempt_id": f"up-{i}", **line("2026-10-06")}) + "\n" for i in range(3))
    at.file_uploader(key="upload").upload("more.jsonl", upload.encode())
    at.run()
    at.button(key="ingest_upload").click().run()
    assert not at.exception
    # The sidebar's message, beside the overview's own "No credit bugs in range".
    assert at.sidebar.success[0].value == "3 attempts added, 0 duplicates, 0 rejected lines."
    assert metrics(at)["Attempts"][0] == "4"


def test_uploader_says_clearly_when_a_file_holds_no_attempts(app: Any, make_db: Any) -> None:
    db = make_db([line("2026-10-05")])
    at = app(db)
    at.file_uploader(key="upload").upload("broken.jsonl", b"not json\n[1, 2]\n")
    at.run()
    at.button(key="ingest_upload").click().run()
    assert not at.exception
    assert at.warning[0].value == "No attempts added: 2 lines were not JSON objects (see Data health)."
    assert metrics(at)["Attempts"][0] == "1"


def test_triage_csv_read_back_holds_one_row_per_credit_bug_and_no_live_formula(make_db: Any) -> None:
    hostile = {
        "repo": "orders\r=cmd|' /C calc'!A0",
        "producer": "ok\n+SUM(1)",
        "head": "@A1\r\n-2",
        "quarantine": ["test_a\r\t=1", "=HYPERLINK(\"http://example.invalid\")"],
    }
    db = make_db([
        line("2026-10-05", merge_credit=1, **hostile),
        line("2026-10-06", merge_credit=1, quarantine=["test_b"], repo="plain"),
    ])
    con = store.open_db(db, read_only=True)
    try:
        rows = queries.credit_bug_rows(con)
    finally:
        con.close()
    from lanelog.dashboard import present, triage_tables

    payload = present.csv_bytes(triage_tables.triage_table(rows)).decode("utf-8")
    read = list(csv.DictReader(io.StringIO(payload, newline="")))
    assert len(read) == 2
    by_repo = {row["repo"].replace("'", ""): row for row in read}
    bad = by_repo["orders\r=cmd| /C calc!A0"]
    for field in ("repo", "producer", "head", "quarantine"):
        for piece in re.split(r"\r\n|\r|\n", bad[field]):
            assert not piece.startswith(("=", "+", "-", "@", "\t")), (field, piece)
    assert bad["repo"] == "orders\r'=cmd|' /C calc'!A0"
    assert bad["producer"] == "ok\n'+SUM(1)"
    assert bad["head"] == "'@A1\r\n'-2"
    assert bad["quarantine"] == "test_a\r'\t=1; =HYPERLINK(\"http://example.invalid\")"
    assert by_repo["plain"]["quarantine"] == "test_b"


@pytest.mark.parametrize("query, note", [
    ({"weeks": ["2026-10-12", "2026-09-01"]}, "The week range in the address is not a range of days in order"),
    ({"weeks": ["2026-13-45"]}, "The week range in the address is not a range of days in order"),
    ({"weeks": ["2026-09-21", "2026-09-28", "2026-10-05"]}, "The week range in the address is not a range"),
    ({"weeks": ["'; DROP TABLE attempts; --"]}, "The week range in the address is not a range"),
    ({"repo": "no-such-service"}, "The repository in the address is not in this database"),
])
def test_a_bad_filter_in_the_url_gives_a_quiet_note_and_the_default_figures(
    app: Any, demo_db: Path, query: dict[str, Any], note: str
) -> None:
    at = app(demo_db, query=query)
    assert not at.exception
    assert any(text.startswith(note) for text in texts(at))
    assert metrics(at) == expected_metrics(report_json(demo_db))


def test_setup_rejects_are_flagged_on_the_overview_and_grouped_on_the_probe_page(app: Any, make_db: Any) -> None:
    db = make_db([
        line("2026-10-05", probe="reject", reasons=["base_missing"], model_call_allowed=False),
        line("2026-10-05", probe="reject", reasons=["not_a_repo"], model_call_allowed=False),
        line("2026-10-06", probe="reject", reasons=["line_cap"], model_call_allowed=False),
        line("2026-10-06"),
    ])
    overview = app(db)
    assert not overview.exception
    assert metrics(overview)["Patch rejects"][0] == "1"
    assert [w.value for w in overview.warning] == [
        "2 setup rejects in range: CI could not judge these patches (no checkout, a missing ref, an unusable "
        "policy or flaky list). Fix the CI set-up; they are counted apart from patch rejects. The Probe page "
        "lists them."]
    probe = app(db, "views/probe.py")
    assert not probe.exception
    assert [s.value for s in probe.subheader] == [
        "Patch rejects: the gate at work", "Setup rejects: CI to fix", "What each reason means"]
    shown = [t.value for t in probe.main.text]
    assert shown == [  # in words, as the legends say them, with the code the log holds
        "base missing", "1", f"{REASONS['base_missing']} (logged as base_missing)",
        "not a repo", "1", f"{REASONS['not_a_repo']} (logged as not_a_repo)",
        "line cap", "1", f"{REASONS['line_cap']} (logged as line_cap)",
    ]
    legends = [json.loads(chart.proto.spec)["encoding"]["color"]["scale"]["domain"]
               for chart in probe.get("vega_lite_chart")]
    assert legends == [["line cap"], ["base missing", "not a repo"]]  # patch rejects, then setup rejects
    captions = [c.value for c in probe.caption]
    assert captions.index("Setup reason: CI to fix") < captions.index("Patch reason: the gate at work")
    clean = app(make_db([line("2026-10-06", probe="reject", reasons=["line_cap"])]))
    assert len(clean.warning) == 0


def test_quarantine_page_says_who_owns_each_freeze_and_what_lapses(app: Any, make_db: Any) -> None:
    db = make_db([
        line("2026-10-05", quarantine=["test_export_race"],
             freezes={"test_export_race": {"owner": "old-team", "expires": "2026-10-10"}}),
        line("2026-10-06", quarantine=["test_export_race"], expired_freezes=["test_old"],
             freezes={"test_export_race": {"owner": "ci-team", "expires": "2999-01-01"},
                      "test_old": {"owner": "release", "expires": "2026-09-01"}}),
        line("2026-10-07", quarantine=["test_unrecorded"]),
    ])
    at = app(db, "views/quarantine.py")
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table.columns) == ["freeze", "owner", "expires", "days left"]
    rows = {row[0]: row[1:] for row in table.values.tolist()}
    assert set(rows) == {"test_export_race", "test_old"}  # the unrecorded id has no owner to show
    assert rows["test_export_race"][:2] == ["ci-team", "2999-01-01"]  # the latest line's word
    left = rows["test_export_race"][2]  # "N days left", in the same words as a lapsed one's
    assert left.endswith(" days left") and int(left.split()[0]) > 300_000
    assert rows["test_old"][:2] == ["release", "2026-09-01"]
    assert rows["test_old"][2].startswith("lapsed ") and rows["test_old"][2].endswith(" days ago")


def test_quarantine_tables_speak_words_and_say_never_for_an_id_never_held(app: Any, make_db: Any) -> None:
    db = make_db([
        line("2026-10-05", quarantine=["test_export_race"]),
        line("2026-10-06", probe="reject", expired_freezes=["test_old"], model_call_allowed=False),
    ])
    at = app(db, "views/quarantine.py")
    assert not at.exception
    summary = at.dataframe[-1].value
    assert list(summary.columns) == ["freeze", "held", "first held", "last held", "reported expired"]
    rows = {row[0]: row[1:] for row in summary.values.tolist()}
    assert rows["test_old"] == [0, "never", "never", 1]
    assert rows["test_export_race"] == [1, "2026-10-05 10:00", "2026-10-05 10:00", 0]


def test_the_overview_accounts_for_every_attempt_by_producer(app: Any, demo_db: Path) -> None:
    at = app(demo_db)
    [table] = [frame.value for frame in at.dataframe if "producer" in frame.value.columns]
    assert list(table.columns) == ["producer", "attempts", "probe rejects", "armed calls", "neither"]
    report = report_json(demo_db)["totals"]
    assert table["attempts"].sum() == report["attempts"]
    assert table["probe rejects"].sum() == report["probe_rejects"]
    assert (table["probe rejects"] + table["armed calls"] + table["neither"]).tolist() == table["attempts"].tolist()
    promoter = table[table["producer"] == "legacy-promoter"].iloc[0]
    assert (promoter["attempts"], promoter["neither"]) == (report["credit_bugs"], report["credit_bugs"])


def test_no_credit_bugs_is_said_in_green_words_and_the_triage_banner_points_below(app: Any, make_db: Any) -> None:
    clean = app(make_db([line("2026-10-05", quarantine=["test_export_race"]), line("2026-10-12")]))
    assert not clean.exception
    assert [s.value for s in clean.success] == ["No credit bugs in range. A quarantine on its own is not an incident."]
    assert len(clean.error) == 0
    bugs = make_db([line("2026-10-05", quarantine=["test_export_race"], merge_credit=1)])
    triage = app(bugs, "views/triage.py")
    assert [e.value for e in triage.error] == [
        "1 credit bug in range: merge credit was set on quarantined attempts. The rows are below."]
    assert app(bugs).error[0].value.endswith("Open Credit-bug triage for the rows.")


def _long_history() -> list[dict[str, Any]]:
    """30 weeks from 2026-03-02 with weeks 5-7 empty; the last weeks each hold 6 rejects and 2 calls,
    except week 27, which holds a single reject and three calls (a ratio of 3 from one reject)."""
    lines = []
    monday = date(2026, 3, 2)
    for week in range(30):
        if week in (5, 6, 7):
            continue
        day = date.fromordinal(monday.toordinal() + 7 * week).isoformat()
        rejects = 1 if week == 27 else 6
        calls = 3 if week == 27 else 2
        lines += [line(day, probe="reject", reasons=["line_cap"], model_call_allowed=False, lane="not_started")
                  for _ in range(rejects)]
        lines += [line(day) for _ in range(calls)]
    return lines


def test_the_default_range_is_the_last_12_weeks_and_the_whole_history_is_one_click_away(
    app: Any, make_db: Any
) -> None:
    db = make_db(_long_history())
    at = app(db)
    assert not at.exception
    last = date(2026, 3, 2).toordinal() + 7 * 29
    assert at.date_input(key="weeks").value == (date.fromordinal(last - 7 * 11), date.fromordinal(last + 6))
    recent = report_json(db, "--since", date.fromordinal(last - 7 * 11).isoformat())
    assert metrics(at) == expected_metrics(recent)
    spec, rows = _chart_rows(at, "attempts")
    assert len({row["week"] for row in rows}) == 12

    at.button(key="whole_history").click().run()
    assert at.date_input(key="weeks").value == (date(2026, 3, 2), date.fromordinal(last + 6))
    spec, rows = _chart_rows(at, "attempts")
    bars = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "bar")
    domain = bars["encoding"]["x"]["scale"]["domain"]
    # Every week of the span is on the axis, the three empty ones too (drawn as zero).
    assert len(domain) == 30 and {"2026-04-06", "2026-04-13", "2026-04-20"} <= set(domain)
    assert not {"2026-04-06", "2026-04-13", "2026-04-20"} & {row["week"] for row in rows}
    # Thirty weeks are labelled by the first week of each month, not thirty labels.
    assert bars["encoding"]["x"]["axis"]["values"] == [
        "2026-03-02", "2026-04-06", "2026-05-04", "2026-06-01", "2026-07-06", "2026-08-03", "2026-09-07",
    ]
    shared = app(db, query={"weeks": ["2026-03-02", date.fromordinal(last + 6).isoformat()]})
    assert metrics(shared) == metrics(at)


def test_the_ratio_is_not_drawn_from_a_week_of_few_rejects(app: Any, make_db: Any) -> None:
    at = app(make_db(_long_history()))
    spec, _ = _chart_rows(at, "attempts")
    line_layer = next(layer for layer in flat_layers(spec) if layer["mark"]["type"] == "line")
    datasets = {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist()
                for d in at.get("vega_lite_chart")[0].proto.datasets}
    drawn = {row["week"]: row["armed_per_reject"] for row in datasets[line_layer["data"]["name"]]}
    week_27 = date.fromordinal(date(2026, 3, 2).toordinal() + 7 * 27).isoformat()
    assert week_27 not in drawn and len(drawn) == 11
    assert set(drawn.values()) == {2 / 6}


def test_week_ticks_thin_out_with_the_span() -> None:
    def mondays(count: int) -> list[str]:
        return [date.fromordinal(date(2025, 1, 6).toordinal() + 7 * i).isoformat() for i in range(count)]

    assert charts.week_ticks(mondays(16)) == mondays(16)
    two_years = charts.week_ticks(mondays(104) + ["undated"])
    assert two_years == ["2025-01-06", "2025-04-07", "2025-07-07", "2025-10-06", "2026-01-05", "2026-04-06",
                         "2026-07-06", "2026-10-05", "undated"]
    assert charts.all_weeks({"2025-01-06", "2025-01-27", "undated"}) == [
        "2025-01-06", "2025-01-13", "2025-01-20", "2025-01-27", "undated"]


def test_triage_table_cuts_ids_and_the_selected_attempt_shows_them_whole(
    app: Any, make_db: Any, tmp_path: Path
) -> None:
    head = "0123456789abcdef0123456789abcdef01234567"
    db = make_db([line("2026-10-05", merge_credit=1, quarantine=["test_a"], head=head)])
    at = app(db, "views/triage.py")
    assert not at.exception
    shown = at.dataframe[0].value  # the rows table, then the selected attempt
    assert list(shown.columns) == ["day (UTC)", "attempt", "repository", "producer", "quarantine"]
    (row,) = shown.to_dict("records")
    assert row["attempt"] == "t0-0" and row["day (UTC)"] == "2026-10-05"
    detail = dict(at.dataframe[1].value.itertuples(index=False))
    assert detail["head"] == head and detail["attempt"] == "t0-0" and detail["merge credit"] == "1"
    from lanelog.dashboard import cells, health_tables

    source = str(tmp_path / "lane-log-0.jsonl")  # as long as the test's folder makes it
    assert detail["source file"] == cells.fit_path(source, health_tables.DETAIL_WIDTHS["value"])
    assert detail["line"] == "1"
    # A path the table has to cut is shown whole below it.
    assert (source in [block.value for block in at.code]) == (detail["source file"] != source)
    assert not any("no longer at its recorded path" in text for text in texts(at))

    (tmp_path / "lane-log-0.jsonl").unlink()
    at = app(db, "views/triage.py")
    assert any(text.startswith("The source file is no longer at its recorded path") for text in texts(at))
    health = app(db, "views/health.py")
    assert any(text.startswith("1 of these files are no longer at their recorded path") for text in texts(health))
    files = health.dataframe[0].value  # files ingested comes first, then where they were read from
    assert files.to_dict("records") == [{"file": "lane-log-0.jsonl", "still there": "no", "attempts": 1,
                                         "outcomes": 0, "rejected": 0, "duplicates": 0}]
    place = dict(health.dataframe[1].value.itertuples(index=False))  # the picked file, field by field
    assert place["path"] == cells.fit_path(source, health_tables.DETAIL_WIDTHS["value"])
    assert (source in [block.value for block in health.code]) == (place["path"] != source)
    assert len(place["fingerprint"]) == 13 and place["fingerprint"].endswith("…")
    assert place["lines read"] == "1"  # how far the log was read, beside its bytes


def test_logs_read_from_a_bucket_are_named_by_key_and_judged_by_the_last_listing(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ingest.s3server import running_s3

    # The documented key layout, lanelog/<repo>/<run_id>-<attempt>/lane-log.jsonl: every object
    # has the same last part, so only the key tells them apart.
    bug, fine = "lanelog/orders/1001-1/lane-log.jsonl", "lanelog/orders/1002-1/lane-log.jsonl"
    db = tmp_path / "bucket.duckdb"
    with running_s3() as s3:
        for name, value in s3.env().items():
            monkeypatch.setenv(name, value)
        bucket = s3.bucket()
        client = s3.client()
        client.put_object(Bucket=bucket, Key=bug, Body=json.dumps(
            {"attempt_id": "b1", **line("2026-10-05", merge_credit=1, quarantine=["test_a"])}).encode() + b"\n")
        client.put_object(Bucket=bucket, Key=fine, Body=json.dumps(
            {"attempt_id": "f1", **line("2026-10-05")}).encode() + b"\nnot json\n")

        def ingest_bucket() -> None:
            con = store.open_db(db)
            try:
                summary = ingest.ingest_paths(con, [f"s3://{bucket}/lanelog/"], endpoint_url=s3.endpoint)
            finally:
                con.close()
            assert summary.errors == []

        ingest_bucket()
        health = app(db, "views/health.py")
        assert not health.exception
        files = health.dataframe[0].value
        # Each by its run folder and name, which tell the objects apart (the whole key is in the expander).
        assert files[["file", "still there"]].to_dict("records") == [
            {"file": "…/1001-1/lane-log.jsonl", "still there": "in the bucket"},
            {"file": "…/1002-1/lane-log.jsonl", "still there": "in the bucket"}]
        assert health.selectbox(key="source_pick").options == [
            "…/orders/1001-1/lane-log.jsonl (id 1)", "…/orders/1002-1/lane-log.jsonl (id 2)"]
        place = dict(health.dataframe[1].value.itertuples(index=False))
        assert place["path"].endswith("/lanelog/orders/1001-1/lane-log.jsonl")
        # The whole URL: in the table where it fits, else below it.
        url = f"s3://{bucket}/{bug}"
        assert (url in [block.value for block in health.code]) == (place["path"] != url)
        # The rejected line names its object: its run folder and name, in the column's width.
        assert health.dataframe[2].value["file"].tolist() == ["…/orders/1002-1/lane-log.jsonl"]
        assert not any("no longer" in text or "not in the bucket" in text for text in texts(health))
        triage = app(db, "views/triage.py")
        assert triage.selectbox(key="raw_row").options == ["b1 · orders-service · …/orders/1001-1/lane-log.jsonl:1"]
        assert not any("no longer" in text or "not in the bucket" in text for text in texts(triage))

        client.delete_object(Bucket=bucket, Key=bug)
        ingest_bucket()  # its listing no longer holds the object
    health = app(db, "views/health.py")
    assert health.dataframe[0].value[["file", "still there"]].to_dict("records") == [
        {"file": "…/1001-1/lane-log.jsonl", "still there": "not in the bucket"},
        {"file": "…/1002-1/lane-log.jsonl", "still there": "in the bucket"}]
    assert any(text.startswith("1 log was not in the bucket when ingest last listed it") and "Its lines stay" in text
               for text in texts(health))
    assert not any("no longer at their recorded path" in text for text in texts(health))
    triage = app(db, "views/triage.py")
    assert any(text.startswith("The source log was not in the bucket when ingest last listed it")
               for text in texts(triage))
    detail = dict(triage.dataframe[1].value.itertuples(index=False))
    assert detail["source file"].endswith("/lanelog/orders/1001-1/lane-log.jsonl")
    # Whole: in the detail where it fits, else below it.
    assert (url in [block.value for block in triage.code]) == (detail["source file"] != url)


def test_the_demos_removed_logs_are_said_to_be_the_demos_with_the_flag_that_keeps_them(
    app: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "lanelog-demo-abc123"  # as `lanelog demo` names its temporary folder
    folder.mkdir()
    log = folder / "lane-log.jsonl"
    log.write_text(json.dumps({"attempt_id": "d1", **line("2026-10-05")}) + "\n", encoding="utf-8")
    db = tmp_path / "demo.duckdb"
    con = store.open_db(db)
    try:
        ingest.ingest_paths(con, [log])
    finally:
        con.close()
    log.unlink()
    folder.rmdir()
    health = app(db, "views/health.py")
    assert health.dataframe[0].value["still there"].tolist() == ["no (demo)"]
    (said,) = [text for text in texts(health) if "the demo's temporary logs" in text]
    assert "keep them with `lanelog demo --out DIR`" in said and "--logs" not in said
    assert not any("no longer at their recorded path" in text for text in texts(health))


def test_the_triage_table_cuts_a_long_cell_at_an_id_and_says_so(app: Any, make_db: Any) -> None:
    db = make_db([line("2026-10-05", merge_credit=1, quarantine=["test_export_race", "test_shared_tmpdir"],
                       repo="payments-reconciliation-service")])
    at = app(db, "views/triage.py")
    (row,) = at.dataframe[0].value.to_dict("records")
    assert row["quarantine"] == "test_export_race +1 more"  # whole ids, and how many more
    # The repository's start that draws in its column, and an ellipsis (Chromium's widths: dashboard/cells.py).
    from lanelog.dashboard import cells
    from lanelog.dashboard.triage_tables import TRIAGE_WIDTHS

    assert row["repository"] == "payments-r…"
    assert cells.text_px(row["repository"]) <= TRIAGE_WIDTHS["repository"] - cells.CELL_PADDING_PX
    assert row["producer"] == "lanelog-route"
    detail = dict(at.dataframe[1].value.itertuples(index=False))
    assert detail["quarantine"] == "test_export_race; test_shared_tmpdir"
    assert detail["repository"] == "payments-reconciliation-service"


def test_a_long_key_keeps_its_run_folder_in_a_narrow_column() -> None:
    from lanelog.dashboard import cells, health_tables

    key = "lanelog/orders-service/12345678901-1/lane-log.jsonl"
    assert cells.fit_path(key, health_tables.SOURCE_COUNTS["file"]) == "…/12345678901-1/…"
    assert cells.fit_path(key, health_tables.DETAIL_WIDTHS["value"]) == key
    assert cells.fit_path(key, health_tables.UNDATED_WIDTHS["file"]) == "…/12345678901-1/…"
    assert cells.fit_path("lane-log-0.jsonl", health_tables.UNDATED_WIDTHS["file"]) == "lane-log-0.jsonl"
    # One long part: as many of its last characters as draw in the column, and not one more.
    cut = cells.fit_path("x" * 40, 100)
    assert cut.startswith("…x") and set(cut[1:]) == {"x"}
    assert cells.text_px(cut) <= 100 - cells.CELL_PADDING_PX < cells.text_px(cut + "x")
    # The cuts measure each character: a row of wide ones is cut shorter than a row of narrow ones.
    assert len(cells.fit_cell("m" * 40, 100)) < len(cells.fit_cell("i" * 40, 100))


def test_a_pull_request_keeps_its_number_whatever_its_column_cuts() -> None:
    from lanelog.dashboard import cells

    assert cells.pull_request_cell("acme/orders", 7, 185) == "acme/orders#7"
    assert cells.pull_request_cell("demo-org/search-service", 22, 160) == "search-service#22"  # the owner goes
    cut = cells.pull_request_cell("acme/" + "payments-reconciliation" * 3, 12345, 150)
    assert cut.startswith("payments-rec") and cut.endswith("…#12345")
    assert cells.text_px(cut) <= 150 - cells.CELL_PADDING_PX


def test_a_long_attempt_id_is_cut_in_the_triage_table() -> None:
    from lanelog.dashboard import cells

    assert cells.short("0123456789abcdef", cells.SHORT_ID) == "0123456789…"
    assert cells.short("0123456789a", cells.SHORT_ID) == "0123456789a"  # one more is no shorter cut
    assert cells.short(None, cells.SHORT_ID) is None


def test_a_long_path_breaks_only_after_a_slash() -> None:
    from lanelog.dashboard import cells

    path = "/home/someone/projects/lanelog-checkouts/team-a/lanelog.duckdb"
    lines = cells.path_lines(path, width=24).split("\n")
    assert "".join(lines) == path
    assert all(part.endswith("/") for part in lines[:-1]) and lines[-1] == "team-a/lanelog.duckdb"
    assert all(len(part) <= 24 for part in lines)
    assert cells.path_lines("lanelog.duckdb") == "lanelog.duckdb"


def test_one_legend_names_every_series_of_the_rejects_chart(app: Any, demo_db: Path) -> None:
    spec, _ = _chart_rows(app(demo_db), "attempts")
    bars = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "bar")
    line_layer = next(layer for layer in flat_layers(spec) if layer["mark"]["type"] == "line")
    assert spec["resolve"]["scale"]["color"] == "shared"
    legend_scale = bars["encoding"]["color"]["scale"]
    assert legend_scale["domain"] == ["patch rejects", "armed calls", "armed calls per patch reject"]
    assert dict(zip(legend_scale["domain"], legend_scale["range"]))["armed calls per patch reject"] == charts.RATIO
    assert line_layer["encoding"]["color"]["scale"] == legend_scale
    assert line_layer["encoding"]["color"]["legend"] is None


WHAT_IF = "views/whatif.py"


def test_the_what_if_page_draws_the_stored_replay(app: Any, replay_run: tuple[Path, dict[str, Any]]) -> None:
    db, result = replay_run
    # By hand: the typo fix, the reworded message and the guarded assert flip from reject to pass
    # under `net`; the real test removal is rejected by both; the readme is no_properties under both.
    assert [(flip["subject"], flip["baseline"]["probe"], flip["candidate"]["probe"]) for flip in result["flips"]] == [
        ("Fix a typo in an assert message", "reject", "pass"), ("Reword an assert message", "reject", "pass"),
        ("Guard an assert", "reject", "pass")]
    at = app(db, WHAT_IF)
    assert not at.exception, [e.value for e in at.exception]
    shown = {m.label: (m.value, m.proto.delta) for m in at.metric}
    for label, key in (("Probe rejects (candidate)", "probe_rejects"), ("Armed calls (candidate)", "calls_armed"),
                       ("Units (candidate)", "units")):
        after, before = result["candidate"][key], result["baseline"][key]
        assert shown[label] == (str(after), str(after - before)), label
    spec, rows = _chart_rows(at, "probe rejects")
    drawn = {(row["week"], row["policy"]): row["value"] for row in rows}
    for week in result["weeks"]:
        for side in ("baseline", "candidate"):
            assert drawn[week["week"], side] == week[side]["probe_rejects"]
    [flips] = [frame.value for frame in at.dataframe if "probe" in frame.value.columns]
    # A subject too long for its column ends at a whole word, with "…"; the detail below holds it whole.
    assert flips["subject"].tolist() == ["Fix a typo in an assert…", "Reword an assert message", "Guard an assert"]
    assert flips["probe"].tolist() == ["reject → pass"] * 3
    assert flips["reasons"].tolist() == ["assertion removed"] * 3  # in words, as the Probe page says them
    detail = dict(at.dataframe[-1].value.itertuples(index=False))  # the selected flip, whole
    assert detail["baseline"] == "reject (assertion_removed)" and detail["candidate"] == "pass"
    assert detail["commit"] == result["flips"][0]["head"]
    assert detail["subject"] == "Fix a typo in an assert message"
    at.segmented_control(key="whatif_measure").set_value("armed").run()
    _, rows = _chart_rows(at, "armed calls")
    assert sum(row["value"] for row in rows if row["policy"] == "candidate") == result["candidate"]["calls_armed"]


def test_the_what_if_page_without_a_replay_says_how_to_store_one(app: Any, demo_db: Path) -> None:
    at = app(demo_db, WHAT_IF)
    assert not at.exception
    assert at.info[0].value.startswith("No replay stored yet")
    assert "lanelog replay" in at.code[0].value and f"--db {demo_db}" in at.code[0].value


def _broken_sources(tmp_path: Path, make_db: Any) -> dict[str, Path]:
    """Files a user may point the dashboard at by mistake, and a database a query fails on."""
    import duckdb

    log = tmp_path / "lane-log.jsonl"
    log.write_text(json.dumps(line("2026-10-05")) + "\n")
    garbage = tmp_path / "garbage.duckdb"
    garbage.write_bytes(b"this is not a database\n" * 100)
    other = tmp_path / "analytics.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE visits AS SELECT 1 AS n")
    con.close()
    old = make_db([line("2026-10-05")])
    con = duckdb.connect(str(old))
    con.execute("UPDATE lanelog_meta SET value = '1' WHERE key = 'schema_version'")
    con.close()
    no_table = make_db([line("2026-10-05")])
    con = duckdb.connect(str(no_table))
    con.execute("DROP TABLE rejected_lines")
    con.close()
    return {"lane log": log, "not a database": garbage, "another database": other,
            "older schema": old, "failing query": no_table}


@pytest.mark.parametrize("page", PAGES)
def test_a_broken_or_odd_database_gives_a_message_and_what_to_do_on_every_page(
    app: Any, tmp_path: Path, make_db: Any, page: str
) -> None:
    for what, db in _broken_sources(tmp_path, make_db).items():
        at = app(db, page)
        assert not at.exception, (what, [e.value for e in at.exception])
        assert at.error, what
        shown = "\n".join([*(t.value for t in at.main.text), *(c.value for c in at.code)])
        assert f"--db {db}" in shown, (what, shown)  # the hint carries the user's own --db
        assert "Traceback" not in shown, what


def _domains(at: Any) -> list[list[str]]:
    """The week domain of every weekly chart on the page."""
    found = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        for layer in spec.get("layer", [spec]):
            domain = layer.get("encoding", {}).get("x", {}).get("scale", {}).get("domain")
            if domain is not None:
                found.append(domain)
                break
    return found


@pytest.mark.parametrize("page", PAGES)
def test_dates_at_the_edges_are_kept_undated_and_no_page_steps_through_them(
    app: Any, make_db: Any, page: str
) -> None:
    far = {key: value for key, value in line("2026-10-05").items() if key != "ts"}
    db = make_db([
        line("2026-10-05", quarantine=["test_export_race"], merge_credit=1),
        line("2026-10-12", probe="reject", reasons=["line_cap"], model_call_allowed=False, lane="not_started"),
        {**far, "ts": "9999-12-31T10:00:00Z"},
        {**far, "ts": "0001-01-01"},
        {**far, "ts": "1500-03-02T00:00:00Z", "probe": "reject", "reasons": ["line_cap"]},
    ])
    at = app(db, page)
    assert not at.exception, [e.value for e in at.exception]
    for domain in _domains(at):  # the two dated weeks, and the undated bucket
        assert [week for week in domain if week != "undated"] == ["2026-10-05", "2026-10-12"], domain
    if page.endswith("health.py"):
        assert any(text.startswith("3 attempts are dated outside the supported range") for text in texts(at)), texts(at)
        undated = at.dataframe[-1].value
        assert undated["why"].tolist() == ["out of range"] * 3


def test_the_probe_charts_span_the_selected_weeks(app: Any, make_db: Any) -> None:
    db = make_db([
        line("2026-09-07"),
        line("2026-09-14", probe="reject", reasons=["line_cap"], model_call_allowed=False, lane="not_started"),
        line("2026-10-05", probe="reject", reasons=["base_missing"], model_call_allowed=False, lane="not_started"),
        line("2026-11-02"),
    ])
    at = app(db, "views/probe.py")
    assert not at.exception
    mondays = [date.fromordinal(date(2026, 9, 7).toordinal() + 7 * i).isoformat() for i in range(9)]
    assert _domains(at) == [mondays, mondays]  # patch rejects, setup rejects: the whole range
    _, rows = _chart_rows(at, "reasons given", colour="reason")
    assert sum(row["attempts"] for row in rows) == 1


def test_days_left_are_said_in_words_either_side_of_today() -> None:
    from lanelog.dashboard import present

    owners = pd.DataFrame({"quarantine_id": ["a", "b", "c", "d", "e"], "owner": ["x"] * 5,
                           "expires": ["2026-10-20", "2026-10-11", "2026-10-10", "2026-10-09", None]})
    table = present.freeze_hygiene(owners, date(2026, 10, 10))
    assert table["days left"].tolist() == ["10 days left", "1 day left", "lapses today", "lapsed 1 day ago",
                                           "not recorded"]


def test_spend_without_a_property_lane_says_no_lane_ran(app: Any, make_db: Any) -> None:
    db = make_db([
        line("2026-10-05", probe="reject", reasons=["line_cap"], model_call_allowed=False, lane="not_started"),
        line("2026-10-06", lane="not_started", results={}),
    ])
    at = app(db, "views/spend.py")
    assert not at.exception
    assert any(info.value.startswith("No property lane ran in range") for info in at.info)
    titles = [json.loads(chart.proto.spec).get("layer", [{}])[0].get("encoding", {}).get("y", {}).get("title")
              for chart in at.get("vega_lite_chart")]
    assert "units on unresolved lanes" not in titles
    for chart in at.get("vega_lite_chart"):  # every count axis ticks whole numbers
        spec = json.loads(chart.proto.spec)
        for layer in spec.get("layer", [spec]):
            axis = layer.get("encoding", {}).get("y", {}).get("axis") or {}
            if layer["encoding"]["y"].get("title") in ("attempts", "units spent", "armed calls"):
                assert axis.get("tickMinStep") == 1 and axis.get("format") == "d", layer["encoding"]["y"]


def test_guidance_and_hints_carry_the_users_own_database(app: Any, tmp_path: Path) -> None:
    missing = tmp_path / "nope.duckdb"
    at = app(missing)
    assert not at.exception
    assert f"lanelog ingest --db {missing} lane-log.jsonl" in at.code[0].value
    assert f"lanelog demo --db {missing}" in at.code[0].value


@pytest.mark.parametrize("page", PAGES)
def test_a_database_stored_before_the_date_rule_with_far_weeks_draws_every_page(
    app: Any, make_db: Any, page: str
) -> None:
    """Weeks of year 1 and 9999 stored by an older ingest: no page steps through them or overflows."""
    import duckdb

    db = make_db([line("2026-10-05"), line("2026-10-12"), line("2026-10-13"), line("2026-10-14")])
    con = duckdb.connect(str(db))
    con.execute("UPDATE attempts SET ts = TIMESTAMP '9999-12-31 10:00:00', week = DATE '9999-12-27' "
                "WHERE line_no = 3")
    con.execute("UPDATE attempts SET ts = TIMESTAMP '0001-01-01 10:00:00', week = DATE '0001-01-01' "
                "WHERE line_no = 4")
    con.close()
    at = app(db, page)
    assert not at.exception, [e.value for e in at.exception]
    for domain in _domains(at):
        assert len(domain) <= 4, domain


def test_spend_review_shows_cost_per_week_and_the_estimate_from_the_report(app: Any, demo_db: Path) -> None:
    at = app(demo_db, "views/spend.py")
    assert not at.exception
    money = report_json(demo_db)["money"]
    latest = [row for row in money["weeks"] if row["week"] is not None][-1]
    shown = metrics(at)
    # The currency in each label, the amount alone.
    assert float(shown["Cost (USD)"][0].replace(",", "")) == pytest.approx(latest["cost"], abs=1e-6)
    avoided = shown["Spend avoided, estimate (USD)"][0]
    assert float(avoided.replace(",", "")) == pytest.approx(latest["spend_avoided_estimate"], abs=1e-6)
    assert any(label.startswith("Cost per unit (USD; ") for label in shown)
    table = next(frame.value for frame in at.dataframe if "avoided (estimate)" in frame.value.columns)
    assert list(table["week"]) == [row["week"] or "undated" for row in money["weeks"]] + ["total"]
    costs = [float(cell.split()[0].replace(",", "")) for cell in table["cost"][:-1]]
    assert costs == pytest.approx([row["cost"] for row in money["weeks"]], abs=1e-6)
    assert any("is an estimate" in text for text in texts(at))


def test_a_week_without_usage_says_so_on_the_spend_review(app: Any, make_db: Any) -> None:
    spent = {"prop_round_trip": {"input_tokens": 2000, "output_tokens": 1, "cost": 0.0061, "currency": "USD"}}
    db = make_db([
        line("2026-10-05", usage=spent),
        line("2026-10-12"),
    ])
    at = app(db, "views/spend.py")
    assert not at.exception
    assert not any(label.startswith("Cost") for label in metrics(at))  # no amount to show: in words instead
    assert "This week: no usage recorded, so there is no cost to show (never a zero cost)." in texts(at)
    table = next(frame.value for frame in at.dataframe if "avoided (estimate)" in frame.value.columns)
    assert list(table["cost"]) == ["0.006100 USD", "no usage recorded", "0.006100 USD"]
    assert "0.00 USD" not in list(table["cost"])


SHADOW = {"policy": "/ci/lanes-net.yaml", "policy_sha256": "ab" * 32, "probe": "pass", "reasons": [], "units": 1,
          "model_call_allowed": True, "lines_changed": 2, "message": None}


def _store_replay(db: Path, candidate: str, subject: str) -> None:
    from lanelog.store import replays

    con = store.open_db(db)
    try:
        replays.store(con, {"checkout": "/src/orders", "candidate": candidate, "baseline": "/src/orders/lanes.yaml",
                            "source": f"commits v1..{candidate[-6:-5]}", "patches": 1, "skipped": 0},
                      [{"base": "a" * 40, "head": "b" * 40, "day": date(2026, 9, 15), "subject": subject,
                        "baseline_probe": "reject", "baseline_reasons": ["assertion_removed"], "baseline_units": 0.0,
                        "baseline_armed": False, "candidate_probe": "pass", "candidate_reasons": [],
                        "candidate_units": 1.0, "candidate_armed": True}])
    finally:
        con.close()


def _frame_with(at: Any, column: str) -> Any:
    """The one data frame drawn with this column (AppTest finds data frames by order, not key)."""
    found = [frame.value for frame in at.dataframe if column in frame.value.columns]
    assert len(found) == 1, [list(frame.value.columns) for frame in at.dataframe]
    return found[0]


def test_the_what_if_page_shows_each_shadow_policy_apart_and_its_errors_in_words(app: Any, make_db: Any) -> None:
    """Two candidates watched in turn are two choices, never one sum; shadows whose file could not
    be used are counted apart, in lanelog's words (a logged reason is never drawn as markdown)."""
    strict = {**SHADOW, "policy_sha256": "cd" * 32, "probe": "reject", "reasons": ["line_cap"],
              "model_call_allowed": False}
    missing = {"policy": "/ci/gone.yaml", "policy_sha256": None, "error": "policy_missing",
               "message": "policy_missing: /ci/gone.yaml: no such file"}
    db = make_db([
        line("2026-10-05", shadow=SHADOW),
        line("2026-10-06", probe="reject", reasons=["line_cap"], model_call_allowed=False, lane="not_started",
             shadow=SHADOW),
        line("2026-10-13", shadow=strict),
        line("2026-10-14", shadow=missing),
        line("2026-10-14", shadow={**missing, "error": "**bold** <img src=x>"}),
    ])
    at = app(db, WHAT_IF)
    assert not at.exception, [e.value for e in at.exception]
    assert [str(w.value) for w in at.warning] == [
        "2 attempts in range have no shadow decision: the shadow policy file could not be read (1), another "
        "reason, recorded in the lane log (1). They count in no figure below: fix the `--shadow` file the CI "
        "job names."]
    assert not any("**bold**" in text or "<img" in text for text in texts(at))
    pick = at.selectbox(key="shadow_policy")
    assert pick.options == ["policy cdcdcdcdcdcd… · 1 attempt", "policy abababababab… · 2 attempts"]  # newest first
    shown = {m.label: m.value for m in at.metric}
    assert (shown["Probe rejects (shadow)"], shown["Would flip"]) == ("1", "1")
    pick.set_value(1).run()
    assert not at.exception
    shown = {m.label: m.value for m in at.metric}
    assert (shown["Probe rejects (shadow)"], shown["Would flip"]) == ("0", "1")
    assert _frame_with(at, "would flip")["attempts"].tolist() == [2, 2]  # week 10-05, and the total
    assert _frame_with(at, "attempt")["probe"].tolist() == ["reject → pass"]


def test_the_what_if_page_shows_the_live_shadow_and_lets_a_replay_be_chosen(app: Any, make_db: Any) -> None:
    hostile = "<img src=x onerror=alert(1)> **bold**"
    db = make_db([
        # By hand: week 10-05 has three shadowed attempts; the live policy rejects the first and the
        # shadow passes it (a flip), the second passes under both, the third passes live and the
        # shadow rejects it (a flip).  Week 10-12 has one, rejected by both; one line has no shadow.
        line("2026-10-05", attempt_id=hostile, probe="reject", reasons=["assertion_removed"],
             model_call_allowed=False, lane="not_started", shadow=SHADOW),
        line("2026-10-06", shadow=SHADOW),
        line("2026-10-07", attempt_id="third", shadow={**SHADOW, "probe": "reject", "reasons": ["line_cap"],
                                                       "model_call_allowed": False}),
        line("2026-10-13", probe="reject", reasons=["line_cap"], model_call_allowed=False, lane="not_started",
             shadow={**SHADOW, "probe": "reject", "reasons": ["line_cap"], "model_call_allowed": False}),
        line("2026-10-14"),
    ])
    _store_replay(db, "/ci/first.yaml", "Older replay's patch")
    _store_replay(db, "/ci/second.yaml", "Newer replay's patch")
    at = app(db, WHAT_IF)
    assert not at.exception, [e.value for e in at.exception]
    assert not any("<img" in text or "**bold**" in text for text in texts(at))

    pick = at.selectbox(key="replay_pick")
    assert pick.options[0].startswith("#2 ") and pick.options[1].startswith("#1 ")  # newest first
    assert "second.yaml" in pick.options[0] and pick.value == 2
    assert _frame_with(at, "subject")["subject"].tolist() == ["Newer replay's patch"]
    pick.set_value(1).run()
    assert not at.exception
    assert _frame_with(at, "subject")["subject"].tolist() == ["Older replay's patch"]
    about = _frame_with(at, "what")
    assert dict(zip(about["what"], about["value"]))["candidate"] == "/ci/first.yaml"

    shown = {m.label: (m.value, m.proto.delta) for m in at.metric}
    assert shown["Probe rejects (shadow)"] == ("2", "0")  # live 2, shadow 2
    assert shown["Armed calls (shadow)"] == ("2", "0")
    assert shown["Would flip"][0] == "2"
    weeks = _frame_with(at, "would flip")
    assert weeks.to_dict("records") == [  # each figure "live → shadow"
        {"week": "2026-10-05", "attempts": 3, "probe rejects": "1 → 1", "armed calls": "2 → 2", "would flip": 2},
        {"week": "2026-10-12", "attempts": 1, "probe rejects": "1 → 1", "armed calls": "0 → 0", "would flip": 0},
        {"week": "total", "attempts": 4, "probe rejects": "2 → 2", "armed calls": "2 → 2", "would flip": 2},
    ]
    flips = _frame_with(at, "attempt")
    assert flips.to_dict("records") == [
        {"day": "2026-10-07", "attempt": "third", "probe": "pass → reject", "reasons": "line cap"},
        # An id too long for its column ends at a whole word with "…"; the chosen flip holds it whole.
        {"day": "2026-10-05", "attempt": "<img src=x…", "probe": "reject → pass", "reasons": "assertion removed"},
    ]
    # The chosen flip whole: the hostile id as text, both sides' reasons, the policy's digest.
    at.selectbox(key="shadow_flip_pick").set_value(1).run()
    details = [frame.value for frame in at.dataframe
               if "field" in frame.value.columns and "shadow probe" in frame.value["field"].tolist()]
    assert len(details) == 1
    detail = dict(zip(*details[0].T.values))
    assert (detail["attempt id"], detail["live reasons"], detail["shadow probe"], detail["shadow policy"]) == (
        hostile, "assertion_removed", "pass", "ab" * 8 + "…")  # the digest whole is in the CSV
    _, rows = _chart_rows(at, "probe rejects, live and shadow")
    assert {(row["week"], row["policy"]): row["value"] for row in rows} == {
        ("2026-10-05", "baseline"): 1, ("2026-10-05", "candidate"): 1,
        ("2026-10-12", "baseline"): 1, ("2026-10-12", "candidate"): 1}


def test_a_stored_replays_paths_keep_their_file_names_within_their_column() -> None:
    from lanelog.dashboard import cells, whatif_tables

    about = {"checkout": "/tmp/pytest-of-root/pytest-303/popen-gw1/replayed0/repo",
             "candidate": "/tmp/pytest-of-root/pytest-303/popen-gw1/replayed0/candidate.yaml",
             "baseline": "each base commit's policy", "source": "commits b2c43e4..main"}
    shown = whatif_tables.replay_about(about)["value"].tolist()
    room = whatif_tables.REPLAY_ABOUT_WIDTHS["value"] - cells.CELL_PADDING_PX
    assert all(cells.text_px(value) <= room for value in shown), shown
    assert shown[0] == about["checkout"]  # it fits whole
    assert shown[1].startswith("…/") and shown[1].endswith("/candidate.yaml")  # once drawn cut, mid-name
    assert shown[2:] == ["each base commit's policy", "commits b2c43e4..main"]


def test_the_probe_page_shows_patches_stopped_in_the_agents_loop_beside_cis_rejects(app: Any, make_db: Any) -> None:
    hook = {"source": "hook", "model_call_allowed": False, "lane": "not_started"}
    db = make_db([
        line("2026-10-05", probe="reject", reasons=["line_cap"], model_call_allowed=False),
        line("2026-10-05", probe="reject", reasons=["assertion_removed"],
             hook={"agent": "claude-code", "session": "s1", "command": "git push"}, **hook),
        line("2026-10-06", hook={"agent": "claude-code", "session": "s1", "command": "git push"}, **hook),
        line("2026-10-06", probe="reject", reasons=["line_cap"],
             hook={"agent": "copilot", "session": "c1", "command": "git commit -m x"}, **hook),
    ])
    probe = app(db, "views/probe.py")
    assert not probe.exception
    assert [s.value for s in probe.subheader][-1] == "In the agent's loop: stopped before CI"
    shown = {m.label: m.value for m in probe.metric}
    assert shown == {"Stopped in the loop": "2", "Rejected in CI (patch rejects)": "1"}
    table = probe.dataframe[-1].value
    assert table.to_dict("records") == [
        {"agent": "claude-code", "hook checks": 2, "stopped in the loop": 1, "sessions refused": 1,
         "came back narrower": 1},
        {"agent": "copilot", "hook checks": 1, "stopped in the loop": 1, "sessions refused": 1,
         "came back narrower": 0}]
    # The reasons CI gave count CI's rejects only: the hook's assertion_removed is not among them.
    assert "assertion removed" not in [t.value for t in probe.main.text]


def test_the_outcomes_page_names_a_merge_recorded_before_its_first_attempt(app: Any, tmp_path: Path) -> None:
    from lanelog import ingest, store
    from tests.queries.test_outcomes import merged_before_tried

    db = tmp_path / "contradicting.duckdb"
    con = store.open_db(db)
    try:
        ingest.ingest_paths(con, [merged_before_tried(tmp_path)])
    finally:
        con.close()
    at = app(db, "views/outcomes.py")
    assert not at.exception, [e.value for e in at.exception]
    assert any(warning.value.startswith("1 pull request(s) closed before their first attempt")
               for warning in at.warning)
    assert "Median time to merge" in [metric.label for metric in at.metric]
    assert [metric.value for metric in at.metric if metric.label == "Median time to merge"] == ["10.0 h"]


def test_the_outcomes_page_draws_the_funnel_by_opening_week_and_its_open_list_follows_the_range(
        app: Any, demo_db: Path) -> None:
    """One week in range: the merges and the open pull requests are those of the week, each headline says so,
    and the funnel's bar for the week holds exactly the pull requests opened in it."""
    import json

    from click.testing import CliRunner

    from lanelog.cli import cli
    from lanelog.dashboard import outcome_charts

    week = ["2026-10-05", "2026-10-11"]
    done = CliRunner().invoke(cli, ["report", "--db", str(demo_db), "--since", week[0], "--until", week[1],
                                    "--format", "json"])
    outcomes = json.loads(done.stdout)["outcomes"]
    at = app(demo_db, "views/outcomes.py", query={"weeks": week})
    assert not at.exception, [e.value for e in at.exception]
    metrics = {metric.label: metric.value for metric in at.metric}
    assert (metrics["Merged in range"], metrics["Open now"]) == (str(outcomes["totals"]["merged"]),
                                                                 str(outcomes["totals"]["open"]))
    waiting = next(frame.value for frame in at.dataframe if "days open" in frame.value.columns)
    assert len(waiting) == outcomes["totals"]["open"] > 0
    assert "From attempt to merge, by the week pull requests opened" in [header.value for header in at.subheader]
    drawn = outcome_charts.cohort_frame(outcomes).groupby("week")["count"].sum().to_dict()
    opened = {row["week"]: row["pull_requests_opened"] for row in outcomes["weeks"]}
    assert drawn == {row["week"]: row["opened"] for row in outcomes["cohorts"]} == opened
    assert opened[week[0]] > 0
