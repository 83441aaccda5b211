"""`lanelog dashboard --lake s3://...` in a real browser: the page says at once that it reads the lake, then draws it.

The demo's lake is in a bucket of moto's S3 server, read through a proxy that holds every
read of an attempts file until the test has looked at the page, so the loading state is
seen for certain, however fast the machine.  The lake's folder name holds Markdown,
which the page must show as the characters it is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanelog.dashboard.present import METRICS
from tests.dashboard.browser_support import FINISHED, chromium, free_port, stop, wait_until_healthy
from tests.ingest.s3server import S3, running_s3
from tests.lake.bucket_support import export_to_bucket, proxy_to, weeks_read

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PREFIX = "reviews/**q3**_lake"
READING = "Reading the lake"


@pytest.fixture(scope="module")
def s3() -> Iterator[S3]:
    with running_s3() as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


def test_the_overview_of_a_bucket_lake_says_it_is_reading_then_draws_the_figures(
        s3: S3, demo_db: Path, browser: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in s3.env().items():  # (the export, in this process)
        monkeypatch.setenv(name, value)
    url = export_to_bucket(s3, demo_db, prefix=PREFIX)
    release = threading.Event()
    proxy = proxy_to(s3, {"/attempts/": lambda: release.wait(60)}, every=True)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LANELOG_"))},
           **s3.env(AWS_ENDPOINT_URL=proxy.endpoint)}
    port = free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "lanelog"), "dashboard", "--lake", url, "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path, env=env,
    )
    address = f"http://127.0.0.1:{port}"
    wait_until_healthy(server, address, lambda: server.stdout.read() if server.stdout else "")
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
        page.goto(address)
        status = page.get_by_text(READING)
        status.wait_for(timeout=60_000)
        # The lake's name as the characters it is: no Markdown made bold, no credential shown.
        shown = page.locator('[data-testid="stExpander"]').filter(has_text=READING)
        shown.get_by_text(url, exact=True).wait_for(timeout=30_000)  # (drawn just after the label)
        assert url in shown.inner_text()
        assert s3.secret not in page.locator("body").inner_text()
        assert weeks_read(proxy) == []  # nothing of the attempts read yet, and the page says so
        ARTIFACTS.mkdir(exist_ok=True)
        for width in (1000, 1400):
            page.set_viewport_size({"width": width, "height": 1000})
            page.screenshot(path=str(ARTIFACTS / f"lake-overview-reading-{width}.png"), full_page=True)

        release.set()
        page.get_by_text("Credit bugs per week").wait_for(timeout=60_000)
        page.wait_for_selector(FINISHED, timeout=60_000)
        assert page.get_by_text(READING).count() == 0
        labels = page.locator('[data-testid="stMetricLabel"]')
        labels.nth(len(METRICS) - 1).wait_for(timeout=30_000)
        assert [label for _, label in METRICS] == labels.all_inner_texts()[:len(METRICS)]
        assert weeks_read(proxy)
        for width in (1400, 1000):
            page.set_viewport_size({"width": width, "height": 1000})
            page.wait_for_selector(FINISHED, timeout=60_000)
            page.screenshot(path=str(ARTIFACTS / f"lake-overview-{width}.png"), full_page=True)
        page.close()
    finally:
        release.set()
        stop(server, 10)
        proxy.close()
