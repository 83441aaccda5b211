"""The engine seam: what computes the named figures, one class per engine, and what each can do.

``Engine`` is the one protocol the figures are asked through: ``rows`` runs a named
block (lanelog.queries.named) with its values bound, ``prefetch`` lets an engine that
answers several blocks in one pass (Spark: one job) ask them together, ``jobs_run`` says
how many jobs that took where the engine counts them, and ``capabilities`` declares what
else it does, so a caller asks ``engine.can(BUDGETS)`` instead of which engine it holds.
DuckDB (a database file, LOG files ingested in memory, a lake's views) is
``DuckDBEngine``; the lake on Spark is lanelog.queries.spark_lake's ``SparkLake``.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

from lanelog.errors import QueryError
from lanelog.queries.filters import Filters
from lanelog.queries.named import SQL, scoped
from lanelog.store import Query

if TYPE_CHECKING:
    from typing import TypeAlias

    import duckdb
    import pandas as pd

    from lanelog.queries.source import Source

# What an engine may do besides the figures every engine gives (report, check, money, shadow).
BUDGETS = "budgets"    # judge budgets (--budgets): the spend of each day, by repository and property
SPIKES = "spikes"      # judge spend spikes, from the same daily spend
FRAMES = "frames"      # rows as pandas DataFrames, for the dashboard's pages
JOBS = "jobs"          # count the jobs a report ran (`report --verbose`)
DATABASE = "database"  # read the database file, not only a lake
SESSION = "session"    # start a session of its own, set by --spark-master and --spark-conf
# Engine name -> "module:class": imported when an engine is asked for by name (the CLI's --engine).
ENGINES = {"duckdb": "lanelog.queries.engine:DuckDBEngine", "spark": "lanelog.queries.spark_lake:SparkLake"}


class Engine(ABC):
    """What computes the named figures, and what else it can do (its ``capabilities``)."""

    name: ClassVar[str]
    title: ClassVar[str]  # the engine's name in a sentence
    capabilities: ClassVar[frozenset[str]]
    extra: ClassVar[str | None] = None  # the pyproject extra it needs beyond the command's own

    @classmethod
    @abstractmethod
    def opened(cls, source: Source, *, wait: float, write: bool = False) -> AbstractContextManager[Engine]:
        """The engine on `source` for the block, closed after it (`wait`: for another process's lock)."""

    @abstractmethod
    def rows(self, query: Query, values: dict[str, Any]) -> list[dict[str, Any]]:
        """The query's rows as dicts of Python values, with `values` bound (all its parameters)."""

    def prefetch(self, asks: Mapping[Query, dict[str, Any]]) -> None:
        """Ask these queries now, together, where the engine gains by it; rows() then answers each one."""
        del asks  # an engine that answers each query alone (DuckDB: each in milliseconds) asks nothing ahead

    def jobs_run(self) -> int | None:
        """How many jobs the queries have started so far, where the engine counts them (JOBS)."""
        return None

    @classmethod
    def can(cls, capability: str) -> bool:
        """Whether this engine does `capability` (BUDGETS, SPIKES, FRAMES, JOBS)."""
        return capability in cls.capabilities

    @classmethod
    def require(cls, capability: str, what: str) -> None:
        """Refuse `what` on an engine that lacks `capability`, naming the engine that has it."""
        if not cls.can(capability):
            able = [engine_class(name).title for name in engines_that(capability)]
            raise QueryError(f"{what} is judged with {' or '.join(able)}: leave out --engine {cls.name} "
                             "(a --lake is read with DuckDB by default)")


class DuckDBEngine(Engine):
    """The figures on a DuckDB connection: a database file, LOG files in memory, or a lake's views."""

    name = "duckdb"
    title = "DuckDB"
    capabilities = frozenset({BUDGETS, SPIKES, FRAMES, DATABASE})

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self._installed: set[str] = set()  # the macros this engine has put on its connection

    @classmethod
    @contextmanager
    def opened(cls, source: Source, *, wait: float, write: bool = False) -> Iterator[DuckDBEngine]:
        """DuckDB on the database file or the lake's views, read-only unless `write` (the database only)."""
        con = source.connect(wait=wait, write=write)
        try:
            yield cls(con)
        finally:
            con.close()

    def _macros(self, query: Query) -> None:
        """The temporary macros a query reads: scope.sql's in_scope always, hook_scope, undated_why, is_person and
        agent_pull_requests where used; each put on the connection once (a report asks ten queries)."""
        wanted = [SQL.week_scope, SQL.week_of, SQL.scope]
        if "hook_scope(" in query.sql:
            wanted.append(SQL.hook_scope)
        if "undated_why(" in query.sql:  # Data health's words for an undated attempt
            wanted.append(SQL.undated_why)
        if "is_person(" in query.sql or "agent_pull_requests(" in query.sql:  # the judgement of a merge
            wanted.append(SQL.person)
        if "agent_pull_requests(" in query.sql:  # outcomes.sql's pull requests, every figure of them reads
            wanted.append(SQL.agent_pull_requests)
        for macro in wanted:
            if macro.name not in self._installed:
                macro.run(self.con)
                self._installed.add(macro.name)

    def rows(self, query: Query, values: dict[str, Any]) -> list[dict[str, Any]]:
        self._macros(query)
        return query.records(self.con, **values)

    def frame(self, query: Query, values: dict[str, Any]) -> pd.DataFrame:
        """The query's rows as a pandas DataFrame (FRAMES)."""
        self._macros(query)
        return query.frame(self.con, **values)


def engine_class(name: str) -> type[Engine]:
    """The engine class named `name` (``--engine``), imported on first use."""
    target = ENGINES.get(name)
    if target is None:
        raise QueryError(f"no engine named {name!r}; known: {', '.join(ENGINES)}")
    module, attribute = target.split(":")
    found: type[Engine] = getattr(importlib.import_module(module), attribute)
    return found


if TYPE_CHECKING:
    # What the figures are read from: an engine, or a DuckDB connection standing for its DuckDBEngine.
    Readable: TypeAlias = Engine | duckdb.DuckDBPyConnection


def engines_that(capability: str) -> list[str]:
    """The names of the engines that do `capability`."""
    return [name for name in ENGINES if engine_class(name).can(capability)]


def engine_of(source: Readable) -> Engine:
    """An engine as it is, or a DuckDB connection (the dashboard's, a test's) as its engine."""
    return source if isinstance(source, Engine) else DuckDBEngine(source)


def duckdb_of(source: Readable, what: str) -> DuckDBEngine:
    """The DuckDB engine of `source`, for what only DuckDB does (FRAMES: the pages' tables)."""
    engine = engine_of(source)
    if not isinstance(engine, DuckDBEngine):
        raise QueryError(f"{what} needs DuckDB, not {engine.name}")
    return engine


def records(source: Readable, query: Query, filters: Filters | None = None,
            **values: Any) -> list[dict[str, Any]]:
    """The query's rows as dicts, its scope bound from `filters`, on any engine."""
    return engine_of(source).rows(query, scoped(query, filters, values))


def together(source: Readable, filters: Filters | None, queries: Iterable[Query], **values: Any) -> None:
    """Ask these queries at once on an engine that answers several in one pass (Spark: one job); each binds the
    `values` it takes."""
    engine_of(source).prefetch({query: scoped(query, filters, {key: value for key, value in values.items()
                                                                if key in query.params}) for query in queries})


def frame(source: Readable, query: Query, filters: Filters | None = None,
          **values: Any) -> pd.DataFrame:
    """The query's rows as a DataFrame (DuckDB only: the pages read a database or a lake with it)."""
    return duckdb_of(source, f"the table {query.name}").frame(query, scoped(query, filters, values))
