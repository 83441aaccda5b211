"""docs/architecture.md's "How to add a weekly figure", followed on a copy of the source tree.

The three files the recipe names are edited in the copy, and nothing else; the copy is installed
into a fresh venv (its dependencies are this environment's, so no registry is asked), and the new
figure must come out of `lanelog report` in every format and stand on the Overview's weekly table.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.install.support import ROOT, clean_env, copy_source, make_venv, run

# The figure the recipe adds: the attempts that passed the probe and armed no call.
KEY, WORDS = "passed_unarmed", "passed unarmed"
# The Overview's tables' headers, printed as JSON by a page run through Streamlit's AppTest.
OVERVIEW = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=120)
at.run()
assert not at.exception, [error.value for error in at.exception]
print(json.dumps([[str(column) for column in table.value.columns] for table in at.table]))
"""
LINES = [
    {"attempt_id": "a1", "ts": "2026-10-05T10:00:00Z", "repo": "orders", "probe": "reject", "reasons": ["flake"],
     "model_call_allowed": False, "merge_credit": 0, "quarantine": []},
    {"attempt_id": "a2", "ts": "2026-10-06T10:00:00Z", "repo": "orders", "probe": "pass",
     "model_call_allowed": True, "merge_credit": 0, "quarantine": []},
    {"attempt_id": "a3", "ts": "2026-10-07T10:00:00Z", "repo": "orders", "probe": "pass",
     "model_call_allowed": False, "merge_credit": 0, "quarantine": []},
    {"attempt_id": "a4", "ts": "2026-10-13T10:00:00Z", "repo": "orders", "probe": "pass",
     "model_call_allowed": False, "merge_credit": 0, "quarantine": []},
]


def _edit(path: Path, before: str, added: str) -> None:
    """Put `added` in the file right before the one place `before` stands."""
    text = path.read_text(encoding="utf-8")
    assert text.count(before) == 1, f"{path.name} no longer has one {before!r}"
    path.write_text(text.replace(before, added + before), encoding="utf-8")


def follow_the_recipe(tree: Path) -> None:
    """The three steps of docs/architecture.md, and only those."""
    recipe = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    steps = recipe.split("### How to add a weekly figure (three files)", 1)[1].split("###", 1)[0]
    assert re.findall(r"^\d\. `([^`]+)`", steps, re.MULTILINE) == [
        "queries/weekly.sql", "queries/figures.py", "docs/report.md"]
    _edit(tree / "queries" / "weekly.sql", "    calls_armed / nullif(probe_rejects - setup_rejects, 0)",
          f"    attempts - probe_rejects - calls_armed AS {KEY},\n")
    _edit(tree / "queries" / "figures.py", ")\n# The money of a week",
          f'    Figure("{KEY}", "{WORDS}", "{WORDS.capitalize()}", overview=0),\n')
    _edit(tree / "docs" / "report.md", "| `armed_per_reject` |",
          f"| `{KEY}` | attempts that passed the probe and armed no call |\n")


def installed(tree: Path, venv: Path) -> None:
    """The copy built as a wheel by this interpreter's setuptools and installed into the venv, beside this
    environment's packages (its own lanelog is an editable install's finder, which the venv does not load)."""
    where = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = subprocess.run([str(venv / "bin" / "python"), "-c", where], capture_output=True, text=True, timeout=60,
                          check=True).stdout.strip()
    Path(site, "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    wheels = tree.parent / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                            "--no-index", "--wheel-dir", str(wheels), str(tree)],
                           capture_output=True, text=True, env=clean_env(), timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("lanelog-*.whl")
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                           str(wheel)], capture_output=True, text=True, env=clean_env(), timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_weekly_figure_added_by_the_recipe_is_in_every_report_format_and_on_the_overview(tmp_path: Path) -> None:
    tree = copy_source(tmp_path / "src")
    follow_the_recipe(tree)
    venv = make_venv(tmp_path / "venv")
    installed(tree, venv)
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps({"schema": 1, **line}) + "\n" for line in LINES), encoding="utf-8")
    db = tmp_path / "lanelog.duckdb"
    assert run(venv, "lanelog", "ingest", "--db", str(db), str(log), cwd=tmp_path).returncode == 0

    def report(form: str) -> str:
        done = run(venv, "lanelog", "report", "--db", str(db), "--format", form, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout

    found = json.loads(report("json"))
    assert [week[KEY] for week in found["weeks"]] == [1, 1]
    assert found["totals"][KEY] == 2
    assert WORDS in report("text").splitlines()[0]
    assert f"| {WORDS} |" in report("markdown")
    rows = list(csv.DictReader(io.StringIO(report("csv"))))
    assert [row[KEY] for row in rows] == ["1", "1"]

    page = subprocess.run([str(venv / "bin" / "python"), "-c", OVERVIEW, str(tree / "dashboard" / "app.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env=clean_env(venv, LANELOG_DB=str(db)))
    assert page.returncode == 0, page.stderr
    headers = json.loads(page.stdout.strip().splitlines()[-1])
    assert any(WORDS in table for table in headers), headers

