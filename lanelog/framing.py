"""Text nobody controls, shown so that it cannot start a line or drive a terminal.

File names, refs, reasons and log text come from the patch and the logs.  Printed
raw, a line break in one starts a line of its own (under GitHub Actions a line
starting ``::warning::`` is a workflow command; a reader that splits on
``str.splitlines`` also cuts at U+2028, NEL and friends), and a control character
drives the terminal.  ``framed`` shows each such character escaped: C0 and C1
controls, DEL, the Unicode line and paragraph separators, and the bidi marks and
overrides that reorder what a reader sees.  A GitHub Actions runner also reads ``##[``
anywhere in a line as a workflow command of its older form, which ``framed`` escapes, and a
line that starts, after any white space, with ``::`` as one of the newer: ``framed_line``
escapes that colon in a whole line whose start is not lanelog's own (a line of a patch's
evidence starts with the file's name).  The CLI writes all its output through it
(lanelog/cli/output.py), and the router writes the lane-log line with it.
This leaf imports nothing of lanelog.
"""

from __future__ import annotations

import re

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _text_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def framed(text: str, json: bool = False) -> str:
    """``text`` as one line with every unsafe character escaped: ``\\xNN`` or ``\\uNNNN``.

    With ``json``, the text is JSON and each escape is JSON's own ``\\uNNNN``, so it
    parses to the same value (JSON holds such characters only inside strings).  The
    runner's older workflow commands (``##[``) cannot start in it either.
    """
    shown = UNSAFE.sub(_json_escape if json else _text_escape, text)
    return shown.replace("##[", "##\\u005b" if json else "##\\x5b")


def framed_line(text: str) -> str:
    """A whole line whose start is untrusted text, framed, its leading ``::`` (after any white
    space, as the runner trims it) escaped: it cannot be a workflow command."""
    shown = framed(text)
    rest = shown.lstrip()
    return shown[:len(shown) - len(rest)] + "\\x3a" + rest[1:] if rest.startswith("::") else shown
