"""A server of the tests (any socketserver server: the standard library's, werkzeug's), serving on 127.0.0.1
in a thread until a block ends."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# How often the serving loop looks whether it was told to stop.  shutdown() waits for it, so
# serve_forever's default (half a second) was half a second at the end of every test.
POLL_S = 0.02


@contextmanager
def serving(server: socketserver.BaseServer) -> Iterator[None]:
    """Serve `server` in a daemon thread for the block; then stop it, close its socket and join it."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
