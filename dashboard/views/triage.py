"""Credit-bug triage: every merge over a live quarantine, and every attempt whose merge credit moved on a
quarantined row."""

from typing import Any

import streamlit as st

from lanelog import queries
from lanelog.dashboard import cells, data, health_tables, present, triage_tables, ui

st.title("Credit-bug triage")
found = ui.figures(queries.credit_bug_rows, queries.sources, queries.credit_bugs)
rows, sources, credit = found["credit_bug_rows"], found["sources"], found["credit_bugs"]
listed = set(sources["path"][sources["in_last_listing"]])
bugs, exceptions = credit.merges, credit.exceptions


def show_merges(chosen: list[dict[str, Any]], key: str, alert: bool) -> None:
    """Merges over a live quarantine: a table (a credit bug's quarantine tinted), and the one chosen whole."""
    shown = triage_tables.merges_shown(chosen)
    st.dataframe(triage_tables.highlighted(shown) if alert else shown, hide_index=True, key=f"{key}_table",
                 height=cells.table_height(len(chosen)),
                 column_config=present.fixed_columns(triage_tables.MERGE_WIDTHS))
    ui.more_rows(len(chosen), noun="pull requests")
    pick = st.selectbox("Pull request", range(len(chosen)), key=f"{key}_pick",
                        format_func=lambda i: f"{chosen[i]['pr_repository']}#{chosen[i]['pr_number']}")
    detail = triage_tables.merge_detail(chosen[pick])
    st.dataframe(detail, hide_index=True, key=f"{key}_detail", height=cells.whole_height(len(detail)),
                 column_config=present.fixed_columns(health_tables.DETAIL_WIDTHS))


def show_exceptions() -> None:
    """The reviewed exceptions, below the credit bugs: listed, never alerted.  (Not in an expander: its
    padding leaves the table's fixed columns too little room at 1000 px.)"""
    if not exceptions:
        return
    st.subheader(f"Reviewed exceptions ({len(exceptions)})")
    st.caption("Merged by a person over a live quarantine a person said may go: an approval of the merged commit "
               "before the merge, or the label lanelog:accept-quarantine set by a person and still on at the merge "
               "(never the pull request's author's). Listed, never alerted.")
    show_merges(exceptions, "exceptions", alert=False)


if not credit.total:
    st.success("No credit bugs in range. A quarantine on its own is not an incident.")
    show_exceptions()
    st.stop()
st.header(f"Credit bugs ({credit.total})")
st.error(present.alert_text(len(rows), on_triage=True, merges=len(bugs)), icon=":material/crisis_alert:")
if bugs:
    st.subheader(f"Merged over a live quarantine ({len(bugs)})")
    st.caption("A pull request merged while its last attempt up to the merge had a live quarantine, and no person "
               "said it may go. An auto-merge, a bot's merge or the author's own is always a credit bug: no "
               "approval or label would have changed it. A person's merge is one unless a person approved the "
               "merged commit, or set the accept label, before the merge. Tinted: the live quarantine the merge "
               "passed over.")
    show_merges(bugs, "merge_bugs", alert=True)
if rows.empty:
    show_exceptions()
    st.stop()

st.subheader(f"Lines with merge credit on a quarantined attempt ({len(rows)})")
st.caption("Tinted: the live quarantine the merge credit ignored. The table cuts long values (a quarantine "
           "after its last whole test id, \"+1 more\"); the selected attempt below shows every value whole "
           "(time, ids, head, merge credit, file and line), and the CSV holds them whole.")
st.dataframe(triage_tables.highlighted(triage_tables.triage_shown(rows)), hide_index=True, key="credit_bug_table",
             height=cells.table_height(len(rows)), column_config=present.fixed_columns(triage_tables.TRIAGE_WIDTHS))
ui.more_rows(len(rows), noun="lines")
st.download_button(
    "Download CSV", present.csv_bytes(triage_tables.triage_table(rows)), file_name="credit-bugs.csv", mime="text/csv",
    key="credit_bug_csv",
)

st.subheader("Selected attempt")
choice = st.selectbox(
    "Attempt", range(len(rows)), format_func=lambda i: triage_tables.row_label(rows.iloc[i]), key="raw_row",
)
row = rows.iloc[choice]
st.dataframe(triage_tables.triage_detail(row), hide_index=True, key="credit_bug_detail",
             column_config=present.fixed_columns(health_tables.DETAIL_WIDTHS))
whole = health_tables.cut_path(row["source"])
if whole is not None:
    st.caption("Source file, whole")
    st.code(whole, language=None, wrap_lines=True)
state = health_tables.still_there(row["source"], row["source"] in listed, listing_known=data.lake_dir() is None)
if state == health_tables.DEMO_GONE:
    st.caption("The source file was one of the demo's temporary logs, removed when `lanelog demo` finished, "
               "as it always does; its lines stay in the database, and the raw line is below.")
elif state == health_tables.FILE_GONE:
    st.caption("The source file is no longer at its recorded path (moved, deleted, or read on another "
               "machine); its lines stay in the database, and the raw line is below.")
elif state == health_tables.NOT_IN_BUCKET:
    st.caption("The source log was not in the bucket when ingest last listed it (deleted or moved since); "
               "its lines stay in the database, and the raw line is below.")
st.caption("Raw line")
st.code(row["raw"], language="json", wrap_lines=True)
show_exceptions()
