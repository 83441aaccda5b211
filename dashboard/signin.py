"""Sign-in for a shared dashboard: the `--auth FILE` settings and the secrets the page process reads.

The file (TOML) names an OpenID Connect provider and who may look (or it is a
Streamlit secrets file holding the same: see load_auth)::

    server_metadata_url = "https://accounts.example.com/.well-known/openid-configuration"
    client_id = "lanelog-dashboard"
    client_secret = "..."
    redirect_uri = "https://lanelog.example.com/oauth2callback"
    cookie_secret = "..."            # 32 characters or more, random
    allow = ["alice@example.com", "example.org"]   # e-mail addresses and/or domains
    writers = ["alice@example.com"]  # optional: who sees the upload widget
    session_hours = 12               # optional: how long a sign-in lasts
    address_proof = "entra_id"       # optional: what proves an address (default "email_verified")
    tenants = ["aaaabbbb-0000-cccc-1111-dddd2222eeee"]   # with "entra_id": the tenants admitted

Streamlit's own sign-in (st.login) reads its [auth] section from a secrets file; the
launcher writes one into a private folder (0700, the file 0600) and removes it when
the server stops.  This module never prints a secret, and its errors name keys, not values.
No streamlit import here: the launcher runs before the server.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import socket
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import urlsplit

from lanelog.dashboard.admission import DEFAULT_PROOF, PROOFS, ascii_lower
from lanelog.errors import DashboardError
from lanelog.files import NotRegular, kind, read_regular
from lanelog.framing import framed

REQUIRED = ("server_metadata_url", "client_id", "client_secret", "redirect_uri", "cookie_secret", "allow")
OPTIONAL = ("writers", "session_hours", "address_proof", "tenants")
MIN_COOKIE_SECRET = 32
DEFAULT_SESSION_HOURS = 12.0
ACCESS_SECTION = "lanelog_access"  # the page process's allow-list, beside Streamlit's [auth]


@dataclass(frozen=True)
class AuthSettings:
    """What `--auth FILE` holds, checked."""

    server_metadata_url: str
    client_id: str
    client_secret: str
    redirect_uri: str
    cookie_secret: str
    allow: tuple[str, ...]
    writers: tuple[str, ...] | None
    session_hours: float
    address_proof: str = DEFAULT_PROOF
    tenants: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"AuthSettings(client_id={self.client_id!r}, redirect_uri={self.redirect_uri!r}, secrets hidden)"


def _text(path: Path, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DashboardError(f"{path}: {key} must be a non-empty string")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise DashboardError(f"{path}: {key} holds a control character")
    return value.strip()


def _entries(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise DashboardError(f"{path}: {key} must be a non-empty list of e-mail addresses or domains")
    entries = []
    for item in value:
        entry = ascii_lower(_text(path, key, item))
        local, at, domain = entry.partition("@")
        if not at:
            local, domain = "-", entry  # a domain alone
        if not local or "@" in domain or " " in entry or "." not in domain.strip("."):
            raise DashboardError(f"{path}: {key} entry {item!r} is neither an e-mail address nor a domain")
        entries.append(entry)
    return tuple(entries)


def _http_url(path: Path, key: str, value: str, *, https_unless_loopback: bool) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DashboardError(f"{path}: {key} must be an http:// or https:// address")
    if https_unless_loopback and parts.scheme == "http" and not is_loopback(parts.hostname):
        raise DashboardError(f"{path}: {key} must use https:// (http:// is for a loopback address only)")
    return value


AUTH_KEYS = ("server_metadata_url", "client_id", "client_secret", "redirect_uri", "cookie_secret")


def load_auth(path: Path) -> AuthSettings:
    """Read and check `--auth FILE`; a bad file names itself, its line or its key.

    The file is lanelog's (the keys at the top level), or a Streamlit secrets file
    (`.streamlit/secrets.toml`): the provider in its [auth] section, as st.login reads
    it, and allow, writers, session_hours, address_proof and tenants in a [lanelog_access] section.
    """
    try:
        raw = tomllib.loads(_settings_text(path))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise DashboardError(f"{path} is not TOML: {error}") from None
    if isinstance(raw.get("auth"), dict):
        raw, names = _from_streamlit_secrets(path, raw)
    else:
        unknown = sorted(set(raw) - set(REQUIRED) - set(OPTIONAL))
        if unknown:
            raise DashboardError(f"{path}: unknown key(s) {', '.join(unknown)}; known: "
                                 f"{', '.join(REQUIRED + OPTIONAL)}")
        names = {key: key for key in REQUIRED + OPTIONAL}
    missing = [names[key] for key in REQUIRED if key not in raw]
    if missing:
        raise DashboardError(f"{path}: missing key(s) {', '.join(missing)}")
    texts = {key: _text(path, names[key], raw[key]) for key in REQUIRED if key != "allow"}
    _http_url(path, names["server_metadata_url"], texts["server_metadata_url"], https_unless_loopback=True)
    _http_url(path, names["redirect_uri"], texts["redirect_uri"], https_unless_loopback=True)
    if not urlsplit(texts["redirect_uri"]).path.endswith("/oauth2callback"):
        raise DashboardError(f"{path}: {names['redirect_uri']} must end with /oauth2callback "
                             "(Streamlit's sign-in route)")
    if len(texts["cookie_secret"]) < MIN_COOKIE_SECRET:
        raise DashboardError(f"{path}: {names['cookie_secret']} must be at least {MIN_COOKIE_SECRET} characters "
                             "(make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    return AuthSettings(**texts, **_who_may_look(path, raw, names))


class _WhoMayLook(TypedDict):
    allow: tuple[str, ...]
    writers: tuple[str, ...] | None
    session_hours: float
    address_proof: str
    tenants: tuple[str, ...]


def _who_may_look(path: Path, raw: dict[str, Any], names: dict[str, str]) -> _WhoMayLook:
    """allow, writers, session_hours, address_proof and tenants, checked."""
    hours = raw.get("session_hours", DEFAULT_SESSION_HOURS)
    if isinstance(hours, bool) or not isinstance(hours, (int, float)) or not 0 < hours <= 24 * 30:
        raise DashboardError(f"{path}: {names['session_hours']} must be a number of hours, above 0 and at most 720")
    proof = raw.get("address_proof", DEFAULT_PROOF)
    if proof not in PROOFS:
        raise DashboardError(f"{path}: {names['address_proof']} must be one of "
                             f"{', '.join(json.dumps(known) for known in PROOFS)}")
    if proof == "entra_id" and "tenants" not in raw:
        raise DashboardError(f'{path}: {names["tenants"]} is needed with address_proof = "entra_id": the '
                             "Entra ID tenant IDs whose accounts may sign in")
    if proof != "entra_id" and "tenants" in raw:
        raise DashboardError(f'{path}: {names["tenants"]} is read only with address_proof = "entra_id"')
    return {"allow": _entries(path, names["allow"], raw["allow"]),
            "writers": _entries(path, names["writers"], raw["writers"]) if "writers" in raw else None,
            "session_hours": float(hours), "address_proof": proof,
            "tenants": _tenants(path, names["tenants"], raw["tenants"]) if "tenants" in raw else ()}


# An Entra ID tenant ID, as the token's tid and the portal's "Directory (tenant) ID" give it: a GUID.
TENANT_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _tenants(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise DashboardError(f"{path}: {key} must be a non-empty list of Entra ID tenant IDs")
    tenants = []
    for item in value:
        tenant = ascii_lower(_text(path, key, item))
        if not TENANT_ID.fullmatch(tenant):
            raise DashboardError(f"{path}: {key} entry {item!r} is not a tenant ID (Entra ID's Directory (tenant) "
                                 "ID, a GUID such as aaaabbbb-0000-cccc-1111-dddd2222eeee; a domain name is not one)")
        tenants.append(tenant)
    return tuple(tenants)


# A sign-in settings file is a few hundred bytes; past this it is not one.
MAX_AUTH_BYTES = 1024 * 1024


def readable_by_others(path: Path) -> str | None:
    """The warning for an --auth file that others than its owner may read (it holds the client secret and the
    cookie secret: docs/deploy.md asks `chmod 600`), else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # load_auth names what is wrong with a file that cannot be read
    if not mode & 0o077:
        return None
    return (f"warning: --auth file {framed(str(path))} is open to others than its owner (mode {mode & 0o777:03o}); "
            f"it holds the client secret and the cookie secret: chmod 600 {framed(str(path))}")


def _settings_text(path: Path) -> str:
    """The --auth file's text: a regular file of at most MAX_AUTH_BYTES, anything else refused at once.

    It is opened without blocking and checked on the open descriptor: a FIFO, which
    would hold the start until someone writes to it, or a device is named and refused.
    """
    def not_regular(what: str) -> DashboardError:
        what = "a FIFO (named pipe)" if what == "a FIFO" else what
        return DashboardError(f"--auth file {path} is {what}: the sign-in settings must be a regular file")

    try:
        data = read_regular(path, MAX_AUTH_BYTES)
    except NotRegular as error:
        raise not_regular(error.kind) from None
    except OSError as error:
        try:  # a socket cannot be opened at all: name what it is
            what = kind(os.stat(path).st_mode)
        except OSError:
            what = None
        if what is not None:
            raise not_regular(what) from None
        raise DashboardError(f"cannot read --auth file {path}: {error.strerror or error}") from None
    if data is None:
        raise DashboardError(f"--auth file {path} is larger than {MAX_AUTH_BYTES} bytes: it is no sign-in "
                             "settings file")
    return data.decode("utf-8")


def _from_streamlit_secrets(path: Path, raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The keys of a Streamlit secrets file, flat, and each key's name in that file.

    Other sections (the app's other secrets) are left alone.  A named provider
    ([auth.google]) is refused: the sign-in page asks for the default one.
    """
    auth: dict[str, Any] = raw["auth"]
    providers = sorted(key for key, value in auth.items() if isinstance(value, dict))
    if providers:
        raise DashboardError(f"{path}: [auth.{providers[0]}]: named providers are not supported; put "
                             "client_id, client_secret and server_metadata_url in [auth] itself")
    unknown = sorted(set(auth) - set(AUTH_KEYS))
    if unknown:
        raise DashboardError(f"{path}: unknown key(s) in [auth]: {', '.join(unknown)}; known: "
                             f"{', '.join(AUTH_KEYS)}")
    access = raw.get(ACCESS_SECTION, {})
    if not isinstance(access, dict):
        raise DashboardError(f"{path}: {ACCESS_SECTION} must be a section ([{ACCESS_SECTION}])")
    access_keys = ("allow", *OPTIONAL)
    unknown = sorted(set(access) - set(access_keys))
    if unknown:
        raise DashboardError(f"{path}: unknown key(s) in [{ACCESS_SECTION}]: {', '.join(unknown)}; known: "
                             f"{', '.join(access_keys)}")
    names = {**{key: f"[auth] {key}" for key in AUTH_KEYS},
             **{key: f"[{ACCESS_SECTION}] {key}" for key in access_keys}}
    return {**auth, **access}, names


def _toml_string(value: str) -> str:
    # json escapes quotes, backslashes and control characters the way TOML basic strings read them.
    return json.dumps(value, ensure_ascii=False)


def secrets_toml(settings: AuthSettings) -> str:
    """The secrets file: Streamlit's [auth] section and the page process's [lanelog_access]."""
    auth = {"redirect_uri": settings.redirect_uri, "cookie_secret": settings.cookie_secret,
            "client_id": settings.client_id, "client_secret": settings.client_secret,
            "server_metadata_url": settings.server_metadata_url}
    lines = ["[auth]", *(f"{key} = {_toml_string(value)}" for key, value in auth.items()), "",
             f"[{ACCESS_SECTION}]",
             "allow = [" + ", ".join(_toml_string(entry) for entry in settings.allow) + "]",
             f"session_hours = {settings.session_hours!r}",
             f"address_proof = {_toml_string(settings.address_proof)}"]
    if settings.writers is not None:
        lines.append("writers = [" + ", ".join(_toml_string(entry) for entry in settings.writers) + "]")
    if settings.tenants:
        lines.append("tenants = [" + ", ".join(_toml_string(tenant) for tenant in settings.tenants) + "]")
    return "\n".join(lines) + "\n"


def write_secrets(settings: AuthSettings, folder: Path) -> Path:
    """Write the secrets file into a private folder (0700), readable by this user only (0600)."""
    os.chmod(folder, 0o700)
    target = folder / "secrets.toml"
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(secrets_toml(settings))
    return target


def is_loopback(host: str) -> bool:
    """Whether every address the host names is a loopback address (127.0.0.0/8, ::1)."""
    bare = host.strip("[]")
    try:
        found = socket.getaddrinfo(bare, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError):
        return False
    addresses = {str(info[4][0]).split("%", 1)[0] for info in found}
    return bool(addresses) and all(ipaddress.ip_address(address).is_loopback for address in addresses)
