"""What the adapters of GitLab and Bitbucket share in reading a payload: a key that must be an object,
a value that must be a boolean, a word from a short list; each error names the file and the key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lanelog.errors import FactInvalid
from lanelog.router.facts import kind

MAX_ITEMS = 100   # approvals, labels, participants, label events: an outcome keeps at most this many


def an_object(value: Any, where: str) -> Mapping[str, Any]:
    """``value`` when it is a JSON object; else FactInvalid naming ``where``."""
    if not isinstance(value, dict):
        raise FactInvalid(f"{where}: must be an object, not {kind(value)}")
    return value


def an_array(value: Any, where: str, limit: int = MAX_ITEMS) -> list[Any]:
    """``value`` when it is a JSON array of at most ``limit`` items."""
    if not isinstance(value, list):
        raise FactInvalid(f"{where}: must be an array, not {kind(value)}")
    if len(value) > limit:
        raise FactInvalid(f"{where}: holds {len(value)} items; an outcome keeps at most {limit}")
    return value


def a_flag(value: Any, where: str) -> bool:
    """``true`` or ``false``; a missing key (None) is false."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise FactInvalid(f"{where}: must be true or false, not {kind(value)}")
    return value


def a_word(value: Any, where: str, words: Sequence[str]) -> str:
    """One of ``words``; anything else is FactInvalid listing them (never quoting the value)."""
    if not isinstance(value, str) or value not in words:
        raise FactInvalid(f"{where}: must be one of {', '.join(words)}"
                          f"{'' if isinstance(value, str) else f', not {kind(value)}'}")
    return value
