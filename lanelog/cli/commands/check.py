"""`lanelog check`: the seed's alert, read (lanelog.cli.reading), computed (lanelog.queries.checked), printed."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lanelog.cli.notify import NotifyOptions, deliver, notify_options, outcome_line
from lanelog.cli.options import budgets_option, dashboard_url_option, db_path, format_option, today_option
from lanelog.cli.output import echo
from lanelog.cli.reading import ReadOptions, read_options
from lanelog.cli.render import alerts as alert_forms
from lanelog.cli.render import budgets as budget_forms
from lanelog.cli.render import check as check_forms
from lanelog.errors import AlertError
from lanelog.lazy import lazy_module

if TYPE_CHECKING:
    import lanelog.cli.alerts as alerts
    from lanelog.queries import Checked
else:  # the webhook poster: only runs that post need it
    alerts = lazy_module("lanelog.cli.alerts")


@click.command()
@read_options
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too, not only on credit bugs.")
@format_option(["text", "json"], help="Print rows as text, or as JSON lines (summary on stderr).")
@notify_options
@click.option("--renotify", is_flag=True, help="With --notify: send every credit bug in range again.")
@dashboard_url_option("With --notify: the dashboard's address, so each alert links to its page (a credit bug's "
                      "triage, a budget's or spike's Spend review).")
@click.option("--notify-claim-expiry", type=click.FloatRange(min=1, max=86400), default=600.0, show_default=True,
              metavar="SECONDS", help="With --notify: a credit bug claimed by a run that has not marked it sent "
                                      "after this long (the run died) is sent by the next run; longer than a "
                                      "post can take (3 x --notify-timeout + 60 s).")
@budgets_option()
@today_option()
@click.option("--spike-factor", type=click.FloatRange(min=1, max=1000), default=2.0, show_default=True,
              metavar="FACTOR", help="A week spending more than FACTOR times the mean of the four before it "
                                     "is a spend spike.")
@click.option("--spike-min", type=click.FloatRange(min=0, max=1e9), default=1.0, show_default=True,
              metavar="AMOUNT", help="A spend spike spends at least AMOUNT in its week (in its currency).")
@click.pass_context
def check(ctx: click.Context, source: ReadOptions, strict: bool, fmt: str, notify: NotifyOptions, renotify: bool,
          dashboard_url: str | None, notify_claim_expiry: float, budgets: Path | None, today: date | None,
          spike_factor: float, spike_min: float) -> None:
    """Alert on credit bugs (exit 1) and audit the decision table's other rules.

    A credit bug is merge credit on an attempt whose quarantine is not empty; each
    one in range is printed and the exit code is 1.  Undated credit bugs always count.  A
    quarantine without merge credit never alerts.  Other breaches are warnings
    (exit 1 only with --strict).  Errors exit 2.

    With --budgets FILE, each budget's spend in the period holding today (--today),
    its share used and its projection are printed; one over its amount exits 1, as
    a credit bug does.  A week spending more than --spike-factor times the mean of
    the four before it (and at least --spike-min) is a spend spike (exit 1 with --strict).

    \b
    Example (cron or CI):
        lanelog check --since "$(date -d '7 days ago' +%F)" || notify-on-call
        LANELOG_NOTIFY="$SLACK_WEBHOOK" lanelog check --since "$(date -d '7 days ago' +%F)" \\
            --dashboard-url https://lanelog.example.com
        lanelog check --budgets budgets.yaml

    With --notify (or $LANELOG_NOTIFY), each credit bug, each budget threshold reached
    (once per budget, threshold and period) and each spike is posted once to each webhook:
    the database remembers what was sent where (by a digest of the URL, never the URL),
    so it is opened read-write; --renotify sends again.  Each one is claimed in the
    database before it is posted, so two runs at once post it once; a claim left by a
    run that died is taken over after --notify-claim-expiry.  A send that fails is not
    marked, and the run exits 2 after printing; the next run sends it.
    """
    from lanelog.queries import BUDGETS, SpikeRule, checked, engine_class, read_budgets, today_or_now

    # $LANELOG_DASHBOARD_URL set for every job is no mistake on a run without --notify; the option given is.
    given = ctx.get_parameter_source("dashboard_url") == click.core.ParameterSource.COMMANDLINE
    link_base = _check_notify(source, notify, renotify, dashboard_url if given or notify.urls else None,
                              notify_claim_expiry)
    if budgets is not None:
        engine_class(source.engine).require(BUDGETS, "--budgets")
    budget_list = read_budgets(budgets) if budgets is not None else []
    # With --notify the file is opened read-write first, so a database that cannot take the
    # marks is refused before anything is sent; it is closed again before the first send.
    with source.opened(write=bool(notify.urls)) as engine:
        found = checked(engine, source.filters, budget_list, today_or_now(today), SpikeRule(spike_factor, spike_min))
    _print(found, fmt, strict)
    if notify.urls:
        items = alerts.credit_bug_alerts(found.credit.lines, notify.format, link_base) + \
            alert_forms.merge_alerts(found.credit.merges, notify.format, link_base) + \
            alert_forms.money_alerts(found.spend, notify.format, link_base)
        outcome = deliver(items, notify, db_path(source.db), source.wait, renotify=renotify,
                          claim_expiry=notify_claim_expiry)
        echo(outcome_line(outcome, "alerts", len(notify.urls)), err=True)
        if outcome.failures:
            raise AlertError("not every alert was sent (the next run sends the rest): " + "; ".join(outcome.failures))
    warned = found.warnings or found.spend.warnings or found.spend.spikes
    ctx.exit(1 if found.credit.total or found.spend.over or (strict and warned) else 0)


def _check_notify(source: ReadOptions, notify: NotifyOptions, renotify: bool, dashboard_url: str | None,
                  claim_expiry: float) -> str | None:
    """Refuse --notify settings that cannot work, before anything is read; the dashboard's address checked."""
    if (renotify or dashboard_url) and not notify.urls:
        raise click.UsageError("--renotify and --dashboard-url go with --notify URL")
    longest = alerts.longest_post(notify.timeout)
    if notify.urls and claim_expiry <= longest:
        raise click.UsageError(f"--notify-claim-expiry must be longer than a post can take: "
                               f"{longest:g} s with --notify-timeout {notify.timeout:g}")
    if notify.urls and not source.keeps_records:
        raise click.UsageError("--notify needs the database (--db): LOG files and a lake keep no "
                               "record of what was sent")
    notify.receivers()  # a webhook URL that cannot be used is refused before anything is read
    return alerts.check_dashboard_url(dashboard_url)


def _print(found: Checked, fmt: str, strict: bool) -> None:
    """Each credit bug, warning, budget and spike as a line (JSON lines with --format json), then the summary."""
    as_json = fmt == "json"
    credit = found.credit
    listed = {"credit_bugs": credit.lines, "warnings": found.warnings}
    lines = check_forms.check_json_lines(listed) if as_json else check_forms.check_lines(listed)
    if as_json:
        lines += check_forms.merge_json_lines(credit.merges, "merge_credit_bug")
        lines += check_forms.merge_json_lines(credit.exceptions, "reviewed_exception")
    else:
        lines += check_forms.merge_lines(credit.merges, "CREDIT BUG (merge)")
        lines += check_forms.merge_lines(credit.exceptions, "reviewed exception")
    lines += budget_forms.check_json_lines(found.spend) if as_json else budget_forms.check_lines(found.spend)
    for line in lines:
        echo(line, json=as_json)
    warnings = len(found.warnings) + len(found.spend.warnings)
    if credit.total:
        summary = f"{credit.split_words()} in range"
    else:
        summary = (f"no credit bugs in range ({found.totals['attempts']} attempts checked, "
                   f"{found.totals['quarantined']} quarantined without credit)")
    summary += f"; {len(credit.exceptions)} reviewed exception(s)" if credit.exceptions else ""
    summary += f"; {warnings} warning(s)" + budget_forms.summary(found.spend) + (
        " (--strict)" if strict and (warnings or found.spend.spikes) else "")
    echo(summary, err=as_json)
