"""One error base class for lanelog; each layer raises its own subclass.

Every lanelog error is a click.ClickException, so the CLI prints
"Error: <message>" on stderr and exits with ``exit_code``.  Exit 2 is the
error code everywhere: exit 1 means "probe rejected" for ``route`` and
"credit bug found" for ``check``.
"""

import click


class LanelogError(click.ClickException):
    """A failure the user can act on; the message names the file, line or key."""

    exit_code = 2


class PolicyError(LanelogError):
    """A policy or flaky list that cannot be used."""


class IngestError(LanelogError):
    """A lane-log file or database that ingest cannot use."""


class DatabaseLocked(IngestError):
    """Another process held the database for longer than the caller would wait."""


class SchemaMismatch(IngestError):
    """The database was made by another schema version of lanelog."""


class QueryError(LanelogError):
    """A query that cannot run: a bad filter, or an unknown query name."""
