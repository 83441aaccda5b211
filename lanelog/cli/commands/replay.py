"""`lanelog replay`: route history again under a candidate policy and show what flips."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from lanelog.cli.commands.extras import require
from lanelog.cli.commands.options import db_option, deprecated_alias, format_option, wait_option
from lanelog.cli.commands.output import echo
from lanelog.cli.commands.render_replay import markdown, table


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
                   "a branch sync, any other a pull request [default: a merge is a pull request when GitHub or "
                   "GitLab wrote its subject for one, else a branch sync].")
@click.option("--include-syncs", is_flag=True,
              help="With --first-parent: replay the branch syncs too and count them in the figures (they are "
                   "listed apart either way).")
@click.option("--dedupe", is_flag=True,
              help="With --commits: leave out a patch whose change (git patch-id) was already replayed, "
                   "and list it as skipped.")
@deprecated_alias("--log", "LOG arguments", "logs", multiple=True, type=click.Path(dir_okay=False, path_type=Path))
@format_option(["text", "json", "markdown"])
# Opt-in, unlike the readers' --db: a replay is a question asked of history, on the core install,
# and each one stored becomes the What-if page's newest (docs/replay.md).
@db_option("Also store the replay in this lanelog database, made when missing (one row per patch, under "
           "a replay id); the dashboard's What-if page shows the newest.  Without --db nothing is stored, "
           "even when $LANELOG_DB is set (give --db \"$LANELOG_DB\" to store there).")
@wait_option("With --db: seconds to wait for another process that holds the database.")
def replay(logs: tuple[Path, ...], repo: Path, candidate: Path, baseline: Path | None, alone: bool,
           flaky: Path | None, baseline_flaky: Path | None, span: str | None, first_parent: bool,
           sync_merges: str | None, include_syncs: bool, dedupe: bool, fmt: str, db: Path | None, wait: float) -> None:
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
    """
    from lanelog.router.gitfacts import Checkout
    from lanelog.router.history import commits_in
    from lanelog.router.history import dedupe as leave_out_copies
    from lanelog.router.recorded import attempts_in
    from lanelog.router.replay import read_policy_file
    from lanelog.router.replay import replay as run_replay

    if (span is None) == (not logs):
        raise click.UsageError("give either --commits A..B or LOG files")
    if span is None and (first_parent or dedupe):
        raise click.UsageError("--first-parent and --dedupe read a commit range: give --commits A..B")
    if not first_parent and (sync_merges is not None or include_syncs):
        raise click.UsageError("--sync-merges and --include-syncs tell the merges of --first-parent apart: "
                               "give --first-parent")
    if alone and (baseline is not None or baseline_flaky is not None):
        raise click.UsageError("--no-baseline decides under the candidate alone: leave out --baseline "
                               "and --baseline-flaky")
    if alone and db is not None:
        raise click.UsageError("--no-baseline has no baseline to store beside the candidate: leave out --db")
    # Every file is checked before anything is replayed; an error exits 2 with its message.
    chosen = read_policy_file(candidate)
    compared = read_policy_file(baseline) if baseline is not None else None
    frozen = read_policy_file(flaky, "flaky") if flaky is not None else None
    frozen_before = read_policy_file(baseline_flaky, "flaky") if baseline_flaky is not None else None
    if db is not None:
        require("db", "lanelog replay --db")
        check_db(db, wait)  # a database that cannot take the replay fails now, not after the work
    checkout = Checkout.open(repo)
    about: dict[str, Any] = {}
    if span is not None:
        patches, skipped, about = commits_in(checkout, span, first_parent, syncs=sync_merges,
                                             include_syncs=include_syncs)
        if dedupe:
            patches, copies = leave_out_copies(checkout, patches)
            skipped += copies
            about["duplicates"] = len(copies)
    else:
        patches, skipped = attempts_in(checkout, list(logs))
    replayed = run_replay(checkout, patches, skipped, chosen, compared, frozen, about,
                          baseline_flaky=frozen_before, alone=alone)
    result = replayed.as_dict()
    for warning in result["warnings"]:
        echo(f"lanelog replay: warning: {warning}", err=True)
    if db is not None:
        from lanelog.router.paths import printable

        # Absolute, so the What-if page says which checkout and files whatever folder replay ran in.
        stored = store_replay(db, wait, replayed.patch_rows(), {
            "checkout": printable(str(checkout.toplevel)), "candidate": printable(os.path.abspath(candidate)),
            "baseline": printable(os.path.abspath(baseline)) if baseline is not None
            else ("each base commit's policy" if span is not None else "the decisions the lines recorded"),
            "source": f"commits {span}" if span is not None else "lane logs " + ", ".join(map(str, logs)),
            "patches": result["patches"], "skipped": len(result["skipped"]),
        })
        result["replay_id"] = stored
        echo(f"stored as replay {stored} in {db}", err=True)
    if fmt == "json":
        echo(json.dumps(result, indent=2), json=True, newline="\n")
    elif fmt == "markdown":
        echo(markdown(result, candidate, baseline), newline="\n")
    else:
        echo(table(result), newline="\n")


def check_db(db: Path, wait: float) -> None:
    """Open the database once (made when missing) so a file that is no lanelog database fails first."""
    from lanelog.store import open_db

    open_db(db, wait=wait).close()


def store_replay(db: Path, wait: float, rows: list[dict[str, Any]], about: dict[str, Any]) -> int:
    """Store a replay in the database at `db` (made when missing), waiting for a lock up to `wait` seconds."""
    from lanelog.store import open_db
    from lanelog.store.replays import store

    con = open_db(db, wait=wait)
    try:
        return store(con, about, rows)
    finally:
        con.close()
