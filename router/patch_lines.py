"""The lines of a patch as `git diff` writes it, numbered: removed, added and unchanged lines,
with their files, their line numbers, the change block and the hunk they sit in.

Read by the hunk headers' line counts, never by a line's first character alone, so a
removed line that starts with ``--`` is not a file header, and a file header no line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lanelog.router.paths import path_text

HUNK = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Change:
    """One line of a patch (removed "-", added "+" or unchanged " "), where it stands, and the
    change block and hunk it is in.

    ``file`` is the new path as the patch shows it (the old one for a deletion) and
    ``old_file`` the old one ("" for an added file).  ``old_line`` is a removed line's
    number in the old file; ``new_line`` an added line's number in the new file, and for
    a removed line the number the next line keeps in the new file (where it was removed), or
    the hunk's last new line when none follows in it (a removed last line: never past the end
    of the new file; 0 when the new file is empty); an unchanged line has both.  A block is
    a run of removed lines and the added lines right after them: how git shows lines changed
    in place.  Hunks count from 1 through the patch.
    """

    file: str
    old_file: str
    sign: str
    text: str
    old_line: int
    new_line: int
    block: int
    deleted: bool = False  # the patch deletes the file: no new line stands for it
    hunk: int = 0


def numbered_from_patch(patch: bytes) -> Iterator[Change]:
    """The removed and added lines of a patch, numbered (patch_lines without the unchanged ones)."""
    return (change for change in patch_lines(patch) if change.sign != " ")


def patch_lines(patch: bytes) -> Iterator[Change]:
    """Every line of a patch's hunks, numbered, counted by hunk header.

    Counting by the header's line numbers, rather than by a leading ``-``,
    keeps a removed line that itself starts with ``--`` from being taken for
    a file header, and a file header from being taken for a removed line.
    """
    lines = patch.split(b"\n")
    index = 0
    old_name = new_name = ""
    block = hunk = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.startswith(b"--- "):
            old_name = _patch_name(line[4:])
            continue
        if line.startswith(b"+++ "):
            new_name = _patch_name(line[4:])
            continue
        match = HUNK.match(line)
        if match is None:
            continue
        shown, deleted = new_name or old_name, not new_name
        old_at, new_at = int(match.group(1)), int(match.group(3))
        # A hunk of no old (new) lines names the line before it: the first is one further.
        old_at += match.group(2) == b"0"
        new_at += match.group(4) == b"0"
        old = int(match.group(2) or b"1")
        new = int(match.group(4) or b"1")
        new_end = new_at + new - 1  # the hunk's last line in the new file
        block += 1
        hunk += 1
        last = ""
        while (old or new) and index < len(lines):
            line = lines[index]
            index += 1
            if line.startswith(b"-"):
                block += last == "+"
                yield Change(shown, old_name, "-", line[1:].decode("utf-8", "replace"), old_at,
                             min(new_at, new_end), block, deleted, hunk)
                old, old_at, last = old - 1, old_at + 1, "-"
            elif line.startswith(b"+"):
                yield Change(shown, old_name, "+", line[1:].decode("utf-8", "replace"), old_at, new_at, block,
                             deleted, hunk)
                new, new_at, last = new - 1, new_at + 1, "+"
            elif line.startswith(b" "):
                yield Change(shown, old_name, " ", line[1:].decode("utf-8", "replace"), old_at, new_at, block,
                             deleted, hunk)
                old, new, old_at, new_at = old - 1, new - 1, old_at + 1, new_at + 1
                block += last != ""
                last = ""


def _patch_name(raw: bytes) -> str:
    """A file header's path ("" for /dev/null), without its a/ or b/ prefix.

    A name git quoted (core.quotePath: control characters, non-ASCII bytes) is
    unquoted to its bytes, so it is the same path text the numstat gives and the
    policy's path patterns (assertion_paths) see the real name.
    """
    raw = raw.rstrip(b"\t")
    if raw == b"/dev/null":
        return ""
    if len(raw) >= 2 and raw.startswith(b'"') and raw.endswith(b'"'):
        raw = _unquote(raw[1:-1])
    return path_text(raw[2:] if raw[:2] in (b"a/", b"b/") else raw)


C_ESCAPES = {ord("a"): 7, ord("b"): 8, ord("t"): 9, ord("n"): 10, ord("v"): 11, ord("f"): 12,
             ord("r"): 13, ord('"'): 34, ord("\\"): 92}


def _unquote(quoted: bytes) -> bytes:
    """The bytes of a name git wrote C-quoted (\\ooo octal and \\n-style escapes)."""
    out = bytearray()
    index = 0
    while index < len(quoted):
        byte = quoted[index]
        if byte != 92 or index + 1 >= len(quoted):
            out.append(byte)
            index += 1
            continue
        nxt = quoted[index + 1]
        octal = quoted[index + 1:index + 4]
        if len(octal) == 3 and all(48 <= digit <= 55 for digit in octal):
            out.append(int(octal, 8) & 0xFF)
            index += 4
        else:
            out.append(C_ESCAPES.get(nxt, nxt))
            index += 2
    return bytes(out)
