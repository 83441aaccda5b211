"""What a CI job pays to install lanelog: the bare package against the full one, each in a fresh venv.

`python -m bench.install KIND WHEELS VENV` makes a new venv at VENV (not timed), then
times `pip install` of the lanelog wheel in WHEELS (KIND bare: with the core
dependencies that `lanelog route` needs) or of `WHEEL[all]` (every extra) with
whatever the pip cache holds after the warm-up run, and reports the size of the
venv's site-packages.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from bench.harness import REPO_ROOT, Case, Run

KINDS = {"bare": "", "all": "[all]"}


def build_wheel(out: Path) -> Path:
    """lanelog's wheel, built once from the checkout without network or build isolation."""
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(out), str(REPO_ROOT)], check=True, capture_output=True, timeout=300)
    [wheel] = out.glob("lanelog-*.whl")
    return wheel


def _bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def measure(kind: str, wheels: str, venv: str) -> dict[str, object]:
    """Install into a new venv and say how long pip took and how much it added."""
    [wheel] = map(str, Path(wheels).glob("lanelog-*.whl"))
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True, timeout=300)
    python = Path(venv) / "bin" / "python"
    site = Path(sysconfig.get_path("purelib", vars={"base": venv, "platbase": venv}))
    before = _bytes(site)
    start = time.perf_counter()
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    wheel + KINDS[kind]], check=True, capture_output=True, timeout=1800)
    seconds = time.perf_counter() - start
    after = _bytes(site)
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format", "json"], check=True,
                            capture_output=True, text=True, timeout=120)
    return {"seconds": {"total": seconds},
            "info": {"site_packages_mb": round(after / 1e6, 1), "added_mb": round((after - before) / 1e6, 1),
                     "distributions": len(json.loads(listed.stdout))}}


def install_cases(out: Path) -> list[Case]:
    """The bare install and the full one (`[all]`), side by side."""
    wheels = out / "install-wheel"

    def check(run: Run) -> list[str]:
        info = run.info
        return [f"site-packages {info['site_packages_mb']} MB after the install ({info['added_mb']} MB added, "
                f"{info['distributions']} distributions with pip's own)"]

    def case(kind: str, label: str) -> Case:
        return Case(f"install.{kind}", "install", label,
                    [sys.executable, "-m", "bench.install", kind, str(wheels), str(out / f"install-venv-{kind}")],
                    "in-process",
                    check=check, notes=["pip install into a fresh venv after a warm-up install (pip keeps "
                                        "the wheels it built; index answers it may fetch again); "
                                        "the venv's creation is not timed"])

    def wheel() -> None:
        build_wheel(wheels)

    bare = case("bare", "install: `pip install lanelog` (bare: route and replay)")
    bare.before_all = wheel
    return [bare, case("all", "install: `pip install 'lanelog[all]'` (every extra)")]


if __name__ == "__main__":
    kind, wheels, venv = sys.argv[1:4]
    print(json.dumps(measure(kind, wheels, venv)))
