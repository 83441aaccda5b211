"""The Probe page's hook section: patches stopped in the agent's own loop (`lanelog hook`) beside CI's rejects."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lanelog import queries
from lanelog.dashboard import ui

# The by-agent table's columns: the report's keys, in the page's words.
COLUMNS = {"agent": "agent", "hook_checks": "hook checks", "hook_rejects": "stopped in the loop",
           "sessions_refused": "sessions refused", "sessions_narrowed": "came back narrower"}


def agent_table(hooks: dict) -> pd.DataFrame:
    """One row per agent, in the page's words; an agent the lines do not name is "(none)"."""
    rows = [{COLUMNS[key]: (row[key] if key != "agent" else row[key] or "(none)") for key in COLUMNS}
            for row in hooks["by_agent"]]
    return pd.DataFrame(rows, columns=list(COLUMNS.values()))


def show() -> None:
    """The section, when any line in range is a hook's; nothing otherwise."""
    found = ui.figures(queries.hook_report, queries.totals)
    hooks = found["hook_report"]
    if hooks is None:
        return
    st.subheader("In the agent's loop: stopped before CI")
    st.caption("`lanelog hook` judges an agent's commit, push or pull request in the agent's own hook, before "
               "anything is published. A patch stopped there never reached CI; the figures above count CI's "
               "rejects only. A session came back narrower when a later check in it passed.")
    left, right = st.columns(2)
    left.metric("Stopped in the loop", hooks["totals"]["hook_rejects"])
    right.metric("Rejected in CI (patch rejects)", found["totals"]["patch_rejects"])
    ui.table(agent_table(hooks), key="hook_agents")
