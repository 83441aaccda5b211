"""Data health: what was read, what could not be used, what has no week."""

import streamlit as st

from lanelog import queries
from lanelog.dashboard import data, health_tables, present, ui

st.title("Data health")
f = ui.figures(queries.sources, queries.rejected_lines, queries.type_anomalies, queries.undated,
               queries.undated_counts, queries.undated_outcomes)

st.subheader("Files ingested")
listing_known = data.lake_dir() is None  # a lake does not carry the bucket listings ingest made
states = health_tables.source_states(f["sources"], listing_known)
gone, demo, unlisted = (states.count(state) for state in (health_tables.FILE_GONE, health_tables.DEMO_GONE,
                                                          health_tables.NOT_IN_BUCKET))
if gone:
    st.caption(f"{gone} of these files are no longer at their recorded path (moved, deleted, or read on "
               "another machine): \"still there\" says which. Their lines stay in the database.")
if unlisted:
    st.caption(f"{present.plural(unlisted, 'log was', 'logs were')} not in the bucket when ingest last listed "
               f"it (deleted or moved since): \"still there\" says which. {'Its' if unlisted == 1 else 'Their'} "
               "lines stay in the database.")
if demo:
    st.caption(f"{present.plural(demo, 'file was', 'files were')} the demo's temporary logs, removed when "
               "`lanelog demo` finished, as it always does (keep them with `lanelog demo --out DIR`); "
               "their lines stay in the database. Nothing is wrong.")
if health_tables.NOT_CHECKED in states:
    st.caption("A log read from a bucket is not checked here: the lake does not carry the listing ingest "
               "made; the database it was exported from does.")
st.caption("What each log's lines became: attempts, outcome lines (what became of a pull request, as "
           "`lanelog outcome` writes them; never counted as attempts), lines that were not JSON objects, and "
           "duplicates skipped.")
if f["sources"].empty:
    st.text("none")
else:
    st.dataframe(health_tables.sources_table(f["sources"], listing_known), hide_index=True, key="sources_table",
                 column_config=present.fixed_columns(health_tables.SOURCE_COUNTS))
    with st.expander("Where each file was read from"):
        sources = f["sources"]
        choice = st.selectbox("File", range(len(sources)), key="source_pick",
                              format_func=lambda i: health_tables.source_label(sources.iloc[i]))
        st.dataframe(health_tables.source_place(sources.iloc[choice]), hide_index=True, key="source_places_table",
                     column_config=present.fixed_columns(health_tables.DETAIL_WIDTHS))
        whole = health_tables.cut_path(sources.iloc[choice]["path"])
        if whole is not None:
            st.caption("Path, whole")
            st.code(whole, language=None, wrap_lines=True)

st.subheader("Rejected lines")
st.caption("Lines that were not JSON objects, kept byte for byte; shown as text.")
ui.table(health_tables.rejected_table(f["rejected_lines"]), "rejected_table", health_tables.REJECTED_WIDTHS,
         total=int(f["sources"]["rejected"].sum()))

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
    st.warning(health_tables.out_of_range_text(counts["out_of_range"]), icon=":material/event_busy:")
ui.table(health_tables.undated_table(f["undated"]), "undated_table", health_tables.UNDATED_WIDTHS,
         total=int(counts["undated"]))

st.subheader("Undated outcome lines")
st.caption("Outcome lines without a usable ts (none, a date outside 1970-01-01 to 2199-12-31 UTC, or not a "
           "date): the close falls in no week, so its pull request reads as open and its merge is not judged. "
           "`lanelog ingest` names each one when it runs.")
outcomes = f["undated_outcomes"]
ui.table(health_tables.undated_outcomes_table(outcomes), "undated_outcomes_table",
         health_tables.UNDATED_OUTCOME_WIDTHS, total=int(outcomes["total"].iloc[0]) if len(outcomes) else None)
