"""What every command writes to stdout and stderr goes through ``echo``: no line of it is forged.

A message is one line: a line break or control character in it (a file name, a
ref, a reason, log text) is shown escaped by lanelog.framing.  A document (a
table, a review, indented JSON, CSV) keeps its own line ends, and everything
between them is framed.  Every line is framed whole (``framed_line``), whatever
starts it: under GitHub Actions neither a ``::`` command at its start nor a ``##[``
command anywhere in it can come from the text it shows.  The one exception is
``echo_command``: lanelog's own annotations, built escaped by the router.
"""

from __future__ import annotations

import click

from lanelog.framing import framed, framed_line


def echo(text: str = "", *, err: bool = False, nl: bool = True, json: bool = False,
         newline: str | None = None) -> None:
    """Write a command's output framed: a message as one line, a document line by line.

    ``newline`` marks a document and is its own line end (``\\n``, CSV's ``\\r\\n``),
    kept as it is.  ``json`` escapes as JSON does, so JSON output still parses.
    """
    lines = [text] if newline is None else text.split(newline)
    click.echo((newline or "").join(framed_line(line, json) for line in lines), err=err, nl=nl)


def echo_command(command: str) -> None:
    """Write one of lanelog's own workflow commands on stderr (router.workflow_command built it, every
    value escaped): its leading ``::`` is kept, on purpose; whatever it quotes is framed all the same."""
    click.echo("::" + framed(command.removeprefix("::")), err=True)
