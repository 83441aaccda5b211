"""What proves an address for each provider, and the refusal that names the reason: the rule alone."""

from __future__ import annotations

from typing import Any

import pytest

from lanelog.dashboard.admission import allowed, judge, log_line, shown
from tests.dashboard.token_shapes import OTHER_TENANT, TENANT, entra, google

ALLOW = ("alice@contoso.example", "example.com")
TENANTS = (TENANT,)
REFUSED = "This account may not see this dashboard"


def entra_judged(claims: dict[str, Any]) -> tuple[str, str] | None:
    refusal = judge(claims, ALLOW, "entra_id", TENANTS)
    return None if refusal is None else (refusal.reason, refusal.detail)


def google_judged(claims: dict[str, Any]) -> tuple[str, str] | None:
    refusal = judge(claims, ALLOW, "email_verified")
    return None if refusal is None else (refusal.reason, refusal.detail)


def test_an_entra_token_with_xms_edov_true_from_a_listed_tenant_lets_its_listed_address_in() -> None:
    assert "email_verified" not in entra("alice@contoso.example")
    assert entra_judged(entra("alice@contoso.example")) is None
    assert entra_judged(entra("alice@contoso.example", tid=TENANT.upper())) is None


@pytest.mark.parametrize("value", ["1", "true"])
def test_entra_ids_xms_edov_as_the_string_1_or_true_is_a_yes(value: str) -> None:
    assert entra_judged(entra("alice@contoso.example", xms_edov=value)) is None


@pytest.mark.parametrize(("value", "said"), [
    (False, "false"), ("0", '"0"'), ("false", '"false"'), (1, "1"), ("True", '"True"'), ("yes", '"yes"'),
    ([True], "[true]"),
])
def test_an_entra_token_whose_xms_edov_is_not_a_yes_is_refused_as_not_verified(value: object, said: str) -> None:
    assert entra_judged(entra("alice@contoso.example", xms_edov=value)) == (
        "not_verified",
        f"The ID token says xms_edov: {said}, so Entra ID does not vouch that the tenant owns the address's "
        "domain. Sign in with an account whose address is in a domain of your organisation, or ask whoever "
        "runs the dashboard.")


def test_an_entra_token_without_xms_edov_is_refused_and_names_the_optional_claim() -> None:
    assert entra_judged(entra("alice@contoso.example", xms_edov=None)) == (
        "not_verified",
        "The ID token has no xms_edov claim: the app registration must ask Entra ID for this optional claim. "
        "Ask whoever runs the dashboard.")


def test_email_verified_does_not_stand_in_for_xms_edov_under_the_entra_rule() -> None:
    claims = entra("alice@contoso.example", xms_edov=None, email_verified=True)
    assert entra_judged(claims)[0] == "not_verified"  # type: ignore[index]


@pytest.mark.parametrize(("tid", "why"), [
    (OTHER_TENANT, f'The ID token\'s tenant (tid) is "{OTHER_TENANT}", which is not in the dashboard\'s tenants.'),
    (None, "The ID token has no tenant (tid) claim."),
    (7, "The ID token's tenant (tid) is 7, which is not in the dashboard's tenants."),
])
def test_an_entra_token_from_a_tenant_not_listed_is_refused_whatever_its_xms_edov(tid: object, why: str) -> None:
    claims = entra("alice@contoso.example")
    claims["tid"] = tid
    if tid is None:
        del claims["tid"]
    assert entra_judged(claims) == (
        "tenant_not_listed",
        f"{why} Sign in with an account of your organisation, or ask whoever runs the dashboard.")


def test_a_google_token_with_email_verified_true_lets_its_listed_address_in() -> None:
    assert google_judged(google("bob@example.com")) is None


@pytest.mark.parametrize(("value", "said"), [(False, "false"), ("true", '"true"'), ("false", '"false"'), (1, "1")])
def test_a_google_token_whose_email_verified_is_not_json_true_is_refused(value: object, said: str) -> None:
    assert google_judged(google("bob@example.com", email_verified=value)) == (
        "not_verified",
        f"The ID token says email_verified: {said}, where the dashboard needs the value true. Verify the "
        "address with the provider, or ask whoever runs the dashboard.")


def test_xms_edov_counts_only_under_the_entra_rule() -> None:
    """Any provider may put a claim named xms_edov in its token; only Entra ID's is read, by the setting."""
    claims = google("bob@example.com", email_verified=None, xms_edov=True, tid=TENANT)
    assert google_judged(claims) == (
        "not_verified",
        "The ID token has no email_verified claim, where the dashboard needs the value true. Verify the "
        "address with the provider, or ask whoever runs the dashboard.")


@pytest.mark.parametrize(("email", "why"), [
    (None, "The ID token has no email claim."),
    ("alice", 'The ID token\'s email claim is "alice", not an e-mail address.'),
    (["alice@contoso.example"], 'The ID token\'s email claim is ["alice@contoso.example"], not an e-mail address.'),
])
@pytest.mark.parametrize("proof", ["email_verified", "entra_id", "none"])
def test_a_token_without_an_address_is_refused_as_no_address_under_every_rule(
        email: object, why: str, proof: str) -> None:
    claims = entra("alice@contoso.example") if proof == "entra_id" else google("bob@example.com")
    claims["email"] = email
    if email is None:
        del claims["email"]
    refusal = judge(claims, ALLOW, proof, TENANTS)
    assert refusal is not None and refusal.reason == "no_address"
    assert refusal.headline == f"{REFUSED}: the provider sent no e-mail address for it."
    assert refusal.detail == (f"{why} Sign in with an account that has one, or ask whoever runs the dashboard to "
                              "have the provider send it.")


@pytest.mark.parametrize("proof", ["email_verified", "entra_id", "none"])
def test_a_proven_address_off_the_list_is_refused_as_not_listed(proof: str) -> None:
    claims = entra("mallory@fabrikam.example") if proof == "entra_id" else google("mallory@fabrikam.example")
    refusal = judge(claims, ALLOW, proof, TENANTS)
    assert refusal is not None and refusal.reason == "not_listed"
    assert refusal.headline == f"{REFUSED}: its e-mail address is not on the allow-list."
    assert refusal.detail == ("The address is neither listed nor of a listed domain. Sign in with another account, "
                              "or ask whoever runs the dashboard to add you to its allow-list.")


def test_without_a_proof_rule_an_unverified_listed_address_is_let_in() -> None:
    claims = google("bob@example.com", email_verified=None)
    assert judge(claims, ALLOW, "none") is None
    assert judge(claims, ALLOW, "email_verified") is not None


def test_an_unknown_rule_proves_no_address() -> None:
    refusal = judge(google("bob@example.com"), ALLOW, "email-verified")
    assert refusal is not None and refusal.reason == "not_verified"


@pytest.mark.parametrize("proof", ["email_verified", "entra_id"])
def test_every_headline_is_fixed_words_free_of_markdown(proof: str) -> None:
    """The headline goes in an error box, which reads markdown: no claim's value and no markup in it."""
    shapes = [{"email": "*x*@evil.example"}, {"email": "[x](https://evil.example)@example.com"},
              entra("`x`@example.com", xms_edov=False), google("<b>x</b>@example.com", email_verified=False),
              entra("x@example.com", tid="_x_")]
    for claims in shapes:
        refusal = judge(claims, ALLOW, proof, TENANTS)
        assert refusal is not None
        assert not set(refusal.headline) & set("*_`[]<>#|\\"), refusal.headline


def test_the_log_line_names_reason_why_and_who_in_one_line() -> None:
    claims = entra("alice@contoso.example", xms_edov=False)
    refusal = judge(claims, ALLOW, "entra_id", TENANTS)
    assert refusal is not None
    assert log_line(refusal, claims) == (
        "lanelog sign-in refused (not_verified): The ID token says xms_edov: false, so Entra ID does not vouch "
        "that the tenant owns the address's domain. "
        f'email="alice@contoso.example" tid="{TENANT}" preferred_username="alice@contoso.example" '
        'sub="AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ"')


def test_no_claim_can_break_the_log_line_or_forge_a_field_in_it() -> None:
    hostile = 'eve@example.com"\nlanelog sign-in admitted email="alice@contoso.example'
    claims = {**entra(hostile, xms_edov="\u202etrue\r\n"), "sub": "x" * 10_000, "tid": TENANT}
    refusal = judge(claims, ALLOW, "entra_id", TENANTS)
    assert refusal is not None
    line = log_line(refusal, claims)
    assert line.splitlines() == [line] and line.isascii() and line.isprintable()
    assert line.count('email="') == 1 and 'admitted email="alice' not in line
    assert '"eve@example.com\\"\\nlanelog sign-in admitted email=\\"alice@contoso.example"' in line
    assert 'xms_edov: "\\u202etrue\\r\\n"' in line
    assert len(line) < 1200 and 'sub="' + "x" * 200 + '..."' in line


def test_shown_keeps_a_huge_value_short() -> None:
    assert shown({"a": ["b" * 50] * 100}) == "(a value of 5407 characters)"
    assert shown(None) == "null" and shown(True) == "true" and shown("\u00e9") == '"\\u00e9"'


@pytest.mark.parametrize(("email", "expected"), [
    ("alice@example.com", True), ("ALICE@example.com", True), ("bob@team.example", True),
    ("bob@sub.team.example", False), ("alice@example.com.evil", False), ("eve@example.com", False),
    ("team.example", False), ("", False), (None, False),
])
def test_the_allow_list_matches_addresses_and_whole_domains(email: str | None, expected: bool) -> None:
    assert allowed(email, ("alice@example.com", "team.example")) is expected


@pytest.mark.parametrize(("email", "entries", "expected"), [
    ("\u212aate@example.com", ("kate@example.com",), False),
    ("\u212aate@example.com", ("example.com",), False),
    ("\u212aate@example.com", ("\u212aate@example.com",), True),
    ("j\u00f6rg@example.com", ("example.com",), False),
    ("j\u00f6rg@example.com", ("J\u00f6rg@example.com",), True),
    ("J\u00d6RG@example.com", ("j\u00f6rg@example.com",), False),
    ("kate@example.com", ("\u212aate@example.com",), False),
])
def test_an_address_outside_ascii_matches_only_an_entry_that_names_it_exactly(
        email: str, entries: tuple[str, ...], expected: bool) -> None:
    assert allowed(email, entries) is expected
