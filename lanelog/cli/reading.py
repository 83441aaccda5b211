"""What `report` and `check` read, as one object: ``ReadOptions``, built by one decorator.

``@read_options`` declares the options both commands share (LOG files, --db, --lake,
--engine and Spark's settings, --since/--until/--repo-name, --wait) and hands the command
one ``source`` parameter holding them, checked as a whole.  ``ReadOptions.opened`` is
the one way a command reads: LOG files ingested into a throwaway in-memory database, else
the database or lake by the rule every reader follows (lanelog.queries.choose_source),
as the engine that computes the figures.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lanelog.cli.extras import require
from lanelog.cli.options import (
    db_option,
    deprecated_alias,
    endpoint_url_option,
    engine_option,
    lake_option,
    spark_conf_option,
    spark_master_option,
    verbose_option,
    wait_option,
)
from lanelog.errors import IngestError

if TYPE_CHECKING:
    from lanelog.queries import Engine, Filters, Source

# The command parameters @read_options takes in, in its options' order.
PARAMETERS = ("logs", "db", "since", "until", "repo", "wait", "lake", "engine", "spark_master", "spark_conf",
              "endpoint_url", "verbose")


@dataclass(frozen=True)
class ReadOptions:
    """Where a command reads and which of it counts: the options of @read_options, checked together."""

    logs: tuple[Path, ...]
    db: Path | None
    lake: str | None
    engine: str
    spark_master: str | None
    spark_conf: dict[str, str]
    endpoint_url: str | None
    verbose: bool
    wait: float
    filters: Filters

    def __post_init__(self) -> None:
        """Refuse options that name two places to read, or an engine's settings it does not take."""
        from lanelog.queries import DATABASE, SESSION, engine_class, engines_that

        if self.db is not None and self.logs:
            raise click.UsageError("give either --db FILE or LOG files, not both")
        if self.lake is not None and (self.db is not None or self.logs):
            raise click.UsageError("give one of --db FILE, --lake DIR or LOG files")
        engine = engine_class(self.engine)
        if not engine.can(DATABASE) and self.lake is None:
            raise click.UsageError(f"--engine {self.engine} reads a lake: give --lake DIR (make one with "
                                   "`lanelog export`)")
        for flag, given in (("--spark-master", self.spark_master is not None), ("--spark-conf", self.spark_conf)):
            if given and not engine.can(SESSION):
                raise click.UsageError(f"{flag} needs --engine {' or '.join(engines_that(SESSION))}")

    @property
    def keeps_records(self) -> bool:
        """Whether the source can keep what was sent: the database, not LOG files or a lake."""
        return not self.logs and self.lake is None

    def source(self) -> Source:
        """The database or lake these options name (lanelog.queries.choose_source's rule)."""
        from lanelog.queries import SparkSettings, choose_source

        return choose_source(self.db, self.lake, engine=self.engine, endpoint_url=self.endpoint_url,
                             spark=SparkSettings(self.spark_master, self.spark_conf, self.verbose))

    @contextmanager
    def opened(self, *, write: bool = False) -> Iterator[Engine]:
        """The figures' engine for the block: LOG files in memory, else the source, read-only unless `write`."""
        if self.logs:
            with _in_memory(self.logs) as engine:
                yield engine
            return
        from lanelog.queries import engine_class

        extra = engine_class(self.engine).extra
        if extra is not None:
            require(extra, f"--engine {self.engine}")
        # A query the database refuses is a StoreError naming its .sql file and block (lanelog.store).
        with self.source().reading(wait=self.wait, write=write) as engine:
            yield engine


@contextmanager
def _in_memory(logs: tuple[Path, ...]) -> Iterator[Engine]:
    from lanelog import ingest, store
    from lanelog.queries import DuckDBEngine

    con = store.open_memory()
    try:
        summary = ingest.ingest_paths(con, list(logs))
        if summary.errors:
            raise IngestError("cannot read lane log: " + "; ".join(summary.errors))
        yield DuckDBEngine(con)
    finally:
        con.close()


def _options() -> list[Callable[[Any], Any]]:
    return [
        click.argument("logs", nargs=-1, metavar="[LOG]...", type=click.Path(path_type=Path)),
        db_option(),
        click.option("--since", metavar="DATE", help="First day (YYYY-MM-DD); its whole week counts."),
        click.option("--until", metavar="DATE", help="Last day (YYYY-MM-DD); its whole week counts."),
        click.option("--repo-name", "repo", metavar="NAME",
                     help="Only attempts of this repository (the line's `repo`, as `route --repo-name` wrote it)."),
        # `route --repo` is a checkout folder; here the filter names a repository, as `route --repo-name` does.
        deprecated_alias("--repo", "--repo-name NAME", "repo", metavar="NAME"),
        wait_option(),
        lake_option(), engine_option(), spark_master_option(), spark_conf_option(), endpoint_url_option(),
        verbose_option(),
    ]


def read_options(command: Callable[..., Any]) -> Any:
    """The options `report` and `check` share, handed to the command as one ``source: ReadOptions``."""
    from lanelog.queries import Filters

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        given = {name: kwargs.pop(name) for name in PARAMETERS}
        filters = Filters.parse(given.pop("since"), given.pop("until"), given.pop("repo"))
        return command(*args, source=ReadOptions(**given, filters=filters), **kwargs)

    for option in reversed(_options()):
        run = option(run)
    return run
