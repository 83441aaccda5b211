"""A lake's files in an object store (s3://bucket/prefix, or any fsspec URL): the filesystem,
its credentials, and its failures in one line that never shows a secret.

Credentials come from the store's usual environment only (AWS_ACCESS_KEY_ID,
AWS_PROFILE, an instance role, ...), never from the URL.  A file is one put of
its final key: an upload becomes visible only when complete, and one that fails
is abandoned, never completed, so a reader sees the old object or the whole new one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from lanelog.errors import LakeError

# The environment variables whose values are secrets: never shown, whatever an error says
# (the object-store ingest redacts with the same list).
SECRET_VARIABLES = ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID",
                    "AZURE_STORAGE_KEY", "AZURE_STORAGE_CONNECTION_STRING")
# An upload goes in parts of this size (S3's least is 5 MiB, its most 10,000 parts).
_UPLOAD_PART = 16 * 1024 * 1024


class Bucket:
    """The lake's root as a prefix in an object store, read and written through fsspec."""

    def __init__(self, url: str, endpoint_url: str | None = None) -> None:
        self.name = url
        self.protocol, rest = url.split("://", 1)
        # A bucket's name has neither ':' nor '@': there, they are "KEY:SECRET@bucket".
        if any(mark in rest.split("/", 1)[0] for mark in ":@"):
            raise LakeError(f"{self.protocol}://...: a lake URL carries no credentials; "
                            "give them in the environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...)")
        self.root = rest.rstrip("/")
        if not self.root:
            raise LakeError(f"{url}: a lake URL names a bucket (and a prefix)")
        self.fs: Any = filesystem(url, endpoint_url)

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
            self._remote(self.fs.info, bucket, missing_ok=True)
        except _Missing:
            raise LakeError(f"cannot use the lake at {self.name}: the bucket {bucket} does not exist "
                            "(make it first; lanelog never creates buckets)") from None

    def exists(self, *parts: str) -> bool:
        return bool(self._remote(self.fs.exists, self.path(*parts)))

    def listdir(self, *parts: str) -> list[str]:
        """Names just below a prefix of the lake (none when nothing is there)."""
        where = self.path(*parts)
        if not self._remote(self.fs.exists, where):
            return []
        entries = self._remote(self.fs.ls, where, detail=False)
        return sorted(entry.rstrip("/").rsplit("/", 1)[-1] for entry in entries)

    def remove(self, *parts: str) -> None:
        """Remove an object, or every object below a prefix."""
        where = self.path(*parts)
        if self._remote(self.fs.exists, where):
            self._remote(self.fs.rm, where, recursive=True)

    def read_bytes(self, parts: tuple[str, ...], limit: int) -> bytes | None:
        """At most limit + 1 bytes of an object (so a caller can tell it is larger); None when it is not there."""
        try:
            data: bytes = self._remote(self.fs.cat_file, self.path(*parts), start=0, end=limit + 1,
                                       missing_ok=True)
        except _Missing:
            return None
        return data

    def write_bytes(self, parts: tuple[str, ...], data: bytes) -> None:
        """Replace a small object whole, in one put."""
        self._remote(self.fs.pipe_file, self.path(*parts), data)

    @contextmanager
    def replacing(self, parts: tuple[str, ...]) -> Iterator[Any]:
        """An upload of parts' key, completed when the block ends and abandoned when it fails."""
        sink = self._remote(self.fs.open, self.path(*parts), "wb", block_size=_UPLOAD_PART)
        try:
            yield sink
        except BaseException:
            sink.discard()
            sink.closed = True  # so that garbage collection does not complete the upload
            raise
        self._remote(sink.close)

    def remove_temporaries(self, folders: list[tuple[str, ...]]) -> int:
        """None to remove: an unfinished upload is never a visible object."""
        return 0

    @contextmanager
    def exclusive(self, parts: tuple[str, ...]) -> Iterator[bool]:
        """No lock: an object store has none, and one scheduled export per lake is the rule (docs/scale.md)."""
        yield True

    def _remote(self, call: Callable[..., Any], *args: Any, missing_ok: bool = False, **kwargs: Any) -> Any:
        """An fsspec call whose failures become one line naming the lake, never a secret."""
        try:
            return call(*args, **kwargs)
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


class _Missing(Exception):
    """A remote file that is not there (no lake yet, no bucket)."""


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def redacted(text: str) -> str:
    """text without the values of the credential variables in the environment."""
    for name in SECRET_VARIABLES:
        value = os.environ.get(name)
        if value and len(value) >= 4:
            text = text.replace(value, "***")
    return text


def filesystem(url: str, endpoint_url: str | None) -> Any:
    """The fsspec filesystem of url's protocol; credentials come from its usual environment only."""
    try:
        import fsspec
    except ImportError:
        raise LakeError(f"{url}: a lake URL needs fsspec and the package for its protocol "
                        "(pip install 'lanelog[s3]' for s3://); a local folder needs neither") from None
    protocol = url.split("://", 1)[0]
    # A fresh instance with no listing cache: a lake another process just exported is read as it is now.
    options: dict[str, Any] = {"skip_instance_cache": True}
    if protocol in ("s3", "s3a"):
        options["use_listings_cache"] = False
        endpoint = endpoint_url or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            options["endpoint_url"] = endpoint
    try:
        return fsspec.filesystem(protocol, **options)
    except (ImportError, ValueError, TypeError) as error:
        raise LakeError(f"{url}: cannot open this filesystem: {redacted(str(error))}") from None
