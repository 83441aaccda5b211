"""The sign-in gate in AppTest runs: with sign-in on, no page runs for a visitor who is not let in."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.dashboard_support import APP

ACCESS = {"allow": ["alice@example.com", "kate@example.com", "team.example"], "session_hours": 12.0,
          "writers": ["alice@example.com"]}
AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "x" * 40,
        "client_id": "lanelog", "client_secret": "y" * 20,
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}


def _run(monkeypatch: pytest.MonkeyPatch, db: Path, sign_in: bool, with_secrets: bool,
         user: dict[str, Any] | None = None) -> AppTest:
    monkeypatch.setenv("LANELOG_DB", str(db))
    if sign_in:
        monkeypatch.setenv("LANELOG_SIGN_IN", "1")
    else:
        monkeypatch.delenv("LANELOG_SIGN_IN", raising=False)
    at = AppTest.from_file(str(APP), default_timeout=60)
    if with_secrets:
        at.secrets["auth"] = AUTH
        at.secrets["lanelog_access"] = ACCESS
    if user is not None:
        at.user = user
    at.run()
    return at


def _text(at: AppTest) -> str:
    parts = [element.value for kind in ("title", "markdown", "text", "error", "info", "caption")
             for element in getattr(at, kind)]
    return " ".join(str(part) for part in parts)


def test_signed_out_the_gate_shows_a_sign_in_button_and_runs_no_page(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path
) -> None:
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=True)
    assert not at.exception
    assert [button.label for button in at.button] == ["Sign in"]
    assert len(at.metric) == 0 and len(at.dataframe) == 0
    assert "Sign in to see it" in _text(at)


def test_sign_in_on_without_its_settings_refuses_everyone(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=False)
    assert not at.exception
    assert "its settings did not reach the page" in _text(at)
    assert len(at.metric) == 0 and len(at.button) == 0


def test_sign_in_off_runs_the_pages_and_shows_the_uploader(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _run(monkeypatch, demo_db, sign_in=False, with_secrets=False)
    assert not at.exception
    assert len(at.metric) > 0
    assert "Sign in" not in [button.label for button in at.button]


def _claims(email: str, **claims: Any) -> dict[str, Any]:
    """What st.user holds after a sign-in: the ID token's claims, issued now."""
    return {"is_logged_in": True, "email": email, "iat": int(time.time()), **claims}


REFUSED = "This account may not see this dashboard"


@pytest.mark.parametrize("claims", [
    _claims("alice@example.com", email_verified="false"),
    _claims("alice@example.com", email_verified="true"),
    _claims("alice@example.com", email_verified=1),
    _claims("alice@example.com", email_verified=False),
    _claims("alice@example.com"),
], ids=["string-false", "string-true", "number-1", "false", "missing"])
def test_an_address_the_provider_did_not_verify_with_json_true_is_refused(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path, claims: dict[str, Any]
) -> None:
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=True, user=claims)
    assert not at.exception
    assert REFUSED in _text(at)
    assert len(at.metric) == 0 and len(at.dataframe) == 0


@pytest.mark.parametrize("email", [
    "\u212aate@example.com",            # KELVIN SIGN: lower() folds it to kate@example.com
    "\uff4bate@example.com",            # FULLWIDTH k: NFKC makes it kate@example.com
    "ka\u0301te@example.com",           # a combining accent in the local part
    "k\u0430te@team.example",           # CYRILLIC a in the local part, at an allowed domain
    "alice@example\uff0ecom",           # FULLWIDTH FULL STOP in the domain
    "alice@example.com ",
], ids=["kelvin", "fullwidth", "combining", "cyrillic-at-domain", "fullwidth-dot", "trailing-space"])
def test_an_address_that_only_folds_to_an_allowed_one_is_refused(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path, email: str
) -> None:
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=True, user=_claims(email, email_verified=True))
    assert not at.exception
    assert REFUSED in _text(at)
    assert len(at.metric) == 0 and len(at.dataframe) == 0


@pytest.mark.parametrize("email", ["alice@example.com", "Kate@Example.COM", "bob@team.example"])
def test_a_verified_listed_address_is_let_in(monkeypatch: pytest.MonkeyPatch, demo_db: Path, email: str) -> None:
    """The refusals above can fail: the same claims with a listed address and email_verified true get in."""
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=True, user=_claims(email, email_verified=True))
    assert not at.exception
    assert REFUSED not in _text(at)
    assert len(at.metric) > 0
