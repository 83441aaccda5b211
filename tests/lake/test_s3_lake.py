"""The lake in a bucket: export to s3://, and report/check on it, against a real S3 API server.

The server is moto's standalone one, started by the tests on 127.0.0.1; lanelog talks to it
through s3fs exactly as to AWS (credentials from the environment, the endpoint overridden).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from lanelog import store
from lanelog.cli import cli
from lanelog.store.lakefs import LakeFolder
from tests.lake.conftest import make_db

ACCESS_KEY = "AKIALANELOGTESTKEY01"
SECRET_KEY = "lanelog/Test+Secret/never-shown-0123456789"
BUCKET = "lanelog-lake"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # the server's access log
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def aws_env(s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Credentials in the standard variables, and nothing from this machine's own AWS files."""
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    return s3_endpoint


def s3(endpoint: str) -> Any:
    import s3fs

    return s3fs.S3FileSystem(endpoint_url=endpoint, skip_instance_cache=True, use_listings_cache=False)


@pytest.fixture
def bucket(aws_env: str) -> str:
    fs = s3(aws_env)
    if not fs.exists(BUCKET):
        fs.mkdir(BUCKET)
    return aws_env


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("s3db"), seed=31, lines=300, weeks=4)


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def no_secret(*results: Result) -> None:
    for result in results:
        assert SECRET_KEY not in result.output and SECRET_KEY not in (result.stderr or "")


def test_export_to_a_bucket_reads_back_as_the_database(bucket: str, db: Path) -> None:
    url = f"s3://{BUCKET}/team/lanelog"
    first = run("export", "--db", db, "--lake", url, "--endpoint-url", bucket, "--format", "json", "--quiet")
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout)
    assert summary["weeks_written"]
    assert summary["tables_written"] == ["sources", "outcomes", "rejected_lines", "replays", "replay_patches"]
    keys = sorted(s3(bucket).find(f"{BUCKET}/team/lanelog"))
    assert f"{BUCKET}/team/lanelog/_lanelog/lake.json" in keys
    assert f"{BUCKET}/team/lanelog/sources/data.parquet" in keys
    assert f"{BUCKET}/team/lanelog/outcomes/data.parquet" in keys
    assert not [key for key in keys if key.endswith(".tmp") or "export.lock" in key]
    assert len([key for key in keys if "/attempts/week=" in key]) == len(summary["weeks_written"])

    from_db = run("report", "--db", db, "--format", "json")
    from_lake = run("report", "--lake", url, "--endpoint-url", bucket, "--format", "json")
    assert from_lake.exit_code == 0, from_lake.output
    assert from_lake.stdout == from_db.stdout
    assert run("check", "--lake", url, "--endpoint-url", bucket, "--format", "json").stdout == \
        run("check", "--db", db, "--format", "json").stdout
    query = "SELECT * FROM outcomes ORDER BY source_id, line_no"
    lake_con, con = store.open_lake(url, bucket), store.open_db(db, read_only=True)
    try:
        assert lake_con.execute(query).fetchall() == con.execute(query).fetchall() != []
    finally:
        lake_con.close()
        con.close()

    again = run("export", "--db", db, "--lake", url, "--endpoint-url", bucket, "--format", "json", "--quiet")
    assert json.loads(again.stdout)["weeks_written"] == [] and json.loads(again.stdout)["tables_written"] == []
    # No secret reached the output or the lake's objects.
    no_secret(first, from_lake, again)
    fs = s3(bucket)
    assert not [key for key in keys if SECRET_KEY.encode() in fs.cat_file(key)]


def test_the_endpoint_can_come_from_the_standard_variable(bucket: str, db: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"s3://{BUCKET}/by-variable"
    monkeypatch.setenv("AWS_ENDPOINT_URL", bucket)
    assert run("export", "--db", db, "--lake", url, "--quiet").exit_code == 0
    assert run("report", "--lake", url, "--format", "json").stdout == \
        run("report", "--db", db, "--format", "json").stdout


def test_a_failed_week_upload_leaves_the_old_object_whole(bucket: str, db: Path) -> None:
    import pyarrow as pa

    url = f"s3://{BUCKET}/atomic"
    assert run("export", "--db", db, "--lake", url, "--endpoint-url", bucket, "--quiet").exit_code == 0
    lake = LakeFolder(url, bucket)
    fs = s3(bucket)
    key = f"{BUCKET}/atomic/attempts/week=2026-03-02/data.parquet"
    before = fs.cat_file(key)
    schema = pa.schema([("blob", pa.binary())])

    def batches() -> Iterator[pa.RecordBatch]:
        # More bytes than one upload part (16 MiB), so parts were sent before the failure.
        for _ in range(20):
            yield pa.record_batch([pa.array([os.urandom(1024) for _ in range(1024)])], schema=schema)
        raise RuntimeError("the export was interrupted")

    with pytest.raises(RuntimeError):
        lake.write_parquet(("attempts", "week=2026-03-02", "data.parquet"), schema, batches())
    assert fs.cat_file(key) == before
    with pytest.raises(RuntimeError):
        lake.write_parquet(("attempts", "week=2030-01-07", "data.parquet"), schema, batches())
    assert not fs.exists(f"{BUCKET}/atomic/attempts/week=2030-01-07/data.parquet")
    assert run("report", "--lake", url, "--endpoint-url", bucket, "--format", "json").stdout == \
        run("report", "--db", db, "--format", "json").stdout


def test_a_missing_bucket_is_exit_2_naming_the_url_without_secrets(aws_env: str, db: Path) -> None:
    url = "s3://no-such-lanelog-bucket/lake"
    export = run("export", "--db", db, "--lake", url, "--endpoint-url", aws_env)
    assert export.exit_code == 2
    assert export.stderr == (f"Error: cannot use the lake at {url}: the bucket no-such-lanelog-bucket does not "
                             "exist (make it first; lanelog never creates buckets)\n")
    report = run("report", "--lake", url, "--endpoint-url", aws_env)
    assert report.exit_code == 2 and report.stderr == export.stderr
    assert not s3(aws_env).exists("no-such-lanelog-bucket")
    no_secret(export, report)


def test_a_store_that_never_answers_ends_export_and_report_at_the_request_deadline(aws_env: str,
                                                                                  db: Path) -> None:
    import subprocess

    from tests.ingest.s3server import silent_server

    env = {**os.environ, "LANELOG_STORE_TIMEOUT": "3"}
    url = "s3://lanelog-lake/silent"
    with silent_server() as (endpoint, _):
        for args in (["export", "--db", str(db)], ["report"]):
            done = subprocess.run([sys.executable, "-m", "lanelog", *args, "--lake", url, "--endpoint-url", endpoint],
                                  capture_output=True, text=True, env=env, timeout=120, check=False)
            assert done.returncode == 2
            assert done.stderr == (f"Error: cannot use the lake at {url}: the store did not answer within 3 s "
                                   "($LANELOG_STORE_TIMEOUT sets the seconds)\n")


def _auth(endpoint: str, count: str) -> None:
    """Switch the server's credential checks on (0: from the next request) or off (inf)."""
    request = urllib.request.Request(f"{endpoint}/moto-api/reset-auth", data=count.encode(), method="POST",
                                     headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 200


def test_wrong_credentials_are_exit_2_naming_the_url_without_secrets(bucket: str, db: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"s3://{BUCKET}/guarded"
    assert run("export", "--db", db, "--lake", url, "--endpoint-url", bucket, "--quiet").exit_code == 0
    _auth(bucket, "0")
    try:
        results = [run("report", "--lake", url, "--endpoint-url", bucket),
                   run("export", "--db", db, "--lake", url, "--endpoint-url", bucket),
                   run("check", "--lake", url, "--endpoint-url", bucket)]
    finally:
        _auth(bucket, "inf")
    for result in results:
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"Error: cannot use the lake at {url}: access denied (")
        assert result.stderr.endswith("check the credentials in the environment "
                                      "(AWS_ACCESS_KEY_ID, AWS_PROFILE, ...)\n")
        assert result.stderr.count("\n") == 1
    no_secret(*results)


def test_credentials_refused_halfway_through_an_export_are_named_once(bucket: str, db: Path) -> None:
    # The server takes `count` requests before it checks credentials: a few open the lake,
    # the rest fail at some write.  The lake's own error passes through export unwrapped.
    results, written = [], []
    for count in range(2, 10):
        url = f"s3://{BUCKET}/halfway-{count}"
        _auth(bucket, str(count))
        try:
            results.append(run("export", "--db", db, "--lake", url, "--endpoint-url", bucket, "--quiet"))
        finally:
            _auth(bucket, "inf")
        written.append(len(s3(bucket).find(f"{BUCKET}/halfway-{count}")))
        assert results[-1].exit_code == 2, results[-1].output
        assert results[-1].stderr.startswith(f"Error: cannot use the lake at {url}: access denied (")
        assert results[-1].stderr.count("\n") == 1 and results[-1].stderr.count("lake at") == 1
    assert max(written) > 0, "some export failed after writing into the bucket"
    no_secret(*results)


def test_a_state_object_too_large_to_be_one_is_refused(bucket: str) -> None:
    url = f"s3://{BUCKET}/swollen"
    s3(bucket).pipe_file(f"{BUCKET}/swollen/_lanelog/lake.json", b" " * (16 * 1024 * 1024) + b"{}")
    result = run("report", "--lake", url, "--endpoint-url", bucket)
    assert result.exit_code == 2
    assert result.stderr == f"Error: {url}/_lanelog/lake.json: not a lanelog lake state file (too large)\n"


def test_a_url_with_credentials_in_it_is_refused_without_echoing_them(aws_env: str) -> None:
    result = run("report", "--lake", f"s3://AKIAX:{SECRET_KEY}@{BUCKET}/lake", "--endpoint-url", aws_env)
    assert result.exit_code == 2
    assert result.stderr == ("Error: s3://...: a lake URL carries no credentials; give them in the environment "
                             "(AWS_ACCESS_KEY_ID, AWS_PROFILE, ...)\n")
    no_secret(result)


def test_spark_without_hadoop_aws_says_what_is_missing_before_any_job(spark: Any, bucket: str, db: Path) -> None:
    assert run("export", "--db", db, "--lake", f"s3://{BUCKET}/sparky", "--endpoint-url", bucket,
               "--quiet").exit_code == 0
    result = run("report", "--lake", f"s3a://{BUCKET}/sparky", "--endpoint-url", bucket, "--engine", "spark")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: Spark cannot read s3a:// URLs: the hadoop-aws jar "
                                    "(org.apache.hadoop.fs.s3a.S3AFileSystem) is not on its classpath (")
    assert "--spark-conf spark.jars.packages=org.apache.hadoop:hadoop-aws:3.3.4" in result.stderr
    assert result.stderr.count("\n") == 1
    no_secret(result)


def test_the_dashboard_reads_a_lake_in_a_bucket(bucket: str, demo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.lake.test_dashboard_lake import run_app

    url = f"s3://{BUCKET}/dashboard"
    assert run("export", "--db", demo_dir / "demo.duckdb", "--lake", url, "--endpoint-url", bucket,
               "--quiet").exit_code == 0
    monkeypatch.setenv("AWS_ENDPOINT_URL", bucket)
    main = sys.modules["__main__"]
    try:
        on_db = run_app(monkeypatch, demo_dir / "demo.duckdb", None)
        on_lake = run_app(monkeypatch, demo_dir / "missing.duckdb", url)  # type: ignore[arg-type]
    finally:
        sys.modules["__main__"] = main  # Streamlit leaves the page there
    assert not on_lake.exception, [e.value for e in on_lake.exception]
    assert [m.value for m in on_lake.metric] == [m.value for m in on_db.metric] and on_db.metric
    assert url in [t.value.replace("\n", "") for t in on_lake.sidebar.text]
