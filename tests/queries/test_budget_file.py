"""The budgets file: hostile values are refused with the file, line and key; patterns match safely."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lanelog.errors import BudgetInvalid
from lanelog.queries.budget_file import Budget, glob_match, parse_budgets, read_budgets

GOOD = """\
budgets:
  - name: all-spend
    amount: 1.0
    currency: USD
    period: week
  - name: svc.month
    amount: 250
    currency: EUR
    period: month
    repo: "svc-*"
    property: prop_round_trip
    thresholds: [1.0, 0.5]
"""


def test_a_good_file_gives_its_budgets_with_the_default_thresholds() -> None:
    first, second = parse_budgets(GOOD, "budgets.yaml")
    assert first == Budget("all-spend", 1.0, "USD", "week", where="budgets.yaml line 2, key budgets[0]")
    assert first.thresholds == (0.8, 1.0) and first.scope_text() == "all spend"
    assert (second.amount, second.repo, second.property, second.thresholds) == (250.0, "svc-*", "prop_round_trip",
                                                                                 (0.5, 1.0))
    assert second.scope_text() == "repositories svc-*, property prop_round_trip"


def one(**fields: str) -> str:
    """A file of one budget: the good first budget with some of its lines replaced or added."""
    row = {"name": "all-spend", "amount": "1.0", "currency": "USD", "period": "week", **fields}
    return "budgets:\n  - " + "\n    ".join(f"{key}: {value}" for key, value in row.items() if value != "-") + "\n"


@pytest.mark.parametrize(("fields", "message"), [
    ({"amount": "-5"}, "line 3, key budgets[0].amount: an amount must be a number above 0 and at most 1e+09, not -5"),
    ({"amount": "0"}, "line 3, key budgets[0].amount: an amount must be a number above 0"),
    ({"amount": ".nan"}, "line 3, key budgets[0].amount: an amount must be a number above 0 and at most 1e+09, "
                         "not nan"),
    ({"amount": ".inf"}, "key budgets[0].amount: an amount must be a number above 0"),
    ({"amount": "1.0e+10"}, "key budgets[0].amount: an amount must be a number above 0 and at most 1e+09, "
                            "not 10000000000.0"),
    ({"amount": "1e3"}, "key budgets[0].amount: an amount must be a number above 0 and at most 1e+09, not text ('1e3') "
                        "(YAML reads this as text: write 1000 or 1.0e+3)"),
    ({"amount": "true"}, "key budgets[0].amount: an amount must be a number"),
    ({"amount": "'12'"}, "key budgets[0].amount: an amount must be a number above 0 and at most 1e+09, "
                         "not text ('12')"),
    ({"currency": "usd"}, "line 4, key budgets[0].currency: a currency must be three capital letters"),
    ({"currency": "DOLLARS"}, "key budgets[0].currency: a currency must be three capital letters"),
    ({"currency": "'US$'"}, "key budgets[0].currency: a currency must be three capital letters such as USD "
                            "(as the usage the runs report), not 'US$'"),
    ({"period": "day"}, "line 5, key budgets[0].period: a period must be week (ISO, from Monday, UTC) or "
                        "month (UTC), not 'day'"),
    ({"limit": "3"}, "line 6, key budgets[0].limit: unknown key (known: name, amount, currency, period, repo, "
                     "property, thresholds)"),
    ({"period": "-"}, "line 2, key budgets[0]: missing key 'period'"),
    ({"name": "'two words'"}, "line 2, key budgets[0].name: a name must be a word"),
    ({"name": "'<!channel>'"}, "key budgets[0].name: a name must be a word"),
    ({"repo": "''"}, "line 6, key budgets[0].repo: repo must be a repository name or a pattern"),
    ({"repo": '"svc\\n*"'}, "key budgets[0].repo: repo must be a repository name or a pattern of printable"),
    ({"repo": "'" + "a" * 201 + "'"}, "key budgets[0].repo: repo must be a repository name"),
    ({"property": "'prop; rm -rf'"}, "key budgets[0].property: property must be a property id"),
    ({"thresholds": "[0.8, .nan]"}, "line 6, key budgets[0].thresholds[1]: a threshold must be a share of the "
                                    "amount above 0 and at most 10"),
    ({"thresholds": "[-1]"}, "key budgets[0].thresholds[0]: a threshold must be a share"),
    ({"thresholds": "[1.0, 1.0]"}, "key budgets[0].thresholds[1]: threshold 1 is listed twice"),
    ({"thresholds": "[]"}, "key budgets[0].thresholds: thresholds must be a list of 1 to 10 shares"),
])
def test_a_hostile_value_is_refused_naming_file_line_and_key(fields: dict[str, str], message: str) -> None:
    with pytest.raises(BudgetInvalid) as caught:
        parse_budgets(one(**fields), "budgets.yaml")
    assert str(caught.value).startswith("budgets.yaml ")
    assert message in str(caught.value)


@pytest.mark.parametrize(("text", "message"), [
    ("", "budgets.yaml: the file must hold `budgets:`, a list of budgets"),
    ("- a\n", "budgets.yaml line 1: the file must hold `budgets:`"),
    ("budgets: []\n", "budgets.yaml line 1, key budgets: must be a list of one or more budgets"),
    ("budgets:\n  - 3\n", "budgets.yaml line 2, key budgets[0]: a budget must be a mapping"),
    ("budget: []\nbudgets: [{}]\n", "budgets.yaml line 1, key budget: unknown key (known: budgets)"),
    (GOOD.replace("svc.month", "all-spend"), "budgets.yaml line 6, key budgets[1].name: a second budget named "
                                             "'all-spend'"),
    ("budgets:\n  - &b {name: a, amount: 1, currency: USD, period: week}\n  - *b\n",
     "budgets.yaml line 2: anchors and aliases (&name, *name) are not allowed"),
    ("budgets:\n  - name: a\n    name: b\n", "budgets.yaml line 3: duplicate key 'name'"),
    ("budgets: [\n", "budgets.yaml line 2: not valid YAML"),
    ("budgets:\n" + "".join(f"  - {{name: b{n}, amount: 1, currency: USD, period: week}}\n" for n in range(101)),
     "budgets.yaml line 1, key budgets: more than 100 budgets"),
])
def test_a_file_of_the_wrong_shape_is_refused(text: str, message: str) -> None:
    with pytest.raises(BudgetInvalid) as caught:
        parse_budgets(text, "budgets.yaml")
    assert message in str(caught.value)


def test_a_file_that_is_not_a_regular_file_or_not_text_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(BudgetInvalid, match="fifo.yaml: the budgets file is not a regular file"):
        read_budgets(fifo)
    with pytest.raises(BudgetInvalid, match="missing.yaml: cannot read the budgets file"):
        read_budgets(tmp_path / "missing.yaml")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"budgets: \xff\n")
    with pytest.raises(BudgetInvalid, match="binary.yaml: not UTF-8 text"):
        read_budgets(binary)
    huge = tmp_path / "huge.yaml"
    huge.write_bytes(b"#" * 1_000_001)
    with pytest.raises(BudgetInvalid, match="huge.yaml: larger than 1000000 bytes"):
        read_budgets(huge)
    good = tmp_path / "budgets.yaml"
    good.write_text(GOOD)
    assert [budget.name for budget in read_budgets(good)] == ["all-spend", "svc.month"]


@pytest.mark.parametrize(("pattern", "text", "matches"), [
    ("svc-*", "svc-orders", True),
    ("svc-*", "svc-", True),
    ("svc-*", "web-svc-orders", False),
    ("*-orders", "svc-orders", True),
    ("s?c-*s", "svc-orders", True),
    ("s?c-*s", "svc-order", False),
    ("svc-orders", "svc-orders", True),
    ("svc-orders", "svc-orders2", False),
    # No character but * and ? is special: % and _ (SQL LIKE), [ ] (glob classes) and . are themselves.
    ("svc_%", "svc-orders", False),
    ("svc_%", "svc_%", True),
    ("[abc]", "a", False),
    ("[abc]", "[abc]", True),
    ("a.c", "abc", False),
    ("*", "", True),
    ("", "", True),
    ("", "a", False),
    ("**a**", "bab", True),
])
def test_a_repo_pattern_matches_only_what_it_says(pattern: str, text: str, matches: bool) -> None:
    assert glob_match(pattern, text) is matches


def test_a_pattern_made_to_backtrack_still_answers() -> None:
    # A backtracking matcher takes exponential steps here; the walk takes at most len * len.
    pattern = "*a" * 100 + "b"
    assert glob_match(pattern, "a" * 5000) is False
    assert glob_match(pattern, "a" * 200 + "b") is True


# Each JSON/YAML type a value can have, as written in the file, and how the refusal names it.
TYPES = {
    "list": ("[week]", "not a list"),
    "mapping": ("{week: 1}", "not a mapping"),
    "bool": ("true", "not a boolean (true)"),
    "number": ("5", "not a number (5)"),
    "null": ("null", "not null"),
    "string": ("'week'", "not text ('week')"),
}
# The types each key of a budget takes: every other is the wrong type.
TAKES = {
    "name": {"string"}, "amount": {"number"}, "currency": {"string"}, "period": {"string"},
    "repo": {"string", "null"}, "property": {"string", "null"}, "thresholds": {"list"},
}
WRONG = [(key, kind) for key, takes in TAKES.items() for kind in TYPES if kind not in takes]


@pytest.mark.parametrize(("key", "kind"), WRONG)
def test_every_key_of_a_budget_given_the_wrong_type_is_refused_naming_the_key_and_the_type(key: str,
                                                                                           kind: str) -> None:
    written, named = TYPES[kind]
    with pytest.raises(BudgetInvalid) as caught:
        parse_budgets(one(**{key: written}), "budgets.yaml")
    line_no = {"name": 2, "amount": 3, "currency": 4, "period": 5}.get(key, 6)  # (an added key is the sixth line)
    assert f"budgets.yaml line {line_no}, key budgets[0].{key}: " in str(caught.value)
    assert named in str(caught.value)


@pytest.mark.parametrize("kind", [kind for kind in TYPES if kind != "number"])
def test_a_threshold_of_the_wrong_type_is_refused_naming_it_and_the_type(kind: str) -> None:
    written, named = TYPES[kind]
    with pytest.raises(BudgetInvalid) as caught:
        parse_budgets(one(thresholds=f"[0.5, {written}]"), "budgets.yaml")
    assert "budgets.yaml line 6, key budgets[0].thresholds[1]: a threshold must be" in str(caught.value)
    assert named in str(caught.value)


@pytest.mark.parametrize("kind", [kind for kind in TYPES if kind != "list"])
def test_budgets_of_the_wrong_type_is_refused_naming_the_type(kind: str) -> None:
    written, named = TYPES[kind]
    with pytest.raises(BudgetInvalid) as caught:
        parse_budgets(f"budgets: {written}\n", "budgets.yaml")
    assert "budgets.yaml line 1, key budgets: must be a list of one or more budgets" in str(caught.value)
    assert named in str(caught.value)


@pytest.mark.parametrize("kind", [kind for kind in TYPES if kind != "mapping"])
def test_a_budget_of_the_wrong_type_is_refused_naming_the_type(kind: str) -> None:
    written, named = TYPES[kind]
    with pytest.raises(BudgetInvalid) as caught:
        parse_budgets(f"budgets:\n  - {written}\n", "budgets.yaml")
    assert "budgets.yaml line 2, key budgets[0]: a budget must be a mapping" in str(caught.value)
    assert named in str(caught.value)


@pytest.mark.parametrize("kind", [kind for kind in TYPES if kind != "mapping"])
def test_a_file_of_the_wrong_type_is_refused_naming_the_type(kind: str) -> None:
    written, named = TYPES[kind]
    with pytest.raises(BudgetInvalid) as caught:
        parse_budgets(f"{written}\n", "budgets.yaml")
    assert "the file must hold `budgets:`, a list of budgets" in str(caught.value)
    assert named in str(caught.value)


def test_a_json_budgets_file_of_the_wrong_types_is_refused_as_yaml_is() -> None:
    budget = {"name": "a", "amount": 1, "currency": "USD", "period": ["week"]}
    with pytest.raises(BudgetInvalid) as caught:
        parse_budgets(json.dumps({"budgets": [budget]}), "budgets.json")
    assert str(caught.value).startswith("budgets.json line 1, key budgets[0].period: a period must be ")
    assert str(caught.value).endswith(", not a list")
