"""The policy and the flaky list: where they are read from, and what makes them invalid."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from lanelog.router.flaky import FlakyInvalid, freeze_expiry, parse_flaky
from lanelog.router.policy import DEFAULTS, PolicyInvalid, parse_policy

GOOD = """\
properties:
  prop_round_trip: {units: 1, says: "serialize-then-parse returns the same record"}
  prop_reject_empty: {units: 2, says: "an empty payload remains a client error"}
map:
  store.py: [prop_round_trip]
  /api.py: [prop_reject_empty]
"""


def test_defaults_fill_every_optional_key_and_classify_like_the_seed():
    policy = parse_policy(GOOD, "lanes.yaml")
    assert (policy.line_cap, policy.budget_cap) == (DEFAULTS["line_cap"], DEFAULTS["budget_cap"])
    assert policy.is_fixture("fixtures/order.fixture.json")
    assert policy.is_fixture("a/b/fixtures/x.json")
    assert policy.is_test("tests/test_order.py") and policy.is_test("pkg/test_io.py")
    assert not policy.is_test("src/latest_rates.py")
    assert policy.is_excluded("poetry.lock") and policy.is_excluded("x/generated/y.py")
    assert policy.properties_for("deep/store.py") == ["prop_round_trip"]
    assert policy.properties_for("api.py") == ["prop_reject_empty"]
    assert policy.properties_for("deep/api.py") == []
    assert policy.is_assertion("    assert x") and policy.is_assertion("expect(y)")
    assert not policy.is_assertion("reassert = 1")


@pytest.mark.parametrize(("patterns", "joined"), [
    (["(?i)\\bASSERT", "Expect\\("], True),
    # Each compiles alone, but joined they are too large for RE2: searched one by one.
    (["(?i)\\bASSERT", "Expect\\(", "0\\pL{400}", "1\\pL{400}"], False),
])
def test_assertion_patterns_keep_their_own_flags_and_all_count(patterns, joined):
    quoted = ", ".join(f"'{pattern}'" for pattern in patterns)
    policy = parse_policy(GOOD + f"assertion_patterns: [{quoted}]\n", "lanes.yaml")
    assert (policy.assertion_any is not None) == joined
    assert policy.is_assertion("    assert x") and policy.is_assertion("Expect(y)")
    assert not policy.is_assertion("EXPECT(y)") and not policy.is_assertion("reassert")
    assert policy.is_assertion("1" + "é" * 400) == (not joined)


def test_an_empty_list_of_assertion_patterns_matches_nothing():
    policy = parse_policy(GOOD + "assertion_patterns: []\n", "lanes.yaml")
    assert not policy.is_assertion("assert x")


@pytest.mark.parametrize(("text", "expected"), [
    (GOOD + "  docs/: [prop_missing]\n",
     "lanes.yaml line 7, key map.docs/[0]: 'prop_missing' is not declared under properties"),
    (GOOD.replace("units: 2", "units: 0"),
     "lanes.yaml line 3, key properties.prop_reject_empty.units: units must be a positive "
     "integer, not 0"),
    (GOOD.replace("units: 2", "units: 1.5"), "units must be a positive integer, not 1.5"),
    (GOOD + "line_caps: 300\n",
     "lanes.yaml line 7, key line_caps: unknown key"),
    (GOOD + "assertion_patterns: ['(unclosed']\n",
     "lanes.yaml line 7, key assertion_patterns[0]: '(unclosed' is not an RE2 pattern "
     "(missing ): (unclosed)"),
    (GOOD + "exclude: ['[z-a]']\n",
     "lanes.yaml line 7, key exclude[0]: bad path pattern '[z-a]' (bad character range z-a"),
    (GOOD + "exclude: [" + ", ".join(f"'**/x{n}*[a-z]*[0-9]*?/**/*.py'" for n in range(2000))
     + "]\n", "lanes.yaml line 7, key exclude: too many or too large path patterns for RE2 "
     "(failed to compile Set)"),
    (GOOD + "line_cap: -1\n", "lanes.yaml line 7, key line_cap: must be a whole number >= 0"),
    (GOOD + "budget_cap: true\n", "key budget_cap: must be a whole number >= 0, not True"),
    (GOOD + "exclude: generated/\n", "lanes.yaml line 7, key exclude: must be a list of strings"),
    ("map: {}\n", "missing key 'properties'"),
    (GOOD.replace("prop_reject_empty: {", "prop reject: {").replace(
        "[prop_reject_empty]", "['prop reject']"),
     "property id 'prop reject' must be a word"),
    (GOOD.replace('says: "an empty payload remains a client error"', 'says: ""'),
     "says must state the property"),
    (GOOD + "map: {}\n", "lanes.yaml line 7: duplicate key 'map'"),
    ("properties: [\n", "lanes.yaml line 2: not valid YAML"),
    ("- a\n- b\n", "lanes.yaml line 1: the policy must be a mapping of keys"),
])
def test_invalid_policy_names_file_key_and_line(text, expected):
    with pytest.raises(PolicyInvalid) as caught:
        parse_policy(text, "lanes.yaml")
    assert expected in str(caught.value)


FLAKY = """\
flaky:
  - id: test_export_race
    expires: 2026-10-22
    owner: ci-team
    reason: shared clock in the export fixture
"""


def test_flaky_rows_parse_in_the_seeds_shape():
    (row,) = parse_flaky(FLAKY, "flaky.yaml")
    assert (row.id, row.expires, row.owner) == ("test_export_race", date(2026, 10, 22), "ci-team")
    assert freeze_expiry([row]) == {"test_export_race": date(2026, 10, 22)}
    assert parse_flaky("", "flaky.yaml") == [] and parse_flaky("flaky:\n", "f") == []


@pytest.mark.parametrize(("text", "expected"), [
    (FLAKY.replace("    owner: ci-team\n", ""),
     "flaky.yaml line 2, row 1 (test_export_race): missing owner"),
    (FLAKY + FLAKY.replace("flaky:\n", "").replace("2026-10-22", "2026-11-01"),
     "flaky.yaml line 6, row 2 (test_export_race): duplicate id (first in row 1)"),
    (FLAKY.replace("2026-10-22", "next week"),
     "row 1 (test_export_race): expires must be a date (YYYY-MM-DD), not 'next week'"),
    (FLAKY.replace("2026-10-22", "2026-10-22 10:00:00"), "expires must be a date"),
    (FLAKY.replace("    reason:", "    why:"), "unknown key 'why'"),
    ("flaky:\n  - test_export_race\n", "flaky.yaml line 2, row 1: a row must be a mapping"),
    ("rows: []\n", "flaky.yaml line 1, key rows: unknown key (known: flaky)"),
])
def test_invalid_flaky_list_names_the_row(text, expected):
    with pytest.raises(FlakyInvalid) as caught:
        parse_flaky(text, "flaky.yaml")
    assert expected in str(caught.value)


def test_invalid_policy_is_a_logged_reject_naming_the_problem(make_repo, route):
    repo = make_repo({"lanes.yaml": GOOD + "  docs/: [prop_missing]\n"})
    repo.write({"store.py": "B = 1\n"}).commit()
    done = route(repo)
    assert done.exit_code == 1
    assert done.line["reasons"] == ["policy_invalid"]
    assert done.line["message"] == (
        "policy_invalid: lanes.yaml (base commit) line 7, key map.docs/[0]: 'prop_missing' is "
        "not declared under properties")
    assert done.line["budget_cap"] is None and done.line["line_cap"] is None
    assert done.line["lines_changed"] is None and done.line["files"] == ["store.py"]


def test_invalid_flaky_list_is_a_logged_reject_naming_the_row(make_repo, route):
    repo = make_repo({"flaky.yaml": FLAKY.replace("    owner: ci-team\n", "")})
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert line["reasons"] == ["flaky_invalid"] and line["probe"] == "reject"
    assert "flaky.yaml (base commit) line 2, row 1 (test_export_race): missing owner" \
        in line["message"]
    assert line["budget_cap"] == 3  # the policy itself was usable


def test_missing_flaky_list_is_an_empty_list(make_repo, route):
    repo = make_repo(omit=("flaky.yaml",))
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert line["probe"] == "pass" and line["quarantine"] == []


def test_policy_is_read_from_the_base_commit_not_the_working_tree(make_repo, route):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    (repo.root / "lanes.yaml").write_text("not: [valid\n", encoding="utf-8")
    (repo.root / "flaky.yaml").unlink()
    line = route(repo).line
    assert line["probe"] == "pass" and line["quarantine"] == ["test_export_race"]


def test_policy_at_another_path_in_the_repo_is_read_from_the_base_commit(make_repo, route):
    policy = GOOD.replace("store.py:", "/store.py:")
    repo = make_repo({"ci/lanes.yaml": policy}, omit=("lanes.yaml",))
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n",
                "ci/lanes.yaml": policy + "line_cap: 5000\n"}).commit()
    line = route(repo, "--policy", str(repo.root / "ci" / "lanes.yaml")).line
    assert line["reasons"] == ["policy_changed"]
    repo.git("reset", "-q", "--hard", "main")
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo, "--policy", str(repo.root / "ci" / "lanes.yaml")).line
    assert line["probe"] == "pass" and line["properties"] == ["prop_round_trip"]
    assert line["units"] == 1


def test_policy_outside_the_checkout_is_read_as_it_is(make_repo, route, tmp_path: Path):
    repo = make_repo(omit=("lanes.yaml",))
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    outside = tmp_path / "shared-lanes.yaml"
    outside.write_text(GOOD.replace("units: 1", "units: 3"), encoding="utf-8")
    line = route(repo, "--policy", str(outside)).line
    assert line["probe"] == "pass" and line["units"] == 3
    line = route(repo, "--policy", str(tmp_path / "absent.yaml")).line
    assert line["reasons"] == ["policy_missing"]
    assert str(tmp_path / "absent.yaml") in line["message"]


def test_flaky_list_outside_the_checkout(make_repo, route, tmp_path: Path):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    outside = tmp_path / "flaky.yaml"
    outside.write_text(FLAKY.replace("test_export_race", "test_clock"), encoding="utf-8")
    line = route(repo, "--flaky", str(outside)).line
    assert line["quarantine"] == ["test_clock"]


def test_a_policy_path_inside_the_checkout_missing_from_the_base_says_where_it_was_read(make_repo, route):
    repo = make_repo(omit=("lanes.yaml",))
    base = repo.git("rev-parse", "main").strip()
    # The file is on disk in the checkout, but not in the base commit.
    (repo.root / "lanes.yaml").write_text(GOOD, encoding="utf-8")
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"})
    repo.git("add", "store.py")
    repo.git("commit", "-q", "-m", "narrow")
    line = route(repo, "--policy", str(repo.root / "lanes.yaml")).line
    assert line["reasons"] == ["policy_missing"]
    assert line["message"].startswith(
        f"policy_missing: lanes.yaml is not in the base commit {base[:12]}; the router reads the "
        "policy from the base commit")
    assert "merge the policy first in its own pull request" in line["message"]


def test_the_first_policy_is_told_to_be_merged_on_its_own(make_repo, route):
    """The README's order, done wrong: the policy and a patch in one pull request."""
    repo = make_repo(omit=("lanes.yaml",))
    repo.write({"lanes.yaml": GOOD, "store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert line["reasons"] == ["policy_missing", "policy_changed"]
    assert ("policy_changed: the patch adds the first policy, which no base commit holds yet: "
            "merge the policy first in its own pull request") in line["message"]
    assert "reviewed human pull request" not in line["message"]
    # Done right: the policy merged first, the patch routed against a base that holds it.
    repo.git("checkout", "-q", "main")
    repo.write({"lanes.yaml": GOOD}).commit("lanelog policy")
    repo.git("checkout", "-q", "-b", "patch-2")
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert line["probe"] == "pass"
