"""CI's logs in a bucket: 5,000 one-line logs read from a local S3 API server against the same from disk.

The server is moto's, started on 127.0.0.1 by the bench itself (in its own
process, so it takes a share of the same cores, as a store beside the job
would take none: the bucket rows are, if anything, pessimistic).  Each run
ingests into a new database; the unchanged re-run starts from a database
that holds every object, and costs one listing and one query.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from bench import components
from bench.data import copy_db, remove_db
from bench.harness import Case, Run, worker_argv

BUCKET = "lanelog-bench"
# Dummy credentials for the local server: s3fs signs every request, as it would against S3.
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench-secret",
               "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}


def missing() -> str | None:
    """Why the bucket rows cannot run, or None."""
    for module in ("moto.server", "s3fs", "boto3"):
        why = components._missing_module(module)
        if why is not None:
            return f"needs pip install 'lanelog[s3,test]' ({why})"
    return components.ingest_api()


@contextmanager
def s3_server() -> Iterator[str]:
    """moto's S3 API server on a free port of 127.0.0.1; yields its endpoint."""
    import logging

    from moto.server import ThreadedMotoServer

    # The server's access log would print a line per request (over 10,000 a run) among the results.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def upload_folder(endpoint: str, folder: Path, prefix: str) -> int:
    """Every *.jsonl of the folder as an object under prefix, sixteen uploads at a time."""
    import boto3

    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id="bench", aws_secret_access_key="bench-secret")
    if BUCKET not in {bucket["Name"] for bucket in client.list_buckets().get("Buckets", [])}:
        client.create_bucket(Bucket=BUCKET)
    files = sorted(folder.glob("*.jsonl"))
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda path: client.put_object(Bucket=BUCKET, Key=f"{prefix}/{path.name}",
                                                     Body=path.read_bytes()), files))
    return len(files)


def _expect(attempts: int):  # type: ignore[no-untyped-def]
    def check(run: Run) -> list[str]:
        summary = run.info.get("summary", {})
        if summary.get("attempts_added") != attempts or run.info.get("errors"):
            return [(f"added {summary.get('attempts_added')} attempts, expected {attempts}; "
                     f"errors: {run.info.get('errors')}")]
        return [f"added {attempts:,} attempts, as expected"]
    return check


def bucket_cases(folder: Path, count: int, attempts: int, endpoint: str, out: Path) -> list[Case]:
    """The folder from disk, the same logs from the bucket, and the bucket again with nothing new."""
    tag = f"s3.{count}"
    disk_db, db, base_db = out / f"{tag}-disk.duckdb", out / f"{tag}.duckdb", out / f"{tag}-base.duckdb"
    url = f"s3://{BUCKET}/{tag}/"
    label = f"{count:,} one-line logs"
    env = {**CREDENTIALS, "AWS_CONFIG_FILE": str(out / "no-aws-config"),
           "AWS_SHARED_CREDENTIALS_FILE": str(out / "no-aws-credentials")}

    def make_base() -> None:
        remove_db(base_db)
        subprocess.run([sys.executable, "-m", "lanelog", "ingest", "--db", str(base_db), "--endpoint-url",
                        endpoint, url], check=True, capture_output=True, timeout=1800, env={**_environ(), **env})

    not_run = missing()
    return [
        Case(f"{tag}.disk", "logs in a bucket", f"{label} from disk: lanelog into a new database",
             worker_argv("lanelog_ingest", log=str(folder), db=str(disk_db)), "in-process",
             before_each=lambda: remove_db(disk_db), check=_expect(attempts), not_run=not_run),
        Case(f"{tag}.lanelog", "logs in a bucket", f"{label} from the local S3 server: lanelog into a new database",
             worker_argv("lanelog_ingest_url", url=url, db=str(db), endpoint=endpoint), "in-process",
             before_each=lambda: remove_db(db), check=_expect(attempts), env=env, not_run=not_run),
        Case(f"{tag}.floor", "logs in a bucket", f"{label} from the local S3 server: floor, boto3 lists "
             "and GETs every object (16 threads), storing nothing",
             worker_argv("s3_get_floor", url=url, endpoint=endpoint), "in-process", env=env, not_run=not_run),
        Case(f"{tag}.list_floor", "logs in a bucket", f"{label} from the local S3 server: floor of a re-run, "
             "boto3 pages through the listing only",
             worker_argv("s3_list_floor", url=url, endpoint=endpoint), "in-process", env=env, not_run=not_run),
        Case(f"{tag}.unchanged", "logs in a bucket", f"{label} from the local S3 server again, nothing new",
             worker_argv("lanelog_ingest_url", url=url, db=str(db), endpoint=endpoint), "in-process",
             before_all=make_base, before_each=lambda: copy_db(base_db, db), check=_expect(0), env=env,
             not_run=not_run),
    ]


def _environ() -> dict[str, str]:
    import os

    return {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
