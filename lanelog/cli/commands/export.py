"""`lanelog export`: write the database as a Parquet lake."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from lanelog import store
from lanelog.cli.options import db_option, endpoint_url_option, format_option, lake_option, wait_option
from lanelog.cli.output import echo
from lanelog.queries import choose_source


@click.command()
@lake_option("Lake folder (created when missing), or an fsspec URL such as s3://bucket/lanelog.", required=True)
@db_option("DuckDB file to export [default: $LANELOG_DB, else ./lanelog.duckdb].")
@wait_option()
@endpoint_url_option()
@format_option(["text", "json"], help="Print the summary as a line of text, or as one JSON object.")
@click.option("--quiet", is_flag=True, help="Do not list each week written on stderr.")
def export(lake: str, db: Path | None, wait: float, endpoint_url: str | None, fmt: str, quiet: bool) -> None:
    """Write the database as a Hive-partitioned Parquet lake, week by week.

    Only the weeks that changed since the last export are rewritten; each week
    is swapped in whole, so readers never see half a week, and an interrupted
    export is completed by the next one.  Exporting twice changes nothing.
    The layout and columns are the lake's schema contract (docs/lake.md).

    \b
    Example (after each scheduled ingest):
        lanelog ingest logs/ && lanelog export --lake /data/lanelog-lake
        lanelog report --lake /data/lanelog-lake --format json
    """
    con = choose_source(db).connect(wait=wait)
    progress: Callable[[str], None] | None = None if quiet else (lambda line: echo(line, err=True))
    try:
        summary = store.export_lake(con, lake, progress=progress, endpoint_url=endpoint_url)
    finally:
        con.close()
    if fmt == "json":
        echo(json.dumps(summary.as_dict()), json=True)
        return
    echo(f"{len(summary.weeks_written)} week(s) written ({summary.attempts_written} attempts), "
               f"{summary.weeks_unchanged} unchanged, {len(summary.weeks_removed)} removed; "
               f"tables rewritten: {', '.join(summary.tables_written) or 'none'}; lake at {summary.lake}")
