"""A lake's files in an object store (s3://bucket/prefix, or any fsspec URL): the filesystem,
its credentials, and its failures in one line that never shows a secret.

Credentials come from the store's usual environment only (AWS_ACCESS_KEY_ID,
AWS_PROFILE, an instance role, ...), never from the URL.  A file is one put of
its final key: an upload becomes visible only when complete, and one that fails
is abandoned, never completed, so a reader sees the old object or the whole new one.

Every wait on the store has a deadline for the whole of it, not only for each read
of the socket (a store that accepts and never answers, or answers a byte a second,
would pass any per-read timeout): one request (connecting, every retry, the whole
answer) at most REQUEST_TIMEOUT_S, or $LANELOG_STORE_TIMEOUT seconds.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache
from typing import Any

from lanelog.errors import LakeError
from lanelog.urls import shown_url, without_url_secrets

# The environment variables whose values are secrets: never shown, whatever an error says
# (the object-store ingest redacts with the same list).
SECRET_VARIABLES = ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID",
                    "AZURE_STORAGE_KEY", "AZURE_STORAGE_CONNECTION_STRING")
# An upload goes in parts of this size (S3's least is 5 MiB, its most 10,000 parts).
_UPLOAD_PART = 16 * 1024 * 1024
# Seconds to connect to a store; the longest one request may take as a whole (every retry
# included), unless $LANELOG_STORE_TIMEOUT says otherwise; attempts per request, the first
# included (botocore's "standard" retries: throttling, 5xx, a connection that failed).
CONNECT_TIMEOUT_S = 10.0
REQUEST_TIMEOUT_S = 60.0
STORE_TIMEOUT_VARIABLE = "LANELOG_STORE_TIMEOUT"
ATTEMPTS = 3
# The longest a whole listing of a prefix may take (seconds): S3 answers 1,000 keys a
# page, a page in well under a second, so a prefix of a million objects lists in minutes.
LISTING_TIMEOUT_S = 600.0


class Bucket:
    """The lake's root as a prefix in an object store, read and written through fsspec."""

    def __init__(self, url: str, endpoint_url: str | None = None, timeout: float | None = None) -> None:
        self.name = shown_url(url)  # what every message names: no query string or user info
        self.timeout = request_timeout(timeout)
        self.protocol, rest = url.split("://", 1)
        # A bucket's name has neither ':' nor '@': there, they are "KEY:SECRET@bucket"; and a query
        # string or fragment is where DuckDB's s3_secret_access_key or a presigned token would go.
        if any(mark in rest.split("/", 1)[0] for mark in ":@"):
            raise LakeError(f"{self.protocol}://...: a lake URL carries no credentials; "
                            "give them in the environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...)")
        if any(mark in rest for mark in "?#"):
            raise LakeError(f"{self.name}: a lake URL has no query string; credentials come from the "
                            "environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...)")
        self.root = rest.rstrip("/")
        if not self.root:
            raise LakeError(f"{self.name}: a lake URL names a bucket (and a prefix)")
        self.fs: Any = filesystem(url, endpoint_url, self.timeout)

    def path(self, *parts: str) -> str:
        """The key of a file or folder inside the lake, as the filesystem names it."""
        return "/".join([self.root, *parts])

    def url(self, *parts: str) -> str:
        """What a reader (DuckDB, Spark) opens: the key with its protocol."""
        return f"{self.protocol}://{self.path(*parts)}"

    def check_root(self, create: bool) -> None:
        """Fail early, naming the URL, when the bucket is missing or the credentials do not open it.

        A prefix needs no making: an object store has no folders.
        """
        bucket = self.root.split("/", 1)[0]
        try:
            self._remote("info", bucket, missing_ok=True)
        except _Missing:
            raise LakeError(f"cannot use the lake at {self.name}: the bucket {bucket} does not exist "
                            "(make it first; lanelog never creates buckets)") from None

    def exists(self, *parts: str) -> bool:
        return bool(self._remote("exists", self.path(*parts)))

    def listdir(self, *parts: str) -> list[str]:
        """Names just below a prefix of the lake (none when nothing is there)."""
        where = self.path(*parts)
        if not self._remote("exists", where):
            return []
        entries = self._remote("ls", where, detail=False)
        return sorted(entry.rstrip("/").rsplit("/", 1)[-1] for entry in entries)

    def listing(self) -> dict[str, dict[str, Any]]:
        """Every object below the lake's root and what the store says of it (its size and time), by key:
        one listing (a request per 1,000 objects) instead of a request per object."""
        found: dict[str, dict[str, Any]] = self._remote("find", self.root, detail=True)
        return found

    def remove(self, *parts: str) -> None:
        """Remove an object, or every object below a prefix."""
        where = self.path(*parts)
        if self._remote("exists", where):
            self._remote("rm", where, recursive=True)

    def read_bytes(self, parts: tuple[str, ...], limit: int) -> bytes | None:
        """At most limit + 1 bytes of an object (so a caller can tell it is larger); None when it is not there."""
        try:
            data: bytes = self._remote("cat_file", self.path(*parts), start=0, end=limit + 1, missing_ok=True)
        except _Missing:
            return None
        return data

    def write_bytes(self, parts: tuple[str, ...], data: bytes) -> None:
        """Replace a small object whole, in one put."""
        self._remote("pipe_file", self.path(*parts), data)

    @contextmanager
    def replacing(self, parts: tuple[str, ...]) -> Iterator[Any]:
        """An upload of parts' key, completed when the block ends and abandoned when it fails."""
        # Each request of the upload (a part, the completion) has the store's deadline (s3_filesystem).
        sink = self._remote("open", self.path(*parts), "wb", block_size=_UPLOAD_PART)
        try:
            yield sink
        except BaseException as error:
            with suppress(LakeError):  # an upload never completed is never seen, aborted or not
                self._remote(sink.discard)
            sink.closed = True  # so that garbage collection does not complete the upload
            if isinstance(error, TimeoutError):  # a part the store took too long to take
                raise self._timed_out() from None
            raise
        self._remote(sink.close)

    def remove_temporaries(self, folders: list[tuple[str, ...]]) -> int:
        """None to remove: an unfinished upload is never a visible object."""
        return 0

    @contextmanager
    def exclusive(self, parts: tuple[str, ...]) -> Iterator[bool]:
        """No lock: an object store has none, and one scheduled export per lake is the rule (docs/scale.md)."""
        yield True

    def _remote(self, call: Callable[..., Any] | str, *args: Any, missing_ok: bool = False, **kwargs: Any) -> Any:
        """An fsspec call (a method of the filesystem, by name, or any callable) whose failures become
        one line naming the lake, never a secret; a call by name ends within the store's deadline."""
        try:
            if isinstance(call, str):
                return bounded(self.fs, call, *args, timeout=self.timeout, **kwargs)
            return call(*args, **kwargs)
        except TimeoutError:
            raise self._timed_out() from None
        except FileNotFoundError as error:
            if missing_ok:
                raise _Missing() from None
            raise LakeError(f"cannot use the lake at {self.name}: {redacted(str(error)) or 'not found'}") \
                from None
        except PermissionError as error:
            raise LakeError(f"cannot use the lake at {self.name}: access denied "
                            f"({redacted(str(error)) or 'forbidden'}); check the credentials in the "
                            "environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...)") from None
        except Exception as error:  # noqa: BLE001 - an OSError, or the client library's own (botocore's)
            raise LakeError(f"cannot use the lake at {self.name}: {redacted(_first_line(error))}") from None


    def _timed_out(self) -> LakeError:
        return LakeError(f"cannot use the lake at {self.name}: the store did not answer within "
                         f"{self.timeout:g} s (${STORE_TIMEOUT_VARIABLE} sets the seconds)")


class RequestTimeout(TimeoutError):
    """One request to the store did not finish within its deadline (inside a longer call, such as a listing)."""


class _Missing(Exception):
    """A remote file that is not there (no lake yet, no bucket)."""


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def redacted(text: str) -> str:
    """text without the values of the credential variables in the environment, and every URL in it
    without its query string and user info (lanelog.urls)."""
    for name in SECRET_VARIABLES:
        value = os.environ.get(name)
        if value and len(value) >= 4:
            text = text.replace(value, "***")
    return without_url_secrets(text)


def filesystem(url: str, endpoint_url: str | None, timeout: float = REQUEST_TIMEOUT_S) -> Any:
    """The fsspec filesystem of url's protocol; credentials come from its usual environment only."""
    try:
        import fsspec
    except ImportError:
        raise LakeError(f"{shown_url(url)}: a lake URL needs fsspec and the package for its protocol "
                        "(pip install 'lanelog[s3]' for s3://); a local folder needs neither") from None
    protocol = url.split("://", 1)[0]
    try:
        if protocol in ("s3", "s3a"):
            endpoint = endpoint_url or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
            return s3_filesystem(endpoint, timeout)
        # A fresh instance: a lake another process just exported is read as it is now.
        return fsspec.filesystem(protocol, skip_instance_cache=True)
    except (ImportError, ValueError, TypeError) as error:
        raise LakeError(f"{shown_url(url)}: cannot open this filesystem: {redacted(str(error))}") from None


def request_timeout(given: float | None = None) -> float:
    """The store's deadline for one request: the one given, else $LANELOG_STORE_TIMEOUT, else REQUEST_TIMEOUT_S."""
    if given is not None:
        return given
    text = os.environ.get(STORE_TIMEOUT_VARIABLE, "").strip()
    if not text:
        return REQUEST_TIMEOUT_S
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise LakeError(f"{STORE_TIMEOUT_VARIABLE}={text}: give the seconds one request to the object store "
                        "may take, e.g. 60")
    return value


def s3_filesystem(endpoint_url: str | None, timeout: float, connections: int = 10) -> Any:
    """s3fs with every request bounded as a whole by `timeout` seconds (connect at most
    CONNECT_TIMEOUT_S, ATTEMPTS attempts by botocore, none more by s3fs) and no listing cache."""
    return _bounded_s3()(
        request_timeout=timeout, skip_instance_cache=True, use_listings_cache=False,
        client_kwargs={"endpoint_url": endpoint_url} if endpoint_url else {},
        config_kwargs={"max_pool_connections": connections, "connect_timeout": min(CONNECT_TIMEOUT_S, timeout),
                       "read_timeout": timeout, "retries": {"max_attempts": ATTEMPTS, "mode": "standard"}},
    )


@cache
def _bounded_s3() -> Any:
    """s3fs's filesystem whose every request (each page of an upload, each metadata call) has a deadline.

    botocore bounds each read of the socket only; a request made of reads that each
    come in time (a byte a second) is ended here, by asyncio, as a whole.
    """
    import s3fs

    class BoundedS3(s3fs.S3FileSystem):  # type: ignore[misc]
        retries = 1  # botocore's attempts are the retries: s3fs's own five would multiply them

        def __init__(self, *args: Any, request_timeout: float, **kwargs: Any) -> None:
            self.request_timeout = request_timeout
            super().__init__(*args, **kwargs)

        async def _call_s3(self, method: str, *args: Any, **kwargs: Any) -> Any:
            try:
                return await asyncio.wait_for(super()._call_s3(method, *args, **kwargs), self.request_timeout)
            except TimeoutError:
                raise RequestTimeout(f"{method}: no answer within {self.request_timeout:g} s") from None

    return BoundedS3


def bounded(fs: Any, name: str, *args: Any, timeout: float, **kwargs: Any) -> Any:
    """fs.name(*args, **kwargs), ended with TimeoutError when it has not finished within `timeout` s.

    An asynchronous filesystem (s3fs, gcsfs, adlfs) runs the call's coroutine under a
    deadline for the whole of it, every request and retry inside; any other runs as it is.
    """
    coroutine = getattr(fs, f"_{name}", None)
    if not getattr(fs, "async_impl", False) or not inspect.iscoroutinefunction(coroutine):
        return getattr(fs, name)(*args, **kwargs)
    from fsspec.asyn import sync

    try:
        return sync(fs.loop, coroutine, *args, timeout=timeout, **kwargs)
    except TimeoutError as error:  # fsspec's, which holds the request's own as its cause
        if isinstance(error.__cause__, RequestTimeout):
            raise error.__cause__ from None
        raise
