"""The options several commands share, defined once, and the one way to rename a flag.

One grammar across commands: inputs are positional (`LOG`, `PATHS`); `--db FILE`
is the database and `--lake DIR` the lake, read or written; `--out` names the file
or folder a command writes besides them; `--format` picks how data is printed.
A renamed flag keeps its old spelling for one release as a hidden alias that
prints a note on stderr (``deprecated_alias``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from lanelog.cli.output import echo
from lanelog.errors import FactInvalid

DB_HELP = "DuckDB file [default: $LANELOG_DB, else ./lanelog.duckdb]."
WAIT_HELP = "Seconds to wait while another process holds the database."
LAKE_HELP = ("Read the Parquet lake made by `lanelog export` (a folder, or an fsspec URL) "
             "instead of the database.")

Decorator = Callable[[Any], Any]


def db_option(help: str = DB_HELP) -> Decorator:
    """``--db FILE``: the lane-log database; None means the default path."""
    return click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        metavar="FILE", help=help)


def db_path(db: Path | None) -> Path:
    """The database file a command opens: ``--db FILE``, else $LANELOG_DB, else ./lanelog.duckdb.

    The rule is lanelog.queries.choose_source's, the one every reader follows too.
    """
    from lanelog.queries import choose_source

    return choose_source(db).db


def wait_option(help: str = WAIT_HELP) -> Decorator:
    """``--wait SECONDS``: how long to wait while another process holds the database."""
    return click.option("--wait", type=click.FloatRange(min=0), default=60.0, show_default=True,
                        metavar="SECONDS", help=help)


def lake_option(help: str = LAKE_HELP, required: bool = False) -> Decorator:
    """``--lake DIR``: the Parquet lake (a folder, or an fsspec URL), kept as text."""
    return click.option("--lake", metavar="DIR", required=required, help=help)


def engine_option() -> Decorator:
    """``--engine duckdb|spark``: what computes the figures."""
    return click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb", show_default=True,
                        help="Engine for the figures; spark reads a --lake with PySpark.")


def spark_master_option() -> Decorator:
    """``--spark-master URL``: the Spark master for ``--engine spark``."""
    return click.option("--spark-master", metavar="URL",
                        help="Spark master for --engine spark [default: spark-submit's, else local[*]].")


def deprecated_alias(old: str, new: str, dest: str, *, value: Any = None, **attrs: Any) -> Decorator:
    """A hidden old spelling `old` of `new`, kept one release: it fills the parameter `dest`.

    Given, it prints a note on stderr; `value` is what a flag alias stands for (``--json`` ->
    ``"json"``).  A repeatable alias adds to `dest`; otherwise naming both spellings with
    different values is a usage error.
    """
    key = "deprecated_" + old.lstrip("-").replace("-", "_")

    def decorate(command: Callable[..., Any]) -> Any:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            given = kwargs.pop(key)
            if given is None or given is False or given == ():
                return command(*args, **kwargs)
            echo(f"warning: {old} is deprecated and goes in the next release; use {new}", err=True)
            chosen = value if value is not None else given
            if attrs.get("multiple"):
                kwargs[dest] = (*kwargs[dest], *chosen)
            else:
                source = click.get_current_context().get_parameter_source(dest)
                if source is ParameterSource.COMMANDLINE and kwargs[dest] != chosen:
                    raise click.UsageError(f"{new.split()[0]} and the deprecated {old} disagree")
                kwargs[dest] = chosen
            return command(*args, **kwargs)

        return click.option(old, key, hidden=True, **attrs)(run)

    return decorate


# Old words for a --format value, kept one release: plain output is `text` on every
# command, where `report` and `replay` called it `table`.
FORMAT_ALIASES = {"table": "text"}


class FormatChoice(click.Choice):
    """The --format words; an old word (FORMAT_ALIASES) is taken too, with a note, and not shown."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        new = FORMAT_ALIASES.get(value) if isinstance(value, str) else None
        if new is not None and new in self.choices:
            echo(f"warning: --format {value} is deprecated and goes in the next release; use --format {new}",
                       err=True)
            return new
        return super().convert(value, param, ctx)


def format_option(choices: Sequence[str], help: str = "Output form; json is a stable contract.") -> Decorator:
    """``--format``: how a command prints its data (the first choice is the default).

    The old ``--json`` flag stays one release as a deprecated alias of ``--format json``,
    and ``--format table`` of ``--format text``.
    """
    def decorate(command: Callable[..., Any]) -> Any:
        command = deprecated_alias("--json", "--format json", "fmt", value="json", is_flag=True)(command)
        return click.option("--format", "fmt", type=FormatChoice(list(choices)), default=choices[0],
                            show_default=True, help=help)(command)

    return decorate


def host_option(help: str = "Address to bind (one interface).") -> Decorator:
    """``--host ADDRESS``: where the dashboard listens, 127.0.0.1 unless asked."""
    return click.option("--host", default="127.0.0.1", show_default=True, metavar="ADDRESS", help=help)


def port_option(help: str = "Port to listen on.") -> Decorator:
    """``--port PORT``: the dashboard's port."""
    return click.option("--port", type=click.IntRange(1, 65535), default=8501, show_default=True,
                        metavar="PORT", help=help)


def budgets_option(help: str = "Budgets file (YAML: amounts of money per week or month, docs/report.md).") -> Decorator:
    """``--budgets FILE``: the budgets file, read by lanelog.queries.budget_file."""
    return click.option("--budgets", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE", help=help)


def dashboard_url_option(help: str) -> Decorator:
    """``--dashboard-url URL`` (or $LANELOG_DASHBOARD_URL): the dashboard's address, for links in what is posted."""
    return click.option("--dashboard-url", metavar="URL", envvar="LANELOG_DASHBOARD_URL",
                        help=help + "  Or $LANELOG_DASHBOARD_URL.")


class Day(click.DateTime):
    """A day given as YYYY-MM-DD, as a date: one lanelog takes (lanelog.queries' FIRST_DAY to LAST_DAY), else a
    usage error naming the option, before anything is read."""

    def __init__(self) -> None:
        super().__init__(["%Y-%m-%d"])

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, date) and not isinstance(value, datetime):
            return value
        day = super().convert(value, param, ctx).date()
        from lanelog.queries import day_outside  # (its figures module alone: no database is loaded)

        why = day_outside(day)
        if why is not None:
            self.fail(why, param, ctx)
        return day


def today_option(help: str = "The day taken as today (YYYY-MM-DD, UTC) [default: today]: budgets judge "
                             "the period that holds it.") -> Decorator:
    """``--today DATE``: the job clock's day, as a date (None: today in UTC)."""
    return click.option("--today", type=Day(), metavar="DATE", help=help)


def key_values(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> dict[str, str]:
    """Repeated KEY=VALUE options as a dict (a later KEY wins)."""
    settings: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{item!r}: give KEY=VALUE, e.g. spark.executor.memory=4g")
        settings[key.strip()] = value
    return settings


def spark_conf_option(**attrs: Any) -> Decorator:
    """``--spark-conf KEY=VALUE`` (repeatable): Spark settings for ``--engine spark``, as a dict."""
    attrs.setdefault("callback", key_values)
    return click.option("--spark-conf", "spark_conf", multiple=True, metavar="KEY=VALUE",
                        help="A Spark setting for --engine spark (repeatable), e.g. spark.executor.memory=4g; "
                             "applied after lanelog's and spark-defaults.conf's.  lanelog's own: "
                             "spark.lanelog.executorWait (seconds for a first executor, 60) and "
                             "spark.lanelog.stallTimeout (seconds a job may go without a task starting or "
                             "finishing before it is cancelled, 600).", **attrs)


def endpoint_url_option(**attrs: Any) -> Decorator:
    """``--endpoint-url URL``: the S3-compatible store serving s3:// URLs (credentials stay in the environment)."""
    return click.option("--endpoint-url", metavar="URL",
                        help="S3-compatible endpoint for s3:// URLs [default: $AWS_ENDPOINT_URL, else AWS]; "
                             "each request to a store has at most $LANELOG_STORE_TIMEOUT seconds (60) for all of it.",
                        **attrs)


def verbose_option() -> Decorator:
    """``--verbose``: Spark's progress bar and log on stderr."""
    return click.option("--verbose", is_flag=True, help="Show Spark's progress bar and log on stderr (--engine spark).")


def checked(fact: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A callback that checks an option's value (each value of a repeated one) as the router checks that
    fact where it reads it: ``repository``, ``url``, ``login``, ``text``, ``sha`` or ``time``.  A value
    that fails is a usage error naming the option; the router is imported only when the option is given."""
    def callback(_ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is None or value == ():
            return value
        from lanelog import router

        check = {"repository": router.check_repository, "url": router.check_url, "login": router.check_login,
                 "text": router.check_text, "sha": router.check_sha, "time": router.check_time}[fact]
        where = f"--{(param.name or '').replace('_', '-')}"
        try:
            return tuple(check(item, where) for item in value) if isinstance(value, tuple) else check(value, where)
        except FactInvalid as exc:
            raise click.BadParameter(str(exc).removeprefix(f"{where}: ")) from None

    return callback


def change_options(command: Callable[..., Any]) -> Any:
    """``--pull-request N``, ``--repository OWNER/NAME``, ``--pull-request-url URL`` and ``--ci-run-url URL``:
    which pull request and which CI run a line belongs to, where GitHub Actions' event does not say it."""
    for option in reversed([
        click.option("--pull-request", type=click.IntRange(1, 2**31 - 1), metavar="N",
                     help="The pull request's number [default: under GitHub Actions, the event's]."),
        click.option("--repository", metavar="OWNER/NAME", callback=checked("repository"),
                     help="The pull request's repository [default: $GITHUB_REPOSITORY under GitHub Actions]."),
        click.option("--pull-request-url", metavar="URL", callback=checked("url"),
                     help="The pull request's web address (http or https)."),
        click.option("--ci-run-url", metavar="URL", callback=checked("url"),
                     help="The CI run's web address [default: under GitHub Actions, this run's, with its id and "
                          "attempt]."),
    ]):
        command = option(command)
    return command
