"""The evidence a reviewer decides on: the lines and files behind a reject, bounded, as data.

The line's ``evidence`` object holds, by reason code, what the decision read: for
``assertion_removed`` each removed matching line with its file, its old line number
and the line that replaced it; for ``line_cap`` the files that weigh most and those
excluded; for ``fixture_and_test`` the fixtures and tests.  Everything is data (text
is never markup here), every list is cut to a stated length with its total kept, and
every line of text to MAX_TEXT characters.  Paths stay ``paths.path_text`` until a
record is built, where they become ``printable``, as in the line's ``files``.

``route`` and ``replay`` build it with the same code from the same diff, so a patch
carries the same evidence in both.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lanelog.router.paths import printable

if TYPE_CHECKING:
    from lanelog.router.gitfacts import Change
    from lanelog.router.policy import Policy

# Removed assertion lines kept per patch (their total is kept beside them).
MAX_LINES = 20
# Characters kept of one line of a file; a longer line ends in "…".
MAX_TEXT = 200
# Files listed for line_cap (counted and excluded) and for fixture_and_test (each side).
MAX_PATHS = 10


@dataclass
class AssertionEvidence:
    """Matching lines removed and added, removed ones that come back verbatim, their files,
    and the first MAX_LINES removed matching lines as the line carries them."""

    removed: int = 0
    added: int = 0
    restored: int = 0
    files: list[str] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)


def cut(text: str) -> str:
    """A line of a file kept to MAX_TEXT characters."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


def assertion_evidence(changes: Iterable[Change], policy: Policy) -> AssertionEvidence:
    """Read the whole diff's removed and added lines once, for every assertion rule.

    Only files the policy's assertion_paths match (every file by default) give removed
    and added matching lines.  A removed matching line is restored by an added line
    (any file, matching or not) with the same text after str.strip(); each added line
    restores at most one, in the order of the diff (moved_ok's pairing).  Within one
    change block (removed lines and the added lines right after them), the k-th removed
    matching line is replaced by the k-th added matching line: the line a reviewer
    reads it against.
    """
    evidence = AssertionEvidence()
    removed: list[tuple[str, dict[str, Any] | None]] = []
    added: dict[str, deque[tuple[str, int]]] = {}
    waiting: dict[int, deque[dict[str, Any]]] = {}  # change block -> kept lines not yet replaced
    files: dict[str, None] = {}
    for change in changes:
        counted = policy.counts_assertions_in(change.file) and policy.is_assertion(change.text)
        if change.sign == "+":
            added.setdefault(change.text.strip(), deque()).append((change.file, change.new_line))
            evidence.added += counted
            if counted and waiting.get(change.block):
                waiting[change.block].popleft()["replaced_by"] = {"line": change.new_line,
                                                                  "text": cut(change.text)}
            continue
        if not counted:
            continue
        files.setdefault(change.file, None)
        record = None
        if len(evidence.lines) < MAX_LINES:
            record = _removed_line(change)
            evidence.lines.append(record)
            waiting.setdefault(change.block, deque()).append(record)
        removed.append((change.text.strip(), record))
    evidence.removed = len(removed)
    for text, record in removed:
        spots = added.get(text)
        if spots:
            path, line = spots.popleft()
            evidence.restored += 1
            if record is not None:
                record["back_verbatim"] = {"file": printable(path), "line": line}
    evidence.files = list(files)
    return evidence


def _removed_line(change: Change) -> dict[str, Any]:
    """A removed matching line as the line carries it: where it was, where it stood in the new file."""
    record: dict[str, Any] = {"file": printable(change.file), "old_line": change.old_line,
                              "at": None if change.deleted else change.new_line, "text": cut(change.text),
                              "replaced_by": None, "back_verbatim": None}
    if change.old_file and change.old_file != change.file:
        record["old_file"] = printable(change.old_file)
    return record


def assertions(removed: int, added: int, restored: int, lines: Sequence[Mapping[str, Any]],
               rule: str, fired: bool) -> dict[str, Any]:
    """The ``assertion_removed`` evidence: the counts the rule weighed (whether or not it fired),
    and the first removed lines with their total."""
    return {"rule": rule, "fired": fired, "removed": removed, "added": added, "restored": restored,
            "net": added - removed, "lines": [dict(line) for line in lines[:MAX_LINES]], "lines_total": removed}


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


def checked(value: object) -> dict[str, Any] | None:
    """A line's evidence in the shape route writes it, or None: a recorded lane-log line is
    untrusted, so only the known keys with values of their type are kept, each list cut to its
    bound and each text to MAX_TEXT.  route's own evidence comes back equal."""
    if not isinstance(value, dict):
        return None
    out: dict[str, Any] = {}
    for reason, part in value.items():
        if not isinstance(part, dict):
            continue
        if reason == "assertion_removed":
            out[reason] = {"rule": _text(part.get("rule")), "fired": part.get("fired") is True,
                           **{key: _count(part.get(key)) for key in ("removed", "added", "restored", "net")},
                           "lines": [_checked_line(row) for row in _rows(part.get("lines"), MAX_LINES)],
                           "lines_total": _count(part.get("lines_total"))}
        elif reason == "line_cap":
            out[reason] = {"counted": _count(part.get("counted")), "line_cap": _count(part.get("line_cap")),
                           "files": [_file_row(row) for row in _rows(part.get("files"), MAX_PATHS)],
                           "files_total": _count(part.get("files_total")),
                           "excluded": [_file_row(row) for row in _rows(part.get("excluded"), MAX_PATHS)],
                           "excluded_total": _count(part.get("excluded_total")),
                           "excluded_lines": _count(part.get("excluded_lines"))}
        elif reason == "fixture_and_test":
            out[reason] = {key: value for side in ("fixtures", "tests") for key, value in (
                (side, [_text(path) for path in _list(part.get(side))[:MAX_PATHS] if isinstance(path, str)]),
                (f"{side}_total", _count(part.get(f"{side}_total"))))}
    return out or None


def _checked_line(row: dict[str, Any]) -> dict[str, Any]:
    replaced, back = row.get("replaced_by"), row.get("back_verbatim")
    line: dict[str, Any] = {
        "file": _text(row.get("file")), "old_line": _count(row.get("old_line")),
        "at": _count(row["at"]) if row.get("at") is not None else None, "text": _text(row.get("text")),
        "replaced_by": {"line": _count(replaced.get("line")), "text": _text(replaced.get("text"))}
        if isinstance(replaced, dict) else None,
        "back_verbatim": {"file": _text(back.get("file")), "line": _count(back.get("line"))}
        if isinstance(back, dict) else None}
    if isinstance(row.get("old_file"), str):
        line["old_file"] = _text(row["old_file"])
    return line


def _file_row(row: dict[str, Any]) -> dict[str, Any]:
    return {"file": _text(row.get("file")), "lines": _count(row["lines"]) if row.get("lines") is not None else None}


def _rows(value: object, limit: int) -> list[dict[str, Any]]:
    return [row for row in _list(value) if isinstance(row, dict)][:limit]


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _text(value: object) -> str:
    return cut(value) if isinstance(value, str) else ""
