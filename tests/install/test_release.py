"""The release artifacts: `python -m build` makes an sdist and a wheel that twine accepts, and the
wheel holds every data file the package reads at run time (SQL, settings, Spark's log
configuration, the dashboard's page scripts), however it was built."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

from tests.install.support import ROOT, package_sources, wheel_files

# Read at run time by path or through importlib.resources, never imported: a build that drops
# one still imports cleanly and fails only when the command that reads it runs.
DATA = (".sql", ".toml", ".properties")


def test_twine_accepts_the_sdist_and_the_wheel(release: tuple[Path, Path]) -> None:
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, release)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_the_wheel_holds_every_data_file_and_page_of_the_tree(release: tuple[Path, Path]) -> None:
    _, wheel = release
    data = package_sources(ROOT, DATA)
    assert {".sql", ".properties"} <= {Path(name).suffix for name in data}, "the tree has data files"
    pages = [name for name in package_sources(ROOT, (".py",)) if name.startswith("dashboard/views/")]
    assert pages, "the tree has the dashboard's pages"
    expected = set(data.values()) | set(package_sources(ROOT, (".py",)).values())
    assert sorted(expected - wheel_files(wheel)) == []


def test_the_wheel_holds_the_package_and_nothing_else(release: tuple[Path, Path]) -> None:
    _, wheel = release
    name, version = wheel.name.split("-")[:2]
    assert {entry.split("/")[0] for entry in wheel_files(wheel)} == {"lanelog", f"{name}-{version}.dist-info"}
    assert "lanelog/py.typed" in wheel_files(wheel)


def test_the_sdist_holds_every_package_file_of_the_tree(release: tuple[Path, Path]) -> None:
    sdist, _ = release
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert sorted(set(package_sources(ROOT, (*DATA, ".py"))) - names) == []
    assert {"pyproject.toml", "README.md", "PKG-INFO"} <= names


def test_the_wheel_declares_the_extras_of_pyproject(release: tuple[Path, Path]) -> None:
    _, wheel = release
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        lines = archive.read(metadata).decode("utf-8").splitlines()
    assert {line.split(": ", 1)[1] for line in lines if line.startswith("Provides-Extra: ")} == \
        set(project["optional-dependencies"])
