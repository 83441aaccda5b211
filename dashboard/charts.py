"""Altair charts for the pages. Presentation only: every number comes from a query result.

Weeks are drawn as ordinal bands, one per week of the range the sidebar selects
(clipped to the weeks that hold attempts) with every week between (a week without
attempts is an empty band, drawn as zero, never left out), and the undated bucket
last, so it is never dropped. A span longer than MAX_AXIS_WEEKS (a stray old date
among this year's lines) keeps only the weeks that hold attempts, so no page steps
through centuries of empty weeks. Tick labels thin out with the span: every week up
to 16 weeks, the first week of each month up to 60, the first week of each quarter beyond.
"""

from __future__ import annotations

import itertools
from datetime import date, timedelta
from typing import Any

import altair as alt
import pandas as pd

from lanelog.money import amount_text
from lanelog.queries import label
from lanelog.reasons import REASONS
from lanelog.reasons import words as reason_words

ALERT = "#d62728"  # the one alarm colour: weeks with a credit bug
NEUTRAL = "#9aa4b1"  # quiet weeks, quarantine without credit
REJECT = "#8c6bb1"
ARMED = "#1f77b4"
RATIO = "#ff7f0e"
# Lane outcomes in the words the pages show (present.LANE_WORDS turns the stored values into these).
LANE_COLOURS = {"hold": "#2ca02c", "fail": "#8c564b", "unresolved": "#e7ba52", "not started": "#c7c7c7",
                "no call armed": "#f7b6d2"}
# A legend's title for each part a stack is split by.
PART_WORDS = {"repo": "repository"}
CREDIT_BUG, CLEAN = "credit bug", "no credit bug"
# Tableau 20 without its two reds: parts of a stack (reasons, properties, repos) are not alerts.
CATEGORIES = [
    "#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f", "#8cd17d", "#b6992d", "#f1ce63", "#499894",
    "#86bcb6", "#79706e", "#bab0ac", "#d37295", "#fabfd2", "#b07aa1", "#d4a6c8", "#9d7660", "#d7b5a6",
]


def week_label(week: Any) -> str:
    """A week's label: its Monday as YYYY-MM-DD, or "undated" for the undated bucket."""
    if week is None or pd.isna(week):
        return "undated"
    return pd.Timestamp(week).date().isoformat()


def labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose `week` column holds labels, keeping the query's row order."""
    out = frame.copy()
    out["week"] = [week_label(week) for week in frame["week"]]
    return out


# A weekly chart's height is its whole height (Streamlit fits the chart to it): the plotting
# area, the week axis below it (rotated labels and title), and the legend's rows under that.
PLOT_HEIGHT = 240
AXIS_HEIGHT = 100
LEGEND_ROW = 22


def count_axis() -> alt.Axis:
    """A y axis of counts: whole-number ticks only, written as whole numbers (never 0.5 attempts)."""
    return alt.Axis(tickMinStep=1, format="d")


def chart_height(legend_rows: int) -> int:
    """The whole height of a weekly chart whose legend below the axis has `legend_rows` rows."""
    return PLOT_HEIGHT + AXIS_HEIGHT + LEGEND_ROW * (legend_rows + 1)
# The freeze heatmap writes each cell's count up to this many weeks; wider, a cell is too narrow.
HEATMAP_COUNTS_UP_TO = 26
# A weekly axis labels every week of a span up to this many weeks (week_ticks).
EVERY_WEEK_LABELLED = 16
# Half the main column draws this many weeks as readable bars, each week labelled (upright,
# a line's height apart) beside the two y axes of the rejects chart, in a 1000 px window; a
# longer range puts each weekly chart across the whole column (ui.chart_columns).
HALF_WIDTH_WEEKS = 12
# Patch rejects and armed calls stand side by side up to this many weeks; past it, stacked,
# one bar a week, so a bar stays several pixels wide over a year or more.
SIDE_BY_SIDE_WEEKS = 26
# A ratio from a week with fewer patch rejects than this says nothing: it is not drawn.
RATIO_MIN_REJECTS = 5


# About ten years of weekly bands: past it, an axis holds only the weeks with attempts.
MAX_AXIS_WEEKS = 530


def week_range(first: date, last: date, held: list[str]) -> list[str]:
    """Every Monday from `first` to `last` as labels; over MAX_AXIS_WEEKS, the `held` weeks between them."""
    if first > last:
        return []
    if (last - first).days // 7 + 1 > MAX_AXIS_WEEKS:
        return [week for week in held if first.isoformat() <= week <= last.isoformat()]
    return [(first + timedelta(weeks=step)).isoformat() for step in range((last - first).days // 7 + 1)]


def all_weeks(labels: set[str], weeks: list[str] | None = None) -> list[str]:
    """The axis: `weeks` (the selected range's Mondays) or every Monday from the first dated
    label to the last, any other dated label in order, then "undated" if present."""
    dated = sorted(labels - {"undated"})
    if weeks is None:
        weeks = week_range(date.fromisoformat(dated[0]), date.fromisoformat(dated[-1]), dated) if dated else []
    extra = sorted(set(dated) - set(weeks))
    order = sorted([*weeks, *extra]) if extra else list(weeks)
    return order + (["undated"] if "undated" in labels else [])


def week_ticks(weeks: list[str]) -> list[str]:
    """The week labels an axis shows: all of a short span, month or quarter starts of a long one."""
    dated = [week for week in weeks if week != "undated"]
    if len(dated) <= EVERY_WEEK_LABELLED:
        shown = dated
    else:
        months = (1, 4, 7, 10) if len(dated) > 60 else tuple(range(1, 13))
        shown = [week for week in dated if int(week[8:]) <= 7 and int(week[5:7]) in months]
        shown = shown or dated[:1]
    return shown + [week for week in weeks if week == "undated"]


# Week labels slant up to this many; more stand upright, a line's height apart (slanted,
# a label is about 50 px wide, and half a column would drop all but every third or fourth).
# Up to EVERY_WEEK_LABELLED every label is drawn; past it, the month or quarter starts are,
# and any that would overlap are left out.
SLANTED_LABELS = 4


def week_axis(frame: pd.DataFrame, weeks: list[str] | None) -> alt.X:
    """The week axis every weekly chart draws (its `week` column holds labels)."""
    order = all_weeks(set(frame["week"]), weeks)
    ticks = week_ticks(order)
    return alt.X(
        "week:O", sort=order, scale=alt.Scale(domain=order), title="week (Monday, UTC)",
        axis=alt.Axis(values=ticks, labelAngle=-40 if len(ticks) <= SLANTED_LABELS else -90,
                      labelOverlap=len(ticks) > EVERY_WEEK_LABELLED and "greedy"),
    )


def rejects_vs_armed(weekly: pd.DataFrame, weeks: list[str] | None = None) -> alt.LayerChart | alt.FacetChart:
    """Patch rejects (the gate at work) and armed calls side by side per week, with armed calls per patch reject.

    The ratio's line joins only weeks with at least RATIO_MIN_REJECTS patch rejects (a week of
    one reject and three calls would draw a spike that means nothing); a week of fewer is a
    hollow point of its own (ratio_layers).
    Setup rejects (CI could not judge the patch) are left out of the bars and of the ratio:
    the overview flags them apart, as a CI problem.
    """
    frame = labelled(weekly)
    series = [label("patch_rejects"), label("calls_armed")]
    ratio_name = label("armed_per_reject")
    ratios = frame[frame["patch_rejects"] >= RATIO_MIN_REJECTS]
    # One colour scale for bars and line, so one legend names every series drawn; it sits
    # below the chart, one entry a row, so half a page never cuts an entry off.  Without a
    # week of enough patch rejects there is no line, and no legend entry or axis for it.
    drawn = [*series, ratio_name] if not ratios.empty else series
    colours = alt.Scale(domain=drawn, range=[REJECT, ARMED, RATIO][:len(drawn)])
    bars_data = frame.rename(columns={"patch_rejects": series[0], "calls_armed": series[1]}).melt(
        id_vars=["week"], value_vars=series, var_name="figure", value_name="count"
    )
    bars_data["order"] = [series.index(name) for name in bars_data["figure"]]
    side_by_side = len(all_weeks(set(frame["week"]), weeks)) <= SIDE_BY_SIDE_WEEKS
    # A patch reject arms no call, so past SIDE_BY_SIDE_WEEKS the two stack into one bar of
    # disjoint parts, each still read against the same attempts axis.
    offset = {"xOffset": alt.XOffset("figure:N", sort=series)} if side_by_side else {}
    bars = (
        alt.Chart(bars_data)
        .mark_bar()
        .encode(
            x=week_axis(frame, weeks),
            **offset,
            y=alt.Y("count:Q", title="attempts", axis=count_axis(), stack=None if side_by_side else "zero"),
            order=alt.Order("order:Q"),
            color=alt.Color("figure:N", scale=colours,
                            legend=alt.Legend(title=None, orient="bottom", columns=1, symbolType="square",
                                              labelLimit=260)),
            tooltip=[alt.Tooltip("week:O", title="week"), alt.Tooltip("figure:N", title="figure"),
                     alt.Tooltip("count:Q", title="attempts")],
        )
    )
    if ratios.empty:
        return alt.layer(bars).properties(height=chart_height(legend_rows=2))
    ratio = ratio_layers(frame, ratios, weeks, colours)
    return alt.layer(bars, ratio).resolve_scale(y="independent", color="shared").properties(
        height=chart_height(legend_rows=3))


def ratio_layers(frame: pd.DataFrame, ratios: pd.DataFrame, weeks: list[str] | None,
                 colours: alt.Scale) -> alt.Chart | alt.LayerChart | alt.FacetChart:
    """Armed calls per patch reject: a line through the weeks of `ratios` (at least RATIO_MIN_REJECTS patch
    rejects) that joins only weeks next to each other on the axis, so a week left out (too few patch
    rejects, or none) breaks it; a week of fewer patch rejects is a hollow point of its own, never joined."""
    ratio_name, rejects = label("armed_per_reject"), label("patch_rejects")
    order = all_weeks(set(frame["week"]), weeks)
    runs = ratios.assign(run=[order.index(week) - rank for rank, week in enumerate(ratios["week"])])
    rough = frame[(frame["patch_rejects"] > 0) & (frame["patch_rejects"] < RATIO_MIN_REJECTS)
                  & frame["armed_per_reject"].notna()]

    def drawn(mark: alt.Chart) -> alt.Chart:
        return mark.transform_calculate(line=f"'{ratio_name}'").encode(
            x=week_axis(frame, weeks),
            y=alt.Y("armed_per_reject:Q", title=ratio_name),
            color=alt.Color("line:N", scale=colours, legend=None),
            tooltip=[alt.Tooltip("week:O", title="week"),
                     alt.Tooltip("armed_per_reject:Q", format=".2f", title=ratio_name),
                     alt.Tooltip("patch_rejects:Q", title=rejects)],
        )

    line = drawn(alt.Chart(runs).mark_line(point=alt.OverlayMarkDef(filled=True, size=40))).encode(detail="run:N")
    if rough.empty:
        return line
    # The line and the hollow points share one axis (the bars have theirs).
    return alt.layer(line, drawn(alt.Chart(rough).mark_point(filled=False, size=40)))


def credit_bug_weeks(weekly: pd.DataFrame, weeks: list[str] | None = None) -> alt.LayerChart | alt.FacetChart:
    """Credit bugs per week; a week with any credit bug is drawn in the alert colour.

    No legend: a clean week is a bar of height zero, so a grey "no credit bug" entry would
    name nothing drawn; the page's heading says what the red bars are.  The chart is as
    tall as its neighbour, so the rotated week labels sit below the bars, not over them.
    """
    frame = labelled(weekly)[["week", "credit_bugs_total", "quarantined"]]
    frame["status"] = [CREDIT_BUG if count > 0 else CLEAN for count in frame["credit_bugs_total"]]
    base = alt.Chart(frame).encode(x=week_axis(frame, weeks))
    bars = base.mark_bar().encode(
        y=alt.Y("credit_bugs_total:Q", title="credit bugs", axis=count_axis()),
        color=alt.Color(
            "status:N",
            scale=alt.Scale(domain=[CLEAN, CREDIT_BUG], range=[NEUTRAL, ALERT]),
            legend=None,
        ),
        tooltip=[alt.Tooltip("week:O", title="week"), alt.Tooltip("credit_bugs_total:Q", title="credit bugs"),
                 alt.Tooltip("quarantined:Q", title="quarantined")],
    )
    # The count over each week with credit bugs; a row of zeros over clean weeks says nothing.
    counts = base.transform_filter(alt.datum.credit_bugs_total > 0).mark_text(dy=-8).encode(
        y=alt.Y("credit_bugs_total:Q"),
        text=alt.Text("credit_bugs_total:Q"),
        color=alt.Color("status:N", scale=alt.Scale(domain=[CLEAN, CREDIT_BUG], range=[NEUTRAL, ALERT]), legend=None),
    )
    return alt.layer(bars, counts).properties(height=chart_height(legend_rows=0))


def stacked_weeks(frame: pd.DataFrame, value: str, part: str, title: str,
                  colours: dict[str, str] | None = None, legend_columns: int = 1,
                  weeks: list[str] | None = None, money: bool = False) -> alt.Chart:
    """A stacked bar per week: `value` split by `part` (reason, lane, property, repo).

    `legend_columns`: 1 for a chart in half a page, more for a full-width one.  `money`: the
    value is an amount (decimal ticks, the tooltip's amount as lanelog.money writes it), not a count.
    `colours` fixes the colour of known parts; any other part present (say, lines
    written before lanes existed, shown as "(none)") gets one from CATEGORIES.
    """
    data = labelled(frame)
    data[part] = data[part].fillna("(none)").astype(str)
    if part == "reason":  # each reason in words, with its one-line meaning, in the docs' words
        data["meaning"] = [REASONS.get(reason, "not a reason lanelog writes") for reason in data[part]]
        data[part] = [reason_words(reason) for reason in data[part]]
    present = set(data[part])
    fixed = {name: colour for name, colour in (colours or {}).items() if name in present}
    others = sorted(present - set(fixed))
    palette = dict(fixed, **dict(zip(others, itertools.cycle(CATEGORIES))))
    colour = alt.Color(
        f"{part}:N",
        scale=alt.Scale(domain=list(palette), range=list(palette.values())),
        # Below the chart, so a chart in half a page keeps its width for the weeks.
        legend=alt.Legend(title=PART_WORDS.get(part, part), orient="bottom", columns=legend_columns,
                          labelLimit=240),
    )
    if money:  # an amount as every page writes it (lanelog.money), never a format of the chart's own
        data["amount"] = [amount_text(amount) if pd.notna(amount) else "-" for amount in data[value]]
    tooltip = [alt.Tooltip("week:O", title="week"), alt.Tooltip(f"{part}:N", title=PART_WORDS.get(part, part)),
               alt.Tooltip("amount:N", title=title) if money else alt.Tooltip(f"{value}:Q", title=title)]
    if part == "reason":
        tooltip.append(alt.Tooltip("meaning:N", title="meaning"))
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=week_axis(data, weeks),
            y=alt.Y(f"{value}:Q", title=title, stack="zero", axis=alt.Axis() if money else count_axis()),
            color=colour,
            tooltip=tooltip,
        )
        .properties(height=chart_height(legend_rows=-(-len(palette) // legend_columns) + 1))
    )


def freeze_heatmap(freezes: pd.DataFrame, weeks: list[str] | None = None) -> alt.LayerChart | alt.FacetChart:
    """Attempts each freeze touched per week, each cell labelled with its count.

    A neutral blue scale that starts visibly above white (a freeze is not an alert,
    and a cell of one attempt must not vanish), with the count written in the cell.
    """
    data = labelled(freezes)
    base = alt.Chart(data).encode(
        x=week_axis(data, weeks),
        y=alt.Y("quarantine_id:N", title="freeze", axis=alt.Axis(labelLimit=260)),
    )
    cells = base.mark_rect(stroke="white").encode(
        color=alt.Color("attempts:Q", scale=alt.Scale(scheme="blues", domainMin=0, type="linear",
                                                      range=["#c6dbef", "#08306b"]),
                        title="attempts"),
        tooltip=[alt.Tooltip("quarantine_id:N", title="freeze"), alt.Tooltip("week:O", title="week"),
                 alt.Tooltip("attempts:Q", title="attempts")],
    )
    if not heatmap_counts_fit(freezes, weeks):
        return alt.layer(cells)  # cells too narrow for a number: the tooltip gives each count
    counts = base.mark_text(fontSize=12).encode(
        text="attempts:Q",
        color=alt.condition(alt.datum.attempts >= data["attempts"].max() / 2, alt.value("white"), alt.value("black")),
    )
    return alt.layer(cells, counts)


def heatmap_counts_fit(freezes: pd.DataFrame, weeks: list[str] | None = None) -> bool:
    """Whether the heatmap's cells are wide enough to carry their counts (up to HEATMAP_COUNTS_UP_TO weeks)."""
    return len(all_weeks(set(labelled(freezes)["week"]), weeks)) <= HEATMAP_COUNTS_UP_TO


def heatmap_height(freezes: pd.DataFrame) -> int:
    """Pixels for the freeze heatmap: a readable row per quarantine id, plus the week axis."""
    return 110 + 36 * max(1, freezes["quarantine_id"].nunique())


def unresolved_units(frame: pd.DataFrame, weeks: list[str] | None = None) -> alt.Chart:
    """Units spent per week on lanes that ended unresolved: spend that bought no result."""
    data = labelled(frame)
    return (
        alt.Chart(data)
        .mark_bar(color=LANE_COLOURS["unresolved"])
        .encode(
            x=week_axis(data, weeks),
            y=alt.Y("units:Q", title="units on unresolved lanes", axis=count_axis()),
            tooltip=[
                alt.Tooltip("week:O", title="week"), alt.Tooltip("units:Q", title="units"),
                alt.Tooltip("unresolved:Q", title="unresolved lanes"), alt.Tooltip("lanes_run:Q", title="lanes run"),
                alt.Tooltip("unresolved_share:Q", format=".0%", title="unresolved share"),
            ],
        )
    )


BASELINE, CANDIDATE = "#9aa4b1", "#1f77b4"


def replay_weeks(weeks: pd.DataFrame, measure: str, title: str) -> alt.Chart:
    """A stored replay per week: the baseline's and the candidate's `measure` side by side.

    `weeks` holds the replay's weekly rows (week, baseline_<measure>, candidate_<measure>).
    """
    sides = ["baseline", "candidate"]
    frame = labelled(weeks)
    data = frame.rename(columns={f"{side}_{measure}": side for side in sides}).melt(
        id_vars=["week"], value_vars=sides, var_name="policy", value_name="value")
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=week_axis(frame, None),
            xOffset=alt.XOffset("policy:N", sort=sides),
            y=alt.Y("value:Q", title=title, axis=count_axis()),
            color=alt.Color("policy:N", scale=alt.Scale(domain=sides, range=[BASELINE, CANDIDATE]),
                            legend=alt.Legend(title=None, orient="bottom", columns=2)),
            tooltip=[alt.Tooltip("week:O", title="week"), alt.Tooltip("policy:N", title="policy"),
                     alt.Tooltip("value:Q", title=title)],
        )
        .properties(height=chart_height(legend_rows=1))
    )
