"""The text forms of what the commands print and post: one module per thing shown, in every --format.

    cells.py     the cells every form shares: plain (terminal-safe), md (literal markdown), aligned tables
    figures.py   the weekly figures: the terminal table, the markdown review, CSV
    money.py     the report's money section
    outcomes.py  the report's outcomes section: what became of the agent pull requests
    shadow.py    the live shadow's sections
    budgets.py   the budgets and spend spikes
    check.py     `check`'s credit-bug and warning lines
    replay.py    `replay`'s table and policy-review comment
    flips.py     the comment's flips (or rejects), every one, within GitHub's comment limit
    alerts.py    the money alerts' messages (budget thresholds, spikes) and their keys
    digest.py    the weekly digest `report --notify` posts: Slack blocks, or a JSON event

Each module is imported when first named (``from lanelog.cli.render import figures``).
Everything here works on the plain dicts and objects lanelog.queries and lanelog.router
give; text from a log or a commit is escaped for its form, always through cells.py.
"""

from lanelog.lazy import lazy_attributes

# Only submodules: lazy_attributes imports each when first named.
_HOMES: dict[str, str] = {}

__getattr__ = lazy_attributes(__name__, _HOMES)

__all__ = ["alerts", "budgets", "cells", "check", "digest", "figures", "flips", "money", "outcomes", "replay", "shadow"]
