"""The install lines users copy: the docs' and the example workflows' lines name extras that exist and
one pinned tag, the package version's, and the workflows' line installs lanelog from a tagged clone."""

from __future__ import annotations

import functools
import re
import subprocess
import tomllib
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

import lanelog
from tests.install.support import ROOT, clean_env, copy_source, git, make_venv, pip_install, run
from tests.loopback import serving

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WORKFLOWS = sorted((ROOT / "examples" / "github-actions").glob("*.yml"))
PLACEHOLDER = "https://github.com/OWNER/lanelog"
TAG = f"v{lanelog.__version__}"
# The workflows' LANELOG_PIP: the repository from the repository variable, at a tag pinned in the file.
WORKFLOW_LINE = re.compile(r"lanelog(\[[a-z0-9,]+\])? @ git\+\$\{\{ vars\.LANELOG_GIT \|\| '(?P<url>[^']+)' \}\}"
                           r"@(?P<ref>\S+)")
DOC_LINE = re.compile(r'pip install "lanelog(\[[a-z0-9,]+\])? @ git\+\$\{LANELOG_GIT\}@\$\{LANELOG_REF\}"')
EXTRAS = re.compile(r"\blanelog\[([a-z0-9,]+)\]")
PINNED = re.compile(r"\blanelog(?:\[[a-z0-9,]+\])?==([0-9][^\s'\"`]*)")


def declared_extras() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return set(project["optional-dependencies"])


def lanelog_pip(workflow: Path) -> str:
    jobs = yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"]
    (value,) = [job["env"]["LANELOG_PIP"] for job in jobs.values() if "LANELOG_PIP" in job.get("env", {})]
    return value


def with_variable(line: str, value: str) -> str:
    """The line as GitHub Actions expands it when the repository variable LANELOG_GIT holds `value`."""
    return re.sub(r"\$\{\{ vars\.LANELOG_GIT \|\| '[^']+' \}\}", lambda _: value, line)


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", DOCS + WORKFLOWS, ids=_id)
def test_every_extra_an_install_line_names_exists(path: Path) -> None:
    named = {extra for found in EXTRAS.findall(path.read_text(encoding="utf-8")) for extra in found.split(",")}
    assert named - declared_extras() == set()


@pytest.mark.parametrize("path", DOCS + WORKFLOWS, ids=_id)
def test_every_pinned_release_is_the_packages_version(path: Path) -> None:
    assert set(PINNED.findall(path.read_text(encoding="utf-8"))) <= {lanelog.__version__}


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=_id)
def test_each_workflow_installs_from_the_repository_at_the_versions_tag(workflow: Path) -> None:
    found = WORKFLOW_LINE.fullmatch(lanelog_pip(workflow))
    assert found is not None, lanelog_pip(workflow)
    assert (found["url"], found["ref"]) == (PLACEHOLDER, TAG)
    assert 'python3 -m pip install "$LANELOG_PIP"' in workflow.read_text(encoding="utf-8")


def test_the_readme_and_the_deploy_page_pin_the_versions_tag() -> None:
    for doc in (ROOT / "README.md", ROOT / "docs" / "deploy.md", ROOT / "docs" / "release.md"):
        text = doc.read_text(encoding="utf-8")
        assert DOC_LINE.search(text), f"{_id(doc)} has no git install line"
        assert re.findall(r"^LANELOG_REF=(\S+)", text, re.M) in ([], [TAG]), _id(doc)
        assert set(re.findall(r"^LANELOG_GIT=(\S+)", text, re.M)) <= {PLACEHOLDER}, _id(doc)
    release = (ROOT / "docs" / "release.md").read_text(encoding="utf-8")
    assert re.findall(r"^LANELOG_REF=(\S+)", release, re.M) == [TAG]


def test_the_line_checks_can_fail() -> None:
    assert EXTRAS.findall("pip install 'lanelog[db,nope]'") == ["db,nope"]
    assert "nope" not in declared_extras()
    assert PINNED.findall("pip install 'lanelog[s3]==9.9.9'") == ["9.9.9"]
    assert WORKFLOW_LINE.fullmatch("lanelog[s3]") is None


class QuietFiles(SimpleHTTPRequestHandler):
    """Static files, without a log line per request."""

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served_repository(tmp_path: Path) -> Iterator[str]:
    """The source tree as a git repository tagged with the version's tag and one commit after it,
    served read-only over HTTP on 127.0.0.1 (git's dumb protocol): its URL, as LANELOG_GIT holds one."""
    work = copy_source(tmp_path / "work")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "lanelog")
    git(work, "tag", "-a", TAG, "-m", f"lanelog {lanelog.__version__}")
    (work / "lanelog" / "__init__.py").write_text('raise SystemExit("not the tagged commit")\n', encoding="utf-8")
    git(work, "commit", "-q", "-am", "after the release")  # the tag, not the branch, must be what installs
    served = tmp_path / "served"
    served.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(served / "lanelog.git")], check=True,
                   capture_output=True, env=clean_env(), timeout=120)
    git(served / "lanelog.git", "update-server-info")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietFiles, directory=str(served)))
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}/lanelog.git"


@pytest.mark.slow
def test_the_workflows_line_installs_the_tagged_release(release: tuple[Path, Path], served_repository: str,
                                                         tmp_path: Path) -> None:
    """LANELOG_PIP with the repository variable set: pip clones the tag, builds it, and installs the release's files."""
    line = lanelog_pip(ROOT / "examples" / "github-actions" / "lanelog-route.yml")
    requirement = with_variable(line, served_repository)
    assert requirement == f"lanelog @ git+{served_repository}@{TAG}"
    venv = make_venv(tmp_path / "venv")
    pip_install(venv, requirement)
    done = run(venv, "lanelog", "--version", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, f"lanelog, version {lanelog.__version__}\n"), done.stderr
    (record,) = (venv / "lib").glob("python3.*/site-packages/lanelog-*.dist-info/RECORD")
    installed = {row.split(",")[0] for row in record.read_text(encoding="utf-8").splitlines()}
    with zipfile.ZipFile(release[1]) as wheel:
        released = set(wheel.namelist())
    assert {name for name in installed if name.startswith("lanelog/") and "__pycache__" not in name} == \
        {name for name in released if name.startswith("lanelog/")}
