"""Deterministic lane logs shaped like the router's lines, with a realistic mix.

Every line is drawn from ``random.Random`` seeded by (seed, line index), so the
same seed and index always give the same bytes, and the 1,000 lines appended
for the incremental case continue the same log.  The mix follows what a team
running the router sees: most attempts rejected or passed by the probe, about
1 in 20 with a live quarantine, rare credit bugs written by a faulty legacy
promotion script (1 line in 40,000), and a few broken lines (1 in 50,000: a
writer cut mid-line, invalid UTF-8, NaN, a bare array).  The manifest records
the true counts, so the benchmark can check that each reader counted them.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from lanelog.reasons import REASONS, RECORDS

GENERATOR_VERSION = 6

START = datetime(2026, 4, 6, tzinfo=UTC)  # a Monday
SPAN = timedelta(weeks=26)

REPOS = ["billing-service", "orders-api", "export-worker", "ledger", "search-indexer"]
PROPERTY_FILES = {
    "store.py": ["prop_round_trip", "prop_idempotent_put"],
    "api.py": ["prop_reject_empty"],
    "export/writer.py": ["prop_export_stable"],
    "ledger/post.py": ["prop_balanced_post"],
}
MAPPED_FILES = list(PROPERTY_FILES)
OTHER_FILES = [
    "README.md", "src/latest_rates.py", "scripts/release.sh", "docs/usage.md",
    "tests/test_store.py", "tests/test_api.py", "fixtures/order.fixture.json",
    "fixtures/customers/basic.json", "generated/schema_pb2.py", "poetry.lock",
]
FLAKY_IDS = ["test_export_race", "test_clock_skew", "test_retry_backoff"]
# The mix of reasons a team running the router sees: each reason drawn as often in a hundred
# rejects as its record says (lanelog.reasons' ``seen``); a line's message is the reason's
# sentence, as the router writes one per reason.
REASON_NAMES = [code for code, reason in RECORDS.items() if reason.seen]
REASON_WEIGHTS = [RECORDS[code].seen for code in REASON_NAMES]

REJECT_RATE = 0.45
QUARANTINE_RATE = 1 / 20  # of all lines: passes with a live freeze
# Rare lines sit at fixed positions, so even a small quick-mode log holds some.
CREDIT_BUG_EVERY, CREDIT_BUG_PHASE = 40_000, 1_234  # legacy promoter lines moving the merge bit
BROKEN_EVERY, BROKEN_PHASE = 50_000, 777
BROKEN_KINDS = ("cut_mid_line", "invalid_utf8", "nan", "not_an_object")


@dataclass
class Manifest:
    """What a generated log holds: the truth every reader is checked against."""

    seed: int
    start: int
    lines: int
    bytes: int = 0
    attempts: int = 0
    probe_rejects: int = 0
    calls_armed: int = 0
    credit_bugs: int = 0
    quarantined: int = 0
    broken: int = 0
    broken_line_numbers: list[int] = field(default_factory=list)
    version: int = GENERATOR_VERSION

    def counts(self) -> dict[str, int]:
        """The seed's Step 6 four counts."""
        return {
            "attempts": self.attempts,
            "probe_rejects": self.probe_rejects,
            "calls_armed": self.calls_armed,
            "credit_bugs": self.credit_bugs,
        }


def _hex(rng: random.Random, bits: int) -> str:
    return f"{rng.getrandbits(bits):0{bits // 4}x}"


def _timestamp(index: int, total: int, rng: random.Random) -> str:
    # Lines are appended in time order across the span, with under a minute of jitter
    # that never pushes the base log's last line into a week of its own.
    offset = (SPAN - timedelta(minutes=1)) * (index / max(total, 1)) + timedelta(seconds=rng.randrange(0, 60))
    return (START + offset).strftime("%Y-%m-%dT%H:%M:%SZ")


def _router_line(index: int, total: int, rng: random.Random) -> dict[str, object]:
    reject = rng.random() < REJECT_RATE
    # A passing patch touches mapped files; a rejected one touches anything.
    pool = MAPPED_FILES if not reject else MAPPED_FILES + OTHER_FILES
    files = list(dict.fromkeys(rng.choices(pool, k=rng.randint(1, 4))))
    # The router's key order (router/lane_log.py), so the bytes are what it writes.
    line: dict[str, object] = {
        "schema": 1,
        "producer": "lanelog-route",
        "ts": _timestamp(index, total, rng),
        "attempt_id": f"{index:08x}{_hex(rng, 96)}",
        "repo": rng.choice(REPOS),
        "base": _hex(rng, 160),
        "head": _hex(rng, 160),
        "probe": "reject" if reject else "pass",
        "reasons": [],
        "message": None,
        "lines_changed": rng.randint(1, 400),
        "files": files,
        "files_count": len(files),
        "properties": [],
        "units": 0,
        "budget_cap": 3,
        "line_cap": 400,
        "quarantine": [],
        "expired_freezes": [],
        "merge_credit": 0,
        "model_call_allowed": False,
        "review": "pending",
        "lane": "not_started",
        "results": {},
    }
    if rng.random() < 0.04:
        line["expired_freezes"] = [rng.choice(FLAKY_IDS)]
    if reject:
        reason = rng.choices(REASON_NAMES, REASON_WEIGHTS)[0]
        line["reasons"] = [reason]
        line["message"] = f"{reason}: {REASONS[reason]}"
        if reason == "line_cap":
            line["lines_changed"] = rng.randint(401, 5000)
            line["message"] = f"line_cap: {line['lines_changed']} lines changed > line_cap 400"
        if reason == "base_missing":
            line["base"] = None
            line["lines_changed"] = None
        return line
    properties = list(dict.fromkeys(p for f in files for p in PROPERTY_FILES[f]))[:3]
    line["properties"] = properties
    line["units"] = len(properties)
    line["model_call_allowed"] = True
    # Passing lines carry the live freezes; the share is set against all lines.
    if rng.random() < QUARANTINE_RATE / (1 - REJECT_RATE):
        line["quarantine"] = [rng.choice(FLAKY_IDS)]
    if rng.random() < 0.5:
        results = {p: rng.choices(["hold", "fail", "unresolved"], [70, 20, 10])[0] for p in properties}
        line["results"] = results
        outcomes = set(results.values())
        line["lane"] = "hold" if outcomes == {"hold"} else "fail" if "fail" in outcomes else "unresolved"
    return line


def _legacy_credit_bug(index: int, total: int, rng: random.Random) -> dict[str, object]:
    # The faulty promotion script writes the seed's short shape and moves the merge bit.
    return {
        "ts": _timestamp(index, total, rng),
        "attempt_id": f"{index:08x}{_hex(rng, 96)}",
        "repo": rng.choice(REPOS),
        "producer": "legacy-promoter",
        "probe": "pass",
        "properties": ["prop_round_trip"],
        "quarantine": [rng.choice(FLAKY_IDS)],
        "merge_credit": 1,
        "model_call_allowed": True,
    }


def _broken_line(index: int, total: int, rng: random.Random) -> bytes:
    good = _dumps(_router_line(index, total, rng))
    kind = BROKEN_KINDS[(index // BROKEN_EVERY) % len(BROKEN_KINDS)]
    if kind == "cut_mid_line":
        return good[: len(good) // 2]
    if kind == "invalid_utf8":
        return good[:20] + b"\xff\xfe" + good[20:]
    if kind == "nan":
        return b'{"probe":"reject","units":NaN}'
    return b'["not","an","object"]'


def line(seed: int, index: int, total: int) -> tuple[bytes, dict[str, object] | None]:
    """The bytes of line ``index`` (no newline) and the object it holds (None for a broken line)."""
    rng = random.Random(seed * 1_000_003 + index)
    if index % BROKEN_EVERY == BROKEN_PHASE:
        return _broken_line(index, total, rng), None
    if index % CREDIT_BUG_EVERY == CREDIT_BUG_PHASE:
        row = _legacy_credit_bug(index, total, rng)
    else:
        row = _router_line(index, total, rng)
    return _dumps(row), row


def _dumps(row: dict[str, object]) -> bytes:
    # The router's separators and its readable UTF-8.
    return json.dumps(row, ensure_ascii=False, separators=(", ", ": ")).encode()


CHUNK_LINES = 20_000


@dataclass
class _Chunk:
    data: bytes
    clean: bytes
    counts: Manifest


def _make_chunk(args: tuple[int, int, int, int]) -> _Chunk:
    seed, start, count, total = args
    counts = Manifest(seed=seed, start=start, lines=count)
    lines: list[bytes] = []
    clean: list[bytes] = []
    for index in range(start, start + count):
        data, row = line(seed, index, total)
        lines.append(data)
        if row is None:
            counts.broken += 1
            counts.broken_line_numbers.append(index + 1)
        else:
            clean.append(data)
            _count(counts, row)
    return _Chunk(b"".join(x + b"\n" for x in lines), b"".join(x + b"\n" for x in clean), counts)


def _count(manifest: Manifest, row: dict[str, object]) -> None:
    # The seed's Step 6 definitions, applied to the objects the generator wrote.
    manifest.attempts += 1
    manifest.probe_rejects += row.get("probe") == "reject"
    manifest.calls_armed += bool(row.get("model_call_allowed"))
    manifest.credit_bugs += bool(row.get("merge_credit")) and bool(row.get("quarantine"))
    manifest.quarantined += bool(row.get("quarantine"))


def write_log(path: Path, seed: int, lines: int, *, start: int = 0, total: int | None = None,
              clean: Path | None = None, workers: int = 1, chunk_lines: int = CHUNK_LINES) -> Manifest:
    """Write lines ``start .. start+lines-1`` to ``path``; ``clean`` also gets them without broken lines.

    ``total`` spreads the timestamps: the lines appended in the incremental case pass
    the base log's length, so their timestamps continue after it.  Line numbers in
    the manifest are the log's own (line ``start`` is line ``start + 1``).
    """
    span_total = total if total is not None else start + lines
    jobs = [(seed, first, min(chunk_lines, start + lines - first), span_total)
            for first in range(start, start + lines, chunk_lines)]
    manifest = Manifest(seed=seed, start=start, lines=lines)
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(path.open("wb"))
        clean_out = stack.enter_context(clean.open("wb")) if clean is not None else None
        chunks = map(_make_chunk, jobs)
        if workers > 1 and len(jobs) > 1:
            # An executor, not multiprocessing.Pool: a worker that dies raises
            # BrokenProcessPool here instead of being respawned forever.
            pool = stack.enter_context(
                ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")))
            chunks = pool.map(_make_chunk, jobs)
        for chunk in chunks:
            out.write(chunk.data)
            if clean_out is not None:
                clean_out.write(chunk.clean)
            _merge(manifest, chunk.counts, len(chunk.data))
    return manifest


def _merge(manifest: Manifest, part: Manifest, size: int) -> None:
    manifest.bytes += size
    for name in ("attempts", "probe_rejects", "calls_armed", "credit_bugs", "quarantined", "broken"):
        setattr(manifest, name, getattr(manifest, name) + getattr(part, name))
    manifest.broken_line_numbers.extend(part.broken_line_numbers)


def manifest_dict(manifest: Manifest) -> dict[str, object]:
    """The manifest as JSON-ready data."""
    return asdict(manifest)
