"""Which lanelog parts are present, so a missing one is reported as not run, with the reason.

Presence is judged by the public surface each case calls (``store.open_db``
and ``ingest_paths``, ``queries.weekly``, the CLI subcommand modules, the
dashboard's app script); a part that is present but fails is measured, and
its failure reported, never skipped.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

from bench.harness import REPO_ROOT

DASHBOARD_APP = REPO_ROOT / "dashboard" / "app.py"


def _missing_module(module: str, *names: str) -> str | None:
    try:
        if importlib.util.find_spec(module) is None:
            return f"{module} is not in this tree yet"
        loaded = importlib.import_module(module)
    except ImportError as error:
        return f"{module} cannot be imported yet ({error})"
    absent = [name for name in names if not hasattr(loaded, name)]
    if absent:
        return f"{module} has no {', '.join(absent)} yet"
    return None


def ingest_api() -> str | None:
    """Why the ingest API cannot be called, or None when it can."""
    return _missing_module("lanelog.store", "open_db") or _missing_module("lanelog.ingest", "ingest_paths")


def ingest_cli() -> str | None:
    """Why `lanelog ingest` cannot run, or None."""
    return _missing_module("lanelog.cli.commands.ingest", "ingest")


def weekly_query() -> str | None:
    """Why `queries.weekly` cannot be called, or None."""
    return _missing_module("lanelog.queries", "weekly", "Filters")


def report_cli() -> str | None:
    """Why `lanelog report` cannot run, or None."""
    return _missing_module("lanelog.cli.commands.report", "report")


def route_cli() -> str | None:
    """Why `lanelog route` cannot run, or None."""
    return _missing_module("lanelog.cli.commands.route", "route")


def dashboard_app(app: Path = DASHBOARD_APP) -> str | None:
    """Why the dashboard's app script cannot be run by AppTest, or None."""
    if not app.exists():
        return f"the dashboard app {app.relative_to(REPO_ROOT)} is not in this tree yet"
    return None
