"""A real OpenID Connect provider on 127.0.0.1 for the sign-in tests: oidc-provider-mock, served by werkzeug
in a thread of the test process."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import oidc_provider_mock
from werkzeug.serving import make_server


@contextmanager
def running_provider() -> Iterator[str]:
    """The provider, up until the block ends: its base URL (its metadata is at /.well-known/openid-configuration).

    At the end, shutdown() returns once the serving loop has stopped; the pool then lets its thread go
    and the server closes its socket."""
    server = make_server("127.0.0.1", 0, oidc_provider_mock.app(), threaded=True)
    with server, ThreadPoolExecutor(1) as pool:
        pool.submit(server.serve_forever, poll_interval=0.1)
        try:
            yield f"http://127.0.0.1:{server.server_port}"
        finally:
            server.shutdown()
