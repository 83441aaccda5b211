#!/bin/sh
# How the files beside this one were made: the schema (store/schema.sql, whole) and the
# ingest macro (ingest/load.sql's attempt_rows block) of each commit on main at which a
# version-5 database could be made with macros other than today's, from the lanelog
# repository's history:
#
#   sh tests/store/data/v5/extract.sh            # run at the top of a lanelog checkout
#
# 9085d42  version 5 as it first shipped: lane_change_notes, lane_usage without
#          lane_usage_parsed
# 66610d4  lane_pull_request_wrong and lane_ci_run_wrong, still no lane_usage_parsed
# (104cab1, lane_usage_parsed and its kin, is the schema version 5 has had since.)
set -eu
out=$(dirname "$0")
for commit in 9085d42 66610d4; do
    {
        git show "$commit:store/schema.sql"
        echo
        git show "$commit:ingest/load.sql" | sed -n '/^-- name: attempt_rows$/,/^-- name: /p' | sed '$d'
    } > "$out/$commit.sql"
done
