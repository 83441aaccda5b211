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
from lanelog.cli.commands.render import md, plain

FLIPS_SHOWN = 20
FIGURES = (("probe_rejects", "probe rejects"), ("calls_armed", "armed calls"), ("units", "units"))


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
           flaky: Path | None, baseline_flaky: Path | None, span: str | None, first_parent: bool, dedupe: bool,
           fmt: str, db: Path | None, wait: float) -> None:
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
        patches, skipped, about = commits_in(checkout, span, first_parent)
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


def _moved(result: dict[str, Any]) -> list[tuple[str, int, int]]:
    before, after = result["baseline"]["reasons"], result["candidate"]["reasons"]
    return [(reason, before.get(reason, 0), after.get(reason, 0))
            for reason in sorted(set(before) | set(after)) if before.get(reason, 0) != after.get(reason, 0)]


def _requeued(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The patches that pass on both sides with another quarantine: what a flaky-list change
    moves (it flips no probe; a patch that flips is in the flips)."""
    return [record for record in result["records"] if record["baseline"] is not None
            and record["baseline"]["probe"] == record["candidate"]["probe"] == "pass"
            and record["baseline"]["quarantine"] != record["candidate"]["quarantine"]]


def _rejected(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [record for record in result["records"] if record["candidate"]["probe"] == "reject"]


def _first(rows: list[Any]) -> str:
    return f" (first {FLIPS_SHOWN} of {len(rows)}; --format json lists all)" if len(rows) > FLIPS_SHOWN else ""


def table(result: dict[str, Any]) -> str:
    """The replay for a terminal: the three figures on both sides, reasons that moved, the flips."""
    out = [f"{result['patches']} patches replayed, {len(result['skipped'])} skipped", ""]
    if result["baseline"] is None:
        return "\n".join(out + _table_alone(result) + _table_tail(result))
    out.append(f"{'':<14}{'baseline':>10}{'candidate':>11}")
    for key, words in FIGURES:
        out.append(f"{words:<14}{result['baseline'][key]:>10}{result['candidate'][key]:>11}")
    moved = _moved(result)
    if moved:
        out += ["", "reasons that moved:"]
        out += [f"  {plain(reason)}: {before} -> {after}" for reason, before, after in moved]
    for key, words in (("reason_changes", "reasons"), ("quarantine_changes", "quarantined tests")):
        changes = result.get(key) or {}
        if changes:
            out += ["", f"{words} gained and lost, patch by patch:"]
            out += [f"  {plain(item)}: +{change['gained']} -{change['lost']}" for item, change in changes.items()]
    out += ["", f"{len(result['flips'])} flips{_first(result['flips'])}"]
    for flip in result["flips"][:FLIPS_SHOWN]:
        out.append(f"  {plain(flip['head'][:12])} {plain(flip['baseline']['probe'])} -> "
                   f"{plain(flip['candidate']['probe'])} {plain(flip['subject'])}")
    requeued = _requeued(result)
    if requeued:
        out += ["", f"{len(requeued)} quarantine changes{_first(requeued)}"]
        out += [f"  {plain(record['head'][:12])} [{plain(', '.join(record['baseline']['quarantine']))}] -> "
                f"[{plain(', '.join(record['candidate']['quarantine']))}] {plain(record['subject'])}"
                for record in requeued[:FLIPS_SHOWN]]
    return "\n".join(out + _table_tail(result))


def _table_alone(result: dict[str, Any]) -> list[str]:
    """The candidate's figures and its rejects, when there is no baseline to compare with."""
    out = [f"{'':<14}{'candidate':>11}"]
    out += [f"{words:<14}{result['candidate'][key]:>11}" for key, words in FIGURES]
    reasons = result["candidate"]["reasons"]
    if reasons:
        out += ["", "reasons:"] + [f"  {plain(reason)}: {count}" for reason, count in reasons.items()]
    rejected = _rejected(result)
    out += ["", f"{len(rejected)} rejects{_first(rejected)}"]
    out += [f"  {plain(record['head'][:12])} {plain(', '.join(record['candidate']['reasons']))} "
            f"{plain(record['subject'])}" for record in rejected[:FLIPS_SHOWN]]
    return out


def _table_tail(result: dict[str, Any]) -> list[str]:
    out = [f"skipped {plain(skip.get('head') or skip.get('line'))}: {plain(skip['reason'])}"
           for skip in result["skipped"]]
    return out + [f"warning: {plain(warning)}" for warning in result.get("warnings") or []]


def _side(decision: dict[str, Any]) -> str:
    """A decision in a markdown cell: its probe and reasons, escaped."""
    return f"{md(decision['probe'])} {md(', '.join(decision['reasons']))}"


def markdown(result: dict[str, Any], candidate: Path, baseline: Path | None) -> str:
    """The replay for the weekly review, ready to paste."""
    if result["baseline"] is None:
        return _markdown_alone(result, candidate)
    against = md(str(baseline)) if baseline is not None else "each base commit's policy (or the recorded decision)"
    out = ["# Policy replay", "", f"Candidate {md(str(candidate))} against {against}: "
           f"{result['patches']} patches, {len(result['skipped'])} skipped.", "",
           "| figure | baseline | candidate |", "|---|---:|---:|"]
    for key, words in FIGURES:
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
    out += _markdown_quarantine(result)
    return "\n".join(out)


def _markdown_quarantine(result: dict[str, Any]) -> list[str]:
    """The passing patches whose quarantine moves: a flaky-list change shows here, not in the flips."""
    requeued = _requeued(result)
    if not requeued:
        return []
    out = ["", f"## Quarantine changes ({len(requeued)})", "",
           "A live freeze parks its test in quarantine, with merge credit held at 0.", "",
           "| test | patches that gain it | patches that lose it |", "|---|---:|---:|"]
    out += [f"| {md(test)} | {change['gained']} | {change['lost']} |"
            for test, change in (result.get("quarantine_changes") or {}).items()]
    out += ["", "| commit | baseline quarantine | candidate quarantine | subject |", "|---|---|---|---|"]
    out += [f"| {md(record['head'][:12])} | {_tests(record['baseline'])} | {_tests(record['candidate'])} | "
            f"{md(record['subject'])} |" for record in requeued[:FLIPS_SHOWN]]
    if len(requeued) > FLIPS_SHOWN:
        out += ["", f"First {FLIPS_SHOWN} of {len(requeued)}; `--format json` lists all."]
    return out


def _tests(decision: dict[str, Any]) -> str:
    """A decision's quarantined tests in a markdown cell, escaped."""
    return md(", ".join(decision["quarantine"])) or "none"


def _markdown_alone(result: dict[str, Any], candidate: Path) -> str:
    """The candidate alone: its figures, reasons and rejects (there is nothing to flip from)."""
    out = ["# Policy replay", "", f"Candidate {md(str(candidate))} alone, with no baseline to compare with: "
           f"{result['patches']} patches, {len(result['skipped'])} skipped.", "",
           "| figure | candidate |", "|---|---:|"]
    out += [f"| {words} | {result['candidate'][key]} |" for key, words in FIGURES]
    if result.get("warnings"):
        out += [""] + [f"> **Warning:** {md(warning)}" for warning in result["warnings"]]
    reasons = result["candidate"]["reasons"]
    out += ["", "## Reasons", ""]
    out += (["| reason | patches |", "|---|---:|"] + [f"| {md(reason)} | {count} |" for reason, count
                                                      in reasons.items()]) if reasons else ["None."]
    rejected = _rejected(result)
    out += ["", f"## Rejects ({len(rejected)})", ""]
    if not rejected:
        out.append("The candidate passes every patch.")
    else:
        out += ["| commit | candidate | subject |", "|---|---|---|"]
        out += [f"| {md(record['head'][:12])} | {_side(record['candidate'])} | {md(record['subject'])} |"
                for record in rejected[:FLIPS_SHOWN]]
        if len(rejected) > FLIPS_SHOWN:
            out += ["", f"First {FLIPS_SHOWN} of {len(rejected)} rejects; `--format json` lists all, "
                        "with each patch's evidence."]
    return "\n".join(out)
