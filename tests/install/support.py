"""What the install tests share: the source tree's copy, the release build, and fresh venvs.

A venv here is a plain `python -m venv` (with pip, without the system's site-packages):
what a user gets, so a dependency an extra forgets is missing in it, as it would be for them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What a copy of the source tree leaves out by name: git's data, build output, caches, local
# databases, Spark's warehouse folder.
_SKIP_NAMES = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                     ".hypothesis", ".mypy_cache", ".ruff_cache", "artifacts", "*.duckdb",
                                     "*.duckdb.wal", "spark-warehouse")


def SKIP(folder: str, names: list[str]) -> set[str]:  # noqa: N802 (shutil.copytree's ignore, named as one)
    """What a copy of the source tree leaves out (shutil.copytree's ignore): the names above, and
    every virtual environment whatever its name (.venv, venv: a folder holding pyvenv.cfg), which a
    checkout often holds and which is no source (copying one cost 20 s and more)."""
    left_out = set(_SKIP_NAMES(folder, names))
    return left_out | {name for name in names if (Path(folder) / name / "pyvenv.cfg").is_file()}


def leaving_out(*more: str) -> Callable[[str, list[str]], set[str]]:
    """SKIP, leaving out the folders and files of these names too (shutil.copytree's ignore)."""
    return lambda folder, names: SKIP(folder, names) | (set(more) & set(names))


# The repository's folders that install as the package, and the name each has installed.
PACKAGE_DIRS = {"lanelog": "lanelog", "router": "lanelog/router", "store": "lanelog/store",
                "ingest": "lanelog/ingest", "queries": "lanelog/queries", "dashboard": "lanelog/dashboard"}
GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "lanelog tests",
           "GIT_AUTHOR_EMAIL": "tests@lanelog.invalid", "GIT_COMMITTER_NAME": "lanelog tests",
           "GIT_COMMITTER_EMAIL": "tests@lanelog.invalid"}
# pip's own network timeout per request, in seconds (the subprocess has a bound of its own).
PIP_TIMEOUT = "60"


def copy_source(to: Path) -> Path:
    """The source tree as a commit would hold it, without this checkout's build files and caches."""
    shutil.copytree(ROOT, to, ignore=SKIP)
    return to


def build_release(source: Path, out: Path) -> tuple[Path, Path]:
    """`python -m build`: the sdist, then the wheel built from that sdist, as a release makes them.

    --no-isolation uses this interpreter's setuptools rather than fetching one, so the build
    runs offline; the release workflow builds the same way with isolation (docs/release.md).
    """
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    (sdist,) = out.glob("lanelog-*.tar.gz")
    (wheel,) = out.glob("lanelog-*.whl")
    return sdist, wheel


def package_sources(tree: Path, suffixes: tuple[str, ...]) -> dict[str, str]:
    """The tree's package files with these suffixes: their path in the tree -> their installed path."""
    found = {}
    for folder, installed in PACKAGE_DIRS.items():
        for path in (tree / folder).rglob("*"):
            if path.is_file() and path.suffix in suffixes and "__pycache__" not in path.parts:
                inside = path.relative_to(tree / folder).as_posix()
                found[f"{folder}/{inside}"] = f"{installed}/{inside}"
    return found


def wheel_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return {name for name in archive.namelist() if not name.endswith("/")}


def clean_env(venv: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment for a command of a venv: none of this interpreter's paths or lanelog settings.

    PATH starts with the venv's bin and keeps no other folder that holds a lanelog command,
    so `lanelog` and `lanelog-model` (found through PATH by `route --run`) are the venv's.
    """
    env = {name: value for name, value in os.environ.items()
           if name not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "JAVA_HOME", "PYTHONSTARTUP"}
           and not name.startswith(("LANELOG_", "AWS_", "SPARK_", "PYSPARK_"))}
    path = [folder for folder in os.environ.get("PATH", "").split(os.pathsep)
            if folder and not any((Path(folder) / name).exists() for name in ("lanelog", "lanelog-model"))]
    if venv is not None:
        path.insert(0, str(venv / "bin"))
    return {**env, **GIT_ENV, "PATH": os.pathsep.join(path), "PYTHONNOUSERSITE": "1", **extra}


def make_venv(where: Path) -> Path:
    """A fresh venv with pip and nothing else."""
    done = subprocess.run([sys.executable, "-m", "venv", str(where)], capture_output=True, text=True,
                          env=clean_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    return where


def pip_install(venv: Path, *requirements: str, timeout: float = 600) -> None:
    """`pip install -q` into the venv, from the registry through pip's shared cache."""
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--timeout", PIP_TIMEOUT,
                           *requirements], capture_output=True, text=True, env=clean_env(), timeout=timeout)
    assert done.returncode == 0, f"pip install {' '.join(requirements)} failed:\n{done.stdout}{done.stderr}"


def run(venv: Path, command: str, *args: str, cwd: Path, timeout: float = 180,
        **env: str) -> subprocess.CompletedProcess[str]:
    """One of the venv's own commands (bin/lanelog, bin/python), in its clean environment."""
    return subprocess.run([str(venv / "bin" / command), *args], capture_output=True, text=True, cwd=cwd,
                          env=clean_env(venv, **env), timeout=timeout)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=clean_env(),
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout
