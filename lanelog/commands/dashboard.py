"""`lanelog dashboard`: serve the Streamlit app on a DuckDB file."""

from __future__ import annotations

from pathlib import Path

import click

from lanelog.commands.options import db_option, host_option, lake_option, port_option


@click.command()
@db_option("DuckDB file to read [default: $LANELOG_DB, else ./lanelog.duckdb].")
@lake_option("Read the Parquet lake made by `lanelog export` instead of the database (read-only).")
@host_option()
@port_option()
def dashboard(db: Path | None, lake: str | None, host: str, port: int) -> None:
    """Serve the dashboard on the lane-log database, locally and headless.

    The app opens the database read-only for each look and never holds it, so
    `lanelog ingest` can run while the dashboard is open; press its Refresh
    button to see new rows.

    \b
    Example:
        lanelog dashboard --db lanelog.duckdb --port 8501
        lanelog dashboard --lake /data/lanelog-lake
    """
    from lanelog.dashboard.launch import serve
    from lanelog.store import default_db_path

    if lake is not None and db is not None:
        raise click.UsageError("give either --db FILE or --lake DIR, not both")
    serve(db if db is not None else default_db_path(), host=host, port=port, lake=lake)
