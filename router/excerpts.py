"""What a reviewer reads a removed assertion line against, taken from the diff's own hunk.

Three things, each bounded: the rest of the statement a line starts (an ``assert (`` and its
continuation lines, while a bracket stays open or a line ends in a backslash); the added
assertion line that replaced it, paired by content (the most similar added matching line of its
change block by their character pairs, not the k-th); and the hunk's lines around them, unchanged ones marked as such,
as `git diff` shows them.  Every text is the file's own: it stays data here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lanelog.router.paths import printable

if TYPE_CHECKING:
    from lanelog.router.patch_lines import Change

# Continuation lines kept of one statement (after the line that matched).
MAX_STATEMENT = 8
# Unchanged lines shown before and after, as git's own diff shows them.
CONTEXT = 3
# Lines a span grows to before its context: a removed statement and its replacement further
# apart are shown apart, and nearby changes join a span only while it stays within it.
MAX_EXCERPT = 24
# Lines of every excerpt of a patch together.
MAX_EXCERPT_LINES = 120
# Added matching lines of one change block weighed as a removed line's replacement.
MAX_CANDIDATES = 50
# Characters of a line compared for similarity (a line of the evidence keeps as many).
COMPARED = 200
OPENING, CLOSING, QUOTES = "([{", ")]}", "'\"`"


def balance(text: str) -> tuple[int, bool]:
    """Brackets a line opens (less those it closes), and whether it ends in a backslash;
    brackets inside a quoted string or after a ``#`` comment do not count."""
    depth, index, quote = 0, 0, ""
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in QUOTES:
            quote = char
        elif char == "#":
            break
        elif char in OPENING:
            depth += 1
        elif char in CLOSING:
            depth -= 1
        index += 1
    return depth, text.rstrip().endswith("\\")


def statement(lines: Sequence[Change], at: int, side: str) -> list[int]:
    """The positions, in a hunk's lines, of the continuation lines of the statement the line at
    ``at`` starts, on one side of the diff ("-": the old file, "+": the new one): the lines of
    that side and the unchanged ones, while a bracket stays open or a line ends in a backslash."""
    depth, going_on = balance(lines[at].text)
    found: list[int] = []
    index = at + 1
    while (depth > 0 or going_on) and index < len(lines) and len(found) < MAX_STATEMENT:
        if lines[index].sign in (side, " "):
            found.append(index)
            more, going_on = balance(lines[index].text)
            depth += more
        index += 1
    return found


def pairs_of(text: str) -> Counter[str]:
    """The character pairs of a line's stripped text (its first COMPARED characters), counted."""
    shown = text.strip()[:COMPARED]
    return Counter(shown[at:at + 2] for at in range(len(shown) - 1))


def similarity(removed: Counter[str], added: Counter[str]) -> float:
    """How alike two lines are, from their character pairs: twice the pairs they share over all
    their pairs (the Dice coefficient), in time linear in their length."""
    total = sum(removed.values()) + sum(added.values())
    return 2 * sum((removed & added).values()) / total if total else 1.0


def pair(lines: Sequence[Change], removed: Sequence[int], added: Sequence[int]) -> dict[int, int]:
    """Each removed line's replacement among one change block's added matching lines: the most
    similar pairs first, each added line replacing one removed line, the earlier line on a tie."""
    counted = {index: pairs_of(lines[index].text) for index in (*removed, *added[:MAX_CANDIDATES])}
    weighed = sorted((-similarity(counted[old], counted[new]), old, new)
                     for old in removed for new in added[:MAX_CANDIDATES])
    paired: dict[int, int] = {}
    for _score, old, new in weighed:
        if old not in paired and new not in paired.values():
            paired[old] = new
    return paired


def continued(lines: Sequence[Change], positions: Sequence[int], text: Any) -> list[dict[str, str]]:
    """Continuation lines as the evidence carries them: each one's sign and text."""
    return [{"sign": lines[index].sign, "text": text(lines[index].text)} for index in positions]


def wanted(at: int, removed_end: int, replaced: tuple[int, int] | None) -> list[tuple[int, int]]:
    """The spans one removed line asks to show: its statement and its replacement's, with the lines
    between them (a new guard, a rewritten table) when they are close, else apart."""
    if replaced is None:
        return [(at, removed_end)]
    first, last = replaced
    if max(last, removed_end) - at < MAX_EXCERPT:
        return [(min(at, first), max(last, removed_end))]
    return [(at, removed_end), replaced]


def spans(lines: Sequence[Change], asked: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of a hunk to show, merged where they touch: each asked (first, last) grown as git
    groups changes (a change CONTEXT unchanged lines away or closer belongs with it: a rewritten
    parametrize table, a new guard), up to MAX_EXCERPT lines, then CONTEXT unchanged lines each side."""
    merged: list[tuple[int, int]] = []
    for first, last in sorted(grown(lines, first, last) for first, last in asked):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def grown(lines: Sequence[Change], first: int, last: int) -> tuple[int, int]:
    """One span grown to the changes near it, then widened by CONTEXT lines each side."""
    while first > 0:
        near = next((at for at in range(first - 1, max(-1, first - 2 - CONTEXT), -1) if lines[at].sign != " "), None)
        if near is None or last - near >= MAX_EXCERPT:
            break
        first = near
    while last < len(lines) - 1:
        near = next((at for at in range(last + 1, min(len(lines), last + 2 + CONTEXT)) if lines[at].sign != " "), None)
        if near is None or near - first >= MAX_EXCERPT:
            break
        last = near
    return max(0, first - CONTEXT), min(len(lines) - 1, last + CONTEXT)


def excerpt(lines: Sequence[Change], first: int, last: int, text: Any) -> dict[str, Any]:
    """One span of a hunk as the evidence carries it: its file and each line's sign, number and text
    (a removed line's old number, an added or unchanged line's new one)."""
    shown = lines[first]
    out: dict[str, Any] = {"file": printable(shown.file)}
    if shown.old_file and shown.old_file != shown.file:
        out["old_file"] = printable(shown.old_file)
    out["lines"] = [{"sign": line.sign, "line": line.old_line if line.sign == "-" else line.new_line,
                     "text": text(line.text)} for line in lines[first:last + 1]]
    return out
