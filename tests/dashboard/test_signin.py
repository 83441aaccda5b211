"""Sign-in for the shared dashboard, as a user meets it: a real OpenID Connect provider on 127.0.0.1,
`lanelog dashboard --auth FILE` serving the demo database, and headless Chromium.

The provider issues ID tokens shaped as Google's and as Microsoft Entra ID's (tests/dashboard/
token_shapes.py); one server judges them by the default rule (email_verified), another by Entra
ID's (xms_edov from a listed tenant).  The refusal pages are saved at 1400 and 1000 px to
tests/artifacts/ for a look."""

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
from tests.dashboard.token_shapes import CLIENT_ID, OTHER_TENANT, TENANT, entra, google, registered

USER_COOKIE = "_streamlit_user"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
WIDTHS = (1400, 1000)
REFUSED = "This account may not see this dashboard"

if not CHROMIUM.exists() and os.environ.get("CI") != "true":
    pytest.skip("no /usr/bin/chromium on this machine (outside CI only: CI never skips)",
                allow_module_level=True)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """oidc-provider-mock, a real OpenID Connect provider, on 127.0.0.1: its metadata URL."""
    with running_provider() as base:
        yield f"{base}/.well-known/openid-configuration"


def start_server(provider: str, demo_db: Path, root: Path, settings: str) -> dict:
    """`lanelog dashboard --auth FILE` on the demo database, its log in root; its URL, secrets and process."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cookie_secret = secrets.token_urlsafe(32)
    client_secret = secrets.token_urlsafe(24)
    auth = root / "auth.toml"
    auth.write_text(
        f'server_metadata_url = "{provider}"\n'
        f'client_id = "{CLIENT_ID}"\n'
        f'client_secret = "{client_secret}"\n'
        f'redirect_uri = "{url}/oauth2callback"\n'
        f'cookie_secret = "{cookie_secret}"\n'
        f"{settings}"
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
    return {"url": url, "provider": provider, "cookie_secret": cookie_secret, "client_secret": client_secret,
            "temp": temp, "log": log, "server": server}


@pytest.fixture(scope="module")
def signed_in_server(provider: str, demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """The default rule: an address counts when the ID token says email_verified true (Google, Okta, ...)."""
    info = start_server(provider, demo_db, tmp_path_factory.mktemp("signin"),
                        'allow = ["alice@example.com", "team.example"]\nwriters = ["alice@example.com"]\n')
    try:
        yield info
    finally:
        stop(info["server"], 15)


@pytest.fixture(scope="module")
def entra_server(provider: str, demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """Entra ID's rule: xms_edov true, from the listed tenant."""
    info = start_server(provider, demo_db, tmp_path_factory.mktemp("signin-entra"),
                        'allow = ["contoso.example"]\nwriters = ["alice@contoso.example"]\n'
                        f'address_proof = "entra_id"\ntenants = ["{TENANT}"]\n')
    try:
        yield info
    finally:
        stop(info["server"], 15)


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


def provider_user(provider: str, sub: str, claims: dict) -> None:
    """Register a user at the provider with the claims its ID token will carry."""
    base = provider.removesuffix("/.well-known/openid-configuration")
    body = json.dumps(claims).encode()
    request = urllib.request.Request(f"{base}/users/{urllib.request.quote(sub, safe='')}", data=body,
                                     method="PUT", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 204


def sign_in_with(page: object, server: dict, token: dict) -> None:
    """From the sign-in page through the provider's form and back, the provider issuing `token`'s claims."""
    url = server["url"]
    provider_user(server["provider"], token["sub"], registered(token))
    page.goto(url)
    page.get_by_role("button", name="Sign in").click()
    page.locator('input[name="sub"]').fill(token["sub"])
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{url}/**", timeout=60_000)


def sign_in(page: object, server: dict, email: str, **claims: object) -> None:
    """Sign in as `email`, its subject, with a verified address unless `claims` say otherwise."""
    sign_in_with(page, server, {"sub": email, "email": email, "email_verified": True, **claims})


def signed_out_text(page: object) -> str:
    page.get_by_role("button", name="Sign in").wait_for(timeout=60_000)
    page.wait_for_selector(FINISHED, timeout=60_000)
    return page.locator('[data-testid="stApp"]').inner_text()


PAGE_WORDS = [*(label for _key, label in METRICS), "Credit bugs per week", "Overview", "Upload a lane log"]


def assert_no_data(text: str) -> None:
    """No figure, no metric label, no page of the dashboard in the text."""
    assert not re.search(r"\d", text), text
    for words in PAGE_WORDS:
        assert words not in text


def look(page: object, name: str) -> None:
    """Save the page at 1400 and 1000 px to tests/artifacts/signin-NAME-WIDTH.png, nothing wider than its box."""
    ARTIFACTS.mkdir(exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_selector(FINISHED, timeout=60_000)
        cut = page.evaluate("""() => [document.documentElement, ...document.querySelectorAll(
            '[data-testid="stText"], [data-testid="stAlert"], [data-testid="stHeading"]')]
            .filter(e => e.scrollWidth > e.clientWidth).map(e => e.textContent)""")
        assert cut == [], (name, width, cut)
        page.screenshot(path=str(ARTIFACTS / f"signin-{name}-{width}.png"), full_page=True)


def refused(page: object, server: dict, token: dict, name: str) -> tuple[list[str], list[str]]:
    """Sign in with `token` and be refused: the page's words (the error box, then each plain text), saved
    at both widths as signin-NAME; and the server's log lines about the token's subject."""
    sign_in_with(page, server, token)
    page.get_by_text(REFUSED).wait_for(timeout=60_000)
    page.wait_for_selector(FINISHED, timeout=60_000)
    shown = [*page.locator('[data-testid="stAlert"]').all_inner_texts(),
             *page.locator('[data-testid="stText"]').all_inner_texts()]
    app = page.locator('[data-testid="stApp"]').inner_text()
    assert [words for words in PAGE_WORDS if words in app] == []
    look(page, name)
    subject = f'sub={json.dumps(token["sub"])}'
    logged = [line for line in server["log"].read_text().splitlines() if subject in line]
    return [text.strip() for text in shown], logged


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


def test_a_google_token_with_email_verified_true_signs_in_and_a_non_writer_gets_no_upload(
    signed_in_server: dict, browser: object
) -> None:
    with fresh_page(browser) as page:
        sign_in_with(page, signed_in_server, google("bob@team.example", sub="google-bob"))
        page.get_by_text("Credit bugs per week").wait_for(timeout=60_000)
        page.wait_for_selector(FINISHED, timeout=60_000)
        sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "Signed in as bob@team.example" in sidebar
    assert "Upload a lane log" not in sidebar


@pytest.mark.parametrize(("value", "said"), [(False, "false"), ("false", '"false"')], ids=["false", "string-false"])
def test_a_google_token_whose_email_verified_is_not_true_is_refused_with_that_reason_shown_and_logged(
    signed_in_server: dict, browser: object, value: object, said: str
) -> None:
    token = google("dave@team.example", sub=f"google-dave-{type(value).__name__}", email_verified=value)
    with fresh_page(browser) as page:
        shown, logged = refused(page, signed_in_server, token, f"google-not-verified-{type(value).__name__}")
    why = f"The ID token says email_verified: {said}, where the dashboard needs the value true."
    assert shown == [
        f"{REFUSED}: the provider has not verified its e-mail address.",
        f"{why} Verify the address with the provider, or ask whoever runs the dashboard.",
        "Signed in as dave@team.example",
    ]
    assert logged == [f'lanelog sign-in refused (not_verified): {why} email="dave@team.example" sub="{token["sub"]}"']


@pytest.mark.parametrize("email", ["mallory@elsewhere.example", "eve@sub.team.example", "alice@example.com.evil"])
def test_a_user_off_the_allow_list_is_refused(signed_in_server: dict, browser: object, email: str) -> None:
    with fresh_page(browser) as page:
        shown, logged = refused(page, signed_in_server, google(email, sub=email), f"not-listed-{email.split('@')[0]}")
    why = "The address is neither listed nor of a listed domain."
    assert shown == [
        f"{REFUSED}: its e-mail address is not on the allow-list.",
        f"{why} Sign in with another account, or ask whoever runs the dashboard to add you to its allow-list.",
        f"Signed in as {email}",
    ]
    assert logged == [f'lanelog sign-in refused (not_listed): {why} email="{email}" sub="{email}"']


def test_an_entra_token_with_xms_edov_from_the_listed_tenant_signs_in(entra_server: dict, browser: object) -> None:
    """Entra ID's organisational account: no email_verified, xms_edov true, the tenant listed."""
    token = entra("alice@contoso.example", sub="entra-alice")
    assert "email_verified" not in token
    with fresh_page(browser) as page:
        sign_in_with(page, entra_server, token)
        page.get_by_text("Credit bugs per week").wait_for(timeout=60_000)
        page.wait_for_selector(FINISHED, timeout=60_000)
        sidebar = page.locator('[data-testid="stSidebar"]')
        assert "Signed in as alice@contoso.example" in sidebar.inner_text()
        sidebar.get_by_text("Upload a lane log").wait_for(timeout=30_000)  # alice is a writer


def test_an_entra_token_with_xms_edov_false_is_refused_with_that_reason_shown_and_logged(
    entra_server: dict, browser: object
) -> None:
    token = entra("carol@contoso.example", sub="entra-carol", xms_edov=False)
    with fresh_page(browser) as page:
        shown, logged = refused(page, entra_server, token, "entra-not-verified")
    why = ("The ID token says xms_edov: false, so Entra ID does not vouch that the tenant owns the address's "
           "domain.")
    assert shown == [
        f"{REFUSED}: the provider has not verified its e-mail address.",
        f"{why} Sign in with an account whose address is in a domain of your organisation, or ask whoever runs "
        "the dashboard.",
        "Signed in as carol@contoso.example",
    ]
    assert logged == [f'lanelog sign-in refused (not_verified): {why} email="carol@contoso.example" tid="{TENANT}" '
                      'preferred_username="carol@contoso.example" sub="entra-carol"']


def test_an_entra_token_of_another_tenant_is_refused_with_that_reason_shown_and_logged(
    entra_server: dict, browser: object
) -> None:
    token = entra("alice@contoso.example", sub="entra-alice-elsewhere", tid=OTHER_TENANT)
    with fresh_page(browser) as page:
        shown, logged = refused(page, entra_server, token, "entra-other-tenant")
    why = f"The ID token's tenant (tid) is \"{OTHER_TENANT}\", which is not in the dashboard's tenants."
    assert shown == [
        f"{REFUSED}: it signed in through an organisation (Entra ID tenant) the dashboard does not admit.",
        f"{why} Sign in with an account of your organisation, or ask whoever runs the dashboard.",
        "Signed in as alice@contoso.example",
    ]
    assert logged == [f'lanelog sign-in refused (tenant_not_listed): {why} email="alice@contoso.example" '
                      f'tid="{OTHER_TENANT}" preferred_username="alice@contoso.example" sub="entra-alice-elsewhere"']


def test_a_token_without_an_email_claim_is_refused_as_no_address(entra_server: dict, browser: object) -> None:
    """Entra ID without the optional claim email: a user name, a tenant, no address (and so no xms_edov)."""
    token = entra(None, sub="entra-no-email", xms_edov=None)
    with fresh_page(browser) as page:
        shown, logged = refused(page, entra_server, token, "no-address")
    why = "The ID token has no email claim."
    assert shown == [
        f"{REFUSED}: the provider sent no e-mail address for it.",
        f"{why} Sign in with an account that has one, or ask whoever runs the dashboard to have the provider send it.",
        "Signed in without an e-mail address",
    ]
    assert logged == [f'lanelog sign-in refused (no_address): {why} tid="{TENANT}" '
                      'preferred_username="alice@contoso.onmicrosoft.com" sub="entra-no-email"']


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


@pytest.mark.parametrize("rule", ["signed_in_server", "entra_server"])
def test_the_secrets_file_is_private_and_never_logged(rule: str, request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(rule)
    (folder,) = [path for path in server["temp"].iterdir() if path.name.startswith("lanelog-signin-")]
    (secrets_file,) = folder.iterdir()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(secrets_file.stat().st_mode) == 0o600
    log = server["log"].read_text()
    assert "lanelog sign-in refused (" in log  # the refusals above were logged here, the tokens with them
    assert server["cookie_secret"] not in log
    assert server["client_secret"] not in log
    assert "eyJ" not in log  # no JWT: every ID or access token starts with the base64 of '{"'
    # No Python warning opens the sign-in log (Authlib's httpx notice is filtered in the server).
    assert re.findall(r"\w*Warning: .*", log) == []


def test_stopping_the_server_removes_the_secrets(signed_in_server: dict) -> None:
    server = signed_in_server["server"]
    server.terminate()
    assert server.wait(timeout=30) is not None
    assert [path.name for path in signed_in_server["temp"].iterdir()] == []
