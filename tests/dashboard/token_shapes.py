"""ID tokens shaped as real providers issue them, for the sign-in tests (unit, AppTest and browser).

Entra ID (Microsoft identity platform, v2.0 endpoint): the claims of its "ID token claims
reference" for a member of the tenant, with the optional claims `email` and `xms_edov`
("email domain owner verified", its "optional claims reference") that an app registration
asks for.  Entra ID sends no `email_verified` for an organisational account.  `tid` is the
tenant the user signed in to; `preferred_username` and `upn` are mutable and never used to
admit anyone.

Google: the claims of Google's OpenID Connect ID token for a Workspace account (`hd`), with
`email_verified` as the JSON value true.

`issued()` is the whole token as the page sees it (st.user); `registered()` is what the test
provider is told to put in the token it signs: it adds iss, aud, iat, exp, nonce and at_hash itself.
"""

from __future__ import annotations

import time
from typing import Any

TENANT = "aaaabbbb-0000-cccc-1111-dddd2222eeee"
OTHER_TENANT = "bbbbcccc-1111-dddd-2222-eeee3333ffff"
CLIENT_ID = "lanelog-test"
# What the test provider puts in the token it signs (Authlib, at sign-in, checks at_hash against
# the access token it issued, so a made-up one would refuse the token before the page sees it).
SET_BY_PROVIDER = ("iss", "aud", "azp", "iat", "nbf", "exp", "nonce", "at_hash", "c_hash")


def entra(email: str | None, *, tid: str = TENANT, **changes: Any) -> dict[str, Any]:
    """An Entra ID v2.0 ID token of a tenant member; `email=None` leaves the email claim out."""
    now = int(time.time())
    claims: dict[str, Any] = {
        "ver": "2.0", "iss": f"https://login.microsoftonline.com/{tid}/v2.0", "aud": CLIENT_ID,
        "iat": now, "nbf": now, "exp": now + 3600,
        "aio": "AUQAu/8TAAAAiEDvDXnT0Qf5bNCpcRZcDEXXf4/7nL0RR7xuYEfHwzc3oVLz7zbMH0Ggbw==",
        "name": "Alice Example", "oid": "00000000-0000-0000-66f3-3332eca7ea81",
        "preferred_username": email or "alice@contoso.onmicrosoft.com",
        "rh": "0.AXEA-EdSy2f9d0W7bPAm3HIPGXa7DSrP3chGtRhS6ANyOtpxAAA.",
        "sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "tid": tid,
        "uti": "fqiBqXLPj0eQa82S-IYFAA", "email": email, "xms_edov": True,
    }
    claims.update(changes)
    return {name: value for name, value in claims.items() if value is not None}


def google(email: str | None, **changes: Any) -> dict[str, Any]:
    """A Google ID token of a Workspace account; `email=None` leaves the email claim out."""
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": "https://accounts.google.com", "azp": CLIENT_ID, "aud": CLIENT_ID,
        "sub": "110169484474386276334", "hd": email.rpartition("@")[2] if email else None,
        "email": email, "email_verified": True, "at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q",
        "name": "Bob Example", "given_name": "Bob", "family_name": "Example",
        "picture": "https://lh3.googleusercontent.com/a/default-user", "iat": now, "exp": now + 3600,
    }
    claims.update(changes)
    return {name: value for name, value in claims.items() if value is not None}


def issued(claims: dict[str, Any]) -> dict[str, Any]:
    """What st.user holds after a sign-in with these claims."""
    return {**claims, "is_logged_in": True}


def registered(claims: dict[str, Any]) -> dict[str, Any]:
    """The claims the test provider is given for its user: all but those it sets itself."""
    return {name: value for name, value in claims.items() if name not in SET_BY_PROVIDER and name != "sub"}
