"""Money as a reader sees it, written one way everywhere: tables, reviews, pages and alerts.

From 1 up an amount shows cents (1,234.50 USD); below 1 it shows up to six decimals,
at least two (0.0021 USD), since one model call can cost a fraction of a cent.  This
leaf imports nothing of lanelog.
"""

from __future__ import annotations

from decimal import Decimal


def money_text(amount: float | Decimal, currency: str) -> str:
    """12.50 USD, 0.0021 USD; the currency is written as given (escape it first when it is logged text)."""
    value = float(amount)
    text = f"{value:,.2f}" if abs(value) >= 1 else f"{value:,.6f}".rstrip("0")
    whole, _, decimals = text.partition(".")
    return f"{whole}.{decimals.ljust(2, '0')} {currency}"
