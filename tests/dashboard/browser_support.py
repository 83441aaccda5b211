"""What the real-browser tests share: Debian's Chromium, a served dashboard's start and stop."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
# The page has drawn all of its run.
FINISHED = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_healthy(server: subprocess.Popen, url: str, output: Callable[[], str], seconds: float = 60) -> None:
    """Return once the dashboard at url answers its health check; kill it and fail with its output
    if it exits or does not answer within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise AssertionError(f"dashboard did not start: {output()}") from None
        time.sleep(0.2)


def stop(server: subprocess.Popen, seconds: float) -> None:
    """SIGTERM, then SIGKILL if the server is still there after `seconds`."""
    server.terminate()
    try:
        server.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@contextmanager
def chromium() -> Iterator[object]:
    """Debian's Chromium driven by playwright, closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
