"""The one loader and runner for lanelog's ``.sql`` files: named, documented, checked statements.

Used by ``lanelog.queries`` (``queries/*.sql``), ``lanelog.ingest``
(``load.sql``, ``identity.sql``) and the store itself (``store/*.sql``).

A file holds one or more blocks, each shaped like this::

    -- name: weekly
    -- One row per week: attempts, probe rejects, armed calls ...
    -- params: since, until, repo
    SELECT ...

The comment lines under the name are the query's docstring; ``-- params:``
declares the ``$name`` parameters the SQL binds.  At load time the declared
parameters must be exactly the ``$name`` placeholders in the SQL (string
literals and comments aside), so a typo fails on import, not on a Monday
morning.  At call time the values given must be exactly the declared ones.
Values are always bound by DuckDB; nothing is ever formatted into the SQL.

A Query runs itself (``run``, ``rows``, ``records``, ``arrow``, ``frame``,
``run_many``): every value goes through ``bind``, and a database error comes
out as a ``StoreError`` naming the file and block (``Query.origin``).  This
module imports no database library: the connection passed in brings its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanelog.errors import QueryError, StoreError

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    import pyarrow as pa

NAME_LINE = re.compile(r"^--\s*name:\s*(?P<name>\S*)\s*$")
PARAMS_LINE = re.compile(r"^--\s*params:(?P<params>.*)$")
IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")
PLACEHOLDER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# What may hide a "$name" or "?" that is not a placeholder: literals, quoted names, comments.
NOT_CODE = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*")


@dataclass(frozen=True)
class Query:
    """One named SQL statement with its docstring and declared parameters."""

    name: str
    doc: str
    params: tuple[str, ...]
    sql: str
    origin: str  # "file.sql:line", for error messages

    def bind(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The values to bind, refused unless they are exactly the declared parameters."""
        missing = sorted(set(self.params) - set(values))
        unknown = sorted(set(values) - set(self.params))
        if missing or unknown:
            raise QueryError(
                f"query {self.name!r} ({self.origin}) takes {list(self.params)}: "
                f"missing {missing}, unknown {unknown}"
            )
        return {name: values[name] for name in self.params}

    # The runner.  A block without parameters runs as written (it may hold several
    # statements, as schema.sql does); one with parameters is prepared and bound.

    def execute(self, con: duckdb.DuckDBPyConnection, **values: Any) -> duckdb.DuckDBPyConnection:
        """Run the statement with its values bound; its result is pending on the connection."""
        bound = self.bind(values)
        with self.translated():
            return con.execute(self.sql, bound) if self.params else con.execute(self.sql)

    def run(self, con: duckdb.DuckDBPyConnection, **values: Any) -> None:
        """Run a statement whose result is not wanted."""
        self.execute(con, **values)

    def rows(self, con: duckdb.DuckDBPyConnection, **values: Any) -> list[tuple[Any, ...]]:
        """The statement's rows as tuples."""
        with self.translated():
            return self.execute(con, **values).fetchall()

    def records(self, con: duckdb.DuckDBPyConnection, **values: Any) -> list[dict[str, Any]]:
        """The statement's rows as dicts by column name (none for a statement without result)."""
        with self.translated():
            result = self.execute(con, **values)
            if result.description is None:
                return []
            names = [column[0] for column in result.description]
            return [dict(zip(names, row)) for row in result.fetchall()]

    def arrow(self, con: duckdb.DuckDBPyConnection, batch_rows: int = 1_000_000,
              **values: Any) -> pa.RecordBatchReader:
        """The statement's rows as an Arrow stream of batches of up to `batch_rows` rows."""
        bound = self.bind(values)
        with self.translated():
            return con.sql(self.sql, params=bound or None).to_arrow_reader(batch_rows)

    def frame(self, con: duckdb.DuckDBPyConnection, **values: Any) -> pd.DataFrame:
        """The statement's rows as a pandas DataFrame (DuckDB imports pandas only here)."""
        with self.translated():
            return self.execute(con, **values).df()

    def run_many(self, con: duckdb.DuckDBPyConnection, rows: Iterable[Mapping[str, Any]]) -> None:
        """Run the statement once per row of values; no rows, no work."""
        bound = [self.bind(row) for row in rows]
        if not bound:
            return
        with self.translated():
            con.executemany(self.sql, bound)

    @contextmanager
    def translated(self) -> Iterator[None]:
        """Turn a database error raised inside the block into a StoreError naming this block."""
        try:
            yield
        except StoreError:
            raise
        except Exception as exc:
            if not _is_database_error(exc):
                raise
            raise StoreError(f"{self.origin} ({self.name}): {exc}", origin=self.origin,
                             query=self.name) from exc


def _is_database_error(exc: BaseException) -> bool:
    """Whether exc is DuckDB's; duckdb is loaded already when a connection raised it."""
    import sys

    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(exc, duckdb.Error)


def _placeholders(sql: str, origin: str) -> set[str]:
    code = NOT_CODE.sub(" ", sql)
    if "?" in code:
        raise QueryError(f"{origin}: use named $parameters, not '?'")
    return set(PLACEHOLDER.findall(code))


def _block(name: str, lines: list[str], origin: str) -> Query:
    if not IDENTIFIER.match(name):
        raise QueryError(f"{origin}: query name {name!r} is not a lower-case identifier")
    doc: list[str] = []
    params: tuple[str, ...] | None = None
    index = 0
    while index < len(lines) and lines[index].lstrip().startswith("--"):
        declared = PARAMS_LINE.match(lines[index].strip())
        if declared:
            params = tuple(p.strip() for p in declared["params"].split(",") if p.strip())
        else:
            doc.append(lines[index].strip()[2:].strip())
        index += 1
    sql = "\n".join(lines[index:]).strip()
    if params is None:
        raise QueryError(f"{origin}: query {name!r} has no '-- params:' line")
    if not " ".join(doc).strip():
        raise QueryError(f"{origin}: query {name!r} has no docstring under its name")
    if not sql:
        raise QueryError(f"{origin}: query {name!r} has no SQL")
    used = _placeholders(sql, origin)
    if used != set(params) or len(set(params)) != len(params):
        raise QueryError(
            f"{origin}: query {name!r} declares {list(params)} but its SQL uses {sorted(used)}"
        )
    return Query(name, "\n".join(doc).strip(), params, sql, origin)


def parse(text: str, filename: str) -> list[Query]:
    """The queries of one ``.sql`` file; text before the first name is a file comment."""
    blocks: list[tuple[str, int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        header = NAME_LINE.match(line.strip())
        if header is not None:
            blocks.append((header["name"], number, []))
        elif blocks:
            blocks[-1][2].append(line)
        elif line.strip() and not line.lstrip().startswith("--"):
            raise QueryError(f"{filename}:{number}: SQL before the first '-- name:' line")
    return [_block(name, body, f"{filename}:{number}") for name, number, body in blocks]


def load_texts(files: Iterable[tuple[str, str]]) -> dict[str, Query]:
    """Every query of the given (file name, text) pairs by name; a name defined twice is an error."""
    queries: dict[str, Query] = {}
    for filename, text in files:
        for query in parse(text, filename):
            if query.name in queries:
                raise QueryError(
                    f"{query.origin}: query {query.name!r} is already defined at "
                    f"{queries[query.name].origin}"
                )
            queries[query.name] = query
    return queries


def load_folder(folder: Path) -> dict[str, Query]:
    """Every query in ``folder/*.sql`` by name."""
    return load_texts((path.name, path.read_text(encoding="utf-8"))
                      for path in sorted(folder.glob("*.sql")))


def load_resources(package: str, *names: str) -> dict[str, Query]:
    """Every query in the named ``.sql`` files of an installed package, by name."""
    files = resources.files(package)
    return load_texts((name, files.joinpath(name).read_text(encoding="utf-8")) for name in names)
