"""Rows, ratios and targets: what the benchmark prints and writes to results.json.

The targets are the issues' own words (issue 3 ingest, issue 4 report, issue 5
dashboard); the router issue sets none, so git is shown as its floor only.
The bench reports a target as met or short; it never fails the build.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import Outcome, summarize

# row -> (numerator row, denominator row, how the ratio reads)
RATIOS: dict[str, tuple[str, str, str]] = {
    "ingest.lanelog": ("ingest.lanelog", "ingest.floor", "lanelog / floor"),
    "ingest.seed": ("ingest.seed", "ingest.lanelog", "seed / lanelog"),
    "ingest.pandas": ("ingest.pandas", "ingest.lanelog", "pandas / lanelog"),
    "incremental.unchanged": ("incremental.unchanged", "ingest.lanelog", "/ full ingest"),
    "incremental.append": ("incremental.append", "ingest.lanelog", "/ full ingest"),
    "incremental.append_series": ("incremental.append_series", "ingest.lanelog", "/ full ingest"),
    "incremental.resent": ("incremental.resent", "ingest.lanelog", "re-sent / new"),
    "report.cli": ("report.cli", "report.floor", "lanelog / one GROUP BY"),
    "dashboard.overview.cached": ("dashboard.overview.cached", "dashboard.overview.cold", "cached / cold"),
    "s3.5000.lanelog": ("s3.5000.lanelog", "s3.5000.disk", "bucket / disk"),
    "s3.5000.unchanged": ("s3.5000.unchanged", "s3.5000.disk", "re-run / disk first ingest"),
    "s3.5000.floor": ("s3.5000.floor", "s3.5000.disk", "server floor / disk"),
    "s3.5000.list_floor": ("s3.5000.list_floor", "s3.5000.disk", "listing floor / disk"),
    "s3.200.lanelog": ("s3.200.lanelog", "s3.200.disk", "bucket / disk"),
    "s3.200.unchanged": ("s3.200.unchanged", "s3.200.disk", "re-run / disk first ingest"),
    "s3.200.floor": ("s3.200.floor", "s3.200.disk", "server floor / disk"),
    "s3.200.list_floor": ("s3.200.list_floor", "s3.200.disk", "listing floor / disk"),
    "small.5000.lanelog": ("small.5000.lanelog", "small.5000.floor", "lanelog / glob floor"),
    "small.5000.unchanged": ("small.5000.unchanged", "small.5000.floor", "re-run / glob floor"),
    "small.50000.lanelog": ("small.50000.lanelog", "small.50000.floor", "lanelog / glob floor"),
    "small.50000.unchanged": ("small.50000.unchanged", "small.50000.floor", "re-run / glob floor"),
    "small.200.lanelog": ("small.200.lanelog", "small.200.floor", "lanelog / glob floor"),
    "small.200.unchanged": ("small.200.unchanged", "small.200.floor", "re-run / glob floor"),
    "short.lanelog": ("short.lanelog", "short.floor", "lanelog / floor"),
    "short.sparse.lanelog": ("short.sparse.lanelog", "short.sparse.floor", "lanelog / floor"),
    "router.route": ("router.route", "router.git", "route / git"),
    "router.startup": ("router.startup", "router.startup.floor", "route / floor"),
    "router.hook": ("router.hook", "router.startup", "hook / route"),
    "router.hook.ungated": ("router.hook.ungated", "router.version", "hook / --version"),
    "replay.commits": ("replay.commits", "replay.git", "replay / git"),
    "replay.first_parent": ("replay.first_parent", "replay.first_parent.git", "replay / git"),
    "lake.export.incremental": ("lake.export.incremental", "lake.export.full", "/ full export"),
    "lake.report.duckdb": ("lake.report.duckdb", "report.cli", "lake / db"),
    "lake.report.spark": ("lake.report.spark", "lake.report.duckdb", "spark / duckdb"),
    "install.all": ("install.all", "install.bare", "full / bare"),
}


@dataclass(frozen=True)
class Target:
    """A figure an issue promises: the row, what is compared, and the limit."""

    row: str
    measure: str  # "ratio", "median_s" or "peak_rss_mb"
    compare: Callable[[float, float], bool]
    limit: float
    text: str
    source: str


TARGETS = [
    Target("ingest.lanelog", "ratio", operator.le, 2.5, "≤ 2.5x floor (aim 2x)", "issue 3"),
    Target("ingest.lanelog", "peak_rss_mb", operator.lt, 512, "peak < 512 MB", "issue 3"),
    Target("ingest.seed", "ratio", operator.ge, 3.0, "≥ 3x (lanelog 3x faster)", "issue 3"),
    Target("incremental.unchanged", "median_s", operator.lt, 0.050, "< 50 ms in process", "issue 3"),
    Target("incremental.append", "median_s", operator.lt, 0.100, "< 100 ms in process", "issue 3"),
    Target("incremental.append_series", "median_s", operator.lt, 0.100, "< 100 ms in process", "issue 3"),
    Target("incremental.resent", "ratio", operator.le, 1.5, "≤ 1.5x the same lines new", "issue 14"),
    Target("small.5000.lanelog", "ratio", operator.le, 3.0, "≤ 3x the glob floor", "issue 14"),
    Target("small.5000.unchanged", "ratio", operator.le, 0.5, "≤ 0.5x the glob floor", "issue 14"),
    Target("small.50000.lanelog", "ratio", operator.le, 3.0, "≤ 3x the glob floor", "issue 14"),
    Target("small.50000.unchanged", "ratio", operator.le, 0.5, "≤ 0.5x the glob floor", "issue 14"),
    Target("short.lanelog", "ratio", operator.le, 1.5, "≤ 1.5x floor", "issue 41"),
    Target("short.sparse.lanelog", "ratio", operator.le, 1.5, "≤ 1.5x floor", "issue 41"),
    Target("s3.5000.lanelog", "ratio", operator.le, 3.0, "≤ 3x the same logs from disk", "issue 30"),
    Target("s3.5000.unchanged", "ratio", operator.le, 0.5, "≤ 0.5x the disk run's first ingest", "issue 30"),
    *(Target(row, "peak_rss_mb", operator.lt, 512, "peak < 512 MB", "issue 14")
      for row in ("small.5000.lanelog", "small.50000.lanelog", "short.lanelog", "short.sparse.lanelog")),
    Target("incremental.resent", "peak_rss_mb", operator.lt, 512, "peak < 512 MB", "issue 12"),
    Target("router.startup", "ratio", operator.le, 3.0, "≤ 3x python -c pass + git diff", "issue 13"),
    Target("router.hook", "ratio", operator.le, 1.5, "≤ 1.5x route on the same patch", "issue 54"),
    Target("router.hook.ungated", "ratio", operator.le, 2.0, "≤ 2x lanelog --version", "issue 54"),
    Target("replay.commits", "ratio", operator.le, 3.0, "≤ 3x the git calls", "issue 13"),
    Target("replay.first_parent", "ratio", operator.le, 3.0, "≤ 3x the git calls", "issue 32"),
    Target("report.cli", "median_s", operator.lt, 0.5, "< 0.5 s warm", "issue 4"),
    Target("report.cli", "ratio", operator.le, 2.0, "≤ 2x one process's GROUP BY", "issue 41"),
    Target("report.weekly", "median_s", operator.lt, 0.2, "< 0.2 s", "issue 4"),
    Target("dashboard.overview.cold", "median_s", operator.lt, 2.0, "< 2 s cold", "issue 5"),
    Target("dashboard.overview.cached", "median_s", operator.lt, 0.5, "< 0.5 s cached", "issue 5"),
]
NO_TARGET = {"router.route": "none set (git is the floor)",
             "install.bare": "none set (issue 27: a few MB)",
             "lake.report.spark": "equal JSON (speed reported)"}


def rows(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """One row per figure of every case, with its ratio and targets filled in."""
    table: list[dict[str, Any]] = []
    for outcome in outcomes:
        case = outcome.case
        for key, suffix in case.figures.items():
            row_id = case.id if key == "total" else f"{case.id}.{key}"
            label = case.label if not suffix else f"{case.label}, {suffix}"
            status = "not run" if case.not_run else "failed" if outcome.error else "ok"
            table.append({
                "id": row_id, "group": case.group, "case": label, "timing": case.timing,
                "status": status, "reason": case.not_run or outcome.error,
                **summarize(outcome, key), "notes": outcome.notes,
            })
    by_id = {row["id"]: row for row in table}
    for row in table:
        row["ratio"] = _ratio(row["id"], by_id)
        row["targets"] = _targets(row, by_id)
        row["result"] = _result(row)
    return table


def _ratio(row_id: str, by_id: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    if row_id not in RATIOS:
        return None
    top, bottom, text = RATIOS[row_id]
    value = None
    if top in by_id and bottom in by_id:
        a, b = by_id[top]["median_s"], by_id[bottom]["median_s"]
        if a is not None and b:
            value = round(a / b, 3)
    return {"of": text, "value": value}


def _targets(row: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for target in TARGETS:
        if target.row != row["id"]:
            continue
        value = row["ratio"]["value"] if target.measure == "ratio" else row[target.measure]
        met = None if value is None else bool(target.compare(value, target.limit))
        found.append({"target": target.text, "source": target.source, "value": value, "met": met})
    return found


def _result(row: dict[str, Any]) -> str:
    if row["status"] != "ok":
        return row["status"]
    checks = [target["met"] for target in row["targets"]]
    if not checks:
        return "-"
    if None in checks:
        return "n/a"
    return "met" if all(checks) else "short"


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1:
        return f"{value * 1000:.0f} ms"
    return f"{value:.2f} s"


def _cells(row: dict[str, Any]) -> list[str]:
    ratio = row["ratio"]
    ratio_text = "-"
    if ratio is not None and ratio["value"] is not None:
        digits = 2 if ratio["value"] >= 0.1 else 3  # an incremental run is a small fraction of a full one
        ratio_text = f"{ratio['value']:.{digits}f}x {ratio['of']}"
    target_text = "; ".join(t["target"] for t in row["targets"]) or NO_TARGET.get(row["id"], "-")
    peak = "-" if row["peak_rss_mb"] is None else f"{row['peak_rss_mb']:.0f} MB"
    return [row["case"], _seconds(row["median_s"]), _seconds(row["min_s"]), _seconds(row["max_s"]),
            peak, ratio_text, target_text, row["result"]]


HEADER = ["case", "median", "min", "max", "peak RSS", "ratio", "target", "result"]


def markdown(table: list[dict[str, Any]]) -> str:
    """The table as Markdown, for docs/performance.md."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join(["---"] + ["--:"] * 5 + ["---", "---"]) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in _cells(row)) + " |" for row in table]
    return "\n".join(lines)


def report_markdown(results: dict[str, Any]) -> str:
    """A results file's table, machine and commit, as docs/performance.md quotes them."""
    return (f"{markdown(results['rows'])}\n\nMachine: {machine_line(results['machine'])}; "
            f"commit {source_line(results['source'])}; the run took {results['duration_s']:.0f} s.\n")


DOC_START = "<!-- bench:latest:start"
DOC_END = "<!-- bench:latest:end -->"


def write_into_doc(doc: Path, results: dict[str, Any]) -> None:
    """Put a full run's table between the doc's bench markers, leaving the text around it."""
    text = doc.read_text(encoding="utf-8")
    start, end = text.find(DOC_START), text.find(DOC_END)
    if start < 0 or end < start:
        raise ValueError(f"{doc}: no {DOC_START} ... {DOC_END} block to write the table into")
    opening = text[start:text.index("\n", start) + 1]
    doc.write_text(text[:start] + opening + report_markdown(results) + text[end:], encoding="utf-8")


def machine_line(machine: dict[str, Any]) -> str:
    """One line naming the machine a run measured on."""
    return (f"{machine['nproc']} cores ({machine['cpu']}), {machine['memory_gib']} GiB, {machine['os']}; "
            f"Python {machine['python']}, DuckDB {machine['duckdb']}, pandas {machine['pandas']}, "
            f"Streamlit {machine['streamlit']}, git {machine['git']}; "
            f"load average at the end {', '.join(str(x) for x in machine['load_average_at_end'])}")


def source_line(source: dict[str, Any]) -> str:
    """The commit a run measured, flagged when the tree held uncommitted changes."""
    changed = source["uncommitted_changes"]
    return source["commit"] + (f" plus uncommitted changes to {', '.join(changed)}" if changed else "")


def text(table: list[dict[str, Any]]) -> str:
    """The table as aligned plain text, then the notes and reasons row by row."""
    cells = [HEADER] + [_cells(row) for row in table]
    widths = [max(len(line[i]) for line in cells) for i in range(len(HEADER))]
    out = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in cells]
    out.append("")
    seen: set[str] = set()
    for row in table:
        for note in ([row["reason"]] if row["reason"] else []) + row["notes"]:
            line = f"- {row['case'].split(', ')[0]}: {note}"
            if line not in seen:
                seen.add(line)
                out.append(line)
    return "\n".join(out)
