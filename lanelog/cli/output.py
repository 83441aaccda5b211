"""What every command writes to stdout and stderr goes through ``echo``: no line of it is forged.

A message is one line: a line break or control character in it (a file name, a
ref, a reason, log text) is shown escaped by lanelog.framing.  A document (a
table, a review, indented JSON, CSV) keeps its own line ends, and everything
between them is framed.
"""

from __future__ import annotations

import click

from lanelog.framing import framed


def echo(text: str = "", *, err: bool = False, nl: bool = True, json: bool = False,
         newline: str | None = None) -> None:
    """Write a command's output framed: a message as one line, a document line by line.

    ``newline`` marks a document and is its own line end (``\\n``, CSV's ``\\r\\n``),
    kept as it is.  ``json`` escapes as JSON does, so JSON output still parses.
    """
    shown = framed(text, json) if newline is None else newline.join(framed(part, json) for part in text.split(newline))
    click.echo(shown, err=err, nl=nl)
