-- The lanelog DuckDB schema, complete.  Its version is SCHEMA_VERSION in store/db.py:
-- bump it with any change to a table, a column, its type, or the text of a stored macro
-- (these here, and the table macros ingest/load.sql keeps in the database), and add the
-- block that brings a database of the version before up to it (store/upgrade.sql), so an
-- older database is upgraded, never misread.  A database keeps the macros it was made
-- with until an upgrade makes them again, so even a faster body of the same meaning is a
-- new version.  tests/store/test_schema_digest.py pins a digest of the catalog each
-- version makes, and fails on a change made without a new version.  (Column compression
-- is no part of it: another compression needs no bump.)
-- store/ owns this file; ingest/ writes these tables, queries/ reads these tables and macros and nothing else.
-- Timestamps are UTC.  A NULL week is the "undated" bucket.

-- name: create_schema
-- Every table, sequence and macro of a new lanelog database (version SCHEMA_VERSION).
-- params:
CREATE TABLE IF NOT EXISTS lanelog_meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

CREATE SEQUENCE IF NOT EXISTS source_ids START 1;
CREATE SEQUENCE IF NOT EXISTS run_ids START 1;

-- One row per log, identified by its content (fingerprint), not its path.
CREATE TABLE IF NOT EXISTS sources (
    source_id INTEGER PRIMARY KEY,
    path VARCHAR NOT NULL,              -- where it was last read from, a file path or an object URL (display only)
    fingerprint VARCHAR NOT NULL,       -- identity: sha256 of the first fingerprint_bytes bytes
    fingerprint_bytes INTEGER NOT NULL, -- 4096, or the whole log when it was shorter
    bytes_read BIGINT NOT NULL,         -- committed read position (end of the last complete line)
    tail_fingerprint VARCHAR NOT NULL,  -- sha256 of the up to 4096 bytes just before bytes_read
    bytes_seen BIGINT NOT NULL,         -- bytes_read plus a provisional last line (no newline yet)
    seen_fingerprint VARCHAR NOT NULL,  -- sha256 of the bytes from bytes_read to bytes_seen
    lines_read BIGINT NOT NULL,         -- physical lines committed, blank ones included
    duplicates BIGINT NOT NULL DEFAULT 0,  -- duplicate attempts and outcomes among the committed lines
    first_ingested TIMESTAMP NOT NULL,
    last_ingested TIMESTAMP NOT NULL
);

-- One row per object-store object (s3://bucket/key) read to its end, by URL: the
-- ETag and size it was listed with then.  A re-run that lists the same ETag and
-- size fetches nothing.  Only a shortcut: which log an object is, and where its
-- reading resumes, is settled by `sources` (by content) like any file.  Added in
-- schema version 3.
CREATE TABLE IF NOT EXISTS objects_read (
    url VARCHAR PRIMARY KEY,
    etag VARCHAR NOT NULL,
    size BIGINT NOT NULL,
    last_read TIMESTAMP NOT NULL
);

-- One row per JSON object line: an attempt, whatever fields it has or lacks.
CREATE TABLE IF NOT EXISTS attempts (
    source_id INTEGER NOT NULL,
    line_no BIGINT NOT NULL,            -- 1-based physical line number
    byte_offset BIGINT NOT NULL,        -- offset of the line's first byte in the file
    -- the line's JSON text, unknown fields included.  zstd: long JSON lines compress
    -- to about a sixth, at a fraction of the CPU of the default string compression.
    raw VARCHAR NOT NULL USING COMPRESSION zstd,
    provisional BOOLEAN NOT NULL,       -- last line without a newline: read again next run
    -- Unique ids compress little, and working out that they do costs more than
    -- the parse of a line, so the two id columns are stored as they are.
    attempt_id VARCHAR USING COMPRESSION uncompressed,  -- a non-empty string attempt_id, else NULL
    ts TIMESTAMP,                       -- UTC; NULL when undated
    week DATE,                          -- Monday of the ISO week of ts (UTC); NULL = undated
    repo VARCHAR,                       -- string fields: NULL unless the JSON value is a string
    head VARCHAR USING COMPRESSION uncompressed,
    producer VARCHAR,
    probe VARCHAR,
    lane VARCHAR,
    is_reject BOOLEAN NOT NULL,         -- probe == "reject"
    armed BOOLEAN NOT NULL,             -- truthy model_call_allowed (Python truthiness)
    quarantined BOOLEAN NOT NULL,       -- truthy quarantine
    has_credit BOOLEAN NOT NULL,        -- truthy merge_credit
    credit_bug BOOLEAN NOT NULL,        -- has_credit AND quarantined
    merge_credit VARCHAR,               -- JSON text of merge_credit; NULL when absent or null
    units DOUBLE,                       -- when a JSON number
    budget_cap DOUBLE,                  -- when a JSON number
    properties VARCHAR[],               -- list elements (strings as they are, null as NULL, others as JSON text); NULL unless a list
    quarantine VARCHAR[],
    reasons VARCHAR[],
    expired_freezes VARCHAR[],
    results JSON,                       -- {property id: "hold"|"fail"|"unresolved"} when an object
    type_anomalies VARCHAR[] NOT NULL,  -- names of fields whose JSON type is unexpected, and usage.cost /
                                        -- usage.currency for what lane_usage dropped
    -- What the property runs' model calls used (schema 3): the line's optional `usage`
    -- object, one entry per property id; NULL unless the line has one.  A token count is
    -- NULL unless it is a JSON number from 0 to 1e12 (the router's bound); a cost unless it is from 0 to 1e9 with a
    -- currency of three capital letters (lane_usage).
    usage STRUCT(property VARCHAR, input_tokens DOUBLE, output_tokens DOUBLE, cost DOUBLE,
                 currency VARCHAR, model VARCHAR)[],
    input_tokens DOUBLE,                -- the entries' sum; NULL when no entry gives it
    output_tokens DOUBLE,
    cost DOUBLE,                        -- the entries' costs summed when they share one currency, else NULL
    currency VARCHAR,                   -- that currency (NULL with cost)
    -- The line's `shadow` object (`route --shadow`: the same patch under a candidate
    -- policy), typed by the rules above; all NULL when the line has no shadow object.  A
    -- shadow that is an error (no decision: its policy could not be used) has shadow_error
    -- and no decision columns (schema 4).
    shadow_probe VARCHAR,
    shadow_reasons VARCHAR[],
    shadow_units DOUBLE,
    shadow_armed BOOLEAN,               -- truthy shadow model_call_allowed; NULL without a shadow decision
    shadow_policy VARCHAR,              -- the shadow policy's sha256 (NULL: none could be read)
    shadow_error VARCHAR,               -- why the shadow is no decision (policy_missing, ...); NULL for a decision
    -- The change the attempt belongs to, when route could tell (schema 5): the line's
    -- `pull_request` object (lane_pull_request), `agent` and `ci_run` object (lane_ci_run),
    -- typed by the rules above; NULL when absent.  A pull request is (pr_repository, pr_number).
    pr_repository VARCHAR,              -- pull_request.repository, OWNER/NAME
    pr_number BIGINT,                   -- pull_request.number, when a JSON integer (json_int)
    pr_url VARCHAR,                     -- pull_request.url
    agent VARCHAR,                      -- who opened the pull request (its author, or the name route was given)
    ci_run_id VARCHAR,                  -- ci_run.id (a string of digits under GitHub Actions)
    ci_run_attempt BIGINT,              -- ci_run.attempt, when a JSON integer: a re-run job has the id, another attempt
    ci_run_url VARCHAR,                 -- ci_run.url
    -- Where the line was written (schema 6): the line's `source`, "hook" for `lanelog hook`
    -- (a check in the agent's own loop, docs/agents.md), NULL for route's line in CI.  The
    -- seed's figures count only lines that are no hook's (queries/scope.sql's in_scope).
    source VARCHAR,
    hook_agent VARCHAR,                 -- hook.agent: claude-code, codex, openhands, copilot, cline, git-pre-push
    hook_session VARCHAR                -- hook.session: the agent's session (its refused patch may come back)
);

-- Schema version 5: one row per outcome line (`"kind": "outcome"`, written by `lanelog
-- outcome` when a pull request closes), never an attempt: lane_outcome_rows types it.  Kept
-- losslessly (raw), exactly once with its log's read position, and a line whose non-empty
-- string outcome_id is stored already (a re-run job, a re-sent log) is a duplicate: counted
-- in sources.duplicates, not stored.  ts is the line's own (when the pull request closed).
CREATE TABLE IF NOT EXISTS outcomes (
    source_id INTEGER NOT NULL,
    line_no BIGINT NOT NULL,            -- 1-based physical line number
    byte_offset BIGINT NOT NULL,        -- offset of the line's first byte in the file
    raw VARCHAR NOT NULL USING COMPRESSION zstd,  -- the line's JSON text, unknown fields included
    provisional BOOLEAN NOT NULL,       -- last line without a newline: read again next run
    outcome_id VARCHAR,                 -- a non-empty string outcome_id, else NULL (NULL never duplicates)
    ts TIMESTAMP,                       -- UTC, by lane_ts as an attempt's; NULL when undated
    week DATE,                          -- Monday of the ISO week of ts (UTC); NULL = undated
    repo VARCHAR,                       -- string fields: NULL unless the JSON value is a string
    producer VARCHAR,
    pr_repository VARCHAR,              -- pull_request, typed as on attempts
    pr_number BIGINT,
    pr_url VARCHAR,
    head VARCHAR,                       -- the pull request's head commit
    state VARCHAR,                      -- 'merged' | 'closed' | anything else as given
    merged_at TIMESTAMP,                -- by lane_ts, as ts
    closed_at TIMESTAMP,
    merged_by VARCHAR,                  -- merged_by.login; NULL when closed without merge
    merged_by_type VARCHAR,             -- merged_by.type: User, Bot, Organization, as the forge gives it
    auto_merge BOOLEAN NOT NULL,        -- a non-null auto_merge object: merged by auto-merge
    auto_merge_by VARCHAR,              -- auto_merge.enabled_by.login
    auto_merge_by_type VARCHAR,         -- auto_merge.enabled_by.type
    auto_merge_method VARCHAR,          -- auto_merge.merge_method
    author VARCHAR,                     -- author.login: who opened the pull request
    author_type VARCHAR,                -- author.type
    -- The approving reviews (login, type, when, of which commit); NULL when the line has
    -- none: unknown, never no approval.  A timestamp by lane_ts.
    approvals STRUCT(login VARCHAR, type VARCHAR, submitted_at TIMESTAMP, commit_id VARCHAR)[],
    -- The labels at close, and who set each when (set_by, set_at NULL when unknown); via_app, the
    -- app that set it for them (version 7); removed_at, when it was removed after that (version 7).
    labels STRUCT(name VARCHAR, set_by VARCHAR, set_by_type VARCHAR, set_at TIMESTAMP, via_app VARCHAR,
                  removed_at TIMESTAMP)[],
    merge_commit VARCHAR,
    ci_run_id VARCHAR,                  -- ci_run, typed as on attempts: the job that wrote the line
    ci_run_attempt BIGINT,
    ci_run_url VARCHAR,
    type_anomalies VARCHAR[] NOT NULL   -- names of fields whose JSON type is unexpected (lane_outcome_rows)
);

-- One row per line that is not a JSON object.
CREATE TABLE IF NOT EXISTS rejected_lines (
    source_id INTEGER NOT NULL,
    line_no BIGINT NOT NULL,
    byte_offset BIGINT NOT NULL,
    raw BLOB NOT NULL,                  -- the exact bytes (too_long: the first 4096)
    text VARCHAR NOT NULL,              -- readable text, invalid bytes escaped (too_long: and its size)
    reason VARCHAR NOT NULL             -- invalid_utf8 | invalid_json | not_an_object | too_long
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
    pending BIGINT NOT NULL,
    outcomes_added BIGINT NOT NULL DEFAULT 0  -- schema 5 (0 for a run before it)
);

-- Schema version 3: one row per credit bug delivered to a webhook by `lanelog check
-- --notify` (store/alerts.sql), so a nightly run never sends one twice.
CREATE TABLE IF NOT EXISTS alerts_sent (
    bug_key VARCHAR NOT NULL,           -- attempt:<attempt_id>, or line:<sha256 of the line> without one
    receiver VARCHAR NOT NULL,          -- sha256 (hex) of the webhook URL: the URL is a secret, never stored
    sent_at TIMESTAMP NOT NULL,         -- UTC, the last delivery
    PRIMARY KEY (bug_key, receiver)
);

-- Schema version 4: one row per alert a `check --notify` run has claimed for a receiver and
-- not yet marked sent (store/alerts.sql).  The claim is committed before the post, so two
-- runs at once post each alert once; it goes when the post is marked, or given up; one
-- older than the claim expiry was left by a run that died, and is taken over.
CREATE TABLE IF NOT EXISTS alerts_claimed (
    bug_key VARCHAR NOT NULL,           -- the alert's key, as in alerts_sent
    receiver VARCHAR NOT NULL,          -- sha256 (hex) of the webhook URL, as in alerts_sent
    claimant VARCHAR NOT NULL,          -- the run that holds the claim (a random id per run)
    claimed_at TIMESTAMP NOT NULL,      -- UTC
    PRIMARY KEY (bug_key, receiver)
);

-- Macros over one JSON value as json_extract or json_transform write it
-- (minified text; NULL when the key is absent, and json_transform gives NULL
-- for a JSON null too).  The seed's truthiness, the ts reading and the week
-- bucketing live here and nowhere else; ingest computes the typed columns of
-- `attempts` with them.  They are kept small: a macro is expanded wherever it
-- is used, so every extra node is paid on every line.

-- The JSON kind of a value, read from its first character (ord is the cheapest
-- way DuckDB has to look at it): 34 ", 123 {, 91 [, 116 t, 102 f, 110 n.
CREATE OR REPLACE MACRO json_kind(j) AS CASE ord(CAST(j AS VARCHAR))
    WHEN 34 THEN 'string'
    WHEN 123 THEN 'object'
    WHEN 91 THEN 'list'
    WHEN 116 THEN 'boolean'
    WHEN 102 THEN 'boolean'
    WHEN 110 THEN 'null'
    ELSE CASE WHEN j IS NOT NULL THEN 'number' END END;

-- Python truthiness of the parsed value, as the seed's reader sees it:
-- null, false, 0, 0.0, -0, "", [] and {} are falsy; "0", " " and 1e-300 are
-- truthy; a number is falsy exactly when it is 0 as a double (1e-400 is 0.0 in
-- Python too).  An absent key is falsy.  A CASE on the first character: an
-- IN list of constants would be planned as a join.
CREATE OR REPLACE MACRO py_truthy(j) AS CASE ord(CAST(j AS VARCHAR))
    WHEN 110 THEN false                      -- null
    WHEN 102 THEN false                      -- false
    WHEN 116 THEN true                       -- true
    WHEN 34 THEN CAST(j AS VARCHAR) <> '""'
    WHEN 91 THEN CAST(j AS VARCHAR) <> '[]'
    WHEN 123 THEN CAST(j AS VARCHAR) <> '{}'
    ELSE j IS NOT NULL AND TRY_CAST(CAST(j AS VARCHAR) AS DOUBLE) IS DISTINCT FROM 0 END;

-- The text of a JSON string value; NULL for any other kind.
CREATE OR REPLACE MACRO json_str(j) AS
    CASE WHEN ord(CAST(j AS VARCHAR)) = 34 THEN json_extract_string(j, '$') END;

-- A JSON number as a DOUBLE; NULL for any other kind.
CREATE OR REPLACE MACRO json_num(j) AS
    CASE WHEN json_kind(j) = 'number' THEN TRY_CAST(CAST(j AS VARCHAR) AS DOUBLE) END;

-- A JSON list as VARCHAR[]: strings as they are, null as NULL, other values as JSON text.
CREATE OR REPLACE MACRO json_str_list(j) AS
    CASE WHEN ord(CAST(j AS VARCHAR)) = 91 THEN CAST(j AS VARCHAR[]) END;

-- The supported ts range, the one rule for dates: a UTC time from 1970-01-01T00:00:00
-- up to, not including, 2200-01-01.  A ts outside it (a year 9999 or 0001 typed by
-- hand, an epoch in milliseconds read as seconds) leaves the attempt undated: kept,
-- counted in the undated bucket and listed on Data health as out of range.  Every
-- week is then one a page can step through and draw.
CREATE OR REPLACE MACRO lane_ts_in_range(t) AS
    CASE WHEN t >= TIMESTAMP '1970-01-01' AND t < TIMESTAMP '2200-01-01' THEN t END;

-- A usable timestamp (UTC) from the text of a `ts` string, else NULL.
-- Accepted: an RFC 3339 date-time ("T", "t" or " " between date and time;
-- "Z", "z" or +HH:MM offset, converted to UTC; no offset means UTC) or a bare
-- YYYY-MM-DD (midnight UTC), inside the supported range above.  Impossible
-- dates and leap seconds give NULL.  The usual shape (2026-10-08T12:00:00Z) is read
-- by its format, and taken when the timestamp written back in that format is
-- the text itself: exactly the texts of that shape the pattern below accepts,
-- at a third of its cost.  Any other text: once the shape is checked, a text
-- without an offset (or with Z) casts straight to TIMESTAMP: it is UTC already,
-- so its range is read from the text (s >= '1970' AND s < '2200' compares the
-- year); a text with an offset is checked once converted.
CREATE OR REPLACE MACRO lane_ts_text(s) AS CASE
    WHEN strftime(try_strptime(s, '%Y-%m-%dT%H:%M:%SZ'), '%Y-%m-%dT%H:%M:%SZ') = s AND s >= '1970' AND s < '2200'
        THEN try_strptime(s, '%Y-%m-%dT%H:%M:%SZ')
    WHEN NOT regexp_full_match(s, '\d{4}-\d{2}-\d{2}([Tt ]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)?)?')
        THEN NULL
    WHEN length(s) > 19 AND substr(s, -6, 1) IN ('+', '-')
        THEN lane_ts_in_range(timezone('UTC', TRY_CAST(upper(s) AS TIMESTAMPTZ)))
    WHEN s >= '1970' AND s < '2200'
        THEN TRY_CAST(upper(s) AS TIMESTAMP) END;

-- A usable timestamp (UTC) from a number of Unix epoch seconds, else NULL
-- (outside the supported range: 0 up to 7258118400, 2200-01-01).
CREATE OR REPLACE MACRO lane_ts_epoch(x) AS CASE
    WHEN x >= 0 AND x < 7258118400 THEN timezone('UTC', to_timestamp(x)) END;

-- ts of an attempt: pass json_str(ts) and json_num(ts); NULL means undated.
CREATE OR REPLACE MACRO lane_ts(ts_text, ts_number) AS
    coalesce(lane_ts_text(ts_text), lane_ts_epoch(ts_number));

-- RFC 8259 validity of one line of text.  DuckDB's JSON reader also accepts
-- NaN / Infinity literals (in any case) and trailing commas; RFC 8259 and
-- Python's json.loads(parse_constant=...) reject those, and so does lanelog.
-- The cheap tests (a value or a closing bracket right after , : [ or the line
-- start) keep the string-stripping test off most lines.  A CASE, not AND/OR:
-- only CASE is sure to skip the later tests on the rows an earlier one settled.
CREATE OR REPLACE MACRO json_valid_rfc(t) AS CASE
    WHEN NOT json_valid(t) THEN false
    WHEN regexp_matches(t, ',[ \t\r]*(?:[\]}]|-?(?:[nN][aA]|[iI]))')
        OR regexp_matches(t, ':[ \t\r]*-?(?:[nN][aA]|[iI])')
        OR regexp_matches(t, '\[[ \t\r]*-?(?:[nN][aA]|[iI])')
        OR regexp_matches(t, '^[ \t\r]*-?(?:[nN][aA]|[iI])')
        THEN NOT regexp_matches(
            regexp_replace(t, '"(?:[^"\\]|\\.)*"', '""', 'g'),
            '(?:^|[,:\[])[ \t\r]*-?(?:[nN][aA]|[iI])|,[ \t\r]*[\]}]')
    ELSE true END;

-- A usage entry's currency: three capital letters (the shape of an ISO 4217 code), else
-- NULL.  It is written into reports and pages, so nothing else from a log is taken as one.
CREATE OR REPLACE MACRO lane_currency(j) AS
    CASE WHEN regexp_full_match(json_str(j), '[A-Z]{3}') THEN json_str(j) END;

-- A usage entry's cost: a JSON number from 0 to 1e9 (one call's cost), else NULL.  No sum
-- of such costs overflows a double, as 1e308 + 1e308 does.
CREATE OR REPLACE MACRO lane_cost(j) AS
    CASE WHEN json_num(j) BETWEEN 0 AND 1e9 THEN json_num(j) END;

-- A usage entry's fields, its object parsed once: each json_extract parses it again, each
-- parse held until a whole batch of lines is typed, and a macro's argument is its text,
-- parsed wherever the macro names it (so lane_usage makes this list before it types the
-- fields: 30 entries a line over 3,000 lines outgrew the memory ingest holds DuckDB to).
-- An entry that is no object has none.
CREATE OR REPLACE MACRO lane_usage_fields(v) AS
    CASE WHEN ord(CAST(v AS VARCHAR)) = 123 THEN json_transform(v,
        '{"input_tokens": "JSON", "output_tokens": "JSON", "cost": "JSON", "currency": "JSON", "model": "JSON"}')
    END;

-- One typed usage entry (lane_usage) from its property id and lane_usage_fields.
CREATE OR REPLACE MACRO lane_usage_entry(property, f) AS {
    'property': property,
    'input_tokens': CASE WHEN json_num(f.input_tokens) BETWEEN 0 AND 1e12 THEN json_num(f.input_tokens) END,
    'output_tokens': CASE WHEN json_num(f.output_tokens) BETWEEN 0 AND 1e12 THEN json_num(f.output_tokens) END,
    'cost': CASE WHEN lane_currency(f.currency) IS NOT NULL THEN lane_cost(f.cost) END,
    'currency': lane_currency(f.currency),
    'model': json_str(f.model)
};

-- A usage object's entries, each {property, fields} (lane_usage_fields), parsed once for
-- lane_usage_typed and lane_usage_dropped_from both; NULL for any other JSON, and for an
-- object with a repeated key.
CREATE OR REPLACE MACRO lane_usage_parsed(j_usage) AS
    CASE WHEN ord(CAST(j_usage AS VARCHAR)) = 123 THEN try(list_transform(
        map_entries(CAST(j_usage AS MAP(VARCHAR, JSON))),
        lambda e: {'property': e.key, 'fields': lane_usage_fields(e.value)})) END;

-- A line's `usage` as a list of structs: {property id: {input_tokens, output_tokens,
-- cost, currency, model}}, one entry per key (an empty object, one with a repeated key,
-- or any other JSON is no usage: NULL).  A token count is kept when it is a number from 0
-- to 1e12, the router's bound (two counts of 1e308 would overflow a sum); a cost by
-- lane_cost, and only with a currency lane_currency keeps.  Ingest (load.sql) and the
-- upgrade to version 3 (upgrade.sql) both read usage by this one rule, and name what it
-- dropped by lane_usage_notes.  lane_usage_typed takes lane_usage_parsed's entries.
CREATE OR REPLACE MACRO lane_usage_typed(parsed) AS
    CASE WHEN len(parsed) > 0 THEN try(list_transform(parsed, lambda e: lane_usage_entry(e.property, e.fields))) END;

CREATE OR REPLACE MACRO lane_usage(j_usage) AS lane_usage_typed(lane_usage_parsed(j_usage));

-- What lane_usage dropped from a list of entries' fields (lane_usage_fields), as type
-- anomaly names (Data health): 'usage.cost' when an entry's cost is there (not null) but
-- lane_cost refuses it; 'usage.currency' when an entry's currency is there but is no code,
-- or a cost has none.
CREATE OR REPLACE MACRO lane_usage_dropped(fields) AS list_filter([
    CASE WHEN list_bool_or(list_transform(fields, lambda f: ord(CAST(f.cost AS VARCHAR)) <> 110
                                                            AND lane_cost(f.cost) IS NULL)) THEN 'usage.cost' END,
    CASE WHEN list_bool_or(list_transform(fields, lambda f: lane_currency(f.currency) IS NULL
                                                            AND (ord(CAST(f.currency AS VARCHAR)) <> 110
                                                                 OR lane_cost(f.cost) IS NOT NULL))) THEN 'usage.currency' END
], lambda name: name IS NOT NULL);

-- lane_usage_dropped of a line's usage object, from its lane_usage_parsed entries; NULL for
-- a line without a usage object (list_concat takes it as an empty list).
CREATE OR REPLACE MACRO lane_usage_dropped_from(j_usage, parsed) AS
    CASE WHEN ord(CAST(j_usage AS VARCHAR)) = 123 THEN
        coalesce(try(lane_usage_dropped(list_transform(parsed, lambda e: e.fields))), []) END;

CREATE OR REPLACE MACRO lane_usage_notes(j_usage) AS lane_usage_dropped_from(j_usage, lane_usage_parsed(j_usage));

-- Week = the Monday of the ISO week of a UTC timestamp; NULL stays NULL (undated).
CREATE OR REPLACE MACRO lane_week(ts) AS CAST(date_trunc('week', ts) AS DATE);

-- Schema version 5: the change an attempt belongs to, and the outcome lines.

-- A JSON integer (digits after an optional minus, no fraction or exponent) as a BIGINT; NULL
-- for any other value, and for one beyond BIGINT.  (TRY_CAST alone would round 42.5 to 43.)
CREATE OR REPLACE MACRO json_int(j) AS
    CASE WHEN regexp_full_match(CAST(j AS VARCHAR), '-?[0-9]+') THEN TRY_CAST(CAST(j AS VARCHAR) AS BIGINT) END;

-- Whether a JSON value is there (neither absent nor null) and of another kind than the one
-- whose first character's code is `code` (34 a string, 91 a list, 123 an object).
CREATE OR REPLACE MACRO lane_not_a(j, code) AS
    coalesce(ord(CAST(j AS VARCHAR)) <> code AND ord(CAST(j AS VARCHAR)) <> 110, false);

-- Whether a JSON value is there and no JSON integer (json_int).
CREATE OR REPLACE MACRO lane_not_int(j) AS
    coalesce(ord(CAST(j AS VARCHAR)) <> 110 AND json_int(j) IS NULL, false);

-- Whether a JSON value is there and neither a string nor a number: what lane_ts reads.
CREATE OR REPLACE MACRO lane_not_time(j) AS
    coalesce(NOT (ord(CAST(j AS VARCHAR)) IN (34, 45, 110) OR ord(CAST(j AS VARCHAR)) BETWEEN 48 AND 57), false);

-- Whether a line is an outcome line: its `kind` (the first one, as every typed field) is the
-- string "outcome".  Ingest's lane_attempt_rows (ingest/load.sql) leaves such a line out and
-- lane_outcome_rows below takes it, by this one rule; any other line is no outcome.
CREATE OR REPLACE MACRO lane_is_outcome(j_kind) AS coalesce(json_str(j_kind) = 'outcome', false);

-- A line's `pull_request` object's fields as JSON, typed as json_str(repository),
-- json_int(number) and json_str(url); NULL unless the value is an object.
CREATE OR REPLACE MACRO lane_pull_request(j) AS CASE WHEN ord(CAST(j AS VARCHAR)) = 123 THEN
    json_transform(j, '{"repository": "JSON", "number": "JSON", "url": "JSON"}') END;

-- A line's `ci_run` object's fields as JSON, typed as json_str(id), json_int(attempt) and
-- json_str(url); NULL unless the value is an object.
CREATE OR REPLACE MACRO lane_ci_run(j) AS CASE WHEN ord(CAST(j AS VARCHAR)) = 123 THEN
    json_transform(j, '{"id": "JSON", "attempt": "JSON", "url": "JSON"}') END;

-- Whether a line's `pull_request` is named among its type anomalies: there and not an
-- object, or its repository or url no string, or its number no JSON integer.  j is the value
-- as json_transform reads a line's field (NULL when absent or null), pr lane_pull_request of
-- it; NULL means no.  Every attempt line pays for it, so it is the cheapest test there is: the
-- code of each value's first character, as load.sql's other type tests.  Ingest (load.sql,
-- lane_outcome_rows) and the upgrade to version 5 read it.
CREATE OR REPLACE MACRO lane_pull_request_wrong(j, pr) AS ord(CAST(j AS VARCHAR)) <> 123
    OR ord(CAST(pr.repository AS VARCHAR)) <> 34 OR ord(CAST(pr.url AS VARCHAR)) <> 34
    OR (pr.number IS NOT NULL AND json_int(pr.number) IS NULL);

-- Whether a line's `ci_run` is named among its type anomalies (as lane_pull_request_wrong):
-- there and not an object, or its id or url no string, or its attempt no JSON integer.
CREATE OR REPLACE MACRO lane_ci_run_wrong(j, ci) AS ord(CAST(j AS VARCHAR)) <> 123
    OR ord(CAST(ci.id AS VARCHAR)) <> 34 OR ord(CAST(ci.url AS VARCHAR)) <> 34
    OR (ci.attempt IS NOT NULL AND json_int(ci.attempt) IS NULL);

-- A line's `hook` object's fields as JSON (`lanelog hook`, schema 6), typed as json_str(agent)
-- and json_str(session); NULL unless the value is an object.
CREATE OR REPLACE MACRO lane_hook(j) AS CASE WHEN ord(CAST(j AS VARCHAR)) = 123 THEN
    json_transform(j, '{"agent": "JSON", "session": "JSON"}') END;

-- The type anomalies of a line's `source` and `hook` (as lane_ci_run_wrong): a source that is
-- there and no string, a hook that is there and no object, or whose agent or session is no
-- string.  A list (empty when neither is wrong), named last among the line's anomalies by
-- ingest and by the upgrade to version 6.
CREATE OR REPLACE MACRO lane_hook_wrong(j_source, j_hook) AS list_filter([
    CASE WHEN ord(CAST(j_source AS VARCHAR)) <> 34 THEN 'source' END,
    CASE WHEN ord(CAST(j_hook AS VARCHAR)) <> 123
              OR ord(CAST(lane_hook(j_hook).agent AS VARCHAR)) <> 34
              OR ord(CAST(lane_hook(j_hook).session AS VARCHAR)) <> 34 THEN 'hook' END
], lambda name: name IS NOT NULL);

-- Whether an actor (merged_by, author, auto_merge.enabled_by, a label's set_by: {login,
-- type}) is there and not an object, or has a login or type that is no string.
CREATE OR REPLACE MACRO lane_not_actor(j) AS lane_not_a(j, 123)
    OR lane_not_a(json_extract(j, '$.login'), 34) OR lane_not_a(json_extract(j, '$.type'), 34);

-- The outcomes rows of the table named `lines` (line_no, byte_offset, line: a line's text
-- without its terminator; its other columns, such as source_id and provisional, are passed
-- through): a row for each line that is a JSON object (RFC 8259, as json_valid_rfc) whose
-- kind is "outcome" (lane_is_outcome), none for any other line.  Every field is typed by
-- the rules of attempts: a field of an unexpected type is NULL (or its entry's field is) and
-- named in type_anomalies, an object or list by its own name whichever of its parts it was;
-- approvals or labels of more than 1,000 entries (lanelog outcome writes at most 100) are
-- not typed, and named.  Ingest stores outcome lines through it (load.sql), and the upgrade
-- to version 5 moves the outcome lines an older lanelog stored as attempts.
CREATE OR REPLACE MACRO lane_outcome_rows(lines) AS TABLE
WITH parsed AS (
    SELECT * EXCLUDE (line), line AS raw,
           CASE WHEN NOT (starts_with(line, '{') OR regexp_matches(line, '^[ \t\r]+\{')) THEN NULL
                WHEN NOT json_valid_rfc(line) THEN NULL
                ELSE try(json_transform(line, '{' ||
                    '"kind": "JSON", "outcome_id": "JSON", "ts": "JSON", "repo": "JSON", "producer": "JSON", ' ||
                    '"pull_request": "JSON", "head": "JSON", "state": "JSON", "merged_at": "JSON", ' ||
                    '"closed_at": "JSON", "merged_by": "JSON", "auto_merge": "JSON", "author": "JSON", ' ||
                    '"approvals": "JSON", "labels": "JSON", "merge_commit": "JSON", "ci_run": "JSON"' ||
                    '}')) END AS v
    FROM query_table(lines)
), fields AS (
    SELECT * EXCLUDE (v),
           v.outcome_id AS j_outcome_id, v.ts AS j_ts, v.repo AS j_repo, v.producer AS j_producer,
           v.pull_request AS j_pull_request, v.head AS j_head, v.state AS j_state, v.merged_at AS j_merged_at,
           v.closed_at AS j_closed_at, v.merged_by AS j_merged_by, v.auto_merge AS j_auto_merge,
           v.author AS j_author, v.approvals AS j_approvals, v.labels AS j_labels,
           v.merge_commit AS j_merge_commit, v.ci_run AS j_ci_run,
           lane_pull_request(v.pull_request) AS pr,
           lane_ci_run(v.ci_run) AS ci,
           -- The entries of approvals and labels, each field as JSON (an entry that is no
           -- object has every field NULL, and is named below).
           CASE WHEN ord(CAST(v.approvals AS VARCHAR)) = 91 AND json_array_length(v.approvals) <= 1000
                THEN json_transform(v.approvals,
                                    '[{"login": "JSON", "type": "JSON", "submitted_at": "JSON", "commit_id": "JSON"}]')
           END AS given,
           CASE WHEN ord(CAST(v.labels AS VARCHAR)) = 91 AND json_array_length(v.labels) <= 1000
                THEN json_transform(v.labels, '[{"name": "JSON", "set_by": "JSON", "set_at": "JSON", "via_app": "JSON", ' ||
                                              '"removed_at": "JSON"}]')
           END AS labelled
    FROM parsed
    WHERE lane_is_outcome(v.kind)
)
SELECT
    * EXCLUDE (j_outcome_id, j_ts, j_repo, j_producer, j_pull_request, j_head, j_state, j_merged_at,
               j_closed_at, j_merged_by, j_auto_merge, j_author, j_approvals, j_labels, j_merge_commit,
               j_ci_run, pr, ci, given, labelled),
    nullif(json_str(j_outcome_id), '') AS outcome_id,
    lane_ts(json_str(j_ts), json_num(j_ts)) AS ts,
    lane_week(lane_ts(json_str(j_ts), json_num(j_ts))) AS week,
    json_str(j_repo) AS repo,
    json_str(j_producer) AS producer,
    json_str(pr.repository) AS pr_repository,
    json_int(pr.number) AS pr_number,
    json_str(pr.url) AS pr_url,
    json_str(j_head) AS head,
    json_str(j_state) AS state,
    lane_ts(json_str(j_merged_at), json_num(j_merged_at)) AS merged_at,
    lane_ts(json_str(j_closed_at), json_num(j_closed_at)) AS closed_at,
    json_str(json_extract(j_merged_by, '$.login')) AS merged_by,
    json_str(json_extract(j_merged_by, '$.type')) AS merged_by_type,
    coalesce(ord(CAST(j_auto_merge AS VARCHAR)) = 123, false) AS auto_merge,
    json_str(json_extract(j_auto_merge, '$.enabled_by.login')) AS auto_merge_by,
    json_str(json_extract(j_auto_merge, '$.enabled_by.type')) AS auto_merge_by_type,
    json_str(json_extract(j_auto_merge, '$.merge_method')) AS auto_merge_method,
    json_str(json_extract(j_author, '$.login')) AS author,
    json_str(json_extract(j_author, '$.type')) AS author_type,
    list_transform(given, lambda a: CASE WHEN a IS NOT NULL THEN {
        'login': json_str(a.login), 'type': json_str(a.type),
        'submitted_at': lane_ts(json_str(a.submitted_at), json_num(a.submitted_at)),
        'commit_id': json_str(a.commit_id)} END) AS approvals,
    list_transform(labelled, lambda l: CASE WHEN l IS NOT NULL THEN {
        'name': json_str(l.name),
        'set_by': json_str(json_extract(l.set_by, '$.login')),
        'set_by_type': json_str(json_extract(l.set_by, '$.type')),
        'set_at': lane_ts(json_str(l.set_at), json_num(l.set_at)),
        'via_app': json_str(l.via_app),
        'removed_at': lane_ts(json_str(l.removed_at), json_num(l.removed_at))} END) AS labels,
    json_str(j_merge_commit) AS merge_commit,
    json_str(ci.id) AS ci_run_id,
    json_int(ci.attempt) AS ci_run_attempt,
    json_str(ci.url) AS ci_run_url,
    list_filter([
        CASE WHEN lane_not_a(j_outcome_id, 34) THEN 'outcome_id' END,
        CASE WHEN lane_not_time(j_ts) THEN 'ts' END,
        CASE WHEN lane_not_a(j_repo, 34) THEN 'repo' END,
        CASE WHEN lane_not_a(j_producer, 34) THEN 'producer' END,
        CASE WHEN lane_pull_request_wrong(j_pull_request, pr) THEN 'pull_request' END,
        CASE WHEN lane_not_a(j_head, 34) THEN 'head' END,
        CASE WHEN lane_not_a(j_state, 34) THEN 'state' END,
        CASE WHEN lane_not_time(j_merged_at) THEN 'merged_at' END,
        CASE WHEN lane_not_time(j_closed_at) THEN 'closed_at' END,
        CASE WHEN lane_not_actor(j_merged_by) THEN 'merged_by' END,
        CASE WHEN lane_not_a(j_auto_merge, 123) OR lane_not_actor(json_extract(j_auto_merge, '$.enabled_by'))
                  OR lane_not_a(json_extract(j_auto_merge, '$.merge_method'), 34) THEN 'auto_merge' END,
        CASE WHEN lane_not_actor(j_author) THEN 'author' END,
        CASE WHEN lane_not_a(j_approvals, 91) OR (j_approvals IS NOT NULL AND given IS NULL)
                  OR coalesce(CASE WHEN given IS NOT NULL THEN list_bool_or(list_transform(
                      CAST(j_approvals AS JSON[]), lambda e: lane_not_a(e, 123))) END, false)
                  OR coalesce(list_bool_or(list_transform(given, lambda a: lane_not_a(a.login, 34) OR lane_not_a(a.type, 34)
                      OR lane_not_time(a.submitted_at) OR lane_not_a(a.commit_id, 34))), false)
             THEN 'approvals' END,
        CASE WHEN lane_not_a(j_labels, 91) OR (j_labels IS NOT NULL AND labelled IS NULL)
                  OR coalesce(CASE WHEN labelled IS NOT NULL THEN list_bool_or(list_transform(
                      CAST(j_labels AS JSON[]), lambda e: lane_not_a(e, 123))) END, false)
                  OR coalesce(list_bool_or(list_transform(labelled, lambda l: lane_not_a(l.name, 34)
                      OR lane_not_actor(l.set_by) OR lane_not_time(l.set_at) OR lane_not_a(l.via_app, 34)
                      OR lane_not_time(l.removed_at))), false)
             THEN 'labels' END,
        CASE WHEN lane_not_a(j_merge_commit, 34) THEN 'merge_commit' END,
        CASE WHEN lane_ci_run_wrong(j_ci_run, ci) THEN 'ci_run' END
    ], lambda name: name IS NOT NULL) AS type_anomalies
FROM fields;

-- Stored replays (`lanelog replay --db`): one row per replay, one row per replayed
-- patch, written in one transaction.  The lake export copies them whole (lake tables
-- replays and replay_patches), so the What-if page reads a lake as it reads a database.
CREATE TABLE IF NOT EXISTS replays (
    replay_id INTEGER PRIMARY KEY,
    made TIMESTAMP NOT NULL,          -- when the replay was stored (UTC)
    checkout VARCHAR NOT NULL,        -- the checkout replayed, as given
    candidate VARCHAR NOT NULL,       -- the candidate policy file
    baseline VARCHAR NOT NULL,        -- the baseline: a file, or how it was chosen
    source VARCHAR NOT NULL,          -- the commit range, or the lane logs
    patches INTEGER NOT NULL,
    skipped INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS replay_patches (
    replay_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,             -- replay order (history order for a commit range)
    base VARCHAR NOT NULL,
    head VARCHAR NOT NULL,
    day DATE NOT NULL,                -- the day the patch was routed on (its "today")
    week DATE NOT NULL,               -- Monday (UTC) of that day
    subject VARCHAR,
    baseline_probe VARCHAR NOT NULL,
    baseline_reasons VARCHAR[] NOT NULL,
    baseline_units DOUBLE NOT NULL,
    baseline_armed BOOLEAN NOT NULL,
    candidate_probe VARCHAR NOT NULL,
    candidate_reasons VARCHAR[] NOT NULL,
    candidate_units DOUBLE NOT NULL,
    candidate_armed BOOLEAN NOT NULL,
    -- Each side's evidence (router/evidence.py, checked; {} when the decision has none), so
    -- the What-if page shows a flip's lines as `replay --format markdown` does (version 4;
    -- NULL for a replay stored before, which kept none).
    baseline_evidence JSON,
    candidate_evidence JSON,
    PRIMARY KEY (replay_id, seq)
);
