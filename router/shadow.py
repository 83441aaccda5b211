"""The live shadow (`route --shadow FILE`): the same patch decided under a candidate policy.

A shadow never touches the live decision and never fails silently: whatever is wrong
with the file (absent, a folder, a FIFO, unreadable, too large, not a policy), or the
router failing under it, the shadow is recorded as an *error* (`error`, `message`, no
decision), never as a reject that would make the candidate look as if it rejected
everything, and never as an error of the route itself: its line, exit code and stderr
are the live decision's, and the CLI prints one warning.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

from lanelog.files import NotRegular, read_regular
from lanelog.reasons import SHADOW_ERRORS
from lanelog.router.paths import printable
from lanelog.router.run import RouteOptions, run_route

# A policy file is hand-written; past this size it is not one (the YAML reader refuses it too).
MAX_SHADOW_BYTES = 1024 * 1024


def shadow_decision(options: RouteOptions, path: Path, day: date) -> dict[str, Any]:
    """The line's ``shadow``: the patch decided under the policy at `path`, read as it is from disk,
    or, when it cannot be, the shadow's error (see is_error). No lane runs for it."""
    target = Path(os.path.abspath(path))
    shown = printable(str(target))
    try:
        data, problem = _policy_bytes(target)
    except Exception as exc:  # noqa: BLE001 - the live decision stands whatever the shadow does
        data, problem = None, " ".join(f"cannot be read ({type(exc).__name__}: {exc})".split())
    if data is None:
        return {"policy": shown, "policy_sha256": None, "error": "policy_missing",
                "message": f"policy_missing: {shown}: {problem}"}
    digest = hashlib.sha256(data).hexdigest()
    try:
        line = run_route(replace(options, policy_data=(target, data), runner=None, today=day))
    except Exception as exc:  # noqa: BLE001 - the live decision stands whatever the shadow does
        return {"policy": shown, "policy_sha256": digest, "error": "internal_error",
                "message": " ".join(f"internal_error: {type(exc).__name__}: {exc}".split())}
    failed = [reason for reason in line["reasons"] if reason in SHADOW_ERRORS]
    if failed:
        return {"policy": shown, "policy_sha256": digest, "error": failed[0], "message": line["message"]}
    return {"policy": shown, "policy_sha256": digest,
            "probe": line["probe"], "reasons": line["reasons"], "units": line["units"],
            "model_call_allowed": line["model_call_allowed"], "lines_changed": line["lines_changed"],
            "message": line["message"], **({"cost_estimate": line["cost_estimate"]} if "cost_estimate" in line else {})}


def is_error(shadow: dict[str, Any]) -> bool:
    """Whether the shadow is an error (no decision under the candidate policy)."""
    return "error" in shadow


def _policy_bytes(path: Path) -> tuple[bytes | None, str]:
    """A regular file's bytes, or None and what it is instead (absent, a folder, a FIFO or device,
    unreadable, larger than MAX_SHADOW_BYTES).

    Opened without blocking and checked on the descriptor, so a FIFO swapped in for the
    file cannot hang the job.
    """
    try:
        data = read_regular(path, MAX_SHADOW_BYTES)
    except FileNotFoundError:
        return None, "no such file"
    except NotRegular as error:
        return None, "a folder, not a policy file" if stat.S_ISDIR(error.mode) else \
            "not a regular file (a FIFO, a device or a socket)"
    except OSError as error:
        return None, f"cannot be read ({error.strerror or error})"
    if data is None:
        return None, f"larger than {MAX_SHADOW_BYTES} bytes"
    return data, ""
