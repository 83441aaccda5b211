"""The options several commands share, defined once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

DB_HELP = "DuckDB file [default: $LANELOG_DB, else ./lanelog.duckdb]."


def db_option(help: str = DB_HELP) -> Callable[[Any], Any]:
    """``--db FILE``: the lane-log database; None means the default path."""
    return click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        metavar="FILE", help=help)


def wait_option() -> Callable[[Any], Any]:
    """``--wait SECONDS``: how long to wait while another process holds the database."""
    return click.option("--wait", type=click.FloatRange(min=0), default=60.0, show_default=True,
                        metavar="SECONDS",
                        help="Seconds to wait while another process holds the database.")


def endpoint_url_option() -> Callable[[Any], Any]:
    """``--endpoint-url URL``: an S3-compatible object store instead of AWS."""
    return click.option("--endpoint-url", default=None, metavar="URL",
                        help="Object store endpoint, for an S3-compatible store "
                             "[default: $AWS_ENDPOINT_URL, else AWS].")
