"""A run's JSON last line, read as the run writes it, in bounded memory.

The lane keeps only the tail of a run's stdout (lane.MAX_TAIL), which holds the
last line when it is short.  A JSON last line may be long, most often for its
usage: ``{"token": "hold", "usage": <10 MB object>}``.  Such a line is read here
as it streams: each top-level member is checked as JSON and kept up to
MAX_MEMBER bytes, and a longer one is only measured (Oversized), so the token
beside a huge usage still counts and the usage is left out with a note (an
oversized member's brackets and strings are followed, its grammar is not read).
Any other JSON error, a key longer than MAX_KEY or more than MAX_MEMBERS members
make the line no JSON object: it then gives no token, as a short line with that
error gives none.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

# A usage (or any top-level member) larger than this, as JSON text, is not kept.
MAX_MEMBER = 64 * 1024
MAX_KEY = 1024
MAX_MEMBERS = 256  # a result line has two or three; a line of a million is no result line
WHITESPACE = b" \t\r"
# Outside a string, a value's plain bytes and whole strings, up to its next bracket or comma
# (or a string the chunk's end cuts); inside a string, what ends a stretch of it.
_PLAIN = re.compile(rb'(?:[^"\[\]{},\\]+|"(?:[^"\\]|\\.)*")*', re.DOTALL)
_NESTED = re.compile(rb'(?:[^"\[\]{}\\]+|"(?:[^"\\]|\\.)*")*', re.DOTALL)
_OPENING = re.compile(rb'[\[{]+')
_CLOSING = re.compile(rb'[\]}]+')
_INSIDE = re.compile(rb'["\\]')


@dataclass(frozen=True)
class Oversized:
    """A member value longer than MAX_MEMBER bytes: measured, never held."""

    size: int


@dataclass
class _Line:
    """One line's scan: its length and, while it reads as a JSON object, its members so far."""

    length: int = 0
    blank: bool = True
    # start, key_or_close, key, key_text, colon, value, end (one object, read whole), other, broken
    state: str = "start"
    members: dict[str, Any] = field(default_factory=dict)
    key: bytearray = field(default_factory=bytearray)
    value: bytearray = field(default_factory=bytearray)
    size: int = 0
    depth: int = 0
    in_string: bool = False
    escaped: bool = False


class ResultLine:
    """Fed a run's stdout as it comes; ``last()`` reads its last non-blank line.

    Lines end at ``\\n`` (a JSON line holds no raw line break).
    """

    def __init__(self) -> None:
        self._line = _Line()
        self._last: _Line | None = None

    def feed(self, chunk: bytes) -> None:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._scan(chunk[start:end])
            if not self._line.blank:
                self._last = self._line
            self._line = _Line()
            start = end + 1
        self._scan(chunk[start:])

    def last(self) -> tuple[int, dict[str, Any] | None]:
        """The last non-blank line's length in bytes, and its members when it is one JSON object.

        A member's value is what json.loads gives, or Oversized.
        """
        line = self._line if not self._line.blank else self._last
        if line is None:
            return 0, None
        return line.length, line.members if line.state == "end" else None

    def _scan(self, data: bytes) -> None:
        line = self._line
        line.length += len(data)
        if line.blank and data.strip(WHITESPACE):
            line.blank = False
        at = 0
        while at < len(data) and line.state not in ("other", "broken"):
            if line.state == "value":
                at = _value(line, data, at)
            elif line.state == "key_text":
                at = _key(line, data, at)
            else:
                at = _punctuation(line, data, at)


def _punctuation(line: _Line, data: bytes, at: int) -> int:
    """Between a line's tokens: whitespace, then what the state expects, else the line is broken."""
    while at < len(data) and data[at] in WHITESPACE:
        at += 1
    if at == len(data):
        return at
    byte = data[at:at + 1]
    step = {
        ("start", b"{"): "key_or_close",
        ("key_or_close", b'"'): "key_text",
        ("key_or_close", b"}"): "end",
        ("key", b'"'): "key_text",
        ("colon", b":"): "value",
    }.get((line.state, byte))
    if step is None:
        line.state = "other" if line.state == "start" else "broken"
        return at
    line.state = step
    if step == "key_text":
        line.key = bytearray()
    elif step == "value":
        line.value, line.size, line.depth, line.in_string, line.escaped = bytearray(), 0, 0, False, False
    return at + 1


def _key(line: _Line, data: bytes, at: int) -> int:
    """Inside a key's string: up to its closing quote, escapes kept for json to read."""
    while at < len(data):
        if line.escaped:
            line.key += data[at:at + 1]
            line.escaped, at = False, at + 1
            continue
        found = _INSIDE.search(data, at)
        end = found.start() if found else len(data)
        line.key += data[at:end]
        if len(line.key) > MAX_KEY:
            line.state = "broken"
            return len(data)
        if found is None:
            return len(data)
        if data[end:end + 1] == b"\\":
            line.key += b"\\"
            line.escaped, at = True, end + 1
            continue
        line.state = "colon"
        return end + 1
    return at


def _value(line: _Line, data: bytes, at: int) -> int:
    """Inside a member's value: up to the comma or brace that ends it at the object's own level."""
    begin, size = at, len(data)
    while at < size:
        if line.in_string:  # a string the chunk before cut
            at = _string_rest(line, data, at)
            continue
        # Inside a nested list or object a comma is the value's own; runs of brackets count at once.
        end = (_NESTED if line.depth else _PLAIN).match(data, at).end()  # type: ignore[union-attr]
        if end == size:
            break
        mark = data[end]
        if mark == 0x22:  # a string this chunk cuts
            line.in_string, at = True, end + 1
        elif mark in (0x7B, 0x5B):  # { [
            at = _OPENING.match(data, end).end()  # type: ignore[union-attr]
            line.depth += at - end
        elif line.depth > 0 and mark in (0x7D, 0x5D):  # } ]: as many as close what is open
            at = min(_CLOSING.match(data, end).end(), end + line.depth)  # type: ignore[union-attr]
            line.depth -= at - end
        elif line.depth == 0 and mark in (0x2C, 0x7D):  # a comma or "}" at the object's level: the value is whole
            _keep(line, data[begin:end])
            _member(line, closing=mark == 0x7D)
            return end + 1
        else:  # a "]" closing nothing, or a backslash outside a string
            line.state = "broken"
            return size
    _keep(line, data[begin:size])
    return size


def _string_rest(line: _Line, data: bytes, at: int) -> int:
    """Past the rest of a string a chunk cut: to its closing quote, or this chunk's end."""
    if line.escaped:
        line.escaped = False
        return at + 1
    found = _INSIDE.search(data, at)
    if found is None:
        return len(data)
    line.escaped = data[found.start()] == 0x5C
    line.in_string = line.escaped
    return found.start() + 1


def _keep(line: _Line, data: bytes) -> None:
    line.size += len(data)
    if line.size <= MAX_MEMBER:
        line.value += data


def _member(line: _Line, closing: bool) -> None:
    """A member's value is whole: checked as JSON (or measured), then the next key or the end."""
    try:
        key = json.loads(b'"' + bytes(line.key) + b'"')
        value: Any = Oversized(line.size) if line.size > MAX_MEMBER else json.loads(bytes(line.value))
    except (ValueError, RecursionError):
        line.state = "broken"
        return
    line.members[key] = value
    if len(line.members) > MAX_MEMBERS:
        line.state = "broken"
        return
    line.value = bytearray()
    line.state = "end" if closing else "key"
