"""Fixtures shared across test folders."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import tiers


def _demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the run's demo lives: under pytest-xdist, in the folder the workers share."""
    shared = os.environ.get("PYTEST_XDIST_WORKER") is not None
    base = tmp_path_factory.getbasetemp()
    return (base.parent if shared else base) / "demo"


def _build_demo(root: Path) -> None:
    """Build the demo at `root` unless it is built, holding the run's lock while it does."""
    with open(root.parent / "demo.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "summary.json").exists():
            root.mkdir(exist_ok=True)
            done = subprocess.run(
                [sys.executable, "-m", "lanelog", "demo", "--db", str(root / "demo.duckdb"), "--weeks", "4",
                 "--out", str(root / "logs"), "--format", "json"],
                capture_output=True, text=True, check=True, timeout=600,
            )
            (root / "summary.json").write_text(done.stdout)


@pytest.fixture(scope="session", autouse=True)
def demo_started_early(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """When a collected test needs the demo, start building it beside the first tests, so no worker
    sits waiting for it later; the session ends after the build does.  A build that fails here is
    made again, and its failure reported, by demo_dir."""
    if not any("demo_dir" in getattr(item, "fixturenames", ()) for item in request.session.items):
        yield
        return
    root = _demo_root(tmp_path_factory)

    def build() -> None:
        with contextlib.suppress(Exception):
            _build_demo(root)

    early = threading.Thread(target=build, daemon=True)
    early.start()
    yield
    early.join()


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`lanelog demo` run once per test run: its database, its kept logs and its JSON summary.

    Under pytest-xdist every worker is a session of its own: the first to ask builds the demo in
    the run's shared folder, holding a lock, and the others wait for it and read the same files.
    """
    root = _demo_root(tmp_path_factory)
    _build_demo(root)
    return root


@pytest.hookimpl(tryfirst=True)  # before the mark plugin deselects by tier
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier (tests/tiers.py), and run the demo's readers after a third of the others.

    Under pytest-xdist with `--dist loadgroup`, each file is one unit of work (tiers.work_unit, through
    pytest_xdist_make_scheduler below), so a module's costly fixture (a browser, an S3 server, a built
    wheel) starts once; the files the table says share a worker (every Spark test, one JVM) form one unit.
    """
    root = Path(str(config.rootpath))
    for item in items:
        path = Path(str(item.path)).relative_to(root).as_posix()
        for marker in tiers.markers_for(path):
            item.add_marker(marker)
    items[:] = demo_readers_later(items)


def demo_readers_later(items: list[pytest.Item]) -> list[pytest.Item]:
    """The files whose tests read the demo moved behind the first third of the others, each file kept whole.

    The demo builds beside the first tests (demo_started_early); a worker whose first file reads it
    sat waiting for the build (tests/alerts and the top-level files come first), while files that
    never read it could have run.  The big files that read it still start well before the end, so
    no worker is left alone with one of them."""
    readers = {item.path for item in items if "demo_dir" in getattr(item, "fixturenames", ())}
    others = [item for item in items if item.path not in readers]
    cut = len(others) // 3
    while 0 < cut < len(others) and others[cut].path == others[cut - 1].path:
        cut += 1  # never between two tests of one file: its module fixtures are made once
    return others[:cut] + [item for item in items if item.path in readers] + others[cut:]


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadgroup`, each file (or shared group) one unit of work, read from the test id's path.

    pytest-xdist's own loadgroup reads the group from a suffix it writes into each test's id, and
    pytest 9.2 keeps the id elsewhere, so the suffix was lost and every test was a unit of its own:
    a file's tests ran on both workers, each making its module fixtures, and the Spark files did not
    share a JVM.  tests.tiers.work_unit gives the unit from the path alone, on any pytest."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByWorkUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return tiers.work_unit(nodeid)

    return ByWorkUnit(config, log)


@pytest.fixture(scope="session", autouse=True)
def components_scanned_once() -> Iterator[None]:
    """Each new AppTest asks Streamlit to scan every installed distribution's metadata for
    components (0.4 s of each dashboard test with the test extra's packages); they do not change
    while the tests run, so the scan is made once and its answer kept."""
    if "streamlit.testing.v1" not in sys.modules:  # no AppTest among the collected tests
        yield
        return
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # a Streamlit before its second component API scans nothing
        yield
        return
    scan = manifest_scanner.scan_component_manifests
    manifest_scanner.scan_component_manifests = functools.cache(scan)
    try:
        yield
    finally:
        manifest_scanner.scan_component_manifests = scan
