"""What-if: stored replays (`replay --db`) and the live shadow (`route --shadow`), baseline against candidate."""

from typing import Any

import pandas as pd
import streamlit as st

from lanelog import queries
from lanelog.dashboard import cells, charts, data, health_tables, live_shadow, present, ui, whatif_tables
from lanelog.errors import DatabaseLocked, LanelogError

st.title("What-if")


def stored_replay() -> None:
    """A stored replay, chosen among them (newest first): what it replayed, its weeks and its flips."""
    listed = ui.figures(data.replay_list)["replay_list"]
    if not listed:
        st.info("No replay stored yet. Route history again under a candidate policy and keep the result:")
        # One option a line, so a narrow window never breaks the command inside an option.
        st.code(f"lanelog replay --repo . \\\n  --policy lanes-candidate.yaml \\\n  --baseline lanes.yaml \\\n"
                f"  --commits v1.0..main \\\n  {ui.source_option()}", language="bash", wrap_lines=True)
        return
    by_id = {row["replay_id"]: row for row in listed}
    chosen = st.selectbox(
        "Replay", list(by_id), key="replay_pick",
        format_func=lambda rid: whatif_tables.replay_label(by_id[rid]),
        help="Stored replays, newest first.")
    try:
        replay = data.replay(chosen)
    except DatabaseLocked:
        st.info("Ingest in progress: the replay shows when it finishes (press Refresh).")
        return
    except LanelogError as error:
        st.error("The database cannot be read.")
        st.text(str(error))
        return
    if replay is None:  # removed since the list was read
        st.info("That replay is no longer stored: press Refresh.")
        return
    about = replay["replay"]
    st.caption(f"Replay {about['replay_id']}, stored {about['made'][:16].replace('T', ' ')} UTC: "
               f"{about['patches']} patches, {about['skipped']} skipped. The sidebar's filters do not apply here.")
    st.dataframe(whatif_tables.replay_about(about), hide_index=True, key="replay_about",
                 column_config=present.fixed_columns(whatif_tables.REPLAY_ABOUT_WIDTHS))
    replay_weeks(replay)
    replay_flips(replay)


def replay_weeks(replay: dict[str, Any]) -> None:
    """A stored replay's figures on both sides: the totals, then a measure per week."""
    weeks = whatif_tables.replay_weeks_frame(replay["weeks"])
    columns = st.columns(3)
    for column, (measure, words) in zip(columns, whatif_tables.REPLAY_MEASURES.items()):
        before, after = weeks[f"baseline_{measure}"].sum(), weeks[f"candidate_{measure}"].sum()
        column.metric(f"{words} (candidate)", present.number(after),
                      delta=present.number(after - before), delta_color="off",
                      help=f"Baseline: {present.number(before)}.")

    measure = st.segmented_control(
        "Measure", list(whatif_tables.REPLAY_MEASURES), default="rejects", key="whatif_measure",
        format_func=whatif_tables.REPLAY_MEASURES.__getitem__,
    ) or "rejects"
    st.subheader(f"{whatif_tables.REPLAY_MEASURES[measure]} per week: baseline and candidate")
    st.altair_chart(charts.replay_weeks(weeks, measure, whatif_tables.REPLAY_MEASURES[measure].lower()),
                    key="replay_weeks")


def replay_flips(replay: dict[str, Any]) -> None:
    """A stored replay's flips: a table of every one, and the lines of the one chosen."""
    flips = pd.DataFrame(replay["flips"])
    st.subheader(f"Patches whose probe flips ({len(flips)})")
    if flips.empty:
        st.success("No patch changes its probe under the candidate.")
    else:
        st.caption("Commits by git's short id; \"probe\" is the baseline's, then the candidate's, and \"reasons\" "
                   "are the rejecting side's. The selected flip below, and the CSV, hold every value whole.")
        shown = whatif_tables.flips_shown(flips)
        st.dataframe(shown, hide_index=True, key="replay_flips", height=cells.table_height(len(shown)),
                     column_config=present.fixed_columns(whatif_tables.FLIP_WIDTHS))
        ui.more_rows(len(shown), noun="flips")
        st.download_button("Download CSV", present.csv_bytes(whatif_tables.flips_table(flips, whole=True)),
                           file_name="replay-flips.csv", mime="text/csv", key="replay_flips_csv")
        whole = whatif_tables.flips_table(flips, whole=True)
        commits, subjects = [str(value) for value in whole["commit"]], [str(value) for value in whole["subject"]]
        choice = st.selectbox("Flip", range(len(whole)), key="replay_flip_pick",
                              format_func=lambda i: f"{commits[i][:whatif_tables.SHORT_COMMIT]} · "
                                                    f"{cells.short(subjects[i], 60)}")
        st.dataframe(whatif_tables.flip_detail(whole.iloc[choice]), hide_index=True, key="replay_flip_detail",
                     column_config=present.fixed_columns(health_tables.DETAIL_WIDTHS))
        flip_lines(replay["flips"][choice])


def flip_lines(flip: dict[str, Any]) -> None:
    """The lines each side of the chosen flip decided on, as plain text: they come from the commits."""
    sides = whatif_tables.flip_lines(flip)
    if sides is None:
        st.info("No lines stored for this replay: an earlier lanelog stored it without them. Run the "
                "replay again with --db to keep each flip's lines.")
        return
    if not sides:
        st.caption("Neither side's decision rests on lines of this patch (no removed assertion, line cap "
                   "or fixture and test evidence).")
        return
    for side, lines, whole in sides:
        verb = {"reject": "rejects", "pass": "passes"}.get(flip[f"{side}_probe"], "decides")
        if whole:
            st.caption(f"Why the {side} {verb}: the lines it decided on.")
        elif lines:
            st.caption(f"The {side} {verb} on the same lines; what it reads otherwise:")
        else:
            st.caption(f"The {side} {verb} on the same lines.")
            continue
        st.code("\n".join(lines), language=None, wrap_lines=True)


def live() -> None:
    """This week's real patches under the shadow policy CI also decides them by (the sidebar's filters apply)."""
    st.header("Live shadow")
    found = ui.figures(queries.shadow_report, queries.shadow_flips, note=False)
    shadow = found["shadow_report"]
    if shadow is None:
        st.caption("No lane-log line in range was also decided under a shadow policy. Add "
                   "`--shadow lanes-candidate.yaml` to the `lanelog route` step in CI to watch a candidate "
                   "policy decide real patches beside the live one, before it is adopted.")
        return
    errors = shadow["errors"]
    if errors["attempts"]:
        st.warning(live_shadow.errors_words(errors))
    if not shadow["policies"]:
        return
    policies = shadow["policies"]
    choice = 0
    if len(policies) > 1:  # each candidate apart: two policies' figures are never summed
        choice = st.selectbox("Shadow policy", range(len(policies)), key="shadow_policy",
                              format_func=lambda i: live_shadow.policy_label(policies[i]),
                              help="Lines decided under different shadow policy files, told apart by the "
                                   "file's digest, newest first.")
    entry = policies[choice]
    shadow_weeks(entry, multiple=len(policies) > 1)
    shadow_flips([row for row in found["shadow_flips"] if row["shadow_policy"] == entry["policy_sha256"]],
                 entry["totals"])


def shadow_weeks(entry: dict[str, Any], multiple: bool) -> None:
    """One shadow policy's figures beside the live ones: the totals, then a measure per week."""
    totals = entry["totals"]
    st.caption(f"{present.number(totals['attempts'])} attempts in range were also decided under "
               f"{'this' if multiple else 'a'} shadow policy: the live policy is the baseline, the "
               "shadow the candidate. Week by week, then the attempts whose probe would flip.")
    columns = st.columns(3)
    columns[0].metric("Probe rejects (shadow)", present.number(totals["shadow_probe_rejects"]),
                      delta=present.number(totals["shadow_probe_rejects"] - totals["probe_rejects"]),
                      delta_color="off", help=f"Live: {present.number(totals['probe_rejects'])}.")
    columns[1].metric("Armed calls (shadow)", present.number(totals["shadow_calls_armed"]),
                      delta=present.number(totals["shadow_calls_armed"] - totals["calls_armed"]),
                      delta_color="off", help=f"Live: {present.number(totals['calls_armed'])}.")
    columns[2].metric("Would flip", present.number(totals["flips"]),
                      help="Attempts one policy rejects and the other does not.")
    measure = st.segmented_control(
        "Measure", list(live_shadow.MEASURES), default="rejects", key="shadow_measure",
        format_func=live_shadow.MEASURES.__getitem__,
    ) or "rejects"
    weeks = live_shadow.weeks_frame(entry)
    words = live_shadow.MEASURES[measure]
    st.subheader(f"{words} per week: live (baseline) and shadow (candidate)")
    if not weeks.empty:
        st.altair_chart(charts.replay_weeks(weeks, measure, f"{words.lower()}, live and shadow"), key="shadow_weeks")
    st.dataframe(live_shadow.weeks_table(entry), hide_index=True, key="shadow_weeks_table",
                 column_config=present.fixed_columns(live_shadow.WEEK_WIDTHS))


def shadow_flips(flips: list[dict[str, Any]], totals: dict[str, Any]) -> None:
    """The attempts whose probe the shadow would flip: a table, and the detail of the one chosen."""
    st.subheader(f"Attempts whose probe would flip ({totals['flips']})")
    if not flips:
        st.success("The shadow policy decides every attempt in range as the live one does.")
        return
    listed = f"the newest {len(flips)} of {totals['flips']}" if len(flips) < totals["flips"] else "all of them"
    st.caption(f"Live probe → shadow probe, and the reasons of the side that rejects; {listed}. "
               "The flip chosen below, and the CSV, hold full ids, both sides' reasons and the shadow "
               "policy's digest.")
    st.dataframe(live_shadow.flips_table(flips), hide_index=True, key="shadow_flips",
                 height=cells.table_height(len(flips)), column_config=present.fixed_columns(live_shadow.FLIP_WIDTHS))
    ui.more_rows(len(flips), noun="flips")
    choice = st.selectbox("Flip", range(len(flips)), key="shadow_flip_pick",
                          format_func=lambda i: live_shadow.flip_label(flips, i))
    st.dataframe(live_shadow.flip_detail(flips, choice), hide_index=True, key="shadow_flip_detail",
                 column_config=present.fixed_columns(live_shadow.DETAIL_WIDTHS))
    st.download_button("Download CSV", present.csv_bytes(live_shadow.flips_table(flips, whole=True)),
                       file_name="shadow-flips.csv", mime="text/csv", key="shadow_flips_csv")


stored_replay()
live()
