"""A ceiling in money before the call: the policy's ``cost_cap`` and ``cost_model``, and the estimate.

Before the lane is armed, ``route`` estimates what the selected properties' calls
will cost from what the runner is given, and the price table:

- one call per selected property (counted as units count them);
- each call sends the patch (``git diff --binary``, the file the runner gets) and
  the property's statement: input tokens = ceil((patch bytes + statement bytes) / 4),
  one token per four bytes, rounded up;
- each call answers with EXPECTED_OUTPUT_TOKENS output tokens (the bundled runner
  asks the model for at most that many);
- cost = input tokens × input_per_million / 1e6 + output tokens × output_per_million / 1e6,
  in the price table's currency for ``cost_model``.

An estimate above ``cost_cap`` does not arm the lane: reason ``over_cost_cap``.  The
estimate is a planning figure, as units are: it counts bytes, not a tokenizer's tokens.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lanelog.errors import PolicyInvalid
from lanelog.money import money_value

if TYPE_CHECKING:
    from lanelog.router.gitfacts import Checkout
    from lanelog.router.policy import Policy, Price
    from lanelog.yamlfile import YamlFile

BYTES_PER_TOKEN = 4
EXPECTED_OUTPUT_TOKENS = 5
MAX_CAP = 1e9  # as a usage's cost: past this it is no cap anyone set


def cost_settings(data: Mapping[str, Any], prices: Mapping[str, Price],
                  doc: YamlFile) -> tuple[float | None, str | None]:
    """``cost_cap`` (money per patch, >= 0) and the model its estimate prices, checked against ``prices``."""
    cap, model = data.get("cost_cap"), data.get("cost_model")
    if cap is None:
        if model is not None:
            raise PolicyInvalid(f"{doc.where(('cost_model',))}: cost_model names the model cost_cap's "
                                "estimate prices; set cost_cap too")
        return None, None
    if isinstance(cap, bool) or not isinstance(cap, (int, float)) or not math.isfinite(cap) \
            or not 0 <= cap <= MAX_CAP:
        raise PolicyInvalid(f"{doc.where(('cost_cap',))}: must be money per patch, a number from 0 to "
                            f"{MAX_CAP:g} in the price table's currency, not {cap!r}")
    if not prices:
        raise PolicyInvalid(f"{doc.where(('cost_cap',))}: cost_cap needs a price table: add `prices:` "
                            "with the model the property runner calls")
    if model is None:
        if len(prices) > 1:
            raise PolicyInvalid(f"{doc.where(('cost_cap',))}: {len(prices)} models are priced; name the "
                                f"one the estimate uses with cost_model (one of {', '.join(sorted(prices))})")
        model = next(iter(prices))
    elif not isinstance(model, str) or model not in prices:
        raise PolicyInvalid(f"{doc.where(('cost_model',))}: {model!r} is not priced under prices "
                            f"(priced: {', '.join(sorted(prices))})")
    return float(cap), model


def patch_bytes(checkout: Checkout, start: str, head: str, policy: Policy | None) -> int | None:
    """The size of the patch the runner would get, when the policy sets cost_cap; else None (not measured)."""
    if policy is None or policy.cost_cap is None:
        return None
    with tempfile.TemporaryFile(prefix="lanelog-patch-") as out:
        checkout.write_patch(start, head, out)
        return os.fstat(out.fileno()).st_size


def estimate(size: int, statements: Sequence[str], policy: Policy) -> dict[str, Any]:
    """The line's ``cost_estimate``: its inputs (model, calls, patch bytes, tokens), the cost and the cap."""
    assert policy.cost_cap is not None and policy.cost_model is not None  # only a capped policy is estimated
    price = policy.prices[policy.cost_model]
    input_tokens = sum(math.ceil((size + len(says.encode("utf-8"))) / BYTES_PER_TOKEN) for says in statements)
    output_tokens = EXPECTED_OUTPUT_TOKENS * len(statements)
    cost = (input_tokens * price.input_per_million + output_tokens * price.output_per_million) / 1_000_000
    return {"model": policy.cost_model, "calls": len(statements), "patch_bytes": size,
            "input_tokens": input_tokens, "output_tokens": output_tokens, "cost": money_value(cost),
            "currency": price.currency, "cost_cap": policy.cost_cap}
