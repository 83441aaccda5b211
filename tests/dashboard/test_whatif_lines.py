"""The What-if page shows the chosen flip's lines, as `lanelog replay` stored them with --db, as text."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb

from lanelog.dashboard import whatif_tables
from lanelog.evidence_text import evidence_lines
from tests.dashboard.test_pages import WHAT_IF, texts
from tests.router.conftest import LANES_YAML

# An assert message written to break out of wherever the line is shown: HTML that closes a
# block, a script, a fence, Markdown emphasis and a link.
HOSTILE = '</details><script>alert(1)</script> ``` **bold** [x](http://e.invalid) `code`'


def _commit(repo: Path, files: dict[str, str], subject: str, day: str) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    stamp = f"{day}T10:00:00+00:00"
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    for args in (("add", "-A"), ("commit", "-q", "--no-verify", "-m", subject)):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True, timeout=60)


def _replay_hostile(root: Path) -> tuple[Path, dict[str, Any]]:
    """`lanelog replay --db` of a history whose one flip rewrites an assert holding HOSTILE text."""
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, timeout=60)
    for key, value in (("user.name", "tests"), ("user.email", "tests@lanelog.invalid")):
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True, timeout=60)
    tests = f"def test_put():\n    assert put(1, 1) == 1, {json.dumps(HOSTILE)}\n"
    _commit(repo, {"lanes.yaml": LANES_YAML, "store.py": "def put(key, body):\n    return body\n",
                   "tests/test_store.py": tests}, "Start", "2026-09-07")
    _commit(repo, {"tests/test_store.py": tests.replace("put(1, 1) == 1,", "put(1, 1) == int(\"1\"),"),
                   "store.py": "def put(key, body):\n    return dict(body)\n"},
            f"Reformat {HOSTILE}", "2026-09-14")
    candidate = root / "candidate.yaml"
    candidate.write_text(LANES_YAML + "assertion_rule: net\n", encoding="utf-8")
    db = root / "replay.duckdb"
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "replay", "--repo", str(repo), "--policy", str(candidate),
         "--commits", "main~1..main", "--format", "json", "--db", str(db)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return db, json.loads(done.stdout)


def _codes(at: Any) -> list[str]:
    return [str(element.value) for element in at.code]


def test_a_stored_replay_shows_the_chosen_flips_removed_lines_as_the_replay_printed_them(
        app: Any, replay_run: tuple[Path, dict[str, Any]]) -> None:
    db, result = replay_run
    flips = result["flips"]
    assert len(flips) >= 2
    at = app(db, WHAT_IF)
    assert not at.exception, [e.value for e in at.exception]
    for index, flip in enumerate(flips):
        at.selectbox(key="replay_flip_pick").set_value(index).run()
        assert not at.exception
        # The baseline rejects (a removed assertion) and the candidate passes: the rejecting side's
        # lines whole, the very lines `replay --format json` carries (and `--format markdown` folds
        # under the flip); the candidate read the same lines, and what differs is its verdict and the
        # added assertions that offset the removed ones under net.
        baseline, candidate = (evidence_lines(flip["evidence"][side]["evidence"]) for side in ("baseline", "candidate"))
        assert flip["baseline"]["probe"] == "reject" and any("  -" in line for line in baseline)
        offsetting = candidate[len(baseline):]
        assert candidate[1:len(baseline)] == baseline[1:] and "assertion_rule net did not fire" in candidate[0]
        assert offsetting[0].endswith("offset them under assertion_rule net:") and len(offsetting) > 1
        assert _codes(at) == ["\n".join(baseline), "\n".join([candidate[0], *offsetting])]
        assert {"Why the baseline rejects: the lines it decided on.",
                "The candidate passes on the same lines; what it reads otherwise:"} <= set(texts(at))


def test_hostile_text_in_the_lines_is_shown_literally(app: Any, tmp_path: Path) -> None:
    db, result = _replay_hostile(tmp_path)
    assert len(result["flips"]) == 1
    at = app(db, WHAT_IF)
    assert not at.exception, [e.value for e in at.exception]
    evidence = result["flips"][0]["evidence"]
    shown = _codes(at)
    assert shown[0] == "\n".join(evidence_lines(evidence["baseline"]["evidence"]))
    candidate = evidence_lines(evidence["candidate"]["evidence"])
    # The rest are the baseline's, but for the added assert that offsets the removed one under net.
    assert shown[1] == "\n".join([candidate[0], *candidate[-2:]])
    assert candidate[-2].endswith("offset them under assertion_rule net:")
    assert f"tests/test_store.py:2  -    assert put(1, 1) == 1, {json.dumps(HOSTILE)}" in shown[0].splitlines()
    # Nothing of the commit reaches text the page draws as Markdown.
    assert not any("<script>" in text or "**bold**" in text or "Reformat" in text for text in texts(at))


def test_a_replay_stored_before_the_lines_were_kept_says_so(
        app: Any, replay_run: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    shutil.copyfile(replay_run[0], db)
    con = duckdb.connect(str(db))
    try:  # as upgrade_to_4 leaves a replay stored by version 3
        con.execute("UPDATE replay_patches SET baseline_evidence = NULL, candidate_evidence = NULL")
    finally:
        con.close()
    at = app(db, WHAT_IF)
    assert not at.exception, [e.value for e in at.exception]
    assert [info.value for info in at.info if "No lines stored" in info.value] == [
        "No lines stored for this replay: an earlier lanelog stored it without them. Run the replay "
        "again with --db to keep each flip's lines."]
    assert _codes(at) == []


def _flip(baseline: object, candidate: object, probes: tuple[str, str] = ("reject", "pass")) -> dict[str, Any]:
    return {"baseline_probe": probes[0], "candidate_probe": probes[1],
            "baseline_evidence": None if baseline is None else json.dumps(baseline),
            "candidate_evidence": None if candidate is None else json.dumps(candidate)}


CAP = {"line_cap": {"counted": 900, "line_cap": 400, "files": [{"file": "big.py", "lines": 900}], "files_total": 1,
                    "excluded": [], "excluded_total": 0, "excluded_lines": 0}}
FIXTURES = {"fixture_and_test": {"fixtures": ["fixtures/a.json"], "fixtures_total": 1, "tests": ["tests/t.py"],
                                 "tests_total": 1}}


def test_the_rejecting_side_comes_first_whole_and_the_other_keeps_what_differs() -> None:
    # The candidate rejects here: it comes first, whole; the baseline's own lines are all its own.
    flip = _flip(FIXTURES, CAP, probes=("pass", "reject"))
    assert whatif_tables.flip_lines(flip) == [("candidate", evidence_lines(CAP), True),
                                              ("baseline", evidence_lines(FIXTURES), True)]
    # The same evidence on both sides: the other side shows no lines of its own.
    assert whatif_tables.flip_lines(_flip(CAP, CAP)) == [("baseline", evidence_lines(CAP), True),
                                                        ("candidate", [], False)]


def test_sides_without_lines_are_left_out_and_a_replay_that_kept_none_is_told_apart() -> None:
    assert whatif_tables.flip_lines(_flip({}, {})) == []
    assert whatif_tables.flip_lines(_flip(CAP, {})) == [("baseline", evidence_lines(CAP), True)]
    assert whatif_tables.flip_lines(_flip(None, None)) is None
    # A lake's file holding text that is no JSON shows no lines rather than failing the page.
    assert whatif_tables.flip_lines({**_flip(None, None), "baseline_evidence": "{not json"}) == []


def test_a_line_holding_control_characters_is_shown_framed() -> None:
    flip = _flip({"fixture_and_test": {"fixtures": ["a\u202eb\nc"], "fixtures_total": 1, "tests": [],
                                       "tests_total": 0}}, {})
    shown = whatif_tables.flip_lines(flip)
    assert shown == [("baseline", ["fixtures: a\\u202eb\\x0ac", "tests: "], True)]
