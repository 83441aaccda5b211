"""Credit-bug alerts and the weekly digest, posted to incoming webhooks.

A webhook URL is a secret (whoever holds it can post to the channel): it is never
printed, logged or stored.  A `Receiver` keeps it private and shows itself as a
redacted form (scheme://host/… and a digest prefix); the database tells receivers
apart by the sha256 of the URL.

Everything a lane log says (repository, producer, attempt and quarantine ids) is
untrusted: in Slack's markup each value sits in a code span with & < > escaped and
backticks replaced, so no text can ping a channel, form a link or end the span.

Only the standard library talks HTTP here (urllib): a webhook post needs no session,
no connection pool and no client that is not already installed everywhere lanelog runs.
Each attempt at a post has one deadline for all of it (resolving, connecting, sending,
the whole answer): a socket timeout alone bounds each read, and a receiver that answers
a byte a second would hold a run without end.
This module imports nothing of the project but the errors, and no storage: the
caller says which bugs were sent already and stores the marks.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

from lanelog import __version__
from lanelog.errors import AlertError, LanelogError

FORMATS = ("slack", "json")
TIMEOUT_S = 10.0
ATTEMPTS = 3                # one post and two retries, on 429 and 5xx only
FIRST_BACKOFF_S = 1.0
MAX_RETRY_AFTER_S = 30.0    # a receiver's Retry-After is honoured up to this
RESPONSE_LIMIT = 64 * 1024  # bytes of a response body read, at most
VALUE_LIMIT = 200           # characters of one untrusted value shown in a message
SECTION_LIMIT = 2900        # Slack takes up to 3000 characters in one section's text
MAX_SECTIONS = 45           # and up to 50 blocks in one message


@dataclass(frozen=True)
class Receiver:
    """One webhook: its URL, kept out of repr, and the forms that may be shown or stored."""

    url: str = field(repr=False)

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            # The URL itself is never echoed, even a malformed one: it may still hold the token.
            raise AlertError(f"a --notify URL must be an http:// or https:// address with a host "
                             f"(receiver {self.digest[:12]})")

    @property
    def digest(self) -> str:
        """sha256 of the URL (hex): stored to remember what was sent where, never the URL."""
        return hashlib.sha256(self.url.encode("utf-8")).hexdigest()

    @property
    def redacted(self) -> str:
        """scheme://host[:port]/… and the digest's first 12 digits: what errors name."""
        parts = urlsplit(self.url)
        host = parts.hostname or "?"
        if ":" in host:
            host = f"[{host}]"
        try:
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            port = ""
        return f"{parts.scheme}://{host}{port}/… ({self.digest[:12]})"

    def __str__(self) -> str:
        return self.redacted


def bug_key(bug: dict[str, Any]) -> str:
    """What identifies a credit bug across runs: its attempt id, else its line's text."""
    if bug.get("attempt_id"):
        return f"attempt:{bug['attempt_id']}"
    return "line:" + hashlib.sha256(str(bug.get("raw") or "").encode("utf-8")).hexdigest()


# ---- Slack mrkdwn ---------------------------------------------------------------

def slack_escape(text: str) -> str:
    """Slack's three control characters escaped, as its docs ask: no <!channel>, no <link|label>."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _plain(value: Any) -> str:
    """One untrusted value as a single line of bounded length, control characters made visible."""
    if value is None or value == "":
        return "(none)"
    text = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}"
                   for ch in str(value))
    return text if len(text) <= VALUE_LIMIT else text[:VALUE_LIMIT] + "…"


def slack_code(value: Any) -> str:
    """An untrusted value as a Slack code span: never a link, a mention or formatting."""
    # U+02CB looks like a backtick but cannot close the span.
    return "`" + slack_escape(_plain(value).replace("`", "\u02cb")) + "`"


def _week(bug: dict[str, Any]) -> str:
    week = bug.get("week")
    return week.isoformat() if isinstance(week, (date, datetime)) else str(week) if week else "undated"


def _ids(values: Any) -> list[str]:
    if values is None:
        return []
    return [str(value) for value in values] if isinstance(values, (list, tuple)) else [str(values)]


def triage_link(dashboard_url: str | None, bug: dict[str, Any]) -> str | None:
    """The triage page scoped to the bug's repository and week (the sidebar's address filters)."""
    if not dashboard_url:
        return None
    params: list[tuple[str, str]] = []
    if bug.get("repo") is not None:
        params.append(("repo", str(bug["repo"])))
    week = bug.get("week")
    if isinstance(week, (date, datetime)):
        monday = week if not isinstance(week, datetime) else week.date()
        params += [("weeks", monday.isoformat()), ("weeks", date.fromordinal(monday.toordinal() + 6).isoformat())]
    query = f"?{urlencode(params)}" if params else ""
    return f"{dashboard_url.rstrip('/')}/triage{query}"


def check_dashboard_url(url: str | None) -> str | None:
    """The --dashboard-url, refused unless it is an http(s) address (it becomes a link)."""
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c in url for c in "<>|\n\r \t"):
        raise AlertError(f"--dashboard-url must be an http:// or https:// address, not {url!r}")
    return url


def credit_bug_message(bug: dict[str, Any], fmt: str, dashboard_url: str | None = None) -> dict[str, Any]:
    """The message for one credit bug: Slack blocks and text, or a plain JSON event."""
    link = triage_link(dashboard_url, bug)
    if fmt == "json":
        return {
            "event": "credit_bug", "repo": bug.get("repo"), "week": None if _week(bug) == "undated" else _week(bug),
            "ts": bug["ts"].isoformat() if isinstance(bug.get("ts"), datetime) else bug.get("ts"),
            "attempt_id": bug.get("attempt_id"), "producer": bug.get("producer"),
            "quarantine": _ids(bug.get("quarantine")), "merge_credit": bug.get("merge_credit"),
            "triage_url": link,
        }
    quarantine = ", ".join(slack_code(q) for q in _ids(bug.get("quarantine"))) or "(none)"
    headline = (f"lanelog credit bug: merge credit on quarantined attempt {slack_code(bug.get('attempt_id'))} "
                f"in {slack_code(bug.get('repo'))}, week {_week(bug)}")
    detail = "\n".join([
        "*Credit bug*: merge credit on an attempt whose quarantine is not empty",
        f"*Repository:* {slack_code(bug.get('repo'))}",
        f"*Week:* {_week(bug)}",
        f"*Attempt:* {slack_code(bug.get('attempt_id'))}",
        f"*Producer:* {slack_code(bug.get('producer'))}",
        f"*Quarantine:* {quarantine}",
    ])
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": detail}}]
    if link:
        blocks.append({"type": "section", "text": {"type": "mrkdwn",
                                                   "text": f"<{slack_escape(link)}|Open in credit-bug triage>"}})
    return {"text": headline, "blocks": blocks, "unfurl_links": False, "unfurl_media": False}


def digest_message(markdown: str, fmt: str, report: dict[str, Any] | None = None) -> dict[str, Any]:
    """The weekly review as one message: preformatted sections for Slack, or the text and figures."""
    if fmt == "json":
        return {"event": "weekly_review", "markdown": markdown, "report": report}
    text = slack_escape(markdown.replace("`", "\u02cb"))
    chunks: list[str] = []
    current = ""
    for line in text.splitlines():
        line = line[:SECTION_LIMIT - 10]
        if len(current) + len(line) + 1 > SECTION_LIMIT - 8:
            chunks.append(current)
            current = ""
        current += line + "\n"
    chunks.append(current)
    if len(chunks) > MAX_SECTIONS:
        rest = "(the review is longer than one message holds: lanelog report --format markdown prints it all)\n"
        chunks = [*chunks[:MAX_SECTIONS], rest]
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": f"```\n{chunk}```"}} for chunk in chunks]
    return {"text": "lanelog weekly spend review", "blocks": blocks, "unfurl_links": False, "unfurl_media": False}


# ---- posting --------------------------------------------------------------------

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A webhook that answers with a redirect is a failed send, not a post to elsewhere."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class _Connections:
    """The connections one attempt opens, so that its deadline can end a read blocked on one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._opened: list[http.client.HTTPConnection] = []
        self._ended = False

    def track(self, connection_class: Any) -> Callable[..., http.client.HTTPConnection]:
        def connect(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
            connection: http.client.HTTPConnection = connection_class(*args, **kwargs)
            with self._lock:
                self._opened.append(connection)
                ended = self._ended
            if ended:
                connection.close()
            return connection
        return connect

    def end(self) -> None:
        """Shut every connection down: a read blocked on one returns at once."""
        with self._lock:
            self._ended = True
            opened = list(self._opened)
        for connection in opened:
            sock = connection.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            connection.close()


class _HTTP(urllib.request.HTTPHandler):
    def __init__(self, connections: _Connections) -> None:
        super().__init__()
        self._connections = connections

    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
        return super().do_open(self._connections.track(http_class), req, **kwargs)


class _HTTPS(urllib.request.HTTPSHandler):
    def __init__(self, connections: _Connections) -> None:
        super().__init__()
        self._connections = connections

    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
        return super().do_open(self._connections.track(http_class), req, **kwargs)


def _attempt(request: urllib.request.Request, timeout: float) -> int:
    """One post, the status of its answer once read whole, within `timeout` seconds for all of it.

    It runs in a thread of its own, so nothing (not a name lookup, a connect, a read) can
    outlast the deadline; past it, its connections are shut and TimeoutError is raised.
    An HTTP error status is raised as urllib's HTTPError, as urllib raises it.
    """
    connections = _Connections()
    opener = urllib.request.build_opener(_NoRedirect, _HTTP(connections), _HTTPS(connections))
    outcome: list[Any] = []

    def post_once() -> None:
        try:
            with opener.open(request, timeout=timeout) as response:
                response.read(RESPONSE_LIMIT)
                outcome.append(response.status)
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread as it is
            outcome.append(error)

    worker = threading.Thread(target=post_once, name="lanelog-webhook-post", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive() or not outcome:
        connections.end()
        raise TimeoutError(f"no complete answer within {timeout:g} s")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    status: int = outcome[0]
    return status


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (seconds or an HTTP date), capped; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value) if value.isdigit() else (
            parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
    except (TypeError, ValueError, OverflowError):
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


def post(receiver: Receiver, message: dict[str, Any], *, timeout: float = TIMEOUT_S,
         sleep: Callable[[float], None] = time.sleep) -> None:
    """POST the message as JSON; retry 429 and 5xx with backoff; raise AlertError when it is not delivered.

    `timeout` bounds each attempt as a whole: connecting, sending and the whole answer
    (ATTEMPTS of them at most, with waits of at most MAX_RETRY_AFTER_S between).  A
    timeout or a network error is not retried: the receiver may have taken the
    message, and the next run sends again.
    """
    body = json.dumps(message).encode("utf-8")
    backoff = FIRST_BACKOFF_S
    for attempt in range(1, ATTEMPTS + 1):
        request = urllib.request.Request(receiver.url, data=body, method="POST", headers={
            "Content-Type": "application/json", "User-Agent": f"lanelog/{__version__}"})
        try:
            status = _attempt(request, timeout)
            if 200 <= status < 300:
                return
            raise AlertError(f"receiver {receiver} answered HTTP {status}; not sent")
        except urllib.error.HTTPError as error:
            status, wait = error.code, _retry_after(error.headers.get("Retry-After") if error.headers else None)
            error.close()
            if status != 429 and status < 500:
                raise AlertError(f"receiver {receiver} answered HTTP {status}; not sent "
                                 "(check the webhook URL)") from None
            if attempt == ATTEMPTS:
                raise AlertError(f"receiver {receiver} answered HTTP {status} {ATTEMPTS} times; "
                                 "gave up, not sent") from None
            sleep(wait if wait is not None else backoff)
            backoff *= 2
        except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
            reason = getattr(error, "reason", error)
            what = "timed out" if isinstance(reason, TimeoutError) or "timed out" in str(reason) else str(reason)
            raise AlertError(f"receiver {receiver}: {what} (timeout {timeout:g} s); not sent") from None


@dataclass
class Outcome:
    """What one delivery did: messages sent, bugs skipped as sent before, and failures."""

    sent: int = 0
    already_sent: int = 0
    failures: list[str] = field(default_factory=list)


def deliver(bugs: Iterable[dict[str, Any]], receivers: Iterable[Receiver], *, fmt: str,
            dashboard_url: str | None, sent_before: Callable[[Receiver], set[str]],
            mark_sent: Callable[[Receiver, str], None], renotify: bool = False,
            timeout: float = TIMEOUT_S) -> Outcome:
    """Post each credit bug not yet sent to each receiver, marking each one as soon as it is delivered.

    A receiver that fails is given up for this run after its first failure (the next
    run sends what it missed); the other receivers still get theirs.
    """
    outcome = Outcome()
    bugs = list(bugs)
    for receiver in receivers:
        done = set() if renotify else sent_before(receiver)
        for bug in bugs:
            key = bug_key(bug)
            if key in done:
                outcome.already_sent += 1
                continue
            try:
                post(receiver, credit_bug_message(bug, fmt, dashboard_url), timeout=timeout)
            except AlertError as error:
                outcome.failures.append(str(error))
                break
            try:
                mark_sent(receiver, key)
            except LanelogError as error:
                outcome.failures.append(f"sent to {receiver} but not recorded ({error}); the next run "
                                        "sends it again")
                break
            done.add(key)
            outcome.sent += 1
    return outcome
