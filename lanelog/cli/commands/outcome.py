"""`lanelog outcome`: the CLI over router.outcome_line (parse flags, print, append)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from lanelog.cli.options import change_options, checked
from lanelog.cli.output import echo
from lanelog.errors import LanelogError, RepoNameInvalid
from lanelog.router import FORGES, OutcomeFlags, OutcomeRequest, append_line, check_repo_name, dumps, outcome_line

ACCOUNT_TYPES = ["User", "Bot"]


def _repo_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    try:
        return check_repo_name(value) if value is not None else None
    except RepoNameInvalid as exc:
        raise click.BadParameter(str(exc)) from None


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--forge", type=click.Choice(list(FORGES)),
              help="The forge whose shapes --event, --reviews and --label-events are in, and whose CI job is read "
                   "[default: the forge whose CI runs the job, else github].")
@click.option("--event", type=click.Path(path_type=Path), metavar="FILE",
              help="A saved payload of the close, in the forge's shape: GitHub's pull_request closed event, GitLab's "
                   "Merge Request Hook, Bitbucket's pullrequest:fulfilled or pullrequest:rejected [default: under "
                   "GitHub Actions, $GITHUB_EVENT_PATH].")
@click.option("--reviews", "--approvals", "reviews", type=click.Path(path_type=Path), metavar="FILE",
              help="The pull request's reviews, as `gh api repos/OWNER/NAME/pulls/N/reviews --paginate` prints "
                   "them (GitLab: its merge request's approvals JSON): the approvals on the line [default: "
                   "approvals unknown, left out; Bitbucket: the payload's].")
@click.option("--label-events", type=click.Path(path_type=Path), metavar="FILE",
              help="The pull request's events, as `gh api repos/OWNER/NAME/issues/N/events --paginate` prints them: "
                   "who set each label, and when [default: unknown, left out].")
@change_options
@click.option("--state", type=click.Choice(["merged", "closed"]),
              help="Without an event: merged, or closed without merge.")
@click.option("--closed-at", metavar="TIME", callback=checked("time"),
              help="Without an event: when it closed, RFC 3339 with its offset (2026-10-08T14:03:00Z).")
@click.option("--merged-at", metavar="TIME", callback=checked("time"),
              help="Without an event: when it merged [default: --closed-at; a merge closes it].")
@click.option("--merged-by", metavar="LOGIN", help="Without an event: who merged it.")
@click.option("--merged-by-type", type=click.Choice(ACCOUNT_TYPES), help="Without an event: a person or a bot.")
@click.option("--auto-merge", is_flag=True, help="Without an event: auto-merge merged it.")
@click.option("--head", metavar="SHA", callback=checked("sha"), help="Without an event: the head commit's full id.")
@click.option("--merge-commit", metavar="SHA", callback=checked("sha"),
              help="Without an event: the merge commit's full id.")
@click.option("--author", metavar="LOGIN", help="Without an event: who opened it (the agent's account).")
@click.option("--author-type", type=click.Choice(ACCOUNT_TYPES), help="Without an event: a person or a bot.")
@click.option("--label", "labels", multiple=True, metavar="NAME",
              help="Without an event: a label it carried when it closed (repeatable).")
@click.option("--repo", "repo", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="A checkout that makes the payload's abbreviated commit ids (Bitbucket's) full "
                   "[default: kept as given, named in short_ids].")
@click.option("--repo-name", default=None, metavar="NAME", callback=_repo_name,
              help="The repo field of the line, as route writes it [default: NAME of the repository].")
@click.option("--out", "log_path", type=click.Path(path_type=Path, dir_okay=False),
              envvar="LANELOG_LOG", default=Path("lane-log.jsonl"), show_default=True, metavar="FILE",
              help="The lane log to append the line to (env LANELOG_LOG).")
def outcome(forge: str | None, event: Path | None, reviews: Path | None, label_events: Path | None,
            ci_run_url: str | None, repo: Path | None, repo_name: str | None, log_path: Path,
            **flags: Any) -> None:
    """Record what became of a pull request when it closed: append one outcome line.

    Run it when a pull request closes.  Under GitHub Actions it reads the
    pull_request closed event; --event takes a saved payload of the --forge
    (github, gitlab or bitbucket), and the flags describe a pull request of
    a forge without an adapter.  Prints the line (one JSON
    object) on stdout and appends it to the lane log.  Exit 0 when the line
    is written (a login or label it refuses is left out, named on stderr and
    in the line's omitted), 2 when an input cannot be used (the error names
    the file and the key; nothing is written).

    \b
    Example:
        gh api "repos/$GITHUB_REPOSITORY/pulls/$NUMBER/reviews" --paginate > reviews.json
        lanelog outcome --reviews reviews.json --out lane-log.jsonl
        lanelog outcome --repository acme/orders --pull-request 7 --state closed --closed-at 2026-10-08T14:03:00Z
    """
    request = OutcomeRequest(event=event, flags=OutcomeFlags(**flags), reviews=reviews, label_events=label_events,
                             repo_name=repo_name, ci_run_url=ci_run_url, forge=forge, repo=repo)
    line = outcome_line(request, notify=lambda note: echo(f"lanelog outcome: {note}", err=True))
    text = dumps(line)
    try:
        append_line(log_path, line)
    except OSError as exc:
        echo(text, json=True)
        raise LanelogError(f"cannot append to the lane log {log_path}: {exc.strerror or exc}") from None
    echo(text, json=True)
