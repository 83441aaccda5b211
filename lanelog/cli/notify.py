"""Posting what `check --notify` and `report --notify` send, with the database as the record of what was sent.

``NotifyOptions`` is the --notify options as one object (built by ``notify_options``);
``deliver`` posts keyed alerts once per webhook through lanelog.cli.alerts, the
database claiming and marking each one (lanelog.store); ``post_each`` posts a message
that keeps no record (a review without --week).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lanelog import store
from lanelog.errors import AlertError
from lanelog.lazy import lazy_module

if TYPE_CHECKING:
    import lanelog.cli.alerts as alerts
else:  # the webhook poster (http.client, email, certifi): only runs that post need it
    alerts = lazy_module("lanelog.cli.alerts")


@dataclass(frozen=True)
class NotifyOptions:
    """--notify URL (repeatable, or $LANELOG_NOTIFY), --notify-format and --notify-timeout."""

    urls: tuple[str, ...]
    format: str
    timeout: float

    def receivers(self) -> list[alerts.Receiver]:
        """Each webhook, its URL checked and kept secret (it is never printed or stored)."""
        return [alerts.Receiver(url) for url in self.urls]


def notify_options(command: Callable[..., Any]) -> Any:
    """``--notify``, ``--notify-format``, ``--notify-timeout``, handed to the command as one ``notify``."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        notify = NotifyOptions(kwargs.pop("notify"), kwargs.pop("notify_format"), kwargs.pop("notify_timeout"))
        return command(*args, notify=notify, **kwargs)

    options = [
        click.option("--notify", "notify", multiple=True, metavar="URL", envvar="LANELOG_NOTIFY",
                     help="Post to this incoming webhook (repeatable; or $LANELOG_NOTIFY, URLs separated "
                          "by spaces, which keeps them out of the process list).  The URL is a secret: "
                          "it is never printed or stored."),
        click.option("--notify-format", type=click.Choice(["slack", "json"]), default="slack", show_default=True,
                     help="slack: text and blocks (Slack, Mattermost, Google Chat); json: a plain event."),
        click.option("--notify-timeout", type=click.FloatRange(min=0.1, max=120), default=10.0,
                     show_default=True, metavar="SECONDS",
                     help="Longest wait for a webhook to take one post, as a whole: connecting, sending "
                          "and its whole answer (three posts at most, on 429 and 5xx)."),
    ]
    for option in reversed(options):
        run = option(run)
    return run


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
        claim=lambda receiver, key: write(store.claim_alert, key, receiver.digest, claimant, resend=renotify,
                                          expiry_s=expiry_s),
        mark_sent=lambda receiver, key: write(store.mark_alert_sent, key, receiver.digest, claimant),
        release=lambda receiver, key: write(store.release_alert, key, receiver.digest, claimant),
        expiry_s=expiry_s)


def _sent_before(path: Path, wait: float, receivers: Sequence[alerts.Receiver]) -> dict[str, set[str]]:
    """What the database records as sent to each receiver (sent marks are for good: those need no claim)."""
    con = store.open_db(path, read_only=True, wait=wait)
    try:
        return {receiver.digest: store.alerts_sent_to(con, receiver.digest) for receiver in receivers}
    finally:
        con.close()


def deliver(items: Sequence[tuple[str, dict[str, Any]]], notify: NotifyOptions, db: Path, wait: float, *,
            renotify: bool = False, claim_expiry: float | None = None) -> alerts.Outcome:
    """Post each keyed alert once to each webhook, the database at `db` claiming and marking it;
    with `renotify`, what was sent before is sent again."""
    receivers = notify.receivers()
    sent = {receiver.digest: set() for receiver in receivers} if renotify else _sent_before(db, wait, receivers)
    expiry = claim_expiry if claim_expiry is not None else store.ALERT_CLAIM_EXPIRY_S
    return alerts.deliver(items, receivers, _ledger(db, wait, renotify, expiry),
                          sent_before=lambda receiver: sent[receiver.digest], timeout=notify.timeout)


def outcome_line(outcome: alerts.Outcome, what: str, receivers: int) -> str:
    """What a delivery did, for stderr: "alerts: 2 sent, 1 sent before (to 1 webhook(s))"."""
    held = f", {outcome.held} being sent by another run" if outcome.held else ""
    return f"{what}: {outcome.sent} sent, {outcome.already_sent} sent before{held} (to {receivers} webhook(s))"


def post_each(message: dict[str, Any], notify: NotifyOptions) -> list[str]:
    """Post one message to every webhook, keeping no record; the failures, in words."""
    failures = []
    for receiver in notify.receivers():
        try:
            alerts.post(receiver, message, timeout=notify.timeout)
        except AlertError as error:
            failures.append(str(error))
    return failures
