"""The release build, made once per run from a copy of the source tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.install.support import build_release, copy_source


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(sdist, wheel) as `python -m build` makes them: the wheel is built from the sdist."""
    work = tmp_path_factory.mktemp("release")
    return build_release(copy_source(work / "src"), work / "dist")
