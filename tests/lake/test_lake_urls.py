"""A URL's query string and user info never reach a message: a lake URL carrying credentials is refused
naming it without them, and every error that quotes a URL shows it without them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lanelog import store
from lanelog.cli import cli
from lanelog.urls import shown_url, without_url_secrets

SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
# DuckDB's own spelling of credentials in a URL, a presigned URL's token, and a fragment.
QUERIES = [f"?s3_secret_access_key={SECRET}", f"?X-Amz-Security-Token={SECRET}&X-Amz-Expires=60",
           f"?s3_region=us-east-1&s3_session_token={SECRET}", f"#{SECRET}"]


def run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(arg) for arg in args])
    return result.exit_code, result.output  # stdout and stderr, as a terminal shows them


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("command", [["report", "--lake"], ["check", "--lake"], ["export", "--lake"],
                                     ["report", "--engine", "spark", "--lake"]])
def test_a_lake_url_with_a_query_string_is_refused_without_echoing_it(tmp_path: Path, command: list[str],
                                                                      query: str) -> None:
    db = tmp_path / "db.duckdb"
    store.open_db(db).close()
    given = ["--db", db] if command[0] == "export" else []  # export writes the lake from a database
    code, output = run(*command, f"s3://lanelog-lake/lake{query}", *given, "--endpoint-url", "http://127.0.0.1:9")
    assert code == 2
    assert output == (f"Error: s3://lanelog-lake/lake{query[0]}…: a lake URL has no query string; credentials come "
                      "from the environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...)\n")
    assert SECRET not in output


@pytest.mark.parametrize("query", QUERIES)
def test_an_ingest_url_with_a_query_string_is_refused_without_echoing_it(tmp_path: Path, query: str) -> None:
    code, output = run("ingest", f"s3://ci-logs/lane-logs/{query}", "--db", tmp_path / "db.duckdb",
                       "--endpoint-url", "http://127.0.0.1:9")
    assert code == 2
    assert f"Error: s3://ci-logs/lane-logs/{query[0]}…: credentials in a URL are refused; " in output
    assert SECRET not in output


@pytest.mark.parametrize(("url", "shown"), [
    (f"s3://bucket/lake?s3_secret_access_key={SECRET}", "s3://bucket/lake?…"),
    (f"https://bucket.s3.amazonaws.com/k?X-Amz-Signature={SECRET}#x", "https://bucket.s3.amazonaws.com/k?…"),
    (f"s3://AKIA:{SECRET}@bucket/lake", "s3://bucket/lake"),
    (f"s3://AKIA:{SECRET}/x@bucket/lake", "s3://bucket/lake"),     # a secret holding a "/"
    (f"s3://AKIA:{SECRET}/lake", "s3://…/lake"),                   # no "@": a colon where the bucket stands
    (f"https://user:{SECRET}@host:8443/x", "https://host:8443/x"),
    ("http://[::1]:9000/lake", "http://[::1]:9000/lake"),          # a port, an IPv6 host: nothing hidden
    ("lake?folder", "lake?folder"),                                # a path, not a URL
])
def test_a_url_is_shown_without_its_query_string_or_user_info(url: str, shown: str) -> None:
    assert shown_url(url) == shown


def test_an_error_quoting_urls_or_credential_parameters_shows_neither_secret() -> None:
    text = (f"Forbidden: 'https://s3.example/b/k?X-Amz-Credential=AKIA&X-Amz-Security-Token={SECRET}' "
            f"(s3_secret_access_key={SECRET}, sig={SECRET}) at s3://u:{SECRET}@b/k")
    assert without_url_secrets(text) == ("Forbidden: 'https://s3.example/b/k?…' (s3_secret_access_key=…, sig=…) "
                                         "at s3://b/k")
    assert SECRET not in store.redacted(text)
