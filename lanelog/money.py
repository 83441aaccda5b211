"""Money, one home: what a currency is, an amount as JSON holds it, and as a reader sees it.

A currency is three capital letters (the shape of an ISO 4217 code): CURRENCY_PATTERN, which
store/schema.sql's lane_currency holds too (a test keeps the two equal).  An amount goes into
JSON rounded once, to DIGITS places (money_value).  A reader sees one form: cents from 1 up
(1,234.50 USD), and below 1 six decimals (0.002100 USD), since one model call can cost a
fraction of a cent, so a column of amounts lines up and 0.0109 never stands beside 0.065049;
an amount of whole cents below 1 (a budget of 0.50 USD, a zero) keeps its cents.  This leaf
imports nothing of lanelog.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any, TypeGuard

# Money is rounded once, to this many places: two engines may add the same doubles in another order.
DIGITS = 10
CURRENCY_PATTERN = "[A-Z]{3}"
_CURRENCY = re.compile(CURRENCY_PATTERN)


def is_currency(value: object) -> TypeGuard[str]:
    """Whether a value is a currency code (USD): three capital letters, nothing else; the only text
    from a log or a file taken as a currency, since it is written into reports and pages."""
    return isinstance(value, str) and _CURRENCY.fullmatch(value) is not None


def money_value(amount: Any) -> float | None:
    """An amount as JSON holds it: a float rounded once to DIGITS places (an exact decimal is rounded
    before it becomes a float); None, NaN or an infinity is None, never a number nobody recorded."""
    if amount is None:
        return None
    if isinstance(amount, Decimal):
        return float(round(amount, DIGITS)) if amount.is_finite() else None
    value = float(amount)
    return round(value, DIGITS) if math.isfinite(value) else None


def money_text(amount: float | Decimal, currency: str) -> str:
    """12.50 USD, 0.002100 USD; the currency is written as given (escape it first when it is logged text)."""
    return f"{amount_text(amount)} {currency}"


def amount_text(amount: float | Decimal) -> str:
    """12.50, 0.50, 0.002100: the amount as money_text writes it, for a label that names the currency:
    cents from 1 up and for whole cents, else six decimals."""
    value = float(amount)
    cents = exact(amount if isinstance(amount, Decimal) else value) * 100 if math.isfinite(value) else Decimal(1)
    return f"{value:,.2f}" if abs(value) >= 1 or cents == cents.to_integral_value() else f"{value:,.6f}"


def exact(amount: float | int | Decimal) -> Decimal:
    """An amount as an exact decimal: a float as the shortest decimal that reads back as it (0.1 is
    0.1, not 0.1000000000000000055...), so sums and comparisons of money mean what was written."""
    if isinstance(amount, Decimal):
        return amount
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        raise TypeError(f"an amount of money must be a number, not {amount!r}")
    return Decimal(amount) if isinstance(amount, int) else Decimal(repr(amount))


def exact_text(amount: float | int | Decimal) -> str:
    """An amount written out exactly, without exponent or trailing zeros (0.8, 1, 0.9999999):
    what keys an alert, so two amounts share a key only when they are equal."""
    text = format(exact(amount).normalize(), "f")
    return text
