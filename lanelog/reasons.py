"""Every reason a probe can reject with, one record each: its sentence, its kind, its next step, its evidence.

A leaf module: the router decides with these codes, and the queries, reports and pages
explain and group them, so the one table lives below all of them.  Everything that lists
reasons reads ``RECORDS`` (the job summary's next steps, how the evidence is checked and
shown, the demo, the bench's mix, the shadow errors); a test fails on a list of reason codes written anywhere
else.

*Setup* rejects mean CI is broken (no checkout, a missing ref, an unusable policy or flaky
list, an unexpected failure): nothing about the patch was judged.  *Patch* rejects mean the
gate is working: the patch itself was too wide, touched what it must not, or cost too much.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["setup", "patch"]
# How a reason's evidence (router/evidence.py) is kept and shown: the removed assertion lines
# with the diff around them, the files that weigh most against the line cap, the paths on each
# side (fixtures and tests); "none" for a reason that records no evidence.
Evidence = Literal["assertion_lines", "line_counts", "paths", "none"]

# The next step of every setup reason: the patch was not judged, so nothing about it can be done.
FIX_SETUP = "Fix the CI set-up (the checkout, the refs, the policy files): nothing about the patch was judged."


@dataclass(frozen=True)
class Reason:
    """A reject reason: the code a line records, the sentence a person reads, whether it says CI is
    broken (setup) or the gate worked (patch), what to do next (the job summary's words; None: the
    sentence says it), how its evidence is shown, for a reason that makes a shadow decision no
    decision, why in words, and how many in a hundred rejects a team running the router sees are
    this reason (the bench draws its lines' reasons by these; 0: none)."""

    code: str
    sentence: str
    kind: Kind
    next_step: str | None = None
    evidence: Evidence = "none"
    shadow_error: str | None = None
    seen: int = 0


def _setup(code: str, sentence: str, shadow_error: str | None = None, seen: int = 0) -> Reason:
    return Reason(code, sentence, "setup", FIX_SETUP, shadow_error=shadow_error, seen=seen)


# In the order the reason table of docs/router.md lists them.
RECORDS: dict[str, Reason] = {reason.code: reason for reason in (
    _setup("not_a_repo", "the folder is not a git checkout"),
    _setup("base_missing", "the base ref does not resolve to a commit (often a shallow clone: fetch the base)",
           seen=3),
    _setup("head_missing", "the head ref does not resolve to a commit"),
    _setup("policy_missing", "no policy file: the router fails closed",
           shadow_error="the shadow policy file could not be read"),
    _setup("policy_invalid", "the policy file cannot be used",
           shadow_error="the shadow policy file is not a valid policy"),
    _setup("flaky_invalid", "the flaky list cannot be used"),
    Reason("policy_changed", "the patch edits the policy or the flaky list: "
           "change the policy in a reviewed human pull request", "patch",
           "Merge the policy first, in its own reviewed pull request; then route this patch "
           "against a base that holds it.", seen=2),
    Reason("line_cap", "too many lines changed", "patch",
           "Split the patch into smaller pull requests; a generated path belongs in the policy's "
           "exclude, changed in its own reviewed pull request.", evidence="line_counts", seen=40),
    Reason("size_unknown", "a binary file has unknown size", "patch",
           "Exclude the generated binary paths in the policy, in its own reviewed pull request.", seen=2),
    Reason("fixture_and_test", "the patch edits a fixture path and a test path in one diff", "patch",
           "Split the patch: change the fixture in one pull request and the test in another.", evidence="paths",
           seen=12),
    Reason("assertion_removed", "the patch removes an assertion, or a property line (one naming a prop_ test)",
           "patch", "If the assertion moved or was reworded (a formatter, a type comment), say so "
           "in the pull request and ask for a reviewed exception (below); otherwise keep it.",
           evidence="assertion_lines", seen=8),
    Reason("no_properties", "no touched path maps to a property: nothing means stop", "patch",
           "Map the touched paths to properties in the policy (its own reviewed pull request).", seen=25),
    Reason("over_budget", "the selected properties cost more units than the budget cap: "
           "split the patch; do not raise the cap", "patch", "Split the patch; do not raise the cap.", seen=8),
    Reason("over_cost_cap", "the selected properties' calls are estimated to cost more money than the cost cap: "
           "split the patch; do not raise the cap", "patch"),
    Reason("internal_error", "the router failed unexpectedly", "setup", FIX_SETUP,
           shadow_error="the router failed under the shadow policy"),
)}

# The views every caller reads: code -> sentence, the setup codes, the next steps by code.
REASONS: dict[str, str] = {code: reason.sentence for code, reason in RECORDS.items()}
SETUP_REASONS: frozenset[str] = frozenset(code for code, reason in RECORDS.items() if reason.kind == "setup")
NEXT_STEPS: dict[str, str] = {code: reason.next_step for code, reason in RECORDS.items() if reason.next_step}

# A shadow decision (`route --shadow`) that rests on one of these is no decision of the
# candidate policy (its file could not be used, or the router failed under it): the line
# records the shadow as an error, and the figures leave it out (ingest/load.sql's
# lane_attempt_rows holds this list too, for lines written before shadows had errors; a test
# keeps them equal).
SHADOW_ERRORS: tuple[str, ...] = tuple(code for code, reason in RECORDS.items() if reason.shadow_error)


def kind(reason: str) -> Kind:
    """`setup` for a reject that says CI is broken, `patch` for one that says the gate worked."""
    return "setup" if reason in SETUP_REASONS else "patch"


def evidence_of(reason: str) -> Evidence:
    """How a reason's evidence is shown; "none" for a code lanelog does not know (a lane log is untrusted)."""
    record = RECORDS.get(reason)
    return record.evidence if record is not None else "none"


def words(reason: str) -> str:
    """A reason as a legend or a table says it to a person ("fixture and test"); logs keep the code."""
    return reason.replace("_", " ")
