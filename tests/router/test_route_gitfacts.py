"""The git facts the probe reads, on real repositories."""

from __future__ import annotations

import pytest

from lanelog.errors import RefInvalid
from lanelog.router.gitfacts import Checkout, check_ref
from lanelog.router.patch_lines import numbered_from_patch


def test_removed_lines_that_look_like_diff_headers_are_read_as_lines(make_repo):
    tricky = "--- a/store.py\n+++ b/store.py\n@@ -1 +1 @@\n-- assert in a comment\nkeep\n"
    repo = make_repo({"notes.sql": tricky})
    repo.write({"notes.sql": "keep\n++ added\n"}).commit()
    checkout = Checkout.open(repo.root)
    start, head = repo.git("rev-parse", "main").strip(), repo.git("rev-parse", "HEAD").strip()
    assert [change.text for change in checkout.diff(start, head).numbered_lines() if change.sign == "-"] == [
        "--- a/store.py", "+++ b/store.py", "@@ -1 +1 @@", "-- assert in a comment"]


def test_removed_lines_without_a_final_newline():
    patch = (b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old assert\n"
             b"\\ No newline at end of file\n+new\n\\ No newline at end of file\n")
    assert [change.text for change in numbered_from_patch(patch) if change.sign == "-"] == ["old assert"]


def test_line_counts_binary_and_rename(make_repo):
    repo = make_repo({"a.py": "1\n2\n3\n"})
    repo.git("mv", "a.py", "b.py")
    repo.write({"logo.png": b"\x00\x01\x02"}).commit()
    checkout = Checkout.open(repo.root / "tests")  # any folder inside the checkout
    assert checkout.toplevel == repo.root
    start, head = repo.git("rev-parse", "main").strip(), repo.git("rev-parse", "HEAD").strip()
    detected = checkout.diff(start, head)
    assert detected.line_counts == {"b.py": 0, "logo.png": None}
    assert detected.renamed == {"b.py": "a.py"}
    assert detected.paths == ["a.py", "b.py", "logo.png"]
    split = checkout.diff(start, head, renames="split")
    assert split.line_counts == {"a.py": 3, "b.py": 3, "logo.png": None}
    assert split.renamed == {}


def test_read_files_from_a_commit(make_repo):
    repo = make_repo({"ci/my lanes.yaml": "line_cap: 1\n"})
    (repo.root / "lanes.yaml").write_text("changed in the working tree\n", encoding="utf-8")
    checkout = Checkout.open(repo.root)
    base = repo.git("rev-parse", "main").strip()
    found = checkout.read_files(base, ["lanes.yaml", "ci/my lanes.yaml", "absent.yaml"])
    assert found["lanes.yaml"].startswith(b"line_cap: 400")
    assert found["ci/my lanes.yaml"] == b"line_cap: 1\n"
    assert found["absent.yaml"] is None


@pytest.mark.parametrize("ref", ["-x", "--output=/tmp/x", "", "a\nb"])
def test_refs_that_git_could_read_as_options_are_refused(ref):
    with pytest.raises(RefInvalid, match="refused ref"):
        check_ref(ref)


def test_resolve_does_not_take_a_ref_for_an_option(make_repo):
    checkout = Checkout.open(make_repo().root)
    assert checkout.resolve("main") is not None
    assert checkout.resolve("no-such-ref") is None
    with pytest.raises(RefInvalid):
        checkout.resolve("--all")
