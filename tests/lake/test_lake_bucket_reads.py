"""What reading a lake in a bucket asks of the store, seen by a proxy in front of a real S3 API server.

Opened once (as the dashboard's reader opens it), a lake is read with reads of bytes alone:
no question per file, only the weeks a range can hold, and an object replaced since the
listing is refused rather than mixed into the figures (the dashboard then lists it again).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lanelog import queries, store
from lanelog.errors import LanelogError
from lanelog.queries import Filters
from tests.dashboard.dashboard_support import APP
from tests.ingest.s3server import S3, running_s3
from tests.lake.bucket_support import HookedProxy, export_to_bucket, proxy_to, weeks_read
from tests.lake.conftest import make_db
from tests.lake.support import lake_connection

WEEKS = ["2026-03-02", "2026-03-09", "2026-03-16", "2026-03-23", "2026-03-30", "2026-04-06"]


@pytest.fixture(scope="module")
def s3() -> Iterator[S3]:
    with running_s3() as server:
        yield server


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("bucket-reads"))


@pytest.fixture
def aws(s3: S3, monkeypatch: pytest.MonkeyPatch) -> S3:
    """The server's credentials in the standard variables, and none of this machine's AWS settings."""
    for name in [name for name in os.environ if name.startswith("AWS_")]:
        monkeypatch.delenv(name)
    for name, value in s3.env().items():
        monkeypatch.setenv(name, value)
    return s3


@pytest.fixture
def lake(aws: S3, db: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, HookedProxy]:
    """The generated database exported to a bucket of its own, and the proxy lanelog reads it through."""
    url = export_to_bucket(aws, db)
    proxy = proxy_to(aws)
    monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
    return url, proxy


def test_after_its_listing_a_look_asks_the_store_for_bytes_alone(lake: tuple[str, HookedProxy]) -> None:
    url, proxy = lake
    con = lake_connection(url)
    try:
        opening = list(proxy.requests)
        assert len(proxy.listings()) == 1  # the whole lake in one listing
        assert not [path for method, path in opening if method == "HEAD" and "/attempts/" in path]
        proxy.requests.clear()
        assert queries.report(con, Filters())["totals"]["attempts"] > 0
        assert queries.repos(con)
        # Each file read: no HEAD for its size or time, no listing, nothing written.
        assert {method for method, _ in proxy.requests} == {"GET"} and not proxy.listings()
        assert sorted(weeks_read(proxy)) == sorted([*WEEKS, store.UNDATED])
    finally:
        con.close()


@pytest.mark.parametrize(("filters", "partitions"), [
    (Filters(until=date(2026, 3, 15)), ["2026-03-02", "2026-03-09", store.UNDATED]),
    (Filters(since=date(2026, 3, 29), until=date(2026, 4, 2)), ["2026-03-23", "2026-03-30", store.UNDATED]),
])
def test_a_ranged_look_reads_only_the_weeks_that_can_hold_attempts_in_range(
        lake: tuple[str, HookedProxy], db: Path, filters: Filters, partitions: list[str]) -> None:
    url, proxy = lake
    reader = store.LakeReader(url)
    con = reader.connect(str(reader.stamp()))
    try:
        proxy.requests.clear()
        # The weekly figures read only the weeks in range.  (The report also judges the merges over a live
        # quarantine, which counts every attempt of a pull request whenever it ran, so it reads every week.)
        on_lake = queries.records(con, queries.SQL.figures, filters)
        read = weeks_read(proxy)
    finally:
        con.close()
    # The view's columns come from its first file: a query may read that one's footer again.
    assert set(read) - {WEEKS[0]} == set(partitions) - {WEEKS[0]}
    assert not set(read) & (set(WEEKS) - set(partitions) - {WEEKS[0]})
    db_con = store.open_db(db, read_only=True)
    try:
        assert on_lake == queries.records(db_con, queries.SQL.figures, filters)
    finally:
        db_con.close()


def test_an_object_replaced_after_the_listing_is_refused_then_read_again(lake: tuple[str, HookedProxy], s3: S3) -> None:
    url, _ = lake
    reader = store.LakeReader(url)
    con = reader.connect(str(reader.stamp()))
    bucket, prefix = url.removeprefix("s3://").split("/", 1)
    client = s3.client()
    # Another week's file where 2026-03-23's was: same name, other bytes (an export between listing and read).
    other = client.get_object(Bucket=bucket, Key=f"{prefix}/attempts/week=2026-03-16/data.parquet")["Body"].read()
    client.put_object(Bucket=bucket, Key=f"{prefix}/attempts/week=2026-03-23/data.parquet", Body=other)
    ranged = Filters(since=date(2026, 3, 23), until=date(2026, 3, 29))
    try:
        with pytest.raises(LanelogError) as refused:
            queries.report(con, ranged)
    finally:
        con.close()
    assert s3.secret not in str(refused.value)
    reader.forget()  # as a failed look does: the next one lists the lake again
    con = reader.connect(str(reader.stamp()))
    fresh = store.open_lake(url)
    try:
        assert queries.report(con, ranged) == queries.report(fresh, ranged)
        assert queries.report(con, ranged)["totals"]["attempts"] > 0
    finally:
        con.close()
        fresh.close()


def test_the_dashboard_lists_the_lake_again_when_an_object_changed_under_its_read(
        aws: S3, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = export_to_bucket(aws, db, prefix="dashboard/lake")
    bucket, prefix = url.removeprefix("s3://").split("/", 1)
    client = aws.client()
    key = f"{prefix}/attempts/week=2026-04-06/data.parquet"
    other = client.get_object(Bucket=bucket, Key=f"{prefix}/attempts/week=2026-03-30/data.parquet")["Body"].read()

    def replace() -> None:  # after the listing, before the first read of the object: an export's race
        client.put_object(Bucket=bucket, Key=key, Body=other)

    proxy = proxy_to(aws, {f"/{key}": replace})
    monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
    monkeypatch.setenv("LANELOG_LAKE", url)
    main = sys.modules["__main__"]
    try:
        at = AppTest.from_file(str(APP), default_timeout=60)
        at.run()
    finally:
        sys.modules["__main__"] = main  # Streamlit leaves the page there
    assert not at.exception, [e.value for e in at.exception]
    # The page's one alert is the data's (the generated logs hold credit bugs), not a failed read.
    assert [e.value for e in at.error if "credit bugs in range" not in e.value] == []
    assert len(proxy.listings()) == 2  # the refused read, then the lake listed again
    fresh = store.open_lake(url)
    try:
        latest = queries.compare_latest(queries.report(fresh)["weeks"]).latest
    finally:
        fresh.close()
    assert latest is not None and at.metric[0].value == str(latest["attempts"])
