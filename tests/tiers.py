"""Which tier each test belongs to, by path: one table, read by tests/conftest.py.

The fast tier (`pytest -m "not slow"`) is what a contributor runs after a change;
the whole suite is what CI runs.  A marker names what a test needs besides the
test extra (`browser`: Debian's Chromium; `spark`: a JVM; `s3`: moto's server;
`bench`: the bench harness), and `slow` what the fast tier leaves out: those, the
installs and the workflows.  A test that is slow for a reason of its own says so
with `@pytest.mark.slow` where it is written (a property test's whole run beside a
few examples in the fast tier: tests/depth.py); a whole file or folder is named here.
"""

from __future__ import annotations

# Path prefix (relative to the repository, with forward slashes) -> the markers its tests carry.
BY_PATH: dict[str, tuple[str, ...]] = {
    "tests/dashboard/test_browser.py": ("browser", "slow"),
    "tests/dashboard/test_browser_budgets.py": ("browser", "slow"),
    "tests/dashboard/test_browser_lake.py": ("browser", "slow", "s3"),
    "tests/dashboard/test_signin.py": ("browser", "slow"),
    "tests/lake/test_spark.py": ("spark", "slow"),
    "tests/lake/test_spark_master.py": ("spark", "slow"),
    "tests/lake/test_spark_judgement.py": ("spark", "slow"),
    "tests/ingest/test_s3.py": ("s3", "slow"),
    "tests/lake/test_s3_lake.py": ("s3", "slow"),
    "tests/lake/test_lake_bucket_reads.py": ("s3", "slow"),
    "tests/test_bench_quick.py": ("bench", "slow"),
    "tests/install/": ("slow",),
    "tests/workflows/": ("slow",),
}

# Tests that share a costly process run on one worker: one JVM for every Spark test.
SHARED_WORKER: dict[str, str] = {
    "spark": "spark",
}


def markers_for(path: str) -> tuple[str, ...]:
    """The markers a test file at `path` carries by the table above."""
    found: list[str] = []
    for prefix, markers in BY_PATH.items():
        if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
            found += [marker for marker in markers if marker not in found]
    return tuple(found)


def work_unit(nodeid: str) -> str:
    """The unit of work a test id belongs to under `--dist loadgroup`: its file, or the shared group its
    markers name (SHARED_WORKER).  A group pytest-xdist appended to the id (``...@group``) is read the same."""
    path = nodeid.split("::", 1)[0]
    markers = markers_for(path)
    return next((SHARED_WORKER[marker] for marker in markers if marker in SHARED_WORKER), path)
