"""Table cells and heights: text cut to what its column shows, by measured glyph widths."""

from __future__ import annotations

import re
from typing import Any

SHORT_ID, SHORT_HASH = 10, 12


# A table draws text in Source Sans at 14 px inside 8 px of padding.  Each character's advance in
# px, measured in Chromium (canvas measureText, the font Streamlit serves); any other character is
# counted as wide as the widest here, so a cell cut to what fits never runs past its column.  A cell
# cut says so with "…" (fit_cell, fit_path), itself 13.3 px.
CELL_PADDING_PX = 8
GLYPH_PX = {char: px for chars, px in (
    (" ", 2.8),
    ("|", 3.37),
    ("i", 3.44),
    ("j", 3.46),
    ("',.:;", 3.49),
    ("l", 3.57),
    ("I", 3.68),
    ("!", 4.05),
    ("f", 4.09),
    ("()[]{}", 4.24),
    ("-", 4.35),
    ("t", 4.73),
    ("r", 4.86),
    ("/\\", 4.9),
    ("*", 5.85),
    ("s", 5.87),
    ("?z", 5.95),
    ("\"", 5.96),
    ("x", 6.24),
    ("c", 6.38),
    ("vy", 6.54),
    ("Y", 6.66),
    ("J", 6.71),
    ("L", 6.8),
    ("F", 6.92),
    ("k", 6.93),
    ("e", 6.94),
    ("0123456789#$+<=>^~", 6.96),
    ("_", 7.0),
    ("ag", 7.06),
    ("X", 7.18),
    ("V", 7.21),
    ("E", 7.38),
    ("S", 7.48),
    ("T", 7.5),
    ("Z", 7.55),
    ("`o", 7.59),
    ("A", 7.6),
    ("hu", 7.62),
    ("n", 7.66),
    ("b", 7.74),
    ("dpq", 7.77),
    ("P", 7.92),
    ("R", 7.97),
    ("C", 7.99),
    ("K", 8.11),
    ("B", 8.23),
    ("&", 8.53),
    ("D", 8.61),
    ("G", 8.64),
    ("U", 9.03),
    ("N", 9.06),
    ("H", 9.13),
    ("OQ", 9.3),
    ("w", 10.07),
    ("M", 10.18),
    ("W", 11.0),
    ("%", 11.54),
    ("m", 11.61),
    ("@", 11.86),
    ("…", 13.27),
) for char in chars}
WIDEST_PX = 14.0


def text_px(text: str) -> float:
    """How wide `text` draws in a table cell, in px (kerning aside: a hair wider than drawn, never narrower)."""
    return sum(GLYPH_PX.get(char, WIDEST_PX) for char in text) + 1


def short(value: Any, keep: int) -> Any:
    """A long id or hash cut to `keep` characters and an ellipsis; other values as they are."""
    return value[:keep] + "…" if isinstance(value, str) and len(value) > keep + 1 else value


def fit_cell(value: Any, width: int, sep: str = "; ") -> Any:
    """Text cut to what a column `width` px wide shows: a list ("a; b; c", items joined by `sep`)
    at an item's end with "; …" for the rest, a sentence at a word's end with "…", one long word with "…"; never cut
    without saying so."""
    room = width - CELL_PADDING_PX
    if not isinstance(value, str) or text_px(value) <= room:
        return value
    kept = ""
    for item in value.split(sep):
        longer = f"{kept}{sep}{item}" if kept else item
        if text_px(f"{longer}{sep}…") > room:
            break
        kept = longer
    if kept:
        return f"{kept}{sep}…"
    cut = _fitting(value, room - GLYPH_PX["…"])
    words = cut.rsplit(" ", 1)[0]  # a sentence (a commit subject) ends at a whole word
    return (words if " " in cut and len(words) >= len(cut) // 2 else cut) + "…"


def fit_ids(ids: Any, width: int) -> str:
    """A list of ids (test ids, as a list or "a; b" text) in a column `width` px wide, never cut inside
    an id: the whole ids that fit, then "+N more" for the rest ("test_export_race +1 more"); when not even
    one whole id fits beside that, the count ("2 tests"); a lone id too long for the column, cut with "…"."""
    listed = ids.split("; ") if isinstance(ids, str) else list(ids) if hasattr(ids, "__iter__") else []
    items = [str(item) for item in listed if str(item)]
    room = width - CELL_PADDING_PX
    if text_px("; ".join(items)) <= room:
        return "; ".join(items)
    for kept in range(len(items) - 1, 0, -1):
        text = f"{'; '.join(items[:kept])} +{len(items) - kept} more"
        if text_px(text) <= room:
            return text
    if len(items) == 1:
        return str(fit_cell(items[0], width))
    return f"{len(items)} tests"


def pull_request_cell(repository: Any, number: Any, width: int) -> str:
    """A pull request in a column `width` px wide, its number always whole: owner/name#7, else name#7
    when the owner does not fit, else the name cut with "…" before #7."""
    room, tail = width - CELL_PADDING_PX, f"#{number}"
    whole = f"{repository}{tail}"
    if text_px(whole) <= room:
        return whole
    name = str(repository).rsplit("/", 1)[-1]
    if text_px(name + tail) <= room:
        return name + tail
    return _fitting(name, room - text_px(tail) - GLYPH_PX["…"]) + "…" + tail


def _fitting(text: str, room: float) -> str:
    """The longest start of `text` that draws within `room` px."""
    used, end = 1.0, 0
    for end, char in enumerate(text):
        used += GLYPH_PX.get(char, WIDEST_PX)
        if used > room:
            return text[:end]
    return text


def _fitting_end(text: str, room: float) -> str:
    """The longest end of `text` that draws within `room` px."""
    return _fitting(text[::-1], room)[::-1]


def path_lines(path: str, width: int = 30) -> str:
    """A path broken into lines only after a "/", each line at most `width` characters where the parts allow.

    The sidebar would otherwise break a long path anywhere, in the middle of a name.
    """
    lines, current = [], ""
    for part in re.split(r"(?<=/)", path):
        if current and len(current) + len(part) > width:
            lines.append(current)
            current = ""
        current += part
    return "\n".join([*lines, current])


def fit_path(name: str, width: int) -> str:
    """A log's name cut from the front to what a column `width` px wide shows, so that an object's
    run folder, which tells it apart (the key layout gives every object the same file name), stays:
    "…/" and the last parts that fit, else "…/FOLDER/…", else the last characters after "…"."""
    room = width - CELL_PADDING_PX
    if text_px(name) <= room:
        return name
    parts = name.split("/")
    for start in range(1, len(parts) - 1):
        tail = "…/" + "/".join(parts[start:])
        if text_px(tail) <= room:
            return tail
    if len(parts) > 2 and text_px(f"…/{parts[-2]}/…") <= room:
        return f"…/{parts[-2]}/…"
    return "…" + _fitting_end(name, room - GLYPH_PX["…"])


# A table shows this many rows before it scrolls inside itself.
TABLE_ROWS_SHOWN = 20


def whole_height(rows: int) -> int:
    """Pixels for a table that shows every one of its (few) rows with no inner scroll: a record's fields."""
    return 35 * (rows + 1) + 3


def table_height(rows: int) -> int:
    """Pixels for a table that shows up to TABLE_ROWS_SHOWN rows with no inner scroll."""
    return 35 * (min(rows, TABLE_ROWS_SHOWN) + 1) + 3


def more_rows_text(rows: int, total: int | None = None, noun: str = "rows") -> str | None:
    """What a table says under it when it holds more rows than it shows at once (TABLE_ROWS_SHOWN), or
    when it lists only the first `rows` of `total`: how many, and how to see the others; else None."""
    if total is not None and total > rows:
        return (f"The first {rows:,} of {total:,} {noun}, in file order; `lanelog report` and the database "
                "hold them all.")
    if rows > TABLE_ROWS_SHOWN:
        return f"{TABLE_ROWS_SHOWN} of {rows:,} {noun} in view: scroll inside the table for the others."
    return None
