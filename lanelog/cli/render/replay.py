"""`lanelog replay`'s text forms: the terminal table and the markdown review (the policy-review comment).

Both work on the dict of `replay --format json`.  Every recorded value is escaped for its
form (render.plain, render.md); the lines of a flip are shown through lanelog.evidence_text,
fenced, in a collapsed block: text from a commit or a log never becomes Markdown or HTML.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lanelog.cli.render.cells import md, plain
from lanelog.cli.render.flips import patches_section, short, size

FLIPS_SHOWN = 20
# Characters of a subject the sync and quarantine tables keep (the JSON has every subject whole).
SUBJECT_SHOWN = 160
FIGURES = (("probe_rejects", "probe rejects"), ("calls_armed", "armed calls"), ("units", "units"))


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


def _merge_words(result: dict[str, Any]) -> str | None:
    """How --first-parent told the chain's merges apart, in a sentence; None without --first-parent."""
    kinds = result.get("merge_kinds")
    if not isinstance(kinds, dict):
        return None
    rule = ("by --sync-merges" if result.get("sync_rule") == "--sync-merges"
            else "by branch: a merge of a long-lived branch is a sync, any other a pull request")
    counted = ("counted in the figures" if result.get("syncs_included")
               else "listed apart and left out of the figures (--include-syncs counts them)")
    return (f"Of the first-parent chain's merges, {kinds.get('pull_request', 0)} are pull requests and "
            f"{kinds.get('sync', 0)} branch syncs (told apart {rule}); the syncs are {counted}.")


def _table_syncs(result: dict[str, Any]) -> list[str]:
    words = _merge_words(result)
    if words is None:
        return []
    syncs = result.get("syncs") or []
    out = ["", plain(words)]
    out += [f"  sync {plain(sync['head'][:12])} {plain(sync['subject'])} (brought {sync['brought']} commits)"
            + (f": {plain(sync['why'])}" if sync.get("why") else "") for sync in syncs[:FLIPS_SHOWN]]
    return out + ([f"  (first {FLIPS_SHOWN} of {len(syncs)} syncs; --format json lists all)"]
                  if len(syncs) > FLIPS_SHOWN else [])


def _markdown_syncs(result: dict[str, Any]) -> list[str]:
    """The syncs' section; none without a sync (the summary says there was none): no section is empty."""
    words = _merge_words(result)
    syncs = result.get("syncs") or []
    if words is None or not syncs:
        return []
    out = ["", f"## Branch syncs ({len(syncs)})", "", md(words)]
    out += ["", "| commit | day | subject | commits it brought | why a sync |", "|---|---|---|---:|---|"]
    out += [f"| {md(sync['head'][:12])} | {md(sync['day'])} | {md(short(sync['subject'], SUBJECT_SHOWN))} | "
            f"{sync['brought']} | "
            f"{md(sync.get('why') or '')} |" for sync in syncs[:FLIPS_SHOWN]]
    if len(syncs) > FLIPS_SHOWN:
        out += ["", f"First {FLIPS_SHOWN} of {len(syncs)} syncs; `--format json` lists all."]
    return out


def _table_tail(result: dict[str, Any]) -> list[str]:
    out = _table_syncs(result) + [f"skipped {plain(skip.get('head') or skip.get('line'))}: {plain(skip['reason'])}"
           for skip in result["skipped"]]
    return out + [f"warning: {plain(warning)}" for warning in result.get("warnings") or []]


def markdown(result: dict[str, Any], candidate: Path, baseline: Path | None, whole: Path | None = None) -> str:
    """The replay for the weekly review, ready to paste: every flip, within a comment's limit.

    ``whole`` is where the whole replay was also written as JSON (--out), for the comment to name.
    """
    if result["baseline"] is None:
        return _markdown_alone(result, candidate, whole)
    against = md(str(baseline)) if baseline is not None else "each base commit's policy (or the recorded decision)"
    out = ["# Policy replay", "", f"Candidate {md(str(candidate))} against {against}: "
           f"{result['patches']} patches, {len(result['skipped'])} skipped.", *_read_as(result), "",
           "| figure | baseline | candidate |", "|---|---:|---:|"]
    for key, words in FIGURES:
        out.append(f"| {words} | {result['baseline'][key]} | {result['candidate'][key]} |")
    if result.get("warnings"):
        out += [""] + [f"> **Warning:** {md(warning)}" for warning in result["warnings"]]
    out += _markdown_syncs(result)
    moved = _moved(result)
    out += (["", "## Reasons that moved", "", "| reason | baseline | candidate |", "|---|---:|---:|"]
            + [f"| {md(reason)} | {before} | {after} |" for reason, before, after in moved]) if moved \
        else ["", "No reason moved: each is given to as many patches on both sides."]
    changes = result.get("reason_changes") or {}
    if changes:
        out += ["", "Patch by patch (a reason can leave a patch that stays rejected):", "",
                "| reason | patches that gain it | patches that lose it |", "|---|---:|---:|"]
        out += [f"| {md(reason)} | {change['gained']} | {change['lost']} |" for reason, change in changes.items()]
    tail = _markdown_quarantine(result)
    rows = [(flip, [("baseline", {**flip["baseline"], **flip["evidence"]["baseline"]}),
                    ("candidate", {**flip["candidate"], **flip["evidence"]["candidate"]})])
            for flip in result["flips"]]
    out += patches_section(rows, "flip", size("\n".join(out + tail)) + 2, _whole_at(whole))
    return "\n".join(out + tail)


def _read_as(result: dict[str, Any]) -> list[str]:
    """How the commits were read, in a sentence: the merged pull requests, the syncs, the copies left out."""
    said = []
    kinds = result.get("merge_kinds")
    if isinstance(kinds, dict):
        syncs = kinds.get("sync", 0)
        said.append(f"Read with --first-parent: {result.get('merges', 0)} merged pull requests and "
                    f"{result['patches'] - (result.get('merges') or 0)} other commits replayed; "
                    + ("no merge was a branch sync." if not syncs
                       else f"{syncs} branch syncs replayed too (--include-syncs)."
                       if result.get("syncs_included") else f"{syncs} branch syncs left out (listed below)."))
    if "duplicates" in result:
        said.append(f"{result['duplicates']} duplicate(s) skipped: the same change as an earlier patch (--dedupe).")
    return ["", md(" ".join(said))] if said else []


def _whole_at(whole: Path | None) -> str:
    """Where the reader finds every line of every patch."""
    if whole is not None:
        return f"the whole replay, every line of every patch, is in {md(str(whole))} (written with --out)"
    return "lanelog replay --format json prints the whole replay, every line of every patch"


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
            f"{md(short(record['subject'], SUBJECT_SHOWN))} |" for record in requeued[:FLIPS_SHOWN]]
    if len(requeued) > FLIPS_SHOWN:
        out += ["", f"First {FLIPS_SHOWN} of {len(requeued)}; `--format json` lists all."]
    return out


def _tests(decision: dict[str, Any]) -> str:
    """A decision's quarantined tests in a markdown cell, escaped."""
    return md(", ".join(decision["quarantine"])) or "none"


def _markdown_alone(result: dict[str, Any], candidate: Path, whole: Path | None) -> str:
    """The candidate alone: its figures, reasons and rejects (there is nothing to flip from)."""
    out = ["# Policy replay", "", f"Candidate {md(str(candidate))} alone, with no baseline to compare with: "
           f"{result['patches']} patches, {len(result['skipped'])} skipped.", *_read_as(result), "",
           "| figure | candidate |", "|---|---:|"]
    out += [f"| {words} | {result['candidate'][key]} |" for key, words in FIGURES]
    if result.get("warnings"):
        out += [""] + [f"> **Warning:** {md(warning)}" for warning in result["warnings"]]
    out += _markdown_syncs(result)
    reasons = result["candidate"]["reasons"]
    if reasons:
        out += ["", "## Reasons", "", "| reason | patches |", "|---|---:|"]
        out += [f"| {md(reason)} | {count} |" for reason, count in reasons.items()]
    rows = [(record, [("candidate", record["candidate"])]) for record in _rejected(result)]
    out += patches_section(rows, "reject", size("\n".join(out)) + 1, _whole_at(whole))
    return "\n".join(out)
