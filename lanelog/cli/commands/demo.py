"""`lanelog demo`: make demo data with the real router, ingest it, optionally serve it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from lanelog.cli.extras import require
from lanelog.cli.options import (
    db_option,
    db_path,
    deprecated_alias,
    format_option,
    host_option,
    port_option,
)
from lanelog.cli.output import echo


@click.command()
@db_option("DuckDB file to create [default: $LANELOG_DB, else ./lanelog.duckdb].")
@click.option("--weeks", type=click.IntRange(1, 52), default=8, show_default=True, help="Weeks to simulate.")
@click.option("--replace", is_flag=True, help="Rebuild the database if it already exists.")
@click.option(
    "--out",
    "log_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="Keep the demo's lane logs in this folder (default: thrown away; the database keeps every line).",
)
@deprecated_alias("--logs", "--out DIR", "log_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--serve", is_flag=True, help="Then serve the dashboard on the new database.")
@host_option("With --serve: address to bind.")
@port_option("With --serve: port.")
@format_option(["text", "json"], help="Print the summary as text, or as one JSON object.")
def demo(
    db: Path | None, weeks: int, replace: bool, log_dir: Path | None,
    serve: bool, host: str, port: int, fmt: str,
) -> None:
    """Make demo data honestly: the real `lanelog route` on three throwaway repositories.

    A scripted agent opens pull requests across the simulated weeks, with patches of
    every kind the decision table knows; the router judges each attempt, and a small
    local runner answers the property lane (hold, fail, or prose that counts as
    unresolved).  Reviewers then merge or close the pull requests, each outcome
    recorded by the real `lanelog outcome`, so merges, merge rate and cost per merged
    pull request have something to show.  A clearly labelled faulty producer
    ("legacy-promoter") grants merge credit on a few quarantined attempts, so the
    credit-bug alert does too.  The three logs (routed attempts, the promoter's lines,
    the outcomes) are ingested into the database.

    \b
    Example:
        lanelog demo --serve
        lanelog demo --db /tmp/demo.duckdb --weeks 4 --replace
    """
    from lanelog.cli.demo import run_demo

    target = db_path(db)
    if serve:
        require("dashboard", "lanelog demo --serve")
        from lanelog.dashboard import check_exposure, check_port_free

        # Refuse a bad --host (the demo has no sign-in: loopback only) or a busy port before building anything.
        check_exposure(host, None, False)
        check_port_free(host, port)
    summary = run_demo(target, weeks=weeks, replace=replace, log_dir=log_dir)
    summary.credit_bugs, summary.merge_credit_bugs = _credit_counts(target)
    if fmt == "json":
        echo(json.dumps(summary.as_dict(), sort_keys=True), json=True)
    else:
        for line in summary_text(summary.as_dict()):
            echo(line)
    if serve:
        from lanelog.dashboard import serve as serve_dashboard

        echo(f"serving the dashboard on http://{host}:{port}", err=True)
        serve_dashboard(target, host=host, port=port)


def _credit_counts(db: Path) -> tuple[int, int]:
    """The one credit-bug count of the demo's database, as report and check give it: read from what was stored."""
    from lanelog import queries, store

    con = store.open_db(db, read_only=True)
    try:
        found = queries.credit_bugs(con)
    finally:
        con.close()
    return len(found.lines), len(found.merges)


def summary_text(summary: dict[str, Any]) -> list[str]:
    """The demo's summary (DemoSummary.as_dict) in lines of words: the one credit-bug count with its split."""
    from lanelog.queries import split_words

    faulty = " (legacy-promoter: the labelled faulty producer)" if summary["producers"].get("legacy-promoter") else ""
    neither = " (neither: passed the probe without an armed call)" if summary["outcomes"].get("neither") else ""
    return [
        f"demo: {summary['attempts']} attempts over {summary['weeks']} weeks; {split_words(summary)}; "
        f"made in {summary['seconds']:.1f} s -> {summary['db']}",
        "by producer: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["producers"].items())) + faulty,
        "by outcome: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(summary["outcomes"].items()))
        + neither,
        "lanes: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["lanes"].items())),
        "reject reasons: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["reasons"].items())),
    ]
