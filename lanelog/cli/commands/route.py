"""`lanelog route`: the CLI over router.run_route (parse flags, print, append, exit)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import click

from lanelog.cli.options import Day, change_options, checked, deprecated_alias
from lanelog.cli.output import echo, echo_command
from lanelog.errors import FactInvalid, LanelogError, RefInvalid, RepoNameInvalid, RunnerCommandError
from lanelog.router import (
    DEFAULT_TIMEOUT,
    TOKEN_SOURCES,
    ChangeOptions,
    LaneRunner,
    RouteOptions,
    append_line,
    append_summary,
    attempt_change,
    check_ref,
    check_repo_name,
    dumps,
    error_annotations,
    exit_code,
    is_error,
    job_summary,
    on_actions,
    run_route,
    shadow_decision,
    summary_file,
)


def _ref(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        return check_ref(value)
    except RefInvalid as exc:
        raise click.BadParameter(str(exc)) from None


def _repo_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    try:
        return check_repo_name(value) if value is not None else None
    except RepoNameInvalid as exc:
        raise click.BadParameter(str(exc)) from None


def _required_tests(path: Path | None) -> list[str] | None:
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {path}: {exc}",
                                 param_hint="'--required-tests'") from None
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--repo", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              metavar="DIR",
              help="The git checkout that holds the patch.")
@click.option("--base", default="origin/main", show_default=True, callback=_ref, metavar="REF",
              help="The ref the patch is measured against (BASE...HEAD).")
@click.option("--head", default="HEAD", show_default=True, callback=_ref, metavar="REF",
              help="The patch's commit.")
@click.option("--policy", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="The policy file [default: lanes.yaml at the root of the base commit]. "
                   "A path inside the checkout is read from the base commit; a path outside "
                   "it is read as it is.")
@click.option("--flaky", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="The flaky list [default: flaky.yaml at the root of the base commit]; "
                   "read like --policy. Missing means an empty list.")
@click.option("--required-tests", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="A file with one required test id a line: only these can be quarantined "
                   "[default: every test runs, so every live freeze applies].")
@click.option("--today", type=Day(), default=None, metavar="YYYY-MM-DD",
              help="The job clock's date, YYYY-MM-DD [default: today in UTC]. "
                   "The line's ts takes this date.")
@click.option("--out", "log_path", type=click.Path(path_type=Path, dir_okay=False),
              envvar="LANELOG_LOG", default=Path("lane-log.jsonl"), show_default=True, metavar="FILE",
              help="The lane log to append the line to (env LANELOG_LOG).")
@deprecated_alias("--log", "--out FILE", "log_path", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--repo-name", default=None, metavar="NAME", callback=_repo_name,
              help="The repo field of the line [default: the checkout's folder name].")
@click.option("--run", "run_command", default=None, metavar="CMD",
              help="Run CMD once per selected property when the probe passes, without a "
                   "shell, from the repository root; {property} in CMD becomes the id.")
@click.option("--token-from", type=click.Choice(TOKEN_SOURCES), default="stdout",
              show_default=True,
              help="Where a run's token comes from: the last non-empty stdout line "
                   "(hold|fail), or the exit code (0 hold, 1 fail).")
@click.option("--property-timeout", type=click.FloatRange(min=0, min_open=True),
              default=DEFAULT_TIMEOUT, show_default=True, metavar="SECONDS",
              help="A run that takes longer is stopped and is unresolved.")
@click.option("--require-hold", is_flag=True,
              help="Exit 3 when the probe passes but the lane is not hold (needs --run).")
@click.option("--shadow", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="Also decide the patch under this policy, read as it is from disk, and add the "
                   "decision to the line as shadow (no lane runs for it; the live decision, the exit "
                   "code and the lane are unchanged).  A file that cannot be used is the shadow's "
                   "error on the line, with one warning on stderr.")
@click.option("--annotations", type=click.Choice(["never", "auto", "always"]), default="auto", show_default=True,
              metavar="WHEN",
              help="On a reject, also write GitHub error annotations on the lines that caused it (stderr) "
                   "and a job summary to $GITHUB_STEP_SUMMARY: never, auto (when GITHUB_ACTIONS=true) or always.")
@change_options
@click.option("--agent", metavar="NAME", callback=checked("text"),
              help="The agent that made the patch, 1-100 printable characters [default: under GitHub Actions, "
                   "the login of the pull request's author].")
def route(repo: Path, base: str, head: str, policy: Path | None, flaky: Path | None,
          required_tests: Path | None, today, log_path: Path, repo_name: str | None,
          run_command: str | None, token_from: str, property_timeout: float,
          require_hold: bool, shadow: Path | None, annotations: str, **change: Any) -> None:
    """Bound an agent patch on a git checkout and append one lane-log line.

    Prints the line (one JSON object) on stdout and appends it to the log.
    Exit 0 when the probe passes, 1 when it rejects (the line says why),
    2 for a usage error (nothing is logged), 3 with --require-hold when the
    property lane did not hold.  The line names its pull request, agent and
    CI run when it can tell: under GitHub Actions from the event and the run,
    elsewhere from the options below.

    \b
    Example:
        lanelog route --base origin/main --head HEAD
        lanelog route --run 'pytest -q -k {property}' --token-from exit --require-hold
    """
    runner = None
    if run_command is not None:
        try:
            runner = LaneRunner.from_command(run_command, token_from, property_timeout)
        except RunnerCommandError as exc:
            raise click.BadParameter(str(exc), param_hint="'--run'") from None
    elif require_hold:
        raise click.UsageError("--require-hold needs --run: without a lane there is no hold")
    options = RouteOptions(
        repo=repo, base=base, head=head, policy=policy, flaky=flaky,
        required_tests=_required_tests(required_tests),
        today=today,
        repo_name=repo_name, runner=runner, change=_change(ChangeOptions(**change)),
    )
    line = run_route(options, notify=lambda note: echo(f"lanelog route: {note}", err=True))
    if shadow is not None:
        line["shadow"] = shadow_decision(options, shadow, date.fromisoformat(line["ts"][:10]))
    text = dumps(line)
    try:
        append_line(log_path, line)
    except OSError as exc:
        echo(text, json=True)
        raise LanelogError(f"cannot append to the lane log {log_path}: {exc.strerror or exc}") from None
    echo(text, json=True)
    if line["reasons"]:
        echo(f"lanelog route: probe reject: {line['message']}", err=True)
        if on_actions(annotations):
            _annotate(line)
    if shadow is not None and is_error(line["shadow"]):
        echo(f"lanelog route: warning: no shadow decision, the live decision stands: {line['shadow']['message']}",
             err=True)
    click.get_current_context().exit(exit_code(line, require_hold))


def _change(given: ChangeOptions) -> dict[str, Any]:
    """The line's pull_request, agent and ci_run; an incomplete set of options is a usage error."""
    try:
        return attempt_change(given, notify=lambda note: echo(f"lanelog route: {note}", err=True))
    except FactInvalid as exc:
        raise click.UsageError(str(exc)) from None


def _annotate(line: dict) -> None:
    """The reject on the pull request: annotations on stderr (the runner reads both streams) and the
    job summary; a summary that cannot be written is said on stderr and changes nothing else."""
    for command in error_annotations(line):
        echo_command(command)
    try:
        append_summary(job_summary(line))
    except OSError as exc:
        echo(f"lanelog route: cannot write the job summary to {summary_file()}: "
             f"{exc.strerror or exc}", err=True)
