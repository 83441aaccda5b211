"""Generated lane logs for the lake tests: every kind of line the figures must survive.

Dated attempts over several weeks (ts as RFC 3339 with offsets, bare dates and epoch
numbers), undated ones (no ts, an impossible ts), exact duplicate lines, credit bugs,
armed rejects, over-budget spend, quarantine ids copied into properties, odd JSON types,
lines that are not JSON objects (broken, a bare array, invalid UTF-8, NaN), and outcome lines
(a re-run job's among them) beside attempts that name their pull request.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

START = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday
REPOS = ["billing", "orders", "ledger"]
PROPERTIES = ["prop_round_trip", "prop_idempotent_put", "prop_balanced_post"]
FREEZES = ["test_export_race", "test_clock_skew"]


def _ts(rng: random.Random, moment: datetime) -> object:
    kind = rng.randrange(10)
    if kind == 0:
        return moment.timestamp()  # epoch seconds
    if kind == 1:
        return moment.strftime("%Y-%m-%d")
    if kind == 2:
        return moment.astimezone(timezone(timedelta(hours=-5))).isoformat()
    if kind == 3:
        return None  # undated: no usable ts
    if kind == 4:
        return "2026-02-30T10:00:00Z"  # undated: an impossible date
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def attempt(rng: random.Random, index: int, weeks: int) -> dict[str, object]:
    """One attempt line's object."""
    moment = START + timedelta(seconds=rng.randrange(weeks * 7 * 86400))
    reject = rng.random() < 0.35
    quarantine = rng.sample(FREEZES, rng.randrange(3)) if rng.random() < 0.2 else []
    properties = rng.sample(PROPERTIES, rng.randrange(1, 3))
    if quarantine and rng.random() < 0.3:
        properties.append(quarantine[0])
    row: dict[str, object] = {
        "schema": 1, "attempt_id": f"g{index}", "repo": rng.choice(REPOS), "head": f"{index:08x}",
        "producer": rng.choice(["lanelog-route", "legacy-promoter"]),
        "probe": "reject" if reject else "pass",
        "reasons": [rng.choice(["line_cap", "no_properties", "over_budget"])] if reject and rng.random() < 0.8 else [],
        "properties": properties, "quarantine": quarantine,
        "expired_freezes": [FREEZES[1]] if rng.random() < 0.05 else [],
        "model_call_allowed": rng.choice([True, False, 1, 0, "yes", ""]) if rng.random() < 0.6 else False,
        "merge_credit": rng.choice([0, 1, True, "", None]) if rng.random() < 0.15 else 0,
        "budget_cap": rng.choice([3, 2.5, 10]),
        "lane": rng.choice(["not_started", "hold", "fail", "unresolved", None]),
        "results": {properties[0]: rng.choice(["hold", "fail", "odd"])} if rng.random() < 0.5 else {},
    }
    if rng.random() < 0.7:
        row["units"] = rng.choice([0, 1, 2, 3.5, 5, 12])
    elif rng.random() < 0.2:
        row["units"] = "3"  # a string: no number of units recorded
    ts = _ts(rng, moment)
    if ts is not None:
        row["ts"] = ts
    return row


BROKEN = [b'{"attempt_id": "cut", "probe": "pa', b"[1, 2, 3]", b'{"attempt_id": "bad\xff"}', b'{"units": NaN}']


def outcome(rng: random.Random, number: int, weeks: int) -> dict[str, object]:
    """One outcome line's object: pull request `number` merged or closed (its job's re-run writes it again)."""
    moment = START + timedelta(seconds=rng.randrange(weeks * 7 * 86400))
    merged = rng.random() < 0.7
    closed_at = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "schema": 1, "kind": "outcome", "producer": "lanelog-outcome", "outcome_id": f"outcome-{number}",
        "ts": closed_at, "repo": REPOS[number % len(REPOS)],
        "pull_request": {"repository": f"octo/{REPOS[number % len(REPOS)]}", "number": number},
        "state": "merged" if merged else "closed", "closed_at": closed_at, "merged_at": closed_at if merged else None,
        "merged_by": {"login": rng.choice(["alice", "copilot[bot]"]), "type": "User"} if merged else None,
        "auto_merge": {"enabled_by": {"login": "alice", "type": "User"}, "merge_method": "squash"}
        if merged and rng.random() < 0.3 else None,
        "approvals": [{"login": "bob", "type": "User", "submitted_at": closed_at, "commit_id": f"{number:040x}"}]
        if rng.random() < 0.5 else [],
        "labels": [{"name": "lanelog:accept-quarantine"}] if rng.random() < 0.2 else [],
    }


def write_log(path: Path, seed: int, lines: int, weeks: int = 6) -> Path:
    """A lane log of about `lines` lines: attempts, duplicates, broken lines, outcome lines.

    The outcome lines, and the pull request each attempt names, are drawn from a generator
    of their own: the attempts are those the log held before it had them."""
    rng, changes = random.Random(seed), random.Random(-seed)
    out = bytearray()
    previous = b""
    for index in range(lines):
        roll = rng.random()
        if roll < 0.03 and previous:
            out += previous  # an exact duplicate line
        elif roll < 0.05:
            out += rng.choice(BROKEN) + b"\n"
        else:
            row = attempt(rng, seed * 1_000_000 + index, weeks)
            if changes.random() < 0.5:
                row |= {"pull_request": {"repository": f"octo/{row['repo']}", "number": changes.randrange(1, 40)},
                        "agent": changes.choice(["copilot-swe-agent[bot]", "codex"]),
                        "ci_run": {"id": str(index), "attempt": 1}}
            previous = json.dumps(row).encode() + b"\n"
            out += previous
        if changes.random() < 0.04:
            out += json.dumps(outcome(changes, changes.randrange(1, 40), weeks)).encode() + b"\n"
    path.write_bytes(bytes(out))
    return path


def append(path: Path, seed: int, lines: int, weeks: int = 6) -> None:
    """Append more generated lines to a log (a later CI run writing to it)."""
    extra = path.with_suffix(".extra")
    write_log(extra, seed, lines, weeks)
    with path.open("ab") as sink:
        sink.write(extra.read_bytes())
    extra.unlink()


def lake_connection(lake: str | Path) -> Any:
    """A connection to the lake as the dashboard opens one: a LakeReader's, at the lake's current state."""
    from lanelog import store

    reader = store.LakeReader(lake)
    stamp = reader.stamp()
    assert stamp is not None
    return reader.connect(stamp)
