"""The sign-in gate in AppTest runs: with sign-in on, no page runs for a visitor who is not let in."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.dashboard_support import APP
from tests.dashboard.token_shapes import OTHER_TENANT, TENANT, entra, google, issued

ACCESS = {"allow": ["alice@example.com", "kate@example.com", "team.example"], "session_hours": 12.0,
          "writers": ["alice@example.com"]}
AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "x" * 40,
        "client_id": "lanelog", "client_secret": "y" * 20,
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}


ENTRA_ACCESS = {**ACCESS, "allow": ["alice@contoso.example"], "writers": ["alice@contoso.example"],
                "address_proof": "entra_id", "tenants": [TENANT]}


def _run(monkeypatch: pytest.MonkeyPatch, db: Path, sign_in: bool, with_secrets: bool,
         user: dict[str, Any] | None = None, access: dict[str, Any] | None = None) -> AppTest:
    monkeypatch.setenv("LANELOG_DB", str(db))
    if sign_in:
        monkeypatch.setenv("LANELOG_SIGN_IN", "1")
    else:
        monkeypatch.delenv("LANELOG_SIGN_IN", raising=False)
    at = AppTest.from_file(str(APP), default_timeout=60)
    if with_secrets:
        at.secrets["auth"] = AUTH
        at.secrets["lanelog_access"] = access or ACCESS
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


def test_an_entra_token_with_xms_edov_from_a_listed_tenant_is_let_in_and_may_upload(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path
) -> None:
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=True, user=issued(entra("alice@contoso.example")),
              access=ENTRA_ACCESS)
    assert not at.exception
    assert REFUSED not in _text(at) and len(at.metric) > 0
    assert "Signed in as alice@contoso.example" in [text.value for text in at.sidebar.text]
    assert len(at.sidebar.get("file_uploader")) == 1


def _refusal(at: AppTest) -> list[str]:
    """The refusal page as the visitor reads it: the error box, then each plain text."""
    assert len(at.metric) == 0 and len(at.dataframe) == 0
    return [element.value for element in at.error] + [element.value for element in at.text]


def test_xms_edov_false_is_refused_on_the_page_and_in_the_log_once(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    user = issued(entra("alice@contoso.example", xms_edov=False))
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=True, user=user, access=ENTRA_ACCESS)
    at.run()  # a rerun in the same browser session shows it again, and logs nothing more
    assert not at.exception
    assert _refusal(at) == [
        "This account may not see this dashboard: the provider has not verified its e-mail address.",
        "The ID token says xms_edov: false, so Entra ID does not vouch that the tenant owns the address's domain. "
        "Sign in with an account whose address is in a domain of your organisation, or ask whoever runs the "
        "dashboard.",
        "Signed in as alice@contoso.example",
    ]
    assert [button.label for button in at.button] == ["Sign out"]
    logged = [line for line in capfd.readouterr().err.splitlines() if "sign-in refused" in line]
    assert logged == [
        "lanelog sign-in refused (not_verified): The ID token says xms_edov: false, so Entra ID does not vouch that "
        f'the tenant owns the address\'s domain. email="alice@contoso.example" tid="{TENANT}" '
        'preferred_username="alice@contoso.example" sub="AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ"']


def test_a_token_of_another_tenant_is_refused_with_that_reason(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    user = issued(entra("alice@contoso.example", tid=OTHER_TENANT))
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=True, user=user, access=ENTRA_ACCESS)
    assert not at.exception
    assert _refusal(at)[:2] == [
        "This account may not see this dashboard: it signed in through an organisation (Entra ID tenant) the "
        "dashboard does not admit.",
        f'The ID token\'s tenant (tid) is "{OTHER_TENANT}", which is not in the dashboard\'s tenants. Sign in with '
        "an account of your organisation, or ask whoever runs the dashboard.",
    ]
    assert "lanelog sign-in refused (tenant_not_listed): " in capfd.readouterr().err


def test_a_claim_written_as_markdown_or_html_is_shown_as_its_plain_text(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path
) -> None:
    email = "**[click](https://evil.example)**<img src=x onerror=alert(1)>@team.example"
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=True,
              user=issued(google(email, email_verified=False)))
    assert not at.exception
    assert f"Signed in as {email}" in _refusal(at)
    markdown = [element.value for kind in ("markdown", "error", "title", "caption") for element in getattr(at, kind)]
    assert not any("evil.example" in value for value in markdown)


def test_the_entra_rule_without_its_tenants_refuses_everyone(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    access = {key: value for key, value in ENTRA_ACCESS.items() if key != "tenants"}
    at = _run(monkeypatch, demo_db, sign_in=True, with_secrets=True, user=issued(entra("alice@contoso.example")),
              access=access)
    assert not at.exception
    assert "its settings did not reach the page" in _text(at)
    assert len(at.metric) == 0
