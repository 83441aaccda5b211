"""Lane logs in an object store (s3://bucket/prefix/): listed, fetched and read as files are.

CI jobs upload a log each, so a week is a prefix of thousands of small objects.
A run lists the prefix (S3 answers 1,000 keys a page; s3fs asks for the pages
one after another), leaves out every object read to its end before under the
same URL, ETag and size (one query of objects_read: no fetch), and fetches the
others concurrently, up to CONNECTIONS at a time, in windows of at most a
batch's logs and bytes.  What an object's bytes are, which log they continue
and where reading resumes is then settled exactly as for a file (by content:
ingest/identity.py, ingest/batch.py), so a copy under another key adds nothing
and an object rewritten under the same key with other bytes is a new log.

Every read of an object is pinned to the ETag it was listed with (If-Match),
so an object replaced between the listing and the read is never half read:
it is named in the errors and read on the next run.  The filesystem library is
fsspec with s3fs: it takes credentials from the standard environment (the
variables, a profile, an instance role) and serves gs:// and az:// through
gcsfs and adlfs, which are not tested here.
"""

from __future__ import annotations

import asyncio
import errno
import gzip
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lanelog.errors import IngestError
from lanelog.ingest.batch import BATCH_BYTES, BATCH_LOGS, SMALL_LOG_BYTES
from lanelog.ingest.logfile import LOG_SUFFIXES, LogStream, shown
from lanelog.store.bucket import redacted

# Connections to the store at once: enough to hide a round trip per small object,
# few enough for a CI runner and the store's request rate.
CONNECTIONS = 16
# Seconds to connect and to wait for an answer; attempts per request (the first
# included), so a store that went away fails a run in seconds, not minutes.
CONNECT_TIMEOUT_S = 10
READ_TIMEOUT_S = 60
ATTEMPTS = 3
S3_SCHEMES = ("s3", "s3a")
_CREDENTIALS_HINT = ("the credentials come from the environment: AWS_ACCESS_KEY_ID and "
                     "AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the instance role")


@dataclass(frozen=True)
class Listed:
    """One object as the listing gave it."""

    url: str
    size: int
    etag: str

    @property
    def small(self) -> bool:
        """Fetched whole, into the batch of small logs; a larger or gzip object is read in pieces."""
        return self.size <= SMALL_LOG_BYTES and not self.url.endswith(".gz")


class Fetched:
    """What fetching one object gave: its bytes, or the error (fatal: the store cannot be read at all)."""

    def __init__(self, data: bytes | None = None, error: IngestError | None = None, fatal: bool = False) -> None:
        self.data, self.error, self.fatal = data, error, fatal


class ObjectStore:
    """The store one URL names, through fsspec; s3fs for s3:// (and s3a://)."""

    def __init__(self, url: str, endpoint_url: str | None = None) -> None:
        parts = urlsplit(url)
        if "@" in parts.netloc or ":" in parts.netloc:  # no bucket name holds either: user:secret@
            raise IngestError(f"{_without_userinfo(url)}: credentials in a URL are refused; {_CREDENTIALS_HINT}")
        self.scheme = parts.scheme.lower()
        self.url = f"{self.scheme}://{url.partition('://')[2]}"  # S3://... as s3://...
        self.endpoint_url = endpoint_url or os.environ.get("AWS_ENDPOINT_URL") or None
        self.fs = _filesystem(self.scheme, self.endpoint_url, self.url)
        # The URL as listed objects' URLs begin: objects_read is looked up by it.
        self.prefix = f"{self.scheme}://{self.fs._strip_protocol(self.url)}"

    def listing(self) -> list[Listed]:
        """Every *.jsonl and *.jsonl.gz object below the URL (or the object it names), in key order."""
        path = self.fs._strip_protocol(self.url)
        try:
            found = self.fs.find(path, detail=True)
        except Exception as exc:  # noqa: BLE001 - every store error becomes one message naming the URL
            raise self.error(self.url, exc, "cannot be listed") from None
        if not found and self.fs.split_path(path)[1]:
            # A key that is no object and begins none: a typo, as a missing path is on disk.
            # (A bucket with nothing in it yet is empty, not missing.)
            raise IngestError(f"{shown(self.url)}: no such object, and no object below it{self._where()}")
        listed = []
        for name, info in sorted(found.items()):
            if info.get("type") == "directory" or not name.endswith(LOG_SUFFIXES):
                continue
            listed.append(Listed(f"{self.scheme}://{name}", int(info.get("size") or 0), _tag(info)))
        return listed

    def fetch(self, objects: list[Listed]) -> list[Fetched]:
        """The bytes of each object, fetched CONNECTIONS at a time, each pinned to its listed ETag."""
        if self.scheme in S3_SCHEMES:
            from fsspec.asyn import sync

            return sync(self.fs.loop, self._fetch_s3, objects)
        results = []
        for listed in objects:  # gs://, az://: one at a time (untested here)
            try:
                results.append(Fetched(self.fs.cat_file(self.fs._strip_protocol(listed.url))))
            except Exception as exc:  # noqa: BLE001
                results.append(self._failed(listed, exc))
        return results

    async def _fetch_s3(self, objects: list[Listed]) -> list[Fetched]:
        gate = asyncio.Semaphore(CONNECTIONS)

        async def one(listed: Listed) -> Fetched:
            bucket, key, _ = self.fs.split_path(listed.url)
            async with gate:
                try:
                    response = await self.fs._call_s3("get_object", Bucket=bucket, Key=key, IfMatch=listed.etag)
                    try:
                        return Fetched(await response["Body"].read())
                    finally:
                        response["Body"].close()
                except Exception as exc:  # noqa: BLE001
                    return self._failed(listed, exc)

        return list(await asyncio.gather(*(one(listed) for listed in objects)))

    def open(self, listed: Listed) -> LogStream:
        """A large or gzip object as a log read in pieces, every read pinned to the listed ETag."""
        path = self.fs._strip_protocol(listed.url)
        try:
            fileobj: Any = self.fs.open(path, "rb", cache_type="readahead")
        except Exception as exc:  # noqa: BLE001
            failed = self._failed(listed, exc)
            assert failed.error is not None
            raise failed.error from None
        seen = getattr(fileobj, "details", {}).get("ETag", listed.etag)
        if seen != listed.etag:
            fileobj.close()
            raise _replaced(listed.url)
        if listed.url.endswith(".gz"):
            return LogStream(listed.url, gzip.GzipFile(fileobj=fileobj, mode="rb"), None, held=True)
        return LogStream(listed.url, fileobj, listed.size, held=True)

    def _failed(self, listed: Listed, exc: Exception) -> Fetched:
        if isinstance(exc, FileNotFoundError):
            return Fetched(error=IngestError(f"{shown(listed.url)}: deleted between the listing and the read; "
                                             "nothing of it is stored"))
        if _precondition_failed(exc):
            return Fetched(error=_replaced(listed.url))
        return Fetched(error=self.error(listed.url, exc, "cannot be read"), fatal=True)

    def _where(self) -> str:
        """The ` at ENDPOINT` an error names when an endpoint is given (empty for AWS itself)."""
        return f" at {_without_userinfo(self.endpoint_url)}" if self.endpoint_url else ""

    def error(self, url: str, exc: BaseException, what: str) -> IngestError:
        """An error naming the URL and what to do, with no secret in it."""
        where = self._where()
        if isinstance(exc, IngestError):
            return exc
        if isinstance(exc, FileNotFoundError):
            return IngestError(f"{shown(url)}: no such bucket{where}")
        if isinstance(exc, PermissionError):
            return IngestError(f"{shown(url)}: {what}: access denied (wrong or missing credentials, or no "
                               f"permission); {_CREDENTIALS_HINT}")
        name = type(exc).__name__
        if name in ("NoCredentialsError", "PartialCredentialsError"):
            return IngestError(f"{shown(url)}: {what}: no credentials found; {_CREDENTIALS_HINT}")
        return IngestError(f"{shown(url)}: {what}: the store{where} did not answer as expected "
                           f"({name}: {redacted(str(exc))}); what was read before is stored, run ingest again")


def windows(objects: list[Listed]) -> Iterator[list[Listed]]:
    """The objects in listing order, in windows of at most a batch's logs and bytes of small ones."""
    window: list[Listed] = []
    size = 0
    for listed in objects:
        if window and (len(window) >= BATCH_LOGS or size + min(listed.size, SMALL_LOG_BYTES) > BATCH_BYTES):
            yield window
            window, size = [], 0
        window.append(listed)
        size += min(listed.size, SMALL_LOG_BYTES)
    if window:
        yield window


def _filesystem(scheme: str, endpoint_url: str | None, url: str) -> Any:
    try:
        import fsspec
    except ImportError:
        raise IngestError(f"{shown(url)}: reading an object store needs the s3 extra: "
                          "pip install 'lanelog[s3]'") from None
    if scheme in S3_SCHEMES:
        try:
            import s3fs
        except ImportError:
            raise IngestError(f"{shown(url)}: reading s3:// needs the s3 extra: pip install 'lanelog[s3]'") from None
        client_kwargs = {"endpoint_url": endpoint_url} if endpoint_url else {}
        return s3fs.S3FileSystem(
            skip_instance_cache=True, use_listings_cache=False, client_kwargs=client_kwargs,
            config_kwargs={"max_pool_connections": CONNECTIONS, "connect_timeout": CONNECT_TIMEOUT_S,
                           "read_timeout": READ_TIMEOUT_S,
                           "retries": {"max_attempts": ATTEMPTS, "mode": "standard"}},
        )
    try:
        return fsspec.filesystem(scheme, skip_instance_cache=True)
    except (ImportError, ValueError) as exc:
        raise IngestError(f"{shown(url)}: no filesystem for {scheme}:// ({redacted(str(exc))})") from None


def _tag(info: dict[str, Any]) -> str:
    """The object's version tag from a listing: S3's ETag (gcsfs and adlfs name theirs otherwise)."""
    for key in ("ETag", "etag", "md5Hash", "generation"):
        if info.get(key):
            return str(info[key])
    return ""


def _precondition_failed(exc: BaseException) -> bool:
    """Whether the store refused a read pinned to an ETag: the object is another one now (HTTP 412)."""
    if not (isinstance(exc, OSError) and exc.errno == errno.EINVAL):
        return False
    cause = exc.__cause__
    response = getattr(cause, "response", None)
    if isinstance(response, dict):
        return response.get("Error", {}).get("Code") in ("PreconditionFailed", "412")
    return "precondition" in str(exc).lower().replace("-", "")


def _replaced(url: str) -> IngestError:
    return IngestError(f"{shown(url)}: replaced between the listing and the read; nothing of it is "
                       "stored, and the next run reads it")


def _without_userinfo(url: str) -> str:
    """The URL with everything between the scheme and the last @ left out (a secret may hold a /)."""
    scheme, _, rest = url.partition("://")
    if "@" in rest:
        rest = rest.rsplit("@", 1)[1]
    elif ":" in rest.split("/", 1)[0] and scheme not in ("http", "https"):
        rest = "(hidden)"  # s3://key:secret/...: no bucket name holds a colon
    return shown(f"{scheme}://{rest}")
