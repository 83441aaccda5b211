"""`lanelog dashboard`: serve the Streamlit app on a DuckDB file."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import click

from lanelog.cli.options import (
    budgets_option,
    db_option,
    db_path,
    endpoint_url_option,
    host_option,
    lake_option,
    port_option,
    today_option,
)
from lanelog.cli.output import echo


@click.command()
@db_option("DuckDB file to read [default: $LANELOG_DB, else ./lanelog.duckdb].")
@lake_option("Read the Parquet lake made by `lanelog export` instead of the database (read-only).")
@endpoint_url_option()
@host_option()
@port_option()
@click.option("--auth", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Sign-in settings (TOML: OpenID Connect provider, allow-list, writers; or a Streamlit "
                   "secrets file with [auth] and [lanelog_access]); see docs/deploy.md.")
@click.option("--no-auth", is_flag=True,
              help="Serve an address other than loopback without sign-in (a network you trust).")
@budgets_option("Budgets file (YAML, as `check --budgets` reads it): the Spend review draws each one.")
@today_option("Judge the budgets on this day (YYYY-MM-DD, UTC) instead of today, as `check --today` does.")
def dashboard(db: Path | None, lake: str | None, endpoint_url: str | None, host: str, port: int, auth: Path | None,
              no_auth: bool, budgets: Path | None, today: date | None) -> None:
    """Serve the dashboard on the lane-log database, locally and headless.

    The app opens the database read-only for each look and never holds it, so
    `lanelog ingest` can run while the dashboard is open; press its Refresh
    button to see new rows.

    An address other than loopback needs sign-in (--auth FILE: OpenID Connect, an
    allow-list of e-mail addresses or domains, and who may upload), or --no-auth.

    \b
    Example:
        lanelog dashboard --db lanelog.duckdb --port 8501
        lanelog dashboard --lake /data/lanelog-lake
        lanelog dashboard --lake s3://data-lake/lanelog
        lanelog dashboard --host 10.0.0.5 --auth /etc/lanelog/auth.toml
        lanelog dashboard --budgets budgets.yaml
    """
    from lanelog.dashboard import check_exposure, serve

    if lake is not None and db is not None:
        raise click.UsageError("give either --db FILE or --lake DIR, not both")
    check_exposure(host, auth, no_auth)
    if budgets is not None:
        from lanelog.queries import read_budgets

        read_budgets(budgets)  # a file that cannot be used is named now, not on the page
    if no_auth:
        echo(f"WARNING: serving {host}:{port} WITHOUT SIGN-IN (--no-auth): anyone who can reach "
                   "this port sees every lane-log line and may upload into the database.", err=True)
    if endpoint_url is not None:
        # The app reads the bucket in its own process: the standard variable carries the endpoint there.
        os.environ["AWS_ENDPOINT_URL"] = endpoint_url
    code = serve(db_path(db), host=host, port=port, lake=lake, auth=auth,
                 no_auth=no_auth, budgets=budgets, today=today)
    raise SystemExit(code)
