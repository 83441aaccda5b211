"""Every reason a probe can reject with, the sentence a person reads, and its kind.

A leaf module: the router decides with these codes, and the queries, reports and pages
explain and group them, so the one list lives below all of them.

*Setup* rejects mean CI is broken (no checkout, a missing ref, an unusable policy or flaky
list, an unexpected failure): nothing about the patch was judged.  *Patch* rejects mean the
gate is working: the patch itself was too wide, touched what it must not, or cost too much.
"""

from __future__ import annotations

from typing import Literal

REASONS: dict[str, str] = {
    "not_a_repo": "the folder is not a git checkout",
    "base_missing": "the base ref does not resolve to a commit (often a shallow clone: fetch the base)",
    "head_missing": "the head ref does not resolve to a commit",
    "policy_missing": "no policy file: the router fails closed",
    "policy_invalid": "the policy file cannot be used",
    "flaky_invalid": "the flaky list cannot be used",
    "policy_changed": "the patch edits the policy or the flaky list: "
    "change the policy in a reviewed human pull request",
    "line_cap": "too many lines changed",
    "size_unknown": "a binary file has unknown size",
    "fixture_and_test": "the patch edits a fixture path and a test path in one diff",
    "assertion_removed": "the patch removes an assertion, or a property line (one naming a prop_ test)",
    "no_properties": "no touched path maps to a property: nothing means stop",
    "over_budget": "the selected properties cost more units than the budget cap: "
    "split the patch; do not raise the cap",
    "over_cost_cap": "the selected properties' calls are estimated to cost more money than the cost cap: "
    "split the patch; do not raise the cap",
    "internal_error": "the router failed unexpectedly",
}

SETUP_REASONS: frozenset[str] = frozenset({
    "not_a_repo", "base_missing", "head_missing", "policy_missing", "policy_invalid",
    "flaky_invalid", "internal_error",
})

# A shadow decision (`route --shadow`) that rests on one of these is no decision of the
# candidate policy (its file could not be used, or the router failed under it): the line
# records the shadow as an error, and the figures leave it out (ingest/load.sql's
# lane_attempt_rows holds this list too, for lines written before shadows had errors).
SHADOW_ERRORS: tuple[str, ...] = ("policy_missing", "policy_invalid", "internal_error")

Kind = Literal["setup", "patch"]


def kind(reason: str) -> Kind:
    """`setup` for a reject that says CI is broken, `patch` for one that says the gate worked."""
    return "setup" if reason in SETUP_REASONS else "patch"


def words(reason: str) -> str:
    """A reason as a legend or a table says it to a person ("fixture and test"); logs keep the code."""
    return reason.replace("_", " ")
