"""Paths are bytes until they are shown.

A path is bytes to git and need not be UTF-8.  The router holds it as text
decoded with ``surrogateescape``, which keeps every byte: two names that differ
in one undecodable byte stay two paths, each counted.  ``printable`` is where
such a byte becomes a readable ``\\xNN`` escape: in the line, in a message, and
for the policy's patterns, which are UTF-8 text and see the path as the line
shows it.
"""

from __future__ import annotations


def path_text(path: bytes) -> str:
    """A git path as text that keeps every byte (undecodable ones as surrogates)."""
    return path.decode("utf-8", "surrogateescape")


def path_bytes(path: str) -> bytes:
    """The bytes ``path_text`` came from."""
    return path.encode("utf-8", "surrogateescape")


def printable(text: str) -> str:
    """``text`` as UTF-8 can carry it: an undecodable byte is shown as ``\\xNN``."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that no undecodable byte became
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")
