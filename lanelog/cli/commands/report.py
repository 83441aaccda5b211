"""`lanelog report` and `lanelog check`: thin commands over the `queries` package."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lanelog import ingest, queries, store
from lanelog.cli.commands import render, render_money, spend, spend_alerts
from lanelog.cli.commands.extras import require
from lanelog.cli.commands.options import (
    budgets_option,
    check_sources,
    db_option,
    db_path,
    deprecated_alias,
    format_option,
    lake_options,
    notify_options,
    today_option,
    wait_option,
)
from lanelog.cli.commands.output import echo
from lanelog.errors import AlertError, IngestError
from lanelog.lazy import lazy_module
from lanelog.queries import Filters
from lanelog.queries.source import choose_source

if TYPE_CHECKING:
    import lanelog.cli.alerts as alerts
else:  # the webhook poster (http.client, email, certifi): only runs that post need it
    alerts = lazy_module("lanelog.cli.alerts")


@contextmanager
def _database(db: Path | None, logs: tuple[Path, ...], wait: float, *, lake: str | None, engine: str,
              spark_master: str | None, spark_conf: dict[str, str], endpoint_url: str | None, verbose: bool,
              write: bool = False) -> Iterator[Any]:
    """Given LOG files, a throwaway in-memory database of them; else the source --db, --lake and
    --engine choose (lanelog.queries.source, the dashboard's rule too), read-only unless `write`
    (`check --notify` stores its sent marks)."""
    if db is not None and logs:
        raise click.UsageError("give either --db FILE or LOG files, not both")
    check_sources(db, logs, lake, engine, spark_master, spark_conf)
    if logs:
        con = store.open_memory()
        try:
            summary = ingest.ingest_paths(con, list(logs))
            if summary.errors:
                raise IngestError("cannot read lane log: " + "; ".join(summary.errors))
            yield con
        finally:
            con.close()
        return
    source = choose_source(db, lake, engine=engine, endpoint_url=endpoint_url)
    if source.engine == "spark":
        require("spark", "--engine spark")
    # A query the database refuses is a StoreError naming its .sql file and block (lanelog.store).
    with source.reading(wait=wait, write=write, spark_master=spark_master, spark_conf=spark_conf,
                        verbose=verbose) as con:
        yield con


def _ledger(path: Path, wait: float, renotify: bool, expiry_s: float) -> alerts.Ledger:
    """The database as the record of alerts claimed and sent, for one run (its claimant id).

    Each claim, mark and release is a write of its own, committed before it returns: the
    database is not held while a webhook answers (ingest, waiting for its lock, would
    wait on a slow receiver), and another run's claim is seen by the next claim.
    """
    claimant = uuid.uuid4().hex

    def write(change: Any, *args: Any, **kwargs: Any) -> Any:
        con = store.open_db(path, wait=wait)
        try:
            return change(con, *args, **kwargs)
        finally:
            con.close()

    return alerts.Ledger(
        claim=lambda receiver, key: write(store.alerts.claim, key, receiver.digest, claimant, resend=renotify,
                                          expiry_s=expiry_s),
        mark_sent=lambda receiver, key: write(store.alerts.mark_sent, key, receiver.digest, claimant),
        release=lambda receiver, key: write(store.alerts.release, key, receiver.digest, claimant),
        expiry_s=expiry_s)


def scope_options(command: Any) -> Any:
    """The options `report` and `check` share: where the data is and which of it counts."""
    options = [
        click.argument("logs", nargs=-1, metavar="[LOG]...", type=click.Path(path_type=Path)),
        db_option(),
        click.option("--since", metavar="DATE", help="First day (YYYY-MM-DD); its whole week counts."),
        click.option("--until", metavar="DATE", help="Last day (YYYY-MM-DD); its whole week counts."),
        click.option("--repo-name", "repo", metavar="NAME",
                     help="Only attempts of this repository (the line's `repo`, as `route --repo-name` wrote it)."),
        # `route --repo` is a checkout folder; here the filter names a repository, as `route --repo-name` does.
        deprecated_alias("--repo", "--repo-name NAME", "repo", metavar="NAME"),
        wait_option(),
        lake_options,
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.command()
@scope_options
@click.option("--week", "week_text", metavar="LAST|DATE",
              help="Only one week: LAST (the one before the week holding today) or the week holding DATE.")
@format_option(["text", "json", "markdown", "csv"])
@budgets_option()
@today_option()
@notify_options
def report(logs: tuple[Path, ...], db: Path | None, since: str | None, until: str | None,
           repo: str | None, wait: float, lake: str | None, engine: str, spark_master: str | None,
           spark_conf: dict[str, str], endpoint_url: str | None, verbose: bool, week_text: str | None, fmt: str,
           budgets: Path | None, today: date | None, notify: tuple[str, ...], notify_format: str,
           notify_timeout: float) -> None:
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
    webhook as a digest; a webhook that does not take it exits 2 after printing.
    With --week too, it is posted once per week and webhook (the database keeps
    what was sent, as check --notify does), so a nightly job can run it every night.
    --budgets FILE adds each budget, judged on the report's last day (the Sunday of
    --week, else --today).
    """
    if notify and fmt != "markdown":
        raise click.UsageError("--notify sends the weekly review: give --format markdown")
    if budgets is not None and fmt == "csv":
        raise click.UsageError("--budgets adds a section a CSV of weeks has no place for: give --format "
                               "text, json or markdown")
    day = spend.today_or_now(today)
    week = spend.week_of(week_text, day) if week_text is not None else None
    if week is not None:
        if since is not None or until is not None:
            raise click.UsageError("--week names the week: leave out --since and --until")
        since, until = week[0].isoformat(), week[1].isoformat()
    receivers = [alerts.Receiver(url) for url in notify]
    once = bool(receivers) and week is not None  # the week's digest, posted once per webhook
    if once and (logs or lake is not None):
        raise click.UsageError("--notify with --week needs the database (--db): LOG files and a lake keep "
                               "no record of what was sent")
    filters = Filters.parse(since, until, repo)
    budget_list = spend.read(budgets, engine)
    with _database(db, logs, wait, lake=lake, engine=engine, spark_master=spark_master, spark_conf=spark_conf,
                   endpoint_url=endpoint_url, verbose=verbose, write=once) as con:
        figures = queries.report(con, filters, with_money=True)
        statuses = spend.judge(con, budget_list, spend.report_day(week, day)).statuses
        if budgets is not None:
            figures["budgets"] = spend.report_rows(statuses)
        if fmt == "markdown":
            credit_bugs = queries.records(con, "credit_bug_rows", filters)
            reasons = queries.records(con, "reject_reasons", filters)
        if verbose and hasattr(con, "jobs_run"):  # the lake on Spark
            echo(f"Spark ran {con.jobs_run()} job(s) for this report", err=True)
    if fmt == "json":
        echo(json.dumps(figures, indent=2), json=True, newline="\n")
    elif fmt == "csv":
        echo(render.csv_text(figures), nl=False, newline="\r\n")
    elif fmt == "markdown":
        review = render.markdown(figures, credit_bugs, reasons, filters) + "\n\n" + \
            render_money.markdown(figures["money"])
        if budgets is not None:
            review += "\n\n" + spend.markdown(statuses, spend.report_day(week, day))
        echo(review, newline="\n")
        message = alerts.digest_message(review, notify_format, figures)
        failures = []
        if once:
            assert week is not None
            outcome = alerts.deliver([(spend_alerts.digest_key(week[0]), message)], receivers,
                                     _ledger(db_path(db), wait, False, store.alerts.CLAIM_EXPIRY_S),
                                     timeout=notify_timeout)
            held = f", {outcome.held} being sent by another run" if outcome.held else ""
            echo(f"digest of the week {week[0].isoformat()}: {outcome.sent} sent, {outcome.already_sent} sent "
                 f"before{held} (to {len(receivers)} webhook(s))", err=True)
            failures = outcome.failures
        else:  # without --week a review is posted every run: no record is kept of it
            for receiver in receivers:
                try:
                    alerts.post(receiver, message, timeout=notify_timeout)
                except AlertError as error:
                    failures.append(str(error))
        if failures:
            raise AlertError("the weekly review was not sent: " + "; ".join(failures))
    else:
        echo(render.table(figures), newline="\n")
        echo("\n" + render_money.table(figures["money"]), newline="\n")
        if budgets is not None:
            echo("\n" + spend.table(statuses), newline="\n")


@click.command()
@scope_options
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too, not only on credit bugs.")
@format_option(["text", "json"], help="Print rows as text, or as JSON lines (summary on stderr).")
@notify_options
@click.option("--renotify", is_flag=True, help="With --notify: send every credit bug in range again.")
@click.option("--dashboard-url", metavar="URL",
              help="With --notify: the dashboard's address, so each alert links to its page (a credit bug's "
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
def check(ctx: click.Context, logs: tuple[Path, ...], db: Path | None, since: str | None,
          until: str | None, repo: str | None, wait: float, lake: str | None, engine: str,
          spark_master: str | None, spark_conf: dict[str, str], endpoint_url: str | None, verbose: bool,
          strict: bool, fmt: str, notify: tuple[str, ...], notify_format: str, notify_timeout: float,
          renotify: bool, dashboard_url: str | None, notify_claim_expiry: float, budgets: Path | None,
          today: date | None,
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
    if (renotify or dashboard_url) and not notify:
        raise click.UsageError("--renotify and --dashboard-url go with --notify URL")
    if notify and notify_claim_expiry <= alerts.longest_post(notify_timeout):
        raise click.UsageError(f"--notify-claim-expiry must be longer than a post can take: "
                               f"{alerts.longest_post(notify_timeout):g} s with --notify-timeout {notify_timeout:g}")
    if notify and (logs or lake is not None):
        raise click.UsageError("--notify needs the database (--db): LOG files and a lake keep no "
                               "record of what was sent")
    receivers = [alerts.Receiver(url) for url in notify]
    link_base = alerts.check_dashboard_url(dashboard_url)
    filters = Filters.parse(since, until, repo)
    budget_list = spend.read(budgets, engine)
    outcome = None
    # With --notify the file is opened read-write first, so a database that cannot take the
    # marks is refused before anything is sent; it is closed again before the first send.
    with _database(db, logs, wait, lake=lake, engine=engine, spark_master=spark_master, spark_conf=spark_conf,
                   endpoint_url=endpoint_url, verbose=verbose, write=bool(receivers)) as con:
        found = queries.check(con, filters)
        checked = queries.totals(con, filters)
        # Spikes are judged with DuckDB (the database, LOG files, a lake read with DuckDB).
        money = spend.judge(con, budget_list, spend.today_or_now(today), spike_minimum=spike_min,
                            spike_factor=spike_factor if engine == "duckdb" else None)
        # Sent marks are for good: those bugs need no claim (with --renotify, every bug does).
        sent = {receiver.digest: set() if renotify else store.alerts.sent_to(con, receiver.digest)
                for receiver in receivers}
    if receivers:
        outcome = alerts.deliver(
            alerts.credit_bug_alerts(found["credit_bugs"], notify_format, link_base)
            + spend_alerts.money_alerts(money, notify_format, link_base), receivers,
            _ledger(db_path(db), wait, renotify, notify_claim_expiry),
            sent_before=lambda receiver: sent[receiver.digest], timeout=notify_timeout)
    as_json = fmt == "json"
    lines = render.check_json_lines(found) if as_json else render.check_lines(found)
    lines += spend.check_json_lines(money) if as_json else spend.check_lines(money)
    for line in lines:
        echo(line, json=as_json)
    bugs, warnings = len(found["credit_bugs"]), len(found["warnings"]) + len(money.warnings)
    if bugs:
        summary = f"{bugs} credit bug(s) in range: merge credit on quarantined attempts"
    else:
        summary = (f"no credit bugs in range ({checked['attempts']} attempts checked, "
                   f"{checked['quarantined']} quarantined without credit)")
    summary += f"; {warnings} warning(s)" + spend.summary(money) + (
        " (--strict)" if strict and (warnings or money.spikes) else "")
    echo(summary, err=as_json)
    if outcome is not None:
        held = f", {outcome.held} being sent by another run" if outcome.held else ""
        echo(f"alerts: {outcome.sent} sent, {outcome.already_sent} sent before{held} "
             f"(to {len(receivers)} webhook(s))", err=True)
        if outcome.failures:
            raise AlertError("not every alert was sent (the next run sends the rest): "
                             + "; ".join(outcome.failures))
    ctx.exit(1 if bugs or money.over or (strict and (warnings or money.spikes)) else 0)
