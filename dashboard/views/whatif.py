"""What-if: the newest replay stored by `lanelog replay --db`, baseline against candidate."""

import pandas as pd
import streamlit as st

from lanelog.dashboard import charts, present, ui

st.title("What-if")
replay = ui.figures("latest_replay")["latest_replay"]
if replay is None:
    st.info("No replay stored yet. Route history again under a candidate policy and keep the result:")
    # One option a line, so a narrow window never breaks the command inside an option.
    st.code(f"lanelog replay --repo . \\\n  --policy lanes-candidate.yaml \\\n  --commits v1.0..main \\\n"
            f"  {ui.source_option()}", language="bash", wrap_lines=True)
    st.stop()

about = replay["replay"]
st.caption(f"Replay {about['replay_id']}, stored {about['made'][:16].replace('T', ' ')} UTC: "
           f"{about['patches']} patches, {about['skipped']} skipped. The sidebar's filters do not apply here.")
st.dataframe(present.replay_about(about), hide_index=True, key="replay_about",
             column_config=present.fixed_columns(present.REPLAY_ABOUT_WIDTHS))

weeks = present.replay_weeks_frame(replay["weeks"])
columns = st.columns(3)
for column, (measure, words) in zip(columns, present.REPLAY_MEASURES.items()):
    before, after = weeks[f"baseline_{measure}"].sum(), weeks[f"candidate_{measure}"].sum()
    column.metric(f"{words} (candidate)", present.number(after),
                  delta=present.number(after - before), delta_color="off",
                  help=f"Baseline: {present.number(before)}.")

measure = st.segmented_control(
    "Measure", list(present.REPLAY_MEASURES), default="rejects", key="whatif_measure",
    format_func=present.REPLAY_MEASURES.__getitem__,
) or "rejects"
st.subheader(f"{present.REPLAY_MEASURES[measure]} per week: baseline and candidate")
st.altair_chart(charts.replay_weeks(weeks, measure, present.REPLAY_MEASURES[measure].lower()), key="replay_weeks")

flips = pd.DataFrame(replay["flips"])
st.subheader(f"Patches whose probe flips ({len(flips)})")
if flips.empty:
    st.success("No patch changes its probe under the candidate.")
else:
    st.caption("Commits by git's short id; \"probe\" is the baseline's, then the candidate's, and \"reasons\" "
               "are the rejecting side's. The selected flip below, and the CSV, hold every value whole.")
    shown = present.flips_shown(flips)
    st.dataframe(shown, hide_index=True, key="replay_flips", height=present.table_height(len(shown)),
                 column_config=present.fixed_columns(present.FLIP_WIDTHS))
    st.download_button("Download CSV", present.csv_bytes(present.flips_table(flips, whole=True)),
                       file_name="replay-flips.csv", mime="text/csv", key="replay_flips_csv")
    whole = present.flips_table(flips, whole=True)
    commits, subjects = [str(value) for value in whole["commit"]], [str(value) for value in whole["subject"]]
    choice = st.selectbox("Flip", range(len(whole)), key="replay_flip_pick",
                          format_func=lambda i: f"{commits[i][:present.SHORT_COMMIT]} · "
                                                f"{present.short(subjects[i], 60)}")
    st.dataframe(present.flip_detail(whole.iloc[choice]), hide_index=True, key="replay_flip_detail",
                 column_config=present.fixed_columns(present.DETAIL_WIDTHS))
