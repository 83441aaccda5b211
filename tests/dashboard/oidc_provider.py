"""A real OpenID Connect provider on 127.0.0.1 for the sign-in tests: oidc-provider-mock, served by werkzeug
in a thread of the test process."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import oidc_provider_mock
from werkzeug.serving import make_server

from tests.loopback import serving


@contextmanager
def running_provider() -> Iterator[str]:
    """The provider, up until the block ends: its base URL (its metadata is at /.well-known/openid-configuration)."""
    server = make_server("127.0.0.1", 0, oidc_provider_mock.app(), threaded=True)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_port}"
