"""`lanelog replay`: route history again under a candidate policy and show what flips."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from lanelog.commands.extras import require
from lanelog.commands.options import db_option, deprecated_alias, format_option, wait_option
from lanelog.commands.render import md, plain

FLIPS_SHOWN = 20


@click.command()
@click.argument("logs", nargs=-1, metavar="[LOG]...", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--repo", "repo", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, metavar="DIR", help="The git checkout whose history is replayed.")
@click.option("--policy", "candidate", type=click.Path(dir_okay=False, path_type=Path), required=True,
              metavar="FILE", help="The candidate lanes.yaml, read as it is (never from a commit).")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="The policy to compare with [default: the lanes.yaml each base commit holds; with "
                   "LOG files, the decision each line recorded].")
@click.option("--flaky", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="The flaky list for both sides [default: each base commit's flaky.yaml].")
@click.option("--commits", "span", metavar="A..B", default=None,
              help="Replay every non-merge commit of A..B as a patch on its first parent.")
@click.option("--first-parent", is_flag=True,
              help="With --commits: replay each commit of B's first-parent chain instead, a merge as "
                   "its first-parent diff (the merged pull request); commits behind merges are counted.")
@click.option("--dedupe", is_flag=True,
              help="With --commits: leave out a patch whose change (git patch-id) was already replayed, "
                   "and list it as skipped.")
@deprecated_alias("--log", "LOG arguments", "logs", multiple=True, type=click.Path(dir_okay=False, path_type=Path))
@format_option(["table", "json", "markdown"])
@db_option("Also store the replay in this lanelog database (one row per patch, under a replay "
           "id); the dashboard's What-if page shows the newest.")
@wait_option("With --db: seconds to wait for another process that holds the database.")
def replay(logs: tuple[Path, ...], repo: Path, candidate: Path, baseline: Path | None, flaky: Path | None,
           span: str | None, first_parent: bool, dedupe: bool, fmt: str, db: Path | None, wait: float) -> None:
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
        lanelog replay --policy candidate.yaml lane-log.jsonl --format json
    """
    from lanelog.router.gitfacts import Checkout
    from lanelog.router.replay import attempts_in, commits_in, read_policy_file
    from lanelog.router.replay import dedupe as leave_out_copies
    from lanelog.router.replay import replay as run_replay

    if (span is None) == (not logs):
        raise click.UsageError("give either --commits A..B or LOG files")
    if span is None and (first_parent or dedupe):
        raise click.UsageError("--first-parent and --dedupe read a commit range: give --commits A..B")
    # Every file is checked before anything is replayed; an error exits 2 with its message.
    chosen = read_policy_file(candidate)
    compared = read_policy_file(baseline) if baseline is not None else None
    frozen = read_policy_file(flaky, "flaky") if flaky is not None else None
    if db is not None:
        require("db", "lanelog replay --db")
        check_db(db, wait)  # a database that cannot take the replay fails now, not after the work
    checkout = Checkout.open(repo)
    about: dict[str, Any] = {}
    if span is not None:
        patches, skipped, about = commits_in(checkout, span, first_parent)
        if dedupe:
            patches, copies = leave_out_copies(checkout, patches)
            skipped += copies
            about["duplicates"] = len(copies)
    else:
        patches, skipped = attempts_in(checkout, list(logs))
    replayed = run_replay(checkout, patches, skipped, chosen, compared, frozen, about)
    result = replayed.as_dict()
    for warning in result["warnings"]:
        click.echo(f"lanelog replay: warning: {warning}", err=True)
    if db is not None:
        stored = store_replay(db, wait, replayed.patch_rows(), {
            "checkout": str(repo), "candidate": str(candidate),
            "baseline": str(baseline) if baseline is not None
            else ("each base commit's policy" if span is not None else "the decisions the lines recorded"),
            "source": f"commits {span}" if span is not None else "lane logs " + ", ".join(map(str, logs)),
            "patches": result["patches"], "skipped": len(result["skipped"]),
        })
        result["replay_id"] = stored
        click.echo(f"stored as replay {stored} in {db}", err=True)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2))
    elif fmt == "markdown":
        click.echo(markdown(result, candidate, baseline))
    else:
        click.echo(table(result))


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


def _moved(result: dict[str, Any]) -> list[tuple[str, int, int]]:
    before, after = result["baseline"]["reasons"], result["candidate"]["reasons"]
    return [(reason, before.get(reason, 0), after.get(reason, 0))
            for reason in sorted(set(before) | set(after)) if before.get(reason, 0) != after.get(reason, 0)]


def table(result: dict[str, Any]) -> str:
    """The replay for a terminal: the three figures on both sides, reasons that moved, the flips."""
    out = [f"{result['patches']} patches replayed, {len(result['skipped'])} skipped", ""]
    out.append(f"{'':<14}{'baseline':>10}{'candidate':>11}")
    for key, words in (("probe_rejects", "probe rejects"), ("calls_armed", "armed calls"), ("units", "units")):
        out.append(f"{words:<14}{result['baseline'][key]:>10}{result['candidate'][key]:>11}")
    moved = _moved(result)
    if moved:
        out += ["", "reasons that moved:"]
        out += [f"  {plain(reason)}: {before} -> {after}" for reason, before, after in moved]
    changes = result.get("reason_changes") or {}
    if changes:
        out += ["", "reasons gained and lost, patch by patch:"]
        out += [f"  {plain(reason)}: +{change['gained']} -{change['lost']}" for reason, change in changes.items()]
    shown = (f" (first {FLIPS_SHOWN} of {len(result['flips'])}; --format json lists all)"
             if len(result["flips"]) > FLIPS_SHOWN else "")
    out += ["", f"{len(result['flips'])} flips{shown}"]
    for flip in result["flips"][:FLIPS_SHOWN]:
        out.append(f"  {plain(flip['head'][:12])} {plain(flip['baseline']['probe'])} -> "
                   f"{plain(flip['candidate']['probe'])} {plain(flip['subject'])}")
    for skip in result["skipped"]:
        out.append(f"skipped {plain(skip.get('head') or skip.get('line'))}: {plain(skip['reason'])}")
    out += [f"warning: {plain(warning)}" for warning in result.get("warnings") or []]
    return "\n".join(out)


def _side(decision: dict[str, Any]) -> str:
    """A decision in a markdown cell: its probe and reasons, escaped."""
    return f"{md(decision['probe'])} {md(', '.join(decision['reasons']))}"


def markdown(result: dict[str, Any], candidate: Path, baseline: Path | None) -> str:
    """The replay for the weekly review, ready to paste."""
    against = md(str(baseline)) if baseline is not None else "each base commit's policy (or the recorded decision)"
    out = ["# Policy replay", "", f"Candidate {md(str(candidate))} against {against}: "
           f"{result['patches']} patches, {len(result['skipped'])} skipped.", "",
           "| figure | baseline | candidate |", "|---|---:|---:|"]
    for key, words in (("probe_rejects", "probe rejects"), ("calls_armed", "armed calls"), ("units", "units")):
        out.append(f"| {words} | {result['baseline'][key]} | {result['candidate'][key]} |")
    if result.get("warnings"):
        out += [""] + [f"> **Warning:** {md(warning)}" for warning in result["warnings"]]
    out += ["", "## Reasons that moved", ""]
    moved = _moved(result)
    out += (["| reason | baseline | candidate |", "|---|---:|---:|"]
            + [f"| {md(reason)} | {before} | {after} |" for reason, before, after in moved]) if moved else ["None."]
    changes = result.get("reason_changes") or {}
    if changes:
        out += ["", "Patch by patch (a reason can leave a patch that stays rejected):", "",
                "| reason | patches that gain it | patches that lose it |", "|---|---:|---:|"]
        out += [f"| {md(reason)} | {change['gained']} | {change['lost']} |" for reason, change in changes.items()]
    out += ["", f"## Flips ({len(result['flips'])})", ""]
    if not result["flips"]:
        out.append("No patch changes its probe.")
    else:
        out += ["| commit | baseline | candidate | subject |", "|---|---|---|---|"]
        out += [f"| {md(flip['head'][:12])} | {_side(flip['baseline'])} | {_side(flip['candidate'])} | "
                f"{md(flip['subject'])} |" for flip in result["flips"][:FLIPS_SHOWN]]
        if len(result["flips"]) > FLIPS_SHOWN:
            out += ["", f"First {FLIPS_SHOWN} of {len(result['flips'])} flips; `--format json` lists all, "
                        "with each patch's evidence."]
    return "\n".join(out)
