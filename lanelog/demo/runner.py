"""The demo's property runner: what `lanelog route --run` calls once per selected property.

A real runner would run a local test or make the model call. This one reads the
patch file the router hands it and answers what the scripted agent's
`demo-outcome:` marker asks for that property: `hold`, `fail`, prose (which the
router must count as unresolved), or a crash with no token at all.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

MARKER = "demo-outcome:"
PROSE = "The property probably holds, but the export fixture timed out before it finished."


def wanted_outcome(patch: str, prop: str) -> str:
    """The outcome the patch's added marker lines ask for this property ("hold" by default)."""
    tokens: dict[str, str] = {}
    for line in patch.splitlines():
        if line.startswith("+") and MARKER in line:
            for pair in line.split(MARKER, 1)[1].split():
                name, _, token = pair.partition("=")
                tokens[name] = token
    return tokens.get(prop, tokens.get("*", "hold"))


def main() -> int:
    prop = os.environ["LANELOG_PROPERTY"]
    patch = Path(os.environ["LANELOG_PATCH_FILE"]).read_text(encoding="utf-8", errors="replace")
    outcome = wanted_outcome(patch, prop)
    if outcome == "crash":
        print(f"runner: {prop}: worker lost", file=sys.stderr)
        return 2
    print(PROSE if outcome == "prose" else outcome)
    return 0


if __name__ == "__main__":
    sys.exit(main())
