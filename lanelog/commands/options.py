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


def notify_options(command: Any) -> Any:
    """``--notify URL`` (repeatable, or $LANELOG_NOTIFY), ``--notify-format``, ``--notify-timeout``."""
    options = [
        click.option("--notify", "notify", multiple=True, metavar="URL", envvar="LANELOG_NOTIFY",
                     help="Post to this incoming webhook (repeatable; or $LANELOG_NOTIFY, URLs separated "
                          "by spaces, which keeps them out of the process list).  The URL is a secret: "
                          "it is never printed or stored."),
        click.option("--notify-format", type=click.Choice(["slack", "json"]), default="slack", show_default=True,
                     help="slack: text and blocks (Slack, Mattermost, Google Chat); json: a plain event."),
        click.option("--notify-timeout", type=click.FloatRange(min=0.1, max=120), default=10.0,
                     show_default=True, metavar="SECONDS",
                     help="Longest wait to connect to a webhook, and for each read of its answer."),
    ]
    for option in reversed(options):
        command = option(command)
    return command
