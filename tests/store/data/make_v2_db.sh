#!/bin/sh
# How tests/store/data/v2.duckdb was made: by lanelog at commit 73df201 (the
# release before schema version 3), from the lane log below and one stored replay.
#
#   git -C /work/main worktree add /tmp/old-73df201 73df201
#   cd /tmp/old-73df201 && sh /path/to/tests/store/data/make_v2_db.sh OUT_DIR
#
# Run from inside that checkout, its lanelog/__init__.py puts the checkout's own
# folders on lanelog's path, so `python -m lanelog` runs the old code.  The script
# copies v2.duckdb and v2-lane-log.jsonl into OUT_DIR.
set -eu
out=$1
work=$(mktemp -d)
python=${PYTHON:-python}

# A lane log of every kind of line ingest knows: attempts over three weeks, a probe
# reject, armed calls with units and properties, a credit bug, an undated line, a
# duplicate, a line that is no JSON, and a provisional last line (no newline: pending).
printf '%s\n' \
  '{"attempt_id": "v2-1", "ts": "2026-10-05T09:00:00Z", "repo": "orders", "head": "aaa1", "producer": "lanelog-router", "probe": "pass", "lane": "property", "model_call_allowed": true, "quarantine": [], "merge_credit": null, "units": 2, "budget_cap": 3, "properties": ["prop_round_trip", "prop_idempotent_put"], "reasons": [], "expired_freezes": [], "results": {"prop_round_trip": "hold"}}' \
  '{"attempt_id": "v2-2", "ts": "2026-10-06T10:00:00Z", "repo": "orders", "head": "aaa2", "producer": "lanelog-router", "probe": "reject", "lane": null, "model_call_allowed": false, "quarantine": [], "merge_credit": null, "units": 0, "budget_cap": 3, "properties": [], "reasons": ["assertion_removed"], "expired_freezes": []}' \
  '{"attempt_id": "v2-3", "ts": "2026-10-13T11:00:00Z", "repo": "billing", "head": "bbb1", "producer": "legacy-promoter", "probe": "pass", "model_call_allowed": true, "quarantine": ["test_export_race"], "merge_credit": 1, "units": 1, "properties": ["prop_reject_empty"], "reasons": []}' \
  '{"attempt_id": "v2-4", "ts": "2026-10-20T12:00:00+02:00", "repo": "billing", "head": "bbb2", "probe": "reject", "model_call_allowed": false, "quarantine": [], "reasons": ["line_cap", "setup_failed"]}' \
  '{"attempt_id": "v2-5", "repo": "orders", "head": "aaa3", "probe": "pass", "model_call_allowed": true, "units": 1}' \
  '{"attempt_id": "v2-2", "ts": "2026-10-06T10:00:00Z", "repo": "orders", "probe": "reject"}' \
  'this line is no JSON' \
  > "$work/v2-lane-log.jsonl"
printf '%s' '{"attempt_id": "v2-6", "ts": "2026-10-21T08:00:00Z", "repo": "orders", "probe": "pass"' \
  >> "$work/v2-lane-log.jsonl"
"$python" -m lanelog ingest "$work/v2-lane-log.jsonl" --db "$work/v2.duckdb"

# A checkout with a base commit and two patches, replayed under a candidate policy
# and stored (version 2 made the replay tables on this first write).
repo=$work/repo
mkdir -p "$repo/tests"
git -C "$repo" init -q -b main
git -C "$repo" config user.email v2@example.com
git -C "$repo" config user.name v2
cat > "$repo/lanes.yaml" <<'YAML'
line_cap: 400
budget_cap: 3
exclude: ["*.lock", "generated/"]
fixture_paths: ["fixtures/"]
test_paths: ["tests/"]
assertion_patterns: ['\bassert']
properties:
  prop_round_trip: {units: 1, says: "serialize-then-parse returns the same record"}
map:
  store.py: [prop_round_trip]
YAML
printf 'def put(key, body):\n    return body\n' > "$repo/store.py"
printf 'def test_put():\n    assert put(1, 1) == 1, "put one"\n' > "$repo/tests/test_put.py"
git -C "$repo" add -A && GIT_COMMITTER_DATE=2026-10-05T09:00:00Z git -C "$repo" commit -q -m base --date 2026-10-05T09:00:00Z
printf 'def test_put():\n    assert put(1, 1) == 1, "put 1"\n' > "$repo/tests/test_put.py"
git -C "$repo" commit -q -am "Fix a typo in an assert message" --date 2026-10-06T09:00:00Z
printf 'def put(key, body):\n    return dict(body)\n' > "$repo/store.py"
git -C "$repo" commit -q -am "Return a copy of the body" --date 2026-10-13T09:00:00Z
cp "$repo/lanes.yaml" "$work/candidate.yaml"
echo "assertion_rule: net" >> "$work/candidate.yaml"
"$python" -m lanelog replay --repo "$repo" --policy "$work/candidate.yaml" --commits main~2..main \
  --db "$work/v2.duckdb" --format json > /dev/null

cp "$work/v2.duckdb" "$work/v2-lane-log.jsonl" "$out/"
rm -rf "$work"
