"""The money alerts `check --notify` and `report --notify` post: budget thresholds, spend spikes, the digest's key.

Each alert has a key that says what it is across runs, so it is posted once per
receiver: a budget's threshold crossing once per budget, threshold and period
(``budget:NAME:0.8:2026-10-05``), a spike once per week and currency
(``spike:2026-10-05:USD``), the weekly review once per week (``digest:2026-10-05``).
They are claimed and marked by the same code as the credit-bug alerts (lanelog.cli.alerts
and lanelog.store.alerts).  A budget's name is a word and its currency three capitals
(the budgets file's checks); a repo pattern is shown as Slack code, escaped.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from lanelog.events import row_json
from lanelog.lazy import lazy_module
from lanelog.money import exact_text, money_text
from lanelog.queries import Spend, Spike, Status, period

if TYPE_CHECKING:
    import lanelog.cli.alerts as alerts
else:  # the webhook poster: only runs that post need it
    alerts = lazy_module("lanelog.cli.alerts")


def budget_key(status: Status, threshold: float) -> str:
    """A threshold crossing's identity: the budget, the threshold written exactly (0.9999999 is not 1)
    and the period (by its first day)."""
    return f"budget:{status.budget.name}:{exact_text(threshold)}:{status.start.isoformat()}"


def digest_key(monday: date) -> str:
    """The weekly review's identity: its week."""
    return f"digest:{monday.isoformat()}"


def spend_link(dashboard_url: str | None, start: date, end: date) -> str | None:
    """The Spend review over the weeks from ``start`` to ``end`` (the sidebar's address filters)."""
    if not dashboard_url:
        return None
    query = urlencode([("weeks", start.isoformat()), ("weeks", end.isoformat())])
    return f"{dashboard_url.rstrip('/')}/spend?{query}"


def overview_link(dashboard_url: str, start: date, end: date) -> str:
    """The Overview over the days from ``start`` to ``end`` (the sidebar's address filters)."""
    query = urlencode([("weeks", start.isoformat()), ("weeks", end.isoformat())])
    return f"{dashboard_url.rstrip('/')}/?{query}"


def _slack(headline: str, detail: list[str], link: str | None, label: str) -> dict[str, Any]:
    blocks = [alerts.section("\n".join(detail))]
    if link:
        blocks.append(alerts.section(f"<{alerts.slack_escape(link)}|{label}>"))
    return {"text": headline, "blocks": alerts.blocks_within(blocks), "unfurl_links": False, "unfurl_media": False}


def budget_message(status: Status, threshold: float, fmt: str, dashboard_url: str | None) -> dict[str, Any]:
    """One budget past one of its thresholds: Slack text and blocks, or a plain JSON event."""
    budget, link = status.budget, spend_link(dashboard_url, status.start, status.end)
    if fmt == "json":
        return {"event": "budget_threshold", "threshold": threshold, **status.as_dict(), "spend_url": link}
    spent = f"{money_text(status.spend, budget.currency)} of {money_text(budget.amount, budget.currency)}"
    headline = (f"lanelog budget {budget.name}: {status.share:.0%} spent ({spent}), past {threshold:.0%} "
                f"in the {period(budget.period).noun} from {status.start.isoformat()}")
    scope = ", ".join(([f"repositories {alerts.slack_code(budget.repo)}"] if budget.repo is not None else [])
                      + ([f"property {alerts.slack_code(budget.property)}"] if budget.property is not None else []))
    detail = [
        f"*Budget {budget.name}* is past {threshold:.0%} of its amount" + (": *over*" if status.over else ""),
        f"*Spent:* {spent} ({status.share:.0%})",
        f"*Period:* {period(budget.period).noun} {status.start.isoformat()} to {status.end.isoformat()} (UTC)",
        f"*Projected by {status.end.isoformat()}:* {money_text(status.projected, budget.currency)}",
        f"*Scope:* {scope or 'all spend'}",
    ]
    return _slack(headline, detail, link, "Open the Spend review")


def spike_message(spike: Spike, fmt: str, dashboard_url: str | None) -> dict[str, Any]:
    """A spend spike: Slack text and blocks, or a plain JSON event."""
    end = spike.week + timedelta(days=6)
    link = spend_link(dashboard_url, spike.week - timedelta(days=28), end)
    if fmt == "json":
        return {"event": "spend_spike", **spike.as_dict(), "spend_url": link}
    ratio = f"{spike.spend / spike.mean:.1f} times" if spike.mean > 0 else "far above"
    headline = (f"lanelog spend spike: {money_text(spike.spend, spike.currency)} in the week of "
                f"{spike.week.isoformat()}, {ratio} the mean of the four weeks before")
    detail = [
        f"*Spend spike* in the week of {spike.week.isoformat()} (UTC)",
        f"*Spent:* {money_text(spike.spend, spike.currency)}",
        f"*Mean of the four weeks before:* {money_text(spike.mean, spike.currency)}",
        f"*Alerts above:* {spike.factor:g} times that mean",
    ]
    return _slack(headline, detail, link, "Open the Spend review")


def money_alerts(found: Spend, fmt: str, dashboard_url: str | None) -> list[tuple[str, dict[str, Any]]]:
    """The highest threshold each budget has reached, and each spike, as an alert to deliver: its key and
    its message.  One post per crossing: a run that finds a budget past 80% and 100% at once says 100%
    (a lower threshold crossed on an earlier run was posted then, under its own key)."""
    out = [(budget_key(status, status.crossed[-1]), budget_message(status, status.crossed[-1], fmt, dashboard_url))
           for status in found.statuses if status.crossed]
    return out + [(spike.key, spike_message(spike, fmt, dashboard_url)) for spike in found.spikes]


def merge_key(merge: dict[str, Any]) -> str:
    """A merge's credit bug across runs: its pull request and outcome (a re-run's outcome has the same id)."""
    return f"merge:{merge['pr_repository']}#{merge['pr_number']}:{merge['outcome_id']}"


def merge_message(merge: dict[str, Any], fmt: str, dashboard_url: str | None) -> dict[str, Any]:
    """A merge over a live quarantine nobody said may go: Slack text and blocks, or a plain JSON event."""
    link = alerts.triage_link(dashboard_url, {"repo": merge["repo"], "week": merge["week"]})
    if fmt == "json":
        return {"event": "merge_credit_bug", **row_json(merge), "triage_url": link}
    headline = (f"lanelog credit bug: pull request {merge['pr_repository']}#{int(merge['pr_number'])} merged over "
                "a live quarantine")
    detail = [
        "*Credit bug*: a pull request merged while its last attempt had a live quarantine",
        f"*Pull request:* {pull_request(merge)}",
        f"*Merged by:* {alerts.slack_code(merge['merged_by'])} ({alerts.slack_code(merge['merged_by_type'])})"
        + (f", auto-merge enabled by {alerts.slack_code(merge['auto_merge_by'])}" if merge["auto_merge"] else ""),
        f"*Agent:* {alerts.slack_code(merge['agent'])}",
        f"*What to do:* check the quarantined tests on the merged commit; {merge_advice(merge)}",
        "*Quarantine:* ",
    ]
    room = alerts.SECTION_LIMIT - len("\n".join(detail))
    detail[-1] += alerts.listed([alerts.slack_code(test) for test in merge["quarantine"]], room, noun=" tests")
    return _slack(alerts.slack_escape(headline), detail, link, "Open in credit-bug triage")


def merge_advice(merge: dict[str, Any]) -> str:
    """What could have made the merge a reviewed exception: for a person's merge, a person's word; for an
    auto-merge, a bot's merge or the author's own, nothing (outcomes.sql's person_merged)."""
    if merge["person_merged"]:
        return ("a person's approval of the merged commit before the merge (or the label "
                "lanelog:accept-quarantine set by a person) makes such a merge a reviewed exception")
    how = "an auto-merge" if merge["auto_merge"] else "a merge by a bot or by the pull request's author"
    return f"{how} over a live quarantine is always a credit bug: no approval or label would have changed it"


def pull_request(merge: dict[str, Any]) -> str:
    """A merged pull request in Slack's words: repository#number, a link to its address when the address passed
    the outcome's URL check (ingest keeps only an http(s) address), else as code."""
    number = f"{merge['pr_repository']}#{int(merge['pr_number'])}"
    return alerts.slack_link(merge.get("pr_url"), number) or alerts.slack_code(number)


def merge_alerts(merges: list[dict[str, Any]], fmt: str, dashboard_url: str | None) -> list[tuple[str, dict[str, Any]]]:
    """Each merge credit bug as an alert to deliver: its key and its message."""
    return [(merge_key(merge), merge_message(merge, fmt, dashboard_url)) for merge in merges]
