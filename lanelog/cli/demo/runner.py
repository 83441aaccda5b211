"""The demo's property runner: what `lanelog route --run` calls once per selected property.

A real runner would run a local test or make the model call. This one reads the
patch file the router hands it and answers what the scripted agent's
`demo-outcome:` marker asks for that property: `hold`, `fail`, prose (which the
router must count as unresolved), or a crash with no token at all.

It also says what a model call of that size would have used, as a model runner
does: a JSON last line beside the token, or (for the prose answer, whose last
line must stay prose) the file $LANELOG_USAGE_FILE.  It gives tokens and the
model, not a cost: the demo's policies price the model (`prices:`), so the
Spend review shows money on the first run.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

MARKER = "demo-outcome:"
PROSE = "The property probably holds, but the export fixture timed out before it finished."
MODEL = "demo-model"
# What a prompt carries besides the patch (instructions, the property, file context).
PROMPT_TOKENS = 1800


def wanted_outcome(patch: str, prop: str) -> str:
    """The outcome the patch's added marker lines ask for this property ("hold" by default)."""
    tokens: dict[str, str] = {}
    for line in patch.splitlines():
        if line.startswith("+") and MARKER in line:
            for pair in line.split(MARKER, 1)[1].split():
                name, _, token = pair.partition("=")
                tokens[name] = token
    return tokens.get(prop, tokens.get("*", "hold"))


def usage(patch: str, says: str, answer: str) -> dict[str, Any]:
    """Tokens as a model would count them, about four characters each, for the model the policy prices."""
    return {"input_tokens": PROMPT_TOKENS + (len(patch) + len(says)) // 4,
            "output_tokens": max(1, len(answer) // 4), "model": MODEL}


def main() -> int:
    prop = os.environ["LANELOG_PROPERTY"]
    patch = Path(os.environ["LANELOG_PATCH_FILE"]).read_text(encoding="utf-8", errors="replace")
    outcome = wanted_outcome(patch, prop)
    if outcome == "crash":
        print(f"runner: {prop}: worker lost", file=sys.stderr)
        return 2
    used = usage(patch, os.environ.get("LANELOG_PROPERTY_SAYS", ""), PROSE if outcome == "prose" else outcome)
    if outcome == "prose":
        Path(os.environ["LANELOG_USAGE_FILE"]).write_text(json.dumps(used), encoding="utf-8")
        print(PROSE)
    else:
        print(json.dumps({"token": outcome, "usage": used}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
