"""Each extra installed alone from the release wheel into a fresh venv, and the commands it enables run
with that venv's own `lanelog`: the way a user installs it, so a dependency an extra forgets fails here.

The venvs install from the registry through pip's shared cache (minutes on a first run); the services
lanelog talks to (a chat-completions server, an OpenID Connect provider, an S3 API server) run in this
process on 127.0.0.1.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from lanelog.cli.extras import EXTRAS
from tests.dashboard.browser_support import chromium, free_port, stop, wait_until_healthy
from tests.dashboard.oidc_provider import running_provider
from tests.dashboard.test_browser import PAGE_PATHS, TITLES, drawn_page
from tests.ingest.s3server import running_s3
from tests.install.support import ROOT, clean_env, git, make_venv, pip_install, run
from tests.router.chat_server import ChatServer, Reply, running_chat

pytestmark = pytest.mark.slow

EXAMPLES = ROOT / "examples"
REVIEW = ROOT / "tests" / "queries" / "data"
# What each extra brings besides its pyproject line: Streamlit's sign-in (st.login) imports
# Authlib's Starlette client, which needs httpx.
SIGN_IN = ("authlib", "httpx")
# The import names of every extra; a venv holds those of its own extras and none of the others.
OPTIONAL = sorted({name for names in EXTRAS.values() for name in names} | set(SIGN_IN))
HOLDS = {
    "bare": set(),
    "db": set(EXTRAS["db"]),
    "dashboard": set(EXTRAS["db"]) | set(EXTRAS["dashboard"]) | set(SIGN_IN),
    "s3": set(EXTRAS["db"]) | set(EXTRAS["s3"]),
    "spark": set(EXTRAS["db"]) | set(EXTRAS["spark"]),
}


def installed(release: tuple[Path, Path], where: Path, extra: str) -> Path:
    """A fresh venv holding the wheel with one extra (none for "bare")."""
    _, wheel = release
    venv = make_venv(where / "venv")
    # PySpark and the Java runtime are some 400 MB to unpack.
    pip_install(venv, str(wheel) if extra == "bare" else f"{wheel}[{extra}]", timeout=900 if extra == "spark" else 600)
    return venv


@pytest.fixture(scope="module")
def bare(release: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed(release, tmp_path_factory.mktemp("bare"), "bare")


@pytest.fixture(scope="module")
def db(release: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed(release, tmp_path_factory.mktemp("db"), "db")


@pytest.fixture(scope="module")
def dashboard(release: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed(release, tmp_path_factory.mktemp("dashboard"), "dashboard")


@pytest.fixture(scope="module")
def s3(release: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed(release, tmp_path_factory.mktemp("s3"), "s3")


@pytest.fixture(scope="module")
def spark(release: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed(release, tmp_path_factory.mktemp("spark"), "spark")


@pytest.mark.parametrize("extra", list(HOLDS))
def test_each_extra_brings_its_modules_and_none_of_the_others(extra: str, request: pytest.FixtureRequest,
                                                                tmp_path: Path) -> None:
    venv = request.getfixturevalue(extra)
    probe = ("import importlib.util, json, lanelog; "
             f"print(json.dumps([lanelog.__file__, [m for m in {OPTIONAL!r} if importlib.util.find_spec(m)]]))")
    done = run(venv, "python", "-c", probe, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    where, found = json.loads(done.stdout)
    assert Path(where).is_relative_to(venv), "lanelog is imported from the venv, not the checkout"
    assert set(found) == HOLDS[extra]


def lanelog(venv: Path, *args: str, cwd: Path, timeout: float = 180, **env: str) -> subprocess.CompletedProcess[str]:
    return run(venv, "lanelog", *args, cwd=cwd, timeout=timeout, **env)


# -- bare: route, replay and the bundled model runner --------------------------------------------------

def example_repo(root: Path) -> Path:
    """A git repository under the example policy on `main`, and a branch `patch` with two commits:
    one that keeps the store's behaviour (its two properties are selected), one that drops an assert."""
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shutil.copy(EXAMPLES / "lanes.yaml", repo / "lanes.yaml")
    shutil.copy(EXAMPLES / "flaky.yaml", repo / "flaky.yaml")
    (repo / "store.py").write_text("def put(key, body):\n    return body\n", encoding="utf-8")
    (repo / "api.py").write_text("def handle(payload):\n    assert payload\n    return payload\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "patch")
    (repo / "store.py").write_text("def put(key, body):\n    return dict(body)\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "Copy the body on put")
    (repo / "api.py").write_text("def handle(payload):\n    return payload or None\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "Drop the payload assert")
    return repo


def test_bare_routes_a_patch_under_the_example_policy(bare: Path, tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    log = tmp_path / "lane-log.jsonl"
    done = lanelog(bare, "route", "--repo", str(repo), "--base", "main", "--head", "patch~1", "--today", "2026-10-08",
                   "--out", str(log), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert (line["probe"], line["reasons"], line["model_call_allowed"]) == ("pass", [], True)
    assert line["properties"] == ["prop_round_trip", "prop_idempotent_put"]
    assert [json.loads(text) for text in log.read_text(encoding="utf-8").splitlines()] == [line]


def test_bare_replays_a_commit_range(bare: Path, tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    done = lanelog(bare, "replay", "--repo", str(repo), "--policy", str(EXAMPLES / "lanes.yaml"),
                   "--commits", "main..patch", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    replay = json.loads(done.stdout)
    # The assert dropped from api.py is rejected under both policies (the same file); the store change passes.
    assert replay["patches"] == 2
    assert replay["candidate"] == replay["baseline"]
    assert (replay["candidate"]["probe_rejects"], replay["candidate"]["reasons"]) == (1, {"assertion_removed": 1})
    assert replay["flips"] == []
    assert not (tmp_path / "lane-log.jsonl").exists()


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    with running_chat() as server:
        yield server


def test_bare_runs_the_bundled_model_runner_against_a_chat_server(bare: Path, chat: ChatServer,
                                                                   tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    chat.script(Reply(content="hold"))
    done = lanelog(bare, "route", "--repo", str(repo), "--base", "main", "--head", "patch~1", "--today", "2026-10-08",
                   "--out", str(tmp_path / "lane-log.jsonl"), "--run", "lanelog-model", cwd=tmp_path,
                   LANELOG_MODEL_BASE_URL=chat.url, LANELOG_MODEL="test-model", LANELOG_MODEL_API_KEY="sk-local",
                   LANELOG_MODEL_BACKOFF="0.01", LANELOG_MODEL_TIMEOUT="20")
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert line["results"] == {"prop_round_trip": "hold", "prop_idempotent_put": "hold"}
    assert sorted(request["model"] for request in chat.requests) == ["test-model", "test-model"]
    assert {headers["Authorization"] for headers in chat.headers} == {"Bearer sk-local"}


def test_bare_report_names_the_pip_line_it_needs(bare: Path, release: tuple[Path, Path], tmp_path: Path) -> None:
    """Installed from a wheel file, the line installs the extra from that same wheel (no release
    is on the registry yet), and it works: run as printed, `report` then runs."""
    _, wheel = release
    done = lanelog(bare, "report", str(REVIEW / "review.jsonl"), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("Error: lanelog report needs the db extra (duckdb is not installed): "
                           f"pip install '{wheel}[db]'\n")


# -- db: ingest, report, check, export ---------------------------------------------------------------

def test_db_ingests_reports_checks_and_exports_a_log(db: Path, tmp_path: Path) -> None:
    database, lake = tmp_path / "lanes.duckdb", tmp_path / "lake"
    done = lanelog(db, "ingest", "--db", str(database), "--format", "json", str(REVIEW / "review.jsonl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["attempts_added"] == 7
    done = lanelog(db, "report", "--db", str(database), "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads((REVIEW / "review.report.json").read_text(encoding="utf-8"))
    report = done.stdout
    done = lanelog(db, "check", "--db", str(database), "--format", "json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # review.jsonl holds one credit bug
    assert [json.loads(text)["attempt_id"] for text in done.stdout.splitlines()
            if json.loads(text)["kind"] == "credit_bug"] == ["r5"]
    done = lanelog(db, "export", "--db", str(database), "--lake", str(lake), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = lanelog(db, "report", "--lake", str(lake), "--format", "json", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, report), done.stderr


# -- dashboard: the pages, and sign-in against a real OpenID Connect provider ------------------------------

@pytest.fixture(scope="module")
def dashboard_db(dashboard: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The review log ingested by the dashboard venv's own lanelog."""
    folder = tmp_path_factory.mktemp("dashboard-db")
    done = lanelog(dashboard, "ingest", "--db", str(folder / "lanes.duckdb"), str(REVIEW / "review.jsonl"), cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder / "lanes.duckdb"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


def serve(venv: Path, *args: str, cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """The venv's `lanelog dashboard` on a free port of 127.0.0.1, once it answers its health check."""
    port = free_port()
    log = cwd / f"dashboard-{port}.log"
    with log.open("w") as out:
        server = subprocess.Popen([str(venv / "bin" / "lanelog"), "dashboard", "--port", str(port), *args],
                                  stdout=out, stderr=subprocess.STDOUT, text=True, cwd=cwd, env=clean_env(venv))
    url = f"http://127.0.0.1:{port}"
    wait_until_healthy(server, url, log.read_text, seconds=120)
    return server, url


def test_dashboard_serves_every_page(dashboard: Path, dashboard_db: Path, browser: object, tmp_path: Path) -> None:
    server, url = serve(dashboard, "--db", str(dashboard_db), cwd=tmp_path)
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            assert reply.status == 200
            assert b"<title>Streamlit</title>" in reply.read()
        for name, path in PAGE_PATHS.items():
            page = drawn_page(browser, f"{url}/{path}", name, 1400)
            try:
                assert page.locator('[data-testid="stException"]').count() == 0, name
                assert page.get_by_role("heading", name=TITLES[name], exact=True).count() == 1
            finally:
                page.close()
    finally:
        stop(server, 15)
    assert "Traceback" not in (tmp_path / f"dashboard-{url.rsplit(':', 1)[1]}.log").read_text()


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """oidc-provider-mock, a real OpenID Connect provider, on 127.0.0.1: its base URL."""
    with running_provider() as base:
        yield base


def test_dashboard_sign_in_redirects_to_the_provider(dashboard: Path, dashboard_db: Path, provider: str,
                                                     browser: object, tmp_path: Path) -> None:
    """The Sign in button's GET /auth/login answers a redirect to the provider (not a 500 for a missing module)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    auth = tmp_path / "auth.toml"
    auth.write_text(f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n'
                    'client_id = "lanelog-test"\nclient_secret = "client-secret-for-the-test"\n'
                    f'redirect_uri = "{url}/oauth2callback"\ncookie_secret = "{"c" * 40}"\n'
                    'allow = ["alice@example.com"]\n', encoding="utf-8")
    auth.chmod(0o600)
    log = tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen([str(dashboard / "bin" / "lanelog"), "dashboard", "--db", str(dashboard_db),
                                   "--port", str(port), "--auth", str(auth)],
                                  stdout=out, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                                  env=clean_env(dashboard))
    try:
        wait_until_healthy(server, url, log.read_text, seconds=120)
        page = browser.new_page()
        try:
            page.goto(url)
            with page.expect_response(lambda response: urlsplit(response.url).path == "/auth/login",
                                      timeout=60_000) as answer:
                page.get_by_role("button", name="Sign in").click(timeout=60_000)
            login = answer.value
            assert login.status in (302, 303, 307), (login.status, log.read_text())
            assert login.headers["location"].startswith(f"{provider}/"), login.headers["location"]
            page.wait_for_url(f"{provider}/**", timeout=60_000)
        finally:
            page.close()
    finally:
        stop(server, 15)


# -- s3: ingest from a bucket ------------------------------------------------------------------------------

def test_s3_ingests_a_prefix_of_a_bucket(s3: Path, tmp_path: Path) -> None:
    log = (REVIEW / "review.jsonl").read_bytes()
    with running_s3() as server:
        bucket = server.bucket()
        client = server.client()
        client.put_object(Bucket=bucket, Key="lanelog/job-1/lane-log.jsonl", Body=log)
        client.put_object(Bucket=bucket, Key="elsewhere/lane-log.jsonl", Body=b'{"attempt_id": "x"}\n')
        database = tmp_path / "lanes.duckdb"
        done = lanelog(s3, "ingest", "--db", str(database), "--format", "json", f"s3://{bucket}/lanelog/",
                       cwd=tmp_path, AWS_ENDPOINT_URL=server.endpoint, **server.env())
        assert done.returncode == 0, done.stderr
        assert server.secret not in done.stdout + done.stderr
    assert json.loads(done.stdout.splitlines()[0])["attempts_added"] == 7
    done = lanelog(s3, "report", "--db", str(database), "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["totals"] == json.loads((REVIEW / "review.report.json").read_text())["totals"]


# -- spark: the report on Spark equals DuckDB's ------------------------------------------------------------

def test_spark_report_equals_duckdbs(spark: Path, tmp_path: Path) -> None:
    database, lake = tmp_path / "lanes.duckdb", tmp_path / "lake"
    for args in (("ingest", "--db", str(database), str(REVIEW / "review.jsonl")),
                 ("export", "--db", str(database), "--lake", str(lake), "--quiet")):
        done = lanelog(spark, *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    reports = {}
    for engine in ("duckdb", "spark"):
        done = lanelog(spark, "report", "--lake", str(lake), "--engine", engine, "--format", "json",
                       *(["--spark-master", "local[1]"] if engine == "spark" else []),
                       cwd=tmp_path, timeout=600, SPARK_LOCAL_IP="127.0.0.1")
        assert done.returncode == 0, done.stderr
        reports[engine] = done.stdout
    assert json.loads(reports["duckdb"])["weeks"], "the lake has weeks"
    assert reports["spark"] == reports["duckdb"]


def test_the_run_commands_are_the_venvs(bare: Path, tmp_path: Path) -> None:
    """The smoke tests above reach the venv's commands through PATH, and no other lanelog."""
    done = subprocess.run(["bash", "-c", "command -v lanelog lanelog-model"], capture_output=True, text=True,
                          env=clean_env(bare), cwd=tmp_path, timeout=30)
    assert done.stdout.split() == [str(bare / "bin" / "lanelog"), str(bare / "bin" / "lanelog-model")]
