"""Route history again under a candidate policy, in one process, writing no lane log.

Each patch is routed twice by the router's own `run_route` (no lane is run, no
line is written): once under the candidate policy, once under the baseline.
So a replayed decision is exactly what `lanelog route` gives for the same base,
head, day and policy.  The baseline is a policy file when given, else the
policy each base commit holds (the router's usual rule); replaying lane logs
without a baseline file compares with the decision each line recorded.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from lanelog.errors import RouterError
from lanelog.router.flaky import FlakyInvalid, parse_flaky
from lanelog.router.gitfacts import Checkout, Diff, check_ref
from lanelog.router.policy import PolicyInvalid, parse_policy
from lanelog.router.run import RouteOptions, run_route

T = TypeVar("T")


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
            except ValueError:
                # One of the names is not a file there: ask for these names alone, so only
                # a side that reads that name meets the error, as `route` would.
                return super().read_files(commit, paths)
        return {path: held[path] for path in paths}

    def forget(self) -> None:
        """Drop the answers of the patches done (a long history would hold every diff)."""
        self._answers.clear()
        self._files.clear()


class ReplayError(RouterError):
    """A replay that cannot start: an unusable policy file, a bad range, no checkout."""


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
    """Both sides' decisions for every replayed patch, and the patches that were skipped."""

    rows: list[tuple[Patch, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of `lanelog replay --format json` (keys may be added, never renamed)."""
        weeks: dict[date, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        for patch, baseline, candidate in self.rows:
            monday = patch.today - timedelta(days=patch.today.weekday())
            weeks.setdefault(monday, []).append((baseline, candidate))
        return {
            "patches": len(self.rows),
            "skipped": self.skipped,
            "baseline": _figures(baseline for _, baseline, _ in self.rows),
            "candidate": _figures(candidate for _, _, candidate in self.rows),
            "flips": [
                {"base": patch.base, "head": patch.head, "subject": patch.subject,
                 "baseline": _decision(baseline), "candidate": _decision(candidate)}
                for patch, baseline, candidate in self.rows if baseline["probe"] != candidate["probe"]
            ],
            "weeks": [
                {"week": monday.isoformat(),
                 "baseline": _figures(pair[0] for pair in pairs),
                 "candidate": _figures(pair[1] for pair in pairs)}
                for monday, pairs in sorted(weeks.items())
            ],
        }


    def patch_rows(self) -> list[dict[str, Any]]:
        """One row per replayed patch with both decisions, as `lanelog replay --db` stores them."""
        rows = []
        for patch, baseline, candidate in self.rows:
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


def commits_in(checkout: Checkout, span: str) -> tuple[list[Patch], list[dict[str, Any]]]:
    """Every non-merge commit of A..B as a patch on its first parent, on its committer day (UTC).

    One `git log` lists them all; a root commit has no parent to diff against and is skipped.
    """
    start, dots, end = span.partition("..")
    if not dots or not start or not end or end.startswith("."):
        raise ReplayError(f"--commits {span!r}: give a range A..B")
    for ref in (start, end):
        try:
            check_ref(ref)
        except ValueError as exc:
            raise ReplayError(str(exc)) from None
    ids = [checkout.resolve(ref) for ref in (start, end)]
    if None in ids:
        missing = [ref for ref, found in zip((start, end), ids) if found is None]
        raise ReplayError(f"--commits {span!r}: {', '.join(missing)} names no commit")
    out = checkout.git("log", "--no-merges", "--reverse", "--format=%H%x1f%P%x1f%ct%x1f%s%x1e",
                       f"{ids[0]}..{ids[1]}", "--").stdout
    patches: list[Patch] = []
    skipped: list[dict[str, Any]] = []
    for record in out.split(b"\x1e"):
        record = record.strip(b"\n")
        if not record:
            continue
        commit, parents, seconds, subject = record.decode("utf-8", "replace").split("\x1f", 3)
        day = datetime.fromtimestamp(int(seconds), UTC).date()
        if not parents:
            skipped.append({"head": commit, "subject": subject, "reason": "a root commit: no parent to diff against"})
            continue
        patches.append(Patch(base=parents.split()[0], head=commit, today=day, subject=subject))
    return patches, skipped


def attempts_in(checkout: Checkout, logs: list[Path]) -> tuple[list[Patch], list[dict[str, Any]]]:
    """Every attempt of the lane logs whose base and head are in the repository, on the day of its ts."""
    patches: list[Patch] = []
    skipped: list[dict[str, Any]] = []
    for log in logs:
        try:
            text = log.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ReplayError(f"{log}: cannot read the lane log ({exc.strerror or exc})") from None
        for number, raw in enumerate(text.splitlines(), start=1):
            where = f"{log}:{number}"
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # not a lane-log line: nothing to replay
            if not isinstance(line, dict):
                continue
            base, head, ts = line.get("base"), line.get("head"), line.get("ts")
            day = _day(ts)
            if not isinstance(base, str) or not isinstance(head, str) or day is None:
                skipped.append({"line": where, "reason": "the line records no base, head or ts"})
                continue
            base_id, head_id = _resolve(checkout, base), _resolve(checkout, head)
            if base_id is None or head_id is None:
                skipped.append({"line": where, "base": base, "head": head,
                                "reason": "its base or head is not a commit of this repository"})
                continue
            patches.append(Patch(base=base_id, head=head_id, today=day, subject=None, recorded=line))
    return patches, skipped


def _resolve(checkout: Checkout, ref: str) -> str | None:
    try:
        return checkout.resolve(ref)
    except ValueError:
        return None


def _day(ts: object) -> date | None:
    if not isinstance(ts, str):
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone(UTC).date()
    except ValueError:
        return None


def replay(checkout: Checkout, patches: list[Patch], skipped: list[dict[str, Any]],
           candidate: tuple[Path, bytes], baseline: tuple[Path, bytes] | None,
           flaky: tuple[Path, bytes] | None) -> Replay:
    """Route every patch under the candidate and under the baseline."""
    result = Replay(skipped=list(skipped))
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
        if baseline is None and patch.recorded is not None:
            ours = patch.recorded
        else:
            ours = _route(remembering, patch, baseline, flaky)
        result.rows.append((patch, ours, theirs))
        remembering.forget()
    return result


def subjects(checkout: Checkout, heads: Iterable[str]) -> dict[str, str]:
    """git's %s of each head, in one call."""
    wanted = sorted(set(heads))
    if not wanted:
        return {}
    out = checkout.git("log", "--no-walk=unsorted", "--format=%H%x1f%s%x1e", *wanted, "--").stdout
    found = {}
    for record in out.split(b"\x1e"):
        record = record.strip(b"\n")
        if record:
            commit, subject = record.decode("utf-8", "replace").split("\x1f", 1)
            found[commit] = subject
    return found


def _route(checkout: Checkout, patch: Patch, policy: tuple[Path, bytes] | None,
           flaky: tuple[Path, bytes] | None) -> dict[str, Any]:
    """One decision, as `lanelog route --base BASE --head HEAD --today DAY` makes it (no lane runs)."""
    options = RouteOptions(repo=checkout.toplevel, base=patch.base, head=patch.head, today=patch.today,
                           repo_name="replay", policy_data=policy, flaky_data=flaky, checkout=checkout)
    return run_route(options)

