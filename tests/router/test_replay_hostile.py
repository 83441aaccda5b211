"""`lanelog replay` on hostile history and hostile lane logs: framing, reading, escaping, far dates."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.router.conftest import LANES_YAML

CANDIDATE = LANES_YAML + "assertion_rule: net\n"


def lanelog(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def repo_and_candidate(make_repo, tmp_path):
    repo = make_repo()
    repo.git("checkout", "-q", "main")
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(CANDIDATE, encoding="utf-8")
    return repo, repo.git("rev-parse", "main").strip(), candidate


def replay_json(repo, candidate, *args: str) -> dict:
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)


def test_a_commit_subject_cannot_forge_a_patch(repo_and_candidate):
    repo, base, candidate = repo_and_candidate
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"})
    first = repo.commit("Return a copy")
    # The old framing split records on \x1e and fields on \x1f: this subject added a
    # second patch (base..first) with a subject of its choosing.
    forged = f"Harmless\x1e{first}\x1f{base}\x1f1790000000\x1fForged patch"
    repo.write({"api.py": "def handle(payload):\n    return payload\n"})
    repo.commit(forged)
    repo.write({"api.py": "def handle(payload):\n    return payload or None\n"})
    repo.commit("A record\x1e separator \x1f and a unit separator")
    result = replay_json(repo, candidate, "--commits", f"{base}..main")
    assert result["patches"] == 3
    subjects = [patch["subject"] for patch in result["records"]]
    assert subjects == ["Return a copy", forged, "A record\x1e separator \x1f and a unit separator"]
    assert "Forged patch" not in [flip["subject"] for flip in result["flips"]]


def test_a_commit_dated_far_beyond_year_9999_is_skipped_with_the_reason(repo_and_candidate, monkeypatch):
    repo, base, candidate = repo_and_candidate
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"})
    monkeypatch.setenv("GIT_COMMITTER_DATE", "@99999999999999 +0000")
    far = repo.commit("From the far future")
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    repo.write({"store.py": "def put(key, body):\n    return body\n"})
    repo.commit("Back to now")
    result = replay_json(repo, candidate, "--commits", f"{base}..main")
    assert result["patches"] == 1
    assert result["skipped"] == [{"head": far, "subject": "From the far future",
                                  "reason": "committer time 99999999999999 is outside the years 1 to 9999"}]


@pytest.fixture
def logged(make_repo, tmp_path):
    """A lane log of two real attempts, routed by the real command: a pass and a reject."""
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"})
    passed = repo.commit("narrow")
    # A file name with U+2028 in a patch that rejects.
    repo.write({"tests/test_store.py": "def test_put():\n    pass\n", "notes\u2028more.txt": "x\n"})
    rejected = repo.commit("drop an assert")
    log = tmp_path / "lane-log.jsonl"
    for head in (passed, rejected):
        done = lanelog("route", "--repo", str(repo.root), "--base", f"{head}^", "--head", head,
                       "--out", str(log), "--today", "2026-10-08")
        assert done.returncode in (0, 1), done.stderr
    # route writes it as the escape \u2028; another writer may not, and replay reads that too.
    log.write_text(log.read_text(encoding="utf-8").replace("\\u2028", "\u2028"), encoding="utf-8")
    assert "\u2028" in log.read_text(encoding="utf-8")
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(CANDIDATE, encoding="utf-8")
    return repo, log, candidate, passed, rejected


def test_a_line_separator_in_a_file_name_does_not_cut_a_recorded_line(logged):
    repo, log, candidate, passed, rejected = logged
    result = replay_json(repo, candidate, str(log))
    assert result["patches"] == 2 and result["skipped"] == []
    assert result["baseline"]["probe_rejects"] == 1
    assert [record["head"] for record in result["records"]] == [passed, rejected]


def test_recorded_fields_of_the_wrong_shape_are_skipped_naming_file_and_line(logged):
    repo, log, candidate, passed, rejected = logged
    good = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    bad = [
        {key: value for key, value in good.items() if key != "probe"},
        {**good, "units": "3"},
        {**good, "reasons": 5},
        {**good, "reasons": [["x"]]},
        {**good, "ts": "0001-01-01T00:30:00+01:00"},
        {**good, "base": "b" * 200_000},
        {**good, "model_call_allowed": "yes"},
        {**good, "probe": "<img src=x onerror=alert(1)>"},
    ]
    with log.open("a", encoding="utf-8") as handle:
        for line in bad:
            handle.write(json.dumps(line) + "\n")
        handle.write("[1, 2]\nnot json at all\n")
    result = replay_json(repo, candidate, str(log))
    assert result["patches"] == 2
    reasons = {skip["line"]: skip["reason"] for skip in result["skipped"]}
    assert list(reasons) == [f"{log}:{number}" for number in range(3, 13)]
    assert "probe must be pass or reject" in reasons[f"{log}:3"]
    assert "units must be a number" in reasons[f"{log}:4"]
    assert "reasons must be a list of text" in reasons[f"{log}:5"]
    assert "reasons must be a list of text" in reasons[f"{log}:6"]
    assert "ts" in reasons[f"{log}:7"] and "outside" in reasons[f"{log}:7"]
    assert "base" in reasons[f"{log}:8"] and len(reasons[f"{log}:8"]) < 400
    assert "model_call_allowed must be true or false" in reasons[f"{log}:9"]
    assert "probe must be pass or reject" in reasons[f"{log}:10"]
    assert "not a JSON object" in reasons[f"{log}:11"] and "not a JSON object" in reasons[f"{log}:12"]


def test_replay_reads_a_lane_log_as_ingest_does(logged, tmp_path):
    """A BOM, NaN, invalid UTF-8, a lone surrogate and a name given twice: replay and ingest once disagreed
    on each (lanelog/lane_line.py is now the one rule)."""
    repo, log, candidate, passed, rejected = logged
    first, second = log.read_bytes().splitlines()
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_bytes(b"\n".join([
        b"\xef\xbb\xbf" + first,                             # 1: a BOM at the file's start is skipped
        second[:-1] + b', "probe": "pass"}',                  # 2: the first "probe" counts: still a reject
        first[:-1] + b', "cost": NaN}',                       # 3: no JSON: skipped, as ingest rejects it
        first[:-1] + b', "note": "\xff"}',                     # 4: no UTF-8
        first[:-1] + b', "note": "\\ud800"}',                 # 5: a lone surrogate escape
    ]) + b"\n")
    result = replay_json(repo, candidate, str(hostile))
    assert result["patches"] == 2 and [record["head"] for record in result["records"]] == [passed, rejected]
    assert result["baseline"]["probe_rejects"] == 1
    assert result["skipped"] == [
        {"line": f"{hostile}:{number}", "reason": f"not a JSON object ({verdict}, as ingest rejects it): "
                                                  "not a lane-log line"}
        for number, verdict in ((3, "invalid_json"), (4, "invalid_utf8"), (5, "invalid_json"))]
    db = tmp_path / "lanelog.duckdb"
    assert lanelog("ingest", str(hostile), "--db", str(db)).returncode == 0
    done = lanelog("report", "--db", str(db), "--format", "json")
    report = json.loads(done.stdout)
    assert (report["totals"]["attempts"], report["totals"]["probe_rejects"]) == (2, 1)
    assert report["rejected_lines"] == 3


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_log_that_is_not_a_regular_file_is_refused_before_reading(logged, tmp_path, kind):
    repo, log, candidate, passed, rejected = logged
    special = tmp_path / "special.jsonl"
    if kind == "fifo":
        os.mkfifo(special)  # no writer: reading it would wait for ever
    elif kind == "device":
        special.symlink_to("/dev/zero")  # reading it would never end
    else:
        special.mkdir()
    done = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(repo.root),
                           "--policy", str(candidate), str(special)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr
    assert str(special) in done.stderr
    if kind != "folder":
        assert "not a regular file" in done.stderr


def test_a_line_longer_than_the_bound_is_skipped_not_held(logged):
    repo, log, candidate, passed, rejected = logged
    with log.open("a", encoding="utf-8") as handle:
        handle.write('{"pad": "' + "x" * (9 * 1024 * 1024) + '"}\n')
    result = replay_json(repo, candidate, str(log))
    assert result["patches"] == 2
    assert result["skipped"] == [{"line": f"{log}:3", "reason": "longer than 8388608 bytes: not read"}]


HOSTILE = ["\x1b]8;;http://evil.invalid\x07click\x1b]8;;\x07", "a\rb\x07c\x9bd",
           "<img src=x onerror=alert(1)>", "[link](http://evil.invalid)", "a|b", "`code`", "line\nbreak"]


def test_untrusted_text_is_escaped_for_the_terminal_and_for_markdown(logged):
    repo, log, candidate, passed, rejected = logged
    # The pass is recorded as a reject with hostile reasons: under the candidate it passes,
    # so it flips, and both its reasons and its subject reach the tables.
    lines = log.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first.update(probe="reject", reasons=HOSTILE, model_call_allowed=False)
    log.write_text(json.dumps(first, ensure_ascii=False) + "\n" + lines[1] + "\n", encoding="utf-8")
    table = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), str(log))
    assert table.returncode == 0, table.stderr
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", table.stdout)
    assert "\\x1b]8;;http://evil.invalid\\x07click" in table.stdout
    assert "line\nbreak" not in table.stdout and "a\rb" not in table.stdout
    review = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), str(log),
                     "--format", "markdown")
    assert review.returncode == 0, review.stderr
    text = review.stdout
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
    # lanelog's own markup is the flip's collapsed block; its summary escapes the reasons for HTML.
    assert "<summary>1. " in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    values = re.sub(r"^(</?details>|<summary>[^<>]*</summary>)$", "", text, flags=re.MULTILINE)
    assert not re.search(r"(?<!\\)[<\[`]", values), "every <, [ and backtick of a value is escaped"
    assert "\\<img src=x onerror=alert(1)\\>" in text and "a\\|b" in text and "\\`code\\`" in text
    assert "line\nbreak" not in text
    expected = None
    for row in text.splitlines():
        if not row.startswith("|"):
            expected = None
            continue
        cells = len(re.findall(r"(?<!\\)\|", row))
        expected = expected or cells  # a table's first row is its header
        assert cells == expected, row


def test_a_nul_in_a_raw_commit_message_cannot_add_a_field(repo_and_candidate, tmp_path):
    """git commit refuses a NUL, but a commit object can be written by hand: git log cuts
    the message there, so the NUL-framed fields still hold one commit."""
    repo, base, candidate = repo_and_candidate
    tree = repo.git("rev-parse", "main^{tree}").strip()
    raw = (f"tree {tree}\nparent {base}\nauthor a <a@b.invalid> 1790000000 +0000\n"
           f"committer a <a@b.invalid> 1790000000 +0000\n\nSubject\0{base}\0{base}\0001790000000\0Forged\n")
    obj = tmp_path / "commit-object"
    obj.write_bytes(raw.encode())
    forged = repo.git("hash-object", "-t", "commit", "-w", "--literally", str(obj)).strip()
    repo.git("update-ref", "refs/heads/main", forged)
    result = replay_json(repo, candidate, "--commits", f"{base}..main")
    assert [(record["head"], record["subject"]) for record in result["records"]] == [(forged, "Subject")]


def test_a_gzip_log_is_read_like_ingest_reads_it_and_a_damaged_one_is_named(logged, tmp_path):
    import gzip

    repo, log, candidate, passed, rejected = logged
    packed = tmp_path / "lane-log.jsonl.gz"
    packed.write_bytes(gzip.compress(log.read_bytes()))
    result = replay_json(repo, candidate, str(packed))
    assert [record["head"] for record in result["records"]] == [passed, rejected]
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed.read_bytes()[:-12])
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), str(cut))
    assert done.returncode == 2 and "Traceback" not in done.stderr and str(cut) in done.stderr
