"""A ceiling in money before the call: `cost_cap` in lanes.yaml, through `route`, `--shadow` and `replay`."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lanelog.errors import PolicyInvalid
from lanelog.router.policy import parse_policy
from tests.router.conftest import LANES_YAML

# 3 USD per million input tokens and 15 per million output tokens; 0.01 USD a patch.
PRICED = LANES_YAML + """\
prices:
  demo-model: {input_per_million: 3.0, output_per_million: 15.0, currency: USD}
cost_cap: 0.01
"""
STORE_SAYS = ["serialize-then-parse returns the same record",
              "a second put of the same key does not change the stored body"]


def patch_of(repo, base: str = "main", head: str = "HEAD") -> bytes:
    """The patch as the runner gets it (git diff --binary, as Checkout.write_patch runs it)."""
    return subprocess.run(["git", "-C", str(repo.root), "-c", "core.quotePath=false", "diff", "--binary",
                           "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames", f"{base}...{head}",
                           "--"], capture_output=True, check=True).stdout


def expected(size: int, says: list[str]) -> dict[str, object]:
    """The estimate by the rule docs/router.md states, worked by hand."""
    tokens_in = sum(math.ceil((size + len(text.encode())) / 4) for text in says)
    tokens_out = 5 * len(says)
    return {"model": "demo-model", "calls": len(says), "patch_bytes": size, "input_tokens": tokens_in,
            "output_tokens": tokens_out, "cost": round((tokens_in * 3.0 + tokens_out * 15.0) / 1e6, 10),
            "currency": "USD", "cost_cap": 0.01}


def big_store(lines: int) -> str:
    return "def put(key, body):\n    return body\n" + "".join(
        f"CACHE_ROW_{n:04d} = 'a long cached value that the patch adds, row {n:04d} of the table'\n"
        for n in range(lines))


def test_a_cheap_patch_passes_and_carries_its_estimate(make_repo, route) -> None:
    repo = make_repo({"lanes.yaml": PRICED})
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    routed = route(repo)
    line = routed.line
    assert routed.exit_code == 0 and line["probe"] == "pass" and line["model_call_allowed"] is True
    size = len(patch_of(repo))
    assert line["cost_estimate"] == expected(size, STORE_SAYS)
    assert line["cost_estimate"]["cost"] < 0.01


def test_a_patch_estimated_over_the_cap_is_not_armed(make_repo, route) -> None:
    repo = make_repo({"lanes.yaml": PRICED})
    repo.write({"store.py": big_store(300)}).commit()  # under line_cap, about 25 KB a call
    routed = route(repo)
    line = routed.line
    assert routed.exit_code == 1
    assert (line["probe"], line["reasons"], line["model_call_allowed"], line["lane"]) == (
        "reject", ["over_cost_cap"], False, "not_started")
    estimate = line["cost_estimate"]
    assert estimate == expected(len(patch_of(repo)), STORE_SAYS) and estimate["cost"] > 0.01
    assert (f"over_cost_cap: 2 call(s) estimated at {estimate['cost']:.6g} USD > cost_cap 0.01 USD "
            f"({estimate['input_tokens']} input tokens from a {estimate['patch_bytes']}-byte patch): "
            "split the patch; do not raise the cap") in line["message"]


def test_no_cap_no_estimate_and_the_line_is_as_before(make_repo, route) -> None:
    repo = make_repo()
    repo.write({"store.py": big_store(300)}).commit()
    line = route(repo).line
    assert line["probe"] == "pass" and "cost_estimate" not in line


def test_the_cost_model_names_which_price_the_estimate_uses(make_repo, route) -> None:
    two = LANES_YAML + """\
prices:
  small-model: {input_per_million: 0.1, output_per_million: 0.4, currency: EUR}
  big-model: {input_per_million: 30.0, output_per_million: 60.0, currency: EUR}
cost_cap: 0.01
cost_model: small-model
"""
    repo = make_repo({"lanes.yaml": two})
    repo.write({"store.py": big_store(300)}).commit()
    line = route(repo).line
    assert line["probe"] == "pass"
    assert (line["cost_estimate"]["model"], line["cost_estimate"]["currency"]) == ("small-model", "EUR")


@pytest.mark.parametrize(("extra", "message"), [
    ("cost_cap: -1\n", "lanes.yaml line 19, key cost_cap: must be money per patch, a number from 0 to 1e+09"),
    ("cost_cap: .nan\n", "key cost_cap: must be money per patch, a number from 0 to 1e+09 in the price "
                         "table's currency, not nan"),
    ("cost_cap: 1.0e+12\n", "key cost_cap: must be money per patch"),
    ("cost_cap: '0.5'\n", "key cost_cap: must be money per patch"),
    ("cost_cap: true\n", "key cost_cap: must be money per patch"),
    ("cost_model: demo-model\n", "key cost_model: cost_model names the model cost_cap's estimate prices; "
                                 "set cost_cap too"),
    ("cost_cap: 1\ncost_model: other\n", "key cost_model: 'other' is not priced under prices (priced: demo-model)"),
])
def test_a_hostile_cost_setting_is_refused_naming_file_line_and_key(extra: str, message: str) -> None:
    priced = LANES_YAML + "prices:\n  demo-model: {input_per_million: 3.0, output_per_million: 15.0, currency: USD}\n"
    with pytest.raises(PolicyInvalid) as caught:
        parse_policy(priced + extra, "lanes.yaml")
    assert message in str(caught.value)


def test_a_cap_without_prices_or_with_several_unnamed_models_is_refused() -> None:
    with pytest.raises(PolicyInvalid, match="key cost_cap: cost_cap needs a price table"):
        parse_policy(LANES_YAML + "cost_cap: 1\n", "lanes.yaml")
    several = LANES_YAML + """\
prices:
  a: {input_per_million: 1, output_per_million: 1, currency: USD}
  b: {input_per_million: 1, output_per_million: 1, currency: USD}
cost_cap: 1
"""
    with pytest.raises(PolicyInvalid, match="2 models are priced; name the one the estimate uses with cost_model"):
        parse_policy(several, "lanes.yaml")


def test_the_shadow_decides_the_cap_as_route_does(make_repo, route, tmp_path: Path) -> None:
    repo = make_repo()
    repo.write({"store.py": big_store(300)}).commit()
    shadow = tmp_path / "candidate.yaml"
    shadow.write_text(PRICED, encoding="utf-8")
    line = route(repo, "--shadow", str(shadow)).line
    assert line["probe"] == "pass"
    assert line["shadow"]["probe"] == "reject" and line["shadow"]["reasons"] == ["over_cost_cap"]
    assert line["shadow"]["cost_estimate"] == expected(len(patch_of(repo)), STORE_SAYS)


def test_replay_rejects_over_the_cap_as_route_does(make_repo, tmp_path: Path) -> None:
    repo = make_repo({"lanes.yaml": LANES_YAML})
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit("a narrow change")
    repo.write({"store.py": big_store(300)}).commit("a table of cached rows")
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(PRICED, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(repo.root), "--policy",
                           str(candidate), "--commits", f"{base}..main", "--format", "json"],
                          capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["candidate"]["reasons"] == {"over_cost_cap": 1}
    assert [(flip["subject"], flip["baseline"]["probe"], flip["candidate"]["probe"], flip["candidate"]["reasons"])
            for flip in result["flips"]] == [("a table of cached rows", "pass", "reject", ["over_cost_cap"])]
