"""One error hierarchy for lanelog: plain exceptions, at the bottom of the layers.

This module imports nothing of lanelog, of click or of streamlit, so every
layer can raise its own subclass without pulling in the layers above it.  The
CLI turns a ``LanelogError`` into click's "Error: <message>" on stderr with
``exit_code`` (one place: ``lanelog.cli``); the dashboard shows ``str(error)``.
Exit 2 is the error code everywhere: exit 1 means "probe rejected" for
``route`` and "credit bug found" for ``check``.
"""

from collections.abc import Sequence
from typing import Self


class LanelogError(Exception):
    """A failure the user can act on; the message names the file, line or key."""

    exit_code = 2
    # Items listed under the headline, one a line (the files that could not be read): the
    # CLI prints each as a line of its own, so no item's text can start another.
    details: tuple[str, ...] = ()

    @classmethod
    def listing(cls, headline: str, details: Sequence[str]) -> Self:
        """The error ``headline`` with ``details`` listed under it."""
        error = cls(headline)
        error.details = tuple(details)
        return error

    @property
    def headline(self) -> str:
        """The message without its listed details."""
        return super().__str__()

    @property
    def message(self) -> str:
        """The text shown to the user."""
        return str(self)

    def __str__(self) -> str:
        return self.headline + "".join(f"\n  {detail}" for detail in self.details)


class RouterError(LanelogError):
    """A checkout, policy, flaky list or runner command the router cannot use."""


class NotARepo(RouterError):
    """The folder is not a git checkout."""


class GitError(RouterError):
    """git failed, or answered in a shape the router does not read, where it did not expect it to."""


class RefInvalid(RouterError):
    """A ref the router refuses before git sees it: empty, option-like, or not a ref's shape."""


class BaseFileInvalid(RouterError):
    """A policy or flaky path that cannot be read from the base commit (a folder, a newline)."""


class PolicyInvalid(RouterError):
    """A policy file (lanes.yaml) that cannot be used; the message names file, line and key."""


class FlakyInvalid(RouterError):
    """A flaky list (flaky.yaml) that cannot be used; the message names file, line and key."""


class YamlFileError(RouterError):
    """A policy or flaky file that is not YAML the router reads (too large, aliases, too deep)."""


class RepoNameInvalid(RouterError):
    """The line's ``repo`` would not be UTF-8 text (a folder name or --repo-name)."""


class RunnerCommandError(RouterError):
    """A ``--run`` command that cannot be split into an argv."""


class RunnerUnavailable(RouterError):
    """A ``--run`` command that cannot be started (not found, not executable): CI's set-up, not the patch."""


class PlanError(RouterError):
    """The decision table was given inputs it cannot judge (an unknown reason, no facts and no reason)."""


class ReplayError(RouterError):
    """A replay that cannot start: an unusable policy file, a bad range, a lane log it cannot read."""


class RecordedLineInvalid(RouterError):
    """A lane-log line whose recorded decision cannot be replayed; the message names the field."""


class InputFileInvalid(RouterError):
    """A JSON input (an event payload, a reviews or label-events file) that cannot be read: not a regular
    file, too large, not UTF-8 or not JSON; the message names the file."""


class FactInvalid(RouterError):
    """A pull request's fact (a number, a login, a URL, a commit, a time) that is not well formed, or an
    event that is not the one asked for; the message names the file or option and the key."""


class ForgeUnknown(RouterError):
    """A forge no adapter of router/forges/ is named; the message names those there are."""


class HookInputInvalid(RouterError):
    """An agent's hook input the hook cannot read (not JSON, not the agent's shape, a shell command it
    cannot split); the hook then blocks the call, saying why."""


class HookInstallError(RouterError):
    """An agent's hook configuration that cannot be merged (not JSON, not the agent's shape, a file in
    the way); the message names the file."""


class IngestError(LanelogError):
    """A lane-log file or object that ingest cannot read, or whose lines it cannot store."""


class StoreError(LanelogError):
    """Storage that cannot be used: a database file, a lake, or a statement the database refused.

    A refused statement's message names its .sql file, line and block (``origin``, ``query``).
    """

    def __init__(self, message: str, *, origin: str = "", query: str = "") -> None:
        super().__init__(message)
        self.origin = origin
        self.query = query


class DatabaseLocked(StoreError):
    """Another process held the database for longer than the caller would wait."""


class SchemaMismatch(StoreError):
    """The database or lake was made by another schema version of lanelog, or is no lanelog one."""


class NotADatabase(StoreError):
    """A --db path that is not a lanelog database: the message names what it is and what to run."""


class LakeError(StoreError):
    """A lake that cannot be used (its folder or bucket, its state file, its credentials); the message names it."""


class BudgetInvalid(LanelogError):
    """A budgets file (`--budgets FILE`) that cannot be used; the message names file, line and key."""


class QueryError(LanelogError):
    """A query that cannot run: a bad filter, an unknown query name, a bad .sql file."""


class DashboardError(LanelogError):
    """A dashboard that cannot start or cannot find its database."""


class DemoError(LanelogError):
    """A demo that cannot run, or would overwrite data it did not make."""


class MissingExtra(LanelogError):
    """A command needs an optional part of lanelog that is not installed (`pip install 'lanelog[EXTRA]'`)."""


class AlertError(LanelogError):
    """A webhook that cannot be used or did not take a message (named by its redacted form)."""
