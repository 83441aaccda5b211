"""Property tests at two depths: a few examples in the fast tier, the whole count in the slow one.

The fast tier is what a contributor runs after a change; CI runs both tiers, so every property
is still tried at its whole count before anything lands (tests/tiers.py)."""

from __future__ import annotations

import pytest


def at_depths(examples: int, quick: int) -> pytest.MarkDecorator:
    """Give the test an `examples` argument: `quick` in the fast tier, `examples` in the slow tier."""
    return pytest.mark.parametrize("examples", [pytest.param(quick, id="quick"),
                                                pytest.param(examples, id="deep", marks=pytest.mark.slow)])
