"""The facts about the machine a run measured on, printed beside its table."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata


def _meminfo_gib() -> float | None:
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        return None
    return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def source_state(root: str) -> dict[str, object]:
    """The commit measured, and the files that differed from it when the run started."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, check=False)
        return done.stdout

    changed = [line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()]
    return {"commit": git("rev-parse", "--short", "HEAD").strip(), "uncommitted_changes": changed}


def facts() -> dict[str, object]:
    """nproc, memory, CPU, OS, load and the versions that shape the figures."""
    git = subprocess.run(["git", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "memory_gib": _meminfo_gib(),
        "cpu": _cpu_model(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "duckdb": _version("duckdb"),
        "pandas": _version("pandas"),
        "streamlit": _version("streamlit"),
        "git": git.removeprefix("git version "),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }
