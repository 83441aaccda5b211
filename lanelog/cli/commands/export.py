"""`lanelog export`: write the database as a Parquet lake, and the options that read one."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from lanelog import store
from lanelog.cli.commands.options import (
    db_option,
    endpoint_url_option,
    engine_option,
    format_option,
    key_values,
    lake_option,
    spark_conf_option,
    spark_master_option,
    wait_option,
)
from lanelog.cli.commands.output import echo
from lanelog.queries.source import choose_source

_SETTINGS = "lanelog.lake_settings"


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


def lake_options(command: Any) -> Any:
    """`--lake`, `--engine`, `--spark-master` and the lake's settings: where `report` and `check` read.

    `--spark-conf`, `--endpoint-url` and `--verbose` only shape how the lake is read, so they
    go to `lake_settings()` (the command's context) rather than to every command's arguments.
    """
    options = [
        lake_option(), engine_option(), spark_master_option(),
        spark_conf_option(expose_value=False, callback=_remember_spark_conf),
        endpoint_url_option(expose_value=False, callback=_remember),
        click.option("--verbose", is_flag=True, expose_value=False, callback=_remember,
                     help="Show Spark's progress bar and log on stderr (--engine spark)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    ctx.meta.setdefault(_SETTINGS, {})[param.name] = value
    return value


def _remember_spark_conf(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> Any:
    return _remember(ctx, param, key_values(ctx, param, values))


def lake_settings() -> dict[str, Any]:
    """The running command's --spark-conf (a dict), --endpoint-url and --verbose."""
    given = click.get_current_context().meta.get(_SETTINGS, {})
    return {"spark_conf": given.get("spark_conf") or {}, "endpoint_url": given.get("endpoint_url"),
            "verbose": bool(given.get("verbose"))}


def check_sources(db: Path | None, logs: tuple[Path, ...], lake: str | None, engine: str,
                  spark_master: str | None) -> None:
    """Refuse option combinations that name two places to read, or Spark without a lake."""
    if lake is not None and (db is not None or logs):
        raise click.UsageError("give one of --db FILE, --lake DIR or LOG files")
    if engine == "spark" and lake is None:
        raise click.UsageError("--engine spark reads a lake: give --lake DIR (make one with `lanelog export`)")
    if spark_master is not None and engine != "spark":
        raise click.UsageError("--spark-master needs --engine spark")
    if lake_settings()["spark_conf"] and engine != "spark":
        raise click.UsageError("--spark-conf needs --engine spark")
