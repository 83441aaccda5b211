"""Usage on the line: what a runner reports its call used, checked before it is kept."""

from __future__ import annotations

import json

import pytest

from lanelog.router.policy import PolicyInvalid, parse_policy
from tests.router.conftest import LANES_YAML

ONE_PROPERTY = {"api.py": "def handle(payload):\n    assert payload\n    return payload or None\n"}
TWO_PROPERTIES = {"store.py": "def put(key, body):\n    return dict(body)\n"}
GOOD = {"input_tokens": 1500, "output_tokens": 3, "cost": 0.0021, "currency": "USD", "model": "m-1"}


@pytest.fixture
def patched(make_repo):
    def make(files=ONE_PROPERTY, base=None):
        repo = make_repo(base)
        repo.write(files).commit()
        return repo
    return make


def last_line(value: object) -> str:
    return f"print({json.dumps(json.dumps(value))})"


def test_a_json_last_line_gives_token_and_usage(patched, route, py_cmd):
    done = route(patched(), "--run", py_cmd("print('thinking'); " + last_line({"token": "fail", "usage": GOOD})))
    assert done.line["results"] == {"prop_reject_empty": "fail"}
    assert done.line["usage"] == {"prop_reject_empty": GOOD}
    assert list(done.line)[-1] == "usage"


def test_the_bare_token_still_works_and_writes_no_usage(patched, route, py_cmd):
    done = route(patched(), "--run", py_cmd("print('hold')"))
    assert done.line["results"] == {"prop_reject_empty": "hold"}
    assert "usage" not in done.line


def test_the_usage_file(patched, route, py_cmd):
    code = ("import json, os, stat; p = os.environ['LANELOG_USAGE_FILE']; "
            "assert stat.S_IMODE(os.stat(p).st_mode) == 0o600 and os.path.getsize(p) == 0; "
            f"open(p, 'w').write(json.dumps({GOOD!r})); print('hold')")
    done = route(patched(), "--run", py_cmd(code))
    assert done.line["results"] == {"prop_reject_empty": "hold"}
    assert done.line["usage"] == {"prop_reject_empty": GOOD}


def test_each_run_gets_its_own_usage_file(patched, route, py_cmd):
    code = ("import json, os; p = os.environ['LANELOG_USAGE_FILE']; "
            "assert os.path.getsize(p) == 0; n = len(os.environ['LANELOG_PROPERTY']); "
            "open(p, 'w').write(json.dumps({'input_tokens': n})); print('hold')")
    done = route(patched(TWO_PROPERTIES), "--run", py_cmd(code))
    assert done.line["usage"] == {"prop_round_trip": {"input_tokens": 15},
                                  "prop_idempotent_put": {"input_tokens": 19}}


def test_usage_with_the_exit_code_token(patched, route, py_cmd):
    code = last_line({"token": "ignored", "usage": {"output_tokens": 7}}) + "; raise SystemExit(1)"
    done = route(patched(), "--run", py_cmd(code), "--token-from", "exit")
    assert done.line["results"] == {"prop_reject_empty": "fail"}
    assert done.line["usage"] == {"prop_reject_empty": {"output_tokens": 7}}


@pytest.mark.parametrize("usage", [
    {"input_tokens": "12"},
    {"input_tokens": -1},
    {"input_tokens": 1.5},
    {"input_tokens": True},
    {"output_tokens": 10**13},
    {"cost": -0.01, "currency": "USD"},
    {"cost": 0.5},                               # a cost without its currency
    {"cost": 0.5, "currency": "dollars"},
    {"cost": "0.5", "currency": "USD"},
    {"model": "x" * 5000},
    {"model": "evil\x1b[31mred"},
    {"colour": "blue"},
    {},
    [1, 2],
    "lots",
])
def test_malformed_usage_is_left_out_and_keeps_the_token(patched, route, py_cmd, usage):
    done = route(patched(), "--run", py_cmd(last_line({"token": "hold", "usage": usage})))
    assert done.line["results"] == {"prop_reject_empty": "hold"}
    assert "usage" not in done.line
    assert "prop_reject_empty: usage left out: " in done.stderr
    assert "\x1b" not in done.stderr


@pytest.mark.parametrize("text", [
    '{"token": "hold", "usage": {"cost": NaN, "currency": "USD"}}',
    '{"token": "hold", "usage": {"cost": Infinity, "currency": "USD"}}',
    '{"token": "hold", "usage": {"input_tokens": 1e999}}',
])
def test_nan_and_infinity_are_no_usage(patched, route, py_cmd, text):
    done = route(patched(), "--run", py_cmd(f"print({text!r})"))
    assert done.line["results"] == {"prop_reject_empty": "hold"}
    assert "usage" not in done.line
    assert "prop_reject_empty: usage left out: " in done.stderr


@pytest.mark.parametrize(("content", "why"), [
    ("{not json", "not JSON"),
    ("x" * 70_000, "larger than"),
    ('{"cost": NaN, "currency": "USD"}', "not a JSON number"),
])
def test_a_bad_usage_file_is_left_out(patched, route, py_cmd, content, why):
    code = f"import os; open(os.environ['LANELOG_USAGE_FILE'], 'w').write({content!r}); print('fail')"
    done = route(patched(), "--run", py_cmd(code))
    assert done.line["results"] == {"prop_reject_empty": "fail"}
    assert "usage" not in done.line
    assert why in done.stderr


def test_a_fifo_in_place_of_the_usage_file_does_not_hold_the_router(patched, route, py_cmd):
    code = ("import os; p = os.environ['LANELOG_USAGE_FILE']; os.unlink(p); os.mkfifo(p); "
            "print('hold')")
    done = route(patched(), "--run", py_cmd(code), "--property-timeout", "20")
    assert done.line["results"] == {"prop_reject_empty": "hold"}
    assert "usage" not in done.line
    assert "not a regular file" in done.stderr


def test_a_json_line_with_another_token_is_unresolved_and_keeps_its_usage(patched, route, py_cmd):
    done = route(patched(), "--run", py_cmd(last_line({"token": "probably holds", "usage": GOOD})))
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
    assert done.line["usage"] == {"prop_reject_empty": GOOD}


def test_the_price_table_prices_a_usage_without_cost(make_repo, route, py_cmd):
    prices = "prices:\n  m-1: {input_per_million: 3, output_per_million: 15, currency: USD}\n"
    repo = make_repo({"lanes.yaml": LANES_YAML + prices})
    repo.write(ONE_PROPERTY).commit()
    usage = {"input_tokens": 1_000_000, "output_tokens": 2000, "model": "m-1"}
    done = route(repo, "--run", py_cmd(last_line({"token": "hold", "usage": usage})))
    assert done.line["usage"] == {"prop_reject_empty": {**usage, "cost": 3.03, "currency": "USD"}}
    unlisted = {"input_tokens": 10, "output_tokens": 2, "model": "m-2"}
    repo.write({"api.py": ONE_PROPERTY["api.py"] + "# again\n"}).commit()
    done = route(repo, "--run", py_cmd(last_line({"token": "hold", "usage": unlisted})))
    assert done.line["usage"] == {"prop_reject_empty": unlisted}


@pytest.mark.parametrize(("prices", "message"), [
    ("prices: [1]\n", "line 17, key prices: must map model names"),
    ("prices:\n  m: {input_per_million: -1, output_per_million: 1, currency: USD}\n",
     "line 18, key prices.m.input_per_million: must be a price from 0 to 1e+06 per million tokens, not -1"),
    ("prices:\n  m: {input_per_million: 1, output_per_million: .nan, currency: USD}\n",
     "key prices.m.output_per_million: must be a price from 0 to 1e+06"),
    # A price of 1e308 a million tokens once put "cost": Infinity on the line, which is not JSON.
    ("prices:\n  m: {input_per_million: 1.0e+308, output_per_million: 1, currency: USD}\n",
     "key prices.m.input_per_million: must be a price from 0 to 1e+06 per million tokens, not 1e+308"),
    ("prices:\n  m: {input_per_million: 1, output_per_million: 1, currency: usd}\n",
     "key prices.m.currency: must be a three-letter currency code"),
    ("prices:\n  m: {input_per_million: 1, output_per_million: 1}\n",
     "key prices.m: missing key 'currency'"),
    ("prices:\n  m: {input_per_million: 1, output_per_million: 1, currency: USD, tax: 2}\n",
     "key prices.m.tax: unknown key"),
])
def test_a_bad_price_table_names_file_line_and_key(prices, message):
    with pytest.raises(PolicyInvalid, match="lanes.yaml line") as caught:
        parse_policy(LANES_YAML + prices, "lanes.yaml")
    assert message in str(caught.value)


def test_a_cost_priced_past_the_bound_a_runner_is_held_to_is_left_out():
    """Tokens at the router's bound times the dearest price a policy may set would cost more than
    any runner may report (MAX_COST): the cost is left out, never written as a huge or infinite number."""
    from lanelog.router.policy import MAX_PRICE, Price
    from lanelog.router.usage import MAX_COST, MAX_TOKENS, priced

    usage = {"input_tokens": MAX_TOKENS, "output_tokens": 0, "model": "m"}
    assert priced(usage, {"m": Price(MAX_PRICE, 0.0, "USD")}) == usage
    assert MAX_TOKENS * MAX_PRICE / 1_000_000 > MAX_COST
    assert priced({**usage, "input_tokens": 1000}, {"m": Price(2.0, 0.0, "USD")})["cost"] == 0.002


def big_usage_line(token: str, size: int, usage_first: bool = False) -> str:
    """Code printing a JSON last line whose usage object is `size` bytes of JSON or more."""
    usage = "{'model': 'm', 'notes': 'x' * " + str(size) + "}"
    parts = [f"'token': {token!r}", f"'usage': {usage}"]
    body = ", ".join(reversed(parts) if usage_first else parts)
    return f"import json; print(json.dumps({{{body}}}))"


@pytest.mark.parametrize("usage_first", [False, True], ids=["token-first", "usage-first"])
@pytest.mark.parametrize("size", [70_000, 10_000_000], ids=["70kB", "10MB"])
def test_a_usage_over_64_kib_is_left_out_and_the_token_stands(patched, route, py_cmd, size, usage_first):
    done = route(patched(), "--run", py_cmd(big_usage_line("hold", size, usage_first)))
    assert done.line["results"] == {"prop_reject_empty": "hold"}
    assert done.line["lane"] == "hold"
    assert "usage" not in done.line
    assert "prop_reject_empty: usage left out: larger than 65536 bytes of JSON" in done.stderr


def test_a_usage_line_between_16_and_64_kib_keeps_its_usage(patched, route, py_cmd):
    """A usage within the bound is read whatever the line's length (a long model name aside, it is checked)."""
    code = last_line({"token": "fail", "usage": GOOD, "log": "y" * 30_000})
    done = route(patched(), "--run", py_cmd(code))
    assert done.line["results"] == {"prop_reject_empty": "fail"}
    assert done.line["usage"] == {"prop_reject_empty": GOOD}


@pytest.mark.parametrize("line", [
    '{"token": "hold", "usage": {"input_tokens": 1}, "pad": "' + "z" * 70_000 + '", }',
    '{"token": "hold", "usage": {"input_tokens": 1}, "pad": [' + "1," * 40_000 + ',1]}',
    '{"token": "hold", "usage": {"input_tokens": 1}} trailing' + " " * 70_000 + "x",
    '{"token": "hold" "usage": ' + '{"a": "' + "q" * 70_000 + '"}}',
], ids=["trailing-comma", "bad-array", "trailing-text", "missing-comma"])
def test_a_long_last_line_that_is_not_json_is_no_token(patched, route, py_cmd, line):
    done = route(patched(), "--run", py_cmd(f"print({line!r})"))
    assert done.line["results"] == {"prop_reject_empty": "unresolved"}
