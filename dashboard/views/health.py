"""Data health: what was read, what could not be used, what has no week."""

import streamlit as st

from lanelog.dashboard import present, ui

st.title("Data health")
f = ui.figures("sources", "rejected_lines", "type_anomalies", "undated", "undated_counts")

st.subheader("Files ingested")
paths = list(f["sources"]["path"])
demo = sum(present.file_gone(path) and present.demo_temp(path) for path in paths)
gone = sum(present.file_gone(path) for path in paths) - demo
if gone:
    st.caption(f"{gone} of these files are no longer at their recorded path (moved, deleted, or read on "
               "another machine): \"still there\" says which. Their lines stay in the database.")
if demo:
    st.caption(f"{present.plural(demo, 'file was', 'files were')} the demo's temporary logs, removed when "
               "`lanelog demo` finished, as it always does (keep them with --logs); their lines stay in "
               "the database. Nothing is wrong.")
if f["sources"].empty:
    st.text("none")
else:
    st.dataframe(present.sources_table(f["sources"]), hide_index=True, key="sources_table",
                 column_config=present.fixed_columns(present.SOURCE_COUNTS))
    with st.expander("Where each file was read from"):
        sources = f["sources"]
        choice = st.selectbox("File", range(len(sources)), key="source_pick",
                              format_func=lambda i: present.source_label(sources.iloc[i]))
        st.dataframe(present.source_place(sources.iloc[choice]), hide_index=True, key="source_places_table",
                     column_config=present.fixed_columns(present.DETAIL_WIDTHS))

st.subheader("Rejected lines")
st.caption("Lines that were not JSON objects, kept byte for byte; shown as text.")
ui.table(present.rejected_table(f["rejected_lines"]), "rejected_table", present.REJECTED_WIDTHS)

st.subheader("Type anomalies")
st.caption("Fields whose JSON type was unexpected (a number where text belongs, say). The rows are kept; "
           "each figure still reads the value as the design note's Python reader would: null, false, 0, "
           "\"\", [] and {} count as no, anything else as yes.")
ui.table(present.worded(f["type_anomalies"]), "anomalies_table")

st.subheader("Undated attempts")
st.caption("Attempts without a usable ts: always in scope, counted in their own bucket. \"why\" says "
           "whether the line has no ts, a date outside the supported range (1970-01-01 to 2199-12-31, UTC), "
           "or a value that is not a date.")
counts = f["undated_counts"]
if counts["out_of_range"]:
    st.warning(present.out_of_range_text(counts["out_of_range"]), icon=":material/event_busy:")
ui.table(present.undated_table(f["undated"]), "undated_table", present.UNDATED_WIDTHS)
