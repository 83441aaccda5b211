"""The weekly digest as `report --notify` posts it: Slack blocks and mrkdwn, or a plain JSON event.

Worded from lanelog.queries' digest (the week against the week before, its pull requests merged,
merge rate and cost per merged pull request, the credit bugs with the merged ones named, the top
repositories and properties by cost, the budgets) with a link to the dashboard's week.  Every name
from a log (a repository, a property id, a currency) is a Slack code span
(lanelog.cli.alerts.slack_code), so it can never mention, link or format; a pull request links to
its address only when the address is sound (lanelog.cli.alerts.slack_link).  The message keeps
within Slack's limits whatever the data (a header of 150 characters, at most ten fields of a
section, a section's text under 3,000 characters): a long list is cut as "and N more".
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from lanelog.cli.render import alerts as alert_forms
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
        cost = alerts.listed([_cost(entry["cost"], entry["currency"]) for entry in money["costs"]],
                             alerts.FIELD_LIMIT - 200, sep=" + ", noun=" currencies")
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
    return alerts.section("\n".join([f"*{title}*", *lines]))


def _budgets(statuses: list[dict[str, Any]]) -> dict[str, Any]:
    """Each budget's state, as many as Slack's section holds; the rest "and N more budgets"."""
    lines = [f"• {'*over* ' if status['over'] else ''}{status['name']}: "
             f"{money_text(status['spend'], status['currency'])} of "
             f"{money_text(status['amount'], status['currency'])} ({status['share']:.0%}) "
             f"in the {period(status['period']).noun} to {status['end']}" for status in statuses]
    head = "*Budgets*\n"
    return alerts.section(head + alerts.listed(lines, alerts.SECTION_LIMIT - len(head), sep="\n",
                                               noun=" budgets (the markdown review lists each)"))


def _outcome_fields(outcomes: dict[str, Any]) -> list[str]:
    """The week's pull requests merged (against the week before), merge rate and cost per merged pull request."""
    merged = f"{outcomes['merged']}"
    if outcomes["merged_before"] is not None:
        merged += f" ({outcomes['merged'] - outcomes['merged_before']:+d} on the week before)"
    rate = (f"{outcomes['merge_rate']:.0%} of {outcomes['merge_rate_denominator']} closed"
            if outcomes["merge_rate"] is not None else "none closed")
    cost = (_cost(outcomes["cost_per_merged_pr"], outcomes["currency"]) if outcomes["cost_per_merged_pr"] is not None
            else "no cost known")
    if outcomes["merged_cost_unknown"]:
        cost += f" ({outcomes['merged_cost_unknown']} merged without a known cost)"
    return [f"*Pull requests merged*\n{merged}", f"*Closed without merge*\n{outcomes['closed_without_merge']}",
            f"*Merge rate*\n{rate}", f"*Cost per merged pull request*\n{cost}"]


def _credit_merges(merges: list[dict[str, Any]]) -> dict[str, Any]:
    """The week's merges over a live quarantine, each pull request named (a link when its address is sound)."""
    head = "*Credit bugs: merged over a live quarantine*\n"
    named = [f"• {alert_forms.pull_request(merge)}" for merge in merges]
    return alerts.section(head + alerts.listed(named, alerts.SECTION_LIMIT - len(head), sep="\n",
                                               noun=" pull requests"))


def week_link(dashboard_url: str | None, week: str) -> str | None:
    """The dashboard's Overview over the digest's week (the sidebar's address filters)."""
    if not dashboard_url:
        return None
    monday = date.fromisoformat(week)
    return alert_forms.overview_link(dashboard_url, monday, monday + timedelta(days=6))


def _nothing(week: date | None, fmt: str) -> dict[str, Any]:
    """The digest of a range without a dated attempt: it names the week asked (--week), else says the range."""
    text = (f"lanelog weekly review: week of {week.isoformat()}: no attempts were routed in that week"
            if week is not None else "lanelog weekly review: no dated attempts in the range asked")
    if fmt == "json":
        return {"event": "weekly_review", "week": week.isoformat() if week else None, "digest": None,
                "dashboard_url": None}
    return {"text": text, "blocks": [alerts.section(text)], "unfurl_links": False, "unfurl_media": False}


def slack_message(digest: dict[str, Any], dashboard_url: str | None = None) -> dict[str, Any]:
    """The digest as Slack blocks: the week's figures and outcomes as fields, the credit-bug merges, where the
    money went, the budgets, and a link to the dashboard's week."""
    header = f"lanelog weekly review: week of {digest['week']}"
    against = (f"Against the week of {digest['week_before']} (weeks from Monday, UTC)" if digest["week_before"]
               else "No earlier week with attempts to compare with")
    fields = [f"*{label(key, title=True)}*\n{_count_change(digest['figures'][key])}" for key in FIELDS]
    fields += _money_fields(digest["money"])
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": header[:HEADER_LIMIT]}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": against}]},
        {"type": "section", "fields": [{"type": "mrkdwn", "text": field} for field in fields]},
        {"type": "section", "fields": [{"type": "mrkdwn", "text": field}
                                       for field in _outcome_fields(digest["outcomes"])]},
    ]
    if digest["credit_bug_merges"]:
        blocks.append(_credit_merges(digest["credit_bug_merges"]))
    blocks += [_top(digest["top_repositories"], "repo", "Top repositories by cost"),
               _top(digest["top_properties"], "property", "Top properties by cost")]
    if digest["budgets"]:
        blocks.append(_budgets(digest["budgets"]))
    link = alerts.slack_link(week_link(dashboard_url, digest["week"]), "Open the week in the dashboard")
    if link:
        blocks.append(alerts.section(link))
    figures, outcomes = digest["figures"], digest["outcomes"]
    text = (f"{header}: {figures['attempts']['value']} attempts, {figures['patch_rejects']['value']} patch rejects, "
            f"{figures['calls_armed']['value']} armed calls, {outcomes['merged']} pull requests merged, "
            f"{figures['credit_bugs_total']['value']} credit bugs")
    return {"text": text, "blocks": alerts.blocks_within(blocks), "unfurl_links": False, "unfurl_media": False}


def message(digest: dict[str, Any] | None, fmt: str, dashboard_url: str | None = None,
            week: date | None = None) -> dict[str, Any]:
    """What `report --notify` posts: Slack blocks (--notify-format slack) or the digest as data (json); for a
    range without a dated attempt, a message naming the week asked (`week`, --week's Monday) and saying so."""
    if digest is None:
        return _nothing(week, fmt)
    if fmt == "json":
        return {"event": "weekly_review", "week": digest["week"], "digest": digest,
                "dashboard_url": week_link(dashboard_url, digest["week"])}
    return slack_message(digest, dashboard_url)
