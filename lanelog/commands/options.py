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


def key_values(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> dict[str, str]:
    """Repeated KEY=VALUE options as a dict (a later KEY wins)."""
    settings: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{item!r}: give KEY=VALUE, e.g. spark.executor.memory=4g")
        settings[key.strip()] = value
    return settings


def spark_conf_option(**attrs: Any) -> Callable[[Any], Any]:
    """``--spark-conf KEY=VALUE`` (repeatable): Spark settings for ``--engine spark``, as a dict."""
    attrs.setdefault("callback", key_values)
    return click.option("--spark-conf", "spark_conf", multiple=True, metavar="KEY=VALUE",
                        help="A Spark setting for --engine spark (repeatable), e.g. spark.executor.memory=4g; "
                             "applied after lanelog's and spark-defaults.conf's.", **attrs)


def endpoint_url_option(**attrs: Any) -> Callable[[Any], Any]:
    """``--endpoint-url URL``: the S3-compatible store serving s3:// URLs (credentials stay in the environment)."""
    return click.option("--endpoint-url", metavar="URL",
                        help="S3-compatible endpoint for s3:// URLs [default: $AWS_ENDPOINT_URL, else AWS].",
                        **attrs)
