"""The router: bound an agent patch on a git checkout and write one lane-log line.

It knows git, the policy files and the seed's decision table.  It never imports
ingest, queries or dashboard (tests/test_layering.py checks it).  Other layers
import these names, never the modules; each is imported when first used.
"""

from typing import TYPE_CHECKING

from lanelog.lazy import lazy_attributes

_HOMES = {
    **dict.fromkeys(("LANES", "PatchFacts", "Plan", "Problem", "lane_for", "route"), "decide"),
    **dict.fromkeys(("FreezeRow", "freeze_expiry", "parse_flaky"), "flaky"),
    **dict.fromkeys(("DEFAULT_TIMEOUT", "TOKEN_SOURCES", "LaneRunner"), "lane"),
    **dict.fromkeys(("OUTCOME_KIND", "OUTCOME_PRODUCER", "PRODUCER", "SCHEMA", "append_line", "dumps"), "lane_log"),
    **dict.fromkeys(("SEED_POLICY", "Policy", "parse_policy"), "policy"),
    **dict.fromkeys(("RouteOptions", "check_repo_name", "exit_code", "run_route"), "run"),
    "check_ref": "gitfacts",
    **dict.fromkeys(("is_error", "shadow_decision"), "shadow"),
    **dict.fromkeys(("append_summary", "error_annotations", "job_summary", "on_actions", "summary_file"), "github"),
    **dict.fromkeys(("FORGES", "outside_ci"), "forges"),
    **dict.fromkeys(("PolicyFiles", "ReplayRequest", "ReplayRun", "read_files", "replay_history", "stored_about"),
                    "replay_request"),
    **dict.fromkeys(("ChangeOptions", "attempt_change"), "change"),
    **dict.fromkeys(("check_login", "check_repository", "check_sha", "check_text", "check_time", "check_url"),
                    "facts"),
    **dict.fromkeys(("OutcomeFlags", "OutcomeRequest", "outcome_line"), "outcome"),
    **dict.fromkeys(("HookOptions", "HookResult", "run_hook"), "hook"),
    "HOOK_TIMEOUT": "hook:DEFAULT_TIMEOUT",
    "AGENTS": "hook_agents",
    "MAX_HOOK_INPUT": "hook_agents:MAX_INPUT",
    "HookSetup": "hook_install",
    "install_hook": "hook_install:install",
}

if TYPE_CHECKING:
    from lanelog.router.change import ChangeOptions, attempt_change
    from lanelog.router.decide import LANES, PatchFacts, Plan, Problem, lane_for, route
    from lanelog.router.facts import (
        check_login,
        check_repository,
        check_sha,
        check_text,
        check_time,
        check_url,
    )
    from lanelog.router.flaky import FreezeRow, freeze_expiry, parse_flaky
    from lanelog.router.forges import FORGES, outside_ci
    from lanelog.router.gitfacts import check_ref
    from lanelog.router.github import append_summary, error_annotations, job_summary, on_actions, summary_file
    from lanelog.router.hook import DEFAULT_TIMEOUT as HOOK_TIMEOUT
    from lanelog.router.hook import HookOptions, HookResult, run_hook
    from lanelog.router.hook_agents import AGENTS
    from lanelog.router.hook_agents import MAX_INPUT as MAX_HOOK_INPUT
    from lanelog.router.hook_install import HookSetup
    from lanelog.router.hook_install import install as install_hook
    from lanelog.router.lane import DEFAULT_TIMEOUT, TOKEN_SOURCES, LaneRunner
    from lanelog.router.lane_log import OUTCOME_KIND, OUTCOME_PRODUCER, PRODUCER, SCHEMA, append_line, dumps
    from lanelog.router.outcome import OutcomeFlags, OutcomeRequest, outcome_line
    from lanelog.router.policy import SEED_POLICY, Policy, parse_policy
    from lanelog.router.replay_request import (
        PolicyFiles,
        ReplayRequest,
        ReplayRun,
        read_files,
        replay_history,
        stored_about,
    )
    from lanelog.router.run import RouteOptions, check_repo_name, exit_code, run_route
    from lanelog.router.shadow import is_error, shadow_decision

__getattr__ = lazy_attributes(__name__, _HOMES)

__all__ = [
    "AGENTS", "DEFAULT_TIMEOUT", "FORGES", "HOOK_TIMEOUT", "MAX_HOOK_INPUT", "HookOptions", "HookResult", "HookSetup",
    "install_hook", "run_hook", "LANES", "OUTCOME_KIND", "OUTCOME_PRODUCER", "PRODUCER", "SCHEMA", "SEED_POLICY",
    "TOKEN_SOURCES", "ChangeOptions", "FreezeRow", "LaneRunner", "OutcomeFlags", "OutcomeRequest", "PatchFacts", "Plan",
    "Policy", "PolicyFiles", "Problem", "ReplayRequest", "ReplayRun", "RouteOptions", "append_line", "append_summary",
    "attempt_change", "check_login", "check_ref", "check_repo_name", "check_repository", "check_sha", "check_text",
    "check_time", "check_url", "dumps", "error_annotations", "exit_code", "freeze_expiry", "is_error", "job_summary",
    "lane_for", "on_actions", "outcome_line", "outside_ci", "parse_flaky", "parse_policy", "read_files",
    "replay_history", "route", "run_route", "shadow_decision", "stored_about", "summary_file",
]
