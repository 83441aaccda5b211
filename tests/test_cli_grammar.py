"""One CLI grammar: shared options look the same everywhere, data is printed with --format,
old spellings are hidden aliases, the group's summaries are the commands' own, the extras
match pyproject.toml, and docs/cli.md is what --help says."""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from lanelog.cli import COMMANDS, EXTRA_OF_COMMAND, SUMMARIES, cli, docs, extras, options

ROOT = Path(__file__).resolve().parents[1]
PRINTS_DATA = ["ingest", "export", "demo", "check", "report", "replay"]
# The metavar each shared option shows wherever it appears.
SHARED = {"--db": "FILE", "--wait": "SECONDS", "--lake": "DIR", "--spark-master": "URL", "--host": "ADDRESS",
          "--port": "PORT"}
# Distribution name in pyproject.toml -> the import name it brings.
IMPORT_NAME = {"Pillow": "PIL", "PyYAML": "yaml", "google-re2": "re2", "Authlib": "authlib"}


def command(name: str) -> click.Command:
    found = cli.get_command(click.Context(cli), name)
    assert found is not None
    return found


def help_of(name: str) -> str:
    result = CliRunner().invoke(cli, [name, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_each_summary_is_the_commands_first_help_line() -> None:
    assert set(SUMMARIES) == set(COMMANDS)
    for name in COMMANDS:
        first = inspect.cleandoc(command(name).help or "").splitlines()[0]
        assert SUMMARIES[name] == first, name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_shared_options_show_one_metavar(name: str) -> None:
    for param in command(name).params:
        for flag in set(param.opts) & set(SHARED):
            if SHARED[flag] is not None:
                assert param.metavar == SHARED[flag], (name, flag)
    text = help_of(name)
    for vague in ("FLOAT RANGE", "DIRECTORY", "PATH ", "TEXT"):
        assert vague not in text, (name, vague)


@pytest.mark.parametrize("name", PRINTS_DATA)
def test_every_command_that_prints_data_takes_format_and_hides_the_old_json_flag(name: str) -> None:
    flags = {opt: param for param in command(name).params for opt in param.opts}
    assert "json" in flags["--format"].type.choices  # type: ignore[attr-defined]
    assert flags["--json"].hidden
    assert "--json" not in help_of(name)


@pytest.mark.parametrize("name", PRINTS_DATA)
def test_plain_output_is_format_text_on_every_command(name: str) -> None:
    flags = {opt: param for param in command(name).params for opt in param.opts}
    choices = flags["--format"].type.choices  # type: ignore[attr-defined]
    assert choices[0] == "text" == flags["--format"].default
    assert "table" not in choices
    assert "table" not in re.search(r"--format \[([^\]]*)\]", help_of(name))[1]  # type: ignore[index]


def test_the_old_format_table_is_format_text_for_one_release_with_a_note(tmp_path: Path) -> None:
    log = tmp_path / "lane-log.jsonl"
    log.write_text('{"attempt_id": "a1", "ts": "2026-10-05T09:00:00Z", "probe": "reject"}\n', encoding="utf-8")
    text = CliRunner().invoke(cli, ["report", str(log), "--format", "text"])
    table = CliRunner().invoke(cli, ["report", str(log), "--format", "table"])
    assert text.exit_code == table.exit_code == 0
    assert table.stdout == text.stdout and "week" in text.stdout
    assert text.stderr == ""
    assert table.stderr == "warning: --format table is deprecated and goes in the next release; use --format text\n"
    check = CliRunner().invoke(cli, ["check", str(log), "--format", "table"])
    assert check.exit_code == 0 and check.stdout.startswith("no credit bugs in range")
    wrong = CliRunner().invoke(cli, ["report", str(log), "--format", "tabel"])
    assert wrong.exit_code == 2 and "'tabel' is not one of 'text', 'json', 'markdown', 'csv'" in wrong.stderr


FORMAT_VALUES = re.compile(r"--format(?:\s+|=)\[?([a-z]+(?:\|[a-z]+)*)\]?")
COMMAND_USE = re.compile(r"lanelog (" + "|".join(COMMANDS) + r")\b([^`\n]*)")
# Where a command's use on a line ends: the next command, or a shell operator (a pipe into a program,
# not the `|` between alternatives of a synopsis).
USE_ENDS = re.compile(r"\s(?:&&|\|\||;)\s|\s\|\s+(?=[a-z])|\blanelog\b|\bgit\b")


def format_values_named(doc: Path) -> list[tuple[str, str, str]]:
    """(where, command, value) for every --format value the page names for a command: in a use
    `lanelog CMD ... --format V` (or `a|b`, `[a|b]`), and in docs/cli.md anywhere in CMD's section."""
    found = []
    section = None
    for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
        where = f"{doc.name}:{number}"
        heading = re.fullmatch(r"## lanelog (\w+)", line)
        if doc.name == "cli.md" and (heading or section):
            section = heading[1] if heading else section
            found += [(where, section, value) for values in FORMAT_VALUES.findall(line) for value in values.split("|")]
            continue
        for name, rest in COMMAND_USE.findall(line):
            rest = USE_ENDS.split(rest)[0]
            found += [(where, name, value) for values in FORMAT_VALUES.findall(rest) for value in values.split("|")]
    return found


def refused_format_values(named: list[tuple[str, str, str]]) -> list[str]:
    """The named values the command does not offer (an old word such as `table` is taken with a note,
    but a page does not offer it)."""
    refused = []
    for where, name, value in named:
        flags = {opt: param for param in command(name).params for opt in param.opts}
        if "--format" not in flags or value not in flags["--format"].type.choices:  # type: ignore[attr-defined]
            refused.append(f"{where}: lanelog {name} --format {value}")
    return refused


def test_every_format_value_the_docs_name_is_one_the_command_takes() -> None:
    named = [item for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
             for item in format_values_named(doc)]
    assert {name for where, name, _ in named if where.startswith("cli.md:")} == set(PRINTS_DATA)
    assert refused_format_values(named) == []


def test_the_format_check_sees_a_value_a_command_refuses(tmp_path: Path) -> None:
    page = tmp_path / "cli.md"
    page.write_text("Run `lanelog replay --format table | jq .` or lanelog route --format json.\n\n"
                    "## lanelog check\n\n  --format [text|json|markdown]  Output form.\n"
                    "      lanelog report --format csv\n", encoding="utf-8")
    named = format_values_named(page)
    assert [(name, value) for _, name, value in named] == [
        ("replay", "table"), ("route", "json"), ("check", "text"), ("check", "json"), ("check", "markdown"),
        ("check", "csv")]
    assert refused_format_values(named) == ["cli.md:1: lanelog replay --format table",
                                            "cli.md:1: lanelog route --format json",
                                            "cli.md:5: lanelog check --format markdown",
                                            "cli.md:6: lanelog check --format csv"]


@pytest.mark.parametrize(("name", "old"), [("route", "--log"), ("replay", "--log"), ("demo", "--logs")])
def test_renamed_flags_are_hidden_aliases(name: str, old: str) -> None:
    flags = {opt: param for param in command(name).params for opt in param.opts}
    assert flags[old].hidden
    assert not re.search(rf"{old}\b", help_of(name))


def test_demo_out_and_the_old_logs_flag_naming_two_folders_is_a_usage_error(tmp_path: Path) -> None:
    db = tmp_path / "demo.duckdb"
    result = CliRunner().invoke(cli, ["demo", "--db", str(db), "--out", str(tmp_path / "a"),
                                      "--logs", str(tmp_path / "b")])
    assert result.exit_code == 2
    assert "Error: --out and the deprecated --logs disagree" in result.stderr
    assert "warning: --logs is deprecated and goes in the next release; use --out DIR" in result.stderr
    assert not db.exists()


def test_the_default_database_is_found_in_one_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """--db FILE, else $LANELOG_DB, else ./lanelog.duckdb: options.db_path, choose_source's rule, never a copy."""
    monkeypatch.setenv("LANELOG_DB", "/data/lanes.duckdb")
    assert options.db_path(None) == Path("/data/lanes.duckdb")
    assert options.db_path(Path("mine.duckdb")) == Path("mine.duckdb")
    monkeypatch.delenv("LANELOG_DB")
    assert options.db_path(None) == Path("lanelog.duckdb")
    copies = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "lanelog" / "cli").rglob("*.py"))
              if "default_db_path" in path.read_text(encoding="utf-8")]
    assert copies == []


def test_the_extras_table_is_pyprojects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = project["optional-dependencies"]

    def imports(extra: str) -> set[str]:
        names: set[str] = set()
        for requirement in declared[extra]:
            dist = re.split(r"[<>=!\[;]", requirement)[0].strip()
            if dist == "lanelog":
                for inner in requirement[len("lanelog["):-1].split(","):
                    names |= imports(inner)
            else:
                names.add(IMPORT_NAME.get(dist, dist))
        return names

    assert {extra: set(modules) for extra, modules in extras.EXTRAS.items()} == {
        extra: imports(extra) for extra in extras.EXTRAS}
    assert imports("all") == set().union(*map(set, extras.EXTRAS.values()))
    assert set(EXTRA_OF_COMMAND.values()) <= set(extras.EXTRAS)


def test_every_third_party_import_is_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {IMPORT_NAME.get(name, name) for name in (re.split(r"[<>=!\[;]", r)[0] for r in project["dependencies"])}
    # store/bucket.py imports fsspec only for a lake URL and names what to install itself.
    optional = {"fsspec"}
    known = core | set().union(*map(set, extras.EXTRAS.values())) | optional | {"lanelog"}
    undeclared = []
    for folder in ("lanelog", "router", "store", "ingest", "queries", "dashboard"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_bytes())):
                names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                         else [])
                for name in names:
                    root = name.split(".")[0]
                    if root not in sys.stdlib_module_names and root not in known:
                        undeclared.append(f"{path.relative_to(ROOT)}: {root}")
    assert undeclared == []


def test_a_missing_optional_module_names_its_extra() -> None:
    error = extras.from_import_error(ModuleNotFoundError("No module named 'duckdb'", name="duckdb"),
                                     "lanelog ingest")
    assert error is not None and error.exit_code == 2
    assert str(error) == ("lanelog ingest needs the db extra (duckdb is not installed): "
                          f"{extras.pip_line('db')}")
    spark = extras.from_import_error(ModuleNotFoundError(name="pyspark.sql"), "lanelog report")
    assert spark is not None and str(spark).endswith(extras.pip_line("spark"))
    assert extras.from_import_error(ModuleNotFoundError(name="no_such_module"), "lanelog route") is None


def test_the_pip_line_installs_from_where_lanelog_came_from() -> None:
    """No release is on the registry yet: the line names the source pip recorded (PEP 610)."""
    line = extras.pip_line_from
    assert line(None, "db") == "pip install 'lanelog[db]'"
    assert line({"url": "file:///home/kate/lanelog", "dir_info": {"editable": True}}, "db") == (
        "pip install -e '/home/kate/lanelog[db]'")
    assert line({"url": "file:///tmp/it%27s/lanelog-0.1.0-py3-none-any.whl", "archive_info": {}}, "s3") == (
        "pip install '/tmp/it'\"'\"'s/lanelog-0.1.0-py3-none-any.whl[s3]'")
    commit = "0123456789abcdef" * 2 + "01234567"
    assert line({"url": "https://kate:ghp_secret@github.com/acme/lanelog", "vcs_info": {
        "vcs": "git", "commit_id": commit, "requested_revision": "v0.1.0"}}, "s3") == (
        f"pip install 'lanelog[s3] @ git+https://github.com/acme/lanelog@{commit}'")
    # A commit id that is not one is left out rather than printed.
    assert line({"url": "https://github.com/acme/lanelog", "vcs_info": {"vcs": "git", "commit_id": "x; rm -rf"}},
                "db") == "pip install 'lanelog[db] @ git+https://github.com/acme/lanelog'"
    # The running install: this test bed is an editable install of the checkout.
    assert extras.pip_line("db").startswith("pip install ")


# The CLI as the core install runs it: every extra's modules unimportable (None in
# sys.modules makes `import` fail and importlib.util.find_spec answer None, as for a
# module that is not installed), then the console script's entry point.
BARE = """
import sys
for name in {modules!r}:
    sys.modules[name] = None
from lanelog.cli import main
sys.argv[0] = "lanelog"
main()
"""


def bare(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    modules = sorted({module for names in extras.EXTRAS.values() for module in names})
    return subprocess.run([sys.executable, "-P", "-c", BARE.format(modules=modules), *args], capture_output=True,
                          text=True, cwd=cwd, timeout=60, env={**os.environ, "COLUMNS": "100"})


@pytest.mark.parametrize("name", [None, *COMMANDS])
def test_help_works_on_the_core_install_for_every_command(name: str | None, tmp_path: Path) -> None:
    done = bare(*([name] if name else []), "--help", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith(f"Usage: lanelog {name} [OPTIONS]" if name else "Usage: lanelog [OPTIONS]")
    if name:
        assert " ".join(SUMMARIES[name].split()) in " ".join(done.stdout.split())
    assert list(tmp_path.iterdir()) == []


def test_a_command_run_on_the_core_install_still_names_its_extra(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_text('{"attempt_id": "a1"}\n', encoding="utf-8")
    done = bare("ingest", "x.jsonl", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("Error: lanelog ingest needs the db extra (duckdb is not installed): "
                           f"{extras.pip_line('db')}\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["x.jsonl"]


def test_docs_cli_md_is_the_generated_help() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert docs.MARKER in page
    assert page == docs.rewrite(page), "docs/cli.md drifted: run python -m lanelog.cli.docs docs/cli.md"


def test_the_drift_check_sees_a_changed_flag() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page.replace("--spark-master URL", "--spark-url URL", 1) != docs.rewrite(page)
