"""Small presentation helpers shared by the pages: labels, deltas, tables, CSV."""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from typing import Any, Literal

import numpy as np
import pandas as pd
import streamlit as st
from PIL import Image

from lanelog.dashboard.charts import labelled
from lanelog.money import amount_text, exact
from lanelog.queries import CREDIT_COUNTS, TABLE, WEEKLY, Comparison, label
from lanelog.reasons import REASONS, kind
from lanelog.spreadsheet import defused

# The overview's metrics, in the order of the report's JSON keys, in the report's words.
# Patch rejects, not all probe rejects, beside armed calls: a setup reject says CI is
# broken, and the overview flags those apart.
METRICS = [(figure.key, figure.title) for figure in WEEKLY if figure.metric]
# How a metric's change is coloured, by which way its figure is worse (red when it grows worse).
DELTA_COLOURS: dict[str | None, Literal["inverse", "normal", "off"]] = {"up": "inverse", "down": "normal", None: "off"}


def delta_colour(key: str) -> Literal["inverse", "normal", "off"]:
    """The colour of a metric's change: red the way its figure is worse, grey when neither way is."""
    figure = TABLE.get(key)
    return DELTA_COLOURS[figure.worse if figure is not None else None]


def favicon() -> Image.Image:
    """A 32x32 icon drawn here, so the browser fetches nothing from outside: three bars of a week."""
    icon = np.full((32, 32, 3), 245, dtype=np.uint8)
    for left, height, colour in ((4, 14, (140, 107, 177)), (13, 22, (31, 119, 180)), (22, 8, (214, 39, 40))):
        icon[30 - height:30, left:left + 6] = colour
    return Image.fromarray(icon)


def alert_text(credit_bugs: int, on_triage: bool = False, merges: int = 0) -> str:
    """The red banner: lines with merge credit on a quarantined attempt, and pull requests merged over a
    live quarantine nobody said may go; on the triage page itself the rows are right below it."""
    total = credit_bugs + merges
    noun = "credit bug" if total == 1 else "credit bugs"
    where = "The rows are below." if on_triage else "Open Credit-bug triage for the rows."
    lines = "merge credit was set on quarantined attempts" if credit_bugs else ""
    merged = (f"{plural(merges, 'pull request')} merged over a live quarantine nobody said may go"
              if merges else "")
    if lines and merged:
        lines = f"merge credit was set on {plural(credit_bugs, 'quarantined attempt')}"
    return f"{total} {noun} in range: {', and '.join(part for part in (lines, merged) if part)}. {where}"


def setup_text(setup_rejects: int) -> str:
    """The overview's note on setup rejects: a CI problem to fix, not the gate at work."""
    noun = "setup reject" if setup_rejects == 1 else "setup rejects"
    return (
        f"{setup_rejects} {noun} in range: CI could not judge these patches (no checkout, a missing "
        "ref, an unusable policy or flaky list). Fix the CI set-up; they are counted apart from "
        "patch rejects. The Probe page lists them."
    )


def split_reasons(reasons: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The reject-reason rows of setup reasons, and those of patch reasons (a reject with none is a patch one)."""
    is_setup = reasons["reason"].map(lambda reason: isinstance(reason, str) and kind(reason) == "setup")
    return reasons[is_setup].reset_index(drop=True), reasons[~is_setup].reset_index(drop=True)


NO_REASON = "(none recorded)"  # a probe reject whose line lists no reason


def reason_table(reasons: pd.DataFrame) -> pd.DataFrame:
    """One row per reason in range: its kind, its count, and what it means, in the docs' words."""
    totals = reasons.assign(reason=reasons["reason"].fillna(NO_REASON)).groupby(
        "reason", as_index=False).agg(attempts=("attempts", "sum"))
    totals["kind"] = [kind(reason) if reason in REASONS else "patch" for reason in totals["reason"]]
    totals["meaning"] = [REASONS.get(reason, "the line records no reason") for reason in totals["reason"]]
    ordered = totals.sort_values(["kind", "attempts", "reason"], ascending=[False, False, True])
    return ordered.rename(columns={"attempts": "probe rejects"})[["kind", "reason", "probe rejects", "meaning"]]


def freeze_hygiene(owners: pd.DataFrame, today: date) -> pd.DataFrame:
    """Who to ask about each freeze and what is about to lapse: owner, expiry, days left."""
    rows = []
    for freeze, owner, expires in owners[["quarantine_id", "owner", "expires"]].itertuples(index=False):
        day = pd.Timestamp(expires).date() if pd.notna(expires) else None
        if day is None:
            left = "not recorded"
        elif day < today:
            left = f"lapsed {plural((today - day).days, 'day')} ago"
        elif day == today:
            left = "lapses today"
        else:
            left = f"{plural((day - today).days, 'day')} left"
        rows.append({"freeze": freeze, "owner": owner if isinstance(owner, str) else "not recorded",
                     "expires": day.isoformat() if day else "not recorded", "days left": left})
    return pd.DataFrame(rows, columns=["freeze", "owner", "expires", "days left"])


FREEZE_WIDTHS = {"freeze": 120, "held": 50, "first held": 110, "last held": 110, "reported expired": 100}


def freeze_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The freezes summary in words: "never" for an id no attempt was held by, times to the minute."""
    def when(value: Any) -> str:
        return "never" if value is None or pd.isna(value) else pd.Timestamp(value).strftime("%Y-%m-%d %H:%M")

    return pd.DataFrame({
        "freeze": summary["quarantine_id"],
        "held": summary["attempts"],
        "first held": [when(value) for value in summary["first_seen"]],
        "last held": [when(value) for value in summary["last_seen"]],
        "reported expired": summary["expired_reports"],
    })


def plural(count: int | float | str, noun: str, nouns: str | None = None) -> str:
    """"1 attempt", "2 attempts": a count with its noun in the number it takes."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


# Lane outcomes as the pages say them: the stored value is the log's word.
LANE_WORDS = {"not_started": "not started", "no_call_armed": "no call armed"}


NO_LANE = "no lane recorded"


def lane_words(lanes: pd.DataFrame) -> pd.DataFrame:
    """Lane outcome rows with each lane in words ("not started"; "no lane recorded" for a line without one)."""
    out = lanes.copy()
    out["lane"] = [NO_LANE if not isinstance(lane, str) else LANE_WORDS.get(lane, lane) for lane in lanes["lane"]]
    return out


def worded(frame: pd.DataFrame, shares: tuple[str, ...] = ()) -> pd.DataFrame:
    """A query's rows for a table: weeks as labels, lists as text, shares as percentages, and
    every column headed in words ("calls_armed" -> "armed calls"), never a stored name."""
    out = flat(frame)
    for column in shares:
        out[column] = [f"{value:.0%}" if isinstance(value, float) and not np.isnan(value) else "n/a"
                       for value in out[column]]
    return out.rename(columns={column: label(column) for column in out.columns})


def fixed_columns(widths: dict[str, int]) -> dict[str, Any]:
    """Column settings of fixed pixel widths: a table that never runs past the main column."""
    return {name: st.column_config.Column(width=width) for name, width in widths.items()}


def producers_table(producers: pd.DataFrame) -> pd.DataFrame:
    """Every attempt accounted for by producer: probe rejects, armed calls and neither (words as headers)."""
    return producers.rename(columns={"probe_rejects": "probe rejects", "armed": "armed calls"})


def number(value: Any) -> int | float | str:
    if value is None:
        return "n/a"
    return int(value) if float(value).is_integer() else round(float(value), 2)


def delta(comparison: Comparison, key: str) -> int | float | None:
    """The change against the week compared with, rounded for a metric; None when there is none."""
    change = comparison.change(key)
    return round(change, 2) if isinstance(change, float) else change


def week_cost(money: dict[str, Any], comparison: Comparison) -> tuple[str, str, str | None]:
    """The compared week's cost as the Overview's metric shows it: its label (with the currency, so the
    amount fits a quarter of a 1000 px window), the amount (or "none" when nothing recorded one), and
    the change on the week before, only within one currency."""
    def row(week: dict[str, Any] | None) -> dict[str, Any]:
        key = week["week"] if week is not None else "none"
        return next((item for item in money["weeks"] if item["week"] == key), {})

    now, then = row(comparison.latest), row(comparison.before)
    if now.get("cost") is None:
        return "Cost", "none", None
    currency = now["currency"]
    label, shown = f"Cost ({currency})", amount_text(now["cost"])
    if then.get("cost") is None or then.get("currency") != currency:
        return label, shown, None
    delta = exact(now["cost"]) - exact(then["cost"])
    return label, shown, ("+" if delta >= 0 else "-") + amount_text(abs(delta))


def week_cost_note(money: dict[str, Any], comparison: Comparison) -> str:
    """What the Cost metric's help says: what it is, and why there is none when there is none."""
    key = comparison.latest["week"] if comparison.latest is not None else "none"
    now: dict[str, Any] = next((item for item in money["weeks"] if item["week"] == key), {})
    why = f" This week: {now.get('note') or 'no usage recorded'}." if now.get("cost") is None else ""
    return ("What the week's armed calls cost, from the usage their runs recorded, against the week compared "
            "with (in the same currency). The Spend review splits it by property and repository." + why)


# A day as YYYY-MM-DD, whose hyphens a narrow column would break a heading at.
_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
NON_BREAKING_HYPHEN = "\u2011"


def unbroken(heading: str) -> str:
    """A heading whose dates never break across lines: each YYYY-MM-DD written with non-breaking hyphens."""
    return _DAY.sub(lambda day: NON_BREAKING_HYPHEN.join(day.groups()), heading)


def range_caption(report: dict[str, Any]) -> str:
    totals = report["totals"]
    dated = [row["week"] for row in report["weeks"] if row["week"]]
    span = f"{dated[0]} to {dated[-1]}" if dated else "no dated weeks"
    undated = " plus undated attempts" if any(row["week"] is None for row in report["weeks"]) else ""
    return (
        f"In range (weeks {span}{undated}): {plural(totals['attempts'], 'attempt')}, "
        f"{plural(totals['probe_rejects'], 'probe reject')} ({totals['patch_rejects']} patch, "
        f"{totals['setup_rejects']} setup), {plural(totals['calls_armed'], 'armed call')}, "
        f"{plural(totals['credit_bugs_total'], 'credit bug')}, {plural(number(totals['units']), 'unit')}."
    )


def weeks_frame(report: dict[str, Any]) -> pd.DataFrame:
    """The report's weekly rows as a frame (week: YYYY-MM-DD, or None for the undated bucket): every
    weekly figure (queries.WEEKLY), so a figure added there is never dropped here."""
    computed = [figure.key for figure in WEEKLY if figure.source != "credit"]
    return pd.DataFrame(report["weeks"], columns=["week", *computed, *CREDIT_COUNTS])


# The overview's weekly figures, as two tables (each record's `overview`): the rejects, then the calls, spend
# and credit.
WEEKLY_TABLES = tuple(tuple(figure.key for figure in WEEKLY if figure.overview == table) for table in (0, 1))


def weekly_table(weekly: pd.DataFrame, keys: tuple[str, ...]) -> pd.DataFrame:
    """Some of the weekly figures as the overview's table shows them: a row a week, words as
    headers, the ratio to two places ("-" where it is undefined)."""
    out = worded(weekly[["week", *keys]])
    for key in keys:
        if TABLE[key].format == "ratio":
            out[label(key)] = ["-" if value is None or pd.isna(value) else f"{value:.2f}" for value in weekly[key]]
        elif TABLE[key].format == "number":
            out[label(key)] = [str(number(value)) for value in weekly[key]]
    return out.set_index(label("week"))


def _texty(column: pd.Series) -> bool:
    return pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)


def flat(frame: pd.DataFrame) -> pd.DataFrame:
    """Lists as "a; b" text and weeks as labels, for tables and CSV."""
    out = labelled(frame) if "week" in frame else frame.copy()
    for column in out.columns:
        if _texty(out[column]):
            out[column] = [
                "; ".join(str(item) for item in value) if isinstance(value, (list, tuple, np.ndarray)) else value
                for value in out[column]
            ]
    return out


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """CSV of a table of log content, with text cells defused for spreadsheets.

    Rows end in CRLF (RFC 4180), so the csv writer quotes every field holding a
    carriage return or a line feed: no field can start a row of its own.
    """
    out = flat(frame)
    for column in out.columns:
        if _texty(out[column]):
            out[column] = [defused(value) if isinstance(value, str) else value for value in out[column]]
    buffer = io.StringIO(newline="")
    out.to_csv(buffer, index=False, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    return buffer.getvalue().encode("utf-8")
