"""Text nobody controls, shown so that it cannot start a line, a workflow command, or drive a terminal.

File names, refs, reasons and log text come from the patch and the logs.  Printed
raw, a line break in one starts a line of its own (a reader that splits on
``str.splitlines`` also cuts at U+2028, NEL and friends), and a control character
drives the terminal.  ``framed`` shows each such character escaped: C0 and C1
controls, DEL, the Unicode line and paragraph separators, the format characters
and the other default-ignorable code points (the bidi marks and overrides, the
zero-width characters, the soft hyphen, the variation selectors), and lone
surrogates.

Under GitHub Actions the runner reads two kinds of workflow command in every line a
step prints: ``::name ...::`` at the line's start after any white space, and the older
``##[name ...]`` anywhere in it.  It finds both with a culture-sensitive search
(``String.StartsWith`` and ``IndexOf``), which with ICU skips the characters a collation
ignores: ``#\\u00ad#[`` is ``##[`` to it.  Those are the characters escaped above, so the
rule is plain: no ``##[`` is left in a framed text (its bracket shown ``\\x5b``), and
``framed_line`` frames a whole line whose start is untrusted, its leading ``::`` shown
``\\x3a:``.  lanelog/cli/output.py writes every line a command prints through
``framed_line``; only lanelog's own annotations, built escaped, are printed as commands.
This leaf imports nothing of lanelog.
"""

from __future__ import annotations

import re

# C0, DEL and C1; the soft hyphen and the other default-ignorable code points and format
# characters (Unicode's DerivedCoreProperties and category Cf), which hide in text and which
# ICU's collation ignores; the line and paragraph separators (in U+2028-U+202E, with the bidi
# overrides); lone surrogates (a name decoded with surrogateescape), which no stream can write.
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff\ud800-\udfff]"
)
# The runner's older command form, found anywhere in a line.
OLD_COMMAND = "##["


def _text_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)  # JSON spells a character past U+FFFF as its surrogate pair
    return f"\\u{0xd800 + high:04x}\\u{0xdc00 + low:04x}"


def framed(text: str, json: bool = False) -> str:
    """``text`` as one line with every unsafe character escaped: ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN``.

    With ``json``, the text is JSON and each escape is JSON's own ``\\uNNNN``, so it
    parses to the same value (JSON holds such characters only inside strings).  The
    runner's older workflow commands (``##[``) cannot start in it either.
    """
    shown = UNSAFE.sub(_json_escape if json else _text_escape, text)
    return shown.replace(OLD_COMMAND, "##\\u005b" if json else "##\\x5b")


def framed_line(text: str, json: bool = False) -> str:
    """A whole line whose start is untrusted text, framed, its leading ``::`` (after any white
    space, as the runner trims it) escaped: it cannot be a workflow command."""
    shown = framed(text, json)
    rest = shown.lstrip()
    if not rest.startswith("::"):
        return shown
    return shown[:len(shown) - len(rest)] + ("\\u003a" if json else "\\x3a") + rest[1:]
