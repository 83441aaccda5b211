"""The evidence a reviewer decides on: the lines and files behind a reject, bounded, as data.

The line's ``evidence`` object holds, by reason code, what the decision read: for
``assertion_removed`` each removed matching line with its file, its old line number,
the rest of its statement and the line that replaced it, the diff's lines around them
(router/excerpts.py), and the added lines that offset them under net and moved_ok; for
``line_cap`` the files that weigh most and those excluded; for ``fixture_and_test`` the
fixtures and tests.  Everything is data (text is never markup here), every list is cut
to a stated length with its total kept, and every line of text to MAX_TEXT characters.
Paths stay ``paths.path_text`` until a record is built, where they become ``printable``,
as in the line's ``files``.

``route`` and ``replay`` build it with the same code from the same diff, so a patch
carries the same evidence in both.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lanelog.router.excerpts import MAX_EXCERPT_LINES, continued, excerpt, pair, spans, statement, wanted
from lanelog.router.paths import printable

if TYPE_CHECKING:
    from lanelog.router.patch_lines import Change
    from lanelog.router.policy import Policy

# Removed assertion lines kept per patch (their total is kept beside them).
MAX_LINES = 20
# Characters kept of one line of a file; a longer line ends in "…".
MAX_TEXT = 200
# Files listed for line_cap (counted and excluded) and for fixture_and_test (each side).
MAX_PATHS = 10


@dataclass
class AssertionEvidence:
    """Matching lines removed and added, removed ones that come back verbatim, their files; the
    first MAX_LINES removed matching lines as the line carries them, the hunks' lines around them
    (excerpts.py), and the first MAX_LINES added matching lines and lines that bring one back."""

    removed: int = 0
    added: int = 0
    restored: int = 0
    files: list[str] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)
    excerpts: list[dict[str, Any]] = field(default_factory=list)
    added_lines: list[dict[str, Any]] = field(default_factory=list)
    restoring: list[dict[str, Any]] = field(default_factory=list)


def cut(text: str) -> str:
    """A line of a file kept to MAX_TEXT characters."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


def assertion_evidence(changes: Iterable[Change], policy: Policy) -> AssertionEvidence:
    """Read the whole diff once, hunk by hunk, for every assertion rule.

    Only files the policy's assertion_paths match (every file by default) give removed
    and added matching lines.  A removed matching line is restored by an added line
    (any file, matching or not) with the same text after str.strip(); each added line
    restores at most one, in the order of the diff (moved_ok's pairing).  Within one
    change block (removed lines and the added lines right after them), a removed matching
    line is replaced by the most similar added matching line (excerpts.pair): the line a
    reviewer reads it against.  ``changes`` are a diff's hunk lines, unchanged ones included.
    """
    evidence = AssertionEvidence()
    removed: list[tuple[str, dict[str, Any] | None]] = []
    added: dict[str, deque[tuple[str, int, str]]] = {}
    files: dict[str, None] = {}
    hunk: list[Change] = []
    for change in changes:
        if hunk and change.hunk != hunk[-1].hunk:
            _read_hunk(hunk, policy, evidence, removed, files)
            hunk = []
        hunk.append(change)
        if change.sign == "+":
            added.setdefault(change.text.strip(), deque()).append((change.file, change.new_line, change.text))
    if hunk:
        _read_hunk(hunk, policy, evidence, removed, files)
    evidence.removed = len(removed)
    for text, record in removed:
        spots = added.get(text)
        if spots:
            path, line, back = spots.popleft()
            evidence.restored += 1
            if record is not None:
                record["back_verbatim"] = {"file": printable(path), "line": line}
            if len(evidence.restoring) < MAX_LINES:
                evidence.restoring.append({"file": printable(path), "line": line, "text": cut(back)})
    evidence.files = list(files)
    return evidence


def _read_hunk(lines: list[Change], policy: Policy, evidence: AssertionEvidence,
               removed: list[tuple[str, dict[str, Any] | None]], files: dict[str, None]) -> None:
    """One hunk's matching lines: counted, the first ones kept with their statements, paired
    with their replacements, and the lines around them taken as excerpts."""
    kept: list[tuple[int, dict[str, Any]]] = []
    olds: dict[int, list[int]] = {}
    news: dict[int, list[int]] = {}
    for index, line in enumerate(lines):
        if line.sign == " " or not (policy.counts_assertions_in(line.file) and policy.is_assertion(line.text)):
            continue
        if line.sign == "+":
            evidence.added += 1
            news.setdefault(line.block, []).append(index)
            if len(evidence.added_lines) < MAX_LINES:
                evidence.added_lines.append({"file": printable(line.file), "line": line.new_line,
                                             "text": cut(line.text),
                                             "statement": continued(lines, statement(lines, index, "+"), cut)})
            continue
        files.setdefault(line.file, None)
        record = None
        if len(evidence.lines) < MAX_LINES:
            record = _removed_line(line, continued(lines, statement(lines, index, "-"), cut))
            evidence.lines.append(record)
            kept.append((index, record))
            olds.setdefault(line.block, []).append(index)
        removed.append((line.text.strip(), record))
    pairs = {old: new for block, found in olds.items()
             for old, new in pair(lines, found, news.get(block, [])).items()}
    asked: list[tuple[int, int]] = []
    for index, record in kept:
        ends = statement(lines, index, "-")
        replaced = None
        if index in pairs:
            new = pairs[index]
            going_on = statement(lines, new, "+")
            record["replaced_by"] = {"line": lines[new].new_line, "text": cut(lines[new].text),
                                     "statement": continued(lines, going_on, cut)}
            replaced = (new, going_on[-1] if going_on else new)
        asked += wanted(index, ends[-1] if ends else index, replaced)
    for first, last in spans(lines, asked):
        room = MAX_EXCERPT_LINES - sum(len(shown["lines"]) for shown in evidence.excerpts)
        if room <= 0:
            break
        evidence.excerpts.append(excerpt(lines, first, min(last, first + room - 1), cut))


def _removed_line(change: Change, statement: list[dict[str, str]]) -> dict[str, Any]:
    """A removed matching line as the line carries it: where it was, where it stood in the new
    file, the rest of its statement."""
    at = None if change.deleted or change.new_line < 1 else change.new_line  # none in a deleted or emptied file
    record: dict[str, Any] = {"file": printable(change.file), "old_line": change.old_line, "at": at,
                              "text": cut(change.text),
                              "statement": statement, "replaced_by": None, "back_verbatim": None}
    if change.old_file and change.old_file != change.file:
        record["old_file"] = printable(change.old_file)
    return record


def assertions(removed: int, added: int, restored: int, lines: Sequence[Mapping[str, Any]],
               rule: str, fired: bool, *, excerpts: Sequence[Mapping[str, Any]] = (),
               added_lines: Sequence[Mapping[str, Any]] = (),
               restoring: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The ``assertion_removed`` evidence: the counts the rule weighed (whether or not it fired),
    the first removed lines with their total, the hunks' lines around them, and, under net and
    moved_ok, the added lines that offset them (every added matching line under net, each line
    that brings a removed one back under moved_ok) with their total."""
    part = {"rule": rule, "fired": fired, "removed": removed, "added": added, "restored": restored,
            "net": added - removed, "lines": [dict(line) for line in lines[:MAX_LINES]], "lines_total": removed,
            "excerpts": [dict(shown) for shown in excerpts]}
    if rule in ("net", "moved_ok"):
        offsetting, total = (added_lines, added) if rule == "net" else (restoring, restored)
        part.update(offsetting=[dict(line) for line in offsetting[:MAX_LINES]], offsetting_total=total)
    return part


def line_cap(line_counts: Mapping[str, int | None], excluded: Sequence[str], counted: int,
             cap: int) -> dict[str, Any]:
    """The ``line_cap`` evidence: the count, the cap, the counted files that weigh most and the
    excluded ones, each list cut to MAX_PATHS with its total."""
    left_out = set(excluded)
    weighed: list[tuple[str, int | None]] = [(path, count) for path, count in line_counts.items()
                                            if path not in left_out and count]
    dropped = [(path, count) for path, count in line_counts.items() if path in left_out]
    return {"counted": counted, "line_cap": cap,
            "files": _heaviest(weighed), "files_total": len(weighed),
            "excluded": _heaviest(dropped), "excluded_total": len(dropped),
            "excluded_lines": sum(count or 0 for _, count in dropped)}


def _heaviest(rows: list[tuple[str, int | None]]) -> list[dict[str, Any]]:
    """The MAX_PATHS files with the most lines (git's order among equals)."""
    ranked = sorted(rows, key=lambda row: -(row[1] or 0))[:MAX_PATHS]
    return [{"file": printable(path), "lines": count} for path, count in ranked]


def fixture_and_test(fixtures: Sequence[str], tests: Sequence[str]) -> dict[str, Any]:
    """The ``fixture_and_test`` evidence: the fixture paths and the test paths, MAX_PATHS of each."""
    return {"fixtures": [printable(path) for path in fixtures[:MAX_PATHS]], "fixtures_total": len(fixtures),
            "tests": [printable(path) for path in tests[:MAX_PATHS]], "tests_total": len(tests)}
