"""A pull request's facts as a line keeps them, each checked where it is read.

A login, a label, a URL or a time comes from an event payload, a file or an option that
nobody vouches for, and ends up on a lane-log line, on a page and in an alert.  Each check
here takes the value and where it came from (``where``: an option, or a file and its key),
returns the value as the line keeps it, or raises ``FactInvalid`` naming ``where`` and what
is wrong, never the value itself (it may be ten megabytes, or a forged workflow command).

What the line refuses outright, rather than escaping: control characters, surrogates (a JSON
``\\ud800`` escape decodes to one, and no UTF-8 line can hold it), line and paragraph
separators, and the bidi marks and overrides that reorder what a reader sees.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from lanelog.errors import FactInvalid
from lanelog.times import day_outside, rfc3339

MAX_NUMBER = 2**31 - 1       # GitHub numbers pull requests and run attempts with 32-bit integers
MAX_NAME = 100               # a login, an agent, a label name
MAX_URL = 2048
MAX_TIME = 40
# GitHub's rule for an owner and a repository name: 1-100 of letters, digits, '.', '_' and '-'.
REPOSITORY = re.compile(r"([A-Za-z0-9._-]{1,100})/([A-Za-z0-9._-]{1,100})\Z")
# GitLab's project path: a group, up to 20 levels of subgroups, then the project (group/sub/project).
NESTED_REPOSITORY = re.compile(r"[A-Za-z0-9._-]{1,100}(?:/[A-Za-z0-9._-]{1,100}){1,21}\Z")
MAX_NESTED = 2200
SHA = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")   # SHA-1 or SHA-256 object names
SHORT_SHA = re.compile(r"[0-9a-f]{12}\Z")                # Bitbucket Cloud's abbreviated commit hashes
ASCII_TEXT = re.compile(r"[\x21-\x7e]+\Z")                # printable ASCII: a URL is percent-encoded, a login ASCII
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


def kind(value: Any) -> str:
    """What a JSON value is, in JSON's words: for a message that must not quote it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    return "an array" if isinstance(value, list) else "an object"


def _found(value: Any) -> str:
    """", not a number" for a value of the wrong type; nothing for a string (its length may be the fault)."""
    return "" if isinstance(value, str) else f", not {kind(value)}"


def check_text(value: Any, where: str, *, limit: int = MAX_NAME, spaces: bool = True) -> str:
    """A string of 1 to ``limit`` characters, no control, separator or bidi character, not padded
    with white space (and with none at all unless ``spaces``)."""
    if not isinstance(value, str):
        raise FactInvalid(f"{where}: must be a string, not {kind(value)}")
    if not 1 <= len(value) <= limit:
        raise FactInvalid(f"{where}: must be 1 to {limit} characters, not {len(value)}")
    bad = next((char for char in value if char in BIDI or unicodedata.category(char) in REFUSED_CATEGORIES), None)
    if bad is not None:
        raise FactInvalid(f"{where}: holds the control, separator or bidi character U+{ord(bad):04X}")
    if value != value.strip() or (not spaces and any(char.isspace() for char in value)):
        raise FactInvalid(f"{where}: must hold no white space" if not spaces
                          else f"{where}: must not begin or end with white space")
    return value


def check_login(value: Any, where: str) -> str:
    """An account's login: 1-100 printable ASCII characters (GitHub's letters, digits and '-', a bot's
    ending in ``[bot]``; GitLab's and Gitea's add '.' and '_').  ASCII alone, so that no login can pass
    for another one by a letter that looks the same (a Cyrillic 'а' in 'аlice')."""
    login = check_text(value, where, spaces=False)
    if not ASCII_TEXT.match(login):
        raise FactInvalid(f"{where}: must be printable ASCII, as a login is")
    return login


def check_repository(value: Any, where: str) -> str:
    """``OWNER/NAME`` by GitHub's rules: each part 1-100 of letters, digits, '.', '_' and '-', not only dots."""
    found = REPOSITORY.match(value) if isinstance(value, str) and len(value) <= 201 else None
    if found is None or any(set(part) == {"."} for part in found.groups()):
        raise FactInvalid(f"{where}: must be OWNER/NAME, each part 1 to 100 letters, digits, '.', '_' or '-'"
                          f"{_found(value)}")
    return found.group()


def check_nested_repository(value: Any, where: str) -> str:
    """GitLab's ``GROUP/SUB/.../PROJECT``: two to 22 parts, each by the rule of check_repository's."""
    sound = isinstance(value, str) and len(value) <= MAX_NESTED and NESTED_REPOSITORY.match(value) is not None
    if not sound or any(set(part) == {"."} for part in value.split("/")):
        raise FactInvalid(f"{where}: must be GROUP/PROJECT or GROUP/SUBGROUP/.../PROJECT, each part 1 to 100 "
                          f"letters, digits, '.', '_' or '-'{_found(value)}")
    return str(value)


def check_number(value: Any, where: str) -> int:
    """A pull request's number (or a run attempt): a whole number from 1 to 2**31-1."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FactInvalid(f"{where}: must be a whole number from 1 to {MAX_NUMBER}, not {kind(value)}")
    if not 1 <= value <= MAX_NUMBER:
        raise FactInvalid(f"{where}: must be a whole number from 1 to {MAX_NUMBER}")
    return value


def check_url(value: Any, where: str) -> str:
    """An http or https address: printable ASCII, at most MAX_URL characters, a host, no credentials."""
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_URL or not ASCII_TEXT.match(value):
        raise FactInvalid(f"{where}: must be an http or https URL of at most {MAX_URL} printable ASCII "
                          f"characters{_found(value)}")
    try:
        parts = urlsplit(value)
        sound = parts.scheme in ("http", "https") and bool(parts.hostname) and "@" not in parts.netloc \
            and (parts.port is None or parts.port > 0)
    except ValueError:  # a bad port or IPv6 literal
        sound = False
    if not sound:
        raise FactInvalid(f"{where}: must be an http or https URL with a host and no credentials")
    return value


def check_sha(value: Any, where: str) -> str:
    """A commit's full object name: 40 (SHA-1) or 64 (SHA-256) hex digits, kept in lower case."""
    if not isinstance(value, str) or len(value) > 64 or not SHA.match(value.lower()):
        raise FactInvalid(f"{where}: must be a commit's full id, 40 or 64 hex digits{_found(value)}")
    return value.lower()


def check_short_sha(value: Any, where: str) -> str:
    """A commit's full id, or the 12 hex digits Bitbucket Cloud gives for one, kept in lower case."""
    if isinstance(value, str) and len(value) == 12 and SHORT_SHA.match(value.lower()):
        return value.lower()
    if not isinstance(value, str) or len(value) > 64 or not SHA.match(value.lower()):
        raise FactInvalid(f"{where}: must be a commit's id, 12, 40 or 64 hex digits{_found(value)}")
    return value.lower()


def check_time(value: Any, where: str) -> str:
    """An RFC 3339 time with its offset, as the line keeps times: UTC, whole seconds, ``Z``; on a day
    ingest can date (lanelog.times' FIRST_DAY to LAST_DAY, UTC): a line timed outside them would be
    stored undated, its close never seen."""
    parsed = None
    if isinstance(value, str) and len(value) <= MAX_TIME:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise FactInvalid(f"{where}: must be a time with its offset, such as 2026-10-08T14:03:00Z{_found(value)}")
    try:
        moment = parsed.astimezone(UTC)
    except OverflowError:  # past 9999-12-31 or before 0001-01-01 in UTC: its own day is outside the range too
        moment = parsed
    why = day_outside(moment.date())
    if why is not None:
        raise FactInvalid(f"{where}: {why}")
    return rfc3339(moment)
