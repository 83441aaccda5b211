"""The sign-in gate every page passes first, when `lanelog dashboard --auth FILE` turned sign-in on.

Signed out, a visitor sees a sign-in page and nothing else; signed in but off the
allow-list, a refusal.  Both stop the script before any query runs.  Sign-in uses
Streamlit's own OpenID Connect support (st.login, st.user, st.logout); the allow-list
comes from the secrets file the launcher wrote (dashboard/signin.py).
"""

from __future__ import annotations

import os
import time
from typing import Any

import streamlit as st

from lanelog.dashboard.signin import ACCESS_SECTION, admitted

SIGN_IN_ENV = "LANELOG_SIGN_IN"


def sign_in_required() -> bool:
    """Whether the launcher turned sign-in on (then a missing setting refuses everyone)."""
    return os.environ.get(SIGN_IN_ENV) == "1"


def _access() -> dict[str, Any] | None:
    try:
        section = st.secrets.get(ACCESS_SECTION)
        auth = st.secrets.get("auth")
    except (FileNotFoundError, KeyError, ValueError):
        return None
    if not section or not auth or not section.get("allow"):
        return None
    return {"allow": list(section["allow"]), "writers": section.get("writers"),
            "session_hours": float(section.get("session_hours", 12))}


def _expired(hours: float) -> bool:
    """A sign-in older than session_hours (by the ID token's iat) no longer counts; no iat: expired."""
    issued = st.user.get("iat")
    if isinstance(issued, bool) or not isinstance(issued, (int, float)):
        return True
    return time.time() - issued > hours * 3600


def _sign_in_page(note: str | None = None) -> None:
    st.title("lanelog")
    st.write("This dashboard is shared behind sign-in. Sign in to see it.")
    if note:
        st.info(note)
    st.button("Sign in", key="sign_in", type="primary", on_click=st.login)


def gate() -> None:
    """Stop the script unless sign-in is off, or the visitor is signed in, recent and on the allow-list."""
    if not sign_in_required():
        return
    access = _access()
    if access is None:
        st.error("Sign-in is on, but its settings did not reach the page. Start the dashboard again "
                 "with `lanelog dashboard --auth FILE`.")
        st.stop()
    if st.user.get("is_logged_in") is not True:
        _sign_in_page()
        st.stop()
    if _expired(access["session_hours"]):
        _sign_in_page("Your sign-in has expired (the dashboard's session_hours): sign in again.")
        st.stop()
    email = st.user.get("email")
    if not admitted(st.user, access["allow"]):
        st.title("lanelog")
        st.error("This account may not see this dashboard. Ask whoever runs it to add you to its "
                 "allow-list, or sign in with another account.")
        # The address comes from the provider: shown as plain text, never as markdown.
        st.text(f"Signed in as {email if isinstance(email, str) else '(no e-mail address)'}")
        st.button("Sign out", key="sign_out_refused", on_click=st.logout)
        st.stop()
    st.sidebar.text(f"Signed in as {email}")
    st.sidebar.button("Sign out", key="sign_out", on_click=st.logout)


def may_upload() -> bool:
    """The upload widget writes into the database: with sign-in on, only for the listed writers."""
    if not sign_in_required():
        return True
    access = _access()
    if access is None or not access["writers"]:
        return False
    return admitted(st.user, list(access["writers"]))
