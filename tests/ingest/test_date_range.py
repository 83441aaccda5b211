"""The supported date range has one value: the schema's lane_ts_in_range bounds are lanelog.times'.

The router (which imports no store) refuses an outcome timed outside FIRST_DAY to LAST_DAY
because ingest could not date it: so the SQL must date exactly those days, to the second.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest

from lanelog.times import FIRST_DAY, LAST_DAY, rfc3339

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
