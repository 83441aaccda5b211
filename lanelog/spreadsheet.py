"""Text cells a spreadsheet shows as text: the CSV of the report and of the dashboard's tables.

A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return)
as a formula, and a CSV cell holds text from the logs (a repo, a currency, a
file name), which nobody controls.  This leaf imports nothing of lanelog.
"""

from __future__ import annotations

import re

# A spreadsheet runs a cell that starts with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
LINE_BREAK = re.compile(r"(\r\n|\r|\n)")


def defused(value: str) -> str:
    """A text cell a spreadsheet shows as text: every line that starts like a formula gets a `'`.

    A spreadsheet starts a new row at a carriage return or line feed inside a field,
    so a formula after any line break is as live as one at the start.
    """
    parts = LINE_BREAK.split(value)  # text, break, text, break, ...: texts at even places
    out = "".join(
        f"'{part}" if index % 2 == 0 and part.startswith(FORMULA_STARTS) else part
        for index, part in enumerate(parts)
    )
    # A field that starts with a line break starts with a formula character itself.
    return "'" + out if value.startswith(FORMULA_STARTS) and not out.startswith("'") else out
