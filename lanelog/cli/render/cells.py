"""The cells every text form shares: a value as one terminal-safe line, as literal markdown, aligned.

Text from the logs (ids, repos, file names) is untrusted: control characters are
escaped for the terminal (lanelog.framing), and markdown special characters are
escaped so a log can never inject a link, HTML or a table cell into a pasted review.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from lanelog.evidence_text import MARKDOWN_SPECIAL
from lanelog.framing import framed
from lanelog.money import money_text
from lanelog.queries import TABLE
from lanelog.times import rfc3339


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """"1 armed call", "2 armed calls": a count with its noun in the number it takes."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def plain(value: Any) -> str:
    """A value as one terminal-safe line: control characters, separators and bidi marks escaped (framing.py)."""
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return rfc3339(value, fraction=True)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(plain(item) for item in value) + "]"
    return framed(str(value))


def md(value: Any) -> str:
    """A value as markdown text that renders literally."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", plain(value))


def merged_when(merge: dict[str, Any], cell: Callable[[Any], str] = plain) -> str:
    """When a merge over a live quarantine was made, "at 2026-10-08T14:03:00Z" (its time through ``cell``), or
    that it is unknown: a close ingest could not date still counts, in every range."""
    if merge["merged_at"] is None:
        return "at an unknown time (its outcome line cannot be dated)"
    return f"at {cell(merge['merged_at'])}"


# An address that can stand in a markdown autolink as it is: http(s), no space, angle bracket or backslash.
LINKABLE = re.compile(r"https?://[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]{1,2000}\Z")


def md_link(url: Any) -> str:
    """An address as a markdown link (an autolink) when it is a plain http(s) address, else as literal text."""
    if isinstance(url, str) and LINKABLE.match(url):
        return f"<{url}>"
    return md(url)


def cell(key: str, value: Any) -> str:
    """A figure as a table shows it, by its record's format (queries.TABLE): an undated week in words, a ratio
    with two decimals."""
    if key == "week":
        return value or "undated"
    figure = TABLE.get(key)
    if figure is not None and figure.format == "ratio":
        return "-" if value is None else f"{value:.2f}"
    return plain(value)


def change(delta: int | float | None) -> str:
    """A week-over-week change with its sign ("+3", "-0.5"), or "-" when there is none."""
    if delta is None:
        return "-"
    return f"{delta:+g}" if isinstance(delta, float) else f"{delta:+d}"


def cost_cell(amount: Any, currency: Any, escape: Any = plain, note: str | None = None) -> str:
    """A cost with its currency (escaped: it comes from a log), or why there is none, never 0."""
    if amount is None:
        return escape(note) if note else "-"
    return money_text(amount, escape(currency))


def money_change(delta: Any, currency: Any, escape: Any = plain) -> str:
    """A change in money with its sign and currency ("+0.25 USD"), or "-" when there is none."""
    if delta is None:
        return "-"
    return ("+" if delta >= 0 else "-") + money_text(abs(delta), escape(currency))


def aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    """An aligned terminal table: the first column left, the others right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.ljust(width) if i == 0 else cell.rjust(width)
                         for i, (cell, width) in enumerate(zip(cells, widths)))

    return [line(header), line(["-" * width for width in widths]), *(line(row) for row in rows)]


def markdown_table(header: list[str], rows: list[list[str]], bold_total: bool = True) -> list[str]:
    """A markdown table: the first column left, the others right; a "total" row in bold."""
    out = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for cells in rows:
        first = f"**{cells[0]}**" if bold_total and cells[0] == "total" else cells[0]
        out.append("| " + " | ".join([first, *cells[1:]]) + " |")
    return out
