"""The evidence a reviewer decides on, in real histories' shapes: a removed assertion's whole statement,
the diff's lines around it (a new guard, a rewritten parametrize table), the added assertion that
replaced it paired by content, and the added assertions that offset it under net and moved_ok."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lanelog.evidence_text import evidence_lines
from lanelog.router.evidence import MAX_LINES
from lanelog.router.excerpts import MAX_EXCERPT_LINES, MAX_STATEMENT
from tests.router.test_route_evidence import POLICY

# flask 165af0a090: a formatter moves an assert's condition onto its first line.
REFLOW = ("class Flask:\n    def __init__(self, static_host, host_matching):\n"
          "        # For one, it might be created while the server is running\n"
          "        if self.has_static_folder:\n"
          "            assert (\n                bool(static_host) == host_matching\n"
          "            ), \"Invalid static_host/host_matching combination\"\n"
          "            # Use a weakref to avoid creating a reference cycle\n"
          "            self_ref = weakref.ref(self)\n")
REFLOWED = REFLOW.replace("            assert (\n                bool(static_host) == host_matching\n"
                          "            ), \"Invalid static_host/host_matching combination\"\n",
                          "            assert bool(static_host) == host_matching, (\n"
                          "                \"Invalid static_host/host_matching combination\"\n            )\n")
# flask 5e621a2801: the expected values move out of the parametrize table and behind a version guard.
GUARDED = ("def test_server_name(client, expect_base, expect_xyz):\n"
           "    r = client.get(base_url=\"http://example.test\")\n    assert r.text == expect_base\n\n"
           "    r = client.get(base_url=\"http://xyz.other.test\")\n\n    assert r.text == expect_xyz\n")
GUARDS = ("def test_server_name(client, expect_host):\n"
          "    r = client.get(base_url=\"http://example.test\")\n    assert r.text == \"default\"\n\n"
          "    r = client.get(base_url=\"http://xyz.other.test\")\n\n    if werkzeug_3_2:\n"
          "        assert r.text == \"default\"\n    else:\n        assert r.text == expect_host\n")
TABLE = ("@pytest.mark.parametrize(\n    (\"value\", \"expected\"),\n    [\n        (1, 2),\n        (2, 3),\n"
         "    ],\n)\ndef test_inc(value, expected):\n    assert inc(value) == expected\n")
TABLED = TABLE.replace("(2, 3)", "(2, 4)").replace("assert inc(value) == expected", "assert inc(value) + 1 == expected")
# flask c17f379390: the k-th added assert of a block is not what replaced the k-th removed one.
SESSION = ("def test_session(client):\n    rv = client.get(\"/\")\n    assert not flask.session.accessed\n"
           "    assert rv.status_code == 200\n    return rv\n")
SESSIONED = ("def test_session(client):\n    rv = client.get(\"/\")\n    assert \"cookie\" not in rv.vary\n"
             "    assert not flask.session.accessed()\n    return rv\n")
# httpx 8327e13454: one assert goes, three (one over two lines) come: net change +2.
CHECKED = "def test_get(client):\n    response = client.get(\"/\")\n    assert response\n    return response\n"
CHECKS = ("def test_get(client):\n    response = client.get(\"/\")\n    assert response.status_code == 200\n"
          "    assert response.text == \"ok\"\n    assert response.headers == {\n        \"content-length\": \"2\",\n"
          "    }\n    return response\n")


@pytest.fixture
def shaped(make_repo, tmp_path):
    """main: the base, then one commit a shape; beside it the net and moved_ok candidates."""
    repo = make_repo({"lanes.yaml": POLICY, "src/flask/app.py": REFLOW, "src/test_basic.py": GUARDED,
                      "src/test_inc.py": TABLE, "src/test_session.py": SESSION, "src/test_get.py": CHECKED})
    repo.git("checkout", "-q", "main")
    heads = {"base": repo.git("rev-parse", "HEAD").strip()}
    for key, files in (("reflow", {"src/flask/app.py": REFLOWED}), ("guard", {"src/test_basic.py": GUARDS}),
                       ("table", {"src/test_inc.py": TABLED}), ("session", {"src/test_session.py": SESSIONED}),
                       ("checks", {"src/test_get.py": CHECKS})):
        heads[key] = repo.write(files).commit(f"The {key} shape")
    candidates = {}
    for rule in ("net", "moved_ok"):
        candidates[rule] = tmp_path / f"{rule}.yaml"
        candidates[rule].write_text(POLICY + f"assertion_rule: {rule}\n", encoding="utf-8")
    return repo, heads, candidates


def shown_as(file: str, rows: list[tuple[int, str, str]]) -> list[str]:
    """Lines as the reviewer reads them: file:line, two spaces, the sign (a space: unchanged), the text."""
    return [f"{file}:{number}  {sign}{text}" for number, sign, text in rows]


def evidence_of(route, repo, head: str, *policy: str) -> dict:
    line = route(repo, "--base", f"{head}^", "--head", head, *policy, base=None).line
    return line["evidence"]["assertion_removed"]


def test_a_reflowed_assert_shows_the_removed_condition_and_the_guard_above_it(shaped, route):
    repo, heads, _candidates = shaped
    shown = evidence_lines({"assertion_removed": evidence_of(route, repo, heads["reflow"])})
    # By hand: the old statement is lines 5 to 7, the new one 5 to 7; three unchanged lines before
    # them (the guard the last), two after, to the end of the file.
    assert shown[2:] == shown_as("src/flask/app.py", [
        (2, " ", "    def __init__(self, static_host, host_matching):"),
        (3, " ", "        # For one, it might be created while the server is running"),
        (4, " ", "        if self.has_static_folder:"),
        (5, "-", "            assert ("), (6, "-", "                bool(static_host) == host_matching"),
        (7, "-", '            ), "Invalid static_host/host_matching combination"'),
        (5, "+", "            assert bool(static_host) == host_matching, ("),
        (6, "+", '                "Invalid static_host/host_matching combination"'), (7, "+", "            )"),
        (8, " ", "            # Use a weakref to avoid creating a reference cycle"),
        (9, " ", "            self_ref = weakref.ref(self)")]) + [
        "Each removed line and the most similar added assertion of its change block:",
        "    -src/flask/app.py:5 is replaced by +src/flask/app.py:5"]
    assert shown[1].startswith("The diff around them (- removed, at its old line number; + added")


def test_a_guarded_assert_shows_the_new_guard_and_is_paired_with_the_most_similar_assert(shaped, route):
    repo, heads, _candidates = shaped
    part = evidence_of(route, repo, heads["guard"])
    # By hand: expect_base (old line 3) gives way to "default" at line 3; expect_xyz (old line 7) to
    # expect_host at line 10, under `else:`, not to the block's first added assert (line 8).
    assert [(row["old_line"], row["replaced_by"]["line"], row["replaced_by"]["text"]) for row in part["lines"]] == [
        (3, 3, '    assert r.text == "default"'), (7, 10, "        assert r.text == expect_host")]
    shown = evidence_lines({"assertion_removed": part})
    assert shown_as("src/test_basic.py", [
        (7, "-", "    assert r.text == expect_xyz"), (7, "+", "    if werkzeug_3_2:"),
        (8, "+", '        assert r.text == "default"'), (9, "+", "    else:"),
        (10, "+", "        assert r.text == expect_host")]) == shown[-8:-3]
    assert shown[-2:] == ["    -src/test_basic.py:3 is replaced by +src/test_basic.py:3",
                          "    -src/test_basic.py:7 is replaced by +src/test_basic.py:10"]


def test_a_parametrize_change_near_an_assert_is_shown_with_it(shaped, route):
    repo, heads, _candidates = shaped
    shown = evidence_lines({"assertion_removed": evidence_of(route, repo, heads["table"])})
    # By hand: the table's row 5 changed two unchanged lines above the assert: git shows them together.
    assert shown[2:12] == shown_as("src/test_inc.py", [
        (2, " ", '    ("value", "expected"),'), (3, " ", "    ["), (4, " ", "        (1, 2),"),
        (5, "-", "        (2, 3),"), (5, "+", "        (2, 4),"), (6, " ", "    ],"), (7, " ", ")"),
        (8, " ", "def test_inc(value, expected):"), (9, "-", "    assert inc(value) == expected"),
        (9, "+", "    assert inc(value) + 1 == expected")])


def test_replaced_by_is_the_most_similar_added_assert_not_the_kth(shaped, route):
    repo, heads, _candidates = shaped
    part = evidence_of(route, repo, heads["session"])
    assert [(row["text"].strip(), row["replaced_by"]["text"].strip()) for row in part["lines"]] == [
        ("assert not flask.session.accessed", "assert not flask.session.accessed()"),
        ("assert rv.status_code == 200", 'assert "cookie" not in rv.vary')]


def test_under_net_the_added_asserts_that_offset_the_removed_one_are_listed_whole(shaped, route):
    repo, heads, candidates = shaped
    strict = evidence_of(route, repo, heads["checks"])
    net = evidence_of(route, repo, heads["checks"], "--policy", str(candidates["net"]))
    assert "offsetting" not in strict  # under strict an added assert offsets nothing
    assert (net["fired"], net["net"], net["offsetting_total"]) == (False, 2, 3)
    assert net["offsetting"] == [
        {"file": "src/test_get.py", "line": 3, "text": "    assert response.status_code == 200", "statement": []},
        {"file": "src/test_get.py", "line": 4, "text": '    assert response.text == "ok"', "statement": []},
        {"file": "src/test_get.py", "line": 5, "text": "    assert response.headers == {",
         "statement": [{"sign": "+", "text": '        "content-length": "2",'}, {"sign": "+", "text": "    }"}]}]
    shown = evidence_lines({"assertion_removed": net})
    at = shown.index("3 added assertion line(s) offset them under assertion_rule net:")
    assert shown[at + 3:] == ["    src/test_get.py:5  +    assert response.headers == {",
                              '    src/test_get.py:6  +        "content-length": "2",', "    src/test_get.py:7  +    }"]


def test_under_moved_ok_the_lines_that_bring_an_assert_back_are_listed(make_repo, route, tmp_path):
    repo = make_repo({"lanes.yaml": POLICY, "src/a.py": "def f(x):\n    assert x\n    return x\n"})
    repo.write({"src/a.py": "def f(x):\n    return x\n", "src/b.py": "def g(x):\n    assert x\n"}).commit("Move it")
    moved = tmp_path / "moved.yaml"
    moved.write_text(POLICY + "assertion_rule: moved_ok\n", encoding="utf-8")
    part = route(repo, "--policy", str(moved)).line["evidence"]["assertion_removed"]
    assert (part["fired"], part["offsetting_total"]) == (False, 1)
    assert part["offsetting"] == [{"file": "src/b.py", "line": 2, "text": "    assert x"}]
    assert "1 added line(s) bring removed ones back verbatim (assertion_rule moved_ok):" in evidence_lines(
        {"assertion_removed": part})


def test_statements_excerpts_and_offsetting_are_bounded(make_repo, route, tmp_path):
    long_call = "    assert f(\n" + "".join(f"        {n},\n" for n in range(30)) + "    )\n"
    many = "".join(f"    assert value != {n}\n    value += 1\n\n\n\n" for n in range(MAX_LINES + 5))
    repo = make_repo({"lanes.yaml": POLICY, "src/long.py": f"def t():\n{long_call}",
                      "src/many.py": f"def f(value):\n{many}"})
    repo.write({"src/long.py": "def t():\n    return 0\n",
                "src/many.py": f"def f(value):\n{many.replace('assert value != ', 'assert value > ')}"}).commit()
    net = tmp_path / "net.yaml"
    net.write_text(POLICY + "assertion_rule: net\n", encoding="utf-8")
    part = route(repo, "--policy", str(net)).line["evidence"]["assertion_removed"]
    first = next(row for row in part["lines"] if row["file"] == "src/long.py")
    assert len(first["statement"]) == MAX_STATEMENT and first["statement"][0] == {"sign": "-", "text": "        0,"}
    assert sum(len(excerpt["lines"]) for excerpt in part["excerpts"]) == MAX_EXCERPT_LINES
    assert (len(part["lines"]), len(part["offsetting"])) == (MAX_LINES, MAX_LINES)
    assert part["offsetting_total"] == MAX_LINES + 5


def test_a_bracket_inside_a_string_or_a_comment_does_not_continue_the_statement(make_repo, route):
    repo = make_repo({"lanes.yaml": POLICY,
                      "src/s.py": "def t(x):\n    assert x == \"(\"  # a ( in a comment\n    return [x]\n"})
    repo.write({"src/s.py": "def t(x):\n    return [x]\n"}).commit()
    assert route(repo).line["evidence"]["assertion_removed"]["lines"][0]["statement"] == []


def test_replay_carries_the_evidence_route_writes_for_every_shape(shaped, route):
    repo, heads, candidates = shaped
    done = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(repo.root), "--policy",
                           str(candidates["net"]), "--commits", f"{heads['base']}..main", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = {record["head"]: record for record in json.loads(done.stdout)["records"]}
    for key in ("reflow", "guard", "table", "session", "checks"):
        head = heads[key]
        assert records[head]["baseline"]["evidence"] == route(repo, "--base", f"{head}^", "--head", head,
                                                              base=None).line["evidence"]
        under_net = route(repo, "--base", f"{head}^", "--head", head, "--policy", str(candidates["net"]), base=None)
        assert records[head]["candidate"]["evidence"] == under_net.line["evidence"]
        assert under_net.line["evidence"]["assertion_removed"]["excerpts"]  # lines are compared, not nothing
