"""The flaky list (``flaky.yaml``, the seed's shape), reviewed like code.

Every row needs an id, an expiry date, an owner and a reason: a row without an
owner turns the list into a permanent skip, so it makes the list invalid.  A
row may name ``paths`` (gitignore patterns) and/or ``properties``: its freeze
then applies only to a patch that touches such a path or selects such a
property.  A row with neither applies to every patch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import pathspec

from lanelog.errors import FlakyInvalid, YamlFileError
from lanelog.router.paths import printable
from lanelog.yamlfile import YamlFile

ROW_KEYS = ("id", "expires", "owner", "reason")
SCOPE_KEYS = ("paths", "properties")



@dataclass(frozen=True)
class FreezeRow:
    """One flaky-list row: a freeze on a named test until ``expires`` (inclusive)."""

    id: str
    expires: date
    owner: str
    reason: str
    paths: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    _spec: pathspec.GitIgnoreSpec | None = field(default=None, compare=False, repr=False)

    def applies_to(self, files: Iterable[str], properties: Iterable[str]) -> bool:
        """Whether the freeze guards this patch: it names no scope, or the patch is in it."""
        if not self.paths and not self.properties:
            return True
        if self.properties and set(self.properties) & set(properties):
            return True
        return self._spec is not None and any(self._spec.match_file(printable(path)) for path in files)


def parse_flaky(text: str, name: str) -> list[FreezeRow]:
    """Parse and validate ``flaky.yaml`` text; an empty file is an empty list."""
    try:
        doc = YamlFile(text, name)
    except YamlFileError as exc:
        raise FlakyInvalid(str(exc)) from None
    if doc.data is None:
        return []
    if not isinstance(doc.data, dict):
        raise FlakyInvalid(f"{doc.where(())}: the flaky list must be a mapping with a "
                           "'flaky' key")
    for key in doc.data:
        if key != "flaky":
            raise FlakyInvalid(f"{doc.where((str(key),))}: unknown key (known: flaky)")
    rows = doc.data.get("flaky")
    if rows is None:
        return []
    if not isinstance(rows, list):
        raise FlakyInvalid(f"{doc.where(('flaky',))}: must be a list of rows")
    parsed: list[FreezeRow] = []
    seen: dict[str, int] = {}
    for index, row in enumerate(rows):
        freeze = _row(row, index, doc)
        if freeze.id in seen:
            raise FlakyInvalid(f"{_row_where(doc, index, freeze.id)}: duplicate id (first in "
                               f"row {seen[freeze.id] + 1})")
        seen[freeze.id] = index
        parsed.append(freeze)
    return parsed


def freeze_expiry(rows: list[FreezeRow]) -> dict[str, date]:
    """The seed's ``freeze_expiry`` argument for ``route()``."""
    return {row.id: row.expires for row in rows}


def _row(row: Any, index: int, doc: YamlFile) -> FreezeRow:
    label = row.get("id") if isinstance(row, dict) else None
    where = _row_where(doc, index, label if isinstance(label, str) else None)
    if not isinstance(row, dict):
        raise FlakyInvalid(f"{where}: a row must be a mapping with {', '.join(ROW_KEYS)}")
    for key in row:
        if key not in ROW_KEYS + SCOPE_KEYS:
            raise FlakyInvalid(f"{where}: unknown key {key!r} (known: {', '.join(ROW_KEYS + SCOPE_KEYS)})")
    missing = [key for key in ROW_KEYS if row.get(key) in (None, "")]
    if missing:
        raise FlakyInvalid(f"{where}: missing {', '.join(missing)}")
    for key in ("id", "owner", "reason"):
        if not isinstance(row[key], str) or not row[key].strip():
            raise FlakyInvalid(f"{where}: {key} must be text, not {row[key]!r}")
    paths, properties = (_texts(row.get(key), key, where) for key in SCOPE_KEYS)
    spec = None
    if paths:
        try:
            spec = pathspec.GitIgnoreSpec.from_lines(paths, backend="re2")
        except Exception as exc:  # pathspec and RE2 raise several kinds for a bad pattern
            raise FlakyInvalid(f"{where}: bad path pattern in paths ({exc})") from None
    return FreezeRow(id=row["id"], expires=_date(row["expires"], where),
                     owner=row["owner"], reason=row["reason"], paths=paths, properties=properties, _spec=spec)


def _texts(value: Any, key: str, where: str) -> tuple[str, ...]:
    """An optional scope list: absent, or a non-empty list of non-empty strings."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value or not all(isinstance(item, str) and item.strip() for item in value):
        raise FlakyInvalid(f"{where}: {key} must be a non-empty list of strings, not {value!r}")
    return tuple(value)


def _date(value: Any, where: str) -> date:
    if isinstance(value, datetime):
        raise FlakyInvalid(f"{where}: expires must be a date (YYYY-MM-DD), not a time")
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise FlakyInvalid(f"{where}: expires must be a date (YYYY-MM-DD), not {value!r}")


def _row_where(doc: YamlFile, index: int, test_id: str | None) -> str:
    line = doc.line(("flaky", index))
    at = f" line {line}" if line is not None else ""
    return f"{doc.name}{at}, row {index + 1}" + (f" ({test_id})" if test_id else "")
