"""lanelog.files: the guarded open reads regular files only, and the appender writes whole pieces."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from lanelog.files import NotRegular, append, kind, open_lock, read_regular


def test_a_regular_file_is_read_whole_up_to_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b"x" * 10)
    assert read_regular(path, 10) == b"x" * 10
    assert read_regular(path, 9) is None


def test_a_fifo_is_refused_at_once_and_named(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotRegular) as refused:
        read_regular(fifo, 100)
    assert (refused.value.kind, refused.value.strerror) == ("a FIFO", "it is a FIFO, not a regular file")


def test_a_folder_and_a_device_are_named_as_what_they_are(tmp_path: Path) -> None:
    with pytest.raises(NotRegular, match="it is a folder, not a regular file"):
        read_regular(tmp_path, 100)
    with pytest.raises(NotRegular, match="it is a character device, not a regular file"):
        read_regular("/dev/zero", 100)
    assert kind(os.stat(tmp_path / ".").st_mode) == "a folder"


def test_a_link_is_refused_when_it_must_not_be_followed(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_bytes(b"{}")
    link = tmp_path / "link"
    link.symlink_to(target)
    assert read_regular(link, 100) == b"{}"
    with pytest.raises(OSError) as refused:
        read_regular(link, 100, follow=False)
    assert refused.value.errno == errno.ELOOP


def test_pieces_are_appended_after_what_the_file_holds(tmp_path: Path) -> None:
    path = tmp_path / "lane-log.jsonl"
    append(path, b'{"a": 1}\n')
    append(path, b'{"b": 2}\n', regular_only=True)
    assert path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    assert path.stat().st_mode & 0o777 == 0o644 & ~_umask()


def test_a_fifo_is_refused_for_appending_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "summary"
    os.mkfifo(fifo)
    with pytest.raises(NotRegular, match="it is a FIFO, not a regular file"):
        append(fifo, b"text", regular_only=True)


def test_a_lock_file_is_made_and_a_link_in_its_place_refused(tmp_path: Path) -> None:
    fd = open_lock(tmp_path / "lock")
    os.close(fd)
    assert (tmp_path / "lock").is_file()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError) as refused:
        open_lock(tmp_path / "link")
    assert refused.value.errno == errno.ELOOP
    assert not (tmp_path / "elsewhere").exists()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
