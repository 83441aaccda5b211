"""The sign-in gate in AppTest runs: with sign-in on, no page runs for a visitor who is not let in."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.dashboard_support import APP

ACCESS = {"allow": ["alice@example.com"], "session_hours": 12.0, "writers": ["alice@example.com"]}
AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "x" * 40,
        "client_id": "lanelog", "client_secret": "y" * 20,
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}


def _run(monkeypatch: pytest.MonkeyPatch, db: Path, sign_in: bool, with_secrets: bool) -> AppTest:
    monkeypatch.setenv("LANELOG_DB", str(db))
    if sign_in:
        monkeypatch.setenv("LANELOG_SIGN_IN", "1")
    else:
        monkeypatch.delenv("LANELOG_SIGN_IN", raising=False)
    at = AppTest.from_file(str(APP), default_timeout=60)
    if with_secrets:
        at.secrets["auth"] = AUTH
        at.secrets["lanelog_access"] = ACCESS
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
