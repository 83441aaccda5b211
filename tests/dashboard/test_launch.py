"""`lanelog dashboard`'s command line: local, headless, quiet, and the database passed on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lanelog.dashboard.launch import APP, app_environment, streamlit_argv
from tests.dashboard.token_shapes import OTHER_TENANT, TENANT


def flags(argv: list[str]) -> dict[str, str]:
    options = argv[argv.index(str(APP)) + 1:]
    return dict(zip(options[::2], options[1::2]))


def test_streamlit_runs_the_app_locally_headless_without_usage_stats() -> None:
    argv = streamlit_argv("127.0.0.1", 8765)
    # Streamlit's own command line, run by lanelog.dashboard.server (one dependency's notice filtered).
    assert argv[:6] == [sys.executable, "-P", "-m", "lanelog.dashboard.server", "run", str(APP)]
    got = flags(argv)
    assert got["--server.address"] == "127.0.0.1"
    assert got["--server.port"] == "8765"
    assert got["--server.headless"] == "true"
    assert got["--browser.gatherUsageStats"] == "false"
    assert got["--server.showEmailPrompt"] == "false"


def test_the_database_reaches_the_app_as_an_absolute_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert app_environment(Path("some.duckdb"))["LANELOG_DB"] == str(tmp_path / "some.duckdb")


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "0", "0.0", "0x0", "000.0.0.0", "::ffff:0.0.0.0", "[::]", " 0 "])
def test_every_spelling_of_a_wildcard_host_is_refused_with_a_reason(host: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "dashboard", "--host", host, "--port", "9"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"Error: --host {host!r} listens on every interface" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("host", ["nosuchhost.invalid", "1.2.3.4 abc", "[::1"])
def test_a_host_that_cannot_be_bound_is_an_error_not_a_traceback(host: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "dashboard", "--host", host, "--port", "9"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert f"Error: --host {host!r} is not an address this machine can listen on" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_address_in_brackets_is_bound_without_them() -> None:
    argv = streamlit_argv("[::1]", 8765)
    assert argv[argv.index("--server.address") + 1] == "::1"
    assert argv[argv.index("--browser.serverAddress") + 1] == "::1"
    assert streamlit_argv("localhost", 8765)[argv.index("--server.address") + 1] == "localhost"


def test_the_page_process_never_imports_from_the_working_folder(tmp_path: Path) -> None:
    """Started from a folder that holds a `lanelog/` folder (a home folder with the clone in it),
    the page process still imports the installed package: -P and PYTHONSAFEPATH keep the
    working folder off its import path."""
    shadow = tmp_path / "lanelog"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('the working folder was imported')\n")
    argv = streamlit_argv("127.0.0.1", 8765)
    assert app_environment(tmp_path / "x.duckdb")["PYTHONSAFEPATH"] == "1"
    python = argv[:argv.index("-m")]  # the same interpreter and flags the server runs with
    done = subprocess.run(
        [*python, "-c", "import lanelog.dashboard.data, lanelog, sys; print(lanelog.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env=app_environment(tmp_path / "x.duckdb"),
    )
    assert done.returncode == 0, done.stderr
    assert not done.stdout.strip().startswith(str(tmp_path))
    bare = subprocess.run([sys.executable, "-c", "import lanelog"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert "the working folder was imported" in bare.stderr  # without the flag, the folder shadows it


def _dashboard(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", "dashboard", *args], capture_output=True, text=True,
                          timeout=60, check=False)


@pytest.mark.parametrize("host", ["192.0.2.10", "10.1.2.3", "::ffff:192.0.2.10"])
def test_an_address_other_than_loopback_needs_sign_in(host: str) -> None:
    done = _dashboard("--host", host, "--port", "9")
    assert done.returncode == 2 and done.stdout == ""
    assert f"Error: --host {host!r} is not a loopback address" in done.stderr
    assert "lanelog dashboard --auth FILE" in done.stderr and "--no-auth" in done.stderr


def test_demo_serves_loopback_only() -> None:
    done = subprocess.run([sys.executable, "-m", "lanelog", "demo", "--serve", "--host", "192.0.2.10",
                           "--db", "unused.duckdb"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "is not a loopback address" in done.stderr


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
def test_loopback_is_served_without_sign_in(host: str) -> None:
    from lanelog.dashboard.launch import check_exposure

    check_exposure(host, None, False)


def test_no_auth_is_printed_loudly_and_wildcards_stay_refused() -> None:
    # 192.0.2.10 is no address of this machine: the banner is printed, then binding fails.
    done = _dashboard("--host", "192.0.2.10", "--port", "9", "--no-auth")
    assert "WARNING: serving 192.0.2.10:9 WITHOUT SIGN-IN (--no-auth)" in done.stderr
    assert done.returncode == 2 and "is not free" in done.stderr
    wildcard = _dashboard("--host", "0.0.0.0", "--port", "9", "--no-auth")
    assert wildcard.returncode == 2 and "listens on every interface" in wildcard.stderr
    assert "WARNING" not in wildcard.stderr


GOOD_AUTH = {
    "server_metadata_url": '"https://id.example/.well-known/openid-configuration"',
    "client_id": '"lanelog"',
    "client_secret": '"client-SECRET-value-0123"',
    "redirect_uri": '"https://lanelog.example/oauth2callback"',
    "cookie_secret": '"cookie-SECRET-value-0123456789abcdef"',
    "allow": '["alice@example.com", "team.example"]',
}


def _auth_file(tmp_path: Path, **changes: str | None) -> Path:
    values = {**GOOD_AUTH, **changes}
    path = tmp_path / "auth.toml"
    path.write_text("".join(f"{key} = {value}\n" for key, value in values.items() if value is not None))
    return path


@pytest.mark.parametrize(("changes", "message"), [
    ({"client_secret": None}, "missing key(s) client_secret"),
    ({"cookie_secret": '"short-SECRET"'}, "cookie_secret must be at least 32 characters"),
    ({"redirect_uri": '"https://lanelog.example/callback"'}, "redirect_uri must end with /oauth2callback"),
    ({"redirect_uri": '"http://lanelog.example/oauth2callback"'}, "redirect_uri must use https://"),
    ({"allow": "[]"}, "allow must be a non-empty list"),
    ({"allow": '["not an address"]'}, "is neither an e-mail address nor a domain"),
    ({"writers": '"alice@example.com"'}, "writers must be a non-empty list"),
    ({"colour": '"blue"'}, "unknown key(s) colour"),
    ({"session_hours": "0"}, "session_hours must be a number of hours"),
    ({"address_proof": '"entra"'}, 'address_proof must be one of "email_verified", "entra_id", "none"'),
    ({"address_proof": "true"}, 'address_proof must be one of "email_verified", "entra_id", "none"'),
    ({"address_proof": '"entra_id"'}, 'tenants is needed with address_proof = "entra_id": the Entra ID tenant IDs'),
    ({"tenants": f'["{TENANT}"]'}, 'tenants is read only with address_proof = "entra_id"'),
    ({"address_proof": '"none"', "tenants": f'["{TENANT}"]'}, 'tenants is read only with address_proof = "entra_id"'),
    ({"address_proof": '"entra_id"', "tenants": "[]"}, "tenants must be a non-empty list of Entra ID tenant IDs"),
    ({"address_proof": '"entra_id"', "tenants": '["contoso.onmicrosoft.com"]'},
     "tenants entry 'contoso.onmicrosoft.com' is not a tenant ID (Entra ID's Directory (tenant) ID, a GUID"),
])
def test_a_bad_auth_file_names_the_key_and_never_a_secret(tmp_path: Path, changes: dict[str, str | None],
                                                          message: str) -> None:
    done = _dashboard("--host", "192.0.2.10", "--port", "9", "--auth", str(_auth_file(tmp_path, **changes)))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "SECRET" not in done.stderr and "Traceback" not in done.stderr


def test_an_auth_file_that_is_a_fifo_or_a_device_is_refused_at_once_by_name(tmp_path: Path) -> None:
    """Nothing writes to the FIFO: reading it would wait for ever, with the dashboard not started."""
    import os

    fifo = tmp_path / "auth.fifo"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "a FIFO (named pipe)"), (Path("/dev/zero"), "a character device")):
        done = _dashboard("--host", "192.0.2.10", "--port", "9", "--auth", str(path))
        assert done.returncode == 2
        assert done.stderr == f"Error: --auth file {path} is {kind}: the sign-in settings must be a regular file\n"


def test_the_auth_file_becomes_streamlit_secrets(tmp_path: Path) -> None:
    import tomllib

    from lanelog.dashboard import signin

    settings = signin.load_auth(_auth_file(tmp_path, writers='["Alice@Example.com"]'))
    assert "SECRET" not in repr(settings)
    folder = tmp_path / "private"
    folder.mkdir()
    written = tomllib.loads(signin.write_secrets(settings, folder).read_text())
    assert written["auth"]["cookie_secret"] == "cookie-SECRET-value-0123456789abcdef"
    assert written["auth"]["server_metadata_url"] == "https://id.example/.well-known/openid-configuration"
    assert written["lanelog_access"] == {"allow": ["alice@example.com", "team.example"], "session_hours": 12.0,
                                         "writers": ["alice@example.com"], "address_proof": "email_verified"}


def test_the_entra_rule_and_its_tenants_reach_the_page_process(tmp_path: Path) -> None:
    import tomllib

    from lanelog.dashboard import signin

    settings = signin.load_auth(_auth_file(tmp_path, address_proof='"entra_id"',
                                           tenants=f'["{TENANT.upper()}", "{OTHER_TENANT}"]'))
    assert (settings.address_proof, settings.tenants) == ("entra_id", (TENANT, OTHER_TENANT))
    folder = tmp_path / "private"
    folder.mkdir()
    written = tomllib.loads(signin.write_secrets(settings, folder).read_text())["lanelog_access"]
    assert (written["address_proof"], written["tenants"]) == ("entra_id", [TENANT, OTHER_TENANT])


def test_no_proof_of_addresses_is_said_loudly_at_start(tmp_path: Path) -> None:
    # 192.0.2.10 is no address of this machine: the warning is printed, then binding fails.
    auth = _auth_file(tmp_path, address_proof='"none"')
    done = _dashboard("--host", "192.0.2.10", "--port", "9", "--auth", str(auth))
    assert done.returncode == 2 and "is not free" in done.stderr
    assert done.stderr.startswith(
        f'WARNING: SIGN-IN CHECKS NO PROOF OF ANY ADDRESS (address_proof = "none" in {auth}): whoever the provider '
        "signs in with a listed address is let in, whether or not the address is theirs. Use it only with a provider "
        "whose every address is one its user owns and cannot change (docs/deploy.md).\n")
    verified = _dashboard("--host", "192.0.2.10", "--port", "9", "--auth", str(_auth_file(tmp_path)))
    assert verified.returncode == 2 and "WARNING" not in verified.stderr


def _secrets_file(tmp_path: Path, auth: dict[str, str | None] | None = None,
                  access: dict[str, str | None] | None = None, extra: str = "") -> Path:
    """The same settings as a Streamlit secrets file: [auth] and [lanelog_access]."""
    auth_values = {key: value for key, value in GOOD_AUTH.items() if key != "allow"} | (auth or {})
    access_values = {"allow": GOOD_AUTH["allow"], "writers": '["Alice@Example.com"]'} | (access or {})
    path = tmp_path / "secrets.toml"
    path.write_text(extra + "[auth]\n" + "".join(f"{k} = {v}\n" for k, v in auth_values.items() if v is not None)
                    + "\n[lanelog_access]\n"
                    + "".join(f"{k} = {v}\n" for k, v in access_values.items() if v is not None))
    return path


def test_a_streamlit_secrets_file_is_read_as_the_auth_file(tmp_path: Path) -> None:
    from lanelog.dashboard import signin

    flat = signin.load_auth(_auth_file(tmp_path, writers='["Alice@Example.com"]'))
    # The app's other secrets may sit beside the sign-in's: they are left alone.
    streamlit = signin.load_auth(_secrets_file(tmp_path, extra='other_token = "x"\n[database]\npassword = "p"\n'))
    assert streamlit == flat


@pytest.mark.parametrize(("auth", "access", "message"), [
    ({"client_secret": None}, None, "missing key(s) [auth] client_secret"),
    (None, {"allow": None}, "missing key(s) [lanelog_access] allow"),
    ({"cookie_secret": '"short-SECRET"'}, None, "[auth] cookie_secret must be at least 32 characters"),
    ({"colour": '"blue"'}, None, "unknown key(s) in [auth]: colour"),
    (None, {"allow": '["not an address"]'}, "[lanelog_access] allow entry 'not an address' is neither"),
    (None, {"address_proof": '"entra_id"'}, '[lanelog_access] tenants is needed with address_proof = "entra_id"'),
    (None, {"colour": '"blue"'}, "unknown key(s) in [lanelog_access]: colour; known: allow, writers, session_hours, "
                                 "address_proof, tenants"),
    ({"google": '{ client_id = "x" }'}, None, "[auth.google]: named providers are not supported"),
])
def test_a_bad_streamlit_secrets_file_names_the_section_and_key(
        tmp_path: Path, auth: dict[str, str | None] | None, access: dict[str, str | None] | None,
        message: str) -> None:
    done = _dashboard("--host", "192.0.2.10", "--port", "9", "--auth", str(_secrets_file(tmp_path, auth, access)))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "SECRET" not in done.stderr and "Traceback" not in done.stderr


def test_an_allow_list_entry_is_lower_cased_in_ascii_only(tmp_path: Path) -> None:
    from lanelog.dashboard.signin import load_auth

    auth = _auth_file(tmp_path, allow='["\\u212aate@example.com", "Bob@Example.COM"]')
    assert load_auth(auth).allow == ("\u212aate@example.com", "bob@example.com")


def _authlib_notices(filtered: bool) -> str:
    """stderr of a fresh interpreter that imports what Streamlit's sign-in imports, then authlib.jose."""
    quiet = "from lanelog.dashboard.server import quiet_authlib_httpx_notice; quiet_authlib_httpx_notice(); "
    done = subprocess.run([sys.executable, "-P", "-c", (quiet if filtered else "")
                           + "import authlib.integrations.starlette_client, authlib.jose"],
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stderr


def test_the_server_filters_authlibs_httpx_notice_and_no_other_warning() -> None:
    from lanelog.dashboard.server import HTTPX_NOTICE

    shown = _authlib_notices(filtered=False)
    assert f"AuthlibDeprecationWarning: {HTTPX_NOTICE}" in shown  # the check can fail: the notice is real
    quiet = _authlib_notices(filtered=True)
    assert HTTPX_NOTICE not in quiet
    # Another of Authlib's notices, of the same class, is still shown.
    assert "AuthlibDeprecationWarning: authlib.jose module is deprecated" in quiet


def test_an_auth_file_others_can_read_is_warned_of_at_start_and_one_kept_private_is_not(tmp_path: Path) -> None:
    # 192.0.2.10 is no address of this machine: the warning is printed, then binding fails.
    auth = _auth_file(tmp_path)
    auth.chmod(0o644)
    done = _dashboard("--host", "192.0.2.10", "--port", "9", "--auth", str(auth))
    assert done.returncode == 2 and "is not free" in done.stderr
    assert (f"warning: --auth file {auth} is open to others than its owner (mode 644); it holds the client secret "
            f"and the cookie secret: chmod 600 {auth}\n") in done.stderr
    auth.chmod(0o600)
    private = _dashboard("--host", "192.0.2.10", "--port", "9", "--auth", str(auth))
    assert private.returncode == 2 and "open to others" not in private.stderr
