"""The line's evidence: the removed assertion lines as `git diff` shows them, the heaviest files, bounded."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from lanelog.router.evidence import MAX_LINES, MAX_TEXT
from tests.router.conftest import LANES_YAML

# src/ maps to a property, so a patch there is judged on its assertions alone.
POLICY = LANES_YAML + '  "src/": [prop_round_trip]\n'
# A formatter's reflow of an assert (flask 165af0a090's shape): one `assert (` line goes.
REFLOW_BEFORE = ('def check(app):\n    assert (\n        app.config["A"] == 1\n    ), "the config must hold A"\n'
                 "    return app\n")
REFLOW_AFTER = ('def check(app):\n    assert app.config["A"] == 1, (\n        "the config must hold A"\n    )\n'
                "    return app\n")
# A type-ignore narrowed on three asserts apart from each other (httpx 69e13cbc39's shape).
IGNORED = "".join(f"def f{n}(x):\n    y = x\n    assert isinstance(y, int)  # type: ignore\n    return y\n\n"
                  for n in range(3))


@pytest.fixture
def shapes(make_repo, tmp_path):
    """main: the base, the reflow, the type-ignore edit; a net candidate beside it."""
    repo = make_repo({"lanes.yaml": POLICY, "src/flask/app.py": REFLOW_BEFORE, "src/httpx/client.py": IGNORED})
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "HEAD").strip()
    reflow = repo.write({"src/flask/app.py": REFLOW_AFTER}).commit("Reformat with the new formatter")
    ignore = repo.write({"src/httpx/client.py": IGNORED.replace("# type: ignore", "# type: ignore[arg-type]")}
                        ).commit("Narrow the type ignores")
    candidate = tmp_path / "net.yaml"
    candidate.write_text(POLICY + "assertion_rule: net\n", encoding="utf-8")
    return repo, base, reflow, ignore, candidate


def git_diff_lines(repo, start: str, head: str) -> tuple[list[tuple[str, int, str]], dict[tuple[str, int], str]]:
    """`git diff -U0` read by hand: each removed line (file, old number, text), each added one by (file, new number)."""
    out = repo.git("diff", "-U0", "--no-color", start, head)
    removed, added = [], {}
    name = ""
    old = new = 0
    for line in out.split("\n"):
        if line.startswith("+++ "):
            name = line[6:]
        elif line.startswith("@@"):
            found = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", line)
            old, new = int(found.group(1)), int(found.group(2))
        elif line.startswith("-") and not line.startswith("--- "):
            removed.append((name, old, line[1:]))
            old += 1
        elif line.startswith("+"):
            added[(name, new)] = line[1:]
            new += 1
    return removed, added


def test_a_reflowed_assert_shows_both_whole_statements_and_the_lines_around_them(shapes, route):
    repo, base, reflow, _ignore, _candidate = shapes
    line = route(repo, "--base", base, "--head", reflow, base=None).line
    assert line["reasons"] == ["assertion_removed"]
    # By hand: `assert (` at old line 2 goes, and the two lines that end its statement; `assert
    # app.config["A"] == 1, (` takes line 2, its statement ending at line 4.  The diff has one
    # unchanged line each side.
    removed = [("-", 2, "    assert ("), ("-", 3, '        app.config["A"] == 1'),
               ("-", 4, '    ), "the config must hold A"')]
    added = [("+", 2, '    assert app.config["A"] == 1, ('), ("+", 3, '        "the config must hold A"'),
             ("+", 4, "    )")]
    assert line["evidence"] == {"assertion_removed": {
        "rule": "strict", "fired": True, "removed": 1, "added": 1, "restored": 0, "net": 0,
        "lines": [{"file": "src/flask/app.py", "old_line": 2, "at": 2, "text": "    assert (",
                   "statement": [{"sign": sign, "text": text} for sign, _, text in removed[1:]],
                   "replaced_by": {"line": 2, "text": '    assert app.config["A"] == 1, (',
                                   "statement": [{"sign": sign, "text": text} for sign, _, text in added[1:]]},
                   "back_verbatim": None}],
        "lines_total": 1,
        "excerpts": [{"file": "src/flask/app.py", "lines": [
            {"sign": sign, "line": number, "text": text}
            for sign, number, text in [(" ", 1, "def check(app):"), *removed, *added, (" ", 5, "    return app")]]}]}}


def test_a_type_ignore_edit_pairs_each_assert_with_its_new_line(shapes, route):
    repo, _base, reflow, ignore, _candidate = shapes
    line = route(repo, "--base", reflow, "--head", ignore, base=None).line
    part = line["evidence"]["assertion_removed"]
    assert (part["removed"], part["added"], part["restored"], part["net"]) == (3, 3, 0, 0)
    # By hand: five lines a function, the assert the third: lines 3, 8 and 13, before and after.
    assert [(row["old_line"], row["replaced_by"]["line"]) for row in part["lines"]] == [(3, 3), (8, 8), (13, 13)]
    assert {row["replaced_by"]["text"] for row in part["lines"]} == {
        "    assert isinstance(y, int)  # type: ignore[arg-type]"}


@pytest.mark.parametrize("which", ["reflow", "ignore"])
def test_the_evidence_lines_are_the_lines_git_diff_shows(shapes, route, which):
    repo, base, reflow, ignore, _candidate = shapes
    start, head = (base, reflow) if which == "reflow" else (reflow, ignore)
    line = route(repo, "--base", start, "--head", head, base=None).line
    removed, added = git_diff_lines(repo, start, head)
    asserts = [row for row in removed if re.search(r"\bassert", row[2])]
    rows = line["evidence"]["assertion_removed"]["lines"]
    assert [(row["file"], row["old_line"], row["text"]) for row in rows] == asserts
    for row in rows:
        assert added[(row["file"], row["replaced_by"]["line"])] == row["replaced_by"]["text"]
        old_text = repo.git("show", f"{start}:{row['file']}").split("\n")
        assert old_text[row["old_line"] - 1] == row["text"]


def test_under_net_the_lines_stay_on_a_pass(shapes, route):
    repo, base, reflow, _ignore, candidate = shapes
    line = route(repo, "--base", base, "--head", reflow, "--policy", str(candidate), base=None).line
    assert line["probe"] == "pass"
    part = line["evidence"]["assertion_removed"]
    assert (part["rule"], part["fired"], part["net"]) == ("net", False, 0)
    assert part["lines"][0]["text"] == "    assert ("


def test_routes_evidence_is_replays_for_the_same_patch(shapes, route):
    repo, base, reflow, ignore, candidate = shapes
    done = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(repo.root), "--policy",
                           str(candidate), "--commits", f"{base}..main", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = {record["head"]: record for record in json.loads(done.stdout)["records"]}
    for head in (reflow, ignore):
        under_base = route(repo, "--base", f"{head}^", "--head", head, base=None).line
        under_net = route(repo, "--base", f"{head}^", "--head", head, "--policy", str(candidate), base=None).line
        assert records[head]["baseline"]["evidence"] == under_base["evidence"]
        assert records[head]["candidate"]["evidence"] == under_net["evidence"]
        assert under_base["evidence"]["assertion_removed"]["lines"]  # the comparison is of lines, not of nothing


def test_the_lines_are_bounded_and_a_long_line_is_cut(make_repo, route):
    long_assert = "    assert " + "x" * 500
    asserts = "".join(f"    assert value != {n}\n" for n in range(MAX_LINES + 5))
    repo = make_repo({"lanes.yaml": POLICY, "src/many.py": f"def f(value):\n{long_assert}\n{asserts}"})
    repo.write({"src/many.py": "def f(value):\n    return value\n"}).commit()
    line = route(repo).line
    part = line["evidence"]["assertion_removed"]
    assert (part["removed"], part["lines_total"], len(part["lines"])) == (MAX_LINES + 6, MAX_LINES + 6, MAX_LINES)
    assert len(part["lines"][0]["text"]) == MAX_TEXT and part["lines"][0]["text"].endswith("…")
    assert part["lines"][0]["text"][:-1] == long_assert[:MAX_TEXT - 1]


def test_a_deleted_file_and_a_renamed_one_say_where_the_line_was(make_repo, route):
    repo = make_repo({"lanes.yaml": POLICY, "src/old.py": "def f(x):\n    assert x\n    return x\n" + "# keep\n" * 8,
                      "src/gone.py": "def g(x):\n    assert x\n"})
    repo.git("mv", "src/old.py", "src/new.py")
    repo.write({"src/new.py": "def f(x):\n    return x\n" + "# keep\n" * 8}).delete("src/gone.py")
    repo.commit()
    lines = route(repo).line["evidence"]["assertion_removed"]["lines"]
    by_file = {row["file"]: row for row in lines}
    assert by_file["src/new.py"]["old_file"] == "src/old.py" and by_file["src/new.py"]["old_line"] == 2
    assert by_file["src/gone.py"]["at"] is None and "old_file" not in by_file["src/gone.py"]


def test_a_line_cap_reject_lists_the_heaviest_files_and_the_excluded_ones(make_repo, route):
    repo = make_repo()
    repo.write({"docs/big.md": "line\n" * 390, "docs/small.md": "line\n" * 20, "poetry.lock": "pin\n" * 30})
    repo.commit()
    line = route(repo).line
    assert "line_cap" in line["reasons"]
    assert line["evidence"]["line_cap"] == {
        "counted": 410, "line_cap": 400,
        "files": [{"file": "docs/big.md", "lines": 390}, {"file": "docs/small.md", "lines": 20}], "files_total": 2,
        "excluded": [{"file": "poetry.lock", "lines": 30}], "excluded_total": 1, "excluded_lines": 30}


def test_a_path_that_is_not_utf8_is_shown_escaped_in_the_evidence(make_repo, route):
    repo = make_repo({"lanes.yaml": POLICY, b"src/caf\xe9.py": "def f(x):\n    assert x\n"})
    repo.write({b"src/caf\xe9.py": "def f(x):\n    return x\n"}).commit()
    line = route(repo).line
    assert line["evidence"]["assertion_removed"]["lines"][0]["file"] == "src/caf\\xe9.py"
    assert line["files"] == ["src/caf\\xe9.py"]
