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
@deprecated_alias("--log", "LOG arguments", "logs", multiple=True, type=click.Path(dir_okay=False, path_type=Path))
@format_option(["table", "json", "markdown"])
@db_option("Also store the replay in this lanelog database (one row per patch, under a replay "
           "id); the dashboard's What-if page shows the newest.")
@wait_option("With --db: seconds to wait for another process that holds the database.")
def replay(logs: tuple[Path, ...], repo: Path, candidate: Path, baseline: Path | None, flaky: Path | None,
           span: str | None, fmt: str, db: Path | None, wait: float) -> None:
    """Route history again under a candidate policy, writing no lane log.

    The patches are the attempts of the LOG files whose commits are in the
    checkout, or every commit of --commits A..B.  Each patch is decided by the
    router itself, twice: under the candidate and under the baseline.  The
    output counts probe rejects, armed calls and units on both sides, the
    reasons that moved, and the patches whose probe flips, with their commit
    subjects.

    \b
    Examples:
        lanelog replay --repo . --policy lanes-candidate.yaml --commits v1.0..main
        lanelog replay --policy candidate.yaml lane-log.jsonl --format json
    """
    from lanelog.router.gitfacts import Checkout
    from lanelog.router.replay import attempts_in, commits_in, read_policy_file
    from lanelog.router.replay import replay as run_replay

    if (span is None) == (not logs):
        raise click.UsageError("give either --commits A..B or LOG files")
    # Every file is checked before anything is replayed; an error exits 2 with its message.
    chosen = read_policy_file(candidate)
    compared = read_policy_file(baseline) if baseline is not None else None
    frozen = read_policy_file(flaky, "flaky") if flaky is not None else None
    if db is not None:
        require("db", "lanelog replay --db")
        check_db(db, wait)  # a database that cannot take the replay fails now, not after the work
    checkout = Checkout.open(repo)
    patches, skipped = commits_in(checkout, span) if span is not None else attempts_in(checkout, list(logs))
    replayed = run_replay(checkout, patches, skipped, chosen, compared, frozen)
    result = replayed.as_dict()
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
        out += [f"  {reason}: {before} -> {after}" for reason, before, after in moved]
    shown = f" (first {FLIPS_SHOWN})" if len(result["flips"]) > FLIPS_SHOWN else ""
    out += ["", f"{len(result['flips'])} flips{shown}"]
    for flip in result["flips"][:FLIPS_SHOWN]:
        out.append(f"  {flip['head'][:12]} {flip['baseline']['probe']} -> {flip['candidate']['probe']} "
                   f"{plain(flip['subject'])}")
    for skip in result["skipped"]:
        out.append(f"skipped {plain(skip.get('head') or skip.get('line'))}: {skip['reason']}")
    return "\n".join(out)


def markdown(result: dict[str, Any], candidate: Path, baseline: Path | None) -> str:
    """The replay for the weekly review, ready to paste."""
    against = md(str(baseline)) if baseline is not None else "each base commit's policy (or the recorded decision)"
    out = ["# Policy replay", "", f"Candidate {md(str(candidate))} against {against}: "
           f"{result['patches']} patches, {len(result['skipped'])} skipped.", "",
           "| figure | baseline | candidate |", "|---|---:|---:|"]
    for key, words in (("probe_rejects", "probe rejects"), ("calls_armed", "armed calls"), ("units", "units")):
        out.append(f"| {words} | {result['baseline'][key]} | {result['candidate'][key]} |")
    out += ["", "## Reasons that moved", ""]
    moved = _moved(result)
    out += (["| reason | baseline | candidate |", "|---|---:|---:|"]
            + [f"| {md(reason)} | {before} | {after} |" for reason, before, after in moved]) if moved else ["None."]
    out += ["", f"## Flips ({len(result['flips'])})", ""]
    if not result["flips"]:
        out.append("No patch changes its probe.")
    else:
        out += ["| commit | baseline | candidate | subject |", "|---|---|---|---|"]
        out += [f"| {flip['head'][:12]} | {flip['baseline']['probe']} {md(', '.join(flip['baseline']['reasons']))} | "
                f"{flip['candidate']['probe']} {md(', '.join(flip['candidate']['reasons']))} | {md(flip['subject'])} |"
                for flip in result["flips"][:FLIPS_SHOWN]]
    return "\n".join(out)
