"""`lanelog check --notify` and `report --notify` end to end, against a real receiver on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.alerts.receiver import Answer, dripping_receiver, receiver, refused_url, silent_receiver
from tests.alerts.support import digest, ingest_lines, lanelog, runs_at_once, slack_problems, slack_text

HOSTILE = {
    "repo": "<!channel> <https://evil.example|click me> & *bold*",
    "producer": "bot`</code>` <@U0123> _x_\nsecond line",
    "attempt_id": "att-<!here>-`x`",
    "quarantine": ["q<!everyone>", "https://phish.example/login", "`tick`"],
}


def line(attempt_id: str, repo: str = "svc", ts: str = "2026-10-07T12:00:00Z", producer: str = "lanelog-route",
         quarantine: list[str] | None = None, credit: bool = True) -> dict[str, Any]:
    return {"attempt_id": attempt_id, "ts": ts, "repo": repo, "producer": producer, "probe": "pass",
            "model_call_allowed": True, "quarantine": ["test_flaky"] if quarantine is None else quarantine,
            "merge_credit": credit, "properties": ["p1"]}


@pytest.fixture
def make_db(tmp_path: Path) -> Callable[[list[dict[str, Any]]], Path]:
    return partial(ingest_lines, tmp_path)


def marks(db: Path) -> list[tuple[str, str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return sorted(con.execute("SELECT bug_key, receiver FROM alerts_sent").fetchall())


def claims(db: Path) -> list[tuple[str, str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return sorted(con.execute("SELECT bug_key, receiver FROM alerts_claimed").fetchall())


def age_claims(db: Path, minutes: int) -> None:
    """Every claim made `minutes` older, as if its run had died that long ago."""
    with duckdb.connect(str(db)) as con:
        con.execute(f"UPDATE alerts_claimed SET claimed_at = claimed_at - INTERVAL {int(minutes)} MINUTE")


def test_two_runs_send_each_credit_bug_once_and_renotify_sends_again(make_db) -> None:
    db = make_db([line("a1"), line("a2", repo="orders"), line("ok", credit=False), line("a3", quarantine=[])])
    with receiver() as one, receiver("/other/hook") as two:
        first = lanelog("check", "--db", str(db), "--notify", one.url, "--notify", two.url)
        assert first.returncode == 1, first.stderr  # credit bugs found, all sent
        assert "alerts: 4 sent, 0 sent before (to 2 webhook(s))" in first.stderr
        assert sorted(post["body"]["text"].split("`")[1] for post in one.posts) == ["a1", "a2"]
        assert len(two.posts) == 2
        assert marks(db) == sorted((f"attempt:{a}", digest(r.url)) for a in ("a1", "a2") for r in (one, two))

        second = lanelog("check", "--db", str(db), "--notify", one.url, "--notify", two.url)
        assert second.returncode == 1
        assert "alerts: 0 sent, 4 sent before" in second.stderr
        assert len(one.posts) == 2 and len(two.posts) == 2

        again = lanelog("check", "--db", str(db), "--notify", one.url, "--renotify")
        assert again.returncode == 1
        assert len(one.posts) == 4 and len(two.posts) == 2
        assert len(marks(db)) == 4


def test_slack_message_names_the_bug_and_links_to_triage(make_db) -> None:
    db = make_db([line("a1", repo="orders", producer="agent-x", quarantine=["t_a", "t_b"])])
    with receiver() as hook:
        done = lanelog("check", "--db", str(db), "--notify", hook.url, "--dashboard-url", "https://lanelog.example/")
        assert done.returncode == 1, done.stderr
    (post,) = hook.posts
    assert post["content_type"] == "application/json"
    body = post["body"]
    detail = body["blocks"][0]["text"]["text"]
    for shown in ("`orders`", "2026-10-05", "`a1`", "`agent-x`", "`t_a`, `t_b`"):
        assert shown in detail
    assert "`orders`" in body["text"] and "`a1`" in body["text"]
    assert body["blocks"][1]["text"]["text"] == (
        "<https://lanelog.example/triage?repo=orders&amp;weeks=2026-10-05&amp;weeks=2026-10-11"
        "|Open in credit-bug triage>")
    assert body["unfurl_links"] is False


def test_json_format_is_a_plain_event(make_db) -> None:
    db = make_db([line("a1", repo="orders", quarantine=["t_a"])])
    with receiver() as hook:
        done = lanelog("check", "--db", str(db), "--notify", hook.url, "--notify-format", "json")
        assert done.returncode == 1, done.stderr
    body = hook.posts[0]["body"]
    assert body["event"] == "credit_bug"
    shown = (body["repo"], body["week"], body["attempt_id"], body["quarantine"])
    assert shown == ("orders", "2026-10-05", "a1", ["t_a"])
    assert body["triage_url"] is None


def test_a_500_then_200_is_retried_and_sent_once(make_db) -> None:
    db = make_db([line("a1")])
    with receiver() as hook:
        hook.answers = [Answer(500, {"Retry-After": "0"}), Answer(429, {"Retry-After": "0"}), Answer(200)]
        done = lanelog("check", "--db", str(db), "--notify", hook.url)
        assert done.returncode == 1, done.stderr
        assert [post["status"] for post in hook.posts] == [500, 429, 200]
    assert marks(db) == [("attempt:a1", digest(hook.url))]


def test_a_receiver_failing_every_time_is_given_up_and_the_next_run_sends(make_db) -> None:
    db = make_db([line("a1"), line("a2")])
    with receiver() as hook:
        hook.answers = [Answer(503, {"Retry-After": "0"})]
        failed = lanelog("check", "--db", str(db), "--notify", hook.url)
        assert failed.returncode == 2
        assert "answered HTTP 503 3 times; gave up, not sent" in failed.stderr
        assert "next run sends the rest" in failed.stderr
        assert len(hook.posts) == 3  # one bug tried three times, then this receiver is left for the run
        assert marks(db) == []
        hook.answers = [Answer(200)]
        healed = lanelog("check", "--db", str(db), "--notify", hook.url)
        assert healed.returncode == 1, healed.stderr
        assert "alerts: 2 sent" in healed.stderr
    assert len(marks(db)) == 2


def test_a_client_error_is_not_retried(make_db) -> None:
    db = make_db([line("a1")])
    with receiver() as hook:
        hook.answers = [Answer(404)]
        done = lanelog("check", "--db", str(db), "--notify", hook.url)
    assert done.returncode == 2
    assert "answered HTTP 404; not sent (check the webhook URL)" in done.stderr
    assert len(hook.posts) == 1 and marks(db) == []


def test_a_slow_receiver_past_the_timeout_is_not_marked(make_db) -> None:
    db = make_db([line("a1")])
    with receiver() as hook:
        hook.answers = [Answer(200, delay=3.0), Answer(200)]
        slow = lanelog("check", "--db", str(db), "--notify", hook.url, "--notify-timeout", "0.5")
        assert slow.returncode == 2
        assert "timed out (timeout 0.5 s); not sent" in slow.stderr
        assert marks(db) == []
        again = lanelog("check", "--db", str(db), "--notify", hook.url, "--notify-timeout", "0.5")
        assert again.returncode == 1, again.stderr
    assert marks(db) == [("attempt:a1", digest(hook.url))]


def test_ingest_goes_on_while_a_webhook_answers(make_db, tmp_path: Path) -> None:
    db = make_db([line("a1")])
    new_log = tmp_path / "later.jsonl"
    new_log.write_text(json.dumps(line("b1", credit=False)) + "\n")
    ingested: list[subprocess.CompletedProcess[str]] = []
    with receiver() as hook:
        hook.answers = [Answer(200, during=lambda: ingested.append(
            lanelog("ingest", str(new_log), "--db", str(db), "--wait", "0")))]
        done = lanelog("check", "--db", str(db), "--notify", hook.url)
    assert done.returncode == 1, done.stderr
    assert len(ingested) == 1 and ingested[0].returncode == 0, ingested[0].stderr
    assert marks(db) == [("attempt:a1", digest(hook.url))]
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM attempts WHERE attempt_id = 'b1'").fetchone() == (1,)


def test_a_send_that_cannot_be_marked_is_an_error_its_claim_stands_and_it_is_sent_after_expiry(make_db) -> None:
    db = make_db([line("a1")])
    held: list[duckdb.DuckDBPyConnection] = []
    with receiver() as hook:
        hook.answers = [Answer(200, during=lambda: held.append(duckdb.connect(str(db)))), Answer(200)]
        locked = lanelog("check", "--db", str(db), "--notify", hook.url, "--wait", "0")
        held[0].close()
        assert locked.returncode == 2
        assert "but not recorded" in locked.stderr
        assert locked.stderr.endswith("its claim stands, and a run after it expires (600 s) sends it again\n")
        assert "XyZsecretToken42" not in locked.stderr
        assert marks(db) == [] and claims(db) == [("attempt:a1", digest(hook.url))]
        # The message went out: while its claim stands, no run sends it again.
        soon = lanelog("check", "--db", str(db), "--notify", hook.url)
        assert soon.returncode == 1, soon.stderr
        assert "alerts: 0 sent, 0 sent before, 1 being sent by another run (to 1 webhook(s))" in soon.stderr
        assert len(hook.posts) == 1
        age_claims(db, minutes=11)
        again = lanelog("check", "--db", str(db), "--notify", hook.url)
    assert again.returncode == 1, again.stderr
    assert len(hook.posts) == 2
    assert marks(db) == [("attempt:a1", digest(hook.url))] and claims(db) == []


def test_two_runs_at_once_post_each_credit_bug_exactly_once(make_db) -> None:
    """Each post takes the receiver half a second, so the two runs' sending overlaps: each
    claims a bug before posting it, and leaves the bugs the other has claimed."""
    bugs = [f"a{n}" for n in range(8)]
    db = make_db([line(bug) for bug in bugs])
    command = [sys.executable, "-m", "lanelog", "check", "--db", str(db)]
    hook, runs, outputs = runs_at_once(command, delay=0.5)
    assert [run.returncode for run in runs] == [1, 1], outputs
    posted = sorted(post["body"]["text"].split("`")[1] for post in hook.posts)
    assert posted == sorted(bugs)  # each once, none twice
    assert marks(db) == sorted((f"attempt:{bug}", digest(hook.url)) for bug in bugs)
    assert claims(db) == []
    sent = [int(err.split("alerts: ", 1)[1].split(" sent,", 1)[0]) for _, err in outputs]
    assert sum(sent) == len(bugs)


def test_a_claim_left_by_a_run_that_died_is_retried_after_it_expires(make_db) -> None:
    db = make_db([line("old"), line("recent")])
    with receiver() as hook:
        with duckdb.connect(str(db)) as con:  # two runs died after claiming, 11 and 2 minutes ago
            for key, minutes in (("attempt:old", 11), ("attempt:recent", 2)):
                con.execute("INSERT INTO alerts_claimed VALUES (?, ?, 'a-run-that-died', "
                            "CAST(now() AT TIME ZONE 'UTC' AS TIMESTAMP) - to_minutes(?))",
                            [key, digest(hook.url), minutes])
        done = lanelog("check", "--db", str(db), "--notify", hook.url)
        assert done.returncode == 1, done.stderr
        assert "alerts: 1 sent, 0 sent before, 1 being sent by another run (to 1 webhook(s))" in done.stderr
        assert [post["body"]["text"].split("`")[1] for post in hook.posts] == ["old"]
        assert marks(db) == [("attempt:old", digest(hook.url))]
        assert claims(db) == [("attempt:recent", digest(hook.url))]
        shorter = lanelog("check", "--db", str(db), "--notify", hook.url, "--notify-timeout", "5",
                          "--notify-claim-expiry", "90")
        assert shorter.returncode == 1, shorter.stderr
        assert [post["body"]["text"].split("`")[1] for post in hook.posts] == ["old", "recent"]
    assert claims(db) == []


def test_a_claim_expiry_shorter_than_a_post_is_refused(make_db) -> None:
    db = make_db([line("a1")])
    done = lanelog("check", "--db", str(db), "--notify", "https://hooks.example/x", "--notify-timeout", "20",
                   "--notify-claim-expiry", "100")
    assert done.returncode == 2
    assert done.stderr.endswith("Error: --notify-claim-expiry must be longer than a post can take: 120 s with "
                                "--notify-timeout 20\n")


def test_a_refused_connection_is_an_error(make_db) -> None:
    db = make_db([line("a1")])
    url = refused_url()
    done = lanelog("check", "--db", str(db), "--notify", url)
    assert done.returncode == 2
    assert "Connection refused" in done.stderr and "not sent" in done.stderr
    assert marks(db) == []


@pytest.mark.parametrize("path", ["/hooks/SECRET TOKEN", "/hooks/SECRET\tTOKEN", "/hooks/SECRET\x7fTOKEN",
                                  "/hooks/SECRET\x01TOKEN", "/hooks/SECRET\u00e9TOKEN"])
def test_a_webhook_url_that_cannot_be_sent_is_named_by_its_host_and_digest_alone(make_db, path: str) -> None:
    # http.client's own message quoted the path ("URL can't contain control characters. '/hooks/...'").
    db = make_db([line("a1")])
    with receiver(path) as hook:
        done = lanelog("check", "--db", str(db), "--notify", hook.url)
    assert done.returncode == 2 and hook.posts == []
    assert done.stderr == ("Error: a --notify URL is printable ASCII, with no space or control character "
                           f"(receiver http://127.0.0.1:{hook.url.split(':')[2].split('/')[0]}/… "
                           f"({digest(hook.url)[:12]}))\n")
    assert "SECRET" not in done.stdout + done.stderr and "TOKEN" not in done.stdout + done.stderr


@pytest.mark.parametrize("url", ["http://[::1/hooks/SECRET", "http://127.0.0.1:99999/hooks/SECRET",
                                 "http://127.0.0.1:0x50/hooks/SECRET"])
def test_a_webhook_url_that_cannot_be_read_is_a_usage_error_naming_its_digest(make_db, url: str) -> None:
    db = make_db([line("a1")])
    done = lanelog("check", "--db", str(db), "--notify", url)
    assert done.returncode == 2  # never 1, which check means for a credit bug
    assert done.stderr == ("Error: a --notify URL must be an http:// or https:// address with a host "
                           f"(receiver … ({digest(url)[:12]}))\n")
    assert "SECRET" not in done.stdout + done.stderr


def test_a_receiver_that_never_reads_times_out(make_db) -> None:
    db = make_db([line("a1")])
    with silent_receiver() as url:
        done = lanelog("check", "--db", str(db), "--notify", url, "--notify-timeout", "0.5")
    assert done.returncode == 2
    assert "timed out" in done.stderr
    assert marks(db) == []


def test_a_receiver_that_drips_its_answer_is_ended_at_the_timeout_of_the_whole_post(make_db) -> None:
    """--notify-timeout bounds each post as a whole, not each read (each byte here comes within it)."""
    db = make_db([line("a1")])
    with dripping_receiver() as (url, bodies):
        done = lanelog("check", "--db", str(db), "--notify", url, "--notify-timeout", "0.5")
        assert done.returncode == 2
        assert done.stderr.endswith("timed out (timeout 0.5 s); not sent\n")
        assert len(bodies) == 1 and marks(db) == []
        review = lanelog("report", "--db", str(db), "--format", "markdown", "--notify", url,
                         "--notify-timeout", "0.5")
    assert review.returncode == 2
    assert review.stderr.endswith("timed out (timeout 0.5 s); not sent\n")
    assert "dripSecret55" not in done.stderr + review.stderr


@pytest.mark.parametrize(("version", "drip", "length", "sent"), [
    ("1.1", "headers", 300, 300),
    ("1.1", "body", 300, 300),
    ("1.0", "body", None, 300),   # no Content-Length: read until the connection closes
    ("1.1", "body", 1000, 10),    # a Content-Length larger than what is sent, then silence
    ("1.0", "body", 1000, 10),
    ("1.0", "body", 1000, 300),   # larger than what is sent, and what is sent dripped
])
def test_the_deadline_ends_the_post_whatever_the_receiver_drips(make_db, version, drip, length, sent) -> None:
    """A receiver that answers 200 and then drips (its headers, or its body) holds the run no longer than
    --notify-timeout: past it the post ends as timed out, whatever its read was waiting on."""
    db = make_db([line("a1")])
    with dripping_receiver(version=version, drip=drip, length=length, sent=sent) as (url, bodies):
        # Bounded at 20 s: a run that the drip holds (30 s and more) fails here, never hangs.
        done = subprocess.run([sys.executable, "-m", "lanelog", "check", "--db", str(db), "--notify", url,
                               "--notify-timeout", "0.5"], capture_output=True, text=True, timeout=20, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.endswith("timed out (timeout 0.5 s); not sent\n")
    assert len(bodies) == 1 and marks(db) == [] and claims(db) == []


def test_markup_in_every_text_field_is_escaped_for_slack(make_db) -> None:
    db = make_db([line(HOSTILE["attempt_id"], repo=HOSTILE["repo"], producer=HOSTILE["producer"],
                       quarantine=HOSTILE["quarantine"])])
    with receiver() as hook:
        done = lanelog("check", "--db", str(db), "--notify", hook.url, "--dashboard-url", "https://dash.example")
        assert done.returncode == 1, done.stderr
    body = hook.posts[0]["body"]
    texts = [body["text"], body["blocks"][0]["text"]["text"]]
    link = body["blocks"][1]["text"]["text"]
    for text in texts:
        # Slack reads "<" as the start of a mention or a link: none may come from the data.
        assert "<" not in text and ">" not in text
        assert "&lt;!channel&gt;" in text or "&lt;!here&gt;" in text
        # Every value sits in a code span, whole: its backticks cannot close the span.
        assert text.count("`") % 2 == 0
    detail = texts[1]
    assert "`&lt;!channel&gt; &lt;https://evil.example|click me&gt; &amp; *bold*`" in detail
    assert "`bot\u02cb&lt;/code&gt;\u02cb &lt;@U0123&gt; _x_\\x0asecond line`" in detail
    assert "`att-&lt;!here&gt;-\u02cbx\u02cb`" in detail
    assert "`q&lt;!everyone&gt;`, `https://phish.example/login`, `\u02cbtick\u02cb`" in detail
    # The one link is the triage address, its query string percent-encoded: no "|" or ">" can end it early.
    assert link.count("<") == 1 and link.count(">") == 1 and link.count("|") == 1
    assert link.startswith("<https://dash.example/triage?repo=%3C%21channel%3E")


def test_json_format_carries_hostile_text_as_data(make_db) -> None:
    db = make_db([line(HOSTILE["attempt_id"], repo=HOSTILE["repo"], producer=HOSTILE["producer"],
                       quarantine=HOSTILE["quarantine"])])
    with receiver() as hook:
        lanelog("check", "--db", str(db), "--notify", hook.url, "--notify-format", "json")
    body = hook.posts[0]["body"]
    assert {key: body[key] for key in HOSTILE} == HOSTILE


def test_report_sends_the_weekly_review_as_a_digest(make_db) -> None:
    spent = {"p1": {"input_tokens": 10, "output_tokens": 1, "cost": 0.5, "currency": "USD"}}
    db = make_db([{**line("a1", repo=HOSTILE["repo"]), "usage": spent}, line("ok", credit=False)])
    with receiver() as hook:
        done = lanelog("report", "--db", str(db), "--format", "markdown", "--notify", hook.url)
        assert done.returncode == 0, done.stderr
        wrong = lanelog("report", "--db", str(db), "--notify", hook.url)
    assert wrong.returncode == 2 and "give --format markdown" in wrong.stderr
    (post,) = hook.posts
    body = post["body"]
    # Slack blocks and mrkdwn, not the markdown review in a code block.
    assert slack_problems(body) == [] and "```" not in json.dumps(body)
    assert body["blocks"][0]["text"]["text"] == "lanelog weekly review: week of 2026-10-05"
    text = slack_text(body)
    assert "*Credit bugs*\n1" in text and "*Attempts*\n2" in text
    # A name from a log is a code span, its Slack characters escaped: no mention, no link.
    assert "<" not in text
    assert "1. `&lt;!channel&gt; &lt;https://evil.example|click me&gt; &amp; *bold*`: 0.50 USD" in text


def test_notify_needs_the_database_and_an_http_url(make_db, tmp_path: Path) -> None:
    db = make_db([line("a1")])
    log = tmp_path / "lane-log.jsonl"
    refused = lanelog("check", str(log), "--notify", "https://hooks.example/T/B/secretAbc")
    assert refused.returncode == 2 and "--notify needs the database" in refused.stderr
    bad = lanelog("check", "--db", str(db), "--notify", "file:///etc/passwd#secretAbc")
    assert bad.returncode == 2 and "http:// or https://" in bad.stderr
    assert "secretAbc" not in bad.stderr + bad.stdout and "passwd" not in bad.stderr
    alone = lanelog("check", "--db", str(db), "--renotify")
    assert alone.returncode == 2 and "go with --notify" in alone.stderr


def _all_bytes(root: Path) -> list[tuple[Path, bytes]]:
    return [(path, path.read_bytes()) for path in root.rglob("*") if path.is_file()]


def test_the_webhook_url_is_never_printed_stored_or_written(make_db, tmp_path: Path) -> None:
    db = make_db([line("a1"), line("a2", repo=HOSTILE["repo"])])
    outputs: list[str] = []
    secrets: list[str] = []

    def run(*args: str, env: dict[str, str] | None = None) -> None:
        done = lanelog(*args, env=env)
        outputs.extend([done.stdout, done.stderr])

    with receiver("/services/T9/B9/tokenGood0001") as good, receiver("/services/T9/B9/tokenBad0002") as bad:
        bad.answers = [Answer(500, {"Retry-After": "0"})]
        secrets += [good.url, bad.url]
        run("check", "--db", str(db), "--notify", good.url, "--notify", bad.url, "--dashboard-url", "https://d.example")
        run("check", "--db", str(db), "--json", env={"LANELOG_NOTIFY": f"{good.url} {bad.url}"})
        run("check", "--db", str(db), "--notify", good.url, "--renotify", "--notify-format", "json")
        run("report", "--db", str(db), "--format", "markdown", "--notify", bad.url)
        with silent_receiver("/hooks/tokenSilent0003") as silent:
            secrets.append(silent)
            run("check", "--db", str(db), "--notify", silent, "--notify-timeout", "0.3")
        slow_refused = refused_url("/hooks/tokenRefused0004")
        secrets.append(slow_refused)
        run("check", "--db", str(db), "--notify", slow_refused)
    assert good.posts and bad.posts  # the runs did send
    tokens = [url.rsplit("/", 1)[1] for url in secrets]
    shown = "\n".join(outputs)
    assert "127.0.0.1" in shown  # errors name receivers, redacted
    for url, token in zip(secrets, tokens):
        assert url not in shown and token not in shown
        for path, data in _all_bytes(tmp_path):
            assert token.encode() not in data, f"{token} in {path}"
    with duckdb.connect(str(db), read_only=True) as con:
        tables = [row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        for table in tables:
            text = json.dumps(con.execute(f'SELECT * FROM "{table}"').fetchall(), default=str)
            for token in tokens:
                assert token not in text, f"{token} in table {table}"
        receivers = {row[0] for row in con.execute("SELECT DISTINCT receiver FROM alerts_sent").fetchall()}
    assert receivers == {digest(good.url)}


def test_check_notify_upgrades_a_version_2_database_and_sends(tmp_path: Path) -> None:
    """alerts_sent is part of schema version 3: an upgraded database has it as a new one does."""
    import shutil

    old = tmp_path / "old.duckdb"
    shutil.copyfile(Path(__file__).parents[1] / "store" / "data" / "v2.duckdb", old)
    with receiver() as hook:
        done = lanelog("check", "--db", str(old), "--notify", hook.url)
        assert done.returncode == 1, done.stderr  # the fixture holds one credit bug (v2-3)
        assert len(hook.posts) == 1
    assert marks(old) == [("attempt:v2-3", digest(hook.url))]
    new = tmp_path / "new.duckdb"
    (tmp_path / "empty.jsonl").write_text("")
    assert lanelog("ingest", str(tmp_path / "empty.jsonl"), "--db", str(new)).returncode == 0

    def columns(path: Path) -> list[tuple]:
        with duckdb.connect(str(path), read_only=True) as con:
            return con.execute("SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                               "WHERE table_name = 'alerts_sent' ORDER BY ordinal_position").fetchall()

    assert columns(old) == columns(new) != []
