"""`lanelog ingest s3://bucket/prefix/` against a real S3 API server on 127.0.0.1 (moto's).

The same logs give the same rows and report from a bucket as from a folder;
a re-run with nothing new lists and fetches nothing; every fault names the
URL, keeps what was stored, and the next run completes the work.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner, Result

from lanelog import store
from lanelog.cli import cli
from lanelog.ingest import ingest_paths
from tests.ingest.s3server import S3, Proxy, running_s3, silent_server
from tests.ingest.support import line, outcome, stored
from tests.ingest.test_kill import mixed_log


@pytest.fixture(scope="module")
def s3() -> Iterator[S3]:
    with running_s3() as server:
        yield server


def lanelog(*args: str, env: dict[str, str]) -> Result:
    """The CLI in this process, with exactly the AWS environment given (none of the machine's)."""
    cleared: dict[str, str | None] = {name: None for name in os.environ if name.startswith("AWS_")}
    return CliRunner().invoke(cli, list(args), env={**cleared, **env})


def process_env(**env: str) -> dict[str, str]:
    """For a command in a process of its own: this machine's environment less its AWS settings, then env."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("AWS_")}, **env}


def ingest(s3: S3, db: Path, *sources: str, endpoint: str | None = None, **env: str) -> Result:
    return lanelog("ingest", "--format", "json", "--db", str(db), "--endpoint-url", endpoint or s3.endpoint, *sources,
                   env=s3.env(**env))


def summary(result: Result) -> dict[str, int]:
    return json.loads(result.stdout.splitlines()[0])


def upload(s3: S3, bucket: str, objects: dict[str, bytes]) -> None:
    client = s3.client()
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda item: client.put_object(Bucket=bucket, Key=item[0], Body=item[1]), objects.items()))


def attempt_ids(db: Path) -> list[str]:
    con = store.open_db(db, read_only=True)
    try:
        return sorted(row[0] for row in con.execute(
            "SELECT attempt_id FROM attempts WHERE attempt_id IS NOT NULL").fetchall())
    finally:
        con.close()


def job_logs(count: int, prefix: str = "job") -> dict[str, bytes]:
    """One-line CI logs, one per job."""
    return {f"{prefix}-{n:05d}/lane-log.jsonl": line(attempt_id=f"{prefix}{n}", ts="2026-10-05T10:00:00Z",
                                                      probe="reject" if n % 3 == 0 else "pass",
                                                      model_call_allowed=n % 3 != 0, repo="orders")
            for n in range(count)}


def a_week_of_logs() -> dict[str, bytes]:
    """Small one-line logs, outcome jobs' logs (one job run twice), logs with rejected and
    provisional lines, a gzip log and one over 1 MiB."""
    logs = job_logs(40)
    for n, run in ((1, 1), (2, 1), (2, 2)):  # the second run of job 2 writes its outcome again
        logs[f"outcome-{n}-{run}/lane-log.jsonl"] = outcome(
            outcome_id=f"outcome-{n}", ts="2026-10-08T14:03:00Z", state="merged",
            pull_request={"repository": "o/r", "number": n}, ci_run={"id": "9", "attempt": run})
    logs["mixed/lane-log.jsonl"] = mixed_log(400)
    logs["rotated/lane-log.1.jsonl.gz"] = gzip.compress(b"".join(
        line(attempt_id=f"z{n}", ts="2026-10-12T09:00:00Z", probe="pass", merge_credit=1, quarantine=["t"])
        for n in range(200)))
    logs["growing/lane-log.jsonl"] = line(attempt_id="g1", ts="2026-10-13") + b'{"attempt_id": "g2"'
    logs["big/lane-log.jsonl"] = b"".join(
        line(attempt_id=f"big{n}", ts="2026-10-06T08:00:00Z", probe="pass", note="x" * 200) for n in range(8000))
    logs["notes.txt"] = b"not a lane log\n"
    return logs


def test_a_prefix_ingests_as_the_same_logs_from_disk(s3: S3, tmp_path: Path) -> None:
    logs = a_week_of_logs()
    assert len(logs["big/lane-log.jsonl"]) > 1 << 20  # read in pieces, not fetched whole
    bucket = s3.bucket()
    upload(s3, bucket, {f"nightly/{key}": data for key, data in logs.items()})
    folder = tmp_path / "nightly"
    for key, data in logs.items():
        (folder / key).parent.mkdir(parents=True, exist_ok=True)
        (folder / key).write_bytes(data)

    from_disk = lanelog("ingest", "--format", "json", "--db", str(tmp_path / "disk.duckdb"), str(folder), env={})
    from_bucket = ingest(s3, tmp_path / "bucket.duckdb", f"s3://{bucket}/nightly/")
    assert from_disk.exit_code == 0 and from_bucket.exit_code == 0, from_bucket.output
    assert summary(from_bucket) == summary(from_disk)
    assert summary(from_bucket)["files"] == 47

    disk, objects = store.open_db(tmp_path / "disk.duckdb"), store.open_db(tmp_path / "bucket.duckdb")
    try:
        assert stored(objects) == stored(disk)
        # The outcome jobs' lines, the re-run's a duplicate: each outcome stored once, by its first job.
        assert objects.execute("SELECT outcome_id, s.path FROM outcomes JOIN sources AS s USING (source_id) "
                               "WHERE outcome_id IN ('outcome-1', 'outcome-2') ORDER BY 1").fetchall() == [
            ("outcome-1", f"s3://{bucket}/nightly/outcome-1-1/lane-log.jsonl"),
            ("outcome-2", f"s3://{bucket}/nightly/outcome-2-1/lane-log.jsonl")]
        paths = sorted(row[0] for row in objects.execute("SELECT path FROM sources").fetchall())
        assert paths[0] == f"s3://{bucket}/nightly/big/lane-log.jsonl"
    finally:
        disk.close()
        objects.close()
    for fmt in ("json", "text"):
        reports = [lanelog("report", "--db", str(tmp_path / f"{name}.duckdb"), "--format", fmt, env={})
                   for name in ("disk", "bucket")]
        assert reports[0].exit_code == reports[1].exit_code == 0
        assert reports[0].stdout == reports[1].stdout


def test_a_rerun_with_nothing_new_is_one_listing_and_no_fetch(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    upload(s3, bucket, {**job_logs(30), "big/lane-log.jsonl": mixed_log(40000),
                        "old.jsonl.gz": gzip.compress(line(attempt_id="gz1"))})
    db = tmp_path / "lanelog.duckdb"
    assert ingest(s3, db, f"s3://{bucket}/").exit_code == 0
    proxy = Proxy(s3_address(s3))
    again = ingest(s3, db, f"s3://{bucket}/", endpoint=proxy.endpoint)
    proxy.close()
    assert again.exit_code == 0
    assert summary(again) == {"files": 32, "lines_read": 0, "attempts_added": 0, "duplicates": 0,
                              "outcomes_added": 0, "rejected": 0, "pending": 0, "undated_outcomes": 0}
    assert proxy.object_reads() == []
    assert [method for method, _ in proxy.requests] == ["GET"]  # the one listing page


# Slow: 2,001 objects put and listed through a real S3 server (about 35 s); the slow tier runs it.
@pytest.mark.slow
def test_2001_small_objects_are_listed_page_by_page_and_stored_once(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    logs = job_logs(2001)
    upload(s3, bucket, {f"ci/{key}": data for key, data in logs.items()})
    db = tmp_path / "lanelog.duckdb"
    proxy = Proxy(s3_address(s3))
    first = ingest(s3, db, f"s3://{bucket}/ci/", endpoint=proxy.endpoint)
    assert first.exit_code == 0, first.output
    assert summary(first) == {"files": 2001, "lines_read": 2001, "attempts_added": 2001, "duplicates": 0,
                              "outcomes_added": 0, "rejected": 0, "pending": 0, "undated_outcomes": 0}
    assert len(proxy.listings()) == 3  # 1,000 keys a page
    assert "continuation-token" in proxy.listings()[-1]
    assert len(proxy.object_reads()) == 2001
    assert attempt_ids(db) == sorted(f"job{n}" for n in range(2001))
    again = ingest(s3, db, f"s3://{bucket}/ci/", endpoint=proxy.endpoint)
    proxy.close()
    assert summary(again)["files"] == 2001 and summary(again)["lines_read"] == 0
    assert len(proxy.object_reads()) == 2001  # none more


def test_an_object_replaced_between_two_runs_is_a_new_log_and_a_copy_adds_nothing(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    client = s3.client()
    client.put_object(Bucket=bucket, Key="a/lane-log.jsonl", Body=line(attempt_id="a1") + line(attempt_id="a2"))
    db = tmp_path / "lanelog.duckdb"
    assert summary(ingest(s3, db, f"s3://{bucket}/"))["attempts_added"] == 2

    client.put_object(Bucket=bucket, Key="a/lane-log.jsonl", Body=line(attempt_id="b1"))
    client.copy_object(Bucket=bucket, Key="copy/lane-log.jsonl",
                       CopySource={"Bucket": bucket, "Key": "a/lane-log.jsonl"})
    second = ingest(s3, db, f"s3://{bucket}/")
    assert summary(second) == {"files": 2, "lines_read": 1, "attempts_added": 1, "duplicates": 0,
                               "outcomes_added": 0, "rejected": 0, "pending": 0, "undated_outcomes": 0}
    assert attempt_ids(db) == ["a1", "a2", "b1"]
    con = store.open_db(db, read_only=True)
    assert con.execute("SELECT count(*) FROM sources").fetchall() == [(2,)]
    con.close()
    assert summary(ingest(s3, db, f"s3://{bucket}/"))["lines_read"] == 0


def test_the_last_listing_of_a_prefix_is_what_objects_read_holds_below_it(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    upload(s3, bucket, {**job_logs(3, prefix="logs/job"), **job_logs(1, prefix="logs2/job")})
    db = tmp_path / "lanelog.duckdb"
    assert ingest(s3, db, f"s3://{bucket}/").exit_code == 0
    s3.client().delete_object(Bucket=bucket, Key="logs/job-00001/lane-log.jsonl")
    s3.client().delete_object(Bucket=bucket, Key="logs2/job-00000/lane-log.jsonl")
    # Listing logs (no slash) forgets what it no longer finds below logs/, and nothing of logs2/.
    again = ingest(s3, db, f"s3://{bucket}/logs")
    assert again.exit_code == 0 and summary(again)["files"] == 2
    con = store.open_db(db, read_only=True)
    try:
        urls = [row[0] for row in con.execute("SELECT url FROM objects_read ORDER BY url").fetchall()]
        kept = con.execute("SELECT count(*) FROM attempts").fetchall()
    finally:
        con.close()
    assert urls == [f"s3://{bucket}/logs/job-00000/lane-log.jsonl", f"s3://{bucket}/logs/job-00002/lane-log.jsonl",
                    f"s3://{bucket}/logs2/job-00000/lane-log.jsonl"]
    assert kept == [(4,)]  # the lines of a log gone from the bucket stay


def test_local_paths_and_a_url_in_one_run_with_the_endpoint_from_the_environment(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    upload(s3, bucket, job_logs(3, prefix="remote"))
    local = tmp_path / "local.jsonl"
    local.write_bytes(line(attempt_id="local1"))
    db = tmp_path / "lanelog.duckdb"
    result = lanelog("ingest", "--format", "json", "--db", str(db), str(local), f"s3://{bucket}/",
                     env=s3.env(AWS_ENDPOINT_URL=s3.endpoint))
    assert result.exit_code == 0, result.output
    assert attempt_ids(db) == ["local1", "remote0", "remote1", "remote2"]


def test_a_missing_bucket_is_named_and_the_other_sources_are_ingested(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    upload(s3, bucket, job_logs(2))
    db = tmp_path / "lanelog.duckdb"
    result = ingest(s3, db, "s3://no-such-bucket-here/logs/", f"s3://{bucket}/")
    assert result.exit_code == 2
    assert result.stderr == f"Error: s3://no-such-bucket-here/logs/: no such bucket at {s3.endpoint}\n"
    assert attempt_ids(db) == ["job0", "job1"]


def test_a_missing_object_or_empty_prefix_is_named_and_an_empty_bucket_is_not(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    upload(s3, bucket, {f"nightly/{key}": data for key, data in job_logs(2).items()})
    db = tmp_path / "lanelog.duckdb"
    for missing in (f"s3://{bucket}/nightly/job-00009/lane-log.jsonl", f"s3://{bucket}/nighlty/"):
        result = ingest(s3, db, missing, f"s3://{bucket}/nightly/job-00001/lane-log.jsonl")
        assert result.exit_code == 2
        assert result.stderr == f"Error: {missing}: no such object, and no object below it at {s3.endpoint}\n"
    assert attempt_ids(db) == ["job1"]
    empty = ingest(s3, db, f"s3://{s3.bucket()}/")
    assert empty.exit_code == 0, empty.output
    assert summary(empty)["files"] == 0


def test_wrong_or_missing_credentials_are_named_without_the_secret(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    upload(s3, bucket, job_logs(2))
    db = tmp_path / "lanelog.duckdb"
    url = f"s3://{bucket}/"
    wrong = ingest(s3, db, url, AWS_SECRET_ACCESS_KEY="a-wrong-secret-0123456789")
    assert wrong.exit_code == 2
    assert wrong.stderr == (
        f"Error: {url}: cannot be listed: access denied (wrong or missing credentials, or no permission); "
        "the credentials come from the environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
        "AWS_PROFILE, or the instance role\n")
    assert "a-wrong-secret" not in wrong.output
    none = lanelog("ingest", "--db", str(db), "--endpoint-url", s3.endpoint, url,
                   env={name: value for name, value in s3.env().items() if not name.endswith("_KEY_ID")
                        and name != "AWS_SECRET_ACCESS_KEY"})
    assert none.exit_code == 2
    assert none.stderr.startswith(f"Error: {url}: cannot be listed: no credentials found; ")
    assert attempt_ids(db) == []
    assert summary(ingest(s3, db, url))["attempts_added"] == 2


def test_credentials_in_the_url_are_refused_and_not_shown(s3: S3, tmp_path: Path) -> None:
    result = ingest(s3, tmp_path / "lanelog.duckdb", f"s3://{s3.key_id}:{s3.secret}@bucket/logs/")
    assert result.exit_code == 2
    assert s3.secret not in result.output
    assert result.stderr.startswith("Error: s3://bucket/logs/: credentials in a URL are refused; ")


# Slow: it waits out the store's deadline (about 11 s); the slow tier runs it.
@pytest.mark.slow
def test_the_network_gone_mid_run_keeps_what_was_stored_and_the_next_run_completes(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    before, during = job_logs(10, prefix="before"), {**job_logs(60, prefix="during"), "zz/lane.jsonl": mixed_log(40000)}
    upload(s3, bucket, before)
    db = tmp_path / "lanelog.duckdb"
    assert summary(ingest(s3, db, f"s3://{bucket}/"))["attempts_added"] == 10
    upload(s3, bucket, during)
    proxy = Proxy(s3_address(s3), cut_after_reads=20)
    cut = ingest(s3, db, f"s3://{bucket}/", endpoint=proxy.endpoint)
    assert cut.exit_code == 2
    assert cut.stderr.startswith(f"Error: s3://{bucket}/")
    assert f"cannot be read: the store at {proxy.endpoint} did not answer as expected" in cut.stderr
    assert cut.stderr.endswith("what was read before is stored, run ingest again\n")
    assert set(attempt_ids(db)) >= {f"before{n}" for n in range(10)}
    done = ingest(s3, db, f"s3://{bucket}/")
    assert done.exit_code == 0, done.output
    assert_stored_as_from_disk(db, {**before, **during}, tmp_path)


def test_objects_deleted_or_replaced_between_listing_and_reading(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    client = s3.client()
    upload(s3, bucket, job_logs(20))

    def meanwhile() -> None:
        client.delete_object(Bucket=bucket, Key="job-00003/lane-log.jsonl")
        client.put_object(Bucket=bucket, Key="job-00007/lane-log.jsonl", Body=line(attempt_id="replaced7"))

    proxy = Proxy(s3_address(s3), before_first_read=meanwhile)
    db = tmp_path / "lanelog.duckdb"
    result = ingest(s3, db, f"s3://{bucket}/", endpoint=proxy.endpoint)
    proxy.close()
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: 2 files could not be read:\n"
        f"  s3://{bucket}/job-00003/lane-log.jsonl: deleted between the listing and the read; "
        "nothing of it is stored\n"
        f"  s3://{bucket}/job-00007/lane-log.jsonl: replaced between the listing and the read; "
        "nothing of it is stored, and the next run reads it\n")
    assert attempt_ids(db) == sorted(f"job{n}" for n in range(20) if n not in (3, 7))
    again = ingest(s3, db, f"s3://{bucket}/")
    assert again.exit_code == 0
    assert summary(again)["attempts_added"] == 1
    assert attempt_ids(db) == sorted([*(f"job{n}" for n in range(20) if n not in (3, 7)), "replaced7"])


GZ_LOG = gzip.compress(b"".join(line(attempt_id=f"gz{n}", ts="2026-10-07") for n in range(300)))
CHILD = """
import sys
from lanelog import ingest, store
import lanelog.ingest.chunks
ingest.chunks.CHUNK_BYTES = 2048  # many small transactions, so the kill lands inside the run
ingest.chunks.ROW_GROUP_LINES = 16
ingest.chunks.GROUP_ROW_GROUPS = 4  # groups of 64 lines
con = store.open_db(sys.argv[1])
print("opened", flush=True)
ingest.ingest_paths(con, sys.argv[3:], endpoint_url=sys.argv[2],
                    progress=lambda n, _: print("chunk", flush=True) if n else None)
print("done", flush=True)
"""


@pytest.mark.parametrize("commits_before_kill", [0, 5])
def test_kill_9_during_an_object_ingest_then_a_rerun_stores_every_line_once(
    s3: S3, tmp_path: Path, commits_before_kill: int
) -> None:
    bucket = s3.bucket()
    data = mixed_log(3000)
    upload(s3, bucket, {"mixed/lane-log.jsonl": data, "gz/lane-log.jsonl.gz": GZ_LOG,
                        **job_logs(50)})
    db = tmp_path / "lanelog.duckdb"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), s3.endpoint, f"s3://{bucket}/"],
                             stdout=subprocess.PIPE, text=True, env=process_env(**s3.env()))
    assert child.stdout is not None
    try:
        assert child.stdout.readline() == "opened\n"
        for _ in range(commits_before_kill):
            assert child.stdout.readline() == "chunk\n"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL

    con = store.open_db(db)
    partial = con.execute("SELECT count(*) FROM attempts").fetchall()[0][0]
    con.close()
    assert partial < 3000  # the kill cut the run short
    rerun = ingest(s3, db, f"s3://{bucket}/")
    assert rerun.exit_code == 0, rerun.output
    assert_stored_as_from_disk(db, {"mixed/lane-log.jsonl": data, "gz/lane-log.jsonl.gz": GZ_LOG,
                                    **job_logs(50)}, tmp_path)
    assert summary(ingest(s3, db, f"s3://{bucket}/"))["lines_read"] == 0


def test_the_secret_never_reaches_output_or_the_database(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    upload(s3, bucket, {**job_logs(5), "bad/lane-log.jsonl": b"not json\n" + line(attempt_id="x1")})
    db = tmp_path / "lanelog.duckdb"
    url = f"s3://{bucket}/"
    results = [
        ingest(s3, db, url),
        ingest(s3, db, "s3://no-such-bucket-here/"),
        ingest(s3, db, url, AWS_SECRET_ACCESS_KEY=s3.secret[::-1]),
        ingest(s3, db, url, endpoint="http://127.0.0.1:9"),  # nothing listens there
        lanelog("report", "--db", str(db), "--format", "json", env=s3.env()),
    ]
    assert [result.exit_code for result in results] == [0, 2, 2, 2, 0]
    for result in results:
        assert s3.secret not in result.output
        assert s3.secret[::-1] not in result.output
    assert s3.secret.encode() not in db.read_bytes()
    con = duckdb.connect(str(db), read_only=True)
    try:
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall():
            text = con.execute(f'SELECT CAST(list(t) AS VARCHAR) FROM "{table}" AS t').fetchall()[0][0] or ""
            assert s3.secret not in text and s3.key_id not in text
    finally:
        con.close()


def assert_stored_as_from_disk(db: Path, objects: dict[str, bytes], tmp_path: Path) -> None:
    """The database holds exactly what ingesting the same logs from a folder stores (in any order)."""
    folder = tmp_path / "from-disk"
    for name, content in objects.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    reference = store.open_memory()
    ingest_paths(reference, [folder])
    con = store.open_db(db, read_only=True)
    try:
        got, want = stored(con), stored(reference)
        assert sorted(got[0], key=repr) == sorted(want[0], key=repr)
        assert sorted(got[1], key=repr) == sorted(want[1], key=repr)
        assert sorted(got[2], key=repr) == sorted(want[2], key=repr)
    finally:
        con.close()
        reference.close()


def s3_address(s3: S3) -> tuple[str, int]:
    host, port = s3.endpoint.removeprefix("http://").split(":")
    return host, int(port)


def test_the_nightly_workflow_runs_as_written_against_the_bucket(s3: S3, tmp_path: Path) -> None:
    import yaml

    workflow = Path(__file__).resolve().parents[2] / "examples" / "github-actions" / "lanelog-nightly.yml"
    steps = yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"]["nightly"]["steps"]
    scripts = [step["run"] for step in steps if step.get("name", "").startswith(("Ingest", "Check", "Export"))]
    assert len(scripts) == 3
    bucket = s3.bucket()
    upload(s3, bucket, {f"lanelog/{key}": data for key, data in job_logs(12).items()})
    bin_dir = Path(sys.executable).parent
    env = process_env(**s3.env(), AWS_ENDPOINT_URL=s3.endpoint, LANELOG_DB=str(tmp_path / "lanelog.duckdb"),
                      LOGS_URL=f"s3://{bucket}/lanelog/", LAKE_URL=str(tmp_path / "lake"),
                      PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    # The checkout of the repository that keeps the figures holds the budgets file the check reads.
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "lanelog-budgets.yaml").write_text(
        "budgets:\n  - {name: all-spend, amount: 5, currency: USD, period: week}\n", encoding="utf-8")
    for script in scripts:
        done = subprocess.run(["bash", "-e", "-c", script], env=env, capture_output=True, text=True, timeout=120,
                              check=False, cwd=checkout)
        assert done.returncode == 0, done.stderr
        assert s3.secret not in done.stdout + done.stderr
    assert attempt_ids(tmp_path / "lanelog.duckdb") == sorted(f"job{n}" for n in range(12))
    assert any((tmp_path / "lake").iterdir())


def test_credentials_from_a_profile_and_an_upper_case_scheme(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    upload(s3, bucket, job_logs(3))
    credentials = tmp_path / "credentials"
    credentials.write_text(f"[nightly]\naws_access_key_id = {s3.key_id}\naws_secret_access_key = {s3.secret}\n")
    keys = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
    env = {name: value for name, value in s3.env().items() if name not in keys}
    db = tmp_path / "lanelog.duckdb"
    for url, added in ((f"s3://{bucket}/", 3), (f"S3://{bucket}", 0)):
        result = lanelog("ingest", "--format", "json", "--db", str(db), "--endpoint-url", s3.endpoint, url,
                         env={**env, "AWS_SHARED_CREDENTIALS_FILE": str(credentials), "AWS_PROFILE": "nightly"})
        assert result.exit_code == 0, result.output
        assert summary(result)["attempts_added"] == added
    con = store.open_db(db, read_only=True)
    assert con.execute("SELECT count(*) FROM objects_read").fetchall() == [(3,)]
    con.close()


# A bound on a command that should end within seconds: far above its deadline, far below a hang.
COMMAND_BOUND_S = 120


@contextmanager
def ingest_process(db: Path, endpoint: str, *args: str, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """`lanelog ingest` in a process of its own (a hang fails the test instead of holding it),
    killed when the block ends if it has not ended by then."""
    child = subprocess.Popen([sys.executable, "-m", "lanelog", "ingest", "--db", str(db), "--endpoint-url", endpoint,
                              *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=process_env(**env))
    try:
        yield child
    finally:
        child.kill()
        child.wait()


def test_a_store_that_never_answers_ends_the_url_at_its_deadline_without_holding_the_database(
    s3: S3, tmp_path: Path
) -> None:
    db = tmp_path / "lanelog.duckdb"
    (tmp_path / "before.jsonl").write_bytes(line(attempt_id="before1"))
    (tmp_path / "during.jsonl").write_bytes(line(attempt_id="during1"))
    assert lanelog("ingest", "--db", str(db), str(tmp_path / "before.jsonl"), env={}).exit_code == 0
    with (silent_server() as (endpoint, accepted),
          ingest_process(db, endpoint, "--list-timeout", "4", "s3://ci-logs/lanelog/", env=s3.env()) as child):
        assert accepted.wait(COMMAND_BOUND_S)  # the listing is waiting on the store now
        # ... and the database is not held meanwhile: another ingest takes it at once.
        other = lanelog("ingest", "--db", str(db), "--wait", "0", str(tmp_path / "during.jsonl"), env={})
        assert other.exit_code == 0, other.output
        _, stderr = child.communicate(timeout=COMMAND_BOUND_S)
    assert child.returncode == 2
    assert stderr == (f"Error: s3://ci-logs/lanelog/: cannot be listed: the store at {endpoint} did not answer "
                      "within 4 s (--list-timeout); what was read before is stored, run ingest again\n")
    assert attempt_ids(db) == ["before1", "during1"]


def test_a_request_that_never_ends_is_bounded_as_a_whole_not_read_by_read(s3: S3, tmp_path: Path) -> None:
    """Every request has --store-timeout for all of it: the first one of a listing to a silent store."""
    with (silent_server() as (endpoint, _),
          ingest_process(tmp_path / "lanelog.duckdb", endpoint, "--store-timeout", "3", "s3://ci-logs/lanelog/",
                         env=s3.env()) as child):
        _, stderr = child.communicate(timeout=COMMAND_BOUND_S)
    assert child.returncode == 2
    assert stderr == (f"Error: s3://ci-logs/lanelog/: cannot be listed: the store at {endpoint} did not answer "
                      "within 3 s (--store-timeout); what was read before is stored, run ingest again\n")


# Slow: it waits out a store that answers a byte a second (about 12 s); the slow tier runs it.
@pytest.mark.slow
def test_objects_answered_a_byte_a_second_end_the_run_at_the_request_deadline(s3: S3, tmp_path: Path) -> None:
    bucket = s3.bucket()
    upload(s3, bucket, {**job_logs(3, prefix="small/job"), "big/lane-log.jsonl": mixed_log(40000)})
    assert len(mixed_log(40000)) > 1 << 20  # read in pieces, not fetched whole
    db = tmp_path / "lanelog.duckdb"
    (tmp_path / "before.jsonl").write_bytes(line(attempt_id="before1"))
    assert lanelog("ingest", "--db", str(db), str(tmp_path / "before.jsonl"), env={}).exit_code == 0
    proxy = Proxy(s3_address(s3), drip_reads=True)
    try:
        for prefix, shown in (("small/", f"s3://{bucket}/small/job-00000/lane-log.jsonl"),
                              ("big/", f"s3://{bucket}/big/lane-log.jsonl")):
            with ingest_process(db, proxy.endpoint, "--store-timeout", "3", f"s3://{bucket}/{prefix}",
                                env=s3.env()) as child:
                _, stderr = child.communicate(timeout=COMMAND_BOUND_S)
            assert child.returncode == 2
            assert stderr == (f"Error: {shown}: cannot be read: the store at {proxy.endpoint} did not answer "
                              "within 3 s (--store-timeout); what was read before is stored, run ingest again\n")
    finally:
        proxy.close()
    assert attempt_ids(db) == ["before1"]
    done = ingest(s3, db, f"s3://{bucket}/")
    assert done.exit_code == 0, done.output
    assert_stored_as_from_disk(db, {**job_logs(3, prefix="small/job"), "big/lane-log.jsonl": mixed_log(40000),
                                    "before.jsonl": line(attempt_id="before1")}, tmp_path)
