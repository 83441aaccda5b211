"""What a property run's model call used: tokens, cost, currency, model.

A runner may report it beside its token (a JSON last line) or in the file
``$LANELOG_USAGE_FILE``.  The runner is the user's command, and what it says
is checked here before it reaches the line: a usage that is not well formed is
left out (with a note) and never changes the token.  Cost the runner does not
give is priced from the policy's ``prices`` table when its model is listed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lanelog.files import NotRegular, read_regular
from lanelog.money import is_currency, money_value

FIELDS = ("input_tokens", "output_tokens", "cost", "currency", "model")
MAX_TOKENS = 10**12          # a count beyond this is no count a call gave
MAX_COST = 10**9
MAX_MODEL = 200
MAX_FILE = 64 * 1024
# A model name is shown on pages and in reports: printable text, no controls.
MODEL_NAME = re.compile(r"[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?\Z")


class UsageInvalid(ValueError):
    """Why a reported usage was left out (a note for stderr, never raised past the lane)."""


def check_usage(value: Any) -> dict[str, Any]:
    """The usage as the line keeps it, its fields in a fixed order; UsageInvalid otherwise."""
    if not isinstance(value, dict):
        raise UsageInvalid("usage must be a JSON object")
    unknown = [key for key in value if key not in FIELDS]
    if unknown:
        raise UsageInvalid(f"unknown usage key {str(unknown[0])[:40]!r} (known: {', '.join(FIELDS)})")
    usage: dict[str, Any] = {}
    for key in ("input_tokens", "output_tokens"):
        if key in value and value[key] is not None:
            count = value[key]
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_TOKENS:
                raise UsageInvalid(f"{key} must be a whole number from 0 to {MAX_TOKENS}")
            usage[key] = count
    cost = value.get("cost")
    if cost is not None:
        if isinstance(cost, bool) or not isinstance(cost, (int, float)) \
                or not math.isfinite(cost) or not 0 <= cost <= MAX_COST:
            raise UsageInvalid(f"cost must be a number from 0 to {MAX_COST}")
        usage["cost"] = cost
    currency = value.get("currency")
    if currency is not None:
        if not is_currency(currency):
            raise UsageInvalid("currency must be a three-letter code such as USD")
        usage["currency"] = currency
    if "cost" in usage and "currency" not in usage:
        raise UsageInvalid("a cost needs its currency")
    model = value.get("model")
    if model is not None:
        if not isinstance(model, str) or len(model) > MAX_MODEL or not MODEL_NAME.match(model):
            raise UsageInvalid(f"model must be printable text of at most {MAX_MODEL} characters")
        usage["model"] = model
    if not usage:
        raise UsageInvalid("usage names no figure")
    return {key: usage[key] for key in FIELDS if key in usage}


def read_usage_file(path: Path) -> Any | None:
    """The JSON the runner left in its usage file; None when it left nothing.

    The file is the router's own, but the runner could have replaced it: only a
    regular file is read (no FIFO to block on, no symlink followed), and only
    up to MAX_FILE bytes.
    """

    try:
        data = read_regular(path, MAX_FILE, follow=False)
    except FileNotFoundError:
        return None
    except NotRegular:
        raise UsageInvalid("the usage file is not a regular file") from None
    except OSError as exc:
        raise UsageInvalid(f"the usage file cannot be read: {exc.strerror}") from None
    if data is None:
        raise UsageInvalid(f"the usage file is larger than {MAX_FILE} bytes")
    if not data.strip():
        return None
    return loads(data.decode("utf-8", "replace"))


def loads(text: str) -> Any:
    """Strict JSON: NaN and Infinity are not numbers here (RFC 8259)."""
    import json

    def refuse(name: str) -> Any:
        raise UsageInvalid(f"{name} is not a JSON number")

    try:
        return json.loads(text, parse_constant=refuse)
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, UsageInvalid):
            raise
        raise UsageInvalid("not JSON") from None


def priced(usage: dict[str, Any], prices: Mapping[str, Any]) -> dict[str, Any]:
    """The usage with its cost from the price table when the runner gave none.

    The table prices a model per million input and output tokens; a usage
    without its model, a model not listed, or a token count missing leaves
    the cost empty: a guessed price would be a figure nobody stated.  So does a cost past
    MAX_COST (the bound a runner's own cost is held to): no line holds a cost nobody could pay.
    """
    if "cost" in usage or usage.get("model") not in prices:
        return usage
    if "input_tokens" not in usage or "output_tokens" not in usage:
        return usage
    price = prices[usage["model"]]
    cost = (usage["input_tokens"] * price.input_per_million
            + usage["output_tokens"] * price.output_per_million) / 1_000_000
    if not math.isfinite(cost) or cost > MAX_COST:
        return usage
    out = {**usage, "cost": money_value(cost), "currency": price.currency}
    return {key: out[key] for key in FIELDS if key in out}
