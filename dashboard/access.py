"""The sign-in gate every page passes first, when `lanelog dashboard --auth FILE` turned sign-in on.

Signed out, a visitor sees a sign-in page and nothing else; signed in but not let in, a
refusal that names its reason (dashboard/admission.py), and the server's log gets one line
saying why.  Both stop the script before any query runs.  Sign-in uses Streamlit's own
OpenID Connect support (st.login, st.user, st.logout); who may look comes from the secrets
file the launcher wrote (dashboard/signin.py).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import streamlit as st

from lanelog.dashboard.admission import DEFAULT_PROOF, PROOFS, Refusal, judge, log_line
from lanelog.dashboard.signin import ACCESS_SECTION

SIGN_IN_ENV = "LANELOG_SIGN_IN"
# The refusal this browser session last logged: a rerun of the same refusal is not logged again.
LOGGED_KEY = "lanelog_refusal_logged"


def sign_in_required() -> bool:
    """Whether the launcher turned sign-in on (then a missing setting refuses everyone)."""
    return os.environ.get(SIGN_IN_ENV) == "1"


def _access() -> dict[str, Any] | None:
    """Who may look, from the secrets file; None when a setting is missing or cannot be used."""
    try:
        section = st.secrets.get(ACCESS_SECTION)
        auth = st.secrets.get("auth")
    except (FileNotFoundError, KeyError, ValueError):
        return None
    if not section or not auth or not section.get("allow"):
        return None
    proof = section.get("address_proof", DEFAULT_PROOF)
    tenants = tuple(section.get("tenants", ()))
    if proof not in PROOFS or (proof == "entra_id") != bool(tenants):
        return None
    return {"allow": list(section["allow"]), "writers": section.get("writers"),
            "session_hours": float(section.get("session_hours", 12)), "proof": proof, "tenants": tenants}


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


def _refusal_page(refusal: Refusal, claims: dict[str, Any]) -> None:
    """The refusal: fixed words in the error box; what the token said only as plain text, never markdown."""
    line = log_line(refusal, claims)
    if st.session_state.get(LOGGED_KEY) != line:
        print(line, file=sys.stderr, flush=True)
        st.session_state[LOGGED_KEY] = line
    st.title("lanelog")
    st.error(refusal.headline)
    st.text(refusal.detail)
    email = claims.get("email")
    st.text(f"Signed in as {email}" if isinstance(email, str) else "Signed in without an e-mail address")
    st.button("Sign out", key="sign_out_refused", on_click=st.logout)


def gate() -> None:
    """Stop the script unless sign-in is off, or the visitor is signed in, recent and let in."""
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
    claims = dict(st.user.to_dict())
    refusal = judge(claims, access["allow"], access["proof"], access["tenants"])
    if refusal is not None:
        _refusal_page(refusal, claims)
        st.stop()
    st.sidebar.text(f"Signed in as {st.user.get('email')}")
    st.sidebar.button("Sign out", key="sign_out", on_click=st.logout)


def may_upload() -> bool:
    """The upload widget writes into the database: with sign-in on, only for the listed writers."""
    if not sign_in_required():
        return True
    access = _access()
    if access is None or not access["writers"]:
        return False
    return judge(dict(st.user.to_dict()), list(access["writers"]), access["proof"], access["tenants"]) is None
