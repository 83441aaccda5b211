"""The policy-review comment (replay --format markdown) lists every flip, each in a collapsed block,
within GitHub's 65,536 characters: subjects and lines are shortened, never a flip dropped."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from markdown_it import MarkdownIt

from lanelog.cli.render.cells import md
from lanelog.cli.render.flips import COMMENT_LIMIT, MARKDOWN_LIMIT, patches_section, size
from tests.router.test_route_evidence import POLICY

FLIPS = 30
SUBJECT = 3_000


def lanelog(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True, timeout=300)


def asserts(flip: int, word: str) -> str:
    """Twenty long asserts, each a line of 190 characters or so."""
    return "def test_many(x):\n" + "".join(f"    assert x.{word}_{n} == {'y' * 150!r}, 'flip {flip} row {n}'\n"
                                         for n in range(20))


@pytest.fixture
def many_flips(make_repo, tmp_path):
    """main: the base, then FLIPS commits that each reword twenty long asserts (strict rejects them,
    net passes them), with subjects of SUBJECT characters; a net candidate beside it."""
    repo = make_repo({"lanes.yaml": POLICY, **{f"src/test_{n}.py": asserts(n, "old") for n in range(FLIPS)}})
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "HEAD").strip()
    heads = [repo.write({f"src/test_{n}.py": asserts(n, "new")}).commit(f"Reword flip {n:02d} " + "s" * SUBJECT)
             for n in range(FLIPS)]
    candidate = tmp_path / "net.yaml"
    candidate.write_text(POLICY + "assertion_rule: net\n", encoding="utf-8")
    return repo, base, heads, candidate


def test_thirty_flips_with_long_subjects_are_all_in_a_comment_under_the_limit(many_flips, tmp_path):
    repo, base, heads, candidate = many_flips
    whole = tmp_path / "review.json"
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main",
                   "--format", "markdown", "--out", str(whole))
    assert done.returncode == 0, done.stderr
    review = done.stdout
    assert size(review) <= COMMENT_LIMIT - 1_536
    # Every flip is in the table and has its block, in order; none is dropped.
    assert f"## Flips ({FLIPS})" in review
    for number, head in enumerate(heads, start=1):
        assert f"| {number} | {head[:12]} | reject assertion\\_removed | pass | Reword flip {number - 1:02d} " in review
        summary = f"{number}. {head[:12]}: baseline reject (assertion removed); candidate pass"
        assert f"<summary>{summary}</summary>" in review
    assert review.count("<details>") == review.count("</details>") == FLIPS
    # What was cut is said once, with where the whole replay is; each part of a block that lost lines
    # says so: the baseline's lines and the candidate's own (its offsetting asserts) share the room.
    assert (f"Every flip is listed: to keep this comment within GitHub's 65,536 characters, subjects and the lines "
            f"of {FLIPS} flip(s) were shortened; the whole replay, every line of every patch, is in {md(str(whole))} "
            "(written with --out).") in review
    assert review.count("more line(s) cut to fit the comment") == 2 * FLIPS
    # The JSON keeps every subject and line whole.
    result = json.loads(whole.read_text(encoding="utf-8"))
    assert [len(flip["subject"]) for flip in result["flips"]] == [len("Reword flip 00 ") + SUBJECT] * FLIPS
    tokens = MarkdownIt("commonmark").enable("table").parse(review)
    fences = [token.content for token in tokens if token.type == "fence"]
    assert len(fences) == FLIPS and all(fence.startswith("The lines the baseline decided on (it rejects):\n")
                                        and "\nWhat the candidate reads otherwise (it passes):\n" in fence
                                        for fence in fences)


def test_a_comment_that_fits_is_shortened_nowhere_and_says_each_reason_once(make_repo, tmp_path):
    repo = make_repo({"lanes.yaml": POLICY, "src/a.py": "def f(x):\n    assert x\n    return x\n"})
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "HEAD").strip()
    for n in range(3):
        repo.write({"src/a.py": f"def f(x):\n    assert x != {n}\n    return x\n"}).commit(f"Reword {n}")
    candidate = tmp_path / "net.yaml"
    candidate.write_text(POLICY + "assertion_rule: net\n", encoding="utf-8")
    review = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main",
                     "--format", "markdown").stdout
    assert ("Every flip is listed with its lines; lanelog replay --format json prints the whole replay, every "
            "line of every patch.") in review
    assert review.count("the patch removes an assertion") == 1  # the reason's sentence, once for three flips
    assert review.count("- baseline: reject; assertion\\_removed: 1 removed line(s) match") == 3
    # The candidate's own lines: the added assert that offsets the removed one under net.
    assert "What the candidate reads otherwise (it passes):" in review
    assert "1 added assertion line(s) offset them under assertion_rule net:\n    src/a.py:2  +    assert x != 2" \
        in review


def test_the_comment_counts_the_copies_dedupe_left_out(make_repo, tmp_path):
    repo = make_repo({"lanes.yaml": POLICY})
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "HEAD").strip()
    first = repo.write({"src/a.py": "def f(x):\n    return x\n"}).commit("Add f")
    repo.git("checkout", "-q", "-b", "backport", base)
    repo.git("cherry-pick", "-x", first)  # -x: a message of its own, so a commit of its own
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #2 from acme/backport", "backport")
    review = lanelog("replay", "--repo", str(repo.root), "--policy", str(repo.root / "lanes.yaml"), "--commits",
                     f"{base}..main", "--dedupe", "--format", "markdown").stdout
    assert "1 duplicate(s) skipped: the same change as an earlier patch (--dedupe)." in review


def test_out_writes_the_json_and_an_unwritable_one_is_an_error(many_flips, tmp_path):
    repo, base, _heads, candidate = many_flips
    whole = tmp_path / "replay.json"
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main~28",
                   "--out", str(whole))
    assert done.returncode == 0 and done.stdout.startswith("2 patches replayed")
    assert json.loads(whole.read_text(encoding="utf-8"))["patches"] == 2
    missing = tmp_path / "no" / "such" / "replay.json"
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main~28",
                   "--out", str(missing))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"Error: --out {missing}: cannot write the replay (No such file or directory)\n"


def test_every_reject_of_a_candidate_alone_is_listed_within_the_limit(many_flips):
    repo, base, heads, _candidate = many_flips
    review = lanelog("replay", "--repo", str(repo.root), "--policy", str(repo.root / "lanes.yaml"), "--no-baseline",
                     "--commits", f"{base}..main", "--format", "markdown").stdout
    assert size(review) <= COMMENT_LIMIT - 1_536
    assert f"## Rejects ({FLIPS})" in review and review.count("<details>") == FLIPS
    assert f"<summary>{FLIPS}. {heads[-1][:12]}: candidate reject (assertion removed)</summary>" in review


def flip_rows(count: int) -> list:
    """``count`` flips of a line_cap reject, each with a long subject, message and file name."""
    part = {"counted": 900, "line_cap": 400, "files": [{"file": "a" * 150, "lines": 900}], "files_total": 1,
            "excluded": [], "excluded_total": 0, "excluded_lines": 0}
    return [({"head": f"{n:040x}", "subject": "s" * 300},
             [("baseline", {"probe": "reject", "reasons": ["line_cap"], "message": "line_cap: " + "x" * 500,
                            "evidence": {"line_cap": part}}),
              ("candidate", {"probe": "pass", "reasons": [], "message": None, "evidence": None})])
            for n in range(count)]


@pytest.mark.parametrize("count", [300, 1_500])
def test_the_section_holds_the_limit_however_many_flips_there_are(count):
    used = 5_000  # what the rest of the comment takes
    section = "\n".join(patches_section(flip_rows(count), "flip", used, "the JSON has them"))
    assert used + size(section) <= MARKDOWN_LIMIT
    if count == 300:  # the example workflow replays 300 patches: every flip keeps its row and its block
        assert section.count("\n| ") - 1 == 300 and section.count("<details>") == 300
        assert "Every flip is listed: " in section
    else:  # past about 1,200 rows alone, the last flips are left out, and the comment says so
        assert "Not every flip is listed: " in section and "flip(s) are left out, their rows too" in section


DEEP_FLIPS = 20


def deep(flip: int, word: str) -> str:
    """A test whose one assert closes a block of thirty long lines: a rewrite of the block removes the
    assert after thirty other removed lines and adds its own (strict rejects it, net passes it)."""
    return (f"def test_deep_{flip}(x):\n    '''Flip {flip}: each step of the walk, in order.'''\n"
            + "".join(f"    {word}_{n} = x.{word}_step_{n}({'q' * 110!r})\n" for n in range(30))
            + f"    assert {word}_29 == 'flip {flip}'\n")


def test_a_shortened_comment_keeps_each_flips_removed_assertion_before_the_lines_around_it(make_repo, tmp_path):
    repo = make_repo({"lanes.yaml": POLICY, **{f"src/test_deep_{n}.py": deep(n, "old") for n in range(DEEP_FLIPS)}})
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "HEAD").strip()
    heads = [repo.write({f"src/test_deep_{n}.py": deep(n, "new")}).commit(f"Walk flip {n:02d} anew")
             for n in range(DEEP_FLIPS)]
    candidate = tmp_path / "net.yaml"
    candidate.write_text(POLICY + "assertion_rule: net\n", encoding="utf-8")
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--baseline",
                   str(repo.root / "lanes.yaml"), "--commits", f"{base}..main", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    review = done.stdout
    assert size(review) <= MARKDOWN_LIMIT
    blocks = review.split("<details>")[1:]
    assert len(blocks) == DEEP_FLIPS
    for n, (head, block) in enumerate(zip(heads, blocks)):
        assert f"<summary>{n + 1}. {head[:12]}: baseline reject (assertion removed); candidate pass</summary>" in block
        # The removed assert, the line the reject rests on, at its old line number (33), deep in its block.
        assert f"src/test_deep_{n}.py:33  -    assert old_29 == 'flip {n}'" in block
        assert "The lines the baseline decided on (it rejects):" in block
        # What was cut is said, with its count.
        assert re.search(r"\.\.\. [0-9]+ more line\(s\) cut to fit the comment", block)
    # The room is spent before lines are cut: what is left is less than the longest line cut.
    assert MARKDOWN_LIMIT - size(review) < 200
