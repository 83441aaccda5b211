"""The seed's decision table, in one place.

``route()`` is the seed's contract (Step 4): pure, no git, no files, no
network.  It takes the facts a probe collected, the job clock and the freeze
dates, and returns a ``Plan``.  Every reject reason the router can log and
every lane outcome is decided here; the other modules only collect facts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lanelog.errors import PlanError
from lanelog.reasons import REASONS
from lanelog.router import cost, evidence
from lanelog.router.policy import SEED_POLICY, Policy

# The property lane's outcomes (the last two rows of the seed's table).
LANES = ("not_started", "hold", "fail", "unresolved")


@dataclass
class PatchFacts:
    """What the probe learned from git; the first four fields are the seed's."""

    lines_changed: int
    files: list[str]
    assertion_deletions: int
    flaky_ids: list[str]
    # Lines per touched path (None: a binary file), so excluded paths can be
    # counted out of the cap.  Empty when the caller gives only the total.
    line_counts: dict[str, int | None] = field(default_factory=dict)
    # The diff touches the policy or the flaky list the patch is judged by.
    policy_touched: bool = False
    # The policy the patch touches is not in the base commit: the patch adopts lanelog.
    policy_adopted: bool = False
    # Renamed paths (new path: old path), when the diff detected renames.
    renamed: dict[str, str] = field(default_factory=dict)
    # The assertion evidence: matching lines added, removed matching lines that come
    # back verbatim (each added line excusing at most one), and the files of the
    # removed matching lines.
    assertion_additions: int = 0
    assertion_restored: int = 0
    assertion_files: list[str] = field(default_factory=list)
    # The first removed matching lines, as evidence.assertion_evidence records them, the diff's
    # lines around them, the first added matching lines and the added lines that restore one.
    assertion_lines: list[dict[str, Any]] = field(default_factory=list)
    assertion_excerpts: list[dict[str, Any]] = field(default_factory=list)
    assertion_added_lines: list[dict[str, Any]] = field(default_factory=list)
    assertion_restoring: list[dict[str, Any]] = field(default_factory=list)
    # The bytes of the patch the runner would get; None when not measured (no cost_cap).
    patch_bytes: int | None = None


@dataclass
class Problem:
    """A reason found before route() could look at the facts, with its detail."""

    reason: str
    message: str

    def __post_init__(self) -> None:
        if self.reason not in REASONS:
            raise PlanError(f"unknown reject reason {self.reason!r}")


@dataclass
class Plan:
    """The router's decision; the first five fields are the seed's."""

    probe: str
    properties: list[str] = field(default_factory=list)
    quarantine: list[str] = field(default_factory=list)
    merge_credit: int = 0
    model_call_allowed: bool = False
    reasons: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    units: int = 0
    lines_changed: int | None = None
    expired_freezes: list[str] = field(default_factory=list)
    review: str = "pending"
    # What a reviewer decides on, by reason code (router/evidence.py); the line's `evidence`.
    evidence: dict[str, Any] = field(default_factory=dict)
    # The estimate of the calls' cost and its inputs (router/cost.py); the line's `cost_estimate`.
    cost_estimate: dict[str, Any] | None = None

    @property
    def message(self) -> str | None:
        """All reasons' sentences on one line, or None for a pass."""
        return "; ".join(self.messages) if self.messages else None


def route(
    facts: PatchFacts | None,
    today: date,
    freeze_expiry: Mapping[str, date],
    policy: Policy | None = SEED_POLICY,
    *,
    problems: Sequence[Problem] = (),
) -> Plan:
    """Apply the decision table before any remote call.

    ``facts`` is None when git could not supply them and ``policy`` is None
    when no usable policy was found; the checks that need them are skipped,
    not guessed, and ``problems`` must then say why.  All reasons are
    collected.  Merge credit is never set above 0 here.
    """
    plan = Plan(probe="reject")
    for problem in problems:
        _add(plan, problem.reason, problem.message)
    if facts is not None:
        plan.expired_freezes = [
            test_id for test_id in _unique(facts.flaky_ids)
            if test_id in freeze_expiry and today > freeze_expiry[test_id]
        ]
        if facts.policy_adopted:
            _add(plan, "policy_changed", "the patch adds the first policy, which no base commit "
                 "holds yet: merge the policy first in its own pull request, then route patches "
                 "against a base that holds it")
        elif facts.policy_touched:
            _add(plan, "policy_changed", REASONS["policy_changed"])
    selected: list[str] = []
    if facts is not None and policy is not None:
        selected = _judge_diff(plan, facts, policy)
    if facts is None or policy is None:
        if not plan.reasons:
            raise PlanError("route() without facts or policy needs a problem saying why")
    if plan.reasons:
        return plan
    assert facts is not None and policy is not None  # without either, the plan has a reason (above)
    plan.probe = "pass"
    plan.properties = selected
    plan.units = sum(policy.properties[prop].units for prop in selected)
    plan.quarantine = [
        test_id for test_id in _unique(facts.flaky_ids)
        if test_id in freeze_expiry and today <= freeze_expiry[test_id]
    ]
    plan.model_call_allowed = True
    plan.merge_credit = 0
    return plan


def _judge_diff(plan: Plan, facts: PatchFacts, policy: Policy) -> list[str]:
    """The probe's rows of the table; returns the selected property ids.

    A renamed path's lines are excluded only when both its old and its new path are.
    """
    def excluded_path(path: str) -> bool:
        return policy.is_excluded(path) and (path not in facts.renamed or policy.is_excluded(facts.renamed[path]))

    excluded = [path for path in facts.line_counts if excluded_path(path)]
    counted = facts.lines_changed - sum(facts.line_counts[path] or 0 for path in excluded)
    plan.lines_changed = counted
    if counted > policy.line_cap:
        _add(plan, "line_cap", f"{counted} lines changed (excluded paths left out) "
             f"> line_cap {policy.line_cap}")
        plan.evidence["line_cap"] = evidence.line_cap(facts.line_counts, excluded, counted, policy.line_cap)
    unknown = [path for path, count in facts.line_counts.items()
               if count is None and not excluded_path(path)]
    if unknown:
        _add(plan, "size_unknown", f"binary file of unknown size: {_few(unknown)}; "
             "exclude generated paths in the policy")
    fixtures = [path for path in facts.files if policy.is_fixture(path)]
    tests = [path for path in facts.files if policy.is_test(path) and not policy.is_fixture(path)]
    if fixtures and tests:
        _add(plan, "fixture_and_test", f"fixture {_few(fixtures)} and test {_few(tests)} "
             "in one diff")
        plan.evidence["fixture_and_test"] = evidence.fixture_and_test(fixtures, tests)
    fired = assertion_fires(facts, policy.assertion_rule)
    if fired:
        _add(plan, "assertion_removed", _assertion_evidence(facts, policy.assertion_rule))
    if facts.assertion_deletions:
        # Kept whether or not the rule fired: under net and moved_ok the lines decide a pass too.
        plan.evidence["assertion_removed"] = evidence.assertions(
            facts.assertion_deletions, facts.assertion_additions, facts.assertion_restored,
            facts.assertion_lines, policy.assertion_rule, fired, excerpts=facts.assertion_excerpts,
            added_lines=facts.assertion_added_lines, restoring=facts.assertion_restoring)
    selected = _unique(prop for path in facts.files for prop in policy.properties_for(path))
    if not selected:
        _add(plan, "no_properties", REASONS["no_properties"])
        return selected
    units = sum(policy.properties[prop].units for prop in selected)
    if units > policy.budget_cap:
        _add(plan, "over_budget", f"{units} units > budget_cap {policy.budget_cap}: "
             "split the patch; do not raise the cap")
    if policy.cost_cap is not None and facts.patch_bytes is not None:
        estimate = cost.estimate(facts.patch_bytes, [policy.properties[prop].says for prop in selected], policy)
        plan.cost_estimate = estimate
        if estimate["cost"] > policy.cost_cap:
            _add(plan, "over_cost_cap", f"{estimate['calls']} call(s) estimated at {estimate['cost']:.6g} "
                 f"{estimate['currency']} > cost_cap {policy.cost_cap:g} {estimate['currency']} "
                 f"({estimate['input_tokens']} input tokens from a {estimate['patch_bytes']}-byte patch): "
                 "split the patch; do not raise the cap")
    return selected


def assertion_fires(facts: PatchFacts, rule: str) -> bool:
    """Whether the diff removes assertions under the policy's assertion_rule."""
    removed = facts.assertion_deletions
    if rule == "net":
        return removed > facts.assertion_additions
    if rule == "moved_ok":
        return removed > facts.assertion_restored
    return removed > 0


def _assertion_evidence(facts: PatchFacts, rule: str) -> str:
    """What a reviewer needs: lines removed, how many come back verbatim, the net change, the files."""
    net = facts.assertion_additions - facts.assertion_deletions
    where = f"; in {_few(facts.assertion_files)}" if facts.assertion_files else ""
    return (f"{facts.assertion_deletions} removed line(s) match an assertion pattern, "
            f"{facts.assertion_restored} come back verbatim, net change {net:+d} "
            f"(assertion_rule {rule}){where}")


def lane_for(results: Mapping[str, str]) -> str:
    """The lane's outcome from the per-property tokens.

    Hold only when every property that ran returned hold; a lane where nothing
    ran (every selected id quarantined) is unresolved, because a quarantine
    can delay a signal but never create one.
    """
    if not results:
        return "unresolved"
    if any(token == "fail" for token in results.values()):
        return "fail"
    if all(token == "hold" for token in results.values()):
        return "hold"
    return "unresolved"


def _add(plan: Plan, reason: str, message: str) -> None:
    if reason not in plan.reasons:
        plan.reasons.append(reason)
    plan.messages.append(f"{reason}: {message}")


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def _few(paths: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(paths[:limit])
    return shown if len(paths) <= limit else f"{shown} and {len(paths) - limit} more"
