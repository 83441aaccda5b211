"""Route history again under a candidate policy, in one process, writing no lane log.

Each patch is routed twice by the router's own `run_route` (no lane is run, no
line is written): once under the candidate policy, once under the baseline.
So a replayed decision is exactly what `lanelog route` gives for the same base,
head, day and policy.  The baseline is a policy file when given, else the
policy each base commit holds (the router's usual rule); replaying lane logs
without a baseline file compares with the decision each line recorded.  With
no baseline at all (a first policy, which no base holds), the candidate decides
alone.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from lanelog.errors import FlakyInvalid, PolicyInvalid, ReplayError
from lanelog.router.checkout_cache import RememberingCheckout
from lanelog.router.flaky import parse_flaky
from lanelog.router.gitfacts import Checkout
from lanelog.router.history import merge_counts, subjects
from lanelog.router.policy import parse_policy
from lanelog.router.replay_result import Patch, Replay
from lanelog.router.run import RouteOptions, run_route


def read_policy_file(path: Path, kind: str = "policy") -> tuple[Path, bytes]:
    """A policy or flaky file read as it is, checked before anything is replayed."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read the {kind} file ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
        if kind == "flaky":
            parse_flaky(text, str(path))
        else:
            parse_policy(text, str(path))
    except UnicodeDecodeError:
        raise ReplayError(f"{path}: not UTF-8 text") from None
    except (PolicyInvalid, FlakyInvalid) as exc:
        raise ReplayError(str(exc)) from None
    return Path(os.path.abspath(path)), data


def replay(checkout: Checkout, patches: list[Patch], skipped: list[dict[str, Any]],
           candidate: tuple[Path, bytes], baseline: tuple[Path, bytes] | None,
           flaky: tuple[Path, bytes] | None, about: dict[str, Any] | None = None, *,
           baseline_flaky: tuple[Path, bytes] | None = None, alone: bool = False) -> Replay:
    """Route every patch under the candidate and under the baseline (not at all when ``alone``).

    ``flaky`` is both sides' flaky list; ``baseline_flaky``, when given, is the baseline's.
    """
    result = Replay(skipped=list(skipped), about=dict(about or {}))
    if "first_parent" in result.about:
        # A --commits range: its merges counted over the patches replayed (--dedupe may have left some out).
        result.about.update(merge_counts(patches, result.about["first_parent"]))
    remembering = RememberingCheckout(checkout.toplevel)
    missing = [patch.head for patch in patches if patch.subject is None]
    if missing:
        known = subjects(checkout, missing)
        patches = [replace(patch, subject=known.get(patch.head)) if patch.subject is None else patch
                   for patch in patches]
    for patch in patches:
        # Patches listed by git log carry commit ids and sit on their first parent;
        # those of a lane log were resolved to commit ids when they were read.
        remembering.known(patch, first_parent=patch.recorded is None)
        theirs = _route(remembering, patch, candidate, flaky)
        ours: dict[str, Any] | None
        if alone:
            ours = None
        elif baseline is None and patch.recorded is not None:
            ours = patch.recorded
        else:
            ours = _route(remembering, patch, baseline, baseline_flaky or flaky)
        result.rows.append((patch, ours, theirs))
        remembering.forget()
    result.warnings = _warnings(result, baseline)
    return result


def _warnings(result: Replay, baseline: tuple[Path, bytes] | None) -> list[str]:
    """What makes the figures mislead: a baseline of bases without a policy, merges replayed apart."""
    warnings = []
    routed = [base for patch, base, _ in result.rows
              if base is not None and baseline is None and patch.recorded is None]
    missing = sum("policy_missing" in (line.get("reasons") or []) for line in routed)
    if routed and 2 * missing >= len(routed):
        warnings.append(f"{missing} of {len(routed)} replayed base commits hold no policy, so the baseline "
                        "rejects them as policy_missing and their flips compare with nothing; pass "
                        "--baseline FILE (the policy you run, or the first one you adopted)")
    through = result.about.get("through_merges") or 0
    if through:
        warnings.append(f"{through} of the replayed patches came through {result.about.get('merges')} "
                        "merge(s) and are replayed one by one; --first-parent replays each merged pull "
                        "request as one patch, as CI routed it")
    if result.about.get("shortened"):
        warnings.append(str(result.about["shortened"]))
    syncs = _syncs_warning(result.about)
    return warnings + ([syncs] if syncs else [])


def _syncs_warning(about: dict[str, Any]) -> str | None:
    """A range whose merges are mostly syncs, or hold no pull request, may have been misread: say so."""
    kinds = about.get("merge_kinds")
    if not isinstance(kinds, dict):
        return None
    syncs, pulls = kinds.get("sync", 0), kinds.get("pull_request", 0)
    if not syncs or (pulls and 2 * syncs <= syncs + pulls):
        return None
    rule = "by --sync-merges" if about.get("sync_rule") == "--sync-merges" else "as merges of long-lived branches"
    fate = "counted in the figures" if about.get("syncs_included") else "left out of the figures"
    found = f"none of the {syncs} first-parent merges is a pull request" if not pulls \
        else f"{syncs} of the {syncs + pulls} first-parent merges are branch syncs"
    return (f"{found}: they were judged syncs {rule} and are {fate}; if they are pull requests, name the "
            "branch syncs with --sync-merges PATTERN (every other merge is then a pull request), or replay "
            "every merge with --include-syncs")


def _route(checkout: Checkout, patch: Patch, policy: tuple[Path, bytes] | None,
           flaky: tuple[Path, bytes] | None) -> dict[str, Any]:
    """One decision, as `lanelog route --base BASE --head HEAD --today DAY` makes it (no lane runs)."""
    options = RouteOptions(repo=checkout.toplevel, base=patch.base, head=patch.head, today=patch.today,
                           repo_name="replay", policy_data=policy, flaky_data=flaky, checkout=checkout)
    return run_route(options)
