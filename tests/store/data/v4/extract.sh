#!/bin/sh
# How the files beside this one were made: the schema (store/schema.sql, whole) and the
# ingest macro (ingest/load.sql's attempt_rows block) of each commit at which a version-4
# database could be made, from the lanelog repository's history:
#
#   sh tests/store/data/v4/extract.sh            # run at the top of a lanelog checkout
#
# bc2fc30  version 4 as it first shipped: no alerts_claimed, no shadow_error, lane_usage
#          keeping any finite token count (and lane_attempt_rows a TEMP macro)
# b0bb270  alerts_claimed added, still version 4
# 7aab435  attempts.shadow_error added, still version 4
# b66b14a  lane_usage's 1e12 token bound: version 4 as it stayed until version 5
set -eu
out=$(dirname "$0")
for commit in bc2fc30 b0bb270 7aab435 b66b14a; do
    {
        git show "$commit:store/schema.sql"
        echo
        git show "$commit:ingest/load.sql" | sed -n '/^-- name: attempt_rows$/,/^-- name: /p' | sed '$d'
    } > "$out/$commit.sql"
done
