"""`lanelog report`: the weekly figures, read (lanelog.cli.reading), computed (lanelog.queries.review), printed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lanelog.cli.notify import NotifyOptions, deliver, notify_options, outcome_line, post_each
from lanelog.cli.options import budgets_option, dashboard_url_option, db_path, format_option, today_option
from lanelog.cli.output import echo
from lanelog.cli.reading import ReadOptions, read_options
from lanelog.cli.render import alerts as alert_forms
from lanelog.cli.render import budgets as budget_forms
from lanelog.cli.render import digest as digest_forms
from lanelog.cli.render import figures as figure_forms
from lanelog.cli.render import money as money_forms
from lanelog.cli.render import outcomes as outcome_forms
from lanelog.errors import AlertError
from lanelog.lazy import lazy_module
from lanelog.queries import STALE_DAYS

if TYPE_CHECKING:
    import lanelog.cli.alerts as alerts
    from lanelog.queries import Budget, Filters, Review
else:  # the webhook poster: only runs that post need it
    alerts = lazy_module("lanelog.cli.alerts")


@dataclass(frozen=True)
class Asked:
    """What `report` was asked beyond its source: the week, the form, the budgets and the day they are judged on."""

    week: tuple[date, date] | None
    fmt: str
    budgets: list[Budget] | None
    day: date

    @property
    def once(self) -> bool:
        """Whether a digest is posted once per week and webhook (--notify with --week)."""
        return self.week is not None

    def week_before(self, filters: Filters) -> Filters | None:
        """With --week, the week before it (the digest's and the review's week over week)."""
        from lanelog.queries import Filters

        if self.week is None:
            return None
        monday = self.week[0] - timedelta(days=7)
        return Filters(monday, monday + timedelta(days=6), filters.repo)


@click.command()
@read_options
@click.option("--week", "week_text", metavar="LAST|DATE",
              help="Only one week: LAST (the one before the week holding today) or the week holding DATE.")
@format_option(["text", "json", "markdown", "csv"])
@budgets_option()
@today_option("The day taken as today (YYYY-MM-DD, UTC) [default: today]: it moves --week LAST (the week "
              "before the one holding it) and, without --week, the day budgets are judged on.")
@notify_options
@dashboard_url_option("With --notify: the dashboard's address, so the digest links to its week there.")
@click.option("--stale-days", type=click.IntRange(0, 36500), default=STALE_DAYS, show_default=True, metavar="DAYS",
              help="A pull request still open counts as stale when its first attempt ran before the day DAYS days "
                   "before the report's last day (--until, else --today): with 14 and 2026-11-15, before "
                   "2026-11-01.")
@click.pass_context
def report(ctx: click.Context, source: ReadOptions, week_text: str | None, fmt: str, budgets: Path | None,
           today: date | None, notify: NotifyOptions, dashboard_url: str | None, stale_days: int) -> None:
    """Print the weekly figures: attempts, probe rejects, armed calls, credit bugs, units.

    Reads the DuckDB file, or, given LOG files, ingests them into a throwaway
    in-memory database first.  The undated bucket is always its own row, last.

    \b
    Examples:
        lanelog report --since 2026-10-01 --format markdown
        lanelog report lane-log.jsonl --format json
        lanelog report --lake lake/ --engine spark --format json
        lanelog report --repo-name orders-service --format markdown
        LANELOG_NOTIFY="$SLACK_WEBHOOK" lanelog report --format markdown --since 2026-10-01
        lanelog report --week LAST --budgets budgets.yaml --format markdown

    With --notify (or $LANELOG_NOTIFY), the markdown review is also posted to each
    webhook as a digest (the week against the week before, pull requests merged, merge
    rate, cost per merged pull request, credit bugs; --dashboard-url links it to the
    dashboard's week); a webhook that does not take it exits 2 after printing.
    With --week too, it is posted once per week and webhook (the database keeps
    what was sent, as check --notify does), so a nightly job can run it every night.
    --budgets FILE adds each budget, judged on the report's last day (the Sunday of
    --week, else --today).
    """
    from lanelog.queries import review

    if ctx.get_parameter_source("dashboard_url") == click.core.ParameterSource.COMMANDLINE and not notify.urls:
        raise click.UsageError("--dashboard-url goes with --notify URL: it links the digest posted")
    source, asked = _read(source, week_text, fmt, budgets, today, notify)
    link_base = alerts.check_dashboard_url(dashboard_url) if notify.urls else None
    with source.opened(write=asked.once and bool(notify.urls)) as engine:
        found = review(engine, source.filters, asked.budgets or [], asked.day, with_rows=fmt == "markdown",
                       before=asked.week_before(source.filters), stale_days=stale_days)
    if found.jobs is not None and source.verbose:
        echo(f"Spark ran {found.jobs} job(s) for this report", err=True)
    _printed(found, asked, source)
    if notify.urls:
        _post_digest(found, asked, source, notify, link_base)


def _week(text: str | None, today: date) -> tuple[date, date] | None:
    """--week LAST or DATE: its Monday and Sunday."""
    from lanelog.errors import QueryError
    from lanelog.queries import week_of

    try:
        return week_of(text, today) if text is not None else None
    except QueryError as error:
        raise click.BadParameter(str(error), param_hint="--week") from None


def _read(source: ReadOptions, week_text: str | None, fmt: str, budgets: Path | None,
          today: date | None, notify: NotifyOptions) -> tuple[ReadOptions, Asked]:
    """The options checked together, --week made the filters' range, the budgets file read."""
    from dataclasses import replace

    from lanelog.queries import BUDGETS, Filters, engine_class, read_budgets, today_or_now

    if notify.urls and fmt != "markdown":
        raise click.UsageError("--notify sends the weekly review: give --format markdown")
    if budgets is not None and fmt == "csv":
        raise click.UsageError("--budgets adds a section a CSV of weeks has no place for: give --format "
                               "text, json or markdown")
    week = _week(week_text, today_or_now(today))
    if week is not None:
        if source.filters.since is not None or source.filters.until is not None:
            raise click.UsageError("--week names the week: leave out --since and --until")
        source = replace(source, filters=Filters(week[0], week[1], source.filters.repo))
    notify.receivers()  # a webhook URL that cannot be used is refused before anything is read
    if notify.urls and week is not None and not source.keeps_records:
        raise click.UsageError("--notify with --week needs the database (--db): LOG files and a lake keep "
                               "no record of what was sent")
    if budgets is not None:
        engine_class(source.engine).require(BUDGETS, "--budgets")
    day = week[1] if week is not None else today_or_now(today)
    return source, Asked(week, fmt, read_budgets(budgets) if budgets is not None else None, day)


def _printed(found: Review, asked: Asked, source: ReadOptions) -> None:
    """Print the report in its --format."""
    figures, statuses = found.figures, found.spend.statuses
    if asked.fmt == "json":
        echo(json.dumps(figures, indent=2), json=True, newline="\n")
    elif asked.fmt == "csv":
        echo(figure_forms.csv_text(figures), nl=False, newline="\r\n")
    elif asked.fmt == "markdown":
        review = figure_forms.markdown(figures, found.credit, found.reasons, source.filters,
                                       found.digest()) + "\n\n" + money_forms.markdown(figures["money"])
        if figures["outcomes"]["totals"]["pull_requests"]:
            review += "\n\n" + outcome_forms.markdown(figures["outcomes"])
        if asked.budgets is not None:
            review += "\n\n" + budget_forms.markdown(statuses, asked.day)
        echo(review, newline="\n")
    else:
        echo(figure_forms.table(figures), newline="\n")
        echo("\n" + money_forms.table(figures["money"]), newline="\n")
        if figures["outcomes"]["totals"]["pull_requests"]:
            echo("\n" + outcome_forms.table(figures["outcomes"]), newline="\n")
        if asked.budgets is not None:
            echo("\n" + budget_forms.table(statuses), newline="\n")


def _post_digest(found: Review, asked: Asked, source: ReadOptions, notify: NotifyOptions,
                 dashboard_url: str | None) -> None:
    """Post the digest: once per week and webhook with --week (the database keeps what was sent), else each run.

    A week without attempts is posted too, naming the week and saying there was nothing: the channel
    hears of every week once, and the record says which week's message went."""
    message = digest_forms.message(found.digest(), notify.format, dashboard_url,
                                   asked.week[0] if asked.week is not None else None)
    if asked.week is not None:
        outcome = deliver([(alert_forms.digest_key(asked.week[0]), message)], notify, db_path(source.db),
                          source.wait)
        echo(outcome_line(outcome, f"digest of the week {asked.week[0].isoformat()}", len(notify.urls)), err=True)
        failures = outcome.failures
    else:  # without --week a review is posted every run: no record is kept of it
        failures = post_each(message, notify)
    if failures:
        raise AlertError("the weekly review was not sent: " + "; ".join(failures))
