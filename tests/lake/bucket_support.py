"""A bucket lake for the tests that read one: the generated database exported to moto, read through a proxy.

HookedProxy runs a hook before it forwards the first read of an object whose key holds a
given fragment (or every such read): a test can replace that object between the listing and
the read, or hold the reads while it looks at the page.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lanelog import store
from tests.ingest.s3server import S3, Proxy

_OBJECT_READ = re.compile(rb"^GET (/[^?\s]*) HTTP/1\.[01]\r\n")


@dataclass
class HookedProxy(Proxy):
    """A Proxy that runs hooks[fragment]() before forwarding the first object read whose key holds
    fragment (each such read when `every`)."""

    hooks: dict[str, Callable[[], None]] = field(default_factory=dict)
    every: bool = False

    def _request(self, data: bytes) -> bool:
        read = _OBJECT_READ.match(data)
        if read is not None:
            path = urllib.parse.unquote(read[1].decode())
            for fragment in [fragment for fragment in self.hooks if fragment in path]:
                (self.hooks[fragment] if self.every else self.hooks.pop(fragment))()
        return bool(super()._request(data))


def proxy_to(s3: S3, hooks: dict[str, Callable[[], None]] | None = None, every: bool = False) -> HookedProxy:
    """A proxy on a port of its own in front of the server."""
    host, port = s3.endpoint.rsplit("/", 1)[1].split(":")
    return HookedProxy((host, int(port)), hooks=hooks or {}, every=every)


def export_to_bucket(s3: S3, db: Path, prefix: str = "team/lake") -> str:
    """db exported to a new bucket of its own (straight to the server); the lake's URL."""
    url = f"s3://{s3.bucket()}/{prefix}"
    con = store.open_db(db, read_only=True)
    try:
        store.export_lake(con, url, endpoint_url=s3.endpoint)
    finally:
        con.close()
    return url


def weeks_read(proxy: Proxy) -> list[str]:
    """The week partitions whose objects were read through the proxy, in order, once each."""
    seen: list[str] = []
    for path in map(urllib.parse.unquote, proxy.object_reads()):
        if "/attempts/week=" in path:
            week = path.split("/attempts/week=")[1].split("/")[0]
            if week not in seen:
                seen.append(week)
    return seen
