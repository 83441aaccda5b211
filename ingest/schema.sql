-- The lanelog DuckDB schema.  Its version is SCHEMA_VERSION in ingest/db.py:
-- bump it with any change here, so an older database gives a clear error.
-- ingest/ owns this file; queries/ reads these tables and macros and nothing else.
-- Timestamps are UTC.  A NULL week is the "undated" bucket.

CREATE TABLE IF NOT EXISTS lanelog_meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

CREATE SEQUENCE IF NOT EXISTS source_ids START 1;
CREATE SEQUENCE IF NOT EXISTS run_ids START 1;

-- One row per log, identified by its content (fingerprint), not its path.
CREATE TABLE IF NOT EXISTS sources (
    source_id INTEGER PRIMARY KEY,
    path VARCHAR NOT NULL,              -- where it was last read from (display only)
    fingerprint VARCHAR NOT NULL,       -- identity: sha256 of the first fingerprint_bytes bytes
    fingerprint_bytes INTEGER NOT NULL, -- 4096, or the whole log when it was shorter
    bytes_read BIGINT NOT NULL,         -- committed read position (end of the last complete line)
    tail_fingerprint VARCHAR NOT NULL,  -- sha256 of the up to 4096 bytes just before bytes_read
    bytes_seen BIGINT NOT NULL,         -- bytes_read plus a provisional last line (no newline yet)
    seen_fingerprint VARCHAR NOT NULL,  -- sha256 of the bytes from bytes_read to bytes_seen
    lines_read BIGINT NOT NULL,         -- physical lines committed, blank ones included
    duplicates BIGINT NOT NULL DEFAULT 0,  -- duplicate attempts among the committed lines
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

-- Macros over one JSON value as json_extract writes it (minified text, NULL when
-- the key is absent).  The seed's truthiness and the week bucketing live here
-- and nowhere else; ingest computes the typed columns of `attempts` with them.

-- The JSON kind of a value, read from its first character.
CREATE OR REPLACE MACRO json_kind(j) AS CASE left(coalesce(CAST(j AS VARCHAR), ''), 1)
    WHEN '"' THEN 'string'
    WHEN '{' THEN 'object'
    WHEN '[' THEN 'list'
    WHEN 't' THEN 'boolean'
    WHEN 'f' THEN 'boolean'
    WHEN 'n' THEN 'null'
    WHEN '' THEN NULL  -- absent key
    ELSE 'number' END;

-- Python truthiness of the parsed value, as the seed's reader sees it:
-- null, false, 0, 0.0, -0, "", [] and {} are falsy; "0", " " and 1e-300 are
-- truthy; a number is falsy exactly when it is 0 as a double (1e-400 is 0.0 in
-- Python too).  An absent key is falsy.
CREATE OR REPLACE MACRO py_truthy(j) AS coalesce(CASE json_kind(j)
    WHEN 'null' THEN false
    WHEN 'boolean' THEN CAST(j AS VARCHAR) = 'true'
    WHEN 'number' THEN TRY_CAST(CAST(j AS VARCHAR) AS DOUBLE) IS DISTINCT FROM 0
    ELSE CAST(j AS VARCHAR) NOT IN ('""', '[]', '{}') END, false);

-- The text of a JSON string value; NULL for any other kind.
CREATE OR REPLACE MACRO json_str(j) AS
    CASE WHEN json_kind(j) = 'string' THEN json_extract_string(j, '$') END;

-- A JSON number as a DOUBLE; NULL for any other kind.
CREATE OR REPLACE MACRO json_num(j) AS
    CASE WHEN json_kind(j) = 'number' THEN TRY_CAST(CAST(j AS VARCHAR) AS DOUBLE) END;

-- A JSON list as VARCHAR[]: strings as they are, other elements as JSON text.
CREATE OR REPLACE MACRO json_str_list(j) AS CASE WHEN json_kind(j) = 'list' THEN
    list_transform(CAST(j AS JSON[]), lambda e: coalesce(json_str(e), CAST(e AS VARCHAR))) END;

-- A usable timestamp (UTC) from `ts`, else NULL (the attempt is undated).
-- Accepted: an RFC 3339 date-time ("T", "t" or " " between date and time;
-- "Z", "z" or +HH:MM offset, converted to UTC; no offset means UTC), a bare
-- YYYY-MM-DD (midnight UTC), or a number of Unix epoch seconds.  Years
-- outside 0001-9999, impossible dates and leap seconds are undated.
CREATE OR REPLACE MACRO lane_ts_text(s) AS CASE
    WHEN starts_with(s, '0000') THEN NULL
    WHEN regexp_full_match(s, '\d{4}-\d{2}-\d{2}')
        THEN CAST(TRY_CAST(s AS DATE) AS TIMESTAMP)
    WHEN regexp_full_match(s, '\d{4}-\d{2}-\d{2}[Tt ]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)?')
        THEN timezone('UTC', TRY_CAST(
            upper(s) || CASE WHEN regexp_matches(s, '([Zz]|[+-]\d\d:\d\d)$') THEN '' ELSE 'Z' END
            AS TIMESTAMPTZ))
    END;

-- Epoch seconds inside 0001-01-01 .. 9999-12-31T23:59:59 UTC.
CREATE OR REPLACE MACRO lane_ts_epoch(x) AS CASE
    WHEN x >= -62135596800 AND x < 253402300800 THEN timezone('UTC', to_timestamp(x))
    END;

CREATE OR REPLACE MACRO lane_ts(j) AS CASE json_kind(j)
    WHEN 'string' THEN lane_ts_text(json_str(j))
    WHEN 'number' THEN lane_ts_epoch(json_num(j))
    END;

-- RFC 8259 validity of one line of text.  DuckDB's JSON reader also accepts
-- NaN / Infinity literals (in any case) and trailing commas; RFC 8259 and
-- Python's json.loads(parse_constant=...) reject those, and so does lanelog.
-- The cheap first test keeps the string-stripping second test off most lines.
CREATE OR REPLACE MACRO json_valid_rfc(t) AS json_valid(t) AND NOT (
    (regexp_matches(t, ',[ \t\r]*(?:[\]}]|-?(?:[nN][aA]|[iI]))')
        OR regexp_matches(t, ':[ \t\r]*-?(?:[nN][aA]|[iI])')
        OR regexp_matches(t, '\[[ \t\r]*-?(?:[nN][aA]|[iI])')
        OR regexp_matches(t, '^[ \t\r]*-?(?:[nN][aA]|[iI])'))
    AND regexp_matches(regexp_replace(t, '"(?:[^"\\]|\\.)*"', '""', 'g'),
        '(?:^|[,:\[])[ \t\r]*-?(?:[nN][aA]|[iI])|,[ \t\r]*[\]}]'));

-- Week = the Monday of the ISO week of a UTC timestamp; NULL stays NULL (undated).
CREATE OR REPLACE MACRO lane_week(ts) AS CAST(date_trunc('week', ts) AS DATE);
