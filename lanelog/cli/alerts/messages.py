"""What an alert says: the receiver as it may be shown, and the messages, with no lane-log text trusted.

A webhook URL is a secret (whoever holds it can post to the channel): it is never
printed, logged or stored.  A `Receiver` keeps it private and shows itself as a
redacted form (scheme://host/… and a digest prefix); the database tells receivers
apart by the sha256 of the URL.

Everything a lane log says (repository, producer, attempt and quarantine ids) is
untrusted: in Slack's markup each value sits in a code span with & < > escaped and
backticks replaced, so no text can ping a channel, form a link or end the span.  A link
is made only of an address that passes the outcome's URL check (`linkable`), its text
escaped the same way.  Slack refuses a whole message over its Block Kit limits, so every
message keeps within them whatever the data: a long list is cut as "and N more"
(`listed`), a section held to SECTION_LIMIT, the blocks to MAX_SECTIONS.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

from lanelog.errors import AlertError
from lanelog.events import jsonable
from lanelog.urls import shown_url

FORMATS = ("slack", "json")
URL_LIMIT = 2048            # characters of an address a link may hold (the outcome's check)
VALUE_LIMIT = 200           # characters of one untrusted value shown in a message
SECTION_LIMIT = 2900        # Slack takes up to 3000 characters in one section's text
MAX_SECTIONS = 45           # and up to 50 blocks in one message
FIELD_LIMIT = 1900          # and up to 2000 in one field, ten fields at most


@dataclass(frozen=True)
class Receiver:
    """One webhook: its URL, kept out of repr, and the forms that may be shown or stored."""

    url: str = field(repr=False)

    def __post_init__(self) -> None:
        # The URL itself is never echoed, even a malformed one: it may still hold the token.  A space,
        # a tab, DEL or any other byte an HTTP request line cannot hold is refused here, before
        # http.client would quote the URL's path in its own message.
        if not all("!" <= char <= "~" for char in self.url):
            raise AlertError(f"a --notify URL is printable ASCII, with no space or control character "
                             f"(receiver {self.redacted})")
        try:
            parts = urlsplit(self.url)
            usable = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
        except ValueError:  # a bracket left open, a port that is no number
            usable = False
        if not usable:
            raise AlertError(f"a --notify URL must be an http:// or https:// address with a host "
                             f"(receiver {self.redacted})")

    @property
    def digest(self) -> str:
        """sha256 of the URL (hex): stored to remember what was sent where, never the URL."""
        return hashlib.sha256(self.url.encode("utf-8", "surrogateescape")).hexdigest()

    @property
    def redacted(self) -> str:
        """scheme://host[:port]/… and the digest's first 12 digits: what errors name (the host alone when
        the URL can be read, else the digest alone)."""
        try:
            parts = urlsplit(self.url)
            host = parts.hostname or "?"
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            return f"… ({self.digest[:12]})"
        if ":" in host:
            host = f"[{host}]"
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


def plain_text(value: Any) -> str:
    """One untrusted value as a single line of bounded length, control characters made visible."""
    if value is None or value == "":
        return "(none)"
    text = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}"
                   for ch in str(value))
    return text if len(text) <= VALUE_LIMIT else text[:VALUE_LIMIT] + "…"


def slack_code(value: Any) -> str:
    """An untrusted value as a Slack code span: never a link, a mention or formatting."""
    # U+02CB looks like a backtick but cannot close the span.
    return "`" + slack_escape(plain_text(value).replace("`", "\u02cb")) + "`"


def linkable(url: Any) -> bool:
    """Whether an address may stand in a Slack link: the outcome's URL check (an http or https URL of at
    most 2,048 printable ASCII characters, with a host and no credentials) and none of Slack's < > |."""
    if not isinstance(url, str) or not 1 <= len(url) <= URL_LIMIT or not all("!" <= char <= "~" for char in url) \
            or any(char in url for char in "<>|"):
        return False
    try:
        parts = urlsplit(url)
        return parts.scheme in ("http", "https") and bool(parts.hostname) and "@" not in parts.netloc \
            and (parts.port is None or parts.port > 0)
    except ValueError:  # a bad port or IPv6 literal
        return False


def slack_link(url: Any, text: Any) -> str | None:
    """A Slack link <url|text> for an address that is `linkable`, its text escaped and bounded (log text
    never forms a link or a mention of its own); None for any other address."""
    if not linkable(url):
        return None
    return f"<{slack_escape(url)}|{slack_escape(plain_text(text))}>"


def listed(items: list[str], room: int, sep: str = ", ", noun: str = "") -> str:
    """As many items as fit in `room` characters, joined by `sep`; the rest cut as "and N more", never refused.

    Slack refuses a whole message whose section is over its limit: a long quarantine or a
    budgets file at its maximum must shorten the list, not lose the message."""
    shown: list[str] = []
    used = 0
    for n, item in enumerate(items):
        rest = len(items) - n - 1
        tail = len(f"{sep}and {rest} more{noun}") if rest else 0
        cost = len(item) + (len(sep) if shown else 0)
        if used + cost + tail > room:
            return sep.join(shown) + f"{sep if shown else ''}and {len(items) - n} more{noun}"
        shown.append(item)
        used += cost
    return sep.join(shown)


def section(text: str) -> dict[str, Any]:
    """A mrkdwn section, its text held within SECTION_LIMIT (a cut text says so)."""
    if len(text) > SECTION_LIMIT:
        text = text[:SECTION_LIMIT - 20] + "… (cut to fit)"
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def blocks_within(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """At most MAX_SECTIONS blocks (Slack takes 50), the last saying how many were left out."""
    if len(blocks) <= MAX_SECTIONS:
        return blocks
    kept = blocks[:MAX_SECTIONS - 1]
    return [*kept, section(f"and {len(blocks) - len(kept)} more sections, left out to fit")]


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
    if not linkable(url):
        raise AlertError(f"--dashboard-url must be an http:// or https:// address, not {shown_url(url)!r}")
    return url


def credit_bug_message(bug: dict[str, Any], fmt: str, dashboard_url: str | None = None) -> dict[str, Any]:
    """The message for one credit bug: Slack blocks and text, or a plain JSON event."""
    link = triage_link(dashboard_url, bug)
    if fmt == "json":
        return {
            "event": "credit_bug", "repo": bug.get("repo"), "week": None if _week(bug) == "undated" else _week(bug),
            "ts": jsonable(bug.get("ts")),
            "attempt_id": bug.get("attempt_id"), "producer": bug.get("producer"),
            "quarantine": _ids(bug.get("quarantine")),
            "merge_credit": jsonable(bug.get("merge_credit"), "merge_credit"),
            "triage_url": link,
        }
    headline = (f"lanelog credit bug: merge credit on quarantined attempt {slack_code(bug.get('attempt_id'))} "
                f"in {slack_code(bug.get('repo'))}, week {_week(bug)}")
    detail = "\n".join([
        "*Credit bug*: merge credit on an attempt whose quarantine is not empty",
        f"*Repository:* {slack_code(bug.get('repo'))}",
        f"*Week:* {_week(bug)}",
        f"*Attempt:* {slack_code(bug.get('attempt_id'))}",
        f"*Producer:* {slack_code(bug.get('producer'))}",
        "*Quarantine:* ",
    ])
    tests = [slack_code(q) for q in _ids(bug.get("quarantine"))]
    blocks = [section(detail + (listed(tests, SECTION_LIMIT - len(detail), noun=" tests") or "(none)"))]
    if link:
        blocks.append(section(f"<{slack_escape(link)}|Open in credit-bug triage>"))
    return {"text": headline, "blocks": blocks, "unfurl_links": False, "unfurl_media": False}


def credit_bug_alerts(bugs: list[dict[str, Any]], fmt: str,
                      dashboard_url: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Each credit bug as an alert to deliver: its key and its message."""
    return [(bug_key(bug), credit_bug_message(bug, fmt, dashboard_url)) for bug in bugs]
