"""One home per concept: what has a module of its own is written nowhere else in the package.

A reject reason is a record of lanelog/reasons.py: a list of reason codes anywhere else is a
copy that drifts.  The scan reads the installed package's source files.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from lanelog.reasons import REASONS

PACKAGES = ("lanelog", "lanelog.router", "lanelog.store", "lanelog.ingest", "lanelog.queries", "lanelog.dashboard")


def _sources() -> list[Path]:
    """Every Python source file of the installed package (each layer is installed from its own folder)."""
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
    found = []
    for node in ast.walk(ast.parse(source)):
        items = node.keys if isinstance(node, ast.Dict) else node.elts \
            if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else []
        codes = [item.value for item in items
                 if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value in REASONS]
        if len(codes) >= 2:
            found.append(f"line {node.lineno}: {', '.join(codes)}")
    return found


def test_the_scans_read_every_layer() -> None:
    folders = {path.parent.name for path in _sources()}
    assert {"router", "store", "ingest", "queries", "dashboard", "lanelog", "demo", "views"} <= folders


@pytest.mark.parametrize("path", _sources(), ids=str)
def test_no_module_but_reasons_lists_reason_codes(path: Path) -> None:
    if path == _home("lanelog.reasons"):
        return
    assert reason_lists(path.read_bytes()) == [], f"{path} lists reason codes: read lanelog.reasons instead"


def test_the_reason_scan_catches_a_copied_list() -> None:
    source = ('SETUP = {"not_a_repo", "base_missing"}\nSTEPS = {"line_cap": "split it", "other": 1}\n'
              'if reason in ("over_budget", "over_cost_cap"):\n    pass\nALONE = ["line_cap", "split"]\n')
    assert reason_lists(source) == ["line 1: not_a_repo, base_missing", "line 3: over_budget, over_cost_cap"]
