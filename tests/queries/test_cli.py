"""`lanelog report` and `lanelog check` on real lane-log files, through the real ingest."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from lanelog import ingest, store
from lanelog.cli import cli
from lanelog.cli.render import figures as render

DATA = Path(__file__).parent / "data"
REVIEW = DATA / "review.jsonl"


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)


def write_log(path: Path, *objects: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(obj) + "\n" for obj in objects))
    return path


def figures(week: str | None, *values: Any) -> dict[str, Any]:
    keys = ("attempts", "probe_rejects", "calls_armed", "credit_bugs", "quarantined", "units",
            "armed_per_reject")
    row = {"week": week, **dict(zip(keys, values))}
    # The log's two rejects are line_cap and fixture_and_test: patch rejects, no setup reject.  No line names
    # a pull request, so no merge is a credit bug: the one count is the lines'.
    return {**row, "setup_rejects": 0, "patch_rejects": row["probe_rejects"], "merge_credit_bugs": 0,
            "credit_bugs_total": row["credit_bugs"]}


def unpriced(week: str | None, attempts: int, rejects: int, armed: int, units: int = 0,
             repo: bool = False) -> dict[str, Any]:
    """A money row (report's `money`) of a group whose lines record no usage."""
    counts = ({"calls_armed": armed} if repo else
              {"week": week, "attempts": attempts, "probe_rejects": rejects, "patch_rejects": rejects,
               "calls_armed": armed, "units": units})
    row = {**counts, "calls_with_usage": 0, "calls_priced": 0, "input_tokens": None,
           "output_tokens": None, "currency": None, "cost": None}
    if not repo:
        row.update(cost_per_armed_call=None, cost_per_unit=None, spend_avoided_estimate=None)
    return {**row, "note": "no usage recorded"}


# Worked out by hand from data/review.jsonl, line by line:
# r1 reject (week 10-05); r2 ts Sunday 23:30 -05:00 = Monday 04:30 UTC (week 10-12), armed,
# 2 units, quarantined; r3 Sunday 23:30 UTC (week 10-05), armed, no units, one property = 1;
# r4 2026-12-31 (week 12-28), reject; r5 credit bug (week 10-12); line 6 undated, armed,
# one property = 1 unit; line 7 broken (rejected); line 8 blank; r9 Sunday 2027-01-03
# (week 12-28), armed, 3 units.
REVIEW_REPORT = {
    "weeks": [
        figures("2026-10-05", 2, 1, 1, 0, 0, 1, 1.0),
        figures("2026-10-12", 2, 0, 1, 1, 2, 2, None),
        figures("2026-12-28", 2, 1, 1, 0, 0, 3, 1.0),
        figures(None, 1, 0, 1, 0, 0, 1, None),
    ],
    "totals": {key: value for key, value in figures(None, 7, 2, 4, 1, 2, 7, 2.0).items()
               if key != "week"},
    "rejected_lines": 1,
    "credit_bug_merges": [],
    # No line records a usage: every week says so, and no cost is shown as 0.
    "money": {
        "weeks": [
            unpriced("2026-10-05", 2, 1, 1, 1),
            unpriced("2026-10-12", 2, 0, 1, 2),
            unpriced("2026-12-28", 2, 1, 1, 3),
            unpriced(None, 1, 0, 1, 1),
        ],
        "totals": {key: value for key, value in unpriced(None, 7, 2, 4, 7).items() if key != "week"},
        "by_property": [],
        "by_repo": [
            {"week": "2026-10-05", "repo": "api", **unpriced(None, 0, 0, 1, repo=True)},
            {"week": "2026-10-12", "repo": "svc", **unpriced(None, 0, 0, 1, repo=True)},
            {"week": "2026-12-28", "repo": "svc", **unpriced(None, 0, 0, 1, repo=True)},
            {"week": None, "repo": None, **unpriced(None, 0, 0, 1, repo=True)},
        ],
        "estimate": ("spend_avoided_estimate is an estimate: each week's patch rejects times that "
                     "week's mean cost per armed call (over the armed calls that recorded a cost)"),
    },
    # No line names a pull request: no week, and every count 0, every mean and cost null (never 0).
    "outcomes": {
        "weeks": [],
        "totals": {"pull_requests": 0, "merged": 0, "merged_cost_known": 0, "cost_coverage": None,
                   "closed_without_merge": 0, "merge_rate": None,
                   "merge_rate_denominator": 0, "cost_per_merged_pr": None, "merged_cost_unknown": 0, "currency": None,
                   "costs_in_several_currencies": False, "spend_closed_without_merge": None, "closed_cost_unknown": 0,
                   "median_hours_to_merge": None, "rejected_then_merged": 0, "merge_credit_bugs": 0,
                   "reviewed_exceptions": 0, "first_try_merges": 0, "first_try_rate": None, "open": 0,
                   "stale_open": 0},
        "by_agent": [],
        "by_repo": [],
        "cohorts": [],
        "stale_days": 14,
        "merge_rate_rule": ("merge_rate is merged / (merged + closed_without_merge); pull requests still open are "
                            "in neither, and merge_rate_denominator says how many closed"),
        "cost_rule": ("cost_per_merged_pr is what every attempt of the pull requests merged in the week cost, over "
                      "those whose cost is known; merged_cost_unknown counts those whose armed calls did not all "
                      "record a cost in one currency, never as costing nothing"),
        "contradicting_times": [],
    },
}


def test_report_json_on_a_log_file_is_the_hand_computed_figures() -> None:
    result = run("report", REVIEW, "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == REVIEW_REPORT


def test_report_json_matches_the_golden_file_byte_for_byte() -> None:
    result = run("report", REVIEW, "--format", "json")
    assert result.stdout == (DATA / "review.report.json").read_text()


@pytest.mark.parametrize(
    ("ts", "week"),
    [
        ("2026-10-11T23:30:00-05:00", "2026-10-12"),  # Sunday evening in New York: Monday UTC
        ("2026-10-11T23:30:00Z", "2026-10-05"),
        ("2026-12-31", "2026-12-28"),  # ISO week 53 of 2026 starts on Monday 12-28
        ("2027-01-03T23:59:59Z", "2026-12-28"),
        ("2027-01-04T00:00:00Z", "2027-01-04"),
    ],
)
def test_week_edges(tmp_path: Path, ts: str, week: str) -> None:
    log = write_log(tmp_path / "lane-log.jsonl", {"ts": ts, "probe": "pass"})
    weeks = json.loads(run("report", log, "--format", "json").stdout)["weeks"]
    assert [row["week"] for row in weeks] == [week]


def test_report_reads_a_database_file_and_filters(tmp_path: Path) -> None:
    db = tmp_path / "lanelog.duckdb"
    con = store.open_db(db)
    ingest.ingest_paths(con, [REVIEW])
    con.close()
    full = json.loads(run("report", "--db", db, "--format", "json").stdout)
    assert full == REVIEW_REPORT
    def weeks(*args: str) -> list[str | None]:
        out = json.loads(run("report", "--db", db, "--format", "json", *args).stdout)
        return [row["week"] for row in out["weeks"]]

    assert weeks("--since", "2026-10-18") == ["2026-10-12", "2026-12-28", None]  # a Sunday
    assert weeks("--since", "2026-10-19") == ["2026-12-28", None]
    assert weeks("--until", "2026-10-12", "--repo-name", "svc") == ["2026-10-05", "2026-10-12"]
    assert weeks("--repo-name", "api") == ["2026-10-05"]  # the undated line names no repo


def test_report_table_csv_and_markdown() -> None:
    table = run("report", REVIEW).stdout.splitlines()
    assert table[0].split() == ["week", "attempts", "probe", "rejects", "setup", "rejects", "patch", "rejects",
                                "armed", "calls", "credit", "bugs", "quarantined", "units", "armed", "calls", "per",
                                "patch", "reject"]
    assert table[2].split() == ["2026-10-05", "2", "1", "0", "1", "1", "0", "0", "1", "1.00"]
    assert table[5].split() == ["undated", "1", "0", "0", "0", "1", "0", "0", "1", "-"]
    assert table[6].split() == ["total", "7", "2", "0", "2", "4", "1", "2", "7", "2.00"]

    csv_lines = run("report", REVIEW, "--format", "csv").stdout.splitlines()
    assert csv_lines[0] == ("week,attempts,probe_rejects,setup_rejects,patch_rejects,calls_armed,credit_bugs,"
                            "merge_credit_bugs,credit_bugs_total,quarantined,units,armed_per_reject,calls_with_usage,calls_priced,input_tokens,"
                            "output_tokens,cost,currency,cost_per_armed_call,spend_avoided_estimate,costs")
    # No line records a usage: the money's counts are 0 and its sums empty, never 0.
    assert csv_lines[1:] == ["2026-10-05,2,1,0,1,1,0,0,0,0,1,1.0,0,0,,,,,,,",
                             "2026-10-12,2,0,0,0,1,1,0,1,2,2,,0,0,,,,,,,",
                             "2026-12-28,2,1,0,1,1,0,0,0,0,3,1.0,0,0,,,,,,,", ",1,0,0,0,1,0,0,0,0,1,,0,0,,,,,,,"]

    review = run("report", REVIEW, "--format", "markdown").stdout
    assert "| 2026-10-12 | 2 | 0 | 0 | 0 | 1 | 1 | 2 | 2 | - |" in review
    assert "| **total** | 7 | 2 | 0 | 2 | 4 | 1 | 2 | 7 | 2.00 |" in review
    assert "2 patch rejects (the gate at work) against 4 armed calls." in review
    assert "No setup rejects: every job could judge its patch." in review
    assert "Week of 2026-12-28 against the week of 2026-10-12 (the latest earlier week" in review
    assert "| units | 2 | 3 | +1 |" in review
    assert "- **r5** at 2026-10-13T08:00:00Z, repo svc, head b2c3d4, producer legacy-promoter: " \
           "merge credit 1 with quarantine \\[test\\_export\\_race\\]" in review
    assert "| line\\_cap | patch | 1 |" in review and "| fixture\\_and\\_test | patch | 1 |" in review


def test_setup_rejects_are_kept_apart_from_patch_rejects(tmp_path: Path) -> None:
    day = "2026-10-05T10:00:00Z"
    log = write_log(
        tmp_path / "lane-log.jsonl",
        {"ts": day, "attempt_id": "s1", "probe": "reject", "reasons": ["base_missing"]},
        {"ts": day, "attempt_id": "s2", "probe": "reject", "reasons": ["not_a_repo"], "repo": "tmp"},
        {"ts": day, "attempt_id": "s3", "probe": "reject", "reasons": ["policy_invalid", "line_cap"]},
        {"ts": day, "attempt_id": "p1", "probe": "reject", "reasons": ["line_cap"]},
        {"ts": day, "attempt_id": "p2", "probe": "reject", "reasons": []},
        {"ts": day, "attempt_id": "a1", "probe": "pass", "model_call_allowed": True, "properties": ["x"]},
    )
    report = json.loads(run("report", log, "--format", "json").stdout)
    week = report["weeks"][0]
    assert (week["probe_rejects"], week["setup_rejects"], week["patch_rejects"]) == (5, 3, 2)
    assert (report["totals"]["setup_rejects"], report["totals"]["patch_rejects"]) == (3, 2)
    assert week["armed_per_reject"] == 0.5  # armed calls per patch reject: setup rejects left out
    review = run("report", log, "--format", "markdown").stdout
    assert "2 patch rejects (the gate at work) against 1 armed call. Armed calls per patch reject: 0.50." in review
    assert ("**CI problem: 3 setup rejects** (base\\_missing 1, not\\_a\\_repo 1, policy\\_invalid 1). "
            "These jobs could not judge their patch") in review
    assert "| base\\_missing | setup | 1 |" in review and "| line\\_cap | patch | 2 |" in review


def test_setup_rejects_of_odd_reason_lists_are_what_python_counts(tmp_path: Path) -> None:
    """Reason lists as other producers write them: nulls, numbers, objects, repeats, a
    string where a list belongs.  A probe reject is a setup reject when its reasons are a
    list holding a setup reason as a string; a pass is never one, whatever it lists."""
    from lanelog.reasons import SETUP_REASONS

    day = "2026-10-05T10:00:00Z"
    lists: list[Any] = [
        [None, "base_missing"], ["base_missing", "base_missing"], [1, "line_cap"], [{"r": "not_a_repo"}],
        "not_a_repo", None, [], [None], ["Not_A_Repo"], ["internal_error", None, 2.5], ["line_cap", "head_missing"],
    ]
    lines = [{"ts": day, "attempt_id": f"r{i}", "probe": "reject", "reasons": reasons}
             for i, reasons in enumerate(lists)]
    lines.append({"ts": day, "attempt_id": "p0", "probe": "pass", "reasons": ["base_missing"]})
    log = write_log(tmp_path / "lane-log.jsonl", *lines)
    expected = sum(1 for line in lines if line["probe"] == "reject" and isinstance(line["reasons"], list)
                   and any(isinstance(r, str) and r in SETUP_REASONS for r in line["reasons"]))
    assert expected == 4
    week = json.loads(run("report", log, "--format", "json").stdout)["weeks"][0]
    assert (week["probe_rejects"], week["setup_rejects"], week["patch_rejects"]) == (11, 4, 7)


def test_markdown_escapes_log_text(tmp_path: Path) -> None:
    log = write_log(tmp_path / "lane-log.jsonl", {
        "ts": "2026-10-05T10:00:00Z", "attempt_id": "<img src=x onerror=alert(1)>",
        "repo": "[click](http://evil)", "quarantine": ["t|x"], "merge_credit": 1,
    })
    review = run("report", log, "--format", "markdown").stdout
    assert "\\<img src=x onerror=alert(1)\\>" in review
    assert "\\[click\\](http://evil)" in review and "\\[t\\|x\\]" in review
    assert "<img" not in review.replace("\\<img", "")


def test_check_exits_1_on_a_credit_bug_and_prints_the_row() -> None:
    result = run("check", REVIEW)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == ("CREDIT BUG 2026-10-13T08:00:00Z attempt r5 repo svc head b2c3d4 "
                        "producer legacy-promoter quarantine [test_export_race] merge_credit 1 "
                        f"at {REVIEW}:5")
    assert json.loads(lines[1].removeprefix("  raw: "))["attempt_id"] == "r5"
    # Once: a credit bug already says its merge credit was set, so no merge_credit warning repeats it.
    assert lines[2:] == ["1 credit bug (1 attempt given merge credit while quarantined) in range; 0 warning(s)"]


def test_check_exits_0_on_quarantine_alone(tmp_path: Path) -> None:
    log = write_log(tmp_path / "lane-log.jsonl",
                    {"ts": "2026-10-05T10:00:00Z", "probe": "pass", "quarantine": ["test_x"],
                     "merge_credit": 0, "model_call_allowed": True, "properties": ["p"]})
    result = run("check", log, "--strict")
    assert (result.exit_code, result.stdout) == (
        0, "no credit bugs in range (1 attempts checked, 1 quarantined without credit); "
           "0 warning(s)\n")


def test_check_exits_0_on_an_empty_database(tmp_path: Path) -> None:
    db = tmp_path / "lanelog.duckdb"
    store.open_db(db).close()
    result = run("check", "--db", db)
    assert (result.exit_code, result.stdout) == (
        0, "no credit bugs in range (0 attempts checked, 0 quarantined without credit); "
           "0 warning(s)\n")


def test_an_undated_credit_bug_alerts_whatever_the_dates(tmp_path: Path) -> None:
    log = write_log(tmp_path / "lane-log.jsonl",
                    {"ts": "2026-10-05T10:00:00Z", "quarantine": ["t"], "merge_credit": 1},
                    {"quarantine": ["t"], "merge_credit": "0"})
    result = run("check", log, "--since", "2030-01-01")
    assert result.exit_code == 1
    assert result.stdout.startswith(f"CREDIT BUG - attempt - repo - head - producer - "
                                    f"quarantine [t] merge_credit \"0\" at {log}:2\n")


WARNINGS = [
    ("armed_on_reject", {"probe": "reject", "model_call_allowed": True},
     "probe=reject, model_call_allowed is truthy"),
    ("merge_credit", {"merge_credit": 2, "quarantine": []}, "merge_credit=2"),
    ("quarantine_in_properties",
     {"model_call_allowed": True, "properties": ["prop_a", "test_x"], "quarantine": ["test_x"]},
     "in properties and quarantine: test_x"),
    ("over_budget", {"model_call_allowed": True, "units": 4, "budget_cap": 3},
     "units 4.0 > budget_cap 3.0"),
    ("over_budget", {"model_call_allowed": True, "properties": ["a", "b"], "budget_cap": 1},
     "units 2.0 > budget_cap 1.0"),
]


@pytest.mark.parametrize(("rule", "fields", "detail"), WARNINGS)
def test_each_warning_is_printed_and_fails_only_under_strict(
    tmp_path: Path, rule: str, fields: dict[str, Any], detail: str,
) -> None:
    log = write_log(tmp_path / "lane-log.jsonl",
                    {"ts": "2026-10-05T10:00:00Z", "attempt_id": "w1", "repo": "svc", **fields})
    result = run("check", log)
    assert result.exit_code == 0
    quarantined = 1 if fields.get("quarantine") else 0
    assert result.stdout.splitlines() == [
        f"warning: {rule} 2026-10-05T10:00:00Z attempt w1 repo svc at {log}:1: {detail}",
        f"no credit bugs in range (1 attempts checked, {quarantined} quarantined without credit); "
        "1 warning(s)",
    ]
    assert run("check", log, "--strict").exit_code == 1


@pytest.mark.parametrize(
    "fields",
    [
        {"probe": "reject", "reasons": ["over_budget"], "units": 5, "budget_cap": 3},  # spent nothing
        {"model_call_allowed": True, "units": 3, "budget_cap": 3},  # at the cap is within it
        {"model_call_allowed": True, "quarantine": ["test_x"], "properties": ["prop_a"]},
        {"merge_credit": 0.0, "quarantine": ["test_x"]},
    ],
)
def test_rules_kept_give_no_warning(tmp_path: Path, fields: dict[str, Any]) -> None:
    log = write_log(tmp_path / "lane-log.jsonl", {"ts": "2026-10-05T10:00:00Z", **fields})
    result = run("check", log, "--strict")
    assert result.exit_code == 0
    assert "warning:" not in result.stdout and result.stdout.endswith("; 0 warning(s)\n")


def test_check_json_lines_keep_stdout_parseable() -> None:
    result = run("check", REVIEW, "--format", "json")
    assert result.exit_code == 1
    [bug] = [json.loads(line) for line in result.stdout.splitlines()]
    assert bug == {
        "kind": "credit_bug", "week": "2026-10-12", "ts": "2026-10-13T08:00:00Z",
        "attempt_id": "r5", "repo": "svc", "head": "b2c3d4", "producer": "legacy-promoter",
        "quarantine": ["test_export_race"], "merge_credit": 1, "source": str(REVIEW),
        "line_no": 5, "raw": REVIEW.read_text().splitlines()[4],
    }
    assert "1 credit bug (1 attempt given merge credit while quarantined) in range" in result.stderr


def test_check_old_json_flag_prints_the_same_lines_for_one_release_with_a_note() -> None:
    new, old = run("check", REVIEW, "--format", "json"), run("check", REVIEW, "--json")
    assert old.exit_code == new.exit_code == 1
    assert old.stdout == new.stdout
    assert old.stderr == ("warning: --json is deprecated and goes in the next release; use --format json\n"
                          + new.stderr)


def test_check_repo_filter(tmp_path: Path) -> None:
    assert run("check", REVIEW, "--repo-name", "api").exit_code == 0
    assert run("check", REVIEW, "--repo-name", "svc").exit_code == 1


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--since", "2026-02-30"], "Error: bad date for since: '2026-02-30' (expected YYYY-MM-DD)"),
        (["--until", "soon"], "Error: bad date for until: 'soon' (expected YYYY-MM-DD)"),
        (["--since", "2026-10-09", "--until", "2026-10-08"],
         "Error: since 2026-10-09 is after until 2026-10-08"),
    ],
)
@pytest.mark.parametrize("command", ["report", "check"])
def test_bad_dates_exit_2(command: str, args: list[str], error: str) -> None:
    result = run(command, REVIEW, *args)
    assert (result.exit_code, result.stdout, result.stderr.strip()) == (2, "", error)


@pytest.mark.parametrize("command", ["report", "check"])
def test_a_missing_database_exits_2(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "none.duckdb"
    result = run(command, "--db", missing)
    assert result.exit_code == 2
    # The hint names the user's own --db (issue 29), so following it makes that database.
    assert result.stderr.strip() == (
        f"Error: no database at {missing}: make one with `lanelog ingest LANE_LOG --db {missing}` "
        f"(or try lanelog with `lanelog demo --db {missing}`)")
    assert not missing.exists()


@pytest.mark.parametrize("command", ["report", "check"])
def test_an_unreadable_log_exits_2(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "gone.jsonl"
    result = run(command, REVIEW, missing)
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: cannot read lane log: ")
    assert str(missing) in result.stderr


@pytest.mark.parametrize("command", ["report", "check"])
def test_db_and_logs_together_exit_2(tmp_path: Path, command: str) -> None:
    result = run(command, "--db", tmp_path / "x.duckdb", REVIEW)
    assert result.exit_code == 2
    assert "Error: give either --db FILE or LOG files, not both" in result.stderr


def test_the_installed_command_exits_1_on_a_credit_bug() -> None:
    done = subprocess.run([sys.executable, "-m", "lanelog", "check", str(REVIEW), "--format", "json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert [json.loads(line)["kind"] for line in done.stdout.splitlines()] == ["credit_bug"]


def test_check_prints_each_credit_bug_once_and_warns_of_credit_without_quarantine(tmp_path: Path) -> None:
    day = "2026-10-05T10:00:00Z"
    log = write_log(
        tmp_path / "lane-log.jsonl",
        {"ts": day, "attempt_id": "bug1", "quarantine": ["t1"], "merge_credit": 1},
        {"ts": day, "attempt_id": "bug2", "quarantine": ["t2"], "merge_credit": 1},
        {"ts": day, "attempt_id": "reviewed", "quarantine": [], "merge_credit": 1},
    )
    result = run("check", log)
    assert result.exit_code == 1
    out = result.stdout.splitlines()
    assert [line.split()[4] for line in out if line.startswith("CREDIT BUG")] == ["bug1", "bug2"]
    assert [line for line in out if line.startswith("warning:")] == [
        f"warning: merge_credit {day} attempt reviewed repo - at {log}:3: merge_credit=1"]
    assert out[-1] == "2 credit bugs (2 attempts given merge credit while quarantined) in range; 1 warning(s)"


@pytest.mark.parametrize("command", ["report", "check"])
def test_the_database_is_opened_read_only_with_the_given_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str,
) -> None:
    db = tmp_path / "lanelog.duckdb"
    store.open_db(db).close()
    opened: list[dict[str, Any]] = []
    real_open = store.open_db

    def recording_open(path: Path, **options: Any) -> Any:
        opened.append({"path": path, **options})
        return real_open(path, **options)

    monkeypatch.setattr(store, "open_db", recording_open)
    assert run(command, "--db", db, "--wait", "7.5").exit_code == 0
    assert opened == [{"path": db, "read_only": True, "wait": 7.5}]


def test_lanelog_db_names_the_default_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "elsewhere.duckdb"
    con = store.open_db(db)
    ingest.ingest_paths(con, [REVIEW])
    con.close()
    monkeypatch.setenv("LANELOG_DB", str(db))
    assert json.loads(run("report", "--format", "json").stdout) == REVIEW_REPORT


def test_a_database_of_another_schema_version_exits_2(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    con = store.open_db(db)
    con.execute("UPDATE lanelog_meta SET value = '0' WHERE key = 'schema_version'")
    con.close()
    for command in ("report", "check"):
        result = run(command, "--db", db)
        assert result.exit_code == 2
        assert result.stderr.startswith(
            f"Error: {db} was made with lanelog schema version 0, and this lanelog uses version")


def test_a_held_database_exits_2_after_the_wait(tmp_path: Path) -> None:
    db = tmp_path / "held.duckdb"
    store.open_db(db).close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import duckdb, sys; con = duckdb.connect(sys.argv[1]); print('held', flush=True); "
         "sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        result = run("report", "--db", db, "--wait", "0.2")
    finally:
        holder.communicate("")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: the database {db} is held by ")


def test_report_json_never_imports_pandas(tmp_path: Path) -> None:
    # Importing pandas alone costs about half a second: the JSON path stays on plain rows.
    db = tmp_path / "lanelog.duckdb"
    con = store.open_db(db)
    ingest.ingest_paths(con, [REVIEW])
    con.close()
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from lanelog.cli import cli\n"
        "for args in (['report', '--format', 'json'], ['check', '--format', 'json']):\n"
        "    result = CliRunner().invoke(cli, args + ['--db', sys.argv[1]])\n"
        "    assert result.exit_code in (0, 1), result.output\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True,
                          check=True)
    assert done.stdout == "False\n"


@pytest.mark.parametrize("command", ["report", "check"])
def test_repo_name_filters_and_the_old_repo_flag_still_works_with_a_note(command: str) -> None:
    filtered = run(command, REVIEW, "--repo-name", "api", *(["--format", "json"] if command == "check" else []))
    old = run(command, REVIEW, "--repo", "api", *(["--format", "json"] if command == "check" else []))
    assert old.stdout == filtered.stdout
    assert old.stderr.startswith("warning: --repo is deprecated and goes in the next release; use --repo-name NAME\n")
    assert "deprecated" not in filtered.stderr
    both = run(command, REVIEW, "--repo-name", "api", "--repo", "svc")
    assert both.exit_code == 2
    assert "Error: --repo-name and the deprecated --repo disagree" in both.stderr
    help_text = run(command, "--help").stdout
    assert "--repo-name NAME" in help_text and not re.search(r"--repo\b(?!-)", help_text)


def test_report_csv_carries_the_money_and_the_shadow_per_week(tmp_path: Path) -> None:
    def attempt(n: int, week: str, **fields: object) -> str:
        return json.dumps({"attempt_id": f"m{n}", "ts": f"{week}T10:00:00Z", "repo": "svc", "probe": "pass",
                           "model_call_allowed": True, "units": 2, "properties": ["p1"], **fields})

    usage = {"p1": {"input_tokens": 1000, "output_tokens": 10, "cost": 0.25, "currency": "USD"}}
    shadow = {"probe": "reject", "reasons": ["line_cap"], "units": 0, "model_call_allowed": False,
              "policy_sha256": "ab" * 32}
    log = tmp_path / "lane-log.jsonl"
    log.write_text("\n".join([
        attempt(1, "2026-10-05", usage=usage, shadow=shadow),
        attempt(2, "2026-10-05", usage=usage),
        attempt(3, "2026-10-12", usage={"p1": {"cost": 1.5, "currency": "=HYPERLINK(\"https://evil.example\")\r@x"}}),
        attempt(4, "2026-10-12", probe="reject", model_call_allowed=False, units=0),
    ]) + "\n")
    text = run("report", log, "--format", "csv").stdout_bytes.decode()  # stdout would make CRLF LF
    assert text.count("\r\n") == 3 and text.endswith("\r\n")  # the header and two weeks, CRLF each
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert [row["week"] for row in rows] == ["2026-10-05", "2026-10-12"]
    first, second = rows
    assert (first["calls_priced"], first["input_tokens"], first["output_tokens"]) == ("2", "2000", "20")
    assert (first["cost"], first["currency"], first["cost_per_armed_call"]) == ("0.5", "USD", "0.25")
    # A policy's columns are named by its digest's first 12 digits (render/shadow.py).
    assert (first["shadow_abababababab_attempts"], first["shadow_abababababab_live_probe_rejects"],
            first["shadow_abababababab_probe_rejects"], first["shadow_abababababab_flips"]) == ("1", "0", "1", "1")
    assert first["shadow_errors"] == ""
    # A currency that is no three-capital code is recorded absent, and its cost with it.
    assert (second["currency"], second["cost"], second["spend_avoided_estimate"]) == ("", "", "")
    assert second["calls_with_usage"] == "1" and second["input_tokens"] == ""
    assert second["shadow_abababababab_attempts"] == ""  # no shadowed attempt that week
    # Text that reaches the CSV some other way (a lake written by hand) is shown, never run as a
    # formula; a carriage return in it is quoted inside its field, and the text after it defused too.
    hostile = "=HYPERLINK(\"https://evil.example\")\r@x"
    week = dict.fromkeys(render.HEADINGS, 0) | {"week": "2026-10-12"}
    money = {"week": "2026-10-12", "cost": None, "currency": None, "note": "more than one currency",
             "costs": [{"currency": hostile, "cost": 1.5}, {"currency": "USD", "cost": 2.0}]}
    crafted = render.csv_text({"weeks": [week], "money": {"weeks": [{**money, "currency": hostile}]}})
    (row,) = list(csv.DictReader(io.StringIO(crafted, newline="")))
    assert row["currency"] == "'=HYPERLINK(\"https://evil.example\")\r'@x"
    assert row["costs"] == "'=HYPERLINK(\"https://evil.example\")\r'@x 1.5; USD 2.0"


LOADED_AFTER_REPORT = """
import json, sys
from lanelog.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
finally:
    print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _modules_after(*args: str | Path) -> tuple[str, set[str]]:
    done = subprocess.run([sys.executable, "-P", "-c", LOADED_AFTER_REPORT, *map(str, args)],
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stdout, set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(("command", "unused"), [("report", {"yaml", "http.client"}),
                                                 ("check", {"yaml"})])
def test_a_run_without_budgets_or_webhooks_loads_no_yaml_or_poster(tmp_path: Path, command: str,
                                                                   unused: set[str]) -> None:
    db = tmp_path / "review.duckdb"
    assert run("ingest", "--db", db, REVIEW).exit_code == 0
    out, loaded = _modules_after(command, "--db", db, "--format", "json")
    assert json.loads(out.splitlines()[0] if command == "check" else out)
    # PyYAML and the webhook poster (http.client) are a third of the command's own
    # imports; `check` builds its alerts whether or not a webhook is given.
    assert not unused & loaded


def test_a_report_with_a_budgets_file_reads_it(tmp_path: Path) -> None:
    db = tmp_path / "review.duckdb"
    assert run("ingest", "--db", db, REVIEW).exit_code == 0
    budgets = tmp_path / "budgets.yaml"
    budgets.write_text("budgets:\n  - name: team\n    amount: 10\n    currency: USD\n    period: month\n")
    out, loaded = _modules_after("report", "--db", db, "--format", "json", "--budgets", budgets)
    assert [row["name"] for row in json.loads(out)["budgets"]] == ["team"]
    assert "yaml" in loaded
