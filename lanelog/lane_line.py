"""What a lane-log line is: one rule, for ingest and for replay's reader of recorded lines.

A lane log is bytes, and this is how they become lines and what each line is:

- Lines end at ``\\n`` alone (a U+2028 or a lone ``\\r`` inside a line is text); one ``\\r``
  before the newline, or at the end of an unfinished last line, is dropped.  A UTF-8 BOM at
  the very start of the file is skipped; anywhere else it is text, and the line no JSON.
- A line of more than MAX_LINE_BYTES, its newline (and a leading BOM) included, is
  ``too_long``: never read as text.  An unfinished last line as long as that is too.
- Otherwise a line is, the first that holds: ``blank`` (nothing but spaces, tabs and
  ``\\r``: skipped, counted nowhere); ``invalid_utf8`` (an encoded surrogate is not UTF-8
  either); ``invalid_json``, anything that is no JSON text as RFC 8259 writes it (``NaN``
  and ``Infinity`` in any case, a trailing comma, a control character inside a string, a
  lone surrogate escape such as ``"\\ud800"``, white space other than space, tab and
  ``\\r``); ``not_an_object``, JSON that is no object; else ``object``, a lane-log line.
- In an object a name given twice takes its first value, at every depth; a number of any
  size is a number (``1e400`` is infinite); nesting has no depth limit.

Ingest's bulk path applies this rule to Arrow arrays in SQL (ingest/lines.py splits, and
ingest/load.sql with store/schema.sql's json_valid_rfc judges), and its tests hold it to
this module on arbitrary bytes; replay reads recorded lines through ``read_lines``.  This
leaf imports nothing of lanelog.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from json.scanner import NUMBER_RE
from typing import Any

BOM = b"\xef\xbb\xbf"
NEWLINE = b"\n"
CARRIAGE_RETURN = b"\r"
BLANK_BYTES = b" \t\r"
MAX_LINE_BYTES = 8 * 1024 * 1024
# What a line is, as ingest stores it: rejected lines carry the middle three as their reason.
BLANK, INVALID_UTF8, INVALID_JSON, NOT_AN_OBJECT, OBJECT, TOO_LONG = (
    "blank", "invalid_utf8", "invalid_json", "not_an_object", "object", "too_long")

_WHITE = re.compile(r"[ \t\n\r]*")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# A JSON string's extent (json.loads then reads its escapes, refusing a bad one).
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')


@dataclass(frozen=True)
class Line:
    """One line of a lane log: its number (every physical line counts), what it is, and its object."""

    number: int
    verdict: str
    value: dict[str, Any] | None = None


def split(chunks: Iterable[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """(line number, text) of each line of the bytes `chunks` make, the text without its newline and
    one ``\\r`` before it, a leading BOM skipped; None for a line too long to read (never held)."""
    number, pending, skipped, first = 0, b"", False, True
    for chunk in chunks:
        pieces = (pending + chunk).split(NEWLINE)
        pending = pieces.pop()
        for piece in pieces:
            number += 1
            long = skipped or len(piece) + len(NEWLINE) > MAX_LINE_BYTES
            yield number, None if long else _text(piece, first)
            skipped, first = False, False
        if len(pending) >= MAX_LINE_BYTES:  # read past it: the line is too long whatever follows
            pending, skipped = b"", True
    if pending or skipped:
        yield number + 1, None if skipped else _text(pending, first)


def _text(piece: bytes, first: bool) -> bytes:
    if first and piece.startswith(BOM):
        piece = piece[len(BOM):]
    return piece[:-1] if piece.endswith(CARRIAGE_RETURN) else piece


def is_blank(text: bytes) -> bool:
    """Whether a line's text holds nothing but spaces, tabs and ``\r``."""
    return not text.strip(BLANK_BYTES)


def verdict_of(text: bytes) -> tuple[str, dict[str, Any] | None]:
    """What a line's text (as ``split`` gives it) is, and its object when it is one."""
    if is_blank(text):
        return BLANK, None
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        return INVALID_UTF8, None
    try:
        value = parsed(decoded)
    except ValueError:
        return INVALID_JSON, None
    return (OBJECT, value) if isinstance(value, dict) else (NOT_AN_OBJECT, None)


def read_lines(chunks: Iterable[bytes]) -> Iterator[Line]:
    """Every line of the bytes `chunks` make, blank ones included, with what it is."""
    for number, text in split(chunks):
        if text is None:
            yield Line(number, TOO_LONG)
        else:
            verdict, value = verdict_of(text)
            yield Line(number, verdict, value)


def parsed(text: str) -> Any:
    """JSON text as RFC 8259 writes it, parsed: ValueError for anything else (see the module's rule)."""
    try:
        value = _loads(text)
    except RecursionError:
        value = _parsed_deep(text)
    if _SURROGATE_ESCAPE.search(text) and _holds_surrogate(value):
        raise ValueError("a lone surrogate escape: no Unicode text")
    return value


def _loads(text: str) -> Any:
    """Python's json, names first-valued, NaN and Infinity refused, ints of any length read."""
    return json.loads(text, object_pairs_hook=_first_value, parse_constant=_no_constant, parse_int=_integer)


def _first_value(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, value in pairs:
        found.setdefault(name, value)
    return found


def _no_constant(name: str) -> Any:
    raise ValueError(f"RFC 8259 has no {name}")


def _integer(digits: str) -> int | float:
    try:
        return int(digits)
    except ValueError:  # more digits than Python turns into an int: a number all the same
        return float(digits)


def _holds_surrogate(value: Any) -> bool:
    """Whether a parsed value holds a lone surrogate in any string (a pair of escapes is one character)."""
    waiting = [value]
    while waiting:
        item = waiting.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            waiting += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            waiting += item
    return False


def _parsed_deep(text: str) -> Any:
    """json.loads's rule, names first-valued, without its recursion: for a line nested deeper than
    Python's stack.  The open containers are a list, so no depth is too deep."""
    stack: list[tuple[Any, str | None]] = []  # each open container, and the name its next value takes
    at = _skip(text, 0)
    while True:
        value, at = _opened(text, at, stack)
        if value is _OPENED:
            continue
        while True:  # place the value, then read what follows it
            if not stack:
                if _skip(text, at) != len(text):
                    raise ValueError("extra data after the JSON value")
                return value
            container, name = stack[-1]
            if isinstance(container, dict):
                container.setdefault(name, value)
            else:
                container.append(value)
            at = _skip(text, at)
            if text.startswith(",", at):
                at = _skip(text, at + 1)
                if isinstance(container, dict):
                    name, at = _name(text, at)
                    stack[-1] = (container, name)
                break
            if not text.startswith("}" if isinstance(container, dict) else "]", at):
                raise ValueError(f"expected a comma or the container's end at {at}")
            value, at = stack.pop()[0], at + 1


_OPENED = object()


def _opened(text: str, at: int, stack: list[tuple[Any, str | None]]) -> tuple[Any, int]:
    """The value at `at` and where it ends; _OPENED when it opens a container that is not empty."""
    if text.startswith("{", at):
        at = _skip(text, at + 1)
        if text.startswith("}", at):
            return {}, at + 1
        name, at = _name(text, at)
        stack.append(({}, name))
        return _OPENED, at
    if text.startswith("[", at):
        at = _skip(text, at + 1)
        if text.startswith("]", at):
            return [], at + 1
        stack.append(([], None))
        return _OPENED, at
    if text.startswith('"', at):
        return _string(text, at)
    for word, meaning in (("true", True), ("false", False), ("null", None)):
        if text.startswith(word, at):
            return meaning, at + len(word)
    number = NUMBER_RE.match(text, at)
    if number is None:
        raise ValueError(f"no JSON value at {at}")
    whole, fraction, exponent = number.groups()
    found = float(whole + (fraction or "") + (exponent or "")) if fraction or exponent else _integer(whole)
    return found, number.end()


def _name(text: str, at: int) -> tuple[str, int]:
    """An object's member name and its colon, at `at`: where its value starts."""
    if not text.startswith('"', at):
        raise ValueError(f"expected a name at {at}")
    name, at = _string(text, at)
    at = _skip(text, at)
    if not text.startswith(":", at):
        raise ValueError(f"expected a colon at {at}")
    return name, _skip(text, at + 1)


def _string(text: str, at: int) -> tuple[str, int]:
    """The JSON string at `at`, read, and where it ends."""
    found = _STRING.match(text, at)
    if found is None:
        raise ValueError(f"no JSON string at {at}")
    value: str = json.loads(found.group())
    return value, found.end()


def _skip(text: str, at: int) -> int:
    found = _WHITE.match(text, at)
    return found.end() if found is not None else at
