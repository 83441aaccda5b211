"""The attempts of lane logs, read back for a replay: each line's base, head, day and decision."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from lanelog import lane_line
from lanelog.errors import RecordedLineInvalid, RefInvalid, ReplayError
from lanelog.files import NotRegular, open_regular
from lanelog.router.gitfacts import Checkout, check_ref
from lanelog.router.lane_log import OUTCOME_KIND
from lanelog.router.paths import printable
from lanelog.router.replay_result import Patch

# A lane log is read as ingest reads it (lanelog/lane_line.py: lines, their BOM and \r, what each
# line is): a regular file only, no line held past lane_line.MAX_LINE_BYTES, and no more than
# MAX_LOG_BYTES read in all (a replay holds its patches in memory).
MAX_LOG_BYTES = 1024 * 1024 * 1024
READ_BYTES = 1024 * 1024


def attempts_in(checkout: Checkout, logs: list[Path]) -> tuple[list[Patch], list[dict[str, Any]]]:
    """Every attempt of the lane logs whose base and head are in the repository, on the day of its ts.

    A line that is not a lane-log line, or whose recorded fields have the wrong shape,
    is skipped and listed with its file, line and why; it is never guessed at.
    """
    patches: list[Patch] = []
    skipped: list[dict[str, Any]] = []
    for log in logs:
        for number, raw in log_lines(log):
            where = f"{log}:{number}"
            if raw is None:
                skipped.append({"line": where, "reason": f"longer than {lane_line.MAX_LINE_BYTES} bytes: not read"})
                continue
            if lane_line.is_blank(raw):
                continue
            try:
                recorded = recorded_line(raw)
            except RecordedLineInvalid as exc:
                skipped.append({"line": where, "reason": str(exc)})
                continue
            if recorded is None:
                continue  # an outcome line (`lanelog outcome`) records a close, not an attempt
            line, day = recorded
            base, head = (_resolve(checkout, ref) for ref in (line["base"], line["head"]))
            if base is None or head is None:
                skipped.append({"line": where, "base": line["base"], "head": line["head"],
                                "reason": "its base or head is not a commit of this repository"})
                continue
            try:
                recorded_decision(line)
            except RecordedLineInvalid as exc:
                skipped.append({"line": where, "reason": str(exc)})
                continue
            patches.append(Patch(base=base, head=head, today=day, subject=None, recorded=line))
    return patches, skipped


def log_lines(log: Path) -> Iterator[tuple[int, bytes | None]]:
    """(line number, text) of a regular file's lines as lane_line.split gives them; None for a line
    too long to hold.

    The file is opened without blocking and checked on the open descriptor, so a FIFO
    cannot hang the replay and a link to /dev/zero cannot feed it for ever.  A name
    ending in .gz is read through gzip, as ingest reads it; the cap is on what it
    decompresses to.
    """
    try:
        fd = open_regular(log)
    except NotRegular:
        raise ReplayError(f"{log}: not a regular file; only regular files are read as lane logs") from None
    except OSError as exc:
        raise ReplayError(f"{log}: cannot read the lane log ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb", buffering=0) as handle:
        info = os.fstat(fd)
        if info.st_size > MAX_LOG_BYTES:
            raise ReplayError(f"{log}: {info.st_size} bytes, more than the {MAX_LOG_BYTES} a replay "
                              "reads; replay a part of it (split the file by week)")
        stream: Any = handle
        if log.name.endswith(".gz"):
            import gzip  # only a compressed log needs it

            stream = gzip.GzipFile(fileobj=handle, mode="rb")
        yield from lane_line.split(_chunks(log, stream))


def _chunks(log: Path, stream: Any) -> Iterator[bytes]:
    """The stream's bytes, a piece at a time, up to MAX_LOG_BYTES in all."""
    total = 0
    while True:
        try:
            chunk = stream.read(READ_BYTES)
        except (OSError, EOFError) as exc:  # a damaged or cut gzip stream
            raise ReplayError(f"{log}: cannot read the lane log ({exc})") from None
        total += len(chunk)
        if total > MAX_LOG_BYTES:
            raise ReplayError(f"{log}: grew past the {MAX_LOG_BYTES} bytes a replay reads")
        if not chunk:
            return
        yield chunk


def recorded_line(raw: bytes) -> tuple[dict[str, Any], date] | None:
    """A lane-log line's JSON object with a usable base and head, and the UTC day of its ts; None for an
    outcome line, which the lane log holds beside the attempts.  What a line is, and which of a name's
    values counts, is lanelog.lane_line's rule, as ingest reads it."""
    verdict, line = lane_line.verdict_of(raw)
    if line is None:
        raise RecordedLineInvalid(f"not a JSON object ({verdict}, as ingest rejects it): not a lane-log line")
    if line.get("kind") == OUTCOME_KIND:
        return None
    for key in ("base", "head"):
        value = line.get(key)
        if not isinstance(value, str):
            raise RecordedLineInvalid(f"the line records no {key}")
        try:
            check_ref(value)
        except RefInvalid as exc:
            raise RecordedLineInvalid(f"{key}: {exc}") from None
    day = _day(line.get("ts"))
    if day is None:
        raise RecordedLineInvalid(f"ts {printable(str(line.get('ts'))[:60])!r} is not an RFC 3339 time, "
                                  "or falls outside the years 1 to 9999 in UTC")
    return line, day


def recorded_decision(line: dict[str, Any]) -> None:
    """Refuse a recorded decision whose fields replay would have to guess at."""
    if line.get("probe") not in ("pass", "reject"):
        raise RecordedLineInvalid(f"probe must be pass or reject, not {_shown(line.get('probe'))}")
    reasons = line.get("reasons")
    if not isinstance(reasons, list) or not all(isinstance(reason, str) for reason in reasons):
        raise RecordedLineInvalid(f"reasons must be a list of text, not {_shown(reasons)}")
    units = line.get("units")
    if isinstance(units, bool) or not isinstance(units, (int, float)) or not math.isfinite(units) or units < 0:
        raise RecordedLineInvalid(f"units must be a number of 0 or more, not {_shown(units)}")
    if not isinstance(line.get("model_call_allowed"), bool):
        raise RecordedLineInvalid("model_call_allowed must be true or false, not "
                                  f"{_shown(line.get('model_call_allowed'))}")


def _shown(value: object) -> str:
    """A recorded value in a message: its JSON text, shortened."""
    text = json.dumps(value) if value is not None else "missing"
    return text if len(text) <= 60 else text[:59] + "…"


def _resolve(checkout: Checkout, ref: str) -> str | None:
    try:
        return checkout.resolve(ref)
    except RefInvalid:
        return None


def _day(ts: object) -> date | None:
    if not isinstance(ts, str):
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone(UTC).date()
    except (ValueError, OverflowError):
        return None
