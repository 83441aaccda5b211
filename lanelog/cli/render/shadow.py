"""The live shadow (`route --shadow`) in the report's text, markdown and CSV forms.

One section (or one set of CSV columns) per shadow policy, by its digest: shadows of
different policies are never summed.  A shadow that is an error (its policy could not
be used) decided nothing; those attempts are counted apart, by reason, in no figure.
The digest comes from the log, so it is shown escaped like any other logged text.
"""

from __future__ import annotations

from typing import Any

from lanelog.cli.render.cells import aligned, cell, md, plain

# The live shadow's figures (queries.SHADOW_FIGURES), each live one beside its shadow.
HEADINGS = {"week": "week", "attempts": "attempts", "probe_rejects": "probe rejects",
            "shadow_probe_rejects": "shadow probe rejects", "calls_armed": "armed calls",
            "shadow_calls_armed": "shadow armed calls", "flips": "would flip"}
# A policy's CSV columns, after shadow_<digest prefix>_: the live figures of its attempts beside its own.
CSV_FIGURES = {"attempts": "attempts", "probe_rejects": "live_probe_rejects",
               "shadow_probe_rejects": "probe_rejects", "calls_armed": "live_calls_armed",
               "shadow_calls_armed": "calls_armed", "flips": "flips"}
DIGEST_SHOWN = 12  # a sha256 is known by its start, as git's short ids


def label(policy: str | None) -> str:
    """A policy as the text forms name it: its digest's start, or that it named none."""
    return policy[:DIGEST_SHOWN] if policy else "(no digest)"


def _rows(entry: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    rows = [[cell(key, week[key]) for key in HEADINGS] for week in entry["weeks"]]
    rows.append(["total"] + [cell(key, entry["totals"][key]) for key in list(HEADINGS)[1:]])
    return list(HEADINGS.values()), rows


def errors_sentence(errors: dict[str, Any], escape: Any = plain) -> str | None:
    """What the shadow errors were, in words; None when there were none."""
    if not errors["attempts"]:
        return None
    reasons = ", ".join(f"{escape(reason)} {count}" for reason, count in errors["reasons"].items())
    count = errors["attempts"]
    subject = "1 attempt has" if count == 1 else f"{count} attempts have"
    return (f"{subject} no shadow decision ({reasons}): the shadow policy could not be used, so "
            f"{'it counts' if count == 1 else 'they count'} in no shadow figure")


def table_lines(shadow: dict[str, Any]) -> list[str]:
    """The terminal table's shadow sections: one per policy, then the errors."""
    out: list[str] = []
    for entry in shadow["policies"]:
        out += ["", f"Shadow policy {plain(label(entry['policy_sha256']))} (route --shadow), over the "
                    f"{entry['totals']['attempts']} attempts decided under it:", "", *aligned(*_rows(entry))]
    sentence = errors_sentence(shadow["errors"])
    return out + (["", f"Shadow errors: {sentence}."] if sentence else [])


def markdown_lines(shadow: dict[str, Any]) -> list[str]:
    """The review's shadow section: a table per policy, then the errors."""
    out = ["", "## Shadow policy", ""]
    for entry in shadow["policies"]:
        header, rows = _rows(entry)
        totals = entry["totals"]
        out += [f"### Policy `{md(label(entry['policy_sha256']))}`", "",
                f"{totals['attempts']} attempts were also decided under this shadow policy (`route --shadow`); "
                f"{totals['flips']} would flip between probe reject and not.", "",
                "| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
        for cells in rows:
            cells[0] = f"**{cells[0]}**" if cells[0] == "total" else cells[0]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    sentence = errors_sentence(shadow["errors"], md)
    if sentence:
        out.append(f"Shadow errors: {sentence}.")
    return out if out[-1] else out[:-1]


def csv_columns(shadow: dict[str, Any]) -> list[str]:
    """The CSV's shadow columns: each policy's figures (shadow_<digest prefix>_...), then shadow_errors."""
    return [f"shadow_{label(entry['policy_sha256']) if entry['policy_sha256'] else 'no_digest'}_{name}"
            for entry in shadow["policies"] for name in CSV_FIGURES.values()] + ["shadow_errors"]


def csv_cells(shadow: dict[str, Any], week: str | None) -> list[Any]:
    """One week's shadow cells, in csv_columns' order (empty where that policy decided nothing that week)."""
    cells: list[Any] = []
    for entry in shadow["policies"]:
        found: dict[str, Any] = next((row for row in entry["weeks"] if row["week"] == week), {})
        cells += [found.get(key) for key in CSV_FIGURES]
    errors = next((row["attempts"] for row in shadow["errors"]["weeks"] if row["week"] == week), None)
    return cells + [errors]
