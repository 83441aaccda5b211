"""One home per concept: what has a module of its own is written nowhere else in the package.

A reject reason is a record of lanelog/reasons.py: a list of reason codes anywhere else is a
copy that drifts.  A file opened the guarded way (without blocking, checked to be a regular
file on its descriptor) and a line appended whole are lanelog/files.py's: the flags and the
check written anywhere else are a guard that drifts.  Both scans read the installed
package's source files and the bench's (its mix of reasons is drawn from the records too).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from lanelog.reasons import REASONS

PACKAGES = ("lanelog", "lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.dashboard",
            "bench")
# The words of the guarded open and the append, each at home in lanelog/files.py alone.
GUARD_WORDS = ("O_NOFOLLOW", "O_NONBLOCK", "S_ISREG", "O_APPEND")


def _sources() -> list[Path]:
    """Every Python source file of the installed package (each layer is installed from its own folder), and the
    bench's, beside it in the checkout."""
    found: set[Path] = set()
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        for folder in spec.submodule_search_locations:
            found.update(path for path in Path(folder).rglob("*.py") if ".venv" not in path.parts)
    return sorted(found)


def _home(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    return Path(spec.origin)


def reason_lists(source: str | bytes) -> list[str]:
    """Each list, tuple, set or dict literal naming two or more reason codes, with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        items = node.keys if isinstance(node, ast.Dict) else node.elts \
            if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else []
        codes = [item.value for item in items
                 if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value in REASONS]
        if len(codes) >= 2:
            found.append((node.lineno, ", ".join(codes)))
    return [f"line {line}: {codes}" for line, codes in sorted(found)]


def guard_words(source: str) -> list[str]:
    """Each name of the guarded open or the append a source uses, with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        name = node.attr if isinstance(node, ast.Attribute) else node.value if isinstance(node, ast.Constant) \
            and isinstance(node.value, str) else None  # getattr(os, "O_NOFOLLOW", 0) too
        if name in GUARD_WORDS:
            found.append((node.lineno, name))
    return [f"line {line}: {name}" for line, name in sorted(found)]


def test_the_scans_read_every_layer() -> None:
    folders = {path.parent.name for path in _sources()}
    assert {"router", "store", "ingest", "queries", "dashboard", "lanelog", "demo", "views", "bench"} <= folders


def _shown(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


@pytest.mark.parametrize("path", [path for path in _sources() if path != _home("lanelog.reasons")], ids=_shown)
def test_no_module_but_reasons_lists_reason_codes(path: Path) -> None:
    assert reason_lists(path.read_bytes()) == [], f"{path} lists reason codes: read lanelog.reasons instead"


def test_the_reason_scan_catches_a_copied_list() -> None:
    source = ('SETUP = {"not_a_repo", "base_missing"}\nSTEPS = {"line_cap": "split it", "other": 1}\n'
              'if reason in ("over_budget", "over_cost_cap"):\n    pass\nALONE = ["line_cap", "split"]\n')
    assert reason_lists(source) == ["line 1: not_a_repo, base_missing", "line 3: over_budget, over_cost_cap"]


@pytest.mark.parametrize("path", [path for path in _sources() if path != _home("lanelog.files")], ids=_shown)
def test_no_module_but_files_opens_a_file_the_guarded_way_or_appends(path: Path) -> None:
    assert guard_words(path.read_text(encoding="utf-8")) == [], \
        f"{path} opens or appends a file itself: use lanelog.files"


def test_the_guard_scan_catches_a_guarded_open() -> None:
    source = ("import os, stat\nfd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)\n"
              "ok = stat.S_ISREG(os.fstat(fd).st_mode)\nos.open(p, os.O_WRONLY | os.O_APPEND)\n")
    assert guard_words(source) == ["line 2: O_NONBLOCK", "line 3: S_ISREG", "line 4: O_APPEND"]
    assert guard_words(_home("lanelog.files").read_text(encoding="utf-8"))
