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

Every wait on the store ends by a deadline for the whole of it (StoreTimeouts): the
listing of a URL, every page and retry included, and each request for an object or
a piece of one, its whole answer included.  A store that accepts and never answers,
or answers a byte a second, ends the URL with one error within that time.
"""

from __future__ import annotations

import asyncio
import errno
import gzip
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from lanelog.errors import IngestError
from lanelog.ingest.batch import BATCH_BYTES, BATCH_LOGS, SMALL_LOG_BYTES
from lanelog.ingest.logfile import LOG_SUFFIXES, LogStream, shown
from lanelog.store import LISTING_TIMEOUT_S, REQUEST_TIMEOUT_S, RequestTimeout, bounded, redacted, s3_filesystem
from lanelog.urls import shown_url

# Connections to the store at once: enough to hide a round trip per small object,
# few enough for a CI runner and the store's request rate.
CONNECTIONS = 16
# A larger object is fetched in ranges of this size, each one request with its deadline.
PIECE_BYTES = 8 * 1024 * 1024
S3_SCHEMES = ("s3", "s3a")
_CREDENTIALS_HINT = ("the credentials come from the environment: AWS_ACCESS_KEY_ID and "
                     "AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the instance role")


@dataclass(frozen=True)
class StoreTimeouts:
    """The deadlines of an object-store ingest, in seconds, each for the whole of what it names.

    request: one request for an object, or a piece of one (connecting, botocore's three
    attempts and the whole answer); listing: the whole listing of one URL, every page.
    """

    request: float = REQUEST_TIMEOUT_S
    listing: float = LISTING_TIMEOUT_S
    # What sets each, named in the error a deadline ends a run with.
    names: tuple[str, str] = field(default=("--store-timeout", "--list-timeout"), compare=False)


class StoreSilent(IngestError):
    """The store did not answer within a deadline: the rest of the URL waits for the next run."""


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

    def __init__(self, url: str, endpoint_url: str | None = None, timeouts: StoreTimeouts | None = None) -> None:
        parts = urlsplit(url)
        # No bucket name holds "@" or ":" (user:secret@), and a query string is where a presigned
        # token or DuckDB's s3_secret_access_key would go.
        if "@" in parts.netloc or ":" in parts.netloc or "?" in url or "#" in url:
            raise IngestError(f"{_without_userinfo(url)}: credentials in a URL are refused; {_CREDENTIALS_HINT}")
        self.scheme = parts.scheme.lower()
        self.url = f"{self.scheme}://{url.partition('://')[2]}"  # S3://... as s3://...
        self.endpoint_url = endpoint_url or os.environ.get("AWS_ENDPOINT_URL") or None
        self.timeouts = timeouts or StoreTimeouts()
        self.fs = _filesystem(self.scheme, self.endpoint_url, self.url, self.timeouts.request)
        # The URL as listed objects' URLs begin: objects_read is looked up by it.
        self.prefix = f"{self.scheme}://{self.fs._strip_protocol(self.url)}"

    def listing(self) -> list[Listed]:
        """Every *.jsonl and *.jsonl.gz object below the URL (or the object it names), in key order."""
        path = self.fs._strip_protocol(self.url)
        try:
            found = bounded(self.fs, "find", path, detail=True, timeout=self.timeouts.listing)
        except RequestTimeout:
            raise self.silent(self.url, "cannot be listed", self.timeouts.request, self.timeouts.names[0]) from None
        except TimeoutError:
            raise self.silent(self.url, "cannot be listed", self.timeouts.listing, self.timeouts.names[1]) from None
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
        results: list[Fetched] = []
        for listed in objects:  # gs://, az://: one at a time (untested here)
            if results and results[-1].fatal:
                results.append(results[-1])  # the store is gone: the rest waits for the next run
                continue
            try:
                data = bounded(self.fs, "cat_file", self.fs._strip_protocol(listed.url),
                               timeout=self.timeouts.request)
                results.append(Fetched(data))
            except Exception as exc:  # noqa: BLE001
                results.append(self._failed(listed, exc))
        return results

    async def _fetch_s3(self, objects: list[Listed]) -> list[Fetched]:
        gate = asyncio.Semaphore(CONNECTIONS)
        gone: list[Fetched] = []  # the first fatal failure: objects not yet asked for are not

        async def one(listed: Listed) -> Fetched:
            async with gate:
                if gone:
                    return gone[0]
                try:
                    return Fetched(await asyncio.wait_for(self._get(listed), self.timeouts.request))
                except Exception as exc:  # noqa: BLE001
                    failed = self._failed(listed, exc)
                    if failed.fatal:
                        gone.append(failed)
                    return failed

        return list(await asyncio.gather(*(one(listed) for listed in objects)))

    async def _get(self, listed: Listed, start: int | None = None, end: int | None = None) -> bytes:
        """An object's bytes (from start up to, not including, end), pinned to its listed ETag."""
        bucket, key, _ = self.fs.split_path(listed.url)
        pieces = {"Range": f"bytes={start}-{end - 1}"} if start is not None and end is not None else {}
        response = await self.fs._call_s3("get_object", Bucket=bucket, Key=key, IfMatch=listed.etag, **pieces)
        try:
            data: bytes = await response["Body"].read()
            return data
        finally:
            response["Body"].close()

    def open(self, listed: Listed) -> LogStream:
        """A large or gzip object as a log read in pieces, every read pinned to the listed ETag."""
        if self.scheme in S3_SCHEMES:
            pieces = io.BufferedReader(_Pieces(self, listed), buffer_size=PIECE_BYTES)
            if listed.url.endswith(".gz"):
                return LogStream(listed.url, gzip.GzipFile(fileobj=pieces, mode="rb"), None, held=True)
            return LogStream(listed.url, pieces, listed.size, held=True)
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

    def piece(self, listed: Listed, start: int, end: int) -> bytes:
        """Bytes start..end of an object in one request within its deadline; a failure raised as the
        IngestError that names it (a StoreSilent when the store did not answer in time)."""
        from fsspec.asyn import sync

        try:
            data: bytes = sync(self.fs.loop, self._get, listed, start, end, timeout=self.timeouts.request)
            return data
        except Exception as exc:  # noqa: BLE001 - each failure becomes the error naming the object
            failed = self._failed(listed, exc)
            assert failed.error is not None
            raise failed.error from None

    def _failed(self, listed: Listed, exc: Exception) -> Fetched:
        if isinstance(exc, TimeoutError):
            return Fetched(error=self.silent(listed.url, "cannot be read", self.timeouts.request,
                                             self.timeouts.names[0]), fatal=True)
        if isinstance(exc, FileNotFoundError):
            return Fetched(error=IngestError(f"{shown(listed.url)}: deleted between the listing and the read; "
                                             "nothing of it is stored"))
        if _precondition_failed(exc):
            return Fetched(error=_replaced(listed.url))
        return Fetched(error=self.error(listed.url, exc, "cannot be read"), fatal=True)

    def _where(self) -> str:
        """The ` at ENDPOINT` an error names when an endpoint is given (empty for AWS itself)."""
        return f" at {_without_userinfo(self.endpoint_url)}" if self.endpoint_url else ""

    def silent(self, url: str, what: str, seconds: float, option: str) -> StoreSilent:
        """The error of a deadline passed: the store accepted, or began to answer, but did not finish."""
        return StoreSilent(f"{shown(url)}: {what}: the store{self._where()} did not answer within {seconds:g} s "
                           f"({option}); what was read before is stored, run ingest again")

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


def _filesystem(scheme: str, endpoint_url: str | None, url: str, timeout: float) -> Any:
    try:
        import fsspec
    except ImportError:
        raise IngestError(f"{shown(url)}: reading an object store needs the s3 extra: "
                          "pip install 'lanelog[s3]'") from None
    if scheme in S3_SCHEMES:
        try:
            return s3_filesystem(endpoint_url, timeout, CONNECTIONS)
        except ImportError:
            raise IngestError(f"{shown(url)}: reading s3:// needs the s3 extra: pip install 'lanelog[s3]'") from None
    try:
        return fsspec.filesystem(scheme, skip_instance_cache=True)
    except (ImportError, ValueError) as exc:
        raise IngestError(f"{shown(url)}: no filesystem for {scheme}:// ({redacted(str(exc))})") from None


class _Pieces(io.RawIOBase):
    """An S3 object read by ranges of at most PIECE_BYTES: each one request, pinned to the listed
    ETag and ended by the request deadline (s3fs's own file reads wait on a store without end)."""

    def __init__(self, store: ObjectStore, listed: Listed) -> None:
        self._store, self._listed, self._at = store, listed, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._at

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._at, io.SEEK_END: self._listed.size}[whence]
        self._at = max(0, base + offset)
        return self._at

    def readinto(self, buffer: Any) -> int:
        end = min(self._at + len(buffer), self._at + PIECE_BYTES, self._listed.size)
        if end <= self._at:
            return 0
        data = self._store.piece(self._listed, self._at, end)
        buffer[:len(data)] = data
        self._at += len(data)
        return len(data)


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
    """The URL as a message names it: no user info (a secret may hold a /), query string or fragment."""
    return shown(shown_url(url))
