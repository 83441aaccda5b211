"""The `lanelog` command line: a thin click group over the library packages.

Each subcommand lives in its own module under ``lanelog/cli/commands`` and is
imported only when it runs, so ``lanelog route`` in CI never pays for
importing DuckDB or Streamlit.  This is the one place where the library's
plain ``LanelogError`` becomes click's "Error: ..." output and exit code.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any, NoReturn

import click

from lanelog import __version__
from lanelog.cli import extras
from lanelog.cli.output import echo
from lanelog.errors import LanelogError
from lanelog.framing import framed

COMMANDS: dict[str, str] = {
    "route": "lanelog.cli.commands.route:route",
    "outcome": "lanelog.cli.commands.outcome:outcome",
    "hook": "lanelog.cli.commands.hook:hook",
    "ingest": "lanelog.cli.commands.ingest:ingest",
    "report": "lanelog.cli.commands.report:report",
    "check": "lanelog.cli.commands.check:check",
    "dashboard": "lanelog.cli.commands.dashboard:dashboard",
    "demo": "lanelog.cli.commands.demo:demo",
    "export": "lanelog.cli.commands.export:export",
    "replay": "lanelog.cli.commands.replay:replay",
}
# What a command needs besides the core install (pyproject.toml's extras); an option that
# needs more (`replay --db`, `--engine spark`, `demo --serve`) is checked by its command
# (extras.require), and any other missing optional import is caught in LazyGroup.invoke.
EXTRA_OF_COMMAND: dict[str, str] = {
    "ingest": "db", "report": "db", "check": "db", "export": "db", "demo": "db", "dashboard": "dashboard",
}

# `lanelog --help` lists these without importing the commands (that would load DuckDB);
# tests/test_cli_grammar.py checks each equals its command's first help line.
SUMMARIES: dict[str, str] = {
    "route": "Bound an agent patch on a git checkout and append one lane-log line.",
    "outcome": "Record what became of a pull request when it closed: append one outcome line.",
    "hook": "Judge an agent's commit, push or pull request in its own hook, before it is published.",
    "ingest": "Load lane-log JSONL files into the DuckDB database, losing nothing.",
    "report": "Print the weekly figures: attempts, probe rejects, armed calls, credit bugs, units.",
    "check": "Alert on credit bugs (exit 1) and audit the decision table's other rules.",
    "dashboard": "Serve the dashboard on the lane-log database, locally and headless.",
    "demo": "Make demo data honestly: the real `lanelog route` on three throwaway repositories.",
    "export": "Write the database as a Hive-partitioned Parquet lake, week by week.",
    "replay": "Route history again under a candidate policy, writing no lane log.",
}


def fail(ctx: click.Context, error: LanelogError) -> NoReturn:
    """A LanelogError as click prints an error: "Error: <message>" on stderr, then its exit code."""
    echo(f"Error: {error.headline}", err=True)
    for detail in error.details:
        echo(f"  {detail}", err=True)
    ctx.exit(error.exit_code)


def _require_when_run(command: click.Command, extra: str, what: str) -> None:
    """Check for the command's extra when it runs, after its options are read, so that
    `--help` works on the core install; once per command, however often it is looked up."""
    callback = command.callback
    if callback is None or getattr(callback, "lanelog_extra", None) == extra:
        return

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        extras.require(extra, what)
        return callback(*args, **kwargs)

    run.lanelog_extra = extra  # type: ignore[attr-defined]
    command.callback = run


def _framed(error: click.ClickException) -> click.ClickException:
    """click's own error (a bad option value, a missing file), its message framed: it quotes what was typed."""
    # click 8.5 types `message` Final; the error is about to be shown once, by click, and framing
    # it in place keeps each subclass's own format (BadParameter's "Invalid value for ...").
    object.__setattr__(error, "message", framed(error.message))
    return error


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.ClickException as error:
            raise _framed(error) from None

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.ClickException as error:
            raise _framed(error) from None
        except LanelogError as error:
            fail(ctx, error)
        except ImportError as error:
            # The one place a missing optional package becomes the pip line that installs it.
            missing = extras.from_import_error(error, f"lanelog {ctx.invoked_subcommand or ''}".strip())
            if missing is None:
                raise
            fail(ctx, missing)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attr)
        extra = EXTRA_OF_COMMAND.get(cmd_name)
        if extra is not None:
            _require_when_run(command, extra, f"lanelog {cmd_name}")
        return command

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
