"""The policy-review comment (replay --format markdown) shows each flip's lines, safe for GitHub's markdown."""

from __future__ import annotations

import json
import subprocess
import sys

from markdown_it import MarkdownIt

from lanelog.evidence_text import evidence_lines
from tests.router.test_route_evidence import IGNORED, POLICY, REFLOW_AFTER, REFLOW_BEFORE

# A subject written to break out of the comment: HTML that would close the block, a script,
# a fence, a table cell.
HOSTILE_SUBJECT = "Reformat </details><script>alert(1)</script> ```` | cell"


def replay(repo, candidate, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(repo.root), "--policy",
                           str(candidate), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def history(make_repo, tmp_path, subject: str = "Reformat with the new formatter"):
    repo = make_repo({"lanes.yaml": POLICY, "src/flask/app.py": REFLOW_BEFORE, "src/httpx/client.py": IGNORED})
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "HEAD").strip()
    reflow = repo.write({"src/flask/app.py": REFLOW_AFTER}).commit(subject)
    ignore = repo.write({"src/httpx/client.py": IGNORED.replace("# type: ignore", "# type: ignore[arg-type]")}
                        ).commit("Narrow the type ignores")
    candidate = tmp_path / "net.yaml"
    candidate.write_text(POLICY + "assertion_rule: net\n", encoding="utf-8")
    return repo, base, (reflow, ignore), candidate


def test_each_flip_shows_its_reason_in_words_and_its_lines_in_a_details_block(make_repo, tmp_path):
    repo, base, heads, candidate = history(make_repo, tmp_path)
    result = json.loads(replay(repo, candidate, "--commits", f"{base}..main", "--format", "json"))
    assert [flip["head"] for flip in result["flips"]] == list(heads)
    review = replay(repo, candidate, "--commits", f"{base}..main", "--format", "markdown")
    tokens = MarkdownIt("commonmark").enable("table").parse(review)
    fences = [token.content for token in tokens if token.type == "fence"]
    # One block a flip, holding the lines the baseline (strict, rejecting) decided on, then what the
    # candidate (net, passing) reads otherwise: its verdict and the added asserts that offset them.
    assert [fence.split("\n\nWhat the candidate reads otherwise (it passes):\n")[0] for fence in fences] == [
        "The lines the baseline decided on (it rejects):\n"
        + "\n".join(evidence_lines(flip["evidence"]["baseline"]["evidence"])) for flip in result["flips"]]
    assert ("src/flask/app.py:2  -    assert (\nsrc/flask/app.py:3  -        app.config[\"A\"] == 1\n"
            "src/flask/app.py:4  -    ), \"the config must hold A\"\n"
            "src/flask/app.py:2  +    assert app.config[\"A\"] == 1, (\n") in fences[0]
    assert review.count("<details>") == review.count("</details>") == 2
    assert "**assertion removed**: the patch removes an assertion" in review
    assert "- candidate: pass" in review and review.count("the patch removes an assertion") == 1


def test_commit_text_cannot_close_the_block_or_become_html(make_repo, tmp_path):
    repo, base, _heads, candidate = history(make_repo, tmp_path, subject=HOSTILE_SUBJECT)
    review = replay(repo, candidate, "--commits", f"{base}..main", "--format", "markdown")
    rendered = MarkdownIt("commonmark").enable("table").render(review)
    # Only the blocks' own tags are HTML; the subject's are text.
    assert rendered.count("<details>") == rendered.count("</details>") == 2
    assert "<script" not in rendered and "&lt;/details&gt;&lt;script&gt;" in rendered
    tokens = MarkdownIt("commonmark").enable("table").parse(review)
    assert len([token for token in tokens if token.type == "fence"]) == 2


def test_the_json_carries_the_lines_of_each_side(make_repo, tmp_path):
    repo, base, (reflow, _ignore), candidate = history(make_repo, tmp_path)
    result = json.loads(replay(repo, candidate, "--commits", f"{base}..main", "--format", "json"))
    flip = result["flips"][0]
    assert flip["head"] == reflow
    for side, fired in (("baseline", True), ("candidate", False)):
        part = flip["evidence"][side]["evidence"]["assertion_removed"]
        assert (part["fired"], part["lines"][0]["text"]) == (fired, "    assert (")


def test_a_recorded_lines_evidence_is_kept_only_in_routes_shape(make_repo, tmp_path, route, log_file):
    """A lane log is untrusted: evidence of another shape is cut to route's, never passed on as it came."""
    repo, base, (reflow, _ignore), candidate = history(make_repo, tmp_path)
    line = route(repo, "--base", base, "--head", reflow, base=None).line
    rows = [{"file": 7, "old_line": "2", "text": "x" * 5000, "replaced_by": "</details>", "extra": True}] * 50
    line["evidence"] = {"assertion_removed": {"rule": ["strict"], "fired": "yes", "removed": 1.5, "lines": rows},
                        "line_cap": "404", "unknown": {"a": 1}}
    log_file.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = json.loads(replay(repo, candidate, str(log_file), "--format", "json"))
    recorded = result["records"][0]["baseline"]["evidence"]
    assert recorded == {"assertion_removed": {
        "rule": "", "fired": False, "removed": 0, "added": 0, "restored": 0, "net": 0, "lines_total": 0,
        "lines": [{"file": "", "old_line": 0, "at": None, "text": "x" * 199 + "…", "statement": [],
                   "replaced_by": None, "back_verbatim": None}] * 20,
        "excerpts": []}}


def test_a_recorded_lines_statements_excerpts_and_offsetting_are_kept_only_in_routes_shape(
        make_repo, tmp_path, route, log_file):
    repo, base, (reflow, _ignore), candidate = history(make_repo, tmp_path)
    line = route(repo, "--base", base, "--head", reflow, base=None).line
    row = {"sign": "<script>", "line": "7", "text": "y" * 5000, "extra": 1}
    line["evidence"] = {"assertion_removed": {
        "rule": "net", "lines": [{"text": "assert x", "statement": [row] * 50, "replaced_by": {"statement": "no"}}],
        "excerpts": [{"file": "a.py", "lines": [row] * 100}, "not a dict", {"file": 3, "old_file": "b.py",
                                                                            "lines": [row] * 100}],
        "offsetting": [{"file": "c.py", "line": True, "text": None, "statement": [row]}] * 30}}
    log_file.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = json.loads(replay(repo, candidate, str(log_file), "--format", "json"))
    part = result["records"][0]["baseline"]["evidence"]["assertion_removed"]
    kept = {"sign": " ", "line": 0, "text": "y" * 199 + "…"}
    # By hand: a statement keeps 8 lines, the excerpts 120 lines in all, the offsetting 20 rows.
    assert part["lines"][0]["statement"] == [{"sign": " ", "text": "y" * 199 + "…"}] * 8
    assert part["lines"][0]["replaced_by"] == {"line": 0, "text": "", "statement": []}
    assert part["excerpts"] == [{"file": "a.py", "lines": [kept] * 100},
                                {"file": "", "old_file": "b.py", "lines": [kept] * 20}]
    assert part["offsetting"] == [{"file": "c.py", "line": 0, "text": "",
                                   "statement": [{"sign": " ", "text": "y" * 199 + "…"}]}] * 20
    assert part["offsetting_total"] == 0
