"""`make bench-quick` in CI: the harness runs every case for real and writes a well-formed table.

No timing is asserted here (speed lives in the full `make bench`); these tests
check that every case ran, and that the figures, ratios and targets the table
reports are shaped as docs/performance.md says.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.generate import write_log

REPO_ROOT = Path(__file__).resolve().parent.parent

EXPECTED_ROWS = [
    "ingest.lanelog", "ingest.floor", "ingest.seed", "ingest.pandas",
    "small.200.lanelog", "small.200.floor", "small.200.unchanged",
    "s3.200.disk", "s3.200.lanelog", "s3.200.floor", "s3.200.list_floor", "s3.200.unchanged",
    "short.lanelog", "short.floor", "short.sparse.lanelog", "short.sparse.floor",
    "incremental.unchanged", "incremental.append", "incremental.append_series", "incremental.append_series.max",
    "incremental.unchanged_cli", "incremental.append_cli", "incremental.resent",
    "report.floor", "report.cli", "report.weekly",
    "dashboard.overview.cold", "dashboard.overview.cached",
    "router.route", "router.git", "router.startup", "router.startup.floor", "replay.commits", "replay.git",
    "replay.first_parent", "replay.first_parent.git", "router.hook", "router.hook.ungated", "router.version",
    "lake.export.full", "lake.export.incremental", "lake.report.duckdb", "lake.report.spark",
]
WITH_RATIO = {"ingest.lanelog", "ingest.seed", "ingest.pandas", "small.200.lanelog", "small.200.unchanged",
              "s3.200.lanelog", "s3.200.floor", "s3.200.list_floor", "s3.200.unchanged",
              "short.lanelog", "short.sparse.lanelog", "incremental.unchanged",
              "incremental.append", "incremental.append_series", "incremental.resent", "report.cli",
              "dashboard.overview.cached",
              "router.route",
              "router.startup", "replay.commits", "replay.first_parent", "router.hook", "router.hook.ungated",
              "lake.export.incremental", "lake.report.duckdb", "lake.report.spark"}
WITH_TARGET = {"ingest.lanelog", "ingest.seed", "short.lanelog", "short.sparse.lanelog", "incremental.unchanged",
               "incremental.append",
               "incremental.append_series", "incremental.resent", "report.cli", "report.weekly",
               "dashboard.overview.cold", "dashboard.overview.cached",
               "router.startup", "replay.commits", "replay.first_parent", "router.hook", "router.hook.ungated"}


@pytest.fixture(scope="module")
def results_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    scratch = tmp_path_factory.mktemp("bench")
    results = scratch / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--out", str(scratch / "out"), "--results", str(results)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return results, done.stdout


@pytest.fixture(scope="module")
def quick_run(results_file: tuple[Path, str]) -> tuple[dict, str]:
    results, stdout = results_file
    return json.loads(results.read_text()), stdout


def test_every_case_ran(quick_run: tuple[dict, str]) -> None:
    results, _ = quick_run
    rows = {row["id"]: row for row in results["rows"]}
    assert list(rows) == EXPECTED_ROWS
    not_ok = {row_id: (row["status"], row["reason"]) for row_id, row in rows.items() if row["status"] != "ok"}
    assert not_ok == {}
    for row in rows.values():
        assert len(row["runs_s"]) == results["sizes"]["reps"]
        assert row["min_s"] <= row["median_s"] <= row["max_s"]
        assert row["peak_rss_mb"] > 0


def test_every_check_against_the_generated_data_passed(quick_run: tuple[dict, str]) -> None:
    results, _ = quick_run
    notes = {row["id"]: " ".join(row["notes"]) for row in results["rows"]}
    assert "four counts match the generator's" in notes["ingest.seed"]
    assert "four counts match the generator's" in notes["ingest.pandas"]
    assert "stored all" in notes["ingest.lanelog"]
    assert "added 0 attempts" in notes["incremental.unchanged"]
    assert "added 200 attempts, as expected" in notes["small.200.lanelog"]
    assert "added 0 attempts" in notes["small.200.unchanged"]
    assert "added 20,000 attempts, as expected" in notes["short.lanelog"]
    assert "added 20,000 attempts, as expected" in notes["short.sparse.lanelog"]
    assert "as expected" in notes["incremental.append"]
    assert "attempts over 20 runs" in notes["incremental.append_series"]
    assert "totals:" in notes["report.cli"]
    assert "rejected on line_cap" in notes["router.route"]
    assert "judged the one-file patch as route does" in notes["router.hook"]
    assert "let through, nothing printed" in notes["router.hook.ungated"]
    assert "week files" in notes["lake.export.full"]
    assert "rewrote" in notes["lake.export.incremental"]
    assert "lake JSON equal to `report --db`" in notes["lake.report.duckdb"]
    assert "Spark JSON equal to `report --db`" in notes["lake.report.spark"]


def test_ratios_and_targets_are_filled_in(quick_run: tuple[dict, str]) -> None:
    results, _ = quick_run
    for row in results["rows"]:
        if row["id"] in WITH_RATIO:
            assert row["ratio"]["value"] > 0, row["id"]
        else:
            assert row["ratio"] is None, row["id"]
        if row["id"] in WITH_TARGET:
            assert row["targets"], row["id"]
            assert all(isinstance(target["met"], bool) for target in row["targets"])
            assert row["result"] in {"met", "short"}
        else:
            assert row["targets"] == [] and row["result"] == "-", row["id"]


def test_the_generated_mix_and_the_machine_are_recorded(quick_run: tuple[dict, str]) -> None:
    results, _ = quick_run
    log = results["data"]["log"]
    assert log["broken"] >= 1 and log["credit_bugs"] >= 1
    assert 0.03 < log["quarantined"] / log["attempts"] < 0.07
    assert results["data"]["report_db"]["attempts"] == results["sizes"]["report_attempts"]
    assert results["data"]["repo"]["files_touched"] == results["sizes"]["files"]
    assert {"nproc", "memory_gib", "python", "duckdb"} <= set(results["machine"])


def test_the_printed_table_has_every_row(quick_run: tuple[dict, str]) -> None:
    results, stdout = quick_run
    assert stdout.splitlines()[0].startswith("quick mode:")
    assert stdout.splitlines()[2].split() == ["case", "median", "min", "max", "peak", "RSS", "ratio",
                                              "target", "result"]
    for row in results["rows"]:
        assert row["case"] in stdout


def test_show_prints_an_earlier_runs_markdown_table(results_file: tuple[Path, str]) -> None:
    results, _ = results_file
    shown = subprocess.run([sys.executable, "-m", "bench", "--show", str(results)],
                           cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=True).stdout
    lines = shown.splitlines()
    assert lines[0] == "| case | median | min | max | peak RSS | ratio | target | result |"
    rows = json.loads(results.read_text())["rows"]
    assert [line.split(" | ")[0].removeprefix("| ") for line in lines[2:2 + len(rows)]] == [
        row["case"] for row in rows]
    assert lines[-1].startswith("Machine: ")


def test_the_generator_is_deterministic(tmp_path: Path) -> None:
    one = write_log(tmp_path / "one.jsonl", seed=3, lines=2_000)
    two = write_log(tmp_path / "two.jsonl", seed=3, lines=2_000, workers=2, chunk_lines=300)
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert one == two
    other = write_log(tmp_path / "other.jsonl", seed=4, lines=2_000)
    assert (tmp_path / "other.jsonl").read_bytes() != (tmp_path / "one.jsonl").read_bytes()
    assert other.lines == 2_000


def test_a_full_run_rewrites_only_the_table_block_of_the_performance_page(
        results_file: tuple[Path, str], tmp_path: Path) -> None:
    from bench import table

    results = json.loads(results_file[0].read_text())
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\nmethod text\n\n<!-- bench:latest:start (made by make bench) -->\n"
                   "| old | table |\n<!-- bench:latest:end -->\n\nreading text\n")
    table.write_into_doc(doc, results)
    text = doc.read_text()
    assert text.startswith("# Performance\n\nmethod text\n\n<!-- bench:latest:start (made by make bench) -->\n| case |")
    assert text.endswith("<!-- bench:latest:end -->\n\nreading text\n")
    assert "| old | table |" not in text
    assert table.report_markdown(results) in text
    doc.write_text("no markers here\n")
    with pytest.raises(ValueError, match="no <!-- bench:latest:start"):
        table.write_into_doc(doc, results)


def test_the_performance_page_has_the_block_make_bench_writes() -> None:
    text = (REPO_ROOT / "docs" / "performance.md").read_text()
    assert text.count("<!-- bench:latest:start") == 1 and text.count("<!-- bench:latest:end -->") == 1
