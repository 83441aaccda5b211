"""Delivering alerts: each one claimed for a receiver before it is posted, and marked once delivered.

The caller keeps the record (the database, through lanelog.store.alerts) and hands
in a Ledger of three writes.  A claim is committed before its post, one writer at a
time, so two runs at once post each alert once; the claim is dropped with the mark,
or given up when the post fails, so the next run sends that alert at once.  A claim
whose mark could not be written stands until it expires: the message went out, and
only a run after the claim expiry sends it again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from lanelog.cli.alerts.messages import Receiver
from lanelog.cli.alerts.posting import ATTEMPTS, MAX_RETRY_AFTER_S, TIMEOUT_S, post
from lanelog.errors import AlertError, LanelogError

# What a Ledger's claim says of an alert (lanelog.store.alerts.claim's words): this run holds
# it now, it was sent before, or another run's live claim holds it.
CLAIMED, SENT, HELD = "claimed", "sent", "held"


@dataclass(frozen=True)
class Ledger:
    """The record of what was sent where: claim(receiver, key) gives CLAIMED, SENT or HELD, committed;
    mark_sent(receiver, key) records a delivery; release(receiver, key) gives a claim up."""

    claim: Callable[[Receiver, str], str]
    mark_sent: Callable[[Receiver, str], None]
    release: Callable[[Receiver, str], None]
    expiry_s: float  # how long a claim stands without its mark


@dataclass
class Outcome:
    """What one delivery did: messages sent, alerts skipped (sent before, or being sent by
    another run), and failures."""

    sent: int = 0
    already_sent: int = 0
    held: int = 0
    failures: list[str] = field(default_factory=list)


def longest_post(timeout: float) -> float:
    """The longest one post can take, every try and wait between included (seconds)."""
    return ATTEMPTS * timeout + (ATTEMPTS - 1) * MAX_RETRY_AFTER_S


def deliver(alerts: Iterable[tuple[str, dict[str, Any]]], receivers: Iterable[Receiver], ledger: Ledger, *,
            sent_before: Callable[[Receiver], set[str]] = lambda _: set(),
            timeout: float = TIMEOUT_S) -> Outcome:
    """Post each alert (its key and message) to each receiver once: claimed, posted, then marked.

    `sent_before` names keys known to be sent already (skipped without a claim). A
    receiver that fails is given up for this run after its first failure (the next run
    sends what it missed); the other receivers still get theirs.
    """
    outcome = Outcome()
    alerts = list(alerts)
    for receiver in receivers:
        done = sent_before(receiver)
        for key, message in alerts:
            if key in done:
                outcome.already_sent += 1
                continue
            try:
                state = ledger.claim(receiver, key)
            except LanelogError as error:
                outcome.failures.append(f"not sent to {receiver}: the claim could not be written ({error})")
                break
            if state != CLAIMED:
                outcome.already_sent += state == SENT
                outcome.held += state == HELD
                continue
            try:
                post(receiver, message, timeout=timeout)
            except AlertError as error:
                outcome.failures.append(str(error))
                try:
                    ledger.release(receiver, key)
                except LanelogError:
                    pass  # the claim stands until it expires; then the next run sends it
                break
            try:
                ledger.mark_sent(receiver, key)
            except LanelogError as error:
                outcome.failures.append(f"sent to {receiver} but not recorded ({error}); its claim stands, and a "
                                        f"run after it expires ({ledger.expiry_s:g} s) sends it again")
                break
            outcome.sent += 1
    return outcome
