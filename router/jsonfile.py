"""JSON inputs nobody vouches for, read bounded: an event payload, a reviews or a label-events file.

Only a regular file is read: it is opened without blocking and checked on the descriptor, so a
FIFO or a device named in its place cannot hang the job, and a folder is named as one.  At most
MAX_BYTES are read, as UTF-8, as strict JSON (NaN and Infinity are no numbers, RFC 8259); a file
nested deeper than the parser goes, or with a number of more digits than Python converts, is
"not JSON", never a crash.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

from lanelog.errors import InputFileInvalid
from lanelog.files import NotRegular, read_regular

# GitHub delivers no webhook payload larger than 25 MB; `gh api --paginate` output of a pull
# request's reviews or events is far smaller.
MAX_BYTES = 25 * 1024 * 1024
_SOMETHING = re.compile(r"[^ \t\n\r]")   # not JSON's white space (pages of `gh api --paginate` may be apart)


def read_text(path: Path, named: str) -> str:
    """The file's text; InputFileInvalid naming it (``named``) when it is no regular UTF-8 file of at most MAX_BYTES."""
    try:
        data = read_regular(path, MAX_BYTES)
    except NotRegular as error:
        raise InputFileInvalid(f"{named}: is a folder, not a file" if stat.S_ISDIR(error.mode)
                               else f"{named}: is not a regular file (a FIFO, a device or a socket)") from None
    except OSError as error:
        raise InputFileInvalid(f"{named}: cannot be read ({error.strerror or error})") from None
    if data is None:
        raise InputFileInvalid(f"{named}: is larger than {MAX_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputFileInvalid(f"{named}: is not UTF-8 text (byte {error.start})") from None


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _decoder() -> json.JSONDecoder:
    return json.JSONDecoder(parse_constant=_refuse)


def _not_json(named: str, error: ValueError | RecursionError) -> InputFileInvalid:
    where = f" (line {error.lineno}, column {error.colno}: {error.msg})" if isinstance(error, json.JSONDecodeError) \
        else " (nested too deeply)" if isinstance(error, RecursionError) else f" ({str(error)[:80]})"
    return InputFileInvalid(f"{named}: is not JSON{where}")


def read_json(path: Path, named: str) -> Any:
    """The file's one JSON value."""
    text = read_text(path, named)
    try:
        return _decoder().decode(text)
    except (ValueError, RecursionError) as error:
        raise _not_json(named, error) from None


def read_pages(path: Path, named: str) -> list[Any]:
    """The JSON values of the file, one after another: `gh api --paginate` prints each page's
    array in turn, with no array around them."""
    text = read_text(path, named)
    decoder, pages, at = _decoder(), [], 0
    try:
        while (start := _SOMETHING.search(text, at)) is not None:
            page, at = decoder.raw_decode(text, start.start())
            pages.append(page)
    except (ValueError, RecursionError) as error:
        raise _not_json(named, error) from None
    return pages
