"""The `lanelog` command line: a thin click group over the library packages.

Each subcommand lives in its own module under ``lanelog/commands`` and is
imported only when it runs, so ``lanelog route`` in CI never pays for
importing DuckDB or Streamlit.  This is the one place where the library's
plain ``LanelogError`` becomes click's "Error: ..." output and exit code.
"""

from __future__ import annotations

import importlib

import click

from lanelog import __version__
from lanelog.errors import LanelogError

COMMANDS: dict[str, str] = {
    "route": "lanelog.commands.route:route",
    "ingest": "lanelog.commands.ingest:ingest",
    "report": "lanelog.commands.report:report",
    "check": "lanelog.commands.report:check",
    "dashboard": "lanelog.commands.dashboard:dashboard",
    "demo": "lanelog.commands.demo:demo",
    "export": "lanelog.commands.export:export",
    "replay": "lanelog.commands.replay:replay",
}

SUMMARIES: dict[str, str] = {
    "route": "Bound an agent patch on a git checkout and append one lane-log line.",
    "ingest": "Load lane-log JSONL files into the DuckDB database, losing nothing.",
    "report": "Print the weekly figures: attempts, probe rejects, armed calls, credit bugs, units.",
    "check": "Alert on credit bugs (exit 1) and audit the decision table's other rules.",
    "dashboard": "Serve the Streamlit dashboard on the DuckDB database (127.0.0.1 by default).",
    "demo": "Make demo data with the real router on a throwaway repository, then ingest it.",
    "export": "Write the database as a Hive-partitioned Parquet lake that DuckDB or Spark reads.",
    "replay": "Route history again under a candidate policy and show which decisions flip.",
}


class CommandError(click.ClickException):
    """A LanelogError as click prints it: "Error: <message>" on stderr, with its exit code."""

    def __init__(self, error: LanelogError) -> None:
        super().__init__(str(error))
        self.exit_code = error.exit_code


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except LanelogError as error:
            raise CommandError(error) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl(sorted(SUMMARIES.items()))


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lanelog")
def cli() -> None:
    """lanelog: bound agent patches before a model call, then review the lane log.

    \b
    Example:
        lanelog route --base origin/main --head HEAD
        lanelog ingest lane-log.jsonl && lanelog report
    """


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="lanelog")
