-- The lanelog DuckDB schema, version 1.
-- ingest/ owns this file; queries/ reads these tables and nothing else.
-- Timestamps are UTC.  A NULL week is the "undated" bucket.

CREATE TABLE IF NOT EXISTS lanelog_meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

-- One row per log, identified by its content (fingerprint), not its path.
CREATE TABLE IF NOT EXISTS sources (
    source_id INTEGER PRIMARY KEY,
    path VARCHAR NOT NULL,              -- where it was last read from (display only)
    fingerprint VARCHAR NOT NULL,       -- identity: hash of the first bytes of the file
    bytes_read BIGINT NOT NULL,         -- committed read position (end of the last complete line)
    lines_read BIGINT NOT NULL,         -- physical lines committed, blank ones included
    duplicates BIGINT NOT NULL DEFAULT 0,
    first_ingested TIMESTAMP NOT NULL,
    last_ingested TIMESTAMP NOT NULL
);

-- One row per JSON object line: an attempt, whatever fields it has or lacks.
CREATE TABLE IF NOT EXISTS attempts (
    source_id INTEGER NOT NULL,
    line_no BIGINT NOT NULL,            -- 1-based physical line number
    byte_offset BIGINT NOT NULL,        -- offset of the line's first byte in the file
    raw VARCHAR NOT NULL,               -- the line's JSON text, unknown fields included
    provisional BOOLEAN NOT NULL,       -- last line without a newline: read again next run
    attempt_id VARCHAR,                 -- a non-empty string attempt_id, else NULL
    ts TIMESTAMP,                       -- UTC; NULL when undated
    week DATE,                          -- Monday of the ISO week of ts (UTC); NULL = undated
    repo VARCHAR,                       -- string fields: NULL unless the JSON value is a string
    head VARCHAR,
    producer VARCHAR,
    probe VARCHAR,
    lane VARCHAR,
    is_reject BOOLEAN NOT NULL,         -- probe == "reject"
    armed BOOLEAN NOT NULL,             -- truthy model_call_allowed (Python truthiness)
    quarantined BOOLEAN NOT NULL,       -- truthy quarantine
    has_credit BOOLEAN NOT NULL,        -- truthy merge_credit
    credit_bug BOOLEAN NOT NULL,        -- has_credit AND quarantined
    merge_credit VARCHAR,               -- JSON text of merge_credit; NULL when absent
    units DOUBLE,                       -- when a JSON number
    budget_cap DOUBLE,                  -- when a JSON number
    properties VARCHAR[],               -- list elements (strings as they are, others as JSON text); NULL unless a list
    quarantine VARCHAR[],
    reasons VARCHAR[],
    expired_freezes VARCHAR[],
    results JSON,                       -- {property id: "hold"|"fail"|"unresolved"} when an object
    type_anomalies VARCHAR[] NOT NULL   -- names of fields whose JSON type is unexpected
);

-- One row per line that is not a JSON object.
CREATE TABLE IF NOT EXISTS rejected_lines (
    source_id INTEGER NOT NULL,
    line_no BIGINT NOT NULL,
    byte_offset BIGINT NOT NULL,
    raw BLOB NOT NULL,                  -- the exact bytes
    text VARCHAR NOT NULL,              -- readable text, invalid bytes escaped
    reason VARCHAR NOT NULL             -- invalid_utf8 | invalid_json | not_an_object
);

CREATE TABLE IF NOT EXISTS ingest_runs (
    run_id INTEGER PRIMARY KEY,
    started_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    files INTEGER NOT NULL,
    lines_read BIGINT NOT NULL,
    attempts_added BIGINT NOT NULL,
    duplicates BIGINT NOT NULL,
    rejected BIGINT NOT NULL,
    pending BIGINT NOT NULL
);
