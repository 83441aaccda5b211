"""Route history again under a candidate policy, in one process, writing no lane log.

Each patch is routed twice by the router's own `run_route` (no lane is run, no
line is written): once under the candidate policy, once under the baseline.
So a replayed decision is exactly what `lanelog route` gives for the same base,
head, day and policy.  The baseline is a policy file when given, else the
policy each base commit holds (the router's usual rule); replaying lane logs
without a baseline file compares with the decision each line recorded.  With
no baseline at all (a first policy, which no base holds), the candidate decides
alone.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from lanelog.errors import (
    BaseFileInvalid,
    FlakyInvalid,
    GitError,
    PolicyInvalid,
    RecordedLineInvalid,
    RefInvalid,
    ReplayError,
)
from lanelog.router.flaky import parse_flaky
from lanelog.router.gitfacts import Checkout, Diff, check_ref
from lanelog.router.paths import printable
from lanelog.router.policy import parse_policy
from lanelog.router.run import RouteOptions, run_route

T = TypeVar("T")


# A lane log is read like ingest reads it: a regular file only, split on b"\n" alone (a
# U+2028 in a file name is text, not a line break), no line held past MAX_LINE_BYTES,
# and no more than MAX_LOG_BYTES read in all (a replay holds its patches in memory).
MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_LOG_BYTES = 1024 * 1024 * 1024
READ_BYTES = 1024 * 1024
# git log's fields, NUL-separated with -z: no commit text can hold a NUL (git cuts a
# message there), so no subject can add or shift a field.
COMMIT_ID = re.compile(rb"[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")
SECONDS = re.compile(rb"-?[0-9]{1,30}\Z")


class RememberingCheckout(Checkout):
    """A checkout that asks git each question once: both sides of a patch share the answers.

    Refs are commit ids here, so the answers cannot change during a replay.
    """

    def __init__(self, toplevel: Path) -> None:
        super().__init__(toplevel)
        self._answers: dict[tuple[Any, ...], Any] = {}
        self._files: dict[str, dict[str, bytes | None]] = {}
        self._names: set[str] = set()  # every file name asked for so far: read together

    def known(self, patch: Patch, first_parent: bool) -> None:
        """What the replay already knows of a patch: its ids are commit ids, and, for a
        commit on its first parent, the merge base is the parent itself."""
        for commit in (patch.base, patch.head):
            self._answers[("resolve", commit)] = commit
        if first_parent:
            self._answers[("merge_base", patch.base, patch.head)] = patch.base

    def _remember(self, key: tuple[Any, ...], ask: Callable[[], T]) -> T:
        if key not in self._answers:
            self._answers[key] = ask()
        answer: T = self._answers[key]  # each key's answer is of the type its question gives
        return answer

    def resolve(self, ref: str) -> str | None:
        return self._remember(("resolve", ref), lambda: super(RememberingCheckout, self).resolve(ref))

    def merge_base(self, base: str, head: str) -> str | None:
        return self._remember(("merge_base", base, head),
                              lambda: super(RememberingCheckout, self).merge_base(base, head))

    def diff(self, start: str, head: str, renames: str = "detect") -> Diff:
        return self._remember(("diff", start, head, renames),
                              lambda: super(RememberingCheckout, self).diff(start, head, renames))

    def read_files(self, commit: str, paths: list[str]) -> dict[str, bytes | None]:
        """Both sides ask for the policy and flaky list of the same base: one git call reads all."""
        held = self._files.setdefault(commit, {})
        self._names.update(paths)
        if any(path not in held for path in paths):
            wanted = sorted(self._names - held.keys())
            try:
                held.update(super().read_files(commit, wanted))
            except BaseFileInvalid:
                # One of the names is not a file there: ask for these names alone, so only
                # a side that reads that name meets the error, as `route` would.
                return super().read_files(commit, paths)
        return {path: held[path] for path in paths}

    def forget(self) -> None:
        """Drop the answers of the patches done (a long history would hold every diff)."""
        self._answers.clear()
        self._files.clear()



@dataclass(frozen=True)
class Patch:
    """One patch to route again: base...head on a day, and what it is known by."""

    base: str
    head: str
    today: date
    subject: str | None
    recorded: dict[str, Any] | None = None  # the decision a lane-log line recorded


@dataclass
class Replay:
    """Both sides' decisions for every replayed patch, and the patches that were skipped.

    A replay of the candidate alone has no baseline decisions (None in each row).
    """

    rows: list[tuple[Patch, dict[str, Any] | None, dict[str, Any]]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    # What the reader should know before trusting the figures (also printed on stderr).
    warnings: list[str] = field(default_factory=list)
    # How the range was read: merges, patches behind or through them, duplicates left out.
    about: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of `lanelog replay --format json` (keys may be added, never renamed).

        Without a baseline, each "baseline" is null and there are no flips or changes.
        """
        weeks: dict[date, list[tuple[dict[str, Any] | None, dict[str, Any]]]] = {}
        for patch, baseline, candidate in self.rows:
            monday = patch.today - timedelta(days=patch.today.weekday())
            weeks.setdefault(monday, []).append((baseline, candidate))
        pairs = [(patch, baseline, candidate) for patch, baseline, candidate in self.rows
                 if baseline is not None]
        alone = len(pairs) < len(self.rows)
        return {
            "patches": len(self.rows),
            "skipped": self.skipped,
            "warnings": self.warnings,
            **self.about,
            "baseline": None if alone else _figures(baseline for _, baseline, _ in pairs),
            "candidate": _figures(candidate for _, _, candidate in self.rows),
            "flips": [
                {"base": patch.base, "head": patch.head, "subject": patch.subject,
                 "baseline": _decision(baseline), "candidate": _decision(candidate),
                 "evidence": {"baseline": _evidence(baseline), "candidate": _evidence(candidate)}}
                for patch, baseline, candidate in pairs if baseline["probe"] != candidate["probe"]
            ],
            "reason_changes": _changes(pairs, "reasons"),
            # Among the patches that pass on both sides: a flip shows in flips.
            "quarantine_changes": _changes([row for row in pairs if row[1]["probe"] == row[2]["probe"] == "pass"],
                                           "quarantine"),
            "records": [
                {"base": patch.base, "head": patch.head, "day": patch.today.isoformat(),
                 "subject": patch.subject,
                 "baseline": None if baseline is None else {**_decision(baseline), **_evidence(baseline)},
                 "candidate": {**_decision(candidate), **_evidence(candidate)}}
                for patch, baseline, candidate in self.rows
            ],
            "weeks": [
                {"week": monday.isoformat(),
                 "baseline": None if alone else _figures(pair[0] for pair in week if pair[0] is not None),
                 "candidate": _figures(pair[1] for pair in week)}
                for monday, week in sorted(weeks.items())
            ],
        }


    def patch_rows(self) -> list[dict[str, Any]]:
        """One row per replayed patch with both decisions, as `lanelog replay --db` stores them."""
        rows = []
        for patch, baseline, candidate in self.rows:
            if baseline is None:
                raise ReplayError("a replay without a baseline has nothing to store beside the candidate")
            row: dict[str, Any] = {"base": patch.base, "head": patch.head, "day": patch.today,
                                   "subject": patch.subject}
            for side, line in (("baseline", baseline), ("candidate", candidate)):
                row.update({f"{side}_{key}": value for key, value in _stored(line).items()})
            rows.append(row)
        return rows


def _stored(line: dict[str, Any]) -> dict[str, Any]:
    """A decision's probe, reasons, units and armed bit, typed for storage.

    A line recorded in a lane log is untrusted: a probe that is not text is stored
    as its JSON text, reasons that are not text are left out, units that are not a
    finite number count 0.
    """
    probe = line.get("probe")
    recorded = line.get("reasons")
    reasons = recorded if isinstance(recorded, list) else []
    units = line.get("units")
    number = float(units) if isinstance(units, (int, float)) and not isinstance(units, bool) else 0.0
    return {"probe": probe if isinstance(probe, str) else json.dumps(probe),
            "reasons": [reason for reason in reasons if isinstance(reason, str)],
            "units": number if number == number and abs(number) != float("inf") else 0.0,
            "armed": bool(line.get("model_call_allowed"))}


def _decision(line: dict[str, Any]) -> dict[str, Any]:
    return {"probe": line["probe"], "reasons": list(line.get("reasons") or []), "units": line.get("units") or 0}


def _changes(rows: list[tuple[Patch, dict[str, Any], dict[str, Any]]], key: str) -> dict[str, dict[str, int]]:
    """Per reason code (or quarantined test): patches that gain it under the candidate, and patches that lose it.

    A reason can drop off a patch that stays rejected, and a flaky list moves only the
    quarantine of patches that pass; a flip count would show neither.
    """
    changes: dict[str, dict[str, int]] = {}
    for _patch, baseline, candidate in rows:
        before, after = set(_texts(baseline.get(key))), set(_texts(candidate.get(key)))
        for item in after - before:
            changes.setdefault(item, {"gained": 0, "lost": 0})["gained"] += 1
        for item in before - after:
            changes.setdefault(item, {"gained": 0, "lost": 0})["lost"] += 1
    return dict(sorted(changes.items()))


def _evidence(line: dict[str, Any]) -> dict[str, Any]:
    """What a reviewer reads a decision by: lines counted, armed or not, the reject message,
    and the tests a passing patch parks in quarantine (the flaky list's live freezes)."""
    lines = line.get("lines_changed")
    message = line.get("message")
    return {"lines_changed": lines if isinstance(lines, int) and not isinstance(lines, bool) else None,
            "model_call_allowed": line.get("model_call_allowed") is True,
            "message": message if isinstance(message, str) else None,
            "quarantine": _texts(line.get("quarantine"))}


def _texts(value: object) -> list[str]:
    """A recorded list of text as it is; anything else (a lane log is untrusted) as none."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _figures(lines: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Rejects, armed calls, units, and each reason code once per patch that has it."""
    rejects = armed = units = 0
    reasons: Counter[str] = Counter()
    for line in lines:
        rejects += line["probe"] == "reject"
        if line.get("model_call_allowed"):
            armed += 1
            units += line.get("units") or 0
        reasons.update(set(line.get("reasons") or []))
    return {"probe_rejects": rejects, "calls_armed": armed, "units": units,
            "reasons": dict(sorted(reasons.items()))}


def read_policy_file(path: Path, kind: str = "policy") -> tuple[Path, bytes]:
    """A policy or flaky file read as it is, checked before anything is replayed."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read the {kind} file ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
        if kind == "flaky":
            parse_flaky(text, str(path))
        else:
            parse_policy(text, str(path))
    except UnicodeDecodeError:
        raise ReplayError(f"{path}: not UTF-8 text") from None
    except (PolicyInvalid, FlakyInvalid) as exc:
        raise ReplayError(str(exc)) from None
    return Path(os.path.abspath(path)), data


def commits_in(checkout: Checkout, span: str, first_parent: bool = False,
               ) -> tuple[list[Patch], list[dict[str, Any]], dict[str, Any]]:
    """The patches of A..B on their first parent, on their committer day (UTC), and how the range was read.

    By default every non-merge commit is a patch.  With ``first_parent`` every commit
    on B's first-parent chain is one, a merge as its first-parent diff (the merged pull
    request, as CI routed it); the commits behind merges are counted, not replayed.
    One `git log` lists them all; a root commit has no parent to diff against and is skipped.
    """
    start, dots, end = span.partition("..")
    if not dots or not start or not end or end.startswith("."):
        raise ReplayError(f"--commits {span!r}: give a range A..B")
    for ref in (start, end):
        check_ref(ref)
    ids = [checkout.resolve(ref) for ref in (start, end)]
    if None in ids:
        missing = [ref for ref, found in zip((start, end), ids) if found is None]
        raise ReplayError(f"--commits {span!r}: {', '.join(missing)} names no commit")
    walk = ("--first-parent",) if first_parent else ("--no-merges",)
    out = checkout.git("log", "-z", *walk, "--reverse", "--format=%H%x00%P%x00%ct%x00%s",
                       f"{ids[0]}..{ids[1]}", "--").stdout
    patches: list[Patch] = []
    skipped: list[dict[str, Any]] = []
    for commit, parents, seconds, subject in _records(out, 4):
        if not COMMIT_ID.match(commit) or not all(COMMIT_ID.match(p) for p in parents.split()) \
                or not SECONDS.match(seconds):
            raise GitError("git log answered in a shape replay does not read: "
                           f"{printable(commit[:80].decode('ascii', 'replace'))!r}")
        head, text = commit.decode("ascii"), subject.decode("utf-8", "replace")
        day = commit_day(int(seconds))
        if not parents:
            skipped.append({"head": head, "subject": text, "reason": "a root commit: no parent to diff against"})
        elif day is None:
            skipped.append({"head": head, "subject": text,
                            "reason": f"committer time {int(seconds)} is outside the years 1 to 9999"})
        else:
            patches.append(Patch(base=parents.split()[0].decode("ascii"), head=head, today=day, subject=text))
    return patches, skipped, _merges(checkout, f"{ids[0]}..{ids[1]}", first_parent)


def _count(checkout: Checkout, *args: str) -> int:
    return int(checkout.git("rev-list", "--count", *args, "--").stdout.strip() or b"0")


def _merges(checkout: Checkout, span: str, first_parent: bool) -> dict[str, Any]:
    """How many merges the range holds, and the patches that came through them.

    Without first_parent: the non-merge commits not on the first-parent chain, each
    replayed as its own patch.  With it: the commits behind the merges, not replayed.
    """
    merges = _count(checkout, "--merges", span)
    if first_parent:
        behind = _count(checkout, span) - _count(checkout, "--first-parent", span)
        return {"first_parent": True, "merges": merges, "behind_merges": behind}
    through = _count(checkout, "--no-merges", span) - _count(checkout, "--no-merges", "--first-parent", span)
    return {"first_parent": False, "merges": merges, "through_merges": through}


def dedupe(checkout: Checkout, patches: list[Patch]) -> tuple[list[Patch], list[dict[str, Any]]]:
    """Leave out each patch whose change (`git patch-id --stable`) an earlier patch already made.

    A cherry-picked commit is the same change twice: replayed once, the copy listed.
    A patch with no diff has no patch id and is always kept.
    """
    if not patches:
        return patches, []
    # Patches of --commits sit on their first parent: one git diff-tree lists each head's
    # first-parent diff under "commit <id>" (nothing a commit's text can write), and one
    # git patch-id reads them all.
    listing = b"".join(f"{patch.head}\n".encode() for patch in patches)
    diffs = checkout.git("diff-tree", "--stdin", "-p", "--no-color", "--no-ext-diff", "--no-textconv",
                         "--no-renames", "--diff-merges=first-parent", "--pretty=tformat:commit %H",
                         stdin=listing).stdout
    ids = checkout.git("patch-id", "--stable", stdin=diffs).stdout
    change = {}
    for row in ids.splitlines():
        fields = row.split()
        if len(fields) == 2 and COMMIT_ID.match(fields[1]):
            change[fields[1].decode("ascii")] = fields[0]
    kept: list[Patch] = []
    first: dict[bytes, str] = {}
    left_out: list[dict[str, Any]] = []
    for patch in patches:
        key = change.get(patch.head)
        if key is not None and key in first:
            left_out.append({"head": patch.head, "subject": patch.subject,
                             "reason": f"the same change as {first[key][:12]} (git patch-id): replayed once"})
            continue
        if key is not None:
            first[key] = patch.head
        kept.append(patch)
    return kept, left_out


def _records(out: bytes, width: int) -> Iterator[list[bytes]]:
    """git's -z output as records of ``width`` NUL-separated fields (the last record has no end NUL)."""
    if not out:
        return
    fields = out.removesuffix(b"\0").split(b"\0")
    if len(fields) % width:
        raise GitError(f"git log gave {len(fields)} fields, not a multiple of {width}")
    for start in range(0, len(fields), width):
        yield fields[start:start + width]


def commit_day(seconds: int) -> date | None:
    """The UTC day of a committer time, or None when no date of years 1 to 9999 holds it."""
    try:
        return datetime.fromtimestamp(seconds, UTC).date()
    except (OverflowError, ValueError, OSError):
        return None


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
                skipped.append({"line": where, "reason": f"longer than {MAX_LINE_BYTES} bytes: not read"})
                continue
            if not raw.strip():
                continue
            try:
                line, day = recorded_line(raw)
            except RecordedLineInvalid as exc:
                skipped.append({"line": where, "reason": str(exc)})
                continue
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
    """(line number, bytes) of a regular file, split on b"\\n" only; None for a line too long to hold.

    The file is opened without blocking and checked on the open descriptor, so a FIFO
    cannot hang the replay and a link to /dev/zero cannot feed it for ever.  A name
    ending in .gz is read through gzip, as ingest reads it; the cap is on what it
    decompresses to.
    """
    try:
        fd = os.open(log, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ReplayError(f"{log}: cannot read the lane log ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb", buffering=0) as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ReplayError(f"{log}: not a regular file; only regular files are read as lane logs")
        if info.st_size > MAX_LOG_BYTES:
            raise ReplayError(f"{log}: {info.st_size} bytes, more than the {MAX_LOG_BYTES} a replay "
                              "reads; replay a part of it (split the file by week)")
        os.set_blocking(fd, True)
        stream: Any = handle
        if log.name.endswith(".gz"):
            import gzip  # only a compressed log needs it

            stream = gzip.GzipFile(fileobj=handle, mode="rb")
        number, pending, too_long, total = 0, b"", False, 0
        while True:
            try:
                chunk = stream.read(READ_BYTES)
            except (OSError, EOFError) as exc:  # a damaged or cut gzip stream
                raise ReplayError(f"{log}: cannot read the lane log ({exc})") from None
            total += len(chunk)
            if total > MAX_LOG_BYTES:
                raise ReplayError(f"{log}: grew past the {MAX_LOG_BYTES} bytes a replay reads")
            if not chunk:
                break
            pieces = (pending + chunk).split(b"\n")
            pending = pieces.pop()
            for piece in pieces:
                number += 1
                yield number, None if too_long or len(piece) > MAX_LINE_BYTES else piece
                too_long = False
            if len(pending) > MAX_LINE_BYTES:
                pending, too_long = b"", True  # keep reading past it; the line is reported, not held
        if pending or too_long:
            yield number + 1, None if too_long else pending


def recorded_line(raw: bytes) -> tuple[dict[str, Any], date]:
    """A lane-log line's JSON object with a usable base and head, and the UTC day of its ts."""
    try:
        line = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        raise RecordedLineInvalid("not a JSON object: not a lane-log line") from None
    if not isinstance(line, dict):
        raise RecordedLineInvalid("not a JSON object: not a lane-log line")
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


def replay(checkout: Checkout, patches: list[Patch], skipped: list[dict[str, Any]],
           candidate: tuple[Path, bytes], baseline: tuple[Path, bytes] | None,
           flaky: tuple[Path, bytes] | None, about: dict[str, Any] | None = None, *,
           baseline_flaky: tuple[Path, bytes] | None = None, alone: bool = False) -> Replay:
    """Route every patch under the candidate and under the baseline (not at all when ``alone``).

    ``flaky`` is both sides' flaky list; ``baseline_flaky``, when given, is the baseline's.
    """
    result = Replay(skipped=list(skipped), about=dict(about or {}))
    remembering = RememberingCheckout(checkout.toplevel)
    missing = [patch.head for patch in patches if patch.subject is None]
    if missing:
        known = subjects(checkout, missing)
        patches = [replace(patch, subject=known.get(patch.head)) if patch.subject is None else patch
                   for patch in patches]
    for patch in patches:
        # Patches listed by git log carry commit ids and sit on their first parent;
        # those of a lane log were resolved to commit ids when they were read.
        remembering.known(patch, first_parent=patch.recorded is None)
        theirs = _route(remembering, patch, candidate, flaky)
        ours: dict[str, Any] | None
        if alone:
            ours = None
        elif baseline is None and patch.recorded is not None:
            ours = patch.recorded
        else:
            ours = _route(remembering, patch, baseline, baseline_flaky or flaky)
        result.rows.append((patch, ours, theirs))
        remembering.forget()
    result.warnings = _warnings(result, baseline)
    return result


def _warnings(result: Replay, baseline: tuple[Path, bytes] | None) -> list[str]:
    """What makes the figures mislead: a baseline of bases without a policy, merges replayed apart."""
    warnings = []
    routed = [base for patch, base, _ in result.rows
              if base is not None and baseline is None and patch.recorded is None]
    missing = sum("policy_missing" in (line.get("reasons") or []) for line in routed)
    if routed and 2 * missing >= len(routed):
        warnings.append(f"{missing} of {len(routed)} replayed base commits hold no policy, so the baseline "
                        "rejects them as policy_missing and their flips compare with nothing; pass "
                        "--baseline FILE (the policy you run, or the first one you adopted)")
    through = result.about.get("through_merges") or 0
    if through:
        warnings.append(f"{through} of the replayed patches came through {result.about.get('merges')} "
                        "merge(s) and are replayed one by one; --first-parent replays each merged pull "
                        "request as one patch, as CI routed it")
    return warnings


def subjects(checkout: Checkout, heads: Iterable[str]) -> dict[str, str]:
    """git's %s of each head, in one call."""
    wanted = sorted(set(heads))
    if not wanted:
        return {}
    out = checkout.git("log", "-z", "--no-walk=unsorted", "--format=%H%x00%s", *wanted, "--").stdout
    found = {}
    for commit, subject in _records(out, 2):
        if not COMMIT_ID.match(commit):
            raise GitError("git log answered in a shape replay does not read")
        found[commit.decode("ascii")] = subject.decode("utf-8", "replace")
    return found


def _route(checkout: Checkout, patch: Patch, policy: tuple[Path, bytes] | None,
           flaky: tuple[Path, bytes] | None) -> dict[str, Any]:
    """One decision, as `lanelog route --base BASE --head HEAD --today DAY` makes it (no lane runs)."""
    options = RouteOptions(repo=checkout.toplevel, base=patch.base, head=patch.head, today=patch.today,
                           repo_name="replay", policy_data=policy, flaky_data=flaky, checkout=checkout)
    return run_route(options)

