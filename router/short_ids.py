"""A close's abbreviated commit ids (Bitbucket's 12 hex digits) made full against a checkout (``--repo DIR``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lanelog.errors import FactInvalid
from lanelog.router.forges import Close
from lanelog.router.gitfacts import Checkout


def full_ids(closed: Close, repo: Path | None) -> Close:
    """``closed`` with each abbreviated id the checkout at ``repo`` knows made full; without ``repo`` it is
    kept as given (the line names it in ``short_ids``).  An id the checkout does not resolve to one commit
    is an error naming the field: a line never guesses which commit was meant."""
    if repo is None or not closed.short:
        return closed
    checkout = Checkout.open(repo)
    found: dict[str, str] = {}
    for field in closed.short:
        short = getattr(closed, field)
        full = checkout.resolve(short)
        if full is None:
            raise FactInvalid(f"--repo {repo}: the {field} {short} names no one commit there; fetch it, "
                              f"or leave out --repo to keep it short")
        found[field] = full
    return dataclasses.replace(closed, short=(), head=found.get("head", closed.head),
                               merge_commit=found.get("merge_commit", closed.merge_commit))
