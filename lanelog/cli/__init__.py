"""The top floor: the `lanelog` command line, its commands, the demo and the webhook alerts.

    lanelog/cli/group.py      the click group: `main`, `cli`, the command table
    lanelog/cli/commands/     one module per command, and their shared options and rendering
    lanelog/cli/demo/         `lanelog demo`: honest demo data from the real router
    lanelog/cli/alerts/       webhook alerts: messages, posting, delivery (the caller keeps the record)

Nothing below this floor imports it (tests/test_layering.py; docs/architecture.md).  The
group's names are imported on first use, so `lanelog.cli.alerts` loads no click.
"""

from typing import TYPE_CHECKING

from lanelog.lazy import lazy_attributes

_HOMES = {"main": "group", "cli": "group", "COMMANDS": "group", "SUMMARIES": "group",
          "EXTRA_OF_COMMAND": "group"}

if TYPE_CHECKING:
    from lanelog.cli.group import COMMANDS, EXTRA_OF_COMMAND, SUMMARIES, cli, main

__all__ = ["COMMANDS", "EXTRA_OF_COMMAND", "SUMMARIES", "cli", "main"]
__getattr__ = lazy_attributes(__name__, _HOMES)
