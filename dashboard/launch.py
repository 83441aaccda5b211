"""Build and run the `streamlit run` command line for the dashboard.

The flags keep the app local and quiet: bound to one address (which also stops
Streamlit looking up the machine's external IP), headless, no usage statistics,
no file watcher, and no email prompt.  The database path reaches the app through
the environment, as LANELOG_DB, the same variable the rest of lanelog reads.

The page process never puts the working folder on its import path (Python's -P,
and PYTHONSAFEPATH=1 for any Python it starts): run from a folder that holds a
`lanelog/` folder, such as a home folder with the clone in it, `python -m` would
otherwise import that folder in place of the installed package.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from pathlib import Path

from lanelog.errors import DashboardError

APP = Path(__file__).resolve().parent / "app.py"

# The uploader's size limit; Streamlit enforces it and the app says so in the sidebar.
UPLOAD_LIMIT_MB = 50

# Streamlit looks up the machine's external address (an outside request) when it
# listens on every interface, and the uploader would then write to the database for
# anyone on the network, so an unspecified address is refused: name one interface.
WILDCARD_HOSTS = {"0.0.0.0", "::", "", "*"}


def _is_unspecified(address: str) -> bool:
    """0.0.0.0, ::, or :: mapping 0.0.0.0: an address that binds every interface."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_unspecified or (mapped is not None and mapped.is_unspecified)


def check_host(host: str) -> str:
    """Return the host to bind, refusing every spelling of a wildcard address.

    The address is read the way the server will read it, by the system resolver, so
    legacy forms such as `0`, `0.0` or `0x0` (all 0.0.0.0) and `::ffff:0.0.0.0` are
    caught; `[::1]`, as in a URL, is bound as `::1`.
    """
    bare = host.strip()
    if bare.startswith("[") and bare.endswith("]"):
        bare = bare[1:-1]
    refusal = (
        f"--host {host!r} listens on every interface and makes Streamlit look up "
        "its external address online; name one address instead (e.g. 127.0.0.1 "
        "or this machine's LAN address)"
    )
    if bare in WILDCARD_HOSTS:
        raise DashboardError(refusal)
    try:
        found = socket.getaddrinfo(bare, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise DashboardError(f"--host {host!r} is not an address this machine can listen on: {reason}") from None
    addresses = sorted({str(info[4][0]) for info in found})
    wildcards = [address for address in addresses if _is_unspecified(address)]
    if wildcards:
        raise DashboardError(f"{refusal} ({host!r} means {wildcards[0]})")
    return bare


def streamlit_argv(host: str, port: int) -> list[str]:
    """The full `python -m streamlit run` command for the dashboard app."""
    host = check_host(host)
    return [
        sys.executable, "-P", "-m", "streamlit", "run", str(APP),
        "--server.address", host,
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
    env["PYTHONSAFEPATH"] = "1"
    env["LANELOG_DB"] = str(db.expanduser().resolve())
    env.pop("LANELOG_LAKE", None)
    if lake is not None:
        env["LANELOG_LAKE"] = lake if "://" in lake else str(Path(lake).expanduser().resolve())
    return env


def check_port_free(host: str, port: int) -> None:
    """Refuse at once a port another server holds, rather than after the work before serving.

    Bound the way the server binds (address reuse on, so a closed connection in
    TIME_WAIT does not count), and let go at once.
    """
    bare = check_host(host)
    try:
        infos = socket.getaddrinfo(bare, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as error:
        raise DashboardError(f"--host {host!r} is not an address this machine can listen on: {error}") from None
    for family, kind, proto, _name, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                raise DashboardError(
                    f"port {port} on {bare} is not free ({error.strerror or error}): is a dashboard "
                    f"already running there? Stop it, or pass --port with another port"
                ) from None


def serve(db: Path, host: str = "127.0.0.1", port: int = 8501, lake: str | None = None) -> None:
    """Replace this process with the Streamlit server (so stopping it stops the app)."""
    argv = streamlit_argv(host, port)
    check_port_free(host, port)
    os.execve(sys.executable, argv, app_environment(db, lake))
