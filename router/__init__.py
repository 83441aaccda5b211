"""The router: bound an agent patch on a git checkout and write one lane-log line.

It knows git, the policy files and the seed's decision table.  It never
imports ingest, queries or dashboard (tests/test_layering.py checks it).
"""

from lanelog.reasons import REASONS
from lanelog.router.decide import LANES, PatchFacts, Plan, Problem, lane_for, route
from lanelog.router.flaky import FreezeRow, freeze_expiry, parse_flaky
from lanelog.router.lane import LaneRunner
from lanelog.router.lane_log import PRODUCER, SCHEMA, append_line, dumps
from lanelog.router.policy import SEED_POLICY, Policy, parse_policy
from lanelog.router.run import RouteOptions, exit_code, run_route

__all__ = [
    "LANES", "PRODUCER", "REASONS", "SCHEMA", "SEED_POLICY",
    "FreezeRow", "LaneRunner", "PatchFacts", "Plan", "Policy", "Problem", "RouteOptions",
    "append_line", "dumps", "exit_code", "freeze_expiry", "lane_for", "parse_flaky",
    "parse_policy", "route", "run_route",
]
