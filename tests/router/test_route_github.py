"""A reject under GitHub Actions: annotations on the lines that caused it and a job summary, escaped.

The annotations are read back as GitHub's runner reads a step's output (actions/runner,
ActionCommand.TryParseV2: a line, trimmed, starting with ``::``; the properties up to the
next ``::``, split on ``,`` and ``=``; then unescaped), and the summary is rendered by a
CommonMark renderer, so a file name or a removed line that tried to forge a command, a
property or HTML would show up as one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from markdown_it import MarkdownIt

from lanelog.router.github import MAX_ANNOTATIONS, workflow_command
from tests.router.conftest import LANES_YAML
from tests.workflows.harness import workflow_commands

POLICY = LANES_YAML + '  "src/": [prop_round_trip]\n'
# Names and lines written to break out: a command in a name, a property separator, a percent
# escape, a line break starting a command of its own, HTML, and a run of backticks.
HOSTILE = {
    "src/a::error file=x,line=1::forged%0A.py": "    assert ok  # ::warning::forged, 100%\n",
    "src/nl\n::warning::injected.py": "    assert ok  </details><script>alert(1)</script>\n",
    "src/</details>/````.py": "    assert ok  # ```` closes? ~~~\r\n",
}


def runner_reads(output: bytes) -> list[tuple[str, dict[str, str], str]]:
    """The workflow commands the runner takes from a step's output: (command, properties, message)."""
    return workflow_commands(output.decode("utf-8"))


def route(repo, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The real command in a real process, its output as bytes (no newline translation)."""
    return subprocess.run([sys.executable, "-m", "lanelog", "route", "--repo", str(repo.root), "--base", "main",
                           "--today", "2026-10-08", "--out", str(repo.root.parent / "lane-log.jsonl"), *args],
                          capture_output=True, env={**os.environ, **(env or {})}, timeout=120)


@pytest.fixture
def hostile(make_repo):
    """A patch that removes one assert from each hostile file."""
    repo = make_repo({"lanes.yaml": POLICY, **{name: "def f(ok):\n" + line + "    return ok\n"
                                                for name, line in HOSTILE.items()}})
    repo.write(dict.fromkeys(HOSTILE, "def f(ok):\n    return ok\n")).commit("Drop the asserts")
    return repo


def test_a_reject_under_actions_annotates_each_removed_line_escaped(hostile, tmp_path):
    summary = tmp_path / "summary.md"
    done = route(hostile, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 1, done.stderr
    line = json.loads(done.stdout)
    assert line["reasons"] == ["assertion_removed"]
    read = runner_reads(done.stderr) + runner_reads(done.stdout)
    # One error a removed line, each on the file and line where it was removed, and nothing else.
    assert sorted((command, props["file"], props["line"], props["title"]) for command, props, _ in read) == sorted(
        ("error", name, "2", "lanelog: assertion removed") for name in HOSTILE)
    for _command, props, message in read:
        removed = HOSTILE[props["file"]].strip()
        assert message.startswith(f"removed (old line 2): {removed}\n")
        assert set(props) == {"file", "line", "title"}


def test_the_job_summary_says_why_shows_the_lines_and_cannot_be_broken_out_of(hostile, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("An earlier step's summary.\n", encoding="utf-8")
    done = route(hostile, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("An earlier step's summary.\n## lanelog route: probe reject\n")  # appended
    for words in ("the patch removes an assertion", "### What to do next",
                  "ask for a reviewed exception (below)", "- A reviewed exception: a person reviews the patch",
                  "`lanelog outcome` records that merge"):
        assert words in text
    assert text.count("exception") == 2  # one ask, and the one bullet it points at: the bullets never overlap
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    fences = [token for token in tokens if token.type == "fence"]
    assert len(fences) == 1  # no line of the patch closed the block or opened another
    shown = fences[0].content
    for name, removed in HOSTILE.items():
        escaped_name = name.replace("\n", "\\x0a")
        assert f"{escaped_name}:2  -{removed.rstrip(chr(10)).replace(chr(13), chr(92) + 'x0d')}" in shown
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<script" not in rendered and "</details>" not in rendered and "<details" not in rendered
    assert "&lt;/details&gt;&lt;script&gt;" in rendered  # shown, as text


def test_off_actions_nothing_changes(hostile, tmp_path):
    summary = tmp_path / "summary.md"
    done = route(hostile, env={"GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 1
    assert runner_reads(done.stderr) == [] and not summary.exists()
    assert done.stderr.decode().startswith("lanelog route: probe reject: assertion_removed: 3 removed line(s)")


def test_annotations_never_and_always(hostile, tmp_path):
    summary = tmp_path / "summary.md"
    never = route(hostile, "--annotations", "never", env={"GITHUB_ACTIONS": "true",
                                                           "GITHUB_STEP_SUMMARY": str(summary)})
    assert runner_reads(never.stderr) == [] and not summary.exists()
    always = route(hostile, "--annotations", "always", env={"GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": ""})
    assert len(runner_reads(always.stderr)) == len(HOSTILE)


def test_a_pass_under_actions_writes_nothing(make_repo, tmp_path):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    summary = tmp_path / "summary.md"
    done = route(repo, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 0 and done.stderr == b"" and not summary.exists()


def test_at_most_ten_annotations_the_last_saying_how_many_more(make_repo, tmp_path):
    asserts = "".join(f"    assert value != {n}\n" for n in range(15))
    repo = make_repo({"lanes.yaml": POLICY, "src/many.py": f"def f(value):\n{asserts}"})
    repo.write({"src/many.py": "def f(value):\n    return value\n", "docs/notes.md": "a note\n"}).commit()
    done = route(repo, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(tmp_path / "s.md")})
    read = runner_reads(done.stderr)
    assert len(read) == MAX_ANNOTATIONS
    # By hand: 15 removed lines, one annotation each; 9 shown, the tenth says 6 more.
    assert [props.get("line") for _, props, _ in read[:9]] == ["2"] * 9
    assert read[-1][1] == {"title": "lanelog: more"} and read[-1][2].startswith("6 more annotation(s) left out")


def test_the_note_of_what_was_left_out_counts_the_lines_the_line_does_not_carry(make_repo, tmp_path):
    # 66 removed lines: the line carries 20; 9 are annotated, and the tenth annotation once said "11 more"
    # and that the summary listed every removed line.
    asserts = "".join(f"    assert value != {n}\n" for n in range(66))
    repo = make_repo({"lanes.yaml": POLICY, "src/many.py": f"def f(value):\n{asserts}"})
    repo.write({"src/many.py": "def f(value):\n    return value\n"}).commit()
    summary = tmp_path / "s.md"
    done = route(repo, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    read = runner_reads(done.stderr)
    assert len(read) == MAX_ANNOTATIONS and read[-1][1] == {"title": "lanelog: more"}
    assert read[-1][2] == ("57 more annotation(s) left out (GitHub shows 10 a step): the job summary lists every "
                           "reason and the first 20 of the 66 removed assertion lines, with the diff around them "
                           "(the lane-log line keeps those 20)")
    text = summary.read_text(encoding="utf-8")
    listed = {int(found) for found in re.findall(r"src/many\.py:(\d+)  -\s*assert", text)}
    assert set(range(2, 22)) <= listed and 67 not in listed  # the first 20, and some of the diff after them
    assert "... and 46 more (the line keeps the first 20)" in text


def test_a_reason_without_lines_is_one_annotation_on_its_file(make_repo, tmp_path):
    repo = make_repo()
    repo.write({"fixtures/order.fixture.json": "{}\n", "tests/test_store.py": "def test_put():\n    pass\n\n"
                                                                               "def test_two():\n    pass\n"})
    repo.commit()
    done = route(repo, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(tmp_path / "s")})
    read = runner_reads(done.stderr)
    by_title = {props["title"]: (props.get("file"), message) for _, props, message in read}
    assert by_title["lanelog: fixture and test"] == (
        "fixtures/order.fixture.json",
        "fixture_and_test: fixture fixtures/order.fixture.json and test tests/test_store.py in one diff")
    assert by_title["lanelog: assertion removed"][0] == "tests/test_store.py"


@pytest.mark.parametrize(("value", "escaped"), [
    ("a::b", "a%3A%3Ab"), ("x,line=9", "x%2Cline=9"), ("100%", "100%25"), ("%0A", "%250A"),
    ("two\nlines\r", "two%0Alines%0D"),
])
def test_a_property_value_is_escaped_as_the_runner_reads_it(value, escaped):
    command = workflow_command("error", value, file=value, title="t")
    assert command == f"::error file={escaped},title=t::{escaped.replace('%3A', ':').replace('%2C', ',')}"
    assert runner_reads(command.encode()) == [("error", {"file": value, "title": "t"}, value)]


def test_a_setup_reject_says_to_fix_ci_and_offers_no_exception(make_repo, tmp_path):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    summary = tmp_path / "summary.md"
    done = route(repo, "--policy", str(tmp_path / "missing.yaml"),
                 env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 1
    assert [(props, message.split(":")[0]) for _, props, message in runner_reads(done.stderr)] == [
        ({"title": "lanelog: policy missing"}, "policy_missing")]
    text = summary.read_text(encoding="utf-8")
    assert "- **policy missing**: no policy file: the router fails closed\n" in text
    assert "- Fix the CI set-up" in text and "reviewed exception" not in text and "### The lines" not in text


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_summary_path_that_is_no_regular_file_is_refused_unopened(hostile, tmp_path, kind):
    # A FIFO with no reader held route for ever at the open; the decision and its exit code stand.
    target = {"fifo": tmp_path / "summary.fifo", "device": "/dev/null", "folder": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    done = subprocess.run([sys.executable, "-m", "lanelog", "route", "--repo", str(hostile.root), "--base", "main",
                           "--today", "2026-10-08", "--out", str(tmp_path / "lane-log.jsonl")],
                          capture_output=True, timeout=60,
                          env={**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(target)})
    assert done.returncode == 1
    assert json.loads(done.stdout)["reasons"] == ["assertion_removed"]
    assert len(runner_reads(done.stderr)) == len(HOSTILE)
    what = {"fifo": "a FIFO", "device": "a character device", "folder": "a folder"}[kind]
    assert done.stderr.decode().endswith(f"lanelog route: cannot write the job summary to {target}: it is {what}, "
                                         "not a regular file; nothing written\n")


def test_a_removed_last_line_is_annotated_on_the_new_file_s_last_line(make_repo, tmp_path):
    # The removed line's place is the line after it, which past the end of the file does not exist:
    # GitHub drops such an annotation. It points at the last line that stands, or at the file if none.
    repo = make_repo({"lanes.yaml": POLICY, "src/tail.py": "def f(ok):\n    return ok\n    assert ok\n",
                      "src/only.py": "assert True\n"})
    repo.write({"src/tail.py": "def f(ok):\n    return ok\n", "src/only.py": ""}).commit("Drop the last lines")
    done = route(repo, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(tmp_path / "s.md")})
    line = json.loads(done.stdout)
    assert {row["file"]: row["at"] for row in line["evidence"]["assertion_removed"]["lines"]} == {
        "src/tail.py": 2, "src/only.py": None}
    assert sorted((props["file"], props.get("line")) for _, props, _ in runner_reads(done.stderr)) == [
        ("src/only.py", None), ("src/tail.py", "2")]


def test_a_reason_beside_a_removed_assertion_asks_for_the_exception_once(make_repo, tmp_path):
    repo = make_repo({"lanes.yaml": POLICY, "src/a.py": "def f(ok):\n    assert ok\n    return ok\n"})
    repo.write({"src/a.py": "def f(ok):\n    return ok\n", "fixtures/order.fixture.json": "{}\n",
                "tests/test_store.py": "def test_put():\n    pass\n"}).commit()
    summary = tmp_path / "s.md"
    route(repo, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    steps = summary.read_text(encoding="utf-8").split("### What to do next\n\n")[1].splitlines()
    assert [step[:40] for step in steps if "exception" in step] == [
        "- If the assertion moved or was reworded",
        "- A reviewed exception: a person reviews"]
    assert "- Split the patch: change the fixture in one pull request and the test in another." in steps


def test_a_reject_without_a_removed_assertion_offers_the_exception_as_the_other_way():
    from lanelog.router.github import job_summary
    text = job_summary({"reasons": ["line_cap"], "head": "abc", "repo": "acme/orders", "evidence": {}})
    steps = text.split("### What to do next\n\n")[1].splitlines()
    assert steps[0].startswith("- Split the patch into smaller pull requests")
    assert steps[1].startswith("- Or ask for a reviewed exception: a person reviews the patch and merges it")
    assert len(steps) == 2
