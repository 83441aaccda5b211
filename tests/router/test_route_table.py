"""Each row of the seed's decision table, and each reject reason, on a real repository
with the real `lanelog route` command."""

from __future__ import annotations

from pathlib import Path

import pytest

import lanelog.router.run
from tests.router.conftest import LANES_YAML


def lines(count: int, word: str = "x") -> str:
    return "".join(f"{word}_{index} = {index}\n" for index in range(count))


def assert_rejected(line: dict, *reasons: str) -> None:
    assert line["probe"] == "reject"
    assert line["reasons"] == list(reasons)
    assert line["model_call_allowed"] is False
    assert line["properties"] == [] and line["quarantine"] == [] and line["units"] == 0
    assert line["merge_credit"] == 0 and line["review"] == "pending"
    assert line["lane"] == "not_started" and line["results"] == {}
    assert line["message"]


# Row: "Narrow diff, fixtures unchanged, properties mapped" -> pass, eligible, pending review.
def test_narrow_mapped_patch_passes_and_credit_stays_pending(make_repo, route):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    done = route(repo)
    line = done.line
    assert done.exit_code == 0
    assert line["probe"] == "pass" and line["reasons"] == [] and line["message"] is None
    assert line["properties"] == ["prop_round_trip", "prop_idempotent_put"]
    assert line["units"] == 2 and line["budget_cap"] == 3 and line["line_cap"] == 400
    assert line["lines_changed"] == 2 and line["files"] == ["store.py"]
    assert line["model_call_allowed"] is True
    assert line["merge_credit"] == 0 and line["review"] == "pending"
    assert line["quarantine"] == ["test_export_race"]
    assert line["head"] == repo.git("rev-parse", "HEAD").strip()
    assert line["base"] == repo.git("rev-parse", "main").strip()


# Row: "More than 400 lines added or removed" -> reject; 400 passes, 401 rejects.
@pytest.mark.parametrize(("count", "probe"), [(400, "pass"), (401, "reject")])
def test_line_cap_boundary(make_repo, route, count, probe):
    repo = make_repo({"store.py": ""})
    repo.write({"store.py": lines(count)}).commit()
    line = route(repo).line
    assert line["lines_changed"] == count
    if probe == "pass":
        assert line["probe"] == "pass"
    else:
        assert_rejected(line, "line_cap")
        assert "401 lines changed" in line["message"]


def test_deleted_lines_count_toward_the_cap(make_repo, route):
    repo = make_repo({"store.py": lines(300)})
    repo.write({"store.py": lines(150, "y")}).commit()
    line = route(repo).line
    assert line["lines_changed"] == 450
    assert_rejected(line, "line_cap")


def test_with_renames_split_a_rename_counts_as_delete_plus_add(make_repo, route):
    repo = make_repo({"src/db/old_store.py": lines(250),
                      "lanes.yaml": LANES_YAML + "renames: split\n"})
    repo.git("mv", "src/db/old_store.py", "src/db/new_store.py")
    repo.commit("rename")
    line = route(repo).line
    assert line["files"] == ["src/db/new_store.py", "src/db/old_store.py"]
    assert line["lines_changed"] == 500
    assert_rejected(line, "line_cap")


def test_a_pure_move_changes_no_lines_by_default(make_repo, route):
    repo = make_repo({"src/db/old_store.py": lines(250)})
    repo.git("mv", "src/db/old_store.py", "src/db/new_store.py")
    repo.commit("rename")
    line = route(repo).line
    assert line["probe"] == "pass"
    assert line["files"] == ["src/db/old_store.py", "src/db/new_store.py"]
    assert line["lines_changed"] == 0
    assert line["properties"] == ["prop_round_trip"]


def test_excluded_generated_file_is_counted_out_of_the_cap(make_repo, route):
    repo = make_repo()
    repo.write({"generated/schema_pb2.py": lines(5000), "deps.lock": lines(900),
                "store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert line["probe"] == "pass"
    assert line["lines_changed"] == 2
    assert line["files_count"] == 3


def test_binary_file_has_unknown_size(make_repo, route):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n",
                "img/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x01\x02"}).commit()
    line = route(repo).line
    assert_rejected(line, "size_unknown")
    assert "img/logo.png" in line["message"]


def test_binary_file_under_an_excluded_path_is_not_a_problem(make_repo, route):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n",
                "generated/blob.bin": b"\x00\x01\x02\x03"}).commit()
    assert route(repo).line["probe"] == "pass"


# Row: "Fixture path and test path in one diff" -> reject.
def test_fixture_and_test_in_one_diff(make_repo, route):
    repo = make_repo()
    repo.write({"fixtures/order.fixture.json": '{"id": 2}\n',
                "tests/test_store.py": "def test_put():\n    assert True\n    assert 2\n",
                "store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert_rejected(line, "fixture_and_test")
    assert "fixtures/order.fixture.json" in line["message"]
    assert "tests/test_store.py" in line["message"]


def test_a_fixture_under_tests_alone_is_not_a_mix(make_repo, route):
    repo = make_repo()
    repo.write({"tests/fixtures/a.json": "{}\n",
                "store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert line["probe"] == "pass"


def test_a_file_named_like_latest_rates_is_not_a_test(make_repo, route):
    repo = make_repo()
    repo.write({"src/latest_rates.py": "RATE = 2\n", "fixtures/rates.json": "{}\n",
                "store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    assert route(repo).line["probe"] == "pass"


# Row: "An assertion or prop_ id removed" -> reject.
@pytest.mark.parametrize("removed", ["    assert payload\n", "    expect(payload).ok()\n",
                                     "    check(prop_reject_empty)\n"])
def test_removed_assertion_rejects(make_repo, route, removed):
    repo = make_repo({"api.py": f"def handle(payload):\n{removed}    return payload\n"})
    repo.write({"api.py": "def handle(payload):\n    return payload\n"}).commit()
    line = route(repo).line
    assert_rejected(line, "assertion_removed")


def test_an_added_assertion_is_fine(make_repo, route):
    repo = make_repo()
    repo.write({"api.py": "def handle(payload):\n    assert payload\n    assert payload != b''\n"
                "    return payload\n"}).commit()
    assert route(repo).line["probe"] == "pass"


# "Any other touched file selects nothing, and nothing means stop."
def test_unmapped_file_selects_nothing_and_stops(make_repo, route):
    repo = make_repo()
    repo.write({"docs/notes.md": "hello\n"}).commit()
    line = route(repo).line
    assert_rejected(line, "no_properties")


def test_the_same_property_from_two_files_is_listed_once(make_repo, route):
    repo = make_repo({"src/db/cache.py": "A = 1\n"})
    repo.write({"src/db/cache.py": "A = 2\n",
                "store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert line["probe"] == "pass"
    assert line["properties"] == ["prop_round_trip", "prop_idempotent_put"]
    assert line["units"] == 2


def test_over_budget_says_split_the_patch(make_repo, route):
    policy = (make_repo().root / "lanes.yaml").read_text(encoding="utf-8")
    repo = make_repo({"lanes.yaml": policy.replace("budget_cap: 3", "budget_cap: 2")})
    repo.write({"api.py": "def handle(payload):\n    assert payload\n    return payload or None\n",
                "store.py": "B = 1\n"}).commit()
    line = route(repo).line
    assert_rejected(line, "over_budget")
    assert line["budget_cap"] == 2
    assert "3 units > budget_cap 2: split the patch; do not raise the cap" in line["message"]


def test_path_with_a_space_and_non_ascii_name(make_repo, route):
    repo = make_repo({"my dir/store.py": "A = 1\n", "données/store.py": "A = 1\n"})
    repo.write({"my dir/store.py": "A = 2\n", "données/store.py": "A = 2\n"}).commit()
    line = route(repo).line
    assert line["probe"] == "pass"
    assert line["files"] == ["données/store.py", "my dir/store.py"]
    assert line["lines_changed"] == 4


def test_reasons_are_collected_not_just_the_first(make_repo, route):
    repo = make_repo()
    repo.write({"docs/big.md": lines(401), "fixtures/order.fixture.json": "{}\n",
                "tests/test_store.py": "def test_put():\n    pass\n"}).commit()
    line = route(repo).line
    assert_rejected(line, "line_cap", "fixture_and_test", "assertion_removed", "no_properties")


# Row: "Named test is on the live flaky list" -> quarantine, other properties may run.
@pytest.mark.parametrize(("today", "quarantine", "expired"), [
    ("2026-10-22", ["test_export_race"], []),   # the expiry day itself is live
    ("2026-10-23", [], ["test_export_race"]),   # the day after, the row is dead
])
def test_freeze_is_live_through_its_expiry_day(make_repo, route, today, quarantine, expired):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo, today=today).line
    assert line["probe"] == "pass"
    assert line["quarantine"] == quarantine
    assert line["expired_freezes"] == expired
    assert line["merge_credit"] == 0
    assert line["ts"].startswith(today + "T")


def test_required_tests_narrow_the_quarantine(make_repo, route, tmp_path: Path):
    repo = make_repo({"flaky.yaml": "flaky:\n"
                      "  - {id: test_export_race, expires: 2026-10-22, owner: ci, reason: clock}\n"
                      "  - {id: test_slow_io, expires: 2026-12-01, owner: io, reason: disk}\n"})
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    assert route(repo).line["quarantine"] == ["test_export_race", "test_slow_io"]
    required = tmp_path / "required.txt"
    required.write_text("# the suite for store.py\ntest_slow_io\ntest_put\n", encoding="utf-8")
    line = route(repo, "--required-tests", str(required)).line
    assert line["quarantine"] == ["test_slow_io"]


def test_not_a_repo(route, tmp_path: Path):
    folder = tmp_path / "plain"
    folder.mkdir()
    line = route(folder).line
    assert_rejected(line, "not_a_repo")
    assert line["repo"] == "plain" and line["base"] is None and line["head"] is None
    assert line["budget_cap"] is None and line["lines_changed"] is None


def test_missing_folder_is_not_a_repo(route, tmp_path: Path):
    line = route(tmp_path / "nowhere").line
    assert_rejected(line, "not_a_repo")
    assert "no such folder" in line["message"]


def test_missing_base_ref_is_a_reject_never_a_skip(make_repo, route):
    repo = make_repo()
    repo.write({"store.py": "B = 1\n"}).commit()
    done = route(repo, base="origin/main")
    assert done.exit_code == 1
    assert_rejected(done.line, "base_missing")
    assert "origin/main" in done.line["message"]


def test_missing_head_ref(make_repo, route):
    repo = make_repo()
    line = route(repo, "--head", "no-such-branch").line
    assert_rejected(line, "head_missing")
    assert line["budget_cap"] == 3  # the base commit's policy was still read


def test_unrelated_histories_share_no_base(make_repo, route):
    repo = make_repo()
    repo.git("checkout", "-q", "--orphan", "stranger")
    repo.write({"store.py": "B = 1\n"}).commit("unrelated")
    line = route(repo).line
    assert_rejected(line, "base_missing")
    assert "share no history" in line["message"]


def test_policy_missing_fails_closed(make_repo, route):
    repo = make_repo(omit=("lanes.yaml",))
    repo.write({"store.py": "B = 1\n"}).commit()
    line = route(repo).line
    assert_rejected(line, "policy_missing")
    assert "lanes.yaml" in line["message"] and line["budget_cap"] is None


def test_a_patch_cannot_judge_itself_by_a_cap_it_raised(make_repo, route):
    repo = make_repo({"store.py": ""})
    policy = (repo.root / "lanes.yaml").read_text(encoding="utf-8")
    repo.write({"lanes.yaml": policy.replace("line_cap: 400", "line_cap: 5000"),
                "store.py": lines(600)}).commit()
    line = route(repo).line
    assert_rejected(line, "policy_changed", "line_cap")
    assert line["line_cap"] == 400
    assert "reviewed human pull request" in line["message"]


def test_touching_the_flaky_list_is_a_policy_change(make_repo, route):
    repo = make_repo()
    repo.write({"flaky.yaml": "flaky: []\n",
                "store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert_rejected(line, "policy_changed")


def test_a_patch_that_adds_the_missing_policy_is_still_rejected(make_repo, route):
    policy = (make_repo().root / "lanes.yaml").read_text(encoding="utf-8")
    repo = make_repo(omit=("lanes.yaml",))
    repo.write({"lanes.yaml": policy, "store.py": "B = 1\n"}).commit()
    line = route(repo).line
    assert_rejected(line, "policy_missing", "policy_changed")


def test_internal_error_is_logged_with_a_message_line(make_repo, route, monkeypatch):
    repo = make_repo()
    repo.write({"store.py": "B = 1\n"}).commit()

    def broken(*args, **kwargs):
        raise RuntimeError("numstat went away\n  second line of detail")

    monkeypatch.setattr(lanelog.router.run.Checkout, "diff", broken)
    done = route(repo)
    assert done.exit_code == 1
    assert_rejected(done.line, "internal_error")
    assert done.line["message"] == ("internal_error: RuntimeError: numstat went away "
                                    "second line of detail")
    assert "Traceback" not in done.stdout + done.stderr
    assert done.line["base"] is not None  # what was learned before the failure is kept
