"""A recorded line's evidence kept only in the shape route writes it.

A lane-log line is untrusted: replay reads its evidence (and --db stores it) only as
router/evidence.py builds it, each key with a value of its type, each list cut to its bound
and each text to MAX_TEXT; anything else is left out.  route's own evidence comes back equal.
A line written before a key existed gets it empty (no statement, no excerpts).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lanelog.reasons import evidence_of
from lanelog.router.evidence import MAX_LINES, MAX_PATHS, cut
from lanelog.router.excerpts import MAX_EXCERPT_LINES, MAX_STATEMENT


def checked(value: object) -> dict[str, Any] | None:
    """A line's evidence in route's shape, or None when nothing of it has that shape."""
    if not isinstance(value, dict):
        return None
    out: dict[str, Any] = {}
    for reason, part in value.items():
        shape = _SHAPES.get(evidence_of(reason))
        if shape is not None and isinstance(part, dict):
            out[reason] = shape(part)
    return out or None


def _line_counts(part: dict[str, Any]) -> dict[str, Any]:
    return {"counted": _count(part.get("counted")), "line_cap": _count(part.get("line_cap")),
            "files": [_file_row(row) for row in _rows(part.get("files"), MAX_PATHS)],
            "files_total": _count(part.get("files_total")),
            "excluded": [_file_row(row) for row in _rows(part.get("excluded"), MAX_PATHS)],
            "excluded_total": _count(part.get("excluded_total")),
            "excluded_lines": _count(part.get("excluded_lines"))}


def _paths(part: dict[str, Any]) -> dict[str, Any]:
    return {key: value for side in ("fixtures", "tests") for key, value in (
        (side, [_text(path) for path in _list(part.get(side))[:MAX_PATHS] if isinstance(path, str)]),
        (f"{side}_total", _count(part.get(f"{side}_total"))))}


def _assertions(part: dict[str, Any]) -> dict[str, Any]:
    out = {"rule": _text(part.get("rule")), "fired": part.get("fired") is True,
           **{key: _count(part.get(key)) for key in ("removed", "added", "restored", "net")},
           "lines": [_checked_line(row) for row in _rows(part.get("lines"), MAX_LINES)],
           "lines_total": _count(part.get("lines_total")), "excerpts": _excerpts(part.get("excerpts"))}
    if isinstance(part.get("offsetting"), list):
        out["offsetting"] = [_offsetting(row) for row in _rows(part["offsetting"], MAX_LINES)]
        out["offsetting_total"] = _count(part.get("offsetting_total"))
    return out


def _checked_line(row: dict[str, Any]) -> dict[str, Any]:
    replaced, back = row.get("replaced_by"), row.get("back_verbatim")
    line: dict[str, Any] = {
        "file": _text(row.get("file")), "old_line": _count(row.get("old_line")),
        "at": _count(row["at"]) if row.get("at") is not None else None, "text": _text(row.get("text")),
        "statement": _statement(row.get("statement")),
        "replaced_by": {"line": _count(replaced.get("line")), "text": _text(replaced.get("text")),
                        "statement": _statement(replaced.get("statement"))}
        if isinstance(replaced, dict) else None,
        "back_verbatim": {"file": _text(back.get("file")), "line": _count(back.get("line"))}
        if isinstance(back, dict) else None}
    if isinstance(row.get("old_file"), str):
        line["old_file"] = _text(row["old_file"])
    return line


def _statement(value: object) -> list[dict[str, str]]:
    return [{"sign": _sign(row.get("sign")), "text": _text(row.get("text"))} for row in _rows(value, MAX_STATEMENT)]


def _excerpts(value: object) -> list[dict[str, Any]]:
    """The diff's lines around the removed ones, MAX_EXCERPT_LINES in all."""
    out: list[dict[str, Any]] = []
    room = MAX_EXCERPT_LINES
    for row in _rows(value, MAX_EXCERPT_LINES):
        lines = _rows(row.get("lines"), room)
        if not lines:
            break
        room -= len(lines)
        shown: dict[str, Any] = {"file": _text(row.get("file"))}
        if isinstance(row.get("old_file"), str):
            shown["old_file"] = _text(row["old_file"])
        shown["lines"] = [{"sign": _sign(line.get("sign")), "line": _count(line.get("line")),
                           "text": _text(line.get("text"))} for line in lines]
        out.append(shown)
    return out


def _offsetting(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"file": _text(row.get("file")), "line": _count(row.get("line")),
                           "text": _text(row.get("text"))}
    if isinstance(row.get("statement"), list):
        out["statement"] = _statement(row["statement"])
    return out


def _sign(value: object) -> str:
    return value if isinstance(value, str) and value in ("-", "+", " ") else " "


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


# How each reason's evidence (lanelog.reasons) is checked.
_SHAPES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "assertion_lines": _assertions, "line_counts": _line_counts, "paths": _paths}
