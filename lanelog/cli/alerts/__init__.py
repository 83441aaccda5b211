"""Webhook alerts: credit bugs and the weekly digest, posted to incoming webhooks.

    messages.py   the receiver (its URL a secret, shown redacted) and what each alert says
    posting.py    one post: urllib, no redirect, each try bounded as a whole
    delivery.py   each alert claimed, posted and marked once per receiver (the caller's Ledger)

The package imports nothing of the project but the errors, and no storage: the caller
keeps the record of what was claimed and sent.
"""

from lanelog.cli.alerts.delivery import CLAIMED, HELD, SENT, Ledger, Outcome, deliver, longest_post
from lanelog.cli.alerts.messages import (
    FIELD_LIMIT,
    FORMATS,
    SECTION_LIMIT,
    Receiver,
    blocks_within,
    bug_key,
    check_dashboard_url,
    credit_bug_alerts,
    credit_bug_message,
    listed,
    section,
    slack_code,
    slack_escape,
    slack_link,
    triage_link,
)
from lanelog.cli.alerts.posting import ATTEMPTS, MAX_RETRY_AFTER_S, TIMEOUT_S, post

__all__ = [
    "ATTEMPTS", "CLAIMED", "FIELD_LIMIT", "FORMATS", "HELD", "MAX_RETRY_AFTER_S", "SECTION_LIMIT", "SENT",
    "TIMEOUT_S", "Ledger", "Outcome", "Receiver", "blocks_within", "bug_key", "check_dashboard_url",
    "credit_bug_alerts", "credit_bug_message", "deliver", "listed", "longest_post", "post", "section",
    "slack_code", "slack_escape", "slack_link", "triage_link",
]
