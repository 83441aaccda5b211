-- The steps that bring a database made by an earlier lanelog up to SCHEMA_VERSION.
--
-- One block per version, named upgrade_to_N: it takes a database of version N-1
-- to version N, keeping every row.  open_db runs the steps in order, in one
-- transaction with the new version number, on a read-write open (`lanelog ingest`,
-- `replay --db`, `demo`); a read-only open of an older database (`report`, `check`,
-- the dashboard) refuses it and names `lanelog ingest LANE_LOG --db FILE` to run.
-- A block is written once and never edited afterwards: a change to the schema
-- goes into schema.sql and into the block of the version it lands in.

-- name: upgrade_to_3
-- Version 3: the replay tables, which version 2 made on the first `replay --db`,
-- become part of the schema (so a database that has them keeps them, rows and all);
-- alerts_sent, the credit bugs `check --notify` delivered, is new (and empty).
-- params:
CREATE TABLE IF NOT EXISTS replays (
    replay_id INTEGER PRIMARY KEY,
    made TIMESTAMP NOT NULL,
    checkout VARCHAR NOT NULL,
    candidate VARCHAR NOT NULL,
    baseline VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    patches INTEGER NOT NULL,
    skipped INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS replay_patches (
    replay_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    base VARCHAR NOT NULL,
    head VARCHAR NOT NULL,
    day DATE NOT NULL,
    week DATE NOT NULL,
    subject VARCHAR,
    baseline_probe VARCHAR NOT NULL,
    baseline_reasons VARCHAR[] NOT NULL,
    baseline_units DOUBLE NOT NULL,
    baseline_armed BOOLEAN NOT NULL,
    candidate_probe VARCHAR NOT NULL,
    candidate_reasons VARCHAR[] NOT NULL,
    candidate_units DOUBLE NOT NULL,
    candidate_armed BOOLEAN NOT NULL,
    PRIMARY KEY (replay_id, seq)
);
CREATE TABLE IF NOT EXISTS alerts_sent (
    bug_key VARCHAR NOT NULL,
    receiver VARCHAR NOT NULL,
    sent_at TIMESTAMP NOT NULL,
    PRIMARY KEY (bug_key, receiver)
);
-- The supported ts range (schema.sql, lane_ts_in_range): an attempt that version 2
-- dated outside 1970-01-01 up to 2200-01-01 UTC becomes undated, kept and counted,
-- as a new ingest leaves it.  (The ts macros themselves are written again from
-- schema.sql after the steps: see _upgrade in db.py.)
UPDATE attempts SET ts = NULL, week = NULL
WHERE ts < TIMESTAMP '1970-01-01' OR ts >= TIMESTAMP '2200-01-01';
