"""Sign-in for the shared dashboard, as a user meets it: a real OpenID Connect provider on 127.0.0.1,
`lanelog dashboard --auth FILE` serving the demo database, and headless Chromium."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from lanelog.dashboard.present import METRICS
from tests.dashboard.browser_support import CHROMIUM, FINISHED, chromium, free_port, stop, wait_until_healthy
from tests.dashboard.oidc_provider import running_provider

USER_COOKIE = "_streamlit_user"

if not CHROMIUM.exists() and os.environ.get("CI") != "true":
    pytest.skip("no /usr/bin/chromium on this machine (outside CI only: CI never skips)",
                allow_module_level=True)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """oidc-provider-mock, a real OpenID Connect provider, on 127.0.0.1: its metadata URL."""
    with running_provider() as base:
        yield f"{base}/.well-known/openid-configuration"


@pytest.fixture(scope="module")
def signed_in_server(provider: str, demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """`lanelog dashboard --auth FILE` on the demo database; its URL, cookie secret and private temp folder."""
    root = tmp_path_factory.mktemp("signin")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cookie_secret = secrets.token_urlsafe(32)
    client_secret = secrets.token_urlsafe(24)
    auth = root / "auth.toml"
    auth.write_text(
        f'server_metadata_url = "{provider}"\n'
        'client_id = "lanelog-test"\n'
        f'client_secret = "{client_secret}"\n'
        f'redirect_uri = "{url}/oauth2callback"\n'
        f'cookie_secret = "{cookie_secret}"\n'
        'allow = ["alice@example.com", "team.example"]\n'
        'writers = ["alice@example.com"]\n'
        "session_hours = 12\n"
    )
    temp = root / "tmp"
    temp.mkdir()
    log = root / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "lanelog", "dashboard", "--db", str(demo_db), "--port", str(port),
             "--auth", str(auth)],
            stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "TMPDIR": str(temp)},
        )
    wait_until_healthy(server, url, log.read_text)
    info = {"url": url, "provider": provider, "cookie_secret": cookie_secret, "client_secret": client_secret,
            "temp": temp, "log": log, "server": server}
    try:
        yield info
    finally:
        stop(server, 15)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


@contextlib.contextmanager
def fresh_page(browser: object) -> Iterator[object]:
    """A page in a new browser context: no cookie from another test."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        yield context.new_page()
    finally:
        context.close()


def provider_user(provider: str, email: str, **claims: object) -> None:
    """Register a user at the provider with the claims its ID token will carry (default: a verified address)."""
    base = provider.removesuffix("/.well-known/openid-configuration")
    body = json.dumps({"email": email, "email_verified": True, **claims}).encode()
    request = urllib.request.Request(f"{base}/users/{urllib.request.quote(email, safe='')}", data=body,
                                     method="PUT", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 204


def sign_in(page: object, server: dict, email: str, **claims: object) -> None:
    """From the sign-in page through the provider's form and back."""
    url = server["url"]
    provider_user(server["provider"], email, **claims)
    page.goto(url)
    page.get_by_role("button", name="Sign in").click()
    page.locator('input[name="sub"]').fill(email)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{url}/**", timeout=60_000)


def signed_out_text(page: object) -> str:
    page.get_by_role("button", name="Sign in").wait_for(timeout=60_000)
    page.wait_for_selector(FINISHED, timeout=60_000)
    return page.locator('[data-testid="stApp"]').inner_text()


def assert_no_data(text: str) -> None:
    """No figure, no metric label, no page of the dashboard in the text."""
    assert not re.search(r"\d", text), text
    for label in [*METRICS, "Credit bugs per week", "Overview", "Upload a lane log"]:
        assert str(label) not in text


def test_signed_out_the_page_holds_no_figure(signed_in_server: dict, browser: object) -> None:
    with fresh_page(browser) as page:
        page.goto(signed_in_server["url"])
        text = signed_out_text(page)
    assert "Sign in" in text
    assert_no_data(text)


def test_an_allowed_user_signs_in_and_sees_the_overview(signed_in_server: dict, browser: object) -> None:
    with fresh_page(browser) as page:
        sign_in(page, signed_in_server, "alice@example.com")
        page.get_by_text("Credit bugs per week").wait_for(timeout=60_000)
        page.wait_for_selector(FINISHED, timeout=60_000)
        sidebar = page.locator('[data-testid="stSidebar"]')
        assert "Signed in as alice@example.com" in sidebar.inner_text()
        page.wait_for_function("n => document.querySelectorAll('[data-testid=\"stMetricValue\"]').length >= n",
                               arg=len(METRICS), timeout=60_000)
        # alice is a writer: the upload widget is there.
        sidebar.get_by_text("Upload a lane log").wait_for(timeout=30_000)
        sidebar.get_by_role("button", name="Sign out").click()
        # Streamlit ends the session at the provider too; the provider asks, then sends the browser back.
        page.get_by_role("button", name="End session").click()
        text = signed_out_text(page)
    assert_no_data(text)


def test_a_user_of_an_allowed_domain_who_is_no_writer_gets_no_upload(
    signed_in_server: dict, browser: object
) -> None:
    with fresh_page(browser) as page:
        sign_in(page, signed_in_server, "bob@team.example")
        page.get_by_text("Credit bugs per week").wait_for(timeout=60_000)
        page.wait_for_selector(FINISHED, timeout=60_000)
        sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "Signed in as bob@team.example" in sidebar
    assert "Upload a lane log" not in sidebar


@pytest.mark.parametrize("email", ["mallory@elsewhere.example", "eve@sub.team.example", "alice@example.com.evil"])
def test_a_user_off_the_allow_list_is_refused(signed_in_server: dict, browser: object, email: str) -> None:
    with fresh_page(browser) as page:
        sign_in(page, signed_in_server, email)
        page.get_by_text("This account may not see this dashboard").wait_for(timeout=60_000)
        page.wait_for_selector(FINISHED, timeout=60_000)
        text = page.locator('[data-testid="stApp"]').inner_text()
    assert f"Signed in as {email}" in text
    assert_no_data(text.replace(email, ""))


def test_an_address_verified_only_as_the_string_false_is_refused(signed_in_server: dict, browser: object) -> None:
    """The provider's ID token says "email_verified": "false" (a string): that is no verification."""
    with fresh_page(browser) as page:
        sign_in(page, signed_in_server, "alice@example.com", email_verified="false")
        page.get_by_text("This account may not see this dashboard").wait_for(timeout=60_000)
        page.wait_for_selector(FINISHED, timeout=60_000)
        text = page.locator('[data-testid="stApp"]').inner_text()
    assert_no_data(text.replace("alice@example.com", ""))


def forged_cookie(secret: str, origin: str, email: str, issued: float, signed_at: float | None = None) -> str:
    payload = {"email": email, "email_verified": True, "sub": email, "iat": int(issued), "exp": int(issued) + 3600,
               "origin": origin, "is_logged_in": True, "provider": "default"}

    class Signer(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(signed_at if signed_at is not None else time.time())

    return URLSafeTimedSerializer(secret, salt=USER_COOKIE, signer=Signer).dumps(json.dumps(payload))


@pytest.mark.parametrize("case", ["wrong_secret", "old_sign_in", "old_cookie"])
def test_a_forged_or_expired_cookie_is_refused(signed_in_server: dict, browser: object, case: str) -> None:
    url = signed_in_server["url"]
    now = time.time()
    secret = signed_in_server["cookie_secret"]
    value = {
        "wrong_secret": forged_cookie(secrets.token_urlsafe(32), url, "alice@example.com", now),
        "old_sign_in": forged_cookie(secret, url, "alice@example.com", now - 2 * 86400),
        "old_cookie": forged_cookie(secret, url, "alice@example.com", now, signed_at=now - 40 * 86400),
    }[case]
    with fresh_page(browser) as page:
        page.context.add_cookies([{"name": USER_COOKIE, "value": value, "url": url}])
        page.goto(url)
        text = signed_out_text(page)
    assert_no_data(text)
    assert ("has expired" in text) == (case == "old_sign_in")


def test_a_cookie_signed_with_the_secret_is_accepted(signed_in_server: dict, browser: object) -> None:
    """The forged-cookie tests can fail: the same cookie, signed with the real secret and recent, gets in."""
    url = signed_in_server["url"]
    value = forged_cookie(signed_in_server["cookie_secret"], url, "alice@example.com", time.time())
    with fresh_page(browser) as page:
        page.context.add_cookies([{"name": USER_COOKIE, "value": value, "url": url}])
        page.goto(url)
        page.get_by_text("Credit bugs per week").wait_for(timeout=60_000)


def test_the_secrets_file_is_private_and_never_logged(signed_in_server: dict) -> None:
    (folder,) = [path for path in signed_in_server["temp"].iterdir() if path.name.startswith("lanelog-signin-")]
    (secrets_file,) = folder.iterdir()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(secrets_file.stat().st_mode) == 0o600
    log = signed_in_server["log"].read_text()
    assert signed_in_server["cookie_secret"] not in log
    assert signed_in_server["client_secret"] not in log


def test_stopping_the_server_removes_the_secrets(signed_in_server: dict) -> None:
    server = signed_in_server["server"]
    server.terminate()
    assert server.wait(timeout=30) is not None
    assert [path.name for path in signed_in_server["temp"].iterdir()] == []
