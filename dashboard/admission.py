"""Who is let in, and if not, why: what proves an address for each kind of provider, and the refusal.

An allow-list of e-mail addresses is only as good as the proof that an address belongs to
whoever signed in.  Providers prove it in different claims of the ID token, so the sign-in
settings say which rule the provider meets (`address_proof`, docs/deploy.md):

- ``email_verified`` (the default): OpenID Connect's standard claim, the JSON value true
  (Google, Okta, Keycloak, Authentik, Auth0, ...).
- ``entra_id``: Microsoft Entra ID sends no ``email_verified`` for organisational accounts.
  Its optional claim ``xms_edov`` ("email domain owner verified") says that the tenant the
  account lives in has verified the domain of the address; it counts only from a tenant
  (the token's ``tid``) listed in ``tenants``.  Never ``preferred_username`` or ``upn``:
  Microsoft calls both mutable and not for authorization.
- ``none``: nothing is asked of the token, for a provider trusted with every address it sends.

A refusal names its reason in fixed words (safe anywhere) and says why in a sentence that
quotes the claims it judged, each as one line of ASCII JSON (``shown``): on the page it is
plain text, in the server's log one line that no claim can break or add a field to.
No streamlit import: the launcher and the unit tests use the rule as it is.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from lanelog.framing import framed

PROOFS = ("email_verified", "entra_id", "none")
DEFAULT_PROOF = "email_verified"
# Supabase's Auth, which reads real Entra ID tokens, notes that Entra sends xms_edov sometimes
# as the JSON value true and sometimes as the string "1"; "true" is read as the same.  Nothing
# else is a yes (not 1, not "True", not false).
XMS_EDOV_STRINGS = ("1", "true")
# Past this a claim's value is cut: a provider's claim may be any size, a log line should not.
SHOWN_CHARS = 200
# The claims a refusal's log line names, when the token has them: who it was, never a token.
LOGGED_CLAIMS = ("email", "tid", "preferred_username", "sub")

REFUSED = "This account may not see this dashboard"
ASK = "ask whoever runs the dashboard"


@dataclass(frozen=True)
class Refusal:
    """Why a signed-in account is not let in: a reason code, its fixed headline, and the sentences."""

    reason: str      # no_address, tenant_not_listed, not_verified or not_listed
    headline: str    # fixed words: no claim's value is in it
    why: str         # what the token said, its claim values shown (shown())
    advice: str      # what to do, fixed words

    @property
    def detail(self) -> str:
        """The page's plain text under the headline."""
        return f"{self.why} {self.advice}"


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """A-Z lower-cased, nothing else: str.lower() would fold KELVIN SIGN (U+212A) into "k"."""
    return text.translate(_ASCII_LOWER)


def shown(value: object) -> str:
    """A claim's value as one line of ASCII JSON: a string in quotes, every quote, control and
    non-ASCII character escaped, long text cut.  It can neither end its field nor start a line."""
    if isinstance(value, str) and len(value) > SHOWN_CHARS:
        value = value[:SHOWN_CHARS] + "..."
    text = json.dumps(value, ensure_ascii=True, default=repr)
    if len(text) > SHOWN_CHARS + 8:
        text = f"(a value of {len(text)} characters)"
    return framed(text, json=True)


def allowed(email: object, entries: tuple[str, ...] | list[str]) -> bool:
    """Whether an e-mail address is listed, or its domain is (exactly: a subdomain is not).

    Addresses compare exactly once A-Z are lower-cased.  An address that NFKC
    normalisation would change, or whose local part is not ASCII, matches only an
    entry naming that very address, never a domain: a provider may let someone
    register a look-alike of a listed name.
    """
    if not isinstance(email, str) or "@" not in email:
        return False
    address = ascii_lower(email)
    listed = {ascii_lower(entry) for entry in entries}
    if address in listed:
        return True
    local, _, domain = address.rpartition("@")
    if not local or not local.isascii() or unicodedata.normalize("NFKC", email) != email:
        return False
    return "@" not in domain and domain in listed


def _no_address(claims: Mapping[str, object]) -> Refusal | None:
    email = claims.get("email")
    if isinstance(email, str) and "@" in email:
        return None
    why = ("The ID token has no email claim." if "email" not in claims
           else f"The ID token's email claim is {shown(email)}, not an e-mail address.")
    return Refusal("no_address", f"{REFUSED}: the provider sent no e-mail address for it.", why,
                   f"Sign in with an account that has one, or {ASK} to have the provider send it.")


def _tenant_not_listed(claims: Mapping[str, object], tenants: tuple[str, ...]) -> Refusal | None:
    tid = claims.get("tid")
    if isinstance(tid, str) and ascii_lower(tid) in tenants:
        return None
    why = ("The ID token has no tenant (tid) claim." if "tid" not in claims
           else f"The ID token's tenant (tid) is {shown(tid)}, which is not in the dashboard's tenants.")
    return Refusal("tenant_not_listed",
                   f"{REFUSED}: it signed in through an organisation (Entra ID tenant) the dashboard does not admit.",
                   why, f"Sign in with an account of your organisation, or {ASK}.")


def _proven(claims: Mapping[str, object], proof: str) -> bool:
    """Whether the token proves the address by the provider's rule; an unknown rule proves nothing."""
    if proof == "entra_id":
        value = claims.get("xms_edov")
        return value is True or (isinstance(value, str) and value in XMS_EDOV_STRINGS)
    return proof == "none" or (proof == "email_verified" and claims.get("email_verified") is True)


def _not_verified(claims: Mapping[str, object], proof: str) -> Refusal | None:
    if _proven(claims, proof):
        return None
    value = claims.get("xms_edov" if proof == "entra_id" else "email_verified")
    if proof != "entra_id":
        why = ("The ID token has no email_verified claim" if "email_verified" not in claims
               else f"The ID token says email_verified: {shown(value)}") + ", where the dashboard needs the value true."
        advice = f"Verify the address with the provider, or {ASK}."
    elif "xms_edov" not in claims:
        why = "The ID token has no xms_edov claim: the app registration must ask Entra ID for this optional claim."
        advice = f"{ASK[0].upper()}{ASK[1:]}."
    else:
        why = (f"The ID token says xms_edov: {shown(value)}, so Entra ID does not vouch that the tenant owns "
               "the address's domain.")
        advice = f"Sign in with an account whose address is in a domain of your organisation, or {ASK}."
    return Refusal("not_verified", f"{REFUSED}: the provider has not verified its e-mail address.", why, advice)


def judge(claims: Mapping[str, object], entries: tuple[str, ...] | list[str], proof: str,
          tenants: tuple[str, ...] = ()) -> Refusal | None:
    """None when the ID token's claims let someone in under `entries`, else the first reason not.

    In order: an address at all; for Entra ID a listed tenant; the provider's proof of the
    address; the address on the list.  An unknown `proof` proves no address (fail closed).
    """
    refusal = _no_address(claims)
    if refusal is None and proof == "entra_id":
        refusal = _tenant_not_listed(claims, tenants)
    refusal = refusal or _not_verified(claims, proof)
    if refusal is None and not allowed(claims.get("email"), entries):
        refusal = Refusal("not_listed", f"{REFUSED}: its e-mail address is not on the allow-list.",
                          "The address is neither listed nor of a listed domain.",
                          f"Sign in with another account, or {ASK} to add you to its allow-list.")
    return refusal


def log_line(refusal: Refusal, claims: Mapping[str, object]) -> str:
    """The server's one line for a refusal: its reason, why, and who (each claim shown, never a token)."""
    who = " ".join(f"{name}={shown(claims[name])}" for name in LOGGED_CLAIMS if name in claims)
    return f"lanelog sign-in refused ({refusal.reason}): {refusal.why} {who}".rstrip()
