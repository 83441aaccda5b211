"""Forges behind one door: the table, its lookup, GitHub's adapter, and that nothing else reads a forge.

Every module of router/forges/ but the door is one forge's adapter; each has its page
(docs/forges/NAME.md) and an example CI file that page links to, as docs/architecture.md's
recipe says.  A forge's CI variables are read only under router/forges/.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from lanelog.cli import cli
from lanelog.errors import ForgeUnknown
from lanelog.router import FORGES, OutcomeRequest, outcome_line, outside_ci
from lanelog.router.forges import Account, Forge, PullRequest, chosen_forge, forge, job_forge
from lanelog.router.forges.github import GitHub
from tests.router import github_payloads as gh

ROOT = Path(__file__).resolve().parents[2]
FORGES_FOLDER = ROOT / "router" / "forges"
SOURCE_FOLDERS = ("router", "store", "ingest", "queries", "dashboard", "lanelog")
# A CI variable of a forge, as a string of its own (an environment key), never a word in a sentence.
CI_VARIABLE = re.compile(r"(?:GITHUB|GITLAB|CI|BITBUCKET)_[A-Z0-9_]*\Z")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def ci_variables_read(source: str) -> list[str]:
    """Each string constant of the source that is a forge's CI variable name (or its prefix), with its line."""
    found = [node for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and CI_VARIABLE.match(node.value)]
    return [f"line {node.lineno}: {node.value}" for node in sorted(found, key=lambda node: node.lineno)]


def _outside_the_forges() -> list[Path]:
    return sorted(path for folder in SOURCE_FOLDERS for path in (ROOT / folder).rglob("*.py")
                  if not path.is_relative_to(FORGES_FOLDER) and "__pycache__" not in path.parts)


def test_no_source_file_outside_router_forges_reads_a_ci_variable() -> None:
    found = {str(path.relative_to(ROOT)): ci_variables_read(path.read_text(encoding="utf-8"))
             for path in _outside_the_forges()}
    assert {path: names for path, names in found.items() if names} == {}


def test_the_ci_variable_scan_can_fail() -> None:
    source = ('"""Under $GITHUB_EVENT_PATH, prose."""\nimport os\n'
              'path = os.environ["GITHUB_EVENT_PATH"]\nsummary = os.environ.get("GITHUB_STEP_SUMMARY")\n'
              'kept = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}\n'
              'said = f"to {os.environ.get(\'GITHUB_STEP_SUMMARY\')}"\n')
    assert ci_variables_read(source) == ["line 3: GITHUB_EVENT_PATH", "line 4: GITHUB_STEP_SUMMARY",
                                         "line 5: GITHUB_", "line 6: GITHUB_STEP_SUMMARY"]
    assert [path for path in FORGES_FOLDER.glob("*.py") if ci_variables_read(path.read_text(encoding="utf-8"))]


def test_the_router_takes_the_forges_from_their_door_never_an_adapters_module() -> None:
    wrong = []
    for path in _outside_the_forges():
        for node in ast.walk(ast.parse(path.read_bytes())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            wrong += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names
                      if name.startswith("lanelog.router.forges.")]
    assert wrong == []


def test_the_table_is_every_adapter_module_each_naming_itself() -> None:
    modules = sorted(path.stem for path in FORGES_FOLDER.glob("*.py") if not path.name.startswith("_"))
    assert list(FORGES) == modules and "github" in FORGES
    for name in FORGES:
        adapter = forge(name)
        assert isinstance(adapter, Forge) and adapter.name == name
        assert forge(name) is adapter  # one adapter a forge, asked for by name


def test_the_github_forge_is_githubs_adapter() -> None:
    assert isinstance(forge("github"), GitHub)


@pytest.mark.parametrize("name", ["gitea", "GitHub", "", "github.com"])
def test_an_unknown_forge_is_an_error_naming_the_forges_there_are(name: str) -> None:
    with pytest.raises(ForgeUnknown) as caught:
        forge(name)
    assert str(caught.value) == f"no forge named {name!r}; known: {', '.join(FORGES)}"
    with pytest.raises(ForgeUnknown):
        outcome_line(OutcomeRequest(forge=name), environ={})


def test_the_command_refuses_an_unknown_forge_naming_the_choices(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["outcome", "--forge", "gitea", "--out", str(tmp_path / "log.jsonl")])
    assert result.exit_code == 2
    assert "Invalid value for '--forge': 'gitea' is not one of 'bitbucket', 'github', 'gitlab'." in result.stderr
    assert not (tmp_path / "log.jsonl").exists()


@pytest.mark.parametrize("name", sorted(FORGES))
def test_every_forge_has_its_page_and_an_example_ci_file_the_page_links_to(name: str) -> None:
    page = ROOT / "docs" / "forges" / f"{name}.md"
    assert page.is_file(), f"docs/forges/{name}.md: the forge's page (docs/architecture.md's recipe)"
    examples = [(page.parent / target).resolve() for target in LINK.findall(page.read_text(encoding="utf-8"))
                if "examples/" in target]
    assert examples and all(path.is_file() and path.is_relative_to(ROOT / "examples") for path in examples)
    assert any(path.suffix in (".yml", ".yaml") for path in examples)


def test_the_forge_whose_ci_runs_the_job_is_found_and_none_elsewhere() -> None:
    assert job_forge({"GITHUB_ACTIONS": "true"}) is forge("github")
    assert job_forge({"GITHUB_ACTIONS": "false", "GITHUB_EVENT_PATH": "/tmp/event.json"}) is None
    assert chosen_forge(None, {}) is forge("github")  # the default for a saved file
    assert chosen_forge("github", {}) is forge("github")


def test_a_process_started_outside_ci_has_no_forges_variable() -> None:
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": "/e.json", "PATH": "/bin", "LANELOG_LOG": "x",
               "MY_GITHUB_TOKEN": "kept: not the runner's"}
    assert outside_ci(environ) == {"PATH": "/bin", "LANELOG_LOG": "x", "MY_GITHUB_TOKEN": "kept: not the runner's"}


@pytest.mark.parametrize(("login", "kind", "person"), [
    ("alice", "User", True),
    ("copilot-swe-agent[bot]", "Bot", False),
    ("mergify[bot]", "User", False),       # a bot's login, whatever the type says
    ("octo-org", "Organization", False),
    ("ghost", None, False),                # a flag that did not say the type
    ("bob", "Mannequin", False),
])
def test_githubs_person_is_a_user_whose_login_is_no_bots(login: str, kind: str | None, person: bool) -> None:
    assert forge("github").is_person(Account(login, kind)) is person


def test_the_adapter_reads_a_closed_event_into_the_neutral_close(tmp_path: Path) -> None:
    event = gh.write(tmp_path / "event.json", gh.auto_merged())
    close = forge("github").read_close(event, {})
    assert close.pull_request == PullRequest(gh.REPOSITORY, gh.NUMBER, f"https://github.com/{gh.REPOSITORY}/pull/42")
    assert (close.state, close.head) == ("merged", gh.HEAD)
    assert close.auto_merge is not None and close.auto_merge.enabled_by == Account("alice", "User")
    assert close.author == Account("copilot-swe-agent[bot]", "Bot")


def test_naming_github_gives_the_line_the_default_gives(tmp_path: Path) -> None:
    event = gh.write(tmp_path / "event.json", gh.merged_by_a_person())
    lines = []
    for extra in ([], ["--forge", "github"]):
        log = tmp_path / f"log{len(lines)}.jsonl"
        result = CliRunner().invoke(cli, ["outcome", *extra, "--event", str(event), "--out", str(log)])
        assert result.exit_code == 0, result.output
        lines.append(log.read_bytes())
    assert lines[0] == lines[1] and json.loads(lines[0])["merged_by"] == {"login": "alice", "type": "User"}
