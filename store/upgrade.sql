-- The steps that bring a database made by an earlier lanelog up to SCHEMA_VERSION.
--
-- One block per version, named upgrade_to_N: it takes a database of version N-1
-- to version N, keeping every row.  open_db runs the steps in order, in one
-- transaction with the new version number, on a read-write open (`lanelog ingest`,
-- `replay --db`, `demo`); a read-only open of an older database (`report`, `check`,
-- the dashboard) refuses it and names `lanelog ingest LANE_LOG --db FILE` to run.
-- Before the steps, open_db runs schema.sql's create_schema (every statement in it is
-- CREATE ... IF NOT EXISTS or CREATE OR REPLACE): a table new in a version is made
-- there, in its newest shape, and the macros are this version's, so a step only
-- changes what exists (columns, rows) and may use any macro of schema.sql.  A block
-- is written once and never edited after it ships: a change to the schema goes into
-- schema.sql and into the block of the version it lands in.

-- name: upgrade_to_3
-- Version 3's new tables (made by create_schema before this step): the replay tables,
-- which version 2 made on the first `replay --db` (a database that has them keeps them,
-- rows and all); objects_read, the object-store ingest's shortcut past objects listed
-- unchanged; alerts_sent, the credit bugs `check --notify` delivered (new, and empty).
-- This step: what the property runs' model calls used (the line's optional `usage`),
-- as the attempts columns usage, input_tokens, output_tokens, cost and currency, filled
-- from each stored line's raw JSON by lane_usage, as ingest reads it (a line stored
-- before has its usage in raw only), and a usage that is not an object named among the
-- line's type anomalies, as ingest names it; then the shadow columns, the same way.
-- params:
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS usage STRUCT(property VARCHAR, input_tokens DOUBLE,
    output_tokens DOUBLE, cost DOUBLE, currency VARCHAR, model VARCHAR)[];
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS input_tokens DOUBLE;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS output_tokens DOUBLE;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS cost DOUBLE;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS currency VARCHAR;
UPDATE attempts SET usage = parsed.usage
FROM (
    SELECT source_id, line_no, j_usage,
           lane_usage(j_usage) AS usage
    FROM (SELECT source_id, line_no, try(json_extract(raw, '$.usage')) AS j_usage
          FROM attempts WHERE contains(raw, '"usage"')) AS lines
) AS parsed
WHERE attempts.source_id = parsed.source_id AND attempts.line_no = parsed.line_no
  AND parsed.usage IS NOT NULL;
UPDATE attempts SET
    input_tokens = list_sum(list_transform(usage, lambda u: u.input_tokens)),
    output_tokens = list_sum(list_transform(usage, lambda u: u.output_tokens)),
    cost = CASE WHEN len(list_distinct(list_filter(list_transform(usage, lambda u: CASE WHEN u.cost IS NOT NULL THEN u.currency END), lambda c: c IS NOT NULL))) = 1
                THEN list_sum(list_transform(usage, lambda u: u.cost)) END,
    currency = CASE WHEN len(list_distinct(list_filter(list_transform(usage, lambda u: CASE WHEN u.cost IS NOT NULL THEN u.currency END), lambda c: c IS NOT NULL))) = 1
                    THEN list_distinct(list_filter(list_transform(usage, lambda u: CASE WHEN u.cost IS NOT NULL THEN u.currency END), lambda c: c IS NOT NULL))[1] END
WHERE usage IS NOT NULL;
UPDATE attempts SET type_anomalies = list_append(type_anomalies, 'usage')
WHERE contains(raw, '"usage"') AND ord(CAST(try(json_extract(raw, '$.usage')) AS VARCHAR)) NOT IN (110, 123)
  AND NOT list_contains(type_anomalies, 'usage');
-- The line's `shadow` object (`route --shadow`), typed as load.sql's attempt_rows types it,
-- filled from each stored line's raw JSON (a line stored before has its shadow in raw
-- only), and a shadow of the wrong type named among the line's type anomalies.
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS shadow_probe VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS shadow_reasons VARCHAR[];
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS shadow_units DOUBLE;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS shadow_armed BOOLEAN;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS shadow_policy VARCHAR;
UPDATE attempts SET
    shadow_probe = json_str(parsed.s.probe),
    shadow_reasons = json_str_list(parsed.s.reasons),
    shadow_units = json_num(parsed.s.units),
    shadow_armed = CASE WHEN parsed.s IS NOT NULL THEN py_truthy(parsed.s.model_call_allowed) END,
    shadow_policy = json_str(parsed.s.policy_sha256),
    type_anomalies = CASE WHEN ord(parsed.j_shadow) <> 123
                  OR (parsed.s IS NOT NULL AND (ord(parsed.s.probe) <> 34 OR ord(parsed.s.reasons) <> 91
                      OR NOT (ord(parsed.s.units) = 45 OR ord(parsed.s.units) BETWEEN 48 AND 57)
                      OR NOT (ord(parsed.s.model_call_allowed) = 116 OR ord(parsed.s.model_call_allowed) = 102)
                      OR ord(parsed.s.policy_sha256) <> 34))
        THEN list_append(attempts.type_anomalies, 'shadow') ELSE attempts.type_anomalies END
FROM (
    SELECT source_id, line_no, j_shadow,
           CASE WHEN ord(CAST(j_shadow AS VARCHAR)) = 123 THEN json_transform(j_shadow,
               '{"probe": "JSON", "reasons": "JSON", "units": "JSON", "model_call_allowed": "JSON", "policy_sha256": "JSON"}')
           END AS s
    FROM (SELECT source_id, line_no, try(json_extract(raw, '$.shadow')) AS j_shadow
          FROM attempts WHERE contains(raw, '"shadow"'))
    WHERE CAST(j_shadow AS VARCHAR) <> 'null'  -- a JSON null is no shadow, as at ingest
) AS parsed
WHERE attempts.source_id = parsed.source_id AND attempts.line_no = parsed.line_no;
-- What lane_usage dropped from a usage object (usage.cost, usage.currency), named among
-- the line's type anomalies after the others, as ingest names it.
UPDATE attempts SET type_anomalies = list_concat(attempts.type_anomalies, parsed.notes)
FROM (
    SELECT source_id, line_no, lane_usage_notes(try(json_extract(raw, '$.usage'))) AS notes
    FROM attempts WHERE contains(raw, '"usage"')
) AS parsed
WHERE attempts.source_id = parsed.source_id AND attempts.line_no = parsed.line_no AND len(parsed.notes) > 0;
-- The supported ts range (schema.sql, lane_ts_in_range): an attempt that version 2
-- dated outside 1970-01-01 up to 2200-01-01 UTC becomes undated, kept and counted,
-- as a new ingest leaves it.  (The ts macros themselves are this version's: create_schema
-- ran first.)
UPDATE attempts SET ts = NULL, week = NULL
WHERE ts < TIMESTAMP '1970-01-01' OR ts >= TIMESTAMP '2200-01-01';

-- name: upgrade_to_4
-- Each side's evidence on a stored replay's patch (replay_patches.baseline_evidence and
-- candidate_evidence), so the What-if page shows a flip's lines.  A replay stored before
-- kept none: its rows get NULL, and the page says so.  (A version-3 database always has
-- replay_patches; a version-2 one made it in this shape in create_schema, or has its own.)
-- Version 4's new table, made by create_schema before this step: alerts_claimed, the alerts
-- a `check --notify` run has claimed and not yet marked sent (new, and empty).
-- params:
ALTER TABLE replay_patches ADD COLUMN IF NOT EXISTS baseline_evidence JSON;
ALTER TABLE replay_patches ADD COLUMN IF NOT EXISTS candidate_evidence JSON;
-- A shadow that is an error (attempts.shadow_error): its `error`, or, on a line written before
-- shadows had errors, the first of its reasons that is one of lanelog/reasons.py's
-- SHADOW_ERRORS, read from each stored line's raw JSON as ingest reads it.  Such a shadow is
-- no decision of its policy: its decision columns become NULL, and the figures leave it out.
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS shadow_error VARCHAR;
UPDATE attempts SET shadow_error = parsed.error, shadow_probe = NULL, shadow_reasons = NULL,
    shadow_units = NULL, shadow_armed = NULL
FROM (
    SELECT source_id, line_no,
           CASE WHEN s.error IS NOT NULL THEN coalesce(json_str(s.error), CAST(s.error AS VARCHAR))
                ELSE list_filter(json_str_list(s.reasons),
                                 lambda r: r IN ('policy_missing', 'policy_invalid', 'internal_error'))[1] END AS error
    FROM (SELECT source_id, line_no,
                 json_transform(try(json_extract(raw, '$.shadow')), '{"error": "JSON", "reasons": "JSON"}') AS s
          FROM attempts WHERE shadow_armed IS NOT NULL)
) AS parsed
WHERE attempts.source_id = parsed.source_id AND attempts.line_no = parsed.line_no AND parsed.error IS NOT NULL;

-- name: upgrade_to_5
-- Version 5: the change an attempt belongs to (attempts.pr_repository, pr_number, pr_url,
-- agent, ci_run_id, ci_run_attempt, ci_run_url), the outcome lines in a table of their own
-- (outcomes, made by create_schema before this step), and ingest_runs.outcomes_added.
-- Version 4 changed after it first shipped, so a version-4 database may lack what it gained
-- later: the alerts_claimed table (made by create_schema), attempts.shadow_error, and the
-- 1e12 bound of lane_usage's token counts (the macros are this version's: create_schema ran
-- first).  This step gives every version-4 database all of it, and holds no assumption
-- about which of those shapes it is: every statement is a no-op where it has nothing to do.
-- params:
-- shadow_error as upgrade_to_4 fills it, for a database made before it was added.
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS shadow_error VARCHAR;
UPDATE attempts SET shadow_error = parsed.error, shadow_probe = NULL, shadow_reasons = NULL,
    shadow_units = NULL, shadow_armed = NULL
FROM (
    SELECT source_id, line_no,
           CASE WHEN s.error IS NOT NULL THEN coalesce(json_str(s.error), CAST(s.error AS VARCHAR))
                ELSE list_filter(json_str_list(s.reasons),
                                 lambda r: r IN ('policy_missing', 'policy_invalid', 'internal_error'))[1] END AS error
    FROM (SELECT source_id, line_no,
                 json_transform(try(json_extract(raw, '$.shadow')), '{"error": "JSON", "reasons": "JSON"}') AS s
          FROM attempts WHERE shadow_armed IS NOT NULL AND shadow_error IS NULL)
) AS parsed
WHERE attempts.source_id = parsed.source_id AND attempts.line_no = parsed.line_no AND parsed.error IS NOT NULL;
-- The usage of every line that has one, typed again by this version's lane_usage: a database
-- made with an earlier macro kept token counts (or costs) a new one refuses.  Only the rows
-- whose usage, figures or usage notes differ are written; the notes stay last, as ingest
-- names them.
UPDATE attempts SET usage = parsed.usage, input_tokens = parsed.input_tokens, output_tokens = parsed.output_tokens,
    cost = parsed.cost, currency = parsed.currency,
    type_anomalies = list_concat(list_filter(attempts.type_anomalies,
                                             lambda n: n <> 'usage.cost' AND n <> 'usage.currency'), parsed.notes)
FROM (
    SELECT source_id, line_no, usage, notes,
           list_sum(list_transform(usage, lambda u: u.input_tokens)) AS input_tokens,
           list_sum(list_transform(usage, lambda u: u.output_tokens)) AS output_tokens,
           CASE WHEN len(currencies) = 1 THEN list_sum(list_transform(usage, lambda u: u.cost)) END AS cost,
           CASE WHEN len(currencies) = 1 THEN currencies[1] END AS currency
    FROM (
        SELECT source_id, line_no, usage, notes,
               list_distinct(list_filter(list_transform(usage, lambda u: CASE WHEN u.cost IS NOT NULL THEN u.currency END),
                                         lambda c: c IS NOT NULL)) AS currencies
        FROM (SELECT source_id, line_no, lane_usage(j_usage) AS usage, coalesce(lane_usage_notes(j_usage), []) AS notes
              FROM (SELECT source_id, line_no, try(json_extract(raw, '$.usage')) AS j_usage
                    FROM attempts WHERE contains(raw, '"usage"') OR contains(raw, '\u')))
    )
) AS parsed
WHERE attempts.source_id = parsed.source_id AND attempts.line_no = parsed.line_no
  AND (attempts.usage IS DISTINCT FROM parsed.usage
       OR attempts.input_tokens IS DISTINCT FROM parsed.input_tokens
       OR attempts.output_tokens IS DISTINCT FROM parsed.output_tokens
       OR attempts.cost IS DISTINCT FROM parsed.cost OR attempts.currency IS DISTINCT FROM parsed.currency
       OR list_filter(attempts.type_anomalies, lambda n: n = 'usage.cost' OR n = 'usage.currency')
          IS DISTINCT FROM parsed.notes);
-- The outcome lines an older lanelog stored as attempts move to outcomes, typed by
-- lane_outcome_rows as ingest types them now.  Of lines sharing an outcome_id the first is
-- kept (a complete line before a provisional one, then in log order, as ingest keeps it) and
-- the others are duplicates, counted in their log's sources.duplicates (a complete one) as
-- ingest counts them.  A key can be written with \u escapes: a row holding one is read too.
CREATE OR REPLACE TEMP VIEW lane_upgrade_lines AS
SELECT source_id, line_no, byte_offset, raw AS line, provisional FROM attempts
WHERE contains(raw, '"kind"') OR contains(raw, '\u');
CREATE OR REPLACE TEMP TABLE lane_upgrade_outcomes AS
SELECT *, row_number() OVER (PARTITION BY outcome_id ORDER BY provisional, source_id, line_no) AS nth
FROM lane_outcome_rows('lane_upgrade_lines');
INSERT INTO outcomes BY NAME
SELECT * EXCLUDE (nth) FROM lane_upgrade_outcomes WHERE outcome_id IS NULL OR nth = 1;
UPDATE sources SET duplicates = sources.duplicates + resent.lines
FROM (SELECT source_id, count(*) AS lines FROM lane_upgrade_outcomes
      WHERE outcome_id IS NOT NULL AND nth > 1 AND NOT provisional GROUP BY source_id) AS resent
WHERE sources.source_id = resent.source_id;
DELETE FROM attempts WHERE (source_id, line_no) IN (SELECT (source_id, line_no) FROM lane_upgrade_outcomes);
DROP TABLE lane_upgrade_outcomes;
DROP VIEW lane_upgrade_lines;
-- The change each attempt belongs to, typed from its raw JSON as ingest types it (a line
-- stored before has it in raw only), and its type anomalies named where ingest names them:
-- after the fields', before what lane_usage dropped.
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS pr_repository VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS pr_number BIGINT;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS pr_url VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS agent VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS ci_run_id VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS ci_run_attempt BIGINT;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS ci_run_url VARCHAR;
UPDATE attempts SET pr_repository = json_str(parsed.pr.repository), pr_number = json_int(parsed.pr.number),
    pr_url = json_str(parsed.pr.url), agent = json_str(parsed.j_agent), ci_run_id = json_str(parsed.ci.id),
    ci_run_attempt = json_int(parsed.ci.attempt), ci_run_url = json_str(parsed.ci.url),
    type_anomalies = list_concat(
        list_filter(attempts.type_anomalies, lambda n: n <> 'usage.cost' AND n <> 'usage.currency'),
        list_filter([CASE WHEN parsed.j_kind IS NOT NULL THEN 'kind' END,
                     CASE WHEN lane_pull_request_wrong(parsed.j_pr, parsed.pr) THEN 'pull_request' END,
                     CASE WHEN ord(CAST(parsed.j_agent AS VARCHAR)) <> 34 THEN 'agent' END,
                     CASE WHEN lane_ci_run_wrong(parsed.j_ci, parsed.ci) THEN 'ci_run' END],
                    lambda name: name IS NOT NULL),
        list_filter(attempts.type_anomalies, lambda n: n = 'usage.cost' OR n = 'usage.currency'))
FROM (
    SELECT source_id, line_no, v.kind AS j_kind, v.pull_request AS j_pr, v.agent AS j_agent, v.ci_run AS j_ci,
           lane_pull_request(v.pull_request) AS pr, lane_ci_run(v.ci_run) AS ci
    FROM (SELECT source_id, line_no,
                 try(json_transform(raw, '{"kind": "JSON", "pull_request": "JSON", "agent": "JSON", "ci_run": "JSON"}'))
                     AS v
          FROM attempts
          WHERE contains(raw, '"kind"') OR contains(raw, '"pull_request"') OR contains(raw, '"agent"')
             OR contains(raw, '"ci_run"') OR contains(raw, '\u'))
    WHERE v.kind IS NOT NULL OR v.pull_request IS NOT NULL OR v.agent IS NOT NULL OR v.ci_run IS NOT NULL
) AS parsed
WHERE attempts.source_id = parsed.source_id AND attempts.line_no = parsed.line_no;
-- (A column with a constraint is added bare, then constrained: what every DuckDB lanelog runs on can do.)
ALTER TABLE ingest_runs ADD COLUMN IF NOT EXISTS outcomes_added BIGINT DEFAULT 0;
ALTER TABLE ingest_runs ALTER COLUMN outcomes_added SET NOT NULL;

-- name: upgrade_to_6
-- Version 6: where a line was written, `source` ("hook" for `lanelog hook`, in the agent's
-- own loop), and the hook's agent and session, as the attempts columns source, hook_agent and
-- hook_session, filled from each stored line's raw JSON as load.sql's attempt_rows types them
-- (a line stored before has them in raw only), and a source or hook of the wrong type named
-- last among the line's type anomalies, as ingest names it.
-- params:
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS source VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS hook_agent VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS hook_session VARCHAR;
UPDATE attempts SET
    source = json_str(parsed.j_source),
    hook_agent = json_str(parsed.h.agent),
    hook_session = json_str(parsed.h.session),
    type_anomalies = list_concat(attempts.type_anomalies, lane_hook_wrong(parsed.j_source, parsed.j_hook))
FROM (
    SELECT source_id, line_no, j_source, j_hook, lane_hook(j_hook) AS h
    FROM (SELECT source_id, line_no, try(json_extract(raw, '$.source')) AS j_source,
                 try(json_extract(raw, '$.hook')) AS j_hook
          FROM attempts WHERE contains(raw, '"source"') OR contains(raw, '"hook"'))
) AS parsed
WHERE attempts.source_id = parsed.source_id AND attempts.line_no = parsed.line_no;

-- name: upgrade_to_7
-- Version 7: a label's via_app (the app that set it for a person) and removed_at (when it
-- was removed after it was set), two new fields of outcomes.labels.  The column takes its new
-- type with both NULL, every other field kept; then each outcome line whose raw JSON may
-- hold either (or a key written with \u escapes) is typed again by lane_outcome_rows, as
-- ingest types it now, its labels and type anomalies with it.
-- params:
ALTER TABLE outcomes ALTER labels SET DATA TYPE STRUCT(name VARCHAR, set_by VARCHAR, set_by_type VARCHAR,
    set_at TIMESTAMP, via_app VARCHAR, removed_at TIMESTAMP)[]
    USING list_transform(labels, lambda l: CASE WHEN l IS NOT NULL THEN {
        'name': l.name, 'set_by': l.set_by, 'set_by_type': l.set_by_type, 'set_at': l.set_at,
        'via_app': CAST(NULL AS VARCHAR), 'removed_at': CAST(NULL AS TIMESTAMP)} END);
CREATE OR REPLACE TEMP VIEW lane_upgrade_labels AS
SELECT source_id, line_no, byte_offset, raw AS line, provisional FROM outcomes
WHERE contains(raw, '"via_app"') OR contains(raw, '"removed_at"') OR contains(raw, '\u');
UPDATE outcomes SET labels = parsed.labels, type_anomalies = parsed.type_anomalies
FROM (SELECT source_id, line_no, labels, type_anomalies FROM lane_outcome_rows('lane_upgrade_labels')) AS parsed
WHERE outcomes.source_id = parsed.source_id AND outcomes.line_no = parsed.line_no;
DROP VIEW lane_upgrade_labels;
