"""What a replay is about and what it found: the patches, both sides' decisions, and the
figures of `lanelog replay --format json` (its JSON contract) and of `--db`."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lanelog.errors import ReplayError
from lanelog.router.evidence_shape import checked
from lanelog.times import monday


@dataclass(frozen=True)
class Patch:
    """One patch to route again: base...head on a day, and what it is known by."""

    base: str
    head: str
    today: date
    subject: str | None
    recorded: dict[str, Any] | None = None  # the decision a lane-log line recorded
    # Where a commit of a --commits range sits, for the merge counts: a merge of B's
    # first-parent chain brought `brought` commits in (None: not a merge of the chain);
    # a commit off that chain came `through` the chain merge that brought it in.
    brought: int | None = None
    through: str | None = None
    # A merge of B's first-parent chain, read with --first-parent: "pull_request" or "sync".
    merge: str | None = None


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
            weeks.setdefault(monday(patch.today), []).append((baseline, candidate))
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
                 "subject": patch.subject, "merge": patch.merge,
                 "baseline": None if baseline is None else {**_decision(baseline), **_evidence(baseline)},
                 "candidate": {**_decision(candidate), **_evidence(candidate)}}
                for patch, baseline, candidate in self.rows
            ],
            "weeks": [
                {"week": first.isoformat(),
                 "baseline": None if alone else _figures(pair[0] for pair in week if pair[0] is not None),
                 "candidate": _figures(pair[1] for pair in week)}
                for first, week in sorted(weeks.items())
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
    """A decision's probe, reasons, units, armed bit and evidence, typed for storage.

    A line recorded in a lane log is untrusted: a probe that is not text is stored
    as its JSON text, reasons that are not text are left out, units that are not a
    finite number count 0, and the evidence is checked (router/evidence_shape.py), stored
    as JSON text, ``{}`` when there is none.
    """
    probe = line.get("probe")
    recorded = line.get("reasons")
    reasons = recorded if isinstance(recorded, list) else []
    units = line.get("units")
    number = float(units) if isinstance(units, (int, float)) and not isinstance(units, bool) else 0.0
    return {"probe": probe if isinstance(probe, str) else json.dumps(probe),
            "reasons": [reason for reason in reasons if isinstance(reason, str)],
            "units": number if number == number and abs(number) != float("inf") else 0.0,
            "armed": bool(line.get("model_call_allowed")),
            "evidence": json.dumps(checked(line.get("evidence")) or {})}


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
    the tests a passing patch parks in quarantine (the flaky list's live freezes), and the
    line's evidence (the removed lines, the heaviest files: router/evidence.py), checked."""
    lines = line.get("lines_changed")
    message = line.get("message")
    return {"lines_changed": lines if isinstance(lines, int) and not isinstance(lines, bool) else None,
            "model_call_allowed": line.get("model_call_allowed") is True,
            "message": message if isinstance(message, str) else None,
            "quarantine": _texts(line.get("quarantine")),
            "evidence": checked(line.get("evidence"))}


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
