"""Lines whose usage objects are too wide to type at once, through the real `lanelog ingest`.

A 7.6 MB line (under the 8 MiB limit) whose usage had 100,000 entries ran ingest out of the
memory it holds DuckDB to: exit 2, nothing of the log stored, on every run.  So did 3,000
ordinary lines with 30 usage entries each (every entry's object was parsed again by each
field it gave, and each parse held until the batch was typed).
"""

from __future__ import annotations

import json
from decimal import Decimal

import duckdb

from lanelog.lane_line import MAX_LINE_BYTES
from tests.ingest.support import ingest_cli


def attempt(attempt_id: str, **fields: object) -> dict[str, object]:
    return {"attempt_id": attempt_id, "ts": "2026-10-01T10:00:00Z", "repo": "acme/orders", "head": "a" * 40,
            "probe": "pass", "lane": "held", "model_call_allowed": True, **fields}


def wide_line(limit: int) -> bytes:
    """An attempt line whose usage object has as many entries as fit in `limit` bytes with its newline."""
    head = json.dumps(attempt("wide", usage={})).encode()[:-3]  # up to `"usage": {`
    entry = '"p{:06d}": {{"input_tokens": 1, "output_tokens": 2}}'
    entries, size = [], len(head) + 3
    while size + len(entry.format(0)) + 2 <= limit:
        entries.append(entry.format(len(entries)))
        size += len(entries[-1]) + 2
    return head + b"{" + ", ".join(entries).encode() + b"}}"


def test_a_line_at_the_8_mib_edge_with_100000_usage_entries_is_stored_without_its_usage(tmp_path):
    wide = wide_line(MAX_LINE_BYTES - 1)
    assert MAX_LINE_BYTES - 64 < len(wide) + 1 <= MAX_LINE_BYTES and wide.count(b"input_tokens") > 100_000
    before = json.dumps(attempt("before", usage={"p1": {"input_tokens": 5, "output_tokens": 7}})).encode()
    after = json.dumps(attempt("after")).encode()
    log = tmp_path / "lane-log.jsonl"
    log.write_bytes(b"\n".join([before, wide, after]) + b"\n")
    db = tmp_path / "lanelog.duckdb"
    done = ingest_cli(db, log)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["attempts_added"] == 3
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT attempt_id, usage IS NULL, input_tokens, type_anomalies, strlen(raw) "
                           "FROM attempts ORDER BY line_no").fetchall()
    finally:
        con.close()
    assert rows == [("before", False, 5.0, [], len(before)),
                    ("wide", True, None, ["usage.size"], len(wide)),  # the line kept whole; its usage named
                    ("after", True, None, [], len(after))]


def test_three_thousand_lines_of_thirty_usage_entries_are_typed_whole(tmp_path):
    usage = {f"prop_{i:02d}": {"input_tokens": i, "output_tokens": 2 * i, "cost": 0.01, "currency": "USD"}
             for i in range(30)}
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(attempt(f"a{n}", usage=usage)) + "\n" for n in range(3000)), encoding="utf-8")
    db = tmp_path / "lanelog.duckdb"
    done = ingest_cli(db, log)
    assert done.returncode == 0, done.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        count, entries, tokens, cost, anomalies = con.execute(
            "SELECT count(*), sum(len(usage)), sum(input_tokens), sum(CAST(cost AS DECIMAL(18, 6))), "
            "count(*) FILTER (WHERE len(type_anomalies) > 0) FROM attempts").fetchone()
    finally:
        con.close()
    # By hand: 3,000 lines of 30 entries; each line 0+1+...+29 = 435 input tokens and 30 x 0.01 USD.
    assert (count, entries, tokens, anomalies) == (3000, 90_000, 3000 * 435, 0)
    assert cost == Decimal("900.000000")
