-- The scope every figure is computed over, defined once.
-- Every other query reads `in_scope($since, $until, $repo)`, never `attempts` directly.

-- name: scope
-- Installs the table macro in_scope(since_day, until_day, repo_name): the attempts a
-- filter selects, each with spent_units.
-- A dated attempt is in range when any day of its week (Monday to Sunday, UTC) lies in
-- [since_day, until_day]; a NULL bound is open.  The undated bucket (week NULL) cannot be
-- placed outside a range, so it is always in scope.  repo_name, when set, filters every
-- attempt, undated ones too.
-- spent_units: what an armed attempt spent, its numeric `units`, or one unit per listed
-- property when it records none; an attempt that armed no call spent nothing.
-- params:
CREATE OR REPLACE TEMP MACRO in_scope(since_day, until_day, repo_name) AS TABLE
SELECT
    attempts.*,
    CASE WHEN armed THEN coalesce(units, len(properties), 0) ELSE 0 END AS spent_units
FROM attempts
WHERE (repo_name IS NULL OR repo = repo_name)
  AND (
      week IS NULL
      OR ((since_day IS NULL OR week + 6 >= since_day)
          AND (until_day IS NULL OR week <= until_day))
  )

-- name: undated_why
-- Installs the macro undated_why(j): why an attempt whose `ts` value (JSON, from
-- json_extract) gave no usable time is undated, in Data health's words.
-- params:
CREATE OR REPLACE TEMP MACRO undated_why(j) AS CASE
    WHEN j IS NULL OR json_kind(j) = 'null' THEN 'no ts'
    WHEN lane_ts_out_of_range(json_str(j), json_num(j)) THEN 'out of range'
    ELSE 'not a date' END
