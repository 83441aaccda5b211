"""The weekly digest as `report --notify` posts it: Slack blocks and mrkdwn, or a plain JSON event.

Worded from lanelog.queries' digest (the week against the week before, the top repositories
and properties by cost, the budgets).  Every name from a log (a repository, a property id, a
currency) is a Slack code span (lanelog.cli.alerts.slack_code), so it can never mention, link
or format; the message keeps within Slack's limits (a header of 150 characters, at most ten
fields of a section, a section's text under 3,000 characters).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanelog.lazy import lazy_module
from lanelog.money import is_currency, money_text
from lanelog.queries import label, period

if TYPE_CHECKING:
    import lanelog.cli.alerts as alerts
else:  # the webhook poster: only runs that post need it
    alerts = lazy_module("lanelog.cli.alerts")

# The figures shown as fields (at most ten: Slack's limit), money after them.
FIELDS = ("attempts", "patch_rejects", "setup_rejects", "calls_armed", "credit_bugs_total", "quarantined", "units")
HEADER_LIMIT = 150


def _count_change(row: dict[str, Any]) -> str:
    change = row["change"]
    if change is None:
        return f"{row['value']}"
    return f"{row['value']} ({change:+g} on the week before)"


def _currency(currency: Any) -> str:
    """A currency as ingest keeps it (three capitals) shown plain; anything else as a code span."""
    return currency if is_currency(currency) else alerts.slack_code(currency)


def _cost(amount: Any, currency: Any) -> str:
    return money_text(amount, _currency(currency)) if amount is not None else "no cost recorded"


def _money_fields(money: dict[str, Any]) -> list[str]:
    if money["cost"] is None and money.get("costs"):
        cost = " + ".join(_cost(entry["cost"], entry["currency"]) for entry in money["costs"])
    else:
        cost = _cost(money["cost"], money["currency"])
    if money["change"] is not None:
        sign = "+" if money["change"] >= 0 else "-"
        cost += f" ({sign}{money_text(abs(money['change']), _currency(money['currency']))} on the week before)"
    avoided = money["spend_avoided_estimate"]
    return [f"*Cost*\n{cost}",
            f"*Spend avoided (estimate)*\n{_cost(avoided, money['currency']) if avoided is not None else 'unknown'}"]


def _top(rows: list[dict[str, Any]], key: str, title: str) -> dict[str, Any]:
    lines = [f"{n}. {alerts.slack_code(row[key])}: {_cost(row['cost'], row['currency'])}"
             for n, row in enumerate(rows, start=1)] or ["No cost recorded this week."]
    return {"type": "section", "text": {"type": "mrkdwn", "text": "\n".join([f"*{title}*", *lines])}}


def _budgets(statuses: list[dict[str, Any]]) -> dict[str, Any]:
    lines = [f"• {'*over* ' if status['over'] else ''}{status['name']}: "
             f"{money_text(status['spend'], status['currency'])} of "
             f"{money_text(status['amount'], status['currency'])} ({status['share']:.0%}) "
             f"in the {period(status['period']).noun} to {status['end']}" for status in statuses]
    return {"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(["*Budgets*", *lines])}}


def slack_message(digest: dict[str, Any] | None) -> dict[str, Any]:
    """The digest as Slack blocks: the week's figures as fields, where the money went, the budgets."""
    if digest is None:
        text = "lanelog weekly review: no dated attempts in range"
        return {"text": text, "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}],
                "unfurl_links": False, "unfurl_media": False}
    header = f"lanelog weekly review: week of {digest['week']}"
    against = (f"Against the week of {digest['week_before']} (weeks from Monday, UTC)" if digest["week_before"]
               else "No earlier week with attempts to compare with")
    fields = [f"*{label(key, title=True)}*\n{_count_change(digest['figures'][key])}" for key in FIELDS]
    fields += _money_fields(digest["money"])
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": header[:HEADER_LIMIT]}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": against}]},
        {"type": "section", "fields": [{"type": "mrkdwn", "text": field} for field in fields]},
        _top(digest["top_repositories"], "repo", "Top repositories by cost"),
        _top(digest["top_properties"], "property", "Top properties by cost"),
    ]
    if digest["budgets"]:
        blocks.append(_budgets(digest["budgets"]))
    figures = digest["figures"]
    text = (f"{header}: {figures['attempts']['value']} attempts, {figures['patch_rejects']['value']} patch rejects, "
            f"{figures['calls_armed']['value']} armed calls, {figures['credit_bugs_total']['value']} credit bugs")
    return {"text": text, "blocks": blocks, "unfurl_links": False, "unfurl_media": False}


def message(digest: dict[str, Any] | None, fmt: str) -> dict[str, Any]:
    """What `report --notify` posts: Slack blocks (--notify-format slack) or the digest as data (json)."""
    if fmt == "json":
        return {"event": "weekly_review", "digest": digest}
    return slack_message(digest)
