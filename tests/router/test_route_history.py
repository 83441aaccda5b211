"""Shapes real histories have (moves, renames, split test files, assertion edits), through
`lanelog route` on real repositories, under each `renames` and `assertion_rule` setting."""

from __future__ import annotations

import pytest

from tests.router.conftest import LANES_YAML

TEST_FILE = "".join(
    f"def test_case_{n}():\n    value = compute({n})\n    assert value == {n}, \"value of case {n}\"\n\n"
    for n in range(6)
)


def policy(**settings: str) -> str:
    return LANES_YAML + "".join(f"{key}: {value}\n" for key, value in settings.items())


def routed(make_repo, route, change, **settings: str) -> dict:
    repo = make_repo({"lanes.yaml": policy(**settings), "tests/test_orders.py": TEST_FILE,
                      "store.py": "def put(key, body):\n    return body\n"})
    change(repo)
    repo.commit("the patch")
    return route(repo).line


def move(repo, old: str, new: str) -> None:
    (repo.root / new).parent.mkdir(parents=True, exist_ok=True)
    repo.git("mv", old, new)


def move_test_file(repo) -> None:
    move(repo, "tests/test_orders.py", "tests/orders/test_orders.py")


def split_test_file(repo) -> None:
    cases = TEST_FILE.split("\n\n")
    repo.delete("tests/test_orders.py")
    repo.write({"tests/test_orders_a.py": "\n\n".join(cases[:3]) + "\n\n",
                "tests/test_orders_b.py": "\n\n".join(cases[3:])})


def fix_typo_in_message(repo) -> None:
    repo.write({"tests/test_orders.py": TEST_FILE.replace('"value of case 2"', '"value for case 2"')})


def rewrite_as_weaker_assert(repo) -> None:
    repo.write({"tests/test_orders.py": TEST_FILE.replace("assert value == 4,", "assert value,")})


def remove_a_test(repo) -> None:
    repo.write({"tests/test_orders.py": TEST_FILE.replace(
        'def test_case_5():\n    value = compute(5)\n    assert value == 5, "value of case 5"\n\n', "")})


def drop_a_comment_mentioning_assert(repo) -> None:
    repo.write({"store.py": "# assert nothing here\ndef put(key, body):\n    return body\n"})
    repo.commit("comment")  # the base of the patch is still main: the comment is added, then removed
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"})


# (change, fires under strict, net, moved_ok), as a reviewer would judge by hand.
CASES = {
    "move": (move_test_file, False, False, False),  # renames detected: nothing removed
    "split": (split_test_file, True, False, False),  # every assertion re-added word for word
    "typo": (fix_typo_in_message, True, False, True),  # the same count; the text changed
    "weaker": (rewrite_as_weaker_assert, True, False, True),  # `assert value` is not the same line
    "removal": (remove_a_test, True, True, True),  # a real removal fires under every rule
}


@pytest.mark.parametrize("rule_index, rule", [(1, "strict"), (2, "net"), (3, "moved_ok")])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_assertion_rule_on_real_history_shapes(make_repo, route, case, rule_index, rule):
    change, *expected = CASES[case]
    line = routed(make_repo, route, change, assertion_rule=rule)
    assert ("assertion_removed" in line["reasons"]) is expected[rule_index - 1], line["message"]


NO_PROPERTIES = "no_properties: no touched path maps to a property: nothing means stop"


def test_the_reject_gives_the_evidence_a_reviewer_needs(make_repo, route):
    line = routed(make_repo, route, fix_typo_in_message, assertion_rule="moved_ok")
    assert line["reasons"] == ["assertion_removed", "no_properties"]
    assert line["message"] == (
        "assertion_removed: 1 removed line(s) match an assertion pattern, 0 come back verbatim, "
        f"net change +0 (assertion_rule moved_ok); in tests/test_orders.py; {NO_PROPERTIES}")
    # git pairs the old file with the half it resembles: only the other half's lines move.
    split = routed(make_repo, route, split_test_file)  # strict, the default
    assert split["message"] == (
        "assertion_removed: 3 removed line(s) match an assertion pattern, 3 come back verbatim, "
        f"net change +0 (assertion_rule strict); in tests/test_orders_a.py; {NO_PROPERTIES}")


def test_a_moved_and_edited_file_counts_its_edits_only(make_repo, route):
    def move_and_edit(repo) -> None:
        move(repo, "tests/test_orders.py", "tests/orders/test_orders.py")
        repo.write({"tests/orders/test_orders.py": TEST_FILE.replace("compute(3)", "compute(3, fast=True)")})

    detect = routed(make_repo, route, move_and_edit)
    assert detect["lines_changed"] == 2
    split = routed(make_repo, route, move_and_edit, renames="split")
    assert split["lines_changed"] == 2 * TEST_FILE.count("\n")
    assert "assertion_removed" in split["reasons"]  # strict, on a move taken as delete plus add


def test_a_rename_is_excluded_only_when_both_paths_are(make_repo, route):
    big = "".join(f"row_{n} = {n}\n" for n in range(450))

    repo = make_repo({"generated/table.py": big})
    move(repo, "generated/table.py", "src/db/table.py")
    repo.write({"src/db/table.py": big.replace("row_1 =", "row_one =")})
    repo.commit("move out of generated, and edit")
    line = route(repo).line
    assert line["lines_changed"] == 2  # counted: only the old path is excluded
    repo2 = make_repo({"generated/a.py": big})
    move(repo2, "generated/a.py", "generated/b.py")
    repo2.write({"generated/b.py": big + "row_x = 1\n" * 500})
    repo2.commit("grow a generated file")
    assert route(repo2).line["lines_changed"] == 0  # both paths excluded


def test_git_config_cannot_change_a_decision(make_repo, route):
    def move(repo) -> None:
        repo.git("config", "diff.renames", "false")
        repo.git("config", "diff.algorithm", "patience")
        repo.git("config", "diff.renameLimit", "1")
        repo.git("config", "diff.noprefix", "true")
        repo.git("config", "diff.external", "false")
        move_test_file(repo)

    line = routed(make_repo, route, move)
    assert line["lines_changed"] == 0 and line["reasons"] == ["no_properties"]


@pytest.mark.parametrize("key, value", [("assertion_rule", "loose"), ("renames", "copies")])
def test_an_unknown_setting_is_policy_invalid_naming_the_key(make_repo, route, key, value):
    repo = make_repo({"lanes.yaml": policy(**{key: value})})
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    line = route(repo).line
    assert line["reasons"] == ["policy_invalid"]
    assert line["message"].startswith(
        f"policy_invalid: lanes.yaml (base commit) line 17, key {key}: must be one of ")
