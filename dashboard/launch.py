"""Build and run the `streamlit run` command line for the dashboard.

The server is Streamlit's own command line started through lanelog.dashboard.server, which
filters one notice of a dependency's (see there) and changes nothing else.

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
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

from lanelog.dashboard import signin
from lanelog.errors import DashboardError
from lanelog.framing import framed

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


# The module that runs Streamlit's command line in the server process (dashboard/server.py).
SERVER = "lanelog.dashboard.server"


def streamlit_argv(host: str, port: int) -> list[str]:
    """The full `streamlit run` command for the dashboard app, as the server process runs it."""
    host = check_host(host)
    return [
        sys.executable, "-P", "-m", SERVER, "run", str(APP),
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


def app_environment(db: Path, lake: str | None = None, sign_in: bool = False,
                    budgets: Path | None = None, today: date | None = None) -> dict[str, str]:
    """The environment for the app: this one, with LANELOG_DB set to the database
    and LANELOG_LAKE to the lake when the app reads one (unset otherwise),
    LANELOG_SIGN_IN=1 when the pages must pass the sign-in gate, LANELOG_BUDGETS
    to the budgets file and LANELOG_TODAY to the day they are judged on, when given
    (unset otherwise)."""
    env = dict(os.environ)
    for name, value in (("LANELOG_BUDGETS", budgets and str(budgets.expanduser().resolve())),
                        ("LANELOG_TODAY", today and today.isoformat())):
        env.pop(name, None)
        if value:
            env[name] = value
    env["PYTHONSAFEPATH"] = "1"
    env.pop("LANELOG_SIGN_IN", None)
    if sign_in:
        env["LANELOG_SIGN_IN"] = "1"
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


def check_exposure(host: str, auth: Path | None, no_auth: bool) -> None:
    """Refuse to serve an address other than loopback without sign-in, unless --no-auth says so.

    Every page shows raw lane-log lines and the uploader writes into the database,
    so whoever can reach the port must either sign in or be on a network the
    operator trusts, explicitly.
    """
    if auth is not None and no_auth:
        raise DashboardError("give either --auth FILE or --no-auth, not both")
    bare = check_host(host)
    if auth is None and not no_auth and not signin.is_loopback(bare):
        raise DashboardError(
            f"--host {host!r} is not a loopback address, and without sign-in anyone who reaches "
            "the port sees every lane-log line and may upload into the database: serve it with "
            "`lanelog dashboard --auth FILE` (docs/deploy.md), or `lanelog dashboard --no-auth` "
            "on a network you trust"
        )


def serve(db: Path, host: str = "127.0.0.1", port: int = 8501, lake: str | None = None,
          auth: Path | None = None, no_auth: bool = False, budgets: Path | None = None,
          today: date | None = None) -> int:
    """Run the Streamlit server until it stops; its exit code.

    Without sign-in this process becomes the server (so stopping it stops the app).
    With sign-in it runs the server as a child: the secrets file must be removed when
    the server stops, so this process stays to remove it, passing on the signals that stop it.
    """
    check_exposure(host, auth, no_auth)
    argv = streamlit_argv(host, port)
    if auth is None:
        check_port_free(host, port)
        os.execve(sys.executable, argv, app_environment(db, lake, budgets=budgets, today=today))
    settings = signin.load_auth(auth)
    if settings.address_proof == "none":
        print(unproven_addresses_warning(auth), file=sys.stderr, flush=True)
    open_to_others = signin.readable_by_others(auth)
    if open_to_others is not None:
        print(open_to_others, file=sys.stderr, flush=True)
    check_port_free(host, port)
    folder = Path(tempfile.mkdtemp(prefix="lanelog-signin-"))
    try:
        secrets = signin.write_secrets(settings, folder)
        return _run_child([*argv, "--secrets.files", str(secrets)],
                          app_environment(db, lake, sign_in=True, budgets=budgets, today=today))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def unproven_addresses_warning(auth: Path) -> str:
    """What the launcher says at start when the settings ask no proof of an address (address_proof = "none")."""
    return (f'WARNING: SIGN-IN CHECKS NO PROOF OF ANY ADDRESS (address_proof = "none" in {framed(str(auth))}): '
            "whoever the provider signs in with a listed address is let in, whether or not the address is theirs. "
            "Use it only with a provider whose every address is one its user owns and cannot change "
            "(docs/deploy.md).")


def _run_child(argv: list[str], env: dict[str, str]) -> int:
    """Run the server, pass SIGTERM, SIGINT and SIGHUP on to it, and return its exit code."""
    child = subprocess.Popen(argv, env=env)

    def forward(signum: int, _frame: object) -> None:
        child.send_signal(signum)

    previous = {signum: signal.signal(signum, forward) for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    try:
        while True:
            try:
                return child.wait()
            except InterruptedError:
                continue
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if child.poll() is None:
            child.kill()
            child.wait()
