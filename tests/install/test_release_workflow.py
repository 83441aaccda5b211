"""The release workflow docs/release.md gives: trusted publishing from one job that runs no code of the
repository, and the build job's steps, run here in order on a copy of the source tree."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

import lanelog
from tests.install.support import ROOT, clean_env, copy_source, make_venv

RELEASE_DOC = ROOT / "docs" / "release.md"


def release_workflow() -> dict:
    (block,) = [text for text in re.findall(r"```yaml\n(.*?)```", RELEASE_DOC.read_text(encoding="utf-8"), re.S)
                if text.startswith("name: release\n")]
    return yaml.safe_load(block)


def step(workflow: dict, name: str) -> dict:
    (found,) = [entry for entry in workflow["jobs"]["build"]["steps"] if entry.get("name") == name]
    return found


def run_step(entry: dict, cwd: Path, python: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """The step's script as the runner runs it; `python3` is the venv's when one is given (setup-python's)."""
    return subprocess.run(["bash", "-e", "-c", entry["run"]], cwd=cwd, capture_output=True, text=True,
                          env=clean_env(python, **env), timeout=600)


def test_only_the_publish_job_gets_a_token_and_it_runs_no_code() -> None:
    workflow = release_workflow()
    assert workflow[True] == {"push": {"tags": ["v*"]}}  # PyYAML reads the key `on` as True
    assert workflow["permissions"] == {"contents": "read"}
    publish = workflow["jobs"]["publish"]
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert [entry.get("run") for entry in publish["steps"]] == [None, None]
    assert publish["steps"][-1]["uses"] == "pypa/gh-action-pypi-publish@release/v1"
    assert "permissions" not in workflow["jobs"]["build"]


@pytest.mark.parametrize(("tag", "passes"), [(f"v{lanelog.__version__}", True), (lanelog.__version__, False),
                                             (f"v{lanelog.__version__}.1", False), ("v9.9.9", False)])
def test_the_version_check_passes_only_for_the_versions_tag(tag: str, passes: bool) -> None:
    entry = step(release_workflow(), "The tag names the package's version")
    assert entry["env"] == {"TAG": "${{ github.ref_name }}"}
    done = run_step(entry, ROOT, TAG=tag)
    assert (done.returncode == 0) == passes, done.stderr
    if not passes:
        assert done.stderr == (f"tag {tag} does not name lanelog/__init__.py's version {lanelog.__version__} "
                               f"(v{lanelog.__version__})\n")


def test_the_build_step_makes_a_checked_sdist_and_wheel(tmp_path: Path) -> None:
    source = copy_source(tmp_path / "src")
    python = make_venv(tmp_path / "python")
    done = run_step(step(release_workflow(), "Build the sdist and the wheel"), source, python)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(path.name for path in (source / "dist").iterdir()) == [
        f"lanelog-{lanelog.__version__}-py3-none-any.whl", f"lanelog-{lanelog.__version__}.tar.gz"]
    assert done.stdout.count("PASSED") == 2
