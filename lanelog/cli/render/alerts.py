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


def _slack(headline: str, detail: list[str], link: str | None, label: str) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(detail)}}]
    if link:
        blocks.append({"type": "section", "text": {"type": "mrkdwn",
                                                   "text": f"<{alerts.slack_escape(link)}|{label}>"}})
    return {"text": headline, "blocks": blocks, "unfurl_links": False, "unfurl_media": False}


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
