"""The docs stay honest: every relative link resolves, and every flag a doc names exists."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from lanelog.cli import COMMANDS, cli
from tests import docs_lines

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]  # docs/forges/ too
# The commands each reference page documents; a bare `--flag` on the page belongs to one of them.
PAGE_COMMANDS = {
    "router.md": ["route", "outcome"],
    "agents.md": ["hook"],
    "ingest.md": ["ingest"],
    "report.md": ["report", "check"],
    "dashboard.md": ["dashboard", "demo"],
    "lake.md": ["export", "report", "check", "dashboard"],
}
# Flags of other programs that the pages quote, by the program they belong to.
FOREIGN = {
    "git": {"--numstat", "--name-only", "--no-renames", "--no-merges", "-M"},
    "pip": {"--target", "--no-deps", "--no-build-isolation"},
    "streamlit": {"--server.headless"},
    "gh": {"--paginate", "--slurp"},
}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
COMMAND_USE = re.compile(r"lanelog (" + "|".join(COMMANDS) + r")\b([^`\n]*)")
INLINE_CODE = re.compile(r"`([^`\n]+)`")


@cache
def help_flags(command: str) -> frozenset[str]:
    result = CliRunner().invoke(cli, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return frozenset(FLAG.findall(result.output))


@cache
def hidden_flags(command: str) -> frozenset[str]:
    """The command's old spellings, hidden from --help but taken for one release with a note."""
    found = cli.get_command(click.Context(cli), command)
    assert found is not None
    return frozenset(opt for param in found.params if getattr(param, "hidden", False) for opt in param.opts)


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("doc", DOCS, ids=_id)
def test_every_relative_link_resolves(doc: Path) -> None:
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert broken == [], f"{_id(doc)} links to missing files: {broken}"


@pytest.mark.parametrize("doc", DOCS, ids=_id)
def test_every_flag_named_for_a_command_is_in_its_help(doc: Path) -> None:
    wrong = []
    for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
        for command, rest in COMMAND_USE.findall(line):
            # A use ends where the next command (lanelog, git, a pipe) starts.
            rest = re.split(r"\s(?:&&|\|\||\||;)\s|\blanelog\b|\bgit\b", rest)[0]
            missing = sorted(set(FLAG.findall(rest)) - help_flags(command))
            wrong += [f"line {number}: lanelog {command} {flag}" for flag in missing]
    assert wrong == [], f"{_id(doc)} names flags its commands do not have: {wrong}"


@pytest.mark.parametrize("doc", [ROOT / "docs" / name for name in PAGE_COMMANDS], ids=_id)
def test_every_flag_on_a_reference_page_belongs_to_its_commands(doc: Path) -> None:
    # A page may name an old spelling to say what replaced it.
    known = set().union(*(help_flags(command) | hidden_flags(command) for command in PAGE_COMMANDS[doc.name]))
    known |= set().union(*FOREIGN.values())
    wrong = []
    for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
        spans = INLINE_CODE.findall(line) or ([line] if line.startswith(("lanelog ", "  ")) else [])
        for span in spans:
            if re.search(r"\blanelog (" + "|".join(COMMANDS) + r")\b", span):
                continue  # checked against that command by the test above
            wrong += [f"line {number}: {flag}" for flag in FLAG.findall(span) if flag not in known]
    assert wrong == [], f"{_id(doc)} names flags none of {PAGE_COMMANDS[doc.name]} has: {wrong}"


def test_the_checker_catches_a_flag_that_does_not_exist() -> None:
    line = "run `lanelog report --since 2026-10-01 --no-such-flag` weekly"
    (command, rest), = COMMAND_USE.findall(line)
    assert sorted(set(FLAG.findall(rest)) - help_flags(command)) == ["--no-such-flag"]


def test_readme_is_a_first_five_minutes_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 14 * 1024
    commands = [line for line in readme.splitlines() if line.startswith("python3 -m pip install")]
    assert commands == ["python3 -m pip install -e '.[dashboard]' && lanelog demo --serve",
                        "python3 -m pip install -e '.[test]' && python3 -m pytest -n auto"]


def test_ci_runs_the_readme_test_command_in_its_two_tiers() -> None:
    """CI installs as the README says and runs the README's pytest as the fast tier, then the rest."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install, pytest_command = next(line for line in readme.splitlines()
                                   if line.startswith("python3 -m pip install -e '.[test]'")).split(" && ")
    steps = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert install in steps
    assert [line for line in steps if line.startswith("python3 -m pytest")] == [
        f'{pytest_command} -m "not slow"', f"{pytest_command} -m slow"]


# The names the reference pages must document, datasette-style: a name added to one of these
# registries without a line in its page fails here.  Each is looked for as code (`name`), a JSON
# key ("name"), or a YAML or TOML key at a line's start (name: or name =).
def _status_keys() -> list[str]:
    from datetime import date
    from decimal import Decimal

    from lanelog.queries import Budget, Status

    budget = Budget("b", 1.0, "USD", "week")
    return list(Status(budget, date(2026, 10, 5), date(2026, 10, 11), date(2026, 10, 8), Decimal("0.5"), 1).as_dict())


def _registries() -> dict[str, tuple[str, list[str]]]:
    from lanelog.dashboard.signin import AUTH_KEYS, OPTIONAL, REQUIRED
    from lanelog.queries import PERIODS, TABLE
    from lanelog.queries.budget_file import KEYS
    from lanelog.queries.costs import REPO_KEYS, WEEK_KEYS
    from lanelog.reasons import REASONS
    from lanelog.router.flaky import ROW_KEYS, SCOPE_KEYS
    from lanelog.router.policy import KNOWN_KEYS, PRICE_KEYS, PROPERTY_KEYS

    return {
        "reason code": ("router.md", sorted(REASONS)),
        "figure": ("report.md", list(TABLE)),
        "money key": ("report.md", sorted(set(WEEK_KEYS) | set(REPO_KEYS))),
        "budgets file key": ("report.md", list(KEYS)),
        "budget period": ("report.md", list(PERIODS)),
        "budget status key": ("report.md", _status_keys()),
        "sign-in key": ("deploy.md", sorted(set(REQUIRED) | set(OPTIONAL) | set(AUTH_KEYS))),
        "policy key": ("router.md", [*KNOWN_KEYS, *PRICE_KEYS, *PROPERTY_KEYS]),
        "flaky-list key": ("router.md", [*ROW_KEYS, *SCOPE_KEYS]),
    }


# Registries read off what the commands make: every field of the lines `lanelog route` and
# `lanelog outcome` write (tests/docs_lines.py), and every key of the report's outcomes section.
MADE = ("lane-line field", "outcome key")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, list[str]]]:
    folder = tmp_path_factory.mktemp("lines")
    lines = docs_lines.lane_lines(folder)
    return {"lane-line field": ("router.md", sorted({name for line in lines for name in docs_lines.fields(line)})),
            "outcome key": ("report.md", sorted(set(docs_lines.fields(docs_lines.outcomes(folder)))))}


def _page_names(registry: str, request: pytest.FixtureRequest) -> tuple[str, list[str]]:
    """A registry's page and names: the static ones at once, the made ones from a real log (once per module)."""
    static = _registries()
    return static[registry] if registry in static else request.getfixturevalue("made")[registry]


def undocumented(text: str, names: list[str]) -> list[str]:
    """The names a page never mentions as code, a JSON key, or a YAML or TOML key."""
    return [name for name in names
            if f"`{name}`" not in text and f'"{name}"' not in text
            and not re.search(rf"^\s*(- )?{re.escape(name)}\s*[:=]", text, re.MULTILINE)]


@pytest.mark.parametrize("registry", sorted([*_registries(), *MADE]))
def test_every_name_of_a_registry_is_on_its_reference_page(registry: str, request: pytest.FixtureRequest) -> None:
    page, names = _page_names(registry, request)
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    assert undocumented(text, names) == [], f"docs/{page} does not document these {registry}s"


@pytest.mark.parametrize("registry", sorted([*_registries(), *MADE]))
def test_the_registry_check_fails_when_a_name_leaves_its_page(registry: str, request: pytest.FixtureRequest) -> None:
    """Each check can fail: the page with every mention of one name taken out is caught, naming it."""
    page, names = _page_names(registry, request)
    name = names[0]
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    stripped = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", "", text)
    assert undocumented(stripped, names) == [name]


def unexplained_steps(text: str) -> list[str]:
    """The reasons whose next step (the job summary's words, lanelog.reasons) a page does not say verbatim."""
    from lanelog.reasons import NEXT_STEPS

    return [code for code, step in NEXT_STEPS.items() if step not in text]


def test_every_reasons_next_step_is_said_on_the_router_page() -> None:
    text = (ROOT / "docs" / "router.md").read_text(encoding="utf-8")
    assert unexplained_steps(text) == [], "docs/router.md does not say these reasons' next steps"


def test_the_next_step_check_fails_when_a_step_leaves_the_page() -> None:
    from lanelog.reasons import NEXT_STEPS

    text = (ROOT / "docs" / "router.md").read_text(encoding="utf-8")
    assert unexplained_steps(text.replace(NEXT_STEPS["line_cap"], "Split it.")) == ["line_cap"]


@pytest.mark.parametrize(("registry", "name"), [("outcome key", "cost_per_merged_pr"),
                                                ("lane-line field", "expired_freezes")])
def test_a_page_without_a_key_the_commands_make_fails(registry: str, name: str, made: dict[str, Any]) -> None:
    """report.md without cost_per_merged_pr, router.md without expired_freezes: each is caught."""
    page, names = made[registry]
    assert name in names
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    assert undocumented(text, names) == []
    assert undocumented(re.sub(rf"(?<![\w-]){name}(?![\w-])", "", text), names) == [name]
