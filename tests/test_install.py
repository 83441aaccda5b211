"""A regular install puts exactly one import name, lanelog, into site-packages, and it works;
the bare install (no extras) routes a real patch and names the extra the other commands need."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.install.support import leaving_out
from tests.router import github_payloads
from tests.router.conftest import BASE_FILES

ROOT = Path(__file__).resolve().parents[1]
REVIEW = ROOT / "tests" / "queries" / "data"
SKIP = leaving_out("bench")
GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "lanelog tests",
           "GIT_AUTHOR_EMAIL": "tests@lanelog.invalid", "GIT_COMMITTER_NAME": "lanelog tests",
           "GIT_COMMITTER_EMAIL": "tests@lanelog.invalid"}


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip install --target DIR .` from a copy of the source tree (so no build files land in it)."""
    work = tmp_path_factory.mktemp("install")
    source = work / "src"
    shutil.copytree(ROOT, source, ignore=SKIP)
    out = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(out), str(source)],
        check=True, capture_output=True, text=True, timeout=300,
    )
    return out


def _run(target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=target.parent, timeout=120)


def test_one_import_name(target: Path) -> None:
    importable = sorted(
        entry.name for entry in target.iterdir()
        if (entry.is_dir() and not entry.name.endswith(".dist-info") and entry.name != "bin")
        or entry.suffix == ".py"
    )
    assert importable == ["lanelog"]
    assert sorted(p.name for p in (target / "lanelog").iterdir() if p.is_dir() and p.name != "__pycache__") == [
        "cli", "dashboard", "ingest", "queries", "router", "store"]
    assert sorted(p.name for p in (target / "lanelog" / "cli").iterdir() if p.is_dir() and p.name != "__pycache__") == [
        "alerts", "commands", "demo", "render"]


def test_every_source_module_is_installed(target: Path) -> None:
    """A package pyproject.toml's list leaves out works in an editable install and is missing
    from the wheel: every .py file of the layers must be in the installed package."""
    homes = {"lanelog": "lanelog", **{folder: f"lanelog/{folder}"
                                      for folder in ("router", "store", "ingest", "queries", "dashboard")}}
    missing = [str(path.relative_to(ROOT)) for folder, home in homes.items() for path in (ROOT / folder).rglob("*.py")
               if "__pycache__" not in path.parts
               and not (target / home / path.relative_to(ROOT / folder)).is_file()]
    assert missing == []
    assert (target / "lanelog" / "py.typed").is_file()
    assert (target / "lanelog" / "dashboard" / "views" / "overview.py").is_file()


def test_the_installed_package_is_the_one_imported(target: Path) -> None:
    done = _run(target, "-c", "import lanelog.router, lanelog.queries; print(lanelog.router.__file__);"
                              "print(len(lanelog.queries.QUERIES))")
    assert done.returncode == 0, done.stderr
    router_file, count = done.stdout.split()
    assert Path(router_file).is_relative_to(target)
    assert int(count) > 10


def test_the_installed_cli_reports_from_its_own_sql(target: Path) -> None:
    done = _run(target, "-m", "lanelog", "report", str(REVIEW / "review.jsonl"), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads((REVIEW / "review.report.json").read_text())


def _core_requirements() -> list[str]:
    """The distributions pyproject.toml's core `dependencies` name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [re.split(r"[<>=!\[;\s]", requirement)[0] for requirement in project["dependencies"]]


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the core dependencies and lanelog installed from its wheel, offline.

    The core distributions are the ones this interpreter has, linked into a folder the venv
    reads through a .pth file; pip then installs the wheel *with* its dependency check and no
    index, so a core dependency pyproject.toml names but the folder lacks fails the install.
    """
    work = tmp_path_factory.mktemp("bare")
    shutil.copytree(ROOT, work / "src", ignore=SKIP)
    pip = [sys.executable, "-m", "pip"]
    subprocess.run([*pip, "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
                    "--wheel-dir", str(work / "wheels"), str(work / "src")],
                   check=True, capture_output=True, text=True, timeout=300)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(work / "venv")],
                   check=True, capture_output=True, text=True, timeout=120)
    python = work / "venv" / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True, timeout=60).stdout.strip())
    core = work / "core"
    core.mkdir()
    for name in _core_requirements():
        dist = importlib.metadata.distribution(name)
        for top in {Path(str(file)).parts[0] for file in dist.files or [] if not str(file).startswith("..")}:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (core / top).exists():
                (core / top).symlink_to(source)
    (site / "lanelog-core-deps.pth").write_text(f"{core}\n", encoding="utf-8")
    [wheel] = (work / "wheels").glob("lanelog-*.whl")
    done = subprocess.run([*pip, "--python", str(python), "install", "--quiet", "--no-index", str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return work / "venv"


def _bare(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "LANELOG_LOG", "LANELOG_DB"}}
    return subprocess.run([str(venv / "bin" / "lanelog"), *args], capture_output=True, text=True,
                          cwd=cwd, env={**env, **GIT_ENV}, timeout=120)


def test_the_bare_install_holds_none_of_the_extras(bare: Path) -> None:
    probe = ("import importlib.util as u; "
             "print(' '.join(m for m in ('duckdb', 'pyarrow', 'numpy', 'pandas', 'streamlit', 'altair', 'PIL', "
             "'pyspark', 'sqlglot') if u.find_spec(m)))")
    done = subprocess.run([str(bare / "bin" / "python"), "-c", probe], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "\n", "")


def patched_repo(tmp_path: Path, name: str, text: str, message: str) -> Path:
    """A repository of BASE_FILES on main, and a branch `patch` whose one commit writes `text` to `name`."""
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV}, timeout=60)

    git("init", "-q", "-b", "main")
    for base_name, base_text in BASE_FILES.items():
        (repo / base_name).parent.mkdir(parents=True, exist_ok=True)
        (repo / base_name).write_text(base_text, encoding="utf-8")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    git("checkout", "-q", "-b", "patch")
    (repo / name).write_text(text, encoding="utf-8")
    git("commit", "-q", "-am", message)
    return repo


def test_the_bare_install_routes_a_real_patch(bare: Path, tmp_path: Path) -> None:
    repo = patched_repo(tmp_path, "store.py", "def put(key, body):\n    return dict(body)\n", "copy the body on put")
    log = tmp_path / "lane-log.jsonl"
    done = _bare(bare, "route", "--repo", str(repo), "--base", "main", "--today", "2026-10-08",
                 "--out", str(log), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert (line["probe"], line["reasons"], line["model_call_allowed"]) == ("pass", [], True)
    assert sorted(line["properties"]) == ["prop_idempotent_put", "prop_round_trip"]
    assert json.loads(log.read_text(encoding="utf-8")) == line


def test_the_bare_install_blocks_a_push_in_an_agents_hook(bare: Path, tmp_path: Path) -> None:
    """The hook path needs no extra: Claude Code's PreToolUse input of a push that drops an assertion
    (https://code.claude.com/docs/en/hooks#pretooluse-input) is blocked, exit 2, by the bare install."""
    repo = patched_repo(tmp_path, "api.py", "def handle(payload):\n    return payload\n", "drop the check")
    payload = json.dumps({"session_id": "abc123", "transcript_path": "/t.jsonl", "cwd": str(repo),
                          "hook_event_name": "PreToolUse", "tool_name": "Bash",
                          "tool_input": {"command": "git push origin patch"}})
    env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "LANELOG_LOG"}}
    done = subprocess.run([str(bare / "bin" / "lanelog"), "hook", "claude-code", "--base", "main"], input=payload,
                          capture_output=True, text=True, cwd=tmp_path, env={**env, **GIT_ENV}, timeout=120)
    assert done.returncode == 2 and "assertion_removed" in done.stderr and done.stdout == ""
    line = json.loads((repo / "lane-log.jsonl").read_text(encoding="utf-8"))
    assert (line["source"], line["hook"]["agent"]) == ("hook", "claude-code")


def test_the_bare_install_records_an_outcome(bare: Path, tmp_path: Path) -> None:
    event = github_payloads.write(tmp_path / "event.json", github_payloads.merged_by_a_person())
    log = tmp_path / "lane-log.jsonl"
    done = _bare(bare, "outcome", "--event", str(event), "--out", str(log), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert (line["kind"], line["state"], line["merged_by"]) == ("outcome", "merged", {"login": "alice", "type": "User"})
    assert json.loads(log.read_text(encoding="utf-8")) == line


@pytest.mark.parametrize(("args", "what", "extra"), [
    (["ingest", "x.jsonl"], "lanelog ingest", "db"),
    (["report", "x.jsonl"], "lanelog report", "db"),
    (["dashboard"], "lanelog dashboard", "dashboard"),
    (["replay", "--policy", "lanes.yaml", "--commits", "HEAD~1..HEAD", "--db", "x.duckdb"], "lanelog replay --db",
     "db"),
])
def test_a_command_without_its_extra_exits_2_with_the_pip_line(bare: Path, tmp_path: Path, args: list[str],
                                                               what: str, extra: str) -> None:
    (tmp_path / "x.jsonl").write_text('{"attempt_id": "a1"}\n', encoding="utf-8")
    (tmp_path / "lanes.yaml").write_text(BASE_FILES["lanes.yaml"], encoding="utf-8")
    done = _bare(bare, *args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    # Installed from a wheel file: the line installs the extra from that wheel (no release yet).
    [wheel] = (bare.parent / "wheels").glob("lanelog-*.whl")
    assert done.stderr == (f"Error: {what} needs the {extra} extra (duckdb is not installed): "
                           f"pip install '{wheel}[{extra}]'\n")
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lanes.yaml", "x.jsonl"]


@pytest.mark.parametrize("name", ["lanelog.lanelog", "lanelog.tests", "lanelog.bench"])
def test_the_checkout_is_not_reachable_through_the_package(name: str, tmp_path: Path) -> None:
    code = f"import importlib.util, lanelog; print(importlib.util.find_spec({name!r}) is None, lanelog.__file__)"
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    missing, where = done.stdout.split()
    assert missing == "True"
    assert Path(where).name == "__init__.py"
