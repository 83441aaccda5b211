"""Freezes scoped to what they guard: `paths` and `properties` on flaky.yaml rows, through `lanelog route`."""

from __future__ import annotations

import pytest

SCOPED = """\
flaky:
  - id: test_export_race
    expires: 2026-10-22
    owner: ci-team
    reason: shared clock in the export fixture
    paths: ["export/", "store.py"]
  - id: test_api_timeout
    expires: 2026-10-30
    owner: api-team
    reason: slow upstream in CI
    properties: [prop_reject_empty]
  - id: test_everything
    expires: 2026-10-01
    owner: release
    reason: an old freeze on every patch, expired
"""
NARROW_STORE = {"store.py": "def put(key, body):\n    return dict(body)\n"}
NARROW_API = {"api.py": "def handle(payload):\n    assert payload\n    return dict(payload)\n"}


@pytest.mark.parametrize("change, quarantine", [
    (NARROW_STORE, ["test_export_race"]),  # touches a guarded path
    (NARROW_API, ["test_api_timeout"]),  # selects a guarded property
])
def test_a_scoped_freeze_applies_only_to_a_patch_in_its_scope(make_repo, route, change, quarantine):
    repo = make_repo({"flaky.yaml": SCOPED})
    repo.write(change).commit()
    line = route(repo).line
    assert line["probe"] == "pass"
    assert line["quarantine"] == quarantine
    assert line["expired_freezes"] == ["test_everything"]  # no scope: every patch
    owners = {"test_export_race": "ci-team", "test_api_timeout": "api-team"}
    assert line["freezes"] == {
        quarantine[0]: {"owner": owners[quarantine[0]], "expires": "2026-10-22" if quarantine[0] == "test_export_race"
                        else "2026-10-30"},
        "test_everything": {"owner": "release", "expires": "2026-10-01"},
    }


def test_required_tests_still_narrow_a_scoped_list(make_repo, route, tmp_path):
    repo = make_repo({"flaky.yaml": SCOPED})
    repo.write(NARROW_STORE).commit()
    required = tmp_path / "required.txt"
    required.write_text("test_api_timeout\n")
    line = route(repo, "--required-tests", str(required)).line
    assert line["quarantine"] == [] and line["expired_freezes"] == []  # in the list, out of scope
    assert "freezes" not in line


@pytest.mark.parametrize("row, message", [
    ("    paths: []\n", "paths must be a non-empty list of strings"),
    ("    properties: prop_round_trip\n", "properties must be a non-empty list of strings"),
    ("    scope: everything\n", "unknown key 'scope'"),
])
def test_a_bad_scope_is_flaky_invalid_naming_the_row(make_repo, route, row, message):
    flaky = "flaky:\n  - id: test_x\n    expires: 2026-10-22\n    owner: ci\n    reason: r\n" + row
    repo = make_repo({"flaky.yaml": flaky})
    repo.write(NARROW_STORE).commit()
    line = route(repo).line
    assert line["reasons"] == ["flaky_invalid"]
    assert "flaky.yaml (base commit) line 2, row 1 (test_x): " + message in line["message"]
