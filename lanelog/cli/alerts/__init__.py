"""Webhook alerts: credit bugs and the weekly digest, posted to incoming webhooks.

    messages.py   the receiver (its URL a secret, shown redacted) and what each alert says
    posting.py    one post: urllib, no redirect, each try bounded as a whole
    delivery.py   each alert claimed, posted and marked once per receiver (the caller's Ledger)

The package imports nothing of the project but the errors, and no storage: the caller
keeps the record of what was claimed and sent.
"""

from lanelog.cli.alerts.delivery import CLAIMED, HELD, SENT, Ledger, Outcome, deliver, longest_post
from lanelog.cli.alerts.messages import (
    FORMATS,
    Receiver,
    bug_key,
    check_dashboard_url,
    credit_bug_alerts,
    credit_bug_message,
    slack_code,
    slack_escape,
    triage_link,
)
from lanelog.cli.alerts.posting import ATTEMPTS, MAX_RETRY_AFTER_S, TIMEOUT_S, post

__all__ = [
    "ATTEMPTS", "CLAIMED", "FORMATS", "HELD", "MAX_RETRY_AFTER_S", "SENT", "TIMEOUT_S", "Ledger", "Outcome",
    "Receiver", "bug_key", "check_dashboard_url", "credit_bug_alerts", "credit_bug_message", "deliver",
    "longest_post", "post", "slack_code", "slack_escape", "triage_link",
]
