"""The lanelog dashboard: `lanelog dashboard` runs this with `streamlit run`.

The entry script draws the sidebar (filters, uploader, refresh) and hands over
to one short script per page under views/.
"""

import streamlit as st

from lanelog.dashboard import access, present, sidebar, ui

# A drawn icon: a material-symbol or emoji favicon would be fetched from a font CDN.
st.set_page_config(page_title="lanelog", page_icon=present.favicon(), layout="wide")
# With sign-in on, nothing below runs (no page, no query) until the visitor may look.
access.gate()

PAGES = [
    st.Page("views/overview.py", title="Overview", icon=":material/monitoring:", default=True),
    st.Page("views/triage.py", title="Credit-bug triage", icon=":material/crisis_alert:", url_path="triage"),
    st.Page("views/spend.py", title="Spend review", icon=":material/payments:", url_path="spend"),
    st.Page("views/outcomes.py", title="Outcomes", icon=":material/merge:", url_path="outcomes"),
    st.Page("views/probe.py", title="Probe", icon=":material/rule:", url_path="probe"),
    st.Page("views/quarantine.py", title="Quarantine", icon=":material/ac_unit:", url_path="quarantine"),
    st.Page("views/health.py", title="Data health", icon=":material/health_and_safety:", url_path="health"),
    st.Page("views/whatif.py", title="What-if", icon=":material/compare_arrows:", url_path="whatif"),
]

page = st.navigation(PAGES)
# The What-if page reads stored replays, which a database may hold without any lane log.
WHAT_IF = page.url_path == "whatif"

# Every page runs inside the one guard: an error becomes a message with what to do.
def _draw() -> None:
    if sidebar.render(guidance=not WHAT_IF) or WHAT_IF:
        page.run()


ui.guarded(_draw)
