"""The supported date range has one value: the schema's lane_ts_in_range bounds are lanelog.times'.

The router (which imports no store) refuses an outcome timed outside FIRST_DAY to LAST_DAY
because ingest could not date it: so the SQL must date exactly those days, to the second.
"""

from __future__ import annotations

import json
from datetime import datetime, time, timedelta

import pytest

from lanelog.times import FIRST_DAY, LAST_DAY, rfc3339
from tests.ingest.support import ingest_cli, outcome
from tests.ingest.test_outcomes import MERGED

FIRST = datetime.combine(FIRST_DAY, time.min)
LAST = datetime.combine(LAST_DAY, time.max).replace(microsecond=0)


@pytest.mark.parametrize(("moment", "dated"), [
    (FIRST, True),
    (LAST, True),
    (FIRST - timedelta(seconds=1), False),
    (LAST + timedelta(seconds=1), False),
])
def test_the_schema_dates_exactly_the_days_lanelog_times_supports(con, moment, dated):
    text = rfc3339(moment)
    by_text, in_range = con.execute("SELECT lane_ts_text(?), lane_ts_in_range(CAST(? AS TIMESTAMP))",
                                    [text, moment]).fetchone()
    assert (by_text, in_range) == ((moment, moment) if dated else (None, None))


def test_ingest_names_every_outcome_line_it_cannot_date_and_stores_it(tmp_path):
    """An outcome line timed in 2300 (as lanelog wrote one before it refused such times) is stored,
    undated, and named by ingest each run: its close is in no week, so it must not pass unseen."""
    dated = {**MERGED, "outcome_id": "outcome-" + "1" * 32}
    undated = {**MERGED, "outcome_id": "outcome-" + "2" * 32, "ts": "2300-01-01T00:00:00Z",
               "closed_at": "2300-01-01T00:00:00Z", "merged_at": "2300-01-01T00:00:00Z",
               "pull_request": {**MERGED["pull_request"], "number": 7}}
    log = tmp_path / "lane-log.jsonl"
    log.write_bytes(outcome(**dated) + outcome(**undated))
    done = ingest_cli(tmp_path / "lanelog.duckdb", log)
    assert done.returncode == 0, done.stderr
    assert (json.loads(done.stdout)["outcomes_added"], json.loads(done.stdout)["undated_outcomes"]) == (2, 1)
    assert done.stderr == (
        f"Warning: {log} line 2: an outcome line ingest cannot date (its ts is no time from 1970-01-01 to "
        "2199-12-31 UTC), so the close of octo-org/orders-service#7 (merged) is in no week: it counts as closed at "
        "an unknown time, judged in every range\n")
    again = ingest_cli(tmp_path / "lanelog.duckdb", log)
    assert (again.returncode, again.stderr) == (0, done.stderr)


def test_ingest_counts_the_undated_outcome_lines_past_the_first_twenty(tmp_path):
    log = tmp_path / "lane-log.jsonl"
    log.write_bytes(b"".join(outcome(**{**MERGED, "outcome_id": f"outcome-{n:032x}", "ts": None})
                             for n in range(23)))
    done = ingest_cli(tmp_path / "lanelog.duckdb", log)
    warnings = done.stderr.splitlines()
    assert len(warnings) == 21 and warnings[-1] == "Warning: 3 more outcome lines cannot be dated"
    assert json.loads(done.stdout)["undated_outcomes"] == 23
    assert warnings[0].startswith(f"Warning: {log} line 1: an outcome line ingest cannot date")
