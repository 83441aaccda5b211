"""`lanelog replay`: route history again under a candidate policy and show what flips."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lanelog.cli.extras import require
from lanelog.cli.options import db_option, deprecated_alias, format_option, wait_option
from lanelog.cli.output import echo
from lanelog.cli.render import replay as replay_forms

if TYPE_CHECKING:
    from lanelog.router import ReplayRequest, ReplayRun


@click.command()
@click.argument("logs", nargs=-1, metavar="[LOG]...", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--repo", "repo", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, metavar="DIR", help="The git checkout whose history is replayed.")
@click.option("--policy", "candidate", type=click.Path(dir_okay=False, path_type=Path), required=True,
              metavar="FILE", help="The candidate lanes.yaml, read as it is (never from a commit).")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="The policy to compare with [default: the lanes.yaml each base commit holds; with "
                   "LOG files, the decision each line recorded].")
@click.option("--no-baseline", "alone", is_flag=True,
              help="Decide under the candidate alone (a first policy, which no base commit holds): "
                   "its figures and the patches it rejects, no flips.")
@click.option("--flaky", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="The flaky list for both sides (the candidate's alone when --baseline-flaky is given) "
                   "[default: each base commit's flaky.yaml].")
@click.option("--baseline-flaky", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="The baseline's flaky list instead, to review a flaky-list change [default: --flaky's, "
                   "else each base commit's flaky.yaml].")
@click.option("--commits", "span", metavar="A..B", default=None,
              help="Replay every non-merge commit of A..B as a patch on its first parent.")
@click.option("--first-parent", is_flag=True,
              help="With --commits: replay each commit of B's first-parent chain instead, a merge as "
                   "its first-parent diff (the merged pull request); commits behind merges are counted.")
@click.option("--sync-merges", metavar="PATTERN", default=None,
              help="With --first-parent: an RE2 pattern searched in each merge's subject; a merge it matches is "
                   "a branch sync, any other a pull request [default: a merge of a long-lived branch (the base, "
                   "main, master, stable, 3.0.x, release/...) is a branch sync, any other a pull request].")
@click.option("--include-syncs", is_flag=True,
              help="With --first-parent: replay the branch syncs too and count them in the figures (they are "
                   "listed apart either way).")
@click.option("--dedupe", is_flag=True,
              help="With --commits: leave out a patch whose change (git patch-id) was already replayed, "
                   "and list it as skipped.")
@deprecated_alias("--log", "LOG arguments", "logs", multiple=True, type=click.Path(dir_okay=False, path_type=Path))
@format_option(["text", "json", "markdown"])
@click.option("--out", "whole", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also write the whole replay to FILE as JSON, the form --format json prints, whichever form "
                   "is printed; the markdown names the file where it shortens a flip to fit a comment.")
# Opt-in, unlike the readers' --db: a replay is a question asked of history, on the core install,
# and each one stored becomes the What-if page's newest (docs/replay.md).
@db_option("Also store the replay in this lanelog database, made when missing (one row per patch, under "
           "a replay id); the dashboard's What-if page shows the newest.  Without --db nothing is stored, "
           "even when $LANELOG_DB is set (give --db \"$LANELOG_DB\" to store there).")
@wait_option("With --db: seconds to wait for another process that holds the database.")
def replay(logs: tuple[Path, ...], repo: Path, candidate: Path, baseline: Path | None, alone: bool,
           flaky: Path | None, baseline_flaky: Path | None, span: str | None, first_parent: bool,
           sync_merges: str | None, include_syncs: bool, dedupe: bool, fmt: str, whole: Path | None, db: Path | None,
           wait: float) -> None:
    """Route history again under a candidate policy, writing no lane log.

    The patches are the attempts of the LOG files whose commits are in the
    checkout, or every commit of --commits A..B.  Each patch is decided by the
    router itself, twice: under the candidate and under the baseline.  The
    output counts probe rejects, armed calls and units on both sides, the
    reasons that moved, and the patches whose probe flips, with their commit
    subjects.

    \b
    Examples:
        lanelog replay --repo . --policy lanes-candidate.yaml --baseline lanes.yaml --commits v1.0..main
        lanelog replay --policy candidate.yaml --commits origin/main~300..origin/main --first-parent
        lanelog replay --policy candidate.yaml --commits v1.0..main --first-parent --sync-merges "^Merge branch '"
        lanelog replay --policy candidate.yaml lane-log.jsonl --format json
        lanelog replay --policy lanes.yaml --flaky flaky.yaml --baseline-flaky base.yaml --commits main~50..main
        lanelog replay --policy lanes.yaml --no-baseline --commits origin/main~300..origin/main
        lanelog replay --policy candidate.yaml --commits v1.0..main --first-parent --format markdown --out replay.json
    """
    from lanelog.router import ReplayRequest, read_files, replay_history

    request = ReplayRequest(repo=repo, candidate=candidate, baseline=baseline, alone=alone, flaky=flaky,
                            baseline_flaky=baseline_flaky, span=span, logs=logs, first_parent=first_parent,
                            sync_merges=sync_merges, include_syncs=include_syncs, dedupe=dedupe)
    _check_usage(request, db)
    files = read_files(request)  # every file is checked before anything is replayed; an error exits 2
    if db is not None:
        require("db", "lanelog replay --db")
        check_db(db, wait)  # a database that cannot take the replay fails now, not after the work
    run = replay_history(request, files)
    result = run.result.as_dict()
    for warning in result["warnings"]:
        echo(f"lanelog replay: warning: {warning}", err=True)
    if db is not None:
        result["replay_id"] = store_replay(db, wait, run, request)
        echo(f"stored as replay {result['replay_id']} in {db}", err=True)
    if whole is not None:
        write_json(whole, result)
    if fmt == "json":
        echo(json.dumps(result, indent=2), json=True, newline="\n")
    elif fmt == "markdown":
        echo(replay_forms.markdown(result, candidate, baseline, whole), newline="\n")
    else:
        echo(replay_forms.table(result), newline="\n")


def _check_usage(request: ReplayRequest, db: Path | None) -> None:
    """Refuse flags that do not go together, before any file is read."""
    if (request.span is None) == (not request.logs):
        raise click.UsageError("give either --commits A..B or LOG files")
    if request.span is None and (request.first_parent or request.dedupe):
        raise click.UsageError("--first-parent and --dedupe read a commit range: give --commits A..B")
    if not request.first_parent and (request.sync_merges is not None or request.include_syncs):
        raise click.UsageError("--sync-merges and --include-syncs tell the merges of --first-parent apart: "
                               "give --first-parent")
    if request.alone and (request.baseline is not None or request.baseline_flaky is not None):
        raise click.UsageError("--no-baseline decides under the candidate alone: leave out --baseline "
                               "and --baseline-flaky")
    if request.alone and db is not None:
        raise click.UsageError("--no-baseline has no baseline to store beside the candidate: leave out --db")


def write_json(path: Path, result: dict[str, Any]) -> None:
    """The whole replay as JSON in ``path``, as --format json prints it (framed the same way)."""
    from lanelog.errors import ReplayError
    from lanelog.framing import framed

    try:
        path.write_text("\n".join(framed(line, json=True) for line in json.dumps(result, indent=2).split("\n"))
                        + "\n", encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"--out {path}: cannot write the replay ({exc.strerror or exc})") from None


def check_db(db: Path, wait: float) -> None:
    """Open the database once (made when missing) so a file that is no lanelog database fails first."""
    from lanelog.store import open_db

    open_db(db, wait=wait).close()


def store_replay(db: Path, wait: float, run: ReplayRun, request: ReplayRequest) -> int:
    """Store a replay in the database at `db` (made when missing), waiting for a lock up to `wait` seconds."""
    from lanelog.router import stored_about
    from lanelog.store import open_db, store_replay

    con = open_db(db, wait=wait)
    try:
        return store_replay(con, stored_about(request, run), run.result.patch_rows())
    finally:
        con.close()
