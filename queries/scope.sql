-- The scope every figure is computed over, defined once.
-- Every other query reads `in_scope($since, $until, $repo)` (the hook's figures
-- `hook_scope($since, $until, $repo)`), never `attempts` directly.

-- name: scope
-- Installs the table macro in_scope(since_day, until_day, repo_name): the attempts a
-- filter selects, each with spent_units.
-- A dated attempt is in range when any day of its week (Monday to Sunday, UTC) lies in
-- [since_day, until_day]; a NULL bound is open.  The undated bucket (week NULL) cannot be
-- placed outside a range, so it is always in scope.  repo_name, when set, filters every
-- attempt, undated ones too.  The week is compared as itself (week >= since_day - 6, not
-- week + 6 >= since_day): so DuckDB skips a lake's week files out of range by their folder
-- names alone (store/lake.sql), without opening them.  The rule on a dated week is
-- week_in_scope's, which the outcome figures read too (outcomes.sql).
-- spent_units: what an armed attempt spent, its numeric `units`, or one unit per listed
-- property when it records none; an attempt that armed no call spent nothing.
-- Only CI's attempts: a line `lanelog hook` wrote (source "hook", a check in the agent's own
-- loop, before anything was pushed) is in hook_scope instead, so the seed's figures count
-- what reached CI whether or not an agent runs the hook.
-- params:
CREATE OR REPLACE TEMP MACRO in_scope(since_day, until_day, repo_name) AS TABLE
SELECT
    attempts.*,
    CASE WHEN armed THEN coalesce(units, len(properties), 0) ELSE 0 END AS spent_units
FROM attempts
WHERE (repo_name IS NULL OR repo = repo_name)
  AND (week IS NULL OR week_in_scope(week, since_day, until_day))
  AND source IS DISTINCT FROM 'hook'

-- name: hook_scope
-- Installs the table macro hook_scope(since_day, until_day, repo_name): the lines `lanelog
-- hook` wrote (source "hook") that a filter selects, by in_scope's rules of weeks and repo.
-- params:
CREATE OR REPLACE TEMP MACRO hook_scope(since_day, until_day, repo_name) AS TABLE
SELECT attempts.*
FROM attempts
WHERE (repo_name IS NULL OR repo = repo_name)
  AND (week IS NULL OR week_in_scope(week, since_day, until_day))
  AND source = 'hook'

-- name: week_scope
-- Installs the macro week_in_scope(week_day, since_day, until_day): whether a week (its
-- Monday) touches [since_day, until_day], a NULL bound open; the one rule on weeks every
-- figure reads (in_scope's attempts, the weeks pull requests closed in).  Spark inlines it.
-- params:
CREATE OR REPLACE TEMP MACRO week_in_scope(week_day, since_day, until_day) AS
    (since_day IS NULL OR week_day >= CAST(since_day AS DATE) - 6) AND (until_day IS NULL OR week_day <= until_day)

-- name: week_of
-- Installs the macro week_of(t): the week of a UTC time, its Monday (the ISO week), as
-- the store dates an attempt's (lane_week in store/schema.sql); NULL stays NULL (undated).
-- Spark inlines it.
-- params:
CREATE OR REPLACE TEMP MACRO week_of(t) AS CAST(date_trunc('week', t) AS DATE)

-- name: undated_why
-- Installs the macro undated_why(j): why an attempt whose `ts` value (JSON, from
-- json_extract) gave no usable time is undated, in Data health's words: "no ts" (absent
-- or null), "out of range" (a real time outside the supported range of lane_ts_in_range
-- in the schema, 1970-01-01 up to 2200-01-01 UTC: a date-shaped text DuckDB reads as a
-- time, or epoch seconds) or "not a date".  Read from the raw line here, so a database
-- ingested before the range existed answers the same.
-- params:
CREATE OR REPLACE TEMP MACRO undated_why(j) AS CASE
    WHEN j IS NULL OR json_kind(j) = 'null' THEN 'no ts'
    WHEN json_kind(j) = 'number'
        THEN CASE WHEN json_num(j) < 0 OR json_num(j) >= 7258118400 THEN 'out of range' ELSE 'not a date' END
    WHEN json_kind(j) = 'string' AND regexp_full_match(json_str(j), '\d{4}-\d{2}-\d{2}([Tt ].*)?')
        AND coalesce(TRY_CAST(upper(json_str(j)) AS TIMESTAMPTZ) < TIMESTAMPTZ '1970-01-01 00:00:00+00'
                     OR TRY_CAST(upper(json_str(j)) AS TIMESTAMPTZ) >= TIMESTAMPTZ '2200-01-01 00:00:00+00', false)
        THEN 'out of range'
    ELSE 'not a date' END

-- name: person
-- Installs the macro is_person(login, kind): whether an account is a person, not an app:
-- GitHub's account shape, of type User and a login that does not end in [bot] (an app's
-- account; a machine user typed User is a person to the forge, and to this rule).  The one
-- rule every judgement of a merge reads (outcomes.sql); Spark inlines it (spark_sql.py).
-- params:
CREATE OR REPLACE TEMP MACRO is_person(login, kind) AS
    coalesce(kind = 'User' AND login <> '' AND login NOT LIKE '%[bot]', false)
