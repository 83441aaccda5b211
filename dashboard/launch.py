"""Build and run the `streamlit run` command line for the dashboard.

The flags keep the app local and quiet: bound to one address (which also stops
Streamlit looking up the machine's external IP), headless, no usage statistics,
no file watcher, and no email prompt.  The database path reaches the app through
the environment, as LANELOG_DB, the same variable the rest of lanelog reads.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from pathlib import Path

from lanelog.errors import DashboardError

APP = Path(__file__).resolve().parent / "app.py"

# The uploader's size limit; Streamlit enforces it and the app says so in the sidebar.
UPLOAD_LIMIT_MB = 50

# Streamlit looks up the machine's external address (an outside request) when it
# listens on every interface, so a wildcard is refused: name one interface.
WILDCARD_HOSTS = {"0.0.0.0", "::", "", "*"}


def check_host(host: str) -> str:
    """Return the host to bind, refusing wildcard addresses."""
    if host.strip() in WILDCARD_HOSTS:
        raise DashboardError(
            f"--host {host!r} listens on every interface and makes Streamlit look up "
            "its external address online; name one address instead (e.g. 127.0.0.1 "
            "or this machine's LAN address)"
        )
    try:
        if ipaddress.ip_address(host).is_unspecified:
            raise DashboardError(f"--host {host!r} is a wildcard address; name one address")
    except ValueError:
        pass  # a host name such as "localhost" is bound as it is
    return host


def streamlit_argv(host: str, port: int) -> list[str]:
    """The full `python -m streamlit run` command for the dashboard app."""
    return [
        sys.executable, "-m", "streamlit", "run", str(APP),
        "--server.address", check_host(host),
        "--server.port", str(port),
        "--server.headless", "true",
        "--server.showEmailPrompt", "false",
        "--server.fileWatcherType", "none",
        "--server.runOnSave", "false",
        "--server.maxUploadSize", str(UPLOAD_LIMIT_MB),
        "--browser.gatherUsageStats", "false",
        "--browser.serverAddress", host,
        "--browser.serverPort", str(port),
        "--client.toolbarMode", "minimal",
        "--client.showErrorLinks", "false",
        "--global.developmentMode", "false",
    ]


def app_environment(db: Path, lake: str | None = None) -> dict[str, str]:
    """The environment for the app: this one, with LANELOG_DB set to the database
    and LANELOG_LAKE to the lake when the app reads one (unset otherwise)."""
    env = dict(os.environ)
    env["LANELOG_DB"] = str(db.expanduser().resolve())
    env.pop("LANELOG_LAKE", None)
    if lake is not None:
        env["LANELOG_LAKE"] = lake if "://" in lake else str(Path(lake).expanduser().resolve())
    return env


def serve(db: Path, host: str = "127.0.0.1", port: int = 8501, lake: str | None = None) -> None:
    """Replace this process with the Streamlit server (so stopping it stops the app)."""
    argv = streamlit_argv(host, port)
    os.execve(sys.executable, argv, app_environment(db, lake))
